/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.c - the control socket (--ctl) and the metrics endpoint (--metrics)
 *
 * DOC: Theory of Operation
 *
 * Both are served by the main thread, which is shard 0's event loop: the
 * listening sockets, the connections and a timer are in its epoll set
 * (EP_CTLSRV), every socket is non-blocking, and each event does a bounded
 * amount of work (one read or write of at most 64 KiB, or building one
 * reply), so the data path of shard 0 waits for a request no longer than
 * it takes to build its reply, and the other shards never wait.
 *
 * Control socket: a unix stream socket; one request per connection, a JSON
 * object ending in a newline (or at the client's end of stream), at most
 * CTL_REQ_MAX bytes; one JSON reply ending in a newline, then the server
 * closes. A longer request is answered with an error; what else the client
 * sends is read and dropped until it closes (so that it reads the answer
 * instead of a reset). At most CTL_CONNS connections at once, each closed
 * after CTL_TIMEOUT_MS; more are refused (closed at once).
 *
 * Counters and histograms of other shards are read with relaxed loads (one
 * writer each, see hist.h). Flow tables are read by their owners only: a
 * flows request bumps each shard's snapshot request (struct flow_snap in
 * shard.h, release store) and kicks its mailbox eventfd; the shard copies
 * its table into our buffer at the end of its loop iteration and answers
 * with a release store and a kick of our eventfd; the reply is built when
 * every shard answered (shard_run() calls ctl_poll() while we wait).
 * Requests arriving meanwhile share the snapshot in progress.
 *
 * Metrics: HTTP/1.0 (and 1.1 clients, answered with 1.0 and closed):
 * GET /metrics gives the Prometheus text format, any other path 404, any
 * other method 405, a request head over HTTP_REQ_MAX bytes 431, a
 * malformed one 400. At most HTTP_CONNS connections, CTL_TIMEOUT_MS each.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "ctl/ctl_proto.h"
#include "edge/edge.h"
#include "host/fwd.h"
#include "util/log.h"

#define CTL_CONNS 16
#define HTTP_CONNS 8
#define NCONNS (CTL_CONNS + HTTP_CONNS)
#define CTL_TIMEOUT_MS 5000
#define HTTP_REQ_MAX 8192
#define DRAIN_MAX (1U << 20)
#define TICK_MS 250

enum { CSRV_IDX_UNIX, CSRV_IDX_HTTP, CSRV_IDX_TIMER, CSRV_IDX_CONN0 };

/**
 * enum conn_state - a connection's life
 * @CONN_FREE:	slot unused
 * @CONN_READ:	reading the request
 * @CONN_WAIT:	a flows request waits for the shards' snapshots
 * @CONN_WRITE:	writing the reply
 * @CONN_DRAIN:	reply written; dropping what the client still sends
 */
enum conn_state { CONN_FREE, CONN_READ, CONN_WAIT, CONN_WRITE, CONN_DRAIN };

/**
 * struct ctl_conn - one client
 * @fd:		socket
 * @http:	a metrics client (else a control one)
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
};

/**
 * struct ctl - the server
 * @sh:		shard 0
 * @conf:	configuration
 * @ufd:	control socket, or -1
 * @udirfd:	its directory (O_PATH: the sandbox leaves a way to remove
 *		the socket file from there), or -1
 * @hfd:	metrics socket, or -1
 * @tfd:	timer for connection deadlines
 * @tick_armed:	@tfd runs
 * @start_ns:	when we started
 * @conn:	connections (control ones first)
 * @snapping:	a flow snapshot is in progress
 * @snap_seq:	its request number
 * @snap_buf:	per shard: its records
 * @snap_n:	shard 0's record count (the others' are in their flow_snap)
 * @snap_total:	shard 0's flow count
 */
struct ctl {
	struct shard *sh;
	const struct conf *conf;
	int ufd;
	int udirfd;
	int hfd;
	int tfd;
	bool tick_armed;
	uint64_t start_ns;
	struct ctl_conn conn[NCONNS];
	bool snapping;
	unsigned snap_seq;
	struct flow_rec *snap_buf[SHARDS_MAX];
	uint32_t snap_n;
	uint32_t snap_total;
};

/**
 * ctr0() - count an event in shard 0's counters (we run on its thread)
 * @c:		server
 * @id:		counter
 */
static void ctr0(struct ctl *c, enum ctr_id id)
{
	ctr_add(&c->sh->ctr[id], 1);
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
		.data.u64 = EP_DATA(EP_CTLSRV, CSRV_IDX_CONN0 + i),
	};

	if (epoll_ctl(c->sh->epfd, EPOLL_CTL_MOD, c->conn[i].fd, &ev))
		warn_perror("control connection: epoll_ctl");
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
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	for (j = 0; j < NCONNS; j++)
		if (c->conn[j].state != CONN_FREE)
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
	const struct shard_group *g = c->sh->grp;
	unsigned k;

	memset(s, 0, sizeof(*s));
	s->version = SLIPWAY_VERSION;
	s->edge = c->sh->edge->ops->name;
	s->nshards = g->n;
	s->peek_off = c->sh->peek_off;
	s->max_flows = c->conf->max_flows;
	s->uptime_ms = (now_mono_ns() - c->start_ns) / 1000000;
	for (k = 0; k < g->n; k++) {
		s->ctr[k] = g->sh[k]->ctr;
		s->hist[k] = g->sh[k]->hist;
		s->queue[k] = g->sh[k]->q;
	}
}

/**
 * snap_finish() - every shard answered: reply to each waiting request
 * @c:		server
 */
static void snap_finish(struct ctl *c)
{
	const struct shard_group *g = c->sh->grp;
	struct flow_rec *all;
	size_t n = 0, total = 0, cap = c->snap_n;
	unsigned i, k;

	for (k = 1; k < g->n; k++)
		cap += g->sh[k]->snap.n;
	all = malloc((cap ? cap : 1) * sizeof(*all));
	if (all) {
		memcpy(all, c->snap_buf[0], c->snap_n * sizeof(*all));
		n = c->snap_n;
		total = c->snap_total;
		for (k = 1; k < g->n; k++) {
			memcpy(all + n, c->snap_buf[k],
			       g->sh[k]->snap.n * sizeof(*all));
			n += g->sh[k]->snap.n;
			total += g->sh[k]->snap.total;
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
		out = ctl_dump(ctl_reply_flows(all, MIN(n, kc->limit), total),
			       &len);
		conn_reply(c, i, out, len);
	}
	free(all);
	for (k = 0; k < g->n; k++) {
		free(c->snap_buf[k]);
		c->snap_buf[k] = NULL;
	}
	c->snapping = false;
	c->sh->ctl_wait = false;
}

/**
 * ctl_poll() - after a loop iteration of shard 0: did every shard answer?
 * @arg:	server
 */
static void ctl_poll(void *arg)
{
	struct ctl *c = arg;
	const struct shard_group *g = c->sh->grp;
	unsigned k;

	if (!c->snapping)
		return;
	for (k = 1; k < g->n; k++) {
		/* pairs with the release store in shard_snap_answer() */
		if (atomic_load_explicit(&g->sh[k]->snap.done,
					 memory_order_acquire) != c->snap_seq)
			return;
	}
	snap_finish(c);
}

/**
 * snap_start() - ask every shard for its flow table
 * @c:		server
 *
 * #syscalls write
 * Return: 0, or -ENOMEM
 */
static int snap_start(struct ctl *c)
{
	struct shard_group *g = c->sh->grp;
	uint64_t one = 1;
	unsigned k;

	if (c->snapping)
		return 0; /* join the one in progress */
	for (k = 0; k < g->n; k++) {
		uint32_t cap = g->sh[k]->max_flows +
			       g->sh[k]->core.conf.max_udp_flows;

		c->snap_buf[k] = malloc((size_t)cap * sizeof(struct flow_rec));
		if (!c->snap_buf[k]) {
			while (k--) {
				free(c->snap_buf[k]);
				c->snap_buf[k] = NULL;
			}
			return -ENOMEM;
		}
		if (!k) {
			c->snap_n = shard_snap_flows(c->sh, c->snap_buf[0], cap,
						     &c->snap_total);
			continue;
		}
		g->sh[k]->snap.buf = c->snap_buf[k];
		g->sh[k]->snap.cap = cap;
	}
	c->snap_seq++;
	c->snapping = true;
	for (k = 1; k < g->n; k++) {
		/* pairs with the acquire load in shard_snap_answer(): the
		 * shard sees @buf and @cap */
		atomic_store_explicit(&g->sh[k]->snap.req, c->snap_seq,
				      memory_order_release);
		if (write(g->sh[k]->mbox_fd, &one, sizeof(one)) < 0 &&
		    errno != EAGAIN)
			warn_perror("mailbox kick (flow snapshot)");
	}
	c->sh->ctl_wait = true;
	ctl_poll(c); /* a group of one is done already */
	return 0;
}

/**
 * forwards_list() - the reply to forwards list
 * @c:		server
 *
 * Return: new JSON object, or NULL without memory
 */
static json_t *forwards_list(const struct ctl *c)
{
	unsigned n = fwd_list(c->sh, NULL, 0);
	struct fwd_rule *rules = calloc(n ? n : 1, sizeof(*rules));
	json_t *j;

	if (!rules)
		return NULL;
	n = MIN(n, fwd_list(c->sh, rules, n));
	j = ctl_reply_forwards(rules, n, c->conf);
	free(rules);
	return j;
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
		return "the host port is in use (by slipway or another program)";
	case -EACCES:
		return "ports below 1024 need root or net.ipv4.ip_unprivileged_port_start";
	case -EADDRNOTAVAIL:
		return "no such host address";
	default:
		return strerror(-ret);
	}
}

/**
 * ctl_forwards_change() - forwards add or remove, through the forward API
 * of fwd.h (we run on the main thread, as it asks)
 * @c:		server
 * @i:		connection index
 * @r:		request
 *
 * An add of several ports publishes all of them or none.
 */
static void ctl_forwards_change(struct ctl *c, unsigned i,
				const struct ctl_req *r)
{
	json_t *added, *j;
	unsigned ids[CTL_FWD_RANGE_MAX], k, n;
	char msg[256], rs[160];
	size_t len = 0;
	char *out;

	if (r->op == CTL_FWD_REMOVE) {
		if (fwd_remove(c->sh, r->id)) {
			snprintf(msg, sizeof(msg), "forwards remove: no published port has id %u",
				 r->id);
			conn_error(c, i, msg);
			return;
		}
		ctr0(c, CTR_CTL_REQUESTS);
		out = ctl_dump(json_pack("{s:i}", "removed", (int)r->id), &len);
		conn_reply(c, i, out, len);
		return;
	}
	for (k = 0; k < r->nrules; k++) {
		int ret = fwd_add(c->sh, &r->rules[k]);

		if (ret < 0) {
			snprintf(msg, sizeof(msg), "forwards add: cannot publish %s: %s",
				 fwd_rule_str(&r->rules[k], rs, sizeof(rs)),
				 fwd_err_str(ret));
			while (k--)
				fwd_remove(c->sh, ids[k]);
			conn_error(c, i, msg);
			return;
		}
		ids[k] = (unsigned)ret;
	}
	added = json_array();
	n = fwd_list(c->sh, NULL, 0);
	{
		struct fwd_rule *all = calloc(n ? n : 1, sizeof(*all));
		unsigned m, x;

		if (all && added) {
			m = MIN(n, fwd_list(c->sh, all, n));
			for (k = 0; k < r->nrules; k++)
				for (x = 0; x < m; x++)
					if (all[x].id == ids[k])
						json_array_append_new(added,
							ctl_fwd_json(&all[x]));
		}
		free(all);
	}
	j = added ? json_pack("{s:o}", "added", added) : NULL;
	ctr0(c, CTR_CTL_REQUESTS);
	out = ctl_dump(j, &len);
	conn_reply(c, i, out, len);
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
		if (r.op != CTL_FWD_LIST) {
			ctl_forwards_change(c, i, &r);
			return;
		}
		j = forwards_list(c);
		break;
	case CTL_CMD_FLOWS:
		k->limit = r.limit;
		k->state = CONN_WAIT;
		if (snap_start(c)) {
			conn_error(c, i, "out of memory");
			return;
		}
		if (k->state == CONN_WAIT) /* not answered at once */
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
	n = asprintf(&out, "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%.*s",
		     status,
		     strncmp(status, "200", 3) ? "text/plain; charset=utf-8" :
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

	if (k->state != CONN_READ) {
		/* a client gone both ways while we wait cannot be masked
		 * out of epoll (EPOLLHUP): nobody to answer */
		if ((events & (EPOLLHUP | EPOLLERR)) && k->state == CONN_WAIT) {
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
		char *nl = memchr(k->in + k->in_len - (size_t)n, '\n', (size_t)n);

		if (nl)
			ctl_request(c, i, (size_t)(nl - k->in));
		else if (k->in_len == cap)
			conn_error(c, i, "request too large (at most 65536 bytes, one line)");
	}
}

/**
 * conn_writable() - write more of the reply
 * @c:		server
 * @i:		connection index
 *
 * #syscalls write shutdown
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
 * ctl_accept() - take new clients, refusing those past the cap
 * @c:		server
 * @http:	the metrics socket (else the control one)
 *
 * #syscalls accept4 close write
 */
static void ctl_accept(struct ctl *c, bool http)
{
	unsigned from = http ? CTL_CONNS : 0, to = from + (http ? HTTP_CONNS : CTL_CONNS);

	for (;;) {
		int fd = accept4(http ? c->hfd : c->ufd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ctl_conn *k;
		unsigned i;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				warn_perror("control accept");
			return;
		}
		for (i = from; i < to; i++)
			if (c->conn[i].state == CONN_FREE)
				break;
		if (i == to) {
			static const char busy_http[] = "HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
			static const char busy_ctl[] = "{\"error\":\"too many control connections\"}\n";

			if (send(fd, http ? busy_http : busy_ctl,
				 http ? sizeof(busy_http) - 1 : sizeof(busy_ctl) - 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				debug("refused control client: %s", strerror(errno));
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
		if (shard_ep_add(c->sh, fd, EPOLLIN,
				 EP_DATA(EP_CTLSRV, CSRV_IDX_CONN0 + i))) {
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
 * ctl_timer() - close connections past their deadline
 * @c:		server
 *
 * #syscalls read
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
		if (k->state == CONN_WAIT) {
			static const char late[] = "{\"error\":\"timed out waiting for the shards' flow tables\"}\n";

			if (send(k->fd, late, sizeof(late) - 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				debug("control client gone: %s", strerror(errno));
		}
		if (k->state != CONN_DRAIN)
			ctr0(c, CTR_CTL_TIMEOUTS);
		conn_close(c, i);
	}
}

/**
 * ctl_event() - an EP_CTLSRV event
 * @arg:	server
 * @idx:	EP_IDX() of the event
 * @events:	epoll events
 */
void ctl_event(void *arg, uint32_t idx, uint32_t events)
{
	struct ctl *c = arg;
	unsigned i;

	switch (idx) {
	case CSRV_IDX_UNIX:
		ctl_accept(c, false);
		return;
	case CSRV_IDX_HTTP:
		ctl_accept(c, true);
		return;
	case CSRV_IDX_TIMER:
		ctl_timer(c);
		return;
	}
	i = idx - CSRV_IDX_CONN0;
	if (i >= NCONNS || c->conn[i].state == CONN_FREE)
		return;
	if (events & EPOLLOUT)
		conn_writable(c, i);
	if (c->conn[i].state != CONN_FREE && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		conn_readable(c, i, events);
}

/**
 * http_listen() - the metrics listening socket
 * @ss:		address
 *
 * #syscalls socket setsockopt bind listen
 * Return: socket, or -1 (logged)
 */
static int http_listen(const struct sockaddr_storage *ss)
{
	socklen_t sl = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						   sizeof(struct sockaddr_in);
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
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
 * ctl_init() - listen on --ctl and --metrics, in shard 0's epoll set
 * @sh:		shard 0
 * @conf:	configuration
 *
 * #syscalls timerfd_create listen
 * Return: the server, or NULL on failure (logged)
 */
struct ctl *ctl_init(struct shard *sh, const struct conf *conf)
{
	struct ctl *c = calloc(1, sizeof(*c));
	unsigned i;

	if (!c) {
		err("out of memory");
		return NULL;
	}
	c->sh = sh;
	c->conf = conf;
	c->ufd = c->hfd = c->udirfd = -1;
	c->start_ns = now_mono_ns();
	for (i = 0; i < NCONNS; i++)
		c->conn[i].fd = -1;
	c->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->tfd < 0 ||
	    shard_ep_add(sh, c->tfd, EPOLLIN, EP_DATA(EP_CTLSRV, CSRV_IDX_TIMER)))
		goto fail;
	if (conf->ctl_path) {
		c->ufd = qsock_listen(conf->ctl_path);
		if (c->ufd < 0) {
			c->ufd = -1;
			goto fail;
		}
		c->udirfd = qsock_path_dir(conf->ctl_path);
		if (listen(c->ufd, 64) ||
		    shard_ep_add(sh, c->ufd, EPOLLIN, EP_DATA(EP_CTLSRV, CSRV_IDX_UNIX)))
			goto fail;
	}
	if (conf->metrics_set) {
		c->hfd = http_listen(&conf->metrics);
		if (c->hfd < 0 ||
		    shard_ep_add(sh, c->hfd, EPOLLIN, EP_DATA(EP_CTLSRV, CSRV_IDX_HTTP)))
			goto fail;
	}
	sh->ctl_poll = ctl_poll;
	sh->ctl_event = ctl_event;
	sh->ctl_arg = c;
	return c;
fail:
	ctl_fini(c);
	return NULL;
}

/**
 * ctl_fini() - close every connection and listener, remove the socket
 * @c:		server, or NULL
 *
 * #syscalls close unlink unlinkat
 */
void ctl_fini(struct ctl *c)
{
	unsigned i;

	if (!c)
		return;
	for (i = 0; i < NCONNS; i++)
		if (c->conn[i].state != CONN_FREE)
			conn_close(c, i);
	for (i = 0; i < SHARDS_MAX; i++)
		free(c->snap_buf[i]);
	c->sh->ctl_wait = false;
	c->sh->ctl_poll = NULL;
	c->sh->ctl_event = NULL;
	if (c->ufd >= 0) {
		close(c->ufd);
		qsock_path_unlink(c->udirfd, c->conf->ctl_path);
	}
	if (c->hfd >= 0)
		close(c->hfd);
	if (c->tfd >= 0)
		close(c->tfd);
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
