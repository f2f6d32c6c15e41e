#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vupeer.py - a synthetic vhost-user frontend for slipway's --vhost-user
edge: a guest memory in a memfd, two rings in it, and the messages a
frontend sends, good and bad.

Usage: vupeer.py CASE SOCKET
       vupeer.py fd SLIPWAY [OPTIONS...]
  arp          full set-up; an ARP request on the transmit ring comes back
               as an ARP reply in a receive buffer; the transmit chain is
               returned (used index 1) and GET_VRING_BASE says 1
  refused      a second frontend while one is connected is closed at once
  unknown      an unknown request
  oversized    a payload over the limit
  badsize      SET_FEATURES with a 4-byte payload
  badfd        GET_FEATURES carrying a file descriptor
  badfeatures  SET_FEATURES with a bit that was not offered
  badversion   a header without the version flag
  memfds       SET_MEM_TABLE naming two regions with one fd
  ringout      a ring outside guest memory
  loop         a transmit chain whose descriptor points at itself
  badhead      a transmit avail entry naming descriptor 999 of 8
  shortmem     a memory table region running past the end of its memfd
               (4 KiB for 1 MiB), then a kick: closed, not SIGBUS; the
               next frontend is served
  slowmsg      full set-up, then 5 bytes of a header, the rest 3 s later:
               meanwhile ARP requests on the transmit ring are answered
               within 0.5 s each (shard 0 does not wait for the message),
               and the message, once whole, is answered
  fdspam       SET_VRING_CALL with one fd on its header and eight more on
               its payload, then a header with twelve: both closed, and
               slipway holds no more fds than before
  fd           runs SLIPWAY [OPTIONS...] --vhost-user --fd 3, fd 3 one
               end of a socketpair (QEMU 10.1 -netdev passt,vhost-user=on);
               the arp case over the other end, which is then closed:
               slipway must exit 0 within 2 s
Each bad case expects slipway to close the connection; exit status 0 if
the case held, 1 with a message if not.

       vupeer.py DS-CASE SOCKET STATE-FILE
The device-state channel (slipway --migrate-repair alone: it offers
VHOST_USER_PROTOCOL_F_DEVICE_STATE); the frontend takes that protocol
feature, and a LOAD is SET_DEVICE_STATE_FD with a pipe's read end, the
file's bytes written into the other end, which is closed, then
CHECK_DEVICE_STATE (its answer is printed):
  ds-load        LOAD before any ring: CHECK says 0; then the rings, and an
                 ARP request answered
  ds-running     the rings run (an ARP request answered): a LOAD is refused
                 at once and CHECK says 1; the rings stopped, they still
                 ran: a LOAD again, CHECK says 1
  ds-twice       LOAD (CHECK 0), a second LOAD (CHECK 1), the rings start,
                 a third LOAD (CHECK 1), an ARP request answered
  ds-load-save   LOAD (CHECK 0), then SAVE: refused (CHECK 1), then the
                 rings start and an ARP request is answered
  ds-leave-check LOAD with the pipe left open, CHECK sent, and the frontend
                 gone before the answer: slipway (the peer, SO_PEERCRED)
                 must end within 1 s of a SIGTERM
  ds-stall       LOAD with the pipe never closed: CHECK says 1 once the
                 read deadline passed (not before 8 s), and slipway ends
                 within 1 s of a SIGTERM, the pipe still open
"""
import fcntl
import mmap
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import time

# The protocol comes from the backend's own headers, never from a copy
# here: src/edge/vu_proto.h (requests, flags, feature bits, payload
# layouts), src/edge/virtq.h (the ring layout) and src/core/core.h (the
# virtio-net header's length).
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "src")
_TYPES = {"uint8_t": "B", "uint16_t": "H", "uint32_t": "I", "uint64_t": "Q"}


def _num(text):
    """the value of a #define or enum body: N, 0xN, (1u << N); else None"""
    m = re.fullmatch(r"\(?\s*(0x[0-9a-fA-F]+|\d+)[uUlL]*\s*"
                     r"(?:<<\s*(\d+)\s*)?\)?", text.strip())
    if not m:
        return None
    v = int(m.group(1), 0)
    return v << int(m.group(2)) if m.group(2) else v


def read_header(rel, order):
    """numbers and struct layouts of a C header of slipway's

    Returns ({NAME: value} of every #define and enum entry that is a plain
    number, {struct name: struct format} of every struct made of
    uintN_t fields only, in byte @order ("<" or "=")).
    """
    path = os.path.join(SRC, rel)
    try:
        with open(path) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    except OSError as e:
        sys.exit("vupeer: %s: %s (run from slipway's source tree)" % (path, e))
    nums, structs = {}, {}
    for m in re.finditer(r"^#define\s+(\w+)\s+(.+?)\s*$", text, re.M):
        v = _num(m.group(2))
        if v is not None:
            nums[m.group(1)] = v
    for body in re.finditer(r"\benum\s+\w+\s*\{(.*?)\}", text, re.S):
        for m in re.finditer(r"(\w+)\s*=\s*([^,}]+)", body.group(1)):
            v = _num(m.group(2))
            if v is not None:
                nums[m.group(1)] = v
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{([^{}]*)\};", text):
        fields = [x.split() for x in m.group(2).split(";") if x.strip()]
        if all(len(x) == 2 and x[0] in _TYPES for x in fields):
            structs[m.group(1)] = order + "".join(_TYPES[x[0]] for x in fields)
    return nums, structs


def _need(table, name, rel):
    if name not in table:
        sys.exit("vupeer: src/%s defines no %s any more" % (rel, name))
    return table[name]


# vhost-user messages: native byte order
_VU, _VU_S = read_header("edge/vu_proto.h", "=")
# split virtqueues: little-endian (virtio 1.x)
_VQ, _VQ_S = read_header("edge/virtq.h", "<")
_CORE, _ = read_header("core/core.h", "<")


def _vu(name):
    return _need(_VU, name, "edge/vu_proto.h")


GET_FEATURES = _vu("VU_GET_FEATURES")
SET_FEATURES = _vu("VU_SET_FEATURES")
SET_OWNER = _vu("VU_SET_OWNER")
SET_MEM_TABLE = _vu("VU_SET_MEM_TABLE")
SET_VRING_NUM = _vu("VU_SET_VRING_NUM")
SET_VRING_ADDR = _vu("VU_SET_VRING_ADDR")
SET_VRING_BASE = _vu("VU_SET_VRING_BASE")
GET_VRING_BASE = _vu("VU_GET_VRING_BASE")
SET_VRING_KICK = _vu("VU_SET_VRING_KICK")
SET_VRING_CALL = _vu("VU_SET_VRING_CALL")
GET_PROTOCOL_FEATURES = _vu("VU_GET_PROTOCOL_FEATURES")
SET_PROTOCOL_FEATURES = _vu("VU_SET_PROTOCOL_FEATURES")
SET_VRING_ENABLE = _vu("VU_SET_VRING_ENABLE")
SET_DEVICE_STATE_FD = _vu("VU_SET_DEVICE_STATE_FD")
CHECK_DEVICE_STATE = _vu("VU_CHECK_DEVICE_STATE")
VERSION = _vu("VU_VERSION")
FLAG_REPLY = _vu("VU_FLAG_REPLY")
MEM_TABLE_HDR = _vu("VU_MEM_TABLE_HDR")
STATE_SAVE = _vu("VU_STATE_SAVE")
STATE_LOAD = _vu("VU_STATE_LOAD")
STATE_PHASE_STOPPED = _vu("VU_STATE_PHASE_STOPPED")
STATE_FD_KEPT = _vu("VU_STATE_FD_KEPT")
PF_DEVICE_STATE = 1 << _vu("PF_DEVICE_STATE")
F_MRG_RXBUF = 1 << _vu("F_MRG_RXBUF")
F_PROTOCOL = 1 << _vu("F_PROTOCOL_FEATURES")
F_VERSION_1 = 1 << _vu("F_VERSION_1")
HDR = _need(_VU_S, "vu_hdr", "edge/vu_proto.h")
VRING_STATE = _need(_VU_S, "vu_vring_state", "edge/vu_proto.h")
VRING_ADDR = _need(_VU_S, "vu_vring_addr", "edge/vu_proto.h")
MEM_REGION = _need(_VU_S, "vu_mem_region", "edge/vu_proto.h")
U64 = "=Q"  # the u64 payloads
HDR_LEN = struct.calcsize(HDR)
if HDR_LEN != _vu("VU_HDR_LEN"):
    sys.exit("vupeer: struct vu_hdr is not VU_HDR_LEN bytes")
DESC_F_NEXT = _need(_VQ, "VIRTQ_DESC_F_NEXT", "edge/virtq.h")
DESC_F_WRITE = _need(_VQ, "VIRTQ_DESC_F_WRITE", "edge/virtq.h")
DESC = _need(_VQ_S, "virtq_desc", "edge/virtq.h")
USED_ELEM = _need(_VQ_S, "virtq_used_elem", "edge/virtq.h")
RING_HDR = _need(_VQ, "VIRTQ_RING_HDR", "edge/virtq.h")  # flags, idx: u16
RING_IDX = 2  # the idx field, after flags
VNET_LEN = _need(_CORE, "VNET_HDR_MAX_LEN", "core/core.h")  # num_buffers last

MEM = 1 << 20
UVA = 0x7f0000000000  # the frontend's address of guest memory (any)
NUM = 8
# ring areas (guest physical = offset in the memfd)
RX_DESC, RX_AVAIL, RX_USED = 0x0000, 0x1000, 0x2000
TX_DESC, TX_AVAIL, TX_USED = 0x3000, 0x4000, 0x5000
RX_BUF, TX_BUF = 0x10000, 0x20000

GUEST_MAC = bytes.fromhex("525400123456")
GUEST_IP = socket.inet_aton("10.0.2.15")
GW_IP = socket.inet_aton("10.0.2.2")
TIMEOUT = 5.0


def fail(msg):
    print("vupeer: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def mem_table(n):
    """SET_MEM_TABLE's payload: n regions, each the whole guest memory"""
    region = struct.pack(MEM_REGION, 0, MEM, UVA, 0)
    return (struct.pack("=I", n).ljust(MEM_TABLE_HDR, b"\x00") +
            region * n)


class Frontend:
    """one connection to the backend, with its guest memory"""

    def __init__(self, path, sock=None):
        if sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
        self.s = sock
        self.s.settimeout(TIMEOUT)
        self.fd = os.memfd_create("guest")
        os.ftruncate(self.fd, MEM)
        self.m = mmap.mmap(self.fd, MEM)
        self.kick = [os.eventfd(0, os.EFD_NONBLOCK) for _ in range(2)]
        self.call = [os.eventfd(0, os.EFD_NONBLOCK) for _ in range(2)]

    def send(self, req, payload=b"", fds=(), flags=VERSION, size=None):
        hdr = struct.pack(HDR, req, flags,
                          len(payload) if size is None else size)
        if fds:
            socket.send_fds(self.s, [hdr + payload], list(fds))
        else:
            self.s.sendall(hdr + payload)

    def reply(self, req):
        hdr = self.s.recv(HDR_LEN, socket.MSG_WAITALL)
        if len(hdr) != HDR_LEN:
            fail("no reply to request %d" % req)
        r, flags, size = struct.unpack(HDR, hdr)
        if r != req or not flags & FLAG_REPLY:
            fail("reply %d flags %#x to request %d" % (r, flags, req))
        return self.s.recv(size, socket.MSG_WAITALL)

    def u64(self, req, v):
        self.send(req, struct.pack(U64, v))

    def state(self, req, idx, num):
        self.send(req, struct.pack(VRING_STATE, idx, num))

    def setup(self, features=F_VERSION_1 | F_MRG_RXBUF | F_PROTOCOL,
              tx_addr=None, pfeatures=0):
        self.hello(features, pfeatures)
        self.start(tx_addr)

    def hello(self, features=F_VERSION_1 | F_MRG_RXBUF | F_PROTOCOL,
              pfeatures=0):
        """the features, the protocol features, the owner: no memory,
        no ring yet"""
        self.send(GET_FEATURES)
        offered = struct.unpack(U64, self.reply(GET_FEATURES))[0]
        if offered & features != features:
            fail("backend offers %#x, we want %#x" % (offered, features))
        self.u64(SET_FEATURES, features)
        self.send(GET_PROTOCOL_FEATURES)
        poffered = struct.unpack(U64, self.reply(GET_PROTOCOL_FEATURES))[0]
        if poffered & pfeatures != pfeatures:
            fail("backend offers protocol features %#x, we want %#x"
                 % (poffered, pfeatures))
        self.u64(SET_PROTOCOL_FEATURES, pfeatures)
        self.send(SET_OWNER)

    def start(self, tx_addr=None):
        """the memory table and both rings: the device runs"""
        self.send(SET_MEM_TABLE, mem_table(1), [self.fd])
        for q, (d, a, u) in enumerate([(RX_DESC, RX_AVAIL, RX_USED),
                                       tx_addr or (TX_DESC, TX_AVAIL, TX_USED)]):
            self.state(SET_VRING_NUM, q, NUM)
            self.send(SET_VRING_ADDR, struct.pack(VRING_ADDR, q, 0, UVA + d,
                                                  UVA + u, UVA + a, 0))
            self.state(SET_VRING_BASE, q, 0)
            self.send(SET_VRING_KICK, struct.pack(U64, q), [self.kick[q]])
            self.send(SET_VRING_CALL, struct.pack(U64, q), [self.call[q]])
            self.state(SET_VRING_ENABLE, q, 1)

    def desc(self, base, i, addr, length, flags, nxt=0):
        struct.pack_into(DESC, self.m, base + struct.calcsize(DESC) * i,
                         addr, length, flags, nxt)

    def avail(self, base, slot, head, idx):
        struct.pack_into("<H", self.m, base + RING_HDR + 2 * slot, head)
        struct.pack_into("<H", self.m, base + RING_IDX, idx)

    def used_idx(self, base):
        return struct.unpack_from("<H", self.m, base + RING_IDX)[0]

    def expect_closed(self):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            try:
                if not self.s.recv(4096):
                    return
            except socket.timeout:
                break
            except ConnectionResetError:
                return
        fail("the backend did not close the connection")

    def state_fd(self, direction, fd):
        """SET_DEVICE_STATE_FD, phase stopped: the reply (error code in
        bits 0-7, STATE_FD_KEPT when the backend uses our fd)"""
        self.send(SET_DEVICE_STATE_FD,
                  struct.pack(VRING_STATE, direction, STATE_PHASE_STOPPED),
                  [fd])
        return struct.unpack(U64, self.reply(SET_DEVICE_STATE_FD))[0]

    def check(self, timeout=10.0):
        """CHECK_DEVICE_STATE: its answer (0: the transfer worked)"""
        self.send(CHECK_DEVICE_STATE)
        self.s.settimeout(timeout)
        try:
            return struct.unpack(U64, self.reply(CHECK_DEVICE_STATE))[0]
        except socket.timeout:
            fail("no answer to CHECK_DEVICE_STATE in %.0f s" % timeout)
        finally:
            self.s.settimeout(TIMEOUT)

    def load(self, data, close=True):
        """SET_DEVICE_STATE_FD LOAD with a pipe's read end, @data written
        into the other (as the backend reads it), the pipe closed unless
        @close is false; return (the reply, the write end or None)"""
        r, w = os.pipe()
        v = self.state_fd(STATE_LOAD, r)
        os.close(r)
        if v & 0xff:
            os.close(w)
            return v, None
        try:
            os.write(w, b"")  # a reader gone says EPIPE below
            view = memoryview(data)
            while view:
                n = os.write(w, view[:65536])
                view = view[n:]
        except BrokenPipeError:
            pass  # the backend refused it without reading: CHECK says
        if close:
            os.close(w)
            w = None
        return v, w

    def save(self):
        """SET_DEVICE_STATE_FD SAVE with a pipe's write end, read to its
        end; return (the reply, the bytes)"""
        r, w = os.pipe()
        v = self.state_fd(STATE_SAVE, w)
        os.close(w)
        data = b""
        deadline = time.time() + TIMEOUT
        while not v & 0xff:
            if not select.select([r], [], [], max(0, deadline - time.time()))[0]:
                fail("SAVE: no end of file in %.0f s" % TIMEOUT)
            b = os.read(r, 65536)
            if not b:
                break
            data += b
        os.close(r)
        return v, data


def arp_request():
    eth = b"\xff" * 6 + GUEST_MAC + b"\x08\x06"
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)
    return eth + arp + GUEST_MAC + GUEST_IP + b"\x00" * 6 + GW_IP


def case_arp(path, sock=None):
    f = Frontend(path, sock)
    f.setup()
    # four receive buffers of 2 KiB
    for i in range(4):
        f.desc(RX_DESC, i, RX_BUF + 2048 * i, 2048, DESC_F_WRITE)
        f.avail(RX_AVAIL, i, i, i + 1)
    # the request: a virtio-net header (zero), then the frame
    frame = b"\x00" * VNET_LEN + arp_request()
    f.m[TX_BUF:TX_BUF + len(frame)] = frame
    f.desc(TX_DESC, 0, TX_BUF, len(frame), 0)
    f.avail(TX_AVAIL, 0, 0, 1)
    os.eventfd_write(f.kick[1], 1)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        if f.used_idx(TX_USED) == 1 and f.used_idx(RX_USED) >= 1:
            break
        time.sleep(0.01)
    else:
        fail("used indexes tx %d rx %d" % (f.used_idx(TX_USED), f.used_idx(RX_USED)))
    for k in range(f.used_idx(RX_USED)):
        head, length = struct.unpack_from(
            USED_ELEM, f.m, RX_USED + RING_HDR + struct.calcsize(USED_ELEM) * k)
        b = f.m[RX_BUF + 2048 * head:RX_BUF + 2048 * head + length]
        nbuf = struct.unpack_from("<H", b, VNET_LEN - 2)[0]
        fr = b[VNET_LEN:]
        if nbuf == 1 and fr[12:14] == b"\x08\x06" and fr[20:22] == b"\x00\x02" \
                and fr[28:32] == GW_IP and fr[0:6] == GUEST_MAC:
            break
    else:
        fail("no ARP reply in the receive buffers")
    f.state(GET_VRING_BASE, 1, 0)
    idx, num = struct.unpack(VRING_STATE, f.reply(GET_VRING_BASE))
    if (idx, num) != (1, 1):
        fail("GET_VRING_BASE of the transmit ring: %d %d" % (idx, num))
    f.s.close()


def case_fd(argv):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    # the backend's end becomes its fd 3, as GLib's take_fd() does in
    # QEMU: dup2() in the child, from a copy that cannot be 3 itself (our
    # other fds are close-on-exec; pass_fds would close 3 again)
    n = fcntl.fcntl(theirs.fileno(), fcntl.F_DUPFD_CLOEXEC, 10)
    p = subprocess.Popen(argv + ["--vhost-user", "--fd", "3"],
                         close_fds=False, preexec_fn=lambda: os.dup2(n, 3))
    os.close(n)
    theirs.close()
    try:
        try:
            case_arp(None, ours)  # closes our end when done
        except OSError as e:
            fail("the --fd frontend: %s (slipway's status: %s)"
                 % (e, p.poll()))
        try:
            rc = p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            fail("slipway still runs 2 s after its --fd frontend closed")
        if rc != 0:
            fail("slipway exited %d when its --fd frontend closed" % rc)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def arp_round(f, k):
    """ARP request k (from 0) on the transmit ring, a receive buffer for
    its reply; return the seconds until the reply is in"""
    s = k % NUM
    f.desc(RX_DESC, s, RX_BUF + 2048 * s, 2048, DESC_F_WRITE)
    f.avail(RX_AVAIL, s, s, k + 1)
    frame = b"\x00" * VNET_LEN + arp_request()
    f.m[TX_BUF + 2048 * s:TX_BUF + 2048 * s + len(frame)] = frame
    f.desc(TX_DESC, s, TX_BUF + 2048 * s, len(frame), 0)
    f.avail(TX_AVAIL, s, s, k + 1)
    t0 = time.time()
    os.eventfd_write(f.kick[1], 1)
    while time.time() < t0 + TIMEOUT:
        if f.used_idx(TX_USED) == k + 1 and f.used_idx(RX_USED) == k + 1:
            return time.time() - t0
        time.sleep(0.002)
    fail("ARP %d: used indexes tx %d rx %d" % (k, f.used_idx(TX_USED),
                                              f.used_idx(RX_USED)))


def case_slowmsg(path):
    f = Frontend(path)
    f.setup()
    hdr = struct.pack(HDR, GET_FEATURES, VERSION, 0)
    f.s.sendall(hdr[:5])
    # three times the 1 s that a half message used to hold shard 0
    for k in range(6):
        time.sleep(0.5)
        t = arp_round(f, k)
        if t > 0.5:
            fail("ARP %d answered in %.3f s with half a message pending"
                 % (k, t))
    f.s.sendall(hdr[5:])
    if not struct.unpack(U64, f.reply(GET_FEATURES))[0] & F_VERSION_1:
        fail("GET_FEATURES, completed late, answered wrong")
    f.s.close()


def case_shortmem(path):
    f = Frontend(path)
    short = os.memfd_create("short")
    os.ftruncate(short, 4096)
    f.fd = short  # the region says 1 MiB
    try:
        f.setup()
        os.eventfd_write(f.kick[1], 1)  # rings at 12 KiB and more
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed while we were still setting up: as expected
    f.expect_closed()
    g = Frontend(path)  # slipway is still there, and serves
    g.send(GET_FEATURES)
    g.reply(GET_FEATURES)


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def case_fdspam(path):
    probe = Frontend(path)
    probe.send(GET_FEATURES)
    probe.reply(GET_FEATURES)  # accepted: its connection is counted
    pid = struct.unpack("3i", probe.s.getsockopt(
        socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
    base = fd_count(pid) - 1
    probe.s.close()
    evs = [os.eventfd(0) for _ in range(12)]
    hdr = struct.pack(HDR, SET_VRING_CALL, VERSION, struct.calcsize(U64))
    f = Frontend(path)
    socket.send_fds(f.s, [hdr], evs[:1])
    time.sleep(0.1)
    socket.send_fds(f.s, [struct.pack(U64, 0)], evs[1:9])
    f.expect_closed()
    f.s.close()
    g = Frontend(path)
    socket.send_fds(g.s, [hdr + struct.pack(U64, 0)], evs)
    g.expect_closed()
    g.s.close()
    deadline = time.time() + TIMEOUT
    while fd_count(pid) != base and time.time() < deadline:
        time.sleep(0.05)
    if fd_count(pid) != base:
        fail("slipway holds %d fds, %d before" % (fd_count(pid), base))


def peer_pid(f):
    """the backend's process, from its end of the connection"""
    return struct.unpack("3i", f.s.getsockopt(
        socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]


def ds_connect(path):
    """a frontend that takes the device-state channel; no ring yet"""
    f = Frontend(path)
    f.hello(pfeatures=PF_DEVICE_STATE)
    return f


def expect_check(f, want, what, timeout=10.0):
    """CHECK_DEVICE_STATE says the transfer worked (want 0) or not (1);
    return the seconds its answer took"""
    t0 = time.time()
    v = f.check(timeout)
    dt = time.time() - t0
    if (v == 0) != (want == 0):
        fail("%s: CHECK_DEVICE_STATE answered %d in %.2f s, expected %s"
             % (what, v, dt, "success" if want == 0 else "failure"))
    print("vupeer: %s: CHECK_DEVICE_STATE %d (%.3f s)" % (what, v, dt))
    return dt


def load_ok(f, data, what):
    v, _ = f.load(data)
    if v & 0xff or not v & STATE_FD_KEPT:
        fail("%s: SET_DEVICE_STATE_FD refused: %#x" % (what, v))
    expect_check(f, 0, what)


def term_within(pid, seconds, what):
    """SIGTERM the backend: it must be gone within @seconds"""
    pfd = os.pidfd_open(pid)
    t0 = time.time()
    os.kill(pid, signal.SIGTERM)
    gone = select.select([pfd], [], [], seconds)[0]
    os.close(pfd)
    if not gone:
        fail("%s: slipway still runs %.1f s after SIGTERM" % (what, seconds))
    print("vupeer: %s: slipway gone %.3f s after SIGTERM"
          % (what, time.time() - t0))


def case_ds_load(path, data):
    f = ds_connect(path)
    load_ok(f, data, "LOAD")
    f.start()
    arp_round(f, 0)
    f.s.close()


def case_ds_running(path, data):
    f = Frontend(path)
    f.setup(pfeatures=PF_DEVICE_STATE)
    arp_round(f, 0)
    v, _ = f.load(data)
    if not v & 0xff:
        fail("a LOAD while the rings run was taken (reply %#x)" % v)
    expect_check(f, 1, "LOAD while the rings run")
    for q in (0, 1):  # stopped now, but they ran
        f.state(GET_VRING_BASE, q, 0)
        f.reply(GET_VRING_BASE)
    f.load(data)
    expect_check(f, 1, "LOAD after the rings ran")
    f.s.close()


def case_ds_twice(path, data):
    f = ds_connect(path)
    load_ok(f, data, "first LOAD")
    f.load(data)
    expect_check(f, 1, "second LOAD, before the rings run")
    f.start()  # the first state's flows come in now
    f.load(data)
    expect_check(f, 1, "third LOAD, the rings running")
    arp_round(f, 0)
    f.s.close()


def case_ds_load_save(path, data):
    f = ds_connect(path)
    load_ok(f, data, "LOAD")
    v, out = f.save()
    if not v & 0xff:
        expect_check(f, 1, "SAVE after a LOAD (%d bytes came)" % len(out))
    f.start()  # the loaded flows come in now
    arp_round(f, 0)
    f.s.close()


def case_ds_leave_check(path, data):
    f = ds_connect(path)
    pid = peer_pid(f)
    v, w = f.load(data, close=False)  # the state sent, the pipe open
    if v & 0xff:
        fail("LOAD refused at once: %#x" % v)
    f.send(CHECK_DEVICE_STATE)
    time.sleep(0.1)
    f.s.close()  # gone before the answer
    time.sleep(0.2)
    term_within(pid, 1.0, "frontend gone during CHECK")
    os.close(w)


def case_ds_stall(path, data):
    f = ds_connect(path)
    pid = peer_pid(f)
    v, w = f.load(data, close=False)  # never closed
    if v & 0xff:
        fail("LOAD refused at once: %#x" % v)
    dt = expect_check(f, 1, "LOAD whose pipe stays open", timeout=30)
    if dt < 8:
        fail("CHECK answered after %.1f s, before the read deadline" % dt)
    term_within(pid, 1.0, "after a stalled LOAD")
    os.close(w)
    f.s.close()


DS_CASES = {
    "ds-load": case_ds_load,
    "ds-running": case_ds_running,
    "ds-twice": case_ds_twice,
    "ds-load-save": case_ds_load_save,
    "ds-leave-check": case_ds_leave_check,
    "ds-stall": case_ds_stall,
}


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "fd":
        case_fd(sys.argv[2:])
        print("vupeer: ok fd")
        return
    if len(sys.argv) == 4 and sys.argv[1] in DS_CASES:
        with open(sys.argv[3], "rb") as sf:
            data = sf.read()
        DS_CASES[sys.argv[1]](sys.argv[2], data)
        print("vupeer: ok " + sys.argv[1])
        return
    if len(sys.argv) != 3:
        fail(__doc__)
    case, path = sys.argv[1], sys.argv[2]
    if case == "arp":
        case_arp(path)
    elif case == "slowmsg":
        case_slowmsg(path)
    elif case == "shortmem":
        case_shortmem(path)
    elif case == "fdspam":
        case_fdspam(path)
    elif case == "refused":
        a = Frontend(path)
        a.send(GET_FEATURES)
        a.reply(GET_FEATURES)
        Frontend(path).expect_closed()
        a.send(GET_FEATURES)
        a.reply(GET_FEATURES)
    else:
        f = Frontend(path)
        if case == "unknown":
            f.send(99, struct.pack(U64, 0))
        elif case == "oversized":
            f.send(SET_MEM_TABLE, b"\x00" * 16, size=4096)
        elif case == "badsize":
            f.send(SET_FEATURES, b"\x00" * 4)
        elif case == "badfd":
            f.send(GET_FEATURES, fds=[f.fd])
        elif case == "badfeatures":
            f.u64(SET_FEATURES, 1 << 63)
        elif case == "badversion":
            f.send(GET_FEATURES, flags=0)
        elif case == "memfds":
            f.send(SET_MEM_TABLE, mem_table(2), [f.fd])
        elif case == "ringout":
            try:
                f.setup(tx_addr=(MEM + 0x1000, TX_AVAIL, TX_USED))
            except (BrokenPipeError, ConnectionResetError):
                pass  # closed while we were still setting up: as expected
        elif case in ("loop", "badhead"):
            f.setup()
            if case == "loop":
                f.desc(TX_DESC, 0, TX_BUF, 64, DESC_F_NEXT, 0)
                f.avail(TX_AVAIL, 0, 0, 1)
            else:
                f.avail(TX_AVAIL, 0, 999, 1)
            os.eventfd_write(f.kick[1], 1)
        else:
            fail("unknown case " + case)
        f.expect_closed()
    print("vupeer: ok " + case)


if __name__ == "__main__":
    main()
