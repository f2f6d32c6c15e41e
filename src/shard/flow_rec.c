/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_rec.c - flow records (shard_api.h) as the control API names them
 *
 * No system calls: the fuzz target fuzz_ctl links it with ctl_proto.c.
 */

#include <netinet/in.h>

#include "core/tcp.h"
#include "core/udp.h"
#include "shard/shard_api.h"

/**
 * flow_rec_state_str() - a flow record's state, in words
 * @r:		record (any bytes: a state out of range is "?")
 *
 * TCP flows show their TCP state; datagram flows are "OPEN", or
 * "PUBLISHED" for a published UDP port's (-u) flow.
 *
 * Context: any thread
 * Return: static text
 */
const char *flow_rec_state_str(const struct flow_rec *r)
{
	static const char *const kinds[] = { [UDPK_OUT] = "OPEN",
					     [UDPK_PUB] = "PUBLISHED",
					     [UDPK_ICMP] = "OPEN" };

	switch (r->proto) {
	case IPPROTO_TCP:
		return r->state < TCPS_STATE_NUM ? tcp_state_str[r->state] :
						   "?";
	case IPPROTO_UDP:
		return r->state < UDPK_NUM ? kinds[r->state] : "?";
	default:
		return "OPEN";
	}
}
