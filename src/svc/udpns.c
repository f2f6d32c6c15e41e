/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udpns.c - -U: UDP ports on the guest's loopback forwarded to the host's */

/**
 * DOC: Theory of Operation
 *
 * Goal: a program in the guest's namespace that sends datagrams to
 * 127.0.0.1:PORT (or [::1]:PORT) reaches a UDP server on the host's
 * loopback at HOSTPORT, and gets its replies, as with pasta's -U. This is
 * the datagram twin of -T (splice.c) and needs no tap: both ends are
 * sockets.
 *
 * At start-up the namespace socket helper (nsh.c) makes one UDP socket
 * bound to the guest's 127.0.0.1:PORT and one to [::1]:PORT (skipped when
 * the namespace has no IPv6) for every -U port (struct udpns_lsn).
 *
 * Flows: each guest peer (listener, source address and port) gets a host
 * socket of its own, connected to the host's loopback address of the same
 * family at HOSTPORT, so the host's server sees one client per guest peer
 * and its replies find their way back: what the host socket receives is
 * sent from the listener to that peer, so the peer sees the reply come
 * from the address it sent to. The flow table is sized at start-up
 * (--max-udp-flows, at most UDPNS_FLOWS_MAX) with a chained hash on the
 * peer; a full table drops the datagram (UDPNS_DROP_FULL). A flow idle for
 * --udp-timeout seconds is closed by a timer that runs once a second while
 * any flow is open (UDPNS_FLOWS_EXPIRED). Datagrams move through one
 * buffer of the largest UDP payload: nothing is allocated on the data
 * path.
 *
 * Loops: a -U port whose host port slipway itself publishes with -u sends
 * the datagrams back into the guest; slipway does not refuse it (the user
 * asked for the ports explicitly), as pasta does not.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "cli/conf.h"
#include "os/sockaddr.h"
#include "os/sys.h"
#include "shard/shard.h"
#include "svc/splice.h"
#include "svc/udpns.h"
#include "util/log.h"

#define UDPNS_FLOWS_MAX 1024	   /* host sockets: one fd each */
#define UDPNS_BUDGET 64		   /* datagrams per socket per event */
#define UDPNS_BUF_LEN 65536	   /* > the largest UDP payload */
#define UDPNS_IDX_TIMER (1U << 31) /* EP_IDX of the expiry timer */
#define UDPNS_IDX_FLOW (1U << 30)  /* EP_IDX of flow i: this + i */
#define UDPNS_NONE UINT32_MAX	   /* end of a chain */

/**
 * struct udpns_lsn - a -U port: a socket bound on the guest's loopback
 * @fd:		the socket, made by the helper
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	the port on the guest's loopback
 * @host_port:	the host loopback port its datagrams go to
 */
struct udpns_lsn {
	int fd;
	int af;
	uint16_t port;
	uint16_t host_port;
};

/**
 * union udpns_addr - a guest peer's address
 * @sa:		generic view
 * @v4:		AF_INET
 * @v6:		AF_INET6
 */
union udpns_addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/**
 * struct udpns_flow - one guest peer of one -U port
 * @fd:		the host socket, connected to the host port; -1: free
 * @lsn:	index of the listener the peer sent to
 * @next:	next flow in the hash chain, or in the free list
 * @last_ns:	when a datagram last went either way
 * @opened_ns:	when the flow opened
 * @rate:	samples of @bytes for the rates (ctl flows)
 * @dgrams:	datagrams sent each way: [0] from the guest, [1] to it
 * @bytes:	their payload bytes, the same way (ctl flows)
 * @peer:	the peer's address (the listener's family)
 */
struct udpns_flow {
	int fd;
	uint32_t lsn;
	uint32_t next;
	uint64_t last_ns;
	uint64_t opened_ns;
	uint64_t dgrams[2];
	uint64_t bytes[2];
	struct flow_rate rate;
	union udpns_addr peer;
};

/**
 * struct udpns - the -U state of shard 0
 * @lsn:	listeners
 * @nlsn:	entries in @lsn
 * @flows:	flow table, @max entries
 * @max:	table size
 * @bucket:	hash chain heads, @nbucket (a power of two)
 * @nbucket:	chains
 * @free:	head of the free list
 * @active:	flows open
 * @tfd:	the expiry timer (timerfd)
 * @armed:	@tfd ticks
 * @idle_ns:	a flow idle this long is closed
 * @buf:	one datagram
 */
struct udpns {
	struct udpns_lsn *lsn;
	unsigned nlsn;
	struct udpns_flow *flows;
	uint32_t max;
	uint32_t *bucket;
	uint32_t nbucket;
	uint32_t free;
	uint32_t active;
	int tfd;
	bool armed;
	uint64_t idle_ns;
	uint8_t buf[UDPNS_BUF_LEN];
};

/**
 * udpns_hash() - hash chain of a peer
 * @u:		state
 * @lsn:	listener index
 * @a:		peer address
 *
 * Return: the bucket index
 */
static uint32_t udpns_hash(const struct udpns *u, uint32_t lsn,
			   const union udpns_addr *a)
{
	const uint8_t *p;
	uint32_t h = 2166136261U ^ lsn;
	size_t len, i;

	if (a->sa.sa_family == AF_INET6) {
		p = (const uint8_t *)&a->v6.sin6_addr;
		len = sizeof(a->v6.sin6_addr);
		h = (h ^ a->v6.sin6_port) * 16777619U;
	} else {
		p = (const uint8_t *)&a->v4.sin_addr;
		len = sizeof(a->v4.sin_addr);
		h = (h ^ a->v4.sin_port) * 16777619U;
	}
	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619U;
	return (h ^ (h >> 16)) & (u->nbucket - 1);
}

/**
 * udpns_addr_eq() - the same peer?
 * @a:		one address
 * @b:		the other, same family as the listener of both
 *
 * Return: true if family, address and port match
 */
static bool udpns_addr_eq(const union udpns_addr *a, const union udpns_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET6)
		return a->v6.sin6_port == b->v6.sin6_port &&
		       !memcmp(&a->v6.sin6_addr, &b->v6.sin6_addr,
			       sizeof(a->v6.sin6_addr));
	return a->v4.sin_port == b->v4.sin_port &&
	       a->v4.sin_addr.s_addr == b->v4.sin_addr.s_addr;
}

/**
 * udpns_timer_set() - start or stop the once-a-second expiry timer
 * @u:		state
 * @on:		start (true) or stop
 *
 * #syscalls timerfd_settime
 */
static void udpns_timer_set(struct udpns *u, bool on)
{
	struct itimerspec its = { 0 };

	if (u->armed == on)
		return;
	if (on) {
		its.it_value.tv_sec = 1;
		its.it_interval.tv_sec = 1;
	}
	if (timerfd_settime(u->tfd, 0, &its, NULL))
		warn_perror("-U: timerfd_settime");
	else
		u->armed = on;
}

/**
 * udpns_flow_close() - close a flow and put it on the free list
 * @u:		state
 * @i:		flow index, open
 *
 * #syscalls close
 */
static void udpns_flow_close(struct udpns *u, uint32_t i)
{
	struct udpns_flow *f = &u->flows[i];
	uint32_t *pp = &u->bucket[udpns_hash(u, f->lsn, &f->peer)];

	while (*pp != i) {
		ASSERT(*pp != UDPNS_NONE);
		pp = &u->flows[*pp].next;
	}
	*pp = f->next;
	close(f->fd); /* leaves the epoll set: ours alone */
	f->fd = -1;
	f->next = u->free;
	u->free = i;
	u->active--;
}

/**
 * udpns_flow_open() - a flow for a new peer: a host socket connected to
 * the listener's host port
 * @sh:		shard 0
 * @lsn:	listener index
 * @peer:	the peer
 *
 * #syscalls socket connect epoll_ctl close
 * Return: the flow index, or UDPNS_NONE (counted)
 */
static uint32_t udpns_flow_open(struct shard *sh, uint32_t lsn,
				const union udpns_addr *peer)
{
	struct udpns *u = sh->svc.udpns;
	const struct udpns_lsn *l = &u->lsn[lsn];
	union udpns_addr dst;
	struct udpns_flow *f;
	uint32_t i, h;
	socklen_t sl;
	int fd;

	if (u->free == UDPNS_NONE) {
		CTR_INC(&sh->core, UDPNS_DROP_FULL);
		return UDPNS_NONE;
	}
	memset(&dst, 0, sizeof(dst));
	if (l->af == AF_INET6) {
		dst.v6.sin6_family = AF_INET6;
		dst.v6.sin6_addr = in6addr_loopback;
		dst.v6.sin6_port = htons(l->host_port);
		sl = sizeof(dst.v6);
	} else {
		dst.v4.sin_family = AF_INET;
		dst.v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		dst.v4.sin_port = htons(l->host_port);
		sl = sizeof(dst.v4);
	}
	fd = socket(l->af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		CTR_INC(&sh->core, UDPNS_DROP_SOCK);
		return UDPNS_NONE;
	}
	i = u->free;
	if (connect(fd, &dst.sa, sl) ||
	    shard_ep_add(sh, fd, EPOLLIN,
			 EP_DATA(EP_UDPNS, UDPNS_IDX_FLOW + i))) {
		close(fd);
		CTR_INC(&sh->core, UDPNS_DROP_SOCK);
		return UDPNS_NONE;
	}
	f = &u->flows[i];
	u->free = f->next;
	f->fd = fd;
	f->lsn = lsn;
	f->peer = *peer;
	f->last_ns = f->opened_ns = sh->now_ns;
	memset(f->dgrams, 0, sizeof(f->dgrams));
	memset(f->bytes, 0, sizeof(f->bytes));
	h = udpns_hash(u, lsn, peer);
	f->next = u->bucket[h];
	u->bucket[h] = i;
	if (!u->active++)
		udpns_timer_set(u, true);
	CTR_INC(&sh->core, UDPNS_FLOWS_OPENED);
	return i;
}

/**
 * udpns_lsn_input() - datagrams from the guest to a -U port: send each
 * through its peer's flow
 * @sh:		shard 0
 * @lsn:	listener index
 *
 * #syscalls recvfrom sendto
 */
static void udpns_lsn_input(struct shard *sh, uint32_t lsn)
{
	struct udpns *u = sh->svc.udpns;
	unsigned k;

	for (k = 0; k < UDPNS_BUDGET; k++) {
		union udpns_addr peer;
		socklen_t sl = sizeof(peer);
		uint32_t i;
		ssize_t n;

		memset(&peer, 0, sizeof(peer));
		n = recvfrom(u->lsn[lsn].fd, u->buf, sizeof(u->buf),
			     MSG_DONTWAIT, &peer.sa, &sl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return; /* EAGAIN: drained */
		}
		if (peer.sa.sa_family != u->lsn[lsn].af)
			continue;
		for (i = u->bucket[udpns_hash(u, lsn, &peer)]; i != UDPNS_NONE;
		     i = u->flows[i].next)
			if (u->flows[i].lsn == lsn &&
			    udpns_addr_eq(&u->flows[i].peer, &peer))
				break;
		if (i == UDPNS_NONE)
			i = udpns_flow_open(sh, lsn, &peer);
		if (i == UDPNS_NONE)
			continue;
		u->flows[i].last_ns = sh->now_ns;
		if (send(u->flows[i].fd, u->buf, (size_t)n,
			 MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			CTR_INC(&sh->core, UDPNS_DROP_SEND);
			continue;
		}
		u->flows[i].dgrams[0]++;
		u->flows[i].bytes[0] += (uint64_t)n;
		CTR_INC(&sh->core, UDPNS_FROM_NS);
	}
}

/**
 * udpns_flow_input() - replies from the host to a flow: send each from
 * the listener to the flow's peer
 * @sh:		shard 0
 * @i:		flow index
 *
 * #syscalls recvfrom sendto
 */
static void udpns_flow_input(struct shard *sh, uint32_t i)
{
	struct udpns *u = sh->svc.udpns;
	struct udpns_flow *f = &u->flows[i];
	const struct udpns_lsn *l = &u->lsn[f->lsn];
	unsigned k;

	for (k = 0; k < UDPNS_BUDGET; k++) {
		ssize_t n = recv(f->fd, u->buf, sizeof(u->buf), MSG_DONTWAIT);

		if (n < 0) {
			/* a port unreachable from an earlier send: the
			 * error is consumed, the peer may try again */
			if (errno == EINTR || errno == ECONNREFUSED)
				continue;
			return;
		}
		f->last_ns = sh->now_ns;
		if (sendto(l->fd, u->buf, (size_t)n,
			   MSG_DONTWAIT | MSG_NOSIGNAL, &f->peer.sa,
			   l->af == AF_INET6 ? sizeof(f->peer.v6) :
					       sizeof(f->peer.v4)) < 0) {
			CTR_INC(&sh->core, UDPNS_DROP_SEND);
			continue;
		}
		f->dgrams[1]++;
		f->bytes[1] += (uint64_t)n;
		CTR_INC(&sh->core, UDPNS_TO_NS);
	}
}

/**
 * udpns_expire() - the timer ticked: close the flows idle too long
 * @sh:		shard 0
 *
 * #syscalls read
 */
static void udpns_expire(struct shard *sh)
{
	struct udpns *u = sh->svc.udpns;
	uint64_t exp;
	uint32_t i;

	if (read(u->tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		warn_perror("-U: timerfd read");
	for (i = 0; i < u->max && u->active; i++) {
		if (u->flows[i].fd < 0 ||
		    sh->now_ns - u->flows[i].last_ns < u->idle_ns)
			continue;
		udpns_flow_close(u, i);
		CTR_INC(&sh->core, UDPNS_FLOWS_EXPIRED);
	}
	if (!u->active)
		udpns_timer_set(u, false);
}

/**
 * udpns_event() - an EP_UDPNS epoll event
 * @sh:		shard 0
 * @idx:	EP_IDX() of the event
 * @events:	epoll events
 */
void udpns_event(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct udpns *u = sh->svc.udpns;

	(void)events;
	if (!u)
		return;
	if (idx == UDPNS_IDX_TIMER) {
		udpns_expire(sh);
	} else if (idx >= UDPNS_IDX_FLOW) {
		idx -= UDPNS_IDX_FLOW;
		if (idx < u->max && u->flows[idx].fd >= 0)
			udpns_flow_input(sh, idx);
	} else if (idx < u->nlsn) {
		udpns_lsn_input(sh, idx);
	}
}

/**
 * udpns_snap_cap() - how many -U flows a shard can have: the room they
 * need in a flow snapshot
 * @sh:		shard
 *
 * From the configuration alone, as udpns_init() sizes the table.
 *
 * Context: the control thread (shard_api_flow_cap())
 * Return: entries
 */
uint32_t udpns_snap_cap(const struct shard *sh)
{
	const struct conf *cf = sh->conf;

	if (sh->id || !cf->nnsufwd)
		return 0;
	return cf->max_udp_flows < UDPNS_FLOWS_MAX ? cf->max_udp_flows :
						     UDPNS_FLOWS_MAX;
}

/**
 * udpns_snap() - the -U flows as flow records (ctl flows)
 * @sh:		shard
 * @buf:	records out
 * @cap:	entries @buf holds
 * @total:	out: flows there are (may exceed @cap)
 *
 * The guest's end is the peer; the remote end the host loopback address
 * and port its datagrams go to; the -U port it sent to is @ns_port.
 *
 * Context: the shard's own thread, between events
 * Return: records written
 */
uint32_t udpns_snap(struct shard *sh, struct flow_rec *buf, uint32_t cap,
		    uint32_t *total)
{
	const struct udpns *u = sh->svc.udpns;
	uint64_t now = now_mono_ns();
	uint32_t i, n = 0, t = 0;

	*total = 0;
	if (!u)
		return 0;
	for (i = 0; i < u->max && t < u->active; i++) {
		const struct udpns_flow *f = &u->flows[i];
		const struct udpns_lsn *l;
		struct sockaddr_storage ss;
		struct flow_rec *r;

		if (f->fd < 0)
			continue;
		if (t++ >= cap)
			continue;
		l = &u->lsn[f->lsn];
		r = &buf[n++];
		memset(r, 0, sizeof(*r));
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &f->peer, sizeof(f->peer));
		sockaddr_to(&ss, r->guest_addr, &r->guest_port);
		if (l->af == AF_INET6) {
			memcpy(r->remote_addr, &in6addr_loopback, 16);
		} else {
			uint32_t lo = htonl(INADDR_LOOPBACK);

			r->remote_addr[10] = r->remote_addr[11] = 0xff;
			memcpy(r->remote_addr + 12, &lo, 4);
		}
		r->remote_port = l->host_port;
		r->ns_port = l->port;
		r->proto = IPPROTO_UDP;
		r->kind = FLOW_KIND_UDPNS;
		r->state = FLOW_SVC_OPEN;
		r->shard = (uint8_t)sh->id;
		r->from_guest = f->dgrams[0];
		r->to_guest = f->dgrams[1];
		r->from_guest_bytes = r->bytes_from_guest = f->bytes[0];
		r->to_guest_bytes = r->bytes_to_guest = f->bytes[1];
		r->segs_from_guest = f->dgrams[0];
		r->segs_to_guest = f->dgrams[1];
		r->age_ns = now > f->opened_ns ? now - f->opened_ns : 0;
		r->idle_ns = now > f->last_ns ? now - f->last_ns : 0;
		flow_rate_get(&f->rate, &sh->rates.clk, f->opened_ns, now, r);
		shard_snap_host(f->fd, r, true);
	}
	*total = t;
	return n;
}

/**
 * udpns_sweep() - the -U flows' rate samples (once a second)
 * @sh:		shard
 *
 * Context: the shard's own thread (shard_rate_sweep())
 */
void udpns_sweep(struct shard *sh)
{
	struct udpns *u = sh->svc.udpns;
	uint32_t i, t = 0;

	if (!u)
		return;
	for (i = 0; i < u->max && t < u->active; i++) {
		struct udpns_flow *f = &u->flows[i];

		if (f->fd < 0)
			continue;
		t++;
		flow_rate_take(&f->rate, &sh->rates.clk, f->opened_ns,
			       f->bytes[0], f->bytes[1]);
	}
}

/**
 * udpns_lsn_open() - open one -U port's socket on the guest's loopback
 * @sh:		shard 0
 * @af:		AF_INET or AF_INET6
 * @port:	the guest's port
 * @host_port:	the host's port
 *
 * #syscalls epoll_ctl close
 * Return: 0, 1 if the namespace has no such family, or -errno (logged)
 */
static int udpns_lsn_open(struct shard *sh, int af, uint16_t port,
			  uint16_t host_port)
{
	struct udpns *u = sh->svc.udpns;
	struct udpns_lsn *l = &u->lsn[u->nlsn];
	int fd = splice_nsh_udp(sh, af, port);

	if (fd < 0)
		return splice_ns_port_fail(fd, af, port, true); /* 1: no IPv6 */
	if (shard_ep_add(sh, fd, EPOLLIN, EP_DATA(EP_UDPNS, u->nlsn))) {
		close(fd);
		err("-U: cannot add a socket to the epoll set");
		return -EIO;
	}
	l->fd = fd;
	l->af = af;
	l->port = port;
	l->host_port = host_port;
	u->nlsn++;
	return 0;
}

/**
 * udpns_init() - open the -U ports on the guest's loopback
 * @sh:		shard 0, splice_init() done (the namespace helper)
 *
 * Context: start-up, main thread
 * #syscalls:setup timerfd_create
 * Return: 0 (also when there is no -U), or -errno (logged)
 */
int udpns_init(struct shard *sh)
{
	const struct conf *cf = sh->conf;
	unsigned nports = 0, i, p;
	struct udpns *u;
	int af, ret;

	sh->svc.udpns = NULL;
	for (i = 0; i < cf->nnsufwd; i++)
		nports += (unsigned)(cf->nsufwd[i].last - cf->nsufwd[i].first) +
			  1;
	if (!nports)
		return 0;
	u = calloc(1, sizeof(*u));
	if (!u) {
		err("out of memory for -U");
		return -ENOMEM;
	}
	sh->svc.udpns = u;
	u->tfd = -1;
	u->max = cf->max_udp_flows < UDPNS_FLOWS_MAX ? cf->max_udp_flows :
						       UDPNS_FLOWS_MAX;
	for (u->nbucket = 1; u->nbucket < u->max; u->nbucket <<= 1)
		;
	u->idle_ns = (uint64_t)cf->udp_idle_s * 1000000000ULL;
	u->lsn = calloc((size_t)nports * 2, sizeof(*u->lsn));
	u->flows = calloc(u->max, sizeof(*u->flows));
	u->bucket = calloc(u->nbucket, sizeof(*u->bucket));
	if (!u->lsn || !u->flows || !u->bucket) {
		err("out of memory for -U");
		free(u->lsn);
		free(u->flows);
		free(u->bucket);
		free(u);
		sh->svc.udpns = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < u->nbucket; i++)
		u->bucket[i] = UDPNS_NONE;
	for (i = 0; i < u->max; i++) {
		u->flows[i].fd = -1;
		u->flows[i].next = i + 1 < u->max ? i + 1 : UDPNS_NONE;
	}
	u->free = 0;
	u->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (u->tfd < 0 || shard_ep_add(sh, u->tfd, EPOLLIN,
				       EP_DATA(EP_UDPNS, UDPNS_IDX_TIMER))) {
		err_perror("-U: cannot make the expiry timer");
		udpns_fini(sh);
		return -EIO;
	}
	for (i = 0; i < cf->nnsufwd; i++) {
		const struct fwd_spec *f = &cf->nsufwd[i];

		for (p = f->first; p <= f->last; p++) {
			uint16_t hp = (uint16_t)(f->guest_first +
						 (p - f->first));

			for (af = AF_INET; af;
			     af = af == AF_INET ? AF_INET6 : 0) {
				ret = udpns_lsn_open(sh, af, (uint16_t)p, hp);
				if (ret < 0) {
					udpns_fini(sh);
					return ret;
				}
			}
		}
	}
	debug("-U: %u sockets on the guest's loopback, %u flows at most",
	      u->nlsn, u->max);
	return 0;
}

/**
 * udpns_fini() - close every -U socket and free the tables
 * @sh:		shard 0
 *
 * #syscalls close
 */
void udpns_fini(struct shard *sh)
{
	struct udpns *u = sh->svc.udpns;
	uint32_t i;

	if (!u)
		return;
	for (i = 0; u->flows && i < u->max; i++)
		if (u->flows[i].fd >= 0)
			close(u->flows[i].fd);
	for (i = 0; i < u->nlsn; i++)
		close(u->lsn[i].fd);
	if (u->tfd >= 0)
		close(u->tfd);
	free(u->lsn);
	free(u->flows);
	free(u->bucket);
	free(u);
	sh->svc.udpns = NULL;
}
