#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_zns.sh - interop test of a zoned namespace (backend zns) with a real
# Linux NVMe/TCP initiator.
#
# Usage: run_zns.sh BLOXD [KERNEL_SERIES]
#
# Starts bloxd on the host's 127.0.0.1 (a free port from 4421 up) with one
# subsystem, nqn.2026-12.io.blox:zns-interop, holding a 512 MiB zns
# namespace of its own device (4 channels x 2 dies x 2 planes x 96 pages:
# 16 zones of 32 MiB, 22.5 MiB writable each; Max Open 8) in a temporary
# data directory, runs guest_zns.sh in the initiator VM (kernel 6.1 or
# 6.12; blkzone from the host is added to its image) and stops bloxd with
# SIGTERM by its PID: it must exit 0. Exit status: 0 passed, 1 failed, 77
# (ctest SKIP) when not root or the harness is missing.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLOXD=${1:?usage: run_zns.sh BLOXD [6.1|6.12]}
SERIES=${2:-6.1}
NQN=nqn.2026-12.io.blox:zns-interop
VM=${BLOX_INITIATOR_VM:-$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null)/../shared/initiator-vm}
[[ -d $VM ]] && VM=$VM/run-in-vm.sh
say() { printf '[interop_zns_%s] %s\n' "${SERIES//./_}" "$*"; }
if [[ $(id -u) != 0 || ! -x $VM ]]; then
	say "SKIP: needs root and $VM"
	exit 77
fi
port=4421
while ss -ltn "sport = :$port" | grep -q LISTEN; do port=$((port + 1)); done
work=$(mktemp -d /tmp/blox-interop-zns-XXXXXX)
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "zns", "size": "512M",
      "nand": { "channels": 4, "dies_per_channel": 2, "pages_per_block": 96 },
      "zns": { "max_open": 8 } } ] } ] }
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
# A zoned btrfs in the guest when the host has its mkfs (setup.sh installs btrfs-progs).
bins=$(command -v blkzone) btrfs=0 mods=
if command -v mkfs.btrfs >/dev/null; then
	bins="$bins $(command -v mkfs.btrfs)" btrfs=1 mods=btrfs
else
	say "no mkfs.btrfs on the host (apt install btrfs-progs): the zoned btrfs step is left out"
fi
INITIATOR_VM_KERNEL=$SERIES INITIATOR_VM_EXTRA_BINS=$bins INITIATOR_VM_EXTRA_MODULES=$mods \
	INITIATOR_VM_ENV="PORT=$port NQN=$NQN EXPECT_MAX_OPEN=8 EXPECT_ZONES=16 BTRFS=$btrfs" \
	INITIATOR_VM_LOGLEVEL=${INITIATOR_VM_LOGLEVEL:-4} INITIATOR_VM_TIMEOUT=${INITIATOR_VM_TIMEOUT:-500} \
	"$VM" "$HERE/guest_zns.sh" || rc=1
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
