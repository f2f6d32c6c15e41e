/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dhcp4.c - the DHCPv4 server (dhcp4.c), through core_input()
 *
 * The test plays a DHCP client: it builds BOOTP messages with build_msg(),
 * wraps them in UDP/IPv4/Ethernet as a client without an address would
 * (0.0.0.0 -> 255.255.255.255, broadcast MAC) or a bound one (unicast to
 * the gateway), and feeds them to core_input(). parse_reply() checks the
 * frame in full (Ethernet, IPv4, UDP, checksum or the NEEDS_CSUM contract,
 * the fixed BOOTP header, option syntax) and decodes the options, so each
 * test can assert exactly which options were sent and their values. Every
 * test checks with assert_ctr_deltas() that only the expected counters
 * moved.
 */
#include "cli/conf.h"
#include "util/log.h"
#include "helpers.h"
#include "core/dhcp4.h"
#include "core/udp.h"

/* conf.c, linked for conf_dhcp_name_wire(), logs through this */
enum log_level log_max_level = LOG_ERR;

#define XID 0x3903f326U
#define DNS4 ip4(10, 0, 2, 3)
#define LEASE_S 3600
#define MTU 65520

/* "example.test" as a DNS name (RFC 3397 wire format) */
static const uint8_t search_wire[] = "\x07"
				     "example"
				     "\x04"
				     "test";
#define SEARCH_LEN sizeof(search_wire) /* with the root label's 0 */

/* client hardware address: the guest's MAC, zero-padded to 16 bytes */
static const uint8_t chaddr[16] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* what clients ask for: mask, router, DNS, MTU, search (busybox -O mtu) */
static const uint8_t prl_all[] = { 1, 3, 6, 12, 15, 26, 28, 119 };
static const uint8_t prl_no_mtu[] = { 1, 3, 6, 15, 119 };

/* PRL() - the struct dreq fields of a parameter request list */
#define PRL(list) .prl = (list), .prl_len = sizeof(list)

/**
 * struct dreq - a client message, for build_msg()
 * @type:	option 53 value (0: no option 53)
 * @op:		BOOTP op (0: BOOTREQUEST)
 * @hlen:	hardware address length (0: 6)
 * @flags:	BOOTP flags
 * @ciaddr:	client address field
 * @giaddr:	relay address field
 * @req_addr:	option 50 (0: absent)
 * @server_id:	option 54 (0: absent)
 * @prl:	option 55 (NULL: absent)
 * @prl_len:	its length
 * @extra:	raw options appended after the others (before End)
 * @extra_len:	their length
 * @no_end:	leave out the End option
 */
struct dreq {
	uint8_t type;
	uint8_t op;
	uint8_t hlen;
	uint16_t flags;
	uint32_t ciaddr, giaddr;
	uint32_t req_addr;
	uint32_t server_id;
	const uint8_t *prl;
	size_t prl_len;
	const uint8_t *extra;
	size_t extra_len;
	bool no_end;
};

/**
 * struct dreply - a reply the core queued, decoded by parse_reply()
 * @saddr:	IPv4 source
 * @daddr:	IPv4 destination
 * @b:		the BOOTP message, in the frame slot
 * @len:	its length
 * @opt:	value of each option present (NULL: absent)
 * @optlen:	length of each option present
 * @search:	option 119, all instances concatenated (RFC 3396)
 * @search_len:	bytes of @search
 * @nsearch:	instances of option 119
 */
struct dreply {
	uint32_t saddr, daddr;
	const uint8_t *b;
	size_t len;
	const uint8_t *opt[256];
	uint8_t optlen[256];
	uint8_t search[600];
	size_t search_len;
	unsigned nsearch;
};

/**
 * dhcp_conf() - the test configuration: helpers' core plus the server
 * @cc:		configuration out
 * @offload:	passed to env_conf()
 *
 * 10.0.2.15/24, router and server 10.0.2.2, DNS 10.0.2.3, an hour's
 * lease, MTU 65520, search list "example.test".
 */
static void dhcp_conf(struct core_conf *cc, bool offload)
{
	struct dhcp4_conf *d = &cc->dhcp4;

	env_conf(cc, offload);
	cc->dhcp = true;
	d->addr_be = GUEST4;
	d->mask_be = ip4(255, 255, 255, 0);
	d->router_be = GW4;
	d->server_be = GW4;
	d->dns_be[0] = DNS4;
	d->ndns = 1;
	d->lease_s = LEASE_S;
	d->mtu = MTU;
	memcpy(d->search, search_wire, SEARCH_LEN);
	d->search_len = SEARCH_LEN;
}

/* setup_offload(): a DHCP-serving core as on tap (vnet header,
 * offload); setup_plain(): without vnet header or offload */
ENV_SETUPS(dhcp_conf)

/**
 * opt_put() - append an option to a message being built
 * @p:		where
 * @code:	option code
 * @val:	value
 * @len:	value length
 *
 * Return: bytes written
 */
static size_t opt_put(uint8_t *p, uint8_t code, const void *val, size_t len)
{
	p[0] = code;
	p[1] = (uint8_t)len;
	memcpy(p + 2, val, len);
	return 2 + len;
}

/**
 * build_msg() - a client's BOOTP/DHCP message
 * @p:		where (at least 600 bytes)
 * @q:		what to put in it
 *
 * xid XID, chaddr the guest's MAC, magic cookie, then options 53, 50, 54,
 * 55, @q->extra and End, in that order.
 *
 * Return: message length
 */
static size_t build_msg(uint8_t *p, const struct dreq *q)
{
	uint8_t *o = p + 240;

	memset(p, 0, 240);
	p[0] = q->op ? q->op : 1;
	p[1] = 1;
	p[2] = q->hlen ? q->hlen : 6;
	wr32(p + 4, XID);
	wr16(p + 8, 3); /* secs */
	wr16(p + 10, q->flags);
	memcpy(p + 12, &q->ciaddr, 4);
	memcpy(p + 24, &q->giaddr, 4);
	memcpy(p + 28, chaddr, 16);
	p[236] = 99;
	p[237] = 130;
	p[238] = 83;
	p[239] = 99;
	if (q->type)
		o += opt_put(o, 53, &q->type, 1);
	if (q->req_addr)
		o += opt_put(o, 50, &q->req_addr, 4);
	if (q->server_id)
		o += opt_put(o, 54, &q->server_id, 4);
	if (q->prl)
		o += opt_put(o, 55, q->prl, q->prl_len);
	if (q->extra_len)
		memcpy(o, q->extra, q->extra_len);
	o += q->extra_len;
	if (!q->no_end)
		*o++ = 255;
	return (size_t)(o - p);
}

/**
 * build_udp_frame() - wrap a UDP payload from the guest's port 68 to 67
 * @e:		environment
 * @buf:	frame start
 * @dst_mac:	Ethernet destination
 * @saddr:	IPv4 source
 * @daddr:	IPv4 destination
 * @msg:	payload
 * @len:	payload length
 *
 * Return: frame length
 */
static size_t build_udp_frame(const struct env *e, uint8_t *buf,
			      const uint8_t *dst_mac, uint32_t saddr,
			      uint32_t daddr, const uint8_t *msg, size_t len)
{
	size_t off = build_l2(e, buf, dst_mac, guest_mac, ETHERTYPE_IP4);
	uint8_t *uh;

	off += build_ip4(buf + off, IPPROTO_UDP_, saddr, daddr, UDP_HLEN + len);
	uh = buf + off;
	wr16(uh, DHCP4_CLIENT_PORT);
	wr16(uh + 2, DHCP4_SERVER_PORT);
	wr16(uh + 4, (uint16_t)(UDP_HLEN + len));
	wr16(uh + 6, 0);
	memmove(uh + UDP_HLEN, msg, len);
	wr16(uh + 6,
	     (uint16_t)~ref_sum16(uh, UDP_HLEN + len,
				  ref_pseudo4(saddr, daddr, IPPROTO_UDP_,
					      (uint16_t)(UDP_HLEN + len))));
	return off + UDP_HLEN + len;
}

/**
 * send_raw() - a message from a client without an address: 0.0.0.0 to
 * 255.255.255.255, broadcast MAC
 * @e:		environment
 * @msg:	the BOOTP message
 * @len:	its length
 */
static void send_raw(struct env *e, const uint8_t *msg, size_t len)
{
	env_input(e, e->in,
		  build_udp_frame(e, e->in, bcast_mac, 0, 0xffffffffU, msg,
				  len));
}

/**
 * send_bcast() - build a message and send it as send_raw() does
 * @e:	environment
 * @q:	message
 */
static void send_bcast(struct env *e, const struct dreq *q)
{
	uint8_t msg[1024];

	send_raw(e, msg, build_msg(msg, q));
}

/**
 * send_unicast() - build a message and send it from the guest's address
 * to the gateway, as a client renewing its lease does
 * @e:	environment
 * @q:	message
 */
static void send_unicast(struct env *e, const struct dreq *q)
{
	uint8_t msg[1024];
	size_t len = build_msg(msg, q);

	env_input(e, e->in,
		  build_udp_frame(e, e->in, our_mac, GUEST4, GW4, msg, len));
}

/**
 * parse_reply() - check frame @i completely as a DHCP reply and decode it
 * @e:		environment
 * @i:		frame index
 * @dst_mac:	expected Ethernet destination (NULL: the guest's MAC)
 * @r:		out: the reply
 *
 * Checks the IPv4 header (as parse_ip4() does), UDP ports 67 -> 68 and
 * length, the UDP checksum (with offload: NEEDS_CSUM from byte 34, field
 * at offset 6 holding the pseudo-header sum; without: the full checksum
 * verifies and is not 0), the fixed BOOTP header of a reply (op 2,
 * Ethernet, hops, secs, sname and file zero, xid, chaddr), the magic
 * cookie, the option syntax (each option once but 119, End present, zero
 * padding after it) and the RFC 1542 minimum of 300 bytes.
 */
static void parse_reply(const struct env *e, unsigned i, const uint8_t *dst_mac,
			struct dreply *r)
{
	const uint8_t *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	const uint8_t *ip, *uh, *b;
	size_t len, ulen, k;
	bool end = false;

	memset(r, 0, sizeof(*r));
	ip = frame_l3(e, i, ETHERTYPE_IP4, dst_mac, &len);
	assert_true(len >= IP4_HLEN + UDP_HLEN);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(rd16(ip + 2), len);
	assert_int_equal(rd16(ip + 6), 0x4000);
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], IPPROTO_UDP_);
	assert_int_equal(ref_sum16(ip, IP4_HLEN, 0), 0xffff);
	memcpy(&r->saddr, ip + 12, 4);
	memcpy(&r->daddr, ip + 16, 4);

	uh = ip + IP4_HLEN;
	ulen = len - IP4_HLEN;
	assert_int_equal(rd16(uh), DHCP4_SERVER_PORT);
	assert_int_equal(rd16(uh + 2), DHCP4_CLIENT_PORT);
	assert_int_equal(rd16(uh + 4), ulen);
	if (e->c.conf.csum_offload) {
		assert_int_equal(e->c.conf.vnet_hdr_len, 12);
		assert_int_equal(f[0], VNET_HDR_F_NEEDS_CSUM);
		assert_int_equal(f[1], VNET_HDR_GSO_NONE);
		assert_int_equal(f[6] | f[7] << 8, ETH_HLEN + IP4_HLEN);
		assert_int_equal(f[8] | f[9] << 8, 6);
		assert_int_equal(rd16(uh + 6),
				 ref_pseudo4(r->saddr, r->daddr, IPPROTO_UDP_,
					     (uint16_t)ulen));
	} else {
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
		assert_int_not_equal(rd16(uh + 6), 0);
		assert_int_equal(l4_csum_ok(r->saddr, r->daddr, IPPROTO_UDP_,
					    uh, ulen),
				 0xffff);
	}

	b = uh + UDP_HLEN;
	r->b = b;
	r->len = ulen - UDP_HLEN;
	assert_true(r->len >= 300);
	assert_int_equal(b[0], 2);
	assert_int_equal(b[1], 1);
	assert_int_equal(b[2], 6);
	assert_int_equal(b[3], 0);
	assert_int_equal(rd32(b + 4), XID);
	assert_int_equal(rd16(b + 8), 0);
	assert_memory_equal(b + 28, chaddr, 16);
	for (k = 44; k < 236; k++)
		assert_int_equal(b[k], 0);
	assert_int_equal(rd32(b + 236), 0x63825363);

	for (k = 240; k < r->len;) {
		uint8_t code = b[k], olen;

		if (end) {
			assert_int_equal(code, 0); /* padding after End */
			k++;
			continue;
		}
		if (code == 255) {
			end = true;
			k++;
			continue;
		}
		assert_int_not_equal(code, 0); /* we send no Pad */
		assert_true(k + 2 <= r->len);
		olen = b[k + 1];
		assert_true(k + 2 + olen <= r->len);
		if (code == 119) {
			memcpy(r->search + r->search_len, b + k + 2, olen);
			r->search_len += olen;
			r->nsearch++;
			r->opt[code] = r->search;
		} else {
			if (r->opt[code])
				fail_msg("option %u twice", code);
			r->opt[code] = b + k + 2;
		}
		r->optlen[code] = olen;
		k += 2 + olen;
	}
	assert_true(end);
}

/**
 * bcast_reply() - broadcast a message, expect exactly one reply, decode it
 * @e:	environment
 * @q:	message, sent as send_bcast() does
 * @r:	out: the reply (frame 0, to the broadcast MAC), as parse_reply()
 */
static void bcast_reply(struct env *e, const struct dreq *q, struct dreply *r)
{
	send_bcast(e, q);
	assert_int_equal(e->fx.nframes, 1);
	parse_reply(e, 0, bcast_mac, r);
}

/**
 * assert_opts_exactly() - the reply holds exactly these options
 * @r:		reply
 * @...:	(int) option codes, ended by -1 (53 and End are implied)
 */
static void assert_opts_exactly(const struct dreply *r, ...)
{
	bool want[256] = { false };
	va_list ap;
	int code;

	want[53] = true;
	va_start(ap, r);
	while ((code = va_arg(ap, int)) >= 0)
		want[code] = true;
	va_end(ap);
	for (code = 1; code < 255; code++) {
		if (want[code] && !r->opt[code])
			fail_msg("option %d missing", code);
		if (!want[code] && r->opt[code])
			fail_msg("option %d unexpected", code);
	}
}

/**
 * assert_opt_addr() - an option holds exactly one address
 * @r:		reply
 * @code:	option
 * @addr:	expected address
 */
static void assert_opt_addr(const struct dreply *r, uint8_t code, uint32_t addr)
{
	assert_non_null(r->opt[code]);
	assert_int_equal(r->optlen[code], 4);
	assert_memory_equal(r->opt[code], &addr, 4);
}

/**
 * assert_opt_u32() - an option holds one 32-bit number
 * @r:		reply
 * @code:	option
 * @v:		expected value
 */
static void assert_opt_u32(const struct dreply *r, uint8_t code, uint32_t v)
{
	assert_non_null(r->opt[code]);
	assert_int_equal(r->optlen[code], 4);
	assert_int_equal(rd32(r->opt[code]), v);
}

/**
 * assert_type() - the reply's message type
 * @r:		reply
 * @type:	expected option 53
 */
static void assert_type(const struct dreply *r, uint8_t type)
{
	assert_non_null(r->opt[53]);
	assert_int_equal(r->optlen[53], 1);
	assert_int_equal(r->opt[53][0], type);
}

/**
 * assert_addr_field() - an address field of the fixed header
 * @r:		reply
 * @off:	field offset (12 ciaddr, 16 yiaddr, 20 siaddr, 24 giaddr)
 * @addr:	expected value
 */
static void assert_addr_field(const struct dreply *r, size_t off, uint32_t addr)
{
	assert_memory_equal(r->b + off, &addr, 4);
}

/**
 * check_lease_reply() - frame 0 is an OFFER or ACK handing out the lease
 * @e:		environment
 * @type:	2 (OFFER) or 5 (ACK)
 * @dst_mac:	expected Ethernet destination (NULL: the guest's MAC)
 * @daddr:	expected IPv4 destination
 * @ciaddr:	expected ciaddr field
 * @flags:	expected flags field
 *
 * Every option and its value: server id, lease 3600 s, T1 1800 s, T2
 * 3150 s, mask, router, one DNS server, the MTU (asked for or not), the
 * search list.
 */
static void check_lease_reply(const struct env *e, uint8_t type,
			      const uint8_t *dst_mac, uint32_t daddr,
			      uint32_t ciaddr, uint16_t flags)
{
	struct dreply r;

	assert_int_equal(e->fx.nframes, 1);
	assert_int_equal(e->fx.nintents, 0);
	parse_reply(e, 0, dst_mac, &r);
	assert_int_equal(r.saddr, GW4);
	assert_int_equal(r.daddr, daddr);
	assert_int_equal(rd16(r.b + 10), flags);
	assert_addr_field(&r, 12, ciaddr);
	assert_addr_field(&r, 16, GUEST4);
	assert_addr_field(&r, 20, 0);
	assert_addr_field(&r, 24, 0);
	assert_type(&r, type);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 119, -1);
	assert_opt_addr(&r, 54, GW4);
	assert_opt_u32(&r, 51, LEASE_S);
	assert_opt_u32(&r, 58, LEASE_S / 2);
	assert_opt_u32(&r, 59, LEASE_S * 7 / 8);
	assert_opt_addr(&r, 1, ip4(255, 255, 255, 0));
	assert_opt_addr(&r, 3, GW4);
	assert_opt_addr(&r, 6, DNS4);
	assert_int_equal(r.optlen[26], 2);
	assert_int_equal(rd16(r.opt[26]), MTU);
	assert_int_equal(r.nsearch, 1);
	assert_int_equal(r.search_len, SEARCH_LEN);
	assert_memory_equal(r.search, search_wire, SEARCH_LEN);
	/* 240 + 53, 54, 51, 58, 59, 1, 3, 6 (45) + 26 (4) + 119 (16) + End */
	assert_int_equal(r.len, 306);
}

/**
 * assert_offers() - since env_mark(): @n DISCOVERs, each answered with an
 * OFFER, and nothing else counted
 * @e:	environment
 * @n:	number of each
 */
static void assert_offers(const struct env *e, int n)
{
	assert_ctr_deltas(e, CTR_DHCP4_DISCOVER, n, CTR_DHCP4_OFFER, n,
			  CTR_UDP_TO_GUEST, n, -1);
}

/**
 * assert_acks() - since env_mark(): @n REQUESTs, each answered with an
 * ACK, and nothing else counted
 * @e:	environment
 * @n:	number of each
 */
static void assert_acks(const struct env *e, int n)
{
	assert_ctr_deltas(e, CTR_DHCP4_REQUEST, n, CTR_DHCP4_ACK, n,
			  CTR_UDP_TO_GUEST, n, -1);
}

/**
 * bcast_lease() - broadcast a message, expect the lease broadcast back
 * @e:		environment
 * @q:		message, sent as send_bcast() does
 * @type:	2 (OFFER) or 5 (ACK)
 *
 * The reply must be check_lease_reply()'s to 255.255.255.255, the
 * broadcast MAC, ciaddr 0 and flags 0; the slots are cleared after.
 */
static void bcast_lease(struct env *e, const struct dreq *q, uint8_t type)
{
	send_bcast(e, q);
	check_lease_reply(e, type, bcast_mac, 0xffffffffU, 0, 0);
	env_clear(e);
}

/**
 * check_nak() - frame 0 is a NAK, broadcast
 * @e:		environment
 * @flags:	expected flags field (the client's)
 */
static void check_nak(const struct env *e, uint16_t flags)
{
	struct dreply r;

	assert_int_equal(e->fx.nframes, 1);
	assert_int_equal(e->fx.nintents, 0);
	parse_reply(e, 0, bcast_mac, &r);
	assert_int_equal(r.saddr, GW4);
	assert_int_equal(r.daddr, 0xffffffffU);
	assert_int_equal(rd16(r.b + 10), flags);
	assert_addr_field(&r, 12, 0);
	assert_addr_field(&r, 16, 0);
	assert_addr_field(&r, 20, 0);
	assert_type(&r, 6);
	assert_opts_exactly(&r, 54, -1);
	assert_opt_addr(&r, 54, GW4);
	assert_int_equal(r.len, 300); /* 250 bytes, padded (RFC 1542) */
}

/**
 * bcast_nak() - broadcast a message, expect a NAK
 * @e:		environment
 * @q:		message, sent as send_bcast() does
 * @flags:	expected flags field, as check_nak(); the slots are cleared
 *		after
 */
static void bcast_nak(struct env *e, const struct dreq *q, uint16_t flags)
{
	send_bcast(e, q);
	check_nak(e, flags);
	env_clear(e);
}

/**
 * unicast_nak() - send a message as send_unicast() does, expect a NAK
 * @e:		environment
 * @q:		message
 * @flags:	expected flags field, as check_nak(); the slots are cleared
 *		after
 */
static void unicast_nak(struct env *e, const struct dreq *q, uint16_t flags)
{
	send_unicast(e, q);
	check_nak(e, flags);
	env_clear(e);
}

/**
 * test_discover_offer() - DISCOVER gets the exact OFFER, broadcast
 * @state:	environment
 */
static void test_discover_offer(void **state)
{
	struct dreq q = { .type = 1, PRL(prl_all) };
	struct env *e = *state;
	struct dreply r;

	bcast_lease(e, &q, 2);
	assert_offers(e, 1);

	/* the broadcast flag is echoed; giaddr is copied */
	env_mark(e);
	q.flags = 0x8000;
	q.giaddr = ip4(192, 0, 2, 1);
	bcast_reply(e, &q, &r);
	assert_int_equal(rd16(r.b + 10), 0x8000);
	assert_addr_field(&r, 24, ip4(192, 0, 2, 1));
	assert_int_equal(r.daddr, 0xffffffffU);
	assert_offers(e, 1);
	env_clear(e);
}

/**
 * test_discover_no_mtu() - option 26 also for clients that do not ask for
 * it, as passt does (busybox's udhcpc does not)
 * @state:	environment
 *
 * A parameter request list without 26, and no list at all.
 */
static void test_discover_no_mtu(void **state)
{
	struct dreq q = { .type = 1, PRL(prl_no_mtu) };
	struct env *e = *state;

	bcast_lease(e, &q, 2);
	q.prl = NULL;
	bcast_lease(e, &q, 2);
	assert_offers(e, 2);
}

/**
 * test_request_selecting() - REQUEST after our OFFER: ACK, broadcast
 * @state:	environment
 */
static void test_request_selecting(void **state)
{
	struct dreq q = {
		.type = 3, .req_addr = GUEST4, .server_id = GW4, PRL(prl_all)
	};
	struct env *e = *state;

	bcast_lease(e, &q, 5);
	assert_acks(e, 1);
}

/**
 * test_request_init_reboot() - REQUEST without server id (INIT-REBOOT):
 * ACK for our address, NAK for another
 * @state:	environment
 */
static void test_request_init_reboot(void **state)
{
	struct dreq q = { .type = 3, .req_addr = GUEST4, PRL(prl_all) };
	struct env *e = *state;

	bcast_lease(e, &q, 5);
	q.req_addr = ip4(192, 168, 1, 50);
	bcast_nak(e, &q, 0);
	assert_ctr_deltas(e, CTR_DHCP4_REQUEST, 2, CTR_DHCP4_ACK, 1,
			  CTR_DHCP4_NAK, 1, CTR_UDP_TO_GUEST, 2, -1);
}

/**
 * test_request_other_addr() - REQUEST for another address of our subnet,
 * to us: NAK, broadcast, the client's flags kept
 * @state:	environment
 */
static void test_request_other_addr(void **state)
{
	struct dreq q = { .type = 3,
			  .req_addr = ip4(10, 0, 2, 16),
			  .server_id = GW4,
			  .flags = 0x8000 };
	struct env *e = *state;

	bcast_nak(e, &q, 0x8000);
	assert_ctr_deltas(e, CTR_DHCP4_REQUEST, 1, CTR_DHCP4_NAK, 1,
			  CTR_UDP_TO_GUEST, 1, -1);
}

/**
 * test_request_other_server() - REQUEST naming another server: the client
 * took someone else's offer; silence
 * @state:	environment
 */
static void test_request_other_server(void **state)
{
	struct dreq q = { .type = 3,
			  .req_addr = GUEST4,
			  .server_id = ip4(10, 0, 2, 1) };
	struct env *e = *state;

	send_bcast(e, &q);
	q.req_addr = ip4(10, 0, 2, 77); /* not even NAKed */
	send_bcast(e, &q);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_DHCP4_DROP_IGNORED, 2, -1);
}

/**
 * test_renew() - RENEWING: unicast from ciaddr to the gateway, no option
 * 50 or 54: ACK unicast to ciaddr at the guest's MAC; REBINDING with the
 * broadcast flag: ACK broadcast; a wrong ciaddr: NAK, broadcast
 * @state:	environment
 */
static void test_renew(void **state)
{
	struct dreq q = { .type = 3, .ciaddr = GUEST4, PRL(prl_all) };
	struct env *e = *state;

	send_unicast(e, &q);
	check_lease_reply(e, 5, NULL, GUEST4, GUEST4, 0);
	env_clear(e);

	q.flags = 0x8000;
	send_bcast(e, &q);
	check_lease_reply(e, 5, bcast_mac, 0xffffffffU, GUEST4, 0x8000);
	env_clear(e);

	q.flags = 0;
	q.ciaddr = ip4(10, 0, 3, 15);
	unicast_nak(e, &q, 0);
	assert_ctr_deltas(e, CTR_DHCP4_REQUEST, 3, CTR_DHCP4_ACK, 2,
			  CTR_DHCP4_NAK, 1, CTR_UDP_TO_GUEST, 3, -1);
}

/**
 * test_request_no_addr() - a REQUEST naming no address at all gets ours
 * @state:	environment
 */
static void test_request_no_addr(void **state)
{
	struct dreq q = { .type = 3, PRL(prl_all) };
	struct env *e = *state;

	bcast_lease(e, &q, 5);
	assert_acks(e, 1);
}

/**
 * test_inform() - INFORM from a configured client: ACK to ciaddr, no
 * yiaddr, no lease times, the other parameters
 * @state:	environment
 */
static void test_inform(void **state)
{
	struct dreq q = { .type = 8, .ciaddr = GUEST4, PRL(prl_all) };
	struct env *e = *state;
	struct dreply r;

	send_unicast(e, &q);
	assert_int_equal(e->fx.nframes, 1);
	parse_reply(e, 0, NULL, &r);
	assert_int_equal(r.saddr, GW4);
	assert_int_equal(r.daddr, GUEST4);
	assert_addr_field(&r, 12, GUEST4);
	assert_addr_field(&r, 16, 0);
	assert_type(&r, 5);
	assert_opts_exactly(&r, 54, 1, 3, 6, 26, 119, -1);
	assert_opt_addr(&r, 54, GW4);
	assert_opt_addr(&r, 1, ip4(255, 255, 255, 0));
	assert_opt_addr(&r, 3, GW4);
	assert_opt_addr(&r, 6, DNS4);
	assert_int_equal(rd16(r.opt[26]), MTU);
	assert_memory_equal(r.search, search_wire, SEARCH_LEN);
	assert_ctr_deltas(e, CTR_DHCP4_INFORM, 1, CTR_DHCP4_ACK, 1,
			  CTR_UDP_TO_GUEST, 1, -1);
	env_clear(e);
}

/**
 * test_release_decline() - RELEASE and DECLINE get no reply; RELEASE is
 * counted as such, DECLINE (no counter of its own) as ignored, and so is
 * a RELEASE for another server
 * @state:	environment
 */
static void test_release_decline(void **state)
{
	struct dreq q = { .type = 7, .ciaddr = GUEST4, .server_id = GW4 };
	struct env *e = *state;

	send_unicast(e, &q);
	assert_ctr_deltas(e, CTR_DHCP4_RELEASE, 1, -1);
	q.server_id = ip4(10, 0, 2, 1);
	send_unicast(e, &q);
	q = (struct dreq){ .type = 4, .req_addr = GUEST4, .server_id = GW4 };
	send_bcast(e, &q);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_DHCP4_RELEASE, 1, CTR_DHCP4_DROP_IGNORED, 2,
			  -1);
}

/**
 * test_option_syntax() - options the parser must walk correctly: Pad
 * bytes, a parameter request list split in two (RFC 3396), unknown and
 * overload options, a missing End, and garbage after End
 * @state:	environment
 */
static void test_option_syntax(void **state)
{
	static const uint8_t split[] = {
		0,   0,			    /* Pad */
		55,  2, 1,   3,		    /* the rest of the request list */
		55,  1, 26,		    /* ... with the MTU */
		52,  1, 3,		    /* overload: ignored */
		224, 3, 1,   2,	  3,	    /* site-specific option */
		12,  4, 'g', 'u', 'e', 's', /* host name */
		0,
	};
	static const uint8_t after_end[] = { 255, 53, 1, 7, 42, 200 };
	struct dreq q = { .type = 1,
			  .extra = split,
			  .extra_len = sizeof(split) };
	struct env *e = *state;

	bcast_lease(e, &q, 2);

	q.no_end = true;
	bcast_lease(e, &q, 2);

	/* bytes after End are not options: not a second type, not bad */
	q = (struct dreq){ .type = 1,
			   .extra = after_end,
			   .extra_len = sizeof(after_end),
			   .no_end = true };
	bcast_lease(e, &q, 2);
	assert_offers(e, 3);
}

/**
 * test_padded_datagram() - Ethernet padding and bytes past the UDP length
 * are not read as options
 * @state:	environment
 */
static void test_padded_datagram(void **state)
{
	static const uint8_t junk[] = { 50, 200 };
	struct dreq q = { .type = 1,
			  .extra = junk,
			  .extra_len = sizeof(junk),
			  .no_end = true };
	struct env *e = *state;
	size_t off = e->c.conf.vnet_hdr_len + ETH_HLEN + IP4_HLEN, flen;
	uint8_t msg[1024];
	size_t len = build_msg(msg, &q);

	/* the UDP length ends the message right after option 53: the two
	 * bytes after it (a bad option) are inside the IP packet but not
	 * in the datagram; then 20 bytes of Ethernet padding */
	flen = build_udp_frame(e, e->in, bcast_mac, 0, 0xffffffffU, msg, len);
	wr16(e->in + off + 4, (uint16_t)(UDP_HLEN + len - sizeof(junk)));
	memset(e->in + flen, 0xee, 20);
	env_input(e, e->in, flen + 20);
	check_lease_reply(e, 2, bcast_mac, 0xffffffffU, 0, 0);
	env_clear(e);
	assert_offers(e, 1);
}

/* malformed or foreign messages, each dropped under one counter */
enum bad_kind {
	BAD_EMPTY,
	BAD_TRUNC_HDR,
	BAD_TRUNC_COOKIE,
	BAD_COOKIE,
	BAD_OPT_PAST_END,
	BAD_OPT_NO_LEN,
	BAD_NO_TYPE,
	BAD_TYPE_LEN,
	BAD_TYPE_TWICE,
	BAD_TYPE_ZERO,
	BAD_TYPE_UNKNOWN,
	BAD_REQ_ADDR_LEN,
	BAD_SERVER_ID_LEN,
	BAD_SERVER_ID_TWICE,
	BAD_MAX_SIZE_LEN,
	IGN_TYPE_OFFER,
	IGN_TYPE_LEASEQUERY,
	IGN_HLEN16,
	IGN_HTYPE,
	IGN_OP_REPLY,
	IGN_BOOTP,
	BAD_NUM
};

/**
 * build_bad() - a message with one defect
 * @msg:	buffer, at least 1024 bytes
 * @kind:	enum bad_kind
 * @ctr:	out: the counter it must be dropped under
 *
 * Return: message length
 */
static size_t build_bad(uint8_t *msg, int kind, enum ctr_id *ctr)
{
	static const uint8_t past_end[] = { 12, 10, 'a', 'b' };
	static const uint8_t no_len[] = { 12 };
	static const uint8_t type_len[] = { 53, 2, 1, 1 };
	static const uint8_t type_twice[] = { 53, 1, 3 };
	static const uint8_t req_len[] = { 50, 3, 10, 0, 2 };
	static const uint8_t sid_len[] = { 54, 5, 10, 0, 2, 2, 0 };
	static const uint8_t sid_twice[] = { 54, 4, 10, 0, 2, 2 };
	static const uint8_t max_len[] = { 57, 1, 255 };
	struct dreq q = { .type = 1, PRL(prl_all) };
	size_t len;

	*ctr = CTR_DHCP4_DROP_BAD;
	switch (kind) {
	case BAD_EMPTY:
		return 0;
	case BAD_TRUNC_HDR:
		build_msg(msg, &q);
		return 235;
	case BAD_TRUNC_COOKIE:
		build_msg(msg, &q);
		return 239;
	case BAD_COOKIE:
		*ctr = CTR_DHCP4_DROP_IGNORED;
		len = build_msg(msg, &q);
		msg[239] = 98;
		return len;
	case BAD_OPT_PAST_END:
		q.extra = past_end;
		q.extra_len = sizeof(past_end);
		q.no_end = true;
		return build_msg(msg, &q);
	case BAD_OPT_NO_LEN:
		q.extra = no_len;
		q.extra_len = sizeof(no_len);
		q.no_end = true;
		return build_msg(msg, &q);
	case BAD_NO_TYPE:
		q.type = 0;
		return build_msg(msg, &q);
	case BAD_TYPE_LEN:
		q.type = 0;
		q.extra = type_len;
		q.extra_len = sizeof(type_len);
		return build_msg(msg, &q);
	case BAD_TYPE_TWICE:
		q.extra = type_twice;
		q.extra_len = sizeof(type_twice);
		return build_msg(msg, &q);
	case BAD_TYPE_ZERO:
		q.type = 0;
		q.extra = (const uint8_t *)"\x35\x01\x00";
		q.extra_len = 3;
		return build_msg(msg, &q);
	case BAD_TYPE_UNKNOWN:
		q.type = 42;
		return build_msg(msg, &q);
	case BAD_REQ_ADDR_LEN:
		q.type = 3;
		q.extra = req_len;
		q.extra_len = sizeof(req_len);
		return build_msg(msg, &q);
	case BAD_SERVER_ID_LEN:
		q.type = 3;
		q.extra = sid_len;
		q.extra_len = sizeof(sid_len);
		return build_msg(msg, &q);
	case BAD_SERVER_ID_TWICE:
		/* RFC 3396 would make it one 8-byte option: not an address */
		q.type = 3;
		q.server_id = GW4;
		q.extra = sid_twice;
		q.extra_len = sizeof(sid_twice);
		return build_msg(msg, &q);
	case BAD_MAX_SIZE_LEN:
		q.extra = max_len;
		q.extra_len = sizeof(max_len);
		return build_msg(msg, &q);
	case IGN_TYPE_OFFER:
		*ctr = CTR_DHCP4_DROP_IGNORED;
		q.type = 2;
		return build_msg(msg, &q);
	case IGN_TYPE_LEASEQUERY:
		*ctr = CTR_DHCP4_DROP_IGNORED;
		q.type = 10;
		return build_msg(msg, &q);
	case IGN_HLEN16:
		*ctr = CTR_DHCP4_DROP_IGNORED;
		q.hlen = 16;
		return build_msg(msg, &q);
	case IGN_HTYPE:
		*ctr = CTR_DHCP4_DROP_IGNORED;
		len = build_msg(msg, &q);
		msg[1] = 6; /* IEEE 802 */
		return len;
	case IGN_OP_REPLY:
		*ctr = CTR_DHCP4_DROP_IGNORED;
		q.op = 2;
		return build_msg(msg, &q);
	case IGN_BOOTP:
		/* plain BOOTP: a 300-byte message, vendor area all zero */
		*ctr = CTR_DHCP4_DROP_IGNORED;
		build_msg(msg, &q);
		memset(msg + 236, 0, 64);
		return 300;
	default:
		fail();
		return 0;
	}
}

/**
 * test_malformed() - each defect: its own counter, no frame, no intent
 * @state:	environment
 */
static void test_malformed(void **state)
{
	struct env *e = *state;
	uint8_t msg[1024];
	int kind;

	for (kind = 0; kind < BAD_NUM; kind++) {
		enum ctr_id ctr;
		size_t len = build_bad(msg, kind, &ctr);

		env_mark(e);
		send_raw(e, msg, len);
		assert_dropped(e, kind, ctr);
	}
}

/**
 * test_dhcp_off() - with conf.dhcp off, DHCP is dropped as not for us
 * @state:	environment
 */
static void test_dhcp_off(void **state)
{
	struct dreq q = { .type = 1 };
	struct env *e = *state;

	e->c.conf.dhcp = false;
	send_bcast(e, &q);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP4_DROP_IGNORED, 1, -1);
}

/**
 * test_conf_variants() - an infinite lease has no T1/T2; without router
 * or DNS servers, options 3 and 6 are left out; three DNS servers go in
 * one option
 * @state:	environment
 */
static void test_conf_variants(void **state)
{
	struct dreq q = { .type = 1, PRL(prl_no_mtu) };
	struct env *e = *state;
	struct dhcp4_conf *d = &e->c.conf.dhcp4;
	uint32_t dns3[3] = { DNS4, ip4(192, 0, 2, 53), ip4(198, 51, 100, 53) };
	struct dreply r;

	d->lease_s = UINT32_MAX;
	d->router_be = 0;
	d->ndns = 0;
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 1, 26, 119, -1);
	assert_opt_u32(&r, 51, UINT32_MAX);
	env_clear(e);

	memcpy(d->dns_be, dns3, sizeof(dns3));
	d->ndns = 3;
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 1, 6, 26, 119, -1);
	assert_int_equal(r.optlen[6], 12);
	assert_memory_equal(r.opt[6], dns3, 12);
	env_clear(e);
	assert_offers(e, 2);
}

/**
 * test_long_search() - a 256-byte search list is split over two options
 * (RFC 3396); the list is left out when the reply would exceed 576 bytes
 * of IP, unless the client allows more (option 57, which counts as 576
 * when lower)
 * @state:	environment
 */
static void test_long_search(void **state)
{
	static const uint8_t max1500[] = { 57, 2, 0x05, 0xdc };
	static const uint8_t max300[] = { 57, 2, 0x01, 0x2c };
	struct dreq q = { .type = 1,
			  PRL(prl_all),
			  .extra = max1500,
			  .extra_len = sizeof(max1500) };
	struct env *e = *state;
	struct dhcp4_conf *d = &e->c.conf.dhcp4;
	struct dreply r;
	size_t i;

	for (i = 0; i < sizeof(d->search); i++)
		d->search[i] = (uint8_t)(i * 13 + 5);
	d->search_len = sizeof(d->search);
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 119, -1);
	assert_int_equal(r.nsearch, 2);
	assert_int_equal(r.search_len, 256);
	assert_memory_equal(r.search, d->search, 256);
	assert_int_equal(r.len, 240 + 49 + 260 + 1);
	env_clear(e);

	/* no option 57: 576 bytes of IP, 548 of DHCP; 550 needed */
	q.extra = NULL;
	q.extra_len = 0;
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, -1);
	env_clear(e);

	/* option 57 below 576 counts as 576 */
	q.extra = max300;
	q.extra_len = sizeof(max300);
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, -1);
	env_clear(e);

	/* three DNS servers: 297 bytes before the list; 248 bytes of it
	 * and End make exactly 548, 249 do not fit */
	d->ndns = 3;
	d->search_len = 248;
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 119, -1);
	assert_int_equal(r.nsearch, 1);
	assert_int_equal(r.len, 548);
	env_clear(e);
	d->search_len = 249;
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, -1);
	env_clear(e);
	assert_offers(e, 5);
}

/**
 * set_names() - configure the host name and the FQDN
 * @d:		DHCP configuration
 * @host:	option 12 text ("" for none)
 * @fqdn:	dotted FQDN ("" for none)
 */
static void set_names(struct dhcp4_conf *d, const char *host, const char *fqdn)
{
	d->hostname_len = strlen(host);
	memcpy(d->hostname, host, d->hostname_len);
	d->fqdn_len = *fqdn ? conf_dhcp_name_wire(fqdn, d->fqdn) : 0;
}

/**
 * assert_fqdn() - option 81 of a reply: flags, RCODEs 255, the name
 * @r:		reply
 * @flags:	expected flags
 * @name:	expected name field
 * @len:	its length
 */
static void assert_fqdn(const struct dreply *r, uint8_t flags, const void *name,
			size_t len)
{
	assert_non_null(r->opt[81]);
	assert_int_equal(r->optlen[81], 3 + len);
	assert_int_equal(r->opt[81][0], flags);
	assert_int_equal(r->opt[81][1], 255);
	assert_int_equal(r->opt[81][2], 255);
	assert_memory_equal(r->opt[81] + 3, name, len);
}

/**
 * test_names() - option 12 goes to every client; option 81 only to a
 * client that lists it in option 55 or sends one, in the client's
 * encoding, with O set for a client's S and N echoed; a NAK has neither
 * @state:	environment
 */
static void test_names(void **state)
{
	static const uint8_t prl_fqdn[] = { 1, 3, 6, 12, 81 };
	/* flags S and E, RCODEs 0, a partial name "x" */
	static const uint8_t fqdn_se[] = { 81, 6, 0x05, 0, 0, 1, 'x', 0 };
	/* flags S, ASCII "x" */
	static const uint8_t fqdn_s_ascii[] = { 81, 4, 0x01, 0, 0, 'x' };
	/* flags N and E, no name */
	static const uint8_t fqdn_ne[] = { 81, 3, 0x0c, 0, 0 };
	static const char ascii[] = "vm1.example.test";
	struct dreq q = { .type = 1, PRL(prl_no_mtu) };
	struct env *e = *state;
	struct dhcp4_conf *d = &e->c.conf.dhcp4;
	uint8_t wire[64];
	size_t wlen = conf_dhcp_name_wire(ascii, wire);
	struct dreply r;

	set_names(d, "vm1", ascii);
	assert_int_equal(wlen, sizeof(ascii) + 1);

	/* not asked for the FQDN: the host name only */
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 12, 119, -1);
	assert_int_equal(r.optlen[12], 3);
	assert_memory_equal(r.opt[12], "vm1", 3);
	env_clear(e);

	/* 81 in the parameter request list: wire format, E alone */
	q.prl = prl_fqdn;
	q.prl_len = sizeof(prl_fqdn);
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 12, 81, 119, -1);
	assert_fqdn(&r, 0x04, wire, wlen);
	env_clear(e);

	/* the client's own option 81, no list: S asked, so O */
	q.prl = NULL;
	q.type = 3;
	q.req_addr = GUEST4;
	q.server_id = GW4;
	q.extra = fqdn_se;
	q.extra_len = sizeof(fqdn_se);
	bcast_reply(e, &q, &r);
	assert_type(&r, 5);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 12, 81, 119, -1);
	assert_fqdn(&r, 0x06, wire, wlen);
	env_clear(e);

	/* in ASCII (E clear): the dotted name, no root */
	q.extra = fqdn_s_ascii;
	q.extra_len = sizeof(fqdn_s_ascii);
	bcast_reply(e, &q, &r);
	assert_fqdn(&r, 0x02, ascii, sizeof(ascii) - 1);
	env_clear(e);

	/* N is echoed */
	q.extra = fqdn_ne;
	q.extra_len = sizeof(fqdn_ne);
	bcast_reply(e, &q, &r);
	assert_fqdn(&r, 0x0c, wire, wlen);
	env_clear(e);

	/* INFORM: both too; NAK: neither */
	q.type = 8;
	q.req_addr = q.server_id = 0;
	q.ciaddr = GUEST4;
	send_unicast(e, &q);
	assert_int_equal(e->fx.nframes, 1);
	parse_reply(e, 0, NULL, &r);
	assert_opts_exactly(&r, 54, 1, 3, 6, 26, 12, 81, 119, -1);
	env_clear(e);
	q.type = 3;
	q.ciaddr = 0;
	q.req_addr = ip4(10, 0, 2, 16);
	bcast_nak(e, &q, 0);
	assert_ctr_deltas(e, CTR_DHCP4_DISCOVER, 2, CTR_DHCP4_OFFER, 2,
			  CTR_DHCP4_REQUEST, 4, CTR_DHCP4_ACK, 4, CTR_DHCP4_NAK,
			  1, CTR_DHCP4_INFORM, 1, CTR_UDP_TO_GUEST, 7, -1);
}

/**
 * test_names_fit() - long names go in only as far as the client's
 * maximum message size and the MTU allow, the host name first; an FQDN
 * of more than 250 characters does not fit option 81 at all
 * @state:	environment
 */
static void test_names_fit(void **state)
{
	static const uint8_t max1500[] = { 57, 2, 0x05, 0xdc };
	static const uint8_t prl_fqdn[] = { 1, 3, 6, 12, 26, 81, 119 };
	struct dreq q = { .type = 1, PRL(prl_fqdn) };
	struct env *e = *state;
	struct dhcp4_conf *d = &e->c.conf.dhcp4;
	char host[254], fqdn[254];
	struct dreply r;
	size_t i;

	/* 63.63.63.61 characters: 253, the most a name has */
	for (i = 0; i < 253; i++)
		host[i] = (i % 64 == 63) ? '.' : (char)('a' + i % 26);
	host[253] = '\0';
	memcpy(fqdn, host, sizeof(fqdn));
	fqdn[250] = '\0'; /* 250: the most option 81 holds */
	set_names(d, host, fqdn);

	/* no option 57: 548 bytes; 289 before the names, 255 for option
	 * 12 and End fill 545, option 81 (257) does not fit, nor the
	 * search list (16) */
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 12, -1);
	assert_int_equal(r.optlen[12], 253);
	assert_memory_equal(r.opt[12], host, 253);
	assert_int_equal(r.len, 545);
	env_clear(e);

	/* 1500 allowed: all of them */
	q.extra = max1500;
	q.extra_len = sizeof(max1500);
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 12, 81, 119, -1);
	assert_int_equal(r.optlen[81], 255);
	assert_memory_equal(r.opt[81] + 3, d->fqdn, 252);
	assert_int_equal(r.len, 545 + 257 + 16);
	env_clear(e);

	/* ...but not past the MTU */
	e->c.conf.mtu = 576;
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 12, -1);
	env_clear(e);
	e->c.conf.mtu = MTU;

	/* 251 characters: 253 bytes of wire format, too many for option
	 * 81; without a host name the search list fits again */
	fqdn[250] = 'z';
	fqdn[251] = '\0';
	set_names(d, "", fqdn);
	bcast_reply(e, &q, &r);
	assert_opts_exactly(&r, 54, 51, 58, 59, 1, 3, 6, 26, 119, -1);
	env_clear(e);
	assert_offers(e, 4);
}

/**
 * test_no_slot() - with every slot in use the reply is dropped and
 * counted, and no OFFER is counted
 * @state:	environment
 */
static void test_no_slot(void **state)
{
	struct dreq q = { .type = 1 };
	struct env *e = *state;

	e->fx.nframes = e->fx.nslots;
	send_bcast(e, &q);
	assert_int_equal(e->fx.nframes, e->fx.nslots);
	assert_ctr_deltas(e, CTR_DHCP4_DISCOVER, 1, CTR_FX_POOL_EMPTY, 1, -1);
	env_clear(e);
}

/**
 * main() - run the DHCPv4 tests, with and without vnet header
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
#define BOTH(t) ENV_BOTH(t, setup_offload, setup_plain, env_teardown)
	const struct CMUnitTest tests[] = {
		BOTH(test_discover_offer),
		BOTH(test_discover_no_mtu),
		BOTH(test_request_selecting),
		BOTH(test_request_init_reboot),
		BOTH(test_request_other_addr),
		BOTH(test_request_other_server),
		BOTH(test_renew),
		BOTH(test_request_no_addr),
		BOTH(test_inform),
		BOTH(test_release_decline),
		BOTH(test_option_syntax),
		BOTH(test_padded_datagram),
		BOTH(test_malformed),
		BOTH(test_dhcp_off),
		BOTH(test_conf_variants),
		BOTH(test_long_search),
		BOTH(test_names),
		BOTH(test_names_fit),
		BOTH(test_no_slot),
	};

	return cmocka_run_group_tests_name("dhcp4", tests, NULL, NULL);
}
