#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_ana.sh - interop test of ANA multipath with a real Linux NVMe/TCP
# initiator.
#
# Usage: run_ana.sh BLOXD BLOXCTL [KERNEL_SERIES]
# (BLOX_INTEROP_ANA_PORT: the first port to try, 4423 unless set)
#
# Starts bloxd on the host's 127.0.0.1 with one subsystem,
# nqn.2026-12.io.blox:ana-interop (a 64 MiB ram namespace in ANA group 1), on
# two listeners (free ports from 4423 up): the first optimized, the second
# non-optimized for group 1 (the config file's ana_state). guest_ana.sh runs
# in the initiator VM (kernel 6.1 or 6.12) and connects through both; while
# it runs, this script watches the console for the guest's requests and
# carries them out with bloxctl on the host ("set PORT GROUP STATE": bloxctl
# listener ana-state, through the change state for MS ms with "set PORT
# GROUP STATE MS"; "mark NAME": note the I/O commands each listener's
# controllers took, from bloxctl ctrl list --json). Afterwards: between the
# marks "down" and "down-end" (the first port inaccessible) the first port
# took no I/O command and the second did; before and after, the first did.
# Discovery referrals: a second bloxd (node B, its own subsystem, data
# directory and discovery port) is what the first's config file refers
# hosts to ("referrals": 10.0.2.2, B's port, as the guest reaches it); the
# guest's nvme discover on the first lists the referral, a discover at the
# referral's address lists node B's subsystem, and a referral the host
# adds ("referral add") shows with the generation counter moved.
# Both bloxd are stopped with SIGTERM by their PIDs and must exit 0. Exit status: 0
# passed, 1 failed, 77 (ctest SKIP) when not root or the harness is missing.
# The harness: lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
BLOXD=${1:?usage: run_ana.sh BLOXD BLOXCTL [6.1|6.12]}
BLOXCTL=${2:?usage: run_ana.sh BLOXD BLOXCTL [6.1|6.12]}
NQN=nqn.2026-12.io.blox:ana-interop
interop_init ana "${3:-6.1}"
p1=$(free_port "${BLOX_INTEROP_ANA_PORT:-$((PORT_BASE + 2))}")
p2=$(free_port $((p1 + 1)) "$p1")
pb=$(free_port $((p2 + 1)) "$p2")
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $p1 },
                 { "address": "127.0.0.1", "port": $p2, "ana_state": ["1=non-optimized"] } ],
  "referrals": [ { "address": "10.0.2.2", "port": $pb } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "ram", "size": "64M" } ] } ] }
JSON
cat >"$work/node-b.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $pb, "discovery_only": true },
                 { "address": "127.0.0.1", "port": $((pb + 1)) } ],
  "subsystems": [ { "nqn": "$NQN-b", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "ram", "size": "16M" } ] } ] }
JSON
mkdir -p "$work/data" "$work/data-b"
bloxd_start "$work/bloxd-b.log" --config "$work/node-b.json" --data-dir "$work/data-b" \
	--admin-socket "$work/b.sock" --log-level 2
pidb=$BLOXD_PID
# --referral-probe-ms 0: the referral's 10.0.2.2 is B as the guest reaches it
# (QEMU's NAT); from the host nothing answers there, and A's probes would
# rightly leave it out of the log.
bloxd_start "$work/bloxd.log" --config "$work/bloxd.json" --data-dir "$work/data" \
	--admin-socket "$sock" --log-level 2 --reactors 2 --referral-probe-ms 0
pid=$BLOXD_PID
bloxd_wait "$p2" "$pb"

# shellcheck disable=SC2317 # called by request
# io_of PORT: the commands the I/O queues of PORT's controllers took.
io_of() {
	"$BLOXCTL" -s "$sock" ctrl list --json | python3 -c '
import json, sys
port = sys.argv[1]
n = 0
for c in json.load(sys.stdin).get("controllers", []):
    if c.get("listener", "").endswith(":" + port):
        n += sum(int(q.get("commands", 0)) for q in c.get("queues", []) if q.get("qid", 0) > 0)
print(n)' "$1"
}
# The guest's requests, as they appear on the console.
# shellcheck disable=SC2317 # called by ask_watch (io_of too)
request() {
	case $1 in
	set) asked listener ana-state "127.0.0.1:$2" --group "$3" --state "$4" ${5:+--transition-ms "$5"} ;;
	mark) echo "$2 $(io_of "$p1") $(io_of "$p2")" >>"$work/marks" ;;
	referral) asked referral add "$3:$4" ;;
	esac
}
ask_watch GUEST-ANA request
rc=0
vm_run 400 "P1=$p1 P2=$p2 PB=$pb NQN=$NQN" "$HERE/guest_ana.sh" >/dev/null || rc=1
guest_lines GUEST-ANA
[[ -f $work/marks ]] && sed "s/^/[$TEST] mark (name, port $p1, port $p2 I\/O commands): /" "$work/marks"
# mark NAME COLUMN: the count noted at mark NAME for port 1 (2) or 2 (3).
mark() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$work/marks" 2>/dev/null; }
if [[ $rc == 0 ]]; then
	b1=$(mark before 2) d1=$(mark down 2) e1=$(mark down-end 2) a1=$(mark after 2)
	d2=$(mark down 3) e2=$(mark down-end 3)
	if [[ -z $b1 || -z $d1 || -z $e1 || -z $a1 || -z $d2 || -z $e2 ]]; then
		say "FAIL: marks missing"
		rc=1
	elif ((e1 != d1)); then
		say "FAIL: port $p1 took $((e1 - d1)) I/O commands while inaccessible"
		rc=1
	elif ((e2 <= d2)); then
		say "FAIL: port $p2 took no I/O while port $p1 was inaccessible"
		rc=1
	elif ((a1 <= e1)); then
		say "FAIL: port $p1 took no I/O once optimized again"
		rc=1
	else
		say "I/O moved: port $p2 took $((e2 - d2)) commands while port $p1 was inaccessible (it took none), port $p1 $((a1 - e1)) once back"
	fi
fi
asks_check || rc=1
bloxd_stop "$pid" "$work/bloxd.log" || rc=1
bloxd_stop "$pidb" "$work/bloxd-b.log" || rc=1
interop_end $rc
