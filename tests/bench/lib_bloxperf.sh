# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# lib_bloxperf.sh - what the bloxperf benches (poll_cpu.sh, reactors.sh)
# share (sourced, not run). lib_daemon.sh is the spdk_nvme_perf side's.
# The bench sets BP_NAME (its name in messages) and sources this:
#   bp_workdir               WORK (mktemp /tmp/BP_NAME.XXXXXX) and the clean-up
#                            traps: the bloxd started here stopped by its PID,
#                            WORK removed
#   bp_free_port             prints a free TCP port on 127.0.0.1
#   bp_ram_config FILE PORT NQN
#                            a bloxd configuration with one subsystem NQN (any
#                            host) and one 512 MiB RAM namespace, 4096-byte blocks
#   bp_start_bloxd PORT CMD...
#                            runs CMD (bloxd and its arguments, perhaps behind
#                            taskset) in the background, its output in
#                            WORK/bloxd.log, until PORT accepts: BPID; exits 2
#                            with the log when it does not start
#   bp_stop_bloxd            stops it (SIGTERM) and waits for it
#   bp_ticks PID             CPU ticks (utime + stime) of PID; HZ ticks a second
#   bp_fail MESSAGE          the message and bloxd's last lines; exit 2

# shellcheck disable=SC2034 # for the benches that source this
HZ=$(getconf CLK_TCK)
BPID=

bp_cleanup() {
	[ -n "$BPID" ] && kill "$BPID" 2>/dev/null && wait "$BPID" 2>/dev/null
	[ -n "${WORK:-}" ] && rm -rf "$WORK"
}

bp_workdir() {
	WORK=$(mktemp -d "/tmp/$BP_NAME.XXXXXX")
	trap bp_cleanup EXIT
	trap 'exit 130' INT TERM
}

bp_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

bp_ram_config() {
	cat >"$1" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $2 } ],
  "subsystems": [ { "nqn": "$3", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "ram", "size": "512M", "block_size": 4096 } ] } ] }
JSON
}

bp_start_bloxd() {
	local port=$1
	shift
	"$@" >"$WORK/bloxd.log" 2>&1 &
	BPID=$!
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		kill -0 "$BPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "$BP_NAME: bloxd did not start:" >&2
	cat "$WORK/bloxd.log" >&2
	exit 2
}

bp_stop_bloxd() {
	kill "$BPID"
	wait "$BPID" 2>/dev/null
	BPID=
}

bp_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

bp_fail() {
	echo "$BP_NAME: $1; bloxd's log ends:" >&2
	tail -5 "$WORK/bloxd.log" >&2
	exit 2
}
