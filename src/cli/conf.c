/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.c - command line parsing, --help */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/conf.h"
#include "util/log.h"
#include "util/util.h"

static const char usage_text[] =
	"Usage: slipway [OPTIONS] [-- COMMAND [ARGS...]]\n"
	"       slipway [OPTIONS] --netns PATH|NAME\n"
	"       slipway [OPTIONS] --stream PATH | --dgram PATH | --fd N\n"
	"       slipway [OPTIONS] --vhost-user PATH | --vhost-user --fd N\n"
	"\n"
	"A user-mode network gateway. Runs COMMAND (default: your shell) in a "
	"new\n"
	"network namespace whose only interface is a tap device served by "
	"slipway,\n"
	"or serves a tap it creates in an existing namespace (--netns), or a "
	"VM\n"
	"through a unix socket (--stream, --dgram, --fd). The guest's TCP and "
	"UDP\n"
	"flows continue on ordinary host sockets.\n"
	"\n"
	"VM socket edges (one guest at a time; the next is served when it "
	"leaves):\n"
	"  --stream PATH           listen there for QEMU -netdev stream "
	"(frames with\n"
	"                          a 4-byte big-endian length, as passt's)\n"
	"  --dgram PATH            bind a datagram socket there: one frame "
	"per\n"
	"                          datagram (QEMU -netdev dgram, vfkit)\n"
	"  --fd N                  serve the connected stream socket N; exit "
	"when\n"
	"                          it closes\n"
	"  --vhost-user PATH       listen there for a vhost-user frontend "
	"(QEMU\n"
	"                          -netdev vhost-user): virtio-net with "
	"offloads,\n"
	"                          one queue pair per shard (--shards)\n"
	"  --vhost-user --fd N     a vhost-user frontend connected on socket "
	"N\n"
	"                          (QEMU -netdev passt,vhost-user=on); exit "
	"when\n"
	"                          it leaves\n"
	"  --print-capabilities    print the vhost-user backend's capabilities "
	"as\n"
	"                          JSON and exit\n"
	"\n"
	"Namespace:\n"
	"  --netns PATH|NAME       attach to an existing namespace: "
	"/run/netns/NAME,\n"
	"                          or a path such as /proc/PID/ns/net (needs "
	"root)\n"
	"  -I, --ifname NAME       tap device name (default: tap0)\n"
	"  --no-config             do not configure addresses, routes, MTU or "
	"link\n"
	"                          state in the namespace\n"
	"  --userns / --no-userns  create a user namespace too (default: only "
	"when\n"
	"                          not run as root)\n"
	"\n"
	"Addresses (IPv4):\n"
	"  -a, --address ADDR[/PREFIX]  guest address (default: 10.0.2.15/24)\n"
	"  -g, --gateway ADDR      gateway address (default: 10.0.2.2); "
	"connections\n"
	"                          to it reach the host's 127.0.0.1\n"
	"  --cidr NET/PREFIX       guest network: guest .15, gateway .2\n"
	"                          (default: 10.0.2.0/24)\n"
	"  -o, --outbound ADDR     source address of outbound sockets (to "
	"hosts other\n"
	"                          than loopback); one IPv4 and one IPv6 at "
	"most\n"
	"  --outbound-if4 IFNAME   bind outbound IPv4 sockets to this "
	"interface\n"
	"  --outbound-if6 IFNAME   the same for IPv6\n"
	"  --no-map-gw, --no-map-host-loopback\n"
	"                          connections to the gateway address are "
	"refused\n"
	"                          instead of reaching host loopback (then "
	"the\n"
	"                          guest cannot reach the host's loopback at "
	"all)\n"
	"  -m, --mtu N             guest MTU, 576..65520 (default: 65520; "
	"IPv6\n"
	"                          needs 1280 or more)\n"
	"\n"
	"Addresses (IPv6):\n"
	"  --ipv6-prefix PREFIX/64 the guest network's /64 (default: "
	"fd00:5ee:d::/64);\n"
	"                          guest ::15, gateway ::2 (and fe80::1), DNS "
	"::3.\n"
	"                          Connections to the gateway reach the host's "
	"::1\n"
	"                          (--no-map-gw refuses them)\n"
	"  --no-ipv6               no IPv6: frames dropped, nothing "
	"configured\n"
	"\n"
	"Services (for the guest):\n"
	"  --no-dhcp               do not answer DHCPv4 or DHCPv6 (default: "
	"the\n"
	"                          guest can get its address, router, DNS, MTU "
	"and\n"
	"                          search list)\n"
	"  --dns-addr ADDR         DNS forwarder address in the guest's "
	"network\n"
	"                          (default: .3 of it, e.g. 10.0.2.3; over "
	"IPv6\n"
	"                          always ::3 of the prefix)\n"
	"  --no-dns                no DNS forwarder\n"
	"  --resolv-conf PATH      upstream resolvers (default: "
	"/etc/resolv.conf,\n"
	"                          re-read when it changes)\n"
	"  -H, --hostname NAME     host name for DHCP (option 12)\n"
	"  --fqdn NAME             fully qualified name for DHCP: option 81, "
	"DHCPv6\n"
	"                          option 39 (to clients that ask for it)\n"
	"\n"
	"";

/* pasta's addressing model and the address mappings (conf_net.c) */
static const char usage_text_net[] =
	"Addressing model and mappings (pasta's):\n"
	"  --copy-host-addrs       give the guest the host's own address, "
	"prefix and\n"
	"                          default gateway of each family (from the "
	"default\n"
	"                          route's interface) and its name as the "
	"tap's,\n"
	"                          as pasta does; -a, -g, -I still override. "
	"No\n"
	"                          DNS forwarder unless --dns-forward\n"
	"  --map-host-loopback ADDR|none\n"
	"                          connections to ADDR reach the host's "
	"127.0.0.1\n"
	"                          (::1); default the gateway; none: "
	"--no-map-gw\n"
	"  --map-guest-addr ADDR|none\n"
	"                          connections to ADDR reach the host's own "
	"address\n"
	"                          (e.g. 169.254.1.2 for "
	"host.containers.internal)\n"
	"  --dns-forward ADDR      the DNS forwarder's address (IPv4 or IPv6), "
	"e.g.\n"
	"                          169.254.1.1\n"
	"  --host-lo-to-ns-lo      with --copy-host-addrs: spliced loopback "
	"clients\n"
	"                          reach the guest's loopback, not its "
	"address\n"
	"\n";

/* the second half: one string may not pass 4095 bytes in ISO C */
static const char usage_text2[] =
	"Published ports:\n"
	"  -t, --tcp-ports SPEC    publish host TCP ports to the guest; "
	"repeatable.\n"
	"                          SPEC is none, auto, all, or "
	"[ADDR[%IFNAME]/]\n"
	"                          then a comma list of "
	"PORT[-END][:GUESTPORT[-END]]\n"
	"                          (GUESTPORT may follow GUESTADDR/), "
	"~PORT[-END]\n"
	"                          (excluded) and auto:\n"
	"                            -t 8080            host 8080 -> guest "
	"8080\n"
	"                            -t 8080:80         host 8080 -> guest 80\n"
	"                            -t 127.0.0.1/2222:22  loopback only\n"
	"                            -t 9000-9009,~9005 a range, one to one, "
	"less 9005\n"
	"                            -t ~22             all non-ephemeral "
	"ports but 22\n"
	"                            -t auto            the ports the guest "
	"listens on,\n"
	"                                               followed as they "
	"change\n"
	"                          Without ADDR, all addresses (IPv4 and "
	"IPv6).\n"
	"  -u, --udp-ports SPEC    publish host UDP ports, same SPEC as -t "
	"(auto: the\n"
	"                          guest's bound UDP ports and its TCP "
	"listeners')\n"
	"  --no-splice             carry loopback clients of -t ports through "
	"the tap\n"
	"                          too (default: spliced to the guest's "
	"loopback)\n"
	"  -T, --tcp-ns-ports SPEC guest loopback TCP ports spliced to host "
	"loopback\n"
	"                          ports: as -t, no ADDR; auto: the host's "
	"listeners\n"
	"  -U, --udp-ns-ports SPEC guest loopback UDP ports forwarded to host "
	"loopback\n"
	"                          ports: as -T, no auto\n";

static const char usage_text3[] =
	"\n"
	"Limits and tuning:\n"
	"  --shards N              event-loop threads, one tap queue each, "
	"1..8\n"
	"                          (default: half the online CPUs, 1 to 4)\n"
	"  --max-flows N           TCP flow table size (default: 16384)\n"
	"  --max-udp-flows N       UDP/ICMP flow table size (default: 4096)\n"
	"  --udp-timeout SECONDS   idle UDP flows close after this (default: "
	"180)\n"
	"  --no-offload            no checksum/TSO offload on the tap\n"
	"  --ack-every N           ACK the guest at least every N full-sized "
	"segments\n"
	"                          received, within a batch too (default: 0, "
	"only\n"
	"                          once per batch of frames)\n"
	"  --no-peek-offset        do not use SO_PEEK_OFF (test the fallback)\n"
	"  --impair DIR:KIND=V[,..] testing: impair the guest's link; DIR up "
	"(guest\n"
	"                          to host) or down; KIND drop, dup, reorder,\n"
	"                          corrupt (V a percentage) or delay (V in "
	"ms)\n"
	"  --impair-seed N         seed of --impair's choices (default 1)\n"
	"  --no-place              vhost-user: copy TCP payload into guest "
	"buffers\n"
	"                          instead of peeking it there (for "
	"comparison)\n"
	"\n"
	"Sandbox (after set-up; see SECURITY in slipway(1)):\n"
	"  --runas USER[:GROUP]    as root, become USER (name or uid) and "
	"GROUP\n"
	"                          (default: USER's group)\n"
	"  --no-sandbox            keep privileges, filesystem and all system "
	"calls\n"
	"  --seccomp-log           log system calls off the allowlist (kernel "
	"log)\n"
	"                          instead of killing the process\n"
	"\n"
	"Output and control:\n"
	"  --stats-file PATH       write counters as JSON there at exit and "
	"on\n"
	"                          SIGUSR1 (without it, SIGUSR1 writes them "
	"to\n"
	"                          standard error, and exit nothing)\n"
	"  --migrate-from PATH     live migration destination: take the "
	"source's\n"
	"                          flows on a unix socket there (vhost-user)\n"
	"  --migrate-to PATH       live migration source: when the VM stops "
	"with\n"
	"                          dirty logging on, hand every flow to the "
	"slipway\n"
	"                          listening there, then exit (vhost-user)\n"
	"  --migrate-repair        sockets travel as TCP_REPAIR state (for "
	"another\n"
	"                          host; keeps CAP_NET_ADMIN); alone: through "
	"the\n"
	"                          frontend's device state (QEMU 8.2 and "
	"later)\n"
	"  --ctl PATH|none         serve the JSON control API on a unix "
	"socket\n"
	"                          there (stats, flows, version, forwards); "
	"query\n"
	"                          it with 'slipway ctl PATH CMD'; default:\n"
	"                          RUNDIR/PID.sock (see slipway(1)); none: "
	"off\n"
	"  --metrics [ADDR:]PORT   serve Prometheus metrics over HTTP at\n"
	"                          /metrics (ADDR default: 127.0.0.1)\n"
	"  --pcap FILE             write every frame crossing the edge to "
	"FILE\n"
	"                          (pcap, Ethernet, no virtio-net header)\n"
	"  --pcap-max BYTES        stop capturing at this file size (k, M, G\n"
	"                          suffixes; default: 100M)\n"
	"  -v, --verbose           what is served, and a one-line summary at "
	"exit\n"
	"  -q, --quiet             errors only\n"
	"  -d, --debug             debug messages\n"
	"  --trace                 per-packet trace messages\n"
	"  -h, --help              this text\n"
	"  --version               print the version\n"
	"\n"
	"Client: slipway ctl PATH stats|flows|version|forwards [--json]\n"
	"        slipway ls [--json]        the running instances\n"
	"        slipway top [PID|PATH]     its flows, live (see --help)\n"
	"\n"
	"Exit status: COMMAND's status; 1 on a run-time failure; 2 on a bad\n"
	"command line. See slipway(1) for details and examples.\n";

enum {
	OPT_NETNS = 256,
	OPT_NO_CONFIG,
	OPT_USERNS,
	OPT_NO_USERNS,
	OPT_CIDR,
	OPT_NO_MAP_GW,
	OPT_MAX_FLOWS,
	OPT_NO_OFFLOAD,
	OPT_NO_PEEK_OFF,
	OPT_NO_PLACE,
	OPT_IMPAIR,
	OPT_IMPAIR_SEED,
	OPT_STATS_FILE,
	OPT_MIGRATE_TO,
	OPT_MIGRATE_FROM,
	OPT_MIGRATE_REPAIR,
	OPT_TRACE,
	OPT_VERSION,
	OPT_NO_DHCP,
	OPT_NO_DNS,
	OPT_DNS_ADDR,
	OPT_RESOLV_CONF,
	OPT_MAX_UDP_FLOWS,
	OPT_UDP_TIMEOUT,
	OPT_SHARDS,
	OPT_ACK_EVERY,
	OPT_NO_SPLICE,
	OPT_IPV6_PREFIX,
	OPT_NO_IPV6,
	OPT_STREAM,
	OPT_DGRAM,
	OPT_FD,
	OPT_VHOST_USER,
	OPT_RUNAS,
	OPT_NO_SANDBOX,
	OPT_SECCOMP_LOG,
	OPT_CTL,
	OPT_METRICS,
	OPT_PCAP,
	OPT_PCAP_MAX,
	OPT_OUT_IF4,
	OPT_OUT_IF6,
	OPT_FQDN,
	OPT_PRINT_CAPS,
	OPT_COPY_HOST_ADDRS,
	OPT_MAP_GUEST_ADDR,
	OPT_MAP_HOST_LOOPBACK,
	OPT_DNS_FORWARD,
	OPT_HOST_LO_TO_NS_LO,
};

#define CONF_STR_(x) #x
#define CONF_STR(x) CONF_STR_(x) /* a number macro's digits */

int conf_usage_status = 2;

void conf_usage_verror(const char *prog, const char *hint, const char *fmt,
		       va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n%s\n", hint);
	exit(conf_usage_status);
}

/**
 * usage_error() - report a bad command line and exit 2
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_usage_verror("slipway", "Try 'slipway --help' for the options.",
			  fmt, ap);
}

int conf_parse_uint(const char *s, unsigned long min, unsigned long max,
		    unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v < min || *v > max)
		return -1;
	return 0;
}

/**
 * parse_port_range() - parse "PORT" or "PORT-END"
 * @s:		text (modified: the '-' is cut)
 * @first:	result
 * @last:	result (== @first without a range)
 *
 * Return: 0, or -1
 */
static int parse_port_range(char *s, uint16_t *first, uint16_t *last)
{
	char *dash = strchr(s, '-');
	unsigned long a, b;

	if (dash)
		*dash = '\0';
	if (conf_parse_uint(s, 1, 65535, &a))
		return -1;
	b = a;
	if (dash && conf_parse_uint(dash + 1, 1, 65535, &b))
		return -1;
	if (b < a)
		return -1;
	*first = (uint16_t)a;
	*last = (uint16_t)b;
	return 0;
}

/**
 * fwd_ifname_ok() - is this a name an interface can have?
 * @s:		name
 *
 * As the kernel's dev_valid_name(), and without the characters the spec
 * syntax uses ('%', ',', '~').
 *
 * Return: true if it is
 */
static bool fwd_ifname_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len >= FWD_SPEC_IFNAMSIZ || !strcmp(s, ".") ||
	    !strcmp(s, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~' || strchr("/:%,~", s[i]))
			return false;
	return true;
}

/**
 * fwd_addr_parse() - parse an address, "[ADDR]" or "ADDR", IPv4 or IPv6
 * @a:		text (modified: brackets cut)
 * @family:	result: AF_INET or AF_INET6
 * @addr:	result: IPv6, or IPv4 in bytes 12..15 and zeros before
 *
 * Return: 0, or -1
 */
static int fwd_addr_parse(char *a, int *family, struct in6_addr *addr)
{
	size_t al = strlen(a);

	if (al >= 2 && a[0] == '[' && a[al - 1] == ']') {
		a[al - 1] = '\0';
		a++;
	}
	memset(addr, 0, sizeof(*addr));
	if (inet_pton(AF_INET, a, &addr->s6_addr[12]) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, a, addr) == 1) {
		*family = AF_INET6;
		return 0;
	}
	memset(addr, 0, sizeof(*addr));
	return -1;
}

/**
 * fwd_prefix_split() - take the "ADDR[%IFNAME]/" prefix off a spec
 * @buf:	text (modified: the prefix is cut off)
 * @f:		@family, @addr and @ifname set from the prefix (left alone
 *		without one)
 * @why:	reason on failure
 *
 * The prefix is what comes before the first '/', if that is an address,
 * an address with an interface, or an interface alone. Otherwise there is
 * none, and the '/' belongs to a TOADDR (an IPv6 TOADDR right after the
 * ':' reads as a prefix: it takes brackets then).
 *
 * Return: the text after the prefix, or NULL with a reason in @why
 */
static char *fwd_prefix_split(char *buf, struct fwd_spec *f, const char **why)
{
	char *slash = strchr(buf, '/'), *pct, *comma;
	char tmp[128];

	if (!slash)
		return buf;
	comma = strchr(buf, ',');
	if (comma && comma < slash)
		return buf; /* the '/' is in a later item's TOADDR */
	if ((size_t)(slash - buf) >= sizeof(tmp)) {
		*why = "the address is too long";
		return NULL;
	}
	memcpy(tmp, buf, (size_t)(slash - buf));
	tmp[slash - buf] = '\0';
	pct = strchr(tmp, '%');
	if (pct) {
		*pct = '\0';
		if (!fwd_ifname_ok(pct + 1)) {
			*why = "bad interface name after '%' (1 to 15 "
			       "characters)";
			return NULL;
		}
	}
	if (*tmp && fwd_addr_parse(tmp, &f->family, &f->addr)) {
		/* "80:10.0.2.16/80": a TOADDR, not a prefix */
		if (!pct && strchr(tmp, ':') &&
		    tmp[strspn(tmp, "0123456789-")] == ':')
			return buf;
		*why = "the address is not an IPv4 or IPv6 address";
		return NULL;
	}
	if (!*tmp && !pct) {
		*why = "nothing before the '/': expected an address or %IFNAME";
		return NULL;
	}
	if (pct)
		strcpy(f->ifname, pct + 1);
	return slash + 1;
}

/**
 * fwd_range_parse() - parse "FIRST[-LAST][:[TOADDR/]TOFIRST[-TOLAST]]"
 * @s:		text (modified)
 * @f:		@first, @last, @guest_first, @to_family and @to_addr set
 * @why:	reason on failure
 *
 * Return: 0, or -1 with a reason in @why
 */
static int fwd_range_parse(char *s, struct fwd_spec *f, const char **why)
{
	char *colon = strchr(s, ':'), *to;
	uint16_t gfirst, glast;

	if (colon)
		*colon = '\0';
	if (parse_port_range(s, &f->first, &f->last)) {
		*why = "bad host port or range (1-65535, FIRST-LAST)";
		return -1;
	}
	f->guest_first = f->first;
	if (!colon)
		return 0;
	to = colon + 1;
	if (strrchr(to, '/')) {
		char *slash = strrchr(to, '/');

		*slash = '\0';
		if (fwd_addr_parse(to, &f->to_family, &f->to_addr)) {
			*why = "the target address is not an IPv4 or IPv6 "
			       "address";
			return -1;
		}
		to = slash + 1;
	}
	if (parse_port_range(to, &gfirst, &glast)) {
		*why = "bad guest port or range (1-65535, FIRST-LAST)";
		return -1;
	}
	if (glast != gfirst && glast - gfirst != f->last - f->first) {
		*why = "host and guest ranges differ in size";
		return -1;
	}
	if (glast == gfirst && f->last != f->first) {
		*why = "a host range needs a guest range of the same size";
		return -1;
	}
	f->guest_first = gfirst;
	return 0;
}

/**
 * fwd_spec_parse() - parse one range:
 * "[ADDR[%IFNAME]/]FIRST[-LAST][:[TOADDR/]TOFIRST[-TOLAST]]"
 * @s:		text
 * @f:		result
 * @why:	reason on failure
 *
 * Return: 0, or -1 with a reason in @why
 */
int fwd_spec_parse(const char *s, struct fwd_spec *f, const char **why)
{
	char buf[128], *ports;

	memset(f, 0, sizeof(*f));
	f->family = AF_UNSPEC;
	f->to_family = AF_UNSPEC;
	if (strlen(s) >= sizeof(buf)) {
		*why = "too long";
		return -1;
	}
	strcpy(buf, s);
	ports = fwd_prefix_split(buf, f, why);
	if (!ports)
		return -1;
	if (strchr(ports, ',')) {
		*why = "one range only (no ',')";
		return -1;
	}
	return fwd_range_parse(ports, f, why);
}

#define FWD_OPT_MAX_EXCL 64

/**
 * fwd_opt_emit() - append a range, less the excluded ports
 * @f:		the range
 * @excl:	excluded ranges, [i][0] first, [i][1] last
 * @k:		the first exclusion not yet applied to @f
 * @nexcl:	entries in @excl
 * @out:	output array
 * @max:	room in @out
 * @n:		entries in @out
 *
 * Return: 0, or -1 if @out is full
 */
static int fwd_opt_emit(const struct fwd_spec *f, uint16_t (*excl)[2],
			unsigned k, unsigned nexcl, struct fwd_spec *out,
			unsigned max, unsigned *n)
{
	for (; k < nexcl; k++) {
		struct fwd_spec part = *f;

		if (excl[k][1] < f->first || excl[k][0] > f->last)
			continue;
		if (excl[k][0] > f->first) {
			part.last = (uint16_t)(excl[k][0] - 1);
			if (fwd_opt_emit(&part, excl, k + 1, nexcl, out, max,
					 n))
				return -1;
		}
		if (excl[k][1] < f->last) {
			part = *f;
			part.first = (uint16_t)(excl[k][1] + 1);
			part.guest_first = (uint16_t)(f->guest_first +
						      (part.first - f->first));
			if (fwd_opt_emit(&part, excl, k + 1, nexcl, out, max,
					 n))
				return -1;
		}
		return 0;
	}
	if (*n >= max)
		return -1;
	out[(*n)++] = *f;
	return 0;
}

/**
 * fwd_opt_parse() - parse the value of a -t, -u, -T or -U option
 * @s:		text
 * @out:	ranges are appended here, exclusions taken out
 * @max:	room in @out
 * @n:		in: entries already in @out; out: after the new ones
 * @why:	reason on failure
 *
 * Return: 0, or -1 with a reason in @why
 */
int fwd_opt_parse(const char *s, struct fwd_spec *out, unsigned max,
		  unsigned *n, const char **why)
{
	struct fwd_spec base = { .family = AF_UNSPEC, .to_family = AF_UNSPEC };
	uint16_t excl[FWD_OPT_MAX_EXCL][2];
	struct fwd_spec incl[FWD_OPT_MAX_EXCL];
	unsigned nexcl = 0, nincl = 0, i;
	char buf[256], *list, *item, *save = NULL;
	bool is_auto = false;

	if (strlen(s) >= sizeof(buf)) {
		*why = "too long";
		return -1;
	}
	if (!strcmp(s, "none"))
		return 0;
	strcpy(buf, s);
	list = fwd_prefix_split(buf, &base, why);
	if (!list)
		return -1;
	if (!*list || *list == ',' || list[strlen(list) - 1] == ',' ||
	    strstr(list, ",,")) {
		*why = "an empty item";
		return -1;
	}
	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		struct fwd_spec f = base;

		if (!strcmp(item, "auto")) {
			is_auto = true;
			continue;
		}
		if (*item == '~') {
			if (nexcl == FWD_OPT_MAX_EXCL) {
				*why = "too many exclusions";
				return -1;
			}
			if (parse_port_range(item + 1, &excl[nexcl][0],
					     &excl[nexcl][1])) {
				*why = "bad excluded port or range "
				       "(~FIRST[-LAST])";
				return -1;
			}
			nexcl++;
			continue;
		}
		if (nincl == FWD_OPT_MAX_EXCL) {
			*why = "too many ranges";
			return -1;
		}
		if (!strncmp(item, "all", 3) && (!item[3] || item[3] == ':')) {
			f.first = f.guest_first = 1;
			f.last = 65535;
			f.flags = FWD_SPEC_ALL;
			if (item[3] && fwd_addr_parse(item + 4, &f.to_family,
						      &f.to_addr)) {
				*why = "bad target address after 'all:'";
				return -1;
			}
		} else if (fwd_range_parse(item, &f, why)) {
			return -1;
		}
		incl[nincl++] = f;
	}
	if (!nincl && (is_auto || nexcl)) {
		/* "auto": every port; exclusions only: every other
		 * non-ephemeral one */
		incl[0] = base;
		incl[0].first = incl[0].guest_first = 1;
		incl[0].last = 65535;
		incl[0].flags = is_auto ? 0 : FWD_SPEC_ALL;
		nincl = 1;
	}
	for (i = 0; i < nincl; i++) {
		if (is_auto)
			incl[i].flags = FWD_SPEC_AUTO;
		if (fwd_opt_emit(&incl[i], excl, 0, nexcl, out, max, n)) {
			*why = "too many ranges";
			return -1;
		}
	}
	return 0;
}

/**
 * conf_has_auto() - does any -t, -u or -T option say "auto"?
 * @c:		configuration
 *
 * Return: true if one does
 */
bool conf_has_auto(const struct conf *c)
{
	unsigned i;

	for (i = 0; i < c->nfwd; i++)
		if (c->fwd[i].flags & FWD_SPEC_AUTO)
			return true;
	for (i = 0; i < c->nufwd; i++)
		if (c->ufwd[i].flags & FWD_SPEC_AUTO)
			return true;
	for (i = 0; i < c->nnsfwd; i++)
		if (c->nsfwd[i].flags & FWD_SPEC_AUTO)
			return true;
	return false;
}

/**
 * conf_metrics_parse() - parse "PORT", "ADDR:PORT" or "[ADDR6]:PORT"
 * @s:		text
 * @ss:		result (loopback 127.0.0.1 without an address)
 *
 * Return: 0, or -1
 */
int conf_metrics_parse(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	char buf[INET6_ADDRSTRLEN + 16], *colon;
	const char *port = s;
	unsigned long v;

	memset(ss, 0, sizeof(*ss));
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	a4->sin_family = AF_INET;
	a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	colon = strrchr(buf, ':');
	if (colon) {
		char *a = buf;

		*colon = '\0';
		port = s + (colon - buf) + 1;
		if (*a == '[') {
			size_t al = strlen(a);

			if (al < 2 || a[al - 1] != ']')
				return -1;
			a[al - 1] = '\0';
			a++;
			a6->sin6_family = AF_INET6;
			if (inet_pton(AF_INET6, a, &a6->sin6_addr) != 1)
				return -1;
		} else if (inet_pton(AF_INET, a, &a4->sin_addr) != 1) {
			return -1;
		}
	}
	if (conf_parse_uint(port, 1, 65535, &v))
		return -1;
	if (ss->ss_family == AF_INET6)
		a6->sin6_port = htons((uint16_t)v);
	else
		a4->sin_port = htons((uint16_t)v);
	return 0;
}

/**
 * conf_size_parse() - parse a byte count: digits with an optional k, M or G
 * suffix (powers of 1024)
 * @s:		text
 * @v:		result
 *
 * Return: 0, or -1
 */
int conf_size_parse(const char *s, uint64_t *v)
{
	unsigned long long n;
	unsigned shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		switch (*end) {
		case 'k':
		case 'K':
			shift = 10;
			break;
		case 'm':
		case 'M':
			shift = 20;
			break;
		case 'g':
		case 'G':
			shift = 30;
			break;
		default:
			return -1;
		}
		if (end[1])
			return -1;
	}
	if (n > (UINT64_MAX >> shift))
		return -1;
	*v = (uint64_t)n << shift;
	return 0;
}

/**
 * parse_cidr4() - parse "ADDR/PREFIX" or "ADDR"
 * @s:		text
 * @addr:	result, network order
 * @prefix:	result; unchanged without "/PREFIX"
 *
 * Return: 0, or -1
 */
static int parse_cidr4(const char *s, uint32_t *addr, uint8_t *prefix)
{
	char buf[64], *slash;
	unsigned long p;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (conf_parse_uint(slash + 1, 1, 30, &p))
			return -1;
		*prefix = (uint8_t)p;
	}
	return inet_pton(AF_INET, buf, addr) == 1 ? 0 : -1;
}

int conf_outbound_addr(struct conf *c, const char *s, int family,
		       const char **why)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (family != AF_INET6 && inet_pton(AF_INET, s, &a4) == 1) {
		uint32_t h = ntohl(a4.s_addr);

		if (!h || h == 0xffffffffU || (h >> 28) == 0xe) {
			*why = "unspecified, broadcast or multicast";
			return -1;
		}
		if (c->outbound4.s_addr) {
			*why = "one IPv4 outbound address at most";
			return -1;
		}
		c->outbound4 = a4;
		return 0;
	}
	if (family != AF_INET && inet_pton(AF_INET6, s, &a6) == 1) {
		if (IN6_IS_ADDR_UNSPECIFIED(&a6) || IN6_IS_ADDR_LOOPBACK(&a6) ||
		    IN6_IS_ADDR_V4MAPPED(&a6) || IN6_IS_ADDR_MULTICAST(&a6)) {
			*why = "unspecified, loopback, v4-mapped or multicast";
			return -1;
		}
		if (!IN6_IS_ADDR_UNSPECIFIED(&c->outbound6)) {
			*why = "one IPv6 outbound address at most";
			return -1;
		}
		c->outbound6 = a6;
		return 0;
	}
	*why = family == AF_INET  ? "not an IPv4 address" :
	       family == AF_INET6 ? "not an IPv6 address" :
				    "not an IPv4 or IPv6 address";
	return -1;
}

/**
 * parse_prefix6() - parse "PREFIX/64" or "PREFIX" (meaning /64)
 * @s:		text
 * @p:		result: the prefix, host bits zero
 * @why:	reason on failure
 *
 * The prefix must be a /64 of unicast addresses the host can route to the
 * guest: not multicast, link-local, loopback, unspecified or v4-mapped,
 * with no bits set past the 64th.
 *
 * Return: 0, or -1
 */
static int parse_prefix6(const char *s, struct in6_addr *p, const char **why)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	static const uint8_t zero[8];

	if (strlen(s) >= sizeof(buf)) {
		*why = "too long";
		return -1;
	}
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (strcmp(slash + 1, "64")) {
			*why = "only /64 prefixes are supported";
			return -1;
		}
	}
	if (inet_pton(AF_INET6, buf, p) != 1) {
		*why = "not an IPv6 address";
		return -1;
	}
	if (memcmp(p->s6_addr + 8, zero, 8)) {
		*why = "bits set past the first 64";
		return -1;
	}
	if (IN6_IS_ADDR_MULTICAST(p) || IN6_IS_ADDR_LINKLOCAL(p) ||
	    IN6_IS_ADDR_V4MAPPED(p) || !memcmp(p->s6_addr, zero, 8)) {
		*why = "not a unicast prefix the host can route (multicast, "
		       "link-local, v4-mapped or ::)";
		return -1;
	}
	return 0;
}

/**
 * parse_runas() - parse "USER[:GROUP]": names or numbers
 * @s:		text
 * @uid:	result
 * @gid:	result: GROUP, or USER's primary group (a number USER that
 *		names nobody: the same number)
 * @why:	reason on failure
 *
 * Names are looked up now, with the host's files at hand.
 *
 * Return: 0, or -1
 */
static int parse_runas(const char *s, uid_t *uid, gid_t *gid, const char **why)
{
	char buf[256], *colon;
	struct passwd *pw;
	struct group *gr;
	unsigned long v;

	if (!*s || strlen(s) >= sizeof(buf)) {
		*why = "empty or too long";
		return -1;
	}
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (!*buf) {
		*why = "no user";
		return -1;
	}
	if (!conf_parse_uint(buf, 0, UINT32_MAX - 1, &v)) {
		*uid = (uid_t)v;
		pw = getpwuid(*uid);
		*gid = pw ? pw->pw_gid : (gid_t)v;
	} else if ((pw = getpwnam(buf))) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
	} else {
		*why = "no such user";
		return -1;
	}
	if (!colon)
		return 0;
	if (!colon[1]) {
		*why = "empty group";
		return -1;
	}
	if (!conf_parse_uint(colon + 1, 0, UINT32_MAX - 1, &v)) {
		*gid = (gid_t)v;
	} else if ((gr = getgrnam(colon + 1))) {
		*gid = gr->gr_gid;
	} else {
		*why = "no such group";
		return -1;
	}
	return 0;
}

/**
 * conf_dhcp_name_check() - is this a name DHCP can hand out?
 * @s:		the name (--hostname, --fqdn)
 * @fqdn:	a fully qualified name: may end in a dot (the root), at most
 *		CONF_FQDN_MAX characters without it (DHCPv4 option 81 holds
 *		no more)
 * @why:	reason on failure
 *
 * Host names as RFC 952 and RFC 1123 have them: dot-separated labels of 1
 * to 63 letters, digits and hyphens, no hyphen first or last; at most 253
 * characters in all.
 *
 * Return: 0, or -1 with a reason in @why
 */
int conf_dhcp_name_check(const char *s, bool fqdn, const char **why)
{
	size_t len = strlen(s), label = 0, i;

	if (fqdn && len > 1 && s[len - 1] == '.')
		len--;
	if (!len) {
		*why = "empty";
		return -1;
	}
	if (len > (fqdn ? CONF_FQDN_MAX : CONF_HOSTNAME_MAX)) {
		*why = fqdn ? "longer than 250 characters" :
			      "longer than 253 characters";
		return -1;
	}
	for (i = 0; i <= len; i++) {
		char ch = i < len ? s[i] : '.';

		if (ch == '.') {
			if (!label) {
				*why = "an empty label (two dots, or a dot "
				       "first)";
				return -1;
			}
			if (s[i - 1] == '-') {
				*why = "a label ends with '-'";
				return -1;
			}
			label = 0;
			continue;
		}
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '-')) {
			*why = "only letters, digits, '-' and '.' may appear";
			return -1;
		}
		if (!label && ch == '-') {
			*why = "a label starts with '-'";
			return -1;
		}
		if (++label > 63) {
			*why = "a label is longer than 63 characters";
			return -1;
		}
	}
	return 0;
}

/**
 * conf_dhcp_name_wire() - a checked name in DNS wire format (RFC 1035)
 * @s:		the name, conf_dhcp_name_check() passed it as an FQDN
 * @out:	CONF_FQDN_MAX + 2 bytes
 *
 * Return: bytes written, the root label's 0 included
 */
size_t conf_dhcp_name_wire(const char *s, uint8_t *out)
{
	size_t n = 0, at = 0;

	out[0] = 0;
	for (; *s && n <= CONF_FQDN_MAX; s++) {
		if (*s == '.') {
			if (!s[1])
				break; /* the root, written below */
			at = ++n;
			out[at] = 0;
			continue;
		}
		out[++n] = (uint8_t)*s;
		out[at]++;
	}
	out[++n] = 0;
	return n + 1;
}

/**
 * conf_print_capabilities() - --print-capabilities: what the vhost-user
 * "Backend program conventions" ask of a backend program
 *
 * A JSON object as QEMU's docs/interop/vhost-user.json describes it
 * (VHostUserBackendCapabilities): a network backend has its type and no
 * features. Goes to standard output; the program then exits 0.
 */
_Noreturn void conf_print_capabilities(void)
{
	fputs("{\n  \"type\": \"net\"\n}\n", stdout);
	exit(fflush(stdout) ? 1 : 0);
}

/**
 * conf_cmdline_run() - read the options of a command line, each in order as
 * its row says
 * @cl:		the command line's description
 * @argc:	argument count
 * @argv:	arguments
 * @st:		handed to the rows' handlers
 * @fields:	the fields the rows' @off point into
 *
 * getopt_long() takes the long options in table order (an abbreviation
 * that fits two options is ambiguous unless they share an id) and the
 * short ones in the order they first appear.
 *
 * Return: optind: the first argument that is not an option
 */
int conf_cmdline_run(const struct conf_cmdline *cl, int argc, char **argv,
		     void *st, void *fields)
{
	struct option lo[CONF_OPTS_MAX + 1];
	char so[8 + 2 * CONF_OPTS_MAX + 1];
	const struct conf_opt *r;
	size_t n = 0, sl;
	unsigned long v;
	int o;

	ASSERT(strlen(cl->flags) < 8);
	strcpy(so, cl->flags);
	sl = strlen(so);
	for (r = cl->opts; r->name; r++, n++) {
		ASSERT(n < CONF_OPTS_MAX);
		lo[n] = (struct option){ r->name, r->has_arg, NULL, r->id };
		if (r->id >= 256 || memchr(so, r->id, sl))
			continue;
		so[sl++] = (char)r->id;
		if (r->has_arg)
			so[sl++] = ':';
		so[sl] = '\0';
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };

	while ((o = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		for (r = cl->opts; r->name && r->id != o; r++)
			;
		if (!r->name) { /* '?' or ':' */
			if (cl->bad)
				cl->bad(st, o, argv[optind - 1]);
			if (o == ':')
				cl->error("option '%s' needs a value",
					  argv[optind - 1]);
			if (optopt && optopt < 256)
				cl->error("unknown option '-%c'", optopt);
			cl->error("unknown option '%s'", argv[optind - 1]);
		}
		switch (r->kind) {
		case CONF_OPT_CALL:
			r->fn(st, r, optarg);
			break;
		case CONF_OPT_TRUE:
		case CONF_OPT_FALSE:
			*(bool *)((char *)fields + r->off) = r->kind ==
							     CONF_OPT_TRUE;
			break;
		case CONF_OPT_STR:
			*(const char **)((char *)fields + r->off) = optarg;
			break;
		case CONF_OPT_U32:
			if (conf_parse_uint(optarg, r->min, r->max, &v))
				cl->error("bad %s '%s': expected %s", r->label,
					  optarg, r->expect);
			*(uint32_t *)((char *)fields + r->off) = (uint32_t)v;
			break;
		case CONF_OPT_NOP:
			break;
		}
	}
	return optind;
}

_Noreturn void conf_opt_print_caps(void *st, const struct conf_opt *o,
				   char *arg)
{
	conf_print_capabilities();
}

/**
 * conf_set_netns() - --netns PATH|NAME
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_netns(struct conf_st *st, const char *arg)
{
	if (!*arg)
		usage_error("--netns needs a path or a name");
	st->c->netns = arg;
}

/**
 * conf_edge_fd() - the fd number of --fd N
 * @arg:	the value
 *
 * Return: the number (exits on a bad one)
 */
static int conf_edge_fd(const char *arg)
{
	unsigned long v;

	if (conf_parse_uint(arg, 0, INT32_MAX, &v))
		usage_error("bad --fd '%s': expected a file descriptor number",
			    arg);
	return (int)v;
}

/**
 * conf_set_edge() - the edge: --stream PATH, --dgram PATH, --fd N,
 * --vhost-user PATH; with CONF_EDGE_VU and no @arg, vhost-user on the
 * frontend's connected socket a --fd that follows gives (QEMU 10.1
 * -netdev passt)
 * @st:		the parse
 * @kind:	CONF_EDGE_STREAM, _DGRAM, _FD or _VU
 * @arg:	the path, the fd number, or NULL (CONF_EDGE_VU)
 */
void conf_set_edge(struct conf_st *st, enum conf_edge kind, const char *arg)
{
	struct conf *c = st->c;

	if (kind == CONF_EDGE_VU && !arg) {
		c->edge = CONF_EDGE_VU;
		return;
	}
	if (kind == CONF_EDGE_FD && c->edge == CONF_EDGE_VU && !c->sock_path &&
	    c->sock_fd < 0) {
		c->sock_fd = conf_edge_fd(arg);
		return;
	}
	if (c->edge != CONF_EDGE_TAP)
		usage_error("one edge only: --stream, --dgram, --fd and "
			    "--vhost-user exclude each other");
	if (kind == CONF_EDGE_FD) {
		c->sock_fd = conf_edge_fd(arg);
		c->edge = CONF_EDGE_FD;
		return;
	}
	if (!*arg || strlen(arg) >= CONF_SOCK_PATH_MAX)
		usage_error("bad socket path '%s': 1 to %d characters", arg,
			    CONF_SOCK_PATH_MAX - 1);
	c->sock_path = arg;
	c->edge = kind;
}

/**
 * conf_set_cmd() - the COMMAND to run in a new namespace
 * @st:		the parse
 * @cmd:	its arguments, NULL-terminated
 */
void conf_set_cmd(struct conf_st *st, char **cmd)
{
	struct conf *c = st->c;

	if (c->edge != CONF_EDGE_TAP)
		usage_error("a COMMAND cannot be combined with a socket edge "
			    "(got '%s')",
			    cmd[0]);
	if (c->netns)
		usage_error("a COMMAND cannot be combined with --netns (got "
			    "'%s')",
			    cmd[0]);
	c->cmd = cmd;
}

/**
 * conf_set_ifname() - -I, --ifname NAME
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_ifname(struct conf_st *st, const char *arg)
{
	struct conf *c = st->c;

	if (!*arg || strlen(arg) >= 16 || strchr(arg, '/'))
		usage_error(
			"bad interface name '%s': 1 to 15 characters, no '/'",
			arg);
	c->ifname = arg;
	c->ifname_set = true;
}

/**
 * conf_set_address() - -a, --address ADDR[/PREFIX]
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_address(struct conf_st *st, const char *arg)
{
	struct conf *c = st->c;

	if (parse_cidr4(arg, &c->guest4, &c->prefix_len))
		usage_error("bad address '%s': expected an IPv4 address, "
			    "optionally /PREFIX (1-30)",
			    arg);
	st->addr_set = true;
}

/**
 * conf_set_gateway() - -g, --gateway ADDR
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_gateway(struct conf_st *st, const char *arg)
{
	struct conf *c = st->c;

	if (parse_cidr4(arg, &c->gw4, &c->prefix_len) || strchr(arg, '/'))
		usage_error("bad gateway '%s': expected an IPv4 address", arg);
	st->gw_set = true;
}

/**
 * conf_set_cidr() - --cidr NET/PREFIX
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_cidr(struct conf_st *st, const char *arg)
{
	struct conf *c = st->c;

	if (parse_cidr4(arg, &st->net, &c->prefix_len) || !strchr(arg, '/') ||
	    c->prefix_len > 29)
		usage_error("bad --cidr '%s': expected NET/PREFIX, e.g. "
			    "10.0.2.0/24 (prefix 1-29)",
			    arg);
}

/**
 * conf_set_mtu() - -m, --mtu N
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_mtu(struct conf_st *st, const char *arg)
{
	unsigned long v;

	if (conf_parse_uint(arg, 576, 65520, &v))
		usage_error("bad MTU '%s': expected 576 to 65520", arg);
	st->c->mtu = (uint32_t)v;
}

/**
 * conf_set_ns_fwd() - -T, --tcp-ns-ports SPEC; -U, --udp-ns-ports SPEC:
 * ports on the guest's loopback, so no address or interface (and for -U
 * no auto or all)
 * @c:		configuration
 * @o:		'T' or 'U'
 * @arg:	the value
 */
static void conf_set_ns_fwd(struct conf *c, int o, const char *arg)
{
	bool udp = o == 'U';
	struct fwd_spec *f = udp ? c->nsufwd : c->nsfwd;
	unsigned *n = udp ? &c->nnsufwd : &c->nnsfwd, k = *n;
	const char *why;

	if (fwd_opt_parse(arg, f, CONF_MAX_FWD, n, &why))
		usage_error(
			udp ? "bad -U '%s': %s; expected none or "
			      "PORT[-END][:HOSTPORT[-END]][,~PORT[-END]]..." :
			      "bad -T '%s': %s; expected none, auto or "
			      "PORT[-END][:HOSTPORT[-END]][,~PORT[-END]][,auto]"
			      "...",
			arg, why);
	for (; k < *n; k++) {
		if (f[k].family != AF_UNSPEC || f[k].ifname[0] ||
		    f[k].to_family != AF_UNSPEC)
			usage_error("bad -%c '%s': no address or interface: "
				    "the port is on the guest's loopback and "
				    "goes to the host's; expected "
				    "PORT[-END][:HOSTPORT[-END]]",
				    o, arg);
		if (udp && (f[k].flags & (FWD_SPEC_AUTO | FWD_SPEC_ALL)))
			usage_error("bad -U '%s': auto and all are not "
				    "supported for -U; give the ports",
				    arg);
	}
}

/**
 * conf_set_fwd() - -t, --tcp-ports SPEC; -u, --udp-ports SPEC; -T and -U
 * (conf_set_ns_fwd())
 * @st:		the parse
 * @o:		the option's letter: 't', 'u', 'T' or 'U'
 * @arg:	the value
 */
void conf_set_fwd(struct conf_st *st, int o, const char *arg)
{
	struct conf *c = st->c;
	const char *why;

	if (o == 'T' || o == 'U') {
		conf_set_ns_fwd(c, o, arg);
		return;
	}
	if (fwd_opt_parse(arg, o == 't' ? c->fwd : c->ufwd, CONF_MAX_FWD,
			  o == 't' ? &c->nfwd : &c->nufwd, &why))
		usage_error("bad -%c '%s': %s; expected none, auto, all or "
			    "[ADDR[%%IFNAME]/]PORT[-END][:[GUESTADDR/"
			    "]GUESTPORT[-END]][,~PORT[-END]][,auto]...",
			    o, arg, why);
}

/**
 * conf_set_ipv6_prefix() - --ipv6-prefix PREFIX/64
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_ipv6_prefix(struct conf_st *st, const char *arg)
{
	const char *why;

	if (parse_prefix6(arg, &st->c->prefix6, &why))
		usage_error("bad --ipv6-prefix '%s': %s; expected PREFIX/64, "
			    "e.g. fd00:5ee:d::/64",
			    arg, why);
	st->prefix6_set = true;
}

/**
 * conf_set_shards() - --shards N
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_shards(struct conf_st *st, const char *arg)
{
	unsigned long v;

	if (conf_parse_uint(arg, 1, SHARDS_MAX, &v))
		usage_error("bad --shards '%s': expected 1 to %d", arg,
			    SHARDS_MAX);
	st->c->shards = (unsigned)v;
	st->shards_set = true;
}

/**
 * conf_set_pcap() - --pcap FILE
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_pcap(struct conf_st *st, const char *arg)
{
	if (!*arg)
		usage_error("--pcap needs a file name");
	st->c->pcap_path = arg;
}

/**
 * conf_set_runas() - --runas USER[:GROUP]
 * @st:		the parse
 * @arg:	the value
 */
void conf_set_runas(struct conf_st *st, const char *arg)
{
	struct conf *c = st->c;
	const char *why;

	if (parse_runas(arg, &c->runas_uid, &c->runas_gid, &why))
		usage_error("bad --runas '%s': %s; expected USER[:GROUP], "
			    "names or numbers",
			    arg, why);
	c->runas = true;
}

/**
 * opt_netns() - --netns PATH|NAME
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_netns(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_netns(st, arg);
}

/**
 * opt_edge() - --stream PATH, --dgram PATH, --fd N, --vhost-user PATH, and
 * --vhost-user --fd N
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_edge(void *st, const struct conf_opt *o, char *arg)
{
	struct conf_st *p = st;

	if (o->id == OPT_VHOST_USER && !strncmp(arg, "--fd", 4) &&
	    p->c->edge == CONF_EDGE_TAP) {
		optind--; /* no PATH: --fd is the next option */
		conf_set_edge(p, CONF_EDGE_VU, NULL);
		return;
	}
	conf_set_edge(p,
		      o->id == OPT_STREAM ? CONF_EDGE_STREAM :
		      o->id == OPT_DGRAM  ? CONF_EDGE_DGRAM :
		      o->id == OPT_FD	  ? CONF_EDGE_FD :
					    CONF_EDGE_VU,
		      arg);
}

/**
 * opt_ifname() - -I, --ifname NAME
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_ifname(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_ifname(st, arg);
}

/**
 * opt_userns() - --userns, --no-userns
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	NULL
 */
static void opt_userns(void *st, const struct conf_opt *o, char *arg)
{
	struct conf_st *p = st;

	p->c->userns = o->id == OPT_USERNS;
	p->userns_set = true;
}

/**
 * opt_addr4() - -a, --address ADDR[/PREFIX]; -g, --gateway ADDR; --cidr
 * NET/PREFIX
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_addr4(void *st, const struct conf_opt *o, char *arg)
{
	if (o->id == 'a')
		conf_set_address(st, arg);
	else if (o->id == 'g')
		conf_set_gateway(st, arg);
	else
		conf_set_cidr(st, arg);
}

/**
 * opt_mtu() - -m, --mtu N
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_mtu(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_mtu(st, arg);
}

/**
 * opt_outbound() - -o, --outbound ADDR; --outbound-if4 and --outbound-if6
 * IFNAME
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_outbound(void *st, const struct conf_opt *o, char *arg)
{
	struct conf *c = ((struct conf_st *)st)->c;
	const char *why;

	if (o->id == 'o') {
		if (conf_outbound_addr(c, arg, AF_UNSPEC, &why))
			usage_error("bad -o '%s': %s", arg, why);
		return;
	}
	if (!*arg || strlen(arg) >= 16 || strchr(arg, '/'))
		usage_error("bad --outbound-if%c '%s': an interface name of 1 "
			    "to 15 characters, no '/'",
			    o->id == OPT_OUT_IF4 ? '4' : '6', arg);
	if (o->id == OPT_OUT_IF4)
		c->outbound_if4 = arg;
	else
		c->outbound_if6 = arg;
}

/**
 * opt_fwd() - -t, --tcp-ports SPEC; -u, --udp-ports SPEC; -T,
 * --tcp-ns-ports SPEC; -U, --udp-ns-ports SPEC
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_fwd(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_fwd(st, o->id, arg);
}

/**
 * opt_dns_addr() - --dns-addr ADDR
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_dns_addr(void *st, const struct conf_opt *o, char *arg)
{
	struct conf_st *p = st;

	if (inet_pton(AF_INET, arg, &p->c->dns4) != 1)
		usage_error("bad --dns-addr '%s': expected an IPv4 address",
			    arg);
	p->dns_set = true;
}

/**
 * opt_ipv6_prefix() - --ipv6-prefix PREFIX/64
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_ipv6_prefix(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_ipv6_prefix(st, arg);
}

/**
 * opt_shards() - --shards N
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_shards(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_shards(st, arg);
}

/**
 * opt_impair() - --impair DIR:KIND=V[,...]; --impair-seed N
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_impair(void *st, const struct conf_opt *o, char *arg)
{
	struct conf *c = ((struct conf_st *)st)->c;
	unsigned long v;

	if (o->id == OPT_IMPAIR) {
		if (impair_parse(&c->impair, arg))
			usage_error("bad --impair '%s': expected "
				    "up|down:KIND=VALUE[,...] with KIND drop, "
				    "dup, reorder, corrupt (a percentage, e.g. "
				    "1%%) or delay (e.g. 10ms)",
				    arg);
		return;
	}
	if (conf_parse_uint(arg, 0, UINT32_MAX, &v))
		usage_error("bad --impair-seed '%s': expected a number", arg);
	c->impair.seed = v;
}

/**
 * opt_path() - --stats-file PATH, --ctl PATH, --pcap FILE, --migrate-to
 * PATH, --migrate-from PATH: a path that
 * may not be empty (a socket's: no longer than sun_path takes)
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_path(void *st, const struct conf_opt *o, char *arg)
{
	struct conf *c = ((struct conf_st *)st)->c;

	if (o->id == OPT_CTL || o->id == OPT_MIGRATE_TO ||
	    o->id == OPT_MIGRATE_FROM) {
		if (!*arg || strlen(arg) >= CONF_SOCK_PATH_MAX)
			usage_error("bad --%s '%s': a socket path of 1 to %d "
				    "characters",
				    o->name, arg, CONF_SOCK_PATH_MAX - 1);
		if (o->id == OPT_CTL && !strcmp(arg, "none")) {
			c->ctl_path = NULL;
			c->ctl_off = true;
		} else if (o->id == OPT_CTL) {
			c->ctl_path = arg;
			c->ctl_off = false;
		} else if (o->id == OPT_MIGRATE_TO)
			c->migrate_to = arg;
		else
			c->migrate_from = arg;
	} else if (o->id == OPT_PCAP) {
		conf_set_pcap(st, arg);
	} else {
		if (!*arg)
			usage_error("--stats-file needs a path");
		c->stats_file = arg;
	}
}

/**
 * opt_output() - --metrics [ADDR:]PORT; --pcap-max BYTES
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_output(void *st, const struct conf_opt *o, char *arg)
{
	struct conf *c = ((struct conf_st *)st)->c;

	if (o->id == OPT_METRICS) {
		if (conf_metrics_parse(arg, &c->metrics))
			usage_error("bad --metrics '%s': expected PORT, "
				    "ADDR:PORT or [ADDR6]:PORT (port 1-65535)",
				    arg);
		c->metrics_set = true;
		return;
	}
	if (conf_size_parse(arg, &c->pcap_max) || c->pcap_max < 4096)
		usage_error("bad --pcap-max '%s': expected a size of at least "
			    "4096 bytes, e.g. 100M",
			    arg);
}

/**
 * opt_runas() - --runas USER[:GROUP]
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_runas(void *st, const struct conf_opt *o, char *arg)
{
	conf_set_runas(st, arg);
}

/**
 * opt_dhcp_name() - -H, --hostname NAME; --fqdn NAME
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	the value
 */
static void opt_dhcp_name(void *st, const struct conf_opt *o, char *arg)
{
	struct conf *c = ((struct conf_st *)st)->c;
	bool fqdn = o->id == OPT_FQDN;
	const char *why;

	if (conf_dhcp_name_check(arg, fqdn, &why))
		usage_error(
			"bad %s '%s': %s; expected a host name such as vm1%s",
			fqdn ? "--fqdn" : "--hostname", arg, why,
			fqdn ? ".example.org" : "");
	if (fqdn)
		c->fqdn = arg;
	else
		c->hostname = arg;
}

/**
 * opt_copy_host_addrs() - --copy-host-addrs (conf_net.c does the rest)
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	NULL
 */
static void opt_copy_host_addrs(void *st, const struct conf_opt *o, char *arg)
{
	((struct conf_st *)st)->c->addr_model = CONF_ADDR_HOST_COPY;
}

/**
 * opt_log() - -v, --verbose; -q, --quiet; -d, --debug; --trace
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	NULL
 */
static void opt_log(void *st, const struct conf_opt *o, char *arg)
{
	log_max_level = o->id == 'q' ? LOG_ERR :
			o->id == 'v' ? LOG_INFO :
			o->id == 'd' ? LOG_DEBUG :
				       LOG_TRACE;
}

/**
 * opt_help() - -h, --help; --version: print, exit 0
 * @st:		struct conf_st
 * @o:		the row
 * @arg:	NULL
 */
static _Noreturn void opt_help(void *st, const struct conf_opt *o, char *arg)
{
	if (o->id == 'h') {
		fputs(usage_text, stdout);
		fputs(usage_text_net, stdout);
		fputs(usage_text2, stdout);
		fputs(usage_text3, stdout);
	} else {
		printf("slipway %s\n", SLIPWAY_VERSION);
	}
	exit(0);
}

#define P struct conf
/* slipway's options; the order is getopt_long()'s for abbreviations */
static const struct conf_opt conf_opts[] = {
	CONF_OPT_ROW_CALL("netns", OPT_NETNS, 1, opt_netns),
	CONF_OPT_ROW_CALL("stream", OPT_STREAM, 1, opt_edge),
	CONF_OPT_ROW_CALL("dgram", OPT_DGRAM, 1, opt_edge),
	CONF_OPT_ROW_CALL("fd", OPT_FD, 1, opt_edge),
	CONF_OPT_ROW_CALL("vhost-user", OPT_VHOST_USER, 1, opt_edge),
	CONF_OPT_ROW_CALL("ifname", 'I', 1, opt_ifname),
	CONF_OPT_ROW_FALSE("no-config", OPT_NO_CONFIG, P, configure),
	CONF_OPT_ROW_CALL("userns", OPT_USERNS, 0, opt_userns),
	CONF_OPT_ROW_CALL("no-userns", OPT_NO_USERNS, 0, opt_userns),
	CONF_OPT_ROW_CALL("address", 'a', 1, opt_addr4),
	CONF_OPT_ROW_CALL("gateway", 'g', 1, opt_addr4),
	CONF_OPT_ROW_CALL("cidr", OPT_CIDR, 1, opt_addr4),
	CONF_OPT_ROW_CALL("outbound", 'o', 1, opt_outbound),
	CONF_OPT_ROW_CALL("outbound-if4", OPT_OUT_IF4, 1, opt_outbound),
	CONF_OPT_ROW_CALL("outbound-if6", OPT_OUT_IF6, 1, opt_outbound),
	CONF_OPT_ROW_FALSE("no-map-gw", OPT_NO_MAP_GW, P, map_gw),
	CONF_OPT_ROW_FALSE("no-map-host-loopback", OPT_NO_MAP_GW, P, map_gw),
	CONF_OPT_ROW_CALL("runas", OPT_RUNAS, 1, opt_runas),
	CONF_OPT_ROW_FALSE("no-sandbox", OPT_NO_SANDBOX, P, sandbox),
	CONF_OPT_ROW_TRUE("seccomp-log", OPT_SECCOMP_LOG, P, seccomp_log),
	CONF_OPT_ROW_CALL("mtu", 'm', 1, opt_mtu),
	CONF_OPT_ROW_CALL("tcp-ports", 't', 1, opt_fwd),
	CONF_OPT_ROW_CALL("udp-ports", 'u', 1, opt_fwd),
	CONF_OPT_ROW_FALSE("no-splice", OPT_NO_SPLICE, P, splice),
	CONF_OPT_ROW_CALL("tcp-ns-ports", 'T', 1, opt_fwd),
	CONF_OPT_ROW_CALL("udp-ns-ports", 'U', 1, opt_fwd),
	CONF_OPT_ROW_FALSE("no-dhcp", OPT_NO_DHCP, P, dhcp),
	CONF_OPT_ROW_FALSE("no-dns", OPT_NO_DNS, P, dns),
	CONF_OPT_ROW_CALL("dns-addr", OPT_DNS_ADDR, 1, opt_dns_addr),
	CONF_OPT_ROW_CALL("ipv6-prefix", OPT_IPV6_PREFIX, 1, opt_ipv6_prefix),
	CONF_OPT_ROW_FALSE("no-ipv6", OPT_NO_IPV6, P, ipv6),
	CONF_OPT_ROW_STR("resolv-conf", OPT_RESOLV_CONF, P, resolv_conf),
	CONF_OPT_ROW_U32("max-udp-flows", OPT_MAX_UDP_FLOWS, P, max_udp_flows,
			 16, 1U << 22, "--max-udp-flows", "16 to 4194304"),
	CONF_OPT_ROW_U32("udp-timeout", OPT_UDP_TIMEOUT, P, udp_idle_s, 1,
			 86400, "--udp-timeout", "1 to 86400 seconds"),
	CONF_OPT_ROW_U32("max-flows", OPT_MAX_FLOWS, P, max_flows, 16, 1U << 22,
			 "--max-flows", "16 to 4194304"),
	CONF_OPT_ROW_CALL("shards", OPT_SHARDS, 1, opt_shards),
	CONF_OPT_ROW_FALSE("no-offload", OPT_NO_OFFLOAD, P, offload),
	CONF_OPT_ROW_U32("ack-every", OPT_ACK_EVERY, P, ack_every, 0,
			 CONF_ACK_EVERY_MAX, "--ack-every",
			 "0 (only at the end of each batch) to " CONF_STR(
				 CONF_ACK_EVERY_MAX) " segments"),
	CONF_OPT_ROW_TRUE("no-peek-offset", OPT_NO_PEEK_OFF, P, no_peek_off),
	CONF_OPT_ROW_TRUE("no-place", OPT_NO_PLACE, P, no_place),
	CONF_OPT_ROW_CALL("impair", OPT_IMPAIR, 1, opt_impair),
	CONF_OPT_ROW_CALL("impair-seed", OPT_IMPAIR_SEED, 1, opt_impair),
	CONF_OPT_ROW_CALL("stats-file", OPT_STATS_FILE, 1, opt_path),
	CONF_OPT_ROW_CALL("ctl", OPT_CTL, 1, opt_path),
	CONF_OPT_ROW_CALL("metrics", OPT_METRICS, 1, opt_output),
	CONF_OPT_ROW_CALL("pcap", OPT_PCAP, 1, opt_path),
	CONF_OPT_ROW_CALL("migrate-to", OPT_MIGRATE_TO, 1, opt_path),
	CONF_OPT_ROW_CALL("migrate-from", OPT_MIGRATE_FROM, 1, opt_path),
	CONF_OPT_ROW_TRUE("migrate-repair", OPT_MIGRATE_REPAIR, P,
			  migrate_repair),
	CONF_OPT_ROW_CALL("pcap-max", OPT_PCAP_MAX, 1, opt_output),
	CONF_OPT_ROW_CALL("hostname", 'H', 1, opt_dhcp_name),
	CONF_OPT_ROW_CALL("fqdn", OPT_FQDN, 1, opt_dhcp_name),
	CONF_OPT_ROW_PRINT_CAPS(OPT_PRINT_CAPS),
	CONF_OPT_ROW_CALL("verbose", 'v', 0, opt_log),
	CONF_OPT_ROW_CALL("quiet", 'q', 0, opt_log),
	CONF_OPT_ROW_CALL("debug", 'd', 0, opt_log),
	CONF_OPT_ROW_CALL("trace", OPT_TRACE, 0, opt_log),
	CONF_OPT_ROW_CALL("help", 'h', 0, opt_help),
	CONF_OPT_ROW_CALL("version", OPT_VERSION, 0, opt_help),
	CONF_OPT_ROW_CALL("copy-host-addrs", OPT_COPY_HOST_ADDRS, 0,
			  opt_copy_host_addrs),
	CONF_OPT_ROW_STR("map-guest-addr", OPT_MAP_GUEST_ADDR, P,
			 map_guest_addr),
	CONF_OPT_ROW_STR("map-host-loopback", OPT_MAP_HOST_LOOPBACK, P,
			 map_host_loopback),
	CONF_OPT_ROW_STR("dns-forward", OPT_DNS_FORWARD, P, dns_forward),
	CONF_OPT_ROW_TRUE("host-lo-to-ns-lo", OPT_HOST_LO_TO_NS_LO, P,
			  host_lo_to_ns_lo),
	CONF_OPT_ROW_END,
};
#undef P

static const struct conf_cmdline conf_cmdline = {
	.opts = conf_opts,
	.flags = "+:",
	.error = usage_error,
};

/**
 * conf_begin() - slipway's configuration before its options
 * @st:		the parse to start
 * @c:		configuration to fill
 */
void conf_begin(struct conf_st *st, struct conf *c)
{
	unsigned long v;

	*st = (struct conf_st){ .c = c, .net = htonl(0x0a000200) };
	memset(c, 0, sizeof(*c));
	c->sock_fd = -1;
	c->ifname = "tap0";
	c->configure = true;
	c->prefix_len = 24;
	c->mtu = 65520;
	c->impair.seed = 1;
	c->map_gw = true;
	c->max_flows = 16384;
	/* a shard per two CPUs: the guest's stack and the host's endpoints
	 * need the others (docs/experiments.md X27) */
	v = (unsigned long)sysconf(_SC_NPROCESSORS_ONLN);
	c->shards = (unsigned)MIN(MAX(v / 2, 1UL), 4UL);
	c->offload = true;
	c->ack_every = 0; /* docs/experiments.md X6: 2 cost more, moved less */
	c->max_udp_flows = 4096;
	c->udp_idle_s = 180;
	c->dhcp = true;
	c->dns = true;
	c->resolv_conf = "/etc/resolv.conf";
	c->splice = true;
	c->sandbox = true;
	c->ipv6 = true;
	c->pcap_max = 100ULL << 20;
	inet_pton(AF_INET6, CONF_PREFIX6_DEFAULT, &c->prefix6);
}

/**
 * conf_check_edge() - what a socket edge excludes: a COMMAND, --netns, -T,
 * -U, auto forwarding, more than one shard but for vhost-user; what only
 * vhost-user has: live migration
 * @c:		configuration
 * @st:		what the options said
 */
static void conf_check_edge(struct conf *c, const struct conf_st *st)
{
	unsigned i;

	if (c->edge != CONF_EDGE_VU &&
	    (c->migrate_to || c->migrate_from || c->migrate_repair))
		usage_error("--migrate-to, --migrate-from and --migrate-repair "
			    "need --vhost-user: live migration is the "
			    "vhost-user backend's");
	if (c->migrate_to && c->migrate_from &&
	    !strcmp(c->migrate_to, c->migrate_from))
		usage_error("--migrate-to and --migrate-from name the same "
			    "socket: a gateway does not migrate to itself");
	if (c->edge == CONF_EDGE_TAP)
		return;
	if (c->netns)
		usage_error("--netns serves a tap: it cannot be combined with "
			    "--stream, --dgram, --fd or --vhost-user");
	if (c->nnsfwd)
		usage_error("-T needs a namespace: a VM has its own loopback");
	if (c->nnsufwd)
		usage_error("-U needs a namespace: a VM has its own loopback");
	for (i = 0; i < c->nfwd + c->nufwd; i++)
		if ((i < c->nfwd ? c->fwd[i] : c->ufwd[i - c->nfwd]).flags &
		    FWD_SPEC_AUTO)
			usage_error("-t/-u auto needs a namespace: slipway "
				    "cannot see a VM's sockets");
	if (c->edge != CONF_EDGE_VU && st->shards_set && c->shards > 1)
		usage_error("a socket edge has one queue: --shards must be 1 "
			    "(got %u)",
			    c->shards);
	if (c->edge != CONF_EDGE_VU)
		c->shards = 1;
	c->splice = false; /* no namespace to splice into */
}

/**
 * conf_addrs() - derive the guest's, gateway's and DNS addresses not given
 * from the network, and check them; IPv6's from the /64
 * @c:		configuration
 * @st:		what the options said
 */
static void conf_addrs(struct conf *c, const struct conf_st *st)
{
	uint32_t mask = c->prefix_len ? htonl(~0U << (32 - c->prefix_len)) : 0;

	if (!st->addr_set)
		c->guest4 = (st->net & mask) | htonl(15);
	if (!st->gw_set)
		c->gw4 = (c->guest4 & mask) | htonl(2);
	if ((c->guest4 & mask) != (c->gw4 & mask))
		usage_error("the gateway is not in the guest's network /%u",
			    c->prefix_len);
	if (c->guest4 == c->gw4)
		usage_error("the guest and gateway addresses are the same");
	if ((c->guest4 & ~mask) == 0 || (c->guest4 | mask) == 0xffffffffU)
		usage_error("the guest address is the network or broadcast "
			    "address");
	if (!st->dns_set)
		c->dns4 = (c->guest4 & mask) | htonl(3);
	if (c->dns && (c->dns4 == c->guest4 || c->dns4 == c->gw4 ||
		       (c->dns4 & mask) != (c->guest4 & mask)))
		usage_error("the DNS address must be in the guest's network "
			    "and differ from the guest and gateway addresses "
			    "(or use --no-dns)");

	/* IPv6: the /64's hosts as IPv4's; the MTU must be IPv6's minimum */
	if (c->ipv6 && c->mtu < 1280) {
		if (st->prefix6_set)
			usage_error("IPv6 needs an MTU of at least 1280 (got "
				    "%u): raise --mtu or drop --ipv6-prefix",
				    c->mtu);
		c->ipv6 = false; /* logged at start */
	}
	c->guest6 = c->gw6 = c->dns6 = c->prefix6;
	c->guest6.s6_addr[15] = CONF_GUEST6_HOST;
	c->gw6.s6_addr[15] = CONF_GW6_HOST;
	c->dns6.s6_addr[15] = CONF_DNS6_HOST;

	/* for --copy-host-addrs: what was given is not copied (conf_net.c) */
	c->config_net = c->configure;
	c->addr4_set = c->prefix4_set = st->addr_set;
	c->gw4_set = st->gw_set;
}

/**
 * conf_resolv_abs() - --resolv-conf as an absolute path: the sandbox
 * keeps its directory by absolute path
 * @c:		configuration
 */
static void conf_resolv_abs(struct conf *c)
{
	static char abs_resolv[PATH_MAX];

	if (c->resolv_conf[0] == '/')
		return;
	if (!getcwd(abs_resolv, sizeof(abs_resolv)) ||
	    strlen(abs_resolv) + 1 + strlen(c->resolv_conf) >=
		    sizeof(abs_resolv))
		usage_error("--resolv-conf '%s': cannot make it an absolute "
			    "path",
			    c->resolv_conf);
	strcat(abs_resolv, "/");
	strcat(abs_resolv, c->resolv_conf);
	c->resolv_conf = abs_resolv;
}

/**
 * conf_ctl_env() - SLIPWAY_CTL, when no --ctl was given: "none" turns the
 * control socket off, a path sets it (for programs that start us as
 * pasta, passt or slirp4netns, whose command lines have no --ctl)
 * @c:		configuration
 */
static void conf_ctl_env(struct conf *c)
{
	const char *v = getenv("SLIPWAY_CTL");

	if (c->ctl_path || c->ctl_off || !v || !*v)
		return;
	if (!strcmp(v, "none")) {
		c->ctl_off = true;
		return;
	}
	if (strlen(v) >= CONF_SOCK_PATH_MAX)
		usage_error("bad SLIPWAY_CTL '%s': a socket path of 1 to %d "
			    "characters, or none",
			    v, CONF_SOCK_PATH_MAX - 1);
	c->ctl_path = v;
}

/**
 * conf_finish() - after the options: what they exclude together, the
 * addresses not given, the user namespace's default, --resolv-conf made
 * absolute
 * @st:		the parse
 */
void conf_finish(struct conf_st *st)
{
	struct conf *c = st->c;

	conf_check_edge(c, st);
	conf_addrs(c, st);

	conf_ctl_env(c);
	if (c->ctl_path && c->sock_path && !strcmp(c->ctl_path, c->sock_path))
		usage_error(
			"--ctl and the edge's socket cannot be the same path");

	if (!st->userns_set)
		c->userns = !c->netns && geteuid() != 0;
	if (c->seccomp_log && !c->sandbox)
		usage_error("--seccomp-log needs the sandbox: it cannot be "
			    "combined with --no-sandbox");
	conf_resolv_abs(c);
}

/**
 * conf_parse() - parse the command line; exits 2 with a message on errors
 * @c:		configuration to fill
 * @argc:	argument count
 * @argv:	arguments
 */
void conf_parse(struct conf *c, int argc, char **argv)
{
	struct conf_st st;
	int o;

	/* the backend program conventions: other options are ignored */
	for (o = 1; o < argc && strcmp(argv[o], "--"); o++) {
		if (!strcmp(argv[o], "--print-capabilities"))
			conf_print_capabilities();
	}

	conf_begin(&st, c);
	opterr = 0;
	o = conf_cmdline_run(&conf_cmdline, argc, argv, &st, c);
	if (o < argc)
		conf_set_cmd(&st, &argv[o]);
	conf_finish(&st);
}
