/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qframe.c - length-prefixed frames of a stream socket edge (pure) */

#include <errno.h>

#include "edge/edge.h"

/**
 * qframe_parse() - split a byte stream into length-prefixed frames
 * @buf:	bytes received
 * @len:	length of @buf
 * @v:		frame views out (loans into @buf, prefix stripped)
 * @max:	at most this many frames
 * @frame_max:	largest frame length a prefix may announce
 * @used:	bytes of @buf the returned frames took, prefixes included
 *
 * Return: frames in @v, or -EPROTO if a prefix announces more than
 * @frame_max bytes
 */
int qframe_parse(const uint8_t *buf, size_t len, struct pkt_view *v,
		 unsigned max, size_t frame_max, size_t *used)
{
	size_t off = 0;
	unsigned n = 0;

	while (n < max && len - off >= 4) {
		size_t flen = (size_t)buf[off] << 24 |
			      (size_t)buf[off + 1] << 16 |
			      (size_t)buf[off + 2] << 8 | buf[off + 3];

		if (flen > frame_max) {
			*used = off;
			return -EPROTO;
		}
		if (len - off - 4 < flen)
			break;
		v[n] = (struct pkt_view){ .p = buf + off + 4, .len = flen };
		n++;
		off += 4 + flen;
	}
	*used = off;
	return (int)n;
}
