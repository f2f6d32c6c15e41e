#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_gso.py - one end of a verified UDP stream sent with UDP GSO: the
# sender sends BURSTS bursts of 46 datagrams of 1400 bytes (64,400 bytes:
# about as large as one UDP GSO send gets), each burst in one send with
# UDP_SEGMENT, and waits for the receiver's ack of each; the receiver
# (UDP_GRO on: datagrams received together come as one read, cut at the
# size its control message gives) checks every datagram's sequence number
# and bytes, in order, none missing, none twice. Exit status 1 with
# a message on any fault, or after 10 s without a datagram or an ack.
#   udp_gso.py server up|down ADDR PORT BURSTS READY_FILE
#   udp_gso.py client up|down ADDR PORT BURSTS
# The server binds ADDR:PORT, creates READY_FILE and waits for the
# client's hello; the client connects to ADDR:PORT and says hello. down:
# the server sends, up: the client does. Prints what it sent or received.
import socket
import struct
import sys

SOL_UDP, UDP_SEGMENT, UDP_GRO = 17, 103, 104
SEG, PER = 1400, 46

role, way, addr = sys.argv[1], sys.argv[2], sys.argv[3]
port, bursts = int(sys.argv[4]), int(sys.argv[5])
pat = bytes(range(256)) * 8


def dgram(n):
    """Datagram n: its number, then bytes that depend on it."""
    return struct.pack("!I", n) + pat[n % 256:n % 256 + SEG - 4]


s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.setsockopt(SOL_UDP, UDP_GRO, 1)
s.settimeout(10)
peer = None
try:
    if role == "server":
        s.bind((addr, port))
        open(sys.argv[6], "w").close()
        peer = s.recvfrom(64)[1]
    else:
        s.connect((addr, port))
        s.send(b"hello")

    def send(b):
        """Send b to the other end."""
        return s.sendto(b, peer) if peer else s.send(b)

    if (role == "server") == (way == "down"):
        s.setsockopt(SOL_UDP, UDP_SEGMENT, SEG)
        for b in range(bursts):
            send(b"".join(dgram(b * PER + i) for i in range(PER)))
            if s.recv(64) != struct.pack("!I", b):
                sys.exit("burst %d: wrong ack" % b)
        print("sent %d" % (bursts * PER))
    else:
        n = gro = 0
        for b in range(bursts):
            while n < (b + 1) * PER:
                data, anc, _, _ = s.recvmsg(65535, socket.CMSG_SPACE(4))
                seg = len(data)
                for lvl, typ, val in anc:
                    if lvl == SOL_UDP and typ == UDP_GRO:
                        seg = struct.unpack("i", val[:4])[0]
                seg = max(seg, 1)
                gro += seg < len(data)
                for off in range(0, len(data), seg):
                    if data[off:off + seg] != dgram(n):
                        sys.exit("datagram %d: wrong, missing or out of "
                                 "order (%d bytes)" %
                                 (n, len(data[off:off + seg])))
                    n += 1
            send(struct.pack("!I", b))
        print("received %d, %d reads of several" % (n, gro))
except socket.timeout:
    sys.exit("%s %s: 10 s without a datagram or an ack" % (role, way))
