/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svc.h - shard 0's services, lent to the runtime */
#ifndef SLIPWAY_SVC_H
#define SLIPWAY_SVC_H

/**
 * svc_register() - lend the runtime the services' epoll handlers and calls
 * (shard.h's struct shard_hooks): published ports, splice, auto ports, -U
 * and the DNS forwarder, and the spliced and -U connections for the
 * control API's flow snapshots. Each is a no-op on a shard the service
 * does not run on.
 *
 * Context: start-up, once, before any shard runs
 */
void svc_register(void);

#endif /* SLIPWAY_SVC_H */
