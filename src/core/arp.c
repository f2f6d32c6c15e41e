/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arp.c - answer the guest's ARP requests */

#include "core.h"

#define ARP_LEN 28

/**
 * arp_input() - answer an ARP request for any address but the guest's own
 * @c:	core
 * @v:	ARP packet (after the Ethernet header)
 * @fx:	effects out
 *
 * Every address in the guest's view other than its own lives behind the
 * gateway, so we answer for all of them with our MAC. Requests for the
 * guest's own address (duplicate address probes) get no answer.
 */
void arp_input(struct core *c, struct pkt_view v, struct fx *fx)
{
	const uint8_t *a = pkt_pull(&v, ARP_LEN);
	uint8_t *r;

	if (!a || rd16(a) != 1 || rd16(a + 2) != ETHERTYPE_IP4 || a[4] != 6 ||
	    a[5] != 4) {
		CTR_INC(c, ARP_DROP_BAD);
		return;
	}
	if (rd16(a + 6) != 1) { /* not a request */
		CTR_INC(c, ARP_IGNORED);
		return;
	}
	/* target == sender: gratuitous ARP; target == guest, or the
	 * address DHCP hands out (slirp4netns mode: not the guest's
	 * configured one): DAD probe */
	if (!memcmp(a + 24, a + 14, 4) ||
	    !memcmp(a + 24, &c->conf.guest4_be, 4) ||
	    (c->conf.dhcp && !memcmp(a + 24, &c->conf.dhcp4.addr_be, 4))) {
		CTR_INC(c, ARP_IGNORED);
		return;
	}
	r = core_frame_begin(c, fx, ETHERTYPE_ARP, a + 8);
	if (!r)
		return;
	wr16(r, 1);
	wr16(r + 2, ETHERTYPE_IP4);
	r[4] = 6;
	r[5] = 4;
	wr16(r + 6, 2);
	memcpy(r + 8, c->conf.our_mac, 6);
	memcpy(r + 14, a + 24, 4);
	memcpy(r + 18, a + 8, 6);
	memcpy(r + 24, a + 14, 4);
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + ARP_LEN));
	CTR_INC(c, ARP_REPLIES);
}
