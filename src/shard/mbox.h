/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mbox.h - mailboxes between shards: frames, accepted connections and
 * adopted flows (mbox.c has the theory of operation)
 */
#ifndef SLIPWAY_MBOX_H
#define SLIPWAY_MBOX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"

struct shard;
struct tcp_flow;

/* bytes of one ring (struct mbox_ring.buf) */
#define MBOX_BYTES (4U << 20)

/**
 * struct mbox_ring - single-producer single-consumer ring of messages
 * @head:	bytes the producer has written (free-running)
 * @pad:	keeps @head and @tail on separate cache lines (the two
 *		threads write one each)
 * @tail:	bytes the consumer has taken (free-running)
 * @buf:	MBOX_BYTES bytes: messages of variable size, 64-byte aligned
 */
struct mbox_ring {
	_Atomic uint64_t head;
	char pad[56];
	_Atomic uint64_t tail;
	uint8_t *buf;
};

int mbox_init(struct shard *sh);
int mbox_kick_fd(struct shard *sh);
void mbox_fini(struct shard *sh);
bool mbox_put_frame(struct shard *sh, unsigned to, struct pkt_view v,
		    uint8_t hop);
bool mbox_put_accept(struct shard *sh, unsigned to, int fd, const void *sa,
		     uint16_t guest_port, const uint8_t *gaddr);
bool mbox_put_adopt(struct shard *sh, unsigned to, struct tcp_flow *f,
		    struct pkt_view v);
void mbox_kick(struct shard *sh);
void mbox_rx(struct shard *sh);

#endif /* SLIPWAY_MBOX_H */
