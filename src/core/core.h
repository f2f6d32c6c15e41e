/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core.h - the pure protocol core: configuration, effects batch, context
 *
 * Nothing under core/ makes a system call, allocates, reads a clock or keeps
 * mutable globals. Callers hand in memory, time (@now_ns) and secrets; the
 * core appends effects (frames for the guest, intents for the host sockets)
 * to a struct fx, and the host layer carries them out.
 */
#ifndef SLIPWAY_CORE_H
#define SLIPWAY_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../util/ctr.h"
#include "../util/util.h"
#include "pkt.h"

/* core/ and util/ sources are built with -DSLIPWAY_CORE_BUILD: poison */

#define ETH_HLEN 14
#define ETH_ALEN 6
#define ETHERTYPE_IP4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_IP6 0x86dd
#define IP4_HLEN 20
#define IP6_HLEN 40
#define TCP_HLEN 20
#define IPPROTO_ICMP_ 1
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMPV6_ 58

/* virtio-net header (virtio 1.0, with num_buffers), all fields little-endian */
#define VNET_HDR_F_NEEDS_CSUM 1
#define VNET_HDR_F_DATA_VALID 2
#define VNET_HDR_GSO_NONE 0
#define VNET_HDR_GSO_TCPV4 1
#define VNET_HDR_GSO_UDP 3
#define VNET_HDR_GSO_TCPV6 4
#define VNET_HDR_GSO_UDP_L4 5
#define VNET_HDR_GSO_ECN 0x80
#define VNET_HDR_MAX_LEN 12

/*
 * Flow addresses are 16 bytes in network order, for both families: an IPv4
 * address is stored v4-mapped, ::ffff:a.b.c.d (RFC 4291 2.5.5.2), so one
 * table, one hash and one lookup serve both. The guest never sends from or
 * to a v4-mapped IPv6 address (ip6_input() drops such packets), so the two
 * families cannot meet in one tuple.
 */
#define ADDR_LEN 16

/**
 * FLOW_TUPLE_COPY() - copy a flow's tuple, its guest-side and remote
 * address and port, between two structs that carry it under the same
 * names (struct tcp_flow, udp_flow, tcp_handover, mig_tcp, mig_udp)
 * @d:	destination
 * @s:	source
 */
#define FLOW_TUPLE_COPY(d, s)                                         \
	do {                                                          \
		memcpy((d)->guest_addr, (s)->guest_addr, ADDR_LEN);   \
		memcpy((d)->remote_addr, (s)->remote_addr, ADDR_LEN); \
		(d)->guest_port = (s)->guest_port;                    \
		(d)->remote_port = (s)->remote_port;                  \
	} while (0)

/**
 * addr_is4() - is a flow address an IPv4 one (v4-mapped)?
 * @a:	address, ADDR_LEN bytes
 *
 * Return: true for ::ffff:0:0/96
 */
static inline bool addr_is4(const uint8_t *a)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a, pfx, sizeof(pfx));
}

/**
 * addr_from4() - store an IPv4 address as a flow address
 * @a:		out: ADDR_LEN bytes
 * @a4_be:	IPv4 address, network order
 */
static inline void addr_from4(uint8_t *a, uint32_t a4_be)
{
	memset(a, 0, 10);
	a[10] = a[11] = 0xff;
	memcpy(a + 12, &a4_be, 4);
}

/**
 * addr_to4() - the IPv4 address of a v4-mapped flow address
 * @a:	address (addr_is4() true)
 *
 * Return: IPv4 address, network order
 */
static inline uint32_t addr_to4(const uint8_t *a)
{
	uint32_t v;

	memcpy(&v, a + 12, 4);
	return v;
}

/**
 * addr_eq() - are two flow addresses the same?
 * @a:	address
 * @b:	address
 *
 * Return: true if equal
 */
static inline bool addr_eq(const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, ADDR_LEN);
}

/**
 * addr_from_ip() - the source and destination of an IPv4 or IPv6 header
 * @iph:	validated IPv4 (version 4) or IPv6 (version 6) header
 * @saddr:	out: source, ADDR_LEN bytes (IPv4 v4-mapped)
 * @daddr:	out: destination, ADDR_LEN bytes
 */
static inline void addr_from_ip(const uint8_t *iph, uint8_t *saddr,
				uint8_t *daddr)
{
	if ((iph[0] >> 4) == 6) {
		memcpy(saddr, iph + 8, ADDR_LEN);
		memcpy(daddr, iph + 24, ADDR_LEN);
		return;
	}
	memset(saddr, 0, 10);
	saddr[10] = saddr[11] = 0xff;
	memcpy(saddr + 12, iph + 12, 4);
	memset(daddr, 0, 10);
	daddr[10] = daddr[11] = 0xff;
	memcpy(daddr + 12, iph + 16, 4);
}

/**
 * struct vnet_hdr - the virtio-net header's meaning for one frame
 * @flags:	VNET_HDR_F_*
 * @gso_type:	VNET_HDR_GSO_*
 * @hdr_len:	length of headers for GSO
 * @gso_size:	segment size for GSO
 * @csum_start:	offset where checksumming starts (NEEDS_CSUM)
 * @csum_offset: offset of the checksum field from @csum_start
 */
struct vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

/* a host name or FQDN: as text (no final dot), and in DNS wire format */
#define DHCP_NAME_MAX 253
#define DHCP_NAME_WIRE_MAX 255

/**
 * struct dhcp4_conf - what the DHCPv4 server offers (network order)
 * @addr_be:	the guest's address
 * @mask_be:	netmask
 * @router_be:	default router (the gateway)
 * @server_be:	server identifier (the gateway)
 * @dns_be:	DNS servers to hand out
 * @ndns:	entries in @dns_be
 * @lease_s:	lease time, seconds
 * @mtu:	interface MTU (option 26), 0: none
 * @search:	domain search list, DNS wire format (RFC 3397), may be empty
 * @search_len:	bytes of @search
 * @hostname:	the guest's host name (option 12), text, no terminator
 * @hostname_len: bytes of @hostname, 0: none
 * @fqdn:	the guest's fully qualified name, DNS wire format ending in
 *		the root label: option 81 (RFC 4702) and DHCPv6 option 39
 *		(RFC 4704), for clients that ask for it
 * @fqdn_len:	bytes of @fqdn, 0: none
 */
struct dhcp4_conf {
	uint32_t addr_be;
	uint32_t mask_be;
	uint32_t router_be;
	uint32_t server_be;
	uint32_t dns_be[3];
	unsigned ndns;
	uint32_t lease_s;
	uint16_t mtu;
	uint8_t search[256];
	size_t search_len;
	uint8_t hostname[DHCP_NAME_MAX];
	size_t hostname_len;
	uint8_t fqdn[DHCP_NAME_WIRE_MAX];
	size_t fqdn_len;
};

/**
 * struct core_conf - addresses and knobs (all addresses network order)
 * @our_mac:		gateway MAC address
 * @guest_mac:		guest MAC address (learned from frames as they arrive)
 * @guest4_be:		guest IPv4 address
 * @gw4_be:		gateway IPv4 address
 * @mask4_be:		netmask of the guest network
 * @map_gw_to_loopback:	connections to @gw4_be go to the host's 127.0.0.1
 * @gw_unreach:		with @map_gw_to_loopback off, TCP and UDP to the
 *			gateway get ICMP net unreachable (ICMPv6 no route),
 *			as from libslirp, instead of RST or port unreachable
 * @mtu:		guest MTU (IP packet size)
 * @vnet_hdr_len:	virtio-net header size on the edge (0, 10 or 12)
 * @csum_offload:	the edge honours NEEDS_CSUM toward the guest (needs a
 *			@vnet_hdr_len: the flag travels in that header)
 * @ws_shift:		window scale we advertise to the guest
 * @max_flows:		size of the flow table
 * @rto_min_ns:		initial retransmission timeout toward the guest
 * @max_inflight:	cap on unacknowledged bytes toward the guest per flow
 *			(0: no cap beyond the guest's window)
 * @uso:		the guest takes UDP GSO frames (VNET_HDR_GSO_UDP_L4):
 *			datagrams of one flow the host received together go
 *			to it as one frame (needs @csum_offload)
 * @uso_in:		the guest's UDP GSO frames are taken (the edge offered
 *			them: needs @vnet_hdr_len)
 * @gso_max:		largest TCP payload per frame toward the guest when it
 *			exceeds the MSS (GSO, needs @csum_offload); 0: off
 * @ack_every:		ACK the guest as soon as this many times its MSS
 *			of payload was accepted since the last ACK, even
 *			within a batch (RFC 5681: 2); 0: only at the end of
 *			each batch (core_flush())
 * @dns4_be:		DNS forwarder address in the guest's view (0: none)
 * @max_udp_flows:	size of the datagram flow table
 * @udp_idle_ns:	datagram flows close after this long without traffic
 * @dns4_upstream_be:	where TCP to @dns4_be port 53 goes (0: refused)
 * @quiet4_be:		an address of the guest's network nothing answers at and
 *			nothing sent to leaves (slirp4netns --disable-dns:
 *			the DNS address stays the virtual network's, as
 *			libslirp keeps it); 0: none
 * @quiet6:		the same for IPv6 (:: for none)
 * @dns4_shared:	@dns4_be is also a mapped address (passt's model: the
 *			gateway, mapped to the host's loopback): only port
 *			53 there is the forwarder's, anything else takes
 *			the mapping (core_dns_dst())
 * @dhcp:		DHCPv4 server on (conf for it in @dhcp4)
 * @dhcp4:		what the DHCPv4 server hands out
 * @ipv6:		carry IPv6: NDP, echo, TCP, UDP and DNS over IPv6;
 *			off: IPv6 frames count as ETH_DROP_ETHERTYPE
 * @prefix6:		the guest network's ULA /64 (first 8 bytes)
 * @guest6:		the guest's address in @prefix6 (@prefix6::15 by
 *			convention, as 10.0.2.15): published ports reach
 *			the guest there over IPv6, and DHCPv6 hands it out
 * @gw6_ll:		gateway link-local address (fe80::1): NDP source
 * @gw6:		gateway address in @prefix6; by convention
 *			@prefix6::2, as 10.0.2.2 for IPv4
 * @dns6:		DNS address in the guest's view, by convention
 *			@prefix6::3 (as 10.0.2.3); :: for none (no RDNSS).
 *			Answered for NS and echo like the gateway
 * @ra_router_lifetime_s: router lifetime in router advertisements
 *			(0: the guest does not make us its default router;
 *			at most 65535, which shard_init() sets: TCP and UDP
 *			over IPv6 are carried)
 * @dhcp6:		DHCPv6 server on (needs @ipv6): answers from
 *			@guest6, @dns6 and @dhcp4.search; router
 *			advertisements then carry the M and O flags
 * @shard_id:		this core's shard (0 .. @nshards - 1)
 * @nshards:		shards serving the edge (0 or 1: this core sees
 *			every frame and never passes one on)
 * @ooo_slots:		guest TCP segments that may wait for a gap before
 *			them to be filled (0: none, they are dropped)
 * @gw_real:		the gateway's addresses are a real router's (pasta's
 *			model: the host's own gateway): without
 *			@map_gw_to_loopback, connections to them go out to
 *			them as named instead of being refused
 * @map_lo4_be:		another IPv4 address whose connections go to the
 *			host's 127.0.0.1, as the gateway's do (0: none)
 * @map_lo6:		the same for IPv6, to the host's ::1 (:: for none)
 * @map_guest4_be:	an IPv4 address whose connections go to @host4_be,
 *			the host's own address (0: none)
 * @map_guest6:		the same for IPv6, to @host6 (:: for none)
 * @host4_be:		where @map_guest4_be leads
 * @host6:		where @map_guest6 leads
 * @ndp_proxy:		answer neighbour solicitations for any unicast
 *			address but the guest's own and link-local ones
 *			(pasta's model: the guest's /64 is the host's, whose
 *			neighbours are reached through us)
 */
struct core_conf {
	uint8_t our_mac[ETH_ALEN];
	uint8_t guest_mac[ETH_ALEN];
	uint32_t guest4_be;
	uint32_t gw4_be;
	uint32_t mask4_be;
	bool map_gw_to_loopback;
	bool gw_unreach;
	uint32_t mtu;
	unsigned vnet_hdr_len;
	bool csum_offload;
	bool uso;
	bool uso_in;
	uint8_t ws_shift;
	uint32_t max_flows;
	uint64_t rto_min_ns;
	uint32_t max_inflight;
	uint32_t gso_max;
	uint32_t ack_every;
	uint32_t dns4_be;
	uint32_t max_udp_flows;
	uint64_t udp_idle_ns;
	uint32_t dns4_upstream_be;
	uint32_t quiet4_be;
	uint8_t quiet6[16];
	bool dns4_shared;
	bool dhcp;
	struct dhcp4_conf dhcp4;
	bool ipv6;
	uint8_t prefix6[8];
	uint8_t guest6[16];
	uint8_t gw6_ll[16];
	uint8_t gw6[16];
	uint8_t dns6[16];
	uint32_t ra_router_lifetime_s;
	bool dhcp6;
	uint8_t shard_id;
	uint8_t nshards;
	uint32_t ooo_slots;
	bool gw_real;
	uint32_t map_lo4_be;
	uint8_t map_lo6[16];
	uint32_t map_guest4_be;
	uint8_t map_guest6[16];
	uint32_t host4_be;
	uint8_t host6[16];
	bool ndp_proxy;
};

/* core_conf_default(): the gateway's fixed identity and slipway's network */
#define CORE_GW_MAC                                \
	{                                          \
		0x52, 0x56, 0x00, 0x00, 0x00, 0x02 \
	} /* local, unicast */
#define CORE_NET4_DEFAULT   \
	{                   \
		10, 0, 2, 0 \
	} /* 10.0.2.0/24, as slirp */
#define CORE_NET4_PREFIX_DEFAULT 24
#define CORE_GUEST4_HOST 15 /* 10.0.2.15 */
#define CORE_GW4_HOST 2	    /* 10.0.2.2 */
#define CORE_MTU_DEFAULT 65520
#define CORE_WS_SHIFT_DEFAULT 9	     /* windows up to 32 MiB */
#define CORE_DHCP4_LEASE_S 86400     /* a day */
#define CORE_RA_LIFETIME_MAX_S 65535 /* the longest RFC 4861 has */

/**
 * core_conf_default() - the configuration every core starts from
 * @cc:		configuration out
 *
 * All zero but the gateway's MAC address (CORE_GW_MAC) and link-local
 * address (fe80::1), slipway's default network (guest 10.0.2.15/24,
 * gateway 10.0.2.2, connections to the gateway mapped to host loopback),
 * an MTU of CORE_MTU_DEFAULT, a window scale of CORE_WS_SHIFT_DEFAULT and
 * a DHCPv4 lease of CORE_DHCP4_LEASE_S (with @dhcp still off). IPv6, DHCP,
 * DNS, offloads and the flow tables stay off or empty: the caller sets
 * what its edge and command line say (shard_init(), the tests' env_conf(),
 * the fuzz targets).
 */
void core_conf_default(struct core_conf *cc);

/* Socket intents for the host layer */
enum fx_intent_type {
	FX_SOCK_CONNECT, /* open a host socket, connect to @addr:@port */
	FX_SOCK_SEND,	 /* write @data/@len, report with tcp_on_sock_sent() */
	FX_SOCK_CONSUME, /* discard @len acknowledged bytes from the socket */
	FX_SOCK_REWIND,	 /* set the peek offset to @len past snd_una */
	FX_SOCK_SHUT_WR, /* shutdown(SHUT_WR): the guest sent FIN */
	FX_SOCK_CLOSE,	 /* close the socket (no RST): the flow is gone */
	FX_SOCK_RESET,	 /* close with RST (SO_LINGER 0): the flow is gone */
	FX_TX_WANTED,	 /* the flow may send to the guest: peek now */
	FX_DGRAM_OPEN,	 /* open a datagram flow's socket to @addr:@port */
	FX_DGRAM_SEND,	 /* send @data/@len on a datagram flow */
	FX_DGRAM_CLOSE,	 /* datagram flow ended: close @sock (not for PUB) */
	FX_DNS_QUERY,	 /* forward @data/@len from guest @addr:@port */
	FX_INTENT_NUM
};

/**
 * enum fx_data_owner - whose memory an intent's @data is, and until when
 * @FX_DATA_NONE:	no payload (@data is NULL)
 * @FX_DATA_RXBATCH:	a loan into the frame core_input() was handling: the
 *			edge's receive buffer, or the guest memory a loaned
 *			tail lies in (struct pkt_view). Valid until the
 *			edge's rx batch is done: the host carries the intent
 *			out before it takes the next batch
 * @FX_DATA_OOO:	a loan into the core's out-of-order store (tcp.c):
 *			valid until the host reports the write with
 *			tcp_on_sock_sent(), which frees the slot
 * @FX_DATA_OWNER_NUM:	count
 */
enum fx_data_owner {
	FX_DATA_NONE,
	FX_DATA_RXBATCH,
	FX_DATA_OOO,
	FX_DATA_OWNER_NUM
};

/**
 * struct fx_intent - one thing the host must do for a flow
 * @type:	enum fx_intent_type
 * @fin:	FX_SOCK_SEND: the segment also carried FIN
 * @data_owner:	enum fx_data_owner: where @data points
 * @flow:	flow index
 * @sock:	the flow's socket as the core knows it (-1: none yet); after
 *		FX_SOCK_CLOSE, FX_SOCK_RESET and FX_DGRAM_CLOSE the flow is
 *		gone and this is the only record of it
 * @len:	bytes (FX_SOCK_SEND, FX_SOCK_CONSUME, FX_DGRAM_SEND,
 *		FX_DNS_QUERY); FX_SOCK_REWIND: the new peek offset, past the
 *		first unacknowledged byte (0: back to it; more: ahead, over
 *		bytes the guest SACKed)
 * @data:	FX_SOCK_SEND, FX_DGRAM_SEND, FX_DNS_QUERY: payload, a loan
 *		(@data_owner says into what); else NULL
 * @port:	FX_SOCK_CONNECT, FX_DGRAM_OPEN: the port to connect to;
 *		FX_DNS_QUERY: the guest's port
 * @addr:	FX_SOCK_CONNECT, FX_DGRAM_OPEN: the address to connect to
 *		(mapped: the gateway's addresses become host loopback);
 *		FX_DNS_QUERY: the guest's address. ADDR_LEN bytes, IPv4
 *		v4-mapped: the family of the host socket to open
 */
struct fx_intent {
	uint8_t type;
	bool fin : 1;
	unsigned data_owner : 2;
	uint16_t port;
	uint32_t flow;
	int32_t sock;
	uint32_t len;
	uint8_t addr[ADDR_LEN];
	const uint8_t *data;
};

_Static_assert(FX_DATA_OWNER_NUM <= 4, "fx_intent.data_owner is 2 bits");
_Static_assert(sizeof(struct fx_intent) <= 40, "keep an intent small");

#define FX_MAX_INTENTS 64

/**
 * struct fx - effects of core calls, drained by the host layer
 * @slots:	frame slot memory, @nslots slots of @slot_size bytes each
 * @slot_size:	bytes per slot (the edge's largest frame, vnet header
 *		included)
 * @nslots:	number of slots
 * @frame_len:	length of each queued frame (vnet header included)
 * @nframes:	frames queued, in slots 0..@nframes-1
 * @intents:	queued intents
 * @nintents:	number of queued intents
 *
 * Ownership: owned by one shard; the core only appends.
 */
struct fx {
	uint8_t *slots;
	size_t slot_size;
	unsigned nslots;
	uint32_t *frame_len;
	unsigned nframes;
	struct fx_intent intents[FX_MAX_INTENTS];
	unsigned nintents;
};

/**
 * fx_slot_next() - the next free frame slot, without claiming it
 * @fx:	effects batch
 *
 * Return: pointer to the slot, or NULL if all slots are in use
 */
static inline uint8_t *fx_slot_next(struct fx *fx)
{
	if (fx->nframes >= fx->nslots)
		return NULL;
	return fx->slots + (size_t)fx->nframes * fx->slot_size;
}

/**
 * fx_slot_commit() - queue the frame built in the slot from fx_slot_next()
 * @fx:		effects batch
 * @len:	frame length including the vnet header
 */
static inline void fx_slot_commit(struct fx *fx, uint32_t len)
{
	ASSERT(fx->nframes < fx->nslots && len <= fx->slot_size);
	fx->frame_len[fx->nframes++] = len;
}

/**
 * fx_intent_add() - queue a new intent
 * @fx:		effects batch
 * @type:	enum fx_intent_type
 * @flow:	index of the flow it is about (0 when about none)
 * @sock:	host socket it acts on, or -1
 *
 * The host drains intents after every core call: a full list is a bug.
 *
 * Return: the intent, @type, @flow and @sock set and every other field
 *	   zero, to fill in
 */
static inline struct fx_intent *fx_intent_add(struct fx *fx,
					      enum fx_intent_type type,
					      uint32_t flow, int32_t sock)
{
	struct fx_intent *it;

	ASSERT(fx->nintents < FX_MAX_INTENTS);
	it = &fx->intents[fx->nintents++];
	memset(it, 0, sizeof(*it));
	it->type = (uint8_t)type;
	it->flow = flow;
	it->sock = sock;
	return it;
}

struct tcp_flow;
struct udp_flow;

/**
 * struct core - one shard's protocol state
 * @conf:	configuration (the guest MAC is updated as learned)
 * @ctr:	counters, CTR_NUM entries, single writer
 * @flows:	flow table memory, conf.max_flows entries
 * @buckets:	hash buckets (flow index + 1, 0 = empty), @nbuckets entries
 * @nbuckets:	power of two
 * @free_head:	first free flow (index + 1, 0 = none)
 * @hiwat:	flows ever used: indices below this may be in use
 * @ack_list:	flows with an ACK due at the end of the batch
 * @nacks:	entries in @ack_list
 * @key:	siphash key for buckets, ISNs and router advertisement timing
 * @next_deadline_ns:	earliest timer deadline armed (UINT64_MAX: none)
 * @ip_id:	IPv4 identification counter
 * @uflows:	datagram flow table, conf.max_udp_flows entries
 * @ubuckets:	its hash buckets (index + 1), @nubuckets entries
 * @nubuckets:	power of two
 * @ufree_head:	first free datagram flow (index + 1)
 * @uhiwat:	datagram flows ever used
 * @ra_next_ns:	when the next unsolicited router advertisement is due
 *		(UINT64_MAX: none, off or not shard 0; see ndp_timer())
 * @ra_cnt:	unsolicited router advertisements sent so far
 * @in_hop:	an input of core_input() beside its parameters, with one
 *		writer, the host: before each core_input() call, how many
 *		shards passed this frame on already (0: it came from our
 *		own queue). The core only reads it (core_pass_on(),
 *		tcp_input())
 * @pass_to:	an output of core_input(), written only by it and
 *		core_pass_on(): the shard the frame belongs to, or -1 if it
 *		was handled here. The host reads it after core_input()
 * @give:	an output of core_input(), written only by it and
 *		tcp_input(): a flow of ours whose handshake reply landed on
 *		another shard, to be handed there (tcp_give()), or NULL; the
 *		frame was not handled
 * @give_to:	with @give, the shard the frame came from
 * @ended:	TCP flows that ended here lately (flow_ended_here()): a
 *		tuple hash and the time it ended, in ms of @clock_ns
 * @clock_ns:	the @now_ns of the latest core_input() or core_timer() call,
 *		the only writers. Read only by flow_free(), to stamp the
 *		flows it remembers in @ended: flow_free() is also reached
 *		from the host's events (tcp_on_sock_sent(),
 *		tcp_on_sock_error()), and those flows get the time of the
 *		last input or timer run
 * @ooo:	guest segments that came before a gap, held until it is
 *		filled, conf.ooo_slots entries (tcp.c)
 * @ooo_data:	their payload, TCP_OOO_SLOT bytes each
 */
struct core {
	struct core_conf conf;
	uint64_t *ctr;
	struct tcp_flow *flows;
	uint32_t *buckets;
	uint32_t nbuckets;
	uint32_t free_head;
	uint32_t hiwat;
	uint32_t *ack_list;
	uint32_t nacks;
	uint8_t key[16];
	uint64_t next_deadline_ns;
	uint16_t ip_id;
	struct udp_flow *uflows;
	uint32_t *ubuckets;
	uint32_t nubuckets;
	uint32_t ufree_head;
	uint32_t uhiwat;
	uint64_t ra_next_ns;
	uint32_t ra_cnt;
	uint8_t in_hop;
	int pass_to;
	struct tcp_flow *give;
	int give_to;
	struct {
		uint32_t h;
		uint32_t ms;
	} ended[256];
	uint64_t clock_ns;
	struct tcp_ooo *ooo;
	uint8_t *ooo_data;
};

/**
 * core_mem_size() - bytes of memory core_init() needs for a configuration
 * @conf:	configuration
 *
 * Return: size in bytes
 */
size_t core_mem_size(const struct core_conf *conf);

/**
 * core_init() - set up a core in caller-provided memory
 * @c:		core to initialise
 * @conf:	configuration (copied)
 * @mem:	zeroed memory of core_mem_size() bytes, 8-byte aligned
 * @ctr:	counter array of CTR_NUM entries
 * @key:	16 random bytes
 *
 * Return: 0, or -EINVAL for a bad configuration
 */
int core_init(struct core *c, const struct core_conf *conf, void *mem,
	      uint64_t *ctr, const uint8_t key[16]);

/**
 * core_input() - handle one frame from the guest
 * @c:		core
 * @frame:	frame, starting with the vnet header (conf.vnet_hdr_len bytes)
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Context: the owning shard. Malformed frames are counted and dropped.
 */
void core_input(struct core *c, struct pkt_view frame, uint64_t now_ns,
		struct fx *fx);

/**
 * core_pass_on() - give the frame being handled to another shard
 * @c:	core
 * @to:	shard index, or -1: the next shard, unless every shard has seen
 *	the frame already (then the caller handles it here, as the owner
 *	of last resort: opens the flow, or answers with an RST)
 *
 * A frame for a flow this shard does not own (the guest's queue choice
 * can change: a rehash after a retransmission timeout) goes round the
 * shards until its owner takes it; services that live on one shard (DNS)
 * go straight there. The host reads @c->pass_to after core_input() and
 * copies the frame into that shard's mailbox.
 *
 * Return: true if the frame was passed on: handle nothing more of it
 */
bool core_pass_on(struct core *c, int to);

/**
 * core_flush() - emit what a batch of inputs left due (coalesced ACKs)
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void core_flush(struct core *c, uint64_t now_ns, struct fx *fx);

/**
 * core_set_edge() - what the edge's guest accepts changed (vhost-user:
 * the features a new guest negotiated)
 * @c:			core
 * @vnet_hdr_len:	virtio-net header bytes: 0, 10 or 12
 * @csum_offload:	the guest takes partial checksums
 * @gso_max:		largest TCP payload per frame toward the guest, or 0
 * @uso:		the guest takes UDP GSO frames (needs @csum_offload)
 * @uso_in:		the guest may send UDP GSO frames (needs @vnet_hdr_len)
 *
 * Return: 0, or -EINVAL for a combination core_init() would refuse
 */
int core_set_edge(struct core *c, unsigned vnet_hdr_len, bool csum_offload,
		  uint32_t gso_max, bool uso, bool uso_in);

/**
 * core_guest_gone() - the guest behind the edge went away (a VM stopped,
 * a socket peer disconnected, another peer took over a datagram edge)
 * @c:		core
 * @fx:		effects out: host sockets reset or closed
 *
 * Every TCP flow is reset toward the host, every datagram flow forgotten,
 * and the guest's MAC address is forgotten until the next guest speaks.
 * Published ports stay.
 *
 * Return: true when done, false if @fx filled up first (the host carries
 * out the intents and calls again)
 */
bool core_guest_gone(struct core *c, struct fx *fx);

/**
 * core_timer() - run expired deadlines (retransmission, probes, give-up)
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Return: the next deadline, or UINT64_MAX if none is armed
 */
uint64_t core_timer(struct core *c, uint64_t now_ns, struct fx *fx);

#define CTR_INC(c, id) ctr_add(&(c)->ctr[CTR_##id], 1)
#define CTR_ADD(c, id, n) ctr_add(&(c)->ctr[CTR_##id], (n))

/* Internal to core/: frame building shared by the protocol modules */

/**
 * core_frame_begin() - start a frame toward the guest in the next slot
 * @c:		core
 * @fx:		effects batch
 * @ethertype:	host-order ethertype
 * @dst_mac:	destination MAC, NULL for the guest's
 *
 * Writes a zero vnet header and the Ethernet header.
 *
 * Return: pointer to the L3 header in the slot, or NULL if no slot is free
 *	   (counted)
 */
uint8_t *core_frame_begin(struct core *c, struct fx *fx, uint16_t ethertype,
			  const uint8_t *dst_mac);

/**
 * core_l3_off() - offset of the L3 header in a frame slot
 * @c:	core
 *
 * Return: vnet header length + Ethernet header length
 */
static inline size_t core_l3_off(const struct core *c)
{
	return c->conf.vnet_hdr_len + ETH_HLEN;
}

/**
 * ip4_build_hdr() - write an IPv4 header (checksum included)
 * @c:		core (for the identification counter)
 * @p:		where to write IP4_HLEN bytes
 * @proto:	protocol number
 * @saddr_be:	source address
 * @daddr_be:	destination address
 * @payload_len: bytes after the IP header
 */
void ip4_build_hdr(struct core *c, uint8_t *p, uint8_t proto, uint32_t saddr_be,
		   uint32_t daddr_be, size_t payload_len);

/**
 * vnet_hdr_write() - encode a vnet header at the start of a frame slot
 * @c:	core (header length)
 * @p:	slot start
 * @h:	fields
 */
void vnet_hdr_write(const struct core *c, uint8_t *p, const struct vnet_hdr *h);

/**
 * vnet_hdr_parse() - decode the vnet header of a received frame
 * @c:	core (header length)
 * @v:	frame view, advanced past the header
 * @h:	decoded fields
 *
 * Return: 0, or -1 if the frame is too short or the header is invalid
 */
int vnet_hdr_parse(const struct core *c, struct pkt_view *v,
		   struct vnet_hdr *h);

void arp_input(struct core *c, struct pkt_view v, struct fx *fx);
void ip4_input(struct core *c, struct pkt_view v, const struct vnet_hdr *vh,
	       uint64_t now_ns, struct fx *fx);
void icmp4_input(struct core *c, const uint8_t *iph, struct pkt_view v,
		 uint64_t now_ns, struct fx *fx);

/**
 * ip6_input() - validate an IPv6 packet from the guest and dispatch it
 * @c:		core (conf.ipv6 on)
 * @v:		packet (after the Ethernet header); trailing padding allowed
 * @vh:		the frame's vnet header
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void ip6_input(struct core *c, struct pkt_view v, const struct vnet_hdr *vh,
	       uint64_t now_ns, struct fx *fx);

/**
 * icmp6_input() - handle an ICMPv6 message from the guest (ndp.c)
 * @c:		core
 * @iph:	the packet's IPv6 header (validated)
 * @v:		ICMPv6 message, after any extension headers
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void icmp6_input(struct core *c, const uint8_t *iph, struct pkt_view v,
		 uint64_t now_ns, struct fx *fx);

/**
 * ip6_frame_begin() - start an IPv6 frame toward the guest in the next slot
 * @c:		core
 * @fx:		effects batch
 * @daddr:	IPv6 destination: multicast goes to 33:33 + its last four
 *		bytes (ff02::1: 33:33:00:00:00:01), unicast to the guest's MAC
 * @payload_len: bytes after the IPv6 header; the caller has checked that
 *		they fit a slot (ASSERTed)
 *
 * Return: pointer to the IPv6 header in the slot, or NULL if no slot is
 *	   free (counted)
 */
uint8_t *ip6_frame_begin(struct core *c, struct fx *fx, const uint8_t *daddr,
			 size_t payload_len);

/**
 * ip6_build_hdr() - write an IPv6 header (no extension headers)
 * @p:		where to write IP6_HLEN bytes
 * @proto:	next header
 * @saddr:	source address, 16 bytes
 * @daddr:	destination address, 16 bytes
 * @payload_len: bytes after the header (at most 65535)
 * @hop_limit:	hop limit (255 for NDP)
 */
void ip6_build_hdr(uint8_t *p, uint8_t proto, const uint8_t *saddr,
		   const uint8_t *daddr, size_t payload_len, uint8_t hop_limit);

#define FLOW_HASH_BUCKET UINT32_MAX

/**
 * flow_tuple_hash() - keyed hash of a tuple (buckets and ISNs)
 * @key:	siphash key
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 * @tag:	FLOW_HASH_BUCKET for a TCP bucket; else appended to the
 *		input: TCP ISNs use 0 (guest-opened flows) and 1 (published
 *		ports), datagram buckets 0 (UDP) and 1 (ICMP echo)
 *
 * Shared by the TCP (flow.c) and datagram (udp.c) tables. IPv4 tuples
 * hash their 4-byte addresses and the ports, as before addresses grew (so
 * IPv4 TCP buckets and ISNs are unchanged), IPv6 tuples their 16-byte
 * addresses and the ports.
 *
 * Return: 64-bit hash
 */
uint64_t flow_tuple_hash(const uint8_t *key, const uint8_t *gaddr,
			 uint16_t gport, const uint8_t *raddr, uint16_t rport,
			 uint32_t tag);

/**
 * core_dst_map() - where host sockets go for a destination the guest named
 * @c:		core
 * @daddr:	destination as the guest sees it (ADDR_LEN bytes)
 * @target:	out: the address to connect to: host loopback (127.0.0.1,
 *		or ::1 for IPv6) for conf.map_lo4_be and conf.map_lo6, and
 *		with conf.map_gw_to_loopback for the gateway's addresses
 *		(conf.gw4_be, conf.gw6, conf.gw6_ll); the host's address
 *		(conf.host4_be, conf.host6) for conf.map_guest4_be and
 *		conf.map_guest6; else @daddr
 *
 * Return: false if @daddr is the gateway, conf.map_gw_to_loopback is off
 *	   and the gateway is not a real one (conf.gw_real): refuse; else
 *	   true
 */
bool core_dst_map(const struct core *c, const uint8_t *daddr, uint8_t *target);

/**
 * core_flow_target() - where a flow the guest opens to @daddr port @dport
 * goes on the host, checked as the guest's own SYN or datagram is: a
 * migration stream's flow must be one the guest could have opened here
 * @c:		core
 * @proto:	IPPROTO_TCP_ or IPPROTO_UDP_
 * @gaddr:	the guest's side (ADDR_LEN bytes)
 * @daddr:	the destination the guest named
 * @dport:	its port
 * @target:	out: the host address the socket goes to (core_dst_map(),
 *		or the upstream resolver for DNS over TCP)
 *
 * Return: NULL, or why no guest could open such a flow
 */
const char *core_flow_target(const struct core *c, int proto,
			     const uint8_t *gaddr, const uint8_t *daddr,
			     uint16_t dport, uint8_t *target);
bool ip4_addr_unusable(const struct core *c, uint32_t a_be);
bool ip6_addrs_bad(const struct core *c, const uint8_t *s, const uint8_t *d);

/**
 * core_guest_addr() - the guest's address a host client of a family reaches
 * @c:		core
 * @gaddr:	the address a published port names (NULL: the guest's own
 *		of the client's family)
 * @src:	the client's address (v4-mapped for IPv4)
 * @g:		out: the guest's IPv4 (v4-mapped) or IPv6 address
 *
 * Return: false, counted as IP6_DROP_ADDR, for an IPv6 client with IPv6
 * off, or a named address of the other family than the client's
 */
static inline bool core_guest_addr(struct core *c, const uint8_t *gaddr,
				   const uint8_t *src, uint8_t *g)
{
	if (gaddr) {
		if (addr_is4(gaddr) != addr_is4(src)) {
			CTR_INC(c, IP6_DROP_ADDR);
			return false;
		}
		memcpy(g, gaddr, ADDR_LEN);
		return true;
	}
	if (addr_is4(src)) {
		addr_from4(g, c->conf.guest4_be);
		return true;
	}
	if (!c->conf.ipv6) {
		CTR_INC(c, IP6_DROP_ADDR);
		return false;
	}
	memcpy(g, c->conf.guest6, ADDR_LEN);
	return true;
}

/**
 * core_addr_is_dns() - is an address the DNS forwarder's, in either family?
 * @c:	core
 * @a:	address (ADDR_LEN bytes)
 *
 * Return: true for conf.dns4_be (v4-mapped) and, with conf.ipv6, for
 *	   conf.dns6; never when the forwarder is off (both zero)
 */
static inline bool core_addr_is_dns(const struct core *c, const uint8_t *a)
{
	static const uint8_t none[ADDR_LEN];

	if (addr_is4(a))
		return c->conf.dns4_be && addr_to4(a) == c->conf.dns4_be;
	return c->conf.ipv6 && !addr_eq(c->conf.dns6, none) &&
	       addr_eq(a, c->conf.dns6);
}

/**
 * core_dns_dst() - is a destination the DNS forwarder's?
 * @c:		core
 * @a:		address (ADDR_LEN bytes)
 * @dport:	destination port (host order)
 *
 * Return: core_addr_is_dns(), but with conf.dns4_shared only for port 53
 *	   of the IPv4 address (the rest of that address is the mapping's)
 */
static inline bool core_dns_dst(const struct core *c, const uint8_t *a,
				uint16_t dport)
{
	if (!core_addr_is_dns(c, a))
		return false;
	return !(c->conf.dns4_shared && addr_is4(a)) || dport == 53;
}

/**
 * icmp6_begin() - start an ICMPv6 message to the guest in a frame slot
 * @c:		core
 * @fx:		effects batch
 * @daddr:	destination address (the guest's, or a multicast group)
 * @len:	message length (ICMPv6 header included)
 * @type:	ICMPv6 type
 * @code:	ICMPv6 code
 *
 * Return: the message, behind the IPv6 header, with @type and @code set,
 *	   for icmp6_send() once it is written; NULL if no slot is free
 */
uint8_t *icmp6_begin(struct core *c, struct fx *fx, const uint8_t *daddr,
		     size_t len, uint8_t type, uint8_t code);

/**
 * icmp6_send() - finish an ICMPv6 message from icmp6_begin() and queue it
 * @c:		core
 * @fx:		effects batch
 * @m:		the message icmp6_begin() returned, written
 * @saddr:	source address
 * @daddr:	destination address (as given to icmp6_begin())
 * @hop_limit:	hop limit
 * @len:	message length (as given to icmp6_begin())
 *
 * Writes the IPv6 header and the complete checksum (ICMPv6 has no
 * offload here).
 */
void icmp6_send(struct core *c, struct fx *fx, uint8_t *m, const uint8_t *saddr,
		const uint8_t *daddr, uint8_t hop_limit, size_t len);

/**
 * icmp6_send_unreach() - tell the guest an IPv6 destination is unreachable
 * @c:		core
 * @code:	ICMPv6 code (0 no route, 1 administratively prohibited,
 *		3 address unreachable, 4 port unreachable)
 * @orig:	the guest's original IPv6 packet (header first)
 * @orig_len:	bytes of @orig available (at least IP6_HLEN; as much as fits
 *		the IPv6 minimum MTU is quoted, RFC 4443 2.4 (c))
 * @fx:		effects out
 */
void icmp6_send_unreach(struct core *c, uint8_t code, const uint8_t *orig,
			size_t orig_len, struct fx *fx);

/**
 * icmp_quote_build() - rebuild a guest packet's headers for an error to quote
 * @q:		out: IP6_HLEN + 8 bytes
 * @proto:	IPPROTO_TCP_ or IPPROTO_UDP_
 * @gaddr:	the guest's address (ADDR_LEN bytes, v4-mapped for IPv4)
 * @raddr:	the address it sent to, the same family
 * @gport:	the guest's port
 * @rport:	the port it sent to
 * @l4len:	the transport length the IP header claims
 *
 * For when the packet itself is not at hand: an IPv4 (no options, no
 * checksum) or IPv6 header, hop limit 64, then the two ports. The 4
 * bytes after the ports are zero, for the caller (TCP: the sequence
 * number; UDP: length and checksum).
 *
 * Return: bytes of @q to quote: 28 (IPv4) or 48 (IPv6)
 */
size_t icmp_quote_build(uint8_t *q, uint8_t proto, const uint8_t *gaddr,
			const uint8_t *raddr, uint16_t gport, uint16_t rport,
			uint16_t l4len);

/**
 * icmp4_send_unreach() - tell the guest a destination is unreachable
 * @c:		core
 * @code:	ICMP code (1 host, 3 port, 13 administratively prohibited)
 * @orig:	the guest's original IPv4 header followed by at least 8 bytes
 * @orig_len:	bytes of @orig available
 * @fx:		effects out
 */
void icmp4_send_unreach(struct core *c, uint8_t code, const uint8_t *orig,
			size_t orig_len, struct fx *fx);

#endif /* SLIPWAY_CORE_H */
