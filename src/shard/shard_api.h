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
 * @FLOW_KIND_NUM:	kinds
 */
enum flow_kind {
	FLOW_KIND_TCP,
	FLOW_KIND_UDP,
	FLOW_KIND_PING,
	FLOW_KIND_SPLICE,
	FLOW_KIND_UDPNS,
	FLOW_KIND_NUM
};

/**
 * enum flow_svc_state - the state of a FLOW_KIND_SPLICE or FLOW_KIND_UDPNS
 * record (the core's flows use their own: enum tcp_state, enum udp_kind)
 * @FLOW_SVC_CONNECTING: spliced: the second socket is connecting
 * @FLOW_SVC_ESTABLISHED: spliced: bytes move both ways
 * @FLOW_SVC_CLOSING:	spliced: a side ended its stream (a FIN)
 * @FLOW_SVC_OPEN:	-U: the peer's host socket is open
 * @FLOW_SVC_NUM:	states
 */
enum flow_svc_state {
	FLOW_SVC_CONNECTING,
	FLOW_SVC_ESTABLISHED,
	FLOW_SVC_CLOSING,
	FLOW_SVC_OPEN,
	FLOW_SVC_NUM
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
};

/* flow_rec.c: pure, any thread */
const char *flow_rec_state_str(const struct flow_rec *r);
const char *flow_rec_kind_str(const struct flow_rec *r);

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
