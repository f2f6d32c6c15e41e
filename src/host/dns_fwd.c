/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dns_fwd.c - DNS forwarder (placeholder: being written) */

#include "host/dns_fwd.h"
#include "host/shard.h"

/**
 * dns_fwd_init() - placeholder
 * @sh:		shard
 * @resolv:	resolv.conf path
 *
 * Return: 0
 */
int dns_fwd_init(struct shard *sh, const char *resolv)
{
	(void)sh;
	(void)resolv;
	return 0;
}

/**
 * dns_fwd_query() - placeholder: drop
 * @sh:		shard
 * @q:		query
 * @len:	length
 * @gaddr_be:	guest address
 * @gport:	guest port
 */
void dns_fwd_query(struct shard *sh, const uint8_t *q, size_t len,
		   uint32_t gaddr_be, uint16_t gport)
{
	(void)q;
	(void)len;
	(void)gaddr_be;
	(void)gport;
	CTR_INC(&sh->core, DNS_DROP_BAD);
}

/**
 * dns_fwd_event() - placeholder
 * @sh:		shard
 * @n:		index
 * @events:	events
 */
void dns_fwd_event(struct shard *sh, uint32_t n, uint32_t events)
{
	(void)sh;
	(void)n;
	(void)events;
}

/**
 * dns_fwd_fini() - placeholder
 * @sh:	shard
 */
void dns_fwd_fini(struct shard *sh)
{
	(void)sh;
}
