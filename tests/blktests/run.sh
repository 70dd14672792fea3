#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh - blktests' nvme tests, run by a Linux NVMe/TCP host (the initiator
# VM) against bloxd as an external target (blktests' NVME_TARGET_CONTROL).
#
# Usage: run.sh BLOXD BLOXCTL [KERNEL_SERIES]
#
# blktests: BLOX_BLKTESTS_DIR (a blktests source tree), else extracted
# (git archive HEAD) from the bare repository BLOX_BLKTESTS_GIT, by default
# .mirror/osandov+blktests/repo beside the repository's folder; neither
# there: exit 77 (ctest SKIP), or 1 with BLOX_INTEROP_REQUIRE=1 (not with CI=true: blktests is in no Debian archive).
# docs/cluster.md says how to get it.
#
# Starts bloxd on the host's 127.0.0.1 (no subsystem; an NVMe/TCP listener
# on a free port from BLOX_INTEROP_PORT_BASE, 4421, up) and control.py on
# the next free port, which carries out the hook's setup and cleanup with
# bloxctl over bloxd's admin socket. guest.sh runs blktests' check in the
# VM with bloxd-target-control.sh as NVME_TARGET_CONTROL.
#
# BLOX_BLKTESTS_TESTS: the tests (default: the smoke set below, every one
# of which must pass); "nvme" (or any list) with BLOX_BLKTESTS_REPORT=1
# only reports (exit 0 unless check could not run). BLOX_BLKTESTS_IMG:
# NVME_IMG_SIZE and the namespace's size (16M). BLOX_BLKTESTS_BACKEND:
# the namespace's backend (nand, a device of its own; or ram).
# bloxd is stopped with SIGTERM by its PID and must exit 0; control.py is
# stopped by its PID. Exit status: 0 passed, 1 failed, 77 skipped. The
# harness: ../interop/lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../interop/lib.sh
. "$HERE/../interop/lib.sh"
BLOXD=${1:?usage: run.sh BLOXD BLOXCTL [6.1|6.12]}
BLOXCTL=${2:?usage: run.sh BLOXD BLOXCTL [6.1|6.12]}
interop_init blktests "${3:-6.1}"

# The smoke set: the nvme tests that apply to an external NVMe/TCP target
# and finish in a few seconds each under TCG (docs/cluster.md has the
# whole group's result and why the others are left out; nvme/061, which
# passes on both kernels, takes a minute: BLOX_BLKTESTS_TESTS=nvme/061).
SMOKE="nvme/003 nvme/004 nvme/005 nvme/006 nvme/008 nvme/010 nvme/014 nvme/018
nvme/019 nvme/021 nvme/022 nvme/023 nvme/025 nvme/026 nvme/027 nvme/028 nvme/029
nvme/040"
tests=${BLOX_BLKTESTS_TESTS:-$SMOKE}
report=${BLOX_BLKTESTS_REPORT:-0}

# blktests' source, into $work/blktests.
top=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) || top=$(cd "$HERE/../.." && pwd)
src=${BLOX_BLKTESTS_DIR:-}
git_dir=${BLOX_BLKTESTS_GIT:-$top/../.mirror/osandov+blktests/repo}
mkdir -p "$work/blktests"
if [[ -n $src && -x $src/check ]]; then
	cp -a "$src/." "$work/blktests/"
elif [[ -z $src && -d $git_dir ]] &&
	git --git-dir="$git_dir" archive HEAD | tar -x -C "$work/blktests"; then
	say "blktests $(git --git-dir="$git_dir" rev-parse --short HEAD) from $git_dir"
else
	rm -rf "$work"
	# Not CI=true: blktests is in no Debian archive, so setup.sh cannot
	# install it and a fresh machine may well be without it.
	case ${BLOX_INTEROP_REQUIRE:-} in
	1 | true | yes) say "FAIL: blktests not found (BLOX_BLKTESTS_DIR or $git_dir)"; exit 1 ;;
	esac
	say "SKIP: blktests not found (BLOX_BLKTESTS_DIR or a git repository at $git_dir; docs/cluster.md)"
	exit 77
fi

# The GNU and util-linux tools check and the tests call, beside busybox.
bins=""
for b in gawk awk getopt diff losetup column udevadm blockdev sort find cut timeout \
	realpath nproc mktemp dd truncate df zgrep gzip sed grep findmnt uuidgen mkfs.xfs xfs_io stat; do
	if p=$(command -v "$b"); then
		bins+=" $p"
	else
		say "note: no $b on the host; tests that need it do not run"
	fi
done
# The kernel's config, for blktests' checks of kernel options (the
# harness's unpacked kernel package; without it those tests do not run).
kcfg=''
for f in "${INITIATOR_VM_CACHE:-/var/cache/initiator-vm}"/kernel/linux-image-"$SERIES".[0-9]*/boot/config-*; do
	[[ -f $f ]] && kcfg=$f
done

port=$(free_port "$PORT_BASE")
ctl=$(free_port $((port + 1)) "$port")
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ], "subsystems": [] }
JSON
bloxd_up "$port"
python3 "$HERE/control.py" --port "$ctl" --bloxctl "$BLOXCTL" --socket "$sock" \
	--log "$work/control.log" --listener "127.0.0.1:$port" --backend "${BLOX_BLKTESTS_BACKEND:-nand}" </dev/null \
	>"$work/control.out" 2>&1 &
ctl_pid=$!
PIDS+=("$ctl_pid")
bloxd_wait "$ctl"

rc=0
INITIATOR_VM_EXTRA_BINS="${INITIATOR_VM_EXTRA_BINS:-}$bins" \
	INITIATOR_VM_EXTRA_MODULES="${INITIATOR_VM_EXTRA_MODULES:-} xfs" \
	vm_run 1800 "PORT=$port CTL=$ctl IMG=${BLOX_BLKTESTS_IMG:-16M} TESTS=${tests//[$'\n ']/,}" \
	"$HERE/guest.sh" "$work/blktests" "$HERE/bloxd-target-control.sh" ${kcfg:+"$kcfg"} \
	>/dev/null || rc=1
kill -TERM "$ctl_pid"
wait "$ctl_pid"
guest_lines 'GUEST-BLK'
sed "s/^/[$TEST] control: /" "$work/control.log" 2>/dev/null | sed 's/key=[^&]*/key=<key>/g'

results=$(tr -d '\r' <"$log" | grep -a 'GUEST-BLK result: ' | sed 's/.*GUEST-BLK result: //')
if [[ $rc != 0 || -z $results ]]; then
	say "FAIL: check did not run to the end in the VM"
	rc=1
elif [[ $report != 1 ]]; then
	for t in $tests; do
		line=$(grep -m1 "^$t " <<<"$results")
		case $line in
		"$t passed") ;;
		"") say "FAIL: $t has no result"; rc=1 ;;
		*) say "FAIL: $line"; rc=1 ;;
		esac
	done
fi
bloxd_stop "$pid" "$work/bloxd.log" || rc=1
interop_end $rc
