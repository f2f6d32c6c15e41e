/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ls.c - slipway ls [--json]: the running instances, one line each, from
 * their default control sockets (inst.c) and their version replies */

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_client.h"
#include "ctl/inst.h"

static const char ls_usage[] =
	"Usage: slipway ls [--json]\n"
	"  Lists the running slipway instances of this user, found by the\n"
	"  control socket each serves by default at DIR/PID.sock (DIR: root:\n"
	"  /run/slipway; others: $XDG_RUNTIME_DIR/slipway, or\n"
	"  /tmp/slipway-UID without it): PID, mode, edge, guest, name,\n"
	"  uptime, flows open, bytes from and to the guest. A member the\n"
	"  instance does not report shows as -. Instances started with\n"
	"  --ctl none or --ctl PATH are not listed (slipway top PATH reads\n"
	"  those).\n"
	"  --json  one JSON array: each instance's version reply, with\n"
	"          \"ctl\" (its socket path)\n";

/**
 * str_or_dash() - a string member, "-" if absent or empty
 * @o:		object
 * @key:	member
 *
 * Return: text
 */
static const char *str_or_dash(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && *v ? v : "-";
}

/**
 * ls_complete() - ask an older server what its version reply lacks
 * @in:	the instance
 */
static void ls_complete(struct inst *in)
{
	json_t *st = NULL, *fl = NULL;

	if (!json_object_get(in->version, "uptime_ms") ||
	    !json_object_get(in->version, "bytes_from_guest"))
		st = inst_ask(in->path, "{\"cmd\":\"stats\"}");
	if (!json_object_get(in->version, "flows"))
		fl = inst_ask(in->path, "{\"cmd\":\"flows\",\"limit\":0}");
	inst_complete(in->version, in->path, st, fl);
	json_decref(st);
	json_decref(fl);
}

/**
 * ctl_ls_main() - slipway ls [--json]
 * @argc:	arguments after "slipway"
 * @argv:	"ls", options
 *
 * Return: exit status: 0, 2 (bad usage)
 */
int ctl_ls_main(int argc, char **argv)
{
	char dir[4096];
	struct inst *v;
	bool json = false;
	size_t n, i;
	int k;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--json")) {
			json = true;
		} else if (!strcmp(argv[k], "-h") ||
			   !strcmp(argv[k], "--help")) {
			fputs(ls_usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "slipway ls: unknown argument '%s'\n%s",
				argv[k], ls_usage);
			return 2;
		}
	}
	inst_rundir(dir, sizeof(dir));
	n = inst_scan(dir, &v);
	for (i = 0; i < n; i++)
		ls_complete(&v[i]);
	if (json) {
		json_t *a = json_array();
		char *t;

		for (i = 0; i < n; i++) {
			json_object_set_new(v[i].version, "ctl",
					    json_string(v[i].path));
			json_array_append(a, v[i].version);
		}
		t = json_dumps(a, JSON_COMPACT);
		if (t)
			puts(t);
		free(t);
		json_decref(a);
		inst_free(v, n);
		return 0;
	}
	if (!n) {
		printf("no running slipway found in %s; instances started "
		       "with --ctl none are not listed\n",
		       dir);
		return 0;
	}
	printf("%-8s %-11s %-12s %-32s %-20s %8s %6s %8s %8s\n", "PID", "MODE",
	       "EDGE", "GUEST", "NAME", "UPTIME", "FLOWS", "FROM_G", "TO_G");
	for (i = 0; i < n; i++) {
		const json_t *r = v[i].version;
		char up[32], fl[32], from[32], to[32];
		const json_t *ms = json_object_get(r, "uptime_ms");

		if (json_is_integer(ms))
			inst_duration(
				up, sizeof(up),
				(unsigned long long)json_integer_value(ms));
		else
			snprintf(up, sizeof(up), "-");
		printf("%-8ld %-11s %-12s %-32s %-20s %8s %6s %8s %8s\n",
		       v[i].pid, str_or_dash(r, "mode"), str_or_dash(r, "edge"),
		       str_or_dash(r, "guest"), str_or_dash(r, "name"), up,
		       inst_int_text(fl, sizeof(fl), r, "flows", false),
		       inst_int_text(from, sizeof(from), r, "bytes_from_guest",
				     true),
		       inst_int_text(to, sizeof(to), r, "bytes_to_guest",
				     true));
	}
	inst_free(v, n);
	return 0;
}
