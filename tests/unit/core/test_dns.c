/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dns.c - the DNS message parser: dns_parse_query(), dns_parse_reply(),
 * dns_name_parse(), dns_check_records(), dns_question_eq(), dns_build_reply()
 *
 * Messages are built byte by byte (struct mb) and every parse runs on an
 * exactly sized heap copy, so ASan sees any read past the end. Names are
 * attacked with pointer loops (to itself, forward, in a cycle, into the
 * header), deep pointer chains up to and past the hop limit, truncation at
 * every length, label types 0x40/0x80, and names at and past 255 bytes.
 */
#include <stdlib.h>

#include "helpers.h"
#include "core/dns.h"

/**
 * struct mb - a message under construction
 * @b:	bytes
 * @n:	length so far
 */
struct mb {
	uint8_t b[4096];
	size_t n;
};

/**
 * put8() - append a byte
 * @m:	message
 * @v:	byte
 */
static void put8(struct mb *m, uint8_t v)
{
	assert_true(m->n < sizeof(m->b));
	m->b[m->n++] = v;
}

/**
 * put16() - append a big-endian 16-bit value
 * @m:	message
 * @v:	value
 */
static void put16(struct mb *m, uint16_t v)
{
	put8(m, (uint8_t)(v >> 8));
	put8(m, (uint8_t)v);
}

/**
 * put32() - append a big-endian 32-bit value
 * @m:	message
 * @v:	value
 */
static void put32(struct mb *m, uint32_t v)
{
	put16(m, (uint16_t)(v >> 16));
	put16(m, (uint16_t)v);
}

/**
 * put_name() - append a dotted name in wire form, uncompressed
 * @m:	message
 * @s:	name ("" or "." is the root)
 */
static void put_name(struct mb *m, const char *s)
{
	while (*s && *s != '.') {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);

		put8(m, (uint8_t)l);
		while (l--)
			put8(m, (uint8_t)*s++);
		if (*s == '.')
			s++;
	}
	put8(m, 0);
}

/**
 * put_ptr() - append a compression pointer
 * @m:		message
 * @off:	target offset
 */
static void put_ptr(struct mb *m, uint16_t off)
{
	put16(m, (uint16_t)(0xc000 | off));
}

/**
 * put_hdr() - append a header
 * @m:		message (empty)
 * @id:		ID
 * @flags:	flags word
 * @qd:		question count
 * @an:		answer count
 * @ns:		authority count
 * @ar:		additional count
 */
static void put_hdr(struct mb *m, uint16_t id, uint16_t flags, uint16_t qd,
		    uint16_t an, uint16_t ns, uint16_t ar)
{
	m->n = 0;
	put16(m, id);
	put16(m, flags);
	put16(m, qd);
	put16(m, an);
	put16(m, ns);
	put16(m, ar);
}

/**
 * put_question() - append a question: name, type, class IN
 * @m:		message
 * @name:	dotted name
 * @qtype:	question type
 */
static void put_question(struct mb *m, const char *name, uint16_t qtype)
{
	put_name(m, name);
	put16(m, qtype);
	put16(m, 1);
}

/**
 * put_rr() - append a record's head: a pointer to its owner name, type,
 * class IN, TTL and RDLENGTH (the caller appends the RDATA)
 * @m:		message
 * @owner:	offset of the owner name
 * @type:	record type
 * @ttl:	TTL
 * @rdlen:	RDLENGTH
 */
static void put_rr(struct mb *m, uint16_t owner, uint16_t type, uint32_t ttl,
		   uint16_t rdlen)
{
	put_ptr(m, owner);
	put16(m, type);
	put16(m, 1);
	put32(m, ttl);
	put16(m, rdlen);
}

/**
 * put_query() - a whole query: header, one question
 * @m:		message
 * @id:		ID
 * @name:	dotted question name
 * @qtype:	question type
 */
static void put_query(struct mb *m, uint16_t id, const char *name,
		      uint16_t qtype)
{
	put_hdr(m, id, DNS_F_RD, 1, 0, 0, 0);
	put_question(m, name, qtype);
}

/**
 * put_opt() - append an EDNS(0) OPT record (RFC 6891), 1232-byte buffer
 * @m:	message (the caller counts it in ARCOUNT)
 */
static void put_opt(struct mb *m)
{
	put8(m, 0);
	put16(m, 41);
	put16(m, 1232);
	put32(m, 0);
	put16(m, 0);
}

/**
 * parse_q() - dns_parse_query() on an exactly sized copy
 * @b:		bytes
 * @n:		length
 * @d:		result
 *
 * Return: dns_parse_query()'s result
 */
static enum dns_err parse_q(const uint8_t *b, size_t n, struct dns_msg *d)
{
	uint8_t *copy = malloc(n ? n : 1);
	enum dns_err r;

	assert_non_null(copy);
	memcpy(copy, b, n);
	r = dns_parse_query(copy, n, d);
	free(copy);
	return r;
}

/**
 * parse_r() - dns_parse_reply() and, on success, dns_check_records(), on
 * an exactly sized copy
 * @b:		bytes
 * @n:		length
 * @d:		result
 * @rec:	dns_check_records()'s result (DNS_ERR_NUM if not run)
 *
 * Return: dns_parse_reply()'s result
 */
static enum dns_err parse_r(const uint8_t *b, size_t n, struct dns_msg *d,
			    enum dns_err *rec)
{
	uint8_t *copy = malloc(n ? n : 1);
	enum dns_err r;

	assert_non_null(copy);
	memcpy(copy, b, n);
	r = dns_parse_reply(copy, n, d);
	*rec = DNS_ERR_NUM;
	if (r == DNS_OK)
		*rec = dns_check_records(copy, n, d);
	free(copy);
	return r;
}

/**
 * name_at() - dns_name_parse() on an exactly sized copy
 * @b:		bytes
 * @n:		length
 * @off:	name offset
 * @out:	expanded name (DNS_NAME_MAX bytes)
 * @out_len:	its length
 *
 * Return: dns_name_parse()'s result
 */
static enum dns_err name_at(const uint8_t *b, size_t n, size_t off,
			    uint8_t *out, size_t *out_len)
{
	uint8_t *copy = malloc(n ? n : 1);
	enum dns_err r;
	size_t next;

	assert_non_null(copy);
	memcpy(copy, b, n);
	r = dns_name_parse(copy, n, off, out, out_len, &next);
	free(copy);
	return r;
}

/**
 * test_valid_query() - a plain query and one with EDNS(0)
 * @state:	unused
 */
static void test_valid_query(void **state)
{
	static const uint8_t want[] = "\3www\7example\3com";
	struct dns_msg d;
	struct mb m;

	(void)state;
	put_query(&m, 0xbeef, "www.example.com", 1);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	assert_int_equal(d.id, 0xbeef);
	assert_int_equal(d.flags, DNS_F_RD);
	assert_int_equal(dns_opcode(&d), DNS_OPCODE_QUERY);
	assert_int_equal(d.qdcount, 1);
	assert_int_equal(d.qtype, 1);
	assert_int_equal(d.qclass, 1);
	assert_int_equal(d.qname_off, DNS_HLEN);
	assert_int_equal(d.qend, m.n);
	assert_int_equal(d.qname_len, sizeof(want));
	assert_memory_equal(d.qname, want, sizeof(want));

	/* EDNS(0): one OPT record in the additional section */
	put_hdr(&m, 7, DNS_F_RD | DNS_F_AD, 1, 0, 0, 1);
	put_question(&m, "example.org", 28);
	put_opt(&m);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	assert_int_equal(d.arcount, 1);
	assert_int_equal(d.qtype, 28);
	assert_int_equal(d.qend, m.n - 11);
	assert_int_equal(dns_check_records(m.b, m.n, &d), DNS_OK);

	/* the root name */
	put_query(&m, 1, "", 2);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	assert_int_equal(d.qname_len, 1);
	assert_int_equal(d.qname[0], 0);

	/* trailing bytes after the question are tolerated */
	put_query(&m, 1, "a", 1);
	put8(&m, 0xff);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	assert_int_equal(d.qend, m.n - 1);
}

/**
 * test_header_checks() - short, QR, opcode and question count
 * @state:	unused
 */
static void test_header_checks(void **state)
{
	struct dns_msg d;
	struct mb m;
	size_t n;

	(void)state;
	put_query(&m, 0x1234, "a.b", 1);
	for (n = 0; n < DNS_HLEN; n++)
		assert_int_equal(parse_q(m.b, n, &d), DNS_ERR_SHORT);

	/* a response is not a query, a query is not a response */
	m.b[2] |= 0x80;
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_QR);
	m.b[2] &= 0x7f;
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	{
		enum dns_err rec;

		assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_ERR_QR);
	}

	/* NOTIFY (4), UPDATE (5), IQUERY (1): header still parsed */
	m.b[2] = (uint8_t)(m.b[2] | (4 << 3));
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_OPCODE);
	assert_int_equal(d.id, 0x1234);
	assert_int_equal(dns_opcode(&d), 4);
	assert_int_equal(d.qname_len, 0);

	/* question count 0 and 2 */
	put_hdr(&m, 0x4321, DNS_F_RD, 0, 0, 0, 0);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_QDCOUNT);
	assert_int_equal(d.id, 0x4321);
	assert_int_equal(d.qdcount, 0);
	assert_int_equal(d.qname_len, 0);
	put_hdr(&m, 0x4321, 0, 2, 0, 0, 0);
	put_question(&m, "a", 1);
	put_question(&m, "b", 1);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_QDCOUNT);
	assert_int_equal(d.qdcount, 2);
}

/**
 * test_truncated() - every prefix of a valid query fails cleanly
 * @state:	unused
 */
static void test_truncated(void **state)
{
	struct dns_msg d;
	struct mb m;
	size_t n, name_end;

	(void)state;
	put_query(&m, 1, "www.example.com", 1);
	name_end = DNS_HLEN + 17;
	for (n = DNS_HLEN; n < m.n; n++) {
		enum dns_err r = parse_q(m.b, n, &d);

		assert_int_equal(r,
				 n < name_end ? DNS_ERR_NAME : DNS_ERR_TRUNC);
		assert_int_equal(d.qname_len, 0);
	}
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);

	/* a pointer's second byte missing */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put8(&m, 0xc0);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_NAME);
	/* a label longer than what is left */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put8(&m, 10);
	put8(&m, 'a');
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_NAME);
}

/**
 * test_label_types() - 63-byte labels pass, length bytes 0x40-0xbf do not
 * @state:	unused
 */
static void test_label_types(void **state)
{
	struct dns_msg d;
	struct mb m;
	unsigned v, i;

	(void)state;
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put8(&m, 63);
	for (i = 0; i < 63; i++)
		put8(&m, 'x');
	put8(&m, 0);
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	assert_int_equal(d.qname_len, 65);

	/* "label > 63": the length byte cannot say 64+ without setting a
	 * type bit, and both reserved types are refused whatever follows */
	for (v = 0x40; v < 0xc0; v++) {
		put_hdr(&m, 1, 0, 1, 0, 0, 0);
		put8(&m, (uint8_t)v);
		for (i = 0; i < 200; i++)
			put8(&m, 'x');
		put8(&m, 0);
		put16(&m, 1);
		put16(&m, 1);
		assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_NAME);
	}
}

/**
 * put_long_name() - append labels of 63 bytes, then one of @last bytes
 * @m:		message
 * @full:	number of 63-byte labels
 * @last:	length of the last label (0: none)
 */
static void put_long_name(struct mb *m, unsigned full, unsigned last)
{
	unsigned i, j;

	for (i = 0; i < full; i++) {
		put8(m, 63);
		for (j = 0; j < 63; j++)
			put8(m, (uint8_t)('a' + (i + j) % 26));
	}
	if (last) {
		put8(m, (uint8_t)last);
		for (j = 0; j < last; j++)
			put8(m, 'z');
	}
	put8(m, 0);
}

/**
 * test_name_length() - 255 bytes pass, 256 do not, with or without pointers
 * @state:	unused
 */
static void test_name_length(void **state)
{
	uint8_t out[DNS_NAME_MAX];
	struct dns_msg d;
	size_t olen;
	struct mb m;

	(void)state;
	/* 3 * 64 + 62 + 1 = 255 */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_long_name(&m, 3, 61);
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_OK);
	assert_int_equal(d.qname_len, 255);

	/* 3 * 64 + 63 + 1 = 256 */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_long_name(&m, 3, 62);
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_NAME);

	/* each part short, the expansion too long: 2 * 64 at offset 12,
	 * then 2 * 64 + a pointer to it = 256 + 1 */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_long_name(&m, 2, 0);
	{
		size_t second = m.n;

		put_long_name(&m, 1, 63);
		m.n--; /* drop the root: point at the first name instead */
		put_ptr(&m, DNS_HLEN);
		assert_int_equal(name_at(m.b, m.n, second, out, &olen),
				 DNS_ERR_NAME);
		/* one label less fits: 64 + 129 = 193 */
		m.n = second;
		put_long_name(&m, 1, 0);
		m.n--;
		put_ptr(&m, DNS_HLEN);
		assert_int_equal(name_at(m.b, m.n, second, out, &olen), DNS_OK);
		assert_int_equal(olen, 64 + 129);
	}
}

/**
 * test_pointer_loops() - pointers to themselves, forward, in cycles, into
 * the header: all refused, none loops
 * @state:	unused
 */
static void test_pointer_loops(void **state)
{
	uint8_t out[DNS_NAME_MAX];
	struct dns_msg d;
	size_t olen;
	struct mb m;
	uint16_t p;

	(void)state;
	/* the question name is a pointer to itself */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_ptr(&m, DNS_HLEN);
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_NAME);

	/* a pointer forward, to a valid name */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_ptr(&m, DNS_HLEN + 6);
	put16(&m, 1);
	put16(&m, 1);
	put_name(&m, "a");
	assert_int_equal(parse_q(m.b, m.n, &d), DNS_ERR_NAME);

	/* every pointer into the header (offsets 0-11) */
	for (p = 0; p < DNS_HLEN; p++) {
		put_hdr(&m, 0, 0, 1, 0, 0, 0);
		put_question(&m, "a", 1);
		put_ptr(&m, p);
		assert_int_equal(name_at(m.b, m.n, m.n - 2, out, &olen),
				 DNS_ERR_NAME);
	}

	/* label then a pointer back into the same name's first label */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_name(&m, "a"); /* 12: \1 a \0 */
	put8(&m, 1);	   /* 15: \1 b */
	put8(&m, 'b');
	put_ptr(&m, 15); /* 17: -> 15: loop */
	assert_int_equal(name_at(m.b, m.n, 15, out, &olen), DNS_ERR_NAME);

	/* backwards, but into the name itself (no loop, yet not a prior
	 * name): 15: \1 \0, 17: -> 16, which reads as the root */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_name(&m, "a");
	put8(&m, 1);
	put8(&m, 0);
	put_ptr(&m, 16);
	assert_int_equal(name_at(m.b, m.n, 15, out, &olen), DNS_ERR_NAME);
	/* the same pointer from a name after it is fine */
	put_ptr(&m, 16);
	assert_int_equal(name_at(m.b, m.n, 19, out, &olen), DNS_OK);
	assert_int_equal(olen, 1);

	/* two pointers that each go back, in a cycle: 20 -> 14, and at 14
	 * a label whose end is the pointer at 16 -> 14 */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put8(&m, 1); /* 12: \1 'x' */
	put8(&m, 'x');
	put8(&m, 1); /* 14: \1 'y' */
	put8(&m, 'y');
	put_ptr(&m, 14); /* 16: -> 14 */
	put8(&m, 0);	 /* 18 */
	put8(&m, 0);	 /* 19 */
	put_ptr(&m, 14); /* 20: -> 14 -> y -> 16 -> 14 ... */
	assert_int_equal(name_at(m.b, m.n, 20, out, &olen), DNS_ERR_NAME);
	assert_int_equal(name_at(m.b, m.n, 16, out, &olen), DNS_ERR_NAME);

	/* the same cycle reached through a second backward jump */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put8(&m, 1); /* 12: \1 'p' -> 18 */
	put8(&m, 'p');
	put_ptr(&m, 18); /* 14: forward from 12's run */
	put8(&m, 0);
	put8(&m, 0);
	put_ptr(&m, 12); /* 18: -> 12 */
	put_ptr(&m, 18); /* 20: -> 18 -> 12 -> 14 -> 18 ... */
	assert_int_equal(name_at(m.b, m.n, 20, out, &olen), DNS_ERR_NAME);
}

/**
 * test_pointer_chains() - chains up to DNS_PTR_HOPS_MAX pass, one more not
 * @state:	unused
 */
static void test_pointer_chains(void **state)
{
	static const uint8_t want[] = "\3end";
	uint8_t out[DNS_NAME_MAX];
	unsigned hops;
	size_t olen;
	struct mb m;

	(void)state;
	for (hops = 1; hops <= DNS_PTR_HOPS_MAX + 2; hops++) {
		unsigned i;

		put_hdr(&m, 1, 0, 1, 0, 0, 0);
		put_name(&m, "end");   /* 12 */
		put_ptr(&m, DNS_HLEN); /* 17: first hop */
		for (i = 1; i < hops; i++)
			put_ptr(&m, (uint16_t)(m.n - 2));
		if (hops <= DNS_PTR_HOPS_MAX) {
			assert_int_equal(name_at(m.b, m.n, m.n - 2, out, &olen),
					 DNS_OK);
			assert_int_equal(olen, sizeof(want));
			assert_memory_equal(out, want, sizeof(want));
		} else {
			assert_int_equal(name_at(m.b, m.n, m.n - 2, out, &olen),
					 DNS_ERR_NAME);
		}
	}

	/* a legitimate deep chain: each label in its own place, each name
	 * one label plus a pointer to the one before: 100 labels */
	put_hdr(&m, 1, 0, 1, 0, 0, 0);
	put_name(&m, "z");
	{
		size_t prev = DNS_HLEN;

		for (hops = 0; hops < 99; hops++) {
			size_t here = m.n;

			put8(&m, 1);
			put8(&m, 'a');
			put_ptr(&m, (uint16_t)prev);
			prev = here;
		}
		assert_int_equal(name_at(m.b, m.n, prev, out, &olen), DNS_OK);
		assert_int_equal(olen, 100 * 2 + 1);
	}
}

/**
 * put_answer() - a reply to "www.example.com A": CNAME (compressed) to
 * web.example.com, its A record, an MX, an SOA in authority, OPT
 * @m:	message
 * @id:	ID
 */
static void put_answer(struct mb *m, uint16_t id)
{
	size_t cname_target;

	put_hdr(m, id, DNS_F_QR | DNS_F_RD | DNS_F_RA, 1, 3, 1, 1);
	put_name(m, "WWW.example.COM"); /* 12, example at 16 */
	put16(m, 1);
	put16(m, 1);
	/* www.example.com CNAME web.example.com */
	put_rr(m, DNS_HLEN, 5, 300, 6);
	cname_target = m->n;
	put8(m, 3);
	put8(m, 'w');
	put8(m, 'e');
	put8(m, 'b');
	put_ptr(m, 16);
	/* web.example.com A 10.9.8.7 */
	put_rr(m, (uint16_t)cname_target, 1, 300, 4);
	put32(m, 0x0a090807);
	/* example.com MX 10 mail.example.com */
	put_rr(m, 16, 15, 300, 9);
	put16(m, 10);
	put8(m, 4);
	put8(m, 'm');
	put8(m, 'a');
	put8(m, 'i');
	put8(m, 'l');
	put_ptr(m, 16);
	/* example.com SOA ns.example.com. host.example.com. 1 2 3 4 5 */
	put_ptr(m, 16);
	put16(m, 6);
	put16(m, 1);
	put32(m, 300);
	put16(m, 5 + 7 + 20);
	put8(m, 2);
	put8(m, 'n');
	put8(m, 's');
	put_ptr(m, 16);
	put8(m, 4);
	put8(m, 'h');
	put8(m, 'o');
	put8(m, 's');
	put8(m, 't');
	put_ptr(m, 16);
	put32(m, 1);
	put32(m, 2);
	put32(m, 3);
	put32(m, 4);
	put32(m, 5);
	put_opt(m);
}

/**
 * test_valid_answer() - a compressed reply parses and its records check
 * @state:	unused
 */
static void test_valid_answer(void **state)
{
	struct dns_msg d, q;
	enum dns_err rec;
	struct mb m, qm;
	size_t n;

	(void)state;
	put_answer(&m, 0x55aa);
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_OK);
	assert_int_equal(d.id, 0x55aa);
	assert_int_equal(dns_rcode(&d), DNS_RCODE_NOERROR);
	assert_int_equal(d.ancount, 3);

	put_query(&qm, 0x55aa, "www.example.com", 1);
	assert_int_equal(parse_q(qm.b, qm.n, &q), DNS_OK);
	assert_true(dns_question_eq(&q, &d));

	/* every strict prefix that still holds the question: records fail */
	for (n = d.qend; n < m.n; n++) {
		assert_int_equal(parse_r(m.b, n, &d, &rec), DNS_OK);
		assert_true(rec == DNS_ERR_NAME || rec == DNS_ERR_TRUNC);
	}
}

/**
 * test_bad_records() - records that do not fit, RDATA names that overrun
 * @state:	unused
 */
static void test_bad_records(void **state)
{
	struct dns_msg d;
	enum dns_err rec;
	struct mb m;

	(void)state;
	/* RDLENGTH past the end */
	put_hdr(&m, 1, DNS_F_QR, 1, 1, 0, 0);
	put_question(&m, "a", 1);
	put_rr(&m, DNS_HLEN, 1, 1, 5);
	put32(&m, 0);
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_ERR_TRUNC);
	put8(&m, 0);
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_OK);

	/* a CNAME whose name runs past its RDLENGTH */
	put_hdr(&m, 1, DNS_F_QR, 1, 1, 0, 0);
	put_question(&m, "a", 5);
	put_rr(&m, DNS_HLEN, 5, 1, 2);
	put_name(&m, "bb");
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_ERR_TRUNC);

	/* a CNAME whose RDATA has bytes after the name */
	put_hdr(&m, 1, DNS_F_QR, 1, 1, 0, 0);
	put_question(&m, "a", 5);
	put_rr(&m, DNS_HLEN, 5, 1, 3);
	put_ptr(&m, DNS_HLEN);
	put8(&m, 0);
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_ERR_TRUNC);

	/* an owner name that loops */
	put_hdr(&m, 1, DNS_F_QR, 1, 1, 0, 0);
	put_question(&m, "a", 1);
	put_rr(&m, (uint16_t)m.n, 1, 1, 0);
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_ERR_NAME);

	/* counts promise more records than there are */
	put_hdr(&m, 1, DNS_F_QR, 1, 0xffff, 0xffff, 0xffff);
	put_question(&m, "a", 1);
	assert_int_equal(parse_r(m.b, m.n, &d, &rec), DNS_OK);
	assert_int_equal(rec, DNS_ERR_NAME);
}

/**
 * test_question_match() - case-insensitive names, exact type and class
 * @state:	unused
 */
static void test_question_match(void **state)
{
	struct dns_msg a, b;
	struct mb m;

	(void)state;
	put_query(&m, 1, "WwW.ExAmPlE.CoM", 1);
	assert_int_equal(parse_q(m.b, m.n, &a), DNS_OK);
	put_query(&m, 2, "www.example.com", 1);
	assert_int_equal(parse_q(m.b, m.n, &b), DNS_OK);
	assert_true(dns_question_eq(&a, &b));
	assert_true(dns_question_eq(&b, &a));

	put_query(&m, 2, "www.example.com", 28);
	assert_int_equal(parse_q(m.b, m.n, &b), DNS_OK);
	assert_false(dns_question_eq(&a, &b));

	put_query(&m, 2, "www.example.co", 1);
	assert_int_equal(parse_q(m.b, m.n, &b), DNS_OK);
	assert_false(dns_question_eq(&a, &b));

	/* same bytes, different labels: www.example.com vs www.example.co.m
	 * differ in length anyway; same length, different split: */
	put_query(&m, 2, "ab.c", 1);
	assert_int_equal(parse_q(m.b, m.n, &a), DNS_OK);
	put_query(&m, 2, "a.bc", 1);
	assert_int_equal(parse_q(m.b, m.n, &b), DNS_OK);
	assert_false(dns_question_eq(&a, &b));

	/* class differs */
	put_hdr(&m, 2, 0, 1, 0, 0, 0);
	put_name(&m, "ab.c");
	put16(&m, 1);
	put16(&m, 3); /* CH */
	assert_int_equal(parse_q(m.b, m.n, &b), DNS_OK);
	assert_false(dns_question_eq(&a, &b));

	/* only A-Z fold: 0xc1 and 0xe1 (Latin-1 A/a with accents) differ,
	 * and '@' (0x40) and '`' (0x60) differ */
	assert_true(dns_name_eq((const uint8_t *)"\1A", 3,
				(const uint8_t *)"\1a", 3));
	assert_false(dns_name_eq((const uint8_t *)"\1\xc1", 3,
				 (const uint8_t *)"\1\xe1", 3));
	assert_false(dns_name_eq((const uint8_t *)"\1@", 3,
				 (const uint8_t *)"\1`", 3));
	assert_false(dns_name_eq((const uint8_t *)"\1[", 3,
				 (const uint8_t *)"\1{", 3));

	/* no question never matches */
	a.qname_len = 0;
	assert_false(dns_question_eq(&a, &a));
}

/**
 * test_build_reply() - made-up answers parse back as replies
 * @state:	unused
 */
static void test_build_reply(void **state)
{
	uint8_t buf[DNS_REPLY_BUILD_MAX];
	struct dns_msg q, r;
	enum dns_err rec;
	struct mb m;
	size_t n;

	(void)state;
	put_hdr(&m, 0x0102, DNS_F_RD | DNS_F_CD | DNS_F_AD, 1, 0, 0, 1);
	put_question(&m, "Mixed.Case", 16);
	put_opt(&m);
	assert_int_equal(parse_q(m.b, m.n, &q), DNS_OK);

	n = dns_build_reply(&q, DNS_RCODE_SERVFAIL, false, buf, sizeof(buf));
	assert_int_equal(n, DNS_HLEN + 12 + 4);
	assert_int_equal(parse_r(buf, n, &r, &rec), DNS_OK);
	assert_int_equal(rec, DNS_OK);
	assert_int_equal(r.id, 0x0102);
	assert_int_equal(r.flags, DNS_F_QR | DNS_F_RD | DNS_F_CD | DNS_F_RA |
					  DNS_RCODE_SERVFAIL);
	assert_int_equal(r.ancount + r.nscount + r.arcount, 0);
	assert_true(dns_question_eq(&q, &r));
	assert_memory_equal(r.qname, "\5Mixed\4Case", 12);

	n = dns_build_reply(&q, DNS_RCODE_NOERROR, true, buf, sizeof(buf));
	assert_int_equal(parse_r(buf, n, &r, &rec), DNS_OK);
	assert_int_equal(r.flags & DNS_F_TC, DNS_F_TC);
	assert_int_equal(dns_rcode(&r), DNS_RCODE_NOERROR);

	/* too small a buffer */
	assert_int_equal(dns_build_reply(&q, 2, false, buf, n - 1), 0);

	/* no question (FORMERR to qdcount 2; NOTIMP to NOTIFY) */
	put_hdr(&m, 9, DNS_F_RD | (4 << DNS_F_OPCODE_SHIFT), 1, 0, 0, 0);
	put_question(&m, "x", 6);
	assert_int_equal(parse_q(m.b, m.n, &q), DNS_ERR_OPCODE);
	n = dns_build_reply(&q, DNS_RCODE_NOTIMP, false, buf, sizeof(buf));
	assert_int_equal(n, DNS_HLEN);
	assert_int_equal(rd16(buf), 9);
	assert_int_equal(rd16(buf + 2), DNS_F_QR | DNS_F_RA | DNS_F_RD |
						(4 << DNS_F_OPCODE_SHIFT) |
						DNS_RCODE_NOTIMP);
	assert_int_equal(rd16(buf + 4), 0);
	assert_int_equal(parse_r(buf, n, &r, &rec), DNS_ERR_OPCODE);
}

/**
 * test_mutations() - every byte of a reply set to every value: no crash,
 * and what parses is consistent
 * @state:	unused
 */
static void test_mutations(void **state)
{
	struct dns_msg d;
	enum dns_err rec;
	struct mb m, x;
	size_t i;
	unsigned v;

	(void)state;
	put_answer(&m, 0x1111);
	for (i = 0; i < m.n; i++) {
		for (v = 0; v < 256; v++) {
			enum dns_err r;

			x = m;
			x.b[i] = (uint8_t)v;
			r = parse_r(x.b, x.n, &d, &rec);
			assert_true((unsigned)r < DNS_ERR_NUM);
			if (r != DNS_OK)
				continue;
			assert_true(d.qname_len >= 1 &&
				    d.qname_len <= DNS_NAME_MAX);
			assert_true(d.qend <= x.n);
			assert_int_equal(d.qname[d.qname_len - 1], 0);
			assert_true((unsigned)rec < DNS_ERR_NUM);
		}
	}
}

/**
 * main() - run the DNS parser tests
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_query),
		cmocka_unit_test(test_header_checks),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_label_types),
		cmocka_unit_test(test_name_length),
		cmocka_unit_test(test_pointer_loops),
		cmocka_unit_test(test_pointer_chains),
		cmocka_unit_test(test_valid_answer),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_question_match),
		cmocka_unit_test(test_build_reply),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests_name("dns", tests, NULL, NULL);
}
