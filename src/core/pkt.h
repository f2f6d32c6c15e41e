/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkt.h - bounds-checked read views over frames (loans into an rx batch) */
#ifndef SLIPWAY_PKT_H
#define SLIPWAY_PKT_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct pkt_view - a window over received bytes
 * @p:		first unread byte, in memory the guest cannot write (the
 *		edge's own buffer: a tap read, a socket read, a copy out of
 *		vhost-user guest memory)
 * @len:	bytes left at @p
 * @tail:	bytes that follow @p's, still in memory the guest can write
 *		(a vhost-user descriptor), or NULL
 * @tail_len:	bytes at @tail (0 when the frame is whole at @p)
 *
 * The trust rule: everything the core parses is at @p, which the guest can
 * no longer change, and pkt_pull() never reaches @tail. A tail is TCP
 * payload and nothing else (core_input() drops a frame whose @p does not
 * end exactly at its TCP payload, pkt_payload_off()): the core passes it on
 * (a send, a copy into the out-of-order store) and never looks at it, so a
 * guest rewriting it under us changes only its own bytes.
 *
 * Ownership: a loan; valid until the edge's rx batch is done. Never stored.
 */
struct pkt_view {
	const uint8_t *p;
	size_t len;
	const uint8_t *tail;
	size_t tail_len;
};

/**
 * pkt_len() - every byte a view covers, its tail included
 * @v:	view
 *
 * Return: @v->len + @v->tail_len
 */
static inline size_t pkt_len(const struct pkt_view *v)
{
	return v->len + v->tail_len;
}

/**
 * pkt_pull() - take @n bytes from the front of a view
 * @v:	view, advanced past the bytes on success
 * @n:	bytes wanted
 *
 * Return: pointer to the @n bytes, or NULL if the view is shorter (then @v
 *	   is unchanged)
 */
static inline const uint8_t *pkt_pull(struct pkt_view *v, size_t n)
{
	const uint8_t *p = v->p;

	if (v->len < n)
		return NULL;
	v->p += n;
	v->len -= n;
	return p;
}

/**
 * pkt_trim() - cut a view, its tail included, to at most @n bytes
 * @v:	view
 * @n:	new maximum length
 *
 * Return: 0, or -1 if the view was shorter than @n
 */
static inline int pkt_trim(struct pkt_view *v, size_t n)
{
	if (pkt_len(v) < n)
		return -1;
	if (n <= v->len) {
		v->len = n;
		v->tail = NULL;
		v->tail_len = 0;
	} else {
		v->tail_len = n - v->len;
	}
	return 0;
}

/**
 * pkt_payload_off() - where a frame's TCP payload starts, if the frame is
 * an unfragmented IPv4 or IPv6 TCP segment whose headers all lie in @p
 * @p:		the frame's first bytes (a copy the guest cannot write)
 * @len:	bytes at @p
 * @vnet_hdr_len: virtio-net header bytes in front of the Ethernet header
 *
 * An edge that leaves TCP payload in guest memory (a loan) copies the
 * frame's first bytes out, asks this where the payload starts, and hands
 * the core the copy up to there and the rest as the view's tail;
 * core_input() asks again, on the same copy, and drops a frame whose
 * answer differs.
 *
 * Return: the offset of the TCP payload from @p, or 0 if the frame is not
 * such a segment (or its headers go beyond @len)
 */
size_t pkt_payload_off(const uint8_t *p, size_t len, size_t vnet_hdr_len);

#endif /* SLIPWAY_PKT_H */
