/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcap.h - --pcap: every frame crossing the edge, both ways, in one file
 *
 * DOC: Theory of Operation
 *
 * One pcap file (LINKTYPE_ETHERNET, microsecond timestamps, snaplen
 * 65535), opened O_APPEND by the main thread, which writes the file
 * header. Each shard has its own buffer (struct pcap_buf): a frame is
 * copied there as one record (header and bytes, the virtio-net header left
 * out) and the buffer is written with one write() when it fills up and at
 * the end of each loop iteration. Appends of whole buffers never interleave
 * (O_APPEND on a regular file), so the records of different shards do not
 * mix; they are in time order within a shard and can be out of order by
 * up to one loop iteration across shards (tcpdump and wireshark read such
 * files; `mergecap` or `reordercap` sorts them).
 *
 * --pcap-max caps the file size: every record reserves its bytes with one
 * atomic add on the shared total, and the first record that would pass the
 * cap stops the capture for good (one log line, PCAP_FRAMES_LOST counts
 * what is not written). No locks: the shards share only that total.
 */
#ifndef SLIPWAY_PCAP_H
#define SLIPWAY_PCAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PCAP_SNAPLEN 65535
#define PCAP_BUF_BYTES (1U << 20)
#define PCAP_MAX_DEFAULT (100ULL << 20)

/**
 * struct pcap - the capture file, shared by the shards
 * @fd:		file (O_APPEND), or -1
 * @max:	bytes the file may reach
 * @used:	bytes reserved so far (the file header included)
 * @full:	the cap was reached (set once, by whoever saw it first)
 * @path:	file name, for the log
 */
struct pcap {
	int fd;
	uint64_t max;
	_Atomic uint64_t used;
	_Atomic int full;
	const char *path;
};

/**
 * struct pcap_buf - one shard's records not yet written
 * @pc:		the file
 * @ctr:	the shard's counters
 * @len:	bytes in @buf
 * @buf:	PCAP_BUF_BYTES bytes
 */
struct pcap_buf {
	struct pcap *pc;
	uint64_t *ctr;
	size_t len;
	uint8_t *buf;
};

/**
 * pcap_open() - create the file and write its header
 * @pc:		to fill
 * @path:	file (truncated)
 * @max:	size cap in bytes
 *
 * Context: start-up
 * Return: 0, or -errno (logged)
 */
int pcap_open(struct pcap *pc, const char *path, uint64_t max);

/**
 * pcap_buf_init() - a shard's buffer
 * @pb:		to fill
 * @pc:		the file
 * @ctr:	the shard's counters
 *
 * Return: 0, or -ENOMEM
 */
int pcap_buf_init(struct pcap_buf *pb, struct pcap *pc, uint64_t *ctr);

/**
 * pcap_frame() - capture one frame
 * @pb:		the shard's buffer
 * @p:		frame from its Ethernet header on
 * @len:	bytes
 *
 * Context: the buffer's shard
 */
void pcap_frame(struct pcap_buf *pb, const uint8_t *p, size_t len);

/**
 * pcap_flush() - write the buffered records
 * @pb:		the shard's buffer
 *
 * Context: the buffer's shard (or any thread once the shards stopped)
 */
void pcap_flush(struct pcap_buf *pb);

/**
 * pcap_buf_fini() - flush and free a shard's buffer
 * @pb:		buffer
 */
void pcap_buf_fini(struct pcap_buf *pb);

/**
 * pcap_close() - close the file
 * @pc:		the file
 */
void pcap_close(struct pcap *pc);

#endif /* SLIPWAY_PCAP_H */
