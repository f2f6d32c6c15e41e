/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair.c - a connected TCP socket as state, and back (TCP_REPAIR)
 *
 * DOC: Theory of Operation
 *
 * What travels
 * ------------
 *
 * For a live migration whose destination cannot take the host sockets
 * themselves (another host: --migrate-repair), each flow's socket travels
 * as what the kernel's repair mode shows of it: its two addresses, the
 * next sequence number of each queue, the bytes still in each queue
 * (sent and not yet acknowledged by the peer, or received and not yet
 * acknowledged by the guest: we only peek until then), the windows, the
 * options the handshake agreed and the timestamp clock. repair_dump()
 * reads that and closes the socket in repair mode, which sends nothing:
 * the peer sees no FIN and no RST. repair_restore() makes a socket with
 * that state: bound to the same local address and port, "connected"
 * without a handshake, its queues filled, and takes it out of repair
 * mode, which sends a window probe so the peer resends what the gap lost.
 *
 * The helper and its cost
 * -----------------------
 *
 * Repair mode needs CAP_NET_ADMIN, and the gateway holds none: only
 * turning it on and off needs the capability (the queue selection, the
 * sequence numbers, the options, the windows, the timestamp and the
 * queues' contents need only the socket in repair mode), so that is the
 * repair helper's (repair_helper.c), a process of its own that main()
 * forks at start-up and hands us with repair_init(). Everything else is
 * done here. A request carries up to REPAIRH_BATCH sockets and costs a
 * round trip to the helper (some 30 us), one at a time for all the
 * shards (a lock): repair_dump() needs one per socket (on; off again
 * only if the dump fails), repair_restore() one per socket (off) plus
 * one per batch of fresh sockets put in repair mode ahead of need: one
 * of each family at repair_init(), then, whenever a restore took the
 * last one, as many as were taken so far (up to REPAIRH_BATCH), so that
 * a restore finds its socket ready and at most as many are made ahead as
 * were used (they stay until exit). If the helper is gone (it died, or
 * did not answer in REPAIRH_TIMEOUT_S) that is logged once, and every
 * later dump or restore fails: the flows stay where they were.
 *
 * What the network must do
 * ------------------------
 *
 * The addresses must exist where the socket is made again (on
 * another host: the source host's address moved with the VM, as a
 * cluster does for a pod), and nothing may answer the peer for the
 * tuple in between (on one host: no socket has it, so the kernel would
 * reset the peer; the network must drop, as it does while an address
 * moves between hosts).
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/mig.h"
#include "os/sockaddr.h"
#include "os/repair.h"
#include "os/repair_helper.h"
#include "util/log.h"
#include "util/util.h"

/**
 * struct repair_helper - the gateway's side of the repair helper
 * @lock:	one request at a time (the shards dump and restore at once)
 * @fd:		our end of its socket, or -1 (none, or it is gone)
 * @spare:	sockets made ahead in repair mode, unbound, per family (0:
 *		IPv4, 1: IPv6)
 * @nspare:	how many of each are in @spare
 * @taken:	how many of each were taken from @spare so far
 */
struct repair_helper {
	pthread_mutex_t lock;
	int fd;
	int spare[2][REPAIRH_BATCH];
	unsigned nspare[2];
	unsigned taken[2];
};

static struct repair_helper repair_h = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
};

/**
 * repair_set_locked() - TCP_REPAIR on or off for some sockets, by the
 * helper
 * @fds:	the sockets
 * @n:		how many: 1 to REPAIRH_BATCH
 * @op:		TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 * @res:	out: one result per socket, 0 or -errno
 *
 * A helper that is gone is forgotten here (logged once): later calls
 * fail at once.
 *
 * Context: any thread, repair_h.lock held
 * #syscalls close
 * Return: 0 (see @res), or -errno: no result is known (-EPERM: no helper)
 */
static int repair_set_locked(const int *fds, unsigned n, int op, int *res)
{
	int ret;

	if (repair_h.fd < 0)
		return -EPERM;
	ret = repairh_call(repair_h.fd, op, fds, n, res);
	if (ret) {
		err("the repair helper is gone (%s): no TCP socket can be put "
		    "in or out of repair mode from now on",
		    strerror(-ret));
		close(repair_h.fd);
		repair_h.fd = -1;
	}
	return ret;
}

/**
 * repair_on() - put a socket in repair mode, or take it out
 * @fd:		socket
 * @v:		TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 *
 * Context: any thread
 * Return: 0, or -errno (-EPERM without a repair helper)
 */
static int repair_on(int fd, int v)
{
	int ret, res = 0;

	pthread_mutex_lock(&repair_h.lock);
	ret = repair_set_locked(&fd, 1, v, &res);
	pthread_mutex_unlock(&repair_h.lock);
	return ret ? ret : res;
}

/**
 * repair_spare_fill_locked() - if none are left, make sockets ahead, in repair
 * mode: as many as were taken so far (at least 1, at most
 * REPAIRH_BATCH), with one request to the helper
 * @v6:		of family AF_INET6, else AF_INET
 *
 * Context: any thread, repair_h.lock held
 * #syscalls socket close
 * Return: 0 (or none are left), or -errno: none could be made
 */
static int repair_spare_fill_locked(bool v6)
{
	int fds[REPAIRH_BATCH], res[REPAIRH_BATCH], ret = 0, fd;
	struct repair_helper *h = &repair_h;
	unsigned want, n = 0, i;

	if (h->nspare[v6] || h->fd < 0)
		return h->nspare[v6] ? 0 : -EPERM;
	want = MIN(MAX(h->taken[v6], 1U), (unsigned)REPAIRH_BATCH);
	while (n < want) {
		fd = socket(v6 ? AF_INET6 : AF_INET,
			    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			ret = -errno;
			break;
		}
		fds[n++] = fd;
	}
	if (n)
		ret = repair_set_locked(fds, n, TCP_REPAIR_ON, res);
	for (i = 0; i < n; i++) {
		if (!ret && !res[i]) {
			h->spare[v6][h->nspare[v6]++] = fds[i];
			continue;
		}
		if (!ret && !h->nspare[v6])
			ret = res[i];
		close(fds[i]);
	}
	return h->nspare[v6] ? 0 : ret;
}

/**
 * repair_spare_get() - a fresh, unbound socket in repair mode
 * @v6:		of family AF_INET6, else AF_INET
 *
 * Taken from the sockets made ahead (repair_spare_fill_locked()), made
 * now if there are none.
 *
 * Context: any thread
 * Return: the socket (non-blocking, close-on-exec), or -errno
 */
static int repair_spare_get(bool v6)
{
	struct repair_helper *h = &repair_h;
	int fd;

	pthread_mutex_lock(&h->lock);
	fd = repair_spare_fill_locked(v6);
	if (!fd) {
		fd = h->spare[v6][--h->nspare[v6]];
		h->taken[v6]++;
	}
	pthread_mutex_unlock(&h->lock);
	return fd;
}

/**
 * repair_spare_fill() - make sockets ahead if none are left, so that the
 * next restore finds its socket ready
 * @v6:		of family AF_INET6, else AF_INET
 *
 * Context: any thread
 */
static void repair_spare_fill(bool v6)
{
	pthread_mutex_lock(&repair_h.lock);
	repair_spare_fill_locked(v6);
	pthread_mutex_unlock(&repair_h.lock);
}

/**
 * repair_init() - the repair helper to ask for repair mode from now on
 * @helper:	our end of its socket (repairh_start()), taken; or -1: none
 *		(every dump and restore fails with -EPERM)
 *
 * One socket of each family is made ahead at once (repair_spare_fill()).
 *
 * Context: set-up, before any shard runs
 */
void repair_init(int helper)
{
	repair_fini();
	pthread_mutex_lock(&repair_h.lock);
	repair_h.fd = helper;
	pthread_mutex_unlock(&repair_h.lock);
	repair_spare_fill(false);
	repair_spare_fill(true);
}

/**
 * repair_fini() - close the sockets made ahead, and the helper's socket
 * (the helper exits when it sees that)
 *
 * #syscalls close
 */
void repair_fini(void)
{
	unsigned v, i;

	pthread_mutex_lock(&repair_h.lock);
	for (v = 0; v < 2; v++) {
		for (i = 0; i < repair_h.nspare[v]; i++)
			close(repair_h.spare[v][i]);
		repair_h.nspare[v] = 0;
		repair_h.taken[v] = 0;
	}
	if (repair_h.fd >= 0)
		close(repair_h.fd);
	repair_h.fd = -1;
	pthread_mutex_unlock(&repair_h.lock);
}

/**
 * repair_queue() - select the queue that TCP_QUEUE_SEQ, recv() and send()
 * work on in repair mode
 * @fd:		socket
 * @q:		TCP_SEND_QUEUE or TCP_RECV_QUEUE
 *
 * #syscalls setsockopt
 * Return: 0, or -errno
 */
static int repair_queue(int fd, int q)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ?
		       -errno :
		       0;
}

/**
 * repair_sa() - a socket address from the stream's form
 * @v6:		an IPv6 socket
 * @a:		address (16 bytes)
 * @port:	port, host order
 * @ss:		out
 *
 * Return: its length
 */
static socklen_t repair_sa(bool v6, const uint8_t *a, uint16_t port,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (!v6) {
		struct sockaddr_in *s4 = (void *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a + 12, 4);
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
	{
		struct sockaddr_in6 *s6 = (void *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, a, 16);
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
}

/**
 * repair_read_sndq() - the send queue's next sequence number and bytes
 * @fd:		socket, in repair mode
 * @seq:	out: TCP_QUEUE_SEQ, the sequence number after the queue
 * @buf:	out: the bytes
 * @room:	bytes @buf holds: what SIOCOUTQ said before repair mode.
 *		The queue only shrinks since (we send nothing, the peer's
 *		acknowledgements may still come), so it fits
 * @len:	out: bytes read
 *
 * A peek of the send queue copies all of it at once, from its start
 * (the oldest byte not acknowledged) to @seq, whatever the buffer's
 * size: one peek, and its length is the queue's.
 *
 * #syscalls getsockopt recvfrom
 * Return: 0, or -errno
 */
static int repair_read_sndq(int fd, uint32_t *seq, uint8_t *buf, uint32_t room,
			    uint32_t *len)
{
	socklen_t sl = sizeof(*seq);
	int ret = repair_queue(fd, TCP_SEND_QUEUE);
	ssize_t n;

	*len = 0;
	if (ret)
		return ret;
	if (getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, seq, &sl))
		return -errno;
	if (!room)
		return 0;
	n = recv(fd, buf, room, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	*len = (uint32_t)n;
	return 0;
}

/**
 * repair_read_rcvq() - the receive queue's next sequence number and bytes
 * @fd:		socket, in repair mode
 * @seq:	out: TCP_QUEUE_SEQ, the sequence number after the queue
 * @buf:	out: the bytes
 * @room:	bytes @buf holds
 * @len:	out: bytes read
 *
 * The peer's segments may still arrive (repair mode does not stop them):
 * the sequence number is read before and after the bytes, and the read
 * is tried again if it moved, so that @seq is the end of exactly the
 * bytes read.
 *
 * #syscalls getsockopt recvfrom
 * Return: 0, -ENOSPC if the queue does not fit @room, -EAGAIN if it kept
 * growing, or -errno
 */
static int repair_read_rcvq(int fd, uint32_t *seq, uint8_t *buf, size_t room,
			    uint32_t *len)
{
	int ret = repair_queue(fd, TCP_RECV_QUEUE), tries;
	uint32_t after;
	socklen_t sl;
	ssize_t n;

	*len = 0;
	if (ret)
		return ret;
	for (tries = 0; tries < 3; tries++) {
		sl = sizeof(*seq);
		if (getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, seq, &sl))
			return -errno;
		/* a peek that copies nothing sees the queue's length */
		n = recv(fd, NULL, INT32_MAX,
			 MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN)
			return -errno;
		n = MAX(n, 0);
		if ((size_t)n > room)
			return -ENOSPC;
		*len = (uint32_t)n;
		/* one peek copies the whole queue, from its start */
		if (n && recv(fd, buf, (size_t)n, MSG_PEEK | MSG_DONTWAIT) != n)
			continue;
		sl = sizeof(after);
		if (getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &after, &sl))
			return -errno;
		if (after == *seq)
			return 0;
	}
	return -EAGAIN;
}

/**
 * repair_write_queue() - fill a queue of a socket in repair mode
 * @fd:		socket
 * @q:		TCP_SEND_QUEUE or TCP_RECV_QUEUE
 * @p:		bytes
 * @len:	how many
 *
 * The socket's buffer is raised to hold them first (a queue dumped from
 * a socket whose buffer had grown may not fit a new one's), with the
 * plain SO_SNDBUF and SO_RCVBUF: never past net.core.wmem_max and
 * rmem_max (the FORCE options would need CAP_NET_ADMIN, and a stream's
 * data must not charge the host more than any socket may). A queue that
 * does not fit then fails the restore.
 *
 * #syscalls getsockopt setsockopt sendto
 * Return: 0, or -errno (-EAGAIN, -ENOMEM: the queue does not fit)
 */
static int repair_write_queue(int fd, int q, const uint8_t *p, uint32_t len)
{
	int ret = repair_queue(fd, q), sz = (int)MIN(len, INT32_MAX / 4) * 2;
	int cur = 0;
	socklen_t sl = sizeof(cur);

	if (ret || !len)
		return ret;
	/* only when it must: a size set by hand stops the kernel's tuning */
	if (q == TCP_SEND_QUEUE) {
		if (!getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &sl) &&
		    cur < 2 * sz)
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	} else if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cur, &sl) &&
		   cur < 2 * sz) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	while (len) {
		ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (uint32_t)n;
	}
	return 0;
}

/**
 * repair_dump() - a connected socket's state into a repair record, then
 * the socket closed without a word to its peer
 * @fd:		the socket (closed on success)
 * @out:	where the record goes
 * @room:	bytes there
 * @shard:	the shard holding its flow
 * @len:	out: bytes written
 *
 * On failure the socket is left as it was (repair mode off again, by the
 * repair helper: if it went meanwhile, the socket stays in repair mode
 * and that is logged).
 *
 * #syscalls getsockopt getsockname getpeername ioctl setsockopt recvfrom
 * #syscalls close
 * Return: 0, -ENOSPC if @room is too small (see repair_size()), or
 * -errno (-EPERM: no repair helper)
 */
int repair_dump(int fd, uint8_t *out, size_t room, uint8_t shard, size_t *len)
{
	struct sockaddr_storage ls, ps;
	socklen_t ll = sizeof(ls), pl = sizeof(ps), sl;
	struct tcp_repair_window w;
	struct mig_repair r = { 0 };
	struct tcp_info ti;
	int outq = 0, inq, mss = 0, ret, off = -1, none = -1;
	socklen_t ol = sizeof(off);
	uint8_t *q;

	if (getsockname(fd, (struct sockaddr *)&ls, &ll) ||
	    getpeername(fd, (struct sockaddr *)&ps, &pl) ||
	    getsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, &ol) ||
	    ioctl(fd, SIOCOUTQ, &outq) || outq < 0)
		return -errno;
	/* peeks from the queue's head (we kept an offset): the receive
	 * queue's length is what a peek that copies nothing sees */
	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &none, sizeof(none));
	inq = (int)recv(fd, NULL, INT32_MAX,
			MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	if (inq < 0 && errno != EAGAIN) {
		ret = -errno;
		goto fail_off;
	}
	inq = MAX(inq, 0);
	ret = -ENOSPC;
	if (MIG_REPAIR_MAX((size_t)outq + (size_t)inq) > room)
		goto fail_off;
	ret = repair_on(fd, TCP_REPAIR_ON);
	if (ret)
		goto fail_off;
	r.v6 = ls.ss_family == AF_INET6;
	sockaddr_to(&ls, r.local, &r.lport);
	sockaddr_to(&ps, r.peer, &r.pport);
	/* the queues go straight to where the record keeps them, the
	 * receive queue right after the send queue; both may have changed
	 * since they were measured (acknowledgements, data from the peer) */
	q = out + MIG_REC_HDR + MIG_REPAIR_FIXED;
	ret = repair_read_sndq(fd, &r.snd_seq, q, (uint32_t)outq, &r.sndq_len);
	if (!ret)
		ret = repair_read_rcvq(fd, &r.rcv_seq, q + r.sndq_len,
				       room - MIG_REPAIR_MAX(r.sndq_len),
				       &r.rcvq_len);
	sl = sizeof(w);
	if (!ret && getsockopt(fd, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, &sl))
		ret = -errno;
	sl = sizeof(ti);
	if (!ret && getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl))
		ret = -errno;
	sl = sizeof(mss);
	if (!ret && getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl))
		ret = -errno;
	sl = sizeof(r.ts);
	if (!ret && getsockopt(fd, IPPROTO_TCP, TCP_TIMESTAMP, &r.ts, &sl))
		ret = -errno;
	if (ret)
		goto fail;
	r.mss = (uint16_t)MIN(MAX(mss, 64), 65535);
	if (ti.tcpi_options & TCPI_OPT_SACK)
		r.flags |= MIG_RPF_SACK;
	if (ti.tcpi_options & TCPI_OPT_TIMESTAMPS)
		r.flags |= MIG_RPF_TS;
	if (ti.tcpi_options & TCPI_OPT_WSCALE) {
		r.flags |= MIG_RPF_WSCALE;
		r.snd_wscale = ti.tcpi_snd_wscale;
		r.rcv_wscale = ti.tcpi_rcv_wscale;
	}
	r.snd_wl1 = w.snd_wl1;
	r.snd_wnd = w.snd_wnd;
	r.max_window = w.max_window;
	r.rcv_wnd = w.rcv_wnd;
	r.rcv_wup = w.rcv_wup;
	/* the queues are in place already: write the record around them
	 * (mig_put_repair() copies each onto itself) */
	r.sndq = q;
	r.rcvq = q + r.sndq_len;
	*len = mig_put_repair(out, room, shard, &r);
	ret = -ENOSPC;
	if (!*len)
		goto fail;
	/* in repair mode, close() sends nothing */
	close(fd);
	return 0;
fail:
	if (repair_on(fd, TCP_REPAIR_OFF_NO_WP))
		warn_rl("migration: a socket that could not be dumped stays "
			"in repair mode: its flow is stuck");
fail_off:
	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	return ret;
}

/**
 * repair_restore() - a socket made again from its repair state
 * @r:		the state
 *
 * The socket comes in repair mode already (repair_spare_get()); the
 * helper takes it out again at the end, with a window probe.
 *
 * #syscalls setsockopt bind connect sendto close
 * Return: the socket (non-blocking, connected, out of repair mode), or
 * -errno (-EPERM: no repair helper)
 */
int repair_restore(const struct mig_repair *r)
{
	struct sockaddr_storage ls, ps;
	socklen_t ll = repair_sa(r->v6, r->local, r->lport, &ls);
	socklen_t pl = repair_sa(r->v6, r->peer, r->pport, &ps);
	struct tcp_repair_window w = { .snd_wl1 = r->snd_wl1,
				       .snd_wnd = r->snd_wnd,
				       .max_window = r->max_window,
				       .rcv_wnd = r->rcv_wnd,
				       .rcv_wup = r->rcv_wup };
	struct tcp_repair_opt opt[4];
	int fd, ret, nopt = 0;
	uint32_t seq;

	/* in repair mode before the bind: repair mode forces reuse of the
	 * local port (SK_FORCE_REUSE), so that the bind below works even if
	 * other sockets, connected elsewhere or in TIME_WAIT, share the
	 * port, as ephemeral ports do. SO_REUSEADDR must not be set after
	 * it: it would lower that to an ordinary reuse, which such a socket
	 * refuses (EADDRINUSE) */
	fd = repair_spare_get(r->v6);
	if (fd < 0)
		return fd;
	/* the queues' starts: their next sequence less what they hold */
	seq = r->snd_seq - r->sndq_len;
	if (repair_queue(fd, TCP_SEND_QUEUE) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq, sizeof(seq)))
		goto fail_errno;
	seq = r->rcv_seq - r->rcvq_len;
	if (repair_queue(fd, TCP_RECV_QUEUE) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &seq, sizeof(seq)))
		goto fail_errno;
	if (bind(fd, (struct sockaddr *)&ls, ll) ||
	    connect(fd, (struct sockaddr *)&ps, pl))
		goto fail_errno;
	opt[nopt++] = (struct tcp_repair_opt){ TCPOPT_MAXSEG, r->mss };
	if (r->flags & MIG_RPF_WSCALE)
		opt[nopt++] = (struct tcp_repair_opt){
			TCPOPT_WINDOW,
			r->snd_wscale | ((uint32_t)r->rcv_wscale << 16)
		};
	if (r->flags & MIG_RPF_SACK)
		opt[nopt++] = (struct tcp_repair_opt){ TCPOPT_SACK_PERMITTED,
						       0 };
	if (r->flags & MIG_RPF_TS)
		opt[nopt++] = (struct tcp_repair_opt){ TCPOPT_TIMESTAMP, 0 };
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_OPTIONS, opt,
		       (socklen_t)(nopt * sizeof(opt[0]))))
		goto fail_errno;
	if ((r->flags & MIG_RPF_TS) &&
	    setsockopt(fd, IPPROTO_TCP, TCP_TIMESTAMP, &r->ts, sizeof(r->ts)))
		goto fail_errno;
	ret = repair_write_queue(fd, TCP_RECV_QUEUE, r->rcvq, r->rcvq_len);
	if (!ret)
		ret = repair_write_queue(fd, TCP_SEND_QUEUE, r->sndq,
					 r->sndq_len);
	if (ret)
		goto fail;
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w)))
		goto fail_errno;
	/* out of repair mode with a window probe: the peer learns we are
	 * here and resends what the gap lost */
	ret = repair_on(fd, TCP_REPAIR_OFF);
	if (ret)
		goto fail;
	repair_spare_fill(r->v6);
	return fd;
fail_errno:
	ret = -errno;
fail:
	close(fd);
	repair_spare_fill(r->v6);
	return ret;
}
