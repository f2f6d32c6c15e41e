/* SPDX-License-Identifier: GPL-2.0-or-later */
/* edge.h - the device edge interface: frames in batches, frames out from iovecs
 *
 * Every frame crossing an edge starts with a virtio-net header of the
 * edge's vnet_hdr_len (0 where the transport has none). Received frames
 * are loans: valid until the next rx call on the same queue.
 */
#ifndef SLIPWAY_EDGE_H
#define SLIPWAY_EDGE_H

#include <stdint.h>
#include <sys/uio.h>

#include "core/pkt.h"

struct edge;

/**
 * struct edge_ops - what an edge implements
 * @name:	edge kind, for logs and counters
 * @rx:		receive up to @max frames from queue @q into @v; returns the
 *		count (0: nothing ready) or -errno (-EBADFD etc.: edge gone)
 * @tx:		send one frame gathered from @iov; returns 0 or -errno
 * @fd:		fd to poll for readability of queue @q
 * @fini:	release everything
 */
struct edge_ops {
	const char *name;
	int (*rx)(struct edge *e, unsigned q, struct pkt_view *v, unsigned max);
	int (*tx)(struct edge *e, unsigned q, const struct iovec *iov,
		  int iovcnt);
	int (*fd)(const struct edge *e, unsigned q);
	void (*fini)(struct edge *e);
};

#define EDGE_MAX_QUEUES 16
#define EDGE_RX_BATCH 32

/**
 * struct edge - an edge instance
 * @ops:		implementation
 * @nqueues:		queue pairs
 * @vnet_hdr_len:	virtio-net header bytes per frame
 * @frame_max:		largest frame including the header
 * @fds:		per-queue fds (tap)
 * @rxbuf:		per-queue receive buffers, EDGE_RX_BATCH * @frame_max
 */
struct edge {
	const struct edge_ops *ops;
	unsigned nqueues;
	unsigned vnet_hdr_len;
	size_t frame_max;
	int fds[EDGE_MAX_QUEUES];
	uint8_t *rxbuf[EDGE_MAX_QUEUES];
};

/**
 * tap_edge_init() - wrap already-open tap queue fds as an edge
 * @e:			edge to fill
 * @fds:		tap fds, one per queue, non-blocking, IFF_VNET_HDR
 * @nqueues:		number of fds
 * @vnet_hdr_len:	header size set with TUNSETVNETHDRSZ
 *
 * Return: 0, or -ENOMEM
 */
int tap_edge_init(struct edge *e, const int *fds, unsigned nqueues,
		  unsigned vnet_hdr_len);

#endif /* SLIPWAY_EDGE_H */
