#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_ana.sh - runs inside the initiator VM against bloxd at $HOST_IP with
# one subsystem $NQN (namespace 1 in ANA group 1) on two listeners, $P1
# (group 1 optimized) and $P2 (non-optimized): Linux's native multipath
# makes one disk of the two paths; nvme list-subsys and nvme ana-log show
# each path's state; fio writes and verifies on the multipath disk while the
# host turns P1 inaccessible and P2 optimized, and back, through bloxctl
# (asked for on the console: "GUEST-ANA ask: set PORT GROUP STATE", which
# run_ana.sh watches for; "mark NAME" has it note each listener's I/O
# commands, so that it can check the I/O moved to the other path); then a
# transition ("set PORT GROUP STATE MS": through change for MS ms) seen by
# the host as change, then the state asked for. Exit 0 when every check
# passed.
set -u
fail() { echo "GUEST-ANA FAIL: $*"; exit 1; }
ok() { echo "GUEST-ANA ok: $*"; }
ask() { echo "GUEST-ANA ask: $*"; }

modprobe nvme-tcp 2>/dev/null
[[ $(cat /sys/module/nvme_core/parameters/multipath) == Y ]] || fail "nvme_core.multipath is off"
nvme connect -t tcp -a "$HOST_IP" -s "$P1" -n "$NQN" || fail "connect to port $P1"
nvme connect -t tcp -a "$HOST_IP" -s "$P2" -n "$NQN" || fail "connect to port $P2"
sleep 2

# The controllers of the two paths (by their trsvcid) and the multipath disk.
c1= c2=
for c in /sys/class/nvme/nvme*; do
	[[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" ]] || continue
	addr=,$(cat "$c/address"),
	[[ $addr == *,trsvcid=$P1,* ]] && c1=$(basename "$c")
	[[ $addr == *,trsvcid=$P2,* ]] && c2=$(basename "$c")
done
[[ -n $c1 && -n $c2 ]] || fail "two controllers of $NQN, one per port (got '$c1' '$c2')"
[[ $(cat /sys/class/nvme/"$c1"/cntlid) != $(cat /sys/class/nvme/"$c2"/cntlid) ]] ||
	fail "both controllers have cntlid $(cat /sys/class/nvme/"$c1"/cntlid)"
head=
for s in /sys/class/nvme-subsystem/nvme-subsys*; do
	[[ $(cat "$s/subsysnqn") == "$NQN" ]] || continue
	for d in "$s"/nvme*n1; do [[ -e $d ]] && head=$(basename "$d"); done
	n=$(ls -d "$s"/nvme[0-9]* 2>/dev/null | grep -c -v 'n[0-9]*$')
	[[ $n == 2 ]] || fail "subsystem $NQN has $n controllers, not 2"
done
[[ -b /dev/$head ]] || fail "no multipath disk of $NQN"
ok "one disk /dev/$head over $c1 (port $P1) and $c2 (port $P2)"

# path_state CTRL: its path's ANA state as the kernel has it.
path_state() { cat /sys/class/nvme/"$1"/nvme*c*n1/ana_state 2>/dev/null | head -1; }
# wait_states S1 S2: up to 30 s for the paths to show them.
wait_states() {
	local i
	for ((i = 0; i < 150; i++)); do
		[[ $(path_state "$c1") == "$1" && $(path_state "$c2") == "$2" ]] && return 0
		sleep 0.2
	done
	fail "paths $(path_state "$c1") / $(path_state "$c2"), want $1 / $2"
}
wait_states optimized non-optimized
ok "ANA states: port $P1 optimized, port $P2 non-optimized"
out=$(nvme list-subsys "/dev/$head" 2>&1)
echo "$out"
echo "$out" | grep -q "trsvcid=$P1.* live optimized" || fail "list-subsys: port $P1 not live optimized"
echo "$out" | grep -q "trsvcid=$P2.* live non-optimized" || fail "list-subsys: port $P2 not live non-optimized"
out=$(nvme ana-log "/dev/$c2" 2>&1)
echo "$out"
echo "$out" | grep -Eq "state[[:space:]]*:[[:space:]]*non-optimized" || fail "ana-log of $c2"
ok "nvme list-subsys and nvme ana-log show both paths' states"

# fio rounds (write 16 MiB, verify it) on the multipath disk until /tmp/stop.
rm -f /tmp/stop /tmp/fio.fail
(
	r=0
	while [[ ! -e /tmp/stop ]]; do
		r=$((r + 1))
		if ! fio --name=ana$r --filename="/dev/$head" --ioengine=libaio --direct=1 --rw=randwrite \
			--bs=4k --iodepth=8 --size=16M --verify=crc32c --do_verify=1 --randseed=$r \
			--output=/tmp/fio.$r >/dev/null 2>&1; then
			echo "round $r" >>/tmp/fio.fail
			cat /tmp/fio.$r >>/tmp/fio.fail
		fi
	done
	echo "$r" >/tmp/fio.rounds
) &
loop=$!
sleep 3
ask "mark before"
ask "set $P1 1 inaccessible"
ask "set $P2 1 optimized"
wait_states inaccessible optimized
out=$(nvme ana-log "/dev/$c1" 2>&1)
echo "$out" | grep -Eq "state[[:space:]]*:[[:space:]]*inaccessible" || fail "ana-log of $c1 after the change: $out"
ok "port $P1 inaccessible, port $P2 optimized, I/O going on"
ask "mark down"
sleep 5
ask "mark down-end"
ask "set $P1 1 optimized"
ask "set $P2 1 non-optimized"
wait_states optimized non-optimized
ok "back: port $P1 optimized, port $P2 non-optimized"
sleep 3
ask "mark after"
# A transition: port P1 through the change state (8 s, under ANATT) to
# inaccessible, the host told at each step, while P2 is optimized; the
# I/O goes on.
ask "set $P2 1 optimized"
wait_states optimized optimized
ask "set $P1 1 inaccessible 8000"
wait_states change optimized
ok "port $P1 in change (an 8 s transition), port $P2 optimized"
wait_states inaccessible optimized
ok "port $P1 inaccessible by itself once the transition ended"
ask "set $P1 1 optimized"
ask "set $P2 1 non-optimized"
wait_states optimized non-optimized
touch /tmp/stop
wait "$loop"
rounds=$(cat /tmp/fio.rounds)
[[ -e /tmp/fio.fail ]] && { cat /tmp/fio.fail; fail "fio failed (of $rounds rounds)"; }
dmesg | grep -Ei "I/O error|critical .*error" && fail "I/O errors in the kernel log"
ok "$rounds fio rounds written and verified across the changes and the transition, no I/O error"
nvme disconnect -n "$NQN" || fail "disconnect"

# Discovery: the referral to node B (10.0.2.2:$PB) in the log, followed by
# hand (what connect-all does), and one the host adds with the counter moved.
out=$(nvme discover -t tcp -a "$HOST_IP" -s "$P1" 2>&1)
echo "$out"
echo "$out" | grep -A8 "subtype: *discovery subsystem referral" | grep -q "trsvcid: *$PB" ||
	fail "nvme discover on $P1: no referral to port $PB"
gen1=$(echo "$out" | sed -n 's/.*Generation counter \([0-9]*\).*/\1/p')
out=$(nvme discover -t tcp -a "$HOST_IP" -s "$PB" 2>&1)
echo "$out" | grep -q "subnqn: *$NQN-b" || fail "nvme discover at the referral: no $NQN-b: $out"
ok "nvme discover lists the referral to port $PB; its discovery service lists $NQN-b"
ask "referral add $HOST_IP $((PB + 7))"
for ((i = 0; i < 100; i++)); do
	out=$(nvme discover -t tcp -a "$HOST_IP" -s "$P1" 2>&1)
	echo "$out" | grep -q "trsvcid: *$((PB + 7))" && break
	sleep 0.3
done
echo "$out" | grep -q "trsvcid: *$((PB + 7))" || fail "the referral the host added is not listed"
gen2=$(echo "$out" | sed -n 's/.*Generation counter \([0-9]*\).*/\1/p')
[[ -n $gen1 && -n $gen2 && $gen2 -gt $gen1 ]] || fail "generation counter $gen1 -> $gen2"
ok "a referral added on the host is listed, generation counter $gen1 -> $gen2"
ask "done"
echo "GUEST-ANA PASS"
