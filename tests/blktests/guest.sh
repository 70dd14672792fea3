#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest.sh - runs blktests' nvme tests in the initiator VM against bloxd on
# the host (run.sh starts it all; this is the guest's part).
#
# /guest holds blktests (its source tree), bloxd-target-control.sh (the
# NVME_TARGET_CONTROL hook) and the kernel's config-$(uname -r) (for
# blktests' kernel option checks, as /boot/config-* of an installed kernel).
# Environment (INITIATOR_VM_ENV): PORT (bloxd's NVMe/TCP listener), CTL
# (control.py's port), TESTS (the tests, "nvme/004,nvme/010,..." or "nvme"),
# IMG (NVME_IMG_SIZE and the namespace's size). Prints check's output and
# one line per test, "GUEST-BLK result: nvme/NNN passed|failed|not run:
# REASON", then "GUEST-BLK summary: ..." Exit status: 0 when check ran
# (what each test did is for run.sh to judge), 1 when it could not.
set -u
say() { echo "GUEST-BLK $*"; }
: "${PORT:?}" "${CTL:?}" "${TESTS:?}" "${IMG:=64M}"
TESTS=${TESTS//,/ }

mkdir -p /boot /tmp/blk
cp /guest/config-"$(uname -r)" /boot/ 2>/dev/null || say "no kernel config: option checks skip"
# nvme-tcp for the host; nvmet because some tests make a port in the local
# target's configfs before they ask the hook for the subsystem (nvme/031).
modprobe -a nvme-tcp nvmet nvmet-tcp loop 2>/dev/null
cd /guest/blktests || { say "no /guest/blktests"; exit 1; }
cat >config <<CFG
NVME_TARGET_CONTROL=/guest/bloxd-target-control.sh
NVME_IMG_SIZE=$IMG
CFG
export BLOX_CONTROL_URL=http://${HOST_IP:-10.0.2.2}:$CTL BLOX_TRADDR=${HOST_IP:-10.0.2.2}
export BLOX_TRSVCID=$PORT BLOX_NS_SIZE=$IMG BLOX_HOOK_LOG=/tmp/blk/hook.log
# shellcheck disable=SC2086 # TESTS is a list
./check -o /tmp/blk/results $TESTS >/tmp/blk/check.out 2>&1
say "check exited $?"
sed 's/^/GUEST-BLK check: /' /tmp/blk/check.out
# Each test's own line ends in [passed], [failed] or [not run]; a not-run
# test's reasons follow, indented by 4 spaces, before the next test.
awk '
function flush() { if (t != "") print "GUEST-BLK result: " t " " st (why != "" ? ":" why : ""); t = "" }
/^nvme\/[0-9]+ .*\[(passed|failed|not run)\]$/ {
	flush(); t = $1; st = $0; sub(/.*\[/, "", st); sub(/\]$/, "", st); why = ""; next }
/^    / && t != "" && st == "not run" && $0 !~ /\t|\.\.\./ { r = $0; sub(/^ +/, "", r); why = why " " r; next }
END { flush() }' /tmp/blk/check.out | tee /tmp/blk/results.txt
p=$(grep -c ' passed$' /tmp/blk/results.txt) f=$(grep -c ' failed$' /tmp/blk/results.txt)
s=$(grep -c ' not run' /tmp/blk/results.txt)
say "summary: $p passed, $f failed, $s not run"
# The failures' details: their output against the expected one, their dmesg.
for bad in /tmp/blk/results/*/nvme/*.out.bad /tmp/blk/results/*/nvme/*.dmesg; do
	[[ -s $bad ]] || continue
	say "--- $bad"
	head -40 "$bad" | sed 's/^/GUEST-BLK   /'
done
[[ -s /tmp/blk/hook.log ]] && sed 's/^/GUEST-BLK hook: /' /tmp/blk/hook.log
exit 0
