/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkt.h - bounds-checked read views over frames (loans into an rx batch) */
#ifndef SLIPWAY_PKT_H
#define SLIPWAY_PKT_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct pkt_view - a window over received bytes
 * @p:		first unread byte
 * @len:	bytes left
 *
 * Ownership: a loan; valid until the edge's rx batch is done. Never stored.
 */
struct pkt_view {
	const uint8_t *p;
	size_t len;
};

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
 * pkt_trim() - cut a view to at most @n bytes
 * @v:	view
 * @n:	new maximum length
 *
 * Return: 0, or -1 if the view was shorter than @n
 */
static inline int pkt_trim(struct pkt_view *v, size_t n)
{
	if (v->len < n)
		return -1;
	v->len = n;
	return 0;
}

#endif /* SLIPWAY_PKT_H */
