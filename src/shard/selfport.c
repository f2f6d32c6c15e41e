/* SPDX-License-Identifier: GPL-2.0-or-later */
/* selfport.c - slipway's own listening ports, kept out of the guest's reach
 *
 * DOC: Theory of Operation
 *
 * Our own listeners
 * -----------------
 *
 * The guest reaches the host's loopback through the gateway address, and
 * any other address of the host directly. slipway itself listens there
 * too: the published ports (-t, -u, and the ones the control and the
 * slirp4netns APIs add at run time) and --metrics. A guest that reached
 * them could read every counter, hold the metrics server's connection
 * slots, or loop a published port back into itself. So a guest flow whose
 * host socket would land on one of our own listening sockets is refused
 * as a closed port would be: TCP with a reset, UDP with a port
 * unreachable (counted as TCP_REFUSED_SELF and UDP_REFUSED_SELF).
 *
 * The port table
 * --------------
 *
 * The ports are kept in a table of one byte per protocol and port: which
 * addresses the listeners there take (SELF_* bits: every address of a
 * family, a loopback one, or another one). The main thread writes it
 * (fwd.c when it opens or closes a published port, ctl.c once for
 * --metrics); the shards read it before they open a flow's host socket.
 * A port with no bits is the common case and costs one load.
 *
 * Whose address it is
 * -------------------
 *
 * Only when a port matches is the destination looked at: a loopback one
 * is ours if a listener takes loopback or every address; another one is
 * ours only if it is an address of this host. That is asked of the
 * kernel with a UDP socket connected to the destination, which sends
 * nothing: for a local route the kernel picks the destination itself as
 * the source (or the route's preferred source: a loopback one for a
 * "local" route through lo), for any other route an address of the
 * outgoing interface. A TCP probe would have sent a SYN to our own
 * listener first.
 *
 * Limits and races
 * ----------------
 *
 * A listener on one specific address makes every local address
 * with that port refused (the table does not keep addresses: a host
 * service on another local address and the same port is not reachable
 * from the guest); an IPv6 "local" route for a range with no address on
 * the host (AnyIP) is not recognised, as IPv6 picks its source by other
 * rules. A UDP flow the guest opened before the port was published keeps
 * its socket.
 *
 * Races: a port removed while a shard looks may be refused once more; a
 * port being added has its bits set before its socket is bound, so no
 * flow opened after the bind can reach it.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/conf_net.h"
#include "os/sockaddr.h"
#include "shard/listen.h"
#include "shard/selfport.h"
#include "shard/shard.h"
#include "util/log.h"

/**
 * selfport_idx() - the table row of a protocol
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: 0 or 1
 */
static unsigned selfport_idx(int proto)
{
	return proto == IPPROTO_UDP;
}

/**
 * selfport_class() - the SELF_* bits of a listening socket's address
 * @family:	AF_INET (@addr v4-mapped), AF_INET6, or AF_UNSPEC (one
 *		socket taking every address of both families)
 * @addr:	bound address (unused with AF_UNSPEC)
 *
 * Return: SELF_* bits
 */
uint8_t selfport_class(int family, const struct in6_addr *addr)
{
	uint32_t a4;

	if (family == AF_UNSPEC)
		return SELF_ANY4 | SELF_ANY6;
	if (family == AF_INET || IN6_IS_ADDR_V4MAPPED(addr)) {
		memcpy(&a4, &addr->s6_addr[12], 4);
		a4 = ntohl(a4);
		if (!a4)
			return SELF_ANY4;
		return (a4 >> 24) == 127 ? SELF_LO4 : SELF_ADDR4;
	}
	if (IN6_IS_ADDR_UNSPECIFIED(addr))
		return SELF_ANY6;
	return IN6_IS_ADDR_LOOPBACK(addr) ? SELF_LO6 : SELF_ADDR6;
}

/**
 * selfport_pins() - the bits of the pinned listeners on a port
 * @s:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @port:	port
 *
 * Return: SELF_* bits
 */
static uint8_t selfport_pins(const struct selfport *s, int proto, uint16_t port)
{
	uint8_t bits = 0;
	unsigned i;

	for (i = 0; i < s->npins; i++)
		if (s->pin[i].proto == proto && s->pin[i].port == port)
			bits |= s->pin[i].bits;
	return bits;
}

/**
 * selfport_add() - a listening socket is about to be bound on a port
 * @s:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @port:	port
 * @bits:	its selfport_class()
 *
 * Context: main thread (the table's only writer)
 */
void selfport_add(struct selfport *s, int proto, uint16_t port, uint8_t bits)
{
	uint8_t *p = &s->map[selfport_idx(proto)][port];

	__atomic_store_n(p,
			 (uint8_t)(__atomic_load_n(p, __ATOMIC_RELAXED) | bits),
			 __ATOMIC_RELAXED);
}

/**
 * selfport_sync() - recompute a port's bits from the listeners left on it
 * @s:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @port:	port
 * @t:		the protocol's published ports (free slots: fd -1)
 * @n:		slots in @t
 *
 * Context: main thread, after a listener on @port was closed or failed
 * to open
 */
void selfport_sync(struct selfport *s, int proto, uint16_t port,
		   const struct listener *t, unsigned n)
{
	uint8_t bits = selfport_pins(s, proto, port);
	unsigned i;

	for (i = 0; i < n; i++)
		if (t[i].fd >= 0 && t[i].rule.host_port == port)
			bits |= selfport_class(t[i].rule.host_family,
					       &t[i].rule.host_addr);
	__atomic_store_n(&s->map[selfport_idx(proto)][port], bits,
			 __ATOMIC_RELAXED);
}

/**
 * selfport_pin() - a listener for the whole run (--metrics)
 * @s:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @ss:		its address (AF_INET or AF_INET6; "::" counts for IPv4
 *		too: the socket keeps the system's IPV6_V6ONLY default)
 *
 * Context: main thread, at start-up
 */
void selfport_pin(struct selfport *s, int proto,
		  const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	struct in6_addr a = { 0 };
	uint16_t port;
	uint8_t bits;

	if (ss->ss_family == AF_INET) {
		a.s6_addr[10] = a.s6_addr[11] = 0xff;
		memcpy(&a.s6_addr[12], &s4->sin_addr, 4);
		bits = selfport_class(AF_INET, &a);
		port = ntohs(s4->sin_port);
	} else {
		bits = IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) ?
			       selfport_class(AF_UNSPEC, NULL) :
			       selfport_class(AF_INET6, &s6->sin6_addr);
		port = ntohs(s6->sin6_port);
	}
	ASSERT(s->npins < SELFPORT_PINS);
	s->pin[s->npins].proto = proto;
	s->pin[s->npins].port = port;
	s->pin[s->npins].bits = bits;
	s->npins++;
	selfport_add(s, proto, port, bits);
}

/**
 * selfport_local() - is a destination an address of this host?
 * @dst:	destination (AF_INET or AF_INET6, not loopback)
 *
 * A UDP socket connected to @dst (which sends nothing) shows the source
 * the kernel would use: @dst itself, or a loopback address, only over a
 * local route.
 *
 * #syscalls socket connect getsockname close
 * Return: true if local, or if the question could not be asked (no fd:
 * refusing is the safe answer, and the flow's own socket would fail too)
 */
static bool selfport_local(const struct sockaddr_storage *dst)
{
	socklen_t dl = dst->ss_family == AF_INET6 ?
			       sizeof(struct sockaddr_in6) :
			       sizeof(struct sockaddr_in);
	struct sockaddr_storage src;
	socklen_t sl = sizeof(src);
	bool local = false;
	int fd;

	fd = socket(dst->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		debug("selfport: probe socket: %s", strerror(errno));
		return true;
	}
	if (connect(fd, (const struct sockaddr *)dst, dl) ||
	    getsockname(fd, (struct sockaddr *)&src, &sl))
		goto out; /* no route: the flow's connect fails too */
	if (dst->ss_family == AF_INET) {
		const struct sockaddr_in *d4 = (const struct sockaddr_in *)dst;
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&src;

		local = s4->sin_addr.s_addr == d4->sin_addr.s_addr ||
			(ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	} else {
		const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)
			dst;
		const struct sockaddr_in6 *s6 =
			(const struct sockaddr_in6 *)&src;

		local = IN6_ARE_ADDR_EQUAL(&s6->sin6_addr, &d6->sin6_addr) ||
			IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
	}
out:
	close(fd);
	return local;
}

/**
 * selfport_reached() - would a host socket to @dst reach one of our own
 * listening sockets?
 * @s:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @dst:	where a guest flow's host socket would go (AF_INET or
 *		AF_INET6, as sockaddr_from() made it)
 *
 * Context: any shard
 * Return: true if the flow must be refused
 */
bool selfport_reached(const struct selfport *s, int proto,
		      const struct sockaddr_storage *dst)
{
	const struct sockaddr_in *d4 = (const struct sockaddr_in *)dst;
	const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)dst;
	bool v4 = dst->ss_family == AF_INET;
	uint16_t port = ntohs(v4 ? d4->sin_port : d6->sin6_port);
	uint8_t bits = __atomic_load_n(&s->map[selfport_idx(proto)][port],
				       __ATOMIC_RELAXED);

	if (!bits)
		return false;
	if (v4) {
		if ((ntohl(d4->sin_addr.s_addr) >> 24) == 127)
			return bits & (SELF_ANY4 | SELF_LO4);
		if (!(bits & (SELF_ANY4 | SELF_ADDR4)))
			return false;
	} else {
		if (IN6_IS_ADDR_LOOPBACK(&d6->sin6_addr))
			return bits & (SELF_ANY6 | SELF_LO6);
		if (!(bits & (SELF_ANY6 | SELF_ADDR6)))
			return false;
	}
	return selfport_local(dst);
}
