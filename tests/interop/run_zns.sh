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
# (ctest SKIP) when not root or the harness is missing. The harness: lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
BLOXD=${1:?usage: run_zns.sh BLOXD [6.1|6.12]}
NQN=nqn.2026-12.io.blox:zns-interop
interop_init zns "${2:-6.1}"
port=$(free_port "$PORT_BASE")
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "zns", "size": "512M",
      "nand": { "channels": 4, "dies_per_channel": 2, "pages_per_block": 96 },
      "zns": { "max_open": 8 } } ] } ] }
JSON
bloxd_up "$port"
rc=0
# A zoned btrfs in the guest when the host has its mkfs (setup.sh installs btrfs-progs).
bins=$(command -v blkzone) btrfs=0 mods=
if command -v mkfs.btrfs >/dev/null; then
	bins="$bins $(command -v mkfs.btrfs)" btrfs=1 mods=btrfs
else
	say "no mkfs.btrfs on the host (apt install btrfs-progs): the zoned btrfs step is left out"
fi
INITIATOR_VM_EXTRA_BINS=$bins INITIATOR_VM_EXTRA_MODULES=$mods \
	vm_run 500 "PORT=$port NQN=$NQN EXPECT_MAX_OPEN=8 EXPECT_ZONES=16 BTRFS=$btrfs" \
	"$HERE/guest_zns.sh" || rc=1
bloxd_stop "$pid" "$work/bloxd.log" || rc=1
interop_end $rc
