/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shard.c - the runtime's primitives every service uses: the epoll set,
 * listeners out of descriptors, the effect pump (the core's frames to the
 * edge, its socket intents to sock_tcp.c and sock_udp.c), the input of a
 * frame, a snapshot of the flows, and the hooks the services lend
 * (loop.c is the shard's set-up, its loop and its dispatch) */

#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/udp.h"
#include "os/sockaddr.h"
#include "os/sys.h"
#include "shard/impair.h"
#include "shard/mbox.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "shard/sock_udp.h"
#include "util/log.h"

/* frame slots free at least, else the effect pump flushes first */
#define FX_LOW_WATER 8

struct shard_hooks shard_hooks;

/**
 * shard_ep_add() - add an fd to the shard's epoll set
 * @sh:		shard
 * @fd:		file descriptor
 * @events:	epoll events
 * @data:	EP_DATA() value
 *
 * #syscalls epoll_ctl
 * Return: 0, or -1 with errno set (logged)
 */
int shard_ep_add(struct shard *sh, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	if (epoll_ctl(sh->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err_perror("epoll_ctl add fd %d", fd);
		return -1;
	}
	return 0;
}

/**
 * shard_listen_arm() - take a listener's connections again
 * @sh:		shard
 * @fd:		listening socket, in the epoll set
 * @data:	its EP_DATA() value
 *
 * #syscalls epoll_ctl
 */
void shard_listen_arm(struct shard *sh, int fd, uint64_t data)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = data };

	if (epoll_ctl(sh->epfd, EPOLL_CTL_MOD, fd, &ev))
		warn_perror_rl("cannot listen again on fd %d", fd);
}

/**
 * shard_accept_nofd() - a listener failed to accept: refuse who waits
 * (out of fds), and take no events from it for LISTEN_PAUSE_MS
 * @sh:		shard (0: the listeners live there)
 * @fd:		listening socket, in the epoll set
 * @data:	its EP_DATA() value
 * @err:	the errno accept() gave
 * @reset:	refuse with a reset (see fd_spare_refuse())
 * @max:	refuse at most this many clients
 *
 * A level-triggered listener whose accept() fails stays readable: without
 * the pause, the loop would spin on it at full CPU. The caller marks the
 * listener paused; shard_listen_resume() arms it again. Refusals are
 * counted in SHARD_ACCEPT_NOFD, pauses in SHARD_LISTEN_PAUSES.
 *
 * #syscalls epoll_ctl
 * Return: clients refused
 */
unsigned shard_accept_nofd(struct shard *sh, int fd, uint64_t data, int err,
			   bool reset, unsigned max)
{
	struct epoll_event ev = { .events = 0, .data.u64 = data };
	unsigned n = 0;

	if (err == EMFILE || err == ENFILE)
		while (n < max && fd_spare_refuse(&sh->lis.reserve_fd,
						  sh->timerfd, fd, reset) > 0)
			n++;
	CTR_ADD(&sh->core, SHARD_ACCEPT_NOFD, n);
	CTR_INC(&sh->core, SHARD_LISTEN_PAUSES);
	if (epoll_ctl(sh->epfd, EPOLL_CTL_MOD, fd, &ev))
		warn_perror_rl("cannot pause the listener on fd %d", fd);
	if (sh->lis.listen_resume_ns == UINT64_MAX)
		sh->lis.listen_resume_ns = sh->now_ns +
					   LISTEN_PAUSE_MS * 1000000ULL;
	return n;
}

/**
 * shard_tx_result() - count (and capture) what became of one frame written
 * to the edge
 * @sh:		shard
 * @ret:	what the edge's tx (or tx_placed) said
 * @p:		the frame (virtio-net header first)
 * @len:	its length (virtio-net header included)
 */
static void shard_tx_result(struct shard *sh, int ret, const uint8_t *p,
			    size_t len)
{
	size_t hl = sh->edge->vnet_hdr_len;

	if (ret == -ECONNRESET) {
		sh->edge_lost = true; /* the end, without reconnect */
		CTR_INC(&sh->core, EDGE_TX_DOWN);
		return;
	}
	if (ret == -ENOBUFS)
		return; /* no room in the guest: the edge counted it */
	if (ret == -EIO) {
		/* the guest's interface is down (not up yet, as before a
		 * DHCP client starts): nobody to hear it */
		CTR_INC(&sh->core, EDGE_TX_DOWN);
		return;
	}
	if (ret) {
		CTR_INC(&sh->core, EDGE_TX_ERRORS);
		trace("edge write: %s", strerror(-ret));
		return;
	}
	CTR_INC(&sh->core, EDGE_TX_FRAMES);
	CTR_ADD(&sh->core, EDGE_TX_BYTES, len - hl);
	hist_record(&sh->stats.hist[HIST_EDGE_TX_BYTES], len - hl);
	if (unlikely(sh->stats.pcap))
		pcap_frame(sh->stats.pcap, p + hl, len - hl);
}

/**
 * shard_flush_frames() - write every queued frame to the edge
 * @sh:	shard
 */
void shard_flush_frames(struct shard *sh)
{
	struct fx *fx = &sh->fx;
	unsigned i, hl = sh->edge->vnet_hdr_len;

	for (i = 0; i < fx->nframes; i++) {
		struct iovec iov = {
			.iov_base = fx->slots + (size_t)i * fx->slot_size,
			.iov_len = fx->frame_len[i],
		};
		int ret;

		if (sh->sock.placed[i]) {
			sh->sock.placed[i] = false;
			ret = sh->edge->ops->tx_placed(
				sh->edge, sh->q, i, iov.iov_base, iov.iov_len);
		} else if (sh->imp &&
			   impair_frame(sh->imp, IMPAIR_DOWN, iov.iov_base,
					iov.iov_len, hl, sh->now_ns,
					sh->stats.ctr)) {
			continue; /* dropped, or held for later */
		} else {
			ret = sh->edge->ops->tx(sh->edge, sh->q, &iov, 1);
		}
		shard_tx_result(sh, ret, iov.iov_base, iov.iov_len);
	}
	/* gathered frames point into the slots: out before they are reused */
	if (fx->nframes && sh->edge->ops->flush &&
	    sh->edge->ops->flush(sh->edge, sh->q) == -ECONNRESET)
		sh->edge_lost = true;
	fx->nframes = 0;
	sh->sock.nplaced = 0;
}

/**
 * shard_impair_release() - frames the impairment stage held whose time
 * has come: to the core (from the guest) or to the edge (to the guest)
 * @sh:	shard
 */
void shard_impair_release(struct shard *sh)
{
	const uint8_t *p;
	size_t len;
	int dir;

	while ((p = impair_due(sh->imp, sh->now_ns, &dir, &len))) {
		if (dir == IMPAIR_UP) {
			/* the copy is freed by the next impair_due():
			 * shard_input() carries out what points into it */
			shard_input(sh, (struct pkt_view){ .p = p, .len = len },
				    0);
			continue;
		}
		shard_tx_result(sh,
				sh->edge->ops->tx(
					sh->edge, sh->q,
					&(struct iovec){ .iov_base = (void *)p,
							 .iov_len = len },
					1),
				p, len);
		/* an edge may gather: out before the copy is freed */
		if (sh->edge->ops->flush &&
		    sh->edge->ops->flush(sh->edge, sh->q) == -ECONNRESET)
			sh->edge_lost = true;
	}
}

/**
 * shard_drain() - carry out the intents the core queued
 * @sh:	shard
 *
 * Intents may queue more intents (results are reported back to the core,
 * and a write may let held segments follow it): the list is taken in
 * rounds until it is empty, so that a chain of any length fits.
 */
void shard_drain(struct shard *sh)
{
	struct fx_intent round[FX_MAX_INTENTS];
	unsigned i, n;

	while ((n = sh->fx.nintents)) {
		memcpy(round, sh->fx.intents, n * sizeof(round[0]));
		sh->fx.nintents = 0;
		for (i = 0; i < n;) {
			/* payload comes only with its owner (enum
			 * fx_data_owner): RXBATCH loans die with the batch */
			ASSERT((round[i].data_owner == FX_DATA_NONE) ==
			       !round[i].data);
			if (round[i].type == FX_DGRAM_SEND) {
				/* a run of one flow's datagrams: one call */
				i += sock_udp_send_batch(sh, &round[i], n - i);
			} else {
				if (round[i].type >= FX_DGRAM_OPEN)
					sock_udp_intent(sh, &round[i]);
				else
					sock_tcp_intent(sh, &round[i]);
				i++;
			}
			if (sh->fx.nframes + FX_LOW_WATER >= sh->fx.nslots)
				shard_flush_frames(sh);
		}
	}
}

/**
 * shard_room() - make sure a few frame slots are free
 * @sh:	shard
 */
static void shard_room(struct shard *sh)
{
	if (sh->fx.nframes + FX_LOW_WATER >= sh->fx.nslots)
		shard_flush_frames(sh);
}

/**
 * shard_end_of_batch() - peek for flows that may send, flush ACKs and frames
 * @sh:	shard
 *
 * Carries out the intents that queued, writes every frame to the edge and
 * kicks the shards we put mailbox messages for.
 */
void shard_end_of_batch(struct shard *sh)
{
	sock_tcp_tx_pending(sh);
	for (;;) {
		core_flush(&sh->core, sh->now_ns, &sh->fx);
		if (!sh->core.nacks)
			break;
		shard_flush_frames(sh);
	}
	shard_drain(sh);
	shard_flush_frames(sh);
	mbox_kick(sh);
}

/**
 * fx_dgram_sends_only() - are the queued intents all datagrams to send,
 * with room for a frame's worth more
 * @fx:	effects batch
 *
 * Return: true if so
 */
static bool fx_dgram_sends_only(const struct fx *fx)
{
	unsigned i;

	if (fx->nintents + 4 > FX_MAX_INTENTS)
		return false;
	for (i = 0; i < fx->nintents; i++)
		if (fx->intents[i].type != FX_DGRAM_SEND)
			return false;
	return true;
}

/**
 * shard_input() - hand one guest frame to the core, or to its owner shard
 * @sh:		shard
 * @v:		frame (vnet header included), valid until this returns
 * @hop:	shards that passed it on before us
 *
 * A flow in its handshake whose frame landed here is moved here with it
 * when the core asks (core.give: mbox_put_adopt()); with no room in the
 * mailbox the core takes the frame itself. A frame for a flow elsewhere
 * goes on to the next shard (core.pass_to).
 */
void shard_input(struct shard *sh, struct pkt_view v, uint8_t hop)
{
	shard_room(sh);
	sh->core.in_hop = hop;
	core_input(&sh->core, v, sh->now_ns, &sh->fx);
	if (sh->core.give &&
	    !mbox_put_adopt(sh, (unsigned)sh->core.give_to, sh->core.give, v)) {
		/* no room to move it: it stays, and the frame is ours */
		sh->core.in_hop = 0;
		core_input(&sh->core, v, sh->now_ns, &sh->fx);
	}
	/* the guest's datagrams wait for the batch's end, where each flow's
	 * run goes in one sendmmsg(); anything else goes now, in order */
	if (!sh->in_rx_batch || !fx_dgram_sends_only(&sh->fx))
		shard_drain(sh);
	if (sh->core.pass_to >= 0)
		mbox_put_frame(sh, (unsigned)sh->core.pass_to, v,
			       (uint8_t)(hop + 1));
}

/**
 * shard_rate_sweep() - the flows' byte counts now, the base of their rates
 * over the next second (struct shard_rates); the services' too
 * @sh:		shard
 *
 * Called by the loop when it wakes and a second has passed since the last
 * sweep: a shard that sleeps moves no bytes, so a late sweep loses
 * nothing. It touches each flow slot up to the high-water marks once.
 *
 * Context: the shard's own thread
 */
void shard_rate_sweep(struct shard *sh)
{
	struct shard_rates *rt = &sh->rates;
	uint32_t i;

	flow_clock_tick(&rt->clk, sh->now_ns);
	rt->due_ns = sh->now_ns + 1000000000ULL;
	for (i = 0; i < sh->core.hiwat; i++) {
		const struct tcp_flow *f = tcp_flow_get(&sh->core, i);

		if (f)
			flow_rate_take(&rt->tcp[i], &rt->clk, f->opened_ns,
				       f->bytes_from_guest, f->bytes_to_guest);
	}
	for (i = 0; i < sh->core.uhiwat; i++) {
		const struct udp_flow *u = udp_flow_get(&sh->core, i);

		if (u)
			flow_rate_take(&rt->udp[i], &rt->clk, u->opened_ns,
				       u->bytes_from_guest, u->bytes_to_guest);
	}
	for (i = 0; i < SHARD_SNAP_MAX; i++)
		if (shard_hooks.snap[i].sweep)
			shard_hooks.snap[i].sweep(sh);
}

/**
 * shard_snap_host() - a host socket's own tuple into a flow record
 * @fd:		socket
 * @r:		record: @r->host and @r->has_host out
 * @peer:	also its peer (getpeername()); else the caller sets it
 *
 * #syscalls getsockname getpeername
 * Return: true if set (a socket of no IP family, or an error: not set)
 */
bool shard_snap_host(int fd, struct flow_rec *r, bool peer)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) ||
	    !sockaddr_to(&ss, r->host.local_addr, &r->host.local_port))
		return false;
	sl = sizeof(ss);
	if (peer && (getpeername(fd, (struct sockaddr *)&ss, &sl) ||
		     !sockaddr_to(&ss, r->host.peer_addr, &r->host.peer_port)))
		memset(r->host.peer_addr, 0, sizeof(r->host.peer_addr));
	r->has_host = true;
	return true;
}

/**
 * shard_snap_tcpi() - a host TCP socket's figures into a flow record
 * @fd:		socket
 * @r:		record: @r->tcpi and @r->has_tcpi out
 *
 * #syscalls getsockopt ioctl
 */
static void shard_snap_tcpi(int fd, struct flow_rec *r)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);
	int sndbuf = 0, outq = 0;

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl))
		return;
	sl = sizeof(sndbuf);
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) ||
	    ioctl(fd, SIOCOUTQ, &outq))
		sndbuf = outq = 0;
	r->tcpi.rtt_us = ti.tcpi_rtt;
	r->tcpi.rttvar_us = ti.tcpi_rttvar;
	r->tcpi.cwnd = ti.tcpi_snd_cwnd;
	r->tcpi.retrans = ti.tcpi_total_retrans;
	r->tcpi.unacked = ti.tcpi_unacked;
	r->tcpi.send_queue = outq > 0 ? (uint32_t)outq : 0;
	r->tcpi.sndbuf = sndbuf > 0 ? (uint32_t)sndbuf : 0;
	r->has_tcpi = true;
}

/* a flow's TCP_INFO is read again when it moved bytes, else after this
 * long; per snapshot, at most SNAP_NEW_READS flows never read and
 * SNAP_IDLE_READS idle ones are read (the others keep what they had, or
 * show null until a later snapshot), so that a snapshot's cost stays
 * bounded whatever the flows; the idle ones in turns (shard_rates.cursor) */
#define SNAP_TCPI_KEEP_NS (5 * 1000000000ULL)
#define SNAP_NEW_READS 2000U
#define SNAP_IDLE_READS 1000U

/**
 * struct snap_reads - the host socket reads a snapshot may still make
 * @fresh:	flows never read
 * @idle:	idle flows read long ago
 * @cursor:	TCP slot the idle reads start at (in turns)
 * @next:	where the next snapshot's idle reads start
 */
struct snap_reads {
	unsigned fresh;
	unsigned idle;
	uint32_t cursor;
	uint32_t next;
};

/**
 * shard_snap_hostinfo() - a connected TCP flow's host socket figures and
 * tuple into its record, read anew only when needed
 * @hi:		what the last snapshot read of this flow slot
 * @f:		flow (its socket connected)
 * @idx:	its slot
 * @now:	monotonic time
 * @rd:		in/out: the reads this snapshot may still make
 * @r:		record: @r->host, @r->tcpi and their flags out
 *
 * Each read costs system calls (about 3 us each on a small machine, the
 * shard's data path waiting): the tuple is read once per flow, TCP_INFO,
 * SIOCOUTQ and SO_SNDBUF again when the flow moved bytes since the last
 * read; a flow never read, or idle and read SNAP_TCPI_KEEP_NS ago, only
 * within @rd's budgets.
 */
static void shard_snap_hostinfo(struct shard_hostinfo *hi,
				const struct tcp_flow *f, uint32_t idx,
				uint64_t now, struct snap_reads *rd,
				struct flow_rec *r)
{
	bool read = false;

	if (hi->tag != f->opened_ns) {
		memset(hi, 0, sizeof(*hi));
		hi->tag = f->opened_ns;
	}
	if (!hi->has_tcpi) {
		read = rd->fresh && rd->fresh--;
	} else if (hi->from != f->bytes_from_guest ||
		   hi->to != f->bytes_to_guest) {
		read = true;
	} else if (now - hi->read_ns > SNAP_TCPI_KEEP_NS && idx >= rd->cursor) {
		read = rd->idle && rd->idle--;
		if (!read && !rd->next)
			rd->next = idx; /* the next snapshot goes on here */
	}
	if (read) {
		if (!hi->has_host && shard_snap_host(f->sock, r, true)) {
			hi->host = r->host;
			hi->has_host = true;
		}
		shard_snap_tcpi(f->sock, r);
		hi->tcpi = r->tcpi;
		hi->has_tcpi = r->has_tcpi;
		hi->read_ns = now;
		hi->from = f->bytes_from_guest;
		hi->to = f->bytes_to_guest;
	}
	r->host = hi->host;
	r->has_host = hi->has_host;
	r->tcpi = hi->tcpi;
	r->has_tcpi = hi->has_tcpi;
}

/**
 * shard_snap_tcp() - one TCP flow of the core as a record
 * @sh:		shard
 * @f:		flow
 * @now:	monotonic time
 * @rd:		in/out: see shard_snap_hostinfo()
 * @r:		record out
 */
static void shard_snap_tcp(struct shard *sh, const struct tcp_flow *f,
			   uint64_t now, struct snap_reads *rd,
			   struct flow_rec *r)
{
	uint32_t idx = tcp_flow_idx(&sh->core, f);

	memset(r, 0, sizeof(*r));
	memcpy(r->guest_addr, f->guest_addr, 16);
	memcpy(r->remote_addr, f->remote_addr, 16);
	r->guest_port = f->guest_port;
	r->remote_port = f->remote_port;
	r->proto = IPPROTO_TCP;
	r->kind = FLOW_KIND_TCP;
	r->state = f->state;
	r->shard = (uint8_t)sh->id;
	r->from_guest = r->bytes_from_guest = f->bytes_from_guest;
	r->to_guest = r->bytes_to_guest = f->bytes_to_guest;
	r->segs_from_guest = f->segs_from_guest;
	r->segs_to_guest = f->segs_to_guest;
	r->age_ns = now > f->opened_ns ? now - f->opened_ns : 0;
	r->guest_rtt_us = f->srtt_us;
	r->resends = f->resends;
	r->in_flight_to_guest = f->snd_max - f->snd_una;
	r->guest_wnd = f->guest_wnd;
	r->guest_mss = f->mss;
	r->edge_stalled = sh->sock.stalled &&
			  (sh->sock.hflags[idx] & HF_TX_PENDING);
	flow_rate_get(&sh->rates.tcp[idx], &sh->rates.clk, f->opened_ns, now,
		      r);
	if (f->sock >= 0 && !(sh->sock.hflags[idx] & HF_CONNECTING))
		shard_snap_hostinfo(&sh->rates.hi[idx], f, idx, now, rd, r);
	r->limit = flow_rec_limit(r);
}

/**
 * shard_snap_udp() - one datagram flow of the core as a record
 * @sh:		shard
 * @u:		flow
 * @now:	monotonic time
 * @rd:		in/out: see shard_snap_hostinfo() (the tuple, read once)
 * @r:		record out
 */
static void shard_snap_udp(struct shard *sh, const struct udp_flow *u,
			   uint64_t now, struct snap_reads *rd,
			   struct flow_rec *r)
{
	uint32_t idx = udp_flow_idx(&sh->core, u);
	struct shard_hostinfo *hu = &sh->rates.hu[idx];

	memset(r, 0, sizeof(*r));
	memcpy(r->guest_addr, u->guest_addr, 16);
	memcpy(r->remote_addr, u->remote_addr, 16);
	r->guest_port = u->guest_port;
	r->remote_port = u->remote_port;
	r->proto = u->kind != UDPK_ICMP ? IPPROTO_UDP :
		   udp_flow_v6(u)	? IPPROTO_ICMPV6 :
					  IPPROTO_ICMP;
	r->kind = u->kind != UDPK_ICMP ? FLOW_KIND_UDP : FLOW_KIND_PING;
	r->state = u->kind;
	r->shard = (uint8_t)sh->id;
	r->from_guest = r->segs_from_guest = u->from_guest;
	r->to_guest = r->segs_to_guest = u->to_guest;
	r->bytes_from_guest = u->bytes_from_guest;
	r->bytes_to_guest = u->bytes_to_guest;
	r->idle_ns = now > u->last_ns ? now - u->last_ns : 0;
	r->age_ns = u->opened_ns && now > u->opened_ns ? now - u->opened_ns : 0;
	flow_rate_get(&sh->rates.udp[idx], &sh->rates.clk, u->opened_ns, now,
		      r);
	if (hu->tag != u->opened_ns) {
		memset(hu, 0, sizeof(*hu));
		hu->tag = u->opened_ns;
	}
	/* a published port's flow shares the listener: its peer is the
	 * client the datagrams came from (no system call: read each time) */
	if (u->kind == UDPK_PUB) {
		if (!hu->has_host && rd->fresh && rd->fresh-- &&
		    shard_snap_host(u->sock, r, false)) {
			hu->host = r->host;
			hu->has_host = true;
		}
		r->host = hu->host;
		r->has_host = hu->has_host;
		if (r->has_host &&
		    !sockaddr_to(&sh->sock.upeer[idx], r->host.peer_addr,
				 &r->host.peer_port))
			memset(r->host.peer_addr, 0, 16);
		return;
	}
	if (!hu->has_host && rd->fresh && rd->fresh-- &&
	    shard_snap_host(u->sock, r, true)) {
		hu->host = r->host;
		hu->has_host = true;
	}
	r->host = hu->host;
	r->has_host = hu->has_host;
}

/**
 * shard_snap_flows() - copy the shard's flow table for the control API,
 * then the services' connections (shard_hooks.snap: spliced, -U, DNS)
 * @sh:		shard
 * @buf:	records out
 * @cap:	entries @buf holds
 * @total:	flows there are (may exceed @cap)
 *
 * A TCP flow's host socket costs five system calls the first time
 * (TCP_INFO, SO_SNDBUF, SIOCOUTQ and the tuple's two), then three when it
 * moved bytes, none when idle but every 5 s; new and idle ones within
 * budgets per snapshot (shard_snap_hostinfo()). A datagram flow's tuple
 * costs two, once (shard_snap_udp()), within the new ones' budget.
 *
 * Context: the shard's own thread
 * Return: records written
 */
uint32_t shard_snap_flows(struct shard *sh, struct flow_rec *buf, uint32_t cap,
			  uint32_t *total)
{
	struct snap_reads rd = { SNAP_NEW_READS, SNAP_IDLE_READS,
				 sh->rates.cursor, 0 };
	uint64_t now = now_mono_ns();
	uint32_t i, n = 0, t = 0;

	for (i = 0; i < sh->core.hiwat; i++) {
		const struct tcp_flow *f = tcp_flow_get(&sh->core, i);

		if (!f)
			continue;
		if (t++ >= cap)
			continue;
		shard_snap_tcp(sh, f, now, &rd, &buf[n++]);
	}
	for (i = 0; i < sh->core.uhiwat; i++) {
		const struct udp_flow *u = udp_flow_get(&sh->core, i);

		if (!u)
			continue;
		if (t++ >= cap)
			continue;
		shard_snap_udp(sh, u, now, &rd, &buf[n++]);
	}
	sh->rates.cursor = rd.next; /* 0 when every due one was read */
	for (i = 0; i < SHARD_SNAP_MAX; i++) {
		const struct shard_snap_hook *k = &shard_hooks.snap[i];
		uint32_t more = 0;

		if (!k->fill)
			continue;
		/* n is MIN(t, cap): the rest of @buf is the service's */
		n += k->fill(sh, buf + n, cap - n, &more);
		t += more;
	}
	*total = t;
	return n;
}
