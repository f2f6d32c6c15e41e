#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qmp.py - drive a QEMU through its QMP socket (-qmp unix:SOCK,...)

Usage: qmp.py SOCK COMMAND [ARGUMENTS-JSON]
       qmp.py SOCK wait-migration SECS
  COMMAND           execute it (after the capabilities handshake); print
                    its return value as JSON; on an error print "COMMAND:
                    CLASS: DESCRIPTION" on stderr and exit 1
  wait-migration    poll query-migrate every 0.2 s until the status is
                    completed, failed or cancelled, or SECS pass; print the
                    status ("timeout" for SECS passed) and exit 0 for
                    completed, 1 otherwise; the last query-migrate's
                    answer goes to stderr
Exit status 2: no QMP there (QEMU gone, or not up yet).
"""
import json
import socket
import sys
import time


class Qmp:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(30)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.line()  # greeting
        self.call("qmp_capabilities")

    def line(self):
        # events come in between: skip them
        while True:
            raw = self.f.readline()
            if not raw:
                raise EOFError("QMP closed")
            m = json.loads(raw)
            if "event" not in m:
                return m

    def call(self, cmd, args=None):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        self.s.sendall(json.dumps(req).encode() + b"\n")
        return self.line()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        q = Qmp(sys.argv[1])
    except (OSError, EOFError) as e:
        print("qmp: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(2)
    if sys.argv[2] == "wait-migration":
        end = time.monotonic() + float(sys.argv[3])
        st = {}
        while time.monotonic() < end:
            st = q.call("query-migrate").get("return", {})
            if st.get("status") in ("completed", "failed", "cancelled"):
                print(st["status"])
                print(json.dumps(st), file=sys.stderr)
                sys.exit(st["status"] != "completed")
            time.sleep(0.2)
        print("timeout")
        print(json.dumps(st), file=sys.stderr)
        sys.exit(1)
    args = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
    try:
        r = q.call(sys.argv[2], args)
    except EOFError:
        # quit may close the socket before its answer is read
        if sys.argv[2] != "quit":
            raise
        r = {"return": {}}
    if "error" in r:
        print("%s: %s: %s" % (sys.argv[2], r["error"].get("class"),
                              r["error"].get("desc")), file=sys.stderr)
        sys.exit(1)
    print(json.dumps(r.get("return")))


main()
