/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icmp.c - ICMP: echo for the gateway address, unreachable toward the guest
 *
 * ICMPv4 here entirely; of ICMPv6 only the destination unreachable errors
 * (RFC 4443 3.1): NDP and echo to our addresses live in ndp.c, echo to
 * other hosts in udp.c.
 */

#include "core.h"
#include "csum.h"
#include "udp.h"

#define ICMP_ECHOREPLY 0
#define ICMP_UNREACH 3
#define ICMP_ECHO 8
#define ICMP6_DST_UNREACH 1
#define ICMP6_ERR_MAX 1280 /* IPv6 minimum MTU: an error never exceeds it */
#define ICMP6_HOP_LIMIT 64

/**
 * icmp4_input() - answer echo requests sent to the gateway address
 * @c:		core
 * @iph:	the packet's IPv4 header (validated)
 * @v:		ICMP message
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Echo to other addresses goes out on a host ping socket (udp.c): we
 * never forge a reply for a host we did not ask.
 */
void icmp4_input(struct core *c, const uint8_t *iph, struct pkt_view v,
		 uint64_t now_ns, struct fx *fx)
{
	uint32_t saddr, daddr;
	uint8_t *ip, *m;

	if (v.len < 8) {
		CTR_INC(c, ICMP4_DROP_BAD);
		return;
	}
	memcpy(&saddr, iph + 12, 4);
	memcpy(&daddr, iph + 16, 4);
	if (v.p[0] != ICMP_ECHO || v.p[1] != 0) {
		CTR_INC(c, ICMP4_DROP_UNSUPPORTED);
		return;
	}
	if (daddr != c->conf.gw4_be) {
		icmp_echo_out(c, iph, v, now_ns, fx);
		return;
	}
	if (core_l3_off(c) + IP4_HLEN + v.len > fx->slot_size) {
		CTR_INC(c, ICMP4_DROP_BAD);
		return;
	}
	ip = core_frame_begin(c, fx, ETHERTYPE_IP4, NULL);
	if (!ip)
		return;
	m = ip + IP4_HLEN;
	memcpy(m, v.p, v.len);
	m[0] = ICMP_ECHOREPLY;
	m[1] = 0;
	m[2] = m[3] = 0;
	wr16(m + 2, (uint16_t)~csum_fold(csum_partial(m, v.len, 0)));
	ip4_build_hdr(c, ip, IPPROTO_ICMP_, daddr, saddr, v.len);
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + IP4_HLEN + v.len));
	CTR_INC(c, ICMP4_ECHO_REPLIES);
}

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
 * Return: bytes of @q to quote: 28 (IPv4) or 48 (IPv6); the 4 after the
 *	   ports are zero, for the caller
 */
size_t icmp_quote_build(uint8_t *q, uint8_t proto, const uint8_t *gaddr,
			const uint8_t *raddr, uint16_t gport, uint16_t rport,
			uint16_t l4len)
{
	size_t iphlen = IP6_HLEN;

	if (!addr_is4(gaddr)) {
		ip6_build_hdr(q, proto, gaddr, raddr, l4len, 64);
	} else {
		uint32_t g = addr_to4(gaddr), r = addr_to4(raddr);

		iphlen = IP4_HLEN;
		memset(q, 0, IP4_HLEN);
		q[0] = 0x45;
		wr16(q + 2, (uint16_t)(IP4_HLEN + l4len));
		q[8] = 64;
		q[9] = proto;
		memcpy(q + 12, &g, 4);
		memcpy(q + 16, &r, 4);
	}
	wr16(q + iphlen, gport);
	wr16(q + iphlen + 2, rport);
	memset(q + iphlen + 4, 0, 4);
	return iphlen + 8;
}

/**
 * icmp4_send_unreach() - tell the guest a destination is unreachable
 * @c:		core
 * @code:	ICMP code (1 host, 3 port, 13 administratively prohibited)
 * @orig:	the guest's original IPv4 header followed by at least 8 bytes
 * @orig_len:	bytes of @orig available
 * @fx:		effects out
 */
void icmp4_send_unreach(struct core *c, uint8_t code, const uint8_t *orig,
			size_t orig_len, struct fx *fx)
{
	size_t ihl = (size_t)(orig[0] & 0xf) * 4, n = MIN(orig_len, ihl + 8);
	uint32_t saddr, daddr;
	uint8_t *ip, *m;

	memcpy(&saddr, orig + 12, 4);
	memcpy(&daddr, orig + 16, 4);
	ip = core_frame_begin(c, fx, ETHERTYPE_IP4, NULL);
	if (!ip)
		return;
	m = ip + IP4_HLEN;
	m[0] = ICMP_UNREACH;
	m[1] = code;
	memset(m + 2, 0, 6);
	memcpy(m + 8, orig, n);
	wr16(m + 2, (uint16_t)~csum_fold(csum_partial(m, 8 + n, 0)));
	/* from the address the guest tried to reach */
	ip4_build_hdr(c, ip, IPPROTO_ICMP_, daddr, saddr, 8 + n);
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + IP4_HLEN + 8 + n));
	CTR_INC(c, ICMP4_UNREACH_SENT);
}

/**
 * icmp6_begin() - start an ICMPv6 message to the guest in a frame slot
 * @c:		core
 * @fx:		effects batch
 * @daddr:	destination address
 * @len:	message length (ICMPv6 header included)
 * @type:	ICMPv6 type
 * @code:	ICMPv6 code
 *
 * Return: the message, behind the IPv6 header, with @type and @code set;
 *	   NULL if no slot is free (counted)
 */
uint8_t *icmp6_begin(struct core *c, struct fx *fx, const uint8_t *daddr,
		     size_t len, uint8_t type, uint8_t code)
{
	uint8_t *ip = ip6_frame_begin(c, fx, daddr, len), *m;

	if (!ip)
		return NULL;
	m = ip + IP6_HLEN;
	m[0] = type;
	m[1] = code;
	return m;
}

/**
 * icmp6_send() - finish an ICMPv6 message from icmp6_begin() and queue it
 * @c:		core
 * @fx:		effects batch
 * @m:		the message, written
 * @saddr:	source address
 * @daddr:	destination address
 * @hop_limit:	hop limit
 * @len:	message length
 *
 * Writes the IPv6 header and the complete checksum.
 */
void icmp6_send(struct core *c, struct fx *fx, uint8_t *m, const uint8_t *saddr,
		const uint8_t *daddr, uint8_t hop_limit, size_t len)
{
	uint32_t sum;

	ip6_build_hdr(m - IP6_HLEN, IPPROTO_ICMPV6_, saddr, daddr, len,
		      hop_limit);
	m[2] = m[3] = 0;
	sum = csum_pseudo6(saddr, daddr, IPPROTO_ICMPV6_, (uint32_t)len);
	wr16(m + 2, (uint16_t)~csum_fold(csum_partial(m, len, sum)));
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + IP6_HLEN + len));
}

/**
 * icmp6_send_unreach() - tell the guest an IPv6 destination is unreachable
 * @c:		core
 * @code:	ICMPv6 code
 * @orig:	the guest's original IPv6 packet, header first
 * @orig_len:	bytes of @orig available (at least IP6_HLEN)
 * @fx:		effects out
 *
 * The error comes from the address the guest tried to reach and quotes as
 * much of the packet as fits in 1280 bytes. The checksum is complete
 * (ICMPv6 has no offload here).
 */
void icmp6_send_unreach(struct core *c, uint8_t code, const uint8_t *orig,
			size_t orig_len, struct fx *fx)
{
	size_t n = MIN(orig_len, (size_t)ICMP6_ERR_MAX - IP6_HLEN - 8);
	uint8_t saddr[ADDR_LEN], daddr[ADDR_LEN], *m;

	ASSERT(orig_len >= IP6_HLEN);
	n = MIN(n, fx->slot_size - core_l3_off(c) - IP6_HLEN - 8);
	memcpy(saddr, orig + 8, ADDR_LEN);
	memcpy(daddr, orig + 24, ADDR_LEN);
	m = icmp6_begin(c, fx, saddr, 8 + n, ICMP6_DST_UNREACH, code);
	if (!m)
		return;
	memset(m + 2, 0, 6);
	memcpy(m + 8, orig, n);
	icmp6_send(c, fx, m, daddr, saddr, ICMP6_HOP_LIMIT, 8 + n);
	CTR_INC(c, ICMP6_UNREACH_SENT);
}
