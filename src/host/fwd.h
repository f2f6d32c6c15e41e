/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd.h - published ports: add, remove and list them at run time */
#ifndef SLIPWAY_FWD_H
#define SLIPWAY_FWD_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

struct core;
struct fwd_spec;
struct shard;

/**
 * struct fwd_rule - one published port (one host port), as the forward API
 * sees it
 * @id:		identifier, > 0: what fwd_add() returned (ignored by it)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @host_family: AF_INET, AF_INET6, or AF_UNSPEC: every address of both
 *		families (one dual-stack socket)
 * @host_addr:	bind address; IPv4 as v4-mapped (::ffff:a.b.c.d); unused
 *		with AF_UNSPEC. 0.0.0.0 and :: are allowed (all addresses of
 *		that family)
 * @host_port:	host port, 1 to 65535
 * @guest_set:	@guest_addr is given; false: the guest's configured address
 *		of each client's family (10.0.2.15, or the IPv6 one)
 * @guest_addr:	with @guest_set: where connections go in the guest, IPv4
 *		as v4-mapped; an address in the guest's network, not the
 *		gateway's, the DNS forwarder's, the network or broadcast
 *		address. Clients of the other family appear to it as the
 *		gateway's address of its family
 * @guest_port:	guest port, 1 to 65535
 * @splice:	loopback TCP clients are spliced to the guest's loopback
 *		(start-up -t ports; fwd_add() never sets it: its ports always
 *		go through the edge, so the guest sees clients as the
 *		gateway, as with slirp4netns)
 * @ifname:	bind the socket to this interface (SO_BINDTODEVICE), or ""
 * @auto_tag:	0; or, for a port "auto" opened (fwdauto.c), 1 + the index
 *		of its range in the configuration
 */
struct fwd_rule {
	unsigned id;
	int proto;
	int host_family;
	struct in6_addr host_addr;
	uint16_t host_port;
	bool guest_set;
	struct in6_addr guest_addr;
	uint16_t guest_port;
	bool splice;
	char ifname[16];
	unsigned auto_tag;
};

/*
 * The forward API. Context: the main thread only (shard 0's loop, where
 * published ports live: they are accepted there and the connections handed
 * to other shards through their mailboxes, with the guest address and port
 * by value, so removing a port never races with a shard). No locks. The
 * control thread (ctl.c: the control socket and the slirp4netns API
 * socket) never calls it: it has shard 0 run a job for it
 * (shard_api_call_ask() in shard_api.h).
 */

/**
 * fwd_add() - publish a host port at run time
 * @sh:		shard 0
 * @r:		the port (@id ignored)
 *
 * Return: the new port's id (> 0), or -EINVAL (bad rule: protocol, port 0,
 *	   guest address outside the guest's network), -EAFNOSUPPORT (an IPv6
 *	   guest address with IPv6 off), -EADDRINUSE (a port of ours or
 *	   another program's), -EACCES (privileged port), -EADDRNOTAVAIL (no
 *	   such host address), -ENOMEM, or another -errno from socket(),
 *	   bind() or listen()
 */
int fwd_add(struct shard *sh, const struct fwd_rule *r);

/**
 * fwd_remove() - stop publishing a port: close its socket; connections it
 * accepted go on, a UDP port's flows are forgotten
 * @sh:		shard 0
 * @id:		what fwd_add() returned (or fwd_list() says)
 *
 * Return: 0, or -ENOENT
 */
int fwd_remove(struct shard *sh, unsigned id);

/**
 * fwd_list() - the published ports, in the order of their ids
 * @sh:		shard 0
 * @out:	filled with up to @max entries (may be NULL with @max 0)
 * @max:	room in @out
 *
 * Return: how many ports there are (may be more than @max)
 */
unsigned fwd_list(const struct shard *sh, struct fwd_rule *out, unsigned max);

/**
 * fwd_open_rule() - open a rule's socket as a start-up port is (spliced
 * loopback clients, no address checks but fwd_add()'s), quietly
 * @sh:		shard 0
 * @r:		the port (@id ignored)
 *
 * Context: main thread (shard 0's loop); fwdauto.c
 * Return: the new port's id (> 0), or -errno
 */
int fwd_open_rule(struct shard *sh, const struct fwd_rule *r);

/**
 * fwd_find_auto() - the id of the port "auto" opened for a range and port
 * @sh:		shard 0
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @tag:	its fwd_rule.auto_tag
 * @port:	its host port
 *
 * Return: the id, or 0
 */
unsigned fwd_find_auto(const struct shard *sh, int proto, unsigned tag,
		       uint16_t port);

/**
 * fwd_addr_pton() - an IPv4 or IPv6 address in text, as the table keeps it
 * @s:		text
 * @a:		out: the address; IPv4 v4-mapped (v4-mapped text is neither)
 *
 * Return: AF_INET, AF_INET6, or 0 if it is neither
 */
int fwd_addr_pton(const char *s, struct in6_addr *a);

/**
 * fwd_rule_str() - "tcp 127.0.0.1:8080 -> 10.0.2.100:80", for messages
 * @r:		port
 * @buf:	out
 * @len:	size of @buf
 *
 * Return: @buf
 */
const char *fwd_rule_str(const struct fwd_rule *r, char *buf, size_t len);

/**
 * struct listener - one published-port socket (a slot of a port table)
 * @fd:		socket, or -1: a free slot
 * @family:	AF_INET (IPv4 clients only) or AF_INET6 (IPv6 clients, and
 *		IPv4 ones too when bound without an address)
 * @rule:	what it publishes, with its id
 * @paused:	TCP: out of fds, out of the epoll set's interest until
 *		shard_listen_resume()
 */
struct listener {
	int fd;
	int family;
	struct fwd_rule rule;
	bool paused;
};

/*
 * The shard side of fwd.c: set-up, shard 0's accept and resume, and the
 * address helpers of the socket files. Context: the shards' own threads
 * (never the control thread).
 */
int fwd_init(struct shard *sh);
void fwd_prepare(void);
void fwd_rule_from(const struct shard *sh, const struct fwd_spec *s, int proto,
		   unsigned p, struct fwd_rule *r);
void fwd_accept(struct shard *sh, uint32_t idx);
void fwd_resume(struct shard *sh);
unsigned fwd_count(const struct shard *sh);
void fwd_peer_src(const struct core *c, const void *sa, uint8_t *src,
		  uint16_t *port);
void fwd_src_for(const struct core *c, const uint8_t *gaddr, uint8_t *src);
socklen_t sockaddr_from(struct sockaddr_storage *ss, const uint8_t *addr,
			uint16_t port);

/**
 * sockaddr_to() - a flow address and port from a socket address: the
 * inverse of sockaddr_from() (inline: repair.c and its unit test use it
 * without the rest of fwd.c)
 * @ss:		address (AF_INET, or AF_INET6, v4-mapped or not)
 * @a:		out: 16 bytes, IPv4 v4-mapped
 * @port:	out: host order
 *
 * Return: true if @ss is of either family (else @a and @port are not set)
 */
static inline bool sockaddr_to(const struct sockaddr_storage *ss, uint8_t *a,
			       uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		memset(a, 0, 10);
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		memcpy(a, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
		return true;
	}
	return false;
}

#endif /* SLIPWAY_FWD_H */
