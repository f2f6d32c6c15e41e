/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdauto.c - "auto" ports: follow the sockets bound on the other side */

/**
 * DOC: Theory of Operation
 *
 * What auto publishes
 * -------------------
 *
 * Goal: -t auto publishes on the host every TCP port a program in the
 * guest's namespace listens on, -u auto every UDP port bound there (and,
 * as pasta does, the port numbers of its TCP listeners, for programs such
 * as iperf3 that use both), and -T auto makes every TCP port listening on
 * the host reachable on the guest's loopback. A range in front of auto
 * ("-t 8000-8099,auto") or exclusions restrict the ports; an address or
 * interface prefix applies to the host sockets. Ports appear within
 * FWDAUTO_SCAN_MS of being bound and go away as fast once unbound.
 *
 * Finding the bound ports
 * -----------------------
 *
 * How: the kernel sends no event when a socket starts listening. Every
 * FWDAUTO_SCAN_MS, slipway reads the counts of sockets in use of each
 * namespace it follows (/proc/net/sockstat and sockstat6, "inuse": a
 * listen() or a UDP bind() changes them; a few microseconds), and only when
 * one changed, or at least every FWDAUTO_FULL_TICKS checks, lists the bound
 * ports with a NETLINK_SOCK_DIAG dump of the listening TCP sockets (state
 * filter: LISTEN only, so the kernel walks its listening hash alone) and,
 * for -u, of the unconnected UDP ones, per address family, on a sock_diag
 * socket of each namespace: the host's, opened here at start-up, and the
 * guest's, made by the namespace socket helper (nsh.c) inside it, as are
 * its sockstat files. All are opened before the sandbox, which refuses new
 * netlink sockets and has no /proc; afterwards only sendto(), recvfrom()
 * and pread() on them are needed. pasta reads /proc/net/tcp* and udp* once
 * a second instead: text, one line per socket of every state.
 * docs/experiments.md (X20) has the measured cost of a dump and the
 * alternatives tried: a dump costs 45-90 us however few sockets there are,
 * a sockstat read about 2 us.
 *
 * State and loops
 * ---------------
 *
 * State: per auto range, a bitmap of its host ports that are handled,
 * that is, open (a published port with the range's auto_tag, or a -T
 * listener with it) or tried and failed (in use by another program: not
 * tried again until the target goes away and comes back, so a busy port
 * costs no bind() every scan). Each scan computes the ports wanted and
 * opens or closes the difference through fwd.c (fwd_open_rule(),
 * fwd_remove()) and splice.c (splice_tl_add(), splice_tl_remove()).
 *
 * Loops: a port slipway itself listens on in the other direction is never
 * wanted (a -t port seen among the host's listeners for -T, a -T port seen
 * among the guest's for -t), as in pasta.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "svc/fwd.h"
#include "svc/fwdauto.h"
#include "shard/shard.h"
#include "svc/splice.h"
#include "util/log.h"

#define FWDAUTO_SCAN_MS 100   /* the sockstat check: how fast ports follow */
#define FWDAUTO_FULL_TICKS 10 /* a dump at least every this many checks */
#define FWDAUTO_BUF_LEN 32768
#define FWDAUTO_WORDS (65536 / 64)

enum { FA_HOST, FA_GUEST, FA_NS_NUM };		    /* namespaces */
enum { FA_TCP, FA_UDP, FA_PROTO_NUM };		    /* bound-port maps */
enum { FA_DIR_T, FA_DIR_U, FA_DIR_NS, FA_DIR_NUM }; /* -t, -u, -T */

/**
 * struct fwdauto_range - one auto range of the configuration
 * @s:		the range (conf)
 * @dir:	FA_DIR_T, FA_DIR_U or FA_DIR_NS
 * @tag:	1 + its index in its option's array: fwd_rule.auto_tag
 * @done:	bit i: host port @s->first + i is handled (open or failed)
 */
struct fwdauto_range {
	const struct fwd_spec *s;
	int dir;
	unsigned tag;
	uint64_t *done;
};

/**
 * struct fwdauto - auto port following (shard 0)
 * @diag:	sock_diag sockets, by namespace (-1: not needed)
 * @stat:	/proc/net/sockstat and sockstat6, by namespace (-1: none)
 * @sig:	by namespace: the sockets in use when last dumped
 * @quiet_ticks: checks since the last dump
 * @tfd:	the scan timer
 * @need:	which maps each scan fills, [namespace][protocol]
 * @bound:	bound ports, [namespace][protocol], one bit a port
 * @r:		auto ranges
 * @nr:		entries in @r
 * @seq:	netlink sequence number
 * @buf:	receive buffer
 */
struct fwdauto {
	int diag[FA_NS_NUM];
	int stat[FA_NS_NUM][2];
	uint64_t sig[FA_NS_NUM];
	unsigned quiet_ticks;
	int tfd;
	bool need[FA_NS_NUM][FA_PROTO_NUM];
	uint64_t bound[FA_NS_NUM][FA_PROTO_NUM][FWDAUTO_WORDS];
	struct fwdauto_range *r;
	unsigned nr;
	uint32_t seq;
	uint8_t buf[FWDAUTO_BUF_LEN];
};

/**
 * bit_get() - one bit of a bitmap
 * @m:		bitmap
 * @i:		bit
 *
 * Return: the bit
 */
static bool bit_get(const uint64_t *m, unsigned i)
{
	return m[i / 64] >> (i % 64) & 1;
}

/**
 * bit_put() - set or clear one bit of a bitmap
 * @m:		bitmap
 * @i:		bit
 * @v:		value
 */
static void bit_put(uint64_t *m, unsigned i, bool v)
{
	if (v)
		m[i / 64] |= 1ULL << (i % 64);
	else
		m[i / 64] &= ~(1ULL << (i % 64));
}

/**
 * diag_bound_ports() - the ports that sockets of one family and protocol
 * are bound to in a namespace, as its sock_diag socket dumps them
 * @fd:		NETLINK_SOCK_DIAG socket of the namespace
 * @family:	AF_INET or AF_INET6
 * @proto:	IPPROTO_TCP (listening sockets) or IPPROTO_UDP (unconnected)
 * @seq:	a sequence number this dump's messages carry (not the last
 *		dump's: the tail of one cut short is skipped by it)
 * @buf:	room for the answers
 * @len:	its bytes
 * @map:	65,536 bits: set for the ports found
 *
 * #syscalls sendto recvfrom
 * Return: 0, or -errno (the map is then incomplete)
 */
int diag_bound_ports(int fd, int family, int proto, uint32_t seq, uint8_t *buf,
		     size_t len, uint64_t *map)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = seq,
		},
		.r = {
			.sdiag_family = (uint8_t)family,
			.sdiag_protocol = (uint8_t)proto,
			/* UDP: unconnected sockets are in state CLOSE */
			.idiag_states = proto == IPPROTO_TCP ?
						1U << TCP_LISTEN : 1U << TCP_CLOSE,
		},
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl,
		   sizeof(nl)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recvfrom(fd, buf, len, 0, NULL, NULL);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		size_t left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EPROTO;
		for (left = (size_t)n; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);

			if (h->nlmsg_seq != seq)
				continue; /* an earlier dump's tail */
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				return e->error ? e->error : -EPROTO;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				continue;
			if (m->id.idiag_sport)
				bit_put(map, ntohs(m->id.idiag_sport), true);
		}
	}
}

/**
 * fwdauto_dump() - list the bound ports of one family and protocol
 * @fa:		state
 * @fd:		sock_diag socket of the namespace
 * @family:	AF_INET or AF_INET6
 * @proto:	IPPROTO_TCP (listening sockets) or IPPROTO_UDP (unconnected)
 * @map:	bits set for the ports found
 *
 * Return: 0, or -errno (the map is then incomplete)
 */
static int fwdauto_dump(struct fwdauto *fa, int fd, int family, int proto,
			uint64_t *map)
{
	return diag_bound_ports(fd, family, proto, ++fa->seq, fa->buf,
				sizeof(fa->buf), map);
}

/**
 * fwdauto_list() - fill the bound-port maps a scan needs
 * @fa:		state
 *
 * Return: 0, or -errno (a map is incomplete: the scan changes nothing)
 */
static int fwdauto_list(struct fwdauto *fa)
{
	static const int protos[FA_PROTO_NUM] = { IPPROTO_TCP, IPPROTO_UDP };
	static const int fams[2] = { AF_INET, AF_INET6 };
	int ns, p, f, ret;

	for (ns = 0; ns < FA_NS_NUM; ns++) {
		for (p = 0; p < FA_PROTO_NUM; p++) {
			if (!fa->need[ns][p])
				continue;
			memset(fa->bound[ns][p], 0, sizeof(fa->bound[ns][p]));
			for (f = 0; f < 2; f++) {
				ret = fwdauto_dump(fa, fa->diag[ns], fams[f],
						   protos[p], fa->bound[ns][p]);
				/* no IPv6 in that namespace: nothing bound */
				if (ret && !(f && (ret == -ENOENT ||
						   ret == -EAFNOSUPPORT)))
					return ret;
			}
		}
	}
	return 0;
}

/**
 * fwdauto_own_listener() - does slipway publish this host TCP port?
 * @sh:		shard 0
 * @port:	host port
 *
 * Return: true if it does
 */
static bool fwdauto_own_listener(const struct shard *sh, unsigned port)
{
	unsigned i;

	for (i = 0; i < sh->lis.nlisteners; i++)
		if (sh->lis.listeners[i].fd >= 0 &&
		    sh->lis.listeners[i].rule.host_port == port)
			return true;
	return false;
}

/**
 * fwdauto_wanted() - should an auto range's port be open?
 * @sh:		shard 0
 * @r:		the range
 * @target:	the port on the other side (guest port for -t and -u, host
 *		port for -T)
 *
 * Return: true if the target is bound and is not one of slipway's own
 */
static bool fwdauto_wanted(const struct shard *sh,
			   const struct fwdauto_range *r, unsigned target)
{
	const struct fwdauto *fa = sh->svc.fwdauto;

	switch (r->dir) {
	case FA_DIR_T:
		return bit_get(fa->bound[FA_GUEST][FA_TCP], target) &&
		       !splice_tl_port(sh, (uint16_t)target);
	case FA_DIR_U:
		return (bit_get(fa->bound[FA_GUEST][FA_UDP], target) ||
			bit_get(fa->bound[FA_GUEST][FA_TCP], target)) &&
		       !splice_tl_port(sh, (uint16_t)target);
	default:
		return bit_get(fa->bound[FA_HOST][FA_TCP], target) &&
		       !fwdauto_own_listener(sh, target);
	}
}

/**
 * fwdauto_open() - open one port of an auto range
 * @sh:		shard 0
 * @r:		the range
 * @port:	its host port (-T: its guest loopback port)
 *
 * Return: 0, or -errno
 */
static int fwdauto_open(struct shard *sh, const struct fwdauto_range *r,
			unsigned port)
{
	unsigned target = r->s->guest_first + (port - r->s->first);
	struct fwd_rule rule;
	int ret, r6;

	if (r->dir == FA_DIR_NS) {
		ret = splice_tl_add(sh, AF_INET, (uint16_t)port,
				    (uint16_t)target, r->tag);
		if (ret)
			return ret;
		r6 = splice_tl_add(sh, AF_INET6, (uint16_t)port,
				   (uint16_t)target, r->tag);
		if (r6 && r6 != -EAFNOSUPPORT && r6 != -EADDRNOTAVAIL)
			debug("auto -T: guest ::1 port %u: %s", port,
			      strerror(-r6));
		info("auto -T: guest loopback port %u -> host port %u", port,
		     target);
		return 0;
	}
	fwd_rule_from(sh, r->s, r->dir == FA_DIR_U ? IPPROTO_UDP : IPPROTO_TCP,
		      port, &rule);
	rule.auto_tag = r->tag;
	ret = fwd_open_rule(sh, &rule);
	return ret < 0 ? ret : 0;
}

/**
 * fwdauto_close() - close one port of an auto range
 * @sh:		shard 0
 * @r:		the range
 * @port:	its host port (-T: its guest loopback port)
 *
 * Return: true if something was open
 */
static bool fwdauto_close(struct shard *sh, const struct fwdauto_range *r,
			  unsigned port)
{
	struct fwdauto *fa = sh->svc.fwdauto;
	unsigned id;

	/* the listing of this scan saw our own socket there: it must not
	 * make the other direction take the port now it is free */
	if (r->dir == FA_DIR_NS) {
		bit_put(fa->bound[FA_GUEST][FA_TCP], port, false);
		if (!splice_tl_remove(sh, (uint16_t)port, r->tag))
			return false;
		info("auto -T: guest loopback port %u closed", port);
		return true;
	}
	if (r->dir == FA_DIR_T)
		bit_put(fa->bound[FA_HOST][FA_TCP], port, false);
	id = fwd_find_auto(sh, r->dir == FA_DIR_U ? IPPROTO_UDP : IPPROTO_TCP,
			   r->tag, (uint16_t)port);
	return id && !fwd_remove(sh, id);
}

/**
 * fwdauto_sync() - open and close an auto range's ports to match the maps
 * @sh:		shard 0
 * @r:		the range
 */
static void fwdauto_sync(struct shard *sh, struct fwdauto_range *r)
{
	const struct fwdauto *fa = sh->svc.fwdauto;
	const uint64_t *bound[2];
	unsigned len = (unsigned)(r->s->last - r->s->first) + 1;
	unsigned gfirst = r->s->guest_first, glast = gfirst + len - 1;
	unsigned w, i, nb = 1;
	int ret;

	/* closing first: a port that went away is free again for the other
	 * direction in the same scan */
	for (w = 0; w < (len + 63) / 64; w++) {
		uint64_t m = r->done[w];

		while (m) {
			i = w * 64 + (unsigned)__builtin_ctzll(m);
			m &= m - 1;
			if (fwdauto_wanted(sh, r, gfirst + i))
				continue;
			if (fwdauto_close(sh, r, r->s->first + i))
				CTR_INC(&sh->core, FWD_AUTO_REMOVED);
			bit_put(r->done, i, false);
		}
	}
	if (r->dir == FA_DIR_NS) {
		bound[0] = fa->bound[FA_HOST][FA_TCP];
	} else {
		bound[0] = fa->bound[FA_GUEST][FA_TCP];
		if (r->dir == FA_DIR_U)
			bound[nb++] = fa->bound[FA_GUEST][FA_UDP];
	}
	for (w = gfirst / 64; w <= glast / 64; w++) {
		uint64_t m = bound[0][w] | (nb > 1 ? bound[1][w] : 0);

		while (m) {
			unsigned t = w * 64 + (unsigned)__builtin_ctzll(m);

			m &= m - 1;
			if (t < gfirst || t > glast ||
			    bit_get(r->done, t - gfirst) ||
			    !fwdauto_wanted(sh, r, t))
				continue;
			bit_put(r->done, t - gfirst, true);
			ret = fwdauto_open(sh, r, r->s->first + (t - gfirst));
			if (!ret) {
				CTR_INC(&sh->core, FWD_AUTO_ADDED);
				continue;
			}
			CTR_INC(&sh->core, FWD_AUTO_FAILED);
			debug("auto %s port %u (bound on the other side): not "
			      "opened: %s",
			      r->dir == FA_DIR_T ? "-t" :
			      r->dir == FA_DIR_U ? "-u" :
						   "-T",
			      r->s->first + (t - gfirst), strerror(-ret));
		}
	}
}

/**
 * fwdauto_scan() - list the bound ports and follow them
 * @sh:		shard 0
 */
static void fwdauto_scan(struct shard *sh)
{
	struct fwdauto *fa = sh->svc.fwdauto;
	unsigned i;
	int ret;

	CTR_INC(&sh->core, FWD_AUTO_SCANS);
	ret = fwdauto_list(fa);
	if (ret) {
		CTR_INC(&sh->core, FWD_AUTO_SCAN_ERRORS);
		errno = -ret;
		warn_perror_rl("auto ports: cannot list the bound sockets");
		return;
	}
	for (i = 0; i < fa->nr; i++)
		fwdauto_sync(sh, &fa->r[i]);
}

/**
 * fwdauto_sig() - the numbers of sockets in use in a namespace, in one
 * value: what /proc/net/sockstat and sockstat6 say after "inuse"
 * @fa:		state
 * @ns:		FA_HOST or FA_GUEST
 * @sig:	out
 *
 * A socket starting or stopping to listen, or binding a UDP port, changes
 * a count: reading them (a few microseconds) tells whether a dump (tens
 * of microseconds: the kernel walks its TCP listening hash, and its whole
 * UDP table) can find anything new. A listener closed and another opened between two checks
 * leave the counts alone: the dump every FWDAUTO_FULL_TICKS finds them.
 *
 * #syscalls pread64
 * Return: 0, or -1 (no count to read: dump every time)
 */
static int fwdauto_sig(struct fwdauto *fa, int ns, uint64_t *sig)
{
	char buf[512];
	int f;

	*sig = 0;
	for (f = 0; f < 2; f++) {
		const char *p = buf;
		ssize_t n;

		if (fa->stat[ns][f] < 0)
			return -1;
		n = pread(fa->stat[ns][f], buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return -1;
		buf[n] = '\0';
		while ((p = strstr(p, "inuse "))) {
			p += 6;
			*sig = *sig * 1000003 + strtoull(p, NULL, 10);
		}
	}
	return 0;
}

/**
 * fwdauto_event() - the timer fired: if the sockets in use changed in a
 * namespace we follow, or a while passed, list the bound ports and follow
 * them
 * @sh:		shard 0
 * @idx:	unused (EP_FWD_AUTO has one fd, the timer)
 * @events:	unused
 *
 * #syscalls read
 */
void fwdauto_event(struct shard *sh, uint32_t idx, uint32_t events)
{
	struct fwdauto *fa = sh->svc.fwdauto;
	bool changed = false;
	uint64_t ticks, sig;
	int ns;

	if (!fa)
		return;
	if (read(fa->tfd, &ticks, sizeof(ticks)) < 0 && errno == EAGAIN)
		return;
	for (ns = 0; ns < FA_NS_NUM; ns++) {
		if (fa->diag[ns] < 0)
			continue;
		if (fwdauto_sig(fa, ns, &sig) || sig != fa->sig[ns])
			changed = true;
		fa->sig[ns] = sig;
	}
	if (!changed && ++fa->quiet_ticks < FWDAUTO_FULL_TICKS)
		return;
	fa->quiet_ticks = 0;
	fwdauto_scan(sh);
}

/**
 * fwdauto_add_ranges() - take the auto ranges of one option
 * @fa:		state
 * @specs:	the option's ranges
 * @n:		how many
 * @dir:	FA_DIR_T, FA_DIR_U or FA_DIR_NS
 *
 * Return: 0, or -ENOMEM
 */
static int fwdauto_add_ranges(struct fwdauto *fa, const struct fwd_spec *specs,
			      unsigned n, int dir)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct fwdauto_range *r;
		unsigned len;

		if (!(specs[i].flags & FWD_SPEC_AUTO))
			continue;
		r = realloc(fa->r, (fa->nr + 1) * sizeof(*r));
		if (!r)
			return -ENOMEM;
		fa->r = r;
		r = &fa->r[fa->nr];
		len = (unsigned)(specs[i].last - specs[i].first) + 1;
		r->done = calloc((len + 63) / 64, sizeof(uint64_t));
		if (!r->done)
			return -ENOMEM;
		r->s = &specs[i];
		r->dir = dir;
		r->tag = i + 1;
		fa->nr++;
		if (dir == FA_DIR_NS) {
			fa->need[FA_HOST][FA_TCP] = true;
		} else {
			fa->need[FA_GUEST][FA_TCP] = true;
			if (dir == FA_DIR_U)
				fa->need[FA_GUEST][FA_UDP] = true;
		}
	}
	return 0;
}

/**
 * fwdauto_init() - open the sock_diag sockets and the timer, scan once
 * @sh:		shard 0, after fwd_init() and splice_init()
 *
 * Context: start-up, before the sandbox (netlink sockets are refused
 * after it)
 * #syscalls:setup socket timerfd_create timerfd_settime openat close
 * Return: 0, or -errno (logged)
 */
int fwdauto_init(struct shard *sh)
{
	struct itimerspec its = {
		.it_interval.tv_nsec = FWDAUTO_SCAN_MS * 1000000L,
		.it_value.tv_nsec = FWDAUTO_SCAN_MS * 1000000L,
	};
	const struct conf *c = sh->conf;
	struct fwdauto *fa;
	int ret, f, ns;

	sh->svc.fwdauto = NULL;
	if (!conf_has_auto(c))
		return 0;
	fa = calloc(1, sizeof(*fa));
	if (!fa) {
		err("out of memory for auto ports");
		return -ENOMEM;
	}
	fa->diag[FA_HOST] = fa->diag[FA_GUEST] = fa->tfd = -1;
	for (ns = 0; ns < FA_NS_NUM; ns++)
		fa->stat[ns][0] = fa->stat[ns][1] = -1;
	sh->svc.fwdauto = fa;
	if (fwdauto_add_ranges(fa, c->fwd, c->nfwd, FA_DIR_T) ||
	    fwdauto_add_ranges(fa, c->ufwd, c->nufwd, FA_DIR_U) ||
	    fwdauto_add_ranges(fa, c->nsfwd, c->nnsfwd, FA_DIR_NS)) {
		err("out of memory for auto ports");
		ret = -ENOMEM;
		goto out;
	}
	if (fa->need[FA_HOST][FA_TCP]) {
		fa->diag[FA_HOST] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
					   NETLINK_SOCK_DIAG);
		if (fa->diag[FA_HOST] < 0) {
			ret = -errno;
			err_perror("auto: cannot open a sock_diag socket");
			goto out;
		}
	}
	if (fa->need[FA_GUEST][FA_TCP]) {
		ret = splice_nsh_diag(sh);
		if (ret < 0) {
			errno = -ret;
			err_perror("auto: no sock_diag socket in the guest's "
				   "namespace");
			goto out;
		}
		fa->diag[FA_GUEST] = ret;
		for (f = 0; f < 2; f++) {
			ret = splice_nsh_sockstat(sh, f ? AF_INET6 : AF_INET);
			fa->stat[FA_GUEST][f] = ret < 0 ? -1 : ret;
		}
	}
	if (fa->diag[FA_HOST] >= 0) {
		fa->stat[FA_HOST][0] = open("/proc/net/sockstat",
					    O_RDONLY | O_CLOEXEC);
		fa->stat[FA_HOST][1] = open("/proc/net/sockstat6",
					    O_RDONLY | O_CLOEXEC);
	}
	for (ns = 0; ns < FA_NS_NUM; ns++) {
		if (fa->diag[ns] < 0)
			continue;
		if (fwdauto_sig(fa, ns, &fa->sig[ns]))
			info("auto ports: no /proc/net/sockstat%s for the %s: "
			     "dumping the sockets every %u ms",
			     fa->stat[ns][0] < 0 ? "" : "6",
			     ns == FA_HOST ? "host" : "guest", FWDAUTO_SCAN_MS);
	}
	fa->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fa->tfd < 0 || timerfd_settime(fa->tfd, 0, &its, NULL) ||
	    shard_ep_add(sh, fa->tfd, EPOLLIN, EP_DATA(EP_FWD_AUTO, 0))) {
		ret = -errno;
		err_perror("auto: cannot set up the scan timer");
		goto out;
	}
	fwdauto_scan(sh);
	return 0;
out:
	fwdauto_fini(sh);
	return ret;
}

/**
 * fwdauto_fini() - close and free what fwdauto_init() made (the ports it
 * opened are fwd.c's and splice.c's)
 * @sh:		shard 0
 *
 * #syscalls close
 */
void fwdauto_fini(struct shard *sh)
{
	struct fwdauto *fa = sh->svc.fwdauto;
	unsigned i;

	if (!fa)
		return;
	for (i = 0; i < FA_NS_NUM; i++) {
		if (fa->diag[i] >= 0)
			close(fa->diag[i]);
		if (fa->stat[i][0] >= 0)
			close(fa->stat[i][0]);
		if (fa->stat[i][1] >= 0)
			close(fa->stat[i][1]);
	}
	if (fa->tfd >= 0)
		close(fa->tfd);
	for (i = 0; i < fa->nr; i++)
		free(fa->r[i].done);
	free(fa->r);
	free(fa);
	sh->svc.fwdauto = NULL;
}
