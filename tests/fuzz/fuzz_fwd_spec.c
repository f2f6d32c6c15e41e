/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_fwd_spec.c - the -t SPEC parser, fwd_spec_parse() in host/conf.c
 *
 * Input: the text of a SPEC (at most 200 bytes are used; a NUL ends it
 * early). conf.c is compiled into this target; the only thing it needs
 * beyond libc is log_max_level (ctl/log.c), defined here.
 *
 * Checks: the input is not modified; a failure gives a reason; a success
 * gives a valid port mapping (ports 1-65535, the guest range within 65535,
 * the address zero where unused), and printing the result in the documented
 * syntax and parsing it again gives the same result.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "host/conf.h"
#include "util/log.h"

#include "fuzz_common.h"

#define MAX_INPUT 200

enum log_level log_max_level = LOG_WARN;

/**
 * check_result() - a parsed spec is valid and survives a round trip
 * @f:	result of a successful parse
 */
static void check_result(const struct fwd_spec *f)
{
	static const uint8_t zero[16];
	char text[160], addr[INET6_ADDRSTRLEN];
	struct fwd_spec again;
	const char *why = NULL;
	unsigned glast;
	int n = 0;

	FZ_CHECK(f->first >= 1 && f->first <= f->last);
	FZ_CHECK(f->guest_first >= 1);
	glast = (unsigned)f->guest_first + (f->last - f->first);
	FZ_CHECK(glast <= 65535);

	switch (f->family) {
	case AF_UNSPEC:
		FZ_CHECK(!memcmp(&f->addr, zero, 16));
		break;
	case AF_INET:
		FZ_CHECK(!memcmp(&f->addr, zero, 12));
		FZ_CHECK(inet_ntop(AF_INET, &f->addr.s6_addr[12], addr,
				   sizeof(addr)));
		n = snprintf(text, sizeof(text), "%s/", addr);
		break;
	case AF_INET6:
		FZ_CHECK(inet_ntop(AF_INET6, &f->addr, addr, sizeof(addr)));
		n = snprintf(text, sizeof(text), "[%s]/", addr);
		break;
	default:
		FZ_CHECK(!"unknown family");
	}
	snprintf(text + n, sizeof(text) - (size_t)n, "%u-%u:%u-%u",
		 f->first, f->last, f->guest_first, glast);

	FZ_CHECK(fwd_spec_parse(text, &again, &why) == 0);
	FZ_CHECK(!memcmp(f, &again, sizeof(again)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size < MAX_INPUT ? size : MAX_INPUT;
	char *s = malloc(n + 1), *copy = malloc(n + 1);
	struct fwd_spec f;
	const char *why = NULL;

	if (!s || !copy)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	memcpy(copy, s, n + 1);

	if (fwd_spec_parse(s, &f, &why) == 0)
		check_result(&f);
	else
		FZ_CHECK(why && *why);
	FZ_CHECK(!memcmp(s, copy, n + 1));

	free(copy);
	free(s);
	return 0;
}
