#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-layers.sh - every #include "..." in src/ points down the layers
#
#   check-layers.sh SRCDIR
#	reads the #include "..." lines of every .c and .h file under SRCDIR
#	and prints each one a layer may not have; exit 1 if there is any
#   check-layers.sh --self-test SRCDIR
#	proves the check can fail: with one forbidden include line per rule
#	added to SRCDIR's (in memory: no copy of the tree, no file
#	written), each must be found, alone
#
# The layers, bottom up, and what each may include ("layer/" is any header
# of that folder; a name without a folder is the including file's own
# folder, or build output such as seccomp_allow.h; "../util/x.h" is read
# from the including file's folder, as the compiler does):
#
#   util/   util/                       (no layer of ours)
#   core/   core/ util/                 (the pure core)
#   obs/    obs/ util/                  (counters, histograms, log, pcap)
#   edge/   edge/ core/ obs/ util/      (the guest's device; never a layer
#                                        above: main.c hands it values)
#   os/     os/ core/ obs/ util/        (namespaces, netlink, helper
#                                        processes, sandbox, seccomp, TCP
#                                        repair, time and spare fds: the
#                                        system, knowing no shard)
#   cli/    cli/ os/ edge/ core/ obs/ util/ (struct conf, the three
#                                        command lines that fill it, the
#                                        address model; knows no shard)
#   shard/  shard/ cli/ os/ edge/ core/ obs/ util/ (the runtime: event
#                                        loop, host sockets, mailboxes;
#                                        names no service: services
#                                        register their epoll handlers)
#   svc/    svc/ shard/ cli/ os/ edge/ core/ obs/ util/ (shard 0's
#                                        services: published ports,
#                                        auto forwarding, splice, -U, DNS)
#   mig/    mig/ svc/ shard/ cli/ os/ edge/ core/ obs/ util/ (migration)
#   ctl/    ctl/ edge/ obs/ util/, and of the layers below only their
#           narrow interface: shard/shard_api.h (the shards as the control
#           thread sees them), svc/fwd.h (the forward-table API),
#           cli/conf.h (the configuration, read only), os/sockaddr.h
#           (address text) and os/sys.h (the clock, spare fds); no core/
#           (a flow record's state is named by shard_api.h's
#           flow_rec_state_str())
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
	os:os/* | os:core/* | os:obs/* | os:util/*) return 0 ;;
	cli:cli/* | cli:os/* | cli:edge/* | cli:core/* | cli:obs/* | \
	cli:util/*) return 0 ;;
	shard:shard/* | shard:cli/* | shard:os/* | shard:edge/* | \
	shard:core/* | shard:obs/* | shard:util/*) return 0 ;;
	svc:svc/* | svc:shard/* | svc:cli/* | svc:os/* | svc:edge/* | \
	svc:core/* | svc:obs/* | svc:util/*) return 0 ;;
	mig:mig/* | mig:svc/* | mig:shard/* | mig:cli/* | mig:os/* | \
	mig:edge/* | mig:core/* | mig:obs/* | mig:util/*) return 0 ;;
	ctl:ctl/* | ctl:edge/* | ctl:obs/* | ctl:util/*) return 0 ;;
	ctl:shard/shard_api.h | ctl:svc/fwd.h | ctl:cli/conf.h | \
	ctl:os/sockaddr.h | ctl:os/sys.h) return 0 ;;
	.:*) return 0 ;;	# main.c
	esac
	return 1
}

# norm PATH - PATH with its "." and ".." resolved, in $n_out (no fork: the
# self-test runs the check two dozen times); above the top stays "../"
norm() {
	n_out=
	n_ifs=$IFS
	IFS=/
	for n_seg in $1; do
		case $n_seg in
		'' | .) ;;
		..) case $n_out in
		    '' | */..) n_out=$n_out/.. ;;
		    *) n_out=${n_out%/*} ;;
		    esac ;;
		*) n_out=$n_out/$n_seg ;;
		esac
	done
	IFS=$n_ifs
	n_out=${n_out#/}
}

# include_lines SRCDIR - "path:line:text" of every #include "..." line
include_lines() {
	(cd "$1" && grep -rnE --include='*.c' --include='*.h' \
		'^[[:space:]]*#[[:space:]]*include[[:space:]]*"' . ) || true
}

# check SRCDIR [EXTRA] - print each forbidden include of SRCDIR's lines and
# of EXTRA (more "path:line:text" lines, the self-test's); status 1 if any
check() {
	bad=0
	lines=${ALL_LINES:-$(include_lines "$1")}
	[ -z "${2-}" ] || lines="$lines
$2"
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
			case $file in
			*/*) norm "${file%/*}/$inc" ;;
			*) norm "$inc" ;;
			esac
			inc=$n_out ;;
		esac
		case $layer in
		util | core | obs | edge | os | cli | shard | svc | mig | ctl | .) ;;
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
ALL_LINES=$(include_lines "$src") # read once: every check below adds a line
check "$src" >/dev/null || {
	echo "self-test: the real tree fails the check; see layering"
	exit 1
}

# one forbidden include per rule: FILE INCLUDE, planted as a line of FILE
fails=0
while read -r tf ti; do
	got=$(check "$src" "./$tf:9999:#include \"$ti\"")
	if [ -z "$got" ]; then
		echo "self-test: $tf including \"$ti\" passed the check"
		fails=1
	elif [ "$got" != "layers: $tf includes \"$ti\": ${tf%%/*}/ may not" ]; then
		echo "self-test: $tf including \"$ti\": expected that one finding, got:"
		echo "$got"
		fails=1
	else
		echo "$got"
	fi
done <<EOF
core/csum.c cli/conf.h
core/tcp.h obs/hist.h
util/util.h core/pkt.h
obs/hist.c core/pkt.h
obs/pcap.c shard/shard.h
edge/tap.c cli/conf.h
edge/vhost_user.c ctl/ctl.h
os/nl.c cli/conf.h
os/sandbox.c shard/shard.h
cli/conf.c shard/shard.h
cli/pasta.c ctl/ctl.h
shard/loop.c svc/fwd.h
shard/shard.h mig/migrate.h
shard/sock_tcp.c ctl/ctl_proto.h
svc/fwd.c mig/migrate.h
svc/splice.c ctl/ctl.h
mig/migrate.c ctl/ctl.h
ctl/ctl.c shard/shard.h
ctl/ctl_proto.h shard/selfport.h
ctl/ctl_proto.c core/udp.h
EOF
# a path relative to the file is read as the compiler reads it
if ! check "$src" './core/csum.c:9999:#include "../cli/conf.h"' |
	grep -q 'core/csum.c includes "cli/conf.h"'; then
	echo "self-test: core/csum.c including \"../cli/conf.h\" was not found"
	fails=1
fi
if check "$src" './newlayer/x.c:1:#include "util/util.h"' > /dev/null; then
	echo "self-test: a folder in no layer passed the check"
	fails=1
fi
[ $fails -eq 0 ] || exit 1
echo "self-test: every rule rejects its forbidden include"
