/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_common.c - what every fuzz target links: assert_fail(), a failure
 * reporter, the set-up of a core and its effects batch, an input reader,
 * and a checker for the frames the core queues toward the guest
 *
 * fuzz_common.h declares it all.
 */

#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"

#include "fuzz_common.h"

/**
 * assert_fail() - an ASSERT() in the core failed: a bug, never input
 * @expr:	text of the failed expression
 * @file:	source file
 * @line:	source line
 * @func:	function name
 */
_Noreturn void assert_fail(const char *expr, const char *file, int line,
			   const char *func)
{
	fprintf(stderr, "%s:%d: %s: ASSERT(%s) failed\n", file, line, func,
		expr);
	fflush(stderr);
	abort();
}

/**
 * fz_fail() - a harness invariant failed
 * @expr:	text of the failed check
 * @file:	harness file
 * @line:	harness line
 */
_Noreturn void fz_fail(const char *expr, const char *file, int line)
{
	fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, expr);
	fflush(stderr);
	__builtin_trap();
}

/**
 * fz_alloc() - memory for a harness buffer, or abort
 * @size:	bytes (0 is taken as 1)
 *
 * Return: the buffer, never NULL
 */
void *fz_alloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		abort();
	return p;
}

/**
 * fz_dup() - an exactly sized heap copy of an input
 * @data:	input
 * @size:	its length
 *
 * Return: the copy, for free()
 */
uint8_t *fz_dup(const uint8_t *data, size_t size)
{
	uint8_t *p = fz_alloc(size);

	memcpy(p, data, size);
	return p;
}

/**
 * fz_conf_tap() - core_conf_default() (10.0.2.15/24 via .2, gateway
 * fe80::1) as on tap: the guest's MAC, a 12-byte vnet header and checksum
 * offload
 * @cc:		configuration out
 * @mtu:	MTU
 * @max_flows:	TCP flow table size
 */
void fz_conf_tap(struct core_conf *cc, uint32_t mtu, uint32_t max_flows)
{
	static const uint8_t guest_mac[ETH_ALEN] = { 0x52, 0x54, 0x00,
						     0x12, 0x34, 0x56 };

	core_conf_default(cc);
	memcpy(cc->guest_mac, guest_mac, ETH_ALEN);
	cc->mtu = mtu;
	cc->vnet_hdr_len = FZ_VNET_LEN;
	cc->csum_offload = true;
	cc->max_flows = max_flows;
}

/**
 * fz_conf_ipv6() - IPv6 on in the /64 @pfx: gateway ::2, DNS ::3 and,
 * with @guest, the guest at ::15
 * @cc:		configuration
 * @pfx:	8-byte prefix
 * @guest:	set guest6 too
 */
void fz_conf_ipv6(struct core_conf *cc, const uint8_t *pfx, bool guest)
{
	cc->ipv6 = true;
	memcpy(cc->prefix6, pfx, 8);
	memcpy(cc->gw6, pfx, 8);
	cc->gw6[15] = 0x02;
	memcpy(cc->dns6, pfx, 8);
	cc->dns6[15] = 0x03;
	if (guest) {
		memcpy(cc->guest6, pfx, 8);
		cc->guest6[15] = 0x15;
	}
}

/**
 * fz_conf_names() - the short names of both DHCP servers: the search list
 * "example.test" and the FQDN "vm1.example.test", in wire format
 * @d:		DHCP configuration
 */
void fz_conf_names(struct dhcp4_conf *d)
{
	static const uint8_t search[] = "\x07"
					"example"
					"\x04"
					"test";
	static const uint8_t fqdn[] = "\x03"
				      "vm1"
				      "\x07"
				      "example"
				      "\x04"
				      "test";

	memcpy(d->search, search, sizeof(search));
	d->search_len = sizeof(search);
	memcpy(d->fqdn, fqdn, sizeof(fqdn));
	d->fqdn_len = sizeof(fqdn);
}

/**
 * fz_conf_plain() - @tap on a plain edge (no vnet header, no checksum
 * offload) with the longest names: a 256-byte search list and an FQDN of
 * labels of 63, 63, 63 and @last bytes of 'f', a zero at @fqdn_len - 1
 * @plain:	configuration out
 * @tap:	the configuration it derives from
 * @last:	length byte of the fourth label
 * @fqdn_len:	bytes of the FQDN
 */
void fz_conf_plain(struct core_conf *plain, const struct core_conf *tap,
		   uint8_t last, size_t fqdn_len)
{
	struct dhcp4_conf *d = &plain->dhcp4;
	size_t i;

	*plain = *tap;
	plain->vnet_hdr_len = 0;
	plain->csum_offload = false;
	for (i = 0; i < sizeof(d->search); i++)
		d->search[i] = (uint8_t)(i * 7 + 1);
	d->search_len = sizeof(d->search);
	memset(d->fqdn, 'f', sizeof(d->fqdn));
	for (i = 0; i < 4; i++)
		d->fqdn[i * 64] = i < 3 ? 63 : last;
	d->fqdn[fqdn_len - 1] = 0;
	d->fqdn_len = fqdn_len;
}

/**
 * fz_core_init() - a fresh core over zeroed memory and zeroed counters
 * @c:		core to set up
 * @conf:	its configuration
 * @mem:	memory for core_init()
 * @mem_size:	its size, checked against core_mem_size()
 * @ctr:	CTR_NUM counters
 * @key:	16-byte secret
 */
void fz_core_init(struct core *c, const struct core_conf *conf, void *mem,
		  size_t mem_size, uint64_t *ctr, const uint8_t *key)
{
	FZ_CHECK(core_mem_size(conf) <= mem_size);
	memset(mem, 0, mem_size);
	memset(ctr, 0, CTR_NUM * sizeof(*ctr));
	FZ_CHECK(core_init(c, conf, mem, ctr, key) == 0);
}

/**
 * fz_fx_init() - an empty effects batch over @nslots slots full of FZ_CANARY
 * @fx:		batch to set up
 * @slots:	@nslots * @slot_size bytes
 * @slot_size:	bytes per slot
 * @nslots:	slot count
 * @frame_len:	@nslots frame lengths
 */
void fz_fx_init(struct fx *fx, uint8_t *slots, size_t slot_size,
		unsigned nslots, uint32_t *frame_len)
{
	memset(slots, FZ_CANARY, (size_t)nslots * slot_size);
	memset(fx, 0, sizeof(*fx));
	fx->slots = slots;
	fx->slot_size = slot_size;
	fx->nslots = nslots;
	fx->frame_len = frame_len;
}

/**
 * fz_check_slot_tails() - nothing was written past the end of a queued frame
 * @fx:		batch set up by fz_fx_init()
 */
void fz_check_slot_tails(const struct fx *fx)
{
	unsigned i;

	for (i = 0; i < fx->nframes; i++) {
		const uint8_t *s = fx->slots + (size_t)i * fx->slot_size;
		size_t j;

		for (j = fx->frame_len[i]; j < fx->slot_size; j++)
			FZ_CHECK(s[j] == FZ_CANARY);
	}
}

/* the input fz_u8() reads: where it is and what is left */
static const uint8_t *fz_in_p;
static size_t fz_in_n;

/**
 * fz_in_set() - start reading an input byte by byte
 * @data:	input
 * @size:	its length
 */
void fz_in_set(const uint8_t *data, size_t size)
{
	fz_in_p = data;
	fz_in_n = size;
}

/**
 * fz_in_left() - bytes of the input not read yet
 *
 * Return: count
 */
size_t fz_in_left(void)
{
	return fz_in_n;
}

/**
 * fz_u8() - the next input byte
 *
 * Return: the byte, 0 once the input is used up
 */
uint8_t fz_u8(void)
{
	if (!fz_in_n)
		return 0;
	fz_in_n--;
	return *fz_in_p++;
}

/**
 * fz_u16() - the next two input bytes, little-endian
 *
 * Return: value (zero bytes past the end)
 */
uint16_t fz_u16(void)
{
	uint16_t v = fz_u8();

	return (uint16_t)(v | (fz_u8() << 8));
}

/**
 * fz_u32() - the next four input bytes, little-endian
 *
 * Return: value (zero bytes past the end)
 */
uint32_t fz_u32(void)
{
	uint32_t v = fz_u16();

	return v | ((uint32_t)fz_u16() << 16);
}

/* scratch copy of an L4 segment for checksum verification */
static uint8_t fz_l4[65536];

/**
 * fz_check_l4_csum() - the transport checksum of an outgoing packet is right
 * @l4:		transport header
 * @l4len:	transport length
 * @proto:	IPPROTO_TCP_, IPPROTO_UDP_, IPPROTO_ICMP_ or IPPROTO_ICMPV6_
 * @ps:		pseudo-header sum (0 for ICMP, which has none)
 * @ps_folded:	the same, folded: what a partial checksum field holds
 * @partial:	the frame is marked NEEDS_CSUM: finish the sum the way the
 *		device would before checking
 */
static void fz_check_l4_csum(const uint8_t *l4, size_t l4len, uint8_t proto,
			     uint32_t ps, uint16_t ps_folded, bool partial)
{
	size_t off = proto == IPPROTO_UDP_ ? 6 : proto == IPPROTO_TCP_ ? 16 : 2;
	uint32_t s;

	FZ_CHECK(l4len <= sizeof(fz_l4) && l4len >= off + 2);
	memcpy(fz_l4, l4, l4len);
	if (partial) {
		FZ_CHECK(proto == IPPROTO_TCP_ || proto == IPPROTO_UDP_);
		/* the field holds the folded pseudo-header sum; the device
		 * sums from csum_start to the end and stores the complement */
		FZ_CHECK(rd16(fz_l4 + off) == ps_folded);
		s = csum_partial(fz_l4, l4len, 0);
		wr16(fz_l4 + off, (uint16_t)~csum_fold(s));
	}
	if (proto == IPPROTO_UDP_ && !partial)
		FZ_CHECK(rd16(fz_l4 + 6) != 0); /* we always sum */
	FZ_CHECK(csum_fold(csum_partial(fz_l4, l4len, ps)) == 0xffff);
}

/**
 * fz_check_ip6() - a queued IPv6 packet is well formed
 * @c:		core (configuration)
 * @eth:	its Ethernet header
 * @l3:		IPv6 header
 * @l3len:	bytes from @l3 to the end of the frame
 * @partial:	the vnet header asks for a checksum (NEEDS_CSUM)
 * @cs:		its checksum start
 * @co:		its checksum offset
 */
static void fz_check_ip6(const struct core *c, const uint8_t *eth,
			 const uint8_t *l3, size_t l3len, bool partial,
			 uint16_t cs, uint16_t co)
{
	const uint8_t *l4 = l3 + IP6_HLEN;
	size_t l4len = l3len - IP6_HLEN;
	uint8_t nh;
	uint32_t ps;

	FZ_CHECK(c->conf.ipv6);
	FZ_CHECK(l3len >= IP6_HLEN + 8);
	FZ_CHECK(l3[0] == 0x60 && l3[1] == 0 && l3[2] == 0 && l3[3] == 0);
	FZ_CHECK(rd16(l3 + 4) == l4len);
	FZ_CHECK(l3[7] == 64 || l3[7] == 255);
	FZ_CHECK(l3[8] != 0xff); /* never from a multicast address */
	if (l3[24] == 0xff)
		FZ_CHECK(eth[0] == 0x33 && eth[1] == 0x33 &&
			 !memcmp(eth + 2, l3 + 36, 4));
	else
		FZ_CHECK(!memcmp(eth, c->conf.guest_mac, ETH_ALEN));
	nh = l3[6];
	ps = csum_pseudo6(l3 + 8, l3 + 24, nh, (uint32_t)l4len);
	if (partial)
		FZ_CHECK(cs == ETH_HLEN + IP6_HLEN &&
			 co == (nh == IPPROTO_UDP_ ? 6 : 16));
	switch (nh) {
	case IPPROTO_TCP_: {
		size_t doff;

		FZ_CHECK(l4len >= TCP_HLEN);
		doff = (size_t)(l4[12] >> 4) * 4;
		FZ_CHECK(doff >= TCP_HLEN && doff <= l4len);
		FZ_CHECK(l4[13] & 0x16);
		break;
	}
	case IPPROTO_UDP_:
		FZ_CHECK(rd16(l4 + 4) == l4len);
		break;
	case IPPROTO_ICMPV6_:
		FZ_CHECK(!partial);
		/* unreachable, echo reply, router or neighbour advert */
		FZ_CHECK(l4[0] == 1 || l4[0] == 129 || l4[0] == 134 ||
			 l4[0] == 136);
		if (l4[0] == 1)
			FZ_CHECK(l3len <= 1280);
		break;
	default:
		FZ_CHECK(!"IPv6 packet of another protocol");
	}
	fz_check_l4_csum(l4, l4len, nh, ps, csum_fold(ps), partial);
}

/**
 * fz_check_frame() - one queued frame is well formed
 * @c:		core (configuration, MACs)
 * @fx:		effects batch
 * @i:		frame index
 */
static void fz_check_frame(const struct core *c, const struct fx *fx,
			   unsigned i)
{
	const uint8_t *s = fx->slots + (size_t)i * fx->slot_size, *eth, *l3;
	size_t len = fx->frame_len[i], hl = c->conf.vnet_hdr_len, l3len;
	uint16_t type, cs = 0, co = 0;
	bool partial = false;
	uint32_t saddr, daddr, ps;

	FZ_CHECK(len <= fx->slot_size);
	FZ_CHECK(len >= hl + ETH_HLEN);
	if (hl) {
		cs = (uint16_t)(s[6] | (s[7] << 8));
		co = (uint16_t)(s[8] | (s[9] << 8));
		FZ_CHECK(s[1] == VNET_HDR_GSO_NONE);
		FZ_CHECK(s[0] == 0 || s[0] == VNET_HDR_F_NEEDS_CSUM);
		if (s[0] == VNET_HDR_F_NEEDS_CSUM) {
			FZ_CHECK(c->conf.csum_offload);
			FZ_CHECK((size_t)cs + co + 2 <= len - hl);
			partial = true;
		}
		if (hl == 12)
			FZ_CHECK(s[10] == 0 && s[11] == 0);
	}
	eth = s + hl;
	FZ_CHECK(!memcmp(eth + 6, c->conf.our_mac, ETH_ALEN));
	type = rd16(eth + 12);
	l3 = eth + ETH_HLEN;
	l3len = len - hl - ETH_HLEN;
	if (type == ETHERTYPE_ARP) {
		FZ_CHECK(!partial);
		FZ_CHECK(l3len == 28);
		FZ_CHECK(rd16(l3) == 1 && rd16(l3 + 2) == ETHERTYPE_IP4);
		FZ_CHECK(l3[4] == 6 && l3[5] == 4 && rd16(l3 + 6) == 2);
		FZ_CHECK(!memcmp(l3 + 8, c->conf.our_mac, ETH_ALEN));
		FZ_CHECK(!memcmp(l3 + 18, eth, ETH_ALEN));
		return;
	}
	if (type == ETHERTYPE_IP6) {
		fz_check_ip6(c, eth, l3, l3len, partial, cs, co);
		return;
	}
	FZ_CHECK(type == ETHERTYPE_IP4);
	FZ_CHECK(l3len >= IP4_HLEN);
	FZ_CHECK(l3[0] == 0x45);
	FZ_CHECK(rd16(l3 + 2) == l3len);
	FZ_CHECK((rd16(l3 + 6) & 0x3fff) == 0);
	FZ_CHECK(csum_fold(csum_partial(l3, IP4_HLEN, 0)) == 0xffff);
	memcpy(&saddr, l3 + 12, 4);
	memcpy(&daddr, l3 + 16, 4);
	/* DHCP answers to a client without an address are broadcast; an
	 * answer to a broadcast source address otherwise goes to the guest */
	if (daddr == 0xffffffffU && l3[9] == IPPROTO_UDP_)
		FZ_CHECK(!memcmp(eth, "\xff\xff\xff\xff\xff\xff", 6));
	else
		FZ_CHECK(!memcmp(eth, c->conf.guest_mac, ETH_ALEN));
	if (partial)
		FZ_CHECK(cs == ETH_HLEN + IP4_HLEN &&
			 co == (l3[9] == IPPROTO_UDP_ ? 6 : 16));
	ps = csum_pseudo4(saddr, daddr, l3[9], (uint16_t)(l3len - IP4_HLEN));
	if (l3[9] == IPPROTO_TCP_) {
		size_t doff;

		FZ_CHECK(l3len >= IP4_HLEN + TCP_HLEN);
		doff = (size_t)(l3[IP4_HLEN + 12] >> 4) * 4;
		FZ_CHECK(doff >= TCP_HLEN && doff <= l3len - IP4_HLEN);
		/* never a segment without RST, SYN or ACK */
		FZ_CHECK(l3[IP4_HLEN + 13] & 0x16);
		FZ_CHECK(!partial || hl);
	} else if (l3[9] == IPPROTO_UDP_) {
		FZ_CHECK(l3len >= IP4_HLEN + 8);
		FZ_CHECK(rd16(l3 + IP4_HLEN + 4) == l3len - IP4_HLEN);
	} else {
		FZ_CHECK(l3[9] == IPPROTO_ICMP_);
		FZ_CHECK(l3len >= IP4_HLEN + 8);
		/* echo reply or destination unreachable */
		FZ_CHECK(l3[IP4_HLEN] == 0 || l3[IP4_HLEN] == 3);
		ps = 0;
	}
	fz_check_l4_csum(l3 + IP4_HLEN, l3len - IP4_HLEN, l3[9], ps,
			 csum_fold(ps), partial);
}

/**
 * fz_check_frames() - the frames queued since @from are well formed
 * @c:		core
 * @fx:		effects batch
 * @from:	first frame to check
 */
void fz_check_frames(const struct core *c, const struct fx *fx, unsigned from)
{
	unsigned i;

	FZ_CHECK(fx->nframes <= fx->nslots);
	for (i = from; i < fx->nframes; i++)
		fz_check_frame(c, fx, i);
}
