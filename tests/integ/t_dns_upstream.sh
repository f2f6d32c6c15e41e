#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_dns_upstream.sh - the DNS forwarder against a hostile path to its
# upstream (dnsfake.py on 127.0.0.53 of a "host" namespace of our own):
# error replies without a question (REFUSED, NXDOMAIN, SERVFAIL) are
# dropped and the real answer that follows reaches the guest; forged
# answers with another ID, from another port or address, with another
# question, or sent to another of slipway's sockets are dropped, each
# counted; and the queries leave from many random source ports, none
# used for more than 16 queries (the socket pool is renewed).
. "$(dirname "$0")/lib.sh"
require_root

H="swh$$"
make_ns "$H"
ip -n "$H" link set lo up
h() { ip netns exec "$H" "$@"; }

UP=127.0.0.53
ALT=127.0.0.54
bg h "$PY" "$(dirname "$0")/dnsfake.py" "$UP" "$ALT" "$T/ports.log"
wait_for "fake upstream" 10 "h ss -Hlun 'sport = :53' | grep -q $UP"

echo "nameserver $UP" >"$T/resolv.conf"
start_slipway_in "$H"

# ask N NAME...: the guest asks 10.0.2.3 for each NAME, N times in turn,
# each after the previous answer; prints one "rcode address" line per
# query ("none" if no answer in 3 s, "dup" if a second answer came)
ask() {
	g "$PY" -c '
import os, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])):
    for name in sys.argv[2:]:
        qid = struct.unpack(">H", os.urandom(2))[0]
        q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
        for label in name.split("."):
            q += bytes([len(label)]) + label.encode()
        q += b"\0\0\1\0\1"
        s.sendto(q, ("10.0.2.3", 53))
        s.settimeout(3)
        try:
            r = s.recv(512)
        except socket.timeout:
            print("none")
            continue
        out = "%d %s" % (r[3] & 15, ".".join(map(str, r[-4:])))
        if struct.unpack(">H", r[:2])[0] != qid:
            out = "wrong-id"
        s.settimeout(0.3 if name.startswith(("noq", "spoof")) else 0.01)
        try:
            s.recv(512)
            out = "dup"
        except socket.timeout:
            pass
        print(out)
' "$@"
}

# six plain queries first: the forger below answers on every other socket
# of ours it has seen, and with one query seen the spoof could go out on
# that very socket (1 in 64: the drop count then fell short)
got=$(ask 6 plain.test | sort | uniq -c | awk '{print $1, $2, $3}')
[ "$got" = "6 0 10.9.8.7" ] || fail "plain queries: '$got'"
# question-less errors first: dropped, the real answer follows
got=$(ask 1 noq.test)
[ "$got" = "0 10.9.8.7" ] || fail "error replies without a question: the guest got '$got'"
# forged answers first: all dropped
got=$(ask 1 spoof.test)
[ "$got" = "0 10.9.8.7" ] || fail "forged answers: the guest got '$got'"

# source ports: 160 queries one after the other
n0=$(wc -l <"$T/ports.log")
out=$(ask 160 plain.test)
[ "$(echo "$out" | grep -cx "0 10.9.8.7")" = 160 ] ||
	fail "160 queries: $(echo "$out" | sort | uniq -c)"
tail -n +$((n0 + 1)) "$T/ports.log" | awk '$3 == "plain" {print $1}' >"$T/ports"
[ "$(wc -l <"$T/ports")" = 160 ] || fail "upstream saw $(wc -l <"$T/ports") queries, expected 160"
distinct=$(sort -u "$T/ports" | wc -l)
maxuse=$(sort "$T/ports" | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
[ "$distinct" -ge 10 ] || fail "160 queries came from $distinct source ports, expected 10 or more"
[ "$maxuse" -le 16 ] || fail "a source port carried $maxuse queries, expected 16 at most"

stop_slipway
check_gates
queries=$(ctr DNS_QUERIES)
[ "$queries" = 168 ] || fail "DNS_QUERIES $queries, expected 168"
expect_ctr DNS_REPLIES -eq 168
expect_ctr DNS_SERVFAIL -eq 0
expect_ctr DNS_TIMEOUTS -eq 0
# 3 without a question, 1 with another one
expect_ctr DNS_REPLY_DROP_QUESTION -eq 4
expect_ctr DNS_REPLY_DROP_ID -eq 1
# port 5353, address $ALT, and at least one other socket of ours
expect_ctr DNS_REPLY_DROP_SRC -ge 3
expect_ctr DNS_REPLY_DROP_BAD -eq 0
# 168 queries, at most 15 left on each of 8 sockets: 3 renewed at least
expect_ctr DNS_SOCK_RENEWED -ge 3
pass "question-less errors and forged answers dropped ($(ctr DNS_REPLY_DROP_SRC) from a wrong source), 160 queries from $distinct ports (at most $maxuse each), $(ctr DNS_SOCK_RENEWED) sockets renewed"
