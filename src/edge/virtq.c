/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virtq.c - split virtqueues over untrusted guest memory (pure)
 *
 * DOC: Theory of Operation
 *
 * Split virtqueues
 * ----------------
 *
 * Written from the virtio 1.x specification, section 2.6 (split
 * virtqueues). The guest (the driver) owns the descriptor table and the
 * avail ring; we (the device) own the used ring. All three live in guest
 * memory, so the guest can rewrite any of it at any moment, including
 * while we read it.
 *
 * Layout, every field little-endian (virtio 1.x), at the offsets below:
 *
 *   descriptor i:  desc + 16 * i:   addr u64, len u32, flags u16, next u16
 *   avail ring:    flags u16 @0, idx u16 @2, ring[num] u16 @4,
 *                  used_event u16 @4 + 2 * num
 *   used ring:     flags u16 @0, idx u16 @2, ring[num] {id u32, len u32} @4,
 *                  avail_event u16 @4 + 8 * num
 *
 * Reading guest memory
 * --------------------
 *
 * Reading untrusted memory: every guest field is read with exactly one
 * load (a relaxed atomic load, so that the compiler may neither split it
 * nor read it again later), into a local, and only the local is checked
 * and used. A descriptor is copied out field by field before any check,
 * so the guest cannot change it between our check and our use (no double
 * fetch). The avail index is read once per virtq_pop() call.
 *
 * Memory ordering
 * ---------------
 *
 * Ordering (every barrier names its pair):
 *   - virtq_pop(): acquire load of avail->idx. Pairs with the guest's
 *     write barrier between writing descriptors and avail ring entries
 *     and storing avail->idx. Closes: reading a ring entry or descriptor
 *     older than the index that announced it.
 *   - virtq_publish(): release store of used->idx. Pairs with the guest's
 *     read barrier after it loads used->idx and before it reads used ring
 *     entries. Closes: the guest seeing the new index but a stale entry.
 *   - virtq_should_notify(): full fence between the used->idx store and
 *     the load of avail->flags / used_event. Pairs with the guest's full
 *     barrier between re-enabling interrupts (clearing NO_INTERRUPT or
 *     writing used_event) and re-reading used->idx. Closes the lost
 *     wake-up: we read "no interrupt" while the guest reads the old index.
 *   - virtq_kick_enable(true): full fence between the store of
 *     used->flags / avail_event and the caller's next avail->idx load.
 *     Pairs with the guest's full barrier between storing avail->idx and
 *     reading used->flags / avail_event before deciding to kick. Closes
 *     the lost kick: we see an empty ring while the guest sees "no kick".
 *   - virtq_kick_on_more(): the same fence and pair, after it stores
 *     used->flags / avail_event.
 *
 * Byte order and alignment
 * ------------------------
 *
 * Host byte order: little-endian is assumed nowhere; le16toh() and
 * friends convert (no-ops on x86).
 *
 * Alignment: virtq_init() insists on the alignment the specification
 * requires (descriptor table 16, avail ring 2, used ring 4 bytes), which
 * makes every field naturally aligned for the atomic accesses.
 *
 * Dirty logging
 * -------------
 *
 * Dirty logging (live migration): while the frontend logs (@log set),
 * every guest byte we write is marked in its log bitmap, one bit per 4 KiB
 * guest physical page, after the write and before the used index that
 * makes it visible is published: the bytes of a receive chain (walked
 * again from its head at virtq_push(), as the frontend gives no other
 * way to know their guest addresses), the used entry there, the used
 * index in virtq_publish(), used->flags and avail_event where they are
 * written. The used ring's guest address is the one SET_VRING_ADDR gave
 * with its log flag. Marks are atomic ORs (the frontend fetches and
 * clears words of the log concurrently, and other rings mark the same
 * bytes) with release order: pairs with the frontend's fetch-and-clear
 * (a full barrier) before it copies the page. Closes: the frontend seeing
 * the bit, copying the page and missing our bytes (the compiler or CPU
 * having moved the data store after the mark); on x86 the locked OR is a
 * full barrier anyway. With logging off the cost is one test of @log per
 * write.
 */

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "edge/virtq.h"

#define DESC_SIZE sizeof(struct virtq_desc)
#define RING_HDR VIRTQ_RING_HDR
#define USED_ELEM_SIZE sizeof(struct virtq_used_elem)

/**
 * struct vdesc - a local copy of one descriptor, host byte order
 * @addr:	guest physical address of the buffer
 * @len:	its length
 * @flags:	VIRTQ_DESC_F_*
 * @next:	next descriptor, if VIRTQ_DESC_F_NEXT
 */
struct vdesc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/**
 * ld16() - one relaxed load of a little-endian u16 in guest memory
 * @p:	the field (2-byte aligned)
 *
 * Return: its value, host order
 */
static uint16_t ld16(const uint8_t *p)
{
	return le16toh(__atomic_load_n((const uint16_t *)(const void *)p,
				       __ATOMIC_RELAXED));
}

/**
 * ld16_acquire() - one acquire load of a little-endian u16 in guest memory
 * @p:	the field (2-byte aligned)
 *
 * Return: its value, host order; later loads are ordered after it
 */
static uint16_t ld16_acquire(const uint8_t *p)
{
	return le16toh(__atomic_load_n((const uint16_t *)(const void *)p,
				       __ATOMIC_ACQUIRE));
}

/**
 * ld32() - one relaxed load of a little-endian u32 in guest memory
 * @p:	the field (4-byte aligned)
 *
 * Return: its value, host order
 */
static uint32_t ld32(const uint8_t *p)
{
	return le32toh(__atomic_load_n((const uint32_t *)(const void *)p,
				       __ATOMIC_RELAXED));
}

/**
 * ld64() - one relaxed load of a little-endian u64 in guest memory
 * @p:	the field (8-byte aligned)
 *
 * Return: its value, host order
 */
static uint64_t ld64(const uint8_t *p)
{
	return le64toh(__atomic_load_n((const uint64_t *)(const void *)p,
				       __ATOMIC_RELAXED));
}

/**
 * st16() - one relaxed store of a little-endian u16 to guest memory
 * @p:	the field (2-byte aligned)
 * @v:	value, host order
 */
static void st16(uint8_t *p, uint16_t v)
{
	__atomic_store_n((uint16_t *)(void *)p, htole16(v), __ATOMIC_RELAXED);
}

/**
 * st32() - one relaxed store of a little-endian u32 to guest memory
 * @p:	the field (4-byte aligned)
 * @v:	value, host order
 */
static void st32(uint8_t *p, uint32_t v)
{
	__atomic_store_n((uint32_t *)(void *)p, htole32(v), __ATOMIC_RELAXED);
}

/**
 * vu_gpa_to_host() - translate a guest physical range
 * @m:		memory table
 * @gpa:	guest physical address
 * @len:	in: bytes wanted; out: bytes contiguous here from @gpa (at
 *		most the input, at least 1 on success)
 *
 * Never computes @gpa + @len, which may wrap: the offset into a region is
 * compared with its size instead.
 *
 * Return: our pointer to @gpa, or NULL if @gpa is in no region (or @len is 0)
 */
uint8_t *vu_gpa_to_host(const struct vu_mem *m, uint64_t gpa, uint64_t *len)
{
	unsigned i;

	if (!*len)
		return NULL;
	for (i = 0; i < m->n && i < VU_MAX_REGIONS; i++) {
		const struct vu_region *r = &m->r[i];
		uint64_t off;

		if (gpa < r->gpa)
			continue;
		off = gpa - r->gpa;
		if (off >= r->size)
			continue;
		if (*len > r->size - off)
			*len = r->size - off;
		return r->host + off;
	}
	return NULL;
}

/**
 * vu_uva_to_host() - translate a frontend virtual range that must lie whole
 * in one region (a ring's desc, avail or used area)
 * @m:		memory table
 * @uva:	frontend virtual address
 * @len:	bytes
 *
 * Return: our pointer, or NULL if the range is not whole in one region (or
 * @len is 0)
 */
uint8_t *vu_uva_to_host(const struct vu_mem *m, uint64_t uva, uint64_t len)
{
	unsigned i;

	if (!len)
		return NULL;
	for (i = 0; i < m->n && i < VU_MAX_REGIONS; i++) {
		const struct vu_region *r = &m->r[i];
		uint64_t off;

		if (uva < r->uva)
			continue;
		off = uva - r->uva;
		if (off >= r->size || len > r->size - off)
			continue;
		return r->host + off;
	}
	return NULL;
}

/**
 * virtq_init() - set up a ring from our pointers to its three areas
 * @vq:		virtqueue
 * @num:	ring size
 * @desc:	descriptor table (16 * @num bytes)
 * @avail:	avail ring (6 + 2 * @num bytes)
 * @used:	used ring (6 + 8 * @num bytes)
 * @last_avail:	where to start (VHOST_USER_SET_VRING_BASE)
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 *
 * Touches no guest memory.
 *
 * Return: 0, or -EINVAL if @num is not a power of 2 in range or an area is
 * not aligned as the specification requires (16, 2 and 4 bytes)
 */
int virtq_init(struct virtq *vq, unsigned num, uint8_t *desc, uint8_t *avail,
	       uint8_t *used, uint16_t last_avail, bool event_idx)
{
	if (!num || num > VIRTQ_MAX_SIZE || (num & (num - 1)))
		return -EINVAL;
	if (!desc || !avail || !used || (uintptr_t)desc % 16 ||
	    (uintptr_t)avail % 2 || (uintptr_t)used % 4)
		return -EINVAL;

	vq->num = num;
	vq->desc = desc;
	vq->avail = avail;
	vq->used = used;
	vq->event_idx = event_idx;
	vq->last_avail = last_avail;
	vq->used_idx = last_avail;
	vq->signalled_used = last_avail;
	vq->signalled_valid = false;
	vq->log = NULL;
	vq->used_gpa = 0;
	vq->used_gpa_ok = false;
	vq->log_marks = vq->log_skips = 0;
	return 0;
}

/**
 * virtq_remap() - the ring's areas moved (a new memory table): point at
 * them again, keeping every index
 * @vq:		virtqueue, initialised
 * @desc:	descriptor table
 * @avail:	avail ring
 * @used:	used ring
 *
 * Touches no guest memory.
 *
 * Return: 0, or -EINVAL as virtq_init() (then @vq is unchanged)
 */
int virtq_remap(struct virtq *vq, uint8_t *desc, uint8_t *avail, uint8_t *used)
{
	if (!desc || !avail || !used || (uintptr_t)desc % 16 ||
	    (uintptr_t)avail % 2 || (uintptr_t)used % 4)
		return -EINVAL;
	vq->desc = desc;
	vq->avail = avail;
	vq->used = used;
	return 0;
}

/**
 * virtq_avail() - how many chains the guest has made available
 * @vq:		virtqueue
 *
 * The acquire load pairs with the guest's write barrier before its
 * avail->idx store, like the one in virtq_pop().
 *
 * Return: entries between @last_avail and the guest's avail index; a value
 * over @num means a misbehaving guest (callers treat it as malformed)
 */
unsigned virtq_avail(const struct virtq *vq)
{
	return (uint16_t)(ld16_acquire(vq->avail + 2) - vq->last_avail);
}

/**
 * desc_read() - copy descriptor @i out of guest memory
 * @vq:		virtqueue
 * @i:		index, below @vq->num
 * @d:		local copy out, host order
 *
 * Each field is loaded once; only @d is looked at afterwards.
 */
static void desc_read(const struct virtq *vq, unsigned i, struct vdesc *d)
{
	const uint8_t *p = vq->desc + (size_t)i * DESC_SIZE;

	d->addr = ld64(p + offsetof(struct virtq_desc, addr));
	d->len = ld32(p + offsetof(struct virtq_desc, len));
	d->flags = ld16(p + offsetof(struct virtq_desc, flags));
	d->next = ld16(p + offsetof(struct virtq_desc, next));
}

/**
 * desc_map() - append the iovecs of one descriptor's buffer
 * @m:		guest memory
 * @d:		the descriptor (local copy)
 * @el:		element being filled: @niov and @len grow
 *
 * A buffer crossing from one region into an adjacent one takes an iovec
 * per region. A zero-length buffer takes none.
 *
 * Return: 0, or -EINVAL if the buffer wraps the address space, is not
 * whole inside guest memory or needs more than VIRTQ_MAX_IOV iovecs
 */
static int desc_map(const struct vu_mem *m, const struct vdesc *d,
		    struct virtq_elem *el)
{
	uint64_t gpa = d->addr, left = d->len;

	if (!left)
		return 0;
	/* the last byte, addr + len - 1, must not wrap past 2^64 - 1 */
	if (gpa > UINT64_MAX - (left - 1))
		return -EINVAL;
	/* el->len: portable check; on 64-bit hosts it cannot fill up
	 * (VIRTQ_MAX_IOV buffers under 4 GiB each)
	 */
	if (left > SIZE_MAX - el->len)
		return -EINVAL;

	while (left) {
		uint64_t l = left;
		uint8_t *p = vu_gpa_to_host(m, gpa, &l);

		if (!p || el->niov >= VIRTQ_MAX_IOV)
			return -EINVAL;
		el->iov[el->niov].iov_base = p;
		el->iov[el->niov].iov_len = (size_t)l;
		el->niov++;
		el->len += (size_t)l;
		/* no wrap: gpa + l <= addr + len <= 2^64, and when it
		 * reaches 2^64 left is 0 here
		 */
		gpa += l;
		left -= l;
	}
	return 0;
}

/**
 * virtq_pop() - take the next available chain
 * @vq:		virtqueue
 * @m:		guest memory
 * @writable:	true for a queue the device writes (receive: every
 *		descriptor must have VIRTQ_DESC_F_WRITE), false for one it
 *		reads (transmit: none may have it)
 * @el:		the chain, translated
 *
 * Checks: avail index at most @num ahead, head and next indexes below
 * @num, at most @num descriptors in a chain (a loop) and at most
 * VIRTQ_MAX_IOV iovecs, no indirect descriptor, the direction of every
 * descriptor, every buffer whole inside guest memory, no zero-length
 * chain. On success @last_avail moves on.
 *
 * Return: 1 with @el filled, 0 if none is available, -EINVAL if the guest
 * broke a rule (the queue cannot be trusted any more)
 */
int virtq_pop(struct virtq *vq, const struct vu_mem *m, bool writable,
	      struct virtq_elem *el)
{
	unsigned mask = vq->num - 1, hops = 0, i;
	uint16_t avail_idx, head, want;
	struct vdesc d;
	int rc;

	/* pairs with the guest's write barrier before its avail->idx store:
	 * the ring entry and descriptors read below are at least as new
	 */
	avail_idx = ld16_acquire(vq->avail + 2);
	if ((uint16_t)(avail_idx - vq->last_avail) > vq->num)
		return -EINVAL;
	if (avail_idx == vq->last_avail)
		return 0;

	head = ld16(vq->avail + RING_HDR + 2 * (vq->last_avail & mask));
	if (head >= vq->num)
		return -EINVAL;

	want = writable ? VIRTQ_DESC_F_WRITE : 0;
	el->head = head;
	el->niov = 0;
	el->len = 0;
	i = head;
	for (;;) {
		/* a chain visits each descriptor at most once: more hops
		 * than descriptors is a loop
		 */
		if (++hops > vq->num)
			return -EINVAL;
		desc_read(vq, i, &d);
		if (d.flags & VIRTQ_DESC_F_INDIRECT)
			return -EINVAL;
		if ((d.flags & VIRTQ_DESC_F_WRITE) != want)
			return -EINVAL;
		rc = desc_map(m, &d, el);
		if (rc)
			return rc;
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			break;
		if (d.next >= vq->num)
			return -EINVAL;
		i = d.next;
	}
	if (!el->len)
		return -EINVAL;

	vq->last_avail++;
	return 1;
}

/**
 * virtq_log_range() - mark the pages of a guest physical range as dirty
 * @vq:		virtqueue, @vq->log set
 * @gpa:	first byte written
 * @len:	bytes written (0: nothing marked)
 *
 * The range's last byte is clamped at 2^64 - 1 (no wrap). Pages are
 * marked in order; the first beyond the log ends the walk (all after it
 * are beyond too), counted once in @vq->log_skips.
 */
void virtq_log_range(struct virtq *vq, uint64_t gpa, uint64_t len)
{
	const struct virtq_log *l = vq->log;
	uint64_t page, last;

	if (!len || !l)
		return;
	page = gpa / VIRTQ_LOG_PAGE;
	if (gpa > UINT64_MAX - (len - 1))
		last = UINT64_MAX / VIRTQ_LOG_PAGE;
	else
		last = (gpa + len - 1) / VIRTQ_LOG_PAGE;
	for (;;) {
		if (page / 8 >= l->size) {
			vq->log_skips++;
			return;
		}
		/* release: our bytes before the bit; pairs with the
		 * frontend's fetch-and-clear before it copies the page */
		__atomic_fetch_or(&l->bitmap[page / 8],
				  (uint8_t)(1U << (page % 8)),
				  __ATOMIC_RELEASE);
		vq->log_marks++;
		if (page == last)
			return;
		page++;
	}
}

/**
 * virtq_log_chain() - mark the pages of the first @len bytes of a chain
 * @vq:		virtqueue, @vq->log set
 * @head:	the chain's head index
 * @len:	bytes written into it
 *
 * Each descriptor is copied out once (desc_read()); the walk stops at an
 * index out of range, after @vq->num hops (a loop) or when @len bytes are
 * covered, so a guest that rewrote its descriptors since the chain was
 * taken makes us mark wrong pages of its own log, never write elsewhere.
 */
void virtq_log_chain(struct virtq *vq, uint16_t head, uint32_t len)
{
	unsigned hops = 0, i = head;
	uint64_t left = len;
	struct vdesc d;

	while (left && i < vq->num && hops++ < vq->num) {
		uint64_t l;

		desc_read(vq, i, &d);
		l = d.len < left ? d.len : left;
		virtq_log_range(vq, d.addr, l);
		left -= l;
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			break;
		i = d.next;
	}
}

/**
 * log_used() - mark bytes of the used ring as dirty, if its guest address
 * is known
 * @vq:		virtqueue, @vq->log set
 * @off:	offset in the used ring
 * @len:	bytes written there
 */
static void log_used(struct virtq *vq, uint64_t off, uint64_t len)
{
	if (vq->used_gpa_ok)
		virtq_log_range(vq, vq->used_gpa + off, len);
}

/**
 * virtq_push() - put a used chain in the used ring (not yet visible)
 * @vq:		virtqueue
 * @head:	the chain's head index
 * @len:	bytes the device wrote into it (0 for transmit)
 *
 * With logging on, the chain's written bytes and the entry are marked
 * (after they are written, before virtq_publish()).
 */
void virtq_push(struct virtq *vq, uint16_t head, uint32_t len)
{
	size_t off = RING_HDR +
		     (size_t)(vq->used_idx & (vq->num - 1)) * USED_ELEM_SIZE;
	uint8_t *e = vq->used + off;

	st32(e + offsetof(struct virtq_used_elem, id), head);
	st32(e + offsetof(struct virtq_used_elem, len), len);
	vq->used_idx++;
	if (vq->log) {
		virtq_log_chain(vq, head, len);
		log_used(vq, off, USED_ELEM_SIZE);
	}
}

/**
 * virtq_publish() - make the pushed entries visible to the guest
 * @vq:		virtqueue
 *
 * A release barrier orders the entries before the used index store (the
 * guest's read barrier after reading the index pairs with it).
 */
void virtq_publish(struct virtq *vq)
{
	/* release: the used ring entries written by virtq_push() are
	 * visible before the index that covers them; pairs with the
	 * guest's read barrier between loading used->idx and reading them
	 */
	__atomic_store_n((uint16_t *)(void *)(vq->used + 2),
			 htole16(vq->used_idx), __ATOMIC_RELEASE);
	if (vq->log)
		log_used(vq, 2, 2);
}

/**
 * need_event() - did the index move past the other side's event index?
 * @event:	the index the other side asked to be told about
 * @new_idx:	our index now
 * @old:	our index when we last decided
 *
 * True if @event lies in [@old, @new_idx), modulo 2^16: the entry at
 * @event became visible in this step.
 *
 * Return: true if the other side should be notified
 */
static bool need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

/**
 * virtq_should_notify() - does the guest want an interrupt for what was
 * published since the last call?
 * @vq:		virtqueue
 *
 * With EVENT_IDX: whether used_event was crossed (vring_need_event())
 * since the last call (the first call says yes), else whether
 * VIRTQ_AVAIL_F_NO_INTERRUPT is clear; nothing published since the last
 * call needs no interrupt. A full barrier orders the used index store
 * before the read of the guest's flags or event. Sets @signalled_used to
 * the used index on every call: a window in which used_event was not
 * crossed needs no interrupt later either (the guest that moves
 * used_event back re-reads used->idx after a full barrier itself).
 *
 * Return: true if the caller should signal the call eventfd
 */
bool virtq_should_notify(struct virtq *vq)
{
	uint16_t old = vq->signalled_used, new_idx = vq->used_idx;
	bool valid = vq->signalled_valid;

	/* full barrier: our used->idx store (virtq_publish()) before the
	 * load of avail->flags or used_event below. Pairs with the guest's
	 * full barrier between enabling interrupts and re-reading
	 * used->idx; without both, we could read "no interrupt" while the
	 * guest reads the old index, and it would sleep on a used entry
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	vq->signalled_used = new_idx;
	vq->signalled_valid = true;
	if (valid && old == new_idx)
		return false;

	if (vq->event_idx) {
		uint16_t used_event = ld16(vq->avail + RING_HDR + 2 * vq->num);

		/* the first time, we do not know what was crossed */
		return !valid || need_event(used_event, new_idx, old);
	}
	return !(ld16(vq->avail) & VIRTQ_AVAIL_F_NO_INTERRUPT);
}

/**
 * virtq_kick_on_more() - ask for a kick when the guest adds chains beyond
 * those it has made available now (they are too few for what the device
 * needs next)
 * @vq:		virtqueue
 *
 * With EVENT_IDX, avail_event is set to the guest's avail index now; else
 * VIRTQ_USED_F_NO_NOTIFY is cleared. A full barrier follows the store.
 *
 * Return: the avail index seen; if a fresh virtq_avail() + @last_avail
 * differs, the guest added chains before it could see the request and
 * the caller looks again
 */
uint16_t virtq_kick_on_more(struct virtq *vq)
{
	uint16_t idx = ld16_acquire(vq->avail + 2);

	if (vq->event_idx) {
		st16(vq->used + RING_HDR + USED_ELEM_SIZE * vq->num, idx);
		if (vq->log)
			log_used(vq, RING_HDR + USED_ELEM_SIZE * vq->num, 2);
	} else {
		st16(vq->used, 0);
		if (vq->log)
			log_used(vq, 0, 2);
	}
	/* full barrier: as in virtq_kick_enable(), the store before the
	 * caller's next avail->idx load (pairs with the guest's barrier
	 * between its avail->idx store and its avail_event/flags load) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return idx;
}

/**
 * virtq_kick_enable() - ask the guest for a kick when it adds buffers
 * @vq:		virtqueue
 * @on:		true: kicks wanted (clear VIRTQ_USED_F_NO_NOTIFY, or with
 *		EVENT_IDX set avail_event to @last_avail); false: not needed
 *		while we are polling anyway (set VIRTQ_USED_F_NO_NOTIFY; with
 *		EVENT_IDX nothing is written)
 *
 * With EVENT_IDX the guest looks at avail_event, not at used->flags, so
 * turning kicks off writes nothing: an avail_event left behind costs at
 * most a spurious kick once the guest's index comes round to it.
 *
 * After enabling, the caller must check virtq_avail() once more (the guest
 * may have added buffers before it saw the change): a full barrier here
 * orders the store before that load.
 */
void virtq_kick_enable(struct virtq *vq, bool on)
{
	if (vq->event_idx) {
		if (!on)
			return;
		st16(vq->used + RING_HDR + USED_ELEM_SIZE * vq->num,
		     vq->last_avail);
		if (vq->log)
			log_used(vq, RING_HDR + USED_ELEM_SIZE * vq->num, 2);
	} else {
		st16(vq->used, on ? 0 : VIRTQ_USED_F_NO_NOTIFY);
		if (vq->log)
			log_used(vq, 0, 2);
		if (!on)
			return;
	}
	/* full barrier: the store above before the caller's next avail->idx
	 * load. Pairs with the guest's full barrier between storing
	 * avail->idx and reading used->flags / avail_event; without both, we
	 * could see an empty ring while the guest sees "no kick wanted"
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
