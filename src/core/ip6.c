/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ip6.c - IPv6 input validation, extension header walk, header building
 *
 * All of it runs only with conf.ipv6 on (core_input() dispatches here).
 * After the extension headers, TCP and UDP go to tcp.c and udp.c, which
 * serve both families; ICMPv6 goes to ndp.c, except echo requests for
 * hosts other than ours, which go out on ping sockets like ICMP echo
 * (udp.c). TCP, UDP and outgoing echo need a usable unicast destination
 * and source (ip6_flow_addrs_bad()); NDP needs link-local and multicast
 * addresses, and ndp.c checks those itself.
 */

#include "core.h"
#include "dhcp6.h"
#include "tcp.h"
#include "udp.h"

#define IP6_NH_HOPOPTS 0
#define IP6_NH_ROUTING 43
#define IP6_NH_FRAGMENT 44
#define IP6_NH_NONE 59
#define IP6_NH_DSTOPTS 60

#define ICMP6_ECHO_REQUEST 128

/* extension headers skipped before giving up: RFC 8200 allows each once
 * (destination options twice), so a longer chain is not an honest one */
#define IP6_MAX_EXT_HDRS 8

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
		   const uint8_t *daddr, size_t payload_len, uint8_t hop_limit)
{
	p[0] = 0x60; /* version 6, traffic class 0, flow label 0 */
	p[1] = p[2] = p[3] = 0;
	wr16(p + 4, (uint16_t)payload_len);
	p[6] = proto;
	p[7] = hop_limit;
	memcpy(p + 8, saddr, 16);
	memcpy(p + 24, daddr, 16);
}

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
			 size_t payload_len)
{
	uint8_t mac[ETH_ALEN] = { 0x33, 0x33 };

	ASSERT(core_l3_off(c) + IP6_HLEN + payload_len <= fx->slot_size &&
	       payload_len <= 65535);
	if (daddr[0] != 0xff) /* unicast: the guest's MAC */
		return core_frame_begin(c, fx, ETHERTYPE_IP6, NULL);
	memcpy(mac + 2, daddr + 12, 4); /* RFC 2464 section 7 */
	return core_frame_begin(c, fx, ETHERTYPE_IP6, mac);
}

/**
 * ip6_dhcp6() - a UDP datagram for the DHCPv6 server?
 * @c:		core
 * @ip:		IPv6 header (validated)
 * @v:		UDP header and payload
 * @fx:		effects out
 *
 * Datagrams dhcp6_for_us() accepts (to ff02::1:2 or the gateway, port
 * 547) go to dhcp6_input() with a UDP length the packet holds; the rest
 * are flows (udp_input()).
 *
 * Return: true if the datagram was the server's (handled or dropped)
 */
static bool ip6_dhcp6(struct core *c, const uint8_t *ip, struct pkt_view v,
		      struct fx *fx)
{
	const uint8_t *uh = v.len >= UDP_HLEN ? v.p : NULL;

	if (!uh || !dhcp6_for_us(c, ip, rd16(uh + 2)))
		return false;
	pkt_pull(&v, UDP_HLEN);
	if (rd16(uh + 4) < UDP_HLEN || pkt_trim(&v, rd16(uh + 4) - UDP_HLEN)) {
		CTR_INC(c, UDP_DROP_BAD_HDR);
		return true;
	}
	dhcp6_input(c, ip, v, fx);
	return true;
}

/**
 * ip6_is_ours() - is an address one of the gateway's own?
 * @c:	core
 * @a:	address, 16 bytes
 *
 * Return: true for the gateway's link-local and ULA addresses and the DNS
 *	   address (ndp.c answers echo requests to these)
 */
static bool ip6_is_ours(const struct core *c, const uint8_t *a)
{
	return addr_eq(a, c->conf.gw6_ll) || addr_eq(a, c->conf.gw6) ||
	       core_addr_is_dns(c, a);
}

/**
 * ip6_addrs_bad() - may a flow have these addresses?
 * @c:		core
 * @s:		source (the guest's side)
 * @d:		destination
 *
 * The destination must be unicast and routable by the host: not ::, not
 * ::1 (host loopback is reached through the gateway's addresses only,
 * which --no-map-gw turns off), not v4-mapped (that would be an IPv4
 * flow in disguise, and a way around the gateway rule), not multicast,
 * and not link-local unless it is the gateway's (fe80::/10 addresses of
 * the guest's link are nobody's but ours, as are the mapped addresses of
 * conf.map_lo6 and conf.map_guest6), nor conf.quiet6. The source must be unicast
 * and not ::, ::1 or v4-mapped either (a v4-mapped source would key an
 * IPv4 flow).
 *
 * Return: true if no flow may have them
 */
bool ip6_addrs_bad(const struct core *c, const uint8_t *s, const uint8_t *d)
{
	static const uint8_t lo[16] = { [15] = 1 }, unspec[16];

	if (addr_eq(d, unspec) || addr_eq(d, lo) || addr_is4(d) ||
	    d[0] == 0xff ||
	    (!addr_eq(c->conf.quiet6, unspec) && addr_eq(d, c->conf.quiet6)) ||
	    (d[0] == 0xfe && (d[1] & 0xc0) == 0x80 &&
	     !addr_eq(d, c->conf.gw6_ll) && !addr_eq(d, c->conf.map_lo6) &&
	     !addr_eq(d, c->conf.map_guest6)))
		return true;
	return addr_eq(s, unspec) || addr_eq(s, lo) || addr_is4(s) ||
	       s[0] == 0xff;
}

/**
 * ip6_flow_addrs_bad() - may a packet's addresses open or use a flow?
 * @c:		core
 * @ip:		IPv6 header
 *
 * Return: true if the packet must be dropped (ip6_addrs_bad())
 */
static bool ip6_flow_addrs_bad(const struct core *c, const uint8_t *ip)
{
	return ip6_addrs_bad(c, ip + 8, ip + 24);
}

/**
 * ip6_input() - validate an IPv6 packet from the guest and dispatch it
 * @c:		core (conf.ipv6 on)
 * @v:		packet (after the Ethernet header); trailing padding allowed
 * @vh:		the frame's vnet header
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Checks version, payload length against the frame, a hop limit other than
 * 0 (no sender may emit one) and a source that is not multicast. Skips
 * hop-by-hop (first only), routing (segments left 0 only: we forward
 * nothing) and destination options headers, at most IP6_MAX_EXT_HDRS of
 * them; fragments are dropped. Options inside them are not interpreted:
 * none we know needs acting on. The payload length counts a TSO frame's
 * whole payload (the guest's super-frames arrive as one packet), and its
 * partial checksum is never verified (docs/design.md).
 *
 * Packets to the DNS address go to shard 0, where the forwarder lives
 * (the twin of the IPv4 rule in ip4_input()).
 */
void ip6_input(struct core *c, struct pkt_view v, const struct vnet_hdr *vh,
	       uint64_t now_ns, struct fx *fx)
{
	const uint8_t *ip = v.p, *x;
	unsigned n;
	uint8_t nh;

	if (v.len < IP6_HLEN || (ip[0] >> 4) != 6 || ip[7] == 0 ||
	    ip[8] == 0xff) {
		CTR_INC(c, IP6_DROP_BAD_HDR);
		return;
	}
	pkt_pull(&v, IP6_HLEN);
	if (pkt_trim(&v, rd16(ip + 4))) {
		CTR_INC(c, IP6_DROP_BAD_LEN);
		return;
	}

	/* the DNS forwarder lives on shard 0 (UDP and TCP) */
	if (core_addr_is_dns(c, ip + 24) && core_pass_on(c, 0))
		return;

	nh = ip[6];
	for (n = 0;; n++) {
		switch (nh) {
		case IPPROTO_ICMPV6_:
			if (v.len >= 8 && v.p[0] == ICMP6_ECHO_REQUEST &&
			    v.p[1] == 0 && ip[24] != 0xff &&
			    !ip6_is_ours(c, ip + 24)) {
				/* echo to another host: a ping socket */
				if (ip6_flow_addrs_bad(c, ip))
					CTR_INC(c, IP6_DROP_ADDR);
				else
					icmp_echo_out(c, ip, v, now_ns, fx);
				return;
			}
			icmp6_input(c, ip, v, now_ns, fx);
			return;
		case IPPROTO_TCP_:
		case IPPROTO_UDP_:
			if (nh == IPPROTO_UDP_ && ip6_dhcp6(c, ip, v, fx))
				return;
			if (ip6_flow_addrs_bad(c, ip)) {
				CTR_INC(c, IP6_DROP_ADDR);
				return;
			}
			if (nh == IPPROTO_TCP_)
				tcp_input(c, ip, v, now_ns, fx);
			else
				udp_input(c, ip, v, vh, now_ns, fx);
			return;
		case IP6_NH_FRAGMENT:
			CTR_INC(c, IP6_DROP_FRAG);
			return;
		case IP6_NH_HOPOPTS:
		case IP6_NH_ROUTING:
		case IP6_NH_DSTOPTS:
			break;
		default: /* no next header, others */
			CTR_INC(c, IP6_DROP_PROTO);
			return;
		}
		if (n >= IP6_MAX_EXT_HDRS || (nh == IP6_NH_HOPOPTS && n != 0)) {
			CTR_INC(c, IP6_DROP_BAD_HDR);
			return;
		}
		if (v.len < 8) { /* every extension header is 8n bytes */
			CTR_INC(c, IP6_DROP_BAD_LEN);
			return;
		}
		if (nh == IP6_NH_ROUTING && v.p[3] != 0) {
			CTR_INC(c, IP6_DROP_BAD_HDR); /* segments left */
			return;
		}
		x = pkt_pull(&v, ((size_t)v.p[1] + 1) * 8);
		if (!x) {
			CTR_INC(c, IP6_DROP_BAD_LEN);
			return;
		}
		nh = x[0];
	}
}
