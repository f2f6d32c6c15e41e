/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swverify.c - deterministic payload generator and verifier for TCP transfers */

/*
 * Payload pattern
 * ---------------
 * Every connection carries a "stream" of bytes that is a pure function of
 * (seed, stream index, byte offset), so any byte can be checked no matter
 * how the transfer was split into reads.  The stream is a sequence of 64-bit
 * words serialised little-endian; word k is
 *
 *	word(k) = mix64(bkey + stream * STREAM_MUL + (k >> 9) * WEYL)
 *		  ^ tab[k & 511]
 *
 * where mix64() is the (bijective) splitmix64 finaliser, bkey and tab[] are
 * derived from the seed only.  One mix64() per 4 KiB keeps generation and
 * verification at memory speed.  Because mix64() can be inverted, a
 * receiver recovers the sender's stream index from the first word; that is
 * how a server matches the connections of a --parallel client, and how a
 * client receiving from a server learns which index the server used.
 *
 * A receiver that fails verification resets the connection (SO_LINGER 0),
 * and a sender waits for the receiver's orderly EOF, so the sender's exit
 * status reflects the receiver's verdict as well.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "toolutil.h"

const char tool_name[] = "swverify";

#define PAT_SHIFT 9
#define PAT_WORDS (1u << PAT_SHIFT)
#define PAT_MASK (PAT_WORDS - 1)

#define WEYL 0x9e3779b97f4a7c15ULL
#define STREAM_MUL 0xd1b54a32d192ed03ULL
#define MIX_M1 0xbf58476d1ce4e5b9ULL
#define MIX_M2 0x94d049bb133111ebULL

#ifndef IO_BUF_SIZE
#define IO_BUF_SIZE (256u * 1024) /* scratch buffers for send/recv */
#endif
#define ECHO_RING_SIZE (256u * 1024) /* per-connection echo buffer; 2^n */
#define IO_BURST 8		     /* syscalls per connection per wakeup */
#define STALL_SECONDS 10.0	     /* default --stall */
#define DEFAULT_BYTES (1ULL << 30)
#define DEFAULT_TIMEOUT 60.0

#define ADDR_LEN 96 /* "[v6addr%scope]:port" */

#define MIN(a, b) ((a) < (b) ? (a) : (b))

enum role { ROLE_SERVER, ROLE_CLIENT };
enum mode { MODE_SEND, MODE_RECV, MODE_ECHO };

static const char *const role_name[] = { "server", "client" };
static const char *const mode_name[] = { "send", "recv", "echo" };

/* ------------------------------------------------------------------------ */
/* Pattern                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t pat_tab[PAT_WORDS];
static uint64_t pat_bkey;
static uint64_t stream_mul_inv;
static uint64_t mix_m1_inv;
static uint64_t mix_m2_inv;
static uint64_t pat_seed; /* for messages */

/**
 * mix64() - splitmix64 finaliser, a bijection on 64-bit integers
 * @z:	input
 *
 * Return: mixed value
 */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * MIX_M1;
	z = (z ^ (z >> 27)) * MIX_M2;
	return z ^ (z >> 31);
}

/**
 * unxorshift() - invert z ^= z >> @s
 * @y:	output of the xorshift
 * @s:	shift count, 1..63
 *
 * Return: the original value
 */
static uint64_t unxorshift(uint64_t y, unsigned int s)
{
	uint64_t x = y;
	unsigned int i;

	for (i = 0; i <= 64 / s; i++)
		x = y ^ (x >> s);
	return x;
}

/**
 * unmix64() - inverse of mix64()
 * @z:	a value returned by mix64()
 *
 * Return: the argument that mix64() was called with
 */
static uint64_t unmix64(uint64_t z)
{
	z = unxorshift(z, 31) * mix_m2_inv;
	z = unxorshift(z, 27) * mix_m1_inv;
	return unxorshift(z, 30);
}

/**
 * mul_inverse() - multiplicative inverse of an odd number modulo 2^64
 * @a:	odd number
 *
 * Newton's iteration doubles the number of correct low bits each step,
 * starting from 3 correct bits (a * a == 1 mod 8 for any odd a).
 *
 * Return: x such that a * x == 1 (mod 2^64)
 */
static uint64_t mul_inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

/**
 * pat_init() - derive the pattern tables from the seed
 * @seed:	user seed (--seed)
 */
static void pat_init(uint64_t seed)
{
	uint64_t key = mix64(seed ^ 0x6a09e667f3bcc909ULL);
	unsigned int i;

	for (i = 0; i < PAT_WORDS; i++)
		pat_tab[i] = mix64(key + (uint64_t)(i + 1) * WEYL);
	pat_bkey = mix64(key ^ 0xbb67ae8584caa73bULL);
	stream_mul_inv = mul_inverse(STREAM_MUL);
	mix_m1_inv = mul_inverse(MIX_M1);
	mix_m2_inv = mul_inverse(MIX_M2);
}

/**
 * pat_block() - per-4KiB component of the pattern
 * @stream:	stream (connection) index
 * @blk:	word index >> PAT_SHIFT
 *
 * Return: value XORed into every word of the block
 */
static inline uint64_t pat_block(uint32_t stream, uint64_t blk)
{
	return mix64(pat_bkey + stream * STREAM_MUL + blk * WEYL);
}

/**
 * pat_word() - one 64-bit word of a stream
 * @stream:	stream index
 * @k:		word index (byte offset / 8)
 *
 * Return: the word; its bytes are sent least significant first
 */
static inline uint64_t pat_word(uint32_t stream, uint64_t k)
{
	return pat_block(stream, k >> PAT_SHIFT) ^ pat_tab[k & PAT_MASK];
}

/**
 * pat_byte() - one byte of a stream
 * @stream:	stream index
 * @off:	byte offset
 *
 * Return: the expected byte value
 */
static uint8_t pat_byte(uint32_t stream, uint64_t off)
{
	return (uint8_t)(pat_word(stream, off >> 3) >> ((off & 7) * 8));
}

/**
 * put_le64() - store a word little-endian at an unaligned address
 * @p:	destination
 * @v:	value
 */
static inline void put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof(v));
}

/**
 * get_le64() - load a little-endian word from an unaligned address
 * @p:	source
 *
 * Return: the value
 */
static inline uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* 16-byte GCC vectors: SSE2 / NEON without any -m flags */
typedef uint64_t v2u64 __attribute__((vector_size(16)));

/**
 * fill_words() - store @n pattern words of one 4 KiB block
 * @dst:	destination, any alignment
 * @h:		pat_block() value of the block
 * @t:		pat_tab entries of the words
 * @n:		number of words
 */
static void fill_words(uint8_t *dst, uint64_t h, const uint64_t *t, size_t n)
{
	size_t i = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v2u64 hv = { h, h };

	for (; i + 4 <= n; i += 4) {
		v2u64 v0, v1;

		memcpy(&v0, t + i, sizeof(v0));
		memcpy(&v1, t + i + 2, sizeof(v1));
		v0 ^= hv;
		v1 ^= hv;
		memcpy(dst + 8 * i, &v0, sizeof(v0));
		memcpy(dst + 8 * i + 16, &v1, sizeof(v1));
	}
#endif
	for (; i < n; i++)
		put_le64(dst + 8 * i, h ^ t[i]);
}

/**
 * check_words() - compare @n received words against one 4 KiB block
 * @src:	received bytes, any alignment
 * @h:		pat_block() value of the block
 * @t:		pat_tab entries of the words
 * @n:		number of words
 *
 * Return: 0 if all words match, otherwise nonzero
 */
static uint64_t check_words(const uint8_t *src, uint64_t h, const uint64_t *t,
			    size_t n)
{
	uint64_t acc = 0;
	size_t i = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v2u64 hv = { h, h };
	v2u64 a0 = { 0, 0 }, a1 = { 0, 0 }, a2 = { 0, 0 }, a3 = { 0, 0 };

	for (; i + 8 <= n; i += 8) {
		v2u64 d0, d1, d2, d3, t0, t1, t2, t3;

		memcpy(&d0, src + 8 * i, sizeof(d0));
		memcpy(&d1, src + 8 * i + 16, sizeof(d1));
		memcpy(&d2, src + 8 * i + 32, sizeof(d2));
		memcpy(&d3, src + 8 * i + 48, sizeof(d3));
		memcpy(&t0, t + i, sizeof(t0));
		memcpy(&t1, t + i + 2, sizeof(t1));
		memcpy(&t2, t + i + 4, sizeof(t2));
		memcpy(&t3, t + i + 6, sizeof(t3));
		a0 |= d0 ^ t0 ^ hv;
		a1 |= d1 ^ t1 ^ hv;
		a2 |= d2 ^ t2 ^ hv;
		a3 |= d3 ^ t3 ^ hv;
	}
	a0 |= a1 | a2 | a3;
	acc = a0[0] | a0[1];
#endif
	for (; i < n; i++)
		acc |= get_le64(src + 8 * i) ^ h ^ t[i];
	return acc;
}

/**
 * pat_fill() - generate a range of a stream
 * @dst:	destination buffer, @len bytes
 * @stream:	stream index
 * @off:	byte offset of dst[0] in the stream
 * @len:	number of bytes
 */
static void pat_fill(uint8_t *dst, uint32_t stream, uint64_t off, size_t len)
{
	uint64_t k;
	size_t nw;

	while (len && (off & 7)) {
		*dst++ = pat_byte(stream, off++);
		len--;
	}
	k = off >> 3;
	nw = len >> 3;
	while (nw) {
		size_t j = (size_t)(k & PAT_MASK);
		size_t run = MIN(nw, PAT_WORDS - j);
		uint64_t h = pat_block(stream, k >> PAT_SHIFT);

		fill_words(dst, h, pat_tab + j, run);
		dst += 8 * run;
		k += run;
		nw -= run;
	}
	off = k << 3;
	len &= 7;
	while (len--)
		*dst++ = pat_byte(stream, off++);
}

/**
 * pat_check() - verify a range of a stream
 * @src:	received bytes, @len of them
 * @stream:	stream index
 * @off:	byte offset of src[0] in the stream
 * @len:	number of bytes
 *
 * Return: index into @src of the first wrong byte, or @len if all match
 */
static size_t pat_check(const uint8_t *src, uint32_t stream, uint64_t off,
			size_t len)
{
	size_t pos = 0;
	uint64_t k;
	size_t nw;

	while (pos < len && (off & 7)) {
		if (src[pos] != pat_byte(stream, off))
			return pos;
		pos++;
		off++;
	}
	k = off >> 3;
	nw = (len - pos) >> 3;
	while (nw) {
		size_t j = (size_t)(k & PAT_MASK);
		size_t run = MIN(nw, PAT_WORDS - j);
		uint64_t h = pat_block(stream, k >> PAT_SHIFT);
		const uint64_t *t = pat_tab + j;
		const uint8_t *s = src + pos;
		size_t i;

		if (check_words(s, h, t, run)) {
			for (i = 0; i < run; i++) {
				uint64_t d = get_le64(s + 8 * i) ^ h ^ t[i];

				if (d)
					return pos + 8 * i +
					       (size_t)__builtin_ctzll(d) / 8;
			}
		}
		pos += 8 * run;
		k += run;
		nw -= run;
	}
	off = k << 3;
	while (pos < len) {
		if (src[pos] != pat_byte(stream, off))
			return pos;
		pos++;
		off++;
	}
	return len;
}

/**
 * pat_identify() - recover the stream index from a stream's first word
 * @first:	the first 8 bytes of a stream
 * @stream:	set to the stream index on success
 *
 * Return: true if @first is word 0 of some stream for the current seed
 */
static bool pat_identify(const uint8_t first[8], uint32_t *stream)
{
	uint64_t x = unmix64(get_le64(first) ^ pat_tab[0]);
	uint64_t s = (x - pat_bkey) * stream_mul_inv;

	if (s > UINT32_MAX)
		return false;
	*stream = (uint32_t)s;
	return true;
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

struct opts {
	enum role role;
	enum mode mode;
	const char *addr;
	uint64_t bytes;
	bool bytes_set;
	uint64_t seed;
	unsigned int conns;    /* server: 0 = forever */
	unsigned int parallel; /* client */
	bool parallel_set;
	double timeout; /* 0 = none */
	double stall;	/* seconds without progress that fail */
	const char *ready_file;
};

/**
 * usage() - print the command line summary
 * @f:	stream to print to
 */
static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  swverify server --listen ADDR:PORT [--mode recv|send|echo] "
	      "[--bytes N]\n"
	      "                  [--seed S] [--conns N | --once] [--ready-file "
	      "PATH]\n"
	      "                  [--timeout SEC]\n"
	      "  swverify client --connect ADDR:PORT [--mode send|recv|echo] "
	      "[--bytes N]\n"
	      "                  [--seed S] [--parallel N] [--timeout SEC]\n"
	      "\n"
	      "Moves a deterministic byte pattern derived from (seed, "
	      "connection, offset)\n"
	      "over TCP and verifies every byte that is received.\n"
	      "\n"
	      "  -l, --listen ADDR:PORT   server address (IPv6 as [addr]:port; "
	      "port 0 = any)\n"
	      "  -c, --connect ADDR:PORT  client target\n"
	      "  -m, --mode MODE          send: write N bytes, shut down, wait "
	      "for EOF\n"
	      "                           recv: read and verify until EOF\n"
	      "                           echo: client sends N bytes and "
	      "verifies the echo;\n"
	      "                                 server echoes everything back\n"
	      "                           (default: server recv, client send)\n"
	      "  -b, --bytes N            bytes per connection, suffixes K M G "
	      "T (1024-based);\n"
	      "                           senders default to 1G, receivers "
	      "check the count\n"
	      "                           only when given\n"
	      "  -s, --seed S             pattern seed (default 0)\n"
	      "  -n, --conns N            server: serve N connections, then "
	      "exit\n"
	      "                           (default: serve forever)\n"
	      "  -1, --once               server: same as --conns 1\n"
	      "  -r, --ready-file PATH    server: create PATH (containing "
	      "ADDR:PORT) once\n"
	      "                           listening\n"
	      "  -P, --parallel N         client: N concurrent connections, "
	      "indices 0..N-1\n"
	      "  -t, --timeout SEC        client: fail if the run takes longer "
	      "(default 60,\n"
	      "                           0 = none); server: per-connection "
	      "limit (default\n"
	      "                           none).  A connection without "
	      "progress for 10 s\n"
	      "                           fails while a timeout is active.\n"
	      "  -S, --stall SEC          seconds without progress that fail a "
	      "connection\n"
	      "                           (default 10; fractions allowed: "
	      "1.5)\n"
	      "  -h, --help               show this help\n"
	      "\n"
	      "One JSON line per connection is printed on stdout; --parallel "
	      "adds a summary.\n"
	      "Exit status: 0 all verified, 1 verification or connection "
	      "failure, 2 usage.\n",
	      f);
}

/**
 * parse_u64() - parse an unsigned integer with an optional binary suffix
 * @s:		text
 * @suffix:	accept K, M, G, T (powers of 1024)
 * @out:	result
 *
 * Return: true on success
 */
static bool parse_u64(const char *s, bool suffix, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	while (*s == ' ')
		s++;
	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, suffix ? 10 : 0);
	if (errno || end == s)
		return false;
	if (suffix && *end) {
		switch (*end) {
		case 'k':
		case 'K':
			shift = 10;
			break;
		case 'm':
		case 'M':
			shift = 20;
			break;
		case 'g':
		case 'G':
			shift = 30;
			break;
		case 't':
		case 'T':
			shift = 40;
			break;
		default:
			return false;
		}
		end++;
	}
	if (*end)
		return false;
	if (shift && v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/**
 * parse_count() - parse a positive count for --conns / --parallel
 * @opt:	option name for the error message
 * @s:		text
 *
 * Return: the value; exits with status 2 if invalid
 */
static unsigned int parse_count(const char *opt, const char *s)
{
	uint64_t v;

	if (!parse_u64(s, false, &v) || v == 0 || v > 1000000)
		usage_error("%s: expected a number from 1 to 1000000, got '%s'",
			    opt, s);
	return (unsigned int)v;
}

/**
 * parse_mode() - parse --mode
 * @s:	text
 *
 * Return: the mode; exits with status 2 if invalid
 */
static enum mode parse_mode(const char *s)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, mode_name[i]))
			return (enum mode)i;
	usage_error("--mode: expected send, recv or echo, got '%s'", s);
}

/**
 * parse_args() - parse the command line
 * @argc:	argument count
 * @argv:	arguments
 * @o:		filled in
 */
static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "connect", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "conns", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "stall", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool mode_set = false, timeout_set = false;
	const char *listen = NULL, *connect = NULL;
	unsigned int conns = 0;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->stall = STALL_SECONDS;
	if (argc < 2)
		usage_error("missing command (server or client)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		exit(0);
	}
	if (!strcmp(argv[1], "server"))
		o->role = ROLE_SERVER;
	else if (!strcmp(argv[1], "client"))
		o->role = ROLE_CLIENT;
	else
		usage_error("unknown command '%s' (expected server or client)",
			    argv[1]);

	argc--;
	argv++;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":l:c:m:b:s:n:1r:P:t:S:h", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'l':
			listen = optarg;
			break;
		case 'c':
			connect = optarg;
			break;
		case 'm':
			o->mode = parse_mode(optarg);
			mode_set = true;
			break;
		case 'b':
			if (!parse_u64(optarg, true, &o->bytes))
				usage_error("--bytes: invalid size '%s'",
					    optarg);
			o->bytes_set = true;
			break;
		case 's':
			if (!parse_u64(optarg, false, &o->seed))
				usage_error("--seed: invalid number '%s'",
					    optarg);
			break;
		case 'n':
			if (conns)
				usage_error("--conns and --once given twice");
			conns = parse_count("--conns", optarg);
			break;
		case '1':
			if (conns)
				usage_error("--conns and --once given twice");
			conns = 1;
			break;
		case 'r':
			o->ready_file = optarg;
			break;
		case 'P':
			o->parallel = parse_count("--parallel", optarg);
			o->parallel_set = true;
			break;
		case 't':
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o->timeout >= 0) || o->timeout > 1e7)
				usage_error("--timeout: invalid number of "
					    "seconds '%s'",
					    optarg);
			timeout_set = true;
			break;
		case 'S':
			errno = 0;
			o->stall = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->stall > 0) ||
			    o->stall > 1e6)
				usage_error("--stall: invalid number of "
					    "seconds '%s'",
					    optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			if (optopt)
				usage_error("option '-%c' needs an argument",
					    optopt);
			usage_error("option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	if (o->role == ROLE_SERVER) {
		if (connect || o->parallel_set)
			usage_error(
				"--connect and --parallel are client options");
		if (!listen)
			usage_error("server needs --listen ADDR:PORT");
		o->addr = listen;
		o->conns = conns;
		if (!mode_set)
			o->mode = MODE_RECV;
	} else {
		if (listen || conns || o->ready_file)
			usage_error("--listen, --conns, --once and "
				    "--ready-file are server options");
		if (!connect)
			usage_error("client needs --connect ADDR:PORT");
		o->addr = connect;
		if (!o->parallel)
			o->parallel = 1;
		if (!mode_set)
			o->mode = MODE_SEND;
		if (!timeout_set)
			o->timeout = DEFAULT_TIMEOUT;
	}
	if (!o->bytes_set && o->mode != MODE_RECV &&
	    !(o->role == ROLE_SERVER && o->mode == MODE_ECHO))
		o->bytes = DEFAULT_BYTES;
}

/* ------------------------------------------------------------------------ */
/* Addresses                                                                */
/* ------------------------------------------------------------------------ */

/**
 * resolve() - turn "ADDR:PORT" or "[V6ADDR]:PORT" into a socket address
 * @spec:	text from the command line
 * @passive:	for bind(): an empty host means the wildcard address
 * @ss:		result
 * @len:	result length
 *
 * A malformed @spec is a usage error (exit status 2).
 *
 * Return: true on success; on failure a message was printed
 */
static bool resolve(const char *spec, bool passive, struct sockaddr_storage *ss,
		    socklen_t *len)
{
	struct addrinfo hints, *res;
	char host[256];
	const char *hstart = spec, *port;
	uint64_t portnum;
	size_t hlen;
	int err;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':')
			usage_error("%s: expected [ADDR]:PORT", spec);
		hlen = (size_t)(rb - spec - 1);
		port = rb + 2;
		hstart = spec + 1;
	} else {
		const char *colon = strrchr(spec, ':');

		if (!colon || strchr(spec, ':') != colon)
			usage_error(
				"%s: expected ADDR:PORT (IPv6 as [ADDR]:PORT)",
				spec);
		hlen = (size_t)(colon - spec);
		port = colon + 1;
	}
	if (hlen >= sizeof(host))
		usage_error("%s: address too long", spec);
	memcpy(host, hstart, hlen);
	host[hlen] = '\0';
	if (!parse_u64(port, false, &portnum) || portnum > 65535 ||
	    strspn(port, "0123456789") != strlen(port))
		usage_error("%s: invalid port '%s'", spec, port);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	err = getaddrinfo(hlen || !passive ? host : "0.0.0.0", port, &hints,
			  &res);
	if (err) {
		fprintf(stderr, "swverify: %s: %s\n", spec, gai_strerror(err));
		return false;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return true;
}

/**
 * format_addr() - print a socket address as ADDR:PORT or [ADDR]:PORT
 * @sa:		address
 * @len:	address length
 * @buf:	output
 * @size:	size of @buf
 */
static void format_addr(const struct sockaddr *sa, socklen_t len, char *buf,
			size_t size)
{
	char host[80], serv[8];

	if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, size, "?");
		return;
	}
	if (sa->sa_family == AF_INET6)
		snprintf(buf, size, "[%s]:%s", host, serv);
	else
		snprintf(buf, size, "%s:%s", host, serv);
}

/* ------------------------------------------------------------------------ */
/* Connections                                                              */
/* ------------------------------------------------------------------------ */

struct conn {
	int fd;
	unsigned int idx; /* client: i of --parallel; server: accept order */
	enum mode mode;
	bool connecting;
	bool done;

	uint32_t stream; /* pattern stream sent / expected */
	bool stream_known;
	bool stream_guessed; /* first word matched no stream of the seed */
	uint8_t head[8];     /* first bytes, until the stream is known */
	unsigned int head_len;

	uint64_t tx_total;
	uint64_t tx_off;
	bool tx_shut;

	uint64_t rx_cnt;
	uint64_t rx_expect;
	bool rx_expect_set;
	bool rx_eof;
	bool verifying;

	uint8_t *ring; /* echo server only: bytes not yet echoed */
	size_t ring_head;
	size_t ring_len;

	bool failed; /* verdict: not verified */
	bool abort;  /* tear down now, with a reset */
	char err[256];
	double t_start;
	double t_progress;
	char peer[ADDR_LEN];
};

/* generated pattern, shared by all senders: content depends on (stream, off) only */
struct txcache {
	uint8_t *buf;
	bool valid;
	uint32_t stream;
	uint64_t off;
	size_t len;
};

struct loop {
	const struct opts *o;
	struct conn **conns;
	size_t nconns;
	size_t cap;
	struct pollfd *pfd; /* cap + 1 entries: listener first */
	int lfd;
	unsigned int accepted;
	uint8_t *rxbuf;
	struct txcache tc;
	unsigned int ok;
	unsigned int failed;
	uint64_t total_bytes;
	double start;
};

/**
 * now() - monotonic time
 *
 * Return: seconds
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/**
 * xmalloc() - allocate or exit
 * @align:	alignment (a power of two dividing @size), 0 for malloc()
 * @size:	bytes
 *
 * Return: the memory
 */
static void *xmalloc(size_t align, size_t size)
{
	void *p = align ? aligned_alloc(align, size) : malloc(size);

	if (!p) {
		fputs("swverify: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/**
 * conn_fail() - record a failure of a connection and report it
 * @c:		connection
 * @hard:	tear the connection down now (with a reset); a soft failure
 *		lets an echo server go on echoing so the client sees the data
 * @fmt:	printf format of the message, without the "conn N: " prefix
 *
 * The first message is kept for the JSON line; every message is printed.
 */
static void conn_fail(struct conn *c, bool hard, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conn_fail(struct conn *c, bool hard, const char *fmt, ...)
{
	char msg[sizeof(c->err)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "conn %u: %s\n", c->idx, msg);
	if (!c->failed)
		memcpy(c->err, msg, sizeof(msg));
	c->failed = true;
	c->verifying = false;
	if (hard)
		c->abort = true;
}

/**
 * echo_server() - whether a connection is the server side of echo mode
 * @c:	connection
 *
 * Return: true if it echoes
 */
static inline bool echo_server(const struct conn *c)
{
	return c->ring != NULL;
}

/**
 * conn_sock_error() - fail a connection because a socket call failed
 * @c:		connection
 * @op:		name of the call
 * @err:	errno value
 */
static void conn_sock_error(struct conn *c, const char *op, int err)
{
	if (err == ECONNRESET || err == EPIPE)
		conn_fail(c, true,
			  "connection reset by peer during %s (sent %" PRIu64
			  " of %" PRIu64 ", received %" PRIu64 " bytes)",
			  op, c->tx_off, c->tx_total, c->rx_cnt);
	else
		conn_fail(c, true, "%s: %s", op, strerror(err));
}

/**
 * conn_new() - allocate a connection and add it to the loop
 * @L:		event loop
 * @fd:		non-blocking socket, or -1
 * @idx:	local index
 * @t:		start time
 *
 * Return: the connection
 */
static struct conn *conn_new(struct loop *L, int fd, unsigned int idx, double t)
{
	const struct opts *o = L->o;
	struct conn *c = xmalloc(0, sizeof(*c));

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->idx = idx;
	c->mode = o->mode;
	c->t_start = t;
	c->t_progress = t;
	c->verifying = true;
	c->stream = idx;
	if (o->mode == MODE_SEND) {
		c->tx_total = o->bytes;
		c->stream_known = true;
	} else if (o->mode == MODE_ECHO && o->role == ROLE_CLIENT) {
		/* our own stream comes back: no need to identify it */
		c->tx_total = o->bytes;
		c->stream_known = true;
		c->rx_expect = o->bytes;
		c->rx_expect_set = true;
	} else if (o->bytes_set) {
		c->rx_expect = o->bytes;
		c->rx_expect_set = true;
	}
	if (o->mode == MODE_ECHO && o->role == ROLE_SERVER)
		c->ring = xmalloc(64, ECHO_RING_SIZE);

	if (L->nconns == L->cap) {
		L->cap = L->cap ? 2 * L->cap : 64;
		L->conns = realloc(L->conns, L->cap * sizeof(*L->conns));
		L->pfd = realloc(L->pfd, (L->cap + 1) * sizeof(*L->pfd));
		if (!L->conns || !L->pfd) {
			fputs("swverify: out of memory\n", stderr);
			exit(1);
		}
	}
	L->conns[L->nconns++] = c;
	return c;
}

/**
 * want_rx() - whether a connection wants to read now
 * @c:	connection
 *
 * Return: true if it waits for data or EOF
 */
static bool want_rx(const struct conn *c)
{
	if (c->rx_eof || c->abort)
		return false;
	if (c->mode == MODE_SEND)
		return c->tx_shut;
	if (echo_server(c))
		return c->ring_len < ECHO_RING_SIZE;
	return true;
}

/**
 * want_tx() - whether a connection wants to write now
 * @c:	connection
 *
 * Return: true if it has data (or a shutdown) to send
 */
static bool want_tx(const struct conn *c)
{
	if (c->abort)
		return false;
	if (echo_server(c))
		return c->ring_len > 0;
	if (c->mode == MODE_RECV)
		return false;
	return !c->tx_shut;
}

/**
 * verify_range() - check received bytes against the expected stream
 * @c:		connection whose stream is known
 * @p:		bytes
 * @n:		number of bytes
 * @off:	stream offset of p[0]
 */
static void verify_range(struct conn *c, const uint8_t *p, size_t n,
			 uint64_t off)
{
	size_t pos = pat_check(p, c->stream, off, n);

	if (pos == n)
		return;
	conn_fail(c, !echo_server(c),
		  "mismatch at offset %" PRIu64 ": expected 0x%02x got 0x%02x",
		  off + pos, pat_byte(c->stream, off + pos), p[pos]);
	if (c->stream_guessed)
		fprintf(stderr,
			"conn %u: the data does not start like any stream of "
			"seed %" PRIu64 " (wrong --seed?)\n",
			c->idx, pat_seed);
}

/**
 * resolve_stream() - settle the expected stream from the first bytes
 * @c:	connection with its first bytes in @c->head
 *
 * With a full first word the sender's stream index is recovered; with less
 * (a transfer under 8 bytes), or if the word belongs to no stream, the local
 * index is assumed so that the first wrong byte can still be reported.
 */
static void resolve_stream(struct conn *c)
{
	uint32_t s;

	if (c->head_len == 8 && pat_identify(c->head, &s)) {
		c->stream = s;
	} else {
		c->stream = c->idx;
		c->stream_guessed = c->head_len == 8;
	}
	c->stream_known = true;
	verify_range(c, c->head, c->head_len, 0);
}

/**
 * rx_consume() - account for and verify newly received bytes
 * @c:	connection
 * @p:	bytes
 * @n:	number of bytes
 */
static void rx_consume(struct conn *c, const uint8_t *p, size_t n)
{
	uint64_t off = c->rx_cnt;

	c->rx_cnt += n;
	if (!c->verifying)
		return;
	if (!c->stream_known) {
		size_t take = MIN(n, 8 - (size_t)c->head_len);

		memcpy(c->head + c->head_len, p, take);
		c->head_len += (unsigned int)take;
		p += take;
		n -= take;
		off += take;
		if (c->head_len < 8)
			return;
		resolve_stream(c);
		if (!c->verifying)
			return;
	}
	if (n)
		verify_range(c, p, n, off);
	if (c->verifying && c->rx_expect_set && c->rx_cnt > c->rx_expect)
		conn_fail(c, !echo_server(c),
			  "long transfer: received more than the expected "
			  "%" PRIu64 " bytes",
			  c->rx_expect);
}

/**
 * rx_eof() - handle the peer's EOF
 * @c:	connection
 */
static void rx_eof(struct conn *c)
{
	c->rx_eof = true;
	if (c->mode == MODE_SEND)
		return;
	if (c->verifying && !c->stream_known)
		resolve_stream(c);
	if (c->failed)
		return;
	if (c->rx_expect_set && c->rx_cnt != c->rx_expect)
		conn_fail(c, !echo_server(c),
			  "%s transfer: received %" PRIu64 " of %" PRIu64
			  " bytes",
			  c->rx_cnt < c->rx_expect ? "short" : "long",
			  c->rx_cnt, c->rx_expect);
	else if (c->mode == MODE_ECHO && !echo_server(c) && !c->tx_shut)
		conn_fail(c, true,
			  "peer closed after %" PRIu64 " of %" PRIu64
			  " bytes were sent",
			  c->tx_off, c->tx_total);
}

/**
 * do_rx() - read what is available on a connection
 * @L:	event loop
 * @c:	connection
 * @t:	current time
 */
static void do_rx(struct loop *L, struct conn *c, double t)
{
	int i;

	for (i = 0; i < IO_BURST && want_rx(c); i++) {
		uint8_t *buf = L->rxbuf;
		size_t cap = IO_BUF_SIZE;
		ssize_t n;

		if (echo_server(c)) {
			size_t w = (c->ring_head + c->ring_len) &
				   (ECHO_RING_SIZE - 1);

			buf = c->ring + w;
			cap = MIN(ECHO_RING_SIZE - c->ring_len,
				  ECHO_RING_SIZE - w);
		}
		n = recv(c->fd, buf, cap, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn_sock_error(c, "recv", errno);
			return;
		}
		c->t_progress = t;
		if (n == 0) {
			rx_eof(c);
			return;
		}
		if (c->mode == MODE_SEND) {
			conn_fail(c, true,
				  "received %zd unexpected bytes from the peer",
				  n);
			return;
		}
		rx_consume(c, buf, (size_t)n);
		if (echo_server(c))
			c->ring_len += (size_t)n;
		if ((size_t)n < cap)
			return;
	}
}

/**
 * tx_data() - pattern bytes to send next, from the shared generator cache
 * @L:		event loop
 * @c:		connection with bytes left to send
 * @len:	set to the number of bytes available at the returned pointer
 *
 * Return: pointer to the bytes at stream offset @c->tx_off
 */
static const uint8_t *tx_data(struct loop *L, const struct conn *c, size_t *len)
{
	struct txcache *tc = &L->tc;
	uint64_t want = c->tx_total - c->tx_off;

	if (tc->valid && tc->stream == c->stream && c->tx_off >= tc->off &&
	    c->tx_off < tc->off + tc->len) {
		size_t have = (size_t)(tc->off + tc->len - c->tx_off);

		if (have >= want || have >= IO_BUF_SIZE / 4) {
			*len = (size_t)MIN(have, want);
			return tc->buf + (c->tx_off - tc->off);
		}
	}
	tc->stream = c->stream;
	tc->off = c->tx_off;
	tc->len = (size_t)MIN(want, IO_BUF_SIZE);
	tc->valid = true;
	pat_fill(tc->buf, tc->stream, tc->off, tc->len);
	*len = tc->len;
	return tc->buf;
}

/**
 * do_tx() - write what the socket accepts on a connection
 * @L:	event loop
 * @c:	connection
 * @t:	current time
 *
 * A pattern sender shuts down its write side as soon as all bytes are out.
 */
static void do_tx(struct loop *L, struct conn *c, double t)
{
	int i;

	for (i = 0; i < IO_BURST && want_tx(c); i++) {
		const uint8_t *p;
		size_t len;
		ssize_t n;

		if (echo_server(c)) {
			p = c->ring + c->ring_head;
			len = MIN(c->ring_len, ECHO_RING_SIZE - c->ring_head);
		} else if (c->tx_off == c->tx_total) {
			break;
		} else {
			p = tx_data(L, c, &len);
		}
		n = send(c->fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn_sock_error(c, "send", errno);
			return;
		}
		c->t_progress = t;
		if (echo_server(c)) {
			c->ring_head = (c->ring_head + (size_t)n) &
				       (ECHO_RING_SIZE - 1);
			c->ring_len -= (size_t)n;
		} else {
			c->tx_off += (uint64_t)n;
		}
		if ((size_t)n < len)
			return;
	}
	if (!echo_server(c) && want_tx(c) && c->tx_off == c->tx_total) {
		if (shutdown(c->fd, SHUT_WR) < 0)
			conn_sock_error(c, "shutdown", errno);
		c->tx_shut = true;
	}
}

/**
 * json_str() - print a string as a JSON string literal
 * @f:	output
 * @s:	string
 */
static void json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			putc(ch, f);
	}
	putc('"', f);
}

/**
 * conn_finish() - close a connection and print its result line
 * @L:	event loop
 * @c:	connection
 * @t:	current time
 *
 * An aborted connection is closed with a reset so that the peer notices.
 */
static void conn_finish(struct loop *L, struct conn *c, double t)
{
	const struct opts *o = L->o;
	uint64_t bytes = c->mode == MODE_SEND ? c->tx_off : c->rx_cnt;
	double secs = t - c->t_start;

	if (c->fd >= 0) {
		if (c->abort) {
			struct linger lg = { .l_onoff = 1, .l_linger = 0 };

			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg,
				   sizeof(lg));
		}
		close(c->fd);
		c->fd = -1;
	}
	c->done = true;

	printf("{\"role\":\"%s\",\"mode\":\"%s\",\"conn\":%u",
	       role_name[o->role], mode_name[c->mode], c->idx);
	if (c->stream_known)
		printf(",\"stream\":%" PRIu32, c->stream);
	if (o->role == ROLE_SERVER)
		printf(",\"peer\":\"%s\"", c->peer);
	printf(",\"bytes\":%" PRIu64
	       ",\"verified\":%s,\"seconds\":%.6f,\"gbps\":%.3f",
	       bytes, c->failed ? "false" : "true", secs,
	       secs > 0 ? (double)bytes * 8 / secs / 1e9 : 0.0);
	if (c->failed) {
		fputs(",\"error\":", stdout);
		json_str(stdout, c->err);
	}
	fputs("}\n", stdout);
	fflush(stdout);

	if (c->failed)
		L->failed++;
	else
		L->ok++;
	L->total_bytes += bytes;
}

/**
 * conn_step() - finish a connection if its work is complete or it aborted
 * @L:	event loop
 * @c:	connection
 * @t:	current time
 */
static void conn_step(struct loop *L, struct conn *c, double t)
{
	bool complete;

	if (c->done)
		return;
	if (c->abort) {
		conn_finish(L, c, t);
		return;
	}
	if (c->connecting)
		return;
	switch (c->mode) {
	case MODE_SEND:
		complete = c->tx_shut && c->rx_eof;
		break;
	case MODE_RECV:
		complete = c->rx_eof;
		break;
	default:
		if (!echo_server(c)) {
			complete = c->tx_shut && c->rx_eof;
			break;
		}
		/* all input echoed: pass the EOF on */
		complete = c->rx_eof && !c->ring_len;
		if (complete && shutdown(c->fd, SHUT_WR) < 0)
			conn_sock_error(c, "shutdown", errno);
		break;
	}
	if (complete)
		conn_finish(L, c, t);
}

/**
 * conn_connected() - complete a non-blocking connect()
 * @L:	event loop
 * @c:	connecting connection
 */
static void conn_connected(struct loop *L, struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == EINPROGRESS || err == EALREADY)
		return;
	c->connecting = false;
	if (!err)
		return;
	/* "connect ADDR: error", prefixed only when there are several */
	if (L->o->parallel > 1)
		fprintf(stderr, "conn %u: ", c->idx);
	fprintf(stderr, "connect %s: %s\n", L->o->addr, strerror(err));
	snprintf(c->err, sizeof(c->err), "connect %s: %s", L->o->addr,
		 strerror(err));
	c->failed = true;
	c->abort = true;
}

/**
 * check_timers() - apply the run deadline, per-connection limit and stall
 *		    detector
 * @L:		event loop
 * @t:		current time
 * @deadline:	client run deadline, 0 for none
 */
static void check_timers(struct loop *L, double t, double deadline)
{
	const struct opts *o = L->o;
	size_t i;

	for (i = 0; i < L->nconns; i++) {
		struct conn *c = L->conns[i];

		if (c->done)
			continue;
		if (o->role == ROLE_CLIENT && deadline && t >= deadline)
			conn_fail(c, true,
				  "timeout: the run took longer than %g s "
				  "(sent %" PRIu64 ", received %" PRIu64
				  " bytes)",
				  o->timeout, c->tx_off, c->rx_cnt);
		else if (o->role == ROLE_SERVER && t - c->t_start >= o->timeout)
			conn_fail(c, true,
				  "timeout: the connection took longer than %g "
				  "s (sent %" PRIu64 ", received %" PRIu64
				  " bytes)",
				  o->timeout, c->tx_off, c->rx_cnt);
		else if (t - c->t_progress >= o->stall && c->connecting)
			conn_fail(c, true, "connect %s: no answer for %g s",
				  o->addr, o->stall);
		else if (t - c->t_progress >= o->stall)
			conn_fail(c, true,
				  "stalled: no progress for %g s (sent %" PRIu64
				  ", received %" PRIu64 " bytes)",
				  o->stall, c->tx_off, c->rx_cnt);
		else
			continue;
		conn_finish(L, c, t);
	}
}

/**
 * reap() - drop finished connections from the loop
 * @L:	event loop
 */
static void reap(struct loop *L)
{
	size_t i, j = 0;

	for (i = 0; i < L->nconns; i++) {
		struct conn *c = L->conns[i];

		if (c->done) {
			free(c->ring);
			free(c);
		} else {
			L->conns[j++] = c;
		}
	}
	L->nconns = j;
}

/**
 * accept_conns() - accept pending connections on the listening socket
 * @L:	event loop
 * @t:	current time
 *
 * Once --conns connections were accepted the listening socket is closed.
 *
 * Return: false on a fatal accept error
 */
static bool accept_conns(struct loop *L, double t)
{
	const struct opts *o = L->o;

	while (L->lfd >= 0) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		struct conn *c;
		int fd;

		fd = accept4(L->lfd, (struct sockaddr *)&ss, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EPROTO)
				continue;
			perror("swverify: accept");
			return false;
		}
		c = conn_new(L, fd, L->accepted++, t);
		format_addr((struct sockaddr *)&ss, len, c->peer,
			    sizeof(c->peer));
		if (o->conns && L->accepted >= o->conns) {
			close(L->lfd);
			L->lfd = -1;
		}
	}
	return true;
}

/**
 * conn_io() - handle poll events of one connection
 * @L:		event loop
 * @c:		connection
 * @rev:	returned events
 * @t:		current time
 */
static void conn_io(struct loop *L, struct conn *c, short rev, double t)
{
	if (c->connecting) {
		conn_connected(L, c);
		c->t_progress = t;
		if (c->connecting || c->abort)
			return;
	}
	if (rev & (POLLIN | POLLHUP | POLLERR))
		do_rx(L, c, t);
	/* an echo server tries to pass freshly read data on at once */
	if ((rev & (POLLOUT | POLLHUP | POLLERR)) || echo_server(c))
		do_tx(L, c, t);
}

/**
 * run_loop() - drive all connections until the run is over
 * @L:	event loop, with connections (client) or a listening socket (server)
 *
 * Return: false on a fatal error of poll() or the listening socket
 */
static bool run_loop(struct loop *L)
{
	const struct opts *o = L->o;
	bool timers = o->timeout > 0;
	double deadline = 0;

	if (o->role == ROLE_CLIENT && timers)
		deadline = L->start + o->timeout;

	for (;;) {
		size_t i, base = 0, n = 0;
		double t;
		int r;

		if (L->lfd >= 0) {
			L->pfd[0].fd = L->lfd;
			L->pfd[0].events = POLLIN;
			L->pfd[0].revents = 0;
			base = n = 1;
		}
		for (i = 0; i < L->nconns; i++) {
			struct conn *c = L->conns[i];
			short ev = 0;

			if (c->connecting) {
				ev = POLLOUT;
			} else {
				if (want_rx(c))
					ev |= POLLIN;
				if (want_tx(c))
					ev |= POLLOUT;
			}
			L->pfd[n].fd = c->fd;
			L->pfd[n].events = ev;
			L->pfd[n].revents = 0;
			n++;
		}
		if (!n)
			return true;

		r = poll(L->pfd, n, timers ? 200 : -1);
		if (r < 0 && errno != EINTR) {
			perror("swverify: poll");
			return false;
		}
		t = now();
		if (r > 0) {
			size_t nc = L->nconns;

			for (i = 0; i < nc; i++) {
				struct conn *c = L->conns[i];
				short rev = L->pfd[base + i].revents;

				if (rev)
					conn_io(L, c, rev, t);
				conn_step(L, c, t);
			}
			if (base && (L->pfd[0].revents & POLLIN) &&
			    !accept_conns(L, t))
				return false;
		}
		if (timers)
			check_timers(L, t, deadline);
		reap(L);
		if (!L->nconns && (o->role == ROLE_CLIENT || L->lfd < 0))
			return true;
	}
}

/* ------------------------------------------------------------------------ */
/* Client and server                                                        */
/* ------------------------------------------------------------------------ */

/**
 * loop_init() - set up an event loop
 * @L:	loop
 * @o:	options
 */
static void loop_init(struct loop *L, const struct opts *o)
{
	memset(L, 0, sizeof(*L));
	L->o = o;
	L->lfd = -1;
	L->rxbuf = xmalloc(4096, IO_BUF_SIZE);
	L->tc.buf = xmalloc(4096, IO_BUF_SIZE);
	L->pfd = xmalloc(0, sizeof(*L->pfd));
}

/**
 * run_client() - connect, transfer and verify --parallel connections
 * @o:	options
 *
 * Return: exit status
 */
static int run_client(const struct opts *o)
{
	struct sockaddr_storage ss;
	struct loop L;
	socklen_t len;
	unsigned int i;
	double secs;

	if (!resolve(o->addr, false, &ss, &len))
		return 1;
	loop_init(&L, o);
	L.start = now();
	for (i = 0; i < o->parallel; i++) {
		struct conn *c;
		int fd;

		fd = socket(ss.ss_family,
			    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		c = conn_new(&L, fd, i, L.start);
		if (fd < 0) {
			conn_fail(c, true, "socket: %s", strerror(errno));
			continue;
		}
		if (connect(fd, (struct sockaddr *)&ss, len) == 0)
			continue;
		if (errno == EINPROGRESS) {
			c->connecting = true;
			continue;
		}
		if (o->parallel > 1)
			fprintf(stderr, "conn %u: ", i);
		fprintf(stderr, "connect %s: %s\n", o->addr, strerror(errno));
		snprintf(c->err, sizeof(c->err), "connect %s: %s", o->addr,
			 strerror(errno));
		c->failed = true;
		c->abort = true;
	}
	for (i = 0; i < L.nconns; i++)
		conn_step(&L, L.conns[i], L.start);
	reap(&L);
	if (!run_loop(&L))
		return 1;

	secs = now() - L.start;
	if (o->parallel_set) {
		printf("{\"role\":\"client\",\"conns\":%u,\"ok\":%u,\"failed\":"
		       "%u,"
		       "\"bytes\":%" PRIu64
		       ",\"seconds\":%.6f,\"gbps\":%.3f}\n",
		       o->parallel, L.ok, L.failed, L.total_bytes, secs,
		       secs > 0 ? (double)L.total_bytes * 8 / secs / 1e9 : 0.0);
		fflush(stdout);
	}
	return L.ok == o->parallel && !L.failed ? 0 : 1;
}

/**
 * write_ready_file() - atomically create the --ready-file
 * @path:	file name
 * @addr:	bound address, written into the file
 *
 * Return: true on success
 */
static bool write_ready_file(const char *path, const char *addr)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		fprintf(stderr, "swverify: %s: name too long\n", path);
		return false;
	}
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", addr) < 0 || fclose(f) != 0) {
		fprintf(stderr, "swverify: %s: %s\n", tmp, strerror(errno));
		return false;
	}
	if (rename(tmp, path) < 0) {
		fprintf(stderr, "swverify: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return false;
	}
	return true;
}

/**
 * run_server() - listen and serve connections
 * @o:	options
 *
 * Return: exit status
 */
static int run_server(const struct opts *o)
{
	struct sockaddr_storage ss;
	char bound[ADDR_LEN];
	struct loop L;
	socklen_t len;
	int one = 1;
	int fd;

	if (!resolve(o->addr, true, &ss, &len))
		return 1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		perror("swverify: socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, SOMAXCONN) < 0) {
		fprintf(stderr, "swverify: listen %s: %s\n", o->addr,
			strerror(errno));
		close(fd);
		return 1;
	}
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		perror("swverify: getsockname");
		return 1;
	}
	format_addr((struct sockaddr *)&ss, len, bound, sizeof(bound));
	fprintf(stderr, "listening on %s\n", bound);
	if (o->ready_file && !write_ready_file(o->ready_file, bound))
		return 1;

	loop_init(&L, o);
	L.lfd = fd;
	L.start = now();
	if (!run_loop(&L))
		return 1;
	return L.failed ? 1 : 0;
}

/**
 * raise_nofile() - lift the soft open-file limit to the hard limit
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/**
 * main() - entry point
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 if every connection verified, 1 on failure, 2 on bad usage
 */
int main(int argc, char **argv)
{
	struct opts o;

	parse_args(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	pat_init(o.seed);
	pat_seed = o.seed;
	return o.role == ROLE_CLIENT ? run_client(&o) : run_server(&o);
}
