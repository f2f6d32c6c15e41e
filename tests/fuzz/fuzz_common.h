/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_common.h - what fuzz_common.c gives every fuzz target */
#ifndef SLIPWAY_FUZZ_COMMON_H
#define SLIPWAY_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/**
 * FZ_CORE_STATE() - the state of a fuzz target that drives one core: its
 * memory, counters, core, effects batch, frame slots and their lengths
 * @mem_size:	bytes of core memory (core_mem, aligned to 64)
 * @nslots:	frame slots (frame_len[])
 */
#define FZ_CORE_STATE(mem_size, nslots)                 \
	static _Alignas(64) uint8_t core_mem[mem_size]; \
	static uint64_t ctr[CTR_NUM];                   \
	static struct core core;                        \
	static struct fx fx;                            \
	static uint8_t *slots;                          \
	static uint32_t frame_len[nslots]

/**
 * fz_fail() - report a broken check and trap (the fuzzer keeps the input)
 * @expr:	text of the check
 * @file:	source file
 * @line:	source line
 */
_Noreturn void fz_fail(const char *expr, const char *file, int line);

/**
 * fz_check_frames() - check the frames a core queued (TCP, ICMP, ARP)
 * @c:		core
 * @fx:		effects batch
 * @from:	first frame to check
 */
void fz_check_frames(const struct core *c, const struct fx *fx, unsigned from);

/* what fz_fx_init() writes over the slots, to see writes past a frame */
#define FZ_CANARY 0xa5

/**
 * fz_alloc() - memory for a harness buffer, or abort
 * @size:	bytes (0 is taken as 1)
 *
 * Return: the buffer, never NULL
 */
void *fz_alloc(size_t size);

/**
 * fz_dup() - an exactly sized heap copy of an input, so ASan sees any read
 *	      past its end
 * @data:	input
 * @size:	its length
 *
 * Return: the copy, for free()
 */
uint8_t *fz_dup(const uint8_t *data, size_t size);

/* the vnet header fz_conf_tap() configures */
#define FZ_VNET_LEN 12

/**
 * fz_conf_tap() - core_conf_default() (10.0.2.15/24 via .2, gateway
 * fe80::1) as on tap: the guest's MAC, a 12-byte vnet header and checksum
 * offload
 * @cc:		configuration out
 * @mtu:	MTU
 * @max_flows:	TCP flow table size
 */
void fz_conf_tap(struct core_conf *cc, uint32_t mtu, uint32_t max_flows);

/**
 * fz_conf_ipv6() - IPv6 on in the /64 @pfx: gateway ::2, DNS ::3 and,
 * with @guest, the guest at ::15
 * @cc:		configuration
 * @pfx:	8-byte prefix
 * @guest:	set guest6 too
 */
void fz_conf_ipv6(struct core_conf *cc, const uint8_t *pfx, bool guest);

/**
 * fz_conf_names() - the short names of both DHCP servers: the search list
 * "example.test" and the FQDN "vm1.example.test", in wire format
 * @d:		DHCP configuration
 */
void fz_conf_names(struct dhcp4_conf *d);

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
		   uint8_t last, size_t fqdn_len);

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
		  size_t mem_size, uint64_t *ctr, const uint8_t *key);

/**
 * fz_fx_init() - an empty effects batch over @nslots slots full of FZ_CANARY
 * @fx:		batch to set up
 * @slots:	@nslots * @slot_size bytes
 * @slot_size:	bytes per slot
 * @nslots:	slot count
 * @frame_len:	@nslots frame lengths
 */
void fz_fx_init(struct fx *fx, uint8_t *slots, size_t slot_size,
		unsigned nslots, uint32_t *frame_len);

/**
 * fz_check_slot_tails() - nothing was written past the end of a queued frame
 * @fx:		batch set up by fz_fx_init()
 */
void fz_check_slot_tails(const struct fx *fx);

/**
 * fz_in_set() - start reading an input byte by byte
 * @data:	input
 * @size:	its length
 */
void fz_in_set(const uint8_t *data, size_t size);

/**
 * fz_in_left() - bytes of the input not read yet
 *
 * Return: count
 */
size_t fz_in_left(void);

/**
 * fz_u8() - the next input byte
 *
 * Return: the byte, 0 once the input is used up
 */
uint8_t fz_u8(void);

/**
 * fz_u16() - the next two input bytes, little-endian
 *
 * Return: value (zero bytes past the end)
 */
uint16_t fz_u16(void);

/**
 * fz_u32() - the next four input bytes, little-endian
 *
 * Return: value (zero bytes past the end)
 */
uint32_t fz_u32(void);

#define FZ_CHECK(e)                                      \
	do {                                             \
		if (!(e))                                \
			fz_fail(#e, __FILE__, __LINE__); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* SLIPWAY_FUZZ_COMMON_H */
