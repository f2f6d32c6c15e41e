#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-layers.sh - every #include "..." in src/ points down the layers
#
#   check-layers.sh SRCDIR
#	reads the #include "..." lines of every .c and .h file under SRCDIR
#	and prints each one a layer may not have; exit 1 if there is any
#   check-layers.sh --self-test SRCDIR
#	proves the check can fail: in a scratch copy of SRCDIR, one
#	forbidden include per rule below must be found, alone
#
# The layers, bottom up, and what each may include ("layer/" is any header
# of that folder; a name without a folder is the including file's own
# folder, or build output such as seccomp_allow.h; "../util/x.h" is read
# from the including file's folder, as the compiler does):
#
#   util/   util/                       (no layer of ours)
#   core/   core/ util/                 (the pure core)
#   obs/    obs/ util/                  (counters, histograms, log, pcap)
#   edge/   edge/ core/ obs/ util/      (never host/ nor ctl/: an edge needs
#                                        nothing of host/ today, conf.h
#                                        included; main.c hands it values)
#   host/   host/ edge/ core/ obs/ util/ (never ctl/)
#   ctl/    ctl/ edge/ obs/ util/, and of host/ only its narrow interface:
#           host/shard_api.h (the shards as the control thread sees
#           them), host/fwd.h (the forward-table API) and host/conf.h
#           (the configuration, read only); no core/ (a flow record's
#           state is named by shard_api.h's flow_rec_state_str())
#   main.c  anything (it wires the layers together)
#
# A folder of src/ not in this table fails the check until it is added.
# Only direct include lines are read; system headers (<...>) are not.
set -u

# allowed SRCFOLDER INCLUDE - status 0 if a file of SRCFOLDER may include
# INCLUDE (the text between the quotes)
allowed() {
	case $2 in
	*/*) ;;
	*) return 0 ;;	# same folder
	esac
	case $1:$2 in
	util:util/*) return 0 ;;
	core:core/* | core:util/*) return 0 ;;
	obs:obs/* | obs:util/*) return 0 ;;
	edge:edge/* | edge:core/* | edge:obs/* | edge:util/*) return 0 ;;
	host:host/* | host:edge/* | host:core/* | host:obs/* | host:util/*)
		return 0 ;;
	ctl:ctl/* | ctl:edge/* | ctl:obs/* | ctl:util/*) return 0 ;;
	ctl:host/shard_api.h | ctl:host/fwd.h | ctl:host/conf.h) return 0 ;;
	.:*) return 0 ;;	# main.c
	esac
	return 1
}

# check SRCDIR - print each forbidden include; status 1 if any
check() {
	bad=0
	# every file: "path:line:text" of its #include "..." lines
	lines=$(cd "$1" && grep -rnE --include='*.c' --include='*.h' \
		'^[[:space:]]*#[[:space:]]*include[[:space:]]*"' . ) || true
	# here-document, not a pipe: the loop must set $bad in this shell
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		file=${l%%:*}
		file=${file#./}
		# between the first two quotes, without a fork a line (the
		# self-test runs this over the whole tree 15 times)
		inc=${l#*\"}
		inc=${inc%%\"*}
		case $file in
		*/*) layer=${file%%/*} ;;
		*) layer=. ;;
		esac
		case $inc in
		./* | ../*)	# relative to the file: make it relative to src/
			inc=$(realpath -m --relative-to="$1" \
				"$1/$(dirname "$file")/$inc") ;;
		esac
		case $layer in
		util | core | obs | edge | host | ctl | .) ;;
		*)
			echo "layers: $file: folder $layer/ is in no layer (tools/check-layers.sh)"
			bad=1
			continue ;;
		esac
		if ! allowed "$layer" "$inc"; then
			echo "layers: $file includes \"$inc\": $layer/ may not"
			bad=1
		fi
	done <<EOF
$lines
EOF
	return $bad
}

if [ "${1-}" != "--self-test" ]; then
	[ $# -eq 1 ] || { echo "usage: $0 SRCDIR" >&2; exit 2; }
	check "$1" || {
		echo "layers: see the table at the top of tools/check-layers.sh" >&2
		exit 1
	}
	echo "layers: ok ($1)"
	exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 --self-test SRCDIR" >&2; exit 2; }
src=$2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cp -R "$src" "$tmp/src" || exit 2
check "$tmp/src" >/dev/null || {
	echo "self-test: the real tree fails the check; see layering"
	exit 1
}

# one forbidden include per rule: FILE INCLUDE (names apart from check()'s
# variables: sh has no local ones)
fails=0
while read -r tf ti; do
	cp "$tmp/src/$tf" "$tmp/orig"
	printf '#include "%s"\n' "$ti" >> "$tmp/src/$tf"
	if check "$tmp/src" > "$tmp/check.log"; then
		echo "self-test: $tf including \"$ti\" passed the check"
		fails=1
	elif [ "$(cat "$tmp/check.log")" != \
	       "layers: $tf includes \"$ti\": ${tf%%/*}/ may not" ]; then
		echo "self-test: $tf including \"$ti\": expected that one finding, got:"
		cat "$tmp/check.log"
		fails=1
	else
		cat "$tmp/check.log"
	fi
	cp "$tmp/orig" "$tmp/src/$tf"
done <<EOF
core/csum.c host/conf.h
core/tcp.h obs/hist.h
util/util.h core/pkt.h
obs/hist.c core/pkt.h
obs/pcap.c host/shard.h
edge/tap.c host/conf.h
edge/vhost_user.c ctl/ctl.h
host/loop.c ctl/ctl_proto.h
host/shard.h ctl/ctl.h
ctl/ctl.c host/shard.h
ctl/ctl_proto.h host/selfport.h
ctl/ctl_proto.c core/udp.h
EOF
# a path relative to the file is read as the compiler reads it
cp "$tmp/src/core/csum.c" "$tmp/orig"
echo '#include "../host/conf.h"' >> "$tmp/src/core/csum.c"
if ! check "$tmp/src" | grep -q 'core/csum.c includes "host/conf.h"'; then
	echo "self-test: core/csum.c including \"../host/conf.h\" was not found"
	fails=1
fi
cp "$tmp/orig" "$tmp/src/core/csum.c"
mkdir "$tmp/src/newlayer"
echo '#include "util/util.h"' > "$tmp/src/newlayer/x.c"
if check "$tmp/src" > /dev/null; then
	echo "self-test: a folder in no layer passed the check"
	fails=1
fi
[ $fails -eq 0 ] || exit 1
echo "self-test: every rule rejects its forbidden include"
