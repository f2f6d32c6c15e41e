/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_inst.c - the instance scan of slipway ls and top (ctl/inst.c): the
 * PID a socket's name says, PID and PATH arguments, the runtime directory
 * of root, a scan that lists a live socket, skips and removes a stale one
 * of a dead PID, skips and keeps one of a live PID, ignores other names
 * and gives up on one that never answers;
 * the members an older version reply lacks filled from stats and flows,
 * control characters of a reply cleaned, human units and durations
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl/inst.h"

/**
 * test_pid_of() - <PID>.sock names only
 * @state:	unused
 */
static void test_pid_of(void **state)
{
	(void)state;
	assert_int_equal(inst_pid_of("/run/slipway/1234.sock"), 1234);
	assert_int_equal(inst_pid_of("77.sock"), 77);
	assert_int_equal(inst_pid_of("/run/slipway/12x.sock"), 0);
	assert_int_equal(inst_pid_of("/run/slipway/1234.sockx"), 0);
	assert_int_equal(inst_pid_of("/run/slipway/-5.sock"), 0);
	assert_int_equal(inst_pid_of("/run/slipway/0.sock"), 0);
	assert_int_equal(inst_pid_of("/tmp/ctl.sock"), 0);
	assert_int_equal(inst_pid_of("/run/slipway/99999999999999999999.sock"),
			 0);
}

/**
 * test_resolve() - digits are a PID in the directory, anything else a path
 * @state:	unused
 */
static void test_resolve(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(inst_resolve("42", "/run/slipway", out, sizeof(out)),
			 0);
	assert_string_equal(out, "/run/slipway/42.sock");
	assert_int_equal(inst_resolve("/tmp/x.sock", "/d", out, sizeof(out)),
			 0);
	assert_string_equal(out, "/tmp/x.sock");
	assert_int_equal(inst_resolve("42a", "/d", out, sizeof(out)), 0);
	assert_string_equal(out, "42a");
	assert_int_equal(inst_resolve("1", "/a-directory-too-long-for-this",
				      out, 16),
			 -1);
}

/**
 * test_rundir_root() - root's directory is /run/slipway, whatever
 * XDG_RUNTIME_DIR says
 * @state:	unused
 */
static void test_rundir_root(void **state)
{
	char out[256];

	(void)state;
	if (geteuid()) {
		setenv("XDG_RUNTIME_DIR", "relative", 1);
		inst_rundir(out, sizeof(out));
		assert_true(!strncmp(out, "/tmp/slipway-", 13));
		return;
	}
	setenv("XDG_RUNTIME_DIR", "/tmp", 1);
	assert_string_equal(inst_rundir(out, sizeof(out)), "/run/slipway");
}

/**
 * serve_one() - a child that answers one request with @reply, then exits
 * @dir:	directory
 * @name:	socket file name
 * @reply:	what to answer
 *
 * Return: the child's PID
 */
static pid_t serve_one(const char *dir, const char *name, const char *reply)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), c;
	char buf[256];
	size_t n;
	pid_t pid;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid) {
		close(fd);
		return pid;
	}
	c = accept(fd, NULL, NULL);
	/* the whole line first, as the server does: the client sends its
	 * newline apart, and fails if the socket closed before that */
	for (n = 0; c >= 0 && n < sizeof(buf) - 1;) {
		ssize_t r = read(c, buf + n, sizeof(buf) - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = '\0';
		if (strchr(buf, '\n'))
			break;
	}
	if (c >= 0 && write(c, reply, strlen(reply)) > 0)
		close(c);
	unlink(a.sun_path);
	_exit(0);
}

/**
 * stale() - a socket file nobody listens on
 * @dir:	directory
 * @name:	file name
 */
static void stale(const char *dir, const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	close(fd);
}

/**
 * test_scan() - live listed, stale skipped (removed only for a dead PID),
 * other names ignored, control characters cleaned
 * @state:	unused
 */
static void test_scan(void **state)
{
	char dir[] = "/tmp/slipway-test-inst.XXXXXX", live[64], dead[64],
	     alive[64], hung[64], path[128];
	time_t t0;
	int hfd;
	struct inst *v;
	pid_t child, gone;
	struct stat st;
	size_t n;
	int ws;

	(void)state;
	assert_non_null(mkdtemp(dir));
	gone = fork();
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, &ws, 0), gone);
	snprintf(dead, sizeof(dead), "%d.sock", (int)gone);
	stale(dir, dead);
	/* PID 1 runs: its file is left alone */
	snprintf(alive, sizeof(alive), "1.sock");
	stale(dir, alive);
	stale(dir, "other.sock");
	/* one that listens and never answers: left out, after a while */
	snprintf(hung, sizeof(hung), "%d.sock", (int)getppid());
	snprintf(path, sizeof(path), "%s/%s", dir, hung);
	{
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, hung);
		hfd = socket(AF_UNIX, SOCK_STREAM, 0);
		assert_int_equal(bind(hfd, (struct sockaddr *)&a, sizeof(a)),
				 0);
		assert_int_equal(listen(hfd, 4), 0);
	}
	snprintf(live, sizeof(live), "%d.sock", (int)getpid());
	child = serve_one(dir, live,
			  "{\"version\":\"1\",\"name\":\"a\\u001b[2Jb\"}\n");
	t0 = time(NULL);
	n = inst_scan(dir, &v);
	assert_true(time(NULL) - t0 < 6);
	close(hfd);
	snprintf(path, sizeof(path), "%s/%s", dir, hung);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].pid, getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, live);
	assert_string_equal(v[0].path, path);
	assert_string_equal(
		json_string_value(json_object_get(v[0].version, "name")),
		"a?[2Jb");
	inst_free(v, n);
	assert_int_equal(waitpid(child, &ws, 0), child);
	snprintf(path, sizeof(path), "%s/%s", dir, dead);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/%s", dir, alive);
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/other.sock", dir);
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	/* a directory that is not there: none */
	assert_int_equal(inst_scan(dir, &v), 0);
	assert_null(v);
}

/**
 * test_complete() - an older reply completed, a newer one left alone
 * @state:	unused
 */
static void test_complete(void **state)
{
	json_t *ver = json_pack("{s:s}", "version", "1"),
	       *st = json_pack("{s:i, s:{s:i, s:i, s:i, s:i, s:i}}",
			       "uptime_ms", 5000, "counters", "EDGE_RX_BYTES",
			       100, "EDGE_TX_BYTES", 200, "TCP_DROP_OOO", 3,
			       "ETH_DROP_SHORT", 4, "TCP_SEGS", 50),
	       *fl = json_pack("{s:i}", "total", 7),
	       *nv = json_pack("{s:i, s:i, s:i}", "pid", 9, "drops", 1,
			       "bytes_from_guest", 11);

	(void)state;
	inst_complete(ver, "/run/slipway/321.sock", st, fl);
	assert_int_equal(json_integer_value(json_object_get(ver, "pid")), 321);
	assert_int_equal(json_integer_value(json_object_get(ver, "uptime_ms")),
			 5000);
	assert_int_equal(
		json_integer_value(json_object_get(ver, "bytes_from_guest")),
		100);
	assert_int_equal(
		json_integer_value(json_object_get(ver, "bytes_to_guest")),
		200);
	assert_int_equal(json_integer_value(json_object_get(ver, "drops")), 7);
	assert_int_equal(json_integer_value(json_object_get(ver, "flows")), 7);
	inst_complete(nv, "/run/slipway/321.sock", st, NULL);
	assert_int_equal(json_integer_value(json_object_get(nv, "pid")), 9);
	assert_int_equal(json_integer_value(json_object_get(nv, "drops")), 1);
	assert_int_equal(
		json_integer_value(json_object_get(nv, "bytes_from_guest")),
		11);
	assert_null(json_object_get(nv, "flows"));
	/* nothing to fill from: nothing made up */
	json_decref(ver);
	ver = json_object();
	inst_complete(ver, "/tmp/ctl.sock", NULL, NULL);
	assert_int_equal(json_object_size(ver), 0);
	json_decref(ver);
	json_decref(nv);
	json_decref(st);
	json_decref(fl);
}

/**
 * test_units() - human units and durations
 * @state:	unused
 */
static void test_units(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(inst_human(b, sizeof(b), 0), "0");
	assert_string_equal(inst_human(b, sizeof(b), 1023), "1023");
	assert_string_equal(inst_human(b, sizeof(b), 1536), "1.5K");
	assert_string_equal(inst_human(b, sizeof(b), 70 << 20), "70M");
	assert_string_equal(inst_human(b, sizeof(b), 3.0 * (1 << 30)), "3.0G");
	/* out of any unit: cut to the buffer, no overflow */
	inst_human(b, 8, 1e300);
	assert_true(strlen(b) < 8);
	assert_string_equal(inst_duration(b, sizeof(b), 999), "0s");
	assert_string_equal(inst_duration(b, sizeof(b), 59999), "59s");
	assert_string_equal(inst_duration(b, sizeof(b), 65000), "1m05");
	assert_string_equal(inst_duration(b, sizeof(b), 3723000), "1h02");
	assert_string_equal(inst_duration(b, sizeof(b), 90000000), "1d01");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_of),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_rundir_root),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
