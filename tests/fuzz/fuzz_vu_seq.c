/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vu_seq.c - the vhost-user edge's message sequence, device-state
 * messages included, in any order (edge/vhost_user.c)
 *
 * Where fuzz_vu_msg feeds raw bytes, this target builds whole messages:
 * each step of the input is one operation, most of them a well-formed
 * message of a request the edge serves (with the fd it wants, or a fake
 * one: an eventfd, a memfd, a pipe's end, /dev/zero), so that the edge
 * gets far into its states (features, memory, rings started, transfers
 * under way) and the order of the messages, not their framing, is what
 * varies. The edge is made once (vu_edge_init(), two queue pairs) with
 * the device-state channel on (@mig_devstate, a migration eventfd); the
 * harness plays the migration thread: it takes the fd a
 * SET_DEVICE_STATE_FD handed over and gives the verdict
 * (vu_device_state_done()) when the input says so, as that thread would
 * at any time.
 *
 * Input: a sequence of operations, each an opcode byte (modulo OP_NUM)
 * and the bytes that operation reads (fz_u8() and its kin; zeros past
 * the end):
 *   OP_GET_FEATURES, OP_GET_PFEATURES, OP_GET_QUEUE_NUM   (no payload)
 *   OP_SET_FEATURES, OP_SET_PFEATURES   a mask byte: the offered bits,
 *                                        one byte's pattern of them
 *   OP_SET_OWNER, OP_MEM_TABLE          (the 64 KiB guest memfd)
 *   OP_VRING_NUM, _ADDR, _BASE, _KICK, _CALL, _ENABLE, OP_GET_VRING_BASE
 *                                        a ring byte (0..3, or a bad
 *                                        index), a value byte
 *   OP_STATE_FD     direction byte, phase byte, fd kind byte (a pipe's
 *                   read or write end, an eventfd, a memfd, /dev/zero, or
 *                   no fd at all)
 *   OP_CHECK        a flags byte (NEED_REPLY or not)
 *   OP_TAKE         the thread takes the handed fd and closes it
 *   OP_VERDICT      a byte: the verdict (bit 0: failed)
 *   OP_KICKED       the thread reads its eventfd
 *   OP_DATA         a pair byte: a receive batch read and returned, a
 *                   frame toward the guest
 *   OP_RECONNECT    the frontend leaves, another connects
 *   OP_RAW          a length byte, then that many bytes sent as they are
 *
 * Checked after every step: each reply is a whole, well-formed one; a
 * CHECK_DEVICE_STATE is never answered twice; one sent with no transfer
 * under way is answered at once, with the last verdict (1 if none, or
 * after a refused SET_DEVICE_STATE_FD); one sent while a transfer is under
 * way is answered once the verdict comes, with it; a SET_DEVICE_STATE_FD
 * is refused while a transfer is under way, and a LOAD while a ring of
 * the edge runs; the edge never waits (a CHECK that slept would time the
 * input out). At the end: the frontend gone, the transfer ended, the
 * process has as many fds open as before the input.
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
#define UVA 0x7f0000000000ULL
#define REPLY_LEN (VU_HDR_LEN + 8)

enum op {
	OP_GET_FEATURES,
	OP_SET_FEATURES,
	OP_GET_PFEATURES,
	OP_SET_PFEATURES,
	OP_SET_OWNER,
	OP_MEM_TABLE,
	OP_VRING_NUM,
	OP_VRING_ADDR,
	OP_VRING_BASE,
	OP_VRING_KICK,
	OP_VRING_CALL,
	OP_VRING_ENABLE,
	OP_GET_VRING_BASE,
	OP_GET_QUEUE_NUM,
	OP_STATE_FD,
	OP_CHECK,
	OP_TAKE,
	OP_VERDICT,
	OP_KICKED,
	OP_DATA,
	OP_RECONNECT,
	OP_RAW,
	OP_NUM
};

static struct edge edge;
static char sock_path[96];
static uint64_t ctrs[NPAIRS][CTR_NUM];
static int mig_evfd = -1;

/**
 * struct conn - the frontend's connection, as the harness sees it
 * @fd:		our end, -1 if none
 * @up:		the edge serves it
 * @buf:	a reply read in part
 * @have:	bytes of it
 * @checks:	CHECK_DEVICE_STATE sent on it
 * @answers:	their answers received
 * @late:	a CHECK sent while a transfer was under way waits for its
 *		answer (the verdict brings it)
 * @dropped:	CHECKs left unanswered by design: one waiting when another
 *		came (the edge keeps the newest)
 * @last_state:	the last SET_DEVICE_STATE_FD reply, or -1
 * @last_check:	the last CHECK answer, or -1
 * @offered:	the features GET_FEATURES answered (0: not asked)
 * @poffered:	the protocol features GET_PROTOCOL_FEATURES answered
 * @gen:	which connection of the process this is (from 1)
 * @blind:	raw bytes went down it: the messages the edge sees are no
 *		longer known here (the model follows the edge's state, and
 *		only the checks that need no model are made)
 */
struct conn {
	int fd;
	unsigned gen;
	bool blind;
	uint64_t offered, poffered;
	bool up;
	uint8_t buf[REPLY_LEN];
	size_t have;
	unsigned checks, answers, dropped;
	bool late;
	int64_t last_state, last_check;
};

/**
 * struct sim - the migration thread, played by the harness
 * @under_way:	a transfer was handed over, no verdict yet
 * @verdict:	what CHECK says with none under way: 0 done, 1 failed
 * @late_gen:	the connection a waiting CHECK came on (struct conn
 *		@gen), 0 if none waits
 */
struct sim {
	bool under_way;
	int verdict;
	unsigned late_gen;
};

/**
 * edge_setup() - the edge, listening, with the device-state channel, once
 * per process
 */
static void edge_setup(void)
{
	fz_vu_setup(&edge, "fuzz_vu_seq", sock_path, sizeof(sock_path), ctrs,
		    NPAIRS);
	/* what mig_init() does for --migrate-repair alone */
	mig_evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	FZ_CHECK(mig_evfd >= 0);
	edge.mig_evfd = mig_evfd;
	edge.mig_devstate = true;
}

/**
 * fake_fd() - an fd of a kind, for a message that wants one
 * @kind:	0 a pipe's read end, 1 its write end, 2 an eventfd, 3 a 4 KiB
 *		memfd, 4 /dev/zero
 *
 * Return: a new fd (the caller closes it once sent)
 */
static int fake_fd(unsigned kind)
{
	int fd, p[2];

	switch (kind) {
	case 0:
	case 1:
		FZ_CHECK(!pipe2(p, O_CLOEXEC));
		close(p[!kind]);
		fd = p[kind];
		break;
	case 2:
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		break;
	case 3:
		fd = memfd_create("fz", MFD_CLOEXEC);
		FZ_CHECK(fd >= 0 && !ftruncate(fd, 4096));
		break;
	default:
		fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	}
	FZ_CHECK(fd >= 0);
	return fd;
}

/**
 * send_msg() - one message from the frontend, an fd attached or not
 * @c:		connection
 * @req:	request
 * @flags:	flags besides the version
 * @pl:		payload
 * @len:	its length
 * @fd:		an fd to attach (closed here once sent), or -1
 */
static void send_msg(struct conn *c, uint32_t req, uint32_t flags,
		     const void *pl, uint32_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	uint8_t b[VU_HDR_LEN + 64];
	struct iovec iov = { .iov_base = b, .iov_len = VU_HDR_LEN + len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	flags |= VU_VERSION;
	memcpy(b, &req, 4);
	memcpy(b + 4, &flags, 4);
	memcpy(b + 8, &len, 4);
	if (len)
		memcpy(b + VU_HDR_LEN, pl, len);
	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	/* a connection the edge closed says EPIPE */
	(void)sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (fd >= 0)
		close(fd);
}

/**
 * drive_ctl() - run the control handler while the connection has bytes
 * @c:		connection (@c->up cleared when the edge lets it go)
 */
static void drive_ctl(struct conn *c)
{
	struct pollfd pfd = { .events = POLLIN };
	unsigned rounds;

	for (rounds = 0; c->up; rounds++) {
		FZ_CHECK(rounds < 4096);
		pfd.fd = edge.ops->fd(&edge, EDGE_FD_CTL, 0);
		if (pfd.fd < 0 || poll(&pfd, 1, 0) != 1)
			return;
		if (edge.ops->ctl(&edge) < 0)
			c->up = false;
	}
}

/**
 * read_replies() - every reply waiting: whole and well formed; CHECK and
 * SET_DEVICE_STATE_FD answers noted
 * @c:		connection
 */
static void read_replies(struct conn *c)
{
	uint32_t req, flags, size;
	uint64_t v;
	ssize_t n;

	for (;;) {
		n = recv(c->fd, c->buf + c->have, REPLY_LEN - c->have,
			 MSG_DONTWAIT);
		if (n <= 0)
			return;
		c->have += (size_t)n;
		if (c->have < REPLY_LEN)
			continue;
		c->have = 0;
		memcpy(&req, c->buf, 4);
		memcpy(&flags, c->buf + 4, 4);
		memcpy(&size, c->buf + 8, 4);
		memcpy(&v, c->buf + VU_HDR_LEN, 8);
		FZ_CHECK(req && req < VU_REQ_NUM);
		FZ_CHECK(flags == (VU_VERSION | VU_FLAG_REPLY));
		FZ_CHECK(size == 8);
		if (req == VU_CHECK_DEVICE_STATE) {
			FZ_CHECK(v <= 1);
			c->answers++;
			FZ_CHECK(c->blind ||
				 c->answers + c->dropped <= c->checks);
			c->last_check = (int64_t)v;
		} else if (req == VU_SET_DEVICE_STATE_FD) {
			c->last_state = (int64_t)v;
		} else if (req == VU_GET_FEATURES) {
			c->offered = v;
		} else if (req == VU_GET_PROTOCOL_FEATURES) {
			c->poffered = v;
		}
	}
}

/**
 * connect_frontend() - a new frontend, accepted by the edge
 * @c:		connection out
 */
static void connect_frontend(struct conn *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	static unsigned gens;

	memset(c, 0, sizeof(*c));
	c->gen = ++gens;
	c->last_state = c->last_check = -1;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	FZ_CHECK(c->fd >= 0 &&
		 !connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)));
	FZ_CHECK(edge.ops->accept(&edge) == EDGE_ACCEPT_CTL);
	c->up = true;
}

/**
 * leave() - the frontend goes: the edge forgets it
 * @c:		connection
 */
static void leave(struct conn *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	drive_ctl(c);
	FZ_CHECK(!c->up);
}

/**
 * verdict() - the migration thread's verdict on the transfer under way
 * @c:		connection
 * @s:		the thread
 * @failed:	the transfer failed
 *
 * A CHECK that waits for it, on this connection, is answered now.
 */
static void verdict(struct conn *c, struct sim *s, bool failed)
{
	bool late = __atomic_load_n(&edge.mig_state_reply_fd,
				    __ATOMIC_SEQ_CST) >= 0;

	FZ_CHECK(c->blind || late == (s->late_gen != 0));
	vu_device_state_done(&edge, !failed);
	FZ_CHECK(__atomic_load_n(&edge.mig_state_reply_fd, __ATOMIC_SEQ_CST) <
		 0);
	FZ_CHECK(edge.mig_state_result == (failed ? 1 : 0));
	s->under_way = false;
	s->verdict = failed;
	if (late && !c->blind && c->gen == s->late_gen && c->fd >= 0) {
		read_replies(c);
		FZ_CHECK(c->answers + c->dropped == c->checks);
		FZ_CHECK(c->last_check == failed);
		c->late = false;
	}
	s->late_gen = 0;
}

/**
 * take_fd() - the migration thread takes the handed fd (and is done
 * with it: closes it)
 */
static void take_fd(void)
{
	int fd = __atomic_exchange_n(&edge.mig_state_fd, -1, __ATOMIC_ACQUIRE);

	if (fd >= 0)
		close(fd);
}

/**
 * ring_payload() - a ring message's payload: a ring index (0..3, or out
 * of range), and a value
 * @idx:	out
 * @val:	out
 */
static void ring_payload(uint32_t *idx, uint8_t *val)
{
	uint8_t b = fz_u8();

	*idx = b < 240 ? b % 4 : b;
	*val = fz_u8();
}

/**
 * running() - does any ring pair of the edge run?
 *
 * Return: true if one does
 */
static bool running(void)
{
	unsigned q;

	for (q = 0; q < NPAIRS; q++)
		if (edge.ops->running(&edge, q))
			return true;
	return false;
}

/**
 * do_state_fd() - SET_DEVICE_STATE_FD, and what its reply must be
 * @c:		connection
 * @s:		the thread
 */
static void do_state_fd(struct conn *c, struct sim *s)
{
	uint32_t pl[2] = { fz_u8() % 3, fz_u8() % 4 ? 0 : 1 };
	uint8_t kind = fz_u8();
	bool was = s->under_way, ran = running();

	c->last_state = -1;
	send_msg(c, VU_SET_DEVICE_STATE_FD, 0, pl, sizeof(pl),
		 kind % 8 < 7 ? fake_fd(kind % 8 % 5) : -1);
	drive_ctl(c);
	read_replies(c);
	if (c->last_state < 0 || c->blind)
		return; /* no fd: a violation, the frontend is sent away */
	FZ_CHECK(c->last_state & VU_STATE_FD_KEPT);
	if (c->last_state & 0xff) {
		/* refused: the verdict says so, unless one is under way */
		if (!was)
			s->verdict = 1;
		return;
	}
	FZ_CHECK(!was);
	FZ_CHECK(pl[0] != VU_STATE_LOAD || !ran);
	FZ_CHECK(edge.mig_state_result == -1);
	s->under_way = true;
}

/**
 * do_check() - CHECK_DEVICE_STATE, and when its answer must come
 * @c:		connection
 * @s:		the thread
 */
static void do_check(struct conn *c, struct sim *s)
{
	unsigned before = c->answers;

	send_msg(c, VU_CHECK_DEVICE_STATE, fz_u8() & 1 ? VU_FLAG_NEED_REPLY : 0,
		 NULL, 0, -1);
	c->checks++;
	drive_ctl(c);
	read_replies(c);
	if (!c->up || c->blind)
		return;
	if (!s->under_way) {
		/* answered at once, with the last verdict */
		FZ_CHECK(c->answers == before + 1);
		FZ_CHECK(c->last_check == s->verdict);
		return;
	}
	FZ_CHECK(c->answers == before); /* waits for the verdict */
	if (c->late)
		c->dropped++; /* the earlier one is not answered */
	c->late = true;
	s->late_gen = c->gen;
}

/**
 * do_data() - the shards' part on one pair: a receive batch read and
 * returned, a frame toward the guest
 * @c:		connection (a broken ring ends it)
 */
static void do_data(struct conn *c)
{
	static const uint8_t frame[12 + 60] = { [12] = 0xff, [13] = 0xff };
	struct iovec iov = { .iov_base = (void *)frame,
			     .iov_len = sizeof(frame) };
	struct pkt_view v[EDGE_RX_BATCH];
	unsigned q = fz_u8() % NPAIRS;
	int n;

	n = edge.ops->rx(&edge, q, v, EDGE_RX_BATCH);
	FZ_CHECK(n >= 0 && n <= EDGE_RX_BATCH);
	edge.ops->rx_done(&edge, q);
	edge.ops->tx(&edge, q, &iov, 1);
	edge.ops->flush(&edge, q);
	drive_ctl(c);
}

/**
 * resync() - a blind connection: the model takes the edge's own state
 * @c:		connection
 * @s:		the thread
 */
static void resync(const struct conn *c, struct sim *s)
{
	int r = __atomic_load_n(&edge.mig_state_result, __ATOMIC_SEQ_CST);

	s->under_way = r < 0;
	if (r >= 0)
		s->verdict = r;
	if (__atomic_load_n(&edge.mig_state_reply_fd, __ATOMIC_SEQ_CST) >= 0)
		s->late_gen = s->late_gen ? s->late_gen : c->gen;
	else
		s->late_gen = 0;
}

/**
 * do_op() - one operation of the input
 * @c:		connection
 * @s:		the thread
 * @mem:	the guest memory memfd
 */
static void do_op(struct conn *c, struct sim *s, int mem)
{
	unsigned op = fz_u8() % OP_NUM;
	uint8_t b[64] = { 0 }, val;
	uint32_t idx, len;
	uint64_t u;

	switch (op) {
	case OP_GET_FEATURES:
		send_msg(c, VU_GET_FEATURES, 0, NULL, 0, -1);
		break;
	case OP_SET_FEATURES:
		/* what was offered (VERSION_1 before it was asked), a byte's
		 * pattern of it */
		u = (c->offered ? c->offered : BIT(F_VERSION_1)) &
		    (0x0101010101010101ULL * fz_u8() | BIT(F_VERSION_1));
		send_msg(c, VU_SET_FEATURES, 0, &u, 8, -1);
		break;
	case OP_GET_PFEATURES:
		send_msg(c, VU_GET_PROTOCOL_FEATURES, 0, NULL, 0, -1);
		break;
	case OP_SET_PFEATURES:
		u = c->poffered & (0x0101010101010101ULL * fz_u8());
		send_msg(c, VU_SET_PROTOCOL_FEATURES, 0, &u, 8, -1);
		break;
	case OP_SET_OWNER:
		send_msg(c, VU_SET_OWNER, 0, NULL, 0, -1);
		break;
	case OP_MEM_TABLE: {
		uint64_t rg[4] = { 0, GUEST_MEM, UVA, 0 };
		uint32_t nr[2] = { 1, 0 };

		memcpy(b, nr, 8);
		memcpy(b + 8, rg, 32);
		send_msg(c, VU_SET_MEM_TABLE, 0, b, 40, dup(mem));
		break;
	}
	case OP_VRING_NUM:
		ring_payload(&idx, &val);
		len = val & 1 ? 8 : val;
		memcpy(b, &idx, 4);
		memcpy(b + 4, &len, 4);
		send_msg(c, VU_SET_VRING_NUM, 0, b, 8, -1);
		break;
	case OP_VRING_ADDR: {
		/* ring i's areas at 12 KiB * i: desc, avail, used */
		uint64_t base, a[4];

		ring_payload(&idx, &val);
		base = UVA + 0x3000ULL * (val & 1 ? idx % 4 : val);
		a[0] = base;
		a[1] = base + 0x2000; /* used */
		a[2] = base + 0x1000; /* avail */
		a[3] = 0;
		memcpy(b, &idx, 4);
		memcpy(b + 8, a, 32);
		send_msg(c, VU_SET_VRING_ADDR, 0, b, 40, -1);
		break;
	}
	case OP_VRING_BASE:
	case OP_VRING_ENABLE:
	case OP_GET_VRING_BASE:
		ring_payload(&idx, &val);
		len = op == OP_VRING_ENABLE ? val & 1 : val;
		memcpy(b, &idx, 4);
		memcpy(b + 4, &len, 4);
		send_msg(c,
			 op == OP_VRING_BASE   ? VU_SET_VRING_BASE :
			 op == OP_VRING_ENABLE ? VU_SET_VRING_ENABLE :
						 VU_GET_VRING_BASE,
			 0, b, 8, -1);
		break;
	case OP_VRING_KICK:
	case OP_VRING_CALL:
		ring_payload(&idx, &val);
		u = idx | (val % 8 == 7 ? VU_VRING_NOFD : 0);
		send_msg(c,
			 op == OP_VRING_KICK ? VU_SET_VRING_KICK :
					       VU_SET_VRING_CALL,
			 0, &u, 8, val % 8 == 7 ? -1 : fake_fd(2));
		break;
	case OP_GET_QUEUE_NUM:
		send_msg(c, VU_GET_QUEUE_NUM, 0, NULL, 0, -1);
		break;
	case OP_STATE_FD:
		do_state_fd(c, s);
		break;
	case OP_CHECK:
		do_check(c, s);
		break;
	case OP_TAKE:
		take_fd();
		return;
	case OP_VERDICT:
		if (s->under_way)
			verdict(c, s, fz_u8() & 1);
		return;
	case OP_KICKED:
		(void)!read(mig_evfd, &u, 8);
		return;
	case OP_DATA:
		do_data(c);
		break;
	case OP_RECONNECT:
		if (c->blind)
			resync(c, s);
		leave(c);
		connect_frontend(c);
		return;
	case OP_RAW:
		len = fz_u8() % sizeof(b);
		for (idx = 0; idx < len; idx++)
			b[idx] = fz_u8();
		(void)send(c->fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		c->blind |= len > 0;
		break;
	}
	drive_ctl(c);
	read_replies(c);
	if (c->blind)
		resync(c, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim s = { .verdict = 1 };
	struct conn c;
	int before, mem;

	if (!edge.ops)
		edge_setup();
	before = fz_fd_count();
	fz_in_set(data, size);
	mem = memfd_create("guest", MFD_CLOEXEC);
	FZ_CHECK(mem >= 0 && !ftruncate(mem, GUEST_MEM));
	connect_frontend(&c);
	while (fz_in_left() && c.up)
		do_op(&c, &s, mem);
	/* the frontend goes, the thread ends its transfer: nothing kept */
	leave(&c);
	take_fd();
	if (s.under_way)
		verdict(&c, &s, true);
	FZ_CHECK(__atomic_load_n(&edge.mig_state_reply_fd, __ATOMIC_SEQ_CST) <
		 0);
	close(mem);
	FZ_CHECK(ctrs[0][CTR_EDGE_CONNECTS] == ctrs[0][CTR_EDGE_DISCONNECTS]);
	FZ_CHECK(fz_fd_count() == before);
	/* the next input starts as a new gateway would: no transfer */
	edge.mig_state_result = 1;
	return 0;
}
