#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_podman.sh - rootless podman 5 (user rl) with its default pasta network:
# TCP both ways with checksummed data (container -> host loopback through
# "-T", over IPv4 and IPv6; host -> container through -p on 127.0.0.1, ::1
# and on the host's own non-loopback address), UDP host -> container, DNS
# through pasta's forwarder to a fake resolver on the host's loopback,
# pasta options from --network pasta:... (MTU, -t auto), podman info's
# pasta, the container's default routes (the host's, no RA-learned one),
# a network made with "podman network create"
# (pasta behind the rootless netns), and five containers in a row. Every
# step checks that the gateway running is the IMPL under test, and that it
# is gone once its containers are.
# shellcheck disable=SC2317 # helpers are called through wait_for
# shellcheck source=tests/clients/lib.sh
. /src/tests/clients/lib.sh

command -v podman >/dev/null || skip "no podman in the root"
export PODMAN_IGNORE_CGROUPSV1_WARNING=1

# This host: cgroup v1/v2 hybrid, no systemd; crun refuses the hybrid.
mkdir -p "$RL_HOME"/.config/containers
{
	echo '[engine]'
	echo 'runtime = "runc"'
	echo 'cgroup_manager = "cgroupfs"'
	echo 'events_logger = "file"'
	# The one line that points podman at slipway. It must keep podman's
	# own default directories: the key replaces the list, and podman looks
	# for netavark, rootlessport and catatonit there too (with the slipway
	# directory alone: 'could not find "netavark" in one of
	# [/usr/libexec/slipway]').
	[ "$IMPL" = slipway ] &&
		echo 'helper_binaries_dir = ["/usr/libexec/slipway", "/usr/local/libexec/podman", "/usr/local/lib/podman", "/usr/libexec/podman", "/usr/lib/podman"]'
} >"$RL_HOME"/.config/containers/containers.conf
chown -R rl: "$RL_HOME"/.config
log "containers.conf: $(tr '\n' ' ' <"$RL_HOME"/.config/containers/containers.conf)"

P() {
	as_rl env PODMAN_IGNORE_CGROUPSV1_WARNING=1 podman "$@"
}
at_exit "P rm -a -f -t 0; P network rm -f slwnet"

# The resolver pasta forwards to: the only nameserver of this root.
fake_dns 127.0.0.21
H4=$(host_addr4)
log "host non-loopback address: ${H4:-none}"

bb_image localhost/bb

# podman info runs "pasta --version" and reports it (Debian 13's pasta
# prints nothing there, so only slipway's answer is checked)
pv=$(P info --format '{{.Host.Pasta.Executable}} {{.Host.Pasta.Version}}' 2>&1 | head -1)
log "podman info: pasta: $pv"
if [ "$IMPL" = slipway ]; then
	case "$pv" in
	/usr/libexec/slipway/pasta\ *slipway*) ;;
	*) fail "podman info reports pasta '$pv', want slipway's" ;;
	esac
fi

X=$W/x # the containers' /x
mkdir -p "$X"
SZ=4194304
sum_a=$(mkdata "$W/a" $SZ)   # container -> host, container connects
sum_b=$(mkdata "$W/b" $SZ)   # host -> container, host connects to 127.0.0.1
sum_c=$(mkdata "$X/c" $SZ)   # container -> host, host connects to $H4
cp "$W/a" "$X/a"
sum_d=$(mkdata "$W/d" 1048576)   # host -> container, host connects to ::1
sum_e=$(mkdata "$X/e" 1048576)   # container -> host ::1, container connects
head -c 1200 /dev/urandom >"$W/u"
sum_u=$(sha "$W/u")
chown -R rl: "$X"

# ctr_listens CONTAINER PORT... - each PORT has a TCP or UDP listener in
# CONTAINER.
ctr_listens() {
	local c=$1 p n
	shift
	n=$(P exec "$c" netstat -ltun 2>/dev/null) || return 1
	for p in "$@"; do
		echo "$n" | grep -q ":$p " || return 1
	done
}

# ---- the main container: default pasta network plus -T and -p ----------
pub=(-p 127.0.0.1:18080:8080 -p 127.0.0.1:18082:8082/udp -p '[::1]:18083:8083')
[ -n "$H4" ] && pub+=(-p "$H4:18081:8081")
P run -d --name main --network pasta:-T,18101,-T,18104 "${pub[@]}" -v "$X:/x" localhost/bb sh -c '
	socat -u TCP-LISTEN:8080,reuseaddr OPEN:/x/b.recv,creat &
	socat -u TCP6-LISTEN:8083,reuseaddr OPEN:/x/d.recv,creat &
	socat -u OPEN:/x/c TCP-LISTEN:8081,reuseaddr &
	socat -u UDP-RECV:8082 OPEN:/x/u.recv,creat,append &
	exec sleep 600' >/dev/null || fail "podman run (main) failed"
check_gw "main container"

mtu=$(P exec main cat /sys/class/net/eth0/mtu)
[ "$mtu" = 65520 ] || fail "main container: eth0 MTU $mtu, want pasta's default 65520"
if [ -n "$H4" ]; then
	P exec main ip -4 addr show eth0 | grep -q "inet $H4/" ||
		fail "main container: eth0 lacks the host's address $H4: $(P exec main ip -4 addr show eth0)"
fi
wait_for 10 ctr_listens main 8080 8081 8082 8083 || fail "the container's listeners did not start"

# container -> host loopback (pasta -T 18101: the container's 127.0.0.1:18101
# is the host's)
bg socat -u TCP-LISTEN:18101,bind=127.0.0.1,reuseaddr OPEN:"$W/a.recv",creat
wait_for 5 tcp_listening 127.0.0.1 18101 || fail "host server on 18101 did not start"
P exec main socat -u OPEN:/x/a TCP:127.0.0.1:18101 || fail "container -> host 127.0.0.1:18101 (-T): connect/send failed"
wait_for 10 size_is "$W/a.recv" $SZ || fail "container -> host: $(stat -c %s "$W/a.recv") of $SZ bytes arrived"
[ "$(sha "$W/a.recv")" = "$sum_a" ] || fail "container -> host: data differs"
log "ok: container -> host loopback, $SZ bytes"

# container -> host ::1 (pasta -T 18104)
bg socat -u "TCP6-LISTEN:18104,bind=[::1],reuseaddr" OPEN:"$W/e.recv",creat
wait_for 5 tcp_listening '[::1]' 18104 || fail "host server on [::1]:18104 did not start"
P exec main socat -u OPEN:/x/e "TCP6:[::1]:18104" || fail "container -> host [::1]:18104 (-T): connect/send failed"
wait_for 10 size_is "$W/e.recv" 1048576 || fail "container -> host ::1: $(stat -c %s "$W/e.recv") of 1048576 bytes arrived"
[ "$(sha "$W/e.recv")" = "$sum_e" ] || fail "container -> host ::1: data differs"
log "ok: container -> host ::1, 1048576 bytes"

# host [::1]:18083 -> container 8083
socat -u OPEN:"$W/d" "TCP6:[::1]:18083" || fail "host -> container [::1]:18083: connect/send failed"
wait_for 10 size_is "$X/d.recv" 1048576 || fail "host -> container (::1): $(stat -c %s "$X/d.recv") of 1048576 bytes arrived"
[ "$(sha "$X/d.recv")" = "$sum_d" ] || fail "host -> container (::1): data differs"
log "ok: host ::1 -> container, 1048576 bytes"

# host 127.0.0.1:18080 -> container 8080
socat -u OPEN:"$W/b" TCP:127.0.0.1:18080 || fail "host -> container 127.0.0.1:18080: connect/send failed"
wait_for 10 size_is "$X/b.recv" $SZ || fail "host -> container (127.0.0.1): $(stat -c %s "$X/b.recv") of $SZ bytes arrived"
[ "$(sha "$X/b.recv")" = "$sum_b" ] || fail "host -> container (127.0.0.1): data differs"
log "ok: host 127.0.0.1 -> container, $SZ bytes"

# host $H4:18081 -> container 8081, data back to the host
if [ -n "$H4" ]; then
	timeout 20 socat -u TCP:"$H4":18081 OPEN:"$W/c.recv",creat || fail "host $H4:18081 -> container: connect/receive failed"
	size_is "$W/c.recv" $SZ || fail "host $H4 -> container: $(stat -c %s "$W/c.recv") of $SZ bytes came back"
	[ "$(sha "$W/c.recv")" = "$sum_c" ] || fail "host $H4 -> container: data differs"
	log "ok: host $H4 -> container, $SZ bytes back"
fi

# UDP host 127.0.0.1:18082 -> container 8082 (resent while nothing came)
for _ in 1 2 3 4 5; do
	socat -u OPEN:"$W/u" UDP-SENDTO:127.0.0.1:18082
	wait_for 1 test -s "$X/u.recv" && break
done
[ -s "$X/u.recv" ] || fail "UDP host -> container: nothing arrived"
[ "$(head -c 1200 "$X/u.recv" | sha256sum | cut -d' ' -f1)" = "$sum_u" ] || fail "UDP host -> container: datagram differs"
log "ok: UDP host -> container"

# DNS: the container's resolver is pasta's forwarder, which asks ours
out=$(P exec main nslookup plain.test 2>&1)
echo "$out" | grep -q '10\.9\.8\.7' || fail "DNS in the container: plain.test did not resolve to 10.9.8.7: $out"
grep -q " plain$" "$W/dns.log" || fail "DNS: the fake resolver saw no query"
log "ok: DNS through the gateway's forwarder"

# Routes: the container's default gateways are the host's, for both
# families (as podman's own tests check). pasta's --config-net implies
# --no-ra, so no router advertisement adds another IPv6 default route.
routes_ok=1
for fam in 4 6; do
	want=$(ip -$fam route show default | awk '{print $3}' | sort | tr '\n' ' ')
	got=$(P exec main ip -$fam route show default | awk '{print $3}' | sort | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		fail_later "IPv$fam default gateways in the container: '$got', the host's: '$want' ($(P exec main ip -$fam route show default | tr '\n' ';'))"
		routes_ok=0
	fi
done
[ $routes_ok = 1 ] && log "ok: the container's default routes are the host's"

P rm -f -t 0 main >/dev/null || fail "podman rm main failed"
gw_gone "after the main container"

# ---- option passing: --network pasta:--mtu,1400,-t,auto -----------------
# -t auto: a port the container binds later is forwarded from the host.
P run -d --name opts --network pasta:--mtu,1400,-t,auto -v "$X:/x" localhost/bb sh -c '
	sleep 1; socat -u OPEN:/x/c TCP-LISTEN:18110,reuseaddr &
	exec sleep 600' >/dev/null || fail "podman run (opts) failed"
check_gw "pasta:--mtu,1400,-t,auto container"
mtu=$(P exec opts cat /sys/class/net/eth0/mtu)
[ "$mtu" = 1400 ] || fail "--network pasta:--mtu,1400: eth0 MTU is $mtu"
log "ok: pasta option --mtu 1400 reached the container"
wait_for 15 port_listening 18110 || fail "-t auto: the container's port 18110 did not appear on the host"
timeout 20 socat -u TCP:127.0.0.1:18110 OPEN:"$W/auto.recv",creat || fail "-t auto: host -> container 18110 failed"
[ "$(sha "$W/auto.recv")" = "$sum_c" ] || fail "-t auto: data differs ($(stat -c %s "$W/auto.recv") bytes)"
log "ok: pasta option -t auto forwards a port bound later, $SZ bytes"
P rm -f -t 0 opts >/dev/null
gw_gone "after the opts container"

# ---- a network of its own (pasta serves podman's rootless netns) --------
P network create slwnet >/dev/null || fail "podman network create failed"
P run -d --name cn --network slwnet -p 127.0.0.1:18090:8090 -v "$X:/x" localhost/bb sh -c '
	socat -u OPEN:/x/c TCP-LISTEN:8090,reuseaddr &
	exec sleep 600' >/dev/null || fail "podman run --network slwnet failed"
check_gw "custom network container"
P exec cn ip -4 addr show eth0 | grep -q 'inet 10\.' || fail "custom network: no 10.x address: $(P exec cn ip -4 addr show eth0)"
wait_for 10 ctr_listens cn 8090 || fail "custom network: listener did not start"
timeout 20 socat -u TCP:127.0.0.1:18090 OPEN:"$W/cn.recv",creat || fail "custom network: host -> container 18090 failed"
[ "$(sha "$W/cn.recv")" = "$sum_c" ] || fail "custom network: host -> container: data differs ($(stat -c %s "$W/cn.recv") bytes)"
# DNS from the container: aardvark-dns -> the gateway's forwarder -> ours
out=$(P exec cn nslookup plain.test 2>&1)
echo "$out" | grep -q '10\.9\.8\.7' || fail "custom network: DNS plain.test did not resolve: $out"
log "ok: custom network: gateway, published port, DNS"
P rm -f -t 0 cn >/dev/null
P network rm -f slwnet >/dev/null
gw_gone "after the custom network container"

# ---- five containers in a row, each reaching the host -------------------
bg socat -u TCP-LISTEN:18102,bind=127.0.0.1,reuseaddr,fork OPEN:"$W/row.recv",creat,append
wait_for 5 tcp_listening 127.0.0.1 18102 || fail "host server on 18102 did not start"
for i in 1 2 3 4 5; do
	P run --rm --network pasta:-T,18102 localhost/bb sh -c "echo row-$i | socat -u STDIN TCP:127.0.0.1:18102" ||
		fail "container $i of 5 failed"
	wait_for 5 grep -q "^row-$i\$" "$W/row.recv" || fail "container $i of 5: its line did not arrive"
done
[ "$(tr '\n' ' ' <"$W/row.recv")" = "row-1 row-2 row-3 row-4 row-5 " ] || fail "five containers: got $(cat "$W/row.recv")"
gw_gone "after five containers"
log "ok: five containers in a row"
finish
