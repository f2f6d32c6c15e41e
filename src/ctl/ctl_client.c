/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_client.c - slipway ctl PATH CMD [ARGS] [--json]: ask a running
 * slipway's control socket and print the answer as tables (or raw JSON)
 */

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "ctl/ctl_client.h"
#include "ctl/ctl_proto.h"
#include "ctl/inst.h"

#define CLIENT_TIMEOUT_MS 10000
#define REPLY_MAX (256U << 20)

static const char client_usage[] =
	"Usage: slipway ctl PID|PATH COMMAND [--json]\n"
	"  PID names a running slipway (its socket in the runtime directory,\n"
	"  as slipway ls lists them); PATH is a --ctl socket. COMMAND:\n"
	"    stats                 counters (non-zero ones) and histograms\n"
	"    flows [--limit N]     the flow tables\n"
	"    version               version, edge, shards\n"
	"    forwards [list]       published ports\n"
	"    forwards add tcp|udp [ADDR/]PORT[-END][:GUESTPORT[-END]] "
	"[GUEST_ADDR]\n"
	"                          publish ports now (as -t/-u; never "
	"spliced)\n"
	"    forwards remove ID    stop publishing one (ID from forwards "
	"list)\n"
	"  --json prints the reply as it came (one line of JSON).\n";

/**
 * client_usage_error() - report a bad client command line
 * @msg:	what is wrong
 *
 * Return: 2
 */
static int client_usage_error(const char *msg)
{
	fprintf(stderr,
		"slipway ctl: %s\n%sTry 'slipway --help' for the options.\n",
		msg, client_usage);
	return 2;
}

/**
 * ctl_ask_within() - send a request, read the whole reply, waiting at most
 * @timeout_ms for each part of it
 * @path:	control socket
 * @req:	request (one line, newline added here)
 * @len:	reply length
 * @quiet:	report nothing on failure (errno tells: ECONNREFUSED or
 *		ENOENT for a socket nobody serves, ETIMEDOUT without an answer)
 * @timeout_ms:	how long the instance may stay silent
 *
 * Context: the slipway ctl, ls and top client processes (no sandbox)
 * #syscalls socket connect sendto shutdown poll read close
 * Return: malloc'ed reply (NUL-terminated), or NULL (reported unless
 * @quiet)
 */
char *ctl_ask_within(const char *path, const char *req, size_t *len, bool quiet,
		     int timeout_ms)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t size = 65536, n = 0;
	char *buf = NULL;
	int fd, err;

	if (strlen(path) >= sizeof(a.sun_path)) {
		if (!quiet)
			fprintf(stderr,
				"slipway ctl: socket path too long: %s\n",
				path);
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (quiet)
			goto fail;
		fprintf(stderr,
			"slipway ctl: cannot connect to %s: %s (is slipway "
			"running with --ctl %s?)\n",
			path, strerror(errno), path);
		goto fail;
	}
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) < 0) {
		if (quiet)
			goto fail;
		fprintf(stderr, "slipway ctl: cannot send to %s: %s\n", path,
			strerror(errno));
		goto fail;
	}
	shutdown(fd, SHUT_WR);
	buf = malloc(size + 1);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (!buf)
			goto fail;
		if (poll(&p, 1, timeout_ms) <= 0) {
			errno = ETIMEDOUT;
			if (quiet)
				goto fail;
			fprintf(stderr,
				"slipway ctl: no answer from %s within %d s\n",
				path, timeout_ms / 1000);
			goto fail;
		}
		r = read(fd, buf + n, size - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (!quiet)
				fprintf(stderr, "slipway ctl: read: %s\n",
					strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
		if (n == size) {
			char *b;

			if (size >= REPLY_MAX) {
				if (!quiet)
					fprintf(stderr, "slipway ctl: reply "
							"too large\n");
				errno = EFBIG;
				goto fail;
			}
			size *= 2;
			b = realloc(buf, size + 1);
			if (!b)
				goto fail;
			buf = b;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = err;
	return NULL;
}

/**
 * ctl_ask() - send a request, read the whole reply (ctl_ask_within() with
 * 10 seconds)
 * @path:	control socket
 * @req:	request (one line, newline added here)
 * @len:	reply length
 * @quiet:	report nothing on failure (errno tells)
 *
 * Return: malloc'ed reply (NUL-terminated), or NULL (reported unless
 * @quiet)
 */
char *ctl_ask(const char *path, const char *req, size_t *len, bool quiet)
{
	return ctl_ask_within(path, req, len, quiet, CLIENT_TIMEOUT_MS);
}

/**
 * u() - an integer member as unsigned long long (0 if absent)
 * @o:		object
 * @key:	member
 *
 * Return: value
 */
static unsigned long long u(const json_t *o, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(o, key));

	return v < 0 ? 0 : (unsigned long long)v;
}

/**
 * s() - a string member ("-" if absent or null)
 * @o:		object
 * @key:	member
 *
 * Return: text
 */
static const char *s(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "-";
}

/**
 * print_stats() - counters with a non-zero total, per shard, then the
 * histograms
 * @r:	reply
 */
static void print_stats(const json_t *r)
{
	const json_t *tot = json_object_get(r, "counters"),
		     *shards = json_object_get(r, "shards"),
		     *hists = json_object_get(r, "histograms"), *v;
	size_t ns = json_array_size(shards), i, zero = 0;
	const char *key;

	printf("slipway %s, edge %s, %zu shard(s), up %llu ms\n\n",
	       s(r, "version"), s(r, "edge"), ns, u(r, "uptime_ms"));
	printf("%-32s %16s", "COUNTER", "TOTAL");
	for (i = 0; i < ns && ns > 1; i++) {
		char h[16];

		snprintf(h, sizeof(h), "SHARD%zu", i);
		printf(" %15s", h);
	}
	printf("\n");
	json_object_foreach((json_t *)tot, key, v)
	{
		if (!json_integer_value(v)) {
			zero++;
			continue;
		}
		printf("%-32s %16lld", key, (long long)json_integer_value(v));
		for (i = 0; i < ns && ns > 1; i++)
			printf(" %15llu",
			       u(json_object_get(json_array_get(shards, i),
						 "counters"),
				 key));
		printf("\n");
	}
	printf("(%zu counters are zero; --json shows every one)\n\n", zero);
	printf("%-22s %10s %10s %10s %10s %10s %10s %10s\n", "HISTOGRAM",
	       "COUNT", "MIN", "P50", "P90", "P99", "P99.9", "MAX");
	json_object_foreach((json_t *)hists, key, v) printf(
		"%-22s %10llu %10llu %10llu %10llu %10llu %10llu %10llu\n", key,
		u(v, "count"), u(v, "min"), u(v, "p50"), u(v, "p90"),
		u(v, "p99"), u(v, "p99_9"), u(v, "max"));
}

/**
 * endpoint() - "ADDR:PORT", IPv6 addresses bracketed
 * @out:	buffer
 * @size:	its size
 * @addr:	address text
 * @port:	port
 *
 * Return: @out
 */
static const char *endpoint(char *out, size_t size, const char *addr,
			    unsigned long long port)
{
	snprintf(out, size, strchr(addr, ':') ? "[%s]:%llu" : "%s:%llu", addr,
		 port);
	return out;
}

/**
 * rate_str() - a rate in bytes per second, short: "0", "950", "12.3K",
 * "4.1M", "1.2G"
 * @buf:	out
 * @len:	its size
 * @v:		bytes per second
 *
 * Return: @buf
 */
static char *rate_str(char *buf, size_t len, unsigned long long v)
{
	static const char unit[] = "KMGT";
	double d = (double)v;
	unsigned i = 0;

	if (v < 1000) {
		snprintf(buf, len, "%llu", v);
		return buf;
	}
	while (d >= 1000 * 1000 && i + 1 < sizeof(unit) - 1) {
		d /= 1000;
		i++;
	}
	snprintf(buf, len, "%.1f%c", d / 1000, unit[i]);
	return buf;
}

/**
 * print_flows() - one line per flow: the core's, spliced, -U ones and DNS
 * queries (KIND), with bytes each way, the rates over the last second
 * (bytes per second), the age (or for datagram flows the idle time), and
 * for TCP flows of the core the RTT to the guest and to the host's peer
 * (microseconds) and the "limited by" verdict
 * @r:	reply
 */
static void print_flows(const json_t *r)
{
	const json_t *flows = json_object_get(r, "flows"), *f;
	char g[80], rem[80];
	size_t i;

	/* the columns of the first tables, then the new ones: scripts that
	 * read the first ones go on working */
	printf("%-6s %-6s %-5s %-30s %-30s %-15s %14s %14s %10s %7s %7s %8s "
	       "%8s %s\n",
	       "PROTO", "KIND", "SHARD", "GUEST", "REMOTE", "STATE",
	       "FROM_GUEST", "TO_GUEST", "AGE_MS", "RATE_FG", "RATE_TG",
	       "RTT_G", "RTT_H", "LIMITED_BY");
	json_array_foreach(flows, i, f)
	{
		bool tcp = !strcmp(s(f, "proto"), "tcp");
		const json_t *ti = json_object_get(f, "tcp_info");
		char age[32], rf[24], rt[24], rg[24], rh[24];

		snprintf(age, sizeof(age), tcp ? "%llu" : "idle %llu",
			 u(f, tcp ? "age_ms" : "idle_ms"));
		snprintf(rg, sizeof(rg), "-");
		snprintf(rh, sizeof(rh), "-");
		if (json_object_get(f, "guest_rtt_us"))
			snprintf(rg, sizeof(rg), "%llu", u(f, "guest_rtt_us"));
		if (json_is_object(ti))
			snprintf(rh, sizeof(rh), "%llu", u(ti, "rtt_us"));
		printf("%-6s %-6s %-5llu %-30s %-30s %-15s %14llu %14llu %10s "
		       "%7s %7s %8s %8s %s\n",
		       s(f, "proto"), s(f, "kind"), u(f, "shard"),
		       endpoint(g, sizeof(g), s(f, "guest_addr"),
				u(f, "guest_port")),
		       endpoint(rem, sizeof(rem), s(f, "remote_addr"),
				u(f, "remote_port")),
		       s(f, "state"), u(f, "from_guest"), u(f, "to_guest"), age,
		       rate_str(rf, sizeof(rf), u(f, "rate_from_guest")),
		       rate_str(rt, sizeof(rt), u(f, "rate_to_guest")), rg, rh,
		       s(f, "limited_by"));
	}
	printf("%llu flow(s)%s\n", u(r, "total"),
	       json_is_true(json_object_get(r, "truncated")) ?
		       ", list truncated (--limit)" :
		       "");
}

/**
 * fwd_ends() - a published port's two ends as text
 * @f:		port object
 * @h:		host end out
 * @hl:		its size
 * @g:		guest end out
 * @gl:		its size
 */
static void fwd_ends(const json_t *f, char *h, size_t hl, char *g, size_t gl)
{
	const char *ha = json_string_value(json_object_get(f, "host_addr"));
	const char *ga = json_string_value(json_object_get(f, "guest_addr"));

	endpoint(h, hl, ha ? ha : "*", u(f, "host_port"));
	endpoint(g, gl, ga ? ga : "guest", u(f, "guest_port"));
}

/**
 * print_forwards() - one line per published port, then the -T ports
 * @r:	reply
 */
static void print_forwards(const json_t *r)
{
	const json_t *fw = json_object_get(r, "forwards"), *f,
		     *ns = json_object_get(r, "ns_loopback");
	char h[80], g[80];
	size_t i;

	printf("%-5s %-5s %-46s %-46s %s\n", "ID", "PROTO", "HOST", "GUEST",
	       "SPLICE");
	json_array_foreach(fw, i, f)
	{
		fwd_ends(f, h, sizeof(h), g, sizeof(g));
		printf("%-5llu %-5s %-46s %-46s %s\n", u(f, "id"),
		       s(f, "proto"), h, g,
		       json_is_true(json_object_get(f, "splice")) ? "yes" :
								    "no");
	}
	printf("%zu published port(s)\n", json_array_size(fw));
	json_array_foreach(ns, i, f) printf(
		"-T: guest loopback port %llu -> host loopback port %llu\n",
		u(f, "guest_port"), u(f, "host_port"));
}

/**
 * print_added() - the ports a forwards add published
 * @r:	reply
 */
static void print_added(const json_t *r)
{
	const json_t *f;
	char h[80], g[80];
	size_t i;

	json_array_foreach(json_object_get(r, "added"), i, f)
	{
		fwd_ends(f, h, sizeof(h), g, sizeof(g));
		printf("added %llu: %s %s -> %s\n", u(f, "id"), s(f, "proto"),
		       h, g);
	}
}

/**
 * struct client_args - a slipway ctl command line
 * @path:	the control socket
 * @cmd:	COMMAND
 * @args:	its arguments
 * @nargs:	how many of @args there are
 * @limit:	--limit's value
 * @has_limit:	--limit was given
 * @raw:	--json: print the reply as it came
 */
struct client_args {
	const char *path;
	const char *cmd;
	const char *args[5];
	unsigned nargs;
	unsigned long limit;
	bool has_limit;
	bool raw;
};

/**
 * client_args_parse() - read the client's command line
 * @a:		filled
 * @argc:	arguments after "slipway"
 * @argv:	"ctl", PATH, CMD...
 *
 * Return: -1 to go on, else the status to exit with: 0 after --help, 2 on
 * bad usage (reported)
 */
static int client_args_parse(struct client_args *a, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			a->raw = true;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			fputs(client_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--limit")) {
			char *end;

			if (i + 1 == argc)
				return client_usage_error(
					"--limit needs a value");
			errno = 0;
			a->limit = strtoul(argv[++i], &end, 10);
			if (errno || *end || !*argv[i] || *argv[i] == '-' ||
			    a->limit > CTL_FLOWS_LIMIT_MAX)
				return client_usage_error(
					"bad --limit: expected 0 to 1000000");
			a->has_limit = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "slipway ctl: unknown option '%s'\n",
				argv[i]);
			return client_usage_error("see the usage");
		} else if (!a->path) {
			a->path = argv[i];
		} else if (!a->cmd) {
			a->cmd = argv[i];
		} else if (a->nargs < 5) {
			a->args[a->nargs++] = argv[i];
		} else {
			return client_usage_error("too many arguments");
		}
	}
	if (!a->path || !a->cmd)
		return client_usage_error("needs a socket PATH and a COMMAND");
	if (a->has_limit && strcmp(a->cmd, "flows"))
		return client_usage_error("--limit goes with flows only");
	return -1;
}

/**
 * client_forwards_request() - the request of a forwards command
 * @a:		command line (@cmd is "forwards")
 * @req:	filled: one line of JSON
 * @size:	size of @req
 *
 * Return: 0, or 2 on bad usage (reported)
 */
static int client_forwards_request(const struct client_args *a, char *req,
				   size_t size)
{
	const char *op = a->nargs ? a->args[0] : "list";
	json_t *q = NULL;
	char *t;

	if (!strcmp(op, "list") && a->nargs <= 1) {
		q = json_pack("{s:s, s:s}", "cmd", "forwards", "op", "list");
	} else if (!strcmp(op, "add") && (a->nargs == 3 || a->nargs == 4)) {
		if (strcmp(a->args[1], "tcp") && strcmp(a->args[1], "udp"))
			return client_usage_error("forwards add: tcp or udp");
		q = json_pack("{s:s, s:s, s:s, s:s}", "cmd", "forwards", "op",
			      "add", "proto", a->args[1], "spec", a->args[2]);
		if (q && a->nargs == 4)
			json_object_set_new(q, "guest_addr",
					    json_string(a->args[3]));
	} else if (!strcmp(op, "remove") && a->nargs == 2) {
		char *end;
		unsigned long id;

		errno = 0;
		id = strtoul(a->args[1], &end, 10);
		if (errno || *end || !id || id > INT32_MAX ||
		    *a->args[1] == '-' || *a->args[1] == '+')
			return client_usage_error(
				"forwards remove: ID is a positive "
				"number (see forwards list)");
		q = json_pack("{s:s, s:s, s:I}", "cmd", "forwards", "op",
			      "remove", "id", (json_int_t)id);
	} else {
		return client_usage_error(
			"forwards [list] | forwards add tcp|udp SPEC "
			"[GUEST_ADDR] | forwards remove ID");
	}
	t = q ? json_dumps(q, JSON_COMPACT) : NULL;
	json_decref(q);
	if (!t || strlen(t) >= size) {
		free(t);
		return client_usage_error("arguments too long");
	}
	strcpy(req, t);
	free(t);
	return 0;
}

/**
 * client_request() - the request a command line asks for
 * @a:		command line
 * @req:	filled: one line of JSON
 * @size:	size of @req
 *
 * Return: 0, or 2 on bad usage (reported)
 */
static int client_request(const struct client_args *a, char *req, size_t size)
{
	if (!strcmp(a->cmd, "stats") || !strcmp(a->cmd, "version") ||
	    !strcmp(a->cmd, "flows")) {
		if (a->nargs)
			return client_usage_error(
				"this command takes no arguments");
		if (a->has_limit)
			snprintf(req, size, "{\"cmd\":\"flows\",\"limit\":%lu}",
				 a->limit);
		else
			snprintf(req, size, "{\"cmd\":\"%s\"}", a->cmd);
		return 0;
	}
	if (!strcmp(a->cmd, "forwards"))
		return client_forwards_request(a, req, size);
	fprintf(stderr, "slipway ctl: unknown command '%s'\n", a->cmd);
	return client_usage_error(
		"COMMAND is stats, flows, version or forwards");
}

/**
 * ival() - an integer member, 0 when missing
 * @o:		object
 * @key:	member
 *
 * Return: its value
 */
static long long ival(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/**
 * print_version() - the answer to version: what is served, then who the
 * instance is and its totals (a server older than these fields shows
 * only the first line)
 * @r:	reply
 */
static void print_version(const json_t *r)
{
	const char *guest = s(r, "guest"), *name = s(r, "name");
	long long up = ival(r, "uptime_ms") / 1000;

	printf("slipway %s: edge %s, %lld shard(s), SO_PEEK_OFF %s, "
	       "max %lld flows\n",
	       s(r, "version"), s(r, "edge"), ival(r, "shards_n"),
	       json_is_true(json_object_get(r, "peek_offset")) ? "on" : "off",
	       ival(r, "max_flows"));
	if (!json_object_get(r, "pid"))
		return;
	printf("PID %lld, %s mode, guest %s%s%s%s, up %lld:%02lld:%02lld\n",
	       ival(r, "pid"), s(r, "mode"), *guest ? guest : "(unknown)",
	       *name ? " (" : "", name, *name ? ")" : "", up / 3600,
	       up / 60 % 60, up % 60);
	printf("%lld flow(s) open, %lld bytes from the guest, %lld to it, "
	       "%lld dropped\n",
	       ival(r, "flows"), ival(r, "bytes_from_guest"),
	       ival(r, "bytes_to_guest"), ival(r, "drops"));
}

/**
 * client_reply_print() - print a reply: raw, or as the command's tables
 * @a:		command line
 * @reply:	the reply (NUL-terminated)
 * @len:	its length
 *
 * Return: 0, or 1 if the reply is no JSON object or an error (reported)
 */
static int client_reply_print(const struct client_args *a, const char *reply,
			      size_t len)
{
	json_error_t jerr;
	json_t *r;

	r = json_loadb(reply, len, 0, &jerr);
	if (!r || !json_is_object(r)) {
		fprintf(stderr,
			"slipway ctl: the reply is not a JSON object: %s\n",
			jerr.text);
		json_decref(r);
		return 1;
	}
	if (json_object_get(r, "error")) {
		if (a->raw)
			fputs(reply, stdout);
		fprintf(stderr, "slipway ctl: error: %s\n", s(r, "error"));
		json_decref(r);
		return 1;
	}
	if (a->raw)
		fputs(reply, stdout);
	else if (!strcmp(a->cmd, "stats"))
		print_stats(r);
	else if (!strcmp(a->cmd, "flows"))
		print_flows(r);
	else if (!strcmp(a->cmd, "forwards") && json_object_get(r, "added"))
		print_added(r);
	else if (!strcmp(a->cmd, "forwards") && json_object_get(r, "removed"))
		printf("removed %llu\n", u(r, "removed"));
	else if (!strcmp(a->cmd, "forwards"))
		print_forwards(r);
	else
		print_version(r);
	json_decref(r);
	return 0;
}

/**
 * ctl_client_main() - slipway ctl PATH CMD [ARGS] [--json]
 * @argc:	arguments after "slipway"
 * @argv:	"ctl", PATH, CMD...
 *
 * Return: exit status: 0, 1 (no answer or an error reply), 2 (bad usage)
 */
int ctl_client_main(int argc, char **argv)
{
	struct client_args a = { 0 };
	char req[256], *reply, dir[96], path[108];
	size_t len;
	int ret;

	ret = client_args_parse(&a, argc, argv);
	if (ret >= 0)
		return ret;
	ret = client_request(&a, req, sizeof(req));
	if (ret)
		return ret;
	/* a PID names the instance's default socket, as top's argument */
	if (inst_resolve(a.path, inst_rundir(dir, sizeof(dir)), path,
			 sizeof(path)))
		return client_usage_error("socket path too long");
	reply = ctl_ask(path, req, &len, false);
	if (!reply)
		return 1;
	ret = client_reply_print(&a, reply, len);
	free(reply);
	return ret;
}
