#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_s4n_api.sh - slipway as slirp4netns (-c, --netns-type=path, exit and
# ready fds) and its API socket: add, list and remove published ports;
# verified transfers through an added port (default and explicit guest
# address, TCP and UDP), none through a removed one; error replies for bad
# JSON, unknown commands, bad arguments, ports in use and oversized
# requests, which change nothing; the socket is served by the control
# thread, and a stalled client holds up no other; exit when the exit fd
# reaches EOF
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/s4n_lib.sh"
require_root
s4n_binary
make_ns "$NS"
API=$T/api.sock

cat >"$T/api.py" <<'EOP'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode())
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
print(out.decode())
EOP
# api JSON: one request, one reply on stdout
api() {
	"$PY" "$T/api.py" "$API" "$1"
}
# expect_err JSON WORDS: the reply is an error whose text has WORDS
expect_err() {
	local r
	r=$(api "$1") || fail "no reply to ${1:0:80}"
	"$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if sys.argv[2].lower() in d["error"]["desc"].lower() and "return" not in d else 1)' \
		"$r" "$2" || fail "request ${1:0:80}: expected an error about '$2', got $r"
}
# expect_desc JSON DESC: the reply is exactly slirp4netns's error DESC
expect_desc() {
	local r
	r=$(api "$1") || fail "no reply to ${1:0:80}"
	"$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d == {"error": {"desc": sys.argv[2]}} else 1)' \
		"$r" "$2" || fail "request ${1:0:80}: expected slirp4netns's error '$2', got $r"
}
# expect_id JSON: the reply is {"return":{"id":N}}; sets ID=N
# (not in a subshell: fail's cleanup must run once, in the test's shell)
expect_id() {
	local r
	r=$(api "$1") || fail "no reply to ${1:0:80}"
	ID=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["return"]["id"])' "$r") ||
		fail "request $1: expected an id, got $r"
}

# the exit fd: a FIFO whose only writer is a sleep we kill at the end
mkfifo "$T/exit"
bg sh -c "exec sleep 300 >$T/exit"
writer=$LASTPID
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
"$S4N" --mtu=65520 --enable-sandbox --enable-seccomp -c -e 3 -r 4 \
	--api-socket "$API" --netns-type=path "/run/netns/$NS" tap0 \
	3<"$T/exit" 4>"$T/ready" >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=($SW_PID)
wait_for "the ready fd" 10 "[ -s $T/ready ]"
[ "$(cat "$T/ready")" = 1 ] || fail "ready fd got '$(cat "$T/ready")', expected 1"
[ -S "$API" ] || fail "no API socket after ready"
[ "$(stat -c %a "$API")" = 600 ] || fail "API socket mode $(stat -c %a "$API"), expected 600"
ip -n "$NS" -4 addr show tap0 | grep -q "inet 10.0.2.100/24" || fail "guest address: $(ip -n "$NS" addr)"
ip -n "$NS" route | grep -q "default via 10.0.2.2" || fail "no default route via 10.0.2.2"
g ip link set lo up

p1=$(free_port)
p2=$(free_port)
p3=$(free_port)
pu=$(free_port)
expect_id "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$p1,\"guest_addr\":\"\",\"guest_port\":8001}}"
id1=$ID
# rootlesskit names the guest address; here a second one of the guest's
g ip addr add 10.0.2.50/24 dev tap0
expect_id "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$p2,\"guest_addr\":\"10.0.2.50\",\"guest_port\":8002}}"
id2=$ID
expect_id "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"udp\",\"host_addr\":\"\",\"host_port\":$pu,\"guest_addr\":\"10.0.2.100\",\"guest_port\":5353}}"
id3=$ID
[ "$id1" = 1 ] && [ "$id2" = 2 ] && [ "$id3" = 3 ] || fail "ids $id1 $id2 $id3, expected 1 2 3"

# errors: nothing changes, the socket keeps serving
expect_err '{"execute":"add_hostfwd","arguments":{"proto":"tcp"' "parse"
expect_err 'not json at all' "parse"
expect_err '{"execute":"frobnicate"}' "unknown"
expect_err '{"arguments":{}}' "execute"
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"sctp\",\"host_port\":$p3,\"guest_port\":1}}" "proto"
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":70000,\"guest_port\":1}}" "host_port"
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":$p3,\"guest_addr\":\"192.168.7.7\",\"guest_port\":1}}" "guest_addr"
# an address that is not a string (s4n_str_arg())
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":7,\"host_port\":$p3,\"guest_port\":1}}" "host_addr (expected a string)"
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":$p3,\"guest_addr\":[],\"guest_port\":1}}" "guest_addr (expected a string)"
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$p1,\"guest_port\":9}}" "in use"
# a port another program holds
bg "$PY" -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); open(sys.argv[2],"w").close(); time.sleep(300)' "$p3" "$T/held"
holder=$LASTPID
wait_for "the port holder" 10 "[ -e $T/held ]"
expect_err "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$p3,\"guest_port\":9}}" "in use"
kill "$holder"
big="{\"execute\":\"list_hostfwd\",\"pad\":\"$(head -c 5000 /dev/zero | tr '\0' x)\"}"
expect_err "$big" "too large"
# slirp4netns's own words for requests it cannot run at all
expect_desc 'not json at all' "bad request: cannot parse JSON"
expect_desc '[1, 2]' "bad request: json_object() failed"
expect_desc '{"arguments":{}}' "bad request: no execute found"
expect_desc '{"execute":"frobnicate"}' "bad request: unknown execute"
expect_desc "$big" "bad request: too large message"
# an endless stream (slirp4netns's test: cat /dev/zero | ncat -U): the
# error after 1 MiB of zeros, then the connection closes (the sender gets
# EPIPE or a reset within 5 s instead of being read from forever)
endless=$("$PY" - "$API" <<'EOP'
import socket, sys, time, threading
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
out, res = b"", {}
def reader():
    global out
    s.settimeout(5)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except OSError as e:
        res["rerr"] = e
t = threading.Thread(target=reader, daemon=True)
t.start()
chunk = bytes(65536)
end = time.monotonic() + 5
sent = 0
try:
    s.settimeout(5)
    while time.monotonic() < end:
        s.sendall(chunk)
        sent += len(chunk)
    closed = False
except OSError:
    closed = True
t.join(5)
print("closed" if closed and sent >= 4096 else "open", out.decode(errors="replace"))
EOP
) || fail "endless stream: the client script failed"
[ "${endless%% *}" = closed ] &&
	"$PY" -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1]) == {"error": {"desc": "bad request: too large message"}} else 1)' \
		"${endless#* }" ||
	fail "endless stream on the API socket: got '${endless:0:200}', expected the error and a closed connection"
expect_err '{"execute":"remove_hostfwd","arguments":{"id":99}}' "no forward"
expect_err '{"execute":"remove_hostfwd","arguments":{"id":"one"}}' "id"

# the list: exactly the three ports, with slirp4netns's fields
list=$(api '{"execute":"list_hostfwd"}')
"$PY" - "$list" "$p1" "$p2" "$pu" <<'EOP' || fail "list_hostfwd: $list"
import json, sys
d = json.loads(sys.argv[1])["return"]["entries"]
p1, p2, pu = map(int, sys.argv[2:5])
want = [
    {"id": 1, "proto": "tcp", "host_addr": "127.0.0.1", "host_port": p1, "guest_addr": "10.0.2.100", "guest_port": 8001},
    {"id": 2, "proto": "tcp", "host_addr": "127.0.0.1", "host_port": p2, "guest_addr": "10.0.2.50", "guest_port": 8002},
    {"id": 3, "proto": "udp", "host_addr": "0.0.0.0", "host_port": pu, "guest_addr": "10.0.2.100", "guest_port": 5353},
]
if d != want:
    print("got", d, "want", want, file=sys.stderr)
    sys.exit(1)
EOP

# transfers through the added ports, bytes verified
xfer_pub_send "$p1" 8001 8M
g "$SWVERIFY" server --listen 10.0.2.50:8002 --mode send --bytes 8M --once \
	--ready-file "$T/r2" >/dev/null &
gpid=$!
PIDS+=($gpid)
wait_for "guest server on 10.0.2.50" 10 "[ -e $T/r2 ]"
"$SWVERIFY" client --connect "127.0.0.1:$p2" --mode recv --bytes 8M --timeout 30 \
	>"$T/c2.json" || fail "through the port to 10.0.2.50: $(cat "$T/c2.json")"
wait "$gpid" || fail "guest server on 10.0.2.50"
# UDP: the guest echoes a datagram back, reversed
g "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 5353)); open(sys.argv[1], "w").close()
s.settimeout(10)
d, a = s.recvfrom(2048); s.sendto(d[::-1], a)' "$T/ur" &
upid=$!
PIDS+=($upid)
wait_for "guest UDP server" 10 "[ -e $T/ur ]"
got=$("$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
s.sendto(b"slipway-udp-0123456789", ("127.0.0.1", int(sys.argv[1])))
print(s.recv(2048).decode())' "$pu") || fail "no UDP reply through the published port"
[ "$got" = "9876543210-pdu-yawpils" ] || fail "UDP reply '$got'"
wait "$upid" || fail "guest UDP server"

# remove: the port is gone, the other stays
r=$(api "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":$id1}}")
[ "$r" = '{"return":{}}' ] || fail "remove_hostfwd replied $r"
err=$("$PY" -c '
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3); print("connected")
except OSError as e:
    print(type(e).__name__)' "$p1")
[ "$err" = ConnectionRefusedError ] || fail "removed port: expected ConnectionRefusedError, got $err"
expect_err "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":$id1}}" "no forward"
list=$(api '{"execute":"list_hostfwd"}')
"$PY" -c 'import json,sys; d=json.loads(sys.argv[1])["return"]["entries"]; sys.exit(0 if [e["id"] for e in d]==[2,3] else 1)' "$list" ||
	fail "list after remove: $list"
# the freed host port can be published again, and works
expect_id "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$p1,\"guest_addr\":\"\",\"guest_port\":8003}}"
id4=$ID
[ "$id4" = 4 ] || fail "id after remove: $id4, expected 4"
xfer_pub_send "$p1" 8003 1M

# the control thread: the API socket is served by the thread named
# slipway-ctl, from an epoll set that holds neither the tap nor the signalfd
# (shard 0's set holds both)
"$PY" "$(dirname "$0")/ctl_thread.py" "$SW_PID" "$API" 1 ||
	fail "the API socket is not served by the control thread"
# a client that sends half a request and stalls holds up no other: an
# add_hostfwd and a remove_hostfwd are answered meanwhile; released, it
# sends the rest and is answered too
"$PY" - "$API" "$T/stalled" >"$T/stalled.out" <<'EOS' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(b'{"execute":"list_')
open(sys.argv[2], "w").close()
# stalled until the test is done with it
for i in range(1200):
    if os.path.exists(sys.argv[2] + ".end"):
        break
    time.sleep(0.05)
s.sendall(b'hostfwd"}')
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
print(out.decode())
EOS
STALL=$!
PIDS+=("$STALL")
wait_for "stalled API client" 10 "[ -e $T/stalled ]"
p5=$(free_port)
expect_id "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$p5,\"guest_port\":8005}}"
[ "$ID" = 5 ] || fail "id beside a stalled client: $ID, expected 5"
r=$(api '{"execute":"remove_hostfwd","arguments":{"id":5}}')
[ "$r" = '{"return":{}}' ] || fail "remove_hostfwd beside a stalled client replied $r"
kill -0 "$STALL" 2>/dev/null || fail "the stalled client ended before the other requests were answered"
touch "$T/stalled.end"
wait "$STALL" || fail "the stalled client got no reply once it sent the rest"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["return"]["entries"]; sys.exit(0 if [e["id"] for e in d]==[2,3,4] else 1)' "$T/stalled.out" ||
	fail "the stalled client's list: $(cat "$T/stalled.out")"

# a port below 1024: slipway keeps CAP_NET_BIND_SERVICE in its sandbox, as
# slirp4netns --enable-sandbox does (unless any port is unprivileged here)
if [ "$(sysctl -n net.ipv4.ip_unprivileged_port_start)" -gt 600 ]; then
	lowp=$("$PY" -c '
import socket
for p in range(1023, 600, -1):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        s.close()')
	expect_id "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":$lowp,\"guest_port\":8006}}"
	ss -Hltn "sport = :$lowp" | grep -q LISTEN || fail "privileged port $lowp: not listening"
	r=$(api "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":$ID}}")
	[ "$r" = '{"return":{}}' ] || fail "remove_hostfwd of port $lowp replied $r"
fi

# the counters: on SIGUSR1 only (standard error, which podman and
# rootlesskit log), not again at exit
kill -USR1 "$SW_PID"
wait_for "the counters on SIGUSR1" 10 "grep -q '\"counters\"' $T/slipway.log"
grep '"counters"' "$T/slipway.log" | tail -1 >"$T/stats.json"

# the exit fd: its writer goes, slipway exits 0 and removes its socket
kill "$writer"
for i in $(seq 60); do
	kill -0 "$SW_PID" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$SW_PID" 2>/dev/null && fail "slipway did not exit on EOF of the exit fd"
wait "$SW_PID"
rc=$?
[ "$rc" = 0 ] || fail "slipway exited $rc"
[ -e "$API" ] && fail "the API socket is still there"
n=$(grep -c '"counters"' "$T/slipway.log")
[ "$n" = 1 ] || fail "counters written $n times, expected once (SIGUSR1), none at exit"
check_gates
expect_ctr TCP_FLOWS_OPENED_HOST -eq 3
# what went to the guest once: a probe may resend a segment on a busy
# machine (TCP_PTO_FIRED), which TCP_TX_BYTES counts again
[ $(($(ctr TCP_TX_BYTES) - $(ctr TCP_RETRANS_BYTES))) -eq $((9 << 20)) ] ||
	fail "TCP_TX_BYTES less TCP_RETRANS_BYTES is not 9 MiB"
expect_ctr TCP_GUEST_BYTES -eq $((8 << 20))
expect_ctr UDP_TO_GUEST -eq 1

# without -c, with --disable-host-loopback: DHCP leases .15 (libslirp's
# first address; -c configures .100), and the gateway answers TCP and UDP
# with ICMP net unreachable (ENETUNREACH), as libslirp does, not a reset
NS2=${NS}b
make_ns "$NS2"
"$S4N" --disable-host-loopback --netns-type=path "/run/netns/$NS2" tap0 \
	-r 4 4>"$T/ready2" >"$T/slipway.log" 2>&1 &
SW2=$!
PIDS+=($SW2)
wait_for "the second ready fd" 10 "[ -s $T/ready2 ]"
cat >"$T/udhcpc.sh" <<EOS
#!/bin/sh
case "\$1" in
bound) ip addr add "\$ip/\$mask" dev "\$interface"; echo "\$ip" >"$T/lease" ;;
esac
exit 0
EOS
chmod 755 "$T/udhcpc.sh"
ip netns exec "$NS2" ip link set lo up
ip netns exec "$NS2" ip link set tap0 up
ip netns exec "$NS2" busybox udhcpc -i tap0 -n -q -f -t 5 -T 1 -a \
	-s "$T/udhcpc.sh" >"$T/udhcpc.log" 2>&1 ||
	fail "udhcpc got no lease: $(cat "$T/udhcpc.log")"
[ "$(cat "$T/lease")" = 10.0.2.15 ] || fail "DHCP leased $(cat "$T/lease"), expected 10.0.2.15"
lp=$(free_port)
got=$(ip netns exec "$NS2" "$PY" -c '
import errno, socket, sys
port = int(sys.argv[1])
out = []
try:
    socket.create_connection(("10.0.2.2", port), timeout=5); out.append("connected")
except OSError as e:
    out.append(errno.errorcode.get(e.errno, str(e)))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
u.setsockopt(socket.IPPROTO_IP, 11, 1)  # IP_RECVERR: net unreachable is no hard error
u.connect(("10.0.2.2", port)); u.send(b"x")
try:
    u.recv(100); out.append("answered")
except OSError as e:
    out.append(errno.errorcode.get(e.errno, str(e)))
print(" ".join(out))' "$lp")
[ "$got" = "ENETUNREACH ENETUNREACH" ] ||
	fail "--disable-host-loopback: TCP and UDP to 10.0.2.2 got '$got', expected ENETUNREACH ENETUNREACH"
kill "$SW2"
wait "$SW2"
grep -q '"counters"' "$T/slipway.log" && fail "counters written to standard error at exit"

# -c in a namespace that has a default route: slirp4netns's ioctl adds its
# own beside it (first), where "ip route add" would refuse
NS3=${NS}c
make_ns "$NS3"
ip -n "$NS3" link add d0 type veth peer name d0p || fail "veth in $NS3"
ip -n "$NS3" addr add 192.168.77.1/24 dev d0
ip -n "$NS3" link set d0 up
ip -n "$NS3" link set d0p up
ip -n "$NS3" route add default via 192.168.77.2 dev d0 || fail "default route in $NS3"
"$S4N" -c --netns-type=path "/run/netns/$NS3" tap0 -r 4 4>"$T/ready3" \
	>"$T/slipway.log" 2>&1 &
SW3=$!
PIDS+=($SW3)
wait_for "the third ready fd (or its exit)" 10 "[ -s $T/ready3 ] || ! kill -0 $SW3 2>/dev/null"
[ -s "$T/ready3" ] || fail "-c with a default route in the namespace: $(cat "$T/slipway.log")"
ip -n "$NS3" route show default | head -1 | grep -q "default via 10.0.2.2 dev tap0" ||
	fail "-c: default routes: $(ip -n "$NS3" route show default)"
ip -n "$NS3" route show default | grep -q "via 192.168.77.2" ||
	fail "-c: the namespace's own default route is gone"
kill "$SW3"
wait "$SW3"
pass "slirp4netns API: add/list/remove with verified TCP and UDP transfers, explicit guest address, 16 error replies (5 in slirp4netns's words), a port below 1024, served by slipway-ctl beside a stalled client, exit fd, counters only on SIGUSR1; DHCP .15; ICMP net unreachable from the gateway with --disable-host-loopback; -c beside a default route"
