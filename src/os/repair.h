/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair.h - a connected TCP socket as state, and back (TCP_REPAIR) */
#ifndef SLIPWAY_REPAIR_H
#define SLIPWAY_REPAIR_H

#include <stddef.h>
#include <stdint.h>

struct mig_repair;

void repair_init(int helper);
void repair_fini(void);
int repair_dump(int fd, uint8_t *out, size_t room, uint8_t shard, size_t *len);
int repair_restore(const struct mig_repair *r);

#endif /* SLIPWAY_REPAIR_H */
