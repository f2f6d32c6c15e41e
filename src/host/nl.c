/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nl.c - minimal rtnetlink requests: link up, addresses, default routes */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "host/nl.h"
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

		n = recv(nl, ack.buf, sizeof(ack.buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPROTO;

		for (off = 0; off + sizeof(struct nlmsghdr) <= (size_t)n;) {
			const struct nlmsghdr *h;
			const struct nlmsgerr *e;

			h = (const struct nlmsghdr *)(void *)(ack.buf + off);
			if (h->nlmsg_len < sizeof(*h) ||
			    h->nlmsg_len > (size_t)n - off)
				return -EPROTO;

			if (h->nlmsg_seq == r->h.nlmsg_seq &&
			    h->nlmsg_type == NLMSG_ERROR) {
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				e = NLMSG_DATA(h);
				/* 0 is the acknowledgement, else -errno */
				return e->error > 0 ? -EPROTO : e->error;
			}

			off += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
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

	ifi = nl_req_init(&r, RTM_NEWLINK, 0, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;

	if (mtu)
		nl_attr_put(&r, IFLA_MTU, &mtu32, sizeof(mtu32));

	return nl_do(nl, &r);
}

/**
 * nl_addr4_add() - add an IPv4 address to a link
 * @nl:		socket from nl_open()
 * @ifindex:	interface index
 * @addr_be:	address, network order
 * @prefix:	prefix length, 0 to 32
 *
 * Like "ip addr add ADDR/PREFIX dev IF": no broadcast address is set.
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
int nl_addr6_add(int nl, unsigned ifindex, const uint8_t *addr,
		 uint8_t prefix)
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
