/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sock_tcp.h - host TCP sockets: the core's intents carried out, payload
 * peeked to the guest (sock_tcp.c)
 */
#ifndef SLIPWAY_SOCK_TCP_H
#define SLIPWAY_SOCK_TCP_H

#include <stdbool.h>
#include <stdint.h>

struct conf;
struct fx_intent;
struct shard;
struct sockaddr_storage;
struct tcp_flow;
struct tcp_handover;

/* per-flow host-side state bits (shard_sock.hflags, one per flow) */
#define HF_CONNECTING 0x01 /* non-blocking connect in progress */
#define HF_WANT_OUT 0x02   /* EPOLLOUT armed for send space */
#define HF_TX_PENDING 0x04 /* on the tx pending list */
#define HF_RDHUP 0x08	   /* the peer's FIN arrived (fallback EOF test) */

bool sock_out_binds(const struct conf *c, const struct sockaddr_storage *dst);
int sock_bind_out(const struct conf *c, int fd,
		  const struct sockaddr_storage *dst);
int sock_out_check(const struct conf *c);
bool sock_tcp_peek_off_supported(void);
void sock_tcp_intent(struct shard *sh, const struct fx_intent *it);
void sock_tcp_event(struct shard *sh, uint32_t idx, uint32_t events);
void sock_tcp_tx_pending(struct shard *sh);
void sock_tcp_accepted(struct shard *sh, int fd, const void *sa,
		       uint16_t guest_port, const uint8_t *gaddr);
void sock_tcp_adopt(struct shard *sh, int fd, const struct tcp_handover *h);
void sock_tcp_migrated(struct shard *sh, struct tcp_flow *f, uint8_t hflags,
		       bool fresh);
uint8_t sock_tcp_leave(struct shard *sh, struct tcp_flow *f);

#endif /* SLIPWAY_SOCK_TCP_H */
