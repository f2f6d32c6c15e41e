/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sock_tcp.c - host TCP sockets: carry out the core's intents, peek to the guest
 *
 * Host to guest, payload is peeked from the socket straight into frame slots
 * behind the headers (MSG_PEEK with SO_PEEK_OFF), and discarded with
 * MSG_TRUNC only when the guest acknowledges it. Guest to host, payload is
 * written from the edge's receive buffer. The socket's free send space
 * becomes the window advertised to the guest.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/conf_net.h"
#include "os/sockaddr.h"
#include "shard/listen.h"
#include "shard/mbox.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "util/log.h"

#define SOCK_EVENTS (EPOLLIN | EPOLLRDHUP | EPOLLET)

/**
 * sock_tcp_peek_off_supported() - does this kernel have TCP SO_PEEK_OFF?
 *
 * #syscalls socket setsockopt close
 * Return: true if setting SO_PEEK_OFF on a TCP socket works
 */
bool sock_tcp_peek_off_supported(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), zero = 0;
	bool ok;

	if (s < 0)
		return false;
	ok = setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)) == 0;
	close(s);
	return ok;
}

/**
 * sock_epoll_set() - register or change a flow socket's epoll interest
 * @sh:		shard
 * @f:		flow
 * @events:	event mask
 * @op:		EPOLL_CTL_ADD or EPOLL_CTL_MOD
 *
 * #syscalls epoll_ctl
 */
static void sock_epoll_set(struct shard *sh, struct tcp_flow *f,
			   uint32_t events, int op)
{
	struct epoll_event ev = {
		.events = events,
		.data.u64 = EP_DATA(EP_TCP, tcp_flow_idx(&sh->core, f)),
	};

	if (epoll_ctl(sh->epfd, op, f->sock, &ev))
		warn_perror_rl("epoll_ctl on flow socket %d", f->sock);
}

/**
 * sock_space_update() - tell the core how much the socket can take now
 * @sh:	shard
 * @f:	flow with a connected socket
 * @rearm:	EPOLLOUT just fired: re-arm it if still wanted
 *
 * Space is the send buffer less what is queued, less an eighth kept for
 * the kernel's per-skb overhead.
 *
 * While space is below min(2 MSS, sndbuf / 5), EPOLLOUT stays armed, and
 * is re-armed with EPOLL_CTL_MOD after it fires. The bound matters twice:
 * - the kernel wakes a TCP socket for EPOLLOUT only if a poll found it
 *   full (SOCK_NOSPACE); below sndbuf / 5 of space the socket holds more
 *   than 2/3 of its buffer, which the kernel calls full, so the MOD's poll
 *   marks it and the wake-up comes;
 * - above it the kernel would call the socket writable at once, and a
 *   re-arm would spin; by then the core has sent the window update.
 * Keeping EPOLLOUT armed at other times costs throughput (measured 8x on
 * guest-to-host: docs/experiments.md).
 *
 * #syscalls getsockopt ioctl epoll_ctl
 */
static void sock_space_update(struct shard *sh, struct tcp_flow *f, bool rearm)
{
	int sndbuf = 0, outq = 0;
	socklen_t sl = sizeof(sndbuf);
	uint32_t idx = tcp_flow_idx(&sh->core, f), space = 0;
	bool want;
	int64_t s;

	if (getsockopt(f->sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) ||
	    ioctl(f->sock, SIOCOUTQ, &outq))
		return;
	s = (int64_t)sndbuf - sndbuf / 8 - outq;
	if (s > 0)
		space = (uint32_t)s;
	tcp_set_host_space(&sh->core, f, space);
	want = space < MIN(2 * f->mss, (uint32_t)sndbuf / 5);
	if (want && (rearm || !(sh->sock.hflags[idx] & HF_WANT_OUT))) {
		sh->sock.hflags[idx] |= HF_WANT_OUT;
		sock_epoll_set(sh, f, SOCK_EVENTS | EPOLLOUT, EPOLL_CTL_MOD);
	} else if (!want && (sh->sock.hflags[idx] & HF_WANT_OUT)) {
		sh->sock.hflags[idx] &= (uint8_t)~HF_WANT_OUT;
		sock_epoll_set(sh, f, SOCK_EVENTS, EPOLL_CTL_MOD);
	}
}

/**
 * sock_tx_wanted() - put a flow on the list to peek for
 * @sh:		shard
 * @idx:	flow index
 */
static void sock_tx_wanted(struct shard *sh, uint32_t idx)
{
	if (sh->sock.hflags[idx] & HF_TX_PENDING)
		return;
	sh->sock.hflags[idx] |= HF_TX_PENDING;
	sh->sock.txq[sh->sock.ntxq++] = idx;
}

/**
 * sock_setup() - options every flow socket gets
 * @sh:	shard
 * @fd:	socket
 *
 * #syscalls setsockopt
 */
static void sock_setup(struct shard *sh, int fd)
{
	int one = 1, zero = 0;

	/* the guest's stack already coalesced: do not delay its segments */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (sh->sock.peek_off &&
	    setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)))
		warn_perror("SO_PEEK_OFF");
}

/**
 * sock_dst_lo() - does a destination go to host loopback?
 * @dst:	IPv4 or IPv6 address (v4-mapped IPv6 counts as loopback: no
 *		outbound binding applies to it either)
 *
 * Return: true for 127.0.0.0/8, ::1 and v4-mapped addresses
 */
static bool sock_dst_lo(const struct sockaddr_storage *dst)
{
	const struct sockaddr_in *d4 = (const struct sockaddr_in *)dst;
	const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)dst;

	if (dst->ss_family == AF_INET)
		return (ntohl(d4->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&d6->sin6_addr) ||
	       IN6_IS_ADDR_V4MAPPED(&d6->sin6_addr);
}

/**
 * sock_out_binds() - does sock_bind_out() bind the outbound address for a
 * destination?
 * @c:		configuration
 * @dst:	where the socket goes (IPv4 or IPv6)
 *
 * Host loopback (the gateway mapped there, a resolver on 127.0.0.53) is
 * reached from the kernel's choice of address, except on slirp4netns's
 * command line, where --outbound-addr applies to it too (as slirp4netns
 * binds every outbound socket). Never an interface for loopback.
 *
 * Return: true if the address of @dst's family (when set) is bound
 */
bool sock_out_binds(const struct conf *c, const struct sockaddr_storage *dst)
{
	return c->s4n || !sock_dst_lo(dst);
}

/**
 * sock_bind_out() - bind an outbound socket to the configured source
 * address and interface (-o, --outbound-if4/6; slirp4netns
 * --outbound-addr[6]), as sock_out_binds() says for its destination
 * @c:		configuration
 * @fd:		new socket, not bound yet
 * @dst:	where it will connect or send (its family is the socket's)
 *
 * Both were tried at start-up (sock_out_check()); a failure here (the
 * address or interface went away) fails the flow: its traffic must not
 * leave unbound, through another interface.
 *
 * #syscalls setsockopt bind
 * Return: 0, or -errno
 */
int sock_bind_out(const struct conf *c, int fd,
		  const struct sockaddr_storage *dst)
{
	const char *ifname;
	union {
		struct sockaddr sa;
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} a;
	socklen_t alen = 0;
	bool lo = sock_dst_lo(dst);

	if (!sock_out_binds(c, dst))
		return 0;
	memset(&a, 0, sizeof(a));
	if (dst->ss_family == AF_INET) {
		ifname = c->outbound_if4;
		if (c->outbound4.s_addr) {
			a.v4.sin_family = AF_INET;
			a.v4.sin_addr = c->outbound4;
			alen = sizeof(a.v4);
		}
	} else {
		ifname = c->outbound_if6;
		if (!IN6_IS_ADDR_UNSPECIFIED(&c->outbound6)) {
			a.v6.sin6_family = AF_INET6;
			a.v6.sin6_addr = c->outbound6;
			alen = sizeof(a.v6);
		}
	}
	if (ifname && !lo &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		       (socklen_t)strlen(ifname) + 1))
		return -errno;
	if (alen && bind(fd, &a.sa, alen))
		return -errno;
	return 0;
}

/**
 * sock_out_check() - bind a socket of each configured family as outbound
 * sockets will be, once, and say clearly why that fails
 * @c:		configuration
 *
 * Called once privileges are dropped (sandbox_enter()), so that what
 * works here works for the flows: SO_BINDTODEVICE needs CAP_NET_RAW before
 * Linux 5.7.
 *
 * #syscalls:setup socket close
 * Return: 0, or -1 with the reason logged
 */
int sock_out_check(const struct conf *c)
{
	static const uint8_t v6_probe[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	int fam;

	for (fam = 0; fam < 2; fam++) {
		const char *ifname = fam ? c->outbound_if6 : c->outbound_if4;
		bool addr = fam ? !IN6_IS_ADDR_UNSPECIFIED(&c->outbound6) :
				  c->outbound4.s_addr != 0;
		char as[INET6_ADDRSTRLEN] = "";
		struct sockaddr_storage dst;
		int fd, ret;

		if (!ifname && !addr)
			continue;
		/* any destination but loopback: 192.0.2.1, 2001:db8:: */
		memset(&dst, 0, sizeof(dst));
		dst.ss_family = fam ? AF_INET6 : AF_INET;
		if (fam)
			memcpy(&((struct sockaddr_in6 *)&dst)->sin6_addr,
			       v6_probe, 16);
		else
			((struct sockaddr_in *)&dst)->sin_addr.s_addr = htonl(
				0xc0000201);
		fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err_perror("cannot test the outbound IPv%c binding",
				   fam ? '6' : '4');
			return -1;
		}
		ret = sock_bind_out(c, fd, &dst);
		close(fd);
		if (!ret)
			continue;
		if (fam)
			inet_ntop(AF_INET6, &c->outbound6, as, sizeof(as));
		else
			inet_ntop(AF_INET, &c->outbound4, as, sizeof(as));
		if (ifname && (ret == -EPERM || ret == -EACCES))
			err("cannot bind outbound IPv%c sockets to interface "
			    "%s (--outbound-if%c): %s; before Linux 5.7, "
			    "SO_BINDTODEVICE needs CAP_NET_RAW",
			    fam ? '6' : '4', ifname, fam ? '6' : '4',
			    strerror(-ret));
		else if (ifname && ret == -ENODEV)
			err("cannot bind outbound IPv%c sockets to interface "
			    "%s (--outbound-if%c): no such interface",
			    fam ? '6' : '4', ifname, fam ? '6' : '4');
		else if (addr && ret == -EADDRNOTAVAIL)
			err("cannot bind outbound IPv%c sockets to %s: not an "
			    "address of this host%s%s",
			    fam ? '6' : '4', as, ifname ? " or of " : "",
			    ifname ? ifname : "");
		else
			err("cannot bind outbound IPv%c sockets%s%s%s%s: %s",
			    fam ? '6' : '4', addr ? " to " : "", as,
			    ifname ? " on interface " : "",
			    ifname ? ifname : "", strerror(-ret));
		return -1;
	}
	return 0;
}

/**
 * sock_connect() - open and connect the host socket of a guest flow
 * @sh:	shard
 * @f:	flow (TCPS_HOST_CONNECTING)
 * @it:	its FX_SOCK_CONNECT intent: where to connect (the socket's family
 *	follows that address, not the guest's side of the flow)
 *
 * A connection that would reach one of slipway's own listening sockets
 * is refused, as a closed port would be (selfport.c).
 *
 * A socket that cannot be bound to the outbound address or interface
 * fails the flow (ICMP unreachable to the guest). Connections the core
 * sent to the host's resolver (DNS over TCP to the forwarder's address)
 * are not bound: the forwarder's queries are not (dns_fwd.c).
 *
 * #syscalls socket connect epoll_ctl
 */
static void sock_connect(struct shard *sh, struct tcp_flow *f,
			 const struct fx_intent *it)
{
	struct sockaddr_storage sa;
	socklen_t sl = sockaddr_from(&sa, it->addr, it->port);
	uint32_t idx = tcp_flow_idx(&sh->core, f);
	int fd, ret;

	if (selfport_reached(&sh->grp->self, IPPROTO_TCP, &sa)) {
		CTR_INC(&sh->core, TCP_REFUSED_SELF);
		debug("flow %u: refused: port %u is slipway's own", idx,
		      it->port);
		tcp_on_sock_connected(&sh->core, f, ECONNREFUSED, sh->now_ns,
				      &sh->fx);
		return;
	}
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		/* out of fds or memory: reset this flow, serve the others */
		CTR_INC(&sh->core, TCP_FLOWS_SOCK_FAIL);
		warn_perror_rl("no host socket for a guest's TCP connection: "
			       "reset (TCP_FLOWS_SOCK_FAIL)");
		tcp_on_sock_connected(&sh->core, f, ECONNRESET, sh->now_ns,
				      &sh->fx);
		return;
	}
	f->sock = fd;
	sh->sock.hflags[idx] &= HF_TX_PENDING;
	sock_setup(sh, fd);
	/* DNS over TCP to the forwarder's address goes to the host's
	 * resolver, as the forwarder's own queries do: unbound, like them */
	ret = core_addr_is_dns(&sh->core, f->remote_addr) ?
		      0 :
		      sock_bind_out(sh->conf, fd, &sa);
	if (ret) {
		/* the outbound address or interface is gone: unbound, the
		 * connection would leave another way */
		CTR_INC(&sh->core, TCP_FLOWS_BIND_FAIL);
		warn_rl("cannot bind a guest's connection to the outbound "
			"address or interface: %s (TCP_FLOWS_BIND_FAIL)",
			strerror(-ret));
		tcp_on_sock_connected(&sh->core, f, -ret, sh->now_ns, &sh->fx);
		return;
	}
	if (connect(fd, (struct sockaddr *)&sa, sl) == 0) {
		sock_epoll_set(sh, f, SOCK_EVENTS, EPOLL_CTL_ADD);
		sock_space_update(sh, f, false);
		tcp_on_sock_connected(&sh->core, f, 0, sh->now_ns, &sh->fx);
		return;
	}
	if (errno != EINPROGRESS) {
		tcp_on_sock_connected(&sh->core, f, errno, sh->now_ns, &sh->fx);
		return;
	}
	sh->sock.hflags[idx] |= HF_CONNECTING;
	sock_epoll_set(sh, f, EPOLLOUT | EPOLLRDHUP, EPOLL_CTL_ADD);
}

#if defined(__SANITIZE_THREAD__)
#define SOCK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SOCK_TSAN 1
#endif
#endif

/**
 * sock_discard() - drop @len bytes from the front of a TCP receive queue
 * @fd:		socket
 * @len:	bytes
 *
 * MSG_TRUNC on TCP copies nothing, so there is no buffer. ThreadSanitizer's
 * recv() interceptor does not know that and records a write of @len bytes
 * at NULL, which two shards discarding at once "race" on: under it, the
 * call bypasses the interceptor.
 *
 * #syscalls recvfrom
 * Return: bytes discarded, or -1 with errno set
 */
static ssize_t sock_discard(int fd, size_t len)
{
#ifdef SOCK_TSAN
	return syscall(SYS_recvfrom, fd, NULL, len, MSG_TRUNC | MSG_DONTWAIT,
		       NULL, NULL);
#else
	return recv(fd, NULL, len, MSG_TRUNC | MSG_DONTWAIT);
#endif
}

/**
 * sock_close() - close a flow's socket (which also leaves the epoll set)
 * @fd:		socket
 * @rst:	reset the peer (SO_LINGER 0) instead of a FIN
 *
 * #syscalls setsockopt close
 */
static void sock_close(int fd, bool rst)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	if (rst)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

/**
 * sock_tcp_intent() - carry out one intent of the core
 * @sh:	shard
 * @it:	intent
 *
 * #syscalls send sendto recvfrom setsockopt shutdown
 */
void sock_tcp_intent(struct shard *sh, const struct fx_intent *it)
{
	struct core *c = &sh->core;
	struct tcp_flow *f;
	ssize_t n;

	switch (it->type) {
	case FX_SOCK_CLOSE:
	case FX_SOCK_RESET:
		if (it->sock >= 0)
			sock_close(it->sock, it->type == FX_SOCK_RESET);
		return;
	default:
		break;
	}

	/* Socket-only intents use the socket the intent carries: the flow
	 * may have ended later in the same core call (an ACK of our FIN
	 * and the guest's FIN in one segment), and its CLOSE comes after */
	switch (it->type) {
	case FX_SOCK_CONSUME:
		if (sh->sock.peek_off)
			n = sock_discard(it->sock, it->len);
		else
			n = recv(it->sock, sh->sock.discard,
				 MIN(it->len, sh->sock.discard_len),
				 MSG_DONTWAIT);
		if (n != (ssize_t)it->len) {
			/* the kernel held these bytes when we peeked them */
			err("flow %u: discarding %u acknowledged bytes took "
			    "%zd",
			    it->flow, it->len, n);
			f = tcp_flow_get(c, it->flow);
			if (f && f->sock == it->sock)
				tcp_on_sock_error(c, f, &sh->fx);
			return;
		}
		CTR_ADD(c, TCP_HOST_READ_BYTES, (uint64_t)n);
		return;
	case FX_SOCK_REWIND:
		if (sh->sock.peek_off) {
			int off = (int)it->len;

			setsockopt(it->sock, SOL_SOCKET, SO_PEEK_OFF, &off,
				   sizeof(off));
		}
		return;
	case FX_SOCK_SHUT_WR:
		shutdown(it->sock, SHUT_WR);
		return;
	default:
		break;
	}

	f = tcp_flow_get(c, it->flow);
	if (!f || f->sock != it->sock)
		return;
	switch (it->type) {
	case FX_SOCK_CONNECT:
		sock_connect(sh, f, it);
		break;
	case FX_SOCK_SEND:
		do
			n = send(f->sock, it->data, it->len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			n = -errno;
		tcp_on_sock_sent(c, f, (long)n, it, sh->now_ns, &sh->fx);
		if (n >= 0 && tcp_flow_get(c, it->flow) == f)
			sock_space_update(sh, f, false);
		break;
	case FX_TX_WANTED:
		sock_tx_wanted(sh, it->flow);
		break;
	default:
		ASSERT(0);
	}
}

/**
 * sock_tcp_accepted() - a published port accepted a connection
 * @sh:		shard
 * @fd:		accepted socket, non-blocking
 * @sa:		peer address (struct sockaddr_in or sockaddr_in6)
 * @guest_port:	guest port to connect to
 * @gaddr:	guest address to connect to (ADDR_LEN bytes), or NULL for
 *		the configured one of the client's family
 *
 * The guest sees the client as conf_net_peer_src() says (as the gateway when
 * @gaddr is of the other family: conf_net_src_for()).
 *
 * #syscalls close epoll_ctl
 */
void sock_tcp_accepted(struct shard *sh, int fd, const void *sa,
		       uint16_t guest_port, const uint8_t *gaddr)
{
	uint8_t src[ADDR_LEN];
	struct tcp_flow *f;
	uint16_t port;

	conf_net_peer_src(&sh->core, sa, src, &port);
	if (gaddr)
		conf_net_src_for(&sh->core, gaddr, src);
	f = tcp_host_accepted_at(&sh->core, gaddr, src, port, guest_port, fd,
				 sh->now_ns, &sh->fx);
	if (!f) {
		close(fd);
		return;
	}
	sh->sock.hflags[tcp_flow_idx(&sh->core, f)] &= HF_TX_PENDING;
	/* TCP_NODELAY and SO_PEEK_OFF came from the listener (fwd_listen());
	 * the socket's space is read after the first write: until then the
	 * guest has the initial window */
	sock_epoll_set(sh, f, SOCK_EVENTS, EPOLL_CTL_ADD);
}

/**
 * sock_tcp_adopt() - take over a flow another shard gave (mbox_put_adopt())
 * @sh:		shard
 * @fd:		its socket, set up already
 * @h:		the flow
 *
 * If the flow cannot be had here (table full), its client is reset.
 */
void sock_tcp_adopt(struct shard *sh, int fd, const struct tcp_handover *h)
{
	struct tcp_flow *f = tcp_adopt(&sh->core, h, fd, sh->now_ns);

	if (!f) {
		sock_close(fd, true);
		return;
	}
	sh->sock.hflags[tcp_flow_idx(&sh->core, f)] &= HF_TX_PENDING;
	sock_epoll_set(sh, f, SOCK_EVENTS, EPOLL_CTL_ADD);
}

/**
 * sock_tcp_migrated() - a flow taken from a migration source: its socket
 * joins this shard
 * @sh:		shard
 * @f:		the flow (tcp_import())
 * @hflags:	the source's host bits for it (only HF_RDHUP carries over)
 * @fresh:	a socket made here (repair_restore()): our options first
 */
void sock_tcp_migrated(struct shard *sh, struct tcp_flow *f, uint8_t hflags,
		       bool fresh)
{
	uint32_t idx = tcp_flow_idx(&sh->core, f);

	if (fresh)
		sock_setup(sh, f->sock);

	sh->sock.hflags[idx] = (uint8_t)((sh->sock.hflags[idx] &
					  HF_TX_PENDING) |
					 (hflags & HF_RDHUP));
	sock_epoll_set(sh, f, SOCK_EVENTS, EPOLL_CTL_ADD);
	/* the window the guest was given may be closed (a slow host
	 * reader): learn the space again, and ask for EPOLLOUT if it is
	 * short, or the guest would wait for an update that never comes */
	sock_space_update(sh, f, true);
}

/**
 * sock_tcp_leave() - a flow's socket leaves this shard for a migration
 * destination: out of the epoll set, its host bits cleared
 * @sh:		shard
 * @f:		the flow (its socket still open)
 *
 * #syscalls epoll_ctl
 * Return: the host bits it had
 */
uint8_t sock_tcp_leave(struct shard *sh, struct tcp_flow *f)
{
	uint32_t idx = tcp_flow_idx(&sh->core, f);
	uint8_t hf = sh->sock.hflags[idx];

	epoll_ctl(sh->epfd, EPOLL_CTL_DEL, f->sock, NULL);
	sh->sock.hflags[idx] &= HF_TX_PENDING;
	return hf;
}

/**
 * sock_tcp_event() - epoll event on a flow socket
 * @sh:		shard
 * @idx:	flow index
 * @events:	epoll events
 *
 * #syscalls getsockopt epoll_ctl
 */
void sock_tcp_event(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct core *c = &sh->core;
	struct tcp_flow *f = tcp_flow_get(c, idx);
	int err = 0;
	socklen_t sl = sizeof(err);

	if (!f || f->sock < 0)
		return;
	if (sh->sock.hflags[idx] & HF_CONNECTING) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		sh->sock.hflags[idx] &= (uint8_t)~HF_CONNECTING;
		if (getsockopt(f->sock, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (!err) {
			sock_epoll_set(sh, f, SOCK_EVENTS, EPOLL_CTL_MOD);
			sock_space_update(sh, f, false);
		}
		tcp_on_sock_connected(c, f, err, sh->now_ns, &sh->fx);
		return;
	}
	if (events & EPOLLERR) {
		if (getsockopt(f->sock, SOL_SOCKET, SO_ERROR, &err, &sl) == 0 &&
		    err) {
			debug("flow %u: host socket error: %s", idx,
			      strerror(err));
			tcp_on_sock_error(c, f, &sh->fx);
			return;
		}
	}
	if (events & EPOLLOUT) {
		/* edge-triggered: re-arm (and re-poll) if still wanted */
		sock_space_update(sh, f, true);
	}
	if (events & (EPOLLRDHUP | EPOLLHUP))
		sh->sock.hflags[idx] |= HF_RDHUP;
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP))
		sock_tx_wanted(sh, idx);
}

/**
 * sock_tcp_peek() - peek the next bytes of a flow into a frame slot, or
 * into the guest's own buffers
 * @sh:		shard
 * @f:		flow
 * @iov:	destination from @iov[1] on (@iov[0] is ours, for the
 *		fallback's discard)
 * @iovcnt:	entries from @iov[1] on
 * @off:	offset past the first unacknowledged byte (fallback only)
 *
 * #syscalls recvfrom recvmsg
 * Return: bytes peeked, 0 at end of stream, or -errno
 */
static ssize_t sock_tcp_peek(struct shard *sh, struct tcp_flow *f,
			     struct iovec *iov, unsigned iovcnt, uint32_t off)
{
	struct msghdr mh = { .msg_iov = iov + 1, .msg_iovlen = iovcnt };
	ssize_t n;

	if (sh->sock.peek_off) {
		do
			n = iovcnt == 1 ? recv(f->sock, iov[1].iov_base,
					       iov[1].iov_len,
					       MSG_PEEK | MSG_DONTWAIT) :
					  recvmsg(f->sock, &mh,
						  MSG_PEEK | MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		return n < 0 ? -errno : n;
	} else {
		iov[0].iov_base = sh->sock.discard;
		iov[0].iov_len = off;
		mh.msg_iov = iov;
		mh.msg_iovlen = iovcnt + 1;
		ASSERT(off <= sh->sock.discard_len);
		do
			n = recvmsg(f->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		if (n > (ssize_t)off)
			return n - (ssize_t)off;
		/* nothing new: end of stream only if the peer's FIN came */
		return (sh->sock.hflags[tcp_flow_idx(&sh->core, f)] &
			HF_RDHUP) ?
			       0 :
			       -EAGAIN;
	}
}

/**
 * sock_tcp_place() - peek a flow's next bytes straight into the guest's
 * receive buffers, and build the frame's headers in the next slot
 * @sh:		shard
 * @f:		flow
 * @want:	bytes wanted
 * @off:	offset past the first unacknowledged byte (fallback only)
 *
 * Frames queued before go out first, so that the guest sees them in order.
 *
 * Return: bytes peeked, 0 at end of stream, -errno, -ENOBUFS if the
 * edge cannot place now (the caller peeks into a slot), or -EBUSY if the
 * guest has no room (the caller stops)
 */
static ssize_t sock_tcp_place(struct shard *sh, struct tcp_flow *f,
			      uint32_t want, uint32_t off)
{
	struct iovec iov[EDGE_PLACE_IOV + 1];
	struct core *c = &sh->core;
	struct edge *e = sh->edge;
	unsigned slot;
	ssize_t n;
	int cnt;

	if (sh->fx.nframes > sh->sock.nplaced) {
		shard_flush_frames(sh);
		if (shard_edge_full(sh))
			return -EBUSY;
	}
	slot = sh->fx.nframes;
	cnt = e->ops->place(e, sh->q, slot, tcp_payload_off(c, f), want,
			    iov + 1, EDGE_PLACE_IOV);
	if (cnt == -EBUSY)
		return -EBUSY;
	if (cnt <= 0)
		return -ENOBUFS;
	n = sock_tcp_peek(sh, f, iov, (unsigned)cnt, off);
	if (n > 0) {
		tcp_build_data(c, f, &sh->fx, (uint32_t)n, sh->now_ns);
		if (sh->fx.nframes == slot + 1) {
			sh->sock.placed[slot] = true;
			sh->sock.nplaced++;
		}
	}
	e->ops->place_end(e, sh->q, slot,
			  sh->sock.placed[slot] ? (size_t)n : 0);
	return n;
}

/**
 * sock_tcp_tx_flow() - send what a flow may send to the guest
 * @sh:	shard
 * @f:	flow
 */
static void sock_tcp_tx_flow(struct shard *sh, struct tcp_flow *f)
{
	struct core *c = &sh->core;
	uint32_t off, mss, room;

	room = tcp_tx_room(c, f, sh->now_ns, &off, &mss);
	while (room) {
		uint32_t want = MIN(room, mss);
		uint8_t *slot = fx_slot_next(&sh->fx);
		ssize_t n;

		if (!slot) {
			shard_flush_frames(sh);
			if (shard_edge_full(sh)) {
				/* the guest takes no more now: go on when
				 * it has room (shard_end_of_batch()) */
				sh->sock.stalled = true;
				return;
			}
			continue;
		}
		n = sh->sock.can_place ? sock_tcp_place(sh, f, want, off) :
					 -ENOBUFS;
		if (n == -EBUSY) {
			/* the guest has no buffers: go on when it posts
			 * some (its kick wakes us) */
			sh->sock.stalled = true;
			return;
		}
		if (n == -ENOBUFS) {
			/* placing may have flushed: the next slot again */
			struct iovec iov[2] = {
				[1] = { .iov_base = fx_slot_next(&sh->fx) +
						    tcp_payload_off(c, f),
					.iov_len = want },
			};

			n = sock_tcp_peek(sh, f, iov, 1, off);
			if (n > 0)
				tcp_build_data(c, f, &sh->fx, (uint32_t)n,
					       sh->now_ns);
		}
		if (n > 0) {
			room -= (uint32_t)n;
			off += (uint32_t)n;
			if ((uint32_t)n < want)
				break; /* drained: EPOLLET tells of more */
			continue;
		}
		if (n == 0) {
			tcp_on_sock_eof(c, f, sh->now_ns, &sh->fx);
		} else if (n != -EAGAIN) {
			CTR_INC(c, TCP_PEEK_ERRORS);
			debug("flow %u: peek: %s", tcp_flow_idx(c, f),
			      strerror((int)-n));
			tcp_on_sock_error(c, f, &sh->fx);
		}
		break;
	}
}

/**
 * sock_tcp_tx_pending() - peek for every flow that may send to the guest
 * @sh:	shard
 */
void sock_tcp_tx_pending(struct shard *sh)
{
	uint32_t i;

	/* flows may be appended while we go: the list is walked to its end */
	for (i = 0; i < sh->sock.ntxq; i++) {
		uint32_t idx = sh->sock.txq[i];
		struct tcp_flow *f;

		if (shard_edge_full(sh)) {
			/* the guest has no room: the rest wait, in order,
			 * for the next batch after it made some */
			memmove(sh->sock.txq, sh->sock.txq + i,
				(sh->sock.ntxq - i) * sizeof(*sh->sock.txq));
			sh->sock.ntxq -= i;
			sh->sock.stalled = true;
			return;
		}
		sh->sock.hflags[idx] &= (uint8_t)~HF_TX_PENDING;
		f = tcp_flow_get(&sh->core, idx);
		if (!f || f->sock < 0 || (sh->sock.hflags[idx] & HF_CONNECTING))
			continue;
		sh->sock.stalled = false;
		sock_tcp_tx_flow(sh, f);
		if (sh->sock.stalled) {
			/* this flow has more: first in line next time */
			sh->sock.hflags[idx] |= HF_TX_PENDING;
			sh->sock.txq[i] = idx;
			i--;
		}
		shard_drain(sh);
	}
	sh->sock.ntxq = 0;
}
