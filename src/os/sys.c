/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.c - small system helpers every layer above uses: the monotonic
 * clock, and the spare descriptor that lets a listener out of fds refuse
 * its clients instead of spinning */

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "os/sys.h"

/**
 * now_mono_ns() - the monotonic clock
 *
 * #syscalls clock_gettime
 * Return: nanoseconds
 */
uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * fd_spare_make() - a descriptor kept only to be given up
 * @like:	a descriptor we hold anyway and never share (a timerfd: not
 *		an epoll set or a listener, which a duplicate would keep)
 *
 * A duplicate of @like: it needs no path, so it can be made again inside
 * the sandbox, whose root is empty (/dev/null is not there), with no call
 * the sandbox keeps for set-up; closing it frees a number and nothing else.
 *
 * #syscalls fcntl
 * Return: the descriptor, or -1 (none free)
 */
int fd_spare_make(int like)
{
	return fcntl(like, F_DUPFD_CLOEXEC, 0);
}

/**
 * fd_spare_refuse() - refuse one client of a listener that is out of fds
 * @spare:	in/out: the spare descriptor; it is closed so that accept()
 *		has a number to give, and made again afterwards (-1 if that
 *		failed: made again by the next call)
 * @like:	what the spare is made from (fd_spare_make())
 * @lfd:	the listening socket (non-blocking)
 * @reset:	end the client's connection with a reset (SO_LINGER 0)
 *		instead of a FIN
 *
 * Without this, the client would wait in the listen backlog, where it keeps
 * the listener readable. Another thread may take the freed number before
 * accept() does: then nobody is refused (-EMFILE) and the spare is made
 * again once a descriptor is free.
 *
 * Context: any thread, each with a spare of its own
 * #syscalls accept4 setsockopt close
 * Return: 1 if a client was refused, 0 if none was waiting, -errno
 */
int fd_spare_refuse(int *spare, int like, int lfd, bool reset)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int fd, ret = 1;

	if (*spare < 0)
		*spare = fd_spare_make(like);
	if (*spare < 0)
		return -EMFILE;
	close(*spare);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0) {
		if (reset)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	} else {
		ret = errno == EAGAIN ? 0 : -errno;
	}
	*spare = fd_spare_make(like);
	return ret;
}
