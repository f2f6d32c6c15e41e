/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_ndp.c - one IPv6 frame from the guest into a fresh core, IPv6 on
 *
 * Input: a whole frame as the tap edge hands it over, starting with a
 * 12-byte virtio-net header; the ethertype is forced to IPv6 (the other
 * ethertypes are fuzz_frame's) so every input reaches ip6_input(): header
 * validation, the extension header walk, ICMPv6 echo and NDP. The core is
 * set up again for every input with conf.ipv6 on and an MTU of 1500, so
 * slots are too small for the largest echo requests.
 *
 * Checked: at most one frame is queued, it fits its slot and leaves the
 * rest of the slot alone, it is an echo reply, a router advertisement or a
 * neighbour advertisement from one of our addresses with the right hop
 * limit, destination MAC and a correct ICMPv6 checksum, and the vnet header
 * asks for nothing. TCP and UDP reach tcp.c and udp.c too: what they send
 * (an RST, an ICMPv6 unreachable) passes fz_check_frames(), and their
 * intents are only a connect or a DNS query (the datagram table has no
 * room: echo to other hosts and UDP flows are dropped).
 */

#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"

#include "fuzz_common.h"

#define VNET_LEN FZ_VNET_LEN
#define MTU 1500
#define NSLOTS 2
#define SLOT_SIZE (VNET_LEN + ETH_HLEN + MTU)
#define MAX_FLOWS 16

FZ_CORE_STATE(16384, NSLOTS);

static struct core_conf conf;

/**
 * conf_init() - the configuration: core_conf_default() (10.0.2.15/24 via
 * .2, gateway fe80::1) with IPv6 in fd00:5170:7761:7901::/64
 */
static void conf_init(void)
{
	static const uint8_t pfx[8] = { 0xfd, 0x00, 0x51, 0x70,
					0x77, 0x61, 0x79, 0x01 };

	fz_conf_tap(&conf, MTU, MAX_FLOWS);
	fz_conf_ipv6(&conf, pfx, false);
}

static const uint8_t key[16] = "slipway-fuzz-key";
static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

/**
 * is_ours() - is @a one of the addresses the core answers for?
 * @a:	address, 16 bytes
 *
 * Return: true for the gateway link-local, gateway and DNS addresses
 */
static bool is_ours(const uint8_t *a)
{
	return !memcmp(a, conf.gw6_ll, 16) || !memcmp(a, conf.gw6, 16) ||
	       !memcmp(a, conf.dns6, 16);
}

/**
 * check_frame6() - one queued frame is a well-formed ICMPv6 answer
 * @i:	frame index
 */
static void check_frame6(unsigned i)
{
	const uint8_t *s = slots + (size_t)i * SLOT_SIZE, *eth, *ip, *m;
	size_t len = frame_len[i], mlen, k;
	uint32_t sum;

	FZ_CHECK(len <= SLOT_SIZE);
	FZ_CHECK(len >= VNET_LEN + ETH_HLEN + IP6_HLEN + 8);
	for (k = 0; k < VNET_LEN; k++)
		FZ_CHECK(s[k] == 0);
	eth = s + VNET_LEN;
	ip = eth + ETH_HLEN;
	m = ip + IP6_HLEN;
	mlen = len - VNET_LEN - ETH_HLEN - IP6_HLEN;
	FZ_CHECK(!memcmp(eth + 6, conf.our_mac, ETH_ALEN));
	FZ_CHECK(rd16(eth + 12) == ETHERTYPE_IP6);
	FZ_CHECK(ip[0] == 0x60 && ip[1] == 0 && ip[2] == 0 && ip[3] == 0);
	FZ_CHECK(rd16(ip + 4) == mlen);
	FZ_CHECK(ip[6] == IPPROTO_ICMPV6_);
	FZ_CHECK(is_ours(ip + 8));
	if (ip[24] == 0xff) {
		FZ_CHECK(!memcmp(ip + 24, all_nodes, 16));
		FZ_CHECK(eth[0] == 0x33 && eth[1] == 0x33 &&
			 !memcmp(eth + 2, ip + 36, 4));
	} else {
		FZ_CHECK(!memcmp(eth, core.conf.guest_mac, ETH_ALEN));
	}
	sum = csum_pseudo6(ip + 8, ip + 24, IPPROTO_ICMPV6_, (uint32_t)mlen);
	FZ_CHECK(csum_fold(csum_partial(m, mlen, sum)) == 0xffff);
	FZ_CHECK(m[1] == 0);
	switch (m[0]) {
	case 129: /* echo reply: unicast, to a source that was not :: */
		FZ_CHECK(ip[7] == 64);
		FZ_CHECK(ip[24] != 0xff);
		break;
	case 134: /* router advertisement from the link-local address */
		FZ_CHECK(ip[7] == 255);
		FZ_CHECK(!memcmp(ip + 8, conf.gw6_ll, 16));
		FZ_CHECK(mlen == 88);
		FZ_CHECK(m[4] == 64 && m[5] == 0 && rd16(m + 6) == 0);
		break;
	case 136: /* neighbour advertisement for the source address */
		FZ_CHECK(ip[7] == 255);
		FZ_CHECK(mlen == 32);
		FZ_CHECK(!memcmp(m + 8, ip + 8, 16));
		FZ_CHECK(m[24] == 2 && m[25] == 1);
		FZ_CHECK(!memcmp(m + 26, conf.our_mac, ETH_ALEN));
		/* solicited exactly when unicast */
		FZ_CHECK(!!(m[4] & 0x40) == (ip[24] != 0xff));
		break;
	default:
		FZ_CHECK(0);
	}
	for (k = len; k < SLOT_SIZE; k++)
		FZ_CHECK(s[k] == FZ_CANARY);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkt_view v = { 0 };
	unsigned i;
	uint8_t *in;

	if (!slots) {
		slots = fz_alloc((size_t)NSLOTS * SLOT_SIZE);
		conf_init();
	}
	/* an exactly sized copy: ASan sees any read past the frame */
	in = fz_dup(data, size);
	v.p = in;
	v.len = size;
	if (size >= VNET_LEN + ETH_HLEN)
		wr16(in + VNET_LEN + 12, ETHERTYPE_IP6);

	fz_core_init(&core, &conf, core_mem, sizeof(core_mem), ctr, key);
	fz_fx_init(&fx, slots, SLOT_SIZE, NSLOTS, frame_len);

	core_input(&core, v, 1000000000ULL, &fx);
	core_flush(&core, 1000000000ULL, &fx);
	FZ_CHECK(fx.nintents <= 1);
	for (i = 0; i < fx.nintents; i++)
		FZ_CHECK(fx.intents[i].type == FX_SOCK_CONNECT ||
			 fx.intents[i].type == FX_DNS_QUERY);
	FZ_CHECK(fx.nframes <= 1);
	fz_check_frames(&core, &fx, 0);
	for (i = 0; i < fx.nframes; i++) {
		const uint8_t *ip = slots + (size_t)i * SLOT_SIZE + VNET_LEN +
				    ETH_HLEN;

		/* answers of ndp.c; TCP RSTs and ICMPv6 errors are checked
		 * by fz_check_frames() alone */
		if (ip[6] == IPPROTO_ICMPV6_ && ip[IP6_HLEN] != 1)
			check_frame6(i);
	}
	FZ_CHECK(ctr[CTR_ETH_DROP_ETHERTYPE] == 0);
	FZ_CHECK(ctr[CTR_NDP_RA_SENT] + ctr[CTR_NDP_NA_SENT] +
			 ctr[CTR_ICMP6_ECHO_REPLIES] +
			 ctr[CTR_TCP_RST_UNKNOWN_FLOW] +
			 ctr[CTR_ICMP6_UNREACH_SENT] ==
		 fx.nframes);
	free(in);
	return 0;
}
