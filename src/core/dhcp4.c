/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp4.c - DHCPv4 server for the one guest (placeholder: being written) */

#include "dhcp4.h"

/**
 * dhcp4_input() - answer a DHCPv4 client message (not yet: counted)
 * @c:		core
 * @iph:	IPv4 header
 * @msg:	BOOTP message
 * @fx:		effects out
 */
void dhcp4_input(struct core *c, const uint8_t *iph, struct pkt_view msg,
		 struct fx *fx)
{
	(void)iph;
	(void)msg;
	(void)fx;
	CTR_INC(c, DHCP4_DROP_IGNORED);
}
