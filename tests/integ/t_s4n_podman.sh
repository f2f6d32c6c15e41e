#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_s4n_podman.sh - podman (rootful, runc, cgroupfs, file events, storage
# and configuration in a temporary directory) runs a busybox container
# with --network slirp4netns:port_handler=slirp4netns,allow_host_loopback=true
# and network_cmd_path pointing at slipway named slirp4netns; bytes are
# compared both ways: host -> container through a published port, and
# container -> host loopback server through 10.0.2.2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/s4n_lib.sh"
require_root
for c in podman runc busybox curl; do
	command -v "$c" >/dev/null || { echo "SKIP: $c is not installed (tools/deps.sh installs it)"; exit 77; }
done
s4n_binary
CTR=s4ntest$$
cat >"$T/containers.conf" <<EOC
[containers]
netns = "slirp4netns"
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
network_cmd_path = "$S4N"
EOC
export CONTAINERS_CONF=$T/containers.conf
P=(podman --root "$T/storage" --runroot "$T/runroot" --storage-driver overlay
   --tmpdir "$T/ptmp")
podman_clean() {
	"${P[@]}" rm -f -t 0 "$CTR" >/dev/null 2>&1
	"${P[@]}" system reset -f >/dev/null 2>&1
	local m
	for m in $(awk -v t="$T" 'index($2, t) == 1 {print $2}' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	cleanup
}
trap podman_clean EXIT

# an image from the host's busybox, no registry
R=$T/rootfs
mkdir -p "$R"/{bin,etc,tmp,proc,sys,dev,root,out}
cp "$(command -v busybox)" "$R/bin/"
for a in $("$R/bin/busybox" --list); do
	[ -e "$R/bin/$a" ] || ln -s busybox "$R/bin/$a"
done
ln -s bin "$R/sbin"
echo 'root:x:0:0:root:/root:/bin/sh' >"$R/etc/passwd"
echo 'root:x:0:' >"$R/etc/group"
tar -C "$R" -c . | "${P[@]}" import - localhost/s4nbb >"$T/import.log" 2>&1 ||
	fail "podman import: $(cat "$T/import.log")"

# host loopback server (reached from the container as 10.0.2.2)
mkdir -p "$T/www" "$T/out"
head -c 1000000 /dev/urandom >"$T/www/host.bin"
hp=$(free_port)
bg busybox httpd -f -p "127.0.0.1:$hp" -h "$T/www"
wait_listen "$hp"
head -c 1000000 /dev/urandom >"$T/out/ctr.bin"
pub=$(free_port)

"${P[@]}" run -d --name "$CTR" \
	--network slirp4netns:port_handler=slirp4netns,allow_host_loopback=true \
	-p "127.0.0.1:$pub:8080" -v "$T/out:/out" localhost/s4nbb sh -c "
		mkdir -p /www; cp /out/ctr.bin /www/;
		httpd -p 8080 -h /www;
		printf 'GET /host.bin HTTP/1.0\r\n\r\n' | nc -w 5 10.0.2.2 $hp >/out/got.http;
		ip -4 addr show tap0 >/out/addr; touch /out/done; sleep 60" \
	>"$T/run.log" 2>&1 || fail "podman run: $(cat "$T/run.log")"

# host -> container through the published port (added over the API)
ok=0
for i in $(seq 100); do
	if curl -sS -m 5 -o "$T/got.bin" "http://127.0.0.1:$pub/ctr.bin" 2>/dev/null; then
		ok=1
		break
	fi
	sleep 0.1
done
[ "$ok" = 1 ] || fail "no answer through the published port: $("${P[@]}" logs "$CTR" 2>&1 | tail -5)"
cmp -s "$T/got.bin" "$T/out/ctr.bin" || fail "file through the published port differs"

# container -> host loopback through 10.0.2.2
wait_for "the container's fetch" 20 "[ -e $T/out/done ]"
"$PY" -c '
import sys
d = open(sys.argv[1], "rb").read()
h, _, body = d.partition(b"\r\n\r\n")
sys.exit(0 if h.startswith(b"HTTP/1.") and b" 200 " in h.split(b"\r\n")[0] and body == open(sys.argv[2], "rb").read() else 1)
' "$T/out/got.http" "$T/www/host.bin" || fail "container -> host through 10.0.2.2: $(head -c 200 "$T/out/got.http")"
grep -q "inet 10.0.2.100/24" "$T/out/addr" || fail "container address: $(cat "$T/out/addr")"

# podman stops it through the exit fd
"${P[@]}" rm -f -t 0 "$CTR" >/dev/null 2>&1 || fail "podman rm"
wait_for "slipway to exit with the container" 10 "s4n_gone"
pass "podman: slipway as slirp4netns, 1 MB compared each way (published port, 10.0.2.2)"
