#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# wire_batches.sh - what goes over the wire during NVMe/TCP reads: bloxd (one
# or several binaries) and SPDK's nvmf_tgt side by side, read from the
# kernel's TCP counters (docs/PERFORMANCE.md, "The CapsuleResp after a read").
#
# Usage: tests/bench/wire_batches.sh [options]   (see --help)
#
# Each target runs as compare.sh runs it (../shared/anchors/spdk: target on
# CPU 0, one 512 MiB RAM/Malloc namespace of 4096-byte blocks written once
# with 128 KiB writes, spdk_nvme_perf on CPU 1 with -L; at QD 128 and
# 128 KiB the client is the busier side). During the middle half of each
# run, `ss -tin` on both ends of the connections gives the segments and
# bytes each side sent; /proc gives the target's CPU time. A read command
# capsule is 72 bytes (no digests), so the client's bytes count its commands:
#   cmds/seg   commands per TCP segment from the client (how many it batches
#              per flush: spdk_nvme_perf resubmits what completed in one poll)
#   B/cmd      bytes the target sent per command: the data, a 24-byte
#              C2HData header and, unless the data PDU carried SUCCESS, a
#              24-byte CapsuleResp (4120 or 4144 bytes at 4 KiB)
#   segs/cmd   target segments per command
#   cpu%       the target's CPU time over the window
# Targets run in alternating order, rep after rep; the report has every run,
# then the median per target and point with its IOPS ratio to the first
# target. It states no claim: exit 0 when every run ran, 2 when one could not.
set -u -o pipefail

BD_NAME=wire_batches.sh
# shellcheck source=lib_daemon.sh
. "$(dirname "$(readlink -f "$0")")/lib_daemon.sh"

OUT=$REPO/docs/results/wire_batches.txt
TARGETS=()
POINTS=()
REPS=3
SECS=12
FILL=6
SMOKE=0
BLOX_NQN=nqn.2026-12.io.blox:wire
SPDK_NQN=nqn.2016-06.io.spdk:cnode1

usage() {
	cat <<EOF
usage: tests/bench/wire_batches.sh [options]
  --target T       a target, in the order given (repeatable; default: bloxd spdk spdk-o):
                     bloxd        bloxd of --build
                     bloxd=PATH   another bloxd binary (an A/B of two trees)
                     spdk         SPDK's nvmf_tgt as compare.sh configures it
                     spdk-o       the same with c2h_success off (nvmf_create_transport -o):
                                  a CapsuleResp after every read, as bloxd sends
  --point P        a workload (repeatable; default: qd128 sr128k): qd1, qd32, qd128
                   (4 KiB random reads at that depth), sr128k (128 KiB sequential reads, QD 16)
  --reps N         rounds over all targets and points (default 3)
  --time S         seconds of each run (default 12; the middle half is measured, from 0.5 s
                   after spdk_nvme_perf starts)
  --smoke          one round of qd128, 4 s, targets bloxd and spdk: checks that the
                   script runs end to end (exit 77 when spdk_nvme_perf cannot run)
$(bd_usage "$OUT")
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--target | --point | --reps | --time) [ $# -ge 2 ] || die "$1 needs a value" ;;
	esac
	case $1 in
	--target)
		case $2 in
		bloxd | spdk | spdk-o) ;;
		bloxd=*) [ -x "${2#bloxd=}" ] || die "--target $2: not an executable" ;;
		*) die "--target: bloxd, bloxd=PATH, spdk or spdk-o, not '$2'" ;;
		esac
		TARGETS+=("$2"); shift 2 ;;
	--point)
		case $2 in qd1 | qd32 | qd128 | sr128k) ;; *) die "--point: qd1, qd32, qd128 or sr128k, not '$2'" ;; esac
		POINTS+=("$2"); shift 2 ;;
	--reps) [[ $2 =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"; REPS=$2; shift 2 ;;
	--time)
		{ [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge 4 ]; } || die "--time must be at least 4 (seconds)"
		SECS=$2; shift 2 ;;
	--smoke) SMOKE=1; shift ;;
	*) bd_opt "$@"; shift "$BD_SHIFT" ;;
	esac
done
if [ $SMOKE = 1 ]; then
	TARGETS=(bloxd spdk) POINTS=(qd128) REPS=1 SECS=4 FILL=2 BD_MISSING_RC=77
fi
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(bloxd spdk spdk-o)
[ ${#POINTS[@]} -gt 0 ] || POINTS=(qd128 sr128k)

point_args() {
	case $1 in
	qd1) echo "-q 1 -o 4096 -w randread" ;;
	qd32) echo "-q 32 -o 4096 -w randread" ;;
	qd128) echo "-q 128 -o 4096 -w randread" ;;
	sr128k) echo "-q 16 -o 131072 -w read" ;;
	esac
}

bd_tools "$INSTALL"
if [ ! -x "$SPDK/bin/nvmf_tgt" ] || [ ! -f "$SPDK/bin/rpc.py" ]; then
	missing "no nvmf_tgt or rpc.py in $SPDK/bin"
fi
bd_build "$BUILD" "$DOBUILD"
TREE_BLOXD=$BLOXD
bd_port
bd_workdir wire_batches

rpc() { python3 "$SPDK/bin/rpc.py" -s "$WORK/spdk.sock" "$@" >>"$LOGS/rpc.log" 2>&1; }

start_spdk() { # [TRANSPORT OPTION]
	local i
	rm -f "$WORK/spdk.sock"
	nice -n "$NICE" taskset -c $TGT_CPU "$SPDK/bin/nvmf_tgt" -m $((1 << TGT_CPU)) --no-huge -s 2048 \
		-r "$WORK/spdk.sock" >"$LOGS/nvmf_tgt.log" 2>&1 &
	BPID=$!
	for i in $(seq 1 150); do
		kill -0 "$BPID" 2>/dev/null || fail "nvmf_tgt exited at start" "$LOGS/nvmf_tgt.log"
		[ -S "$WORK/spdk.sock" ] && rpc -t 1 spdk_get_version && break
		[ "$i" = 150 ] && fail "nvmf_tgt's RPC socket not up after 30 s" "$LOGS/nvmf_tgt.log"
		sleep 0.2
	done
	# shellcheck disable=SC2068 # the transport option, when there is one, is a word of its own
	rpc framework_wait_init &&
		rpc nvmf_create_transport -t TCP -q 256 $@ &&
		rpc bdev_malloc_create -b Malloc0 512 4096 &&
		rpc nvmf_create_subsystem $SPDK_NQN -a -s SPDK00000000000001 -d SPDK_Malloc &&
		rpc nvmf_subsystem_add_ns $SPDK_NQN Malloc0 &&
		rpc nvmf_subsystem_add_listener $SPDK_NQN -t tcp -f ipv4 -a 127.0.0.1 -s "$PORT" ||
		fail "SPDK configuration over RPC failed" "$LOGS/rpc.log"
	for i in $(seq 1 100); do
		ss -ltnH "sport = :$PORT" 2>/dev/null | grep -q . && break
		[ "$i" = 100 ] && fail "nvmf_tgt does not listen on $PORT" "$LOGS/nvmf_tgt.log"
		sleep 0.1
	done
	BD_NQN=$SPDK_NQN
}

start_target() {
	case $1 in
	spdk) start_spdk ;;
	spdk-o) start_spdk -o ;;
	bloxd | bloxd=*)
		BLOXD=$TREE_BLOXD
		[ "$1" = bloxd ] || BLOXD=${1#bloxd=}
		bd_start_bloxd $BLOX_NQN \
			'[ { "nsid": 1, "backend": "ram", "size": "512M", "block_size": 4096 } ]' >/dev/null ;;
	esac
}

# Data segments and bytes sent by the sockets of `ss` FILTER, summed.
ss_sent() {
	ss -tinH "$1" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, ":");
		if (kv[1] == "data_segs_out") s += kv[2]; if (kv[1] == "bytes_sent") b += kv[2] } }
		END { printf "%.0f %.0f", s, b }'
}

# Segments and bytes sent by the target's and the client's ends, the target's CPU ticks, ns.
sample() {
	echo "$(ss_sent "sport = :$PORT") $(ss_sent "dport = :$PORT")" \
		"$(awk '{ print $14 + $15 }' "/proc/$BPID/stat") $(date +%s%N)"
}

run_one() { # TARGET POINT REP
	local tgt=$1 pt=$2 rep=$3 log a b q
	log=$LOGS/run-$rep-$pt-${#RUNS[@]}.log
	start_target "$tgt"
	perf_start "$LOGS/fill.log" 1 -q 16 -o 131072 -w write -t $FILL
	perf_wait_all || fail "the write pass failed on $tgt" "$LOGS/fill.log"
	# shellcheck disable=SC2046 # the workload's options are words of their own
	perf_start "$log" 1 $(point_args "$pt") -t "$SECS" -L
	q=$((SECS * 1000 / 4))
	sleep "$(awk -v q=$q 'BEGIN { printf "%.3f", 0.5 + q / 1000 }')"
	a=$(sample)
	sleep "$(awk -v q=$q 'BEGIN { printf "%.3f", 2 * q / 1000 }')"
	b=$(sample)
	# Both ends' counters must have grown: the connection lived through the window.
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x); split(b, y); for (i = 1; i <= 4; i++) if (y[i] <= x[i]) exit 1 }' ||
		fail "$tgt $pt: no traffic, or the connection went, during the measured window ($a / $b)" "$log"
	perf_wait_all || fail "spdk_nvme_perf failed on $tgt ($pt)" "$log"
	stop_pid "$BPID" 60
	drop_dpdk_dir "$BPID" # nvmf_tgt's, as spdk_nvme_perf's
	BPID=
	RUNS+=("$tgt|$pt|$rep|$log|$a|$b|$(cut -d' ' -f1 /proc/loadavg)")
	echo "[$(elapsed) s] $tgt $pt rep $rep done"
}

MACHINE=$(BLOXD=$TREE_BLOXD bd_machine)
bd_warn_load "the figures will show it"
bd_nice
RUNS=()
for ((rep = 1; rep <= REPS; rep++)); do
	for pt in "${POINTS[@]}"; do
		# Alternate the order from one round to the next.
		if ((rep % 2)); then order=("${TARGETS[@]}"); else
			order=()
			for ((i = ${#TARGETS[@]} - 1; i >= 0; i--)); do order+=("${TARGETS[$i]}"); done
		fi
		for tgt in "${order[@]}"; do run_one "$tgt" "$pt" "$rep"; done
	done
done

REPORT=$WORK/report.txt
{
	echo "# wire_batches.sh: NVMe/TCP reads on the wire, bloxd and SPDK nvmf_tgt"
	echo "$MACHINE"
	echo "# load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $REPS round(s), $SECS s per run, the middle half measured"
	echo "# command: tests/bench/wire_batches.sh$(printf ' --target %s' "${TARGETS[@]}")$(printf ' --point %s' \
		"${POINTS[@]}") --reps $REPS --time $SECS"
	for t in "${TARGETS[@]}"; do
		case $t in bloxd=*) echo "# $t: $("${t#bloxd=}" --version 2>&1 | head -1), file of $(date -r "${t#bloxd=}" -Is)," \
			"sha256 $(sha256sum "${t#bloxd=}" | cut -c1-16)" ;; esac
	done
} >"$REPORT"
printf '%s\n' "${RUNS[@]}" >"$WORK/runs.txt"
python3 - "$WORK/runs.txt" "$(getconf CLK_TCK)" "${TARGETS[@]}" >>"$REPORT" <<'PY'
import statistics
import sys

import lib_daemon

hz = float(sys.argv[2])
targets = sys.argv[3:]
runs = []
for line in open(sys.argv[1]):
    tgt, pt, rep, log, a, b, load = line.rstrip("\n").split("|")
    a = [int(x) for x in a.split()]
    b = [int(x) for x in b.split()]
    d = [y - x for x, y in zip(a, b)]
    tsegs, tbytes, csegs, cbytes, ticks, ns = d
    cmds = cbytes / 72.0
    p = lib_daemon.perf(log)
    runs.append({"tgt": tgt, "pt": pt, "rep": rep, "iops": p.get("iops", 0.0),
                 "mibs": p.get("mibs", 0.0), "mean": p.get("mean", 0.0),
                 "cps": cmds / csegs if csegs else 0.0, "bpc": tbytes / cmds if cmds else 0.0,
                 "spc": tsegs / cmds if cmds else 0.0,
                 "cpu": 100.0 * ticks / hz / (ns / 1e9) if ns else 0.0, "load": load})

cols = "%-34s %-7s %4s %10s %9s %9s %8s %9s %8s %6s %5s"
print()
print("every run:")
print(cols % ("target", "point", "rep", "IOPS", "MiB/s", "mean us", "cmds/seg", "B/cmd",
              "segs/cmd", "cpu%", "load"))
for r in runs:
    print(cols % (r["tgt"], r["pt"], r["rep"], "%.0f" % r["iops"], "%.1f" % r["mibs"],
                  "%.1f" % r["mean"], "%.1f" % r["cps"], "%.0f" % r["bpc"], "%.3f" % r["spc"],
                  "%.0f" % r["cpu"], r["load"]))
print()
print("medians (ratio: IOPS to %s's median at the point):" % targets[0])
mcols = "%-34s %-7s %10s %6s %8s %9s %8s %6s"
print(mcols % ("target", "point", "IOPS", "ratio", "cmds/seg", "B/cmd", "segs/cmd", "cpu%"))
for pt in dict.fromkeys(r["pt"] for r in runs):
    base = None
    for t in targets:
        rs = [r for r in runs if r["pt"] == pt and r["tgt"] == t]
        if not rs:
            continue
        m = {k: statistics.median(r[k] for r in rs) for k in ("iops", "cps", "bpc", "spc", "cpu")}
        if base is None:
            base = m["iops"]
        print(mcols % (t, pt, "%.0f" % m["iops"], "%.2f" % (m["iops"] / base if base else 0.0),
                       "%.1f" % m["cps"], "%.0f" % m["bpc"], "%.3f" % m["spc"], "%.0f" % m["cpu"]))
PY
bd_finish "$REPORT" $? ""
