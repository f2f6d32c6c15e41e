/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_dhcp4.c - one DHCP client message into a fresh core's DHCP server
 *
 * Input: the UDP payload of a datagram from the guest to 255.255.255.255
 * port 67 (a BOOTP message, or anything). The harness wraps it in a valid
 * virtio-net/Ethernet/IPv4/UDP frame from 0.0.0.0:68 and gives it to
 * core_input(), which reaches dhcp4_input() through ip4_input() and
 * udp_input(). Each input runs twice, on two configurations: a tap-like
 * one (12-byte vnet header, checksum offload, search list "example.test",
 * host name "vm1", FQDN "vm1.example.test") and a plain one (no vnet
 * header, full checksums, three DNS servers, an infinite lease, a 256-byte
 * search list that needs two options, and the longest host name and the
 * longest FQDN option 81 holds).
 *
 * Checks: the message moved exactly one of the receipt or drop counters;
 * at most one frame is queued, it fits its slot and leaves the rest of it
 * alone, and it is a well-formed reply (Ethernet to the broadcast MAC for
 * 255.255.255.255, else to the guest; IPv4 header and checksum; UDP 67 ->
 * 68 with a right checksum or the NEEDS_CSUM contract; BOOTP reply with
 * the request's xid and chaddr; options well formed, ended, type OFFER,
 * ACK or NAK; no longer than the client's maximum message size, option
 * 57, allows) that agrees with the reply counters; no intent is queued.
 * fz_check_frames() of fuzz_common.c knows only TCP, ICMP and ARP toward
 * the guest, hence the checker here.
 */

#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"
#include "core/dhcp4.h"
#include "core/udp.h"

#include "fuzz_common.h"

#define VNET_LEN FZ_VNET_LEN
#define MTU 65520
#define NSLOTS 2
#define SLOT_SIZE (VNET_LEN + ETH_HLEN + MTU)
#define MAX_FLOWS 4
#define HDRS (VNET_LEN + ETH_HLEN + IP4_HLEN + UDP_HLEN)
#define MAX_PAYLOAD (65535 - IP4_HLEN - UDP_HLEN)

FZ_CORE_STATE(16384, NSLOTS);
static uint8_t *frame;

static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static struct core_conf conf_tap;

/**
 * conf_tap_init() - the first configuration: core_conf_default()
 * (10.0.2.15/24 via .2) serving DHCP, with a vnet header
 */
static void conf_tap_init(void)
{
	struct dhcp4_conf *d = &conf_tap.dhcp4;

	fz_conf_tap(&conf_tap, MTU, MAX_FLOWS);
	conf_tap.dhcp = true;
	d->addr_be = conf_tap.guest4_be;
	d->mask_be = conf_tap.mask4_be;
	d->router_be = conf_tap.gw4_be;
	d->server_be = conf_tap.gw4_be;
	d->dns_be[0] = 0x0302000a; /* 10.0.2.3, stored in network order */
	d->ndns = 1;
	d->lease_s = 3600;
	d->mtu = MTU;
	fz_conf_names(d);
	memcpy(d->hostname, "vm1", 3);
	d->hostname_len = 3;
}

static struct core_conf conf_plain;

static const uint8_t key[16] = "slipway-fuzz-key";

/**
 * conf_plain_init() - both configurations: conf_tap_init(), then the
 * second one derived from the first
 */
static void conf_plain_init(void)
{
	struct dhcp4_conf *d = &conf_plain.dhcp4;

	conf_tap_init();
	/* 63, 63, 63 and 60 bytes of labels: 252 bytes with the root */
	fz_conf_plain(&conf_plain, &conf_tap, 60, 252);
	d->dns_be[1] = 0x350200c0; /* 192.0.2.53 */
	d->dns_be[2] = 0x08080808;
	d->ndns = 3;
	d->lease_s = UINT32_MAX;
	memset(d->hostname, 'h', sizeof(d->hostname));
	d->hostname_len = sizeof(d->hostname);
}

/**
 * build_frame() - wrap the payload in vnet/Ethernet/IPv4/UDP headers
 * @c:		core (vnet header length)
 * @data:	payload
 * @len:	payload length (at most MAX_PAYLOAD)
 *
 * Return: frame length
 */
static size_t build_frame(const struct core *c, const uint8_t *data, size_t len)
{
	size_t vl = c->conf.vnet_hdr_len;
	uint8_t *eth = frame + vl, *ip = eth + ETH_HLEN, *uh = ip + IP4_HLEN;

	memset(frame, 0, vl);
	memcpy(eth, bcast, ETH_ALEN);
	memcpy(eth + 6, c->conf.guest_mac, ETH_ALEN);
	wr16(eth + 12, ETHERTYPE_IP4);
	memset(ip, 0, IP4_HLEN);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(IP4_HLEN + UDP_HLEN + len));
	ip[8] = 64;
	ip[9] = IPPROTO_UDP_;
	memset(ip + 16, 0xff, 4);
	wr16(ip + 10, (uint16_t)~csum_fold(csum_partial(ip, IP4_HLEN, 0)));
	wr16(uh, DHCP4_CLIENT_PORT);
	wr16(uh + 2, DHCP4_SERVER_PORT);
	wr16(uh + 4, (uint16_t)(UDP_HLEN + len));
	wr16(uh + 6, 0); /* no checksum: allowed over IPv4 */
	memcpy(uh + UDP_HLEN, data, len);
	return vl + ETH_HLEN + IP4_HLEN + UDP_HLEN + len;
}

/**
 * req_max_len() - the most a reply to this request may take
 * @req:	the client's message, which was answered (so well formed)
 * @len:	its length
 *
 * Return: BOOTP bytes: the client's option 57 (576 if absent or lower),
 *	   less the IPv4 and UDP headers
 */
static size_t req_max_len(const uint8_t *req, size_t len)
{
	size_t k = 240, max = 576;

	while (k < len && req[k] != 255) {
		if (!req[k]) {
			k++;
			continue;
		}
		if (k + 2 > len || k + 2 + req[k + 1] > len)
			break;
		if (req[k] == 57 && req[k + 1] == 2 && rd16(req + k + 2) > max)
			max = rd16(req + k + 2);
		k += 2 + req[k + 1];
	}
	return max - IP4_HLEN - UDP_HLEN;
}

/**
 * check_options() - the reply's options are well formed
 * @b:		BOOTP reply
 * @len:	its length
 * @max:	the most it may take (req_max_len())
 *
 * Return: the message type (option 53)
 */
static uint8_t check_options(const uint8_t *b, size_t len, size_t max)
{
	size_t k = 240;
	int type = -1;

	FZ_CHECK(len >= 300 && len <= max);
	FZ_CHECK(rd32(b + 236) == 0x63825363);
	while (k < len && b[k] != 255) {
		FZ_CHECK(b[k] != 0);
		FZ_CHECK(k + 2 <= len && k + 2 + b[k + 1] <= len);
		if (b[k] == 53) {
			FZ_CHECK(type < 0 && b[k + 1] == 1);
			type = b[k + 2];
		}
		if (b[k] == 54)
			FZ_CHECK(b[k + 1] == 4 &&
				 !memcmp(b + k + 2, &core.conf.dhcp4.server_be,
					 4));
		if (b[k] == 12) /* our host name */
			FZ_CHECK(b[k + 1] == core.conf.dhcp4.hostname_len &&
				 !memcmp(b + k + 2, core.conf.dhcp4.hostname,
					 b[k + 1]));
		if (b[k] == 81) /* flags N, E, O only; RCODEs 255 */
			FZ_CHECK(b[k + 1] >= 3 && !(b[k + 2] & ~0x0e) &&
				 b[k + 3] == 255 && b[k + 4] == 255);
		k += 2 + b[k + 1];
	}
	FZ_CHECK(k < len); /* End present */
	for (k++; k < len; k++)
		FZ_CHECK(b[k] == 0);
	FZ_CHECK(type == 2 || type == 5 || type == 6);
	return (uint8_t)type;
}

/**
 * check_reply() - the queued frame is a well-formed reply to @req
 * @req:	the client's message
 * @req_len:	its length
 *
 * Return: the message type
 */
static uint8_t check_reply(const uint8_t *req, size_t req_len)
{
	size_t vl = core.conf.vnet_hdr_len, len = frame_len[0], l3len, ulen;
	const uint8_t *s = slots, *eth = s + vl, *ip, *uh, *b;
	uint32_t saddr, daddr, ciaddr, sum;
	uint8_t l4[1200];
	uint8_t type;

	FZ_CHECK(req_len >= 240);
	FZ_CHECK(len <= SLOT_SIZE && len >= vl + ETH_HLEN + IP4_HLEN + 8);
	FZ_CHECK(!memcmp(eth + 6, core.conf.our_mac, ETH_ALEN));
	FZ_CHECK(rd16(eth + 12) == ETHERTYPE_IP4);
	ip = eth + ETH_HLEN;
	l3len = len - vl - ETH_HLEN;
	FZ_CHECK(ip[0] == 0x45 && rd16(ip + 2) == l3len);
	FZ_CHECK(ip[9] == IPPROTO_UDP_);
	FZ_CHECK(csum_fold(csum_partial(ip, IP4_HLEN, 0)) == 0xffff);
	memcpy(&saddr, ip + 12, 4);
	memcpy(&daddr, ip + 16, 4);
	FZ_CHECK(saddr == core.conf.dhcp4.server_be);
	if (daddr == 0xffffffffU) {
		FZ_CHECK(!memcmp(eth, bcast, ETH_ALEN));
	} else {
		memcpy(&ciaddr, req + 12, 4);
		FZ_CHECK(daddr == ciaddr);
		FZ_CHECK(!memcmp(eth, core.conf.guest_mac, ETH_ALEN));
	}

	uh = ip + IP4_HLEN;
	ulen = l3len - IP4_HLEN;
	FZ_CHECK(ulen <= sizeof(l4));
	FZ_CHECK(rd16(uh) == DHCP4_SERVER_PORT);
	FZ_CHECK(rd16(uh + 2) == DHCP4_CLIENT_PORT);
	FZ_CHECK(rd16(uh + 4) == ulen);
	memcpy(l4, uh, ulen);
	sum = csum_pseudo4(saddr, daddr, IPPROTO_UDP_, (uint16_t)ulen);
	if (vl && s[0] == VNET_HDR_F_NEEDS_CSUM) {
		FZ_CHECK(core.conf.csum_offload);
		FZ_CHECK((s[6] | s[7] << 8) == ETH_HLEN + IP4_HLEN);
		FZ_CHECK((s[8] | s[9] << 8) == 6);
		FZ_CHECK(rd16(l4 + 6) == csum_fold(sum));
		/* finish it the way the device would */
		wr16(l4 + 6, (uint16_t)~csum_fold(csum_partial(l4, ulen, 0)));
	} else {
		FZ_CHECK(!core.conf.csum_offload);
		FZ_CHECK(rd16(l4 + 6) != 0);
	}
	if (vl)
		FZ_CHECK(s[1] == VNET_HDR_GSO_NONE && s[10] == 0 && s[11] == 0);
	FZ_CHECK(csum_fold(csum_partial(l4, ulen, sum)) == 0xffff);

	b = uh + UDP_HLEN;
	FZ_CHECK(b[0] == 2 && b[1] == 1 && b[2] == 6 && b[3] == 0);
	FZ_CHECK(!memcmp(b + 4, req + 4, 4));	 /* xid */
	FZ_CHECK(!memcmp(b + 28, req + 28, 16)); /* chaddr */
	type = check_options(b, ulen - UDP_HLEN, req_max_len(req, req_len));
	if (type == 6) /* NAK: broadcast, no address handed out */
		FZ_CHECK(daddr == 0xffffffffU && rd32(b + 16) == 0);
	return type;
}

/**
 * run() - one input on one configuration
 * @conf:	configuration
 * @data:	UDP payload
 * @size:	its length
 */
static void run(const struct core_conf *conf, const uint8_t *data, size_t size)
{
	struct pkt_view v = { 0 };
	uint64_t in;

	fz_core_init(&core, conf, core_mem, sizeof(core_mem), ctr, key);
	fz_fx_init(&fx, slots, SLOT_SIZE, NSLOTS, frame_len);

	v.p = frame;
	v.len = build_frame(&core, data, size);
	core_input(&core, v, 1000000000ULL, &fx);

	in = ctr[CTR_DHCP4_DISCOVER] + ctr[CTR_DHCP4_REQUEST] +
	     ctr[CTR_DHCP4_RELEASE] + ctr[CTR_DHCP4_INFORM] +
	     ctr[CTR_DHCP4_DROP_BAD] + ctr[CTR_DHCP4_DROP_IGNORED];
	FZ_CHECK(in == 1);
	FZ_CHECK(fx.nintents == 0);
	FZ_CHECK(fx.nframes <= 1);
	FZ_CHECK(ctr[CTR_DHCP4_OFFER] + ctr[CTR_DHCP4_ACK] +
			 ctr[CTR_DHCP4_NAK] ==
		 fx.nframes);
	if (fx.nframes) {
		uint8_t type = check_reply(data, size);

		FZ_CHECK(ctr[type == 2 ? CTR_DHCP4_OFFER :
			     type == 5 ? CTR_DHCP4_ACK :
					 CTR_DHCP4_NAK] == 1);
		FZ_CHECK(type != 2 || ctr[CTR_DHCP4_DISCOVER] == 1);
	}
	fz_check_slot_tails(&fx);
}

/**
 * LLVMFuzzerTestOneInput() - run one input on both configurations
 * @data:	the UDP payload
 * @size:	its length (cut to what fits an IPv4 datagram)
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!slots) {
		slots = fz_alloc((size_t)NSLOTS * SLOT_SIZE);
		frame = fz_alloc(HDRS + MAX_PAYLOAD);
		conf_plain_init();
	}
	if (size > MAX_PAYLOAD)
		size = MAX_PAYLOAD;
	run(&conf_tap, data, size);
	run(&conf_plain, data, size);
	return 0;
}
