/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vu_msg.c - the vhost-user edge's control path, fed by a frontend
 * (edge/vhost_user.c)
 *
 * The edge is made once (vu_edge_init(), two queue pairs, on a socket in a
 * temporary directory). Each input connects a frontend to it, has the edge
 * accept it, and sends the input's records down the connection, handing
 * the edge's control handler what arrived after each (until it has read
 * all of it), and running the data path (a receive batch read through and
 * returned, a frame sent toward the guest) after each. At the end the
 * frontend closes its end and the handler runs until it sees that.
 *
 * Input: records, each
 *
 *   byte 0	bit 7 clear: bits 0-3 are how many fds go with the bytes
 *		(0..15: over 8 is a violation), bits 4-6 their kind:
 *		0, 7 the guest memory memfd (64 KiB, one per input),
 *		1 a new 4 KiB memfd, 2 a new empty memfd, 3, 4 an eventfd,
 *		5 /dev/zero (not a file), 6 a pipe's read end
 *		bit 7 set: the bytes go into guest memory instead, at 256
 *		times the byte after the length (the rings and frames)
 *   byte 1	the number of bytes, L
 *   L bytes	sent in one sendmsg() (with the fds), or written
 *
 * Every reply must be a whole reply header (our version, the reply flag, a
 * request we know) with an 8-byte payload. Afterwards: the edge has let
 * the frontend go (connects equal disconnects), every chain taken from a
 * transmit ring (loaned or copied) was returned, and the process has as
 * many fds open as before the input (the fds that came with messages, the
 * kick and call eventfds, the connection: none kept).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "edge/edge.h"
#include "edge/vu_proto.h"
#include "util/ctr.h"
#include "util/log.h"
#include "util/util.h"

#include "fuzz_common.h"
#include "fuzz_vu.h"

#define NPAIRS 2
#define GUEST_MEM 0x10000
#define MAX_FDS 15
#define REPLY_LEN (VU_HDR_LEN + 8)

static struct edge edge;
static char sock_path[96];
static uint64_t ctrs[NPAIRS][CTR_NUM];

/**
 * new_fd() - an fd of a kind, to send
 * @kind:	0..7, see the top of the file
 * @mem:	the guest memory memfd
 *
 * Return: a new fd (the caller closes it once sent)
 */
static int new_fd(unsigned kind, int mem)
{
	int fd = -1, p[2];

	switch (kind) {
	case 1:
	case 2:
		fd = memfd_create("fz", MFD_CLOEXEC);
		FZ_CHECK(fd >= 0 && !ftruncate(fd, kind == 1 ? 4096 : 0));
		break;
	case 3:
	case 4:
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		break;
	case 5:
		fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
		break;
	case 6:
		FZ_CHECK(!pipe2(p, O_CLOEXEC));
		close(p[1]);
		fd = p[0];
		break;
	default:
		fd = dup(mem);
	}
	FZ_CHECK(fd >= 0);
	return fd;
}

/**
 * send_bytes() - send bytes as the frontend, fds attached
 * @cfd:	the frontend's end
 * @p:		bytes
 * @len:	how many (may be 0: nothing is sent then)
 * @fds:	fds to attach
 * @nfds:	how many
 */
static void send_bytes(int cfd, const uint8_t *p, size_t len, const int *fds,
		       unsigned nfds)
{
	char cbuf[CMSG_SPACE(MAX_FDS * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (!len)
		return;
	if (nfds) {
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	/* the edge reads all of it before the next record: it fits; a
	 * connection the edge closed says EPIPE */
	(void)sendmsg(cfd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/**
 * drive_ctl() - run the control handler while the connection has bytes
 * @up:		the edge still serves the frontend; cleared when it stops
 */
static void drive_ctl(bool *up)
{
	struct pollfd pfd = { .events = POLLIN };
	unsigned rounds;

	for (rounds = 0; *up; rounds++) {
		/* each call handles at most VU_CTL_BATCH messages: the
		 * input has fewer than 64 KiB of them */
		FZ_CHECK(rounds < 4096);
		pfd.fd = edge.ops->fd(&edge, EDGE_FD_CTL, 0);
		if (poll(&pfd, 1, 0) != 1)
			return;
		if (edge.ops->ctl(&edge) < 0)
			*up = false;
	}
}

/**
 * drive_data() - the shards' part: each pair's transmit ring read through
 * (loans touched, then returned), and a frame toward the guest
 * @up:		the edge serves the frontend (a broken ring ends that)
 */
static void drive_data(bool *up)
{
	static const uint8_t frame[12 + 60] = { [12] = 0xff, [13] = 0xff };
	struct iovec iov = { .iov_base = (void *)frame,
			     .iov_len = sizeof(frame) };
	struct pkt_view v[EDGE_RX_BATCH];
	unsigned q, sum = 0;
	int n, i;
	size_t k;

	for (q = 0; q < NPAIRS; q++) {
		n = edge.ops->rx(&edge, q, v, EDGE_RX_BATCH);
		FZ_CHECK(n >= 0 && n <= EDGE_RX_BATCH);
		for (i = 0; i < n; i++) {
			FZ_CHECK(v[i].len <= edge.frame_max);
			for (k = 0; k < v[i].len; k++)
				sum += v[i].p[k];
		}
		edge.ops->rx_done(&edge, q);
		edge.ops->tx(&edge, q, &iov, 1);
		edge.ops->flush(&edge, q);
	}
	(void)sum;
	drive_ctl(up); /* a ring that broke shut the connection down */
}

/**
 * check_replies() - every reply waiting is whole and well formed
 * @cfd:	the frontend's end
 * @buf:	bytes of a reply read before, kept for the next call
 * @have:	how many, in and out
 */
static void check_replies(int cfd, uint8_t *buf, size_t *have)
{
	uint32_t req, flags, size;
	ssize_t n;

	for (;;) {
		n = recv(cfd, buf + *have, REPLY_LEN - *have, MSG_DONTWAIT);
		if (n <= 0)
			return;
		*have += (size_t)n;
		if (*have < REPLY_LEN)
			continue;
		memcpy(&req, buf, 4);
		memcpy(&flags, buf + 4, 4);
		memcpy(&size, buf + 8, 4);
		FZ_CHECK(req && req < VU_REQ_NUM);
		FZ_CHECK(flags == (VU_VERSION | VU_FLAG_REPLY));
		FZ_CHECK(size == 8);
		*have = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fds[MAX_FDS], before, mem, cfd;
	uint8_t rbuf[REPLY_LEN];
	size_t off = 0, have = 0;
	unsigned q;
	bool up;

	if (!edge.ops)
		fz_vu_setup(&edge, "fuzz_vu_msg", sock_path, sizeof(sock_path),
			    ctrs, NPAIRS);
	before = fz_fd_count();
	mem = memfd_create("guest", MFD_CLOEXEC);
	FZ_CHECK(mem >= 0 && !ftruncate(mem, GUEST_MEM));
	cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	FZ_CHECK(cfd >= 0 && !connect(cfd, (struct sockaddr *)&sa, sizeof(sa)));
	FZ_CHECK(edge.ops->accept(&edge) == EDGE_ACCEPT_CTL);
	up = true;

	while (off + 2 <= size) {
		unsigned hdr = data[off], len = data[off + 1], i, nfds;

		off += 2;
		if (hdr & 0x80) {
			size_t at;

			if (off >= size)
				break;
			at = (size_t)data[off++] * 256;
			len = (unsigned)MIN((size_t)len, size - off);
			if (len > GUEST_MEM - at)
				len = (unsigned)(GUEST_MEM - at);
			FZ_CHECK(pwrite(mem, data + off, len, (off_t)at) ==
				 (ssize_t)len);
		} else {
			len = (unsigned)MIN((size_t)len, size - off);
			nfds = len ? hdr & 0xf : 0;
			for (i = 0; i < nfds; i++)
				fds[i] = new_fd((hdr >> 4) & 7, mem);
			send_bytes(cfd, data + off, len, fds, nfds);
			for (i = 0; i < nfds; i++)
				close(fds[i]);
			drive_ctl(&up);
		}
		off += len;
		if (up)
			drive_data(&up);
		check_replies(cfd, rbuf, &have);
	}

	/* the frontend goes: the edge forgets it, and everything it gave */
	close(cfd);
	drive_ctl(&up);
	FZ_CHECK(!up);
	close(mem);
	FZ_CHECK(ctrs[0][CTR_EDGE_CONNECTS] == ctrs[0][CTR_EDGE_DISCONNECTS]);
	for (q = 0; q < NPAIRS; q++)
		FZ_CHECK(ctrs[q][CTR_EDGE_VU_LOANS] +
				 ctrs[q][CTR_EDGE_VU_COPIES] ==
			 ctrs[q][CTR_EDGE_VU_RETURNS]);
	FZ_CHECK(fz_fd_count() == before);
	if (fz_verbose)
		fprintf(stderr,
			"messages %llu, violations %llu, ring errors %llu, "
			"loans %llu, copies %llu, rx held %llu\n",
			(unsigned long long)ctrs[0][CTR_EDGE_VU_MESSAGES],
			(unsigned long long)ctrs[0][CTR_EDGE_VU_PROTO_ERRORS],
			(unsigned long long)(ctrs[0][CTR_EDGE_VU_RING_ERRORS] +
					     ctrs[1][CTR_EDGE_VU_RING_ERRORS]),
			(unsigned long long)(ctrs[0][CTR_EDGE_VU_LOANS] +
					     ctrs[1][CTR_EDGE_VU_LOANS]),
			(unsigned long long)(ctrs[0][CTR_EDGE_VU_COPIES] +
					     ctrs[1][CTR_EDGE_VU_COPIES]),
			(unsigned long long)ctrs[0][CTR_EDGE_VU_RX_HELD]);
	return 0;
}
