/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_dump.c - test-only: parse a command line as main() does (slipway's,
 * pasta's or passt's, slirp4netns's) and print every field the parse
 * filled, for tests/unit/cli/t_cli_corpus.sh to compare across changes
 *
 * Not installed. Usage: conf_dump ARGV0 [ARGS...]: ARGV0 chooses the
 * command line as it does for slipway ("pasta", "slirp4netns", or
 * "slipway pasta ..."). A bad command line exits as the parser does, its
 * message on standard error; a good one prints the fields that are not
 * zero (struct conf, then the extras of pasta or slirp4netns, then the log
 * level) on standard output and exits 0. Nothing runs past the parse:
 * conf_net_setup() and every later step are main()'s.
 *
 * The parse asks the system a few things; for a result that is the same
 * on every machine the link wraps them (meson.build): sysconf() says 4
 * CPUs (the --shards default), geteuid() says $CONF_DUMP_EUID (1000
 * without it), and lstat() finds no /tmp/passt_N.socket (passt's default
 * socket).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/conf.h"
#include "cli/pasta.h"
#include "cli/s4n.h"
#include "util/log.h"

long __real_sysconf(int name);
uid_t __real_geteuid(void);
int __real_lstat(const char *path, struct stat *st);

/**
 * __wrap_sysconf() - sysconf(), with 4 online CPUs
 * @name:	what to ask
 *
 * Return: as sysconf()
 */
long __wrap_sysconf(int name)
{
	if (name == _SC_NPROCESSORS_ONLN)
		return 4;
	return __real_sysconf(name);
}

/**
 * __wrap_geteuid() - geteuid(): $CONF_DUMP_EUID, or 1000
 *
 * Return: the user ID to act as
 */
uid_t __wrap_geteuid(void)
{
	const char *e = getenv("CONF_DUMP_EUID");

	return e ? (uid_t)strtoul(e, NULL, 10) : 1000;
}

/**
 * __wrap_lstat() - lstat(), with no /tmp/passt_N.socket anywhere
 * @path:	path
 * @st:		result
 *
 * Return: as lstat()
 */
int __wrap_lstat(const char *path, struct stat *st)
{
	if (!strncmp(path, "/tmp/passt_", 11)) {
		errno = ENOENT;
		return -1;
	}
	return __real_lstat(path, st);
}

/**
 * pr_str() - print a string field unless NULL
 * @name:	field
 * @s:		value
 */
static void pr_str(const char *name, const char *s)
{
	if (s)
		printf("%s=\"%s\"\n", name, s);
}

/**
 * pr_u() - print a number field unless 0
 * @name:	field
 * @v:		value
 */
static void pr_u(const char *name, unsigned long long v)
{
	if (v)
		printf("%s=%llu\n", name, v);
}

/**
 * pr_i() - print a signed number field unless 0
 * @name:	field
 * @v:		value
 */
static void pr_i(const char *name, long long v)
{
	if (v)
		printf("%s=%lld\n", name, v);
}

/**
 * pr_a4() - print an IPv4 address field (network order) unless 0
 * @name:	field
 * @v:		value
 */
static void pr_a4(const char *name, uint32_t v)
{
	char b[INET_ADDRSTRLEN];

	if (v)
		printf("%s=%s\n", name, inet_ntop(AF_INET, &v, b, sizeof(b)));
}

/**
 * pr_a6() - print an IPv6 address field unless ::
 * @name:	field
 * @v:		value
 */
static void pr_a6(const char *name, const struct in6_addr *v)
{
	char b[INET6_ADDRSTRLEN];

	if (!IN6_IS_ADDR_UNSPECIFIED(v))
		printf("%s=%s\n", name, inet_ntop(AF_INET6, v, b, sizeof(b)));
}

/**
 * pr_fwd() - print the entries of a forwarding table
 * @name:	field
 * @f:		entries
 * @n:		how many
 */
static void pr_fwd(const char *name, const struct fwd_spec *f, unsigned n)
{
	char a[INET6_ADDRSTRLEN], t[INET6_ADDRSTRLEN];
	unsigned i;

	pr_u(name, n);
	for (i = 0; i < n; i++)
		printf("%s[%u]=fam %d addr %s if '%s' %u-%u guest %u "
		       "to_fam %d to %s flags %#x\n",
		       name, i, f[i].family,
		       inet_ntop(AF_INET6, &f[i].addr, a, sizeof(a)),
		       f[i].ifname, f[i].first, f[i].last, f[i].guest_first,
		       f[i].to_family,
		       inet_ntop(AF_INET6, &f[i].to_addr, t, sizeof(t)),
		       f[i].flags);
}

/**
 * pr_impair() - print --impair's and --impair-seed's result
 * @im:		the result
 */
static void pr_impair(const struct impair_conf *im)
{
	int d;

	pr_u("impair.seed", im->seed);
	pr_u("impair.on", im->on);
	for (d = 0; d < IMPAIR_DIRS; d++) {
		const struct impair_spec *s = &im->dir[d];

		if (s->drop || s->dup || s->reorder || s->corrupt ||
		    s->delay_ns)
			printf("impair.dir[%d]=drop %u dup %u reorder %u "
			       "corrupt %u delay_ns %llu\n",
			       d, s->drop, s->dup, s->reorder, s->corrupt,
			       (unsigned long long)s->delay_ns);
	}
}

/**
 * pr_metrics() - print --metrics's address if set
 * @c:		configuration
 */
static void pr_metrics(const struct conf *c)
{
	const struct sockaddr_in6 *a6 = (const void *)&c->metrics;
	const struct sockaddr_in *a4 = (const void *)&c->metrics;
	char b[INET6_ADDRSTRLEN];

	pr_u("metrics_set", c->metrics_set);
	if (c->metrics.ss_family == AF_INET6)
		printf("metrics=[%s]:%u\n",
		       inet_ntop(AF_INET6, &a6->sin6_addr, b, sizeof(b)),
		       ntohs(a6->sin6_port));
	else if (c->metrics.ss_family == AF_INET)
		printf("metrics=%s:%u\n",
		       inet_ntop(AF_INET, &a4->sin_addr, b, sizeof(b)),
		       ntohs(a4->sin_port));
}

/**
 * pr_search() - print the search list fields
 * @c:		configuration
 */
static void pr_search(const struct conf *c)
{
	size_t i;

	pr_u("search_len", c->search_len);
	if (c->search_len) {
		printf("search=");
		for (i = 0; i < c->search_len && i < sizeof(c->search); i++)
			printf("%02x", c->search[i]);
		printf("\n");
	}
	if (c->search_line[0])
		pr_str("search_line", c->search_line);
}

/**
 * dump_head() - print the fields of struct conf up to @fwd
 * @c:		configuration
 */
static void dump_head(const struct conf *c)
{
	int i;

	pr_str("netns", c->netns);
	pr_u("edge", c->edge);
	pr_str("sock_path", c->sock_path);
	pr_i("sock_fd", c->sock_fd);
	for (i = 0; c->cmd && c->cmd[i]; i++)
		printf("cmd[%d]=\"%s\"\n", i, c->cmd[i]);
	pr_str("ifname", c->ifname);
	pr_u("configure", c->configure);
	pr_u("userns", c->userns);
	pr_a4("guest4", c->guest4);
	pr_a4("gw4", c->gw4);
	pr_u("prefix_len", c->prefix_len);
	pr_u("mtu", c->mtu);
	pr_u("map_gw", c->map_gw);
	pr_u("max_flows", c->max_flows);
	pr_u("shards", c->shards);
	pr_u("no_peek_off", c->no_peek_off);
	pr_u("no_place", c->no_place);
	pr_u("migrate_repair", c->migrate_repair);
	pr_impair(&c->impair);
	pr_str("stats_file", c->stats_file);
}

/**
 * dump_mid() - print the fields of struct conf from @fwd to @pcap_max
 * @c:		configuration
 */
static void dump_mid(const struct conf *c)
{
	pr_fwd("fwd", c->fwd, c->nfwd);
	pr_u("offload", c->offload);
	pr_u("ack_every", c->ack_every);
	pr_fwd("ufwd", c->ufwd, c->nufwd);
	pr_u("max_udp_flows", c->max_udp_flows);
	pr_u("udp_idle_s", c->udp_idle_s);
	pr_u("dhcp", c->dhcp);
	pr_u("dns", c->dns);
	pr_a4("dns4", c->dns4);
	pr_u("dns4_shared", c->dns4_shared);
	pr_str("resolv_conf", c->resolv_conf);
	pr_search(c);
	pr_u("splice", c->splice);
	pr_fwd("nsfwd", c->nsfwd, c->nnsfwd);
	pr_fwd("nsufwd", c->nsufwd, c->nnsufwd);
	pr_u("ipv6", c->ipv6);
	pr_a6("prefix6", &c->prefix6);
	pr_a6("guest6", &c->guest6);
	pr_a6("gw6", &c->gw6);
	pr_a6("dns6", &c->dns6);
	pr_str("ctl_path", c->ctl_path);
	pr_u("ctl_off", c->ctl_off);
	pr_str("migrate_to", c->migrate_to);
	pr_str("migrate_from", c->migrate_from);
	pr_metrics(c);
	pr_str("pcap_path", c->pcap_path);
	pr_u("pcap_max", c->pcap_max);
}

/**
 * dump_tail() - print the fields of struct conf from @userns_path on
 * @c:		configuration
 */
static void dump_tail(const struct conf *c)
{
	pr_str("userns_path", c->userns_path);
	pr_u("mac_set", c->mac_set);
	if (c->mac_set)
		printf("mac=%02x:%02x:%02x:%02x:%02x:%02x\n", c->mac[0],
		       c->mac[1], c->mac[2], c->mac[3], c->mac[4], c->mac[5]);
	pr_a4("outbound4", c->outbound4.s_addr);
	pr_a6("outbound6", &c->outbound6);
	pr_str("outbound_if4", c->outbound_if4);
	pr_str("outbound_if6", c->outbound_if6);
	pr_u("gw_unreach", c->gw_unreach);
	pr_a4("lease4", c->lease4);
	pr_u("s4n", c->s4n);
	pr_u("sandbox", c->sandbox);
	pr_u("seccomp_log", c->seccomp_log);
	pr_u("runas", c->runas);
	pr_u("runas_uid", c->runas_uid);
	pr_u("runas_gid", c->runas_gid);
	pr_str("hostname", c->hostname);
	pr_str("fqdn", c->fqdn);
	pr_u("pasta_mode", c->pasta_mode);
	pr_u("addr_model", c->addr_model);
	pr_u("config_net", c->config_net);
	pr_str("map_guest_addr", c->map_guest_addr);
	pr_str("map_host_loopback", c->map_host_loopback);
	pr_str("dns_forward", c->dns_forward);
	pr_u("host_lo_to_ns_lo", c->host_lo_to_ns_lo);
	pr_str("template_if", c->template_if);
	pr_u("addr4_set", c->addr4_set);
	pr_u("prefix4_set", c->prefix4_set);
	pr_u("gw4_set", c->gw4_set);
	pr_u("addr6_set", c->addr6_set);
	pr_u("gw6_set", c->gw6_set);
	pr_u("ifname_set", c->ifname_set);
	pr_u("prefix6_len", c->prefix6_len);
	pr_a6("gw6_ll", &c->gw6_ll);
	pr_a4("map_lo4", c->map_lo4);
	pr_a4("map_guest4", c->map_guest4);
	pr_a4("host4", c->host4);
	pr_a6("map_lo6", &c->map_lo6);
	pr_a6("map_guest6", &c->map_guest6);
	pr_a6("host6", &c->host6);
}

/**
 * main() - parse argv[1..] as slipway's main() parses its own argv
 * @argc:	argument count
 * @argv:	argv[1] is the parsed command line's argv[0]
 *
 * Return: 0 (a bad command line exits in the parser)
 */
int main(int argc, char **argv)
{
	static struct conf conf;
	static struct s4n_conf s4n = { .exit_fd = -1, .ready_fd = -1 };
	static struct pasta_conf pasta = { .foreground = true,
					   .netns_quit = true,
					   .pid_dirfd = -1,
					   .log_fd = -1,
					   .null_fd = -1,
					   .ready_fd = -1 };
	enum conf_pasta_mode pmode = CONF_PASTA_NONE;
	int how;

	if (argc < 2) {
		fprintf(stderr, "usage: conf_dump ARGV0 [ARGS...]\n");
		return 2;
	}
	argc--;
	argv++;
	memset(&conf, 0xa5, sizeof(conf)); /* the parse sets every field */
	how = s4n_invoked(argc, argv);
	if (how)
		s4n_conf_parse(&conf, &s4n, argc - (how - 1), argv + (how - 1));
	else if ((how = pasta_invoked(argc, argv, &pmode)))
		pasta_conf_parse(&conf, &pasta, pmode, argc - (how - 1),
				 argv + (how - 1));
	else
		conf_parse(&conf, argc, argv);
	fflush(stderr);
	dump_head(&conf);
	dump_mid(&conf);
	dump_tail(&conf);
	if (how && pmode != CONF_PASTA_NONE)
		printf("pasta: foreground=%d one_off=%d netns_quit=%d "
		       "pid_dir=%d pid_name=%s log=%d\n",
		       pasta.foreground, pasta.one_off, pasta.netns_quit,
		       pasta.pid_dirfd >= 0,
		       pasta.pid_name ? pasta.pid_name : "(null)",
		       pasta.log_fd >= 0);
	else if (how)
		printf("s4n: exit_fd=%d ready_fd=%d api_path=%s\n", s4n.exit_fd,
		       s4n.ready_fd, s4n.api_path ? s4n.api_path : "(null)");
	printf("log_max_level=%d\n", (int)log_max_level);
	return 0;
}
