/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_dns.c - the DNS message parser, core/dns.c
 *
 * Input: one DNS message, as the guest (a query) or an upstream (a reply)
 * would send it. It is parsed both ways; on success its records are
 * walked, and names are parsed from the first 512 offsets. The input
 * buffer is exactly the input's size, so ASan catches any read past it.
 *
 * Checks: results are in range; a parsed question has a name of 1-255
 * bytes ending in the root label, and it lies inside the input; a question
 * equals itself; a made-up answer (SERVFAIL, and an empty TC answer) to a
 * parsed query parses back as a reply to the same question with the same
 * ID; a query and a reply parse never both succeed (QR differs); the input
 * is not modified.
 */

#include <stdlib.h>
#include <string.h>

#include "core/dns.h"

#include "fuzz_common.h"

#define NAME_OFFSETS 512

/**
 * check_parsed() - invariants of a DNS_OK parse
 * @d:		result
 * @size:	input length
 */
static void check_parsed(const struct dns_msg *d, size_t size)
{
	FZ_CHECK(d->qdcount == 1);
	FZ_CHECK(d->qname_len >= 1 && d->qname_len <= DNS_NAME_MAX);
	FZ_CHECK(d->qname[d->qname_len - 1] == 0);
	FZ_CHECK(d->qname_off == DNS_HLEN);
	FZ_CHECK(d->qend >= DNS_HLEN + 1 + 4);
	FZ_CHECK(d->qend <= size);
	FZ_CHECK(dns_question_eq(d, d));
}

/**
 * check_answer() - a made-up answer to a query parses back
 * @q:		the parsed query
 * @rcode:	response code
 * @tc:		truncated flag
 */
static void check_answer(const struct dns_msg *q, unsigned rcode, bool tc)
{
	uint8_t buf[DNS_REPLY_BUILD_MAX];
	struct dns_msg r;
	size_t n;

	n = dns_build_reply(q, rcode, tc, buf, sizeof(buf));
	FZ_CHECK(n == DNS_HLEN + q->qname_len + 4);
	FZ_CHECK(dns_parse_reply(buf, n, &r) == DNS_OK);
	FZ_CHECK(dns_check_records(buf, n, &r) == DNS_OK);
	FZ_CHECK(r.id == q->id);
	FZ_CHECK(dns_rcode(&r) == rcode);
	FZ_CHECK(!!(r.flags & DNS_F_TC) == tc);
	FZ_CHECK(dns_question_eq(q, &r));
	FZ_CHECK(!memcmp(q->qname, r.qname, q->qname_len));
	FZ_CHECK(dns_build_reply(q, rcode, tc, buf, n - 1) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *m = malloc(size ? size : 1), out[DNS_NAME_MAX];
	struct dns_msg q, r;
	enum dns_err rq, rr;
	size_t off;

	if (!m)
		abort();
	memcpy(m, data, size);

	rq = dns_parse_query(m, size, &q);
	FZ_CHECK((unsigned)rq < DNS_ERR_NUM);
	FZ_CHECK(dns_err_str(rq) != NULL);
	if (rq == DNS_OK) {
		check_parsed(&q, size);
		FZ_CHECK((unsigned)dns_check_records(m, size, &q) <
			 DNS_ERR_NUM);
		check_answer(&q, DNS_RCODE_SERVFAIL, false);
		check_answer(&q, DNS_RCODE_NOERROR, true);
	} else {
		FZ_CHECK(q.qname_len == 0);
		if (rq == DNS_ERR_OPCODE || rq == DNS_ERR_QDCOUNT) {
			uint8_t buf[DNS_REPLY_BUILD_MAX];

			FZ_CHECK(dns_build_reply(&q, DNS_RCODE_FORMERR, false,
						 buf, sizeof(buf)) == DNS_HLEN);
		}
	}

	rr = dns_parse_reply(m, size, &r);
	FZ_CHECK((unsigned)rr < DNS_ERR_NUM);
	FZ_CHECK(!(rq == DNS_OK && rr == DNS_OK));
	if (rr == DNS_OK) {
		check_parsed(&r, size);
		FZ_CHECK((unsigned)dns_check_records(m, size, &r) <
			 DNS_ERR_NUM);
	}

	for (off = DNS_HLEN; off < size && off < NAME_OFFSETS; off++) {
		size_t olen = 0, next = 0;

		if (dns_name_parse(m, size, off, out, &olen, &next) != DNS_OK)
			continue;
		FZ_CHECK(olen >= 1 && olen <= DNS_NAME_MAX);
		FZ_CHECK(out[olen - 1] == 0);
		FZ_CHECK(next > off && next <= size);
	}

	FZ_CHECK(!memcmp(m, data, size));
	free(m);
	return 0;
}
