/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swvu.c - a vhost-user frontend bridging a tap device to a net backend */

/*
 * DOC: Theory of Operation
 *
 * swvu lets a real Linux TCP/IP stack in a network namespace drive a
 * vhost-user net backend (the device side), the way a VM would, but
 * without one: it plays the frontend (QEMU's part) and the guest driver
 * (virtio-net's part) at once.
 *
 *	ip netns exec NS swvu --tap tap0 --socket /run/gw-vu.sock
 *
 * Guest memory is one memfd of --mem MiB, mapped shared here and handed to
 * the backend as the only region of VHOST_USER_SET_MEM_TABLE: guest
 * physical address = offset in the memfd, userspace address = our mapping.
 * The rings and every buffer live in it; nothing else is shared.
 *
 * Set-up (vhost-user protocol, frontend side), in this order:
 *	GET_FEATURES; if bit 30 (VHOST_USER_F_PROTOCOL_FEATURES) is offered
 *	and wanted: GET_PROTOCOL_FEATURES and SET_PROTOCOL_FEATURES (MQ and
 *	REPLY_ACK, when offered), GET_QUEUE_NUM with MQ; SET_OWNER;
 *	SET_FEATURES; SET_MEM_TABLE (the memfd passed with SCM_RIGHTS); then
 *	for each queue, two per pair (receive 2k, transmit 2k+1):
 *	SET_VRING_NUM, SET_VRING_ADDR, SET_VRING_BASE 0, SET_VRING_KICK and
 *	SET_VRING_CALL (eventfds), SET_VRING_ENABLE 1 once protocol features
 *	are on (without them a ring runs as soon as it has its kick fd).
 * With REPLY_ACK negotiated, every request that has no reply of its own is
 * sent with the need_reply flag and its u64 acknowledgement is checked: a
 * non-zero one ends swvu with status 1, naming the request. Replies are
 * awaited for REPLY_TIMEOUT_S at most.
 *
 * The features acked are those the backend offers among VERSION_1,
 * MRG_RXBUF, CSUM, GUEST_CSUM, HOST_TSO4/6, GUEST_TSO4/6, GUEST_USO4/6,
 * HOST_USO, EVENT_IDX, bit 30, and MQ with --queues above 1; --no-offload
 * removes the checksum and segmentation ones, --no-uso the UDP ones, and
 * so does a kernel whose tap lacks UDP segmentation offload (TUN_F_USO4/6,
 * Linux 6.2; probed on a scratch tap), --features-mask ANDs the wanted
 * set. The dependencies of virtio 5.1.3.1 are then applied (a TSO or USO
 * bit goes without its CSUM bit). There is no control virtqueue: with
 * vhost-user the frontend (QEMU) answers the guest's control queue itself,
 * and for MQ only enables pairs.
 *
 * The tap (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, one IFF_MULTI_QUEUE fd per
 * pair with --queues above 1) has a vnet header of the virtio-net header's
 * size (12 bytes with VERSION_1 or MRG_RXBUF, else 10) and TUNSETOFFLOAD
 * flags matching CSUM, HOST_TSO4/6 and HOST_USO: the namespace's stack
 * then hands us exactly the partial-checksum, TSO and UDP GSO frames the
 * backend accepted, and the header passes between tap and rings
 * unchanged, but for two fields:
 * DATA_VALID, which a driver must not set, is cleared on transmit, and
 * num_buffers, meaningful on receive only, is zeroed. On receive, a tap
 * ignores DATA_VALID, which a guest's driver takes as "checksum verified"
 * (a backend may then leave the checksum unset: passt does with
 * GUEST_CSUM), so such a TCP or UDP frame becomes NEEDS_CSUM, which the
 * stack takes as verified too (rx_data_valid()).
 *
 * Two threads per queue pair:
 *  - tap to backend (the transmit queue, odd index): frames are read from
 *    the tap straight into free buffers of guest memory, one descriptor
 *    each (header and frame together, as VERSION_1 allows), up to
 *    TX_BATCH per kick; then the avail index is published and the backend
 *    kicked unless it said not to (VIRTQ_USED_F_NO_NOTIFY, or avail_event
 *    with EVENT_IDX). Used entries come back to the free list; with none
 *    free, the thread asks for a call and waits on the call eventfd.
 *  - backend to tap (the receive queue, even index): the ring is kept full
 *    of device-writable buffers (--rx-buf bytes with MRG_RXBUF, else big
 *    enough for the largest frame), with as many spare ones. Used entries
 *    are taken frame by frame: with MRG_RXBUF a frame spans the
 *    num_buffers entries its header names. Its descriptors are pointed at
 *    spare buffers and posted again at once, then its own buffers are
 *    gathered into one writev() to the tap (the header first) and become
 *    spares. With nothing used, the thread asks for a call and waits on
 *    the call eventfd.
 * Calls are asked for only while waiting (VIRTQ_AVAIL_F_NO_INTERRUPT clear,
 * or used_event at our position with EVENT_IDX), and the used index is
 * read again after asking, so that no completion is missed.
 *
 * The backend is not trusted: a used entry naming a descriptor we did not
 * post, a length beyond the buffer or a num_buffers beyond the ring ends
 * swvu with status 1 and a message, since swvu exists to test backends. A
 * frame the tap refuses is a drop, and so is one shorter than its header
 * (as Linux's virtio-net driver takes it: a backend stopping a ring uses
 * the buffers it had reserved with length 0).
 *
 * --log plays a live migration's start: --after MS (default 1000) after
 * the ready line, with the rings running, swvu switches dirty-page logging
 * on as QEMU does (vhost_migration_log()): SET_LOG_BASE with a memfd of
 * one bit per 4 KiB page of guest memory (LOG_SHMFD; the backend's reply
 * is awaited), then per queue pair SET_FEATURES with VHOST_F_LOG_ALL and
 * SET_VRING_ADDR for both rings again, with the log flag and the used
 * ring's guest address. From then on, every descriptor posted is noted;
 * when the backend gives one back, the pages it wrote (a receive
 * buffer's bytes, the used entry, the used index) are recorded, and at
 * exit each recorded page's bit must be set in the log:
 * "swvu: log: N pages written, M not marked", status 1 if M > 0. A
 * backend that offers neither LOG_ALL nor LOG_SHMFD ends swvu at once
 * with status 1.
 *
 * --migrate-to PATH plays a whole live migration, source and destination
 * QEMU at once: --after MS into the run, logging goes on as with --log,
 * then the device stops as a source's does at completion (GET_VRING_BASE
 * on every ring, pair by pair; the bases kept, the time of the last
 * answer printed as CLOCK_REALTIME, which slipway's migration lines are
 * measured from too), and swvu connects to the backend at PATH and sets
 * the device up there as a destination QEMU does: the same features
 * without LOG_ALL, the same memfd, every ring at the base the source gave,
 * with the same eventfds. Guest memory and the rings stay as they are;
 * the workers go on throughout (a frame the tap gives while the device is
 * stopped waits in the transmit ring). The first used entry each way on
 * the destination is printed, with its time after the stop; the source's
 * socket is closed after it (or MIG_CLOSE_MS). SIGHUP starts the migration
 * at once (a benchmark opens its flows first). A ring the source left with
 * a used index behind its base (entries taken, never returned) is an
 * error; --return-lost returns such transmit entries itself and goes on.
 *
 * --resume (with --migrate-to) plays a migration that fails after the
 * device stopped (a destination gone, or migrate_cancel in QEMU's
 * pre-switchover): swvu does not go to the destination; on SIGHUP (the
 * next one, after the one that may have started the migration) it sets
 * the device up again on the source, as QEMU does when it resumes the VM
 * there: the features without LOG_ALL, the memory table, every ring at
 * the base the source gave, kicked once. The first frame each way after
 * that is printed as for a destination; the source's socket stays open.
 *
 * --device-state (with --migrate-to) moves the device's state as QEMU 8.2
 * and later do, through the device-state channel (protocol feature
 * DEVICE_STATE, which both backends must offer): once the source's rings
 * are stopped, SET_DEVICE_STATE_FD (SAVE, phase STOPPED) with a pipe's
 * write end, which is closed here; the answer must accept it and use our
 * fd; the pipe is then read until end of file and CHECK_DEVICE_STATE must
 * answer 0. On the destination, after SET_OWNER and before SET_FEATURES,
 * SET_MEM_TABLE and the rings: SET_DEVICE_STATE_FD (LOAD) with a pipe's
 * read end, the whole state written into it and our end closed, then
 * CHECK_DEVICE_STATE must answer 0. The state's size and the times of
 * both checks after the stop are printed; any failure ends swvu with
 * status 1.
 *
 * The main thread waits for SIGTERM or SIGINT (status 0), the backend
 * closing the socket (status 0) or a worker's error (SIGUSR1, status 1),
 * prints one summary line on stderr and exits; the kernel removes the tap.
 * SIGUSR2 makes it print the shared state of every ring, for debugging a
 * backend that stalls.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "edge/virtq.h"
#include "edge/vu_proto.h"
#include "tapdev.h"
#include "toolutil.h"

/* UDP segmentation offload, Linux 6.2 (older headers lack the flags) */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

const char tool_name[] = "swvu";

#define TX_BUF_LEN \
	(65536 + 4096)	    /* header + largest frame (64 KiB
						 * with TSO), and room to see
						 * an oversize one */
#define RX_BUF_DEFAULT 4096 /* receive buffer with MRG_RXBUF */
#define RX_BUF_MIN 64
#define TX_BATCH 64 /* frames per kick, at most */

#define RING_DEFAULT 256 /* QEMU's default queue size */
#define RING_MAX 1024	 /* QEMU's largest */
#define QUEUES_MAX 8	 /* queue pairs */
#define MEM_DEFAULT_MIB 256
#define MEM_MAX_MIB 16384
#define PAGE_LEN 4096

#define REPLY_TIMEOUT_S 10
#define MIG_CLOSE_MS 2000 /* --migrate-to: the source's socket closed */
#define MIG_POLL_MS 20	  /* ... when a frame came, looked at this often */

/* --device-state: the reply to SET_DEVICE_STATE_FD, an error code here */
#define STATE_ERR_MASK ((uint64_t)0xff)
#define STATE_MAX_LEN (1UL << 30) /* a device state, at most */
#define STATE_CHUNK (1UL << 16)	  /* read, written at a time */

#define REMAP_EVERY_MS 50 /* --misbehave remap: how often */

/* virtio-net header (virtio 1.x, 5.1.6) */
#define HDR_LEN_LEGACY 10 /* no num_buffers */
#define HDR_LEN 12
#define HDR_F_NEEDS_CSUM 1
#define HDR_F_DATA_VALID 2
#define HDR_CSUM_START_OFF 6
#define HDR_CSUM_OFFSET_OFF 8
#define HDR_NUM_BUFFERS_OFF 10

/**
 * vu_req_str() - name of a request, for messages
 * @req:	request
 *
 * Return: its name in the vhost-user specification
 */
static const char *vu_req_str(enum vu_req req)
{
	switch (req) {
	case VU_GET_FEATURES:
		return "GET_FEATURES";
	case VU_SET_FEATURES:
		return "SET_FEATURES";
	case VU_SET_OWNER:
		return "SET_OWNER";
	case VU_SET_MEM_TABLE:
		return "SET_MEM_TABLE";
	case VU_SET_VRING_NUM:
		return "SET_VRING_NUM";
	case VU_SET_VRING_ADDR:
		return "SET_VRING_ADDR";
	case VU_SET_VRING_BASE:
		return "SET_VRING_BASE";
	case VU_SET_VRING_KICK:
		return "SET_VRING_KICK";
	case VU_SET_VRING_CALL:
		return "SET_VRING_CALL";
	case VU_GET_PROTOCOL_FEATURES:
		return "GET_PROTOCOL_FEATURES";
	case VU_SET_PROTOCOL_FEATURES:
		return "SET_PROTOCOL_FEATURES";
	case VU_GET_QUEUE_NUM:
		return "GET_QUEUE_NUM";
	case VU_SET_VRING_ENABLE:
		return "SET_VRING_ENABLE";
	case VU_SET_LOG_BASE:
		return "SET_LOG_BASE";
	case VU_SET_DEVICE_STATE_FD:
		return "SET_DEVICE_STATE_FD";
	case VU_CHECK_DEVICE_STATE:
		return "CHECK_DEVICE_STATE";
	default:
		break; /* not sent by swvu */
	}
	return "?";
}

static const char *const dir_str[] = { "tap->backend", "backend->tap" };
static_assert(sizeof(dir_str) / sizeof(dir_str[0]) == DIR_NUM,
	      "dir_str must name every enum dir");

/**
 * struct opts - command line
 * @tap:	tap device name
 * @socket:	vhost-user socket path
 * @queues:	queue pairs
 * @mtu:	MTU for the tap
 * @qlen:	txqueuelen for the tap
 * @ring:	ring size of every queue
 * @mem_mib:	guest memory, MiB
 * @rx_buf:	receive buffer size with MRG_RXBUF
 * @no_offload:	do not negotiate checksum and segmentation offloads
 * @no_uso:	do not negotiate UDP segmentation offload (--no-uso)
 * @mask:	ANDed with the features we want (--features-mask)
 * @misbehave:	--misbehave: what to do wrong, or NULL
 * @after_ms:	--after: when, from the ready line
 * @log:	--log: switch dirty-page logging on after --after ms, check
 *		the backend marks what it writes
 * @migrate_to:	--migrate-to: the destination backend's socket, or NULL
 * @return_lost: --return-lost: transmit entries the source took and never
 *		returned are returned by swvu (else an error)
 * @device_state: --device-state: with --migrate-to, the device's state
 *		moves through the device-state channel (SAVE, LOAD)
 * @resume:	--resume: with --migrate-to, the device starts again on the
 *		source on SIGHUP (a failed migration), never on the
 *		destination
 */
struct opts {
	const char *tap;
	const char *socket;
	unsigned int queues;
	unsigned int mtu;
	unsigned int qlen;
	unsigned int ring;
	unsigned int mem_mib;
	unsigned int rx_buf;
	bool no_offload;
	bool no_uso;
	uint64_t mask;
	const char *misbehave;
	unsigned int after_ms;
	bool log;
	const char *migrate_to;
	bool return_lost;
	bool device_state;
	bool resume;
};

/**
 * struct vq - one split virtqueue as the driver sees it
 * @index:	vhost-user queue index (receive 2k, transmit 2k+1)
 * @num:	ring size
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 * @desc:	descriptor table, in guest memory
 * @avail_flags: avail ring flags
 * @avail_idx_p: avail ring index
 * @avail_ring:	avail ring entries
 * @used_event:	used_event, after the avail ring (EVENT_IDX)
 * @used_flags:	used ring flags
 * @used_idx_p:	used ring index
 * @used_ring:	used ring entries
 * @avail_event: avail_event, after the used ring (EVENT_IDX)
 * @desc_off:	guest physical address of @desc
 * @avail_off:	guest physical address of the avail ring
 * @used_off:	guest physical address of the used ring
 * @buf_off:	guest physical address of buffer 0; buffer b follows at
 *		@buf_off + b * @buf_len
 * @buf_len:	bytes per buffer
 * @nbufs:	buffers: @num on a transmit queue, where descriptor i always
 *		points to buffer i; twice that on a receive queue, where
 *		a used descriptor is pointed at a spare buffer and posted
 *		again before its old buffer goes to the tap
 * @buf_of:	per descriptor: the buffer it points to (receive queue)
 * @spare:	buffers that no descriptor points to (receive queue)
 * @nspare:	entries in @spare
 * @avail_idx:	our avail index (entries added, maybe not published)
 * @exposed_idx: avail index the backend can see
 * @kicked_idx:	avail index at the last kick decision
 * @last_used:	next used entry to take
 * @seen_used:	used index at the last look (what vq_wait_call() waits
 *		to see change)
 * @posted:	per descriptor: in the backend's hands
 * @free:	descriptors free to post (transmit queue only)
 * @nfree:	entries in @free
 * @kick_fd:	eventfd we write to kick the backend
 * @call_fd:	eventfd the backend writes to call us
 * @log_on:	the frontend's dirty logging is on (--log)
 * @logpost:	per descriptor: posted while logging was on, so what the
 *		backend writes for it must be marked
 * @mig_armed:	--migrate-to: the destination has the ring; the worker
 *		notes the first used entry beyond @mig_base, then clears it
 * @mig_base:	--migrate-to: the used index the destination starts at
 */
struct vq {
	unsigned int index;
	unsigned int num;
	bool event_idx;
	struct virtq_desc *desc;
	uint16_t *avail_flags;
	uint16_t *avail_idx_p;
	uint16_t *avail_ring;
	uint16_t *used_event;
	uint16_t *used_flags;
	uint16_t *used_idx_p;
	struct virtq_used_elem *used_ring;
	uint16_t *avail_event;
	uint64_t desc_off;
	uint64_t avail_off;
	uint64_t used_off;
	uint64_t buf_off;
	size_t buf_len;
	unsigned int nbufs;
	uint32_t *buf_of;
	uint32_t *spare;
	unsigned int nspare;
	uint16_t avail_idx;
	uint16_t exposed_idx;
	uint16_t kicked_idx;
	uint16_t last_used;
	uint16_t seen_used;
	bool *posted;
	uint16_t *free;
	unsigned int nfree;
	int kick_fd;
	int call_fd;
	const atomic_bool *log_on;
	bool *logpost;
	atomic_bool mig_armed;
	uint16_t mig_base;
};

struct fe;

/**
 * struct pair - a queue pair and its tap queue
 * @fe:		frontend
 * @n:		pair number
 * @tap_fd:	tap queue, non-blocking
 * @rx:		receive queue (backend to tap)
 * @tx:		transmit queue (tap to backend)
 * @ctr:	counters, by enum dir
 */
struct pair {
	struct fe *fe;
	unsigned int n;
	int tap_fd;
	struct vq rx;
	struct vq tx;
	struct dir_ctr ctr[DIR_NUM];
};

/**
 * struct fe - the frontend
 * @sock_fd:	vhost-user socket, blocking
 * @mem:	guest memory, our mapping
 * @mem_len:	its length
 * @mem_used:	bytes of it given out by gmem_carve()
 * @mem_fd:	its memfd
 * @features:	virtio features acked
 * @proto:	protocol features acked (0 without bit 30)
 * @hdr_len:	virtio-net header length: 12 or 10
 * @mrg:	MRG_RXBUF acked
 * @npairs:	queue pairs
 * @pairs:	queue pairs
 * @main_tid:	main thread, told with SIGUSR1 when a worker ends
 * @end:	first reason a worker ended, an enum end
 * @poison:	--misbehave indirect: pair 0 posts a bad descriptor next
 * @log_on:	--log: logging is on (every ring told)
 * @log:	--log: the dirty log, shared with the backend
 * @log_len:	its bytes
 * @log_fd:	its memfd
 * @written:	--log: pages the backend wrote while logging, one bit each
 *		as in @log
 * @stop_ns:	--migrate-to: when the last GET_VRING_BASE was answered
 *		(CLOCK_REALTIME, as slipway's migration log lines)
 * @first_ns:	--migrate-to: by enum dir, when the destination moved its
 *		first frame (0: not yet)
 * @old_fd:	--migrate-to: the source's socket, until it is closed
 * @state:	--device-state: the state the source saved
 * @state_len:	its bytes
 */
struct fe {
	int sock_fd;
	uint8_t *mem;
	size_t mem_len;
	size_t mem_used;
	int mem_fd;
	uint64_t features;
	uint64_t proto;
	size_t hdr_len;
	bool mrg;
	unsigned int npairs;
	struct pair *pairs;
	pthread_t main_tid;
	_Atomic int end;
	atomic_bool poison;
	atomic_bool log_on;
	uint8_t *log;
	size_t log_len;
	int log_fd;
	uint8_t *written;
	uint64_t stop_ns;
	_Atomic uint64_t first_ns[DIR_NUM];
	int old_fd;
	uint8_t *state;
	size_t state_len;
};

/**
 * die() - report a set-up error and exit with status 1
 * @fmt:	printf format
 */
static _Noreturn __attribute__((format(printf, 1, 2))) void die(const char *fmt,
								...)
{
	va_list ap;

	fputs("swvu: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/**
 * worker_fail() - report a worker's error and wake the main thread
 * @fe:		frontend
 * @fmt:	printf format
 */
static __attribute__((format(printf, 2, 3))) void
worker_fail(struct fe *fe, const char *fmt, ...)
{
	va_list ap;

	fputs("swvu: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	worker_end(&fe->end, fe->main_tid, END_ERROR);
}

/**
 * usage() - print the command line summary
 * @f:	stream to print to
 */
static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  swvu --tap NAME --socket PATH [--queues N] [--mtu N] [--ring "
	      "N]\n"
	      "       [--mem MIB] [--rx-buf BYTES] [--queue-frames N]\n"
	      "       [--no-offload] [--no-uso] [--features-mask HEX]\n"
	      "       [--misbehave indirect|remap [--after MS]] [--log]\n"
	      "       [--migrate-to PATH [--after MS] [--return-lost]\n"
	      "        [--device-state] [--resume]]\n"
	      "\n"
	      "Be the frontend (the VM) of a vhost-user net backend, and "
	      "bridge\n"
	      "its queues to a tap device created in the current network\n"
	      "namespace, so that the namespace's stack is the guest's:\n"
	      "  --socket PATH       the backend's vhost-user socket\n"
	      "  --tap NAME          tap device to create (with a vnet "
	      "header)\n"
	      "  --queues N          queue pairs, 1 to 8 (default 1; above 1\n"
	      "                      needs the backend's MQ protocol feature)\n"
	      "  --mtu N             the tap's MTU (default 65520)\n"
	      "  --ring N            size of every ring, a power of 2 up to "
	      "1024\n"
	      "                      (default 256)\n"
	      "  --mem MIB           guest memory, one memfd (default 256)\n"
	      "  --rx-buf BYTES      receive buffer size with MRG_RXBUF "
	      "(default\n"
	      "                      4096; without it, buffers hold a whole "
	      "frame)\n"
	      "  --queue-frames N    the tap's txqueuelen (default 10000)\n"
	      "  --no-offload        no checksum or segmentation offloads\n"
	      "  --no-uso            no UDP segmentation offload\n"
	      "                      (GUEST_USO4/6, HOST_USO; never without\n"
	      "                      TUN_F_USO4/6 in the kernel's tap)\n"
	      "  --features-mask HEX AND the virtio features wanted with HEX\n"
	      "                      (VERSION_1 MRG_RXBUF CSUM GUEST_CSUM\n"
	      "                      HOST_TSO4/6 GUEST_TSO4/6 GUEST_USO4/6\n"
	      "                      HOST_USO EVENT_IDX MQ, bit 30)\n"
	      "  --misbehave indirect  a hostile guest: --after MS (default\n"
	      "                      1000), queue pair 0 posts one transmit\n"
	      "                      descriptor with the INDIRECT flag (not\n"
	      "                      negotiated: the backend must drop us)\n"
	      "  --misbehave remap   a hostile frontend: from --after MS on,\n"
	      "                      SET_MEM_TABLE again every 50 ms, while "
	      "the\n"
	      "                      queues run\n"
	      "  --log               a live migration's start: --after MS on,\n"
	      "                      dirty-page logging (LOG_SHMFD, LOG_ALL);\n"
	      "                      at exit, fail if a page the backend "
	      "wrote\n"
	      "                      is not marked in the log\n"
	      "  --migrate-to PATH   a live migration: --after MS on, "
	      "dirty\n"
	      "                      logging on, every ring stopped "
	      "(GET_VRING_BASE),\n"
	      "                      then the device set up again on the\n"
	      "                      backend at PATH (same memory, rings "
	      "at the\n"
	      "                      bases the first gave); prints when the "
	      "rings\n"
	      "                      stopped and the first frame each way "
	      "(SIGHUP\n"
	      "                      starts it at once);\n"
	      "                      a ring whose used index is not its "
	      "base\n"
	      "                      then is an error, unless "
	      "--return-lost:\n"
	      "                      transmit entries the source never "
	      "returned\n"
	      "                      are returned by swvu, and the run goes "
	      "on\n"
	      "  --resume            with --migrate-to: a failed migration: "
	      "after\n"
	      "                      the stop, SIGHUP starts the device "
	      "again on\n"
	      "                      the source; the destination is never "
	      "used\n"
	      "  --device-state      with --migrate-to: the device state "
	      "moves\n"
	      "                      through the device-state channel "
	      "(protocol\n"
	      "                      feature 19, both backends must offer "
	      "it):\n"
	      "                      SAVE from the source once its rings "
	      "stopped,\n"
	      "                      LOAD into the destination before its "
	      "device\n"
	      "                      starts, each checked "
	      "(CHECK_DEVICE_STATE)\n"
	      "\n"
	      "The socket is connected first (retried for 5 s), the features "
	      "are\n"
	      "negotiated, then the tap is created and brought up, and one "
	      "line\n"
	      "tells what was negotiated; addressing is left to the caller. "
	      "Runs\n"
	      "until the backend closes the socket or SIGTERM/SIGINT, then "
	      "prints\n"
	      "frames, bytes and drops each way on stderr. SIGUSR2 prints the\n"
	      "state of every ring.\n"
	      "\n"
	      "Exit status: 0 backend closed or signal, 1 error, 2 usage.\n",
	      f);
}

/**
 * parse_hex64() - parse a hexadecimal 64-bit number
 * @opt:	option name, for the message
 * @s:		text, with or without 0x
 *
 * Return: the value; exits with status 2 if invalid
 */
static uint64_t parse_hex64(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || end == s || *end || *s == '-')
		usage_error("%s: expected a hexadecimal number, got '%s'", opt,
			    s);
	return (uint64_t)v;
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
		{ "tap", required_argument, NULL, 't' },
		{ "socket", required_argument, NULL, 's' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "queue-frames", required_argument, NULL, 'q' },
		{ "ring", required_argument, NULL, 'r' },
		{ "mem", required_argument, NULL, 'M' },
		{ "rx-buf", required_argument, NULL, 'b' },
		{ "no-offload", no_argument, NULL, 'O' },
		{ "no-uso", no_argument, NULL, 'u' },
		{ "features-mask", required_argument, NULL, 'f' },
		{ "misbehave", required_argument, NULL, 'B' },
		{ "after", required_argument, NULL, 'A' },
		{ "log", no_argument, NULL, 'L' },
		{ "migrate-to", required_argument, NULL, 'T' },
		{ "return-lost", no_argument, NULL, 'R' },
		{ "device-state", no_argument, NULL, 'D' },
		{ "resume", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->queues = 1;
	o->mtu = MTU_DEFAULT;
	o->qlen = QLEN_DEFAULT;
	o->ring = RING_DEFAULT;
	o->mem_mib = MEM_DEFAULT_MIB;
	o->rx_buf = RX_BUF_DEFAULT;
	o->mask = ~0ULL;
	o->after_ms = 1000;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			check_tap_name(optarg);
			o->tap = optarg;
			break;
		case 's':
			check_path("--socket", optarg);
			o->socket = optarg;
			break;
		case 'Q':
			o->queues = parse_uint("--queues", optarg, 1,
					       QUEUES_MAX);
			break;
		case 'm':
			o->mtu = parse_uint("--mtu", optarg, 68, MTU_MAX);
			break;
		case 'q':
			o->qlen = parse_uint("--queue-frames", optarg, 1,
					     1u << 24);
			break;
		case 'r':
			o->ring = parse_uint("--ring", optarg, 1, RING_MAX);
			if (o->ring & (o->ring - 1))
				usage_error("--ring: %u is not a power of 2",
					    o->ring);
			break;
		case 'M':
			o->mem_mib = parse_uint("--mem", optarg, 1,
						MEM_MAX_MIB);
			break;
		case 'b':
			o->rx_buf = parse_uint("--rx-buf", optarg, RX_BUF_MIN,
					       TX_BUF_LEN);
			break;
		case 'O':
			o->no_offload = true;
			break;
		case 'u':
			o->no_uso = true;
			break;
		case 'f':
			o->mask = parse_hex64("--features-mask", optarg);
			break;
		case 'B':
			if (strcmp(optarg, "indirect") &&
			    strcmp(optarg, "remap"))
				usage_error("--misbehave: indirect or remap, "
					    "not '%s'",
					    optarg);
			o->misbehave = optarg;
			break;
		case 'A':
			o->after_ms = parse_uint("--after", optarg, 0, 3600000);
			break;
		case 'L':
			o->log = true;
			break;
		case 'T':
			check_path("--migrate-to", optarg);
			o->migrate_to = optarg;
			break;
		case 'R':
			o->return_lost = true;
			break;
		case 'D':
			o->device_state = true;
			break;
		case 'U':
			o->resume = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			getopt_fail(c, argv);
		}
	}
	args_done(argc, argv, o->tap);
	if (!o->socket)
		usage_error("--socket PATH is required");
	if ((o->log ? 1 : 0) + (o->misbehave ? 1 : 0) +
		    (o->migrate_to ? 1 : 0) >
	    1)
		usage_error("--log, --misbehave and --migrate-to: one at a "
			    "time");
	if (o->device_state && !o->migrate_to)
		usage_error("--device-state goes with --migrate-to");
	if (o->resume && !o->migrate_to)
		usage_error("--resume goes with --migrate-to");
}

/**
 * vu_send() - send one request
 * @fe:		frontend
 * @req:	request
 * @flags:	VU_FLAG_NEED_REPLY or 0 (the version is added)
 * @payload:	payload, or NULL
 * @len:	its length
 * @fds:	file descriptors to pass, or NULL
 * @nfds:	how many (at most 1 here)
 *
 * #syscalls sendmsg
 * Return: 0, or -errno
 */
static int vu_send(struct fe *fe, enum vu_req req, uint32_t flags,
		   const void *payload, size_t len, const int *fds,
		   unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct vu_hdr h = { .request = (uint32_t)req,
			    .flags = VU_VERSION | flags,
			    .size = (uint32_t)len };
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	size_t want = sizeof(h) + len;
	ssize_t r;

	if (nfds) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), fds, sizeof(int));
	}
	do
		r = sendmsg(fe->sock_fd, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if ((size_t)r != want) /* tiny messages on a unix socket */
		return -EMSGSIZE;
	return 0;
}

/**
 * read_full() - read exactly @len bytes from the socket, with a deadline
 * @fd:		socket
 * @buf:	destination
 * @len:	bytes
 *
 * #syscalls poll read
 * Return: 0, -ETIMEDOUT, -ECONNRESET for end of file, or -errno
 */
static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t have = 0;

	while (have < len) {
		ssize_t r;
		int n = poll(&p, 1, REPLY_TIMEOUT_S * 1000);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ETIMEDOUT;
		r = read(fd, (uint8_t *)buf + have, len - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ECONNRESET;
		have += (size_t)r;
	}
	return 0;
}

/**
 * vu_recv_reply() - receive the reply to a request, of a known size
 * @fe:		frontend
 * @req:	the request it answers
 * @payload:	filled in
 * @len:	payload length expected
 *
 * Exits with status 1 if the backend closed, went quiet or answered
 * something else.
 */
static void vu_recv_reply(struct fe *fe, enum vu_req req, void *payload,
			  size_t len)
{
	struct vu_hdr h;
	int rc;

	rc = read_full(fe->sock_fd, &h, sizeof(h));
	if (!rc)
		rc = read_full(fe->sock_fd, payload,
			       len < h.size ? len : h.size);
	if (rc == -ECONNRESET)
		die("backend closed the socket instead of answering %s",
		    vu_req_str(req));
	if (rc == -ETIMEDOUT)
		die("no answer to %s in %d s", vu_req_str(req),
		    REPLY_TIMEOUT_S);
	if (rc)
		die("reading the answer to %s: %s", vu_req_str(req),
		    strerror(-rc));
	if (h.request != (uint32_t)req || !(h.flags & VU_FLAG_REPLY) ||
	    (h.flags & VU_VERSION_MASK) != VU_VERSION || h.size != len)
		die("bad answer to %s: request %u flags 0x%x size %u",
		    vu_req_str(req), h.request, h.flags, h.size);
}

/**
 * vu_get_u64() - send a request that has a u64 reply, and get it
 * @fe:		frontend
 * @req:	request
 *
 * Return: the value; exits with status 1 on failure
 */
static uint64_t vu_get_u64(struct fe *fe, enum vu_req req)
{
	uint64_t v;
	int rc = vu_send(fe, req, 0, NULL, 0, NULL, 0);

	if (rc)
		die("sending %s: %s", vu_req_str(req), strerror(-rc));
	vu_recv_reply(fe, req, &v, sizeof(v));
	return v;
}

/**
 * vu_set() - send a request that has no reply of its own
 * @fe:		frontend
 * @req:	request
 * @payload:	payload, or NULL
 * @len:	its length
 * @fd:		file descriptor to pass, or -1
 *
 * With REPLY_ACK negotiated, need_reply is set and the acknowledgement
 * (a u64, zero for success) awaited.
 *
 * Return: nothing; exits with status 1 on failure or a refusal
 */
static void vu_set(struct fe *fe, enum vu_req req, const void *payload,
		   size_t len, int fd)
{
	bool ack = fe->proto & BIT(PF_REPLY_ACK);
	uint64_t v;
	int rc;

	rc = vu_send(fe, req, ack ? VU_FLAG_NEED_REPLY : 0, payload, len, &fd,
		     fd >= 0 ? 1 : 0);
	if (rc)
		die("sending %s: %s", vu_req_str(req), strerror(-rc));
	if (!ack)
		return;
	vu_recv_reply(fe, req, &v, sizeof(v));
	if (v)
		die("backend refused %s (status %" PRIu64 ")", vu_req_str(req),
		    v);
}

/**
 * vu_set_u64() - send a request whose payload is one u64, see vu_set()
 * @fe:		frontend
 * @req:	request
 * @v:		value
 * @fd:		file descriptor to pass, or -1
 */
static void vu_set_u64(struct fe *fe, enum vu_req req, uint64_t v, int fd)
{
	vu_set(fe, req, &v, sizeof(v), fd);
}

/**
 * vu_set_state() - send a request whose payload is a vring state
 * @fe:		frontend
 * @req:	request
 * @index:	queue index
 * @num:	value
 */
static void vu_set_state(struct fe *fe, enum vu_req req, unsigned int index,
			 unsigned int num)
{
	struct vu_vring_state s = { .index = index, .num = num };

	vu_set(fe, req, &s, sizeof(s), -1);
}

/**
 * gmem_init() - create and map guest memory
 * @fe:		frontend
 * @mib:	size in MiB
 *
 * The mapping is populated now so that no page fault lands in a
 * measurement.
 *
 * #syscalls memfd_create ftruncate mmap
 */
static void gmem_init(struct fe *fe, unsigned int mib)
{
	fe->mem_len = (size_t)mib << 20;
	fe->mem_fd = memfd_create("swvu-guest", MFD_CLOEXEC);
	if (fe->mem_fd < 0)
		die("memfd_create: %s", strerror(errno));
	if (ftruncate(fe->mem_fd, (off_t)fe->mem_len))
		die("guest memory of %u MiB: %s", mib, strerror(errno));
	fe->mem = mmap(NULL, fe->mem_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fe->mem_fd, 0);
	if (fe->mem == MAP_FAILED)
		die("mmap of guest memory: %s", strerror(errno));
}

/**
 * gmem_carve() - give out a page-aligned area of guest memory
 * @fe:		frontend
 * @len:	bytes
 *
 * Return: its guest physical address (offset); the caller checked with
 *	   gmem_need() that everything fits
 */
static uint64_t gmem_carve(struct fe *fe, size_t len)
{
	uint64_t off = fe->mem_used;

	fe->mem_used += (len + PAGE_LEN - 1) & ~(size_t)(PAGE_LEN - 1);
	assert(fe->mem_used <= fe->mem_len);
	return off;
}

/**
 * page_round() - round up to a whole page
 * @len:	bytes
 *
 * Return: @len rounded up to PAGE_LEN
 */
static size_t page_round(size_t len)
{
	return (len + PAGE_LEN - 1) & ~(size_t)(PAGE_LEN - 1);
}

/**
 * vq_need() - guest memory one queue needs
 * @num:	ring size
 * @nbufs:	buffers
 * @buf_len:	bytes per buffer
 *
 * Return: bytes, page-rounded as gmem_carve() gives them out
 */
static size_t vq_need(unsigned int num, unsigned int nbufs, size_t buf_len)
{
	return page_round(16 * (size_t)num) + page_round(6 + 2 * (size_t)num) +
	       page_round(6 + 8 * (size_t)num) + page_round(nbufs * buf_len);
}

/**
 * vq_buf() - our pointer to a buffer of a queue
 * @fe:		frontend
 * @vq:		queue
 * @b:		buffer number, below @vq->nbufs
 *
 * Return: the pointer
 */
static uint8_t *vq_buf(const struct fe *fe, const struct vq *vq, uint32_t b)
{
	return fe->mem + vq->buf_off + (uint64_t)b * vq->buf_len;
}

/**
 * gptr() - our pointer to a guest physical address we gave out
 * @fe:		frontend
 * @gpa:	guest physical address (an offset in the memfd)
 *
 * Return: the pointer
 */
static void *gptr(const struct fe *fe, uint64_t gpa)
{
	return fe->mem + gpa;
}

/**
 * vq_init() - lay out a queue in guest memory and prepare its buffers
 * @fe:		frontend
 * @vq:		queue
 * @index:	vhost-user queue index
 * @num:	ring size
 * @buf_len:	bytes per buffer
 * @writable:	device-writable buffers (receive queue): twice @num of
 *		them, @num posted now and @num spare; a transmit queue has
 *		@num, all free
 *
 * #syscalls eventfd2
 */
static void vq_init(struct fe *fe, struct vq *vq, unsigned int index,
		    unsigned int num, size_t buf_len, bool writable)
{
	unsigned int i;
	uint8_t *a, *u;

	vq->index = index;
	vq->num = num;
	vq->event_idx = fe->features & BIT(F_EVENT_IDX);
	vq->buf_len = buf_len;
	vq->nbufs = writable ? 2 * num : num;
	vq->desc_off = gmem_carve(fe, sizeof(struct virtq_desc) * (size_t)num);
	vq->avail_off = gmem_carve(fe, VIRTQ_RING_HDR + 2 * ((size_t)num + 1));
	vq->used_off = gmem_carve(
		fe, VIRTQ_RING_HDR +
			    sizeof(struct virtq_used_elem) * (size_t)num + 2);
	vq->buf_off = gmem_carve(fe, vq->nbufs * buf_len);

	vq->desc = gptr(fe, vq->desc_off);
	a = gptr(fe, vq->avail_off);
	vq->avail_flags = (uint16_t *)a;
	vq->avail_idx_p = (uint16_t *)(a + 2);
	vq->avail_ring = (uint16_t *)(a + VIRTQ_RING_HDR);
	vq->used_event = vq->avail_ring + num;
	u = gptr(fe, vq->used_off);
	vq->used_flags = (uint16_t *)u;
	vq->used_idx_p = (uint16_t *)(u + 2);
	vq->used_ring = (struct virtq_used_elem *)(u + VIRTQ_RING_HDR);
	vq->avail_event = (uint16_t *)(vq->used_ring + num);

	vq->posted = calloc(num, sizeof(*vq->posted));
	vq->free = calloc(num, sizeof(*vq->free));
	vq->buf_of = calloc(num, sizeof(*vq->buf_of));
	vq->spare = calloc(num, sizeof(*vq->spare));
	vq->logpost = calloc(num, sizeof(*vq->logpost));
	vq->log_on = &fe->log_on;
	if (!vq->posted || !vq->free || !vq->buf_of || !vq->spare ||
	    !vq->logpost)
		die("out of memory");
	for (i = 0; i < num; i++) {
		vq->desc[i].addr = vq->buf_off + (uint64_t)i * buf_len;
		vq->desc[i].len = (uint32_t)buf_len;
		vq->desc[i].flags = writable ? VIRTQ_DESC_F_WRITE : 0;
		vq->desc[i].next = 0;
		if (writable) {
			vq->avail_ring[i] = (uint16_t)i;
			vq->posted[i] = true;
			vq->buf_of[i] = i;
			vq->spare[vq->nspare++] = 2 * num - 1 - i;
		} else {
			vq->free[vq->nfree++] = (uint16_t)(num - 1 - i);
		}
	}
	/* calls only while we wait: see vq_call_enable() */
	*vq->avail_flags = vq->event_idx ? 0 : VIRTQ_AVAIL_F_NO_INTERRUPT;
	*vq->used_event = 0;
	if (writable) {
		vq->avail_idx = (uint16_t)num;
		vq->exposed_idx = (uint16_t)num;
		vq->kicked_idx = (uint16_t)num;
		*vq->avail_idx_p = (uint16_t)num;
	}

	vq->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vq->call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vq->kick_fd < 0 || vq->call_fd < 0)
		die("eventfd: %s", strerror(errno));
}

/**
 * vq_give() - tell the backend about a queue: size, addresses, base, fds
 * @fe:		frontend
 * @vq:		queue, laid out by vq_init()
 */
static void vq_give(struct fe *fe, struct vq *vq)
{
	struct vu_vring_addr a = {
		.index = vq->index,
		.desc_uva = (uint64_t)(uintptr_t)gptr(fe, vq->desc_off),
		.used_uva = (uint64_t)(uintptr_t)gptr(fe, vq->used_off),
		.avail_uva = (uint64_t)(uintptr_t)gptr(fe, vq->avail_off),
	};

	vu_set_state(fe, VU_SET_VRING_NUM, vq->index, vq->num);
	vu_set(fe, VU_SET_VRING_ADDR, &a, sizeof(a), -1);
	vu_set_state(fe, VU_SET_VRING_BASE, vq->index, 0);
	vu_set_u64(fe, VU_SET_VRING_KICK, vq->index, vq->kick_fd);
	vu_set_u64(fe, VU_SET_VRING_CALL, vq->index, vq->call_fd);
}

/**
 * tap_has_uso() - does this kernel's tap take UDP segmentation offload?
 *
 * Tried on a scratch tap (swvu-usoN: the kernel picks N; it goes with its
 * fd, before the real one is made):
 * before Linux 6.2, TUNSETOFFLOAD refuses TUN_F_USO4/6, and a UDP GSO
 * frame written to a tap is refused as well.
 *
 * #syscalls open ioctl close
 * Return: true if it does
 */
static bool tap_has_uso(void)
{
	struct ifreq ifr = { .ifr_name = "swvu-uso%d",
			     .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = !ioctl(fd, TUNSETIFF, &ifr) &&
	     !ioctl(fd, TUNSETOFFLOAD,
		    (unsigned long)(TUN_F_CSUM | TUN_F_USO4 | TUN_F_USO6));
	close(fd);
	return ok;
}

/**
 * negotiate() - features, protocol features, owner, and queue count
 * @fe:		frontend
 * @o:		command line
 *
 * Return: nothing; exits with status 1 if the backend cannot do what was
 *	   asked (--queues above what it has)
 */
static void negotiate(struct fe *fe, const struct opts *o)
{
	uint64_t want = BIT(F_VERSION_1) | BIT(F_MRG_RXBUF) | BIT(F_CSUM) |
			BIT(F_GUEST_CSUM) | BIT(F_HOST_TSO4) |
			BIT(F_HOST_TSO6) | BIT(F_GUEST_TSO4) |
			BIT(F_GUEST_TSO6) | BIT(F_EVENT_IDX) |
			BIT(F_PROTOCOL_FEATURES);
	const uint64_t uso = BIT(F_GUEST_USO4) | BIT(F_GUEST_USO6) |
			     BIT(F_HOST_USO);
	bool logs = o->log || o->migrate_to;
	uint64_t offered, f;

	if (o->queues > 1)
		want |= BIT(F_MQ);
	if (!o->no_offload && !o->no_uso && tap_has_uso())
		want |= uso;
	if (o->no_offload)
		want &= ~(BIT(F_CSUM) | BIT(F_GUEST_CSUM) | BIT(F_HOST_TSO4) |
			  BIT(F_HOST_TSO6) | BIT(F_GUEST_TSO4) |
			  BIT(F_GUEST_TSO6));
	want &= o->mask;

	offered = vu_get_u64(fe, VU_GET_FEATURES);
	if (logs && !(offered & BIT(F_LOG_ALL)))
		die("--log, --migrate-to: the backend does not offer "
		    "VHOST_F_LOG_ALL "
		    "(features 0x%" PRIx64 "): it cannot be migrated",
		    offered);
	f = offered & want;
	/* virtio 5.1.3.1: segmentation needs the matching checksum offload */
	if (!(f & BIT(F_CSUM)))
		f &= ~(BIT(F_HOST_TSO4) | BIT(F_HOST_TSO6) | BIT(F_HOST_USO));
	if (!(f & BIT(F_GUEST_CSUM)))
		f &= ~(BIT(F_GUEST_TSO4) | BIT(F_GUEST_TSO6) |
		       BIT(F_GUEST_USO4) | BIT(F_GUEST_USO6));
	fe->features = f;

	if (f & BIT(F_PROTOCOL_FEATURES)) {
		uint64_t p = vu_get_u64(fe, VU_GET_PROTOCOL_FEATURES);

		if (logs && !(p & BIT(PF_LOG_SHMFD)))
			die("--log, --migrate-to: the backend does not offer "
			    "the LOG_SHMFD "
			    "protocol feature");
		if (o->device_state && !(p & BIT(PF_DEVICE_STATE)))
			die("--device-state: the backend at %s does not offer "
			    "the DEVICE_STATE protocol feature (bit %d; "
			    "protocol features 0x%" PRIx64 ")",
			    o->socket, PF_DEVICE_STATE, p);
		p &= BIT(PF_REPLY_ACK) | (o->queues > 1 ? BIT(PF_MQ) : 0) |
		     (logs ? BIT(PF_LOG_SHMFD) : 0) |
		     (o->device_state ? BIT(PF_DEVICE_STATE) : 0);
		/* sent before REPLY_ACK is on: no need_reply here */
		vu_set_u64(fe, VU_SET_PROTOCOL_FEATURES, p, -1);
		fe->proto = p;
	}
	if (logs && !(fe->proto & BIT(PF_LOG_SHMFD)))
		die("--log, --migrate-to%s need protocol features (bit 30)",
		    o->device_state ? ", --device-state" : "");
	if (o->queues > 1) {
		uint64_t n;

		if (!(fe->proto & BIT(PF_MQ)))
			die("--queues %u: the backend does not offer the MQ "
			    "protocol feature%s",
			    o->queues,
			    f & BIT(F_PROTOCOL_FEATURES) ?
				    "" :
				    " (no protocol features)");
		n = vu_get_u64(fe, VU_GET_QUEUE_NUM);
		/* queue pairs, as QEMU's vhost-user net reads it */
		if (n < o->queues)
			die("--queues %u: the backend has %" PRIu64
			    " queue pairs",
			    o->queues, n);
	}

	vu_set(fe, VU_SET_OWNER, NULL, 0, -1);
	vu_set_u64(fe, VU_SET_FEATURES, f, -1);

	fe->mrg = f & BIT(F_MRG_RXBUF);
	fe->hdr_len = (f & (BIT(F_VERSION_1) | BIT(F_MRG_RXBUF))) ?
			      HDR_LEN :
			      HDR_LEN_LEGACY;
}

/**
 * set_mem_table() - give the backend our guest memory, one region
 * @fe:		frontend
 */
static void set_mem_table(struct fe *fe)
{
	const struct vu_mem_region r = {
		.size = fe->mem_len,
		.uva = (uint64_t)(uintptr_t)fe->mem,
	};
	uint8_t t[VU_MEM_TABLE_HDR + sizeof(r)] = { 1 }; /* nregions: 1 */

	memcpy(t + VU_MEM_TABLE_HDR, &r, sizeof(r));
	vu_set(fe, VU_SET_MEM_TABLE, t, sizeof(t), fe->mem_fd);
}

/**
 * log_init() - --log: the dirty log's memfd, one bit per page of guest
 * memory (in whole u64 words, as QEMU's), and our record of the pages
 * written
 * @fe:		frontend, guest memory made
 *
 * #syscalls memfd_create ftruncate mmap
 */
static void log_init(struct fe *fe)
{
	size_t pages = fe->mem_len / VU_LOG_PAGE;

	fe->log_len = (pages + 63) / 64 * 8;
	fe->log_fd = memfd_create("swvu-log", MFD_CLOEXEC);
	if (fe->log_fd < 0)
		die("memfd_create: %s", strerror(errno));
	if (ftruncate(fe->log_fd, (off_t)fe->log_len))
		die("dirty log of %zu bytes: %s", fe->log_len, strerror(errno));
	fe->log = mmap(NULL, fe->log_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fe->log_fd, 0);
	fe->written = calloc(1, fe->log_len);
	if (fe->log == MAP_FAILED || !fe->written)
		die("dirty log: %s", strerror(errno));
}

/**
 * log_start() - --log: switch dirty logging on with the rings running,
 * in QEMU's order (vhost_dev_log_resize(), then vhost_dev_set_log() for
 * each queue pair's vhost device)
 * @fe:		frontend
 *
 * SET_LOG_BASE has a reply of its own with LOG_SHMFD (QEMU waits for it);
 * then, per pair, SET_FEATURES with VHOST_F_LOG_ALL and SET_VRING_ADDR of
 * both rings with the log flag and the used ring's guest address. Only
 * once every request is acknowledged (REPLY_ACK) are descriptors posted
 * noted as logged.
 */
static void log_start(struct fe *fe)
{
	uint64_t lb[2] = { fe->log_len, 0 }, v;
	unsigned int i, k;
	int rc;

	rc = vu_send(fe, VU_SET_LOG_BASE, 0, lb, sizeof(lb), &fe->log_fd, 1);
	if (rc)
		die("sending SET_LOG_BASE: %s", strerror(-rc));
	vu_recv_reply(fe, VU_SET_LOG_BASE, &v, sizeof(v));
	for (i = 0; i < fe->npairs; i++) {
		vu_set_u64(fe, VU_SET_FEATURES, fe->features | BIT(F_LOG_ALL),
			   -1);
		for (k = 0; k < 2; k++) {
			const struct vq *vq = k ? &fe->pairs[i].tx :
						  &fe->pairs[i].rx;
			struct vu_vring_addr a = {
				.index = vq->index,
				.flags = VU_VRING_F_LOG,
				.desc_uva = (uint64_t)(uintptr_t)gptr(
					fe, vq->desc_off),
				.used_uva = (uint64_t)(uintptr_t)gptr(
					fe, vq->used_off),
				.avail_uva = (uint64_t)(uintptr_t)gptr(
					fe, vq->avail_off),
				.log_gpa = vq->used_off,
			};

			vu_set(fe, VU_SET_VRING_ADDR, &a, sizeof(a), -1);
		}
	}
	atomic_store(&fe->log_on, true);
	fprintf(stderr, "swvu: dirty logging on (%zu-byte log)\n", fe->log_len);
}

/**
 * realtime_ns() - wall-clock time, as slipway stamps its migration lines
 *
 * Return: CLOCK_REALTIME in nanoseconds
 */
static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * ring_of() - a queue by its vhost-user index
 * @fe:		frontend
 * @i:		index: receive 2k, transmit 2k+1
 *
 * Return: the queue
 */
static struct vq *ring_of(struct fe *fe, unsigned int i)
{
	return i & 1 ? &fe->pairs[i / 2].tx : &fe->pairs[i / 2].rx;
}

/**
 * mig_stop_rings() - --migrate-to: stop the device as QEMU's source does
 * when a migration completes (vhost_dev_stop(): GET_VRING_BASE on every
 * ring, pair by pair), keeping the bases
 * @fe:		frontend, logging on
 * @bases:	out: per ring, the avail index the backend stopped at
 *
 * The workers go on, as a guest's driver would until its CPUs stop: they
 * post what the tap gives while there are free descriptors, which the
 * destination then finds. @fe->stop_ns is when the last answer came.
 */
static void mig_stop_rings(struct fe *fe, uint16_t *bases)
{
	unsigned int i;
	int rc;

	for (i = 0; i < 2 * fe->npairs; i++) {
		struct vu_vring_state st = { .index = i };

		rc = vu_send(fe, VU_GET_VRING_BASE, 0, &st, sizeof(st), NULL,
			     0);
		if (rc)
			die("sending GET_VRING_BASE: %s", strerror(-rc));
		vu_recv_reply(fe, VU_GET_VRING_BASE, &st, sizeof(st));
		if (st.index != i || st.num > 0xffff)
			die("bad answer to GET_VRING_BASE %u: ring %u base %u",
			    i, st.index, st.num);
		bases[i] = (uint16_t)st.num;
	}
	fe->stop_ns = realtime_ns();
	fprintf(stderr,
		"swvu: migration: rings stopped at %" PRIu64 ".%09" PRIu64
		" (realtime), bases",
		fe->stop_ns / 1000000000U, fe->stop_ns % 1000000000U);
	for (i = 0; i < 2 * fe->npairs; i++)
		fprintf(stderr, " %u:%u", i, bases[i]);
	fputc('\n', stderr);
}

/**
 * state_fd() - --device-state: SET_DEVICE_STATE_FD, one end of a pipe
 * @fe:		frontend
 * @dir:	VU_STATE_SAVE or VU_STATE_LOAD
 * @fd:		our pipe's end for the backend (write end for SAVE, read end
 *		for LOAD); still ours to close
 *
 * The request has a reply of its own (a u64: error code in bits 0-7,
 * VU_STATE_FD_KEPT when the backend uses @fd), so no need_reply.
 *
 * Return: nothing; exits with status 1 if the backend refuses, or wants
 *	   a pipe of its own (which swvu does not take)
 */
static void state_fd(struct fe *fe, uint32_t dir, int fd)
{
	uint32_t pl[2] = { dir, VU_STATE_PHASE_STOPPED };
	enum vu_req req = VU_SET_DEVICE_STATE_FD;
	const char *what = dir == VU_STATE_SAVE ? "SAVE" : "LOAD";
	uint64_t v;
	int rc;

	rc = vu_send(fe, req, 0, pl, sizeof(pl), &fd, 1);
	if (rc)
		die("sending SET_DEVICE_STATE_FD (%s): %s", what,
		    strerror(-rc));
	vu_recv_reply(fe, req, &v, sizeof(v));
	if (v & STATE_ERR_MASK)
		die("backend refused SET_DEVICE_STATE_FD (%s): error %" PRIu64
		    " (reply 0x%" PRIx64 ")",
		    what, v & STATE_ERR_MASK, v);
	if (!(v & VU_STATE_FD_KEPT))
		die("SET_DEVICE_STATE_FD (%s): the backend answers with a "
		    "pipe of its own (reply 0x%" PRIx64 "), which swvu does "
		    "not take",
		    what, v);
}

/**
 * state_check() - --device-state: CHECK_DEVICE_STATE must answer 0
 * @fe:		frontend
 * @what:	"SAVE" or "LOAD", for the message
 */
static void state_check(struct fe *fe, const char *what)
{
	uint64_t v = vu_get_u64(fe, VU_CHECK_DEVICE_STATE);

	if (v)
		die("CHECK_DEVICE_STATE after %s: the backend answers %" PRIu64
		    ": the transfer failed",
		    what, v);
}

/**
 * state_save() - --device-state: the source's state, as a source QEMU
 * saves it once the device is stopped (vhost_save_backend_state())
 * @fe:		frontend, its rings stopped by mig_stop_rings()
 *
 * SET_DEVICE_STATE_FD (SAVE) with a pipe's write end, which is closed
 * here once sent: the backend writes the state and closes its copy; the
 * pipe is read as it comes, into @fe->state, until end of file. Then
 * CHECK_DEVICE_STATE. As QEMU, nothing is read before the answer: a
 * backend that writes a state bigger than the pipe before answering
 * hangs QEMU, and here it ends with "no answer".
 *
 * #syscalls pipe2 close poll read
 */
static void state_save(struct fe *fe)
{
	size_t cap = 0;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		die("pipe2: %s", strerror(errno));
	state_fd(fe, VU_STATE_SAVE, p[1]);
	close(p[1]);
	fe->state_len = 0;
	for (;;) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		ssize_t r;
		int n;

		if (cap - fe->state_len < STATE_CHUNK) {
			uint8_t *b;

			cap = cap ? 2 * cap : 4 * STATE_CHUNK;
			if (cap > STATE_MAX_LEN + STATE_CHUNK)
				die("device state (SAVE): more than %lu bytes",
				    STATE_MAX_LEN);
			b = realloc(fe->state, cap);
			if (!b)
				die("device state of %zu bytes: out of memory",
				    cap);
			fe->state = b;
		}
		n = poll(&pf, 1, REPLY_TIMEOUT_S * 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("poll: %s", strerror(errno));
		if (!n)
			die("device state (SAVE): nothing more for %d s after "
			    "%zu bytes, and no end of file",
			    REPLY_TIMEOUT_S, fe->state_len);
		r = read(p[0], fe->state + fe->state_len, STATE_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("device state (SAVE): read: %s", strerror(errno));
		if (!r)
			break;
		fe->state_len += (size_t)r;
	}
	close(p[0]);
	state_check(fe, "SAVE");
	fprintf(stderr,
		"swvu: migration: device state saved, %zu bytes, checked "
		"%.3f ms after the stop\n",
		fe->state_len, (double)(realtime_ns() - fe->stop_ns) / 1e6);
}

/**
 * state_load() - --device-state: the saved state into the destination,
 * as a destination QEMU loads it (vhost_load_backend_state()), before
 * the device is started
 * @fe:		frontend, connected to the destination and its owner
 *
 * SET_DEVICE_STATE_FD (LOAD) with a pipe's read end, closed here once
 * sent; @fe->state is written into the write end, which is then closed
 * (the backend reads until end of file), and CHECK_DEVICE_STATE.
 *
 * #syscalls pipe2 close poll write
 */
static void state_load(struct fe *fe)
{
	size_t done = 0;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		die("pipe2: %s", strerror(errno));
	state_fd(fe, VU_STATE_LOAD, p[0]);
	close(p[0]);
	while (done < fe->state_len) {
		struct pollfd pf = { .fd = p[1], .events = POLLOUT };
		size_t len = fe->state_len - done;
		ssize_t r;
		int n;

		n = poll(&pf, 1, REPLY_TIMEOUT_S * 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("poll: %s", strerror(errno));
		if (!n)
			die("device state (LOAD): the backend read nothing for "
			    "%d s, %zu of %zu bytes in",
			    REPLY_TIMEOUT_S, done, fe->state_len);
		r = write(p[1], fe->state + done,
			  len < STATE_CHUNK ? len : STATE_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EPIPE)
			die("device state (LOAD): the backend closed the pipe "
			    "after %zu of %zu bytes",
			    done, fe->state_len);
		if (r < 0)
			die("device state (LOAD): write: %s", strerror(errno));
		done += (size_t)r;
	}
	close(p[1]);
	state_check(fe, "LOAD");
	fprintf(stderr,
		"swvu: migration: device state loaded, %zu bytes, checked "
		"%.3f ms after the stop\n",
		fe->state_len, (double)(realtime_ns() - fe->stop_ns) / 1e6);
}

static void dev_start(struct fe *fe, const struct opts *o,
		      const uint16_t *bases);

/**
 * mig_connect() - --migrate-to: set the device up on the destination
 * backend as a destination QEMU does, the memory and rings as they are
 * @fe:		frontend, its rings stopped by mig_stop_rings()
 * @o:		command line
 * @bases:	per ring, where the source stopped
 *
 * GET_FEATURES, GET_PROTOCOL_FEATURES and SET_PROTOCOL_FEATURES (the set
 * acked before), GET_QUEUE_NUM with MQ, SET_OWNER, with --device-state
 * the saved state loaded and checked (state_load()), SET_FEATURES (the
 * features acked before, without LOG_ALL), SET_MEM_TABLE (the same
 * memfd), then per ring SET_VRING_NUM, SET_VRING_BASE (the saved base),
 * SET_VRING_ADDR (no log flag), SET_VRING_KICK and SET_VRING_CALL (the
 * same eventfds), and SET_VRING_ENABLE for all. A backend starts a ring's
 * used index at its base (as DPDK and slipway do), so the source must
 * have published a used entry for everything it took: a ring whose used
 * index is not its base ends swvu with status 1, but with --return-lost,
 * where a transmit ring's missing entries are written here (length 0)
 * and the used index set to the base, so that the run goes on. Then
 * every ring is
 * kicked once: what the driver posted while the device was stopped may
 * have gone without a kick (the source had asked for none).
 *
 * #syscalls socket close write
 */
static void mig_connect(struct fe *fe, const struct opts *o,
			const uint16_t *bases)
{
	uint64_t offered, proto = fe->proto;
	int rc, fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	rc = connect_retry(fd, o->migrate_to, false);
	if (rc)
		die("connect %s: %s", o->migrate_to, strerror(-rc));
	fe->old_fd = fe->sock_fd;
	fe->sock_fd = fd;
	fe->proto = 0; /* no REPLY_ACK until it is acked again */
	atomic_store(&fe->log_on, false);

	offered = vu_get_u64(fe, VU_GET_FEATURES);
	if ((offered & fe->features) != fe->features)
		die("--migrate-to: the destination offers features 0x%" PRIx64
		    ", not all of 0x%" PRIx64,
		    offered, fe->features);
	if (fe->features & BIT(F_PROTOCOL_FEATURES)) {
		uint64_t p = vu_get_u64(fe, VU_GET_PROTOCOL_FEATURES);

		if ((proto & BIT(PF_DEVICE_STATE)) &&
		    !(p & BIT(PF_DEVICE_STATE)))
			die("--device-state: the destination %s does not "
			    "offer the DEVICE_STATE protocol feature (bit %d; "
			    "protocol features 0x%" PRIx64 ")",
			    o->migrate_to, PF_DEVICE_STATE, p);
		if ((p & proto) != proto)
			die("--migrate-to: the destination offers protocol "
			    "features 0x%" PRIx64 ", not all of 0x%" PRIx64,
			    p, proto);
		vu_set_u64(fe, VU_SET_PROTOCOL_FEATURES, proto, -1);
		fe->proto = proto;
	}
	if (fe->npairs > 1 && vu_get_u64(fe, VU_GET_QUEUE_NUM) < fe->npairs)
		die("--migrate-to: the destination has fewer queue pairs");
	vu_set(fe, VU_SET_OWNER, NULL, 0, -1);
	if (o->device_state)
		state_load(fe);
	dev_start(fe, o, bases);
	fprintf(stderr,
		"swvu: migration: destination %s set up %.3f ms after the "
		"stop\n",
		o->migrate_to, (double)(realtime_ns() - fe->stop_ns) / 1e6);
}

/**
 * dev_start() - set the device up on the backend of @fe->sock_fd, its
 * rings at the bases a source gave, as QEMU's vhost_dev_start() does on
 * a destination, or on the source when it resumes the VM after a failed
 * migration
 * @fe:		frontend, its rings stopped by mig_stop_rings()
 * @o:		command line (--return-lost)
 * @bases:	per ring, where the source stopped
 *
 * See mig_connect() for the messages and the used-index check.
 *
 * #syscalls write
 */
static void dev_start(struct fe *fe, const struct opts *o,
		      const uint16_t *bases)
{
	uint64_t one = 1;
	unsigned int i;

	atomic_store(&fe->log_on, false);
	vu_set_u64(fe, VU_SET_FEATURES, fe->features, -1);
	set_mem_table(fe);

	for (i = 0; i < 2 * fe->npairs; i++) {
		struct vq *vq = ring_of(fe, i);
		uint16_t used = __atomic_load_n(vq->used_idx_p,
						__ATOMIC_ACQUIRE);
		uint16_t gap = (uint16_t)(bases[i] - used), k;

		if (gap && (!o->return_lost || !(i & 1) || gap > vq->num))
			die("backend error: queue %u stopped at avail %u but "
			    "its used index is %u: %u entries taken and never "
			    "returned, which the destination cannot return",
			    i, bases[i], used, gap);
		if (gap) {
			/* --return-lost: what the guest would have seen */
			for (k = 0; k < gap; k++) {
				uint16_t pos = (uint16_t)(used + k);

				vq->used_ring[pos & (vq->num - 1)] =
					(struct virtq_used_elem){
						.id = vq->avail_ring[pos &
								     (vq->num -
								      1)],
					};
			}
			__atomic_store_n(vq->used_idx_p, bases[i],
					 __ATOMIC_RELEASE);
			fprintf(stderr,
				"swvu: migration: queue %u: %u entries the "
				"source took and never returned, returned "
				"here (--return-lost)\n",
				i, gap);
		}
		vq->mig_base = bases[i];
		atomic_store_explicit(&vq->mig_armed, true,
				      memory_order_release);
	}
	for (i = 0; i < 2 * fe->npairs; i++) {
		struct vq *vq = ring_of(fe, i);
		struct vu_vring_addr a = {
			.index = vq->index,
			.desc_uva = (uint64_t)(uintptr_t)gptr(fe, vq->desc_off),
			.used_uva = (uint64_t)(uintptr_t)gptr(fe, vq->used_off),
			.avail_uva = (uint64_t)(uintptr_t)gptr(fe,
							       vq->avail_off),
		};

		vu_set_state(fe, VU_SET_VRING_NUM, i, vq->num);
		vu_set_state(fe, VU_SET_VRING_BASE, i, bases[i]);
		vu_set(fe, VU_SET_VRING_ADDR, &a, sizeof(a), -1);
		vu_set_u64(fe, VU_SET_VRING_KICK, i, vq->kick_fd);
		vu_set_u64(fe, VU_SET_VRING_CALL, i, vq->call_fd);
	}
	if (fe->features & BIT(F_PROTOCOL_FEATURES)) {
		for (i = 0; i < 2 * fe->npairs; i++)
			vu_set_state(fe, VU_SET_VRING_ENABLE, i, 1);
	}
	for (i = 0; i < 2 * fe->npairs; i++)
		if (write(ring_of(fe, i)->kick_fd, &one, sizeof(one)) < 0 &&
		    errno != EAGAIN)
			fprintf(stderr, "swvu: kick: %s\n", strerror(errno));
}

/**
 * log_check() - --log: is every page the backend wrote while logging
 * marked in the log? One line on stderr says.
 * @fe:		frontend
 *
 * The workers may still run: a page they record has been marked before
 * (the backend marks before it publishes the used index they read).
 *
 * Return: pages written but not marked
 */
static size_t log_check(struct fe *fe)
{
	size_t i, written = 0, missed = 0;
	unsigned int b;

	if (!atomic_load(&fe->log_on)) {
		fprintf(stderr, "swvu: log: logging was never switched on\n");
		return 1;
	}
	for (i = 0; i < fe->log_len; i++) {
		uint8_t w = __atomic_load_n(&fe->written[i], __ATOMIC_ACQUIRE);
		uint8_t l = __atomic_load_n(&fe->log[i], __ATOMIC_ACQUIRE);

		for (b = 0; b < 8; b++) {
			if (!(w & (1U << b)))
				continue;
			written++;
			if (!(l & (1U << b))) {
				if (!missed)
					fprintf(stderr,
						"swvu: log: page %zu (guest "
						"0x%zx) written, not marked\n",
						i * 8 + b,
						(i * 8 + b) * VU_LOG_PAGE);
				missed++;
			}
		}
	}
	fprintf(stderr, "swvu: log: %zu pages written, %zu not marked\n",
		written, missed);
	return missed;
}

/**
 * mig_summary() - --migrate-to: one line at exit, the first frames' times
 * @fe:		frontend
 *
 * Return: 0, or 1 if the migration never happened
 */
static int mig_summary(struct fe *fe)
{
	uint64_t t[DIR_NUM];
	char b[DIR_NUM][32];
	enum dir d;

	if (!fe->stop_ns) {
		fprintf(stderr, "swvu: migration: never started\n");
		return 1;
	}
	for (d = 0; d < DIR_NUM; d++) {
		t[d] = atomic_load(&fe->first_ns[d]);
		if (t[d])
			snprintf(b[d], sizeof(b[d]), "%.3f ms",
				 (double)(t[d] - fe->stop_ns) / 1e6);
		else
			snprintf(b[d], sizeof(b[d]), "none");
	}
	fprintf(stderr,
		"swvu: migration: stopped at %" PRIu64 ".%09" PRIu64
		", first frame %s %s, %s %s\n",
		fe->stop_ns / 1000000000U, fe->stop_ns % 1000000000U,
		dir_str[DIR_FROM_TAP], b[DIR_FROM_TAP], dir_str[DIR_TO_TAP],
		b[DIR_TO_TAP]);
	return 0;
}

/**
 * tap_open() - create the tap with one queue per pair, and bring it up
 * @fe:		frontend, features negotiated
 * @o:		command line
 *
 * Sets the vnet header size and the offloads the backend accepts (CSUM,
 * HOST_TSO4/6, HOST_USO) on every queue, then MTU, txqueuelen and IFF_UP.
 *
 * #syscalls ioctl
 */
static void tap_open(struct fe *fe, const struct opts *o)
{
	unsigned int off = 0, i;
	int hdr = (int)fe->hdr_len;

	if (fe->features & BIT(F_CSUM))
		off |= TUN_F_CSUM;
	if (fe->features & BIT(F_HOST_TSO4))
		off |= TUN_F_TSO4;
	if (fe->features & BIT(F_HOST_TSO6))
		off |= TUN_F_TSO6;
	if (fe->features & BIT(F_HOST_USO)) /* tap_has_uso() said yes */
		off |= TUN_F_USO4 | TUN_F_USO6;

	for (i = 0; i < fe->npairs; i++) {
		int fd = tap_create(o->tap,
				    fe->npairs > 1 ?
					    IFF_VNET_HDR | IFF_MULTI_QUEUE :
					    IFF_VNET_HDR);

		if (ioctl(fd, TUNSETVNETHDRSZ, &hdr))
			die("tap vnet header size: %s", strerror(errno));
		if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)off))
			die("tap offloads 0x%x: %s", off, strerror(errno));
		fe->pairs[i].tap_fd = fd;
	}

	tap_link_up(o->tap, "tap", o->mtu, o->qlen);
}

/**
 * vq_used_idx() - read the backend's used index
 * @vq:		queue
 *
 * The acquire load pairs with the backend's release (write barrier)
 * between filling used entries and storing the index: entries up to the
 * index we read are complete when we read them.
 *
 * Return: the used index
 */
static uint16_t vq_used_idx(const struct vq *vq)
{
	return __atomic_load_n(vq->used_idx_p, __ATOMIC_ACQUIRE);
}

/**
 * vq_add() - put a descriptor in the avail ring (not yet published)
 * @vq:		queue
 * @id:		descriptor, owned by us until now
 */
static void vq_add(struct vq *vq, uint16_t id)
{
	vq->avail_ring[vq->avail_idx & (vq->num - 1)] = id;
	vq->avail_idx++;
	vq->posted[id] = true;
	/* acquire: pairs with the main thread's store once the backend
	 * acknowledged logging; the backend takes this descriptor only
	 * after that, so it must log what it writes for it */
	vq->logpost[id] = atomic_load_explicit(vq->log_on,
					       memory_order_acquire);
}

/**
 * log_written() - record guest pages the backend wrote while logging
 * @fe:		frontend
 * @gpa:	first byte
 * @len:	bytes (0: none)
 *
 * Release: pairs with the acquire loads in log_check(), so the backend's
 * marks, seen before the used index we read, are seen there too.
 */
static void log_written(struct fe *fe, uint64_t gpa, uint64_t len)
{
	uint64_t page, last;

	if (!len || gpa + len > fe->mem_len)
		return;
	last = (gpa + len - 1) / VU_LOG_PAGE;
	for (page = gpa / VU_LOG_PAGE; page <= last; page++)
		__atomic_fetch_or(&fe->written[page / 8],
				  (uint8_t)(1U << (page % 8)),
				  __ATOMIC_RELEASE);
}

/**
 * log_used() - a descriptor posted while logging came back in used ring
 * entry @pos: record the entry and the used index as written
 * @fe:		frontend
 * @vq:		queue
 * @pos:	used ring position (free running)
 */
static void log_used(struct fe *fe, const struct vq *vq, uint16_t pos)
{
	log_written(fe, vq->used_off + 4 + 8ULL * (pos & (vq->num - 1)), 8);
	log_written(fe, vq->used_off + 2, 2);
}

/**
 * vq_expose() - let the backend see the added descriptors, without a kick
 * @vq:		queue
 *
 * The release store orders the descriptor and avail entries before the
 * index (the backend's read barrier after reading the index pairs with
 * it).
 */
static void vq_expose(struct vq *vq)
{
	if (vq->exposed_idx == vq->avail_idx)
		return;
	__atomic_store_n(vq->avail_idx_p, vq->avail_idx, __ATOMIC_RELEASE);
	vq->exposed_idx = vq->avail_idx;
}

/**
 * vq_publish() - expose the added descriptors and kick if the backend
 * wants it
 * @vq:		queue
 *
 * The full fence orders the index store before our read of used->flags
 * or avail_event: the backend, in turn, stores those before reading the
 * avail index again, so either we see its request for a kick or it sees
 * our entries.
 *
 * #syscalls write
 */
static void vq_publish(struct vq *vq)
{
	uint16_t old = vq->kicked_idx, now = vq->avail_idx;
	uint64_t one = 1;
	bool kick;

	if (old == now)
		return;
	vq_expose(vq);
	vq->kicked_idx = now;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vq->event_idx) {
		uint16_t ev = __atomic_load_n(vq->avail_event,
					      __ATOMIC_RELAXED);

		/* virtio 2.6.10: kick when ev lies in [old, now) */
		kick = (uint16_t)(now - ev - 1) < (uint16_t)(now - old);
	} else {
		kick = !(__atomic_load_n(vq->used_flags, __ATOMIC_RELAXED) &
			 VIRTQ_USED_F_NO_NOTIFY);
	}
	if (kick && write(vq->kick_fd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN)
		fprintf(stderr, "swvu: kick: %s\n", strerror(errno));
}

/**
 * vq_call_enable() - ask for a call on the next used entry after
 * @vq->seen_used
 * @vq:		queue
 *
 * The full fence orders our request before the used index read that
 * follows in the caller: the backend stores the index before reading our
 * flags or used_event, so either it calls or we see its entries.
 */
static void vq_call_enable(struct vq *vq)
{
	if (vq->event_idx)
		__atomic_store_n(vq->used_event, vq->seen_used,
				 __ATOMIC_RELAXED);
	else
		__atomic_store_n(vq->avail_flags, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/**
 * vq_call_disable() - no calls while we are busy anyway
 * @vq:		queue
 *
 * With EVENT_IDX, used_event is left behind: it is crossed again only after
 * 65536 used entries, which costs one spurious call at most.
 */
static void vq_call_disable(struct vq *vq)
{
	if (!vq->event_idx)
		__atomic_store_n(vq->avail_flags, VIRTQ_AVAIL_F_NO_INTERRUPT,
				 __ATOMIC_RELAXED);
}

/**
 * vq_wait_call() - wait until the backend has used more than @vq->seen_used,
 * via its call
 * @vq:		queue
 *
 * #syscalls poll read
 * Return: 0, or -errno
 */
static int vq_wait_call(struct vq *vq)
{
	struct pollfd p = { .fd = vq->call_fd, .events = POLLIN };
	uint64_t v;

	vq_call_enable(vq);
	while (vq_used_idx(vq) == vq->seen_used) {
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (read(vq->call_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	}
	vq_call_disable(vq);
	return 0;
}

/**
 * mig_seen() - --migrate-to: a worker saw the used index at @used; note
 * the first frame the destination moved each way
 * @fe:		frontend
 * @vq:		the worker's queue
 * @used:	the used index it read
 * @d:		its direction
 *
 * Context: the queue's worker. The acquire load pairs with the main
 * thread's release store in mig_connect(), made before the destination
 * had the ring: @vq->mig_base is set when this sees the flag.
 */
static void mig_seen(struct fe *fe, struct vq *vq, uint16_t used, enum dir d)
{
	uint64_t now, none = 0;

	if (!atomic_load_explicit(&vq->mig_armed, memory_order_acquire) ||
	    used == vq->mig_base)
		return;
	atomic_store_explicit(&vq->mig_armed, false, memory_order_relaxed);
	now = realtime_ns();
	if (atomic_compare_exchange_strong(&fe->first_ns[d], &none, now))
		fprintf(stderr,
			"swvu: migration: first frame %s %.3f ms after the "
			"stop (queue %u)\n",
			dir_str[d], (double)(now - fe->stop_ns) / 1e6,
			vq->index);
}

/**
 * tx_reclaim() - take used transmit descriptors back to the free list
 * @p:		queue pair
 *
 * Return: 0, or -EPROTO if the backend broke a rule (reported)
 */
static int tx_reclaim(struct pair *p)
{
	struct vq *vq = &p->tx;
	uint16_t used = vq_used_idx(vq);
	uint16_t n = (uint16_t)(used - vq->last_used);

	vq->seen_used = used;
	mig_seen(p->fe, vq, used, DIR_FROM_TAP);
	if (n > vq->num) {
		worker_fail(p->fe,
			    "backend error: queue %u used index %u is "
			    "%u ahead of %u",
			    vq->index, used, n, vq->last_used);
		return -EPROTO;
	}
	while (vq->last_used != used) {
		uint32_t id = vq->used_ring[vq->last_used & (vq->num - 1)].id;

		if (id >= vq->num || !vq->posted[id]) {
			worker_fail(p->fe,
				    "backend error: queue %u used id "
				    "%u was not posted",
				    vq->index, id);
			return -EPROTO;
		}
		vq->posted[id] = false;
		if (vq->logpost[id])
			log_used(p->fe, vq, vq->last_used);
		vq->free[vq->nfree++] = (uint16_t)id;
		vq->last_used++;
	}
	return 0;
}

/**
 * tx_read() - read one frame from the tap into a transmit buffer
 * @p:		queue pair
 * @id:		descriptor whose buffer takes it
 *
 * The virtio-net header comes from the tap as it is, but for DATA_VALID,
 * which a driver must not set (virtio 5.1.6.2), and num_buffers, zeroed.
 *
 * #syscalls read
 * Return: bytes (header and frame), 0 if the tap is empty, -EMSGSIZE for a
 *	   frame that is dropped, or -errno
 */
static ssize_t tx_read(struct pair *p, uint16_t id)
{
	struct vq *vq = &p->tx;
	uint8_t *buf = vq_buf(p->fe, vq, id);
	size_t hl = p->fe->hdr_len;
	ssize_t r;

	do
		r = read(p->tap_fd, buf, TX_BUF_LEN);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? 0 : -errno;
	if ((size_t)r <= hl || r >= TX_BUF_LEN)
		return -EMSGSIZE;
	buf[0] &= (uint8_t)~HDR_F_DATA_VALID;
	if (hl == HDR_LEN)
		memset(buf + HDR_NUM_BUFFERS_OFF, 0, 2);
	return r;
}

/**
 * tx_thread() - thread: frames from a tap queue to a transmit virtqueue
 * @arg:	struct pair
 *
 * Context: its own thread, the only user of @p->tx and writer of
 *	    ctr[DIR_FROM_TAP]
 * Return: NULL
 */
static void *tx_thread(void *arg)
{
	struct pair *p = arg;
	struct vq *vq = &p->tx;
	struct dir_ctr *c = &p->ctr[DIR_FROM_TAP];
	size_t hl = p->fe->hdr_len;
	int rc;

	for (;;) {
		unsigned int n = 0;
		bool empty = false;

		if (tx_reclaim(p))
			return NULL;
		if (!vq->nfree) {
			rc = vq_wait_call(vq);
			if (rc) {
				worker_fail(p->fe, "queue %u: %s", vq->index,
					    strerror(-rc));
				return NULL;
			}
			continue;
		}
		while (n < TX_BATCH && vq->nfree) {
			uint16_t id = vq->free[vq->nfree - 1];
			ssize_t r = tx_read(p, id);

			if (r == -EMSGSIZE) {
				count_drop(c, 0);
				continue;
			}
			if (r < 0) {
				worker_fail(p->fe, "tap read: %s",
					    strerror((int)-r));
				return NULL;
			}
			if (!r) {
				empty = true;
				break;
			}
			vq->nfree--;
			vq->desc[id].len = (uint32_t)r;
			/* --misbehave indirect: a flag we did not negotiate */
			if (!p->n && atomic_exchange(&p->fe->poison, false))
				vq->desc[id].flags |= VIRTQ_DESC_F_INDIRECT;
			vq_add(vq, id);
			ctr_add(&c->frames, 1);
			ctr_add(&c->bytes, (uint64_t)r - hl);
			n++;
		}
		vq_publish(vq);
		if (empty) {
			rc = tap_wait(p->tap_fd);
			if (rc) {
				worker_fail(p->fe, "poll: %s", strerror(-rc));
				return NULL;
			}
		}
	}
}

/**
 * rx_take() - check one used receive entry and take its descriptor back
 * @p:		queue pair
 * @pos:	used ring position (free running)
 * @len:	bytes the backend wrote, checked against the buffer
 *
 * Return: the descriptor, or -EPROTO if the backend broke a rule (reported)
 */
static int rx_take(struct pair *p, uint16_t pos, uint32_t *len)
{
	struct vq *vq = &p->rx;
	struct virtq_used_elem e = vq->used_ring[pos & (vq->num - 1)];

	if (e.id >= vq->num || !vq->posted[e.id]) {
		worker_fail(p->fe,
			    "backend error: queue %u used id %u was "
			    "not posted",
			    vq->index, e.id);
		return -EPROTO;
	}
	if (e.len > vq->buf_len) {
		worker_fail(p->fe,
			    "backend error: queue %u used length %u "
			    "exceeds the %zu-byte buffer",
			    vq->index, e.len, vq->buf_len);
		return -EPROTO;
	}
	vq->posted[e.id] = false;
	if (vq->logpost[e.id]) {
		log_used(p->fe, vq, pos);
		log_written(p->fe,
			    vq->buf_off +
				    (uint64_t)vq->buf_of[e.id] * vq->buf_len,
			    e.len);
	}
	*len = e.len;
	return (int)e.id;
}

/**
 * csum_add() - add 16-bit big-endian words to a ones' complement sum
 * @sum:	running sum, unfolded
 * @p:		bytes
 * @len:	an even number of bytes
 *
 * Return: the new sum, unfolded
 */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	return sum;
}

/**
 * rx_data_valid() - turn a DATA_VALID frame into a NEEDS_CSUM one
 * @buf:	the frame's first buffer: virtio-net header, then the frame
 * @len:	bytes in it
 * @hl:		virtio-net header length
 *
 * A backend sets DATA_VALID when the guest need not check the L4 checksum,
 * and may then leave it unset (passt does, with GUEST_CSUM); a guest's
 * virtio-net driver marks such a frame CHECKSUM_UNNECESSARY. A tap ignores
 * the flag, so the namespace's stack would verify and drop. NEEDS_CSUM
 * gives CHECKSUM_PARTIAL instead, which the stack takes as verified too:
 * the same cost as a guest's. The L4 checksum field gets the
 * pseudo-header sum, as NEEDS_CSUM means (virtio 5.1.6.2), so the frame
 * stays coherent should it be forwarded. Only untagged IPv4 (not a
 * fragment) and IPv6 (no extension header) TCP and UDP whose headers are
 * whole in @buf are changed; any other frame is left as it is.
 */
static void rx_data_valid(uint8_t *buf, size_t len, size_t hl)
{
	const uint8_t *f = buf + hl;
	size_t l3 = 14, l4, flen = len - hl, csum_off;
	uint32_t sum = 0;
	uint16_t v;
	unsigned int proto, l4_len;

	if (!(buf[0] & HDR_F_DATA_VALID) || (buf[0] & HDR_F_NEEDS_CSUM) ||
	    flen < l3 + 20)
		return;
	if (f[12] == 0x08 && f[13] == 0x00) { /* IPv4 */
		size_t ihl = (size_t)(f[l3] & 0xf) * 4;
		unsigned int tot = (unsigned int)(f[l3 + 2] << 8 | f[l3 + 3]);

		if ((f[l3] >> 4) != 4 || ihl < 20 || tot < ihl ||
		    ((f[l3 + 6] & 0x3f) | f[l3 + 7])) /* MF, offset */
			return;
		proto = f[l3 + 9];
		l4 = l3 + ihl;
		l4_len = tot - (unsigned int)ihl;
		sum = csum_add(sum, f + l3 + 12, 8);
	} else if (f[12] == 0x86 && f[13] == 0xdd) { /* IPv6 */
		if (flen < l3 + 40 || (f[l3] >> 4) != 6)
			return;
		proto = f[l3 + 6];
		l4 = l3 + 40;
		l4_len = (unsigned int)(f[l3 + 4] << 8 | f[l3 + 5]);
		sum = csum_add(sum, f + l3 + 8, 32);
	} else {
		return;
	}
	if (proto == 6)
		csum_off = 16;
	else if (proto == 17)
		csum_off = 6;
	else
		return;
	if (l4 + csum_off + 2 > flen)
		return;
	sum += proto + l4_len;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	buf[hl + l4 + csum_off] = (uint8_t)(sum >> 8);
	buf[hl + l4 + csum_off + 1] = (uint8_t)sum;
	buf[0] = (uint8_t)((buf[0] & ~HDR_F_DATA_VALID) | HDR_F_NEEDS_CSUM);
	v = (uint16_t)l4; /* little endian, as the tap's */
	buf[HDR_CSUM_START_OFF] = (uint8_t)v;
	buf[HDR_CSUM_START_OFF + 1] = (uint8_t)(v >> 8);
	buf[HDR_CSUM_OFFSET_OFF] = (uint8_t)csum_off;
	buf[HDR_CSUM_OFFSET_OFF + 1] = 0;
}

/**
 * rx_write() - write one frame to the tap; a failure is a drop
 * @p:		queue pair
 * @iov:	virtio-net header and frame, in the backend's buffers
 * @cnt:	entries in @iov
 * @len:	total bytes
 */
static void rx_write(struct pair *p, const struct iovec *iov, int cnt,
		     size_t len)
{
	tap_put(p->tap_fd, &p->ctr[DIR_TO_TAP], iov, cnt, len - p->fe->hdr_len);
}

/**
 * rx_frames() - pass every complete frame the backend used to the tap, and
 * post the descriptors again
 * @p:		queue pair
 * @iov:	room for RING_MAX entries
 * @old:	room for RING_MAX entries: the buffers of a frame
 *
 * With MRG_RXBUF, a frame whose num_buffers entries are not all used yet
 * stays for the next call.
 *
 * The descriptors of a frame are pointed at spare buffers and exposed
 * again before the frame is written to the tap, as a guest's driver
 * refills its ring before GRO hands a batch to its stack. Writing to the
 * tap runs the namespace's stack at once, and its ACK can reach the
 * backend before the write returns: a backend that looks for receive
 * buffers only when it has something to send (passt ignores receive
 * kicks) must find them then. The kick, if any, waits for the end of the
 * batch.
 *
 * Return: frames written, or -EPROTO if the backend broke a rule
 *	   (reported)
 */
static int rx_frames(struct pair *p, struct iovec *iov, uint32_t *old)
{
	struct vq *vq = &p->rx;
	size_t hl = p->fe->hdr_len;
	uint16_t used = vq_used_idx(vq);
	uint16_t have = (uint16_t)(used - vq->last_used);
	int frames = 0;

	vq->seen_used = used;
	mig_seen(p->fe, vq, used, DIR_TO_TAP);
	if (have > vq->num) {
		worker_fail(p->fe,
			    "backend error: queue %u used index %u is "
			    "%u ahead of %u",
			    vq->index, used, have, vq->last_used);
		return -EPROTO;
	}
	while (have) {
		struct virtq_used_elem e;
		uint16_t nb = 1, k;
		size_t total = 0;
		uint8_t hdr[HDR_LEN];
		bool cut = false;

		e = vq->used_ring[vq->last_used & (vq->num - 1)];
		if (p->fe->mrg && e.id < vq->num && vq->posted[e.id] &&
		    e.len >= hl && e.len <= vq->buf_len) {
			memcpy(hdr, vq_buf(p->fe, vq, vq->buf_of[e.id]), hl);
			nb = (uint16_t)(hdr[HDR_NUM_BUFFERS_OFF] |
					hdr[HDR_NUM_BUFFERS_OFF + 1] << 8);
			if (!nb || nb > vq->num) {
				worker_fail(p->fe,
					    "backend error: queue %u "
					    "num_buffers %u",
					    vq->index, nb);
				return -EPROTO;
			}
			if (nb > have)
				break; /* the rest is still to come */
		}
		for (k = 0; k < nb; k++) {
			uint32_t len;
			int id = rx_take(p, (uint16_t)(vq->last_used + k),
					 &len);

			if (id < 0)
				return id;
			/* a frame shorter than its header is dropped and
			 * its buffer reposted, as Linux's driver does (a
			 * backend's ring stop uses reserved buffers with
			 * length 0: vhost_user.c vu_ring_settle()) */
			if (!k && len < hl)
				cut = true;
			old[k] = vq->buf_of[id];
			iov[k].iov_base = vq_buf(p->fe, vq, old[k]);
			iov[k].iov_len = len;
			total += len;

			/* nb <= num spare buffers: there is one */
			vq->buf_of[id] = vq->spare[--vq->nspare];
			vq->desc[id].addr = vq->buf_off +
					    (uint64_t)vq->buf_of[id] *
						    vq->buf_len;
			vq_add(vq, (uint16_t)id);
		}
		vq_expose(vq);
		if (cut) {
			atomic_fetch_add(&p->ctr[DIR_TO_TAP].drops, 1);
		} else {
			rx_data_valid(iov[0].iov_base, iov[0].iov_len, hl);
			rx_write(p, iov, nb, total);
		}
		for (k = 0; k < nb; k++)
			vq->spare[vq->nspare++] = old[k];
		vq->last_used = (uint16_t)(vq->last_used + nb);
		have = (uint16_t)(have - nb);
		frames++;
	}
	vq_publish(vq);
	return frames;
}

/**
 * rx_thread() - thread: frames from a receive virtqueue to a tap queue
 * @arg:	struct pair
 *
 * Context: its own thread, the only user of @p->rx and writer of
 *	    ctr[DIR_TO_TAP]
 * #syscalls write
 * Return: NULL
 */
static void *rx_thread(void *arg)
{
	struct pair *p = arg;
	struct vq *vq = &p->rx;
	struct iovec *iov = calloc(RING_MAX, sizeof(*iov));
	uint32_t *old = calloc(RING_MAX, sizeof(*old));
	uint64_t one = 1;
	int rc;

	/* the ring was filled before the backend got it: say so once */
	if (write(vq->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		fprintf(stderr, "swvu: kick: %s\n", strerror(errno));
	if (!iov || !old) {
		worker_fail(p->fe, "out of memory");
		return NULL;
	}
	for (;;) {
		rc = rx_frames(p, iov, old);
		if (rc < 0)
			return NULL;
		if (rc)
			continue;
		rc = vq_wait_call(vq);
		if (rc) {
			worker_fail(p->fe, "queue %u: %s", vq->index,
				    strerror(-rc));
			return NULL;
		}
	}
}

/**
 * offload_str() - name a direction's offloads
 * @buf:	room for 32 bytes
 * @f:		features acked
 * @csum:	checksum feature bit of the direction
 * @tso4:	TSO4 feature bit
 * @tso6:	TSO6 feature bit
 * @uso:	a USO feature bit of the direction
 *
 * Return: @buf, e.g. "csum+tso4+tso6+uso" or "none"
 */
static const char *offload_str(char *buf, uint64_t f, int csum, int tso4,
			       int tso6, int uso)
{
	snprintf(buf, 32, "%s%s%s%s", f & BIT(csum) ? "csum" : "none",
		 f & BIT(tso4) ? "+tso4" : "", f & BIT(tso6) ? "+tso6" : "",
		 f & BIT(uso) ? "+uso" : "");
	return buf;
}

/**
 * print_ready() - one line on stderr: what was negotiated
 * @fe:		frontend
 * @o:		command line
 */
static void print_ready(const struct fe *fe, const struct opts *o)
{
	char to_be[32], to_tap[32];

	fprintf(stderr,
		"swvu: %s up, %u queue pair%s of %u entries, features "
		"0x%" PRIx64 " protocol 0x%" PRIx64 ", header %zu, rx buffers "
		"%zu, offloads tap->backend %s backend->tap %s\n",
		o->tap, fe->npairs, fe->npairs > 1 ? "s" : "", o->ring,
		fe->features, fe->proto, fe->hdr_len, fe->pairs[0].rx.buf_len,
		offload_str(to_be, fe->features, F_CSUM, F_HOST_TSO4,
			    F_HOST_TSO6, F_HOST_USO),
		offload_str(to_tap, fe->features, F_GUEST_CSUM, F_GUEST_TSO4,
			    F_GUEST_TSO6, F_GUEST_USO4));
}

/**
 * summarize() - the one line on stderr at exit, counts of all pairs summed
 * @fe:		frontend
 * @why:	reason for exiting, in words
 */
static void summarize(struct fe *fe, const char *why)
{
	struct dir_count cnt[DIR_NUM] = { 0 };
	unsigned int i;
	enum dir d;

	for (d = 0; d < DIR_NUM; d++)
		for (i = 0; i < fe->npairs; i++)
			dir_ctr_sum(&cnt[d], &fe->pairs[i].ctr[d]);
	print_summary(why, dir_str, cnt);
}

/**
 * dump_rings() - on SIGUSR2: the shared state of every ring, on stderr
 * @fe:		frontend
 *
 * Only what lives in guest memory is read (atomically): the workers' own
 * fields are theirs. avail minus used is what the backend holds.
 */
static void dump_rings(const struct fe *fe)
{
	unsigned int i, k;

	for (i = 0; i < fe->npairs; i++) {
		for (k = 0; k < 2; k++) {
			const struct vq *vq = k ? &fe->pairs[i].tx :
						  &fe->pairs[i].rx;
			uint16_t a = __atomic_load_n(vq->avail_idx_p,
						     __ATOMIC_RELAXED);
			uint16_t u = __atomic_load_n(vq->used_idx_p,
						     __ATOMIC_RELAXED);

			fprintf(stderr,
				"swvu: queue %u (%s): avail %u used %u "
				"(backend holds %u of %u), avail flags 0x%x "
				"used_event %u, used flags 0x%x avail_event "
				"%u\n",
				vq->index, k ? "tx" : "rx", a, u,
				(uint16_t)(a - u), vq->num,
				__atomic_load_n(vq->avail_flags,
						__ATOMIC_RELAXED),
				__atomic_load_n(vq->used_event,
						__ATOMIC_RELAXED),
				__atomic_load_n(vq->used_flags,
						__ATOMIC_RELAXED),
				__atomic_load_n(vq->avail_event,
						__ATOMIC_RELAXED));
		}
	}
}

/**
 * wait_end() - main thread: wait for a signal or the backend's close
 * @fe:		frontend
 * @set:	signals blocked in every thread: SIGTERM, SIGINT, SIGUSR1,
 *		SIGUSR2, SIGHUP
 * @o:		command line (--misbehave, --log, --after)
 *
 * SIGUSR2 prints the state of the rings (dump_rings()) and goes on.
 * SIGHUP starts --migrate-to's migration now, whatever --after says;
 * with --resume, the SIGHUP after the stop starts the device again on the
 * source (dev_start()).
 * --log switches dirty logging on --after ms from now (log_start()).
 * --migrate-to does too, then stops the rings (mig_stop_rings()), with
 * --device-state saves the source's state (state_save()), and sets
 * the device up on the destination (mig_connect()); the source's socket
 * is closed once the destination moved a frame, or MIG_CLOSE_MS after
 * (a source QEMU leaves when the migration is over): a backend that
 * resets its flows when its frontend leaves has handed them over by then.
 * --misbehave starts --after ms from now: "indirect" has queue pair 0
 * post a descriptor with the INDIRECT flag, "remap" sends the memory
 * table again every REMAP_EVERY_MS.
 * Anything the backend sends now is unexpected (no backend request
 * channel was negotiated) and is read and ignored.
 *
 * #syscalls signalfd4 poll read close
 * Return: the reason in words: "SIGTERM", "SIGINT", "backend closed" or
 *	   "error"
 */
static const char *wait_end(struct fe *fe, const sigset_t *set,
			    const struct opts *o)
{
	int wait_ms = o->misbehave || o->log || o->migrate_to ?
			      (int)o->after_ms :
			      -1;
	uint64_t close_ns = 0;
	uint16_t bases[2 * QUEUES_MAX];
	bool resumed = false;
	struct pollfd p[2];
	int sfd = signalfd(-1, set, SFD_CLOEXEC);

	if (sfd < 0)
		die("signalfd: %s", strerror(errno));
	p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = fe->sock_fd, .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;
		char junk[256];
		ssize_t r;

		int n = poll(p, 2, wait_ms);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (!n && o->migrate_to && !fe->stop_ns) {
			log_start(fe);
			mig_stop_rings(fe, bases);
			if (o->device_state)
				state_save(fe);
			if (o->resume) {
				wait_ms = -1; /* until SIGHUP */
				continue;
			}
			mig_connect(fe, o, bases);
			p[1].fd = fe->sock_fd;
			close_ns = fe->stop_ns + MIG_CLOSE_MS * 1000000ULL;
			wait_ms = MIG_POLL_MS;
			continue;
		}
		if (!n && o->migrate_to) {
			if (!atomic_load(&fe->first_ns[DIR_TO_TAP]) &&
			    !atomic_load(&fe->first_ns[DIR_FROM_TAP]) &&
			    realtime_ns() < close_ns)
				continue;
			close(fe->old_fd);
			fe->old_fd = -1;
			fprintf(stderr, "swvu: migration: the source's socket "
					"closed\n");
			wait_ms = -1;
			continue;
		}
		if (!n) {
			if (o->log) {
				log_start(fe);
				wait_ms = -1;
			} else if (!strcmp(o->misbehave, "indirect")) {
				atomic_store(&fe->poison, true);
				wait_ms = -1;
			} else {
				set_mem_table(fe);
				wait_ms = REMAP_EVERY_MS;
			}
			continue;
		}
		if (p[0].revents &&
		    read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGTERM)
				return "SIGTERM";
			if (si.ssi_signo == SIGINT)
				return "SIGINT";
			if (si.ssi_signo == SIGUSR2) {
				dump_rings(fe);
				continue;
			}
			if (si.ssi_signo == SIGHUP) {
				if (o->migrate_to && !fe->stop_ns) {
					wait_ms = 0; /* the timeout's action */
				} else if (o->resume && !resumed) {
					/* --resume: the VM runs on the source
					 * again */
					resumed = true;
					dev_start(fe, o, bases);
					fprintf(stderr,
						"swvu: migration: the device "
						"started again on the source "
						"%.3f ms after the stop\n",
						(double)(realtime_ns() -
							 fe->stop_ns) /
							1e6);
				}
				continue;
			}
			if (atomic_load(&fe->end) != END_NONE)
				return "error";
		}
		if (!p[1].revents)
			continue;
		r = read(fe->sock_fd, junk, sizeof(junk));
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			return "backend closed";
	}
}

/**
 * main() - entry point
 * @argc:	argument count
 * @argv:	arguments
 *
 * #syscalls socket rt_sigprocmask clone3 exit_group
 * Return: 0 when the backend closed or on SIGTERM/SIGINT, 1 on error, 2 on
 *	   bad usage
 */
int main(int argc, char **argv)
{
	static struct fe fe;
	size_t rx_len, need;
	const char *why;
	unsigned int i;
	struct opts o;
	sigset_t set;
	int rc;

	parse_args(argc, argv, &o);
	signals_block(&set, SIGUSR2);
	sigaddset(&set, SIGHUP); /* --migrate-to: now */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	fe.main_tid = pthread_self();
	fe.npairs = o.queues;
	fe.old_fd = -1;
	if (o.device_state) /* state_load(): a closed pipe is an error */
		signal(SIGPIPE, SIG_IGN);

	fe.sock_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fe.sock_fd < 0)
		die("socket: %s", strerror(errno));
	rc = connect_retry(fe.sock_fd, o.socket, false);
	if (rc)
		die("connect %s: %s", o.socket, strerror(-rc));

	negotiate(&fe, &o);

	rx_len = fe.mrg ? o.rx_buf : TX_BUF_LEN;
	if (rx_len < fe.hdr_len)
		rx_len = fe.hdr_len;
	need = (size_t)o.queues * (vq_need(o.ring, 2 * o.ring, rx_len) +
				   vq_need(o.ring, o.ring, TX_BUF_LEN));
	if (need > (size_t)o.mem_mib << 20)
		die("%u queue pair%s of %u entries need %zu MiB of guest "
		    "memory: raise --mem",
		    o.queues, o.queues > 1 ? "s" : "", o.ring,
		    (need + (1u << 20) - 1) >> 20);
	gmem_init(&fe, o.mem_mib);
	if (o.log || o.migrate_to)
		log_init(&fe);
	set_mem_table(&fe);

	fe.pairs = calloc(o.queues, sizeof(*fe.pairs));
	if (!fe.pairs)
		die("out of memory");
	for (i = 0; i < o.queues; i++) {
		struct pair *p = &fe.pairs[i];

		p->fe = &fe;
		p->n = i;
		vq_init(&fe, &p->rx, 2 * i, o.ring, rx_len, true);
		vq_init(&fe, &p->tx, 2 * i + 1, o.ring, TX_BUF_LEN, false);
		vq_give(&fe, &p->rx);
		vq_give(&fe, &p->tx);
	}
	if (fe.features & BIT(F_PROTOCOL_FEATURES)) {
		for (i = 0; i < 2 * o.queues; i++)
			vu_set_state(&fe, VU_SET_VRING_ENABLE, i, 1);
	}

	tap_open(&fe, &o);
	for (i = 0; i < o.queues; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, rx_thread, &fe.pairs[i]) ||
		    pthread_create(&t, NULL, tx_thread, &fe.pairs[i]))
			die("cannot start threads");
	}
	print_ready(&fe, &o);

	why = wait_end(&fe, &set, &o);
	summarize(&fe, why);
	if (o.log && log_check(&fe))
		return 1;
	if (o.migrate_to && mig_summary(&fe))
		return 1;
	/* exit() ends the workers too, wherever they block */
	return strcmp(why, "error") ? 0 : 1;
}
