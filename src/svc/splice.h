/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice.h - loopback clients of published ports spliced to the guest's loopback */
#ifndef SLIPWAY_SPLICE_H
#define SLIPWAY_SPLICE_H

#include <stdbool.h>
#include <stdint.h>

struct flow_rec;
struct shard;

/**
 * splice_init() - set up splicing for a shard
 * @sh:		shard (conf, epoll set and counters ready)
 * @nsh_fd:	socket to the namespace helper (nsh.c), or -1: no splicing
 *
 * Opens the -T ports on the guest's loopback and fills the socket pools
 * from the helper. If the helper does not answer, splicing of -t clients
 * stays off with a warning and published ports use the tap; -T ports are
 * a start-up failure.
 *
 * Ownership: takes @nsh_fd in every case.
 * #syscalls fcntl epoll_ctl
 * Return: 0, or -errno (logged)
 */
int splice_init(struct shard *sh, int nsh_fd);

/**
 * splice_fini() - close every spliced connection (with a reset: bytes in
 *		   flight are lost) and everything splice_init() made
 * @sh:	shard
 *
 * #syscalls setsockopt close
 */
void splice_fini(struct shard *sh);

/**
 * splice_accept() - take an accepted published-port client, if it may be
 *		     spliced
 * @sh:		shard
 * @fd:		accepted socket, non-blocking
 * @sa:		the client's address (struct sockaddr_in or sockaddr_in6)
 * @guest_port:	the guest port it goes to
 *
 * A client from a loopback address is connected to the guest's loopback
 * on @guest_port through a socket made in the guest's namespace, and the
 * bytes are spliced between the two sockets. Any other client, and a
 * loopback client that cannot be spliced now (no socket, pipe or table
 * slot: counted as SPLICE_FALLBACKS), is left to the caller (the tap).
 *
 * Ownership: on true, splice owns @fd.
 * Return: true if spliced (or refused and closed), false if the caller
 *	   should carry it through the tap
 */
bool splice_accept(struct shard *sh, int fd, const void *sa,
		   uint16_t guest_port);

/**
 * splice_event() - an EP_SPLICE epoll event
 * @sh:		shard
 * @idx:	EP_IDX() of the event
 * @events:	epoll events
 */
void splice_event(struct shard *sh, uint32_t idx, uint32_t events);

/**
 * splice_resume() - arm the -T listeners that paused (out of fds) again
 * @sh:		shard
 */
void splice_resume(struct shard *sh);

/**
 * splice_nsh_diag() - a NETLINK_SOCK_DIAG socket of the guest's namespace,
 * from the namespace socket helper
 * @sh:		shard 0
 *
 * Context: start-up (fwdauto.c)
 * Return: the socket, or -errno
 */
int splice_nsh_diag(struct shard *sh);

/**
 * splice_nsh_sockstat() - the guest namespace's /proc/net/sockstat or
 * sockstat6, opened by the helper inside it
 * @sh:		shard 0
 * @af:		AF_INET (sockstat) or AF_INET6 (sockstat6)
 *
 * Context: start-up (fwdauto.c)
 * Return: the file, or -errno
 */
int splice_nsh_sockstat(struct shard *sh, int af);

/**
 * splice_ns_port_fail() - judge a port the guest's namespace would not give
 * @ret:	-errno of opening it (through the namespace socket helper)
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	the port on the guest's loopback
 * @udp:	a -U port (bound), else a -T one (listening)
 *
 * A namespace without IPv6 is no error: that family is skipped. Anything
 * else is said, with a hint when the port is in use there.
 *
 * Context: start-up
 * Return: 1 if the namespace has no IPv6, else @ret (logged)
 */
int splice_ns_port_fail(int ret, int af, unsigned port, bool udp);

/**
 * splice_nsh_udp() - a UDP socket bound on the guest's loopback, from the
 * namespace socket helper (-U)
 * @sh:		shard 0
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port:	port on the guest's loopback
 *
 * Context: start-up (udpns.c)
 * Return: the socket, or -errno
 */
int splice_nsh_udp(struct shard *sh, int af, uint16_t port);

/**
 * splice_tl_add() - listen on a guest loopback port for -T
 * @sh:		shard 0
 * @af:		AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @guest_port:	the port there
 * @host_port:	the host loopback port its connections go to
 * @tag:	0 (the command line) or the "auto" range's tag
 *
 * Context: main thread (shard 0's loop); waits for the helper's answer
 * Return: 0, or -errno
 */
int splice_tl_add(struct shard *sh, int af, uint16_t guest_port,
		  uint16_t host_port, unsigned tag);

/**
 * splice_tl_remove() - stop listening on a guest loopback port "auto"
 * opened (both families); connections it accepted go on
 * @sh:		shard 0
 * @guest_port:	the port
 * @tag:	the "auto" range's tag
 *
 * Return: how many sockets were closed
 */
unsigned splice_tl_remove(struct shard *sh, uint16_t guest_port, unsigned tag);

/**
 * splice_tl_port() - does slipway listen on this guest loopback port (-T)?
 * @sh:		shard 0
 * @guest_port:	the port
 *
 * Return: true if it does
 */
bool splice_tl_port(const struct shard *sh, uint16_t guest_port);

/**
 * splice_snap_cap() - how many spliced connections a shard can have: the
 * room they need in a flow snapshot (shard_hooks.snap)
 * @sh:		shard
 *
 * Context: the control thread; reads only the configuration and the
 * shard's index
 * Return: entries (0 but on shard 0)
 */
uint32_t splice_snap_cap(const struct shard *sh);

/**
 * splice_snap() - the spliced connections as flow records (ctl flows,
 * shard_hooks.snap): kind FLOW_KIND_SPLICE, the guest's end in the guest's
 * namespace, the remote end the host's
 * @sh:		shard
 * @buf:	records out
 * @cap:	entries @buf holds
 * @total:	out: connections there are (may exceed @cap)
 *
 * Context: the shard's own thread
 * Return: records written
 */
uint32_t splice_snap(struct shard *sh, struct flow_rec *buf, uint32_t cap,
		     uint32_t *total);
void splice_sweep(struct shard *sh);

#endif /* SLIPWAY_SPLICE_H */
