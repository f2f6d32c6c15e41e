#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qhost.py - host ends of a QEMU guest's connections that must outlive a
live migration: paced, so that they last long enough, and telling how
they ended, so that a reset is seen rather than waited out.

Usage: qhost.py recv PORT OUT STATUS KIBPS
       qhost.py send PORT SRC STATUS KIBPS
       qhost.py idle PORT CTL STATUS
  recv  accept one connection on 127.0.0.1:PORT, read it into OUT at
        KIBPS KiB/s at most (0: as fast as it comes) until the guest's EOF,
        then close
  send  accept one connection, send the file SRC at KIBPS KiB/s at most,
        then half-close and read (and drop) what the guest sends until its
        EOF, then close
  idle  accept one connection and keep it; each line written to the FIFO
        CTL is sent to the guest and the guest's answer line awaited
        (30 s at most)
STATUS gets one line per event, flushed at once: "connected", then for
recv/send the end: "eof bytes=N" (recv: the guest closed; send: all sent),
"reset bytes=N", "error ERRNO bytes=N"; for idle "LINE -> ANSWER" per
line sent (ANSWER: the guest's line, or eof, reset, timeout), and "eof"
or "reset" if the connection ends while idle. The process exits once the
connection is over (idle: when it ends).
"""
import errno
import os
import select
import socket
import sys
import time


def note(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def accept(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(1)
    c, _ = s.accept()
    s.close()
    return c


def pace(t0, done, kibps):
    """Sleep until DONE bytes are due at KIBPS since T0."""
    if kibps > 0:
        due = t0 + done / (kibps * 1024.0)
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)


def ended(status, e, n):
    if isinstance(e, (ConnectionResetError, BrokenPipeError)):
        note(status, "reset bytes=%d" % n)
    else:
        note(status, "error %s bytes=%d" % (errno.errorcode.get(e.errno, e.errno), n))


def recv(port, out, status, kibps):
    c = accept(port)
    note(status, "connected")
    n = 0
    t0 = time.monotonic()
    with open(out, "wb") as f:
        try:
            while True:
                d = c.recv(16384)
                if not d:
                    break
                f.write(d)
                n += len(d)
                pace(t0, n, kibps)
        except OSError as e:
            f.flush()
            ended(status, e, n)
            return
    c.close()
    note(status, "eof bytes=%d" % n)


def send(port, src, status, kibps):
    c = accept(port)
    note(status, "connected")
    n = 0
    t0 = time.monotonic()
    with open(src, "rb") as f:
        try:
            while True:
                d = f.read(16384)
                if not d:
                    break
                c.sendall(d)
                n += len(d)
                pace(t0, n, kibps)
            # whatever the guest sends (sw.get_tick) is read till its
            # EOF: closing with it unread would reset the connection
            c.shutdown(socket.SHUT_WR)
            c.settimeout(60)
            while c.recv(4096):
                pass
        except OSError as e:
            ended(status, e, n)
            return
    c.close()
    note(status, "eof bytes=%d" % n)


def idle(port, ctl, status):
    c = accept(port)
    note(status, "connected")
    # O_RDWR: the FIFO never reports EOF, whoever writes to it
    fd = os.open(ctl, os.O_RDWR)
    buf = b""
    cmds = b""
    while True:
        r, _, _ = select.select([c, fd], [], [])
        if fd in r:
            cmds += os.read(fd, 1000)
        if c in r:
            try:
                d = c.recv(1000)
            except OSError as e:
                note(status, "reset" if isinstance(e, ConnectionResetError) else "error")
                return
            if not d:
                note(status, "eof")
                return
            buf += d
        while b"\n" in cmds:
            line, cmds = cmds.split(b"\n", 1)
            line = line.decode()
            try:
                c.sendall(line.encode() + b"\n")
            except OSError:
                note(status, "%s -> reset" % line)
                return
            deadline = time.monotonic() + 30
            ans = None
            while b"\n" not in buf:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([c], [], [], left)[0]:
                    ans = "timeout"
                    break
                try:
                    d = c.recv(1000)
                except OSError:
                    ans = "reset"
                    break
                if not d:
                    ans = "eof"
                    break
                buf += d
            if ans is None:
                a, buf = buf.split(b"\n", 1)
                ans = a.decode(errors="replace")
            note(status, "%s -> %s" % (line, ans))
            if ans in ("eof", "reset"):
                return


def main():
    kind, port = sys.argv[1], int(sys.argv[2])
    if kind == "recv":
        recv(port, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif kind == "send":
        send(port, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif kind == "idle":
        idle(port, sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


main()
