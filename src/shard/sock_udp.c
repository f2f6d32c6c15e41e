/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sock_udp.c - host UDP and ping sockets of datagram flows, published UDP ports
 *
 * Datagrams from the host are received straight into frame slots behind
 * the headers; datagrams from the guest are sent from the edge's buffer.
 */

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/udp.h"
#include "cli/conf_net.h"
#include "os/sockaddr.h"
#include "shard/listen.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "shard/sock_udp.h"
#include "util/log.h"

#define UDP_RX_BUDGET 64

/**
 * sock_udp_open() - open the host socket of a datagram flow
 * @sh:	shard
 * @f:	flow (UDPK_OUT or UDPK_ICMP)
 * @it:	its FX_DGRAM_OPEN intent: the address and port to talk to (an
 *	ICMPv6 ping socket for an IPv6 echo flow)
 *
 * A UDP flow to one of slipway's own listening sockets (selfport.c) gets
 * a port unreachable, as a closed port would, and no socket.
 *
 * #syscalls socket connect epoll_ctl close
 * Return: 0, or -errno (the flow is then freed)
 */
static int sock_udp_open(struct shard *sh, struct udp_flow *f,
			 const struct fx_intent *it)
{
	struct sockaddr_storage sa;
	socklen_t sl = sockaddr_from(&sa, it->addr, it->port);
	bool icmp = f->kind == UDPK_ICMP, v6 = sa.ss_family == AF_INET6;
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = EP_DATA(EP_UDP, udp_flow_idx(&sh->core, f)),
	};
	int fd, ret;

	if (!icmp && selfport_reached(&sh->grp->self, IPPROTO_UDP, &sa)) {
		CTR_INC(&sh->core, UDP_REFUSED_SELF);
		udp_on_sock_error(&sh->core, f, ECONNREFUSED, &sh->fx);
		return -ECONNREFUSED;
	}
	fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    !icmp ? 0 :
		    v6	  ? IPPROTO_ICMPV6 :
			    IPPROTO_ICMP);
	if (fd < 0) {
		ret = -errno;
		if (icmp && (ret == -EACCES || ret == -EPERM)) {
			/* once per process, whichever shard is first */
			static bool said;

			if (v6)
				CTR_INC(&sh->core, ICMP6_PING_DENIED);
			else
				CTR_INC(&sh->core, ICMP4_PING_DENIED);
			if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
				warn("ping from the guest needs ping sockets: "
				     "allow group %u in "
				     "net.ipv4.ping_group_range (e.g. sysctl "
				     "-w net.ipv4.ping_group_range='0 "
				     "2147483647')",
				     (unsigned)getegid());
		} else {
			CTR_INC(&sh->core, UDP_SOCK_FAIL);
			warn_perror_rl("no host socket for a guest's %s flow: "
				       "dropped (UDP_SOCK_FAIL)",
				       icmp ? "ICMP echo" : "UDP");
		}
		return ret;
	}
	ret = sock_bind_out(sh->conf, fd, &sa);
	if (ret) {
		/* not unbound: the datagrams would leave another way */
		CTR_INC(&sh->core, UDP_BIND_FAIL);
		warn_rl("cannot bind a guest's %s flow to the outbound address "
			"or interface: %s (UDP_BIND_FAIL)",
			icmp ? "ICMP echo" : "UDP", strerror(-ret));
		close(fd);
		return ret;
	}
	if (connect(fd, (struct sockaddr *)&sa, sl) ||
	    epoll_ctl(sh->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		ret = -errno;
		CTR_INC(&sh->core, UDP_SOCK_FAIL);
		close(fd);
		return ret;
	}
	f->sock = fd;
	return 0;
}

/**
 * sock_udp_intent() - carry out a datagram intent of the core
 * @sh:	shard
 * @it:	FX_DGRAM_* or FX_DNS_QUERY
 *
 * #syscalls send sendto close
 */
void sock_udp_intent(struct shard *sh, const struct fx_intent *it)
{
	struct core *c = &sh->core;
	struct udp_flow *f;
	ssize_t n;

	if (it->type == FX_DNS_QUERY) {
		if (shard_hooks.dns_query)
			shard_hooks.dns_query(sh, it->data, it->len, it->addr,
					      it->port);
		return;
	}
	if (it->type == FX_DGRAM_CLOSE) {
		if (it->sock >= 0)
			close(it->sock);
		return;
	}
	f = udp_flow_get(c, it->flow);
	if (!f)
		return;
	if (it->type == FX_DGRAM_OPEN) {
		if (sock_udp_open(sh, f, it))
			uflow_free(c, f); /* later intents find it gone */
		return;
	}
	/* FX_DGRAM_SEND: the intent may predate the socket (OPEN, SEND) */
	if (f->sock < 0)
		return;
	if (f->kind == UDPK_PUB) {
		const struct sockaddr_storage *ss = &sh->sock.upeer[it->flow];

		n = sendto(f->sock, it->data, it->len, MSG_DONTWAIT,
			   (const struct sockaddr *)ss,
			   ss->ss_family == AF_INET6 ?
				   sizeof(struct sockaddr_in6) :
				   sizeof(struct sockaddr_in));
	} else {
		n = send(f->sock, it->data, it->len, MSG_DONTWAIT);
	}
	if (n < 0) {
		CTR_INC(c, UDP_SEND_ERRORS);
		if (errno == ECONNREFUSED)
			udp_on_sock_error(c, f, ECONNREFUSED, &sh->fx);
	}
}

/**
 * sock_udp_event() - datagrams (or an error) on a flow's host socket
 * @sh:		shard
 * @idx:	flow index
 * @events:	epoll events
 *
 * #syscalls recvfrom
 */
void sock_udp_event(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct core *c = &sh->core;
	struct udp_flow *f = udp_flow_get(c, idx);
	int budget = UDP_RX_BUDGET;

	if (!f || f->sock < 0)
		return;
	(void)events;
	while (budget--) {
		uint8_t *p = udp_payload_slot(c, &sh->fx, udp_flow_v6(f));
		size_t max;
		ssize_t n;

		if (!p) {
			shard_flush_frames(sh);
			continue;
		}
		max = udp_payload_max(c, &sh->fx, udp_flow_v6(f));
		n = recv(f->sock, p, max, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == ECONNREFUSED || errno == EHOSTUNREACH ||
			    errno == ENETUNREACH)
				udp_on_sock_error(c, f, errno, &sh->fx);
			else if (errno != EAGAIN && errno != EINTR)
				CTR_INC(c, UDP_SEND_ERRORS);
			if (errno != EINTR && errno != ECONNREFUSED &&
			    errno != EHOSTUNREACH && errno != ENETUNREACH)
				break;
			continue;
		}
		if ((size_t)n > max) {
			CTR_INC(c, UDP_DROP_TOO_BIG);
			continue;
		}
		udp_flow_to_guest(c, f, &sh->fx, (size_t)n, sh->now_ns);
	}
}

/**
 * sock_udp_listen_event() - datagrams on a published UDP port
 * @sh:		shard
 * @idx:	UDP listener index
 *
 * The guest sees each client as conf_net_peer_src() says, over the family it
 * says. A datagram is received into a frame slot behind the headers of
 * its family; before recvfrom() tells the family, a listener that takes
 * IPv6 clients (with IPv6 on) receives behind IPv6 headers, and an IPv4
 * client's datagram is then moved 20 bytes forward, behind IPv4 ones.
 *
 * #syscalls recvfrom
 */
void sock_udp_listen_event(struct shard *sh, uint32_t idx)
{
	struct listener *l = &sh->lis.ulisteners[idx];
	struct core *c = &sh->core;
	int budget = UDP_RX_BUDGET;
	const uint8_t *gaddr;
	bool rx6;

	if (idx >= sh->lis.nulisteners || l->fd < 0)
		return; /* removed in this batch of events */
	gaddr = l->rule.guest_set ? l->rule.guest_addr.s6_addr : NULL;
	rx6 = c->conf.ipv6 &&
	      (gaddr ? !addr_is4(gaddr) : l->family == AF_INET6);

	while (budget--) {
		uint8_t *p = udp_payload_slot(c, &sh->fx, rx6);
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		uint8_t src[ADDR_LEN];
		struct udp_flow *f;
		size_t max, room;
		uint16_t sport;
		bool v6;
		ssize_t n;

		if (!p) {
			shard_flush_frames(sh);
			continue;
		}
		/* as much as either family may carry, if the slot has room */
		room = sh->fx.slot_size - (size_t)(p - fx_slot_next(&sh->fx));
		max = MIN(room, MAX(udp_payload_max(c, &sh->fx, false),
				    udp_payload_max(c, &sh->fx, true)));
		n = recvfrom(l->fd, p, max, MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&ss, &sl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		conf_net_peer_src(c, &ss, src, &sport);
		if (gaddr)
			conf_net_src_for(c, gaddr, src);
		v6 = !addr_is4(src);
		if ((size_t)n > udp_payload_max(c, &sh->fx, v6) ||
		    (size_t)n > max) {
			CTR_INC(c, UDP_DROP_TOO_BIG);
			continue;
		}
		if (v6 != rx6)
			memmove(udp_payload_slot(c, &sh->fx, v6), p, (size_t)n);
		f = udp_pub_to_guest_at(c, gaddr, src, sport,
					l->rule.guest_port, l->fd, &sh->fx,
					(size_t)n, sh->now_ns);
		if (f)
			sh->sock.upeer[udp_flow_idx(c, f)] = ss;
	}
}
