/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qsock.c - socket edges: QEMU -netdev stream/dgram, passt framing, vfkit
 *
 * DOC: Theory of Operation
 *
 * Stream and datagram sockets
 * ---------------------------
 *
 * A VM launcher that does not speak vhost-user hands us its Ethernet
 * frames over a unix socket:
 *
 * - stream (--stream PATH listens, --fd N is already connected): each
 *   frame is a 4-byte big-endian length and the frame (QEMU -netdev
 *   stream, passt's framing, libkrun). Receive reads as much as there is
 *   into one buffer and hands out views of the complete frames in it; the
 *   incomplete tail moves to the front at the next call, when the views
 *   are dead. Transmit gathers the frames of a batch (they sit in the
 *   shard's frame slots until the batch is flushed) and writes them with
 *   one sendmsg(); only what the socket did not take is copied, into a
 *   4 MiB backlog. A length prefix over QSOCK_FRAME_MAX closes the
 *   connection: the stream cannot be trusted after it.
 * - dgram (--dgram PATH binds): one frame per datagram (QEMU -netdev
 *   dgram, vfkit). The first named socket that sends us a datagram is the
 *   guest, and our socket is connected to it: the kernel then refuses
 *   other senders (one guest at a time, as on a stream), lets the guest
 *   queue more than net.unix.max_dgram_qlen (10) datagrams to us, and
 *   makes poll() tell when the guest's queue has room. A guest whose
 *   socket is gone is noticed when a send is refused, or by a probe each
 *   second (@tick), and the next sender becomes the guest. vfkit greets
 *   with the 4 bytes "VFKT". Batches go through recvmmsg()/sendmmsg().
 *
 * There is no virtio-net header, so no checksum or segmentation offload:
 * the core computes checksums and sends MTU-sized frames.
 *
 * Backpressure
 * ------------
 *
 * A peer that does not read makes transmit wait, at most
 * QSOCK_WAIT_MS per flush (counted in EDGE_TX_WAITS); the shard stops
 * producing meanwhile. Stream frames not taken by then stay in the
 * backlog, whole; frames that do not fit in it are dropped whole and
 * counted (EDGE_TX_DROPPED), as are datagrams the peer's queue refused.
 * TCP recovers those by retransmission.
 *
 * One guest at a time
 * -------------------
 *
 * One guest at a time: a second stream connection is refused (counted).
 * A guest going away (EOF, a reset, bad framing, a datagram peer whose
 * socket is gone) is reported as -ECONNRESET; the shard then resets that
 * guest's flows and, with @reconnect, waits for the next guest.
 */

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "edge/edge.h"
#include "util/ctr.h"
#include "util/log.h"

#define QSOCK_RBUF (1U << 20)	 /* stream receive buffer */
#define QSOCK_BACKLOG (4U << 20) /* stream transmit backlog */
#define QSOCK_SOCKBUF (4 << 20)	 /* SO_SNDBUF and SO_RCVBUF */
#define QSOCK_TX_FRAMES 64	 /* frames gathered per flush */
#define QSOCK_WAIT_MS 2000	 /* longest wait for a slow peer */
#define QSOCK_WAIT_SLICE_MS 50

#define CTR(q, id) ctr_add(&(q)->e->qctr[0][CTR_##id], 1)

/**
 * struct qsock - a socket edge's state
 * @e:		the edge
 * @dgram:	a datagram edge (--dgram), else a stream one
 * @fd:		connected stream or bound datagram socket, -1 if none
 * @listen_fd:	listening stream socket (--stream), or -1
 * @path:	the socket path we created (unlinked at exit), or ""
 * @dirfd:	its directory (qsock_path_dir()), to remove it from inside
 *		the sandbox; -1 if none
 * @dead:	the stream ended after the frames last returned
 * @rbuf:	stream receive buffer, QSOCK_RBUF bytes
 * @rstart:	first unparsed byte of @rbuf
 * @rend:	end of the bytes read into @rbuf
 * @backlog:	stream bytes the socket did not take yet, QSOCK_BACKLOG
 * @bstart:	first unsent byte of @backlog
 * @bend:	end of @backlog's bytes
 * @prefix:	length prefixes of the gathered frames
 * @iov:	gathered frames (prefix, frame) or (frame) for datagrams
 * @niov:	entries in @iov
 * @nframes:	frames gathered
 * @peer:	datagram peer
 * @peer_len:	its address length, 0 if none yet
 * @from:	source addresses of received datagrams
 * @msgs:	recvmmsg() headers (and sendmmsg() ones, reused)
 * @dgbuf:	datagram receive buffers, EDGE_RX_BATCH frames of
 *		QSOCK_FRAME_MAX bytes
 * @riov:	receive iovecs, a frame slot of @dgbuf each
 * @dg_next:	next received datagram to look at
 * @dg_got:	datagrams received by the last recvmmsg()
 * @connected:	the datagram socket is connected to @peer
 */
struct qsock {
	struct edge *e;
	bool dgram;
	int fd;
	int listen_fd;
	char path[108];
	int dirfd;
	bool dead;
	uint8_t *rbuf;
	size_t rstart, rend;
	uint8_t *backlog;
	size_t bstart, bend;
	uint8_t prefix[QSOCK_TX_FRAMES][4];
	struct iovec iov[2 * QSOCK_TX_FRAMES];
	unsigned niov, nframes;
	struct sockaddr_un peer;
	socklen_t peer_len;
	struct sockaddr_un from[EDGE_RX_BATCH];
	struct mmsghdr msgs[QSOCK_TX_FRAMES];
	uint8_t *dgbuf;
	struct iovec riov[EDGE_RX_BATCH];
	unsigned dg_next, dg_got;
	bool connected;
};

/**
 * qsock_bufs() - large socket buffers, so that bursts need no waiting
 * @fd:	socket
 *
 * #syscalls setsockopt
 */
static void qsock_bufs(int fd)
{
	int v = QSOCK_SOCKBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

/**
 * qsock_drop() - the guest went away: close its connection
 * @q:		state
 * @why:	reason, for the log
 *
 * Closing the socket also takes it out of the shard's epoll set. The
 * edge's generation moves on, as when a guest comes.
 *
 * #syscalls close connect
 */
static void qsock_drop(struct qsock *q, const char *why)
{
	info("the guest disconnected (%s): its flows are reset%s", why,
	     q->e->reconnect ? "; waiting for the next one" : "");
	CTR(q, EDGE_DISCONNECTS);
	if (q->dgram) {
		struct sockaddr unspec = { .sa_family = AF_UNSPEC };

		/* dissolve the association: anybody may send again */
		if (q->connected)
			connect(q->fd, &unspec, sizeof(unspec));
		q->connected = false;
		q->peer_len = 0;
	} else {
		close(q->fd);
		q->fd = -1;
	}
	q->dead = false;
	q->rstart = q->rend = 0;
	q->bstart = q->bend = 0;
	q->niov = q->nframes = 0;
	q->e->rx_pending[0] = false;
	/* the shard resets the old guest's flows when it sees this */
	q->e->gen++;
}

/**
 * qsock_stream_rx() - frames from a stream socket
 * @e:		edge
 * @qn:		queue (0)
 * @v:		views out, loans into the receive buffer
 * @max:	at most this many
 *
 * #syscalls read
 * Return: frames, 0 if none is complete yet, or -ECONNRESET if the guest
 * went away
 */
static int qsock_stream_rx(struct edge *e, unsigned qn, struct pkt_view *v,
			   unsigned max)
{
	struct qsock *q = e->priv;
	size_t used, more;
	ssize_t r;
	int n, k;

	(void)qn;
	if (q->fd < 0)
		return 0;
	if (q->dead) {
		qsock_drop(q, "end of stream");
		return -ECONNRESET;
	}
	/* the previous call's views are dead: the tail moves to the front */
	if (q->rstart) {
		memmove(q->rbuf, q->rbuf + q->rstart, q->rend - q->rstart);
		q->rend -= q->rstart;
		q->rstart = 0;
	}
	n = qframe_parse(q->rbuf, q->rend, v, max, QSOCK_FRAME_MAX, &used);
	if (n >= 0 && (unsigned)n < max) {
		/* at most one incomplete frame is left: there is room */
		r = read(q->fd, q->rbuf + q->rend, QSOCK_RBUF - q->rend);
		if (r > 0) {
			q->rend += (size_t)r;
			k = qframe_parse(q->rbuf + used, q->rend - used, v + n,
					 max - (unsigned)n, QSOCK_FRAME_MAX,
					 &more);
			n = k < 0 ? k : n + k;
			used += more;
		} else if (!r || (errno != EAGAIN && errno != EINTR)) {
			/* hand out what came before the end */
			q->dead = true;
			if (r && errno)
				debug("stream read: %s", strerror(errno));
		}
	}
	if (n < 0) {
		warn("the guest sent a frame length over %u bytes: closing its "
		     "connection",
		     QSOCK_FRAME_MAX);
		CTR(q, EDGE_BAD_FRAMING);
		qsock_drop(q, "bad framing");
		return -ECONNRESET;
	}
	q->rstart = used;
	e->rx_pending[0] = q->dead || (unsigned)n == max;
	if (!n && q->dead) {
		qsock_drop(q, "end of stream");
		return -ECONNRESET;
	}
	return n;
}

/**
 * qsock_wait_out() - wait until the socket takes more, within a budget
 * @q:		state
 * @left_ms:	budget left, decreased by the time waited
 *
 * #syscalls poll
 * Return: true if the budget is not used up
 */
static bool qsock_wait_out(struct qsock *q, int *left_ms)
{
	struct pollfd p = { .fd = q->fd, .events = POLLOUT };

	if (*left_ms <= 0)
		return false;
	if (*left_ms == QSOCK_WAIT_MS)
		CTR(q, EDGE_TX_WAITS);
	/* an unconnected datagram socket does not poll writable for its
	 * peer's queue: the wait is a sleep then */
	poll(&p, q->dgram && !q->connected ? 0 : 1, QSOCK_WAIT_SLICE_MS);
	*left_ms -= QSOCK_WAIT_SLICE_MS;
	return true;
}

/**
 * qsock_gone_errno() - does a send error mean the peer is gone?
 * @err:	errno
 *
 * Return: true if so
 */
static bool qsock_gone_errno(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ECONNREFUSED ||
	       err == ENOENT || err == ENOTCONN;
}

/**
 * qsock_backlog_add() - copy what the socket did not take to the backlog
 * @q:		state
 * @iov:	bytes
 * @cnt:	entries in @iov
 *
 * The caller made sure it fits (a partly written frame always does: the
 * backlog was empty when it was started).
 *
 * Return: @cnt
 */
static unsigned qsock_backlog_add(struct qsock *q, const struct iovec *iov,
				  unsigned cnt)
{
	unsigned k;

	for (k = 0; k < cnt; k++) {
		memcpy(q->backlog + q->bend, iov[k].iov_base, iov[k].iov_len);
		q->bend += iov[k].iov_len;
	}
	return cnt;
}

/**
 * qsock_stream_flush() - write the backlog, then the gathered frames
 * @e:		edge
 * @qn:		queue (0)
 *
 * What the socket does not take within the wait budget is copied to the
 * backlog, whole frames only being dropped when it is full.
 *
 * #syscalls sendto sendmsg
 * Return: 0, or -ECONNRESET if the guest went away
 */
static int qsock_stream_flush(struct edge *e, unsigned qn)
{
	struct qsock *q = e->priv;
	int left_ms = QSOCK_WAIT_MS;
	unsigned i = 0, f;
	ssize_t r;

	(void)qn;
	if (q->fd < 0)
		return 0;
	while (q->bstart < q->bend) {
		r = send(q->fd, q->backlog + q->bstart, q->bend - q->bstart,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r > 0) {
			q->bstart += (size_t)r;
		} else if (errno == EAGAIN) {
			if (!qsock_wait_out(q, &left_ms))
				break;
		} else if (errno != EINTR) {
			qsock_drop(q, strerror(errno));
			return -ECONNRESET;
		}
	}
	if (q->bstart == q->bend)
		q->bstart = q->bend = 0;
	while (i < q->niov && q->bstart == q->bend) {
		struct msghdr mh = { .msg_iov = q->iov + i,
				     .msg_iovlen = q->niov - i };

		r = sendmsg(q->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				qsock_drop(q, strerror(errno));
				return -ECONNRESET;
			}
			if (!qsock_wait_out(q, &left_ms))
				break;
			continue;
		}
		while (i < q->niov && (size_t)r >= q->iov[i].iov_len)
			r -= (ssize_t)q->iov[i++].iov_len;
		if (i < q->niov) {
			q->iov[i].iov_base = (uint8_t *)q->iov[i].iov_base + r;
			q->iov[i].iov_len -= (size_t)r;
		}
	}
	/* the rest goes to the backlog: the partly written frame always
	 * (the framing needs it), whole frames while they fit */
	if (i < q->niov && q->bstart) {
		memmove(q->backlog, q->backlog + q->bstart,
			q->bend - q->bstart);
		q->bend -= q->bstart;
		q->bstart = 0;
	}
	f = i;
	if (f < q->niov && (f & 1))
		qsock_backlog_add(q, &q->iov[f++], 1);
	else if (f < q->niov && q->iov[f].iov_base != (void *)q->prefix[f / 2])
		f += qsock_backlog_add(q, &q->iov[f], 2);
	for (; f < q->niov; f += 2) {
		if (q->bend + q->iov[f].iov_len + q->iov[f + 1].iov_len >
		    QSOCK_BACKLOG)
			CTR(q, EDGE_TX_DROPPED);
		else
			qsock_backlog_add(q, &q->iov[f], 2);
	}
	q->niov = q->nframes = 0;
	return 0;
}

/**
 * qsock_stream_tx() - gather a frame for the next flush
 * @e:		edge
 * @qn:		queue (0)
 * @iov:	the frame; it must stay valid until the flush
 * @iovcnt:	entries in @iov (1)
 *
 * A full gather list is flushed first.
 *
 * Return: 0, -EIO if no guest is connected, -EMSGSIZE for more than one
 * entry or a frame over QSOCK_FRAME_MAX, -ECONNRESET if it went away
 */
static int qsock_stream_tx(struct edge *e, unsigned qn, const struct iovec *iov,
			   int iovcnt)
{
	struct qsock *q = e->priv;
	size_t len = iov[0].iov_len;
	int ret;

	if (q->fd < 0)
		return -EIO;
	if (iovcnt != 1 || len > QSOCK_FRAME_MAX)
		return -EMSGSIZE;
	if (q->nframes == QSOCK_TX_FRAMES) {
		ret = qsock_stream_flush(e, qn);
		if (ret)
			return ret;
	}
	q->prefix[q->nframes][0] = (uint8_t)(len >> 24);
	q->prefix[q->nframes][1] = (uint8_t)(len >> 16);
	q->prefix[q->nframes][2] = (uint8_t)(len >> 8);
	q->prefix[q->nframes][3] = (uint8_t)len;
	q->iov[q->niov].iov_base = q->prefix[q->nframes];
	q->iov[q->niov++].iov_len = 4;
	q->iov[q->niov++] = iov[0];
	q->nframes++;
	return 0;
}

/**
 * qsock_same_peer() - is a datagram's source the current peer?
 * @q:		state
 * @a:		source address
 * @len:	its length
 *
 * Return: true if so
 */
static bool qsock_same_peer(const struct qsock *q, const struct sockaddr_un *a,
			    socklen_t len)
{
	return len == q->peer_len && !memcmp(a, &q->peer, len);
}

/**
 * qsock_dgram_rx() - frames from the datagram socket
 * @e:		edge
 * @qn:		queue (0)
 * @v:		views out, loans into the frame slots
 * @max:	at most this many
 *
 * A datagram from a new named peer ends the batch before it: the next
 * call adopts the peer (bumping @e->gen, so that the shard resets the old
 * guest's flows first) and goes on from there without receiving. (Once
 * connected to a peer, only that peer's datagrams arrive.)
 *
 * #syscalls recvmmsg connect
 * Return: frames, 0 if none, or -errno
 */
static int qsock_dgram_rx(struct edge *e, unsigned qn, struct pkt_view *v,
			  unsigned max)
{
	struct qsock *q = e->priv;
	unsigned n = 0, i;
	int got;

	(void)qn;
	if (max > EDGE_RX_BATCH)
		max = EDGE_RX_BATCH;
	if (q->dg_next >= q->dg_got) {
		for (i = 0; i < max; i++) {
			memset(&q->msgs[i].msg_hdr, 0,
			       sizeof(q->msgs[i].msg_hdr));
			q->msgs[i].msg_hdr.msg_name = &q->from[i];
			q->msgs[i].msg_hdr.msg_namelen = sizeof(q->from[i]);
			q->msgs[i].msg_hdr.msg_iov = &q->riov[i];
			q->msgs[i].msg_hdr.msg_iovlen = 1;
		}
		got = recvmmsg(q->fd, q->msgs, max, MSG_DONTWAIT, NULL);
		if (got < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		q->dg_got = (unsigned)got;
		q->dg_next = 0;
	}
	while (q->dg_next < q->dg_got && n < max) {
		i = q->dg_next;
		struct msghdr *mh = &q->msgs[i].msg_hdr;
		size_t len = q->msgs[i].msg_len;
		socklen_t alen = mh->msg_namelen;
		bool named = alen > offsetof(struct sockaddr_un, sun_path);

		if (named && !qsock_same_peer(q, &q->from[i], alen)) {
			if (n)
				break; /* the old guest's frames first */
			if (q->peer_len) {
				info("a new guest took over the socket: the "
				     "old one's flows are reset");
				CTR(q, EDGE_DISCONNECTS);
			}
			memcpy(&q->peer, &q->from[i], alen);
			q->peer_len = alen;
			/* refused by a peer connected elsewhere, or one gone
			 * already: served unconnected, by address */
			q->connected = !connect(
				q->fd, (struct sockaddr *)&q->peer, alen);
			e->gen++;
			CTR(q, EDGE_CONNECTS);
			info("guest at %.*s",
			     (int)(alen -
				   offsetof(struct sockaddr_un, sun_path)),
			     q->peer.sun_path);
		}
		q->dg_next++;
		if (len == 4 && !memcmp(q->riov[i].iov_base, "VFKT", 4)) {
			CTR(q, EDGE_VFKIT_HELLO);
			continue;
		}
		if ((mh->msg_flags & MSG_TRUNC) || len > QSOCK_FRAME_MAX) {
			CTR(q, EDGE_RX_DROP_SIZE);
			continue;
		}
		v[n] = (struct pkt_view){ .p = q->riov[i].iov_base,
					  .len = len };
		n++;
	}
	e->rx_pending[0] = q->dg_next < q->dg_got;
	return (int)n;
}

/**
 * qsock_dgram_flush() - send the gathered datagrams
 * @e:		edge
 * @qn:		queue (0)
 *
 * #syscalls sendmmsg
 * Return: 0, or -ECONNRESET if the peer's socket is gone
 */
static int qsock_dgram_flush(struct edge *e, unsigned qn)
{
	struct qsock *q = e->priv;
	int left_ms = QSOCK_WAIT_MS;
	unsigned i = 0, k;
	int r;

	(void)qn;
	for (k = 0; k < q->nframes; k++) {
		memset(&q->msgs[k].msg_hdr, 0, sizeof(q->msgs[k].msg_hdr));
		if (!q->connected) {
			q->msgs[k].msg_hdr.msg_name = &q->peer;
			q->msgs[k].msg_hdr.msg_namelen = q->peer_len;
		}
		q->msgs[k].msg_hdr.msg_iov = &q->iov[k];
		q->msgs[k].msg_hdr.msg_iovlen = 1;
	}
	while (i < q->nframes) {
		r = sendmmsg(q->fd, q->msgs + i, q->nframes - i,
			     MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r > 0) {
			i += (unsigned)r;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (qsock_gone_errno(errno)) {
			q->nframes = q->niov = 0;
			qsock_drop(q, "its socket is gone");
			/* the rest of the receive batch is the old guest's */
			return -ECONNRESET;
		}
		if ((errno == EAGAIN || errno == ENOBUFS) &&
		    qsock_wait_out(q, &left_ms))
			continue;
		/* too big for the peer, or it stays full: drop one */
		debug("datagram edge send: %s", strerror(errno));
		CTR(q, EDGE_TX_DROPPED);
		i++;
	}
	q->nframes = q->niov = 0;
	return 0;
}

/**
 * qsock_dgram_tx() - gather a datagram for the next flush
 * @e:		edge
 * @qn:		queue (0)
 * @iov:	the frame; it must stay valid until the flush
 * @iovcnt:	entries in @iov (1)
 *
 * A full gather list is flushed first.
 *
 * Return: 0, -EIO if no guest has spoken yet, -EMSGSIZE for more than one
 * entry, -ECONNRESET if the guest's socket is gone
 */
static int qsock_dgram_tx(struct edge *e, unsigned qn, const struct iovec *iov,
			  int iovcnt)
{
	struct qsock *q = e->priv;
	int ret;

	if (!q->peer_len)
		return -EIO;
	if (iovcnt != 1)
		return -EMSGSIZE;
	if (q->nframes == QSOCK_TX_FRAMES) {
		ret = qsock_dgram_flush(e, qn);
		if (ret)
			return ret;
	}
	q->iov[q->nframes++] = iov[0];
	return 0;
}

/**
 * qsock_dgram_tick() - is the datagram guest's socket still there?
 * @e:	edge
 *
 * While connected to a guest, nobody else can reach us: a guest that
 * stopped without our noticing (nothing was sent to it since) would keep
 * the next one out. A connect() to its path from a spare socket tells:
 * refused, or no such file, means it is gone.
 *
 * #syscalls socket connect close
 * Return: 0, or -ECONNRESET if the guest is gone
 */
static int qsock_dgram_tick(struct edge *e)
{
	struct qsock *q = e->priv;
	int fd, err = 0;

	if (!q->connected)
		return 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&q->peer, q->peer_len))
		err = errno;
	close(fd);
	if (err != ECONNREFUSED && err != ENOENT)
		return 0;
	qsock_drop(q, "its socket is gone");
	return -ECONNRESET;
}

/**
 * qsock_fd() - the fd of a role
 * @e:		edge
 * @which:	role
 * @qn:		queue (0)
 *
 * Return: the connected or bound socket (EDGE_FD_QUEUE; -1 while no guest
 * is connected), the listening one (EDGE_FD_LISTEN), the socket file's
 * directory (EDGE_FD_DIR), or -1
 */
static int qsock_fd(const struct edge *e, enum edge_fd which, unsigned qn)
{
	const struct qsock *q = e->priv;

	(void)qn;
	switch (which) {
	case EDGE_FD_QUEUE:
		return q->fd;
	case EDGE_FD_LISTEN:
		return q->listen_fd;
	case EDGE_FD_DIR:
		return q->dirfd;
	default:
		return -1;
	}
}

/**
 * qsock_accept() - a guest connects to the listening stream socket
 * @e:	edge
 *
 * #syscalls accept4 close
 * Return: EDGE_ACCEPT_GUEST if it is now the guest, EDGE_ACCEPT_NONE if
 * there was nobody or it was refused (one guest at a time), or -errno
 */
static int qsock_accept(struct edge *e)
{
	struct qsock *q = e->priv;
	int fd = accept4(q->listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return errno == EAGAIN || errno == EINTR ||
				       errno == ECONNABORTED ?
			       EDGE_ACCEPT_NONE :
			       -errno;
	if (q->fd >= 0) {
		warn("a guest is connected already: refused another "
		     "connection");
		CTR(q, EDGE_REFUSED);
		close(fd);
		return EDGE_ACCEPT_NONE;
	}
	qsock_bufs(fd);
	q->fd = fd;
	e->gen++;
	CTR(q, EDGE_CONNECTS);
	info("guest connected to %s", q->path);
	return EDGE_ACCEPT_GUEST;
}

/**
 * qsock_path_dir() - open the directory of a file we made (a socket, the
 * stats file), O_PATH
 * @path:	the socket file
 *
 * The sandbox takes the host filesystem away; a directory fd opened now
 * still reaches the file at exit (and the sandbox lets it be removed).
 *
 * #syscalls:setup openat
 * Return: the directory's fd, or -1 (the file is then removed by path)
 */
int qsock_path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/**
 * qsock_path_unlink() - remove the socket file we made, close @dirfd
 * @dirfd:	from qsock_path_dir(), or -1
 * @path:	the socket file, as given
 *
 * A failure is only logged (debug): under --runas, the directory may not
 * be the new user's to write. What is there now is removed only if it is
 * still a socket: somebody may have put a file of theirs in its place.
 *
 * #syscalls unlinkat newfstatat close
 */
void qsock_path_unlink(int dirfd, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = dirfd >= 0 && slash ? slash + 1 : path;
	int at = dirfd >= 0 ? dirfd : AT_FDCWD;
	struct stat st;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW))
		debug("cannot remove %s: %s", path, strerror(errno));
	else if (!S_ISSOCK(st.st_mode))
		debug("not removing %s: no longer a socket", path);
	else if (unlinkat(at, name, 0))
		debug("cannot remove %s: %s", path, strerror(errno));
	if (dirfd >= 0)
		close(dirfd);
}

/**
 * qsock_fini() - close everything, remove the socket file we made
 * @e:	edge
 *
 * #syscalls close
 */
static void qsock_fini(struct edge *e)
{
	struct qsock *q = e->priv;

	if (!q)
		return;
	if (q->fd >= 0)
		close(q->fd);
	if (q->listen_fd >= 0)
		close(q->listen_fd);
	if (*q->path)
		qsock_path_unlink(q->dirfd, q->path);
	free(q->rbuf);
	free(q->backlog);
	free(q->dgbuf);
	free(q);
	e->priv = NULL;
}

static const struct edge_ops qsock_stream_ops = {
	.name = "stream",
	.rx = qsock_stream_rx,
	.tx = qsock_stream_tx,
	.fd = qsock_fd,
	.fini = qsock_fini,
	.accept = qsock_accept,
	.flush = qsock_stream_flush,
};

static const struct edge_ops qsock_dgram_ops = {
	.name = "dgram",
	.rx = qsock_dgram_rx,
	.tx = qsock_dgram_tx,
	.fd = qsock_fd,
	.fini = qsock_fini,
	.flush = qsock_dgram_flush,
	.tick = qsock_dgram_tick,
};

/**
 * qsock_bind_private() - bind a unix socket whose file only our user may
 * use (mode 0600)
 * @fd:		socket
 * @a:		address (a path)
 *
 * The file gets the mode the umask leaves of 0777, and fchmod() cannot
 * reach a socket's file before it exists: the umask is set to 0177 for
 * the bind and put back. The umask is the process's: this runs only at
 * start-up, before any other thread exists (and the seccomp filter
 * leaves umask out afterwards).
 *
 * Context: start-up, main thread
 * #syscalls:setup umask
 * #syscalls bind
 * Return: bind()'s result, errno kept
 */
int qsock_bind_private(int fd, const struct sockaddr_un *a)
{
	mode_t old = umask(0177);
	int ret = bind(fd, (const struct sockaddr *)a, sizeof(*a)), e = errno;

	umask(old);
	errno = e;
	return ret;
}

/**
 * qsock_bind() - a unix socket bound at @path, replacing a stale socket
 * @path:	where
 * @type:	SOCK_STREAM (listening) or SOCK_DGRAM
 *
 * Nothing but a socket is ever removed: a path that exists and is not a
 * socket (a regular file, a symlink, a directory) is an error, as is a
 * socket somebody serves. A socket file nobody serves (left by a killed
 * process: connecting is refused) is replaced. The new file is mode 0600
 * (qsock_bind_private()).
 *
 * #syscalls socket connect bind listen unlink close
 * #syscalls:setup lstat newfstatat
 * Return: the socket, or -errno (logged)
 */
static int qsock_bind(const char *path, int type)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st, st2;
	size_t len = strlen(path);
	int fd, probe;

	if (len >= sizeof(a.sun_path)) {
		err("socket path too long (at most %zu bytes): %s",
		    sizeof(a.sun_path) - 1, path);
		return -ENAMETOOLONG;
	}
	memcpy(a.sun_path, path, len + 1);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			err("%s exists and is not a socket: not replacing it "
			    "(remove it or choose another path)",
			    path);
			return -EEXIST;
		}
		probe = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		if (probe < 0)
			return -errno;
		if (!connect(probe, (struct sockaddr *)&a, sizeof(a))) {
			close(probe);
			err("%s is in use by a running program: stop it or "
			    "choose another path",
			    path);
			return -EADDRINUSE;
		}
		/* stale: remove it, if it is still the socket looked at */
		if (errno == ECONNREFUSED && !lstat(path, &st2) &&
		    S_ISSOCK(st2.st_mode) && st2.st_dev == st.st_dev &&
		    st2.st_ino == st.st_ino)
			unlink(path);
		close(probe);
	}
	fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (qsock_bind_private(fd, &a) ||
	    (type == SOCK_STREAM && listen(fd, 4))) {
		int ret = -errno;

		err_perror("cannot bind %s (does its directory exist and may "
			   "we write there?)",
			   path);
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * qsock_listen() - a listening unix stream socket at @path
 * @path:	where
 *
 * Return: the socket, or -errno (logged)
 */
int qsock_listen(const char *path)
{
	return qsock_bind(path, SOCK_STREAM);
}

/**
 * qsock_new() - what every socket edge starts with
 * @e:		edge to fill (zeroed)
 * @a:		@ctr: counters of the shard that will serve the edge
 * @ops:	the kind's ops
 *
 * Return: the edge's state, or NULL if out of memory
 */
static struct qsock *qsock_new(struct edge *e, const struct edge_args *a,
			       const struct edge_ops *ops)
{
	struct qsock *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	e->ops = ops;
	e->priv = q;
	e->qctr[0] = a->ctr;
	e->nqueues = 1;
	e->frame_max = QSOCK_FRAME_MAX;
	e->reconnect = true;
	q->e = e;
	q->fd = -1;
	q->listen_fd = -1;
	q->dirfd = -1;
	return q;
}

/**
 * qsock_dgram_edge_init() - the datagram edge: --dgram PATH binds
 * @e:		edge to fill (zeroed)
 * @a:		@path; @ctr, counters of the shard that will serve it
 *
 * Return: 0, or -errno (logged)
 */
int qsock_dgram_edge_init(struct edge *e, const struct edge_args *a)
{
	struct qsock *q;
	int i;

	e->mig_evfd = e->mig_state_fd = -1;
	q = qsock_new(e, a, &qsock_dgram_ops);
	if (!q)
		return -ENOMEM;
	q->dgram = true;
	q->dgbuf = malloc(EDGE_RX_BATCH * e->frame_max);
	if (!q->dgbuf)
		return -ENOMEM;
	snprintf(e->where, sizeof(e->where), "dgram socket %s", a->path);
	q->fd = qsock_bind(a->path, SOCK_DGRAM);
	if (q->fd < 0)
		return q->fd;
	snprintf(q->path, sizeof(q->path), "%s", a->path);
	q->dirfd = qsock_path_dir(a->path);
	qsock_bufs(q->fd);
	for (i = 0; i < EDGE_RX_BATCH; i++) {
		q->riov[i].iov_base = q->dgbuf + (size_t)i * e->frame_max;
		q->riov[i].iov_len = e->frame_max;
	}
	return 0;
}

/**
 * qsock_stream_edge_init() - the stream edge: --stream PATH listens, --fd N
 * is already connected
 * @e:		edge to fill (zeroed)
 * @a:		@path, or @fd (a connected stream socket: on 0 the edge
 *		owns it, on error the caller still does); @ctr, counters
 *		of the shard that will serve the edge
 *
 * With --fd there is no listening socket: the guest that leaves is the
 * last (@e->reconnect is false).
 *
 * #syscalls:setup getsockopt fcntl
 * Return: 0, or -errno (logged)
 */
int qsock_stream_edge_init(struct edge *e, const struct edge_args *a)
{
	int type = 0, fd = a->fd;
	socklen_t sl = sizeof(type);
	struct qsock *q;

	e->mig_evfd = e->mig_state_fd = -1;
	q = qsock_new(e, a, &qsock_stream_ops);
	if (!q)
		return -ENOMEM;
	q->rbuf = malloc(QSOCK_RBUF);
	q->backlog = malloc(QSOCK_BACKLOG);
	if (!q->rbuf || !q->backlog)
		return -ENOMEM;
	if (!a->path) {
		snprintf(e->where, sizeof(e->where), "stream socket fd %d", fd);
		e->reconnect = false;
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) ||
		    type != SOCK_STREAM) {
			err("--fd %d: not a stream socket", fd);
			return -ENOTSOCK;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		qsock_bufs(fd);
		q->fd = fd;
		e->gen = 1;
		CTR(q, EDGE_CONNECTS);
		return 0;
	}
	snprintf(e->where, sizeof(e->where), "stream socket %s", a->path);
	q->listen_fd = qsock_listen(a->path);
	if (q->listen_fd < 0)
		return q->listen_fd;
	snprintf(q->path, sizeof(q->path), "%s", a->path);
	q->dirfd = qsock_path_dir(a->path);
	return 0;
}
