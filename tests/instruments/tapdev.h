/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapdev.h - what the tap-bridging instruments (swbridge, swvu) share */
#ifndef SLIPWAY_TAPDEV_H
#define SLIPWAY_TAPDEV_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define CONNECT_TIMEOUT_S 5
#define CONNECT_RETRY_NS 50000000L

#define MTU_DEFAULT 65520
#define MTU_MAX 65521 /* tun: 65535 - Ethernet header */
#define QLEN_DEFAULT 10000

/**
 * enum dir - direction of a flow of frames
 * @DIR_FROM_TAP:	read from the tap, sent to the peer (socket, backend)
 * @DIR_TO_TAP:		received from the peer, written to the tap
 * @DIR_NUM:		number of directions
 */
enum dir { DIR_FROM_TAP, DIR_TO_TAP, DIR_NUM };

/**
 * struct dir_ctr - counters of one direction; single writer (its thread),
 * read by the main thread at exit
 * @frames:	frames passed on
 * @bytes:	bytes of those frames, without framing or virtio-net header
 * @drops:	frames dropped (oversize, or a failed write that is not fatal)
 * @drop_err:	errno of the last failed write counted as a drop, 0 if none
 */
struct dir_ctr {
	_Atomic uint64_t frames;
	_Atomic uint64_t bytes;
	_Atomic uint64_t drops;
	_Atomic int drop_err;
};

/**
 * struct dir_count - a snapshot of one or more struct dir_ctr, summed
 * @frames:	frames passed on
 * @bytes:	bytes of those frames
 * @drops:	frames dropped
 * @drop_err:	the last non-zero drop_err seen, 0 if none
 */
struct dir_count {
	uint64_t frames;
	uint64_t bytes;
	uint64_t drops;
	int drop_err;
};

/**
 * enum end - why a worker thread ended
 * @END_NONE:		still running
 * @END_PEER:		the socket peer closed (EOF, reset, or gone; swbridge)
 * @END_ERROR:		an error, already reported on stderr
 * @END_NUM:		number of reasons
 */
enum end { END_NONE, END_PEER, END_ERROR, END_NUM };

/**
 * ctr_add() - add to a counter that only the calling thread writes
 * @c:		counter
 * @n:		amount
 *
 * A relaxed load and store, not a locked add: there is one writer, and the
 * main thread only needs a recent value.
 */
static inline void ctr_add(_Atomic uint64_t *c, uint64_t n)
{
	uint64_t v = atomic_load_explicit(c, memory_order_relaxed);

	atomic_store_explicit(c, v + n, memory_order_relaxed);
}

/**
 * count_drop() - count a dropped frame
 * @c:		counters of the direction
 * @err:	errno of the failed write, 0 for an oversize frame
 */
void count_drop(struct dir_ctr *c, int err);

/**
 * dir_ctr_sum() - add the counters of one direction to a snapshot
 * @sum:	snapshot, added to
 * @c:		counters
 */
void dir_ctr_sum(struct dir_count *sum, struct dir_ctr *c);

/**
 * print_summary() - the one line on stderr at exit
 * @why:	reason for exiting, in words
 * @dir_str:	name of each direction, by enum dir
 * @cnt:	counts of each direction, by enum dir
 */
void print_summary(const char *why, const char *const dir_str[DIR_NUM],
		   const struct dir_count cnt[DIR_NUM]);

/**
 * worker_end() - record why a worker ends and wake the main thread
 * @end:	where the first reason is kept, an enum end
 * @main_tid:	main thread, told with SIGUSR1
 * @why:	END_PEER or END_ERROR
 *
 * Only the first reason is kept: once one direction fails, the other one
 * usually fails as a consequence.
 */
void worker_end(_Atomic int *end, pthread_t main_tid, enum end why);

/**
 * signals_block() - ignore SIGPIPE, block the signals the main thread waits
 * for (SIGTERM, SIGINT, SIGUSR1, and @extra) in this and later threads
 * @set:	filled in with those signals
 * @extra:	one more signal to block, or 0
 */
void signals_block(sigset_t *set, int extra);

/**
 * getopt_fail() - report what getopt_long() refused, and exit with status 2
 * @c:		what getopt_long() returned: ':' for a missing value, else an
 *		unknown option
 * @argv:	arguments
 */
_Noreturn void getopt_fail(int c, char **argv);

/**
 * args_done() - after the options: refuse operands, require --tap
 * @argc:	argument count
 * @argv:	arguments
 * @tap:	the --tap name, or NULL if none was given
 *
 * Exits with status 2 on either failure.
 */
void args_done(int argc, char **argv, const char *tap);

/**
 * check_tap_name() - refuse a --tap name that does not fit IFNAMSIZ
 * @name:	name; exits with status 2 if it does not fit
 */
void check_tap_name(const char *name);

/**
 * check_path() - refuse a unix socket path that does not fit sun_path
 * @opt:	option name, for the message
 * @path:	path; exits with status 2 if it does not fit
 */
void check_path(const char *opt, const char *path);

/**
 * connect_retry() - connect a unix socket, retrying while the peer is not
 * there yet
 * @fd:		unix socket
 * @path:	peer path, checked by check_path()
 * @retry_eperm: also retry EPERM (a datagram peer still attached to
 *		another one)
 *
 * Return: 0, or -errno of the last attempt
 */
int connect_retry(int fd, const char *path, bool retry_eperm);

/**
 * tap_create() - open /dev/net/tun and create (or attach to) a tap device
 * @name:	device name, checked by check_tap_name()
 * @flags:	ifr_flags besides IFF_TAP | IFF_NO_PI
 *
 * Return: the tap file descriptor, non-blocking; exits with status 1 on
 *	   failure
 */
int tap_create(const char *name, short flags);

/**
 * tap_wait() - wait until a tap (queue) has a frame to read
 * @fd:		tap file descriptor
 *
 * Return: 0, or -errno
 */
int tap_wait(int fd);

/**
 * tap_put() - write one frame to a tap and count it; a failure is a drop
 * @fd:		tap file descriptor
 * @c:		counters of the direction (DIR_TO_TAP)
 * @iov:	frame, with any header the tap expects
 * @cnt:	entries in @iov
 * @bytes:	bytes to count for the frame
 */
void tap_put(int fd, struct dir_ctr *c, const struct iovec *iov, int cnt,
	     size_t bytes);

/**
 * tap_link_up() - set a tap's MTU and txqueuelen and bring it up
 * @name:	device name
 * @label:	how messages name the device
 * @mtu:	MTU
 * @qlen:	txqueuelen
 *
 * Exits with status 1 on failure.
 */
void tap_link_up(const char *name, const char *label, unsigned int mtu,
		 unsigned int qlen);

#endif /* SLIPWAY_TAPDEV_H */
