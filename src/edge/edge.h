/* SPDX-License-Identifier: GPL-2.0-or-later */
/* edge.h - the device edge interface: frames in batches, frames out from iovecs
 *
 * Every frame crossing an edge starts with a virtio-net header of the
 * edge's vnet_hdr_len (0 where the transport has none). Received frames
 * are loans: valid until the next rx call on the same queue.
 */
#ifndef SLIPWAY_EDGE_H
#define SLIPWAY_EDGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/pkt.h"

struct edge;

/**
 * struct edge_ops - what an edge implements
 * @name:	edge kind, for logs and counters
 * @rx:		receive up to @max frames from queue @q into @v; returns the
 *		count (0: nothing ready) or -errno (-EBADFD etc.: edge gone).
 *		Each view is filled whole: its bytes at @p are the edge's own
 *		(never memory the guest can still write), and only TCP
 *		payload may be left as its tail (struct pkt_view)
 * @tx:		send one frame gathered from @iov; returns 0 or -errno
 * @fd:		fd to poll for readability of queue @q (-1: none now)
 * @fini:	release everything
 * @accept:	optional: the listening socket is readable; returns 1 if a
 *		guest connected (poll @fd now), 0 if not, or -errno
 * @flush:	optional: push out what @tx buffered; returns 0 or -errno
 * @tick:	optional: called about once a second; returns 0, or
 *		-ECONNRESET if it found the guest gone
 * @ctl:	optional: @ctl_fd is readable (a control connection, served
 *		by shard 0); returns 0, or -ECONNRESET if it closed
 * @rx_done:	optional: the views the last @rx returned are dead now
 * @tx_full:	optional: the guest has no room for more frames now (the
 *		shard stops producing until it has)
 * @offloads:	optional: what the guest accepted, read by each shard when
 *		@gen changes: header length, partial checksums, TSO frames
 * @place:	optional: reserve the guest's own receive buffers for the
 *		frame that will be built in frame slot @slot: room for @hdr
 *		header bytes, then @iov (at most @iovmax entries) gets the
 *		place of up to @max payload bytes in guest memory. Returns
 *		the entries filled, or -errno (-ENOBUFS: no room there now;
 *		send the frame with @tx). On success the queue stays locked
 *		until @place_end, which follows at once
 * @place_end:	@len payload bytes went into the reservation of @slot (0:
 *		none, and it is given back); unlocks the queue
 * @tx_placed:	the frame of @slot is complete: its first @hdr bytes (from
 *		@frame, @len bytes in all) go in front of the payload
 *		already in place, and it is queued for the guest as @tx
 *		queues a frame; 0 or -errno as @tx
 *
 * Socket edges (qsock.c) report a guest that went away as -ECONNRESET
 * from @rx or @tx, having closed its connection already.
 */
struct edge_ops {
	const char *name;
	int (*rx)(struct edge *e, unsigned q, struct pkt_view *v, unsigned max);
	int (*tx)(struct edge *e, unsigned q, const struct iovec *iov,
		  int iovcnt);
	int (*fd)(const struct edge *e, unsigned q);
	void (*fini)(struct edge *e);
	int (*accept)(struct edge *e);
	int (*flush)(struct edge *e, unsigned q);
	int (*tick)(struct edge *e);
	int (*ctl)(struct edge *e);
	void (*rx_done)(struct edge *e, unsigned q);
	bool (*tx_full)(const struct edge *e, unsigned q);
	void (*offloads)(const struct edge *e, unsigned *hdr_len, bool *csum,
			 bool *gso);
	int (*place)(struct edge *e, unsigned q, unsigned slot, size_t hdr,
		     size_t max, struct iovec *iov, unsigned iovmax);
	void (*place_end)(struct edge *e, unsigned q, unsigned slot,
			  size_t len);
	int (*tx_placed)(struct edge *e, unsigned q, unsigned slot,
			 const uint8_t *frame, size_t len);
};

#define EDGE_MAX_QUEUES 16
#define EDGE_RX_BATCH 32
#define EDGE_TICK_MS 1000 /* how often an edge's tick runs */
#define EDGE_PLACE_SLOTS 64 /* frame slots a shard may place at once */
#define EDGE_PLACE_IOV 64 /* guest buffers one placed frame may span */

/**
 * struct edge - an edge instance
 * @ops:		implementation
 * @nqueues:		queue pairs
 * @vnet_hdr_len:	virtio-net header bytes per frame
 * @frame_max:		largest frame including the header
 * @fds:		per-queue fds (tap)
 * @rxbuf:		per-queue receive buffers, EDGE_RX_BATCH * @frame_max
 * @listen_fd:		socket edges: listening socket to poll, or -1
 * @reconnect:		a guest going away is not the end: wait for the next
 * @rx_whole:		the shards need every received frame whole in its
 *			view (--pcap, --impair): no loaned payload
 * @gen:		bumped each time a new guest takes over the edge
 * @rx_pending:		per queue: frames are buffered (or left in a ring with
 *			kicks off) that @rx has not returned yet
 *			(poll would not say so)
 * @ctr:		counters of the shard serving the edge (socket edges)
 * @qctr:		counters of the shard serving each queue
 * @ctl_fd:		a control connection to poll (shard 0), or -1
 * @path_dirfd:		socket edges: the directory of the socket file we made
 *			(O_PATH), to remove it at exit even from inside the
 *			sandbox (no host filesystem); -1 when there is none
 * @priv:		the implementation's state
 */
struct edge {
	const struct edge_ops *ops;
	unsigned nqueues;
	unsigned vnet_hdr_len;
	size_t frame_max;
	int fds[EDGE_MAX_QUEUES];
	uint8_t *rxbuf[EDGE_MAX_QUEUES];
	int listen_fd;
	bool reconnect;
	bool rx_whole;
	unsigned gen;
	bool rx_pending[EDGE_MAX_QUEUES];
	uint64_t *ctr;
	uint64_t *qctr[EDGE_MAX_QUEUES];
	int ctl_fd;
	int path_dirfd;
	void *priv;
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

/**
 * qframe_parse() - split a byte stream into length-prefixed frames
 * @buf:	bytes received
 * @len:	length of @buf
 * @v:		frame views out (loans into @buf, prefix stripped)
 * @max:	at most this many frames
 * @frame_max:	largest frame length a prefix may announce
 * @used:	bytes of @buf the returned frames took, prefixes included
 *
 * Each frame is a 4-byte big-endian length followed by that many bytes
 * (QEMU -netdev stream, passt). A frame not yet complete stays unparsed.
 *
 * Return: frames in @v, or -EPROTO if a prefix announces more than
 * @frame_max bytes (the stream cannot be trusted after that)
 */
int qframe_parse(const uint8_t *buf, size_t len, struct pkt_view *v,
		 unsigned max, size_t frame_max, size_t *used);

/**
 * qsock_edge_init() - a socket edge: --stream, --dgram or --fd
 * @e:		edge to fill
 * @kind:	QSOCK_STREAM, QSOCK_DGRAM or QSOCK_FD
 * @path:	socket path to listen on or bind (STREAM, DGRAM)
 * @fd:		connected stream socket (FD)
 * @ctr:	counters of the shard that will serve the edge
 *
 * Return: 0, or -errno (logged, with what to do)
 */
int qsock_edge_init(struct edge *e, int kind, const char *path, int fd,
		    uint64_t *ctr);

enum { QSOCK_STREAM, QSOCK_DGRAM, QSOCK_FD };

/**
 * qsock_listen() - a listening unix stream socket at @path (mode 0600),
 * replacing a stale socket file (one nobody serves); a served one, or a
 * path that is not a socket, is an error
 * @path:	where
 *
 * Return: the socket, or -errno (logged)
 */
int qsock_listen(const char *path);

struct sockaddr_un;

/**
 * qsock_bind_private() - bind a unix socket whose file only our user may
 * use (mode 0600: the umask is set around the bind)
 * @fd:		socket
 * @a:		address (a path)
 *
 * Context: start-up, main thread (the umask is the process's)
 * Return: bind()'s result, errno kept
 */
int qsock_bind_private(int fd, const struct sockaddr_un *a);

/**
 * qsock_path_dir() - open the directory of a file we made (a socket, the
 * stats file), O_PATH
 * @path:	the socket file
 *
 * Return: the directory's fd, or -1 (the file is then removed by path)
 */
int qsock_path_dir(const char *path);

/**
 * qsock_path_unlink() - remove the socket file we made, close @dirfd
 * @dirfd:	from qsock_path_dir(), or -1
 * @path:	the socket file, as given
 */
void qsock_path_unlink(int dirfd, const char *path);

/**
 * vu_edge_init() - the vhost-user edge, listening at @path
 * @e:		edge to fill
 * @path:	socket path
 * @npairs:	queue pairs to offer (one shard each)
 * @offload:	offer checksum and segmentation offloads
 * @mtu:	our MTU
 *
 * Return: 0, or -errno (logged)
 */
int vu_edge_init(struct edge *e, const char *path, unsigned npairs,
		 bool offload, unsigned mtu);

/**
 * vu_edge_init_fd() - the vhost-user edge, its frontend already connected
 * on @fd (QEMU 10.1 -netdev passt,vhost-user=on: passt --vhost-user --fd 3);
 * no listening socket, no socket file, and the end when it leaves
 * @e:		edge to fill
 * @fd:		connected unix stream socket; on 0 the edge owns it
 * @ctr:	counters of shard 0, which serves the control connection
 * @npairs:	queue pairs to offer (one shard each)
 * @offload:	offer checksum and segmentation offloads
 * @mtu:	our MTU
 *
 * Return: 0, or -errno (logged)
 */
int vu_edge_init_fd(struct edge *e, int fd, uint64_t *ctr, unsigned npairs,
		    bool offload, unsigned mtu);

/* the largest frame on a socket edge: a 65535-byte packet and its
 * Ethernet header (there is no virtio-net header) */
#define QSOCK_FRAME_MAX (65535 + 14)

#endif /* SLIPWAY_EDGE_H */
