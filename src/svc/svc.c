/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svc.c - shard 0's services, lent to the runtime through its hooks, so
 * that the runtime (src/shard/) names none of them and calls between the
 * layers go one way: a service calls the runtime; the runtime calls a
 * service only through struct shard_hooks */

#include "shard/shard.h"
#include "svc/dns_fwd.h"
#include "svc/fwd.h"
#include "svc/fwdauto.h"
#include "svc/splice.h"
#include "svc/svc.h"
#include "svc/udpns.h"

void svc_register(void)
{
	struct shard_hooks *h = &shard_hooks;

	h->ep[EP_LISTEN] = (struct shard_ep_hook){ fwd_accept, false };
	h->ep[EP_DNS] = (struct shard_ep_hook){ dns_fwd_event, true };
	h->ep[EP_SPLICE] = (struct shard_ep_hook){ splice_event, false };
	h->ep[EP_FWD_AUTO] = (struct shard_ep_hook){ fwdauto_event, false };
	h->ep[EP_UDPNS] = (struct shard_ep_hook){ udpns_event, false };
	h->resume[0] = fwd_resume;
	h->resume[1] = splice_resume;
	h->fini = dns_fwd_fini;
	h->dns_query = dns_fwd_query;
	h->snap[0] = (struct shard_snap_hook){ splice_snap, splice_snap_cap,
					       splice_sweep };
	h->snap[1] = (struct shard_snap_hook){ udpns_snap, udpns_snap_cap,
					       udpns_sweep };
	h->snap[2] = (struct shard_snap_hook){ dns_fwd_snap, dns_fwd_snap_cap,
					       NULL };
}
