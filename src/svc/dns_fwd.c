/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dns_fwd.c - DNS forwarder: the guest's queries to the host's resolvers
 *
 * DOC: Theory of Operation
 *
 * Queries and their upstreams
 * ---------------------------
 *
 * The guest sends DNS over UDP to port 53 of conf.dns4_be or, over IPv6,
 * conf.dns6; the core turns each such datagram into an FX_DNS_QUERY
 * intent, and dns_fwd_query() relays it to
 * the host's resolvers, the "nameserver" lines of resolv.conf (at most
 * three, IPv4 or IPv6, loopback ones such as systemd-resolved's 127.0.0.53
 * included: our sockets live in the host's namespace). DNS over TCP does
 * not pass here: the TCP code connects it to conf.dns4_upstream_be, which
 * this file keeps pointing at the preferred IPv4 upstream. The answer goes
 * back in the family the query came in, from the DNS address of that
 * family: the upstreams' families do not matter to the guest.
 *
 * Goals: answer every valid query exactly once (a relayed reply, or a
 * made-up SERVFAIL when no upstream answers within the budget), never block
 * the loop, never allocate after dns_fwd_init(), and accept only replies
 * that answer a query we sent, from the address we sent it to.
 *
 * Queries in flight
 * -----------------
 *
 * The guest's bytes are read once: dns_fwd_query() copies the datagram
 * into our own memory before it looks at it, and parses and sends only
 * that copy. Under vhost-user the datagram may still be in guest memory,
 * which the guest can rewrite at any moment: checking it in place and
 * copying it afterwards would let a query that passed the checks change
 * before it is stored. The parsed question is kept with the query, so
 * nothing derived from the guest is parsed twice.
 *
 * Queries in flight live in a fixed table (DNS_INFLIGHT_MAX). Each gets a
 * fresh upstream ID, unpredictable (SipHash of a counter under a random
 * key) and unused by the others, so replies are found through a 64 Ki
 * entry map; the guest's own ID is put back in the reply. The entry keeps
 * the copy of the query (for retransmission), its parsed header and
 * question (to match replies against, and for made-up answers), the
 * guest's address and port, the addresses it was sent to and the sockets
 * it used.
 *
 * Sockets and forged replies
 * --------------------------
 *
 * Sockets: a pool of DNS_SOCKS unconnected, non-blocking UDP sockets per
 * address family, each bound to port 0, so that the kernel gives it a
 * random ephemeral port; one per family is opened at start-up, the others
 * when a query first picks their slot. A query uses one socket of a
 * family, picked at random among those not retiring, for all its attempts
 * to upstreams of that family. A socket retires after DNS_SOCK_USES
 * queries; once its last query has ended it is closed and replaced by a
 * new one, on a new random port (DNS_SOCK_RENEWED; if no new socket can
 * be had, the old one serves another round).
 * So an off-path attacker who wants a forged reply accepted must guess
 * the 16-bit ID and a source port that changes every few queries, and
 * cannot learn either from an earlier query. IP_RECVERR/IPV6_RECVERR make
 * ICMP errors arrive on a socket's error queue with the original
 * datagram, so a refused or unreachable upstream is known at once, for
 * that very query.
 *
 * A reply is relayed if it arrives on the socket the query used, from
 * port 53 of an address the query was sent to, carries its upstream ID,
 * and asks the same question (type, class, and the name compared without
 * ASCII case: RFC 4343, and 0x20 randomisation upstream). Every reply must
 * have that question, error replies too: one without a question (some
 * servers answer FORMERR or REFUSED that way) proves nothing about the
 * query, so it is dropped like a forged one, and the query fails over or
 * times out. Truncated replies (TC) are relayed as they are, and the guest
 * retries over TCP. A reply too large for one frame toward the guest
 * (never at the default MTU: the guest's EDNS size caps it) is replaced by
 * an empty one with TC set, which has the same effect.
 *
 * Timeouts and failover
 * ---------------------
 *
 * A query may be sent max(2, upstreams) times, each
 * time to the next upstream, within DNS_BUDGET_NS in all (4 s, under the
 * 5 s a glibc stub waits), so each attempt gets the budget divided by the
 * attempts (2 s with one or two upstreams). An attempt ends early on an
 * ICMP error or a failed send (failover at once), or when an upstream
 * answers SERVFAIL, NOTIMP or REFUSED while another one remains untried (as
 * glibc's stub would do, since the guest sees only us). A late reply from
 * an upstream tried earlier is still accepted. When the attempts are used
 * up, the guest gets SERVFAIL built from the question. The upstream that
 * failed becomes non-preferred: later queries start at the next one, so a
 * dead first nameserver costs one timeout, not one per query.
 *
 * Timers: our own timerfd (EP_DNS index DNS_EP_TIMER), armed at the
 * first deadline of a list kept in deadline order. It is re-armed only to
 * an earlier time; a wake-up that finds nothing due just re-arms it to the
 * new head.
 *
 * Reloads of the resolver list
 * ----------------------------
 *
 * Reloads: the sandboxed gateway keeps no path to resolv.conf (its
 * directory is /etc). The resolv.conf reader (resolvh.c), a helper process
 * that keeps the directories of the path and of its symlink target,
 * watches them with inotify (editors and resolvconf replace the file by
 * rename; systemd-resolved points a symlink at a file it renames over) and
 * sends the contents at start and after each change, one message per
 * update, on a socket (EP_DNS index DNS_EP_RESOLV); the text is parsed
 * here. Queries in flight carry on with the new list. A file that has
 * disappeared keeps the old list. Without the reader (it could not start,
 * or exited), the file read at start stays in force.
 *
 * Counters and logging
 * --------------------
 *
 * Every query the core counts in DNS_QUERIES ends as exactly one
 * of DNS_REPLIES (relayed), DNS_SERVFAIL (made up: no upstream, or all
 * failed), DNS_DROP_BAD (malformed, or over DNS_QUERY_MAX; opcode other
 * than QUERY gets a NOTIMP answer and a question count other than one a
 * FORMERR answer, still counted here) or DNS_DROP_FULL, or is still in
 * flight. Replies we refuse are counted by reason: DNS_REPLY_DROP_BAD
 * (malformed), DNS_REPLY_DROP_ID (no query in flight has the ID: late, or
 * forged), DNS_REPLY_DROP_SRC (another address, port or socket than the
 * query's) and DNS_REPLY_DROP_QUESTION (no question, or another one); the
 * query they claim to answer carries on.
 *
 * Logging: per-query events only at trace level; a failing upstream is
 * warned about once per reload.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/errqueue.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/dns.h"
#include "core/udp.h"
#include "svc/dns_fwd.h"
#include "os/resolvh.h"
#include "os/sockaddr.h"
#include "shard/shard.h"
#include "util/log.h"
#include "util/siphash.h"

#define DNS_UPSTREAMS_MAX 3 /* as glibc's MAXNS */
#define DNS_INFLIGHT_MAX 1024
#define DNS_QUERY_MAX \
	1232 /* longer ones are dropped (DNS Flag Day 2020 size) */
#define DNS_BUDGET_NS (4000ULL * 1000 * 1000)
#define DNS_RX_BURST 64
#define DNS_RESOLV_MAX \
	(RESOLVH_TEXT_MAX + 1) /* resolv.conf read, and its NUL */
#define DNS_SEARCH_MAX 256
#define DNS_NAME_LEN (INET6_ADDRSTRLEN + IF_NAMESIZE + 1)
#define DNS_SOCKS 8	 /* upstream sockets per address family */
#define DNS_SOCK_USES 16 /* queries a socket carries, then it is replaced */
#define DNS_SK_NONE 0xff /* struct dns_query.sk: no socket yet */

/* EP_DATA(EP_DNS, n) indices: the timer, the resolv.conf reader, then the
 * upstream sockets (slot k at DNS_EP_SOCK + k: DNS_SOCKS IPv4 ones, then
 * DNS_SOCKS IPv6 ones) */
enum dns_ep {
	DNS_EP_TIMER,
	DNS_EP_RESOLV,
	DNS_EP_SOCK,
	DNS_EP_NUM = DNS_EP_SOCK + 2 * DNS_SOCKS
};

_Static_assert(2 * DNS_SOCKS < DNS_SK_NONE, "socket slots fit in uint8_t");

/**
 * union dns_sa - a socket address of either family
 * @sa:	generic
 * @v4:	AF_INET
 * @v6:	AF_INET6
 */
union dns_sa {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/**
 * struct dns_upstream - one resolver from resolv.conf
 * @sa:		its address, port 53
 * @warned:	a failure was logged since the last reload
 * @name:	the address as written, for logs
 */
struct dns_upstream {
	union dns_sa sa;
	bool warned;
	char name[DNS_NAME_LEN];
};

/**
 * struct dns_query - one query in flight (or a free entry)
 * @prev:	deadline list: previous entry (index + 1, 0 = none)
 * @next:	deadline list: next entry; free list: next free entry
 * @deadline_ns:	end of the current attempt
 * @attempt_ns:	time each attempt gets
 * @opened_ns:	when the guest's query came (ctl flows)
 * @gaddr:	the guest's address (IPv4 v4-mapped: the family to answer in)
 * @gport:	the guest's port
 * @up_id:	our ID toward the upstreams (written into @msg)
 * @len:	bytes in @msg
 * @used:	entry in use
 * @tries:	attempts sent so far
 * @attempts:	attempts allowed
 * @first:	upstream index of the first attempt
 * @cur:	upstream index of the current attempt
 * @gen:	upstream list generation @cur refers to
 * @nsent:	addresses in @sent
 * @last:	index in @sent of the current attempt's address
 * @sk:		socket slot used toward IPv4 [0] and IPv6 [1] upstreams,
 *		DNS_SK_NONE if none yet
 * @sent:	addresses the query went to (replies from these are accepted)
 * @qm:		the query's header and question, parsed from @msg before it
 *		was sent, with the guest's ID: replies are matched against
 *		it and made-up answers built from it
 * @msg:	the query as sent upstream (our copy of the guest's bytes)
 */
struct dns_query {
	uint32_t prev;
	uint32_t next;
	uint64_t deadline_ns;
	uint64_t attempt_ns;
	uint64_t opened_ns;
	uint8_t gaddr[ADDR_LEN];
	uint16_t gport;
	uint16_t up_id;
	uint16_t len;
	uint8_t used;
	uint8_t tries;
	uint8_t attempts;
	uint8_t first;
	uint8_t cur;
	uint8_t nsent;
	uint8_t last;
	uint8_t sk[2];
	uint32_t gen;
	union dns_sa sent[DNS_UPSTREAMS_MAX];
	struct dns_msg qm;
	uint8_t msg[DNS_QUERY_MAX];
};

/**
 * struct dns_sock - use of one upstream socket slot
 * @uses:	queries that picked it since it was opened
 * @inflight:	of those, queries still in flight
 */
struct dns_sock {
	uint32_t uses;
	uint32_t inflight;
};

/**
 * struct dns_fwd - the forwarder of one shard
 * @fd:		timerfd, resolv.conf reader and the upstream socket slots
 *		(-1: none), by enum dns_ep
 * @path:	resolv.conf path as given
 * @up:		upstreams
 * @nup:	entries in @up
 * @pref:	index of the preferred upstream (queries start there)
 * @gen:	upstream list generation, bumped on each reload
 * @search:	search list ("search" or "domain", the last one wins), kept
 *		for later use
 * @armed_ns:	time the timerfd is set to, 0 if disarmed
 * @sk:		use of each upstream socket slot (@fd[DNS_EP_SOCK + k])
 * @key:	SipHash key for upstream IDs and socket picks
 * @rnd_ctr:	counter hashed into random numbers
 * @free_head:	first free entry (index + 1, 0 = table full)
 * @head:	earliest deadline (index + 1)
 * @tail:	latest deadline (index + 1)
 * @idmap:	upstream ID to entry (index + 1, 0 = unused)
 * @q:		query table
 * @rbuf:	receive buffer; also scratch for reading resolv.conf
 *
 * Ownership: allocated by dns_fwd_init(), owned by the shard (sh->svc.dns).
 */
struct dns_fwd {
	int fd[DNS_EP_NUM];
	char path[PATH_MAX];
	struct dns_upstream up[DNS_UPSTREAMS_MAX];
	unsigned nup;
	unsigned pref;
	uint32_t gen;
	char search[DNS_SEARCH_MAX];
	uint64_t armed_ns;
	struct dns_sock sk[2 * DNS_SOCKS];
	uint8_t key[16];
	uint64_t rnd_ctr;
	uint32_t free_head;
	uint32_t head;
	uint32_t tail;
	uint16_t idmap[65536];
	struct dns_query q[DNS_INFLIGHT_MAX];
	uint8_t rbuf[65536];
};

_Static_assert(DNS_INFLIGHT_MAX < 65536, "idmap holds index + 1 in 16 bits");
_Static_assert(DNS_RESOLV_MAX <= sizeof(((struct dns_fwd *)0)->rbuf),
	       "resolv.conf is read into rbuf");

/**
 * dns_qidx() - index + 1 of a query entry
 * @d:	forwarder
 * @q:	entry
 *
 * Return: index + 1
 */
static uint32_t dns_qidx(const struct dns_fwd *d, const struct dns_query *q)
{
	return (uint32_t)(q - d->q) + 1;
}

/**
 * dns_unlink() - take a query off the deadline list
 * @d:	forwarder
 * @q:	entry on the list
 */
static void dns_unlink(struct dns_fwd *d, struct dns_query *q)
{
	if (q->prev)
		d->q[q->prev - 1].next = q->next;
	else
		d->head = q->next;
	if (q->next)
		d->q[q->next - 1].prev = q->prev;
	else
		d->tail = q->prev;
	q->prev = q->next = 0;
}

/**
 * dns_insert() - put a query on the deadline list, in deadline order
 * @d:	forwarder
 * @q:	entry, not on the list, @deadline_ns set
 *
 * Deadlines mostly grow, so the walk from the tail is usually one step.
 */
static void dns_insert(struct dns_fwd *d, struct dns_query *q)
{
	uint32_t after = d->tail, i = dns_qidx(d, q);

	while (after && d->q[after - 1].deadline_ns > q->deadline_ns)
		after = d->q[after - 1].prev;
	q->prev = after;
	if (after) {
		q->next = d->q[after - 1].next;
		d->q[after - 1].next = i;
	} else {
		q->next = d->head;
		d->head = i;
	}
	if (q->next)
		d->q[q->next - 1].prev = i;
	else
		d->tail = i;
}

/**
 * dns_timer_sync() - arm the timerfd if something is due before it fires
 * @d:	forwarder
 *
 * #syscalls timerfd_settime
 */
static void dns_timer_sync(struct dns_fwd *d)
{
	struct itimerspec its = { 0 };
	uint64_t t = 0;

	if (d->head)
		t = d->q[d->head - 1].deadline_ns;
	if (!t || (d->armed_ns && d->armed_ns <= t))
		return;
	its.it_value.tv_sec = (time_t)(t / 1000000000ULL);
	its.it_value.tv_nsec = (long)(t % 1000000000ULL);
	if (timerfd_settime(d->fd[DNS_EP_TIMER], TFD_TIMER_ABSTIME, &its,
			    NULL)) {
		warn_perror("DNS timerfd_settime");
		return;
	}
	d->armed_ns = t;
}

/**
 * dns_rand() - an unpredictable 64-bit number
 * @d:	forwarder
 *
 * SipHash of a counter under the key getrandom() gave at start-up.
 *
 * Return: the number
 */
static uint64_t dns_rand(struct dns_fwd *d)
{
	uint64_t ctr = d->rnd_ctr++;

	return siphash24(d->key, &ctr, sizeof(ctr));
}

/**
 * dns_id_alloc() - pick an unpredictable upstream ID nobody in flight uses
 * @d:	forwarder
 *
 * With at most DNS_INFLIGHT_MAX of 65536 IDs taken, a random pick is free
 * with probability > 98%; after 16 misses, walk from the last pick.
 *
 * Return: ID
 */
static uint16_t dns_id_alloc(struct dns_fwd *d)
{
	uint16_t id = 0;
	unsigned i;

	for (i = 0; i < 16; i++) {
		id = (uint16_t)dns_rand(d);
		if (!d->idmap[id])
			return id;
	}
	while (d->idmap[id])
		id++;
	return id;
}

/**
 * dns_sa_eq() - same address and port?
 * @a:	address
 * @b:	address
 *
 * Return: true if equal (IPv6 scopes compared only if both are set)
 */
static bool dns_sa_eq(const union dns_sa *a, const union dns_sa *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->v4.sin_port == b->v4.sin_port &&
		       a->v4.sin_addr.s_addr == b->v4.sin_addr.s_addr;
	if (a->sa.sa_family == AF_INET6)
		return a->v6.sin6_port == b->v6.sin6_port &&
		       !memcmp(&a->v6.sin6_addr, &b->v6.sin6_addr, 16) &&
		       (!a->v6.sin6_scope_id || !b->v6.sin6_scope_id ||
			a->v6.sin6_scope_id == b->v6.sin6_scope_id);
	return false;
}

/**
 * dns_sa_len() - length of a socket address for sendto()
 * @a:	address
 *
 * Return: bytes
 */
static socklen_t dns_sa_len(const union dns_sa *a)
{
	return a->sa.sa_family == AF_INET ? sizeof(a->v4) : sizeof(a->v6);
}

/**
 * dns_sock_open() - an unconnected upstream socket, on a random port
 * @sh:		shard
 * @family:	AF_INET or AF_INET6
 * @idx:	enum dns_ep index for epoll
 *
 * Bound to port 0 of the wildcard address: the kernel picks a random free
 * port in the ephemeral range (net.ipv4.ip_local_port_range). Not to the
 * outbound address or interface (-o, --outbound-if4/6): the queries are
 * ours, to the host's own resolvers, which are often on host loopback
 * (127.0.0.53) where no other interface leads, and they may change with
 * resolv.conf while this socket lives.
 *
 * #syscalls socket setsockopt bind close
 * Return: socket, or -errno
 */
static int dns_sock_open(struct shard *sh, int family, unsigned idx)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, ret;
	union dns_sa any;

	if (fd < 0)
		return -errno;
	memset(&any, 0, sizeof(any));
	any.sa.sa_family = (sa_family_t)family;
	if (family == AF_INET6 &&
	    (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
	     setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one))))
		goto out_close;
	if (family == AF_INET &&
	    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)))
		goto out_close;
	if (bind(fd, &any.sa, dns_sa_len(&any)))
		goto out_close;
	if (shard_ep_add(sh, fd, EPOLLIN, EP_DATA(EP_DNS, idx)))
		goto out_close;
	return fd;
out_close:
	ret = -errno;
	close(fd);
	return ret;
}

/**
 * dns_fam() - the socket family index of an address family
 * @family:	AF_INET or AF_INET6
 *
 * Return: 0 for IPv4, 1 for IPv6 (index into struct dns_query.sk; slots
 *	   of family f are f * DNS_SOCKS to f * DNS_SOCKS + DNS_SOCKS - 1)
 */
static unsigned dns_fam(int family)
{
	return family == AF_INET6;
}

/**
 * dns_fam_open() - does a family have an upstream socket?
 * @d:	forwarder
 * @f:	family index (dns_fam())
 *
 * Return: true if at least one of its slots is open
 */
static bool dns_fam_open(const struct dns_fwd *d, unsigned f)
{
	unsigned i;

	for (i = 0; i < DNS_SOCKS; i++) {
		if (d->fd[DNS_EP_SOCK + f * DNS_SOCKS + i] >= 0)
			return true;
	}
	return false;
}

/**
 * dns_sock_pick() - the socket slot a query uses toward one family
 * @sh:	shard
 * @q:	entry
 * @f:	family index (dns_fam())
 *
 * The first use in a family picks a slot at random; a slot not open yet
 * gets its socket now (only slot 0 of each family is opened at start-up,
 * so that a small fd limit is not used up by sockets no query needed).
 * If that slot is retiring (DNS_SOCK_USES reached) or cannot be opened,
 * the next open one that is not retiring is taken, or, if all are, any
 * open one. The query keeps its slot for its later attempts, so a late
 * reply to an earlier attempt still arrives where it is expected.
 *
 * Return: slot index, or -1 if the family has no open socket
 */
static int dns_sock_pick(struct shard *sh, struct dns_query *q, unsigned f)
{
	struct dns_fwd *d = sh->svc.dns;
	unsigned i, start, k, pick = DNS_SK_NONE;

	if (q->sk[f] != DNS_SK_NONE)
		return q->sk[f];
	if (!dns_fam_open(d, f))
		return -1; /* none at start-up: the family is not supported */
	start = (unsigned)(dns_rand(d) % DNS_SOCKS);
	k = f * DNS_SOCKS + start;
	if (d->fd[DNS_EP_SOCK + k] < 0) {
		int fd = dns_sock_open(sh, f ? AF_INET6 : AF_INET,
				       DNS_EP_SOCK + k);

		if (fd >= 0) {
			d->fd[DNS_EP_SOCK + k] = fd;
			d->sk[k].uses = 0;
		}
	}
	for (i = 0; i < DNS_SOCKS; i++) {
		k = f * DNS_SOCKS + (start + i) % DNS_SOCKS;
		if (d->fd[DNS_EP_SOCK + k] < 0)
			continue;
		if (pick == DNS_SK_NONE)
			pick = k;
		if (d->sk[k].uses < DNS_SOCK_USES) {
			pick = k;
			break;
		}
	}
	if (pick == DNS_SK_NONE)
		return -1;
	d->sk[pick].uses++;
	d->sk[pick].inflight++;
	q->sk[f] = (uint8_t)pick;
	return (int)pick;
}

/**
 * dns_set_tcp_upstream() - point DNS over TCP at the preferred IPv4 upstream
 * @sh:	shard
 *
 * The first IPv4 upstream from the preferred one on (0: none, and the TCP
 * code refuses).
 */
static void dns_set_tcp_upstream(struct shard *sh)
{
	struct dns_fwd *d = sh->svc.dns;
	uint32_t a = 0;
	unsigned i;

	for (i = 0; i < d->nup; i++) {
		const struct dns_upstream *u = &d->up[(d->pref + i) % d->nup];

		if (u->sa.sa.sa_family == AF_INET) {
			a = u->sa.v4.sin_addr.s_addr;
			break;
		}
	}
	sh->core.conf.dns4_upstream_be = a;
}

/**
 * dns_upstream_failed() - an attempt at an upstream failed: prefer the next
 * @sh:		shard
 * @q:		the query whose attempt failed
 * @why:	for the log (once per upstream and reload)
 */
static void dns_upstream_failed(struct shard *sh, const struct dns_query *q,
				const char *why)
{
	struct dns_fwd *d = sh->svc.dns;
	struct dns_upstream *u;

	if (q->gen != d->gen || q->cur >= d->nup)
		return; /* the list changed since */
	u = &d->up[q->cur];
	if (!u->warned) {
		u->warned = true;
		warn("DNS upstream %s: %s%s", u->name, why,
		     d->nup > 1 ? ", trying the next one" : "");
	}
	if (d->pref == q->cur && d->nup > 1) {
		d->pref = (d->pref + 1) % d->nup;
		dns_set_tcp_upstream(sh);
	}
}

/**
 * dns_to_guest() - send a DNS message to the guest from the DNS address
 * @sh:		shard
 * @gaddr:	guest address: IPv4 (v4-mapped) answers come from
 *		conf.dns4_be:53, IPv6 ones from conf.dns6 port 53
 * @gport:	guest port
 * @msg:	message
 * @len:	its length
 *
 * Return: 0, or -1 if it could not be queued (counted by the core)
 */
static int dns_to_guest(struct shard *sh, const uint8_t *gaddr, uint16_t gport,
			const uint8_t *msg, size_t len)
{
	uint8_t from[ADDR_LEN];

	if (!fx_slot_next(&sh->fx))
		shard_flush_frames(sh);
	if (addr_is4(gaddr))
		addr_from4(from, sh->core.conf.dns4_be);
	else
		memcpy(from, sh->core.conf.dns6, ADDR_LEN);
	return udp_send(&sh->core, &sh->fx, from, DNS_PORT, gaddr, gport, msg,
			len);
}

/**
 * dns_made_up() - answer the guest ourselves, with no records
 * @sh:		shard
 * @m:		the parsed query (ID as the guest sent it)
 * @gaddr:	guest address
 * @gport:	guest port
 * @rcode:	response code
 * @tc:		TC bit
 *
 * Return: 0, or -1 if it could not be queued
 */
static int dns_made_up(struct shard *sh, const struct dns_msg *m,
		       const uint8_t *gaddr, uint16_t gport, unsigned rcode,
		       bool tc)
{
	uint8_t buf[DNS_REPLY_BUILD_MAX];
	size_t n = dns_build_reply(m, rcode, tc, buf, sizeof(buf));

	ASSERT(n);
	return dns_to_guest(sh, gaddr, gport, buf, n);
}

/**
 * dns_q_free() - release a query entry (already off the deadline list)
 * @d:	forwarder
 * @q:	entry
 */
static void dns_q_free(struct dns_fwd *d, struct dns_query *q)
{
	unsigned f;

	ASSERT(q->used && !q->prev && !q->next && d->head != dns_qidx(d, q));
	for (f = 0; f < 2; f++) {
		if (q->sk[f] == DNS_SK_NONE)
			continue;
		ASSERT(d->sk[q->sk[f]].inflight);
		d->sk[q->sk[f]].inflight--;
	}
	d->idmap[q->up_id] = 0;
	q->used = 0;
	q->next = d->free_head;
	d->free_head = dns_qidx(d, q);
}

/**
 * dns_servfail() - give up on a query: SERVFAIL to the guest, free it
 * @sh:	shard
 * @q:	entry, off the deadline list
 */
static void dns_servfail(struct shard *sh, struct dns_query *q)
{
	trace("DNS query %04x: no upstream answered, SERVFAIL", q->qm.id);
	dns_made_up(sh, &q->qm, q->gaddr, q->gport, DNS_RCODE_SERVFAIL, false);
	CTR_INC(&sh->core, DNS_SERVFAIL);
	dns_q_free(sh->svc.dns, q);
}

/**
 * dns_send() - send a query to one upstream
 * @sh:		shard
 * @q:		entry
 * @u:		upstream
 *
 * From the query's socket of the upstream's family (picked on first use).
 * An error left on the socket by an earlier ICMP message (reported for
 * some other query through the error queue) can fail one send: so a
 * failed send is tried once more. EAGAIN counts as sent: the attempt
 * times out.
 *
 * #syscalls sendto
 * Return: 0, or -errno
 */
static int dns_send(struct shard *sh, struct dns_query *q,
		    const struct dns_upstream *u)
{
	struct dns_fwd *d = sh->svc.dns;
	int k = dns_sock_pick(sh, q, dns_fam(u->sa.sa.sa_family)), fd, tries;

	if (k < 0)
		return -EAFNOSUPPORT;
	fd = d->fd[DNS_EP_SOCK + k];
	for (tries = 0; tries < 2; tries++) {
		if (sendto(fd, q->msg, q->len, MSG_DONTWAIT, &u->sa.sa,
			   dns_sa_len(&u->sa)) >= 0)
			return 0;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
	}
	return -errno;
}

/**
 * dns_note_sent() - remember an address the query went to
 * @q:	entry
 * @sa:	address
 */
static void dns_note_sent(struct dns_query *q, const union dns_sa *sa)
{
	unsigned i;

	for (i = 0; i < q->nsent; i++) {
		if (dns_sa_eq(&q->sent[i], sa)) {
			q->last = (uint8_t)i;
			return;
		}
	}
	if (q->nsent < DNS_UPSTREAMS_MAX) {
		i = q->nsent++;
	} else {
		/* more addresses than fit (reloads): forget the oldest */
		i = (q->last + 1U) % DNS_UPSTREAMS_MAX;
	}
	q->sent[i] = *sa;
	q->last = (uint8_t)i;
}

/**
 * dns_attempt() - send the next attempt of a query, or give up on it
 * @sh:	shard
 * @q:	entry, off the deadline list
 *
 * Failed sends move on to the next upstream at once (DNS_FAILOVERS).
 */
static void dns_attempt(struct shard *sh, struct dns_query *q)
{
	struct dns_fwd *d = sh->svc.dns;

	while (q->tries < q->attempts && d->nup) {
		unsigned i = (q->first + q->tries) % d->nup;
		int ret;

		q->tries++;
		q->cur = (uint8_t)i;
		q->gen = d->gen;
		dns_note_sent(q, &d->up[i].sa);
		ret = dns_send(sh, q, &d->up[i]);
		if (!ret) {
			q->deadline_ns = sh->now_ns + q->attempt_ns;
			dns_insert(d, q);
			return;
		}
		errno = -ret;
		trace("DNS query %04x to %s: %s", q->qm.id, d->up[i].name,
		      strerror(errno));
		dns_upstream_failed(sh, q, strerror(errno));
		if (q->tries < q->attempts && d->nup)
			CTR_INC(&sh->core, DNS_FAILOVERS);
	}
	dns_servfail(sh, q);
}

/**
 * dns_failover() - the current attempt failed: try the next upstream
 * @sh:		shard
 * @q:		entry, on the deadline list
 * @why:	for the log
 */
static void dns_failover(struct shard *sh, struct dns_query *q, const char *why)
{
	dns_unlink(sh->svc.dns, q);
	dns_upstream_failed(sh, q, why);
	if (q->tries < q->attempts && sh->svc.dns->nup)
		CTR_INC(&sh->core, DNS_FAILOVERS);
	dns_attempt(sh, q);
}

/**
 * dns_sock_renew() - replace retired upstream sockets that are idle
 * @sh:	shard
 *
 * A slot that has carried DNS_SOCK_USES queries, none of them in flight
 * any more, gets a new socket (so a new random port) in place of the old
 * one; the new one is opened first, so that a slot is never left without
 * a socket: if it cannot be opened (out of fds), the old one serves
 * another DNS_SOCK_USES queries. Called at the end of each event and
 * query, never while a socket is being read.
 *
 * #syscalls close
 */
static void dns_sock_renew(struct shard *sh)
{
	struct dns_fwd *d = sh->svc.dns;
	unsigned k;

	for (k = 0; k < 2 * DNS_SOCKS; k++) {
		int *fd = &d->fd[DNS_EP_SOCK + k], nfd;

		if (*fd < 0 || d->sk[k].uses < DNS_SOCK_USES ||
		    d->sk[k].inflight)
			continue;
		nfd = dns_sock_open(sh, k < DNS_SOCKS ? AF_INET : AF_INET6,
				    DNS_EP_SOCK + k);
		d->sk[k].uses = 0;
		if (nfd < 0) {
			trace("DNS: upstream socket %u not replaced: %s", k,
			      strerror(-nfd));
			continue;
		}
		close(*fd);
		*fd = nfd;
		CTR_INC(&sh->core, DNS_SOCK_RENEWED);
	}
}

/**
 * dns_fwd_query() - forward one query from the guest
 * @sh:		shard
 * @msg:	the DNS message (a loan, possibly in guest memory that the
 *		guest may rewrite while we run: read exactly once, by the
 *		copy at the start)
 * @len:	its length
 * @gaddr:	the guest's address (ADDR_LEN bytes, IPv4 v4-mapped)
 * @gport:	the guest's port
 *
 * Context: the shard's thread, from the FX_DNS_QUERY intent.
 */
void dns_fwd_query(struct shard *sh, const uint8_t *msg, size_t len,
		   const uint8_t *gaddr, uint16_t gport)
{
	struct dns_fwd *d = sh->svc.dns;
	uint8_t copy[DNS_QUERY_MAX];
	struct dns_query *q;
	struct dns_msg m;
	enum dns_err r;

	if (len > DNS_QUERY_MAX) {
		CTR_INC(&sh->core, DNS_DROP_BAD);
		trace("DNS query of %zu bytes dropped", len);
		return;
	}
	/* the only read of the guest's bytes: everything below looks at our
	 * copy, which cannot change between the checks and the use */
	memcpy(copy, msg, len);
	r = dns_parse_query(copy, len, &m);
	if (r != DNS_OK) {
		CTR_INC(&sh->core, DNS_DROP_BAD);
		trace("DNS query from the guest dropped: %s", dns_err_str(r));
		if (r == DNS_ERR_OPCODE)
			dns_made_up(sh, &m, gaddr, gport, DNS_RCODE_NOTIMP,
				    false);
		else if (r == DNS_ERR_QDCOUNT)
			dns_made_up(sh, &m, gaddr, gport, DNS_RCODE_FORMERR,
				    false);
		return;
	}
	if (!d || !d->nup) {
		dns_made_up(sh, &m, gaddr, gport, DNS_RCODE_SERVFAIL, false);
		CTR_INC(&sh->core, DNS_SERVFAIL);
		return;
	}
	if (!d->free_head) {
		CTR_INC(&sh->core, DNS_DROP_FULL);
		return;
	}
	q = &d->q[d->free_head - 1];
	d->free_head = q->next;
	memset(q, 0, offsetof(struct dns_query, msg));
	q->used = 1;
	q->opened_ns = sh->now_ns;
	memcpy(q->gaddr, gaddr, ADDR_LEN);
	q->gport = gport;
	q->sk[0] = q->sk[1] = DNS_SK_NONE;
	q->qm = m;
	q->len = (uint16_t)len;
	memcpy(q->msg, copy, len);
	q->up_id = dns_id_alloc(d);
	wr16(q->msg, q->up_id);
	d->idmap[q->up_id] = (uint16_t)dns_qidx(d, q);
	q->attempts = (uint8_t)(d->nup > 1 ? d->nup : 2);
	q->attempt_ns = DNS_BUDGET_NS / q->attempts;
	q->first = (uint8_t)d->pref;
	dns_attempt(sh, q);
	dns_sock_renew(sh);
	dns_timer_sync(d);
}

/**
 * dns_reply() - a datagram from an upstream: relay it if it answers a query
 * @sh:		shard
 * @k:		socket slot it arrived on
 * @src:	where it came from
 * @buf:	the datagram (d->rbuf)
 * @len:	its length
 *
 * Accepted only on the query's socket, from port 53 of an address the
 * query went to, with its upstream ID and its question (error replies
 * too); anything else is dropped and counted (DNS_REPLY_DROP_*), and the
 * query carries on.
 */
static void dns_reply(struct shard *sh, unsigned k, const union dns_sa *src,
		      uint8_t *buf, size_t len)
{
	struct dns_fwd *d = sh->svc.dns;
	struct dns_query *q;
	unsigned rcode, i;
	struct dns_msg rm;
	uint16_t port;
	enum dns_err r;
	int ret;

	r = dns_parse_reply(buf, len, &rm);
	if (r == DNS_ERR_SHORT || r == DNS_ERR_QR) {
		CTR_INC(&sh->core, DNS_REPLY_DROP_BAD);
		trace("DNS: junk from an upstream: %s", dns_err_str(r));
		return;
	}
	port = src->sa.sa_family == AF_INET ? src->v4.sin_port :
					      src->v6.sin6_port;
	if (ntohs(port) != DNS_PORT) {
		CTR_INC(&sh->core, DNS_REPLY_DROP_SRC);
		trace("DNS reply %04x from port %u", rm.id, ntohs(port));
		return;
	}
	if (!d->idmap[rm.id]) {
		/* late (answered already), or forged */
		CTR_INC(&sh->core, DNS_REPLY_DROP_ID);
		trace("DNS reply %04x: no such query in flight", rm.id);
		return;
	}
	q = &d->q[d->idmap[rm.id] - 1];
	for (i = 0; i < q->nsent && !dns_sa_eq(&q->sent[i], src); i++)
		;
	if (i == q->nsent || q->sk[k / DNS_SOCKS] != k) {
		CTR_INC(&sh->core, DNS_REPLY_DROP_SRC);
		trace("DNS reply %04x from an address not asked, or on "
		      "another socket",
		      rm.id);
		return;
	}
	if (r != DNS_OK && r != DNS_ERR_QDCOUNT) {
		CTR_INC(&sh->core, DNS_REPLY_DROP_BAD);
		trace("DNS reply %04x: %s", rm.id, dns_err_str(r));
		return;
	}
	if (r != DNS_OK || !dns_question_eq(&q->qm, &rm)) {
		/* no question (even with an error rcode), or another one */
		CTR_INC(&sh->core, DNS_REPLY_DROP_QUESTION);
		trace("DNS reply %04x does not answer the question", rm.id);
		return;
	}
	rcode = dns_rcode(&rm);
	if ((rcode == DNS_RCODE_SERVFAIL || rcode == DNS_RCODE_NOTIMP ||
	     rcode == DNS_RCODE_REFUSED) &&
	    q->tries < q->attempts && d->nup > 1) {
		/* another upstream may do better; a late error from an
		 * earlier attempt just leaves the current one running */
		if (i != q->last)
			return;
		trace("DNS reply %04x: rcode %u, trying the next upstream",
		      rm.id, rcode);
		dns_unlink(d, q);
		CTR_INC(&sh->core, DNS_FAILOVERS);
		dns_attempt(sh, q);
		return;
	}

	if (len > udp_payload_max(&sh->core, &sh->fx, !addr_is4(q->gaddr))) {
		trace("DNS reply %04x of %zu bytes: too large, sending TC",
		      rm.id, len);
		ret = dns_made_up(sh, &q->qm, q->gaddr, q->gport, rcode, true);
	} else {
		wr16(buf, q->qm.id);
		ret = dns_to_guest(sh, q->gaddr, q->gport, buf, len);
	}
	if (!ret)
		CTR_INC(&sh->core, DNS_REPLIES);
	dns_unlink(d, q);
	dns_q_free(d, q);
}

/**
 * dns_rx() - read replies from an upstream socket
 * @sh:	shard
 * @k:	its slot
 *
 * #syscalls recvfrom
 */
static void dns_rx(struct shard *sh, unsigned k)
{
	struct dns_fwd *d = sh->svc.dns;
	int fd = d->fd[DNS_EP_SOCK + k];
	unsigned i;

	for (i = 0; i < DNS_RX_BURST; i++) {
		union dns_sa src;
		socklen_t sl = sizeof(src);
		ssize_t n;

		n = recvfrom(fd, d->rbuf, sizeof(d->rbuf), MSG_DONTWAIT,
			     &src.sa, &sl);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			/* a pending ICMP error, reported on its own through
			 * the error queue: go on reading */
			continue;
		}
		dns_reply(sh, k, &src, d->rbuf, (size_t)n);
	}
}

/**
 * dns_errqueue() - ICMP errors for queries we sent: fail over at once
 * @sh:	shard
 * @k:	slot of the socket
 *
 * Each error carries the datagram that caused it (our query: its ID finds
 * the entry) and its destination, which must be the query's current
 * upstream (an error about an earlier attempt changes nothing), and comes
 * on the query's socket.
 *
 * #syscalls recvmsg
 */
static void dns_errqueue(struct shard *sh, unsigned k)
{
	struct dns_fwd *d = sh->svc.dns;
	int fd = d->fd[DNS_EP_SOCK + k];
	unsigned i;

	for (i = 0; i < DNS_RX_BURST; i++) {
		union {
			char buf[256];
			struct cmsghdr align;
		} ctl;
		const struct sock_extended_err *ee = NULL;
		struct iovec iov = { d->rbuf, sizeof(d->rbuf) };
		struct msghdr mh = { 0 };
		struct dns_query *q;
		struct cmsghdr *c;
		union dns_sa dst;
		uint16_t id;
		ssize_t n;

		memset(&dst, 0, sizeof(dst));
		mh.msg_name = &dst;
		mh.msg_namelen = sizeof(dst);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (n < 0)
			return; /* EAGAIN: drained */
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if ((c->cmsg_level == SOL_IP &&
			     c->cmsg_type == IP_RECVERR) ||
			    (c->cmsg_level == SOL_IPV6 &&
			     c->cmsg_type == IPV6_RECVERR))
				ee = (const struct sock_extended_err *)(void *)
					CMSG_DATA(c);
		}
		if (!ee || n < 2 || !d->idmap[rd16(d->rbuf)])
			continue;
		id = rd16(d->rbuf);
		q = &d->q[d->idmap[id] - 1];
		if (!q->nsent || !dns_sa_eq(&q->sent[q->last], &dst) ||
		    q->sk[k / DNS_SOCKS] != k)
			continue;
		trace("DNS query %04x: %s from upstream", q->qm.id,
		      strerror((int)ee->ee_errno));
		dns_failover(sh, q, strerror((int)ee->ee_errno));
	}
}

/**
 * dns_timeouts() - attempts whose time is up: fail over, or SERVFAIL
 * @sh:	shard
 */
static void dns_timeouts(struct shard *sh)
{
	struct dns_fwd *d = sh->svc.dns;

	while (d->head && d->q[d->head - 1].deadline_ns <= sh->now_ns) {
		struct dns_query *q = &d->q[d->head - 1];

		CTR_INC(&sh->core, DNS_TIMEOUTS);
		trace("DNS query %04x: attempt %u timed out", q->qm.id,
		      q->tries);
		dns_failover(sh, q, "no answer in time");
	}
}

/**
 * dns_ns_parse() - the address of a "nameserver" line
 * @s:	the address text (NUL-terminated, no blanks)
 * @u:	upstream out (address, port 53, name)
 *
 * IPv4 or IPv6, with an optional %scope (interface name or number) for
 * IPv6; IPv4-mapped IPv6 addresses become IPv4.
 *
 * #syscalls socket ioctl close
 * Return: 0, or -1 if @s is not an address
 */
static int dns_ns_parse(const char *s, struct dns_upstream *u)
{
	char a[INET6_ADDRSTRLEN], *pct;
	unsigned long scope = 0;

	memset(u, 0, sizeof(*u));
	if (strlen(s) >= sizeof(u->name))
		return -1;
	strcpy(u->name, s);
	if (inet_pton(AF_INET, s, &u->sa.v4.sin_addr) == 1) {
		u->sa.v4.sin_family = AF_INET;
		u->sa.v4.sin_port = htons(DNS_PORT);
		return 0;
	}
	pct = strchr(s, '%');
	if ((pct ? (size_t)(pct - s) : strlen(s)) >= sizeof(a))
		return -1;
	memcpy(a, s, pct ? (size_t)(pct - s) : strlen(s) + 1);
	if (pct) {
		char *end;

		a[pct - s] = '\0';
		scope = strtoul(pct + 1, &end, 10);
		if (!pct[1] || *end) {
			scope = if_nametoindex(pct + 1);
			if (!scope)
				return -1;
		}
		if (scope > UINT32_MAX)
			return -1;
	}
	if (inet_pton(AF_INET6, a, &u->sa.v6.sin6_addr) != 1)
		return -1;
	if (IN6_IS_ADDR_V4MAPPED(&u->sa.v6.sin6_addr)) {
		struct in_addr v4;

		memcpy(&v4, &u->sa.v6.sin6_addr.s6_addr[12], 4);
		memset(&u->sa, 0, sizeof(u->sa));
		u->sa.v4.sin_family = AF_INET;
		u->sa.v4.sin_port = htons(DNS_PORT);
		u->sa.v4.sin_addr = v4;
		return 0;
	}
	u->sa.v6.sin6_family = AF_INET6;
	u->sa.v6.sin6_port = htons(DNS_PORT);
	u->sa.v6.sin6_scope_id = (uint32_t)scope;
	return 0;
}

/**
 * dns_resolv_parse() - the nameservers and search list of resolv.conf text
 * @text:	file contents, NUL-terminated (modified: split into lines)
 * @up:		upstreams out, DNS_UPSTREAMS_MAX entries
 * @search:	search list out, DNS_SEARCH_MAX bytes (may be empty)
 *
 * As glibc: a keyword counts only at the start of a line, followed by a
 * blank; '#' and ';' start comments; "search" and "domain" replace each
 * other, the last one wins. Lines whose address does not parse are
 * skipped, and nameservers after the third are ignored.
 *
 * Return: number of upstreams
 */
static unsigned dns_resolv_parse(char *text, struct dns_upstream *up,
				 char *search)
{
	unsigned n = 0;
	char *line, *save = NULL;

	search[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *arg, *end;
		size_t kw = strcspn(line, " \t");

		if (!line[kw])
			continue;
		arg = line + kw + strspn(line + kw, " \t");
		end = arg + strcspn(arg, "#;\r");
		*end = '\0';
		while (end > arg && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (kw == 10 && !strncmp(line, "nameserver", kw)) {
			arg[strcspn(arg, " \t")] = '\0';
			if (n < DNS_UPSTREAMS_MAX && !dns_ns_parse(arg, &up[n]))
				n++;
		} else if ((kw == 6 && !strncmp(line, "search", kw)) ||
			   (kw == 6 && !strncmp(line, "domain", kw))) {
			snprintf(search, DNS_SEARCH_MAX, "%s", arg);
		}
	}
	return n;
}

/**
 * dns_upstreams_str() - the upstream list, for logs
 * @d:		forwarder
 * @buf:	output
 * @len:	its size
 *
 * Return: @buf
 */
static const char *dns_upstreams_str(const struct dns_fwd *d, char *buf,
				     size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < d->nup && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				 d->up[i].name);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

/**
 * dns_read_file() - read resolv.conf directly, when there is no reader
 * @d:		forwarder
 * @text:	out, DNS_RESOLV_MAX bytes, NUL-terminated
 *
 * #syscalls:setup openat read close
 * Return: 0, or the errno of the failure
 */
static int dns_read_file(const struct dns_fwd *d, char *text)
{
	size_t got = 0;
	int fd, e = 0;

	fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno;
	while (got < DNS_RESOLV_MAX - 1) {
		ssize_t r = read(fd, text + got, DNS_RESOLV_MAX - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			e = errno;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	text[got] = '\0';
	return e;
}

/**
 * dns_apply() - take the upstreams of a resolv.conf text
 * @sh:		shard
 * @text:	the file's contents, NUL-terminated (d->rbuf; parsed in place)
 * @e:		0, or the errno of reading it: the list stays as it is
 * @initial:	first read at start-up (a missing file then means no
 *		upstream; later it keeps the current list)
 */
static void dns_apply(struct shard *sh, char *text, int e, bool initial)
{
	struct dns_upstream up[DNS_UPSTREAMS_MAX];
	char search[DNS_SEARCH_MAX], list[3 * (DNS_NAME_LEN + 2)];
	struct dns_fwd *d = sh->svc.dns;
	unsigned n, i;

	if (!initial)
		CTR_INC(&sh->core, DNS_UPSTREAM_RELOADS);
	if (e) {
		errno = e;
		if (initial)
			warn_perror("DNS: cannot read %s, no upstream: queries "
				    "get SERVFAIL",
				    d->path);
		else
			warn_perror(
				"DNS: cannot read %s, keeping the upstreams",
				d->path);
		return;
	}

	n = dns_resolv_parse(text, up, search);
	memcpy(d->up, up, sizeof(up));
	d->nup = n;
	d->pref = 0;
	d->gen++;
	for (i = 0; i < n; i++)
		d->up[i].warned = false;
	memcpy(d->search, search, sizeof(search));
	dns_set_tcp_upstream(sh);

	if (!n)
		warn("DNS: no usable nameserver in %s: queries get SERVFAIL",
		     d->path);
	else
		info("DNS: upstreams from %s: %s", d->path,
		     dns_upstreams_str(d, list, sizeof(list)));
	for (i = 0; i < n; i++) {
		if (d->up[i].sa.sa.sa_family == AF_INET6 &&
		    !dns_fam_open(d, 1)) {
			warn("DNS upstream %s: no IPv6 socket, skipped on use",
			     d->up[i].name);
			d->up[i].warned = true;
		}
	}
}

/**
 * dns_resolv_event() - the resolv.conf reader sent the file's contents
 * @sh:	shard
 *
 * #syscalls close
 */
static void dns_resolv_event(struct shard *sh)
{
	struct dns_fwd *d = sh->svc.dns;
	int ret, e = 0;

	ret = resolvh_recv(d->fd[DNS_EP_RESOLV], (char *)d->rbuf,
			   sizeof(d->rbuf), &e);
	if (ret > 0)
		dns_apply(sh, (char *)d->rbuf, e, false);
	if (ret < 0) {
		warn("DNS: the resolv.conf reader is gone: changes to %s will "
		     "go unnoticed",
		     d->path);
		close(d->fd[DNS_EP_RESOLV]);
		d->fd[DNS_EP_RESOLV] = -1;
	}
}

/**
 * dns_fwd_event() - an epoll event for one of the forwarder's fds
 * @sh:		shard
 * @n:		the index given in EP_DATA(EP_DNS, n): enum dns_ep
 * @events:	epoll events
 *
 * Context: the shard's thread.
 *
 * #syscalls read
 */
void dns_fwd_event(struct shard *sh, uint32_t n, uint32_t events)
{
	struct dns_fwd *d = sh->svc.dns;
	uint64_t exp;

	if (!d || n >= DNS_EP_NUM)
		return;
	switch (n) {
	case DNS_EP_TIMER:
		if (read(d->fd[DNS_EP_TIMER], &exp, sizeof(exp)) < 0 &&
		    errno != EAGAIN)
			warn_perror("DNS timerfd read");
		d->armed_ns = 0;
		dns_timeouts(sh);
		break;
	case DNS_EP_RESOLV:
		if (d->fd[DNS_EP_RESOLV] >= 0)
			dns_resolv_event(sh);
		break;
	default: /* an upstream socket */
		if (d->fd[n] < 0)
			break;
		if (events & EPOLLERR)
			dns_errqueue(sh, n - DNS_EP_SOCK);
		if (events & EPOLLIN)
			dns_rx(sh, n - DNS_EP_SOCK);
		break;
	}
	dns_sock_renew(sh);
	dns_timer_sync(d);
}

/**
 * dns_fwd_init() - read the upstreams, open sockets, register with epoll
 * @sh:		shard (its core's conf.dns4_be is the guest-facing address;
 *		conf.dns4_upstream_be is set here for DNS over TCP)
 * @resolv:	resolv.conf path (normally /etc/resolv.conf), watched for
 *		changes by the resolv.conf reader started here
 *
 * Call it in the host's network namespace: the sockets are made here.
 * Without IPv6 or the reader it carries on (logged): IPv6 upstreams are
 * then failed over, and changes to the file go unnoticed.
 *
 * Context: set-up, before any thread exists (the reader is forked)
 *
 * #syscalls:setup timerfd_create getrandom close
 * Return: 0, or -errno (logged)
 */
int dns_fwd_init(struct shard *sh, const char *resolv)
{
	struct dns_fwd *d;
	unsigned i;
	int ret, e = 0;

	d = calloc(1, sizeof(*d));
	if (!d) {
		err("DNS: out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < DNS_EP_NUM; i++)
		d->fd[i] = -1;
	for (i = 0; i < DNS_INFLIGHT_MAX; i++)
		d->q[i].next = i + 2 < DNS_INFLIGHT_MAX + 1 ? i + 2 : 0;
	d->free_head = 1;
	if (strlen(resolv) >= sizeof(d->path)) {
		err("DNS: resolv.conf path too long");
		ret = -ENAMETOOLONG;
		goto out;
	}
	strcpy(d->path, resolv);
	if (getrandom(d->key, sizeof(d->key), 0) != sizeof(d->key)) {
		ret = -errno;
		err_perror("DNS: getrandom");
		goto out;
	}

	d->fd[DNS_EP_TIMER] = timerfd_create(CLOCK_MONOTONIC,
					     TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->fd[DNS_EP_TIMER] < 0 ||
	    shard_ep_add(sh, d->fd[DNS_EP_TIMER], EPOLLIN,
			 EP_DATA(EP_DNS, DNS_EP_TIMER))) {
		ret = -errno;
		err_perror("DNS: timerfd");
		goto out;
	}
	/* the first socket of each family; the others come on first use */
	ret = dns_sock_open(sh, AF_INET, DNS_EP_SOCK);
	if (ret < 0) {
		errno = -ret;
		err_perror("DNS: IPv4 upstream socket");
		goto out;
	}
	d->fd[DNS_EP_SOCK] = ret;
	ret = dns_sock_open(sh, AF_INET6, DNS_EP_SOCK + DNS_SOCKS);
	if (ret < 0) {
		errno = -ret;
		info("DNS: no IPv6 upstream socket: %s", strerror(errno));
	} else {
		d->fd[DNS_EP_SOCK + DNS_SOCKS] = ret;
	}
	sh->svc.dns = d;
	/* the reader's first message is the file as it is now */
	ret = resolvh_start(resolv, &(struct sandbox_conf){
					    .off = !sh->conf->sandbox,
					    .runas = sh->conf->runas,
					    .uid = sh->conf->runas_uid,
					    .gid = sh->conf->runas_gid,
				    });
	if (ret >= 0 &&
	    (resolvh_recv(ret, (char *)d->rbuf, sizeof(d->rbuf), &e) != 1 ||
	     shard_ep_add(sh, ret, EPOLLIN, EP_DATA(EP_DNS, DNS_EP_RESOLV)))) {
		close(ret);
		ret = -ECONNRESET;
	}
	if (ret < 0) {
		errno = -ret;
		warn_perror("DNS: no resolv.conf reader: changes to %s will go "
			    "unnoticed",
			    resolv);
		e = dns_read_file(d, (char *)d->rbuf);
	} else {
		d->fd[DNS_EP_RESOLV] = ret;
	}
	dns_apply(sh, (char *)d->rbuf, e, true);
	return 0;

out:
	/* dns_fwd_fini() closes what is open (fds still -1 are skipped) */
	sh->svc.dns = d;
	dns_fwd_fini(sh);
	return ret;
}

/**
 * dns_fwd_fini() - close and free everything (queries in flight are
 * dropped unanswered)
 * @sh:	shard
 *
 * #syscalls close
 */
void dns_fwd_fini(struct shard *sh)
{
	struct dns_fwd *d = sh->svc.dns;
	unsigned i;

	if (!d)
		return;
	for (i = 0; i < DNS_EP_NUM; i++) {
		if (d->fd[i] >= 0)
			close(d->fd[i]);
	}
	free(d);
	sh->svc.dns = NULL;
}

/**
 * dns_fwd_snap_cap() - how many DNS queries a shard can have in flight: the
 * room they need in a flow snapshot
 * @sh:		shard
 *
 * From the configuration alone: shard 0 forwards when --dns is on.
 *
 * Context: the control thread (shard_api_flow_cap())
 * Return: entries
 */
uint32_t dns_fwd_snap_cap(const struct shard *sh)
{
	return !sh->id && sh->conf->dns ? DNS_INFLIGHT_MAX : 0;
}

/**
 * dns_fwd_snap() - the queries in flight as flow records (ctl flows)
 * @sh:		shard
 * @buf:	records out
 * @cap:	entries @buf holds
 * @total:	out: queries in flight (may exceed @cap)
 *
 * Kind FLOW_KIND_DNS, state FLOW_SVC_QUERY, proto UDP: the guest's end is
 * its resolver's address and port, the remote end the upstream of the
 * current attempt (port 53; the unspecified address before the first),
 * the host side the upstream socket's bound address with that upstream
 * as its peer. The idle time runs from the current attempt's send.
 *
 * Context: the shard's own thread, between events
 * Return: records written
 */
uint32_t dns_fwd_snap(struct shard *sh, struct flow_rec *buf, uint32_t cap,
		      uint32_t *total)
{
	const struct dns_fwd *d = sh->svc.dns;
	uint64_t now = sh->now_ns; /* this loop iteration's: close enough */
	uint32_t i, n = 0, t = 0;

	*total = 0;
	if (!d)
		return 0;
	for (i = 0; i < DNS_INFLIGHT_MAX; i++) {
		const struct dns_query *q = &d->q[i];
		struct sockaddr_storage ss;
		uint64_t sent_ns;
		struct flow_rec *r;
		unsigned k;

		if (!q->used)
			continue;
		if (t++ >= cap)
			continue;
		r = &buf[n++];
		memset(r, 0, sizeof(*r));
		memcpy(r->guest_addr, q->gaddr, 16);
		r->guest_port = q->gport;
		if (q->nsent && q->last < q->nsent) {
			memset(&ss, 0, sizeof(ss));
			memcpy(&ss, &q->sent[q->last], sizeof(q->sent[0]));
			sockaddr_to(&ss, r->remote_addr, &r->remote_port);
		} else {
			r->remote_port = 53;
		}
		r->proto = IPPROTO_UDP;
		r->kind = FLOW_KIND_DNS;
		r->state = FLOW_SVC_QUERY;
		r->shard = (uint8_t)sh->id;
		r->from_guest = r->segs_from_guest = 1;
		r->bytes_from_guest = q->len;
		r->age_ns = now > q->opened_ns ? now - q->opened_ns : 0;
		sent_ns = q->deadline_ns > q->attempt_ns ?
				  q->deadline_ns - q->attempt_ns :
				  q->opened_ns;
		r->idle_ns = now > sent_ns ? now - sent_ns : 0;
		flow_rate_get(NULL, &sh->rates.clk, q->opened_ns, now, r);
		k = q->sk[addr_is4(r->remote_addr) || !q->nsent ? 0 : 1];
		if (k != DNS_SK_NONE &&
		    shard_snap_host(d->fd[DNS_EP_SOCK + k], r, false)) {
			memcpy(r->host.peer_addr, r->remote_addr, 16);
			r->host.peer_port = r->remote_port;
		}
	}
	*total = t;
	return n;
}
