#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_faults.sh BLOXD BLOXCTL [6.1|6.12] - faults on demand seen by a Linux
# host: starts BLOXD with one subsystem (a 128 MiB nand namespace) on a free
# port from 4421 in a temporary data directory, runs guest_faults.sh in the
# initiator VM (kernel 6.1 or 6.12) and does what it asks on its console
# ("GUEST-FL ask: read-unc LBA NLB", "clear", "host-drop") with BLOXCTL fault
# inject / clear. Needs root and ../shared/initiator-vm (exit 77 without).
# Exit 0 when the guest's checks passed, every bloxctl request succeeded and
# bloxd stopped cleanly.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLOXD=${1:?usage: run_faults.sh BLOXD BLOXCTL [6.1|6.12]}
BLOXCTL=${2:?usage: run_faults.sh BLOXD BLOXCTL [6.1|6.12]}
SERIES=${3:-6.1}
NQN=nqn.2026-12.io.blox:faults
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5f0c1c64-8a3b-4d2e-9b57-1f6a2c3d4e5f
VM=${BLOX_INITIATOR_VM:-$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null)/../shared/initiator-vm}
[[ -d $VM ]] && VM=$VM/run-in-vm.sh
say() { printf '[interop_faults_%s] %s\n' "${SERIES//./_}" "$*"; }
if [[ $(id -u) != 0 || ! -x $VM ]]; then
	say "SKIP: needs root and $VM"
	exit 77
fi
port=${BLOX_INTEROP_PORT_BASE:-4421}
while ss -ltn "sport = :$port" | grep -q LISTEN; do port=$((port + 1)); done
work=$(mktemp -d /tmp/blox-interop-faults-XXXXXX)
sock=$work/bloxd.sock
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true, "namespaces": [ { "nsid": 1,
    "backend": "nand", "size": "128M",
    "nand": { "channels": 2, "dies_per_channel": 2, "pages_per_block": 96 } } ] } ] }
JSON
mkdir -p "$work/data"
"$BLOXD" --config "$work/bloxd.json" --data-dir "$work/data" --admin-socket "$sock" \
	--log-level 2 --reactors 2 >"$work/bloxd.log" 2>&1 &
pid=$!
vm= watch=
on_signal() {
	touch "$work/stop"
	[[ -z $vm ]] || kill -TERM "$vm" 2>/dev/null
	[[ -z $watch ]] || wait "$watch" 2>/dev/null
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	say "interrupted (kept $work)"
	exit 130
}
trap on_signal INT TERM
for _ in $(seq 50); do
	ss -ltn "sport = :$port" | grep -q LISTEN && break
	sleep 0.2
done
log=$work/console.log
: >"$log"
# What the guest asks for, done once each, in order.
(
	seen=0
	while [[ ! -e $work/stop ]]; do
		mapfile -t asks < <(tr -d '\r' <"$log" | grep -a -o 'GUEST-FL ask: .*')
		for ((i = seen; i < ${#asks[@]}; i++)); do
			read -r _ _ what a b <<<"${asks[i]}"
			case $what in
			read-unc) cmd=(fault inject read-unc "$NQN" 1 --lba "$a" --nlb "$b") ;;
			clear) cmd=(fault clear --all) ;;
			host-drop) cmd=(fault inject host-drop "$NQN" --host "$HOSTNQN") ;;
			*) cmd=(unknown-request "$what") ;;
			esac
			if "$BLOXCTL" -s "$sock" "${cmd[@]}" >"$work/req.out" 2>&1; then
				echo "${cmd[*]}: $(tr -s ' \n' ' ' <"$work/req.out")" >>"$work/done"
			else
				echo "bloxctl ${cmd[*]}: $(cat "$work/req.out")" >>"$work/host.log"
			fi
		done
		seen=${#asks[@]}
		sleep 0.1
	done
) &
watch=$!
rc=0
INITIATOR_VM_KERNEL=$SERIES INITIATOR_VM_LOG=$log \
	INITIATOR_VM_ENV="PORT=$port NQN=$NQN HOSTNQN=$HOSTNQN" \
	INITIATOR_VM_LOGLEVEL=${INITIATOR_VM_LOGLEVEL:-4} INITIATOR_VM_TIMEOUT=${INITIATOR_VM_TIMEOUT:-400} \
	"$VM" "$HERE/guest_faults.sh" >/dev/null &
vm=$!
wait "$vm" || rc=1
vm=
tr -d '\r' <"$log" | grep -a 'GUEST-FL\|^[a-z_]*[[:space:]]*: ' | grep -av 'ask:' |
	sed "s/^/[interop_faults_${SERIES//./_}] guest: /"
touch "$work/stop"
wait "$watch"
[[ -f $work/done ]] && sed "s/^/[interop_faults_${SERIES//./_}] host: /" "$work/done"
if [[ -f $work/host.log ]]; then
	say "FAIL: a bloxctl request failed"
	cat "$work/host.log"
	rc=1
fi
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
