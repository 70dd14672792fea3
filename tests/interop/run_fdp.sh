#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_fdp.sh - interop test of a Flexible Data Placement namespace with a
# real Linux NVMe/TCP initiator and nvme-cli's fdp plugin.
#
# Usage: run_fdp.sh BLOXD [KERNEL_SERIES]
#
# Starts bloxd on the host's 127.0.0.1 (a free port from 4421 up) with one
# subsystem, nqn.2026-12.io.blox:fdp-interop, holding a 64 MiB nand
# namespace of its own device with 4 reclaim unit handles and a 16 MiB one
# with 2 handles and a reclaim unit time limit of 2 s, in a temporary
# data directory, runs guest_fdp.sh in the initiator VM (kernel 6.1 or
# 6.12, nvme-cli 2.3) and stops bloxd with SIGTERM by its PID: it must exit
# 0. Exit status: 0 passed, 1 failed, 77 (ctest SKIP) when not root or the
# harness is missing. The harness: lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
BLOXD=${1:?usage: run_fdp.sh BLOXD [6.1|6.12]}
NQN=nqn.2026-12.io.blox:fdp-interop
interop_init fdp "${2:-6.1}"
port=$(free_port "$PORT_BASE")
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "nand", "size": "64M",
      "nand": { "channels": 2, "dies_per_channel": 2, "pages_per_block": 96 },
      "ftl": { "placement_handles": 4 } },
      { "nsid": 2, "backend": "nand", "size": "16M",
      "nand": { "channels": 2, "dies_per_channel": 2, "pages_per_block": 48 },
      "ftl": { "placement_handles": 2, "ru_time_limit_s": 2 } } ] } ] }
JSON
bloxd_up "$port"
rc=0
vm_run 400 "PORT=$port NQN=$NQN" "$HERE/guest_fdp.sh" || rc=1
bloxd_stop "$pid" "$work/bloxd.log" || rc=1
interop_end $rc
