#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vssd_spdk_perf.sh: a big vSSD against the network's ceiling, with SPDK's own
# client. One bloxd (pinned to CPU 0: one reactor) serves two subsystems: a
# 512 MiB RAM namespace and a 4 GiB vSSD of isolation channel:6 (24 dies) on
# a device nand0 of 8 channels x 4 dies (TLC defaults, file store in a
# temporary data directory), every LBA of both written first with bloxperf
# and the vSSD then read sequentially twice, in 128 KiB and 4 KiB reads (its
# mapping warmed, see below).
# Then spdk_nvme_perf (../shared/anchors/spdk, on CPU 1, -c 0x2 --no-huge)
# runs 4 KiB random reads for 8 s at each QD of --qds on each namespace in
# turn, --reps times; in the middle of each run `bloxctl --json stats` gives
# bloxd's own figures (IOPS, mean latency and QD over its 1-2 s window), the
# model's read bound and latency model, the device's lateness; and bloxd's
# CPU over the run comes from /proc/PID/stat. Figures to --out (default
# stdout). A benchmark: nothing is asserted.
#
#   tests/bench/vssd_spdk_perf.sh BUILD_DIR [--qds "1 128 256"] [--reps 3] [--out FILE]
#                                 [--reactors N] [--bloxd-cpus LIST] [--devices 1|2]
#                                 [--data-dir DIR] [--huge-pages on|off]
#
# --reactors N (default 1) and --bloxd-cpus LIST (default 0): bloxd's reactors
# and the CPUs taskset gives it (e.g. --reactors 2 --bloxd-cpus 0,1: the device
# then lives on reactor 1, which shares CPU 1 with the client); each line then
# names the device's reactor and that reactor's CPU over bloxd's window.
#
# --devices 2: a second device nand1 like nand0 with a vSSD v24b like v24
# (filled and read once the same way); each QD then also runs "both": one
# spdk_nvme_perf driving v24 and v24b at once (QD each), a line per vSSD with
# the client's figures for it, bloxd's, and its device's reactor and lateness.
#
# --data-dir DIR: bloxd's data directory (the stores' files) in DIR, a new
# directory made there and removed after (default: the temporary directory),
# e.g. on a tmpfs mounted with huge=always, whose store mappings then get
# 2 MiB pages.
#
# --huge-pages on: the devices' stores on 2 MiB pages (the nand key
# huge_pages, docs/bloxd.md), for the reads; the header then says how much of
# nand0's store mapping was PMD-mapped after the runs.
#
# BUILD_DIR holds daemon/bloxd, cli/bloxctl and tests/initiator/bloxperf (a
# Release build). Needs root (spdk_nvme_perf), taskset, python3 and the SPDK
# anchor's run-time packages (its compare.sh installs them). Exit 0 when it
# ran, 2 when it could not.
set -u -o pipefail

die() { echo "vssd_spdk_perf.sh: $*" >&2; exit 2; }
REPO=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
ANCHOR=$REPO/../shared/anchors/spdk
[ $# -ge 1 ] || die "usage: vssd_spdk_perf.sh BUILD_DIR [--qds LIST] [--reps N] [--out FILE]"
BUILD=$1
shift
QDS="1 128 256" REPS=3 OUT=/dev/stdout NREACT=1 BCPUS=0 NDEV=1 DDIR= HUGE=off
while [ $# -gt 0 ]; do
	case $1 in
	--qds) QDS=$2 ;;
	--reps) REPS=$2 ;;
	--out) OUT=$2 ;;
	--reactors) NREACT=$2 ;;
	--bloxd-cpus) BCPUS=$2 ;;
	--devices) NDEV=$2 ;;
	--data-dir) DDIR=$2 ;;
	--huge-pages) HUGE=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2 || die "$1 needs a value"
done
case $NDEV in 1|2) ;; *) die "--devices is 1 or 2" ;; esac
case $HUGE in on) HP=', "huge_pages": true' ;; off) HP= ;; *) die "--huge-pages is on or off" ;; esac
BLOXD=$BUILD/daemon/bloxd BLOXCTL=$BUILD/cli/bloxctl BPERF=$BUILD/tests/initiator/bloxperf
NPERF=$ANCHOR/bin/spdk_nvme_perf
for b in "$BLOXD" "$BLOXCTL" "$BPERF" "$NPERF"; do [ -x "$b" ] || die "no executable $b"; done
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:4d87416b-b634-42dd-b63e-48aec659fb9f
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d /tmp/vssd_spdk_perf.XXXXXX)
DATA=$WORK/d
if [ -n "$DDIR" ]; then
	DATA=$(mktemp -d "$DDIR/vssd_spdk_perf.XXXXXX") || die "cannot make a directory in $DDIR"
fi
BPID=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	[ -n "$BPID" ] && kill "$BPID" 2>/dev/null && wait "$BPID" 2>/dev/null
	rm -rf "$WORK"
	[ -n "$DDIR" ] && rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

DEV1='' SUB1=''
if [ "$NDEV" = 2 ]; then
	DEV1=', { "name": "nand1", "store": "file", "nand": { "channels": 8, "dies_per_channel": 4'"$HP"' } }'
	SUB1=',
    { "nqn": "nqn.2026-12.io.blox:v24b", "allow_any_host": true,
      "namespaces": [ { "nsid": 1, "backend": "nand", "size": "4G", "device": "nand1",
                        "isolation": "channel:6" } ] }'
fi
cat >"$WORK/cfg.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $PORT } ],
  "devices": [ { "name": "nand0", "store": "file", "nand": { "channels": 8, "dies_per_channel": 4$HP } }$DEV1 ],
  "subsystems": [
    { "nqn": "nqn.2026-12.io.blox:ram", "allow_any_host": true,
      "namespaces": [ { "nsid": 1, "backend": "ram", "size": "512M", "block_size": 4096 } ] },
    { "nqn": "nqn.2026-12.io.blox:v24", "allow_any_host": true,
      "namespaces": [ { "nsid": 1, "backend": "nand", "size": "4G", "device": "nand0",
                        "isolation": "channel:6" } ] }$SUB1 ] }
JSON
taskset -c "$BCPUS" "$BLOXD" -c "$WORK/cfg.json" --data-dir "$DATA" --admin-socket "$WORK/s.sock" \
	--reactors "$NREACT" >"$WORK/bloxd.log" 2>&1 &
BPID=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
	kill -0 "$BPID" 2>/dev/null || die "bloxd did not start: $(tail -3 "$WORK/bloxd.log")"
	sleep 0.1
done
bp() { taskset -c 1 "$BPERF" -a 127.0.0.1 -p "$PORT" "$@"; }
# Each bloxd thread's utime+stime ticks, as NAME=TICKS (reactor threads are bloxd-rK; the main thread is reactor 0).
threads() {
	for t in /proc/"$BPID"/task/*; do
		awk -v n="$(cat "$t/comm")" '{ print n "=" $14 + $15 }' "$t/stat"
	done | awk -F= '{ s[$1] += $2 } END { for (k in s) printf "%s=%d ", (k == "bloxd" ? "r0" : k), s[k] }'
}
bp -n nqn.2026-12.io.blox:ram -q 32 -w write -o 131072 -c 4096 >/dev/null || die "RAM fill failed"
bp -n nqn.2026-12.io.blox:v24 -q 32 -w write -o 131072 -c 32768 >"$WORK/fill.txt" ||
	die "vSSD fill failed"
# One sequential read of the whole vSSD: bloxd's first read of each 4 KiB of
# the file store's mapping costs a page fault (~2-3 us on a virtualized host),
# which a run of 8 s would otherwise be paying off. Then once more in 4 KiB
# reads, which go to the socket from the mapping in place (lent reads): on
# this host (a PVM guest) the kernel's first copy out of each 4 KiB of a
# user mapping faults again on its own, 4 GiB of it taking about 5 s.
warm() {
	bp -n "nqn.2026-12.io.blox:$1" -q 32 -w read -o 131072 -c 32768 >"$2" &&
		bp -n "nqn.2026-12.io.blox:$1" -q 128 -w read -o 4096 -c 1048576 >/dev/null
}
warm v24 "$WORK/warm.txt" || die "vSSD warm-up read failed"
NSS="ram v24"
if [ "$NDEV" = 2 ]; then
	bp -n nqn.2026-12.io.blox:v24b -q 32 -w write -o 131072 -c 32768 >/dev/null ||
		die "second vSSD fill failed"
	warm v24b /dev/null || die "second vSSD warm-up read failed"
	NSS="ram v24 v24b both"
fi
# The fill's dirty pages to disk now, not by the kernel's flusher in the
# middle of a measured run (30 s after the fill, by default).
sync -f "$DATA" || die "sync failed"
{
	echo "# vssd_spdk_perf.sh $BUILD --qds \"$QDS\" --reps $REPS --reactors $NREACT --bloxd-cpus $BCPUS --huge-pages $HUGE"
	echo "# spdk_nvme_perf (SPDK anchor, -c 0x2 --no-huge) on CPU 1, bloxd on CPUs $BCPUS (taskset) with $NREACT reactor(s); $(grep -o 'device nand0: .*on reactor [0-9]*' "$WORK/bloxd.log" | grep -o 'reactor [0-9]*' | sed 's/^/nand0 on /')$(grep -o 'device nand1: .*on reactor [0-9]*' "$WORK/bloxd.log" | grep -o 'reactor [0-9]*' | sed 's/^/, nand1 on /')"
	echo "# bloxd $BLOXD, its tree at $(git -C "$(dirname "$BUILD")" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%F %T') UTC, $(nproc) CPUs $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# data directory $DATA ($(stat -f -c %T "$DATA"))"
	echo "# a 512 MiB RAM namespace and a 4 GiB vSSD channel:6 (24 dies) on nand0 (8 x 4 dies, TLC defaults, file store); every LBA of both written first, then the vSSD read once in 128 KiB and once in 4 KiB reads"
	grep -E 'MiB/s' "$WORK/fill.txt" | sed 's/^ */# vSSD fill (128 KiB, QD 32): /'
	grep -E 'MiB/s' "$WORK/warm.txt" | sed 's/^ */# vSSD read once (128 KiB, QD 32): /'
	[ "$NDEV" = 2 ] && echo "# and nand1 like nand0 with a vSSD v24b like v24; 'v24*' and 'v24b*': both driven at once by one client at the QD each, the client's line for each"
	echo "# client: spdk_nvme_perf's Total line; bloxd: bloxctl stats over its window in the middle of the run; CPU: bloxd's utime+stime over the run"
	for rep in $(seq "$REPS"); do
		for qd in $QDS; do
			for ns in $NSS; do
				trids=() names=$ns
				[ "$ns" = both ] && names="v24 v24b"
				for n in $names; do
					trids+=(-r "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:$PORT subnqn:nqn.2026-12.io.blox:$n hostnqn:$HOSTNQN")
				done
				t0=$(awk '{ print $14 + $15 }' "/proc/$BPID/stat")
				thr0=$(threads)
				taskset -c 1 "$NPERF" -c 0x2 --no-huge -s 1024 "${trids[@]}" -q "$qd" -o 4096 \
					-w randread -t 8 >"$WORK/p.txt" 2>&1 &
				PP=$!
				sleep 5.5
				"$BLOXCTL" -s "$WORK/s.sock" --json stats >"$WORK/st.json"
				wait "$PP" || die "spdk_nvme_perf failed: $(tail -3 "$WORK/p.txt")"
				t1=$(awk '{ print $14 + $15 }' "/proc/$BPID/stat")
				thr1=$(threads)
				rm -rf "/var/run/dpdk/spdk_pid$PP" # what the stopped client leaves
				python3 - "$ns" "$qd" "$rep" "$WORK/p.txt" "$WORK/st.json" \
					$((t1 - t0)) "$(getconf CLK_TCK)" "$thr0" "$thr1" <<'PY'
import json, re, sys
ns, qd, rep, pf, stf, ticks, hz, thr0, thr1 = sys.argv[1:10]
out = open(pf).read()
# The client's figures per subsystem (IOPS, MiB/s, mean us), and in total.
per = {m.group(1).rsplit(':', 1)[1]: (float(m.group(2)), float(m.group(4)))
       for m in re.finditer(r'subnqn:([^\s)]+)\)? NSID \d+ from core\s+\d+:\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)', out)}
tot = re.search(r'^Total\s*:\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)', out, re.M)
names = ['v24', 'v24b'] if ns == 'both' else [ns]
if ns != 'both':
    per[ns] = (float(tot.group(1)), float(tot.group(3)))
stats = {d['nqn'].rsplit(':', 1)[1]: d for d in json.load(open(stf))['namespaces']}
cpu = int(ticks) / (8 * int(hz))
for name in names:
    iops, mean = per.get(name, (0.0, 0.0))
    d = stats[name]
    io, n, m = d['io'], d.get('nand') or {}, d.get('model') or {}
    late = n.get('lateness') or {}
    bound = m.get('read_iops_bound', 0)
    label = name if ns != 'both' else name + '*'
    print(f"{label:5s} qd {qd:>4s} rep {rep}: client {iops / 1e3:6.1f} kIOPS mean {mean:7.1f} us"
          f" | bloxd {io['read_iops'] / 1e3:6.1f} kIOPS mean {io['read_lat']['mean_ns'] / 1e3:7.1f} us"
          f" QD {io['mean_queue_depth']:6.1f}"
          + (f" | bound {bound / 1e3:5.1f}K ({iops / bound:.2f}) model {m.get('latency_model', '-')}"
             f" mean {m.get('read_mean_pred_ns', 0) / 1e3:6.1f} us"
             f" | late p50/p99/p99.99/max {late.get('p50_ns', 0) / 1e3:.1f}/{late.get('p99_ns', 0) / 1e3:.1f}"
             f"/{late.get('p9999_ns', 0) / 1e3:.1f}/{late.get('max_ns', 0) / 1e3:.1f} us"
             f" | reactor {n.get('reactor', 0)} at {n.get('reactor_cpu', 0):.0%}" if bound else "")
          + f" | CPU {cpu:.0%}")
# Per reactor thread: CPU time per I/O over the run (us), when there are several.
t0 = dict(x.split('=') for x in thr0.split())
t1 = dict(x.split('=') for x in thr1.split())
ios = float(tot.group(1)) * 8 if tot else 0
if len(t1) > 1 and ios > 0:
    print("      CPU per I/O by thread: " + ", ".join(
        f"{k} {(int(t1[k]) - int(t0.get(k, 0))) / int(hz) * 1e6 / ios:.2f} us"
        for k in sorted(t1)))
PY
			done
		done
	done
	echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# huge pages $HUGE: nand0's store mapping $(awk '/^[0-9a-f]+-[0-9a-f]+ / { on = index($0, "dev-nand0.nand") > 0 }
		on && /^(Rss|FilePmdMapped|ShmemPmdMapped):/ { s[$1] += $2 }
		END { printf "Rss %d kB, PMD-mapped %d kB", s["Rss:"], s["FilePmdMapped:"] + s["ShmemPmdMapped:"] }' "/proc/$BPID/smaps")"
} >"$OUT"
exit 0
