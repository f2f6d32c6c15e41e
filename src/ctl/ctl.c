/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.c - the control socket (--ctl), the metrics endpoint (--metrics) and
 * the slirp4netns API socket (-a, --api-socket)
 *
 * DOC: Theory of Operation
 *
 * One thread, never a shard
 * -------------------------
 *
 * All three are served by a control thread of their own ("slipway-ctl"),
 * never by a shard: the listening sockets, the connections, a timer and an
 * eventfd are in the control thread's own epoll set, every socket is
 * non-blocking, and no shard ever waits for a client, for a request to be
 * parsed or for a reply to be built and sent. The thread is created after
 * the sandbox is entered and before the seccomp filter is installed (the
 * filter allows no clone: TSYNC gives it to this thread as to the shards;
 * every call it makes is named in a #syscalls line here); it names itself
 * before main() installs the filter, then waits on the start barrier with
 * the shards. At exit main() stops and joins it (ctl_stop()) before the
 * shards stop, and frees the server (ctl_fini()) after they stopped.
 *
 * Asking the shards
 * -----------------
 *
 * The thread touches nothing a shard owns, and sees the shards only
 * through shard/shard_api.h. What it needs from them it asks for through
 * two request slots of struct shard (shard_api.c asks, loop.c answers),
 * each a request number stored with release semantics after its
 * arguments, then the shard's mailbox eventfd kicked; the shard answers
 * at the end of a loop iteration with a release store of the number and a
 * kick of our eventfd (shard_group.ctl_fd), and we look at the answers
 * (acquire loads) after each round of our own events. We never block on a shard: a
 * request waits in its connection's state until the answer comes or the
 * connection's deadline passes.
 *
 * - flows: every shard, shard 0 included, copies its own table into our
 *   buffer (struct flow_snap): its core's flows, then, on shard 0, the
 *   spliced and -U connections (the services' snapshot hooks); the reply
 *   is built when all answered.
 *   Requests arriving meanwhile share the snapshot in progress.
 * - forwards add, remove, list: the forward API of fwd.h is shard 0's
 *   (its listener tables, its epoll set), so shard 0 runs a small job for
 *   us (struct shard_call, fwd_job_run()): the binds or closes, with the
 *   all-or-nothing roll-back of an add, and a copy of the port list. It
 *   builds no JSON and writes to no client; we build the reply from the
 *   job's plain results. One job at a time; other forwards requests wait
 *   their turn in their connections. The API socket's add_hostfwd,
 *   list_hostfwd and remove_hostfwd are such jobs too (one rule, an id,
 *   a list), in the same queue, taken in turn with the control socket's.
 * - stats, version, metrics: counters and histograms are single-writer
 *   words read with relaxed loads (ctr.h, hist.h), from any thread; we
 *   answer them at once. We are the single writer of the CTL_* and
 *   METRICS_* counters, kept in shard 0's array.
 *
 * Control socket
 * --------------
 *
 * A unix stream socket; one request per connection, a JSON
 * object ending in a newline (or at the client's end of stream), at most
 * CTL_REQ_MAX bytes; one JSON reply ending in a newline, then the server
 * closes. A longer request is answered with an error; what else the client
 * sends is read and dropped until it closes (so that it reads the answer
 * instead of a reset). At most CTL_CONNS connections at once, each closed
 * after CTL_TIMEOUT_MS; more are refused (closed at once).
 *
 * Without --ctl (or SLIPWAY_CTL, conf.c) the socket is at a default path
 * of its own, RUNDIR/PID.sock (inst_rundir()), in every mode: each
 * instance can be found by `slipway ls` and `top`. Its directory is made
 * 0700 if missing and opened without following a symbolic link, then
 * checked (ours, nobody else may write); anything wrong there, or a
 * socket that cannot be made, leaves the gateway running without one
 * (an info line says why). Only our user and root are served
 * (SO_PEERCRED, ctl_peer_ok()).
 *
 * API socket
 * ----------
 *
 * The slirp4netns API (s4n_api.c has the protocol: parsing, replies): a unix stream
 * socket; one JSON request per connection, answered as soon as it parses
 * or at the client's end of stream, with one reply sent at once, then the
 * server closes. A request over S4N_API_REQ_MAX bytes gets an error, then
 * what the client still sends is dropped until it closes, or closed after
 * DRAIN_MAX dropped bytes (an endless stream). Its clients have
 * no deadline and count in no CTL_* counter; of
 * S4N_API_CONNS connections at most, a new one closes the oldest.
 *
 * Metrics
 * -------
 *
 * HTTP/1.0 (and 1.1 clients, answered with 1.0 and closed):
 * GET /metrics gives the Prometheus text format, any other path 404, any
 * other method 405, a request head over HTTP_REQ_MAX bytes 431, a
 * malformed one 400. At most HTTP_CONNS connections, CTL_TIMEOUT_MS each.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "os/sys.h"
#include "ctl/ctl.h"
#include "ctl/ctl_proto.h"
#include "ctl/inst.h"
#include "ctl/s4n_api.h"
#include "edge/edge.h"
#include "svc/fwd.h"
#include "shard/shard_api.h"
#include "util/ctr.h"
#include "util/log.h"
#include "util/util.h"

#define CTL_CONNS 16
#define HTTP_CONNS 8
#define API_CONN0 (CTL_CONNS + HTTP_CONNS) /* the API socket's, after */
#define NCONNS (CTL_CONNS + HTTP_CONNS + S4N_API_CONNS)
#define CTL_TIMEOUT_MS 5000
#define HTTP_REQ_MAX 8192
#define DRAIN_MAX (1U << 20)
#define TICK_MS 250

/* epoll data in the control thread's set */
enum {
	CSRV_IDX_UNIX,
	CSRV_IDX_HTTP,
	CSRV_IDX_TIMER,
	CSRV_IDX_EVENT,
	CSRV_IDX_API,
	CSRV_IDX_CONN0
};

/**
 * enum conn_state - a connection's life
 * @CONN_FREE:	slot unused
 * @CONN_READ:	reading the request
 * @CONN_WAIT:	a flows request waits for the shards' snapshots
 * @CONN_CALL:	a forwards request waits for its turn or for shard 0's job
 * @CONN_WRITE:	writing the reply
 * @CONN_DRAIN:	reply written; dropping what the client still sends (an
 *		API client: its request was too large, the error is sent)
 */
enum conn_state {
	CONN_FREE,
	CONN_READ,
	CONN_WAIT,
	CONN_CALL,
	CONN_WRITE,
	CONN_DRAIN
};

/**
 * struct ctl_conn - one client
 * @fd:		socket
 * @http:	a metrics client (else a control one, or an API one)
 * @s4n:	a client of the slirp4netns API socket (s4n_api.h): no
 *		deadline, no CTL_* counters, its reply sent in one go
 * @state:	enum conn_state
 * @eof:	the client closed its side
 * @in:		request bytes (CTL_REQ_MAX or HTTP_REQ_MAX)
 * @in_len:	bytes in @in
 * @out:	reply (malloc'ed)
 * @out_len:	its length
 * @out_off:	bytes written
 * @drained:	bytes dropped in CONN_DRAIN or during CONN_WRITE
 * @deadline_ns: when the connection is closed, done or not
 * @limit:	flows request: at most this many records
 * @req:	forwards request waiting for its turn (malloc'ed), or NULL
 * @seq:	API client: accept order (the oldest goes when all are used)
 * @ga:		API client's add_hostfwd: its guest_addr text, for the
 *		error reply
 */
struct ctl_conn {
	int fd;
	bool http;
	enum conn_state state;
	bool eof;
	char *in;
	size_t in_len;
	char *out;
	size_t out_len;
	size_t out_off;
	size_t drained;
	uint64_t deadline_ns;
	unsigned limit;
	struct ctl_req *req;
	bool s4n;
	uint64_t seq;
	char ga[S4N_API_GA_MAX];
};

/**
 * struct fwd_job - a forwards request as shard 0 runs it (fwd_job_run())
 * @r:		the request (op, rules or id)
 * @ret:	add or remove: 0, or the -errno of the failure
 * @failed:	add: the rule that failed (the others were rolled back)
 * @ids:	add: the ids of the new ports
 * @list:	the published ports after the job (malloc'ed by shard 0,
 *		freed by us), or NULL without memory; not for a remove
 * @nlist:	entries in @list
 */
struct fwd_job {
	struct ctl_req r;
	int ret;
	unsigned failed;
	unsigned ids[CTL_FWD_RANGE_MAX];
	struct fwd_rule *list;
	unsigned nlist;
};

/**
 * struct ctl - the server
 * @sh:		shard 0 (opaque: reached through shard_api.h only)
 * @nshards:	shards in its group
 * @ctr:	shard 0's counters: we are the single writer of the CTL_*
 *		and METRICS_* ones
 * @conf:	configuration
 * @ufd:	control socket, or -1
 * @upath:	its path ("" without one)
 * @owner:	our effective user ID when we started (the socket file's
 *		owner): with root, the only peer the control socket answers
 * @udirfd:	its directory (O_PATH: the sandbox leaves a way to remove
 *		the socket file from there), or -1
 * @hfd:	metrics socket, or -1
 * @afd:	slirp4netns API socket, or -1
 * @adirfd:	its directory (O_PATH, as @udirfd), or -1
 * @apath:	its path
 * @aseq:	API connections accepted so far
 * @tfd:	timer for connection deadlines
 * @tick_armed:	@tfd runs
 * @start_ns:	when we started
 * @conn:	connections (control ones first)
 * @snapping:	a flow snapshot is in progress
 * @snap_seq:	its request number
 * @snap_buf:	per shard: its records
 * @epfd:	the control thread's epoll set
 * @evfd:	eventfd the shards kick when they answered (and ctl_stop())
 * @calling:	shard 0 runs @job
 * @call_seq:	its request number
 * @call_conn:	the connection waiting for @job, or -1 (it went away)
 * @call_rr:	where the search for the next forwards request starts
 * @job:	the forwards job shard 0 runs or ran last
 * @stop:	ctl_stop() asks the thread to end
 * @started:	the thread runs
 * @tid:	its id
 * @ready:	the thread named itself (with ctl_start())
 * @start:	the barrier it waits at until the seccomp filter is in
 * @spare_fd:	the thread's spare descriptor (fd_spare_refuse()), or -1
 * @resume_ns:	out of fds: when the listeners are armed again (0: none
 *		is paused)
 * @id:		who we are (the version reply)
 * @pid:	our process ID
 * @started_unix: when we started, seconds since the epoch
 */
struct ctl {
	struct shard *sh;
	unsigned nshards;
	uint64_t *ctr;
	const struct conf *conf;
	int ufd;
	char upath[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uid_t owner;
	int udirfd;
	int hfd;
	int afd;
	int adirfd;
	const char *apath;
	uint64_t aseq;
	int tfd;
	bool tick_armed;
	uint64_t start_ns;
	struct ctl_conn conn[NCONNS];
	bool snapping;
	unsigned snap_seq;
	struct flow_rec *snap_buf[SHARDS_MAX];
	int epfd;
	int evfd;
	bool calling;
	unsigned call_seq;
	int call_conn;
	unsigned call_rr;
	struct fwd_job job;
	_Atomic bool stop;
	bool started;
	pthread_t tid;
	pthread_barrier_t ready;
	pthread_barrier_t *start;
	int spare_fd;
	uint64_t resume_ns;
	struct ctl_ident id;
	int pid;
	int64_t started_unix;
};

/**
 * ctr0() - count an event in shard 0's counters (the CTL_* and METRICS_*
 * ones: the control thread is their only writer)
 * @c:		server
 * @id:		counter
 */
static void ctr0(struct ctl *c, enum ctr_id id)
{
	ctr_add(&c->ctr[id], 1);
}

/**
 * ctl_ep_mod() - what a connection waits for
 * @c:		server
 * @i:		connection index
 * @events:	epoll events
 *
 * #syscalls epoll_ctl
 */
static void ctl_ep_mod(struct ctl *c, unsigned i, uint32_t events)
{
	struct epoll_event ev = {
		.events = events,
		.data.u64 = CSRV_IDX_CONN0 + i,
	};

	if (epoll_ctl(c->epfd, EPOLL_CTL_MOD, c->conn[i].fd, &ev))
		warn_perror("control connection: epoll_ctl");
}

/**
 * ctl_ep_add() - add an fd to the control thread's epoll set
 * @c:		server
 * @fd:		file descriptor (EPOLLIN)
 * @idx:	its CSRV_IDX_*
 *
 * #syscalls epoll_ctl
 * Return: 0, or -1 (logged)
 */
static int ctl_ep_add(struct ctl *c, int fd, uint64_t idx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = idx };

	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err_perror("control thread: epoll_ctl add fd %d", fd);
		return -1;
	}
	return 0;
}

/**
 * ctl_tick() - run the deadline timer while connections are open
 * @c:		server
 * @on:		run it or stop it
 *
 * #syscalls timerfd_settime
 */
static void ctl_tick(struct ctl *c, bool on)
{
	struct itimerspec its = { 0 };

	if (on == c->tick_armed)
		return;
	if (on) {
		its.it_value.tv_nsec = TICK_MS * 1000000L;
		its.it_interval.tv_nsec = TICK_MS * 1000000L;
	}
	if (timerfd_settime(c->tfd, 0, &its, NULL))
		warn_perror("control timer");
	c->tick_armed = on;
}

/**
 * conn_close() - close a connection and free its slot
 * @c:		server
 * @i:		connection index
 *
 * #syscalls close
 */
static void conn_close(struct ctl *c, unsigned i)
{
	struct ctl_conn *k = &c->conn[i];
	unsigned j;

	close(k->fd);
	free(k->in);
	free(k->out);
	free(k->req);
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	if (c->call_conn == (int)i)
		c->call_conn = -1; /* the job goes on, unanswered */
	/* the timer is for deadlines: API clients have none */
	for (j = 0; j < NCONNS; j++)
		if (c->conn[j].state != CONN_FREE && !c->conn[j].s4n)
			return;
	ctl_tick(c, false);
}

/**
 * conn_reply() - start writing a reply
 * @c:		server
 * @i:		connection index
 * @out:	reply (malloc'ed, taken over), or NULL without memory
 * @len:	its length
 */
static void conn_reply(struct ctl *c, unsigned i, char *out, size_t len)
{
	struct ctl_conn *k = &c->conn[i];

	if (!out) {
		static const char oom[] = "{\"error\":\"out of memory\"}\n";

		out = strdup(oom);
		len = out ? sizeof(oom) - 1 : 0;
	}
	free(k->out);
	k->out = out;
	k->out_len = len;
	k->out_off = 0;
	k->state = CONN_WRITE;
	ctl_ep_mod(c, i, EPOLLOUT | (k->eof ? 0 : EPOLLIN));
}

/**
 * conn_error() - answer a control request with {"error": MSG}
 * @c:		server
 * @i:		connection index
 * @msg:	message
 */
static void conn_error(struct ctl *c, unsigned i, const char *msg)
{
	size_t len = 0;
	char *out = ctl_dump(ctl_reply_error(msg), &len);

	ctr0(c, CTR_CTL_REQUESTS);
	ctr0(c, CTR_CTL_ERRORS);
	conn_reply(c, i, out, len);
}

/**
 * stats_src() - where the counters and histograms are
 * @c:		server
 * @s:		to fill
 */
static void stats_src(const struct ctl *c, struct ctl_stats_src *s)
{
	unsigned k;

	memset(s, 0, sizeof(*s));
	s->version = SLIPWAY_VERSION;
	s->edge = shard_api_edge_name(c->sh);
	s->nshards = c->nshards;
	s->peek_off = shard_api_peek_off(c->sh);
	s->max_flows = c->conf->max_flows;
	s->uptime_ms = (now_mono_ns() - c->start_ns) / 1000000;
	s->pid = c->pid;
	s->mode = c->id.mode;
	s->guest = c->id.guest;
	s->name = c->id.name;
	s->started_unix = c->started_unix;
	for (k = 0; k < c->nshards; k++) {
		s->ctr[k] = shard_api_ctr(c->sh, k);
		s->hist[k] = shard_api_hist(c->sh, k);
		s->queue[k] = shard_api_queue(c->sh, k);
	}
}

/**
 * snap_finish() - every shard answered: reply to each waiting request
 * @c:		server
 */
static void snap_finish(struct ctl *c)
{
	uint32_t got[SHARDS_MAX], had[SHARDS_MAX];
	size_t n = 0, total = 0, cap = 0;
	struct flow_rec *all;
	unsigned i, k;

	for (k = 0; k < c->nshards; k++) {
		got[k] = shard_api_snap_result(c->sh, k, &had[k]);
		cap += got[k];
	}
	all = malloc((cap ? cap : 1) * sizeof(*all));
	if (all) {
		for (k = 0; k < c->nshards; k++) {
			memcpy(all + n, c->snap_buf[k], got[k] * sizeof(*all));
			n += got[k];
			total += had[k];
		}
	}
	for (i = 0; i < NCONNS; i++) {
		struct ctl_conn *kc = &c->conn[i];
		size_t len = 0;
		char *out;

		if (kc->state != CONN_WAIT)
			continue;
		ctr0(c, CTR_CTL_REQUESTS);
		if (!all) {
			conn_reply(c, i, NULL, 0);
			continue;
		}
		out = ctl_reply_flows(all, MIN(n, kc->limit), total, &len);
		conn_reply(c, i, out, len);
	}
	free(all);
	for (k = 0; k < c->nshards; k++) {
		free(c->snap_buf[k]);
		c->snap_buf[k] = NULL;
	}
	c->snapping = false;
}

/**
 * ctl_poll() - after a round of the control thread's events: did every
 * shard answer the flow snapshot?
 * @c:		server
 */
static void ctl_poll(struct ctl *c)
{
	unsigned k;

	if (!c->snapping)
		return;
	for (k = 0; k < c->nshards; k++)
		if (!shard_api_snap_done(c->sh, k, c->snap_seq))
			return;
	snap_finish(c);
}

/**
 * snap_start() - ask every shard for its flow table
 * @c:		server
 *
 * Return: 0, or -ENOMEM
 */
static int snap_start(struct ctl *c)
{
	uint32_t cap[SHARDS_MAX];
	unsigned k;

	if (c->snapping)
		return 0; /* join the one in progress */
	for (k = 0; k < c->nshards; k++) {
		cap[k] = shard_api_flow_cap(c->sh, k);
		c->snap_buf[k] = malloc((size_t)cap[k] *
					sizeof(struct flow_rec));
		if (!c->snap_buf[k]) {
			while (k--) {
				free(c->snap_buf[k]);
				c->snap_buf[k] = NULL;
			}
			return -ENOMEM;
		}
	}
	c->snap_seq++;
	c->snapping = true;
	for (k = 0; k < c->nshards; k++)
		shard_api_snap_ask(c->sh, k, c->snap_buf[k], cap[k],
				   c->snap_seq);
	return 0;
}

/**
 * fwd_err_str() - what a fwd_add() failure means
 * @ret:	-errno
 *
 * Return: message
 */
static const char *fwd_err_str(int ret)
{
	switch (ret) {
	case -EINVAL:
		return "the guest address is not one of the guest's network";
	case -EAFNOSUPPORT:
		return "an IPv6 guest address, but IPv6 is off";
	case -EADDRINUSE:
		return "the host port is in use (by slipway or another "
		       "program)";
	case -EACCES:
		return "ports below 1024 need root or "
		       "net.ipv4.ip_unprivileged_port_start";
	case -EADDRNOTAVAIL:
		return "no such host address";
	default:
		return strerror(-ret);
	}
}

/**
 * fwd_job_run() - a forwards request, on shard 0's thread (struct
 * shard_call): the forward API of fwd.h, and a copy of the port list
 * @sh:		shard 0
 * @arg:	struct fwd_job (ours, untouched by us until shard 0 answers)
 *
 * An add of several ports publishes all of them or none. No JSON, no
 * client I/O: the control thread builds the reply.
 */
static void fwd_job_run(struct shard *sh, void *arg)
{
	struct fwd_job *j = arg;
	unsigned k, n;

	j->ret = 0;
	j->list = NULL;
	j->nlist = 0;
	if (j->r.op == CTL_FWD_REMOVE) {
		j->ret = fwd_remove(sh, j->r.id);
		return;
	}
	if (j->r.op == CTL_FWD_ADD) {
		for (k = 0; k < j->r.nrules; k++) {
			int ret = fwd_add(sh, &j->r.rules[k]);

			if (ret < 0) {
				j->ret = ret;
				j->failed = k;
				while (k--)
					fwd_remove(sh, j->ids[k]);
				return;
			}
			j->ids[k] = (unsigned)ret;
		}
	}
	n = fwd_list(sh, NULL, 0);
	j->list = calloc(n ? n : 1, sizeof(*j->list));
	if (j->list)
		j->nlist = MIN(n, fwd_list(sh, j->list, n));
}

/**
 * s4n_send_close() - send an API client its reply, in one go, and close
 * @c:		server
 * @i:		connection index
 * @reply:	NUL-terminated reply, or NULL (out of memory: just close)
 *
 * #syscalls sendto close
 */
static void s4n_send_close(struct ctl *c, unsigned i, const char *reply)
{
	struct ctl_conn *k = &c->conn[i];

	if (reply) {
		size_t n = strlen(reply);

		if (send(k->fd, reply, n, MSG_NOSIGNAL | MSG_DONTWAIT) !=
		    (ssize_t)n)
			debug("API: reply of %zu bytes not sent whole", n);
	}
	conn_close(c, i);
}

/**
 * call_reply() - shard 0 ran a connection's forwards job: answer it
 * @c:		server
 * @i:		connection index
 */
static void call_reply(struct ctl *c, unsigned i)
{
	const struct fwd_job *j = &c->job;
	char msg[256], rs[160];
	json_t *added, *out_j;
	unsigned k, x;
	size_t len = 0;
	char *out;

	if (c->conn[i].s4n) {
		/* fwd_add()'s id or -errno; fwd_remove()'s 0 or -errno */
		out = s4n_reply(&j->r, c->conn[i].ga,
				j->r.op == CTL_FWD_ADD && !j->ret ?
					(int)j->ids[0] :
					j->ret,
				j->list, j->nlist, c->conf);
		s4n_send_close(c, i, out);
		free(out);
		return;
	}
	if (j->r.op == CTL_FWD_REMOVE) {
		if (j->ret) {
			snprintf(msg, sizeof(msg),
				 "forwards remove: no published port has id %u",
				 j->r.id);
			conn_error(c, i, msg);
			return;
		}
		out_j = json_pack("{s:i}", "removed", (int)j->r.id);
	} else if (j->r.op == CTL_FWD_ADD && j->ret < 0) {
		snprintf(msg, sizeof(msg),
			 "forwards add: cannot publish %s: %s",
			 fwd_rule_str(&j->r.rules[j->failed], rs, sizeof(rs)),
			 fwd_err_str(j->ret));
		conn_error(c, i, msg);
		return;
	} else if (!j->list) {
		out_j = NULL;
	} else if (j->r.op == CTL_FWD_LIST) {
		out_j = ctl_reply_forwards(j->list, j->nlist, c->conf);
	} else {
		added = json_array();
		if (added)
			for (k = 0; k < j->r.nrules; k++)
				for (x = 0; x < j->nlist; x++)
					if (j->list[x].id == j->ids[k])
						json_array_append_new(
							added,
							ctl_fwd_json(
								&j->list[x]));
		out_j = added ? json_pack("{s:o}", "added", added) : NULL;
	}
	ctr0(c, CTR_CTL_REQUESTS);
	out = ctl_dump(out_j, &len);
	conn_reply(c, i, out, len);
}

/**
 * call_next() - if shard 0 is free, hand it the next waiting forwards
 * request
 * @c:		server
 */
static void call_next(struct ctl *c)
{
	unsigned n, i;

	if (c->calling)
		return;
	/* control and API clients, in turn */
	for (n = 0; n < NCONNS; n++) {
		i = (c->call_rr + n) % NCONNS;
		if (c->conn[i].state == CONN_CALL && c->conn[i].req)
			break;
	}
	if (n == NCONNS)
		return;
	c->call_rr = i + 1;
	c->job.r = *c->conn[i].req;
	free(c->conn[i].req);
	c->conn[i].req = NULL;
	c->call_conn = (int)i;
	c->calling = true;
	shard_api_call_ask(c->sh, fwd_job_run, &c->job, ++c->call_seq);
}

/**
 * call_poll() - after a round of the control thread's events: did shard 0
 * run the job? Then answer it and hand over the next one.
 * @c:		server
 */
static void call_poll(struct ctl *c)
{
	if (!c->calling)
		return;
	/* what the job wrote is visible once it says so */
	if (!shard_api_call_done(c->sh, c->call_seq))
		return;
	c->calling = false;
	if (c->call_conn >= 0)
		call_reply(c, (unsigned)c->call_conn);
	c->call_conn = -1;
	free(c->job.list);
	c->job.list = NULL;
	call_next(c);
}

/**
 * ctl_request() - a whole control request arrived: answer it
 * @c:		server
 * @i:		connection index
 * @len:	request bytes in the connection's buffer
 */
static void ctl_request(struct ctl *c, unsigned i, size_t len)
{
	struct ctl_conn *k = &c->conn[i];
	struct ctl_stats_src s;
	struct ctl_req r;
	char why[256];
	json_t *j = NULL;
	size_t olen = 0;
	char *out;

	if (ctl_req_parse(k->in, len, &r, why, sizeof(why))) {
		conn_error(c, i, why);
		return;
	}
	stats_src(c, &s);
	switch (r.cmd) {
	case CTL_CMD_STATS:
		j = ctl_reply_stats(&s);
		break;
	case CTL_CMD_VERSION:
		j = ctl_reply_version(&s);
		break;
	case CTL_CMD_FORWARDS:
		/* shard 0's business: wait for its turn and shard 0 */
		k->req = malloc(sizeof(*k->req));
		if (!k->req) {
			conn_error(c, i, "out of memory");
			return;
		}
		*k->req = r;
		k->state = CONN_CALL;
		ctl_ep_mod(c, i, k->eof ? 0 : EPOLLIN);
		call_next(c);
		return;
	case CTL_CMD_FLOWS:
		k->limit = r.limit;
		k->state = CONN_WAIT;
		if (snap_start(c)) {
			conn_error(c, i, "out of memory");
			return;
		}
		ctl_ep_mod(c, i, k->eof ? 0 : EPOLLIN);
		return;
	default:
		ASSERT(0);
	}
	ctr0(c, CTR_CTL_REQUESTS);
	out = ctl_dump(j, &olen);
	conn_reply(c, i, out, olen);
}

/**
 * http_reply() - answer a metrics client
 * @c:		server
 * @i:		connection index
 * @status:	HTTP status line after "HTTP/1.0 ", e.g. "200 OK"
 * @body:	body (malloc'ed, taken over), or NULL for the status text
 * @blen:	its length
 * @head:	answer a HEAD request: no body
 */
static void http_reply(struct ctl *c, unsigned i, const char *status,
		       char *body, size_t blen, bool head)
{
	char *out;
	int n;

	ctr0(c, CTR_METRICS_REQUESTS);
	if (strncmp(status, "200", 3))
		ctr0(c, CTR_METRICS_ERRORS);
	if (!body) {
		n = asprintf(&body, "%s\n", status);
		blen = n > 0 ? (size_t)n : 0;
		if (n < 0)
			body = NULL;
	}
	n = asprintf(&out,
		     "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: "
		     "%zu\r\nConnection: close\r\n\r\n%.*s",
		     status,
		     strncmp(status, "200", 3) ?
			     "text/plain; charset=utf-8" :
			     "text/plain; version=0.0.4; charset=utf-8",
		     blen, head ? 0 : (int)blen, body ? body : "");
	free(body);
	conn_reply(c, i, n < 0 ? NULL : out, n < 0 ? 0 : (size_t)n);
}

/**
 * http_request() - a request head arrived (or the client stopped sending)
 * @c:		server
 * @i:		connection index
 */
static void http_request(struct ctl *c, unsigned i)
{
	struct ctl_conn *k = &c->conn[i];
	char *sp1, *sp2, *eol, *path;
	struct ctl_stats_src s;
	size_t blen = 0;
	bool head;

	k->in[k->in_len] = '\0';
	eol = strpbrk(k->in, "\r\n");
	if (!eol || memchr(k->in, '\0', k->in_len)) {
		http_reply(c, i, "400 Bad Request", NULL, 0, false);
		return;
	}
	*eol = '\0';
	sp1 = strchr(k->in, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7)) {
		http_reply(c, i, "400 Bad Request", NULL, 0, false);
		return;
	}
	*sp1 = *sp2 = '\0';
	path = sp1 + 1;
	head = !strcmp(k->in, "HEAD");
	if (strcmp(k->in, "GET") && !head) {
		http_reply(c, i, "405 Method Not Allowed", NULL, 0, false);
		return;
	}
	if (strcmp(path, "/metrics") && strncmp(path, "/metrics?", 9)) {
		http_reply(c, i, "404 Not Found", NULL, 0, head);
		return;
	}
	stats_src(c, &s);
	{
		char *body = metrics_text(&s, &blen);

		if (!body)
			http_reply(c, i, "500 Internal Server Error", NULL, 0,
				   head);
		else
			http_reply(c, i, "200 OK", body, blen, head);
	}
}

/**
 * s4n_readable() - read an API client's request; parse it when complete,
 * answer it at once or hand it to shard 0's queue
 * @c:		server
 * @i:		connection index (CONN_READ, or CONN_DRAIN after a request
 *		that was too large)
 *
 * #syscalls recvfrom sendto shutdown
 */
static void s4n_readable(struct ctl *c, unsigned i)
{
	struct ctl_conn *k = &c->conn[i];
	struct ctl_req r;
	bool eof = false;
	json_t *probe;
	char *reply;

	for (;;) {
		ssize_t n = recv(k->fd, k->in + k->in_len,
				 S4N_API_REQ_MAX + 1 - k->in_len, 0);

		if (n == 0) {
			eof = true;
			break;
		}
		if (n > 0 && k->state == CONN_DRAIN) {
			/* an endless stream is not read forever: past
			 * DRAIN_MAX the connection closes, as slirp4netns
			 * closes at once (the error is already queued) */
			k->in_len = 0;
			k->drained += (size_t)n;
			if (k->drained > DRAIN_MAX) {
				conn_close(c, i);
				return;
			}
			continue;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			conn_close(c, i);
			return;
		}
		k->in_len += (size_t)n;
		if (k->in_len > S4N_API_REQ_MAX) {
			/* the error now, then drop the rest until the client's
			 * end, so that closing does not reset the connection
			 * before it reads the reply */
			reply = s4n_reply_too_large();
			if (reply && send(k->fd, reply, strlen(reply),
					  MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				debug("API: error reply not sent");
			free(reply);
			shutdown(k->fd, SHUT_WR);
			k->state = CONN_DRAIN;
			k->in_len = 0;
		}
	}
	if (k->state == CONN_DRAIN) {
		if (eof)
			conn_close(c, i);
		return;
	}
	if (!eof) {
		/* answer a complete request without waiting for EOF */
		probe = json_loadb(k->in, k->in_len, 0, NULL);
		if (!probe)
			return;
		json_decref(probe);
	}
	k->eof = eof;
	if (s4n_req_parse(k->in, k->in_len, &r, k->ga, sizeof(k->ga), &reply)) {
		s4n_send_close(c, i, reply);
		free(reply);
		return;
	}
	/* shard 0's business: wait for its turn and shard 0 */
	k->req = malloc(sizeof(*k->req));
	if (!k->req) {
		conn_close(c, i);
		return;
	}
	*k->req = r;
	k->state = CONN_CALL;
	ctl_ep_mod(c, i, eof ? 0 : EPOLLIN);
	call_next(c);
}

/**
 * conn_readable() - read what a client sent
 * @c:		server
 * @i:		connection index
 * @events:	epoll events
 *
 * #syscalls read
 */
static void conn_readable(struct ctl *c, unsigned i, uint32_t events)
{
	struct ctl_conn *k = &c->conn[i];
	size_t cap = k->http ? HTTP_REQ_MAX : CTL_REQ_MAX;
	char drop[4096];
	ssize_t n;

	if (k->s4n && k->state != CONN_CALL) {
		s4n_readable(c, i);
		return;
	}
	if (k->state != CONN_READ) {
		/* a client gone both ways while we wait cannot be masked
		 * out of epoll (EPOLLHUP): nobody to answer */
		if ((events & (EPOLLHUP | EPOLLERR)) &&
		    (k->state == CONN_WAIT || k->state == CONN_CALL)) {
			conn_close(c, i);
			return;
		}
		/* not listening any more: drop it, note the end */
		n = read(k->fd, drop, sizeof(drop));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			k->eof = true;
			if (k->state == CONN_DRAIN) {
				conn_close(c, i);
				return;
			}
			ctl_ep_mod(c, i, k->state == CONN_WRITE ? EPOLLOUT : 0);
		} else if (n > 0) {
			k->drained += (size_t)n;
			if (k->drained > DRAIN_MAX)
				conn_close(c, i);
		}
		return;
	}
	n = read(k->fd, k->in + k->in_len, cap - k->in_len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		conn_close(c, i);
		return;
	}
	if (!n) {
		k->eof = true;
		if (!k->in_len) {
			conn_close(c, i);
			return;
		}
		if (k->http)
			http_request(c, i);
		else
			ctl_request(c, i, k->in_len);
		return;
	}
	k->in_len += (size_t)n;
	if (k->http) {
		k->in[k->in_len] = '\0';
		if (memmem(k->in, k->in_len, "\r\n\r\n", 4) ||
		    memmem(k->in, k->in_len, "\n\n", 2))
			http_request(c, i);
		else if (k->in_len == cap)
			http_reply(c, i, "431 Request Header Fields Too Large",
				   NULL, 0, false);
		return;
	}
	{
		char *nl = memchr(k->in + k->in_len - (size_t)n, '\n',
				  (size_t)n);

		if (nl)
			ctl_request(c, i, (size_t)(nl - k->in));
		else if (k->in_len == cap)
			conn_error(c, i,
				   "request too large (at most 65536 bytes, "
				   "one line)");
	}
}

/**
 * conn_writable() - write more of the reply
 * @c:		server
 * @i:		connection index
 *
 * #syscalls sendto shutdown
 */
static void conn_writable(struct ctl *c, unsigned i)
{
	struct ctl_conn *k = &c->conn[i];
	ssize_t n;

	if (k->state != CONN_WRITE)
		return;
	n = send(k->fd, k->out + k->out_off, k->out_len - k->out_off,
		 MSG_NOSIGNAL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c, i);
		return;
	}
	k->out_off += (size_t)n;
	if (k->out_off < k->out_len)
		return;
	/* all written: a client that still sends gets its end of stream
	 * and the rest of its bytes read, not a reset */
	shutdown(k->fd, SHUT_WR);
	if (k->eof) {
		conn_close(c, i);
		return;
	}
	k->state = CONN_DRAIN;
	ctl_ep_mod(c, i, EPOLLIN);
}

/**
 * ctl_accept_failed() - accept() failed on a listener: refuse the clients
 * waiting if it is for want of descriptors, and pause it
 * @c:		server
 * @fd:		the listener
 * @idx:	its CSRV_IDX_*
 * @what:	its name, for the (rate-limited) message
 *
 * The listener stays readable while clients wait: without the pause the
 * thread would spin on it. ctl_resume() arms it again after
 * LISTEN_PAUSE_MS. Counted in CTL_ACCEPT_NOFD.
 *
 * #syscalls epoll_ctl
 */
static void ctl_accept_failed(struct ctl *c, int fd, uint64_t idx,
			      const char *what)
{
	struct epoll_event ev = { .events = 0, .data.u64 = idx };
	unsigned n = 0;
	int e = errno;

	if (e == EMFILE || e == ENFILE)
		while (n < CTL_CONNS &&
		       fd_spare_refuse(&c->spare_fd, c->tfd, fd, true) > 0)
			n++;
	ctr_add(&c->ctr[CTR_CTL_ACCEPT_NOFD], n);
	if (epoll_ctl(c->epfd, EPOLL_CTL_MOD, fd, &ev))
		warn_perror_rl("control thread: cannot pause a listener");
	if (!c->resume_ns)
		c->resume_ns = now_mono_ns() + LISTEN_PAUSE_MS * 1000000ULL;
	errno = e;
	warn_perror_rl(
		"%s accept: %u client(s) refused, accepting again in %u ms",
		what, n, LISTEN_PAUSE_MS);
}

/**
 * ctl_resume() - arm the listeners again after a pause (ctl_accept_failed())
 * @c:		server
 *
 * #syscalls epoll_ctl
 */
static void ctl_resume(struct ctl *c)
{
	const int fds[] = { c->ufd, c->hfd, c->afd };
	const uint64_t idx[] = { CSRV_IDX_UNIX, CSRV_IDX_HTTP, CSRV_IDX_API };
	unsigned i;

	c->resume_ns = 0;
	if (c->spare_fd < 0)
		c->spare_fd = fd_spare_make(c->tfd);
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u64 = idx[i] };

		if (fds[i] >= 0 &&
		    epoll_ctl(c->epfd, EPOLL_CTL_MOD, fds[i], &ev))
			warn_perror_rl(
				"control thread: cannot arm a listener again");
	}
}

/**
 * ctl_peer_ok() - may this control client talk to us? Only our own user
 * (the socket file's owner) and root may
 * @c:		server
 * @fd:		the accepted control connection
 *
 * The file's mode 0600 keeps others out already; this also holds when
 * the file is reached some other way (a directory made looser, a copy of
 * the descriptor). Under the sandbox's user namespace, which maps only
 * our user, root outside is seen as the overflow user, and refused too.
 * A refusal is counted in CTL_REFUSED and logged (rate-limited).
 *
 * #syscalls getsockopt
 * Return: true to serve it
 */
static bool ctl_peer_ok(struct ctl *c, int fd)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len)) {
		LOG_RL(LOG_WARN, true,
		       "control client refused: no credentials");
		return false;
	}
	if (uc.uid == c->owner || uc.uid == 0)
		return true;
	LOG_RL(LOG_WARN, false,
	       "control client refused: PID %d runs as user %u, only user %u "
	       "and root may use the control socket",
	       (int)uc.pid, (unsigned)uc.uid, (unsigned)c->owner);
	return false;
}

/**
 * ctl_accept() - take new clients, refusing those past the cap, and
 * control clients of another user (ctl_peer_ok())
 * @c:		server
 * @http:	the metrics socket (else the control one)
 *
 * #syscalls accept4 close write sendto epoll_ctl
 */
static void ctl_accept(struct ctl *c, bool http)
{
	unsigned from = http ? CTL_CONNS : 0,
		 to = from + (http ? HTTP_CONNS : CTL_CONNS);

	for (;;) {
		int fd = accept4(http ? c->hfd : c->ufd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ctl_conn *k;
		unsigned i;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				ctl_accept_failed(c, http ? c->hfd : c->ufd,
						  http ? CSRV_IDX_HTTP :
							 CSRV_IDX_UNIX,
						  http ? "metrics" : "control");
			return;
		}
		if (!http && !ctl_peer_ok(c, fd)) {
			close(fd);
			ctr0(c, CTR_CTL_REFUSED);
			continue;
		}
		for (i = from; i < to; i++)
			if (c->conn[i].state == CONN_FREE)
				break;
		if (i == to) {
			static const char busy_http[] =
				"HTTP/1.0 503 Service "
				"Unavailable\r\nContent-Length: "
				"0\r\nConnection: close\r\n\r\n";
			static const char busy_ctl[] =
				"{\"error\":\"too many control "
				"connections\"}\n";

			if (send(fd, http ? busy_http : busy_ctl,
				 http ? sizeof(busy_http) - 1 :
					sizeof(busy_ctl) - 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				debug("refused control client: %s",
				      strerror(errno));
			close(fd);
			ctr0(c, CTR_CTL_REFUSED);
			continue;
		}
		k = &c->conn[i];
		memset(k, 0, sizeof(*k));
		k->fd = fd;
		k->http = http;
		k->in = malloc((http ? HTTP_REQ_MAX : CTL_REQ_MAX) + 1);
		if (!k->in) {
			close(fd);
			k->fd = -1;
			continue;
		}
		k->state = CONN_READ;
		k->deadline_ns = now_mono_ns() + CTL_TIMEOUT_MS * 1000000ULL;
		if (ctl_ep_add(c, fd, CSRV_IDX_CONN0 + i)) {
			free(k->in);
			close(fd);
			memset(k, 0, sizeof(*k));
			k->fd = -1;
			continue;
		}
		ctl_tick(c, true);
	}
}

/**
 * s4n_accept() - take new API clients; with all slots used, a new one
 * closes the oldest
 * @c:		server
 *
 * #syscalls accept4 close epoll_ctl
 */
static void s4n_accept(struct ctl *c)
{
	int fd;

	while ((fd = accept4(c->afd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct ctl_conn *k = NULL;
		unsigned i;

		for (i = API_CONN0; i < NCONNS; i++) {
			struct ctl_conn *x = &c->conn[i];

			if (x->state == CONN_FREE) {
				k = x;
				break;
			}
			if (!k || x->seq < k->seq)
				k = x;
		}
		i = (unsigned)(k - c->conn);
		if (k->state != CONN_FREE) {
			debug("API: %d connections open, closing the oldest",
			      S4N_API_CONNS);
			conn_close(c, i);
		}
		memset(k, 0, sizeof(*k));
		k->fd = fd;
		k->s4n = true;
		k->in = malloc(S4N_API_REQ_MAX + 1);
		k->seq = ++c->aseq;
		k->deadline_ns = UINT64_MAX;
		if (!k->in || ctl_ep_add(c, fd, CSRV_IDX_CONN0 + i)) {
			free(k->in);
			close(fd);
			memset(k, 0, sizeof(*k));
			k->fd = -1;
			continue;
		}
		k->state = CONN_READ;
	}
	if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
		ctl_accept_failed(c, c->afd, CSRV_IDX_API, "API");
}

/**
 * ctl_timer() - close connections past their deadline
 * @c:		server
 *
 * #syscalls read sendto
 */
static void ctl_timer(struct ctl *c)
{
	uint64_t exp, now = now_mono_ns();
	unsigned i;

	if (read(c->tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		warn_perror("control timer read");
	for (i = 0; i < NCONNS; i++) {
		struct ctl_conn *k = &c->conn[i];

		if (k->state == CONN_FREE || now < k->deadline_ns)
			continue;
		if (k->state == CONN_WAIT || k->state == CONN_CALL) {
			static const char late_flows[] =
				"{\"error\":\"timed out waiting for the "
				"shards' flow tables\"}\n";
			static const char late_fwd[] =
				"{\"error\":\"timed out waiting for shard 0 to "
				"change the published ports\"}\n";
			bool fl = k->state == CONN_WAIT;

			if (send(k->fd, fl ? late_flows : late_fwd,
				 fl ? sizeof(late_flows) - 1 :
				      sizeof(late_fwd) - 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				debug("control client gone: %s",
				      strerror(errno));
		}
		if (k->state != CONN_DRAIN)
			ctr0(c, CTR_CTL_TIMEOUTS);
		conn_close(c, i);
	}
}

/**
 * ctl_event() - an event of the control thread's epoll set
 * @c:		server
 * @idx:	its data (CSRV_IDX_*)
 * @events:	epoll events
 *
 * #syscalls read
 */
static void ctl_event(struct ctl *c, uint64_t idx, uint32_t events)
{
	uint64_t cnt;
	unsigned i;

	switch (idx) {
	case CSRV_IDX_UNIX:
		ctl_accept(c, false);
		return;
	case CSRV_IDX_HTTP:
		ctl_accept(c, true);
		return;
	case CSRV_IDX_API:
		s4n_accept(c);
		return;
	case CSRV_IDX_TIMER:
		ctl_timer(c);
		return;
	case CSRV_IDX_EVENT:
		/* a shard answered (looked at after this round), or stop */
		if (read(c->evfd, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
			warn_perror("control thread: eventfd read");
		return;
	}
	i = (unsigned)(idx - CSRV_IDX_CONN0);
	if (i >= NCONNS || c->conn[i].state == CONN_FREE)
		return;
	if (events & EPOLLOUT)
		conn_writable(c, i);
	if (c->conn[i].state != CONN_FREE &&
	    (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		conn_readable(c, i, events);
}

/**
 * ctl_thread() - the control thread: its own epoll loop, until ctl_stop()
 * @arg:	server
 *
 * It names itself ("slipway-ctl", for ps and /proc/PID/task/TID/comm)
 * while ctl_start() waits, that is before the seccomp filter exists, then
 * waits with the shards until main() installed it.
 *
 * #syscalls epoll_wait futex
 * #syscalls:setup prctl
 * Return: NULL
 */
static void *ctl_thread(void *arg)
{
	struct ctl *c = arg;
	struct epoll_event ev[32];

	pthread_setname_np(pthread_self(), "slipway-ctl");
	pthread_barrier_wait(&c->ready);
	pthread_barrier_wait(c->start);
	while (!atomic_load_explicit(&c->stop, memory_order_acquire)) {
		uint64_t now = c->resume_ns ? now_mono_ns() : 0;
		int n, i;

		n = epoll_wait(
			c->epfd, ev, ARRAY_SIZE(ev),
			!c->resume_ns ?
				-1 :
			c->resume_ns <= now ?
				0 :
				(int)((c->resume_ns - now + 999999) / 1000000));
		if (c->resume_ns && now_mono_ns() >= c->resume_ns)
			ctl_resume(c);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_perror("control thread: epoll_wait");
			break;
		}
		for (i = 0; i < n; i++)
			ctl_event(c, ev[i].data.u64, ev[i].events);
		ctl_poll(c);
		call_poll(c);
	}
	return NULL;
}

/**
 * http_listen() - the metrics listening socket
 * @ss:		address
 *
 * #syscalls socket setsockopt bind listen close
 * Return: socket, or -1 (logged)
 */
static int http_listen(const struct sockaddr_storage *ss)
{
	socklen_t sl = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						   sizeof(struct sockaddr_in);
	int fd = socket(ss->ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;

	if (fd < 0) {
		err_perror("--metrics: socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, sl) || listen(fd, 16)) {
		err_perror("--metrics: cannot listen (port in use?)");
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * ctl_evfd_init() - the eventfd the shards kick when they answered (once
 * there is something to serve)
 * @c:		server
 *
 * #syscalls:setup eventfd2 close
 * Return: 0, or -1 (logged)
 */
static int ctl_evfd_init(struct ctl *c)
{
	int ret;

	if (c->evfd >= 0)
		return 0;
	/* our requests wake the shards, one on its own too */
	ret = shard_api_wake_init(c->sh);
	if (ret) {
		errno = -ret;
		err_perror("control thread: shard eventfd");
		return -1;
	}
	c->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->evfd < 0) {
		err_perror("control thread: eventfd");
		return -1;
	}
	if (ctl_ep_add(c, c->evfd, CSRV_IDX_EVENT)) {
		close(c->evfd);
		c->evfd = -1;
		return -1;
	}
	shard_api_attach(c->sh, c->evfd);
	return 0;
}

/**
 * ctl_rundir_open() - make the default sockets' directory if it is not
 * there, and open it if it is safe to use: a directory (not a symbolic
 * link), ours, that nobody else may write to
 * @dir:	its path (inst_rundir())
 * @why:	on failure, what is wrong
 * @why_len:	size of @why
 *
 * #syscalls:setup mkdir mkdirat openat fstat newfstatat
 * Return: its O_PATH fd, or -1 with @why set
 */
static int ctl_rundir_open(const char *dir, char *why, size_t why_len)
{
	struct stat st;
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(why, why_len, "cannot create %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	/* a symbolic link there: ELOOP or ENOTDIR, never followed */
	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s%s", dir, strerror(errno),
			 errno == ELOOP || errno == ENOTDIR ?
				 " (a symbolic link or not a directory: "
				 "refused)" :
				 "");
		return -1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s is not a directory", dir);
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, why_len,
			 "%s belongs to user %u, not to us (%u): refused", dir,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		goto fail;
	}
	if (st.st_mode & 022) {
		snprintf(why, why_len,
			 "%s may be written by others (mode %03o; it should "
			 "be 0700): refused",
			 dir, (unsigned)(st.st_mode & 0777));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/**
 * ctl_default_listen() - the default control socket, <rundir>/<pid>.sock
 * @c:		server (@ufd, @udirfd, @upath set on success)
 *
 * Never a failure of the gateway: when the directory is unsafe or the
 * socket cannot be made, one line at the info level (-v) says why, and we
 * run without. A socket file already at our path is a stale one (its
 * PID was ours before: PIDs are reused) if nobody answers there: it is
 * replaced; anything else there is left alone.
 *
 * #syscalls:setup socket connect bind listen unlinkat newfstatat close
 */
static void ctl_default_listen(struct ctl *c)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char dir[sizeof(a.sun_path)], why[PATH_MAX + 128], name[32];
	struct stat st;
	int dfd, fd = -1, n;

	inst_rundir(dir, sizeof(dir));
	snprintf(name, sizeof(name), "%d.sock", (int)getpid());
	n = snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(a.sun_path)) {
		info("no control socket: %s/%s is too long for a socket path "
		     "(--ctl PATH sets one)",
		     dir, name);
		return;
	}
	dfd = ctl_rundir_open(dir, why, sizeof(why));
	if (dfd < 0) {
		info("no control socket: %s", why);
		return;
	}
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		bool stale = false;

		if (S_ISSOCK(st.st_mode) && probe >= 0 &&
		    connect(probe, (struct sockaddr *)&a, sizeof(a)) &&
		    (errno == ECONNREFUSED || errno == ENOENT))
			stale = true;
		if (probe >= 0)
			close(probe);
		if (!stale || unlinkat(dfd, name, 0)) {
			info("no control socket: %s is there already (%s)",
			     a.sun_path,
			     stale		  ? strerror(errno) :
			     S_ISSOCK(st.st_mode) ? "in use" :
						    "not a socket");
			goto fail;
		}
		debug("replaced a stale socket file at %s", a.sun_path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || qsock_bind_private(fd, &a) || listen(fd, 64)) {
		info("no control socket at %s: %s", a.sun_path,
		     strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	c->ufd = fd;
	c->udirfd = dfd;
	memcpy(c->upath, a.sun_path, sizeof(c->upath));
	info("control socket: %s", c->upath);
	return;
fail:
	close(dfd);
}

/**
 * ctl_init() - listen on the control socket and --metrics, in the control
 * thread's epoll set (the thread starts with ctl_start())
 * @sh:		shard 0
 * @conf:	configuration
 * @id:		who we are (copied), or NULL
 *
 * The control socket is --ctl's (or SLIPWAY_CTL's: conf.c), else the
 * default one (ctl_default_listen()) unless turned off (--ctl none).
 *
 * #syscalls:setup epoll_create1 timerfd_create listen getpid
 * #syscalls:setup clock_gettime
 * Return: the server, or NULL on failure (logged)
 */
struct ctl *ctl_init(struct shard *sh, const struct conf *conf,
		     const struct ctl_ident *id)
{
	struct ctl *c = calloc(1, sizeof(*c));
	unsigned i;

	if (!c) {
		err("out of memory");
		return NULL;
	}
	c->sh = sh;
	c->nshards = shard_api_count(sh);
	c->ctr = shard_api_ctr(sh, 0);
	c->conf = conf;
	c->ufd = c->hfd = c->udirfd = c->evfd = c->afd = c->adirfd = -1;
	c->call_conn = -1;
	c->start_ns = now_mono_ns();
	c->owner = geteuid();
	c->pid = (int)getpid();
	c->started_unix = (int64_t)time(NULL);
	if (id)
		c->id = *id;
	if (!c->id.mode)
		c->id.mode = "slipway";
	for (i = 0; i < NCONNS; i++)
		c->conn[i].fd = -1;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->tfd >= 0)
		c->spare_fd = fd_spare_make(c->tfd);
	if (c->epfd < 0 || c->tfd < 0) {
		err_perror("control thread: epoll or timer");
		goto fail;
	}
	if (ctl_ep_add(c, c->tfd, CSRV_IDX_TIMER))
		goto fail;
	if (conf->ctl_path) {
		c->ufd = qsock_listen(conf->ctl_path);
		if (c->ufd < 0) {
			c->ufd = -1;
			goto fail;
		}
		snprintf(c->upath, sizeof(c->upath), "%s", conf->ctl_path);
		c->udirfd = qsock_path_dir(conf->ctl_path);
		if (listen(c->ufd, 64) || ctl_ep_add(c, c->ufd, CSRV_IDX_UNIX))
			goto fail;
	} else if (!conf->ctl_off) {
		ctl_default_listen(c);
		if (c->ufd >= 0 && ctl_ep_add(c, c->ufd, CSRV_IDX_UNIX))
			goto fail;
	}
	if (conf->metrics_set) {
		/* out of the guest's reach (before it listens) */
		shard_api_self_pin(sh, IPPROTO_TCP, &conf->metrics);
		c->hfd = http_listen(&conf->metrics);
		if (c->hfd < 0 || ctl_ep_add(c, c->hfd, CSRV_IDX_HTTP))
			goto fail;
	}
	if ((c->ufd >= 0 || c->hfd >= 0) && ctl_evfd_init(c))
		goto fail;
	return c;
fail:
	ctl_fini(c);
	return NULL;
}

/**
 * ctl_api_init() - listen on the slirp4netns API socket too, in the
 * control thread's epoll set
 * @c:		server
 * @path:	socket path (must not exist; removed by ctl_fini())
 *
 * Context: start-up, before ctl_start()
 *
 * #syscalls:setup close unlink
 * Return: 0, or -1 (logged)
 */
int ctl_api_init(struct ctl *c, const char *path)
{
	c->afd = s4n_api_listen(path);
	if (c->afd < 0)
		return -1;
	c->apath = path;
	if (ctl_ep_add(c, c->afd, CSRV_IDX_API) || ctl_evfd_init(c)) {
		close(c->afd);
		c->afd = -1;
		unlink(path);
		return -1;
	}
	c->adirfd = qsock_path_dir(path);
	return 0;
}

/**
 * ctl_active() - is there anything for a control thread to serve?
 * @c:		server, or NULL
 *
 * Return: true with --ctl, --metrics or the API socket
 */
bool ctl_active(const struct ctl *c)
{
	return c && c->evfd >= 0;
}

/**
 * ctl_start() - start the control thread (if ctl_active())
 * @c:		server
 * @start:	barrier the thread waits at before it serves anything (until
 *		the seccomp filter is installed); counts the thread
 *
 * Context: main thread, after the sandbox is entered, before the seccomp
 * filter (which allows no clone). Returns once the thread named itself.
 *
 * #syscalls:setup clone clone3
 * Return: 0, or -errno (logged)
 */
int ctl_start(struct ctl *c, pthread_barrier_t *start)
{
	int ret;

	if (!ctl_active(c))
		return 0;
	c->start = start;
	pthread_barrier_init(&c->ready, NULL, 2);
	ret = pthread_create(&c->tid, NULL, ctl_thread, c);
	if (ret) {
		errno = ret;
		err_perror("cannot start the control thread");
		pthread_barrier_destroy(&c->ready);
		return -ret;
	}
	c->started = true;
	pthread_barrier_wait(&c->ready);
	return 0;
}

/**
 * ctl_stop() - stop the control thread and join it
 * @c:		server, or NULL
 *
 * Context: main thread, before the shards stop (a request it left with a
 * shard is answered into memory ctl_fini() frees after they stopped)
 *
 * #syscalls write futex
 */
void ctl_stop(struct ctl *c)
{
	uint64_t one = 1;

	if (!c || !c->started)
		return;
	atomic_store_explicit(&c->stop, true, memory_order_release);
	if (write(c->evfd, &one, sizeof(one)) < 0)
		warn_perror("control thread: stop kick");
	pthread_join(c->tid, NULL);
	pthread_barrier_destroy(&c->ready);
	c->started = false;
}

/**
 * ctl_fini() - close every connection and listener, remove the socket
 * @c:		server, or NULL
 *
 * Context: after ctl_stop() and after the shards stopped
 *
 * #syscalls close unlink unlinkat
 */
void ctl_fini(struct ctl *c)
{
	unsigned i;

	if (!c)
		return;
	ASSERT(!c->started);
	for (i = 0; i < NCONNS; i++)
		if (c->conn[i].state != CONN_FREE)
			conn_close(c, i);
	for (i = 0; i < SHARDS_MAX; i++)
		free(c->snap_buf[i]);
	/* a job shard 0 ran after the thread's last look */
	if (c->calling && shard_api_call_done(c->sh, c->call_seq))
		free(c->job.list);
	shard_api_detach(c->sh, c->evfd);
	if (c->ufd >= 0) {
		close(c->ufd);
		qsock_path_unlink(c->udirfd, c->upath);
	}
	if (c->hfd >= 0)
		close(c->hfd);
	if (c->afd >= 0) {
		close(c->afd);
		qsock_path_unlink(c->adirfd, c->apath);
	}
	if (c->tfd >= 0)
		close(c->tfd);
	if (c->evfd >= 0)
		close(c->evfd);
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->spare_fd >= 0)
		close(c->spare_fd);
	free(c);
}

/**
 * ctl_dirfd() - the directory of the control socket's file
 * @c:		server, or NULL
 *
 * Return: its O_PATH fd, or -1
 */
int ctl_dirfd(const struct ctl *c)
{
	return c ? c->udirfd : -1;
}

/**
 * ctl_api_dirfd() - the directory of the API socket's file
 * @c:		server, or NULL
 *
 * Return: its O_PATH fd, or -1
 */
int ctl_api_dirfd(const struct ctl *c)
{
	return c ? c->adirfd : -1;
}
