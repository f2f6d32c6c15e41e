#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qpeer.py - a synthetic guest for slipway's socket edges (--stream,
--dgram): speaks the framing itself, good and bad, and checks the answers.

Usage: qpeer.py CASE SOCKET [LOCAL]
  arp        stream: ask for the gateway's MAC, expect the ARP reply
  bad-len    stream: a length prefix over the limit; expect the close
  truncated  stream: half a frame, then close
  garbage    stream: 2000 frames of seeded random bytes, then ARP
  split      stream: an ARP request written a byte at a time
  refused    stream: a second connection is refused, the first serves on
  dgram      datagram from LOCAL: ARP
  vfkit      datagram from LOCAL: vfkit's VFKT greeting, then ARP
  dgram-bad  datagram from LOCAL: empty, oversized, garbage, then ARP
  fd         SOCKET is slipway's binary: start it with --fd on one end of a
             socketpair (LOCAL: its --resolv-conf), ARP over the other,
             close it; slipway must exit with status 0
  fd-flow    as fd, but as QEMU's -netdev passt and muvm hand it (--fd 3,
             the socketpair's end on fd 3), and with a TCP connection to a
             listener on the host's loopback open through the gateway when
             the socket closes: slipway must exit with status 0 at once,
             and the host side of the connection must end
Exit status 0 if the case held, 1 (with a message) if not.
"""
import os
import random
import socket
import struct
import sys
import time

GUEST_MAC = bytes.fromhex("525400123456")
GUEST_IP = socket.inet_aton("10.0.2.15")
GW_IP = socket.inet_aton("10.0.2.2")
TIMEOUT = 5.0


def fail(msg):
    print("qpeer: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def arp_request():
    eth = b"\xff" * 6 + GUEST_MAC + b"\x08\x06"
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)
    arp += GUEST_MAC + GUEST_IP + b"\x00" * 6 + GW_IP
    return eth + arp


def is_arp_reply(f):
    return (len(f) >= 42 and f[12:14] == b"\x08\x06" and
            f[20:22] == b"\x00\x02" and f[28:32] == GW_IP and
            f[0:6] == GUEST_MAC)


def stream_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(TIMEOUT)
    s.connect(path)
    return s


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return None
        b += c
    return b


def stream_frames(s):
    """yield frames until EOF or timeout"""
    while True:
        h = recv_exact(s, 4)
        if h is None:
            return
        (n,) = struct.unpack("!I", h)
        f = recv_exact(s, n)
        if f is None:
            fail("stream ended inside a frame")
        yield f


def stream_arp(s, how="whole"):
    req = arp_request()
    msg = struct.pack("!I", len(req)) + req
    if how == "split":
        for i in range(len(msg)):
            s.sendall(msg[i:i + 1])
            time.sleep(0.005)
    else:
        s.sendall(msg)
    deadline = time.time() + TIMEOUT
    for f in stream_frames(s):
        if is_arp_reply(f):
            return
        if time.time() > deadline:
            break
    fail("no ARP reply on the stream")


def csum(b):
    if len(b) & 1:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp_frame(gw_mac, sport, dport, seq, ack, flags):
    """an Ethernet/IPv4/TCP segment from the guest to the gateway"""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags,
                      65535, 0, 0)
    pseudo = GUEST_IP + GW_IP + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64,
                     6, 0, GUEST_IP, GW_IP)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return gw_mac + GUEST_MAC + b"\x08\x00" + ip + tcp


def stream_send(s, f):
    s.sendall(struct.pack("!I", len(f)) + f)


def fd_flow(path, local):
    """the fd-flow case"""
    import subprocess
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    lst.settimeout(TIMEOUT)
    port = lst.getsockname()[1]
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    # the shell puts our end on fd 3, as QEMU's launcher does
    p = subprocess.Popen(["/bin/sh", "-c", 'exec "$0" --fd 3 --resolv-conf '
                          '"$1" 3<&%d %d<&-' % (b.fileno(), b.fileno()),
                          path, local], pass_fds=[b.fileno()])
    b.close()
    a.settimeout(TIMEOUT)
    stream_arp(a)
    stream_send(a, tcp_frame(b"\xff" * 6, 40000, port, 1000, 0, 0x02))
    deadline = time.time() + TIMEOUT
    for f in stream_frames(a):
        if (len(f) >= 54 and f[12:14] == b"\x08\x00" and f[23] == 6 and
                f[47] & 0x12 == 0x12):
            (seq,) = struct.unpack("!I", f[38:42])
            stream_send(a, tcp_frame(f[6:12], 40000, port, 1001, seq + 1,
                                     0x10))
            break
        if time.time() > deadline:
            fail("no SYN-ACK from the gateway")
    try:
        conn, _ = lst.accept()
    except socket.timeout:
        fail("slipway did not connect to the host's listener")
    a.close()
    t = time.time()
    try:
        rc = p.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("slipway --fd 3 did not exit when its socket closed")
    if rc != 0:
        fail("slipway --fd 3 exited with %d" % rc)
    if time.time() - t > 2:
        fail("slipway --fd 3 took %.1f s to exit" % (time.time() - t))
    expect_eof(conn)


def expect_eof(s):
    s.settimeout(TIMEOUT)
    try:
        while s.recv(65536):
            pass
    except socket.timeout:
        fail("the connection was not closed")
    except ConnectionResetError:
        pass


def dgram_sock(local):
    if os.path.exists(local):
        os.unlink(local)
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    d.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    d.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    d.bind(local)
    d.settimeout(TIMEOUT)
    return d


def dsend(d, data, path):
    """send a datagram; while the gateway is still attached to an earlier
    guest (it probes once a second), the kernel refuses it: retry"""
    deadline = time.time() + TIMEOUT
    while True:
        try:
            d.sendto(data, path)
            return
        except PermissionError:
            if time.time() > deadline:
                fail("the gateway kept refusing us (attached to another guest)")
            time.sleep(0.05)


def dgram_arp(d, path):
    dsend(d, arp_request(), path)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        try:
            f = d.recv(70000)
        except socket.timeout:
            break
        if is_arp_reply(f):
            return
    fail("no ARP reply over the datagram socket")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    case, path = sys.argv[1], sys.argv[2]
    local = sys.argv[3] if len(sys.argv) > 3 else None
    if case == "arp":
        stream_arp(stream_connect(path))
    elif case == "split":
        stream_arp(stream_connect(path), "split")
    elif case == "bad-len":
        s = stream_connect(path)
        s.sendall(struct.pack("!I", 0x7fffffff) + b"x" * 100)
        expect_eof(s)
    elif case == "truncated":
        s = stream_connect(path)
        s.sendall(struct.pack("!I", 100) + b"y" * 50)
        s.close()
    elif case == "garbage":
        rnd = random.Random(42)
        s = stream_connect(path)
        buf = b""
        for _ in range(2000):
            n = rnd.randrange(0, 1600)
            f = bytes(rnd.getrandbits(8) for _ in range(n))
            if n >= 14 and rnd.random() < 0.5:
                # aimed at us: broadcast, with a plausible ethertype
                f = b"\xff" * 6 + GUEST_MAC + rnd.choice(
                    [b"\x08\x00", b"\x08\x06", b"\x86\xdd"]) + f[14:]
            buf += struct.pack("!I", n) + f
        s.sendall(buf)
        stream_arp(s)
    elif case == "refused":
        a = stream_connect(path)
        stream_arp(a)
        b = stream_connect(path)
        expect_eof(b)
        stream_arp(a)
    elif case == "fd":
        import subprocess
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        p = subprocess.Popen([path, "--fd", str(b.fileno()), "--resolv-conf",
                              local], pass_fds=[b.fileno()])
        b.close()
        a.settimeout(TIMEOUT)
        stream_arp(a)
        a.close()
        try:
            rc = p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("slipway --fd did not exit when its socket closed")
        if rc != 0:
            fail("slipway --fd exited with %d" % rc)
    elif case == "fd-flow":
        fd_flow(path, local)
    elif case in ("dgram", "vfkit", "dgram-bad"):
        d = dgram_sock(local)
        if case == "vfkit":
            dsend(d, b"VFKT", path)
        if case == "dgram-bad":
            dsend(d, b"", path)
            d.sendto(b"\x01" * 13, path)
            d.sendto(b"z" * 65600, path)
            rnd = random.Random(7)
            for _ in range(500):
                n = rnd.randrange(14, 1500)
                d.sendto(b"\xff" * 6 + GUEST_MAC +
                         bytes(rnd.getrandbits(8) for _ in range(n - 12)), path)
        dgram_arp(d, path)
        os.unlink(local)
    else:
        fail("unknown case " + case)
    print("qpeer: ok " + case)


main()
