/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swconn.c - TCP connection rate and idle-flow holder, every reply verified */

/*
 * DOC: Theory of Operation
 *
 * Three roles share one tiny protocol. A client connection sends a request
 * of REQ_LEN bytes: the magic "SWC1", an operation byte, three zero bytes
 * and a 64-bit connection id (little-endian). The server answers with
 * REP_LEN bytes: the magic "swc1", the same operation byte, three zero
 * bytes, the same id, and 16 bytes that are a function of the id. Then:
 *
 *  - operation 'C' (client): the server closes the connection after the
 *    reply; the client checks the reply byte by byte and then expects EOF,
 *    with no byte more. One such exchange is one counted connection.
 *  - operation 'H' (hold): the server keeps the connection open after the
 *    reply and closes it when the client does. The client checks the
 *    reply and then leaves the connection idle until it is told to let go.
 *
 * swconn server PORT serves both, any number of connections at once (one
 * epoll loop), until SIGTERM or SIGINT; it then prints a JSON summary.
 *
 * swconn client ADDR PORT --seconds S [--parallel K] keeps K connections
 * in flight (connect, request, reply, EOF, close, next) for S seconds,
 * then lets the ones in flight finish and prints
 *	{"connections":N,"per_second":R,"errors":E,"seconds":T,"parallel":K}
 * where R = N / T and T runs from the first connect to the last close.
 * Any failure (refused, reset, timeout, a wrong or extra byte) is an error
 * and makes the exit status 1.
 *
 * swconn hold ADDR PORT --count N [--parallel K] opens N connections (at
 * most K, default 64, still opening at once), each verified with an 'H'
 * exchange, then prints a "held" JSON line, writes --ready-file, and holds
 * them until SIGTERM or SIGINT (or --hold-seconds). A held connection that
 * sees data, EOF or an error counts as dropped. On release it closes them,
 * K every 10 ms (a burst of thousands of FINs at once would measure the
 * gateway's queues, not its idle flows), and prints a "released" line.
 * Exit status 0 only if all N were established and none failed or dropped.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "toolutil.h"

const char tool_name[] = "swconn";

#define REQ_LEN 16
#define REP_LEN 32
#define OP_CLOSE 'C'
#define OP_HOLD 'H'
#define CONN_TIMEOUT_S 10.0	  /* client: one connection, connect to EOF */
#define HOLD_TIMEOUT_S 30.0	  /* hold: connect to reply (SYN retries) */
#define RELEASE_TICK_NS 10000000L /* hold: a batch of closes per 10 ms */
#define MAX_ERRORS 1000		  /* client: stop early after this many */
#define EPOLL_BATCH 256
#define TICK_MS 100
#define ERR_LEN 160

/**
 * enum cstate - state of one client-side connection
 * @CS_IDLE:		slot free
 * @CS_CONNECTING:	connect() in progress, waiting for EPOLLOUT
 * @CS_REPLY:		request sent, reading the reply
 * @CS_EOF:		reply complete and verified, waiting for EOF ('C')
 * @CS_HELD:		reply complete and verified, held idle ('H')
 * @CS_NUM:		number of states
 */
enum cstate { CS_IDLE, CS_CONNECTING, CS_REPLY, CS_EOF, CS_HELD, CS_NUM };

/**
 * struct cconn - one client-side connection
 * @fd:		socket, -1 when idle
 * @state:	see enum cstate
 * @id:		connection id sent in the request
 * @t_start:	when connect() was called, seconds
 * @rep:	reply bytes received so far
 * @rep_len:	valid bytes in @rep
 */
struct cconn {
	int fd;
	enum cstate state;
	uint64_t id;
	double t_start;
	uint8_t rep[REP_LEN];
	unsigned int rep_len;
};

/**
 * struct sconn - one server-side connection (indexed by file descriptor)
 * @open:	slot in use
 * @req:	request bytes received so far
 * @req_len:	valid bytes in @req
 * @rep:	reply to send
 * @rep_off:	bytes of @rep sent
 * @replied:	the whole reply was sent
 * @hold:	keep the connection after the reply ('H')
 */
struct sconn {
	bool open;
	uint8_t req[REQ_LEN];
	unsigned int req_len;
	uint8_t rep[REP_LEN];
	unsigned int rep_off;
	bool replied;
	bool hold;
};

/**
 * struct opts - command line
 * @cmd:	"server", "client" or "hold"
 * @addr:	client/hold: address to connect to; server: address to bind
 * @port:	TCP port (text)
 * @seconds:	client: how long to open new connections
 * @parallel:	client: connections in flight; hold: opening at once
 * @count:	hold: connections to open and hold
 * @hold_s:	hold: release after this many seconds (0: on a signal only)
 * @timeout_s:	hold: limit for opening all @count connections
 * @ready_file:	hold: created once all connections are open
 */
struct opts {
	const char *cmd;
	const char *addr;
	const char *port;
	double seconds;
	unsigned int parallel;
	unsigned int count;
	double hold_s;
	double timeout_s;
	const char *ready_file;
};

static volatile sig_atomic_t stop_flag;

/**
 * on_signal() - SIGTERM/SIGINT handler: ask the loop to finish
 * @sig:	signal number
 */
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/**
 * usage() - print the command line summary
 * @f:	stream to print to
 */
static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  swconn server PORT [--bind ADDR]\n"
	      "  swconn client ADDR PORT --seconds S [--parallel K]\n"
	      "  swconn hold ADDR PORT --count N [--parallel K] [--ready-file "
	      "PATH]\n"
	      "                        [--hold-seconds S] [--timeout S]\n"
	      "\n"
	      "server  accept connections; answer each 16-byte request with a "
	      "32-byte\n"
	      "        reply; close after it (client) or when the peer closes "
	      "(hold).\n"
	      "        Runs until SIGTERM/SIGINT, then prints a JSON summary.\n"
	      "client  new connections for S seconds, K in flight (default 4): "
	      "connect,\n"
	      "        request, verify the reply and the EOF, close. Prints\n"
	      "        "
	      "{\"connections\",\"per_second\",\"errors\",\"seconds\","
	      "\"parallel\"}.\n"
	      "hold    open N connections (K opening at once, default 64), "
	      "verify each\n"
	      "        reply, print a \"held\" JSON line, create PATH, hold "
	      "them idle until\n"
	      "        SIGTERM/SIGINT or S seconds, close them (K every 10 "
	      "ms), print a\n"
	      "        \"released\" line.\n"
	      "        --timeout limits the opening phase (default 120 s).\n"
	      "\n"
	      "Exit status: 0 every connection verified, 1 any failure, 2 "
	      "usage.\n",
	      f);
}

/**
 * parse_secs() - parse a positive number of seconds
 * @opt:	option name, for the message
 * @s:		text
 *
 * Return: the value; exits with status 2 if invalid
 */
static double parse_secs(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400)
		usage_error("%s: expected seconds (0 < S <= 86400), got '%s'",
			    opt, s);
	return v;
}

/**
 * parse_args() - parse the command line
 * @argc:	argument count
 * @argv:	arguments
 * @o:		filled in
 */
static void parse_args(int argc, char **argv, struct opts *o)
{
	const char *pos[2] = { NULL, NULL };
	bool server, client, hold;
	int i, npos = 0, want;

	memset(o, 0, sizeof(*o));
	o->timeout_s = 120;
	if (argc < 2)
		usage_error("missing command (server, client or hold)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		exit(0);
	}
	o->cmd = argv[1];
	server = !strcmp(o->cmd, "server");
	client = !strcmp(o->cmd, "client");
	hold = !strcmp(o->cmd, "hold");
	if (!server && !client && !hold)
		usage_error("unknown command '%s' (expected server, client or "
			    "hold)",
			    o->cmd);

	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (a[0] != '-' || !a[1]) {
			if (npos == 2)
				usage_error("unexpected argument '%s'", a);
			pos[npos++] = a;
			continue;
		}
		if (!v)
			usage_error("%s needs a value (or is unknown)", a);
		i++;
		if (!strcmp(a, "--bind") && server)
			o->addr = v;
		else if (!strcmp(a, "--seconds") && client)
			o->seconds = parse_secs(a, v);
		else if (!strcmp(a, "--parallel") && (client || hold))
			o->parallel = parse_uint(a, v, 1, 65536);
		else if (!strcmp(a, "--count") && hold)
			o->count = parse_uint(a, v, 1, 1000000);
		else if (!strcmp(a, "--ready-file") && hold)
			o->ready_file = v;
		else if (!strcmp(a, "--hold-seconds") && hold)
			o->hold_s = parse_secs(a, v);
		else if (!strcmp(a, "--timeout") && hold)
			o->timeout_s = parse_secs(a, v);
		else
			usage_error("unknown option '%s' for %s", a, o->cmd);
	}
	want = server ? 1 : 2;
	if (npos != want)
		usage_error("%s needs %s", o->cmd,
			    server ? "PORT" : "ADDR PORT");
	if (server) {
		o->port = pos[0];
		if (!o->addr)
			o->addr = "0.0.0.0";
	} else {
		o->addr = pos[0];
		o->port = pos[1];
	}
	parse_uint("PORT", o->port, 1, 65535);
	if (client && !o->seconds)
		usage_error("client needs --seconds S");
	if (hold && !o->count)
		usage_error("hold needs --count N");
	if (!o->parallel)
		o->parallel = client ? 4 : 64;
}

/**
 * now_s() - CLOCK_MONOTONIC in seconds
 *
 * Return: the time
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * raise_nofile() - make room for @need open files (soft, and hard as root)
 * @need:	descriptors wanted
 */
static void raise_nofile(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur >= need)
		return;
	if (rl.rlim_max < need) {
		struct rlimit up = { .rlim_cur = need, .rlim_max = need };

		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
	}
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < need)
		fprintf(stderr,
			"swconn: open files limited to %llu (wanted %llu)\n",
			(unsigned long long)rl.rlim_cur,
			(unsigned long long)need);
}

/**
 * put_le64() - store a 64-bit value little-endian
 * @p:	destination, 8 bytes
 * @v:	value
 */
static void put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/**
 * get_le64() - load a little-endian 64-bit value
 * @p:	source, 8 bytes
 *
 * Return: the value
 */
static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/**
 * req_build() - the request of connection @id
 * @req:	destination, REQ_LEN bytes
 * @op:		OP_CLOSE or OP_HOLD
 * @id:		connection id
 */
static void req_build(uint8_t *req, uint8_t op, uint64_t id)
{
	memcpy(req, "SWC1", 4);
	req[4] = op;
	req[5] = req[6] = req[7] = 0;
	put_le64(req + 8, id);
}

/**
 * rep_build() - the reply to a request of operation @op and id @id
 * @rep:	destination, REP_LEN bytes
 * @op:		operation byte of the request
 * @id:		id of the request
 */
static void rep_build(uint8_t *rep, uint8_t op, uint64_t id)
{
	uint64_t x = (id + 1) * 0x9e3779b97f4a7c15ULL;
	int i;

	memcpy(rep, "swc1", 4);
	rep[4] = op;
	rep[5] = rep[6] = rep[7] = 0;
	put_le64(rep + 8, id);
	for (i = 16; i < REP_LEN; i++) {
		x ^= x >> 31;
		x *= 0x94d049bb133111ebULL;
		rep[i] = (uint8_t)(x >> 56);
	}
}

/* ------------------------------------------------------------------------ */
/* Server                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * struct srv - server state
 * @ep:		epoll descriptor
 * @lfd:	listening socket
 * @c:		connections, indexed by file descriptor
 * @c_len:	entries in @c
 * @accepted:	connections accepted
 * @served:	replies sent completely
 * @held:	connections currently held after an 'H' reply
 * @held_max:	largest @held seen
 * @bad:	requests that were malformed, or data after a request
 * @incomplete:	connections closed before a whole request arrived
 * @errors:	connections ended by a socket error
 */
struct srv {
	int ep;
	int lfd;
	struct sconn *c;
	size_t c_len;
	uint64_t accepted, served, held, held_max, bad, incomplete, errors;
};

/**
 * srv_close() - close a server connection
 * @s:		server
 * @fd:		connection
 * @reset:	abort with RST instead of FIN
 */
static void srv_close(struct srv *s, int fd, bool reset)
{
	struct sconn *c = &s->c[fd];

	if (reset) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	if (c->replied && c->hold)
		s->held--;
	c->open = false;
	close(fd);
}

/**
 * srv_send() - send what is left of the reply; close or hold after it
 * @s:	server
 * @fd:	connection
 */
static void srv_send(struct srv *s, int fd)
{
	struct sconn *c = &s->c[fd];
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	while (c->rep_off < REP_LEN) {
		ssize_t n = send(fd, c->rep + c->rep_off, REP_LEN - c->rep_off,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			ev.events = EPOLLOUT;
			epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &ev);
			return;
		}
		if (n <= 0) {
			s->errors++;
			srv_close(s, fd, false);
			return;
		}
		c->rep_off += (unsigned int)n;
	}
	c->replied = true;
	s->served++;
	if (!c->hold) {
		srv_close(s, fd, false);
		return;
	}
	if (++s->held > s->held_max)
		s->held_max = s->held;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, fd, &ev);
}

/**
 * srv_input() - read from a server connection
 * @s:	server
 * @fd:	connection
 */
static void srv_input(struct srv *s, int fd)
{
	struct sconn *c = &s->c[fd];
	uint8_t buf[64];
	ssize_t n;

	for (;;) {
		bool after = c->replied || c->rep_off;

		if (after)
			n = recv(fd, buf, sizeof(buf), 0);
		else
			n = recv(fd, c->req + c->req_len, REQ_LEN - c->req_len,
				 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			s->errors++;
			srv_close(s, fd, false);
			return;
		}
		if (n == 0) {
			if (!c->replied)
				s->incomplete++;
			srv_close(s, fd, false);
			return;
		}
		if (after) {
			/* nothing may follow a request */
			s->bad++;
			srv_close(s, fd, true);
			return;
		}
		c->req_len += (unsigned int)n;
		if (c->req_len < REQ_LEN)
			continue;
		if (memcmp(c->req, "SWC1", 4) || c->req[5] || c->req[6] ||
		    c->req[7] ||
		    (c->req[4] != OP_CLOSE && c->req[4] != OP_HOLD)) {
			s->bad++;
			srv_close(s, fd, true);
			return;
		}
		c->hold = c->req[4] == OP_HOLD;
		rep_build(c->rep, c->req[4], get_le64(c->req + 8));
		srv_send(s, fd);
		return;
	}
}

/**
 * srv_accept() - accept every pending connection
 * @s:	server
 *
 * Return: 0, or -errno on a fatal error
 */
static int srv_accept(struct srv *s)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		int fd = accept4(s->lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EAGAIN || errno == ECONNABORTED ||
			    errno == EINTR)
				return 0;
			if (errno == EMFILE || errno == ENFILE) {
				fprintf(stderr, "swconn: accept: %s\n",
					strerror(errno));
				s->errors++;
				return 0;
			}
			return -errno;
		}
		if ((size_t)fd >= s->c_len) {
			size_t n = (size_t)fd * 2 + 64;
			struct sconn *c = realloc(s->c, n * sizeof(*c));

			if (!c) {
				close(fd);
				return -ENOMEM;
			}
			memset(c + s->c_len, 0, (n - s->c_len) * sizeof(*c));
			s->c = c;
			s->c_len = n;
		}
		memset(&s->c[fd], 0, sizeof(s->c[fd]));
		s->c[fd].open = true;
		s->accepted++;
		ev.data.fd = fd;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			s->errors++;
			srv_close(s, fd, true);
		}
	}
}

/**
 * run_server() - serve until SIGTERM/SIGINT, then print the summary
 * @o:	options
 *
 * Return: exit status
 */
static int run_server(const struct opts *o)
{
	struct epoll_event ev = { .events = EPOLLIN }, evs[EPOLL_BATCH];
	struct srv s = { .ep = -1 };
	struct sockaddr_storage ss;
	struct rlimit rl;
	socklen_t len;
	int one = 1, n, i;

	/* as many connections as the hard limit allows */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!tool_resolve(o->addr, o->port, true, &ss, &len))
		return 1;
	s.lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (s.lfd < 0) {
		perror("swconn: socket");
		return 1;
	}
	if (setsockopt(s.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) <
		    0 ||
	    bind(s.lfd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(s.lfd, 4096) < 0) {
		fprintf(stderr, "swconn: listen %s port %s: %s\n", o->addr,
			o->port, strerror(errno));
		return 1;
	}
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = s.lfd;
	if (s.ep < 0 || epoll_ctl(s.ep, EPOLL_CTL_ADD, s.lfd, &ev) < 0) {
		perror("swconn: epoll");
		return 1;
	}
	fprintf(stderr, "swconn: listening on %s port %s\n", o->addr, o->port);

	while (!stop_flag) {
		n = epoll_wait(s.ep, evs, EPOLL_BATCH, 1000);
		if (n < 0 && errno != EINTR) {
			perror("swconn: epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == s.lfd) {
				int rc = srv_accept(&s);

				if (rc) {
					fprintf(stderr, "swconn: accept: %s\n",
						strerror(-rc));
					return 1;
				}
			} else if (s.c[fd].open && (evs[i].events & EPOLLOUT) &&
				   !s.c[fd].replied) {
				srv_send(&s, fd);
			} else if (s.c[fd].open) {
				srv_input(&s, fd);
			}
		}
	}
	printf("{\"accepted\":%" PRIu64 ",\"served\":%" PRIu64
	       ",\"held\":%" PRIu64 ",\"held_max\":%" PRIu64 ",\"bad\":%" PRIu64
	       ",\"incomplete\":%" PRIu64 ",\"errors\":%" PRIu64 "}\n",
	       s.accepted, s.served, s.held, s.held_max, s.bad, s.incomplete,
	       s.errors);
	fflush(stdout);
	return s.bad || s.errors ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Client and hold                                                          */
/* ------------------------------------------------------------------------ */

/**
 * struct cli - client/hold state
 * @o:		options
 * @ss:		target address
 * @ss_len:	its length
 * @ep:		epoll descriptor
 * @op:		OP_CLOSE (client) or OP_HOLD (hold)
 * @c:		connection slots
 * @n_slots:	entries in @c
 * @next_id:	id of the next connection
 * @active:	slots not idle and not held
 * @done:	connections completed and verified
 * @errors:	connections that failed
 * @dropped:	hold: held connections that ended or saw data
 * @t_last:	when the last connection completed
 * @timeout_s:	limit for one connection to complete
 * @err:	first error, for the JSON line
 */
struct cli {
	const struct opts *o;
	struct sockaddr_storage ss;
	socklen_t ss_len;
	int ep;
	uint8_t op;
	struct cconn *c;
	size_t n_slots;
	uint64_t next_id;
	uint64_t active, done, errors, dropped;
	double t_last;
	double timeout_s;
	char err[ERR_LEN];
};

/**
 * cli_fail() - end a connection as failed, with a reset
 * @L:		client state
 * @c:		connection
 * @fmt:	printf format of the reason (the first one is kept)
 */
static void cli_fail(struct cli *L, struct cconn *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cli_fail(struct cli *L, struct cconn *c, const char *fmt, ...)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	va_list ap;

	if (!L->errors) {
		va_start(ap, fmt);
		vsnprintf(L->err, sizeof(L->err), fmt, ap);
		va_end(ap);
		fprintf(stderr, "swconn: %s\n", L->err);
	}
	L->errors++;
	if (c->state == CS_HELD)
		L->dropped++;
	else
		L->active--;
	if (c->fd >= 0) {
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c->fd);
	}
	c->fd = -1;
	c->state = CS_IDLE;
}

/**
 * cli_start() - open a new connection in an idle slot
 * @L:	client state
 * @c:	slot
 * @t:	current time
 */
static void cli_start(struct cli *L, struct cconn *c, double t)
{
	struct epoll_event ev = { .events = EPOLLOUT };

	c->id = L->next_id++;
	c->t_start = t;
	c->rep_len = 0;
	c->state = CS_CONNECTING;
	L->active++;
	c->fd = socket(L->ss.ss_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		cli_fail(L, c, "socket: %s", strerror(errno));
		return;
	}
	if (connect(c->fd, (struct sockaddr *)&L->ss, L->ss_len) < 0 &&
	    errno != EINPROGRESS) {
		cli_fail(L, c, "connect %s port %s: %s", L->o->addr, L->o->port,
			 strerror(errno));
		return;
	}
	ev.data.u64 = (uint64_t)(c - L->c);
	if (epoll_ctl(L->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		cli_fail(L, c, "epoll_ctl: %s", strerror(errno));
}

/**
 * cli_connected() - connect() finished: check it, send the request
 * @L:	client state
 * @c:	connection
 */
static void cli_connected(struct cli *L, struct cconn *c)
{
	struct epoll_event ev = { .events = EPOLLIN };
	socklen_t elen = sizeof(int);
	uint8_t req[REQ_LEN];
	int err = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		err = errno;
	if (err) {
		cli_fail(L, c, "connect %s port %s: %s", L->o->addr, L->o->port,
			 strerror(err));
		return;
	}
	req_build(req, L->op, c->id);
	/* 16 bytes into an empty send buffer: all or an error */
	if (send(c->fd, req, REQ_LEN, MSG_NOSIGNAL) != REQ_LEN) {
		cli_fail(L, c, "send request: %s", strerror(errno));
		return;
	}
	c->state = CS_REPLY;
	ev.data.u64 = (uint64_t)(c - L->c);
	if (epoll_ctl(L->ep, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		cli_fail(L, c, "epoll_ctl: %s", strerror(errno));
}

/**
 * cli_input() - read the reply, then the EOF (client) or nothing (hold)
 * @L:	client state
 * @c:	connection
 */
static void cli_input(struct cli *L, struct cconn *c)
{
	uint8_t want[REP_LEN], extra[64];
	unsigned int k;
	ssize_t n;

	for (;;) {
		if (c->state == CS_REPLY)
			n = recv(c->fd, c->rep + c->rep_len,
				 REP_LEN - c->rep_len, 0);
		else
			n = recv(c->fd, extra, sizeof(extra), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			cli_fail(L, c, "connection %" PRIu64 ": %s", c->id,
				 strerror(errno));
			return;
		}
		if (c->state == CS_HELD) {
			cli_fail(L, c, "held connection %" PRIu64 ": %s", c->id,
				 n ? "unexpected data" : "closed by the peer");
			return;
		}
		if (c->state == CS_EOF) {
			if (n) {
				cli_fail(L, c,
					 "connection %" PRIu64
					 ": %zd byte(s) after the reply",
					 c->id, n);
				return;
			}
			close(c->fd);
			c->fd = -1;
			c->state = CS_IDLE;
			L->active--;
			L->done++;
			L->t_last = now_s();
			return;
		}
		if (n == 0) {
			cli_fail(L, c,
				 "connection %" PRIu64
				 ": EOF after %u of %d reply bytes",
				 c->id, c->rep_len, REP_LEN);
			return;
		}
		c->rep_len += (unsigned int)n;
		if (c->rep_len < REP_LEN)
			continue;
		rep_build(want, L->op, c->id);
		if (memcmp(want, c->rep, REP_LEN)) {
			for (k = 0; want[k] == c->rep[k]; k++)
				;
			cli_fail(L, c,
				 "connection %" PRIu64
				 ": reply byte %u is 0x%02x, expected 0x%02x",
				 c->id, k, c->rep[k], want[k]);
			return;
		}
		if (L->op == OP_HOLD) {
			c->state = CS_HELD;
			L->active--;
			L->done++;
			continue; /* and see that nothing follows */
		}
		c->state = CS_EOF;
	}
}

/**
 * cli_timeouts() - fail connections that took longer than @L->timeout_s
 * @L:	client state
 * @t:	current time
 */
static void cli_timeouts(struct cli *L, double t)
{
	size_t i;

	for (i = 0; i < L->n_slots; i++) {
		struct cconn *c = &L->c[i];

		if (c->state != CS_IDLE && c->state != CS_HELD &&
		    t - c->t_start > L->timeout_s)
			cli_fail(L, c,
				 "connection %" PRIu64 ": no %s after %g s",
				 c->id,
				 c->state == CS_CONNECTING ? "connection" :
				 c->state == CS_REPLY	   ? "reply" :
							     "EOF",
				 L->timeout_s);
	}
}

/**
 * cli_poll() - wait for events and dispatch them
 * @L:		client state
 * @ms:		epoll_wait() timeout
 *
 * Return: 0, or -errno on a fatal error
 */
static int cli_poll(struct cli *L, int ms)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n, i;

	n = epoll_wait(L->ep, evs, EPOLL_BATCH, ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		struct cconn *c = &L->c[evs[i].data.u64];

		if (c->state == CS_CONNECTING)
			cli_connected(L, c);
		else if (c->state != CS_IDLE)
			cli_input(L, c);
	}
	return 0;
}

/**
 * json_err() - print the first error as a JSON member, if there was one
 * @L:	client state
 */
static void json_err(const struct cli *L)
{
	const char *p;

	if (!L->errors)
		return;
	fputs(",\"first_error\":\"", stdout);
	for (p = L->err; *p; p++)
		putchar(*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 ?
				'\'' :
				*p);
	putchar('"');
}

/**
 * cli_init() - resolve the target and allocate the slots
 * @L:		client state
 * @o:		options
 * @slots:	number of connection slots
 * @op:		OP_CLOSE or OP_HOLD
 *
 * Return: true on success
 */
static bool cli_init(struct cli *L, const struct opts *o, size_t slots,
		     uint8_t op)
{
	size_t i;

	memset(L, 0, sizeof(*L));
	L->o = o;
	L->op = op;
	L->timeout_s = op == OP_HOLD ? HOLD_TIMEOUT_S : CONN_TIMEOUT_S;
	if (!tool_resolve(o->addr, o->port, false, &L->ss, &L->ss_len))
		return false;
	L->ep = epoll_create1(EPOLL_CLOEXEC);
	L->c = calloc(slots, sizeof(*L->c));
	if (L->ep < 0 || !L->c) {
		perror("swconn: setup");
		return false;
	}
	L->n_slots = slots;
	for (i = 0; i < slots; i++)
		L->c[i].fd = -1;
	return true;
}

/**
 * run_client() - connection rate: K in flight for --seconds
 * @o:	options
 *
 * Return: exit status
 */
static int run_client(const struct opts *o)
{
	double start, end, t;
	struct cli L;
	size_t i;
	int rc;

	raise_nofile(o->parallel + 64);
	if (!cli_init(&L, o, o->parallel, OP_CLOSE))
		return 1;
	start = now_s();
	L.t_last = start;
	end = start + o->seconds;
	for (i = 0; i < L.n_slots; i++)
		cli_start(&L, &L.c[i], start);
	for (;;) {
		rc = cli_poll(&L, TICK_MS);
		if (rc) {
			fprintf(stderr, "swconn: epoll_wait: %s\n",
				strerror(-rc));
			return 1;
		}
		t = now_s();
		cli_timeouts(&L, t);
		if (stop_flag || L.errors >= MAX_ERRORS)
			end = 0;
		if (t < end)
			for (i = 0; i < L.n_slots; i++)
				if (L.c[i].state == CS_IDLE)
					cli_start(&L, &L.c[i], t);
		if (!L.active)
			break;
	}
	t = L.t_last - start;
	printf("{\"connections\":%" PRIu64
	       ",\"per_second\":%.1f,\"errors\":%" PRIu64
	       ",\"seconds\":%.3f,\"parallel\":%u",
	       L.done, t > 0 ? (double)L.done / t : 0.0, L.errors, t,
	       o->parallel);
	json_err(&L);
	puts("}");
	fflush(stdout);
	return L.errors || !L.done ? 1 : 0;
}

/**
 * write_ready_file() - atomically create the --ready-file
 * @path:	file name
 *
 * Return: true on success
 */
static bool write_ready_file(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return false;
	f = fopen(tmp, "w");
	if (!f || fputs("held\n", f) < 0 || fclose(f) != 0)
		return false;
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return false;
	}
	return true;
}

/**
 * run_hold() - open --count connections, hold them, release them
 * @o:	options
 *
 * Return: exit status
 */
static int run_hold(const struct opts *o)
{
	double start, t, t_held, t_end;
	uint64_t held;
	size_t i, next = 0;
	struct cli L;
	int rc;

	raise_nofile((rlim_t)o->count + 64);
	if (!cli_init(&L, o, o->count, OP_HOLD))
		return 1;
	start = now_s();
	/* opening phase: at most --parallel still opening at once */
	for (;;) {
		t = now_s();
		while (next < L.n_slots && L.active < o->parallel &&
		       !stop_flag && t - start < o->timeout_s)
			cli_start(&L, &L.c[next++], t);
		if (!L.active && (next == L.n_slots || stop_flag ||
				  t - start >= o->timeout_s))
			break;
		rc = cli_poll(&L, TICK_MS);
		if (rc) {
			fprintf(stderr, "swconn: epoll_wait: %s\n",
				strerror(-rc));
			return 1;
		}
		cli_timeouts(&L, now_s());
	}
	t_held = now_s();
	held = L.done - L.dropped;
	printf("{\"phase\":\"held\",\"count\":%u,\"established\":%" PRIu64
	       ",\"errors\":%" PRIu64 ",\"seconds\":%.3f,\"per_second\":%.1f",
	       o->count, held, L.errors, t_held - start,
	       t_held > start ? (double)held / (t_held - start) : 0.0);
	json_err(&L);
	puts("}");
	fflush(stdout);
	if (o->ready_file && !write_ready_file(o->ready_file))
		fprintf(stderr, "swconn: %s: %s\n", o->ready_file,
			strerror(errno));

	/* hold: anything that happens on a held connection is a drop */
	t_end = o->hold_s ? t_held + o->hold_s : 0;
	while (!stop_flag && (!t_end || now_s() < t_end)) {
		rc = cli_poll(&L, TICK_MS);
		if (rc) {
			fprintf(stderr, "swconn: epoll_wait: %s\n",
				strerror(-rc));
			return 1;
		}
	}
	t = now_s();
	held = 0;
	for (i = 0; i < L.n_slots; i++) {
		struct timespec tick = { .tv_nsec = RELEASE_TICK_NS };

		if (L.c[i].state != CS_HELD)
			continue;
		close(L.c[i].fd);
		L.c[i].fd = -1;
		L.c[i].state = CS_IDLE;
		if (++held % o->parallel == 0)
			nanosleep(&tick, NULL);
	}
	printf("{\"phase\":\"released\",\"count\":%u,\"established\":%" PRIu64
	       ",\"released\":%" PRIu64 ",\"errors\":%" PRIu64
	       ",\"dropped\":%" PRIu64 ",\"held_seconds\":%.3f"
	       ",\"release_seconds\":%.3f",
	       o->count, L.done, held, L.errors, L.dropped, t - t_held,
	       now_s() - t);
	json_err(&L);
	puts("}");
	fflush(stdout);
	return L.done == o->count && !L.errors ? 0 : 1;
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
	struct sigaction sa = { .sa_handler = on_signal };
	struct opts o;

	parse_args(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!strcmp(o.cmd, "server"))
		return run_server(&o);
	if (!strcmp(o.cmd, "client"))
		return run_client(&o);
	return run_hold(&o);
}
