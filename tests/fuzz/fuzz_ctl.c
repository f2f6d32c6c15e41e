/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_ctl.c - the control API's request parser and reply builders
 * (ctl/ctl_proto.c): ctl_req_parse() and the dispatch of what it returns
 *
 * Input: the request bytes (at most CTL_REQ_MAX + 16 are used, so the size
 * check is reached). The data the replies show comes from the input too:
 * its bytes fill eight flow records (any protocol, state, address) and
 * two shards' counters and histograms; a fixed configuration publishes
 * three port ranges.
 *
 * Checks: a failure gives a message, and its error reply is exactly
 * {"error": message}; a success names a known command; every reply (and
 * the metrics page) is built, is one line of valid JSON ending in a
 * newline, and holds what the command promises (all counters and
 * histograms, at most @limit flows with a total, the forwards, the
 * version); a forwards add gives 1 to CTL_FWD_RANGE_MAX consecutive valid
 * ports; the input is not modified.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_proto.h"
#include "util/ctr.h"
#include "util/log.h"

#include "fuzz_common.h"

#define NRECS 8

enum log_level log_max_level = LOG_ERR;

static struct conf conf;
static uint64_t ctr[2][CTR_NUM];
static struct hist hist[2][HIST_ID_NUM];
static struct flow_rec recs[NRECS];

/**
 * setup() - the fixed configuration: three published ranges
 */
static void setup(void)
{
	const char *why;

	if (conf.nfwd)
		return;
	FZ_CHECK(!fwd_spec_parse("8080:80", &conf.fwd[conf.nfwd++], &why));
	FZ_CHECK(!fwd_spec_parse("[::1]/9000-9009:9100-9109",
				 &conf.ufwd[conf.nufwd++], &why));
	FZ_CHECK(!fwd_spec_parse("5432", &conf.nsfwd[conf.nnsfwd++], &why));
	conf.max_flows = 64;
}

/**
 * text_check() - a reply's text is one line of valid JSON, an object
 * @s:		text (freed)
 * @len:	its length
 *
 * Return: the reply parsed again (caller frees)
 */
static json_t *text_check(char *s, size_t len)
{
	json_error_t e;
	json_t *back;

	FZ_CHECK(s && len && s[len - 1] == '\n' && strlen(s) == len);
	FZ_CHECK(!memchr(s, '\n', len - 1));
	back = json_loads(s, 0, &e);
	FZ_CHECK(back && json_is_object(back));
	free(s);
	return back;
}

/**
 * dump_check() - a reply dumps to one line of valid JSON, an object
 * @j:	reply (freed)
 *
 * Return: the reply parsed again (caller frees)
 */
static json_t *dump_check(json_t *j)
{
	size_t len = 0;
	char *s;

	FZ_CHECK(j);
	s = ctl_dump(j, &len);
	return text_check(s, len);
}

/**
 * fill() - copy input bytes into the fake data the replies show
 * @data:	input
 * @size:	its length
 */
static void fill(const uint8_t *data, size_t size)
{
	uint8_t *dst[] = { (uint8_t *)recs, (uint8_t *)ctr };
	size_t lens[] = { sizeof(recs), sizeof(ctr) };
	unsigned i, k, h;

	for (i = 0; i < 2; i++) {
		memset(dst[i], 0, lens[i]);
		if (size)
			memcpy(dst[i], data, MIN(size, lens[i]));
	}
	/* the shard writes only 0 or 1 into a bool: so does the harness */
	for (i = 0; i < NRECS; i++) {
		uint8_t *r = (uint8_t *)&recs[i];

		r[offsetof(struct flow_rec, has_host)] &= 1;
		r[offsetof(struct flow_rec, has_tcpi)] &= 1;
		r[offsetof(struct flow_rec, edge_stalled)] &= 1;
	}
	for (k = 0; k < 2; k++) {
		for (h = 0; h < HIST_ID_NUM; h++) {
			hist_init(&hist[k][h]);
			for (i = 0; i < size && i < 64; i++)
				hist_record(
					&hist[k][h],
					(uint64_t)data[i]
						<< (data[(i + h) % size] % 48));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = MIN(size, CTL_REQ_MAX + 16), mlen = 0, len = 0;
	char *copy = malloc(n + 1), *m, *s;
	struct ctl_stats_src src = {
		.version = "0.1.0", .edge = "tap", .nshards = 2, .max_flows = 64
	};
	struct ctl_req r;
	char why[256] = "";
	const char *msg;
	json_t *j;
	unsigned k;

	FZ_CHECK(copy);
	setup();
	memcpy(copy, data, n);
	fill(data, size);
	for (k = 0; k < 2; k++) {
		src.ctr[k] = ctr[k];
		src.hist[k] = hist[k];
		src.queue[k] = k;
	}

	if (ctl_req_parse((const char *)data, n, &r, why, sizeof(why))) {
		FZ_CHECK(*why && strlen(why) < sizeof(why));
		j = dump_check(ctl_reply_error(why));
		FZ_CHECK(json_object_size(j) == 1);
		msg = json_string_value(json_object_get(j, "error"));
		/* the same, but for bytes outside printable ASCII: '?' */
		FZ_CHECK(msg && strlen(msg) == strlen(why));
		for (k = 0; why[k]; k++)
			FZ_CHECK(msg[k] == why[k] ||
				 (msg[k] == '?' &&
				  (why[k] < 0x20 || why[k] >= 0x7f)));
		json_decref(j);
		FZ_CHECK(!memcmp(copy, data, n));
		free(copy);
		return 0;
	}
	FZ_CHECK(n <= CTL_REQ_MAX && r.cmd < CTL_CMD_NUM);
	switch (r.cmd) {
	case CTL_CMD_STATS:
		j = dump_check(ctl_reply_stats(&src));
		FZ_CHECK(json_object_size(json_object_get(j, "counters")) ==
			 CTR_NUM);
		FZ_CHECK(json_array_size(json_object_get(j, "shards")) == 2);
		FZ_CHECK(json_object_size(json_object_get(j, "histograms")) ==
			 HIST_ID_NUM);
		break;
	case CTL_CMD_FLOWS:
		FZ_CHECK(r.limit <= CTL_FLOWS_LIMIT_MAX);
		s = ctl_reply_flows(recs, MIN(NRECS, r.limit), NRECS, &len);
		j = text_check(s, len);
		FZ_CHECK(json_array_size(json_object_get(j, "flows")) ==
			 MIN(NRECS, r.limit));
		FZ_CHECK(json_integer_value(json_object_get(j, "total")) ==
			 NRECS);
		break;
	case CTL_CMD_VERSION:
		j = dump_check(ctl_reply_version(&src));
		FZ_CHECK(!strcmp(
			json_string_value(json_object_get(j, "version")),
			"0.1.0"));
		break;
	default:
		if (r.op == CTL_FWD_REMOVE) {
			FZ_CHECK(r.id > 0 && !r.nrules);
			j = NULL;
			break;
		}
		if (r.op == CTL_FWD_ADD) {
			unsigned i;

			/* what ctl.c hands to fwd_add(): whole, valid ports */
			FZ_CHECK(r.nrules >= 1 &&
				 r.nrules <= CTL_FWD_RANGE_MAX);
			for (i = 0; i < r.nrules; i++) {
				const struct fwd_rule *w = &r.rules[i];

				FZ_CHECK(w->proto == IPPROTO_TCP ||
					 w->proto == IPPROTO_UDP);
				FZ_CHECK(w->host_port && w->guest_port &&
					 !w->splice);
				FZ_CHECK(w->proto == r.rules[0].proto);
				FZ_CHECK(w->host_port ==
					 r.rules[0].host_port + i);
			}
			j = dump_check(
				ctl_reply_forwards(r.rules, r.nrules, &conf));
			FZ_CHECK(json_array_size(json_object_get(
					 j, "forwards")) == r.nrules);
			break;
		}
		/* list: whatever rules the input bytes make */
		{
			struct fwd_rule fr[4];
			const uint8_t *b = (const uint8_t *)recs;
			unsigned i;

			for (i = 0; i < 4; i++, b += 40) {
				memset(&fr[i], 0, sizeof(fr[i]));
				fr[i].id = b[0];
				fr[i].proto = b[1] & 1 ? IPPROTO_TCP :
							 IPPROTO_UDP;
				fr[i].host_family = b[2] % 3 == 0 ? AF_UNSPEC :
						    b[2] % 3 == 1 ? AF_INET :
								    AF_INET6;
				memcpy(&fr[i].host_addr, b + 4, 16);
				fr[i].host_port = (uint16_t)(b[3] << 8 | b[20]);
				fr[i].guest_set = b[21] & 1;
				memcpy(&fr[i].guest_addr, b + 22, 16);
				fr[i].guest_port = (uint16_t)(b[38] << 8 |
							      b[39]);
				fr[i].splice = b[21] & 2;
			}
			j = dump_check(ctl_reply_forwards(fr, 4, &conf));
			FZ_CHECK(json_array_size(
					 json_object_get(j, "forwards")) == 4);
		}
		FZ_CHECK(json_array_size(json_object_get(j, "ns_loopback")) ==
			 1);
		break;
	}
	json_decref(j);
	m = metrics_text(&src, &mlen);
	FZ_CHECK(m && mlen && m[mlen - 1] == '\n' && strlen(m) == mlen);
	free(m);
	FZ_CHECK(!memcmp(copy, data, n));
	free(copy);
	return 0;
}
