/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dns.c - DNS message parser and validator (RFC 1035), for the forwarder
 *
 * DOC: Theory of Operation
 *
 * What is parsed
 * --------------
 *
 * The forwarder (svc/dns_fwd.c) relays the guest's queries verbatim, but
 * it must know enough about each message to refuse junk, to match a reply
 * to the query it answers, and to make up an answer (SERVFAIL, FORMERR,
 * NOTIMP, or an empty truncated reply) when no upstream gives one. This
 * file parses the header and the one question, reads names with their
 * compression pointers followed, and can walk the resource records to
 * check that they are well formed. It copies nothing out of a message but
 * the question name, and keeps no state.
 *
 * Reading names
 * -------------
 *
 * Names are read defensively, since both the guest and the network are
 * untrusted:
 * - every byte is read only after a bounds check against the message;
 * - a label length byte with either high bit set (0x40 extended labels,
 *   0x80 reserved) is refused; the two high bits set is a pointer;
 * - a pointer must point strictly before the place where the current run
 *   of labels started (the name itself, then each pointer's target), and
 *   not into the header. So every jump goes strictly backwards past all
 *   bytes already read in this name, which rules out loops (to itself,
 *   forward, or in a cycle) by construction; real compressors only point
 *   back at names written earlier, so nothing valid is refused;
 * - at most DNS_PTR_HOPS_MAX jumps are followed (the most a name of 127
 *   labels, each reached by its own pointer, can need), and the expanded
 *   name may not exceed DNS_NAME_MAX bytes.
 * Work per name is thus bounded by 255 label bytes plus 127 jumps,
 * whatever the input.
 *
 * Leniency
 * --------
 *
 * Leniency, as real resolvers do: a query may carry answer, authority and
 * additional records (EDNS(0) OPT, cookies), bytes after the last record
 * are ignored, and records are not checked at all unless the caller asks
 * (dns_check_records()). What is refused: a query with QR set (a reply
 * sent back at us, or a reflection attempt), an opcode other than QUERY
 * (NOTIFY, UPDATE, obsolete IQUERY: the caller answers NOTIMP), and a
 * question count other than one (RFC 9619; the caller answers FORMERR).
 */

#include "../util/util.h"
#include "dns.h"

static const char *const dns_err_names[] = {
	[DNS_OK] = "ok",
	[DNS_ERR_SHORT] = "shorter than a header",
	[DNS_ERR_QR] = "QR bit wrong for the direction",
	[DNS_ERR_OPCODE] = "opcode not QUERY",
	[DNS_ERR_QDCOUNT] = "question count not 1",
	[DNS_ERR_NAME] = "malformed name",
	[DNS_ERR_TRUNC] = "truncated question or record",
};
_Static_assert(ARRAY_SIZE(dns_err_names) == DNS_ERR_NUM, "dns_err_names");

/**
 * dns_err_str() - text for a parse result, for logs
 * @e:	result
 *
 * Return: static string
 */
const char *dns_err_str(enum dns_err e)
{
	if ((unsigned)e >= DNS_ERR_NUM)
		return "?";
	return dns_err_names[e];
}

/**
 * dns_name_parse() - read a name, following compression pointers
 * @m:		message
 * @len:	message length
 * @off:	offset of the name (at or after the header)
 * @out:	expanded name in wire form (DNS_NAME_MAX bytes), or NULL to
 *		only check and skip the name
 * @out_len:	bytes written to @out, or that would be (may be NULL)
 * @next:	offset just past the name where it sits in the message (after
 *		its first pointer, if it has one)
 *
 * Context: pure; @m is a loan, read only.
 * Return: DNS_OK, or DNS_ERR_NAME (@out, @out_len and @next then undefined)
 */
enum dns_err dns_name_parse(const uint8_t *m, size_t len, size_t off,
			    uint8_t out[DNS_NAME_MAX], size_t *out_len,
			    size_t *next)
{
	size_t pos = off, floor = off, olen = 0;
	unsigned hops = 0;
	bool jumped = false;

	for (;;) {
		size_t l;

		if (pos >= len)
			return DNS_ERR_NAME;
		l = m[pos];
		if ((l & 0xc0) == 0xc0) {
			size_t ptr;

			if (pos + 1 >= len)
				return DNS_ERR_NAME;
			ptr = ((l & 0x3f) << 8) | m[pos + 1];
			if (!jumped) {
				*next = pos + 2;
				jumped = true;
			}
			/* strictly back past all we read: no loops */
			if (ptr < DNS_HLEN || ptr >= floor ||
			    ++hops > DNS_PTR_HOPS_MAX)
				return DNS_ERR_NAME;
			pos = floor = ptr;
			continue;
		}
		if (l & 0xc0) /* 0x40 extended label, 0x80 reserved */
			return DNS_ERR_NAME;
		if (olen + 1 + l > DNS_NAME_MAX || l + 1 > len - pos)
			return DNS_ERR_NAME;
		if (out) {
			out[olen] = (uint8_t)l;
			memcpy(out + olen + 1, m + pos + 1, l);
		}
		olen += 1 + l;
		pos += 1 + l;
		if (!l)
			break;
	}
	if (!jumped)
		*next = pos;
	if (out_len)
		*out_len = olen;
	return DNS_OK;
}

/**
 * dns_parse() - parse the header and the single question
 * @m:		message
 * @len:	its length
 * @reply:	expect a response (QR set) rather than a query
 * @d:		parsed fields out (see struct dns_msg for which are valid)
 *
 * Return: DNS_OK or the first check that failed, in enum dns_err order
 */
static enum dns_err dns_parse(const uint8_t *m, size_t len, bool reply,
			      struct dns_msg *d)
{
	enum dns_err r;
	size_t pos;

	d->qname_len = 0;
	d->qname_off = 0;
	d->qend = 0;
	d->qtype = d->qclass = 0;
	if (len < DNS_HLEN)
		return DNS_ERR_SHORT;
	d->id = rd16(m);
	d->flags = rd16(m + 2);
	d->qdcount = rd16(m + 4);
	d->ancount = rd16(m + 6);
	d->nscount = rd16(m + 8);
	d->arcount = rd16(m + 10);
	if (!!(d->flags & DNS_F_QR) != reply)
		return DNS_ERR_QR;
	if (dns_opcode(d) != DNS_OPCODE_QUERY)
		return DNS_ERR_OPCODE;
	if (d->qdcount != 1)
		return DNS_ERR_QDCOUNT;
	r = dns_name_parse(m, len, DNS_HLEN, d->qname, &d->qname_len, &pos);
	if (r != DNS_OK) {
		d->qname_len = 0;
		return r;
	}
	if (len - pos < 4) {
		d->qname_len = 0;
		return DNS_ERR_TRUNC;
	}
	d->qtype = rd16(m + pos);
	d->qclass = rd16(m + pos + 2);
	d->qname_off = DNS_HLEN;
	d->qend = pos + 4;
	return DNS_OK;
}

/**
 * dns_parse_query() - parse and validate a query from the guest
 * @m:	message (a loan, read only)
 * @len:	its length
 * @d:	parsed fields out
 *
 * Return: DNS_OK; DNS_ERR_OPCODE or DNS_ERR_QDCOUNT with the header in @d
 *	   (worth an error answer); any other enum dns_err (drop)
 */
enum dns_err dns_parse_query(const uint8_t *m, size_t len, struct dns_msg *d)
{
	return dns_parse(m, len, false, d);
}

/**
 * dns_parse_reply() - parse a response's header and question
 * @m:	message (a loan, read only)
 * @len:	its length
 * @d:	parsed fields out
 *
 * A response with no question (some servers answer errors that way) gives
 * DNS_ERR_QDCOUNT with the header fields, ID and rcode, valid in @d.
 *
 * Return: DNS_OK or the enum dns_err of the first failed check
 */
enum dns_err dns_parse_reply(const uint8_t *m, size_t len, struct dns_msg *d)
{
	return dns_parse(m, len, true, d);
}

/**
 * dns_rdata_names() - check the names inside RDATA of the RFC 1035 types
 * @m:		message
 * @len:	message length
 * @type:	record type
 * @pos:	offset of the RDATA
 * @end:	offset just past the RDATA
 *
 * Only the types whose RDATA may be compressed (RFC 3597 section 4) are
 * looked into: NS, CNAME, PTR (one name), MX (preference, name), SOA (two
 * names, five 32-bit numbers). Each name must end inside the RDATA.
 *
 * Return: DNS_OK, DNS_ERR_NAME or DNS_ERR_TRUNC
 */
static enum dns_err dns_rdata_names(const uint8_t *m, size_t len, uint16_t type,
				    size_t pos, size_t end)
{
	unsigned names = 1, i;
	size_t fixed = 0;

	switch (type) {
	case 2:	 /* NS */
	case 5:	 /* CNAME */
	case 12: /* PTR */
		break;
	case 15: /* MX */
		if (end - pos < 2)
			return DNS_ERR_TRUNC;
		pos += 2;
		break;
	case 6: /* SOA */
		names = 2;
		fixed = 20;
		break;
	default:
		return DNS_OK;
	}
	for (i = 0; i < names; i++) {
		if (dns_name_parse(m, len, pos, NULL, NULL, &pos) != DNS_OK)
			return DNS_ERR_NAME;
		if (pos > end)
			return DNS_ERR_TRUNC;
	}
	return end - pos == fixed ? DNS_OK : DNS_ERR_TRUNC;
}

/**
 * dns_check_records() - walk the answer, authority and additional records
 * @m:	message (a loan, read only)
 * @len:	its length
 * @d:	the message's header and question, from a DNS_OK parse
 *
 * Checks each record's owner name, its fixed fields and that its RDATA
 * fits, and the names inside RDATA of NS, CNAME, PTR, MX and SOA. Bytes
 * after the last record are allowed. Work is bounded by @len: each record
 * takes at least 11 bytes.
 *
 * Return: DNS_OK, DNS_ERR_NAME or DNS_ERR_TRUNC
 */
enum dns_err dns_check_records(const uint8_t *m, size_t len,
			       const struct dns_msg *d)
{
	uint32_t n = (uint32_t)d->ancount + d->nscount + d->arcount, i;
	size_t pos = d->qend;

	if (!d->qname_len || pos > len)
		return DNS_ERR_TRUNC;
	for (i = 0; i < n; i++) {
		enum dns_err r;
		uint16_t type;
		size_t rdlen;

		if (dns_name_parse(m, len, pos, NULL, NULL, &pos) != DNS_OK)
			return DNS_ERR_NAME;
		if (len - pos < 10)
			return DNS_ERR_TRUNC;
		type = rd16(m + pos);
		rdlen = rd16(m + pos + 8);
		pos += 10;
		if (len - pos < rdlen)
			return DNS_ERR_TRUNC;
		r = dns_rdata_names(m, len, type, pos, pos + rdlen);
		if (r != DNS_OK)
			return r;
		pos += rdlen;
	}
	return DNS_OK;
}

/**
 * dns_lower() - ASCII lower case, leaving every other byte alone
 * @c:	byte
 *
 * Return: @c, folded if it is A-Z
 */
static inline uint8_t dns_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

/**
 * dns_name_eq() - compare two wire-form names, ignoring ASCII case
 * @a:		first name (expanded: no pointers)
 * @alen:	its length
 * @b:		second name
 * @blen:	its length
 *
 * Length bytes (0-63) are never changed by the fold, so two valid names
 * compare equal only if their label structure is the same (RFC 4343).
 *
 * Return: true if equal
 */
bool dns_name_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t i;

	if (alen != blen)
		return false;
	for (i = 0; i < alen; i++) {
		if (dns_lower(a[i]) != dns_lower(b[i]))
			return false;
	}
	return true;
}

/**
 * dns_question_eq() - do two parsed messages ask the same question?
 * @a:	parsed message
 * @b:	parsed message
 *
 * Return: true if both have a question, with the same type, class and
 *	   (case-insensitively) name
 */
bool dns_question_eq(const struct dns_msg *a, const struct dns_msg *b)
{
	return a->qname_len && b->qname_len && a->qtype == b->qtype &&
	       a->qclass == b->qclass &&
	       dns_name_eq(a->qname, a->qname_len, b->qname, b->qname_len);
}

/**
 * dns_build_reply() - make up an answer with no records to a query
 * @q:		the query (header fields, and the question if it has one)
 * @rcode:	response code (DNS_RCODE_*)
 * @tc:		set the TC bit (the real answer did not fit: use TCP)
 * @buf:	where to write
 * @cap:	bytes available at @buf
 *
 * The answer has the query's ID, opcode, RD and CD bits (RFC 6840 5.9),
 * RA set, and the question echoed if @q has one (uncompressed, with the
 * guest's case), else a question count of zero.
 *
 * Return: bytes written, or 0 if @cap is too small
 */
size_t dns_build_reply(const struct dns_msg *q, unsigned rcode, bool tc,
		       uint8_t *buf, size_t cap)
{
	size_t n = DNS_HLEN + (q->qname_len ? q->qname_len + 4 : 0);
	uint16_t flags;

	if (cap < n)
		return 0;
	flags = DNS_F_QR | DNS_F_RA |
		(q->flags & (DNS_F_OPCODE_MASK | DNS_F_RD | DNS_F_CD)) |
		(tc ? DNS_F_TC : 0) | (rcode & DNS_F_RCODE_MASK);
	wr16(buf, q->id);
	wr16(buf + 2, flags);
	wr16(buf + 4, q->qname_len ? 1 : 0);
	memset(buf + 6, 0, 6);
	if (q->qname_len) {
		memcpy(buf + DNS_HLEN, q->qname, q->qname_len);
		wr16(buf + DNS_HLEN + q->qname_len, q->qtype);
		wr16(buf + DNS_HLEN + q->qname_len + 2, q->qclass);
	}
	return n;
}
