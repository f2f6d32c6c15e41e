/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_virtq.c - split virtqueues (edge/virtq.c) over a fake guest memory
 *
 * The fake guest has three regions carved out of one calloc'ed buffer:
 *
 *   A  gpa 0x10000..0x17fff   host buf + 0x00000   (A and B are adjacent
 *   B  gpa 0x18000..0x1ffff   host buf + 0x10000    in gpa, not in host)
 *      gpa 0x20000..0x3ffff   unmapped
 *   C  gpa 0x40000..0x4ffff   host buf + 0x20000   rings live here
 *
 * Each test plays the driver: it writes descriptors and avail ring
 * entries (little-endian), bumps avail->idx, then checks what virtq_pop()
 * makes of them, or what virtq_push()/virtq_publish() and the notification
 * helpers write back.
 */

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "edge/virtq.h"

#define A_GPA 0x10000ULL
#define B_GPA 0x18000ULL
#define C_GPA 0x40000ULL
#define AB_SIZE 0x8000ULL
#define C_SIZE 0x10000ULL
#define BUF_SIZE 0x30000

#define UVA_BASE 0x7f0000000000ULL /* the frontend's mapping: gpa + this */

#define DESC_GPA (C_GPA)
#define AVAIL_GPA (C_GPA + 0x8000)
#define USED_GPA (C_GPA + 0x9000)
#define MAX_NUM 256 /* what the ring areas above have room for */

/**
 * struct drv - the guest's side of one queue, and our virtqueue on it
 * @buf:	backing store of every region
 * @m:		memory table
 * @vq:		the device's virtqueue
 * @desc:	descriptor table, our pointer
 * @avail:	avail ring, our pointer
 * @used:	used ring, our pointer
 * @num:	ring size
 * @avail_idx:	the driver's avail index
 */
struct drv {
	uint8_t *buf;
	struct vu_mem m;
	struct virtq vq;
	uint8_t *desc, *avail, *used;
	unsigned num;
	uint16_t avail_idx;
};

/**
 * put16() - store a little-endian u16
 * @p:	where
 * @v:	value
 */
static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

/**
 * put32() - store a little-endian u32
 * @p:	where
 * @v:	value
 */
static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

/**
 * put64() - store a little-endian u64
 * @p:	where
 * @v:	value
 */
static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/**
 * get16() - load a little-endian u16
 * @p:	where
 *
 * Return: value
 */
static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

/**
 * get32() - load a little-endian u32
 * @p:	where
 *
 * Return: value
 */
static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/**
 * drv_new() - fake guest memory with rings for a queue of @num entries
 * @num:	ring size (at most MAX_NUM)
 * @last_avail:	where both sides start
 * @event_idx:	EVENT_IDX negotiated
 *
 * Ownership: free with drv_free()
 *
 * Return: the driver, its virtqueue initialised
 */
static struct drv *drv_new(unsigned num, uint16_t last_avail, bool event_idx)
{
	struct drv *d = calloc(1, sizeof(*d));
	uint8_t *desc, *avail, *used;

	assert_non_null(d);
	d->buf = calloc(1, BUF_SIZE);
	assert_non_null(d->buf);
	d->m.n = 3;
	d->m.r[0] = (struct vu_region){ A_GPA, AB_SIZE, UVA_BASE + A_GPA,
					d->buf };
	d->m.r[1] = (struct vu_region){ B_GPA, AB_SIZE, UVA_BASE + B_GPA,
					d->buf + 0x10000 };
	d->m.r[2] = (struct vu_region){ C_GPA, C_SIZE, UVA_BASE + C_GPA,
					d->buf + 0x20000 };
	d->num = num;
	d->avail_idx = last_avail;

	/* as the vhost-user edge will: ring addresses are frontend UVAs */
	desc = vu_uva_to_host(&d->m, UVA_BASE + DESC_GPA, 16ULL * num);
	avail = vu_uva_to_host(&d->m, UVA_BASE + AVAIL_GPA, 6ULL + 2 * num);
	used = vu_uva_to_host(&d->m, UVA_BASE + USED_GPA, 6ULL + 8 * num);
	assert_non_null(desc);
	assert_non_null(avail);
	assert_non_null(used);
	d->desc = desc;
	d->avail = avail;
	d->used = used;
	put16(avail + 2, last_avail);
	put16(used + 2, last_avail);
	assert_int_equal(virtq_init(&d->vq, num, desc, avail, used, last_avail,
				    event_idx),
			 0);
	return d;
}

/**
 * drv_free() - release a fake guest
 * @d:	driver
 */
static void drv_free(struct drv *d)
{
	free(d->buf);
	free(d);
}

/**
 * set_desc() - write descriptor @i as the driver would
 * @d:		driver
 * @i:		index
 * @addr:	buffer gpa
 * @len:	buffer length
 * @flags:	VIRTQ_DESC_F_*
 * @next:	next index
 */
static void set_desc(struct drv *d, unsigned i, uint64_t addr, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	uint8_t *p = d->desc + 16 * i;

	put64(p, addr);
	put32(p + 8, len);
	put16(p + 12, flags);
	put16(p + 14, next);
}

/**
 * offer() - put a chain head in the avail ring and bump avail->idx
 * @d:		driver
 * @head:	head descriptor index (any value: malformed ones too)
 */
static void offer(struct drv *d, uint16_t head)
{
	put16(d->avail + 4 + 2 * (d->avail_idx % d->num), head);
	d->avail_idx++;
	put16(d->avail + 2, d->avail_idx);
}

/**
 * used_event_set() - the driver's used_event (EVENT_IDX)
 * @d:		driver
 * @v:		value
 */
static void used_event_set(struct drv *d, uint16_t v)
{
	put16(d->avail + 4 + 2 * d->num, v);
}

/**
 * avail_event_get() - the device's avail_event (EVENT_IDX)
 * @d:		driver
 *
 * Return: its value
 */
static uint16_t avail_event_get(struct drv *d)
{
	return get16(d->used + 4 + 8 * d->num);
}

/**
 * assert_pop_einval() - virtq_pop() rejects what is offered, and does not
 * move on
 * @d:		driver
 * @writable:	receive queue
 */
static void assert_pop_einval(struct drv *d, bool writable)
{
	struct virtq_elem el;
	uint16_t before = d->vq.last_avail;

	assert_int_equal(virtq_pop(&d->vq, &d->m, writable, &el), -EINVAL);
	assert_int_equal(d->vq.last_avail, before);
}

/**
 * test_gpa_translate() - vu_gpa_to_host(): inside, capped at a region's
 * end, gaps, zero length, lengths that would wrap
 * @state:	unused
 */
static void test_gpa_translate(void **state)
{
	struct drv *d = drv_new(8, 0, false);
	struct vu_mem top = { 0 };
	uint8_t page[0x1000];
	uint64_t len;

	(void)state;
	len = 0x100;
	assert_ptr_equal(vu_gpa_to_host(&d->m, A_GPA + 0x10, &len),
			 d->buf + 0x10);
	assert_int_equal(len, 0x100);

	/* capped at the end of A, even though B follows in gpa */
	len = 0x100;
	assert_ptr_equal(vu_gpa_to_host(&d->m, B_GPA - 0x10, &len),
			 d->buf + AB_SIZE - 0x10);
	assert_int_equal(len, 0x10);
	len = 1;
	assert_ptr_equal(vu_gpa_to_host(&d->m, B_GPA, &len), d->buf + 0x10000);

	/* the gap, below everything, the last byte of B, the first after */
	len = 1;
	assert_null(vu_gpa_to_host(&d->m, 0x20000, &len));
	len = 1;
	assert_null(vu_gpa_to_host(&d->m, 0x3ffff, &len));
	len = 1;
	assert_null(vu_gpa_to_host(&d->m, 0, &len));
	len = 1;
	assert_null(vu_gpa_to_host(&d->m, A_GPA - 1, &len));
	len = 100;
	assert_non_null(vu_gpa_to_host(&d->m, 0x1ffff, &len));
	assert_int_equal(len, 1);
	len = 1;
	assert_null(vu_gpa_to_host(&d->m, C_GPA + C_SIZE, &len));

	/* zero length */
	len = 0;
	assert_null(vu_gpa_to_host(&d->m, A_GPA, &len));

	/* a length that wraps gpa + len: capped, not wrapped */
	len = UINT64_MAX;
	assert_non_null(vu_gpa_to_host(&d->m, C_GPA + 8, &len));
	assert_int_equal(len, C_SIZE - 8);
	len = UINT64_MAX;
	assert_null(vu_gpa_to_host(&d->m, UINT64_MAX, &len));

	/* a region ending at 2^64 */
	top.n = 1;
	top.r[0] = (struct vu_region){ UINT64_MAX - 0xfff, 0x1000, 0, page };
	len = 0x100;
	assert_ptr_equal(vu_gpa_to_host(&top, UINT64_MAX - 0x10, &len),
			 page + 0xfef);
	assert_int_equal(len, 0x11);
	len = 0x100;
	assert_ptr_equal(vu_gpa_to_host(&top, UINT64_MAX, &len), page + 0xfff);
	assert_int_equal(len, 1);
	len = 1;
	assert_null(vu_gpa_to_host(&top, 0, &len));
	drv_free(d);
}

/**
 * test_uva_translate() - vu_uva_to_host(): the whole range in one region
 * @state:	unused
 */
static void test_uva_translate(void **state)
{
	struct drv *d = drv_new(8, 0, false);

	(void)state;
	assert_ptr_equal(vu_uva_to_host(&d->m, UVA_BASE + C_GPA, C_SIZE),
			 d->buf + 0x20000);
	assert_ptr_equal(vu_uva_to_host(&d->m, UVA_BASE + C_GPA + 0x10, 0x20),
			 d->buf + 0x20010);
	/* one byte too many, across A and B, in the gap, zero, wrapping */
	assert_null(vu_uva_to_host(&d->m, UVA_BASE + C_GPA, C_SIZE + 1));
	assert_null(vu_uva_to_host(&d->m, UVA_BASE + B_GPA - 8, 16));
	assert_null(vu_uva_to_host(&d->m, UVA_BASE + 0x20000, 1));
	assert_null(vu_uva_to_host(&d->m, UVA_BASE + C_GPA, 0));
	assert_null(vu_uva_to_host(&d->m, UVA_BASE + C_GPA + 1, UINT64_MAX));
	/* a gpa is not a uva */
	assert_null(vu_uva_to_host(&d->m, C_GPA, 16));
	drv_free(d);
}

/**
 * test_init() - ring sizes and alignment
 * @state:	unused
 */
static void test_init(void **state)
{
	static const unsigned bad[] = { 0,     3,     6,     100,     32767,
					32769, 65536, 65535, 1u << 20 };
	_Alignas(16) static uint8_t area[64];
	struct virtq vq;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(virtq_init(&vq, bad[i], area, area, area, 0,
					    false),
				 -EINVAL);
	for (i = 1; i <= VIRTQ_MAX_SIZE; i <<= 1)
		assert_int_equal(virtq_init(&vq, i, area, area, area, 7, true),
				 0);
	assert_int_equal(vq.last_avail, 7);
	assert_int_equal(vq.used_idx, 7);
	assert_false(vq.signalled_valid);

	/* misaligned areas: desc 16, avail 2, used 4 */
	assert_int_equal(virtq_init(&vq, 4, area + 8, area, area, 0, false),
			 -EINVAL);
	assert_int_equal(virtq_init(&vq, 4, area, area + 1, area, 0, false),
			 -EINVAL);
	assert_int_equal(virtq_init(&vq, 4, area, area, area + 2, 0, false),
			 -EINVAL);
	assert_int_equal(virtq_init(&vq, 4, area, area + 2, area + 4, 0, false),
			 0);
}

/**
 * test_simple_chain() - one descriptor, transmit; then an empty ring
 * @state:	unused
 */
static void test_simple_chain(void **state)
{
	struct drv *d = drv_new(8, 0, false);
	struct virtq_elem el;

	(void)state;
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 0);
	assert_int_equal(virtq_avail(&d->vq), 0);

	set_desc(d, 5, A_GPA + 0x100, 60, 0, 0);
	offer(d, 5);
	assert_int_equal(virtq_avail(&d->vq), 1);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.head, 5);
	assert_int_equal(el.niov, 1);
	assert_ptr_equal(el.iov[0].iov_base, d->buf + 0x100);
	assert_int_equal(el.iov[0].iov_len, 60);
	assert_int_equal(el.len, 60);
	assert_int_equal(d->vq.last_avail, 1);
	assert_int_equal(virtq_avail(&d->vq), 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 0);

	/* NEXT clear: the next field is ignored, even out of range */
	set_desc(d, 2, C_GPA + 0x100, 10, 0, 0xffff);
	offer(d, 2);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.head, 2);
	assert_int_equal(el.len, 10);
	drv_free(d);
}

/**
 * test_multi_chain() - chains in any descriptor order, receive and
 * transmit, zero-length descriptors inside, several chains at once
 * @state:	unused
 */
static void test_multi_chain(void **state)
{
	struct drv *d = drv_new(16, 0, false);
	struct virtq_elem el;
	const uint16_t W = VIRTQ_DESC_F_WRITE, N = VIRTQ_DESC_F_NEXT;

	(void)state;
	/* receive: 7 -> 2 -> 11 (empty) -> 0 */
	set_desc(d, 7, A_GPA, 12, W | N, 2);
	set_desc(d, 2, B_GPA + 0x40, 1500, W | N, 11);
	set_desc(d, 11, C_GPA + 0x2000, 0, W | N, 0);
	set_desc(d, 0, A_GPA + 0x1000, 100, W, 9);
	offer(d, 7);
	/* transmit on the same ring, for the test: 3 -> 4 */
	set_desc(d, 3, C_GPA + 0x3000, 14, N, 4);
	set_desc(d, 4, C_GPA + 0x4000, 1000, 0, 0);
	offer(d, 3);
	assert_int_equal(virtq_avail(&d->vq), 2);

	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	assert_int_equal(el.head, 7);
	assert_int_equal(el.niov, 3);
	assert_ptr_equal(el.iov[0].iov_base, d->buf);
	assert_int_equal(el.iov[0].iov_len, 12);
	assert_ptr_equal(el.iov[1].iov_base, d->buf + 0x10040);
	assert_int_equal(el.iov[1].iov_len, 1500);
	assert_ptr_equal(el.iov[2].iov_base, d->buf + 0x1000);
	assert_int_equal(el.iov[2].iov_len, 100);
	assert_int_equal(el.len, 1612);

	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.head, 3);
	assert_int_equal(el.niov, 2);
	assert_ptr_equal(el.iov[0].iov_base, d->buf + 0x23000);
	assert_ptr_equal(el.iov[1].iov_base, d->buf + 0x24000);
	assert_int_equal(el.len, 1014);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 0);

	/* a chain that uses every descriptor once is not a loop */
	{
		unsigned i;

		for (i = 0; i < 16; i++)
			set_desc(d, i, A_GPA + 64 * i, 64, N, (i + 1) % 16);
		set_desc(d, 15, A_GPA + 64 * 15, 64, 0, 0);
		offer(d, 0);
		assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
		assert_int_equal(el.niov, 16);
		assert_int_equal(el.len, 1024);
	}
	drv_free(d);
}

/**
 * test_span_regions() - a buffer across two regions adjacent in gpa
 * becomes two iovecs; up to VIRTQ_MAX_IOV in all
 * @state:	unused
 */
static void test_span_regions(void **state)
{
	struct drv *d = drv_new(128, 0, false);
	struct virtq_elem el;
	unsigned i;

	(void)state;
	set_desc(d, 0, B_GPA - 0x10, 0x30, 0, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, 2);
	assert_ptr_equal(el.iov[0].iov_base, d->buf + AB_SIZE - 0x10);
	assert_int_equal(el.iov[0].iov_len, 0x10);
	assert_ptr_equal(el.iov[1].iov_base, d->buf + 0x10000);
	assert_int_equal(el.iov[1].iov_len, 0x20);
	assert_int_equal(el.len, 0x30);

	/* the whole of A and B in one descriptor */
	set_desc(d, 1, A_GPA, 2 * AB_SIZE, 0, 0);
	offer(d, 1);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, 2);
	assert_int_equal(el.len, 2 * AB_SIZE);

	/* 62 single descriptors and a spanning one: exactly 64 iovecs */
	for (i = 0; i < 62; i++)
		set_desc(d, i, A_GPA + i, 1, VIRTQ_DESC_F_NEXT, i + 1);
	set_desc(d, 62, B_GPA - 1, 2, 0, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, VIRTQ_MAX_IOV);
	assert_int_equal(el.len, 64);

	/* 63 and a spanning one: 65 */
	set_desc(d, 62, A_GPA + 62, 1, VIRTQ_DESC_F_NEXT, 63);
	set_desc(d, 63, B_GPA - 1, 2, 0, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	drv_free(d);
}

/**
 * test_wrap() - 16-bit indexes wrapping: avail, used and the ring slots
 * @state:	unused
 */
static void test_wrap(void **state)
{
	struct drv *d = drv_new(8, 65530, false);
	struct virtq_elem el;
	uint16_t idx = 65530;
	unsigned round, k;

	(void)state;
	for (k = 0; k < 8; k++)
		set_desc(d, k, A_GPA + 0x100 * k, 0x10 + k, VIRTQ_DESC_F_WRITE,
			 0);
	for (round = 0; round < 4; round++) {
		/* a full ring each round: 65530 + 8 * 4 crosses 65535 */
		for (k = 0; k < 8; k++)
			offer(d, (uint16_t)((k + round) % 8));
		assert_int_equal(virtq_avail(&d->vq), 8);
		for (k = 0; k < 8; k++) {
			assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el),
					 1);
			assert_int_equal(el.head, (k + round) % 8);
			assert_int_equal(el.len, 0x10 + el.head);
			virtq_push(&d->vq, el.head, (uint32_t)el.len - 1);
		}
		assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 0);
		virtq_publish(&d->vq);
		idx = (uint16_t)(idx + 8);
		assert_int_equal(get16(d->used + 2), idx);
		assert_int_equal(d->vq.last_avail, idx);
		/* the slot of used index u is u % 8 */
		for (k = 0; k < 8; k++) {
			uint16_t u = (uint16_t)(idx - 8 + k);
			const uint8_t *e = d->used + 4 + 8 * (u % 8);

			assert_int_equal(get32(e), (k + round) % 8);
			assert_int_equal(get32(e + 4),
					 0x10 + (k + round) % 8 - 1);
		}
	}
	assert_int_equal(idx, (uint16_t)(65530 + 32));
	drv_free(d);
}

/**
 * test_used_ring() - virtq_push() fills entries, virtq_publish() alone
 * moves used->idx; out-of-order completion
 * @state:	unused
 */
static void test_used_ring(void **state)
{
	struct drv *d = drv_new(4, 100, false);

	(void)state;
	virtq_push(&d->vq, 3, 1000);
	virtq_push(&d->vq, 1, 0);
	assert_int_equal(get16(d->used + 2), 100); /* not yet visible */
	assert_int_equal(get32(d->used + 4 + 8 * 0), 3);
	assert_int_equal(get32(d->used + 4 + 8 * 0 + 4), 1000);
	assert_int_equal(get32(d->used + 4 + 8 * 1), 1);
	assert_int_equal(get32(d->used + 4 + 8 * 1 + 4), 0);
	virtq_publish(&d->vq);
	assert_int_equal(get16(d->used + 2), 102);
	virtq_push(&d->vq, 0, 0xffffffff);
	virtq_push(&d->vq, 2, 7);
	virtq_push(&d->vq, 65535, 8); /* slot 4 % 4 = 0 */
	virtq_publish(&d->vq);
	assert_int_equal(get16(d->used + 2), 105);
	assert_int_equal(get32(d->used + 4 + 8 * 2 + 4), 0xffffffff);
	assert_int_equal(get32(d->used + 4 + 8 * 3), 2);
	assert_int_equal(get32(d->used + 4), 65535);
	assert_int_equal(get32(d->used + 8), 8);
	/* used->flags untouched */
	assert_int_equal(get16(d->used), 0);
	drv_free(d);
}

/**
 * test_notify_flags() - without EVENT_IDX: VIRTQ_AVAIL_F_NO_INTERRUPT,
 * and nothing new means no interrupt
 * @state:	unused
 */
static void test_notify_flags(void **state)
{
	struct drv *d = drv_new(8, 0, false);

	(void)state;
	virtq_push(&d->vq, 0, 0);
	virtq_publish(&d->vq);
	assert_true(virtq_should_notify(&d->vq));
	assert_int_equal(d->vq.signalled_used, 1);
	assert_false(virtq_should_notify(&d->vq)); /* nothing new */

	put16(d->avail, VIRTQ_AVAIL_F_NO_INTERRUPT);
	virtq_push(&d->vq, 1, 0);
	virtq_publish(&d->vq);
	assert_false(virtq_should_notify(&d->vq));
	assert_int_equal(d->vq.signalled_used, 2);

	put16(d->avail, 0);
	assert_false(virtq_should_notify(&d->vq)); /* still nothing new */
	virtq_push(&d->vq, 2, 0);
	virtq_publish(&d->vq);
	assert_true(virtq_should_notify(&d->vq));

	/* used_event is ignored without EVENT_IDX */
	used_event_set(d, 1000);
	virtq_push(&d->vq, 3, 0);
	virtq_publish(&d->vq);
	assert_true(virtq_should_notify(&d->vq));
	drv_free(d);
}

/**
 * test_notify_event_idx() - with EVENT_IDX: notify exactly when the used
 * index moves past used_event, across 16-bit wrap; flags ignored
 * @state:	unused
 */
static void test_notify_event_idx(void **state)
{
	struct drv *d = drv_new(8, 65533, true);
	unsigned k;

	(void)state;
	/* the first call cannot know what was crossed */
	used_event_set(d, 10);
	virtq_push(&d->vq, 0, 0);
	virtq_publish(&d->vq); /* used 65534 */
	assert_true(virtq_should_notify(&d->vq));
	assert_true(d->vq.signalled_valid);
	assert_false(virtq_should_notify(&d->vq));

	/* the guest wants to hear once entry 65535 is used (idx 0) */
	used_event_set(d, 65535);
	put16(d->avail, VIRTQ_AVAIL_F_NO_INTERRUPT); /* ignored */
	virtq_push(&d->vq, 1, 0);
	virtq_publish(&d->vq); /* 65535: not yet */
	assert_false(virtq_should_notify(&d->vq));
	virtq_push(&d->vq, 2, 0);
	virtq_publish(&d->vq); /* 0: crossed */
	assert_true(virtq_should_notify(&d->vq));
	assert_int_equal(d->vq.signalled_used, 0);

	/* several entries at once, the event in the middle of them */
	used_event_set(d, 2);
	for (k = 0; k < 5; k++)
		virtq_push(&d->vq, (uint16_t)k, 0);
	virtq_publish(&d->vq); /* 0 -> 5 covers 2 */
	assert_true(virtq_should_notify(&d->vq));

	/* event exactly at the old index: entry 5 becomes used */
	used_event_set(d, 5);
	virtq_push(&d->vq, 5, 0);
	virtq_publish(&d->vq);
	assert_true(virtq_should_notify(&d->vq));

	/* event behind us (the guest polls itself): no interrupt */
	used_event_set(d, 5);
	virtq_push(&d->vq, 6, 0);
	virtq_publish(&d->vq);
	assert_false(virtq_should_notify(&d->vq));

	/* event far ahead */
	used_event_set(d, 1000);
	virtq_push(&d->vq, 7, 0);
	virtq_publish(&d->vq);
	assert_false(virtq_should_notify(&d->vq));
	put16(d->avail, 0);
	assert_false(virtq_should_notify(&d->vq));
	drv_free(d);
}

/**
 * test_kick_enable() - used->flags without EVENT_IDX, avail_event with it
 * @state:	unused
 */
static void test_kick_enable(void **state)
{
	struct drv *d = drv_new(8, 40, false);
	struct virtq_elem el;

	(void)state;
	virtq_kick_enable(&d->vq, false);
	assert_int_equal(get16(d->used), VIRTQ_USED_F_NO_NOTIFY);
	virtq_kick_enable(&d->vq, true);
	assert_int_equal(get16(d->used), 0);
	assert_int_equal(avail_event_get(d), 0); /* not written */
	drv_free(d);

	d = drv_new(8, 40, true);
	put16(d->used + 4 + 8 * 8, 0x1234);
	virtq_kick_enable(&d->vq, false); /* writes nothing */
	assert_int_equal(avail_event_get(d), 0x1234);
	assert_int_equal(get16(d->used), 0);
	virtq_kick_enable(&d->vq, true);
	assert_int_equal(avail_event_get(d), 40);
	assert_int_equal(get16(d->used), 0);

	/* after taking two chains, the event follows last_avail */
	set_desc(d, 0, A_GPA, 1, 0, 0);
	offer(d, 0);
	offer(d, 0);
	assert_int_equal(virtq_avail(&d->vq), 2);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	virtq_kick_enable(&d->vq, true);
	assert_int_equal(avail_event_get(d), 42);
	assert_int_equal(virtq_avail(&d->vq), 0);
	drv_free(d);
}

/**
 * test_kick_on_more() - a kick asked for beyond the chains offered now:
 * with EVENT_IDX at the guest's avail index (not at ours), else by
 * clearing NO_NOTIFY; the index it returns tells whether the guest added
 * chains meanwhile
 * @state:	unused
 */
static void test_kick_on_more(void **state)
{
	struct drv *d = drv_new(8, 40, true);
	uint16_t seen;

	(void)state;
	set_desc(d, 0, A_GPA, 1, VIRTQ_DESC_F_WRITE, 0);
	offer(d, 0);
	offer(d, 0);
	seen = virtq_kick_on_more(&d->vq);
	assert_int_equal(seen, 42);
	assert_int_equal(avail_event_get(d), 42); /* not 40: those are seen */
	assert_int_equal((uint16_t)(virtq_avail(&d->vq) + d->vq.last_avail),
			 seen);
	offer(d, 0);
	assert_int_not_equal((uint16_t)(virtq_avail(&d->vq) + d->vq.last_avail),
			     seen);
	drv_free(d);

	d = drv_new(8, 40, false);
	virtq_kick_enable(&d->vq, false);
	assert_int_equal(get16(d->used), VIRTQ_USED_F_NO_NOTIFY);
	assert_int_equal(virtq_kick_on_more(&d->vq), 40);
	assert_int_equal(get16(d->used), 0);
	drv_free(d);
}

/**
 * test_bad_avail_idx() - an avail index more than num ahead (also across
 * wrap), or behind us
 * @state:	unused
 */
static void test_bad_avail_idx(void **state)
{
	struct drv *d = drv_new(8, 65532, false);
	struct virtq_elem el;
	unsigned k;

	(void)state;
	for (k = 0; k < 8; k++)
		set_desc(d, k, A_GPA, 1, 0, 0);
	/* exactly num ahead is fine */
	for (k = 0; k < 8; k++)
		offer(d, (uint16_t)k);
	assert_int_equal(virtq_avail(&d->vq), 8);
	/* num + 1 ahead */
	put16(d->avail + 2, (uint16_t)(65532 + 9));
	assert_int_equal(virtq_avail(&d->vq), 9);
	assert_pop_einval(d, false);
	/* behind us: seen as 65535 ahead */
	put16(d->avail + 2, 65531);
	assert_pop_einval(d, false);
	put16(d->avail + 2, (uint16_t)(65532 + 8));
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	drv_free(d);
}

/**
 * test_bad_indexes() - head and next indexes at or over num, loops
 * @state:	unused
 */
static void test_bad_indexes(void **state)
{
	const uint16_t N = VIRTQ_DESC_F_NEXT;
	struct drv *d;

	(void)state;
	/* a valid descriptor lies just past the table: only the index
	 * check can refuse it
	 */
	d = drv_new(8, 0, false);
	set_desc(d, 8, A_GPA, 1, 0, 0);
	offer(d, 8);
	assert_pop_einval(d, false);
	drv_free(d);

	d = drv_new(8, 0, false);
	offer(d, 0xffff);
	assert_pop_einval(d, false);
	drv_free(d);

	d = drv_new(8, 0, false);
	set_desc(d, 0, A_GPA, 1, N, 8);
	set_desc(d, 8, A_GPA, 1, 0, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	drv_free(d);

	/* 0 -> 1 -> 0 */
	d = drv_new(8, 0, false);
	set_desc(d, 0, A_GPA, 1, N, 1);
	set_desc(d, 1, A_GPA, 1, N, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	drv_free(d);

	/* a self loop of zero-length descriptors: the hop limit, not the
	 * iovec limit, stops it
	 */
	d = drv_new(256, 0, false);
	set_desc(d, 0, A_GPA, 1, N, 5);
	set_desc(d, 5, A_GPA, 0, N, 5);
	offer(d, 0);
	assert_pop_einval(d, false);
	drv_free(d);

	/* ring of size 1: its only descriptor pointing at itself */
	d = drv_new(1, 0, false);
	set_desc(d, 0, A_GPA, 1, N, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	drv_free(d);
}

/**
 * test_too_many_iov() - more than VIRTQ_MAX_IOV descriptors in a chain
 * @state:	unused
 */
static void test_too_many_iov(void **state)
{
	struct drv *d = drv_new(128, 0, true);
	struct virtq_elem el;
	unsigned i;

	(void)state;
	for (i = 0; i < 65; i++)
		set_desc(d, i, A_GPA + 2 * i, 2, VIRTQ_DESC_F_NEXT, i + 1);
	set_desc(d, 63, A_GPA + 2 * 63, 2, 0, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, 64);
	assert_int_equal(el.len, 128);
	/* 65 */
	set_desc(d, 63, A_GPA + 2 * 63, 2, VIRTQ_DESC_F_NEXT, 64);
	set_desc(d, 64, A_GPA + 2 * 64, 2, 0, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	/* zero-length descriptors take no iovec: 64 + 10 empty is fine */
	set_desc(d, 64, A_GPA, 0, VIRTQ_DESC_F_NEXT, 65);
	for (i = 65; i < 74; i++)
		set_desc(d, i, A_GPA, 0, VIRTQ_DESC_F_NEXT, i + 1);
	set_desc(d, 74, A_GPA, 0, 0, 0);
	set_desc(d, 0, A_GPA, 0, VIRTQ_DESC_F_NEXT, 1);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, 63);
	assert_int_equal(el.len, 126);
	drv_free(d);
}

/**
 * test_bad_flags() - indirect descriptors, and the wrong direction
 * anywhere in a chain
 * @state:	unused
 */
static void test_bad_flags(void **state)
{
	const uint16_t W = VIRTQ_DESC_F_WRITE, N = VIRTQ_DESC_F_NEXT;
	struct drv *d = drv_new(8, 0, false);
	struct virtq_elem el;

	(void)state;
	set_desc(d, 0, C_GPA, 16, VIRTQ_DESC_F_INDIRECT, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	set_desc(d, 0, C_GPA, 16, VIRTQ_DESC_F_INDIRECT | W, 0);
	assert_pop_einval(d, true);
	/* indirect in the second descriptor */
	set_desc(d, 0, A_GPA, 16, N, 1);
	set_desc(d, 1, C_GPA, 16, VIRTQ_DESC_F_INDIRECT, 0);
	assert_pop_einval(d, false);

	/* transmit with a WRITE descriptor, first or second */
	set_desc(d, 0, A_GPA, 16, W, 0);
	assert_pop_einval(d, false);
	set_desc(d, 0, A_GPA, 16, N, 1);
	set_desc(d, 1, A_GPA, 16, W, 0);
	assert_pop_einval(d, false);
	/* receive with a read-only descriptor, first or second; even an
	 * empty one
	 */
	set_desc(d, 0, A_GPA, 16, 0, 0);
	assert_pop_einval(d, true);
	set_desc(d, 0, A_GPA, 16, W | N, 1);
	set_desc(d, 1, A_GPA, 0, 0, 0);
	assert_pop_einval(d, true);
	/* unknown flag bits are ignored */
	set_desc(d, 0, A_GPA, 16, W | 0x8, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	drv_free(d);
}

/**
 * test_bad_buffers() - outside guest memory, wrapping, empty chains
 * @state:	unused
 */
static void test_bad_buffers(void **state)
{
	const uint16_t N = VIRTQ_DESC_F_NEXT;
	struct drv *d = drv_new(8, 0, false);
	struct virtq_elem el;
	static const struct {
		uint64_t addr;
		uint32_t len;
	} bad[] = {
		{ 0, 1 },		    /* below everything */
		{ A_GPA - 1, 2 },	    /* starts before A */
		{ 0x20000, 16 },	    /* in the gap */
		{ 0x1fff0, 0x20 },	    /* B runs into the gap */
		{ A_GPA, 2 * AB_SIZE + 1 }, /* A, B, then the gap */
		{ C_GPA + C_SIZE - 4, 8 },  /* off the end of C */
		{ 0x3ffff, 2 },		    /* from the gap into C */
		{ UINT64_MAX - 4, 16 },	    /* addr + len wraps */
		{ UINT64_MAX, 0xffffffff },
		{ UINT64_MAX - 0xfffffffeULL, 0xffffffff }, /* ends at 2^64 */
	};
	unsigned i;

	(void)state;
	offer(d, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_desc(d, 0, bad[i].addr, bad[i].len, 0, 0);
		assert_pop_einval(d, false);
		/* the same as the second descriptor of a chain */
		set_desc(d, 0, A_GPA, 8, N, 1);
		set_desc(d, 1, bad[i].addr, bad[i].len, 0, 0);
		assert_pop_einval(d, false);
	}

	/* an empty chain: one empty descriptor, or three */
	set_desc(d, 0, A_GPA, 0, 0, 0);
	assert_pop_einval(d, false);
	set_desc(d, 0, A_GPA, 0, N, 1);
	set_desc(d, 1, 0x20000, 0, N, 2); /* unmapped, but empty */
	set_desc(d, 2, UINT64_MAX, 0, 0, 0);
	assert_pop_einval(d, false);
	/* one byte makes it a chain */
	set_desc(d, 2, C_GPA, 1, 0, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, 1);
	assert_int_equal(el.len, 1);
	drv_free(d);
}

/**
 * test_top_of_memory() - a buffer ending exactly at 2^64 is whole in a
 * region that ends there; one byte more wraps, and must not go on at
 * gpa 0 even though that is mapped too
 * @state:	unused
 */
static void test_top_of_memory(void **state)
{
	struct drv *d = drv_new(8, 0, false);
	struct virtq_elem el;
	static uint8_t page[0x1000], zero_page[0x1000];

	(void)state;
	d->m.r[3] = (struct vu_region){ UINT64_MAX - 0xfff, 0x1000, 0, page };
	d->m.r[4] = (struct vu_region){ 0, 0x1000, 0x1000, zero_page };
	d->m.n = 5;
	set_desc(d, 0, UINT64_MAX - 0xf, 0x10, 0, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, false, &el), 1);
	assert_int_equal(el.niov, 1);
	assert_ptr_equal(el.iov[0].iov_base, page + 0xff0);
	assert_int_equal(el.len, 0x10);
	set_desc(d, 0, UINT64_MAX - 0xf, 0x11, 0, 0);
	offer(d, 0);
	assert_pop_einval(d, false);
	drv_free(d);
}

/**
 * log_on() - point a ring at a dirty log, its used ring at @used_gpa
 * @d:		driver
 * @l:		the log
 * @bitmap:	its bytes, zeroed here
 * @size:	bytes of the log
 * @used_gpa:	the used ring's guest address, as SET_VRING_ADDR gives it
 */
static void log_on(struct drv *d, struct virtq_log *l, uint8_t *bitmap,
		   uint64_t size, uint64_t used_gpa)
{
	l->bitmap = bitmap;
	l->size = size;
	d->vq.log = l;
	d->vq.used_gpa = used_gpa;
	d->vq.used_gpa_ok = true;
}

/**
 * marked() - is page @page set in a log bitmap?
 * @b:		bitmap
 * @page:	guest page number
 *
 * Return: true if its bit is set
 */
static bool marked(const uint8_t *b, uint64_t page)
{
	return b[page / 8] & (1U << (page % 8));
}

/**
 * count_marked() - bits set in a log bitmap
 * @b:		bitmap
 * @len:	its bytes
 *
 * Return: how many
 */
static unsigned count_marked(const uint8_t *b, size_t len)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < len * 8; i++)
		n += marked(b, i);
	return n;
}

/**
 * test_log_chain() - with logging on, a pushed receive chain spanning two
 * pages of one descriptor and a page of another marks exactly the pages of
 * the bytes written, and the used ring page(s) of the entry; publishing,
 * kick requests mark the used ring too
 * @state:	unused
 */
static void test_log_chain(void **state)
{
	struct drv *d = drv_new(8, 0, true);
	uint8_t bitmap[64] = { 0 };
	struct virtq_log l;
	struct virtq_elem el;

	(void)state;
	/* the used ring's entry 0 (+4..+11) straddles pages 0x49 and 0x4a */
	log_on(d, &l, bitmap, sizeof(bitmap), 0x49ff8);
	set_desc(d, 3, A_GPA + 0xf00, 0x200,
		 VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 6);
	set_desc(d, 6, B_GPA + 0x10, 100, VIRTQ_DESC_F_WRITE, 0);
	set_desc(d, 7, 0x30000, 100, VIRTQ_DESC_F_WRITE, 0); /* not chained */
	offer(d, 3);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 0);

	virtq_push(&d->vq, 3, 0x200 + 50);
	assert_true(marked(bitmap, 0x10));
	assert_true(marked(bitmap, 0x11));
	assert_true(marked(bitmap, 0x18));
	assert_true(marked(bitmap, 0x49));
	assert_true(marked(bitmap, 0x4a));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 5);
	assert_int_equal(d->vq.log_marks, 5);
	assert_int_equal(d->vq.log_skips, 0);

	/* only the bytes written: 0x100 bytes stay on page 0x10 */
	memset(bitmap, 0, sizeof(bitmap));
	set_desc(d, 3, A_GPA + 0xf00, 0x200,
		 VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 6);
	offer(d, 3);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	virtq_push(&d->vq, 3, 0x100); /* entry 1: +12..+19, page 0x4a */
	assert_true(marked(bitmap, 0x10));
	assert_true(marked(bitmap, 0x4a));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 2);

	/* the used index (+2, page 0x49) */
	memset(bitmap, 0, sizeof(bitmap));
	virtq_publish(&d->vq);
	assert_true(marked(bitmap, 0x49));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 1);

	/* avail_event (+4 + 8 * 8 = +68, page 0x4a) */
	memset(bitmap, 0, sizeof(bitmap));
	virtq_kick_enable(&d->vq, true);
	assert_true(marked(bitmap, 0x4a));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 1);
	memset(bitmap, 0, sizeof(bitmap));
	virtq_kick_on_more(&d->vq);
	assert_true(marked(bitmap, 0x4a));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 1);
	drv_free(d);

	/* without EVENT_IDX: used->flags (+0, page 0x49) */
	d = drv_new(8, 0, false);
	memset(bitmap, 0, sizeof(bitmap));
	log_on(d, &l, bitmap, sizeof(bitmap), 0x49ff8);
	virtq_kick_enable(&d->vq, false);
	assert_true(marked(bitmap, 0x49));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 1);
	memset(bitmap, 0, sizeof(bitmap));
	virtq_kick_on_more(&d->vq);
	assert_true(marked(bitmap, 0x49));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 1);

	/* the used ring's address unknown (no log flag): chains only */
	memset(bitmap, 0, sizeof(bitmap));
	d->vq.used_gpa_ok = false;
	set_desc(d, 1, C_GPA, 10, VIRTQ_DESC_F_WRITE, 0);
	offer(d, 1);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	virtq_push(&d->vq, 1, 10);
	virtq_publish(&d->vq);
	assert_true(marked(bitmap, C_GPA / VIRTQ_LOG_PAGE));
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 1);
	drv_free(d);
}

/**
 * test_log_off() - with logging off, nothing is marked and nothing counted
 * @state:	unused
 */
static void test_log_off(void **state)
{
	struct drv *d = drv_new(8, 0, true);
	uint8_t bitmap[64] = { 0 };
	struct virtq_log l = { bitmap, sizeof(bitmap) };
	struct virtq_elem el;

	(void)state;
	(void)l;
	d->vq.used_gpa = USED_GPA;
	d->vq.used_gpa_ok = true; /* the address known, the log not set */
	set_desc(d, 0, A_GPA, 0x3000, VIRTQ_DESC_F_WRITE, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	virtq_push(&d->vq, 0, 0x3000);
	virtq_publish(&d->vq);
	virtq_kick_enable(&d->vq, true);
	virtq_kick_on_more(&d->vq);
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 0);
	assert_int_equal(d->vq.log_marks, 0);
	assert_int_equal(d->vq.log_skips, 0);
	drv_free(d);
}

/**
 * test_log_beyond() - pages beyond the log are skipped and counted, and
 * nothing outside the log's bytes is written, whatever the address
 * @state:	unused
 */
static void test_log_beyond(void **state)
{
	struct drv *d = drv_new(8, 0, false);
	uint8_t bitmap[8] = { 0 };
	struct virtq_log l;
	struct virtq_elem el;

	(void)state;
	/* a 2-byte log: pages 0..15 (guest 0..64 KiB); guard bytes after */
	log_on(d, &l, bitmap, 2, USED_GPA);
	set_desc(d, 0, A_GPA - 0x1000, 0x2000, VIRTQ_DESC_F_WRITE, 0);
	set_desc(d, 0, A_GPA, 0x100, VIRTQ_DESC_F_WRITE, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	/* the guest rewrites the descriptor before the push: page 15, 16 */
	set_desc(d, 0, A_GPA - 0x1000, 0x2000, VIRTQ_DESC_F_WRITE, 0);
	virtq_push(&d->vq, 0, 0x2000);
	assert_true(marked(bitmap, 15));
	assert_int_equal(count_marked(bitmap, 2), 1);
	assert_int_equal(d->vq.log_marks, 1);
	/* page 16 and the used entry (page 0x49) are beyond */
	assert_int_equal(d->vq.log_skips, 2);
	assert_int_equal(count_marked(bitmap + 2, sizeof(bitmap) - 2), 0);

	/* ranges at the top of the address space: no wrap, no write */
	d->vq.log_skips = 0;
	virtq_log_range(&d->vq, UINT64_MAX - 10, 0x10000);
	virtq_log_range(&d->vq, UINT64_MAX, 1);
	virtq_log_range(&d->vq, 0, 0); /* nothing */
	assert_int_equal(d->vq.log_skips, 2);
	assert_int_equal(count_marked(bitmap + 2, sizeof(bitmap) - 2), 0);
	drv_free(d);
}

/**
 * test_log_loop() - a chain the guest turned into a loop (or pointed out
 * of the table) after it was taken: the walk at virtq_push() is bounded
 * by the ring size and by the bytes written
 * @state:	unused
 */
static void test_log_loop(void **state)
{
	struct drv *d = drv_new(8, 0, false);
	uint8_t bitmap[64] = { 0 };
	struct virtq_log l;
	struct virtq_elem el;
	unsigned i;

	(void)state;
	log_on(d, &l, bitmap, sizeof(bitmap), USED_GPA);
	d->vq.used_gpa_ok = false; /* count the chain's marks only */
	set_desc(d, 0, A_GPA, 0x8000, VIRTQ_DESC_F_WRITE, 0);
	offer(d, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	/* 0 -> 1 -> 0 -> ..., one page each */
	set_desc(d, 0, A_GPA, 0x1000, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		 1);
	set_desc(d, 1, B_GPA, 0x1000, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		 0);
	virtq_push(&d->vq, 0, 0x8000);
	assert_int_equal(d->vq.log_marks, 8); /* num hops, one page each */
	assert_int_equal(count_marked(bitmap, sizeof(bitmap)), 2);

	/* a next index out of the table ends the walk */
	d->vq.log_marks = 0;
	set_desc(d, 1, B_GPA, 0x1000, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		 0x4000);
	offer(d, 2);
	set_desc(d, 2, A_GPA, 0x8000, VIRTQ_DESC_F_WRITE, 0);
	assert_int_equal(virtq_pop(&d->vq, &d->m, true, &el), 1);
	virtq_push(&d->vq, 1, 0x8000);
	assert_int_equal(d->vq.log_marks, 1);

	/* zero-length descriptors in a loop: still num hops at most */
	d->vq.log_marks = 0;
	for (i = 0; i < 8; i++)
		set_desc(d, i, A_GPA, 0, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
			 (uint16_t)((i + 1) % 8));
	virtq_push(&d->vq, 0, 0xffffffff);
	assert_int_equal(d->vq.log_marks, 0);
	/* and a head out of range marks nothing */
	virtq_push(&d->vq, 0xffff, 100);
	assert_int_equal(d->vq.log_marks, 0);
	drv_free(d);
}

/**
 * main() - run the virtqueue tests
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpa_translate),
		cmocka_unit_test(test_uva_translate),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_simple_chain),
		cmocka_unit_test(test_multi_chain),
		cmocka_unit_test(test_span_regions),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_used_ring),
		cmocka_unit_test(test_notify_flags),
		cmocka_unit_test(test_notify_event_idx),
		cmocka_unit_test(test_kick_enable),
		cmocka_unit_test(test_kick_on_more),
		cmocka_unit_test(test_bad_avail_idx),
		cmocka_unit_test(test_bad_indexes),
		cmocka_unit_test(test_too_many_iov),
		cmocka_unit_test(test_bad_flags),
		cmocka_unit_test(test_bad_buffers),
		cmocka_unit_test(test_top_of_memory),
		cmocka_unit_test(test_log_chain),
		cmocka_unit_test(test_log_off),
		cmocka_unit_test(test_log_beyond),
		cmocka_unit_test(test_log_loop),
	};

	return cmocka_run_group_tests_name("virtq", tests, NULL, NULL);
}
