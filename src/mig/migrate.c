/* SPDX-License-Identifier: GPL-2.0-or-later */
/* migrate.c - live migration: a vhost-user guest's flows move from one
 * slipway (the source) to another (the destination) with the VM
 *
 * DOC: Theory of Operation
 *
 * What moves
 * ----------
 *
 * QEMU migrates the VM's memory and device state; what lives in the
 * gateway (TCP and UDP flows with their host sockets, the published
 * ports' listening sockets, the guest's MAC address) moves here, over a
 * unix socket between the two gateways, with the sockets themselves
 * passed as descriptors (SCM_RIGHTS): the kernel keeps their queues, so
 * nothing in flight is lost — what the guest had not acknowledged is
 * still in the host socket (we only peek until it is acknowledged), and
 * nothing the guest sent is acknowledged before it is written.
 *
 * Destination
 * -----------
 *
 * Destination (--migrate-from PATH): listens at PATH from start-up, and
 * holds its guest's queues (they are not polled) and its published ports
 * (not bound). A migration thread takes one source's stream, checks it
 * whole (mig_check(): framing, counts, every descriptor named once, the
 * network the same as ours), answers "OK", and after the source's "GO"
 * holds it (MIG_HELD) until the source's word on it: the first shard
 * whose rings run (the VM was started here) has the thread ask "RUN!";
 * on "YES!" (or the source gone) the state is the shards'
 * (MIG_RECEIVED); on "BACK" it is dropped, its sockets closed without a
 * reset (the source holds them), and the guest served without it
 * (mig_dest_hold()).
 * Each shard, once its queue pair's rings run (the VM was started here),
 * takes its own flows (tcp_import(), udp_import(): each flow's state
 * checked against the state table), then polls its queue. Shard 0 then
 * publishes the configured ports, taking the source's listening sockets
 * where they match (fwd_open() and shard_listen.pool) and binding anew
 * where none came. A guest that runs MIG_WAIT_MS without a state having
 * come is served without one: the source's connections are then lost
 * (the guest's segments for them get RSTs).
 *
 * Source
 * ------
 *
 * Source (--migrate-to PATH): the vhost-user edge signals when the
 * frontend stops the device with dirty logging on, which is how QEMU
 * ends a live migration (edge.mig_stops, kicked through edge.mig_evfd).
 * The migration thread connects to PATH, has each shard in turn take its
 * flows out of its tables and its epoll set into one stream
 * (mig_export(); the shards hold the guest's queues from then on), sends
 * it and the descriptors, and waits for the answer. On anything but "OK"
 * the shards take the same stream back (mig_import_back()) at once.
 *
 * On "OK" the source says "GO", but the migration has not succeeded yet:
 * QEMU goes on copying memory, and resumes the VM here if the
 * destination dies or the migration is cancelled (in pre-switchover, for
 * one). So the source keeps the stream, with its copies of the sockets
 * (the flows frozen: in no table, no epoll set), its listeners (in its
 * tables, out of its epoll set) and the connection, and decides:
 *  - the destination's VM runs: it asks, "RUN!"; the source answers
 *    "YES!", closes its copies (mig_source_peer()), and exits once its
 *    frontend leaves;
 *  - a ring starts here again first (edge.mig_resumes catches up with
 *    edge.mig_stops: the VM resumed here): the shards take the stream
 *    back, shard 0 its listeners, the queues are polled again, and the
 *    destination is told "BACK" (mig_source_back()), whatever it asks
 *    later;
 *  - the gateway stops first (its frontend left: the VM cannot resume
 *    here): "YES!" (mig_source_stop());
 *  - the destination goes away: the source keeps its copies, whole, for
 *    a VM that resumes here.
 * One thread decides, once: over the socket, the flows are never both
 * sides', nor neither's (a source process gone without a word closed its
 * copies: the destination takes that as a yes).
 *
 * Transports and downtime
 * -----------------------
 *
 * Transports: the same stream (mig_build(), mig_check()) travels one of
 * three ways.
 *  - The socket above, the sockets as descriptors (SCM_RIGHTS): one
 *    host, both gateways alive; OK/GO, then RUN!/YES! or BACK.
 *  - The socket, the sockets as their repair state (--migrate-repair:
 *    repair.c dumps them, the destination rebuilds them through its
 *    repair helper, repair_helper.c): the same words.
 *  - The frontend's device-state channel (SET_DEVICE_STATE_FD, with
 *    --migrate-repair and no --migrate-to): QEMU carries the stream
 *    inside its own migration; SAVE writes it into the frontend's pipe
 *    (mig_state_save()), LOAD reads it whole and checks it
 *    (mig_state_load()), CHECK_DEVICE_STATE gets the verdict. There is
 *    no word between the gateways: once SAVE went out whole the source
 *    holds no flows, so a migration that fails after it (the VM resumed
 *    at the source) leaves them neither side's; the guest's segments for
 *    them get RSTs.
 *
 * Downtime: the source's stop time travels in the stream (CLOCK_REALTIME
 * nanoseconds, comparable on one host); the destination logs how long
 * after it the flows were in and the first frame went to the guest.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "os/sys.h"
#include "core/mig.h"
#include "core/tcp.h"
#include "core/udp.h"
#include "edge/edge.h"
#include "cli/conf.h"
#include "svc/fwd.h"
#include "mig/mig_vet.h"
#include "mig/migrate.h"
#include "os/repair.h"
#include "shard/shard.h"
#include "shard/shard_api.h"
#include "shard/sock_tcp.h"
#include "util/log.h"

#define MIG_FDS_PER_MSG 250 /* below SCM_MAX_FD */
#define MIG_IO_TIMEOUT_S 10
#define MIG_IDLE_PAIR_MS 500 /* see mig_shard_poll() */
#define MIG_WORD_LEN 4	     /* "RUN!", "YES!", "BACK" */

/* a device-state fd that moves nothing for MIG_STATE_IDLE_S, or whose
 * transfer takes more than MIG_STATE_MAX_S, is given up */
#define MIG_STATE_IDLE_S 10
#define MIG_STATE_MAX_S 60

enum mig_phase {
	MIG_WAITING,  /* destination: no state yet */
	MIG_PENDING,  /* destination: a state checked, the source's go due */
	MIG_HELD,     /* destination: a state is here, but the source may
		       * still take it back: a shard whose rings run asks it
		       * (mig_dest_hold()) before taking anything */
	MIG_RECEIVED, /* destination: a state is here for the shards */
	MIG_GAVE_UP,  /* destination: serving the guest without one */
};

/**
 * struct mig_xfer - one state stream in memory, with its descriptors
 * @buf:	header and body
 * @cap:	bytes @buf holds
 * @len:	bytes in it
 * @fds:	the descriptors, by index (-1: taken by a shard, or closed)
 * @nfds:	entries in @fds
 * @fdcap:	entries @fds holds
 * @counts:	records of each kind
 * @full:	the source's export ran out of room (the flows stay)
 * @repair:	sockets travel as their repair state (--migrate-repair),
 *		not as descriptors
 * @stop_ns:	when the source's device stopped (CLOCK_REALTIME)
 * @own:	built here (mig_build()): taken back after a failed
 *		hand-over without the checks a stream from outside gets
 */
struct mig_xfer {
	uint8_t *buf;
	size_t cap, len;
	int *fds;
	uint32_t nfds, fdcap;
	struct mig_end counts;
	bool full;
	bool repair;
	uint64_t stop_ns;
	bool own;
};

/**
 * struct mig - the migration side of a gateway
 * @conf:	configuration
 * @grp:	the shards
 * @e:		the vhost-user edge
 * @lfd:	destination: our listening socket, else -1
 * @dirfd:	destination: its file's directory (O_PATH), else -1
 * @lfd_path:	destination: its file is there still
 * @evfd:	source: the edge's signal (edge.mig_evfd), else -1
 * @stopfd:	eventfd that stops the thread
 * @tid:	the thread
 * @started:	@tid runs
 * @barrier:	start-up barrier (the seccomp filter first)
 * @phase:	destination: enum mig_phase
 * @handed:	source: the flows went to the destination, for good
 * @pending:	source: the flows are handed over, but ours until the
 *		destination runs them (@x holds them, @cfd is open)
 * @stops_seen:	source: the edge's @mig_stops we last acted on
 * @cfd:	source: the connection to the destination while @pending;
 *		destination: the one to the source while MIG_HELD; else -1
 * @runfd:	destination: eventfd a shard whose rings run writes while
 *		MIG_HELD (the source is asked); else -1
 * @asked:	destination: @runfd was written
 * @src_hold:	source: the shards hold the guest's queues from the export
 *		on (a VM that resumes here sends nothing before its flows
 *		are back: mig_import_back()); mig_shard_poll() leaves them
 * @first_run_ns: destination: when a shard first saw its rings run (0:
 *		none yet)
 * @req:	last shard call request number
 * @x:		the stream (destination: received; source: being sent)
 * @vet:	what a received stream's flows are checked against
 * @stop_wall_ns: source: when the device last stopped with dirty logging
 *		on (CLOCK_REALTIME: it travels in the stream), 0: not yet
 * @stop_mono_ns: source: the same by this host's monotonic clock
 */
struct mig {
	const struct conf *conf;
	struct shard_group *grp;
	struct edge *e;
	int lfd, evfd, stopfd;
	int dirfd;
	bool lfd_path;
	pthread_t tid;
	bool started;
	pthread_barrier_t *barrier;
	_Atomic int phase;
	_Atomic int handed;
	_Atomic int pending;
	unsigned stops_seen;
	int cfd, runfd;
	_Atomic int asked;
	_Atomic int src_hold;
	_Atomic uint64_t first_run_ns;
	unsigned req;
	struct mig_xfer x;
	struct mig_vet vet;
	uint64_t stop_wall_ns, stop_mono_ns;
};

/**
 * realtime_ns() - wall-clock time, comparable between two processes
 *
 * Return: CLOCK_REALTIME in nanoseconds
 */
static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * mig_since_source() - how long ago the source's device stopped, by the
 * two hosts' wall clocks (comparable on one host; across hosts only as
 * far as their clocks agree), for the log
 * @x:		the stream (its stop time)
 * @buf:	out
 * @len:	its size
 *
 * Return: @buf: "N ms after the source stopped (wall clocks)", or a
 *	   note that the stop time cannot be compared here (none, or more
 *	   than an hour away: clocks apart)
 */
static const char *mig_since_source(const struct mig_xfer *x, char *buf,
				    size_t len)
{
	uint64_t now = realtime_ns();

	if (x->stop_ns && now >= x->stop_ns &&
	    now - x->stop_ns < 3600ULL * 1000000000ULL)
		snprintf(buf, len,
			 "%.1f ms after the source stopped (wall "
			 "clocks)",
			 (double)(now - x->stop_ns) / 1e6);
	else
		snprintf(buf, len,
			 "the source's stop time is not comparable "
			 "with this host's clock");
	return buf;
}

/**
 * mig_shard_call() - run a function on one shard and wait for it
 * @m:		migration state
 * @sh:		the shard
 * @fn:		the function
 *
 * The wait ends early, the call not made, when it is shard 0's and
 * mig_stop() was called: that is only done once shard 0 left its loop
 * (the gateway stops), and it never answers again. The other shards run
 * until mig_stop() returns, and are waited for: a call they took may be
 * using @m->x.
 *
 * #syscalls ppoll nanosleep clock_nanosleep
 * Return: true if @fn ran, false if the gateway stops first (shard 0's
 * call only: @fn may never run)
 */
static bool mig_shard_call(struct mig *m, struct shard *sh,
			   void (*fn)(struct shard *sh, void *arg))
{
	struct pollfd pfd = { .fd = m->stopfd, .events = POLLIN };
	const struct timespec tick = { .tv_nsec = 20000 };
	unsigned req = ++m->req;
	bool stopping = false;

	shard_api_mig_ask(sh, fn, &m->x, req);
	while (!shard_api_mig_done(sh, req)) {
		if (stopping) { /* the eventfd stays readable: sleep */
			nanosleep(&tick, NULL);
		} else if (ppoll(&pfd, 1, &tick, NULL) > 0) {
			if (!sh->id)
				return false;
			stopping = true;
		}
	}
	return true;
}

/**
 * mig_all_shards() - run a function on every shard in turn, waiting for
 * each
 * @m:		migration state
 * @fn:		the function
 */
static void mig_all_shards(struct mig *m,
			   void (*fn)(struct shard *sh, void *arg))
{
	unsigned k;

	for (k = 0; k < m->grp->n; k++)
		mig_shard_call(m, m->grp->sh[k], fn);
}

/**
 * mig_lis() - one of shard 0's listener tables
 * @sh:		shard 0
 * @udp:	the UDP one (else TCP)
 * @n:		out: its entries
 *
 * Return: the table
 */
static struct listener *mig_lis(struct shard *sh, bool udp, unsigned *n)
{
	*n = udp ? sh->lis.nulisteners : sh->lis.nlisteners;
	return udp ? sh->lis.ulisteners : sh->lis.listeners;
}

/**
 * mig_room() - the room one record needs in the stream: the export stops
 * (the flows stay) when it is not there
 * @x:		stream
 * @bytes:	bytes wanted
 * @fds:	descriptors wanted
 *
 * Return: true if there is room
 */
static bool mig_room(struct mig_xfer *x, size_t bytes, uint32_t fds)
{
	if (x->cap - x->len < bytes || x->fdcap - x->nfds < fds)
		x->full = true;
	return !x->full;
}

/**
 * mig_grow() - more room in the stream
 * @x:		stream
 * @want:	bytes it must hold
 *
 * Return: 0, or -ENOMEM
 */
static int mig_grow(struct mig_xfer *x, size_t want)
{
	uint8_t *b;

	if (want <= x->cap)
		return 0;
	if (want > MIG_BODY_MAX)
		return -ENOMEM;
	b = realloc(x->buf, want);
	if (!b)
		return -ENOMEM;
	x->buf = b;
	x->cap = want;
	return 0;
}

/**
 * mig_export_repair() - --migrate-repair: a flow's socket into the stream
 * as its repair state, after its TCP record (@tcp_len bytes at the end of
 * the stream, not yet counted in @x->len); the socket is closed
 * @sh:		shard
 * @x:		stream
 * @f:		the flow
 * @tcp_len:	bytes of its TCP record
 * @len:	out: bytes of the repair record, right after it
 *
 * Return: 0 (the socket is closed), or -errno: the flow stays here, its
 * socket as it was
 */
static int mig_export_repair(struct shard *sh, struct mig_xfer *x,
			     struct tcp_flow *f, size_t tcp_len, size_t *len)
{
	size_t at = x->len + tcp_len;
	int ret;

	for (;;) {
		ret = repair_dump(f->sock, x->buf + at, x->cap - at,
				  (uint8_t)sh->id, len);
		if (ret != -ENOSPC)
			break;
		/* the queues did not fit: twice the room, then again */
		if (mig_grow(x, MAX(2 * x->cap, at + MIG_REPAIR_MAX(8U << 20))))
			break;
	}
	if (ret) {
		warn_rl("migration: a flow's socket cannot be dumped (%s): it "
			"stays here",
			strerror(-ret));
		return ret;
	}
	return 0; /* its socket is closed: tcp_forget() clears it */
}

/**
 * mig_export_tcp() - a shard's TCP flows into the stream, out of its
 * tables
 * @sh:		shard
 * @x:		stream
 */
static void mig_export_tcp(struct shard *sh, struct mig_xfer *x)
{
	struct core *c = &sh->core;
	uint32_t i;

	for (i = 0; i < c->hiwat; i++) {
		struct tcp_flow *f = tcp_flow_get(c, i);
		struct mig_tcp t;
		struct mig_ooo o;
		uint32_t k = 0;
		size_t need = MIG_TCP_LEN, n, rn = 0;

		if (!f || f->sock < 0 || !tcp_export(c, f, sh->now_ns, &t))
			continue;
		while (tcp_export_ooo(c, f, &k, &o))
			need += MIG_OOO_MAX(o.len);
		if (!mig_room(x, need, x->repair ? 0 : 1))
			return;
		t.fd = x->repair ? MIG_NONE : x->nfds;
		t.hflags = sh->sock.hflags[i];
		n = mig_put_tcp(x->buf + x->len, x->cap - x->len,
				(uint8_t)sh->id, &t);
		if (x->repair && mig_export_repair(sh, x, f, n, &rn))
			continue; /* it stays here */
		/* a socket dumped is closed, out of the epoll set already:
		 * its host bits go all the same */
		sock_tcp_leave(sh, f);
		x->len += n + rn;
		x->counts.tcp++;
		k = 0;
		while (tcp_export_ooo(c, f, &k, &o)) {
			x->len += mig_put_ooo(x->buf + x->len, x->cap - x->len,
					      (uint8_t)sh->id, &o);
			x->counts.ooo++;
		}
		if (!x->repair)
			x->fds[x->nfds++] = f->sock;
		tcp_forget(c, f);
		CTR_INC(c, MIG_TCP_OUT);
	}
}

/**
 * mig_export_udp() - a shard's datagram flows with sockets of their own
 * into the stream, out of its tables
 * @sh:		shard
 * @x:		stream
 *
 * #syscalls epoll_ctl
 */
static void mig_export_udp(struct shard *sh, struct mig_xfer *x)
{
	struct core *c = &sh->core;
	uint32_t i;

	for (i = 0; i < c->uhiwat; i++) {
		struct udp_flow *f = &c->uflows[i];
		struct mig_udp u;

		if (!udp_export(f, sh->now_ns, &u))
			continue;
		if (!mig_room(x, MIG_UDP_LEN, 1))
			return;
		u.fd = x->nfds;
		epoll_ctl(sh->epfd, EPOLL_CTL_DEL, f->sock, NULL);
		x->len += mig_put_udp(x->buf + x->len, x->cap - x->len,
				      (uint8_t)sh->id, &u);
		x->counts.udp++;
		x->fds[x->nfds++] = f->sock;
		f->sock = -1;
		uflow_free(c, f);
		CTR_INC(c, MIG_UDP_OUT);
	}
}

/**
 * mig_export_listeners() - shard 0's published ports' sockets into the
 * stream, out of its epoll set (still in its tables, which own them,
 * until the hand-over is over: mig_commit() or mig_import_back(); see
 * mig_listeners_disown())
 * @sh:		shard 0
 * @x:		stream
 *
 * #syscalls epoll_ctl
 */
static void mig_export_listeners(struct shard *sh, struct mig_xfer *x)
{
	unsigned t, i;

	for (t = 0; t < 2; t++) {
		unsigned n;
		struct listener *l = mig_lis(sh, t, &n);

		for (i = 0; i < n; i++) {
			struct mig_listen ml = { .fd = x->nfds,
						 .proto = t ? 17 : 6 };

			if (l[i].fd < 0)
				continue;
			if (!mig_room(x, 16, 1))
				return;
			epoll_ctl(sh->epfd, EPOLL_CTL_DEL, l[i].fd, NULL);
			x->len += mig_put_listen(x->buf + x->len,
						 x->cap - x->len, &ml);
			x->counts.listeners++;
			x->fds[x->nfds++] = l[i].fd;
		}
	}
}

/**
 * mig_export() - shard call: this shard's flows into the stream (shard 0
 * first, with the network record and the listeners)
 * @sh:		shard
 * @arg:	struct mig_xfer
 */
static void mig_export(struct shard *sh, void *arg)
{
	struct mig_xfer *x = arg;

	/* a hand-over: not one frame of a VM resumed here before its flows
	 * are back (released by mig_import_back()) */
	if (atomic_load(&sh->grp->mig->src_hold) && !sh->mig_hold)
		shard_mig_hold(sh);
	if (!sh->id) {
		const struct core_conf *cc = &sh->core.conf;
		struct mig_net n = { .guest4_be = cc->guest4_be,
				     .gw4_be = cc->gw4_be,
				     .mtu = cc->mtu,
				     .stop_ns = x->stop_ns };

		memcpy(n.guest_mac, cc->guest_mac, 6);
		memcpy(n.guest6, cc->guest6, 16);
		memcpy(n.gw6, cc->gw6, 16);
		x->len += mig_put_net(x->buf + x->len, x->cap - x->len, &n);
	}
	mig_export_tcp(sh, x);
	/* as state, only TCP sockets travel: the rest stay (another host
	 * binds its own ports; the guest's next datagram opens a flow) */
	if (x->repair)
		return;
	mig_export_udp(sh, x);
	if (!sh->id)
		mig_export_listeners(sh, x);
}

/**
 * mig_close_fd() - close a migrated socket that is not taken
 * @fd:		the socket
 * @reset:	a TCP flow's: reset it (its peer is told the truth)
 *
 * #syscalls setsockopt close
 */
static void mig_close_fd(int fd, bool reset)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (fd < 0)
		return;
	if (reset)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/**
 * mig_listeners_back() - the source keeps its listeners after all: back
 * into shard 0's epoll set
 * @sh:		shard 0
 */
static void mig_listeners_back(struct shard *sh)
{
	unsigned t, i;

	for (t = 0; t < 2; t++) {
		unsigned n;
		struct listener *l = mig_lis(sh, t, &n);

		for (i = 0; i < n; i++)
			if (l[i].fd >= 0 && !l[i].paused)
				shard_ep_add(sh, l[i].fd, EPOLLIN,
					     EP_DATA(t ? EP_UDP_LISTEN :
							 EP_LISTEN,
						     i));
	}
}

/**
 * mig_sock_ok() - is a descriptor the stream gave a socket of the kind its
 * record says?
 * @fd:		descriptor
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @v4:		the flow is an IPv4 one (else IPv6)
 *
 * #syscalls getsockopt
 * Return: true if so
 */
static bool mig_sock_ok(int fd, int type, bool v4)
{
	int t = 0, d = 0;
	socklen_t tl = sizeof(t), dl = sizeof(d);

	return fd >= 0 && !getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) &&
	       !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &dl) && t == type &&
	       (d == AF_INET6 || (v4 && d == AF_INET));
}

/**
 * mig_import_tcp() - a TCP flow from the stream, with its socket
 * @sh:		shard
 * @t:		the flow
 * @fd:		its socket (taken: registered, or reset if refused)
 * @fresh:	made here from its repair state (options not set yet)
 * @vet:	check the socket against what the guest could open here
 *		(mig_vet.c; a socket made from repair state was already)
 *
 * Return: the flow, or NULL if refused (MIG_TCP_REFUSED)
 */
static struct tcp_flow *mig_import_tcp(struct shard *sh,
				       const struct mig_tcp *t, int fd,
				       bool fresh, bool vet)
{
	struct mig *m = sh->grp->mig;
	struct core *c = &sh->core;
	struct tcp_flow *f = NULL;
	const char *why;

	if (!mig_sock_ok(fd, SOCK_STREAM, addr_is4(t->guest_addr))) {
		why = "its descriptor is no TCP socket of its family";
	} else if (vet && (why = mig_vet_tcp_fd(sh, &m->vet, t, fd))) {
		mig_vet_refused(&m->vet, sh, false, why);
		mig_close_fd(fd, true);
		return NULL;
	} else {
		why = tcp_import(c, t, fd, sh->now_ns, &sh->fx, &f);
	}
	if (why) {
		debug("migration: a TCP flow refused: %s", why);
		CTR_INC(c, MIG_TCP_REFUSED);
		mig_close_fd(fd, true);
		f = NULL;
	} else {
		sock_tcp_migrated(sh, f, t->hflags, fresh);
	}
	shard_drain(sh); /* the rewind and send it queued */
	return f;
}

/**
 * mig_import() - shard call, and the destination's shards on their own:
 * take this shard's flows from the stream (the source takes back its own
 * the same way after a failed hand-over)
 * @sh:		shard
 * @arg:	struct mig_xfer
 *
 * A flow refused (table full, state that does not check out) has its
 * socket reset and is counted in MIG_TCP_REFUSED.
 */
static void mig_import(struct shard *sh, void *arg)
{
	struct mig_xfer *x = arg;
	const uint8_t *p = x->buf + MIG_HDR_LEN, *end = x->buf + x->len;
	struct mig *m = sh->grp->mig;
	struct core *c = &sh->core;
	struct tcp_flow *last = NULL;
	bool pending = false;
	struct mig_tcp t;
	struct mig_rec r;
	const char *why;

	while (mig_next(&p, end, &r) > 0) {
		bool mine = r.shard % sh->grp->n == sh->id;
		struct mig_ooo o;
		struct mig_udp u;

		if (r.type == MIG_REC_TCP) {
			last = NULL;
			pending = false;
			if (!mine || mig_get_tcp(&r, x->nfds, &t))
				continue;
			if (t.fd == MIG_NONE) {
				pending = true; /* its repair record is next */
				continue;
			}
			last = mig_import_tcp(sh, &t, x->fds[t.fd], false,
					      !x->own);
			x->fds[t.fd] = -1;
		} else if (r.type == MIG_REC_REPAIR && pending) {
			struct mig_repair rp;
			int fd;

			pending = false;
			if (mig_get_repair(&r, &rp))
				continue;
			why = x->own ? NULL :
				       mig_vet_tcp_repair(sh, &m->vet, &t, &rp);
			if (why) {
				mig_vet_refused(&m->vet, sh, false, why);
				continue;
			}
			fd = repair_restore(&rp);
			if (fd < 0) {
				warn_rl("migration: a flow's socket cannot be "
					"made again: %s",
					strerror(-fd));
				CTR_INC(c, MIG_TCP_REFUSED);
				continue;
			}
			last = mig_import_tcp(sh, &t, fd, true, false);
		} else if (r.type == MIG_REC_NET) {
			struct mig_net n;
			static const uint8_t zero[6];

			/* the guest's MAC address, before its first frame
			 * here tells it again */
			if (!mig_get_net(&r, &n) &&
			    memcmp(n.guest_mac, zero, 6))
				memcpy(c->conf.guest_mac, n.guest_mac, 6);
		} else if (r.type == MIG_REC_OOO && last) {
			if (!mig_get_ooo(&r, &o) &&
			    (why = tcp_import_ooo(c, last, &o)))
				debug("migration: a held segment refused: %s",
				      why);
		} else if (r.type == MIG_REC_UDP) {
			struct udp_flow *f;

			last = NULL;
			if (!mine || mig_get_udp(&r, x->nfds, &u))
				continue;
			why = mig_sock_ok(x->fds[u.fd], SOCK_DGRAM,
					  addr_is4(u.guest_addr)) ?
				      NULL :
				      "its descriptor is no UDP socket of its "
				      "family";
			if (!why && !x->own &&
			    (why = mig_vet_udp_fd(sh, &u, x->fds[u.fd]))) {
				mig_vet_refused(&m->vet, sh, true, why);
				mig_close_fd(x->fds[u.fd], false);
				x->fds[u.fd] = -1;
				continue;
			}
			if (!why)
				why = udp_import(c, &u, x->fds[u.fd],
						 sh->now_ns, &f);
			if (why) {
				debug("migration: a UDP flow refused: %s", why);
				mig_close_fd(x->fds[u.fd], false);
			} else if (shard_ep_add(sh, f->sock, EPOLLIN,
						EP_DATA(EP_UDP,
							udp_flow_idx(c, f)))) {
				f->sock = -1;
				uflow_free(c, f);
				mig_close_fd(x->fds[u.fd], false);
			}
			x->fds[u.fd] = -1;
		} else {
			last = NULL;
		}
	}
	shard_drain(sh);
}

/**
 * mig_listeners_disown() - the source's stream went out: its listeners'
 * descriptors stay shard 0's (its tables close them), not the stream's,
 * which keeps only the flows' sockets
 * @x:		stream
 */
static void mig_listeners_disown(struct mig_xfer *x)
{
	const uint8_t *p = x->buf + MIG_HDR_LEN;
	struct mig_listen l;
	struct mig_rec r;

	while (mig_next(&p, x->buf + x->len, &r) > 0)
		if (r.type == MIG_REC_LISTEN &&
		    !mig_get_listen(&r, x->nfds, &l))
			x->fds[l.fd] = -1;
}

/**
 * mig_import_back() - shard call: a hand-over that failed, or a VM that
 * runs here again after it (a migration cancelled): the source's shard
 * takes its flows back, shard 0 its listeners, and polls the guest's
 * queue again (a hand-over held it)
 * @sh:		shard
 * @arg:	struct mig_xfer
 *
 * A frontend that set the device up again may have moved the edge's
 * generation: followed first, so that it does not reset what comes back.
 */
static void mig_import_back(struct shard *sh, void *arg)
{
	shard_edge_sync(sh);
	mig_import(sh, arg);
	if (!sh->id)
		mig_listeners_back(sh);
	if (atomic_load(&sh->grp->mig->src_hold) && sh->mig_hold)
		shard_mig_release(sh);
}

/**
 * mig_commit() - shard call on shard 0: the destination runs the flows:
 * close our copies of the listeners, and their table entries (the flows'
 * copies are closed with the stream)
 * @sh:		shard 0
 * @arg:	unused
 *
 * #syscalls close
 */
static void mig_commit(struct shard *sh, void *arg)
{
	unsigned t, i;

	(void)arg;
	for (t = 0; t < 2; t++) {
		unsigned n;
		struct listener *l = mig_lis(sh, t, &n);

		for (i = 0; i < n; i++) {
			if (l[i].fd < 0)
				continue;
			if (t)
				udp_pub_forget(&sh->core, l[i].fd);
			close(l[i].fd);
			l[i].fd = -1;
		}
	}
}

/**
 * mig_io_wait() - wait until a migration's connection or fd is ready, at
 * most @ms, and not past the gateway's stop (SIGTERM ends it at once in
 * every state of a migration)
 * @m:		migration state
 * @fd:		the connection, or the device-state fd
 * @events:	POLLIN or POLLOUT
 * @ms:		the longest wait
 *
 * #syscalls poll
 * Return: 0 (ready, or a signal: try again), -ETIMEDOUT, -ECANCELED (the
 * gateway stops), or -errno
 */
static int mig_io_wait(struct mig *m, int fd, short events, int ms)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = events },
				 { .fd = m->stopfd, .events = POLLIN } };
	int n = poll(pfd, 2, ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (!n)
		return -ETIMEDOUT;
	return pfd[1].revents ? -ECANCELED : 0;
}

/**
 * mig_io_again() - a hand-over connection's call failed: wait and try
 * again, or give up
 * @m:		migration state
 * @fd:		the connection
 * @events:	what the call needs (POLLIN, POLLOUT)
 * @n:		the call's result (< 0: errno says why)
 *
 * Return: 0 to try again, or -errno to give up
 */
static int mig_io_again(struct mig *m, int fd, short events, ssize_t n)
{
	if (n >= 0 || errno == EINTR)
		return 0;
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		return -errno;
	return mig_io_wait(m, fd, events, MIG_IO_TIMEOUT_S * 1000);
}

/**
 * mig_io_all() - move a whole buffer through a socket, one way
 * @m:		migration state (its stop)
 * @fd:		the socket
 * @p:		bytes to send, or room for what is read
 * @len:	how many
 * @out:	send (a reader gone is -EPIPE); else receive (the end of the
 *		stream is -EPIPE)
 *
 * #syscalls sendto recvfrom
 * Return: 0, or -errno
 */
static int mig_io_all(struct mig *m, int fd, uint8_t *p, size_t len, bool out)
{
	while (len) {
		ssize_t n = out ? send(fd, p, len,
				       MSG_DONTWAIT | MSG_NOSIGNAL) :
				  recv(fd, p, len, MSG_DONTWAIT);
		int ret;

		if (n < 0) {
			ret = mig_io_again(m, fd, out ? POLLOUT : POLLIN, n);
			if (ret)
				return ret;
			continue;
		}
		if (!n)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * mig_recv_all() - read a whole buffer (the end of the stream is -EPIPE)
 * @m:		migration state (its stop)
 * @fd:		socket
 * @p:		out
 * @len:	how many bytes
 *
 * Return: 0, or -errno
 */
static int mig_recv_all(struct mig *m, int fd, uint8_t *p, size_t len)
{
	return mig_io_all(m, fd, p, len, false);
}

/**
 * mig_write_all() - write a whole buffer to a socket (a reader gone is
 * -EPIPE)
 * @m:		migration state (its stop)
 * @fd:		the socket
 * @p:		bytes
 * @len:	how many
 *
 * Return: 0, or -errno
 */
static int mig_write_all(struct mig *m, int fd, const uint8_t *p, size_t len)
{
	/* not written through: mig_io_all() only reads @p when @out */
	return mig_io_all(m, fd, (uint8_t *)(uintptr_t)p, len, true);
}

/**
 * mig_recv_answer(m, ) - the other side's answer: two bytes ("OK", "GO"),
 * or a refusal with its reason, up to its end of stream
 * @m:		migration state (its stop)
 * @fd:		socket
 * @ans:	out, NUL-terminated
 * @len:	its size
 *
 * #syscalls recvfrom
 * Return: 0, or -errno (-EPIPE: nothing came)
 */
static int mig_recv_answer(struct mig *m, int fd, char *ans, size_t len)
{
	size_t got = 0;

	while (got < len - 1) {
		ssize_t n = recv(fd, ans + got, len - 1 - got, MSG_DONTWAIT);
		int ret;

		if (n < 0) {
			ret = mig_io_again(m, fd, POLLIN, n);
			if (ret)
				return ret;
			continue;
		}
		if (!n)
			break;
		got += (size_t)n;
		if (got == 2 &&
		    (!memcmp(ans, "OK", 2) || !memcmp(ans, "GO", 2)))
			break;
	}
	ans[got] = '\0';
	return got ? 0 : -EPIPE;
}

/**
 * mig_send_fds(m, ) - the descriptors, MIG_FDS_PER_MSG a message, each
 * message one byte
 * @m:		migration state (its stop)
 * @fd:		socket
 * @fds:	descriptors
 * @n:		how many
 *
 * #syscalls sendmsg
 * Return: 0, or -errno
 */
static int mig_send_fds(struct mig *m, int fd, const int *fds, uint32_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MIG_FDS_PER_MSG)];
		struct cmsghdr align;
	} u;
	uint32_t i = 0;
	ssize_t got;
	int ret;

	while (i < n) {
		uint32_t k = MIN(n - i, MIG_FDS_PER_MSG);
		char one = 'F';
		struct iovec iov = { &one, 1 };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = u.buf,
				     .msg_controllen = CMSG_SPACE(sizeof(int) *
								  k) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * k);
		memcpy(CMSG_DATA(cm), fds + i, sizeof(int) * k);
		got = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (got < 0) {
			ret = mig_io_again(m, fd, POLLOUT, got);
			if (ret)
				return ret;
			continue;
		}
		if (got != 1)
			return -EPIPE;
		i += k;
	}
	return 0;
}

/**
 * mig_recv_fds(m, ) - the descriptors that come with a stream
 * @m:		migration state (its stop)
 * @fd:		socket
 * @fds:	out, -1 where none came
 * @n:		how many are due
 *
 * #syscalls recvmsg close
 * Return: 0, or -errno (-EPROTO: a message cut short, or not carrying
 * what it should)
 */
static int mig_recv_fds(struct mig *m, int fd, int *fds, uint32_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MIG_FDS_PER_MSG)];
		struct cmsghdr align;
	} u;
	uint32_t i = 0;

	while (i < n) {
		char one;
		struct iovec iov = { &one, 1 };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *cm;
		ssize_t got = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		uint32_t k = 0;
		int ret;

		if (got < 0) {
			ret = mig_io_again(m, fd, POLLIN, got);
			if (ret)
				return ret;
			continue;
		}
		if (!got)
			return -EPIPE;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			uint32_t j, c;

			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SCM_RIGHTS)
				continue;
			c = (uint32_t)((cm->cmsg_len - CMSG_LEN(0)) /
				       sizeof(int));
			for (j = 0; j < c; j++) {
				int v;

				memcpy(&v, CMSG_DATA(cm) + j * sizeof(int),
				       sizeof(int));
				if (i + k < n)
					fds[i + k++] = v;
				else
					close(v);
			}
		}
		if ((mh.msg_flags & MSG_CTRUNC) || !k || k > MIG_FDS_PER_MSG)
			return -EPROTO;
		i += k;
	}
	return 0;
}

/**
 * mig_xfer_alloc() - room for a stream
 * @x:		stream (zeroed)
 * @bytes:	bytes
 * @fds:	descriptors
 *
 * Return: 0, or -ENOMEM
 */
static int mig_xfer_alloc(struct mig_xfer *x, size_t bytes, uint32_t fds)
{
	uint32_t i;

	x->buf = malloc(bytes ? bytes : 1);
	x->fds = malloc((fds ? fds : 1) * sizeof(int));
	if (!x->buf || !x->fds)
		return -ENOMEM;
	x->cap = bytes;
	x->fdcap = fds;
	for (i = 0; i < fds; i++)
		x->fds[i] = -1;
	return 0;
}

/**
 * mig_xfer_free() - a stream's memory, and the descriptors nobody took
 * @x:		stream
 */
static void mig_xfer_free(struct mig_xfer *x)
{
	uint32_t i;

	for (i = 0; x->fds && i < x->nfds; i++)
		mig_close_fd(x->fds[i], false);
	free(x->buf);
	free(x->fds);
	memset(x, 0, sizeof(*x));
}

/**
 * mig_build() - the stream of this gateway's state: every shard's flows
 * moved into it, in turn
 * @m:		migration state
 * @repair:	sockets as their repair state (no descriptors)
 *
 * Return: 0, or -ENOMEM (nothing moved)
 */
static int mig_build(struct mig *m, bool repair)
{
	struct mig_xfer *x = &m->x;
	size_t bytes = MIG_HDR_LEN + 256;
	uint32_t fds = 0, k;

	for (k = 0; k < m->grp->n; k++) {
		const struct core_conf *cc = &m->grp->sh[k]->core.conf;

		bytes += (size_t)cc->max_flows *
				 (MIG_TCP_LEN +
				  (repair ? MIG_REPAIR_MAX(0) : 0)) +
			 (size_t)cc->ooo_slots * MIG_OOO_MAX(TCP_OOO_SLOT) +
			 (size_t)cc->max_udp_flows * MIG_UDP_LEN;
		fds += cc->max_flows + cc->max_udp_flows;
	}
	fds += m->grp->sh[0]->lis.nlisteners + m->grp->sh[0]->lis.nulisteners;
	bytes += (size_t)fds * 16;
	if (mig_xfer_alloc(&m->x, bytes, repair ? 0 : fds)) {
		err("migration: out of memory for the state (%zu bytes): the "
		    "flows stay here",
		    bytes);
		mig_xfer_free(x);
		return -ENOMEM;
	}
	x->stop_ns = m->stop_wall_ns ? m->stop_wall_ns : realtime_ns();
	x->repair = repair;
	x->own = true;
	x->len = MIG_HDR_LEN;
	mig_all_shards(m, mig_export);
	if (x->full)
		warn("migration: the state did not fit: some flows stay here");
	x->len += mig_put_end(x->buf + x->len, x->cap - x->len, &x->counts);
	mig_put_hdr(x->buf, MIG_HDR_LEN, (uint32_t)(x->len - MIG_HDR_LEN),
		    x->nfds);
	return 0;
}

/**
 * mig_peer_ok() - is the other end of a migration socket ours: our user,
 * or root? Whoever made the path first would otherwise be handed every
 * flow (--migrate-to), or could hand us any (--migrate-from)
 * @fd:		the connection
 * @what:	"destination" or "source", for the log
 *
 * A connecting end sees the credentials its peer listened with.
 *
 * #syscalls getsockopt geteuid
 * Return: true if so (else logged)
 */
static bool mig_peer_ok(int fd, const char *what)
{
	struct ucred uc;
	socklen_t sl = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl)) {
		warn_perror("migration: the %s's credentials", what);
		return false;
	}
	if (uc.uid == geteuid() || !uc.uid)
		return true;
	warn("migration: the %s (PID %d) runs as user %u, not ours (%u) nor "
	     "root: refused (keep the socket's directory private)",
	     what, (int)uc.pid, (unsigned)uc.uid, (unsigned)geteuid());
	return false;
}

/**
 * mig_send_word(m, ) - one of the hand-over's four-byte words ("RUN!",
 * "YES!", "BACK") to the other side
 * @m:		migration state (its stop)
 * @fd:		the connection
 * @w:		the word
 *
 * Return: 0, or -errno
 */
static int mig_send_word(struct mig *m, int fd, const char *w)
{
	return mig_write_all(m, fd, (const uint8_t *)w, MIG_WORD_LEN);
}

/**
 * mig_recv_word(m, ) - the other side's four-byte word
 * @m:		migration state (its stop)
 * @fd:		the connection (readable)
 * @w:		out, NUL-terminated
 *
 * Return: 0, or -errno (-EPIPE: its end of stream)
 */
static int mig_recv_word(struct mig *m, int fd, char w[MIG_WORD_LEN + 1])
{
	int ret = mig_recv_all(m, fd, (uint8_t *)w, MIG_WORD_LEN);

	w[ret ? 0 : MIG_WORD_LEN] = '\0';
	return ret;
}

/**
 * mig_source_done() - the hand-over is over: the flows are the
 * destination's for good (it runs them, or we stop); our copies of their
 * sockets go with the stream
 * @m:		migration state (@m->pending)
 */
static void mig_source_done(struct mig *m)
{
	atomic_store(&m->handed, 1);
	atomic_store(&m->pending, 0);
	if (m->cfd >= 0)
		close(m->cfd);
	m->cfd = -1;
	mig_xfer_free(&m->x);
}

/**
 * mig_source_back() - the VM runs here again (its migration failed or was
 * cancelled) while the flows were handed over but not yet run by the
 * destination: the shards take them back, shard 0 its listeners, and the
 * destination is told to drop its copies
 * @m:		migration state (@m->pending)
 *
 * #syscalls close
 */
static void mig_source_back(struct mig *m)
{
	struct mig_end *n = &m->x.counts;

	/* not pending: a frontend that leaves now is waited for again, and
	 * shard 0 answers the calls below */
	atomic_store(&m->pending, 0);
	if (m->cfd >= 0 && mig_send_word(m, m->cfd, "BACK"))
		warn("migration: the destination could not be told that the "
		     "flows came back");
	if (m->cfd >= 0)
		close(m->cfd);
	m->cfd = -1;
	mig_all_shards(m, mig_import_back);
	atomic_store(&m->src_hold, 0);
	info("migration: the VM runs here again: %u TCP flows, %u UDP flows "
	     "and %u listeners taken back",
	     n->tcp, n->udp, n->listeners);
	mig_xfer_free(&m->x);
}

/**
 * mig_source_peer() - the destination wrote while the hand-over is
 * pending: "RUN!" (its VM runs: the flows are its own now, ours closed),
 * or it went away (ours stay, whole, for a VM that resumes here)
 * @m:		migration state (@m->pending)
 *
 * Return: true once the flows are the destination's for good
 */
static bool mig_source_peer(struct mig *m)
{
	char w[MIG_WORD_LEN + 1];
	int ret = mig_recv_word(m, m->cfd, w);

	if (!ret && !strcmp(w, "RUN!"))
		ret = mig_send_word(m, m->cfd, "YES!");
	else if (!ret)
		ret = -EPROTO;
	if (ret) {
		warn("migration: the destination went away before it ran the "
		     "flows (%s): they stay here for the VM if it resumes",
		     strerror(-ret));
		close(m->cfd);
		m->cfd = -1;
		return false;
	}
	/* our copies of the listeners: shard 0's */
	if (mig_shard_call(m, m->grp->sh[0], mig_commit))
		info("migration: the destination runs the VM: the hand-over "
		     "is over");
	mig_source_done(m);
	return true;
}

/**
 * mig_source_stop() - the gateway stops (its frontend left, or a signal)
 * while the hand-over is pending: the VM cannot resume here any more, so
 * the destination may run the flows
 * @m:		migration state (@m->pending)
 */
static void mig_source_stop(struct mig *m)
{
	if (m->cfd >= 0 && !mig_send_word(m, m->cfd, "YES!"))
		info("migration: stopping with the hand-over pending: the "
		     "flows are the destination's");
	/* our copies are closed with the stream, the listeners' by the
	 * tables (shard 0 is done) */
	mig_source_done(m);
}

/**
 * mig_source_send() - the VM stopped for a migration: hand the flows to
 * the destination (they stay ours, frozen, until it runs them:
 * mig_source_peer(), or the VM resumes here: mig_source_back())
 * @m:		migration state
 *
 * #syscalls socket connect setsockopt close
 */
static void mig_source_send(struct mig *m)
{
	struct mig_xfer *x = &m->x;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = MIG_IO_TIMEOUT_S };
	uint64_t t0 = now_mono_ns();
	char ans[128] = "";
	struct mig_end *n = &x->counts;
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || strlen(m->conf->migrate_to) >= sizeof(sa.sun_path)) {
		err_perror("migration: no socket");
		goto out_fd;
	}
	strcpy(sa.sun_path, m->conf->migrate_to);
	/* connect() alone blocks (a listener's full backlog); every other
	 * call waits in mig_io_wait() */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		warn_perror("migration: cannot reach the destination at %s: "
			    "the flows stay here (reset if the VM does not "
			    "come back)",
			    m->conf->migrate_to);
		goto out_fd;
	}
	if (!mig_peer_ok(fd, "destination"))
		goto out_fd;
	atomic_store(&m->src_hold, 1);
	if (mig_build(m, m->conf->migrate_repair)) {
		atomic_store(&m->src_hold, 0);
		goto out_fd;
	}
	ret = mig_write_all(m, fd, x->buf, x->len);
	if (!ret)
		ret = mig_send_fds(m, fd, x->fds, x->nfds);
	mig_listeners_disown(x);
	if (!ret)
		ret = mig_recv_answer(m, fd, ans, sizeof(ans));
	/* the go: the destination may take the flows once its VM runs and
	 * we said yes (mig_source_peer()) */
	if (!ret && !strcmp(ans, "OK"))
		ret = mig_write_all(m, fd, (const uint8_t *)"GO", 2);
	if (ret || strcmp(ans, "OK")) {
		if (ret)
			warn("migration: the destination did not take the "
			     "state: %s; the flows stay here",
			     strerror(-ret));
		else
			warn("migration: the destination refused the state: "
			     "%s; the flows stay here",
			     ans);
		mig_all_shards(m, mig_import_back);
		atomic_store(&m->src_hold, 0);
		goto out;
	}
	/* ours still, frozen (out of the tables and the epoll set), until
	 * the destination runs them or the VM resumes here */
	m->cfd = fd;
	atomic_store(&m->pending, 1);
	info("migration: %u TCP flows (%u held segments), %u UDP flows and %u "
	     "listeners handed to %s in %.1f ms (%zu bytes); ours until it "
	     "runs them",
	     n->tcp, n->ooo, n->udp, n->listeners, m->conf->migrate_to,
	     (double)(now_mono_ns() - t0) / 1e6, x->len);
	return;
out:
	mig_xfer_free(x);
out_fd:
	if (fd >= 0)
		close(fd);
}

/**
 * mig_net_differs() - does the source's network differ from ours?
 * @m:		migration state
 * @n:		the source's
 *
 * Return: NULL, or what differs
 */
static const char *mig_net_differs(const struct mig *m, const struct mig_net *n)
{
	const struct core_conf *cc = &m->grp->sh[0]->core.conf;

	if (n->guest4_be != cc->guest4_be || n->gw4_be != cc->gw4_be ||
	    memcmp(n->guest6, cc->guest6, 16) || memcmp(n->gw6, cc->gw6, 16))
		return "the guest's or the gateway's addresses differ here "
		       "(give the destination the source's -a, -g, "
		       "--ipv6-prefix)";
	if (n->mtu != cc->mtu)
		return "the MTU differs here (give the destination the "
		       "source's -m)";
	return NULL;
}

/**
 * mig_accept() - check a received stream whole, and claim it: the first
 * state to come since start, or since one that did not come through
 * @m:		migration state (@m->x holds the stream, header first)
 * @body:	its body's length (mig_parse_hdr())
 * @nfds:	descriptors that came with it
 * @phase:	what the stream becomes (MIG_PENDING, MIG_RECEIVED)
 *
 * Return: NULL with @m->x.stop_ns set, or why the stream is refused
 */
static const char *mig_accept(struct mig *m, uint32_t body, uint32_t nfds,
			      int phase)
{
	struct mig_xfer *x = &m->x;
	const uint8_t *p = x->buf + MIG_HDR_LEN;
	int exp = MIG_WAITING;
	const char *why;
	struct mig_net n;
	struct mig_rec r;

	why = mig_check(p, body, nfds, &x->counts);
	if (!why) {
		mig_next(&p, x->buf + x->len, &r); /* the first: checked */
		why = mig_get_net(&r, &n);
	}
	if (!why)
		why = mig_net_differs(m, &n);
	/* before the claim: the shards read it once they see the phase */
	if (!why)
		mig_vet_stream(&m->vet);
	if (!why && !atomic_compare_exchange_strong(&m->phase, &exp, phase))
		why = exp == MIG_GAVE_UP ? "too late: the VM runs here without "
					   "it already" :
					   "a second state";
	if (!why)
		x->stop_ns = n.stop_ns;
	return why;
}

/**
 * mig_hold_call() - shard call: a device state is about to be loaded: stop
 * polling the guest's queue until it is in, unless the rings ran here
 * already (then say so in @m->first_run_ns, and stay as we are)
 * @sh:		shard
 * @arg:	unused
 *
 * The rings ran if they run now, or if any frame went either way since
 * start (a frontend that stopped them, or left, before the LOAD).
 */
static void mig_hold_call(struct shard *sh, void *arg)
{
	struct mig *m = sh->grp->mig;
	bool run = !sh->edge->ops->running ||
		   sh->edge->ops->running(sh->edge, sh->q);
	uint64_t none = 0;

	(void)arg;
	if (run || sh->stats.ctr[CTR_EDGE_TX_FRAMES] ||
	    sh->stats.ctr[CTR_EDGE_RX_FRAMES]) {
		atomic_compare_exchange_strong(&m->first_run_ns, &none,
					       sh->now_ns ? sh->now_ns : 1);
		return;
	}
	if (!sh->mig_hold) {
		shard_mig_hold(sh);
		sh->mig_ready_ns = 0;
	}
}

/**
 * mig_state_wait() - wait until the device-state fd is ready, within the
 * transfer's deadlines, or the gateway stops
 * @m:		migration state
 * @fd:		the fd (non-blocking)
 * @events:	POLLIN or POLLOUT
 * @start_ns:	when the transfer began (monotonic)
 *
 * A frontend that neither moves a byte for MIG_STATE_IDLE_S nor ends the
 * transfer within MIG_STATE_MAX_S does not keep the migration thread.
 *
 * #syscalls poll
 * Return: 0 (ready, or a signal: try again), -ETIMEDOUT, -ECANCELED (the
 * gateway stops), or another -errno
 */
static int mig_state_wait(struct mig *m, int fd, short events,
			  uint64_t start_ns)
{
	uint64_t now = now_mono_ns(),
		 end = start_ns + MIG_STATE_MAX_S * 1000000000ULL;

	if (now >= end)
		return -ETIMEDOUT;
	return mig_io_wait(m, fd, events,
			   (int)MIN((uint64_t)MIG_STATE_IDLE_S * 1000,
				    (end - now) / 1000000 + 1));
}

/**
 * mig_state_nonblock() - make the frontend's fd non-blocking: a pipe's
 * write blocks until all of it fits, whatever poll() said
 * @fd:		the fd
 *
 * #syscalls fcntl
 * Return: 0, or -errno
 */
static int mig_state_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/**
 * mig_state_why() - what a failed device-state transfer's -errno means
 * @ret:	from mig_state_write() or mig_state_read()'s wait
 * @save:	a SAVE (else a LOAD)
 *
 * Return: the reason, for the log
 */
static const char *mig_state_why(int ret, bool save)
{
	/* the messages give the deadlines' numbers */
	_Static_assert(MIG_STATE_IDLE_S == 10 && MIG_STATE_MAX_S == 60,
		       "mig_state_why() says 10 s and 60 s");
	if (ret == -ETIMEDOUT)
		return save ? "the frontend did not read its pipe (nothing "
			      "taken for 10 s, or not all of it in 60 s)" :
			      "the frontend did not send the state and close "
			      "its end (nothing for 10 s, or not all in 60 s)";
	if (ret == -ECANCELED)
		return "the gateway stops";
	if (ret == -ENOSPC)
		return "the state did not fit";
	return save ? "the frontend's fd broke (or its reader left)" :
		      "the frontend's fd broke";
}

/**
 * mig_state_write() - a whole buffer into the frontend's device-state fd,
 * within the deadlines (SIGPIPE is ignored: a reader gone is -EPIPE)
 * @m:		migration state
 * @fd:		the fd
 * @p:		bytes
 * @len:	how many
 *
 * #syscalls write
 * Return: 0, or -errno (-ETIMEDOUT, -ECANCELED: see mig_state_wait())
 */
static int mig_state_write(struct mig *m, int fd, const uint8_t *p, size_t len)
{
	uint64_t t0 = now_mono_ns();
	int ret = mig_state_nonblock(fd);

	while (!ret && len) {
		ssize_t n = write(fd, p, len);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (!n) {
			ret = -EPIPE;
		} else if (errno == EAGAIN) {
			ret = mig_state_wait(m, fd, POLLOUT, t0);
		} else if (errno != EINTR) {
			ret = -errno;
		}
	}
	return ret;
}

/**
 * mig_state_read() - the frontend's device-state fd, read into @m->x to
 * its end, within the deadlines
 * @m:		migration state (@m->x empty)
 * @fd:		the fd
 *
 * #syscalls read
 * Return: NULL, or why the state is refused
 */
static const char *mig_state_read(struct mig *m, int fd)
{
	struct mig_xfer *x = &m->x;
	uint64_t t0 = now_mono_ns();
	int ret = mig_state_nonblock(fd);

	if (ret)
		return "the frontend's fd broke";
	if (mig_xfer_alloc(x, 1U << 20, 0))
		return "out of memory";
	for (;;) {
		ssize_t got;

		if (x->len == x->cap && mig_grow(x, 2 * x->cap))
			return "larger than a destination takes";
		got = read(fd, x->buf + x->len, x->cap - x->len);
		if (!got)
			return NULL;
		if (got > 0) {
			x->len += (size_t)got;
			continue;
		}
		if (errno == EINTR)
			continue;
		ret = errno == EAGAIN ? mig_state_wait(m, fd, POLLIN, t0) :
					-errno;
		if (ret)
			return mig_state_why(ret, false);
	}
}

/**
 * mig_state_save() - the source's state into the frontend's device-state
 * fd: every flow out, sockets as repair state
 * @m:		migration state
 * @fd:		the fd (a pipe's writing end)
 *
 * Refused on a gateway that had a LOAD (taken or not): a destination is
 * no source, and the loaded state is the shards' (mig_state_load()).
 *
 * Return: true if the state went out whole (the flows are gone from here)
 */
static bool mig_state_save(struct mig *m, int fd)
{
	struct mig_xfer *x = &m->x;
	uint64_t t0 = now_mono_ns();
	int ret;

	if (atomic_load(&m->phase) != MIG_WAITING) {
		warn("migration: a device state SAVE refused: a state was "
		     "loaded here (this gateway is a migration's "
		     "destination, and its shards own that state)");
		return false;
	}
	if (mig_build(m, true))
		return false;
	ret = x->full ? -ENOSPC : mig_state_write(m, fd, x->buf, x->len);
	if (ret) {
		warn("migration: the device state did not go out (%s): the "
		     "flows stay here",
		     mig_state_why(ret, true));
		mig_all_shards(m, mig_import_back);
		mig_xfer_free(x);
		return false;
	}
	atomic_store(&m->handed, 1);
	info("migration: %u TCP flows (%u held segments) saved into the VM's "
	     "device state in %.1f ms (%zu bytes), %.1f ms after the device "
	     "stopped",
	     x->counts.tcp, x->counts.ooo, (double)(now_mono_ns() - t0) / 1e6,
	     x->len,
	     m->stop_mono_ns ? (double)(now_mono_ns() - m->stop_mono_ns) / 1e6 :
			       0.0);
	mig_xfer_free(x);
	return true;
}

/**
 * mig_state_load() - the destination's state from the frontend's
 * device-state fd, read to its end and checked whole; the shards hold
 * their queues until they took it
 * @m:		migration state
 * @fd:		the fd (a pipe's reading end)
 *
 * Once per gateway, and only before its rings ever ran: a second LOAD
 * (the first taken or not), or one on a gateway that served its guest
 * already, is refused without a byte of it read. Ownership: @m->x is
 * this thread's until mig_accept() sets MIG_RECEIVED; from then on it is
 * the shards' (each imports its flows from it, mig_shard_poll()), and
 * nothing here frees or replaces it (mig_fini() does, after the shards
 * stopped). A state refused is freed before the phase leaves
 * MIG_WAITING, so no shard ever reads it.
 *
 * Return: true if the state is taken
 */
static bool mig_state_load(struct mig *m, int fd)
{
	char since[96];
	struct mig_xfer *x = &m->x;
	uint32_t body, nfds;
	const char *why = NULL;
	int exp;

	if (atomic_load(&m->phase) != MIG_WAITING) {
		warn("migration: a second device state LOAD refused: one state "
		     "per gateway (nothing of it read)");
		return false;
	}
	mig_all_shards(m, mig_hold_call);
	if (atomic_load(&m->first_run_ns))
		why = "the VM ran here already (a state loads only into a "
		      "gateway whose rings never ran)";
	if (!why) {
		mig_xfer_free(x); /* ours: no shard reads it while WAITING */
		why = mig_state_read(m, fd);
	}
	if (!why && x->len < MIG_HDR_LEN)
		why = "a state cut short";
	if (!why)
		why = mig_parse_hdr(x->buf, x->len, &body, &nfds);
	if (!why && (body != x->len - MIG_HDR_LEN || nfds))
		why = "a state of the wrong length, or naming descriptors "
		      "(none come through the frontend)";
	if (!why)
		why = mig_accept(m, body, 0, MIG_RECEIVED);
	if (why) {
		warn("migration: the VM's device state refused: %s", why);
		mig_xfer_free(x);
		/* the held shards serve the guest without it */
		exp = MIG_WAITING;
		atomic_compare_exchange_strong(&m->phase, &exp, MIG_GAVE_UP);
		return false;
	}
	/* the shards' now: read only */
	info("migration: device state taken: %u TCP flows (%u held segments), "
	     "%zu bytes, %s",
	     x->counts.tcp, x->counts.ooo, x->len,
	     mig_since_source(x, since, sizeof(since)));
	return true;
}

/**
 * mig_device_state() - a transfer through the frontend's device-state fd
 * (SET_DEVICE_STATE_FD), its verdict for CHECK_DEVICE_STATE
 * @m:		migration state
 * @fd:		the fd (closed here)
 * @dir:	EDGE_MIG_SAVE or EDGE_MIG_LOAD
 *
 * #syscalls close
 */
static void mig_device_state(struct mig *m, int fd, int dir)
{
	bool ok = dir == EDGE_MIG_SAVE ? mig_state_save(m, fd) :
					 mig_state_load(m, fd);

	/* the verdict (and the answer to a CHECK that waits for it) before
	 * the end of stream the frontend sees, after which it asks */
	vu_device_state_done(m->e, ok);
	close(fd);
}

/**
 * mig_refuse() - answer a source with a refusal
 * @m:		migration state (its stop)
 * @fd:		its connection
 * @why:	the reason
 */
static void mig_refuse(struct mig *m, int fd, const char *why)
{
	char ans[128] = { 0 };

	warn("migration: a source's state refused: %s", why);
	snprintf(ans, sizeof(ans), "NO %s", why);
	mig_write_all(m, fd, (const uint8_t *)ans, sizeof(ans) - 1);
}

/**
 * mig_dest_take() - take one source's stream on its connection
 * @m:		migration state
 * @fd:		the connection
 *
 * Return: true if the state is ours now
 */
static bool mig_dest_take(struct mig *m, int fd)
{
	char since[96];
	struct mig_xfer *x = &m->x;
	uint8_t hdr[MIG_HDR_LEN];
	uint32_t body, nfds;
	const char *why;
	char ans[8];
	int ret;

	ret = mig_recv_all(m, fd, hdr, sizeof(hdr));
	if (ret) {
		warn("migration: a source went away before its state: %s",
		     strerror(-ret));
		return false;
	}
	why = mig_parse_hdr(hdr, sizeof(hdr), &body, &nfds);
	if (why) {
		mig_refuse(m, fd, why);
		return false;
	}
	if (mig_xfer_alloc(x, MIG_HDR_LEN + (size_t)body, nfds)) {
		mig_refuse(m, fd, "out of memory");
		goto fail;
	}
	memcpy(x->buf, hdr, MIG_HDR_LEN);
	x->len = MIG_HDR_LEN + (size_t)body;
	ret = mig_recv_all(m, fd, x->buf + MIG_HDR_LEN, body);
	if (!ret) {
		x->nfds = nfds;
		ret = mig_recv_fds(m, fd, x->fds, nfds);
	}
	if (ret) {
		mig_refuse(m, fd,
			   ret == -EPROTO ?
				   "its descriptors came cut short (raise "
				   "the open files limit)" :
				   "the stream broke off");
		goto fail;
	}
	why = mig_accept(m, body, nfds, MIG_PENDING);
	if (why) {
		mig_refuse(m, fd, why);
		goto fail;
	}
	/* two steps, so that the flows are never both sides': we say we
	 * can take them, the source lets them go and says so */
	if (mig_write_all(m, fd, (const uint8_t *)"OK", 2) ||
	    mig_recv_answer(m, fd, ans, sizeof(ans)) || strcmp(ans, "GO")) {
		warn("migration: the source did not let its flows go: the "
		     "state is dropped");
		atomic_store(&m->phase, MIG_WAITING);
		goto fail;
	}
	atomic_store(&m->phase, MIG_HELD);
	info("migration: state taken: %u TCP flows (%u held segments), %u UDP "
	     "flows, %u listeners, %zu bytes, %s",
	     x->counts.tcp, x->counts.ooo, x->counts.udp, x->counts.listeners,
	     x->len, mig_since_source(x, since, sizeof(since)));
	return true;
fail:
	mig_xfer_free(x);
	return false;
}

/**
 * mig_unlink() - remove the destination's socket file: one source is
 * served, and a later one cannot reach us by name
 * @m:		migration state
 */
static void mig_unlink(struct mig *m)
{
	if (!m->lfd_path)
		return;
	qsock_path_unlink(m->dirfd, m->conf->migrate_from);
	m->dirfd = -1;
	m->lfd_path = false;
}

/**
 * mig_dest_verdict() - the destination holds a state: the source's word on
 * it, "YES!" (ours: the shards take it) or "BACK" (the VM runs there
 * again: our copies are dropped, the guest served without them); a source
 * gone without a word let it go with its process (its copies closed)
 * @m:		migration state (MIG_HELD)
 * @fd:		the connection (readable)
 */
static void mig_dest_verdict(struct mig *m, int fd)
{
	char w[MIG_WORD_LEN + 1];
	int ret = mig_recv_word(m, fd, w);

	if (!ret && !strcmp(w, "BACK")) {
		/* the shards do not look at the stream while MIG_HELD: its
		 * sockets close without a reset, the source holds them */
		mig_xfer_free(&m->x);
		atomic_store(&m->phase, MIG_GAVE_UP);
		info("migration: the source took its flows back (its VM runs "
		     "there again): our copies dropped");
		return;
	}
	if (ret)
		info("migration: the source went away (%s): its flows are ours",
		     strerror(-ret));
	else if (strcmp(w, "YES!"))
		info("migration: the source said \"%s\": taken as a yes", w);
	atomic_store(&m->phase, MIG_RECEIVED);
}

/**
 * mig_dest_hold() - the destination holds a state that the source may
 * still take back: once a shard's rings run it asks the source ("RUN!"),
 * and the source's word decides (mig_dest_verdict())
 * @m:		migration state (MIG_HELD)
 * @fd:		the connection to the source
 *
 * #syscalls poll read
 * Return: false if the gateway stops first
 */
static bool mig_dest_hold(struct mig *m, int fd)
{
	struct pollfd pfd[3] = {
		{ .fd = m->stopfd, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
		{ .fd = m->runfd, .events = POLLIN },
	};
	uint64_t v;

	for (;;) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			err_perror("migration: poll");
			return false;
		}
		if (pfd[0].revents)
			return false;
		if (pfd[1].revents) {
			mig_dest_verdict(m, fd);
			return true;
		}
		if (pfd[2].revents && read(m->runfd, &v, sizeof(v)) > 0) {
			pfd[2].fd = -1; /* asked once */
			/* a source gone is seen as its end of stream */
			if (mig_send_word(m, fd, "RUN!"))
				debug("migration: the source cannot be asked");
		}
	}
}

/**
 * mig_source_event() - the source's edge spoke (mig_evfd): a device-state
 * transfer, the device stopped for a migration, or a ring started again
 * after that
 * @m:		migration state
 *
 * #syscalls read
 * Return: true once the flows are the destination's for good (the thread
 * ends)
 */
static bool mig_source_event(struct mig *m)
{
	unsigned stops, resumes;
	uint64_t v;
	int sfd;

	if (read(m->evfd, &v, sizeof(v)) < 0)
		return false;
	/* acquire: pairs with vu_set_device_state_fd() */
	sfd = __atomic_exchange_n(&m->e->mig_state_fd, -1, __ATOMIC_ACQUIRE);
	if (sfd >= 0) {
		mig_device_state(m, sfd, m->e->mig_state_dir);
		return false;
	}
	/* a stop: the downtime starts here (the device state, if it goes
	 * through the frontend, comes after QEMU's last copy of the RAM) */
	m->stop_wall_ns = realtime_ns();
	m->stop_mono_ns = now_mono_ns();
	if (!m->conf->migrate_to)
		return false; /* the device state comes next */
	/* acquire: pair with vu_get_vring_base() and vu_mig_resumed() */
	stops = __atomic_load_n(&m->e->mig_stops, __ATOMIC_ACQUIRE);
	resumes = __atomic_load_n(&m->e->mig_resumes, __ATOMIC_ACQUIRE);
	if (atomic_load(&m->pending)) {
		/* not resumed since the stop we handed over at */
		if ((int)(resumes - m->stops_seen) < 0)
			return false;
		mig_source_back(m);
		/* and stopped again meanwhile: handed over again below */
	}
	if (stops == m->stops_seen)
		return false;
	m->stops_seen = stops;
	if (resumes == stops)
		return false; /* stopped and running again already */
	info("migration: the VM stopped with dirty logging on: handing its "
	     "flows to %s",
	     m->conf->migrate_to);
	mig_source_send(m);
	/* a resume while we sent: its kick is still to read, and the poll
	 * sees it */
	return false;
}

/**
 * mig_source_thread() - the source's migration thread: waits for its
 * device to stop for a migration, hands the flows over, and until the
 * destination runs them, takes them back if the VM resumes here
 * @m:		migration state
 *
 * #syscalls poll
 */
static void mig_source_thread(struct mig *m)
{
	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = m->stopfd, .events = POLLIN },
			{ .fd = m->evfd, .events = POLLIN },
			{ .fd = m->cfd, .events = POLLIN },
		};

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			err_perror("migration: poll");
			return;
		}
		if (pfd[0].revents) {
			if (atomic_load(&m->pending))
				mig_source_stop(m);
			return;
		}
		/* the VM resumed here first: "BACK" before any "YES!" */
		if (pfd[1].revents && mig_source_event(m))
			return;
		if (pfd[2].revents && m->cfd >= 0 && atomic_load(&m->pending) &&
		    mig_source_peer(m))
			return;
	}
}

/**
 * mig_thread() - the migration thread: the source waits for its device
 * to stop, the destination for a source
 * @arg:	struct mig
 *
 * #syscalls poll ppoll accept accept4 close
 * Return: NULL
 */
static void *mig_thread(void *arg)
{
	struct mig *m = arg;
	struct pollfd pfd[2] = {
		{ .fd = m->stopfd, .events = POLLIN },
		{ .fd = m->lfd, .events = POLLIN },
	};

	pthread_barrier_wait(m->barrier);
	if (m->lfd < 0) {
		mig_source_thread(m);
		return NULL;
	}
	for (;;) {
		int fd;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err_perror("migration: poll");
			return NULL;
		}
		if (pfd[0].revents)
			return NULL;
		if (!pfd[1].revents)
			continue;
		fd = accept4(m->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (!mig_peer_ok(fd, "source")) {
			close(fd);
			continue;
		}
		mig_unlink(m);
		if (mig_dest_take(m, fd)) {
			mig_dest_hold(m, fd);
			close(fd);
			return NULL;
		}
		close(fd);
		if (atomic_load(&m->phase) == MIG_GAVE_UP)
			return NULL;
	}
}

/**
 * mig_listen() - the destination's socket, bound before the sandbox
 * @path:	where
 *
 * #syscalls:setup socket bind listen close
 * Return: the listening socket, or -errno (logged)
 */
static int mig_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	strcpy(sa.sun_path, path);
	/* mode 0600: only our user hands us flows */
	if (qsock_bind_private(fd, &sa) || listen(fd, 1)) {
		ret = -errno;
		errno = -ret;
		err_perror("--migrate-from: cannot listen at %s%s", path,
			   ret == -EADDRINUSE ? " (it exists: remove it, or "
						"pick another path)" :
						"");
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * mig_init() - live migration's set-up: the destination's socket, the
 * source's signal from the edge
 * @grp:	the shards (@grp->mig set here)
 * @conf:	configuration (--migrate-to, --migrate-from)
 * @e:		the vhost-user edge
 *
 * Context: start-up, main thread, before the sandbox
 * #syscalls:setup eventfd2
 * Return: 0 (also without either option), or -errno (logged)
 */
int mig_init(struct shard_group *grp, const struct conf *conf, struct edge *e)
{
	struct mig *m;
	unsigned k;
	int ret;

	if (!conf->migrate_to && !conf->migrate_from && !conf->migrate_repair)
		return 0;
	/* the runtime calls these while grp->mig is set */
	shard_hooks.mig_handed_over = mig_handed_over;
	shard_hooks.mig_poll = mig_shard_poll;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->conf = conf;
	m->grp = grp;
	m->e = e;
	m->lfd = m->evfd = m->dirfd = m->cfd = m->runfd = m->vet.diagfd = -1;
	m->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->stopfd < 0)
		goto fail_errno;
	ret = mig_vet_init(&m->vet, conf);
	if (ret)
		goto fail;
	if (conf->migrate_from) {
		fwd_prepare();
		m->lfd = mig_listen(conf->migrate_from);
		if (m->lfd < 0) {
			ret = m->lfd;
			goto fail;
		}
		m->dirfd = qsock_path_dir(conf->migrate_from);
		m->lfd_path = true;
		m->runfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (m->runfd < 0)
			goto fail_errno;
		for (k = 0; k < grp->n; k++)
			shard_mig_hold(grp->sh[k]);
		info("migration: waiting for a source's state at %s; the "
		     "guest's queues and published ports wait for it",
		     conf->migrate_from);
	} else {
		m->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (m->evfd < 0)
			goto fail_errno;
		e->mig_evfd = m->evfd;
		/* no channel of our own: the frontend carries the state */
		e->mig_devstate = !conf->migrate_to;
	}
	/* the shards' call slots are woken through their mailbox fds */
	ret = shard_api_wake_init(grp->sh[0]);
	if (ret)
		goto fail;
	grp->mig = m;
	return 0;
fail_errno:
	ret = -errno;
fail:
	if (m->stopfd >= 0)
		close(m->stopfd);
	if (m->evfd >= 0)
		close(m->evfd);
	if (m->runfd >= 0)
		close(m->runfd);
	if (m->lfd >= 0)
		close(m->lfd);
	mig_vet_fini(&m->vet);
	free(m);
	return ret;
}

/**
 * mig_active() - does the migration thread join the start-up barrier?
 * @grp:	the shards
 *
 * Return: true with --migrate-to or --migrate-from
 */
bool mig_active(const struct shard_group *grp)
{
	return grp->mig;
}

/**
 * mig_start() - start the migration thread
 * @grp:	the shards
 * @barrier:	the start-up barrier it waits on
 *
 * Return: 0, or -errno
 */
int mig_start(struct shard_group *grp, pthread_barrier_t *barrier)
{
	struct mig *m = grp->mig;
	int ret;

	if (!m)
		return 0;
	m->barrier = barrier;
	ret = pthread_create(&m->tid, NULL, mig_thread, m);
	if (ret)
		return -ret;
	m->started = true;
	return 0;
}

/**
 * mig_stop() - stop the migration thread (before the shards stop: it may
 * be waiting for them)
 * @grp:	the shards
 *
 * #syscalls write
 */
void mig_stop(struct shard_group *grp)
{
	struct mig *m = grp->mig;
	uint64_t one = 1;

	if (!m || !m->started)
		return;
	if (write(m->stopfd, &one, sizeof(one)) < 0)
		warn_perror("migration: stop");
	pthread_join(m->tid, NULL);
	m->started = false;
}

/**
 * mig_fini() - free what mig_init() made, close what nobody took
 * @grp:	the shards
 *
 * #syscalls close
 */
void mig_fini(struct shard_group *grp)
{
	struct mig *m = grp->mig;

	if (!m)
		return;
	mig_xfer_free(&m->x);
	mig_unlink(m);
	if (m->lfd >= 0)
		close(m->lfd);
	if (m->evfd >= 0)
		close(m->evfd);
	if (m->runfd >= 0)
		close(m->runfd);
	if (m->cfd >= 0)
		close(m->cfd);
	close(m->stopfd);
	mig_vet_fini(&m->vet);
	free(m);
	grp->mig = NULL;
}

/**
 * mig_dirfd() - the destination's socket file's directory, for the sandbox
 * @grp:	the shards
 *
 * Return: an O_PATH fd, or -1
 */
int mig_dirfd(const struct shard_group *grp)
{
	return grp->mig ? grp->mig->dirfd : -1;
}

/**
 * mig_handed_over() - did this source hand its flows over? (Its frontend
 * leaving then ends the gateway: a VM that cannot resume here.)
 * @grp:	the shards
 *
 * Return: true once the destination took them, also while it has not run
 * them yet (the thread then lets them go as the gateway stops:
 * mig_source_stop())
 */
bool mig_handed_over(const struct shard_group *grp)
{
	return grp->mig && (atomic_load(&grp->mig->handed) ||
			    atomic_load(&grp->mig->pending));
}

/**
 * mig_publish() - the destination publishes its ports: the source's
 * listening sockets where they match, bound anew where none came
 * @sh:		shard 0
 * @x:		the source's stream, or NULL if none came
 *
 * #syscalls close
 */
static void mig_publish(struct shard *sh, struct mig_xfer *x)
{
	const uint8_t *p = x ? x->buf + MIG_HDR_LEN : NULL;
	int *pool = x ? calloc(x->counts.listeners + 1, sizeof(int)) : NULL;
	unsigned n = 0, i, left = 0;
	struct mig_listen l;
	struct mig_rec r;

	while (pool && mig_next(&p, x->buf + x->len, &r) > 0) {
		if (r.type != MIG_REC_LISTEN || mig_get_listen(&r, x->nfds, &l))
			continue;
		pool[n++] = x->fds[l.fd];
		x->fds[l.fd] = -1;
	}
	sh->lis.pool = pool;
	sh->lis.npool = n;
	if (fwd_init(sh))
		warn("migration: not every published port could be opened "
		     "(above)");
	for (i = 0; i < n; i++) {
		if (pool[i] < 0)
			continue;
		close(pool[i]);
		left++;
	}
	if (left)
		info("migration: %u listening socket(s) of the source match no "
		     "port published here: closed",
		     left);
	sh->lis.pool = NULL;
	sh->lis.npool = 0;
	free(pool);
}

/**
 * mig_shard_poll() - a destination's held shard: take the flows once the
 * state is here and the guest's rings run, or go on without them
 * @sh:		shard (@sh->mig_hold set)
 *
 * Context: the shard, at the end of each loop iteration while held
 * #syscalls write
 */
void mig_shard_poll(struct shard *sh)
{
	char since[96];
	struct mig *m = sh->grp->mig;
	int phase = atomic_load(&m->phase);
	uint64_t frames = sh->stats.ctr[CTR_EDGE_TX_FRAMES] +
			  sh->stats.ctr[CTR_EDGE_RX_FRAMES];
	bool run;

	if (atomic_load(&m->src_hold))
		return; /* a source's hold: mig_import_back() ends it */
	if (sh->mig_frames) {
		/* the downtime ends with the first frame forwarded */
		if (frames + 1 == sh->mig_frames)
			return;
		info("migration: shard %u: first frame forwarded %.1f ms "
		     "after its rings ran here; %s",
		     sh->id, (double)(sh->now_ns - sh->mig_ready_ns) / 1e6,
		     mig_since_source(&m->x, since, sizeof(since)));
		sh->mig_frames = 0;
		return;
	}
	run = !sh->edge->ops->running ||
	      sh->edge->ops->running(sh->edge, sh->q);
	if (run && !atomic_load(&m->first_run_ns))
		atomic_store(&m->first_run_ns, sh->now_ns);
	/* a pair the guest does not use (fewer CPUs than pairs) never
	 * runs: its shard takes its flows once another pair has run a
	 * while (their frames come to it through the other shards) */
	if (!run && (phase != MIG_RECEIVED || !atomic_load(&m->first_run_ns) ||
		     sh->now_ns - atomic_load(&m->first_run_ns) <
			     MIG_IDLE_PAIR_MS * 1000000ULL))
		return;
	if (!sh->mig_ready_ns)
		sh->mig_ready_ns = sh->now_ns;
	if (phase == MIG_PENDING)
		return; /* a state is on its way: no giving up now */
	if (phase == MIG_HELD) {
		uint64_t one = 1;

		/* the source may still take it back: ask it once, then wait
		 * for its word (mig_dest_hold()) */
		if (!atomic_exchange(&m->asked, 1) &&
		    write(m->runfd, &one, sizeof(one)) < 0)
			warn_perror("migration: cannot ask the source");
		return;
	}
	if (phase == MIG_WAITING) {
		int exp = MIG_WAITING;

		if (sh->now_ns - sh->mig_ready_ns < MIG_WAIT_MS * 1000000ULL)
			return;
		if (atomic_compare_exchange_strong(&m->phase, &exp,
						   MIG_GAVE_UP))
			warn("migration: the VM runs and no source's state "
			     "came in %u ms: serving it without (its "
			     "connections are lost)",
			     MIG_WAIT_MS);
		phase = atomic_load(&m->phase);
	}
	if (phase == MIG_RECEIVED) {
		shard_edge_sync(sh);
		mig_import(sh, &m->x);
		info("migration: shard %u: flows in, %.1f ms after its rings "
		     "ran here; %s",
		     sh->id, (double)(sh->now_ns - sh->mig_ready_ns) / 1e6,
		     mig_since_source(&m->x, since, sizeof(since)));
		sh->mig_frames = frames + 1;
	}
	/* ports not published at start (--migrate-from) are now */
	if (!sh->id && sh->conf->migrate_from)
		mig_publish(sh, phase == MIG_RECEIVED ? &m->x : NULL);
	shard_mig_release(sh);
}
