/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_net.h - the guest's addressing model and the address mappings */
#ifndef SLIPWAY_CONF_NET_H
#define SLIPWAY_CONF_NET_H

#include <stdint.h>

#include "cli/conf.h"
#include "core/core.h"

/**
 * conf_net_setup() - apply the addressing model and resolve the mappings
 * @c:		configuration, parsed (slipway's, slirp4netns's or pasta's
 *		command line)
 *
 * Fills in @c the host's addresses (pasta's model: as the guest's unless
 * given), @gw6_ll and @prefix6_len, and the resolved mappings @map_lo4,
 * @map_lo6, @map_guest4, @map_guest6, @dns4 and @dns6 from the strings
 * @map_host_loopback, @map_guest_addr and @dns_forward.
 *
 * Context: start-up, in the host's network namespace
 * #syscalls:setup socket bind setsockopt sendto recvfrom ioctl close
 * Return: 0, -EINVAL for a bad mapping (message printed: a command line
 * error, exit 2), or another negative errno (logged: exit 1)
 */
int conf_net_setup(struct conf *c);

void conf_net_src_for(const struct core *c, const uint8_t *gaddr, uint8_t *src);
void conf_net_peer_src(const struct core *c, const void *sa, uint8_t *src,
		       uint16_t *port);

#endif /* SLIPWAY_CONF_NET_H */
