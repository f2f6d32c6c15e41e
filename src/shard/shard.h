/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shard.h - one event loop thread: its core, edge queue, sockets and effects */
#ifndef SLIPWAY_SHARD_H
#define SLIPWAY_SHARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "core/core.h"
#include "core/tcp.h"
#include "edge/edge.h"
#include "cli/conf.h"
#include "shard/listen.h"
#include "shard/mbox.h"
#include "shard/selfport.h"
#include "shard/shard_api.h"
#include "obs/hist.h"
#include "obs/pcap.h"

/* epoll data: type in the high 32 bits, index in the low ones */
enum ep_type {
	EP_EDGE, /* the edge queue this shard serves (EDGE_FD_QUEUE) */
	EP_TIMER,
	EP_SIGNAL,
	EP_LISTEN,
	EP_TCP,
	EP_PIDFD,
	EP_NSWATCH,
	EP_UDP,
	EP_UDP_LISTEN,
	EP_DNS,
	EP_MBOX,
	EP_SPLICE,	/* splice.c: spliced sockets, namespace helper */
	EP_EDGE_LISTEN, /* the edge's listening socket (EDGE_FD_LISTEN) */
	EP_EDGE_CTL,	/* the edge's control connection (EDGE_FD_CTL) */
	EP_CTL,		/* main thread's control fd: the slirp4netns exit
			 * fd (the API socket is the control thread's) */
	EP_FWD_AUTO,	/* fwdauto.c: the rescan timer */
	EP_UDPNS,	/* udpns.c: -U sockets and the expiry timer */
	EP_TYPE_NUM
};

#define EP_DATA(type, idx) (((uint64_t)(type) << 32) | (uint32_t)(idx))
#define EP_TYPE(d) ((enum ep_type)((d) >> 32))
#define EP_IDX(d) ((uint32_t)(d))

/* names of the epoll types, for logs and debugging (loop.c) */
extern const char *const ep_type_str[EP_TYPE_NUM];

/**
 * struct flow_snap - a request for a flow table snapshot (the control
 * thread asks through shard_api_snap_ask(), the shard answers in
 * shard_snap_answer(); every shard, shard 0 included)
 * @req:	request number: the control thread stores it (release) after
 *		@buf and @cap
 * @done:	the shard stores @req here (release) after filling @buf and @n
 * @seen:	the last request the shard answered (the shard's own)
 * @buf:	where the records go (the control thread's memory, @cap
 *		entries)
 * @cap:	entries @buf holds
 * @n:		entries written
 * @total:	flows the shard has (more than @n if @buf was too small)
 *
 * The acquire load of @req on the shard pairs with the control thread's
 * release store: the shard sees @buf and @cap. The acquire load of @done
 * in shard_api_snap_done() pairs with the shard's release store: the
 * control thread sees the records and @n, @total.
 * The shard looks at @req once per loop iteration (the control thread
 * kicks its mailbox eventfd to wake it); it answers by kicking the control
 * thread's eventfd (shard_group.ctl_fd).
 */
struct flow_snap {
	_Atomic unsigned req;
	_Atomic unsigned done;
	unsigned seen;
	struct flow_rec *buf;
	uint32_t cap;
	uint32_t n;
	uint32_t total;
};

struct shard;

/**
 * struct shard_call - a function the control thread has shard 0 run
 * (shard_api_call_ask(); the forward API of fwd.h is shard 0's: its
 * listener tables and epoll set)
 * @req:	request number: the control thread stores it (release) after
 *		@fn and @arg
 * @done:	shard 0 stores @req here (release) after @fn returned
 * @seen:	the last request shard 0 ran (shard 0's own)
 * @fn:		what to run, on shard 0's thread, at the end of a loop
 *		iteration; it reads its input from @arg and leaves its result
 *		there (plain data: no JSON, no client I/O)
 * @arg:	the control thread's memory, untouched by it until @done
 *
 * Same pairing as struct flow_snap: shard 0's acquire load of @req sees
 * @fn and @arg; the control thread's acquire load of @done sees what @fn
 * wrote. One call at a time; shard 0 answers by kicking
 * shard_group.ctl_fd.
 */
struct shard_call {
	_Atomic unsigned req;
	_Atomic unsigned done;
	unsigned seen;
	void (*fn)(struct shard *sh, void *arg);
	void *arg;
};

/**
 * struct shard_group - the shards serving one edge
 * @n:		shards
 * @sh:		each shard
 * @stop:	set by shard 0 to end the other shards' loops
 * @fatal:	set by a shard whose loop failed (-errno): shard 0 stops
 * @rr:		round-robin counter for accepted connections (shard 0 only)
 * @key:	the cores' hash key, the same for all: initial sequence
 *		numbers must grow per tuple whichever shard opens its next
 *		flow (a guest in TIME_WAIT takes a new SYN only above the
 *		old flow's sequence numbers; a client port used again on
 *		loopback came back 400 ms late with a key per shard)
 * @ctl_fd:	the control thread's eventfd (ctl.c), kicked by a shard
 *		that answered a struct flow_snap or struct shard_call; -1
 *		without a control thread
 * @self:	slipway's own listening ports (selfport.c): guest flows
 *		to them are refused
 * @mig:	live migration (migrate.c), or NULL without --migrate-to
 *		and --migrate-from
 */
struct shard_group {
	unsigned n;
	struct shard *sh[SHARDS_MAX];
	_Atomic int stop;
	_Atomic int fatal;
	unsigned rr;
	uint8_t key[16];
	int ctl_fd;
	struct selfport self;
	struct mig *mig;
};

/**
 * struct shard_sock - the host sockets' side of the data path (sock_tcp.c,
 * sock_udp.c): per-flow host state, host-to-guest TCP
 * @hflags:	per-flow host bits (HF_*, sock_tcp.h), max_flows entries
 * @txq:	flows to peek for (host to guest), max_flows entries
 * @ntxq:	entries in @txq
 * @stalled:	the edge had no room: flows wait in @txq
 * @peek_off:	the kernel supports TCP SO_PEEK_OFF and we use it
 * @can_place:	the edge places TCP payload in the guest's buffers and the
 *		guest takes partial checksums (the payload is never read)
 * @nplaced:	slots with @placed set
 * @placed:	per frame slot: its payload is in the edge's reservation
 * @discard:	fallback without SO_PEEK_OFF: peeked bytes land here
 * @discard_len: size of @discard
 * @udrops:	per datagram flow: its host socket's receive-queue drops as
 *		last seen (SO_RXQ_OVFL), for UDP_HOST_RX_DROPS
 * @upeer:	per datagram flow: the client address of a published-port
 *		flow (replies go there with sendto())
 */
struct shard_sock {
	uint8_t *hflags;
	uint32_t *txq;
	uint32_t ntxq;
	bool stalled;
	bool peek_off;
	bool can_place;
	unsigned nplaced;
	bool placed[EDGE_PLACE_SLOTS];
	uint8_t *discard;
	size_t discard_len;
	struct sockaddr_storage *upeer;
	uint32_t *udrops;
};

/**
 * struct shard_listen - listening sockets: published ports (fwd.c) and the
 * way out of fds (loop.c); shard 0's, unused elsewhere
 * @listeners:	published TCP ports: slots, free ones with fd -1;
 *		EP_LISTEN events carry the slot index
 * @nlisteners:	slots in use or freed in @listeners (its high-water mark)
 * @listeners_cap: slots allocated in @listeners
 * @ulisteners:	published UDP ports, as @listeners
 * @nulisteners: slots in use or freed in @ulisteners
 * @ulisteners_cap: slots allocated in @ulisteners
 * @fwd_next_id: the id the next published port gets
 * @reserve_fd:	spare fd, given up to refuse a client when out of fds
 *		(fd_spare_refuse()); -1 while it could not be made again
 * @listen_resume_ns: when the paused listeners are armed again
 *		(UINT64_MAX: none is paused)
 * @edge_listen_paused: the edge's listener is paused (out of fds)
 * @pool:	listening sockets a migration source handed over, which
 *		fwd_open() takes instead of binding anew (-1: taken); NULL
 * @npool:	entries in @pool
 */
struct shard_listen {
	struct listener *listeners;
	unsigned nlisteners;
	unsigned listeners_cap;
	struct listener *ulisteners;
	unsigned nulisteners;
	unsigned ulisteners_cap;
	unsigned fwd_next_id;
	int reserve_fd;
	uint64_t listen_resume_ns;
	bool edge_listen_paused;
	int *pool;
	unsigned npool;
};

/**
 * struct shard_svc - the optional services a shard runs beside its flows
 * @dns:	DNS forwarder state (dns_fwd.c), or NULL
 * @splice:	spliced loopback connections (splice.c), NULL when off and
 *		on every shard but 0
 * @fwdauto:	"auto" port following (fwdauto.c), shard 0, or NULL
 * @udpns:	-U: guest loopback UDP ports forwarded to the host (udpns.c),
 *		shard 0, or NULL
 */
struct shard_svc {
	struct dns_fwd *dns;
	struct splice *splice;
	struct fwdauto *fwdauto;
	struct udpns *udpns;
};

/**
 * struct shard_peers - the mailboxes between the shards of a group (mbox.c)
 * @mbox:	messages from each other shard, by sender
 * @mbox_fd:	eventfd the senders (and the control thread) kick
 * @kick:	bit mask of shards we put messages for since the last kick
 */
struct shard_peers {
	struct mbox_ring mbox[SHARDS_MAX];
	int mbox_fd;
	uint32_t kick;
};

/**
 * struct shard_req - the control thread's request slots (shard_api.c asks,
 * loop.c answers at the end of a loop iteration)
 * @snap:	flow table snapshot requests (every shard)
 * @call:	functions the control thread has shard 0 run (forwards)
 * @mig:	functions the migration thread has any shard run
 *		(migrate.c: flows out and in)
 */
struct shard_req {
	struct flow_snap snap;
	struct shard_call call;
	struct shard_call mig;
};

/**
 * struct shard_stats - what the shard counts and records; single writer:
 * this shard (the control thread writes shard 0's CTL_* and METRICS_*
 * counters), read by any thread with relaxed loads
 * @ctr:	counters (the core counts through core.ctr, pointing here)
 * @pcap:	--pcap: this shard's capture buffer, or NULL
 * @hist:	histograms (frame sizes each way, batch latency)
 */
struct shard_stats {
	uint64_t ctr[CTR_NUM];
	struct pcap_buf *pcap;
	struct hist hist[HIST_ID_NUM];
};

/**
 * struct shard_hostinfo - what a snapshot last read of a flow's host
 * socket, kept so that the next one need not ask again: the tuple never
 * changes, and an idle flow's figures hardly (shard_snap_tcp())
 * @tag:	the flow it belongs to (its opening time)
 * @read_ns:	when @tcpi was read
 * @from:	the flow's bytes from the guest then
 * @to:		its bytes to the guest then
 * @host:	the tuple, with @has_host
 * @tcpi:	the figures, with @has_tcpi
 * @has_host:	@host is set
 * @has_tcpi:	@tcpi is set
 */
struct shard_hostinfo {
	uint64_t tag;
	uint64_t read_ns;
	uint64_t from;
	uint64_t to;
	struct flow_host host;
	struct flow_tcpi tcpi;
	bool has_host;
	bool has_tcpi;
};

/**
 * struct shard_rates - the samples behind each flow's rate over the last
 * second (ctl flows): a sweep at most once a second, when the loop wakes
 * anyway (shard_rate_sweep()); nothing per packet
 * @clk:	when the last two sweeps were
 * @due_ns:	when the next sweep is due
 * @tcp:	per TCP flow slot, max_flows entries
 * @udp:	per datagram flow slot, the core's max_udp_flows entries
 * @hi:		per TCP flow slot: the host socket's figures a snapshot
 *		read last, max_flows entries (pages touched only by
 *		snapshots)
 * @hu:		per datagram flow slot: the same (the tuple only)
 * @cursor:	TCP slot where the next snapshot's reads of idle flows'
 *		figures start (they take turns)
 */
struct shard_rates {
	struct flow_clock clk;
	uint64_t due_ns;
	struct flow_rate *tcp;
	struct flow_rate *udp;
	struct shard_hostinfo *hi;
	struct shard_hostinfo *hu;
	uint32_t cursor;
};

/**
 * struct shard - everything one event-loop thread owns
 * @core:	protocol state
 * @fx:		effects batch
 * @frame_len:	backing for fx.frame_len
 * @edge:	device edge
 * @q:		the edge queue this shard serves
 * @now_ns:	time at the start of the current event batch
 * @conf:	configuration
 * @epfd:	epoll instance
 * @timerfd:	timer for core deadlines
 * @armed_ns:	deadline the timerfd is set to (UINT64_MAX: none)
 * @imp:	--impair stage, or NULL
 * @edge_gen:	the edge's guest generation we last served
 * @in_rx_batch: frames of an edge rx batch are being handed in: their
 *		views live until the batch ends, so the guest's datagrams may
 *		wait for it (shard_input())
 * @edge_lost:	the edge's guest went away (the end for an edge that does
 *		not wait for the next one)
 * @edge_tick_ns: when the edge's tick is due next
 * @id:		index in @grp
 * @grp:	the shards serving the edge (a group of one without --shards)
 * @max_flows:	this shard's part of --max-flows
 * @sock:	host sockets of the flows (data path)
 * @lis:	listening sockets (shard 0)
 * @svc:	optional services: DNS forwarder, splice, auto ports, -U
 * @peers:	mailboxes from the other shards
 * @req:	the control thread's request slots
 * @stats:	counters, capture, histograms
 * @rates:	samples for the flows' rates (ctl flows)
 * @mig_hold:	--migrate-from: the edge's queue is not polled until the
 *		source's flows are in, or given up (mig_shard_poll())
 * @mig_ready_ns: when the held queue's rings were first seen running
 * @mig_frames:	after a migration's flows came in: frames forwarded
 *		until then, plus one (0: not watching for the first one)
 *
 * The fields before @lis are the data path's: what a frame or a socket
 * event touches, kept together at the start; the groups after it are
 * touched on set-up, on a listener's event, once per loop iteration or
 * when counting.
 */
struct shard {
	struct core core;
	struct fx fx;
	uint32_t *frame_len;
	struct edge *edge;
	unsigned q;
	uint64_t now_ns;
	const struct conf *conf;
	int epfd;
	int timerfd;
	uint64_t armed_ns;
	struct impair *imp;
	unsigned edge_gen;
	bool in_rx_batch;
	bool edge_lost;
	uint64_t edge_tick_ns;
	unsigned id;
	struct shard_group *grp;
	uint32_t max_flows;
	struct shard_sock sock;
	struct shard_listen lis;
	struct shard_svc svc;
	struct shard_peers peers;
	struct shard_req req;
	struct shard_stats stats;
	struct shard_rates rates;
	bool mig_hold;
	uint64_t mig_ready_ns;
	uint64_t mig_frames;
};

/**
 * shard_edge_full() - does the guest take no more frames for now?
 * @sh:	shard
 *
 * Return: true while the edge holds frames the guest has no room for
 */
static inline bool shard_edge_full(const struct shard *sh)
{
	return sh->edge->ops->tx_full &&
	       sh->edge->ops->tx_full(sh->edge, sh->q);
}

/**
 * struct shard_ep_hook - a service's handler of one epoll type
 * @fn:		the handler: shard, EP_IDX() of the event's data, its events
 * @drain:	the handler can leave the core effects to carry out (a DNS
 *		answer): the loop drains them after it
 */
struct shard_ep_hook {
	void (*fn)(struct shard *sh, uint32_t idx, uint32_t events);
	bool drain;
};

#define SHARD_RESUME_MAX 4
#define SHARD_SNAP_MAX 4

/**
 * struct shard_snap_hook - a service's part of a flow table snapshot: its
 * connections, which the core never sees (shard_snap_flows())
 * @fill:	copies them as records: @buf holds @cap of them; stores in
 *		@total how many there are (more than it wrote when @cap is
 *		too small); returns how many it wrote. Context: the shard's
 *		own thread
 * @cap:	how many records the service can have on this shard at most
 *		(the room a snapshot needs), from what is fixed before the
 *		shards run (the configuration, the shard's index). Context:
 *		the control thread
 * @sweep:	takes its connections' rate samples (flow_rate_take() with
 *		sh->rates.clk, just ticked), at most once a second; may be
 *		NULL. Context: the shard's own thread
 */
struct shard_snap_hook {
	uint32_t (*fill)(struct shard *sh, struct flow_rec *buf, uint32_t cap,
			 uint32_t *total);
	uint32_t (*cap)(const struct shard *sh);
	void (*sweep)(struct shard *sh);
};

/**
 * struct shard_hooks - what the layers above lend the runtime, so that it
 * names none of them: the services' epoll handlers (svc_register()) and
 * migration's calls (mig_init()). Written once at start-up, before any
 * shard runs; read only after.
 * @ep:		handlers of the services' epoll types (EP_LISTEN, EP_DNS,
 *		EP_SPLICE, EP_FWD_AUTO, EP_UDPNS); the runtime's own types
 *		(edge, timer, sockets, mailbox) are dispatched by loop.c
 * @resume:	called when listeners paused for want of descriptors may
 *		take connections again (shard_accept_nofd())
 * @fini:	frees a shard's services, before its flows' memory goes
 * @dns_query:	a guest's query to the DNS forwarder (FX_DNS_QUERY)
 * @mig_handed_over: the migration handed the flows over: shard 0's loop
 *		ends once the frontend left
 * @mig_poll:	a shard's part of a migration, while it is held
 * @snap:	the services' flows for the control API's snapshot (splice,
 *		-U, DNS queries in flight), listed after the core's; unused
 *		entries are zero
 */
struct shard_hooks {
	struct shard_ep_hook ep[EP_TYPE_NUM];
	void (*resume[SHARD_RESUME_MAX])(struct shard *sh);
	void (*fini)(struct shard *sh);
	void (*dns_query)(struct shard *sh, const uint8_t *q, size_t len,
			  const uint8_t *gaddr, uint16_t gport);
	bool (*mig_handed_over)(const struct shard_group *grp);
	void (*mig_poll)(struct shard *sh);
	struct shard_snap_hook snap[SHARD_SNAP_MAX];
};

extern struct shard_hooks shard_hooks;

/* loop.c: set-up, the loop (the control thread's side is shard_api.h) */
int shard_init(struct shard *sh, const struct conf *conf, struct edge *e,
	       const uint8_t guest_mac[6], struct shard_group *grp,
	       unsigned id);
void shard_reset_flows(struct shard *sh);
void shard_mig_hold(struct shard *sh);
void shard_mig_release(struct shard *sh);
void shard_edge_sync(struct shard *sh);
void shard_fini(struct shard *sh);
int shard_run(struct shard *sh,
	      bool (*on_other)(struct shard *sh, uint64_t data, void *arg),
	      void *arg);

/* shard.c: the primitives */
void shard_flush_frames(struct shard *sh);
void shard_impair_release(struct shard *sh);
void shard_drain(struct shard *sh);
int shard_ep_add(struct shard *sh, int fd, uint32_t events, uint64_t data);
void shard_listen_arm(struct shard *sh, int fd, uint64_t data);
unsigned shard_accept_nofd(struct shard *sh, int fd, uint64_t data, int err,
			   bool reset, unsigned max);
void shard_end_of_batch(struct shard *sh);
void shard_input(struct shard *sh, struct pkt_view v, uint8_t hop);
void shard_rate_sweep(struct shard *sh);
bool shard_snap_host(int fd, struct flow_rec *r, bool peer);
uint32_t shard_snap_flows(struct shard *sh, struct flow_rec *buf, uint32_t cap,
			  uint32_t *total);

#endif /* SLIPWAY_SHARD_H */
