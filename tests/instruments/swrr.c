/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swrr.c - TCP request/response latency: fixed-size ping-pong, verified */

/*
 * DOC: Theory of Operation
 *
 * The client opens one TCP connection (TCP_NODELAY at both ends) and does
 * --warmup + --count round trips. A round trip writes one message of
 * --size bytes and reads until the same number of bytes came back; its
 * time is taken with CLOCK_MONOTONIC just before the first write and just
 * after the last read. The server echoes every byte it reads, so each
 * message crosses the path twice. The content of message i is a function
 * of i, and the client compares every byte of the echo with what it sent:
 * a corrupted, lost, duplicated or reordered byte in either direction is a
 * failure (exit status 1, "error" in the JSON). After the last round trip
 * the client shuts its side down and expects a clean EOF with no byte more.
 *
 * Output (client, one JSON line on stdout), times in microseconds over the
 * --count measured round trips (warm-up ones are not counted):
 *	{"count":N,"size":S,"warmup":W,"p50_us":..,"p90_us":..,"p99_us":..,
 *	 "mean_us":..,"min_us":..,"max_us":..,"seconds":..}
 * Percentiles are nearest-rank. The server runs until it is signalled (or,
 * with --once, until its first connection ends) and logs to stderr only.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "toolutil.h"

const char tool_name[] = "swrr";

#define DEFAULT_COUNT 10000u
#define DEFAULT_SIZE 64u
#define DEFAULT_WARMUP 100u
#define DEFAULT_TIMEOUT 10 /* seconds without progress */
#define MAX_SIZE (1u << 20)
#define MAX_COUNT 100000000u
#define ECHO_BUF_LEN 65536u
#define MAX_CONNS 64 /* server: concurrent connections */

/**
 * struct rr_opts - command line
 * @server:	true for "server", false for "client"
 * @addr:	client: address to connect to; server: address to bind
 * @port:	TCP port (text)
 * @count:	measured round trips
 * @size:	message size in bytes
 * @warmup:	unmeasured round trips before the measured ones
 * @timeout_s:	client: fail when an I/O makes no progress this long
 * @once:	server: exit when the first connection ends
 */
struct rr_opts {
	bool server;
	const char *addr;
	const char *port;
	unsigned int count;
	unsigned int size;
	unsigned int warmup;
	int timeout_s;
	bool once;
};

/**
 * usage() - print the command line summary
 * @f:	stream to print to
 */
static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  swrr server PORT [--bind ADDR] [--once]\n"
	      "  swrr client ADDR PORT [--count N] [--size BYTES] [--warmup "
	      "N]\n"
	      "                        [--timeout SEC]\n"
	      "\n"
	      "TCP request/response latency over one connection (TCP_NODELAY): "
	      "the\n"
	      "client sends a message of --size bytes, the server echoes it, "
	      "the client\n"
	      "verifies every byte and times the round trip "
	      "(CLOCK_MONOTONIC).\n"
	      "\n"
	      "  --bind ADDR     server: listen address (default 0.0.0.0)\n"
	      "  --once          server: exit after the first connection\n"
	      "  --count N       client: measured round trips (default 10000)\n"
	      "  --size BYTES    client: message size, 1..1048576 (default "
	      "64)\n"
	      "  --warmup N      client: round trips before measuring (default "
	      "100)\n"
	      "  --timeout SEC   client: fail after SEC seconds without "
	      "progress\n"
	      "                  (default 10)\n"
	      "\n"
	      "The client prints one JSON line: count, size, warmup, p50_us, "
	      "p90_us,\n"
	      "p99_us, mean_us, min_us, max_us, seconds (and error on "
	      "failure).\n"
	      "Exit status: 0 all round trips verified, 1 failure, 2 usage.\n",
	      f);
}

/**
 * parse_args() - parse the command line
 * @argc:	argument count
 * @argv:	arguments
 * @o:		filled in
 */
static void parse_args(int argc, char **argv, struct rr_opts *o)
{
	int i, npos = 0;
	const char *pos[2] = { NULL, NULL };

	memset(o, 0, sizeof(*o));
	o->count = DEFAULT_COUNT;
	o->size = DEFAULT_SIZE;
	o->warmup = DEFAULT_WARMUP;
	o->timeout_s = DEFAULT_TIMEOUT;
	if (argc < 2)
		usage_error("missing command (server or client)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		exit(0);
	}
	if (!strcmp(argv[1], "server"))
		o->server = true;
	else if (strcmp(argv[1], "client"))
		usage_error("unknown command '%s' (expected server or client)",
			    argv[1]);

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < argc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--once") && o->server) {
			o->once = true;
		} else if (!strcmp(a, "--bind") && o->server) {
			if (!has_val)
				usage_error("--bind needs a value");
			o->addr = argv[++i];
		} else if (!strcmp(a, "--count") && !o->server) {
			if (!has_val)
				usage_error("--count needs a value");
			o->count = parse_uint(a, argv[++i], 1, MAX_COUNT);
		} else if (!strcmp(a, "--size") && !o->server) {
			if (!has_val)
				usage_error("--size needs a value");
			o->size = parse_uint(a, argv[++i], 1, MAX_SIZE);
		} else if (!strcmp(a, "--warmup") && !o->server) {
			if (!has_val)
				usage_error("--warmup needs a value");
			o->warmup = parse_uint(a, argv[++i], 0, MAX_COUNT);
		} else if (!strcmp(a, "--timeout") && !o->server) {
			if (!has_val)
				usage_error("--timeout needs a value");
			o->timeout_s = (int)parse_uint(a, argv[++i], 1, 86400);
		} else if (a[0] == '-' && a[1]) {
			usage_error("unknown option '%s' for %s", a,
				    o->server ? "server" : "client");
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			usage_error("unexpected argument '%s'", a);
		}
	}
	if (o->server) {
		if (npos != 1)
			usage_error("server needs PORT");
		o->port = pos[0];
		if (!o->addr)
			o->addr = "0.0.0.0";
	} else {
		if (npos != 2)
			usage_error("client needs ADDR PORT");
		o->addr = pos[0];
		o->port = pos[1];
	}
	parse_uint("PORT", o->port, 1, 65535);
}

/**
 * set_nodelay() - turn Nagle's algorithm off on a TCP socket
 * @fd:	socket
 *
 * Return: 0 or -errno
 */
static int set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Client                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * msg_fill() - content of message @i: a byte sequence that depends on @i
 * @buf:	destination, @len bytes
 * @len:	message size
 * @i:		round trip index
 */
static void msg_fill(uint8_t *buf, size_t len, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL;
	size_t k;

	for (k = 0; k < len; k++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ULL;
		buf[k] = (uint8_t)(x >> 56);
	}
}

/**
 * wait_fd() - wait until a socket is readable or writable
 * @fd:		socket
 * @events:	POLLIN or POLLOUT
 * @timeout_s:	limit
 *
 * Return: 0 when ready, -ETIMEDOUT, or -errno of poll()
 */
static int wait_fd(int fd, short events, int timeout_s)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do {
		r = poll(&p, 1, timeout_s * 1000);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

/**
 * write_all() - write a whole buffer to a non-blocking socket
 * @fd:		socket
 * @buf:	data
 * @len:	bytes
 * @timeout_s:	limit without progress
 *
 * Return: 0 or -errno
 */
static int write_all(int fd, const uint8_t *buf, size_t len, int timeout_s)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		int rc;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		rc = wait_fd(fd, POLLOUT, timeout_s);
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * read_full() - read exactly @len bytes from a non-blocking socket
 * @fd:		socket
 * @buf:	destination
 * @len:	bytes
 * @timeout_s:	limit without progress
 *
 * Return: 0, -EPIPE on EOF before @len bytes, or -errno
 */
static int read_full(int fd, uint8_t *buf, size_t len, int timeout_s)
{
	while (len) {
		ssize_t n = recv(fd, buf, len, 0);
		int rc;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		rc = wait_fd(fd, POLLIN, timeout_s);
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * connect_to() - open a non-blocking TCP connection with a time limit
 * @ss:		address
 * @len:	address length
 * @timeout_s:	limit
 *
 * Return: the socket, or -errno
 */
static int connect_to(const struct sockaddr_storage *ss, socklen_t len,
		      int timeout_s)
{
	socklen_t elen = sizeof(int);
	int fd, rc, err = 0;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)ss, len) < 0) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			goto out_close;
		}
		rc = wait_fd(fd, POLLOUT, timeout_s);
		if (rc)
			goto out_close;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			err = errno;
		if (err) {
			rc = -err;
			goto out_close;
		}
	}
	rc = set_nodelay(fd);
	if (rc)
		goto out_close;
	return fd;
out_close:
	close(fd);
	return rc;
}

/**
 * fail_json() - print the failure line and return the exit status
 * @o:		options
 * @done:	measured round trips completed before the failure
 * @fmt:	printf format of the reason
 *
 * Return: 1
 */
static int fail_json(const struct rr_opts *o, unsigned int done,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_json(const struct rr_opts *o, unsigned int done,
		     const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	char *c;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "swrr: %s\n", msg);
	for (c = msg; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
			*c = '\'';
	printf("{\"count\":%u,\"size\":%u,\"warmup\":%u,\"error\":\"%s\"}\n",
	       done, o->size, o->warmup, msg);
	fflush(stdout);
	return 1;
}

/**
 * run_client() - connect, do the round trips, verify, print the JSON line
 * @o:	options
 *
 * Return: exit status
 */
static int run_client(const struct rr_opts *o)
{
	uint64_t total = (uint64_t)o->warmup + o->count, i, t0, t1, start;
	uint8_t *sbuf, *rbuf, extra;
	struct sockaddr_storage ss;
	uint64_t *lat, sum = 0;
	socklen_t len;
	unsigned int done = 0;
	size_t k, n;
	int fd, rc;

	if (!tool_resolve(o->addr, o->port, false, &ss, &len))
		return 1;
	sbuf = malloc(o->size);
	rbuf = malloc(o->size);
	lat = malloc(sizeof(*lat) * o->count);
	if (!sbuf || !rbuf || !lat) {
		fputs("swrr: out of memory\n", stderr);
		return 1;
	}
	fd = connect_to(&ss, len, o->timeout_s);
	if (fd < 0)
		return fail_json(o, 0, "connect %s port %s: %s", o->addr,
				 o->port, strerror(-fd));

	start = now_ns();
	for (i = 0; i < total; i++) {
		msg_fill(sbuf, o->size, i);
		t0 = now_ns();
		rc = write_all(fd, sbuf, o->size, o->timeout_s);
		if (rc)
			return fail_json(o, done,
					 "round trip %" PRIu64 ": write: %s", i,
					 strerror(-rc));
		rc = read_full(fd, rbuf, o->size, o->timeout_s);
		if (rc)
			return fail_json(o, done,
					 "round trip %" PRIu64 ": read: %s", i,
					 rc == -EPIPE ? "EOF from the server" :
							strerror(-rc));
		t1 = now_ns();
		if (memcmp(sbuf, rbuf, o->size)) {
			for (k = 0; sbuf[k] == rbuf[k]; k++)
				;
			return fail_json(o, done,
					 "round trip %" PRIu64
					 ": byte %zu of the echo is 0x%02x, "
					 "sent 0x%02x",
					 i, k, rbuf[k], sbuf[k]);
		}
		if (i >= o->warmup) {
			lat[done++] = t1 - t0;
			sum += t1 - t0;
		}
	}
	t1 = now_ns();

	/* no byte more: our EOF must come back as the server's EOF */
	if (shutdown(fd, SHUT_WR) < 0)
		return fail_json(o, done, "shutdown: %s", strerror(errno));
	rc = read_full(fd, &extra, 1, o->timeout_s);
	if (rc != -EPIPE)
		return fail_json(o, done, "after the last round trip: %s",
				 rc ? strerror(-rc) : "unexpected extra byte");
	close(fd);

	n = done;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("{\"count\":%zu,\"size\":%u,\"warmup\":%u,\"p50_us\":%.2f,"
	       "\"p90_us\":%.2f,\"p99_us\":%.2f,\"mean_us\":%.2f,"
	       "\"min_us\":%.2f,\"max_us\":%.2f,\"seconds\":%.3f}\n",
	       n, o->size, o->warmup, pct_us(lat, n, 50), pct_us(lat, n, 90),
	       pct_us(lat, n, 99), (double)sum / (double)n / 1e3,
	       (double)lat[0] / 1e3, (double)lat[n - 1] / 1e3,
	       (double)(t1 - start) / 1e9);
	fflush(stdout);
	free(lat);
	free(rbuf);
	free(sbuf);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Server                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * struct echo_conn - one accepted connection of the echo server
 * @fd:		socket, -1 when the slot is free
 * @buf:	bytes read and not yet written back
 * @len:	valid bytes in @buf
 * @off:	bytes of @buf already written back
 * @eof:	the client shut down its side
 */
struct echo_conn {
	int fd;
	uint8_t buf[ECHO_BUF_LEN];
	size_t len;
	size_t off;
	bool eof;
};

static struct echo_conn conns[MAX_CONNS];

/**
 * echo_io() - move bytes for one connection: write back, then read more
 * @c:	connection
 *
 * Return: true while the connection stays open, false once it is closed
 */
static bool echo_io(struct echo_conn *c)
{
	ssize_t n;

	for (;;) {
		while (c->off < c->len) {
			n = send(c->fd, c->buf + c->off, c->len - c->off,
				 MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return true;
			if (n <= 0)
				goto out_close;
			c->off += (size_t)n;
		}
		c->off = c->len = 0;
		if (c->eof) {
			/* everything echoed: pass the EOF on */
			shutdown(c->fd, SHUT_WR);
			goto out_close;
		}
		n = recv(c->fd, c->buf, sizeof(c->buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n < 0)
			goto out_close;
		if (n == 0)
			c->eof = true;
		c->len = (size_t)n;
	}
out_close:
	close(c->fd);
	c->fd = -1;
	return false;
}

/**
 * run_server() - listen and echo, one poll() loop for all connections
 * @o:	options
 *
 * Return: exit status
 */
static int run_server(const struct rr_opts *o)
{
	struct pollfd pfd[MAX_CONNS + 1];
	struct sockaddr_storage ss;
	int lfd, one = 1, i, n;
	socklen_t len;

	if (!tool_resolve(o->addr, o->port, true, &ss, &len))
		return 1;
	lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		     0);
	if (lfd < 0) {
		perror("swrr: socket");
		return 1;
	}
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&ss, len) < 0 || listen(lfd, 64) < 0) {
		fprintf(stderr, "swrr: listen %s port %s: %s\n", o->addr,
			o->port, strerror(errno));
		close(lfd);
		return 1;
	}
	for (i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;
	fprintf(stderr, "swrr: listening on %s port %s\n", o->addr, o->port);

	for (;;) {
		n = 0;
		pfd[n].fd = lfd;
		pfd[n++].events = POLLIN;
		for (i = 0; i < MAX_CONNS; i++) {
			pfd[n].fd = conns[i].fd;
			pfd[n].events = conns[i].off < conns[i].len ? POLLOUT :
								      POLLIN;
			pfd[n++].revents = 0;
		}
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("swrr: poll");
			return 1;
		}
		for (i = 0; i < MAX_CONNS; i++) {
			if (conns[i].fd < 0 || !pfd[i + 1].revents)
				continue;
			if (!echo_io(&conns[i]) && o->once)
				return 0;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		for (;;) {
			int fd = accept4(lfd, NULL, NULL,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd < 0)
				break;
			for (i = 0; i < MAX_CONNS && conns[i].fd >= 0; i++)
				;
			if (i == MAX_CONNS || set_nodelay(fd)) {
				fputs("swrr: connection refused (too many)\n",
				      stderr);
				close(fd);
				continue;
			}
			conns[i].fd = fd;
			conns[i].len = conns[i].off = 0;
			conns[i].eof = false;
			if (!echo_io(&conns[i]) && o->once)
				return 0;
		}
	}
}

/**
 * main() - entry point
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 on success, 1 on failure, 2 on bad usage
 */
int main(int argc, char **argv)
{
	struct rr_opts o;

	parse_args(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);
	return o.server ? run_server(&o) : run_client(&o);
}
