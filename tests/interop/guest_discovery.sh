#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_discovery.sh - runs inside the initiator VM, which reaches the host
# only as $HOST_IP (10.0.2.2, QEMU's NAT), against two bloxd on the host's
# 127.0.0.1 whose NVM listeners advertise $HOST_IP: node A (discovery on
# $DA, subsystem $NQN-a with two namespaces at port $PA, a referral to node
# B's discovery service $HOST_IP:$DB) and node B (subsystem $NQN-b with
# one namespace at $PB). nvme discover on A lists $NQN-a at $HOST_IP:$PA
# and the referral; nvme connect-all on A connects both subsystems, node
# B's through the referral, every controller at $HOST_IP; each of the
# three namespaces takes 4 MiB of random data written and read back the
# same. Exit 0 when every check passed.
set -u
fail() { echo "GUEST-DISC FAIL: $*"; exit 1; }
ok() { echo "GUEST-DISC ok: $*"; }

modprobe nvme-tcp 2>/dev/null
out=$(nvme discover -t tcp -a "$HOST_IP" -s "$DA" 2>&1) || fail "nvme discover on port $DA: $out"
echo "$out"
# The entry (between "=====Discovery Log Entry N" lines) of $NQN-a: its traddr.
echo "$out" | awk -v n="$NQN-a" -v a="$HOST_IP" '
	/^=+Discovery Log Entry/ { if (hit && ta == a) ok = 1; hit = 0; ta = "" }
	$1 == "subnqn:" && $2 == n { hit = 1 }
	$1 == "traddr:" { ta = $2 }
	END { if (hit && ta == a) ok = 1; exit !ok }' ||
	fail "the discovery log's entry of $NQN-a does not carry traddr $HOST_IP"
echo "$out" | grep -q "traddr: *127.0.0.1" && fail "an entry carries the host's own 127.0.0.1"
echo "$out" | grep -A8 "subtype: *discovery subsystem referral" | grep -q "trsvcid: *$DB" ||
	fail "no referral to port $DB"
ok "nvme discover: $NQN-a at $HOST_IP:$PA (advertised), a referral to $HOST_IP:$DB"

out=$(nvme connect-all -t tcp -a "$HOST_IP" -s "$DA" 2>&1) || fail "nvme connect-all: $out"
echo "$out"
# list_subsys: the controllers (nvmeX) and namespaces' disks (nvmeXnY, the
# multipath heads) of both subsystems, from their nvme-subsystem entries.
list_subsys() {
	ctrls=() disks=()
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		nqn=$(cat "$s/subsysnqn" 2>/dev/null)
		[[ $nqn == "$NQN-a" || $nqn == "$NQN-b" ]] || continue
		for e in "$s"/nvme*; do
			b=$(basename "$e")
			[[ $b =~ ^nvme[0-9]+$ ]] && ctrls+=("$b")
			[[ $b =~ ^nvme[0-9]+n[0-9]+$ && -b /dev/$b ]] && disks+=("/dev/$b")
		done
	done
}
for _ in $(seq 50); do
	list_subsys
	((${#ctrls[@]} == 2 && ${#disks[@]} == 3)) && break
	sleep 0.2
done
for c in "${ctrls[@]}"; do
	addr=$(cat /sys/class/nvme/"$c"/address)
	echo "$c $(cat /sys/class/nvme/"$c"/subsysnqn) $addr"
	[[ ,$addr, == *,traddr=$HOST_IP,* ]] || fail "$c connected to '$addr', not $HOST_IP"
done
((${#ctrls[@]} == 2)) || fail "connect-all: ${#ctrls[@]} controllers of $NQN-a and $NQN-b, not 2"
((${#disks[@]} == 3)) || fail "connect-all: ${#disks[@]} namespaces (${disks[*]}), not 3"
ok "nvme connect-all: ${#ctrls[@]} controllers at $HOST_IP, namespaces ${disks[*]}"

head -c $((4 << 20)) /dev/urandom >/tmp/data
for d in "${disks[@]}"; do
	dd if=/tmp/data of="$d" bs=1M oflag=direct conv=fsync 2>/dev/null || fail "write $d"
	dd if="$d" of=/tmp/back bs=1M count=4 iflag=direct 2>/dev/null || fail "read $d"
	cmp -s /tmp/data /tmp/back || fail "$d read back differs"
done
ok "4 MiB written and read back the same on ${disks[*]}"
nvme disconnect-all >/dev/null || fail "disconnect-all"
echo "GUEST-DISC PASS"
