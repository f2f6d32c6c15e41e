/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virtq.h - split virtqueues over untrusted guest memory (virtio 1.x, 2.6)
 *
 * Pure: no system calls. Guest memory is described by a table of regions
 * (from VHOST_USER_SET_MEM_TABLE) already mapped into our address space;
 * every address and length the guest gives is checked against it, every
 * index against the ring size, and every descriptor chain walked with a hop
 * limit. The guest may change its memory at any moment: a descriptor is
 * copied out before it is looked at, and indexes are read once.
 *
 * Indirect descriptors (VIRTIO_RING_F_INDIRECT_DESC) are not offered, so a
 * descriptor with VIRTQ_DESC_F_INDIRECT is malformed here.
 */
#ifndef SLIPWAY_VIRTQ_H
#define SLIPWAY_VIRTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define VU_MAX_REGIONS 8     /* VHOST_MEMORY_BASELINE_NREGIONS */
#define VIRTQ_MAX_SIZE 32768 /* the largest ring size virtio allows */
#define VIRTQ_MAX_IOV 64     /* descriptors per chain we accept */

#define VIRTQ_DESC_F_NEXT 1
#define VIRTQ_DESC_F_WRITE 2
#define VIRTQ_DESC_F_INDIRECT 4
#define VIRTQ_USED_F_NO_NOTIFY 1
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1

/**
 * struct virtq_desc - a descriptor as it lies in the table (virtio 2.6.5),
 * every field little-endian
 * @addr:	guest physical address of the buffer
 * @len:	its length
 * @flags:	VIRTQ_DESC_F_*
 * @next:	next descriptor, if VIRTQ_DESC_F_NEXT
 */
struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/**
 * struct virtq_used_elem - a used ring entry (virtio 2.6.8), little-endian
 * @id:		head of the descriptor chain used
 * @len:	bytes the device wrote into it
 */
struct virtq_used_elem {
	uint32_t id;
	uint32_t len;
};

/* avail and used rings: flags u16, idx u16, then the entries */
#define VIRTQ_RING_HDR 4

/**
 * struct vu_region - one region of guest memory, mapped here
 * @gpa:	guest physical address of its first byte
 * @size:	bytes
 * @uva:	the frontend's (QEMU's) virtual address of its first byte,
 *		used for ring addresses (VHOST_USER_SET_VRING_ADDR)
 * @host:	our mapping of its first byte
 */
struct vu_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *host;
};

/**
 * struct vu_mem - the guest's memory table
 * @n:		regions in use
 * @r:		regions (not overlapping; checked when the table is set)
 */
struct vu_mem {
	unsigned n;
	struct vu_region r[VU_MAX_REGIONS];
};

/**
 * vu_gpa_to_host() - translate a guest physical range
 * @m:		memory table
 * @gpa:	guest physical address
 * @len:	in: bytes wanted; out: bytes contiguous here from @gpa (at
 *		most the input, at least 1 on success)
 *
 * Return: our pointer to @gpa, or NULL if @gpa is in no region (or @len is 0)
 */
uint8_t *vu_gpa_to_host(const struct vu_mem *m, uint64_t gpa, uint64_t *len);

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
uint8_t *vu_uva_to_host(const struct vu_mem *m, uint64_t uva, uint64_t len);

#define VIRTQ_LOG_PAGE 4096 /* guest bytes per dirty-log bit */

/**
 * struct virtq_log - the frontend's dirty-page log (live migration)
 * @bitmap:	the log, shared with the frontend: bit n (byte n / 8, bit
 *		n % 8) stands for guest physical page n (VIRTQ_LOG_PAGE
 *		bytes); the frontend fetches and clears it at any moment
 * @size:	bytes of @bitmap: pages at or beyond 8 * @size are not marked
 *
 * Set and replaced by the control path while every ring using it is
 * locked; rings point at it only while logging is on.
 */
struct virtq_log {
	uint8_t *bitmap;
	uint64_t size;
};

/**
 * struct virtq - one split virtqueue
 * @num:		ring size (a power of 2, 1..VIRTQ_MAX_SIZE)
 * @desc:		descriptor table in guest memory (16 bytes each)
 * @avail:		avail ring: flags u16, idx u16, ring[num] u16,
 *			used_event u16
 * @used:		used ring: flags u16, idx u16, ring[num] {id u32, len u32},
 *			avail_event u16
 * @event_idx:		VIRTIO_RING_F_EVENT_IDX was negotiated
 * @last_avail:		next avail ring entry to take
 * @used_idx:		our used index (entries pushed, maybe not published)
 * @signalled_used:	used index at the last virtq_should_notify() call
 * @signalled_valid:	@signalled_used means something (false until the
 *			first call, which cannot tell what was crossed)
 * @log:		dirty log to mark what we write in guest memory, or
 *			NULL (logging off); changed only under the ring's
 *			lock (the control path's, or the data path's)
 * @used_gpa:		the used ring's guest physical address (for @log)
 * @used_gpa_ok:	@used_gpa is known (SET_VRING_ADDR's log flag): without
 *			it, used ring writes are not logged
 * @log_marks:		pages marked since the owner last took the count
 * @log_skips:		marks skipped since: the page is beyond the log
 */
struct virtq {
	unsigned num;
	uint8_t *desc;
	uint8_t *avail;
	uint8_t *used;
	bool event_idx;
	uint16_t last_avail;
	uint16_t used_idx;
	uint16_t signalled_used;
	bool signalled_valid;
	const struct virtq_log *log;
	uint64_t used_gpa;
	bool used_gpa_ok;
	uint32_t log_marks;
	uint32_t log_skips;
};

/**
 * struct virtq_elem - a descriptor chain taken from the avail ring
 * @head:	index of its first descriptor (goes back in the used ring)
 * @niov:	entries in @iov
 * @iov:	the chain's buffers, as our pointers (a descriptor crossing a
 *		region boundary takes several entries)
 * @len:	sum of the @iov lengths
 */
struct virtq_elem {
	uint16_t head;
	unsigned niov;
	struct iovec iov[VIRTQ_MAX_IOV];
	size_t len;
};

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
 * The used index starts at @last_avail too (the device had used all it
 * took when the ring was stopped). Logging is off (@log NULL, no used ring
 * address) until the caller sets it.
 *
 * Return: 0, or -EINVAL if @num is not a power of 2 in range, or an area
 * is not aligned as virtio requires (@desc 16, @avail 2, @used 4 bytes;
 * the ring addresses come from the guest)
 */
int virtq_init(struct virtq *vq, unsigned num, uint8_t *desc, uint8_t *avail,
	       uint8_t *used, uint16_t last_avail, bool event_idx);
/**
 * virtq_remap() - the ring's areas moved (a new memory table): point at
 * them again, every index kept
 * @vq:		virtqueue, initialised
 * @desc:	descriptor table
 * @avail:	avail ring
 * @used:	used ring
 *
 * Return: 0, or -EINVAL as virtq_init() (then @vq is unchanged)
 */
int virtq_remap(struct virtq *vq, uint8_t *desc, uint8_t *avail, uint8_t *used);

/**
 * virtq_avail() - how many chains the guest has made available
 * @vq:		virtqueue
 *
 * Return: entries between @last_avail and the guest's avail index; a value
 * over @num means a misbehaving guest (callers treat it as malformed)
 */
unsigned virtq_avail(const struct virtq *vq);

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
	      struct virtq_elem *el);

/**
 * virtq_unpop() - give back the chains taken last, none of them pushed:
 * the next virtq_pop() takes them again
 * @vq:		virtqueue
 * @n:		how many of the chains virtq_pop() returned last to give back
 *
 * For a device that took chains for a frame and found too few, or more
 * than the frame needed; the caller kept the ring to itself since (its
 * lock held), so the chains given back are the last ones taken.
 */
static inline void virtq_unpop(struct virtq *vq, unsigned n)
{
	vq->last_avail = (uint16_t)(vq->last_avail - n);
}

/**
 * virtq_push() - put a used chain in the used ring (not yet visible)
 * @vq:		virtqueue
 * @head:	the chain's head index
 * @len:	bytes the device wrote into it (0 for transmit)
 *
 * With logging on, the pages of the @len bytes written into the chain
 * (walked again from @head: virtq_log_chain()) and of the used entry are
 * marked, before virtq_publish() makes them visible.
 */
void virtq_push(struct virtq *vq, uint16_t head, uint32_t len);

/**
 * virtq_log_range() - mark the pages of a guest physical range as dirty
 * @vq:		virtqueue, @vq->log set
 * @gpa:	first byte written
 * @len:	bytes written (0: nothing marked)
 *
 * Atomic ORs (the frontend clears bits at any moment, other rings mark
 * the same bytes); a page beyond the log is skipped and counted in
 * @vq->log_skips. Never touches memory outside @vq->log->bitmap.
 */
void virtq_log_range(struct virtq *vq, uint64_t gpa, uint64_t len);

/**
 * virtq_log_chain() - mark the pages of the first @len bytes of a chain
 * @vq:		virtqueue, @vq->log set
 * @head:	the chain's head index
 * @len:	bytes written into it
 *
 * The descriptors are read again from the table (each copied out once);
 * a guest that changed them since the chain was taken spoils only its
 * own migration: the walk stops at a bad index, after @vq->num hops, or
 * when @len bytes are covered.
 */
void virtq_log_chain(struct virtq *vq, uint16_t head, uint32_t len);

/**
 * virtq_publish() - make the pushed entries visible to the guest
 * @vq:		virtqueue
 *
 * A release barrier orders the entries before the used index store (the
 * guest's read barrier after reading the index pairs with it).
 */
void virtq_publish(struct virtq *vq);

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
bool virtq_should_notify(struct virtq *vq);

/**
 * virtq_kick_enable() - ask the guest for a kick when it adds buffers
 * @vq:		virtqueue
 * @on:		true: kicks wanted (clear VIRTQ_USED_F_NO_NOTIFY, or with
 *		EVENT_IDX set avail_event to @last_avail); false: not needed
 *		while we are polling anyway (set VIRTQ_USED_F_NO_NOTIFY; with
 *		EVENT_IDX nothing is written)
 *
 * After enabling, the caller must check virtq_avail() once more (the guest
 * may have added buffers before it saw the change): a full barrier here
 * orders the store before that load.
 */
void virtq_kick_enable(struct virtq *vq, bool on);

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
uint16_t virtq_kick_on_more(struct virtq *vq);

#endif /* SLIPWAY_VIRTQ_H */
