/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp6.h - DHCPv6 server for the one guest (RFC 8415 subset) */
#ifndef SLIPWAY_DHCP6_H
#define SLIPWAY_DHCP6_H

#include "core.h"

#define DHCP6_CLIENT_PORT 546
#define DHCP6_SERVER_PORT 547

/**
 * dhcp6_for_us() - is a UDP datagram from the guest a message to our server?
 * @c:		core (our addresses)
 * @ip6h:	the datagram's IPv6 header (validated)
 * @dport:	its UDP destination port
 *
 * Port 547 at All_DHCP_Relay_Agents_and_Servers (ff02::1:2) or at one of
 * the gateway's addresses (link-local or in the prefix). Whether the
 * server is on (conf.dhcp6) is dhcp6_input()'s business: with it off the
 * message is still for us, and counted as ignored.
 *
 * Return: true if the payload should go to dhcp6_input()
 */
bool dhcp6_for_us(const struct core *c, const uint8_t *ip6h, uint16_t dport);

/**
 * dhcp6_input() - answer a DHCPv6 client message
 * @c:		core (conf.guest6, conf.dns6, conf.dhcp4.search; counters)
 * @ip6h:	the request's IPv6 header (validated; dhcp6_for_us() said yes)
 * @udp_payload: the UDP payload (the DHCPv6 message), a loan
 * @fx:		effects out: at most one frame, the ADVERTISE or REPLY
 *		from port 547 of the gateway (link-local, or the address
 *		the client sent to) to port 546 of the client's source
 *
 * Handles SOLICIT (ADVERTISE, or REPLY with Rapid Commit), REQUEST, RENEW,
 * REBIND (REPLY with conf.guest6 in the first IA_NA), CONFIRM (REPLY:
 * Success or NotOnLink), RELEASE, DECLINE (REPLY: Success) and
 * INFORMATION-REQUEST (REPLY with DNS and the search list). Malformed
 * messages are counted (DHCP6_DROP_BAD) and dropped, messages not for us
 * counted as DHCP6_DROP_IGNORED.
 *
 * Context: the owning shard (any shard: the server keeps no state).
 */
void dhcp6_input(struct core *c, const uint8_t *ip6h,
		 struct pkt_view udp_payload, struct fx *fx);

/**
 * dhcp6_conf_bad() - check the DHCPv6 part of a configuration
 * @conf:	configuration with ipv6 on
 *
 * With conf->dhcp6 on, the address to hand out (conf->guest6) must be in
 * conf->prefix6 (the on-link /64, so the guest can reach it without a
 * route) and be none of the gateway's addresses, nor the DNS address, nor
 * the prefix's subnet-router anycast address (interface identifier 0).
 *
 * Return: true if the configuration is unusable
 */
bool dhcp6_conf_bad(const struct core_conf *conf);

#endif /* SLIPWAY_DHCP6_H */
