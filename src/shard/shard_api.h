/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shard_api.h - the shards as the control thread sees them: counters,
 * histograms, flow table snapshots, jobs run on shard 0
 *
 * The control plane (src/ctl/) reaches host/ through this header, fwd.h
 * (the forward-table API, which it has shard 0 run with
 * shard_api_call_ask()) and conf.h (the configuration, read only), never
 * through shard.h: struct shard is opaque here. tools/check-layers.sh
 * holds ctl/ to that. Every function takes shard 0 (what ctl_init() was
 * given) and, where it says so, the index of a shard of its group.
 *
 * Context: the control thread, unless a function says otherwise; none of
 * them blocks or touches what a shard's thread writes but through the
 * atomics of struct flow_snap and struct shard_call (shard.h).
 */
#ifndef SLIPWAY_SHARD_API_H
#define SLIPWAY_SHARD_API_H

#include <stdbool.h>
#include <stdint.h>

struct hist;
struct shard;
struct sockaddr_storage;

/**
 * enum flow_kind - what made a flow record: the core's flow table, or a
 * service of shard 0 that moves bytes without the core
 * @FLOW_KIND_TCP:	a TCP flow of the core (guest or published port)
 * @FLOW_KIND_UDP:	a UDP flow of the core (guest or published port)
 * @FLOW_KIND_PING:	an ICMP or ICMPv6 echo flow of the core
 * @FLOW_KIND_SPLICE:	a loopback client of a published TCP port, or a -T
 *			connection, spliced (splice.c)
 * @FLOW_KIND_UDPNS:	a guest peer of a -U port (udpns.c)
 * @FLOW_KIND_DNS:	a DNS query in flight through the forwarder (dns_fwd.c)
 * @FLOW_KIND_NUM:	kinds
 */
enum flow_kind {
	FLOW_KIND_TCP,
	FLOW_KIND_UDP,
	FLOW_KIND_PING,
	FLOW_KIND_SPLICE,
	FLOW_KIND_UDPNS,
	FLOW_KIND_DNS,
	FLOW_KIND_NUM
};

/**
 * enum flow_svc_state - the state of a FLOW_KIND_SPLICE or FLOW_KIND_UDPNS
 * record (the core's flows use their own: enum tcp_state, enum udp_kind)
 * @FLOW_SVC_CONNECTING: spliced: the second socket is connecting
 * @FLOW_SVC_ESTABLISHED: spliced: bytes move both ways
 * @FLOW_SVC_CLOSING:	spliced: a side ended its stream (a FIN)
 * @FLOW_SVC_OPEN:	-U: the peer's host socket is open
 * @FLOW_SVC_QUERY:	DNS: a query waits for the upstream's answer
 * @FLOW_SVC_NUM:	states
 */
enum flow_svc_state {
	FLOW_SVC_CONNECTING,
	FLOW_SVC_ESTABLISHED,
	FLOW_SVC_CLOSING,
	FLOW_SVC_OPEN,
	FLOW_SVC_QUERY,
	FLOW_SVC_NUM
};

/**
 * enum flow_limit - what holds a flow back: the verdict of
 * flow_rec_limit() (named by flow_rec_limit_str())
 * @FLOW_LIM_NONE:	not judged (not a TCP flow of the core)
 * @FLOW_LIM_IDLE:	no bytes either way in the last second
 * @FLOW_LIM_GUEST_RWND: to the guest: the guest's receive window is full
 * @FLOW_LIM_EDGE:	to the guest: the edge had no room for frames
 * @FLOW_LIM_HOST_SENDER: to the guest: the host's peer sends no faster
 * @FLOW_LIM_HOST_SNDBUF: from the guest: the host socket's send buffer
 *			is (nearly) full
 * @FLOW_LIM_HOST_CWND: from the guest: the host socket's congestion
 *			window is full
 * @FLOW_LIM_GUEST_SENDER: from the guest: the guest sends no faster
 * @FLOW_LIM_NUM:	verdicts
 */
enum flow_limit {
	FLOW_LIM_NONE,
	FLOW_LIM_IDLE,
	FLOW_LIM_GUEST_RWND,
	FLOW_LIM_EDGE,
	FLOW_LIM_HOST_SENDER,
	FLOW_LIM_HOST_SNDBUF,
	FLOW_LIM_HOST_CWND,
	FLOW_LIM_GUEST_SENDER,
	FLOW_LIM_NUM
};

/**
 * struct flow_host - the host socket's side of a flow (a snapshot)
 * @local_addr:	getsockname() address (16 bytes, IPv4 v4-mapped)
 * @peer_addr:	getpeername() address, or for a published UDP port's flow
 *		the client's
 * @local_port:	getsockname() port
 * @peer_port:	getpeername() port
 */
struct flow_host {
	uint8_t local_addr[16];
	uint8_t peer_addr[16];
	uint16_t local_port;
	uint16_t peer_port;
};

/**
 * struct flow_tcpi - the host TCP socket's TCP_INFO, SIOCOUTQ and
 * SO_SNDBUF (a snapshot)
 * @rtt_us:	smoothed RTT to the host's peer
 * @rttvar_us:	its variation
 * @cwnd:	congestion window, segments
 * @retrans:	retransmissions in the connection's life
 * @unacked:	segments sent, not yet acknowledged
 * @send_queue: bytes in the send queue (SIOCOUTQ: unsent and unacked)
 * @sndbuf:	SO_SNDBUF, bytes
 */
struct flow_tcpi {
	uint32_t rtt_us;
	uint32_t rttvar_us;
	uint32_t cwnd;
	uint32_t retrans;
	uint32_t unacked;
	uint32_t send_queue;
	uint32_t sndbuf;
};

/**
 * struct flow_rec - one flow as the control API shows it (a snapshot)
 * @guest_addr:	guest-side address (16 bytes, IPv4 v4-mapped): spliced and
 *		-U: the guest namespace's socket (its server for a -t
 *		client, its client for -T and -U)
 * @remote_addr: remote address: spliced and -U: the host's end (the
 *		loopback client of a -t port; the host loopback address a -T
 *		or -U port goes to)
 * @guest_port:	guest-side port (ICMP echo: the echo id)
 * @remote_port: remote port (ICMP echo: 0)
 * @ns_port:	-T and -U: the port on the guest's loopback the guest's
 *		client sent to; else 0
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 * @state:	TCP: enum tcp_state; datagram flows: enum udp_kind; spliced
 *		and -U: enum flow_svc_state (named by flow_rec_state_str())
 * @shard:	the owning shard
 * @kind:	enum flow_kind
 * @from_guest:	TCP and spliced: payload bytes written to the host's
 *		socket; datagram flows (-U too): datagrams from the guest
 * @to_guest:	TCP: payload bytes the guest acknowledged; spliced: bytes
 *		written to the guest's socket; datagram flows (-U too):
 *		datagrams to the guest
 * @from_guest_bytes: -U: payload bytes from the guest; else 0
 * @to_guest_bytes: -U: payload bytes to the guest; else 0
 * @age_ns:	TCP, spliced and -U: time since the flow opened; the core's
 *		datagram flows: 0
 * @idle_ns:	datagram flows (-U too) and spliced: time since the last
 *		datagram or byte moved; TCP: 0
 * @bytes_from_guest: payload bytes from the guest (every kind)
 * @bytes_to_guest: payload bytes to the guest (TCP: acknowledged)
 * @segs_from_guest: segments or datagrams from the guest (spliced: moves)
 * @segs_to_guest: segments or datagrams to the guest (spliced: moves)
 * @rate_from_guest: bytes per second from the guest over about the last
 *		second
 * @rate_to_guest: the same, to the guest
 * @host:	the host socket's tuple, with @has_host
 * @tcpi:	TCP: the host socket's figures, with @has_tcpi
 * @guest_rtt_us: TCP: the core's smoothed RTT to the guest (0: none yet)
 * @resends:	TCP: segments the core sent to the guest again
 * @in_flight_to_guest: TCP: bytes sent to the guest, not acknowledged
 * @guest_wnd:	TCP: the guest's receive window, bytes
 * @guest_mss:	TCP: the largest segment to the guest (for the verdict)
 * @has_host:	@host is set
 * @has_tcpi:	@tcpi is set
 * @edge_stalled: TCP: the flow waits for room at the edge
 * @limit:	enum flow_limit (TCP of the core)
 */
struct flow_rec {
	uint8_t guest_addr[16];
	uint8_t remote_addr[16];
	uint16_t guest_port;
	uint16_t remote_port;
	uint16_t ns_port;
	uint8_t proto;
	uint8_t state;
	uint8_t shard;
	uint8_t kind;
	uint64_t from_guest;
	uint64_t to_guest;
	uint64_t from_guest_bytes;
	uint64_t to_guest_bytes;
	uint64_t age_ns;
	uint64_t idle_ns;
	uint64_t bytes_from_guest;
	uint64_t bytes_to_guest;
	uint64_t segs_from_guest;
	uint64_t segs_to_guest;
	uint64_t rate_from_guest;
	uint64_t rate_to_guest;
	struct flow_host host;
	struct flow_tcpi tcpi;
	uint32_t guest_rtt_us;
	uint32_t resends;
	uint32_t in_flight_to_guest;
	uint32_t guest_wnd;
	uint32_t guest_mss;
	bool has_host;
	bool has_tcpi;
	bool edge_stalled;
	uint8_t limit;
};

/**
 * struct flow_rate - two samples of a flow's byte counts, a second apart,
 * for its rate over the last second (flow_rate_take(), flow_rate_get())
 * @tag:	what the samples belong to (the flow's opening time: a slot
 *		reused by a new flow has another)
 * @from:	bytes from the guest at the two sweeps
 * @to:		bytes to the guest at the two sweeps
 */
struct flow_rate {
	uint64_t tag;
	uint64_t from[2];
	uint64_t to[2];
};

/**
 * struct flow_clock - when a shard's (or a service's) sweeps took the
 * samples of its struct flow_rate entries
 * @t:		times of the two sweeps (0: none)
 * @cur:	index of the newer one in @t and the samples
 */
struct flow_clock {
	uint64_t t[2];
	uint8_t cur;
};

/* flow_rec.c: pure, any thread */
const char *flow_rec_state_str(const struct flow_rec *r);
const char *flow_rec_kind_str(const struct flow_rec *r);
const char *flow_rec_limit_str(const struct flow_rec *r);
uint8_t flow_rec_limit(const struct flow_rec *r);
void flow_clock_tick(struct flow_clock *k, uint64_t now_ns);
void flow_rate_take(struct flow_rate *s, const struct flow_clock *k,
		    uint64_t tag, uint64_t from, uint64_t to);
void flow_rate_get(const struct flow_rate *s, const struct flow_clock *k,
		   uint64_t tag, uint64_t now_ns, struct flow_rec *r);

/* shard_api.c */
unsigned shard_api_count(const struct shard *sh);
const char *shard_api_edge_name(const struct shard *sh);
bool shard_api_peek_off(const struct shard *sh);
uint64_t *shard_api_ctr(struct shard *sh, unsigned k);
const struct hist *shard_api_hist(const struct shard *sh, unsigned k);
unsigned shard_api_queue(const struct shard *sh, unsigned k);
uint32_t shard_api_flow_cap(const struct shard *sh, unsigned k);
void shard_api_snap_ask(struct shard *sh, unsigned k, struct flow_rec *buf,
			uint32_t cap, unsigned req);
bool shard_api_snap_done(const struct shard *sh, unsigned k, unsigned req);
uint32_t shard_api_snap_result(const struct shard *sh, unsigned k,
			       uint32_t *total);
void shard_api_call_ask(struct shard *sh,
			void (*fn)(struct shard *sh, void *arg), void *arg,
			unsigned req);
bool shard_api_call_done(const struct shard *sh, unsigned req);
void shard_api_mig_ask(struct shard *sh,
		       void (*fn)(struct shard *sh, void *arg), void *arg,
		       unsigned req);
bool shard_api_mig_done(const struct shard *sh, unsigned req);
int shard_api_wake_init(struct shard *sh);
void shard_api_attach(struct shard *sh, int evfd);
void shard_api_detach(struct shard *sh, int evfd);
void shard_api_self_pin(struct shard *sh, int proto,
			const struct sockaddr_storage *ss);

/* a listener whose accept() failed (out of fds) rests this long (the
 * shards' listeners, and the control thread's: os/sys.h's spare fds) */
#define LISTEN_PAUSE_MS 100U

#endif /* SLIPWAY_SHARD_API_H */
