/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ip6.c - IPv6 input validation, extension header walk, header building
 *
 * Only ICMPv6 (NDP and echo to the gateway, ndp.c) is handled: TCP and UDP
 * over IPv6 do not exist yet and are counted as IP6_DROP_PROTO. All of it
 * runs only with conf.ipv6 on (core_input() dispatches here).
 */

#include "core.h"
#include "dhcp6.h"
#include "udp.h"

#define IP6_NH_HOPOPTS 0
#define IP6_NH_ROUTING 43
#define IP6_NH_FRAGMENT 44
#define IP6_NH_NONE 59
#define IP6_NH_DSTOPTS 60

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
 * ip6_udp_input() - a UDP datagram over IPv6: only DHCPv6 to us so far
 * @c:		core
 * @ip:		IPv6 header (validated)
 * @v:		UDP header and payload
 * @fx:		effects out
 *
 * Placeholder until UDP over IPv6 exists: datagrams dhcp6_for_us() accepts
 * go to dhcp6_input() (with a UDP length the packet holds), every other one
 * counts as IP6_DROP_PROTO as before.
 */
static void ip6_udp_input(struct core *c, const uint8_t *ip, struct pkt_view v,
			  struct fx *fx)
{
	const uint8_t *uh = v.len >= UDP_HLEN ? v.p : NULL;

	if (!uh || !dhcp6_for_us(c, ip, rd16(uh + 2))) {
		CTR_INC(c, IP6_DROP_PROTO);
		return;
	}
	pkt_pull(&v, UDP_HLEN);
	if (rd16(uh + 4) < UDP_HLEN || pkt_trim(&v, rd16(uh + 4) - UDP_HLEN)) {
		CTR_INC(c, UDP_DROP_BAD_HDR);
		return;
	}
	dhcp6_input(c, ip, v, fx);
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
 * none we know needs acting on.
 */
void ip6_input(struct core *c, struct pkt_view v, const struct vnet_hdr *vh,
	       uint64_t now_ns, struct fx *fx)
{
	const uint8_t *ip = v.p, *x;
	unsigned n;
	uint8_t nh;

	(void)vh;
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

	nh = ip[6];
	for (n = 0;; n++) {
		switch (nh) {
		case IPPROTO_ICMPV6_:
			icmp6_input(c, ip, v, now_ns, fx);
			return;
		case IPPROTO_UDP_: /* DHCPv6 only, until UDP over IPv6 */
			ip6_udp_input(c, ip, v, fx);
			return;
		case IP6_NH_FRAGMENT:
			CTR_INC(c, IP6_DROP_FRAG);
			return;
		case IP6_NH_HOPOPTS:
		case IP6_NH_ROUTING:
		case IP6_NH_DSTOPTS:
			break;
		default: /* TCP, UDP (not yet), no next header, others */
			CTR_INC(c, IP6_DROP_PROTO);
			return;
		}
		if (n >= IP6_MAX_EXT_HDRS ||
		    (nh == IP6_NH_HOPOPTS && n != 0)) {
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
