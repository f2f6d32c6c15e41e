/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ofile.c - files written by a path given on the command line, opened
 * without following a link planted there
 *
 * See the theory of operation in ofile.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obs/ofile.h"
#include "util/log.h"

/**
 * ofile_refused() - is this existing file one slipway must not write?
 * @st:		what it is
 * @what:	for messages ("--pcap file")
 * @shown:	the path as the user gave it, for messages
 *
 * #syscalls geteuid
 * Return: 0 (a regular file with one link that is ours, or a character
 *	   device), or -errno (logged with what to do)
 */
static int ofile_refused(const struct stat *st, const char *what,
			 const char *shown)
{
	if (S_ISCHR(st->st_mode))
		return 0; /* /dev/null, a terminal: made by root only */
	if (S_ISLNK(st->st_mode)) {
		err("%s %s is a symbolic link: slipway does not follow one to "
		    "a file it writes; give the file's own path, or remove "
		    "the link",
		    what, shown);
		return -ELOOP;
	}
	if (!S_ISREG(st->st_mode)) {
		err("%s %s is not a regular file: remove it or choose another "
		    "path",
		    what, shown);
		return -EINVAL;
	}
	if (st->st_nlink > 1) {
		err("%s %s has %lu hard links: slipway does not write a file "
		    "that has another name; remove it or choose another path",
		    what, shown, (unsigned long)st->st_nlink);
		return -EMLINK;
	}
	if (st->st_uid != geteuid()) {
		err("%s %s belongs to uid %u, not to slipway's uid %u: "
		    "slipway does not overwrite someone else's file; remove "
		    "it or choose another path",
		    what, shown, (unsigned)st->st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

/**
 * ofile_check() - at start-up: would ofile_open() refuse this path?
 * @dirfd:	AT_FDCWD, or the directory @name is in
 * @name:	path (relative to @dirfd)
 * @what:	for messages ("--stats-file")
 * @shown:	the path as the user gave it, for messages
 *
 * For a file written later (the counters, at exit): the error comes at
 * once, not at the end. ofile_open() checks again when it opens.
 *
 * #syscalls:setup newfstatat
 * Return: 0 (no such file, or one ofile_open() takes), or -errno (logged)
 */
int ofile_check(int dirfd, const char *name, const char *what,
		const char *shown)
{
	struct stat st;

	/* no file yet, or one we cannot look at: ofile_open() will say */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	return ofile_refused(&st, what, shown);
}

/**
 * ofile_open() - open a file to write, refusing what root must not write
 * @dirfd:	AT_FDCWD, or the directory @name is in
 * @name:	path (relative to @dirfd)
 * @what:	for messages ("--pcap file")
 * @shown:	the path as the user gave it, for messages
 * @flags:	more open flags: O_APPEND or 0
 * @mode:	the mode of a new file (umask applies)
 *
 * A regular file is truncated, once it is known to be ours.
 *
 * #syscalls openat fstat newfstatat fcntl ftruncate close
 * Return: the fd (close-on-exec, blocking), or -errno (logged)
 */
int ofile_open(int dirfd, const char *name, const char *what, const char *shown,
	       int flags, mode_t mode)
{
	int fd, fl, ret;
	struct stat st;

	fd = openat(dirfd, name,
		    O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (flags & O_APPEND),
		    mode);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP)
			err("%s %s is a symbolic link: slipway does not follow "
			    "one to a file it writes; give the file's own "
			    "path, or remove the link",
			    what, shown);
		else if (ret == -ENXIO)
			err("%s %s is a FIFO, a socket or a device that is "
			    "not there: remove it or choose another path",
			    what, shown);
		else
			err_perror("cannot open %s %s", what, shown);
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		err_perror("cannot open %s %s", what, shown);
		goto out_close;
	}
	ret = ofile_refused(&st, what, shown);
	if (ret)
		goto out_close;
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		ret = -errno;
		err_perror("cannot truncate %s %s", what, shown);
		goto out_close;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		ret = -errno;
		err_perror("cannot open %s %s", what, shown);
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return ret;
}
