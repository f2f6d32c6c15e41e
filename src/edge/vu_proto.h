/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_proto.h - vhost-user and virtio-net protocol constants and payloads
 *
 * Constants and wire layouts only: the backend (edge/vhost_user.c) and the
 * test frontends (tests/instruments/swvu.c, and vupeer.py, which reads the
 * numbers from this file) speak the same protocol from both ends, so they
 * take it from one place. Self-contained: a tool may include it alone.
 */
#ifndef SLIPWAY_EDGE_VU_PROTO_H
#define SLIPWAY_EDGE_VU_PROTO_H

#include <stdint.h>

/**
 * enum vu_req - vhost-user requests from the frontend (vhost-user.rst)
 * @VU_GET_FEATURES:		u64 reply: virtio features offered
 * @VU_SET_FEATURES:		u64: virtio features acked
 * @VU_SET_OWNER:		no payload
 * @VU_RESET_OWNER:		no payload (deprecated)
 * @VU_SET_MEM_TABLE:		memory regions, one fd per region
 * @VU_SET_LOG_BASE:		dirty log area
 * @VU_SET_LOG_FD:		dirty log eventfd
 * @VU_SET_VRING_NUM:		vring state: index, size
 * @VU_SET_VRING_ADDR:		vring address
 * @VU_SET_VRING_BASE:		vring state: index, first avail index
 * @VU_GET_VRING_BASE:		vring state reply: stops the ring
 * @VU_SET_VRING_KICK:		u64 index (VU_VRING_NOFD), eventfd
 * @VU_SET_VRING_CALL:		u64 index (VU_VRING_NOFD), eventfd
 * @VU_SET_VRING_ERR:		u64 index (VU_VRING_NOFD), eventfd
 * @VU_GET_PROTOCOL_FEATURES:	u64 reply
 * @VU_SET_PROTOCOL_FEATURES:	u64
 * @VU_GET_QUEUE_NUM:		u64 reply: queues (not pairs) supported
 * @VU_SET_VRING_ENABLE:	vring state: index, 1 or 0
 * @VU_SEND_RARP:		u64 MAC address to announce
 * @VU_NET_SET_MTU:		u64 MTU
 * @VU_SET_DEVICE_STATE_FD:	{u32 direction, u32 phase}, an fd: the
 *				back-end's state goes out (SAVE) or comes
 *				in (LOAD) through it; u64 reply
 * @VU_CHECK_DEVICE_STATE:	no payload; u64 reply: 0 if the transfer
 *				through that fd worked
 * @VU_REQ_NUM:			one past the last request known here
 */
enum vu_req {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SEND_RARP = 19,
	VU_NET_SET_MTU = 20,
	VU_SET_DEVICE_STATE_FD = 42,
	VU_CHECK_DEVICE_STATE = 43,
	VU_REQ_NUM = 44,
};

/* message header: request, flags, size (u32 each, native byte order) */
#define VU_HDR_LEN 12
#define VU_VERSION 0x1 /* flags bits 0-1 */
#define VU_VERSION_MASK 0x3
#define VU_FLAG_REPLY (1u << 2)
#define VU_FLAG_NEED_REPLY (1u << 3)
#define VU_VRING_NOFD 0x100 /* SET_VRING_KICK/CALL/ERR: no fd */
#define VU_VRING_F_LOG 1    /* SET_VRING_ADDR flags: log_gpa is valid */
#define VU_LOG_PAGE 4096    /* bytes of guest memory per log bit */
#define VU_LOG_BASE_LEN 16  /* SET_LOG_BASE: mmap_size, mmap_offset */

/**
 * struct vu_hdr - message header (native byte order), VU_HDR_LEN bytes
 * @request:	an enum vu_req
 * @flags:	VU_VERSION, VU_FLAG_REPLY, VU_FLAG_NEED_REPLY
 * @size:	payload bytes that follow
 */
struct vu_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
};
_Static_assert(sizeof(struct vu_hdr) == VU_HDR_LEN, "vhost-user header");

/**
 * struct vu_vring_state - payload of SET_VRING_NUM, _BASE, _ENABLE and
 * GET_VRING_BASE's reply (and of SET_DEVICE_STATE_FD: direction, phase)
 * @index:	queue index (receive 2k, transmit 2k+1)
 * @num:	ring size, first avail index, or 1 (enable) / 0 (disable)
 */
struct vu_vring_state {
	uint32_t index;
	uint32_t num;
};

/**
 * struct vu_vring_addr - payload of SET_VRING_ADDR
 * @index:	queue index
 * @flags:	VU_VRING_F_LOG: @log_gpa is valid
 * @desc_uva:	descriptor table, frontend virtual address
 * @used_uva:	used ring, frontend virtual address
 * @avail_uva:	avail ring, frontend virtual address
 * @log_gpa:	the used ring's guest physical address, for the dirty log
 */
struct vu_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc_uva;
	uint64_t used_uva;
	uint64_t avail_uva;
	uint64_t log_gpa;
};
_Static_assert(sizeof(struct vu_vring_addr) == 40, "vring address");

/*
 * SET_MEM_TABLE's payload: u32 nregions, u32 padding, then nregions
 * regions (one fd each, in order)
 */
#define VU_MEM_TABLE_HDR 8

/**
 * struct vu_mem_region - one region of SET_MEM_TABLE's payload
 * @gpa:		guest physical address of its first byte
 * @size:		its length
 * @uva:		frontend virtual address of its first byte
 * @mmap_offset:	where it starts in its file
 */
struct vu_mem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_offset;
};
_Static_assert(sizeof(struct vu_mem_region) == 32, "memory region");

/* virtio-net and ring feature bits (virtio 1.x, 5.1.3 and 6) */
#define F_CSUM 0       /* device takes partial checksums */
#define F_GUEST_CSUM 1 /* driver takes partial checksums */
#define F_MTU 3
#define F_GUEST_TSO4 7
#define F_GUEST_TSO6 8
#define F_HOST_TSO4 11
#define F_HOST_TSO6 12
#define F_MRG_RXBUF 15
#define F_MQ 22
#define F_LOG_ALL 26 /* VHOST_F_LOG_ALL: dirty-page logging (migration) */
#define F_EVENT_IDX 29
#define F_PROTOCOL_FEATURES 30 /* vhost-user, not virtio */
#define F_VERSION_1 32
#define F_GUEST_USO4 54 /* driver takes UDP GSO frames (GUEST_CSUM) */
#define F_GUEST_USO6 55
#define F_HOST_USO 56 /* device takes UDP GSO frames (needs CSUM) */

/* vhost-user protocol feature bits */
#define PF_MQ 0
#define PF_LOG_SHMFD 1 /* the log comes as an fd with SET_LOG_BASE */
#define PF_REPLY_ACK 3
#define PF_NET_MTU 4
#define PF_DEVICE_STATE 19 /* state through SET_DEVICE_STATE_FD */

/* SET_DEVICE_STATE_FD: directions, the one phase, the reply's bits */
#define VU_STATE_SAVE 0
#define VU_STATE_LOAD 1
#define VU_STATE_PHASE_STOPPED 0
#define VU_STATE_FD_KEPT 0x100 /* reply: we use the frontend's fd */

#ifndef BIT
#define BIT(n) (1ULL << (n))
#endif

#endif /* SLIPWAY_EDGE_VU_PROTO_H */
