/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_mig.c - the live-migration state stream as a destination reads it
 * (core/mig.c), and the flows it makes (tcp_import(), udp_import())
 *
 * Input: a stream, header first; the descriptors the header announces
 * (at most MAX_FDS) are stand-ins, 1000 + their index.
 *
 * Checks: mig_parse_hdr() and mig_check() refuse with a reason or accept;
 * an accepted body is imported as migrate.c does (each TCP record, its
 * held segments, each UDP record), every refusal has a reason, and the
 * core's TCP state keeps the state table (tcp_flows_bad()) after every
 * step; every flow imported holds the descriptor its record named. Then
 * the flows go out again (tcp_export(), udp_export()), are written
 * (mig_put_*()) and read back: the same state, field by field.
 */

#include <stdlib.h>
#include <string.h>

#include "core/mig.h"
#include "core/tcp.h"
#include "core/udp.h"

#include "fuzz_common.h"

#define MAX_FDS 64
#define MAX_FLOWS 32
#define NSLOTS 64
#define OOO_SLOTS 2

static _Alignas(64) uint8_t core_mem[65536 + OOO_SLOTS * (TCP_OOO_SLOT + 64)];
static uint64_t ctr[CTR_NUM];
static struct core core;
static struct fx fx;
static uint8_t *slots;
static uint32_t frame_len[NSLOTS];
static uint8_t out[MIG_TCP_LEN + MIG_OOO_MAX(TCP_OOO_SLOT)];

/**
 * setup() - a fresh core as a vhost-user destination has it
 */
static void setup(void)
{
	static const uint8_t pfx[8] = { 0xfd, 0, 5, 0xee, 0, 0x0d, 0, 0 };
	static const uint8_t key[16] = "slipway-fuzz-key";
	struct core_conf cc;

	fz_conf_tap(&cc, 65520, MAX_FLOWS);
	fz_conf_ipv6(&cc, pfx, true);
	cc.ooo_slots = OOO_SLOTS;
	cc.max_udp_flows = MAX_FLOWS;
	cc.ws_shift = 7;
	memset(core_mem, 0, sizeof(core_mem));
	fz_core_init(&core, &cc, core_mem, sizeof(core_mem), ctr, key);
	if (!slots)
		slots = fz_alloc((size_t)NSLOTS * 65600);
	fz_fx_init(&fx, slots, 65600, NSLOTS, frame_len);
}

/**
 * round_trip_tcp() - a flow goes out and is read back the same
 * @f:		flow
 */
static void round_trip_tcp(const struct tcp_flow *f)
{
	struct mig_tcp t, back;
	struct mig_rec r;
	const uint8_t *p = out;
	size_t n;

	if (!tcp_export(&core, f, 5000000000ULL, &t))
		return;
	t.fd = 3;
	n = mig_put_tcp(out, sizeof(out), 1, &t);
	FZ_CHECK(n == MIG_TCP_LEN);
	FZ_CHECK(mig_next(&p, out + n, &r) == 1 && r.type == MIG_REC_TCP &&
		 r.shard == 1);
	memset(&back, 0, sizeof(back));
	FZ_CHECK(!mig_get_tcp(&r, 4, &back));
	FZ_CHECK(!memcmp(&t, &back, sizeof(t)));
	FZ_CHECK(!mig_put_tcp(out, n - 1, 1, &t));
}

/**
 * import() - what a destination's shard does with an accepted body
 * @body:	records
 * @len:	their length
 * @nfds:	descriptors
 */
static void import(const uint8_t *body, size_t len, uint32_t nfds)
{
	const uint8_t *p = body, *end = body + len;
	struct tcp_flow *last = NULL;
	struct mig_rec r;
	uint32_t i;

	while (mig_next(&p, end, &r) > 0) {
		struct mig_tcp t;
		struct mig_ooo o;
		struct mig_udp u;
		struct udp_flow *uf;
		const char *why;

		fx.nintents = 0;
		if (r.type == MIG_REC_TCP) {
			FZ_CHECK(!mig_get_tcp(&r, nfds, &t));
			last = NULL;
			why = tcp_import(&core, &t, (int32_t)(1000 + t.fd),
					 4000000000ULL, &fx, &last);
			FZ_CHECK(!why == !!last);
			if (last)
				FZ_CHECK(last->sock == (int32_t)(1000 + t.fd));
		} else if (r.type == MIG_REC_OOO && last) {
			FZ_CHECK(!mig_get_ooo(&r, &o));
			tcp_import_ooo(&core, last, &o);
		} else if (r.type == MIG_REC_UDP) {
			FZ_CHECK(!mig_get_udp(&r, nfds, &u));
			last = NULL;
			why = udp_import(&core, &u, (int32_t)(1000 + u.fd),
					 4000000000ULL, &uf);
			if (!why)
				FZ_CHECK(uf->sock == (int32_t)(1000 + u.fd));
		} else {
			last = NULL;
		}
		FZ_CHECK(!tcp_flows_bad(&core));
	}
	for (i = 0; i < core.hiwat; i++) {
		struct tcp_flow *f = tcp_flow_get(&core, i);

		if (f)
			round_trip_tcp(f);
	}
}

/**
 * LLVMFuzzerTestOneInput() - one input
 * @data:	the stream
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *in = fz_dup(data, size);
	uint32_t body_len, nfds;
	struct mig_end counts;
	const char *why;

	if (size < MIG_HDR_LEN)
		goto out;
	why = mig_parse_hdr(in, size, &body_len, &nfds);
	if (why) {
		FZ_CHECK(*why);
		goto out;
	}
	if (body_len != size - MIG_HDR_LEN || nfds > MAX_FDS)
		goto out;
	why = mig_check(in + MIG_HDR_LEN, body_len, nfds, &counts);
	if (why) {
		FZ_CHECK(*why);
		goto out;
	}
	setup();
	import(in + MIG_HDR_LEN, body_len, nfds);
out:
	free(in);
	return 0;
}
