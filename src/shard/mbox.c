/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mbox.c - mailboxes between shards: frames, accepted connections and
 * adopted flows
 *
 * DOC: Theory of Operation
 *
 * Each shard has one single-producer single-consumer byte ring per other
 * shard (the sender is the only writer of @head, the owner the only writer
 * of @tail), and an eventfd. A sender copies a message (header, then the
 * frame) into the ring, publishes it with a release store of @head, and
 * kicks the owner's eventfd once per batch (mbox_kick() from
 * shard_end_of_batch()). The owner drains every ring when the eventfd is
 * readable. Messages take the bytes they need, so a ring holds a burst of
 * thousands of small frames (a DNS burst all landing on one queue) or
 * dozens of 64 KiB ones. No locks; a full ring refuses the message, which
 * is counted (a frame is dropped and the guest retransmits; a connection
 * is served by the sender instead, a flow to adopt stays with it).
 *
 * This is the slow path by design: tun's automatic flow steering sends a flow's
 * frames to the queue its shard last wrote to, so only the odd frame crosses
 * (docs/design.md, "Who owns a flow"). Under connection churn tun's flow table
 * (4096 flows, kept 3 s) is full and a new flow's frames go by the kernel's
 * hash instead, to a queue no shard can predict. A flow the guest opens is
 * owned where its SYN lands, so that is its queue. A published port's
 * connection gets its owner before the guest has sent anything; if the guest's
 * SYN-ACK lands on another shard, the frame is passed to the owner, which hands
 * the flow there (MBOX_ADOPT: socket, sequence numbers, the frame), and its
 * later frames land where it now lives.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "shard/mbox.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "util/log.h"

enum mbox_kind {
	MBOX_FRAME,
	MBOX_ACCEPT,
	MBOX_ADOPT, /* a flow in its handshake, and the frame for it */
	MBOX_WRAP,  /* the rest of the ring is unused: go on at its start */
};

/**
 * struct mbox_msg - a slot's header; a frame's bytes follow it
 * @kind:	enum mbox_kind
 * @hop:	MBOX_FRAME: shards that passed the frame on so far
 * @guest_port:	MBOX_ACCEPT: the published port's guest port
 * @len:	MBOX_FRAME: frame bytes (vnet header included)
 * @fd:		MBOX_ACCEPT: the accepted socket, now the receiver's
 * @sa:		MBOX_ACCEPT: the client's address
 * @gaddr_set:	MBOX_ACCEPT: the port has a guest address of its own
 * @gaddr:	MBOX_ACCEPT: with @gaddr_set, that address (ADDR_LEN bytes)
 * @ho:		MBOX_ADOPT: the flow (@fd its socket, @len the frame's bytes)
 */
struct mbox_msg {
	uint8_t kind;
	uint8_t hop;
	uint16_t guest_port;
	uint32_t len;
	int fd;
	struct sockaddr_storage sa;
	bool gaddr_set;
	uint8_t gaddr[ADDR_LEN];
	struct tcp_handover ho;
};

#define MBOX_ALIGN 64
#define MBOX_HDR ((sizeof(struct mbox_msg) + 15) & ~(size_t)15)

/**
 * mbox_init() - the shard's receiving rings and eventfd
 * @sh:	shard (edge and group set)
 *
 * Ring memory is reserved here and touched only when messages use it. A
 * group of one has neither (mbox_kick_fd() makes the eventfd).
 *
 * #syscalls:setup eventfd2
 * Return: 0, or -errno
 */
int mbox_init(struct shard *sh)
{
	unsigned i;

	sh->peers.mbox_fd = -1;
	if (sh->grp->n < 2)
		return 0;
	for (i = 0; i < sh->grp->n; i++) {
		struct mbox_ring *r = &sh->peers.mbox[i];

		if (i == sh->id)
			continue;
		r->buf = malloc(MBOX_BYTES);
		if (!r->buf)
			return -ENOMEM;
	}
	sh->peers.mbox_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sh->peers.mbox_fd < 0)
		return -errno;
	if (shard_ep_add(sh, sh->peers.mbox_fd, EPOLLIN, EP_DATA(EP_MBOX, 0)))
		return -errno;
	return 0;
}

/**
 * mbox_kick_fd() - make sure the shard has its eventfd, rings or not: the
 * control thread kicks it to have a request looked at (struct flow_snap,
 * struct shard_call), and a shard without siblings has none otherwise
 * @sh:	shard (after mbox_init())
 *
 * #syscalls:setup eventfd2 epoll_ctl close
 * Return: 0, or -errno
 */
int mbox_kick_fd(struct shard *sh)
{
	if (sh->peers.mbox_fd >= 0)
		return 0;
	sh->peers.mbox_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sh->peers.mbox_fd < 0)
		return -errno;
	if (shard_ep_add(sh, sh->peers.mbox_fd, EPOLLIN, EP_DATA(EP_MBOX, 0))) {
		close(sh->peers.mbox_fd);
		sh->peers.mbox_fd = -1;
		return -errno;
	}
	return 0;
}

/**
 * mbox_at() - the message at a ring position
 * @r:	ring
 * @t:	position (free-running)
 *
 * Return: the message, or NULL where the producer wrapped (too little room
 *	   before the end of the ring for a header, or a MBOX_WRAP header)
 */
static struct mbox_msg *mbox_at(const struct mbox_ring *r, uint64_t t)
{
	size_t off = (size_t)(t % MBOX_BYTES);
	struct mbox_msg *m;

	if (MBOX_BYTES - off < MBOX_HDR)
		return NULL;
	m = (struct mbox_msg *)(void *)(r->buf + off);
	return m->kind == MBOX_WRAP ? NULL : m;
}

/**
 * mbox_size() - ring bytes a message takes
 * @m:	message, or NULL for the wrapped end of the ring
 * @t:	its position
 *
 * Return: bytes to advance
 */
static uint64_t mbox_size(const struct mbox_msg *m, uint64_t t)
{
	size_t len = MBOX_HDR +
		     (m && (m->kind == MBOX_FRAME || m->kind == MBOX_ADOPT) ?
			      m->len :
			      0);

	if (!m)
		return MBOX_BYTES - t % MBOX_BYTES;
	return (len + MBOX_ALIGN - 1) & ~(uint64_t)(MBOX_ALIGN - 1);
}

/**
 * mbox_fini() - free the rings; close sockets still waiting in them
 * @sh:	shard (the other shards have stopped)
 *
 * #syscalls close
 */
void mbox_fini(struct shard *sh)
{
	unsigned i;

	for (i = 0; i < SHARDS_MAX; i++) {
		struct mbox_ring *r = &sh->peers.mbox[i];
		uint64_t t, h = atomic_load(&r->head);
		struct mbox_msg *m;

		for (t = atomic_load(&r->tail); r->buf && t != h;
		     t += mbox_size(m, t)) {
			m = mbox_at(r, t);
			if (m &&
			    (m->kind == MBOX_ACCEPT || m->kind == MBOX_ADOPT))
				close(m->fd);
		}
		free(r->buf);
		r->buf = NULL;
	}
	if (sh->peers.mbox_fd >= 0)
		close(sh->peers.mbox_fd);
	sh->peers.mbox_fd = -1;
}

/**
 * mbox_reserve() - room for a message in our ring at shard @to
 * @sh:		sending shard
 * @to:		receiving shard
 * @len:	bytes after the header
 *
 * Skips (and marks) the end of the ring if the message does not fit
 * there; mbox_publish() makes it visible.
 *
 * Return: where to write, or NULL if the ring is full (counted)
 */
static struct mbox_msg *mbox_reserve(struct shard *sh, unsigned to, size_t len)
{
	struct mbox_ring *r = &sh->grp->sh[to]->peers.mbox[sh->id];
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
	size_t need = (MBOX_HDR + len + MBOX_ALIGN - 1) &
		      ~(size_t)(MBOX_ALIGN - 1);
	size_t end = MBOX_BYTES - (size_t)(h % MBOX_BYTES);
	size_t skip = end < need ? end : 0;
	struct mbox_msg *m;

	if (MBOX_BYTES - (h - t) < skip + need) {
		CTR_INC(&sh->core, SHARD_MBOX_FULL);
		return NULL;
	}
	if (skip) {
		if (skip >= MBOX_HDR)
			((struct mbox_msg *)(void *)(r->buf + h % MBOX_BYTES))
				->kind = MBOX_WRAP;
		h += skip;
		/* the consumer may skip this part before the message is
		 * published: it reads @head only as far as it was stored */
		atomic_store_explicit(&r->head, h, memory_order_release);
	}
	m = (struct mbox_msg *)(void *)(r->buf + h % MBOX_BYTES);
	m->len = (uint32_t)len;
	return m;
}

/**
 * mbox_publish() - make the reserved message visible to shard @to
 * @sh:	sending shard
 * @to:	receiving shard
 * @m:	the message mbox_reserve() returned, filled
 */
static void mbox_publish(struct shard *sh, unsigned to,
			 const struct mbox_msg *m)
{
	struct mbox_ring *r = &sh->grp->sh[to]->peers.mbox[sh->id];
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);

	atomic_store_explicit(&r->head, h + mbox_size(m, h),
			      memory_order_release);
	sh->peers.kick |= 1U << to;
}

/**
 * mbox_copy_frame() - copy a frame, its loaned tail too, behind a message's
 * header (mbox_reserve() made room for pkt_len() bytes)
 * @m:	message
 * @v:	frame
 */
static void mbox_copy_frame(struct mbox_msg *m, struct pkt_view v)
{
	memcpy((uint8_t *)m + MBOX_HDR, v.p, v.len);
	if (v.tail_len)
		memcpy((uint8_t *)m + MBOX_HDR + v.len, v.tail, v.tail_len);
}

/**
 * mbox_put_frame() - pass a guest frame to the shard that owns its flow
 * @sh:		sending shard
 * @to:		receiving shard
 * @v:		frame (vnet header included), its loaned tail too: the
 *		message holds a copy of the whole
 * @hop:	shards that have seen it, counting the sender
 *
 * Return: true if queued, false if the ring was full (the frame is lost)
 */
bool mbox_put_frame(struct shard *sh, unsigned to, struct pkt_view v,
		    uint8_t hop)
{
	size_t len = pkt_len(&v);
	struct mbox_msg *m;

	if (len > sh->edge->frame_max)
		return false; /* a loan beyond our frames: not one we made */
	m = mbox_reserve(sh, to, len);
	if (!m)
		return false;
	m->kind = MBOX_FRAME;
	m->hop = hop;
	mbox_copy_frame(m, v);
	mbox_publish(sh, to, m);
	CTR_INC(&sh->core, SHARD_FRAMES_PASSED);
	return true;
}

/**
 * mbox_put_accept() - hand an accepted connection to another shard
 * @sh:		sending shard (shard 0: the published ports live there)
 * @to:		receiving shard
 * @fd:		the accepted socket (the receiver owns it once queued)
 * @sa:		the client's address
 * @guest_port:	where in the guest it goes
 * @gaddr:	the guest address it goes to (ADDR_LEN bytes, copied), or
 *		NULL for the configured one
 *
 * Return: true if queued, false if the ring was full (the sender keeps it)
 */
bool mbox_put_accept(struct shard *sh, unsigned to, int fd, const void *sa,
		     uint16_t guest_port, const uint8_t *gaddr)
{
	struct mbox_msg *m = mbox_reserve(sh, to, 0);

	if (!m)
		return false;
	m->kind = MBOX_ACCEPT;
	m->fd = fd;
	m->guest_port = guest_port;
	memcpy(&m->sa, sa, sizeof(m->sa));
	m->gaddr_set = gaddr != NULL;
	if (gaddr)
		memcpy(m->gaddr, gaddr, ADDR_LEN);
	mbox_publish(sh, to, m);
	CTR_INC(&sh->core, SHARD_ACCEPTS_PASSED);
	return true;
}

/**
 * mbox_put_adopt() - move a flow in its handshake to the shard its guest
 * frames land on, with the frame that landed there (core_input() set
 * core.give)
 * @sh:		sending shard, the flow's owner
 * @to:		receiving shard
 * @f:		the flow: freed here if queued, its socket out of our epoll
 * @v:		the frame
 *
 * tun steers a flow's frames to the queue its owner last wrote from while
 * its flow table has room; under connection churn it is full and frames go
 * by the kernel's hash. A connection a published port accepted was given
 * its owner before the guest's first frame, and its every frame would
 * cross; moved at the handshake, none but this one does.
 *
 * #syscalls epoll_ctl
 * Return: true if queued, false if the ring was full (the flow stays)
 */
bool mbox_put_adopt(struct shard *sh, unsigned to, struct tcp_flow *f,
		    struct pkt_view v)
{
	size_t len = pkt_len(&v);
	struct mbox_msg *m;

	if (len > sh->edge->frame_max)
		return false;
	m = mbox_reserve(sh, to, len);
	if (!m)
		return false;
	m->kind = MBOX_ADOPT;
	m->fd = f->sock;
	if (epoll_ctl(sh->epfd, EPOLL_CTL_DEL, f->sock, NULL))
		warn_perror_rl("epoll_ctl on flow socket %d", f->sock);
	sh->sock.hflags[tcp_flow_idx(&sh->core, f)] &= HF_TX_PENDING;
	tcp_give(&sh->core, f, &m->ho);
	mbox_copy_frame(m, v);
	mbox_publish(sh, to, m);
	CTR_INC(&sh->core, SHARD_FLOWS_GIVEN);
	return true;
}

/**
 * mbox_kick() - wake every shard we queued messages for since the last kick
 * @sh:	sending shard
 *
 * #syscalls write
 */
void mbox_kick(struct shard *sh)
{
	uint64_t one = 1;

	while (sh->peers.kick) {
		unsigned to = (unsigned)__builtin_ctz(sh->peers.kick);

		sh->peers.kick &= sh->peers.kick - 1;
		if (write(sh->grp->sh[to]->peers.mbox_fd, &one, sizeof(one)) <
			    0 &&
		    errno != EAGAIN)
			warn_perror("mailbox kick");
	}
}

/**
 * mbox_rx() - handle every message waiting in the shard's rings
 * @sh:	receiving shard
 *
 * A frame's views stay valid until its bytes are released (@tail moves),
 * which happens after shard_input() carried out what the core asked for.
 *
 * #syscalls read
 */
void mbox_rx(struct shard *sh)
{
	uint64_t n;
	unsigned i;

	if (read(sh->peers.mbox_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		warn_perror("mailbox read");
	for (i = 0; i < sh->grp->n; i++) {
		struct mbox_ring *r = &sh->peers.mbox[i];
		uint64_t t, h;

		if (i == sh->id)
			continue;
		h = atomic_load_explicit(&r->head, memory_order_acquire);
		t = atomic_load_explicit(&r->tail, memory_order_relaxed);
		while (t != h) {
			struct mbox_msg *m = mbox_at(r, t);

			if (!m) {
				/* wrapped */
			} else if (m->kind == MBOX_FRAME) {
				struct pkt_view v = {
					.p = (uint8_t *)m + MBOX_HDR,
					.len = m->len,
				};

				CTR_INC(&sh->core, SHARD_FRAMES_TAKEN);
				shard_input(sh, v, m->hop);
			} else if (m->kind == MBOX_ADOPT) {
				struct pkt_view v = {
					.p = (uint8_t *)m + MBOX_HDR,
					.len = m->len,
				};

				sock_tcp_adopt(sh, m->fd, &m->ho);
				shard_input(sh, v, 0);
			} else {
				sock_tcp_accepted(
					sh, m->fd, &m->sa, m->guest_port,
					m->gaddr_set ? m->gaddr : NULL);
				shard_drain(sh);
			}
			t += mbox_size(m, t);
			atomic_store_explicit(&r->tail, t,
					      memory_order_release);
		}
	}
}
