#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_rootlesskit.sh - RootlessKit 2 with --net=pasta as user rl, the way
# dockerd-rootless.sh and containerd-rootless.sh start it, twice:
#  1. --port-driver=implicit --disable-host-loopback --copy-up=/etc
#     --copy-up=/run --propagation=rslave: the child reaches a host
#     loopback server at its own 127.0.0.1 (pasta's -T auto), and a port
#     the child binds is published on the host (-t auto);
#  2. --port-driver=none, host loopback allowed: the child reaches the
#     host's loopback at the gateway 10.0.2.2. (RootlessKit 2.0 refuses
#     the builtin port driver with pasta: 'network "pasta" requires port
#     driver "none" or "implicit"'.)
#  3. as 1, with --detach-netns: the child enters the detached netns.
# Both times the child resolves a name through the gateway's DNS forwarder
# (10.0.2.3) to a fake resolver on the host's loopback. Data is checksummed; the gateway running must be the IMPL under test,
# and it must be gone when rootlesskit is. With IMPL=slipway the pointer
# is PATH=/usr/libexec/slipway:$PATH.
# shellcheck disable=SC2317 # helpers are called through wait_for
# shellcheck source=tests/clients/lib.sh
. /src/tests/clients/lib.sh

command -v rootlesskit >/dev/null || skip "no rootlesskit in the root"
if [ "$IMPL" = slipway ]; then
	export RL_PATH=/usr/libexec/slipway:/usr/local/bin:/usr/bin:/bin
fi
log "rl's PATH: ${RL_PATH:-default}; rootlesskit $(rootlesskit --version 2>&1 | head -1)"

SZ=4194304
sum_a=$(mkdata "$W/a" $SZ) # child -> host
sum_b=$(mkdata "$W/b" $SZ) # host -> child
chown -R rl: "$W"

# The resolver the gateway forwards 10.0.2.3 to: the only one of this root.
fake_dns 127.0.0.21

# The child: report its view, listen on PORT for the host's data, send
# "a" to the host's loopback server at ADDR:18101, wait for the host.
cat >"$W/kid.sh" <<'CHILD'
#!/bin/bash
W=$1 ADDR=$2 PORT=$3
exec 2>"$W/child.err"
ip -4 addr show tap0 >"$W/child.addr"
# (not /sys: with --detach-netns, /sys shows the host netns)
ip -o link show tap0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p' >"$W/child.mtu"
busybox nslookup plain.test 10.0.2.3 >"$W/child.dns" 2>&1
socat -u TCP-LISTEN:$PORT,reuseaddr OPEN:"$W/b.recv",creat &
touch "$W/child.listening"
timeout 20 socat -u OPEN:"$W/a" TCP:$ADDR:18101,retry=20,interval=0.5 && touch "$W/child.sent"
for _ in $(seq 300); do
	[ -f "$W/host.done" ] && exit 0
	sleep 0.1
done
exit 3
CHILD
chmod 755 "$W/kid.sh"

# one_run NAME CHILD_ADDR CHILD_PORT HOST_PORT ROOTLESSKIT_FLAGS...
# HOST_PORT "-": no port is published, the host -> child step is left out.
one_run() {
	local name=$1 addr=$2 cport=$3 hport=$4 rk
	shift 4
	rm -f "$W"/child.* "$W"/host.done "$W"/a.recv "$W"/b.recv
	bg socat -u TCP-LISTEN:18101,bind=127.0.0.1,reuseaddr OPEN:"$W/a.recv",creat
	local srv=$BG_PID
	wait_for 5 tcp_listening 127.0.0.1 18101 || fail "$name: host server on 18101 did not start"
	local kid=("$W/kid.sh" "$W" "$addr" "$cport")
	if [ "${DETACH:-}" = 1 ]; then
		# shellcheck disable=SC2016 # expanded by the child
		kid=(sh -c 'exec nsenter --net="$ROOTLESSKIT_STATE_DIR/netns" "$@"' kid "${kid[@]}")
	fi
	as_rl rootlesskit --state-dir="$W/rk-$name" --net=pasta --mtu=65520 "$@" \
		"${kid[@]}" >"$W/rk-$name.log" 2>&1 &
	rk=$!
	at_exit "kill $rk"
	wait_for 20 test -f "$W/child.listening" ||
		fail "$name: the child did not start: $(cat "$W/rk-$name.log" "$W/child.err" 2>/dev/null)"
	check_gw "$name"
	grep -q 'inet 10\.0\.2\.100/24' "$W/child.addr" || fail "$name: tap0 in the child: $(cat "$W/child.addr")"
	[ "$(cat "$W/child.mtu")" = 65520 ] || fail "$name: tap0 MTU $(cat "$W/child.mtu"), want 65520"
	wait_for 10 grep -q '10\.9\.8\.7' "$W/child.dns" ||
		fail "$name: DNS in the child (10.0.2.3) did not answer plain.test: $(cat "$W/child.dns")"
	log "ok: $name: DNS through the gateway's forwarder"

	# child -> host loopback
	wait_for 25 test -f "$W/child.sent" ||
		fail "$name: the child could not send to $addr:18101: $(cat "$W/child.err")"
	wait_for 10 size_is "$W/a.recv" $SZ || fail "$name: child -> host: $(stat -c %s "$W/a.recv") of $SZ bytes arrived"
	[ "$(sha "$W/a.recv")" = "$sum_a" ] || fail "$name: child -> host: data differs"
	log "ok: $name: child -> host loopback ($addr:18101), $SZ bytes"
	kill "$srv" 2>/dev/null

	# host -> child through the published port
	if [ "$hport" != - ]; then
		wait_for 10 port_listening "$hport" || fail "$name: port $hport is not published on the host"
		timeout 20 socat -u OPEN:"$W/b" TCP:127.0.0.1:"$hport" || fail "$name: host -> child 127.0.0.1:$hport failed"
		wait_for 10 size_is "$W/b.recv" $SZ || fail "$name: host -> child: $(stat -c %s "$W/b.recv") of $SZ bytes arrived"
		[ "$(sha "$W/b.recv")" = "$sum_b" ] || fail "$name: host -> child: data differs"
		log "ok: $name: host 127.0.0.1:$hport -> child, $SZ bytes"
	fi

	touch "$W/host.done"
	local rc=0
	wait "$rk" || rc=$?
	[ $rc -eq 0 ] || fail "$name: rootlesskit exited $rc: $(tail -5 "$W/rk-$name.log")"
	gw_gone "$name: after rootlesskit exited"
}

# As dockerd-rootless.sh runs it with pasta (port driver implicit).
one_run implicit 127.0.0.1 18180 18180 \
	--port-driver=implicit --disable-host-loopback \
	--copy-up=/etc --copy-up=/run --propagation=rslave
# No port driver, host loopback at the gateway.
one_run none 10.0.2.2 8080 - \
	--port-driver=none --copy-up=/etc --copy-up=/run --propagation=rslave
# --detach-netns (containerd-rootless.sh's choice when RootlessKit has it):
# the child stays in the host's netns and enters the detached one, so the
# gateway gets --userns and --netns paths instead of a PID.
DETACH=1 one_run detach 127.0.0.1 18181 18181 \
	--port-driver=implicit --disable-host-loopback --detach-netns \
	--copy-up=/etc --copy-up=/run --propagation=rslave
exit 0
