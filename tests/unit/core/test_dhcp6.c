/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dhcp6.c - the DHCPv6 server (dhcp6.c), through core_input()
 *
 * The test plays a DHCPv6 client: it builds messages option by option
 * (msg_begin(), opt(), the IA helpers), wraps them in UDP/IPv6/Ethernet
 * from the guest's link-local address, port 546, to ff02::1:2 port 547
 * (or a gateway address) and feeds them to core_input(). parse_reply()
 * checks the frame in full (Ethernet, IPv6, UDP ports and length, the UDP
 * checksum or the NEEDS_CSUM contract, with a reference sum independent of
 * core/csum.c) and the option syntax of the reply, and indexes its
 * top-level options, so each test can assert exactly what was sent. Every
 * test checks with assert_ctr_deltas() that only the expected counters
 * moved, and every test but test_conf() runs with and without a vnet
 * header (checksum offload on and off).
 */
#include <errno.h>
#include <stdlib.h>

#include "cli/conf.h"
#include "util/log.h"
#include "helpers.h"
#include "core/dhcp6.h"

/* conf.c, linked for conf_dhcp_name_wire(), logs through this */
enum log_level log_max_level = LOG_ERR;

#define NH_UDP 17
#define XID 0x00a1b2c3U

#define SOLICIT 1
#define ADVERTISE 2
#define REQUEST 3
#define CONFIRM 4
#define RENEW 5
#define REBIND 6
#define REPLY 7
#define RELEASE 8
#define DECLINE 9
#define RECONFIGURE 10
#define INFO_REQUEST 11
#define RELAY_FORW 12

#define O_CLIENTID 1
#define O_SERVERID 2
#define O_IA_NA 3
#define O_IA_TA 4
#define O_IAADDR 5
#define O_ORO 6
#define O_PREFERENCE 7
#define O_ELAPSED 8
#define O_STATUS 13
#define O_RAPID_COMMIT 14
#define O_DNS 23
#define O_DOMAINS 24
#define O_IA_PD 25
#define O_IAPREFIX 26
#define O_FQDN 39
#define O_MAX 64 /* option codes parse_reply() indexes */

#define ST_SUCCESS 0
#define ST_NOADDRS 2
#define ST_NOBINDING 3
#define ST_NOTONLINK 4
#define ST_NOPREFIX 6

/* in env_conf6()'s fd00:5170:7761:7901::/64 (helpers.c) */
static const uint8_t guest6[16] = { 0xfd, 0x00, 0x51, 0x70,	  0x77,
				    0x61, 0x79, 0x01, [15] = 0x15 };
static const uint8_t old6[16] = { 0xfd, 0x00, 0x51, 0x70,	0x77,
				  0x61, 0x79, 0x01, [15] = 0x99 };
static const uint8_t outside6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t unspec6[16];
static const uint8_t all_servers[16] = { 0xff, 0x02, [13] = 1, [15] = 2 };
static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };

/* our DUID-LL: type 3, hardware type 1, our MAC */
static const uint8_t server_duid[10] = { 0,    3,    0,	   1,	 0x52,
					 0x56, 0x00, 0x00, 0x00, 0x02 };
/* the client's DUID-LLT: type 1, hardware type 1, time, its MAC */
static const uint8_t client_duid[14] = { 0,    1,    0,	   1,	 0x2c,
					 0x3d, 0x4e, 0x5f, 0x52, 0x54,
					 0x00, 0x12, 0x34, 0x56 };

/* "example.test" as a DNS name (wire format) */
static const uint8_t search_wire[] = "\x07"
				     "example"
				     "\x04"
				     "test";
#define SEARCH_LEN sizeof(search_wire) /* with the root label's 0 */

/**
 * struct msg6 - a client message being built
 * @b:		the message
 * @len:	bytes written
 */
struct msg6 {
	uint8_t b[2048];
	size_t len;
};

/**
 * struct reply6 - a reply the core queued, decoded by parse_reply()
 * @type:	message type
 * @m:		the message, in the frame slot
 * @len:	its length
 * @opt:	value of the first instance of each top-level option code
 *		(NULL: absent)
 * @optlen:	its length
 * @cnt:	instances of each code
 * @order:	top-level option codes, in order
 * @nopts:	entries in @order
 */
struct reply6 {
	uint8_t type;
	const uint8_t *m;
	size_t len;
	const uint8_t *opt[O_MAX];
	size_t optlen[O_MAX];
	unsigned cnt[O_MAX];
	uint16_t order[64];
	unsigned nopts;
};

/**
 * struct ia6 - an IA of a reply, decoded by parse_ia()
 * @code:	O_IA_NA, O_IA_TA or O_IA_PD
 * @iaid:	IAID
 * @t1:		T1 (IA_NA, IA_PD)
 * @t2:		T2
 * @addr:	IAADDR addresses
 * @pref:	their preferred lifetimes
 * @valid:	their valid lifetimes
 * @naddr:	entries in @addr
 * @status:	status code (-1: no Status Code option)
 */
struct ia6 {
	uint16_t code;
	uint32_t iaid, t1, t2;
	const uint8_t *addr[16];
	uint32_t pref[16], valid[16];
	unsigned naddr;
	int status;
};

/**
 * conf_dhcp6() - IPv6 and the DHCPv6 server on
 * @cc:		configuration out
 * @offload:	passed to env_conf()
 *
 * The guest gets fd00:5170:7761:7901::15, DNS ::3, search "example.test".
 */
static void conf_dhcp6(struct core_conf *cc, bool offload)
{
	env_conf6(cc, offload);
	cc->mtu = 1500;
	cc->dhcp6 = true;
	memcpy(cc->guest6, guest6, 16);
	memcpy(cc->dhcp4.search, search_wire, SEARCH_LEN);
	cc->dhcp4.search_len = SEARCH_LEN;
}

/* setup_offload(): DHCPv6 on, 12-byte vnet header, offload on;
 * setup_plain(): DHCPv6 on, no vnet header, no offload */
ENV_SETUPS(conf_dhcp6)

/**
 * assert_quiet() - end-of-test invariants with IPv6 on
 * @e:	environment
 *
 * The one timer is the unsolicited router advertisement: at the end of
 * time it goes out (with the M and O flags: DHCPv6 is on) and nothing is
 * armed after it; then env_assert_quiet() must hold.
 */
static void assert_quiet(struct env *e)
{
	const uint8_t *f, *ip;

	env_clear(e);
	assert_true(core_timer(&e->c, UINT64_MAX - 1, &e->fx) == UINT64_MAX);
	assert_int_equal(e->fx.nframes, 1);
	f = e->fx.slots;
	ip = f + e->c.conf.vnet_hdr_len + ETH_HLEN;
	assert_memory_equal(f + e->c.conf.vnet_hdr_len, all_nodes_mac, 6);
	assert_memory_equal(ip + 24, all_nodes, 16);
	assert_int_equal(ip[40], 134);
	assert_int_equal(ip[45], e->c.conf.dhcp6 ? 0xc0 : 0);
	env_assert_quiet(e);
}

/**
 * teardown() - check end-of-test invariants and free the environment
 * @state:	the environment
 *
 * Return: 0
 */
static int teardown(void **state)
{
	assert_quiet(*state);
	env_free(*state);
	return 0;
}

/**
 * msg_begin() - start a client message
 * @m:		message
 * @type:	message type
 */
static void msg_begin(struct msg6 *m, uint8_t type)
{
	m->b[0] = type;
	m->b[1] = (uint8_t)(XID >> 16);
	m->b[2] = (uint8_t)(XID >> 8);
	m->b[3] = (uint8_t)XID;
	m->len = 4;
}

/**
 * opt() - append an option
 * @m:		message
 * @code:	option code
 * @val:	value (NULL: zeros)
 * @len:	value length
 *
 * Return: offset of the option's header, for opt_close()
 */
static size_t opt(struct msg6 *m, uint16_t code, const void *val, size_t len)
{
	size_t at = m->len;

	assert_true(m->len + 4 + len <= sizeof(m->b));
	wr16(m->b + at, code);
	wr16(m->b + at + 2, (uint16_t)len);
	if (val)
		memcpy(m->b + at + 4, val, len);
	else
		memset(m->b + at + 4, 0, len);
	m->len += 4 + len;
	return at;
}

/**
 * opt_close() - set an option's length to what was appended after it
 * @m:		message
 * @at:		offset from opt()
 */
static void opt_close(struct msg6 *m, size_t at)
{
	wr16(m->b + at + 2, (uint16_t)(m->len - at - 4));
}

/**
 * msg_ids() - append the usual options: Client Identifier, Elapsed Time,
 * an Option Request for DNS and the search list, and optionally our
 * Server Identifier
 * @m:		message
 * @server:	add our Server Identifier
 */
static void msg_ids(struct msg6 *m, bool server)
{
	static const uint8_t oro[4] = { 0, O_DNS, 0, O_DOMAINS };

	opt(m, O_CLIENTID, client_duid, sizeof(client_duid));
	if (server)
		opt(m, O_SERVERID, server_duid, sizeof(server_duid));
	opt(m, O_ELAPSED, NULL, 2);
	opt(m, O_ORO, oro, sizeof(oro));
}

/**
 * msg_start() - start a client message with the usual options (msg_ids())
 * @m:		message
 * @type:	message type
 * @server:	add our Server Identifier
 */
static void msg_start(struct msg6 *m, uint8_t type, bool server)
{
	msg_begin(m, type);
	msg_ids(m, server);
}

/**
 * ia_open() - start an IA option (IA_NA, IA_PD: T1 and T2 are 0)
 * @m:		message
 * @code:	O_IA_NA, O_IA_TA or O_IA_PD
 * @iaid:	IAID
 *
 * Return: offset for opt_close()
 */
static size_t ia_open(struct msg6 *m, uint16_t code, uint32_t iaid)
{
	size_t at = opt(m, code, NULL, code == O_IA_TA ? 4 : 12);

	wr32(m->b + at + 4, iaid);
	return at;
}

/**
 * iaaddr() - append an IA Address option (inside an IA being built)
 * @m:		message
 * @addr:	address
 */
static void iaaddr(struct msg6 *m, const uint8_t *addr)
{
	size_t at = opt(m, O_IAADDR, NULL, 24);

	memcpy(m->b + at + 4, addr, 16);
	wr32(m->b + at + 20, 3000);
	wr32(m->b + at + 24, 6000);
}

/**
 * ia_na() - append an IA_NA with at most one address
 * @m:		message
 * @iaid:	IAID
 * @addr:	address to list (NULL: none)
 */
static void ia_na(struct msg6 *m, uint32_t iaid, const uint8_t *addr)
{
	size_t at = ia_open(m, O_IA_NA, iaid);

	if (addr)
		iaaddr(m, addr);
	opt_close(m, at);
}

/**
 * send6() - wrap a message in UDP/IPv6/Ethernet and input it
 * @e:		environment
 * @m:		message
 * @src:	IPv6 source
 * @dst:	IPv6 destination (multicast: its 33:33 MAC, else ours)
 * @dport:	UDP destination port
 */
static void send6(struct env *e, const struct msg6 *m, const uint8_t *src,
		  const uint8_t *dst, uint16_t dport)
{
	uint8_t mac[6] = { 0x33, 0x33 };
	uint8_t *ip, *uh;
	size_t off, l4 = 8 + m->len;

	memcpy(mac + 2, dst + 12, 4);
	off = build_l2(e, e->in, dst[0] == 0xff ? mac : our_mac, guest_mac,
		       ETHERTYPE_IP6);
	ip = e->in + off;
	build_ip6(ip, NH_UDP, src, dst, l4);
	ip[7] = 1; /* what clients send to link-scope multicast */
	uh = ip + IP6_HLEN;
	wr16(uh, 546);
	wr16(uh + 2, dport);
	wr16(uh + 4, (uint16_t)l4);
	wr16(uh + 6, 0);
	memcpy(uh + 8, m->b, m->len);
	wr16(uh + 6,
	     (uint16_t)~ref_sum16(uh, l4,
				  ref_pseudo6(src, dst, NH_UDP, (uint32_t)l4)));
	env_input(e, e->in, off + IP6_HLEN + l4);
}

/**
 * send_mc() - send6() from the guest's link-local address to ff02::1:2:547
 * @e:		environment
 * @m:		message
 */
static void send_mc(struct env *e, const struct msg6 *m)
{
	send6(e, m, guest6_ll, all_servers, 547);
}

/**
 * parse_reply() - check a queued DHCPv6 reply completely and index it
 * @e:		environment
 * @i:		frame index
 * @src:	expected IPv6 source
 * @dst:	expected IPv6 destination
 * @r:		out: the decoded reply
 *
 * Ethernet from our MAC to the guest's; IPv6 version 6, traffic class and
 * flow label 0, payload length, next header UDP, hop limit 64; UDP 547 ->
 * 546, length; checksum: with offload, NEEDS_CSUM from Ethernet + IPv6
 * with the field at 6 holding the pseudo-header sum, else a complete one
 * and a zero vnet header; the transaction ID; options within the message.
 */
static void parse_reply(const struct env *e, unsigned i, const uint8_t *src,
			const uint8_t *dst, struct reply6 *r)
{
	const uint8_t *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	const uint8_t *ip, *uh;
	size_t l3, l4, k;
	uint8_t copy[1500];

	memset(r, 0, sizeof(*r));
	ip = frame_l3(e, i, ETHERTYPE_IP6, NULL, &l3);
	assert_true(l3 >= IP6_HLEN + 8 + 4);
	assert_int_equal(ip[0], 0x60);
	assert_int_equal(ip[1] | ip[2] | ip[3], 0);
	assert_int_equal(rd16(ip + 4), l3 - IP6_HLEN);
	assert_int_equal(ip[6], NH_UDP);
	assert_int_equal(ip[7], 64);
	assert_memory_equal(ip + 8, src, 16);
	assert_memory_equal(ip + 24, dst, 16);
	uh = ip + IP6_HLEN;
	l4 = l3 - IP6_HLEN;
	assert_true(l4 <= sizeof(copy));
	assert_int_equal(rd16(uh), 547);
	assert_int_equal(rd16(uh + 2), 546);
	assert_int_equal(rd16(uh + 4), l4);
	memcpy(copy, uh, l4);
	if (e->c.conf.csum_offload) {
		assert_int_equal(f[0], VNET_HDR_F_NEEDS_CSUM);
		assert_int_equal(f[1], VNET_HDR_GSO_NONE);
		assert_int_equal(f[6] | f[7] << 8, ETH_HLEN + IP6_HLEN);
		assert_int_equal(f[8] | f[9] << 8, 6);
		assert_int_equal(rd16(uh + 6),
				 ref_pseudo6(src, dst, NH_UDP, (uint32_t)l4));
		/* finish it as the device would */
		wr16(copy + 6, 0);
		wr16(copy + 6,
		     (uint16_t)~ref_sum16(copy, l4,
					  ref_pseudo6(src, dst, NH_UDP,
						      (uint32_t)l4)));
	} else {
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
		assert_int_not_equal(rd16(uh + 6), 0);
	}
	assert_int_equal(ref_sum16(copy, l4,
				   ref_pseudo6(src, dst, NH_UDP, (uint32_t)l4)),
			 0xffff);

	r->m = uh + 8;
	r->len = l4 - 8;
	r->type = r->m[0];
	assert_int_equal((uint32_t)(r->m[1] << 16 | r->m[2] << 8 | r->m[3]),
			 XID);
	for (k = 4; k < r->len;) {
		uint16_t code, len;

		assert_true(k + 4 <= r->len);
		code = rd16(r->m + k);
		len = rd16(r->m + k + 2);
		assert_true(k + 4 + len <= r->len);
		assert_true(code < O_MAX);
		assert_true(r->nopts < ARRAY_SIZE(r->order));
		r->order[r->nopts++] = code;
		if (!r->cnt[code]) {
			r->opt[code] = r->m + k + 4;
			r->optlen[code] = len;
		}
		r->cnt[code]++;
		k += 4 + (size_t)len;
	}
	/* always: our identifier, and the client's when it sent one */
	assert_int_equal(r->cnt[O_SERVERID], 1);
	assert_int_equal(r->optlen[O_SERVERID], sizeof(server_duid));
	assert_memory_equal(r->opt[O_SERVERID], server_duid,
			    sizeof(server_duid));
}

/**
 * reply_mc() - send_mc() a message and expect one reply of @type from the
 * gateway's link-local address to the guest's, checked by parse_reply()
 * @e:		environment
 * @m:		message
 * @type:	expected message type of the reply
 * @r:		out: the decoded reply
 */
static void reply_mc(struct env *e, const struct msg6 *m, uint8_t type,
		     struct reply6 *r)
{
	unsigned n = e->fx.nframes;

	send_mc(e, m);
	assert_int_equal(e->fx.nframes, n + 1);
	parse_reply(e, n, gw6_ll, guest6_ll, r);
	assert_int_equal(r->type, type);
}

/**
 * parse_ia() - decode the @n-th IA option of a reply
 * @r:		reply
 * @n:		which IA (0: the first IA_NA, IA_TA or IA_PD)
 * @ia:		out
 *
 * Nested options must fit; only IAADDR and Status Code may appear.
 */
static void parse_ia(const struct reply6 *r, unsigned n, struct ia6 *ia)
{
	size_t k = 4, fixed, end, j;

	memset(ia, 0, sizeof(*ia));
	ia->status = -1;
	for (;;) {
		uint16_t code, len;

		assert_true(k + 4 <= r->len);
		code = rd16(r->m + k);
		len = rd16(r->m + k + 2);
		if (code == O_IA_NA || code == O_IA_TA || code == O_IA_PD) {
			if (!n--) {
				ia->code = code;
				end = k + 4 + len;
				k += 4;
				break;
			}
		}
		k += 4 + (size_t)len;
	}
	fixed = ia->code == O_IA_TA ? 4 : 12;
	assert_true(k + fixed <= end);
	ia->iaid = rd32(r->m + k);
	if (fixed == 12) {
		ia->t1 = rd32(r->m + k + 4);
		ia->t2 = rd32(r->m + k + 8);
	}
	for (j = k + fixed; j < end;) {
		uint16_t code = rd16(r->m + j), len = rd16(r->m + j + 2);

		assert_true(j + 4 + len <= end);
		if (code == O_IAADDR) {
			assert_int_equal(len, 24);
			assert_true(ia->naddr < ARRAY_SIZE(ia->addr));
			ia->addr[ia->naddr] = r->m + j + 4;
			ia->pref[ia->naddr] = rd32(r->m + j + 20);
			ia->valid[ia->naddr] = rd32(r->m + j + 24);
			ia->naddr++;
		} else {
			assert_int_equal(code, O_STATUS);
			assert_true(len >= 2);
			assert_int_equal(ia->status, -1);
			ia->status = rd16(r->m + j + 4);
		}
		j += 4 + (size_t)len;
	}
}

/**
 * assert_status() - the reply's top-level Status Code
 * @r:		reply
 * @status:	expected code, -1: no Status Code option
 */
static void assert_status(const struct reply6 *r, int status)
{
	if (status < 0) {
		assert_int_equal(r->cnt[O_STATUS], 0);
		return;
	}
	assert_int_equal(r->cnt[O_STATUS], 1);
	assert_true(r->optlen[O_STATUS] >= 2);
	assert_int_equal(rd16(r->opt[O_STATUS]), status);
}

/**
 * assert_config() - the reply hands out (or not) the DNS server and the
 * search list, and echoes the client's identifier
 * @r:		reply
 * @config:	expect DNS and search list
 */
static void assert_config(const struct reply6 *r, bool config)
{
	assert_int_equal(r->cnt[O_CLIENTID], 1);
	assert_int_equal(r->optlen[O_CLIENTID], sizeof(client_duid));
	assert_memory_equal(r->opt[O_CLIENTID], client_duid,
			    sizeof(client_duid));
	if (!config) {
		assert_int_equal(r->cnt[O_DNS], 0);
		assert_int_equal(r->cnt[O_DOMAINS], 0);
		return;
	}
	assert_int_equal(r->cnt[O_DNS], 1);
	assert_int_equal(r->optlen[O_DNS], 16);
	assert_memory_equal(r->opt[O_DNS], dns6, 16);
	assert_int_equal(r->cnt[O_DOMAINS], 1);
	assert_int_equal(r->optlen[O_DOMAINS], SEARCH_LEN);
	assert_memory_equal(r->opt[O_DOMAINS], search_wire, SEARCH_LEN);
}

/**
 * assert_bound() - IA @n is an IA_NA with IAID @iaid holding the guest's
 * address with our lifetimes first
 * @r:		reply
 * @n:		IA index
 * @iaid:	expected IAID
 * @ia:		out: the decoded IA (for more checks)
 */
static void assert_bound(const struct reply6 *r, unsigned n, uint32_t iaid,
			 struct ia6 *ia)
{
	parse_ia(r, n, ia);
	assert_int_equal(ia->code, O_IA_NA);
	assert_int_equal(ia->iaid, iaid);
	assert_int_equal(ia->t1, 1800);
	assert_int_equal(ia->t2, 2880);
	assert_true(ia->naddr >= 1);
	assert_memory_equal(ia->addr[0], guest6, 16);
	assert_int_equal(ia->pref[0], 3600);
	assert_int_equal(ia->valid[0], 7200);
	assert_int_equal(ia->status, -1);
}

/**
 * test_solicit_advertise() - a SOLICIT gets an ADVERTISE from the
 * gateway's link-local address with the address, Preference 255, DNS and
 * the search list; the client's address hint is not taken
 * @state:	environment
 */
static void test_solicit_advertise(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;
	struct ia6 ia;

	msg_start(&m, SOLICIT, false);
	ia_na(&m, 0x0c0ffee0, old6);
	reply_mc(e, &m, ADVERTISE, &r);
	assert_status(&r, -1);
	assert_config(&r, true);
	assert_int_equal(r.cnt[O_PREFERENCE], 1);
	assert_int_equal(r.optlen[O_PREFERENCE], 1);
	assert_int_equal(r.opt[O_PREFERENCE][0], 255);
	assert_int_equal(r.cnt[O_RAPID_COMMIT], 0);
	assert_int_equal(r.cnt[O_IA_NA], 1);
	assert_bound(&r, 0, 0x0c0ffee0, &ia);
	assert_int_equal(ia.naddr, 1);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_DHCP6_SOLICIT, 1, CTR_DHCP6_ADVERTISE, 1,
			  CTR_UDP_TO_GUEST, 1, -1);
}

/**
 * test_solicit_rapid_commit() - with Rapid Commit, a SOLICIT gets a REPLY
 * carrying Rapid Commit and no Preference
 * @state:	environment
 */
static void test_solicit_rapid_commit(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;
	struct ia6 ia;

	msg_start(&m, SOLICIT, false);
	opt(&m, O_RAPID_COMMIT, NULL, 0);
	ia_na(&m, 7, NULL);
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.cnt[O_RAPID_COMMIT], 1);
	assert_int_equal(r.optlen[O_RAPID_COMMIT], 0);
	assert_int_equal(r.cnt[O_PREFERENCE], 0);
	assert_config(&r, true);
	assert_bound(&r, 0, 7, &ia);
	assert_ctr_deltas(e, CTR_DHCP6_SOLICIT, 1, CTR_DHCP6_REPLIES, 1,
			  CTR_UDP_TO_GUEST, 1, -1);
}

/**
 * test_solicit_other_ias() - the first IA_NA gets the address; a second
 * IA_NA and an IA_TA get NoAddrsAvail, an IA_PD NoPrefixAvail, all with
 * their IAIDs and T1/T2 0; without any IA_NA, an ADVERTISE with only the
 * status NoAddrsAvail, even with Rapid Commit
 * @state:	environment
 */
static void test_solicit_other_ias(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;
	struct ia6 ia;
	size_t at;

	msg_start(&m, SOLICIT, false);
	at = ia_open(&m, O_IA_TA, 1);
	opt_close(&m, at);
	ia_na(&m, 2, NULL);
	at = ia_open(&m, O_IA_PD, 3);
	opt(&m, O_IAPREFIX, NULL, 25);
	opt_close(&m, at);
	ia_na(&m, 4, NULL);
	reply_mc(e, &m, ADVERTISE, &r);
	assert_status(&r, -1);
	assert_config(&r, true);
	parse_ia(&r, 0, &ia);
	assert_int_equal(ia.code, O_IA_TA);
	assert_int_equal(ia.iaid, 1);
	assert_int_equal(ia.naddr, 0);
	assert_int_equal(ia.status, ST_NOADDRS);
	assert_bound(&r, 1, 2, &ia);
	parse_ia(&r, 2, &ia);
	assert_int_equal(ia.code, O_IA_PD);
	assert_int_equal(ia.iaid, 3);
	assert_int_equal(ia.t1 | ia.t2, 0);
	assert_int_equal(ia.status, ST_NOPREFIX);
	parse_ia(&r, 3, &ia);
	assert_int_equal(ia.code, O_IA_NA);
	assert_int_equal(ia.iaid, 4);
	assert_int_equal(ia.naddr, 0);
	assert_int_equal(ia.status, ST_NOADDRS);
	assert_ctr_deltas(e, CTR_DHCP6_SOLICIT, 1, CTR_DHCP6_ADVERTISE, 1,
			  CTR_UDP_TO_GUEST, 1, -1);

	/* no IA_NA: IA_TA only, with Rapid Commit */
	env_clear(e);
	env_mark(e);
	msg_start(&m, SOLICIT, false);
	opt(&m, O_RAPID_COMMIT, NULL, 0);
	at = ia_open(&m, O_IA_TA, 1);
	opt_close(&m, at);
	reply_mc(e, &m, ADVERTISE, &r);
	assert_status(&r, ST_NOADDRS);
	assert_config(&r, false);
	assert_int_equal(r.nopts, 3); /* status, server, client */
	assert_ctr_deltas(e, CTR_DHCP6_SOLICIT, 1, CTR_DHCP6_ADVERTISE, 1,
			  CTR_UDP_TO_GUEST, 1, -1);
}

/**
 * test_request() - a REQUEST gets a REPLY with the address, DNS and search
 * list; sent to the gateway's address in the prefix, from it
 * @state:	environment
 */
static void test_request(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;
	struct ia6 ia;

	msg_start(&m, REQUEST, true);
	ia_na(&m, 0x11223344, guest6);
	reply_mc(e, &m, REPLY, &r);
	assert_status(&r, -1);
	assert_config(&r, true);
	assert_int_equal(r.cnt[O_PREFERENCE], 0);
	assert_int_equal(r.cnt[O_RAPID_COMMIT], 0);
	assert_int_equal(r.cnt[O_IA_NA], 1);
	assert_bound(&r, 0, 0x11223344, &ia);
	assert_int_equal(ia.naddr, 1);

	/* unicast to gw6 (from the guest's address): the reply from gw6 */
	send6(e, &m, guest6, gw6, 547);
	assert_int_equal(e->fx.nframes, 2);
	parse_reply(e, 1, gw6, guest6, &r);
	assert_int_equal(r.type, REPLY);
	assert_bound(&r, 0, 0x11223344, &ia);
	/* unicast to the link-local gateway */
	send6(e, &m, guest6_ll, gw6_ll, 547);
	assert_int_equal(e->fx.nframes, 3);
	parse_reply(e, 2, gw6_ll, guest6_ll, &r);
	assert_int_equal(r.type, REPLY);
	assert_ctr_deltas(e, CTR_DHCP6_REQUEST, 3, CTR_DHCP6_REPLIES, 3,
			  CTR_UDP_TO_GUEST, 3, -1);
}

/**
 * test_renew_rebind() - RENEW and REBIND extend the address in the first
 * IA_NA, return the other addresses listed there at lifetimes 0, and give
 * later IAs NoBinding
 * @state:	environment
 */
static void test_renew_rebind(void **state)
{
	struct env *e = *state;
	static const uint8_t types[2] = { RENEW, REBIND };
	struct reply6 r;
	struct msg6 m;
	struct ia6 ia;
	unsigned t;
	size_t at;

	for (t = 0; t < 2; t++) {
		msg_begin(&m, types[t]);
		msg_ids(&m, types[t] == RENEW);
		at = ia_open(&m, O_IA_NA, 5);
		iaaddr(&m, old6);
		iaaddr(&m, guest6);
		opt_close(&m, at);
		ia_na(&m, 6, outside6);
		reply_mc(e, &m, REPLY, &r);
		assert_status(&r, -1);
		assert_config(&r, true);
		assert_bound(&r, 0, 5, &ia);
		assert_int_equal(ia.naddr, 2);
		assert_memory_equal(ia.addr[1], old6, 16);
		assert_int_equal(ia.pref[1], 0);
		assert_int_equal(ia.valid[1], 0);
		parse_ia(&r, 1, &ia);
		assert_int_equal(ia.code, O_IA_NA);
		assert_int_equal(ia.iaid, 6);
		assert_int_equal(ia.naddr, 0);
		assert_int_equal(ia.status, ST_NOBINDING);
	}
	assert_ctr_deltas(e, CTR_DHCP6_RENEW, 1, CTR_DHCP6_REBIND, 1,
			  CTR_DHCP6_REPLIES, 2, CTR_UDP_TO_GUEST, 2, -1);

	/* RENEW without our identifier, REBIND with it: malformed */
	env_clear(e);
	env_mark(e);
	msg_start(&m, RENEW, false);
	ia_na(&m, 5, guest6);
	send_mc(e, &m);
	msg_start(&m, REBIND, true);
	ia_na(&m, 5, guest6);
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_BAD, 2, -1);
}

/**
 * test_renew_many() - the largest reply: a 130-byte client identifier,
 * eight IAs, the first listing 12 other addresses (8 come back at
 * lifetime 0), every other one an address, a 256-byte search list and
 * the longest FQDN (255 bytes)
 * @state:	unused (own environment)
 */
static void test_renew_many(void **state)
{
	struct core_conf cc;
	uint8_t duid[130], a[16];
	struct env *e;
	struct reply6 r;
	struct msg6 m;
	struct ia6 ia;
	unsigned i, j;
	size_t at;

	(void)state;
	conf_dhcp6(&cc, false);
	for (i = 0; i < sizeof(cc.dhcp4.search); i++)
		cc.dhcp4.search[i] = (uint8_t)(i + 1);
	cc.dhcp4.search_len = sizeof(cc.dhcp4.search);
	/* the longest name: four labels of 63, 63, 63 and 61 bytes */
	memset(cc.dhcp4.fqdn, 'q', sizeof(cc.dhcp4.fqdn));
	for (i = 0; i < 4; i++)
		cc.dhcp4.fqdn[i * 64] = i < 3 ? 63 : 61;
	cc.dhcp4.fqdn[254] = 0;
	cc.dhcp4.fqdn_len = sizeof(cc.dhcp4.fqdn);
	e = env_new(&cc);
	env_mark(e);
	memset(duid, 0x5a, sizeof(duid));
	msg_begin(&m, RENEW);
	opt(&m, O_CLIENTID, duid, sizeof(duid));
	opt(&m, O_SERVERID, server_duid, sizeof(server_duid));
	opt(&m, O_FQDN, NULL, 1);
	memcpy(a, old6, 16);
	for (i = 0; i < 8; i++) {
		at = ia_open(&m, O_IA_NA, i);
		for (j = 0; j < (i ? 1U : 12U); j++) {
			a[14] = (uint8_t)i;
			a[15] = (uint8_t)j;
			iaaddr(&m, a);
		}
		opt_close(&m, at);
	}
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.cnt[O_CLIENTID], 1);
	assert_int_equal(r.optlen[O_CLIENTID], sizeof(duid));
	assert_int_equal(r.optlen[O_DOMAINS], sizeof(cc.dhcp4.search));
	assert_int_equal(r.cnt[O_IA_NA], 8);
	assert_bound(&r, 0, 0, &ia);
	assert_int_equal(ia.naddr, 9);
	for (j = 1; j < 9; j++)
		assert_int_equal(ia.valid[j], 0);
	for (i = 1; i < 8; i++) {
		parse_ia(&r, i, &ia);
		assert_int_equal(ia.iaid, i);
		assert_int_equal(ia.status, ST_NOBINDING);
	}
	assert_int_equal(r.optlen[O_FQDN], 1 + 255);
	assert_int_equal(r.len, 1184);
	assert_ctr_deltas(e, CTR_DHCP6_RENEW, 1, CTR_DHCP6_REPLIES, 1,
			  CTR_UDP_TO_GUEST, 1, -1);

	/* nine IAs: more than the server answers, ignored */
	env_clear(e);
	env_mark(e);
	ia_na(&m, 9, NULL);
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_IGNORED, 1, -1);
	assert_quiet(e);
	env_free(e);
}

/**
 * test_confirm() - CONFIRM: Success when every address listed is the
 * guest's, NotOnLink otherwise (also for another address in the prefix),
 * no reply when none is listed
 * @state:	environment
 */
static void test_confirm(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;
	size_t at;

	msg_start(&m, CONFIRM, false);
	ia_na(&m, 1, guest6);
	reply_mc(e, &m, REPLY, &r);
	assert_status(&r, ST_SUCCESS);
	assert_config(&r, false);
	assert_int_equal(r.cnt[O_IA_NA], 0);
	assert_int_equal(r.nopts, 3);

	/* one of two addresses is not the guest's: NotOnLink */
	msg_start(&m, CONFIRM, false);
	ia_na(&m, 1, guest6);
	at = ia_open(&m, O_IA_TA, 2);
	iaaddr(&m, old6);
	opt_close(&m, at);
	reply_mc(e, &m, REPLY, &r);
	assert_status(&r, ST_NOTONLINK);

	msg_start(&m, CONFIRM, false);
	ia_na(&m, 1, outside6);
	reply_mc(e, &m, REPLY, &r);
	assert_status(&r, ST_NOTONLINK);

	/* no address at all: nothing to confirm, no reply */
	msg_start(&m, CONFIRM, false);
	ia_na(&m, 1, NULL);
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, 3);
	assert_ctr_deltas(e, CTR_DHCP6_CONFIRM, 4, CTR_DHCP6_REPLIES, 3,
			  CTR_UDP_TO_GUEST, 3, -1);
}

/**
 * test_release_decline() - RELEASE and DECLINE get a REPLY with Success
 * and nothing else
 * @state:	environment
 */
static void test_release_decline(void **state)
{
	struct env *e = *state;
	static const uint8_t types[2] = { RELEASE, DECLINE };
	struct reply6 r;
	struct msg6 m;
	unsigned t;

	for (t = 0; t < 2; t++) {
		msg_begin(&m, types[t]);
		msg_ids(&m, true);
		ia_na(&m, 1, guest6);
		reply_mc(e, &m, REPLY, &r);
		assert_status(&r, ST_SUCCESS);
		assert_config(&r, false);
		assert_int_equal(r.nopts, 3);
	}
	assert_ctr_deltas(e, CTR_DHCP6_RELEASE, 1, CTR_DHCP6_DECLINE, 1,
			  CTR_DHCP6_REPLIES, 2, CTR_UDP_TO_GUEST, 2, -1);
}

/**
 * test_info_request() - INFORMATION-REQUEST gets DNS and the search list
 * and no IA; the Client Identifier is optional there; an IA in it is
 * malformed
 * @state:	environment
 */
static void test_info_request(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;

	msg_start(&m, INFO_REQUEST, false);
	reply_mc(e, &m, REPLY, &r);
	assert_status(&r, -1);
	assert_config(&r, true);
	assert_int_equal(r.cnt[O_IA_NA], 0);

	/* no Client Identifier, our Server Identifier: fine */
	msg_begin(&m, INFO_REQUEST);
	opt(&m, O_SERVERID, server_duid, sizeof(server_duid));
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.cnt[O_CLIENTID], 0);
	assert_int_equal(r.cnt[O_DNS], 1);
	assert_ctr_deltas(e, CTR_DHCP6_INFO_REQUEST, 2, CTR_DHCP6_REPLIES, 2,
			  CTR_UDP_TO_GUEST, 2, -1);

	env_clear(e);
	env_mark(e);
	msg_start(&m, INFO_REQUEST, false);
	ia_na(&m, 1, NULL);
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_BAD, 1, -1);
}

/**
 * test_fqdn() - the Client FQDN option goes, last, to a client that lists
 * it in its Option Request or sends one, in replies that configure:
 * flags 0, or O when the client set S; not to other clients, nor in a
 * RELEASE's REPLY
 * @state:	environment
 */
static void test_fqdn(void **state)
{
	static const uint8_t oro[6] = { 0, O_DNS, 0, O_DOMAINS, 0, O_FQDN };
	static const uint8_t fqdn_s[] = { 0x01, 1, 'x', 0 };
	struct env *e = *state;
	struct dhcp4_conf *d = &e->c.conf.dhcp4;
	struct reply6 r;
	struct msg6 m;

	d->fqdn_len = conf_dhcp_name_wire("vm1.example.test", d->fqdn);

	/* not asked for */
	msg_start(&m, SOLICIT, false);
	ia_na(&m, 1, NULL);
	reply_mc(e, &m, ADVERTISE, &r);
	assert_int_equal(r.cnt[O_FQDN], 0);

	/* in the Option Request */
	msg_begin(&m, SOLICIT);
	opt(&m, O_CLIENTID, client_duid, sizeof(client_duid));
	opt(&m, O_ORO, oro, sizeof(oro));
	ia_na(&m, 1, NULL);
	reply_mc(e, &m, ADVERTISE, &r);
	assert_config(&r, true);
	assert_int_equal(r.cnt[O_FQDN], 1);
	assert_int_equal(r.order[r.nopts - 1], O_FQDN);
	assert_int_equal(r.optlen[O_FQDN], 1 + d->fqdn_len);
	assert_int_equal(r.opt[O_FQDN][0], 0);
	assert_memory_equal(r.opt[O_FQDN] + 1, d->fqdn, d->fqdn_len);

	/* the client's own, asking us to update: O */
	msg_start(&m, REQUEST, true);
	opt(&m, O_FQDN, fqdn_s, sizeof(fqdn_s));
	ia_na(&m, 1, NULL);
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.cnt[O_FQDN], 1);
	assert_int_equal(r.opt[O_FQDN][0], 0x02);
	assert_memory_equal(r.opt[O_FQDN] + 1, d->fqdn, d->fqdn_len);

	/* INFORMATION-REQUEST too (an empty option: no flags); RELEASE
	 * configures nothing */
	msg_start(&m, INFO_REQUEST, false);
	opt(&m, O_FQDN, NULL, 0);
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.cnt[O_FQDN], 1);
	assert_int_equal(r.opt[O_FQDN][0], 0);
	msg_start(&m, RELEASE, true);
	opt(&m, O_FQDN, fqdn_s, sizeof(fqdn_s));
	ia_na(&m, 1, guest6);
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.cnt[O_FQDN], 0);
	assert_int_equal(e->fx.nframes, 5);
	assert_ctr_deltas(e, CTR_DHCP6_SOLICIT, 2, CTR_DHCP6_ADVERTISE, 2,
			  CTR_DHCP6_REQUEST, 1, CTR_DHCP6_INFO_REQUEST, 1,
			  CTR_DHCP6_RELEASE, 1, CTR_DHCP6_REPLIES, 3,
			  CTR_UDP_TO_GUEST, 5, -1);
}

/**
 * test_no_dns_no_search() - without a DNS address or a search list the
 * reply carries neither option
 * @state:	unused (own environment)
 */
static void test_no_dns_no_search(void **state)
{
	struct core_conf cc;
	struct env *e;
	struct reply6 r;
	struct msg6 m;

	(void)state;
	conf_dhcp6(&cc, true);
	memset(cc.dns6, 0, 16);
	cc.dhcp4.search_len = 0;
	e = env_new(&cc);
	env_mark(e);
	msg_start(&m, INFO_REQUEST, false);
	reply_mc(e, &m, REPLY, &r);
	assert_int_equal(r.nopts, 2); /* server and client identifiers */
	assert_ctr_deltas(e, CTR_DHCP6_INFO_REQUEST, 1, CTR_DHCP6_REPLIES, 1,
			  CTR_UDP_TO_GUEST, 1, -1);
	assert_quiet(e);
	env_free(e);
}

/**
 * test_wrong_server() - messages naming another server, server messages,
 * relay messages, multicast-only messages sent unicast, a source of ::
 * and everything while the server is off are ignored, and counted so
 * @state:	environment
 */
static void test_wrong_server(void **state)
{
	struct env *e = *state;
	uint8_t other[10];
	struct msg6 m;

	memcpy(other, server_duid, sizeof(other));
	other[9] ^= 1;
	msg_start(&m, REQUEST, false);
	opt(&m, O_SERVERID, other, sizeof(other));
	ia_na(&m, 1, NULL);
	send_mc(e, &m);
	/* a server identifier of another length */
	msg_start(&m, RENEW, false);
	opt(&m, O_SERVERID, client_duid, sizeof(client_duid));
	send_mc(e, &m);
	msg_begin(&m, INFO_REQUEST);
	opt(&m, O_SERVERID, other, sizeof(other));
	send_mc(e, &m);
	/* messages servers send, relay and lease-query messages */
	msg_start(&m, ADVERTISE, true);
	send_mc(e, &m);
	m.b[0] = REPLY;
	send_mc(e, &m);
	m.b[0] = RECONFIGURE;
	send_mc(e, &m);
	m.b[0] = RELAY_FORW;
	send_mc(e, &m);
	m.b[0] = 14;
	send_mc(e, &m);
	m.b[0] = 37;
	send_mc(e, &m);
	/* SOLICIT, CONFIRM, REBIND, INFORMATION-REQUEST must be multicast */
	msg_start(&m, SOLICIT, false);
	ia_na(&m, 1, NULL);
	send6(e, &m, guest6_ll, gw6_ll, 547);
	m.b[0] = CONFIRM;
	send6(e, &m, guest6, gw6, 547);
	m.b[0] = REBIND;
	send6(e, &m, guest6, gw6, 547);
	msg_begin(&m, INFO_REQUEST);
	send6(e, &m, guest6_ll, gw6_ll, 547);
	/* from :: */
	msg_start(&m, SOLICIT, false);
	send6(e, &m, unspec6, all_servers, 547);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_IGNORED, 14, -1);

	/* the server off: everything to it is ignored, nothing else */
	env_mark(e);
	e->c.conf.dhcp6 = false;
	msg_start(&m, SOLICIT, false);
	ia_na(&m, 1, NULL);
	send_mc(e, &m);
	m.len = 2;
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_IGNORED, 2, -1);
	e->c.conf.dhcp6 = true;
}

/**
 * test_malformed() - every malformed message is dropped and counted:
 * truncated header and options, options running past the message or
 * their IA, short IAs and nested options, bad identifier lengths,
 * repeats, bad lengths of options we read, unassigned types, and
 * breaches of RFC 8415 section 16
 * @state:	environment
 */
static void test_malformed(void **state)
{
	struct env *e = *state;
	uint8_t long_duid[131] = { 0, 4 };
	unsigned n = 0;
	struct msg6 m;
	size_t at, at2;

	/* shorter than the header */
	msg_begin(&m, SOLICIT);
	m.len = 3;
	send_mc(e, &m), n++;
	m.len = 0;
	send_mc(e, &m), n++;
	/* an option header cut short, then an option past the end */
	msg_start(&m, SOLICIT, false);
	ia_na(&m, 1, NULL);
	m.len += 3;
	memset(m.b + m.len - 3, 0, 3);
	send_mc(e, &m), n++;
	m.len -= 3;
	wr16(m.b + m.len - 16 + 2, 13); /* IA_NA of 13 bytes, 12 there */
	send_mc(e, &m), n++;
	/* an IA_NA of 11 bytes; an IA_TA of 3; an IA_PD of 11 */
	msg_start(&m, SOLICIT, false);
	opt(&m, O_IA_NA, NULL, 11);
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, false);
	opt(&m, O_IA_TA, NULL, 3);
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, false);
	opt(&m, O_IA_PD, NULL, 11);
	send_mc(e, &m), n++;
	/* an IAADDR of 23 bytes; an IAPREFIX of 24 */
	msg_start(&m, SOLICIT, false);
	at = ia_open(&m, O_IA_NA, 1);
	opt(&m, O_IAADDR, NULL, 23);
	opt_close(&m, at);
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, false);
	at = ia_open(&m, O_IA_PD, 1);
	opt(&m, O_IAPREFIX, NULL, 24);
	opt_close(&m, at);
	send_mc(e, &m), n++;
	/* a nested option running past its IA (the IA itself fits) */
	msg_start(&m, SOLICIT, false);
	at = ia_open(&m, O_IA_NA, 1);
	iaaddr(&m, guest6);
	opt_close(&m, at);
	wr16(m.b + at + 4 + 12 + 2, 25);
	send_mc(e, &m), n++;
	/* an option inside an IAADDR running past it */
	msg_start(&m, SOLICIT, false);
	at = ia_open(&m, O_IA_NA, 1);
	at2 = opt(&m, O_IAADDR, NULL, 24);
	opt(&m, 99, NULL, 4);
	opt_close(&m, at2);
	opt_close(&m, at);
	wr16(m.b + at2 + 4 + 24 + 2, 5);
	send_mc(e, &m), n++;
	/* a status code of 1 byte inside an IA */
	msg_start(&m, SOLICIT, false);
	at = ia_open(&m, O_IA_NA, 1);
	opt(&m, O_STATUS, NULL, 1);
	opt_close(&m, at);
	send_mc(e, &m), n++;
	/* client identifiers of 2 and 131 bytes, and two of them */
	msg_begin(&m, SOLICIT);
	opt(&m, O_CLIENTID, client_duid, 2);
	send_mc(e, &m), n++;
	msg_begin(&m, SOLICIT);
	opt(&m, O_CLIENTID, long_duid, sizeof(long_duid));
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, false);
	opt(&m, O_CLIENTID, client_duid, sizeof(client_duid));
	send_mc(e, &m), n++;
	/* two server identifiers (ours) */
	msg_start(&m, REQUEST, true);
	opt(&m, O_SERVERID, server_duid, sizeof(server_duid));
	send_mc(e, &m), n++;
	/* Elapsed Time of 3 bytes, Rapid Commit of 1, an odd ORO */
	msg_start(&m, SOLICIT, false);
	opt(&m, O_ELAPSED, NULL, 3);
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, false);
	opt(&m, O_RAPID_COMMIT, NULL, 1);
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, false);
	opt(&m, O_ORO, NULL, 3);
	send_mc(e, &m), n++;
	/* unassigned message types */
	msg_start(&m, 0, false);
	send_mc(e, &m), n++;
	m.b[0] = 38;
	send_mc(e, &m), n++;
	m.b[0] = 255;
	send_mc(e, &m), n++;
	/* section 16: SOLICIT without client, with server identifier;
	 * REQUEST, RELEASE, DECLINE without server identifier; CONFIRM
	 * with one; REQUEST without client identifier */
	msg_begin(&m, SOLICIT);
	ia_na(&m, 1, NULL);
	send_mc(e, &m), n++;
	msg_start(&m, SOLICIT, true);
	send_mc(e, &m), n++;
	msg_start(&m, REQUEST, false);
	send_mc(e, &m), n++;
	m.b[0] = RELEASE;
	send_mc(e, &m), n++;
	m.b[0] = DECLINE;
	send_mc(e, &m), n++;
	msg_start(&m, CONFIRM, true);
	ia_na(&m, 1, guest6);
	send_mc(e, &m), n++;
	msg_begin(&m, REQUEST);
	opt(&m, O_SERVERID, server_duid, sizeof(server_duid));
	send_mc(e, &m), n++;
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_BAD, (int)n, -1);
}

/**
 * test_udp_hook() - what reaches the server: port 547 at ff02::1:2 or a
 * gateway address; other unicast ports and addresses are UDP flows (not
 * the DNS address's: port unreachable), other multicast is dropped (IP6_DROP_ADDR); a bad UDP length to the server is a bad UDP header; a
 * UDP length shorter than the packet cuts the message there
 * @state:	environment
 */
static void test_udp_hook(void **state)
{
	struct env *e = *state;
	struct reply6 r;
	struct msg6 m;
	size_t len, l3;

	msg_start(&m, SOLICIT, false);
	ia_na(&m, 1, NULL);
	send6(e, &m, guest6_ll, outside6, 546);
	send6(e, &m, guest6_ll, all_nodes, 547);
	send6(e, &m, guest6_ll, outside6, 547);
	send6(e, &m, guest6_ll, all_servers, 546);
	send6(e, &m, guest6_ll, all_servers, 53);
	assert_int_equal(e->fx.nframes, 0);
	/* the unicast ones are UDP flows like any other; multicast dropped */
	assert_ctr_deltas(e, CTR_IP6_DROP_ADDR, 3, CTR_UDP_FROM_GUEST, 2,
			  CTR_UDP_FLOWS_OPENED, 2, CTR_UDP_FLOWS_OPENED6, 2,
			  -1);
	assert_int_equal(fx_count(e, FX_DGRAM_OPEN), 2);
	env_clear(e);
	core_timer(&e->c, e->now + e->c.conf.udp_idle_ns + 1, &e->fx);
	assert_int_equal(fx_count(e, FX_DGRAM_CLOSE), 2);
	env_clear(e);
	/* the DNS address has no port but 53, as over TCP: unreachable */
	env_mark(e);
	send6(e, &m, guest6_ll, dns6, 547);
	assert_int_equal(e->fx.nframes, 1);
	assert_ctr_deltas(e, CTR_UDP_UNREACH_SENT, 1, CTR_ICMP6_UNREACH_SENT, 1,
			  -1);
	env_clear(e);

	/* UDP length past the packet, and below 8 */
	env_mark(e);
	l3 = e->c.conf.vnet_hdr_len + ETH_HLEN;
	msg_start(&m, SOLICIT, false);
	len = l3 + IP6_HLEN + 8 + m.len;
	send_mc(e, &m);
	env_clear(e);
	wr16(e->in + l3 + IP6_HLEN + 4, (uint16_t)(8 + m.len + 1));
	env_input(e, e->in, len);
	wr16(e->in + l3 + IP6_HLEN + 4, 7);
	env_input(e, e->in, len);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_SOLICIT, 1, CTR_DHCP6_ADVERTISE, 1,
			  CTR_UDP_TO_GUEST, 1, CTR_UDP_DROP_BAD_HDR, 2, -1);

	/* a UDP length that ends the message before the packet does: the
	 * trailing bytes (a truncated option) are not read */
	env_mark(e);
	msg_start(&m, INFO_REQUEST, false);
	m.b[m.len] = 0xee;
	m.b[m.len + 1] = 0xee;
	m.len += 2;
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, 0);
	wr16(e->in + l3 + IP6_HLEN + 4, (uint16_t)(8 + m.len - 2));
	env_input(e, e->in, l3 + IP6_HLEN + 8 + m.len);
	assert_int_equal(e->fx.nframes, 1);
	parse_reply(e, 0, gw6_ll, guest6_ll, &r);
	assert_int_equal(r.type, REPLY);
	assert_ctr_deltas(e, CTR_DHCP6_DROP_BAD, 1, CTR_DHCP6_INFO_REQUEST, 1,
			  CTR_DHCP6_REPLIES, 1, CTR_UDP_TO_GUEST, 1, -1);
}

/**
 * test_no_slot() - with every slot taken, or a slot too small, the reply
 * is counted as lost and the reply counter does not move
 * @state:	environment
 */
static void test_no_slot(void **state)
{
	struct env *e = *state;
	size_t slot_size = e->fx.slot_size;
	struct msg6 m;

	msg_start(&m, INFO_REQUEST, false);
	e->fx.nframes = e->fx.nslots;
	send_mc(e, &m);
	assert_int_equal(e->fx.nframes, e->fx.nslots);
	assert_ctr_deltas(e, CTR_DHCP6_INFO_REQUEST, 1, CTR_FX_POOL_EMPTY, 1,
			  -1);
	env_clear(e);
	env_mark(e);
	e->fx.slot_size = e->c.conf.vnet_hdr_len + ETH_HLEN + IP6_HLEN + 8 + 20;
	send_mc(e, &m);
	e->fx.slot_size = slot_size;
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_DHCP6_INFO_REQUEST, 1, CTR_UDP_DROP_TOO_BIG, 1,
			  -1);
}

/**
 * test_conf() - core_init() refuses a DHCPv6 address outside the prefix,
 * the prefix's anycast address, the gateway's or the DNS address; with
 * DHCPv6 off the field is not looked at
 * @state:	unused
 */
static void test_conf(void **state)
{
	struct core_conf cc;

	(void)state;
	conf_dhcp6(&cc, true);
	assert_int_equal(core_init_rc(&cc), 0);
	cc.guest6[7] ^= 1;
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	memcpy(cc.guest6, outside6, 16);
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	memset(cc.guest6, 0, 16);
	memcpy(cc.guest6, prefix6, 8);
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	memcpy(cc.guest6, gw6, 16);
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	memcpy(cc.guest6, dns6, 16);
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	cc.dhcp6 = false;
	assert_int_equal(core_init_rc(&cc), 0);
	memset(cc.guest6, 0xff, 16);
	assert_int_equal(core_init_rc(&cc), 0);
}

/**
 * main() - run the DHCPv6 tests, with and without vnet header
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
#define BOTH(t) ENV_BOTH(t, setup_offload, setup_plain, teardown)
	const struct CMUnitTest tests[] = {
		BOTH(test_solicit_advertise),
		BOTH(test_solicit_rapid_commit),
		BOTH(test_solicit_other_ias),
		BOTH(test_request),
		BOTH(test_renew_rebind),
		cmocka_unit_test(test_renew_many),
		BOTH(test_confirm),
		BOTH(test_release_decline),
		BOTH(test_info_request),
		BOTH(test_fqdn),
		cmocka_unit_test(test_no_dns_no_search),
		BOTH(test_wrong_server),
		BOTH(test_malformed),
		BOTH(test_udp_hook),
		BOTH(test_no_slot),
		cmocka_unit_test(test_conf),
	};

	return cmocka_run_group_tests_name("dhcp6", tests, NULL, NULL);
}
