/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolvh.c - the resolv.conf reader: a helper process that keeps the file's
 * directory so that the gateway does not have to */

/**
 * DOC: Theory of Operation
 *
 * Why a helper
 * ------------
 *
 * The DNS forwarder re-reads resolv.conf when it changes, and the tools
 * that change it (resolvconf, systemd-resolved, NetworkManager, editors)
 * replace it by rename, or point a symbolic link elsewhere. Reading it by
 * path after a rename needs its directory, and /etc holds /etc/shadow and
 * the host's keys, which a root gateway without --runas can read. Neither
 * narrower grant survives a rename: a bind mount of the file alone, or a
 * Landlock rule on it, names the old inode and goes stale; an O_PATH fd of
 * the directory would let openat() reach every file in it.
 *
 * How it works
 * ------------
 *
 * So the gateway keeps no path to it at all, and this helper reads the
 * file for it. Forked at set-up (twice, and in a session of its own, like
 * the namespace socket helper: it is no child of ours and the terminal's
 * SIGINT does not reach it), it keeps only standard error and its end of
 * a SOCK_SEQPACKET socketpair, shut down for reading: the gateway can
 * tell it nothing. It enters a sandbox of its own (sandbox_enter()): the
 * directories of the path and of its symlink target are all it keeps of
 * the filesystem (read-only, in an empty mount namespace, or by Landlock),
 * with no capabilities, no new privileges and the --runas user. Then it
 * watches those directories with inotify, sends the file's contents at
 * once, and again RESOLVH_DELAY_MS after a change that concerns the file
 * (the several events of one update give one message); a file that
 * cannot be read is sent as its errno, and the gateway keeps its list.
 * It exits when the gateway's end closes (POLLHUP) or a send fails.
 *
 * What a compromised gateway can do
 * ---------------------------------
 *
 * A compromised gateway cannot reach it: the socket is read-only from its
 * side, seccomp denies it ptrace(), kill() reaches only the command, and
 * the filesystem it sees is empty. The helper itself has no seccomp
 * filter; its calls are tagged #syscalls:setup, as the namespace helper's
 * are, so that they stay off the gateway's list.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/nsh.h"
#include "os/resolvh.h"
#include "os/sandbox.h"
#include "util/log.h"
#include "util/util.h"

#define RESOLVH_FD 3	     /* the helper's socket, after nsh_fds_reset() */
#define RESOLVH_DELAY_MS 100 /* from the first event of an update to the read */
#define RESOLVH_START_MS \
	5000 /* how long resolvh_start() waits for the first read */

/**
 * struct resolvh_watch - an inotify watch on the directory of one file
 * @wd:		watch descriptor, -1 if none
 * @dir:	directory watched
 * @base:	file name in it we care about
 */
struct resolvh_watch {
	int wd;
	char dir[PATH_MAX];
	char base[NAME_MAX + 1];
};

/**
 * resolvh_dir_of() - the directory part of @path
 * @path:	file path
 * @dir:	out, PATH_MAX bytes ("." for a bare name, "/" for the root)
 */
static void resolvh_dir_of(const char *path, char *dir)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, PATH_MAX, ".");
	else if (slash == path)
		snprintf(dir, PATH_MAX, "/");
	else
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path);
}

/**
 * resolvh_beneath() - is @a the directory @b or inside it?
 * @a:	path
 * @b:	path
 *
 * Return: true if it is
 */
static bool resolvh_beneath(const char *a, const char *b)
{
	size_t l = strlen(b);

	return !strncmp(a, b, l) && (!a[l] || a[l] == '/' || b[l - 1] == '/');
}

/**
 * resolvh_sandbox_conf() - the helper's sandbox: the directories of @path
 * and of its symlink target, read-only
 * @sb:		filled
 * @base:	who to run as and whether to sandbox at all (its off, runas,
 *		uid and gid are taken)
 * @path:	resolv.conf path
 * @dirs:	storage for the directory names
 */
static void resolvh_sandbox_conf(struct sandbox_conf *sb,
				 const struct sandbox_conf *base,
				 const char *path, char (*dirs)[PATH_MAX])
{
	char *real = realpath(path, NULL);

	memset(sb, 0, sizeof(*sb));
	sb->off = base->off;
	sb->runas = base->runas;
	sb->uid = base->uid;
	sb->gid = base->gid;
	sb->who = "resolv.conf reader";
	resolvh_dir_of(path, dirs[0]);
	resolvh_dir_of(real ? real : path, dirs[1]);
	free(real);
	/* one inside the other: the outer one is enough */
	if (resolvh_beneath(dirs[1], dirs[0])) {
		sb->ro_dir[sb->n_ro++] = dirs[0];
	} else if (resolvh_beneath(dirs[0], dirs[1])) {
		sb->ro_dir[sb->n_ro++] = dirs[1];
	} else {
		sb->ro_dir[sb->n_ro++] = dirs[0];
		sb->ro_dir[sb->n_ro++] = dirs[1];
	}
}

/**
 * resolvh_watch_set() - watch the directory of @file for changes to it
 * @ino:	inotify fd
 * @w:		the two watch slots
 * @i:		slot
 * @file:	path, or NULL to stop watching in this slot
 *
 * Two slots may share a directory (inotify then gives both one watch
 * descriptor): a watch is removed only when the other slot does not use it.
 *
 * Context: helper only
 * #syscalls:setup inotify_add_watch inotify_rm_watch
 */
static void resolvh_watch_set(int ino, struct resolvh_watch *w, unsigned i,
			      const char *file)
{
	struct resolvh_watch *s = &w[i], *o = &w[!i];
	const char *slash;
	char dir[PATH_MAX];
	int wd;

	if (!file) {
		if (s->wd >= 0 && s->wd != o->wd)
			inotify_rm_watch(ino, s->wd);
		s->wd = -1;
		return;
	}
	resolvh_dir_of(file, dir);
	slash = strrchr(file, '/');
	snprintf(s->base, sizeof(s->base), "%s", slash ? slash + 1 : file);
	if (s->wd >= 0 && !strcmp(s->dir, dir))
		return;
	wd = inotify_add_watch(ino, dir,
			       IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
				       IN_CREATE | IN_DELETE);
	if (wd < 0)
		warn_perror("DNS: cannot watch %s for resolv.conf changes",
			    dir);
	if (s->wd >= 0 && s->wd != o->wd && s->wd != wd)
		inotify_rm_watch(ino, s->wd);
	s->wd = wd;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
}

/**
 * resolvh_watch_update() - watch the path, and its symlink target if any
 * @ino:	inotify fd
 * @w:		the two watch slots
 * @path:	resolv.conf path
 *
 * A target in a directory the sandbox did not keep cannot be watched (or
 * read): that is warned about, and the list stays as it was.
 *
 * Context: helper only
 * #syscalls:setup readlink newfstatat
 */
static void resolvh_watch_update(int ino, struct resolvh_watch *w,
				 const char *path)
{
	char *real = realpath(path, NULL);

	resolvh_watch_set(ino, w, 0, path);
	if (real && strcmp(real, path))
		resolvh_watch_set(ino, w, 1, real);
	else if (real)
		resolvh_watch_set(ino, w, 1, NULL);
	free(real);
}

/**
 * resolvh_send() - read the file and send its contents (or the errno)
 * @path:	resolv.conf path
 * @buf:	scratch, RESOLVH_TEXT_MAX bytes
 *
 * Context: helper only
 * #syscalls:setup openat read close sendmsg
 * Return: 0, or -1 if the gateway is gone
 */
static int resolvh_send(const char *path, char *buf)
{
	struct resolvh_hdr h = { 0 };
	struct iovec iov[2] = { { &h, sizeof(h) }, { buf, 0 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		h.err = errno;
	while (fd >= 0 && got < RESOLVH_TEXT_MAX) {
		n = read(fd, buf + got, RESOLVH_TEXT_MAX - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			h.err = errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (h.err)
		got = 0;
	h.len = (uint32_t)got;
	iov[1].iov_len = got;
	do
		n = sendmsg(RESOLVH_FD, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : 0;
}

/**
 * resolvh_events() - read the pending inotify events
 * @ino:	inotify fd (non-blocking)
 * @w:		the two watch slots
 *
 * Context: helper only
 * #syscalls:setup read
 * Return: true if one concerns the file (or some were lost)
 */
static bool resolvh_events(int ino, const struct resolvh_watch *w)
{
	union {
		char buf[4096];
		struct inotify_event align;
	} ev;
	bool hit = false;
	ssize_t n;

	while ((n = read(ino, ev.buf, sizeof(ev.buf))) > 0) {
		ssize_t off = 0;

		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			const struct inotify_event *e =
				(const struct inotify_event *)(void *)(ev.buf +
								       off);
			unsigned i;

			if (e->mask & IN_Q_OVERFLOW)
				hit = true;
			for (i = 0; i < 2 && e->len; i++) {
				if (w[i].wd >= 0 && e->wd == w[i].wd &&
				    !strcmp(e->name, w[i].base))
					hit = true;
			}
			off += (ssize_t)sizeof(*e) + e->len;
		}
	}
	return hit;
}

/**
 * resolvh_run() - the helper: sandbox, watch, send until the gateway goes
 * @path:	resolv.conf path
 * @sb:		its sandbox
 *
 * Context: helper only; never returns
 * #syscalls:setup inotify_init1 poll shutdown exit_group
 */
static _Noreturn void resolvh_run(const char *path,
				  const struct sandbox_conf *sb)
{
	static char buf[RESOLVH_TEXT_MAX];
	struct resolvh_watch w[2] = { { .wd = -1 }, { .wd = -1 } };
	struct pollfd pfd[2];
	int ino;

	shutdown(RESOLVH_FD, SHUT_RD);
	if (sandbox_enter(sb))
		_exit(1);
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0)
		warn_perror("DNS: inotify: changes to %s will go unnoticed",
			    path);
	else
		resolvh_watch_update(ino, w, path);
	if (resolvh_send(path, buf))
		_exit(0);
	pfd[0] = (struct pollfd){ .fd = RESOLVH_FD, .events = 0 };
	pfd[1] = (struct pollfd){ .fd = ino, .events = POLLIN };
	for (;;) {
		if (poll(pfd, ino >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pfd[0].revents)
			_exit(0); /* the gateway is gone */
		if (!resolvh_events(ino, w))
			continue;
		/* the rest of this update's events come meanwhile */
		if (poll(pfd, 1, RESOLVH_DELAY_MS) > 0)
			_exit(0);
		resolvh_events(ino, w);
		resolvh_watch_update(ino, w, path);
		if (resolvh_send(path, buf))
			_exit(0);
	}
}

/**
 * resolvh_start() - start the reader of @path, in a sandbox of its own
 * @path:	resolv.conf path
 * @base:	--no-sandbox and --runas, as a sandbox: off, runas, uid, gid
 *
 * #syscalls:setup socketpair fork setsid prctl rt_sigprocmask wait4 poll fcntl close exit_group
 * Return: our end of the socket (non-blocking, close-on-exec), or -errno
 */
int resolvh_start(const char *path, const struct sandbox_conf *base)
{
	static char dirs[2][PATH_MAX];
	struct sandbox_conf sb;
	struct pollfd pfd;
	int sv[2], st, ret;
	sigset_t none;
	pid_t mid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	resolvh_sandbox_conf(&sb, base, path, dirs);
	mid = fork();
	if (mid < 0) {
		ret = -errno;
		goto out_close;
	}
	if (mid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		prctl(PR_SET_NAME, "slipway-resolv");
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (nsh_fds_reset(sv[1], RESOLVH_FD))
			_exit(1);
		resolvh_run(path, &sb);
	}
	close(sv[1]);
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	/* its first message: the file as it is now, watched from now on */
	pfd = (struct pollfd){ .fd = sv[0], .events = POLLIN };
	if (poll(&pfd, 1, RESOLVH_START_MS) != 1 || !(pfd.revents & POLLIN)) {
		close(sv[0]);
		return -ECONNRESET;
	}
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK)) {
		ret = -errno;
		close(sv[0]);
		return ret;
	}
	return sv[0];
out_close:
	close(sv[0]);
	close(sv[1]);
	return ret;
}

/**
 * resolvh_recv() - the newest message the reader has sent, if any
 * @fd:		our end of the socket
 * @text:	text out, NUL-terminated
 * @size:	its size: more than RESOLVH_TEXT_MAX
 * @err:	out: the reader's errno (0: @text is the file)
 *
 * #syscalls recvmsg
 * Return: 1 if a message was read, 0 if none was there, -ECONNRESET if the
 * reader is gone
 */
int resolvh_recv(int fd, char *text, size_t size, int *err)
{
	int got = 0;

	for (;;) {
		struct resolvh_hdr h;
		struct iovec iov[2] = { { &h, sizeof(h) }, { text, size - 1 } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return got;
		if (n <= 0) /* what it sent before it went comes first */
			return got ? got : -ECONNRESET;
		if ((size_t)n < sizeof(h) || (mh.msg_flags & MSG_TRUNC) ||
		    h.len != (size_t)n - sizeof(h))
			return -ECONNRESET; /* not our helper's */
		text[h.len] = '\0';
		*err = h.err;
		got = 1;
	}
}
