/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vu.c - what the vhost-user fuzz targets share: the log and die
 * functions the edge calls, the edge set up once per process, and an fd
 * counter
 *
 * fuzz_vu.h declares it.
 */

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edge/edge.h"
#include "util/ctr.h"
#include "util/log.h"

#include "fuzz_common.h"
#include "fuzz_vu.h"

enum log_level log_max_level = LOG_ERR;

bool fz_verbose;

static struct edge *vu_edge;
static char sock_dir[64] = "";

/**
 * logmsg() - the edge's log lines: shown with FUZZ_VERBOSE=1 only
 * @lvl:	severity
 * @with_errno:	append strerror(errno)
 * @fmt:	printf format
 */
void logmsg(enum log_level lvl, bool with_errno, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (!fz_verbose || lvl > log_max_level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (with_errno)
		fprintf(stderr, ": %s", strerror(saved));
	fputc('\n', stderr);
}

/**
 * die() - start-up failures only; none expected here
 * @fmt:	printf format
 */
_Noreturn void die(const char *fmt, ...)
{
	(void)fmt;
	abort();
}

/**
 * die_perror() - as die()
 * @fmt:	printf format
 */
_Noreturn void die_perror(const char *fmt, ...)
{
	(void)fmt;
	abort();
}

/**
 * cleanup() - remove the socket and its directory at exit
 */
static void cleanup(void)
{
	if (vu_edge && vu_edge->ops)
		vu_edge->ops->fini(vu_edge);
	if (*sock_dir)
		rmdir(sock_dir);
}

/**
 * fz_vu_setup() - a vhost-user edge listening on a socket in a new temporary
 * directory, with @npairs queue pairs counting into @ctrs; the edge and the
 * directory go at exit
 * @edge:	edge to set up
 * @name:	prefix of the directory's name in /tmp
 * @path:	the socket's path, out
 * @path_len:	size of @path
 * @ctrs:	@npairs rows of counters
 * @npairs:	queue pairs
 */
void fz_vu_setup(struct edge *edge, const char *name, char *path,
		 size_t path_len, uint64_t (*ctrs)[CTR_NUM], unsigned npairs)
{
	unsigned i;

	fz_verbose = getenv("FUZZ_VERBOSE") != NULL;
	if (fz_verbose)
		log_max_level = LOG_DEBUG;
	snprintf(sock_dir, sizeof(sock_dir), "/tmp/%s.XXXXXX", name);
	FZ_CHECK(mkdtemp(sock_dir));
	snprintf(path, path_len, "%s/vu.sock", sock_dir);
	FZ_CHECK(!vu_edge_init(edge,
			       &(const struct edge_args){ .path = path,
							  .fd = -1,
							  .nqueues = npairs,
							  .offload = true,
							  .mtu = 65520 }));
	for (i = 0; i < npairs; i++)
		edge->qctr[i] = ctrs[i];
	vu_edge = edge;
	atexit(cleanup);
}

/**
 * fz_fd_count() - how many fds the process has open
 *
 * Return: entries in /proc/self/fd, less the directory's own
 */
int fz_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	FZ_CHECK(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}
