#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_kill.sh - peers vanish mid-transfer: the host peer closes while the
# guest sends, the host sender is killed, the guest receiver is killed.
# Each flow must end (reset or short stream seen by the survivor), nothing
# may hang, and the flow table must be empty afterwards.
. "$(dirname "$0")/lib.sh"
require_root
REPEAT=${REPEAT:-3}
start_slipway
fd0=$(sw_fds)

for r in $(seq "$REPEAT"); do
	# 1. host peer reads 1 MiB then closes with unread data (RST)
	p=$(free_port)
	bg "$PY" -c '
import socket, sys
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", int(sys.argv[1]))); l.listen(1)
open(sys.argv[2], "w").close()
c, _ = l.accept(); n = 0
while n < (1 << 20):
    d = c.recv(65536)
    if not d: break
    n += len(d)
c.close()
' "$p" "$T/ready$r"
	wait_for "closing server" 10 "[ -e $T/ready$r ]"
	if g timeout 30 "$SWVERIFY" client --connect "10.0.2.2:$p" --mode send \
		--bytes 1G --timeout 25 >"$T/k1" 2>"$T/k1.err"; then
		fail "guest send succeeded although the host peer closed"
	fi
	grep -qi "reset\|broken pipe" "$T/k1.err" ||
		fail "guest sender did not see a reset: $(cat "$T/k1.err")"

	# 2. host sender killed mid-transfer: the guest sees a short stream
	p=$(free_port)
	host_server "$p" "$T/s$r" --mode send --bytes 4G
	spid=$LASTPID
	g timeout 30 "$SWVERIFY" client --connect "10.0.2.2:$p" --mode recv \
		--bytes 4G --timeout 25 >"$T/k2" 2>"$T/k2.err" &
	cpid=$!
	sleep 0.3
	kill -KILL "$spid"
	wait "$cpid" && fail "guest receive succeeded although the sender died"
	grep -qi "short\|expected\|reset\|bytes" "$T/k2.err" ||
		fail "guest receiver error unclear: $(cat "$T/k2.err")"

	# 3. guest receiver killed mid-transfer: the host sender sees a reset
	p=$(free_port)
	host_server "$p" "$T/g$r" --mode send --bytes 4G
	spid=$LASTPID
	guest_client "10.0.2.2:$p" --mode recv --bytes 4G --timeout 25
	cpid=$LASTPID
	sleep 0.3
	kill -KILL "$cpid"
	wait "$spid" && fail "host sender succeeded although the guest died"
done

# every flow is gone: the table is empty while slipway still runs
sleep 0.5
kill -USR1 "$SW_PID"
wait_for "stats on SIGUSR1" 5 "[ -s $T/stats.json ]"
sleep 0.2
expect_ctr TCP_FLOWS_ACTIVE -eq 0
expect_fds_back "$fd0"
stop_slipway
check_gates
expect_ctr TCP_FLOWS_RESET_BY_HOST -ge "$REPEAT"
expect_ctr TCP_FLOWS_RESET_BY_GUEST -ge "$REPEAT"
pass "$REPEAT rounds of host close, host kill, guest kill: all flows ended"
