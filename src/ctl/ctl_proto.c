/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_proto.c - the control API's messages: request parser, reply builders
 *
 * Requests and replies are JSON objects (jansson builds and parses them;
 * the man page's CONTROL API section is the schema). No system calls.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_proto.h"
#include "util/ctr.h"
#include "util/util.h"

const char *const ctl_cmd_names[] = {
	[CTL_CMD_STATS] = "stats",
	[CTL_CMD_FLOWS] = "flows",
	[CTL_CMD_VERSION] = "version",
	[CTL_CMD_FORWARDS] = "forwards",
};
_Static_assert(ARRAY_SIZE(ctl_cmd_names) == CTL_CMD_NUM,
	       "ctl_cmd_names must name every command");

/* quantiles in replies: key and value */
static const struct {
	const char *key;
	const char *label;
	double q;
} quants[] = {
	{ "p50", "0.5", 0.5 },
	{ "p90", "0.9", 0.9 },
	{ "p99", "0.99", 0.99 },
	{ "p99_9", "0.999", 0.999 },
};

/**
 * ctl_fwd_parse() - the members of a forwards request
 * @j:		request object
 * @r:		request (op, rules or id filled)
 * @why:	the error message on failure
 * @why_len:	size of @why
 *
 * add: "proto" ("tcp" or "udp"), "spec" ("[ADDR/]PORT[-END][:GUESTPORT[-END]]",
 * as -t, at most CTL_FWD_RANGE_MAX ports), "guest_addr" (optional).
 * remove: "id". list: nothing else.
 *
 * Return: 0, or -1 with @why set
 */
static int ctl_fwd_parse(json_t *j, struct ctl_req *r, char *why,
			 size_t why_len)
{
	static const char *const ops[] = { [CTL_FWD_LIST] = "list",
					   [CTL_FWD_ADD] = "add",
					   [CTL_FWD_REMOVE] = "remove" };
	json_t *opv = json_object_get(j, "op"), *idv = json_object_get(j, "id");
	const char *op = opv ? json_string_value(opv) : "list";
	const char *proto = json_string_value(json_object_get(j, "proto"));
	const char *spec = json_string_value(json_object_get(j, "spec"));
	json_t *gav = json_object_get(j, "guest_addr");
	struct fwd_rule rule = { 0 };
	struct fwd_spec f;
	const char *fwhy = "";
	unsigned i, p;

	for (i = 0; op && i < CTL_FWD_OP_NUM; i++)
		if (!strcmp(op, ops[i]))
			break;
	if (!op || i == CTL_FWD_OP_NUM) {
		snprintf(why, why_len,
			 "\"op\" must be \"list\", \"add\" or \"remove\"");
		return -1;
	}
	r->op = i;
	if ((r->op != CTL_FWD_ADD && (json_object_get(j, "proto") ||
				      json_object_get(j, "spec") || gav)) ||
	    (r->op != CTL_FWD_REMOVE && idv)) {
		snprintf(why, why_len,
			 "forwards %s: members of another operation given "
			 "(add: proto, spec, guest_addr; remove: id)",
			 ops[r->op]);
		return -1;
	}
	if (r->op == CTL_FWD_REMOVE) {
		json_int_t id = json_is_integer(idv) ? json_integer_value(idv) :
						       0;

		if (id < 1 || id > INT32_MAX) {
			snprintf(why, why_len,
				 "forwards remove: \"id\" must be a positive "
				 "integer");
			return -1;
		}
		r->id = (unsigned)id;
		return 0;
	}
	if (r->op == CTL_FWD_LIST)
		return 0;
	if (!proto || (strcmp(proto, "tcp") && strcmp(proto, "udp"))) {
		snprintf(why, why_len,
			 "forwards add: \"proto\" must be \"tcp\" or \"udp\"");
		return -1;
	}
	if (!spec || fwd_spec_parse(spec, &f, &fwhy)) {
		snprintf(why, why_len,
			 "forwards add: bad \"spec\"%s%s; expected "
			 "[ADDR/]PORT[-END][:GUESTPORT[-END]]",
			 spec ? ": " : " (missing)", spec ? fwhy : "");
		return -1;
	}
	if (f.last - f.first >= CTL_FWD_RANGE_MAX) {
		snprintf(why, why_len, "forwards add: at most %u ports at once",
			 CTL_FWD_RANGE_MAX);
		return -1;
	}
	rule.proto = strcmp(proto, "tcp") ? IPPROTO_UDP : IPPROTO_TCP;
	rule.host_family = f.family;
	rule.host_addr = f.addr;
	if (f.family == AF_INET) { /* fwd_spec keeps IPv4 at 12..15 only */
		memset(&rule.host_addr, 0, 10);
		rule.host_addr.s6_addr[10] = rule.host_addr.s6_addr[11] = 0xff;
	}
	memcpy(rule.ifname, f.ifname, sizeof(rule.ifname));
	if (f.to_family != AF_UNSPEC) { /* PORT:TOADDR/GUESTPORT */
		rule.guest_addr = f.to_addr;
		if (f.to_family == AF_INET)
			rule.guest_addr.s6_addr[10] =
				rule.guest_addr.s6_addr[11] = 0xff;
		rule.guest_set = true;
	}
	if (gav) {
		const char *ga = json_string_value(gav);

		if (ga &&
		    inet_pton(AF_INET, ga, &rule.guest_addr.s6_addr[12]) == 1) {
			rule.guest_addr.s6_addr[10] =
				rule.guest_addr.s6_addr[11] = 0xff;
		} else if (!ga ||
			   inet_pton(AF_INET6, ga, &rule.guest_addr) != 1) {
			snprintf(why, why_len,
				 "forwards add: \"guest_addr\" must be an IPv4 "
				 "or IPv6 address");
			return -1;
		}
		rule.guest_set = true;
	}
	for (p = f.first; p <= f.last; p++) {
		rule.host_port = (uint16_t)p;
		rule.guest_port = (uint16_t)(f.guest_first + (p - f.first));
		r->rules[r->nrules++] = rule;
	}
	return 0;
}

/**
 * ctl_req_parse() - parse one request
 * @buf:	bytes (not NUL-terminated; may hold NULs)
 * @len:	length, at most CTL_REQ_MAX
 * @r:		result
 * @why:	the error message on failure
 * @why_len:	size of @why
 *
 * Return: 0, or -1 with @why set
 */
int ctl_req_parse(const char *buf, size_t len, struct ctl_req *r, char *why,
		  size_t why_len)
{
	json_error_t jerr;
	json_t *j, *v;
	const char *key, *cmd;
	unsigned i;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->limit = CTL_FLOWS_LIMIT_DEFAULT;
	if (len > CTL_REQ_MAX) {
		snprintf(why, why_len, "request too large (at most %u bytes)",
			 CTL_REQ_MAX);
		return -1;
	}
	j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!j) {
		snprintf(why, why_len, "malformed JSON: %s (at byte %d)",
			 jerr.text, jerr.position);
		return -1;
	}
	if (!json_is_object(j)) {
		snprintf(
			why, why_len,
			"a request is a JSON object, e.g. {\"cmd\":\"stats\"}");
		goto out;
	}
	cmd = json_string_value(json_object_get(j, "cmd"));
	if (!cmd) {
		snprintf(why, why_len, "no \"cmd\" string in the request");
		goto out;
	}
	for (i = 0; i < CTL_CMD_NUM; i++)
		if (!strcmp(cmd, ctl_cmd_names[i]))
			break;
	if (i == CTL_CMD_NUM) {
		snprintf(why, why_len,
			 "unknown command \"%.64s\" (stats, flows, version, "
			 "forwards)",
			 cmd);
		goto out;
	}
	r->cmd = i;
	json_object_foreach(j, key, v)
	{
		if (!strcmp(key, "cmd"))
			continue;
		if (r->cmd == CTL_CMD_FLOWS && !strcmp(key, "limit")) {
			json_int_t n = json_is_integer(v) ?
					       json_integer_value(v) :
					       -1;

			if (n < 0 || n > CTL_FLOWS_LIMIT_MAX) {
				snprintf(why, why_len,
					 "\"limit\" must be an integer from 0 "
					 "to %u",
					 CTL_FLOWS_LIMIT_MAX);
				goto out;
			}
			r->limit = (unsigned)n;
			continue;
		}
		if (r->cmd == CTL_CMD_FORWARDS &&
		    (!strcmp(key, "op") || !strcmp(key, "proto") ||
		     !strcmp(key, "spec") || !strcmp(key, "guest_addr") ||
		     !strcmp(key, "id")))
			continue; /* ctl_fwd_parse() */
		snprintf(why, why_len,
			 "unknown member \"%.64s\" for command \"%s\"", key,
			 ctl_cmd_names[r->cmd]);
		goto out;
	}
	if (r->cmd == CTL_CMD_FORWARDS && ctl_fwd_parse(j, r, why, why_len))
		goto out;
	ret = 0;
out:
	json_decref(j);
	return ret;
}

/**
 * ctl_reply_error() - {"error": MESSAGE}
 * @msg:	message
 *
 * A message quotes what the client sent (an unknown command or member,
 * cut at 64 bytes): bytes outside printable ASCII become '?', so that a
 * cut UTF-8 sequence or a control byte cannot make it invalid JSON (a
 * string jansson refuses: the fuzzer's find).
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_error(const char *msg)
{
	char clean[256];

	snprintf(clean, sizeof(clean), "%s", msg);
	ctl_printable(clean);
	return json_pack("{s:s}", "error", clean);
}

/**
 * ctl_printable() - make text safe to quote in a JSON reply: every byte
 * outside printable ASCII becomes '?'
 * @s:		text, changed in place
 */
void ctl_printable(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			*s = '?';
}

/**
 * rd() - a relaxed load of a counter another thread writes
 * @p:	counter
 *
 * Return: value
 */
static uint64_t rd(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/**
 * jint() - a JSON integer from a counter (values past 2^63 saturate)
 * @v:	value
 *
 * Return: new JSON integer
 */
static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX :
						      (json_int_t)v);
}

/**
 * hist_json() - a histogram's summary
 * @h:	merged histogram
 *
 * Return: new JSON object: count, sum, min, p50, p90, p99, p99_9, max
 */
static json_t *hist_json(const struct hist *h)
{
	json_t *o = json_object();
	unsigned i;

	if (!o)
		return NULL;
	json_object_set_new(o, "count", jint(h->count));
	json_object_set_new(o, "sum", jint(h->sum));
	json_object_set_new(o, "min", jint(h->count ? h->min : 0));
	for (i = 0; i < ARRAY_SIZE(quants); i++)
		json_object_set_new(o, quants[i].key,
				    jint(hist_quantile(h, quants[i].q)));
	json_object_set_new(o, "max", jint(h->max));
	return o;
}

/**
 * ctl_reply_stats() - every counter, summed and per shard, and histograms
 * @s:		source
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_stats(const struct ctl_stats_src *s)
{
	json_t *o = ctl_reply_version(s), *sum = json_object(),
	       *shards = json_array(), *hists = json_object();
	struct hist *tot = calloc(HIST_ID_NUM, sizeof(*tot)),
		    *one = malloc(sizeof(*one));
	unsigned i, k;

	if (!o || !sum || !shards || !hists || !tot || !one)
		goto fail;
	for (k = 0; k < HIST_ID_NUM; k++)
		hist_init(&tot[k]);
	for (i = 0; i < CTR_NUM; i++) {
		uint64_t v = 0;

		for (k = 0; k < s->nshards; k++)
			v += rd(&s->ctr[k][i]);
		json_object_set_new(sum, ctr_names[i], jint(v));
	}
	for (k = 0; k < s->nshards; k++) {
		json_t *sh = json_object(), *c = json_object(),
		       *hs = json_object();

		if (!sh || !c || !hs) {
			json_decref(sh);
			json_decref(c);
			json_decref(hs);
			goto fail;
		}
		for (i = 0; i < CTR_NUM; i++)
			json_object_set_new(c, ctr_names[i],
					    jint(rd(&s->ctr[k][i])));
		for (i = 0; i < HIST_ID_NUM; i++) {
			hist_init(one);
			hist_merge(one, &s->hist[k][i]);
			hist_merge(&tot[i], one);
			json_object_set_new(hs, hist_names[i], hist_json(one));
		}
		json_object_set_new(sh, "shard", json_integer(k));
		json_object_set_new(sh, "queue", json_integer(s->queue[k]));
		json_object_set_new(sh, "counters", c);
		json_object_set_new(sh, "histograms", hs);
		json_array_append_new(shards, sh);
	}
	for (i = 0; i < HIST_ID_NUM; i++)
		json_object_set_new(hists, hist_names[i], hist_json(&tot[i]));
	json_object_set_new(o, "uptime_ms", jint(s->uptime_ms));
	json_object_set_new(o, "counters", sum);
	json_object_set_new(o, "histograms", hists);
	json_object_set_new(o, "shards", shards);
	free(tot);
	free(one);
	return o;
fail:
	json_decref(o);
	json_decref(sum);
	json_decref(shards);
	json_decref(hists);
	free(tot);
	free(one);
	return NULL;
}

/**
 * struct ctl_totals - what the version reply sums from the counters
 * @flows:	flows open now, every kind (the gauges, and the UDP ones'
 *		opened minus closed)
 * @from_guest:	EDGE_RX_BYTES
 * @to_guest:	EDGE_TX_BYTES
 * @drops:	the counters named *_DROP* or *_MALFORMED*
 */
struct ctl_totals {
	uint64_t flows;
	uint64_t from_guest;
	uint64_t to_guest;
	uint64_t drops;
};

/**
 * ctl_totals() - sum the counters for the version reply: cheap (one pass
 * over the counter arrays, no flow snapshot)
 * @s:		source (shards without counters are skipped)
 * @t:		filled
 */
static void ctl_totals(const struct ctl_stats_src *s, struct ctl_totals *t)
{
	static bool is_drop[CTR_NUM], is_drop_set;
	uint64_t v[CTR_NUM] = { 0 };
	int64_t udp, udpns;
	unsigned i, k;

	/* the names do not change: looked at once (the reply is built by
	 * one thread, the control thread; the fuzz target is another
	 * single thread) */
	if (!is_drop_set) {
		for (i = 0; i < CTR_NUM; i++)
			is_drop[i] = strstr(ctr_names[i], "_DROP") ||
				     strstr(ctr_names[i], "_MALFORMED");
		is_drop_set = true;
	}
	memset(t, 0, sizeof(*t));
	for (k = 0; k < s->nshards && k < SHARDS_MAX; k++) {
		if (!s->ctr[k])
			continue;
		for (i = 0; i < CTR_NUM; i++)
			v[i] += rd(&s->ctr[k][i]);
	}
	for (i = 0; i < CTR_NUM; i++)
		if (is_drop[i])
			t->drops += v[i];
	/* a flow may close on another shard than the one that opened it:
	 * the differences are taken of the sums, never below 0 */
	udp = (int64_t)(v[CTR_UDP_FLOWS_OPENED] -
			(v[CTR_UDP_FLOWS_EXPIRED] +
			 v[CTR_UDP_FLOWS_GUEST_GONE] +
			 v[CTR_UDP_FLOWS_UNPUBLISHED]));
	udpns = (int64_t)(v[CTR_UDPNS_FLOWS_OPENED] -
			  v[CTR_UDPNS_FLOWS_EXPIRED]);
	t->flows = v[CTR_TCP_FLOWS_ACTIVE] + v[CTR_SPLICE_ACTIVE] +
		   (uint64_t)(udp > 0 ? udp : 0) +
		   (uint64_t)(udpns > 0 ? udpns : 0);
	t->from_guest = v[CTR_EDGE_RX_BYTES];
	t->to_guest = v[CTR_EDGE_TX_BYTES];
}

/**
 * ctl_reply_version() - version, edge, shards; who we are and the totals
 * @s:		source
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_version(const struct ctl_stats_src *s)
{
	struct ctl_totals t;

	ctl_totals(s, &t);
	return json_pack("{s:s, s:s, s:i, s:b, s:I, s:i, s:s, s:s, s:s, s:I, "
			 "s:I, s:I, s:I, s:I, s:I}",
			 "version", s->version, "edge", s->edge, "shards_n",
			 (int)s->nshards, "peek_offset", s->peek_off,
			 "max_flows", (json_int_t)s->max_flows, "pid", s->pid,
			 "mode", s->mode ? s->mode : "", "guest",
			 s->guest ? s->guest : "", "name",
			 s->name ? s->name : "", "uptime_ms",
			 (json_int_t)s->uptime_ms, "started_unix",
			 (json_int_t)s->started_unix, "flows",
			 (json_int_t)t.flows, "bytes_from_guest",
			 (json_int_t)t.from_guest, "bytes_to_guest",
			 (json_int_t)t.to_guest, "drops", (json_int_t)t.drops);
}

/**
 * addr_str() - an address as text: dotted quad for v4-mapped ones
 * @a:		16 bytes
 * @out:	buffer of INET6_ADDRSTRLEN bytes
 *
 * Return: @out
 */
static const char *addr_str(const uint8_t *a, char *out)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(a, v4mapped, 12))
		inet_ntop(AF_INET, a + 12, out, INET6_ADDRSTRLEN);
	else
		inet_ntop(AF_INET6, a, out, INET6_ADDRSTRLEN);
	return out;
}

/*
 * The flows reply as text
 * -----------------------
 * A flows reply can hold a million records, each of some forty members.
 * Built as jansson objects and dumped, 10,000 of them took the control
 * thread half a second (an object, a hash table and a copy of every key
 * per member); written straight as text they take a few milliseconds, and
 * the reply is byte for byte the compact JSON the objects would dump, in
 * the same member order. Every string written here is one of ours (an
 * inet_ntop() address or a fixed name): none needs escaping.
 */

/**
 * struct jtext - a growing text buffer
 * @p:		the text (not NUL-terminated until jt_end())
 * @len:	bytes used
 * @cap:	bytes allocated
 * @fail:	an allocation failed: the text is incomplete
 */
struct jtext {
	char *p;
	size_t len;
	size_t cap;
	bool fail;
};

/**
 * jt_room() - make room for @n more bytes
 * @t:		buffer
 * @n:		bytes
 *
 * Return: true if there is room
 */
static bool jt_room(struct jtext *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 4096;
	char *q;

	if (t->fail)
		return false;
	if (t->len + n <= t->cap)
		return true;
	while (cap < t->len + n)
		cap *= 2;
	q = realloc(t->p, cap);
	if (!q) {
		t->fail = true;
		return false;
	}
	t->p = q;
	t->cap = cap;
	return true;
}

/**
 * jt_raw() - append text as it is
 * @t:		buffer
 * @s:		text
 */
static void jt_raw(struct jtext *t, const char *s)
{
	size_t n = strlen(s);

	if (!jt_room(t, n))
		return;
	memcpy(t->p + t->len, s, n);
	t->len += n;
}

/**
 * jt_key() - a member's name: a comma first unless the object just opened
 * @t:		buffer
 * @key:	name
 */
static void jt_key(struct jtext *t, const char *key)
{
	if (t->len && t->p[t->len - 1] != '{' && t->p[t->len - 1] != '[')
		jt_raw(t, ",");
	jt_raw(t, "\"");
	jt_raw(t, key);
	jt_raw(t, "\":");
}

/**
 * jt_u64() - an integer member (values past 2^63 saturate, as jint())
 * @t:		buffer
 * @key:	name
 * @v:		value
 */
static void jt_u64(struct jtext *t, const char *key, uint64_t v)
{
	char d[24];
	size_t i = sizeof(d) - 1;

	if (v > (uint64_t)INT64_MAX)
		v = INT64_MAX;
	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jt_key(t, key);
	jt_raw(t, d + i);
}

/**
 * jt_str() - a string member (one of ours: no escaping), or null
 * @t:		buffer
 * @key:	name
 * @v:		value, or NULL for JSON null
 */
static void jt_str(struct jtext *t, const char *key, const char *v)
{
	jt_key(t, key);
	if (!v) {
		jt_raw(t, "null");
		return;
	}
	jt_raw(t, "\"");
	jt_raw(t, v);
	jt_raw(t, "\"");
}

/**
 * jt_addr() - an address member
 * @t:		buffer
 * @key:	name
 * @a:		16 bytes (IPv4 v4-mapped)
 */
static void jt_addr(struct jtext *t, const char *key, const uint8_t *a)
{
	char s[INET6_ADDRSTRLEN];

	jt_str(t, key, addr_str(a, s));
}

/**
 * flow_host_text() - the host socket's tuple of a flow record, or null
 * @t:		buffer
 * @r:		record
 */
static void flow_host_text(struct jtext *t, const struct flow_rec *r)
{
	jt_key(t, "host");
	if (!r->has_host) {
		jt_raw(t, "null");
		return;
	}
	jt_raw(t, "{");
	jt_addr(t, "local_addr", r->host.local_addr);
	jt_u64(t, "local_port", r->host.local_port);
	jt_addr(t, "peer_addr", r->host.peer_addr);
	jt_u64(t, "peer_port", r->host.peer_port);
	jt_raw(t, "}");
}

/**
 * flow_tcpi_text() - the host TCP socket's figures of a flow record, or
 * null when there were none (no host socket yet, or getsockopt() failed)
 * @t:		buffer
 * @r:		record
 */
static void flow_tcpi_text(struct jtext *t, const struct flow_rec *r)
{
	const struct flow_tcpi *i = &r->tcpi;

	jt_key(t, "tcp_info");
	if (!r->has_tcpi) {
		jt_raw(t, "null");
		return;
	}
	jt_raw(t, "{");
	jt_u64(t, "rtt_us", i->rtt_us);
	jt_u64(t, "rttvar_us", i->rttvar_us);
	jt_u64(t, "cwnd", i->cwnd);
	jt_u64(t, "retrans", i->retrans);
	jt_u64(t, "unacked", i->unacked);
	jt_u64(t, "send_queue", i->send_queue);
	jt_u64(t, "sndbuf", i->sndbuf);
	jt_raw(t, "}");
}

/**
 * flow_text() - one flow record
 * @t:		buffer
 * @r:		record
 *
 * The members of the first listings come first with their meaning
 * unchanged; "kind" says which table the record is from. Every record then
 * has payload bytes, segments (datagrams; spliced: splice() moves) and
 * rates each way, both times and the host side's tuple ("host", or
 * null); TCP flows of the core add the core's view of the guest (RTT,
 * resends, bytes in flight, its window), the host socket's TCP_INFO
 * ("tcp_info", or null) and the "limited_by" verdict. -U records keep
 * their payload byte members (from_guest_bytes, to_guest_bytes), and
 * spliced and -U ones their ns_port.
 */
static void flow_text(struct jtext *t, const struct flow_rec *r)
{
	static const char *const protos[] = { "tcp", "udp", "icmp", "icmpv6" };
	unsigned p = r->proto == IPPROTO_TCP  ? 0 :
		     r->proto == IPPROTO_UDP  ? 1 :
		     r->proto == IPPROTO_ICMP ? 2 :
						3;

	jt_raw(t, "{");
	jt_str(t, "proto", protos[p]);
	jt_str(t, "kind", flow_rec_kind_str(r));
	jt_u64(t, "shard", r->shard);
	jt_addr(t, "guest_addr", r->guest_addr);
	jt_u64(t, "guest_port", r->guest_port);
	jt_addr(t, "remote_addr", r->remote_addr);
	jt_u64(t, "remote_port", r->remote_port);
	jt_str(t, "state", flow_rec_state_str(r));
	jt_u64(t, "from_guest", r->from_guest);
	jt_u64(t, "to_guest", r->to_guest);
	if (r->kind == FLOW_KIND_UDPNS) {
		jt_u64(t, "from_guest_bytes", r->from_guest_bytes);
		jt_u64(t, "to_guest_bytes", r->to_guest_bytes);
	}
	if (r->ns_port)
		jt_u64(t, "ns_port", r->ns_port);
	jt_u64(t, "age_ms", r->age_ns / 1000000);
	jt_u64(t, "idle_ms", r->idle_ns / 1000000);
	jt_u64(t, "bytes_from_guest", r->bytes_from_guest);
	jt_u64(t, "bytes_to_guest", r->bytes_to_guest);
	jt_u64(t, "segs_from_guest", r->segs_from_guest);
	jt_u64(t, "segs_to_guest", r->segs_to_guest);
	jt_u64(t, "rate_from_guest", r->rate_from_guest);
	jt_u64(t, "rate_to_guest", r->rate_to_guest);
	flow_host_text(t, r);
	if (r->kind == FLOW_KIND_TCP) {
		jt_u64(t, "guest_rtt_us", r->guest_rtt_us);
		jt_u64(t, "resends", r->resends);
		jt_u64(t, "in_flight_to_guest", r->in_flight_to_guest);
		jt_u64(t, "guest_wnd", r->guest_wnd);
		flow_tcpi_text(t, r);
		jt_str(t, "limited_by", flow_rec_limit_str(r));
	}
	jt_raw(t, "}");
}

/**
 * ctl_reply_flows() - the flow records, as one line of compact JSON
 * @recs:	records
 * @n:		how many
 * @total:	flows there are (more than @n when truncated)
 * @len:	the text's length, newline included
 *
 * Return: the text, NUL-terminated and ending in a newline (caller
 *	   frees), or NULL without memory
 */
char *ctl_reply_flows(const struct flow_rec *recs, size_t n, size_t total,
		      size_t *len)
{
	struct jtext t = { 0 };
	size_t i;

	jt_raw(&t, "{\"flows\":[");
	for (i = 0; i < n; i++) {
		if (i)
			jt_raw(&t, ",");
		flow_text(&t, &recs[i]);
	}
	jt_raw(&t, "]");
	jt_u64(&t, "total", total);
	jt_raw(&t, n < total ? ",\"truncated\":true}\n" :
			       ",\"truncated\":false}\n");
	if (!jt_room(&t, 1)) {
		free(t.p);
		return NULL;
	}
	t.p[t.len] = '\0';
	*len = t.len;
	return t.p;
}

/**
 * addr_or_null() - an address as a JSON string, or null when unset
 * @set:	the address is meaningful
 * @a:		16 bytes (IPv4 v4-mapped)
 *
 * Return: new JSON value
 */
static json_t *addr_or_null(bool set, const struct in6_addr *a)
{
	char t[INET6_ADDRSTRLEN];

	return set ? json_string(addr_str(a->s6_addr, t)) : json_null();
}

/**
 * ctl_fwd_json() - one published port
 * @r:		the port, with its id
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_fwd_json(const struct fwd_rule *r)
{
	return json_pack(
		"{s:i, s:s, s:o, s:i, s:o, s:i, s:b}", "id", (int)r->id,
		"proto", r->proto == IPPROTO_TCP ? "tcp" : "udp", "host_addr",
		addr_or_null(r->host_family != AF_UNSPEC, &r->host_addr),
		"host_port", (int)r->host_port, "guest_addr",
		addr_or_null(r->guest_set, &r->guest_addr), "guest_port",
		(int)r->guest_port, "splice", r->splice);
}

/**
 * ctl_reply_forwards() - the published ports, and the -T ports of the
 * configuration
 * @rules:	published ports (fwd_list())
 * @n:		how many
 * @c:		configuration
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_forwards(const struct fwd_rule *rules, size_t n,
			   const struct conf *c)
{
	json_t *a = json_array(), *t = json_array();
	unsigned i, p;

	if (!a || !t) {
		json_decref(a);
		json_decref(t);
		return NULL;
	}
	for (i = 0; i < n; i++)
		json_array_append_new(a, ctl_fwd_json(&rules[i]));
	for (i = 0; i < c->nnsfwd; i++) {
		const struct fwd_spec *f = &c->nsfwd[i];

		if (f->flags & FWD_SPEC_AUTO)
			continue; /* followed at run time: not listed */
		for (p = f->first; p <= f->last; p++)
			json_array_append_new(
				t, json_pack("{s:i, s:i}", "guest_port", (int)p,
					     "host_port",
					     (int)(f->guest_first +
						   (p - f->first))));
	}
	return json_pack("{s:o, s:o}", "forwards", a, "ns_loopback", t);
}

/**
 * ctl_dump() - a reply as one line of compact JSON
 * @j:		reply (reference taken over: freed here), may be NULL
 * @len:	bytes of the result
 *
 * Return: malloc'ed text ending in a newline, or NULL without memory
 */
char *ctl_dump(json_t *j, size_t *len)
{
	char *s, *t;
	size_t n;

	if (!j)
		return NULL;
	s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!s)
		return NULL;
	n = strlen(s);
	t = realloc(s, n + 2);
	if (!t) {
		free(s);
		return NULL;
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	*len = n + 1;
	return t;
}

/**
 * metric_name() - "slipway_" and a counter's name in lower case
 * @out:	buffer
 * @size:	its size
 * @name:	counter name
 */
static void metric_name(char *out, size_t size, const char *name)
{
	size_t n = (size_t)snprintf(out, size, "slipway_");

	for (; *name && n + 1 < size; name++)
		out[n++] = (char)(*name >= 'A' && *name <= 'Z' ? *name + 32 :
								 *name);
	out[n] = '\0';
}

/**
 * metrics_text() - the Prometheus text exposition of counters and
 * histograms
 * @s:		source
 * @len:	bytes of the result
 *
 * Counters are slipway_<name>_total{shard="N"}, the "(gauge)" ones
 * slipway_<name>{shard="N"}; histograms are summaries per shard, the
 * batch latency in seconds.
 *
 * Return: malloc'ed text, or NULL without memory
 */
char *metrics_text(const struct ctl_stats_src *s, size_t *len)
{
	struct hist *h = malloc(sizeof(*h));
	char *buf = NULL, name[96];
	size_t size = 0;
	unsigned i, k, q;
	FILE *f;

	if (!h)
		return NULL;
	f = open_memstream(&buf, &size);
	if (!f) {
		free(h);
		return NULL;
	}
	fprintf(f,
		"# HELP slipway_info slipway's version and edge (always 1)\n"
		"# TYPE slipway_info gauge\n"
		"slipway_info{version=\"%s\",edge=\"%s\"} 1\n"
		"# HELP slipway_shards event-loop shards\n"
		"# TYPE slipway_shards gauge\n"
		"slipway_shards %u\n"
		"# HELP slipway_uptime_seconds time since slipway started\n"
		"# TYPE slipway_uptime_seconds gauge\n"
		"slipway_uptime_seconds %.3f\n",
		s->version, s->edge, s->nshards, (double)s->uptime_ms / 1000);
	for (i = 0; i < CTR_NUM; i++) {
		bool gauge = strstr(ctr_descs[i], "(gauge)") != NULL;

		metric_name(name, sizeof(name), ctr_names[i]);
		fprintf(f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name,
			gauge ? "" : "_total", ctr_descs[i], name,
			gauge ? "" : "_total", gauge ? "gauge" : "counter");
		for (k = 0; k < s->nshards; k++)
			fprintf(f, "%s%s{shard=\"%u\"} %llu\n", name,
				gauge ? "" : "_total", k,
				(unsigned long long)rd(&s->ctr[k][i]));
	}
	for (i = 0; i < HIST_ID_NUM; i++) {
		bool ns = i == HIST_BATCH_NS;
		double scale = ns ? 1e-9 : 1;

		snprintf(name, sizeof(name), "slipway_%s",
			 ns ? "edge_batch_seconds" : hist_names[i]);
		fprintf(f, "# HELP %s %s%s\n# TYPE %s summary\n", name,
			hist_descs[i], ns ? " (in seconds)" : "", name);
		for (k = 0; k < s->nshards; k++) {
			hist_init(h);
			hist_merge(h, &s->hist[k][i]);
			for (q = 0; q < ARRAY_SIZE(quants); q++)
				fprintf(f,
					"%s{shard=\"%u\",quantile=\"%s\"} "
					"%.9g\n",
					name, k, quants[q].label,
					(double)hist_quantile(h, quants[q].q) *
						scale);
			fprintf(f, "%s_sum{shard=\"%u\"} %.9g\n", name, k,
				(double)h->sum * scale);
			fprintf(f, "%s_count{shard=\"%u\"} %llu\n", name, k,
				(unsigned long long)h->count);
		}
	}
	free(h);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	*len = size;
	return buf;
}
