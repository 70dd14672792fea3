#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# vssd_isolation.sh - FlashBlox bench 4 on the real daemon: a read-mostly
# tenant beside a write-heavy one, each a vSSD on one emulated NAND device,
# driven over NVMe/TCP by SPDK's spdk_nvme_perf.
#
# Usage: tests/bench/vssd_isolation.sh [options]   (see --help)
#
# Starts bloxd (RelWithDebInfo build, default build-bench/) on 127.0.0.1 at a
# free port, with its data dir and admin socket in a temporary directory, and
# one subsystem. For each isolation level it makes a device of 8 channels x 4
# dies x 2 planes (TLC timing, 96-page blocks; the page store in RAM unless
# --store file) and two vSSDs of the same size on it, R (the reader) and W
# (the writer), each on 8 dies x B blocks per plane (--blocks, default 32):
#   channel   R channel:2, W channel:2 (no shared die, no shared bus)
#   software  R and W in one software pool of 2 channels: the same 8 dies,
#             blocks 0..B-1 and B..2B-1 (this device has 2B blocks per plane)
#   chip      R chip:8 moved (bloxctl migrate, while empty) to dies 0-1 of
#             channels 2-5, then W chip:8 on dies 2-3 of the same channels
#             (no shared die, shared buses)
#   alone     R of the channel level with W idle (R's baseline)
# Each pair is filled once with 128 KiB sequential writes (both at once).
# Then, in short rounds (the level order rotates every round, so that every
# level meets the machine's ups and downs alike), one level at a time:
# R 4 KiB random reads QD 16 and W 4 KiB random writes QD 16, both at once,
# one spdk_nvme_perf each, with `bloxctl --json device show` and `stats`
# before and after. The per-die op counters (reads, programs, erase_ops) give
# what each round did on every die; the script checks, every round, that
#   - each vSSD's dies are those ns show gives it, no die changed owner and
#     no swap ran;
#   - free dies saw no read, program or erase;
#   - R's dies (channel, chip, alone) saw no program or erase beyond what R's
#     own FTL wrote and erased (R only reads: its own are translation-page
#     write-backs at most), i.e. W's load never reached them, and R's host
#     reads reached R's dies (flash reads >= 98% of host reads);
#   - W's programs on W's dies account for what W's FTL wrote.
# Any violation: exit 1 (after writing the report). Any other failure: exit 2.
# Every process it starts is stopped by its PID and the temporary directory
# removed, also on failure or Ctrl-C. About 3-4 minutes with the defaults
# (8 rounds of 3 s + 1 s warm-up per level, ~10-20 s of fill per level).
#
# Placement: bloxd alone on CPU 0, both spdk_nvme_perf (busy polling) on
# CPU 1, as in ../shared/anchors/spdk/compare.sh. The report (default
# docs/results/flashblox_daemon.txt) has the machine, per-die tables, each
# tenant's IOPS and latency per round and per level (median of the rounds),
# and R's latency ratios between levels; only ratios from one run mean anything.
set -u -o pipefail

BD_NAME=vssd_isolation.sh
# shellcheck source=lib_daemon.sh
. "$(dirname "$(readlink -f "$0")")/lib_daemon.sh"

NQN=nqn.2026-12.io.blox:vssd-bench

usage() {
	cat <<EOF
usage: $(basename "$0") [options]
  --levels LIST    levels, comma-separated, in the first round's order (default
                   channel,software,chip,alone; channel must be one of them;
                   alone = R of the channel level with W idle)
  --rounds N       rounds over the levels (default 8)
  --seconds S      measured seconds per level and round (default 3: short rounds,
                   so that the levels of one round see the same machine)
  --warmup S       spdk_nvme_perf warm-up before each measured window (default 1)
  --blocks N       blocks per plane of each tenant (default 32: 8 dies x 32 blocks,
                   557 MiB per vSSD; the fill then takes ~15 s per level)
  --store S        the devices' page store, ram (default) or file
EOF
	bd_usage "$REPO/docs/results/flashblox_daemon.txt"
}

LEVELS="channel software chip alone"
ROUNDS=8
SECS=3
WARM=1
OUT=$REPO/docs/results/flashblox_daemon.txt
BPP=32
STORE=ram
ARGS="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--levels) [ $# -ge 2 ] || die "--levels needs a value"; LEVELS=$(echo "$2" | tr ',' ' '); shift 2 ;;
	--rounds) [ $# -ge 2 ] || die "--rounds needs a value"; ROUNDS=$2; shift 2 ;;
	--seconds) [ $# -ge 2 ] || die "--seconds needs a value"; SECS=$2; shift 2 ;;
	--warmup) [ $# -ge 2 ] || die "--warmup needs a value"; WARM=$2; shift 2 ;;
	--blocks) [ $# -ge 2 ] || die "--blocks needs a value"; BPP=$2; shift 2 ;;
	--store) [ $# -ge 2 ] || die "--store needs a value"; STORE=$2; shift 2 ;;
	*) bd_opt "$@" && shift "$BD_SHIFT" ;;
	esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer"
[[ $SECS =~ ^[1-9][0-9]*$ ]] || die "--seconds must be a positive integer"
[[ $WARM =~ ^[0-9]+$ ]] || die "--warmup must be a non-negative integer"
[[ $BPP =~ ^[1-9][0-9]*$ ]] || die "--blocks must be a positive integer"
case $STORE in ram | file) ;; *) die "--store takes ram or file" ;; esac
for l in $LEVELS; do
	case $l in channel | software | chip | alone) ;; *) die "unknown level '$l' (channel, software, chip, alone)" ;; esac
done
case " $LEVELS " in *" channel "*) ;; *) die "--levels must include channel (the reference)" ;; esac
[ "$(echo $LEVELS | wc -w)" = "$(echo $LEVELS | tr ' ' '\n' | sort -u | wc -l)" ] || die "a level is given twice"

# ---- tools, bloxd ---------------------------------------------------------------
bd_tools $INSTALL
bd_build "$BUILD" $DOBUILD
bd_port
bd_workdir blox-vssd-bench
bd_warn_load "latency figures (the tails above all) will show it; the isolation checks do not depend on it"
{
	echo "# FlashBlox bench 4 on the real daemon: tests/bench/vssd_isolation.sh $ARGS"
	bd_machine
	echo "# both spdk_nvme_perf on CPU $CLI_CPU; device store $STORE"
	echo "# levels $LEVELS; $ROUNDS rounds of ${SECS} s measured (+${WARM} s warm-up) per level"
} >"$LOGS/header.txt"
cat "$LOGS/header.txt"
bd_start_bloxd "$NQN" "[]"

# ---- levels -----------------------------------------------------------------
# Every tenant: 8 dies x BPP blocks per plane; its size is what that holds.
GEO="--channels 8 --dies-per-channel 4 --planes 2 --pages-per-block 96"
declare -A RNS WNS DEV
n=0
for l in $LEVELS; do
	[ $l = alone ] && continue
	RNS[$l]=$((n + 1))
	WNS[$l]=$((n + 2))
	DEV[$l]=bench_$l
	n=$((n + 2))
done
# alone: R of the channel level with W idle (the baseline of R's latency)
RNS[alone]=${RNS[channel]}
WNS[alone]=${WNS[channel]}
DEV[alone]=${DEV[channel]}
# set up channel first: the size comes from it
SETUP="channel $(echo $LEVELS | tr ' ' '\n' | grep -vx 'alone\|channel' | tr '\n' ' ')"
SIZE=

mk_ns() { # LEVEL NSID ISOLATION -> the namespace (JSON) in $LOGS
	ctl --json ns create "$NQN" --nsid "$2" --size "$SIZE" --device "${DEV[$1]}" --isolation "$3" \
		>"$LOGS/ns$2.json" 2>"$LOGS/ns$2.err" || fail "ns create $2 ($1, $3) failed" "$LOGS/ns$2.err"
}

setup_level() {
	local l=$1 dev=${DEV[$1]} r=${RNS[$1]} w=${WNS[$1]} st
	case $l in
	channel | chip)
		ctl device create "$dev" $GEO --store $STORE --blocks-per-plane $BPP >/dev/null 2>"$LOGS/dev.$l.err" ||
			fail "device create $dev failed" "$LOGS/dev.$l.err" ;;
	software)
		ctl device create "$dev" $GEO --store $STORE --blocks-per-plane $((2 * BPP)) --pool-channels 2 >/dev/null \
			2>"$LOGS/dev.$l.err" || fail "device create $dev failed" "$LOGS/dev.$l.err" ;;
	esac
	if [ -z "$SIZE" ]; then
		# What 8 dies x BPP blocks hold: the capacity of a channel:2 vSSD on the channel device.
		ctl --json ns create "$NQN" --nsid 100 --size 4096 --device "${DEV[channel]}" \
			--isolation channel:2 >"$LOGS/probe.json" 2>"$LOGS/probe.err" ||
			fail "probe namespace failed" "$LOGS/probe.err"
		SIZE=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["alloc"]["capacity"])' \
			"$LOGS/probe.json") || fail "no capacity in the probe's answer" "$LOGS/probe.json"
		ctl ns delete "$NQN" 100 >/dev/null 2>"$LOGS/probe.err" || fail "probe delete failed" "$LOGS/probe.err"
	fi
	case $l in
	channel)
		mk_ns "$l" "$r" channel:2
		mk_ns "$l" "$w" channel:2 ;;
	software)
		mk_ns "$l" "$r" software
		mk_ns "$l" "$w" software ;;
	chip)
		# R on dies 0-7 (channels 0-1), then moved while empty to dies 0-1 of
		# channels 2-5; W then fills the split channels' free dies 2-3.
		mk_ns "$l" "$r" chip:8
		ctl --json migrate start "$NQN" "$r" --to-chips 8,9,12,13,16,17,20,21 \
			>"$LOGS/mig.json" 2>"$LOGS/mig.err" || fail "migrate start failed" "$LOGS/mig.err"
		# A throttled migration of an idle vSSD can stall until the vSSD gets
		# host I/O (seen with bloxd at 33ae685); after 5 s one 4 KiB read of R
		# wakes it, and the report says so.
		for i in $(seq 1 120); do
			sleep 0.5
			st=$(ctl --json migrate status 2>/dev/null | python3 -c '
import json, sys
print(" ".join(x.get("state", "?") for x in json.load(sys.stdin).get("migrations", [])))' 2>/dev/null)
			case " $st " in *" running "* | *" queued "* | *" cancelling "* | *" paused "*) ;; *) break ;; esac
			[ "$i" = 120 ] && fail "the migration did not end in 60 s ($st)"
			if [ "$i" = 10 ]; then
				echo "[$(elapsed) s] chip: R's migration still '$st' after 5 s: one read of R to wake it"
				echo "# chip level: R's migration (empty vSSD) stalled until one host read of R woke it" \
					>>"$LOGS/header.txt"
				perf_start "$LOGS/chip.poke.log" "$r" -q 1 -o 4096 -w randread -t 1 -d 1
				perf_wait_all || fail "the read to wake the migration failed" "$LOGS/chip.poke.log"
			fi
		done
		case " $st " in *" done "*) ;; *) fail "the migration ended as '$st'" ;; esac
		mk_ns "$l" "$w" chip:8 ;;
	esac
}

for l in $SETUP; do
	setup_level "$l"
	ctl --json device show "${DEV[$l]}" >"$LOGS/$l.created.json" || fail "device show failed"
	# Precondition: fill both vSSDs once, 128 KiB sequential writes, both at once.
	perf_start "$LOGS/$l.fill.R.log" "${RNS[$l]}" -q 16 -o 131072 -w write -t 300 -d 100%
	perf_start "$LOGS/$l.fill.W.log" "${WNS[$l]}" -q 16 -o 131072 -w write -t 300 -d 100%
	perf_wait_all || fail "precondition of $l failed" "$LOGS/$l.fill.W.log"
	echo "[$(elapsed) s] $l: R nsid ${RNS[$l]}, W nsid ${WNS[$l]} on ${DEV[$l]}, $SIZE bytes each, filled"
done
# The allocations as they are now (the chip level's R has moved since its create).
for l in $SETUP; do
	for ns in ${RNS[$l]} ${WNS[$l]}; do
		ctl --json ns show "$NQN" "$ns" >"$LOGS/ns$ns.json" 2>"$LOGS/ns$ns.err" ||
			fail "ns show $ns failed" "$LOGS/ns$ns.err"
	done
done

# ---- rounds -----------------------------------------------------------------
set -- $LEVELS
NL=$#
LV=("$@")
for ((k = 1; k <= ROUNDS; k++)); do
	for ((j = 0; j < NL; j++)); do
		l=${LV[$(((j + k - 1) % NL))]}
		b=$LOGS/$l.r$k
		ctl --json device show "${DEV[$l]}" >"$b.before.json" || fail "device show failed"
		ctl --json stats "$NQN" >"$b.stats0.json" || fail "stats failed"
		cut -d' ' -f1 /proc/loadavg >"$b.load"
		sched "$BPID" >"$b.sched"
		[ $l = alone ] ||
			perf_start "$b.W.log" "${WNS[$l]}" -q 16 -o 4096 -w randwrite -t "$SECS" -a "$WARM" -L
		perf_start "$b.R.log" "${RNS[$l]}" -q 16 -o 4096 -w randread -t "$SECS" -a "$WARM" -L
		RPID=${PERF_PIDS[-1]}
		# R's client: its CPU over [warm-up end, mid-run]; bloxd's own view of R's
		# latency, a 1-2 s window in mid-run
		sleep "$((WARM + 1))"
		sched "$RPID" >"$b.rsched"
		sleep "$((SECS / 2 > 1 ? SECS / 2 - 1 : 1))"
		sched "$RPID" >>"$b.rsched"
		ctl --json stats "$NQN" >"$b.statsmid.json" 2>/dev/null || : >"$b.statsmid.json"
		perf_wait_all || fail "spdk_nvme_perf failed in round $k of $l" "$b.R.log"
		sched "$BPID" >>"$b.sched"
		ctl --json device show "${DEV[$l]}" >"$b.after.json" || fail "device show failed"
		ctl --json stats "$NQN" >"$b.stats1.json" || fail "stats failed"
		echo "[$(elapsed) s] round $k $l: $(awk '/^Total/ { printf "R %.0f IOPS %.0f us", $3, $5 }' "$b.R.log")," \
			"$([ -f "$b.W.log" ] && awk '/^Total/ { printf "W %.0f IOPS %.0f us", $3, $5 }' "$b.W.log" || echo "W idle")," \
			"load $(cat "$b.load")"
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "[$(elapsed) s] load average at the end $LOAD1" >>"$LOGS/header.txt"

# ---- report -----------------------------------------------------------------
REPORT=$LOGS/report.txt
RNSL=$(for l in $LEVELS; do echo -n "$l:${RNS[$l]}:${WNS[$l]} "; done)
python3 - "$LOGS" "$NQN" "$ROUNDS" "$SECS" "$WARM" "$RNSL" "$(elapsed)" "$LOAD1" >"$REPORT" <<'PY'
import os, sys

from lib_daemon import fmt, load, med, perf, sched

logs, nqn, rounds, secs, warm, levels_s, wall, load1 = sys.argv[1:9]
rounds, secs, warm = int(rounds), int(secs), int(warm)
levels = [(x.split(":")[0], int(x.split(":")[1]), int(x.split(":")[2])) for x in levels_s.split()]
viol = []
P = print
UNITS_PER_PAGE = 4  # 16 KiB pages, 4 KiB units


def ns_stats(st, nsid):
    for n in (st or {}).get("namespaces", []):
        if n.get("nsid") == nsid and n.get("nqn") == nqn:
            return n
    return {}


def g(d, *keys):
    for k in keys:
        d = (d or {}).get(k, 0)
    return d or 0


def ratio(a, b):
    return "NA" if a is None or not b else f"{a / b:.2f}x"


UNIT_KEYS = ("units_written_host", "units_written_gc", "units_written_tp", "units_padded")
alloc = {}
for lv, r, w in levels:
    alloc[lv] = {"R": load(os.path.join(logs, f"ns{r}.json"))["alloc"],
                 "W": load(os.path.join(logs, f"ns{w}.json"))["alloc"]}

P(open(os.path.join(logs, "header.txt")).read().rstrip())
P(f"# wall time of the script up to this report: {wall} s")
P()
size = load(os.path.join(logs, f"ns{levels[0][1]}.json"))["size"]
P(f"Each tenant: {len(alloc[levels[0][0]]['R']['dies'])} dies x {alloc[levels[0][0]]['R']['nr_blocks']} blocks"
  " per plane x 2 planes (96 pages of 16 KiB; TLC timing tR 56/65/74 us,")
P("tPROG 1.2/2/3 ms, tBERS 10 ms, 2000 MB/s bus, default suspension), FTL defaults, "
  f"{size} bytes each (what")
P("those dies hold), filled once with 128 KiB sequential writes. R: 4 KiB random reads QD 16;")
P("W: 4 KiB random writes QD 16; one spdk_nvme_perf each, both at once, "
  f"{warm} s warm-up + {secs} s measured,")
P(f"{rounds} rounds; the level order rotates every round. 'alone' is R of the channel level with W idle.")
P("Die counters (bloxctl --json device show) are read just before the clients start and after")
P("both end, so they include the warm-up; IOPS and latency are spdk_nvme_perf's (measured window).")
P()
P("Allocations (bloxctl --json ns show, after setup):")
for lv, r, w in levels:
    if lv == "alone":
        continue
    for t, ns in (("R", r), ("W", w)):
        a = alloc[lv][t]
        P(f"  {lv:8s} {t} nsid {ns}: {a['isolation']:8s} dies {','.join(map(str, a['dies']))}"
          f"  blocks {a['first_block']}..{a['first_block'] + a['nr_blocks'] - 1}")
P()

summary = {}
for lv, rns, wns in levels:
    w_on = lv != "alone"
    rd, wd = set(alloc[lv]["R"]["dies"]), set(alloc[lv]["W"]["dies"])
    shared = rd & wd
    tot, per_round, owners0 = {}, [], None
    for k in range(1, rounds + 1):
        b = os.path.join(logs, f"{lv}.r{k}")
        d0, d1 = load(b + ".before.json"), load(b + ".after.json")
        s0, s1 = load(b + ".stats0.json"), load(b + ".stats1.json")
        try:
            sm = load(b + ".statsmid.json")
        except Exception:
            sm = {}
        own0 = {x["die"]: x["owner"] for x in d0["dies"]}
        own1 = {x["die"]: x["owner"] for x in d1["dies"]}
        if owners0 is None:
            owners0 = own0
            for t, ns, dies in (("R", rns, rd), ("W", wns, wd)):
                want = "pool" if shared else f"{nqn}/{ns}"
                bad = sorted(x for x in dies if own0[x] != want)
                if not shared:
                    bad += sorted(x for x, o in own0.items() if o == want and x not in dies)
                if bad:
                    viol.append(f"{lv}: {t}'s allocation (ns show) and the device's owners differ on dies {bad}")
        if own0 != owners0 or own1 != owners0:
            viol.append(f"{lv} round {k}: die owners changed")
        if g(d1, "swaps") != g(d0, "swaps"):
            viol.append(f"{lv} round {k}: {g(d1, 'swaps') - g(d0, 'swaps')} swap(s) during the run")
        before = {x["die"]: x for x in d0["dies"]}
        delta = {}
        for x in d1["dies"]:
            delta[x["die"]] = {key: g(x, key) - g(before[x["die"]], key) for key in ("reads", "programs", "erase_ops")}
            t = tot.setdefault(x["die"], {"reads": 0, "programs": 0, "erase_ops": 0})
            for key in t:
                t[key] += delta[x["die"]][key]
        sumk = lambda dies, key: sum(delta[x][key] for x in dies)
        R0, R1, W0, W1 = ns_stats(s0, rns), ns_stats(s1, rns), ns_stats(s0, wns), ns_stats(s1, wns)
        r_units = sum(g(R1, "ftl", key) - g(R0, "ftl", key) for key in UNIT_KEYS)
        r_erases = g(R1, "ftl", "flash_erases") - g(R0, "ftl", "flash_erases")
        w_units = sum(g(W1, "ftl", key) - g(W0, "ftl", key) for key in UNIT_KEYS)
        w_host = g(W1, "ftl", "units_written_host") - g(W0, "ftl", "units_written_host")
        w_erases = g(W1, "ftl", "flash_erases") - g(W0, "ftl", "flash_erases")
        w_gc = g(W1, "ftl", "gc_runs") - g(W0, "ftl", "gc_runs")
        r_reads = g(R1, "io", "read_cmds") - g(R0, "io", "read_cmds")
        w_writes = g(W1, "io", "write_cmds") - g(W0, "io", "write_cmds")
        susp = g(R1, "nand", "suspends") - g(R0, "nand", "suspends")
        # ---- isolation, this round ----
        for die in (x for x, o in own0.items() if o == "free"):
            if any(delta[die].values()):
                viol.append(f"{lv} round {k}: free die {die} was touched: {delta[die]}")
        if not shared:
            rp, rerase, rr = sumk(rd, "programs"), sumk(rd, "erase_ops"), sumk(rd, "reads")
            # R only reads: a program or erase on its dies beyond its own FTL's is someone else's.
            if rp > r_units or rerase > r_erases:
                viol.append(f"{lv} round {k}: R's dies saw {rp} programs and {rerase} erases; R's own FTL "
                            f"wrote {r_units} units and erased {r_erases} blocks")
            if rr < 0.98 * r_reads:
                viol.append(f"{lv} round {k}: R's dies saw {rr} flash reads for R's {r_reads} host reads")
            wp = sumk(wd, "programs")
            if w_on and w_units and wp * UNITS_PER_PAGE < 0.95 * w_units - 4096:
                viol.append(f"{lv} round {k}: W's FTL wrote {w_units} units but W's dies saw only {wp} programs")
        pr, pw = perf(b + ".R.log"), perf(b + ".W.log") if w_on else {}
        lat = g(ns_stats(sm, rns), "io", "read_lat")
        mid = (lat["p50_ns"] / 1e3, lat["p99_ns"] / 1e3) if isinstance(lat, dict) and lat.get("count") else None
        per_round.append({"k": k, "R": pr, "W": pw, "r_reads": r_reads, "w_writes": w_writes,
                          "flash_r": None if shared else sumk(rd, "reads"),
                          "r_prog": None if shared else sumk(rd, "programs"), "r_units": r_units,
                          "w_units": w_units, "w_waf": w_units / w_host if w_host else None, "w_gc": w_gc,
                          "w_erases": w_erases, "susp": susp, "mid": mid,
                          "bsched": sched(b + ".sched"), "rsched": sched(b + ".rsched"),
                          "load": open(b + ".load").read().strip()})

    def tag(die):
        if die in shared:
            return "pool R+W"
        if die in rd:
            return "R"
        if die in wd:
            return "W" if w_on else "W (idle)"
        return owners0[die]

    title = {"channel": "channel:2 each, no shared die or channel",
             "software": "one software pool of 2 channels: the same 8 dies, R and W on their own blocks",
             "chip": "chip:8 each, R dies 0-1 and W dies 2-3 of channels 2-5 (shared buses)",
             "alone": "R of the channel level, W idle"}[lv]
    P(f"== {lv} ({title})")
    P(f"Per die, summed over the {rounds} rounds:")
    P(f"{'ch':>3} {'die':>4}  {'owner':<9} {'reads':>9} {'programs':>9} {'erases':>7}")
    for die in sorted(tot):
        P(f"{die // 4:>3} {die:>4}  {tag(die):<9} {tot[die]['reads']:>9} {tot[die]['programs']:>9} "
          f"{tot[die]['erase_ops']:>7}")
    P(f"  {'group':<9} {'dies':>4} {'reads':>9} {'programs':>9} {'erases':>7}")
    for name, dies in (("R", rd - wd), ("W" if w_on else "W (idle)", wd - rd), ("pool R+W", shared),
                       ("free", {x for x in tot if x not in rd | wd})):
        if dies:
            P(f"  {name:<9} {len(dies):>4} {sum(tot[x]['reads'] for x in dies):>9} "
              f"{sum(tot[x]['programs'] for x in dies):>9} {sum(tot[x]['erase_ops'] for x in dies):>7}")
    P("Per round (latency in us; 'bloxd p50/p99' is bloxd's own view of R's reads, a 1-2 s window mid-run;")
    P("cpu/wait: % of wall time on a CPU / runnable but waiting for one, of bloxd over the round and of R's")
    P("client over the first half of its measured window):")
    P(f"  {'rnd':>3} {'load':>5} | {'R IOPS':>7} {'mean':>6} {'p50':>5} {'p99':>6} {'p99.9':>7} | {'W IOPS':>6} "
      f"{'mean':>6} {'p99':>7} | {'R host rd':>9} {'flash rd':>9} {'R units':>7} {'R progs':>7} | "
      f"{'W units':>8} {'WAF':>5} {'GC':>4} {'erases':>6} | {'suspends':>8} | {'bloxd p50/p99':>13} | "
      f"{'bloxd cpu/wait':>14} {'R cli cpu/wait':>14}")
    for x in per_round:
        pr, pw = x["R"], x["W"]
        mids = "NA" if not x["mid"] else "%.0f/%.0f" % x["mid"]
        bs = "NA" if not x["bsched"] else "%.0f/%.0f" % x["bsched"]
        rs = "NA" if not x["rsched"] else "%.0f/%.0f" % x["rsched"]
        P(f"  {x['k']:>3} {x['load']:>5} | {fmt(pr.get('iops'), 7)} {fmt(pr.get('mean'), 6)} "
          f"{fmt(pr.get('p50'), 5)} {fmt(pr.get('p99'), 6)} {fmt(pr.get('p999'), 7)} | "
          f"{fmt(pw.get('iops'), 6)} {fmt(pw.get('mean'), 6)} {fmt(pw.get('p99'), 7)} | "
          f"{x['r_reads']:>9} {'pool' if x['flash_r'] is None else x['flash_r']:>9} {x['r_units']:>7} "
          f"{'pool' if x['r_prog'] is None else x['r_prog']:>7} | {x['w_units']:>8} {fmt(x['w_waf'], 5, 2)} "
          f"{x['w_gc']:>4} {x['w_erases']:>6} | {x['susp']:>8} | {mids:>13} | {bs:>14} {rs:>14}")
    s = {}
    for key, t, q in (("r_iops", "R", "iops"), ("r_mean", "R", "mean"), ("r_p50", "R", "p50"), ("r_p99", "R", "p99"),
                      ("r_p999", "R", "p999"), ("w_iops", "W", "iops"), ("w_mean", "W", "mean"), ("w_p99", "W", "p99")):
        s[key] = med([x[t].get(q) for x in per_round])
    s["mid_p50"] = med([x["mid"][0] if x["mid"] else None for x in per_round])
    s["mid_p99"] = med([x["mid"][1] if x["mid"] else None for x in per_round])
    s["bwait"] = med([x["bsched"][1] if x["bsched"] else None for x in per_round])
    s["rwait"] = med([x["rsched"][1] if x["rsched"] else None for x in per_round])
    s["erases"] = sum(x["w_erases"] for x in per_round) if w_on else None
    s["susp"] = sum(x["susp"] for x in per_round)
    s["rounds"] = per_round
    summary[lv] = s
    P()

P(f"== Tenants per level (median of the {rounds} rounds; latency in us)")
P(f"{'level':<9} | {'R IOPS':>7} {'mean':>6} {'p50':>5} {'p99':>6} {'p99.9':>7} | {'W IOPS':>6} {'mean':>6} "
  f"{'p99':>7} | {'W erases':>8} {'suspends':>8} | bloxd R p50/p99 | wait% bloxd, R cli")
for lv, _, _ in levels:
    s = summary[lv]
    P(f"{lv:<9} | {fmt(s['r_iops'], 7)} {fmt(s['r_mean'], 6)} {fmt(s['r_p50'], 5)} {fmt(s['r_p99'], 6)} "
      f"{fmt(s['r_p999'], 7)} | {fmt(s['w_iops'], 6)} {fmt(s['w_mean'], 6)} {fmt(s['w_p99'], 7)} | "
      f"{'-' if s['erases'] is None else s['erases']:>8} {s['susp']:>8} | "
      f"{(fmt(s['mid_p50'], 0).strip() + '/' + fmt(s['mid_p99'], 0).strip()):>15} | "
      f"{fmt(s['bwait'], 5)} {fmt(s['rwait'], 5)}")
P()
ref = summary["channel"]
P("R's latency against the channel level (this run only): the ratio of the medians, and in")
P("brackets the median of the ratios within each round (the levels of one round run back to back):")


def paired(lv, key, q=None):
    xs = []
    for a, c in zip(summary[lv]["rounds"], ref["rounds"]):
        va = a["R"].get(q) if q else (a["mid"][1] if a["mid"] else None)
        vc = c["R"].get(q) if q else (c["mid"][1] if c["mid"] else None)
        if va is not None and vc:
            xs.append(va / vc)
    m = med(xs)
    return "NA" if m is None else f"{m:.2f}x"


for lv, _, _ in levels:
    if lv == "channel":
        continue
    s = summary[lv]
    P(f"  {lv + '/channel:':<17} mean {ratio(s['r_mean'], ref['r_mean'])} [{paired(lv, 'r_mean', 'mean')}]  "
      f"p50 {ratio(s['r_p50'], ref['r_p50'])} [{paired(lv, 'r_p50', 'p50')}]  "
      f"p99 {ratio(s['r_p99'], ref['r_p99'])} [{paired(lv, 'r_p99', 'p99')}]  "
      f"p99.9 {ratio(s['r_p999'], ref['r_p999'])} [{paired(lv, 'r_p999', 'p999')}]  "
      f"bloxd p99 {ratio(s['mid_p99'], ref['mid_p99'])} [{paired(lv, 'mid')}]  "
      f"R IOPS {ratio(s['r_iops'], ref['r_iops'])} [{paired(lv, 'r_iops', 'iops')}]")
P()
P("Isolation checks, every round: die owners as ns show says and unchanged, no swap; free dies")
P("untouched; on the channel and chip levels (and alone) no program or erase on R's dies beyond")
P("what R's own FTL wrote and erased, R's dies' flash reads >= R's host reads, and W's programs")
P("on W's dies account for what W's FTL wrote.")
if viol:
    P("ISOLATION: VIOLATED")
    for v in viol:
        P("  " + v)
else:
    P("ISOLATION: OK (no violation in any round of any level)")
sys.exit(1 if viol else 0)
PY
bd_finish "$REPORT" $? "ISOLATION VIOLATED"
