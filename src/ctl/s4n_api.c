/* SPDX-License-Identifier: GPL-2.0-or-later */
/* s4n_api.c - slirp4netns's API socket: published ports as JSON requests */

/**
 * DOC: Theory of Operation
 *
 * Requests and commands
 * ---------------------
 *
 * slirp4netns -a PATH listens on a unix stream socket. A client connects,
 * writes one JSON request ({"execute": NAME, "arguments": {...}}, usually
 * without a trailing newline) and shuts down its write side; the reply is
 * one JSON object, {"return": ...} or {"error": {"desc": "..."}}, and the
 * connection closes. Commands (the same fields as slirp4netns):
 *
 * - add_hostfwd {proto: "tcp"|"udp", host_addr, host_port, guest_addr,
 *   guest_port}: {"return": {"id": N}}. An empty or missing host_addr is
 *   0.0.0.0, an empty or missing guest_addr the guest's address (.100);
 * - list_hostfwd: {"return": {"entries": [{id, proto, host_addr,
 *   host_port, guest_addr, guest_port}, ...]}};
 * - remove_hostfwd {id}: {"return": {}}.
 *
 * Serving connections
 * -------------------
 *
 * The socket and its connections are served by the control thread
 * ("slipway-ctl", ctl.c), never by a shard: accept, read, write, clients
 * that are slow or stall, all in its own epoll set. Requests are parsed
 * and replies built there too, by the functions here; only the forward API
 * of fwd.h (fwd_add(), fwd_remove(), a copy of fwd_list()) runs on shard
 * 0, as a job of ctl.c's (struct shard_call), one at a time, shared with
 * the control socket's forwards requests.
 * Sockets are non-blocking: a request is answered as soon as its bytes
 * parse as a JSON object (a client that does not shut down its side is
 * served too), or at end of file (then a parse error is an error reply).
 * A request above S4N_API_REQ_MAX bytes is refused with an error reply,
 * then what the client still sends is read and dropped until its end, or
 * until 1 MiB more (ctl.c's DRAIN_MAX): then the connection closes, so an
 * endless stream (cat /dev/zero | ncat -U) gets the error and an end.
 * At most S4N_API_CONNS connections are held; one more closes the oldest,
 * so clients that never finish cannot lock the API out (there is no
 * deadline otherwise). JSON is parsed and built with jansson. A failed
 * request changes nothing.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl/ctl_proto.h"
#include "ctl/s4n_api.h"
#include "edge/edge.h"
#include "os/sockaddr.h"
#include "svc/fwd.h"
#include "util/log.h"
#include "util/util.h"

/**
 * s4n_err() - an error reply
 * @fmt:	printf format of the description
 *
 * Return: {"error": {"desc": ...}}, or NULL if out of memory
 */
static json_t *__attribute__((format(printf, 1, 2)))
s4n_err(const char *fmt, ...)
{
	char desc[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	ctl_printable(desc); /* it may quote the client's bytes */
	return json_pack("{s:{s:s}}", "error", "desc", desc);
}

/**
 * s4n_addr_str() - an address of a rule as text
 * @a:		address (IPv4 v4-mapped)
 * @buf:	out, INET6_ADDRSTRLEN bytes
 *
 * Return: @buf
 */
static const char *s4n_addr_str(const struct in6_addr *a, char *buf)
{
	if (IN6_IS_ADDR_V4MAPPED(a))
		inet_ntop(AF_INET, &a->s6_addr[12], buf, INET6_ADDRSTRLEN);
	else
		inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
	return buf;
}

/**
 * s4n_port_arg() - a port argument
 * @args:	the arguments object
 * @key:	its name
 * @port:	out
 *
 * Return: 0, or -1 when missing, not an integer, or not 1 to 65535
 */
static int s4n_port_arg(json_t *args, const char *key, uint16_t *port)
{
	json_t *v = json_object_get(args, key);
	json_int_t p;

	if (!json_is_integer(v))
		return -1;
	p = json_integer_value(v);
	if (p < 1 || p > 65535)
		return -1;
	*port = (uint16_t)p;
	return 0;
}

/**
 * s4n_str_arg() - an optional string argument
 * @args:	arguments
 * @key:	its name
 * @s:		out: its value; left as it was if it is not given
 *
 * Return: 0, or -1 if it is given and not a string
 */
static int s4n_str_arg(json_t *args, const char *key, const char **s)
{
	json_t *v = json_object_get(args, key);

	if (v && !json_is_string(v))
		return -1;
	if (v)
		*s = json_string_value(v);
	return 0;
}

/**
 * s4n_parse_add() - add_hostfwd's arguments
 * @args:	arguments (may be NULL)
 * @r:		out: the operation, one rule
 * @ga:		out: the guest_addr text as given, "" if none
 * @galen:	room in @ga
 * @run:	out: set if @r is to be run
 *
 * Return: the error reply, NULL if none (or out of memory)
 */
static json_t *s4n_parse_add(json_t *args, struct ctl_req *r, char *ga,
			     size_t galen, bool *run)
{
	const char *proto, *ha = "", *g = "";
	struct fwd_rule *f = &r->rules[0];
	json_t *v;

	if (!json_is_object(args))
		return s4n_err("bad request: add_hostfwd: no arguments object");
	v = json_object_get(args, "proto");
	proto = json_string_value(v);
	if (!proto || (strcmp(proto, "tcp") && strcmp(proto, "udp")))
		return s4n_err("bad request: add_hostfwd: bad arguments.proto "
			       "(expected \"tcp\" or \"udp\")");
	f->proto = strcmp(proto, "tcp") ? IPPROTO_UDP : IPPROTO_TCP;
	if (s4n_str_arg(args, "host_addr", &ha))
		return s4n_err("bad request: add_hostfwd: bad "
			       "arguments.host_addr (expected a string)");
	if (!*ha)
		ha = "0.0.0.0";
	f->host_family = addr_pton(ha, &f->host_addr);
	if (!f->host_family)
		return s4n_err("bad request: add_hostfwd: bad "
			       "arguments.host_addr \"%s\"",
			       ha);
	if (s4n_str_arg(args, "guest_addr", &g))
		return s4n_err("bad request: add_hostfwd: bad "
			       "arguments.guest_addr (expected a string)");
	if (*g) {
		if (!addr_pton(g, &f->guest_addr))
			return s4n_err("bad request: add_hostfwd: bad "
				       "arguments.guest_addr \"%s\"",
				       g);
		f->guest_set = true;
	}
	if (s4n_port_arg(args, "host_port", &f->host_port))
		return s4n_err("bad request: add_hostfwd: bad "
			       "arguments.host_port (expected 1 to 65535)");
	if (s4n_port_arg(args, "guest_port", &f->guest_port))
		return s4n_err("bad request: add_hostfwd: bad "
			       "arguments.guest_port (expected 1 to 65535)");
	/* an address inet_pton() took: 45 characters at most */
	snprintf(ga, galen, "%s", g);
	r->op = CTL_FWD_ADD;
	r->nrules = 1;
	*run = true;
	return NULL;
}

/**
 * s4n_parse_remove() - remove_hostfwd's arguments
 * @args:	arguments (may be NULL)
 * @r:		out: the operation
 * @run:	out: set if @r is to be run
 *
 * Return: the error reply, NULL if none (or out of memory)
 */
static json_t *s4n_parse_remove(json_t *args, struct ctl_req *r, bool *run)
{
	json_t *v = json_object_get(args, "id");
	json_int_t id;

	if (!json_is_integer(v) || (id = json_integer_value(v)) < 1 ||
	    id > UINT32_MAX)
		return s4n_err("bad request: remove_hostfwd: bad arguments.id "
			       "(expected an id from add_hostfwd)");
	r->op = CTL_FWD_REMOVE;
	r->id = (unsigned)id;
	*run = true;
	return NULL;
}

/**
 * s4n_dump() - a reply as text
 * @reply:	JSON (taken over), or NULL
 *
 * Return: NUL-terminated text (free() it), or NULL if out of memory
 */
static char *s4n_dump(json_t *reply)
{
	char *out;

	if (!reply)
		return NULL;
	out = json_dumps(reply, JSON_COMPACT);
	json_decref(reply);
	return out;
}

/**
 * s4n_req_parse() - parse one request
 * @req:	request bytes (not NUL-terminated)
 * @len:	their length
 * @r:		out: what shard 0 is to run (a forwards operation)
 * @ga:		out: add_hostfwd: the guest_addr text, for its error reply
 * @galen:	room in @ga
 * @reply:	out: the reply to send at once, or NULL if out of memory
 *
 * Return: 0: run @r, then answer with s4n_reply(); 1: answer with @reply
 */
int s4n_req_parse(const char *req, size_t len, struct ctl_req *r, char *ga,
		  size_t galen, char **reply)
{
	json_t *root, *err = NULL;
	bool run = false;
	json_error_t je;
	const char *cmd;

	memset(r, 0, sizeof(*r));
	r->cmd = CTL_CMD_FORWARDS;
	*ga = '\0';
	*reply = NULL;
	/* the errors about the request as a whole are slirp4netns's texts,
	 * word for word */
	root = json_loadb(req, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		err = s4n_err("bad request: cannot parse JSON");
	} else if (!json_is_object(root)) {
		err = s4n_err("bad request: json_object() failed");
	} else if (!(cmd = json_string_value(
			     json_object_get(root, "execute")))) {
		err = s4n_err("bad request: no execute found");
	} else if (!strcmp(cmd, "add_hostfwd")) {
		err = s4n_parse_add(json_object_get(root, "arguments"), r, ga,
				    galen, &run);
	} else if (!strcmp(cmd, "list_hostfwd")) {
		r->op = CTL_FWD_LIST;
		run = true;
	} else if (!strcmp(cmd, "remove_hostfwd")) {
		err = s4n_parse_remove(json_object_get(root, "arguments"), r,
				       &run);
	} else {
		err = s4n_err("bad request: unknown execute");
	}
	json_decref(root);
	if (run)
		return 0;
	/* an error reply, or none if out of memory */
	*reply = s4n_dump(err);
	return 1;
}

/**
 * s4n_list() - list_hostfwd's reply
 * @list:	the published ports
 * @n:		entries in @list
 * @conf:	configuration (the guest's addresses)
 *
 * Return: the reply, or NULL if out of memory
 */
static json_t *s4n_list(const struct fwd_rule *list, unsigned n,
			const struct conf *conf)
{
	json_t *entries = json_array();
	unsigned i;

	if (!entries)
		return NULL;
	for (i = 0; i < n; i++) {
		char hs[INET6_ADDRSTRLEN] = "0.0.0.0", gs[INET6_ADDRSTRLEN];
		const struct fwd_rule *r = &list[i];
		struct in6_addr g;

		if (r->host_family == AF_UNSPEC)
			strcpy(hs, "::");
		else
			s4n_addr_str(&r->host_addr, hs);
		if (r->guest_set) {
			g = r->guest_addr;
		} else if (r->host_family == AF_INET6) {
			g = conf->guest6;
		} else {
			memset(&g, 0, sizeof(g));
			g.s6_addr[10] = g.s6_addr[11] = 0xff;
			memcpy(&g.s6_addr[12], &conf->guest4, 4);
		}
		json_array_append_new(
			entries,
			json_pack("{s:i,s:s,s:s,s:i,s:s,s:i}", "id",
				  (json_int_t)r->id, "proto",
				  r->proto == IPPROTO_UDP ? "udp" : "tcp",
				  "host_addr", hs, "host_port",
				  (json_int_t)r->host_port, "guest_addr",
				  s4n_addr_str(&g, gs), "guest_port",
				  (json_int_t)r->guest_port));
	}
	return json_pack("{s:{s:o}}", "return", "entries", entries);
}

/**
 * s4n_reply() - the reply to a request shard 0 ran
 * @r:		the request, from s4n_req_parse()
 * @ga:		its guest_addr text, from s4n_req_parse()
 * @ret:	add: what fwd_add() returned (the id, or -errno); remove:
 *		what fwd_remove() returned
 * @list:	list: the published ports (NULL if out of memory)
 * @n:		entries in @list
 * @conf:	configuration
 *
 * Return: NUL-terminated reply (free() it), or NULL if out of memory
 */
char *s4n_reply(const struct ctl_req *r, const char *ga, int ret,
		const struct fwd_rule *list, unsigned n,
		const struct conf *conf)
{
	const struct fwd_rule *f = &r->rules[0];
	char hs[INET6_ADDRSTRLEN];

	switch (r->op) {
	case CTL_FWD_ADD:
		if (ret == -EINVAL)
			return s4n_dump(
				s4n_err("add_hostfwd: guest_addr %s is not a "
					"guest address of the network",
					ga));
		if (ret == -EAFNOSUPPORT)
			return s4n_dump(s4n_err("add_hostfwd: guest_addr %s: "
						"IPv6 is off (--enable-ipv6)",
						ga));
		if (ret < 0)
			return s4n_dump(s4n_err(
				"add_hostfwd: cannot listen on %s:%u (%s): %s",
				s4n_addr_str(&f->host_addr, hs), f->host_port,
				f->proto == IPPROTO_UDP ? "udp" : "tcp",
				strerror(-ret)));
		return s4n_dump(json_pack("{s:{s:i}}", "return", "id", ret));
	case CTL_FWD_REMOVE:
		if (ret)
			return s4n_dump(s4n_err(
				"remove_hostfwd: no forward with id %lld",
				(long long)r->id));
		return s4n_dump(json_pack("{s:{}}", "return"));
	default:
		return list ? s4n_dump(s4n_list(list, n, conf)) : NULL;
	}
}

/**
 * s4n_reply_too_large() - the reply to a request above S4N_API_REQ_MAX
 *
 * Return: NUL-terminated reply (free() it), or NULL if out of memory
 */
char *s4n_reply_too_large(void)
{
	return s4n_dump(s4n_err("bad request: too large message"));
}

/**
 * s4n_api_listen() - the API's listening socket (its file mode 0600)
 * @path:	socket path (must not exist)
 *
 * #syscalls:setup socket bind listen
 * #syscalls close unlink
 * Return: the socket (non-blocking), or -1 (logged)
 */
int s4n_api_listen(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || qsock_bind_private(fd, &sun)) {
		err_perror("cannot create the API socket %s", path);
		goto out;
	}
	if (listen(fd, 64)) {
		err_perror("cannot listen on the API socket %s", path);
		unlink(path);
		goto out;
	}
	return fd;
out:
	if (fd >= 0)
		close(fd);
	return -1;
}
