/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inst.h - the running instances: the runtime directory where each slipway
 * serves its control socket by default (<dir>/<pid>.sock), and its scan */
#ifndef SLIPWAY_INST_H
#define SLIPWAY_INST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * struct inst - one live instance
 * @pid:	its PID (from the socket's name; 0 for a PATH not so named)
 * @path:	its control socket
 * @version:	its answer to version (owned), or NULL
 */
struct inst {
	long pid;
	char path[108];
	json_t *version;
};

/**
 * inst_rundir() - the directory of the default control sockets: root:
 * /run/slipway; others: $XDG_RUNTIME_DIR/slipway when XDG_RUNTIME_DIR is
 * an absolute path to a directory of ours, else /tmp/slipway-<uid>
 * @out:	filled
 * @size:	its size
 *
 * Return: @out (the directory need not exist)
 */
const char *inst_rundir(char *out, size_t size);

/**
 * inst_scan() - the live instances of a runtime directory, by PID
 * @dir:	the directory (inst_rundir())
 * @out:	filled: malloc'ed array (free with inst_free()), or NULL
 *
 * Return: how many (0 when the directory is missing or empty)
 */
size_t inst_scan(const char *dir, struct inst **out);

/**
 * inst_free() - free what inst_scan() returned
 * @v:	array, or NULL
 * @n:	its length
 */
void inst_free(struct inst *v, size_t n);

/**
 * inst_resolve() - the control socket a top argument names
 * @arg:	a PID (digits: <rundir>/<PID>.sock) or a socket PATH
 * @dir:	the runtime directory
 * @out:	filled: the path
 * @size:	its size
 *
 * Return: 0, or -1 if the path does not fit
 */
int inst_resolve(const char *arg, const char *dir, char *out, size_t size);

/**
 * inst_pid_of() - the PID a socket path's name says (<dir>/<PID>.sock)
 * @path:	socket path
 *
 * Return: the PID, or 0 if the name is not of that form
 */
long inst_pid_of(const char *path);

/**
 * inst_ask() - one request to a control socket, its reply parsed
 * @path:	control socket
 * @req:	request
 *
 * Return: the reply object (an error reply too), or NULL when nobody
 * answers or the reply is no JSON object (errno set, nothing reported)
 */
json_t *inst_ask(const char *path, const char *req);

/**
 * inst_complete() - fill what an older server's version reply lacks
 * (pid, uptime_ms, bytes_from_guest, bytes_to_guest, drops, flows) from
 * its stats and flows replies; members present are left alone
 * @ver:	version reply (modified)
 * @path:	its control socket (the PID its name says)
 * @stats:	stats reply, or NULL
 * @flows:	flows reply, or NULL
 */
void inst_complete(json_t *ver, const char *path, const json_t *stats,
		   const json_t *flows);

/**
 * inst_human() - a count in human units (1023, 1.5K, 12M, 3.2G: powers
 * of 1024)
 * @out:	filled
 * @size:	its size
 * @v:		value
 *
 * Return: @out
 */
const char *inst_human(char *out, size_t size, double v);

/**
 * inst_duration() - milliseconds as 12s, 3m04, 5h02 or 2d03
 * @out:	filled
 * @size:	its size
 * @ms:		duration
 *
 * Return: @out
 */
const char *inst_duration(char *out, size_t size, unsigned long long ms);

/**
 * inst_int_text() - an integer member as text, "-" if absent (ls and top)
 * @out:	filled
 * @size:	its size
 * @o:		object
 * @key:	member
 * @human:	in human units (inst_human())
 *
 * Return: @out
 */
const char *inst_int_text(char *out, size_t size, const json_t *o,
			  const char *key, bool human);

#endif /* SLIPWAY_INST_H */
