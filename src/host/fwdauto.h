/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdauto.h - "auto" ports: follow the sockets bound on the other side */
#ifndef SLIPWAY_FWDAUTO_H
#define SLIPWAY_FWDAUTO_H

struct shard;

/**
 * fwdauto_init() - set up auto ports: open the sock_diag sockets (one in
 * the host's namespace, one in the guest's) and the scan timer, and open
 * the ports bound now
 * @sh:		shard 0, after fwd_init() and splice_init()
 *
 * Context: start-up, before the sandbox
 * Return: 0 (also when no option says auto), or -errno (logged)
 */
int fwdauto_init(struct shard *sh);

/**
 * fwdauto_event() - the scan timer fired: list the bound ports, open and
 * close ports to match
 * @sh:		shard 0
 *
 * Context: main thread (shard 0's loop), EP_FWD_AUTO
 */
void fwdauto_event(struct shard *sh);

/**
 * fwdauto_fini() - close and free what fwdauto_init() made
 * @sh:		shard 0
 */
void fwdauto_fini(struct shard *sh);

#endif /* SLIPWAY_FWDAUTO_H */
