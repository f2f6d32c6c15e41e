/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dns.h - DNS message parser and validator (RFC 1035), for the forwarder */
#ifndef SLIPWAY_DNS_H
#define SLIPWAY_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DNS_PORT 53
#define DNS_HLEN 12
#define DNS_LABEL_MAX 63     /* bytes of one label */
#define DNS_NAME_MAX 255     /* bytes of a name in wire form, with the root */
#define DNS_PTR_HOPS_MAX 127 /* compression pointers followed per name */

/* the flags word (host order), bytes 2-3 of the header */
#define DNS_F_QR 0x8000
#define DNS_F_OPCODE_SHIFT 11
#define DNS_F_OPCODE_MASK 0x7800
#define DNS_F_AA 0x0400
#define DNS_F_TC 0x0200
#define DNS_F_RD 0x0100
#define DNS_F_RA 0x0080
#define DNS_F_AD 0x0020
#define DNS_F_CD 0x0010
#define DNS_F_RCODE_MASK 0x000f

#define DNS_OPCODE_QUERY 0

#define DNS_RCODE_NOERROR 0
#define DNS_RCODE_FORMERR 1
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP 4
#define DNS_RCODE_REFUSED 5

/* largest reply dns_build_reply() writes: header, name, type and class */
#define DNS_REPLY_BUILD_MAX (DNS_HLEN + DNS_NAME_MAX + 4)

/**
 * enum dns_err - why a message was refused, in the order of the checks
 * @DNS_OK:		valid
 * @DNS_ERR_SHORT:	shorter than the 12-byte header
 * @DNS_ERR_QR:		QR bit wrong for the direction (a "query" that is a
 *			response, or a "reply" that is a query)
 * @DNS_ERR_OPCODE:	opcode not QUERY (header fields are valid)
 * @DNS_ERR_QDCOUNT:	question count not 1 (header fields are valid)
 * @DNS_ERR_NAME:	a name runs past the end, has a label type other than
 *			a length (0x40, 0x80), is longer than 255 bytes, or
 *			its compression pointers loop, point forward, into
 *			the header, or chain more than DNS_PTR_HOPS_MAX deep
 * @DNS_ERR_TRUNC:	a question or record ends before its fixed fields or
 *			its RDATA
 * @DNS_ERR_NUM:	count
 *
 * The forwarder counts all of these as DNS_DROP_BAD (one counter): only
 * its answer differs (NOTIMP for OPCODE, FORMERR for QDCOUNT, none else).
 */
enum dns_err {
	DNS_OK,
	DNS_ERR_SHORT,
	DNS_ERR_QR,
	DNS_ERR_OPCODE,
	DNS_ERR_QDCOUNT,
	DNS_ERR_NAME,
	DNS_ERR_TRUNC,
	DNS_ERR_NUM
};

/**
 * struct dns_msg - the header and the question of one message
 * @id:		message ID
 * @flags:	flags word, host order (DNS_F_*)
 * @qdcount:	question count
 * @ancount:	answer count
 * @nscount:	authority count
 * @arcount:	additional count
 * @qtype:	question type (valid with @qname_len)
 * @qclass:	question class (valid with @qname_len)
 * @qname_off:	offset of the question name in the message
 * @qend:	offset just past the question (where answers start)
 * @qname_len:	bytes in @qname; 0 if no question was parsed
 * @qname:	question name, wire form, compression pointers followed,
 *		case kept as received
 *
 * Filled by dns_parse_query()/dns_parse_reply(): the header fields whenever
 * the result is past DNS_ERR_SHORT, the question fields only on DNS_OK.
 */
struct dns_msg {
	uint16_t id;
	uint16_t flags;
	uint16_t qdcount;
	uint16_t ancount;
	uint16_t nscount;
	uint16_t arcount;
	uint16_t qtype;
	uint16_t qclass;
	size_t qname_off;
	size_t qend;
	size_t qname_len;
	uint8_t qname[DNS_NAME_MAX];
};

/**
 * dns_opcode() - the opcode of a parsed message
 * @d:	parsed message
 *
 * Return: opcode (0-15)
 */
static inline unsigned dns_opcode(const struct dns_msg *d)
{
	return (d->flags & DNS_F_OPCODE_MASK) >> DNS_F_OPCODE_SHIFT;
}

/**
 * dns_rcode() - the response code of a parsed message (header bits only)
 * @d:	parsed message
 *
 * Return: rcode (0-15)
 */
static inline unsigned dns_rcode(const struct dns_msg *d)
{
	return d->flags & DNS_F_RCODE_MASK;
}

enum dns_err dns_name_parse(const uint8_t *m, size_t len, size_t off,
			    uint8_t out[DNS_NAME_MAX], size_t *out_len,
			    size_t *next);
enum dns_err dns_parse_query(const uint8_t *m, size_t len, struct dns_msg *d);
enum dns_err dns_parse_reply(const uint8_t *m, size_t len, struct dns_msg *d);
enum dns_err dns_check_records(const uint8_t *m, size_t len,
			       const struct dns_msg *d);
bool dns_name_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
bool dns_question_eq(const struct dns_msg *a, const struct dns_msg *b);
size_t dns_build_reply(const struct dns_msg *q, unsigned rcode, bool tc,
		       uint8_t *buf, size_t cap);
const char *dns_err_str(enum dns_err e);

#endif /* SLIPWAY_DNS_H */
