/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pasta.c - pasta and passt compatibility: their command lines into
 * struct conf, and their process model */

/**
 * DOC: Theory of Operation
 *
 * Which program
 * -------------
 *
 * Run as "pasta" or "passt" (a symlink to slipway whose name contains
 * either word, as the real programs decide by argv[0]) or as "slipway pasta
 * ARGS" / "slipway passt ARGS", slipway takes that program's command line
 * and behaves as it does for the clients that start it: Podman and Buildah,
 * RootlessKit, libvirt, QEMU's -netdev passt, muvm.
 *
 * Command line
 * ------------
 *
 * Options are the rows of pasta_opts[], read in order by
 * conf_cmdline_run() with getopt_long() and pasta's option string, so
 * "--opt value", "--opt=value" and bundled short options work as with
 * pasta, and an option slipway does not take is reported by glibc
 * itself ("unrecognized option '--foo'", exit status 1): Podman retries
 * without --map-guest-addr on exactly that text. Every option is handled
 * in order, so "--version" after an unknown option fails (RootlessKit
 * probes features that way). As in s4n.c, the options read then fill
 * struct conf through conf.c's setters (conf_begin(), conf_set_*(),
 * conf_finish()), the ones slipway's own options use, so every check and
 * default is slipway's; what those lack is set in struct conf afterwards
 * (pasta_set_model(): the conf.pasta_mode block, read by the features that
 * serve it). A bad command line exits 1, as pasta's does, not slipway's 2.
 *
 * Targets
 * -------
 *
 * pasta: a trailing PID means /proc/PID/ns/net (and, when we are
 * not root, /proc/PID/ns/user unless --userns or --netns-only); --netns
 * PATH|NAME a namespace file; a trailing command (or nothing) a new
 * namespace running it (or a shell), in the foreground. passt: -s PATH a
 * listening socket (QEMU -netdev stream), with --vhost-user a vhost-user
 * one, -F N a connected socket (which implies --one-off; with --vhost-user
 * the vhost-user frontend's, as QEMU 10.1's -netdev passt,vhost-user=on).
 *
 * Process model
 * -------------
 *
 * Unless -f (or a command), the process forks at once
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
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "edge/edge.h"
#include "cli/pasta.h"
#include "obs/ofile.h"
#include "util/log.h"
#include "util/util.h"

static const char pasta_usage_text[] =
	"Usage: pasta [OPTION]... [COMMAND [ARG]...]\n"
	"       pasta [OPTION]... PID\n"
	"       pasta [OPTION]... --netns [PATH|NAME]\n"
	"       passt [OPTION]...\n"
	"\n"
	"slipway in pasta/passt compatibility mode: see slipway(1), PASTA AND "
	"PASST\n"
	"COMPATIBILITY, for what each option does here and which are refused.\n"
	"\n"
	"  -d, --debug              debug messages\n"
	"  --trace                  per-packet messages\n"
	"  -q, --quiet              errors only\n"
	"  -f, --foreground         do not fork into the background\n"
	"  -e, --stderr             (no effect: messages go to stderr until "
	"ready)\n"
	"  -l, --log-file PATH      messages there once in the background\n"
	"  --log-size SIZE          (accepted, no effect)\n"
	"  --version                print the version and exit\n"
	"  -h, --help               this text\n"
	"  --runas UID|UID:GID      become this user after set-up (as root)\n"
	"  -P, --pid FILE           write the (background) process's PID "
	"there\n"
	"  -p, --pcap FILE          capture the guest's frames there\n"
	"  -m, --mtu MTU            guest MTU (default: 65520)\n"
	"  -a, --address ADDR[/LEN] guest address\n"
	"  -n, --netmask MASK       IPv4 prefix length or netmask\n"
	"  -g, --gateway ADDR       gateway address\n"
	"  -4, --ipv4-only          no IPv6\n"
	"  -i, --interface NAME     host interface addresses and routes come "
	"from\n"
	"  -o, --outbound ADDR      source address of outbound sockets\n"
	"  --outbound-if4 NAME      bind outbound IPv4 sockets to NAME\n"
	"  --outbound-if6 NAME      bind outbound IPv6 sockets to NAME\n"
	"  -D, --dns ADDR|none      (none: no DNS forwarder; ADDR: accepted, "
	"ignored)\n"
	"  -S, --search LIST|none   (accepted, the host's list is used)\n"
	"  --dns-forward ADDR       DNS sent to ADDR goes to the host's "
	"resolver\n"
	"  --dns-host ADDR          (accepted, the host's resolv.conf is "
	"used)\n"
	"  -H, --hostname NAME      hostname for DHCP\n"
	"  --fqdn NAME              FQDN for DHCP\n"
	"  --no-dhcp                no DHCP (v4 and v6)\n"
	"  --no-dhcpv6, --no-ndp, --no-ra, --dhcp-dns, --no-dhcp-dns, "
	"--dhcp-search,\n"
	"  --no-dhcp-search, --freebind, --no-copy-routes, --no-copy-addrs\n"
	"                           (accepted, no effect)\n"
	"  --map-host-loopback ADDR|none  ADDR reaches the host's loopback\n"
	"  --map-guest-addr ADDR|none     ADDR reaches the host as the guest's "
	"address\n"
	"  --no-map-gw              the gateway does not reach the host's "
	"loopback\n"
	"  -t, --tcp-ports SPEC     host TCP ports to the guest (none, auto, "
	"all,\n"
	"                           [ADDR[%IF]/]PORTS)\n"
	"  -u, --udp-ports SPEC     the same for UDP\n"
	"  -M, --mac-addr ADDR      (accepted, slipway's gateway MAC is "
	"fixed)\n"
	"pasta only:\n"
	"  -I, --ns-ifname NAME     tap name in the namespace (default: tap0)\n"
	"  --ns-mac-addr ADDR       the tap's MAC address\n"
	"  -T, --tcp-ns SPEC        namespace loopback TCP ports to the "
	"host's\n"
	"  -U, --udp-ns SPEC        namespace loopback UDP ports to the "
	"host's\n"
	"  --userns PATH            user namespace to join first\n"
	"  --netns PATH|NAME        target namespace (NAME: /run/netns/NAME)\n"
	"  --netns-only             do not join the target's user namespace\n"
	"  --no-netns-quit          keep running when the namespace goes\n"
	"  --config-net             configure the namespace's interface\n"
	"  --no-splice              no loopback splicing\n"
	"  --host-lo-to-ns-lo       host loopback clients reach the "
	"namespace's\n"
	"passt only:\n"
	"  -s, --socket PATH        listen there (default: "
	"/tmp/passt_N.socket)\n"
	"  -F, --fd FD              serve this connected socket (implies -1)\n"
	"  -1, --one-off            exit when the guest leaves\n"
	"  --vhost-user             vhost-user on the -s socket (or the --fd "
	"one)\n"
	"  --print-capabilities     vhost-user backend capabilities (JSON), "
	"exit\n"
	"  --repair-path none       (accepted: migration is not supported)\n";

enum {
	PO_NO_DHCP = 256,
	PO_NO_DHCPV6,
	PO_NO_NDP,
	PO_NO_RA,
	PO_NO_SPLICE,
	PO_FREEBIND,
	PO_NO_MAP_GW,
	PO_USERNS,
	PO_NETNS,
	PO_NS_MAC,
	PO_DHCP_DNS,
	PO_NO_DHCP_DNS,
	PO_DHCP_SEARCH,
	PO_NO_DHCP_SEARCH,
	PO_DNS_FORWARD,
	PO_NO_NETNS_QUIT,
	PO_TRACE,
	PO_RUNAS,
	PO_LOG_SIZE,
	PO_VERSION,
	PO_OUT_IF4,
	PO_OUT_IF6,
	PO_CONFIG_NET,
	PO_NO_COPY_ROUTES,
	PO_NO_COPY_ADDRS,
	PO_NETNS_ONLY,
	PO_MAP_HOST_LO,
	PO_MAP_GUEST,
	PO_HOST_LO_TO_NS_LO,
	PO_DNS_HOST,
	PO_VHOST_USER,
	PO_PRINT_CAPS,
	PO_FQDN,
	PO_REPAIR_PATH,
};

/* -t, -u, -T, -U: which ports a direction forwards, as pasta counts */
enum pasta_fwd_mode { FWDM_UNSET, FWDM_SPEC, FWDM_NONE, FWDM_AUTO, FWDM_ALL };

static const char *pasta_prog = "pasta";

/**
 * pasta_error() - report a bad command line and exit 1
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 1, 2), noreturn))
pasta_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_usage_status = 1;
	conf_usage_verror(pasta_prog,
			  !strcmp(pasta_prog, "passt") ?
				  "Try 'passt --help' (and slipway(1), PASTA "
				  "AND PASST COMPATIBILITY)." :
				  "Try 'pasta --help' (and slipway(1), PASTA "
				  "AND PASST COMPATIBILITY).",
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
	if (argc > 1 &&
	    (!strcmp(argv[1], "pasta") || !strcmp(argv[1], "passt"))) {
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
static bool pasta_fwd_mode_set(enum pasta_fwd_mode *m, int o, const char *spec,
			       bool passt)
{
	enum pasta_fwd_mode n = !strcmp(spec, "none") ? FWDM_NONE :
				!strcmp(spec, "auto") ? FWDM_AUTO :
				!strcmp(spec, "all")  ? FWDM_ALL :
							FWDM_SPEC;

	if (n == FWDM_AUTO && passt)
		pasta_error("'auto' port forwarding is only allowed for pasta");
	if ((n != FWDM_SPEC && *m != FWDM_UNSET) ||
	    (n == FWDM_SPEC && *m > FWDM_SPEC))
		pasta_error("port forwarding mode '%s' of -%c conflicts with "
			    "the previous one",
			    spec, o);
	*m = n;
	return n != FWDM_NONE;
}

/**
 * pasta_pid_prepare() - -P: open the PID file's directory, check the name
 * @p:		extras (@pid_dirfd, @pid_name set)
 * @path:	the path
 *
 * The file itself is written once slipway is ready (pasta_pid_write()).
 *
 * #syscalls:setup openat newfstatat
 */
static void pasta_pid_prepare(struct pasta_conf *p, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;

	p->pid_name = slash ? slash + 1 : path;
	if (!*p->pid_name || !strcmp(p->pid_name, ".") ||
	    !strcmp(p->pid_name, ".."))
		pasta_error("invalid PID file: %s (a file name is needed)",
			    path);
	p->pid_dirfd = qsock_path_dir(path);
	if (p->pid_dirfd < 0) {
		fprintf(stderr,
			"%s: cannot open the directory of PID file %s: %s\n",
			pasta_prog, path, strerror(errno));
		exit(1);
	}
	if (!fstatat(p->pid_dirfd, p->pid_name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: PID file %s is a directory\n", pasta_prog,
			path);
		exit(1);
	}
}

/**
 * pasta_pid_write() - write the PID file: a new file in its directory,
 * renamed over the path
 * @p:		extras (@pid_dirfd closed and set to -1)
 * @pid:	the PID to write
 *
 * As root, in a directory others may write: a symbolic link (or anything
 * else) at the path is replaced, never followed, and the file appears
 * whole. The new name is made with O_EXCL, so nothing planted there is
 * followed either.
 *
 * #syscalls:setup openat write close renameat renameat2 unlinkat getpid
 * Return: 0, or -errno (reported)
 */
int pasta_pid_write(struct pasta_conf *p, pid_t pid)
{
	char tmp[NAME_MAX + 1], buf[16];
	int fd = -1, i, len, ret;

	if (p->pid_dirfd < 0)
		return 0;
	for (i = 0; i < 100 && fd < 0; i++) {
		len = snprintf(tmp, sizeof(tmp), ".%s.%d.%d", p->pid_name,
			       (int)getpid(), i);
		if (len < 0 || (size_t)len >= sizeof(tmp)) {
			errno = ENAMETOOLONG;
			break;
		}
		fd = openat(p->pid_dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		goto out_err;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	if (write(fd, buf, (size_t)len) != len) {
		ret = errno ? -errno : -EIO;
		goto out_unlink;
	}
	if (close(fd)) {
		fd = -1;
		ret = -errno;
		goto out_unlink;
	}
	fd = -1;
	if (renameat(p->pid_dirfd, tmp, p->pid_dirfd, p->pid_name)) {
		ret = -errno;
		goto out_unlink;
	}
	close(p->pid_dirfd);
	p->pid_dirfd = -1;
	return 0;

out_unlink:
	if (fd >= 0)
		close(fd);
	unlinkat(p->pid_dirfd, tmp, 0);
out_err:
	fprintf(stderr, "%s: cannot write the PID file %s: %s\n", pasta_prog,
		p->pid_name, strerror(-ret));
	close(p->pid_dirfd);
	p->pid_dirfd = -1;
	return ret;
}

/**
 * struct pasta_fwd - a -t, -u, -T or -U value that forwards ports
 * @o:		the option's letter
 * @spec:	the value
 */
struct pasta_fwd {
	int o;
	const char *spec;
};

/**
 * struct pasta_args - a pasta or passt command line's options, as read
 * @argv:	the arguments (for the option as spelt)
 * @fwd:	the -t, -u, -T and -U values that forward ports, in order:
 *		given to conf_set_fwd() once every option is read
 * @nfwd:	entries in @fwd
 * @log_level:	the last of -d, -q and --trace, or -1: set once every
 *		option is read
 * @cmd:	the command to run in a new namespace, or NULL
 * @vhost_user:	--vhost-user (anywhere: it chooses passt mode)
 * @passt:	passt mode
 * @foreground:	-f
 * @one_off:	-1, -F
 * @netns_quit:	not --no-netns-quit
 * @fm_t:	-t's forwarding mode so far (@fm_u, @fm_T, @fm_U: the others)
 * @fm_u:	-u's
 * @fm_T:	-T's
 * @fm_U:	-U's
 * @ipv4_only:	-4
 * @no_dhcp:	--no-dhcp
 * @no_dns:	-D none
 * @no_map_gw:	--no-map-gw, --map-host-loopback none
 * @no_splice:	--no-splice
 * @netns_only:	--netns-only
 * @config_net:	--config-net
 * @ns_mac_set:	--ns-mac-addr given
 * @guest6_set:	-a gave an IPv6 address
 * @gw6_set:	-g gave an IPv6 address
 * @addr4_set:	-a gave an IPv4 address
 * @addr_has_len: with a prefix length
 * @host_lo:	--host-lo-to-ns-lo
 * @netns:	--netns, or NULL
 * @userns:	--userns, or NULL
 * @sock:	-s, or NULL
 * @fd:		-F, or NULL
 * @ifname:	-I, or NULL
 * @mtu:	-m, or NULL
 * @gw4:	-g's IPv4 address, or NULL
 * @pcap:	-p, or NULL
 * @runas:	--runas, or NULL
 * @pid_path:	-P, or NULL
 * @log_path:	-l, or NULL
 * @map_guest:	--map-guest-addr, or NULL
 * @map_host_lo: --map-host-loopback, or NULL
 * @dns_fwd:	--dns-forward, or NULL
 * @out4:	-o's IPv4 address, or NULL
 * @out6:	-o's IPv6 address, or NULL
 * @out_if4:	--outbound-if4, or NULL
 * @out_if6:	--outbound-if6, or NULL
 * @hostname:	-H, or NULL
 * @fqdn:	--fqdn, or NULL
 * @template_if: -i, or NULL
 * @guest6:	-a's IPv6 address
 * @gw6:	-g's IPv6 address
 * @ns_mac:	--ns-mac-addr's value
 * @prefix4:	-a's IPv4 prefix length (given or the class's), or -1
 * @netmask:	-n, or -1
 * @addr4_s:	-a's IPv4 address as text, "/LEN" appended later
 */
struct pasta_args {
	char **argv;
	struct pasta_fwd *fwd;
	int nfwd;
	int log_level;
	char **cmd;
	bool vhost_user;
	bool passt, foreground, one_off, netns_quit;
	enum pasta_fwd_mode fm_t, fm_u, fm_T, fm_U;
	bool ipv4_only, no_dhcp, no_dns, no_map_gw, no_splice, netns_only;
	bool config_net, ns_mac_set, guest6_set, gw6_set, addr4_set;
	bool addr_has_len, host_lo;
	const char *netns, *userns, *sock, *fd, *ifname, *mtu, *gw4, *pcap;
	const char *runas, *pid_path, *log_path, *map_guest, *map_host_lo;
	const char *dns_fwd, *out4, *out6, *out_if4, *out_if6, *hostname;
	const char *fqdn, *template_if;
	struct in6_addr guest6, gw6;
	uint8_t ns_mac[6];
	int prefix4, netmask;
	char addr4_s[64];
};

#define PASTA_ONLY(a, name)                                             \
	do {                                                            \
		if ((a)->passt)                                         \
			pasta_error("%s is for pasta mode only", name); \
	} while (0)
#define PASST_ONLY(a, name)                                             \
	do {                                                            \
		if (!(a)->passt)                                        \
			pasta_error("%s is for passt mode only", name); \
	} while (0)

/**
 * pasta_opt_log() - -d, --debug; -q, --quiet; --trace: the log level, set
 * once every option is read (a -D before it still warns)
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	NULL
 */
static void pasta_opt_log(void *st, const struct conf_opt *o, char *arg)
{
	((struct pasta_args *)st)->log_level = o->id == 'q' ? LOG_ERR :
					       o->id == 'd' ? LOG_DEBUG :
							      LOG_TRACE;
}

/**
 * pasta_opt_nop() - accepted, no effect (slipway(1) says why), in one mode
 * or both; -M checks its MAC address
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value, or NULL
 */
static void pasta_opt_nop(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	uint8_t mac[6];

	if (o->id == PO_DHCP_DNS || o->id == PO_DHCP_SEARCH ||
	    o->id == PO_NO_COPY_ROUTES || o->id == PO_NO_COPY_ADDRS)
		PASTA_ONLY(a, a->argv[optind - 1]);
	if (o->id == PO_NO_DHCP_DNS || o->id == PO_NO_DHCP_SEARCH)
		PASST_ONLY(a, a->argv[optind - 1]);
	if (o->id == 'M' && pasta_mac(arg, mac))
		pasta_error("invalid MAC address: %s", arg);
}

/**
 * pasta_opt_help() - -h, --help; --version: print, exit 0
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	NULL
 */
static _Noreturn void pasta_opt_help(void *st, const struct conf_opt *o,
				     char *arg)
{
	if (o->id == 'h') {
		fputs(pasta_usage_text, stdout);
		exit(0);
	}
	printf("%s (slipway) %s\n"
	       "slipway %s in %s compatibility mode: see slipway(1), PASTA AND "
	       "PASST COMPATIBILITY\n"
	       "GNU General Public License, version 2 or later\n",
	       pasta_prog, SLIPWAY_VERSION, SLIPWAY_VERSION, pasta_prog);
	exit(0);
}

/**
 * pasta_opt_sock() - passt's -s, --socket PATH; -F, --fd FD (implies -1);
 * -1, --one-off
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value, or NULL
 */
static void pasta_opt_sock(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	unsigned long v;

	if (o->id == 's') {
		PASST_ONLY(a, "-s");
		if (!*arg || strlen(arg) >= CONF_SOCK_PATH_MAX)
			pasta_error("invalid socket path: %s", arg);
		a->sock = arg;
		a->fd = NULL;
		return;
	}
	if (o->id == '1') {
		PASST_ONLY(a, "--one-off");
		a->one_off = true;
		return;
	}
	PASST_ONLY(a, "--fd");
	if (conf_parse_uint(arg, 0, INT32_MAX, &v) || (v >= 1 && v <= 2))
		pasta_error("invalid --fd: %s", arg);
	a->fd = arg;
	a->sock = NULL;
	a->one_off = true;
}

/**
 * pasta_opt_pasta() - pasta's own: -I, --userns, --netns, --netns-only,
 * --no-netns-quit, --config-net, --host-lo-to-ns-lo, --ns-mac-addr
 * @st:		struct pasta_args
 * @o:		the row (@label: the name passt mode refuses it by)
 * @arg:	the value, or NULL
 */
static void pasta_opt_pasta(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;

	PASTA_ONLY(a, o->label);
	switch (o->id) {
	case 'I':
		a->ifname = arg;
		break;
	case PO_USERNS:
		if (!*arg)
			pasta_error("invalid userns: %s", arg);
		a->userns = arg;
		a->netns_only = false;
		break;
	case PO_NETNS:
		if (!*arg)
			pasta_error("invalid netns: %s", arg);
		a->netns = arg;
		break;
	case PO_NETNS_ONLY:
		a->netns_only = true;
		a->userns = NULL;
		break;
	case PO_NO_NETNS_QUIT:
		a->netns_quit = false;
		break;
	case PO_CONFIG_NET:
		a->config_net = true;
		break;
	case PO_HOST_LO_TO_NS_LO:
		a->host_lo = true;
		break;
	case PO_NS_MAC:
		if (pasta_mac(arg, a->ns_mac))
			pasta_error("invalid MAC address: %s", arg);
		a->ns_mac_set = true;
		break;
	}
}

/**
 * pasta_opt_pid() - -P, --pid FILE
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_pid(void *st, const struct conf_opt *o, char *arg)
{
	if (!*arg)
		pasta_error("invalid PID file: %s", arg);
	((struct pasta_args *)st)->pid_path = arg;
}

/**
 * pasta_opt_address() - -a, --address ADDR[/LEN]: IPv4 or IPv6
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_address(void *st, const struct conf_opt *o, char *arg)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	struct pasta_args *a = st;
	struct in6_addr a6;
	struct in_addr a4;
	unsigned long v;
	int fam, len = -1;

	if (strlen(arg) >= sizeof(buf))
		pasta_error("invalid address: %s", arg);
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (conf_parse_uint(slash + 1, 0, 128, &v))
			pasta_error("invalid address: %s", arg);
		len = (int)v;
	}
	fam = pasta_addr(buf, &a6);
	if (!fam)
		pasta_error("invalid address: %s", arg);
	if (fam == AF_INET6) {
		a->guest6 = a6;
		a->guest6_set = true;
		return;
	}
	if (len >= 0 && a->netmask >= 0)
		pasta_error("redundant prefix length specification");
	a->addr_has_len = len >= 0;
	memcpy(&a4, &a6.s6_addr[12], 4);
	inet_ntop(AF_INET, &a4, a->addr4_s, sizeof(a->addr4_s));
	a->addr4_set = true;
	if (len > 32)
		pasta_error("invalid address: %s", arg);
	if (len < 0) {
		/* pasta's default: the address's class */
		uint32_t h = ntohl(a4.s_addr);

		len = !(h >> 31) ? 8 : (h >> 30) == 2 ? 16 : 24;
	}
	a->prefix4 = len;
}

/**
 * pasta_opt_netmask() - -n, --netmask MASK: a length or a dotted mask
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_netmask(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;

	if (a->addr_has_len)
		pasta_error("redundant prefix length specification");
	a->netmask = pasta_prefix4(arg);
	if (a->netmask < 0)
		pasta_error("invalid prefix length: %s", arg);
}

/**
 * pasta_opt_gateway() - -g, --gateway ADDR: IPv4 or IPv6
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_gateway(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	struct in6_addr a6;
	int fam = pasta_addr(arg, &a6);

	if (!fam)
		pasta_error("invalid gateway address: %s", arg);
	if (fam == AF_INET6) {
		a->gw6 = a6;
		a->gw6_set = true;
	} else {
		a->gw4 = arg;
	}
}

/**
 * pasta_opt_if() - -i, --interface NAME; --outbound-if4 and
 * --outbound-if6 NAME
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_if(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;

	if (o->id == 'i') {
		if (!*arg || strlen(arg) >= 16)
			pasta_error("invalid interface name %s", arg);
		a->template_if = arg;
		return;
	}
	if (!*arg || strlen(arg) >= 16)
		pasta_error("invalid interface name: %s", arg);
	if (o->id == PO_OUT_IF4)
		a->out_if4 = arg;
	else
		a->out_if6 = arg;
}

/**
 * pasta_opt_outbound() - -o, --outbound ADDR: IPv4 or IPv6
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_outbound(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	struct in6_addr a6;
	int fam = pasta_addr(arg, &a6);

	if (!fam)
		pasta_error("invalid or redundant outbound address: %s", arg);
	if (fam == AF_INET)
		a->out4 = arg;
	else
		a->out6 = arg;
}

/**
 * pasta_opt_dns() - -D, --dns ADDR|none; --dns-forward ADDR; --dns-host
 * ADDR
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_dns(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	struct in6_addr a6;

	if (o->id == PO_DNS_FORWARD) {
		if (!pasta_addr(arg, &a6))
			pasta_error("invalid DNS forwarding address: %s", arg);
		a->dns_fwd = arg;
	} else if (o->id == PO_DNS_HOST) {
		if (!pasta_addr(arg, &a6))
			pasta_error("invalid host nameserver address: %s", arg);
		warn("--dns-host %s: ignored: DNS goes to the resolvers in the "
		     "host's resolv.conf",
		     arg);
	} else if (!strcmp(arg, "none")) {
		a->no_dns = true;
	} else {
		if (!pasta_addr(arg, &a6))
			pasta_error("cannot use DNS address %s", arg);
		a->no_dns = false;
		warn("-D %s: ignored: the guest is told slipway's DNS "
		     "forwarder",
		     arg);
	}
}

/**
 * pasta_opt_name() - -H, --hostname NAME; --fqdn NAME
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_name(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;

	if (!*arg || strlen(arg) > 253)
		pasta_error("invalid %s: %s",
			    o->id == 'H' ? "hostname" : "FQDN", arg);
	if (o->id == 'H')
		a->hostname = arg;
	else
		a->fqdn = arg;
}

/**
 * pasta_opt_fwd() - -t, -u, -T, -U SPEC: checked against the direction's
 * mode so far, kept in order for conf_set_fwd()
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_fwd(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	enum pasta_fwd_mode *m = o->id == 't' ? &a->fm_t :
				 o->id == 'u' ? &a->fm_u :
				 o->id == 'T' ? &a->fm_T :
						&a->fm_U;

	if (o->id == 'T' || o->id == 'U')
		PASTA_ONLY(a, o->id == 'T' ? "-T" : "-U");
	if (!pasta_fwd_mode_set(m, o->id, arg, a->passt))
		return;
	if (o->id == 'U') {
		if (*m == FWDM_AUTO)
			return; /* as pasta's default: below */
		if (*m == FWDM_ALL || strstr(arg, "auto"))
			pasta_error("-U %s: slipway forwards explicit UDP "
				    "ports from the namespace only (-U "
				    "PORT[:HOSTPORT], none or auto)",
				    arg);
	}
	a->fwd[a->nfwd++] = (struct pasta_fwd){ o->id, arg };
}

/**
 * pasta_opt_map() - --map-host-loopback ADDR|none; --map-guest-addr
 * ADDR|none
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_map(void *st, const struct conf_opt *o, char *arg)
{
	struct pasta_args *a = st;
	struct in6_addr a6;

	if (strcmp(arg, "none") && !pasta_addr(arg, &a6))
		pasta_error("invalid address to remap to host: %s", arg);
	if (o->id == PO_MAP_GUEST) {
		a->map_guest = arg;
	} else {
		a->map_host_lo = arg;
		if (!strcmp(arg, "none"))
			a->no_map_gw = true;
	}
}

/**
 * pasta_opt_repair() - --repair-path none: migration is not supported
 * @st:		struct pasta_args
 * @o:		the row
 * @arg:	the value
 */
static void pasta_opt_repair(void *st, const struct conf_opt *o, char *arg)
{
	if (strcmp(arg, "none"))
		pasta_error("--repair-path %s: migration is not supported "
			    "(only none)",
			    arg);
}

/**
 * pasta_bad() - an unknown option or a missing value: glibc has said
 * which, as pasta's; point to the help and exit 1
 * @st:		struct pasta_args
 * @o:		getopt's '?'
 * @arg:	the argument
 */
static void __attribute__((noreturn))
pasta_bad(void *st, int o, const char *arg)
{
	fprintf(stderr, "Try '%s --help'.\n", pasta_prog);
	exit(1);
}

#define A struct pasta_args
#define CALL CONF_OPT_ROW_CALL
/* pasta's and passt's options (less -6 and -c); the order is
 * getopt_long()'s for abbreviations */
static const struct conf_opt pasta_opts[] = {
	CALL("debug", 'd', 0, pasta_opt_log),
	CALL("quiet", 'q', 0, pasta_opt_log),
	CONF_OPT_ROW_TRUE("foreground", 'f', A, foreground),
	CONF_OPT_ROW_NOP("stderr", 'e', 0),
	CONF_OPT_ROW_STR("log-file", 'l', A, log_path),
	CALL("help", 'h', 0, pasta_opt_help),
	CALL("socket", 's', 1, pasta_opt_sock),
	CALL("socket-path", 's', 1, pasta_opt_sock),
	CALL("fd", 'F', 1, pasta_opt_sock),
	CONF_OPT_ROW_NAMED("ns-ifname", 'I', 1, pasta_opt_pasta, "-I"),
	CONF_OPT_ROW_STR("pcap", 'p', A, pcap),
	CALL("pid", 'P', 1, pasta_opt_pid),
	CONF_OPT_ROW_STR("mtu", 'm', A, mtu),
	CALL("address", 'a', 1, pasta_opt_address),
	CALL("netmask", 'n', 1, pasta_opt_netmask),
	CALL("mac-addr", 'M', 1, pasta_opt_nop),
	CALL("gateway", 'g', 1, pasta_opt_gateway),
	CALL("interface", 'i', 1, pasta_opt_if),
	CALL("outbound", 'o', 1, pasta_opt_outbound),
	CALL("dns", 'D', 1, pasta_opt_dns),
	CONF_OPT_ROW_NOP("search", 'S', 1), /* the host's list is used */
	CALL("hostname", 'H', 1, pasta_opt_name),
	CONF_OPT_ROW_TRUE("no-dhcp", PO_NO_DHCP, A, no_dhcp),
	CONF_OPT_ROW_NOP("no-dhcpv6", PO_NO_DHCPV6, 0),
	CONF_OPT_ROW_NOP("no-ndp", PO_NO_NDP, 0),
	CONF_OPT_ROW_NOP("no-ra", PO_NO_RA, 0),
	CONF_OPT_ROW_TRUE("no-splice", PO_NO_SPLICE, A, no_splice),
	CONF_OPT_ROW_NOP("freebind", PO_FREEBIND, 0),
	CONF_OPT_ROW_TRUE("no-map-gw", PO_NO_MAP_GW, A, no_map_gw),
	CONF_OPT_ROW_TRUE("ipv4-only", '4', A, ipv4_only),
	CALL("one-off", '1', 0, pasta_opt_sock),
	CALL("tcp-ports", 't', 1, pasta_opt_fwd),
	CALL("udp-ports", 'u', 1, pasta_opt_fwd),
	CALL("tcp-ns", 'T', 1, pasta_opt_fwd),
	CALL("udp-ns", 'U', 1, pasta_opt_fwd),
	CONF_OPT_ROW_NAMED("userns", PO_USERNS, 1, pasta_opt_pasta, "--userns"),
	CONF_OPT_ROW_NAMED("netns", PO_NETNS, 1, pasta_opt_pasta, "--netns"),
	CONF_OPT_ROW_NAMED("ns-mac-addr", PO_NS_MAC, 1, pasta_opt_pasta,
			   "--ns-mac-addr"),
	CALL("dhcp-dns", PO_DHCP_DNS, 0, pasta_opt_nop),
	CALL("no-dhcp-dns", PO_NO_DHCP_DNS, 0, pasta_opt_nop),
	CALL("dhcp-search", PO_DHCP_SEARCH, 0, pasta_opt_nop),
	CALL("no-dhcp-search", PO_NO_DHCP_SEARCH, 0, pasta_opt_nop),
	CALL("dns-forward", PO_DNS_FORWARD, 1, pasta_opt_dns),
	CONF_OPT_ROW_NAMED("no-netns-quit", PO_NO_NETNS_QUIT, 0,
			   pasta_opt_pasta, "--no-netns-quit"),
	CALL("trace", PO_TRACE, 0, pasta_opt_log),
	CONF_OPT_ROW_STR("runas", PO_RUNAS, A, runas),
	CONF_OPT_ROW_NOP("log-size", PO_LOG_SIZE, 1),
	CALL("version", PO_VERSION, 0, pasta_opt_help),
	CALL("outbound-if4", PO_OUT_IF4, 1, pasta_opt_if),
	CALL("outbound-if6", PO_OUT_IF6, 1, pasta_opt_if),
	CONF_OPT_ROW_NAMED("config-net", PO_CONFIG_NET, 0, pasta_opt_pasta,
			   "--config-net"),
	CALL("no-copy-routes", PO_NO_COPY_ROUTES, 0, pasta_opt_nop),
	CALL("no-copy-addrs", PO_NO_COPY_ADDRS, 0, pasta_opt_nop),
	CONF_OPT_ROW_NAMED("netns-only", PO_NETNS_ONLY, 0, pasta_opt_pasta,
			   "--netns-only"),
	CALL("map-host-loopback", PO_MAP_HOST_LO, 1, pasta_opt_map),
	CALL("map-guest-addr", PO_MAP_GUEST, 1, pasta_opt_map),
	CONF_OPT_ROW_NAMED("host-lo-to-ns-lo", PO_HOST_LO_TO_NS_LO, 0,
			   pasta_opt_pasta, "--host-lo-to-ns-lo"),
	CALL("dns-host", PO_DNS_HOST, 1, pasta_opt_dns),
	CONF_OPT_ROW_NOP("vhost-user", PO_VHOST_USER, 0), /* seen first */
	CONF_OPT_ROW_PRINT_CAPS(PO_PRINT_CAPS),
	CALL("fqdn", PO_FQDN, 1, pasta_opt_name),
	CALL("repair-path", PO_REPAIR_PATH, 1, pasta_opt_repair),
	CONF_OPT_ROW_END,
};
#undef CALL
#undef A

static const struct conf_cmdline pasta_cmdline = {
	.opts = pasta_opts,
	.flags = "+",
	.error = pasta_error,
	.bad = pasta_bad,
};

/**
 * pasta_target() - what the arguments after the options say: passt's
 * socket; pasta's target PID, namespace, or command in a namespace of its
 * own
 * @a:		the options read (@netns, @userns, @cmd, @config_net, @sock
 *		set)
 * @p:		the process-model extras (@foreground set with a command)
 * @argc:	argument count
 * @argv:	arguments
 * @first:	the first argument that is not an option
 */
static void pasta_target(struct pasta_args *a, struct pasta_conf *p, int argc,
			 char **argv, int first)
{
	static char netns_s[4096], userns_s[64];
	unsigned long v;

	if (a->passt) {
		if (first < argc)
			pasta_error("extra non-option argument: %s",
				    argv[first]);
		if (!a->fd && !a->sock)
			a->sock = pasta_sock_default();
	} else if (first < argc &&
		   !conf_parse_uint(argv[first], 1, INT32_MAX, &v)) {
		if (a->netns)
			pasta_error("both --netns and PID given");
		if (first + 1 < argc)
			pasta_error("extra argument after the PID: %s",
				    argv[first + 1]);
		snprintf(netns_s, sizeof(netns_s), "/proc/%lu/ns/net", v);
		a->netns = netns_s;
		if (!a->userns && !a->netns_only && geteuid() != 0) {
			/* unprivileged: the way into the target's network
			 * namespace is through its user namespace */
			snprintf(userns_s, sizeof(userns_s),
				 "/proc/%lu/ns/user", v);
			a->userns = userns_s;
		}
	} else if (a->netns) {
		if (first < argc)
			pasta_error("both --netns and a command given (%s)",
				    argv[first]);
	} else {
		/* a command (or a shell) in a namespace of its own: in the
		 * foreground, configured, gone with the command */
		a->cmd = first < argc ? &argv[first] : NULL;
		p->foreground = true;
		a->config_net = true;
		if (a->userns)
			pasta_error("--userns needs a PID or --netns target");
	}
}

/**
 * pasta_set_where() - the configuration's edge (passt) or namespace and
 * tap (pasta), and pasta's default "auto" for a direction not given
 * @a:		the options read, pasta_target() done
 * @st:		the parse
 */
static void pasta_set_where(struct pasta_args *a, struct conf_st *st)
{
	static const char dir[] = { 't', 'u', 'T' };
	const enum pasta_fwd_mode m[] = { a->fm_t, a->fm_u, a->fm_T };
	unsigned i;

	if (a->passt) {
		if (a->fd) {
			/* --vhost-user --fd N: QEMU 10.1 -netdev
			 * passt,vhost-user=on; the frontend is on N */
			if (a->vhost_user)
				conf_set_edge(st, CONF_EDGE_VU, NULL);
			conf_set_edge(st, CONF_EDGE_FD, a->fd);
		} else {
			conf_set_edge(st,
				      a->vhost_user ? CONF_EDGE_VU :
						      CONF_EDGE_STREAM,
				      a->sock);
		}
		return;
	}
	if (a->netns)
		conf_set_netns(st, a->netns);
	if (!a->config_net) {
		/* the client configures the tap, and may have made it
		 * (rootlesskit before 2.3 does): single-queue then, and only
		 * one queue fits */
		st->c->configure = false;
		conf_set_shards(st, "1");
	}
	if (a->ifname)
		conf_set_ifname(st, a->ifname);
	if (a->no_splice)
		st->c->splice = false;
	/* pasta's default for a direction not given: auto, as far as the
	 * port parser knows it */
	for (i = 0; i < sizeof(dir); i++)
		if (m[i] == FWDM_UNSET && pasta_spec_supported("auto"))
			conf_set_fwd(st, dir[i], "auto");
}

/**
 * pasta_set_addrs() - the configuration's MTU and slipway's addresses, as
 * -m, -a, -n and -g gave them, and the switches
 * @a:		the options read
 * @st:		the parse
 */
static void pasta_set_addrs(struct pasta_args *a, struct conf_st *st)
{
	static char prefix6_s[64];
	struct conf *c = st->c;
	struct in6_addr a6;

	if (a->mtu)
		conf_set_mtu(st, a->mtu);
	if (a->addr4_set || a->netmask >= 0) {
		if (!a->addr4_set)
			strcpy(a->addr4_s, "10.0.2.15");
		snprintf(a->addr4_s + strlen(a->addr4_s),
			 sizeof(a->addr4_s) - strlen(a->addr4_s), "/%d",
			 a->netmask >= 0 ? a->netmask : a->prefix4);
		conf_set_address(st, a->addr4_s);
	}
	if (a->gw4)
		conf_set_gateway(st, a->gw4);
	if (a->guest6_set) {
		/* slipway's model: the /64 of -a's IPv6 address */
		memcpy(&a6, &a->guest6, 16);
		memset(&a6.s6_addr[8], 0, 8);
		inet_ntop(AF_INET6, &a6, prefix6_s, sizeof(prefix6_s));
		strcat(prefix6_s, "/64");
		conf_set_ipv6_prefix(st, prefix6_s);
	}
	if (a->ipv4_only)
		c->ipv6 = false;
	if (a->no_dhcp)
		c->dhcp = false;
	if (a->no_dns)
		c->dns = false;
	if (a->no_map_gw)
		c->map_gw = false;
	if (a->pcap)
		conf_set_pcap(st, a->pcap);
	if (a->runas)
		conf_set_runas(st, a->runas);
}

/**
 * pasta_set_model() - what slipway's options lack: pasta's addressing
 * model and mappings, outbound addresses, DHCP names, the user namespace,
 * the tap's MAC, the guest's IPv6 addresses as given
 * @a:		the options read
 * @c:		configuration, conf_finish() done
 */
static void pasta_set_model(const struct pasta_args *a, struct conf *c)
{
	const char *why = NULL;

	c->pasta_mode = a->passt ? CONF_PASTA_PASST : CONF_PASTA_PASTA;
	/* pasta's and passt's addressing: the host's own (conf_net.c) */
	c->addr_model = CONF_ADDR_HOST_COPY;
	c->config_net = a->config_net && !a->passt;
	c->map_guest_addr = a->map_guest;
	c->map_host_loopback = a->map_host_lo;
	c->dns_forward = a->dns_fwd;
	c->host_lo_to_ns_lo = a->host_lo;
	if (a->out4 && conf_outbound_addr(c, a->out4, AF_INET, &why))
		pasta_error("-o %s: %s", a->out4, why);
	if (a->out6 && conf_outbound_addr(c, a->out6, AF_INET6, &why))
		pasta_error("-o %s: %s", a->out6, why);
	c->outbound_if4 = a->out_if4;
	c->outbound_if6 = a->out_if6;
	c->hostname = a->hostname;
	c->fqdn = a->fqdn;
	c->template_if = a->template_if;
	if (a->netns)
		c->userns_path = a->userns;
	if (a->ns_mac_set) {
		c->mac_set = true;
		memcpy(c->mac, a->ns_mac, 6);
	}
	if (a->guest6_set && c->ipv6) {
		c->guest6 = a->guest6;
		c->addr6_set = true;
	}
	if (a->gw6_set && c->ipv6) {
		c->gw6 = a->gw6;
		c->gw6_set = true;
	}
}

/**
 * pasta_args_init() - start reading a command line
 * @a:		the options to read
 * @mode:	CONF_PASTA_PASTA or CONF_PASTA_PASST
 * @argc:	argument count
 * @argv:	arguments
 *
 * passt: --vhost-user anywhere chooses the mode, as pasta's conf_mode().
 */
static void pasta_args_init(struct pasta_args *a, enum conf_pasta_mode mode,
			    int argc, char **argv)
{
	int i;

	*a = (struct pasta_args){ .argv = argv,
				  .netns_quit = true,
				  .passt = mode == CONF_PASTA_PASST,
				  .prefix4 = -1,
				  .netmask = -1,
				  .log_level = -1 };
	pasta_prog = a->passt ? "passt" : "pasta";
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--vhost-user"))
			a->vhost_user = a->passt = true;
	if (a->vhost_user)
		pasta_prog = "passt";
	/* each -t, -u, -T, -U takes an argument at least */
	a->fwd = calloc((size_t)argc + 1, sizeof(*a->fwd));
	if (!a->fwd)
		die("out of memory");
}

/**
 * pasta_conf_parse() - read a pasta or passt command line into slipway's
 * configuration
 * @c:		configuration to fill
 * @p:		the process-model extras
 * @mode:	CONF_PASTA_PASTA or CONF_PASTA_PASST
 * @argc:	argument count, from the program name or the subcommand
 * @argv:	arguments
 *
 * The options are read first, each checked as pasta checks it; then the
 * configuration is filled through conf.c's setters, which check what
 * slipway checks, in a fixed order: the port specs as given, the edge or
 * namespace, the addresses, the switches. A bad value there is reported
 * as slipway's option would be.
 *
 * Context: start-up. The strings it makes live until exit (struct conf
 * points into them).
 */
void pasta_conf_parse(struct conf *c, struct pasta_conf *p,
		      enum conf_pasta_mode mode, int argc, char **argv)
{
	static struct pasta_args a; /* for good: struct conf points into it */
	struct conf_st st;
	int first, i;

	pasta_args_init(&a, mode, argc, argv);
	conf_usage_status = 1;
	p->pid_dirfd = p->log_fd = p->null_fd = p->ready_fd = -1;
	p->pid_name = NULL;

	optind = 0; /* glibc: start afresh */
	opterr = 1; /* glibc's own "unrecognized option" text, as pasta */
	first = conf_cmdline_run(&pasta_cmdline, argc, argv, &a, &a);
	p->foreground = a.foreground;
	p->one_off = a.one_off;
	p->netns_quit = a.netns_quit;
	pasta_target(&a, p, argc, argv, first);

	conf_begin(&st, c);
	if (a.log_level >= 0)
		log_max_level = (enum log_level)a.log_level;
	for (i = 0; i < a.nfwd; i++)
		conf_set_fwd(&st, a.fwd[i].o, a.fwd[i].spec);
	pasta_set_where(&a, &st);
	pasta_set_addrs(&a, &st);
	if (a.cmd)
		conf_set_cmd(&st, a.cmd);
	conf_finish(&st);
	pasta_set_model(&a, c);

	/* as root: not through a link, nor into someone else's file */
	if (a.pid_path)
		pasta_pid_prepare(p, a.pid_path);
	if (a.log_path) {
		p->log_fd = ofile_open(AT_FDCWD, a.log_path, "log file",
				       a.log_path, 0, 0644);
		if (p->log_fd < 0)
			exit(1);
	}
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
 * #syscalls:setup pipe2 fork clone openat fcntl dup2 dup3 close setsid poll read wait4 write kill exit_group
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
		/* the parent writes the PID file */
		if (p->pid_dirfd >= 0)
			close(p->pid_dirfd);
		p->pid_dirfd = -1;
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
		/* the caller reads it once we return: the daemon's */
		if (pasta_pid_write(p, pid)) {
			kill(pid, SIGTERM);
			_exit(1);
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pasta_relay(lg[0]);
	_exit(WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) :
							 1);
}

/**
 * pasta_ready() - everything is set up: the log file (foreground), or the
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
	if (p->ready_fd < 0) {
		/* foreground (pasta_daemon_start() did not fork): the PID
		 * file is written already (pasta_pid_write()) */
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
	p->log_fd = p->null_fd = -1;
}
