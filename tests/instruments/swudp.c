/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swudp.c - UDP instrument: verified streams, echo, request/response, DNS */

/*
 * DOC: Theory of Operation
 *
 * One binary, six subcommands; every client and receiver prints one JSON
 * line on stdout, messages go to stderr; exit status 0 success, 1 failure,
 * 2 usage. IPv4 and IPv6 (the address given decides).
 *
 * send/recv: a verified stream. Every datagram starts with a header
 * (struct dg_hdr: magic, flow id, sequence number, length, and a checksum
 * over the payload) followed by a payload that is a function of (flow,
 * seq). The sender opens --flows connected sockets and sends round robin,
 * sendmmsg() in batches, each message one datagram, or with --gso N one
 * UDP_SEGMENT send of N datagrams (the kernel splits it). The receiver
 * (recvmmsg(); with --gro UDP_GRO on, the coalesced buffer split by the
 * cmsg's gso_size) checks each datagram: a bad magic, length or checksum
 * is corrupt; a (flow, seq) seen before is dup; a seq lower than the
 * highest already seen in its flow is reordered. lost is per flow the
 * highest seq + 1 minus the distinct seqs received: loss is reported, the
 * other three fail the run. The receiver ends --idle-ms after the last
 * datagram once one arrived, or on SIGTERM/SIGINT.
 *
 * echo: sends every datagram back to where it came from.
 *
 * rr: --flows connected sockets, each with one request in flight (the
 * stream header and payload, --size bytes); the echo must equal the
 * request byte for byte. A request unanswered after --timeout-ms is
 * counted lost and replaced by one with the next seq; a late echo of an
 * earlier seq of the flow is ignored. Anything else is bad (exit 1).
 * Latency: CLOCK_MONOTONIC from the send to the matching echo.
 *
 * dns-server: answers every well-formed A or AAAA query (class IN) with
 * one record (10.9.9.9 or fd00::9:9:9), the id and the question copied;
 * other opcodes get NOTIMP, other types an empty NOERROR answer, malformed
 * questions FORMERR; responses and runts are dropped.
 *
 * dns: a query generator, --inflight queries in flight on one connected
 * socket, each with a distinct id, for names qN.example. (N cycles through
 * --names); every answer's id, question, type and record are checked, and
 * a query unanswered within --timeout-ms is counted as a timeout and
 * replaced.
 *
 * All loops block in poll() or epoll_wait(): nothing spins when idle.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "toolutil.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

const char tool_name[] = "swudp";

#define DG_MAGIC 0x53775544u /* "SwUD" */
#define HDR_LEN ((unsigned int)sizeof(struct dg_hdr))
#define MAX_DGRAM 65507u
#define GSO_MAX_BYTES 65000u /* a UDP_SEGMENT send, headers aside */
#define GSO_MAX_SEGS 64u     /* the kernel's UDP_MAX_SEGMENTS */
#define BATCH 64u	     /* messages per recvmmsg()/sendmmsg() */
#define MAX_FLOWS 65536u
#define RECV_BUF 65536u
#define DNS_NAMES_MAX 10000000u

/**
 * struct dg_hdr - the header of every datagram of a verified stream
 * @magic:	DG_MAGIC
 * @flow:	flow id (the sender's socket index)
 * @seq:	sequence number within the flow, from 0
 * @len:	the whole datagram's length, header included
 * @csum:	checksum (csum32()) of the payload after the header
 *
 * All in network byte order.
 */
struct dg_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;
	uint32_t len;
	uint32_t csum;
};

/**
 * struct opts - command line, all subcommands
 * @cmd:	subcommand
 * @host:	address to send to, or (--bind) to bind
 * @port:	port (text)
 * @seconds:	send, rr, dns: duration
 * @size:	datagram size
 * @rate:	send: Mbit/s, 0 as fast as possible
 * @gso:	send: datagrams per UDP_SEGMENT send (0: off)
 * @flows:	send, rr: sockets
 * @idle_ms:	recv: end after this long without a datagram
 * @gro:	recv: UDP_GRO on
 * @timeout_ms:	rr, dns: a request unanswered this long is lost
 * @inflight:	dns: queries in flight
 * @names:	dns: distinct names
 */
struct opts {
	const char *cmd;
	const char *host;
	const char *port;
	unsigned int seconds;
	unsigned int size;
	unsigned int rate;
	unsigned int gso;
	unsigned int flows;
	unsigned int idle_ms;
	bool gro;
	unsigned int timeout_ms;
	unsigned int inflight;
	unsigned int names;
};

static volatile sig_atomic_t stop_flag;

/**
 * on_signal() - SIGTERM/SIGINT: ask the loop to end
 * @sig:	signal number
 */
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/**
 * usage() - print the command line summary
 * @f:	stream to print to
 */
static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  swudp recv PORT [--bind ADDR] [--idle-ms 1000] [--gro]\n"
	      "  swudp send HOST PORT [--seconds 3] [--size 1400] [--rate "
	      "MBITS]\n"
	      "                       [--gso N] [--flows K]\n"
	      "  swudp echo PORT [--bind ADDR]\n"
	      "  swudp rr HOST PORT [--flows 1000] [--size 64] [--seconds 3]\n"
	      "                     [--timeout-ms 200]\n"
	      "  swudp dns-server PORT [--bind ADDR]\n"
	      "  swudp dns HOST PORT [--seconds 3] [--inflight 64] [--names "
	      "1000]\n"
	      "                      [--timeout-ms 1000]\n"
	      "\n"
	      "UDP instrument. send/recv: a verified stream (every datagram "
	      "carries\n"
	      "flow, seq and a payload checksum; recv counts corrupt, dup, "
	      "reordered\n"
	      "and lost datagrams). --gso N: UDP_SEGMENT sends of N "
	      "datagrams; --gro:\n"
	      "UDP_GRO on the receiving socket. rr: request/response on K "
	      "flows, echo\n"
	      "verified. dns-server/dns: A/AAAA answers and a verified query "
	      "load.\n"
	      "--bind defaults to 0.0.0.0 (give :: for IPv6).\n"
	      "\n"
	      "Clients and recv print one JSON line. Exit status: 0 ok, 1 a "
	      "corrupt,\n"
	      "duplicated, reordered or wrong datagram (or an error), 2 "
	      "usage.\n",
	      f);
}

/**
 * parse_args() - parse the command line
 * @argc:	argument count
 * @argv:	arguments
 * @o:		filled in
 */
static void parse_args(int argc, char **argv, struct opts *o)
{
	const char *pos[2] = { NULL, NULL };
	bool client;
	int i, npos = 0;

	memset(o, 0, sizeof(*o));
	o->seconds = 3;
	o->size = 1400;
	o->flows = 1;
	o->idle_ms = 1000;
	o->timeout_ms = 200;
	o->inflight = 64;
	o->names = 1000;
	if (argc < 2)
		usage_error("missing command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		exit(0);
	}
	o->cmd = argv[1];
	if (!strcmp(o->cmd, "rr")) {
		o->flows = 1000;
		o->size = 64;
	} else if (!strcmp(o->cmd, "dns")) {
		o->timeout_ms = 1000;
	} else if (strcmp(o->cmd, "send") && strcmp(o->cmd, "recv") &&
		   strcmp(o->cmd, "echo") && strcmp(o->cmd, "dns-server")) {
		usage_error("unknown command '%s'", o->cmd);
	}
	client = !strcmp(o->cmd, "send") || !strcmp(o->cmd, "rr") ||
		 !strcmp(o->cmd, "dns");

#define IS(name, ok) (!strcmp(a, name) && (ok))
#define VAL() \
	(i + 1 < argc ? argv[++i] : (usage_error("%s needs a value", a), ""))
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (IS("--bind", !client)) {
			o->host = VAL();
		} else if (IS("--idle-ms", !strcmp(o->cmd, "recv"))) {
			o->idle_ms = parse_uint(a, VAL(), 1, 3600000);
		} else if (IS("--gro", !strcmp(o->cmd, "recv"))) {
			o->gro = true;
		} else if (IS("--seconds", client)) {
			o->seconds = parse_uint(a, VAL(), 1, 86400);
		} else if (IS("--size", !strcmp(o->cmd, "send") ||
						!strcmp(o->cmd, "rr"))) {
			o->size = parse_uint(a, VAL(), HDR_LEN, MAX_DGRAM);
		} else if (IS("--rate", !strcmp(o->cmd, "send"))) {
			o->rate = parse_uint(a, VAL(), 0, 1000000);
		} else if (IS("--gso", !strcmp(o->cmd, "send"))) {
			o->gso = parse_uint(a, VAL(), 1, GSO_MAX_SEGS);
		} else if (IS("--flows", !strcmp(o->cmd, "send") ||
						 !strcmp(o->cmd, "rr"))) {
			o->flows = parse_uint(a, VAL(), 1, MAX_FLOWS);
		} else if (IS("--timeout-ms", !strcmp(o->cmd, "rr") ||
						      !strcmp(o->cmd, "dns"))) {
			o->timeout_ms = parse_uint(a, VAL(), 1, 60000);
		} else if (IS("--inflight", !strcmp(o->cmd, "dns"))) {
			o->inflight = parse_uint(a, VAL(), 1, 30000);
		} else if (IS("--names", !strcmp(o->cmd, "dns"))) {
			o->names = parse_uint(a, VAL(), 1, DNS_NAMES_MAX);
		} else if (a[0] == '-' && a[1]) {
			usage_error("unknown option '%s' for %s", a, o->cmd);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			usage_error("unexpected argument '%s'", a);
		}
	}
#undef IS
#undef VAL
	if (client) {
		if (npos != 2)
			usage_error("%s needs HOST PORT", o->cmd);
		o->host = pos[0];
		o->port = pos[1];
	} else {
		if (npos != 1)
			usage_error("%s needs PORT", o->cmd);
		o->port = pos[0];
		if (!o->host)
			o->host = "0.0.0.0";
	}
	parse_uint("PORT", o->port, 1, 65535);
	if (o->gso && o->gso * o->size > GSO_MAX_BYTES)
		usage_error("--gso %u x --size %u is more than %u bytes in one "
			    "send",
			    o->gso, o->size, GSO_MAX_BYTES);
}

/* ------------------------------------------------------------------------ */
/* Common                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * raise_nofile() - raise the open-file soft limit to the hard one
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/**
 * udp_socket() - a UDP socket bound (@bind) or connected to ADDR PORT
 * @host:	address
 * @port:	port
 * @bind_it:	bind rather than connect
 * @nonblock:	SOCK_NONBLOCK
 *
 * Return: the socket, or -1 after a message
 */
static int udp_socket(const char *host, const char *port, bool bind_it,
		      bool nonblock)
{
	struct sockaddr_storage ss;
	int fd, one = 1;
	socklen_t len;

	if (!tool_resolve(host, port, bind_it, &ss, &len))
		return -1;
	fd = socket(ss.ss_family,
		    SOCK_DGRAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0),
		    0);
	if (fd < 0) {
		fprintf(stderr, "swudp: socket: %s\n", strerror(errno));
		return -1;
	}
	if (bind_it) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&ss, len) < 0)
			goto err;
	} else if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		goto err;
	}
	return fd;
err:
	fprintf(stderr, "swudp: %s %s port %s: %s\n",
		bind_it ? "bind" : "connect", host, port, strerror(errno));
	close(fd);
	return -1;
}

/**
 * big_buffers() - ask for large socket buffers (best effort)
 * @fd:	socket
 */
static void big_buffers(int fd)
{
	int sz = 4 << 20;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

/**
 * mix() - the payload generator's step
 * @x:	state
 *
 * Return: next state
 */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return x;
}

/**
 * csum32() - checksum of a payload: a multiply-rotate hash over 8-byte
 * words, so that a changed, moved or swapped byte changes it (cheap enough
 * for a receiver at line rate; not the Internet checksum)
 * @p:		bytes
 * @len:	length
 *
 * Return: the checksum
 */
static uint32_t csum32(const uint8_t *p, size_t len)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h = h << 31 | h >> 33;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h = mix(h);
	return (uint32_t)(h ^ h >> 32);
}

/**
 * dg_fill() - write datagram (@flow, @seq) of @len bytes
 * @buf:	destination
 * @len:	length, at least HDR_LEN
 * @flow:	flow id
 * @seq:	sequence number
 */
static void dg_fill(uint8_t *buf, size_t len, uint32_t flow, uint64_t seq)
{
	uint64_t x = ((uint64_t)flow << 40 ^ seq) * 0x9e3779b97f4a7c15ULL + 1;
	struct dg_hdr h;
	size_t k;

	for (k = HDR_LEN; k < len; k++) {
		if (!((k - HDR_LEN) & 7))
			x = mix(x + k);
		buf[k] = (uint8_t)(x >> (8 * ((k - HDR_LEN) & 7)));
	}
	h.magic = htonl(DG_MAGIC);
	h.flow = htonl(flow);
	h.seq = htobe64(seq);
	h.len = htonl((uint32_t)len);
	h.csum = htonl(csum32(buf + HDR_LEN, len - HDR_LEN));
	memcpy(buf, &h, HDR_LEN);
}

/**
 * dg_check() - verify a received datagram
 * @buf:	datagram
 * @len:	its length
 * @flow:	out: flow id
 * @seq:	out: sequence number
 *
 * Return: true if header, length and payload are as sent
 */
static bool dg_check(const uint8_t *buf, size_t len, uint32_t *flow,
		     uint64_t *seq)
{
	uint8_t ref[64];
	struct dg_hdr h;

	if (len < HDR_LEN)
		return false;
	memcpy(&h, buf, HDR_LEN);
	if (ntohl(h.magic) != DG_MAGIC || ntohl(h.len) != len ||
	    ntohl(h.flow) >= MAX_FLOWS)
		return false;
	*flow = ntohl(h.flow);
	*seq = be64toh(h.seq);
	if (csum32(buf + HDR_LEN, len - HDR_LEN) != ntohl(h.csum))
		return false;
	/* and the first payload bytes are (flow, seq)'s: not another's */
	len = len < sizeof(ref) ? len : sizeof(ref);
	dg_fill(ref, len, *flow, *seq);
	return !memcmp(ref + HDR_LEN, buf + HDR_LEN, len - HDR_LEN);
}

/**
 * secs_since() - seconds from @t0 to now
 * @t0:	CLOCK_MONOTONIC time, ns
 *
 * Return: seconds
 */
static double secs_since(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e9;
}

/* ------------------------------------------------------------------------ */
/* recv                                                                     */
/* ------------------------------------------------------------------------ */

/**
 * struct flow_rx - what the receiver knows of one flow
 * @seen:	bitmap of the seqs received
 * @words:	64-bit words allocated in @seen
 * @max:	highest seq received + 1 (0: none yet)
 * @distinct:	distinct seqs received
 */
struct flow_rx {
	uint64_t *seen;
	size_t words;
	uint64_t max;
	uint64_t distinct;
};

/**
 * struct rx_stats - the receiver's counts
 * @flows:	per flow state, indexed by flow id
 * @datagrams:	datagrams received
 * @bytes:	their bytes
 * @corrupt:	bad header, length or payload
 * @dup:	a (flow, seq) seen before
 * @reordered:	a seq below the flow's highest
 * @t_first:	first arrival, ns
 * @t_last:	last arrival, ns
 */
struct rx_stats {
	struct flow_rx *flows;
	uint64_t datagrams;
	uint64_t bytes;
	uint64_t corrupt;
	uint64_t dup;
	uint64_t reordered;
	uint64_t t_first;
	uint64_t t_last;
};

/**
 * rx_account() - check one datagram and count it
 * @st:		counts
 * @buf:	datagram
 * @len:	length
 *
 * Return: 0, or -ENOMEM
 */
static int rx_account(struct rx_stats *st, const uint8_t *buf, size_t len)
{
	struct flow_rx *f;
	uint32_t flow;
	uint64_t seq;
	size_t w;

	st->datagrams++;
	st->bytes += len;
	if (!dg_check(buf, len, &flow, &seq)) {
		st->corrupt++;
		return 0;
	}
	f = &st->flows[flow];
	w = (size_t)(seq / 64);
	if (seq > (1ULL << 40)) {
		st->corrupt++;
		return 0;
	}
	if (w >= f->words) {
		size_t n = f->words ? f->words : 1024;
		uint64_t *p;

		while (n <= w)
			n *= 2;
		p = realloc(f->seen, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + f->words, 0, (n - f->words) * sizeof(*p));
		f->seen = p;
		f->words = n;
	}
	if (f->seen[w] & (1ULL << (seq & 63))) {
		st->dup++;
		return 0;
	}
	f->seen[w] |= 1ULL << (seq & 63);
	f->distinct++;
	if (seq + 1 < f->max)
		st->reordered++;
	else
		f->max = seq + 1;
	return 0;
}

/**
 * run_recv() - receive a verified stream until idle or signalled
 * @o:	options
 *
 * Return: exit status
 */
static int run_recv(const struct opts *o)
{
	static uint8_t bufs[BATCH][RECV_BUF];
	char ctl[BATCH][CMSG_SPACE(sizeof(int))];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct rx_stats st = { 0 };
	uint64_t lost = 0;
	double secs;
	int fd, one = 1, rc = 0;
	unsigned int i;

	st.flows = calloc(MAX_FLOWS, sizeof(*st.flows));
	if (!st.flows) {
		fputs("swudp: out of memory\n", stderr);
		return 1;
	}
	fd = udp_socket(o->host, o->port, true, true);
	if (fd < 0)
		return 1;
	big_buffers(fd);
	if (o->gro && setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one))) {
		fprintf(stderr, "swudp: UDP_GRO: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "swudp: receiving on %s port %s%s\n", o->host, o->port,
		o->gro ? " (UDP_GRO)" : "");

	while (!stop_flag) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n, r;

		r = poll(&p, 1, st.datagrams ? (int)o->idle_ms : -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "swudp: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (!r)
			break;
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = RECV_BUF;
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = ctl[i];
			msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "swudp: recvmmsg: %s\n",
				strerror(errno));
			rc = 1;
			break;
		}
		st.t_last = now_ns();
		if (!st.t_first)
			st.t_first = st.t_last;
		for (i = 0; i < (unsigned int)n; i++) {
			size_t len = msgs[i].msg_len, seg = len, off;
			struct cmsghdr *c;

			if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
				st.datagrams++;
				st.corrupt++;
				continue;
			}
			for (c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c;
			     c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
				int gs;

				if (c->cmsg_level != SOL_UDP ||
				    c->cmsg_type != UDP_GRO)
					continue;
				memcpy(&gs, CMSG_DATA(c), sizeof(gs));
				if (gs > 0)
					seg = (size_t)gs;
			}
			for (off = 0; off < len; off += seg) {
				size_t l = len - off < seg ? len - off : seg;

				if (rx_account(&st, bufs[i] + off, l)) {
					fputs("swudp: out of memory\n", stderr);
					return 1;
				}
			}
		}
	}
	for (i = 0; i < MAX_FLOWS; i++) {
		lost += st.flows[i].max - st.flows[i].distinct;
		free(st.flows[i].seen);
	}
	free(st.flows);
	close(fd);
	secs = (double)(st.t_last - st.t_first) / 1e9;
	printf("{\"datagrams\":%" PRIu64 ",\"bytes\":%" PRIu64
	       ",\"corrupt\":%" PRIu64 ",\"dup\":%" PRIu64
	       ",\"reordered\":%" PRIu64 ",\"lost\":%" PRIu64
	       ",\"seconds\":%.6f,\"gbps\":%.4f}\n",
	       st.datagrams, st.bytes, st.corrupt, st.dup, st.reordered, lost,
	       secs, secs > 0 ? (double)st.bytes * 8 / secs / 1e9 : 0.0);
	fflush(stdout);
	if (st.corrupt || st.dup || st.reordered) {
		fprintf(stderr,
			"swudp: FAIL: %" PRIu64 " corrupt, %" PRIu64
			" duplicated, %" PRIu64 " reordered datagrams\n",
			st.corrupt, st.dup, st.reordered);
		rc = 1;
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* send                                                                     */
/* ------------------------------------------------------------------------ */

/**
 * run_send() - send a verified stream for --seconds
 * @o:	options
 *
 * Return: exit status
 */
static int run_send(const struct opts *o)
{
	unsigned int per_msg = o->gso ? o->gso : 1, i, k, f = 0;
	size_t msg_len = (size_t)per_msg * o->size;
	char ctl[BATCH][CMSG_SPACE(sizeof(uint16_t))];
	uint64_t sent = 0, bytes = 0, errs = 0, t0, end;
	unsigned int nb = BATCH;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t *seq;
	uint8_t *buf;
	double secs;
	int *fds;

	raise_nofile();
	fds = calloc(o->flows, sizeof(*fds));
	seq = calloc(o->flows, sizeof(*seq));
	buf = malloc(BATCH * msg_len);
	if (!fds || !seq || !buf) {
		fputs("swudp: out of memory\n", stderr);
		return 1;
	}
	for (i = 0; i < o->flows; i++) {
		fds[i] = udp_socket(o->host, o->port, false, false);
		if (fds[i] < 0)
			return 1;
		big_buffers(fds[i]);
	}
	/* paced: about a millisecond's worth per batch, not a burst that
	 * overruns a receive queue the rate itself would not */
	if (o->rate) {
		double per_ms = o->rate * 1e3 / 8 / msg_len;

		nb = per_ms < 1 ? 1 : per_ms > BATCH ? BATCH : (unsigned)per_ms;
	}
	t0 = now_ns();
	end = t0 + (uint64_t)o->seconds * 1000000000u;
	while (!stop_flag) {
		uint64_t now = now_ns();
		int n;

		if (now >= end)
			break;
		if (o->rate) {
			/* paced: no further ahead than the rate allows */
			uint64_t due = t0 + (uint64_t)((double)bytes * 8 /
						       (o->rate * 1e6) * 1e9);

			if (due > now) {
				struct timespec ts = {
					.tv_sec = (time_t)((due - now) /
							   1000000000u),
					.tv_nsec = (long)((due - now) %
							  1000000000u),
				};

				nanosleep(&ts, NULL);
				continue;
			}
		}
		for (i = 0; i < nb; i++) {
			uint8_t *m = buf + i * msg_len;

			for (k = 0; k < per_msg; k++)
				dg_fill(m + (size_t)k * o->size, o->size, f,
					seq[f]++);
			iov[i].iov_base = m;
			iov[i].iov_len = msg_len;
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			if (o->gso) {
				struct cmsghdr *c;
				uint16_t gs = (uint16_t)o->size;

				msgs[i].msg_hdr.msg_control = ctl[i];
				msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
				c = CMSG_FIRSTHDR(&msgs[i].msg_hdr);
				c->cmsg_level = SOL_UDP;
				c->cmsg_type = UDP_SEGMENT;
				c->cmsg_len = CMSG_LEN(sizeof(gs));
				memcpy(CMSG_DATA(c), &gs, sizeof(gs));
			}
		}
		/* one batch per flow: the flows take turns */
		for (i = 0; i < nb;) {
			n = sendmmsg(fds[f], msgs + i, nb - i, 0);
			if (n < 0 && errno == EINTR && !stop_flag)
				continue;
			if (n <= 0) {
				/* this message is lost (ECONNREFUSED, ENOBUFS) */
				errs += per_msg;
				i++;
				continue;
			}
			sent += (uint64_t)n * per_msg;
			bytes += (uint64_t)n * msg_len;
			i += (unsigned int)n;
		}
		f = (f + 1) % o->flows;
	}
	secs = secs_since(t0);
	printf("{\"datagrams\":%" PRIu64 ",\"bytes\":%" PRIu64
	       ",\"seconds\":%.6f,\"gbps\":%.4f,\"send_errors\":%" PRIu64
	       ",\"flows\":%u,\"size\":%u,\"gso\":%u}\n",
	       sent, bytes, secs, (double)bytes * 8 / secs / 1e9, errs,
	       o->flows, o->size, o->gso);
	fflush(stdout);
	for (i = 0; i < o->flows; i++)
		close(fds[i]);
	free(fds);
	free(seq);
	free(buf);
	return sent ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* echo and dns-server: one socket, batches in, batches out                 */
/* ------------------------------------------------------------------------ */

/**
 * dns_name_end() - find the end of an uncompressed name
 * @p:		message
 * @len:	message length
 * @off:	offset of the name
 *
 * Return: offset just past the name's zero label, or 0 if malformed
 */
static size_t dns_name_end(const uint8_t *p, size_t len, size_t off)
{
	size_t start = off;

	while (off < len) {
		uint8_t l = p[off];

		if (!l)
			return off + 1 - start > 255 ? 0 : off + 1;
		if (l & 0xc0)
			return 0;
		off += 1u + l;
	}
	return 0;
}

/**
 * dns_answer() - build the response to one query
 * @q:		query
 * @qlen:	its length
 * @r:		response buffer, at least 512 bytes
 *
 * Return: response length, 0 to send nothing
 */
static size_t dns_answer(const uint8_t *q, size_t qlen, uint8_t *r)
{
	static const uint8_t a4[4] = { 10, 9, 9, 9 };
	static const uint8_t a6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
					0,    0, 0, 9, 0, 9, 0, 9 };
	size_t qend, len = 12;
	uint16_t qtype, qclass;

	if (qlen < 12 || (q[2] & 0x80))
		return 0; /* a runt or a response: nothing */
	memcpy(r, q, 12);
	r[2] = (uint8_t)(0x80 | (q[2] & 0x79)); /* QR, opcode, RD */
	r[3] = 0x80;				/* RA, NOERROR */
	memset(r + 4, 0, 8);
	if ((q[2] >> 3) & 0xf) {
		r[3] |= 4; /* NOTIMP */
		return len;
	}
	qend = q[4] == 0 && q[5] == 1 ? dns_name_end(q, qlen, 12) : 0;
	if (!qend || qend + 4 > qlen) {
		r[3] |= 1; /* FORMERR */
		return len;
	}
	qtype = (uint16_t)(q[qend] << 8 | q[qend + 1]);
	qclass = (uint16_t)(q[qend + 2] << 8 | q[qend + 3]);
	memcpy(r + 12, q + 12, qend + 4 - 12);
	len = qend + 4;
	r[5] = 1;
	if (qclass != 1 || (qtype != 1 && qtype != 28))
		return len; /* no such record: an empty answer */
	r[7] = 1;
	r[len++] = 0xc0; /* the name: a pointer to the question's */
	r[len++] = 12;
	r[len++] = 0;
	r[len++] = (uint8_t)qtype;
	r[len++] = 0;
	r[len++] = 1;
	memcpy(r + len, "\0\0\0\x3c", 4); /* TTL 60 */
	len += 4;
	r[len++] = 0;
	r[len++] = qtype == 1 ? 4 : 16;
	memcpy(r + len, qtype == 1 ? a4 : a6, qtype == 1 ? 4 : 16);
	return len + (qtype == 1 ? 4 : 16);
}

/**
 * run_server() - echo or dns-server: answer datagrams until signalled
 * @o:		options
 * @dns:	answer as a DNS server rather than echo
 *
 * Return: exit status
 */
static int run_server(const struct opts *o, bool dns)
{
	static uint8_t in[BATCH][RECV_BUF], out[BATCH][600];
	struct sockaddr_storage peers[BATCH];
	struct mmsghdr msgs[BATCH], rep[BATCH];
	struct iovec iov[BATCH], riov[BATCH];
	unsigned int i, nr;
	int fd, n;

	fd = udp_socket(o->host, o->port, true, true);
	if (fd < 0)
		return 1;
	big_buffers(fd);
	fprintf(stderr, "swudp: %s on %s port %s\n",
		dns ? "dns-server" : "echo", o->host, o->port);
	while (!stop_flag) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "swudp: poll: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = in[i];
			iov[i].iov_len = RECV_BUF;
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_name = &peers[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(peers[i]);
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			continue;
		for (i = 0, nr = 0; i < (unsigned int)n; i++) {
			size_t len = msgs[i].msg_len;

			memset(&rep[nr], 0, sizeof(rep[nr]));
			if (dns) {
				len = dns_answer(in[i], len, out[nr]);
				if (!len)
					continue;
				riov[nr].iov_base = out[nr];
			} else {
				riov[nr].iov_base = in[i];
			}
			riov[nr].iov_len = len;
			rep[nr].msg_hdr.msg_iov = &riov[nr];
			rep[nr].msg_hdr.msg_iovlen = 1;
			rep[nr].msg_hdr.msg_name = &peers[i];
			rep[nr].msg_hdr.msg_namelen =
				msgs[i].msg_hdr.msg_namelen;
			nr++;
		}
		for (i = 0; i < nr;) {
			n = sendmmsg(fd, rep + i, nr - i, 0);
			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				i++; /* this peer is gone: skip it */
				continue;
			}
			i += (unsigned int)n;
		}
	}
	close(fd);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Latency samples (rr, dns)                                                */
/* ------------------------------------------------------------------------ */

/**
 * struct samples - a growing array of latencies in ns
 * @v:		values
 * @n:		used
 * @cap:	allocated
 */
struct samples {
	uint64_t *v;
	size_t n;
	size_t cap;
};

/**
 * sample_add() - append a latency
 * @s:	samples
 * @ns:	latency
 *
 * Return: 0 or -ENOMEM
 */
static int sample_add(struct samples *s, uint64_t ns)
{
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 65536;
		uint64_t *p = realloc(s->v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = c;
	}
	s->v[s->n++] = ns;
	return 0;
}

/**
 * sample_pcts() - sort and take p50, p99
 * @s:		samples
 * @p50:	out: p50 in microseconds (0 without samples)
 * @p99:	out: p99
 */
static void sample_pcts(struct samples *s, double *p50, double *p99)
{
	*p50 = *p99 = 0;
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	*p50 = pct_us(s->v, s->n, 50);
	*p99 = pct_us(s->v, s->n, 99);
}

/* ------------------------------------------------------------------------ */
/* rr                                                                       */
/* ------------------------------------------------------------------------ */

/**
 * struct rr_flow - one request/response flow
 * @fd:		connected socket
 * @seq:	seq of the request in flight
 * @t_sent:	when it was sent, ns
 */
struct rr_flow {
	int fd;
	uint64_t seq;
	uint64_t t_sent;
};

/**
 * rr_send() - send flow @i's request @seq
 * @fl:		flows
 * @i:		flow index
 * @size:	request size
 * @buf:	scratch, @size bytes
 *
 * Return: 0, or -errno (a send that failed is handled as lost)
 */
static int rr_send(struct rr_flow *fl, uint32_t i, unsigned int size,
		   uint8_t *buf)
{
	dg_fill(buf, size, i, fl[i].seq);
	fl[i].t_sent = now_ns();
	if (send(fl[i].fd, buf, size, 0) < 0)
		return -errno;
	return 0;
}

/**
 * run_rr() - request/response on --flows sockets for --seconds
 * @o:	options
 *
 * Return: exit status
 */
static int run_rr(const struct opts *o)
{
	uint64_t exchanges = 0, lost = 0, bad = 0, late = 0, t0, end, scan;
	uint64_t timeout = (uint64_t)o->timeout_ms * 1000000u;
	struct epoll_event ev[BATCH];
	struct samples lat = { 0 };
	uint8_t *sbuf, *rbuf;
	struct rr_flow *fl;
	double secs, p50, p99;
	unsigned int i;
	int ep;

	raise_nofile();
	fl = calloc(o->flows, sizeof(*fl));
	sbuf = malloc(o->size);
	rbuf = malloc(RECV_BUF);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!fl || !sbuf || !rbuf || ep < 0) {
		fputs("swudp: out of memory\n", stderr);
		return 1;
	}
	for (i = 0; i < o->flows; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		fl[i].fd = udp_socket(o->host, o->port, false, true);
		if (fl[i].fd < 0)
			return 1;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fl[i].fd, &e) < 0) {
			perror("swudp: epoll_ctl");
			return 1;
		}
	}
	t0 = now_ns();
	end = t0 + (uint64_t)o->seconds * 1000000000u;
	scan = t0 + timeout / 4;
	for (i = 0; i < o->flows; i++)
		rr_send(fl, i, o->size, sbuf);
	while (!stop_flag) {
		uint64_t now = now_ns();
		int n, k, wait_ms;

		if (now >= end)
			break;
		if (now >= scan) {
			/* unanswered requests: lost, replaced by the next */
			for (i = 0; i < o->flows; i++) {
				if (now - fl[i].t_sent < timeout)
					continue;
				lost++;
				fl[i].seq++;
				rr_send(fl, i, o->size, sbuf);
			}
			scan = now + timeout / 4;
		}
		wait_ms = (int)((scan - now) / 1000000u) + 1;
		n = epoll_wait(ep, ev, BATCH, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("swudp: epoll_wait");
			return 1;
		}
		for (k = 0; k < n; k++) {
			uint32_t f = ev[k].data.u32;
			ssize_t len;

			while ((len = recv(fl[f].fd, rbuf, RECV_BUF, 0)) >= 0 ||
			       errno == EINTR) {
				uint64_t t = now_ns(), rseq;
				uint32_t rflow;

				if (len < 0)
					continue;
				if ((size_t)len == o->size &&
				    dg_check(rbuf, (size_t)len, &rflow,
					     &rseq) &&
				    rflow == f && rseq < fl[f].seq) {
					late++; /* an answer we gave up on */
					continue;
				}
				dg_fill(sbuf, o->size, f, fl[f].seq);
				if ((size_t)len != o->size ||
				    memcmp(sbuf, rbuf, o->size)) {
					if (!bad)
						fprintf(stderr,
							"swudp: flow %u: a "
							"wrong echo (%zd "
							"bytes)\n",
							f, len);
					bad++;
					continue;
				}
				if (t < end) {
					exchanges++;
					if (sample_add(&lat,
						       t - fl[f].t_sent)) {
						fputs("swudp: out of memory\n",
						      stderr);
						return 1;
					}
				}
				fl[f].seq++;
				rr_send(fl, f, o->size, sbuf);
			}
		}
	}
	secs = secs_since(t0);
	sample_pcts(&lat, &p50, &p99);
	printf("{\"flows\":%u,\"size\":%u,\"exchanges\":%" PRIu64
	       ",\"per_second\":%.1f,\"p50_us\":%.2f,\"p99_us\":%.2f"
	       ",\"lost\":%" PRIu64 ",\"late\":%" PRIu64 ",\"bad\":%" PRIu64
	       ",\"seconds\":%.3f}\n",
	       o->flows, o->size, exchanges, (double)exchanges / secs, p50, p99,
	       lost, late, bad, secs);
	fflush(stdout);
	for (i = 0; i < o->flows; i++)
		close(fl[i].fd);
	close(ep);
	free(lat.v);
	free(fl);
	free(sbuf);
	free(rbuf);
	if (bad)
		fprintf(stderr, "swudp: FAIL: %" PRIu64 " wrong echoes\n", bad);
	return bad || !exchanges ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* dns                                                                      */
/* ------------------------------------------------------------------------ */

/**
 * struct dns_q - a query slot, by id
 * @t_sent:	when sent, ns; 0 when the id is free
 * @name:	name number N of qN.example.
 * @gave_up:	timed out (a late answer is not bad)
 */
struct dns_q {
	uint64_t t_sent;
	uint32_t name;
	bool gave_up;
};

/**
 * dns_query() - build the A query for qN.example. with @id
 * @buf:	destination, at least 64 bytes
 * @id:		query id
 * @name:	N
 *
 * Return: length
 */
static size_t dns_query(uint8_t *buf, uint16_t id, uint32_t name)
{
	char label[16];
	size_t len = 12;
	int l;

	memset(buf, 0, 12);
	buf[0] = (uint8_t)(id >> 8);
	buf[1] = (uint8_t)id;
	buf[2] = 0x01; /* RD */
	buf[5] = 1;
	l = snprintf(label, sizeof(label), "q%u", name);
	buf[len++] = (uint8_t)l;
	memcpy(buf + len, label, (size_t)l);
	len += (size_t)l;
	buf[len++] = 7;
	memcpy(buf + len, "example", 7);
	len += 7;
	buf[len++] = 0;
	memcpy(buf + len, "\0\x01\0\x01", 4); /* A, IN */
	return len + 4;
}

/**
 * dns_good() - is @r the right answer to query @q
 * @r:		response
 * @rlen:	its length
 * @q:		the query as sent
 * @qlen:	its length
 *
 * Return: true if id, flags, question and one A record 10.9.9.9 are there
 */
static bool dns_good(const uint8_t *r, size_t rlen, const uint8_t *q,
		     size_t qlen)
{
	static const uint8_t a4[4] = { 10, 9, 9, 9 };
	size_t off = qlen, end;

	if (rlen < qlen || memcmp(r, q, 2) || !(r[2] & 0x80) || (r[3] & 0xf) ||
	    r[4] || r[5] != 1 || !(r[6] | r[7]))
		return false;
	/* the question, case-insensitively as a resolver may 0x20 it */
	if (strncasecmp((const char *)r + 12, (const char *)q + 12,
			qlen - 12 - 4) ||
	    memcmp(r + qlen - 4, q + qlen - 4, 4))
		return false;
	/* the first answer: a name (pointer or labels), A, IN, 4 bytes */
	if (off + 2 <= rlen && (r[off] & 0xc0) == 0xc0)
		end = off + 2;
	else
		end = dns_name_end(r, rlen, off);
	if (!end || end + 14 > rlen)
		return false;
	return r[end] == 0 && r[end + 1] == 1 && r[end + 2] == 0 &&
	       r[end + 3] == 1 && r[end + 8] == 0 && r[end + 9] == 4 &&
	       !memcmp(r + end + 10, a4, 4);
}

/**
 * run_dns() - query load for --seconds
 * @o:	options
 *
 * Return: exit status
 */
static int run_dns(const struct opts *o)
{
	uint64_t queries = 0, answers = 0, timeouts = 0, bad = 0, late = 0;
	uint64_t timeout = (uint64_t)o->timeout_ms * 1000000u, t0, end, scan;
	uint8_t qbuf[64], rbuf[4096];
	struct samples lat = { 0 };
	uint32_t next_name = 0;
	uint16_t next_id = 1;
	struct dns_q *slots;
	double secs, p50, p99;
	unsigned int inflight = 0, i;
	int fd;

	slots = calloc(65536, sizeof(*slots));
	if (!slots) {
		fputs("swudp: out of memory\n", stderr);
		return 1;
	}
	fd = udp_socket(o->host, o->port, false, true);
	if (fd < 0)
		return 1;
	big_buffers(fd);
	t0 = now_ns();
	end = t0 + (uint64_t)o->seconds * 1000000000u;
	scan = t0 + timeout / 4;
	while (!stop_flag) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		int r;

		if (now >= end)
			break;
		/* fill the window: a free id for each new query */
		while (inflight < o->inflight) {
			size_t ql;

			while (slots[next_id].t_sent || !next_id)
				next_id++;
			ql = dns_query(qbuf, next_id, next_name);
			slots[next_id].t_sent = now_ns();
			slots[next_id].name = next_name;
			slots[next_id].gave_up = false;
			if (send(fd, qbuf, ql, 0) < 0 && errno != EAGAIN &&
			    errno != ECONNREFUSED && errno != ENOBUFS) {
				fprintf(stderr, "swudp: send: %s\n",
					strerror(errno));
				return 1;
			}
			queries++;
			inflight++;
			next_id++;
			next_name = (next_name + 1) % o->names;
		}
		now = now_ns(); /* after the sends: no t_sent is later */
		if (now >= scan) {
			for (i = 1; i < 65536; i++) {
				if (!slots[i].t_sent || slots[i].gave_up ||
				    now - slots[i].t_sent < timeout)
					continue;
				timeouts++;
				inflight--;
				slots[i].gave_up = true;
			}
			/* a given-up id is free again after two timeouts */
			for (i = 1; i < 65536; i++)
				if (slots[i].gave_up &&
				    now - slots[i].t_sent >= 3 * timeout)
					slots[i].t_sent = 0;
			scan = now + timeout / 4;
		}
		r = poll(&p, 1, (int)((scan - now) / 1000000u) + 1);
		if (r < 0 && errno != EINTR) {
			perror("swudp: poll");
			return 1;
		}
		for (;;) {
			ssize_t len = recv(fd, rbuf, sizeof(rbuf), 0);
			uint64_t t = now_ns();
			uint16_t id;
			size_t ql;

			if (len < 0 && errno == EINTR)
				continue;
			if (len < 0)
				break;
			if (len < 12) {
				bad++;
				continue;
			}
			id = (uint16_t)(rbuf[0] << 8 | rbuf[1]);
			if (!slots[id].t_sent) {
				bad++; /* an id never asked (or long gone) */
				continue;
			}
			ql = dns_query(qbuf, id, slots[id].name);
			if (!dns_good(rbuf, (size_t)len, qbuf, ql)) {
				if (!bad)
					fprintf(stderr,
						"swudp: a wrong answer to id "
						"%u (%zd bytes)\n",
						id, len);
				bad++;
				continue;
			}
			if (slots[id].gave_up) {
				late++;
			} else {
				inflight--;
				if (t < end) {
					answers++;
					if (sample_add(&lat,
						       t - slots[id].t_sent)) {
						fputs("swudp: out of memory\n",
						      stderr);
						return 1;
					}
				}
			}
			slots[id].t_sent = 0;
		}
	}
	secs = secs_since(t0);
	sample_pcts(&lat, &p50, &p99);
	printf("{\"queries\":%" PRIu64 ",\"answers\":%" PRIu64
	       ",\"per_second\":%.1f,\"p50_us\":%.2f,\"p99_us\":%.2f"
	       ",\"timeouts\":%" PRIu64 ",\"late\":%" PRIu64 ",\"bad\":%" PRIu64
	       ",\"inflight\":%u,\"seconds\":%.3f}\n",
	       queries, answers, (double)answers / secs, p50, p99, timeouts,
	       late, bad, o->inflight, secs);
	fflush(stdout);
	close(fd);
	free(slots);
	free(lat.v);
	if (bad)
		fprintf(stderr, "swudp: FAIL: %" PRIu64 " wrong answers\n",
			bad);
	return bad || !answers ? 1 : 0;
}

/**
 * main() - entry point
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 on success, 1 on failure, 2 on bad usage
 */
int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct opts o;

	parse_args(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!strcmp(o.cmd, "recv"))
		return run_recv(&o);
	if (!strcmp(o.cmd, "send"))
		return run_send(&o);
	if (!strcmp(o.cmd, "echo"))
		return run_server(&o, false);
	if (!strcmp(o.cmd, "dns-server"))
		return run_server(&o, true);
	if (!strcmp(o.cmd, "rr"))
		return run_rr(&o);
	return run_dns(&o);
}
