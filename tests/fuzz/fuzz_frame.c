/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_frame.c - one frame from the guest into a fresh core
 *
 * Input: a whole frame as the tap edge hands it over, starting with a
 * 12-byte virtio-net header. The core is set up again for every input
 * (checksum offload on, as with a tap that has a vnet header; IPv6 on,
 * with the default addresses; a small datagram table and the DNS
 * forwarder's addresses, so UDP, echo and DNS of both families are
 * reached), gets the frame with core_input() and then core_flush(). Every
 * frame it queues must fit its slot, leave the rest of the slot alone,
 * and be a sane Ethernet/ARP/IPv4/IPv6 frame with correct checksums
 * (fz_check_frames()). Intents are checked (payload points into the
 * input) and dropped.
 *
 * An IPv4 header whose checksum field has its lowest bit clear gets the
 * right checksum before the core sees it (a random one would stop almost
 * every input at the header check); the other half stay as they are.
 */

#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"
#include "core/tcp.h"

#include "fuzz_common.h"

#define VNET_LEN FZ_VNET_LEN
#define MTU 65520
#define NSLOTS 2
#define SLOT_SIZE (VNET_LEN + ETH_HLEN + MTU)
#define MAX_FLOWS 16
#define MAX_UDP_FLOWS 4
#define PFX6 0xfd, 0x00, 0x05, 0xee, 0x00, 0x0d, 0x00, 0x00

FZ_CORE_STATE(16384, NSLOTS);

static struct core_conf conf;

/**
 * conf_init() - the configuration: core_conf_default() (10.0.2.15/24 via
 * .2, gateway fe80::1) with IPv6, DNS and a vnet header
 */
static void conf_init(void)
{
	static const uint8_t pfx[8] = { PFX6 };

	fz_conf_tap(&conf, MTU, MAX_FLOWS);
	conf.max_udp_flows = MAX_UDP_FLOWS;
	conf.dns4_be = 0x0302000a; /* 10.0.2.3, stored in network order */
	fz_conf_ipv6(&conf, pfx, true);
}

static const uint8_t *in_data;
static size_t in_size;

static const uint8_t key[16] = "slipway-fuzz-key";

/**
 * check_intents() - a fresh core can only open flows and forward queries
 */
static void check_intents(void)
{
	unsigned i;

	FZ_CHECK(fx.nintents <= FX_MAX_INTENTS);
	for (i = 0; i < fx.nintents; i++) {
		const struct fx_intent *it = &fx.intents[i];

		FZ_CHECK(it->type < FX_INTENT_NUM);
		switch (it->type) {
		case FX_SOCK_CONNECT:
			/* a fresh core has no established flow */
			FZ_CHECK(it->flow < MAX_FLOWS);
			FZ_CHECK(tcp_flow_get(&core, it->flow) != NULL);
			FZ_CHECK(it->sock == -1 && it->port);
			break;
		case FX_DGRAM_OPEN:
			FZ_CHECK(it->flow < MAX_UDP_FLOWS);
			break;
		case FX_DGRAM_SEND:
		case FX_DNS_QUERY:
			FZ_CHECK(it->sock == -1);
			FZ_CHECK(!it->len ||
				 (it->data >= in_data &&
				  it->data + it->len <= in_data + in_size));
			break;
		default:
			FZ_CHECK(!"intent a fresh core cannot have");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t copy[SLOT_SIZE + 64];
	struct pkt_view v = { .p = data, .len = size };
	uint8_t *ip = copy + VNET_LEN + ETH_HLEN;
	uint32_t i, active = 0;
	unsigned before;

	if (size <= sizeof(copy)) {
		memcpy(copy, data, size);
		if (size >= VNET_LEN + ETH_HLEN + IP4_HLEN &&
		    rd16(copy + VNET_LEN + 12) == ETHERTYPE_IP4 &&
		    !(ip[11] & 1)) {
			wr16(ip + 10, 0);
			wr16(ip + 10, (uint16_t)~csum_fold(
					      csum_partial(ip, IP4_HLEN, 0)));
		}
		data = copy;
		v.p = copy;
	}

	if (!slots) {
		slots = fz_alloc((size_t)NSLOTS * SLOT_SIZE);
		conf_init();
	}
	fz_core_init(&core, &conf, core_mem, sizeof(core_mem), ctr, key);
	fz_fx_init(&fx, slots, SLOT_SIZE, NSLOTS, frame_len);
	in_data = data;
	in_size = size;

	core_input(&core, v, 1000000000ULL, &fx);
	fz_check_frames(&core, &fx, 0);
	check_intents();
	fx.nintents = 0;

	before = fx.nframes;
	core_flush(&core, 1000000000ULL, &fx);
	fz_check_frames(&core, &fx, before);
	FZ_CHECK(fx.nintents == 0);
	fz_check_slot_tails(&fx);

	for (i = 0; i < MAX_FLOWS; i++)
		if (core.flows[i].state != TCPS_FREE)
			active++;
	FZ_CHECK(active <= 1);
	FZ_CHECK(ctr[CTR_TCP_FLOWS_ACTIVE] == active);
	return 0;
}
