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
#include "host/dns_fwd.h"
#include "host/shard.h"
#include "util/log.h"

#define UDP_RX_BUDGET 64

/**
 * sock_udp_open() - open the host socket of a datagram flow
 * @sh:	shard
 * @f:	flow (UDPK_OUT or UDPK_ICMP)
 *
 * #syscalls socket connect epoll_ctl close
 * Return: 0, or -errno (the flow is then freed)
 */
static int sock_udp_open(struct shard *sh, struct udp_flow *f)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(f->target_port),
		.sin_addr.s_addr = f->target_addr_be,
	};
	bool icmp = f->kind == UDPK_ICMP;
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = EP_DATA(EP_UDP, udp_flow_idx(&sh->core, f)),
	};
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    icmp ? IPPROTO_ICMP : 0);
	if (fd < 0) {
		ret = -errno;
		if (icmp && (ret == -EACCES || ret == -EPERM)) {
			static bool said;

			CTR_INC(&sh->core, ICMP4_PING_DENIED);
			if (!said)
				warn("ping from the guest needs ping sockets: allow group %u in net.ipv4.ping_group_range (e.g. sysctl -w net.ipv4.ping_group_range='0 2147483647')",
				     (unsigned)getegid());
			said = true;
		} else {
			CTR_INC(&sh->core, UDP_SOCK_FAIL);
		}
		return ret;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
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
		dns_fwd_query(sh, it->data, it->len, it->addr_be, it->port);
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
		if (sock_udp_open(sh, f))
			uflow_free(c, f); /* later intents find it gone */
		return;
	}
	/* FX_DGRAM_SEND: the intent may predate the socket (OPEN, SEND) */
	if (f->sock < 0)
		return;
	if (f->kind == UDPK_PUB) {
		const struct sockaddr_storage *ss = &sh->upeer[it->flow];

		n = sendto(f->sock, it->data, it->len, MSG_DONTWAIT, (const struct sockaddr *)ss,
			   ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
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
		uint8_t *p = udp_payload_slot(c, &sh->fx);
		size_t max;
		ssize_t n;

		if (!p) {
			shard_flush_frames(sh);
			continue;
		}
		max = udp_payload_max(c, &sh->fx);
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
 * The guest sees each client as fwd_peer_src() says.
 *
 * #syscalls recvfrom
 */
void sock_udp_listen_event(struct shard *sh, uint32_t idx)
{
	struct listener *l = &sh->ulisteners[idx];
	struct core *c = &sh->core;
	int budget = UDP_RX_BUDGET;

	while (budget--) {
		uint8_t *p = udp_payload_slot(c, &sh->fx);
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		uint32_t src;
		struct udp_flow *f;
		uint16_t sport;
		size_t max;
		ssize_t n;

		if (!p) {
			shard_flush_frames(sh);
			continue;
		}
		max = udp_payload_max(c, &sh->fx);
		n = recvfrom(l->fd, p, max, MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&ss, &sl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((size_t)n > max) {
			CTR_INC(c, UDP_DROP_TOO_BIG);
			continue;
		}
		src = fwd_peer_src(c, &ss, &sport);
		f = udp_pub_to_guest(c, src, sport, l->guest_port, l->fd,
				     &sh->fx, (size_t)n, sh->now_ns);
		if (f)
			sh->upeer[udp_flow_idx(c, f)] = ss;
	}
}
