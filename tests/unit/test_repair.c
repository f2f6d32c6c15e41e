/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_repair.c - a TCP socket into its repair record and back
 * (host/repair.c), on real sockets in a network namespace of its own
 *
 * Needs CAP_NET_ADMIN (repair mode) and CAP_SYS_ADMIN (the namespace):
 * exits 77 (skipped) without them.
 *
 * The namespace's ephemeral range is ten ports, so connections to two
 * servers share local ports, as they do on any host with many flows.
 * test_shared_port moves one of two connections that share a port while
 * the other stays: the restored socket must bind that port again (repair
 * mode forces reuse; SO_REUSEADDR set after it had undone that, and a
 * migration in CI found EADDRINUSE). Then both
 * queues must come back byte-exact: what the peer sent that we had not
 * read, and what we sent that the peer had not yet acknowledged (here:
 * held by a zero window), and the connection must carry data both ways.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helpers.h"
#include "core/mig.h"
#include "host/repair.h"

#define NCONN 8

/* the namespace's loopback up, and its ephemeral range ten ports */
static int ns_setup(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_UP };
	int s, fd;

	if (geteuid() || unshare(CLONE_NEWNET))
		return -1;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	strcpy(ifr.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCSIFFLAGS, &ifr))
		return -1;
	close(s);
	fd = open("/proc/sys/net/ipv4/ip_local_port_range", O_WRONLY);
	if (fd < 0 || write(fd, "40000 40009", 11) != 11)
		return -1;
	close(fd);
	return 0;
}

static struct sockaddr_in lo_addr(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return a;
}

/* a listener whose connections take little without reading: what we
 * send them stays partly in our send queue, unacknowledged */
static int listener(uint16_t port)
{
	struct sockaddr_in a = lo_addr(port);
	int s = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = 16384;

	assert_true(s >= 0);
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 64), 0);
	return s;
}

static uint16_t local_port(int s)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);

	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
	return ntohs(a.sin_port);
}

static int conn(uint16_t port)
{
	struct sockaddr_in a = lo_addr(port);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(s >= 0);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	return s;
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* read exactly @n bytes (blocking on poll), compare with @want */
static void read_all(int s, const uint8_t *want, size_t n)
{
	static uint8_t got[1 << 20];
	size_t have = 0;

	assert_true(n <= sizeof(got));
	while (have < n) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		ssize_t r;

		assert_int_equal(poll(&p, 1, 5000), 1);
		r = recv(s, got + have, n - have, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		assert_true(r > 0);
		have += (size_t)r;
	}
	assert_memory_equal(got, want, n);
}

static void test_shared_port(void **state)
{
	static uint8_t rec[1 << 21], to_c[40000], from_c[300000], more[5000];
	int c1[NCONN], c2[NCONN], a1 = -1, peer, fd, i, j, pick = -1,
				  other = -1;
	/* outside the ephemeral range, which stays the connections' */
	uint16_t p1 = 30001, p2 = 30002;
	int l1 = listener(p1), l2 = listener(p2);
	struct mig_repair rp;
	struct mig_rec r;
	const uint8_t *p = rec;
	size_t len = 0, sent = 0;

	(void)state;
	for (i = 0; i < NCONN; i++) {
		c1[i] = conn(p1);
		c2[i] = conn(p2);
	}
	for (i = 0; i < NCONN && pick < 0; i++)
		for (j = 0; j < NCONN; j++)
			if (local_port(c1[i]) == local_port(c2[j])) {
				pick = i;
				other = j;
				break;
			}
	assert_true(pick >= 0); /* eight of ten ports each: some are shared */
	/* the accepted end of c1[pick] */
	for (i = 0; i < NCONN; i++) {
		struct sockaddr_in a;
		socklen_t l = sizeof(a);
		int s = accept(l1, (struct sockaddr *)&a, &l);

		assert_true(s >= 0);
		if (ntohs(a.sin_port) == local_port(c1[pick]))
			a1 = s;
	}
	assert_true(a1 >= 0);
	peer = a1;
	/* the peer sends; we do not read: our receive queue holds it */
	fill(to_c, sizeof(to_c), 1);
	assert_int_equal(send(peer, to_c, sizeof(to_c), 0), sizeof(to_c));
	/* we send more than the peer takes without reading */
	fill(from_c, sizeof(from_c), 2);
	while (sent < sizeof(from_c)) {
		ssize_t n = send(c1[pick], from_c + sent, sizeof(from_c) - sent,
				 MSG_DONTWAIT);

		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	assert_true(sent > 0);
	usleep(20000); /* the queues settle (loopback) */

	fd = c1[pick];
	assert_int_equal(repair_dump(fd, rec, sizeof(rec), 0, &len), 0);
	assert_true(len > 0);
	/* c1[pick] is closed; c2[other] still holds the port */
	assert_int_equal(mig_next(&p, rec + len, &r), 1);
	assert_int_equal(r.type, MIG_REC_REPAIR);
	assert_null(mig_get_repair(&r, &rp));
	fd = repair_restore(&rp);
	if (fd < 0)
		fail_msg("repair_restore: %s", strerror(-fd));
	assert_int_equal(local_port(fd), local_port(c2[other]));

	/* everything the peer sent is still ours to read, and everything we
	 * sent reaches it, in order */
	read_all(fd, to_c, sizeof(to_c));
	read_all(peer, from_c, sent);
	/* and the connection goes on both ways */
	fill(more, sizeof(more), 3);
	assert_int_equal(send(fd, more, sizeof(more), 0), sizeof(more));
	read_all(peer, more, sizeof(more));
	fill(more, sizeof(more), 4);
	assert_int_equal(send(peer, more, sizeof(more), 0), sizeof(more));
	read_all(fd, more, sizeof(more));

	close(fd);
	close(peer);
	for (i = 0; i < NCONN; i++) {
		if (i != pick)
			close(c1[i]);
		close(c2[i]);
	}
	close(l1);
	close(l2);
}

/**
 * main() - run the repair tests in a network namespace of their own
 *
 * Return: 0 if all passed, 77 without the privileges, else the number of
 * failures
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_port),
	};

	if (ns_setup()) {
		printf("SKIP: needs root for a network namespace and repair "
		       "mode\n");
		return 77;
	}
	return cmocka_run_group_tests_name("repair", tests, NULL, NULL);
}
