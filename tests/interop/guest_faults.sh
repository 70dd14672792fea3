#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_faults.sh - runs inside the initiator VM against bloxd at
# $HOST_IP:$PORT, subsystem $NQN (one nand namespace), as host $HOSTNQN:
# faults injected from the host side on request ("GUEST-FL ask: WHAT", acted
# on by run_faults.sh with bloxctl fault ...) and what a Linux host sees of
# them: a read of an LBA range made uncorrectable fails with an I/O error,
# `nvme error-log` names its first LBA, `nvme smart-log` counts the media
# error, the blocks around it read back intact; once the fault is cleared
# the range reads its data again; reads under a 20 ms latency fault take at
# least 20 ms each (dd's ten direct reads at least 200 ms); a dropped host
# (its connections closed by the target) reconnects by itself within its
# reconnect delay and its I/O goes on; a host whose keep-alives go
# unanswered (ka-ignore) resets its controller by itself when its keep-alive
# timeout (5 s) fires and reconnects, and its I/O goes on once cleared; under
# a 300 ms latency fault of the Fabrics commands a Property Get of CSTS takes
# that long and a controller reset completes, slowly, by itself; a Connect
# held 6 s past a 3 s admin_timeout makes nvme connect fail (the host gives
# up), and once cleared it connects.
# Exit 0 when every check passed.
set -u
fail() { echo "GUEST-FL FAIL: $*"; exit 1; }
ok() { echo "GUEST-FL ok: $*"; }
ask() { echo "GUEST-FL ask: $*"; }
BS=4096
BAD=40 # the first LBA of the range made uncorrectable (8 blocks)
modprobe nvme-tcp 2>/dev/null

nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" --hostnqn="$HOSTNQN" \
	--keep-alive-tmo=5 --reconnect-delay=1 --ctrl-loss-tmo=60 >/dev/null || fail "connect"
dev= ctrl=
for _ in $(seq 50); do
	for c in /sys/class/nvme/nvme*; do
		if [[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" && -b /dev/$(basename "$c")n1 ]]; then
			ctrl=$c dev=/dev/$(basename "$c")n1
		fi
	done
	[[ -n $dev ]] && break
	sleep 0.2
done
[[ -b $dev ]] || fail "no block device for $NQN"
ok "$dev"
head -c $((64 * BS)) /dev/urandom > /tmp/data
dd if=/tmp/data of="$dev" bs=$BS oflag=direct conv=fsync 2>/dev/null || fail "write 64 blocks"
blk() { dd if="$dev" of="$2" bs=$BS skip="$1" count="${3:-1}" iflag=direct 2>/dev/null; }
want() { dd if=/tmp/data of="$2" bs=$BS skip="$1" count="${3:-1}" 2>/dev/null; }

# An uncorrectable range: LBAs 40-47.
ask "read-unc $BAD 8"
for i in $(seq 100); do
	blk $BAD /tmp/b || break
	sleep 0.1
done
[[ $i != 100 ]] || fail "a read of LBA $BAD still works 10 s after the fault was asked for"
dmesg | grep -i "critical medium error\|Unrecovered Read\|I/O Error" | tail -2
ok "a read of LBA $BAD fails with an I/O error"
nvme error-log "$dev" -e 4 > /tmp/el 2>&1 || { cat /tmp/el; fail "nvme error-log"; }
grep -Eq "^lba[[:space:]]*: (0x28|40)$" /tmp/el || { cat /tmp/el; fail "the error log does not name LBA $BAD"; }
grep -E "^(error_count|status_field|lba|nsid)" /tmp/el | head -4
ok "nvme error-log names LBA $BAD"
nvme smart-log "$dev" > /tmp/sl 2>&1 || { cat /tmp/sl; fail "nvme smart-log"; }
grep -E "^(critical_warning|available_spare|percentage_used|media_errors|num_err_log_entries)" /tmp/sl
grep -Eq "^media_errors[[:space:]]*: [1-9]" /tmp/sl || fail "smart-log counts no media error"
ok "nvme smart-log counts the media error"
blk 0 /tmp/b 40 && want 0 /tmp/w 40 && cmp -s /tmp/b /tmp/w || fail "LBAs 0-39 do not read back"
blk 48 /tmp/b 16 && want 48 /tmp/w 16 && cmp -s /tmp/b /tmp/w || fail "LBAs 48-63 do not read back"
ok "the blocks around the range read back"
ask "clear"
for i in $(seq 100); do
	blk $BAD /tmp/b 8 && break
	sleep 0.1
done
want $BAD /tmp/w 8 && cmp -s /tmp/b /tmp/w || fail "LBAs $BAD-$((BAD + 7)) after the fault was cleared"
ok "cleared: the range reads its data again"

# Reads 20 ms slower: ten direct 4 KiB reads, one after the other, take 200 ms at least.
ask "latency 20000"
for i in $(seq 100); do
	t0=${EPOCHREALTIME/./} # µs (busybox's date has no %N)
	dd if="$dev" of=/dev/null bs=$BS count=10 iflag=direct 2>/dev/null || fail "reads under latency"
	t1=${EPOCHREALTIME/./}
	ms=$(((t1 - t0) / 1000))
	((ms >= 200)) && break
	sleep 0.1
done
[[ $i != 100 ]] || fail "ten reads took $ms ms under a 20 ms latency fault (10 s after it was asked for)"
ok "ten reads under a 20 ms latency fault took $ms ms"
ask "clear"

# The target drops this host's connections: the host reconnects by itself.
id0=$(cat "$ctrl/cntlid")
ask "host-drop"
for i in $(seq 300); do
	st=$(cat "$ctrl/state" 2>/dev/null)
	[[ $st == live && $(cat "$ctrl/cntlid") != "$id0" ]] && break
	sleep 0.1
done
[[ $i != 300 ]] || fail "no reconnect within 30 s (state $st, cntlid $(cat "$ctrl/cntlid"))"
ok "dropped: reconnected as controller $(cat "$ctrl/cntlid") (was $id0)"
dd if=/tmp/data of="$dev" bs=$BS seek=64 count=16 oflag=direct conv=fsync 2>/dev/null ||
	fail "write after the reconnect"
blk 64 /tmp/b 16 && want 0 /tmp/w 16 && cmp -s /tmp/b /tmp/w || fail "read after the reconnect"
ok "I/O after the reconnect"

# Keep-alives unanswered: the host's keep-alive timeout fires, it resets and reconnects.
id0=$(cat "$ctrl/cntlid")
ask "ka-ignore"
for i in $(seq 600); do
	st=$(cat "$ctrl/state" 2>/dev/null)
	[[ $st == live && $(cat "$ctrl/cntlid") != "$id0" ]] && break
	sleep 0.1
done
[[ $i != 600 ]] || fail "no reconnect within 60 s of ka-ignore (state $st, cntlid $(cat "$ctrl/cntlid"))"
dmesg | grep -i "keep.alive\|reconnect\|resetting" | tail -3
ok "keep-alives unanswered: reset and reconnected as controller $(cat "$ctrl/cntlid") (was $id0), $((i / 10)).$((i % 10)) s after the ask"
ask "clear"
sleep 1
for i in $(seq 300); do
	[[ $(cat "$ctrl/state" 2>/dev/null) == live ]] &&
		dd if=/tmp/data of="$dev" bs=$BS seek=80 count=16 oflag=direct conv=fsync 2>/dev/null && break
	sleep 0.1
done
[[ $i != 300 ]] || fail "write after ka-ignore was cleared"
blk 80 /tmp/b 16 && want 0 /tmp/w 16 && cmp -s /tmp/b /tmp/w || fail "read after ka-ignore was cleared"
ok "I/O after ka-ignore was cleared"

# Fabrics commands 300 ms late (a slow drive): a Property Get of CSTS takes that long, and a
# controller reset (CC and CSTS through Property Set and Get, then the new Connects) takes
# seconds but completes by itself; I/O goes on.
ask "fabrics 300000"
for i in $(seq 100); do
	t0=${EPOCHREALTIME/./}
	nvme get-property "/dev/$(basename "$ctrl")" --offset=0x1c >/dev/null 2>&1 ||
		fail "nvme get-property of CSTS"
	t1=${EPOCHREALTIME/./}
	ms=$(((t1 - t0) / 1000))
	((ms >= 300)) && break
	sleep 0.1
done
[[ $i != 100 ]] || fail "a Property Get took $ms ms under a 300 ms fabrics fault (10 s after it was asked for)"
ok "a Property Get of CSTS under a 300 ms fabrics fault took $ms ms"
t0=${EPOCHREALTIME/./}
echo 1 >"$ctrl/reset_controller" || fail "reset_controller"
for i in $(seq 600); do
	[[ $(cat "$ctrl/state" 2>/dev/null) == live ]] && break
	sleep 0.1
done
t1=${EPOCHREALTIME/./}
[[ $i != 600 ]] || fail "not live within 60 s of a reset under a 300 ms fabrics fault"
ok "a reset under a 300 ms fabrics fault: live again after $(((t1 - t0) / 1000)) ms"
dd if=/tmp/data of="$dev" bs=$BS seek=96 count=16 oflag=direct conv=fsync 2>/dev/null ||
	fail "write after the slow reset"
blk 96 /tmp/b 16 && want 0 /tmp/w 16 && cmp -s /tmp/b /tmp/w || fail "read after the slow reset"
ok "I/O after the slow reset"
ask "clear"
nvme disconnect -n "$NQN" >/dev/null

# A Connect late past the host's timeout (admin_timeout made 3 s, the Connect held 6 s):
# the host gives up by itself, the connect fails; once cleared it connects again.
old_tmo=$(cat /sys/module/nvme_core/parameters/admin_timeout)
echo 3 >/sys/module/nvme_core/parameters/admin_timeout || fail "admin_timeout"
ask "fabrics 6000000"
for i in $(seq 20); do
	t0=${EPOCHREALTIME/./}
	nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" --hostnqn="$HOSTNQN" >/tmp/cn 2>&1 ||
		break
	nvme disconnect -n "$NQN" >/dev/null # the fault was not there yet
	sleep 0.5
done
t1=${EPOCHREALTIME/./}
[[ $i != 20 ]] || fail "connects went on under a 6 s fabrics fault with a 3 s admin timeout"
ok "a Connect held past the admin timeout: nvme connect failed after $(((t1 - t0) / 1000)) ms: $(head -1 /tmp/cn); the kernel: $(dmesg | grep -i "timeout" | tail -1)"
ask "clear"
echo "$old_tmo" >/sys/module/nvme_core/parameters/admin_timeout
for i in $(seq 20); do
	nvme connect -t tcp -a "$HOST_IP" -s "$PORT" -n "$NQN" --hostnqn="$HOSTNQN" >/dev/null 2>&1 &&
		break
	sleep 0.5
done
[[ $i != 20 ]] || fail "no connect once the fault was cleared"
ok "cleared: connected again"
nvme disconnect -n "$NQN" >/dev/null
echo "GUEST-FL PASS"
