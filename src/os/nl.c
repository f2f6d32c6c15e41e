/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl.c - minimal rtnetlink requests: link up, addresses, default routes */

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "os/nl.h"
#include "util/util.h"

/* Room for one request: header, fixed part and a few small attributes */
#define NL_REQ_LEN 256
/* Room for acknowledgements (NETLINK_CAP_ACK keeps them small) */
#define NL_ACK_BUF_LEN 4096

/**
 * union nl_req - buffer for one request, aligned for struct nlmsghdr
 * @h:		message header, at the start
 * @buf:	header, fixed part and attributes
 */
union nl_req {
	struct nlmsghdr h;
	char buf[NL_REQ_LEN];
};

/*
 * Sequence number of the last request. Requests are made one at a time
 * during start-up, so no locking; it only lets nl_do() skip stale replies.
 */
static uint32_t nl_seq;

/**
 * nl_open() - open a NETLINK_ROUTE socket in the current network namespace
 *
 * #syscalls:setup socket bind setsockopt
 * Return: socket descriptor (close-on-exec), or negative errno
 */
int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;
	int fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;

	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		goto out_close;
	}

	/* Errors need not echo our request back; failing this is harmless */
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	return fd;

out_close:
	close(fd);
	return ret;
}

/**
 * nl_req_init() - start a request with its fixed-size part
 * @r:		request buffer
 * @type:	RTM_* message type
 * @flags:	NLM_F_* flags besides NLM_F_REQUEST and NLM_F_ACK
 * @fixed_len:	size of the fixed part (struct ifinfomsg, ...), zeroed
 *
 * Return: pointer to the fixed part, inside @r
 */
static void *nl_req_init(union nl_req *r, uint16_t type, uint16_t flags,
			 size_t fixed_len)
{
	ASSERT(NLMSG_SPACE(fixed_len) <= sizeof(r->buf));

	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_LENGTH(fixed_len);
	r->h.nlmsg_type = type;
	r->h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;

	return NLMSG_DATA(&r->h);
}

/**
 * nl_attr_put() - append one attribute to a request
 * @r:		request buffer
 * @type:	attribute type (IFLA_*, IFA_*, RTA_*)
 * @data:	payload
 * @len:	payload length, bytes
 *
 * Requests are built by this file only, with sizes known at compile time,
 * so running out of room is a bug.
 */
static void nl_attr_put(union nl_req *r, uint16_t type, const void *data,
			size_t len)
{
	size_t off = NLMSG_ALIGN(r->h.nlmsg_len);
	struct rtattr *rta;

	ASSERT(off + RTA_SPACE(len) <= sizeof(r->buf));

	rta = (struct rtattr *)(void *)(r->buf + off);
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	/* gcc 12 with ASan mistakes this for a write past the union's
	 * nlmsghdr member (a false positive: the ASSERT above bounds it) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
	memcpy(RTA_DATA(rta), data, len);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
	r->h.nlmsg_len = (uint32_t)(off + RTA_ALIGN(rta->rta_len));
}

/**
 * nl_xfer() - send a request, then read replies until its answer
 * @nl:		socket from nl_open()
 * @r:		request, built with nl_req_init() and nl_attr_put()
 * @buf:	receive buffer, aligned for struct nlmsghdr
 * @size:	size of @buf
 * @cb:		NULL to wait for the acknowledgement (NLMSG_ERROR) only; else
 *		called with each message of a dump, which ends at NLMSG_DONE
 * @arg:	passed to @cb
 *
 * Messages with another sequence number are skipped.
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0 (acknowledged, or the end of the dump), or negative errno (from
 * the NLMSG_ERROR reply, or from the socket; -EPROTO for a malformed reply)
 */
static int nl_xfer(int nl, union nl_req *r, char *buf, size_t size,
		   void (*cb)(const struct nlmsghdr *h, void *arg), void *arg)
{
	ssize_t n;

	r->h.nlmsg_seq = ++nl_seq;

	do
		n = send(nl, r->buf, r->h.nlmsg_len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != r->h.nlmsg_len)
		return -EIO;

	for (;;) {
		size_t off;

		n = recv(nl, buf, size, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPROTO;

		for (off = 0; off + sizeof(struct nlmsghdr) <= (size_t)n;) {
			const struct nlmsghdr *h;

			h = (const struct nlmsghdr *)(void *)(buf + off);
			if (h->nlmsg_len < sizeof(*h) ||
			    h->nlmsg_len > (size_t)n - off)
				return -EPROTO;
			off += NLMSG_ALIGN(h->nlmsg_len);
			if (h->nlmsg_seq != r->h.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				/* 0 is the acknowledgement, else -errno */
				return e->error > 0 ? -EPROTO : e->error;
			}
			if (!cb)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			cb(h, arg);
		}
	}
}

/**
 * nl_do() - send a request and wait for its acknowledgement
 * @nl:		socket from nl_open()
 * @r:		request, built with nl_req_init() and nl_attr_put()
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno (from the NLMSG_ERROR reply, or from the
 * socket; -EPROTO for a malformed reply)
 */
static int nl_do(int nl, union nl_req *r)
{
	union {
		struct nlmsghdr h;
		char buf[NL_ACK_BUF_LEN];
	} ack;

	return nl_xfer(nl, r, ack.buf, sizeof(ack.buf), NULL, NULL);
}

/**
 * nl_link_req() - start an RTM_NEWLINK request that changes one link
 * @r:		request to fill
 * @ifindex:	interface index
 *
 * Return: the request's link header, to set flags in
 */
static struct ifinfomsg *nl_link_req(union nl_req *r, unsigned ifindex)
{
	struct ifinfomsg *ifi = nl_req_init(r, RTM_NEWLINK, 0, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	return ifi;
}

/**
 * nl_link_up() - bring a link up and optionally set its MTU
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @mtu:	new MTU, 0 to leave it alone
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno (from the kernel's acknowledgement)
 */
int nl_link_up(int nl, unsigned ifindex, unsigned mtu)
{
	struct ifinfomsg *ifi;
	union nl_req r;
	uint32_t mtu32 = mtu;

	ifi = nl_link_req(&r, ifindex);
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;

	if (mtu)
		nl_attr_put(&r, IFLA_MTU, &mtu32, sizeof(mtu32));

	return nl_do(nl, &r);
}

/**
 * nl_link_txqlen() - set the transmit queue length of a link
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @qlen:	new queue length, packets
 *
 * Unlike the SIOCSIFTXQLEN ioctl, which asks for CAP_NET_ADMIN in the
 * initial user namespace, this needs it only in the user namespace that
 * owns the link's network namespace: it works rootless.
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno (from the kernel's acknowledgement)
 */
int nl_link_txqlen(int nl, unsigned ifindex, unsigned qlen)
{
	union nl_req r;
	uint32_t qlen32 = qlen;

	nl_link_req(&r, ifindex);
	nl_attr_put(&r, IFLA_TXQLEN, &qlen32, sizeof(qlen32));

	return nl_do(nl, &r);
}

/**
 * nl_addr4_add() - add an IPv4 address to a link
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @addr_be:	address, network order
 * @prefix:	prefix length, 0 to 32
 *
 * Like "ip addr add ADDR/PREFIX brd + dev IF": the broadcast address is
 * the prefix's last one, but a /31 or /32 has none.
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, -EINVAL for a bad @prefix, or negative errno from the kernel
 */
int nl_addr4_add(int nl, unsigned ifindex, uint32_t addr_be, uint8_t prefix)
{
	struct ifaddrmsg *ifa;
	union nl_req r;

	if (prefix > 32)
		return -EINVAL;

	ifa = nl_req_init(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
			  sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = prefix;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;

	/* Not point-to-point: local and peer address are the same */
	nl_attr_put(&r, IFA_LOCAL, &addr_be, sizeof(addr_be));
	nl_attr_put(&r, IFA_ADDRESS, &addr_be, sizeof(addr_be));
	if (prefix < 31) {
		uint32_t brd_be = addr_be | htonl(~0U >> prefix);

		nl_attr_put(&r, IFA_BROADCAST, &brd_be, sizeof(brd_be));
	}

	return nl_do(nl, &r);
}

/**
 * nl_route4_default() - add an IPv4 default route via a gateway
 * @nl:		socket from nl_open()
 * @ifindex:	output interface index
 * @gw_be:	gateway address, network order
 * @beside:	without NLM_F_EXCL: the kernel puts it first among the
 *		default routes of the same metric, and refuses only an
 *		identical one
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno from the kernel
 */
int nl_route4_default(int nl, unsigned ifindex, uint32_t gw_be, bool beside)
{
	uint32_t oif = ifindex;
	struct rtmsg *rtm;
	union nl_req r;

	rtm = nl_req_init(&r, RTM_NEWROUTE,
			  NLM_F_CREATE | (beside ? 0 : NLM_F_EXCL),
			  sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 0;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;

	nl_attr_put(&r, RTA_GATEWAY, &gw_be, sizeof(gw_be));
	nl_attr_put(&r, RTA_OIF, &oif, sizeof(oif));

	return nl_do(nl, &r);
}

/**
 * nl_addr6_add() - add an IPv6 address to a link, without DAD
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @addr:	address, 16 bytes
 * @prefix:	prefix length, 0 to 128
 *
 * Like "ip addr add ADDR/PREFIX dev IF nodad".
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, -EINVAL for a bad @prefix, or negative errno from the kernel
 */
int nl_addr6_add(int nl, unsigned ifindex, const uint8_t *addr, uint8_t prefix)
{
	struct ifaddrmsg *ifa;
	union nl_req r;

	if (prefix > 128)
		return -EINVAL;

	ifa = nl_req_init(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
			  sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = prefix;
	ifa->ifa_flags = IFA_F_NODAD;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;

	nl_attr_put(&r, IFA_LOCAL, addr, 16);
	nl_attr_put(&r, IFA_ADDRESS, addr, 16);

	return nl_do(nl, &r);
}

/**
 * nl_route6_default() - add an IPv6 default route via a gateway
 * @nl:		socket from nl_open()
 * @ifindex:	output interface index
 * @gw:		gateway address, 16 bytes
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0, or negative errno from the kernel
 */
int nl_route6_default(int nl, unsigned ifindex, const uint8_t *gw)
{
	uint32_t oif = ifindex;
	struct rtmsg *rtm;
	union nl_req r;

	rtm = nl_req_init(&r, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL,
			  sizeof(*rtm));
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = 0;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;

	nl_attr_put(&r, RTA_GATEWAY, gw, 16);
	nl_attr_put(&r, RTA_OIF, &oif, sizeof(oif));

	return nl_do(nl, &r);
}

/**
 * nl_dump() - send a dump request and hand each reply message to a callback
 * @nl:		socket from nl_open()
 * @r:		request (NLM_F_DUMP set by the caller), built with
 *		nl_req_init()
 * @cb:		called with each message of the dump and @arg
 * @arg:	passed to @cb
 *
 * #syscalls:setup sendto recvfrom
 * Return: 0 at the end of the dump, or negative errno (-EPROTO for a
 * malformed reply)
 */
static int nl_dump(int nl, union nl_req *r,
		   void (*cb)(const struct nlmsghdr *h, void *arg), void *arg)
{
	static union {
		struct nlmsghdr h;
		char buf[32768];
	} rsp;

	return nl_xfer(nl, r, rsp.buf, sizeof(rsp.buf), cb, arg);
}

/**
 * struct nl_route_q - what nl_route_default() looks for and found
 * @family:	AF_INET or AF_INET6
 * @want_oif:	only routes through this interface (0: any)
 * @found:	a default route was seen
 * @metric:	its priority (lower wins)
 * @oif:	its output interface
 * @gw:		its gateway (zero if none: a device route)
 */
struct nl_route_q {
	int family;
	unsigned want_oif;
	bool found;
	uint32_t metric;
	unsigned oif;
	uint8_t gw[16];
};

/**
 * nl_route_cb() - keep the best default route of a dump
 * @h:		one RTM_NEWROUTE message
 * @arg:	struct nl_route_q
 */
static void nl_route_cb(const struct nlmsghdr *h, void *arg)
{
	struct nl_route_q *q = arg;
	const struct rtmsg *rtm = NLMSG_DATA(h);
	const struct rtattr *rta;
	uint8_t gw[16] = { 0 };
	uint32_t metric = 0, oif = 0;
	size_t alen = q->family == AF_INET ? 4 : 16;
	int len;

	if (h->nlmsg_type != RTM_NEWROUTE ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    rtm->rtm_family != q->family || rtm->rtm_dst_len ||
	    rtm->rtm_table != RT_TABLE_MAIN || rtm->rtm_type != RTN_UNICAST)
		return;
	len = (int)RTM_PAYLOAD(h);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTA_OIF && RTA_PAYLOAD(rta) >= 4)
			memcpy(&oif, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_PRIORITY && RTA_PAYLOAD(rta) >= 4)
			memcpy(&metric, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_GATEWAY &&
			 RTA_PAYLOAD(rta) >= alen)
			memcpy(gw, RTA_DATA(rta), alen);
	}
	if (!oif || (q->want_oif && oif != q->want_oif) ||
	    (q->found && metric >= q->metric))
		return;
	q->found = true;
	q->metric = metric;
	q->oif = oif;
	memcpy(q->gw, gw, sizeof(gw));
}

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
int nl_route_default(int nl, int family, unsigned *oif, uint8_t *gw)
{
	struct nl_route_q q = { .family = family, .want_oif = *oif };
	struct rtmsg *rtm;
	union nl_req r;
	int ret;

	rtm = nl_req_init(&r, RTM_GETROUTE, NLM_F_DUMP, sizeof(*rtm));
	rtm->rtm_family = (unsigned char)family;
	ret = nl_dump(nl, &r, nl_route_cb, &q);
	if (ret)
		return ret;
	if (!q.found)
		return -ENOENT;
	*oif = q.oif;
	memcpy(gw, q.gw, family == AF_INET ? 4 : 16);
	return 0;
}

/**
 * struct nl_addr_q - what nl_addr_get() looks for and found
 * @family:	AF_INET or AF_INET6
 * @ifindex:	the interface
 * @found:	an address was seen
 * @addr:	the first usable one
 * @prefix:	its prefix length
 */
struct nl_addr_q {
	int family;
	unsigned ifindex;
	bool found;
	uint8_t addr[16];
	uint8_t prefix;
};

/**
 * nl_addr_cb() - keep the first global address of an interface
 * @h:		one RTM_NEWADDR message
 * @arg:	struct nl_addr_q
 *
 * Tentative, deprecated and DAD-failed IPv6 addresses are skipped, and
 * any address of link or host scope.
 */
static void nl_addr_cb(const struct nlmsghdr *h, void *arg)
{
	struct nl_addr_q *q = arg;
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	const struct rtattr *rta;
	const void *a = NULL;
	size_t alen = q->family == AF_INET ? 4 : 16;
	int len;

	if (q->found || h->nlmsg_type != RTM_NEWADDR ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    ifa->ifa_family != q->family || ifa->ifa_index != q->ifindex ||
	    ifa->ifa_scope != RT_SCOPE_UNIVERSE ||
	    (ifa->ifa_flags &
	     (IFA_F_TENTATIVE | IFA_F_DEPRECATED | IFA_F_DADFAILED)))
		return;
	len = (int)IFA_PAYLOAD(h);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (RTA_PAYLOAD(rta) < alen)
			continue;
		/* IFA_LOCAL is the address itself where both are given */
		if (rta->rta_type == IFA_LOCAL ||
		    (rta->rta_type == IFA_ADDRESS && !a))
			a = RTA_DATA(rta);
	}
	if (!a)
		return;
	q->found = true;
	memcpy(q->addr, a, alen);
	q->prefix = ifa->ifa_prefixlen;
}

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
		uint8_t *prefix)
{
	struct nl_addr_q q = { .family = family, .ifindex = ifindex };
	struct ifaddrmsg *ifa;
	union nl_req r;
	int ret;

	ifa = nl_req_init(&r, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa));
	ifa->ifa_family = (unsigned char)family;
	ret = nl_dump(nl, &r, nl_addr_cb, &q);
	if (ret)
		return ret;
	if (!q.found)
		return -ENOENT;
	memcpy(addr, q.addr, family == AF_INET ? 4 : 16);
	*prefix = q.prefix;
	return 0;
}
