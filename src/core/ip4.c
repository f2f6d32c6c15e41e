/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ip4.c - IPv4 input validation and header building */

#include "core.h"
#include "csum.h"
#include "tcp.h"
#include "udp.h"

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
		   uint32_t daddr_be, size_t payload_len)
{
	p[0] = 0x45;
	p[1] = 0;
	wr16(p + 2, (uint16_t)(IP4_HLEN + payload_len));
	wr16(p + 4, c->ip_id++);
	wr16(p + 6, 0x4000); /* DF */
	p[8] = 64;
	p[9] = proto;
	p[10] = p[11] = 0;
	memcpy(p + 12, &saddr_be, 4);
	memcpy(p + 16, &daddr_be, 4);
	wr16(p + 10, (uint16_t)~csum_fold(csum_partial(p, IP4_HLEN, 0)));
}

/**
 * ip4_addr_unusable() - addresses no flow may use as a destination
 * @c:		core
 * @a_be:	address
 *
 * Return: true for 0.0.0.0/8, 127.0.0.0/8 (host loopback is reached only
 *	   through the gateway mapping, which --no-map-gw turns off),
 *	   multicast, broadcast, the subnet broadcast (a /31 or /32, as
 *	   pasta's model may copy from the host, has none) and
 *	   conf.quiet4_be
 */
bool ip4_addr_unusable(const struct core *c, uint32_t a_be)
{
	const uint8_t *b = (const uint8_t *)&a_be;
	const uint8_t *m = (const uint8_t *)&c->conf.mask4_be;

	if (b[0] == 0 || b[0] == 127 || b[0] >= 224)
		return true;
	if (c->conf.quiet4_be && a_be == c->conf.quiet4_be)
		return true;
	if (m[3] >= 0xfe) /* /31 and /32: no broadcast address */
		return false;
	return (a_be | c->conf.mask4_be) == 0xffffffffU;
}

/**
 * ip4_input() - validate an IPv4 packet from the guest and dispatch it
 * @c:		core
 * @v:		packet (after the Ethernet header); trailing padding allowed
 * @vh:		the frame's vnet header
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * The header checksum is verified (twenty bytes a packet, however large:
 * a damaged header must not send a flow's bytes elsewhere); the payload's
 * is not, the edge being memory, not a wire (docs/design.md).
 */
void ip4_input(struct core *c, struct pkt_view v, const struct vnet_hdr *vh,
	       uint64_t now_ns, struct fx *fx)
{
	const uint8_t *ip = v.p;
	size_t ihl, tot;
	uint32_t daddr;

	if (v.len < IP4_HLEN || (ip[0] >> 4) != 4) {
		CTR_INC(c, IP4_DROP_BAD_HDR);
		return;
	}
	ihl = (size_t)(ip[0] & 0xf) * 4;
	tot = rd16(ip + 2);
	if (ihl < IP4_HLEN || tot < ihl || tot > pkt_len(&v)) {
		CTR_INC(c, IP4_DROP_BAD_LEN);
		return;
	}
	if (csum_fold(csum_partial(ip, ihl, 0)) != 0xffff) {
		CTR_INC(c, IP4_DROP_BAD_CSUM);
		return;
	}
	if (rd16(ip + 6) & 0x3fff) { /* MF or a fragment offset */
		CTR_INC(c, IP4_DROP_FRAG);
		return;
	}
	memcpy(&daddr, ip + 16, 4);
	pkt_trim(&v, tot);
	pkt_pull(&v, ihl);
	/* DHCP: from 0.0.0.0 to the broadcast address, before the check */
	if (ip[9] == IPPROTO_UDP_ && daddr == 0xffffffffU) {
		udp_input(c, ip, v, vh, now_ns, fx);
		return;
	}
	if (ip4_addr_unusable(c, daddr)) {
		CTR_INC(c, IP4_DROP_ADDR);
		return;
	}
	/* the DNS forwarder lives on shard 0 (UDP and TCP; shared with a
	 * mapping, only its port 53: both carry the port first) */
	if (c->conf.dns4_be && daddr == c->conf.dns4_be &&
	    (!c->conf.dns4_shared ||
	     ((ip[9] == IPPROTO_TCP_ || ip[9] == IPPROTO_UDP_) && v.len >= 4 &&
	      rd16(v.p + 2) == 53)) &&
	    core_pass_on(c, 0))
		return;

	switch (ip[9]) {
	case IPPROTO_TCP_:
		tcp_input(c, ip, v, now_ns, fx);
		break;
	case IPPROTO_UDP_:
		udp_input(c, ip, v, vh, now_ns, fx);
		break;
	case IPPROTO_ICMP_:
		icmp4_input(c, ip, v, now_ns, fx);
		break;
	default:
		CTR_INC(c, IP4_DROP_PROTO);
		break;
	}
}
