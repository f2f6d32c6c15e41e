/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_rec.c - flow records (shard_api.h) as the control API names them
 *
 * No system calls: the fuzz target fuzz_ctl links it with ctl_proto.c.
 */

#include <netinet/in.h>

#include "core/tcp.h"
#include "core/udp.h"
#include "shard/shard_api.h"
#include "util/util.h"

static const char *const flow_kind_str[] = {
	[FLOW_KIND_TCP] = "tcp",     [FLOW_KIND_UDP] = "udp",
	[FLOW_KIND_PING] = "ping",   [FLOW_KIND_SPLICE] = "splice",
	[FLOW_KIND_UDPNS] = "udpns",
};
_Static_assert(ARRAY_SIZE(flow_kind_str) == FLOW_KIND_NUM,
	       "flow_kind_str must name every kind");

static const char *const flow_svc_state_str[] = {
	[FLOW_SVC_CONNECTING] = "CONNECTING",
	[FLOW_SVC_ESTABLISHED] = "ESTABLISHED",
	[FLOW_SVC_CLOSING] = "CLOSING",
	[FLOW_SVC_OPEN] = "OPEN",
};
_Static_assert(ARRAY_SIZE(flow_svc_state_str) == FLOW_SVC_NUM,
	       "flow_svc_state_str must name every state");

/**
 * flow_rec_kind_str() - a flow record's kind, in words
 * @r:		record (any bytes: a kind out of range is "?")
 *
 * Context: any thread
 * Return: static text: "tcp", "udp", "ping", "splice" or "udpns"
 */
const char *flow_rec_kind_str(const struct flow_rec *r)
{
	return r->kind < FLOW_KIND_NUM ? flow_kind_str[r->kind] : "?";
}

/**
 * flow_rec_state_str() - a flow record's state, in words
 * @r:		record (any bytes: a state out of range is "?")
 *
 * TCP flows show their TCP state; datagram flows are "OPEN", or
 * "PUBLISHED" for a published UDP port's (-u) flow; spliced connections
 * "CONNECTING", "ESTABLISHED" or "CLOSING" (a side ended its stream); -U
 * flows "OPEN".
 *
 * Context: any thread
 * Return: static text
 */
const char *flow_rec_state_str(const struct flow_rec *r)
{
	static const char *const kinds[] = { [UDPK_OUT] = "OPEN",
					     [UDPK_PUB] = "PUBLISHED",
					     [UDPK_ICMP] = "OPEN" };

	if (r->kind == FLOW_KIND_SPLICE || r->kind == FLOW_KIND_UDPNS)
		return r->state < FLOW_SVC_NUM ? flow_svc_state_str[r->state] :
						 "?";
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
