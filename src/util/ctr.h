/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctr.h - the counter list: one X-macro generates the enum and the names
 *
 * Lives in util/ (not obs/) because core/ increments counters and may only
 * include util/; obs/ctr.c sums and prints them. Each counter is a per-shard
 * uint64_t with a single writer (the shard's thread).
 */
#ifndef SLIPWAY_CTR_H
#define SLIPWAY_CTR_H

#include <stdint.h>

#define CTR_LIST(X)                                                            \
	/* edge, per queue and direction */                                    \
	X(EDGE_RX_FRAMES, "frames read from the edge")                         \
	X(EDGE_RX_BYTES, "bytes read from the edge (without vnet header)")     \
	X(EDGE_RX_BATCHES, "edge read batches")                                \
	X(EDGE_RX_GSO_FRAMES, "GSO frames read from the edge")                 \
	X(EDGE_RX_ERRORS, "edge read errors")                                  \
	X(EDGE_TX_FRAMES, "frames written to the edge")                        \
	X(EDGE_TX_BYTES, "bytes written to the edge (without vnet header)")    \
	X(EDGE_TX_ERRORS, "edge write failures")                               \
	X(EDGE_TX_DOWN, "frames not written: the guest's interface is down")   \
	X(EDGE_TX_RETRIES, "edge writes retried after EAGAIN")                 \
	X(EDGE_TX_WAITS, "times a socket edge waited for a slow peer")         \
	X(EDGE_TX_DROPPED, "frames a socket edge took but could not deliver")  \
	X(EDGE_CONNECTS, "guests that connected (socket edges)")               \
	X(EDGE_DISCONNECTS, "guests that went away (socket edges)")            \
	X(EDGE_REFUSED, "connections refused: a guest was connected")          \
	X(EDGE_BAD_FRAMING, "socket edge peers dropped for bad framing")       \
	X(EDGE_RX_DROP_SIZE, "datagrams dropped: too short or too long")       \
	X(EDGE_VFKIT_HELLO, "vfkit VFKT greetings received")                   \
	X(EDGE_VU_MESSAGES, "vhost-user messages handled")                     \
	X(EDGE_VU_PROTO_ERRORS,                                                \
	  "vhost-user frontends sent away for a bad message")                  \
	X(EDGE_VU_RING_ERRORS, "guest rings that broke the virtqueue rules")   \
	X(EDGE_VU_LOANS,                                                       \
	  "guest frames whose TCP payload stayed in place (headers copied)")   \
	X(EDGE_VU_COPIES, "guest frames copied whole")                         \
	X(EDGE_VU_RETURNS, "guest transmit chains returned to the guest")      \
	X(EDGE_VU_KICK_RACE,                                                   \
	  "chains found by the look after re-enabling kicks")                  \
	X(EDGE_VU_RX_HELD,                                                     \
	  "times frames waited for the guest's receive buffers")               \
	X(EDGE_VU_RX_NOBUF,                                                    \
	  "frames dropped: the guest's receive ring and our backlog full")     \
	X(IMPAIR_DROPPED, "--impair: frames dropped")                          \
	X(IMPAIR_DUPLICATED, "--impair: frames sent twice")                    \
	X(IMPAIR_REORDERED,                                                    \
	  "--impair: frames held back for others to overtake")                 \
	X(IMPAIR_CORRUPTED, "--impair: frames with a flipped IPv4 header bit") \
	X(IMPAIR_GSO_MANGLED,                                                  \
	  "--impair: UDP GSO frames given a nonsense segment size")            \
	X(IMPAIR_OVERFLOW,                                                     \
	  "--impair: frames passed on unimpaired (stage full)")                \
	X(IP4_DROP_BAD_CSUM, "IPv4 packets with a bad header checksum")        \
	X(EDGE_VU_PLACED, "frames whose payload went from the socket "         \
			  "straight into guest buffers")                       \
	X(EDGE_VU_PLACE_STALE,                                                 \
	  "placed frames lost: the ring stopped before they were complete")    \
	X(EDGE_VU_LOG_MARKS,                                                   \
	  "dirty-log page marks for guest memory written (migration)")         \
	X(EDGE_VU_LOG_SKIPS,                                                   \
	  "dirty-log marks skipped: the page lies beyond the log")             \
	X(EDGE_VU_LOG_BASES, "dirty logs mapped (VHOST_USER_SET_LOG_BASE)")    \
	/* shards: frames and connections crossing between them */             \
	X(SHARD_FRAMES_PASSED, "frames passed on to another shard")            \
	X(SHARD_FRAMES_TAKEN, "frames taken from another shard's mailbox")     \
	X(SHARD_ACCEPTS_PASSED, "accepted connections handed to a shard")      \
	X(SHARD_FLOWS_GIVEN, "flows moved to the shard their frames land on")  \
	X(SHARD_MBOX_FULL, "messages refused by a full mailbox")               \
	/* out of file descriptors: listeners refuse and pause, not spin */    \
	X(SHARD_ACCEPT_NOFD, "clients refused: out of fds (published and -T "  \
			     "ports, socket edges)")                           \
	X(SHARD_LISTEN_PAUSES,                                                 \
	  "times a listener paused accepting: out of fds")                     \
	/* frame parsing: malformed or unwanted input, dropped */              \
	X(VNET_DROP_BAD_HDR, "frames with a bad virtio-net header")            \
	X(CORE_DROP_BAD_LOAN,                                                  \
	  "frames whose loaned tail is not TCP payload (an edge bug)")         \
	X(ETH_DROP_SHORT, "frames shorter than an Ethernet header")            \
	X(ETH_DROP_NOT_US, "frames for another MAC address")                   \
	X(ETH_DROP_ETHERTYPE, "frames of an unsupported ethertype")            \
	X(ARP_DROP_BAD, "malformed ARP packets")                               \
	X(ARP_IGNORED, "ARP packets not asking for us")                        \
	X(ARP_REPLIES, "ARP replies sent")                                     \
	X(IP4_DROP_BAD_HDR, "IPv4 packets with a bad header")                  \
	X(IP4_DROP_BAD_LEN, "IPv4 packets whose length disagrees")             \
	X(IP4_DROP_FRAG, "IPv4 fragments (not supported)")                     \
	X(IP4_DROP_PROTO, "IPv4 packets of an unsupported protocol")           \
	X(IP4_DROP_ADDR, "IPv4 packets with an unusable address")              \
	X(ICMP4_DROP_BAD, "malformed ICMP packets")                            \
	X(ICMP4_DROP_UNSUPPORTED, "ICMP packets not handled")                  \
	X(ICMP4_ECHO_REPLIES, "ICMP echo replies sent for the gateway")        \
	X(ICMP4_UNREACH_SENT, "ICMP unreachable messages sent to the guest")   \
	X(IP6_DROP_BAD_HDR, "IPv6 packets with a bad header")                  \
	X(IP6_DROP_BAD_LEN, "IPv6 packets whose length disagrees")             \
	X(IP6_DROP_FRAG, "IPv6 fragments (not supported)")                     \
	X(IP6_DROP_PROTO, "IPv6 packets of an unsupported protocol")           \
	X(IP6_DROP_ADDR, "IPv6 packets with an unusable address")              \
	X(ICMP6_DROP_BAD, "malformed ICMPv6 packets")                          \
	X(ICMP6_DROP_UNSUPPORTED, "ICMPv6 packets not handled")                \
	X(ICMP6_ECHO_REPLIES, "ICMPv6 echo replies sent for the gateway")      \
	X(ICMP6_UNREACH_SENT, "ICMPv6 unreachable messages sent to the guest") \
	X(NDP_NA_SENT, "neighbour advertisements sent")                        \
	X(NDP_RA_SENT, "router advertisements sent")                           \
	X(NDP_RA_PERIODIC, "of those, unsolicited (periodic)")                 \
	X(NDP_DROP_BAD, "malformed NDP messages")                              \
	X(TCP_DROP_BAD_HDR, "malformed TCP segments")                          \
	X(TCP_DROP_BAD_ACK, "segments acknowledging unsent data")              \
	X(TCP_DROP_OOO, "out-of-order segments dropped")                       \
	X(TCP_DUPACKS, "duplicate ACKs sent for out-of-order segments")        \
	X(TCP_OOO_HELD,                                                        \
	  "out-of-order guest segments held for the gap before them")          \
	X(TCP_OOO_DELIVERED, "held segments written once the gap was filled")  \
	X(TCP_OOO_FULL,                                                        \
	  "out-of-order guest segments dropped: every slot in use")            \
	X(TCP_DROP_DUP, "duplicate segments")                                  \
	X(TCP_DROP_AFTER_FIN, "data after the guest's FIN")                    \
	X(TCP_DROP_STATE, "segments unexpected in the flow's state")           \
	X(TCP_RST_UNKNOWN_FLOW, "RSTs sent for segments of no flow")           \
	X(TCP_RST_GUEST_GONE, "flows reset: the guest went away")              \
	X(TCP_RST_AT_EXIT, "flows still open at exit, reset toward the host")  \
	/* flows */                                                            \
	X(TCP_FLOWS_OPENED_GUEST, "flows opened by the guest")                 \
	X(TCP_FLOWS_OPENED_HOST, "flows opened through published ports")       \
	X(TCP_FLOWS_ADOPTED, "flows taken over from another shard")            \
	X(MIG_TCP_OUT, "flows handed to a migration destination")              \
	X(MIG_TCP_IN, "flows taken from a migration source")                   \
	X(MIG_TCP_REFUSED, "flows of a migration source refused (reset)")      \
	X(MIG_OOO_IN, "held guest segments taken from a migration source")     \
	X(MIG_UDP_OUT, "datagram flows handed to a migration destination")     \
	X(MIG_UDP_IN, "datagram flows taken from a migration source")          \
	X(MIG_UDP_REFUSED, "datagram flows of a migration source refused")     \
	X(MIG_REFUSED_GUEST,                                                   \
	  "migrated flows refused: none the guest could open here")            \
	X(TCP_FLOWS_OPENED6, "of the flows opened, IPv6 ones")                 \
	X(TCP_FLOWS_CLOSED, "flows closed cleanly")                            \
	X(TCP_FLOWS_RESET_BY_GUEST, "flows reset by the guest")                \
	X(TCP_FLOWS_RESET_BY_HOST, "flows reset by the host side")             \
	X(TCP_FLOWS_REFUSED, "host connects refused (RST to guest)")           \
	X(TCP_REFUSED_SELF,                                                    \
	  "guest connections refused: to slipway's own listening sockets")     \
	X(TCP_FLOWS_UNREACH, "host connects unreachable (ICMP to guest)")      \
	X(TCP_FLOWS_GIVEUP, "flows reset after retransmissions ran out")       \
	X(TCP_FLOWS_TABLE_FULL, "flows refused: flow table full")              \
	X(TCP_FLOWS_SOCK_FAIL, "flows refused: no host socket (fd limit?)")    \
	X(TCP_FLOWS_BIND_FAIL,                                                 \
	  "flows refused: the outbound address or interface would not bind")   \
	X(TCP_FLOWS_GUEST_REFUSED, "published-port flows the guest refused")   \
	X(TCP_FLOWS_ACTIVE, "flows open now (gauge)")                          \
	/* data */                                                             \
	X(TCP_GUEST_SEGS, "TCP segments from the guest")                       \
	X(TCP_GUEST_BYTES, "guest payload bytes written to host sockets")      \
	X(TCP_PARTIAL_WRITES, "host socket writes that took only part")        \
	X(TCP_TX_SEGS, "data segments sent to the guest")                      \
	X(TCP_TX_GSO_FRAMES, "of those, GSO super-frames (above the MSS)")     \
	X(TCP_TX_BYTES, "payload bytes sent to the guest (with resends)")      \
	X(TCP_RETRANS_BYTES, "payload bytes sent to the guest again")          \
	X(TCP_ACKED_BYTES, "payload bytes the guest acknowledged")             \
	X(TCP_HOST_READ_BYTES, "bytes consumed from host sockets")             \
	X(TCP_ACKS_SENT, "pure ACKs sent to the guest")                        \
	X(TCP_ACKS_MIDBATCH, "of those, sent within a batch (--ack-every)")    \
	X(TCP_WND_UPDATES, "window updates sent on host send space")           \
	X(TCP_RTO_FIRED, "retransmission timeouts")                            \
	X(TCP_PTO_FIRED, "probe timeouts: a hole resent after 2 SRTT")         \
	X(TCP_FAST_RETRANS, "fast retransmissions on duplicate ACKs")          \
	X(TCP_SACK_FLOWS, "flows where the guest and slipway both do SACK")    \
	X(TCP_SACK_BLOCKS_SENT,                                                \
	  "SACK blocks sent to the guest for held segments")                   \
	X(TCP_SACK_BLOCKS_RECV, "SACK blocks from the guest taken in")         \
	X(TCP_SACK_BAD, "SACK blocks or options from the guest rejected")      \
	X(TCP_SACK_RESENT, "bytes resent in holes the guest's SACKs showed")   \
	X(TCP_SACK_SKIPPED, "bytes fast recovery did not resend: SACKed")      \
	X(TCP_ZW_PROBES, "zero-window probes sent")                            \
	X(TCP_PEEK_ERRORS, "host socket peek errors")                          \
	X(TCP_ACCEPT_ERRORS, "accept() failures on published ports")           \
	X(FX_POOL_EMPTY, "frames dropped: no free output slot")                \
	/* UDP and ICMP echo flows */                                          \
	X(UDP_DROP_BAD_HDR, "malformed UDP datagrams")                         \
	X(UDP_FROM_GUEST, "UDP datagrams from the guest sent on")              \
	X(UDP_TO_GUEST, "UDP datagrams to the guest")                          \
	X(UDP_DROP_TOO_BIG, "datagrams too large for a frame, dropped")        \
	X(UDP_DROP_BAD_GSO, "guest UDP GSO frames with a bad segment size or " \
			    "not offered, dropped")                            \
	X(UDP_HOST_RX_DROPS,                                                   \
	  "datagrams for the guest the kernel dropped at a "                   \
	  "flow's host socket (full receive queue)")                           \
	X(UDP_GSO_FROM_GUEST, "guest UDP GSO frames sent with UDP_SEGMENT")    \
	X(UDP_GSO_TO_GUEST, "UDP GSO frames to the guest (datagrams received " \
			    "together, UDP GRO)")                              \
	X(UDP_FLOWS_OPENED, "UDP flows opened")                                \
	X(UDP_FLOWS_OPENED6, "of the UDP flows opened, IPv6 ones")             \
	X(UDP_FLOWS_EXPIRED, "UDP flows closed after idling")                  \
	X(UDP_FLOWS_GUEST_GONE, "UDP flows forgotten: the guest went away")    \
	X(UDP_FLOWS_UNPUBLISHED,                                               \
	  "UDP flows forgotten: their port was removed")                       \
	X(UDP_FLOWS_TABLE_FULL, "datagrams dropped: UDP flow table full")      \
	X(UDP_SOCK_FAIL, "datagrams dropped: no host socket")                  \
	X(UDP_BIND_FAIL, "datagrams dropped: the outbound address or "         \
			 "interface would not bind")                           \
	X(UDP_SEND_ERRORS, "host UDP send failures")                           \
	X(UDP_UNREACH_SENT, "port unreachable sent to the guest")              \
	X(UDP_REFUSED_SELF, "of those, for slipway's own listening sockets")   \
	X(ICMP4_ECHO_OUT, "echo requests sent on host ping sockets")           \
	X(ICMP4_ECHO_IN, "echo replies from host ping sockets")                \
	X(ICMP4_PING_DENIED,                                                   \
	  "echo requests refused: ping sockets not allowed")                   \
	X(ICMP6_ECHO_OUT, "ICMPv6 echo requests sent on host ping sockets")    \
	X(ICMP6_ECHO_IN, "ICMPv6 echo replies from host ping sockets")         \
	X(ICMP6_PING_DENIED, "ICMPv6 echo requests refused: no ping sockets")  \
	/* DHCPv4 */                                                           \
	X(DHCP4_DISCOVER, "DHCPDISCOVER received")                             \
	X(DHCP4_REQUEST, "DHCPREQUEST received")                               \
	X(DHCP4_RELEASE, "DHCPRELEASE received")                               \
	X(DHCP4_INFORM, "DHCPINFORM received")                                 \
	X(DHCP4_OFFER, "DHCPOFFER sent")                                       \
	X(DHCP4_ACK, "DHCPACK sent")                                           \
	X(DHCP4_NAK, "DHCPNAK sent")                                           \
	X(DHCP4_DROP_BAD, "malformed DHCP messages")                           \
	X(DHCP4_DROP_IGNORED, "DHCP messages not for us")                      \
	/* DHCPv6 */                                                           \
	X(DHCP6_SOLICIT, "DHCPv6 SOLICIT received")                            \
	X(DHCP6_REQUEST, "DHCPv6 REQUEST received")                            \
	X(DHCP6_CONFIRM, "DHCPv6 CONFIRM received")                            \
	X(DHCP6_RENEW, "DHCPv6 RENEW received")                                \
	X(DHCP6_REBIND, "DHCPv6 REBIND received")                              \
	X(DHCP6_RELEASE, "DHCPv6 RELEASE received")                            \
	X(DHCP6_DECLINE, "DHCPv6 DECLINE received")                            \
	X(DHCP6_INFO_REQUEST, "DHCPv6 INFORMATION-REQUEST received")           \
	X(DHCP6_ADVERTISE, "DHCPv6 ADVERTISE sent")                            \
	X(DHCP6_REPLIES, "DHCPv6 REPLY sent")                                  \
	X(DHCP6_DROP_BAD, "malformed DHCPv6 messages")                         \
	X(DHCP6_DROP_IGNORED, "DHCPv6 messages not for us")                    \
	/* DNS forwarder */                                                    \
	X(DNS_QUERIES, "DNS queries from the guest")                           \
	X(DNS_QUERIES6, "of those, to the IPv6 DNS address")                   \
	X(DNS_DROP_BAD, "malformed DNS queries")                               \
	X(DNS_REPLIES, "DNS replies to the guest")                             \
	X(DNS_TIMEOUTS, "upstream DNS timeouts")                               \
	X(DNS_FAILOVERS, "queries retried on another upstream")                \
	X(DNS_SERVFAIL, "SERVFAIL answers made up after all upstreams failed") \
	X(DNS_DROP_FULL, "queries dropped: too many in flight")                \
	X(DNS_UPSTREAM_RELOADS, "upstream list reloads (resolv.conf changed)") \
	X(DNS_REPLY_DROP_BAD, "upstream replies dropped: malformed")           \
	X(DNS_REPLY_DROP_ID, "upstream replies dropped: unknown ID")           \
	X(DNS_REPLY_DROP_SRC, "upstream replies dropped: wrong source")        \
	X(DNS_REPLY_DROP_QUESTION, "upstream replies dropped: question")       \
	X(DNS_SOCK_RENEWED, "upstream sockets replaced (new random port)")     \
	/* loopback clients of published ports spliced to the guest's lo */    \
	X(SPLICE_OPENED,                                                       \
	  "loopback clients taken for splicing (connect started)")             \
	X(SPLICE_CLOSED,                                                       \
	  "spliced connections ended cleanly, both FINs passed")               \
	X(SPLICE_RESET, "spliced connections ended by a reset or error")       \
	X(SPLICE_REFUSED,                                                      \
	  "spliced connections the guest refused (client reset)")              \
	X(SPLICE_FALLBACKS,                                                    \
	  "loopback clients sent through the tap: no socket, pipe or slot")    \
	X(SPLICE_PIPE_SMALL, "spliced pipes that could not grow to 1 MiB")     \
	X(SPLICE_POOL_WAITS, "accepts that waited for the namespace helper")   \
	X(SPLICE_TO_GUEST_BYTES,                                               \
	  "bytes spliced from host clients to the guest")                      \
	X(SPLICE_FROM_GUEST_BYTES,                                             \
	  "bytes spliced from the guest to host clients")                      \
	X(SPLICE_ACTIVE, "spliced connections open now (gauge)")               \
	X(SPLICE_NS_OPENED,                                                    \
	  "of SPLICE_OPENED, from the guest's loopback (-T)")                  \
	X(SPLICE_NS_DROPPED,                                                   \
	  "-T connections reset: no slot, socket, pipe or fd")                 \
	/* auto ports (-t/-u/-T auto): fwdauto.c */                            \
	X(FWD_AUTO_SCANS, "auto ports: scans of the bound sockets")            \
	X(FWD_AUTO_SCAN_ERRORS, "auto ports: scans that failed (sock_diag)")   \
	X(FWD_AUTO_ADDED, "auto ports opened: bound on the other side")        \
	X(FWD_AUTO_REMOVED, "auto ports closed: unbound on the other side")    \
	X(FWD_AUTO_FAILED, "auto ports that could not be opened (in use)")     \
	/* -U: guest loopback UDP ports forwarded to the host: udpns.c */      \
	X(UDPNS_FROM_NS,                                                       \
	  "-U datagrams from the guest's loopback sent to the host")           \
	X(UDPNS_TO_NS, "-U replies from the host sent back to the guest")      \
	X(UDPNS_FLOWS_OPENED,                                                  \
	  "-U flows opened (a host socket per guest peer)")                    \
	X(UDPNS_FLOWS_EXPIRED, "-U flows closed after --udp-timeout idle")     \
	X(UDPNS_DROP_FULL, "-U datagrams dropped: flow table full")            \
	X(UDPNS_DROP_SOCK, "-U datagrams dropped: no host socket (fds)")       \
	X(UDPNS_DROP_SEND, "-U datagrams dropped: a send failed")              \
	/* observability: --pcap, --ctl, --metrics */                          \
	X(PCAP_FRAMES, "frames written to the --pcap file")                    \
	X(PCAP_BYTES,                                                          \
	  "bytes of records for the --pcap file (headers included)")           \
	X(PCAP_FRAMES_LOST, "frames not captured: --pcap-max reached")         \
	X(PCAP_WRITE_ERRORS, "--pcap file writes that failed")                 \
	X(CTL_REQUESTS, "control requests answered (--ctl)")                   \
	X(CTL_ERRORS, "of those, answered with an error")                      \
	X(CTL_REFUSED,                                                         \
	  "control and metrics connections refused: too many open, or "        \
	  "another user's")                                                    \
	X(CTL_TIMEOUTS, "control and metrics connections closed: too slow")    \
	X(CTL_ACCEPT_NOFD,                                                     \
	  "control, metrics and API clients refused: out of fds")              \
	X(METRICS_REQUESTS, "metrics HTTP requests answered (--metrics)")      \
	X(METRICS_ERRORS, "of those, answered with an error status")

#define CTR_ENUM(name, desc) CTR_##name,
enum ctr_id { CTR_LIST(CTR_ENUM) CTR_NUM };
#undef CTR_ENUM

extern const char *const ctr_names[CTR_NUM];
extern const char *const ctr_descs[CTR_NUM];

/**
 * ctr_add() - add to a counter only the calling thread writes
 * @p:	counter
 * @n:	amount (wraps: (uint64_t)-1 subtracts one from a gauge)
 *
 * A relaxed atomic load and a relaxed atomic store, not an atomic add: with
 * one writer no read-modify-write is needed, and on x86-64 and arm64 this
 * is the same plain load, add and store as "+=", no lock. What it buys is
 * that another thread's relaxed load (obs/ctr.c's ctr_read(), ctl_proto.c's
 * rd()) is no data race in the C11 sense, and cannot see a torn value
 * (ThreadSanitizer reported every counter of a second shard read by the
 * stats dump).
 */
static inline void ctr_add(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

#endif /* SLIPWAY_CTR_H */
