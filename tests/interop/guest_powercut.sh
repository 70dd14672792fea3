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
# per subsystem. With $ZNQN, a zoned namespace's cut too (below). Exit 0
# when every check passed.
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
# A zoned namespace ($ZNQN, nsid 1): no filesystem, a writer of 64 KiB chunks
# at the write pointers of zones 0, 1, ... (O_DIRECT, each fsynced: a
# Flush), a chunk logged once its dd returned; the power cut in the middle.
# After it every zone's write pointer is at or past the end of its logged
# chunks, each logged chunk reads back, and writes go on at the pointer.
# wptr ZONE: zone ZONE's write pointer, in sectors from its start.
wptr() {
	local w
	w=$(blkzone report -o $(($1 * zsect)) -c 1 "$dev" | sed -n 's/.*wptr 0x\([0-9a-f]*\).*/\1/p')
	echo $((16#${w:-0}))
}
# zchunk N: chunk N's zone and its place (in chunks) on the device.
zchunk() { echo $(($1 / cpz)) $((($1 / cpz) * zchunks + $1 % cpz)); }
# Linux 6.10 on (zone write plugging) with native NVMe multipath fails a
# zone write that was plugged when its only path goes: the controller's
# removal requeues it to the multipath head, which ends it once more
# ("WARNING ... blk_zone_write_plug_bio_endio" from nvme_requeue_work, then
# "percpu ref (blk_queue_usage_counter_release) <= 0" and a hung guest; seen
# on 6.12.95, with no command in flight at bloxd: the guest's own bug). The
# zoned cut runs there with nvme_core's multipath off, the namespace then
# the controller's own block device, as on a kernel built without it.
if [[ -n ${ZNQN:-} && $(uname -r) =~ ^([0-9]+)\.([0-9]+) ]] &&
	((BASH_REMATCH[1] * 100 + BASH_REMATCH[2] >= 610)); then
	modprobe -r nvme_tcp nvme_fabrics nvme_core 2>/dev/null
	if ! modprobe nvme_core multipath=N || ! modprobe nvme-tcp; then
		fail "$ZNQN: nvme_core without multipath"
	fi
	[[ $(cat /sys/module/nvme_core/parameters/multipath) == N ]] ||
		fail "$ZNQN: nvme_core's multipath still on"
	ok "$ZNQN: nvme_core reloaded with multipath=N for the zoned cut on $(uname -r)"
fi
if [[ -n ${ZNQN:-} ]]; then
	dev=$(connect "$ZNQN") || fail "$ZNQN: connect"
	name=$(basename "$dev")
	[[ $(cat /sys/block/"$name"/queue/zoned) == host-managed ]] || fail "$ZNQN: $dev is not zoned"
	zsect=$(cat /sys/block/"$name"/queue/chunk_sectors)
	cap=$(blkzone report -c 1 "$dev" | sed -n 's/.*cap 0x\([0-9a-f]*\).*/\1/p')
	cpz=$(((16#$cap) * 512 / 65536)) zchunks=$((zsect * 512 / 65536))
	blkzone reset "$dev" || fail "$ZNQN: blkzone reset"
	ok "$ZNQN: $dev host-managed, zones of $zsect sectors, $cpz chunks of 64 KiB writable each"
	: >"$W/zlog"
	(
		i=0
		while :; do
			read -r _ at < <(zchunk $i)
			head -c 65536 /dev/urandom >"$W/z$i"
			dd if="$W/z$i" of="$dev" bs=64k seek="$at" count=1 oflag=direct conv=fsync \
				status=none 2>/dev/null || exit 0
			echo "$i" >>"$W/zlog"
			i=$((i + 1))
		done
	) &
	wpid=$!
	sleep $((2 + RANDOM % 3))
	before=$(wc -l <"$W/zlog")
	echo "GUEST-PC ask: cut $ZNQN zoned"
	for _ in $(seq 50); do
		[[ $(cat "/sys/class/nvme/$(basename "${dev%n1}")/state" 2>/dev/null) != live ]] && break
		sleep 0.1
	done
	nvme disconnect -n "$ZNQN" >/dev/null 2>&1
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	((before > 0)) || fail "$ZNQN: no chunk written before the cut"
	dev=$(connect "$ZNQN") || fail "$ZNQN: reconnect after the power cut"
	# The write pointers: at or past every chunk fsynced before the cut.
	read -r lastz _ < <(zchunk $((before - 1)))
	for z in $(seq 0 "$lastz"); do
		n=$((z < lastz ? cpz : (before - 1) % cpz + 1))
		wp=$(wptr "$z")
		((wp * 512 >= n * 65536)) ||
			fail "$ZNQN: zone $z's write pointer at sector $wp, before its $n fsynced chunks"
	done
	for i in $(seq 0 $((before - 1))); do
		read -r _ at < <(zchunk "$i")
		dd if="$dev" of="$W/r" bs=64k skip="$at" count=1 iflag=direct status=none ||
			fail "$ZNQN: read of chunk $i"
		cmp -s "$W/r" "$W/z$i" || fail "$ZNQN: chunk $i, fsynced before the cut, differs"
	done
	# Writes go on at the recovered write pointer of the last zone written.
	wp=$(wptr "$lastz")
	head -c 4096 /dev/urandom >"$W/t"
	if ((wp * 512 + 4096 <= (16#$cap) * 512)); then
		dd if="$W/t" of="$dev" bs=4096 seek=$(((lastz * zsect + wp) / 8)) count=1 \
			oflag=direct conv=fsync status=none || fail "$ZNQN: write at the write pointer"
		dd if="$dev" of="$W/r" bs=4096 skip=$(((lastz * zsect + wp) / 8)) count=1 \
			iflag=direct status=none || fail "$ZNQN: read at the write pointer"
		cmp -s "$W/r" "$W/t" || fail "$ZNQN: the write at the write pointer does not read back"
	fi
	nvme disconnect -n "$ZNQN" >/dev/null || fail "$ZNQN: disconnect"
	ok "$ZNQN: cut after $before fsynced chunks (zones 0-$lastz); write pointers at or past them, all read back, zone $lastz written at its pointer $wp"
fi
ok "all power-cut checks passed"
exit 0
