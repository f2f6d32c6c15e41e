/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h - the command line, parsed */
#ifndef SLIPWAY_CONF_H
#define SLIPWAY_CONF_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli/impair_conf.h"

#define SLIPWAY_VERSION "0.1.0"
#define CONF_MAX_FWD 256
#define CONF_ACK_EVERY_MAX 1024

/* fwd_spec flags */
#define FWD_SPEC_AUTO \
	0x01 /* only the ports bound on the other side
				 * ("auto"), followed while slipway runs */
#define FWD_SPEC_ALL \
	0x02		     /* "all", or exclusions only: ephemeral ports
				 * and ports already in use are left out */
#define FWD_SPEC_IFNAMSIZ 16 /* IFNAMSIZ */

/**
 * struct fwd_spec - one range of a -t, -u or -T option: host ports published
 * to guest ports (-T: guest loopback ports spliced to host loopback ports)
 * @family:	AF_INET, AF_INET6, or AF_UNSPEC (all addresses, both families)
 * @addr:	bind address (with @family; IPv4 in bytes 12..15, the rest 0)
 * @ifname:	bind to this interface (SO_BINDTODEVICE), or "" (%IFNAME)
 * @first:	first host port
 * @last:	last host port
 * @guest_first: guest port for @first; the range maps one to one
 * @to_family:	AF_UNSPEC, or the family of @to_addr (TOADDR/ given)
 * @to_addr:	where connections go in the guest (as @addr is kept)
 * @flags:	FWD_SPEC_*
 */
struct fwd_spec {
	int family;
	struct in6_addr addr;
	char ifname[FWD_SPEC_IFNAMSIZ];
	uint16_t first, last;
	uint16_t guest_first;
	int to_family;
	struct in6_addr to_addr;
	unsigned flags;
};

#define SHARDS_MAX 8	       /* --shards at most */
#define CONF_SOCK_PATH_MAX 108 /* sizeof(sun_path) */

/**
 * enum conf_edge - how the guest is attached
 * @CONF_EDGE_TAP:	a tap in a network namespace (default)
 * @CONF_EDGE_STREAM:	--stream: listening unix stream socket, length-prefixed
 * @CONF_EDGE_DGRAM:	--dgram: unix datagram socket, a frame per datagram
 * @CONF_EDGE_FD:	--fd: an already connected stream socket
 * @CONF_EDGE_VU:	--vhost-user: a VM's virtio-net backend
 * @CONF_EDGE_NUM:	kinds (main.c's edge_kinds[] has a row for each)
 */
enum conf_edge {
	CONF_EDGE_TAP,
	CONF_EDGE_STREAM,
	CONF_EDGE_DGRAM,
	CONF_EDGE_FD,
	CONF_EDGE_VU,
	CONF_EDGE_NUM
};

/**
 * enum conf_addr_model - where the guest's addresses come from
 * @CONF_ADDR_SLIRP:	slipway's own network: 10.0.2.15/24 behind gateway
 *			10.0.2.2, fd00:5ee:d::15/64 behind fe80::1 (default)
 * @CONF_ADDR_HOST_COPY: pasta's: the host's own address, prefix and
 *			default gateway of each family, copied from its
 *			template interface (--copy-host-addrs, pasta mode)
 */
enum conf_addr_model { CONF_ADDR_SLIRP, CONF_ADDR_HOST_COPY };

/**
 * enum conf_pasta_mode - which program's command line slipway took
 * @CONF_PASTA_NONE:	slipway's own (or slirp4netns's)
 * @CONF_PASTA_PASTA:	pasta's: a tap in a namespace (pasta.c)
 * @CONF_PASTA_PASST:	passt's: a VM on a socket (pasta.c)
 * @CONF_PASTA_MODE_NUM: count
 */
enum conf_pasta_mode {
	CONF_PASTA_NONE,
	CONF_PASTA_PASTA,
	CONF_PASTA_PASST,
	CONF_PASTA_MODE_NUM
};

/**
 * struct conf - everything the command line says
 * @netns:		--netns PATH|NAME, or NULL to create a namespace
 * @edge:		how the guest is attached
 * @sock_path:		--stream, --dgram or --vhost-user socket path
 * @sock_fd:		--fd: the connected stream socket (with --vhost-user and
 *			no @sock_path: the vhost-user frontend's), else -1
 * @cmd:		command to run in a new namespace (NULL: shell)
 * @ifname:		tap name
 * @configure:		configure the namespace's interfaces
 * @userns:		create a user namespace too
 * @guest4:		guest address (network order)
 * @gw4:		gateway address
 * @prefix_len:		guest network prefix
 * @mtu:		guest MTU
 * @map_gw:		connections to the gateway go to host loopback
 * @max_flows:		flow table size (split among the shards)
 * @shards:		event-loop threads, one tap queue each
 * @no_peek_off:	do not use SO_PEEK_OFF even if the kernel has it
 * @migrate_repair:	--migrate-repair: sockets migrate as TCP_REPAIR state
 *			(keeps CAP_NET_ADMIN)
 * @no_place:		copy TCP payload into the guest's buffers, never peek
 *			it there (vhost-user)
 * @impair:		--impair and --impair-seed (testing)
 * @stats_file:		where counters go at exit and on SIGUSR1 (NULL: stderr)
 * @fwd:		published port ranges
 * @nfwd:		entries in @fwd
 * @offload:		enable tap checksum/TSO offloads
 * @ack_every:		ACK the guest every this many full segments' worth
 *			received, within a batch too (0: once per batch)
 * @ufwd:		published UDP port ranges
 * @nufwd:		entries in @ufwd
 * @max_udp_flows:	datagram flow table size
 * @udp_idle_s:		datagram flows close after this many idle seconds
 * @dhcp:		answer DHCPv4
 * @dns:		forward DNS at @dns4
 * @dns4:		the guest-facing DNS address (network order)
 * @dns4_shared:	@dns4 is the address mapped to the host's loopback
 *			(passt's default): the forwarder has its port 53 only
 * @resolv_conf:	where the upstream resolvers are listed
 * @search:		domain search list for DHCP, DNS wire format
 * @search_len:		bytes of @search
 * @search_line:	the host's search line, for the command's resolv.conf
 * @splice:		splice loopback clients of published ports to the guest's
 *			loopback (splice.c) instead of using the tap
 * @nsfwd:		-T: ports on the guest's loopback spliced to the host's
 *			loopback; @first..@last are the guest's ports and
 *			@guest_first the host port of @first (no address)
 * @nnsfwd:		entries in @nsfwd
 * @nsufwd:		-U: UDP ports on the guest's loopback forwarded to the
 *			host's loopback (udpns.c); laid out as @nsfwd
 * @nnsufwd:		entries in @nsufwd
 * @ipv6:		carry IPv6 (default; --no-ipv6 turns it off)
 * @prefix6:		the guest network's /64 (--ipv6-prefix), host bits 0
 * @guest6:		the guest's IPv6 address: @prefix6::15
 * @gw6:		the gateway's IPv6 address: @prefix6::2
 * @dns6:		the DNS forwarder's IPv6 address: @prefix6::3
 * @ctl_path:		--ctl or SLIPWAY_CTL: the control socket's path, or NULL
 *			(then the default per-instance one, unless @ctl_off)
 * @ctl_off:		--ctl none or SLIPWAY_CTL=none: no control socket
 * @migrate_to:		--migrate-to: a migration destination's socket, or NULL
 * @migrate_from:	--migrate-from: our socket for a migration source's
 *			state, or NULL
 * @metrics:		--metrics: the address to serve /metrics on
 * @metrics_set:	@metrics is set
 * @pcap_path:		--pcap: the capture file, or NULL
 * @pcap_max:		--pcap-max: the capture file's size cap, bytes
 * @userns_path:	--netns: join this user namespace first (slirp4netns
 *			mode: --userns-path, or the target PID's), or NULL
 * @mac_set:		give the tap @mac (slirp4netns --macaddress)
 * @mac:		with @mac_set: the guest's MAC address
 * @outbound4:		-o, slirp4netns --outbound-addr: source address of
 *			outbound IPv4 sockets (INADDR_ANY: none); not for
 *			host loopback targets
 * @outbound6:		-o, --outbound-addr6: the same for IPv6 (::: none)
 * @outbound_if4:	--outbound-if4: bind outbound IPv4 sockets to this
 *			interface (SO_BINDTODEVICE), or NULL
 * @outbound_if6:	--outbound-if6: the same for IPv6, or NULL
 * @gw_unreach:		with @map_gw off, the gateway answers TCP and UDP
 *			with ICMP net unreachable, not RST or port
 *			unreachable (slirp4netns --disable-host-loopback)
 * @lease4:		the address DHCPv4 hands out (0: @guest4)
 * @s4n:		slirp4netns mode: quiet counters at exit, default
 *			routes added beside any the namespace has, and
 *			CAP_NET_BIND_SERVICE kept in the sandbox
 * @sandbox:		enter the sandbox after set-up (--no-sandbox: false)
 * @seccomp_log:	--seccomp-log: calls off the allowlist are logged, not
 *			fatal
 * @runas:		--runas given
 * @runas_uid:		the user to become (as root)
 * @runas_gid:		the group to become
 * @pasta_mode:		invoked as pasta or passt (pasta.c), else none
 * @hostname:		-H/--hostname: DHCP option 12, or NULL (checked with
 *			conf_dhcp_name_check())
 * @fqdn:		--fqdn: DHCP option 81 and DHCPv6 option 39, or NULL
 *			(checked as an FQDN; may end in a dot)
 *
 * pasta's addressing model and address mappings (conf_net.c): the pasta
 * front end or slipway's options fill the first group, conf_net_setup()
 * the resolved ones after it.
 * @addr_model:		where the guest's addresses come from
 * @config_net:		with CONF_ADDR_HOST_COPY: configure the namespace's
 *			interface (pasta --config-net); sets @configure
 * @map_guest_addr:	--map-guest-addr: "ADDR" or "none" (NULL: none)
 * @map_host_loopback:	--map-host-loopback: "ADDR" or "none" (NULL: the
 *			gateway, unless --no-map-gw)
 * @dns_forward:	--dns-forward: the DNS forwarder's address, IPv4 or
 *			IPv6 (NULL: the model's default)
 * @host_lo_to_ns_lo:	spliced host loopback clients reach the guest's
 *			loopback (CONF_ADDR_HOST_COPY; slipway's model always
 *			does)
 * @template_if:		the host interface addresses and routes are copied
 *			from (NULL: the one with the default route)
 * @addr4_set:		the guest's IPv4 address was given (-a): not copied
 * @prefix4_set:	its prefix length was given (-n or -a ADDR/LEN)
 * @gw4_set:		the IPv4 gateway was given (-g): not copied
 * @addr6_set:		the guest's IPv6 address (@guest6) was given
 * @gw6_set:		the IPv6 gateway (@gw6) was given (-g): not copied
 * @ifname_set:		the tap name was given (-I): not the template's
 * @prefix6_len:	the guest's IPv6 prefix length (64 in slipway's
 *			model, the host's in pasta's)
 * @gw6_ll:		the guest's IPv6 default router: fe80::1 in slipway's
 *			model, the host's gateway in pasta's
 * @map_lo4:		resolved: IPv4 address mapped to host 127.0.0.1
 *			besides the gateway (0: none)
 * @map_lo6:		resolved: the same for ::1 (:: for none)
 * @map_guest4:		resolved: IPv4 address mapped to @host4 (0: none)
 * @map_guest6:		resolved: IPv6 address mapped to @host6 (::: none)
 * @host4:		the host's IPv4 address on the template interface
 *			(0: unknown)
 * @host6:		the host's global IPv6 address there (:: unknown)
 */
struct conf {
	const char *netns;
	enum conf_edge edge;
	const char *sock_path;
	int sock_fd;
	char **cmd;
	const char *ifname;
	bool configure;
	bool userns;
	uint32_t guest4, gw4;
	uint8_t prefix_len;
	uint32_t mtu;
	bool map_gw;
	uint32_t max_flows;
	unsigned shards;
	bool no_peek_off;
	bool no_place;
	bool migrate_repair;
	struct impair_conf impair;
	const char *stats_file;
	struct fwd_spec fwd[CONF_MAX_FWD];
	unsigned nfwd;
	bool offload;
	uint32_t ack_every;
	struct fwd_spec ufwd[CONF_MAX_FWD];
	unsigned nufwd;
	uint32_t max_udp_flows;
	uint32_t udp_idle_s;
	bool dhcp;
	bool dns;
	uint32_t dns4;
	bool dns4_shared;
	const char *resolv_conf;
	uint8_t search[256];
	size_t search_len;
	char search_line[520];
	bool splice;
	struct fwd_spec nsfwd[CONF_MAX_FWD];
	unsigned nnsfwd;
	struct fwd_spec nsufwd[CONF_MAX_FWD];
	unsigned nnsufwd;
	bool ipv6;
	struct in6_addr prefix6, guest6, gw6, dns6;
	const char *ctl_path;
	bool ctl_off;
	const char *migrate_to;
	const char *migrate_from;
	struct sockaddr_storage metrics;
	bool metrics_set;
	const char *pcap_path;
	uint64_t pcap_max;
	const char *userns_path;
	bool mac_set;
	uint8_t mac[6];
	struct in_addr outbound4;
	struct in6_addr outbound6;
	const char *outbound_if4, *outbound_if6;
	bool gw_unreach;
	uint32_t lease4;
	bool s4n;
	bool sandbox;
	bool seccomp_log;
	bool runas;
	uid_t runas_uid;
	gid_t runas_gid;
	const char *hostname;
	const char *fqdn;
	enum conf_pasta_mode pasta_mode;
	enum conf_addr_model addr_model;
	bool config_net;
	const char *map_guest_addr;
	const char *map_host_loopback;
	const char *dns_forward;
	bool host_lo_to_ns_lo;
	const char *template_if;
	bool addr4_set, prefix4_set, gw4_set, addr6_set, gw6_set, ifname_set;
	uint8_t prefix6_len;
	struct in6_addr gw6_ll;
	uint32_t map_lo4, map_guest4, host4;
	struct in6_addr map_lo6, map_guest6, host6;
};

/* --ipv6-prefix default: a unique local /64 (RFC 4193), fixed like 10.0.2.0 */
#define CONF_PREFIX6_DEFAULT "fd00:5ee:d::"
/* host numbers in the /64, as for IPv4 (10.0.2.15, .2, .3) */
#define CONF_GUEST6_HOST 0x15
#define CONF_GW6_HOST 0x2
#define CONF_DNS6_HOST 0x3

/**
 * conf_parse() - parse the command line; exits 2 with a message on errors
 * @c:		configuration to fill
 * @argc:	argument count
 * @argv:	arguments
 */
void conf_parse(struct conf *c, int argc, char **argv);

/**
 * struct conf_st - a parse of a command line in progress: the
 * configuration, and what its options said that decides defaults later
 * (conf_finish())
 * @c:		the configuration being filled
 * @net:	--cidr's network (network order)
 * @addr_set:	-a given
 * @gw_set:	-g given
 * @userns_set:	--userns or --no-userns given
 * @dns_set:	--dns-addr given
 * @prefix6_set: --ipv6-prefix given
 * @shards_set:	--shards given
 *
 * The three command lines (slipway's, pasta's and passt's, slirp4netns's)
 * fill a struct conf the same way: conf_begin(), then a setter below for
 * each value (the one place that checks it and says what is wrong, as
 * slipway's option would), in the order the values are taken, then
 * conf_finish(). A setter exits with conf_usage_status on a bad value.
 * Fields with nothing to check (the --no-* switches) are set directly.
 */
struct conf_st {
	struct conf *c;
	uint32_t net;
	bool addr_set, gw_set, userns_set, dns_set, prefix6_set, shards_set;
};

/**
 * conf_begin() - slipway's defaults, before any option
 * @st:		the parse to start
 * @c:		configuration to fill
 */
void conf_begin(struct conf_st *st, struct conf *c);

/**
 * conf_finish() - after the options: what they exclude together, the
 * addresses not given, the user namespace's default, --resolv-conf made
 * absolute; exits with conf_usage_status on a conflict
 * @st:		the parse
 */
void conf_finish(struct conf_st *st);

/* setters: each takes the value as slipway's option of that name would */
void conf_set_netns(struct conf_st *st, const char *arg);
void conf_set_edge(struct conf_st *st, enum conf_edge kind, const char *arg);
void conf_set_cmd(struct conf_st *st, char **cmd);
void conf_set_ifname(struct conf_st *st, const char *arg);
void conf_set_address(struct conf_st *st, const char *arg);
void conf_set_gateway(struct conf_st *st, const char *arg);
void conf_set_cidr(struct conf_st *st, const char *arg);
void conf_set_mtu(struct conf_st *st, const char *arg);
void conf_set_fwd(struct conf_st *st, int o, const char *arg);
void conf_set_ipv6_prefix(struct conf_st *st, const char *arg);
void conf_set_shards(struct conf_st *st, const char *arg);
void conf_set_pcap(struct conf_st *st, const char *arg);
void conf_set_runas(struct conf_st *st, const char *arg);

/**
 * conf_metrics_parse() - parse "PORT", "ADDR:PORT" or "[ADDR6]:PORT"
 * @s:		text
 * @ss:		result (loopback 127.0.0.1 without an address)
 *
 * Return: 0, or -1
 */
int conf_metrics_parse(const char *s, struct sockaddr_storage *ss);

/**
 * conf_size_parse() - parse a byte count: digits with an optional k, M or G
 * suffix (powers of 1024)
 * @s:		text
 * @v:		result
 *
 * Return: 0, or -1
 */
int conf_size_parse(const char *s, uint64_t *v);

/**
 * fwd_spec_parse() - parse one range:
 * "[ADDR[%IFNAME]/]FIRST[-LAST][:[TOADDR/]TOFIRST[-TOLAST]]"
 * @s:		text
 * @f:		result
 * @why:	reason on failure
 *
 * Pure: no system calls (fuzz_fwd_spec.c).
 * Return: 0, or -1 with a reason in @why
 */
int fwd_spec_parse(const char *s, struct fwd_spec *f, const char **why);

/* the exit status of a bad command line: 2, or 1 as pasta and passt */
extern int conf_usage_status;

/**
 * fwd_opt_parse() - parse the value of a -t, -u, -T or -U option, as pasta
 * takes it: "none", "auto", "all[:TOADDR]", or
 * "[ADDR[%IFNAME]/]ITEM[,ITEM...]" where an ITEM is a range as
 * fwd_spec_parse() takes it (without the address prefix), "~FIRST[-LAST]"
 * (excluded; exclusions only: every other non-ephemeral port), "auto"
 * (only the ports of the other ITEMs, or of all, that are bound on the
 * other side, followed while slipway runs) or "all"
 * @s:		text
 * @out:	ranges are appended here, exclusions taken out
 * @max:	room in @out
 * @n:		in: entries already in @out; out: after the new ones
 * @why:	reason on failure
 *
 * Pure: no system calls (fuzz_fwd_spec.c). Ephemeral ports are left out
 * when the ports are opened (FWD_SPEC_ALL), not here.
 * Return: 0, or -1 with a reason in @why (@out and @n may have changed)
 */
int fwd_opt_parse(const char *s, struct fwd_spec *out, unsigned max,
		  unsigned *n, const char **why);

struct conf;

/**
 * conf_has_auto() - does any -t, -u or -T option say "auto"?
 * @c:		configuration
 *
 * Return: true if one does
 */
bool conf_has_auto(const struct conf *c);

/**
 * conf_outbound_addr() - take an outbound source address: the IPv4 one or
 * the IPv6 one (-o, --outbound; slirp4netns --outbound-addr[6])
 * @c:		configuration (@outbound4 or @outbound6 set)
 * @s:		text
 * @family:	AF_INET or AF_INET6 to require that family, AF_UNSPEC: either
 * @why:	out: the reason on failure
 *
 * Refused: unspecified, broadcast, multicast, IPv6 loopback and v4-mapped
 * addresses, and a second address of a family.
 *
 * Return: 0, or -1
 */
int conf_outbound_addr(struct conf *c, const char *s, int family,
		       const char **why);

/**
 * conf_usage_verror() - report a bad command line and exit with
 * conf_usage_status (2 unless changed)
 * @prog:	the name to say it as ("slipway", "slirp4netns")
 * @hint:	the line after the message (where the options are told)
 * @fmt:	printf format
 * @ap:		its arguments
 */
_Noreturn void conf_usage_verror(const char *prog, const char *hint,
				 const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/**
 * conf_parse_uint() - parse a decimal number within bounds (no sign, no
 * other base, nothing after it)
 * @s:		text
 * @min:	smallest allowed
 * @max:	largest allowed
 * @v:		result
 *
 * Return: 0, or -1
 */
int conf_parse_uint(const char *s, unsigned long min, unsigned long max,
		    unsigned long *v);

/**
 * enum conf_opt_kind - what a row of an option table does with its option
 * @CONF_OPT_CALL:	call the row's @fn with the value
 * @CONF_OPT_TRUE:	set the bool at @off
 * @CONF_OPT_FALSE:	clear the bool at @off
 * @CONF_OPT_STR:	store the value (const char *) at @off
 * @CONF_OPT_U32:	a decimal @min..@max into the uint32_t at @off, or
 *			"bad @label 'VALUE': expected @expect"
 * @CONF_OPT_NOP:	accepted, no effect
 */
enum conf_opt_kind {
	CONF_OPT_CALL,
	CONF_OPT_TRUE,
	CONF_OPT_FALSE,
	CONF_OPT_STR,
	CONF_OPT_U32,
	CONF_OPT_NOP
};

struct conf_opt;

/* a row's handler: @st the parse state, @o the row, @arg the value or NULL */
typedef void (*conf_opt_fn)(void *st, const struct conf_opt *o, char *arg);

/**
 * struct conf_opt - one option of a command line: a row of its table
 * @name:	long name, without "--"; NULL ends the table
 * @id:		the short option's letter, or a number from 256 (long only);
 *		rows that share an id are spellings of one option
 * @has_arg:	no_argument or required_argument, as getopt_long() takes it
 * @kind:	what the option does
 * @off:	CONF_OPT_TRUE, _FALSE, _STR, _U32: the field's offset in the
 *		fields the command line fills
 * @fn:		CONF_OPT_CALL: the handler
 * @min:	CONF_OPT_U32: the smallest value
 * @max:	CONF_OPT_U32: the largest value
 * @label:	CONF_OPT_U32: the option's name in messages ("MTU"); with a
 *		handler: the handler's own (pasta: the option's name when
 *		the other mode refuses it)
 * @expect:	CONF_OPT_U32: what the message says is expected
 */
struct conf_opt {
	const char *name;
	int id;
	int has_arg;
	enum conf_opt_kind kind;
	size_t off;
	conf_opt_fn fn;
	unsigned long min, max;
	const char *label;
	const char *expect;
};

/* rows: T is the type of the fields the command line fills */
#define CONF_OPT_ROW_CALL(name, id, has_arg, fn)                          \
	{                                                                 \
		name, id, has_arg, CONF_OPT_CALL, 0, fn, 0, 0, NULL, NULL \
	}
#define CONF_OPT_ROW_NAMED(name, id, has_arg, fn, label)                   \
	{                                                                  \
		name, id, has_arg, CONF_OPT_CALL, 0, fn, 0, 0, label, NULL \
	}
#define CONF_OPT_ROW_TRUE(name, id, T, field)                               \
	{                                                                   \
		name, id, 0, CONF_OPT_TRUE, offsetof(T, field), NULL, 0, 0, \
			NULL, NULL                                          \
	}
#define CONF_OPT_ROW_FALSE(name, id, T, field)                               \
	{                                                                    \
		name, id, 0, CONF_OPT_FALSE, offsetof(T, field), NULL, 0, 0, \
			NULL, NULL                                           \
	}
#define CONF_OPT_ROW_STR(name, id, T, field)                               \
	{                                                                  \
		name, id, 1, CONF_OPT_STR, offsetof(T, field), NULL, 0, 0, \
			NULL, NULL                                         \
	}
#define CONF_OPT_ROW_U32(name, id, T, field, min, max, label, expect)          \
	{                                                                      \
		name, id, 1, CONF_OPT_U32, offsetof(T, field), NULL, min, max, \
			label, expect                                          \
	}
#define CONF_OPT_ROW_NOP(name, id, has_arg)                                \
	{                                                                  \
		name, id, has_arg, CONF_OPT_NOP, 0, NULL, 0, 0, NULL, NULL \
	}
#define CONF_OPT_ROW_END                                            \
	{                                                           \
		NULL, 0, 0, CONF_OPT_NOP, 0, NULL, 0, 0, NULL, NULL \
	}

/* the table rows of options every command line spells and means alike */
#define CONF_OPT_ROW_PRINT_CAPS(id) \
	CONF_OPT_ROW_CALL("print-capabilities", id, 0, conf_opt_print_caps)

#define CONF_OPTS_MAX 96 /* rows in a table at most */

/**
 * struct conf_cmdline - one program's command line (slipway's,
 * slirp4netns's, pasta's and passt's)
 * @opts:	its options, a table ending in CONF_OPT_ROW_END
 * @flags:	what getopt's option string starts with ("+": stop at the
 *		first argument that is not an option; ":" a missing value
 *		is reported as such)
 * @error:	report a bad command line and exit (printf format)
 * @bad:	an unknown option or a missing value (getopt's '?' or ':'),
 *		with the argument it was in; NULL: @error says "unknown
 *		option '-x'" or "option '--x' needs a value"
 */
struct conf_cmdline {
	const struct conf_opt *opts;
	const char *flags;
	void (*error)(const char *fmt, ...)
		__attribute__((format(printf, 1, 2), noreturn));
	void (*bad)(void *st, int o, const char *arg) __attribute__((noreturn));
};

/**
 * conf_cmdline_run() - read the options of a command line from getopt's
 * optind on, each in order as its row says
 * @cl:		the command line's description
 * @argc:	argument count
 * @argv:	arguments
 * @st:		handed to the rows' handlers
 * @fields:	the fields the rows' @off point into
 *
 * getopt's opterr and optind are the caller's to set.
 *
 * Return: optind: the first argument that is not an option
 */
int conf_cmdline_run(const struct conf_cmdline *cl, int argc, char **argv,
		     void *st, void *fields);

/**
 * conf_opt_print_caps() - the handler of --print-capabilities
 * @st:		unused
 * @o:		unused
 * @arg:	unused
 */
_Noreturn void conf_opt_print_caps(void *st, const struct conf_opt *o,
				   char *arg);

#define CONF_HOSTNAME_MAX 253 /* characters of --hostname */
#define CONF_FQDN_MAX 250 /* of --fqdn, without a final dot: fits option 81 */

/**
 * conf_dhcp_name_check() - is this a name DHCP can hand out?
 * @s:		the name (--hostname, --fqdn)
 * @fqdn:	a fully qualified name: may end in a dot, at most
 *		CONF_FQDN_MAX characters without it
 * @why:	reason on failure
 *
 * Return: 0, or -1 with a reason in @why
 */
int conf_dhcp_name_check(const char *s, bool fqdn, const char **why);

/**
 * conf_dhcp_name_wire() - a checked name in DNS wire format (RFC 1035)
 * @s:		the name, conf_dhcp_name_check() passed it as an FQDN
 * @out:	CONF_FQDN_MAX + 2 bytes
 *
 * Return: bytes written, the root label's 0 included
 */
size_t conf_dhcp_name_wire(const char *s, uint8_t *out);

/**
 * conf_print_capabilities() - --print-capabilities: print the vhost-user
 * backend's capabilities ({"type": "net"}) on standard output, exit 0
 */
_Noreturn void conf_print_capabilities(void);

#endif /* SLIPWAY_CONF_H */
