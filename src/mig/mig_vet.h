/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig_vet.h - a migration stream's flows checked against this gateway's
 * own configuration: only what the guest could have opened here */
#ifndef SLIPWAY_MIG_VET_H
#define SLIPWAY_MIG_VET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct conf;
struct shard;
struct mig_tcp;
struct mig_udp;
struct mig_repair;

/**
 * struct mig_vet - what a destination checks a stream's flows against,
 * beyond the configuration and the core's rules
 * @diagfd:	NETLINK_SOCK_DIAG socket of the host's namespace
 *		(--migrate-repair), else -1
 * @lports:	TCP ports some host socket listens on, dumped when a stream
 *		came (mig_vet_stream()): a socket made from repair state binds
 *		with the kernel's forced reuse, so never to one of them;
 *		written by the migration thread before the shards read it
 * @lports_ok:	@lports is complete (else every restored socket is refused)
 * @wmem_max:	tcp_wmem's maximum: a restored send queue holds at most this
 * @rmem_max:	tcp_rmem's maximum: a restored receive queue, the same
 * @said:	a refusal of this stream was logged (one line a stream)
 * @seq:	sock_diag sequence number
 */
struct mig_vet {
	int diagfd;
	uint64_t lports[65536 / 64];
	bool lports_ok;
	uint32_t wmem_max, rmem_max;
	_Atomic int said;
	uint32_t seq;
};

int mig_vet_init(struct mig_vet *v, const struct conf *conf);
void mig_vet_fini(struct mig_vet *v);
void mig_vet_stream(struct mig_vet *v);
const char *mig_vet_tcp_fd(struct shard *sh, const struct mig_vet *v,
			   const struct mig_tcp *t, int fd);
const char *mig_vet_tcp_repair(struct shard *sh, const struct mig_vet *v,
			       const struct mig_tcp *t,
			       const struct mig_repair *rp);
const char *mig_vet_udp_fd(struct shard *sh, const struct mig_udp *u, int fd);
void mig_vet_refused(struct mig_vet *v, struct shard *sh, bool udp,
		     const char *why);

#endif /* SLIPWAY_MIG_VET_H */
