/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_virtq.c - descriptor chain walks over fake guest memory (edge/virtq.c)
 *
 * Input: byte 0 configures the queue (bits 0-3: log2 of the ring size,
 * taken modulo 10, so 1..512 entries; bit 4: receive queue, the device
 * writes; bit 5: EVENT_IDX; bit 6: publish after every push instead of at
 * the end; bit 7: dirty logging on, into a 4-byte log of its own
 * allocation, pages 0..31, so that ASan sees any mark outside it), bytes
 * 1-2 are the starting index (little-endian), and the rest
 * is the guest memory image, copied to its start (the rest is zero).
 *
 * Guest memory, 64 KiB here, in four regions with holes between them both
 * in guest physical addresses and in our buffer:
 *
 *   gpa 0x0000..0x7fff      buf 0x0000   rings, at gpa 0 (descriptor table,
 *                                        then avail ring, then used ring)
 *   gpa 0x8000..0xbfff      buf 0x9000   adjacent to the first in gpa only
 *   gpa 0x20000..0x20fff    buf 0xe000
 *   gpa 2^64-4096..2^64-1   buf 0xf000   the top of the address space
 *
 * The target pops until the ring is empty or malformed (bounded), and
 * for a receive queue writes a pattern into each chain's buffers, which
 * may well land on the rings: guest memory changing under the device.
 * Every chain is pushed back, published, and the notification helpers are
 * called.
 *
 * Checks: virtq_pop() agrees with ref_pop(), a slow reference written
 * differently (last-byte arithmetic with overflow builtins, one region
 * lookup per piece), on the result and on every iovec; each iovec lies
 * whole inside one region's mapping; niov <= VIRTQ_MAX_IOV; len is the
 * sum of the iovec lengths and not 0; last_avail moves by one exactly on
 * success; used->idx in memory follows what was published; with logging,
 * the used index's page is marked once published, and every mark stays in
 * the log.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edge/virtq.h"

#include "fuzz_common.h"

#define MEM_SIZE 0x10000
#define UVA_OFF 0x7f0000000000ULL
#define HDR_LEN 3

static _Alignas(4096) uint8_t mem[MEM_SIZE];

/**
 * mem_init() - the region table over @mem
 * @m:	memory table out
 */
static void mem_init(struct vu_mem *m)
{
	static const struct {
		uint64_t gpa, size, off;
	} r[] = {
		{ 0x0, 0x8000, 0x0 },
		{ 0x8000, 0x4000, 0x9000 },
		{ 0x20000, 0x1000, 0xe000 },
		{ 0xfffffffffffff000ULL, 0x1000, 0xf000 },
	};
	unsigned i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		m->r[i].gpa = r[i].gpa;
		m->r[i].size = r[i].size;
		m->r[i].uva = r[i].gpa + UVA_OFF;
		m->r[i].host = mem + r[i].off;
	}
	m->n = i;
}

/**
 * rd16le() - a little-endian u16 from guest memory (reference side)
 * @p:	where
 *
 * Return: value
 */
static uint16_t rd16le(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/**
 * rd32le() - a little-endian u32 from guest memory (reference side)
 * @p:	where
 *
 * Return: value
 */
static uint32_t rd32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/**
 * rd64le() - a little-endian u64 from guest memory (reference side)
 * @p:	where
 *
 * Return: value
 */
static uint64_t rd64le(const uint8_t *p)
{
	return (uint64_t)rd32le(p) | (uint64_t)rd32le(p + 4) << 32;
}

/**
 * ref_region() - the region holding a guest physical address
 * @m:		memory table
 * @gpa:	address
 *
 * Return: the region, or NULL
 */
static const struct vu_region *ref_region(const struct vu_mem *m, uint64_t gpa)
{
	unsigned i;

	for (i = 0; i < m->n; i++) {
		uint64_t last = m->r[i].gpa + (m->r[i].size - 1);

		if (gpa >= m->r[i].gpa && gpa <= last)
			return &m->r[i];
	}
	return NULL;
}

/**
 * ref_pop() - what virtq_pop() should do, computed the slow way
 * @vq:		virtqueue (not changed)
 * @m:		guest memory
 * @writable:	receive queue
 * @el:		expected element out
 *
 * Return: 1, 0 or -EINVAL, as virtq_pop() must
 */
static int ref_pop(const struct virtq *vq, const struct vu_mem *m,
		   bool writable, struct virtq_elem *el)
{
	uint16_t idx = rd16le(vq->avail + 2), head;
	unsigned hops, i;

	if ((uint16_t)(idx - vq->last_avail) > vq->num)
		return -EINVAL;
	if (idx == vq->last_avail)
		return 0;
	head = rd16le(vq->avail + 4 + 2 * (vq->last_avail % vq->num));
	if (head >= vq->num)
		return -EINVAL;

	el->head = head;
	el->niov = 0;
	el->len = 0;
	for (i = head, hops = 1;; hops++) {
		const uint8_t *d = vq->desc + 16 * i;
		uint64_t addr = rd64le(d), last;
		uint32_t len = rd32le(d + 8);
		uint16_t flags = rd16le(d + 12), next = rd16le(d + 14);

		if (hops > vq->num || (flags & VIRTQ_DESC_F_INDIRECT))
			return -EINVAL;
		if (!!(flags & VIRTQ_DESC_F_WRITE) != writable)
			return -EINVAL;
		if (len && __builtin_add_overflow(addr, len - 1, &last))
			return -EINVAL;
		while (len) {
			const struct vu_region *r = ref_region(m, addr);
			uint64_t rlast, end;

			if (!r || el->niov == VIRTQ_MAX_IOV)
				return -EINVAL;
			rlast = r->gpa + (r->size - 1);
			end = last < rlast ? last : rlast;
			el->iov[el->niov].iov_base = r->host + (addr - r->gpa);
			el->iov[el->niov].iov_len = end - addr + 1;
			el->len += end - addr + 1;
			el->niov++;
			if (end == last)
				break;
			addr = end + 1;
		}
		if (!(flags & VIRTQ_DESC_F_NEXT))
			break;
		if (next >= vq->num)
			return -EINVAL;
		i = next;
	}
	return el->len ? 1 : -EINVAL;
}

/**
 * check_elem() - a popped chain against the reference and the memory map
 * @m:		memory table
 * @el:		what virtq_pop() gave
 * @ref:	what ref_pop() expects
 */
static void check_elem(const struct vu_mem *m, const struct virtq_elem *el,
		       const struct virtq_elem *ref)
{
	size_t sum = 0;
	unsigned k, i;

	FZ_CHECK(el->niov >= 1 && el->niov <= VIRTQ_MAX_IOV);
	FZ_CHECK(el->head == ref->head);
	FZ_CHECK(el->niov == ref->niov);
	for (k = 0; k < el->niov; k++) {
		const uint8_t *p = el->iov[k].iov_base;
		size_t l = el->iov[k].iov_len;
		bool inside = false;

		FZ_CHECK(p == ref->iov[k].iov_base);
		FZ_CHECK(l == ref->iov[k].iov_len);
		FZ_CHECK(l > 0);
		for (i = 0; i < m->n; i++) {
			const uint8_t *h = m->r[i].host;

			if (p >= h && p < h + m->r[i].size &&
			    l <= (size_t)(h + m->r[i].size - p))
				inside = true;
		}
		FZ_CHECK(inside);
		sum += l;
	}
	FZ_CHECK(el->len == sum);
	FZ_CHECK(el->len == ref->len);
	FZ_CHECK(el->len > 0);
}

/**
 * LLVMFuzzerTestOneInput() - one queue set up from @data, popped until empty
 * or malformed
 * @data:	input, see the top of this file
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct virtq_elem el, ref;
	uint64_t desc_gpa, avail_gpa, used_gpa, idx_page;
	struct virtq_log log = { NULL, 4 };
	unsigned num, iter, k;
	bool writable, event_idx, eager;
	uint16_t start, before;
	struct vu_mem m;
	struct virtq vq;
	int rc, want;

	if (size < HDR_LEN)
		return 0;
	num = 1u << ((data[0] & 0xf) % 10);
	writable = data[0] & 0x10;
	event_idx = data[0] & 0x20;
	eager = data[0] & 0x40;
	start = (uint16_t)(data[1] | data[2] << 8);

	memset(mem, 0, sizeof(mem));
	size -= HDR_LEN;
	memcpy(mem, data + HDR_LEN, size < MEM_SIZE ? size : MEM_SIZE);
	mem_init(&m);

	desc_gpa = 0;
	avail_gpa = 16ULL * num;
	used_gpa = (avail_gpa + 6 + 2 * num + 3) & ~3ULL;
	FZ_CHECK(
		virtq_init(&vq, num,
			   vu_uva_to_host(&m, desc_gpa + UVA_OFF, 16ULL * num),
			   vu_uva_to_host(&m, avail_gpa + UVA_OFF, 6 + 2 * num),
			   vu_uva_to_host(&m, used_gpa + UVA_OFF, 6 + 8 * num),
			   start, event_idx) == 0);
	if (data[0] & 0x80) {
		log.bitmap = calloc(1, log.size);
		FZ_CHECK(log.bitmap);
		vq.log = &log;
		vq.used_gpa = used_gpa;
		vq.used_gpa_ok = true;
	}

	virtq_kick_enable(&vq, false);
	for (iter = 0; iter < 2 * num + 4; iter++) {
		before = vq.last_avail;
		want = ref_pop(&vq, &m, writable, &ref);
		rc = virtq_pop(&vq, &m, writable, &el);
		FZ_CHECK(rc == want);
		if (rc <= 0) {
			FZ_CHECK(vq.last_avail == before);
			break;
		}
		FZ_CHECK(vq.last_avail == (uint16_t)(before + 1));
		check_elem(&m, &el, &ref);

		/* the device writes (the first and last byte of every
		 * buffer, enough for ASan to see a bad bound); the guest may
		 * have pointed the buffers at its own rings
		 */
		if (writable) {
			for (k = 0; k < el.niov; k++) {
				uint8_t *p = el.iov[k].iov_base;

				p[0] = (uint8_t)(0xa5 ^ k);
				p[el.iov[k].iov_len - 1] = (uint8_t)(0x5a ^ k);
			}
		}
		virtq_push(&vq, el.head, writable ? (uint32_t)el.len : 0);
		if (eager) {
			virtq_publish(&vq);
			FZ_CHECK(rd16le(vq.used + 2) == vq.used_idx);
			(void)virtq_should_notify(&vq);
		}
	}
	virtq_publish(&vq);
	FZ_CHECK(rd16le(vq.used + 2) == vq.used_idx);
	FZ_CHECK(vq.used_idx == vq.last_avail);
	(void)virtq_should_notify(&vq);
	FZ_CHECK(vq.signalled_used == vq.used_idx && vq.signalled_valid);
	virtq_kick_enable(&vq, true);
	(void)virtq_avail(&vq);
	if (log.bitmap) {
		idx_page = (used_gpa + 2) / VIRTQ_LOG_PAGE;
		FZ_CHECK(log.bitmap[idx_page / 8] & (1U << (idx_page % 8)));
		free(log.bitmap);
	}
	return 0;
}
