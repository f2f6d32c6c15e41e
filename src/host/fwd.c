/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd.c - published ports: listening sockets, accept, hand to the core */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/shard.h"
#include "host/splice.h"
#include "util/log.h"

/**
 * fwd_listen() - open one listening socket
 * @spec:	the -t option it comes from (family and address)
 * @port:	host port
 * @type:	SOCK_STREAM or SOCK_DGRAM
 *
 * Without an address, one IPv6 socket takes both families (IPV6_V6ONLY 0).
 *
 * #syscalls socket setsockopt bind listen
 * Return: socket, or -errno
 */
static int fwd_listen(const struct fwd_spec *spec, uint16_t port, int type)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, zero = 0, fd, family = spec->family, ret;
	const struct sockaddr *sa;
	socklen_t sl;

	if (family == AF_INET) {
		memcpy(&s4.sin_addr, &spec->addr.s6_addr[12], 4);
		sa = (const struct sockaddr *)&s4;
		sl = sizeof(s4);
	} else {
		if (family == AF_INET6)
			s6.sin6_addr = spec->addr;
		family = AF_INET6;
		sa = (const struct sockaddr *)&s6;
		sl = sizeof(s6);
	}
	fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
			   spec->family == AF_UNSPEC ? &zero : &one,
			   sizeof(int));
	if (bind(fd, sa, sl) || (type == SOCK_STREAM && listen(fd, 1024))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * fwd_open_all() - open the listening sockets of a list of port ranges
 * @sh:		shard
 * @specs:	ranges
 * @nspecs:	entries in @specs
 * @type:	SOCK_STREAM (TCP) or SOCK_DGRAM (UDP)
 * @out:	allocated listener table
 * @nout:	entries in @out
 * @ep:		EP_LISTEN or EP_UDP_LISTEN
 *
 * Return: 0, or -errno after logging which port failed and why
 */
static int fwd_open_all(struct shard *sh, const struct fwd_spec *specs,
			unsigned nspecs, int type, struct listener **out,
			unsigned *nout, enum ep_type ep)
{
	const char *proto = type == SOCK_STREAM ? "TCP" : "UDP";
	unsigned i, n = 0;

	for (i = 0; i < nspecs; i++)
		n += (unsigned)(specs[i].last - specs[i].first) + 1;
	if (!n)
		return 0;
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < nspecs; i++) {
		const struct fwd_spec *s = &specs[i];
		unsigned p;

		for (p = s->first; p <= s->last; p++) {
			struct listener *l = &(*out)[*nout];
			int fd = fwd_listen(s, (uint16_t)p, type);

			if (fd < 0) {
				errno = -fd;
				err_perror("cannot publish %s port %u%s", proto, p,
					   fd == -EADDRINUSE ?
						   " (in use by another program; pick another port)" :
					   fd == -EACCES ?
						   " (ports below 1024 need root or net.ipv4.ip_unprivileged_port_start)" :
						   "");
				return fd;
			}
			l->fd = fd;
			l->guest_port = (uint16_t)(s->guest_first + (p - s->first));
			l->family = s->family == AF_INET ? AF_INET : AF_INET6;
			if (shard_ep_add(sh, fd, EPOLLIN, EP_DATA(ep, *nout))) {
				close(fd);
				return -errno;
			}
			(*nout)++;
		}
	}
	return 0;
}

/**
 * fwd_init() - open every published port of the configuration
 * @sh:	shard that serves them
 *
 * Return: 0, or -errno after logging which port failed and why
 */
int fwd_init(struct shard *sh)
{
	const struct conf *c = sh->conf;
	int ret;

	ret = fwd_open_all(sh, c->fwd, c->nfwd, SOCK_STREAM, &sh->listeners,
			   &sh->nlisteners, EP_LISTEN);
	if (ret)
		return ret;
	return fwd_open_all(sh, c->ufwd, c->nufwd, SOCK_DGRAM,
			    &sh->ulisteners, &sh->nulisteners, EP_UDP_LISTEN);
}

/**
 * fwd_peer_src() - the source a published port's client has in the guest
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
void fwd_peer_src(const struct core *c, const void *sa, uint8_t *src,
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

/**
 * sockaddr_from() - a socket address for a flow address and port
 * @ss:		out: struct sockaddr_in for an IPv4 (v4-mapped) address,
 *		struct sockaddr_in6 for an IPv6 one
 * @addr:	address, ADDR_LEN bytes
 * @port:	port, host order
 *
 * Return: the length of the address in @ss
 */
socklen_t sockaddr_from(struct sockaddr_storage *ss, const uint8_t *addr,
			uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (addr_is4(addr)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = addr_to4(addr);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, addr, ADDR_LEN);
		return sizeof(*s6);
	}
}

/**
 * fwd_accept() - accept pending connections on a published port
 * @sh:		shard (0: the published ports live there)
 * @idx:	listener index
 *
 * #syscalls accept4 accept close openat
 */
void fwd_accept(struct shard *sh, uint32_t idx)
{
	struct listener *l = &sh->listeners[idx];
	int budget = 64;
	unsigned to;

	while (budget--) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNABORTED)
				return;
			/* out of fds: refuse this client with the reserve fd,
			 * or the listener stays readable and we spin */
			CTR_INC(&sh->core, TCP_ACCEPT_ERRORS);
			if ((errno == EMFILE || errno == ENFILE) &&
			    sh->reserve_fd >= 0) {
				close(sh->reserve_fd);
				fd = accept(l->fd, NULL, NULL);
				if (fd >= 0)
					close(fd);
				sh->reserve_fd = open("/dev/null",
						      O_RDONLY | O_CLOEXEC);
				continue;
			}
			return;
		}
		/* loopback clients: spliced here, on shard 0 */
		if (splice_accept(sh, fd, &ss, l->guest_port))
			continue;
		/* spread connections over the shards; a full mailbox
		 * keeps the connection here */
		to = sh->grp->rr++ % sh->grp->n;
		if (to != sh->id &&
		    mbox_put_accept(sh, to, fd, &ss, l->guest_port))
			continue;
		sock_tcp_accepted(sh, fd, &ss, l->guest_port);
		shard_drain(sh);
	}
}
