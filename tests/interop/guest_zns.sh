#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_zns.sh - runs inside the initiator VM against a bloxd zoned
# namespace (backend zns) at $HOST_IP:$PORT, subsystem $NQN, nsid 1: the
# kernel sees a host-managed zoned block device; nvme-cli's zns plugin
# (id-ns, id-ctrl, report-zones, zone-append, zone actions), blkzone (report,
# open, close, finish, reset), fio --zonemode=zbd sequential writes with
# verification and random writes over a bounded number of open zones;
# with BTRFS=1, a zoned btrfs made on it, written, unmounted, the
# controller disconnected and connected again, and every file read back.
# Exit 0 when every check passed.
set -u
fail() { echo "GUEST-ZNS FAIL: $*"; exit 1; }
ok() { echo "GUEST-ZNS ok: $*"; }

modprobe nvme-tcp 2>/dev/null
nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" || fail "connect"
sleep 2
dev=
for c in /sys/class/nvme/nvme*; do
	[[ $(cat "$c/subsysnqn") == "$NQN" ]] && dev=/dev/$(basename "$c")n1
done
[[ -b $dev ]] || fail "no block device for $NQN"
name=$(basename "$dev")
zoned=$(cat /sys/block/"$name"/queue/zoned)
[[ $zoned == host-managed ]] || fail "queue/zoned is '$zoned'"
chunk=$(cat /sys/block/"$name"/queue/chunk_sectors)
nr=$(cat /sys/block/"$name"/queue/nr_zones)
maxopen=$(cat /sys/block/"$name"/queue/max_open_zones)
ok "$dev host-managed, zone $chunk sectors, $nr zones, max open $maxopen"
nvme zns id-ctrl "$dev" || fail "zns id-ctrl"
nvme zns id-ns "$dev" || fail "zns id-ns"
# MOR is 0's based (nvme-cli prints it in hex). The disk both kernels give us
# (nvmeXnY, the multipath node) reads 0 in queue/max_open_zones and max_active_zones
# whatever MOR and MAR say, so the limit is checked here.
nvme zns id-ns "$dev" | grep -Eq "^mor +: $(printf '0x%x' $((EXPECT_MAX_OPEN - 1)))\$" ||
	fail "zns id-ns: mor is not $((EXPECT_MAX_OPEN - 1))"
[[ $nr == "$EXPECT_ZONES" ]] || fail "nr_zones $nr, want $EXPECT_ZONES"
nvme zns report-zones "$dev" -d 4 || fail "zns report-zones"
blkzone report "$dev" | head -4 || fail "blkzone report"
zsect=$chunk
cap=$(blkzone report -c 1 "$dev" | sed -n 's/.*cap 0x\([0-9a-f]*\).*/\1/p')
ok "zone capacity 0x$cap sectors"

# fio: three zones written sequentially at the write pointer, verified.
fio --name=seq --filename="$dev" --direct=1 --ioengine=psync --zonemode=zbd \
	--rw=write --bs=128k --offset=0 --size=$((3 * zsect * 512)) \
	--verify=crc32c --do_verify=1 || fail "fio zbd sequential write + verify"
blkzone report -c 4 "$dev"
ok "fio sequential"
# fio: random writes over zones 4.. with at most 4 open at once.
fio --name=rand --filename="$dev" --direct=1 --ioengine=psync --zonemode=zbd \
	--rw=randwrite --bs=16k --max_open_zones=4 --offset=$((4 * zsect * 512)) \
	--size=$((8 * zsect * 512)) --io_size=24m || fail "fio zbd random write"
open=$(blkzone report "$dev" | grep -c 'oi\|oe')
ok "fio random (zones open now: $open)"

# Zone actions through blkzone: finish, reset, open, close.
z=$((13 * zsect))
blkzone open -o $z -c 1 "$dev" || fail "blkzone open"
blkzone report -o $z -c 1 "$dev" | grep -q 'oe' || fail "zone not explicitly open"
blkzone close -o $z -c 1 "$dev" || fail "blkzone close"
blkzone finish -o $z -c 1 "$dev" || fail "blkzone finish"
blkzone report -o $z -c 1 "$dev" | grep -q 'fu' || fail "zone not full after finish"
blkzone reset -o $z -c 1 "$dev" || fail "blkzone reset"
blkzone report -o $z -c 1 "$dev" | grep -q 'em' || fail "zone not empty after reset"
ok "blkzone open close finish reset"

# Zone Append through nvme-cli: the LBA it reports holds the data.
head -c 4096 /dev/urandom > /tmp/a
slba=$((z / 8))
nvme zns zone-append "$dev" -s $slba -z 4096 -d /tmp/a > /tmp/ap.out 2>&1 || fail "zone-append"
cat /tmp/ap.out
# nvme-cli 2.3 prints the LBA in hex without 0x ("appended data to LBA 1a000").
lba=$(sed -n 's/.*LBA \(0x\)\{0,1\}\([0-9a-fA-F]*\).*/\2/p' /tmp/ap.out | head -1)
[[ -n $lba ]] || fail "zone-append said no LBA"
lba=$((16#$lba))
[[ $lba == "$slba" ]] || fail "zone-append to an empty zone at LBA $lba, not $slba"
dd if="$dev" of=/tmp/b bs=4096 skip=$((lba)) count=1 iflag=direct 2>/dev/null
cmp /tmp/a /tmp/b || fail "appended data differs at LBA $lba"
ok "zone-append at LBA $lba read back"
# A write not at the write pointer is refused.
dd if=/tmp/a of="$dev" bs=4096 seek=$((slba + 5)) count=1 oflag=direct 2>/dev/null &&
	fail "a write past the write pointer succeeded"
ok "write off the write pointer refused"
nvme zns reset-zone "$dev" -a || fail "reset all"
[[ $(blkzone report "$dev" | grep -vc 'em') == 0 ]] || fail "not all empty after reset all"
ok "reset all"
# The Changed Zone List (log BFh): zones the controller changed by itself; none here.
nvme zns changed-zone-list "$dev" || fail "zns changed-zone-list"
ok "changed-zone-list"

# A zoned filesystem: btrfs finds the zones itself (its superblock log in
# zones 0-1, block groups one zone each, written at the write pointer).
find_dev() {
	dev=
	for c in /sys/class/nvme/nvme*; do
		[[ $(cat "$c/subsysnqn") == "$NQN" ]] && dev=/dev/$(basename "$c")n1
	done
	[[ -b $dev ]] || fail "no block device for $NQN ($*)"
	# Before 6.10 (zone write plugging) only mq-deadline keeps one write per
	# zone in flight, in order; NVMe's default scheduler is none, and btrfs's
	# metadata writes (regular writes, not zone appends) then reach the drive
	# out of order and fail with Zone Invalid Write, as on any ZNS drive.
	local q=/sys/block/${dev#/dev/}/queue/scheduler
	if [[ $(uname -r) =~ ^([0-9]+)\.([0-9]+) ]] &&
		((BASH_REMATCH[1] * 100 + BASH_REMATCH[2] < 610)); then
		echo mq-deadline > "$q" || fail "mq-deadline for $dev"
	fi
	echo "$dev scheduler: $(cat "$q")"
}
if [[ ${BTRFS:-0} == 1 ]]; then
	modprobe btrfs || fail "modprobe btrfs"
	# Not on the multipath node: 6.1's btrfs finds where a zone append
	# landed through the bio's device, which nvme multipath changes on the
	# way down, and crashes (fixed in 6.2: "btrfs: don't rely on unchanging
	# ->bi_bdev for zone append remaps"); on 6.12 btrfs's zone appends
	# through the multipath node fail in the host's block layer (no command
	# reaches the target, its error log stays empty). Both work on the
	# controller's own node: nvme_core without multipath.
	nvme disconnect -n "$NQN" > /dev/null
	rmmod nvme_tcp nvme_fabrics nvme_core || fail "rmmod nvme"
	modprobe nvme_core multipath=N && modprobe nvme-tcp || fail "modprobe nvme_core multipath=N"
	nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" || fail "connect without multipath"
	sleep 2
	find_dev "without multipath"
	ok "$dev without nvme multipath for btrfs"
	mkfs.btrfs -f -d single -m single "$dev" > /tmp/mkfs.out 2>&1 || {
		cat /tmp/mkfs.out
		fail "mkfs.btrfs"
	}
	grep -i "zoned" /tmp/mkfs.out | head -3
	mkdir -p /mnt/z
	mount -t btrfs "$dev" /mnt/z || fail "mount btrfs"
	for i in 1 2 3 4 5 6; do
		head -c $((i * 3 * 1048576 + i * 4099)) /dev/urandom > /mnt/z/f$i
	done
	mkdir /mnt/z/d && for i in $(seq 1 40); do echo "small file $i" > /mnt/z/d/s$i; done
	(cd /mnt/z && sha256sum f* d/*) > /tmp/sums
	sync
	umount /mnt/z || fail "umount btrfs"
	nvme disconnect -n "$NQN" > /dev/null || fail "disconnect before remount"
	nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" || fail "connect again"
	sleep 2
	find_dev "after connecting again"
	mount -t btrfs "$dev" /mnt/z || fail "mount btrfs after connecting again"
	(cd /mnt/z && sha256sum -c /tmp/sums > /tmp/check 2>&1) || {
		cat /tmp/check
		fail "btrfs files differ after connecting again"
	}
	echo "$(wc -l < /tmp/sums) files of $(du -sk /mnt/z | cut -f1) KiB read back"
	umount /mnt/z || fail "umount btrfs again"
	echo "zones written by btrfs: $(blkzone report "$dev" | grep -vc '(em)')"
	ok "zoned btrfs: made, written, read back after a reconnect"
fi
nvme disconnect -n "$NQN"
echo "GUEST-ZNS PASS"
