/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vu.h - what fuzz_vu.c gives the vhost-user fuzz targets (fuzz_vu_msg,
 * fuzz_vu_seq) */
#ifndef SLIPWAY_FUZZ_VU_H
#define SLIPWAY_FUZZ_VU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edge/edge.h"
#include "util/ctr.h"

/* FUZZ_VERBOSE is set: the edge's log lines are shown */
extern bool fz_verbose;

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
		 size_t path_len, uint64_t (*ctrs)[CTR_NUM], unsigned npairs);

/**
 * fz_fd_count() - how many fds the process has open
 *
 * Return: entries in /proc/self/fd, less the directory's own
 */
int fz_fd_count(void);

#endif /* SLIPWAY_FUZZ_VU_H */
