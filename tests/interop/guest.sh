#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# guest.sh - Linux NVMe/TCP initiator interop checks, run inside the
# initiator VM (../shared/initiator-vm/run-in-vm.sh) against a target on the
# host, reached from the guest as $HOST_IP (10.0.2.2 = the host's 127.0.0.1).
#
# Three modes (env MODE):
#   auth    in-band authentication (DH-HMAC-CHAP, a 6.12 kernel) against
#           AUTH_NQN, which admits only AUTH_HOSTNQN with AUTH_KEY and the
#           controller secret AUTH_CTRL_KEY: connects without a secret, with
#           AUTH_WRONG_KEY as host or as controller secret are refused; with
#           the secret (then re-authenticating the live controller by
#           writing its sysfs dhchap_secret) and with both secrets it
#           connects and reads back what it wrote
#   full    (default) the checks below; the files written to ext4 and their
#           sha256 list (SUMS, at the top of the filesystem) stay on the
#           namespace, as do the raw fio regions
#   verify  after the target restarted on the same storage: connect, e2fsck,
#           mount, sha256 of every file against SUMS, fio --verify_only over
#           each raw region the full run wrote, disconnect
#
# Env (all optional):
#   MODE               full or verify (full)
#   TARGET_NQN         subsystem to test (nqn.2026-12.io.blox:interop)
#   NVM_PORT           NVM (I/O) listener port (4420)
#   DISC_PORT          discovery listener port (8009); may equal NVM_PORT
#   EXPECT_SIZE        namespace size in bytes to expect (unchecked if empty)
#   EXPECT_BLOCK_SIZE  logical block size to expect (unchecked if empty)
#   EXPECT_TRSVCID     port the discovery log must give for TARGET_NQN, and
#                      DISC_PORT must then not be listed for it (unchecked if
#                      empty: a target behind a port forward reports its own
#                      port)
#   NR_IO_QUEUES       nvme connect -i (2)
#   CMD_TIMEOUT        seconds for each nvme-cli/mkfs/mount step (120)
#   FIO_TIMEOUT        seconds for each fio job (400)
#
# Also: every discovery log entry's TREQ reads as nvmet's ("not specified,
# sq flow control disable supported"); the error log of each fresh
# controller is empty after connect (nothing the kernel asked while
# connecting failed); in full mode a 4 MiB and a 1025-block nvme
# write/read (passthrough, which the kernel cannot split: blktests nvme/029)
# read back the same; on the pool's first namespace, reservations through
# nvme-cli's resv-register, resv-acquire, resv-report and resv-release
# (guest_resv.sh).
#
# Layout of the (single) namespace, so that raw fio I/O and the filesystem
# never overlap and need no partition table:
#   [0, FS)             ext4, made with an explicit size (mkfs.ext4 DEV FSk)
#   [FS, FS+R1)         fio 4k random write + crc32c verify, iodepth 32
#   [FS+R1, FS+R1+R2)   fio 128k sequential write + verify (and, after the
#                       reconnect with digests, a verify-only pass of it)
#   [.., +R3)           fio 4k random write + verify over the digest connection
#   [.., +8 MiB)        nvme write/read passthrough (4 MiB, then 1025 blocks)
# FS = min(256 MiB, size/2); R1/R2/R3 = min(16/32/8 MiB, (size-FS)/4).
# The ext4 check (e2fsck) and the sha256 check after the reconnect therefore
# also prove that the raw writes landed where they were addressed.
#
# Each check prints "PASS: ..." or "FAIL: ...", the last line is
# "interop: N passed, M failed" and the exit status is 1 if any check failed.
set -u
MODE=${MODE:-full}
NQN=${TARGET_NQN:-nqn.2026-12.io.blox:interop}
ADDR=${HOST_IP:-10.0.2.2}
NVM_PORT=${NVM_PORT:-4420}
DISC_PORT=${DISC_PORT:-8009}
EXPECT_SIZE=${EXPECT_SIZE:-}
EXPECT_BLOCK_SIZE=${EXPECT_BLOCK_SIZE:-}
EXPECT_TRSVCID=${EXPECT_TRSVCID:-}
NRQ=${NR_IO_QUEUES:-2}
T=${CMD_TIMEOUT:-120}
FT=${FIO_TIMEOUT:-400}
MNT=/mnt/blox
W=/tmp/interop
mkdir -p "$W" "$MNT"
passed=0
failed=0
t_start=$(cut -d' ' -f1 /proc/uptime)

step() { echo "==== [$(cut -d' ' -f1 /proc/uptime)s] $* ===="; }
pass() {
	echo "PASS: $*"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}
# check WHAT CMD...: run CMD (output shown), PASS/FAIL on its exit status.
check() {
	what=$1
	shift
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$what"
		return 0
	fi
	fail "$what (exit $rc)"
	return 1
}
finish() {
	step "kernel log (nvme, ext4, block I/O)"
	dmesg | grep -iE 'nvme|ext4|I/O error|blk_update|crc|digest' || true
	# UUIDs (a file system's, a host's) are taken out first: a random one
	# can spell "bad" in hex.
	bad=$(dmesg | grep -iE 'nvme|ext4|I/O error|blk_update|buffer' |
		sed -E 's/[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}/<uuid>/g' |
		grep -iE 'error|fail|timeout|timed out|reset|invalid|mismatch|corrupt|abort|warn|unexpected|bad' |
		grep -vE 'Removing ctrl|new ctrl' || true)
	if [ -z "$bad" ]; then
		pass "kernel log: no nvme/ext4/I/O errors, timeouts or resets"
	else
		fail "kernel log has nvme/ext4/I/O errors, timeouts or resets:"
		echo "$bad" | sed 's/^/    /'
	fi
	t_end=$(cut -d' ' -f1 /proc/uptime)
	echo "guest checks took $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')s"
	echo "interop: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

# dmesg_mark / dmesg_since: the kernel messages logged after the mark.
dmesg_mark() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +"$((DMESG_MARK + 1))"; }

# discovery FILE: one "subtype|subnqn|trsvcid" line per discovery log entry.
discovery_entries() {
	awk '/Discovery Log Entry/ { if (n) print st "|" nqn "|" sv; n = 1; st = nqn = sv = "" }
	/^subtype:/ { sub(/^subtype: */, ""); st = $0 }
	/^subnqn:/ { nqn = $2 }
	/^trsvcid:/ { sv = $2 }
	END { if (n) print st "|" nqn "|" sv }' "$1"
}

# discover PORT: nvme discover on PORT; TARGET_NQN must be listed as an NVM
# subsystem.
discover() {
	port=$1
	step "nvme discover -t tcp -a $ADDR -s $port"
	timeout "$T" nvme discover -t tcp -a "$ADDR" -s "$port" >"$W/disc-$port.txt" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$W/disc-$port.txt"
		fail "nvme discover on port $port (exit $rc)"
		return 1
	fi
	cat "$W/disc-$port.txt"
	discovery_entries "$W/disc-$port.txt" >"$W/disc-$port.entries"
	if grep -q -F "nvme subsystem|$NQN|" "$W/disc-$port.entries"; then
		pass "discovery log on port $port lists $NQN ($(wc -l <"$W/disc-$port.entries") entries)"
	else
		fail "discovery log on port $port does not list $NQN as an NVM subsystem"
		return 1
	fi
	# TREQ as nvmet's on a plain port (0x04); 0x06 read "unrecognized".
	treqs=$(sed -n 's/^treq: *//p' "$W/disc-$port.txt" | sort -u)
	if [ "$treqs" = "not specified, sq flow control disable supported" ]; then
		pass "discovery log on port $port: treq '$treqs' on every entry"
	else
		fail "discovery log on port $port: treq '$(echo "$treqs" | tr '\n' '/')', want 'not specified, sq flow control disable supported'"
	fi
	if [ -n "$EXPECT_TRSVCID" ]; then
		svcs=$(grep -F "nvme subsystem|$NQN|" "$W/disc-$port.entries" | cut -d'|' -f3 | tr '\n' ' ')
		case " $svcs" in
		*" $EXPECT_TRSVCID "*) pass "discovery log on port $port: $NQN at trsvcid $EXPECT_TRSVCID" ;;
		*) fail "discovery log on port $port: $NQN at trsvcid '$svcs', expected $EXPECT_TRSVCID" ;;
		esac
		if [ "$DISC_PORT" != "$EXPECT_TRSVCID" ]; then
			case " $svcs" in
			*" $DISC_PORT "*) fail "discovery log on port $port lists $NQN at the discovery-only port $DISC_PORT" ;;
			*) pass "discovery log on port $port: $NQN not at the discovery-only port $DISC_PORT" ;;
			esac
		fi
	fi
}

# find_dev: set CTRL (nvmeX, live, subsysnqn = NQN) and DEV (/dev/nvmeXnY
# of nsid 1, the multipath head if there is one), waiting up to 30 s.
find_dev() {
	CTRL=
	DEV=
	i=0
	while [ $i -lt 300 ]; do
		if [ -z "$CTRL" ]; then
			for c in /sys/class/nvme/nvme*; do
				[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
				[ "$(cat "$c/state" 2>/dev/null)" = live ] || continue
				CTRL=${c##*/}
			done
		fi
		if [ -n "$CTRL" ]; then
			for s in /sys/class/nvme-subsystem/nvme-subsys* "/sys/class/nvme/$CTRL"; do
				[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
				for n in "$s"/nvme*n*; do
					case ${n##*/} in *c*) continue ;; esac
					[ "$(cat "$n/nsid" 2>/dev/null)" = 1 ] || continue
					[ -b "/dev/${n##*/}" ] && DEV=/dev/${n##*/} && return 0
				done
			done
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# nvme_connect WHAT ARGS...: the nvme connect alone, the kernel's messages
# shown after it (dmesg_since); its exit status in rc.
nvme_connect() {
	what=$1
	shift
	step "$what: nvme connect -t tcp -a $ADDR -s $NVM_PORT -n $NQN -i $NRQ $*"
	dmesg_mark
	timeout "$T" nvme connect -t tcp -a "$ADDR" -s "$NVM_PORT" -n "$NQN" -i "$NRQ" "$@"
	rc=$?
	sleep 0.5
	dmesg_since | sed 's/^/    kernel: /'
}

# connect WHAT ARGS...: nvme connect with ARGS, then find CTRL/DEV and check
# that the kernel created NRQ I/O queues.
connect() {
	nvme_connect "$@"
	if [ $rc -ne 0 ]; then
		fail "$what: nvme connect (exit $rc)"
		return 1
	fi
	if ! find_dev; then
		fail "$what: connected, but no live controller with namespace 1 for $NQN (CTRL='$CTRL')"
		ls -l /sys/class/nvme/ /dev/nvme* 2>&1
		return 1
	fi
	pass "$what: connected, controller /dev/$CTRL, namespace $DEV"
	q=$(dmesg_since | grep -o "$CTRL: creating [0-9]* I/O queues" | tail -n1 | awk '{ print $3 }')
	if [ "$q" = "$NRQ" ]; then
		pass "$what: kernel created $NRQ I/O queues"
	else
		fail "$what: kernel created '${q:-?}' I/O queues, asked for $NRQ"
	fi
	return 0
}

# errlog_clean WHAT: the error log of the fresh controller CTRL is empty
# (error_count 0): nothing the kernel sent while connecting failed.
errlog_clean() {
	step "$1: nvme error-log /dev/$CTRL -e 1 (a fresh controller)"
	timeout "$T" nvme error-log "/dev/$CTRL" -e 1 >"$W/errlog0.txt" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$W/errlog0.txt"
		fail "$1: nvme error-log (exit $rc)"
		return 1
	fi
	n=$(logfield "$W/errlog0.txt" error_count)
	if [ "$n" = 0 ]; then
		pass "$1: error log empty after connect (error_count 0)"
	else
		cat "$W/errlog0.txt"
		fail "$1: error log has error_count '$n' after connect, want 0"
	fi
}

# passthrough WHAT SLBA BYTES: nvme write then nvme read of BYTES at block
# SLBA through the ioctl (a transfer the kernel cannot split: MDTS must
# hold it), and the data must compare equal.
passthrough() {
	what=$1
	nlb=$(($3 / LBS))
	step "passthrough $what: nvme write/read $DEV --start-block=$2 --block-count=$((nlb - 1)) --data-size=$3"
	head -c "$3" /dev/urandom >"$W/pt-w"
	rm -f "$W/pt-r"
	timeout "$T" nvme write "$DEV" --start-block="$2" --block-count=$((nlb - 1)) \
		--data-size="$3" --data="$W/pt-w"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "passthrough $what: nvme write of $3 bytes (exit $rc)"
		return 1
	fi
	timeout "$T" nvme read "$DEV" --start-block="$2" --block-count=$((nlb - 1)) \
		--data-size="$3" --data="$W/pt-r"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "passthrough $what: nvme read of $3 bytes (exit $rc)"
		return 1
	fi
	if cmp "$W/pt-w" "$W/pt-r"; then
		pass "passthrough $what: nvme write + read of $3 bytes, same data"
	else
		fail "passthrough $what: nvme read of $3 bytes differs from what nvme write wrote"
	fi
}

# disconnect WHAT: nvme disconnect -n NQN; the controller must go away.
disconnect() {
	step "$1: nvme disconnect -n $NQN"
	timeout "$T" nvme disconnect -n "$NQN"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$1: nvme disconnect (exit $rc)"
		return 1
	fi
	i=0
	while [ -e "/sys/class/nvme/$CTRL" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -e "/sys/class/nvme/$CTRL" ]; then
		fail "$1: /dev/$CTRL still present 10 s after nvme disconnect"
		return 1
	fi
	pass "$1: disconnected, /dev/$CTRL gone"
}

# idfield FILE NAME: the value of "NAME : value" in nvme-cli output.
idfield() { sed -n "s/^$2 *: *//p" "$1" | head -n1 | sed 's/ *$//'; }
# logfield FILE NAME: the same for log pages, whose names nvme-cli pads with
# tabs (NAME may be a regular expression: 2.3 says "critical warning").
logfield() { sed -n "s/^$2[[:space:]]*:[[:space:]]*//p" "$1" | head -n1 | sed 's/[[:space:]]*$//'; }
# num VALUE: VALUE as a decimal number (0x.. hex, thousands separators and
# a trailing % dropped), or empty if it is none.
num() {
	v=$(printf '%s' "$1" | tr -d ',%')
	case $v in
	0x[0-9a-fA-F]*) printf '%d' "$v" 2>/dev/null ;;
	'' | *[!0-9]*) ;;
	*) printf '%s' "$v" ;;
	esac
}
# expect WHAT VALUE OP BOUND: PASS if the number VALUE OP BOUND (-eq, -ge, ...).
expect() {
	n=$(num "$2")
	if [ -n "$n" ] && test "$n" "$3" "$4" 2>/dev/null; then
		pass "$1 = $n ($3 $4)"
	else
		fail "$1 is '$2', want $3 $4"
	fi
}

# endurance_log WHAT GROUP FILE: nvme endurance-log for GROUP into FILE; 0 if it ran.
endurance_log() {
	step "$1: nvme endurance-log /dev/$CTRL --group-id=$2"
	if timeout "$T" nvme endurance-log "/dev/$CTRL" --group-id="$2" >"$3" 2>&1; then
		cat "$3"
		if grep -qE '^critical[ _]warning' "$3"; then
			pass "$1: nvme endurance-log --group-id=$2"
			return 0
		fi
		fail "$1: nvme endurance-log --group-id=$2: no critical warning line"
		return 1
	fi
	rc=$?
	cat "$3"
	fail "$1: nvme endurance-log --group-id=$2 (exit $rc)"
	return 1
}

# fio_job WHAT ARGS...: fio on the raw device, direct libaio, crc32c verify.
fio_job() {
	what=$1
	shift
	step "fio: $what"
	if timeout "$FT" fio --name=interop --filename="$DEV" --direct=1 --ioengine=libaio \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --eta=never "$@"; then
		pass "fio $what"
	else
		fail "fio $what (exit $?)"
	fi
}

# layout: offsets and sizes in KiB from DEVSIZE (see the top of this file).
layout() {
	MB=1024
	SIZEK=$((DEVSIZE / 1024))
	FSK=$((SIZEK / 2))
	[ $FSK -le $((256 * MB)) ] || FSK=$((256 * MB))
	FSK=$((FSK / MB * MB))
	RESTK=$(((SIZEK - FSK) / 4 / MB * MB))
	R1=$((16 * MB))
	R2=$((32 * MB))
	R3=$((8 * MB))
	[ $R1 -le $RESTK ] || R1=$RESTK
	[ $R2 -le $RESTK ] || R2=$RESTK
	[ $R3 -le $RESTK ] || R3=$RESTK
	O1=$FSK
	O2=$((O1 + R1))
	O3=$((O2 + R2))
	# 8 MiB for the passthrough writes (4 MiB, and nvme/029's 1025 blocks).
	O4=$((O3 + R3))
	R4=$((8 * MB))
	echo "layout (KiB): ext4 [0,$FSK) fio-4k [$O1,+$R1) fio-128k [$O2,+$R2) fio-digest [$O3,+$R3) passthrough [$O4,+$R4) of $SIZEK"
}
# The raw fio jobs; verify mode replays them with --verify_only.
FIO_R1="--rw=randwrite --bs=4k --iodepth=32"
FIO_R2="--rw=write --bs=128k --iodepth=8"
FIO_R3="--rw=randwrite --bs=4k --iodepth=32"
# verify_run: MODE=verify, on connect #1: what a full run left on the
# namespace must all be there after the target restarted. Ends in finish.
verify_run() {
	layout
	if [ -n "$EXPECT_SIZE" ]; then
		if [ "$DEVSIZE" -eq "$EXPECT_SIZE" ]; then pass "namespace size $DEVSIZE = expected"; else fail "namespace size $DEVSIZE, expected $EXPECT_SIZE"; fi
	fi
	step "verify: ext4 written before the restart: e2fsck, mount, sha256 of every file"
	check "e2fsck -fn after the target restart" timeout "$T" e2fsck -fn "$DEV"
	if timeout "$T" mount -t ext4 -o ro "$DEV" "$MNT"; then
		if [ -s "$MNT/SUMS" ]; then
			nsums=$(wc -l <"$MNT/SUMS")
			nfiles=$(cd "$MNT" && find . -type f ! -path ./SUMS | wc -l)
			if (cd "$MNT" && sha256sum -c SUMS >"$W/sumcheck.txt" 2>&1); then
				pass "all $nsums files read back with matching sha256 after the target restart"
			else
				grep -v ': OK$' "$W/sumcheck.txt"
				fail "sha256 mismatch after the target restart"
			fi
			if [ "$nfiles" -eq "$nsums" ]; then
				pass "ext4 holds exactly the $nsums files of SUMS"
			else
				fail "ext4 holds $nfiles files, SUMS lists $nsums"
			fi
		else
			fail "no SUMS file in the filesystem written before the restart"
		fi
		check "umount" timeout "$T" umount "$MNT"
	else
		fail "mount (read-only) after the target restart"
	fi
	# shellcheck disable=SC2086 # FIO_R* are lists of options
	fio_job "verify-only after the restart: 4k random region, ${R1}k at ${O1}k" \
		$FIO_R1 --offset="${O1}k" --size="${R1}k" --verify_only
	# shellcheck disable=SC2086
	fio_job "verify-only after the restart: 128k sequential region, ${R2}k at ${O2}k" \
		$FIO_R2 --offset="${O2}k" --size="${R2}k" --verify_only
	# shellcheck disable=SC2086
	fio_job "verify-only after the restart: 4k random region written over digests, ${R3}k at ${O3}k" \
		$FIO_R3 --offset="${O3}k" --size="${R3}k" --verify_only
	# The FTL keeps the host's writes across the restart: the first run's
	# are still counted before anything is written now.
	if endurance_log "verify" 1 "$W/endurance.txt"; then
		expect "endurance-log data_units_written after the restart" \
			"$(logfield "$W/endurance.txt" data_units_written)" -ge 1
	fi
	disconnect "connect #1 (verify)"
	finish
}

# --- MODE=auth: DH-HMAC-CHAP (guest_auth.sh, copied beside this script) -----------
if [ -f ./guest_auth.sh ]; then
	# shellcheck source=guest_auth.sh
	. ./guest_auth.sh
else
	fail "guest_auth.sh is missing from $(pwd)"
fi

# --- first connection: plain (no digests) -------------------------------------
case $MODE in
full | verify) ;;
*)
	fail "MODE must be full, verify or auth, not '$MODE'"
	finish
	;;
esac
connect "connect #1" || finish
errlog_clean "connect #1"
DN=${DEV##*/}
DEVSIZE=$(($(cat "/sys/block/$DN/size") * 512))
LBS=$(cat "/sys/block/$DN/queue/logical_block_size")
[ "$MODE" = full ] || verify_run

step "nvme list"
if timeout "$T" nvme list >"$W/list.txt" 2>&1; then
	cat "$W/list.txt"
	if grep -q "^$DEV " "$W/list.txt"; then pass "nvme list shows $DEV"; else fail "nvme list does not show $DEV"; fi
else
	rc=$?
	cat "$W/list.txt"
	fail "nvme list (exit $rc)"
fi
timeout "$T" nvme list-subsys

step "nvme id-ctrl /dev/$CTRL"
if timeout "$T" nvme id-ctrl "/dev/$CTRL" >"$W/id-ctrl.txt" 2>&1; then
	cat "$W/id-ctrl.txt"
	pass "nvme id-ctrl"
	mn=$(idfield "$W/id-ctrl.txt" mn)
	sn=$(idfield "$W/id-ctrl.txt" sn)
	nn=$(idfield "$W/id-ctrl.txt" nn)
	subnqn=$(idfield "$W/id-ctrl.txt" subnqn)
	if [ -n "$mn" ]; then pass "id-ctrl mn '$mn'"; else fail "id-ctrl mn is empty"; fi
	if [ -n "$sn" ]; then pass "id-ctrl sn '$sn'"; else fail "id-ctrl sn is empty"; fi
	if [ -n "$nn" ] && [ "$((nn))" -ge 1 ] 2>/dev/null; then pass "id-ctrl nn $nn >= 1"; else fail "id-ctrl nn '$nn' < 1"; fi
	if [ "$subnqn" = "$NQN" ]; then pass "id-ctrl subnqn $subnqn"; else fail "id-ctrl subnqn '$subnqn', expected $NQN"; fi
	# NVM Sets (CTRATT bit 2) and Endurance Groups (bit 4), ids up to 1024.
	ctratt=$(num "$(idfield "$W/id-ctrl.txt" ctratt)")
	if [ -n "$ctratt" ] && [ $((ctratt & 0x14)) -eq $((0x14)) ]; then
		pass "id-ctrl ctratt $(idfield "$W/id-ctrl.txt" ctratt): NVM Sets and Endurance Groups"
	else
		fail "id-ctrl ctratt '$(idfield "$W/id-ctrl.txt" ctratt)' lacks NVM Sets (0x4) or Endurance Groups (0x10)"
	fi
	expect "id-ctrl nsetidmax" "$(idfield "$W/id-ctrl.txt" nsetidmax)" -eq 1024
	expect "id-ctrl endgidmax" "$(idfield "$W/id-ctrl.txt" endgidmax)" -eq 1024
else
	rc=$?
	cat "$W/id-ctrl.txt"
	fail "nvme id-ctrl (exit $rc)"
fi

step "nvme id-ns $DEV"
DEVSIZE=$(($(cat "/sys/block/$DN/size") * 512))
LBS=$(cat "/sys/block/$DN/queue/logical_block_size")
echo "block device $DEV: $DEVSIZE bytes, logical block size $LBS"
if timeout "$T" nvme id-ns "$DEV" >"$W/id-ns.txt" 2>&1; then
	cat "$W/id-ns.txt"
	pass "nvme id-ns"
	nsze=$(idfield "$W/id-ns.txt" nsze)
	ncap=$(idfield "$W/id-ns.txt" ncap)
	lbads=$(sed -n 's/^lbaf *[0-9]* *:.*lbads:\([0-9]*\).*(in use).*/\1/p' "$W/id-ns.txt" | head -n1)
	if [ -n "$nsze" ] && [ -n "$lbads" ]; then
		bs=$((1 << lbads))
		bytes=$((nsze * bs))
		echo "id-ns: nsze $nsze ncap $ncap, in-use LBA format lbads $lbads ($bs bytes) = $bytes bytes"
		if [ "$bytes" -eq "$DEVSIZE" ] && [ "$bs" -eq "$LBS" ]; then
			pass "id-ns nsze $nsze x $bs = $bytes bytes = size of $DEV"
		else
			fail "id-ns nsze $nsze x $bs = $bytes bytes, but $DEV has $DEVSIZE bytes of $LBS"
		fi
		if [ -n "$ncap" ] && [ "$((ncap))" -ge 1 ] && [ "$((ncap))" -le "$((nsze))" ]; then
			pass "id-ns ncap $ncap in [1, nsze]"
		else
			fail "id-ns ncap '$ncap' not in [1, nsze $nsze]"
		fi
		if [ -n "$EXPECT_SIZE" ]; then
			if [ "$bytes" -eq "$EXPECT_SIZE" ]; then pass "namespace size $bytes = expected"; else fail "namespace size $bytes, expected $EXPECT_SIZE"; fi
		fi
		if [ -n "$EXPECT_BLOCK_SIZE" ]; then
			if [ "$bs" -eq "$EXPECT_BLOCK_SIZE" ]; then pass "block size $bs = expected"; else fail "block size $bs, expected $EXPECT_BLOCK_SIZE"; fi
		fi
	else
		fail "id-ns: no nsze ('$nsze') or in-use LBA format ('$lbads')"
	fi
	# Namespace 1 is NVM Set 1; on a device of its own, Endurance Group 1.
	expect "id-ns nvmsetid" "$(idfield "$W/id-ns.txt" nvmsetid)" -eq 1
	expect "id-ns endgid" "$(idfield "$W/id-ns.txt" endgid)" -eq 1
else
	rc=$?
	cat "$W/id-ns.txt"
	fail "nvme id-ns (exit $rc)"
fi

step "nvme smart-log /dev/$CTRL"
if timeout "$T" nvme smart-log "/dev/$CTRL" >"$W/smart.txt" 2>&1; then
	cat "$W/smart.txt"
	if grep -q '^critical_warning' "$W/smart.txt"; then pass "nvme smart-log"; else fail "nvme smart-log: no critical_warning line"; fi
else
	rc=$?
	cat "$W/smart.txt"
	fail "nvme smart-log (exit $rc)"
fi
step "nvme error-log /dev/$CTRL"
if timeout "$T" nvme error-log "/dev/$CTRL" >"$W/errlog.txt" 2>&1; then
	head -n 40 "$W/errlog.txt"
	pass "nvme error-log ($(grep -c 'Entry\[' "$W/errlog.txt") entries)"
else
	rc=$?
	cat "$W/errlog.txt"
	fail "nvme error-log (exit $rc)"
fi

layout

# --- passthrough I/O the kernel cannot split (blktests nvme/029) -------------------
if [ $((O4 + R4)) -le "$SIZEK" ]; then
	passthrough "4 MiB" $((O4 * 1024 / LBS)) 4194304
	passthrough "1025 blocks" $(((O4 + 4 * MB) * 1024 / LBS)) $((1025 * LBS))
else
	fail "passthrough: no room for [$O4,+$R4) KiB in $SIZEK KiB"
fi

# --- ext4 ------------------------------------------------------------------------
step "mkfs.ext4 on $DEV (${FSK}k), mount, write files"
FS_OK=0
if timeout "$T" mkfs.ext4 -F -q "$DEV" "${FSK}k" && timeout "$T" mount -t ext4 "$DEV" "$MNT"; then
	pass "mkfs.ext4 ${FSK}k + mount"
	rm -rf "$W/src"
	mkdir -p "$W/src/small"
	# Sizes not all block multiples; 4+8+3 MiB large files plus 24 small ones.
	dd if=/dev/urandom of="$W/src/a.bin" bs=1M count=4 2>/dev/null
	dd if=/dev/urandom of="$W/src/b.bin" bs=1M count=8 2>/dev/null
	head -c $((3 * 1048576 + 12345)) /dev/urandom >"$W/src/c.bin"
	i=1
	while [ $i -le 24 ]; do
		head -c $((i * 2731)) /dev/urandom >"$W/src/small/f$i"
		i=$((i + 1))
	done
	(cd "$W/src" && find . -type f | sort | xargs sha256sum) >"$W/sums.txt"
	echo "$(wc -l <"$W/sums.txt") files, $(du -sk "$W/src" | cut -f1) KiB"
	# SUMS goes along, for the verify run after a target restart.
	if cp -a "$W/src/." "$MNT/" && cp "$W/sums.txt" "$MNT/SUMS" && sync &&
		(cd "$MNT" && sha256sum -c -s "$W/sums.txt" && cmp -s SUMS "$W/sums.txt"); then
		pass "wrote $(wc -l <"$W/sums.txt") files to ext4, sync"
	else
		fail "writing files to ext4"
	fi
	if timeout "$T" umount "$MNT"; then
		check "e2fsck -fn after umount" timeout "$T" e2fsck -fn "$DEV" && FS_OK=1
	else
		fail "umount $MNT"
	fi
else
	fail "mkfs.ext4 ${FSK}k + mount"
fi

# --- raw fio past the filesystem -------------------------------------------------
# shellcheck disable=SC2086 # FIO_R* are lists of options
fio_job "4k randwrite iodepth 32, ${R1}k at ${O1}k, verify crc32c" \
	$FIO_R1 --offset="${O1}k" --size="${R1}k"
# shellcheck disable=SC2086
fio_job "128k seq write iodepth 8, ${R2}k at ${O2}k, verify crc32c" \
	$FIO_R2 --offset="${O2}k" --size="${R2}k"

step "nvme smart-log /dev/$CTRL after I/O"
timeout "$T" nvme smart-log "/dev/$CTRL" | grep -iE 'data units|commands' || true

# --- NVM Sets and Endurance Groups --------------------------------------------
step "nvme id-nvmset /dev/$CTRL"
if timeout "$T" nvme id-nvmset "/dev/$CTRL" >"$W/id-nvmset.txt" 2>&1; then
	cat "$W/id-nvmset.txt"
	pass "nvme id-nvmset"
	# One namespace: one set, id 1, in group 1; its capacity holds the
	# namespace; NAND timing gives a read time, the flash page a write size.
	expect "id-nvmset nid" "$(idfield "$W/id-nvmset.txt" nid)" -eq 1
	expect "id-nvmset nvmset_id" "$(idfield "$W/id-nvmset.txt" nvmset_id)" -eq 1
	expect "id-nvmset endurance_group_id" "$(idfield "$W/id-nvmset.txt" endurance_group_id)" -eq 1
	expect "id-nvmset random_4k_read_typical (100 ns)" "$(idfield "$W/id-nvmset.txt" random_4k_read_typical)" -ge 1
	expect "id-nvmset optimal_write_size" "$(idfield "$W/id-nvmset.txt" optimal_write_size)" -ge 4096
	expect "id-nvmset total_nvmset_cap" "$(idfield "$W/id-nvmset.txt" total_nvmset_cap)" -ge "$DEVSIZE"
	tcap=$(num "$(idfield "$W/id-nvmset.txt" total_nvmset_cap)")
	ucap=$(num "$(idfield "$W/id-nvmset.txt" unalloc_nvmset_cap)")
	if [ -n "$tcap" ] && [ -n "$ucap" ] && [ $((tcap - ucap)) -eq "$DEVSIZE" ]; then
		pass "id-nvmset: total $tcap - unallocated $ucap = the namespace's $DEVSIZE bytes"
	else
		fail "id-nvmset: total '$tcap' - unallocated '$ucap' is not the namespace's $DEVSIZE bytes"
	fi
	# From set 2 on: none.
	if timeout "$T" nvme id-nvmset "/dev/$CTRL" --nvmset_id=2 >"$W/id-nvmset2.txt" 2>&1; then
		expect "id-nvmset --nvmset_id=2 nid" "$(idfield "$W/id-nvmset2.txt" nid)" -eq 0
	else
		cat "$W/id-nvmset2.txt"
		fail "nvme id-nvmset --nvmset_id=2 (exit $?)"
	fi
else
	rc=$?
	cat "$W/id-nvmset.txt"
	fail "nvme id-nvmset (exit $rc)"
fi
# After the ext4 and fio writes: data and media units (billions of bytes,
# rounded up) and write commands are counted, no wear yet, all spare.
if endurance_log "after I/O" 1 "$W/endurance.txt"; then
	E=$W/endurance.txt
	expect "endurance-log critical warning" "$(logfield "$E" 'critical[ _]warning')" -eq 0
	expect "endurance-log avl_spare" "$(logfield "$E" avl_spare)" -le 100
	expect "endurance-log avl_spare_threshold" "$(logfield "$E" avl_spare_threshold)" -lt "$(num "$(logfield "$E" avl_spare)")"
	expect "endurance-log percent_used" "$(logfield "$E" percent_used)" -eq 0
	expect "endurance-log endurance_estimate" "$(logfield "$E" endurance_estimate)" -ge 1
	expect "endurance-log data_units_written" "$(logfield "$E" data_units_written)" -ge 1
	expect "endurance-log media_units_written" "$(logfield "$E" media_units_written)" -ge 1
	expect "endurance-log host_write_cmds" "$(logfield "$E" host_write_cmds)" -ge 1
	expect "endurance-log host_read_cmds" "$(logfield "$E" host_read_cmds)" -ge 1
fi
step "nvme endurance-log /dev/$CTRL --group-id=2 (no such group)"
if timeout "$T" nvme endurance-log "/dev/$CTRL" --group-id=2 >"$W/endurance2.txt" 2>&1; then
	cat "$W/endurance2.txt"
	fail "nvme endurance-log --group-id=2 succeeded; there is no group 2"
else
	cat "$W/endurance2.txt"
	pass "nvme endurance-log --group-id=2 refused (no such group)"
fi

# --- Predictable Latency Mode on NVM Set 1 (guest_plm.sh, copied beside this script) ---
if [ -f ./guest_plm.sh ]; then
	# shellcheck source=guest_plm.sh
	. ./guest_plm.sh
else
	fail "guest_plm.sh is missing from $(pwd)"
fi

disconnect "connect #1" || finish

# --- second connection: header and data digests --------------------------------
connect "connect #2 (-g -G digests)" -g -G || finish

if [ $FS_OK = 1 ]; then
	step "ext4 after reconnect: e2fsck, mount, sha256 of every file"
	check "e2fsck -fn after reconnect (raw fio left the fs intact)" timeout "$T" e2fsck -fn "$DEV"
	if timeout "$T" mount -t ext4 "$DEV" "$MNT"; then
		if (cd "$MNT" && sha256sum -c "$W/sums.txt" >"$W/sumcheck.txt" 2>&1); then
			pass "all $(wc -l <"$W/sums.txt") files read back with matching sha256 over digests"
		else
			grep -v ': OK$' "$W/sumcheck.txt"
			fail "sha256 mismatch after reconnect"
		fi
		check "umount" timeout "$T" umount "$MNT"
	else
		fail "mount after reconnect"
	fi
else
	fail "ext4 after reconnect: skipped, the filesystem was not written cleanly"
fi

# shellcheck disable=SC2086
fio_job "verify-only of the 128k region written before the reconnect" \
	$FIO_R2 --offset="${O2}k" --size="${R2}k" --verify_only
# shellcheck disable=SC2086
fio_job "4k randwrite iodepth 32, ${R3}k at ${O3}k, verify crc32c, over digests" \
	$FIO_R3 --offset="${O3}k" --size="${R3}k"

disconnect "connect #2"

# --- two software vSSDs of one pool: two NVM Sets, one Endurance Group -----------
if [ -n "${POOL_NQN:-}" ]; then
	MAIN_NQN=$NQN
	NQN=$POOL_NQN
	if connect "pool"; then
		P=/dev/${CTRL}n
		for n in 1 2; do
			timeout "$T" nvme id-ns "/dev/$CTRL" -n "$n" >"$W/pool-id-ns$n.txt" 2>&1 ||
				fail "pool: nvme id-ns -n $n"
		done
		s1=$(idfield "$W/pool-id-ns1.txt" nvmsetid)
		s2=$(idfield "$W/pool-id-ns2.txt" nvmsetid)
		g1=$(idfield "$W/pool-id-ns1.txt" endgid)
		g2=$(idfield "$W/pool-id-ns2.txt" endgid)
		echo "pool: namespace 1 nvmsetid $s1 endgid $g1, namespace 2 nvmsetid $s2 endgid $g2 ($P*)"
		expect "pool: namespace 1 nvmsetid" "$s1" -eq 1
		expect "pool: namespace 2 nvmsetid" "$s2" -eq 2
		if [ -n "$g1" ] && [ "$g1" = "$g2" ] && [ "$g1" -ge 1 ]; then
			pass "pool: both software vSSDs are in one Endurance Group ($g1)"
		else
			fail "pool: endgid '$g1' and '$g2' differ: one pool should be one group"
		fi
		if timeout "$T" nvme id-nvmset "/dev/$CTRL" >"$W/pool-id-nvmset.txt" 2>&1; then
			cat "$W/pool-id-nvmset.txt"
			expect "pool: id-nvmset lists both sets" \
				"$(grep -c 'nvmset_id' "$W/pool-id-nvmset.txt")" -eq 2
		else
			fail "pool: nvme id-nvmset"
		fi
		endurance_log "pool" "${g1:-1}" "$W/pool-endurance.txt" || true
		# Reservations through nvme-cli (guest_resv.sh, copied beside this script).
		if [ -f ./guest_resv.sh ]; then
			# shellcheck source=guest_resv.sh
			. ./guest_resv.sh
			resv_checks "$DEV"
		else
			fail "guest_resv.sh is missing from $(pwd)"
		fi
		disconnect "pool"
	fi
	NQN=$MAIN_NQN
fi
finish
