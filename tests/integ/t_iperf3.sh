#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_iperf3.sh - iperf3 both directions between the guest and a host
# loopback server through 10.0.2.2; slipway's counters must account for
# the bytes iperf3 reports
. "$(dirname "$0")/lib.sh"
require_root
p=$(free_port)
bg iperf3 -s -B 127.0.0.1 -p "$p"
wait_listen "$p"
start_slipway
g iperf3 -c 10.0.2.2 -p "$p" -t 2 -J >"$T/up.json" || fail "iperf3 guest->host"
g iperf3 -c 10.0.2.2 -p "$p" -t 2 -R -J >"$T/down.json" || fail "iperf3 host->guest"
# 16 flows toward the guest: the guest's ACKs must not overflow the tap's
# queue toward slipway (they did at the default txqueuelen of 1000)
g iperf3 -c 10.0.2.2 -p "$p" -t 2 -P 16 -R -J >"$T/p16.json" || fail "iperf3 -P 16 -R"
for st in tx_dropped rx_dropped tx_errors rx_errors; do
	v=$(g cat "/sys/class/net/tap0/statistics/$st")
	[ "$v" = 0 ] || fail "guest tap0 $st = $v"
done
stop_slipway
check_gates
up=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(d["end"]["sum_received"]["bytes"]))' "$T/up.json")
down=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(d["end"]["sum_received"]["bytes"]))' "$T/down.json")
[ "$up" -gt 0 ] && [ "$down" -gt 0 ] || fail "iperf3 moved nothing"
expect_ctr TCP_GUEST_BYTES -ge "$up"
expect_ctr TCP_ACKED_BYTES -ge "$down"
upg=$("$PY" -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]/1e9,2))' "$T/up.json")
dng=$("$PY" -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]/1e9,2))' "$T/down.json")
pass "iperf3 guest->host $upg Gbit/s, host->guest $dng Gbit/s (not a benchmark)"
