/* SPDX-License-Identifier: GPL-2.0-or-later */
/* s4n_api.c - slirp4netns's API socket: published ports as JSON requests */

/**
 * DOC: Theory of Operation
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
 * Everything runs in the main thread, in shard 0's loop (EP_CTL events),
 * on top of the forward API of fwd.h; the data-path shards never see it.
 * Sockets are non-blocking: a request is answered as soon as its bytes
 * parse as a JSON object (a client that does not shut down its side is
 * served too), or at end of file (then a parse error is an error reply).
 * A request above S4N_API_REQ_MAX bytes is refused with an error reply.
 * At most S4N_API_CONNS connections are held; one more closes the oldest,
 * so clients that never finish cannot lock the API out. JSON is parsed and
 * built with jansson. A failed request changes nothing.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl/s4n_api.h"
#include "host/fwd.h"
#include "host/shard.h"
#include "util/log.h"
#include "util/util.h"

/**
 * struct s4n_conn - one client connection
 * @fd:		socket, or -1: a free slot
 * @seq:	accept order (the oldest goes first when all slots are used)
 * @len:	request bytes in @buf
 * @draining:	answered early (too large): what the client still sends is
 *		read and dropped until its end, so closing does not reset
 *		the connection before it reads the reply
 * @buf:	the request so far (one more byte for a NUL)
 */
struct s4n_conn {
	int fd;
	uint64_t seq;
	size_t len;
	bool draining;
	char buf[S4N_API_REQ_MAX + 1];
};

/**
 * struct s4n_api - the API socket
 * @sh:		shard 0
 * @fd:		listening socket
 * @path:	its path (removed at exit)
 * @seq:	connections accepted so far
 * @conn:	connection slots
 */
struct s4n_api {
	struct shard *sh;
	int fd;
	char path[CONF_SOCK_PATH_MAX];
	uint64_t seq;
	struct s4n_conn conn[S4N_API_CONNS];
};

/**
 * s4n_err() - an error reply
 * @fmt:	printf format of the description
 *
 * Return: {"error": {"desc": ...}}, or NULL if out of memory
 */
static json_t * __attribute__((format(printf, 1, 2))) s4n_err(const char *fmt, ...)
{
	char desc[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
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
 * s4n_addr_parse() - an address argument: IPv4 or IPv6 text
 * @s:		text
 * @a:		out: the address (IPv4 v4-mapped)
 *
 * Return: AF_INET, AF_INET6, or 0 if it is neither
 */
static int s4n_addr_parse(const char *s, struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->s6_addr[12]) == 1) {
		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, a) == 1 && !IN6_IS_ADDR_V4MAPPED(a))
		return AF_INET6;
	return 0;
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
 * s4n_add() - add_hostfwd
 * @sh:		shard 0
 * @args:	arguments (may be NULL)
 *
 * Return: the reply
 */
static json_t *s4n_add(struct shard *sh, json_t *args)
{
	const char *proto, *ha = "", *ga = "";
	struct fwd_rule r = { 0 };
	char hs[INET6_ADDRSTRLEN];
	json_t *v;
	int ret;

	if (!json_is_object(args))
		return s4n_err("bad request: add_hostfwd: no arguments object");
	v = json_object_get(args, "proto");
	proto = json_string_value(v);
	if (!proto || (strcmp(proto, "tcp") && strcmp(proto, "udp")))
		return s4n_err("bad request: add_hostfwd: bad arguments.proto (expected \"tcp\" or \"udp\")");
	r.proto = strcmp(proto, "tcp") ? IPPROTO_UDP : IPPROTO_TCP;
	v = json_object_get(args, "host_addr");
	if (v && !json_is_string(v))
		return s4n_err("bad request: add_hostfwd: bad arguments.host_addr (expected a string)");
	if (v)
		ha = json_string_value(v);
	if (!*ha)
		ha = "0.0.0.0";
	r.host_family = s4n_addr_parse(ha, &r.host_addr);
	if (!r.host_family)
		return s4n_err("bad request: add_hostfwd: bad arguments.host_addr \"%s\"",
			       ha);
	v = json_object_get(args, "guest_addr");
	if (v && !json_is_string(v))
		return s4n_err("bad request: add_hostfwd: bad arguments.guest_addr (expected a string)");
	if (v)
		ga = json_string_value(v);
	if (*ga) {
		if (!s4n_addr_parse(ga, &r.guest_addr))
			return s4n_err("bad request: add_hostfwd: bad arguments.guest_addr \"%s\"",
				       ga);
		r.guest_set = true;
	}
	if (s4n_port_arg(args, "host_port", &r.host_port))
		return s4n_err("bad request: add_hostfwd: bad arguments.host_port (expected 1 to 65535)");
	if (s4n_port_arg(args, "guest_port", &r.guest_port))
		return s4n_err("bad request: add_hostfwd: bad arguments.guest_port (expected 1 to 65535)");
	ret = fwd_add(sh, &r);
	if (ret == -EINVAL)
		return s4n_err("add_hostfwd: guest_addr %s is not a guest address of the network",
			       ga);
	if (ret == -EAFNOSUPPORT)
		return s4n_err("add_hostfwd: guest_addr %s: IPv6 is off (--enable-ipv6)",
			       ga);
	if (ret < 0)
		return s4n_err("add_hostfwd: cannot listen on %s:%u (%s): %s",
			       s4n_addr_str(&r.host_addr, hs), r.host_port,
			       proto, strerror(-ret));
	return json_pack("{s:{s:i}}", "return", "id", ret);
}

/**
 * s4n_list() - list_hostfwd
 * @sh:		shard 0
 *
 * Return: the reply
 */
static json_t *s4n_list(struct shard *sh)
{
	unsigned n = fwd_list(sh, NULL, 0), i;
	struct fwd_rule *r = calloc(n ? n : 1, sizeof(*r));
	json_t *entries = json_array();

	if (!r || !entries) {
		free(r);
		json_decref(entries);
		return NULL;
	}
	n = MIN(n, fwd_list(sh, r, n));
	for (i = 0; i < n; i++) {
		char hs[INET6_ADDRSTRLEN] = "0.0.0.0", gs[INET6_ADDRSTRLEN];
		struct in6_addr g;

		if (r[i].host_family == AF_UNSPEC)
			strcpy(hs, "::");
		else
			s4n_addr_str(&r[i].host_addr, hs);
		if (r[i].guest_set) {
			g = r[i].guest_addr;
		} else if (r[i].host_family == AF_INET6) {
			g = sh->conf->guest6;
		} else {
			memset(&g, 0, sizeof(g));
			g.s6_addr[10] = g.s6_addr[11] = 0xff;
			memcpy(&g.s6_addr[12], &sh->conf->guest4, 4);
		}
		json_array_append_new(entries,
			json_pack("{s:i,s:s,s:s,s:i,s:s,s:i}",
				  "id", (json_int_t)r[i].id,
				  "proto", r[i].proto == IPPROTO_UDP ? "udp" : "tcp",
				  "host_addr", hs,
				  "host_port", (json_int_t)r[i].host_port,
				  "guest_addr", s4n_addr_str(&g, gs),
				  "guest_port", (json_int_t)r[i].guest_port));
	}
	free(r);
	return json_pack("{s:{s:o}}", "return", "entries", entries);
}

/**
 * s4n_remove() - remove_hostfwd
 * @sh:		shard 0
 * @args:	arguments (may be NULL)
 *
 * Return: the reply
 */
static json_t *s4n_remove(struct shard *sh, json_t *args)
{
	json_t *v = json_object_get(args, "id");
	json_int_t id;

	if (!json_is_integer(v) || (id = json_integer_value(v)) < 1 ||
	    id > UINT32_MAX)
		return s4n_err("bad request: remove_hostfwd: bad arguments.id (expected an id from add_hostfwd)");
	if (fwd_remove(sh, (unsigned)id))
		return s4n_err("remove_hostfwd: no forward with id %lld",
			       (long long)id);
	return json_pack("{s:{}}", "return");
}

/**
 * s4n_api_handle() - answer one request
 * @sh:		shard 0
 * @req:	request bytes
 * @len:	their length
 *
 * Return: the reply (free() it), or NULL if out of memory
 */
char *s4n_api_handle(struct shard *sh, const char *req, size_t len)
{
	json_t *root, *reply;
	json_error_t je;
	const char *cmd;
	char *out;

	root = json_loadb(req, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		reply = s4n_err("bad request: cannot parse JSON: %s", je.text);
	} else if (!json_is_object(root) ||
		   !(cmd = json_string_value(json_object_get(root, "execute")))) {
		reply = s4n_err("bad request: expected {\"execute\": COMMAND, \"arguments\": {...}}");
	} else if (!strcmp(cmd, "add_hostfwd")) {
		reply = s4n_add(sh, json_object_get(root, "arguments"));
	} else if (!strcmp(cmd, "list_hostfwd")) {
		reply = s4n_list(sh);
	} else if (!strcmp(cmd, "remove_hostfwd")) {
		reply = s4n_remove(sh, json_object_get(root, "arguments"));
	} else {
		reply = s4n_err("bad request: unknown execute \"%.64s\" (add_hostfwd, list_hostfwd, remove_hostfwd)",
				cmd);
	}
	json_decref(root);
	if (!reply)
		return NULL;
	out = json_dumps(reply, JSON_COMPACT);
	json_decref(reply);
	return out;
}

/**
 * s4n_conn_close() - close a connection, free its slot
 * @a:		API state
 * @c:		connection
 *
 * #syscalls close
 */
static void s4n_conn_close(struct s4n_api *a, struct s4n_conn *c)
{
	(void)a;
	close(c->fd); /* leaves the epoll set with it */
	c->fd = -1;
	c->len = 0;
	c->draining = false;
}

/**
 * s4n_conn_reply() - send a reply, close the connection
 * @a:		API state
 * @c:		connection
 * @reply:	NUL-terminated reply, or NULL (out of memory: just close)
 *
 * #syscalls sendto close
 */
static void s4n_conn_reply(struct s4n_api *a, struct s4n_conn *c,
			   const char *reply)
{
	if (reply) {
		size_t n = strlen(reply);

		if (send(c->fd, reply, n, MSG_NOSIGNAL | MSG_DONTWAIT) !=
		    (ssize_t)n)
			debug("API: reply of %zu bytes not sent whole", n);
	}
	s4n_conn_close(a, c);
}

/**
 * s4n_accept() - take new connections
 * @a:		API state
 *
 * #syscalls accept4 epoll_ctl
 */
static void s4n_accept(struct s4n_api *a)
{
	int fd;

	while ((fd = accept4(a->fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct s4n_conn *c = NULL;
		unsigned i;

		for (i = 0; i < S4N_API_CONNS; i++) {
			struct s4n_conn *x = &a->conn[i];

			if (x->fd < 0) {
				c = x;
				break;
			}
			if (!c || x->seq < c->seq)
				c = x;
		}
		if (c->fd >= 0) {
			debug("API: %d connections open, closing the oldest",
			      S4N_API_CONNS);
			s4n_conn_close(a, c);
		}
		if (shard_ep_add(a->sh, fd, EPOLLIN | EPOLLRDHUP,
				 EP_DATA(EP_CTL, CTL_IDX_API_CONN +
							 (unsigned)(c - a->conn)))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->seq = ++a->seq;
		c->len = 0;
	}
}

/**
 * s4n_conn_read() - read a connection's request; answer it when complete
 * @a:		API state
 * @c:		connection
 *
 * #syscalls recvfrom sendto shutdown
 */
static void s4n_conn_read(struct s4n_api *a, struct s4n_conn *c)
{
	char *reply;
	bool eof = false;
	json_t *probe;

	for (;;) {
		ssize_t n = recv(c->fd, c->buf + c->len,
				 sizeof(c->buf) - c->len, 0);

		if (n == 0) {
			eof = true;
			break;
		}
		if (n > 0 && c->draining) {
			c->len = 0;
			continue;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			s4n_conn_close(a, c);
			return;
		}
		c->len += (size_t)n;
		if (c->len > S4N_API_REQ_MAX) {
			json_t *e = s4n_err("bad request: request too large (at most %d bytes)",
					    S4N_API_REQ_MAX);
			char *r = e ? json_dumps(e, JSON_COMPACT) : NULL;

			json_decref(e);
			if (r && send(c->fd, r, strlen(r),
				      MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				debug("API: error reply not sent");
			free(r);
			shutdown(c->fd, SHUT_WR);
			c->draining = true;
			c->len = 0;
		}
	}
	if (c->draining) {
		if (eof)
			s4n_conn_close(a, c);
		return;
	}
	if (!eof) {
		/* answer a complete request without waiting for EOF */
		probe = json_loadb(c->buf, c->len, 0, NULL);
		if (!probe)
			return;
		json_decref(probe);
	}
	reply = s4n_api_handle(a->sh, c->buf, c->len);
	s4n_conn_reply(a, c, reply);
	free(reply);
}

/**
 * s4n_api_event() - an EP_CTL event of the API
 * @a:		API state
 * @idx:	EP_IDX() of the event
 */
void s4n_api_event(struct s4n_api *a, uint32_t idx)
{
	if (idx == CTL_IDX_API) {
		s4n_accept(a);
		return;
	}
	idx -= CTL_IDX_API_CONN;
	if (idx < S4N_API_CONNS && a->conn[idx].fd >= 0)
		s4n_conn_read(a, &a->conn[idx]);
}

/**
 * s4n_api_init() - listen on the API socket
 * @sh:		shard 0
 * @path:	socket path
 *
 * Return: the API state, or NULL (logged)
 */
struct s4n_api *s4n_api_init(struct shard *sh, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct s4n_api *a = calloc(1, sizeof(*a));
	unsigned i;

	if (!a) {
		err("out of memory");
		return NULL;
	}
	a->sh = sh;
	for (i = 0; i < S4N_API_CONNS; i++)
		a->conn[i].fd = -1;
	snprintf(a->path, sizeof(a->path), "%s", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	a->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->fd < 0 || bind(a->fd, (struct sockaddr *)&sun, sizeof(sun))) {
		err_perror("cannot create the API socket %s", path);
		goto out;
	}
	if (listen(a->fd, 64) ||
	    shard_ep_add(sh, a->fd, EPOLLIN, EP_DATA(EP_CTL, CTL_IDX_API))) {
		err_perror("cannot listen on the API socket %s", path);
		unlink(a->path);
		goto out;
	}
	return a;
out:
	if (a->fd >= 0)
		close(a->fd);
	free(a);
	return NULL;
}

/**
 * s4n_api_fini() - close every connection and the socket, remove its path
 * @a:		API state, or NULL
 *
 * #syscalls close unlink
 */
void s4n_api_fini(struct s4n_api *a)
{
	unsigned i;

	if (!a)
		return;
	for (i = 0; i < S4N_API_CONNS; i++)
		if (a->conn[i].fd >= 0)
			s4n_conn_close(a, &a->conn[i]);
	close(a->fd);
	unlink(a->path);
	free(a);
}
