#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vurace.py - a hostile vhost-user frontend: its guest rewrites frames
while the backend reads them (the double-fetch attack on guest memory).

Usage: vurace.py SOCKET SECONDS PORT [KINDS]

The frontend (vupeer.Frontend: a memfd guest memory, one queue pair) posts
frames on the transmit ring, one descriptor each, round after round, while
a second process, sharing the memory, keeps rewriting one aligned word of
every posted frame between two states:

  slot % 4 == 0  UDP/IPv4 to 10.1.2.1:PORT  <->  10.0.2.2:PORT (the
                 gateway: the host's loopback, refused with
                 --no-map-host-loopback). Both states have the same
                 header checksum (10.1.2.1 and 10.0.2.2 sum alike), so
                 either passes the check
  slot % 4 == 1  UDP/IPv6 to ::1:0:0:1  <->  ::1 (the low 8 bytes)
  slot % 4 == 2  TCP SYN/IPv4 to 10.1.2.1:PORT  <->  10.0.2.2:PORT
  slot % 4 == 3  a DNS query to 10.0.2.3 whose QR bit flips (a query
                 that turns into a response after it was checked)

KINDS (default 0123) picks the slot kinds used, in turn.

A backend that checks a field in guest memory and then reads it again
can be made to open a socket to its host's loopback; one that parses
what it validated earlier can be made to trip over its own assertion.
The test around this (t_vu_race.sh) counts what reaches the host's
loopback listeners: it must be nothing. Prints the frames posted and
exits 0, or 1 if the backend stopped taking frames.
"""
import ctypes
import os
import signal
import socket
import struct
import sys
import time

import vupeer
from vupeer import (F_MRG_RXBUF, F_PROTOCOL, F_VERSION_1, GUEST_MAC,
                    RING_HDR, RING_IDX, TX_AVAIL, TX_BUF, TX_DESC, TX_USED,
                    VNET_LEN, fail)

NUM = 256
SLOT = 256  # bytes of guest memory per frame
GUEST4 = socket.inet_aton("10.0.2.15")
A4, B4 = socket.inet_aton("10.1.2.1"), socket.inet_aton("10.0.2.2")
DNS4 = socket.inet_aton("10.0.2.3")
GUEST6 = socket.inet_pton(socket.AF_INET6, "fd00:5ee:d::15")
A6_LOW = socket.inet_pton(socket.AF_INET6, "::1:0:0:1")[8:]
B6_LOW = socket.inet_pton(socket.AF_INET6, "::1")[8:]
VNET = b"\x00" * VNET_LEN
ETH4 = b"\xff" * 6 + GUEST_MAC + b"\x08\x00"
ETH6 = b"\xff" * 6 + GUEST_MAC + b"\x86\xdd"


def csum(b):
    if len(b) % 2:
        b += b"\x00"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4(proto, dst, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0, 64,
                    proto, 0, GUEST4, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def udp(sport, dport, data):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def frames(port):
    """(offset in the slot, frame bytes, word offset, state A, state B)
    for each slot kind; the word offset is aligned to its size"""
    q = struct.pack("!HHHHHH", 0x5ace, 0x0100, 1, 0, 0, 0) + \
        b"\x07example\x03com\x00" + struct.pack("!HH", 1, 1)
    out = []
    for k in range(4):
        if k == 0:
            f = VNET + ETH4 + ip4(17, A4, udp(40000, port, b"race"))
            out.append((2, f, 2 + 26 + 16, A4, B4))
        elif k == 1:
            u = udp(40000, port, b"race")
            ip = struct.pack("!IHBB", 0x60000000, len(u), 17, 64) + \
                GUEST6 + b"\x00" * 8 + A6_LOW
            f = VNET + ETH6 + ip + u
            out.append((6, f, 6 + 26 + 32, A6_LOW, B6_LOW))
        elif k == 2:
            tcp = struct.pack("!HHIIBBHHH", 40000, port, 1, 0, 0x50, 0x02,
                              65535, 0, 0)
            f = VNET + ETH4 + ip4(6, A4, tcp)
            out.append((2, f, 2 + 26 + 16, A4, B4))
        else:
            f = VNET + ETH4 + ip4(17, DNS4, udp(40000, 53, q))
            # the DNS flags' first byte: RD alone, or QR | RD
            out.append((2, f, 2 + 26 + 20 + 8 + 2, b"\x01", b"\x81"))
    return out


def racer(m, kinds):
    """rewrite every slot's word for ever (a child process)"""
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    words = []
    for i in range(NUM):
        off, _, w, a, b = kinds[i % 4]
        addr = base + TX_BUF + SLOT * i + w
        if len(a) == 8:
            t, va, vb = ctypes.c_uint64, struct.unpack("=Q", a)[0], \
                struct.unpack("=Q", b)[0]
        elif len(a) == 4:
            t, va, vb = ctypes.c_uint32, struct.unpack("=I", a)[0], \
                struct.unpack("=I", b)[0]
        else:
            t, va, vb = ctypes.c_uint8, a[0], b[0]
        words.append((t.from_address(addr), va, vb))
    while True:
        for x, va, vb in words:
            x.value = vb
            x.value = va


def main():
    if len(sys.argv) not in (4, 5):
        fail(__doc__)
    path, seconds, port = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    use = [int(k) for k in (sys.argv[4] if len(sys.argv) == 5 else "0123")]
    f = vupeer.Frontend(path)
    vupeer.NUM = NUM
    f.setup(features=F_VERSION_1 | F_MRG_RXBUF | F_PROTOCOL)
    every = frames(port)
    kinds = [every[use[i % len(use)]] for i in range(4)]
    for i in range(NUM):
        off, fr, _, _, _ = kinds[i % 4]
        # a source port of its own per slot: flows are reused each round
        fr = bytearray(fr)
        l4 = 12 + 14 + (40 if kinds[i % 4][0] == 6 else 20)
        struct.pack_into("!H", fr, l4, 40000 + i)
        a = TX_BUF + SLOT * i + off
        f.m[a:a + len(fr)] = bytes(fr)
        f.desc(TX_DESC, i, a, len(fr), 0)
    pid = os.fork()
    if pid == 0:
        try:
            racer(f.m, kinds)
        finally:
            os._exit(0)
    posted = 0
    avail = 0
    end = time.time() + seconds
    try:
        while time.time() < end:
            for i in range(NUM):
                struct.pack_into("<H", f.m,
                                 TX_AVAIL + RING_HDR + 2 * ((avail + i) % NUM), i)
            avail = (avail + NUM) & 0xffff
            struct.pack_into("<H", f.m, TX_AVAIL + RING_IDX, avail)
            os.eventfd_write(f.kick[1], 1)
            deadline = time.time() + 5
            while f.used_idx(TX_USED) != avail:
                if time.time() > deadline:
                    fail("the backend stopped taking frames after %d" % posted)
                time.sleep(0.0005)
            posted += NUM
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    print("vurace: posted %d frames in %.0f s" % (posted, seconds))
    f.s.close()


if __name__ == "__main__":
    main()
