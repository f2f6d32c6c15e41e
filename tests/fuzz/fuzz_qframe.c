/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_qframe.c - the stream edge's length-prefixed framing, qframe_parse()
 *
 * Input: byte 0 picks the batch size (1..32) and byte 1 a split point; the
 * rest is the stream. It is parsed in one go, and again as a socket would
 * deliver it (two reads, split where byte 1 says, consumed the way
 * qsock.c consumes it: parse, keep the unparsed tail, read more, parse).
 *
 * Checks: views lie inside the input, back to back after their prefixes,
 * never over the frame limit; what is left unparsed holds no complete
 * frame unless the batch was full; an over-limit prefix is an error at
 * exactly that frame; both ways of feeding give the same frames.
 */

#include <errno.h>
#include <string.h>

#include "edge/edge.h"

#include "fuzz_common.h"

#define FRAME_MAX 1600 /* small, so that inputs reach the limit */

static uint8_t buf[1 << 17];

/**
 * frame_len_at() - the length prefix at @p
 * @p:	four bytes
 *
 * Return: the length
 */
static size_t frame_len_at(const uint8_t *p)
{
	return (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 |
	       p[3];
}

/**
 * parse_all() - parse a whole stream in batches, as the edge does
 * @d:		stream
 * @len:	its length
 * @max:	batch size
 * @out:	lengths of the frames found, in order
 * @nout:	entries in @out (room for @len / 4 + 1)
 *
 * Return: bytes consumed, or -1 on a framing error
 */
static long parse_all(const uint8_t *d, size_t len, unsigned max, size_t *out,
		      size_t *nout)
{
	struct pkt_view v[32];
	size_t off = 0, used, k;
	int n;

	*nout = 0;
	for (;;) {
		n = qframe_parse(d + off, len - off, v, max, FRAME_MAX, &used);
		FZ_CHECK(used <= len - off);
		if (n < 0) {
			FZ_CHECK(n == -EPROTO);
			FZ_CHECK(len - off - used >= 4);
			FZ_CHECK(frame_len_at(d + off + used) > FRAME_MAX);
			return -1;
		}
		FZ_CHECK((unsigned)n <= max);
		for (k = 0; k < (size_t)n; k++) {
			size_t at = (size_t)(v[k].p - (d + off));

			FZ_CHECK(v[k].p >= d + off + 4);
			FZ_CHECK(at + v[k].len <= used);
			FZ_CHECK(v[k].len <= FRAME_MAX);
			FZ_CHECK(frame_len_at(v[k].p - 4) == v[k].len);
			if (k)
				FZ_CHECK(v[k].p ==
					 v[k - 1].p + v[k - 1].len + 4);
			out[(*nout)++] = v[k].len;
		}
		off += used;
		if ((unsigned)n < max) {
			/* nothing complete is left */
			FZ_CHECK(len - off < 4 ||
				 len - off - 4 < frame_len_at(d + off));
			return (long)off;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static size_t one[sizeof(buf) / 4 + 1], two[sizeof(buf) / 4 + 1];
	size_t n1, n2, split, len, first, tail;
	long used1, used2;
	unsigned max;

	if (size < 2 || size - 2 > sizeof(buf))
		return 0;
	max = (unsigned)(data[0] % 32) + 1;
	len = size - 2;
	split = len ? data[1] % (len + 1) : 0;

	used1 = parse_all(data + 2, len, max, one, &n1);

	/* as the edge sees it: the first read, then the rest appended to
	 * the unparsed tail */
	memcpy(buf, data + 2, split);
	used2 = parse_all(buf, split, max, two, &first);
	if (used2 < 0) {
		FZ_CHECK(used1 < 0);
		return 0;
	}
	tail = split - (size_t)used2;
	memmove(buf, buf + used2, tail);
	memcpy(buf + tail, data + 2 + split, len - split);
	used2 = parse_all(buf, tail + len - split, max, two + first, &n2);
	if (used2 < 0) {
		FZ_CHECK(used1 < 0);
		return 0;
	}
	FZ_CHECK(used1 >= 0);
	FZ_CHECK(n1 == first + n2);
	FZ_CHECK(!memcmp(one, two, n1 * sizeof(one[0])));
	return 0;
}
