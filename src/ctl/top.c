/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top.c - slipway top: an instance's totals and flows, live (ncurses), or
 * as text or JSON snapshots for scripts
 *
 * Each refresh asks the control socket for version, stats and flows (three
 * requests, three connections: the server answers one request per
 * connection). The totals' rates are the differences of two successive
 * replies over the time between them; a flow's rates are the server's
 * (rate_from_guest, rate_to_guest) when it sends them, else the same
 * differences for the flow with the same kind, protocol, guest and remote
 * tuples and shard in the previous snapshot. Members an older server does
 * not send show as "-". The terminal is restored on every way out: q, the
 * end of -n, SIGINT, SIGTERM (flags read by the loop: getch() returns on a
 * signal) and the instance going away.
 */

#include <curses.h>
#include <errno.h>
#include <jansson.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl_client.h"
#include "ctl/inst.h"

static const char top_usage[] =
	"Usage: slipway top [PID|PATH] [-b] [-n N] [-d SECONDS] [--json] "
	"[-s KEY]\n"
	"  An instance's totals, rates, drops and flows, refreshed every "
	"second.\n"
	"  PID is an instance of slipway ls; PATH a control socket (--ctl "
	"PATH).\n"
	"  Without either: the only running instance, or a list to pick "
	"from.\n"
	"  -b            batch: plain text snapshots (header and table), "
	"a blank\n"
	"                line between them, no screen handling\n"
	"  -n N          stop after N snapshots (batch: 1 unless given)\n"
	"  -d SECONDS    time between snapshots (default 1, at least 0.1)\n"
	"  --json        one JSON document per snapshot, one line each\n"
	"  -s KEY        sort flows by rate (default), bytes, age or rtt\n"
	"  Keys: q quit, s next sort, < > previous/next sort, arrows PgUp "
	"PgDn\n"
	"  Home End scroll, p pause, / or f filter (port or address text; "
	"empty\n"
	"  clears), c counters that moved, h or ? help.\n"
	"  Columns: OUT from the guest, IN to the guest (bytes, per second "
	"with\n"
	"  /s), AGE, IDLE, RTT (the guest's, else the host socket's), "
	"LIMITED_BY.\n";

enum top_sort { SORT_RATE, SORT_BYTES, SORT_AGE, SORT_RTT, SORT_N };
static const char *const sort_names[SORT_N] = { "rate", "bytes", "age", "rtt" };

/**
 * struct row - one flow, as shown
 * @f:		its record in the flows reply
 * @rate:	bytes per second from and to the guest (valid if @has_rate)
 * @has_rate:	the server sent rates, or the previous snapshot had the flow
 * @bytes:	bytes from and to the guest
 * @age_ms:	age, -1 unknown
 * @idle_ms:	idle time, -1 unknown
 * @rtt_us:	RTT, -1 unknown
 * @kind:	"tcp", "splice", "dns/udp"...
 * @guest:	the guest's tuple
 * @remote:	the remote tuple
 * @host:	the host socket's local tuple, or "-"
 */
struct row {
	json_t *f;
	double rate[2];
	bool has_rate;
	double bytes[2];
	long long age_ms, idle_ms, rtt_us;
	char kind[24];
	char guest[64], remote[64], host[64];
};

/**
 * struct snap - one refresh's replies
 * @ver:	version reply (completed: inst_complete())
 * @stats:	stats reply
 * @flows:	flows reply
 * @mono:	when (CLOCK_MONOTONIC, seconds)
 * @wall:	when (seconds since the epoch)
 * @rows:	the flows, sorted (all; the filter applies when shown)
 * @nrows:	how many
 * @bytes:	flow key -> [from, to] bytes (the next snapshot's rates)
 * @rate:	the totals' bytes per second from and to the guest
 * @has_rate:	@rate is known (a previous snapshot)
 */
struct snap {
	json_t *ver, *stats, *flows;
	double mono, wall;
	struct row *rows;
	size_t nrows;
	json_t *bytes;
	double rate[2];
	bool has_rate;
};

/**
 * struct top - the command's state
 * @path:	control socket
 * @batch:	-b
 * @json:	--json
 * @count:	-n (0: no end)
 * @delay:	-d, seconds
 * @sort:	sort key
 * @filter:	the filter text ("" none)
 * @cur:	the latest snapshot
 * @prev:	the one before (@prev.ver NULL: none)
 * @offset:	first row shown
 * @paused:	p
 * @counters:	c: the counters view
 * @err:	why the last top_fetch() failed: the error reply's text, or
 *		"" when nobody answered (then @errnum)
 * @errnum:	errno of a request nobody answered
 */
struct top {
	char path[4096];
	bool batch, json;
	long count;
	double delay;
	enum top_sort sort;
	char filter[64];
	struct snap cur, prev;
	int offset;
	bool paused, counters;
	char err[256];
	int errnum;
};

static volatile sig_atomic_t top_stop;

/**
 * top_signal() - SIGINT, SIGTERM: leave the loop (the screen is restored
 * there)
 * @sig:	signal
 */
static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

/**
 * now() - a clock, seconds
 * @clk:	CLOCK_MONOTONIC or CLOCK_REALTIME
 *
 * Return: seconds
 */
static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * jnum() - a number member, or @def if absent
 * @o:		object
 * @key:	member
 * @def:	default
 *
 * Return: value
 */
static double jnum(const json_t *o, const char *key, double def)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : def;
}

/**
 * jll() - an integer member, or @def if absent or out of range (a
 * number from the reply must not overflow a conversion)
 * @o:		object
 * @key:	member
 * @def:	default
 *
 * Return: value
 */
static long long jll(const json_t *o, const char *key, long long def)
{
	double v = jnum(o, key, (double)def);

	return v > -1e18 && v < 1e18 ? (long long)v : def;
}

/**
 * jstr() - a string member, "-" if absent or empty
 * @o:		object
 * @key:	member
 *
 * Return: text
 */
static const char *jstr(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && *v ? v : "-";
}

/**
 * tuple() - "ADDR:PORT" (IPv6 bracketed), "-" without an address
 * @out:	filled
 * @size:	its size
 * @o:		object
 * @a:		address member
 * @p:		port member
 *
 * Return: @out
 */
static const char *tuple(char *out, size_t size, const json_t *o, const char *a,
			 const char *p)
{
	const char *addr = json_string_value(json_object_get(o, a));
	long long port = jll(o, p, -1);

	if (!addr || !*addr)
		snprintf(out, size, "-");
	else if (port < 0)
		snprintf(out, size, "%s", addr);
	else
		snprintf(out, size, strchr(addr, ':') ? "[%s]:%lld" : "%s:%lld",
			 addr, port);
	return out;
}

/**
 * flow_bytes() - a flow's payload bytes one way: bytes_*, else the older
 * members (*_bytes; for TCP the counts of the first listings, which are
 * bytes there, datagrams for UDP)
 * @f:		flow
 * @to:		to the guest (else from it)
 *
 * Return: bytes, or -1 unknown
 */
static double flow_bytes(const json_t *f, bool to)
{
	double v = jnum(f, to ? "bytes_to_guest" : "bytes_from_guest", -1);

	if (v < 0)
		v = jnum(f, to ? "to_guest_bytes" : "from_guest_bytes", -1);
	if (v < 0 && !strcmp(jstr(f, "proto"), "tcp"))
		v = jnum(f, to ? "to_guest" : "from_guest", -1);
	return v;
}

static enum top_sort row_sort_key;

/**
 * row_cmp() - order of two rows by row_sort_key, largest first
 * @a:	one
 * @b:	another
 *
 * Return: <0, 0, >0
 */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double vx, vy;

	switch (row_sort_key) {
	case SORT_BYTES:
		vx = x->bytes[0] + x->bytes[1];
		vy = y->bytes[0] + y->bytes[1];
		break;
	case SORT_AGE:
		vx = (double)x->age_ms;
		vy = (double)y->age_ms;
		break;
	case SORT_RTT:
		vx = (double)x->rtt_us;
		vy = (double)y->rtt_us;
		break;
	default:
		vx = x->has_rate ? x->rate[0] + x->rate[1] : -1;
		vy = y->has_rate ? y->rate[0] + y->rate[1] : -1;
		break;
	}
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->guest, y->guest);
}

/**
 * snap_free() - free a snapshot
 * @s:	snapshot (zeroed)
 */
static void snap_free(struct snap *s)
{
	json_decref(s->ver);
	json_decref(s->stats);
	json_decref(s->flows);
	json_decref(s->bytes);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/**
 * row_fill() - a row from a flow record, its rates from the server or
 * from the previous snapshot
 * @t:		state (@t->prev: the previous snapshot)
 * @r:		row to fill
 * @f:		flow record
 * @dt:		seconds since the previous snapshot (0: none)
 */
static void row_fill(struct top *t, struct row *r, json_t *f, double dt)
{
	const char *kind = jstr(f, "kind"), *proto = jstr(f, "proto");
	const json_t *ti = json_object_get(f, "tcp_info"),
		     *host = json_object_get(f, "host");
	char key[320];
	json_t *p;

	memset(r, 0, sizeof(*r));
	r->f = f;
	if (!strcmp(kind, proto) || !strcmp(kind, "splice") ||
	    !strcmp(kind, "udpns") || !strcmp(kind, "ping"))
		snprintf(r->kind, sizeof(r->kind), "%s", kind);
	else
		snprintf(r->kind, sizeof(r->kind), "%s/%s", kind, proto);
	tuple(r->guest, sizeof(r->guest), f, "guest_addr", "guest_port");
	tuple(r->remote, sizeof(r->remote), f, "remote_addr", "remote_port");
	if (json_is_object(host))
		tuple(r->host, sizeof(r->host), host, "local_addr",
		      "local_port");
	else
		snprintf(r->host, sizeof(r->host), "-");
	r->bytes[0] = flow_bytes(f, false);
	r->bytes[1] = flow_bytes(f, true);
	r->age_ms = jll(f, "age_ms", -1);
	r->idle_ms = jll(f, "idle_ms", -1);
	r->rtt_us = jll(f, "guest_rtt_us", 0);
	if (r->rtt_us <= 0)
		r->rtt_us = jll(ti, "rtt_us", 0);
	if (r->rtt_us <= 0)
		r->rtt_us = -1;
	snprintf(key, sizeof(key), "%s|%s|%s|%s|%lld", kind, proto, r->guest,
		 r->remote, jll(f, "shard", 0));
	json_object_set_new(t->cur.bytes, key,
			    json_pack("[f,f]", r->bytes[0], r->bytes[1]));
	if (json_is_number(json_object_get(f, "rate_from_guest")) &&
	    json_is_number(json_object_get(f, "rate_to_guest"))) {
		r->rate[0] = jnum(f, "rate_from_guest", 0);
		r->rate[1] = jnum(f, "rate_to_guest", 0);
		r->has_rate = true;
		return;
	}
	p = json_object_get(t->prev.bytes, key);
	if (dt > 0 && json_is_array(p) && r->bytes[0] >= 0 &&
	    r->bytes[1] >= 0) {
		double d0 = r->bytes[0] -
			    json_number_value(json_array_get(p, 0)),
		       d1 = r->bytes[1] -
			    json_number_value(json_array_get(p, 1));

		r->rate[0] = d0 > 0 ? d0 / dt : 0;
		r->rate[1] = d1 > 0 ? d1 / dt : 0;
		r->has_rate = true;
	}
	/* the JSON snapshots carry the rates shown: the client's when the
	 * server sent none (null until a previous snapshot) */
	json_object_set_new(f, "rate_from_guest",
			    r->has_rate ? json_real(r->rate[0]) : json_null());
	json_object_set_new(f, "rate_to_guest",
			    r->has_rate ? json_real(r->rate[1]) : json_null());
}

/**
 * top_fetch() - a new snapshot: version, stats and flows
 * @t:		state
 *
 * Return: 0, or -1 when the instance does not answer (gone)
 */
static int top_fetch(struct top *t)
{
	json_t *ver, *st = NULL, *fl = NULL, *a;
	struct snap n = { 0 };
	double dt;
	size_t i;

	ver = inst_ask(t->path, "{\"cmd\":\"version\"}");
	if (ver)
		st = inst_ask(t->path, "{\"cmd\":\"stats\"}");
	if (st)
		fl = inst_ask(t->path, "{\"cmd\":\"flows\"}");
	t->errnum = errno;
	t->err[0] = '\0';
	if (fl &&
	    (json_object_get(ver, "error") || json_object_get(st, "error") ||
	     json_object_get(fl, "error"))) {
		const json_t *e = json_object_get(ver, "error") ? ver :
				  json_object_get(st, "error")	? st :
								  fl;

		snprintf(t->err, sizeof(t->err), "%s", jstr(e, "error"));
		json_decref(fl);
		fl = NULL;
	}
	if (!fl) {
		json_decref(ver);
		json_decref(st);
		json_decref(fl);
		return -1;
	}
	inst_complete(ver, t->path, st, fl);
	snap_free(&t->prev);
	t->prev = t->cur;
	n.ver = ver;
	n.stats = st;
	n.flows = fl;
	n.mono = now(CLOCK_MONOTONIC);
	n.wall = now(CLOCK_REALTIME);
	n.bytes = json_object();
	t->cur = n;
	dt = t->prev.ver ? t->cur.mono - t->prev.mono : 0;
	if (dt > 0) {
		double f0 = jnum(ver, "bytes_from_guest", 0) -
			    jnum(t->prev.ver, "bytes_from_guest", 0),
		       f1 = jnum(ver, "bytes_to_guest", 0) -
			    jnum(t->prev.ver, "bytes_to_guest", 0);

		t->cur.rate[0] = f0 > 0 ? f0 / dt : 0;
		t->cur.rate[1] = f1 > 0 ? f1 / dt : 0;
		t->cur.has_rate = true;
	}
	a = json_object_get(fl, "flows");
	t->cur.rows = calloc(json_array_size(a) + 1, sizeof(struct row));
	if (!t->cur.rows)
		return -1;
	for (i = 0; i < json_array_size(a); i++)
		row_fill(t, &t->cur.rows[i], json_array_get(a, i), dt);
	t->cur.nrows = i;
	row_sort_key = t->sort;
	qsort(t->cur.rows, t->cur.nrows, sizeof(struct row), row_cmp);
	return 0;
}

/**
 * top_failed() - say why top_fetch() failed
 * @t:		state
 * @first:	the first request (else the instance answered before)
 */
static void top_failed(const struct top *t, bool first)
{
	if (t->err[0])
		fprintf(stderr, "slipway top: %s answered an error: %s\n",
			t->path, t->err);
	else if (first)
		fprintf(stderr,
			"slipway top: no answer from %s: %s (slipway ls lists "
			"the running instances)\n",
			t->path, strerror(t->errnum));
	else
		fprintf(stderr, "slipway top: instance gone (%s)\n", t->path);
}

/**
 * top_resort() - sort the rows again (the sort key changed)
 * @t:		state
 */
static void top_resort(struct top *t)
{
	row_sort_key = t->sort;
	if (t->cur.rows)
		qsort(t->cur.rows, t->cur.nrows, sizeof(struct row), row_cmp);
}

/**
 * row_match() - does a row pass the filter?
 * @t:		state
 * @r:		row
 *
 * Return: true with no filter, or if a tuple contains its text
 */
static bool row_match(const struct top *t, const struct row *r)
{
	return !t->filter[0] || strstr(r->guest, t->filter) ||
	       strstr(r->remote, t->filter) || strstr(r->host, t->filter) ||
	       strstr(r->kind, t->filter);
}

/**
 * rate_text() - a rate (or a count) in human units, "-" unknown
 * @out:	filled
 * @size:	its size
 * @known:	is it?
 * @v:		bytes per second
 *
 * Return: @out
 */
static const char *rate_text(char *out, size_t size, bool known, double v)
{
	if (!known)
		return strcpy(out, "-");
	return inst_human(out, size, v);
}

/**
 * ms_text() - a duration, "-" unknown
 * @out:	filled
 * @size:	its size
 * @ms:		milliseconds, <0 unknown
 *
 * Return: @out
 */
static const char *ms_text(char *out, size_t size, long long ms)
{
	if (ms < 0)
		return strcpy(out, "-");
	if (ms < 10000) {
		snprintf(out, size, "%.1fs", (double)ms / 1000);
		return out;
	}
	return inst_duration(out, size, (unsigned long long)ms);
}

/**
 * rtt_text() - an RTT: 850us, 1.2ms, 120ms; "-" unknown
 * @out:	filled
 * @size:	its size
 * @us:		microseconds, <0 unknown
 *
 * Return: @out
 */
static const char *rtt_text(char *out, size_t size, long long us)
{
	if (us < 0)
		snprintf(out, size, "-");
	else if (us < 1000)
		snprintf(out, size, "%lldus", us);
	else if (us < 10000)
		snprintf(out, size, "%.1fms", (double)us / 1000);
	else
		snprintf(out, size, "%lldms", us / 1000);
	return out;
}

/* the table's columns; a narrow screen drops some (col_drop[]) */
enum col_id {
	C_KIND,
	C_GUEST,
	C_REMOTE,
	C_HOST,
	C_STATE,
	C_OUT_RATE,
	C_IN_RATE,
	C_OUT,
	C_IN,
	C_AGE,
	C_IDLE,
	C_RTT,
	C_LIMIT,
	C_N
};

/**
 * struct col - a column of the table
 * @name:	its heading
 * @width:	its width
 * @left:	left-aligned (text), else right-aligned (figures)
 */
struct col {
	const char *name;
	int width;
	bool left;
};

static const struct col cols[C_N] = {
	[C_KIND] = { "KIND", 10, true },
	[C_GUEST] = { "GUEST", 21, true },
	[C_REMOTE] = { "REMOTE", 21, true },
	[C_HOST] = { "HOST", 21, true },
	[C_STATE] = { "STATE", 11, true },
	[C_OUT_RATE] = { "OUT/s", 7, false },
	[C_IN_RATE] = { "IN/s", 7, false },
	[C_OUT] = { "OUT", 7, false },
	[C_IN] = { "IN", 7, false },
	[C_AGE] = { "AGE", 6, false },
	[C_IDLE] = { "IDLE", 6, false },
	[C_RTT] = { "RTT", 7, false },
	[C_LIMIT] = { "LIMITED_BY", 12, true },
};

/* what a narrow screen gives up first */
static const enum col_id col_drop[] = { C_HOST, C_IDLE,	 C_LIMIT, C_AGE,
					C_RTT,	C_STATE, C_IN,	  C_OUT };

/**
 * cols_fit() - the columns a screen width shows
 * @width:	the width, or 0 for every column (batch)
 * @shown:	filled: which
 */
static void cols_fit(int width, bool shown[C_N])
{
	int total = -1, i;
	size_t d = 0;

	for (i = 0; i < C_N; i++) {
		shown[i] = true;
		total += cols[i].width + 1;
	}
	while (width && total > width &&
	       d < sizeof(col_drop) / sizeof(col_drop[0])) {
		shown[col_drop[d]] = false;
		total -= cols[col_drop[d++]].width + 1;
	}
}

/**
 * cells_line() - cells as one line of the table
 * @out:	filled
 * @size:	its size
 * @cell:	the cells' text
 * @shown:	which columns
 * @wide:	no truncation (batch: a long address keeps all its text)
 *
 * Return: @out
 */
static const char *cells_line(char *out, size_t size,
			      const char *const cell[C_N],
			      const bool shown[C_N], bool wide)
{
	size_t n = 0;
	int i, last = -1;

	out[0] = '\0';
	for (i = 0; i < C_N; i++)
		if (shown[i])
			last = i;
	for (i = 0; i < C_N && n < size; i++) {
		int w = cols[i].width, p = wide ? INT32_MAX : w, k;

		if (!shown[i])
			continue;
		if (i == last && cols[i].left) {
			w = 0; /* no trailing blanks, nothing cut */
			p = INT32_MAX;
		}
		k = snprintf(out + n, size - n,
			     cols[i].left ? "%s%-*.*s" : "%s%*.*s",
			     n ? " " : "", w, p, cell[i]);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	return out;
}

/**
 * header_cols() - the table's header line
 * @out:	filled
 * @size:	its size
 * @width:	screen width, 0 for every column (batch)
 *
 * Return: @out
 */
static const char *header_cols(char *out, size_t size, int width)
{
	const char *cell[C_N];
	bool shown[C_N];
	int i;

	for (i = 0; i < C_N; i++)
		cell[i] = cols[i].name;
	cols_fit(width, shown);
	return cells_line(out, size, cell, shown, !width);
}

/**
 * row_text() - one flow as a line of the table
 * @out:	filled
 * @size:	its size
 * @r:		row
 * @width:	screen width, 0 for every column, none cut (batch)
 *
 * Return: @out
 */
static const char *row_text(char *out, size_t size, const struct row *r,
			    int width)
{
	char r0[32], r1[32], b0[32], b1[32], age[32], idle[32], rtt[32];
	const char *cell[C_N];
	bool shown[C_N];

	cell[C_KIND] = r->kind;
	cell[C_GUEST] = r->guest;
	cell[C_REMOTE] = r->remote;
	cell[C_HOST] = r->host;
	cell[C_STATE] = jstr(r->f, "state");
	cell[C_OUT_RATE] = rate_text(r0, sizeof(r0), r->has_rate, r->rate[0]);
	cell[C_IN_RATE] = rate_text(r1, sizeof(r1), r->has_rate, r->rate[1]);
	cell[C_OUT] = rate_text(b0, sizeof(b0), r->bytes[0] >= 0, r->bytes[0]);
	cell[C_IN] = rate_text(b1, sizeof(b1), r->bytes[1] >= 0, r->bytes[1]);
	cell[C_AGE] = ms_text(age, sizeof(age), r->age_ms);
	cell[C_IDLE] = ms_text(idle, sizeof(idle), r->idle_ms);
	cell[C_RTT] = rtt_text(rtt, sizeof(rtt), r->rtt_us);
	cell[C_LIMIT] = jstr(r->f, "limited_by");
	cols_fit(width, shown);
	return cells_line(out, size, cell, shown, !width);
}

/**
 * header_lines() - the two lines of the header: the instance, the totals
 * @t:		state
 * @l1:		filled: first line
 * @l2:		filled: second line
 * @size:	size of each
 */
static void header_lines(const struct top *t, char *l1, char *l2, size_t size)
{
	const json_t *v = t->cur.ver;
	char pid[24], up[24], fl[24], b0[16], b1[16], r0[16], r1[16], dr[24];
	const json_t *ms = json_object_get(v, "uptime_ms");

	if (json_is_integer(ms))
		inst_duration(up, sizeof(up),
			      (unsigned long long)json_integer_value(ms));
	else
		strcpy(up, "-");
	snprintf(l1, size,
		 "slipway %s  pid %s  mode %s  edge %s  guest %s  name %s  "
		 "up %s  sort %s%s%s%s",
		 jstr(v, "version"),
		 inst_int_text(pid, sizeof(pid), v, "pid", false),
		 jstr(v, "mode"), jstr(v, "edge"), jstr(v, "guest"),
		 jstr(v, "name"), up, sort_names[t->sort],
		 t->filter[0] ? "  filter " : "", t->filter,
		 t->paused ? "  [paused]" : "");
	snprintf(l2, size,
		 "flows %s  from guest %s (%s/s)  to guest %s (%s/s)  "
		 "drops %s%s",
		 inst_int_text(fl, sizeof(fl), v, "flows", false),
		 inst_int_text(b0, sizeof(b0), v, "bytes_from_guest", true),
		 rate_text(r0, sizeof(r0), t->cur.has_rate, t->cur.rate[0]),
		 inst_int_text(b1, sizeof(b1), v, "bytes_to_guest", true),
		 rate_text(r1, sizeof(r1), t->cur.has_rate, t->cur.rate[1]),
		 inst_int_text(dr, sizeof(dr), v, "drops", false),
		 json_is_true(json_object_get(t->cur.flows, "truncated")) ?
			 "  (flow list truncated)" :
			 "");
}

/**
 * print_text() - a snapshot as text (-b)
 * @t:		state
 */
static void print_text(const struct top *t)
{
	char l1[1024], l2[1024], line[1024];
	size_t i;

	header_lines(t, l1, l2, sizeof(l1));
	printf("%s\n%s\n\n%s\n", l1, l2, header_cols(line, sizeof(line), 0));
	for (i = 0; i < t->cur.nrows; i++)
		if (row_match(t, &t->cur.rows[i]))
			printf("%s\n", row_text(line, sizeof(line),
						&t->cur.rows[i], 0));
}

/**
 * moved_counters() - the counters that moved since the previous snapshot
 * @t:		state
 *
 * Return: new object: name -> difference (empty without a previous one)
 */
static json_t *moved_counters(const struct top *t)
{
	const json_t *c = json_object_get(t->cur.stats, "counters"),
		     *p = json_object_get(t->prev.stats, "counters"), *v;
	json_t *o = json_object();
	const char *key;

	if (!p)
		return o;
	json_object_foreach((json_t *)c, key, v)
	{
		json_int_t d = json_integer_value(v) -
			       json_integer_value(json_object_get(p, key));

		if (d)
			json_object_set_new(o, key, json_integer(d));
	}
	return o;
}

/**
 * print_json() - a snapshot as one line of JSON (--json)
 * @t:		state
 */
static void print_json(const struct top *t)
{
	json_t *st, *fl = json_array(), *doc;
	char *s;
	size_t i;

	st = json_pack(
		"{s:O?, s:O?, s:O?, s:O?, s:o, s:O?, s:b}", "bytes_from_guest",
		json_object_get(t->cur.ver, "bytes_from_guest"),
		"bytes_to_guest", json_object_get(t->cur.ver, "bytes_to_guest"),
		"drops", json_object_get(t->cur.ver, "drops"), "flows",
		json_object_get(t->cur.ver, "flows"), "moved",
		moved_counters(t), "uptime_ms",
		json_object_get(t->cur.stats, "uptime_ms"), "truncated",
		json_is_true(json_object_get(t->cur.flows, "truncated")));
	if (st) {
		json_object_set_new(st, "rate_from_guest",
				    t->cur.has_rate ?
					    json_real(t->cur.rate[0]) :
					    json_null());
		json_object_set_new(st, "rate_to_guest",
				    t->cur.has_rate ?
					    json_real(t->cur.rate[1]) :
					    json_null());
	}
	for (i = 0; i < t->cur.nrows; i++)
		if (row_match(t, &t->cur.rows[i]))
			json_array_append(fl, t->cur.rows[i].f);
	doc = json_pack("{s:f, s:O, s:o?, s:o, s:s}", "time", t->cur.wall,
			"instance", t->cur.ver, "stats", st, "flows", fl,
			"sort", sort_names[t->sort]);
	s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	if (s)
		puts(s);
	fflush(stdout);
	free(s);
	json_decref(doc);
}

/**
 * sleep_s() - sleep, unless a signal asks to stop
 * @s:		seconds
 */
static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (double)(time_t)s) *
						 1e9) };

	while (!top_stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/**
 * top_batch() - -b or --json: N snapshots on stdout
 * @t:		state
 *
 * Return: 0, or 1 if the instance went away
 */
static int top_batch(struct top *t)
{
	long i;

	for (i = 0; !t->count || i < t->count; i++) {
		if (i)
			sleep_s(t->delay);
		if (top_stop)
			return 0;
		if (top_fetch(t)) {
			top_failed(t, !i);
			return 1;
		}
		if (t->json) {
			print_json(t);
		} else {
			if (i)
				putchar('\n');
			print_text(t);
			fflush(stdout);
		}
	}
	return 0;
}

/**
 * struct moved - a counter that moved, for the counters view
 * @name:	its name
 * @delta:	how much
 */
struct moved {
	const char *name;
	long long delta;
};

/**
 * moved_cmp() - largest move first, then by name
 * @a:	one
 * @b:	another
 *
 * Return: <0, 0, >0
 */
static int moved_cmp(const void *a, const void *b)
{
	const struct moved *x = a, *y = b;
	long long ax = llabs(x->delta), ay = llabs(y->delta);

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->name, y->name);
}

/**
 * draw_counters() - the counters view: what moved in the last interval,
 * the largest first
 * @t:		state
 * @y:		first line
 */
static void draw_counters(struct top *t, int y)
{
	json_t *m = moved_counters(t), *v;
	const json_t *c = json_object_get(t->cur.stats, "counters");
	double dt = t->prev.ver ? t->cur.mono - t->prev.mono : 0;
	struct moved *list = calloc(json_object_size(m) + 1, sizeof(*list));
	const char *key;
	size_t n = 0, i;

	attron(A_REVERSE);
	mvprintw(y++, 0, "%-40s %16s %14s %20s", "COUNTER (moved)", "DELTA",
		 "PER_SEC", "TOTAL");
	attroff(A_REVERSE);
	json_object_foreach(m, key, v)
	{
		if (!list)
			break;
		list[n].name = key;
		list[n++].delta = (long long)json_integer_value(v);
	}
	if (n)
		qsort(list, n, sizeof(*list), moved_cmp);
	for (i = (size_t)t->offset; i < n && y < LINES; i++)
		mvprintw(y++, 0, "%-40s %16lld %14.0f %20lld", list[i].name,
			 list[i].delta,
			 dt > 0 ? (double)list[i].delta / dt : 0.0,
			 (long long)json_integer_value(
				 json_object_get(c, list[i].name)));
	if (!n)
		mvprintw(y, 0, "%s",
			 t->prev.ver ? "(no counter moved)" :
				       "(after the next refresh)");
	free(list);
	json_decref(m);
}

/**
 * draw() - the screen
 * @t:		state
 */
static void draw(struct top *t)
{
	char l1[1024], l2[1024], line[1024];
	size_t i;
	int y = 4, skip = t->offset, shown = 0;

	erase();
	header_lines(t, l1, l2, sizeof(l1));
	mvaddnstr(0, 0, l1, COLS);
	mvaddnstr(1, 0, l2, COLS);
	mvaddnstr(2, 0,
		  "q quit  s sort  < > sort  p pause  / filter  c counters  "
		  "h help",
		  COLS);
	if (t->counters) {
		draw_counters(t, 3);
		refresh();
		return;
	}
	attron(A_REVERSE);
	mvaddnstr(3, 0, header_cols(line, sizeof(line), COLS), COLS);
	attroff(A_REVERSE);
	for (i = 0; i < t->cur.nrows; i++) {
		if (!row_match(t, &t->cur.rows[i]))
			continue;
		shown++;
		if (skip) {
			skip--;
			continue;
		}
		if (y < LINES)
			mvaddnstr(y++, 0,
				  row_text(line, sizeof(line), &t->cur.rows[i],
					   COLS),
				  COLS);
	}
	if (!shown)
		mvaddnstr(4, 0,
			  t->filter[0] ? "(no flow matches the filter)" :
					 "(no flows)",
			  COLS);
	refresh();
}

/**
 * draw_help() - the keys, until a key is pressed
 */
static void draw_help(void)
{
	static const char *const lines[] = {
		"slipway top: keys",
		"",
		"  q          quit",
		"  s          next sort key (rate, bytes, age, rtt)",
		"  < >        previous / next sort key",
		"  arrows     scroll a line; PgUp PgDn a page; Home End",
		"  p          pause / resume the refresh",
		"  / or f     filter by port or address text (empty clears)",
		"  c          counters that moved in the last interval",
		"  h or ?     this help",
		"",
		"OUT: from the guest; IN: to the guest; /s: per second.",
		"RTT: the guest's (measured by slipway), else the host",
		"socket's. LIMITED_BY: what holds a TCP flow back.",
		"",
		"Press any key.",
	};
	size_t i;

	erase();
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mvaddnstr((int)i, 2, lines[i], COLS - 2);
	refresh();
	timeout(-1);
	while (getch() == ERR && !top_stop)
		;
}

/**
 * read_filter() - read the filter text on the status line
 * @t:		state
 */
static void read_filter(struct top *t)
{
	char buf[sizeof(t->filter)] = "";

	move(2, 0);
	clrtoeol();
	mvaddstr(2, 0, "filter (port or address, empty clears): ");
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(buf, sizeof(buf) - 1) != ERR && !top_stop)
		strcpy(t->filter, buf);
	noecho();
	curs_set(0);
	t->offset = 0;
}

/**
 * top_key() - act on a key
 * @t:		state
 * @ch:		key
 *
 * Return: true to quit
 */
static bool top_key(struct top *t, int ch)
{
	int page = LINES > 6 ? LINES - 5 : 1;

	switch (ch) {
	case 'q':
	case 'Q':
		return true;
	case 's':
	case '>':
		t->sort = (t->sort + 1) % SORT_N;
		top_resort(t);
		break;
	case '<':
		t->sort = (t->sort + SORT_N - 1) % SORT_N;
		top_resort(t);
		break;
	case 'p':
		t->paused = !t->paused;
		break;
	case 'c':
		t->counters = !t->counters;
		t->offset = 0;
		break;
	case 'h':
	case '?':
		draw_help();
		break;
	case '/':
	case 'f':
		read_filter(t);
		break;
	case KEY_DOWN:
		t->offset++;
		break;
	case KEY_UP:
		t->offset = t->offset ? t->offset - 1 : 0;
		break;
	case KEY_NPAGE:
		t->offset += page;
		break;
	case KEY_PPAGE:
		t->offset = t->offset > page ? t->offset - page : 0;
		break;
	case KEY_HOME:
		t->offset = 0;
		break;
	case KEY_END:
		t->offset = (int)t->cur.nrows > page ?
				    (int)t->cur.nrows - page :
				    0;
		break;
	default:
		break;
	}
	if (t->offset > (int)t->cur.nrows)
		t->offset = (int)t->cur.nrows;
	return false;
}

/**
 * screen_start() - ncurses on, keys unbuffered and unechoed
 */
static void screen_start(void)
{
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
}

/**
 * top_screen() - the live view
 * @t:		state
 *
 * Return: 0 (q, -n, a signal), or 1 when the instance went away
 */
static int top_screen(struct top *t)
{
	long shown = 1;
	double next;
	int ret = 0;

	if (top_fetch(t)) {
		top_failed(t, true);
		return 1;
	}
	next = now(CLOCK_MONOTONIC) + t->delay;
	screen_start();
	for (;;) {
		double left;
		int ch;

		if (top_stop)
			break;
		if (!t->paused && now(CLOCK_MONOTONIC) >= next) {
			if (t->count && shown >= t->count)
				break;
			if (top_fetch(t)) {
				ret = 1;
				break;
			}
			shown++;
			next = now(CLOCK_MONOTONIC) + t->delay;
		}
		draw(t);
		left = next - now(CLOCK_MONOTONIC);
		timeout(t->paused ? 1000 :
			left > 0  ? (int)(left * 1000) + 1 :
				    0);
		ch = getch();
		if (ch != ERR && top_key(t, ch))
			break;
	}
	endwin();
	if (ret)
		top_failed(t, false);
	return ret;
}

/**
 * pick() - choose one of several instances (arrows, Enter; q: none)
 * @v:		the instances
 * @n:		how many
 *
 * Return: index, or -1
 */
static int pick(const struct inst *v, size_t n)
{
	int sel = 0, ret = -1;
	size_t i, first;

	screen_start();
	while (!top_stop) {
		int ch;

		erase();
		mvaddnstr(0, 0,
			  "Several slipway instances run: pick one (arrows, "
			  "Enter; q quits)",
			  COLS);
		/* the selection stays on the screen: the list scrolls */
		first = sel >= LINES - 2 ? (size_t)(sel - (LINES - 3)) : 0;
		for (i = first; i < n && (int)(i - first) + 2 < LINES; i++) {
			const json_t *r = v[i].version;
			char line[512];

			snprintf(line, sizeof(line),
				 "%-8ld %-11s %-12s %-32s %s", v[i].pid,
				 jstr(r, "mode"), jstr(r, "edge"),
				 jstr(r, "guest"), jstr(r, "name"));
			if ((int)i == sel)
				attron(A_REVERSE);
			mvaddnstr((int)(i - first) + 2, 0, line, COLS);
			if ((int)i == sel)
				attroff(A_REVERSE);
		}
		refresh();
		timeout(1000);
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
		if (ch == KEY_UP && sel > 0)
			sel--;
		if (ch == KEY_DOWN && sel + 1 < (int)n)
			sel++;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
			ret = sel;
			break;
		}
	}
	endwin();
	return ret;
}

/**
 * top_args() - read the command line
 * @t:		filled
 * @argc:	arguments after "slipway"
 * @argv:	"top", options
 * @target:	filled: PID or PATH, or NULL
 *
 * Return: -1 to go on, else the exit status (0 after --help, 2 on bad
 * usage, reported)
 */
static int top_args(struct top *t, int argc, char **argv, const char **target)
{
	bool has_n = false;
	int i;

	*target = NULL;
	t->delay = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(top_usage, stdout);
			return 0;
		} else if (!strcmp(a, "-b")) {
			t->batch = true;
		} else if (!strcmp(a, "--json")) {
			t->json = true;
		} else if ((!strcmp(a, "-n") || !strcmp(a, "-d") ||
			    !strcmp(a, "-s")) &&
			   i + 1 < argc) {
			const char *v = argv[++i];

			errno = 0;
			if (a[1] == 'n') {
				t->count = strtol(v, &end, 10);
				if (errno || *end || t->count < 1 ||
				    t->count > 1000000000)
					goto bad;
				has_n = true;
			} else if (a[1] == 'd') {
				t->delay = strtod(v, &end);
				if (errno || *end || !(t->delay >= 0.1) ||
				    t->delay > 3600)
					goto bad;
			} else {
				int k;

				for (k = 0; k < SORT_N; k++)
					if (!strcmp(v, sort_names[k]))
						break;
				if (!strcmp(v, "throughput"))
					k = SORT_RATE;
				if (k == SORT_N)
					goto bad;
				t->sort = (enum top_sort)k;
			}
			continue;
		bad:
			fprintf(stderr,
				"slipway top: bad %s '%s' (-n: 1 or more; -d: "
				"0.1 to 3600 seconds; -s: rate, bytes, age or "
				"rtt)\n",
				a, v);
			return 2;
		} else if (a[0] == '-') {
			fprintf(stderr,
				"slipway top: unknown option or missing value: "
				"'%s'\n%s",
				a, top_usage);
			return 2;
		} else if (!*target) {
			*target = a;
		} else {
			fprintf(stderr, "slipway top: one PID or PATH only\n");
			return 2;
		}
	}
	if (t->json)
		t->batch = true;
	if (t->batch && !has_n)
		t->count = 1;
	return -1;
}

/**
 * top_choose() - the control socket to watch: the argument's, the only
 * instance's, or one picked from a list
 * @t:		state (@path filled)
 * @target:	PID or PATH, or NULL
 *
 * Return: -1 to go on, else the exit status (reported)
 */
static int top_choose(struct top *t, const char *target)
{
	char dir[4096];
	struct inst *v;
	size_t n, i;
	int k;

	inst_rundir(dir, sizeof(dir));
	if (target) {
		if (inst_resolve(target, dir, t->path, sizeof(t->path))) {
			fprintf(stderr, "slipway top: path too long\n");
			return 2;
		}
		return -1;
	}
	n = inst_scan(dir, &v);
	if (!n) {
		fprintf(stderr,
			"slipway top: no running slipway found in %s; "
			"instances started with --ctl none are not listed "
			"(slipway top PATH reads a --ctl PATH)\n",
			dir);
		return 1;
	}
	if (n == 1) {
		strcpy(t->path, v[0].path);
		inst_free(v, n);
		return -1;
	}
	if (t->batch) {
		fprintf(stderr,
			"slipway top: %zu instances run; name one (PID or "
			"PATH):\n",
			n);
		for (i = 0; i < n; i++)
			fprintf(stderr, "  %ld  %s  %s\n", v[i].pid,
				jstr(v[i].version, "guest"), v[i].path);
		inst_free(v, n);
		return 2;
	}
	k = pick(v, n);
	if (k >= 0)
		strcpy(t->path, v[k].path);
	inst_free(v, n);
	return k >= 0 ? -1 : 0;
}

/**
 * ctl_top_main() - slipway top [PID|PATH] [-b] [-n N] [-d S] [--json]
 * [-s KEY]
 * @argc:	arguments after "slipway"
 * @argv:	"top", options
 *
 * Context: a client process (no sandbox)
 * #syscalls:setup rt_sigaction nanosleep clock_gettime
 * Return: exit status: 0, 1 (no instance or it went away), 2 (bad usage)
 */
int ctl_top_main(int argc, char **argv)
{
	static struct top t;
	struct sigaction sa = { .sa_handler = top_signal };
	const char *target;
	int ret;

	ret = top_args(&t, argc, argv, &target);
	if (ret >= 0)
		return ret;
	if (!t.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "slipway top: not a terminal; use -b (text) "
				"or --json for a pipe\n");
		return 2;
	}
	/* ncursesw draws UTF-8 names as such (else as M- escapes) */
	setlocale(LC_CTYPE, "");
	/* no SA_RESTART: getch() and nanosleep() return at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = top_choose(&t, target);
	if (ret >= 0)
		return ret;
	if (t.batch)
		ret = top_batch(&t);
	else
		ret = top_screen(&t);
	snap_free(&t.cur);
	snap_free(&t.prev);
	return ret;
}
