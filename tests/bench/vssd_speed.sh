#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vssd_speed.sh: does a vSSD deliver what its own model says, does it keep its
# timing, and what does it cost in CPU (bloxd, bloxctl stats, bloxperf).
#
#   vssd_speed.sh [--build DIR] [--bloxd F] [--bloxctl F] [--bloxperf F]
#                 [--qds "1 4 16 32 64 128 256"] [--time S] [--cpus "0 1"]
#                 [--vssds "channel:1 channel:2 channel:4 channel:6 whole"]
#                 [--size full|SIZE] [--read-range SIZE] [--gc-writes F] [--gc-max S]
#                 [--store file|ram] [--busy-poll] [--out FILE] [--smoke]
#
# Binaries: DIR/daemon/bloxd, DIR/cli/bloxctl, DIR/tests/initiator/bloxperf
# (--build, default build-bench/ as the other benches; not built here:
# cmake --build DIR --target bloxd bloxctl bloxperf), or each given.
# One bloxd, pinned with taskset to the first CPU list of --cpus (default
# CPU 0: one reactor), serves one subsystem: a 512 MiB RAM namespace (nsid 1:
# the network's and bloxd's own ceiling) and a registered device "nand0" of 8
# channels x 4 dies of TLC at the default timing (2 planes, 384 pages of
# 16 KiB) with 32 blocks per plane instead of 64 (12 GiB: quicker fills),
# its pages in a file in the bench's temporary data directory (--store ram:
# in memory). The vSSDs of --vssds are made on nand0 one at a time (bloxctl
# ns create --device nand0 --isolation channel:N), measured and deleted
# (their flash is erased: the next starts clean; the device keeps one
# channel spare, so 1+2+4+6 would not fit at once); "whole" is a namespace
# with a NAND device of its own of the same geometry (8 x 4 dies, same
# store). A vSSD's size is all it holds (--size full: the capacity ns create
# reports, so that GC starts soon after the fill) unless --size says
# otherwise. bloxperf runs every point on the second CPU list (default
# CPU 1); per point `bloxctl --json stats` before, in the middle (its
# window: the last 1-2 s) and after, and bloxd's CPU ticks (/proc/PID/stat
# utime+stime) over it. Per vSSD:
#   1. 128 KiB sequential writes at QD 32 on the fresh vSSD for S s: MiB/s
#      against the model's program bound (write_iops_pred, commands/s at the
#      window's mean write size, x 128 KiB);
#   2. the fill: 128 KiB sequential writes at QD 32 over the whole namespace;
#   3. 4 KiB random reads at every QD of --qds over the first --read-range
#      (default 512 MiB; written by the fill, so every read reaches flash), S
#      s each (--time, default 6): client and bloxd IOPS and latency, bloxd's
#      mean QD, the device's lateness, the reactor's CPU, the model's read
#      bound, bloxd's CPU per I/O;
#   4. 4 KiB random writes at QD 32 over the namespace in S-s rounds until GC
#      runs and F times the namespace's size was written (--gc-writes F,
#      default 1: GC then works on blocks the random writes made, past the
#      fill's transient), at most --gc-max s (default 240; the report says
#      which ended it and shows every round's IOPS and WAF), then one
#      measured point: IOPS against the model's write_iops_pred, the WAF.
# The RAM namespace: 4 KiB random reads at each QD just before the vSSD's
# (the ceiling on the machine of that moment: its load moves). The report
# (--out, default docs/results/vssd_speed.txt) has the command, the machine
# and its load, one table per vSSD, and the QD1 check: the measured QD1 mean
# read latency against tR + transfer + mapping reads + the RAM namespace's
# QD1 latency. About 25 minutes with the defaults on a busy 2-CPU machine.
# --busy-poll: bloxperf polls its socket (bloxperf --busy-poll, as
# spdk_nvme_perf does) instead of sleeping, so the client's CPU never idles
# and its wake-ups are not in the latencies (the QD1 check's fair form).
# --smoke: channel:1 only (64 MiB, reads over 32 MiB), QDs 1 and 32, 2 s
# points, tiny writes, no GC wait; about 25 s; the report goes to a
# temporary file (shown, then removed) unless --out is given. A benchmark:
# nothing is asserted. Exit 0 when it ran, 2 when it could not, 77 (--smoke
# only) when something it needs is missing (taskset, python3, the CPUs of
# --cpus, a binary). bloxd and every bloxperf it starts are stopped by their
# PIDs, its temporary directory removed.
set -u -o pipefail

usage() { sed -n '3,62p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
die() { echo "vssd_speed.sh: $*" >&2; exit 2; }
REPO=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
ARGS="$0 $*"
BUILD=$REPO/build-bench BLOXD='' BLOXCTL='' PERF=''
QDS="1 4 16 32 64 128 256" SECS=6 CPUS="0 1" OUT='' SMOKE=0 BUSY=
VSSDS="channel:1 channel:2 channel:4 channel:6 whole"
SIZE=full RANGE=512M GCMAX=240 GCW=1 BPP=32 STORE=file
while [ $# -gt 0 ]; do
	case $1 in
	--build | --bloxd | --bloxctl | --bloxperf | --qds | --time | --cpus | --out | --vssds | \
		--size | --read-range | --gc-max | --gc-writes | --store)
		[ $# -ge 2 ] || die "$1 needs a value" ;;
	esac
	case $1 in
	--build) BUILD=$2 ;;
	--bloxd) BLOXD=$2 ;;
	--bloxctl) BLOXCTL=$2 ;;
	--bloxperf) PERF=$2 ;;
	--qds) QDS=${2//,/ } ;;
	--time) SECS=$2 ;;
	--cpus) CPUS=$2 ;;
	--out) OUT=$2 ;;
	--vssds) VSSDS=${2//,/ } ;;
	--size) SIZE=$2 ;;
	--read-range) RANGE=$2 ;;
	--gc-max) GCMAX=$2 ;;
	--gc-writes) GCW=$2 ;;
	--store) STORE=$2 ;;
	--smoke) SMOKE=1 ;;
	--busy-poll) BUSY=--busy-poll ;;
	-h | --help) usage 0 ;;
	*) echo "vssd_speed.sh: unknown option $1" >&2; usage ;;
	esac
	case $1 in --smoke | --busy-poll) shift ;; *) shift 2 ;; esac
done
if [ $SMOKE = 1 ]; then
	QDS="1 32" SECS=2 VSSDS=channel:1 SIZE=64M RANGE=32M GCMAX=0
	MISSING_RC=77
else
	MISSING_RC=2
fi
missing() { echo "vssd_speed.sh: $*" >&2; exit $MISSING_RC; }
BLOXD=${BLOXD:-$BUILD/daemon/bloxd}
BLOXCTL=${BLOXCTL:-$BUILD/cli/bloxctl}
PERF=${PERF:-$BUILD/tests/initiator/bloxperf}
for c in taskset python3 getconf; do command -v $c >/dev/null || missing "command '$c' not found"; done
for b in "$BLOXD" "$BLOXCTL" "$PERF"; do
	[ -x "$b" ] || missing "no executable $b (build: cmake --build DIR --target bloxd bloxctl bloxperf; --build DIR)"
done
BLOXD=$(readlink -f "$BLOXD") BLOXCTL=$(readlink -f "$BLOXCTL") PERF=$(readlink -f "$PERF")
read -r TCPU CCPU EXTRA <<<"$CPUS"
if [ -z "${CCPU:-}" ] || [ -n "${EXTRA:-}" ]; then die "--cpus takes two CPU lists, bloxd's and bloxperf's"; fi
if ! taskset -c "$TCPU" true 2>/dev/null || ! taskset -c "$CCPU" true 2>/dev/null; then
	missing "cannot pin to CPUs $TCPU and $CCPU (taskset; $(nproc) CPUs)"
fi
for q in $QDS; do
	if ! [[ $q =~ ^[1-9][0-9]*$ ]] || [ "$q" -gt 1024 ]; then die "--qds takes depths 1..1024"; fi
done
[[ $SECS =~ ^[1-9][0-9]*$ ]] || die "--time must be a positive integer"
[[ $GCMAX =~ ^[0-9]+$ ]] || die "--gc-max must be a non-negative integer"
[[ $GCW =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--gc-writes must be a non-negative number"
case $STORE in file | ram) ;; *) die "--store takes file or ram" ;; esac
for v in $VSSDS; do
	[[ $v =~ ^channel:[1-9][0-9]*$ ]] || [ "$v" = whole ] || die "--vssds takes channel:N and whole, not '$v'"
done
bytes() { # SIZE with K/M/G (powers of 1024) -> bytes
	python3 -c 'import re, sys
m = re.fullmatch(r"([0-9]+)([KMGT]?)(i?B)?", sys.argv[1])
print(int(m[1]) << (10 * " KMGT".index(m[2] or " ")) if m else "")' "$1"
}
RANGE_B=$(bytes "$RANGE")
if [ -z "$RANGE_B" ] || [ "$RANGE_B" = 0 ]; then die "bad --read-range $RANGE"; fi
if [ "$SIZE" != full ]; then
	SIZE_B=$(bytes "$SIZE")
	if [ -z "$SIZE_B" ] || [ "$SIZE_B" = 0 ]; then die "bad --size $SIZE"; fi
fi

NQN=nqn.2026-12.io.blox:vssd-speed
# shellcheck disable=SC2034 # lib_bloxperf.sh's
BP_NAME=vssd_speed.sh
# shellcheck source-path=SCRIPTDIR source=lib_bloxperf.sh
. "$(dirname "$(readlink -f "$0")")/lib_bloxperf.sh"
PORT=$(bp_free_port)
bp_workdir
PERF_PID='' SAMP_PID=''
vs_cleanup() {
	[ -n "$PERF_PID" ] && kill "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
	[ -n "$SAMP_PID" ] && kill "$SAMP_PID" 2>/dev/null && wait "$SAMP_PID" 2>/dev/null
	bp_cleanup
}
trap vs_cleanup EXIT
if [ -z "$OUT" ]; then
	if [ $SMOKE = 1 ]; then OUT=$WORK/vssd_speed_smoke.txt; else OUT=$REPO/docs/results/vssd_speed.txt; fi
fi
T0=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
# The tree and the binaries as they are now; the run uses copies (a rebuild
# of the build directory meanwhile does not reach it).
REV="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?') ($(git -C "$REPO" status --porcelain -uno -- \
	daemon ftl nand common cli proto qos tests/initiator 2>/dev/null | wc -l) files of daemon/ ftl/ nand/ common/ cli/ proto/ qos/ tests/initiator/ modified in the working tree)"
binfo() { echo "${1#"$REPO"/} (built $(date -u -r "$1" '+%F %T UTC'), sha256 $(sha256sum "$1" | cut -c1-12))"; }
BINFO="# bloxd $(binfo "$BLOXD"), $("$BLOXD" --version 2>&1 | head -1), CMAKE_BUILD_TYPE $(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' \
	"$(dirname "$(dirname "$BLOXD")")/CMakeCache.txt" 2>/dev/null)
# bloxctl $(binfo "$BLOXCTL"); bloxperf $(binfo "$PERF")"
mkdir -p "$WORK/bin"
cp "$BLOXD" "$BLOXCTL" "$PERF" "$WORK/bin/" || bp_fail "could not copy the binaries"
BLOXD=$WORK/bin/$(basename "$BLOXD") BLOXCTL=$WORK/bin/$(basename "$BLOXCTL") PERF=$WORK/bin/$(basename "$PERF")
DATE0=$(date -u '+%F %T UTC')
mkdir -p "$WORK/d" "$WORK/j"
PTS=$WORK/points.jsonl
: >"$PTS"
say() { echo "[$(($(date +%s) - T0)) s] $*" >&2; }

cat >"$WORK/cfg.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $PORT } ],
  "devices": [ { "name": "nand0", "store": "$STORE",
    "nand": { "channels": 8, "dies_per_channel": 4, "blocks_per_plane": $BPP } } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "ram", "size": "512M", "block_size": 4096 } ] } ] }
JSON
bp_start_bloxd "$PORT" taskset -c "$TCPU" "$BLOXD" -c "$WORK/cfg.json" --data-dir "$WORK/d" \
	--admin-socket "$WORK/d/s.sock" --log-level 2
ctl() { "$BLOXCTL" -s "$WORK/d/s.sock" --timeout 60 "$@"; }
for _ in $(seq 50); do ctl status >/dev/null 2>&1 && break; sleep 0.1; done
ctl --json status >"$WORK/j/status.json" 2>/dev/null || bp_fail "bloxctl status failed"
say "bloxd pid $BPID on CPU $TCPU, 127.0.0.1:$PORT; bloxperf on CPU $CCPU; work in $WORK"

stats() { ctl --json stats "$NQN" "$1" >"$2" 2>"$WORK/ctl.err" || bp_fail "bloxctl stats $1 failed: $(cat "$WORK/ctl.err")"; }
# bloxperf on the client CPU; its JSON to $WORK/p.json
perf() { taskset -c "$CCPU" "$PERF" -a 127.0.0.1 -p "$PORT" -n "$NQN" ${BUSY:+"$BUSY"} "$@"; }
jq1() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[int(k)] if k.isdigit() else d[k]
print(d)' "$@"; }

# point KIND LABEL NSID QD [BLOXPERF ARGS]: one measured point of SECS s,
# its record appended to $PTS.
point() {
	local kind=$1 label=$2 nsid=$3 qd=$4 t0 t1 rc half
	shift 4
	stats "$nsid" "$WORK/s0.json"
	rm -f "$WORK/p.json" "$WORK/sched.json"
	t0=$(bp_ticks "$BPID")
	perf -N "$nsid" -q "$qd" -t "$SECS" -j "$WORK/p.json" "$@" >"$WORK/p.log" 2>&1 &
	PERF_PID=$!
	# bloxd's scheduling over the point, sampled from the client's CPU
	taskset -c "$CCPU" python3 "$WORK/vs.py" sample "$BPID" "$SECS" "$WORK/sched.json" &
	SAMP_PID=$!
	# The middle of the point: the stats window is the last 1-2 s.
	half=$(python3 -c "print(min($SECS / 2 + 0.7, $SECS - 0.2))")
	sleep "$half"
	stats "$nsid" "$WORK/sm.json"
	wait "$PERF_PID"
	rc=$?
	PERF_PID=
	wait "$SAMP_PID"
	SAMP_PID=
	t1=$(bp_ticks "$BPID")
	[ $rc = 0 ] || bp_fail "bloxperf failed (rc $rc) at $label $kind QD$qd: $(tail -3 "$WORK/p.log")"
	stats "$nsid" "$WORK/s1.json"
	python3 "$WORK/vs.py" point "$WORK" "$kind" "$label" "$nsid" "$qd" "$((t1 - t0))" "$HZ" \
		"$(cut -d' ' -f1 /proc/loadavg)" >>"$PTS" || bp_fail "could not read the point's figures"
	python3 "$WORK/vs.py" show "$PTS" >&2
}

cat >"$WORK/vs.py" <<'PY'
import json, sys

def load(f):
    try:
        return json.load(open(f))
    except Exception:
        return None

def sample(pid, secs, out):
    """bloxd's threads over SECS s: the share of the time they ran and waited
    for a CPU (schedstat), and of 5 ms samples they were in D (blocked in the
    kernel, e.g. a write held by dirty-page throttling)."""
    import glob, time
    def sched():
        run = wait = 0
        for t in glob.glob(f"/proc/{pid}/task/*/schedstat"):
            try:
                a = open(t).read().split()
                run, wait = run + int(a[0]), wait + int(a[1])
            except Exception:
                pass
        return run, wait, time.monotonic_ns()
    def states():
        st = []
        for t in glob.glob(f"/proc/{pid}/task/*/stat"):
            try:
                st.append(open(t).read().rsplit(")", 1)[1].split()[0])
            except Exception:
                pass
        return st
    r0, w0, t0 = sched()
    n = d = 0
    end = time.monotonic() + max(float(secs) - 0.3, 0.5)
    while time.monotonic() < end:
        st = states()
        n += len(st)
        d += st.count("D")
        time.sleep(0.005)
    r1, w1, t1 = sched()
    wall = max(t1 - t0, 1)
    json.dump({"run": (r1 - r0) / wall, "wait": (w1 - w0) / wall, "blocked": d / n if n else None},
              open(out, "w"))

def ns0(d):
    return (d or {}).get("namespaces", [{}])[0] if d else {}

def g(d, path, default=None):
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d

def point(work, kind, label, nsid, qd, ticks, hz, load1):
    p = load(f"{work}/p.json") or {}
    j0, j1 = load(f"{work}/s0.json"), load(f"{work}/s1.json")
    s0, sm, s1 = ns0(j0), ns0(load(f"{work}/sm.json")), ns0(j1)
    span = ((j1 or {}).get("uptime_ns", 0) - (j0 or {}).get("uptime_ns", 0)) / 1e9
    ios = p.get("ios", 0)
    d = lambda path: (g(s1, path, 0) or 0) - (g(s0, path, 0) or 0)
    lat = p.get("latency_us", {})
    rec = {
        "kind": kind, "label": label, "nsid": int(nsid), "qd": int(qd), "load1": float(load1),
        "cli": {"iops": p.get("iops", 0), "mib_s": p.get("mib_s", 0), "ios": ios,
                "seconds": p.get("seconds", 0), "mean_us": lat.get("mean"), "p99_us": lat.get("p99"),
                "max_us": lat.get("max")},
        "bxd": {"read_iops": g(sm, "io.read_iops"), "write_iops": g(sm, "io.write_iops"),
                "read_mean_ns": g(sm, "io.read_lat.mean_ns"), "write_mean_ns": g(sm, "io.write_lat.mean_ns"),
                "read_p99_ns": g(sm, "io.read_lat.p99_ns"),
                "mean_qd": g(sm, "io.mean_queue_depth"), "max_qd": g(sm, "io.max_queue_depth"),
                "window_s": g(sm, "io.interval_s")},
        "late": g(sm, "nand.lateness"), "reactor_cpu": g(sm, "nand.reactor_cpu"),
        "model": g(sm, "model"), "model0": g(s0, "model"),
        "ftl": {"waf_life": g(s1, "ftl.waf"), "cmt_hit_rate": g(s1, "ftl.cmt_hit_rate"),
                "free_sb": g(s1, "ftl.free_superblocks"), "superblocks": g(s1, "ftl.superblocks")} if g(s1, "ftl") else None,
        "delta": {k: d(k) for k in ("ftl.units_padded", "ftl.gc_runs", "ftl.gc_units_moved", "ftl.cmt_hits", "ftl.cmt_misses",
                                     "ftl.host_reads", "ftl.host_writes", "ftl.units_written_host",
                                     "ftl.units_written_gc", "ftl.units_written_tp", "ftl.flash_erases", "ftl.gc_paced",
                                     "nand.reads", "nand.programs", "io.read_cmds", "io.write_cmds")},
        "ticks": int(ticks), "hz": int(hz), "span_s": span, "sched": load(f"{work}/sched.json"),
        "cpu_us_per_io": int(ticks) / int(hz) * 1e6 / ios if ios else None,
    }
    print(json.dumps(rec))

def f(x, fmt, scale=1.0):
    return "-" if x is None else format(x * scale, fmt)

def show(pts):
    r = [json.loads(l) for l in open(pts)][-1]
    c, b = r["cli"], r["bxd"]
    late = r["late"] or {}
    print(f"  {r['label']:10} {r['kind']:8} QD{r['qd']:<4} client {c['iops']/1e3:8.1f} kIOPS {c['mib_s']:8.1f} MiB/s "
          f"mean {f(c['mean_us'], '.1f')} us; bloxd r {f(b['read_iops'], '.1f', 1e-3)}K w {f(b['write_iops'], '.1f', 1e-3)}K "
          f"QD {f(b['mean_qd'], '.1f')}; late p99 {f(late.get('p99_ns'), '.0f', 1e-3)} us; "
          f"model rb {f(g(r, 'model.read_iops_bound'), '.1f', 1e-3)}K wp {f(g(r, 'model.write_iops_pred'), '.0f')}; "
          f"{f(r['cpu_us_per_io'], '.2f')} us CPU/IO; rqwait {f(g(r, 'sched.wait'), '.0f', 100)}% "
          f"D {f(g(r, 'sched.blocked'), '.0f', 100)}%; load {r['load1']}")

def waf(d):
    h = d("ftl.units_written_host")
    return (h + d("ftl.units_written_gc") + d("ftl.units_written_tp") + d("ftl.units_padded")) / h if h else None

def round(f0, f1, pj):
    """One warm-up round: kIOPS, WAF over it, GC runs in it, host writes."""
    s0, s1, p = ns0(load(f0)), ns0(load(f1)), load(pj) or {}
    d = lambda path: (g(s1, path, 0) or 0) - (g(s0, path, 0) or 0)
    w = waf(d)
    print(f"{p.get('iops', 0) / 1e3:.2f} {w if w is not None else 0:.2f} {d('ftl.gc_runs')} {d('ftl.host_writes')}")

def steady(rf, size, factor):
    r = [l.split() for l in open(rf) if l.strip()]
    ok = any(int(x[2]) > 0 for x in r) and sum(int(x[3]) for x in r) * 4096 >= float(factor) * int(size)
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
PY

# ---- the RAM namespace: the network's and bloxd's ceiling ----------------------
say "RAM namespace: fill 512 MiB (its reads go beside each vSSD's)"
perf -N 1 -w write -o 131072 -q 32 -c 4096 >/dev/null 2>&1 || bp_fail "the RAM namespace's fill failed"

# ---- the vSSDs -------------------------------------------------------------------
PER_DIE= # bytes a die of nand0 holds for a vSSD (from the first probe)
nsid=2
for v in $VSSDS; do
	: >"$WORK/j/ns$nsid.err"
	if [ "$v" = whole ]; then
		geo=(--channels 8 --dies-per-channel 4 --blocks-per-plane "$BPP" --store "$STORE")
		# RAM: nand0's memory is promised already; the whole device's is filled lazily.
		[ "$STORE" = ram ] && geo+=(--overcommit)
		dies=32
	else
		geo=(--device nand0 --isolation "$v")
		dies=$((${v#channel:} * 4))
	fi
	if [ "$SIZE" = full ]; then
		if [ -z "$PER_DIE" ]; then
			# What one die holds: the capacity `ns create` reports for a channel:1 vSSD.
			ctl --json ns create "$NQN" --nsid 99 --size 4096 --device nand0 --isolation channel:1 \
				>"$WORK/j/probe.json" 2>"$WORK/j/probe.err" || bp_fail "probe vSSD failed: $(cat "$WORK/j/probe.err")"
			PER_DIE=$(($(jq1 "$WORK/j/probe.json" alloc.capacity) / 4))
			ctl ns delete "$NQN" 99 >/dev/null || bp_fail "probe vSSD delete failed"
		fi
		size=$((PER_DIE * dies / 131072 * 131072))
	else
		size=$SIZE_B
	fi
	# The largest that fits, at most 16 steps of 1% down.
	for _ in $(seq 16); do
		ctl --json ns create "$NQN" --nsid "$nsid" --size "$size" "${geo[@]}" >"$WORK/j/ns$nsid.json" \
			2>"$WORK/j/ns$nsid.err" && break
		grep -q 'No space left' "$WORK/j/ns$nsid.err" || break
		size=$((size * 99 / 100 / 131072 * 131072))
	done
	[ -s "$WORK/j/ns$nsid.json" ] || bp_fail "ns create $v failed: $(cat "$WORK/j/ns$nsid.err")"
	echo "$nsid $v $size $dies" >>"$WORK/vssds.txt"
	range=$((RANGE_B < size ? RANGE_B : size))
	say "$v (nsid $nsid): $dies dies, $((size >> 20)) MiB; 128K sequential writes QD32 ${SECS}s"
	point seqwrite "$v" "$nsid" 32 -w write -o 131072
	say "$v: fill $((size >> 20)) MiB with 128 KiB sequential writes at QD 32"
	f0=$(date +%s.%N)
	perf -N "$nsid" -w write -o 131072 -q 32 -c $((size / 131072)) -j "$WORK/j/fill$nsid.json" >/dev/null 2>&1 ||
		bp_fail "the fill of $v failed"
	f1=$(date +%s.%N)
	echo "$nsid $(python3 -c "print(f'{$f1 - $f0:.1f}')")" >>"$WORK/fills.txt"
	say "$v: 4 KiB random reads over the first $((range >> 20)) MiB at QD $QDS, each after the RAM namespace's"
	for q in $QDS; do
		# The ceiling at this QD on the machine as it is now (its load moves).
		point ramread "$v" 1 "$q" -w randread -o 4096
		point randread "$v" "$nsid" "$q" -w randread -o 4096 -r "$range"
	done
	# Random writes in rounds of SECS s until GC runs and GCW x the size was
	# written (or --gc-max s), then the measured point.
	stats "$nsid" "$WORK/g0.json"
	: >"$WORK/j/rounds$nsid.txt"
	gs=$(date +%s)
	while [ "$GCMAX" -gt 0 ] && [ $(($(date +%s) - gs)) -lt "$GCMAX" ]; do
		perf -N "$nsid" -w randwrite -o 4096 -q 32 -t "$SECS" -j "$WORK/r.json" >/dev/null 2>&1 ||
			bp_fail "random writes on $v failed"
		stats "$nsid" "$WORK/g1.json"
		python3 "$WORK/vs.py" round "$WORK/g0.json" "$WORK/g1.json" "$WORK/r.json" >>"$WORK/j/rounds$nsid.txt"
		say "$v: random writes (kIOPS WAF gc_runs): $(tail -1 "$WORK/j/rounds$nsid.txt")"
		mv "$WORK/g1.json" "$WORK/g0.json"
		python3 "$WORK/vs.py" steady "$WORK/j/rounds$nsid.txt" "$size" "$GCW" && break
	done
	echo "$nsid $(($(date +%s) - gs))" >>"$WORK/gcwarm.txt"
	say "$v: 4 KiB random writes QD32 ${SECS}s (measured)"
	point randwrite "$v" "$nsid" 32 -w randwrite -o 4096
	ctl ns delete "$NQN" "$nsid" >/dev/null 2>"$WORK/ctl.err" || bp_fail "ns delete $v failed: $(cat "$WORK/ctl.err")"
	nsid=$((nsid + 1))
done

LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "# vssd_speed.sh: does a vSSD deliver what its own model says, keep its timing, and at what CPU cost"
	echo "# command: $ARGS$([ $SMOKE = 1 ] && echo "  (smoke: QDs $QDS, ${SECS} s points, $VSSDS of $SIZE; figures mean little)")"
	echo "# date $DATE0, $(($(date +%s) - T0)) s; $(uname -r); $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "# load average at start $LOAD0, at end $LOAD1 (the machine is shared: other work takes CPU time from both ends)"
	echo "# tree at the start $REV"
	echo "$BINFO"
	echo "# bloxd on CPU $TCPU (taskset; reactors $(jq1 "$WORK/j/status.json" reactors 2>/dev/null || echo '?')), bloxperf on CPU $CCPU; NVMe/TCP over 127.0.0.1"
} >"$WORK/header.txt"
python3 - "$WORK" "$SECS" "$QDS" "$BPP" "$RANGE_B" "$SIZE" "$STORE" "$GCW" <<'PY' >"$WORK/report.txt" || bp_fail "the report failed"
import json, os, sys
work, secs, qds, bpp, range_b = sys.argv[1], int(sys.argv[2]), [int(q) for q in sys.argv[3].split()], sys.argv[4], int(sys.argv[5])
full, store, gcw_factor = sys.argv[6] == "full", sys.argv[7], float(sys.argv[8])
pts = [json.loads(l) for l in open(f"{work}/points.jsonl")]
rd = lambda f: [l.split() for l in open(f)] if os.path.exists(f) else []
vssds = rd(f"{work}/vssds.txt")
fills = {int(r[0]): float(r[1]) for r in rd(f"{work}/fills.txt")}
gcw = {int(r[0]): int(r[1]) for r in rd(f"{work}/gcwarm.txt")}

def g(d, path, default=None):
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d or d[k] is None:
            return default
        d = d[k]
    return d

def f(x, fmt, scale=1.0):
    return "-" if x is None else format(x * scale, fmt)

def waf(d):
    h = d["ftl.units_written_host"]
    return (h + d["ftl.units_written_gc"] + d["ftl.units_written_tp"] + d["ftl.units_padded"]) / h if h else None

def sched(p):
    s = p.get("sched") or {}
    return f"{f(s.get('wait'), '7.1f', 100)} {f(s.get('blocked'), '5.1f', 100)}"

print(open(f"{work}/header.txt").read(), end="")
print(f"# every point {secs} s of bloxperf (one I/O queue); bloxd's figures (bxd_*, late_*, rcpu) are `bloxctl --json stats` in its middle")
print("#   (the stats' window: the last 1-2 s), the rest covers the whole point:")
print("#   cpu_us/io  bloxd's utime+stime (/proc/PID/stat) / the I/Os bloxperf completed")
print("#   rqwait%    time bloxd was runnable but waited for its CPU (/proc/PID/task/*/schedstat) / wall time: other work on its CPU")
print("#   D%         5 ms samples of bloxd's thread in state D (blocked in the kernel, e.g. a store write held by dirty-page throttling)")
print("#   late_*     the device's lateness: how late the real-time driver delivered a completion after its modelled time")
print("#   rho        the model's occupancy of the vSSD's dies in the stats' window (1: every die busy all the time)")
print(f"# nand0: 8 channels x 4 dies, TLC default timing, 2 planes, {bpp} blocks per plane (not 64: quicker fills), 384 pages of 16 KiB,")
print(f"#   {'file store in the bench' + chr(39) + 's temporary directory' if store == 'file' else 'pages in RAM (--store ram)'}, "
      "one channel kept spare; 'whole': a namespace with its own device of that geometry and store")
print()
print("## RAM namespace (nsid 1, 512 MiB, 4 KiB random reads over it all after a 128 KiB fill): the network's and bloxd's ceiling,")
print("#  measured at each QD just before the vSSD's point (pass: that vSSD)")
print("pass       qd  cli_kIOPS cli_mean_us cli_p99_us bxd_kIOPS bxd_mean_us bxd_meanQD cpu_us/io rqwait%    D% load1")
for v in dict.fromkeys(r[1] for r in vssds):
    for q in qds:
        p = next((p for p in pts if p["kind"] == "ramread" and p["label"] == v and p["qd"] == q), None)
        if not p:
            continue
        c, b = p["cli"], p["bxd"]
        print(f"{v:10} {q:<3} {c['iops']/1e3:9.1f} {f(c['mean_us'], '11.1f')} {f(c['p99_us'], '10.1f')} "
              f"{f(b['read_iops'], '9.1f', 1e-3)} {f(b['read_mean_ns'], '11.1f', 1e-3)} {f(b['mean_qd'], '10.1f')} "
              f"{f(p['cpu_us_per_io'], '9.2f')} {sched(p)} {p['load1']:.2f}")
print()
summary = []
for nsid, label, size, dies in vssds:
    nsid, size, dies = int(nsid), int(size), int(dies)
    mine = [p for p in pts if p["nsid"] == nsid]
    ram = {p["qd"]: p for p in pts if p["kind"] == "ramread" and p["label"] == label}
    reads = {p["qd"]: p for p in mine if p["kind"] == "randread"}
    seqw = next((p for p in mine if p["kind"] == "seqwrite"), None)
    rw = next((p for p in mine if p["kind"] == "randwrite"), None)
    # The model's constants: from the seq128k point's window (no reads in it: its
    # service_ns is tR + the 4 KiB transfer), else from any point's.
    models = [p["model"] for p in ([seqw] if seqw else []) + mine if p and p.get("model")]
    m0 = models[0] if models else {}
    tr, svc = m0.get("t_read_ns"), m0.get("service_ns")
    xr = svc - tr if tr is not None and svc is not None and svc > tr else 2548.0
    where = "its own device" if label == "whole" else "nand0"
    print(f"## {label} on {where} (nsid {nsid}): {dies} dies on {m0.get('channels', '?')} channel(s), {size / 2**30:.2f} GiB"
          f"{' (all it holds)' if full else ''}, reads over the first {min(size, range_b) >> 20} MiB")
    print(f"#  model: tR mean {f(tr, '.1f', 1e-3)} us, 4 KiB transfer {xr / 1e3:.2f} us (tCMD + 4096 B on the bus), tPROG mean "
          f"{f(m0.get('t_prog_ns'), '.0f', 1e-3)} us; read bound {f(m0.get('read_iops_bound'), '.1f', 1e-3)} kIOPS = dies / (tR + transfer)")
    print(f"#  ratio = client IOPS / min(bound, the RAM namespace's IOPS at that QD just before: ram_kIOPS)")
    print("qd  cli_kIOPS bnd_kIOPS ram_kIOPS ratio cli_mean_us cli_p99_us bxd_kIOPS bxd_mean_us bxd_meanQD  rho late_p50_us late_p99_us "
          "late_p9999_us late_max_us rcpu% cpu_us/io rqwait%    D% load1")
    best = None
    for q in qds:
        p = reads.get(q)
        if not p:
            continue
        c, b, late = p["cli"], p["bxd"], p["late"] or {}
        bound = g(p, "model.read_iops_bound")
        ceil = [x for x in (bound, ram[q]["cli"]["iops"] if q in ram else None) if x]
        ratio = c["iops"] / min(ceil) if ceil else None
        if ratio is not None and (best is None or ratio > best[1]):
            best = (q, ratio)
        print(f"{q:<3} {c['iops']/1e3:9.1f} {f(bound, '9.1f', 1e-3)} {f(ram[q]['cli']['iops'] if q in ram else None, '9.1f', 1e-3)} "
              f"{f(ratio, '5.2f')} {f(c['mean_us'], '11.1f')} "
              f"{f(c['p99_us'], '10.1f')} {f(b['read_iops'], '9.1f', 1e-3)} {f(b['read_mean_ns'], '11.1f', 1e-3)} "
              f"{f(b['mean_qd'], '10.1f')} {f(g(p, 'model.rho'), '4.2f')} {f(late.get('p50_ns'), '11.1f', 1e-3)} "
              f"{f(late.get('p99_ns'), '11.1f', 1e-3)} "
              f"{f(late.get('p9999_ns'), '13.1f', 1e-3)} {f(late.get('max_ns'), '11.1f', 1e-3)} "
              f"{f(p['reactor_cpu'], '5.1f', 100)} {f(p['cpu_us_per_io'], '9.2f')} {sched(p)} {p['load1']:.2f}")
    print("#  writes: bound_mid = the model's write_iops_pred in the stats' window (commands/s at the window's mean write size and")
    print("#  its WAF; tPROG per die and plane group; erases, GC and mapping reads left out), x 128 KiB for MiB/s; bound_pt = the")
    print("#  same at the WAF of the whole point (bound_mid x WAF_mid / WAF_pt); ratio = client / bound_pt.")
    print("#  cmt_miss: CMT misses / lookups over the point; flash_rd/IO: the device's reads / host writes (mapping and GC reads)")
    print("write         client       bound_mid bound_pt ratio cli_mean_us cli_p99_us bxd_kIOPS bxd_meanQD  rho WAF_mid WAF_pt WAF_life "
          "gc_runs cmt_miss flash_rd/IO late_p99_us late_max_us rcpu% cpu_us/io rqwait%    D% load1")
    wseq = wrand = None
    for p, name in ((seqw, "seq128k QD32"), (rw, "rand4k QD32")):
        if not p:
            continue
        c, late, d = p["cli"], p["late"] or {}, p["delta"]
        pred, wmid, wpt = g(p, "model.write_iops_pred"), g(p, "model.waf"), waf(d)
        scale, cli, unit = (131072 / 2**20, c["mib_s"], "MiB/s") if p["kind"] == "seqwrite" else (1e-3, c["iops"] / 1e3, "kIOPS")
        bmid = pred * scale if pred else None
        bpt = bmid * wmid / wpt if bmid and wmid and wpt else bmid
        ratio = cli / bpt if bpt else None
        lk = d["ftl.cmt_hits"] + d["ftl.cmt_misses"]
        wr = d["ftl.host_writes"] or d["io.write_cmds"]
        print(f"{name:13} {cli:6.1f} {unit:5} {f(bmid, '9.1f')} {f(bpt, '8.1f')} {f(ratio, '5.2f')} {f(c['mean_us'], '11.1f')} "
              f"{f(c['p99_us'], '10.1f')} {f(p['bxd']['write_iops'], '9.1f', 1e-3)} {f(p['bxd']['mean_qd'], '10.1f')} "
              f"{f(g(p, 'model.rho'), '4.2f')} {f(wmid, '7.2f')} {f(wpt, '6.2f')} {f(g(p, 'ftl.waf_life'), '8.2f')} {d['ftl.gc_runs']:7d} "
              f"{f(d['ftl.cmt_misses'] / lk if lk else None, '8.3f')} {f(d['nand.reads'] / wr if wr else None, '11.3f')} "
              f"{f(late.get('p99_ns'), '11.1f', 1e-3)} {f(late.get('max_ns'), '11.1f', 1e-3)} "
              f"{f(p['reactor_cpu'], '5.1f', 100)} {f(p['cpu_us_per_io'], '9.2f')} {sched(p)} {p['load1']:.2f}")
        if p["kind"] == "seqwrite":
            wseq = ratio
        else:
            wrand = ratio
    fill = fills.get(nsid)
    if fill:
        print(f"#  fill: {size >> 20} MiB of 128 KiB sequential writes at QD 32 in {fill:.1f} s ({size / fill / 2**20:.1f} MiB/s; "
              f"after the seq128k point's {seqw['cli']['ios'] * 128 >> 10 if seqw else 0} MiB from LBA 0)")
    rounds = rd(f"{work}/j/rounds{nsid}.txt")
    steady = "none"
    if rounds:
        hw = sum(int(r[3]) for r in rounds)
        steady = any(int(r[2]) > 0 for r in rounds) and hw * 4096 >= gcw_factor * size
        print(f"#  rand4k warm-up: {len(rounds)} rounds of {secs} s in {gcw.get(nsid, 0)} s, {hw * 4096 / 2**30:.2f} GiB "
              f"({hw * 4096 / size:.2f} x its size); kIOPS/WAF/GC runs per round: "
              + " ".join(f"{r[0]}/{r[1]}/{r[2]}" for r in rounds))
        print("#    " + (f"GC ran and {gcw_factor:g} x its size was written (--gc-writes)" if steady else
                         f"the cap (--gc-max) came before GC ran and {gcw_factor:g} x its size was written: the point may be "
                         "GC's transient after the fill, not its steady state"))
    else:
        print("#  rand4k: no warm-up (--gc-max 0): not a steady state")
    if rw:
        d = rw["delta"]
        print(f"#  rand4k point: {d['ftl.gc_runs']} GC runs, {d['ftl.units_written_gc']} units moved by GC and "
              f"{d['ftl.units_written_tp']} translation units written for {d['ftl.units_written_host']} host units, "
              f"{d['ftl.flash_erases']} erases, {d['ftl.gc_paced']} host writes paced")
    # QD1 check
    p1, r1 = reads.get(1), ram.get(1)
    qd1 = None
    if p1 and tr is not None:
        d = p1["delta"]
        lk = d["ftl.cmt_hits"] + d["ftl.cmt_misses"]
        miss = d["ftl.cmt_misses"] / lk if lk else 0.0
        hr = d["ftl.host_reads"] or d["io.read_cmds"]
        fr = d["nand.reads"] / hr if hr else None
        flash = (tr + xr) * (1 + miss) / 1e3
        cli = p1["cli"]["mean_us"]
        ramlat = r1["cli"]["mean_us"] if r1 else None
        print(f"#  QD1 check (means): tR {tr / 1e3:.1f} + transfer {xr / 1e3:.2f} + mapping reads {miss:.3f} per read "
              f"(CMT misses / lookups over the point; stats' cmt_hit_rate {f(g(p1, 'ftl.cmt_hit_rate'), '.3f')}; flash reads per "
              f"host read {f(fr, '.3f')}) x {(tr + xr) / 1e3:.1f} = {flash:.1f} us of flash")
        if ramlat is not None:
            exp = flash + ramlat
            qd1 = cli / exp
            print(f"#    client: measured {cli:.1f} us vs flash {flash:.1f} + the RAM namespace's QD1 (just before) {ramlat:.1f} = {exp:.1f} us: "
                  f"ratio {qd1:.3f} ({cli - exp:+.1f} us)")
        bx, rbx = p1["bxd"]["read_mean_ns"], (r1["bxd"]["read_mean_ns"] if r1 else None)
        if bx is not None and rbx is not None:
            exp = flash + rbx / 1e3
            print(f"#    bloxd:  measured {bx / 1e3:.1f} us vs flash {flash:.1f} + the RAM namespace's QD1 at bloxd {rbx / 1e3:.1f} = "
                  f"{exp:.1f} us: ratio {bx / 1e3 / exp:.3f} ({bx / 1e3 - exp:+.1f} us)")
    summary.append((label, best, wseq, wrand, steady, qd1))
    print()
print("## summary: best read ratio (at QD), seq128k / bound, rand4k / bound, QD1 client measured / expected")
for label, best, ws, wr, st, q1 in summary:
    print(f"{label:10} reads {f(best[1] if best else None, '.2f')} (QD{best[0] if best else '-'})  seq128k {f(ws, '.2f')}  "
          f"rand4k {f(wr, '.2f')} ({'no warm-up' if st == 'none' else 'after the warm-up' if st else 'warm-up cut short'})  "
          f"QD1 {f(q1, '.3f')}")
PY
mkdir -p "$(dirname "$OUT")" || bp_fail "could not make $(dirname "$OUT")"
cp "$WORK/report.txt" "$OUT" || bp_fail "could not write $OUT"
cat "$OUT"
bp_stop_bloxd
if [ "$OUT" = "$WORK/vssd_speed_smoke.txt" ]; then
	say "the report above was not kept (--out FILE keeps it)"
else
	say "written to $OUT"
fi
