#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# poll_cpu.sh: what bloxd's --poll-us costs and buys (docs/PERFORMANCE.md).
#
#   poll_cpu.sh BLOXD BLOXPERF [--reps N] [--idle-s S] [--qd1-s S]
#               [--polls "0 default"] [--out FILE]
#
# Per repetition and per --poll-us value (alternating; "default": no
# --poll-us flag, bloxd's embedded default) on CPU 0, bloxperf on CPU 1:
#   1. no client: a fresh bloxd on its embedded default configuration
#      (one 1 GiB FTL namespace on emulated NAND), nobody connected, for
#      S seconds: bloxd's CPU (utime+stime from /proc/PID/stat);
#   2. idle: a fresh bloxd with one 512 MiB RAM namespace, one controller
#      connected, a Keep Alive every 2 s (KATO 4 s), no I/O, for S
#      seconds: bloxd's CPU over that time;
#   3. QD1: 4 KiB random reads at queue depth 1 for S seconds: IOPS, mean,
#      P50 and P99 latency, and bloxd's CPU meanwhile.
# One line per run and the medians go to FILE (default
# docs/results/poll_cpu-DATE.txt) and stdout, with the load (uptime) at
# every run. A benchmark, not a test: nothing is asserted. Every process
# it starts is stopped by its PID.
set -u -o pipefail

usage() { sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[ $# -ge 2 ] || usage
BLOXD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
shift 2
REPS=3 IDLE_S=30 QD1_S=10 POLLS="0 default" OUT=
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
BP_NAME=poll_cpu.sh
# shellcheck source=lib_bloxperf.sh
. "$(dirname "$(readlink -f "$0")")/lib_bloxperf.sh"
PORT=$(bp_free_port) PORT2=$(bp_free_port)
bp_workdir

# The --poll-us flag for a value of --polls (none for "default").
poll_flag() { [ "$1" = default ] || printf -- '--poll-us\n%s\n' "$1"; }

start_bloxd() { # POLL_US [embedded]: the RAM namespace, or the embedded default
	local cfg=() pflag=()
	rm -rf "$WORK/d" && mkdir -p "$WORK/d"
	if [ "${2:-}" = embedded ]; then
		cfg=(-l "127.0.0.1:$PORT" -D "127.0.0.1:$PORT2")
	else
		bp_ram_config "$WORK/d/bloxd.json" "$PORT" "$NQN"
		cfg=(-c "$WORK/d/bloxd.json")
	fi
	mapfile -t pflag < <(poll_flag "$1")
	bp_start_bloxd "$PORT" taskset -c 0 "$BLOXD" "${cfg[@]}" --data-dir "$WORK/d" \
		--admin-socket "$WORK/d/s.sock" --log-level 2 "${pflag[@]}"
}
fail() { bp_fail "$1"; }

perf() { taskset -c 1 "$PERF" -a 127.0.0.1 -p "$PORT" -n "$NQN" -j "$WORK/p.json" "$@" >/dev/null; }
jget() { python3 -c "import json,sys; d=json.load(open('$WORK/p.json')); print($1)"; }

DEFAULT=$("$BLOXD" --help | grep -A5 -- '--poll-us' | sed -n 's/.*(default \([0-9]*\)).*/\1/p' | head -1)
{
	echo "# poll_cpu.sh $(date -u '+%F %T') UTC: $(basename "$BLOXD") ($("$BLOXD" --version 2>&1 | head -1)), --poll-us default ${DEFAULT:-?}"
	echo "# $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); bloxd on CPU 0, bloxperf on CPU 1"
	echo "# noclient: ${IDLE_S}s embedded default, nobody connected; idle: ${IDLE_S}s connected, Keep Alive every 2 s; qd1: ${QD1_S}s 4K randread QD1"
	printf '%-4s %-8s %10s %10s %10s %10s %10s %10s %10s  %s\n' rep poll_us noclient% idle_cpu% \
		qd1_iops qd1_avg_us qd1_p50_us qd1_p99_us qd1_cpu% load
} | tee "$OUT"
for rep in $(seq "$REPS"); do
	for poll in $POLLS; do
		start_bloxd "$poll" embedded
		t0=$(bp_ticks "$BPID")
		sleep "$IDLE_S"
		t1=$(bp_ticks "$BPID")
		noclient=$(python3 -c "print(f'{100*($t1-$t0)/$HZ/$IDLE_S:.3f}')")
		bp_stop_bloxd
		start_bloxd "$poll"
		# Fill a little so reads find data (RAM reads of holes are memsets).
		perf -w write -o 131072 -q 8 -c 4096 || fail "fill failed"
		t0=$(bp_ticks "$BPID")
		perf -w idle -k 4000 -t "$IDLE_S" || fail "idle run failed"
		t1=$(bp_ticks "$BPID")
		idle=$(python3 -c "print(f'{100*($t1-$t0)/$HZ/$IDLE_S:.3f}')")
		t0=$(bp_ticks "$BPID")
		s0=$(date +%s.%N)
		perf -w randread -q 1 -t "$QD1_S" || fail "qd1 run failed"
		t1=$(bp_ticks "$BPID")
		s1=$(date +%s.%N)
		qcpu=$(python3 -c "print(f'{100*($t1-$t0)/$HZ/($s1-$s0):.1f}')")
		line=$(printf '%-4s %-8s %10s %10s %10s %10s %10s %10s %10s  %s' "$rep" "$poll" \
			"$noclient" "$idle" "$(jget 'round(d["iops"])')" \
			"$(jget 'd["latency_us"]["mean"]')" "$(jget 'd["latency_us"]["p50"]')" \
			"$(jget 'd["latency_us"]["p99"]')" "$qcpu" "$(cut -d' ' -f1-3 /proc/loadavg)")
		echo "$line" | tee -a "$OUT"
		bp_stop_bloxd
	done
done
python3 - "$OUT" <<'EOF' | tee -a "$OUT"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
print("# medians per poll_us: noclient% idle_cpu% qd1_iops qd1_avg_us qd1_p50_us qd1_p99_us qd1_cpu%")
for poll in dict.fromkeys(r[1] for r in rows):
    sel = [r for r in rows if r[1] == poll]
    med = [statistics.median(float(r[i]) for r in sel) for i in range(2, 9)]
    print(f"median poll_us={poll}: " + " ".join(f"{m:g}" for m in med))
EOF
echo "results in $OUT"
