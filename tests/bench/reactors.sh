#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# reactors.sh: what --reactors N does to bloxd's figures (docs/PERFORMANCE.md).
#
#   reactors.sh BLOXD BLOXPERF [--reps N] [--seconds S] [--reactors "1 2"]
#               [--cpus LIST] [--out FILE]
#
# Per repetition and per reactor count (alternating), a fresh bloxd with
# one 512 MiB RAM namespace (4096-byte blocks) on the CPUs of --cpus
# (default: all), and bloxperf (same CPUs: on a 2-CPU machine the client
# shares them) for S seconds at each point:
#   qd1        4 KiB random reads, queue depth 1, one I/O queue
#   qd32x4     4 KiB random reads, queue depth 32 on each of 4 I/O queues
#   rw_qd32x4  4 KiB random writes, the same
#   seq128k    128 KiB sequential reads, queue depth 8 on 2 I/O queues
#   dig_qd32x4 as qd32x4 with header and data digests
# The I/O queues of one controller land on reactors qid % N. Each run's
# IOPS, mean/P50/P99 latency and bloxd's CPU go to FILE (default
# docs/results/reactors-DATE.txt) with the load at every run, and the
# medians at the end. A benchmark, not a test: nothing is asserted. Every
# process it starts is stopped by its PID.
set -u -o pipefail

usage() { sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
[ $# -ge 2 ] || usage
BLOXD=$(readlink -f "$1")
PERF=$(readlink -f "$2")
shift 2
REPS=3 SECS=10 COUNTS="1 2" CPUS= OUT=
REPO=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--reactors) COUNTS=$2; shift 2 ;;
	--cpus) CPUS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "reactors.sh: unknown option $1" >&2; usage ;;
	esac
done
[ -x "$BLOXD" ] && [ -x "$PERF" ] || { echo "reactors.sh: BLOXD and BLOXPERF must be executables" >&2; exit 2; }
OUT=${OUT:-$REPO/docs/results/reactors-$(date -u +%Y%m%d-%H%M).txt}
NQN=nqn.2026-12.io.blox:reactors
BP_NAME=reactors.sh
# shellcheck source=lib_bloxperf.sh
. "$(dirname "$(readlink -f "$0")")/lib_bloxperf.sh"
PORT=$(bp_free_port)
bp_workdir
PIN=()
[ -n "$CPUS" ] && PIN=(taskset -c "$CPUS")

start_bloxd() { # $1: reactors
	rm -rf "$WORK/d" && mkdir -p "$WORK/d"
	bp_ram_config "$WORK/cfg.json" "$PORT" "$NQN"
	bp_start_bloxd "$PORT" "${PIN[@]}" "$BLOXD" -c "$WORK/cfg.json" --data-dir "$WORK/d" \
		--admin-socket "$WORK/d/s.sock" --reactors "$1" --log-level 1
}

# point name -> bloxperf options
opts() {
	case $1 in
	qd1) echo "-w randread -q 1" ;;
	qd32x4) echo "-w randread -q 32 -Q 4" ;;
	rw_qd32x4) echo "-w randwrite -q 32 -Q 4" ;;
	seq128k) echo "-w read -o 131072 -q 8 -Q 2" ;;
	dig_qd32x4) echo "-w randread -q 32 -Q 4 -H -D" ;;
	esac
}
POINTS="qd1 qd32x4 rw_qd32x4 seq128k dig_qd32x4"

{
	echo "# reactors.sh $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, cpus ${CPUS:-all}"
	echo "# bloxd $BLOXD ($("$BLOXD" --version 2>&1 | head -1)); ${SECS}s per point, reps $REPS, reactors: $COUNTS"
	echo "# point reactors rep iops mean_us p50_us p99_us bloxd_cpu_pct load1"
} | tee "$OUT"
for rep in $(seq "$REPS"); do
	for n in $COUNTS; do
		start_bloxd "$n"
		# The namespace written once, so that reads see data.
		"${PIN[@]}" "$PERF" -a 127.0.0.1 -p "$PORT" -n "$NQN" -w write -o 131072 -q 8 \
			-c 4096 >/dev/null 2>&1
		for p in $POINTS; do
			t0=$(bp_ticks "$BPID")
			# shellcheck disable=SC2046
			"${PIN[@]}" "$PERF" -a 127.0.0.1 -p "$PORT" -n "$NQN" $(opts "$p") -t "$SECS" \
				-j "$WORK/r.json" >/dev/null 2>&1
			t1=$(bp_ticks "$BPID")
			python3 - "$WORK/r.json" "$p" "$n" "$rep" "$(((t1 - t0) * 100 / HZ / SECS))" \
				"$(cut -d' ' -f1 /proc/loadavg)" <<'PY' | tee -a "$OUT"
import json, sys
f, p, n, rep, cpu, load = sys.argv[1:]
try:
    r = json.load(open(f))
except Exception:
    print(f"{p} {n} {rep} failed - - - {cpu} {load}")
    sys.exit(0)
lat = r.get("latency_us", {})
print(f"{p} {n} {rep} {r.get('iops', 0):.0f} {lat.get('mean', 0):.1f} "
      f"{lat.get('p50', 0):.1f} {lat.get('p99', 0):.1f} {cpu} {load}")
PY
			rm -f "$WORK/r.json"
		done
		bp_stop_bloxd
	done
done
python3 - "$OUT" <<'PY' | tee -a "$OUT"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
keys = []
for r in rows:
    if (r[0], r[1]) not in keys:
        keys.append((r[0], r[1]))
print("# medians: point reactors iops mean_us p50_us p99_us bloxd_cpu_pct")
for p, n in keys:
    sel = [r for r in rows if r[0] == p and r[1] == n and r[3] != "failed"]
    if not sel:
        print(f"# {p} {n} failed")
        continue
    med = [statistics.median(float(r[i]) for r in sel) for i in range(3, 8)]
    print(f"# {p} {n} {med[0]:.0f} {med[1]:.1f} {med[2]:.1f} {med[3]:.1f} {med[4]:.0f}")
PY
