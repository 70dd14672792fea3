#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_fdp.sh - runs inside the initiator VM against a bloxd namespace with
# Flexible Data Placement (ftl.placement_handles 4) at $HOST_IP:$PORT,
# subsystem $NQN, nsid 1: Identify Controller's FDPS bit, nvme-cli's fdp
# plugin (configs, usage, set-events, status, update, stats, events), writes
# with a placement identifier (nvme write --dir-type 2 --dir-spec N) read
# back, an invalid identifier (written to handle 0, an event), and the
# statistics' host bytes equal to what was written. Exit 0 when every check
# passed.
set -u
fail() { echo "GUEST-FDP FAIL: $*"; exit 1; }
ok() { echo "GUEST-FDP ok: $*"; }

modprobe nvme-tcp 2>/dev/null
nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" || fail "connect"
sleep 2
ctrl=
for c in /sys/class/nvme/nvme*; do
	[[ $(cat "$c/subsysnqn") == "$NQN" ]] && ctrl=/dev/$(basename "$c")
done
ns=${ctrl}n1
[[ -c $ctrl && -b $ns ]] || fail "no controller or namespace for $NQN"
ctratt=$(nvme id-ctrl "$ctrl" | awk '/^ctratt/ {print $3}')
(( (ctratt & 0x80000) != 0 )) || fail "id-ctrl ctratt $ctratt lacks FDPS (0x80000)"
ok "id-ctrl ctratt $ctratt: Flexible Data Placement supported"
eg=$(nvme id-ns "$ns" | awk '/^endgid/ {print $3}')
[[ -n $eg && $eg != 0 ]] || fail "id-ns endgid '$eg'"
nvme fdp configs "$ctrl" -e "$eg" || fail "fdp configs"
nvme fdp configs "$ctrl" -e "$eg" -o json | tr -d ' \n' | grep -q '"nruh":4' ||
	fail "fdp configs: not 4 reclaim unit handles"
nvme fdp configs "$ctrl" -e "$eg" -o json | tr -d ' \n' | grep -q '"nrg":1' ||
	fail "fdp configs: not 1 reclaim group"
ok "fdp configs: 4 handles, 1 reclaim group (endurance group $eg)"
nvme fdp usage "$ctrl" -e "$eg" || fail "fdp usage"
nvme fdp set-events "$ns" -n 1 -p 0 -e -t 3 | grep -q Success || fail "fdp set-events"

# 32 KiB with each placement identifier, and one with an invalid one (to handle 0).
bytes=0
for h in 0 1 2 3 9; do
	head -c 32768 /dev/urandom >"w$h"
	nvme write "$ns" -s $((h * 1024)) -c 7 -z 32768 -d "w$h" --dir-type 2 --dir-spec $h ||
		fail "write --dir-type 2 --dir-spec $h"
	bytes=$((bytes + 32768))
done
for h in 0 1 2 3 9; do
	nvme read "$ns" -s $((h * 1024)) -c 7 -z 32768 -d "r$h" || fail "read $h"
	cmp "w$h" "r$h" || fail "data written with placement identifier $h differs"
done
ok "writes with placement identifiers 0-3 and 9 read back"

nvme fdp status "$ns" || fail "fdp status"
nvme fdp status "$ns" -o json | tr -d ' \n' | grep -q '"nruhsd":4' || fail "fdp status: not 4 descriptors"
nvme fdp update "$ns" -p 1 | grep -q Success || fail "fdp update"
nvme fdp status "$ns" -o json | tr -d ' \n' | grep -Eq '"pid":1,"ruhid":1,"earutr":0,"ruamw":0' ||
	fail "fdp status after update: handle 1's reclaim unit not fresh"
ok "fdp status and update"

nvme flush "$ns" || fail "flush"
nvme fdp stats "$ctrl" -e "$eg" || fail "fdp stats"
hbmw=$(nvme fdp stats "$ctrl" -e "$eg" -o json | tr -d ' \n"' | sed -n 's/.*hbmw:\([0-9]*\).*/\1/p')
[[ $hbmw == "$bytes" ]] || fail "fdp stats: hbmw '$hbmw', wrote $bytes"
ok "fdp stats: hbmw $hbmw bytes"
nvme fdp events "$ctrl" -e "$eg" -E || fail "fdp events"
nvme fdp events "$ctrl" -e "$eg" -E -o json | tr -d ' \n' | grep -q '"type":3' ||
	fail "fdp events: no Invalid Placement Identifier event"
ok "fdp events: Invalid Placement Identifier"

nvme disconnect -n "$NQN" || fail "disconnect"
ok "all FDP checks passed"
exit 0
