/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp4.h - DHCPv4 server for the one guest (RFC 2131, RFC 2132) */
#ifndef SLIPWAY_DHCP4_H
#define SLIPWAY_DHCP4_H

#include "core.h"

#define DHCP4_SERVER_PORT 67
#define DHCP4_CLIENT_PORT 68

/**
 * dhcp4_input() - answer a DHCPv4 client message
 * @c:		core (conf.dhcp4 says what to offer; counters; frames)
 * @iph:	the request's IPv4 header (source may be 0.0.0.0,
 *		destination 255.255.255.255)
 * @msg:	the UDP payload (a BOOTP message)
 * @fx:		effects out: the reply, sent with udp4_send() from
 *		conf.dhcp4.server_be:67 to the client (port 68)
 *
 * Handles DISCOVER (OFFER), REQUEST (ACK, or NAK for another address),
 * RELEASE and DECLINE (no reply), INFORM (ACK without a lease).
 * Malformed messages are counted (DHCP4_DROP_BAD) and dropped.
 */
void dhcp4_input(struct core *c, const uint8_t *iph, struct pkt_view msg,
		 struct fx *fx);

#endif /* SLIPWAY_DHCP4_H */
