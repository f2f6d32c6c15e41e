/* SPDX-License-Identifier: GPL-2.0-or-later */
/* impair_conf.h - the --impair options (the stage itself is shard/impair.c) */
#ifndef SLIPWAY_IMPAIR_CONF_H
#define SLIPWAY_IMPAIR_CONF_H

#include <stdbool.h>
#include <stdint.h>

enum { IMPAIR_UP, IMPAIR_DOWN, IMPAIR_DIRS }; /* guest->host, host->guest */

/**
 * struct impair_spec - what to do to one direction's frames
 * @drop:	chance a frame is lost, per million
 * @dup:	chance a frame is sent twice, per million
 * @reorder:	chance a frame is held back so that later ones overtake it
 * @corrupt:	chance a bit of the frame's IPv4 header is flipped (the
 *		receiver's header checksum catches it), per million
 * @gso:	chance a UDP GSO frame's segment size (in its virtio-net
 *		header) is made nonsense: 0, 1 or 65535, per million
 * @delay_ns:	every frame waits this long
 */
struct impair_spec {
	uint32_t drop, dup, reorder, corrupt, gso;
	uint64_t delay_ns;
};

/**
 * struct impair_conf - the --impair options
 * @dir:	by direction (IMPAIR_UP, IMPAIR_DOWN)
 * @seed:	--impair-seed (each shard adds its index)
 * @on:		any impairment at all
 */
struct impair_conf {
	struct impair_spec dir[IMPAIR_DIRS];
	uint64_t seed;
	bool on;
};

/**
 * impair_parse() - parse one --impair DIR:KIND=VALUE[,KIND=VALUE...]
 * @c:		configuration to add to
 * @arg:	the option's argument
 *
 * DIR is up (guest to host) or down (host to guest); KIND is drop, dup,
 * reorder, corrupt, gso (VALUE a percentage: 1%, 0.5%) or delay (VALUE in ms:
 * 10ms, or us).
 *
 * Return: 0, or -1 with nothing changed
 */
int impair_parse(struct impair_conf *c, const char *arg);

#endif /* SLIPWAY_IMPAIR_CONF_H */
