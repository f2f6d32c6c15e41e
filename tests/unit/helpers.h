/* SPDX-License-Identifier: GPL-2.0-or-later */
/* helpers.h - unit-test harness: a core in calloc'ed memory, frame builders
 * and parsers for the guest side, counter deltas and intent look-ups
 *
 * The core is pure, so a test is: build a frame as the guest would send it,
 * feed it with env_input(), then assert the frames queued in the fx slots
 * and the intents in fx.intents. The parsers check every header field they
 * do not return (Ethernet addresses, IPv4 header checksum, IPv6 lengths
 * and hop limit, TCP checksum or the virtio-net NEEDS_CSUM contract) with
 * cmocka assertions. TCP tests run over a family (struct fam, FAM_BOTH()).
 */
#ifndef SLIPWAY_TEST_HELPERS_H
#define SLIPWAY_TEST_HELPERS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/core.h"
#include "core/csum.h"
#include "core/tcp.h"

#define ENV_SLOTS 16
#define ENV_SLOT_SIZE (65536 + 128)
#define ENV_IN_SIZE (VNET_HDR_MAX_LEN + ETH_HLEN + 65535 + 64)
#define ENV_MAX_FLOWS 64

#define MS(x) ((uint64_t)(x)*1000 * 1000)
#define T0 MS(1000) /* start time of every test: not zero on purpose */

/* TCP header flags (tcp.c keeps its own copy private) */
#define T_FIN 0x01
#define T_SYN 0x02
#define T_RST 0x04
#define T_PSH 0x08
#define T_ACK 0x10

extern const uint8_t our_mac[ETH_ALEN];
extern const uint8_t guest_mac[ETH_ALEN];
extern const uint8_t bcast_mac[ETH_ALEN];

/**
 * ip4() - an IPv4 address in network order from its four bytes
 * @a:	first byte
 * @b:	second byte
 * @c:	third byte
 * @d:	fourth byte
 *
 * Return: the address as stored in a packet
 */
static inline uint32_t ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	uint8_t x[4] = { a, b, c, d };
	uint32_t v;

	memcpy(&v, x, 4);
	return v;
}

/**
 * map4() - an IPv4 address as the core's 16-byte flow address
 * @buf:	16 bytes to fill
 * @a:		IPv4 address, network order
 *
 * Return: @buf
 */
static inline const uint8_t *map4(uint8_t *buf, uint32_t a)
{
	addr_from4(buf, a);
	return buf;
}

/* M4(a): a v4-mapped flow address, valid until the end of the block */
#define M4(a) map4((uint8_t[ADDR_LEN]){ 0 }, (a))

/* IPv6 of env_conf6(): fd00:5170:7761:7901::/64, gateway ::2, DNS ::3 */
#define PFX6 0xfd, 0x00, 0x51, 0x70, 0x77, 0x61, 0x79, 0x01
extern const uint8_t prefix6[8];
extern const uint8_t gw6[16];
extern const uint8_t dns6[16];
extern const uint8_t gw6_ll[16];
extern const uint8_t guest6_ll[16];

#define GUEST4 ip4(10, 0, 2, 15)
#define GW4 ip4(10, 0, 2, 2)
#define LO4 ip4(127, 0, 0, 1)

/**
 * struct fam - an address family the TCP tests run over: what differs
 * between a guest's TCP over IPv4 and over IPv6
 * @v6:		IPv6
 * @ethertype:	of the guest's frames
 * @iphlen:	IP header bytes (no options, no extension headers)
 * @gso_type:	VNET_HDR_GSO_TCPV4 or VNET_HDR_GSO_TCPV6
 * @mss:	the core's MSS at the default MTU (65520 less both headers)
 * @guest:	the guest's address (flow form: v4-mapped for IPv4)
 * @gw:		the gateway's, which the core maps to host loopback
 * @lo:		host loopback (127.0.0.1 or ::1)
 * @remote:	an address outside (a documentation or public one: the core
 *		is pure, nothing is ever sent there)
 * @peer:	another outside address, as a published port's client
 * @other:	an address on the guest's link that is neither guest nor
 *		gateway
 */
struct fam {
	bool v6;
	uint16_t ethertype;
	size_t iphlen;
	uint8_t gso_type;
	uint32_t mss;
	uint8_t guest[ADDR_LEN];
	uint8_t gw[ADDR_LEN];
	uint8_t lo[ADDR_LEN];
	uint8_t remote[ADDR_LEN];
	uint8_t peer[ADDR_LEN];
	uint8_t other[ADDR_LEN];
};

extern const struct fam fam4, fam6;

/**
 * struct env - one core as the host would set it up, plus test state
 * @c:		the core
 * @ctr:	its counters
 * @mark:	counters at the last env_mark()
 * @mem:	flow table memory (calloc'ed, core_mem_size() bytes)
 * @fx:		effects batch with ENV_SLOTS slots of ENV_SLOT_SIZE bytes
 * @frame_len:	frame lengths of @fx
 * @now:	the test's clock (ns)
 * @fam:	the family of the test's TCP (&fam4 unless fam_env_new() set
 *		it): parse_tcp() expects frames of it
 * @in:		buffer the next guest frame is built in; FX_SOCK_SEND
 *		intents point into it
 */
struct env {
	struct core c;
	uint64_t ctr[CTR_NUM];
	uint64_t mark[CTR_NUM];
	void *mem;
	struct fx fx;
	uint32_t frame_len[ENV_SLOTS];
	uint64_t now;
	const struct fam *fam;
	uint8_t in[ENV_IN_SIZE];
};

/**
 * struct seg - a TCP segment from the guest, for build_tcp()
 * @saddr:	IPv4 source address (0: the guest's)
 * @daddr:	IPv4 destination address
 * @saddr6:	IPv6 source address (NULL: the configured guest6)
 * @daddr6:	IPv6 destination address (NULL: an IPv4 segment)
 * @sport:	source port
 * @dport:	destination port
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	T_* flags
 * @wnd:	window field
 * @mss:	MSS option value (0: no option)
 * @ws_on:	add a window scale option
 * @ws:		its shift
 * @opts:	raw options instead of @mss/@ws (multiple of 4 bytes)
 * @optlen:	bytes of @opts
 * @data:	payload
 * @len:	payload length
 */
struct seg {
	uint32_t saddr, daddr;
	const uint8_t *saddr6, *daddr6;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	uint16_t mss;
	bool ws_on;
	uint8_t ws;
	const uint8_t *opts;
	size_t optlen;
	const void *data;
	size_t len;
};

/**
 * struct otcp - a TCP segment the core sent to the guest, from parse_tcp()
 * @saddr:	IPv4 source address (0 over IPv6)
 * @daddr:	IPv4 destination address (0 over IPv6)
 * @src:	source address, either family (flow form: v4-mapped)
 * @dst:	destination address, either family
 * @ip_id:	IPv4 identification (0 over IPv6)
 * @sport:	source port
 * @dport:	destination port
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	T_* flags
 * @wnd:	window field, as sent (unscaled)
 * @mss:	MSS option (0: absent)
 * @ws:		window scale option (-1: absent)
 * @optlen:	bytes of options
 * @data:	payload, in the fx slot
 * @len:	payload length
 */
struct otcp {
	uint32_t saddr, daddr;
	uint8_t src[ADDR_LEN], dst[ADDR_LEN];
	uint16_t ip_id;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	uint16_t mss;
	int ws;
	size_t optlen;
	const uint8_t *data;
	size_t len;
};

/* reference checksums (independent of core/csum.c) */
uint16_t ref_sum16(const void *buf, size_t len, uint32_t sum);
uint16_t ref_pseudo4(uint32_t saddr, uint32_t daddr, uint8_t proto,
		     uint16_t len);
uint16_t ref_pseudo6(const uint8_t *saddr, const uint8_t *daddr, uint8_t proto,
		     uint32_t len);

/* set-up */
void env_conf(struct core_conf *cc, bool offload);
void env_conf6(struct core_conf *cc, bool offload);
void fam_conf(struct core_conf *cc, bool offload, const struct fam *f);
struct env *env_new(const struct core_conf *cc);
struct env *fam_env_new(const struct core_conf *cc, const struct fam *f);
int core_init_rc(const struct core_conf *cc);
struct env *env_new_default(bool offload);
void env_free(struct env *e);
void env_clear(struct env *e);
void env_assert_quiet(struct env *e);

/* counters */
void env_mark(struct env *e);
int64_t env_delta(const struct env *e, enum ctr_id id);
void assert_ctr_deltas(const struct env *e, ...);
void assert_dropped(const struct env *e, int kind, enum ctr_id ctr);

/* intents */
unsigned fx_count(const struct env *e, enum fx_intent_type type);
const struct fx_intent *fx_find(const struct env *e, enum fx_intent_type type);
void assert_intents(const struct env *e, ...);

/* guest frames */
size_t build_l2(const struct env *e, uint8_t *buf, const uint8_t *dst,
		const uint8_t *src, uint16_t ethertype);
size_t build_ip4(uint8_t *p, uint8_t proto, uint32_t saddr, uint32_t daddr,
		 size_t payload_len);
void ip4_fix_csum(uint8_t *p);
size_t build_ip6(uint8_t *p, uint8_t nh, const uint8_t *saddr,
		 const uint8_t *daddr, size_t payload_len);
size_t build_arp(const struct env *e, uint8_t *buf, uint16_t op,
		 const uint8_t *sha, uint32_t spa, const uint8_t *tha,
		 uint32_t tpa);
size_t build_icmp_echo(const struct env *e, uint8_t *buf, uint32_t saddr,
		       uint32_t daddr, uint16_t id, uint16_t seqno,
		       const void *data, size_t len);
size_t build_tcp(const struct env *e, uint8_t *buf, const struct seg *s);
void seg_dst(struct seg *s, const uint8_t *daddr);
void set_vnet(const struct env *e, uint8_t *buf, const struct vnet_hdr *h);
void env_input(struct env *e, const uint8_t *frame, size_t len);
void env_send(struct env *e, const struct seg *s);

/* frames to the guest */
const uint8_t *frame_l3(const struct env *e, unsigned i, uint16_t ethertype,
			const uint8_t *dst, size_t *l3_len);
const uint8_t *parse_ip4(const struct env *e, unsigned i, uint8_t proto,
			 size_t *l4_len);
const uint8_t *parse_ip6_frame(const struct env *e, unsigned i, uint8_t nh,
			       size_t *l4_len);
size_t tcp_decode(const uint8_t *th, size_t len, struct otcp *o);
void parse_tcp(const struct env *e, unsigned i, struct otcp *o);
uint32_t l4_csum_ok(uint32_t saddr, uint32_t daddr, uint8_t proto,
		    const uint8_t *l4, size_t len);
uint32_t l4_csum_ok_any(const uint8_t *saddr, const uint8_t *daddr,
			uint8_t proto, const uint8_t *l4, size_t len);

/* cmocka fixtures: a fresh environment per test, checked quiet at the end */
int env_setup(void **state, const struct core_conf *cc);
int env_setup_offload(void **state);
int env_setup_plain(void **state);
int env_teardown(void **state);
int fam_setup_offload(void **state);
int fam_setup_plain(void **state);

/* FAM_TEST() - one test on one family: cmocka's initial state is the
 * family, which @setup (fam_setup_offload() or fam_setup_plain()) turns
 * into an environment; the name shows both, e.g. "test_rto/v6" (plain
 * set-ups add "/plain") */
#define FAM_TEST(t, f, tag, setup, teardown)                             \
	{                                                                \
		.name = #t "/" tag, .test_func = t, .setup_func = setup, \
		.teardown_func = teardown, .initial_state = (void *)&(f) \
	}

/* FAM_BOTH() - a test on IPv4 and on IPv6, set up with @setup */
#define FAM_BOTH(t, setup, teardown, plain)             \
	FAM_TEST(t, fam4, "v4" plain, setup, teardown), \
		FAM_TEST(t, fam6, "v6" plain, setup, teardown)

/* ENV_BOTH() - a test run twice: on a core as on tap (vnet header and
 * checksum offload) and on a plain one, each with its own set-up */
#define ENV_BOTH(t, setup_offload, setup_plain, teardown)            \
	cmocka_unit_test_setup_teardown(t, setup_offload, teardown), \
		cmocka_unit_test_setup_teardown(t, setup_plain, teardown)

/**
 * ENV_SETUPS() - define setup_offload() and setup_plain(), the cmocka
 * set-ups of a test file on its own configuration
 * @conf:	void conf(struct core_conf *cc, bool offload): true for a
 *		12-byte vnet header and checksum offload, false for none
 */
#define ENV_SETUPS(conf)                       \
	static int setup_offload(void **state) \
	{                                      \
		struct core_conf cc;           \
                                               \
		conf(&cc, true);               \
		return env_setup(state, &cc);  \
	}                                      \
	static int setup_plain(void **state)   \
	{                                      \
		struct core_conf cc;           \
                                               \
		conf(&cc, false);              \
		return env_setup(state, &cc);  \
	}

#endif /* SLIPWAY_TEST_HELPERS_H */
