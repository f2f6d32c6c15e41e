/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ndp.h - router advertisements on a timer (the rest of ndp.c is reached
 * through icmp6_input(), declared in core.h)
 */
#ifndef SLIPWAY_NDP_H
#define SLIPWAY_NDP_H

#include "core.h"

/**
 * ndp_init() - arm unsolicited router advertisements, from core_init()
 * @c:	core, its configuration set
 *
 * With conf.ipv6 on, shard 0 (the only shard that sends them) has its first
 * advertisement due at once: c->next_deadline_ns becomes 0, so the host's
 * first timer run sends it (the core has no clock before). Elsewhere
 * nothing is armed.
 */
void ndp_init(struct core *c);

/**
 * ndp_timer() - send the unsolicited router advertisement when it is due
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out: at most one frame, to ff02::1
 *
 * RFC 4861 section 6.2.4: every 30 to 60 s, at a random point of that
 * range; after each of the first three, at most 16 s.
 *
 * Return: when the next one is due; @now_ns if no frame slot was free (the
 *	   host drains and calls again); UINT64_MAX if none is armed
 */
uint64_t ndp_timer(struct core *c, uint64_t now_ns, struct fx *fx);

#endif /* SLIPWAY_NDP_H */
