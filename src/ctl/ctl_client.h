/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_client.h - the client commands of the control socket: slipway ctl,
 * slipway ls and slipway top (separate processes, never sandboxed) */
#ifndef SLIPWAY_CTL_CLIENT_H
#define SLIPWAY_CTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/**
 * ctl_ask() - send a request, read the whole reply
 * @path:	control socket
 * @req:	request (one line, newline added here)
 * @len:	reply length
 * @quiet:	report nothing on failure (errno tells: ECONNREFUSED or
 *		ENOENT for a socket nobody serves, ETIMEDOUT without an answer)
 *
 * Return: malloc'ed reply (NUL-terminated), or NULL (reported unless
 * @quiet)
 */
char *ctl_ask(const char *path, const char *req, size_t *len, bool quiet);

/**
 * ctl_ask_within() - ctl_ask(), waiting at most @timeout_ms for each part
 * of the reply
 * @path:	control socket
 * @req:	request
 * @len:	reply length
 * @quiet:	report nothing on failure
 * @timeout_ms:	how long the instance may stay silent
 *
 * Return: malloc'ed reply, or NULL
 */
char *ctl_ask_within(const char *path, const char *req, size_t *len, bool quiet,
		     int timeout_ms);

/**
 * ctl_ls_main() - slipway ls [--json]: the running instances
 * @argc:	arguments after "slipway"
 * @argv:	"ls", options
 *
 * Return: exit status: 0 (even with none running), 2 (bad usage)
 */
int ctl_ls_main(int argc, char **argv);

/**
 * ctl_top_main() - slipway top [PID|PATH] [-b] [-n N] [-d S] [--json]
 * [-s KEY]: an instance's flows, live
 * @argc:	arguments after "slipway"
 * @argv:	"top", options
 *
 * Return: exit status: 0, 1 (no instance, or it went away), 2 (bad usage,
 * or several instances and none chosen in batch mode)
 */
int ctl_top_main(int argc, char **argv);

#endif /* SLIPWAY_CTL_CLIENT_H */
