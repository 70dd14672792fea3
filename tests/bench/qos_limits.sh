#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# qos_limits.sh - QoS bench 2 on the real daemon: per-namespace token buckets
# (qos/limiter.c, daemon/bdev/bdev_qos.c) driven over NVMe/TCP by SPDK's
# spdk_nvme_perf. The claim: a namespace limited to X stays within 2% of X
# over 10 s windows at any queue depth, and an unlimited neighbour keeps its
# throughput.
#
# Usage: tests/bench/qos_limits.sh [options]   (see --help)
#
# bloxd (lib_daemon.sh: CPU 0, a free port, a temporary directory) serves one
# subsystem with two namespaces of 512 MiB: L (nsid 1, limited) on RAM (backend
# "ram": no flash timing, so that the limit and not the medium is the
# bottleneck) and N (nsid 2, never limited) on NAND timing (backend
# "nand-timing", 8 dies of TLC: 4 channels x 2 dies), so that N's throughput is
# set by its dies, far below what bloxd or a client can do on one CPU, and a
# drop while L runs can only come from bloxd. Steps:
#  1. unlimited: L's IOPS with no limit, every workload at every queue depth
#     (3 s each): a point whose X is not below 0.9 x this cannot be limited
#     there and is reported "not limiting", not judged.
#  2. limits: for every case and queue depth, `bloxctl qos set` on L, then
#     one spdk_nvme_perf on L for warm-up + windows x window + 3 s. Every
#     second `bloxctl --json stats` is sampled (lib_daemon.py: sample), with
#     the daemon's uptime_ns at the read; after the warm-up (from L's first
#     completed command) come consecutive windows; a window's rate is its
#     counter delta over its uptime delta. Cross-check: spdk_nvme_perf's own
#     total over its measured time (-a warm-up). A limiting point fails when
#     any window is off X by more than 2%.
#  3. neighbour: N alone (4 KiB random reads QD 32, bound by its dies) against
#     N while L runs limited, in rotating rounds: "with L (2 clients)": L at QD 128 in its own
#     spdk_nvme_perf (both on CPU 1); "with L (1 client)": one spdk_nvme_perf
#     for both namespaces at QD 32 (no time-slicing of the client between the
#     two). Medians of N's IOPS, and the ratios to alone.
#  4. burst: L at X with a burst of B ms, idle 3 s (smoke: 1), then reads at QD 128: the
#     first second's commands against X x (1 + B/1000), the next against X.
# The report (default docs/results/qos_limits.txt) has the machine, the load
# average at each point, every window, and the verdict. Exit 0: every limiting
# window within 2%; 1: one was not (after writing the report); 2: the bench
# could not run. --smoke: one case, one depth, one window of 2 s (checks that
# the script runs end to end; its figures mean nothing; exit 0 whatever they
# are, 77 when spdk_nvme_perf or what it needs is missing: ctest's bench_qos_limits_smoke).
set -u -o pipefail

BD_NAME=qos_limits.sh
# shellcheck source=lib_daemon.sh
. "$(dirname "$(readlink -f "$0")")/lib_daemon.sh"

NQN=nqn.2026-12.io.blox:qos-bench
L=1
N=2

# case: name "qos set flags" "spdk_nvme_perf workload" counter (r: reads, w: writes,
# rw: both, rb: read bytes) and X in its unit (commands/s or bytes/s)
case_def() {
	case $1 in
	r20k) echo "--read-iops 20000|-w randread -o 4096|r|20000" ;;
	r5k) echo "--read-iops 5000|-w randread -o 4096|r|5000" ;;
	r2k) echo "--read-iops 2000|-w randread -o 4096|r|2000" ;;
	rmbps) echo "--read-mbps 40|-w randread -o 16384|rb|40000000" ;;
	w5k) echo "--write-iops 5000|-w randwrite -o 4096|w|5000" ;;
	mix) echo "--iops 8000|-w randrw -M 70 -o 4096|rw|8000" ;;
	*) return 1 ;;
	esac
}
ALL_CASES="r20k r5k r2k rmbps w5k mix"

usage() {
	cat <<EOF
usage: $(basename "$0") [options]
  --cases LIST     comma-separated, of $ALL_CASES (default all):
                   r20k/r5k/r2k --read-iops 20000/5000/2000, 4 KiB random reads;
                   rmbps --read-mbps 40 (40e6 B/s), 16 KiB random reads;
                   w5k --write-iops 5000, 4 KiB random writes;
                   mix --iops 8000, 4 KiB random 70% reads / 30% writes
  --qd LIST        queue depths (default 1,4,32,128)
  --windows N      windows per point (default 3)
  --window S       seconds per window (default 10)
  --warmup S       seconds from L's first command to the first window (default 2)
  --rounds N       neighbour rounds (default 5), each: alone, with L (2 clients),
                   with L (1 client), the order rotating
  --seconds S      measured seconds of N per neighbour round (default 5)
  --burst-ms B     the burst check's burst (default 1000; 0: no burst check)
  --smoke          r5k at QD 32, 1 window of 2 s, 1 neighbour round of 2 s, a burst
                   check: the script end to end (figures mean nothing; exit 0
                   whatever they are)
EOF
	bd_usage "$REPO/docs/results/qos_limits.txt"
}

CASES=$ALL_CASES
QDS="1 4 32 128"
WINDOWS=3
WINDOW=10
WARM=2
ROUNDS=5
NSECS=5
BURST=1000
SMOKE=0
OUT=$REPO/docs/results/qos_limits.txt
ARGS="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--cases) [ $# -ge 2 ] || die "--cases needs a value"; CASES=${2//,/ }; shift 2 ;;
	--qd) [ $# -ge 2 ] || die "--qd needs a value"; QDS=${2//,/ }; shift 2 ;;
	--windows) [ $# -ge 2 ] || die "--windows needs a value"; WINDOWS=$2; shift 2 ;;
	--window) [ $# -ge 2 ] || die "--window needs a value"; WINDOW=$2; shift 2 ;;
	--warmup) [ $# -ge 2 ] || die "--warmup needs a value"; WARM=$2; shift 2 ;;
	--rounds) [ $# -ge 2 ] || die "--rounds needs a value"; ROUNDS=$2; shift 2 ;;
	--seconds) [ $# -ge 2 ] || die "--seconds needs a value"; NSECS=$2; shift 2 ;;
	--burst-ms) [ $# -ge 2 ] || die "--burst-ms needs a value"; BURST=$2; shift 2 ;;
	--smoke) SMOKE=1; shift ;;
	*) bd_opt "$@" && shift "$BD_SHIFT" ;;
	esac
done
IDLE=3 BSECS=4
# N's NAND (bd_start_bloxd below): 8 dies of TLC with tR 1 ms. bloxd drives
# the dies on libevent timers, whose waits are whole milliseconds (the last
# 60 us are spun): with the TLC tR (56-74 us) a die would wait for the timer,
# not for its read, and N's rate would be the loop's (6K reads/s on 8 dies in
# a trial). With tR 1 ms, as integration_nand_timing (which checks the model
# at QD 32 on 8 dies), the dies set it: QD 32 keeps 4 reads queued per die.
N_DIES=8
N_TR_US=1000
# the dies' bound: one read per tR + 4 KiB transfer (2048 ns + the 500 ns command cycle) per die
N_BOUND=$((N_DIES * 1000000000 / (N_TR_US * 1000 + 2548)))
N_GEO_TXT="4 channels x 2 dies, tR $N_TR_US us: the dies' bound $N_BOUND reads/s"
if [ $SMOKE = 1 ]; then
	CASES=r5k QDS=32 WINDOWS=1 WINDOW=2 WARM=1 ROUNDS=1 NSECS=2 IDLE=1 BSECS=2
	BD_MISSING_RC=77 # ctest: skipped where spdk_nvme_perf cannot run
fi
for c in $CASES; do case_def "$c" >/dev/null || die "unknown case '$c' (known: $ALL_CASES)"; done
for q in $QDS; do [[ $q =~ ^[1-9][0-9]*$ ]] && [ "$q" -le 128 ] || die "--qd takes depths 1..128"; done
for v in WINDOWS WINDOW ROUNDS NSECS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$(echo $v | tr 'A-Z' 'a-z') must be a positive integer"
done
[[ $WARM =~ ^[1-9][0-9]*$ ]] || die "--warmup must be a positive integer"
[[ $BURST =~ ^[0-9]+$ ]] || die "--burst-ms must be a non-negative integer"

bd_tools $INSTALL
bd_build "$BUILD" $DOBUILD
bd_nice
bd_port
bd_workdir blox-qos-bench
bd_warn_load "a window can fall short when the clients or bloxd lose their CPU for a while (the report shows each window's slowest second)"
{
	echo "# QoS bench 2 (token buckets) on the real daemon: tests/bench/qos_limits.sh $ARGS"
	bd_machine
	echo "# namespaces: L nsid $L (limited, backend ram), N nsid $N (never limited, backend nand-timing:" \
		"$N_DIES dies of TLC, $N_GEO_TXT), 512 MiB each, 4096 B blocks"
	echo "# cases $CASES at QD $QDS: $WINDOWS windows of $WINDOW s after $WARM s of warm-up;" \
		"neighbour $ROUNDS rounds of $NSECS s; burst check ${BURST} ms$([ $SMOKE = 1 ] &&
			echo "; SMOKE (an end-to-end check: the figures mean nothing)")"
} >"$LOGS/header.txt"
cat "$LOGS/header.txt"
bd_start_bloxd "$NQN" '[ { "nsid": 1, "backend": "ram", "size": "512M", "block_size": 4096 },
    { "nsid": 2, "backend": "nand-timing", "size": "512M", "block_size": 4096,
      "nand": { "channels": 4, "dies_per_channel": 2, "cell": "tlc", "t_read_us": '"$N_TR_US"' } } ]'

# qos LIMIT_FLAGS: L's limits exactly these (qos set changes only the fields it is
# given: every other limit and the burst are set off); none: no limit.
qos() {
	local f off=()
	for f in --read-iops --write-iops --iops --read-mbps --write-mbps --mbps --burst-ms; do
		case " $1 " in *" $f "*) ;; *) off+=("$f" off) ;; esac
	done
	# shellcheck disable=SC2086
	ctl qos set "$NQN" $L ${1#none} "${off[@]}" >"$LOGS/qos.out" 2>&1 || fail "qos set $L $1 failed" "$LOGS/qos.out"
	ctl --json qos show "$NQN" $L >>"$LOGS/qos.log" 2>&1
}

# sampled BASE CMD...: run CMD (which starts clients and waits for them) while
# the stats are sampled every second into BASE.samples
sampled() {
	local base=$1 spid
	shift
	rm -f "$base.stop"
	python3 -c 'import sys, lib_daemon; lib_daemon.sample(*sys.argv[1:7])' \
		"$BLOXCTL" "$SOCK" "$NQN" "$base.samples" "$base.stop" $L &
	spid=$!
	"$@"
	local rc=$?
	: >"$base.stop"
	wait "$spid"
	return $rc
}

perf_one() { # LOG NSIDS ARGS...: one client, waited for
	perf_start "$@"
	perf_wait_all
}

# ---- 1: unlimited ---------------------------------------------------------------
qos none
: >"$LOGS/unlimited.txt"
for c in $CASES; do
	IFS='|' read -r _ wl _ _ <<<"$(case_def "$c")"
	for q in $QDS; do
		key="${wl// /_}_q$q"
		grep -q "^$key " "$LOGS/unlimited.txt" && continue
		# shellcheck disable=SC2086
		perf_one "$LOGS/unl.$key.log" $L -q "$q" $wl -t 3 -a 1 ||
			fail "spdk_nvme_perf failed (unlimited, $wl, QD $q)" "$LOGS/unl.$key.log"
		echo "$key $(awk '/^Total/ { print $3, $4 }' "$LOGS/unl.$key.log")" >>"$LOGS/unlimited.txt"
		echo "[$(elapsed) s] unlimited $wl QD $q: $(awk '/^Total/ { printf "%.0f IOPS", $3 }' "$LOGS/unl.$key.log")"
	done
done

# ---- 2: limits --------------------------------------------------------------------
: >"$LOGS/points.txt"
for c in $CASES; do
	IFS='|' read -r flags wl _ _ <<<"$(case_def "$c")"
	for q in $QDS; do
		b=$LOGS/lim.$c.q$q
		qos "$flags"
		cut -d' ' -f1 /proc/loadavg >"$b.load"
		# shellcheck disable=SC2086
		sampled "$b" perf_one "$b.log" $L -q "$q" $wl -t $((WINDOWS * WINDOW + 3)) -a "$WARM" ||
			fail "spdk_nvme_perf failed ($c, QD $q)" "$b.log"
		echo "$c $q" >>"$LOGS/points.txt"
		echo "[$(elapsed) s] $c QD $q: spdk_nvme_perf $(awk '/^Total/ { printf "%.0f IOPS %.1f MiB/s", $3, $4 }' "$b.log")," \
			"load $(cat "$b.load")"
	done
done

# ---- 3: neighbour -------------------------------------------------------------------
NFLAGS="--read-iops 5000"
NX=5000
qos "$NFLAGS"
VARIANTS=(alone two one)
for ((k = 1; k <= ROUNDS; k++)); do
	for ((j = 0; j < 3; j++)); do
		v=${VARIANTS[$(((j + k - 1) % 3))]}
		b=$LOGS/nb.$v.r$k
		cut -d' ' -f1 /proc/loadavg >"$b.load"
		sched "$BPID" >"$b.sched"
		case $v in
		alone)
			sampled "$b" perf_one "$b.N.log" $N -q 32 -w randread -o 4096 -t "$NSECS" -a 1 ;;
		two)
			# L's client first, in its steady state before N's measured window
			perf_start "$b.L.log" $L -q 128 -w randread -o 4096 -t $((NSECS + 4)) -a 1
			sleep 1
			sampled "$b" perf_one "$b.N.log" $N -q 32 -w randread -o 4096 -t "$NSECS" -a 1 ;;
		one)
			sampled "$b" perf_one "$b.N.log" $N,$L -q 32 -w randread -o 4096 -t "$NSECS" -a 1 ;;
		esac || fail "spdk_nvme_perf failed (neighbour $v, round $k)" "$b.N.log"
		sched "$BPID" >>"$b.sched"
		perf_wait_all || fail "L's client failed (neighbour $v, round $k)" "$b.L.log"
		echo "[$(elapsed) s] neighbour round $k $v: N $(awk '/NSID 2 from/ { printf "%.0f IOPS", $(NF - 4) }' "$b.N.log")," \
			"load $(cat "$b.load")"
	done
done

# ---- 4: burst --------------------------------------------------------------------------
if [ "$BURST" -gt 0 ]; then
	qos "--read-iops 5000 --burst-ms $BURST"
	sleep $IDLE
	b=$LOGS/burst
	sampled "$b" perf_one "$b.log" $L -q 128 -w randread -o 4096 -t $BSECS ||
		fail "spdk_nvme_perf failed (burst)" "$b.log"
	echo "[$(elapsed) s] burst: spdk_nvme_perf $(awk '/^Total/ { printf "%.0f IOPS", $3 }' "$b.log")"
fi
qos none
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- report -----------------------------------------------------------------------------
REPORT=$LOGS/report.txt
python3 - "$LOGS" "$L" "$N" "$WINDOWS" "$WINDOW" "$WARM" "$ROUNDS" "$NSECS" "$NX" "$BURST" "$SMOKE" \
	"$(elapsed)" "$LOAD1" "$(for c in $CASES; do echo "$c|$(case_def "$c")"; done)" "$N_BOUND" >"$REPORT" <<'PY'
import os, sys

from lib_daemon import fmt, med, perf, sched

(logs, L, N, windows, window, warm, rounds, nsecs, nx, burst, smoke, wall, load1,
 cases_s, n_bound) = sys.argv[1:16]
n_bound = float(n_bound)
L, N, windows, window, warm, rounds, nsecs, nx, burst, smoke = (
    int(L), int(N), int(windows), float(window), float(warm), int(rounds), float(nsecs), float(nx),
    int(burst), smoke == "1")
cases = {}
for line in cases_s.split("\n"):
    name, flags, wl, ctr, x = line.split("|")
    cases[name] = (flags, wl, ctr, float(x))
P = print
TOL = 0.02
failed = []


def samples(path):
    import json
    try:
        return [json.loads(x) for x in open(path) if x.strip()]
    except OSError:
        return []


def count(s, ns, ctr):
    v = s["ns"].get(str(ns), [0, 0, 0, 0])
    return {"r": v[0], "w": v[1], "rw": v[0] + v[1], "rb": v[2]}[ctr]


BUCKET = {"r": 0, "w": 1, "rw": 2, "rb": 3}  # read_iops, write_iops, iops, read_bps


def full(s, ctr):
    """(the case's bucket's full_ns, full_held_ns) at sample @s, or None."""
    q = s.get("qos")
    if not q or len(q[0]) <= BUCKET[ctr]:
        return None
    return q[0][BUCKET[ctr]], q[1]


def windows_of(ss, ns, ctr):
    """Consecutive windows after the warm-up: (rate, slowest 1 s rate, seconds, seconds its
    bucket was full, of that with commands held) each (None, None when not sampled)."""
    start = next((i for i in range(1, len(ss)) if count(ss[i], ns, ctr) > count(ss[0], ns, ctr)), None)
    if start is None:
        return []
    # L's first commands completed between samples start-1 and start
    t0 = ss[start - 1]["up"] / 1e9 + warm
    # the last sample at which L still completed commands since the one before
    last = max(i for i in range(1, len(ss)) if count(ss[i], ns, ctr) > count(ss[i - 1], ns, ctr))
    out = []
    i = next((i for i in range(len(ss)) if ss[i]["up"] / 1e9 >= t0), None)
    while i is not None:
        want = ss[i]["up"] / 1e9 + window
        j = next((j for j in range(i + 1, len(ss)) if ss[j]["up"] / 1e9 >= want - 0.5), None)
        # a window must end before the client's last second (a partial one is no window)
        if j is None or j >= last:
            break
        dt = (ss[j]["up"] - ss[i]["up"]) / 1e9
        rate = (count(ss[j], ns, ctr) - count(ss[i], ns, ctr)) / dt
        slow = min((count(ss[k + 1], ns, ctr) - count(ss[k], ns, ctr)) / ((ss[k + 1]["up"] - ss[k]["up"]) / 1e9)
                   for k in range(i, j))
        f0, f1 = full(ss[i], ctr), full(ss[j], ctr)
        fu = (f1[0] - f0[0]) / 1e9 if f0 and f1 else None
        fh = (f1[1] - f0[1]) / 1e9 if f0 and f1 else None
        out.append((rate, slow, dt, fu, fh))
        i = j
        if len(out) == windows:
            break
    return out


unl = {}
for line in open(os.path.join(logs, "unlimited.txt")):
    k, iops, mibs = line.split()
    unl[k] = (float(iops), float(mibs))

P(open(os.path.join(logs, "header.txt")).read().rstrip())
P(f"# load average at the end {load1}; wall time of the script {wall} s")
P()
P("== Limits: L's rate in consecutive windows (target side: bloxctl --json stats every 1 s, the")
P("   daemon's uptime_ns at each read; a window is its counter delta over its uptime delta)")
P(f"   X: the limit; unl: L's unlimited rate at that depth (3 s); windows: rate (error vs X);")
P(f"   slowest 1 s: the lowest one-second rate inside the windows; perf: spdk_nvme_perf's own")
P(f"   total over its measured time (from {warm:.0f} s on; it includes the last, partial second);")
P("   unused: the time L's bucket was full in the windows (its allowance unused: L did not ask, or")
P("   bloxd's timer came later than the 100 ms burst lasts: 'held', commands waiting), as a share")
P("   of X. A window short of X by more than 2% is the limiter's miss unless its unused allowance")
P("   accounts for the shortfall (then it is the client's or the machine's, and said so).")
hdr = (f"{'case':<6} {'limit':<18} {'QD':>3} {'X':>8} {'unl':>8} | {'window rates (error)':<44} | {'max|err|':>8} "
       f"{'slowest 1s':>10} | {'unused':>7} {'held':>6} | {'perf':>8} {'err':>6} | {'load':>5} verdict")
P(hdr)
rows = []
for line in open(os.path.join(logs, "points.txt")):
    c, q = line.split()
    q = int(q)
    flags, wl, ctr, X = cases[c]
    b = os.path.join(logs, f"lim.{c}.q{q}")
    ws = windows_of(samples(b + ".samples"), L, ctr)
    pf = perf(b + ".log")
    bsz = 16384 if "16384" in wl else 4096
    u = unl.get(f"{wl.replace(' ', '_')}_q{q}", (None, None))
    unl_rate = None if u[0] is None else (u[1] * 1048576 if ctr == "rb" else u[0])
    prate = None
    if pf.get("iops") is not None:
        prate = pf["mibs"] * 1048576 if ctr == "rb" else pf["iops"]
    div = 1e6 if ctr == "rb" else 1  # bytes/s shown in MB/s
    errs = [w[0] / X - 1 for w in ws]
    maxe = max((abs(e) for e in errs), default=None)
    limiting = unl_rate is not None and unl_rate >= 1.1 * X
    if not ws:
        verdict = "NO WINDOW"
        failed.append(f"{c} QD {q}: no complete window")
    elif len(ws) < windows:
        verdict = f"{len(ws)} of {windows} windows"
    else:
        verdict = "ok"
    if ws and not limiting:
        verdict = f"not limiting (unlimited {unl_rate / div:.0f} < 1.1 X)" if unl_rate else "not limiting"
    elif ws and maxe > TOL:
        over = [e for e in errs if e > TOL]
        # short windows whose shortfall the unused allowance does not account for
        unexplained = [e for w, e in zip(ws, errs) if e < -TOL and
                       (w[3] is None or e + w[3] / w[2] < -TOL)]
        if over or unexplained:
            verdict = "OFF BY MORE THAN 2%"
            failed.append(f"{c} QD {q}: a window {max(over + unexplained, key=abs) * 100:+.2f}% off X")
        else:
            held = sum(w[4] or 0 for w in ws)
            verdict = ("short: " + ("bloxd late (commands held while the bucket was full)"
                                    if held > 0.01 * sum(w[2] for w in ws) else "L did not ask (client)") +
                       ", unused allowance accounts for it")
    cells = " ".join(f"{w[0] / div:.0f}({e * 100:+.2f}%)" for w, e in zip(ws, errs))
    slow = min((w[1] for w in ws), default=None)
    tot = sum(w[2] for w in ws)
    unused = None if not ws or any(w[3] is None for w in ws) else 100 * sum(w[3] for w in ws) / tot
    uheld = None if unused is None else 100 * sum(w[4] for w in ws) / tot
    P(f"{c:<6} {flags:<18} {q:>3} {X / div:>8.0f} {fmt(None if unl_rate is None else unl_rate / div, 8)} | "
      f"{cells:<44} | {fmt(None if maxe is None else maxe * 100, 7, 2)}% "
      f"{fmt(None if slow is None else slow / div, 10)} | {fmt(unused, 6, 2)}% {fmt(uheld, 5, 2)}% | "
      f"{fmt(None if prate is None else prate / div, 8)} "
      f"{fmt(None if prate is None else (prate / X - 1) * 100, 5, 1)}% | {open(b + '.load').read().strip():>5} {verdict}")
P("(rmbps: MB/s = 1e6 bytes/s; the others: commands/s)")
P()

# ---- neighbour
P(f"== Neighbour: N (nsid 2, unlimited, nand-timing: its 8 dies' bound {n_bound:.0f} reads/s; 4 KiB")
P("   random reads QD 32) alone and while L (nsid 1, RAM,")
P(f"   --read-iops {nx:.0f}) reads at the same time; rounds of {nsecs:.0f} s (spdk_nvme_perf's measured")
P("   time), the three kinds back to back in each round, their order rotating")
names = {"alone": "N alone", "two": "with L (2 clients)", "one": "with L (1 client)"}
res = {v: [] for v in names}
for k in range(1, rounds + 1):
    for v in names:
        b = os.path.join(logs, f"nb.{v}.r{k}")
        pn = perf(b + ".N.log")
        n_iops = pn.get("ns", {}).get(N, {}).get("iops")
        if v == "one":
            l_iops = pn.get("ns", {}).get(L, {}).get("iops")
        elif v == "two":
            l_iops = perf(b + ".L.log").get("iops")
        else:
            l_iops = None
        ss = samples(b + ".samples")
        tl = None
        if len(ss) >= 2:
            tl = (count(ss[-1], L, "r") - count(ss[0], L, "r")) / ((ss[-1]["up"] - ss[0]["up"]) / 1e9)
        res[v].append({"k": k, "n": n_iops, "nmean": pn.get("ns", {}).get(N, {}).get("mean"), "l": l_iops,
                       "tl": tl, "sched": sched(b + ".sched"), "load": open(b + ".load").read().strip()})
P(f"{'round':>5} {'kind':<19} {'N IOPS':>8} {'N mean us':>9} {'L IOPS':>8} {'L (target)':>10} "
  f"{'bloxd cpu%':>10} {'wait%':>6} {'load':>5}")
for k in range(1, rounds + 1):
    for v in names:
        x = res[v][k - 1]
        s = x["sched"] or (None, None)
        P(f"{k:>5} {names[v]:<19} {fmt(x['n'], 8)} {fmt(x['nmean'], 9, 1)} {fmt(x['l'], 8)} {fmt(x['tl'], 10)} "
          f"{fmt(s[0], 10)} {fmt(s[1], 6)} {x['load']:>5}")
alone = med([x["n"] for x in res["alone"]])
P()
P("Medians over the rounds; ratio to alone (and in brackets the median of the per-round ratios):")
for v in names:
    m = med([x["n"] for x in res[v]])
    pr = med([x["n"] / a["n"] for x, a in zip(res[v], res["alone"]) if x["n"] and a["n"]])
    cpu = med([x["sched"][0] if x["sched"] else None for x in res[v]])
    P(f"  {names[v]:<19} N {fmt(m, 8)} IOPS  ratio {fmt(None if m is None or not alone else m / alone, 4, 2)}"
      f" [{fmt(pr, 4, 2)}]  of the dies' bound {fmt(None if m is None else m / n_bound, 4, 2)}"
      f"  L {fmt(med([x['l'] for x in res[v]]), 6)} IOPS  bloxd cpu {fmt(cpu, 3)}%")
P()

# ---- burst
if burst:
    ss = samples(os.path.join(logs, "burst.samples"))
    P(f"== Burst: L at --read-iops 5000 --burst-ms {burst}, idle >= 1 s, then 4 KiB random reads QD 128")
    P(f"   (target side, per second from L's first completed command; expected: the first second")
    P(f"   5000 x (1 + {burst / 1000:g}) = {5000 * (1 + burst / 1000):.0f} at most, those after it 5000)")
    st = next((i for i in range(1, len(ss)) if count(ss[i], L, "r") > count(ss[0], L, "r")), None)
    if st is None:
        P("   no command seen")
    else:
        base = ss[st - 1]
        P(f"   {'second':>6} {'commands':>9} {'cumulative':>10} {'expected cumulative (X t + burst)':>34}")
        for i in range(st, len(ss)):
            t = (ss[i]["up"] - base["up"]) / 1e9
            cum = count(ss[i], L, "r") - count(base, L, "r")
            d = count(ss[i], L, "r") - count(ss[i - 1], L, "r")
            if d == 0 and i > st:
                break
            P(f"   {t:>6.2f} {d:>9} {cum:>10} {5000 * t + 5000 * burst / 1000:>34.0f}")
    P()

P("A point is judged only when limiting: X below 0.9 x L's unlimited rate at that depth.")
P("The machine is shared (2 CPUs, other work running: see the load column); a window can")
P("fall short when bloxd or the client lose their CPU (then the slowest second shows it).")
if smoke:
    P("SMOKE RUN: an end-to-end check; the figures mean nothing.")
if failed:
    P("LIMITS: MISSED")
    for f in failed:
        P("  " + f)
else:
    P("LIMITS: OK (every limiting window within 2% of X)")
sys.exit(1 if failed and not smoke else 0)
PY
bd_finish "$REPORT" $? "a limit was missed"
