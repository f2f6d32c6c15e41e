/* SPDX-License-Identifier: GPL-2.0-or-later */
/* helpers.c - unit-test harness: core set-up, frame builders and parsers */

#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"

const uint8_t our_mac[ETH_ALEN] = { 0x52, 0x56, 0x00, 0x00, 0x00, 0x02 };
const uint8_t guest_mac[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
const uint8_t bcast_mac[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* IPv6 of env_conf6(): prefix fd00:5170:7761:7901::/64 */
const uint8_t prefix6[8] = { PFX6 };
const uint8_t gw6[16] = { PFX6, [15] = 0x02 };
const uint8_t dns6[16] = { PFX6, [15] = 0x03 };
const uint8_t gw6_ll[16] = { 0xfe, 0x80, [15] = 0x01 };
const uint8_t guest6_ll[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00,
				0xff, 0xfe, 0x12,	0x34, 0x56 };

#define V4MAPPED 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff

/* IPv4 as test_tcp.c always ran it; IPv6 as env_conf6() sets it up, with
 * the guest at ::15 of the prefix, as test_ipv6.c has it */
const struct fam fam4 = {
	.ethertype = ETHERTYPE_IP4,
	.iphlen = IP4_HLEN,
	.gso_type = VNET_HDR_GSO_TCPV4,
	.mss = 65520 - IP4_HLEN - TCP_HLEN,
	.guest = { V4MAPPED, 10, 0, 2, 15 },
	.gw = { V4MAPPED, 10, 0, 2, 2 },
	.lo = { V4MAPPED, 127, 0, 0, 1 },
	.remote = { V4MAPPED, 93, 184, 216, 34 },
	.peer = { V4MAPPED, 192, 168, 1, 20 },
	.other = { V4MAPPED, 10, 0, 2, 77 },
};

const struct fam fam6 = {
	.v6 = true,
	.ethertype = ETHERTYPE_IP6,
	.iphlen = IP6_HLEN,
	.gso_type = VNET_HDR_GSO_TCPV6,
	.mss = 65520 - IP6_HLEN - TCP_HLEN,
	.guest = { PFX6, [15] = 0x15 },
	.gw = { PFX6, [15] = 0x02 },
	.lo = { [15] = 1 },
	.remote = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x80 },
	.peer = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x20 },
	.other = { PFX6, [15] = 0x77 },
};

static const uint8_t test_key[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

/**
 * assert_fail() - the core's ASSERT() hook: report and abort
 * @expr:	text of the failed expression
 * @file:	source file
 * @line:	source line
 * @func:	function name
 */
_Noreturn void assert_fail(const char *expr, const char *file, int line,
			   const char *func)
{
	fprintf(stderr, "ASSERT(%s) failed at %s:%d in %s()\n", expr, file,
		line, func);
	fflush(stderr);
	abort();
}

/**
 * ref_sum16() - reference one's complement sum, one 16-bit word at a time
 * @buf:	bytes
 * @len:	length (an odd last byte is padded with zero)
 * @sum:	sum to add to
 *
 * Deliberately naive: big-endian words, folded after every addition. The
 * parsers check the core's checksums with this, not with csum_partial().
 *
 * Return: folded sum (16 bits)
 */
uint16_t ref_sum16(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t i;

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)sum;
}

/**
 * ref_pseudo4() - reference IPv4 pseudo-header sum
 * @saddr:	source address, network order
 * @daddr:	destination address, network order
 * @proto:	protocol
 * @len:	transport length
 *
 * Return: folded sum (16 bits)
 */
uint16_t ref_pseudo4(uint32_t saddr, uint32_t daddr, uint8_t proto,
		     uint16_t len)
{
	uint8_t ph[12];

	memcpy(ph, &saddr, 4);
	memcpy(ph + 4, &daddr, 4);
	ph[8] = 0;
	ph[9] = proto;
	ph[10] = (uint8_t)(len >> 8);
	ph[11] = (uint8_t)len;
	return ref_sum16(ph, sizeof(ph), 0);
}

/**
 * ref_pseudo6() - reference IPv6 pseudo-header sum
 * @saddr:	source, 16 bytes
 * @daddr:	destination, 16 bytes
 * @proto:	upper-layer protocol (next header)
 * @len:	upper-layer length
 *
 * Return: folded sum (16 bits)
 */
uint16_t ref_pseudo6(const uint8_t *saddr, const uint8_t *daddr, uint8_t proto,
		     uint32_t len)
{
	uint8_t ph[40] = { 0 };

	memcpy(ph, saddr, 16);
	memcpy(ph + 16, daddr, 16);
	wr32(ph + 32, len);
	ph[39] = proto;
	return ref_sum16(ph, sizeof(ph), 0);
}

/**
 * env_conf() - the configuration shard_init() builds, for tests
 * @cc:		configuration out
 * @offload:	true: 12-byte vnet header and checksum offload, as on tap;
 *		false: no vnet header, full checksums
 */
void env_conf(struct core_conf *cc, bool offload)
{
	core_conf_default(cc); /* our_mac, 10.0.2.15/24 via .2, MTU 65520 */
	memcpy(cc->guest_mac, guest_mac, ETH_ALEN);
	cc->vnet_hdr_len = offload ? 12 : 0;
	cc->csum_offload = offload;
	cc->max_flows = ENV_MAX_FLOWS;
	cc->max_udp_flows = 16;
}

/**
 * env_conf6() - env_conf() with IPv6 on: prefix6, the gateway's global
 * and link-local addresses and the DNS address (no guest6: the callers
 * differ)
 * @cc:		configuration out
 * @offload:	passed to env_conf()
 */
void env_conf6(struct core_conf *cc, bool offload)
{
	env_conf(cc, offload);
	cc->ipv6 = true;
	memcpy(cc->prefix6, prefix6, 8);
	memcpy(cc->gw6_ll, gw6_ll, 16);
	memcpy(cc->gw6, gw6, 16);
	memcpy(cc->dns6, dns6, 16);
}

/**
 * fam_conf() - env_conf() for a family: IPv4 alone, or IPv6 on
 * (env_conf6()) with the guest at @f->guest
 * @cc:		configuration out
 * @offload:	passed to env_conf()
 * @f:		family
 */
void fam_conf(struct core_conf *cc, bool offload, const struct fam *f)
{
	if (!f->v6) {
		env_conf(cc, offload);
		return;
	}
	env_conf6(cc, offload);
	memcpy(cc->guest6, f->guest, 16);
}

/**
 * env_new() - a core in calloc'ed memory with an empty effects batch
 * @cc:	configuration
 *
 * Return: the environment (never NULL: set-up failures fail the test)
 */
struct env *env_new(const struct core_conf *cc)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->mem = calloc(1, core_mem_size(cc));
	assert_non_null(e->mem);
	e->fx.slots = calloc(ENV_SLOTS, ENV_SLOT_SIZE);
	assert_non_null(e->fx.slots);
	e->fx.slot_size = ENV_SLOT_SIZE;
	e->fx.nslots = ENV_SLOTS;
	e->fx.frame_len = e->frame_len;
	assert_int_equal(core_init(&e->c, cc, e->mem, e->ctr, test_key), 0);
	e->now = T0;
	e->fam = &fam4;
	return e;
}

/**
 * fam_env_new() - env_new() for TCP over a family
 * @cc:	configuration (fam_conf() of @f)
 * @f:	family: parse_tcp() expects its frames
 *
 * With IPv6 on, the core would send periodic router advertisements from
 * its first timer run on: a TCP test counts every frame core_timer()
 * queues, so they are turned off (test_ndp.c tests them).
 *
 * Return: the environment
 */
struct env *fam_env_new(const struct core_conf *cc, const struct fam *f)
{
	struct env *e = env_new(cc);

	assert_int_equal(cc->ipv6, f->v6);
	e->fam = f;
	e->c.ra_next_ns = UINT64_MAX;
	return e;
}

/**
 * core_init_rc() - what core_init() says to a configuration
 * @cc:	configuration
 *
 * On fresh memory of core_mem_size(@cc), freed again.
 *
 * Return: core_init()'s return value
 */
int core_init_rc(const struct core_conf *cc)
{
	uint64_t ctr[CTR_NUM];
	struct core c;
	void *mem = calloc(1, core_mem_size(cc));
	int rc;

	assert_non_null(mem);
	rc = core_init(&c, cc, mem, ctr, test_key);
	free(mem);
	return rc;
}

/**
 * env_new_default() - env_new() with env_conf()
 * @offload:	passed to env_conf()
 *
 * Return: the environment
 */
struct env *env_new_default(bool offload)
{
	struct core_conf cc;

	env_conf(&cc, offload);
	return env_new(&cc);
}

/**
 * env_free() - release an environment
 * @e:	environment, or NULL
 */
void env_free(struct env *e)
{
	if (!e)
		return;
	free(e->fx.slots);
	free(e->mem);
	free(e);
}

/**
 * env_clear() - forget queued frames and intents, as the host's drain does
 * @e:	environment
 */
void env_clear(struct env *e)
{
	e->fx.nframes = 0;
	e->fx.nintents = 0;
}

/**
 * env_assert_quiet() - end-of-test invariants: no flow, nothing left due
 * @e:	environment
 *
 * The flow gauge must agree with the table and be zero, a flush must emit
 * nothing (no ACK left owed by a freed flow) and no timer may be armed.
 */
void env_assert_quiet(struct env *e)
{
	uint32_t i, used = 0;

	for (i = 0; i < e->c.conf.max_flows; i++)
		used += e->c.flows[i].state != TCPS_FREE;
	assert_int_equal(e->ctr[CTR_TCP_FLOWS_ACTIVE], used);
	assert_int_equal(used, 0);
	env_clear(e);
	core_flush(&e->c, e->now, &e->fx);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_int_equal(e->c.nacks, 0);
	/* periodic router advertisements (IPv6 on) are no flow's leftover */
	e->c.ra_next_ns = UINT64_MAX;
	assert_true(core_timer(&e->c, UINT64_MAX - 1, &e->fx) == UINT64_MAX);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
}

/**
 * env_mark() - remember the counters, for env_delta()
 * @e:	environment
 */
void env_mark(struct env *e)
{
	memcpy(e->mark, e->ctr, sizeof(e->mark));
}

/**
 * env_delta() - change of a counter since env_mark()
 * @e:	environment
 * @id:	counter
 *
 * Return: difference (a gauge may go down)
 */
int64_t env_delta(const struct env *e, enum ctr_id id)
{
	return (int64_t)(e->ctr[id] - e->mark[id]);
}

/**
 * assert_ctr_deltas() - exactly these counters changed, by these amounts
 * @e:		environment
 * @...:	pairs of (int) counter id and (int) delta, ended by -1
 *
 * Every counter not listed must be unchanged since env_mark().
 */
void assert_ctr_deltas(const struct env *e, ...)
{
	static const char *const ctr_name[] = {
#define X(name, desc) #name,
		CTR_LIST(X)
#undef X
	};
	int64_t want[CTR_NUM] = { 0 };
	int id, i, bad = 0;
	va_list ap;

	va_start(ap, e);
	while ((id = va_arg(ap, int)) >= 0) {
		assert_true(id < CTR_NUM);
		want[id] = va_arg(ap, int);
	}
	va_end(ap);
	for (i = 0; i < CTR_NUM; i++) {
		if (env_delta(e, (enum ctr_id)i) != want[i])
			bad++;
	}
	if (!bad)
		return;
	for (i = 0; i < CTR_NUM; i++) {
		if (env_delta(e, (enum ctr_id)i) != want[i])
			print_error(
				"counter %s changed by %lld, expected %lld\n",
				ctr_name[i],
				(long long)env_delta(e, (enum ctr_id)i),
				(long long)want[i]);
	}
	fail();
}

/**
 * assert_dropped() - since env_mark(), one defect was dropped: no frame,
 * no intent, @ctr counted once and no other counter moved
 * @e:		environment
 * @kind:	the defect's number, named on failure
 * @ctr:	the counter it must count under
 */
void assert_dropped(const struct env *e, int kind, enum ctr_id ctr)
{
	if (e->fx.nframes || e->fx.nintents)
		fail_msg("defect %d: %u frames, %u intents", kind,
			 e->fx.nframes, e->fx.nintents);
	if (env_delta(e, ctr) != 1)
		fail_msg("defect %d: counter %d not counted", kind, ctr);
	assert_ctr_deltas(e, ctr, 1, -1);
}

/**
 * fx_count() - how many intents of a type are queued
 * @e:		environment
 * @type:	intent type
 *
 * Return: count
 */
unsigned fx_count(const struct env *e, enum fx_intent_type type)
{
	unsigned i, n = 0;

	for (i = 0; i < e->fx.nintents; i++)
		n += e->fx.intents[i].type == type;
	return n;
}

/**
 * fx_find() - the first queued intent of a type
 * @e:		environment
 * @type:	intent type
 *
 * Return: the intent; fails the test if there is none
 */
const struct fx_intent *fx_find(const struct env *e, enum fx_intent_type type)
{
	unsigned i;

	for (i = 0; i < e->fx.nintents; i++)
		if (e->fx.intents[i].type == type)
			return &e->fx.intents[i];
	fail_msg("no intent of type %d among %u", type, e->fx.nintents);
	return NULL;
}

/**
 * assert_intents() - the queued intents are exactly these, in order
 * @e:		environment
 * @...:	(int) enum fx_intent_type values, ended by -1
 */
void assert_intents(const struct env *e, ...)
{
	unsigned n = 0;
	va_list ap;
	int t;

	va_start(ap, e);
	while ((t = va_arg(ap, int)) >= 0) {
		if (n >= e->fx.nintents)
			fail_msg("intent %u: expected type %d, none queued", n,
				 t);
		if (e->fx.intents[n].type != t)
			fail_msg("intent %u: type %d, expected %d", n,
				 e->fx.intents[n].type, t);
		assert_true(e->fx.intents[n].flow < e->c.conf.max_flows);
		n++;
	}
	va_end(ap);
	if (n != e->fx.nintents)
		fail_msg("%u intents queued, expected %u (next type %d)",
			 e->fx.nintents, n, e->fx.intents[n].type);
}

/**
 * build_l2() - write a zero vnet header and an Ethernet header
 * @e:		environment (vnet header length)
 * @buf:	frame start
 * @dst:	destination MAC
 * @src:	source MAC
 * @ethertype:	host order
 *
 * Return: offset of the L3 header
 */
size_t build_l2(const struct env *e, uint8_t *buf, const uint8_t *dst,
		const uint8_t *src, uint16_t ethertype)
{
	size_t vl = e->c.conf.vnet_hdr_len;

	memset(buf, 0, vl);
	memcpy(buf + vl, dst, ETH_ALEN);
	memcpy(buf + vl + 6, src, ETH_ALEN);
	wr16(buf + vl + 12, ethertype);
	return vl + ETH_HLEN;
}

/**
 * build_ip4() - write a 20-byte IPv4 header with a valid checksum
 * @p:		where
 * @proto:	protocol
 * @saddr:	source, network order
 * @daddr:	destination, network order
 * @payload_len: bytes after the header
 *
 * Return: IP4_HLEN
 */
size_t build_ip4(uint8_t *p, uint8_t proto, uint32_t saddr, uint32_t daddr,
		 size_t payload_len)
{
	p[0] = 0x45;
	p[1] = 0;
	wr16(p + 2, (uint16_t)(IP4_HLEN + payload_len));
	wr16(p + 4, 0x1234);
	wr16(p + 6, 0x4000);
	p[8] = 64;
	p[9] = proto;
	wr16(p + 10, 0);
	memcpy(p + 12, &saddr, 4);
	memcpy(p + 16, &daddr, 4);
	wr16(p + 10, (uint16_t)~ref_sum16(p, IP4_HLEN, 0));
	return IP4_HLEN;
}

/**
 * build_ip6() - write a 40-byte IPv6 header from the guest: traffic class
 * and flow label 0, hop limit 64
 * @p:		where
 * @nh:		next header
 * @saddr:	source, 16 bytes
 * @daddr:	destination, 16 bytes
 * @payload_len: bytes after the header
 *
 * Return: IP6_HLEN
 */
size_t build_ip6(uint8_t *p, uint8_t nh, const uint8_t *saddr,
		 const uint8_t *daddr, size_t payload_len)
{
	p[0] = 0x60;
	p[1] = p[2] = p[3] = 0;
	wr16(p + 4, (uint16_t)payload_len);
	p[6] = nh;
	p[7] = 64;
	memcpy(p + 8, saddr, 16);
	memcpy(p + 24, daddr, 16);
	return IP6_HLEN;
}

/**
 * ip4_fix_csum() - recompute an IPv4 header's checksum after a test
 * changed a field (20-byte header)
 * @p:	IPv4 header
 */
void ip4_fix_csum(uint8_t *p)
{
	wr16(p + 10, 0);
	wr16(p + 10, (uint16_t)~ref_sum16(p, IP4_HLEN, 0));
}

/**
 * build_arp() - an Ethernet/IPv4 ARP packet from the guest's MAC
 * @e:		environment
 * @buf:	frame start
 * @op:		1 request, 2 reply
 * @sha:	sender hardware address (also the Ethernet source)
 * @spa:	sender protocol address
 * @tha:	target hardware address
 * @tpa:	target protocol address
 *
 * Broadcast for requests, to our MAC for replies.
 *
 * Return: frame length
 */
size_t build_arp(const struct env *e, uint8_t *buf, uint16_t op,
		 const uint8_t *sha, uint32_t spa, const uint8_t *tha,
		 uint32_t tpa)
{
	size_t off = build_l2(e, buf, op == 1 ? bcast_mac : our_mac, sha,
			      ETHERTYPE_ARP);
	uint8_t *a = buf + off;

	wr16(a, 1);
	wr16(a + 2, ETHERTYPE_IP4);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, &spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, &tpa, 4);
	return off + 28;
}

/**
 * build_icmp_echo() - an ICMP echo request from the guest
 * @e:		environment
 * @buf:	frame start
 * @saddr:	source
 * @daddr:	destination
 * @id:		identifier
 * @seqno:	sequence number
 * @data:	payload
 * @len:	payload length
 *
 * Return: frame length
 */
size_t build_icmp_echo(const struct env *e, uint8_t *buf, uint32_t saddr,
		       uint32_t daddr, uint16_t id, uint16_t seqno,
		       const void *data, size_t len)
{
	size_t off = build_l2(e, buf, our_mac, guest_mac, ETHERTYPE_IP4);
	uint8_t *m;

	off += build_ip4(buf + off, IPPROTO_ICMP_, saddr, daddr, 8 + len);
	m = buf + off;
	m[0] = 8;
	m[1] = 0;
	wr16(m + 2, 0);
	wr16(m + 4, id);
	wr16(m + 6, seqno);
	memcpy(m + 8, data, len);
	wr16(m + 2, (uint16_t)~ref_sum16(m, 8 + len, 0));
	return off + 8 + len;
}

/**
 * build_tcp() - a TCP segment from the guest over IPv4 or, with
 * @s->daddr6 set, IPv6, with valid checksums
 * @e:		environment
 * @buf:	frame start
 * @s:		segment
 *
 * Return: frame length
 */
size_t build_tcp(const struct env *e, uint8_t *buf, const struct seg *s)
{
	uint32_t saddr = s->saddr ? s->saddr : GUEST4;
	const uint8_t *saddr6 = s->saddr6 ? s->saddr6 : e->c.conf.guest6;
	size_t off = build_l2(e, buf, our_mac, guest_mac,
			      s->daddr6 ? ETHERTYPE_IP6 : ETHERTYPE_IP4);
	size_t optlen = s->opts ? s->optlen :
				  (s->mss ? 4U : 0U) + (s->ws_on ? 4U : 0U);
	size_t thlen;
	uint8_t *th, *o;
	uint32_t ps;

	thlen = TCP_HLEN + optlen;
	if (s->daddr6) {
		assert_true(thlen + s->len <= 65535);
		off += build_ip6(buf + off, IPPROTO_TCP_, saddr6, s->daddr6,
				 thlen + s->len);
		ps = ref_pseudo6(saddr6, s->daddr6, IPPROTO_TCP_,
				 (uint32_t)(thlen + s->len));
	} else {
		assert_true(thlen + s->len + IP4_HLEN <= 65535);
		off += build_ip4(buf + off, IPPROTO_TCP_, saddr, s->daddr,
				 thlen + s->len);
		ps = ref_pseudo4(saddr, s->daddr, IPPROTO_TCP_,
				 (uint16_t)(thlen + s->len));
	}
	th = buf + off;
	wr16(th, s->sport);
	wr16(th + 2, s->dport);
	wr32(th + 4, s->seq);
	wr32(th + 8, s->ack);
	th[12] = (uint8_t)((thlen / 4) << 4);
	th[13] = s->flags;
	wr16(th + 14, s->wnd);
	wr16(th + 16, 0);
	wr16(th + 18, 0);
	o = th + TCP_HLEN;
	assert_int_equal(optlen % 4, 0);
	if (s->opts) {
		memcpy(o, s->opts, s->optlen);
	} else if (s->mss) {
		o[0] = 2;
		o[1] = 4;
		wr16(o + 2, s->mss);
		o += 4;
	}
	if (!s->opts && s->ws_on) {
		o[0] = 1;
		o[1] = 3;
		o[2] = 3;
		o[3] = s->ws;
	}
	if (s->len)
		memcpy(th + thlen, s->data, s->len);
	wr16(th + 16, (uint16_t)~ref_sum16(th, thlen + s->len, ps));
	return off + thlen + s->len;
}

/**
 * seg_dst() - aim a segment at a flow address: IPv4 (v4-mapped) from
 * GUEST4, or IPv6 from the configured guest6
 * @s:		segment
 * @daddr:	destination (ADDR_LEN bytes; must outlive @s's use)
 */
void seg_dst(struct seg *s, const uint8_t *daddr)
{
	if (addr_is4(daddr)) {
		s->saddr = GUEST4;
		s->daddr = addr_to4(daddr);
		s->daddr6 = NULL;
	} else {
		s->saddr = 0;
		s->daddr = 0;
		s->daddr6 = daddr;
	}
}

/**
 * set_vnet() - write a virtio-net header at the start of a guest frame
 * @e:		environment (header length: 10 or 12 bytes)
 * @buf:	frame start
 * @h:		fields, written little-endian as on the wire
 */
void set_vnet(const struct env *e, uint8_t *buf, const struct vnet_hdr *h)
{
	size_t vl = e->c.conf.vnet_hdr_len;

	assert_true(vl >= 10);
	memset(buf, 0, vl);
	buf[0] = h->flags;
	buf[1] = h->gso_type;
	buf[2] = (uint8_t)h->hdr_len;
	buf[3] = (uint8_t)(h->hdr_len >> 8);
	buf[4] = (uint8_t)h->gso_size;
	buf[5] = (uint8_t)(h->gso_size >> 8);
	buf[6] = (uint8_t)h->csum_start;
	buf[7] = (uint8_t)(h->csum_start >> 8);
	buf[8] = (uint8_t)h->csum_offset;
	buf[9] = (uint8_t)(h->csum_offset >> 8);
}

/**
 * env_input() - hand one frame to core_input() at the test's time
 * @e:		environment
 * @frame:	frame (with vnet header)
 * @len:	length
 */
void env_input(struct env *e, const uint8_t *frame, size_t len)
{
	struct pkt_view v = { .p = frame, .len = len };

	core_input(&e->c, v, e->now, &e->fx);
}

/**
 * env_send() - build a guest TCP segment in @e->in and input it
 * @e:	environment
 * @s:	segment
 */
void env_send(struct env *e, const struct seg *s)
{
	env_input(e, e->in, build_tcp(e, e->in, s));
}

/**
 * frame_l3() - check a queued frame's Ethernet header, find its L3 header
 * @e:		environment
 * @i:		frame index
 * @ethertype:	expected ethertype
 * @dst:	expected destination MAC (NULL: the core's guest MAC)
 * @l3_len:	out: bytes from the L3 header to the end of the frame
 *
 * Return: L3 header
 */
const uint8_t *frame_l3(const struct env *e, unsigned i, uint16_t ethertype,
			const uint8_t *dst, size_t *l3_len)
{
	size_t vl = e->c.conf.vnet_hdr_len;
	const uint8_t *f, *eth;

	assert_true(i < e->fx.nframes);
	assert_true(e->fx.frame_len[i] <= e->fx.slot_size);
	assert_true(e->fx.frame_len[i] >= vl + ETH_HLEN);
	f = e->fx.slots + (size_t)i * e->fx.slot_size;
	eth = f + vl;
	assert_memory_equal(eth, dst ? dst : e->c.conf.guest_mac, ETH_ALEN);
	assert_memory_equal(eth + 6, our_mac, ETH_ALEN);
	assert_int_equal(rd16(eth + 12), ethertype);
	*l3_len = e->fx.frame_len[i] - vl - ETH_HLEN;
	return eth + ETH_HLEN;
}

/**
 * parse_ip4() - check a queued IPv4 frame's header
 * @e:		environment
 * @i:		frame index
 * @proto:	expected protocol
 * @l4_len:	out: transport length
 *
 * Checks version, header length, total length against the frame, DF, TTL,
 * protocol and the header checksum. For protocols other than TCP, the vnet
 * header must be all zero (no offload asked).
 *
 * Return: transport header
 */
const uint8_t *parse_ip4(const struct env *e, unsigned i, uint8_t proto,
			 size_t *l4_len)
{
	const uint8_t *ip, *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	size_t len, k;

	ip = frame_l3(e, i, ETHERTYPE_IP4, NULL, &len);
	assert_true(len >= IP4_HLEN);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(rd16(ip + 2), len);
	assert_int_equal(rd16(ip + 6), 0x4000);
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], proto);
	assert_int_equal(ref_sum16(ip, IP4_HLEN, 0), 0xffff);
	if (proto != IPPROTO_TCP_)
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
	*l4_len = len - IP4_HLEN;
	return ip + IP4_HLEN;
}

/**
 * parse_ip6_frame() - check a queued IPv6 frame's header
 * @e:		environment
 * @i:		frame index
 * @nh:		expected next header
 * @l4_len:	out: upper-layer length
 *
 * Checks version, traffic class and flow label (zero), payload length
 * against the frame, next header and hop limit 64. For next headers other
 * than TCP, the vnet header must be all zero (no offload asked).
 *
 * Return: the upper-layer header
 */
const uint8_t *parse_ip6_frame(const struct env *e, unsigned i, uint8_t nh,
			       size_t *l4_len)
{
	const uint8_t *ip, *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	size_t len, k;

	ip = frame_l3(e, i, ETHERTYPE_IP6, NULL, &len);
	assert_true(len >= IP6_HLEN);
	assert_int_equal(ip[0], 0x60);
	assert_int_equal(ip[1] | ip[2] | ip[3], 0);
	assert_int_equal(rd16(ip + 4), len - IP6_HLEN);
	assert_int_equal(ip[6], nh);
	assert_int_equal(ip[7], 64);
	if (nh != IPPROTO_TCP_)
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
	*l4_len = len - IP6_HLEN;
	return ip + IP6_HLEN;
}

/**
 * l4_csum_ok_any() - does a transport checksum verify, either family?
 * @saddr:	source (ADDR_LEN bytes, v4-mapped for IPv4)
 * @daddr:	destination, of the same family
 * @proto:	protocol
 * @l4:		transport header and payload
 * @len:	length
 *
 * Return: the folded sum over pseudo-header and segment (0xffff if valid)
 */
uint32_t l4_csum_ok_any(const uint8_t *saddr, const uint8_t *daddr,
			uint8_t proto, const uint8_t *l4, size_t len)
{
	if (addr_is4(saddr))
		return l4_csum_ok(addr_to4(saddr), addr_to4(daddr), proto, l4,
				  len);
	return ref_sum16(l4, len,
			 ref_pseudo6(saddr, daddr, proto, (uint32_t)len));
}

/**
 * l4_csum_ok() - does a transport checksum verify?
 * @saddr:	source
 * @daddr:	destination
 * @proto:	protocol
 * @l4:		transport header and payload
 * @len:	length
 *
 * Return: the folded sum over pseudo-header and segment (0xffff if valid)
 */
uint32_t l4_csum_ok(uint32_t saddr, uint32_t daddr, uint8_t proto,
		    const uint8_t *l4, size_t len)
{
	return ref_sum16(l4, len,
			 ref_pseudo4(saddr, daddr, proto, (uint16_t)len));
}

/**
 * tcp_decode() - check a TCP header the core sent and decode it
 * @th:		TCP header
 * @len:	bytes of segment
 * @o:		out: ports, numbers, flags, window, options and payload (the
 *		addresses and IP identification zero)
 *
 * The data offset must fit, the reserved bits and urgent pointer be zero,
 * the acknowledgement number zero without ACK, and the options well
 * formed.
 *
 * Return: the data offset
 */
size_t tcp_decode(const uint8_t *th, size_t len, struct otcp *o)
{
	size_t doff, k;

	memset(o, 0, sizeof(*o));
	assert_true(len >= TCP_HLEN);
	doff = (size_t)(th[12] >> 4) * 4;
	assert_true(doff >= TCP_HLEN && doff <= len);
	assert_int_equal(th[12] & 0xf, 0);
	assert_int_equal(rd16(th + 18), 0); /* urgent pointer */
	o->sport = rd16(th);
	o->dport = rd16(th + 2);
	o->seq = rd32(th + 4);
	o->ack = rd32(th + 8);
	o->flags = th[13];
	o->wnd = rd16(th + 14);
	o->ws = -1;
	o->optlen = doff - TCP_HLEN;
	o->data = th + doff;
	o->len = len - doff;
	if (!(o->flags & T_ACK))
		assert_int_equal(o->ack, 0);
	for (k = TCP_HLEN; k < doff;) {
		if (th[k] == 0)
			break;
		if (th[k] == 1) {
			k++;
			continue;
		}
		assert_true(k + 1 < doff && th[k + 1] >= 2 &&
			    k + th[k + 1] <= doff);
		if (th[k] == 2) {
			assert_int_equal(th[k + 1], 4);
			o->mss = rd16(th + k + 2);
		} else if (th[k] == 3) {
			assert_int_equal(th[k + 1], 3);
			o->ws = th[k + 2];
		}
		k += th[k + 1];
	}
	return doff;
}

/**
 * parse_tcp() - check a queued TCP frame completely and decode it
 * @e:	environment (@e->fam: the family the frame must be of)
 * @i:	frame index
 * @o:	decoded segment
 *
 * With checksum offload, the vnet header must say NEEDS_CSUM from the TCP
 * header (byte 34 after Ethernet + IPv4, 54 after IPv6) with the field at
 * offset 16, and the field must hold the folded pseudo-header sum; a GSO
 * super-frame must name the family's GSO type. Without offload, the full
 * checksum must verify and the vnet header (if any) be zero. Options must
 * be well formed.
 */
void parse_tcp(const struct env *e, unsigned i, struct otcp *o)
{
	const uint8_t *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	const struct fam *fam = e->fam;
	const uint8_t *ip, *th;
	size_t len, k;
	uint16_t ps;

	if (fam->v6) {
		th = parse_ip6_frame(e, i, IPPROTO_TCP_, &len);
		ip = th - IP6_HLEN;
		tcp_decode(th, len, o);
		memcpy(o->src, ip + 8, 16);
		memcpy(o->dst, ip + 24, 16);
		assert_false(addr_is4(o->src) || addr_is4(o->dst));
		ps = ref_pseudo6(o->src, o->dst, IPPROTO_TCP_, (uint32_t)len);
	} else {
		th = parse_ip4(e, i, IPPROTO_TCP_, &len);
		ip = th - IP4_HLEN;
		tcp_decode(th, len, o);
		memcpy(&o->saddr, ip + 12, 4);
		memcpy(&o->daddr, ip + 16, 4);
		o->ip_id = rd16(ip + 4);
		addr_from4(o->src, o->saddr);
		addr_from4(o->dst, o->daddr);
		ps = ref_pseudo4(o->saddr, o->daddr, IPPROTO_TCP_,
				 (uint16_t)len);
	}

	if (e->c.conf.csum_offload) {
		assert_int_equal(e->c.conf.vnet_hdr_len, 12);
		assert_int_equal(f[0], VNET_HDR_F_NEEDS_CSUM);
		if (f[1] != VNET_HDR_GSO_NONE) {
			/* a GSO super-frame: headers and a segment size */
			assert_int_equal(f[1], fam->gso_type);
			assert_int_equal(f[2] | f[3] << 8,
					 ETH_HLEN + fam->iphlen +
						 (th[12] >> 4) * 4);
			assert_true((f[4] | f[5] << 8) > 0);
		}
		assert_int_equal(f[6] | f[7] << 8, ETH_HLEN + fam->iphlen);
		assert_int_equal(f[8] | f[9] << 8, 16);
		assert_int_equal(rd16(th + 16), ps);
	} else {
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
		assert_int_equal(l4_csum_ok_any(o->src, o->dst, IPPROTO_TCP_,
						th, len),
				 0xffff);
	}
}

/**
 * env_setup() - cmocka set-up: a fresh environment on @cc, counters marked
 * @state:	out: the environment
 * @cc:		configuration
 *
 * Return: 0
 */
int env_setup(void **state, const struct core_conf *cc)
{
	*state = env_new(cc);
	env_mark(*state);
	return 0;
}

/**
 * env_setup_offload() - cmocka set-up: the default core as on tap, with a
 * 12-byte vnet header and checksum offload
 * @state:	out: the environment
 *
 * Return: 0
 */
int env_setup_offload(void **state)
{
	*state = env_new_default(true);
	env_mark(*state);
	return 0;
}

/**
 * env_setup_plain() - cmocka set-up: the default core without vnet header,
 * full checksums
 * @state:	out: the environment
 *
 * Return: 0
 */
int env_setup_plain(void **state)
{
	*state = env_new_default(false);
	env_mark(*state);
	return 0;
}

/**
 * fam_setup() - cmocka set-up of a FAM_TEST(): a fresh environment on the
 * family in *@state, counters marked
 * @state:	in: the family (cmocka's initial state); out: the environment
 * @offload:	vnet header and checksum offload, as on tap
 *
 * Return: 0
 */
static int fam_setup(void **state, bool offload)
{
	const struct fam *f = *state;
	struct core_conf cc;

	assert_non_null(f);
	fam_conf(&cc, offload, f);
	*state = fam_env_new(&cc, f);
	env_mark(*state);
	return 0;
}

/**
 * fam_setup_offload() - cmocka set-up: the family's core as on tap, with a
 * 12-byte vnet header and checksum offload
 * @state:	in: the family; out: the environment
 *
 * Return: 0
 */
int fam_setup_offload(void **state)
{
	return fam_setup(state, true);
}

/**
 * fam_setup_plain() - cmocka set-up: the family's core without vnet
 * header, full checksums
 * @state:	in: the family; out: the environment
 *
 * Return: 0
 */
int fam_setup_plain(void **state)
{
	return fam_setup(state, false);
}

/**
 * env_teardown() - cmocka tear-down: the test ended quiet (no flow,
 * nothing due, no timer); free the environment
 * @state:	the environment
 *
 * Return: 0
 */
int env_teardown(void **state)
{
	env_assert_quiet(*state);
	env_free(*state);
	return 0;
}
