/* SPDX-License-Identifier: GPL-2.0-or-later */
/* migrate.h - live migration of a vhost-user guest's flows between two
 * slipway processes on one host (--migrate-to, --migrate-from)
 */
#ifndef SLIPWAY_MIGRATE_H
#define SLIPWAY_MIGRATE_H

#include <pthread.h>
#include <stdbool.h>

struct conf;
struct edge;
struct shard;
struct shard_group;

/* how long a destination whose guest runs waits for the source's state */
#define MIG_WAIT_MS 2000U

int mig_init(struct shard_group *grp, const struct conf *conf, struct edge *e);
int mig_start(struct shard_group *grp, pthread_barrier_t *barrier);
bool mig_active(const struct shard_group *grp);
void mig_stop(struct shard_group *grp);
void mig_fini(struct shard_group *grp);
bool mig_handed_over(const struct shard_group *grp);
int mig_dirfd(const struct shard_group *grp);
void mig_shard_poll(struct shard *sh);

#endif /* SLIPWAY_MIGRATE_H */
