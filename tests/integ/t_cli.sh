#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_cli.sh - --help lists the options; bad command lines exit 2 with a
# message that says what to do
. "$(dirname "$0")/lib.sh"

"$SLIPWAY" --help >"$T/help" || fail "--help exit status"
for o in --netns --tcp-ports --address --gateway --mtu --no-map-gw --no-config \
	--max-flows --shards --stats-file --ifname --cidr --userns --ack-every \
	--version --no-splice --tcp-ns-ports --ipv6-prefix --no-ipv6 --runas \
	--no-sandbox --seccomp-log --no-map-host-loopback --ctl --metrics \
	--pcap --pcap-max "slipway ctl" --impair --impair-seed --no-place; do
	grep -q -- "$o" "$T/help" || fail "--help does not mention $o"
done
"$SLIPWAY" --version | grep -q "^slipway " || fail "--version"

# every counter is documented in the man page's COUNTERS section
src=$(dirname "$0")/../..
n=0
for c in $(sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),.*/\1/p' "$src/src/util/ctr.h"); do
	sed -n '/^\.SH COUNTERS/,/^\.SH /p' "$src/man/slipway.1" | grep -qx "\.B $c" ||
		fail "counter $c is not in the man page's COUNTERS section"
	n=$((n + 1))
done
[ "$n" -gt 100 ] || fail "only $n counters found in ctr.h"

bad() {
	local want=$1
	shift
	"$SLIPWAY" "$@" >"$T/out" 2>"$T/err" </dev/null
	local rc=$?
	[ "$rc" = 2 ] || fail "'$*' exited $rc, expected 2"
	grep -qi -- "$want" "$T/err" || fail "'$*' said: $(cat "$T/err")"
	grep -q "slipway --help" "$T/err" || fail "'$*' does not point to --help"
}
bad "unknown option" --bogus
bad "bad --impair" --impair drop=5%
bad "bad --impair" --impair sideways:drop=5%
bad "bad --impair" --impair up:drop=101%
bad "bad --impair" --impair up:lose=5%
bad "bad --impair" --impair up:
bad "bad --impair" --impair up:delay=fast
bad "bad --impair-seed" --impair-seed x
bad "bad --runas" --runas no-such-user-here
bad "bad --runas" --runas nobody:no-such-group-here
bad "bad --runas" --runas ""
bad "bad --runas" --runas :0
bad "bad --runas" --runas nobody:
bad "needs a value" --runas
bad "cannot be combined with --no-sandbox" --no-sandbox --seccomp-log
bad "needs a path" --stats-file ""
bad "need --vhost-user" --migrate-to /tmp/sw-mig.sock
bad "need --vhost-user" --migrate-from /tmp/sw-mig.sock --stream /tmp/sw.sock
bad "the same socket" --vhost-user /tmp/sw.sock --migrate-to /tmp/m.sock --migrate-from /tmp/m.sock
bad "bad --migrate-to" --vhost-user /tmp/sw.sock --migrate-to ""
bad "need --vhost-user" --migrate-repair
bad "needs a value" --mtu
bad "bad MTU" --mtu 100
bad "bad MTU" --mtu 70000
bad "bad -t" -t 0
bad "bad -t" -t 70000
bad "bad -t" -t 10-5
bad "bad -t" -t 8080-8090:80
bad "bad -t" -t 300.1.1.1/80
bad "bad -t" -t abc
bad "bad address" -a 10.0.2
bad "gateway is not in" -a 10.0.2.15/24 -g 192.168.1.1
bad "bad --max-flows" --max-flows 0
bad "bad --shards" --shards 0
bad "expected 1 to 8" --shards 9
bad "cannot be combined" --netns foo -- true
bad "bad interface name" -I waytoolonginterfacename
bad "bad --ack-every" --ack-every -1
bad "bad --ack-every" --ack-every 1025
bad "bad --ack-every" --ack-every two
bad "needs a value" --ack-every
bad "bad -T" -T 127.0.0.1/8080
bad "bad -T" -T 0
bad "bad --ipv6-prefix" --ipv6-prefix fe80::/64
bad "bad --ipv6-prefix" --ipv6-prefix fd00::/48
bad "bad --ipv6-prefix" --ipv6-prefix fd00::1/64
bad "bad --ipv6-prefix" --ipv6-prefix ff02::/64
bad "bad --ipv6-prefix" --ipv6-prefix 10.0.2.0/24
bad "IPv6 needs an MTU" --mtu 1000 --ipv6-prefix fd00:1::/64
bad "one edge only" --vhost-user /tmp/x --stream /tmp/y
bad "one edge only" --dgram /tmp/x --fd 3
bad "bad socket path" --vhost-user ""
bad "bad socket path" --stream "$(printf '%0200d' 0)"
bad "bad --fd" --fd -1
bad "cannot be combined" --vhost-user /tmp/x --netns foo
bad "cannot be combined" --stream /tmp/x -- true
bad "-T needs a namespace" --vhost-user /tmp/x -T 8080
bad "one queue" --dgram /tmp/x --shards 2
bad "bad --ctl" --ctl ""
bad "bad --ctl" --ctl "$(printf '%0200d' 0)"
bad "needs a value" --ctl
bad "bad --metrics" --metrics 0
bad "bad --metrics" --metrics 70000
bad "bad --metrics" --metrics localhost:9100
bad "bad --metrics" --metrics 127.0.0.1:
bad "bad --metrics" --metrics "[::1:9100"
bad "bad --metrics" --metrics 1.2.3.4.5:80
bad "bad --pcap-max" --pcap-max 100
bad "bad --pcap-max" --pcap-max 10X
bad "bad --pcap-max" --pcap-max -5
bad "bad --pcap-max" --pcap-max 99999999999999999999G
bad "--pcap needs a file" --pcap ""
bad "cannot be the same path" --stream /tmp/x --ctl /tmp/x
bad "needs a socket PATH" ctl
bad "needs a socket PATH" ctl /tmp/x
bad "unknown command" ctl /tmp/x frobnicate
bad "takes no arguments" ctl /tmp/x stats now
bad "bad --limit" ctl /tmp/x flows --limit -1
bad "tcp or udp" ctl /tmp/x forwards add sctp 8080:80
bad "forwards remove: ID" ctl /tmp/x forwards remove abc
bad "forwards add tcp|udp" ctl /tmp/x forwards add tcp
bad "unknown option" ctl /tmp/x stats --bogus
# DHCP names: host name rules (RFC 952, 1123), an FQDN option 81 holds
bad "bad --hostname" --hostname "vm_1"
bad "bad --hostname" -H ""
bad "bad --hostname" --hostname "vm1."
bad "bad --hostname" --hostname "$(printf '%064d' 0)"
bad "bad --fqdn" --fqdn "-vm.example.org"
bad "bad --fqdn" --fqdn "vm-.example.org"
bad "bad --fqdn" --fqdn "vm..example.org"
bad "bad --fqdn" --fqdn "$(printf '%062d.%062d.%062d.%062d' 0 0 0 0)"
bad "needs a value" --fqdn
"$SLIPWAY" --fqdn "$(printf '%062d.%062d.%062d.%061d.' 0 0 0 0)" --bogus \
	>/dev/null 2>"$T/err"
grep -q "unknown option '--bogus'" "$T/err" ||
	fail "a 250-character --fqdn with its final dot was refused: $(cat "$T/err")"
# --print-capabilities: the vhost-user backend program conventions' JSON
# on standard output, exit 0, whatever else is on the command line
caps=$("$SLIPWAY" --bogus --mtu 1 --print-capabilities 2>"$T/err") ||
	fail "--print-capabilities exited $?: $(cat "$T/err")"
[ "$(printf '%s' "$caps" | python3 -c 'import json, sys; print(json.load(sys.stdin))')" = \
	"{'type': 'net'}" ] || fail "--print-capabilities printed '$caps'"
for o in --hostname --fqdn --print-capabilities; do
	grep -q -- "$o" "$T/help" || fail "--help does not mention $o"
done
n_bad=$(grep -c '^bad ' "$0")
for o in --vhost-user --stream --dgram --fd; do
	"$SLIPWAY" --help | grep -q -- "$o " || fail "--help does not list $o"
done
pass "help, version, $n counters documented and $n_bad bad command lines"
