#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - install what is missing, build, and show slipway at work: a
# namespace guest behind slipway fetches a page from an HTTP server on the
# host's loopback through 10.0.2.2, is reached from the host through a
# published port, runs iperf3 both directions, and slipway's counters are
# summarised at the end. Run as root (or with sudo).
set -eu
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (it creates a network namespace)"; exit 1; }
tools/deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
SW=$PWD/build/src/slipway
W=$(mktemp -d /tmp/slipway-demo.XXXXXX)
chmod 755 "$W"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

HTTP=$(port)
IPERF=$(port)
PUB=$(port)
mkdir -p "$W/www" "$W/gwww"
echo "hello from the host's loopback (127.0.0.1:$HTTP)" >"$W/www/index.html"
echo "hello from inside the guest namespace" >"$W/gwww/index.html"
busybox httpd -f -p "127.0.0.1:$HTTP" -h "$W/www" & PIDS+=($!)
iperf3 -s -B 127.0.0.1 -p "$IPERF" >/dev/null 2>&1 & PIDS+=($!)
sleep 0.3

cat >"$W/guest.sh" <<EOS
set -e
echo "== guest: addresses and routes (configured by slipway)"
ip -br addr show
ip route show
echo
echo "== guest: ping the gateway"
busybox ping -c 2 -W 2 10.0.2.2 | tail -2
echo
echo "== guest: curl http://10.0.2.2:$HTTP/ (reaches the host's 127.0.0.1)"
curl -sS -m 5 http://10.0.2.2:$HTTP/
echo
echo "== guest: serving HTTP on port 80, published on the host as 127.0.0.1:$PUB"
busybox httpd -f -p 80 -h $W/gwww &
HTTPD=\$!
touch $W/guest-ready
while [ ! -e $W/host-done ]; do sleep 0.1; done
echo
echo "== guest: iperf3 to the host, guest -> host"
iperf3 -c 10.0.2.2 -p $IPERF -t 3 -f g | grep -E "sender|receiver"
echo "== guest: iperf3 to the host, host -> guest"
iperf3 -c 10.0.2.2 -p $IPERF -t 3 -R -f g | grep -E "sender|receiver"
kill \$HTTPD
EOS

echo "== host: slipway -t 127.0.0.1/$PUB:80 -- sh guest.sh"
"$SW" -t "127.0.0.1/$PUB:80" --stats-file "$W/stats.json" -- sh "$W/guest.sh" &
SWPID=$!
for i in $(seq 100); do [ -e "$W/guest-ready" ] && break; sleep 0.1; done
echo "== host: curl http://127.0.0.1:$PUB/ (the guest's server, through the published port: spliced to the guest's loopback)"
curl -sS -m 5 "http://127.0.0.1:$PUB/"
touch "$W/host-done"
wait "$SWPID"
echo
echo "== slipway counters (full JSON: --stats-file, or SIGUSR1 while running)"
/usr/bin/python3 - "$W/stats.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
rows = [
    ("flows opened by the guest", c["TCP_FLOWS_OPENED_GUEST"]),
    ("flows opened through published ports", c["TCP_FLOWS_OPENED_HOST"]),
    ("loopback clients spliced to the guest's loopback", "%d (%d bytes in, %d out)" % (
        c["SPLICE_OPENED"], c["SPLICE_TO_GUEST_BYTES"], c["SPLICE_FROM_GUEST_BYTES"])),
    ("flows closed cleanly / reset", "%d / %d" % (c["TCP_FLOWS_CLOSED"],
        c["TCP_FLOWS_RESET_BY_GUEST"] + c["TCP_FLOWS_RESET_BY_HOST"])),
    ("guest -> host bytes written to host sockets", c["TCP_GUEST_BYTES"]),
    ("host -> guest bytes acknowledged by the guest", c["TCP_ACKED_BYTES"]),
    ("frames from / to the guest", "%d / %d" % (c["EDGE_RX_FRAMES"], c["EDGE_TX_FRAMES"])),
    ("GSO frames from the guest", c["EDGE_RX_GSO_FRAMES"]),
    ("ARP replies, ping replies", "%d, %d" % (c["ARP_REPLIES"], c["ICMP4_ECHO_REPLIES"])),
    ("retransmissions (timeouts, fast)", "%d, %d" % (c["TCP_RTO_FIRED"], c["TCP_FAST_RETRANS"])),
]
for k, v in rows:
    print("  %-48s %s" % (k, v))
gate = c["TCP_ACKED_BYTES"] == c["TCP_HOST_READ_BYTES"] and c["EDGE_TX_ERRORS"] == 0
print("  %-48s %s" % ("integrity gate (acked == read, no edge errors)", "held" if gate else "BROKEN"))
PY
