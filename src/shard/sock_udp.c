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
#include <netinet/udp.h>
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
/* guest datagrams of one flow per sendmmsg() (an rx batch's worth) */
#define UDP_TX_BATCH 32
/* datagrams per recvmmsg() at most (frame slots bound it too) */
#define UDP_RX_BATCH 32

/**
 * sock_udp_gro() - does a flow's socket take datagrams with UDP_GRO
 * @c:	core
 * @f:	flow
 *
 * Return: true for UDP flows when the edge carries UDP GSO frames
 */
static bool sock_udp_gro(const struct core *c, const struct udp_flow *f)
{
	return c->conf.uso && f->kind == UDPK_OUT;
}

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
 * #syscalls socket setsockopt connect epoll_ctl close
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
	if (sock_udp_gro(&sh->core, f))
		/* without it, datagrams come one by one */
		(void)setsockopt(fd, SOL_UDP, UDP_GRO, &(int){ 1 },
				 sizeof(int));
	/* each datagram then tells how many the queue dropped so far */
	(void)setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &(int){ 1 }, sizeof(int));
	sh->sock.udrops[udp_flow_idx(&sh->core, f)] = 0;
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
 * sock_udp_send_segs() - send a guest's UDP GSO datagram segment by
 * segment, when the kernel would not take it with UDP_SEGMENT
 * @sh:		shard
 * @f:		flow
 * @it:		the FX_DGRAM_SEND intent (@port: segment size)
 * @ss:		published-port client, or NULL (connected socket)
 * @sl:		length of @ss
 *
 * #syscalls sendto
 */
static void sock_udp_send_segs(struct shard *sh, struct udp_flow *f,
			       const struct fx_intent *it,
			       const struct sockaddr_storage *ss, socklen_t sl)
{
	uint32_t off;

	for (off = 0; off < it->len; off += it->port) {
		size_t len = MIN((size_t)it->port, (size_t)(it->len - off));

		if (sendto(f->sock, it->data + off, len, MSG_DONTWAIT,
			   (const struct sockaddr *)ss, sl) < 0)
			CTR_INC(&sh->core, UDP_SEND_ERRORS);
	}
}

/**
 * sock_udp_send_batch() - send the guest's datagrams of one flow, a run
 * of FX_DGRAM_SEND intents, with as few system calls as it takes
 * @sh:		shard
 * @its:	intents, the first an FX_DGRAM_SEND
 * @n:		intents in @its
 *
 * Takes the first intent and those right behind it for the same flow (up
 * to UDP_TX_BATCH) and hands them to the kernel with one sendmmsg(). An
 * intent with a segment size (@port, from a guest's UDP GSO frame) goes
 * with UDP_SEGMENT; if the kernel refuses that (a route whose MTU the
 * segments exceed), its segments go one by one. A datagram the kernel
 * refuses is counted (UDP_SEND_ERRORS) and the rest go on.
 *
 * #syscalls sendmmsg
 * Return: intents taken (at least 1)
 */
unsigned sock_udp_send_batch(struct shard *sh, const struct fx_intent *its,
			     unsigned n)
{
	/* cmsg buffers, aligned as a cmsghdr wants */
	uint64_t ctl[UDP_TX_BATCH][(CMSG_SPACE(sizeof(uint16_t)) + 7) / 8];
	struct mmsghdr msgs[UDP_TX_BATCH];
	struct iovec iov[UDP_TX_BATCH];
	struct core *c = &sh->core;
	struct udp_flow *f = udp_flow_get(c, its[0].flow);
	const struct sockaddr_storage *ss = NULL;
	socklen_t sl = 0;
	unsigned k, i = 0;

	for (k = 1; k < n && k < UDP_TX_BATCH; k++)
		if (its[k].type != FX_DGRAM_SEND || its[k].flow != its[0].flow)
			break;
	/* the intent may predate the socket (OPEN, SEND), or outlive it */
	if (!f || f->sock < 0)
		return k;
	if (f->kind == UDPK_PUB) {
		ss = &sh->sock.upeer[its[0].flow];
		sl = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						 sizeof(struct sockaddr_in);
	}
	memset(msgs, 0, sizeof(msgs[0]) * k);
	for (i = 0; i < k; i++) {
		struct msghdr *m = &msgs[i].msg_hdr;

		iov[i] = (struct iovec){ .iov_base = (void *)its[i].data,
					 .iov_len = its[i].len };
		m->msg_iov = &iov[i];
		m->msg_iovlen = 1;
		m->msg_name = (void *)ss;
		m->msg_namelen = sl;
		if (its[i].port && its[i].port < its[i].len) {
			struct cmsghdr *cm;
			uint16_t gso = its[i].port;

			m->msg_control = ctl[i];
			m->msg_controllen = CMSG_SPACE(sizeof(gso));
			cm = CMSG_FIRSTHDR(m);
			cm->cmsg_level = SOL_UDP;
			cm->cmsg_type = UDP_SEGMENT;
			cm->cmsg_len = CMSG_LEN(sizeof(gso));
			memcpy(CMSG_DATA(cm), &gso, sizeof(gso));
		}
	}
	for (i = 0; i < k;) {
		int r = sendmmsg(f->sock, msgs + i, k - i, MSG_DONTWAIT);

		if (r > 0) {
			i += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && msgs[i].msg_hdr.msg_control &&
		    (errno == EINVAL || errno == EMSGSIZE || errno == EIO)) {
			sock_udp_send_segs(sh, f, &its[i], ss, sl);
			i++;
			continue;
		}
		CTR_INC(c, UDP_SEND_ERRORS);
		if (r < 0 && errno == ECONNREFUSED) {
			udp_on_sock_error(c, f, ECONNREFUSED, &sh->fx);
			break;
		}
		i++;
	}
	return k;
}

/**
 * sock_udp_intent() - carry out a datagram intent of the core
 * @sh:	shard
 * @it:	FX_DGRAM_* or FX_DNS_QUERY
 *
 * #syscalls close
 */
void sock_udp_intent(struct shard *sh, const struct fx_intent *it)
{
	struct core *c = &sh->core;
	struct udp_flow *f;

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
	/* FX_DGRAM_SEND */
	sock_udp_send_batch(sh, it, 1);
}

/**
 * sock_udp_cmsg() - what a received datagram's control messages say
 * @m:		the message
 * @drops:	in: the socket's drop count as last seen; out: as this
 *		message says (SO_RXQ_OVFL), if it says
 *
 * Return: the size the datagrams received together have (UDP_GRO; the
 * last one shorter or not), or 0: one datagram
 */
static uint16_t sock_udp_cmsg(struct msghdr *m, uint32_t *drops)
{
	struct cmsghdr *cm;
	uint16_t ret = 0;

	for (cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		int seg;

		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SO_RXQ_OVFL &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(*drops)))
			memcpy(drops, CMSG_DATA(cm), sizeof(*drops));
		if (cm->cmsg_level != SOL_UDP || cm->cmsg_type != UDP_GRO ||
		    cm->cmsg_len < CMSG_LEN(sizeof(seg)))
			continue;
		memcpy(&seg, CMSG_DATA(cm), sizeof(seg));
		ret = seg > 0 && seg < 65536 ? (uint16_t)seg : 0;
	}
	return ret;
}

/**
 * struct udp_rx - one recvmmsg() batch: headers, where each datagram goes,
 * room for its control messages (UDP_GRO, SO_RXQ_OVFL) and its source
 * @msgs:	message headers
 * @iov:	one frame slot's payload room each
 * @ctl:	control message buffers, aligned as a cmsghdr wants
 * @ss:		source addresses (published ports)
 */
struct udp_rx {
	struct mmsghdr msgs[UDP_RX_BATCH];
	struct iovec iov[UDP_RX_BATCH];
	uint64_t ctl[UDP_RX_BATCH][(CMSG_SPACE(sizeof(int)) +
				    CMSG_SPACE(sizeof(uint32_t)) + 7) /
				   8];
	struct sockaddr_storage ss[UDP_RX_BATCH];
};

/**
 * sock_udp_rx_prep() - point a batch's messages at the next free frame
 * slots, behind the headers of a family (a full slot pool is flushed
 * first)
 * @sh:		shard
 * @b:		batch
 * @v6:		behind IPv6 headers (else IPv4)
 * @max:	bytes a message may take
 * @budget:	messages left for this event
 * @name:	ask for each datagram's source
 *
 * Return: messages in the batch
 */
static unsigned sock_udp_rx_prep(struct shard *sh, struct udp_rx *b, bool v6,
				 size_t max, int budget, bool name)
{
	struct fx *fx = &sh->fx;
	unsigned k, j;

	if (!udp_payload_slot(&sh->core, fx, v6))
		shard_flush_frames(sh);
	k = MIN(MIN(UDP_RX_BATCH, (unsigned)budget), fx->nslots - fx->nframes);
	memset(b->msgs, 0, sizeof(b->msgs[0]) * k);
	for (j = 0; j < k; j++) {
		struct msghdr *m = &b->msgs[j].msg_hdr;

		b->iov[j].iov_base = udp_payload_slot(&sh->core, fx, v6) +
				     (size_t)j * fx->slot_size;
		b->iov[j].iov_len = max;
		m->msg_iov = &b->iov[j];
		m->msg_iovlen = 1;
		m->msg_control = b->ctl[j];
		m->msg_controllen = sizeof(b->ctl[j]);
		if (name) {
			m->msg_name = &b->ss[j];
			m->msg_namelen = sizeof(b->ss[j]);
		}
	}
	return k;
}

/**
 * sock_udp_rx_meta() - a received datagram's segment size, and the drops
 * its socket reported since the last one (counted, UDP_HOST_RX_DROPS)
 * @c:		core
 * @m:		the message
 * @drops:	the socket's drop count as last seen, updated
 *
 * Return: the segment size of datagrams received together, or 0
 */
static uint16_t sock_udp_rx_meta(struct core *c, struct msghdr *m,
				 uint32_t *drops)
{
	uint32_t now = *drops;
	uint16_t seg = sock_udp_cmsg(m, &now);

	CTR_ADD(c, UDP_HOST_RX_DROPS, now - *drops);
	*drops = now;
	return seg;
}

/**
 * sock_udp_event() - datagrams (or an error) on a flow's host socket
 * @sh:		shard
 * @idx:	flow index
 * @events:	epoll events
 *
 * Datagrams come with one recvmmsg() per batch, each straight into the
 * frame slot it will leave in, behind the headers (a datagram the core did
 * not make a frame of leaves its slot to the next one: later payloads
 * move down a slot). A socket with UDP_GRO (conf.uso) may return many
 * datagrams at once, with their size: they leave as one UDP GSO frame.
 *
 * #syscalls recvmmsg
 */
void sock_udp_event(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct core *c = &sh->core;
	struct udp_flow *f = udp_flow_get(c, idx);
	struct fx *fx = &sh->fx;
	int budget = UDP_RX_BUDGET;
	struct udp_rx b;
	size_t max;
	bool v6, gro;

	if (!f || f->sock < 0)
		return;
	(void)events;
	v6 = udp_flow_v6(f);
	gro = sock_udp_gro(c, f);
	/* with UDP_GRO, as much as a frame may carry: the core checks
	 * each datagram against the MTU */
	max = gro ? udp_payload_room(c, fx, v6) : udp_payload_max(c, fx, v6);
	while (budget > 0) {
		unsigned k = sock_udp_rx_prep(sh, &b, v6, max, budget, false);
		unsigned j;
		int r;

		r = recvmmsg(f->sock, b.msgs, k, MSG_DONTWAIT, NULL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECONNREFUSED || errno == EHOSTUNREACH ||
			    errno == ENETUNREACH) {
				udp_on_sock_error(c, f, errno, fx);
				budget--;
				continue;
			}
			if (errno != EAGAIN)
				CTR_INC(c, UDP_SEND_ERRORS);
			break;
		}
		for (j = 0; j < (unsigned)r; j++) {
			struct msghdr *m = &b.msgs[j].msg_hdr;
			uint8_t *p = udp_payload_slot(c, fx, v6);
			size_t n = b.msgs[j].msg_len;
			uint16_t seg;

			seg = sock_udp_rx_meta(c, m, &sh->sock.udrops[idx]);
			if (m->msg_flags & MSG_TRUNC) {
				CTR_INC(c, UDP_DROP_TOO_BIG);
				continue;
			}
			if (p != b.iov[j].iov_base)
				memmove(p, b.iov[j].iov_base, n);
			udp_flow_to_guest(c, f, fx, n, gro ? seg : 0,
					  sh->now_ns);
		}
		budget -= r;
		if ((unsigned)r < k)
			break;
	}
}

/**
 * sock_udp_listen_prep() - ready a published UDP port's new socket: UDP_GRO
 * when the edge carries UDP GSO frames (the kernel keeps each client's
 * datagrams apart), and its drop count with every datagram
 * @sh:		shard
 * @l:		the listener (@fd set)
 *
 * #syscalls setsockopt
 */
void sock_udp_listen_prep(struct shard *sh, struct listener *l)
{
	l->gro = sh->core.conf.uso &&
		 !setsockopt(l->fd, SOL_UDP, UDP_GRO, &(int){ 1 }, sizeof(int));
	(void)setsockopt(l->fd, SOL_SOCKET, SO_RXQ_OVFL, &(int){ 1 },
			 sizeof(int));
	l->drops = 0;
}

/**
 * sock_udp_listen_event() - datagrams on a published UDP port
 * @sh:		shard
 * @idx:	UDP listener index
 *
 * The guest sees each client as conf_net_peer_src() says, over the family it
 * says. Datagrams come with one recvmmsg() per batch, each into a frame
 * slot behind the headers of its family; before the call tells the
 * family, a listener that takes IPv6 clients (with IPv6 on) receives
 * behind IPv6 headers, and an IPv4 client's datagram is then moved 20
 * bytes forward, behind IPv4 ones (and down a slot when one before it
 * made no frame).
 *
 * #syscalls recvmmsg
 */
void sock_udp_listen_event(struct shard *sh, uint32_t idx)
{
	struct listener *l = &sh->lis.ulisteners[idx];
	struct core *c = &sh->core;
	struct fx *fx = &sh->fx;
	int budget = UDP_RX_BUDGET;
	const uint8_t *gaddr;
	struct udp_rx b;
	size_t max;
	bool rx6;

	if (idx >= sh->lis.nulisteners || l->fd < 0)
		return; /* removed in this batch of events */
	gaddr = l->rule.guest_set ? l->rule.guest_addr.s6_addr : NULL;
	rx6 = c->conf.ipv6 &&
	      (gaddr ? !addr_is4(gaddr) : l->family == AF_INET6);
	/* as much as either family may carry, if the slot has room */
	max = udp_payload_room(c, fx, rx6);
	if (!l->gro) /* else the core checks each datagram's size */
		max = MIN(max, MAX(udp_payload_max(c, fx, false),
				   udp_payload_max(c, fx, true)));

	while (budget > 0) {
		unsigned k = sock_udp_rx_prep(sh, &b, rx6, max, budget, true);
		unsigned j;
		int r;

		r = recvmmsg(l->fd, b.msgs, k, MSG_DONTWAIT, NULL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (j = 0; j < (unsigned)r; j++) {
			struct msghdr *m = &b.msgs[j].msg_hdr;
			size_t n = b.msgs[j].msg_len;
			uint8_t src[ADDR_LEN];
			struct udp_flow *f;
			uint16_t sport, seg;
			uint8_t *p;
			bool v6;

			seg = sock_udp_rx_meta(c, m, &l->drops);
			if (!l->gro)
				seg = 0;
			conf_net_peer_src(c, &b.ss[j], src, &sport);
			if (gaddr)
				conf_net_src_for(c, gaddr, src);
			v6 = !addr_is4(src);
			if ((m->msg_flags & MSG_TRUNC) ||
			    (!seg && n > udp_payload_max(c, fx, v6)) ||
			    n > udp_payload_room(c, fx, v6)) {
				CTR_INC(c, UDP_DROP_TOO_BIG);
				continue;
			}
			/* behind the headers of its family, in the next
			 * slot (one before may have made no frame) */
			p = udp_payload_slot(c, fx, v6);
			if (p != b.iov[j].iov_base)
				memmove(p, b.iov[j].iov_base, n);
			f = udp_pub_to_guest_at(c, gaddr, src, sport,
						l->rule.guest_port, l->fd, fx,
						n, seg, sh->now_ns);
			if (f)
				sh->sock.upeer[udp_flow_idx(c, f)] = b.ss[j];
		}
		budget -= r;
		if ((unsigned)r < k)
			break;
	}
}
