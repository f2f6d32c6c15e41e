/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pasta.c - pasta and passt compatibility: their command lines onto
 * slipway's, and their process model */

/**
 * DOC: Theory of Operation
 *
 * Run as "pasta" or "passt" (a symlink to slipway whose name contains
 * either word, as the real programs decide by argv[0]) or as "slipway pasta
 * ARGS" / "slipway passt ARGS", slipway takes that program's command line
 * and behaves as it does for the clients that start it: Podman and Buildah,
 * RootlessKit, libvirt, QEMU's -netdev passt, muvm.
 *
 * Command line. Options are read with getopt_long() and pasta's option
 * string, so "--opt value", "--opt=value" and bundled short options work
 * as with pasta, and an option slipway does not take is reported by glibc
 * itself ("unrecognized option '--foo'", exit status 1): Podman retries
 * without --map-guest-addr on exactly that text. Every option is handled
 * in order, so "--version" after an unknown option fails (RootlessKit
 * probes features that way). As in s4n.c, the command line is translated
 * into slipway's own options and given to conf_parse(), so every check and
 * default is slipway's; what those lack is set in struct conf afterwards
 * (the conf.pasta_mode block, read by the features that serve it). A bad
 * command line exits 1, as pasta's does, not slipway's 2.
 *
 * Targets. pasta: a trailing PID means /proc/PID/ns/net (and, when we are
 * not root, /proc/PID/ns/user unless --userns or --netns-only); --netns
 * PATH|NAME a namespace file; a trailing command (or nothing) a new
 * namespace running it (or a shell), in the foreground. passt: -s PATH a
 * listening socket (QEMU -netdev stream), with --vhost-user a vhost-user
 * one, -F N a connected socket (which implies --one-off; with --vhost-user
 * the vhost-user frontend's, as QEMU 10.1's -netdev passt,vhost-user=on).
 *
 * Process model. Unless -f (or a command), the process forks at once
 * (pasta_daemon_start()): the child sets everything up while the parent
 * relays its messages; once the child is ready (namespace configured,
 * socket listening, ports bound: pasta_ready(), where main() says so to
 * slirp4netns clients too) it leaves its standard streams for /dev/null
 * (or --log-file) and tells the parent, which writes the child's PID to
 * --pid and exits 0. A child that fails first makes the parent exit with
 * its status (1), its messages already relayed. Forking before set-up, not
 * after as pasta does, keeps the helpers set-up forks (namespace, socket
 * and resolv.conf helpers) away from the client's pipes: they hold the
 * relay pipe, not the client's stderr, so a client reading our output to
 * its end (Podman's CombinedOutput()) is not held up by them.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/pasta.h"
#include "util/log.h"
#include "util/util.h"

static const char pasta_usage_text[] =
"Usage: pasta [OPTION]... [COMMAND [ARG]...]\n"
"       pasta [OPTION]... PID\n"
"       pasta [OPTION]... --netns [PATH|NAME]\n"
"       passt [OPTION]...\n"
"\n"
"slipway in pasta/passt compatibility mode: see slipway(1), PASTA AND PASST\n"
"COMPATIBILITY, for what each option does here and which are refused.\n"
"\n"
"  -d, --debug              debug messages\n"
"  --trace                  per-packet messages\n"
"  -q, --quiet              errors only\n"
"  -f, --foreground         do not fork into the background\n"
"  -e, --stderr             (no effect: messages go to stderr until ready)\n"
"  -l, --log-file PATH      messages there once in the background\n"
"  --log-size SIZE          (accepted, no effect)\n"
"  --version                print the version and exit\n"
"  -h, --help               this text\n"
"  --runas UID|UID:GID      become this user after set-up (as root)\n"
"  -P, --pid FILE           write the (background) process's PID there\n"
"  -p, --pcap FILE          capture the guest's frames there\n"
"  -m, --mtu MTU            guest MTU (default: 65520)\n"
"  -a, --address ADDR[/LEN] guest address\n"
"  -n, --netmask MASK       IPv4 prefix length or netmask\n"
"  -g, --gateway ADDR       gateway address\n"
"  -4, --ipv4-only          no IPv6\n"
"  -i, --interface NAME     host interface addresses and routes come from\n"
"  -o, --outbound ADDR      source address of outbound sockets\n"
"  --outbound-if4 NAME      bind outbound IPv4 sockets to NAME\n"
"  --outbound-if6 NAME      bind outbound IPv6 sockets to NAME\n"
"  -D, --dns ADDR|none      (none: no DNS forwarder; ADDR: accepted, ignored)\n"
"  -S, --search LIST|none   (accepted, the host's list is used)\n"
"  --dns-forward ADDR       DNS sent to ADDR goes to the host's resolver\n"
"  --dns-host ADDR          (accepted, the host's resolv.conf is used)\n"
"  -H, --hostname NAME      hostname for DHCP\n"
"  --fqdn NAME              FQDN for DHCP\n"
"  --no-dhcp                no DHCP (v4 and v6)\n"
"  --no-dhcpv6, --no-ndp, --no-ra, --dhcp-dns, --no-dhcp-dns, --dhcp-search,\n"
"  --no-dhcp-search, --freebind, --no-copy-routes, --no-copy-addrs\n"
"                           (accepted, no effect)\n"
"  --map-host-loopback ADDR|none  ADDR reaches the host's loopback\n"
"  --map-guest-addr ADDR|none     ADDR reaches the host as the guest's address\n"
"  --no-map-gw              the gateway does not reach the host's loopback\n"
"  -t, --tcp-ports SPEC     host TCP ports to the guest (none, auto, all,\n"
"                           [ADDR[%IF]/]PORTS)\n"
"  -u, --udp-ports SPEC     the same for UDP\n"
"  -M, --mac-addr ADDR      (accepted, slipway's gateway MAC is fixed)\n"
"pasta only:\n"
"  -I, --ns-ifname NAME     tap name in the namespace (default: tap0)\n"
"  --ns-mac-addr ADDR       the tap's MAC address\n"
"  -T, --tcp-ns SPEC        namespace loopback TCP ports to the host's\n"
"  -U, --udp-ns SPEC        namespace loopback UDP ports to the host's\n"
"  --userns PATH            user namespace to join first\n"
"  --netns PATH|NAME        target namespace (NAME: /run/netns/NAME)\n"
"  --netns-only             do not join the target's user namespace\n"
"  --no-netns-quit          keep running when the namespace goes\n"
"  --config-net             configure the namespace's interface\n"
"  --no-splice              no loopback splicing\n"
"  --host-lo-to-ns-lo       host loopback clients reach the namespace's\n"
"passt only:\n"
"  -s, --socket PATH        listen there (default: /tmp/passt_N.socket)\n"
"  -F, --fd FD              serve this connected socket (implies -1)\n"
"  -1, --one-off            exit when the guest leaves\n"
"  --vhost-user             vhost-user on the -s socket (or the --fd one)\n"
"  --print-capabilities     vhost-user backend capabilities (JSON), exit\n"
"  --repair-path none       (accepted: migration is not supported)\n";

enum {
	PO_NO_DHCP = 256, PO_NO_DHCPV6, PO_NO_NDP, PO_NO_RA, PO_NO_SPLICE,
	PO_FREEBIND, PO_NO_MAP_GW, PO_USERNS, PO_NETNS, PO_NS_MAC,
	PO_DHCP_DNS, PO_NO_DHCP_DNS, PO_DHCP_SEARCH, PO_NO_DHCP_SEARCH,
	PO_DNS_FORWARD, PO_NO_NETNS_QUIT, PO_TRACE, PO_RUNAS, PO_LOG_SIZE,
	PO_VERSION, PO_OUT_IF4, PO_OUT_IF6, PO_CONFIG_NET, PO_NO_COPY_ROUTES,
	PO_NO_COPY_ADDRS, PO_NETNS_ONLY, PO_MAP_HOST_LO, PO_MAP_GUEST,
	PO_HOST_LO_TO_NS_LO, PO_DNS_HOST, PO_VHOST_USER, PO_PRINT_CAPS,
	PO_FQDN, PO_REPAIR_PATH,
};

/* -t, -u, -T, -U: which ports a direction forwards, as pasta counts */
enum pasta_fwd_mode { FWDM_UNSET, FWDM_SPEC, FWDM_NONE, FWDM_AUTO, FWDM_ALL };

static const char *pasta_prog = "pasta";

/**
 * pasta_error() - report a bad command line and exit 1
 * @fmt:	printf format
 */
static _Noreturn void __attribute__((format(printf, 1, 2)))
pasta_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_usage_status = 1;
	conf_usage_verror(pasta_prog,
			  !strcmp(pasta_prog, "passt") ?
				  "Try 'passt --help' (and slipway(1), PASTA AND PASST COMPATIBILITY)." :
				  "Try 'pasta --help' (and slipway(1), PASTA AND PASST COMPATIBILITY).",
			  fmt, ap);
}

/**
 * pasta_invoked() - are we pasta or passt?
 * @argc:	argument count
 * @argv:	arguments
 * @mode:	out: the mode when not 0
 *
 * Return: 0: no; 1: by name; 2: by the "pasta" or "passt" subcommand
 */
int pasta_invoked(int argc, char **argv, enum conf_pasta_mode *mode)
{
	const char *base;

	if (argc < 1 || !argv[0])
		return 0;
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (strstr(base, "pasta") || strstr(base, "passt")) {
		*mode = strstr(base, "pasta") ? CONF_PASTA_PASTA :
						CONF_PASTA_PASST;
		return 1;
	}
	if (argc > 1 && (!strcmp(argv[1], "pasta") ||
			 !strcmp(argv[1], "passt"))) {
		*mode = !strcmp(argv[1], "pasta") ? CONF_PASTA_PASTA :
						    CONF_PASTA_PASST;
		return 2;
	}
	return 0;
}

/**
 * pasta_mac() - parse "xx:xx:xx:xx:xx:xx", a unicast address
 * @s:		text
 * @mac:	result
 *
 * Return: 0, or -1
 */
static int pasta_mac(const char *s, uint8_t *mac)
{
	unsigned v[6];
	char tail;
	int i;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return (mac[0] & 1) ? -1 : 0;
}

/**
 * pasta_addr() - parse an IPv4 or IPv6 address that may name a host:
 * not unspecified, loopback or multicast
 * @s:		text
 * @a6:		out: the address (IPv4 as v4-mapped)
 *
 * Return: AF_INET or AF_INET6, or 0 if @s is no such address
 */
static int pasta_addr(const char *s, struct in6_addr *a6)
{
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1) {
		uint32_t h = ntohl(a4.s_addr);

		if (!h || h == 0xffffffffU || (h >> 24) == 127 ||
		    (h >> 28) == 0xe)
			return 0;
		memset(a6, 0, sizeof(*a6));
		a6->s6_addr[10] = a6->s6_addr[11] = 0xff;
		memcpy(&a6->s6_addr[12], &a4, 4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, a6) == 1) {
		if (IN6_IS_ADDR_UNSPECIFIED(a6) || IN6_IS_ADDR_LOOPBACK(a6) ||
		    IN6_IS_ADDR_MULTICAST(a6) || IN6_IS_ADDR_V4MAPPED(a6))
			return 0;
		return AF_INET6;
	}
	return 0;
}

/**
 * pasta_prefix4() - parse -n: a prefix length or a dotted netmask
 * @s:		text
 *
 * Return: the prefix length, 0 to 32, or -1
 */
static int pasta_prefix4(const char *s)
{
	unsigned long v;
	struct in_addr m;
	uint32_t h;
	int n = 0;

	if (!conf_parse_uint(s, 0, 32, &v))
		return (int)v;
	if (inet_pton(AF_INET, s, &m) != 1)
		return -1;
	h = ntohl(m.s_addr);
	while (h & 0x80000000U) {
		n++;
		h <<= 1;
	}
	return h ? -1 : n;
}

/**
 * pasta_spec_supported() - does slipway's port-spec parser take @spec?
 * @spec:	a -t/-u/-T value
 *
 * The one place that asks; pasta's default "auto" is applied only if so.
 *
 * Return: true if it does
 */
static bool pasta_spec_supported(const char *spec)
{
	struct fwd_spec f[CONF_MAX_FWD];
	const char *why;
	unsigned n = 0;

	return !fwd_opt_parse(spec, f, CONF_MAX_FWD, &n, &why);
}

/**
 * pasta_sock_default() - passt's socket path when -s and -F are missing:
 * /tmp/passt_N.socket, the first N free
 *
 * #syscalls:setup newfstatat lstat
 * Return: a static path
 */
static const char *pasta_sock_default(void)
{
	static char path[64];
	struct stat st;
	int i;

	for (i = 1; i < 100; i++) {
		snprintf(path, sizeof(path), "/tmp/passt_%d.socket", i);
		if (lstat(path, &st) && errno == ENOENT)
			return path;
	}
	pasta_error("no free /tmp/passt_N.socket: give a path with -s");
}

/**
 * pasta_fwd_mode_set() - a -t/-u/-T/-U value: check it against the
 * direction's mode so far, as pasta does
 * @m:		the direction's mode (updated)
 * @o:		option letter, for messages
 * @spec:	the value
 * @passt:	passt mode ("auto" is pasta's only)
 *
 * Return: true if the value forwards ports (to be given to the parser)
 */
static bool pasta_fwd_mode_set(enum pasta_fwd_mode *m, int o,
			       const char *spec, bool passt)
{
	enum pasta_fwd_mode n = !strcmp(spec, "none") ? FWDM_NONE :
				!strcmp(spec, "auto") ? FWDM_AUTO :
				!strcmp(spec, "all")  ? FWDM_ALL : FWDM_SPEC;

	if (n == FWDM_AUTO && passt)
		pasta_error("'auto' port forwarding is only allowed for pasta");
	if ((n != FWDM_SPEC && *m != FWDM_UNSET) ||
	    (n == FWDM_SPEC && *m > FWDM_SPEC))
		pasta_error("port forwarding mode '%s' of -%c conflicts with the previous one",
			    spec, o);
	*m = n;
	return n != FWDM_NONE;
}

/**
 * pasta_file_open() - open the PID file or the log file, as passt does
 * (created if need be, truncated) before anything else runs
 * @path:	the path
 * @what:	for the message
 *
 * #syscalls:setup openat
 * Return: the fd (close-on-exec)
 */
static int pasta_file_open(const char *path, const char *what)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s %s: %s\n", pasta_prog,
			what, path, strerror(errno));
		exit(1);
	}
	return fd;
}

/**
 * pasta_conf_parse() - translate a pasta or passt command line into
 * slipway's configuration
 * @c:		configuration to fill
 * @p:		the process-model extras
 * @mode:	CONF_PASTA_PASTA or CONF_PASTA_PASST
 * @argc:	argument count, from the program name or the subcommand
 * @argv:	arguments
 *
 * Context: start-up. The strings it makes live until exit (struct conf
 * points into them).
 */
void pasta_conf_parse(struct conf *c, struct pasta_conf *p,
		      enum conf_pasta_mode mode, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "stderr", no_argument, NULL, 'e' },
		{ "log-file", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "socket", required_argument, NULL, 's' },
		{ "socket-path", required_argument, NULL, 's' },
		{ "fd", required_argument, NULL, 'F' },
		{ "ns-ifname", required_argument, NULL, 'I' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "pid", required_argument, NULL, 'P' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "address", required_argument, NULL, 'a' },
		{ "netmask", required_argument, NULL, 'n' },
		{ "mac-addr", required_argument, NULL, 'M' },
		{ "gateway", required_argument, NULL, 'g' },
		{ "interface", required_argument, NULL, 'i' },
		{ "outbound", required_argument, NULL, 'o' },
		{ "dns", required_argument, NULL, 'D' },
		{ "search", required_argument, NULL, 'S' },
		{ "hostname", required_argument, NULL, 'H' },
		{ "no-dhcp", no_argument, NULL, PO_NO_DHCP },
		{ "no-dhcpv6", no_argument, NULL, PO_NO_DHCPV6 },
		{ "no-ndp", no_argument, NULL, PO_NO_NDP },
		{ "no-ra", no_argument, NULL, PO_NO_RA },
		{ "no-splice", no_argument, NULL, PO_NO_SPLICE },
		{ "freebind", no_argument, NULL, PO_FREEBIND },
		{ "no-map-gw", no_argument, NULL, PO_NO_MAP_GW },
		{ "ipv4-only", no_argument, NULL, '4' },
		{ "one-off", no_argument, NULL, '1' },
		{ "tcp-ports", required_argument, NULL, 't' },
		{ "udp-ports", required_argument, NULL, 'u' },
		{ "tcp-ns", required_argument, NULL, 'T' },
		{ "udp-ns", required_argument, NULL, 'U' },
		{ "userns", required_argument, NULL, PO_USERNS },
		{ "netns", required_argument, NULL, PO_NETNS },
		{ "ns-mac-addr", required_argument, NULL, PO_NS_MAC },
		{ "dhcp-dns", no_argument, NULL, PO_DHCP_DNS },
		{ "no-dhcp-dns", no_argument, NULL, PO_NO_DHCP_DNS },
		{ "dhcp-search", no_argument, NULL, PO_DHCP_SEARCH },
		{ "no-dhcp-search", no_argument, NULL, PO_NO_DHCP_SEARCH },
		{ "dns-forward", required_argument, NULL, PO_DNS_FORWARD },
		{ "no-netns-quit", no_argument, NULL, PO_NO_NETNS_QUIT },
		{ "trace", no_argument, NULL, PO_TRACE },
		{ "runas", required_argument, NULL, PO_RUNAS },
		{ "log-size", required_argument, NULL, PO_LOG_SIZE },
		{ "version", no_argument, NULL, PO_VERSION },
		{ "outbound-if4", required_argument, NULL, PO_OUT_IF4 },
		{ "outbound-if6", required_argument, NULL, PO_OUT_IF6 },
		{ "config-net", no_argument, NULL, PO_CONFIG_NET },
		{ "no-copy-routes", no_argument, NULL, PO_NO_COPY_ROUTES },
		{ "no-copy-addrs", no_argument, NULL, PO_NO_COPY_ADDRS },
		{ "netns-only", no_argument, NULL, PO_NETNS_ONLY },
		{ "map-host-loopback", required_argument, NULL, PO_MAP_HOST_LO },
		{ "map-guest-addr", required_argument, NULL, PO_MAP_GUEST },
		{ "host-lo-to-ns-lo", no_argument, NULL, PO_HOST_LO_TO_NS_LO },
		{ "dns-host", required_argument, NULL, PO_DNS_HOST },
		{ "vhost-user", no_argument, NULL, PO_VHOST_USER },
		{ "print-capabilities", no_argument, NULL, PO_PRINT_CAPS },
		{ "fqdn", required_argument, NULL, PO_FQDN },
		{ "repair-path", required_argument, NULL, PO_REPAIR_PATH },
		{ NULL, 0, NULL, 0 },
	};
	/* pasta's, less -6 (IPv4 cannot be turned off here) and -c */
	static const char optstring[] =
		"+dqfel:hs:F:I:p:P:m:a:n:M:g:i:o:D:S:H:41t:u:T:U:";
	static char netns_s[4096], userns_s[64], addr4_s[64], prefix6_s[64];
	enum pasta_fwd_mode fm_t = FWDM_UNSET, fm_u = FWDM_UNSET;
	enum pasta_fwd_mode fm_T = FWDM_UNSET, fm_U = FWDM_UNSET;
	bool passt = mode == CONF_PASTA_PASST, vhost_user = false;
	bool ipv4_only = false, no_dhcp = false, no_dns = false;
	bool no_map_gw = false, no_splice = false, netns_only = false;
	bool config_net = false, ns_mac_set = false, guest6_set = false;
	bool gw6_set = false, addr4_set = false, addr_has_len = false;
	bool host_lo = false;
	const char *netns = NULL, *userns = NULL, *sock = NULL, *fd = NULL;
	const char *ifname = NULL, *mtu = NULL, *gw4 = NULL, *pcap = NULL;
	const char *runas = NULL, *pid_path = NULL, *log_path = NULL;
	const char *map_guest = NULL, *map_host_lo = NULL, *dns_fwd = NULL;
	const char *out4 = NULL, *out6 = NULL, *out_if4 = NULL;
	const char *out_if6 = NULL, *hostname = NULL, *fqdn = NULL;
	const char *template_if = NULL, *why = NULL;
	struct in6_addr a6, guest6 = IN6ADDR_ANY_INIT, gw6 = IN6ADDR_ANY_INIT;
	uint8_t ns_mac[6];
	int prefix4 = -1, netmask = -1, o, n = 0, i;
	unsigned long v;
	static char **av; /* for good: struct conf points into it */
	char **cmd = NULL;
	struct in_addr a4;

	pasta_prog = passt ? "passt" : "pasta";
	conf_usage_status = 1;
	p->foreground = false;
	p->one_off = false;
	p->netns_quit = true;
	p->pid_fd = p->log_fd = p->null_fd = p->ready_fd = -1;

	/* passt: --vhost-user anywhere chooses the mode, as conf_mode() */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--vhost-user")) {
			vhost_user = true;
			passt = true;
		}
	if (vhost_user)
		pasta_prog = "passt";

	/* slipway's own options; a few per pasta option at most */
	av = calloc((size_t)argc * 2 + 48, sizeof(*av));
	if (!av)
		die("out of memory");
	av[n++] = argv[0];

#define PASTA_ONLY(name)						\
	do {								\
		if (passt)						\
			pasta_error("%s is for pasta mode only", name);	\
	} while (0)
#define PASST_ONLY(name)						\
	do {								\
		if (!passt)						\
			pasta_error("%s is for passt mode only", name);	\
	} while (0)

	optind = 0; /* glibc: start afresh */
	opterr = 1; /* glibc's own "unrecognized option" text, as pasta */
	while ((o = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			av[n++] = "--debug";
			break;
		case PO_TRACE:
			av[n++] = "--trace";
			break;
		case 'q':
			av[n++] = "--quiet";
			break;
		case 'f':
			p->foreground = true;
			break;
		case 'e':
		case PO_LOG_SIZE:
		case PO_FREEBIND:
		case PO_NO_DHCPV6:
		case PO_NO_NDP:
		case PO_NO_RA:
		case PO_DHCP_DNS:
		case PO_DHCP_SEARCH:
		case PO_NO_DHCP_DNS:
		case PO_NO_DHCP_SEARCH:
		case PO_NO_COPY_ROUTES:
		case PO_NO_COPY_ADDRS:
		case 'M':
			/* accepted, no effect (slipway(1) says why) */
			if (o == PO_DHCP_DNS || o == PO_DHCP_SEARCH ||
			    o == PO_NO_COPY_ROUTES || o == PO_NO_COPY_ADDRS)
				PASTA_ONLY(argv[optind - 1]);
			if (o == PO_NO_DHCP_DNS || o == PO_NO_DHCP_SEARCH)
				PASST_ONLY(argv[optind - 1]);
			if (o == 'M' && pasta_mac(optarg, ns_mac))
				pasta_error("invalid MAC address: %s", optarg);
			break;
		case 'l':
			log_path = optarg;
			break;
		case 'h':
			fputs(pasta_usage_text, stdout);
			exit(0);
		case 's':
			PASST_ONLY("-s");
			if (!*optarg || strlen(optarg) >= CONF_SOCK_PATH_MAX)
				pasta_error("invalid socket path: %s", optarg);
			sock = optarg;
			fd = NULL;
			break;
		case 'F':
			PASST_ONLY("--fd");
			if (conf_parse_uint(optarg, 0, INT32_MAX, &v) ||
			    (v >= 1 && v <= 2))
				pasta_error("invalid --fd: %s", optarg);
			fd = optarg;
			sock = NULL;
			p->one_off = true;
			break;
		case 'I':
			PASTA_ONLY("-I");
			ifname = optarg;
			break;
		case 'p':
			pcap = optarg;
			break;
		case 'P':
			if (!*optarg)
				pasta_error("invalid PID file: %s", optarg);
			pid_path = optarg;
			break;
		case 'm':
			mtu = optarg;
			break;
		case 'a': {
			char buf[INET6_ADDRSTRLEN + 8], *slash;
			int fam, len = -1;

			if (strlen(optarg) >= sizeof(buf))
				pasta_error("invalid address: %s", optarg);
			strcpy(buf, optarg);
			slash = strchr(buf, '/');
			if (slash) {
				*slash = '\0';
				if (conf_parse_uint(slash + 1, 0, 128, &v))
					pasta_error("invalid address: %s",
						    optarg);
				len = (int)v;
			}
			fam = pasta_addr(buf, &a6);
			if (!fam)
				pasta_error("invalid address: %s", optarg);
			if (fam == AF_INET6) {
				guest6 = a6;
				guest6_set = true;
				break;
			}
			if (len >= 0 && netmask >= 0)
				pasta_error("redundant prefix length specification");
			addr_has_len = len >= 0;
			memcpy(&a4, &a6.s6_addr[12], 4);
			inet_ntop(AF_INET, &a4, addr4_s, sizeof(addr4_s));
			addr4_set = true;
			if (len > 32)
				pasta_error("invalid address: %s", optarg);
			if (len < 0) {
				/* pasta's default: the address's class */
				uint32_t h = ntohl(a4.s_addr);

				len = !(h >> 31) ? 8 : (h >> 30) == 2 ? 16 :
								       24;
			}
			prefix4 = len;
			break;
		}
		case 'n':
			if (addr_has_len)
				pasta_error("redundant prefix length specification");
			netmask = pasta_prefix4(optarg);
			if (netmask < 0)
				pasta_error("invalid prefix length: %s", optarg);
			break;
		case 'g':
			i = pasta_addr(optarg, &a6);
			if (!i)
				pasta_error("invalid gateway address: %s",
					    optarg);
			if (i == AF_INET6) {
				gw6 = a6;
				gw6_set = true;
			} else {
				gw4 = optarg;
			}
			break;
		case 'i':
			if (!*optarg || strlen(optarg) >= 16)
				pasta_error("invalid interface name %s", optarg);
			template_if = optarg;
			break;
		case 'o':
			i = pasta_addr(optarg, &a6);
			if (!i)
				pasta_error("invalid or redundant outbound address: %s",
					    optarg);
			if (i == AF_INET)
				out4 = optarg;
			else
				out6 = optarg;
			break;
		case PO_OUT_IF4:
		case PO_OUT_IF6:
			if (!*optarg || strlen(optarg) >= 16)
				pasta_error("invalid interface name: %s",
					    optarg);
			if (o == PO_OUT_IF4)
				out_if4 = optarg;
			else
				out_if6 = optarg;
			break;
		case 'D':
			if (!strcmp(optarg, "none")) {
				no_dns = true;
				break;
			}
			if (!pasta_addr(optarg, &a6))
				pasta_error("cannot use DNS address %s", optarg);
			no_dns = false;
			warn("-D %s: ignored: the guest is told slipway's DNS forwarder",
			     optarg);
			break;
		case 'S':
			break; /* the host's search list is used */
		case 'H':
		case PO_FQDN:
			if (!*optarg || strlen(optarg) > 253)
				pasta_error("invalid %s: %s", o == 'H' ?
					    "hostname" : "FQDN", optarg);
			if (o == 'H')
				hostname = optarg;
			else
				fqdn = optarg;
			break;
		case PO_NO_DHCP:
			no_dhcp = true;
			break;
		case PO_NO_SPLICE:
			no_splice = true;
			break;
		case PO_NO_MAP_GW:
			no_map_gw = true;
			break;
		case '4':
			ipv4_only = true;
			break;
		case '1':
			PASST_ONLY("--one-off");
			p->one_off = true;
			break;
		case 't':
		case 'u':
		case 'T':
		case 'U': {
			enum pasta_fwd_mode *m = o == 't' ? &fm_t :
						 o == 'u' ? &fm_u :
						 o == 'T' ? &fm_T : &fm_U;

			if (o == 'T' || o == 'U')
				PASTA_ONLY(o == 'T' ? "-T" : "-U");
			if (!pasta_fwd_mode_set(m, o, optarg, passt))
				break;
			if (o == 'U') {
				if (*m == FWDM_AUTO)
					break; /* as pasta's default: below */
				if (*m == FWDM_ALL || strstr(optarg, "auto"))
					pasta_error("-U %s: slipway forwards explicit UDP ports from the namespace only (-U PORT[:HOSTPORT], none or auto)",
						    optarg);
			}
			av[n++] = o == 't' ? "-t" : o == 'u' ? "-u" :
				  o == 'T' ? "-T" : "-U";
			av[n++] = optarg;
			break;
		}
		case PO_USERNS:
			PASTA_ONLY("--userns");
			if (!*optarg)
				pasta_error("invalid userns: %s", optarg);
			userns = optarg;
			netns_only = false;
			break;
		case PO_NETNS:
			PASTA_ONLY("--netns");
			if (!*optarg)
				pasta_error("invalid netns: %s", optarg);
			netns = optarg;
			break;
		case PO_NETNS_ONLY:
			PASTA_ONLY("--netns-only");
			netns_only = true;
			userns = NULL;
			break;
		case PO_NS_MAC:
			PASTA_ONLY("--ns-mac-addr");
			if (pasta_mac(optarg, ns_mac))
				pasta_error("invalid MAC address: %s", optarg);
			ns_mac_set = true;
			break;
		case PO_DNS_FORWARD:
			if (!pasta_addr(optarg, &a6))
				pasta_error("invalid DNS forwarding address: %s",
					    optarg);
			dns_fwd = optarg;
			break;
		case PO_DNS_HOST:
			if (!pasta_addr(optarg, &a6))
				pasta_error("invalid host nameserver address: %s",
					    optarg);
			warn("--dns-host %s: ignored: DNS goes to the resolvers in the host's resolv.conf",
			     optarg);
			break;
		case PO_NO_NETNS_QUIT:
			PASTA_ONLY("--no-netns-quit");
			p->netns_quit = false;
			break;
		case PO_RUNAS:
			runas = optarg;
			break;
		case PO_VERSION:
			printf("%s (slipway) %s\n"
			       "slipway %s in %s compatibility mode: see slipway(1), PASTA AND PASST COMPATIBILITY\n"
			       "GNU General Public License, version 2 or later\n",
			       pasta_prog, SLIPWAY_VERSION, SLIPWAY_VERSION,
			       pasta_prog);
			exit(0);
		case PO_CONFIG_NET:
			PASTA_ONLY("--config-net");
			config_net = true;
			break;
		case PO_MAP_HOST_LO:
		case PO_MAP_GUEST:
			if (strcmp(optarg, "none") && !pasta_addr(optarg, &a6))
				pasta_error("invalid address to remap to host: %s",
					    optarg);
			if (o == PO_MAP_GUEST) {
				map_guest = optarg;
			} else {
				map_host_lo = optarg;
				if (!strcmp(optarg, "none"))
					no_map_gw = true;
			}
			break;
		case PO_HOST_LO_TO_NS_LO:
			PASTA_ONLY("--host-lo-to-ns-lo");
			host_lo = true;
			break;
		case PO_VHOST_USER:
			break; /* seen above */
		case PO_PRINT_CAPS:
			/* the vhost-user backend program convention */
			fputs("{\n  \"type\": \"net\"\n}\n", stdout);
			exit(0);
		case PO_REPAIR_PATH:
			if (strcmp(optarg, "none"))
				pasta_error("--repair-path %s: migration is not supported (only none)",
					    optarg);
			break;
		default: /* glibc said what */
			fprintf(stderr, "Try '%s --help'.\n", pasta_prog);
			exit(1);
		}
	}
#undef PASTA_ONLY
#undef PASST_ONLY

	/* the target */
	if (passt) {
		if (optind < argc)
			pasta_error("extra non-option argument: %s",
				    argv[optind]);
		if (fd) {
			/* --vhost-user --fd N: QEMU 10.1 -netdev
			 * passt,vhost-user=on; the frontend is on N */
			if (vhost_user)
				av[n++] = "--vhost-user";
			av[n++] = "--fd";
			av[n++] = (char *)fd;
		} else {
			av[n++] = vhost_user ? "--vhost-user" : "--stream";
			av[n++] = (char *)(sock ? sock : pasta_sock_default());
		}
	} else if (optind < argc && !conf_parse_uint(argv[optind], 1,
						       INT32_MAX, &v)) {
		if (netns)
			pasta_error("both --netns and PID given");
		if (optind + 1 < argc)
			pasta_error("extra argument after the PID: %s",
				    argv[optind + 1]);
		snprintf(netns_s, sizeof(netns_s), "/proc/%lu/ns/net", v);
		netns = netns_s;
		if (!userns && !netns_only && geteuid() != 0) {
			/* unprivileged: the way into the target's network
			 * namespace is through its user namespace */
			snprintf(userns_s, sizeof(userns_s),
				 "/proc/%lu/ns/user", v);
			userns = userns_s;
		}
	} else if (netns) {
		if (optind < argc)
			pasta_error("both --netns and a command given (%s)",
				    argv[optind]);
	} else {
		/* a command (or a shell) in a namespace of its own: in the
		 * foreground, configured, gone with the command */
		cmd = optind < argc ? &argv[optind] : NULL;
		p->foreground = true;
		config_net = true;
		if (userns)
			pasta_error("--userns needs a PID or --netns target");
	}
	if (!passt) {
		if (netns) {
			av[n++] = "--netns";
			av[n++] = (char *)netns;
		}
		if (!config_net) {
			/* the client configures the tap, and may have made it
			 * (rootlesskit before 2.3 does): single-queue then,
			 * and only one queue fits */
			av[n++] = "--no-config";
			av[n++] = "--shards";
			av[n++] = "1";
		}
		if (ifname) {
			av[n++] = "-I";
			av[n++] = (char *)ifname;
		}
		if (no_splice)
			av[n++] = "--no-splice";
		/* pasta's default for a direction not given: auto, as far
		 * as the port parser knows it */
		if (fm_t == FWDM_UNSET && pasta_spec_supported("auto")) {
			av[n++] = "-t";
			av[n++] = "auto";
		}
		if (fm_u == FWDM_UNSET && pasta_spec_supported("auto")) {
			av[n++] = "-u";
			av[n++] = "auto";
		}
		if (fm_T == FWDM_UNSET && pasta_spec_supported("auto")) {
			av[n++] = "-T";
			av[n++] = "auto";
		}
	}
	if (mtu) {
		av[n++] = "--mtu";
		av[n++] = (char *)mtu;
	}
	if (addr4_set || netmask >= 0) {
		if (!addr4_set)
			strcpy(addr4_s, "10.0.2.15");
		snprintf(addr4_s + strlen(addr4_s),
			 sizeof(addr4_s) - strlen(addr4_s), "/%d",
			 netmask >= 0 ? netmask : prefix4);
		av[n++] = "--address";
		av[n++] = addr4_s;
	}
	if (gw4) {
		av[n++] = "--gateway";
		av[n++] = (char *)gw4;
	}
	if (guest6_set) {
		memcpy(&a6, &guest6, 16);
		memset(&a6.s6_addr[8], 0, 8);
		inet_ntop(AF_INET6, &a6, prefix6_s, sizeof(prefix6_s));
		strcat(prefix6_s, "/64");
		av[n++] = "--ipv6-prefix";
		av[n++] = prefix6_s;
	}
	if (ipv4_only)
		av[n++] = "--no-ipv6";
	if (no_dhcp)
		av[n++] = "--no-dhcp";
	if (no_dns)
		av[n++] = "--no-dns";
	if (no_map_gw)
		av[n++] = "--no-map-gw";
	if (pcap) {
		av[n++] = "--pcap";
		av[n++] = (char *)pcap;
	}
	if (runas) {
		av[n++] = "--runas";
		av[n++] = (char *)runas;
	}
	if (cmd) {
		av[n++] = "--";
		while (*cmd)
			av[n++] = *cmd++;
	}
	av[n] = NULL;
	optind = 0;
	opterr = 0;
	conf_parse(c, n, av);

	c->pasta_mode = passt ? CONF_PASTA_PASST : CONF_PASTA_PASTA;
	/* pasta's and passt's addressing: the host's own (conf_net.c) */
	c->addr_model = CONF_ADDR_HOST_COPY;
	c->config_net = config_net && !passt;
	c->map_guest_addr = map_guest;
	c->map_host_loopback = map_host_lo;
	c->dns_forward = dns_fwd;
	c->host_lo_to_ns_lo = host_lo;
	if (out4 && conf_outbound_addr(c, out4, AF_INET, &why))
		pasta_error("-o %s: %s", out4, why);
	if (out6 && conf_outbound_addr(c, out6, AF_INET6, &why))
		pasta_error("-o %s: %s", out6, why);
	c->outbound_if4 = out_if4;
	c->outbound_if6 = out_if6;
	c->hostname = hostname;
	c->fqdn = fqdn;
	c->template_if = template_if;
	if (netns)
		c->userns_path = userns;
	if (ns_mac_set) {
		c->mac_set = true;
		memcpy(c->mac, ns_mac, 6);
	}
	if (guest6_set && c->ipv6) {
		c->guest6 = guest6;
		c->addr6_set = true;
	}
	if (gw6_set && c->ipv6) {
		c->gw6 = gw6;
		c->gw6_set = true;
	}

	if (pid_path)
		p->pid_fd = pasta_file_open(pid_path, "PID file");
	if (log_path)
		p->log_fd = pasta_file_open(log_path, "log file");
}

/**
 * pasta_relay() - copy what is readable on @fd to our standard error
 * @fd:		the relay pipe (non-blocking)
 *
 * #syscalls:setup read write
 * Return: false at the end of the pipe
 */
static bool pasta_relay(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		ssize_t w, off = 0;

		while (off < n) {
			w = write(STDERR_FILENO, buf + off, (size_t)(n - off));
			if (w <= 0)
				break;
			off += w;
		}
	}
	return n != 0;
}

/**
 * pasta_daemon_start() - fork; the parent waits for the child to be ready
 * @p:		extras
 *
 * The child's standard output and error become a pipe the parent copies
 * to its own standard error until the child is ready or gone; its standard
 * input /dev/null. The child starts a session of its own.
 *
 * #syscalls:setup pipe2 fork clone openat fcntl dup2 dup3 close setsid poll read wait4 write exit_group
 */
void pasta_daemon_start(struct pasta_conf *p)
{
	int st[2], lg[2], status;
	struct pollfd pfd[2];
	char b = 0;
	ssize_t n;
	pid_t pid;

	if (p->foreground)
		return;
	/* fds 0 to 2 open, so that none of the pipes lands there */
	do
		p->null_fd = open("/dev/null", O_RDWR);
	while (p->null_fd >= 0 && p->null_fd <= STDERR_FILENO);
	if (p->null_fd < 0 || fcntl(p->null_fd, F_SETFD, FD_CLOEXEC))
		die_perror("cannot open /dev/null");
	if (pipe2(st, O_CLOEXEC) || pipe2(lg, O_CLOEXEC))
		die_perror("cannot make a pipe");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die_perror("cannot fork");
	if (pid == 0) {
		close(st[0]);
		close(lg[0]);
		dup2(p->null_fd, STDIN_FILENO);
		dup2(lg[1], STDOUT_FILENO);
		dup2(lg[1], STDERR_FILENO);
		close(lg[1]);
		p->ready_fd = st[1];
		setsid();
		return;
	}
	close(st[1]);
	close(lg[1]);
	fcntl(lg[0], F_SETFL, O_NONBLOCK);
	pfd[0] = (struct pollfd){ .fd = st[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = lg[0], .events = POLLIN };
	for (;;) {
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].fd >= 0 && pfd[1].revents && !pasta_relay(lg[0]))
			pfd[1].fd = -1;
		if (pfd[0].revents)
			break;
	}
	do
		n = read(st[0], &b, 1);
	while (n < 0 && errno == EINTR);
	/* the child wrote its messages before saying anything here */
	pasta_relay(lg[0]);
	if (n == 1) {
		if (p->pid_fd >= 0 && dprintf(p->pid_fd, "%d\n", (int)pid) < 0)
			fprintf(stderr, "%s: cannot write the PID file: %s\n",
				pasta_prog, strerror(errno));
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pasta_relay(lg[0]);
	_exit(WIFEXITED(status) && WEXITSTATUS(status) ?
		      WEXITSTATUS(status) : 1);
}

/**
 * pasta_ready() - everything is set up: the PID file (foreground), or the
 * parent let go (daemon)
 * @p:		extras
 *
 * The daemon's standard output and error become the log file or
 * /dev/null first, so that nothing of ours holds the client's pipes once
 * the parent has gone.
 *
 * #syscalls write close dup2 dup3
 */
void pasta_ready(struct pasta_conf *p)
{
	char buf[16];
	int len;

	if (p->ready_fd < 0) {
		/* foreground (pasta_daemon_start() did not fork) */
		if (p->pid_fd >= 0) {
			len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
			if (write(p->pid_fd, buf, (size_t)len) != len)
				warn_perror("cannot write the PID file");
			close(p->pid_fd);
			p->pid_fd = -1;
		}
		if (p->log_fd >= 0) {
			dup2(p->log_fd, STDERR_FILENO);
			close(p->log_fd);
			p->log_fd = -1;
		}
		return;
	}
	if (p->log_fd >= 0) {
		dup2(p->log_fd, STDOUT_FILENO);
		dup2(p->log_fd, STDERR_FILENO);
	} else {
		dup2(p->null_fd, STDOUT_FILENO);
		dup2(p->null_fd, STDERR_FILENO);
	}
	if (write(p->ready_fd, "1", 1) != 1)
		warn_perror("cannot tell the parent we are ready");
	close(p->ready_fd);
	p->ready_fd = -1;
	if (p->log_fd >= 0)
		close(p->log_fd);
	if (p->null_fd >= 0)
		close(p->null_fd);
	if (p->pid_fd >= 0)
		close(p->pid_fd);
	p->log_fd = p->null_fd = p->pid_fd = -1;
}
