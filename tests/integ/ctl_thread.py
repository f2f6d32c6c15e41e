#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# ctl_thread.py - is a unix socket of slipway's served by its control
# thread? Exactly one thread is named slipway-ctl, slipway has at least
# THREADS threads, and the epoll set that holds the socket at PATH holds
# neither a tap queue nor the signalfd, while another set (shard 0's)
# holds the signalfd and a tap queue. Exits non-zero with the evidence.
#   ctl_thread.py PID PATH THREADS
import os
import sys

pid, path, nthreads = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = [open("/proc/%s/task/%s/comm" % (pid, t)).read().strip()
         for t in os.listdir("/proc/%s/task" % pid)]
assert names.count("slipway-ctl") == 1, names
assert len(names) >= nthreads, names
inode = None
for line in open("/proc/net/unix").read().splitlines()[1:]:
    f = line.split()
    if len(f) >= 8 and f[7] == path:
        inode = f[6]
assert inode, "no listening socket at " + path
fds = {}
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        fds[int(fd)] = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        pass
lfd = [fd for fd, t in fds.items() if t == "socket:[%s]" % inode]
sfd = [fd for fd, t in fds.items() if t == "anon_inode:[signalfd]"]
tun = [fd for fd, t in fds.items() if t == "/dev/net/tun"]
assert len(lfd) == 1 and len(sfd) == 1 and tun, (lfd, sfd, tun, fds)
sets = {}
for fd, t in fds.items():
    if t == "anon_inode:[eventpoll]":
        sets[fd] = {int(line.split()[1])
                    for line in open("/proc/%s/fdinfo/%d" % (pid, fd))
                    if line.startswith("tfd:")}
served = [s for s in sets.values() if lfd[0] in s]
assert len(served) == 1, sets
assert sfd[0] not in served[0] and not set(tun) & served[0], (served, sfd, tun)
assert any(sfd[0] in s and set(tun) & s for s in sets.values()), sets
