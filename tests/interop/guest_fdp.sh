#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_fdp.sh - runs inside the initiator VM against a bloxd namespace with
# Flexible Data Placement (ftl.placement_handles 4) at $HOST_IP:$PORT,
# subsystem $NQN, nsid 1: Identify Controller's FDPS bit, nvme-cli's fdp
# plugin (configs, usage, set-events, status, update, stats, events), writes
# with a placement identifier (nvme write --dir-type 2 --dir-spec N) read
# back, an invalid identifier (written to handle 0, an event), and the
# statistics' host bytes equal to what was written; the host events an
# invalid identifier and an update of a partly written unit make, and the
# controller event of a handle whose reclaim unit filled (fdp set-events
# per handle, fdp events with and without -E); on namespace 2 (a reclaim
# unit time limit of 2 s, ERUTL in fdp configs), a unit written and left
# open is closed by the controller: the Reclaim Unit Time Limit Exceeded
# host event (01h) in fdp events -E, read again with nvme get-log 0x23.
# Exit 0 when every check passed.
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
# The block device of namespace $1: the kernel numbers them in the order
# it finds them (6.12 scans namespaces in parallel), not by NSID.
ns_dev() {
	local d
	for d in "$ctrl"n*; do
		[[ -b $d ]] && nvme get-ns-id "$d" | grep -q ":$1\$" && { echo "$d"; return; }
	done
}
[[ -c $ctrl ]] || fail "no controller for $NQN"
ns=$(ns_dev 1)
[[ -b $ns ]] || fail "no block device of namespace 1 of $NQN"
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
# Reclaim Unit Not Fully Written on handle 1 (its unit holds 32 KiB), a host event.
nvme fdp set-events "$ns" -n 1 -p 1 -e -t 0 | grep -q Success || fail "fdp set-events -p 1 -t 0"
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
nvme fdp events "$ctrl" -e "$eg" -E -o json | tr -d ' \n' | grep -Eiq '"type":0,"fdpef":[0-9]+,"pid":1,' ||
	fail "fdp events: no Reclaim Unit Not Fully Written event of placement identifier 1"
ok "fdp events: Invalid Placement Identifier, Reclaim Unit Not Fully Written"

# A controller event: handle 3's reclaim unit fills and its next write opens
# another (Implicitly Modified Reclaim Unit Handle, 81h), enabled on handle 3 only.
nvme fdp set-events "$ns" -n 1 -p 3 -e -t 129 | grep -q Success || fail "fdp set-events -p 3 -t 129"
runs=$(nvme fdp configs "$ctrl" -e "$eg" -o json | tr -d ' \n"' | sed -n 's/.*runs:\([0-9]*\).*/\1/p')
[[ -n $runs && $runs -gt 0 ]] || fail "fdp configs: no reclaim unit size"
nvme fdp events "$ctrl" -e "$eg" -o json | tr -d ' \n' | grep -Eq '"n":0' ||
	fail "fdp events: controller events before any reclaim unit filled"
head -c 131072 /dev/urandom >big
left=$(nvme fdp status "$ns" -o json | tr -d ' \n' | sed -n 's/.*"pid":3,"ruhid":3,"earutr":0,"ruamw":\([0-9]*\).*/\1/p')
[[ -n $left ]] || fail "fdp status: handle 3"
# Blocks of 4 KiB: what is left of handle 3's unit, then one write more.
lba=8192
for (( n = left; n > 0; n -= 32 )); do
	c=$(( n < 32 ? n : 32 ))
	nvme write "$ns" -s $lba -c $((c - 1)) -z $((c * 4096)) -d big --dir-type 2 --dir-spec 3 >/dev/null ||
		fail "write to fill handle 3"
	lba=$((lba + c))
done
nvme fdp events "$ctrl" -e "$eg" -o json | tr -d ' \n' | grep -Eq '"n":0' ||
	fail "fdp events: an event before the next write"
nvme write "$ns" -s $lba -c 7 -z 32768 -d w3 --dir-type 2 --dir-spec 3 || fail "write after the fill"
nvme fdp events "$ctrl" -e "$eg" || fail "fdp events (controller)"
nvme fdp events "$ctrl" -e "$eg" -o json | tr -d ' \n' | grep -Eiq '"type":129,"fdpef":7,"pid":3,' ||
	fail "fdp events: no Implicitly Modified Reclaim Unit Handle event of handle 3"
nvme read "$ns" -s $lba -c 7 -z 32768 -d r3b || fail "read after the fill"
cmp w3 r3b || fail "data written after the fill differs"
ok "fdp events: Implicitly Modified Reclaim Unit Handle ($runs-byte reclaim unit of handle 3 filled)"

# Namespace 2: a reclaim unit left open past its 2 s time limit (01h).
ns2=$(ns_dev 2)
[[ -b $ns2 ]] || fail "no block device of namespace 2"
eg2=$(nvme id-ns "$ns2" | awk '/^endgid/ {print $3}')
[[ -n $eg2 && $eg2 != 0 && $eg2 != "$eg" ]] || fail "id-ns endgid of namespace 2 '$eg2'"
nvme fdp configs "$ctrl" -e "$eg2" -o json | tr -d ' \n' | grep -q '"erutl":2' ||
	fail "fdp configs: namespace 2's group has no 2 s time limit"
nvme fdp set-events "$ns2" -n 2 -p 0 -e -t 1 | grep -q Success || fail "fdp set-events -t 1"
nvme write "$ns2" -s 0 -c 7 -z 32768 -d w0 --dir-type 2 --dir-spec 0 || fail "write to namespace 2"
found=
for i in $(seq 1 60); do
	if nvme fdp events "$ctrl" -e "$eg2" -E -o json | tr -d ' \n' |
		grep -Eiq '"type":1,"fdpef":7,"pid":0,'; then
		found=1
		break
	fi
	sleep 1
done
[[ -n $found ]] || fail "fdp events: no Reclaim Unit Time Limit Exceeded event of placement identifier 0"
nvme fdp events "$ctrl" -e "$eg2" -E || fail "fdp events (namespace 2)"
# The same through get-log: log 23h, LSP 1 (host events), the group in LSI.
nvme get-log "$ctrl" --log-id=0x23 --log-len=128 --lsp=1 --lsi="$eg2" -b >ev.bin ||
	fail "get-log 0x23"
[[ $(od -An -tu1 -j 64 -N 1 ev.bin | tr -d ' ') == 1 ]] ||
	fail "get-log 0x23: the first event is not of type 01h"
nvme fdp status "$ns2" -o json | tr -d ' \n' | grep -Eq '"pid":0,"ruhid":0,"earutr":0,"ruamw":0' ||
	fail "fdp status: namespace 2's handle 0 still has its reclaim unit"
nvme read "$ns2" -s 0 -c 7 -z 32768 -d r0b || fail "read namespace 2"
cmp w0 r0b || fail "data of namespace 2 differs"
ok "fdp events: Reclaim Unit Time Limit Exceeded (ERUTL 2 s) on namespace 2"

nvme disconnect -n "$NQN" || fail "disconnect"
ok "all FDP checks passed"
exit 0
