/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair.c - a connected TCP socket as state, and back (TCP_REPAIR)
 *
 * DOC: Theory of Operation
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
 * Repair mode needs CAP_NET_ADMIN: --migrate-repair keeps it through the
 * sandbox. The addresses must exist where the socket is made again (on
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
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/mig.h"
#include "host/repair.h"
#include "util/log.h"
#include "util/util.h"

/**
 * repair_on() - put a socket in repair mode, or take it out
 * @fd:		socket
 * @v:		TCP_REPAIR_ON, TCP_REPAIR_OFF
 *
 * #syscalls setsockopt
 * Return: 0, or -errno (-EPERM without CAP_NET_ADMIN)
 */
static int repair_on(int fd, int v)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &v, sizeof(v)) ? -errno :
									0;
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
 * repair_addr() - a socket address as the stream keeps it
 * @ss:		address
 * @a:		out: 16 bytes (IPv4 v4-mapped)
 * @port:	out: host order
 */
static void repair_addr(const struct sockaddr_storage *ss, uint8_t *a,
			uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		memset(a, 0, 10);
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		memcpy(a, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
	}
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
 * repair_read_queue() - a queue's sequence number and bytes
 * @fd:		socket, in repair mode
 * @q:		TCP_SEND_QUEUE or TCP_RECV_QUEUE
 * @seq:	out: TCP_QUEUE_SEQ
 * @buf:	out: the bytes
 * @len:	bytes the queue holds (SIOCOUTQ, SIOCINQ)
 *
 * #syscalls getsockopt recvfrom
 * Return: 0, or -errno
 */
static int repair_read_queue(int fd, int q, uint32_t *seq, uint8_t *buf,
			     uint32_t len)
{
	socklen_t sl = sizeof(*seq);
	uint32_t got = 0;
	int ret = repair_queue(fd, q);

	if (ret)
		return ret;
	if (getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, seq, &sl))
		return -errno;
	while (got < len) {
		ssize_t n = recv(fd, buf + got, len - got,
				 MSG_PEEK | MSG_DONTWAIT);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (uint32_t)n;
		/* the receive queue peeks from its start every time */
		if (q == TCP_RECV_QUEUE && got < len)
			return -EIO;
	}
	return 0;
}

/**
 * repair_write_queue() - fill a queue of a socket in repair mode
 * @fd:		socket
 * @q:		TCP_SEND_QUEUE or TCP_RECV_QUEUE
 * @p:		bytes
 * @len:	how many
 *
 * The socket's buffer is raised to hold them first (a queue dumped from
 * a socket whose buffer had grown may not fit a new one's).
 *
 * #syscalls getsockopt setsockopt sendto
 * Return: 0, or -errno
 */
static int repair_write_queue(int fd, int q, const uint8_t *p, uint32_t len)
{
	int ret = repair_queue(fd, q), sz = (int)MIN(len, INT32_MAX / 4) * 2;
	int cur = 0;
	socklen_t sl = sizeof(cur);

	if (ret || !len)
		return ret;
	/* only when it must: a size set by hand stops the kernel's tuning */
	if (!getsockopt(fd, SOL_SOCKET,
			q == TCP_SEND_QUEUE ? SO_SNDBUF : SO_RCVBUF, &cur,
			&sl) &&
	    cur < 2 * sz)
		setsockopt(fd, SOL_SOCKET,
			   q == TCP_SEND_QUEUE ? SO_SNDBUFFORCE :
						 SO_RCVBUFFORCE,
			   &sz, sizeof(sz));
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
 * On failure the socket is left as it was (repair mode off again).
 *
 * #syscalls getsockopt getsockname getpeername ioctl setsockopt recvfrom
 * #syscalls close
 * Return: 0, -ENOSPC if @room is too small (see repair_size()), or
 * -errno (-EPERM: no CAP_NET_ADMIN)
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
	repair_addr(&ls, r.local, &r.lport);
	repair_addr(&ps, r.peer, &r.pport);
	r.sndq_len = (uint32_t)outq;
	r.rcvq_len = (uint32_t)inq;
	/* the queues go straight to where the record keeps them */
	q = out + MIG_REC_HDR + MIG_REPAIR_FIXED;
	ret = repair_read_queue(fd, TCP_SEND_QUEUE, &r.snd_seq, q, r.sndq_len);
	if (!ret)
		ret = repair_read_queue(fd, TCP_RECV_QUEUE, &r.rcv_seq,
					q + r.sndq_len, r.rcvq_len);
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
	repair_on(fd, TCP_REPAIR_OFF_NO_WP);
fail_off:
	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	return ret;
}

/**
 * repair_restore() - a socket made again from its repair state
 * @r:		the state
 *
 * #syscalls socket setsockopt bind connect sendto close
 * Return: the socket (non-blocking, connected, out of repair mode), or
 * -errno
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

	fd = socket(r->v6 ? AF_INET6 : AF_INET,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* repair mode forces reuse of the local port (SK_FORCE_REUSE): the
	 * bind below works even if other sockets, connected elsewhere or in
	 * TIME_WAIT, share the port, as ephemeral ports do. SO_REUSEADDR
	 * must not be set after it: it would lower that to an ordinary
	 * reuse, which such a socket refuses (EADDRINUSE) */
	ret = repair_on(fd, TCP_REPAIR_ON);
	if (ret)
		goto fail;
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
	return fd;
fail_errno:
	ret = -errno;
fail:
	close(fd);
	return ret;
}
