#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# poll_cpu.sh: what bloxd's --poll-us costs and buys (docs/PERFORMANCE.md).
#
#   poll_cpu.sh BLOXD BLOXPERF [--reps N] [--idle-s S] [--qd1-s S] [--polls "0 50"]
#               [--out FILE]
#
# Per repetition and per --poll-us value (alternating): a fresh bloxd on
# CPU 0 with one 512 MiB RAM namespace; bloxperf on CPU 1
#   1. idle: one controller connected, a Keep Alive every 2 s
#      (KATO 4 s), no I/O, for S seconds: bloxd's CPU (utime+stime from
#      /proc/PID/stat) over that time;
#   2. QD1: 4 KiB random reads at queue depth 1 for S seconds: IOPS, mean
#      and P99 latency, and bloxd's CPU meanwhile.
# One line per run and the medians go to FILE (default
# docs/results/poll_cpu-DATE.txt) and stdout, with the load (uptime) at
# every run. A benchmark, not a test: nothing is asserted. Every process
# it starts is stopped by its PID.
set -u -o pipefail

usage() { sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[ $# -ge 2 ] || usage
BLOXD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
shift 2
REPS=3 IDLE_S=30 QD1_S=10 POLLS="0 50" OUT=
REPO=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--idle-s) IDLE_S=$2; shift 2 ;;
	--qd1-s) QD1_S=$2; shift 2 ;;
	--polls) POLLS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "poll_cpu.sh: unknown option $1" >&2; usage ;;
	esac
done
[ -x "$BLOXD" ] && [ -x "$PERF" ] || { echo "poll_cpu.sh: BLOXD and BLOXPERF must be executables" >&2; exit 2; }
OUT=${OUT:-$REPO/docs/results/poll_cpu-$(date -u +%Y%m%d-%H%M).txt}
NQN=nqn.2026-12.io.blox:pollcpu
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d /tmp/poll-cpu.XXXXXX)
BPID=
cleanup() {
	[ -n "$BPID" ] && kill "$BPID" 2>/dev/null && wait "$BPID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HZ=$(getconf CLK_TCK)
# CPU ticks (utime + stime) of process $1.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

start_bloxd() { # POLL_US
	rm -rf "$WORK/d" && mkdir -p "$WORK/d"
	cat >"$WORK/d/bloxd.json" <<EOF
{ "listeners": [ { "address": "127.0.0.1", "port": $PORT } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "ram", "size": "512M", "block_size": 4096 } ] } ] }
EOF
	taskset -c 0 "$BLOXD" -c "$WORK/d/bloxd.json" --data-dir "$WORK/d" \
		--admin-socket "$WORK/d/s.sock" --log-level 2 --poll-us "$1" >"$WORK/bloxd.log" 2>&1 &
	BPID=$!
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
		sleep 0.1
	done
	echo "poll_cpu.sh: bloxd did not start:" >&2
	cat "$WORK/bloxd.log" >&2
	exit 2
}
stop_bloxd() { kill "$BPID"; wait "$BPID" 2>/dev/null; BPID=; }
fail() { echo "poll_cpu.sh: $1; bloxd's log ends:" >&2; tail -5 "$WORK/bloxd.log" >&2; exit 2; }

perf() { taskset -c 1 "$PERF" -a 127.0.0.1 -p "$PORT" -n "$NQN" -j "$WORK/p.json" "$@" >/dev/null; }
jget() { python3 -c "import json,sys; d=json.load(open('$WORK/p.json')); print($1)"; }

{
	echo "# poll_cpu.sh $(date -u '+%F %T') UTC: $(basename "$BLOXD") ($("$BLOXD" --version 2>&1 | head -1))"
	echo "# $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); bloxd on CPU 0, bloxperf on CPU 1"
	echo "# idle: ${IDLE_S}s connected, Keep Alive every 2 s; qd1: ${QD1_S}s 4K randread QD1"
	printf '%-4s %-8s %10s %10s %10s %10s %10s  %s\n' rep poll_us idle_cpu% qd1_iops qd1_avg_us qd1_p99_us qd1_cpu% load
} | tee "$OUT"
for rep in $(seq "$REPS"); do
	for poll in $POLLS; do
		start_bloxd "$poll"
		# Fill a little so reads find data (RAM reads of holes are memsets).
		perf -w write -o 131072 -q 8 -c 4096 || fail "fill failed"
		t0=$(ticks "$BPID")
		perf -w idle -k 4000 -t "$IDLE_S" || fail "idle run failed"
		t1=$(ticks "$BPID")
		idle=$(python3 -c "print(f'{100*($t1-$t0)/$HZ/$IDLE_S:.3f}')")
		t0=$(ticks "$BPID")
		s0=$(date +%s.%N)
		perf -w randread -q 1 -t "$QD1_S" || fail "qd1 run failed"
		t1=$(ticks "$BPID")
		s1=$(date +%s.%N)
		qcpu=$(python3 -c "print(f'{100*($t1-$t0)/$HZ/($s1-$s0):.1f}')")
		line=$(printf '%-4s %-8s %10s %10s %10s %10s %10s  %s' "$rep" "$poll" "$idle" \
			"$(jget 'round(d["iops"])')" "$(jget 'd["latency_us"]["mean"]')" \
			"$(jget 'd["latency_us"]["p99"]')" "$qcpu" "$(cut -d' ' -f1-3 /proc/loadavg)")
		echo "$line" | tee -a "$OUT"
		stop_bloxd
	done
done
python3 - "$OUT" <<'EOF' | tee -a "$OUT"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
print("# medians per poll_us: idle_cpu% qd1_iops qd1_avg_us qd1_p99_us qd1_cpu%")
for poll in dict.fromkeys(r[1] for r in rows):
    sel = [r for r in rows if r[1] == poll]
    med = [statistics.median(float(r[i]) for r in sel) for i in range(2, 7)]
    print(f"median poll_us={poll}: " + " ".join(f"{m:g}" for m in med))
EOF
echo "results in $OUT"
