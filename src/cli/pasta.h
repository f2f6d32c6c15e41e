/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pasta.h - pasta and passt compatibility: their command lines, their
 * process model */
#ifndef SLIPWAY_PASTA_H
#define SLIPWAY_PASTA_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli/conf.h"

/**
 * struct pasta_conf - what a pasta or passt command line asks beyond
 * struct conf: the process model
 * @foreground:	-f: stay in the foreground (a command to run implies it)
 * @one_off:	passt -1/--one-off (or --fd): exit when the guest leaves
 * @netns_quit:	exit when the target namespace goes (--no-netns-quit: no)
 * @pid_dirfd:	-P/--pid: the PID file's directory (O_PATH), or -1
 * @pid_name:	-P/--pid: the PID file's name in @pid_dirfd
 * @log_fd:	-l/--log-file: the log file, open, or -1
 * @null_fd:	/dev/null, for the daemon's standard streams, or -1
 * @ready_fd:	the daemon's end of the pipe to the waiting parent, or -1
 */
struct pasta_conf {
	bool foreground;
	bool one_off;
	bool netns_quit;
	int pid_dirfd;
	const char *pid_name;
	int log_fd;
	int null_fd;
	int ready_fd;
};

/**
 * pasta_invoked() - are we pasta or passt? (argv[0]'s base name contains
 * "pasta" or "passt", or "slipway pasta|passt ARGS")
 * @argc:	argument count
 * @argv:	arguments
 * @mode:	out: CONF_PASTA_PASTA or CONF_PASTA_PASST when not 0
 *
 * Return: 0: no; 1: by name (options from argv[1]); 2: by the subcommand
 *	   (options from argv[2])
 */
int pasta_invoked(int argc, char **argv, enum conf_pasta_mode *mode);

/**
 * pasta_conf_parse() - read a pasta or passt command line into
 * slipway's configuration; exits 0 for --help, --version and
 * --print-capabilities, 1 with a message on a bad command line
 * @c:		configuration to fill
 * @p:		the process-model extras
 * @mode:	CONF_PASTA_PASTA or CONF_PASTA_PASST
 * @argc:	argument count, from the program name or the subcommand
 * @argv:	arguments (argv[0] is the program's name)
 */
void pasta_conf_parse(struct conf *c, struct pasta_conf *p,
		      enum conf_pasta_mode mode, int argc, char **argv);

/**
 * pasta_daemon_start() - unless in the foreground: fork; the parent relays
 * the child's messages and exits once it is ready (0, having written the
 * PID file) or has failed (its status); the child returns and goes on
 * @p:		extras (@ready_fd set in the child)
 */
void pasta_daemon_start(struct pasta_conf *p);

/**
 * pasta_pid_write() - write the PID file if -P asked for one: a new file
 * in its directory, renamed over the path (a symbolic link there is
 * replaced, not followed); called by the daemon's parent once the daemon
 * is ready, or in the foreground before the sandbox takes the filesystem
 * @p:		extras (@pid_dirfd closed and set to -1)
 * @pid:	the PID to write
 *
 * Return: 0 (written, or no -P), or -errno (reported on standard error)
 */
int pasta_pid_write(struct pasta_conf *p, pid_t pid);

/**
 * pasta_ready() - everything is set up: the log file (foreground), or let
 * the parent go and leave its standard streams (daemon)
 * @p:		extras (fds closed, set to -1)
 */
void pasta_ready(struct pasta_conf *p);

#endif /* SLIPWAY_PASTA_H */
