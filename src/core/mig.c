/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig.c - the live-migration state stream: encoding and checked decoding
 *
 * The layout is in mig.h. Each part of the stream (its header, a record's
 * header, each record's fixed part) is described once, as a list of the
 * struct members it carries in wire order (the MIG_*_FIELDS() lists), and
 * that one description both writes and reads it: w_fields() and
 * r_fields() go through it field by field with a cursor (struct mig_w,
 * struct mig_r), little-endian, so the stream does not depend on any
 * struct's layout or padding. A field's width on the wire is its member's
 * size; the static assertions below pin every part's length to the
 * numbers mig.h gives. Readers read each byte once, into the struct, and
 * check what they read there: framing and lengths, booleans 0 or 1, and
 * per record the ranges and descriptor indexes; each mig_get_*() returns
 * NULL or a reason the caller logs.
 */

#include <string.h>

#include "mig.h"
#include "../util/util.h"

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
 * enum mig_kind - how a field travels
 * @MIG_F_LE:	an unsigned number: its member's size in bytes, little-endian
 * @MIG_F_RAW:	bytes as they are (addresses, a MAC address, numbers kept
 *		in network order, the magic)
 * @MIG_F_BOOL:	one byte, 0 or 1 (a reader refuses any other value)
 */
enum mig_kind { MIG_F_LE, MIG_F_RAW, MIG_F_BOOL };

/**
 * struct mig_field - one field of a part of the stream
 * @off:	offset of its member in the struct
 * @len:	bytes, on the wire as in the member
 * @kind:	enum mig_kind
 */
struct mig_field {
	uint16_t off;
	uint8_t len;
	uint8_t kind;
};

/**
 * struct mig_layout - a part of the stream, field by field
 * @f:		its fields, in wire order
 * @n:		how many
 * @len:	their bytes on the wire
 */
struct mig_layout {
	const struct mig_field *f;
	uint8_t n;
	uint16_t len;
};

/**
 * struct mig_hdr - the stream's header (mig.h)
 * @magic:	MIG_MAGIC
 * @version:	MIG_VERSION
 * @body_len:	bytes of records that follow
 * @nfds:	descriptors sent beside the stream
 * @reserved:	0
 */
struct mig_hdr {
	uint8_t magic[8];
	uint32_t version;
	uint32_t body_len;
	uint32_t nfds;
	uint32_t reserved;
};

/**
 * struct mig_rec_hdr - a record's header (mig.h)
 * @type:	enum mig_rec_type
 * @shard:	the source's shard that held it
 * @reserved:	0
 * @len:	payload bytes that follow
 */
struct mig_rec_hdr {
	uint8_t type;
	uint8_t shard;
	uint16_t reserved;
	uint32_t len;
};

/* Each part's fields in wire order, as X(struct tag, member, kind): the
 * one description that mig_put_*() writes and mig_get_*() reads. The
 * records of variable length (out-of-order, repair) list their fixed part;
 * their payload bytes follow it.
 */
#define MIG_HDR_FIELDS(X)        \
	X(mig_hdr, magic, RAW)   \
	X(mig_hdr, version, LE)  \
	X(mig_hdr, body_len, LE) \
	X(mig_hdr, nfds, LE)     \
	X(mig_hdr, reserved, LE)

#define MIG_REC_HDR_FIELDS(X)        \
	X(mig_rec_hdr, type, LE)     \
	X(mig_rec_hdr, shard, LE)    \
	X(mig_rec_hdr, reserved, LE) \
	X(mig_rec_hdr, len, LE)

#define MIG_NET_FIELDS(X)          \
	X(mig_net, guest_mac, RAW) \
	X(mig_net, guest4_be, RAW) \
	X(mig_net, gw4_be, RAW)    \
	X(mig_net, guest6, RAW)    \
	X(mig_net, gw6, RAW)       \
	X(mig_net, mtu, LE)        \
	X(mig_net, stop_ns, LE)

#define MIG_TCP_FIELDS(X)                \
	X(mig_tcp, fd, LE)               \
	X(mig_tcp, hflags, LE)           \
	X(mig_tcp, guest_addr, RAW)      \
	X(mig_tcp, remote_addr, RAW)     \
	X(mig_tcp, guest_port, LE)       \
	X(mig_tcp, remote_port, LE)      \
	X(mig_tcp, state, LE)            \
	X(mig_tcp, ws_guest, LE)         \
	X(mig_tcp, flags, LE)            \
	X(mig_tcp, mss, LE)              \
	X(mig_tcp, iss, LE)              \
	X(mig_tcp, snd_una, LE)          \
	X(mig_tcp, snd_nxt, LE)          \
	X(mig_tcp, snd_max, LE)          \
	X(mig_tcp, fin_seq, LE)          \
	X(mig_tcp, rcv_nxt, LE)          \
	X(mig_tcp, rcv_acked, LE)        \
	X(mig_tcp, guest_wnd, LE)        \
	X(mig_tcp, host_space, LE)       \
	X(mig_tcp, adv_wnd_end, LE)      \
	X(mig_tcp, srtt_us, LE)          \
	X(mig_tcp, rto_ns, LE)           \
	X(mig_tcp, age_ns, LE)           \
	X(mig_tcp, bytes_from_guest, LE) \
	X(mig_tcp, bytes_to_guest, LE)

#define MIG_OOO_FIELDS(X)   \
	X(mig_ooo, seq, LE) \
	X(mig_ooo, fin, BOOL)

#define MIG_UDP_FIELDS(X)            \
	X(mig_udp, fd, LE)           \
	X(mig_udp, guest_addr, RAW)  \
	X(mig_udp, remote_addr, RAW) \
	X(mig_udp, guest_port, LE)   \
	X(mig_udp, remote_port, LE)  \
	X(mig_udp, idle_ns, LE)      \
	X(mig_udp, from_guest, LE)   \
	X(mig_udp, to_guest, LE)

#define MIG_LISTEN_FIELDS(X)  \
	X(mig_listen, fd, LE) \
	X(mig_listen, proto, LE)

#define MIG_END_FIELDS(X)   \
	X(mig_end, tcp, LE) \
	X(mig_end, ooo, LE) \
	X(mig_end, udp, LE) \
	X(mig_end, listeners, LE)

#define MIG_REPAIR_FIELDS(X)          \
	X(mig_repair, v6, BOOL)       \
	X(mig_repair, local, RAW)     \
	X(mig_repair, lport, LE)      \
	X(mig_repair, peer, RAW)      \
	X(mig_repair, pport, LE)      \
	X(mig_repair, snd_seq, LE)    \
	X(mig_repair, rcv_seq, LE)    \
	X(mig_repair, mss, LE)        \
	X(mig_repair, snd_wscale, LE) \
	X(mig_repair, rcv_wscale, LE) \
	X(mig_repair, flags, LE)      \
	X(mig_repair, ts, LE)         \
	X(mig_repair, snd_wl1, LE)    \
	X(mig_repair, snd_wnd, LE)    \
	X(mig_repair, max_window, LE) \
	X(mig_repair, rcv_wnd, LE)    \
	X(mig_repair, rcv_wup, LE)    \
	X(mig_repair, sndq_len, LE)   \
	X(mig_repair, rcvq_len, LE)

/* one field's row, and its bytes */
#define MIG_FIELD(T, m, k) \
	{ offsetof(struct T, m), sizeof(((struct T *)0)->m), MIG_F_##k },
#define MIG_FIELD_LEN(T, m, k) +sizeof(((struct T *)0)->m)
/* a part's layout from its list */
#define MIG_LAYOUT(name, LIST)                                               \
	static const struct mig_field name##_fields[] = { LIST(MIG_FIELD) }; \
	static const struct mig_layout name = { name##_fields,               \
						ARRAY_SIZE(name##_fields),   \
						0 LIST(MIG_FIELD_LEN) }

MIG_LAYOUT(mig_hdr_l, MIG_HDR_FIELDS);
MIG_LAYOUT(mig_rec_hdr_l, MIG_REC_HDR_FIELDS);
MIG_LAYOUT(mig_net_l, MIG_NET_FIELDS);
MIG_LAYOUT(mig_tcp_l, MIG_TCP_FIELDS);
MIG_LAYOUT(mig_ooo_l, MIG_OOO_FIELDS);
MIG_LAYOUT(mig_udp_l, MIG_UDP_FIELDS);
MIG_LAYOUT(mig_listen_l, MIG_LISTEN_FIELDS);
MIG_LAYOUT(mig_end_l, MIG_END_FIELDS);
MIG_LAYOUT(mig_repair_l, MIG_REPAIR_FIELDS);

/* the wire lengths mig.h gives: a member whose type changes the stream's
 * format is a compile error here, not a new format */
_Static_assert(0 MIG_HDR_FIELDS(MIG_FIELD_LEN) == MIG_HDR_LEN, "header");
_Static_assert(0 MIG_REC_HDR_FIELDS(MIG_FIELD_LEN) == MIG_REC_HDR, "rec hdr");
_Static_assert(0 MIG_NET_FIELDS(MIG_FIELD_LEN) == 6 + 4 + 4 + 16 + 16 + 4 + 8,
	       "network record");
_Static_assert(0 MIG_TCP_FIELDS(MIG_FIELD_LEN) == MIG_TCP_LEN - MIG_REC_HDR,
	       "TCP record");
_Static_assert(0 MIG_OOO_FIELDS(MIG_FIELD_LEN) == MIG_OOO_MAX(0) - MIG_REC_HDR,
	       "out-of-order record");
_Static_assert(0 MIG_UDP_FIELDS(MIG_FIELD_LEN) == MIG_UDP_LEN - MIG_REC_HDR,
	       "UDP record");
_Static_assert(0 MIG_LISTEN_FIELDS(MIG_FIELD_LEN) == 4 + 1, "listen record");
_Static_assert(0 MIG_END_FIELDS(MIG_FIELD_LEN) == 4 * 4, "end record");
_Static_assert(0 MIG_REPAIR_FIELDS(MIG_FIELD_LEN) == MIG_REPAIR_FIXED,
	       "repair record");
/* a number is 1, 2, 4 or 8 bytes, a boolean 1 (mig_load(), mig_store()) */
#define MIG_FIELD_CHECK(T, m, k)                                            \
	_Static_assert(MIG_F_##k == MIG_F_RAW ||                            \
			       (MIG_F_##k == MIG_F_BOOL ?                   \
					sizeof(((struct T *)0)->m) == 1 :   \
					(sizeof(((struct T *)0)->m) == 1 || \
					 sizeof(((struct T *)0)->m) == 2 || \
					 sizeof(((struct T *)0)->m) == 4 || \
					 sizeof(((struct T *)0)->m) == 8)), \
		       #T "." #m " has a width mig_load() does not know");
MIG_HDR_FIELDS(MIG_FIELD_CHECK)
MIG_REC_HDR_FIELDS(MIG_FIELD_CHECK)
MIG_NET_FIELDS(MIG_FIELD_CHECK)
MIG_TCP_FIELDS(MIG_FIELD_CHECK)
MIG_OOO_FIELDS(MIG_FIELD_CHECK)
MIG_UDP_FIELDS(MIG_FIELD_CHECK)
MIG_LISTEN_FIELDS(MIG_FIELD_CHECK)
MIG_END_FIELDS(MIG_FIELD_CHECK)
MIG_REPAIR_FIELDS(MIG_FIELD_CHECK)

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
 * mig_load() - an unsigned member's value
 * @m:		the member
 * @n:		its size: 1, 2, 4 or 8
 *
 * Return: the value
 */
static uint64_t mig_load(const uint8_t *m, unsigned n)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (n) {
	case 1:
		memcpy(&v8, m, 1);
		return v8;
	case 2:
		memcpy(&v16, m, 2);
		return v16;
	case 4:
		memcpy(&v32, m, 4);
		return v32;
	default:
		memcpy(&v64, m, 8);
		return v64;
	}
}

/**
 * mig_store() - set an unsigned member
 * @m:		the member
 * @n:		its size: 1, 2, 4 or 8
 * @v:		the value (fits in @n bytes)
 */
static void mig_store(uint8_t *m, unsigned n, uint64_t v)
{
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (n) {
	case 1:
		memcpy(m, &v8, 1);
		break;
	case 2:
		memcpy(m, &v16, 2);
		break;
	case 4:
		memcpy(m, &v32, 4);
		break;
	default:
		memcpy(m, &v, 8);
		break;
	}
}

/**
 * w_fields() - write a part of the stream from its struct
 * @w:		cursor
 * @l:		the part's layout
 * @s:		the struct it describes
 */
static void w_fields(struct mig_w *w, const struct mig_layout *l, const void *s)
{
	const struct mig_field *f;

	for (f = l->f; f < l->f + l->n; f++) {
		const uint8_t *m = (const uint8_t *)s + f->off;
		uint8_t b[8];
		uint64_t v;
		unsigned i;

		if (f->kind == MIG_F_RAW) {
			w_bytes(w, m, f->len);
			continue;
		}
		/* a bool's byte is 0 or 1 */
		v = f->kind == MIG_F_BOOL ? *(const bool *)m :
					    mig_load(m, f->len);
		for (i = 0; i < f->len; i++)
			b[i] = (uint8_t)(v >> (8 * i));
		w_bytes(w, b, f->len);
	}
}

/**
 * r_fields() - read a part of the stream into its struct, each byte once
 * @r:		cursor
 * @l:		the part's layout
 * @s:		out: the struct it describes
 *
 * Return: false if the part runs past the cursor's end (@r->bad set) or a
 * MIG_F_BOOL field is neither 0 nor 1; @s is partly written then
 */
static bool r_fields(struct mig_r *r, const struct mig_layout *l, void *s)
{
	const struct mig_field *f;
	bool ok = true;

	for (f = l->f; f < l->f + l->n; f++) {
		uint8_t *m = (uint8_t *)s + f->off;
		uint8_t b[8];
		uint64_t v = 0;
		unsigned i;

		if (f->kind == MIG_F_RAW) {
			r_bytes(r, m, f->len);
			continue;
		}
		r_bytes(r, b, f->len);
		for (i = 0; i < f->len; i++)
			v |= (uint64_t)b[i] << (8 * i);
		if (f->kind == MIG_F_BOOL) {
			ok = ok && v <= 1;
			*(bool *)m = v == 1;
		} else {
			mig_store(m, f->len, v);
		}
	}
	return ok && !r->bad;
}

/**
 * w_rec() - write a record's header and its fixed part
 * @w:		cursor
 * @type:	enum mig_rec_type
 * @shard:	shard
 * @l:		the layout of the record's fixed part
 * @s:		the struct it describes
 * @more:	payload bytes that follow the fixed part
 */
static void w_rec(struct mig_w *w, uint8_t type, uint8_t shard,
		  const struct mig_layout *l, const void *s, uint32_t more)
{
	struct mig_rec_hdr h = { type, shard, 0, l->len + more };

	w_fields(w, &mig_rec_hdr_l, &h);
	w_fields(w, l, s);
}

/**
 * r_rec() - read a record's fixed part, which is all of it
 * @r:		the record
 * @l:		the layout of its fixed part
 * @s:		out: the struct it describes
 *
 * Return: false if the record is not exactly the fixed part long, or a
 * field of it is refused (r_fields())
 */
static bool r_rec(const struct mig_rec *r, const struct mig_layout *l, void *s)
{
	struct mig_r c = { r->p, r->p + r->len, false };

	return r_fields(&c, l, s) && c.p == c.end;
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
 * mig_put() - a record that is its fixed part only
 * @out:	buffer
 * @room:	its size
 * @type:	enum mig_rec_type
 * @shard:	the shard holding it
 * @l:		the layout of its fixed part
 * @s:		the struct it describes
 *
 * Return: bytes written, 0 if @room is too small
 */
static size_t mig_put(uint8_t *out, size_t room, uint8_t type, uint8_t shard,
		      const struct mig_layout *l, const void *s)
{
	struct mig_w w = { out, out + room, false };

	w_rec(&w, type, shard, l, s, 0);
	return w_done(&w, out);
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
	struct mig_hdr h = { MIG_MAGIC, MIG_VERSION, body_len, nfds, 0 };

	w_fields(&w, &mig_hdr_l, &h);
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
	return mig_put(out, room, MIG_REC_NET, 0, &mig_net_l, n);
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
	return mig_put(out, room, MIG_REC_TCP, shard, &mig_tcp_l, t);
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
	w_rec(&w, MIG_REC_OOO, shard, &mig_ooo_l, o, o->len);
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
	return mig_put(out, room, MIG_REC_UDP, shard, &mig_udp_l, u);
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
	return mig_put(out, room, MIG_REC_LISTEN, 0, &mig_listen_l, l);
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
	return mig_put(out, room, MIG_REC_END, 0, &mig_end_l, e);
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
	w_rec(&w, MIG_REC_REPAIR, shard, &mig_repair_l, r,
	      (uint32_t)(len - MIG_REPAIR_FIXED));
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
	struct mig_hdr h;

	r_fields(&r, &mig_hdr_l, &h);
	if (memcmp(h.magic, MIG_MAGIC, 8))
		return "not a slipway migration stream";
	*body_len = h.body_len;
	*nfds = h.nfds;
	if (h.reserved || r.bad)
		return "a reserved header field is set";
	if (h.version != MIG_VERSION)
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
	struct mig_rec_hdr h;

	if (*p == end)
		return 0;
	if (!r_fields(&c, &mig_rec_hdr_l, &h) || h.reserved ||
	    (size_t)(end - c.p) < h.len)
		return -1;
	r->type = h.type;
	r->shard = h.shard;
	r->len = h.len;
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
	return r_rec(r, &mig_net_l, n) ? NULL :
					 "a network record of the wrong size";
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
	if (!r_rec(r, &mig_tcp_l, t))
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

	if (!r_fields(&c, &mig_ooo_l, o))
		return "a malformed out-of-order record";
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
	if (!r_rec(r, &mig_udp_l, u))
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
	if (!r_rec(r, &mig_listen_l, l))
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

	if (!r_fields(&c, &mig_repair_l, rp) ||
	    (uint64_t)rp->sndq_len + rp->rcvq_len != (size_t)(c.end - c.p))
		return "a repair record of the wrong size";
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
	return r_rec(r, &mig_end_l, e) ? NULL :
					 "an end record of the wrong size";
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
