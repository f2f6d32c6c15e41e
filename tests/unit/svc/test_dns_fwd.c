/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dns_fwd.c - the DNS forwarder's query path (svc/dns_fwd.c) with a
 * real shard core and no upstream traffic
 *
 * The upstream is 255.255.255.255: a send to it fails at once (EACCES
 * without SO_BROADCAST, or no route), so every query fails over and gets a
 * made-up SERVFAIL inside dns_fwd_query(), after the query was stored and
 * a socket picked for it, and nothing leaves the machine. shard_ep_add()
 * and shard_flush_frames() are stubs; the forwarder's sockets are real.
 *
 * test_guest_rewrites_query is the double-fetch regression: the query
 * sits across two pages that fault on access, and the fault handler plays
 * a guest that sets the QR bit just after the header has been read once
 * and the name after it (vhost-user: the bytes are guest memory). Read
 * once, as it must be, the query is consistent, whatever it holds; read
 * twice (checked in place, then copied), the stored copy was a "reply"
 * and the forwarder died on ASSERT(r == DNS_OK) when it re-parsed it.
 *
 * test_socket_pool checks the upstream sockets: one bound at start, eight
 * on distinct ports once used, and all replaced by new ones (new ports,
 * no fd leaked) after 1000 queries, since each carries at most
 * DNS_SOCK_USES (16).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "helpers.h"
#include "core/dns.h"
#include "svc/dns_fwd.h"
#include "os/resolvh.h"
#include "shard/shard.h"
#include "util/log.h"

enum log_level log_max_level = LOG_ERR;

/**
 * logmsg() - stub: print only with SLIPWAY_TEST_LOG set
 * @lvl:	severity
 * @with_errno:	unused
 * @fmt:	printf format
 */
void logmsg(enum log_level lvl, bool with_errno, const char *fmt, ...)
{
	va_list ap;

	(void)lvl;
	(void)with_errno;
	if (!getenv("SLIPWAY_TEST_LOG"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * shard_ep_add() - stub: the test calls the forwarder itself
 * @sh:		unused
 * @fd:		unused
 * @events:	unused
 * @data:	unused
 *
 * Return: 0
 */
int shard_ep_add(struct shard *sh, int fd, uint32_t events, uint64_t data)
{
	(void)sh;
	(void)fd;
	(void)events;
	(void)data;
	return 0;
}

/**
 * shard_snap_host() - stub: no host tuple in a snapshot
 * @fd:		socket
 * @r:		record
 * @peer:	unused
 *
 * Return: false
 */
bool shard_snap_host(int fd, struct flow_rec *r, bool peer)
{
	(void)fd;
	(void)r;
	(void)peer;
	return false;
}

/**
 * shard_flush_frames() - stub: forget the queued frames
 * @sh:	shard
 */
void shard_flush_frames(struct shard *sh)
{
	sh->fx.nframes = 0;
}

/**
 * resolvh_start() - stub: no reader process; the forwarder reads the file
 * @path:	unused
 * @base:	unused
 *
 * Return: -ENOSYS
 */
int resolvh_start(const char *path, const struct sandbox_conf *base)
{
	(void)path;
	(void)base;
	return -ENOSYS;
}

/**
 * resolvh_recv() - stub: never called without a reader
 * @fd:		unused
 * @text:	unused
 * @size:	unused
 * @err:	unused
 *
 * Return: 0
 */
int resolvh_recv(int fd, char *text, size_t size, int *err)
{
	(void)fd;
	(void)text;
	(void)size;
	(void)err;
	return 0;
}

#define DNS4 ip4(10, 0, 2, 3)
#define GPORT 5353

/**
 * struct fenv - a shard with a core and a forwarder
 * @sh:		the shard (calloc'ed: it is large)
 * @mem:	core memory
 * @frame_len:	frame lengths of sh->fx
 * @rc:		resolv.conf path
 */
struct fenv {
	struct shard *sh;
	void *mem;
	uint32_t frame_len[ENV_SLOTS];
	char rc[64];
};

/**
 * fenv_new() - a shard whose forwarder asks 255.255.255.255
 *
 * Return: the environment
 */
static struct fenv *fenv_new(void)
{
	static const uint8_t key[16] = { 1, 2, 3 };
	static const struct conf conf; /* the sandbox's settings: off */
	struct fenv *e = calloc(1, sizeof(*e));
	struct core_conf cc;
	FILE *f;
	int fd;

	assert_non_null(e);
	e->sh = calloc(1, sizeof(*e->sh));
	assert_non_null(e->sh);
	e->sh->conf = &conf;
	env_conf(&cc, false);
	cc.dns4_be = DNS4;
	e->mem = calloc(1, core_mem_size(&cc));
	assert_non_null(e->mem);
	assert_int_equal(
		core_init(&e->sh->core, &cc, e->mem, e->sh->stats.ctr, key), 0);
	e->sh->fx.slots = calloc(ENV_SLOTS, ENV_SLOT_SIZE);
	assert_non_null(e->sh->fx.slots);
	e->sh->fx.slot_size = ENV_SLOT_SIZE;
	e->sh->fx.nslots = ENV_SLOTS;
	e->sh->fx.frame_len = e->frame_len;
	e->sh->now_ns = T0;

	snprintf(e->rc, sizeof(e->rc), "/tmp/test_dns_fwd.XXXXXX");
	fd = mkstemp(e->rc);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "nameserver 255.255.255.255\n");
	fclose(f);
	assert_int_equal(dns_fwd_init(e->sh, e->rc), 0);
	return e;
}

/**
 * fenv_free() - release an environment
 * @e:	environment
 */
static void fenv_free(struct fenv *e)
{
	dns_fwd_fini(e->sh);
	unlink(e->rc);
	free(e->sh->fx.slots);
	free(e->mem);
	free(e->sh);
	free(e);
}

/**
 * build_query() - a query for a.test.slipway, type A
 * @buf:	where to write (at least 32 bytes)
 * @id:		query ID
 *
 * Return: its length
 */
static size_t build_query(uint8_t *buf, uint16_t id)
{
	static const uint8_t q[] = {
		0,   0,	  0x01, 0x00, 0,   1,	0,   0,	  0, 0,	  0,
		0,   1,	  'a',	4,    't', 'e', 's', 't', 7, 's', 'l',
		'i', 'p', 'w',	'a',  'y', 0,	0,   1,	  0, 1,
	};

	memcpy(buf, q, sizeof(q));
	wr16(buf, id);
	return sizeof(q);
}

/**
 * check_servfail() - the one frame queued is a SERVFAIL for @id with the
 * question of build_query()
 * @e:	environment
 * @id:	the guest's query ID
 */
static void check_servfail(const struct fenv *e, uint16_t id)
{
	uint8_t want[32];
	size_t n = build_query(want, id);
	const uint8_t *p;

	assert_int_equal(e->sh->fx.nframes, 1);
	assert_true(e->frame_len[0] > n);
	p = e->sh->fx.slots + e->frame_len[0] - n; /* the UDP payload */
	assert_int_equal(rd16(p), id);
	assert_int_equal(rd16(p + 2) & (DNS_F_QR | DNS_F_RCODE_MASK),
			 DNS_F_QR | DNS_RCODE_SERVFAIL);
	assert_int_equal(rd16(p + 4), 1); /* the question, as asked */
	assert_memory_equal(p + DNS_HLEN, want + DNS_HLEN, n - DNS_HLEN);
}

/**
 * test_servfail_from_copy() - a query that no upstream takes gets a
 * SERVFAIL built from the forwarder's own copy, with the guest's ID, even
 * when the guest's buffer is gone right after the call
 * @state:	unused
 */
static void test_servfail_from_copy(void **state)
{
	struct fenv *e = fenv_new();
	uint8_t gaddr[ADDR_LEN], *buf = malloc(64);
	size_t n;

	(void)state;
	assert_non_null(buf);
	addr_from4(gaddr, GUEST4);
	n = build_query(buf, 0x1234);
	dns_fwd_query(e->sh, buf, n, gaddr, GPORT);
	memset(buf, 0xff, 64);
	free(buf);
	check_servfail(e, 0x1234);
	assert_int_equal(e->sh->stats.ctr[CTR_DNS_SERVFAIL], 1);
	assert_int_equal(e->sh->stats.ctr[CTR_DNS_DROP_BAD], 0);
	fenv_free(e);
}

/* the two pages of test_guest_rewrites_query and what the guest did */
static uint8_t *pg_a, *pg_b;
static size_t pg_size;
static volatile sig_atomic_t faults_a, faults_b;
static uint8_t *flip_at;

/**
 * on_fault() - SIGSEGV handler playing the guest
 * @sig:	SIGSEGV
 * @si:		fault address
 * @uc:		unused
 *
 * Page A holds the header, page B the name. Each access to a protected
 * page opens it; the first access to B closes A again, and the next
 * access to A (the header read a second time) finds the QR bit set: as if
 * the guest flipped it between two reads. A third read of A sees the same
 * as the second. Any other fault is a real one: back to the default.
 */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	uint8_t *a = si->si_addr;

	(void)uc;
	if (a >= pg_a && a < pg_a + pg_size) {
		if (++faults_a == 2) {
			mprotect(pg_a, pg_size, PROT_READ | PROT_WRITE);
			*flip_at ^= 0x80;
		} else {
			mprotect(pg_a, pg_size, PROT_READ);
		}
	} else if (a >= pg_b && a < pg_b + pg_size) {
		mprotect(pg_b, pg_size, PROT_READ);
		if (++faults_b == 1)
			mprotect(pg_a, pg_size, PROT_NONE);
	} else {
		signal(sig, SIG_DFL);
	}
}

/**
 * test_guest_rewrites_query() - the guest sets QR while its query is read:
 * no abort, and the query ends in exactly one way
 * @state:	unused
 */
static void test_guest_rewrites_query(void **state)
{
	struct sigaction sa, old;
	struct fenv *e = fenv_new();
	uint8_t gaddr[ADDR_LEN], *msg;
	size_t n;

	(void)state;
	pg_size = (size_t)sysconf(_SC_PAGESIZE);
	pg_a = mmap(NULL, 2 * pg_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(pg_a != MAP_FAILED);
	pg_b = pg_a + pg_size;
	msg = pg_b - DNS_HLEN; /* header in A, question in B */
	n = build_query(msg, 0x4242);
	flip_at = msg + 2;
	faults_a = faults_b = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	assert_int_equal(sigaction(SIGSEGV, &sa, &old), 0);
	assert_int_equal(mprotect(pg_a, 2 * pg_size, PROT_NONE), 0);

	addr_from4(gaddr, GUEST4);
	dns_fwd_query(e->sh, msg, n, gaddr, GPORT);

	assert_int_equal(mprotect(pg_a, 2 * pg_size, PROT_READ | PROT_WRITE),
			 0);
	assert_int_equal(sigaction(SIGSEGV, &old, NULL), 0);
	assert_true(faults_a >= 1 && faults_b >= 1);
	/* dropped as a "reply" if the one read saw QR set, else answered */
	assert_int_equal(e->sh->stats.ctr[CTR_DNS_SERVFAIL] +
				 e->sh->stats.ctr[CTR_DNS_DROP_BAD],
			 1);
	if (e->sh->stats.ctr[CTR_DNS_SERVFAIL])
		check_servfail(e, 0x4242);
	else
		assert_int_equal(e->sh->fx.nframes, 0);
	munmap(pg_a, 2 * pg_size);
	fenv_free(e);
}

/**
 * udp_ports() - the local ports of this process's IPv4 UDP sockets
 * @ports:	out, sorted
 * @cap:	room in @ports
 *
 * Return: how many
 */
static unsigned udp_ports(uint16_t *ports, unsigned cap)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	unsigned n = 0, i, j;

	assert_non_null(dir);
	while ((de = readdir(dir))) {
		struct sockaddr_in sin;
		socklen_t sl = sizeof(sin);
		int fd = atoi(de->d_name), type = 0, dom = 0;
		socklen_t ol = sizeof(int);

		if (de->d_name[0] == '.' || fd == dirfd(dir))
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ol) ||
		    type != SOCK_DGRAM)
			continue;
		ol = sizeof(int);
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &ol) ||
		    dom != AF_INET)
			continue;
		if (getsockname(fd, (struct sockaddr *)&sin, &sl) || n >= cap)
			continue;
		ports[n++] = ntohs(sin.sin_port);
	}
	closedir(dir);
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && ports[j - 1] > ports[j]; j--) {
			uint16_t t = ports[j];

			ports[j] = ports[j - 1];
			ports[j - 1] = t;
		}
	}
	return n;
}

/**
 * test_socket_pool() - one upstream socket at start, DNS_SOCKS (8) on
 * distinct ports once queries have used them, all replaced by new ones
 * (new ports, no fd leaked) as queries go by
 * @state:	unused
 */
static void test_socket_pool(void **state)
{
	uint16_t before[64], mid[64], after[64];
	uint8_t gaddr[ADDR_LEN], buf[64];
	struct fenv *e = fenv_new();
	unsigned nb, nm = 0, na, i, j, same = 0;

	(void)state;
	nb = udp_ports(before, 64);
	assert_int_equal(nb, 1);
	assert_int_not_equal(before[0], 0); /* bound at once */
	addr_from4(gaddr, GUEST4);
	for (i = 0; i < 1000; i++) {
		size_t n = build_query(buf, (uint16_t)i);

		dns_fwd_query(e->sh, buf, n, gaddr, GPORT);
		e->sh->fx.nframes = 0;
		if (i == 99)
			nm = udp_ports(mid, 64);
	}
	assert_int_equal(e->sh->stats.ctr[CTR_DNS_SERVFAIL], 1000);
	/* all 8 opened within 100 queries (each slot is picked with 1/8) */
	assert_int_equal(nm, 8);
	for (i = 1; i < nm; i++)
		assert_int_not_equal(mid[i], mid[i - 1]);
	/* 1000 picks, at most 15 left on each of 8 sockets: 55 replaced */
	assert_true(e->sh->stats.ctr[CTR_DNS_SOCK_RENEWED] >= 55);
	na = udp_ports(after, 64);
	assert_int_equal(na, 8);
	for (i = 0; i < na; i++) {
		for (j = 0; j < nm; j++)
			same += after[i] == mid[j];
	}
	/* each replaced, on a new random port (one may come back) */
	assert_true(same <= 1);
	fenv_free(e);
}

/**
 * main() - run the forwarder tests
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_servfail_from_copy),
		cmocka_unit_test(test_guest_rewrites_query),
		cmocka_unit_test(test_socket_pool),
	};

	return cmocka_run_group_tests_name("dns_fwd", tests, NULL, NULL);
}
