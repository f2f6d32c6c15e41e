/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netns.h - the guest namespace: create or join it, make and configure the tap */
#ifndef SLIPWAY_NETNS_H
#define SLIPWAY_NETNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define NETNS_MAX_QUEUES 16

/**
 * struct netns_conf - what the guest namespace should look like
 * @netns_path:	existing namespace to join ("/run/netns/NAME", "/proc/PID/ns/net",
 *		or a bare NAME meaning /run/netns/NAME); NULL: create a new one
 * @cmd:	argv of the command to run in a new namespace (NULL-terminated);
 *		NULL or empty: $SHELL, else /bin/sh. Ignored when joining.
 * @userns:	also create a user namespace (rootless); uid/gid map own id to 0
 * @ifname:	tap device name (e.g. "tap0")
 * @configure:	bring lo and the tap up, set MTU, address and default route
 * @addr_be:	guest IPv4 address (network order)
 * @prefix_len:	guest prefix length
 * @gw_be:	gateway IPv4 address (network order)
 * @mtu:	tap MTU
 * @queues:	number of tap queues (>1 uses IFF_MULTI_QUEUE)
 * @offloads:	TUN_F_* flags for TUNSETOFFLOAD (0: none)
 * @vnet_hdr_len:	virtio-net header size to set with TUNSETVNETHDRSZ (10 or 12)
 * @ipv6:	configure IPv6 too (with @configure): @addr6/@prefix6_len without DAD,
 *		a default route via @gw6, and no DAD or SLAAC on the tap
 * @addr6:	guest IPv6 address
 * @gw6:	IPv6 default gateway (the gateway's link-local address)
 * @prefix6_len: prefix length of @addr6 (0: 64)
 * @resolv_text:	create mode: contents for /etc/resolv.conf as the command
 *		sees it (bind-mounted in a private mount namespace), so that
 *		it uses the DNS forwarder and not a host-loopback resolver it
 *		cannot reach; NULL: leave it alone
 * @nsh:	start the namespace socket helper (nsh.c) in the namespace
 * @userns_path: join mode: enter this user namespace first (the one that
 *		owns the network namespace, e.g. /proc/PID/ns/user), unless
 *		it is ours already; NULL: stay in ours
 * @mac_set:	give the tap @mac instead of the kernel's random address
 * @mac:	with @mac_set: the guest's MAC address
 * @route_beside: slirp4netns mode: the IPv4 default route goes before one
 *		the namespace has, and an IPv6 one there is kept (a warning)
 */
struct netns_conf {
	const char *netns_path;
	char *const *cmd;
	bool userns;
	const char *ifname;
	bool configure;
	uint32_t addr_be;
	uint8_t prefix_len;
	uint32_t gw_be;
	uint32_t mtu;
	unsigned queues;
	unsigned offloads;
	int vnet_hdr_len;
	bool ipv6;
	uint8_t addr6[16];
	uint8_t gw6[16];
	uint8_t prefix6_len;
	const char *resolv_text;
	bool nsh;
	const char *userns_path;
	bool mac_set;
	uint8_t mac[6];
	bool route_beside;
};

/**
 * struct netns_state - what netns_setup() made
 * @tap_fds:	one non-blocking tap fd per queue
 * @nqueues:	how many of @tap_fds are valid
 * @mac:	the tap's MAC address (the guest's MAC)
 * @cmd_pid:	PID of the command started in a new namespace, or -1 when joining
 * @watch_pid:	when joining "/proc/PID/ns/net": PID to watch, else -1
 * @ctl_fd:	internal: socket to the waiting child (-1 when not waiting)
 * @nsh_fd:	socket to the namespace socket helper, or -1 (not asked for)
 */
struct netns_state {
	int tap_fds[NETNS_MAX_QUEUES];
	unsigned nqueues;
	uint8_t mac[6];
	pid_t cmd_pid;
	pid_t watch_pid;
	int ctl_fd;
	int nsh_fd;
};

/**
 * netns_setup() - create or join the namespace, make and configure the tap
 * @c:	configuration
 * @s:	filled on success
 *
 * A child process creates (or joins) the namespace, creates the tap there,
 * configures it, and passes the tap fds back over a socketpair (SCM_RIGHTS).
 * In create mode the child then waits for netns_start_cmd() before exec'ing
 * the command, so the command never runs before slipway serves the tap.
 * Errors are reported with a message that says what to do.
 *
 * #syscalls:setup fork socketpair sendmsg recvmsg unshare setns open ioctl waitpid
 * Return: 0 on success, negative errno on failure (message already logged)
 */
int netns_setup(const struct netns_conf *c, struct netns_state *s);

/**
 * netns_start_cmd() - let the waiting child exec the command
 * @s:	state from netns_setup()
 *
 * Return: 0, or negative errno
 */
int netns_start_cmd(struct netns_state *s);

#endif /* SLIPWAY_NETNS_H */
