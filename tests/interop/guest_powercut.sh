#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_powercut.sh - runs inside the initiator VM against bloxd at
# $HOST_IP:$PORT: for each subsystem in $NQNS (one nand namespace each, power-
# loss protection off or on), an ext4 filesystem written by a workload that
# fsyncs every file, a power cut of the namespace in the middle of it (asked
# of the host: "GUEST-PC ask: cut NQN", bloxctl fault power-cut there), the
# host side crashing with it (the controller deleted before it can reconnect,
# the mount dropped), then a fresh connect, e2fsck (journal replayed) clean,
# and every file whose fsync returned before the cut intact. $CYCLES cycles
# per subsystem. Exit 0 when every check passed.
set -u
fail() { echo "GUEST-PC FAIL: $*"; exit 1; }
ok() { echo "GUEST-PC ok: $*"; }
MNT=/mnt/pc
W=/tmp/pc
CYCLES=${CYCLES:-3}
mkdir -p "$MNT" "$W"
modprobe nvme-tcp 2>/dev/null

# connect NQN: the namespace's block device on stdout.
connect() {
	# A long reconnect delay: after the cut the host must not write again (it "crashed").
	nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$1" --reconnect-delay=60 \
		--ctrl-loss-tmo=120 >/dev/null || return 1
	for _ in $(seq 50); do
		for c in /sys/class/nvme/nvme*; do
			if [[ $(cat "$c/subsysnqn" 2>/dev/null) == "$1" && -b /dev/$(basename "$c")n1 ]]; then
				echo "/dev/$(basename "$c")n1"
				return 0
			fi
		done
		sleep 0.2
	done
	return 1
}

# writer DIR LOG: files of 16..256 KiB, each written then fsynced (dd
# conv=fsync); its name and sha256 logged once dd returned.
writer() {
	local i=0
	while :; do
		local kb=$((16 * (1 + RANDOM % 16)))
		dd if=/dev/urandom of="$1/f$i" bs=1k count=$kb conv=fsync status=none 2>/dev/null || return
		echo "$(sha256sum <"$1/f$i" | cut -d' ' -f1) f$i" >>"$2"
		i=$((i + 1))
	done
}

for nqn in ${NQNS//,/ }; do
	dev=$(connect "$nqn") || fail "$nqn: connect"
	mkfs.ext4 -F -q "$dev" || fail "$nqn: mkfs.ext4"
	vwc=$(nvme id-ctrl "$dev" | awk '$1 == "vwc" {print $3}')
	ok "$nqn: $dev, ext4 made, id-ctrl vwc $vwc"
	: >"$W/synced"
	rm -f "$W"/log* # each subsystem's writer logs start empty
	for cycle in $(seq "$CYCLES"); do
		mount -t ext4 "$dev" "$MNT" || fail "$nqn cycle $cycle: mount"
		mkdir -p "$MNT/c$cycle"
		writer "$MNT/c$cycle" "$W/log$cycle" &
		wpid=$!
		sleep $((2 + RANDOM % 3))
		before=$(wc -l <"$W/log$cycle" 2>/dev/null || echo 0)
		echo "GUEST-PC ask: cut $nqn $cycle"
		# The host cuts within a second; the guest dies with it: nothing it
		# writes from now on reaches the drive.
		for _ in $(seq 50); do
			[[ $(cat /sys/class/nvme/$(basename "${dev%n1}")/state 2>/dev/null) != live ]] && break
			sleep 0.1
		done
		nvme disconnect -n "$nqn" >/dev/null 2>&1
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		umount -l "$MNT" 2>/dev/null
		# What was fsynced before the cut: the log as the cut was asked
		# (a later line could only come from an fsync the dead link failed).
		head -n "$before" "$W/log$cycle" | sed "s| f| c$cycle/f|" >>"$W/synced"
		dev=$(connect "$nqn") || fail "$nqn cycle $cycle: reconnect after the power cut"
		e2fsck -fp "$dev" >"$W/fsck" 2>&1
		st=$?
		((st <= 1)) || { cat "$W/fsck"; fail "$nqn cycle $cycle: e2fsck -fp exit $st"; }
		e2fsck -fn "$dev" >"$W/fsck2" 2>&1 || { cat "$W/fsck2"; fail "$nqn cycle $cycle: not clean after the journal replay"; }
		mount -t ext4 "$dev" "$MNT" || fail "$nqn cycle $cycle: mount after the cut"
		n=$(wc -l <"$W/synced")
		awk '{print $1 "  " $2}' "$W/synced" >"$W/sums"
		(cd "$MNT" && sha256sum -c -s "$W/sums") ||
			fail "$nqn cycle $cycle: a file fsynced before the cut is not intact"
		umount "$MNT" || fail "$nqn cycle $cycle: umount"
		ok "$nqn cycle $cycle: cut after $before fsynced files; e2fsck clean (exit $st), all $n fsynced files intact"
	done
	nvme disconnect -n "$nqn" >/dev/null || fail "$nqn: disconnect"
done
ok "all power-cut checks passed"
exit 0
