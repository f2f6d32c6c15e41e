/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ofile.h - the files slipway writes by a path it was given (the log file,
 * the pcap file, the counters), opened so that root is not tricked into
 * writing someone else's file
 *
 * DOC: Theory of Operation
 *
 * slipway usually starts as root, and a path on its command line may sit in
 * a directory someone else can write (/tmp, a user's runtime directory).
 * Whoever can write there can put a symbolic link, a hard link or a FIFO
 * where slipway's file is expected, and an open(O_CREAT | O_TRUNC) would
 * then truncate a file of their choice (/etc/shadow). ofile_open() opens
 * with O_NOFOLLOW (a symbolic link as the last component is refused) and
 * O_NONBLOCK (a FIFO does not block the open), without O_TRUNC, then looks
 * at what it opened: a regular file with one link that belongs to us (it
 * is then truncated), or a character device (/dev/null).
 * Anything else is refused with a message that says what to do.
 * The PID file is written differently: to a new name in the same
 * directory, then renamed over the path (pasta.c), so that a symbolic
 * link there is replaced rather than followed.
 */
#ifndef SLIPWAY_OFILE_H
#define SLIPWAY_OFILE_H

#include <sys/types.h>

/**
 * ofile_check() - at start-up: would ofile_open() refuse this path? (an
 * early error for a file written only later)
 * @dirfd:	AT_FDCWD, or the directory @name is in
 * @name:	path (relative to @dirfd)
 * @what:	for messages ("--stats-file")
 * @shown:	the path as the user gave it, for messages
 *
 * Return: 0 (no such file, or one ofile_open() takes), or -errno (logged)
 */
int ofile_check(int dirfd, const char *name, const char *what,
		const char *shown);

/**
 * ofile_open() - open a file to write, refusing what root must not write
 * @dirfd:	AT_FDCWD, or the directory @name is in
 * @name:	path (relative to @dirfd)
 * @what:	for messages ("--pcap file")
 * @shown:	the path as the user gave it, for messages
 * @flags:	more open flags: O_APPEND or 0
 * @mode:	the mode of a new file (umask applies)
 *
 * A regular file is truncated.
 *
 * Return: the fd (close-on-exec, blocking), or -errno, logged with what to
 *	   do: -ELOOP (a symbolic link), -EINVAL (not a regular file nor a
 *	   character device), -EMLINK (more than one link), -EPERM (the file
 *	   belongs to another user)
 */
int ofile_open(int dirfd, const char *name, const char *what, const char *shown,
	       int flags, mode_t mode);

#endif /* SLIPWAY_OFILE_H */
