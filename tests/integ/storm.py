#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# storm.py - a malformed-frame storm from inside a guest namespace: random
# frames and mutated copies of valid ones (ARP, IPv4/TCP, IPv4/UDP, IPv6,
# ICMP), written on a raw packet socket to IFACE for SECONDS, as fast as
# Python goes. The source MAC stays the interface's own (the guest sends
# garbage; it does not pretend to be another host). Prints the count.
# With a PORT, a SYN flood instead: well-formed SYNs from random source
# ports to 10.0.2.2:PORT, never completed.
#   storm.py IFACE SECONDS SEED [PORT]
import random
import socket
import struct
import sys
import time

iface, secs, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
mac = open(f"/sys/class/net/{iface}/address").read().strip()
src = bytes.fromhex(mac.replace(":", ""))
gw = b"\xff" * 6


def csum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while t >> 16:
        t = (t & 0xFFFF) + (t >> 16)
    return ~t & 0xFFFF


def ip4(proto, payload, dst=b"\x0a\x00\x02\x02"):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000,
                    64, proto, 0, b"\x0a\x00\x02\x0f", dst)
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def eth(etype, payload):
    return gw + src + struct.pack("!H", etype) + payload


seeds = [
    eth(0x0806, struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, src,
                            b"\x0a\x00\x02\x0f", b"\0" * 6, b"\x0a\x00\x02\x02")),
    eth(0x0800, ip4(6, struct.pack("!HHIIBBHHH", 12345, 9, 1, 0, 0x50, 0x02,
                                   65535, 0, 0))),
    eth(0x0800, ip4(17, struct.pack("!HHHH", 12346, 9, 12, 0) + b"abcd")),
    eth(0x0800, ip4(1, struct.pack("!BBHHH", 8, 0, 0, 1, 1) + b"ping")),
    eth(0x86DD, struct.pack("!IHBB16s16s", 0x60000000, 8, 17, 64,
                            b"\xfd\0\x05\xee\0\x0d" + b"\0" * 9 + b"\x15",
                            b"\xfd\0\x05\xee\0\x0d" + b"\0" * 9 + b"\x02")
        + struct.pack("!HHHH", 12347, 9, 8, 0)),
]

def syn(sport, dport):
    th = struct.pack("!HHIIBBHHH", sport, dport, rnd.getrandbits(32), 0, 0x50,
                     0x02, 65535, 0, 0)
    ph = struct.pack("!4s4sBBH", b"\x0a\x00\x02\x0f", b"\x0a\x00\x02\x02", 0,
                     6, len(th))
    th = th[:16] + struct.pack("!H", csum(ph + th)) + th[18:]
    return eth(0x0800, ip4(6, th))


n = 0
end = time.monotonic() + secs
flood = int(sys.argv[4]) if len(sys.argv) > 4 else 0
while flood and time.monotonic() < end:
    for _ in range(200):
        try:
            s.send(syn(rnd.randint(1024, 65535), flood))
            n += 1
        except OSError:
            pass
while not flood and time.monotonic() < end:
    for _ in range(200):
        k = rnd.random()
        if k < 0.2:
            body = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 200)))
            f = gw + src + body
        else:
            f = bytearray(rnd.choice(seeds))
            for _ in range(rnd.randint(1, 4)):
                i = rnd.randrange(12, len(f))
                f[i] = rnd.getrandbits(8)
            if rnd.random() < 0.2:
                f = f[:rnd.randint(12, len(f))]
            f = bytes(f)
        try:
            s.send(f)
            n += 1
        except OSError:
            pass
print(n)
