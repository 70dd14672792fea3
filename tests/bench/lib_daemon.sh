# SPDX-License-Identifier: BSD-3-Clause
# lib_daemon.sh - what the real-daemon benches share (sourced, not run):
# bloxd on CPU 0 and spdk_nvme_perf (../shared/anchors/spdk, busy polling)
# on CPU 1 over NVMe/TCP on 127.0.0.1, as ../shared/anchors/spdk/compare.sh
# places them. The bench sets BD_NAME (its name in messages) and sources this:
#   bd_opt ARGS                one of the options all benches take (bd_usage): sets
#                              BUILD DOBUILD OUT PORT INSTALL KEEP, BD_SHIFT = the
#                              words it took; --help: the bench's usage(); else dies
#   bd_tools INSTALL           2 CPUs, spdk_nvme_perf and its runtime packages
#                              (apt-get install when INSTALL is 1), python3, taskset, ss;
#                              exits BD_MISSING_RC (default 2) when one is missing
#   bd_build BUILD DOBUILD     bloxd and bloxctl built (incrementally) in BUILD:
#                              sets BLOXD, BLOXCTL, BTYPE
#   bd_nice                    --nice: the session's autogroup at NICE too
#   bd_port                    PORT: a free one when empty; refuses one in use
#   bd_workdir PREFIX          WORK (mktemp), DATA, SOCK, LOGS; the clean-up traps:
#                              every spdk_nvme_perf and bloxd started here is
#                              stopped by its PID, WORK removed (LOGS copied to
#                              KEEP first when KEEP is set)
#   bd_machine                 the report's lines on the machine, the tree, the binaries
#   bd_start_bloxd NQN NS_JSON bloxd with one subsystem (NS_JSON: its "namespaces"
#                              array) on CPU 0; waits until it serves: BPID
#   perf_start LOG NSIDS ARGS  spdk_nvme_perf on CPU 1 against the namespaces NSIDS
#                              (comma-separated: one client for all), in the background
#   perf_wait_all              waits for every client started; 1 if any failed
#   ctl ARGS                   bloxctl on the bench's admin socket
#   sched PID                  "ns on a CPU, ns waiting for one" of PID's threads, and now
#   bd_finish REPORT RC WHAT   the report (made by a python whose exit code is RC:
#                              0 claim held, 1 it did not) copied to OUT and shown;
#                              exits 0, 1 (WHAT said) or 2
#   fail MESSAGE [LOG], die MESSAGE: exit 2 (after the clean-up)
# lib_daemon.py beside it parses spdk_nvme_perf's logs for the reports.

BD_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BD_LIB/../.." && pwd)
SPDK=$(readlink -f "$REPO/../shared/anchors/spdk" 2>/dev/null || echo "$REPO/../shared/anchors/spdk")
NVME_PERF=$SPDK/bin/spdk_nvme_perf
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}
export PYTHONPATH=$BD_LIB${PYTHONPATH:+:$PYTHONPATH}

# Debian 12 packages spdk_nvme_perf needs at run time (as compare.sh installs).
RUNTIME_PKGS="librte-eal23 librte-kvargs23 librte-telemetry23 librte-ring23 librte-rcu23
	librte-mempool23 librte-mempool-ring23 librte-mbuf23 librte-net23 librte-meter23
	librte-ethdev23 librte-pci23 librte-bus-pci23 librte-timer23 librte-power23
	libaio1 libnuma1 libfdt1 libbsd0 libmd0 libssl3 libkeyutils1 libuuid1
	python3 iproute2 util-linux"
# spdk_nvme_perf sends an empty host NQN unless the trid has one; bloxd refuses that.
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:4d87416b-b634-42dd-b63e-48aec659fb9f
TGT_CPU=0
CLI_CPU=1
NICE=0

BPID=
PERF_PIDS=()
WORK=
KEEP=${KEEP:-}
T0=$(date +%s)

BUILD=$REPO/build-bench
DOBUILD=1
PORT=
INSTALL=1

bd_usage() { # DEFAULT_OUT
	cat <<EOF
  --build DIR      build directory of bloxd and bloxctl (default $REPO/build-bench;
                   configured RelWithDebInfo when new); they are built there first
                   (incrementally) so that they are the tree's
  --no-build       use the binaries in --build as they are
  --out FILE       report (default $1)
  --port PORT      NVMe/TCP port on 127.0.0.1 (default: a free one)
  --no-install     do not apt-get install spdk_nvme_perf's missing runtime packages
  --keep-logs DIR  copy the logs and JSON snapshots to DIR
  --nice N         run bloxd and spdk_nvme_perf at this nice value (default 0; -20..19:
                   below 0 they go ahead of the machine's other work on their CPUs). With
                   the kernel's autogroups a nice value counts only inside its session: the
                   script then sets its session's autogroup to N too; start it with setsid
                   so that the session holds the bench alone
EOF
}

bd_opt() {
	BD_SHIFT=2
	case $1 in
	--build | --out | --port | --keep-logs | --nice) [ $# -ge 2 ] || die "$1 needs a value" ;;
	esac
	case $1 in
	--build) BUILD=$2 ;;
	--out) OUT=$2 ;;
	--port)
		{ [[ $2 =~ ^[1-9][0-9]*$ ]] && [ "$2" -lt 65536 ]; } || die "--port must be 1..65535"
		PORT=$2 ;;
	--keep-logs) KEEP=$2 ;;
	--nice)
		{ [[ $2 =~ ^-?[0-9]+$ ]] && [ "$2" -ge -20 ] && [ "$2" -le 19 ]; } || die "--nice must be -20..19"
		NICE=$2 ;;
	--no-build) DOBUILD=0; BD_SHIFT=1 ;;
	--no-install) INSTALL=0; BD_SHIFT=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument '$1'" ;;
	esac
}

die() {
	echo "$BD_NAME: $*" >&2
	exit 2
}

fail() { # fail MESSAGE [LOG]: print, show the log's tail, exit 2 (the clean-up runs)
	echo "$BD_NAME: $1" >&2
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -n 8 "$2" | sed 's/^/    /' >&2
	exit 2
}

elapsed() { echo $(($(date +%s) - T0)); }

bd_tools() {
	local install=$1 c missing notfound sudo=
	[ "$(nproc --all 2>/dev/null || echo 1)" -ge 2 ] || die "needs 2 CPUs (bloxd on CPU 0, clients on CPU 1)"
	[ -x "$NVME_PERF" ] || missing "spdk_nvme_perf not found at $NVME_PERF (../shared/anchors/spdk)"
	for c in python3 taskset ss; do
		command -v $c >/dev/null || { [ "$install" = 1 ] || missing "command '$c' not found"; }
	done
	missing=$(bd_missing_pkgs | tr '\n' ' ')
	missing=${missing% }
	if [ -n "$missing" ]; then
		[ "$install" = 1 ] || missing "missing runtime packages (--no-install): $missing"
		if [ "$(id -u)" != 0 ]; then
			command -v sudo >/dev/null || die "packages missing and not root: apt-get install $missing"
			sudo=sudo
		fi
		echo "$BD_NAME: installing $missing"
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >/dev/null ||
			{ $sudo apt-get update -q >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive \
				apt-get install -y --no-install-recommends $missing >/dev/null; } ||
			die "could not install: $missing"
	fi
	notfound=$(ldd "$NVME_PERF" 2>&1 | awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')
	[ -z "$notfound" ] || missing "libraries of spdk_nvme_perf not found: $notfound"
}

missing() {
	echo "$BD_NAME: $*" >&2
	exit "${BD_MISSING_RC:-2}"
}

bd_missing_pkgs() {
	command -v dpkg-query >/dev/null || return 0
	local p
	for p in $RUNTIME_PKGS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' || echo "$p"
	done
}

bd_build() {
	local build=$1 dobuild=$2
	BLOXD=$build/daemon/bloxd
	BLOXCTL=$build/cli/bloxctl
	BD_DOBUILD=$dobuild
	if [ "$dobuild" = 1 ]; then
		echo "$BD_NAME: building bloxd and bloxctl in $build"
		if [ ! -f "$build/CMakeCache.txt" ]; then
			cmake -S "$REPO" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOX_INTEROP=OFF >/dev/null ||
				die "cmake configure failed in $build"
		fi
		cmake --build "$build" -j2 --target bloxd bloxctl >"$build/$BD_NAME-build.log" 2>&1 ||
			die "build failed (see $build/$BD_NAME-build.log)"
	fi
	[ -x "$BLOXD" ] && [ -x "$BLOXCTL" ] || die "no bloxd or bloxctl in $build"
	BTYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
	[ "$BTYPE" = RelWithDebInfo ] ||
		echo "$BD_NAME: warning: $build is a '$BTYPE' build, not RelWithDebInfo" >&2
}

# --nice: the bench's session (its autogroup, when the kernel groups by session) at NICE too.
bd_nice() {
	[ "$NICE" != 0 ] || return 0
	if [ -w /proc/self/autogroup ] && [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
		echo "$NICE" >"/proc/$$/autogroup" 2>/dev/null ||
			echo "$BD_NAME: warning: could not set the autogroup's nice to $NICE" >&2
	fi
	return 0
}

bd_port() {
	if [ -z "$PORT" ]; then
		PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
			die "no free port"
	fi
	! ss -ltnH "sport = :$PORT" 2>/dev/null | grep -q . || die "port $PORT is in use"
}

# stop_pid PID [SECONDS]: SIGTERM, then SIGKILL after SECONDS (10); reap it.
stop_pid() {
	local pid=$1 t=${2:-10} i
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for ((i = 0; i < t * 10; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "$BD_NAME: pid $pid ignored SIGTERM for $t s: SIGKILL" >&2
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	wait "$pid" 2>/dev/null
	return 0
}

# DPDK leaves a runtime directory named after each spdk_nvme_perf's pid.
drop_dpdk_dir() {
	rm -rf "/var/run/dpdk/spdk_pid$1" 2>/dev/null
	[ -n "${XDG_RUNTIME_DIR:-}" ] && rm -rf "$XDG_RUNTIME_DIR/dpdk/spdk_pid$1" 2>/dev/null
	return 0
}

bd_cleanup() {
	local rc=$? p
	trap - EXIT INT TERM HUP
	for p in "${PERF_PIDS[@]}"; do
		stop_pid "$p" 5
		drop_dpdk_dir "$p"
	done
	if [ -n "$BPID" ]; then
		stop_pid "$BPID" 60
		drop_dpdk_dir "$BPID" # a bench's nvmf_tgt, when BPID is one
	fi
	if [ -n "$KEEP" ] && [ -n "$WORK" ]; then
		mkdir -p "$KEEP" && cp -r "$LOGS/." "$KEEP/" && echo "$BD_NAME: logs copied to $KEEP" >&2
	fi
	[ -z "$WORK" ] || rm -rf "$WORK"
	exit $rc
}

bd_workdir() {
	WORK=$(mktemp -d "/tmp/$1.XXXXXX") || die "mktemp failed"
	DATA=$WORK/data
	SOCK=$WORK/bloxd.sock
	LOGS=$WORK/logs
	mkdir -p "$DATA" "$LOGS"
	trap bd_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}

ctl() { "$BLOXCTL" -s "$SOCK" --timeout 60 "$@"; }

# The machine, the tree and the binaries, as "# " lines.
bd_machine() {
	echo "# date $(date -Is)  host $(hostname)  kernel $(uname -r)  Debian $(cat /etc/debian_version 2>/dev/null)"
	echo "# cpu $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc --all) CPUs;" \
		"$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average at start" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# tree $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)$([ "$BD_DOBUILD" = 1 ] &&
		echo ", built just before the run" || echo ", binaries of $(date -r "$BLOXD" -Is) (--no-build)")" \
		"($(git -C "$REPO" status --porcelain -uno -- daemon ftl nand common cli proto qos 2>/dev/null | wc -l) files" \
		"of daemon/ ftl/ nand/ common/ cli/ proto/ qos/ modified in the working tree)"
	echo "# bloxd $BLOXD ($("$BLOXD" --version 2>&1 | head -1), CMAKE_BUILD_TYPE $BTYPE)"
	echo "# client $(head -1 "$SPDK/BUILD-INFO.txt" 2>/dev/null | cut -c1-60) spdk_nvme_perf --no-huge"
	echo "# bloxd on CPU $TGT_CPU, spdk_nvme_perf on CPU $CLI_CPU (nice $NICE, $(cat /proc/$$/autogroup 2>/dev/null ||
		echo 'no autogroup')); NVMe/TCP 127.0.0.1:$PORT"
}

# A warning when the machine is busy (the figures will show it).
bd_warn_load() {
	local l
	l=$(cut -d' ' -f1 /proc/loadavg)
	if awk -v l="$l" 'BEGIN { exit !(l > 1.0) }'; then
		echo "$BD_NAME: warning: the 1-minute load average is $l: other work shares the CPUs; $*" >&2
	fi
}

bd_start_bloxd() {
	local nqn=$1 ns=$2 i
	cat >"$WORK/bloxd.json" <<EOF
{
  "listeners": [ { "address": "127.0.0.1", "port": $PORT } ],
  "subsystems": [ { "nqn": "$nqn", "allow_any_host": true, "namespaces": $ns } ]
}
EOF
	BD_NQN=$nqn
	nice -n "$NICE" taskset -c $TGT_CPU "$BLOXD" -c "$WORK/bloxd.json" --data-dir "$DATA" --admin-socket "$SOCK" \
		--log-level 2 >"$LOGS/bloxd.log" 2>&1 &
	BPID=$!
	for i in $(seq 1 100); do
		kill -0 "$BPID" 2>/dev/null || fail "bloxd exited at start" "$LOGS/bloxd.log"
		[ -S "$SOCK" ] && ctl status >/dev/null 2>&1 && ss -ltnH "sport = :$PORT" 2>/dev/null | grep -q . && break
		[ "$i" = 100 ] && fail "bloxd not ready after 10 s" "$LOGS/bloxd.log"
		sleep 0.1
	done
	echo "[$(elapsed) s] bloxd pid $BPID ready on 127.0.0.1:$PORT"
}

trid() { echo "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:$PORT subnqn:$BD_NQN ns:$1 hostnqn:$HOSTNQN"; }

perf_start() {
	local log=$1 ns r=()
	for ns in ${2//,/ }; do
		r+=(-r "$(trid "$ns")")
	done
	shift 2
	nice -n "$NICE" taskset -c $CLI_CPU "$NVME_PERF" -c $((1 << CLI_CPU)) --no-huge -s 512 "${r[@]}" "$@" >"$log" 2>&1 &
	PERF_PIDS+=($!)
}

perf_wait_all() {
	local p bad=0
	for p in "${PERF_PIDS[@]}"; do
		wait "$p" || bad=1
		drop_dpdk_dir "$p"
	done
	PERF_PIDS=()
	return $bad
}

sched() {
	echo "$(cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ r += $1; w += $2 } END { printf "%.0f %.0f", r, w }')" \
		"$(date +%s%N)"
}

bd_finish() {
	local report=$1 rc=$2
	[ -s "$report" ] || fail "the report was not made (python rc $rc)"
	mkdir -p "$(dirname "$OUT")" && cp "$report" "$OUT" || fail "could not write $OUT"
	echo
	cat "$report"
	echo
	echo "written to $OUT ($(elapsed) s)"
	case $rc in
	0) exit 0 ;;
	1) echo "$BD_NAME: $3" >&2; exit 1 ;;
	*) fail "the report script failed (rc $rc)" ;;
	esac
}
