/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.c - tap device edge: one read per frame, vnet header in front */

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "edge/edge.h"

/* vnet header + 64 KiB GSO frame */
#define TAP_FRAME_MAX (12 + 65536 + 64)

/**
 * tap_rx() - read up to @max frames from a tap queue
 * @e:		edge
 * @q:		queue
 * @v:		views of the frames (loans into the queue's buffer)
 * @max:	at most this many (<= EDGE_RX_BATCH)
 *
 * #syscalls read
 * Return: frames read, 0 if none was ready, or -errno
 */
static int tap_rx(struct edge *e, unsigned q, struct pkt_view *v, unsigned max)
{
	unsigned n = 0;

	if (max > EDGE_RX_BATCH)
		max = EDGE_RX_BATCH;
	while (n < max) {
		uint8_t *b = e->rxbuf[q] + (size_t)n * e->frame_max;
		ssize_t r = read(e->fds[q], b, e->frame_max);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return n ? (int)n : -errno;
		}
		if (r == 0)
			return n ? (int)n : -EBADFD;
		v[n] = (struct pkt_view){ .p = b, .len = (size_t)r };
		n++;
	}
	return (int)n;
}

/**
 * tap_tx() - write one frame to a tap queue
 * @e:		edge
 * @q:		queue
 * @iov:	frame, vnet header first
 * @iovcnt:	entries in @iov
 *
 * #syscalls writev
 * Return: 0, or -errno
 */
static int tap_tx(struct edge *e, unsigned q, const struct iovec *iov,
		  int iovcnt)
{
	for (;;) {
		if (writev(e->fds[q], iov, iovcnt) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/**
 * tap_fd() - fd to poll for a queue
 * @e:	edge
 * @q:	queue
 *
 * Return: the queue's tap fd
 */
static int tap_fd(const struct edge *e, unsigned q)
{
	return e->fds[q];
}

/**
 * tap_fini() - close the queues and free buffers
 * @e:	edge
 */
static void tap_fini(struct edge *e)
{
	unsigned q;

	for (q = 0; q < e->nqueues; q++) {
		close(e->fds[q]);
		free(e->rxbuf[q]);
		e->rxbuf[q] = NULL;
	}
}

static const struct edge_ops tap_ops = {
	.name = "tap", .rx = tap_rx, .tx = tap_tx, .fd = tap_fd, .fini = tap_fini,
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
		  unsigned vnet_hdr_len)
{
	unsigned q;

	e->ops = &tap_ops;
	e->nqueues = nqueues;
	e->vnet_hdr_len = vnet_hdr_len;
	e->frame_max = TAP_FRAME_MAX;
	e->listen_fd = -1;
	e->ctl_fd = -1;
	for (q = 0; q < nqueues; q++) {
		e->fds[q] = fds[q];
		e->rxbuf[q] = malloc(EDGE_RX_BATCH * e->frame_max);
		if (!e->rxbuf[q])
			return -ENOMEM;
	}
	return 0;
}
