/* SPDX-License-Identifier: GPL-2.0-or-later */
/* edge.h - the device edge interface: frames in batches, frames out from iovecs
 *
 * An edge is how the guest's frames reach the shards: a tap (tap.c), a
 * unix socket (qsock.c) or a VM's vhost-user virtqueues (vhost_user.c).
 * Shared code sees only struct edge and its ops; each kind keeps its own
 * state (fds, buffers, rings) behind @priv. A kind is one file with a
 * constructor (edge_init_fn, declared below) and one row in main.c's
 * edge_kinds[].
 *
 * Every frame crossing an edge starts with a virtio-net header of the
 * edge's vnet_hdr_len (0 where the transport has none). Received frames
 * are loans: valid until rx_done, or the next rx call on the same queue.
 */
#ifndef SLIPWAY_EDGE_H
#define SLIPWAY_EDGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/pkt.h"

struct edge;

/**
 * enum edge_fd - the fds an edge lets its users see, by role (@fd)
 * @EDGE_FD_QUEUE:	readable when queue @q may have frames (or, for
 *			vhost-user, a guest's kick): polled by the shard
 *			serving @q, which then calls @rx
 * @EDGE_FD_LISTEN:	a listening socket: readable when a guest (or a
 *			vhost-user frontend) connects; shard 0 polls it and
 *			calls @accept
 * @EDGE_FD_CTL:	a control connection (vhost-user): shard 0 polls it
 *			and calls @ctl
 * @EDGE_FD_DIR:	the directory of a socket file the edge made (O_PATH):
 *			the sandbox keeps it, for @fini to remove the file
 * @EDGE_FD_NUM:	roles
 */
enum edge_fd {
	EDGE_FD_QUEUE,
	EDGE_FD_LISTEN,
	EDGE_FD_CTL,
	EDGE_FD_DIR,
	EDGE_FD_NUM
};

/**
 * enum edge_accept - what @accept found
 * @EDGE_ACCEPT_NONE:	nobody, or a connection refused (one guest at a time)
 * @EDGE_ACCEPT_GUEST:	a guest connected: poll its queue (EDGE_FD_QUEUE)
 * @EDGE_ACCEPT_CTL:	a frontend connected: poll its control connection
 *			(EDGE_FD_CTL); the queues' fds stay as they are
 */
enum edge_accept {
	EDGE_ACCEPT_NONE,
	EDGE_ACCEPT_GUEST,
	EDGE_ACCEPT_CTL,
};

/**
 * struct edge_ops - what an edge kind implements
 * @name:	the kind, for logs and the control socket ("tap", "stream",
 *		"dgram", "vhost-user")
 *
 * Every kind has these four:
 *
 * @rx:		the shard serving queue @q, when the queue's fd is readable
 *		or @e->rx_pending[@q] is set: up to @max frames into @v.
 *		Each view is filled whole: its bytes at @p are the edge's
 *		own (never memory the guest can still write), and only TCP
 *		payload may be left as its tail (struct pkt_view). The views
 *		are loans until @rx_done, or the next @rx on @q.
 *		Return: frames (0: none ready), -ECONNRESET if a socket
 *		edge's guest went away (its connection closed already; the
 *		shard resets its flows and, with @e->reconnect, goes on), or
 *		another -errno: the edge is gone (the tap deleted) and the
 *		gateway stops
 * @tx:		the shard serving @q: one frame for the guest, gathered
 *		from @iov (socket and vhost-user edges take one entry). A
 *		socket edge only gathers it, and @iov must stay valid until
 *		@flush. Return: 0; -ENOBUFS if the guest had no room and the
 *		frame was dropped (the edge counted it); -EIO if nobody
 *		listens (no guest connected, its ring not running);
 *		-ECONNRESET if the guest went away (as for @rx); another
 *		-errno for a frame that failed
 * @fd:		the fd of role @which (for EDGE_FD_QUEUE: of queue @q), or
 *		-1 if the edge has none now. Called at set-up and when
 *		@accept says a new fd is to be polled
 * @fini:	the main thread at exit, after the shards stopped (or when
 *		set-up failed half-way): close and free everything, remove
 *		the socket file the edge made
 *
 * Each of the rest is NULL where the kind has no use for it:
 *
 * @accept:	shard 0, when EDGE_FD_LISTEN is readable.
 *		Return: an enum edge_accept, or -errno if the listening
 *		socket failed (-EMFILE, -ENFILE: the shard refuses and
 *		pauses, anything else stops the gateway)
 * @ctl:	shard 0, when EDGE_FD_CTL is readable: serve the control
 *		connection. Return: 0, or -ECONNRESET if it closed (the end,
 *		without @e->reconnect)
 * @flush:	the shard serving @q, after each batch of @tx calls: push
 *		out what @tx gathered (socket edges), or publish and signal
 *		(vhost-user). Return: 0, or -ECONNRESET as @rx
 * @tick:	each shard, about every EDGE_TICK_MS (only the datagram
 *		edge, which has one queue, has it): look for a guest gone
 *		without a word.
 *		Return: 0, or -ECONNRESET if it found the guest gone
 * @rx_done:	the shard serving @q, when it is done with the views the
 *		last @rx gave: they are dead now (vhost-user returns their
 *		chains to the guest)
 * @tx_full:	the shard serving @q, before it makes more frames: true
 *		while the guest has no room for more (the shard stops
 *		producing until its next wake-up)
 * @offloads:	each shard, whenever @e->gen changed: what the guest
 *		accepted: header length, partial checksums, TSO frames, UDP
 *		GSO frames toward it (@uso) and from it (@uso_in).
 *		Without it, the edge's @vnet_hdr_len and offloads stay
 * @place:	the shard serving @q: reserve the guest's own receive
 *		buffers for the frame that will be built in frame slot @slot:
 *		room for @hdr header bytes, then @iov (at most @iovmax
 *		entries) gets the place of up to @max payload bytes in guest
 *		memory. Return: the entries filled, with the queue locked
 *		until @place_end, which follows at once; -EBUSY if the guest
 *		has no buffers now (stop producing); -ENOBUFS if the frame is
 *		better copied (build it in the slot and send it with @tx); or
 *		another -errno (-EIO: the ring is not running)
 * @place_end:	@len payload bytes went into the reservation of @slot (0:
 *		none, and it is given back); unlocks the queue
 * @tx_placed:	the frame of @slot is complete: its first @hdr bytes (from
 *		@frame, @len bytes in all) go in front of the payload
 *		already in place, and it is queued for the guest as @tx
 *		queues a frame. Return: as @tx (-EIO: the reservation went
 *		stale, the frame is lost)
 * @running:	the shard serving @q: are @q's rings running (the
 *		guest's device started)? Only vhost-user has it (live
 *		migration waits for it); edges without it always run
 *
 * Only vhost-user has @ctl, @rx_done, @tx_full, @offloads, @running and
 * the three place ops; @place, @place_end and @tx_placed come together or not at
 * all.
 */
struct edge_ops {
	const char *name;
	int (*rx)(struct edge *e, unsigned q, struct pkt_view *v, unsigned max);
	int (*tx)(struct edge *e, unsigned q, const struct iovec *iov,
		  int iovcnt);
	int (*fd)(const struct edge *e, enum edge_fd which, unsigned q);
	void (*fini)(struct edge *e);
	int (*accept)(struct edge *e);
	int (*ctl)(struct edge *e);
	int (*flush)(struct edge *e, unsigned q);
	int (*tick)(struct edge *e);
	void (*rx_done)(struct edge *e, unsigned q);
	bool (*tx_full)(const struct edge *e, unsigned q);
	void (*offloads)(const struct edge *e, unsigned *hdr_len, bool *csum,
			 bool *gso, bool *uso, bool *uso_in);
	int (*place)(struct edge *e, unsigned q, unsigned slot, size_t hdr,
		     size_t max, struct iovec *iov, unsigned iovmax);
	void (*place_end)(struct edge *e, unsigned q, unsigned slot,
			  size_t len);
	int (*tx_placed)(struct edge *e, unsigned q, unsigned slot,
			 const uint8_t *frame, size_t len);
	bool (*running)(const struct edge *e, unsigned q);
};

#define EDGE_MAX_QUEUES 16
#define EDGE_RX_BATCH 32
#define EDGE_TICK_MS 1000   /* how often an edge's tick runs */
#define EDGE_PLACE_SLOTS 64 /* frame slots a shard may place at once */
#define EDGE_PLACE_IOV 64   /* guest buffers one placed frame may span */

/**
 * struct edge - an edge instance: what every kind shares with its users
 * @ops:		implementation
 * @nqueues:		queues (queue pairs): one shard each
 * @vnet_hdr_len:	virtio-net header bytes per frame
 * @frame_max:		largest frame including the header
 * @uso:		the edge carries UDP GSO frames both ways (tap: the
 *			kernel took TUN_F_USO4 and TUN_F_USO6; vhost-user
 *			tells each direction apart with @ops->offloads)
 * @reconnect:		a guest going away is not the end: wait for the next
 * @rx_whole:		the shards need every received frame whole in its
 *			view (--pcap, --impair): no loaned payload
 * @gen:		bumped each time a new guest takes over the edge (or
 *			the guest changes what it accepts: @ops->offloads)
 * @rx_pending:		per queue: frames are buffered (or left in a ring with
 *			kicks off) that @rx has not returned yet
 *			(poll would not say so)
 * @qctr:		counters of the shard serving each queue (queue 0's
 *			from the constructor on: its connections are counted
 *			there)
 * @where:		what the edge serves, for the start-up log line: the
 *			tap's name, or the socket's path or fd
 * @mig_evfd:		an eventfd the host sets after init (-1: none; every
 *			constructor sets -1): vhost-user writes 1 to it when
 *			the frontend stops the device with dirty logging on,
 *			the end of a live migration's source side; and
 *			again when a ring starts after such a stop
 * @mig_stops:		vhost-user: bumped each time the device stops with
 *			dirty logging on, before @mig_evfd is written
 *			(release; the migration thread loads with acquire)
 * @mig_resumes:	vhost-user: made @mig_stops again when a ring starts
 *			after such a stop (the VM runs here again: its
 *			migration failed or was cancelled), before @mig_evfd
 *			is written
 * @dirty_log:		vhost-user: the frontend's dirty-page logging is on
 *			(read with edge_logging())
 * @mig_devstate:	the host moves state through the frontend
 *			(vhost-user PF_DEVICE_STATE offered); set before the
 *			first frontend comes
 * @mig_state_fd:	SET_DEVICE_STATE_FD's fd for the host's migration
 *			thread, which takes it (exchange with -1) when
 *			@mig_evfd is kicked; -1: none
 * @mig_state_dir:	its direction (EDGE_MIG_SAVE, EDGE_MIG_LOAD)
 * @mig_state_result:	the migration thread's verdict on it, for
 *			CHECK_DEVICE_STATE: -1 while it works, 0 done, 1 failed
 *			(also before any transfer); set with
 *			vu_device_state_done()
 * @mig_state_reply_fd:	a CHECK_DEVICE_STATE that came while the transfer
 *			was under way: a copy of the frontend's connection
 *			its reply goes out on once the verdict is in
 *			(vu_device_state_done()); -1: none
 * @priv:		the kind's own state (fds, buffers, rings)
 */
struct edge {
	const struct edge_ops *ops;
	unsigned nqueues;
	unsigned vnet_hdr_len;
	size_t frame_max;
	bool uso;
	bool reconnect;
	bool rx_whole;
	unsigned gen;
	bool rx_pending[EDGE_MAX_QUEUES];
	uint64_t *qctr[EDGE_MAX_QUEUES];
	char where[160];
	int mig_evfd;
	unsigned mig_stops, mig_resumes;
	bool dirty_log;
	bool mig_devstate;
	int mig_state_fd;
	int mig_state_dir;
	int mig_state_result;
	int mig_state_reply_fd;
	void *priv;
};

#define EDGE_MIG_SAVE 0 /* edge.mig_state_dir: our state out */
#define EDGE_MIG_LOAD 1 /* a state in */

/**
 * edge_logging() - is the guest's memory being dirty-logged (a live
 * migration under way)?
 * @e:	edge
 *
 * Context: any thread (the control path changes it: relaxed load)
 * Return: true if the frontend has dirty-page logging on
 */
static inline bool edge_logging(const struct edge *e)
{
	return __atomic_load_n(&e->dirty_log, __ATOMIC_RELAXED);
}

/**
 * struct edge_args - what an edge is made from: the command line, and the
 * tap made for it
 * @path:	socket path to listen on or bind, or NULL
 * @fd:		an already connected socket (--fd), or -1
 * @nqueues:	queue pairs to offer (vhost-user: one shard each)
 * @offload:	offer checksum and segmentation offloads (vhost-user)
 * @mtu:	our MTU
 * @ctr:	counters of shard 0, which serves the edge's connections
 * @tap_fds:	tap: its queues' fds, non-blocking, IFF_VNET_HDR
 * @tap_nfds:	tap: entries in @tap_fds
 * @vnet_hdr_len: tap: the header size set with TUNSETVNETHDRSZ
 * @ifname:	tap: its name
 */
struct edge_args {
	const char *path;
	int fd;
	unsigned nqueues;
	bool offload;
	unsigned mtu;
	uint64_t *ctr;
	const int *tap_fds;
	unsigned tap_nfds;
	unsigned vnet_hdr_len;
	const char *ifname;
};

/**
 * typedef edge_init_fn - an edge kind's constructor
 * @e:		edge to fill (zeroed)
 * @a:		what to make it from
 *
 * Context: start-up, main thread. On failure, @e->ops is either NULL or
 * set, and then @e->ops->fini releases what was made (a socket fd from
 * @a->fd stays the caller's)
 * Return: 0, -ENOMEM, or another -errno (logged, with what to do)
 */
typedef int edge_init_fn(struct edge *e, const struct edge_args *a);

/* the kinds (main.c's edge_kinds[] picks one by the command line) */
edge_init_fn tap_edge_init;	     /* tap.c: taps in a namespace */
edge_init_fn qsock_stream_edge_init; /* qsock.c: --stream PATH, --fd N */
edge_init_fn qsock_dgram_edge_init;  /* qsock.c: --dgram PATH */
edge_init_fn vu_edge_init;	     /* vhost_user.c: --vhost-user */

void vu_device_state_done(struct edge *e, bool ok);

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

/* the largest frame on a socket edge: a 65535-byte packet and its
 * Ethernet header (there is no virtio-net header) */
#define QSOCK_FRAME_MAX (65535 + 14)

#endif /* SLIPWAY_EDGE_H */
