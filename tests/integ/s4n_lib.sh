# SPDX-License-Identifier: GPL-2.0-or-later
# s4n_lib.sh - helpers of the slirp4netns-compatibility tests (sourced after
# lib.sh): a copy of slipway that any user can run, called slirp4netns

# s4n_binary: $T/bin/slirp4netns, a symlink to a world-readable copy of
# slipway (the clients run it by that name; some as an unprivileged user)
s4n_binary() {
	chmod 1777 "$T"
	mkdir -p "$T/bin"
	cp "$SLIPWAY" "$T/bin/slipway"
	cp "$SWVERIFY" "$T/bin/swverify"
	chmod 755 "$T/bin" "$T/bin/slipway" "$T/bin/swverify"
	ln -s slipway "$T/bin/slirp4netns"
	S4N=$T/bin/slirp4netns
	SWV=$T/bin/swverify
}

# s4n_user: the unprivileged user rl (created as a fresh CI machine lacks
# it, with subordinate ids: rootlesskit and rootless podman need them)
s4n_user() {
	if ! id rl >/dev/null 2>&1; then
		useradd -m -s /bin/bash rl || fail "cannot create user rl"
	fi
	grep -q '^rl:' /etc/subuid || echo "rl:100000:65536" >>/etc/subuid
	grep -q '^rl:' /etc/subgid || echo "rl:100000:65536" >>/etc/subgid
}

# s4n_gone: true when no slipway started from $T runs any more
s4n_gone() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$T/bin/slipway" ] && return 1
	done
	return 0
}
