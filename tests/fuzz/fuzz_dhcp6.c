/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_dhcp6.c - one DHCPv6 client message into a fresh core's server
 *
 * Input: one addressing byte, then the UDP payload of a datagram from the
 * guest to port 547 (a DHCPv6 message, or anything). The addressing byte
 * picks the destination (bits 0-1: ff02::1:2, the gateway's link-local
 * address, its address in the prefix, ff02::1:2 again) and the source (bit
 * 2: the guest's address in the prefix instead of its link-local one; bit
 * 3: ::). The harness wraps the payload in a valid virtio-net/Ethernet/
 * IPv6/UDP frame from port 546 and gives it to core_input(), which reaches
 * dhcp6_input() through ip6_input(). Each input runs on two
 * configurations: a tap-like one (12-byte vnet header, checksum offload,
 * DNS address, search list "example.test", FQDN "vm1.example.test") and
 * a plain one (no vnet header, full checksums, no DNS address, a 256-byte
 * search list, the longest FQDN).
 *
 * Checks: the message moved exactly one of the DHCPv6 receipt or drop
 * counters; at most one frame is queued, it fits its slot and leaves the
 * rest of it alone, and it is a well-formed answer: Ethernet to the
 * guest's MAC; IPv6 from the gateway address the request went to (the
 * link-local one for multicast) to the request's source, hop limit 64; UDP
 * 547 -> 546 with a right checksum or the NEEDS_CSUM contract; ADVERTISE
 * (to a SOLICIT only) or REPLY (REPLY to a SOLICIT only with Rapid Commit
 * in it) with the request's transaction ID; options and options nested in
 * IAs within their containers; our Server Identifier exactly once; the
 * client's identifier echoed exactly when it sent one; the guest's
 * address, when given, only with our lifetimes; a Client FQDN only with
 * our name and no flag but O; no more than 1232 bytes.
 * The reply counters agree with the frame, and no intent is queued.
 */

#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"
#include "core/dhcp6.h"
#include "core/udp.h"

#include "fuzz_common.h"

#define VNET_LEN FZ_VNET_LEN
#define MTU 1500
#define NSLOTS 2
#define SLOT_SIZE (VNET_LEN + ETH_HLEN + MTU)
#define MAX_FLOWS 4
#define HDRS (VNET_LEN + ETH_HLEN + IP6_HLEN + UDP_HLEN)
#define MAX_PAYLOAD (MTU - IP6_HLEN - UDP_HLEN)
#define REPLY_MAX 1232

FZ_CORE_STATE(16384, NSLOTS);
static uint8_t *frame;

#define PFX 0xfd, 0x00, 0x51, 0x70, 0x77, 0x61, 0x79, 0x01

static const uint8_t all_servers[16] = { 0xff, 0x02, [13] = 1, [15] = 2 };
static const uint8_t guest6_ll[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00,
				       0xff, 0xfe, 0x12,       0x34, 0x56 };
static const uint8_t guest6_ula[16] = { PFX,  0x50, 0x54, 0x00, 0xff,
					0xfe, 0x12, 0x34, 0x56 };
static const uint8_t unspec6[16];
static const uint8_t server_duid[10] = { 0,    3,    0,	   1,	 0x52,
					 0x56, 0x00, 0x00, 0x00, 0x02 };

static struct core_conf conf_tap;

/**
 * conf_tap_init() - the first configuration: core_conf_default() (gateway
 * fe80::1) with IPv6 in PFX serving DHCPv6, with a vnet header
 */
static void conf_tap_init(void)
{
	static const uint8_t pfx[8] = { PFX };
	struct dhcp4_conf *d = &conf_tap.dhcp4;

	fz_conf_tap(&conf_tap, MTU, MAX_FLOWS);
	fz_conf_ipv6(&conf_tap, pfx, true);
	conf_tap.dhcp6 = true;
	fz_conf_names(d);
}

static struct core_conf conf_plain;

static const uint8_t key[16] = "slipway-fuzz-key";

/**
 * conf_plain_init() - both configurations: conf_tap_init(), then the
 * second one derived from the first
 */
static void conf_plain_init(void)
{
	conf_tap_init();
	/* labels of 63, 63, 63 and 61 bytes: 255 with the root */
	fz_conf_plain(&conf_plain, &conf_tap, 61,
		      sizeof(conf_plain.dhcp4.fqdn));
	memset(conf_plain.dns6, 0, 16);
}

/**
 * build_frame() - wrap the payload in vnet/Ethernet/IPv6/UDP headers
 * @c:		core (vnet header length, addresses)
 * @sel:	the addressing byte
 * @data:	payload
 * @len:	payload length (at most MAX_PAYLOAD)
 * @src:	out: the IPv6 source used
 * @dst:	out: the IPv6 destination used
 *
 * Return: frame length
 */
static size_t build_frame(const struct core *c, uint8_t sel,
			  const uint8_t *data, size_t len, const uint8_t **src,
			  const uint8_t **dst)
{
	size_t vl = c->conf.vnet_hdr_len, l4 = UDP_HLEN + len;
	uint8_t *eth = frame + vl, *ip = eth + ETH_HLEN, *uh = ip + IP6_HLEN;
	uint32_t sum;

	switch (sel & 3) {
	case 1:
		*dst = c->conf.gw6_ll;
		break;
	case 2:
		*dst = c->conf.gw6;
		break;
	default:
		*dst = all_servers;
		break;
	}
	*src = (sel & 8) ? unspec6 : (sel & 4) ? guest6_ula : guest6_ll;

	memset(frame, 0, vl);
	if ((*dst)[0] == 0xff) {
		eth[0] = eth[1] = 0x33;
		memcpy(eth + 2, *dst + 12, 4);
	} else {
		memcpy(eth, c->conf.our_mac, ETH_ALEN);
	}
	memcpy(eth + 6, c->conf.guest_mac, ETH_ALEN);
	wr16(eth + 12, ETHERTYPE_IP6);
	ip[0] = 0x60;
	ip[1] = ip[2] = ip[3] = 0;
	wr16(ip + 4, (uint16_t)l4);
	ip[6] = IPPROTO_UDP_;
	ip[7] = 1;
	memcpy(ip + 8, *src, 16);
	memcpy(ip + 24, *dst, 16);
	wr16(uh, DHCP6_CLIENT_PORT);
	wr16(uh + 2, DHCP6_SERVER_PORT);
	wr16(uh + 4, (uint16_t)l4);
	wr16(uh + 6, 0);
	memcpy(uh + UDP_HLEN, data, len);
	sum = csum_pseudo6(*src, *dst, IPPROTO_UDP_, (uint32_t)l4);
	wr16(uh + 6, (uint16_t)~csum_fold(csum_partial(uh, l4, sum)));
	return vl + ETH_HLEN + IP6_HLEN + l4;
}

/**
 * find_opt() - the first top-level option of a code in a message
 * @m:		message (after its 4-byte header)
 * @len:	bytes of options
 * @code:	option code
 * @olen:	out: its length
 *
 * The options must already be known to fit (check_opts()), or be the
 * request's: this walk stops at the first option that does not fit.
 *
 * Return: the value, or NULL if absent
 */
static const uint8_t *find_opt(const uint8_t *m, size_t len, uint16_t code,
			       size_t *olen)
{
	size_t k = 0;

	while (k + 4 <= len && k + 4 + rd16(m + k + 2) <= len) {
		if (rd16(m + k) == code) {
			*olen = rd16(m + k + 2);
			return m + k + 4;
		}
		k += 4 + (size_t)rd16(m + k + 2);
	}
	return NULL;
}

/**
 * check_opts() - options (and options nested in IAs) fit their container
 * @p:		options
 * @len:	their length
 * @depth:	0 at the top level, 1 in an IA, 2 in an IA address
 * @nserver:	in/out: Server Identifier options seen (top level)
 */
static void check_opts(const uint8_t *p, size_t len, int depth,
		       unsigned *nserver)
{
	size_t k = 0;

	while (k < len) {
		uint16_t code, olen;
		const uint8_t *v;

		FZ_CHECK(k + 4 <= len);
		code = rd16(p + k);
		olen = rd16(p + k + 2);
		v = p + k + 4;
		FZ_CHECK(k + 4 + olen <= len);
		switch (code) {
		case 2: /* Server Identifier: ours */
			FZ_CHECK(depth == 0);
			FZ_CHECK(olen == sizeof(server_duid) &&
				 !memcmp(v, server_duid, olen));
			(*nserver)++;
			break;
		case 3:	 /* IA_NA */
		case 25: /* IA_PD */
			FZ_CHECK(depth == 0 && olen >= 12);
			check_opts(v + 12, olen - 12, 1, nserver);
			break;
		case 4: /* IA_TA */
			FZ_CHECK(depth == 0 && olen >= 4);
			check_opts(v + 4, olen - 4, 1, nserver);
			break;
		case 5: /* IA Address: the guest's with our lifetimes, or
			 * another at lifetime 0 */
			FZ_CHECK(depth == 1 && olen == 24);
			if (!memcmp(v, core.conf.guest6, 16))
				FZ_CHECK(rd32(v + 16) == 3600 &&
					 rd32(v + 20) == 7200);
			else
				FZ_CHECK(rd32(v + 16) == 0 &&
					 rd32(v + 20) == 0);
			break;
		case 13: /* Status Code */
			FZ_CHECK(depth < 2 && olen >= 2);
			break;
		case 1:	 /* Client Identifier */
		case 7:	 /* Preference */
		case 14: /* Rapid Commit */
		case 23: /* DNS servers */
		case 24: /* domain list */
			FZ_CHECK(depth == 0);
			break;
		case 39: /* Client FQDN: flags, then our name */
			FZ_CHECK(depth == 0 &&
				 olen == 1 + core.conf.dhcp4.fqdn_len);
			FZ_CHECK(!(v[0] & ~2) &&
				 !memcmp(v + 1, core.conf.dhcp4.fqdn,
					 core.conf.dhcp4.fqdn_len));
			break;
		default:
			FZ_CHECK(0);
		}
		k += 4 + (size_t)olen;
	}
}

/**
 * check_reply() - the queued frame is a well-formed answer to @req
 * @req:	the client's message
 * @req_len:	its length
 * @src:	the request's IPv6 source
 * @dst:	the request's IPv6 destination
 *
 * Return: the reply's message type
 */
static uint8_t check_reply(const uint8_t *req, size_t req_len,
			   const uint8_t *src, const uint8_t *dst)
{
	size_t vl = core.conf.vnet_hdr_len, len = frame_len[0], l4, mlen;
	const uint8_t *s = slots, *eth = s + vl, *ip, *uh, *m, *cid, *rcid;
	size_t cid_len = 0, rcid_len = 0;
	unsigned nserver = 0;
	uint8_t l4c[REPLY_MAX + UDP_HLEN];
	uint32_t sum;

	FZ_CHECK(req_len >= 4);
	FZ_CHECK(len <= SLOT_SIZE && len >= vl + ETH_HLEN + IP6_HLEN + 12);
	FZ_CHECK(!memcmp(eth, core.conf.guest_mac, ETH_ALEN));
	FZ_CHECK(!memcmp(eth + 6, core.conf.our_mac, ETH_ALEN));
	FZ_CHECK(rd16(eth + 12) == ETHERTYPE_IP6);
	ip = eth + ETH_HLEN;
	l4 = len - vl - ETH_HLEN - IP6_HLEN;
	FZ_CHECK(ip[0] == 0x60 && ip[1] == 0 && ip[2] == 0 && ip[3] == 0);
	FZ_CHECK(rd16(ip + 4) == l4);
	FZ_CHECK(ip[6] == IPPROTO_UDP_ && ip[7] == 64);
	if (!memcmp(dst, core.conf.gw6, 16))
		FZ_CHECK(!memcmp(ip + 8, core.conf.gw6, 16));
	else
		FZ_CHECK(!memcmp(ip + 8, core.conf.gw6_ll, 16));
	FZ_CHECK(!memcmp(ip + 24, src, 16));

	uh = ip + IP6_HLEN;
	FZ_CHECK(l4 <= sizeof(l4c));
	FZ_CHECK(rd16(uh) == DHCP6_SERVER_PORT);
	FZ_CHECK(rd16(uh + 2) == DHCP6_CLIENT_PORT);
	FZ_CHECK(rd16(uh + 4) == l4);
	memcpy(l4c, uh, l4);
	sum = csum_pseudo6(ip + 8, ip + 24, IPPROTO_UDP_, (uint32_t)l4);
	if (vl && s[0] == VNET_HDR_F_NEEDS_CSUM) {
		FZ_CHECK(core.conf.csum_offload);
		FZ_CHECK((s[6] | s[7] << 8) == ETH_HLEN + IP6_HLEN);
		FZ_CHECK((s[8] | s[9] << 8) == 6);
		FZ_CHECK(rd16(l4c + 6) == csum_fold(sum));
		/* finish it the way the device would */
		wr16(l4c + 6, 0);
		wr16(l4c + 6, (uint16_t)~csum_fold(csum_partial(l4c, l4, sum)));
	} else {
		FZ_CHECK(!core.conf.csum_offload);
		FZ_CHECK(!vl || s[0] == 0);
		FZ_CHECK(rd16(l4c + 6) != 0);
	}
	if (vl)
		FZ_CHECK(s[1] == VNET_HDR_GSO_NONE && s[10] == 0 && s[11] == 0);
	FZ_CHECK(csum_fold(csum_partial(l4c, l4, sum)) == 0xffff);

	m = uh + UDP_HLEN;
	mlen = l4 - UDP_HLEN;
	FZ_CHECK(mlen >= 4 && mlen <= REPLY_MAX);
	FZ_CHECK(!memcmp(m + 1, req + 1, 3)); /* transaction ID */
	check_opts(m + 4, mlen - 4, 0, &nserver);
	FZ_CHECK(nserver == 1);
	cid = find_opt(req + 4, req_len - 4, 1, &cid_len);
	rcid = find_opt(m + 4, mlen - 4, 1, &rcid_len);
	FZ_CHECK(!cid == !rcid);
	if (cid)
		FZ_CHECK(cid_len == rcid_len && !memcmp(cid, rcid, cid_len));
	if (m[0] == 2) {
		FZ_CHECK(req[0] == 1);
	} else {
		FZ_CHECK(m[0] == 7);
		if (req[0] == 1)
			FZ_CHECK(find_opt(req + 4, req_len - 4, 14, &cid_len) &&
				 find_opt(m + 4, mlen - 4, 14, &rcid_len));
	}
	return m[0];
}

/**
 * run() - one input on one configuration
 * @conf:	configuration
 * @sel:	the addressing byte
 * @data:	UDP payload
 * @size:	its length
 */
static void run(const struct core_conf *conf, uint8_t sel, const uint8_t *data,
		size_t size)
{
	const uint8_t *src, *dst;
	struct pkt_view v = { 0 };
	uint64_t in;

	fz_core_init(&core, conf, core_mem, sizeof(core_mem), ctr, key);
	fz_fx_init(&fx, slots, SLOT_SIZE, NSLOTS, frame_len);

	v.p = frame;
	v.len = build_frame(&core, sel, data, size, &src, &dst);
	core_input(&core, v, 1000000000ULL, &fx);

	in = ctr[CTR_DHCP6_SOLICIT] + ctr[CTR_DHCP6_REQUEST] +
	     ctr[CTR_DHCP6_CONFIRM] + ctr[CTR_DHCP6_RENEW] +
	     ctr[CTR_DHCP6_REBIND] + ctr[CTR_DHCP6_RELEASE] +
	     ctr[CTR_DHCP6_DECLINE] + ctr[CTR_DHCP6_INFO_REQUEST] +
	     ctr[CTR_DHCP6_DROP_BAD] + ctr[CTR_DHCP6_DROP_IGNORED];
	FZ_CHECK(in == 1);
	FZ_CHECK(!ctr[CTR_IP6_DROP_PROTO] && !ctr[CTR_UDP_DROP_BAD_HDR]);
	FZ_CHECK(fx.nintents == 0);
	FZ_CHECK(fx.nframes <= 1);
	FZ_CHECK(ctr[CTR_DHCP6_ADVERTISE] + ctr[CTR_DHCP6_REPLIES] ==
		 fx.nframes);
	if (fx.nframes) {
		uint8_t type = check_reply(data, size, src, dst);

		FZ_CHECK(ctr[type == 2 ? CTR_DHCP6_ADVERTISE :
					 CTR_DHCP6_REPLIES] == 1);
	}
	fz_check_slot_tails(&fx);
}

/**
 * LLVMFuzzerTestOneInput() - run one input on both configurations
 * @data:	the addressing byte, then the UDP payload
 * @size:	its length (the payload cut to what fits the MTU)
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *payload;
	uint8_t sel;

	if (!slots) {
		slots = fz_alloc((size_t)NSLOTS * SLOT_SIZE);
		frame = fz_alloc(HDRS + MAX_PAYLOAD);
		conf_plain_init();
	}
	if (!size)
		return 0;
	sel = data[0];
	data++;
	size--;
	if (size > MAX_PAYLOAD)
		size = MAX_PAYLOAD;
	/* an exactly sized copy of the payload: the checks read the request
	 * from it, and ASan sees any read past its end */
	payload = fz_dup(data, size);
	run(&conf_tap, sel, payload, size);
	run(&conf_plain, sel, payload, size);
	free(payload);
	return 0;
}
