/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fwd_spec.c - the port spec grammar of -t, -u and -T (cli/conf.c:
 * fwd_spec_parse(), fwd_opt_parse()), as pasta writes it: none, ranges on
 * both sides, ADDR%IFNAME/ prefixes, TOADDR/, exclusions, all, auto
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli/conf.h"
#include "util/log.h"

enum log_level log_max_level = LOG_ERR;

#define MAXR 64

static struct fwd_spec out[MAXR];
static unsigned nout;

/**
 * opt() - parse an option value into out[]
 * @s:		text
 *
 * Return: what fwd_opt_parse() returned
 */
static int opt(const char *s)
{
	const char *why = NULL;
	int ret;

	memset(out, 0xa5, sizeof(out));
	nout = 0;
	ret = fwd_opt_parse(s, out, MAXR, &nout, &why);
	if (ret)
		assert_non_null(why);
	return ret;
}

/**
 * parses() - @s parses, into @n entries of out[]
 * @s:		text
 * @n:		expected entry count
 */
static void parses(const char *s, unsigned n)
{
	assert_int_equal(opt(s), 0);
	assert_int_equal(nout, n);
}

/**
 * reject() - every one of @specs is refused (with a reason, opt())
 * @specs:	texts, NULL-terminated
 */
static void reject(const char *const *specs)
{
	for (; *specs; specs++)
		if (!opt(*specs))
			fail_msg("accepted: \"%s\"", *specs);
}

/* REJECT(spec, ...): reject() of a list */
#define REJECT(...) reject((const char *const[]){ __VA_ARGS__, NULL })

/**
 * check_range() - out[@i] maps @first..@last to @gfirst.. with @flags
 * @i:		entry
 * @first:	first host port
 * @last:	last host port
 * @gfirst:	guest port of @first
 * @flags:	FWD_SPEC_*
 */
static void check_range(unsigned i, unsigned first, unsigned last,
			unsigned gfirst, unsigned flags)
{
	assert_true(i < nout);
	assert_int_equal(out[i].first, first);
	assert_int_equal(out[i].last, last);
	assert_int_equal(out[i].guest_first, gfirst);
	assert_int_equal(out[i].flags, flags);
}

/**
 * test_legacy() - slipway's own syntax still parses as before
 * @state:	unused
 */
static void test_legacy(void **state)
{
	struct fwd_spec f;
	const char *why;

	(void)state;
	parses("8080", 1);
	check_range(0, 8080, 8080, 8080, 0);
	assert_int_equal(out[0].family, AF_UNSPEC);
	assert_int_equal(opt("8080:80"), 0);
	check_range(0, 8080, 8080, 80, 0);
	assert_int_equal(opt("127.0.0.1/2222:22"), 0);
	check_range(0, 2222, 2222, 22, 0);
	assert_int_equal(out[0].family, AF_INET);
	assert_int_equal(out[0].addr.s6_addr[12], 127);
	assert_int_equal(opt("[::1]/80"), 0);
	assert_int_equal(out[0].family, AF_INET6);
	assert_int_equal(opt("::1/443:8443"), 0);
	check_range(0, 443, 443, 8443, 0);
	assert_int_equal(opt("9000-9009:100-109"), 0);
	check_range(0, 9000, 9009, 100, 0);
	assert_int_equal(fwd_spec_parse("1.2.3.4/5-6:7-8", &f, &why), 0);
	assert_int_equal(f.first, 5);
	assert_int_equal(f.guest_first, 7);
	/* still refused */
	REJECT("0", "65536", "10-5", "100-101:200", "100-101:200-202",
	       "1.2.3/80", "/80", "80:", "");
	assert_int_not_equal(fwd_spec_parse("80,81", &f, &why), 0);
}

/**
 * test_podman() - what podman writes: ranges on both sides, HostIP/
 * @state:	unused
 */
static void test_podman(void **state)
{
	(void)state;
	parses("80-80:80-80", 1);
	check_range(0, 80, 80, 80, 0);
	assert_int_equal(opt("127.0.0.1/8080-8080:80-80"), 0);
	check_range(0, 8080, 8080, 80, 0);
	assert_int_equal(opt("::1/8080-8081:80-81"), 0);
	check_range(0, 8080, 8081, 80, 0);
	assert_int_equal(out[0].family, AF_INET6);
	parses("none", 0);
}

/**
 * test_ifname() - %IFNAME with and without an address; TOADDR/
 * @state:	unused
 */
static void test_ifname(void **state)
{
	(void)state;
	assert_int_equal(opt("%lo/22"), 0);
	assert_string_equal(out[0].ifname, "lo");
	assert_int_equal(out[0].family, AF_UNSPEC);
	assert_int_equal(opt("192.0.2.1%eth0/22:23"), 0);
	assert_string_equal(out[0].ifname, "eth0");
	assert_int_equal(out[0].family, AF_INET);
	check_range(0, 22, 22, 23, 0);
	assert_int_equal(opt("fe80::1%eth0/22"), 0);
	assert_int_equal(out[0].family, AF_INET6);
	assert_int_equal(opt("80:10.0.2.16/8080"), 0);
	assert_int_equal(out[0].family, AF_UNSPEC);
	assert_int_equal(out[0].to_family, AF_INET);
	assert_int_equal(out[0].to_addr.s6_addr[15], 16);
	check_range(0, 80, 80, 8080, 0);
	assert_int_equal(opt("127.0.0.1/80:[fd00::5]/8080"), 0);
	assert_int_equal(out[0].family, AF_INET);
	assert_int_equal(out[0].to_family, AF_INET6);
	REJECT("%/22", "%0123456789abcdef/22", "%a b/22", "80:10.0.2/8080");
}

/**
 * test_lists() - comma lists and exclusions
 * @state:	unused
 */
static void test_lists(void **state)
{
	(void)state;
	parses("20000-20010,~20005", 2);
	check_range(0, 20000, 20004, 20000, 0);
	check_range(1, 20006, 20010, 20006, 0);
	/* exclusions before ranges, mapped ranges keep their offsets */
	parses("~102-103,100-109:200-209,300", 3);
	check_range(0, 100, 101, 200, 0);
	check_range(1, 104, 109, 204, 0);
	check_range(2, 300, 300, 300, 0);
	/* the prefix applies to every item */
	parses("127.0.0.1/80,81", 2);
	assert_int_equal(out[1].family, AF_INET);
	/* exclusions only: every other port, ephemeral ones left out later */
	parses("~22,~80-89", 3);
	check_range(0, 1, 21, 1, FWD_SPEC_ALL);
	check_range(1, 23, 79, 23, FWD_SPEC_ALL);
	check_range(2, 90, 65535, 90, FWD_SPEC_ALL);
	assert_int_equal(opt("all"), 0);
	check_range(0, 1, 65535, 1, FWD_SPEC_ALL);
	assert_int_equal(opt("all:10.0.2.16"), 0);
	assert_int_equal(out[0].to_family, AF_INET);
	/* excluding everything leaves nothing, which is no error */
	parses("80,~80", 0);
	REJECT("80,,81", "80,", ",80", "~", "~0", "all:x", "alll", "none,80");
}

/**
 * test_auto() - auto alone, restricted by ranges, an address, exclusions
 * @state:	unused
 */
static void test_auto(void **state)
{
	(void)state;
	parses("auto", 1);
	check_range(0, 1, 65535, 1, FWD_SPEC_AUTO);
	assert_int_equal(opt("::1/auto"), 0);
	assert_int_equal(out[0].family, AF_INET6);
	check_range(0, 1, 65535, 1, FWD_SPEC_AUTO);
	parses("80-82,auto", 1);
	check_range(0, 80, 82, 80, FWD_SPEC_AUTO);
	parses("auto,~22", 2);
	check_range(0, 1, 21, 1, FWD_SPEC_AUTO);
	check_range(1, 23, 65535, 23, FWD_SPEC_AUTO);
}

/**
 * test_full() - the output array's room is respected
 * @state:	unused
 */
static void test_full(void **state)
{
	struct fwd_spec two[2];
	const char *why = NULL;
	unsigned n = 1;

	(void)state;
	assert_int_equal(fwd_opt_parse("1-10,~5,~7", two, 2, &n, &why), -1);
	assert_non_null(why);
	n = 0;
	assert_int_equal(fwd_opt_parse("1-10,~5", two, 2, &n, &why), 0);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy), cmocka_unit_test(test_podman),
		cmocka_unit_test(test_ifname), cmocka_unit_test(test_lists),
		cmocka_unit_test(test_auto),   cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
