/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netns_smoke.c - manual smoke test for host/netns.c (not built by default) */

/*
 * gcc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc src/host/netns.c \
 *     src/host/nl.c tests/integ/netns_smoke.c -o /tmp/smoke
 *
 * smoke [-u] [-j NETNS] [-q QUEUES] [-i IFNAME] [-c SHELL_CMD] [-x HOST_CMD]
 *	 [-n] [-N]
 *   -u	use a user namespace (default: only when not root); -U: do not
 *   -j	join NETNS instead of creating a namespace
 *   -c	command run in a new namespace via /bin/sh -c
 *   -e	run this program instead (exec failure test), no shell
 *   -x	command run on the host (system()) while the tap fds are held
 *   -g	gateway, -m MTU, -o offloads, -v vnet header length
 *   -S	no command: run $SHELL (or /bin/sh)
 *   -n	never start the command: close ctl_fd (the helper must exit 1)
 *   -N	configure off
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <linux/if_tun.h>

#include "host/netns.h"
#include "util/log.h"
#include "util/util.h"

enum log_level log_max_level = LOG_DEBUG;

/**
 * logmsg() - stub: write one log line to stderr
 * @lvl:	severity
 * @with_errno:	append ": strerror(errno)"
 * @fmt:	printf format
 */
void logmsg(enum log_level lvl, bool with_errno, const char *fmt, ...)
{
	static const char *const names[] = { "ERR", "WARN", "INFO", "DEBUG",
					     "TRACE" };
	int e = errno;
	va_list ap;

	fprintf(stderr, "[%s %d] ", names[lvl], (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (with_errno)
		fprintf(stderr, ": %s", strerror(e));
	fputc('\n', stderr);
}

/**
 * die() - stub: log and exit(1)
 * @fmt:	printf format
 */
_Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/**
 * die_perror() - stub: log with strerror(errno) and exit(1)
 * @fmt:	printf format
 */
_Noreturn void die_perror(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(e));
	exit(1);
}

/**
 * assert_fail() - stub: report a failed assertion and abort
 * @expr:	expression text
 * @file:	source file
 * @line:	source line
 * @func:	function
 */
_Noreturn void assert_fail(const char *expr, const char *file, int line,
			   const char *func)
{
	fprintf(stderr, "ASSERT(%s) failed at %s:%d (%s)\n", expr, file, line,
		func);
	abort();
}

/**
 * main() - run one smoke scenario, see the top of the file
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 on success, 1 on failure
 */
int main(int argc, char **argv)
{
	char *sh_cmd[] = { "/bin/sh", "-c", "ip addr show; ip route show",
			   NULL };
	char *exec_cmd[] = { NULL, NULL };
	struct netns_conf c = {
		.cmd = sh_cmd,
		.userns = geteuid() != 0,
		.ifname = "tap0",
		.configure = true,
		.prefix_len = 24,
		.mtu = 65520,
		.queues = 1,
		.offloads = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6,
		.vnet_hdr_len = 12,
	};
	const char *host_cmd = NULL;
	bool no_start = false;
	struct netns_state s;
	unsigned i;
	int opt, ret, status;

	inet_pton(AF_INET, "10.0.2.15", &c.addr_be);
	inet_pton(AF_INET, "10.0.2.2", &c.gw_be);

	while ((opt = getopt(argc, argv, "uUj:q:i:c:e:x:nNSg:m:o:v:")) != -1) {
		switch (opt) {
		case 'u':
			c.userns = true;
			break;
		case 'U':
			c.userns = false;
			break;
		case 'j':
			c.netns_path = optarg;
			break;
		case 'q':
			c.queues = (unsigned)atoi(optarg);
			break;
		case 'i':
			c.ifname = optarg;
			break;
		case 'c':
			sh_cmd[2] = optarg;
			break;
		case 'e':
			exec_cmd[0] = optarg;
			c.cmd = exec_cmd;
			break;
		case 'x':
			host_cmd = optarg;
			break;
		case 'n':
			no_start = true;
			break;
		case 'S':
			c.cmd = NULL;
			break;
		case 'g':
			inet_pton(AF_INET, optarg, &c.gw_be);
			break;
		case 'm':
			c.mtu = (uint32_t)atoi(optarg);
			break;
		case 'o':
			c.offloads = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			c.vnet_hdr_len = atoi(optarg);
			break;
		case 'N':
			c.configure = false;
			break;
		default:
			return 1;
		}
	}

	ret = netns_setup(&c, &s);
	if (ret) {
		printf("netns_setup: %d (%s)\n", ret, strerror(-ret));
		return 1;
	}

	printf("netns_setup: ok, uid %d, nqueues %u, cmd_pid %d, "
	       "watch_pid %d, ctl_fd %d\n", (int)getuid(), s.nqueues,
	       (int)s.cmd_pid, (int)s.watch_pid, s.ctl_fd);
	printf("mac %02x:%02x:%02x:%02x:%02x:%02x\n", s.mac[0], s.mac[1],
	       s.mac[2], s.mac[3], s.mac[4], s.mac[5]);
	for (i = 0; i < s.nqueues; i++) {
		int fl = fcntl(s.tap_fds[i], F_GETFL);
		int fdfl = fcntl(s.tap_fds[i], F_GETFD);
		struct ifreq ifr;
		int hdr = -1;

		memset(&ifr, 0, sizeof(ifr));
		ioctl(s.tap_fds[i], TUNGETVNETHDRSZ, &hdr);
		ioctl(s.tap_fds[i], TUNGETIFF, &ifr);
		printf("fd %d: %s flags 0x%x nonblock %d cloexec %d "
		       "vnet_hdr_sz %d\n", s.tap_fds[i], ifr.ifr_name,
		       (unsigned)ifr.ifr_flags, !!(fl & O_NONBLOCK),
		       !!(fdfl & FD_CLOEXEC), hdr);
	}
	fflush(stdout);

	if (host_cmd) {
		ret = system(host_cmd);
		printf("host command status %d\n", ret);
		fflush(stdout);
	}

	if (s.cmd_pid > 0) {
		if (no_start) {
			close(s.ctl_fd);
			s.ctl_fd = -1;
		} else if ((ret = netns_start_cmd(&s))) {
			printf("netns_start_cmd: %d\n", ret);
		}
		if (waitpid(s.cmd_pid, &status, 0) < 0) {
			perror("waitpid");
			return 1;
		}
		if (WIFEXITED(status))
			printf("command exited with status %d\n",
			       WEXITSTATUS(status));
		else
			printf("command killed by signal %d\n",
			       WTERMSIG(status));
	}

	for (i = 0; i < s.nqueues; i++)
		close(s.tap_fds[i]);
	return 0;
}
