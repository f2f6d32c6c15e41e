/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h - the command line, parsed */
#ifndef SLIPWAY_CONF_H
#define SLIPWAY_CONF_H

#include <netinet/in.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/impair.h"

#define SLIPWAY_VERSION "0.1.0"
#define CONF_MAX_FWD 64
#define CONF_ACK_EVERY_MAX 1024

/**
 * struct fwd_spec - one -t option: host ports published to guest ports
 * @family:	AF_INET, AF_INET6, or AF_UNSPEC (all addresses, both families)
 * @addr:	bind address (with @family)
 * @first:	first host port
 * @last:	last host port
 * @guest_first: guest port for @first; the range maps one to one
 */
struct fwd_spec {
	int family;
	struct in6_addr addr;
	uint16_t first, last;
	uint16_t guest_first;
};

#define SHARDS_MAX 8 /* --shards at most */
#define CONF_SOCK_PATH_MAX 108 /* sizeof(sun_path) */

/**
 * enum conf_edge - how the guest is attached
 * @CONF_EDGE_TAP:	a tap in a network namespace (default)
 * @CONF_EDGE_STREAM:	--stream: listening unix stream socket, length-prefixed
 * @CONF_EDGE_DGRAM:	--dgram: unix datagram socket, a frame per datagram
 * @CONF_EDGE_FD:	--fd: an already connected stream socket
 * @CONF_EDGE_VU:	--vhost-user: a VM's virtio-net backend
 */
enum conf_edge { CONF_EDGE_TAP, CONF_EDGE_STREAM, CONF_EDGE_DGRAM, CONF_EDGE_FD,
		 CONF_EDGE_VU };

/**
 * enum conf_pasta_mode - which program's command line slipway took
 * @CONF_PASTA_NONE:	slipway's own (or slirp4netns's)
 * @CONF_PASTA_PASTA:	pasta's: a tap in a namespace (pasta.c)
 * @CONF_PASTA_PASST:	passt's: a VM on a socket (pasta.c)
 * @CONF_PASTA_MODE_NUM: count
 */
enum conf_pasta_mode { CONF_PASTA_NONE, CONF_PASTA_PASTA, CONF_PASTA_PASST,
		       CONF_PASTA_MODE_NUM };

/**
 * struct conf - everything the command line says
 * @netns:		--netns PATH|NAME, or NULL to create a namespace
 * @edge:		how the guest is attached
 * @sock_path:		--stream, --dgram or --vhost-user socket path
 * @sock_fd:		--fd: the connected stream socket, else -1
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
 * @ipv6:		carry IPv6 (default; --no-ipv6 turns it off)
 * @prefix6:		the guest network's /64 (--ipv6-prefix), host bits 0
 * @guest6:		the guest's IPv6 address: @prefix6::15
 * @gw6:		the gateway's IPv6 address: @prefix6::2
 * @dns6:		the DNS forwarder's IPv6 address: @prefix6::3
 * @ctl_path:		--ctl: the control socket's path, or NULL
 * @metrics:		--metrics: the address to serve /metrics on
 * @metrics_set:	@metrics is set
 * @pcap_path:		--pcap: the capture file, or NULL
 * @pcap_max:		--pcap-max: the capture file's size cap, bytes
 * @userns_path:	--netns: join this user namespace first (slirp4netns
 *			mode: --userns-path, or the target PID's), or NULL
 * @mac_set:		give the tap @mac (slirp4netns --macaddress)
 * @mac:		with @mac_set: the guest's MAC address
 * @out4_set:		bind outbound IPv4 sockets to @out4 (slirp4netns
 *			--outbound-addr); not for host loopback targets
 * @out4:		with @out4_set: the address, port 0
 * @out6_set:		bind outbound IPv6 sockets to @out6 (--outbound-addr6)
 * @out6:		with @out6_set: the address, port 0
 * @sandbox:		enter the sandbox after set-up (--no-sandbox: false)
 * @seccomp_log:	--seccomp-log: calls off the allowlist are logged, not
 *			fatal
 * @runas:		--runas given
 * @runas_uid:		the user to become (as root)
 * @runas_gid:		the group to become
 * @pasta_mode:		invoked as pasta or passt (pasta.c), else none
 * @config_net:		pasta --config-net: configure the namespace as pasta
 *			does (addresses and routes copied from the host)
 * @map_guest_addr:	--map-guest-addr ADDR|none (text, checked), or NULL
 * @map_host_loopback:	--map-host-loopback ADDR|none (text, checked), or NULL
 * @dns_forward:	--dns-forward ADDR (text, checked), or NULL
 * @host_lo_to_ns_lo:	--host-lo-to-ns-lo: host loopback clients appear
 *			from the namespace's loopback
 * @outbound4:		-o/--outbound with an IPv4 address (text), or NULL
 * @outbound6:		-o/--outbound with an IPv6 address (text), or NULL
 * @outbound_if4:	--outbound-if4 NAME, or NULL
 * @outbound_if6:	--outbound-if6 NAME, or NULL
 * @hostname:		-H/--hostname NAME (DHCP), or NULL
 * @fqdn:		--fqdn NAME (DHCP), or NULL
 * @template_if:	-i/--interface NAME: the host interface addresses and
 *			routes are copied from, or NULL
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
	const char *resolv_conf;
	uint8_t search[256];
	size_t search_len;
	char search_line[520];
	bool splice;
	struct fwd_spec nsfwd[CONF_MAX_FWD];
	unsigned nnsfwd;
	bool ipv6;
	struct in6_addr prefix6, guest6, gw6, dns6;
	const char *ctl_path;
	struct sockaddr_storage metrics;
	bool metrics_set;
	const char *pcap_path;
	uint64_t pcap_max;
	const char *userns_path;
	bool mac_set;
	uint8_t mac[6];
	bool out4_set;
	struct sockaddr_in out4;
	bool out6_set;
	struct sockaddr_in6 out6;
	bool sandbox;
	bool seccomp_log;
	bool runas;
	uid_t runas_uid;
	gid_t runas_gid;
	enum conf_pasta_mode pasta_mode;
	bool config_net;
	const char *map_guest_addr;
	const char *map_host_loopback;
	const char *dns_forward;
	bool host_lo_to_ns_lo;
	const char *outbound4, *outbound6;
	const char *outbound_if4, *outbound_if6;
	const char *hostname, *fqdn;
	const char *template_if;
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
 * fwd_spec_parse() - parse "[ADDR/]PORT[-END][:GUESTPORT[-END]]"
 * @s:		text
 * @f:		result
 *
 * Return: 0, or -1 with a reason in @why
 */
int fwd_spec_parse(const char *s, struct fwd_spec *f, const char **why);

/* the exit status of a bad command line: 2, or 1 as pasta and passt */
extern int conf_usage_status;

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

#endif /* SLIPWAY_CONF_H */
