/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inst.c - the running instances, as slipway ls and slipway top find them
 *
 * Each slipway serves its control socket by default at <dir>/<pid>.sock,
 * where <dir> is the user's runtime directory of slipway (inst_rundir()).
 * A client lists that directory and asks every <pid>.sock for version: an
 * instance is live when connect() succeeds and it answers. A file whose
 * connect() fails (ECONNREFUSED: nobody listens; ENOENT: gone meanwhile)
 * is stale, left by a slipway that was killed before it could remove it:
 * it is skipped. It is also removed, but only when it is ours (same uid)
 * and its PID is not alive: a slipway that is starting has bound its
 * socket before it listens (connect() is refused for that moment), and
 * its PID is alive then; a dead PID cannot come back to that file (a new
 * slipway with the reused PID replaces the file itself).
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/ctl_client.h"
#include "ctl/inst.h"

/* an instance that does not answer version within this is left out of a
 * scan: a stuck or hostile socket must not hold slipway ls for long */
#define INST_SCAN_TIMEOUT_MS 2000

/**
 * inst_rundir() - the directory of the default control sockets
 * @out:	filled
 * @size:	its size
 *
 * Context: a client process, or the gateway at set-up (ctl.c, before the
 * sandbox): one rule for both
 * #syscalls:setup geteuid stat newfstatat
 * Return: @out (the directory need not exist; an $XDG_RUNTIME_DIR too
 *	   long for @size gives /tmp/slipway-<uid>, as for the server)
 */
const char *inst_rundir(char *out, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	uid_t uid = geteuid();
	struct stat st;

	if (!uid) {
		snprintf(out, size, "/run/slipway");
		return out;
	}
	if (xdg && xdg[0] == '/' && !stat(xdg, &st) && S_ISDIR(st.st_mode) &&
	    st.st_uid == uid &&
	    (size_t)snprintf(out, size, "%s/slipway", xdg) < size)
		return out;
	snprintf(out, size, "/tmp/slipway-%u", (unsigned)uid);
	return out;
}

/**
 * inst_pid_of() - the PID a socket path's name says
 * @path:	socket path
 *
 * Return: the PID, or 0 if the name is not <PID>.sock
 */
long inst_pid_of(const char *path)
{
	const char *b = strrchr(path, '/');
	char *end;
	long pid;

	b = b ? b + 1 : path;
	if (!isdigit((unsigned char)*b))
		return 0;
	errno = 0;
	pid = strtol(b, &end, 10);
	if (errno || pid <= 0 || strcmp(end, ".sock"))
		return 0;
	return pid;
}

/**
 * inst_resolve() - the control socket a top argument names
 * @arg:	a PID (digits) or a socket PATH
 * @dir:	the runtime directory
 * @out:	filled: the path
 * @size:	its size
 *
 * Return: 0, or -1 if the path does not fit
 */
int inst_resolve(const char *arg, const char *dir, char *out, size_t size)
{
	const char *p = arg;
	size_t n;

	while (isdigit((unsigned char)*p))
		p++;
	if (*arg && !*p && p - arg < 12)
		n = (size_t)snprintf(out, size, "%s/%s.sock", dir, arg);
	else
		n = (size_t)snprintf(out, size, "%s", arg);
	return n < size ? 0 : -1;
}

/**
 * clean_text() - a string with no terminal control in it: C0 and C1
 * control characters and DEL become '?' (ls and top -b print names as
 * the instance sent them, to a terminal)
 * @v:		string value (replaced if it had any)
 */
static void clean_text(json_t *v)
{
	const char *in = json_string_value(v);
	size_t n = json_string_length(v), i;
	bool bad = false;
	char *t;

	for (i = 0; i < n && !bad; i++)
		bad = (unsigned char)in[i] < 0x20 ||
		      (unsigned char)in[i] == 0x7f ||
		      ((unsigned char)in[i] == 0xc2 && i + 1 < n &&
		       (unsigned char)in[i + 1] >= 0x80 &&
		       (unsigned char)in[i + 1] < 0xa0);
	if (!bad)
		return;
	t = malloc(n + 1);
	if (!t)
		return;
	memcpy(t, in, n);
	t[n] = '\0';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c < 0x20 || c == 0x7f) {
			t[i] = '?';
		} else if (c == 0xc2 && i + 1 < n &&
			   (unsigned char)t[i + 1] >= 0x80 &&
			   (unsigned char)t[i + 1] < 0xa0) {
			t[i] = '?';
			t[++i] = '?';
		}
	}
	json_string_setn(v, t, n);
	free(t);
}

/**
 * clean_reply() - clean_text() on every string of a reply
 * @j:		value (modified)
 * @depth:	how deep already (the parser bounds it too)
 */
static void clean_reply(json_t *j, int depth)
{
	const char *key;
	json_t *v;
	size_t i;

	if (depth > 64)
		return;
	if (json_is_string(j))
		clean_text(j);
	else if (json_is_object(j))
		json_object_foreach(j, key, v) clean_reply(v, depth + 1);
	else if (json_is_array(j))
		json_array_foreach(j, i, v) clean_reply(v, depth + 1);
}

/**
 * inst_ask_within() - inst_ask(), waiting at most @timeout_ms for each
 * part of the reply
 * @path:	control socket
 * @req:	request
 * @timeout_ms:	how long the instance may stay silent
 *
 * Return: the reply object, or NULL (errno set)
 */
static json_t *inst_ask_within(const char *path, const char *req,
			       int timeout_ms)
{
	size_t len;
	char *reply = ctl_ask_within(path, req, &len, true, timeout_ms);
	json_t *j;

	if (!reply)
		return NULL;
	j = json_loadb(reply, len, 0, NULL);
	free(reply);
	if (!json_is_object(j)) {
		json_decref(j);
		errno = EBADMSG;
		return NULL;
	}
	clean_reply(j, 0);
	return j;
}

/**
 * inst_ask() - one request to a control socket, its reply parsed
 * @path:	control socket
 * @req:	request
 *
 * Return: the reply object, or NULL (errno set)
 */
json_t *inst_ask(const char *path, const char *req)
{
	return inst_ask_within(path, req, 10000);
}

/**
 * inst_stale() - remove a stale socket file if it is ours and its PID dead
 * @path:	the file
 * @pid:	the PID its name says
 *
 * Context: a client process (no sandbox)
 * #syscalls:setup lstat kill unlink
 */
static void inst_stale(const char *path, long pid)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		unlink(path);
}

/**
 * inst_cmp() - order instances by PID
 * @a:	one
 * @b:	another
 *
 * Return: <0, 0, >0
 */
static int inst_cmp(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/**
 * inst_scan() - the live instances of a runtime directory, by PID
 * @dir:	the directory
 * @out:	filled: malloc'ed array, or NULL
 *
 * Context: a client process (no sandbox)
 * #syscalls:setup openat getdents64 close
 * Return: how many
 */
size_t inst_scan(const char *dir, struct inst **out)
{
	struct inst *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[sizeof(v->path)];
		long pid = inst_pid_of(e->d_name);
		json_t *j;

		if (!pid || (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
					     e->d_name) >= sizeof(path))
			continue;
		j = inst_ask_within(path, "{\"cmd\":\"version\"}",
				    INST_SCAN_TIMEOUT_MS);
		if (!j) {
			if (errno == ECONNREFUSED || errno == ENOENT)
				inst_stale(path, pid);
			continue;
		}
		if (json_object_get(j, "error")) {
			json_decref(j);
			continue;
		}
		if (n == cap) {
			struct inst *nv;

			cap = cap ? cap * 2 : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				json_decref(j);
				break;
			}
			v = nv;
		}
		v[n].pid = pid;
		strcpy(v[n].path, path);
		v[n].version = j;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), inst_cmp);
	*out = v;
	return n;
}

/**
 * inst_free() - free what inst_scan() returned
 * @v:	array, or NULL
 * @n:	its length
 */
void inst_free(struct inst *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		json_decref(v[i].version);
	free(v);
}

/**
 * set_absent() - set a member unless it is there
 * @o:		object
 * @key:	member
 * @v:		value (stolen)
 */
static void set_absent(json_t *o, const char *key, json_t *v)
{
	if (json_object_get(o, key))
		json_decref(v);
	else
		json_object_set_new(o, key, v);
}

/**
 * inst_complete() - fill what an older server's version reply lacks
 * @ver:	version reply (modified)
 * @path:	its control socket
 * @stats:	stats reply, or NULL
 * @flows:	flows reply, or NULL
 */
void inst_complete(json_t *ver, const char *path, const json_t *stats,
		   const json_t *flows)
{
	const json_t *c = json_object_get(stats, "counters"), *v;
	json_int_t drops = 0;
	const char *key;
	long pid = inst_pid_of(path);

	if (pid)
		set_absent(ver, "pid", json_integer(pid));
	if (json_object_get(stats, "uptime_ms"))
		set_absent(ver, "uptime_ms",
			   json_copy(json_object_get(stats, "uptime_ms")));
	if (json_is_integer(json_object_get(c, "EDGE_RX_BYTES")))
		set_absent(ver, "bytes_from_guest",
			   json_copy(json_object_get(c, "EDGE_RX_BYTES")));
	if (json_is_integer(json_object_get(c, "EDGE_TX_BYTES")))
		set_absent(ver, "bytes_to_guest",
			   json_copy(json_object_get(c, "EDGE_TX_BYTES")));
	if (json_is_object(c)) {
		json_object_foreach((json_t *)c, key, v)
		{
			if (strstr(key, "_DROP") || strstr(key, "MALFORMED"))
				drops += json_integer_value(v);
		}
		set_absent(ver, "drops", json_integer(drops));
	}
	if (json_is_integer(json_object_get(flows, "total")))
		set_absent(ver, "flows",
			   json_copy(json_object_get(flows, "total")));
}

/**
 * inst_human() - a count in human units (powers of 1024)
 * @out:	filled
 * @size:	its size
 * @v:		value
 *
 * Return: @out
 */
const char *inst_human(char *out, size_t size, double v)
{
	static const char unit[] = "KMGTPE";
	int i = -1;

	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(out, size, "%.0f", v);
	else
		snprintf(out, size, v < 10 ? "%.1f%c" : "%.0f%c", v, unit[i]);
	return out;
}

/**
 * inst_duration() - milliseconds as 12s, 3m04, 5h02 or 2d03
 * @out:	filled
 * @size:	its size
 * @ms:		duration
 *
 * Return: @out
 */
const char *inst_duration(char *out, size_t size, unsigned long long ms)
{
	unsigned long long s = ms / 1000;

	if (s < 60)
		snprintf(out, size, "%llus", s);
	else if (s < 3600)
		snprintf(out, size, "%llum%02llu", s / 60, s % 60);
	else if (s < 86400)
		snprintf(out, size, "%lluh%02llu", s / 3600, s % 3600 / 60);
	else
		snprintf(out, size, "%llud%02llu", s / 86400, s % 86400 / 3600);
	return out;
}

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
			  const char *key, bool human)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		snprintf(out, size, "-");
	else if (human)
		inst_human(out, size, (double)json_integer_value(v));
	else
		snprintf(out, size, "%lld", (long long)json_integer_value(v));
	return out;
}
