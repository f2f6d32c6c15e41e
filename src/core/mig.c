/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig.c - the live-migration state stream: encoding and checked decoding
 *
 * The layout is in mig.h. Writers and readers go field by field through a
 * cursor (struct mig_w, struct mig_r), little-endian, so the stream does
 * not depend on any struct's layout or padding. Readers check framing and
 * lengths; each mig_get_*() returns NULL or a reason the caller logs.
 */

#include <string.h>

#include "mig.h"

/**
 * struct mig_w - a write cursor
 * @p:		next byte
 * @end:	one past the last byte we may write
 * @bad:	a write did not fit
 */
struct mig_w {
	uint8_t *p;
	uint8_t *end;
	bool bad;
};

/**
 * struct mig_r - a read cursor
 * @p:		next byte
 * @end:	one past the last byte
 * @bad:	a read went past @end
 */
struct mig_r {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

/**
 * w_bytes() - write bytes
 * @w:		cursor
 * @b:		bytes
 * @n:		how many
 */
static void w_bytes(struct mig_w *w, const void *b, size_t n)
{
	if (w->bad || (size_t)(w->end - w->p) < n) {
		w->bad = true;
		return;
	}
	memcpy(w->p, b, n);
	w->p += n;
}

/**
 * w_le() - write a number, little-endian
 * @w:		cursor
 * @v:		value
 * @n:		bytes (1 to 8)
 */
static void w_le(struct mig_w *w, uint64_t v, unsigned n)
{
	uint8_t b[8];
	unsigned i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	w_bytes(w, b, n);
}

/**
 * r_bytes() - read bytes
 * @r:		cursor
 * @b:		out
 * @n:		how many
 */
static void r_bytes(struct mig_r *r, void *b, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(b, 0, n);
		return;
	}
	memcpy(b, r->p, n);
	r->p += n;
}

/**
 * r_le() - read a little-endian number
 * @r:		cursor
 * @n:		bytes (1 to 8)
 *
 * Return: the value (0 past the end, with @r->bad set)
 */
static uint64_t r_le(struct mig_r *r, unsigned n)
{
	uint8_t b[8];
	uint64_t v = 0;
	unsigned i;

	r_bytes(r, b, n);
	for (i = 0; i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/**
 * w_rec() - begin a record
 * @w:		cursor
 * @type:	enum mig_rec_type
 * @shard:	shard
 * @len:	payload bytes that follow
 */
static void w_rec(struct mig_w *w, uint8_t type, uint8_t shard, uint32_t len)
{
	w_le(w, type, 1);
	w_le(w, shard, 1);
	w_le(w, 0, 2);
	w_le(w, len, 4);
}

/**
 * w_done() - how a writer ended
 * @w:		cursor
 * @out:	where writing began
 *
 * Return: bytes written, or 0 if they did not fit
 */
static size_t w_done(const struct mig_w *w, const uint8_t *out)
{
	return w->bad ? 0 : (size_t)(w->p - out);
}

/**
 * mig_put_hdr() - the stream's header
 * @out:	buffer
 * @room:	its size
 * @body_len:	bytes of records that follow
 * @nfds:	descriptors sent beside the stream
 *
 * Return: MIG_HDR_LEN, or 0 if @room is too small
 */
size_t mig_put_hdr(uint8_t *out, size_t room, uint32_t body_len, uint32_t nfds)
{
	struct mig_w w = { out, out + room, false };

	w_bytes(&w, MIG_MAGIC, 8);
	w_le(&w, MIG_VERSION, 4);
	w_le(&w, body_len, 4);
	w_le(&w, nfds, 4);
	w_le(&w, 0, 4);
	return w_done(&w, out);
}

/**
 * mig_put_net() - the network record
 * @out:	buffer
 * @room:	its size
 * @n:		what to write
 *
 * Return: bytes written, 0 if @room is too small
 */
size_t mig_put_net(uint8_t *out, size_t room, const struct mig_net *n)
{
	struct mig_w w = { out, out + room, false };

	w_rec(&w, MIG_REC_NET, 0, 6 + 4 + 4 + 16 + 16 + 4 + 8);
	w_bytes(&w, n->guest_mac, 6);
	w_bytes(&w, &n->guest4_be, 4);
	w_bytes(&w, &n->gw4_be, 4);
	w_bytes(&w, n->guest6, 16);
	w_bytes(&w, n->gw6, 16);
	w_le(&w, n->mtu, 4);
	w_le(&w, n->stop_ns, 8);
	return w_done(&w, out);
}

/**
 * mig_put_tcp() - a TCP flow's record
 * @out:	buffer
 * @room:	its size
 * @shard:	the shard holding it
 * @t:		the flow
 *
 * Return: bytes written (MIG_TCP_LEN), 0 if @room is too small
 */
size_t mig_put_tcp(uint8_t *out, size_t room, uint8_t shard,
		   const struct mig_tcp *t)
{
	struct mig_w w = { out, out + room, false };

	w_rec(&w, MIG_REC_TCP, shard, MIG_TCP_LEN - MIG_REC_HDR);
	w_le(&w, t->fd, 4);
	w_le(&w, t->hflags, 1);
	w_bytes(&w, t->guest_addr, 16);
	w_bytes(&w, t->remote_addr, 16);
	w_le(&w, t->guest_port, 2);
	w_le(&w, t->remote_port, 2);
	w_le(&w, t->state, 1);
	w_le(&w, t->ws_guest, 1);
	w_le(&w, t->flags, 2);
	w_le(&w, t->mss, 4);
	w_le(&w, t->iss, 4);
	w_le(&w, t->snd_una, 4);
	w_le(&w, t->snd_nxt, 4);
	w_le(&w, t->snd_max, 4);
	w_le(&w, t->fin_seq, 4);
	w_le(&w, t->rcv_nxt, 4);
	w_le(&w, t->rcv_acked, 4);
	w_le(&w, t->guest_wnd, 4);
	w_le(&w, t->host_space, 4);
	w_le(&w, t->adv_wnd_end, 4);
	w_le(&w, t->srtt_us, 4);
	w_le(&w, t->rto_ns, 8);
	w_le(&w, t->age_ns, 8);
	w_le(&w, t->bytes_from_guest, 8);
	w_le(&w, t->bytes_to_guest, 8);
	return w_done(&w, out);
}

/**
 * mig_put_ooo() - a held segment's record (after its flow's)
 * @out:	buffer
 * @room:	its size
 * @shard:	the shard holding it
 * @o:		the segment
 *
 * Return: bytes written, 0 if @room is too small or the segment too long
 */
size_t mig_put_ooo(uint8_t *out, size_t room, uint8_t shard,
		   const struct mig_ooo *o)
{
	struct mig_w w = { out, out + room, false };

	if (o->len > MIG_OOO_DATA_MAX)
		return 0;
	w_rec(&w, MIG_REC_OOO, shard, 5 + o->len);
	w_le(&w, o->seq, 4);
	w_le(&w, o->fin, 1);
	w_bytes(&w, o->data, o->len);
	return w_done(&w, out);
}

/**
 * mig_put_udp() - a datagram flow's record
 * @out:	buffer
 * @room:	its size
 * @shard:	the shard holding it
 * @u:		the flow
 *
 * Return: bytes written (MIG_UDP_LEN), 0 if @room is too small
 */
size_t mig_put_udp(uint8_t *out, size_t room, uint8_t shard,
		   const struct mig_udp *u)
{
	struct mig_w w = { out, out + room, false };

	w_rec(&w, MIG_REC_UDP, shard, MIG_UDP_LEN - MIG_REC_HDR);
	w_le(&w, u->fd, 4);
	w_bytes(&w, u->guest_addr, 16);
	w_bytes(&w, u->remote_addr, 16);
	w_le(&w, u->guest_port, 2);
	w_le(&w, u->remote_port, 2);
	w_le(&w, u->idle_ns, 8);
	w_le(&w, u->from_guest, 8);
	w_le(&w, u->to_guest, 8);
	return w_done(&w, out);
}

/**
 * mig_put_listen() - a listening socket's record
 * @out:	buffer
 * @room:	its size
 * @l:		the socket
 *
 * Return: bytes written, 0 if @room is too small
 */
size_t mig_put_listen(uint8_t *out, size_t room, const struct mig_listen *l)
{
	struct mig_w w = { out, out + room, false };

	w_rec(&w, MIG_REC_LISTEN, 0, 5);
	w_le(&w, l->fd, 4);
	w_le(&w, l->proto, 1);
	return w_done(&w, out);
}

/**
 * mig_put_end() - the last record
 * @out:	buffer
 * @room:	its size
 * @e:		counts of the records before
 *
 * Return: bytes written, 0 if @room is too small
 */
size_t mig_put_end(uint8_t *out, size_t room, const struct mig_end *e)
{
	struct mig_w w = { out, out + room, false };

	w_rec(&w, MIG_REC_END, 0, 16);
	w_le(&w, e->tcp, 4);
	w_le(&w, e->ooo, 4);
	w_le(&w, e->udp, 4);
	w_le(&w, e->listeners, 4);
	return w_done(&w, out);
}

/**
 * mig_put_repair() - a socket's repair state (after its TCP record)
 * @out:	buffer
 * @room:	its size
 * @shard:	the shard holding its flow
 * @r:		the state, queues included
 *
 * Return: bytes written, 0 if @room is too small
 */
size_t mig_put_repair(uint8_t *out, size_t room, uint8_t shard,
		      const struct mig_repair *r)
{
	struct mig_w w = { out, out + room, false };
	uint64_t len = (uint64_t)MIG_REPAIR_FIXED + r->sndq_len + r->rcvq_len;

	if (len > UINT32_MAX)
		return 0;
	w_rec(&w, MIG_REC_REPAIR, shard, (uint32_t)len);
	w_le(&w, r->v6, 1);
	w_bytes(&w, r->local, 16);
	w_le(&w, r->lport, 2);
	w_bytes(&w, r->peer, 16);
	w_le(&w, r->pport, 2);
	w_le(&w, r->snd_seq, 4);
	w_le(&w, r->rcv_seq, 4);
	w_le(&w, r->mss, 2);
	w_le(&w, r->snd_wscale, 1);
	w_le(&w, r->rcv_wscale, 1);
	w_le(&w, r->flags, 1);
	w_le(&w, r->ts, 4);
	w_le(&w, r->snd_wl1, 4);
	w_le(&w, r->snd_wnd, 4);
	w_le(&w, r->max_window, 4);
	w_le(&w, r->rcv_wnd, 4);
	w_le(&w, r->rcv_wup, 4);
	w_le(&w, r->sndq_len, 4);
	w_le(&w, r->rcvq_len, 4);
	w_bytes(&w, r->sndq, r->sndq_len);
	w_bytes(&w, r->rcvq, r->rcvq_len);
	return w_done(&w, out);
}

/**
 * mig_parse_hdr() - check a stream's header
 * @p:		its bytes
 * @len:	how many there are (at least MIG_HDR_LEN)
 * @body_len:	out: bytes of records that follow
 * @nfds:	out: descriptors that come with them
 *
 * Return: NULL, or why the stream is refused
 */
const char *mig_parse_hdr(const uint8_t *p, size_t len, uint32_t *body_len,
			  uint32_t *nfds)
{
	struct mig_r r = { p, p + len, false };
	uint8_t magic[8];
	uint32_t ver;

	r_bytes(&r, magic, 8);
	if (r.bad || memcmp(magic, MIG_MAGIC, 8))
		return "not a slipway migration stream";
	ver = (uint32_t)r_le(&r, 4);
	*body_len = (uint32_t)r_le(&r, 4);
	*nfds = (uint32_t)r_le(&r, 4);
	if (r_le(&r, 4) || r.bad)
		return "a reserved header field is set";
	if (ver != MIG_VERSION)
		return "a state format version this slipway does not know "
		       "(the source is newer: update the destination)";
	if (*body_len > MIG_BODY_MAX)
		return "the state is larger than a destination takes";
	if (*nfds > MIG_FDS_MAX)
		return "more descriptors than a destination takes";
	return NULL;
}

/**
 * mig_next() - the next record
 * @p:		cursor, moved past the record
 * @end:	end of the body
 * @r:		out: the record
 *
 * Return: 1 with @r set, 0 at the end of the body, -1 if a record runs
 * past it or its reserved field is set
 */
int mig_next(const uint8_t **p, const uint8_t *end, struct mig_rec *r)
{
	struct mig_r c = { *p, end, false };

	if (*p == end)
		return 0;
	r->type = (uint8_t)r_le(&c, 1);
	r->shard = (uint8_t)r_le(&c, 1);
	if (r_le(&c, 2))
		return -1;
	r->len = (uint32_t)r_le(&c, 4);
	if (c.bad || (size_t)(end - c.p) < r->len)
		return -1;
	r->p = c.p;
	*p = c.p + r->len;
	return 1;
}

/**
 * mig_get_net() - decode a network record
 * @r:		the record
 * @n:		out
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_net(const struct mig_rec *r, struct mig_net *n)
{
	struct mig_r c = { r->p, r->p + r->len, false };

	r_bytes(&c, n->guest_mac, 6);
	r_bytes(&c, &n->guest4_be, 4);
	r_bytes(&c, &n->gw4_be, 4);
	r_bytes(&c, n->guest6, 16);
	r_bytes(&c, n->gw6, 16);
	n->mtu = (uint32_t)r_le(&c, 4);
	n->stop_ns = r_le(&c, 8);
	return c.bad || c.p != c.end ? "a network record of the wrong size" :
				       NULL;
}

/**
 * mig_get_fd() - check a descriptor index
 * @fd:		index
 * @nfds:	descriptors in the stream
 *
 * Return: true if it names one of them
 */
static bool mig_get_fd(uint32_t fd, uint32_t nfds)
{
	return fd < nfds;
}

/**
 * mig_get_tcp() - decode a TCP flow's record (ranges of its state are
 * tcp_import()'s to check)
 * @r:		the record
 * @nfds:	descriptors in the stream
 * @t:		out
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_tcp(const struct mig_rec *r, uint32_t nfds,
			struct mig_tcp *t)
{
	struct mig_r c = { r->p, r->p + r->len, false };

	t->fd = (uint32_t)r_le(&c, 4);
	t->hflags = (uint8_t)r_le(&c, 1);
	r_bytes(&c, t->guest_addr, 16);
	r_bytes(&c, t->remote_addr, 16);
	t->guest_port = (uint16_t)r_le(&c, 2);
	t->remote_port = (uint16_t)r_le(&c, 2);
	t->state = (uint8_t)r_le(&c, 1);
	t->ws_guest = (uint8_t)r_le(&c, 1);
	t->flags = (uint16_t)r_le(&c, 2);
	t->mss = (uint32_t)r_le(&c, 4);
	t->iss = (uint32_t)r_le(&c, 4);
	t->snd_una = (uint32_t)r_le(&c, 4);
	t->snd_nxt = (uint32_t)r_le(&c, 4);
	t->snd_max = (uint32_t)r_le(&c, 4);
	t->fin_seq = (uint32_t)r_le(&c, 4);
	t->rcv_nxt = (uint32_t)r_le(&c, 4);
	t->rcv_acked = (uint32_t)r_le(&c, 4);
	t->guest_wnd = (uint32_t)r_le(&c, 4);
	t->host_space = (uint32_t)r_le(&c, 4);
	t->adv_wnd_end = (uint32_t)r_le(&c, 4);
	t->srtt_us = (uint32_t)r_le(&c, 4);
	t->rto_ns = r_le(&c, 8);
	t->age_ns = r_le(&c, 8);
	t->bytes_from_guest = r_le(&c, 8);
	t->bytes_to_guest = r_le(&c, 8);
	if (c.bad || c.p != c.end)
		return "a TCP record of the wrong size";
	if (t->fd != MIG_NONE && !mig_get_fd(t->fd, nfds))
		return "a TCP record names a descriptor that did not come";
	return NULL;
}

/**
 * mig_get_ooo() - decode a held segment's record
 * @r:		the record
 * @o:		out (@o->data points into the record)
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_ooo(const struct mig_rec *r, struct mig_ooo *o)
{
	struct mig_r c = { r->p, r->p + r->len, false };
	uint8_t fin;

	o->seq = (uint32_t)r_le(&c, 4);
	fin = (uint8_t)r_le(&c, 1);
	if (c.bad || fin > 1)
		return "a malformed out-of-order record";
	o->fin = fin;
	o->len = (uint32_t)(c.end - c.p);
	o->data = c.p;
	if (!o->len || o->len > MIG_OOO_DATA_MAX)
		return "an out-of-order record of the wrong size";
	return NULL;
}

/**
 * mig_get_udp() - decode a datagram flow's record
 * @r:		the record
 * @nfds:	descriptors in the stream
 * @u:		out
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_udp(const struct mig_rec *r, uint32_t nfds,
			struct mig_udp *u)
{
	struct mig_r c = { r->p, r->p + r->len, false };

	u->fd = (uint32_t)r_le(&c, 4);
	r_bytes(&c, u->guest_addr, 16);
	r_bytes(&c, u->remote_addr, 16);
	u->guest_port = (uint16_t)r_le(&c, 2);
	u->remote_port = (uint16_t)r_le(&c, 2);
	u->idle_ns = r_le(&c, 8);
	u->from_guest = r_le(&c, 8);
	u->to_guest = r_le(&c, 8);
	if (c.bad || c.p != c.end)
		return "a UDP record of the wrong size";
	if (!mig_get_fd(u->fd, nfds))
		return "a UDP record names a descriptor that did not come";
	return NULL;
}

/**
 * mig_get_listen() - decode a listening socket's record
 * @r:		the record
 * @nfds:	descriptors in the stream
 * @l:		out
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_listen(const struct mig_rec *r, uint32_t nfds,
			   struct mig_listen *l)
{
	struct mig_r c = { r->p, r->p + r->len, false };

	l->fd = (uint32_t)r_le(&c, 4);
	l->proto = (uint8_t)r_le(&c, 1);
	if (c.bad || c.p != c.end)
		return "a listener record of the wrong size";
	if (l->proto != 6 && l->proto != 17)
		return "a listener of an unknown protocol";
	if (!mig_get_fd(l->fd, nfds))
		return "a listener record names a descriptor that did not come";
	return NULL;
}

/**
 * mig_get_repair() - decode a socket's repair state
 * @r:		the record
 * @rp:		out (@rp->sndq and @rp->rcvq point into the record)
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_repair(const struct mig_rec *r, struct mig_repair *rp)
{
	struct mig_r c = { r->p, r->p + r->len, false };
	uint8_t v6;

	v6 = (uint8_t)r_le(&c, 1);
	r_bytes(&c, rp->local, 16);
	rp->lport = (uint16_t)r_le(&c, 2);
	r_bytes(&c, rp->peer, 16);
	rp->pport = (uint16_t)r_le(&c, 2);
	rp->snd_seq = (uint32_t)r_le(&c, 4);
	rp->rcv_seq = (uint32_t)r_le(&c, 4);
	rp->mss = (uint16_t)r_le(&c, 2);
	rp->snd_wscale = (uint8_t)r_le(&c, 1);
	rp->rcv_wscale = (uint8_t)r_le(&c, 1);
	rp->flags = (uint8_t)r_le(&c, 1);
	rp->ts = (uint32_t)r_le(&c, 4);
	rp->snd_wl1 = (uint32_t)r_le(&c, 4);
	rp->snd_wnd = (uint32_t)r_le(&c, 4);
	rp->max_window = (uint32_t)r_le(&c, 4);
	rp->rcv_wnd = (uint32_t)r_le(&c, 4);
	rp->rcv_wup = (uint32_t)r_le(&c, 4);
	rp->sndq_len = (uint32_t)r_le(&c, 4);
	rp->rcvq_len = (uint32_t)r_le(&c, 4);
	if (c.bad || v6 > 1 ||
	    (uint64_t)rp->sndq_len + rp->rcvq_len != (size_t)(c.end - c.p))
		return "a repair record of the wrong size";
	rp->v6 = v6;
	rp->sndq = c.p;
	rp->rcvq = c.p + rp->sndq_len;
	if (!rp->lport || !rp->pport || rp->mss < 64 || rp->snd_wscale > 14 ||
	    rp->rcv_wscale > 14 || (rp->flags & ~7))
		return "a repair record with values out of range";
	return NULL;
}

/**
 * mig_get_end() - decode the last record
 * @r:		the record
 * @e:		out
 *
 * Return: NULL, or why it is refused
 */
const char *mig_get_end(const struct mig_rec *r, struct mig_end *e)
{
	struct mig_r c = { r->p, r->p + r->len, false };

	e->tcp = (uint32_t)r_le(&c, 4);
	e->ooo = (uint32_t)r_le(&c, 4);
	e->udp = (uint32_t)r_le(&c, 4);
	e->listeners = (uint32_t)r_le(&c, 4);
	return c.bad || c.p != c.end ? "an end record of the wrong size" : NULL;
}

/**
 * mig_check() - check a whole body before anything of it is used: every
 * record well-formed, one network record first, an out-of-order record
 * only after a TCP one, descriptors named in the order they came (the
 * n-th record with a socket names descriptor n: each exactly once), and
 * an end record last whose counts match
 * @body:	the records
 * @len:	their bytes
 * @nfds:	descriptors that came with them
 * @counts:	out: the counts
 *
 * Return: NULL, or why the stream is refused
 */
const char *mig_check(const uint8_t *body, size_t len, uint32_t nfds,
		      struct mig_end *counts)
{
	const uint8_t *p = body, *end = body + len;
	struct mig_end seen = { 0 }, said;
	bool net = false, after_tcp = false, ended = false, want_rp = false;
	uint32_t fds_named = 0;
	struct mig_rec r;
	const char *why;
	int ret;

	while ((ret = mig_next(&p, end, &r)) > 0) {
		union {
			struct mig_net n;
			struct mig_tcp t;
			struct mig_ooo o;
			struct mig_udp u;
			struct mig_listen l;
		} v;

		if (ended)
			return "records after the end record";
		if (want_rp != (r.type == MIG_REC_REPAIR))
			return want_rp ?
				       "a TCP record with neither a descriptor "
				       "nor its repair state" :
				       "a repair record with no flow";
		want_rp = false;
		if (!net && r.type != MIG_REC_NET)
			return "the network record is not first";
		switch (r.type) {
		case MIG_REC_NET:
			if (net)
				return "two network records";
			net = true;
			why = mig_get_net(&r, &v.n);
			break;
		case MIG_REC_TCP:
			why = mig_get_tcp(&r, nfds, &v.t);
			if (!why && v.t.fd == MIG_NONE) {
				want_rp = true; /* its socket is state */
			} else if (!why) {
				if (v.t.fd != fds_named)
					why = "descriptors named out of order";
				fds_named++;
			}
			seen.tcp++;
			after_tcp = true;
			break;
		case MIG_REC_REPAIR: {
			struct mig_repair rp;

			why = mig_get_repair(&r, &rp);
			break;
		}
		case MIG_REC_OOO:
			why = after_tcp ? mig_get_ooo(&r, &v.o) :
					  "an out-of-order record with no flow";
			seen.ooo++;
			break;
		case MIG_REC_UDP:
			why = mig_get_udp(&r, nfds, &v.u);
			if (!why && v.u.fd != fds_named)
				why = "descriptors named out of order";
			seen.udp++;
			fds_named++;
			after_tcp = false;
			break;
		case MIG_REC_LISTEN:
			why = mig_get_listen(&r, nfds, &v.l);
			if (!why && v.l.fd != fds_named)
				why = "descriptors named out of order";
			seen.listeners++;
			fds_named++;
			after_tcp = false;
			break;
		case MIG_REC_END:
			why = mig_get_end(&r, &said);
			ended = true;
			break;
		default:
			return "a record of an unknown type";
		}
		if (why)
			return why;
	}
	if (ret < 0)
		return "a record runs past the end of the stream";
	if (!ended)
		return "the stream ends without its end record";
	if (memcmp(&seen, &said, sizeof(seen)))
		return "the end record's counts do not match the records";
	if (fds_named != nfds)
		return "descriptors that no record names";
	*counts = seen;
	return NULL;
}
