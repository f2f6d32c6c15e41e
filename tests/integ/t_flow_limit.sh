#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_flow_limit.sh - a guest that opens more flows than the table holds gets
# counted RSTs for the excess; the flows inside the limit keep working and
# new flows work again once old ones close
. "$(dirname "$0")/lib.sh"
require_root
start_slipway --max-flows 16
echo_server

# 40 idle connections held open from the guest
guest_hold 40 1 end >"$T/hold.out" 2>&1 &
hold=$!
wait "$hold" || fail "holder failed: $(cat "$T/hold.out")"
read -r nok nref <"$T/hold.out"
[ "$nok" -ge 10 ] && [ "$nok" -le 16 ] || fail "$nok connections succeeded, expected at most 16"
[ $((nok + nref)) = 40 ] || fail "accounting: $nok + $nref != 40"
sleep 0.5
# after they closed, the table has room again: 30 flows one after another
g "$PY" - "$ECHO_PORT" <<'EOS' || fail "flows after the burst failed"
import socket, sys
for i in range(30):
    s = socket.create_connection(("10.0.2.2", int(sys.argv[1])), timeout=5)
    s.sendall(b"again\n")
    assert s.recv(16) == b"again\n"
    s.close()
EOS
sleep 0.3
stop_slipway
check_gates
expect_ctr TCP_FLOWS_TABLE_FULL -ge 1
pass "$nok of 40 flows admitted with --max-flows 16, $nref refused with RST, table reusable"
