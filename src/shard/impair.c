/* SPDX-License-Identifier: GPL-2.0-or-later */
/* impair.c - a seeded impairment stage at the edge, for fault tests
 *
 * The fault matrix (tests/faults/) needs loss, duplication, reordering,
 * delay and corruption on the guest's link, on every edge alike, and this
 * machine's kernel has no netem. So the shard puts each frame crossing
 * the edge through this stage when --impair is given (a pointer test
 * when it is not): a frame is passed on, dropped, or copied and held
 * until it is due. Held frames sit in a heap ordered by (due time,
 * arrival), so delay alone keeps the order, and a frame held back for
 * reordering (1 ms more) is overtaken by those behind it. Decisions come
 * from a seeded generator: a run can be repeated.
 *
 * Corruption flips one bit of an IPv4 header, which the receiver's header
 * checksum catches (slipway's core checks it, as the guest's kernel does):
 * offloaded frames carry no checksum over their payload, so flipping a
 * payload bit would test nothing but that.
 */

#include <stdlib.h>
#include <string.h>

#include "shard/impair.h"
#include "util/ctr.h"
#include "util/util.h"

#define IMPAIR_HELD_MAX 8192	     /* frames held at most */
#define IMPAIR_BYTES_MAX (64U << 20) /* bytes held at most */
#define IMPAIR_REORDER_NS 1000000ULL /* held back this much more */

/**
 * struct held - a held frame
 * @due:	when it goes
 * @seq:	arrival order, for ties
 * @dir:	direction
 * @len:	length
 * @buf:	the copy
 */
struct held {
	uint64_t due, seq;
	int dir;
	size_t len;
	uint8_t *buf;
};

/**
 * struct impair - one shard's stage
 * @c:		configuration
 * @rng:	generator state
 * @heap:	held frames, a binary min-heap
 * @n:		entries in @heap
 * @bytes:	bytes held
 * @seq:	next arrival number
 * @last:	the frame impair_due() returned last (freed on the next call)
 */
struct impair {
	const struct impair_conf *c;
	uint64_t rng;
	struct held heap[IMPAIR_HELD_MAX];
	unsigned n;
	size_t bytes;
	uint64_t seq;
	uint8_t *last;
};

struct impair *impair_new(const struct impair_conf *c, unsigned shard)
{
	struct impair *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	im->c = c;
	im->rng = c->seed + 0x9e3779b97f4a7c15ULL * (shard + 1);
	return im;
}

void impair_free(struct impair *im)
{
	unsigned i;

	if (!im)
		return;
	for (i = 0; i < im->n; i++)
		free(im->heap[i].buf);
	free(im->last);
	free(im);
}

/**
 * rnd() - the next number of the generator (splitmix64)
 * @im:		stage
 *
 * Return: 64 random bits
 */
static uint64_t rnd(struct impair *im)
{
	uint64_t z = (im->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * chance() - true with probability @ppm per million
 * @im:		stage
 * @ppm:	probability
 *
 * Return: the draw
 */
static bool chance(struct impair *im, uint32_t ppm)
{
	return ppm && rnd(im) % 1000000 < ppm;
}

/**
 * held_less() - does @a go before @b?
 * @a:		held frame
 * @b:		held frame
 *
 * Return: true if so
 */
static bool held_less(const struct held *a, const struct held *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

/**
 * hold() - keep a copy of a frame until @due
 * @im:		stage
 * @dir:	direction
 * @p:		frame
 * @len:	length
 * @due:	when it goes
 *
 * Return: the copy, or NULL if the stage is full (the caller passes the
 * frame on)
 */
static uint8_t *hold(struct impair *im, int dir, const uint8_t *p, size_t len,
		     uint64_t due)
{
	struct held h = {
		.due = due, .seq = im->seq++, .dir = dir, .len = len
	};
	unsigned i;

	if (im->n == IMPAIR_HELD_MAX || im->bytes + len > IMPAIR_BYTES_MAX)
		return NULL;
	h.buf = malloc(len ? len : 1);
	if (!h.buf)
		return NULL;
	memcpy(h.buf, p, len);
	im->bytes += len;
	for (i = im->n++; i && held_less(&h, &im->heap[(i - 1) / 2]);
	     i = (i - 1) / 2)
		im->heap[i] = im->heap[(i - 1) / 2];
	im->heap[i] = h;
	return h.buf;
}

/**
 * is_ip4() - does a frame carry a whole IPv4 header (what corruption flips)?
 * @p:		frame
 * @len:	length
 * @hdr_len:	virtio-net header length
 *
 * Return: true if so
 */
static bool is_ip4(const uint8_t *p, size_t len, unsigned hdr_len)
{
	return len >= hdr_len + 14 + 20 && p[hdr_len + 12] == 0x08 &&
	       p[hdr_len + 13] == 0x00;
}

bool impair_frame(struct impair *im, int dir, const uint8_t *p, size_t len,
		  unsigned hdr_len, uint64_t now_ns, uint64_t *ctr)
{
	const struct impair_spec *sp = &im->c->dir[dir];
	uint64_t due = now_ns + sp->delay_ns;
	bool held = false;

	if (chance(im, sp->drop)) {
		ctr_add(&ctr[CTR_IMPAIR_DROPPED], 1);
		return true;
	}
	if (chance(im, sp->corrupt) && is_ip4(p, len, hdr_len)) {
		/* the held copy goes instead, in its turn, one bit of its
		 * IPv4 header flipped */
		unsigned bit = (unsigned)(rnd(im) % (20 * 8));
		uint8_t *c = hold(im, dir, p, len, due);

		if (c) {
			c[hdr_len + 14 + bit / 8] ^= (uint8_t)(1U << (bit % 8));
			ctr_add(&ctr[CTR_IMPAIR_CORRUPTED], 1);
			held = true;
		}
	}
	if (!held && hdr_len && len > hdr_len && (p[1] & 0x7f) == 5 &&
	    chance(im, sp->gso)) {
		/* a UDP GSO frame (VIRTIO_NET_HDR_GSO_UDP_L4) whose
		 * segment size makes no sense: the copy goes instead */
		static const uint16_t bad[] = { 0, 1, 65535 };
		uint16_t v = bad[rnd(im) % 3];
		uint8_t *c = hold(im, dir, p, len, due);

		if (c) {
			c[4] = (uint8_t)v;
			c[5] = (uint8_t)(v >> 8);
			ctr_add(&ctr[CTR_IMPAIR_GSO_MANGLED], 1);
			held = true;
		}
	}
	if (!held && chance(im, sp->reorder)) {
		due += IMPAIR_REORDER_NS;
		if (hold(im, dir, p, len, due)) {
			ctr_add(&ctr[CTR_IMPAIR_REORDERED], 1);
			held = true;
		} else {
			due -= IMPAIR_REORDER_NS;
		}
	}
	if (!held && sp->delay_ns) {
		if (hold(im, dir, p, len, due))
			held = true;
		else
			ctr_add(&ctr[CTR_IMPAIR_OVERFLOW], 1);
	}
	/* a second copy right behind the first: the same time, a later
	 * arrival (a frame passed on now has its copy go at the end of
	 * this batch) */
	if (chance(im, sp->dup) && hold(im, dir, p, len, held ? due : now_ns))
		ctr_add(&ctr[CTR_IMPAIR_DUPLICATED], 1);
	return held;
}

const uint8_t *impair_due(struct impair *im, uint64_t now_ns, int *dir,
			  size_t *len)
{
	struct held top, h;
	unsigned i, c;

	free(im->last);
	im->last = NULL;
	if (!im->n || im->heap[0].due > now_ns)
		return NULL;
	top = im->heap[0];
	h = im->heap[--im->n];
	for (i = 0; (c = 2 * i + 1) < im->n; i = c) {
		if (c + 1 < im->n && held_less(&im->heap[c + 1], &im->heap[c]))
			c++;
		if (!held_less(&im->heap[c], &h))
			break;
		im->heap[i] = im->heap[c];
	}
	if (im->n)
		im->heap[i] = h;
	im->bytes -= top.len;
	im->last = top.buf;
	*dir = top.dir;
	*len = top.len;
	return top.buf;
}

uint64_t impair_next_ns(const struct impair *im)
{
	return im->n ? im->heap[0].due : UINT64_MAX;
}
