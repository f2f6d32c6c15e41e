/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vhost_user.c - the vhost-user edge: slipway as a VM's virtio-net backend
 *
 * DOC: Theory of Operation
 *
 * Frontend, rings and queue pairs
 * -------------------------------
 *
 * A VM's frontend (QEMU, cloud-hypervisor, crosvm) connects to our unix
 * socket and hands us its virtio-net device's virtqueues: it maps guest
 * memory to us (memfd regions, VHOST_USER_SET_MEM_TABLE), tells us where
 * each ring lives and gives us an eventfd per ring to be kicked through
 * and one to signal the guest with. Queue pair k is receive queue 2k (we
 * write frames for the guest) and transmit queue 2k + 1 (we read the
 * guest's frames); shard k serves pair k.
 *
 * Control messages and locking
 * ----------------------------
 *
 * Control: the socket is served by shard 0, one message at a time, each
 * checked against a table of handlers (payload size, file descriptors
 * allowed, whether REPLY_ACK applies). Anything off — a short or
 * oversized message, an unknown request, fds where none belong, a ring
 * or memory table that does not check out — closes the connection with a
 * logged reason; the next frontend is then served. A frontend's ring that
 * breaks the virtqueue rules (virtq.c) does the same, from the shard that
 * found it.
 *
 * Each queue pair has a lock: the control path holds it while it changes
 * that pair's rings, and every pair's while it replaces the memory table
 * (vu_lock_all(), which first waits for the pair's loans to come back);
 * the data path holds it while it takes a batch's chains off the ring
 * (vu_rx()) and while it returns them (vu_rx_done()), not while the core
 * reads the batch: the loans out (@nloans) keep the memory mapped then.
 * Each pair also has an epoll fd of its own holding the transmit queue's
 * kick eventfd; the shard polls that fd, so kick fds come and go without
 * the shards' epoll sets changing.
 *
 * Guest to host
 * -------------
 *
 * Descriptor chains are taken from the transmit queue and
 * handed to the core as copies (vu_rx_view()): the headers, and anything
 * else the core parses, are always copied out of guest memory, read once,
 * since the guest may rewrite them meanwhile; only the payload of a
 * one-buffer TCP segment stays in guest memory (a loan, counted in
 * EDGE_VU_LOANS), the core never parsing it; every other frame is copied
 * whole (EDGE_VU_COPIES). Every chain of a batch goes back to the used
 * ring when the shard has done with the batch (rx_done: EDGE_VU_RETURNS,
 * which equal loans plus copies whenever no batch is in progress). After
 * a batch that emptied the ring, kicks are asked for again and the ring
 * checked once more, for the guest may have added a chain before it saw
 * the request (EDGE_VU_KICK_RACE counts chains found that way).
 *
 * Host to guest
 * -------------
 *
 * TCP payload is placed: the shard reserves the guest's
 * receive chains for a frame (place), the host socket is peeked straight
 * into them through iovecs over guest memory, and when the frame is
 * complete its headers are written in front of the payload (tx_placed):
 * no staging copy (EDGE_VU_PLACED). The pair stays locked from the
 * reservation to the end of the peek, so the memory table cannot change
 * under it; a ring stopped before the frame is complete bumps the pair's
 * epoch, and the frame is dropped (EDGE_VU_PLACE_STALE; TCP resends it).
 * A new memory table re-points running rings where they are, every index
 * kept, and the reservations still waiting for their headers
 * (vu_placed_remap()); one whose chains the new table does not hold goes
 * stale the same way. Other frames (and payload when the guest takes no
 * partial checksums) are copied into the chains. Either way MRG_RXBUF
 * spreads a frame over as many chains as it needs (num_buffers set), and
 * the used entries are published and the guest signalled once per flush.
 * Frames wait in a backlog while the ring has no room, and placing waits
 * until the backlog is empty, so the guest sees frames in the order they
 * were made.
 *
 * Dirty-page logging and migration
 * --------------------------------
 *
 * Dirty-page logging (live migration): we offer VHOST_F_LOG_ALL and the
 * LOG_SHMFD protocol feature. The frontend maps us a log bitmap
 * (SET_LOG_BASE: a memfd, one bit per 4 KiB guest page; we reply when it
 * is mapped), gives each ring's used ring guest address (SET_VRING_ADDR
 * with its log flag, sent again to running rings) and sets LOG_ALL. While
 * both a log is mapped and LOG_ALL is set, each ring points at the log
 * and marks every page we write (virtq.c: receive chain bytes, used
 * entries, index, flags and avail_event), always before the used index
 * that makes the write visible is published (EDGE_VU_LOG_MARKS; a page
 * beyond the log, EDGE_VU_LOG_SKIPS). Switching logging on or off
 * disturbs nothing: the rings run on, and the generation does not move
 * (that would reset the flows a migration keeps). The log is replaced
 * under every pair's lock. When the last running ring is stopped
 * (GET_VRING_BASE) with LOG_ALL set, the source side of a migration is
 * at its end: @e->mig_stops is bumped and @e->mig_evfd, if the host set
 * one, is written; a ring started again after that (the VM resumed here:
 * the migration failed or was cancelled) brings @e->mig_resumes level with
 * it and writes @e->mig_evfd again.
 *
 * Generations: pause, reboot, new guest
 * -------------------------------------
 *
 * The virtio-net header is 12 bytes with VERSION_1 or MRG_RXBUF, else 10;
 * offloads follow what the guest accepted: the shards re-read them (and
 * reset the old guest's flows) whenever @gen changes, which it does when
 * a new guest has the device: a frontend connects and sets features,
 * sets other features than before, or goes away, or a ring we stopped is
 * started again at another base than the one we returned.
 *
 * A pause is not a reboot. Stopping the VM (QMP stop, a snapshot, the
 * end of a migration) stops every ring (GET_VRING_BASE: we return where
 * each stopped); continuing it sets the same features again and starts
 * each ring at the base we returned, and every flow carries on. A guest
 * that reboots (or reloads its driver) resets the device: the frontend
 * stops the rings the same way, but they start again from base 0. So the
 * generation moves when a stopped ring is set to start anywhere but where
 * it stopped (vu_set_vring_base()), never on SET_FEATURES alone, nor on
 * RESET_OWNER (deprecated: the spec has back-ends ignore it). A
 * migration's destination returned no base, and its rings start at the
 * source's; a ring whose index wrapped to 0 resumes at 0, as returned.
 * A reboot that finds every ring stopped at exactly 0 is not seen, and
 * then the rebooted guest's own resets end the old flows.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "edge/edge.h"
#include "edge/virtq.h"
#include "edge/vu_proto.h"
#include "util/ctr.h"
#include "util/log.h"
#include "util/util.h"

#define VU_PAYLOAD_MAX 512     /* the largest message we take (mem table) */
#define VU_MAX_FDS 8	       /* fds a message may bring, in all its pieces */
#define VU_CTL_BATCH 64	       /* messages handled per readable event */
#define QVU_BACKLOG (8U << 20) /* frames held per pair for a full ring */
#define QVU_FULL (1U << 20)    /* held bytes that stop the shard producing */
/* bytes copied out of a one-buffer frame to find its TCP payload: room for
 * every header a loaned segment may have (virtio-net 12, Ethernet 14, IPv4
 * 60 or IPv6 40, TCP 60) */
#define VU_HDR_COPY 160

#define VU_CTR(e, q, id) \
	((e)->qctr[q] ? ctr_add(&(e)->qctr[q][CTR_##id], 1) : (void)0)

/**
 * struct vu_ring - one virtqueue as the frontend described it
 * @num:	size (SET_VRING_NUM)
 * @desc_uva:	descriptor table, frontend address
 * @avail_uva:	avail ring, frontend address
 * @used_uva:	used ring, frontend address
 * @log_gpa:	used ring's guest physical address, for dirty logging
 * @log_ok:	@log_gpa is valid (SET_VRING_ADDR's VU_VRING_F_LOG)
 * @base:	first avail index (SET_VRING_BASE)
 * @resume:	GET_VRING_BASE returned @base and the ring has not started
 *		since: set again at another base, it is a new guest
 *		(vu_set_vring_base())
 * @kick:	kick eventfd, -1
 * @call:	call eventfd, -1
 * @started:	a kick fd was given and the ring translated: @vq is live
 * @enabled:	SET_VRING_ENABLE said so (or no protocol features)
 * @vq:		the ring
 */
struct vu_ring {
	unsigned num;
	uint64_t desc_uva, avail_uva, used_uva;
	uint64_t log_gpa;
	bool log_ok;
	uint16_t base;
	bool resume;
	int kick, call;
	bool started, enabled;
	struct virtq vq;
};

/**
 * struct vu_placed - the guest's receive chains reserved for one frame
 * @heads:	the chains' heads, in the order taken
 * @cap:	bytes of each chain the reservation covers
 * @used:	bytes written into each, once the payload is known
 * @nb:		chains taken
 * @hiov:	where the frame's headers go (the first bytes of the chains)
 * @nhiov:	entries in @hiov
 * @hdr:	header bytes
 * @epoch:	the pair's epoch when reserved
 */
struct vu_placed {
	uint16_t heads[EDGE_PLACE_IOV];
	uint32_t cap[EDGE_PLACE_IOV];
	uint32_t used[EDGE_PLACE_IOV];
	unsigned nb;
	struct iovec hiov[4];
	unsigned nhiov;
	size_t hdr;
	unsigned epoch;
};

#define VU_PLACE_HDR_MAX 256 /* header bytes a placed frame may have */

/**
 * struct vu_pair - a queue pair, served by one shard
 * @lock:	held by the data path while it takes or returns a batch's
 *		chains, by the control path while it changes the rings or
 *		the memory
 * @epfd:	epoll fd holding the transmit ring's kick fd; the shard polls it
 * @ring:	receive ring (0) and transmit ring (1)
 * @loan_heads:	chains of the current batch, to return in rx_done
 * @nloans:	entries in @loan_heads
 * @rx_dirty:	used entries pushed on the receive ring, not published
 * @backlog:	frames waiting for room in the receive ring: length (4
 *		bytes) and frame each, QVU_BACKLOG bytes
 * @bstart:	first held byte
 * @bend:	end of the held bytes
 * @placed:	reservations by frame slot (EDGE_PLACE_SLOTS)
 * @epoch:	bumped when the receive ring stops: reservations made
 *		before are void, their chains gone with the ring (a new
 *		memory table re-points them instead: vu_placed_remap())
 * @starved:	a reservation found the receive ring empty and asked for a
 *		kick: the shard produces nothing until the next wake-up
 * @rx_kicks:	receive kicks were asked for by a starved reservation
 * @rxbuf:	copies of the frames of a receive batch: EDGE_RX_BATCH slots
 *		of @e->frame_max bytes (vu_rx_view())
 * @idle:	signalled when the batch's views are returned and @waiter
 * @waiter:	the control path waits for @nloans to be 0 (vu_lock_all)
 */
struct vu_pair {
	pthread_mutex_t lock;
	pthread_cond_t idle;
	bool waiter;
	int epfd;
	struct vu_ring ring[2];
	uint16_t loan_heads[EDGE_RX_BATCH];
	unsigned nloans;
	bool rx_dirty;
	uint8_t *backlog;
	size_t bstart, bend;
	struct vu_placed *placed;
	unsigned epoch;
	bool starved;
	bool rx_kicks;
	uint8_t *rxbuf;
};

/**
 * struct vu_map - a memory region's mapping
 * @addr:	what mmap() gave
 * @len:	its length
 */
struct vu_map {
	void *addr;
	size_t len;
};

/**
 * struct vu - the vhost-user edge's state
 * @e:		the edge
 * @path:	our socket path (unlinked at exit), or ""
 * @dirfd:	its directory (qsock_path_dir()), to remove it from inside
 *		the sandbox; -1 if none
 * @listen_fd:	our listening socket, or -1 (--fd: the frontend came
 *		connected)
 * @ctl:	the frontend's connection, or -1
 * @npairs:	queue pairs offered
 * @offload:	offer checksum and segmentation offloads
 * @mtu:	our MTU (NET_SET_MTU may not exceed it)
 * @features:	virtio features the frontend set
 * @pfeatures:	protocol features it set
 * @mem:	guest memory table
 * @maps:	mappings behind @mem
 * @log:	the dirty log (SET_LOG_BASE), @log.bitmap NULL if none;
 *		replaced under every pair's lock
 * @log_map:	its mapping (from offset 0 of the file), or NULL
 * @log_map_len: the mapping's length
 * @pair:	queue pairs
 * @msg_fds:	fds received with the message being received or handled
 * @nfds:	entries in @msg_fds
 * @rbuf:	the message being received: header, then payload, gathered
 *		over as many readable events as the frontend takes
 * @rgot:	bytes of it in @rbuf
 */
struct vu {
	struct edge *e;
	char path[108];
	int dirfd;
	int listen_fd;
	int ctl;
	unsigned npairs;
	bool offload;
	unsigned mtu;
	uint64_t features;
	uint64_t pfeatures;
	struct vu_mem mem;
	struct vu_map maps[VU_MAX_REGIONS];
	struct virtq_log log;
	void *log_map;
	size_t log_map_len;
	struct vu_pair pair[EDGE_MAX_QUEUES];
	int msg_fds[VU_MAX_FDS];
	unsigned nfds;
	uint8_t rbuf[VU_HDR_LEN + VU_PAYLOAD_MAX];
	uint32_t rgot;
};

/**
 * struct vu_msg - a message: header and payload
 * @req:	request
 * @flags:	flags
 * @size:	payload bytes
 * @u64:	payload as a number
 * @state:	payload as a vring state {index, num}
 * @addr:	payload as a vring address
 * @raw:	payload bytes
 */
struct vu_msg {
	uint32_t req;
	uint32_t flags;
	uint32_t size;
	union {
		uint64_t u64;
		struct vu_vring_state state;
		struct vu_vring_addr addr;
		uint8_t raw[VU_PAYLOAD_MAX];
	};
} __attribute__((packed));
_Static_assert(offsetof(struct vu_msg, u64) == sizeof(struct vu_hdr),
	       "struct vu_msg starts with a struct vu_hdr's fields");

/**
 * vu_features() - the virtio features the frontend set
 * @vu:	state
 *
 * Written under every pair's lock by the control thread, read by shards
 * with or without their pair's lock: always through this relaxed load.
 *
 * Return: the features
 */
static inline uint64_t vu_features(const struct vu *vu)
{
	return __atomic_load_n(&vu->features, __ATOMIC_RELAXED);
}

/**
 * vu_offered() - the virtio features we offer
 * @vu:	state
 *
 * Return: feature bits
 */
static uint64_t vu_offered(const struct vu *vu)
{
	uint64_t f = BIT(F_MRG_RXBUF) | BIT(F_EVENT_IDX) |
		     BIT(F_PROTOCOL_FEATURES) | BIT(F_VERSION_1) | BIT(F_MTU) |
		     BIT(F_LOG_ALL);

	if (vu->offload)
		f |= BIT(F_CSUM) | BIT(F_GUEST_CSUM) | BIT(F_GUEST_TSO4) |
		     BIT(F_GUEST_TSO6) | BIT(F_HOST_TSO4) | BIT(F_HOST_TSO6) |
		     BIT(F_GUEST_USO4) | BIT(F_GUEST_USO6) | BIT(F_HOST_USO);
	if (vu->npairs > 1)
		f |= BIT(F_MQ);
	return f;
}

/**
 * vu_lock_all() - take every pair's lock once its shard holds no views
 * into guest memory (memory table changes, the frontend going away)
 * @vu:	state
 *
 * A shard reads the loaned payload of a batch after vu_rx() has dropped
 * its pair's lock, until vu_rx_done(): the memory must stay mapped until
 * then. So each pair is taken only when it has no loans out, waiting on
 * its @idle condition (signalled by vu_rx_done() when someone waits).
 * A batch ends without waiting for anything of ours, so the wait is
 * bounded. Pairs are locked in order, and only shard 0 takes more than
 * one, outside any batch of its own.
 *
 * Context: shard 0 (the control path), or the main thread at exit
 * #syscalls futex
 */
static void vu_lock_all(struct vu *vu)
{
	unsigned i;

	for (i = 0; i < vu->npairs; i++) {
		struct vu_pair *p = &vu->pair[i];

		pthread_mutex_lock(&p->lock);
		while (p->nloans) {
			p->waiter = true;
			pthread_cond_wait(&p->idle, &p->lock);
		}
		p->waiter = false;
	}
}

/**
 * vu_unlock_all() - release every pair's lock
 * @vu:	state
 */
static void vu_unlock_all(struct vu *vu)
{
	unsigned i;

	for (i = 0; i < vu->npairs; i++)
		pthread_mutex_unlock(&vu->pair[i].lock);
}

/**
 * vu_ring_stop() - stop a ring: forget its kick fd (caller holds the lock)
 * @p:		its pair
 * @r:		the ring
 *
 * #syscalls epoll_ctl close
 */
static void vu_ring_stop(struct vu_pair *p, struct vu_ring *r)
{
	r->started = false;
	p->epoch++;
	if (r->kick >= 0) {
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, r->kick, NULL);
		close(r->kick);
		r->kick = -1;
	}
}

/**
 * vu_unmap() - unmap the memory table (caller holds every lock)
 * @vu:	state
 *
 * #syscalls munmap
 */
static void vu_unmap(struct vu *vu)
{
	unsigned i;

	for (i = 0; i < vu->mem.n; i++)
		munmap(vu->maps[i].addr, vu->maps[i].len);
	vu->mem.n = 0;
}

/**
 * vu_ring_log_apply() - point a started ring at the dirty log, or not
 * (its pair's lock held)
 * @vu:		state
 * @r:		ring
 *
 * Logging is on while the frontend's features have LOG_ALL and a log is
 * mapped; the used ring is logged at the address SET_VRING_ADDR gave
 * with its log flag.
 */
static void vu_ring_log_apply(struct vu *vu, struct vu_ring *r)
{
	bool on = (vu_features(vu) & BIT(F_LOG_ALL)) && vu->log.bitmap;

	r->vq.log = on ? &vu->log : NULL;
	r->vq.used_gpa = r->log_gpa;
	r->vq.used_gpa_ok = r->log_ok;
}

/**
 * vu_log_update() - logging may have been switched on or off: every
 * started ring follows, and the edge says so (every lock held)
 * @vu:		state
 */
static void vu_log_update(struct vu *vu)
{
	bool on = (vu_features(vu) & BIT(F_LOG_ALL)) && vu->log.bitmap;
	unsigned i, k;

	for (i = 0; i < vu->npairs; i++) {
		for (k = 0; k < 2; k++) {
			struct vu_ring *r = &vu->pair[i].ring[k];

			if (r->started)
				vu_ring_log_apply(vu, r);
		}
	}
	__atomic_store_n(&vu->e->dirty_log, on, __ATOMIC_RELAXED);
}

/**
 * vu_log_unmap() - forget the dirty log (every lock held, or none needed:
 * no ring points at it any more)
 * @vu:		state
 *
 * #syscalls munmap
 */
static void vu_log_unmap(struct vu *vu)
{
	if (vu->log_map)
		munmap(vu->log_map, vu->log_map_len);
	vu->log_map = NULL;
	vu->log_map_len = 0;
	vu->log.bitmap = NULL;
	vu->log.size = 0;
}

/**
 * vu_host_remap() - where a buffer in the old memory table is in the new
 * @old:	the memory table it is in
 * @new:	the one replacing it
 * @iov:	the buffer, re-pointed on success
 *
 * Return: 0, or -1 if the new table does not hold its guest addresses
 */
static int vu_host_remap(const struct vu_mem *old, const struct vu_mem *new,
			 struct iovec *iov)
{
	const uint8_t *b = iov->iov_base;
	unsigned i;

	for (i = 0; i < old->n; i++) {
		const struct vu_region *r = &old->r[i];
		uint64_t len = iov->iov_len;
		uint8_t *h;

		if (b < r->host || (uint64_t)(b - r->host) >= r->size)
			continue;
		h = vu_gpa_to_host(new, r->gpa + (uint64_t)(b - r->host), &len);
		if (!h || len < iov->iov_len)
			return -1;
		iov->iov_base = h;
		return 0;
	}
	return -1;
}

/**
 * vu_placed_remap() - a new memory table: the reservations still waiting
 * for their headers (placed frames not yet flushed) are re-pointed at
 * where their chains are now (every lock held)
 * @vu:		state, @vu->mem still the old table
 * @new:	the new table
 *
 * Their payload is in the guest's memory already; only the headers are
 * still to be written. One whose chains the new table does not hold is
 * made stale (its frame is dropped at the flush, EDGE_VU_PLACE_STALE).
 */
static void vu_placed_remap(struct vu *vu, const struct vu_mem *new)
{
	unsigned i, s, k;

	for (i = 0; i < vu->npairs; i++) {
		struct vu_pair *p = &vu->pair[i];

		for (s = 0; p->placed && s < EDGE_PLACE_SLOTS; s++) {
			struct vu_placed *pl = &p->placed[s];

			if (!pl->nb || pl->epoch != p->epoch)
				continue;
			for (k = 0; k < pl->nhiov; k++) {
				if (vu_host_remap(&vu->mem, new,
						  &pl->hiov[k])) {
					pl->epoch = p->epoch - 1;
					break;
				}
			}
		}
	}
}

/**
 * vu_reset() - forget the frontend's device state (after it went away)
 * @vu:	state
 *
 * #syscalls close
 */
static void vu_reset(struct vu *vu)
{
	unsigned i, k;

	vu_lock_all(vu);
	for (i = 0; i < vu->npairs; i++) {
		struct vu_pair *p = &vu->pair[i];

		for (k = 0; k < 2; k++) {
			struct vu_ring *r = &p->ring[k];

			vu_ring_stop(p, r);
			if (r->call >= 0)
				close(r->call);
			memset(r, 0, sizeof(*r));
			r->kick = r->call = -1;
		}
		p->nloans = 0;
		p->rx_dirty = false;
		p->bstart = p->bend = 0;
	}
	vu_unmap(vu);
	vu_log_unmap(vu);
	__atomic_store_n(&vu->features, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&vu->e->dirty_log, false, __ATOMIC_RELAXED);
	vu->pfeatures = 0;
	vu_unlock_all(vu);
}

/**
 * vu_msg_fds_close() - close the fds received with the current message,
 * and forget what was received of it
 * @vu:	state
 *
 * #syscalls close
 */
static void vu_msg_fds_close(struct vu *vu)
{
	unsigned i;

	for (i = 0; i < vu->nfds; i++)
		close(vu->msg_fds[i]);
	vu->nfds = 0;
}

/**
 * vu_drop() - close the frontend's connection
 * @vu:		state
 * @why:	reason, logged
 *
 * A message received in part goes with it, and the fds it brought.
 *
 * #syscalls close
 */
static void vu_drop(struct vu *vu, const char *why)
{
	if (vu->ctl < 0)
		return;
	vu_msg_fds_close(vu);
	vu->rgot = 0;
	info("vhost-user frontend gone (%s): the flows it left are reset%s",
	     why, vu->e->reconnect ? "; waiting for the next one" : "");
	VU_CTR(vu->e, 0, EDGE_DISCONNECTS);
	close(vu->ctl);
	vu->ctl = -1;
	vu_reset(vu);
	__atomic_add_fetch(&vu->e->gen, 1, __ATOMIC_RELEASE);
}

/**
 * vu_violation() - the frontend broke the protocol: log and disconnect
 * @vu:		state
 * @why:	what it did
 */
static void vu_violation(struct vu *vu, const char *why)
{
	warn("vhost-user frontend: %s: closing its connection", why);
	VU_CTR(vu->e, 0, EDGE_VU_PROTO_ERRORS);
	vu_drop(vu, why);
}

/**
 * vu_ring_of() - a ring by index, if it is one of ours
 * @vu:		state
 * @idx:	ring index from the message
 * @p:		its pair, out
 *
 * Return: the ring, or NULL
 */
static struct vu_ring *vu_ring_of(struct vu *vu, uint32_t idx,
				  struct vu_pair **p)
{
	if (idx >= 2 * vu->npairs)
		return NULL;
	*p = &vu->pair[idx / 2];
	return &(*p)->ring[idx & 1];
}

/**
 * vu_ring_lock() - the ring a ring message names, its pair locked: the
 * opening of the handlers that change one ring
 * @vu:		state
 * @idx:	ring index from the message
 * @ok:		the rest of the message checks out (else no ring either)
 * @p:		out: the ring's pair, locked when a ring is returned (NULL
 *		when none is)
 *
 * Return: the ring, its pair's lock held, or NULL (no lock taken) if
 * @idx is not one of our rings or !@ok
 */
static struct vu_ring *vu_ring_lock(struct vu *vu, uint32_t idx, bool ok,
				    struct vu_pair **p)
{
	struct vu_ring *r = ok ? vu_ring_of(vu, idx, p) : NULL;

	if (!r) {
		*p = NULL;
		return NULL;
	}
	pthread_mutex_lock(&(*p)->lock);
	return r;
}

/**
 * vu_ring_try_start() - translate a ring whose kick fd came (lock held)
 * @vu:		state
 * @r:		ring
 *
 * Return: 0, or -EINVAL if its addresses or size do not check out
 */
static int vu_ring_try_start(struct vu *vu, struct vu_ring *r)
{
	uint8_t *d, *a, *u;

	d = vu_uva_to_host(&vu->mem, r->desc_uva, 16ULL * r->num);
	a = vu_uva_to_host(&vu->mem, r->avail_uva, 6 + 2ULL * r->num);
	u = vu_uva_to_host(&vu->mem, r->used_uva, 6 + 8ULL * r->num);
	if (!d || !a || !u)
		return -EINVAL;
	if (virtq_init(&r->vq, r->num, d, a, u, r->base,
		       !!(vu_features(vu) & BIT(F_EVENT_IDX))))
		return -EINVAL;
	vu_ring_log_apply(vu, r);
	r->started = true;
	r->resume = false;
	return 0;
}

/**
 * vu_ring_remap() - point a running ring at its areas in a new memory table
 * (every lock held)
 * @vu:		state
 * @r:		ring
 *
 * Return: 0, or -EINVAL if the new memory does not hold it
 */
static int vu_ring_remap(struct vu *vu, struct vu_ring *r)
{
	uint8_t *d, *a, *u;

	d = vu_uva_to_host(&vu->mem, r->desc_uva, 16ULL * r->num);
	a = vu_uva_to_host(&vu->mem, r->avail_uva, 6 + 2ULL * r->num);
	u = vu_uva_to_host(&vu->mem, r->used_uva, 6 + 8ULL * r->num);
	return virtq_remap(&r->vq, d, a, u);
}

/**
 * vu_take_fd() - the one fd a message carried, or -1 (VU_VRING_NOFD)
 * @vu:		state
 * @m:		message
 *
 * Return: the fd (ours now), -1 if none was meant, -2 if it is missing
 */
static int vu_take_fd(struct vu *vu, const struct vu_msg *m)
{
	int fd;

	if (m->u64 & VU_VRING_NOFD)
		return vu->nfds ? -2 : -1;
	if (vu->nfds != 1)
		return -2;
	fd = vu->msg_fds[0];
	vu->nfds = 0;
	return fd;
}

/**
 * vu_get_features() - VU_GET_FEATURES: the virtio features we offer
 * @vu:		state
 * @m:		message; its payload becomes the reply: the features
 *
 * Return: NULL
 */
static const char *vu_get_features(struct vu *vu, struct vu_msg *m)
{
	m->u64 = vu_offered(vu);
	return NULL;
}

/**
 * vu_new_guest() - a new guest (or the same one rebooted) has the device:
 * drop what was kept for the old one (every pair's lock held); the caller
 * then moves the generation
 * @vu:	state
 *
 * The frames waiting for room in a receive ring were the old guest's (and
 * made for its header length); no ring resumes the old guest's indexes
 * any more.
 */
static void vu_new_guest(struct vu *vu)
{
	unsigned i;

	for (i = 0; i < vu->npairs; i++) {
		struct vu_pair *p = &vu->pair[i];

		p->bstart = p->bend = 0;
		p->ring[0].resume = p->ring[1].resume = false;
	}
}

/**
 * vu_set_features() - VU_SET_FEATURES: the virtio features the frontend
 * takes; the shards follow them (the generation moves on when they
 * changed)
 * @vu:		state
 * @m:		message
 *
 * The same features set again are no new guest: QEMU sends them once per
 * queue pair each time it starts the device, also when it resumes a
 * paused VM (cont, the end of a snapshot, a migration given up), with
 * every ring stopped; a reboot is told by the ring bases instead
 * (vu_set_vring_base()). LOG_ALL alone switches dirty logging on or off
 * (a live migration starting, or given up): the rings run on untouched.
 * In neither case does the generation move, for its move resets every
 * guest flow, the very connections a pause or a migration keeps. Other
 * features than the ones set are a guest that negotiated anew: it moves.
 *
 * Return: NULL, or why the features are refused
 */
static const char *vu_set_features(struct vu *vu, struct vu_msg *m)
{
	uint64_t old = vu_features(vu);
	bool renegotiated = (old ^ m->u64) & ~BIT(F_LOG_ALL);
	struct vu_pair *p;
	unsigned i;

	if (m->u64 & ~vu_offered(vu))
		return "features we did not offer";
	/* under every pair's lock: the data path reads the features
	 * holding its pair's; shard_edge_changed() reads them with no
	 * lock, after the generation below (release/acquire), and a
	 * frontend may set them again meanwhile: atomic, relaxed
	 * (ThreadSanitizer saw that race with QEMU) */
	vu_lock_all(vu);
	__atomic_store_n(&vu->features, m->u64, __ATOMIC_RELAXED);
	/* without protocol features, rings start enabled */
	for (i = 0; i < 2 * vu->npairs; i++) {
		struct vu_ring *r = vu_ring_of(vu, i, &p);

		r->enabled = !(m->u64 & BIT(F_PROTOCOL_FEATURES)) || r->enabled;
	}
	vu_log_update(vu);
	if (renegotiated)
		vu_new_guest(vu);
	vu_unlock_all(vu);
	if (!renegotiated) {
		if (old != m->u64)
			info("vhost-user: dirty-page logging %s%s",
			     m->u64 & BIT(F_LOG_ALL) ? "on" : "off",
			     vu->log.bitmap ? "" : " (no log mapped yet)");
		return NULL;
	}
	info("vhost-user features %#llx: %s%s%s%s%s%s",
	     (unsigned long long)m->u64,
	     m->u64 & BIT(F_MRG_RXBUF) ? "mrg_rxbuf " : "",
	     m->u64 & BIT(F_GUEST_TSO4) ? "guest_tso " : "",
	     m->u64 & BIT(F_HOST_TSO4) ? "host_tso " : "",
	     m->u64 & BIT(F_GUEST_USO4) ? "guest_uso " : "",
	     m->u64 & BIT(F_HOST_USO) ? "host_uso " : "",
	     m->u64 & BIT(F_EVENT_IDX) ? "event_idx" : "");
	__atomic_add_fetch(&vu->e->gen, 1, __ATOMIC_RELEASE);
	return NULL;
}

#define VU_PFEATURES \
	(BIT(PF_REPLY_ACK) | BIT(PF_NET_MTU) | BIT(PF_MQ) | BIT(PF_LOG_SHMFD))

/**
 * vu_get_protocol_features() - VU_GET_PROTOCOL_FEATURES: what we offer
 * @vu:		state
 * @m:		message; its payload becomes the reply: the protocol
 *		features (MQ only with several pairs)
 *
 * Return: NULL
 */
static const char *vu_get_protocol_features(struct vu *vu, struct vu_msg *m)
{
	m->u64 = VU_PFEATURES;
	if (vu->npairs < 2)
		m->u64 &= ~BIT(PF_MQ);
	if (vu->e->mig_devstate)
		m->u64 |= BIT(PF_DEVICE_STATE);
	return NULL;
}

/**
 * vu_set_protocol_features() - VU_SET_PROTOCOL_FEATURES
 * @vu:		state
 * @m:		message
 *
 * Return: NULL, or why the features are refused
 */
static const char *vu_set_protocol_features(struct vu *vu, struct vu_msg *m)
{
	if (m->u64 &
	    ~(VU_PFEATURES | (vu->e->mig_devstate ? BIT(PF_DEVICE_STATE) : 0)))
		return "protocol features we did not offer";
	vu->pfeatures = m->u64;
	return NULL;
}

/**
 * vu_get_queue_num() - VU_GET_QUEUE_NUM: the queue pairs we offer
 * @vu:		state
 * @m:		message; its payload becomes the reply: their number
 *
 * Return: NULL
 */
static const char *vu_get_queue_num(struct vu *vu, struct vu_msg *m)
{
	m->u64 = vu->npairs;
	return NULL;
}

/**
 * vu_ignore() - a request with nothing for us to do: VU_SET_OWNER,
 * VU_RESET_OWNER (every connection is one owner), VU_SEND_RARP (the guest
 * announces itself when it sends)
 * @vu:		state
 * @m:		message
 *
 * Return: NULL
 */
static const char *vu_ignore(struct vu *vu, struct vu_msg *m)
{
	(void)vu;
	(void)m;
	return NULL;
}

/**
 * vu_net_set_mtu() - VU_NET_SET_MTU: the guest's MTU, within ours
 * @vu:		state
 * @m:		message
 *
 * Return: NULL, or why the MTU is refused
 */
static const char *vu_net_set_mtu(struct vu *vu, struct vu_msg *m)
{
	if (m->u64 < 68 || m->u64 > vu->mtu)
		return "an MTU outside 68 .. our --mtu";
	return NULL;
}

/**
 * vu_region_map() - check and map one region of a memory table
 * @rg:		the region as the message gives it (a struct vu_mem_region,
 *		maybe unaligned)
 * @fd:		its file
 * @r:		out: the region
 * @map:	out: its mapping
 *
 * Mapping past the end of the file works, and touching it there is
 * SIGBUS: the file must cover the region (a frontend that shrinks it
 * later still can).
 *
 * #syscalls fstat mmap
 * Return: NULL with @r and @map filled, or why the region is refused
 * (nothing mapped then)
 */
static const char *vu_region_map(const uint8_t *rg, int fd, struct vu_region *r,
				 struct vu_map *map)
{
	uint64_t gpa, size, uva, off;
	struct vu_mem_region w;
	struct stat st;
	void *a;

	memcpy(&w, rg, sizeof(w));
	gpa = w.gpa;
	size = w.size;
	uva = w.uva;
	off = w.mmap_offset;
	if (!size || gpa + size < gpa || uva + size < uva || off + size < off ||
	    off + size > SIZE_MAX)
		return "a memory region that wraps around";
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return "a memory region whose fd is not a file";
	if (off + size > (uint64_t)st.st_size)
		return "a memory region past its file's end";
	a = mmap(NULL, off + size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (a == MAP_FAILED)
		return "a memory region we cannot map";
	map->addr = a;
	map->len = off + size;
	r->gpa = gpa;
	r->size = size;
	r->uva = uva;
	r->host = (uint8_t *)a + off;
	return NULL;
}

/**
 * vu_mem_overlap() - do two regions of a memory table overlap?
 * @mem:	the table
 *
 * Return: true if so
 */
static bool vu_mem_overlap(const struct vu_mem *mem)
{
	unsigned i, k;

	for (i = 0; i < mem->n; i++) {
		for (k = 0; k < i; k++) {
			if (mem->r[i].gpa < mem->r[k].gpa + mem->r[k].size &&
			    mem->r[k].gpa < mem->r[i].gpa + mem->r[i].size)
				return true;
		}
	}
	return false;
}

/**
 * vu_set_mem_table() - VU_SET_MEM_TABLE: map the guest's memory, one fd
 * per region, in place of the table before
 * @vu:		state
 * @m:		message
 *
 * The new table is mapped and checked whole before anything changes; a
 * table refused leaves nothing of it mapped. Running rings and the
 * reservations still waiting for their headers are re-pointed into the
 * new mappings, every index kept; a ring outside the new memory stops.
 *
 * #syscalls munmap
 * Return: NULL, or why the table is refused
 */
static const char *vu_set_mem_table(struct vu *vu, struct vu_msg *m)
{
	uint32_t n = *(uint32_t *)m->raw;
	struct vu_mem mem = { 0 };
	struct vu_map maps[VU_MAX_REGIONS] = { 0 };
	const char *why = NULL;
	struct vu_pair *p;
	unsigned i;

	if (!n || n > VU_MAX_REGIONS ||
	    m->size < VU_MEM_TABLE_HDR + sizeof(struct vu_mem_region) * n ||
	    vu->nfds != n)
		return "a memory table whose regions and fds do not match";
	for (mem.n = 0; mem.n < n; mem.n++) {
		why = vu_region_map(
			m->raw + VU_MEM_TABLE_HDR +
				sizeof(struct vu_mem_region) * mem.n,
			vu->msg_fds[mem.n], &mem.r[mem.n], &maps[mem.n]);
		if (why)
			break;
	}
	if (!why && vu_mem_overlap(&mem))
		why = "overlapping memory regions";
	if (why) {
		for (i = 0; i < mem.n; i++)
			munmap(maps[i].addr, maps[i].len);
		return why;
	}
	vu_lock_all(vu);
	vu_placed_remap(vu, &mem);
	vu_unmap(vu);
	vu->mem = mem;
	memcpy(vu->maps, maps, sizeof(maps));
	/* started rings point into the old mappings: translate them
	 * again, where they are (chains taken and not yet used stay
	 * so); one outside the new memory stops */
	for (i = 0; i < 2 * vu->npairs; i++) {
		struct vu_ring *r = vu_ring_of(vu, i, &p);

		if (r->started && vu_ring_remap(vu, r)) {
			r->base = r->vq.last_avail;
			vu_ring_stop(p, r);
		}
	}
	vu_unlock_all(vu);
	return NULL;
}

#define VU_LOG_MAX (1ULL << 30) /* the largest log we map: 32 TiB of guest */

/**
 * vu_set_log_base() - VU_SET_LOG_BASE: the dirty log, a memfd (with
 * LOG_SHMFD), in place of the one before
 * @vu:		state
 * @m:		message: mmap_size, mmap_offset (u64 each); its payload
 *		becomes the reply: a u64 0 (QEMU waits for it)
 *
 * The file must cover the log (touching a mapping past its end is
 * SIGBUS). The new log is mapped before anything changes; it replaces
 * the old under every pair's lock, and the old is unmapped after.
 *
 * #syscalls fstat mmap munmap
 * Return: NULL, or why the log is refused
 */
static const char *vu_set_log_base(struct vu *vu, struct vu_msg *m)
{
	void *old_map = vu->log_map, *a;
	size_t old_len = vu->log_map_len;
	uint64_t size, off;
	struct stat st;
	int fd;

	if (!(vu->pfeatures & BIT(PF_LOG_SHMFD)) || vu->nfds != 1)
		return "a dirty log without LOG_SHMFD, or without its fd";
	fd = vu->msg_fds[0];
	memcpy(&size, m->raw, 8);
	memcpy(&off, m->raw + 8, 8);
	if (!size || size > VU_LOG_MAX || off > VU_LOG_MAX)
		return "a dirty log of a bad size or offset";
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    off + size > (uint64_t)st.st_size)
		return "a dirty log whose fd is not a file that covers it";
	a = mmap(NULL, off + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return "a dirty log we cannot map";
	vu_lock_all(vu);
	vu->log_map = a;
	vu->log_map_len = off + size;
	vu->log.bitmap = (uint8_t *)a + off;
	vu->log.size = size;
	vu_log_update(vu);
	vu_unlock_all(vu);
	if (old_map)
		munmap(old_map, old_len);
	VU_CTR(vu->e, 0, EDGE_VU_LOG_BASES);
	info("vhost-user: dirty log of %llu bytes (%llu MiB of guest memory)",
	     (unsigned long long)size,
	     (unsigned long long)(size * 8 * VU_LOG_PAGE >> 20));
	m->u64 = 0;
	return NULL;
}

/**
 * vu_set_log_fd() - VU_SET_LOG_FD: an eventfd to signal after logging;
 * QEMU never sends it (it reads the log when it syncs), so it is taken
 * and closed (vu_ctl() closes the message's fds)
 * @vu:		state
 * @m:		message
 *
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_log_fd(struct vu *vu, struct vu_msg *m)
{
	(void)m;
	if (vu->nfds != 1)
		return "a log fd message without its fd";
	return NULL;
}

/**
 * vu_rings_started() - has the frontend started any ring (a kick fd given,
 * the ring translated) on this connection?
 * @vu:		state
 *
 * Context: shard 0 (the control path); each pair's lock is taken, for a
 * shard that finds its ring broken stops it
 * Return: true if one runs
 */
static bool vu_rings_started(struct vu *vu)
{
	bool started = false;
	unsigned i;

	for (i = 0; i < vu->npairs && !started; i++) {
		struct vu_pair *p = &vu->pair[i];

		pthread_mutex_lock(&p->lock);
		started = p->ring[0].started || p->ring[1].started;
		pthread_mutex_unlock(&p->lock);
	}
	return started;
}

/**
 * vu_set_device_state_fd() - VU_SET_DEVICE_STATE_FD: the frontend carries
 * our state in its migration stream: we write it into the fd (SAVE, on the
 * source, the device stopped) or read it from there (LOAD, on the
 * destination, before the device starts). The host's migration thread
 * does the transfer (@e->mig_state_fd, kicked through @e->mig_evfd); we
 * answer at once that we use the frontend's fd.
 * @vu:		state
 * @m:		message; the reply: error code 0, VU_STATE_FD_KEPT
 *
 * Refused here, with an error code (and CHECK_DEVICE_STATE then answers
 * failure): a transfer while another is under way, and a LOAD while a
 * ring runs. The migration thread refuses the rest (a second LOAD, a SAVE
 * after a LOAD, a LOAD where the rings ran before: mig_device_state()).
 *
 * #syscalls write close
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_device_state_fd(struct vu *vu, struct vu_msg *m)
{
	struct edge *e = vu->e;
	uint32_t dir = m->state.index, phase = m->state.num;
	int fd = vu->nfds == 1 ? vu->msg_fds[0] : -1, old;
	const char *why = NULL;
	uint64_t one = 1;

	if (fd < 0)
		return "a device state message without its fd";
	vu->nfds = 0;
	if (!e->mig_devstate || e->mig_evfd < 0)
		why = "run with --migrate-repair for it";
	else if (dir != VU_STATE_SAVE && dir != VU_STATE_LOAD)
		why = "an unknown direction";
	else if (phase != VU_STATE_PHASE_STOPPED)
		why = "a phase other than stopped";
	else if (__atomic_load_n(&e->mig_state_result, __ATOMIC_SEQ_CST) < 0)
		why = "another transfer is under way";
	else if (dir == VU_STATE_LOAD && vu_rings_started(vu))
		why = "the device runs: a state loads only before it starts";
	if (why) {
		warn("vhost-user: device state transfer refused (direction "
		     "%u, phase %u): %s",
		     dir, phase, why);
		close(fd);
		/* the CHECK_DEVICE_STATE that follows says so too, unless
		 * it is the one under way's */
		if (__atomic_load_n(&e->mig_state_result, __ATOMIC_SEQ_CST) >=
		    0)
			__atomic_store_n(&e->mig_state_result, 1,
					 __ATOMIC_SEQ_CST);
		m->u64 = 1 | VU_STATE_FD_KEPT;
		return NULL;
	}
	__atomic_store_n(&e->mig_state_result, -1, __ATOMIC_SEQ_CST);
	e->mig_state_dir = dir == VU_STATE_SAVE ? EDGE_MIG_SAVE : EDGE_MIG_LOAD;
	/* release: the direction before the fd the thread takes */
	old = __atomic_exchange_n(&e->mig_state_fd, fd, __ATOMIC_RELEASE);
	if (old >= 0)
		close(old); /* a transfer never started: this one instead */
	if (write(e->mig_evfd, &one, sizeof(one)) < 0)
		warn_perror("vhost-user: device state: kick");
	m->u64 = VU_STATE_FD_KEPT;
	return NULL;
}

static const char *vu_send_reply(struct vu *vu, const struct vu_msg *m,
				 const void *payload, uint32_t len);

/**
 * vu_check_device_state() - VU_CHECK_DEVICE_STATE: did the transfer work?
 * @vu:		state
 * @m:		message; answered here (0 if it did, 1 if not), now or
 *		once the verdict is in
 *
 * The frontend asks once it read our end of stream (SAVE) or closed its
 * own (LOAD). A verdict in is the answer at once. While the migration
 * thread still works (it checks a loaded state whole, and holds the
 * shards, this one too, before it says), nothing waits here: shard 0
 * goes on, and a copy of the connection is left in
 * @e->mig_state_reply_fd for vu_device_state_done() to answer on. The
 * two meet through sequentially consistent atomics: we publish the copy,
 * then look at the verdict again; the thread publishes the verdict, then
 * takes the copy; whichever takes the copy answers, so exactly one does.
 * A CHECK without a transfer before it is answered 1.
 *
 * #syscalls fcntl close
 * Return: NULL, or why the frontend is sent away (it reads no replies)
 */
static const char *vu_check_device_state(struct vu *vu, struct vu_msg *m)
{
	struct edge *e = vu->e;
	int r, dfd, old;

	/* this row has no reply of vu_ctl()'s, and no REPLY_ACK either */
	m->flags &= ~VU_FLAG_NEED_REPLY;
	r = __atomic_load_n(&e->mig_state_result, __ATOMIC_SEQ_CST);
	dfd = r < 0 ? fcntl(vu->ctl, F_DUPFD_CLOEXEC, 0) : -1;
	if (r < 0 && dfd >= 0) {
		old = __atomic_exchange_n(&e->mig_state_reply_fd, dfd,
					  __ATOMIC_SEQ_CST);
		if (old >= 0)
			close(old); /* a CHECK before this one, never answered */
		r = __atomic_load_n(&e->mig_state_result, __ATOMIC_SEQ_CST);
		if (r < 0)
			return NULL; /* vu_device_state_done() answers */
		dfd = __atomic_exchange_n(&e->mig_state_reply_fd, -1,
					  __ATOMIC_SEQ_CST);
		if (dfd < 0)
			return NULL; /* the thread took it: it answers */
		close(dfd);
	} else if (r < 0) {
		warn_perror("vhost-user: device state: no copy of the "
			    "connection to answer CHECK on later");
	}
	if (r)
		warn("vhost-user: device state transfer failed (see above)");
	m->u64 = r == 0 ? 0 : 1;
	return vu_send_reply(vu, m, &m->u64, 8);
}

/**
 * vu_device_state_done() - the migration thread's verdict on a device
 * state transfer, and the answer to a CHECK_DEVICE_STATE that waits for
 * it (see vu_check_device_state())
 * @e:		the vhost-user edge
 * @ok:		the transfer worked
 *
 * Context: the migration thread, before it closes the transfer's fd
 * #syscalls sendto close
 */
void vu_device_state_done(struct edge *e, bool ok)
{
	struct vu_msg r = { .req = VU_CHECK_DEVICE_STATE,
			    .flags = VU_VERSION | VU_FLAG_REPLY,
			    .size = 8,
			    .u64 = ok ? 0 : 1 };
	int fd;

	__atomic_store_n(&e->mig_state_result, ok ? 0 : 1, __ATOMIC_SEQ_CST);
	fd = __atomic_exchange_n(&e->mig_state_reply_fd, -1, __ATOMIC_SEQ_CST);
	if (fd < 0)
		return;
	if (!ok)
		warn("vhost-user: device state transfer failed (see above)");
	/* a frontend gone meanwhile: EPIPE, and nobody to tell */
	if (send(fd, &r, VU_HDR_LEN + 8, MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    VU_HDR_LEN + 8)
		debug("vhost-user: device state: the late CHECK answer did "
		      "not go out");
	close(fd);
}

/**
 * vu_set_vring_num() - VU_SET_VRING_NUM: a ring's size
 * @vu:		state
 * @m:		message
 *
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_num(struct vu *vu, struct vu_msg *m)
{
	uint32_t num = m->state.num;
	struct vu_pair *p;
	struct vu_ring *r = vu_ring_lock(
		vu, m->state.index,
		num && num <= VIRTQ_MAX_SIZE && !(num & (num - 1)), &p);

	if (!r)
		return "a bad ring index or size";
	r->num = m->state.num;
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * vu_set_vring_addr() - VU_SET_VRING_ADDR: where a ring's areas are, in
 * the frontend's addresses (translated when the ring starts), and the used
 * ring's guest address for dirty logging
 * @vu:		state
 * @m:		message
 *
 * QEMU sends it again to a running ring when logging starts or stops,
 * the areas unchanged and only the log flag different: the running ring
 * takes the log address in place, and runs on.
 *
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_addr(struct vu *vu, struct vu_msg *m)
{
	struct vu_pair *p;
	struct vu_ring *r = vu_ring_lock(vu, m->addr.index, true, &p);

	if (!r)
		return "a bad ring index";
	r->log_ok = m->addr.flags & VU_VRING_F_LOG;
	r->log_gpa = m->addr.log_gpa;
	if (r->started && r->desc_uva == m->addr.desc_uva &&
	    r->avail_uva == m->addr.avail_uva &&
	    r->used_uva == m->addr.used_uva)
		vu_ring_log_apply(vu, r);
	r->desc_uva = m->addr.desc_uva;
	r->avail_uva = m->addr.avail_uva;
	r->used_uva = m->addr.used_uva;
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * vu_set_vring_base() - VU_SET_VRING_BASE: the avail index a ring starts at
 * @vu:		state
 * @m:		message
 *
 * A ring we stopped (GET_VRING_BASE) that is set again at the base we
 * returned is the same guest resuming: a paused VM continued, or a
 * migration given up. At another base it is a new guest: the guest's
 * driver reset the device (a reboot, the driver reloaded) and the rings
 * start again from 0; the old guest's flows are reset (the generation
 * moves, once for every ring). A migration's destination returned no
 * base: its rings start at the source's, and its flows stay. A guest
 * whose index wrapped to 0 resumes at 0, the base we returned. A reboot
 * that finds every ring stopped at exactly 0 goes unseen here; the
 * rebooted guest's resets then end the old flows.
 *
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_base(struct vu *vu, struct vu_msg *m)
{
	struct vu_pair *p;
	struct vu_ring *r = vu_ring_lock(vu, m->state.index,
					 m->state.num <= 0xffff, &p);
	bool reboot;

	if (!r)
		return "a bad ring index or base";
	reboot = r->resume && r->base != (uint16_t)m->state.num;
	if (!reboot)
		r->base = (uint16_t)m->state.num;
	pthread_mutex_unlock(&p->lock);
	if (!reboot)
		return NULL;
	info("vhost-user: ring %u set to start at %u, not %u where it "
	     "stopped: a new guest (rebooted); its old flows are reset",
	     m->state.index, m->state.num, r->base);
	vu_lock_all(vu);
	r->base = (uint16_t)m->state.num;
	vu_new_guest(vu);
	vu_unlock_all(vu);
	__atomic_add_fetch(&vu->e->gen, 1, __ATOMIC_RELEASE);
	return NULL;
}

/**
 * vu_ring_settle() - before a ring stops: every chain taken from it goes
 * back to the used ring, so that the base we report (the next chain to
 * take) has every chain before it used. The frontend resumes the ring
 * from that base, here or in a migration's destination: a chain taken
 * and never used would be a hole the guest waits on forever.
 * @vu:	state
 * @p:	pair (lock held)
 * @r:	ring, started
 *
 * Transmit: the shard's loans of the current batch are waited for
 * (vu_rx_done() pushes them, and vu_rx() takes no new ones meanwhile).
 * Receive: chains reserved for placed frames whose headers are not yet
 * written are used with length 0 (the guest drops a frame shorter than
 * its header and reposts the buffer); the frames go stale with the ring
 * (tx_placed), and TCP sends their payload again.
 */
static void vu_notify(struct edge *e, unsigned q, struct vu_ring *r);

static void vu_ring_settle(struct vu *vu, struct vu_pair *p, struct vu_ring *r)
{
	unsigned i, k;
	bool pushed = false;

	if (r == &p->ring[1]) {
		while (p->nloans) {
			p->waiter = true;
			pthread_cond_wait(&p->idle, &p->lock);
		}
		p->waiter = false;
		return;
	}
	for (i = 0; p->placed && i < EDGE_PLACE_SLOTS; i++) {
		struct vu_placed *pl = &p->placed[i];

		if (!pl->nb || pl->epoch != p->epoch)
			continue;
		for (k = 0; k < pl->nb; k++)
			virtq_push(&r->vq, pl->heads[k], 0);
		pushed = true;
	}
	if (pushed || p->rx_dirty)
		vu_notify(vu->e, (unsigned)(p - vu->pair), r);
	p->rx_dirty = false;
}

/**
 * vu_get_vring_base() - VU_GET_VRING_BASE: stop a ring, and say where it
 * stopped
 * @vu:		state
 * @m:		message; its payload becomes the reply: the ring's index
 *		and next avail index (a vring state)
 *
 * The last running ring stopped with LOG_ALL negotiated is the device
 * stopped in the middle of a live migration, at its end on the source
 * (QEMU: migration_completion(), vm_stop(), vhost_dev_stop()): the host
 * is told through @e->mig_evfd.
 *
 * #syscalls close write
 * Return: NULL, or why the message is refused
 */
static const char *vu_get_vring_base(struct vu *vu, struct vu_msg *m)
{
	struct vu_pair *p;
	struct vu_ring *r = vu_ring_lock(vu, m->state.index, true, &p);
	bool was_started;
	unsigned i;

	if (!r)
		return "a bad ring index";
	if (r->started)
		vu_ring_settle(vu, p, r);
	was_started = r->started;
	m->state.num = r->started ? r->vq.last_avail : r->base;
	r->base = (uint16_t)m->state.num;
	r->resume = true;
	vu_ring_stop(p, r);
	if (r->call >= 0) {
		close(r->call);
		r->call = -1;
	}
	pthread_mutex_unlock(&p->lock);
	if (!was_started || !(vu_features(vu) & BIT(F_LOG_ALL)))
		return NULL;
	for (i = 0; i < 2 * vu->npairs; i++) {
		bool started;

		r = vu_ring_of(vu, i, &p);
		pthread_mutex_lock(&p->lock);
		started = r->started;
		pthread_mutex_unlock(&p->lock);
		if (started)
			return NULL;
	}
	info("vhost-user: device stopped with dirty logging on: migration");
	__atomic_add_fetch(&vu->e->mig_stops, 1, __ATOMIC_RELEASE);
	if (vu->e->mig_evfd >= 0 &&
	    write(vu->e->mig_evfd, &(uint64_t){ 1 }, sizeof(uint64_t)) < 0)
		warn_perror("migration eventfd");
	return NULL;
}

/**
 * vu_vring_fd() - the ring and the eventfd of VU_SET_VRING_KICK, _CALL or
 * _ERR
 * @vu:		state
 * @m:		message: the ring's index in the low byte, VU_VRING_NOFD
 * @p:		out: the ring's pair, locked when a ring is returned
 * @fd:		out: the eventfd (ours now), or -1 if none was meant
 *
 * #syscalls close
 * Return: the ring, its pair's lock held (vu_ring_lock()), or NULL if the
 * index or the fd is bad (the fd is closed then, no lock taken)
 */
static struct vu_ring *vu_vring_fd(struct vu *vu, const struct vu_msg *m,
				   struct vu_pair **p, int *fd)
{
	struct vu_ring *r;

	*fd = vu_take_fd(vu, m);
	r = vu_ring_lock(vu, (uint32_t)(m->u64 & 0xff), *fd != -2, p);
	if (!r && *fd >= 0)
		close(*fd);
	return r;
}

/**
 * vu_mig_resumed() - a ring started: if the device had stopped with dirty
 * logging on (a migration's end on the source), the VM runs here again
 * (the migration failed or was cancelled): the host is told through
 * @e->mig_evfd, @e->mig_resumes caught up with @e->mig_stops
 * @vu:		state
 *
 * #syscalls write
 */
static void vu_mig_resumed(struct vu *vu)
{
	struct edge *e = vu->e;
	unsigned stops = __atomic_load_n(&e->mig_stops, __ATOMIC_RELAXED);

	if (stops == __atomic_load_n(&e->mig_resumes, __ATOMIC_RELAXED))
		return;
	info("vhost-user: a ring started after the migration's stop: the VM "
	     "runs here again");
	/* release: pairs with the migration thread's acquire load */
	__atomic_store_n(&e->mig_resumes, stops, __ATOMIC_RELEASE);
	if (e->mig_evfd >= 0 &&
	    write(e->mig_evfd, &(uint64_t){ 1 }, sizeof(uint64_t)) < 0)
		warn_perror("migration eventfd");
}

/**
 * vu_set_vring_kick() - VU_SET_VRING_KICK: the eventfd the guest kicks a
 * ring with; the ring starts with it (stops without one)
 * @vu:		state
 * @m:		message
 *
 * #syscalls epoll_ctl
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_kick(struct vu *vu, struct vu_msg *m)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = (uint32_t)(m->u64 & 1) };
	struct vu_pair *p;
	int fd;
	struct vu_ring *r = vu_vring_fd(vu, m, &p, &fd);

	if (!r)
		return "a bad ring index, or a missing fd";
	vu_ring_stop(p, r);
	if (fd >= 0) {
		r->kick = fd;
		if (vu_ring_try_start(vu, r)) {
			pthread_mutex_unlock(&p->lock);
			return "a ring outside guest memory";
		}
		/* receive ring kicks matter only while frames wait for
		 * room: not wanted until then */
		if (!(m->u64 & 1))
			virtq_kick_enable(&r->vq, false);
		if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev))
			warn_perror("epoll_ctl for a kick fd");
	}
	pthread_mutex_unlock(&p->lock);
	if (fd >= 0)
		vu_mig_resumed(vu);
	return NULL;
}

/**
 * vu_set_vring_call() - VU_SET_VRING_CALL: the eventfd to signal the guest
 * with about a ring (none: the guest polls)
 * @vu:		state
 * @m:		message
 *
 * A ring that runs already (its kick came first, as QEMU sends them) may
 * have used entries while it had no eventfd: with EVENT_IDX, the guest
 * would never hear of them, nor of later ones. The new eventfd is
 * signalled once (a spurious interrupt is harmless): flows that carry on
 * across a device restart (a pause, a migration given up) send at once.
 *
 * #syscalls close write
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_call(struct vu *vu, struct vu_msg *m)
{
	struct vu_pair *p;
	int fd;
	struct vu_ring *r = vu_vring_fd(vu, m, &p, &fd);

	if (!r)
		return "a bad ring index, or a missing fd";
	if (r->call >= 0)
		close(r->call);
	r->call = fd;
	if (r->started && fd >= 0 &&
	    write(fd, &(uint64_t){ 1 }, sizeof(uint64_t)) < 0)
		warn_perror("vhost-user: a ring's call eventfd");
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * vu_set_vring_err() - VU_SET_VRING_ERR: an eventfd for ring errors; we
 * report none that way (a broken ring closes the connection)
 * @vu:		state
 * @m:		message
 *
 * #syscalls close
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_err(struct vu *vu, struct vu_msg *m)
{
	struct vu_pair *p;
	int fd;

	if (!vu_vring_fd(vu, m, &p, &fd))
		return "a bad ring index, or a missing fd";
	pthread_mutex_unlock(&p->lock);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/**
 * vu_set_vring_enable() - VU_SET_VRING_ENABLE: may the data path use a
 * ring (with protocol features, rings start disabled)?
 * @vu:		state
 * @m:		message
 *
 * #syscalls write
 * Return: NULL, or why the message is refused
 */
static const char *vu_set_vring_enable(struct vu *vu, struct vu_msg *m)
{
	struct vu_pair *p;
	struct vu_ring *r = vu_ring_lock(vu, m->state.index, m->state.num <= 1,
					 &p);

	if (!r)
		return "a bad ring index or enable state";
	r->enabled = m->state.num;
	pthread_mutex_unlock(&p->lock);
	/* a pair being enabled may have frames waiting: look now */
	if (r->enabled && (m->state.index & 1) && r->kick >= 0) {
		uint64_t one = 1;

		if (write(r->kick, &one, sizeof(one)) < 0)
			debug("kick injection: %s", strerror(errno));
	}
	return NULL;
}

/**
 * typedef vu_handler_fn - carry out one request
 * @vu:		state
 * @m:		the message, whole and checked against its row of
 *		vu_handlers[] (the fds it brought are in @vu->msg_fds: a
 *		handler takes those it keeps, vu_ctl() closes the rest);
 *		for a request with a reply, the handler writes the reply's
 *		8-byte payload over the message's
 *
 * Return: NULL, or why the message is refused (a protocol violation: the
 * connection closes)
 */
typedef const char *vu_handler_fn(struct vu *vu, struct vu_msg *m);

/**
 * struct vu_handler - a request we serve: its handler, and what a message
 * of it may carry (vu_msg_check())
 * @fn:		handler
 * @min:	smallest payload, bytes
 * @max:	largest payload, bytes
 * @fds:	fds it may bring, at most
 * @reply:	it has a reply of its own, 8 bytes (REPLY_ACK then does not
 *		apply)
 */
struct vu_handler {
	vu_handler_fn *fn;
	uint16_t min, max;
	uint8_t fds;
	bool reply;
};

/* every request we serve; the rest close the connection: we offer no
 * feature that would bring them */
static const struct vu_handler vu_handlers[VU_REQ_NUM] = {
	[VU_GET_FEATURES] = { vu_get_features, 0, 8, 0, true },
	[VU_SET_FEATURES] = { vu_set_features, 8, 8, 0, false },
	[VU_SET_OWNER] = { vu_ignore, 0, 8, 0, false },
	[VU_RESET_OWNER] = { vu_ignore, 0, 8, 0, false },
	[VU_SET_MEM_TABLE] = { vu_set_mem_table, 8 + 32,
			       8 + 32 * VU_MAX_REGIONS, VU_MAX_REGIONS, false },
	[VU_SET_LOG_BASE] = { vu_set_log_base, VU_LOG_BASE_LEN, VU_LOG_BASE_LEN,
			      1, true },
	[VU_SET_LOG_FD] = { vu_set_log_fd, 0, 8, 1, false },
	[VU_SET_VRING_NUM] = { vu_set_vring_num, 8, 8, 0, false },
	[VU_SET_VRING_ADDR] = { vu_set_vring_addr, 40, 40, 0, false },
	[VU_SET_VRING_BASE] = { vu_set_vring_base, 8, 8, 0, false },
	[VU_GET_VRING_BASE] = { vu_get_vring_base, 8, 8, 0, true },
	[VU_SET_VRING_KICK] = { vu_set_vring_kick, 8, 8, 1, false },
	[VU_SET_VRING_CALL] = { vu_set_vring_call, 8, 8, 1, false },
	[VU_SET_VRING_ERR] = { vu_set_vring_err, 8, 8, 1, false },
	[VU_GET_PROTOCOL_FEATURES] = { vu_get_protocol_features, 0, 8, 0,
				       true },
	[VU_SET_PROTOCOL_FEATURES] = { vu_set_protocol_features, 8, 8, 0,
				       false },
	[VU_GET_QUEUE_NUM] = { vu_get_queue_num, 0, 8, 0, true },
	[VU_SET_VRING_ENABLE] = { vu_set_vring_enable, 8, 8, 0, false },
	[VU_SEND_RARP] = { vu_ignore, 8, 8, 0, false },
	[VU_NET_SET_MTU] = { vu_net_set_mtu, 8, 8, 0, false },
	[VU_SET_DEVICE_STATE_FD] = { vu_set_device_state_fd, 8, 8, 1, true },
	/* answered by its handler: at once, or when the verdict is in */
	[VU_CHECK_DEVICE_STATE] = { vu_check_device_state, 0, 8, 0, false },
};

/**
 * vu_recv() - read what has come of the message being received, waiting
 * for nothing
 * @vu:		state
 * @why:	out: the reason, on a violation
 *
 * The header is read first, then exactly the payload it announces, so no
 * read runs into the next message; what has come is kept in @vu->rbuf
 * until the message is whole. Fds may come with any piece: they are kept
 * in @vu->msg_fds, VU_MAX_FDS for the message at most.
 *
 * #syscalls recvmsg close
 * Return: 1 when the message in @vu->rbuf is whole (@vu->rgot bytes), -2
 * if it is not and nothing more is waiting, 0 on end of stream, -1 on a
 * violation (@why)
 */
static int vu_recv(struct vu *vu, const char **why)
{
	char cbuf[CMSG_SPACE(VU_MAX_FDS * sizeof(int))];
	struct cmsghdr *c;
	bool over = false;
	uint32_t size;
	size_t want;
	ssize_t n;

	for (;;) {
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };

		if (vu->rgot < VU_HDR_LEN) {
			want = VU_HDR_LEN - vu->rgot;
		} else {
			memcpy(&size, vu->rbuf + 8, sizeof(size));
			if (size > VU_PAYLOAD_MAX) {
				*why = "an oversized message";
				return -1;
			}
			want = VU_HDR_LEN + size - vu->rgot;
			if (!want)
				return 1;
		}
		iov.iov_base = vu->rbuf + vu->rgot;
		iov.iov_len = want;
		n = recvmsg(vu->ctl, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return -2;
		if (n < 0)
			return 0;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			size_t k, nfd;

			if (c->cmsg_level != SOL_SOCKET ||
			    c->cmsg_type != SCM_RIGHTS)
				continue;
			nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (k = 0; k < nfd; k++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + k * sizeof(int),
				       sizeof(fd));
				if (vu->nfds < VU_MAX_FDS) {
					vu->msg_fds[vu->nfds++] = fd;
				} else {
					close(fd);
					over = true;
				}
			}
		}
		/* truncated: the kernel closed the ones that did not fit */
		if (over || (mh.msg_flags & MSG_CTRUNC)) {
			*why = "more file descriptors than a message may bring";
			return -1;
		}
		if (!n)
			return 0;
		vu->rgot += (uint32_t)n;
	}
}

/**
 * vu_msg_check() - does a whole message follow its request's rule?
 * @vu:	state (the fds that came with it)
 * @m:	message
 *
 * Return: NULL, or the reason it does not (a violation)
 */
static const char *vu_msg_check(const struct vu *vu, const struct vu_msg *m)
{
	if ((m->flags & VU_VERSION_MASK) != VU_VERSION)
		return "a message of another protocol version";
	if (m->req >= VU_REQ_NUM || !vu_handlers[m->req].fn)
		return "a request we do not know";
	if (m->size < vu_handlers[m->req].min ||
	    m->size > vu_handlers[m->req].max)
		return "a payload of the wrong size";
	if (vu->nfds > vu_handlers[m->req].fds)
		return "file descriptors where none belong";
	return NULL;
}

/**
 * vu_send_reply() - answer a message, waiting for nothing
 * @vu:		state
 * @m:		the request
 * @payload:	reply payload
 * @len:	its length
 *
 * A frontend reads its replies; one that does not, and so has let our
 * socket's send buffer fill (thousands of replies), is not waited for:
 * a reply that cannot go whole at once is a violation.
 *
 * #syscalls sendto
 * Return: NULL, or the reason the frontend is sent away
 */
static const char *vu_send_reply(struct vu *vu, const struct vu_msg *m,
				 const void *payload, uint32_t len)
{
	struct vu_msg r = { .req = m->req,
			    .flags = VU_VERSION | VU_FLAG_REPLY,
			    .size = len };
	ssize_t n;

	memcpy(r.raw, payload, len);
	n = send(vu->ctl, &r, VU_HDR_LEN + len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n == (ssize_t)(VU_HDR_LEN + len))
		return NULL;
	if (n >= 0 || errno == EAGAIN)
		return "replies it does not read";
	/* gone: the next read sees the end */
	debug("vhost-user reply: %s", strerror(errno));
	return NULL;
}

/**
 * vu_ctl() - the frontend's socket is readable: handle its messages
 * @e:	edge
 *
 * Messages are gathered piece by piece as they come (vu_recv()), and
 * handled whole: a frontend sending part of one holds up nothing but
 * itself. Each is checked against its row of vu_handlers[] and carried
 * out by the row's handler; then comes its reply, or the REPLY_ACK one
 * when the frontend asked for that. At most VU_CTL_BATCH are handled per
 * call; the socket stays readable for the rest.
 *
 * Context: shard 0
 * Return: 0, or -ECONNRESET if the frontend went away (or was sent away)
 */
static int vu_ctl(struct edge *e)
{
	struct vu *vu = e->priv;
	struct vu_msg m;
	const char *why;
	unsigned done;
	int ret;

	for (done = 0; vu->ctl >= 0 && done < VU_CTL_BATCH; done++) {
		why = NULL;
		ret = vu_recv(vu, &why);
		if (ret == -2)
			return 0;
		if (!ret) {
			vu_drop(vu, "end of connection");
			return -ECONNRESET;
		}
		memset(&m, 0, VU_HDR_LEN + 8);
		memcpy(&m, vu->rbuf, MIN(vu->rgot, sizeof(m)));
		vu->rgot = 0;
		if (ret > 0)
			why = vu_msg_check(vu, &m);
		if (!why)
			why = vu_handlers[m.req].fn(vu, &m);
		vu_msg_fds_close(vu);
		if (!why && vu_handlers[m.req].reply) {
			why = vu_send_reply(vu, &m, m.raw, 8);
		} else if (!why && (m.flags & VU_FLAG_NEED_REPLY) &&
			   (vu->pfeatures & BIT(PF_REPLY_ACK))) {
			uint64_t ok = 0;

			why = vu_send_reply(vu, &m, &ok, 8);
		}
		if (why) {
			char msg[96];

			snprintf(msg, sizeof(msg), "request %u: %s", m.req,
				 why);
			vu_violation(vu, msg);
			return -ECONNRESET;
		}
		VU_CTR(e, 0, EDGE_VU_MESSAGES);
	}
	return vu->ctl >= 0 ? 0 : -ECONNRESET;
}

/**
 * vu_accept() - a frontend connects
 * @e:	edge
 *
 * The connection is non-blocking: shard 0, which serves it, also serves
 * queue pair 0, and waits for no frontend (see vu_ctl()).
 *
 * #syscalls accept4 close
 * Return: EDGE_ACCEPT_CTL if it is now served (poll EDGE_FD_CTL),
 * EDGE_ACCEPT_NONE if refused or none, -errno on failure
 */
static int vu_accept(struct edge *e)
{
	struct vu *vu = e->priv;
	int fd = accept4(vu->listen_fd, NULL, NULL,
			 SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return errno == EAGAIN || errno == EINTR ||
				       errno == ECONNABORTED ?
			       EDGE_ACCEPT_NONE :
			       -errno;
	if (vu->ctl >= 0) {
		warn("a vhost-user frontend is connected already: refused "
		     "another");
		VU_CTR(e, 0, EDGE_REFUSED);
		close(fd);
		return EDGE_ACCEPT_NONE;
	}
	vu->ctl = fd;
	vu->rgot = 0;
	VU_CTR(e, 0, EDGE_CONNECTS);
	info("vhost-user frontend connected to %s", vu->path);
	return EDGE_ACCEPT_CTL;
}

/**
 * vu_hdr_len() - the virtio-net header's size for the negotiated features
 * @f:	features
 *
 * Return: 12 or 10
 */
static unsigned vu_hdr_len(uint64_t f)
{
	return (f & (BIT(F_VERSION_1) | BIT(F_MRG_RXBUF))) ? 12 : 10;
}

/**
 * vu_guest_offloads() - what the shards' cores may do toward the guest
 * @e:		edge
 * @hdr_len:	out: virtio-net header bytes
 * @csum:	out: the guest takes partial checksums (GUEST_CSUM)
 * @gso:	out: the guest takes TSO frames (GUEST_TSO4 and 6)
 * @uso:	out: the guest takes UDP GSO frames (GUEST_USO4 and 6)
 * @uso_in:	out: the guest may send UDP GSO frames (HOST_USO, with the
 *		CSUM it needs: virtio 5.1.3.1)
 */
static void vu_guest_offloads(const struct edge *e, unsigned *hdr_len,
			      bool *csum, bool *gso, bool *uso, bool *uso_in)
{
	const struct vu *vu = e->priv;
	/* no lock: see VU_SET_FEATURES */
	uint64_t f = vu_features(vu);

	*hdr_len = vu_hdr_len(f);
	*csum = !!(f & BIT(F_GUEST_CSUM));
	*gso = *csum && (f & BIT(F_GUEST_TSO4)) && (f & BIT(F_GUEST_TSO6));
	*uso = *csum && (f & BIT(F_GUEST_USO4)) && (f & BIT(F_GUEST_USO6));
	*uso_in = (f & BIT(F_HOST_USO)) && (f & BIT(F_CSUM));
}

/**
 * vu_ring_ready() - may the data path use this ring now?
 * @r:	ring
 *
 * Return: true if started and enabled
 */
static bool vu_ring_ready(const struct vu_ring *r)
{
	return r->started && r->enabled;
}

/**
 * vu_ring_broken() - a ring broke the virtqueue rules: stop it, and have
 * the control path close the connection (lock held)
 * @vu:		state
 * @p:		pair
 * @r:		ring
 * @q:		queue pair index, for the counters
 *
 * #syscalls shutdown
 */
static void vu_ring_broken(struct vu *vu, struct vu_pair *p, struct vu_ring *r,
			   unsigned q)
{
	warn("vhost-user: the guest's queue %u broke the virtqueue rules: "
	     "closing the frontend's connection",
	     2 * q + (unsigned)(r - p->ring));
	VU_CTR(vu->e, q, EDGE_VU_RING_ERRORS);
	vu_ring_stop(p, r);
	/* shard 0 sees the end of the stream and does the rest */
	if (vu->ctl >= 0)
		shutdown(vu->ctl, SHUT_RDWR);
}

static void vu_backlog_drain(struct vu *vu, struct vu_pair *p, unsigned q);

/**
 * vu_notify() - signal the guest about a ring's used entries, if it wants
 * @e:	edge
 * @q:	queue pair of @r, for the counters
 * @r:	ring (lock held)
 *
 * The dirty-log marks the ring made since the last call are counted.
 *
 * #syscalls write
 */
static void vu_notify(struct edge *e, unsigned q, struct vu_ring *r)
{
	uint64_t one = 1;

	virtq_publish(&r->vq);
	if (r->vq.log_marks | r->vq.log_skips) {
		if (e->qctr[q]) {
			ctr_add(&e->qctr[q][CTR_EDGE_VU_LOG_MARKS],
				r->vq.log_marks);
			ctr_add(&e->qctr[q][CTR_EDGE_VU_LOG_SKIPS],
				r->vq.log_skips);
		}
		r->vq.log_marks = r->vq.log_skips = 0;
	}
	if (r->call >= 0 && virtq_should_notify(&r->vq) &&
	    write(r->call, &one, sizeof(one)) < 0)
		debug("call write: %s", strerror(errno));
}

/**
 * vu_rx_view() - the view of one frame the guest sent: its headers (and
 * anything the core may parse) copied out of guest memory, TCP payload
 * left there
 * @e:		edge
 * @q:		queue pair
 * @n:		the frame's place in the batch: its slot of the pair's
 *		@rxbuf holds the copy
 * @el:		the frame's chain
 * @hl:		virtio-net header bytes
 *
 * The guest can rewrite its buffers while we read them, so the core sees
 * only copies (struct pkt_view): a one-buffer frame longer than
 * VU_HDR_COPY bytes that is a TCP segment has its headers copied and its
 * payload loaned (EDGE_VU_LOANS); any other frame is copied whole, up to
 * @e->frame_max (EDGE_VU_COPIES), as is every frame when @e->rx_whole.
 * Each guest byte is read once.
 *
 * Context: the pair's shard, its lock held
 * Return: the view, valid until rx_done
 */
static struct pkt_view vu_rx_view(struct edge *e, unsigned q, unsigned n,
				  const struct virtq_elem *el, unsigned hl)
{
	const struct vu *vu = e->priv;
	uint8_t *b = vu->pair[q].rxbuf + (size_t)n * e->frame_max;
	const uint8_t *g = el->iov[0].iov_base;
	size_t glen = el->iov[0].iov_len, off = 0, split;
	unsigned k;

	if (el->niov == 1 && !e->rx_whole && glen > VU_HDR_COPY) {
		memcpy(b, g, VU_HDR_COPY);
		split = pkt_payload_off(b, VU_HDR_COPY, hl);
		if (split) {
			VU_CTR(e, q, EDGE_VU_LOANS);
			return (struct pkt_view){ .p = b,
						  .len = split,
						  .tail = g + split,
						  .tail_len = glen - split };
		}
		off = VU_HDR_COPY; /* not a TCP segment: the rest too */
	}
	for (k = 0; k < el->niov && off < e->frame_max; k++) {
		size_t l = el->iov[k].iov_len, skip = 0;

		if (!k && off) /* the copied head of a one-buffer frame */
			skip = off;
		if (l <= skip)
			continue;
		l -= skip;
		if (l > e->frame_max - off)
			l = e->frame_max - off;
		memcpy(b + off, (const uint8_t *)el->iov[k].iov_base + skip, l);
		off += l;
	}
	VU_CTR(e, q, EDGE_VU_COPIES);
	return (struct pkt_view){ .p = b, .len = off };
}

/**
 * vu_rx() - frames the guest sent: chains of its transmit ring
 * @e:		edge
 * @q:		queue pair
 * @v:		views out: copies, with TCP payload loaned (vu_rx_view())
 * @max:	at most this many
 *
 * No new loans are taken while the control path waits to change the
 * memory (vu_lock_all()): the shard comes back for them after it.
 *
 * #syscalls read epoll_wait
 * Return: frames (0 if none)
 */
static int vu_rx(struct edge *e, unsigned q, struct pkt_view *v, unsigned max)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];
	struct vu_ring *r = &p->ring[1];
	struct epoll_event ev[2];
	struct virtq_elem el;
	unsigned n = 0;
	uint64_t cnt;
	int ret, nev, i;

	/* the kicks: clear them (the inner epoll reports them until read) */
	nev = epoll_wait(p->epfd, ev, 2, 0);
	pthread_mutex_lock(&p->lock);
	p->starved = false; /* a wake-up: look for buffers again */
	for (i = 0; i < nev; i++) {
		int kfd = p->ring[ev[i].data.u32 & 1].kick;

		if (kfd >= 0 && read(kfd, &cnt, sizeof(cnt)) < 0)
			debug("kick read: %s", strerror(errno));
	}
	/* the guest added receive buffers: held frames go in */
	if (p->bstart < p->bend && vu_ring_ready(&p->ring[0])) {
		vu_backlog_drain(vu, p, q);
		if (p->rx_dirty)
			vu_notify(e, q, &p->ring[0]);
		p->rx_dirty = false;
	}
	e->rx_pending[q] = false;
	if (p->waiter) {
		e->rx_pending[q] = true;
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	if (!vu_ring_ready(r) || p->nloans) {
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	if (max > EDGE_RX_BATCH)
		max = EDGE_RX_BATCH;
	virtq_kick_enable(&r->vq, false);
	while (n < max) {
		ret = virtq_pop(&r->vq, &vu->mem, false, &el);
		if (ret < 0) {
			vu_ring_broken(vu, p, r, q);
			break;
		}
		if (!ret) {
			/* empty: kicks wanted again, then one more look for
			 * a chain added before the guest saw that */
			virtq_kick_enable(&r->vq, true);
			if (virtq_avail(&r->vq)) {
				VU_CTR(e, q, EDGE_VU_KICK_RACE);
				virtq_kick_enable(&r->vq, false);
				continue;
			}
			break;
		}
		p->loan_heads[p->nloans++] = el.head;
		v[n] = vu_rx_view(e, q, n, &el, vu_hdr_len(vu_features(vu)));
		n++;
	}
	if (n == max)
		e->rx_pending[q] = true;
	pthread_mutex_unlock(&p->lock);
	return (int)n;
}

/**
 * vu_rx_done() - the batch is done with: return its chains to the guest
 * @e:		edge
 * @q:		queue pair
 */
static void vu_rx_done(struct edge *e, unsigned q)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];
	struct vu_ring *r = &p->ring[1];
	unsigned i;

	pthread_mutex_lock(&p->lock);
	if (p->nloans && r->started) {
		for (i = 0; i < p->nloans; i++)
			virtq_push(&r->vq, p->loan_heads[i], 0);
		vu_notify(e, q, r);
	}
	if (e->qctr[q])
		ctr_add(&e->qctr[q][CTR_EDGE_VU_RETURNS], p->nloans);
	p->nloans = 0;
	/* the control path waits to unmap guest memory (vu_lock_all) */
	if (p->waiter)
		pthread_cond_broadcast(&p->idle);
	pthread_mutex_unlock(&p->lock);
}

/**
 * vu_place() - copy a frame into the guest's receive chains (lock held)
 * @vu:		state
 * @p:		pair
 * @q:		its index
 * @src:	the frame, virtio-net header first
 * @len:	its length
 *
 * Return: 0, -ENOBUFS if the guest has no room now (nothing taken), or
 * -EIO if its ring broke the rules
 */
static int vu_place(struct vu *vu, struct vu_pair *p, unsigned q,
		    const uint8_t *src, size_t len)
{
	struct vu_ring *r = &p->ring[0];
	uint64_t f = vu_features(vu);
	bool mrg = f & BIT(F_MRG_RXBUF);
	uint16_t heads[VIRTQ_MAX_IOV];
	uint32_t lens[VIRTQ_MAX_IOV];
	uint8_t *nbuf = NULL;
	unsigned nb = 0, k;
	struct virtq_elem el;
	size_t off = 0;
	int ret;

	while (off < len) {
		size_t put = 0;

		if (nb == VIRTQ_MAX_IOV || (nb && !mrg))
			goto nobuf;
		ret = virtq_pop(&r->vq, &vu->mem, true, &el);
		if (ret < 0) {
			vu_ring_broken(vu, p, r, q);
			return -EIO;
		}
		if (!ret)
			goto nobuf;
		for (k = 0; k < el.niov && off < len; k++) {
			size_t l = el.iov[k].iov_len;

			if (l > len - off)
				l = len - off;
			if (!nb && !put && el.iov[k].iov_len >= 12)
				nbuf = el.iov[k].iov_base;
			memcpy(el.iov[k].iov_base, src + off, l);
			off += l;
			put += l;
		}
		heads[nb] = el.head;
		lens[nb++] = (uint32_t)put;
	}
	/* num_buffers: the header's last two bytes, in the first buffer */
	if (mrg && vu_hdr_len(f) == 12) {
		if (!nbuf)
			goto nobuf;
		nbuf[10] = (uint8_t)nb;
		nbuf[11] = (uint8_t)(nb >> 8);
	}
	for (k = 0; k < nb; k++)
		virtq_push(&r->vq, heads[k], lens[k]);
	p->rx_dirty = true;
	return 0;
nobuf:
	/* give back what we took: nothing of it was pushed */
	virtq_unpop(&r->vq, nb);
	return -ENOBUFS;
}

/**
 * vu_backlog_drain() - move held frames into the guest's receive ring, as
 * far as it has room (lock held)
 * @vu:		state
 * @p:		pair
 * @q:		its index
 *
 * When the backlog empties, the guest's receive kicks are not wanted any
 * more; while it does not, they are: the guest adding buffers wakes us.
 */
static void vu_backlog_drain(struct vu *vu, struct vu_pair *p, unsigned q)
{
	struct vu_ring *r = &p->ring[0];

	if (!r->started)
		return;
	for (;;) {
		uint16_t seen;

		while (p->bstart < p->bend) {
			uint32_t len;

			memcpy(&len, p->backlog + p->bstart, 4);
			if (vu_place(vu, p, q, p->backlog + p->bstart + 4, len))
				break;
			p->bstart += 4 + len;
		}
		if (p->bstart == p->bend) {
			p->bstart = p->bend = 0;
			virtq_kick_enable(&r->vq, false);
			return;
		}
		/* frames wait: a kick wanted when the guest adds buffers
		 * beyond those there now (too few for the next frame), and
		 * one more look for any it added before it saw that */
		seen = virtq_kick_on_more(&r->vq);
		if ((uint16_t)(virtq_avail(&r->vq) + r->vq.last_avail) == seen)
			return;
		VU_CTR(vu->e, q, EDGE_VU_KICK_RACE);
	}
}

/**
 * vu_tx() - a frame for the guest: into its receive ring, or held until
 * it has room
 * @e:		edge
 * @q:		queue pair
 * @iov:	the frame, virtio-net header first
 * @iovcnt:	entries (1)
 *
 * Frames wait in order in a per-pair backlog (QVU_BACKLOG bytes) while
 * the guest's ring is full, and go in when it adds buffers (its kick on
 * the receive ring wakes the shard). Only a full backlog drops a frame
 * (EDGE_VU_RX_NOBUF; TCP resends it).
 *
 * Return: 0, -EIO if the ring is not running, -ENOBUFS if dropped,
 * -EMSGSIZE
 */
static int vu_tx(struct edge *e, unsigned q, const struct iovec *iov,
		 int iovcnt)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];
	struct vu_ring *r = &p->ring[0];
	size_t len = iov[0].iov_len;
	int ret = 0;

	if (iovcnt != 1 || len > e->frame_max)
		return -EMSGSIZE;
	pthread_mutex_lock(&p->lock);
	if (!vu_ring_ready(r)) {
		pthread_mutex_unlock(&p->lock);
		return -EIO;
	}
	if (p->bstart < p->bend)
		vu_backlog_drain(vu, p, q);
	if (p->bstart == p->bend) {
		ret = vu_place(vu, p, q, iov[0].iov_base, len);
		if (ret != -ENOBUFS) {
			pthread_mutex_unlock(&p->lock);
			return ret;
		}
	}
	if (p->bend + 4 + len > QVU_BACKLOG && p->bstart) {
		memmove(p->backlog, p->backlog + p->bstart,
			p->bend - p->bstart);
		p->bend -= p->bstart;
		p->bstart = 0;
	}
	if (p->bend + 4 + len > QVU_BACKLOG) {
		VU_CTR(e, q, EDGE_VU_RX_NOBUF);
		pthread_mutex_unlock(&p->lock);
		return -ENOBUFS;
	}
	if (p->bstart == p->bend)
		VU_CTR(e, q, EDGE_VU_RX_HELD);
	memcpy(p->backlog + p->bend, &(uint32_t){ (uint32_t)len }, 4);
	memcpy(p->backlog + p->bend + 4, iov[0].iov_base, len);
	p->bend += 4 + len;
	/* asks for the guest's kick, and catches buffers it just added */
	vu_backlog_drain(vu, p, q);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/**
 * vu_flush() - publish the receive ring's used entries, signal the guest
 * @e:		edge
 * @q:		queue pair
 *
 * Return: 0
 */
static int vu_flush(struct edge *e, unsigned q)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];

	pthread_mutex_lock(&p->lock);
	if (p->rx_dirty && p->ring[0].started)
		vu_notify(e, q, &p->ring[0]);
	p->rx_dirty = false;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/**
 * vu_tx_full() - are frames waiting for room in the guest's receive ring,
 * or did it have none for a frame to be placed?
 * @e:	edge
 * @q:	queue pair
 *
 * Context: the pair's shard. It changes the backlog, and so does the
 * control path when the frontend goes away (vu_reset()): read under the
 * pair's lock (uncontended but for that moment)
 * Return: true if so
 */
static bool vu_tx_full(const struct edge *e, unsigned q)
{
	struct vu_pair *p = &((struct vu *)e->priv)->pair[q];
	bool full;

	pthread_mutex_lock(&p->lock);
	full = p->bend - p->bstart > QVU_FULL || p->starved;
	pthread_mutex_unlock(&p->lock);
	return full;
}

/**
 * vu_reserve() - take the guest's receive chains for a frame whose payload
 * the caller will write in place
 * @e:		edge
 * @q:		queue pair
 * @slot:	the frame slot the frame's headers are built in
 * @hdr:	header bytes to leave room for
 * @max:	payload bytes wanted at most
 * @iov:	out: the payload's place in guest memory
 * @iovmax:	entries @iov has
 *
 * Held frames go first: while any wait, nothing is reserved. Fewer
 * chains than @max needs is fine (the caller writes less). An empty ring
 * asks the guest for a kick when it adds buffers (and looks once more,
 * for buffers added before it could see that), and makes vu_tx_full()
 * say so until the shard's next wake-up: frames wait in the host socket,
 * not in a copy.
 *
 * Return: entries in @iov, with the pair locked until vu_reserve_end();
 * -EBUSY if the ring is empty (stop producing), -ENOBUFS if frames are
 * held or the chains are too small to be worth it (copy this one), -EIO
 * if the ring is not running or broke the rules, -EINVAL for a @slot or
 * @hdr out of range (not locked on any error)
 */
static int vu_reserve(struct edge *e, unsigned q, unsigned slot, size_t hdr,
		      size_t max, struct iovec *iov, unsigned iovmax)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];
	struct vu_ring *r = &p->ring[0];
	uint64_t f = vu_features(vu);
	bool mrg = f & BIT(F_MRG_RXBUF);
	struct vu_placed *pl;
	size_t want = hdr + max, got = 0;
	struct virtq_elem el;
	unsigned n = 0, k;
	int ret = -ENOBUFS;

	if (slot >= EDGE_PLACE_SLOTS || hdr > VU_PLACE_HDR_MAX)
		return -EINVAL;
	pl = &p->placed[slot];
	pthread_mutex_lock(&p->lock);
	if (!vu_ring_ready(r)) {
		ret = -EIO;
		goto out;
	}
	if (p->bstart < p->bend) {
		vu_backlog_drain(vu, p, q);
		if (p->bstart < p->bend)
			goto out;
	}
	pl->nb = pl->nhiov = 0;
	pl->hdr = hdr;
	pl->epoch = p->epoch;
	while (got < want && n < iovmax && pl->nb < EDGE_PLACE_IOV &&
	       (!pl->nb || mrg)) {
		size_t cap = 0;

		ret = virtq_pop(&r->vq, &vu->mem, true, &el);
		if (ret < 0) {
			vu_ring_broken(vu, p, r, q);
			ret = -EIO;
			goto out;
		}
		if (!ret && !pl->nb) {
			uint16_t seen = virtq_kick_on_more(&r->vq);

			p->rx_kicks = true;
			if ((uint16_t)(virtq_avail(&r->vq) +
				       r->vq.last_avail) != seen) {
				VU_CTR(e, q, EDGE_VU_KICK_RACE);
				continue;
			}
			p->starved = true;
			ret = -EBUSY;
			goto out;
		}
		if (!ret)
			break;
		for (k = 0; k < el.niov && got < want && n < iovmax; k++) {
			uint8_t *b = el.iov[k].iov_base;
			size_t l = el.iov[k].iov_len, h;

			if (got < hdr) {
				if (pl->nhiov == ARRAY_SIZE(pl->hiov))
					break;
				h = MIN(l, hdr - got);
				pl->hiov[pl->nhiov].iov_base = b;
				pl->hiov[pl->nhiov++].iov_len = h;
				b += h;
				l -= h;
				got += h;
				cap += h;
			}
			if (got < hdr || !l)
				continue;
			l = MIN(l, want - got);
			iov[n].iov_base = b;
			iov[n++].iov_len = l;
			got += l;
			cap += l;
		}
		pl->heads[pl->nb] = el.head;
		pl->cap[pl->nb++] = (uint32_t)cap;
		if (got < hdr)
			break; /* the headers must fit in the first chain */
	}
	if (got > hdr) {
		if (p->rx_kicks) {
			/* buffers again: no kicks needed while we find some */
			virtq_kick_enable(&r->vq, false);
			p->rx_kicks = false;
		}
		return (int)n; /* locked until vu_reserve_end() */
	}
	/* nothing worth it: give back what we took, the last taken */
	virtq_unpop(&r->vq, pl->nb);
	pl->nb = 0;
	ret = -ENOBUFS;
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}

/**
 * vu_reserve_end() - the payload is in: keep the chains it took, give
 * back the rest
 * @e:		edge
 * @q:		queue pair
 * @slot:	the reservation's frame slot
 * @len:	payload bytes written (0: the frame is not made)
 *
 * The chains given back are the last ones taken from the ring (the pair
 * was locked since), so the ring's next-index simply steps back.
 */
static void vu_reserve_end(struct edge *e, unsigned q, unsigned slot,
			   size_t len)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];
	struct vu_placed *pl = &p->placed[slot];
	size_t left = len ? pl->hdr + len : 0;
	unsigned i, keep = 0;

	for (i = 0; i < pl->nb && left; i++) {
		pl->used[i] = (uint32_t)MIN(left, pl->cap[i]);
		left -= pl->used[i];
		keep = i + 1;
	}
	virtq_unpop(&p->ring[0].vq, pl->nb - keep);
	pl->nb = keep;
	pthread_mutex_unlock(&p->lock);
}

/**
 * vu_tx_placed() - a placed frame is complete: its headers go in front of
 * its payload, its chains into the used ring
 * @e:		edge
 * @q:		queue pair
 * @slot:	the frame slot holding its headers
 * @frame:	the slot (headers first)
 * @len:	the whole frame's length
 *
 * Return: 0, or -EIO if the ring stopped since the reservation (the frame
 * is lost: EDGE_VU_PLACE_STALE)
 */
static int vu_tx_placed(struct edge *e, unsigned q, unsigned slot,
			const uint8_t *frame, size_t len)
{
	struct vu *vu = e->priv;
	struct vu_pair *p = &vu->pair[q];
	struct vu_ring *r = &p->ring[0];
	struct vu_placed *pl = &p->placed[slot];
	uint8_t hdr[VU_PLACE_HDR_MAX];
	uint64_t f;
	size_t off = 0;
	unsigned i;

	ASSERT(slot < EDGE_PLACE_SLOTS && pl->nb && len >= pl->hdr);
	memcpy(hdr, frame, pl->hdr);
	/* num_buffers: the header's last two bytes */
	f = vu_features(vu);
	if ((f & BIT(F_MRG_RXBUF)) && vu_hdr_len(f) == 12) {
		hdr[10] = (uint8_t)pl->nb;
		hdr[11] = (uint8_t)(pl->nb >> 8);
	}
	pthread_mutex_lock(&p->lock);
	if (pl->epoch != p->epoch || !vu_ring_ready(r)) {
		pthread_mutex_unlock(&p->lock);
		pl->nb = 0;
		VU_CTR(e, q, EDGE_VU_PLACE_STALE);
		return -EIO;
	}
	for (i = 0; i < pl->nhiov; i++) {
		memcpy(pl->hiov[i].iov_base, hdr + off, pl->hiov[i].iov_len);
		off += pl->hiov[i].iov_len;
	}
	for (i = 0; i < pl->nb; i++)
		virtq_push(&r->vq, pl->heads[i], pl->used[i]);
	pl->nb = 0;
	p->rx_dirty = true;
	VU_CTR(e, q, EDGE_VU_PLACED);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/**
 * vu_running() - are a pair's rings running?
 * @e:		edge
 * @q:		queue pair
 *
 * Context: the pair's shard; read under the pair's lock
 * Return: true when both are started and enabled
 */
static bool vu_running(const struct edge *e, unsigned q)
{
	struct vu_pair *p = &((struct vu *)e->priv)->pair[q];
	bool run;

	pthread_mutex_lock(&p->lock);
	run = vu_ring_ready(&p->ring[0]) && vu_ring_ready(&p->ring[1]);
	pthread_mutex_unlock(&p->lock);
	return run;
}

/**
 * vu_fd() - the fd of a role
 * @e:		edge
 * @which:	role
 * @q:		queue pair, for EDGE_FD_QUEUE
 *
 * Context: EDGE_FD_CTL: shard 0 (the control path changes it)
 * Return: the pair's epoll fd (EDGE_FD_QUEUE), the listening socket, the
 * frontend's connection, the socket file's directory, or -1 if none
 */
static int vu_fd(const struct edge *e, enum edge_fd which, unsigned q)
{
	const struct vu *vu = e->priv;

	switch (which) {
	case EDGE_FD_QUEUE:
		return vu->pair[q].epfd;
	case EDGE_FD_LISTEN:
		return vu->listen_fd;
	case EDGE_FD_CTL:
		return vu->ctl;
	case EDGE_FD_DIR:
		return vu->dirfd;
	default:
		return -1;
	}
}

/**
 * vu_fini() - close everything
 * @e:	edge
 *
 * #syscalls close
 */
static void vu_fini(struct edge *e)
{
	struct vu *vu = e->priv;
	unsigned i;

	if (!vu)
		return;
	if (vu->ctl >= 0)
		close(vu->ctl);
	vu->ctl = -1;
	vu_reset(vu);
	for (i = 0; i < vu->npairs; i++) {
		close(vu->pair[i].epfd);
		free(vu->pair[i].backlog);
		free(vu->pair[i].placed);
		free(vu->pair[i].rxbuf);
	}
	if (vu->listen_fd >= 0)
		close(vu->listen_fd);
	if (*vu->path)
		qsock_path_unlink(vu->dirfd, vu->path);
	free(vu);
	e->priv = NULL;
}

static const struct edge_ops vu_ops = {
	.name = "vhost-user",
	.rx = vu_rx,
	.tx = vu_tx,
	.fd = vu_fd,
	.fini = vu_fini,
	.accept = vu_accept,
	.flush = vu_flush,
	.ctl = vu_ctl,
	.rx_done = vu_rx_done,
	.offloads = vu_guest_offloads,
	.tx_full = vu_tx_full,
	.place = vu_reserve,
	.place_end = vu_reserve_end,
	.tx_placed = vu_tx_placed,
	.running = vu_running,
};

/**
 * vu_edge_make() - the vhost-user edge, with no frontend and no socket yet
 * @e:		edge to fill (zeroed)
 * @a:		@nqueues (queue pairs to offer, one shard each), @offload
 *		(offer checksum and segmentation offloads), @mtu, @ctr
 *
 * #syscalls:setup epoll_create1
 * Return: the edge's state, or NULL if out of memory
 */
static struct vu *vu_edge_make(struct edge *e, const struct edge_args *a)
{
	struct vu *vu = calloc(1, sizeof(*vu));
	unsigned i;

	if (!vu)
		return NULL;
	e->ops = &vu_ops;
	e->priv = vu;
	e->nqueues = a->nqueues;
	e->vnet_hdr_len = 12;
	e->frame_max = 12 + 65536 + 64;
	e->reconnect = true;
	e->qctr[0] = a->ctr;
	vu->e = e;
	vu->dirfd = -1;
	vu->listen_fd = -1;
	vu->ctl = -1;
	vu->npairs = a->nqueues;
	vu->offload = a->offload;
	vu->mtu = a->mtu;
	for (i = 0; i < vu->npairs; i++) {
		struct vu_pair *p = &vu->pair[i];

		pthread_mutex_init(&p->lock, NULL);
		pthread_cond_init(&p->idle, NULL);
		p->ring[0].kick = p->ring[0].call = -1;
		p->ring[1].kick = p->ring[1].call = -1;
		p->epfd = epoll_create1(EPOLL_CLOEXEC);
		p->rxbuf = malloc(EDGE_RX_BATCH * e->frame_max);
		p->backlog = malloc(QVU_BACKLOG);
		p->placed = calloc(EDGE_PLACE_SLOTS, sizeof(*p->placed));
		if (p->epfd < 0 || !p->rxbuf || !p->backlog || !p->placed)
			return NULL;
	}
	return vu;
}

/**
 * vu_edge_connected() - the frontend came connected on @fd (QEMU 10.1
 * -netdev passt,vhost-user=on: passt --vhost-user --fd 3)
 * @vu:		state
 * @fd:		connected unix stream socket; on 0 the edge owns it
 *		(vu_fini() closes it), on error the caller still does
 *
 * There is no listening socket and no socket file: when this frontend
 * leaves, nobody else can come, so the edge does not wait for one
 * (@e->reconnect is false) and the event loop ends.
 *
 * #syscalls:setup getsockopt fcntl
 * Return: 0, or -errno (logged)
 */
static int vu_edge_connected(struct vu *vu, int fd)
{
	socklen_t sl = sizeof(int);
	int v = 0, fl, ret;

	vu->e->reconnect = false;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &sl) || v != AF_UNIX ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &sl) || v != SOCK_STREAM) {
		err("--vhost-user --fd %d: not a unix stream socket", fd);
		return -ENOTSOCK;
	}
	/* non-blocking, as vu_accept() makes an accepted one */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		ret = -errno;
		err_perror("--vhost-user --fd %d", fd);
		return ret;
	}
	vu->ctl = fd;
	vu->rgot = 0;
	VU_CTR(vu->e, 0, EDGE_CONNECTS);
	info("vhost-user frontend connected on fd %d", fd);
	return 0;
}

/**
 * vu_edge_init() - the vhost-user edge: --vhost-user listening at @a->path,
 * or its frontend already connected on @a->fd
 * @e:		edge to fill (zeroed)
 * @a:		@path or @fd (see vu_edge_connected()), @nqueues (queue
 *		pairs to offer, one shard each), @offload (offer checksum
 *		and segmentation offloads), @mtu (our MTU), @ctr (counters of
 *		shard 0, which serves the control connection)
 *
 * Return: 0, or -errno (logged)
 */
int vu_edge_init(struct edge *e, const struct edge_args *a)
{
	struct vu *vu;

	/* the host sets them after init */
	e->mig_evfd = e->mig_state_fd = e->mig_state_reply_fd = -1;
	e->mig_state_result = 1; /* no transfer */
	vu = vu_edge_make(e, a);
	if (!vu)
		return -ENOMEM;
	if (!a->path) {
		snprintf(e->where, sizeof(e->where),
			 "vhost-user socket fd %d (%u queue pair(s))", a->fd,
			 vu->npairs);
		return vu_edge_connected(vu, a->fd);
	}
	snprintf(e->where, sizeof(e->where),
		 "vhost-user socket %s (%u queue pair(s))", a->path,
		 vu->npairs);
	vu->listen_fd = qsock_listen(a->path);
	if (vu->listen_fd < 0)
		return vu->listen_fd;
	/* ours to remove at exit only now */
	snprintf(vu->path, sizeof(vu->path), "%s", a->path);
	vu->dirfd = qsock_path_dir(a->path);
	return 0;
}
