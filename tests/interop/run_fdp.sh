#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_fdp.sh - interop test of a Flexible Data Placement namespace with a
# real Linux NVMe/TCP initiator and nvme-cli's fdp plugin.
#
# Usage: run_fdp.sh BLOXD [KERNEL_SERIES]
#
# Starts bloxd on the host's 127.0.0.1 (a free port from 4421 up) with one
# subsystem, nqn.2026-12.io.blox:fdp-interop, holding a 64 MiB nand
# namespace of its own device with 4 reclaim unit handles in a temporary
# data directory, runs guest_fdp.sh in the initiator VM (kernel 6.1 or
# 6.12, nvme-cli 2.3) and stops bloxd with SIGTERM by its PID: it must exit
# 0. Exit status: 0 passed, 1 failed, 77 (ctest SKIP) when not root or the
# harness is missing.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLOXD=${1:?usage: run_fdp.sh BLOXD [6.1|6.12]}
SERIES=${2:-6.1}
NQN=nqn.2026-12.io.blox:fdp-interop
VM=${BLOX_INITIATOR_VM:-$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null)/../shared/initiator-vm}
[[ -d $VM ]] && VM=$VM/run-in-vm.sh
say() { printf '[interop_fdp_%s] %s\n' "${SERIES//./_}" "$*"; }
if [[ $(id -u) != 0 || ! -x $VM ]]; then
	say "SKIP: needs root and $VM"
	exit 77
fi
port=${BLOX_INTEROP_PORT_BASE:-4421}
while ss -ltn "sport = :$port" | grep -q LISTEN; do port=$((port + 1)); done
work=$(mktemp -d /tmp/blox-interop-fdp-XXXXXX)
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "nand", "size": "64M",
      "nand": { "channels": 2, "dies_per_channel": 2, "pages_per_block": 96 },
      "ftl": { "placement_handles": 4 } } ] } ] }
JSON
mkdir -p "$work/data"
"$BLOXD" --config "$work/bloxd.json" --data-dir "$work/data" --admin-socket "$work/bloxd.sock" \
	--log-level 2 --reactors 2 >"$work/bloxd.log" 2>&1 &
pid=$!
for _ in $(seq 50); do
	ss -ltn "sport = :$port" | grep -q LISTEN && break
	sleep 0.2
done
rc=0
INITIATOR_VM_KERNEL=$SERIES INITIATOR_VM_ENV="PORT=$port NQN=$NQN" \
	INITIATOR_VM_LOGLEVEL=${INITIATOR_VM_LOGLEVEL:-4} INITIATOR_VM_TIMEOUT=${INITIATOR_VM_TIMEOUT:-400} \
	"$VM" "$HERE/guest_fdp.sh" || rc=1
kill -TERM "$pid"
wait "$pid"
st=$?
if [[ $st != 0 ]]; then
	say "FAIL: bloxd exited $st"
	tail -20 "$work/bloxd.log"
	rc=1
fi
[[ $rc == 0 ]] && rm -rf "$work" && say "PASS" || say "FAIL (kept $work)"
exit $rc
