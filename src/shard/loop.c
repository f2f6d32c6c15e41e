/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.c - a shard's set-up, its epoll loop and the dispatch of its events:
 * edge batches, sockets, timers; the primitives are shard.c's */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "os/sys.h"
#include "core/udp.h"
#include "shard/impair.h"
#include "shard/mbox.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "shard/sock_udp.h"
#include "util/log.h"

#define FX_SLOTS 64
#define SHARD_OOO_SLOTS 64 /* guest segments held past a gap: 4 MiB */
_Static_assert(FX_SLOTS <= EDGE_PLACE_SLOTS, "every frame slot may be placed");
#define RX_BATCHES_PER_EVENT 8
#define FALLBACK_INFLIGHT (4U << 20)

const char *const ep_type_str[] = {
	[EP_EDGE] = "EDGE",
	[EP_TIMER] = "TIMER",
	[EP_SIGNAL] = "SIGNAL",
	[EP_LISTEN] = "LISTEN",
	[EP_TCP] = "TCP",
	[EP_PIDFD] = "PIDFD",
	[EP_NSWATCH] = "NSWATCH",
	[EP_UDP] = "UDP",
	[EP_UDP_LISTEN] = "UDP_LISTEN",
	[EP_DNS] = "DNS",
	[EP_MBOX] = "MBOX",
	[EP_SPLICE] = "SPLICE",
	[EP_EDGE_LISTEN] = "EDGE_LISTEN",
	[EP_EDGE_CTL] = "EDGE_CTL",
	[EP_CTL] = "CTL",
	[EP_FWD_AUTO] = "FWD_AUTO",
	[EP_UDPNS] = "UDPNS",
};
_Static_assert(ARRAY_SIZE(ep_type_str) == EP_TYPE_NUM,
	       "ep_type_str must name every epoll type");

/**
 * shard_listen_resume() - arm the listeners paused by shard_accept_nofd()
 * again, and make the spare fd again if it was lost
 * @sh:		shard
 */
static void shard_listen_resume(struct shard *sh)
{
	unsigned i;

	sh->lis.listen_resume_ns = UINT64_MAX;
	if (sh->lis.reserve_fd < 0)
		sh->lis.reserve_fd = fd_spare_make(sh->timerfd);
	for (i = 0; i < SHARD_RESUME_MAX && shard_hooks.resume[i]; i++)
		shard_hooks.resume[i](sh);
	if (sh->lis.edge_listen_paused) {
		struct edge *e = sh->edge;

		sh->lis.edge_listen_paused = false;
		shard_listen_arm(sh, e->ops->fd(e, EDGE_FD_LISTEN, 0),
				 EP_DATA(EP_EDGE_LISTEN, 0));
	}
}

/**
 * shard_edge_poll() - poll one of the edge's fds, if it has one now
 * @sh:		shard
 * @which:	the fd's role (for EDGE_FD_QUEUE: of the shard's queue)
 * @type:	its epoll type (index 0)
 *
 * Return: 0 (also when the edge has no such fd), or -1 with errno set
 */
static int shard_edge_poll(struct shard *sh, enum edge_fd which,
			   enum ep_type type)
{
	int fd = sh->edge->ops->fd(sh->edge, which, sh->q);

	return fd >= 0 ? shard_ep_add(sh, fd, EPOLLIN, EP_DATA(type, 0)) : 0;
}

/**
 * shard_gso_max() - GSO toward the guest: a whole slot's worth of payload
 * per frame
 * @e:	edge
 *
 * Return: the largest TCP payload of a frame toward the guest
 */
static uint32_t shard_gso_max(const struct edge *e)
{
	return (uint32_t)MIN(65535U - IP4_HLEN - TCP_HLEN,
			     e->frame_max - e->vnet_hdr_len - ETH_HLEN -
				     IP4_HLEN - TCP_HLEN);
}

/**
 * shard_dhcp_conf() - what the core's DHCPv4 server hands out
 * @cc:		core configuration (its mask set)
 * @conf:	configuration
 */
static void shard_dhcp_conf(struct core_conf *cc, const struct conf *conf)
{
	cc->dhcp = conf->dhcp;
	cc->dhcp4.addr_be = conf->lease4 ? conf->lease4 : conf->guest4;
	cc->dhcp4.mask_be = cc->mask4_be;
	cc->dhcp4.router_be = conf->gw4;
	cc->dhcp4.server_be = conf->gw4;
	if (conf->dns && conf->dns4) {
		cc->dhcp4.dns_be[0] = conf->dns4;
		cc->dhcp4.ndns = 1;
	}
	cc->dhcp4.mtu = (uint16_t)MIN(conf->mtu, 65535U);
	memcpy(cc->dhcp4.search, conf->search, conf->search_len);
	cc->dhcp4.search_len = conf->search_len;
	if (conf->hostname) {
		cc->dhcp4.hostname_len = MIN(strlen(conf->hostname),
					     sizeof(cc->dhcp4.hostname));
		memcpy(cc->dhcp4.hostname, conf->hostname,
		       cc->dhcp4.hostname_len);
	}
	if (conf->fqdn)
		cc->dhcp4.fqdn_len = conf_dhcp_name_wire(conf->fqdn,
							 cc->dhcp4.fqdn);
}

/**
 * shard_ip6_conf() - the core's IPv6 addresses and router advertisements
 * @cc:		core configuration
 * @conf:	configuration
 */
static void shard_ip6_conf(struct core_conf *cc, const struct conf *conf)
{
	if (!conf->ipv6)
		return;
	cc->ipv6 = true;
	memcpy(cc->prefix6, &conf->prefix6, 8);
	memcpy(cc->guest6, &conf->guest6, 16);
	memcpy(cc->gw6, &conf->gw6, 16);
	if (!IN6_IS_ADDR_UNSPECIFIED(&conf->gw6_ll))
		memcpy(cc->gw6_ll, &conf->gw6_ll, 16);
	if (conf->dns)
		memcpy(cc->dns6, &conf->dns6, 16);
	cc->dhcp6 = conf->dhcp;
	/* SLAAC guests may route through us now that TCP and UDP
	 * over IPv6 work; the longest lifetime there is, as answers
	 * to solicitations are all a guest gets of advertisements */
	cc->ra_router_lifetime_s = CORE_RA_LIFETIME_MAX_S;
	/* pasta's model with the host's global gateway: the
	 * namespace's default route, ours, is via that one; the
	 * kernel would add a second one via our advertisements'
	 * source (fe80::1). Lifetime 0: not a default router, the
	 * rest of the advertisement still counts. (pasta sends
	 * none when it configures the namespace.) */
	if (conf->configure && conf->addr_model == CONF_ADDR_HOST_COPY &&
	    !IN6_ARE_ADDR_EQUAL(&conf->gw6, &conf->gw6_ll))
		cc->ra_router_lifetime_s = 0;
}

/**
 * shard_core_conf() - the core's configuration of a shard: addresses,
 * limits, offloads and the address model
 * @cc:		out
 * @sh:		shard (its id, group and flow limit set)
 * @conf:	configuration
 * @e:		edge
 * @guest_mac:	the guest's MAC address
 * @max_udp:	this shard's UDP flows at most
 */
static void shard_core_conf(struct core_conf *cc, const struct shard *sh,
			    const struct conf *conf, const struct edge *e,
			    const uint8_t guest_mac[6], uint32_t max_udp)
{
	core_conf_default(cc);
	memcpy(cc->guest_mac, guest_mac, 6);
	cc->guest4_be = conf->guest4;
	cc->gw4_be = conf->gw4;
	cc->mask4_be = conf->prefix_len ?
			       htonl(~0U << (32 - conf->prefix_len)) :
			       0;
	cc->map_gw_to_loopback = conf->map_gw;
	cc->gw_unreach = conf->gw_unreach;
	cc->mtu = conf->mtu;
	cc->vnet_hdr_len = e->vnet_hdr_len;
	cc->csum_offload = e->vnet_hdr_len != 0;
	if (cc->csum_offload && conf->offload)
		cc->gso_max = shard_gso_max(e);
	cc->uso = cc->csum_offload && e->uso;
	cc->uso_in = cc->uso;
	cc->ack_every = conf->ack_every;
	cc->ooo_slots = SHARD_OOO_SLOTS;
	cc->max_flows = sh->max_flows;
	cc->max_udp_flows = max_udp;
	cc->shard_id = (uint8_t)sh->id;
	cc->nshards = (uint8_t)sh->grp->n;
	cc->udp_idle_ns = (uint64_t)conf->udp_idle_s * 1000000000ULL;
	cc->dns4_be = conf->dns ? conf->dns4 : 0;
	cc->dns4_shared = conf->dns4_shared;
	/* slirp4netns --disable-dns: 10.0.2.3 stays libslirp's, silent */
	if (conf->s4n && !conf->dns) {
		cc->quiet4_be = conf->dns4;
		if (conf->ipv6)
			memcpy(cc->quiet6, &conf->dns6, 16);
	}
	/* pasta's model (conf_net.c): a real gateway, mapped addresses */
	cc->gw_real = conf->addr_model == CONF_ADDR_HOST_COPY;
	cc->ndp_proxy = conf->addr_model == CONF_ADDR_HOST_COPY;
	cc->map_lo4_be = conf->map_lo4;
	cc->map_guest4_be = conf->map_guest4;
	cc->host4_be = conf->host4;
	if (conf->ipv6) {
		memcpy(cc->map_lo6, &conf->map_lo6, 16);
		memcpy(cc->map_guest6, &conf->map_guest6, 16);
		memcpy(cc->host6, &conf->host6, 16);
	}
	shard_dhcp_conf(cc, conf);
	shard_ip6_conf(cc, conf);
}

/**
 * shard_init() - set up a shard: memory, core, epoll, timer, mailbox
 * @sh:		shard (zeroed)
 * @conf:	configuration
 * @e:		edge (queue @id is served)
 * @guest_mac:	the guest's MAC address
 * @grp:	the shards serving @e (@grp->n set)
 * @id:		this shard's index
 *
 * All memory the data path uses is allocated here, once. The flow limits
 * are split evenly among the shards.
 *
 * #syscalls:setup epoll_create1 timerfd_create getrandom
 * Return: 0, or -errno (logged)
 */
int shard_init(struct shard *sh, const struct conf *conf, struct edge *e,
	       const uint8_t guest_mac[6], struct shard_group *grp, unsigned id)
{
	struct core_conf cc;
	uint32_t max_udp;
	void *mem;
	int ret;

	sh->conf = conf;
	sh->edge = e;
	sh->q = id;
	sh->id = id;
	sh->grp = grp;
	grp->sh[id] = sh;
	sh->peers.mbox_fd = -1;
	sh->max_flows = (conf->max_flows + grp->n - 1) / grp->n;
	max_udp = (conf->max_udp_flows + grp->n - 1) / grp->n;
	sh->armed_ns = UINT64_MAX;
	sh->lis.listen_resume_ns = UINT64_MAX;
	sh->lis.reserve_fd = -1;

	e->qctr[id] = sh->stats.ctr;
	shard_core_conf(&cc, sh, conf, e, guest_mac, max_udp);

	/* probed (and warned about) once: shard 0 is set up first */
	sh->sock.peek_off = id ? grp->sh[0]->sock.peek_off :
				 !conf->no_peek_off &&
					    sock_tcp_peek_off_supported();
	if (!sh->sock.peek_off) {
		if (!conf->no_peek_off && !id)
			warn("this kernel lacks TCP SO_PEEK_OFF: using the "
			     "slower re-peek fallback");
		sh->sock.discard_len = FALLBACK_INFLIGHT;
		sh->sock.discard = malloc(sh->sock.discard_len);
		if (!sh->sock.discard)
			return -ENOMEM;
		cc.max_inflight = FALLBACK_INFLIGHT;
	}

	if (!id && getrandom(grp->key, sizeof(grp->key), 0) != sizeof(grp->key))
		return -errno;
	mem = calloc(1, core_mem_size(&cc));
	sh->sock.hflags = calloc(sh->max_flows, 1);
	sh->sock.txq = calloc(2 * (size_t)sh->max_flows, sizeof(*sh->sock.txq));
	sh->frame_len = calloc(FX_SLOTS, sizeof(*sh->frame_len));
	sh->sock.upeer = calloc(max_udp ? max_udp : 1, sizeof(*sh->sock.upeer));
	sh->sock.udrops = calloc(max_udp ? max_udp : 1,
				 sizeof(*sh->sock.udrops));
	sh->rates.tcp = calloc(sh->max_flows, sizeof(*sh->rates.tcp));
	sh->rates.udp = calloc(max_udp ? max_udp : 1, sizeof(*sh->rates.udp));
	sh->rates.hi = calloc(sh->max_flows, sizeof(*sh->rates.hi));
	sh->rates.hu = calloc(max_udp ? max_udp : 1, sizeof(*sh->rates.hu));
	sh->fx.slot_size = e->frame_max;
	sh->fx.nslots = FX_SLOTS;
	sh->fx.slots = malloc(FX_SLOTS * sh->fx.slot_size);
	sh->fx.frame_len = sh->frame_len;
	if (!mem || !sh->sock.hflags || !sh->sock.txq || !sh->frame_len ||
	    !sh->fx.slots || !sh->sock.upeer || !sh->sock.udrops ||
	    !sh->rates.tcp || !sh->rates.udp || !sh->rates.hi || !sh->rates.hu)
		return -ENOMEM;
	ret = core_init(&sh->core, &cc, mem, sh->stats.ctr, grp->key);
	if (ret)
		return ret;

	sh->epfd = epoll_create1(EPOLL_CLOEXEC);
	sh->timerfd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_NONBLOCK | TFD_CLOEXEC);
	/* the listeners are shard 0's: the others need no spare */
	if (!id && sh->timerfd >= 0)
		sh->lis.reserve_fd = fd_spare_make(sh->timerfd);
	if (sh->epfd < 0 || sh->timerfd < 0)
		return -errno;
	if (shard_edge_poll(sh, EDGE_FD_QUEUE, EP_EDGE) ||
	    (!id && shard_edge_poll(sh, EDGE_FD_LISTEN, EP_EDGE_LISTEN)) ||
	    /* a control connection there from the start (--fd) */
	    (!id && shard_edge_poll(sh, EDGE_FD_CTL, EP_EDGE_CTL)) ||
	    shard_ep_add(sh, sh->timerfd, EPOLLIN, EP_DATA(EP_TIMER, 0)))
		return -errno;
	sh->edge_gen = e->gen;
	/* the impairment stage and --pcap take frames whole (a loaned
	 * payload is not in the view's copy) */
	if (conf->impair.on || conf->pcap_path)
		e->rx_whole = true;
	if (conf->impair.on) {
		sh->imp = impair_new(&conf->impair, id);
		if (!sh->imp)
			return -ENOMEM;
	}
	for (ret = 0; ret < HIST_ID_NUM; ret++)
		hist_init(&sh->stats.hist[ret]);
	return mbox_init(sh);
}

/**
 * shard_reset_flows() - at exit: reset the host side of every TCP flow
 * still open
 * @sh:	shard (its thread stopped)
 *
 * A flow still in the table has not ended: a plain close() would send FIN,
 * and the host peer would take a cut-off stream for a whole one. An RST
 * (SO_LINGER with a zero timeout) tells it the truth. Counted in
 * TCP_RST_AT_EXIT.
 *
 * #syscalls setsockopt close
 */
void shard_reset_flows(struct shard *sh)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	uint32_t i;

	for (i = 0; i < sh->core.hiwat; i++) {
		struct tcp_flow *f = tcp_flow_get(&sh->core, i);

		if (!f || f->sock < 0)
			continue;
		setsockopt(f->sock, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(f->sock);
		f->sock = -1;
		CTR_INC(&sh->core, TCP_RST_AT_EXIT);
	}
}

/**
 * shard_fini() - close every socket and free what shard_init() allocated
 * @sh:	shard
 *
 * #syscalls close
 */
void shard_fini(struct shard *sh)
{
	uint32_t i;

	for (i = 0; i < sh->core.hiwat; i++) {
		struct tcp_flow *f = tcp_flow_get(&sh->core, i);

		if (f && f->sock >= 0)
			close(f->sock);
	}
	for (i = 0; i < sh->core.uhiwat; i++) {
		struct udp_flow *u = udp_flow_get(&sh->core, i);

		if (u && u->sock >= 0 && u->kind != UDPK_PUB)
			close(u->sock);
	}
	for (i = 0; i < sh->lis.nlisteners; i++)
		if (sh->lis.listeners[i].fd >= 0)
			close(sh->lis.listeners[i].fd);
	for (i = 0; i < sh->lis.nulisteners; i++)
		if (sh->lis.ulisteners[i].fd >= 0)
			close(sh->lis.ulisteners[i].fd);
	impair_free(sh->imp);
	sh->imp = NULL;
	free(sh->lis.listeners);
	free(sh->lis.ulisteners);
	free(sh->sock.upeer);
	free(sh->sock.udrops);
	free(sh->rates.tcp);
	free(sh->rates.udp);
	free(sh->rates.hi);
	free(sh->rates.hu);
	if (shard_hooks.fini)
		shard_hooks.fini(sh);
	mbox_fini(sh);
	free(sh->core.flows); /* the start of core_init()'s memory */
	free(sh->sock.hflags);
	free(sh->sock.txq);
	free(sh->frame_len);
	free(sh->fx.slots);
	free(sh->sock.discard);
	close(sh->epfd);
	close(sh->timerfd);
	if (sh->lis.reserve_fd >= 0)
		close(sh->lis.reserve_fd);
}

/**
 * shard_guest_gone() - reset the flows of a guest that went away
 * @sh:	shard
 *
 * Its host peers see resets; published ports stay for the next guest.
 */
static void shard_guest_gone(struct shard *sh)
{
	while (!core_guest_gone(&sh->core, &sh->fx))
		shard_drain(sh);
	shard_drain(sh);
	/* nobody to send them to (the reservations went with the rings) */
	sh->fx.nframes = 0;
	memset(sh->sock.placed, 0, sizeof(sh->sock.placed));
	sh->sock.nplaced = 0;
}

/**
 * shard_mig_hold() - --migrate-from: stop polling the edge's queue until
 * the source's flows are in (mig_shard_poll())
 * @sh:	shard
 *
 * Context: start-up
 * #syscalls:setup epoll_ctl
 */
void shard_mig_hold(struct shard *sh)
{
	int fd = sh->edge->ops->fd(sh->edge, EDGE_FD_QUEUE, sh->q);

	if (fd >= 0)
		epoll_ctl(sh->epfd, EPOLL_CTL_DEL, fd, NULL);
	sh->mig_hold = true;
}

/**
 * shard_mig_release() - poll the edge's queue again, and look at what
 * waits there now
 * @sh:	shard
 */
void shard_mig_release(struct shard *sh)
{
	if (shard_edge_poll(sh, EDGE_FD_QUEUE, EP_EDGE))
		warn_perror("migration: cannot poll the guest's queue");
	sh->mig_hold = false;
	sh->edge->rx_pending[sh->q] = true;
	sh->armed_ns = 0; /* the held period's tick is over */
}

static void shard_edge_changed(struct shard *sh);

/**
 * shard_edge_sync() - follow the edge's generation now (a frontend that
 * set features since): before flows are taken for the guest it serves
 * @sh:	shard
 */
void shard_edge_sync(struct shard *sh)
{
	shard_edge_changed(sh);
}

/**
 * shard_edge_changed() - if another guest took over the edge (or the same
 * one changed what it accepts), reset the old flows and follow the new
 * offloads
 * @sh:	shard
 */
static void shard_edge_changed(struct shard *sh)
{
	struct edge *e = sh->edge;
	unsigned gen = __atomic_load_n(&e->gen, __ATOMIC_ACQUIRE);
	unsigned hl;
	bool csum, gso, uso, uso_in;

	if (gen == sh->edge_gen)
		return;
	sh->edge_gen = gen;
	shard_guest_gone(sh);
	if (!e->ops->offloads)
		return;
	e->ops->offloads(e, &hl, &csum, &gso, &uso, &uso_in);
	/* the impairment stage works on copies of whole frames, and a
	 * placed frame's payload is in the guest's buffer, not in its
	 * slot, where --pcap copies frames from: either turns it off */
	sh->sock.can_place = e->ops->place && csum && !sh->conf->no_place &&
			     !sh->imp && !sh->stats.pcap;
	if (core_set_edge(&sh->core, hl, csum,
			  gso && sh->conf->offload ? shard_gso_max(e) : 0, uso,
			  uso_in))
		warn("the guest's offloads make no sense: header %u", hl);
}

/**
 * shard_edge_accept() - a guest (or a vhost-user frontend) connects to
 * the edge's listening socket (shard 0)
 * @sh:	shard
 *
 * Return: 0, or -errno if the listening socket failed or the new fd could
 * not be polled
 */
static int shard_edge_accept(struct shard *sh)
{
	struct edge *e = sh->edge;
	int ret = e->ops->accept(e);

	if (ret == -EMFILE || ret == -ENFILE) {
		int lfd = e->ops->fd(e, EDGE_FD_LISTEN, 0);

		/* not the end of the gateway: refuse, pause, try again */
		ret = (int)shard_accept_nofd(
			sh, lfd, EP_DATA(EP_EDGE_LISTEN, 0), -ret, false, 1);
		sh->lis.edge_listen_paused = true;
		warn_rl("out of file descriptors: %d connection(s) to the "
			"guest's socket refused (ulimit -n)",
			ret);
		return 0;
	}
	if (ret < 0)
		return ret;
	if (ret == EDGE_ACCEPT_CTL) /* a control connection (vhost-user) */
		return shard_edge_poll(sh, EDGE_FD_CTL, EP_EDGE_CTL) ? -errno :
								       0;
	if (ret == EDGE_ACCEPT_GUEST)
		return shard_edge_poll(sh, EDGE_FD_QUEUE, EP_EDGE) ? -errno : 0;
	return 0;
}

/**
 * shard_edge_ctl() - the edge's control connection is readable (shard 0)
 * @sh:	shard
 *
 * When the guest changed (a frontend set features or went away), the
 * other shards are woken to see it. A frontend gone from an edge that
 * waits for no other (passt --one-off) is the end.
 */
static void shard_edge_ctl(struct shard *sh)
{
	unsigned i, gen = sh->edge->gen;

	if (sh->edge->ops->ctl(sh->edge) == -ECONNRESET && !sh->edge->reconnect)
		sh->edge_lost = true;
	if (__atomic_load_n(&sh->edge->gen, __ATOMIC_ACQUIRE) == gen)
		return;
	for (i = 1; i < sh->grp->n; i++)
		sh->peers.kick |= 1U << i;
	mbox_kick(sh);
}

/**
 * shard_edge_rx() - read and handle batches of frames from the edge
 * @sh:	shard
 *
 * Return: 0 (also when the guest left an edge that waits for the next),
 * or -errno if the edge failed or its guest left for good
 */
static int shard_edge_rx(struct shard *sh)
{
	struct pkt_view v[EDGE_RX_BATCH];
	unsigned hl = sh->edge->vnet_hdr_len;
	uint64_t t0 = now_mono_ns(), t1;
	int b, n, i;

	/* batch latency: one clock read per batch, and one more per event
	 * (a batch's end is the next one's start; each includes its read) */
	for (b = 0; b < RX_BATCHES_PER_EVENT; b++) {
		n = sh->edge->ops->rx(sh->edge, sh->q, v, EDGE_RX_BATCH);
		if (n == -ECONNRESET) {
			/* a socket edge's guest went away */
			sh->edge_lost = true;
			return sh->edge->reconnect ? 0 : n;
		}
		if (n < 0) {
			CTR_INC(&sh->core, EDGE_RX_ERRORS);
			return n;
		}
		if (!n)
			break;
		/* a new guest took over the edge: the old one's flows go
		 * before its frames are seen */
		shard_edge_changed(sh);
		CTR_INC(&sh->core, EDGE_RX_BATCHES);
		sh->in_rx_batch = true;
		for (i = 0; i < n; i++) {
			CTR_INC(&sh->core, EDGE_RX_FRAMES);
			CTR_ADD(&sh->core, EDGE_RX_BYTES, v[i].len - hl);
			hist_record(&sh->stats.hist[HIST_EDGE_RX_BYTES],
				    v[i].len - hl);
			if (unlikely(sh->stats.pcap) && v[i].len >= hl)
				pcap_frame(sh->stats.pcap, v[i].p + hl,
					   v[i].len - hl);
			if (hl && v[i].len > 1 && v[i].p[1])
				CTR_INC(&sh->core, EDGE_RX_GSO_FRAMES);
			if (sh->imp &&
			    impair_frame(sh->imp, IMPAIR_UP, v[i].p, v[i].len,
					 sh->edge->vnet_hdr_len, sh->now_ns,
					 sh->stats.ctr))
				continue; /* dropped, or held for later */
			shard_input(sh, v[i], 0);
		}
		/* payload views die with the next rx: everything that
		 * points into them was carried out by shard_drain() */
		sh->in_rx_batch = false;
		shard_end_of_batch(sh);
		if (sh->edge->ops->rx_done)
			sh->edge->ops->rx_done(sh->edge, sh->q);
		t1 = now_mono_ns();
		hist_record(&sh->stats.hist[HIST_BATCH_NS], t1 - t0);
		t0 = t1;
		if (n < EDGE_RX_BATCH)
			break;
	}
	return 0;
}

/**
 * shard_timer() - run expired core deadlines
 * @sh:	shard
 *
 * #syscalls read
 */
static void shard_timer(struct shard *sh)
{
	uint64_t exp;

	if (read(sh->timerfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		warn_perror("timerfd read");
	sh->armed_ns = UINT64_MAX;
	for (;;) {
		uint64_t next = core_timer(&sh->core, sh->now_ns, &sh->fx);

		shard_drain(sh);
		if (next > sh->now_ns)
			break;
		shard_flush_frames(sh); /* ran out of slots: go on */
	}
}

/**
 * shard_rearm_timer() - point the timerfd at the core's earliest deadline
 * @sh:	shard
 *
 * #syscalls timerfd_settime
 */
static void shard_rearm_timer(struct shard *sh)
{
	uint64_t d = sh->core.next_deadline_ns;
	struct itimerspec its = { 0 };

	/* held for a migration: look again within a millisecond */
	if (unlikely(sh->mig_hold) && d > sh->now_ns + 1000000)
		d = sh->now_ns + 1000000;
	if (d == sh->armed_ns)
		return;
	if (d != UINT64_MAX) {
		if (d <= sh->now_ns)
			d = sh->now_ns + 1;
		its.it_value.tv_sec = (time_t)(d / 1000000000ULL);
		its.it_value.tv_nsec = (long)(d % 1000000000ULL);
	}
	if (timerfd_settime(sh->timerfd, TFD_TIMER_ABSTIME, &its, NULL))
		warn_perror("timerfd_settime");
	sh->armed_ns = d;
}

/**
 * shard_kick_ctl() - tell the control thread an answer is ready
 * @sh:		shard
 *
 * #syscalls write
 */
static void shard_kick_ctl(struct shard *sh)
{
	uint64_t one = 1;

	if (sh->grp->ctl_fd >= 0 &&
	    write(sh->grp->ctl_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		warn_perror("control thread kick");
}

/**
 * shard_snap_answer() - answer a flow snapshot request from the control
 * thread
 * @sh:		shard (any, shard 0 included)
 *
 * One acquire load per loop iteration when nothing is asked.
 */
static void shard_snap_answer(struct shard *sh)
{
	unsigned req = atomic_load_explicit(&sh->req.snap.req,
					    memory_order_acquire);

	if (likely(req == sh->req.snap.seen))
		return;
	sh->req.snap.seen = req;
	sh->req.snap.n = shard_snap_flows(
		sh, sh->req.snap.buf, sh->req.snap.cap, &sh->req.snap.total);
	/* pairs with the acquire load in shard_api_snap_done(): the
	 * records and @n, @total are visible before the answer */
	atomic_store_explicit(&sh->req.snap.done, req, memory_order_release);
	shard_kick_ctl(sh);
}

/**
 * shard_call_answer() - run what the control thread asked shard 0 to run
 * (a forward added, removed or listed: a bind or a close, a table copied),
 * or what the migration thread asked any shard to run
 * @sh:		shard
 * @call:	the slot: shard 0's @req.call, or any shard's @req.mig
 *
 * At the end of a loop iteration, where no event is half handled. One
 * acquire load per iteration when nothing is asked.
 */
static void shard_call_answer(struct shard *sh, struct shard_call *call)
{
	unsigned req = atomic_load_explicit(&call->req, memory_order_acquire);

	if (likely(req == call->seen))
		return;
	call->seen = req;
	call->fn(sh, call->arg);
	/* pairs with the acquire load in shard_api_call_done() */
	atomic_store_explicit(&call->done, req, memory_order_release);
	shard_kick_ctl(sh);
}

/**
 * shard_ep_hook() - an event of a service's type, to its handler
 * @sh:		shard
 * @d:		the event's data (EP_DATA())
 * @events:	its epoll events
 */
static void shard_ep_hook(struct shard *sh, uint64_t d, uint32_t events)
{
	const struct shard_ep_hook *h;

	ASSERT(EP_TYPE(d) < EP_TYPE_NUM);
	h = &shard_hooks.ep[EP_TYPE(d)];
	ASSERT(h->fn);
	h->fn(sh, EP_IDX(d), events);
	if (h->drain)
		shard_drain(sh);
}

/**
 * shard_timeout_ms() - how long the loop may wait for events: not at all
 * while the edge holds frames, until the edge's tick, a paused listener's
 * resumption or a held --impair frame is due; else for ever
 * @sh:		shard
 *
 * Return: milliseconds, or -1
 */
static int shard_timeout_ms(const struct shard *sh)
{
	int timeout = sh->edge->rx_pending[sh->q] ? 0 :
		      sh->edge->ops->tick	  ? EDGE_TICK_MS :
						    -1;

	if (sh->lis.listen_resume_ns != UINT64_MAX) {
		uint64_t due = sh->lis.listen_resume_ns, now = now_mono_ns();
		int ms = due <= now ? 0 : (int)((due - now + 999999) / 1000000);

		if (timeout < 0 || ms < timeout)
			timeout = ms;
	}
	if (sh->imp && impair_next_ns(sh->imp) != UINT64_MAX) {
		uint64_t due = impair_next_ns(sh->imp), now = now_mono_ns();
		int ms = due <= now ? 0 :
				      (int)MIN((due - now + 999999) / 1000000,
					       1000U);

		if (timeout < 0 || ms < timeout)
			timeout = ms;
	}
	return timeout;
}

/**
 * shard_run() - the event loop, until a handler, the group or the edge
 * ends it
 * @sh:		shard
 * @on_other:	handler for EP_SIGNAL, EP_PIDFD, EP_NSWATCH and EP_CTL
 *		events (shard 0's); returns true to stop the loop
 * @arg:	passed to @on_other
 *
 * Each wake-up first takes the flows' rate samples if a second has passed
 * (shard_rate_sweep()), then handles the events in the order epoll gave
 * them, then the frames the edge holds unannounced, then expired deadlines
 * (after the input, so that an ACK in the same wake-up comes first), held
 * --impair frames, the end of the batch, and last the control thread's
 * requests.
 *
 * #syscalls epoll_wait
 * Return: 0 when stopped by @on_other or, on shards but 0, by
 * shard_group.stop; shard 0: the -errno another shard left in
 * shard_group.fatal; -ECONNRESET if the edge's guest went away for good;
 * -errno if epoll_wait() or the edge failed
 */
int shard_run(struct shard *sh,
	      bool (*on_other)(struct shard *sh, uint64_t data, void *arg),
	      void *arg)
{
	struct epoll_event ev[64];
	bool timer_due = false;
	int ret;

	/* deadlines the core set at start-up (the first router
	 * advertisement) need the timer before any event comes */
	sh->now_ns = now_mono_ns();
	shard_rearm_timer(sh);
	for (;;) {
		int timeout = shard_timeout_ms(sh), n, i;

		n = epoll_wait(sh->epfd, ev, ARRAY_SIZE(ev), timeout);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		sh->now_ns = now_mono_ns();
		if (sh->edge->ops->tick && sh->now_ns >= sh->edge_tick_ns) {
			sh->edge_tick_ns = sh->now_ns +
					   EDGE_TICK_MS * 1000000ULL;
			if (sh->edge->ops->tick(sh->edge) == -ECONNRESET)
				sh->edge_lost = true;
		}
		if (sh->now_ns >= sh->lis.listen_resume_ns)
			shard_listen_resume(sh);
		/* the flows' counts before this batch moves them: the base
		 * of their rates (ctl flows) */
		if (sh->now_ns >= sh->rates.due_ns)
			shard_rate_sweep(sh);
		for (i = 0; i < n; i++) {
			uint64_t d = ev[i].data.u64;

			switch (EP_TYPE(d)) {
			case EP_EDGE:
				ret = shard_edge_rx(sh);
				if (ret)
					return ret;
				break;
			case EP_TIMER:
				timer_due = true; /* after this batch's input */
				break;
			case EP_TCP:
				sock_tcp_event(sh, EP_IDX(d), ev[i].events);
				shard_drain(sh);
				break;
			case EP_UDP:
				sock_udp_event(sh, EP_IDX(d), ev[i].events);
				shard_drain(sh);
				break;
			case EP_UDP_LISTEN:
				sock_udp_listen_event(sh, EP_IDX(d));
				shard_drain(sh);
				break;
			case EP_MBOX:
				mbox_rx(sh);
				break;
			case EP_EDGE_LISTEN:
				ret = shard_edge_accept(sh);
				if (ret)
					return ret;
				break;
			case EP_EDGE_CTL:
				shard_edge_ctl(sh);
				break;
			case EP_SIGNAL:
			case EP_PIDFD:
			case EP_NSWATCH:
			case EP_CTL:
				if (on_other(sh, d, arg))
					return 0;
				break;
			default:
				shard_ep_hook(sh, d, ev[i].events);
			}
		}
		/* frames the edge holds that poll does not announce */
		if (sh->edge->rx_pending[sh->q] && !sh->edge_lost) {
			ret = shard_edge_rx(sh);
			if (ret)
				return ret;
		}
		/* deadlines last: an ACK that came in the same wake-up as
		 * its flow's timer ends the wait before a resend is made */
		if (timer_due) {
			shard_timer(sh);
			timer_due = false;
		}
		if (sh->imp)
			shard_impair_release(sh);
		shard_end_of_batch(sh);
		/* a guest that left or came moved the edge's generation on */
		shard_edge_changed(sh);
		if (sh->edge_lost && !sh->edge->reconnect)
			return -ECONNRESET;
		/* the flows went with the VM: done once its frontend left */
		if (unlikely(sh->grp->mig) && !sh->id &&
		    shard_hooks.mig_handed_over(sh->grp) &&
		    sh->edge->ops->fd(sh->edge, EDGE_FD_CTL, 0) < 0)
			return -ECONNRESET;
		sh->edge_lost = false;
		shard_rearm_timer(sh);
		if (unlikely(sh->stats.pcap))
			pcap_flush(sh->stats.pcap);
		shard_snap_answer(sh);
		if (!sh->id)
			shard_call_answer(sh, &sh->req.call);
		if (unlikely(sh->grp->mig)) {
			shard_call_answer(sh, &sh->req.mig);
			if (sh->mig_hold || sh->mig_frames)
				shard_hooks.mig_poll(sh);
		}
		if (sh->id && atomic_load(&sh->grp->stop))
			return 0;
		ret = atomic_load(&sh->grp->fatal);
		if (!sh->id && ret)
			return ret;
	}
}
