/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolvh.h - the resolv.conf reader: a helper process that keeps the file's
 * directory so that the gateway does not have to */
#ifndef SLIPWAY_RESOLVH_H
#define SLIPWAY_RESOLVH_H

#include <stddef.h>
#include <stdint.h>

#include "os/sandbox.h"

#define RESOLVH_TEXT_MAX 65535 /* bytes of resolv.conf sent */

/**
 * struct resolvh_hdr - the start of each message from the reader
 * @err:	0, or the errno of a failed open or read (no text then)
 * @len:	bytes of text after this header
 */
struct resolvh_hdr {
	int32_t err;
	uint32_t len;
};

/**
 * resolvh_start() - start the reader of @path, in a sandbox of its own
 * @path:	resolv.conf path
 * @base:	--no-sandbox and --runas, as a sandbox (its off, runas, uid
 *		and gid are taken; the reader's own paths are added)
 *
 * The reader sends the file's contents once at start, then again after
 * each change (with a rename of a new file over it, or of a symbolic link
 * to it, included), over a SOCK_SEQPACKET socket, one message each: a
 * struct resolvh_hdr and the text. Nothing goes the other way.
 *
 * Context: set-up, before any thread exists
 * Return: our end of the socket (non-blocking, close-on-exec), or -errno
 * (logged)
 */
int resolvh_start(const char *path, const struct sandbox_conf *base);

/**
 * resolvh_recv() - the newest message the reader has sent, if any
 * @fd:		our end of the socket
 * @text:	text out, NUL-terminated
 * @size:	its size: more than RESOLVH_TEXT_MAX
 * @err:	out: the reader's errno (0: @text is the file)
 *
 * Older messages still queued are dropped: only the newest contents count.
 *
 * Return: 1 if a message was read, 0 if none was there, -ECONNRESET if the
 * reader is gone
 */
int resolvh_recv(int fd, char *text, size_t size, int *err);

#endif /* SLIPWAY_RESOLVH_H */
