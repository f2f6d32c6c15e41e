/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swmig.c - write a live-migration state stream to a file, for tests */

/*
 * DOC: Theory of Operation
 *
 * A test instrument, not the product: it writes what a migration source
 * would (src/core/mig.h), from a small command line, with the same
 * serializers (src/core/mig.c, compiled in), so that a test can feed a
 * destination any state it wants: through the vhost-user device-state
 * channel (a frontend's SET_DEVICE_STATE_FD LOAD), or over --migrate-from.
 *
 * The stream: the header, the network record (the guest's and gateway's
 * addresses and the MTU, slipway's defaults unless given: a destination
 * refuses a network other than its own), N established TCP flows, and the
 * end record. Flow i (from 0) is the guest's connection from GUEST
 * (port + i) to REMOTE (port + i with --spread-remote, else the same),
 * its sequence numbers consistent (snd_una = snd_nxt = snd_max = iss + 1,
 * rcv_acked = rcv_nxt, the window ours to advertise) so that tcp_import()
 * takes it.
 *
 * Each flow's socket travels either as a descriptor (--fds: TCP record i
 * names descriptor i, the header counts N; only a --migrate-from sender
 * that passes N TCP sockets makes sense of it, a device state is refused
 * whole) or, by default, as its TCP_REPAIR state: a MIG_REC_REPAIR record
 * after the TCP record, with LOCAL (port + i) and PEER (the remote's
 * address and port unless given), the send and receive queues' bytes
 * (a string, or a length of a repeated pattern), sequence numbers and
 * window fields the kernel accepts in repair mode.
 *
 * Exit status: 0 written, 1 a write failed, 2 a bad command line.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mig.h"
#include "toolutil.h"

const char tool_name[] = "swmig";

#define DEF_GUEST4 "10.0.2.15"
#define DEF_GW4 "10.0.2.2"
#define DEF_GUEST6 "fd00:5ee:d::15"
#define DEF_GW6 "fd00:5ee:d::2"
#define DEF_MTU 65520
#define DEF_GUEST_PORT 40000
#define DEF_LOCAL_PORT 30000
#define TCPS_ESTABLISHED 4 /* src/core/tcp.h */
#define TCPF_GUEST_WS 0x20 /* src/core/tcp.h */
#define QUEUE_MAX (64U << 20)

/**
 * struct ep - an address and a port as given
 * @a:		address, IPv4 as v4-mapped IPv6
 * @v4:		an IPv4 address
 * @port:	port
 * @set:	given on the command line
 */
struct ep {
	uint8_t a[16];
	bool v4;
	uint16_t port;
	bool set;
};

/**
 * struct queue - a socket queue's bytes as given
 * @s:		a string (NULL: @len bytes of a pattern)
 * @len:	bytes
 */
struct queue {
	const char *s;
	uint32_t len;
};

/**
 * struct opts - the command line
 * @out:	the file
 * @net:	the network record
 * @ipv6:	the network record carries IPv6 addresses
 * @nflows:	TCP flows
 * @fds:	flows name descriptors (else repair records)
 * @guest:	the first flow's guest side
 * @remote:	the first flow's remote side
 * @spread_remote: remote port + i (else the same for every flow)
 * @local:	repair: the first flow's local side
 * @peer:	repair: its peer (default: @remote)
 * @sndq:	repair: send queue
 * @rcvq:	repair: receive queue
 * @shards:	records spread over this many shards (round robin)
 * @wscale:	repair: window scaling on (7 both ways)
 */
struct opts {
	const char *out;
	struct mig_net net;
	bool ipv6;
	uint32_t nflows;
	bool fds;
	struct ep guest, remote, local, peer;
	bool spread_remote;
	struct queue sndq, rcvq;
	unsigned shards;
	bool wscale;
};

/**
 * usage() - print the usage and exit
 * @status:	exit status (0: to stdout)
 */
static _Noreturn void usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f,
		"Usage: swmig [OPTIONS] FILE\n"
		"Write a slipway migration state stream (src/core/mig.h) to "
		"FILE ('-': stdout).\n"
		"\n"
		"Network record (a destination refuses one unlike its own):\n"
		"  --guest4 ADDR       guest IPv4 address (" DEF_GUEST4 ")\n"
		"  --gw4 ADDR          gateway IPv4 address (" DEF_GW4 ")\n"
		"  --guest6 ADDR       guest IPv6 address (" DEF_GUEST6 ")\n"
		"  --gw6 ADDR          gateway IPv6 address (" DEF_GW6 ")\n"
		"  --no-ipv6           no IPv6 addresses (slipway with IPv6 "
		"off)\n"
		"  --mtu N             MTU (%u)\n"
		"  --mac MAC           the guest's MAC address (none)\n"
		"\n"
		"TCP flows (established; flow i counts ports up from the "
		"first):\n"
		"  --flows N           how many (0; 1 if a repair option is "
		"given)\n"
		"  --guest ADDR:PORT   guest side (guest address:%u)\n"
		"  --remote ADDR:PORT  what the guest connected to "
		"(gateway:80)\n"
		"  --spread-remote     remote port + i too (else the same "
		"port)\n"
		"  --shards K          records spread over K shards (1)\n"
		"  --fds               each names a descriptor (0..N-1), for a "
		"--migrate-from\n"
		"                      sender; a device-state LOAD refuses "
		"that whole\n"
		"\n"
		"Their sockets as TCP_REPAIR state (the default without "
		"--fds):\n"
		"  --local ADDR:PORT   local side (127.0.0.1:%u, or 0.0.0.0 "
		"if PEER is not\n"
		"                      loopback; port + i)\n"
		"  --peer ADDR:PORT    peer (REMOTE; 127.0.0.1 for the "
		"gateway's address)\n"
		"  --sndq STRING       send queue: these bytes (go to the "
		"peer)\n"
		"  --sndq-len N        send queue: N bytes of a pattern\n"
		"  --rcvq STRING       receive queue: these bytes (go to the "
		"guest)\n"
		"  --rcvq-len N        receive queue: N bytes of a pattern\n"
		"  --wscale            window scaling on (7 both ways)\n"
		"\n"
		"Examples:\n"
		"  swmig --local 10.99.0.1:8022 --remote 10.99.0.2:80 \\\n"
		"        --sndq INJECTED-BY-FRONTEND state.bin\n"
		"  swmig --flows 2000 --remote 10.0.2.2:9 state.bin\n",
		DEF_MTU, DEF_GUEST_PORT, DEF_LOCAL_PORT);
	exit(status);
}

/**
 * parse_addr() - an IPv4 or IPv6 address
 * @opt:	option, for the message
 * @s:		text
 * @a:		out: IPv6, or IPv4 as v4-mapped
 * @v4:		out: it is IPv4 (may be NULL)
 */
static void parse_addr(const char *opt, const char *s, uint8_t a[16], bool *v4)
{
	struct in_addr a4;

	memset(a, 0, 16);
	if (inet_pton(AF_INET, s, &a4) == 1) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &a4, 4);
		if (v4)
			*v4 = true;
		return;
	}
	if (inet_pton(AF_INET6, s, a) != 1)
		usage_error("%s: not an address: '%s'", opt, s);
	if (v4)
		*v4 = false;
}

/**
 * parse_ep() - ADDR:PORT, or [ADDR6]:PORT
 * @opt:	option, for the message
 * @s:		text
 * @ep:		out
 */
static void parse_ep(const char *opt, const char *s, struct ep *ep)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *colon;
	const char *a;

	if (strlen(s) >= sizeof(buf))
		usage_error("%s: too long: '%s'", opt, s);
	strcpy(buf, s);
	colon = strrchr(buf, ':');
	if (!colon)
		usage_error("%s: expected ADDR:PORT, got '%s'", opt, s);
	*colon = '\0';
	a = buf;
	if (buf[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		a = buf + 1;
	}
	parse_addr(opt, a, ep->a, &ep->v4);
	ep->port = (uint16_t)parse_uint(opt, colon + 1, 1, 65535);
	ep->set = true;
}

/**
 * parse_mac() - a MAC address
 * @s:		text
 * @mac:	out
 */
static void parse_mac(const char *s, uint8_t mac[6])
{
	unsigned b[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		usage_error("--mac: not a MAC address: '%s'", s);
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			usage_error("--mac: not a MAC address: '%s'", s);
		mac[i] = (uint8_t)b[i];
	}
}

/**
 * ep_v4be() - an endpoint's IPv4 address, network order
 * @a:		v4-mapped address
 *
 * Return: the address
 */
static uint32_t ep_v4be(const uint8_t a[16])
{
	uint32_t v;

	memcpy(&v, a + 12, 4);
	return v;
}

/**
 * parse() - the command line
 * @argc:	count
 * @argv:	arguments
 * @o:		out
 */
static void parse(int argc, char **argv, struct opts *o)
{
	enum {
		O_GUEST4 = 256,
		O_GW4,
		O_GUEST6,
		O_GW6,
		O_NO_IPV6,
		O_MTU,
		O_MAC,
		O_FLOWS,
		O_GUEST,
		O_REMOTE,
		O_SPREAD,
		O_SHARDS,
		O_FDS,
		O_LOCAL,
		O_PEER,
		O_SNDQ,
		O_SNDQ_LEN,
		O_RCVQ,
		O_RCVQ_LEN,
		O_WSCALE,
	};
	static const struct option lo[] = {
		{ "guest4", required_argument, NULL, O_GUEST4 },
		{ "gw4", required_argument, NULL, O_GW4 },
		{ "guest6", required_argument, NULL, O_GUEST6 },
		{ "gw6", required_argument, NULL, O_GW6 },
		{ "no-ipv6", no_argument, NULL, O_NO_IPV6 },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "mac", required_argument, NULL, O_MAC },
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "guest", required_argument, NULL, O_GUEST },
		{ "remote", required_argument, NULL, O_REMOTE },
		{ "spread-remote", no_argument, NULL, O_SPREAD },
		{ "shards", required_argument, NULL, O_SHARDS },
		{ "fds", no_argument, NULL, O_FDS },
		{ "local", required_argument, NULL, O_LOCAL },
		{ "peer", required_argument, NULL, O_PEER },
		{ "sndq", required_argument, NULL, O_SNDQ },
		{ "sndq-len", required_argument, NULL, O_SNDQ_LEN },
		{ "rcvq", required_argument, NULL, O_RCVQ },
		{ "rcvq-len", required_argument, NULL, O_RCVQ_LEN },
		{ "wscale", no_argument, NULL, O_WSCALE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool flows_set = false, repair_opt = false;
	uint8_t a[16];
	int c;

	memset(o, 0, sizeof(*o));
	o->ipv6 = true;
	o->shards = 1;
	o->net.mtu = DEF_MTU;
	parse_addr("--guest4", DEF_GUEST4, a, NULL);
	o->net.guest4_be = ep_v4be(a);
	parse_addr("--gw4", DEF_GW4, a, NULL);
	o->net.gw4_be = ep_v4be(a);
	parse_addr("--guest6", DEF_GUEST6, o->net.guest6, NULL);
	parse_addr("--gw6", DEF_GW6, o->net.gw6, NULL);
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		bool v4;

		switch (c) {
		case O_GUEST4:
		case O_GW4:
			parse_addr(argv[optind - 1], optarg, a, &v4);
			if (!v4)
				usage_error("%s: not an IPv4 address: '%s'",
					    argv[optind - 1], optarg);
			*(c == O_GUEST4 ? &o->net.guest4_be :
					  &o->net.gw4_be) = ep_v4be(a);
			break;
		case O_GUEST6:
		case O_GW6:
			parse_addr(argv[optind - 1], optarg,
				   c == O_GUEST6 ? o->net.guest6 : o->net.gw6,
				   &v4);
			if (v4)
				usage_error("%s: not an IPv6 address: '%s'",
					    argv[optind - 1], optarg);
			break;
		case O_NO_IPV6:
			o->ipv6 = false;
			break;
		case O_MTU:
			o->net.mtu = parse_uint("--mtu", optarg, 68, 65535);
			break;
		case O_MAC:
			parse_mac(optarg, o->net.guest_mac);
			break;
		case O_FLOWS:
			o->nflows = parse_uint("--flows", optarg, 0, 1000000);
			flows_set = true;
			break;
		case O_GUEST:
			parse_ep("--guest", optarg, &o->guest);
			break;
		case O_REMOTE:
			parse_ep("--remote", optarg, &o->remote);
			break;
		case O_SPREAD:
			o->spread_remote = true;
			break;
		case O_SHARDS:
			o->shards = parse_uint("--shards", optarg, 1, 256);
			break;
		case O_FDS:
			o->fds = true;
			break;
		case O_LOCAL:
			parse_ep("--local", optarg, &o->local);
			repair_opt = true;
			break;
		case O_PEER:
			parse_ep("--peer", optarg, &o->peer);
			repair_opt = true;
			break;
		case O_SNDQ:
		case O_RCVQ: {
			struct queue *q = c == O_SNDQ ? &o->sndq : &o->rcvq;

			q->s = optarg;
			q->len = (uint32_t)strlen(optarg);
			repair_opt = true;
			break;
		}
		case O_SNDQ_LEN:
		case O_RCVQ_LEN: {
			struct queue *q = c == O_SNDQ_LEN ? &o->sndq : &o->rcvq;

			q->s = NULL;
			q->len = parse_uint(argv[optind - 1], optarg, 0,
					    QUEUE_MAX);
			repair_opt = true;
			break;
		}
		case O_WSCALE:
			o->wscale = true;
			repair_opt = true;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	o->out = argv[optind];
	if (!o->ipv6) {
		memset(o->net.guest6, 0, 16);
		memset(o->net.gw6, 0, 16);
	}
	if (!flows_set && repair_opt)
		o->nflows = 1;
	if (o->fds && repair_opt)
		usage_error("--fds and the repair options exclude each other");
	if (!o->guest.set) {
		memset(o->guest.a, 0, 16);
		o->guest.a[10] = o->guest.a[11] = 0xff;
		memcpy(o->guest.a + 12, &o->net.guest4_be, 4);
		o->guest.v4 = true;
		o->guest.port = DEF_GUEST_PORT;
	}
	if (!o->remote.set) {
		memset(o->remote.a, 0, 16);
		o->remote.a[10] = o->remote.a[11] = 0xff;
		memcpy(o->remote.a + 12, &o->net.gw4_be, 4);
		o->remote.v4 = true;
		o->remote.port = 80;
	}
	if (o->guest.v4 != o->remote.v4)
		usage_error("--guest and --remote: one address family");
	if (!o->peer.set) {
		o->peer = o->remote;
		if (o->remote.v4 && ep_v4be(o->remote.a) == o->net.gw4_be)
			parse_addr("--peer", "127.0.0.1", o->peer.a, NULL);
	}
	if (!o->local.set) {
		o->local.v4 = o->peer.v4;
		o->local.port = DEF_LOCAL_PORT;
		if (o->peer.v4 && o->peer.a[12] == 127)
			parse_addr("--local", "127.0.0.1", o->local.a, NULL);
		else if (o->peer.v4)
			parse_addr("--local", "0.0.0.0", o->local.a, NULL);
		else
			memset(o->local.a, 0, 16);
	}
	if (o->local.v4 != o->peer.v4)
		usage_error("--local and --peer: one address family");
	if ((uint64_t)o->guest.port + o->nflows - 1 > 65535 ||
	    (o->spread_remote &&
	     (uint64_t)o->remote.port + o->nflows - 1 > 65535) ||
	    (!o->fds && (uint64_t)o->local.port + o->nflows - 1 > 65535))
		usage_error("%u flows do not fit in the ports from the first",
			    o->nflows);
}

/**
 * fill() - a queue's bytes
 * @q:		the queue as given
 * @i:		flow number (the pattern starts from it)
 *
 * Return: the bytes (malloc'd; NULL if none), exits if out of memory
 */
static uint8_t *fill(const struct queue *q, uint32_t i)
{
	uint8_t *b;
	uint32_t k;

	if (!q->len)
		return NULL;
	b = malloc(q->len);
	if (!b) {
		fprintf(stderr, "swmig: out of memory\n");
		exit(1);
	}
	if (q->s) {
		memcpy(b, q->s, q->len);
		return b;
	}
	for (k = 0; k < q->len; k++)
		b[k] = (uint8_t)('a' + (i + k) % 26);
	return b;
}

/**
 * put_flow() - flow @i's records at @out
 * @o:		options
 * @i:		flow number
 * @out:	buffer
 * @room:	its size
 *
 * Return: bytes written, 0 if they did not fit
 */
static size_t put_flow(const struct opts *o, uint32_t i, uint8_t *out,
		       size_t room)
{
	uint8_t shard = (uint8_t)(i % o->shards);
	struct mig_tcp t = { 0 };
	struct mig_repair r = { 0 };
	uint8_t *sq, *rq;
	size_t len;

	t.fd = o->fds ? i : MIG_NONE;
	memcpy(t.guest_addr, o->guest.a, 16);
	memcpy(t.remote_addr, o->remote.a, 16);
	t.guest_port = (uint16_t)(o->guest.port + i);
	t.remote_port = (uint16_t)(o->remote.port + (o->spread_remote ? i : 0));
	t.state = TCPS_ESTABLISHED;
	t.flags = TCPF_GUEST_WS;
	t.ws_guest = 7;
	t.mss = o->net.mtu > 1500 ? 1460 : o->net.mtu - 40;
	t.iss = 0x40000000U + i * 0x10000U;
	t.snd_una = t.snd_nxt = t.snd_max = t.iss + 1;
	t.rcv_nxt = t.rcv_acked = 0x70000000U + i * 0x10000U + 1;
	t.guest_wnd = 65535;
	t.host_space = 65535;
	t.adv_wnd_end = t.rcv_nxt + 65535;
	t.srtt_us = 1000;
	t.rto_ns = 200000000ULL;
	t.age_ns = 1000000000ULL;
	len = mig_put_tcp(out, room, shard, &t);
	if (!len || o->fds)
		return len;
	r.v6 = !o->local.v4;
	memcpy(r.local, o->local.a, 16);
	r.lport = (uint16_t)(o->local.port + i);
	memcpy(r.peer, o->peer.a, 16);
	r.pport = (uint16_t)(o->peer.port +
			     (o->spread_remote && !o->peer.set ? i : 0));
	r.snd_seq = 0x10000000U + i * 0x10000U + o->sndq.len;
	r.rcv_seq = 0x20000000U + i * 0x10000U + o->rcvq.len;
	r.mss = 1460;
	if (o->wscale) {
		r.flags = MIG_RPF_WSCALE;
		r.snd_wscale = r.rcv_wscale = 7;
	}
	r.snd_wl1 = r.rcv_seq;
	r.snd_wnd = 65535;
	r.max_window = 65535;
	r.rcv_wnd = 65535;
	r.rcv_wup = r.rcv_seq;
	r.sndq_len = o->sndq.len;
	r.rcvq_len = o->rcvq.len;
	r.sndq = sq = fill(&o->sndq, i);
	r.rcvq = rq = fill(&o->rcvq, i);
	r.sndq = sq ? sq : (const uint8_t *)"";
	r.rcvq = rq ? rq : (const uint8_t *)"";
	len += mig_put_repair(out + len, room - len, shard, &r);
	free(sq);
	free(rq);
	return len == MIG_TCP_LEN ? 0 : len;
}

/**
 * main() - write the stream
 * @argc:	count
 * @argv:	arguments
 *
 * Return: 0, 1 on a failed write
 */
int main(int argc, char **argv)
{
	struct mig_end end = { 0 };
	struct opts o;
	size_t cap, len = MIG_HDR_LEN, per;
	uint8_t *buf;
	uint32_t i;
	FILE *f;

	parse(argc, argv, &o);
	per = MIG_TCP_LEN +
	      (o.fds ? 0 : MIG_REPAIR_MAX((size_t)o.sndq.len + o.rcvq.len));
	cap = MIG_HDR_LEN + 256 + (size_t)o.nflows * per;
	buf = malloc(cap);
	if (!buf) {
		fprintf(stderr, "swmig: out of memory for %zu bytes\n", cap);
		return 1;
	}
	len += mig_put_net(buf + len, cap - len, &o.net);
	for (i = 0; i < o.nflows; i++) {
		size_t n = put_flow(&o, i, buf + len, cap - len);

		if (!n) {
			fprintf(stderr, "swmig: flow %u did not fit\n", i);
			return 1;
		}
		len += n;
	}
	end.tcp = o.nflows;
	len += mig_put_end(buf + len, cap - len, &end);
	if (len - MIG_HDR_LEN > UINT32_MAX) {
		fprintf(stderr, "swmig: the stream is too long\n");
		return 1;
	}
	mig_put_hdr(buf, MIG_HDR_LEN, (uint32_t)(len - MIG_HDR_LEN),
		    o.fds ? o.nflows : 0);
	f = strcmp(o.out, "-") ? fopen(o.out, "wb") : stdout;
	if (!f || fwrite(buf, 1, len, f) != len || fflush(f) ||
	    (f != stdout && fclose(f))) {
		fprintf(stderr, "swmig: %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	free(buf);
	fprintf(stderr, "swmig: %u TCP flows%s, %zu bytes\n", o.nflows,
		o.fds	 ? " naming descriptors" :
		o.nflows ? " with repair state" :
			   "",
		len);
	return 0;
}
