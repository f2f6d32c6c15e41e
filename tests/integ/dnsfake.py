#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dnsfake.py - a DNS upstream that tries to fool slipway's forwarder

Serves UDP on ADDR:53 and records, per query, the source port and ID it
came with (one "port id name" line in LOG, flushed). Every answer is an A
record; what it sends before the real answer depends on the first label:

  plain.*  the real answer (10.9.8.7) at once
  noq.*    REFUSED, NXDOMAIN and SERVFAIL with the right ID but no
           question, then 200 ms later the real answer
  spoof.*  forged answers (10.6.6.6), each wrong in one way: another ID;
           from port 5353; from ALT:53; another question; to each other
           port of slipway's seen lately (right ID, question and source,
           wrong socket); then 200 ms later the real answer

Usage: dnsfake.py ADDR ALT LOG
"""
import socket
import struct
import sys
import time

REAL = bytes([10, 9, 8, 7])
FORGED = bytes([10, 6, 6, 6])


def qname_end(q):
    """offset just past the question name (no compression in a query)"""
    i = 12
    while q[i]:
        i += 1 + q[i]
    return i + 1


def answer(q, addr, qid=None, question=None, rcode=0):
    """a reply to q: its question (or another), one A record"""
    end = qname_end(q) + 4
    qid = struct.unpack(">H", q[:2])[0] if qid is None else qid
    question = q[12:end] if question is None else question
    hdr = struct.pack(">HHHHHH", qid, 0x8180 | rcode, 1, 1, 0, 0)
    rr = struct.pack(">HHHIH", 0xC00C, 1, 1, 60, 4) + addr
    return hdr + question + rr


def noq(q, rcode):
    """an error reply with the query's ID and no question"""
    qid = struct.unpack(">H", q[:2])[0]
    return struct.pack(">HHHHHH", qid, 0x8180 | rcode, 0, 0, 0, 0)


def main():
    addr, alt, log = sys.argv[1], sys.argv[2], open(sys.argv[3], "a")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 53))
    other_port = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    other_port.bind((addr, 5353))
    other_addr = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    other_addr.bind((alt, 53))
    recent = []
    while True:
        try:
            q, peer = s.recvfrom(4096)
        except OSError:
            continue
        if len(q) < 17:
            continue
        label = q[13:13 + q[12]].decode(errors="replace")
        qid = struct.unpack(">H", q[:2])[0]
        log.write("%d %d %s\n" % (peer[1], qid, label))
        log.flush()
        if label == "noq":
            for rcode in (5, 3, 2):
                s.sendto(noq(q, rcode), peer)
            time.sleep(0.2)
        elif label == "spoof":
            s.sendto(answer(q, FORGED, qid=qid ^ 0x5A5A), peer)
            other_port.sendto(answer(q, FORGED), peer)
            other_addr.sendto(answer(q, FORGED), peer)
            other = b"\x05other\x04test\x00\x00\x01\x00\x01"
            s.sendto(answer(q, FORGED, question=other), peer)
            for p in set(recent) - {peer[1]}:
                s.sendto(answer(q, FORGED), (peer[0], p))
            time.sleep(0.2)
        s.sendto(answer(q, REAL), peer)
        recent = (recent + [peer[1]])[-32:]


main()
