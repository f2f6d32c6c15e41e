/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkt.c - where a loaned frame may be split: its headers copied, its TCP
 * payload left in place */

#include "core/core.h"

size_t pkt_payload_off(const uint8_t *p, size_t len, size_t vnet_hdr_len)
{
	size_t l3 = vnet_hdr_len + ETH_HLEN, l4, doff;
	const uint8_t *ip;

	if (len < l3 + IP6_HLEN)
		return 0;
	ip = p + l3;
	switch (rd16(p + vnet_hdr_len + 12)) {
	case ETHERTYPE_IP4:
		/* version 4, TCP, neither MF nor a fragment offset */
		if ((ip[0] >> 4) != 4 || (ip[0] & 0xf) < 5 ||
		    ip[9] != IPPROTO_TCP_ || (rd16(ip + 6) & 0x3fff))
			return 0;
		l4 = l3 + (size_t)(ip[0] & 0xf) * 4;
		break;
	case ETHERTYPE_IP6:
		/* TCP right after the fixed header: no extension headers */
		if ((ip[0] >> 4) != 6 || ip[6] != IPPROTO_TCP_)
			return 0;
		l4 = l3 + IP6_HLEN;
		break;
	default:
		return 0;
	}
	if (len < l4 + TCP_HLEN)
		return 0;
	doff = (size_t)(p[l4 + 12] >> 4) * 4;
	if (doff < TCP_HLEN || len < l4 + doff)
		return 0;
	return l4 + doff;
}
