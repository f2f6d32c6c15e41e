/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_proto.h - the control API's messages: request parser, reply builders
 *
 * No system calls: ctl.c reads and writes the sockets and gathers the data
 * (counters, histograms, flow snapshots) these functions turn into JSON.
 * The fuzz target fuzz_ctl drives the parser and every builder.
 */
#ifndef SLIPWAY_CTL_PROTO_H
#define SLIPWAY_CTL_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/conf.h"
#include "svc/fwd.h"
#include "shard/shard_api.h"
#include "obs/hist.h"

#define CTL_REQ_MAX (64U * 1024) /* request bytes, newline included */
#define CTL_FLOWS_LIMIT_DEFAULT 10000
#define CTL_FLOWS_LIMIT_MAX 1000000

/**
 * enum ctl_cmd - requests
 * @CTL_CMD_STATS:	counters and histograms
 * @CTL_CMD_FLOWS:	the flow tables
 * @CTL_CMD_VERSION:	version and what is served
 * @CTL_CMD_FORWARDS:	published ports
 * @CTL_CMD_NUM:	count
 */
enum ctl_cmd {
	CTL_CMD_STATS,
	CTL_CMD_FLOWS,
	CTL_CMD_VERSION,
	CTL_CMD_FORWARDS,
	CTL_CMD_NUM
};

extern const char *const ctl_cmd_names[CTL_CMD_NUM];

#define CTL_FWD_RANGE_MAX 64 /* ports one forwards add may publish */

/**
 * enum ctl_fwd_op - what a forwards request does
 * @CTL_FWD_LIST:	list the published ports (the default)
 * @CTL_FWD_ADD:	publish ports
 * @CTL_FWD_REMOVE:	stop publishing one
 * @CTL_FWD_OP_NUM:	count
 */
enum ctl_fwd_op { CTL_FWD_LIST, CTL_FWD_ADD, CTL_FWD_REMOVE, CTL_FWD_OP_NUM };

/**
 * struct ctl_req - a parsed request
 * @cmd:	what is asked
 * @limit:	flows: at most this many records
 * @op:		forwards: the operation
 * @rules:	forwards add: one rule per host port (ids unset)
 * @nrules:	entries in @rules
 * @id:		forwards remove: the port's id
 */
struct ctl_req {
	enum ctl_cmd cmd;
	unsigned limit;
	enum ctl_fwd_op op;
	struct fwd_rule rules[CTL_FWD_RANGE_MAX];
	unsigned nrules;
	unsigned id;
};

/**
 * struct ctl_stats_src - what a stats reply or the metrics page shows
 * @version:	slipway's version
 * @edge:	the edge's kind
 * @nshards:	shards
 * @peek_off:	SO_PEEK_OFF in use
 * @max_flows:	--max-flows
 * @uptime_ms:	time since the start
 * @ctr:	each shard's counters (read with relaxed loads)
 * @hist:	each shard's HIST_ID_NUM histograms (merged with relaxed loads)
 * @queue:	the edge queue each shard serves
 * @pid:	our process ID
 * @mode:	"slipway", "pasta", "passt" or "slirp4netns" (NULL: "")
 * @guest:	the guest: namespace path, "pid:N" or socket path (NULL: "")
 * @name:	the container or VM name, best effort (NULL: "")
 * @started_unix: when we started, seconds since the epoch
 */
struct ctl_stats_src {
	const char *version;
	const char *edge;
	unsigned nshards;
	bool peek_off;
	uint32_t max_flows;
	uint64_t uptime_ms;
	const uint64_t *ctr[SHARDS_MAX];
	const struct hist *hist[SHARDS_MAX];
	unsigned queue[SHARDS_MAX];
	int pid;
	const char *mode;
	const char *guest;
	const char *name;
	int64_t started_unix;
};

/**
 * ctl_req_parse() - parse one request: a JSON object with "cmd" and the
 * command's arguments, nothing else
 * @buf:	bytes (not NUL-terminated; may hold NULs)
 * @len:	length, at most CTL_REQ_MAX
 * @r:		result
 * @why:	the error message on failure
 * @why_len:	size of @why
 *
 * Return: 0, or -1 with @why set
 */
int ctl_req_parse(const char *buf, size_t len, struct ctl_req *r, char *why,
		  size_t why_len);

/**
 * ctl_reply_error() - {"error": MESSAGE}
 * @msg:	message
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_error(const char *msg);

/**
 * ctl_reply_stats() - every counter, summed and per shard, and histograms
 * @s:		source
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_stats(const struct ctl_stats_src *s);

/**
 * ctl_reply_version() - version, edge, shards; who we are (PID, mode,
 * guest, name), since when, and the totals slipway ls shows (flows open,
 * bytes each way, drops)
 * @s:		source (counters unused)
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_reply_version(const struct ctl_stats_src *s);

/**
 * ctl_reply_flows() - the flow records, as one line of compact JSON
 * @recs:	records
 * @n:		how many
 * @total:	flows there are (more than @n when truncated)
 * @len:	the text's length, newline included
 *
 * Return: the text (caller frees), or NULL without memory
 */
char *ctl_reply_flows(const struct flow_rec *recs, size_t n, size_t total,
		      size_t *len);

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
			   const struct conf *c);

/**
 * ctl_fwd_json() - one published port
 * @r:		the port, with its id
 *
 * Return: new JSON object, or NULL without memory
 */
json_t *ctl_fwd_json(const struct fwd_rule *r);

/**
 * ctl_dump() - a reply as one line of compact JSON
 * @j:		reply (reference taken over: freed here), may be NULL
 * @len:	bytes of the result
 *
 * Return: malloc'ed text ending in a newline, or NULL without memory
 */
char *ctl_dump(json_t *j, size_t *len);

/**
 * metrics_text() - the Prometheus text exposition of counters and
 * histograms
 * @s:		source
 * @len:	bytes of the result
 *
 * Return: malloc'ed text, or NULL without memory
 */
char *metrics_text(const struct ctl_stats_src *s, size_t *len);

/**
 * ctl_printable() - make text safe to quote in a JSON reply: every byte
 * outside printable ASCII becomes '?' (a cut UTF-8 sequence or a control
 * byte would make jansson refuse the string)
 * @s:		text, changed in place
 */
void ctl_printable(char *s);

#endif /* SLIPWAY_CTL_PROTO_H */
