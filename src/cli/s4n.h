/* SPDX-License-Identifier: GPL-2.0-or-later */
/* s4n.h - slirp4netns compatibility: its command line, its fds */
#ifndef SLIPWAY_S4N_H
#define SLIPWAY_S4N_H

#include <stdbool.h>

#include "cli/conf.h"

/**
 * struct s4n_conf - what a slirp4netns command line asks beyond struct conf
 * @exit_fd:	-e: exit when this fd reads EOF or hangs up, or -1
 * @ready_fd:	-r: write "1" there once serving, then close it, or -1
 * @api_path:	-a: the API socket's path, or NULL
 */
struct s4n_conf {
	int exit_fd;
	int ready_fd;
	const char *api_path;
};

/**
 * s4n_invoked() - are we slirp4netns? (argv[0]'s base name, or
 * "slipway slirp4netns ARGS")
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0: no; 1: by name (options from argv[1]); 2: by the subcommand
 *	   (options from argv[2])
 */
int s4n_invoked(int argc, char **argv);

/**
 * s4n_conf_parse() - read a slirp4netns command line into slipway's
 * configuration; exits 0 for --help and --version, 2 with a message on a
 * bad command line
 * @c:		configuration to fill
 * @s:		the slirp4netns extras
 * @argc:	argument count, from the program name or the subcommand
 * @argv:	arguments (argv[0] is skipped)
 */
void s4n_conf_parse(struct conf *c, struct s4n_conf *s, int argc, char **argv);

/**
 * s4n_ready() - tell the client we serve: "1" on the ready fd, closed
 * @s:	extras
 */
void s4n_ready(struct s4n_conf *s);

#endif /* SLIPWAY_S4N_H */
