/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_fwd_spec.c - the -t SPEC parsers, fwd_spec_parse() (one range, as
 * the control API takes it) and fwd_opt_parse() (an option's value: lists,
 * exclusions, all, auto) in cli/conf.c
 *
 * Input: the text of a SPEC (at most 200 bytes are used; a NUL ends it
 * early). conf.c is compiled into this target; the only thing it needs
 * beyond libc is log_max_level (obs/log.c), defined here.
 *
 * Checks: the input is not modified; a failure gives a reason; a success
 * gives valid port mappings (ports 1-65535, the guest range within 65535,
 * the addresses zero where unused, a valid interface name, known flags),
 * and printing each range in the documented syntax and parsing it again
 * with fwd_spec_parse() gives the same range (flags aside). The ranges of
 * one option share its prefix and its auto flag, and fill at most the room
 * given.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli/conf.h"
#include "util/log.h"

#include "fuzz_common.h"

#define MAX_INPUT 200
#define MAX_OUT 64

enum log_level log_max_level = LOG_WARN;

/**
 * addr_str() - print an address as the syntax takes it: "1.2.3.4", "[::1]"
 * @family:	AF_INET or AF_INET6
 * @a:		address (IPv4 in bytes 12..15, zeros before)
 * @out:	text
 * @len:	room in @out
 */
static void addr_str(int family, const struct in6_addr *a, char *out,
		     size_t len)
{
	static const uint8_t zero[16];
	char t[INET6_ADDRSTRLEN];

	if (family == AF_INET) {
		FZ_CHECK(!memcmp(a, zero, 12));
		FZ_CHECK(inet_ntop(AF_INET, &a->s6_addr[12], t, sizeof(t)));
		snprintf(out, len, "%s", t);
		return;
	}
	FZ_CHECK(family == AF_INET6);
	FZ_CHECK(inet_ntop(AF_INET6, a, t, sizeof(t)));
	snprintf(out, len, "[%s]", t);
}

/**
 * check_result() - a parsed range is valid and survives a round trip
 * @f:	result of a successful parse
 */
static void check_result(const struct fwd_spec *f)
{
	static const uint8_t zero[16];
	char text[200], addr[INET6_ADDRSTRLEN + 2], to[INET6_ADDRSTRLEN + 3];
	struct fwd_spec again, mine = *f;
	const char *why = NULL;
	unsigned glast;
	size_t il;
	int n = 0;

	FZ_CHECK(f->first >= 1 && f->first <= f->last);
	FZ_CHECK(f->guest_first >= 1);
	glast = (unsigned)f->guest_first + (f->last - f->first);
	FZ_CHECK(glast <= 65535);
	FZ_CHECK(!(f->flags & ~(unsigned)(FWD_SPEC_AUTO | FWD_SPEC_ALL)));
	il = strnlen(f->ifname, sizeof(f->ifname));
	FZ_CHECK(il < sizeof(f->ifname));

	if (f->family == AF_UNSPEC) {
		FZ_CHECK(!memcmp(&f->addr, zero, 16));
		addr[0] = '\0';
	} else {
		addr_str(f->family, &f->addr, addr, sizeof(addr));
	}
	if (*addr || il)
		n = snprintf(text, sizeof(text), "%s%s%s/", addr, il ? "%" : "",
			     f->ifname);
	to[0] = '\0';
	if (f->to_family == AF_UNSPEC) {
		FZ_CHECK(!memcmp(&f->to_addr, zero, 16));
	} else {
		addr_str(f->to_family, &f->to_addr, to, sizeof(to) - 1);
		strcat(to, "/");
	}
	snprintf(text + n, sizeof(text) - (size_t)n, "%u-%u:%s%u-%u", f->first,
		 f->last, to, f->guest_first, glast);

	FZ_CHECK(fwd_spec_parse(text, &again, &why) == 0);
	mine.flags = 0;
	FZ_CHECK(!memcmp(&mine, &again, sizeof(again)));
}

/**
 * check_opt() - an option's ranges are valid and share the prefix
 * @out:	ranges
 * @n:		how many
 */
static void check_opt(const struct fwd_spec *out, unsigned n)
{
	unsigned i;

	FZ_CHECK(n <= MAX_OUT);
	for (i = 0; i < n; i++) {
		check_result(&out[i]);
		/* one prefix for all: the same addresses, interface, flags */
		FZ_CHECK(out[i].family == out[0].family &&
			 !memcmp(&out[i].addr, &out[0].addr, 16) &&
			 !strcmp(out[i].ifname, out[0].ifname));
		FZ_CHECK((out[i].flags & FWD_SPEC_AUTO) ==
			 (out[0].flags & FWD_SPEC_AUTO));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size < MAX_INPUT ? size : MAX_INPUT;
	char *s = malloc(n + 1), *copy = malloc(n + 1);
	struct fwd_spec f, *out = malloc(sizeof(*out) * MAX_OUT);
	const char *why = NULL;
	unsigned nout = 0;

	if (!s || !copy || !out)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	memcpy(copy, s, n + 1);

	if (fwd_spec_parse(s, &f, &why) == 0)
		check_result(&f);
	else
		FZ_CHECK(why && *why);
	FZ_CHECK(!memcmp(s, copy, n + 1));

	why = NULL;
	if (fwd_opt_parse(s, out, MAX_OUT, &nout, &why) == 0)
		check_opt(out, nout);
	else
		FZ_CHECK(why && *why);
	FZ_CHECK(!memcmp(s, copy, n + 1));

	free(out);
	free(copy);
	free(s);
	return 0;
}
