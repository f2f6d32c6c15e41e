/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice.c - loopback clients of published ports spliced to the guest's loopback */

/**
 * DOC: Theory of Operation
 *
 * What splicing is for
 * --------------------
 *
 * Goal: a client on the host's loopback that connects to a published TCP
 * port reaches the guest's server without its bytes crossing the tap and
 * the guest's virtual NIC, and without a copy in user space. slipway
 * connects a socket made inside the guest's namespace (nsh.c) to the
 * guest port on the namespace's loopback (127.0.0.1; ::1 for IPv6
 * clients, then 127.0.0.1 if that is refused or unreachable) and moves the
 * bytes between the two sockets with splice() through one pipe per
 * direction. The guest's server sees the client as 127.0.0.1 (or ::1),
 * not as the gateway address. In pasta's addressing model (conf_net.c)
 * the namespace socket connects to the guest's own address instead, and
 * the server sees the client there, as pasta does: services bound to the
 * guest's loopback only are not published by accident; --host-lo-to-ns-lo
 * restores the loopback. Clients from other addresses keep the tap
 * path, so the guest sees their real address; --no-splice sends everyone
 * through the tap.
 *
 * The other way round: -T
 * -----------------------
 *
 * -T works the other way round with the same machinery: the helper makes
 * sockets listening on the guest's 127.0.0.1 (and ::1) ports, slipway
 * accepts the guest's connections there and connects a host socket of its
 * own to the host's loopback port (SPF_OUT). There is no tap path for
 * these: what cannot be spliced is reset (SPLICE_NS_DROPPED).
 *
 * Sides, directions and states
 * ----------------------------
 *
 * Sides and directions: side 0 is the accepted socket (the host client for
 * -t, the guest's for -T), side 1 the socket slipway connects (in the
 * guest's namespace for -t, in the host's for -T). Direction d moves bytes
 * from side d to side !d through pipe d: splice(side d -> pipe d), then
 * splice(pipe d -> side !d).
 *
 * States of a table entry (struct splice_conn):
 * - SPS_FREE: on the free stack; no descriptor is open.
 * - SPS_CONNECTING: the namespace socket's non-blocking connect() is in
 *   progress; nothing is read from either side yet (the client's bytes wait
 *   in its socket). Refused: the client gets a reset (SPLICE_REFUSED).
 * - SPS_OPEN: both directions run. Per direction: read while the pipe has
 *   room, write while the pipe holds bytes. A direction whose pipe is full
 *   stops reading its source until the destination takes bytes again
 *   (EPOLLOUT): backpressure is the pipe's size. When the source reads
 *   end of stream and the pipe is empty, the destination's write side is
 *   shut down (the FIN is forwarded); when both directions are shut, both
 *   sockets are closed (SPLICE_CLOSED). Every byte read into a pipe is
 *   written out before that. A reset or error on either side resets the
 *   other one (SO_LINGER 0) and ends the entry (SPLICE_RESET), after the
 *   other direction passed on what it could (as a direct connection
 *   delivers an answer that arrived before the reset).
 *
 * Events and pipes
 * ----------------
 *
 * Both sockets are in the epoll set once, edge-triggered, for input, output
 * and peer shutdown; every event of an entry runs both directions until
 * neither makes progress, so no edge is lost. A direction that moved its
 * budget in one go re-arms its descriptors (EPOLL_CTL_MOD re-reports a ready
 * descriptor) and yields to other connections.
 *
 * Pipes start at the kernel's default size and grow to SPLICE_PIPE_MAX the
 * first time one is half full, so idle and interactive connections do not
 * hold a megabyte of pipe each (an unprivileged user's pipe memory is
 * limited: fs.pipe-user-pages-soft).
 *
 * Sockets, and falling back to the tap
 * ------------------------------------
 *
 * Sockets come from a pool per family, filled by the helper: a connection
 * takes one without a round trip, and the pool is topped up asynchronously
 * (one request out at a time). An empty pool waits for the helper (at most
 * SPLICE_WAIT_MS, counted in SPLICE_POOL_WAITS). No socket, no pipe, a
 * full table or a namespace loopback that cannot be reached: the client
 * goes through the tap instead (SPLICE_FALLBACKS).
 *
 * Counters
 * --------
 *
 * Each entry counted in SPLICE_OPENED ends in exactly one of
 * SPLICE_CLOSED, SPLICE_RESET and SPLICE_REFUSED, or is still in
 * SPLICE_ACTIVE.
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "os/sys.h"
#include "os/nsh.h"
#include "os/sockaddr.h"
#include "shard/shard.h"
#include "svc/splice.h"
#include "util/log.h"

#define SPLICE_PIPE_MAX (1 << 20)	    /* pipes grow to this when busy */
#define SPLICE_BUDGET (4 * SPLICE_PIPE_MAX) /* bytes per direction per event */
#define SPLICE_PIPE_MIN 65536 /* smaller pipes: the tap path is faster */
#define SPLICE_TIGHT_NS (10ULL * 1000 * 1000 * 1000) /* then, tap for 10 s */
#define SPLICE_WAIT_MS 1000 /* longest wait for the helper */
#define SPLICE_POOL_MAX 8
#define SPLICE_IDX_NSH (1U << 31) /* EP_IDX of the helper socket */
#define SPLICE_EVENTS (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET)
#define SPLICE_WARN_NS (10ULL * 1000000000ULL)

/* sockets kept ready per family: IPv4, IPv6 (IPv6 clients are rarer) */
static const unsigned splice_pool_target[2] = { 8, 4 };

enum splice_state { SPS_FREE, SPS_CONNECTING, SPS_OPEN };

#define SPF_EOF(d) (0x01U << (d))   /* side d's stream ended */
#define SPF_SHUT(d) (0x04U << (d))  /* direction d done: side !d shut */
#define SPF_GROWN(d) (0x10U << (d)) /* pipe d was grown (or tried) */
#define SPF_V6 0x40U		    /* the side 1 socket is IPv6 */
#define SPF_OUT 0x80U /* -T: side 0 is the guest's, side 1 the host's */

/**
 * struct splice_conn - one spliced connection
 * @fd:		sockets: [0] the accepted client, [1] the namespace side
 * @pipe_r:	read end of the pipe of each direction
 * @pipe_w:	write end of the pipe of each direction
 * @pending:	bytes in each direction's pipe
 * @pipe_len:	size of each direction's pipe
 * @moved:	bytes each direction wrote out of its pipe (ctl flows)
 * @moves:	splice() calls that wrote some of them, each direction
 * @rate:	samples of @moved for the rates (ctl flows)
 * @opened_ns:	when the entry started
 * @last_ns:	when bytes last moved, either way
 * @peer:	side 0's peer as accept() gave it (16 bytes, IPv4
 *		v4-mapped): the host's client (-t) or the guest's (-T)
 * @peer_port:	its port
 * @ns_port:	-T: the guest loopback port the guest connected to; else 0
 * @port:	the port side 1 connects to: the guest's (-t) or the host's (-T)
 * @state:	enum splice_state
 * @flags:	SPF_*
 */
struct splice_conn {
	int fd[2];
	int pipe_r[2];
	int pipe_w[2];
	uint32_t pending[2];
	uint32_t pipe_len[2];
	uint64_t moved[2];
	uint64_t moves[2];
	struct flow_rate rate;
	uint64_t opened_ns;
	uint64_t last_ns;
	uint8_t peer[16];
	uint16_t peer_port;
	uint16_t ns_port;
	uint16_t port;
	uint8_t state;
	uint8_t flags;
};

/**
 * struct splice_tl - a -T port: a socket listening on the guest's loopback
 * @fd:		the socket, made by the helper; -1: a free slot
 * @host_port:	the host loopback port its connections go to
 * @guest_port:	the port it listens on
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @paused:	out of fds: not armed until splice_resume()
 * @tag:	0, or for a port "auto" opened, 1 + its range's index (-T)
 */
struct splice_tl {
	int fd;
	uint16_t host_port;
	uint16_t guest_port;
	int af;
	bool paused;
	unsigned tag;
};

/**
 * struct splice - a shard's spliced connections and socket pools
 * @conns:	table, @max entries
 * @free:	stack of free entry indices
 * @nfree:	entries on @free
 * @max:	table size
 * @nsh_fd:	socket to the namespace helper, -1 once it is gone
 * @pool:	ready namespace sockets, per family (0: IPv4, 1: IPv6)
 * @npool:	entries in @pool
 * @fam_off:	the helper cannot make sockets of this family
 * @req_out:	a request to the helper is unanswered
 * @req_late:	... and a wait for it timed out: do not wait again
 * @seq:	sequence number of the last request
 * @warned_ns:	when a rate-limited warning was last printed
 * @tight_ns:	when a pipe last could not grow (this user's pipe memory,
 *		fs.pipe-user-pages-soft, is used up), or 0
 * @lo_clients:	splice loopback clients of -t ports (not --no-splice)
 * @tl:		-T listeners
 * @ntl:	entries in @tl (free ones too)
 * @tl_cap:	room in @tl
 */
struct splice {
	struct splice_conn *conns;
	uint32_t *free;
	uint32_t nfree;
	uint32_t max;
	int nsh_fd;
	int pool[2][SPLICE_POOL_MAX];
	unsigned npool[2];
	bool fam_off[2];
	bool req_out;
	bool req_late;
	uint32_t seq;
	uint64_t warned_ns;
	uint64_t tight_ns;
	bool lo_clients;
	struct splice_tl *tl;
	unsigned ntl;
	unsigned tl_cap;
};

/**
 * splice_fam_af() - address family of a family index
 * @fam:	0 (IPv4) or 1 (IPv6)
 *
 * Return: AF_INET or AF_INET6
 */
static int splice_fam_af(int fam)
{
	return fam ? AF_INET6 : AF_INET;
}

/**
 * splice_client_fam() - is this client on the loopback, and of which family?
 * @sa:		the client's address (struct sockaddr_in or sockaddr_in6)
 *
 * 127.0.0.0/8 and ::ffff:127.0.0.0/104 are IPv4 loopback clients, ::1 an
 * IPv6 one.
 *
 * Return: 0 (IPv4 loopback), 1 (IPv6 loopback), or -1 (not loopback)
 */
static int splice_client_fam(const void *sa)
{
	const struct sockaddr_in *s4 = sa;
	const struct sockaddr_in6 *s6 = sa;

	if (s4->sin_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127 ? 0 : -1;
	if (s6->sin6_family != AF_INET6)
		return -1;
	if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
		return 1;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) &&
	    s6->sin6_addr.s6_addr[12] == 127)
		return 0;
	return -1;
}

/**
 * splice_warn_ok() - may a rate-limited warning be printed now?
 * @sh:	shard
 *
 * Return: true at most once per SPLICE_WARN_NS
 */
static bool splice_warn_ok(struct shard *sh)
{
	struct splice *sp = sh->svc.splice;

	if (sp->warned_ns && sh->now_ns - sp->warned_ns < SPLICE_WARN_NS)
		return false;
	sp->warned_ns = sh->now_ns ? sh->now_ns : 1;
	return true;
}

/**
 * splice_nsh_gone() - the helper went away: stop asking it
 * @sh:	shard
 *
 * #syscalls close
 */
static void splice_nsh_gone(struct shard *sh)
{
	struct splice *sp = sh->svc.splice;

	if (sp->nsh_fd < 0)
		return;
	warn("the namespace socket helper exited: loopback clients of "
	     "published ports go through the tap once its %u spare sockets are "
	     "used",
	     sp->npool[0] + sp->npool[1]);
	close(sp->nsh_fd); /* also leaves the epoll set */
	sp->nsh_fd = -1;
	sp->req_out = false;
}

/**
 * splice_nsh_request() - ask the helper for sockets, unless a request is out
 * @sh:		shard
 * @fam:	family index
 * @count:	how many
 */
static void splice_nsh_request(struct shard *sh, int fam, unsigned count)
{
	struct splice *sp = sh->svc.splice;
	struct nsh_req req = { .op = NSH_OP_SOCKETS };
	int ret;

	if (sp->nsh_fd < 0 || sp->req_out || !count)
		return;
	req.family = splice_fam_af(fam);
	req.count = MIN(count, NSH_MAX_FDS);
	req.seq = ++sp->seq;
	ret = nsh_send(sp->nsh_fd, &req);
	if (ret) {
		if (ret != -EAGAIN)
			splice_nsh_gone(sh);
		return;
	}
	sp->req_out = true;
}

/**
 * splice_nsh_take() - take a reply to a pool request: sockets for the pool
 * @sh:		shard
 * @rsp:	the reply
 * @fds:	its sockets
 * @n:		how many
 *
 * Ownership: takes @fds.
 * #syscalls close
 */
static void splice_nsh_take(struct shard *sh, const struct nsh_rsp *rsp,
			    const int *fds, int n)
{
	struct splice *sp = sh->svc.splice;
	int i, fam;

	if (rsp->op != NSH_OP_SOCKETS) {
		/* a late answer to a call that gave up waiting */
		for (i = 0; i < n; i++)
			close(fds[i]);
		return;
	}
	sp->req_out = false;
	sp->req_late = false;
	fam = rsp->family == AF_INET6 ? 1 : 0;
	for (i = 0; i < n; i++) {
		if (sp->npool[fam] < SPLICE_POOL_MAX)
			sp->pool[fam][sp->npool[fam]++] = fds[i];
		else
			close(fds[i]);
	}
	if (!rsp->err) {
		/* connections took more meanwhile: top it up again */
		if (sp->npool[fam] < splice_pool_target[fam])
			splice_nsh_request(sh, fam,
					   splice_pool_target[fam] -
						   sp->npool[fam]);
		return;
	}
	if (fam && (rsp->err == EAFNOSUPPORT || rsp->err == EPROTONOSUPPORT)) {
		info("no IPv6 in the guest's namespace: IPv6 loopback clients "
		     "are spliced to 127.0.0.1");
		sp->fam_off[1] = true;
	} else if (splice_warn_ok(sh)) {
		errno = rsp->err;
		warn_perror("the namespace socket helper could not make "
			    "sockets (raise its open-files limit?)");
	}
}

/**
 * splice_nsh_input() - take the helper's replies: sockets for the pools
 * @sh:	shard
 *
 * #syscalls recvmsg close
 */
static void splice_nsh_input(struct shard *sh)
{
	struct splice *sp = sh->svc.splice;

	while (sp->nsh_fd >= 0) {
		struct nsh_rsp rsp;
		int fds[NSH_MAX_FDS], n;

		n = nsh_recv(sp->nsh_fd, &rsp, fds);
		if (n == -EAGAIN)
			return;
		if (n == -EMFILE) {
			/* transient: the next taker asks again */
			sp->req_out = false;
			if (splice_warn_ok(sh))
				warn("out of file descriptors for sockets from "
				     "the namespace socket helper (ulimit -n)");
			continue;
		}
		if (n < 0) {
			splice_nsh_gone(sh);
			return;
		}
		splice_nsh_take(sh, &rsp, fds, n);
	}
}

/**
 * splice_pool_wait() - wait for the helper until a family's pool is not empty
 * @sh:		shard
 * @fam:	family index
 *
 * Sends at most one request of its own and waits at most SPLICE_WAIT_MS;
 * after a timeout it does not wait again until the helper has answered.
 *
 * #syscalls poll
 */
static void splice_pool_wait(struct shard *sh, int fam)
{
	struct splice *sp = sh->svc.splice;
	uint64_t end = now_mono_ns() + SPLICE_WAIT_MS * 1000000ULL;
	bool sent = false;

	while (!sp->npool[fam] && sp->nsh_fd >= 0 && !sp->fam_off[fam] &&
	       !sp->req_late) {
		struct pollfd pfd = { .fd = sp->nsh_fd, .events = POLLIN };
		uint64_t now = now_mono_ns();
		int ret;

		if (!sp->req_out) {
			if (sent)
				return; /* answered, without sockets */
			splice_nsh_request(sh, fam, splice_pool_target[fam]);
			if (!sp->req_out)
				return;
			sent = true;
		}
		if (now >= end) {
			sp->req_late = true;
			warn("the namespace socket helper did not answer "
			     "within %u ms: loopback clients go through the "
			     "tap until it does",
			     SPLICE_WAIT_MS);
			return;
		}
		ret = poll(&pfd, 1, (int)((end - now) / 1000000ULL) + 1);
		if (ret < 0 && errno != EINTR)
			return;
		if (ret > 0)
			splice_nsh_input(sh);
	}
}

/**
 * splice_sock_get() - a namespace socket of a family, from the pool
 * @sh:		shard
 * @fam:	family index
 *
 * Tops the pool up asynchronously (one request out at a time, so a burst
 * of connections is served in batches); an empty pool waits for the
 * helper.
 *
 * Ownership: the caller owns the returned socket.
 * Return: socket, or -1
 */
static int splice_sock_get(struct shard *sh, int fam)
{
	struct splice *sp = sh->svc.splice;
	unsigned target = splice_pool_target[fam];
	int fd;

	if (sp->fam_off[fam])
		return -1;
	if (!sp->npool[fam]) {
		if (sp->nsh_fd >= 0 && !sp->req_late)
			CTR_INC(&sh->core, SPLICE_POOL_WAITS);
		splice_pool_wait(sh, fam);
		if (!sp->npool[fam])
			return -1;
	}
	fd = sp->pool[fam][--sp->npool[fam]];
	splice_nsh_request(sh, fam, target - sp->npool[fam]);
	return fd;
}

/**
 * splice_side1_sock() - a socket for side 1 of an entry
 * @sh:		shard
 * @out:	-T: a host socket, made here; else one of the guest's namespace
 * @fam:	family index
 *
 * #syscalls socket
 * Return: socket, or -1 (errno set for a host socket)
 */
static int splice_side1_sock(struct shard *sh, bool out, int fam)
{
	if (out)
		return socket(splice_fam_af(fam),
			      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	return splice_sock_get(sh, fam);
}

/**
 * splice_pipes() - make the two pipes of an entry
 * @c:		entry (pipe descriptors -1)
 * @small_ok:	keep pipes smaller than SPLICE_PIPE_MIN (no other path)
 *
 * Over fs.pipe-user-pages-soft, an unprivileged user's new pipes get two
 * pages: spliced in 8 KiB steps, a connection costs several times the CPU
 * of the tap path (docs/experiments.md X23).
 *
 * #syscalls pipe2 fcntl close
 * Return: 0, -ENOBUFS if the pipes came out small, or -errno; nothing left
 *	   open on failure
 */
static int splice_pipes(struct splice_conn *c, bool small_ok)
{
	int d, p[2], ret;

	for (d = 0; d < 2; d++) {
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
			goto fail;
		c->pipe_r[d] = p[0];
		c->pipe_w[d] = p[1];
		ret = fcntl(p[1], F_GETPIPE_SZ);
		c->pipe_len[d] = ret > 0 ? (uint32_t)ret : 4096;
		if (c->pipe_len[d] < SPLICE_PIPE_MIN && !small_ok) {
			errno = ENOBUFS;
			goto fail;
		}
	}
	return 0;
fail:
	ret = -errno;
	for (d = 0; d < 2; d++) {
		if (c->pipe_r[d] >= 0)
			close(c->pipe_r[d]);
		if (c->pipe_w[d] >= 0)
			close(c->pipe_w[d]);
		c->pipe_r[d] = c->pipe_w[d] = -1;
	}
	return ret;
}

/**
 * splice_end() - close an entry's descriptors and free it
 * @sh:		shard
 * @idx:	entry index
 * @rst:	reset the sockets (SO_LINGER 0) instead of closing them
 *
 * #syscalls setsockopt close
 */
static void splice_end(struct shard *sh, uint32_t idx, bool rst)
{
	struct splice *sp = sh->svc.splice;
	struct splice_conn *c = &sp->conns[idx];
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	int d;

	for (d = 0; d < 2; d++) {
		if (c->fd[d] >= 0) {
			if (rst)
				setsockopt(c->fd[d], SOL_SOCKET, SO_LINGER, &l,
					   sizeof(l));
			close(c->fd[d]);
		}
		if (c->pipe_r[d] >= 0)
			close(c->pipe_r[d]);
		if (c->pipe_w[d] >= 0)
			close(c->pipe_w[d]);
	}
	if (c->state != SPS_FREE)
		CTR_ADD(&sh->core, SPLICE_ACTIVE, (uint64_t)-1); /* gauge */
	memset(c, 0, sizeof(*c));
	c->fd[0] = c->fd[1] = -1;
	c->pipe_r[0] = c->pipe_r[1] = c->pipe_w[0] = c->pipe_w[1] = -1;
	c->state = SPS_FREE;
	sp->free[sp->nfree++] = idx;
}

/**
 * splice_ep() - add or re-arm an entry's socket in the epoll set
 * @sh:		shard
 * @idx:	entry index
 * @side:	0 (client) or 1 (namespace)
 * @op:		EPOLL_CTL_ADD, or EPOLL_CTL_MOD to re-report a ready socket
 *
 * #syscalls epoll_ctl
 * Return: 0, or -errno
 */
static int splice_ep(struct shard *sh, uint32_t idx, int side, int op)
{
	struct epoll_event ev = {
		.events = SPLICE_EVENTS,
		.data.u64 = EP_DATA(EP_SPLICE, idx << 1 | (uint32_t)side),
	};

	if (epoll_ctl(sh->epfd, op, sh->svc.splice->conns[idx].fd[side], &ev))
		return -errno;
	return 0;
}

/**
 * splice_to_self() - would a -T connection reach one of slipway's own
 * listening sockets on the host's loopback (selfport.c)?
 * @sh:		shard
 * @c:		the connection (SPF_OUT; SPF_V6 says the family tried)
 *
 * Counted once per connection: on its IPv4 attempt, the last one.
 *
 * Return: true if it must be refused
 */
static bool splice_to_self(struct shard *sh, const struct splice_conn *c)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	bool v6 = c->flags & SPF_V6;

	if (v6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons(c->port);
	} else {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s4->sin_port = htons(c->port);
	}
	if (!selfport_reached(&sh->grp->self, IPPROTO_TCP, &ss))
		return false;
	if (!v6)
		CTR_INC(&sh->core, TCP_REFUSED_SELF);
	return true;
}

/**
 * splice_dst() - where side 1 of an entry connects, in either family
 * @sh:		shard
 * @c:		entry (@port and SPF_OUT set)
 * @s4:		out: the IPv4 address and port
 * @s6:		out: the IPv6 address and port
 *
 * The loopback of the guest (-t) or of the host (-T); in pasta's model,
 * a -t client goes to the guest's public address, unless
 * --host-lo-to-ns-lo (services bound to the guest's loopback only stay
 * private, as with pasta).
 */
static void splice_dst(const struct shard *sh, const struct splice_conn *c,
		       struct sockaddr_in *s4, struct sockaddr_in6 *s6)
{
	memset(s4, 0, sizeof(*s4));
	memset(s6, 0, sizeof(*s6));
	s6->sin6_family = AF_INET6;
	s6->sin6_addr = in6addr_loopback;
	s6->sin6_port = htons(c->port);
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s4->sin_port = htons(c->port);
	if (!(c->flags & SPF_OUT) &&
	    sh->conf->addr_model == CONF_ADDR_HOST_COPY &&
	    !sh->conf->host_lo_to_ns_lo) {
		s4->sin_addr.s_addr = sh->conf->guest4;
		s6->sin6_addr = sh->conf->guest6;
	}
}

/**
 * splice_connect() - connect side 1 to its loopback: the guest's (-t) or
 *		      the host's (-T)
 * @sh:		shard
 * @idx:	entry index (fd[1] set, SPF_V6 says its family)
 *
 * An IPv6 socket that cannot connect to ::1 (refused or unreachable) is
 * replaced by an IPv4 one for 127.0.0.1 (pasta's model: the guest's
 * addresses instead of both): the server may listen on IPv4 only (many
 * do, and a guest without IPv6, --no-ipv6 or -4, has only IPv4).
 * A -T port that is one of slipway's own listening sockets on the host
 * (a published port: a loop; --metrics) is refused as a closed one.
 *
 * #syscalls connect close setsockopt epoll_ctl
 * Return: 0 if connected or in progress (state set, fd[1] in the epoll
 *	   set), or -errno of the last attempt (fd[1] still open, state
 *	   unchanged)
 */
static int splice_connect(struct shard *sh, uint32_t idx)
{
	struct splice_conn *c = &sh->svc.splice->conns[idx];
	int one = 1, e, fd;

	for (;;) {
		struct sockaddr_in6 s6;
		struct sockaddr_in s4;
		int ret;

		splice_dst(sh, c, &s4, &s6);
		setsockopt(c->fd[1], IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
		if ((c->flags & SPF_OUT) && splice_to_self(sh, c))
			e = ECONNREFUSED; /* slipway's own: as a closed port */
		else if (c->flags & SPF_V6)
			e = connect(c->fd[1], (struct sockaddr *)&s6,
				    sizeof(s6)) ?
				    errno :
				    0;
		else
			e = connect(c->fd[1], (struct sockaddr *)&s4,
				    sizeof(s4)) ?
				    errno :
				    0;
		if (!e || e == EINPROGRESS) {
			ret = splice_ep(sh, idx, 1, EPOLL_CTL_ADD);
			if (!ret)
				c->state = e ? SPS_CONNECTING : SPS_OPEN;
			return ret;
		}
		if (!(c->flags & SPF_V6))
			return -e;
		fd = splice_side1_sock(sh, c->flags & SPF_OUT, 0);
		if (fd < 0)
			return -e;
		debug("splice: %s port %u on ::1: %s; trying 127.0.0.1",
		      (c->flags & SPF_OUT) ? "host" : "guest", c->port,
		      strerror(e));
		close(c->fd[1]); /* also leaves the epoll set */
		c->fd[1] = fd;
		c->flags &= (uint8_t)~SPF_V6;
	}
}

/**
 * splice_tight() - pipes came out small or could not grow: loopback
 * clients go through the tap for SPLICE_TIGHT_NS from now
 * @sh:	shard
 */
static void splice_tight(struct shard *sh)
{
	sh->svc.splice->tight_ns = sh->now_ns ? sh->now_ns : 1;
}

/**
 * splice_grow() - grow a busy pipe once
 * @sh:	shard
 * @c:	entry
 * @d:	direction
 *
 * A pipe that cannot grow (this user's pipe memory is used up) keeps its
 * connection at several times the CPU per byte; new loopback clients go
 * through the tap for SPLICE_TIGHT_NS (splice_accept()).
 *
 * #syscalls fcntl
 */
static void splice_grow(struct shard *sh, struct splice_conn *c, int d)
{
	int ret;

	c->flags |= (uint8_t)SPF_GROWN(d);
	ret = fcntl(c->pipe_w[d], F_SETPIPE_SZ, SPLICE_PIPE_MAX);
	if (ret > 0) {
		c->pipe_len[d] = (uint32_t)ret;
		return;
	}
	CTR_INC(&sh->core, SPLICE_PIPE_SMALL);
	splice_tight(sh);
	if (splice_warn_ok(sh))
		warn_perror(
			"splice: a pipe cannot grow to %u bytes, this "
			"connection moves %u at a time at about twice the CPU, "
			"and loopback clients go through the tap for 10 s; "
			"raise fs.pipe-user-pages-soft or use --no-splice",
			SPLICE_PIPE_MAX, c->pipe_len[d]);
}

/**
 * splice_dir() - move what can be moved in one direction
 * @sh:		shard
 * @c:		entry (SPS_OPEN)
 * @d:		direction: from side @d to side !@d
 *
 * #syscalls splice shutdown
 * Return: 0 when the direction waits for an event, 1 if it stopped at its
 *	   budget with more to do, or -errno of a failed read or write
 */
static int splice_dir(struct shard *sh, struct splice_conn *c, int d)
{
	const unsigned fl = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
	int o = !d;
	size_t moved = 0;
	ssize_t n;

	for (;;) {
		bool progress = false;

		if (!(c->flags & SPF_EOF(d)) &&
		    c->pending[d] < c->pipe_len[d]) {
			n = splice(c->fd[d], NULL, c->pipe_w[d], NULL,
				   c->pipe_len[d] - c->pending[d], fl);
			if (n > 0) {
				c->pending[d] += (uint32_t)n;
				progress = true;
				if (!(c->flags & SPF_GROWN(d)) &&
				    c->pending[d] * 2 >= c->pipe_len[d])
					splice_grow(sh, c, d);
			} else if (n == 0) {
				c->flags |= (uint8_t)SPF_EOF(d);
			} else if (errno == EINTR) {
				continue;
			} else if (errno != EAGAIN) {
				return -errno;
			}
		}
		if (c->pending[d]) {
			n = splice(c->pipe_r[d], NULL, c->fd[o], NULL,
				   c->pending[d], fl);
			if (n > 0) {
				c->pending[d] -= (uint32_t)n;
				c->moved[d] += (uint64_t)n;
				c->moves[d]++;
				c->last_ns = sh->now_ns;
				moved += (size_t)n;
				progress = true;
				if ((d == 0) == !(c->flags & SPF_OUT))
					CTR_ADD(&sh->core,
						SPLICE_TO_GUEST_BYTES,
						(uint64_t)n);
				else
					CTR_ADD(&sh->core,
						SPLICE_FROM_GUEST_BYTES,
						(uint64_t)n);
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
		}
		if (!progress)
			break;
		if (moved >= SPLICE_BUDGET)
			return 1;
	}
	if ((c->flags & SPF_EOF(d)) && !c->pending[d] &&
	    !(c->flags & SPF_SHUT(d))) {
		if (shutdown(c->fd[o], SHUT_WR) && errno != ENOTCONN)
			return -errno;
		c->flags |= (uint8_t)SPF_SHUT(d);
	}
	return 0;
}

/**
 * splice_run() - move bytes both ways; end the entry when both are done
 * @sh:		shard
 * @idx:	entry index (SPS_OPEN)
 */
static void splice_run(struct shard *sh, uint32_t idx)
{
	struct splice_conn *c = &sh->svc.splice->conns[idx];
	bool more = false;
	int d, ret;

	for (d = 0; d < 2; d++) {
		ret = splice_dir(sh, c, d);
		if (ret < 0) {
			debug("splice %u: %s moving bytes %s the guest: "
			      "resetting both",
			      idx, strerror(-ret),
			      (d == 0) == !(c->flags & SPF_OUT) ? "to" :
								  "from");
			/* as a direct connection would, pass on what the other
			 * way holds (the guest's last answer) before the reset */
			if (d == 0)
				splice_dir(sh, c, 1);
			CTR_INC(&sh->core, SPLICE_RESET);
			splice_end(sh, idx, true);
			return;
		}
		more |= ret == 1;
	}
	if ((c->flags & SPF_SHUT(0)) && (c->flags & SPF_SHUT(1))) {
		CTR_INC(&sh->core, SPLICE_CLOSED);
		splice_end(sh, idx, false);
		return;
	}
	if (more) {
		/* re-reported by the next epoll_wait(): others go first */
		if (splice_ep(sh, idx, 0, EPOLL_CTL_MOD) ||
		    splice_ep(sh, idx, 1, EPOLL_CTL_MOD))
			warn_perror("splice %u: epoll re-arm", idx);
	}
}

/**
 * splice_refuse() - the guest refused: reset the client
 * @sh:		shard
 * @idx:	entry index
 */
static void splice_refuse(struct shard *sh, uint32_t idx)
{
	debug("splice %u: %s port %u refused", idx,
	      (sh->svc.splice->conns[idx].flags & SPF_OUT) ? "host" : "guest",
	      sh->svc.splice->conns[idx].port);
	CTR_INC(&sh->core, SPLICE_REFUSED);
	splice_end(sh, idx, true);
}

/**
 * splice_connected() - the namespace socket's connect() finished
 * @sh:		shard
 * @idx:	entry index (SPS_CONNECTING)
 *
 * #syscalls getsockopt getpeername
 */
static void splice_connected(struct shard *sh, uint32_t idx)
{
	struct splice_conn *c = &sh->svc.splice->conns[idx];
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(int);
	int err = 0, ret;

	if (getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &err, &sl))
		err = errno;
	if (!err) {
		/* an event from before the entry was reused: still going? */
		sl = sizeof(ss);
		if (getpeername(c->fd[1], (struct sockaddr *)&ss, &sl)) {
			if (errno == ENOTCONN)
				return;
			err = errno;
		}
	}
	if (err && (c->flags & SPF_V6)) {
		ret = splice_connect(sh, idx);
		if (!ret) {
			if (c->state == SPS_OPEN)
				splice_run(sh, idx);
			return;
		}
		err = -ret;
	}
	if (err == ECONNREFUSED) {
		splice_refuse(sh, idx);
		return;
	}
	if (err) {
		if (splice_warn_ok(sh)) {
			errno = err;
			warn_perror("cannot reach %s loopback port %u: "
				    "resetting the client",
				    (c->flags & SPF_OUT) ? "the host's" :
							   "the guest's",
				    c->port);
		}
		CTR_INC(&sh->core, SPLICE_RESET);
		splice_end(sh, idx, true);
		return;
	}
	c->state = SPS_OPEN;
	splice_run(sh, idx);
}

/**
 * splice_fallback() - count and say why a loopback client uses the tap
 * @sh:		shard
 * @port:	guest port
 * @why:	reason
 */
static void splice_fallback(struct shard *sh, uint16_t port, const char *why)
{
	CTR_INC(&sh->core, SPLICE_FALLBACKS);
	if (splice_warn_ok(sh))
		warn("loopback client of guest port %u carried through the "
		     "tap: %s",
		     port, why);
	else
		debug("loopback client of guest port %u carried through the "
		      "tap: %s",
		      port, why);
}

/**
 * splice_start() - splice an accepted socket to a new side 1 connection
 * @sh:		shard
 * @fd:		accepted socket (side 0), non-blocking
 * @s1:		unconnected side 1 socket
 * @port:	the port side 1 connects to on its loopback
 * @flags:	SPF_V6 for an IPv6 @s1, SPF_OUT for -T
 * @peer:	@fd's peer as accept() gave it (struct sockaddr_in or
 *		sockaddr_in6), for the control API's flow listing
 * @ns_port:	-T: the guest loopback port the guest connected to; else 0
 * @why:	out, when not started: the reason
 *
 * Ownership: on 1, the entry owns @fd and @s1; on 0, the caller keeps @fd
 * and @s1 is gone (closed, or back in its pool).
 * #syscalls setsockopt close epoll_ctl
 * Return: 1 if started (connected, connecting, or refused and reset), 0 if
 *	   it could not be
 */
static int splice_start(struct shard *sh, int fd, int s1, uint16_t port,
			uint8_t flags, const void *peer, uint16_t ns_port,
			const char **why)
{
	struct splice *sp = sh->svc.splice;
	int fam = (flags & SPF_V6) ? 1 : 0, one = 1, ret;
	struct splice_conn *c;
	uint32_t idx;

	if (!sp->nfree) {
		*why = "splice table full (--max-flows)";
		close(s1);
		return 0;
	}
	idx = sp->free[--sp->nfree];
	c = &sp->conns[idx];
	c->fd[0] = fd;
	c->fd[1] = s1;
	c->port = port;
	c->flags = flags;
	c->ns_port = ns_port;
	c->opened_ns = c->last_ns = sh->now_ns;
	sockaddr_to(peer, c->peer, &c->peer_port);
	ret = splice_pipes(c, flags & SPF_OUT);
	if (ret == -ENOBUFS)
		splice_tight(sh);
	if (ret) {
		c->fd[0] = -1; /* the caller keeps it */
		if (!(flags & SPF_OUT) && sp->npool[fam] < SPLICE_POOL_MAX) {
			sp->pool[fam][sp->npool[fam]++] = s1; /* unused */
			c->fd[1] = -1;
		}
		splice_end(sh, idx, false);
		*why = ret == -EMFILE || ret == -ENFILE ?
			       "no file descriptors for pipes (ulimit -n)" :
		       ret == -ENOBUFS ? "this user's pipe memory is used up "
					 "(fs.pipe-user-pages-soft): small "
					 "pipes are slower than the tap" :
					 "cannot create pipes";
		return 0;
	}
	ret = splice_connect(sh, idx);
	if (ret && ret != -ECONNREFUSED) {
		c->fd[0] = -1;
		splice_end(sh, idx, false);
		*why = "its loopback is unreachable (lo down?)";
		return 0;
	}
	CTR_INC(&sh->core, SPLICE_OPENED);
	CTR_INC(&sh->core, SPLICE_ACTIVE);
	if (flags & SPF_OUT)
		CTR_INC(&sh->core, SPLICE_NS_OPENED);
	if (ret) {
		c->state = SPS_CONNECTING; /* for the gauge */
		splice_refuse(sh, idx);
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ret = splice_ep(sh, idx, 0, EPOLL_CTL_ADD);
	if (ret) {
		errno = -ret;
		warn_perror("splice %u: epoll_ctl", idx);
		CTR_INC(&sh->core, SPLICE_RESET);
		splice_end(sh, idx, true);
		return 1;
	}
	if (c->state == SPS_OPEN)
		splice_run(sh, idx);
	return 1;
}

/**
 * splice_accept() - take an accepted published-port client, if it may be
 *		     spliced
 * @sh:		shard
 * @fd:		accepted socket, non-blocking
 * @sa:		the client's address (struct sockaddr_in or sockaddr_in6)
 * @guest_port:	the guest port it goes to
 *
 * Ownership: on true, splice owns @fd.
 * Return: true if spliced (or refused and closed), false if the caller
 *	   should carry it through the tap
 */
bool splice_accept(struct shard *sh, int fd, const void *sa,
		   uint16_t guest_port)
{
	struct splice *sp = sh->svc.splice;
	const char *why = "no socket from the namespace helper";
	int cfam, fam, ns;

	if (!sp || !sp->lo_clients)
		return false;
	cfam = splice_client_fam(sa);
	if (cfam < 0)
		return false;
	if (!sp->nfree) {
		splice_fallback(sh, guest_port,
				"splice table full (--max-flows)");
		return false;
	}
	if (sp->tight_ns && sh->now_ns - sp->tight_ns < SPLICE_TIGHT_NS) {
		splice_fallback(sh, guest_port,
				"pipes cannot grow lately "
				"(fs.pipe-user-pages-soft): the tap is faster");
		return false;
	}
	fam = sp->fam_off[1] ? 0 : cfam;
	ns = splice_sock_get(sh, fam);
	if (ns < 0 && fam) {
		fam = 0;
		ns = splice_sock_get(sh, fam);
	}
	if (ns >= 0 &&
	    splice_start(sh, fd, ns, guest_port, fam ? SPF_V6 : 0, sa, 0, &why))
		return true;
	splice_fallback(sh, guest_port, why);
	return false;
}

/**
 * splice_tl_accept() - accept connections on a -T port
 * @sh:	shard
 * @k:	index in the -T listeners
 *
 * There is no tap path for these: a connection that cannot be spliced is
 * reset (SPLICE_NS_DROPPED).
 *
 * #syscalls accept4 socket setsockopt close
 */
static void splice_tl_accept(struct shard *sh, unsigned k)
{
	struct splice *sp = sh->svc.splice;
	const struct splice_tl *tl = &sp->tl[k];
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	int budget = 64;

	while (budget--) {
		int fam = tl->af == AF_INET6, fd, s1;
		struct sockaddr_storage peer = { 0 };
		socklen_t sl = sizeof(peer);
		const char *why = NULL;

		fd = accept4(tl->fd, (struct sockaddr *)&peer, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			unsigned n;
			int e = errno;

			if (e == EAGAIN || e == EINTR || e == ECONNABORTED)
				return;
			/* refuse who waits, pause: the listener stays
			 * readable, and the loop would spin on it */
			n = shard_accept_nofd(sh, tl->fd,
					      EP_DATA(EP_SPLICE,
						      SPLICE_IDX_NSH + 1 + k),
					      e, true, (unsigned)budget + 1);
			sp->tl[k].paused = true;
			CTR_ADD(&sh->core, SPLICE_NS_DROPPED, n);
			errno = e;
			warn_perror_rl(
				"-T host port %u: %u connection(s) from the "
				"guest reset, accepting again in %u ms",
				tl->host_port, n, LISTEN_PAUSE_MS);
			return;
		}
		s1 = splice_side1_sock(sh, true, fam);
		if (s1 < 0)
			why = errno == EMFILE || errno == ENFILE ?
				      "no file descriptors (ulimit -n)" :
				      "no socket";
		else if (splice_start(sh, fd, s1, tl->host_port,
				      SPF_OUT | (fam ? SPF_V6 : 0), &peer,
				      tl->guest_port, &why))
			continue;
		CTR_INC(&sh->core, SPLICE_NS_DROPPED);
		if (splice_warn_ok(sh))
			warn("guest connection to -T host port %u reset: %s",
			     tl->host_port, why);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
	}
}

/**
 * splice_resume() - arm the -T listeners that paused (out of fds) again
 * @sh:		shard
 *
 * Context: shard_listen_resume()
 */
void splice_resume(struct shard *sh)
{
	struct splice *sp = sh->svc.splice;
	unsigned k;

	for (k = 0; sp && k < sp->ntl; k++) {
		if (!sp->tl[k].paused || sp->tl[k].fd < 0)
			continue;
		sp->tl[k].paused = false;
		shard_listen_arm(sh, sp->tl[k].fd,
				 EP_DATA(EP_SPLICE, SPLICE_IDX_NSH + 1 + k));
	}
}

/**
 * splice_event() - an EP_SPLICE epoll event
 * @sh:		shard
 * @idx:	EP_IDX() of the event: entry << 1 | side, or SPLICE_IDX_NSH
 * @events:	epoll events
 *
 * #syscalls getsockopt poll
 */
void splice_event(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct splice *sp = sh->svc.splice;
	struct splice_conn *c;
	uint32_t i = idx >> 1;
	int side = (int)(idx & 1), err = 0;
	socklen_t sl = sizeof(err);

	if (!sp)
		return;
	if (idx == SPLICE_IDX_NSH) {
		splice_nsh_input(sh);
		return;
	}
	if (idx > SPLICE_IDX_NSH) {
		if (idx - SPLICE_IDX_NSH - 1 < sp->ntl &&
		    sp->tl[idx - SPLICE_IDX_NSH - 1].fd >= 0 &&
		    !sp->tl[idx - SPLICE_IDX_NSH - 1].paused)
			splice_tl_accept(sh, idx - SPLICE_IDX_NSH - 1);
		return;
	}
	if (i >= sp->max)
		return;
	c = &sp->conns[i];
	switch (c->state) {
	case SPS_CONNECTING:
		if (side == 1) {
			if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
				splice_connected(sh, i);
		} else if (events & (EPOLLERR | EPOLLHUP)) {
			struct pollfd pfd = { .fd = c->fd[0] };

			/* the client is gone before the guest answered (or
			 * this is an event of an earlier user of the entry) */
			if (poll(&pfd, 1, 0) == 1 &&
			    (pfd.revents & (POLLERR | POLLHUP))) {
				CTR_INC(&sh->core, SPLICE_RESET);
				splice_end(sh, i, true);
			}
		}
		return;
	case SPS_OPEN:
		if ((events & EPOLLERR) &&
		    !getsockopt(c->fd[side], SOL_SOCKET, SO_ERROR, &err, &sl) &&
		    err && err != EAGAIN) {
			debug("splice %u: %s on the %s side: resetting both", i,
			      strerror(err), side ? "guest" : "client");
			CTR_INC(&sh->core, SPLICE_RESET);
			splice_end(sh, i, true);
			return;
		}
		splice_run(sh, i);
		return;
	default:
		return; /* an event from before the entry ended */
	}
}

/**
 * splice_nsh_call() - ask the helper for one socket and wait for it
 * @sh:		shard
 * @req:	request (@seq is set here)
 *
 * An answer to a pool request that arrives meanwhile fills the pool.
 *
 * Context: start-up, or "auto" (fwdauto.c) at run time
 * #syscalls sendto recvmsg poll close
 * Return: the socket, or -errno
 */
static int splice_nsh_call(struct shard *sh, struct nsh_req *req)
{
	struct splice *sp = sh->svc.splice;
	uint64_t end = now_mono_ns() + SPLICE_WAIT_MS * 1000000ULL;
	int fds[NSH_MAX_FDS], n, i, ret;
	struct nsh_rsp rsp;

	if (sp->nsh_fd < 0)
		return -EPIPE;
	req->seq = ++sp->seq;
	ret = nsh_send(sp->nsh_fd, req);
	if (ret)
		return ret;
	for (;;) {
		struct pollfd pfd = { .fd = sp->nsh_fd, .events = POLLIN };
		uint64_t now = now_mono_ns();

		if (now >= end)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)((end - now) / 1000000ULL) + 1) < 0 &&
		    errno != EINTR)
			return -errno;
		n = nsh_recv(sp->nsh_fd, &rsp, fds);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return n;
		if (rsp.seq == req->seq && rsp.op == req->op && !rsp.err &&
		    n == 1)
			return fds[0];
		if (rsp.seq != req->seq) {
			splice_nsh_take(sh, &rsp, fds, n);
			continue;
		}
		for (i = 0; i < n; i++)
			close(fds[i]);
		return rsp.err ? -rsp.err : -EPROTO;
	}
}

/**
 * splice_nsh_listen() - have the helper open a -T listening socket
 * @sh:		shard
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	port on the guest's loopback
 *
 * Return: the socket, or -errno
 */
static int splice_nsh_listen(struct shard *sh, int af, uint16_t port)
{
	struct nsh_req req = { .op = NSH_OP_LISTEN,
			       .family = af,
			       .port = port };

	return splice_nsh_call(sh, &req);
}

/**
 * splice_nsh_diag() - a NETLINK_SOCK_DIAG socket of the guest's namespace
 * @sh:		shard 0
 *
 * Context: start-up (fwdauto.c)
 * Return: the socket, or -errno
 */
int splice_nsh_diag(struct shard *sh)
{
	struct nsh_req req = { .op = NSH_OP_DIAG, .family = AF_INET };

	if (!sh->svc.splice)
		return -ENOTCONN;
	return splice_nsh_call(sh, &req);
}

/**
 * splice_nsh_sockstat() - the guest namespace's /proc/net/sockstat or
 * sockstat6, opened by the helper inside it
 * @sh:		shard 0
 * @af:		AF_INET (sockstat) or AF_INET6 (sockstat6)
 *
 * Context: start-up (fwdauto.c)
 * Return: the file, or -errno
 */
int splice_nsh_sockstat(struct shard *sh, int af)
{
	struct nsh_req req = { .op = NSH_OP_SOCKSTAT, .family = af };

	if (!sh->svc.splice)
		return -ENOTCONN;
	return splice_nsh_call(sh, &req);
}

/**
 * splice_nsh_udp() - a UDP socket bound on the guest's loopback, from the
 * namespace socket helper (-U)
 * @sh:		shard 0
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	port on the guest's loopback
 *
 * Context: start-up (udpns.c)
 * Return: the socket, or -errno
 */
int splice_nsh_udp(struct shard *sh, int af, uint16_t port)
{
	struct nsh_req req = { .op = NSH_OP_UDP, .family = af, .port = port };

	if (!sh->svc.splice)
		return -ENOTCONN;
	return splice_nsh_call(sh, &req);
}

/**
 * splice_tl_slot() - a free slot in the -T listeners, made if need be
 * @sp:		splice state
 *
 * Return: its index, or -ENOMEM
 */
static int splice_tl_slot(struct splice *sp)
{
	struct splice_tl *t;
	unsigned i, cap;

	for (i = 0; i < sp->ntl; i++)
		if (sp->tl[i].fd < 0)
			return (int)i;
	if (sp->ntl < sp->tl_cap)
		return (int)sp->ntl++;
	cap = sp->tl_cap ? sp->tl_cap * 2 : 16;
	t = realloc(sp->tl, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	sp->tl = t;
	sp->tl_cap = cap;
	return (int)sp->ntl++;
}

/**
 * splice_tl_add() - listen on a guest loopback port for -T
 * @sh:		shard 0
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @guest_port:	the port there
 * @host_port:	the host loopback port its connections go to
 * @tag:	0 (the command line) or the "auto" range's tag
 *
 * #syscalls epoll_ctl close
 * Return: 0, or -errno
 */
int splice_tl_add(struct shard *sh, int af, uint16_t guest_port,
		  uint16_t host_port, unsigned tag)
{
	struct splice *sp = sh->svc.splice;
	struct splice_tl *tl;
	int k, fd;

	if (!sp)
		return -ENOTCONN;
	k = splice_tl_slot(sp);
	if (k < 0)
		return k;
	fd = splice_nsh_listen(sh, af, guest_port);
	if (fd < 0) {
		if ((unsigned)k == sp->ntl - 1)
			sp->ntl--;
		else
			sp->tl[k].fd = -1;
		return fd;
	}
	tl = &sp->tl[k];
	memset(tl, 0, sizeof(*tl));
	tl->fd = fd;
	tl->af = af;
	tl->guest_port = guest_port;
	tl->host_port = host_port;
	tl->tag = tag;
	if (shard_ep_add(sh, fd, EPOLLIN,
			 EP_DATA(EP_SPLICE,
				 SPLICE_IDX_NSH + 1 + (unsigned)k))) {
		close(fd);
		tl->fd = -1;
		return -EIO;
	}
	return 0;
}

/**
 * splice_tl_remove() - stop listening on a guest loopback port "auto"
 * opened (both families); connections it accepted go on
 * @sh:		shard 0
 * @guest_port:	the port
 * @tag:	the "auto" range's tag
 *
 * #syscalls close
 * Return: how many sockets were closed
 */
unsigned splice_tl_remove(struct shard *sh, uint16_t guest_port, unsigned tag)
{
	struct splice *sp = sh->svc.splice;
	unsigned k, n = 0;

	for (k = 0; sp && k < sp->ntl; k++) {
		struct splice_tl *tl = &sp->tl[k];

		if (tl->fd < 0 || tl->tag != tag ||
		    tl->guest_port != guest_port)
			continue;
		close(tl->fd); /* leaves the epoll set: ours alone */
		tl->fd = -1;
		tl->paused = false;
		n++;
	}
	return n;
}

/**
 * splice_tl_port() - does slipway listen on this guest loopback port (-T)?
 * @sh:		shard 0
 * @guest_port:	the port
 *
 * Return: true if it does
 */
bool splice_tl_port(const struct shard *sh, uint16_t guest_port)
{
	const struct splice *sp = sh->svc.splice;
	unsigned k;

	for (k = 0; sp && k < sp->ntl; k++)
		if (sp->tl[k].fd >= 0 && sp->tl[k].guest_port == guest_port)
			return true;
	return false;
}

/**
 * splice_snap_cap() - how many spliced connections a shard can have: the
 * room they need in a flow snapshot
 * @sh:		shard
 *
 * From the configuration alone, as splice_init() decides: a table of
 * --max-flows entries on shard 0 when loopback clients of -t ports are
 * spliced, or there are -T ports or "auto" ranges.
 *
 * Context: the control thread (shard_api_flow_cap())
 * Return: entries
 */
uint32_t splice_snap_cap(const struct shard *sh)
{
	const struct conf *cf = sh->conf;

	if (sh->id ||
	    !((cf->splice && cf->nfwd) || cf->nnsfwd || conf_has_auto(cf)))
		return 0;
	return cf->max_flows;
}

/**
 * splice_snap() - the spliced connections as flow records (ctl flows)
 * @sh:		shard
 * @buf:	records out
 * @cap:	entries @buf holds
 * @total:	out: connections there are (may exceed @cap)
 *
 * The guest's end is the socket in the guest's namespace: its server (-t:
 * the address side 1 connects to) or its client (-T: as accepted); the
 * remote end is the host's: the loopback client of the -t port, or the
 * host loopback port of the -T port.
 *
 * Context: the shard's own thread, between events
 * Return: records written
 */
uint32_t splice_snap(struct shard *sh, struct flow_rec *buf, uint32_t cap,
		     uint32_t *total)
{
	const struct splice *sp = sh->svc.splice;
	uint64_t now = now_mono_ns();
	uint32_t i, n = 0, t = 0;

	*total = 0;
	if (!sp)
		return 0;
	for (i = 0; i < sp->max; i++) {
		const struct splice_conn *c = &sp->conns[i];
		bool out = c->flags & SPF_OUT;
		struct sockaddr_storage dst;
		struct sockaddr_in6 s6;
		struct sockaddr_in s4;
		struct flow_rec *r;
		uint8_t *g, *h;
		uint16_t *gp, *hp;

		if (c->state == SPS_FREE)
			continue;
		if (t++ >= cap)
			continue;
		r = &buf[n++];
		memset(r, 0, sizeof(*r));
		splice_dst(sh, c, &s4, &s6);
		memset(&dst, 0, sizeof(dst));
		if (c->flags & SPF_V6)
			memcpy(&dst, &s6, sizeof(s6));
		else
			memcpy(&dst, &s4, sizeof(s4));
		g = out ? r->remote_addr : r->guest_addr;
		gp = out ? &r->remote_port : &r->guest_port;
		h = out ? r->guest_addr : r->remote_addr;
		hp = out ? &r->guest_port : &r->remote_port;
		sockaddr_to(&dst, g, gp); /* side 1's end */
		memcpy(h, c->peer, 16);	  /* side 0's peer */
		*hp = c->peer_port;
		r->ns_port = c->ns_port;
		r->proto = IPPROTO_TCP;
		r->kind = FLOW_KIND_SPLICE;
		r->state = FLOW_SVC_ESTABLISHED;
		if (c->state == SPS_CONNECTING)
			r->state = FLOW_SVC_CONNECTING;
		else if (c->flags & (SPF_EOF(0) | SPF_EOF(1)))
			r->state = FLOW_SVC_CLOSING; /* a side's stream ended */
		r->shard = (uint8_t)sh->id;
		/* direction d moves side d's bytes to side !d */
		r->to_guest = r->bytes_to_guest = c->moved[out ? 1 : 0];
		r->from_guest = r->bytes_from_guest = c->moved[out ? 0 : 1];
		r->segs_to_guest = c->moves[out ? 1 : 0];
		r->segs_from_guest = c->moves[out ? 0 : 1];
		r->age_ns = now > c->opened_ns ? now - c->opened_ns : 0;
		r->idle_ns = now > c->last_ns ? now - c->last_ns : 0;
		flow_rate_get(&c->rate, &sh->rates.clk, c->opened_ns, now, r);
		/* the host's socket: the loopback client (-t), or the one to
		 * the host's port (-T) */
		if (c->state == SPS_OPEN)
			shard_snap_host(c->fd[out ? 1 : 0], r, true);
	}
	*total = t;
	return n;
}

/**
 * splice_sweep() - the spliced connections' rate samples (once a second)
 * @sh:		shard
 *
 * Context: the shard's own thread (shard_rate_sweep())
 */
void splice_sweep(struct shard *sh)
{
	struct splice *sp = sh->svc.splice;
	uint32_t i;

	if (!sp)
		return;
	for (i = 0; i < sp->max; i++) {
		struct splice_conn *c = &sp->conns[i];
		bool out = c->flags & SPF_OUT;

		if (c->state != SPS_FREE)
			flow_rate_take(&c->rate, &sh->rates.clk, c->opened_ns,
				       c->moved[out ? 0 : 1],
				       c->moved[out ? 1 : 0]);
	}
}

/**
 * splice_ns_port_fail() - judge a port the guest's namespace would not give
 * @ret:	-errno of opening it (through the namespace socket helper)
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	the port on the guest's loopback
 * @udp:	a -U port (bound), else a -T one (listening)
 *
 * A namespace without IPv6 is no error: that family is skipped. Anything
 * else is said, with a hint when the port is in use there.
 *
 * Context: start-up
 * Return: 1 if the namespace has no IPv6, else @ret (logged)
 */
int splice_ns_port_fail(int ret, int af, unsigned port, bool udp)
{
	if (af == AF_INET6 && (ret == -EAFNOSUPPORT || ret == -EADDRNOTAVAIL))
		return 1;
	errno = -ret;
	err_perror("cannot %s the guest's %s %sport %u for -%c%s",
		   udp ? "bind" : "listen on",
		   af == AF_INET ? "127.0.0.1" : "::1", udp ? "UDP " : "", port,
		   udp ? 'U' : 'T',
		   ret == -EADDRINUSE ? " (in use in the guest's namespace; "
					"pick another port)" :
					"");
	return ret;
}

/**
 * splice_tl_open() - open the -T ports on the guest's loopback
 * @sh:	shard
 *
 * Each port listens on 127.0.0.1 and, where the guest's namespace has
 * IPv6, on ::1. "auto" ranges are fwdauto.c's.
 *
 * Return: 0, or -errno after saying which port failed and why
 */
static int splice_tl_open(struct shard *sh)
{
	const struct conf *cf = sh->conf;
	unsigned i;
	int af, ret;

	for (i = 0; i < cf->nnsfwd; i++) {
		const struct fwd_spec *f = &cf->nsfwd[i];
		unsigned p;

		if (f->flags & FWD_SPEC_AUTO)
			continue;
		for (p = f->first; p <= f->last; p++) {
			for (af = AF_INET; af;
			     af = af == AF_INET ? AF_INET6 : 0) {
				ret = splice_tl_add(sh, af, (uint16_t)p,
						    (uint16_t)(f->guest_first +
							       (p - f->first)),
						    0);
				if (ret == -ENOMEM) {
					err("out of memory for the -T ports");
					return ret;
				}
				if (ret < 0 &&
				    splice_ns_port_fail(ret, af, p, false) > 0)
					continue; /* no IPv6 there */
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

/**
 * splice_init() - set up splicing for a shard
 * @sh:		shard (conf, epoll set and counters ready)
 * @nsh_fd:	socket to the namespace helper, or -1: no splicing
 *
 * Ownership: takes @nsh_fd in every case.
 * #syscalls fcntl epoll_ctl close
 * Return: 0, or -ENOMEM
 */
int splice_init(struct shard *sh, int nsh_fd)
{
	const struct conf *cf = sh->conf;
	bool need = cf->nnsfwd || cf->nnsufwd || conf_has_auto(cf);
	struct splice *sp;
	uint32_t i;
	int ret;

	sh->svc.splice = NULL;
	if (nsh_fd < 0) {
		if (!need)
			return 0;
		err("-T, -U and auto need the namespace socket helper, which "
		    "did not start");
		return -EIO;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp) {
		close(nsh_fd);
		err("out of memory for the splice table");
		return -ENOMEM;
	}
	sp->max = cf->max_flows;
	sp->conns = calloc(sp->max, sizeof(*sp->conns));
	sp->free = calloc(sp->max, sizeof(*sp->free));
	sp->nsh_fd = nsh_fd;
	sp->lo_clients = cf->splice && cf->nfwd;
	sh->svc.splice = sp;
	if (!sp->conns || !sp->free) {
		splice_fini(sh);
		err("out of memory for the splice table (--max-flows)");
		return -ENOMEM;
	}
	/* popped from the end: entry 0 first */
	for (i = 0; i < sp->max; i++) {
		struct splice_conn *c = &sp->conns[sp->max - 1 - i];

		c->fd[0] = c->fd[1] = -1;
		c->pipe_r[0] = c->pipe_r[1] = c->pipe_w[0] = c->pipe_w[1] = -1;
		sp->free[i] = sp->max - 1 - i;
	}
	sp->nfree = sp->max;
	if (fcntl(nsh_fd, F_SETFL, fcntl(nsh_fd, F_GETFL) | O_NONBLOCK) ||
	    shard_ep_add(sh, nsh_fd, EPOLLIN,
			 EP_DATA(EP_SPLICE, SPLICE_IDX_NSH)))
		goto off;
	ret = splice_tl_open(sh);
	if (ret) {
		splice_fini(sh);
		return ret;
	}
	if (need && sp->nsh_fd < 0)
		goto off;
	if (!sp->lo_clients)
		return 0;
	splice_pool_wait(sh, 0);
	if (!sp->npool[0])
		goto off;
	splice_pool_wait(sh, 1);
	debug("splice: %u IPv4 and %u IPv6 sockets ready in the guest's "
	      "namespace",
	      sp->npool[0], sp->npool[1]);
	return 0;
off:
	if (need) {
		err("no answer from the namespace socket helper: cannot open "
		    "the -T or -U ports or follow auto ports");
		splice_fini(sh);
		return -EIO;
	}
	warn("no sockets from the namespace socket helper: loopback clients of "
	     "published ports go through the tap");
	splice_fini(sh);
	return 0;
}

/**
 * splice_fini() - reset every spliced connection and free everything
 * @sh:	shard
 *
 * #syscalls setsockopt close
 */
void splice_fini(struct shard *sh)
{
	struct splice *sp = sh->svc.splice;
	uint32_t i;
	int f;

	if (!sp)
		return;
	for (i = 0; sp->conns && i < sp->max; i++)
		if (sp->conns[i].state != SPS_FREE)
			splice_end(sh, i, true);
	for (f = 0; f < 2; f++)
		while (sp->npool[f])
			close(sp->pool[f][--sp->npool[f]]);
	for (i = 0; i < sp->ntl; i++)
		if (sp->tl[i].fd >= 0)
			close(sp->tl[i].fd);
	free(sp->tl);
	if (sp->nsh_fd >= 0)
		close(sp->nsh_fd);
	free(sp->conns);
	free(sp->free);
	free(sp);
	sh->svc.splice = NULL;
}
