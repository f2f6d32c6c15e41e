/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd.c - published ports: listening sockets, accept, hand to the core */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/udp.h"
#include "svc/fwd.h"
#include "shard/mbox.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "shard/sock_udp.h"
#include "svc/splice.h"
#include "util/log.h"
#include "util/util.h"

/**
 * DOC: Theory of Operation
 *
 * Published ports live in two slot tables of shard 0 (sh->lis.listeners for
 * TCP, sh->lis.ulisteners for UDP), one listening socket per host port. The
 * ports of the command line (-t, -u) are opened at start-up by fwd_init();
 * the forward API (fwd.h: fwd_add(), fwd_remove(), fwd_list()) adds and
 * removes ports while slipway runs. Every port has an id, given in order
 * from 1.
 *
 * Only the main thread, which runs shard 0's loop, touches the tables: it
 * accepts the connections and hands each to a shard through that shard's
 * mailbox, with the guest address and port copied into the message. A
 * removed port's socket is taken out of the epoll set and closed at once;
 * its slot (fd -1) is reused by a later port, and an event for it still
 * queued in the same epoll batch finds either a free slot (ignored) or a
 * new listener (accept() then returns EAGAIN). Connections a removed TCP
 * port accepted go on; a removed UDP port's flows are forgotten (their
 * replies would have gone out through its socket).
 *
 * A port may name its guest address (any address of the guest's network,
 * e.g. a second address the guest added); clients of the other family
 * then appear to the guest as the gateway's address of the port's family.
 * Ports added at run time are never spliced: loopback clients go through
 * the edge and the guest sees them as the gateway, as with slirp4netns.
 *
 * Every port is entered in the shards' table of slipway's own listening
 * ports (selfport.c) before its socket is bound, and taken out when it is
 * closed: the guest cannot reach it, and so cannot loop back into itself.
 */

#define FWD_TABLE_MIN 16

/**
 * fwd_listen() - open one listening socket
 * @family:	AF_INET, AF_INET6, or AF_UNSPEC (one IPv6 socket taking both
 *		families: IPV6_V6ONLY 0)
 * @addr:	bind address (IPv4 v4-mapped); unused with AF_UNSPEC
 * @port:	host port
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ifname:	interface to bind to (SO_BINDTODEVICE), or ""
 * @peek_off:	the shards peek with SO_PEEK_OFF (struct shard): TCP
 *		listeners set it, so that accepted sockets have it
 *
 * #syscalls socket setsockopt bind listen close
 * Return: socket, or -errno
 */
static int fwd_listen(int family, const struct in6_addr *addr, uint16_t port,
		      int type, const char *ifname, bool peek_off)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, zero = 0, fd, sfam = AF_INET6, ret;
	const struct sockaddr *sa = (const struct sockaddr *)&s6;
	socklen_t sl = sizeof(s6);

	if (family == AF_INET) {
		memcpy(&s4.sin_addr, &addr->s6_addr[12], 4);
		sa = (const struct sockaddr *)&s4;
		sl = sizeof(s4);
		sfam = AF_INET;
	} else if (family == AF_INET6) {
		s6.sin6_addr = *addr;
	}
	fd = socket(sfam, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* TCP: no wait for TIME_WAIT; UDP: never (it would share the port) */
	if (type == SOCK_STREAM) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* what every flow socket gets (sock_setup()), set once here:
		 * accepted sockets inherit both */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (peek_off)
			setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &zero,
				   sizeof(zero));
	}
	if (sfam == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
			   family == AF_UNSPEC ? &zero : &one, sizeof(int));
	if (*ifname && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				  (socklen_t)strlen(ifname))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (bind(fd, sa, sl) || (type == SOCK_STREAM && listen(fd, 1024))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * fwd_rule_str() - "tcp 127.0.0.1:8080 -> 10.0.2.100:80", for messages
 * @r:		port
 * @buf:	out
 * @len:	size of @buf
 *
 * Return: @buf
 */
const char *fwd_rule_str(const struct fwd_rule *r, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN + 2] = "*", g[INET6_ADDRSTRLEN + 2] = "guest";

	if (r->host_family == AF_INET)
		inet_ntop(AF_INET, &r->host_addr.s6_addr[12], h, sizeof(h));
	else if (r->host_family == AF_INET6)
		inet_ntop(AF_INET6, &r->host_addr, h, sizeof(h));
	if (r->guest_set && IN6_IS_ADDR_V4MAPPED(&r->guest_addr))
		inet_ntop(AF_INET, &r->guest_addr.s6_addr[12], g, sizeof(g));
	else if (r->guest_set)
		inet_ntop(AF_INET6, &r->guest_addr, g, sizeof(g));
	snprintf(buf, len, "%s %s%s%s:%u -> %s:%u",
		 r->proto == IPPROTO_UDP ? "udp" : "tcp",
		 r->host_family == AF_INET6 ? "[" : "", h,
		 r->host_family == AF_INET6 ? "]" : "", r->host_port, g,
		 r->guest_port);
	return buf;
}

/**
 * fwd_table() - the table of a protocol's ports
 * @sh:		shard 0
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @n:		out: its high-water mark
 * @cap:	out: its allocated slots
 *
 * Return: the table's pointer (in @sh)
 */
static struct listener **fwd_table(struct shard *sh, int proto, unsigned **n,
				   unsigned **cap)
{
	if (proto == IPPROTO_UDP) {
		*n = &sh->lis.nulisteners;
		*cap = &sh->lis.ulisteners_cap;
		return &sh->lis.ulisteners;
	}
	*n = &sh->lis.nlisteners;
	*cap = &sh->lis.listeners_cap;
	return &sh->lis.listeners;
}

/**
 * fwd_check() - is a rule one we can publish?
 * @sh:		shard 0 (the guest's addresses)
 * @r:		rule
 *
 * Return: 0, -EINVAL or -EAFNOSUPPORT
 */
static int fwd_check(const struct shard *sh, const struct fwd_rule *r)
{
	const struct conf *c = sh->conf;
	static const uint8_t zero8[8];

	if ((r->proto != IPPROTO_TCP && r->proto != IPPROTO_UDP) ||
	    !r->host_port || !r->guest_port)
		return -EINVAL;
	if (r->host_family != AF_INET && r->host_family != AF_INET6 &&
	    r->host_family != AF_UNSPEC)
		return -EINVAL;
	if (r->host_family == AF_INET && !IN6_IS_ADDR_V4MAPPED(&r->host_addr))
		return -EINVAL;
	if (!r->guest_set)
		return 0;
	if (IN6_IS_ADDR_V4MAPPED(&r->guest_addr)) {
		uint32_t g, m = c->prefix_len ?
					htonl(~0U << (32 - c->prefix_len)) :
					0;

		memcpy(&g, &r->guest_addr.s6_addr[12], 4);
		if ((g & m) != (c->guest4 & m) || g == c->gw4 ||
		    (c->dns && g == c->dns4) || !(g & ~m) || (g | m) == ~0U)
			return -EINVAL;
		return 0;
	}
	if (!c->ipv6)
		return -EAFNOSUPPORT;
	if (memcmp(&r->guest_addr, &c->prefix6, 8) ||
	    !memcmp(r->guest_addr.s6_addr + 8, zero8, 8) ||
	    !memcmp(&r->guest_addr, &c->gw6, 16) ||
	    (c->dns && !memcmp(&r->guest_addr, &c->dns6, 16)))
		return -EINVAL;
	return 0;
}

/**
 * fwd_pool_take() - a listening socket a migration source handed over
 * for this rule, if one is in the pool (shard_listen.pool)
 * @sh:		shard 0
 * @r:		rule
 * @type:	SOCK_STREAM or SOCK_DGRAM
 *
 * #syscalls getsockname getsockopt
 * Return: the socket (out of the pool), or -1
 */
static int fwd_pool_take(struct shard *sh, const struct fwd_rule *r, int type)
{
	unsigned i;

	for (i = 0; i < sh->lis.npool; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = sh->lis.pool[i], t = 0;
		socklen_t tl = sizeof(t);
		const void *a;
		uint16_t port;

		if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) ||
		    getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) || t != type)
			continue;
		if (type == SOCK_STREAM &&
		    (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &t, &tl) || !t))
			continue;
		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *s4 = (void *)&ss;

			if (r->host_family != AF_INET ||
			    memcmp(&s4->sin_addr, &r->host_addr.s6_addr[12], 4))
				continue;
			port = ntohs(s4->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (void *)&ss;

			a = &s6->sin6_addr;
			if (r->host_family == AF_INET ||
			    memcmp(a, &r->host_addr, 16))
				continue;
			/* [::] dual-stack (AF_UNSPEC) or IPv6 only: a source
			 * that split a port (fwd_open_split()) has both */
			tl = sizeof(t);
			if (getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &t,
				       &tl) ||
			    !t != (r->host_family == AF_UNSPEC))
				continue;
			port = ntohs(s6->sin6_port);
		} else {
			continue;
		}
		if (port != r->host_port)
			continue;
		sh->lis.pool[i] = -1;
		return fd;
	}
	return -1;
}

/**
 * fwd_open() - open a rule's socket into a free slot of its table
 * @sh:		shard 0
 * @r:		rule (checked)
 *
 * #syscalls epoll_ctl close
 * Return: the new id, or -errno
 */
static int fwd_open(struct shard *sh, const struct fwd_rule *r)
{
	int type = r->proto == IPPROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
	unsigned *n, *cap, i;
	struct listener **t = fwd_table(sh, r->proto, &n, &cap), *l;
	int fd;

	for (i = 0; i < *n && (*t)[i].fd >= 0; i++)
		;
	if (i == *cap) {
		unsigned ncap = *cap ? *cap * 2 : FWD_TABLE_MIN;
		struct listener *nt = realloc(*t, ncap * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		*t = nt;
		*cap = ncap;
	}
	/* the guest is kept away from it from before the bind on */
	selfport_add(&sh->grp->self, r->proto, r->host_port,
		     selfport_class(r->host_family, &r->host_addr));
	fd = fwd_pool_take(sh, r, type);
	if (fd < 0)
		fd = fwd_listen(r->host_family, &r->host_addr, r->host_port,
				type, r->ifname, sh->sock.peek_off);
	if (fd < 0)
		goto out_self;
	if (shard_ep_add(sh, fd, EPOLLIN,
			 EP_DATA(type == SOCK_STREAM ? EP_LISTEN :
						       EP_UDP_LISTEN,
				 i))) {
		int ret = -errno;

		close(fd);
		fd = ret;
		goto out_self;
	}
	l = &(*t)[i];
	l->fd = fd;
	l->paused = false;
	l->family = r->host_family == AF_INET ? AF_INET : AF_INET6;
	l->rule = *r;
	l->rule.id = ++sh->lis.fwd_next_id;
	if (type == SOCK_DGRAM)
		sock_udp_listen_prep(sh, l);
	if (i == *n)
		(*n)++;
	return (int)l->rule.id;
out_self:
	selfport_sync(&sh->grp->self, r->proto, r->host_port, *t, *n);
	return fd;
}

/**
 * fwd_open_split() - open an unaddressed port as two sockets, one a family
 * @sh:		shard 0
 * @r:		rule (checked), AF_UNSPEC: its dual-stack socket could not
 *		bind (EADDRINUSE)
 *
 * Another program holds the port in one family only (0.0.0.0, or an IPv4
 * address of it, makes a dual-stack bind fail; so does an IPv6-only
 * socket on [::]). As pasta does, the port is published on the family
 * that is free, with a warning for the other; each socket is a port of
 * its own in the table (its own id).
 *
 * Return: the id of one port opened (> 0), or -errno: the IPv4 socket's
 * error if neither family could be bound
 */
static int fwd_open_split(struct shard *sh, const struct fwd_rule *r)
{
	const char *proto = r->proto == IPPROTO_UDP ? "UDP" : "TCP";
	struct fwd_rule r4 = *r, r6 = *r;
	int id4, id6;

	r4.host_family = AF_INET;
	memset(&r4.host_addr, 0, sizeof(r4.host_addr));
	r4.host_addr.s6_addr[10] = r4.host_addr.s6_addr[11] = 0xff;
	r6.host_family = AF_INET6;
	memset(&r6.host_addr, 0, sizeof(r6.host_addr));

	id4 = fwd_open(sh, &r4);
	id6 = fwd_open(sh, &r6);
	if (id4 < 0 && id6 < 0)
		return id4;
	if (id4 < 0)
		warn("%s port %u: IPv4 %s, published on IPv6 only", proto,
		     r->host_port,
		     id4 == -EADDRINUSE ? "is in use by another program" :
					  strerror(-id4));
	if (id6 < 0)
		warn("%s port %u: IPv6 %s, published on IPv4 only", proto,
		     r->host_port,
		     id6 == -EADDRINUSE ? "is in use by another program" :
					  strerror(-id6));
	return id4 > 0 ? id4 : id6;
}

/**
 * fwd_ephemeral() - the host's ephemeral port range, which "all" and
 * exclusions-only specs leave out (as pasta does); read once, at set-up
 * (fwd_init(), or fwd_prepare() when the ports are opened later)
 * @first:	out
 * @last:	out
 *
 * #syscalls:setup openat read close fstat newfstatat
 */
static void fwd_ephemeral(unsigned *first, unsigned *last)
{
	static unsigned have_first, have_last;
	FILE *f;

	if (have_last) {
		*first = have_first;
		*last = have_last;
		return;
	}
	f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	*first = 32768; /* the kernel's default */
	*last = 60999;
	if (f) {
		if (fscanf(f, "%u %u", first, last) != 2 || *first > *last ||
		    *last > 65535) {
			*first = 32768;
			*last = 60999;
		}
		fclose(f);
	}
	have_first = *first;
	have_last = *last;
}

/**
 * fwd_prepare() - what fwd_init() reads from the host, read at set-up
 * when the ports are opened only later (--migrate-from)
 */
void fwd_prepare(void)
{
	unsigned first, last;

	fwd_ephemeral(&first, &last);
}

/**
 * fwd_rule_from() - the rule of one port of a range
 * @sh:		shard 0
 * @s:		the range
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @p:		host port, in @s
 * @r:		out
 */
void fwd_rule_from(const struct shard *sh, const struct fwd_spec *s, int proto,
		   unsigned p, struct fwd_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->proto = proto;
	r->host_family = s->family;
	r->host_addr = s->addr;
	if (s->family == AF_INET)
		r->host_addr.s6_addr[10] = r->host_addr.s6_addr[11] = 0xff;
	r->host_port = (uint16_t)p;
	r->guest_port = (uint16_t)(s->guest_first + (p - s->first));
	if (s->to_family != AF_UNSPEC) {
		r->guest_set = true;
		r->guest_addr = s->to_addr;
		if (s->to_family == AF_INET)
			r->guest_addr.s6_addr[10] = r->guest_addr.s6_addr[11] =
				0xff;
	}
	/* spliced clients reach the guest's loopback, not another address */
	r->splice = proto == IPPROTO_TCP && sh->conf->splice && !r->guest_set;
	memcpy(r->ifname, s->ifname, sizeof(r->ifname));
}

/**
 * fwd_open_all() - open the listening sockets of a list of port ranges
 * @sh:		shard 0
 * @specs:	ranges
 * @nspecs:	entries in @specs
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * "auto" ranges are left to fwdauto.c. "all" ranges (and exclusions only)
 * leave out the ephemeral ports and skip the ports other programs hold.
 *
 * Return: 0, or -errno after logging which port failed and why
 */
static int fwd_open_all(struct shard *sh, const struct fwd_spec *specs,
			unsigned nspecs, int proto)
{
	unsigned i, eph_first, eph_last, skipped = 0;

	fwd_ephemeral(&eph_first, &eph_last);
	for (i = 0; i < nspecs; i++) {
		const struct fwd_spec *s = &specs[i];
		bool all = s->flags & FWD_SPEC_ALL;
		struct fwd_rule r;
		unsigned p;
		int ret;

		if (s->flags & FWD_SPEC_AUTO)
			continue;
		fwd_rule_from(sh, s, proto, s->first, &r);
		if (r.guest_set && fwd_check(sh, &r)) {
			err("cannot publish %s ports %u-%u: the guest address "
			    "is not one in the guest's network (nor the "
			    "gateway's or DNS's)",
			    proto == IPPROTO_TCP ? "TCP" : "UDP", s->first,
			    s->last);
			return -EINVAL;
		}
		for (p = s->first; p <= s->last; p++) {
			if (all && p >= eph_first && p <= eph_last)
				continue;
			fwd_rule_from(sh, s, proto, p, &r);
			ret = fwd_open(sh, &r);
			/* one family held by another program: the other */
			if (ret == -EADDRINUSE && !all &&
			    r.host_family == AF_UNSPEC)
				ret = fwd_open_split(sh, &r);
			if (ret < 0 && all &&
			    (ret == -EADDRINUSE || ret == -EACCES)) {
				skipped++;
				continue;
			}
			if (ret < 0) {
				errno = -ret;
				err_perror(
					"cannot publish %s port %u%s",
					proto == IPPROTO_TCP ? "TCP" : "UDP", p,
					ret == -EADDRINUSE ?
						" (in use by another program; "
						"pick another port)" :
					ret == -EACCES ?
						" (ports below 1024 need root "
						"or "
						"net.ipv4.ip_unprivileged_port_"
						"start)" :
					ret == -ENODEV ?
						" (no such interface)" :
					ret == -EMFILE || ret == -ENFILE ?
						" (one descriptor a port: "
						"raise the open files limit, "
						"ulimit -Hn, or publish fewer "
						"ports)" :
						"");
				return ret;
			}
		}
	}
	if (skipped)
		info("%u %s port(s) of 'all' left out: in use, or privileged",
		     skipped, proto == IPPROTO_TCP ? "TCP" : "UDP");
	return 0;
}

/**
 * fwd_init() - open every published port of the configuration
 * @sh:	shard 0, which serves them
 *
 * Return: 0, or -errno after logging which port failed and why
 */
int fwd_init(struct shard *sh)
{
	const struct conf *c = sh->conf;
	int ret;

	ret = fwd_open_all(sh, c->fwd, c->nfwd, IPPROTO_TCP);
	if (ret)
		return ret;
	return fwd_open_all(sh, c->ufwd, c->nufwd, IPPROTO_UDP);
}

/**
 * fwd_add() - publish a host port at run time
 * @sh:		shard 0
 * @r:		the port (@id ignored)
 *
 * Context: main thread (shard 0's loop)
 * Return: the new port's id (> 0), or -errno (fwd.h lists them)
 */
int fwd_add(struct shard *sh, const struct fwd_rule *r)
{
	struct fwd_rule rr = *r;
	char buf[128];
	int ret;

	ASSERT(!sh->id);
	rr.splice = false;
	ret = fwd_check(sh, &rr);
	if (!ret)
		ret = fwd_open(sh, &rr);
	if (ret < 0) {
		debug("cannot publish %s: %s",
		      fwd_rule_str(&rr, buf, sizeof(buf)), strerror(-ret));
		return ret;
	}
	info("published %s (id %d)", fwd_rule_str(&rr, buf, sizeof(buf)), ret);
	return ret;
}

/**
 * fwd_open_rule() - open a rule's socket as a start-up port is, quietly
 * @sh:		shard 0
 * @r:		the port
 *
 * Context: main thread (shard 0's loop)
 * Return: the new port's id (> 0), or -errno
 */
int fwd_open_rule(struct shard *sh, const struct fwd_rule *r)
{
	char buf[128];
	int ret;

	ASSERT(!sh->id);
	ret = fwd_open(sh, r);
	if (ret > 0)
		info("published %s (id %d, auto)",
		     fwd_rule_str(r, buf, sizeof(buf)), ret);
	return ret;
}

/**
 * fwd_find_auto() - the id of the port "auto" opened for a range and port
 * @sh:		shard 0
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @tag:	its fwd_rule.auto_tag
 * @port:	its host port
 *
 * Return: the id, or 0
 */
unsigned fwd_find_auto(const struct shard *sh, int proto, unsigned tag,
		       uint16_t port)
{
	const struct listener *t = proto == IPPROTO_UDP ? sh->lis.ulisteners :
							  sh->lis.listeners;
	unsigned n = proto == IPPROTO_UDP ? sh->lis.nulisteners :
					    sh->lis.nlisteners;
	unsigned i;

	for (i = 0; i < n; i++)
		if (t[i].fd >= 0 && t[i].rule.auto_tag == tag &&
		    t[i].rule.host_port == port)
			return t[i].rule.id;
	return 0;
}

/**
 * fwd_remove() - stop publishing a port
 * @sh:		shard 0
 * @id:		its id
 *
 * Context: main thread (shard 0's loop)
 * #syscalls epoll_ctl close
 * Return: 0, or -ENOENT
 */
int fwd_remove(struct shard *sh, unsigned id)
{
	static const int protos[] = { IPPROTO_TCP, IPPROTO_UDP };
	unsigned k, i, *n, *cap;
	char buf[128];

	ASSERT(!sh->id);
	for (k = 0; k < ARRAY_SIZE(protos); k++) {
		struct listener *t = *fwd_table(sh, protos[k], &n, &cap);

		for (i = 0; i < *n; i++) {
			struct listener *l = &t[i];

			if (l->fd < 0 || l->rule.id != id || !id)
				continue;
			epoll_ctl(sh->epfd, EPOLL_CTL_DEL, l->fd, NULL);
			if (protos[k] == IPPROTO_UDP)
				udp_pub_forget(&sh->core, l->fd);
			close(l->fd);
			l->fd = -1;
			selfport_sync(&sh->grp->self, protos[k],
				      l->rule.host_port, t, *n);
			info("removed %s (id %u)",
			     fwd_rule_str(&l->rule, buf, sizeof(buf)), id);
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * fwd_list() - the published ports, in the order of their ids
 * @sh:		shard 0
 * @out:	filled with up to @max entries
 * @max:	room in @out
 *
 * Context: main thread (shard 0's loop)
 * Return: how many ports there are
 */
unsigned fwd_list(const struct shard *sh, struct fwd_rule *out, unsigned max)
{
	unsigned total = 0, last = 0, i, j;

	/* the next id above the last one, over both tables: quadratic, but
	 * the tables are small and this is not the data path */
	for (;;) {
		const struct fwd_rule *best = NULL;

		for (j = 0; j < 2; j++) {
			const struct listener *t = j ? sh->lis.ulisteners :
						       sh->lis.listeners;
			unsigned n = j ? sh->lis.nulisteners :
					 sh->lis.nlisteners;

			for (i = 0; i < n; i++)
				if (t[i].fd >= 0 && t[i].rule.id > last &&
				    (!best || t[i].rule.id < best->id))
					best = &t[i].rule;
		}
		if (!best)
			return total;
		if (total < max)
			out[total] = *best;
		total++;
		last = best->id;
	}
}

/**
 * fwd_count() - how many ports are published
 * @sh:		shard 0
 *
 * Return: the count
 */
unsigned fwd_count(const struct shard *sh)
{
	unsigned i, n = 0;

	for (i = 0; i < sh->lis.nlisteners; i++)
		n += sh->lis.listeners[i].fd >= 0;
	for (i = 0; i < sh->lis.nulisteners; i++)
		n += sh->lis.ulisteners[i].fd >= 0;
	return n;
}

/**
 * fwd_accept() - accept pending connections on a published port
 * @sh:		shard (0: the published ports live there)
 * @idx:	listener index
 * @events:	epoll events (unused: any event means try accept())
 *
 * When accept() fails for want of descriptors, the clients waiting are
 * refused and the listener pauses (shard_accept_nofd()): it is
 * level-triggered, and would otherwise be reported again at once.
 *
 * #syscalls accept4
 */
void fwd_accept(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct listener *l = &sh->lis.listeners[idx];
	const uint8_t *gaddr;
	int budget = 64;
	unsigned to, n;

	if (idx >= sh->lis.nlisteners || l->fd < 0 || l->paused)
		return; /* removed in this batch of events */
	gaddr = l->rule.guest_set ? l->rule.guest_addr.s6_addr : NULL;
	while (budget--) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC),
		    e;

		if (fd < 0) {
			e = errno;
			if (e == EAGAIN || e == EINTR || e == ECONNABORTED)
				return;
			CTR_INC(&sh->core, TCP_ACCEPT_ERRORS);
			n = shard_accept_nofd(sh, l->fd,
					      EP_DATA(EP_LISTEN, idx), e, true,
					      (unsigned)budget + 1);
			l->paused = true;
			errno = e;
			warn_perror_rl("published port %u: %u client(s) "
				       "refused, accepting again in %u ms",
				       l->rule.host_port, n, LISTEN_PAUSE_MS);
			return;
		}
		/* loopback clients: spliced here, on shard 0 */
		if (l->rule.splice &&
		    splice_accept(sh, fd, &ss, l->rule.guest_port))
			continue;
		/* spread connections over the shards; a full mailbox
		 * keeps the connection here */
		to = sh->grp->rr++ % sh->grp->n;
		if (to != sh->id &&
		    mbox_put_accept(sh, to, fd, &ss, l->rule.guest_port, gaddr))
			continue;
		sock_tcp_accepted(sh, fd, &ss, l->rule.guest_port, gaddr);
		shard_drain(sh);
	}
}

/**
 * fwd_resume() - arm the published TCP ports that paused again
 * @sh:		shard 0
 *
 * Context: shard_listen_resume()
 */
void fwd_resume(struct shard *sh)
{
	unsigned i;

	for (i = 0; i < sh->lis.nlisteners; i++) {
		struct listener *l = &sh->lis.listeners[i];

		if (l->fd < 0 || !l->paused)
			continue;
		l->paused = false;
		shard_listen_arm(sh, l->fd, EP_DATA(EP_LISTEN, i));
	}
}
