/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl.h - minimal rtnetlink requests: link up, addresses, default routes */
#ifndef SLIPWAY_NL_H
#define SLIPWAY_NL_H

#include <stdbool.h>
#include <stdint.h>

/**
 * nl_open() - open a NETLINK_ROUTE socket in the current network namespace
 *
 * The socket stays bound to the namespace the caller is in now, even if the
 * caller moves to another namespace later.
 *
 * #syscalls:setup socket bind setsockopt
 * Return: socket descriptor (close-on-exec), or negative errno
 */
int nl_open(void);

/**
 * nl_link_up() - bring a link up and optionally set its MTU
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @mtu:	new MTU, 0 to leave it alone
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno (from the kernel's acknowledgement)
 */
int nl_link_up(int nl, unsigned ifindex, unsigned mtu);

/**
 * nl_link_txqlen() - set the transmit queue length of a link
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @qlen:	new queue length, packets
 *
 * Needs CAP_NET_ADMIN only in the user namespace owning the link's network
 * namespace (the SIOCSIFTXQLEN ioctl needs it in the initial one).
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno (from the kernel's acknowledgement)
 */
int nl_link_txqlen(int nl, unsigned ifindex, unsigned qlen);

/**
 * nl_addr4_add() - add an IPv4 address to a link
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @addr_be:	address, network order
 * @prefix:	prefix length, 0 to 32
 *
 * With the prefix's last address as the broadcast address (below /31).
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, -EINVAL for a bad @prefix, or negative errno from the kernel
 * (-EEXIST: the link already has this address)
 */
int nl_addr4_add(int nl, unsigned ifindex, uint32_t addr_be, uint8_t prefix);

/**
 * nl_route4_default() - add an IPv4 default route via a gateway
 * @nl:		socket from nl_open()
 * @ifindex:	output interface index
 * @gw_be:	gateway address, network order
 * @beside:	add it before a default route the namespace has (as "ip
 *		route prepend", or the SIOCADDRT ioctl) instead of failing
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno from the kernel (-EEXIST: a default route
 * already exists, or with @beside this very one; -ENETUNREACH: @gw_be is
 * not on a link that is up)
 */
int nl_route4_default(int nl, unsigned ifindex, uint32_t gw_be, bool beside);

/**
 * nl_addr6_add() - add an IPv6 address to a link, without DAD
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @addr:	address, 16 bytes
 * @prefix:	prefix length, 0 to 128
 *
 * The address is usable at once (IFA_F_NODAD): nothing else on the link
 * can hold it, and no test may race duplicate address detection.
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, -EINVAL for a bad @prefix, or negative errno from the kernel
 * (-EACCES: IPv6 is disabled on the link; -EAFNOSUPPORT: no IPv6 at all)
 */
int nl_addr6_add(int nl, unsigned ifindex, const uint8_t *addr, uint8_t prefix);

/**
 * nl_route6_default() - add an IPv6 default route via a gateway
 * @nl:		socket from nl_open()
 * @ifindex:	output interface index (needed for a link-local gateway)
 * @gw:		gateway address, 16 bytes
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno from the kernel (-EEXIST: a default route
 * already exists)
 */
int nl_route6_default(int nl, unsigned ifindex, const uint8_t *gw);

/**
 * nl_route_default() - the default route of a family with the lowest metric
 * @nl:		socket from nl_open()
 * @family:	AF_INET or AF_INET6
 * @oif:	in: only routes through this interface (0: any); out: the
 *		route's interface
 * @gw:		out: its gateway (4 or 16 bytes; zero for a device route)
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, -ENOENT if there is none, or negative errno
 */
int nl_route_default(int nl, int family, unsigned *oif, uint8_t *gw);

/**
 * nl_addr_get() - the first global address of an interface
 * @nl:		socket from nl_open()
 * @family:	AF_INET or AF_INET6
 * @ifindex:	interface index
 * @addr:	out: the address (4 or 16 bytes)
 * @prefix:	out: its prefix length
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, -ENOENT if it has none, or negative errno
 */
int nl_addr_get(int nl, int family, unsigned ifindex, uint8_t *addr,
		uint8_t *prefix);

#endif /* SLIPWAY_NL_H */
