/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcap.c - --pcap: per-shard buffers appended to one capture file
 *
 * See the theory of operation in pcap.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "obs/ofile.h"
#include "obs/pcap.h"
#include "util/ctr.h"
#include "util/log.h"

#define PCAP_MAGIC_US 0xa1b2c3d4U
#define LINKTYPE_ETHERNET 1
#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16

/**
 * struct pcap_file_hdr - the pcap global header (host byte order, which
 * the magic number tells readers)
 */
struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

/**
 * struct pcap_rec_hdr - a record's header
 */
struct pcap_rec_hdr {
	uint32_t ts_sec, ts_usec;
	uint32_t caplen, len;
};

_Static_assert(sizeof(struct pcap_file_hdr) == PCAP_FILE_HDR, "pcap header");
_Static_assert(sizeof(struct pcap_rec_hdr) == PCAP_REC_HDR, "pcap record");

/**
 * write_all() - write a buffer whole (short writes continued)
 * @fd:		file
 * @p:		bytes
 * @len:	length
 *
 * #syscalls write
 * Return: 0, or -errno
 */
static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * pcap_open() - create the file and write its header
 * @pc:		to fill
 * @path:	file (truncated; a symbolic link, a file with other links or
 *		someone else's is refused: ofile_open())
 * @max:	size cap in bytes
 *
 * #syscalls write close
 * Return: 0, or -errno (logged)
 */
int pcap_open(struct pcap *pc, const char *path, uint64_t max)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_US,
		.major = 2,
		.minor = 4,
		.snaplen = PCAP_SNAPLEN,
		.linktype = LINKTYPE_ETHERNET,
	};
	int ret;

	pc->path = path;
	pc->max = max;
	atomic_store(&pc->full, 0);
	/* not through a link, nor into someone else's file (ofile.h) */
	ret = ofile_open(AT_FDCWD, path, "--pcap file", path, O_APPEND, 0640);
	if (ret < 0)
		return ret;
	pc->fd = ret;
	ret = write_all(pc->fd, (const uint8_t *)&h, sizeof(h));
	if (ret) {
		errno = -ret;
		err_perror("cannot write --pcap file %s", path);
		close(pc->fd);
		pc->fd = -1;
		return ret;
	}
	atomic_store(&pc->used, (uint64_t)sizeof(h));
	return 0;
}

/**
 * pcap_buf_init() - a shard's buffer
 * @pb:		to fill
 * @pc:		the file
 * @ctr:	the shard's counters
 *
 * Return: 0, or -ENOMEM
 */
int pcap_buf_init(struct pcap_buf *pb, struct pcap *pc, uint64_t *ctr)
{
	pb->pc = pc;
	pb->ctr = ctr;
	pb->len = 0;
	pb->buf = malloc(PCAP_BUF_BYTES);
	return pb->buf ? 0 : -ENOMEM;
}

/**
 * pcap_flush() - write the buffered records
 * @pb:		the shard's buffer
 */
void pcap_flush(struct pcap_buf *pb)
{
	int ret;

	if (!pb->len)
		return;
	ret = write_all(pb->pc->fd, pb->buf, pb->len);
	if (ret) {
		ctr_add(&pb->ctr[CTR_PCAP_WRITE_ERRORS], 1);
		errno = -ret;
		if (pb->ctr[CTR_PCAP_WRITE_ERRORS] == 1)
			warn_perror(
				"--pcap file %s: write failed, records lost",
				pb->pc->path);
	}
	pb->len = 0;
}

/**
 * pcap_frame() - capture one frame
 * @pb:		the shard's buffer
 * @p:		frame from its Ethernet header on
 * @len:	bytes
 *
 * #syscalls clock_gettime
 */
void pcap_frame(struct pcap_buf *pb, const uint8_t *p, size_t len)
{
	struct pcap *pc = pb->pc;
	size_t cap = len < PCAP_SNAPLEN ? len : PCAP_SNAPLEN;
	size_t rec = PCAP_REC_HDR + cap;
	struct pcap_rec_hdr h;
	struct timespec ts;
	uint64_t old;

	if (atomic_load_explicit(&pc->full, memory_order_relaxed)) {
		ctr_add(&pb->ctr[CTR_PCAP_FRAMES_LOST], 1);
		return;
	}
	old = atomic_fetch_add_explicit(&pc->used, rec, memory_order_relaxed);
	if (old + rec > pc->max) {
		ctr_add(&pb->ctr[CTR_PCAP_FRAMES_LOST], 1);
		if (!atomic_exchange(&pc->full, 1))
			warn("--pcap file %s reached --pcap-max (%llu bytes): "
			     "capture stopped",
			     pc->path, (unsigned long long)pc->max);
		return;
	}
	if (pb->len + rec > PCAP_BUF_BYTES)
		pcap_flush(pb);
	clock_gettime(CLOCK_REALTIME, &ts);
	h.ts_sec = (uint32_t)ts.tv_sec;
	h.ts_usec = (uint32_t)(ts.tv_nsec / 1000);
	h.caplen = (uint32_t)cap;
	h.len = (uint32_t)len;
	memcpy(pb->buf + pb->len, &h, sizeof(h));
	memcpy(pb->buf + pb->len + sizeof(h), p, cap);
	pb->len += rec;
	ctr_add(&pb->ctr[CTR_PCAP_FRAMES], 1);
	ctr_add(&pb->ctr[CTR_PCAP_BYTES], rec);
}

/**
 * pcap_buf_fini() - flush and free a shard's buffer
 * @pb:		buffer
 */
void pcap_buf_fini(struct pcap_buf *pb)
{
	if (!pb->buf)
		return;
	pcap_flush(pb);
	free(pb->buf);
	pb->buf = NULL;
}

/**
 * pcap_close() - close the file
 * @pc:		the file
 *
 * #syscalls close
 */
void pcap_close(struct pcap *pc)
{
	if (pc->fd >= 0)
		close(pc->fd);
	pc->fd = -1;
}
