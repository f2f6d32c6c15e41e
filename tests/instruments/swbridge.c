/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swbridge.c - bridge a tap device to a unix socket "socket edge" framing */

/*
 * DOC: Theory of Operation
 *
 * swbridge lets a real Linux TCP/IP stack in a network namespace drive a
 * gateway's socket edge, the way a QEMU guest would, but without a VM:
 *
 *	ip netns exec NS swbridge --tap tap0 --stream /run/gw.sock
 *
 * It connects to the gateway's unix socket first (retrying for up to
 * CONNECT_TIMEOUT_S while the path is missing or refuses), then creates the
 * tap device NAME in the current namespace (IFF_TAP | IFF_NO_PI, no vnet
 * header, so the kernel hands over complete frames with checksums), sets
 * its MTU and txqueuelen and brings it up. Once the tap exists the bridge
 * is ready; addressing is left to the caller.
 *
 * Two framings:
 *  - stream (--stream PATH, QEMU "-netdev stream", passt): AF_UNIX
 *    SOCK_STREAM, each Ethernet frame preceded by its length as a 32-bit
 *    big-endian number. A length of 0 or above FRAME_MAX is a protocol
 *    error and ends the bridge with status 1.
 *  - datagram (--dgram PATH --local LPATH, QEMU "-netdev dgram", vfkit):
 *    AF_UNIX SOCK_DGRAM bound at LPATH and connected to PATH, one frame per
 *    datagram. With --vfkit the datagram "VFKT" is sent before any frame,
 *    as vfkit does to announce itself.
 *
 * Two threads move the frames, each with blocking I/O:
 *  - tap to socket: one blocking wait for the tap, then non-blocking reads
 *    until it is empty or a batch holds --batch frames (BATCH_FRAMES at
 *    most, the default) or BATCH_BYTES bytes; the batch leaves in one
 *    sendmsg() (stream: a length prefix and a frame per pair of iovecs,
 *    partial writes resumed where they stopped) or one sendmmsg()
 *    (datagram). --batch 1 writes one frame per call, as QEMU does, for
 *    comparing how a gateway copes with either pattern.
 *  - socket to tap: stream reads of up to SOCK_BUF_LEN bytes, cut into
 *    frames, the partial tail kept for the next read; or recvmmsg() batches
 *    of datagrams. Each frame is one write() to the tap; a failed tap write
 *    (ENOBUFS, EAGAIN, ...) is a drop, counted, never fatal.
 *
 * The main thread only waits for a signal: SIGTERM or SIGINT (status 0), or
 * SIGUSR1 from a worker that ended (peer closed: 0, error: 1). A stream
 * peer closes with EOF or a reset; a datagram peer is found gone when a
 * send is refused or a receive reports the reset. It then
 * prints one summary line to stderr and exits; the kernel removes the tap.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "tapdev.h"
#include "toolutil.h"

const char tool_name[] = "swbridge";

#define ETH_HDR_LEN 14
#define FRAME_MAX (65535 + ETH_HDR_LEN) /* largest frame */
#define TAP_READ_LEN (FRAME_MAX + 64)	/* room to see oversize */
#define PREFIX_LEN 4			/* stream: big-endian frame length */

#define BATCH_FRAMES 64		/* tap to socket, per batch, at most */
#define BATCH_BYTES (1u << 20)	/* tap to socket, per batch */
#define SOCK_BUF_LEN (1u << 20) /* stream socket to tap reads */
#define DGRAM_BATCH 64		/* datagram socket to tap */

#define SOCK_BUF_SIZE (4 << 20) /* SO_SNDBUF, SO_RCVBUF */
#define VFKIT_MAGIC "VFKT"

static const char *const dir_str[] = { "tap->socket", "socket->tap" };
static_assert(sizeof(dir_str) / sizeof(dir_str[0]) == DIR_NUM,
	      "dir_str must name every enum dir");

/**
 * struct opts - command line
 * @tap:	tap device name
 * @mtu:	MTU for the tap
 * @qlen:	txqueuelen for the tap (--queue-frames)
 * @batch:	most frames per socket write (--batch)
 * @stream:	stream socket path, or NULL
 * @dgram:	datagram peer socket path, or NULL
 * @local:	datagram local socket path, or NULL
 * @vfkit:	send the vfkit magic first (datagram only)
 */
struct opts {
	const char *tap;
	unsigned int mtu;
	unsigned int qlen;
	unsigned int batch;
	const char *stream;
	const char *dgram;
	const char *local;
	bool vfkit;
};

/**
 * struct bridge - state shared by the threads
 * @tap_fd:	tap device, non-blocking (O_NONBLOCK is per open file, so
 *		tap writes are non-blocking too: tun writes never wait anyway)
 * @sock_fd:	connected unix socket, blocking
 * @stream:	stream framing (else datagram)
 * @batch:	most frames per socket write, 1 to BATCH_FRAMES
 * @main_tid:	main thread, told with SIGUSR1 when a worker ends
 * @end:	first reason a worker ended, an enum end
 * @ctr:	counters, by enum dir
 */
struct bridge {
	int tap_fd;
	int sock_fd;
	bool stream;
	unsigned int batch;
	pthread_t main_tid;
	_Atomic int end;
	struct dir_ctr ctr[DIR_NUM];
};

/**
 * bridge_end() - record why a worker ends and wake the main thread
 * @b:		bridge
 * @why:	END_PEER or END_ERROR
 *
 * See worker_end().
 */
static void bridge_end(struct bridge *b, enum end why)
{
	worker_end(&b->end, b->main_tid, why);
}

/**
 * usage() - print the command line summary
 * @f:	stream to print to
 */
static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  swbridge --tap NAME [--mtu N] [--queue-frames N] [--batch N]\n"
	      "           (--stream PATH | --dgram PATH --local PATH "
	      "[--vfkit])\n"
	      "\n"
	      "Bridge a tap device, created in the current network namespace, "
	      "to a\n"
	      "unix socket speaking a socket edge framing:\n"
	      "  --stream PATH     connect to PATH (SOCK_STREAM); each frame "
	      "is\n"
	      "                    preceded by a 4-byte big-endian length "
	      "(QEMU\n"
	      "                    -netdev stream, passt)\n"
	      "  --dgram PATH      send to PATH (SOCK_DGRAM), one frame per "
	      "datagram\n"
	      "                    (QEMU -netdev dgram, vfkit)\n"
	      "  --local PATH      datagram: bind here (an old file is "
	      "removed)\n"
	      "  --vfkit           datagram: send \"VFKT\" before any frame\n"
	      "  --tap NAME        tap device to create (IFF_TAP, no vnet "
	      "header)\n"
	      "  --mtu N           its MTU (default 65520)\n"
	      "  --queue-frames N  its txqueuelen (default 10000)\n"
	      "  --batch N         at most N frames per socket write (default "
	      "and\n"
	      "                    most 64; 1 writes each frame alone, as QEMU "
	      "does)\n"
	      "\n"
	      "The socket is connected first (retried for 5 s), then the tap "
	      "is\n"
	      "created and brought up; addressing is left to the caller. Runs "
	      "until\n"
	      "the peer closes or SIGTERM/SIGINT, then prints frames, bytes "
	      "and drops\n"
	      "each way on stderr.\n"
	      "\n"
	      "Exit status: 0 peer closed or signal, 1 error, 2 usage.\n",
	      f);
}

/**
 * parse_args() - parse the command line
 * @argc:	argument count
 * @argv:	arguments
 * @o:		filled in
 */
static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "tap", required_argument, NULL, 't' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "queue-frames", required_argument, NULL, 'q' },
		{ "batch", required_argument, NULL, 'b' },
		{ "stream", required_argument, NULL, 's' },
		{ "dgram", required_argument, NULL, 'd' },
		{ "local", required_argument, NULL, 'l' },
		{ "vfkit", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->mtu = MTU_DEFAULT;
	o->qlen = QLEN_DEFAULT;
	o->batch = BATCH_FRAMES;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			check_tap_name(optarg);
			o->tap = optarg;
			break;
		case 'm':
			o->mtu = parse_uint("--mtu", optarg, 68, MTU_MAX);
			break;
		case 'q':
			o->qlen = parse_uint("--queue-frames", optarg, 1,
					     1u << 24);
			break;
		case 'b':
			o->batch = parse_uint("--batch", optarg, 1,
					      BATCH_FRAMES);
			break;
		case 's':
			check_path("--stream", optarg);
			o->stream = optarg;
			break;
		case 'd':
			check_path("--dgram", optarg);
			o->dgram = optarg;
			break;
		case 'l':
			check_path("--local", optarg);
			o->local = optarg;
			break;
		case 'V':
			o->vfkit = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			getopt_fail(c, argv);
		}
	}
	args_done(argc, argv, o->tap);
	if (!o->stream == !o->dgram)
		usage_error("give exactly one of --stream and --dgram");
	if (o->dgram && !o->local)
		usage_error("--dgram needs --local PATH");
	if (o->stream && o->local)
		usage_error("--local goes with --dgram only");
	if (o->stream && o->vfkit)
		usage_error("--vfkit goes with --dgram only");
}

/**
 * set_sock_bufs() - ask for SOCK_BUF_SIZE socket buffers
 * @fd:		socket
 *
 * The FORCE variants ignore rmem_max and wmem_max but need CAP_NET_ADMIN;
 * without it, the plain options give what the limits allow.
 *
 * #syscalls setsockopt
 */
static void set_sock_bufs(int fd)
{
	int v = SOCK_BUF_SIZE;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

/**
 * unix_addr() - fill in a unix socket address
 * @a:		result
 * @path:	path, checked by check_path()
 *
 * Return: the address length for bind() or connect()
 */
static socklen_t unix_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, path, strlen(path));
	return (socklen_t)sizeof(*a);
}

/**
 * sock_open() - open and connect the socket edge
 * @o:		command line
 *
 * #syscalls socket bind unlink connect
 * Return: the connected socket; exits with status 1 on failure
 */
static int sock_open(const struct opts *o)
{
	const char *peer = o->stream ? o->stream : o->dgram;
	struct sockaddr_un a;
	socklen_t len;
	int fd, rc;

	fd = socket(AF_UNIX,
		    (o->stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "swbridge: socket: %s\n", strerror(errno));
		exit(1);
	}
	set_sock_bufs(fd);
	if (o->dgram) {
		len = unix_addr(&a, o->local);
		if (unlink(o->local) && errno != ENOENT) {
			fprintf(stderr, "swbridge: unlink %s: %s\n", o->local,
				strerror(errno));
			exit(1);
		}
		if (bind(fd, (struct sockaddr *)&a, len)) {
			fprintf(stderr, "swbridge: bind %s: %s\n", o->local,
				strerror(errno));
			exit(1);
		}
	}
	rc = connect_retry(fd, peer, true);
	if (rc) {
		fprintf(stderr, "swbridge: connect %s: %s\n", peer,
			strerror(-rc));
		exit(1);
	}
	return fd;
}

/**
 * tap_open() - create the tap device, set MTU and queue length, bring it up
 * @o:		command line
 *
 * Return: the tap file descriptor, non-blocking; exits with status 1 on
 *	   failure
 */
static int tap_open(const struct opts *o)
{
	int fd = tap_create(o->tap, 0);

	tap_link_up(o->tap, o->tap, o->mtu, o->qlen);
	return fd;
}

/**
 * tap_read() - read one frame from the tap without waiting
 * @b:		bridge
 * @buf:	room for TAP_READ_LEN bytes
 *
 * #syscalls read
 * Return: frame length, 0 if none is queued, or -errno
 */
static ssize_t tap_read(const struct bridge *b, uint8_t *buf)
{
	for (;;) {
		ssize_t r = read(b->tap_fd, buf, TAP_READ_LEN);

		if (r > 0)
			return r;
		if (r == 0)
			return -EIO; /* not expected from a tap */
		if (errno == EAGAIN)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/**
 * tap_write() - write one frame to the tap; a failure is a drop
 * @b:		bridge
 * @p:		frame
 * @len:	its length
 */
static void tap_write(struct bridge *b, const uint8_t *p, size_t len)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };

	tap_put(b->tap_fd, &b->ctr[DIR_TO_TAP], &iov, 1, len);
}

/**
 * peer_gone() - tell whether a socket error means the peer went away
 * @err:	errno
 *
 * Return: true for a closed or reset peer (stream) or a datagram peer that
 *	   no longer exists
 */
static bool peer_gone(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ECONNREFUSED ||
	       err == ENOTCONN;
}

/**
 * sock_error() - end the bridge after a socket error
 * @b:		bridge
 * @what:	call that failed, for the message
 * @err:	errno
 */
static void sock_error(struct bridge *b, const char *what, int err)
{
	if (peer_gone(err)) {
		bridge_end(b, END_PEER);
		return;
	}
	fprintf(stderr, "swbridge: %s: %s\n", what, strerror(err));
	bridge_end(b, END_ERROR);
}

/**
 * send_all() - send a whole iovec array on the stream socket
 * @b:		bridge
 * @iov:	data; modified as it is consumed
 * @cnt:	entries in @iov
 *
 * A partial send resumes exactly where it stopped, inside a prefix or a
 * frame alike, so the byte stream is never split wrongly.
 *
 * #syscalls sendmsg
 * Return: 0, or -errno
 */
static int send_all(struct bridge *b, struct iovec *iov, int cnt)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };

	while (mh.msg_iovlen) {
		ssize_t r = sendmsg(b->sock_fd, &mh, MSG_NOSIGNAL);
		size_t n;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = (size_t)r;
		while (mh.msg_iovlen && n >= mh.msg_iov->iov_len) {
			n -= mh.msg_iov->iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (n) {
			struct iovec *v = mh.msg_iov;

			v->iov_base = (uint8_t *)v->iov_base + n;
			v->iov_len -= n;
		}
	}
	return 0;
}

/**
 * send_dgrams() - send a batch of frames, one datagram each, and count them
 * @b:		bridge
 * @mm:		one message per frame, msg_hdr filled in
 * @cnt:	entries in @mm
 *
 * A frame the socket refuses for its size or for lack of memory is a drop.
 *
 * #syscalls sendmmsg
 * Return: 0, or -errno
 */
static int send_dgrams(struct bridge *b, struct mmsghdr *mm, unsigned int cnt)
{
	struct dir_ctr *c = &b->ctr[DIR_FROM_TAP];
	unsigned int done = 0;

	while (done < cnt) {
		int r = sendmmsg(b->sock_fd, mm + done, cnt - done,
				 MSG_NOSIGNAL);
		int i;

		if (r > 0) {
			for (i = 0; i < r; i++)
				ctr_add(&c->bytes,
					mm[done + (unsigned int)i]
						.msg_hdr.msg_iov->iov_len);
			ctr_add(&c->frames, (uint64_t)r);
			done += (unsigned int)r;
			continue;
		}
		if (r == 0 || errno == EINTR)
			continue;
		if (errno != EMSGSIZE && errno != ENOBUFS && errno != ENOMEM)
			return -errno;
		count_drop(c, errno); /* this one will not go */
		done++;
	}
	return 0;
}

/**
 * tap_to_sock() - thread: frames from the tap to the socket, in batches
 * @arg:	struct bridge
 *
 * Context: its own thread, the only writer of ctr[DIR_FROM_TAP]
 * Return: NULL
 */
static void *tap_to_sock(void *arg)
{
	static uint32_t prefix[BATCH_FRAMES];
	static struct iovec iov[BATCH_FRAMES * 2];
	static struct mmsghdr mm[BATCH_FRAMES];
	struct bridge *b = arg;
	struct dir_ctr *c = &b->ctr[DIR_FROM_TAP];
	size_t buf_len = BATCH_BYTES + TAP_READ_LEN;
	uint8_t *buf = malloc(buf_len);

	if (!buf) {
		fprintf(stderr, "swbridge: out of memory\n");
		bridge_end(b, END_ERROR);
		return NULL;
	}
	for (;;) {
		unsigned int n = 0;
		size_t off = 0;
		int rc;

		while (n < b->batch && off < BATCH_BYTES) {
			ssize_t r = tap_read(b, buf + off);

			if (r < 0) {
				fprintf(stderr, "swbridge: tap read: %s\n",
					strerror((int)-r));
				bridge_end(b, END_ERROR);
				return NULL;
			}
			if (!r) {
				if (n)
					break;
				rc = tap_wait(b->tap_fd);
				if (rc) {
					fprintf(stderr, "swbridge: poll: %s\n",
						strerror(-rc));
					bridge_end(b, END_ERROR);
					return NULL;
				}
				continue;
			}
			if (r > FRAME_MAX) {
				count_drop(c, 0);
				continue;
			}
			if (b->stream) {
				prefix[n] = htonl((uint32_t)r);
				iov[2 * n].iov_base = &prefix[n];
				iov[2 * n].iov_len = PREFIX_LEN;
				iov[2 * n + 1].iov_base = buf + off;
				iov[2 * n + 1].iov_len = (size_t)r;
			} else {
				iov[n].iov_base = buf + off;
				iov[n].iov_len = (size_t)r;
				memset(&mm[n], 0, sizeof(mm[n]));
				mm[n].msg_hdr.msg_iov = &iov[n];
				mm[n].msg_hdr.msg_iovlen = 1;
			}
			off += (size_t)r;
			n++;
		}
		if (!b->stream) {
			rc = send_dgrams(b, mm, n);
			if (rc) {
				sock_error(b, "sendmmsg", -rc);
				return NULL;
			}
			continue;
		}
		rc = send_all(b, iov, (int)n * 2);
		if (rc) {
			sock_error(b, "sendmsg", -rc);
			return NULL;
		}
		ctr_add(&c->frames, n);
		ctr_add(&c->bytes, off);
	}
}

/**
 * stream_to_tap() - thread: length-prefixed frames from the socket to the tap
 * @arg:	struct bridge
 *
 * Reads of up to SOCK_BUF_LEN bytes; every complete frame is written to the
 * tap, and the incomplete tail moves to the front of the buffer to be
 * completed by the next read. The buffer holds more than one largest frame,
 * so a read always has room.
 *
 * Context: its own thread, the only writer of ctr[DIR_TO_TAP]
 * #syscalls read
 * Return: NULL
 */
static void *stream_to_tap(void *arg)
{
	struct bridge *b = arg;
	uint8_t *buf = malloc(SOCK_BUF_LEN);
	size_t have = 0;

	if (!buf) {
		fprintf(stderr, "swbridge: out of memory\n");
		bridge_end(b, END_ERROR);
		return NULL;
	}
	for (;;) {
		ssize_t r = read(b->sock_fd, buf + have, SOCK_BUF_LEN - have);
		size_t pos = 0;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			sock_error(b, "read", errno);
			return NULL;
		}
		if (r == 0) {
			if (have)
				fprintf(stderr,
					"swbridge: peer closed inside "
					"a frame (%zu bytes left)\n",
					have);
			bridge_end(b, END_PEER);
			return NULL;
		}
		have += (size_t)r;
		while (have - pos >= PREFIX_LEN) {
			uint32_t len_be;
			size_t len;

			memcpy(&len_be, buf + pos, PREFIX_LEN);
			len = ntohl(len_be);
			if (!len || len > FRAME_MAX) {
				fprintf(stderr,
					"swbridge: protocol error: "
					"frame length %zu (1 to %u allowed)\n",
					len, FRAME_MAX);
				bridge_end(b, END_ERROR);
				return NULL;
			}
			if (have - pos < PREFIX_LEN + len)
				break;
			tap_write(b, buf + pos + PREFIX_LEN, len);
			pos += PREFIX_LEN + len;
		}
		if (pos) {
			memmove(buf, buf + pos, have - pos);
			have -= pos;
		}
	}
}

/**
 * dgram_to_tap() - thread: datagrams from the socket to the tap
 * @arg:	struct bridge
 *
 * Each recvmmsg() waits for one datagram and takes whatever else is queued,
 * up to DGRAM_BATCH. A truncated (oversize) or empty datagram is a drop.
 *
 * Context: its own thread, the only writer of ctr[DIR_TO_TAP]
 * #syscalls recvmmsg
 * Return: NULL
 */
static void *dgram_to_tap(void *arg)
{
	static struct iovec iov[DGRAM_BATCH];
	static struct mmsghdr mm[DGRAM_BATCH];
	struct bridge *b = arg;
	struct dir_ctr *c = &b->ctr[DIR_TO_TAP];
	uint8_t *buf = malloc((size_t)DGRAM_BATCH * FRAME_MAX);
	int i;

	if (!buf) {
		fprintf(stderr, "swbridge: out of memory\n");
		bridge_end(b, END_ERROR);
		return NULL;
	}
	for (i = 0; i < DGRAM_BATCH; i++) {
		iov[i].iov_base = buf + (size_t)i * FRAME_MAX;
		iov[i].iov_len = FRAME_MAX;
	}
	for (;;) {
		int r;

		for (i = 0; i < DGRAM_BATCH; i++) {
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		r = recvmmsg(b->sock_fd, mm, DGRAM_BATCH, MSG_WAITFORONE, NULL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			sock_error(b, "recvmmsg", errno);
			return NULL;
		}
		for (i = 0; i < r; i++) {
			if ((mm[i].msg_hdr.msg_flags & MSG_TRUNC) ||
			    !mm[i].msg_len) {
				count_drop(c, 0);
				continue;
			}
			tap_write(b, iov[i].iov_base, mm[i].msg_len);
		}
	}
}

/**
 * send_magic() - announce ourselves as vfkit does: one "VFKT" datagram
 * @fd:		connected datagram socket
 *
 * #syscalls send
 */
static void send_magic(int fd)
{
	while (send(fd, VFKIT_MAGIC, strlen(VFKIT_MAGIC), MSG_NOSIGNAL) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "swbridge: send %s: %s\n", VFKIT_MAGIC,
				strerror(errno));
			exit(1);
		}
	}
}

/**
 * main() - entry point
 * @argc:	argument count
 * @argv:	arguments
 *
 * #syscalls rt_sigprocmask rt_sigtimedwait clone3 exit_group
 * Return: 0 when the peer closed or on SIGTERM/SIGINT, 1 on error, 2 on
 *	   bad usage
 */
int main(int argc, char **argv)
{
	struct dir_count cnt[DIR_NUM] = { 0 };
	static struct bridge b;
	pthread_t t_rx, t_tx;
	const char *why;
	sigset_t set;
	struct opts o;
	int sig, end;
	enum dir d;

	parse_args(argc, argv, &o);
	signals_block(&set, 0);

	b.stream = !!o.stream;
	b.batch = o.batch;
	b.main_tid = pthread_self();
	b.sock_fd = sock_open(&o);
	if (o.vfkit)
		send_magic(b.sock_fd);
	b.tap_fd = tap_open(&o);

	if (pthread_create(&t_tx, NULL, tap_to_sock, &b) ||
	    pthread_create(&t_rx, NULL, b.stream ? stream_to_tap : dgram_to_tap,
			   &b)) {
		fprintf(stderr, "swbridge: cannot start threads\n");
		return 1;
	}

	do {
		sig = sigwaitinfo(&set, NULL);
		end = atomic_load(&b.end);
	} while (sig < 0 || (sig == SIGUSR1 && end == END_NONE));

	if (sig != SIGUSR1)
		why = sig == SIGTERM ? "SIGTERM" : "SIGINT";
	else
		why = end == END_PEER ? "peer closed" : "error";
	for (d = 0; d < DIR_NUM; d++)
		dir_ctr_sum(&cnt[d], &b.ctr[d]);
	print_summary(why, dir_str, cnt);
	if (o.local)
		unlink(o.local);
	/* exit() ends the workers too, wherever they block */
	return sig == SIGUSR1 && end == END_ERROR ? 1 : 0;
}
