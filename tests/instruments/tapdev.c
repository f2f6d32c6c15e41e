/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapdev.c - what the tap-bridging instruments (swbridge, swvu) share */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tapdev.h"
#include "toolutil.h"

/**
 * count_drop() - count a dropped frame
 * @c:		counters of the direction
 * @err:	errno of the failed write, 0 for an oversize frame
 */
void count_drop(struct dir_ctr *c, int err)
{
	ctr_add(&c->drops, 1);
	if (err)
		atomic_store_explicit(&c->drop_err, err, memory_order_relaxed);
}

/**
 * dir_ctr_sum() - add the counters of one direction to a snapshot
 * @sum:	snapshot, added to
 * @c:		counters
 */
void dir_ctr_sum(struct dir_count *sum, struct dir_ctr *c)
{
	int err = atomic_load_explicit(&c->drop_err, memory_order_relaxed);

	sum->frames += atomic_load_explicit(&c->frames, memory_order_relaxed);
	sum->bytes += atomic_load_explicit(&c->bytes, memory_order_relaxed);
	sum->drops += atomic_load_explicit(&c->drops, memory_order_relaxed);
	if (err)
		sum->drop_err = err;
}

/**
 * print_summary() - the one line on stderr at exit
 * @why:	reason for exiting, in words
 * @dir_str:	name of each direction, by enum dir
 * @cnt:	counts of each direction, by enum dir
 */
void print_summary(const char *why, const char *const dir_str[DIR_NUM],
		   const struct dir_count cnt[DIR_NUM])
{
	enum dir d;

	fprintf(stderr, "%s: %s;", tool_name, why);
	for (d = 0; d < DIR_NUM; d++) {
		const struct dir_count *c = &cnt[d];
		int err = c->drop_err;

		fprintf(stderr,
			" %s %" PRIu64 " frames %" PRIu64 " bytes %" PRIu64
			" dropped%s%s%s",
			dir_str[d], c->frames, c->bytes, c->drops,
			err ? " (last: " : "", err ? strerror(err) : "",
			err ? ")" : "");
		fputs(d + 1 < DIR_NUM ? "," : "\n", stderr);
	}
}

/**
 * worker_end() - record why a worker ends and wake the main thread
 * @end:	where the first reason is kept, an enum end
 * @main_tid:	main thread, told with SIGUSR1
 * @why:	END_PEER or END_ERROR
 *
 * Only the first reason is kept: once one direction fails, the other one
 * usually fails as a consequence.
 *
 * #syscalls tgkill
 */
void worker_end(_Atomic int *end, pthread_t main_tid, enum end why)
{
	int none = END_NONE;

	atomic_compare_exchange_strong(end, &none, (int)why);
	pthread_kill(main_tid, SIGUSR1);
}

/**
 * signals_block() - ignore SIGPIPE, block the signals the main thread waits
 * for (SIGTERM, SIGINT, SIGUSR1, and @extra) in this and later threads
 * @set:	filled in with those signals
 * @extra:	one more signal to block, or 0
 *
 * The workers inherit the mask: only the main thread takes signals.
 *
 * #syscalls rt_sigaction rt_sigprocmask
 */
void signals_block(sigset_t *set, int extra)
{
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGUSR1);
	if (extra)
		sigaddset(set, extra);
	pthread_sigmask(SIG_BLOCK, set, NULL);
}

/**
 * getopt_fail() - report what getopt_long() refused, and exit with status 2
 * @c:		what getopt_long() returned: ':' for a missing value, else an
 *		unknown option
 * @argv:	arguments
 */
_Noreturn void getopt_fail(int c, char **argv)
{
	if (c == ':')
		usage_error("%s needs a value", argv[optind - 1]);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

/**
 * args_done() - after the options: refuse operands, require --tap
 * @argc:	argument count
 * @argv:	arguments
 * @tap:	the --tap name, or NULL if none was given
 *
 * Exits with status 2 on either failure.
 */
void args_done(int argc, char **argv, const char *tap)
{
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!tap)
		usage_error("--tap NAME is required");
}

/**
 * check_tap_name() - refuse a --tap name that does not fit IFNAMSIZ
 * @name:	name; exits with status 2 if it does not fit
 */
void check_tap_name(const char *name)
{
	if (!*name || strlen(name) >= IFNAMSIZ)
		usage_error("--tap: name must be 1 to %d characters",
			    IFNAMSIZ - 1);
}

/**
 * check_path() - refuse a unix socket path that does not fit sun_path
 * @opt:	option name, for the message
 * @path:	path; exits with status 2 if it does not fit
 */
void check_path(const char *opt, const char *path)
{
	struct sockaddr_un a;

	if (!*path || strlen(path) >= sizeof(a.sun_path))
		usage_error("%s: path must be 1 to %zu characters", opt,
			    sizeof(a.sun_path) - 1);
}

/**
 * connect_retry() - connect a unix socket, retrying while the peer is not
 * there yet
 * @fd:		unix socket
 * @path:	peer path, checked by check_path()
 * @retry_eperm: also retry EPERM (a datagram peer still attached to
 *		another one)
 *
 * A missing path (ENOENT), a file with nobody bound to it (ECONNREFUSED)
 * and a full listen backlog (EAGAIN) are retried for CONNECT_TIMEOUT_S.
 *
 * #syscalls connect nanosleep clock_gettime
 * Return: 0, or -errno of the last attempt
 */
int connect_retry(int fd, const char *path, bool retry_eperm)
{
	struct timespec tick = { .tv_nsec = CONNECT_RETRY_NS };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec t0, t;
	long long waited_ns;
	int err;

	memcpy(a.sun_path, path, strlen(path));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			return 0;
		err = errno;
		if (err == EINTR)
			continue;
		if (err != ENOENT && err != ECONNREFUSED && err != EAGAIN &&
		    !(retry_eperm && err == EPERM))
			return -err;
		clock_gettime(CLOCK_MONOTONIC, &t);
		waited_ns = (t.tv_sec - t0.tv_sec) * 1000000000LL +
			    (t.tv_nsec - t0.tv_nsec);
		if (waited_ns >= CONNECT_TIMEOUT_S * 1000000000LL)
			return -err;
		nanosleep(&tick, NULL);
	}
}

/**
 * tap_create() - open /dev/net/tun and create (or attach to) a tap device
 * @name:	device name, checked by check_tap_name()
 * @flags:	ifr_flags besides IFF_TAP | IFF_NO_PI
 *
 * #syscalls open ioctl
 * Return: the tap file descriptor, non-blocking (O_NONBLOCK is per open
 *	   file, so tap writes are non-blocking too); exits with status 1 on
 *	   failure
 */
int tap_create(const char *name, short flags)
{
	struct ifreq ifr;
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "%s: /dev/net/tun: %s\n", tool_name,
			strerror(errno));
		exit(1);
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = (short)(IFF_TAP | IFF_NO_PI | flags);
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "%s: TUNSETIFF %s: %s\n", tool_name, name,
			strerror(errno));
		exit(1);
	}
	return fd;
}

/**
 * tap_wait() - wait until a tap (queue) has a frame to read
 * @fd:		tap file descriptor
 *
 * #syscalls poll
 * Return: 0, or -errno
 */
int tap_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&p, 1, -1) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/**
 * tap_put() - write one frame to a tap and count it; a failure is a drop
 * @fd:		tap file descriptor
 * @c:		counters of the direction (DIR_TO_TAP)
 * @iov:	frame, with any header the tap expects
 * @cnt:	entries in @iov
 * @bytes:	bytes to count for the frame
 *
 * Context: the only writer of @c
 * #syscalls writev
 */
void tap_put(int fd, struct dir_ctr *c, const struct iovec *iov, int cnt,
	     size_t bytes)
{
	for (;;) {
		if (writev(fd, iov, cnt) >= 0) {
			ctr_add(&c->frames, 1);
			ctr_add(&c->bytes, bytes);
			return;
		}
		if (errno != EINTR) {
			count_drop(c, errno);
			return;
		}
	}
}

/**
 * link_ioctl() - apply one interface ioctl, or exit with a message
 * @fd:		AF_INET socket
 * @req:	request
 * @ifr:	request data, name filled in
 * @label:	how the message names the device
 * @what:	for the message
 *
 * #syscalls ioctl
 */
static void link_ioctl(int fd, unsigned long req, struct ifreq *ifr,
		       const char *label, const char *what)
{
	if (ioctl(fd, req, ifr)) {
		fprintf(stderr, "%s: %s %s: %s\n", tool_name, label, what,
			strerror(errno));
		exit(1);
	}
}

/**
 * tap_link_up() - set a tap's MTU and txqueuelen and bring it up
 * @name:	device name
 * @label:	how messages name the device
 * @mtu:	MTU
 * @qlen:	txqueuelen
 *
 * Exits with status 1 on failure.
 *
 * #syscalls socket ioctl close
 */
void tap_link_up(const char *name, const char *label, unsigned int mtu,
		 unsigned int qlen)
{
	struct ifreq ifr;
	int s;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		fprintf(stderr, "%s: socket: %s\n", tool_name, strerror(errno));
		exit(1);
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strlen(name));
	ifr.ifr_mtu = (int)mtu;
	link_ioctl(s, SIOCSIFMTU, &ifr, label, "MTU");
	ifr.ifr_qlen = (int)qlen;
	link_ioctl(s, SIOCSIFTXQLEN, &ifr, label, "txqueuelen");
	link_ioctl(s, SIOCGIFFLAGS, &ifr, label, "get flags");
	ifr.ifr_flags |= IFF_UP;
	link_ioctl(s, SIOCSIFFLAGS, &ifr, label, "up");
	close(s);
}
