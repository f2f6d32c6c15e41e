/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_net.c - the guest's addressing model and the address mappings
 *
 * DOC: Theory of Operation
 *
 * One core, two configurations of it. slipway's own model gives the guest
 * a network of its own (10.0.2.15/24 behind 10.0.2.2, a ULA /64 behind
 * fe80::1). pasta's (CONF_ADDR_HOST_COPY: --copy-host-addrs, or the pasta
 * front end) gives the guest the host's own address, prefix length and
 * default gateway of each family, read here over rtnetlink from the host's
 * template interface: the one with the default route of lowest metric, or
 * the one named by @template_if. Anything given explicitly (-a, -n, -g,
 * -I) is kept for its family, as pasta does. The gateway is then a real
 * one: connections to it go to host loopback as slipway's do, but with
 * --no-map-gw they go out to the router itself instead of being refused.
 * A connection from the guest to its own address never reaches us: the
 * guest's kernel keeps it; every other destination goes out through host
 * sockets as usual.
 *
 * The mappings are per family, resolved to plain addresses for the core:
 * --map-host-loopback ADDR (guest->ADDR reaches host 127.0.0.1 or ::1;
 * default the gateway, "none" = --no-map-gw), --map-guest-addr ADDR
 * (guest->ADDR reaches the host's own address on the template interface)
 * and --dns-forward ADDR (the DNS forwarder answers there).
 *
 * Everything runs once at start-up, in the host's network namespace,
 * before the sandbox.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/conf.h"
#include "cli/conf_net.h"
#include "os/sockaddr.h"
#include "os/nl.h"
#include "util/log.h"

/**
 * conf_net_addr4_bad() - may the guest use an IPv4 address for a mapping?
 * @a_be:	address, network order
 *
 * Return: true for 0.0.0.0/8, loopback, multicast and broadcast
 */
static bool conf_net_addr4_bad(uint32_t a_be)
{
	uint32_t h = ntohl(a_be);

	return (h >> 24) == 0 || (h >> 24) == 127 || (h >> 28) >= 14;
}

/**
 * conf_net_addr6_bad() - may the guest use an IPv6 address for a mapping?
 * @a:		address
 *
 * Return: true for ::, ::1 and multicast
 */
static bool conf_net_addr6_bad(const struct in6_addr *a)
{
	return IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a) ||
	       IN6_IS_ADDR_MULTICAST(a);
}

/**
 * conf_net_tmpl() - the host's template interface of a family
 * @nl:		netlink socket in the host's namespace
 * @family:	AF_INET or AF_INET6
 * @tmpl:	the interface to use (0: the default route's)
 * @ifindex:	out: the interface
 * @gw:		out: its default gateway (zero if none)
 * @addr:	out: its first global address
 * @prefix:	out: that address's prefix length
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or -ENOENT if the family has no usable template
 */
static int conf_net_tmpl(int nl, int family, unsigned tmpl, unsigned *ifindex,
			 uint8_t *gw, uint8_t *addr, uint8_t *prefix)
{
	unsigned oif = tmpl;
	int ret;

	memset(gw, 0, family == AF_INET ? 4 : 16);
	ret = nl_route_default(nl, family, &oif, gw);
	if (ret && !(ret == -ENOENT && tmpl))
		return -ENOENT;
	if (ret)
		oif = tmpl; /* a template with no default route: no gateway */
	*ifindex = oif;
	return nl_addr_get(nl, family, oif, addr, prefix) ? -ENOENT : 0;
}

/**
 * conf_net_copy4() - copy the host's IPv4 address, prefix and gateway
 * @c:		configuration
 * @nl:		netlink socket in the host's namespace
 * @tmpl:	template interface (0: the default route's)
 * @ifindex:	out: the interface it came from (0: none)
 *
 * #syscalls:setup sendto recvfrom
 */
static void conf_net_copy4(struct conf *c, int nl, unsigned tmpl,
			   unsigned *ifindex)
{
	uint32_t gw = 0, addr = 0, mask;
	uint8_t prefix = 0;

	*ifindex = 0;
	if (conf_net_tmpl(nl, AF_INET, tmpl, ifindex, (uint8_t *)&gw,
			  (uint8_t *)&addr, &prefix)) {
		*ifindex = 0;
		if (c->addr_model == CONF_ADDR_HOST_COPY)
			warn("no IPv4 address or default route on the host to "
			     "copy: the guest keeps its own IPv4 network");
		return;
	}
	c->host4 = addr;
	if (c->addr_model != CONF_ADDR_HOST_COPY)
		return;
	if (!c->addr4_set)
		c->guest4 = addr;
	if (!c->prefix4_set && !c->addr4_set)
		c->prefix_len = prefix;
	mask = c->prefix_len ? htonl(~0U << (32 - c->prefix_len)) : 0;
	if (!c->gw4_set) {
		/* a device route: any other address of the subnet will do */
		if (!gw || gw == c->guest4)
			gw = (c->guest4 & mask) |
			     htonl((ntohl(c->guest4 & ~mask) == 1) ? 2 : 1);
		c->gw4 = gw;
	}
}

/**
 * conf_net_copy6() - copy the host's IPv6 address, prefix and gateway
 * @c:		configuration
 * @nl:		netlink socket in the host's namespace
 * @tmpl:	template interface (0: the default route's)
 * @ifindex:	out: the interface it came from (0: none)
 *
 * A link-local gateway (the usual kind) becomes the guest's router
 * (@gw6_ll and @gw6 both); a global one is @gw6, with fe80::1 as the
 * source of our router advertisements. No template: IPv6 is off in the
 * host-copy model, as it is in pasta's.
 *
 * #syscalls:setup sendto recvfrom
 */
static void conf_net_copy6(struct conf *c, int nl, unsigned tmpl,
			   unsigned *ifindex)
{
	struct in6_addr gw, addr;
	uint8_t prefix = 0;

	*ifindex = 0;
	if (!c->ipv6 || conf_net_tmpl(nl, AF_INET6, tmpl, ifindex, gw.s6_addr,
				      addr.s6_addr, &prefix)) {
		*ifindex = 0;
		if (c->ipv6 && c->addr_model == CONF_ADDR_HOST_COPY) {
			info("no global IPv6 address or default route on the "
			     "host to copy: no IPv6");
			c->ipv6 = false;
		}
		return;
	}
	c->host6 = addr;
	if (c->addr_model != CONF_ADDR_HOST_COPY)
		return;
	if (!c->addr6_set) {
		c->guest6 = addr;
		c->prefix6_len = prefix;
	}
	memcpy(c->prefix6.s6_addr, c->guest6.s6_addr, 8);
	memset(c->prefix6.s6_addr + 8, 0, 8);
	if (!c->gw6_set)
		c->gw6 = IN6_IS_ADDR_UNSPECIFIED(&gw) ?
				 c->gw6_ll : /* a device route: we route */
				 gw;
	if (IN6_IS_ADDR_LINKLOCAL(&c->gw6))
		c->gw6_ll = c->gw6;
}

/**
 * conf_net_host() - read the host's addresses; copy them in pasta's model
 * @c:		configuration
 *
 * #syscalls:setup socket bind setsockopt sendto recvfrom ioctl close
 * Return: 0, or negative errno (logged)
 */
static int conf_net_host(struct conf *c)
{
	static char name[IF_NAMESIZE];
	unsigned tmpl = 0, if4, if6;
	int nl;

	if (c->template_if) {
		tmpl = if_nametoindex(c->template_if);
		if (!tmpl) {
			err("no such host interface '%s' to copy addresses "
			    "from",
			    c->template_if);
			return -ENODEV;
		}
	}
	nl = nl_open();
	if (nl < 0) {
		err("cannot open a netlink socket to read the host's "
		    "addresses: %s",
		    strerror(-nl));
		return nl;
	}
	conf_net_copy4(c, nl, tmpl, &if4);
	conf_net_copy6(c, nl, tmpl, &if6);
	close(nl);

	if (c->addr_model == CONF_ADDR_HOST_COPY && !c->ifname_set) {
		if ((if4 || if6) && if_indextoname(if4 ? if4 : if6, name))
			c->ifname = name;
		else
			c->ifname = "tap0";
	}
	return 0;
}

/**
 * conf_net_loopback() - resolve --map-host-loopback into the core's terms
 * @c:		configuration (@map_gw, @gw4, @gw6, @gw6_ll set)
 * @why:	reason on failure
 *
 * pasta's rule: the mapped address of a family is the gateway's unless
 * --no-map-gw; "none" means --no-map-gw; an address of one family
 * replaces the gateway's for that family only. The core maps both
 * families' gateways together (@map_gw), so an address other than the
 * gateway's turns that off and maps the other family's gateway by
 * address instead.
 *
 * Return: 0, or -1
 */
static int conf_net_loopback(struct conf *c, const char **why)
{
	struct in6_addr a;
	int fam;

	if (!c->map_host_loopback)
		return 0;
	if (!strcmp(c->map_host_loopback, "none")) {
		c->map_gw = false;
		return 0;
	}
	fam = addr_pton(c->map_host_loopback, &a);
	if (fam == AF_INET) {
		uint32_t a4;

		memcpy(&a4, &a.s6_addr[12], 4);
		if (conf_net_addr4_bad(a4) || a4 == c->guest4) {
			*why = "--map-host-loopback: not an address the guest "
			       "can reach (loopback, multicast, broadcast, "
			       "0.0.0.0/8 or its own)";
			return -1;
		}
		if (a4 == c->gw4 && c->map_gw)
			return 0;
		if (c->map_gw && c->ipv6)
			c->map_lo6 = c->gw6; /* core: gw6_ll with it */
		c->map_gw = false;
		c->map_lo4 = a4;
		return 0;
	}
	if (fam == AF_INET6) {
		if (conf_net_addr6_bad(&a) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->guest6)) {
			*why = "--map-host-loopback: not an address the guest "
			       "can reach (::, ::1, multicast or its own)";
			return -1;
		}
		if (c->map_gw && (IN6_ARE_ADDR_EQUAL(&a, &c->gw6) ||
				  IN6_ARE_ADDR_EQUAL(&a, &c->gw6_ll)))
			return 0;
		if (c->map_gw)
			c->map_lo4 = c->gw4;
		c->map_gw = false;
		c->map_lo6 = a;
		return 0;
	}
	*why = "--map-host-loopback: expected an IPv4 or IPv6 address, or none";
	return -1;
}

/**
 * conf_net_guest() - resolve --map-guest-addr
 * @c:		configuration (@host4, @host6 read from the host)
 * @why:	reason on failure
 *
 * Return: 0, or -1
 */
static int conf_net_guest(struct conf *c, const char **why)
{
	struct in6_addr a;
	int fam;

	if (!c->map_guest_addr || !strcmp(c->map_guest_addr, "none"))
		return 0;
	fam = addr_pton(c->map_guest_addr, &a);
	if (fam == AF_INET) {
		uint32_t a4;

		memcpy(&a4, &a.s6_addr[12], 4);
		if (conf_net_addr4_bad(a4) || a4 == c->guest4 || a4 == c->gw4) {
			*why = "--map-guest-addr: not an address the guest can "
			       "reach, or the guest's or gateway's own";
			return -1;
		}
		if (!c->host4) {
			*why = "--map-guest-addr: the host has no IPv4 address "
			       "on its default route's interface to map it to";
			return -1;
		}
		c->map_guest4 = a4;
		return 0;
	}
	if (fam == AF_INET6) {
		if (conf_net_addr6_bad(&a) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->guest6) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->gw6) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->gw6_ll)) {
			*why = "--map-guest-addr: not an address the guest can "
			       "reach, or the guest's or gateway's own";
			return -1;
		}
		if (IN6_IS_ADDR_UNSPECIFIED(&c->host6)) {
			*why = "--map-guest-addr: the host has no global IPv6 "
			       "address on its default route's interface to "
			       "map it to";
			return -1;
		}
		c->map_guest6 = a;
		return 0;
	}
	*why = "--map-guest-addr: expected an IPv4 or IPv6 address, or none";
	return -1;
}

/**
 * conf_net_dns() - resolve --dns-forward, and the model's DNS default
 * @c:		configuration
 * @why:	reason on failure
 *
 * In slipway's model the forwarder keeps its addresses (.3 and ::3)
 * unless --dns-forward names one for its family. In pasta's there is no
 * forwarder unless --dns-forward names one (the other family then has
 * none). A VM on passt's command line (libvirt never passes
 * --dns-forward) gets what passt gives it for a resolver on the host's
 * loopback: the IPv4 address mapped to the host's loopback (the
 * gateway's, by default) as its DNS server, over DHCP; its port 53 is
 * the forwarder's (to the host's resolvers, wherever they are), the
 * rest of it stays the mapping's. With no IPv4 mapping (--no-map-gw)
 * there is none, as before.
 *
 * Return: 0, or -1
 */
static int conf_net_dns(struct conf *c, const char **why)
{
	bool want = c->dns;
	struct in6_addr a;
	int fam;

	if (c->addr_model == CONF_ADDR_HOST_COPY) {
		c->dns4 = 0;
		memset(&c->dns6, 0, sizeof(c->dns6));
		c->dns = false;
	}
	if (!c->dns_forward) {
		if (c->addr_model == CONF_ADDR_HOST_COPY &&
		    c->pasta_mode == CONF_PASTA_PASST && want &&
		    (c->map_gw || c->map_lo4)) {
			c->dns4 = c->map_gw ? c->gw4 : c->map_lo4;
			c->dns4_shared = true;
			c->dns = c->dns4 != 0;
		}
		return 0;
	}
	fam = addr_pton(c->dns_forward, &a);
	if (fam == AF_INET) {
		uint32_t a4;

		memcpy(&a4, &a.s6_addr[12], 4);
		if (conf_net_addr4_bad(a4) || a4 == c->guest4 || a4 == c->gw4 ||
		    a4 == c->map_lo4 || a4 == c->map_guest4) {
			*why = "--dns-forward: not an address the guest can "
			       "reach, or one already in use (guest, gateway, "
			       "a mapping)";
			return -1;
		}
		c->dns4 = a4;
	} else if (fam == AF_INET6) {
		if (conf_net_addr6_bad(&a) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->guest6) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->gw6) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->gw6_ll) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->map_lo6) ||
		    IN6_ARE_ADDR_EQUAL(&a, &c->map_guest6)) {
			*why = "--dns-forward: not an address the guest can "
			       "reach, or one already in use (guest, gateway, "
			       "a mapping)";
			return -1;
		}
		c->dns6 = a;
	} else {
		*why = "--dns-forward: expected an IPv4 or IPv6 address";
		return -1;
	}
	c->dns = true;
	return 0;
}

/**
 * conf_net_setup() - apply the addressing model and resolve the mappings
 * @c:		configuration, parsed
 *
 * #syscalls:setup socket bind setsockopt sendto recvfrom ioctl close
 * Return: 0, -EINVAL for a bad mapping (message printed: a command line
 * error), or another negative errno (logged)
 */
int conf_net_setup(struct conf *c)
{
	const char *why = NULL;
	int ret;

	if (!c->prefix6_len)
		c->prefix6_len = 64;
	if (IN6_IS_ADDR_UNSPECIFIED(&c->gw6_ll)) {
		c->gw6_ll.s6_addr[0] = 0xfe; /* fe80::1 */
		c->gw6_ll.s6_addr[1] = 0x80;
		c->gw6_ll.s6_addr[15] = 1;
	}
	if (c->addr_model == CONF_ADDR_HOST_COPY)
		c->configure = c->config_net;
	if (c->addr_model == CONF_ADDR_HOST_COPY ||
	    (c->map_guest_addr && strcmp(c->map_guest_addr, "none"))) {
		ret = conf_net_host(c);
		if (ret)
			return ret;
	}
	if (conf_net_loopback(c, &why) || conf_net_guest(c, &why) ||
	    conf_net_dns(c, &why)) {
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, why);
		return -EINVAL;
	}
	return 0;
}

/**
 * conf_net_src_for() - the source a port with a guest address of its own shows
 * @c:		core (gateway addresses)
 * @gaddr:	the port's guest address (ADDR_LEN bytes)
 * @src:	in: what conf_net_peer_src() said; out: the gateway's address of
 *		@gaddr's family if @src was of the other family
 */
void conf_net_src_for(const struct core *c, const uint8_t *gaddr, uint8_t *src)
{
	if (addr_is4(gaddr) == addr_is4(src))
		return;
	if (addr_is4(gaddr))
		addr_from4(src, c->conf.gw4_be);
	else
		memcpy(src, c->conf.gw6, ADDR_LEN);
}

/**
 * conf_net_peer_src() - the source a published port's client has in the guest
 * @c:		core (gateway and guest addresses, conf.ipv6)
 * @sa:		the client's address (struct sockaddr_in or sockaddr_in6)
 * @src:	out: source address (ADDR_LEN bytes; IPv4 v4-mapped), whose
 *		family is the one the connection takes to the guest
 * @port:	out: the client's port
 *
 * IPv4 clients (also v4-mapped ones on a dual-stack socket) reach the
 * guest over IPv4 and keep their address; loopback ones, and any client
 * using the guest's own address, appear as the gateway. IPv6 clients
 * reach the guest over IPv6 when it is on, and keep their address too,
 * except the ones the guest could not answer directly, which appear as
 * the gateway's IPv6 address: ::1, link-local clients (fe80::/10 is the
 * guest's own link), and clients inside the guest's /64 (on-link for the
 * guest, which would ask for them with neighbour solicitations nobody
 * answers), the guest's own address included. With IPv6 off, IPv6
 * clients go over IPv4 from the gateway's IPv4 address, as before.
 */
void conf_net_peer_src(const struct core *c, const void *sa, uint8_t *src,
		       uint16_t *port)
{
	const struct sockaddr_in *s4 = sa;
	const struct sockaddr_in6 *s6 = sa;
	uint32_t a4 = c->conf.gw4_be;

	if (s4->sin_family == AF_INET) {
		*port = ntohs(s4->sin_port);
		if ((ntohl(s4->sin_addr.s_addr) >> 24) != 127)
			a4 = s4->sin_addr.s_addr;
	} else {
		const uint8_t *a = s6->sin6_addr.s6_addr;

		*port = ntohs(s6->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			uint32_t m;

			memcpy(&m, a + 12, 4);
			if ((ntohl(m) >> 24) != 127)
				a4 = m;
		} else if (c->conf.ipv6) {
			if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
			    IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) ||
			    IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) ||
			    !memcmp(a, c->conf.prefix6, 8))
				memcpy(src, c->conf.gw6, ADDR_LEN);
			else
				memcpy(src, a, ADDR_LEN);
			return;
		}
	}
	addr_from4(src, a4 == c->conf.guest4_be ? c->conf.gw4_be : a4);
}
