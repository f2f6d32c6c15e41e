/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.c - tap device edge: one read per frame, vnet header in front */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "edge/edge.h"

/* UDP segmentation offload, Linux 6.2 (older headers lack the flags) */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

/* vnet header + 64 KiB GSO frame */
#define TAP_FRAME_MAX (12 + 65536 + 64)

/**
 * struct tap - the tap edge's state
 * @fds:	the tap's queues, one fd each
 * @rxbuf:	per queue, EDGE_RX_BATCH frame buffers of @e->frame_max bytes
 */
struct tap {
	int fds[EDGE_MAX_QUEUES];
	uint8_t *rxbuf[EDGE_MAX_QUEUES];
};

/**
 * tap_rx() - read up to @max frames from a tap queue
 * @e:		edge
 * @q:		queue
 * @v:		views of the frames (loans into the queue's buffer)
 * @max:	at most this many (<= EDGE_RX_BATCH)
 *
 * #syscalls read
 * Return: frames read, 0 if none was ready, or -errno (-EBADFD: the tap
 * is gone)
 */
static int tap_rx(struct edge *e, unsigned q, struct pkt_view *v, unsigned max)
{
	struct tap *t = e->priv;
	unsigned n = 0;

	if (max > EDGE_RX_BATCH)
		max = EDGE_RX_BATCH;
	while (n < max) {
		uint8_t *b = t->rxbuf[q] + (size_t)n * e->frame_max;
		ssize_t r = read(t->fds[q], b, e->frame_max);

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
	const struct tap *t = e->priv;

	for (;;) {
		if (writev(t->fds[q], iov, iovcnt) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/**
 * tap_fd() - the fd of a role: a tap has only its queues
 * @e:		edge
 * @which:	role
 * @q:		queue, for EDGE_FD_QUEUE
 *
 * Return: the queue's tap fd, or -1 for any other role
 */
static int tap_fd(const struct edge *e, enum edge_fd which, unsigned q)
{
	const struct tap *t = e->priv;

	return which == EDGE_FD_QUEUE ? t->fds[q] : -1;
}

/**
 * tap_fini() - close the queues and free buffers
 * @e:	edge
 *
 * #syscalls close
 */
static void tap_fini(struct edge *e)
{
	struct tap *t = e->priv;
	unsigned q;

	if (!t)
		return;
	for (q = 0; q < e->nqueues; q++) {
		close(t->fds[q]);
		free(t->rxbuf[q]);
	}
	free(t);
	e->priv = NULL;
}

static const struct edge_ops tap_ops = {
	.name = "tap",
	.rx = tap_rx,
	.tx = tap_tx,
	.fd = tap_fd,
	.fini = tap_fini,
};

/**
 * tap_uso() - add UDP segmentation offload to the tap's offloads, where
 * the kernel has it
 * @fd:		a queue of the tap (offloads are the device's)
 *
 * The guest's stack then hands us UDP GSO frames whole, and takes ours.
 * Called only when the namespace set-up enabled checksum and TCP
 * segmentation offload (--offload, the default): a kernel before 6.2
 * refuses the flags, and the offloads stay as they were.
 *
 * #syscalls ioctl
 * Return: true if the kernel took them
 */
static bool tap_uso(int fd)
{
	return !ioctl(fd, TUNSETOFFLOAD,
		      (unsigned long)(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
				      TUN_F_USO4 | TUN_F_USO6));
}

/**
 * tap_edge_init() - wrap the already-open queues of a tap as an edge
 * @e:		edge to fill (zeroed)
 * @a:		@tap_fds (the edge owns them now), @tap_nfds,
 *		@vnet_hdr_len, @ifname
 *
 * Return: 0, or -ENOMEM
 */
int tap_edge_init(struct edge *e, const struct edge_args *a)
{
	struct tap *t;
	unsigned q;

	e->mig_evfd = e->mig_state_fd = -1;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	e->ops = &tap_ops;
	e->priv = t;
	e->nqueues = a->tap_nfds;
	e->vnet_hdr_len = a->vnet_hdr_len;
	e->frame_max = TAP_FRAME_MAX;
	e->uso = a->offload && a->vnet_hdr_len && a->tap_nfds &&
		 tap_uso(a->tap_fds[0]);
	e->qctr[0] = a->ctr;
	snprintf(e->where, sizeof(e->where), "%s", a->ifname);
	for (q = 0; q < e->nqueues; q++) {
		t->fds[q] = a->tap_fds[q];
		t->rxbuf[q] = malloc(EDGE_RX_BATCH * e->frame_max);
		if (!t->rxbuf[q])
			return -ENOMEM;
	}
	return 0;
}
