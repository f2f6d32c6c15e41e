/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ndp.c - ICMPv6: neighbour and router discovery, echo for the gateway
 *
 * DOC: Theory of Operation
 *
 * What the guest gets
 * -------------------
 *
 * Goals: let a guest configure IPv6 by SLAAC (RFC 4862) and reach the
 * gateway's addresses on the link, with no state kept here but the timer
 * of unsolicited router advertisements.
 *
 * - Router advertisements come from the gateway's link-local address: hop
 *   limit 64, the M and O flags when DHCPv6 is on (conf.dhcp6: addresses
 *   and other configuration there too), router lifetime
 *   conf.ra_router_lifetime_s (the host sets the longest, 65535 s: TCP and
 *   UDP over IPv6 are carried), the guest's /64 (conf.prefix6: a ULA
 *   unless it is given, or copied from the host in pasta's address
 *   model) as a prefix information option (on link, autonomous: SLAAC),
 *   an MTU option, an RDNSS option (RFC 8106) when a DNS address is
 *   configured, a DNSSL option (RFC 8106) with the search list DHCP hands
 *   out (conf.dhcp4.search) when there is one, and our link-layer address.
 * - A router solicitation (RFC 4861 6.2.6) gets one at once, unicast to the
 *   soliciting address, or to all-nodes when that is ::.
 * - Unsolicited ones go to all-nodes (RFC 4861 6.2.4) from shard 0 only,
 *   driven by the core's timer (ndp_timer(), folded into core_timer()):
 *   the first as soon as the host first runs the timer, then every 30 to
 *   60 s at a random point (SipHash of the core's key, the count and the
 *   time: no clock or randomness read here), at most 16 s apart for the
 *   first three (MAX_INITIAL_RTR_ADVERT_INTERVAL). Their state is the next
 *   due time and a count, in struct core.
 * - Neighbour solicitation for one of our addresses (gateway link-local,
 *   gateway, DNS, and the addresses mapped to the host: conf.map_lo6,
 *   conf.map_guest6) gets a neighbour advertisement with the router,
 *   solicited and override flags and our link-layer address. Duplicate
 *   address detection probes (source ::) for those addresses are answered
 *   to all-nodes without the solicited flag (RFC 4861 7.2.4), which defends
 *   them; probes and solicitations for any other address get nothing,
 *   except with conf.ndp_proxy (pasta's model, where the guest's /64 is
 *   the host's): solicitations (not probes) for any unicast address but
 *   link-local ones and the guest's own are answered, as ARP does.
 * - Echo requests to our addresses get echo replies. Echo to other hosts
 *   never reaches this file: ip6.c sends it out on ICMPv6 ping sockets.
 *
 * Limits
 * ------
 *
 * Every lifetime we advertise for the prefix, the DNS server and
 * the search list is infinite: that is at least the 3 * MaxRtrAdvInterval
 * RFC 8106 asks for, and nothing here ever changes. Incoming ICMPv6
 * checksums are not verified: the guest's kernel wrote them and the edge
 * is memory, not a wire (docs/design.md), as for IPv4. Checksums we send
 * are always complete: ICMPv6 has no "no checksum" and no offload.
 * Malformed messages are counted and dropped (RFC 4861 6.1.1, 7.1.1
 * validity checks: hop limit 255, code 0, lengths, no zero-length option).
 */

#include "../util/siphash.h"
#include "core.h"
#include "csum.h"
#include "ndp.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ND_ROUTER_SOLICIT 133
#define ND_ROUTER_ADVERT 134
#define ND_NEIGHBOR_SOLICIT 135
#define ND_NEIGHBOR_ADVERT 136

#define ND_OPT_SLLA 1	/* source link-layer address */
#define ND_OPT_TLLA 2	/* target link-layer address */
#define ND_OPT_PREFIX 3 /* prefix information */
#define ND_OPT_MTU 5
#define ND_OPT_RDNSS 25 /* RFC 8106 */
#define ND_OPT_DNSSL 31 /* RFC 8106 */

#define ND_NA_F_ROUTER 0x80
#define ND_NA_F_SOLICITED 0x40
#define ND_NA_F_OVERRIDE 0x20
#define ND_RA_F_MANAGED 0x80 /* addresses by DHCPv6 */
#define ND_RA_F_OTHER 0x40   /* other configuration by DHCPv6 */
#define ND_PREFIX_F_ONLINK 0x80
#define ND_PREFIX_F_AUTO 0x40

#define NDP_HOP_LIMIT 255
#define ICMP6_HOP_LIMIT 64
#define NDP_RA_CUR_HOP_LIMIT 64
#define NDP_LIFETIME_INFINITE 0xffffffffU

#define ND_RS_LEN 8
#define ND_NS_LEN 24
#define ND_NA_LEN 32 /* with the target link-layer address option */
#define ND_RA_HLEN 16
#define ND_OPT_PREFIX_LEN 32
#define ND_OPT_MTU_LEN 8
#define ND_OPT_RDNSS_LEN 24 /* one address */
#define ND_OPT_LLA_LEN 8
#define ND_OPT_DNSSL_HLEN 8 /* type, length, reserved, lifetime */

/* RFC 4861 6.2.1 MinRtrAdvInterval and MaxRtrAdvInterval; section 10's
 * MAX_INITIAL_RTR_ADVERTISEMENTS and MAX_INITIAL_RTR_ADVERT_INTERVAL */
#define NDP_RA_MIN_INTERVAL_NS (30ULL * 1000 * 1000 * 1000)
#define NDP_RA_MAX_INTERVAL_NS (60ULL * 1000 * 1000 * 1000)
#define NDP_RA_INITIAL_CNT 3
#define NDP_RA_INITIAL_MAX_NS (16ULL * 1000 * 1000 * 1000)

static const uint8_t ip6_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t ip6_unspec[16];

/**
 * ip6_is_unspec() - is an address ::?
 * @a:	address, 16 bytes
 *
 * Return: true for the unspecified address
 */
static bool ip6_is_unspec(const uint8_t *a)
{
	return !memcmp(a, ip6_unspec, 16);
}

/**
 * ndp_addr_ours() - is an address one the gateway answers for?
 * @c:	core
 * @a:	address, 16 bytes
 *
 * Return: our copy of the address (gateway link-local, gateway, DNS, the
 *	   addresses mapped to the host: conf.map_lo6, conf.map_guest6), or
 *	   NULL if it is not ours
 */
static const uint8_t *ndp_addr_ours(const struct core *c, const uint8_t *a)
{
	if (!memcmp(a, c->conf.gw6_ll, 16))
		return c->conf.gw6_ll;
	if (!memcmp(a, c->conf.gw6, 16))
		return c->conf.gw6;
	if (!ip6_is_unspec(c->conf.dns6) && !memcmp(a, c->conf.dns6, 16))
		return c->conf.dns6;
	if (!ip6_is_unspec(c->conf.map_lo6) && !memcmp(a, c->conf.map_lo6, 16))
		return c->conf.map_lo6;
	if (!ip6_is_unspec(c->conf.map_guest6) &&
	    !memcmp(a, c->conf.map_guest6, 16))
		return c->conf.map_guest6;
	return NULL;
}

/**
 * ndp_addr_proxied() - with conf.ndp_proxy, is an address one we answer
 * for on behalf of the host's neighbours?
 * @c:	core
 * @a:	target address, 16 bytes (not multicast)
 *
 * Return: true for unicast addresses other than ::, link-local ones (the
 *	   guest's own link) and the guest's address
 */
static bool ndp_addr_proxied(const struct core *c, const uint8_t *a)
{
	return c->conf.ndp_proxy && !ip6_is_unspec(a) &&
	       !(a[0] == 0xfe && (a[1] & 0xc0) == 0x80) &&
	       memcmp(a, c->conf.guest6, 16);
}

/**
 * ndp_is_solicited_node() - is @dst the solicited-node group of @target?
 * @dst:	destination address, 16 bytes
 * @target:	target address, 16 bytes
 *
 * Return: true for ff02::1:ffXX:XXXX with the target's last three bytes
 */
static bool ndp_is_solicited_node(const uint8_t *dst, const uint8_t *target)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	return !memcmp(dst, pfx, 13) && !memcmp(dst + 13, target + 13, 3);
}

/**
 * ndp_opts_parse() - check the options of a solicitation
 * @p:		first option
 * @len:	bytes of options
 * @slla:	out: a source link-layer address option is present
 *
 * Return: 0, or -1 if an option is truncated or has length 0
 */
static int ndp_opts_parse(const uint8_t *p, size_t len, bool *slla)
{
	size_t olen;

	*slla = false;
	while (len) {
		if (len < 2 || !p[1])
			return -1;
		olen = (size_t)p[1] * 8;
		if (olen > len)
			return -1;
		if (p[0] == ND_OPT_SLLA)
			*slla = true;
		p += olen;
		len -= olen;
	}
	return 0;
}

/**
 * ndp_send_ra() - send a router advertisement
 * @c:		core
 * @dst:	destination: the soliciting address, or all-nodes
 * @fx:		effects out
 *
 * At most 352 bytes (a 256-byte search list): it fits any IPv6 MTU.
 */
static void ndp_send_ra(struct core *c, const uint8_t *dst, struct fx *fx)
{
	const struct dhcp4_conf *d = &c->conf.dhcp4;
	size_t slen = MIN(d->search_len, sizeof(d->search));
	size_t dnssl_len = slen ? (ND_OPT_DNSSL_HLEN + slen + 7) / 8 * 8 : 0;
	bool dns = !ip6_is_unspec(c->conf.dns6);
	size_t len = ND_RA_HLEN + ND_OPT_PREFIX_LEN + ND_OPT_MTU_LEN +
		     (dns ? ND_OPT_RDNSS_LEN : 0) + dnssl_len + ND_OPT_LLA_LEN;
	uint8_t *m, *o;

	m = icmp6_begin(c, fx, dst, len, ND_ROUTER_ADVERT, 0);
	if (!m)
		return;
	m[4] = NDP_RA_CUR_HOP_LIMIT;
	m[5] = c->conf.dhcp6 ? ND_RA_F_MANAGED | ND_RA_F_OTHER : 0;
	wr16(m + 6, (uint16_t)c->conf.ra_router_lifetime_s);
	wr32(m + 8, 0);	 /* reachable time: unspecified */
	wr32(m + 12, 0); /* retrans timer: unspecified */
	o = m + ND_RA_HLEN;

	o[0] = ND_OPT_PREFIX;
	o[1] = ND_OPT_PREFIX_LEN / 8;
	o[2] = 64;
	o[3] = ND_PREFIX_F_ONLINK | ND_PREFIX_F_AUTO;
	wr32(o + 4, NDP_LIFETIME_INFINITE); /* valid */
	wr32(o + 8, NDP_LIFETIME_INFINITE); /* preferred */
	wr32(o + 12, 0);
	memcpy(o + 16, c->conf.prefix6, 8);
	memset(o + 24, 0, 8);
	o += ND_OPT_PREFIX_LEN;

	o[0] = ND_OPT_MTU;
	o[1] = ND_OPT_MTU_LEN / 8;
	wr16(o + 2, 0);
	wr32(o + 4, c->conf.mtu);
	o += ND_OPT_MTU_LEN;

	if (dns) {
		o[0] = ND_OPT_RDNSS;
		o[1] = ND_OPT_RDNSS_LEN / 8;
		wr16(o + 2, 0);
		wr32(o + 4, NDP_LIFETIME_INFINITE);
		memcpy(o + 8, c->conf.dns6, 16);
		o += ND_OPT_RDNSS_LEN;
	}

	if (dnssl_len) { /* names as DHCP has them, zero-padded to 8n */
		o[0] = ND_OPT_DNSSL;
		o[1] = (uint8_t)(dnssl_len / 8);
		wr16(o + 2, 0);
		wr32(o + 4, NDP_LIFETIME_INFINITE);
		memcpy(o + ND_OPT_DNSSL_HLEN, d->search, slen);
		memset(o + ND_OPT_DNSSL_HLEN + slen, 0,
		       dnssl_len - ND_OPT_DNSSL_HLEN - slen);
		o += dnssl_len;
	}

	o[0] = ND_OPT_SLLA;
	o[1] = ND_OPT_LLA_LEN / 8;
	memcpy(o + 2, c->conf.our_mac, ETH_ALEN);

	icmp6_send(c, fx, m, c->conf.gw6_ll, dst, NDP_HOP_LIMIT, len);
	CTR_INC(c, NDP_RA_SENT);
}

/**
 * ndp_send_na() - send a neighbour advertisement for one of our addresses
 * @c:		core
 * @target:	our address (from ndp_addr_ours()), also the source
 * @dst:	destination: the soliciting address, or all-nodes
 * @solicited:	set the solicited flag (not in answers to DAD probes)
 * @fx:		effects out
 */
static void ndp_send_na(struct core *c, const uint8_t *target,
			const uint8_t *dst, bool solicited, struct fx *fx)
{
	uint8_t *m;

	m = icmp6_begin(c, fx, dst, ND_NA_LEN, ND_NEIGHBOR_ADVERT, 0);
	if (!m)
		return;
	m[4] = ND_NA_F_ROUTER | ND_NA_F_OVERRIDE |
	       (solicited ? ND_NA_F_SOLICITED : 0);
	m[5] = m[6] = m[7] = 0;
	memcpy(m + 8, target, 16);
	m[24] = ND_OPT_TLLA;
	m[25] = ND_OPT_LLA_LEN / 8;
	memcpy(m + 26, c->conf.our_mac, ETH_ALEN);
	icmp6_send(c, fx, m, target, dst, NDP_HOP_LIMIT, ND_NA_LEN);
	CTR_INC(c, NDP_NA_SENT);
}

/**
 * ndp_rs_input() - answer a router solicitation
 * @c:		core
 * @iph:	IPv6 header
 * @v:		the solicitation (type, code and hop limit checked)
 * @fx:		effects out
 */
static void ndp_rs_input(struct core *c, const uint8_t *iph, struct pkt_view v,
			 struct fx *fx)
{
	uint8_t src[16];
	bool slla;

	memcpy(src, iph + 8, 16);
	if (v.len < ND_RS_LEN ||
	    ndp_opts_parse(v.p + ND_RS_LEN, v.len - ND_RS_LEN, &slla) ||
	    (ip6_is_unspec(src) && slla)) {
		CTR_INC(c, NDP_DROP_BAD);
		return;
	}
	ndp_send_ra(c, ip6_is_unspec(src) ? ip6_all_nodes : src, fx);
}

/**
 * ndp_ns_input() - answer a neighbour solicitation for our addresses
 * @c:		core
 * @iph:	IPv6 header
 * @v:		the solicitation (type, code and hop limit checked)
 * @fx:		effects out
 */
static void ndp_ns_input(struct core *c, const uint8_t *iph, struct pkt_view v,
			 struct fx *fx)
{
	uint8_t src[16], dst[16], target[16];
	const uint8_t *ours;
	bool slla, dad;

	if (v.len < ND_NS_LEN) {
		CTR_INC(c, NDP_DROP_BAD);
		return;
	}
	memcpy(src, iph + 8, 16);
	memcpy(dst, iph + 24, 16);
	memcpy(target, v.p + 8, 16);
	dad = ip6_is_unspec(src);
	if (ndp_opts_parse(v.p + ND_NS_LEN, v.len - ND_NS_LEN, &slla) ||
	    target[0] == 0xff ||
	    (dad && (slla || !ndp_is_solicited_node(dst, target)))) {
		CTR_INC(c, NDP_DROP_BAD);
		return;
	}
	ours = ndp_addr_ours(c, target);
	if (!ours && !dad && ndp_addr_proxied(c, target)) {
		ndp_send_na(c, target, src, true, fx);
		return;
	}
	if (!ours)
		return; /* another address, or DAD for one: not ours to say */
	ndp_send_na(c, ours, dad ? ip6_all_nodes : src, !dad, fx);
}

/**
 * icmp6_echo_input() - answer an echo request to one of our addresses
 * @c:		core
 * @iph:	IPv6 header
 * @v:		the request (type checked)
 * @fx:		effects out
 */
/**
 * icmp6_echo_input() - answer an echo request sent to one of our addresses
 * @c:		core
 * @iph:	the request's IPv6 header (validated)
 * @v:		the ICMPv6 message (type 128)
 * @fx:		effects out: the reply
 *
 * Echo to other addresses goes out on a host ping socket (udp.c).
 */
static void icmp6_echo_input(struct core *c, const uint8_t *iph,
			     struct pkt_view v, struct fx *fx)
{
	const uint8_t *ours;
	uint8_t src[16];
	uint8_t *m;

	memcpy(src, iph + 8, 16);
	if (v.len < 8 || v.p[1] != 0 || ip6_is_unspec(src)) {
		CTR_INC(c, ICMP6_DROP_BAD);
		return;
	}
	ours = ndp_addr_ours(c, iph + 24);
	if (!ours) { /* multicast, or elsewhere: no ICMPv6 sockets yet */
		CTR_INC(c, ICMP6_DROP_UNSUPPORTED);
		return;
	}
	if (core_l3_off(c) + IP6_HLEN + v.len > fx->slot_size) {
		CTR_INC(c, ICMP6_DROP_BAD);
		return;
	}
	m = icmp6_begin(c, fx, src, v.len, ICMP6_ECHO_REPLY, 0);
	if (!m)
		return;
	/* type and code are set: the request's code was 0 (checked) */
	memcpy(m + 2, v.p + 2, v.len - 2);
	icmp6_send(c, fx, m, ours, src, ICMP6_HOP_LIMIT, v.len);
	CTR_INC(c, ICMP6_ECHO_REPLIES);
}

/**
 * icmp6_input() - handle an ICMPv6 message from the guest
 * @c:		core
 * @iph:	the packet's IPv6 header (validated)
 * @v:		ICMPv6 message, after any extension headers
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void icmp6_input(struct core *c, const uint8_t *iph, struct pkt_view v,
		 uint64_t now_ns, struct fx *fx)
{
	(void)now_ns;
	if (v.len < 4) {
		CTR_INC(c, ICMP6_DROP_BAD);
		return;
	}
	switch (v.p[0]) {
	case ICMP6_ECHO_REQUEST:
		icmp6_echo_input(c, iph, v, fx);
		return;
	case ND_ROUTER_SOLICIT:
	case ND_NEIGHBOR_SOLICIT:
		/* only from the link itself (RFC 4861 6.1.1, 7.1.1) */
		if (iph[7] != NDP_HOP_LIMIT || v.p[1] != 0) {
			CTR_INC(c, NDP_DROP_BAD);
			return;
		}
		if (v.p[0] == ND_ROUTER_SOLICIT)
			ndp_rs_input(c, iph, v, fx);
		else
			ndp_ns_input(c, iph, v, fx);
		return;
	default: /* MLD reports, NA, errors, ...: nothing to do */
		CTR_INC(c, ICMP6_DROP_UNSUPPORTED);
		return;
	}
}

/**
 * ndp_init() - arm unsolicited router advertisements, from core_init()
 * @c:	core, its configuration set
 */
void ndp_init(struct core *c)
{
	c->ra_cnt = 0;
	c->ra_next_ns = UINT64_MAX;
	if (!c->conf.ipv6 || c->conf.shard_id != 0)
		return;
	c->ra_next_ns = 0;
	c->next_deadline_ns = 0;
}

/**
 * ndp_ra_interval() - time to the next unsolicited router advertisement
 * @c:		core (key, count of advertisements sent)
 * @now_ns:	monotonic time
 *
 * Uniform over [MinRtrAdvInterval, MaxRtrAdvInterval] (RFC 4861 6.2.4),
 * drawn from SipHash of the count and the time under the core's key, and
 * cut to 16 s after each of the first NDP_RA_INITIAL_CNT.
 *
 * Return: nanoseconds
 */
static uint64_t ndp_ra_interval(const struct core *c, uint64_t now_ns)
{
	const uint64_t span = NDP_RA_MAX_INTERVAL_NS - NDP_RA_MIN_INTERVAL_NS;
	uint8_t in[14] = { 'r', 'a' };
	uint64_t ivl;
	unsigned i;

	for (i = 0; i < 4; i++)
		in[2 + i] = (uint8_t)(c->ra_cnt >> (8 * i));
	for (i = 0; i < 8; i++)
		in[6 + i] = (uint8_t)(now_ns >> (8 * i));
	ivl = NDP_RA_MIN_INTERVAL_NS +
	      siphash24(c->key, in, sizeof(in)) % (span + 1);
	if (c->ra_cnt <= NDP_RA_INITIAL_CNT)
		ivl = MIN(ivl, NDP_RA_INITIAL_MAX_NS);
	return ivl;
}

/**
 * ndp_timer() - send the unsolicited router advertisement when it is due
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Return: when the next one is due; @now_ns if no frame slot was free;
 *	   UINT64_MAX if none is armed (or the next would be past the end of
 *	   time)
 */
uint64_t ndp_timer(struct core *c, uint64_t now_ns, struct fx *fx)
{
	uint64_t ivl;

	if (c->ra_next_ns > now_ns)
		return c->ra_next_ns;
	if (!fx_slot_next(fx))
		return now_ns; /* the host drains and calls again */
	ndp_send_ra(c, ip6_all_nodes, fx);
	CTR_INC(c, NDP_RA_PERIODIC);
	c->ra_cnt++;
	ivl = ndp_ra_interval(c, now_ns);
	c->ra_next_ns = now_ns < UINT64_MAX - ivl ? now_ns + ivl : UINT64_MAX;
	return c->ra_next_ns;
}
