/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig_vet.c - a migration stream's flows checked against this gateway's
 * own configuration: only what the guest could have opened here
 *
 * DOC: Theory of Operation
 *
 * The stream is guest input
 * -------------------------
 *
 * A migration stream is guest input: it comes from a frontend (the
 * vhost-user device-state channel, which whoever feeds QEMU's incoming
 * migration controls) or from another process at --migrate-from's path.
 * The core checks each flow's TCP state (tcp_import()); this file checks
 * what the flow's host socket reaches, as the guest's own SYN or datagram
 * would have been checked here:
 *
 * What is checked
 * ---------------
 *
 * Outbound flows (the guest connected): the socket's peer must be what the
 * guest's destination maps to on this gateway (core_flow_target(): the
 * gateway's mapping to host loopback only where it is on, the DNS
 * forwarder's address only for TCP port 53 to the upstream resolver, no
 * address a guest may not name), never one of slipway's own listening
 * ports (selfport.c), from the outbound address when -o gives one.
 *
 * Published flows (a host client connected to a -t port): the socket's
 * local address and port must be a port this gateway publishes to the
 * flow's guest port, and the client must be the flow's remote as
 * conf_net_peer_src() shows it to the guest.
 *
 * Sockets made from repair state (--migrate-repair) bind their local port
 * in the kernel's forced reuse, which would bind a port another process
 * listens on: the port must be one no socket listens on (a sock_diag dump
 * taken when the stream came), unless it is a port this gateway publishes
 * and the flow is that port's. Their queues hold at most tcp_wmem's and
 * tcp_rmem's maximum, as a socket the guest fills could, and are written
 * without the FORCE options. The whole stream is at most MIG_BODY_MAX.
 *
 * Refusals
 * --------
 *
 * A refused flow is counted (MIG_REFUSED_GUEST, with MIG_TCP_REFUSED or
 * MIG_UDP_REFUSED), the first refusal of a stream is logged with its
 * reason, and the rest of the migration goes on.
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "core/core.h"
#include "core/mig.h"
#include "cli/conf.h"
#include "cli/conf_net.h"
#include "os/sockaddr.h"
#include "svc/fwd.h"
#include "svc/fwdauto.h"
#include "mig/mig_vet.h"
#include "shard/selfport.h"
#include "shard/shard.h"
#include "shard/sock_tcp.h"
#include "util/log.h"

#define MIG_VET_WMEM_DEFAULT (4U << 20) /* tcp_wmem[2]'s default */
#define MIG_VET_RMEM_DEFAULT (6U << 20) /* tcp_rmem[2]'s default */

/**
 * mig_vet_sysctl_max() - the third number of a tcp_wmem/tcp_rmem sysctl
 * @path:	its file
 * @dflt:	what to use if it cannot be read
 *
 * #syscalls:setup openat read close
 * Return: the maximum, bytes
 */
static uint32_t mig_vet_sysctl_max(const char *path, uint32_t dflt)
{
	unsigned long a, b, c;
	char buf[96];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &a, &b, &c) != 3 || !c || c > INT32_MAX)
		return dflt;
	return (uint32_t)c;
}

/**
 * mig_vet_init() - what the checks need, before the sandbox
 * @v:		state
 * @conf:	configuration
 *
 * Context: start-up, main thread, before the sandbox
 * #syscalls:setup socket
 * Return: 0, or -errno (logged)
 */
int mig_vet_init(struct mig_vet *v, const struct conf *conf)
{
	v->diagfd = -1;
	v->wmem_max = mig_vet_sysctl_max("/proc/sys/net/ipv4/tcp_wmem",
					 MIG_VET_WMEM_DEFAULT);
	v->rmem_max = mig_vet_sysctl_max("/proc/sys/net/ipv4/tcp_rmem",
					 MIG_VET_RMEM_DEFAULT);
	if (!conf->migrate_repair)
		return 0;
	v->diagfd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			   NETLINK_SOCK_DIAG);
	if (v->diagfd < 0) {
		err_perror("migration: no sock_diag socket (to check the "
			   "ports of sockets made from repair state)");
		return -errno;
	}
	return 0;
}

/**
 * mig_vet_fini() - close what mig_vet_init() opened
 * @v:		state
 *
 * #syscalls close
 */
void mig_vet_fini(struct mig_vet *v)
{
	if (v->diagfd >= 0)
		close(v->diagfd);
	v->diagfd = -1;
}

/**
 * mig_vet_stream() - a stream came: the listening ports now, and a new
 * first refusal to log
 * @v:		state
 *
 * Context: the migration thread, before the shards take the stream
 */
void mig_vet_stream(struct mig_vet *v)
{
	static const int fams[2] = { AF_INET, AF_INET6 };
	uint8_t buf[8192];
	int f, ret = 0;

	atomic_store(&v->said, 0);
	memset(v->lports, 0, sizeof(v->lports));
	v->lports_ok = false;
	if (v->diagfd < 0)
		return;
	for (f = 0; f < 2 && !ret; f++) {
		ret = diag_bound_ports(v->diagfd, fams[f], IPPROTO_TCP,
				       ++v->seq, buf, sizeof(buf), v->lports);
		if (f && (ret == -ENOENT || ret == -EAFNOSUPPORT))
			ret = 0; /* no IPv6 here: nothing listens there */
	}
	if (ret)
		warn("migration: the host's listening ports cannot be listed "
		     "(%s): flows in repair state will be refused",
		     strerror(-ret));
	v->lports_ok = !ret;
}

/**
 * mig_vet_published() - is a local address and port one this gateway
 * publishes to a guest port?
 * @sh:		shard
 * @la:		local address (ADDR_LEN)
 * @lp:		local port
 * @gport:	the guest port it must lead to
 *
 * The -t ranges of the configuration (also those of a --migrate-from
 * destination, not yet bound while the flows come in), and any TCP port
 * slipway listens on at @la now (added at run time: the control socket,
 * "auto" ranges).
 *
 * Return: true if so
 */
static bool mig_vet_published(const struct shard *sh, const uint8_t *la,
			      uint16_t lp, uint16_t gport)
{
	const struct conf *conf = sh->conf;
	struct sockaddr_storage ss;
	unsigned i;

	for (i = 0; i < conf->nfwd; i++) {
		const struct fwd_spec *s = &conf->fwd[i];

		if (lp < s->first || lp > s->last ||
		    (uint16_t)(s->guest_first + (lp - s->first)) != gport)
			continue;
		if (s->family == AF_UNSPEC)
			return true;
		if (s->family == AF_INET && addr_is4(la) &&
		    !memcmp(la + 12, &s->addr.s6_addr[12], 4))
			return true;
		if (s->family == AF_INET6 && !memcmp(la, &s->addr, ADDR_LEN))
			return true;
	}
	sockaddr_from(&ss, la, lp);
	return selfport_reached(&sh->grp->self, IPPROTO_TCP, &ss);
}

/**
 * mig_vet_local() - is a socket's local address what the outbound rules
 * give (-o, --outbound-addr) for its peer, as sock_bind_out() binds it?
 * @sh:		shard
 * @la:		local address
 * @pa:		peer address
 * @to_dns:	DNS over TCP to the upstream resolver (never bound, as the
 *		forwarder's own queries)
 *
 * Return: true if so
 */
static bool mig_vet_local(const struct shard *sh, const uint8_t *la,
			  const uint8_t *pa, bool to_dns)
{
	const struct conf *conf = sh->conf;
	struct sockaddr_storage ps;

	sockaddr_from(&ps, pa, 0);
	if (to_dns || !sock_out_binds(conf, &ps))
		return true;
	if (addr_is4(la))
		return !conf->outbound4.s_addr ||
		       addr_to4(la) == conf->outbound4.s_addr;
	return IN6_IS_ADDR_UNSPECIFIED(&conf->outbound6) ||
	       !memcmp(la, &conf->outbound6, ADDR_LEN);
}

/**
 * mig_vet_tcp() - may the guest have this TCP flow here, its host socket
 * from @la:@lp to @pa:@pp?
 * @sh:		shard
 * @v:		state
 * @t:		the flow
 * @la:		the socket's local address (ADDR_LEN, IPv4 v4-mapped)
 * @lp:		its local port
 * @pa:		its peer's address
 * @pp:		its peer's port
 * @made:	the socket is to be made from repair state (its local port is
 *		bound in forced reuse: checked against the listening ports)
 *
 * Return: NULL, or why not
 */
static const char *mig_vet_tcp(struct shard *sh, const struct mig_vet *v,
			       const struct mig_tcp *t, const uint8_t *la,
			       uint16_t lp, const uint8_t *pa, uint16_t pp,
			       bool made)
{
	uint8_t target[ADDR_LEN], src[ADDR_LEN];
	struct sockaddr_storage ss;
	uint16_t sport;
	const char *why;

	if (addr_is4(la) != addr_is4(pa) ||
	    addr_is4(pa) != addr_is4(t->remote_addr))
		return "a socket of another family than its flow";
	if (!lp || !pp)
		return "a socket without ports";
	sockaddr_from(&ss, pa, pp);
	if (selfport_reached(&sh->grp->self, IPPROTO_TCP, &ss))
		return "a peer that is one of slipway's own ports";
	if (mig_vet_published(sh, la, lp, t->guest_port)) {
		/* a client of a published port: its address and port are
		 * the flow's remote, as conf_net_peer_src() shows them */
		conf_net_peer_src(&sh->core, &ss, src, &sport);
		if (!addr_eq(src, t->remote_addr) || sport != t->remote_port)
			return "a published port's client that is not the "
			       "flow's remote";
		return NULL;
	}
	why = core_flow_target(&sh->core, IPPROTO_TCP_, t->guest_addr,
			       t->remote_addr, t->remote_port, target);
	if (why)
		return why;
	if (!addr_eq(target, pa) || pp != t->remote_port)
		return "a peer other than where the guest's destination goes";
	if (!mig_vet_local(sh, la, pa,
			   core_dns_dst(&sh->core, t->remote_addr,
					t->remote_port)))
		return "a local address other than the outbound one";
	if (made && (!v->lports_ok || (v->lports[lp / 64] >> (lp % 64) & 1)))
		return "a local port another socket listens on";
	return NULL;
}

/**
 * mig_vet_tcp_fd() - may the guest have this TCP flow here, with the
 * socket the stream gave?
 * @sh:		shard
 * @v:		state
 * @t:		the flow
 * @fd:		its socket (a TCP socket of its family: mig_sock_ok())
 *
 * #syscalls getsockname getpeername getsockopt
 * Return: NULL, or why not
 */
const char *mig_vet_tcp_fd(struct shard *sh, const struct mig_vet *v,
			   const struct mig_tcp *t, int fd)
{
	struct sockaddr_storage ls, ps;
	socklen_t ll = sizeof(ls), pl = sizeof(ps), al;
	uint8_t la[ADDR_LEN], pa[ADDR_LEN];
	uint16_t lp, pp;
	int acc = 0;

	al = sizeof(acc);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) || acc)
		return "a listening socket for a flow";
	if (getsockname(fd, (struct sockaddr *)&ls, &ll) ||
	    getpeername(fd, (struct sockaddr *)&ps, &pl) ||
	    !sockaddr_to(&ls, la, &lp) || !sockaddr_to(&ps, pa, &pp))
		return "a socket that is not connected";
	return mig_vet_tcp(sh, v, t, la, lp, pa, pp, false);
}

/**
 * mig_vet_tcp_repair() - may the guest have this TCP flow here, its
 * socket made from the repair state that came with it?
 * @sh:		shard
 * @v:		state
 * @t:		the flow
 * @rp:		the socket's repair state
 *
 * Return: NULL, or why not
 */
const char *mig_vet_tcp_repair(struct shard *sh, const struct mig_vet *v,
			       const struct mig_tcp *t,
			       const struct mig_repair *rp)
{
	if (rp->v6 == addr_is4(rp->local) || rp->v6 == addr_is4(rp->peer))
		return "repair state whose addresses are not of its family";
	if (rp->sndq_len > v->wmem_max || rp->rcvq_len > v->rmem_max)
		return "repair state with queues beyond tcp_wmem or tcp_rmem";
	return mig_vet_tcp(sh, v, t, rp->local, rp->lport, rp->peer, rp->pport,
			   true);
}

/**
 * mig_vet_udp_fd() - may the guest have this datagram flow here, with
 * the socket the stream gave?
 * @sh:		shard
 * @u:		the flow
 * @fd:		its socket (a UDP socket of its family)
 *
 * Its socket must be connected where the remote maps to
 * (core_flow_target()), as sock_udp.c connects it, from the outbound
 * address when -o gives one.
 *
 * #syscalls getsockname getpeername
 * Return: NULL, or why not
 */
const char *mig_vet_udp_fd(struct shard *sh, const struct mig_udp *u, int fd)
{
	struct sockaddr_storage ls, ps;
	socklen_t ll = sizeof(ls), pl = sizeof(ps);
	uint8_t target[ADDR_LEN], la[ADDR_LEN], pa[ADDR_LEN];
	uint16_t lp, pp;
	const char *why;

	why = core_flow_target(&sh->core, IPPROTO_UDP_, u->guest_addr,
			       u->remote_addr, u->remote_port, target);
	if (why)
		return why;
	sockaddr_from(&ps, target, u->remote_port);
	if (selfport_reached(&sh->grp->self, IPPROTO_UDP, &ps))
		return "a peer that is one of slipway's own ports";
	if (getsockname(fd, (struct sockaddr *)&ls, &ll) ||
	    !sockaddr_to(&ls, la, &lp))
		return "a socket without an address";
	if (!mig_vet_local(sh, la, target, false))
		return "a local address other than the outbound one";
	if (getpeername(fd, (struct sockaddr *)&ps, &pl) ||
	    !sockaddr_to(&ps, pa, &pp) || !addr_eq(pa, target) ||
	    pp != u->remote_port)
		return "a socket not connected where the guest's destination "
		       "goes";
	return NULL;
}

/**
 * mig_vet_refused() - count a refused flow; the first of a stream is
 * logged with its reason
 * @v:		state
 * @sh:		shard
 * @udp:	a datagram flow (else TCP)
 * @why:	the reason
 */
void mig_vet_refused(struct mig_vet *v, struct shard *sh, bool udp,
		     const char *why)
{
	CTR_INC(&sh->core, MIG_REFUSED_GUEST);
	if (udp)
		CTR_INC(&sh->core, MIG_UDP_REFUSED);
	else
		CTR_INC(&sh->core, MIG_TCP_REFUSED);
	if (!atomic_exchange(&v->said, 1))
		warn("migration: a %s flow refused: %s (no flow the guest "
		     "could open here; any more are counted in "
		     "MIG_REFUSED_GUEST)",
		     udp ? "UDP" : "TCP", why);
}
