/* SPDX-License-Identifier: GPL-2.0-or-later */
/* s4n.c - slirp4netns compatibility: its command line into struct conf */

/**
 * DOC: Theory of Operation
 *
 * From the command line to struct conf
 * ------------------------------------
 *
 * Run as "slirp4netns" (a symlink to slipway) or as "slipway slirp4netns",
 * slipway takes slirp4netns's command line and behaves as slirp4netns does
 * for the clients that start it (podman, rootlesskit, buildah...):
 *
 * - the command line fills struct conf through conf.c's setters, as
 *   slipway's own options do (conf_begin(), conf_set_*(), conf_finish()),
 *   so every check and default is slipway's: the target (a PID, or a
 *   namespace path with --netns-type=path) is conf_set_netns()'s, the tap
 *   name conf_set_ifname()'s, --cidr the guest network with slirp4netns's
 *   numbers (guest .100, gateway .2 mapped to host loopback, DNS .3), no
 *   -c clears @configure, --disable-host-loopback @map_gw, and so on;
 * - what slipway's options lack is set in struct conf afterwards: the user
 *   namespace to join first (--userns-path, or the target PID's when we
 *   are not root: rootlesskit runs us unprivileged in the host's user
 *   namespace), the MAC address, the outbound source addresses, and the
 *   IPv6 guest address fd00::100;
 * - the fds (-e exit, -r ready) and the API socket (-a) are struct
 *   s4n_conf: main.c watches the exit fd in shard 0's loop and writes the
 *   ready fd; the API socket is served by the control thread (ctl.c, with
 *   the protocol in ctl/s4n_api.c).
 *
 * One queue
 * ---------
 *
 * slipway serves the tap with one shard here (one queue): rootlesskit
 * creates tap0 before it starts us, as a single-queue device, and a
 * multi-queue open of it fails.
 *
 * slirp4netns's behaviour
 * -----------------------
 *
 * What slirp4netns does that slipway's own options do not say is set in
 * struct conf too (@s4n, @gw_unreach, @lease4): DHCP leases .15, libslirp's
 * first pool address, while -c configures .100; with
 * --disable-host-loopback the gateway answers ICMP net unreachable, as
 * libslirp does, not a reset; -c adds its default route beside one the
 * namespace already has (the SIOCADDRT ioctl slirp4netns uses does not
 * refuse it); CAP_NET_BIND_SERVICE stays in the sandbox, for published
 * ports below 1024; and the counters are not written to standard error at
 * exit (clients log it), only on SIGUSR1. Error texts for a bad --cidr and
 * the version output are slirp4netns's, which scripts read.
 *
 * Deliberate differences
 * ----------------------
 *
 * slipway's sandbox and seccomp filter are on
 * with or without --enable-sandbox and --enable-seccomp; an MTU of 65521
 * (slirp4netns's maximum) runs as 65520, slipway's; connections from host
 * loopback to published ports come through the tap from the gateway's
 * address (no splice), as with slirp4netns.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/s4n.h"
#include "util/log.h"
#include "util/util.h"

#define S4N_VERSION "1.2.0"
/* the libslirp whose behaviour is matched, and its SlirpConfig version */
#define S4N_LIBSLIRP_VERSION "4.7.0"
#define S4N_SLIRP_CONFIG_VERSION_MAX 4
#define S4N_DHCP_FIRST 15 /* libslirp's vdhcp_start: network + 15 */
#define S4N_PREFIX_MAX 25
#define S4N_MTU_MAX 65521
#define S4N_GUEST_HOST 100

static const char s4n_usage[] =
	"Usage: slirp4netns [OPTION]... PID|PATH [TAPNAME]\n"
	"User-mode networking for unprivileged network namespaces.\n"
	"(slipway in slirp4netns compatibility mode; see slipway(1), "
	"SLIRP4NETNS\n"
	"COMPATIBILITY.)\n"
	"\n"
	"-c, --configure          bring up the interface\n"
	"-e, --exit-fd=FD         specify the FD for terminating slirp4netns\n"
	"-r, --ready-fd=FD        specify the FD to write to when the network "
	"is\n"
	"                         configured\n"
	"-m, --mtu=MTU            specify MTU (default=1500, max=65521)\n"
	"-6, --enable-ipv6        enable IPv6 (fd00::/64, guest fd00::100)\n"
	"-a, --api-socket=PATH    specify API socket path\n"
	"--cidr=CIDR              specify network address CIDR "
	"(default=10.0.2.0/24)\n"
	"--disable-host-loopback  prohibit connecting to 127.0.0.1:* on the "
	"host\n"
	"                         namespace\n"
	"--netns-type=TYPE        specify network namespace type ([path|pid],\n"
	"                         default=pid)\n"
	"--userns-path=PATH       specify user namespace path\n"
	"--enable-sandbox         create a new mount namespace (and drop all "
	"caps\n"
	"                         except CAP_NET_BIND_SERVICE if running as "
	"the root)\n"
	"                         [slipway: its sandbox is always on, and "
	"keeps\n"
	"                         CAP_NET_BIND_SERVICE]\n"
	"--enable-seccomp         enable seccomp to limit syscalls\n"
	"                         [slipway: its seccomp filter is always on]\n"
	"--outbound-addr=IPv4|IFNAME  sets outbound ipv4 address to bound to\n"
	"--outbound-addr6=IPv6|IFNAME sets outbound ipv6 address to bound to\n"
	"--disable-dns            disables 10.0.2.3 (or configured internal "
	"ip) to\n"
	"                         host dns redirect (experimental)\n"
	"--macaddress=MAC         specify the MAC address of the TAP (only "
	"valid\n"
	"                         with -c)\n"
	"--target-type=TYPE       specify the target type ([netns], "
	"default=netns)\n"
	"-h, --help               show this help and exit\n"
	"-v, --version            show version and exit\n"
	"\n"
	"Addressing: gateway .2 of the network (host loopback unless\n"
	"--disable-host-loopback), DNS .3, guest .100 (-c), DHCP lease .15.\n";

enum {
	S4N_CIDR = 256,
	S4N_NO_LOOPBACK,
	S4N_NETNS_TYPE,
	S4N_USERNS_PATH,
	S4N_SANDBOX,
	S4N_SECCOMP,
	S4N_OUT4,
	S4N_OUT6,
	S4N_NO_DNS,
	S4N_MAC,
	S4N_TARGET_TYPE,
};

/**
 * s4n_usage_error() - report a bad command line and exit 2
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 1, 2), noreturn))
s4n_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_usage_verror("slirp4netns",
			  "Try 'slirp4netns --help' (slipway --help for "
			  "slipway's own options).",
			  fmt, ap);
}

/**
 * s4n_invoked() - are we slirp4netns?
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0: no; 1: by name; 2: by the "slirp4netns" subcommand
 */
int s4n_invoked(int argc, char **argv)
{
	const char *base;

	if (argc < 1 || !argv[0])
		return 0;
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "slirp4netns"))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "slirp4netns"))
		return 2;
	return 0;
}

/**
 * s4n_outbound() - an --outbound-addr[6] value: an address or an interface
 * @arg:	the value
 * @family:	AF_INET or AF_INET6
 * @out:	out: the address as text, INET6_ADDRSTRLEN bytes
 *
 * An interface name stands for its first address of @family (for IPv6 a
 * global one before a link-local one, which needs a scope to bind), as
 * slirp4netns takes it: an address, not SO_BINDTODEVICE. The address
 * must be one we can bind to (tried here, once).
 *
 * #syscalls:setup socket bind close
 * Return: 0, or -1
 */
static int s4n_outbound(const char *arg, int family, char *out)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	bool found = false;
	int fd, ok;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)family;
	if (inet_pton(family, arg,
		      family == AF_INET ? (void *)&s4->sin_addr :
					  (void *)&s6->sin6_addr) == 1) {
		found = true;
	} else {
		struct ifaddrs *ifa, *i;
		bool ll = false;

		if (getifaddrs(&ifa))
			return -1;
		for (i = ifa; i; i = i->ifa_next) {
			const struct sockaddr_in6 *a6;

			if (!i->ifa_addr || i->ifa_addr->sa_family != family ||
			    strcmp(i->ifa_name, arg))
				continue;
			a6 = (const struct sockaddr_in6 *)i->ifa_addr;
			if (found && !(ll && family == AF_INET6 &&
				       !IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)))
				continue;
			memcpy(&ss, i->ifa_addr,
			       family == AF_INET ? sizeof(*s4) : sizeof(*s6));
			ll = family == AF_INET6 &&
			     IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr);
			found = true;
		}
		freeifaddrs(ifa);
	}
	if (!found)
		return -1;
	if (family == AF_INET)
		s4->sin_port = 0;
	else
		s6->sin6_port = 0;
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && !bind(fd, (struct sockaddr *)&ss,
			      family == AF_INET ? sizeof(*s4) : sizeof(*s6));
	if (fd >= 0)
		close(fd);
	inet_ntop(family,
		  family == AF_INET ? (void *)&s4->sin_addr :
				      (void *)&s6->sin6_addr,
		  out, INET6_ADDRSTRLEN);
	return ok ? 0 : -1;
}

/**
 * s4n_cidr_fail() - a bad --cidr, as slirp4netns reports it: its message
 * on standard error, exit status 1 (no usage text)
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 1, 2), noreturn))
s4n_cidr_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/**
 * s4n_cidr() - parse --cidr as slirp4netns does: four groups of one to
 * three digits, '/', one or two digits; a prefix of 1 to 25; no host bits
 * @arg:	the value
 * @net:	out: the network (network order)
 * @prefix:	out: the prefix length
 *
 * Exits 1 with slirp4netns's message on a bad value.
 */
static void s4n_cidr(const char *arg, uint32_t *net, unsigned *prefix)
{
	char buf[32];
	const char *p = arg;
	unsigned long v;
	unsigned g, n;

	/* ^(([0-9]{1,3}\.){3}[0-9]{1,3})/([0-9]{1,2})$ */
	for (g = 0; g < 4; g++) {
		for (n = 0; p[n] >= '0' && p[n] <= '9'; n++)
			;
		if (n < 1 || n > 3 || p[n] != (g < 3 ? '.' : '/'))
			s4n_cidr_fail("invalid CIDR: %s", arg);
		p += n + 1;
	}
	for (n = 0; p[n] >= '0' && p[n] <= '9'; n++)
		;
	if (n < 1 || n > 2 || p[n])
		s4n_cidr_fail("invalid CIDR: %s", arg);
	memcpy(buf, arg, (size_t)(p - 1 - arg));
	buf[p - 1 - arg] = '\0';
	if (inet_pton(AF_INET, buf, net) != 1)
		s4n_cidr_fail("invalid network address: %s", buf);
	v = strtoul(p, NULL, 10);
	if (v < 1 || v > S4N_PREFIX_MAX)
		s4n_cidr_fail("prefix length needs to be %d-%d", 1,
			      S4N_PREFIX_MAX);
	if (*net & ~htonl(~0U << (32 - v)))
		s4n_cidr_fail("CIDR needs to be a network address like "
			      "10.0.2.0/24, not like 10.0.2.100/24");
	*prefix = (unsigned)v;
}

/**
 * s4n_mac() - parse "xx:xx:xx:xx:xx:xx", a unicast address
 * @s:		text
 * @mac:	result
 *
 * Return: 0, or -1
 */
static int s4n_mac(const char *s, uint8_t *mac)
{
	unsigned v[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &tail) != 6 ||
	    strlen(s) != 17)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return (mac[0] & 1) ? -1 : 0;
}

/**
 * struct s4n_args - a slirp4netns command line's options, as read
 * @s:		the extras to fill (@exit_fd, @ready_fd, @api_path)
 * @configure:	-c
 * @ipv6:	-6
 * @no_lo:	--disable-host-loopback
 * @no_dns:	--disable-dns
 * @path_type:	--netns-type=path
 * @mac_set:	--macaddress given
 * @mac:	its value
 * @mtu:	-m
 * @out4:	--outbound-addr, or NULL
 * @out6:	--outbound-addr6, or NULL
 * @userns:	--userns-path, or NULL
 * @cidr:	--cidr, checked after the options as slirp4netns does, or NULL
 */
struct s4n_args {
	struct s4n_conf *s;
	bool configure, ipv6, no_lo, no_dns, path_type, mac_set;
	uint8_t mac[6];
	unsigned long mtu;
	const char *out4, *out6, *userns, *cidr;
};

/**
 * s4n_opt_fd() - -e, --exit-fd FD; -r, --ready-fd FD
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	the value
 */
static void s4n_opt_fd(void *st, const struct conf_opt *o, char *arg)
{
	struct s4n_conf *s = ((struct s4n_args *)st)->s;
	unsigned long v;

	if (conf_parse_uint(arg, 0, INT32_MAX, &v))
		s4n_usage_error(
			"bad %s '%s': expected a file descriptor number",
			o->id == 'e' ? "--exit-fd" : "--ready-fd", arg);
	if (o->id == 'e')
		s->exit_fd = (int)v;
	else
		s->ready_fd = (int)v;
}

/**
 * s4n_opt_mtu() - -m, --mtu MTU: up to slirp4netns's 65521
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	the value
 */
static void s4n_opt_mtu(void *st, const struct conf_opt *o, char *arg)
{
	struct s4n_args *a = st;

	if (conf_parse_uint(arg, 0, S4N_MTU_MAX, &a->mtu) || a->mtu < 576)
		s4n_usage_error("bad MTU '%s': expected 576 to %d", arg,
				S4N_MTU_MAX);
}

/**
 * s4n_opt_api() - -a, --api-socket PATH
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	the value
 */
static void s4n_opt_api(void *st, const struct conf_opt *o, char *arg)
{
	if (!*arg || strlen(arg) >= CONF_SOCK_PATH_MAX)
		s4n_usage_error("bad --api-socket '%s': 1 to %d characters",
				arg, CONF_SOCK_PATH_MAX - 1);
	((struct s4n_args *)st)->s->api_path = arg;
}

/**
 * s4n_opt_type() - --netns-type=pid|path; --target-type=netns
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	the value
 */
static void s4n_opt_type(void *st, const struct conf_opt *o, char *arg)
{
	if (o->id == S4N_TARGET_TYPE) {
		if (strcmp(arg, "netns"))
			s4n_usage_error("bad --target-type '%s': only netns is "
					"supported",
					arg);
		return;
	}
	if (strcmp(arg, "pid") && strcmp(arg, "path"))
		s4n_usage_error("bad --netns-type '%s': expected pid or path",
				arg);
	((struct s4n_args *)st)->path_type = !strcmp(arg, "path");
}

/**
 * s4n_opt_userns() - --userns-path=PATH
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	the value
 */
static void s4n_opt_userns(void *st, const struct conf_opt *o, char *arg)
{
	if (!*arg)
		s4n_usage_error("--userns-path needs a path");
	((struct s4n_args *)st)->userns = arg;
}

/**
 * s4n_opt_mac() - --macaddress=MAC
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	the value
 */
static void s4n_opt_mac(void *st, const struct conf_opt *o, char *arg)
{
	struct s4n_args *a = st;

	if (s4n_mac(arg, a->mac))
		s4n_usage_error("bad --macaddress '%s': expected a unicast "
				"xx:xx:xx:xx:xx:xx",
				arg);
	a->mac_set = true;
}

/**
 * s4n_opt_help() - -h, --help; -v, --version: print, exit 0
 * @st:		struct s4n_args
 * @o:		the row
 * @arg:	NULL
 */
static _Noreturn void s4n_opt_help(void *st, const struct conf_opt *o,
				   char *arg)
{
	if (o->id == 'h') {
		fputs(s4n_usage, stdout);
		exit(0);
	}
	/* slirp4netns's lines (runc's format, read by scripts), then ours */
	printf("slirp4netns version " S4N_VERSION "\n"
	       "libslirp: " S4N_LIBSLIRP_VERSION "\n"
	       "SLIRP_CONFIG_VERSION_MAX: %d\n"
	       "slipway: " SLIPWAY_VERSION "\n",
	       S4N_SLIRP_CONFIG_VERSION_MAX);
	exit(0);
}

#define A struct s4n_args
/* slirp4netns's options; the order is getopt_long()'s for abbreviations */
static const struct conf_opt s4n_opts[] = {
	CONF_OPT_ROW_TRUE("configure", 'c', A, configure),
	CONF_OPT_ROW_CALL("exit-fd", 'e', 1, s4n_opt_fd),
	CONF_OPT_ROW_CALL("ready-fd", 'r', 1, s4n_opt_fd),
	CONF_OPT_ROW_CALL("mtu", 'm', 1, s4n_opt_mtu),
	CONF_OPT_ROW_TRUE("enable-ipv6", '6', A, ipv6),
	CONF_OPT_ROW_CALL("api-socket", 'a', 1, s4n_opt_api),
	CONF_OPT_ROW_STR("cidr", S4N_CIDR, A, cidr),
	CONF_OPT_ROW_TRUE("disable-host-loopback", S4N_NO_LOOPBACK, A, no_lo),
	CONF_OPT_ROW_CALL("netns-type", S4N_NETNS_TYPE, 1, s4n_opt_type),
	CONF_OPT_ROW_CALL("userns-path", S4N_USERNS_PATH, 1, s4n_opt_userns),
	/* accepted: slipway's sandbox and filter are always on (man page) */
	CONF_OPT_ROW_NOP("enable-sandbox", S4N_SANDBOX, 0),
	CONF_OPT_ROW_NOP("enable-seccomp", S4N_SECCOMP, 0),
	CONF_OPT_ROW_STR("outbound-addr", S4N_OUT4, A, out4),
	CONF_OPT_ROW_STR("outbound-addr6", S4N_OUT6, A, out6),
	CONF_OPT_ROW_TRUE("disable-dns", S4N_NO_DNS, A, no_dns),
	CONF_OPT_ROW_CALL("macaddress", S4N_MAC, 1, s4n_opt_mac),
	CONF_OPT_ROW_CALL("target-type", S4N_TARGET_TYPE, 1, s4n_opt_type),
	CONF_OPT_ROW_CALL("help", 'h', 0, s4n_opt_help),
	CONF_OPT_ROW_CALL("version", 'v', 0, s4n_opt_help),
	CONF_OPT_ROW_END,
};
#undef A

static const struct conf_cmdline s4n_cmdline = {
	.opts = s4n_opts,
	.flags = ":",
	.error = s4n_usage_error,
};

/**
 * s4n_target() - the arguments after the options: the target namespace
 * (a PID, or a path with --netns-type=path) and the tap's name; and
 * --cidr, checked between them as slirp4netns does
 * @a:		the options read (@userns set: the target PID's when we are
 *		not root)
 * @argc:	argument count
 * @argv:	arguments
 * @first:	the first argument that is not an option
 * @tap:	out: the tap's name
 * @net:	in: the default network; out: --cidr's (network order)
 * @prefix:	in: the default prefix length; out: --cidr's
 *
 * Return: the namespace's path, as slipway's --netns takes it
 */
static const char *s4n_target(struct s4n_args *a, int argc, char **argv,
			      int first, const char **tap, uint32_t *net,
			      unsigned *prefix)
{
	static char netns_s[4096], userns_s[64];
	const char *target;
	unsigned long v;

	if (first >= argc)
		s4n_usage_error("missing PID or PATH of the network namespace");
	if (argc - first > 2)
		s4n_usage_error("too many arguments (from '%s'): expected "
				"PID|PATH [TAPNAME]",
				argv[first + 2]);
	target = argv[first];
	*tap = first + 1 < argc ? argv[first + 1] : "tap0";
	if (a->mac_set && !a->configure)
		s4n_usage_error("--macaddress needs -c (--configure)");
	if (a->cidr)
		s4n_cidr(a->cidr, net, prefix);
	if (a->path_type) {
		if (!*target)
			s4n_usage_error("empty namespace path");
		/* slipway takes a bare NAME as /run/netns/NAME: keep a path */
		snprintf(netns_s, sizeof(netns_s), "%s%s",
			 strchr(target, '/') ? "" : "./", target);
		return netns_s;
	}
	if (conf_parse_uint(target, 0, INT32_MAX, &v) || !v)
		s4n_usage_error("bad PID '%s' (use --netns-type=path for a "
				"namespace file)",
				target);
	snprintf(netns_s, sizeof(netns_s), "/proc/%lu/ns/net", v);
	if (!a->userns && geteuid() != 0) {
		/* unprivileged: the way into the target's network namespace
		 * is through its user namespace */
		snprintf(userns_s, sizeof(userns_s), "/proc/%lu/ns/user", v);
		a->userns = userns_s;
	}
	return netns_s;
}

/**
 * s4n_set() - fill the configuration through conf.c's setters: the
 * namespace and tap, the MTU, the network and the guest's address in it
 * (slirp4netns's .100), one shard, and the switches
 * @a:		the options read
 * @st:		the parse, conf_begin() done
 * @netns:	the namespace's path
 * @tap:	the tap's name
 * @net:	the network (network order), host bits 0
 * @prefix:	its prefix length
 */
static void s4n_set(const struct s4n_args *a, struct conf_st *st,
		    const char *netns, const char *tap, uint32_t net,
		    unsigned prefix)
{
	static char mtu_s[16], cidr_s[32], addr_s[32];
	uint32_t guest = net | htonl(S4N_GUEST_HOST);
	struct conf *c = st->c;

	snprintf(mtu_s, sizeof(mtu_s), "%lu", MIN(a->mtu, 65520UL));
	inet_ntop(AF_INET, &net, cidr_s, 16);
	snprintf(cidr_s + strlen(cidr_s), sizeof(cidr_s) - strlen(cidr_s),
		 "/%u", prefix);
	inet_ntop(AF_INET, &guest, addr_s, 16);
	snprintf(addr_s + strlen(addr_s), sizeof(addr_s) - strlen(addr_s),
		 "/%u", prefix);

	conf_set_netns(st, netns);
	conf_set_ifname(st, tap);
	conf_set_mtu(st, mtu_s);
	conf_set_cidr(st, cidr_s);
	conf_set_address(st, addr_s);
	c->splice = false;
	/* one queue: a client may have made the tap already, without
	 * IFF_MULTI_QUEUE (rootlesskit does), and then only one fits */
	conf_set_shards(st, "1");
	if (!a->configure)
		c->configure = false;
	if (a->no_lo)
		c->map_gw = false;
	if (a->no_dns)
		c->dns = false;
	if (a->ipv6)
		conf_set_ipv6_prefix(st, "fd00::/64");
	else
		c->ipv6 = false;
}

/**
 * s4n_set_extras() - what slipway's options lack: the user namespace to
 * join, the guest's IPv6 address, the MAC, the outbound addresses, and
 * slirp4netns's ways (struct conf's @s4n, @gw_unreach, @lease4)
 * @a:		the options read
 * @c:		configuration, conf_finish() done
 * @net:	the network (network order)
 */
static void s4n_set_extras(const struct s4n_args *a, struct conf *c,
			   uint32_t net)
{
	char out_s[INET6_ADDRSTRLEN];
	const char *why;

	c->userns_path = a->userns;
	if (a->ipv6) {
		/* slirp4netns's guest is fd00::100 (gateway ::2, DNS ::3) */
		c->guest6.s6_addr[14] = 0x01;
		c->guest6.s6_addr[15] = 0x00;
	}
	if (a->mac_set) {
		c->mac_set = true;
		memcpy(c->mac, a->mac, 6);
	}
	if (a->out4 && (s4n_outbound(a->out4, AF_INET, out_s) ||
			conf_outbound_addr(c, out_s, AF_INET, &why)))
		s4n_usage_error("bad --outbound-addr '%s': not an IPv4 address "
				"or interface of this host we can bind to",
				a->out4);
	if (a->out6 && (s4n_outbound(a->out6, AF_INET6, out_s) ||
			conf_outbound_addr(c, out_s, AF_INET6, &why)))
		s4n_usage_error(
			"bad --outbound-addr6 '%s': not an IPv6 address or "
			"interface of this host we can bind to",
			a->out6);
	c->s4n = true;
	c->gw_unreach = true; /* with --disable-host-loopback (no map_gw) */
	c->lease4 = net | htonl(S4N_DHCP_FIRST);
	if (a->mtu > 65520)
		info("MTU %lu runs as 65520, slipway's largest", a->mtu);
}

/**
 * s4n_conf_parse() - read a slirp4netns command line into slipway's
 * configuration
 * @c:		configuration to fill
 * @s:		the slirp4netns extras
 * @argc:	argument count, from the program name or the subcommand
 * @argv:	arguments (argv[0] is skipped)
 *
 * Context: start-up. The strings it makes live until exit (struct conf
 * points into them).
 */
void s4n_conf_parse(struct conf *c, struct s4n_conf *s, int argc, char **argv)
{
	struct s4n_args a = { .s = s, .mtu = 1500 };
	uint32_t net = htonl(0x0a000200);
	const char *netns, *tap;
	unsigned prefix = 24;
	struct conf_st st;
	int first;

	s->exit_fd = -1;
	s->ready_fd = -1;
	s->api_path = NULL;
	optind = 1;
	opterr = 0;
	first = conf_cmdline_run(&s4n_cmdline, argc, argv, &a, &a);
	netns = s4n_target(&a, argc, argv, first, &tap, &net, &prefix);
	if (a.path_type && a.userns && geteuid() != 0)
		debug("joining user namespace %s first", a.userns);
	net &= htonl(~0U << (32 - prefix));

	conf_begin(&st, c);
	s4n_set(&a, &st, netns, tap, net, prefix);
	conf_finish(&st);
	s4n_set_extras(&a, c, net);
}

/**
 * s4n_ready() - tell the client we serve: "1" on the ready fd, closed
 * @s:	extras (@ready_fd set to -1)
 *
 * #syscalls write close
 */
void s4n_ready(struct s4n_conf *s)
{
	ssize_t n;

	if (s->ready_fd < 0)
		return;
	do
		n = write(s->ready_fd, "1", 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		warn_perror("cannot write to the ready fd %d", s->ready_fd);
	close(s->ready_fd);
	s->ready_fd = -1;
}
