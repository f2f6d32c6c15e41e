/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sock_udp.h - host UDP and ping sockets of datagram flows, published UDP
 * ports (sock_udp.c)
 */
#ifndef SLIPWAY_SOCK_UDP_H
#define SLIPWAY_SOCK_UDP_H

#include <stdint.h>

struct fx_intent;
struct listener;
struct shard;

unsigned sock_udp_send_batch(struct shard *sh, const struct fx_intent *its,
			     unsigned n);
void sock_udp_intent(struct shard *sh, const struct fx_intent *it);
void sock_udp_event(struct shard *sh, uint32_t idx, uint32_t events);
void sock_udp_listen_prep(struct shard *sh, struct listener *l);
void sock_udp_listen_event(struct shard *sh, uint32_t idx);

#endif /* SLIPWAY_SOCK_UDP_H */
