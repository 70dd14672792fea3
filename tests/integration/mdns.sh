#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mdns.sh BLOXD BLOXCTL INI_PROBE - zero-touch discovery (NVMe TP8009).
#
# Everything runs in a network and mount namespace of its own (unshare):
# a veth pair (mdns0 192.0.2.1/24 <-> mdns1) is the only network, so no
# multicast leaves the machine; a private D-Bus system bus on a socket in
# the test's directory, and avahi-daemon (its runtime directory a tmpfs of
# this namespace) on mdns0. bloxd, started with DBUS_SYSTEM_BUS_ADDRESS
# pointing at that bus, must:
#   - announce one _nvme-disc._tcp service per listener not bound to
#     loopback, with the TXT records nqn=<discovery NQN> and p=tcp, which
#     avahi-browse resolves to the listener's address and port; a host
#     then reaches the subsystem at what it resolved (ini_probe: I/O);
#   - follow `bloxctl listener add/remove`;
#   - announce again after avahi-daemon restarts, and once it starts when
#     bloxd came first (the bus there or not yet);
#   - withdraw everything at SIGTERM, and announce nothing with --no-mdns.
# Exit 77 (skipped) without root or the tools, unless CI=true or
# BLOX_MDNS_REQUIRE=1.
set -uo pipefail

BLOXD=${1:?usage: mdns.sh BLOXD BLOXCTL INI_PROBE}
BLOXCTL=${2:?usage: mdns.sh BLOXD BLOXCTL INI_PROBE}
PROBE=${3:?usage: mdns.sh BLOXD BLOXCTL INI_PROBE}
TYPE=_nvme-disc._tcp
DISC_NQN=nqn.2014-08.org.nvmexpress.discovery
SUBNQN=nqn.2026-12.io.blox:default
ADDR=192.0.2.1

skip() {
	if [[ ${CI:-} == true || ${BLOX_MDNS_REQUIRE:-0} == 1 ]]; then
		echo "FAIL: $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

if [[ ${BLOX_MDNS_INNER:-} != 1 ]]; then
	[[ $(id -u) == 0 ]] || skip "needs root (network namespace, veth, avahi-daemon)"
	for t in unshare ip dbus-daemon avahi-daemon avahi-browse; do
		command -v "$t" >/dev/null || skip "$t not installed (setup.sh test installs it)"
	done
	BLOX_MDNS_INNER=1 exec unshare -n -m -- "$0" "$@"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/blox-mdns.XXXXXX") || exit 1
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/bus
BUS_PID= AVAHI_PID= BLOXD_PID=
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
cleanup() {
	for p in $BLOXD_PID $AVAHI_PID $BUS_PID; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# The only network: a veth pair, up, with a documentation address (RFC 5737).
ip link set lo up
ip link add mdns0 type veth peer name mdns1 || skip "no veth support"
ip link set mdns1 up
ip link set mdns0 up
ip addr add $ADDR/24 dev mdns0
mkdir -p /run/avahi-daemon
mount -t tmpfs tmpfs /run/avahi-daemon || skip "cannot mount a tmpfs on /run/avahi-daemon"

cat >"$WORK/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$WORK/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
cat >"$WORK/avahi.conf" <<EOF
[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=mdns0
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
EOF

bus_start() {
	dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile >"$WORK/bus.log" 2>&1 &
	BUS_PID=$!
	for _ in $(seq 50); do [[ -S $WORK/bus ]] && return 0; sleep 0.1; done
	fail "dbus-daemon did not come up: $(cat "$WORK/bus.log")"
	exit 1
}
avahi_start() {
	avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$WORK/avahi.conf" \
		>>"$WORK/avahi.log" 2>&1 &
	AVAHI_PID=$!
	for _ in $(seq 100); do
		grep -q "Server startup complete" "$WORK/avahi.log" && return 0
		sleep 0.1
	done
	fail "avahi-daemon did not come up: $(tail -5 "$WORK/avahi.log")"
	exit 1
}
avahi_stop() {
	kill "$AVAHI_PID" && wait "$AVAHI_PID" 2>/dev/null
	AVAHI_PID=
	: >"$WORK/avahi.log"
}
# bloxd with the listeners given ("-l A:P", "-D A:P" ...) and more options.
bloxd_start() {
	rm -rf "$WORK/data"
	mkdir -p "$WORK/data"
	"$BLOXD" --data-dir "$WORK/data" --admin-socket "$WORK/data/s.sock" "$@" \
		>"$WORK/bloxd.log" 2>&1 &
	BLOXD_PID=$!
	for _ in $(seq 100); do
		grep -q " ready: " "$WORK/bloxd.log" && return 0
		kill -0 "$BLOXD_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "bloxd did not start: $(cat "$WORK/bloxd.log")"
	exit 1
}
bloxd_stop() {
	kill -TERM "$BLOXD_PID"
	wait "$BLOXD_PID"
	local rc=$?
	BLOXD_PID=
	[[ $rc == 0 ]] || fail "bloxd exited $rc at SIGTERM: $(tail -5 "$WORK/bloxd.log")"
}
ctl() { "$BLOXCTL" -s "$WORK/data/s.sock" "$@"; }

# The resolved services: "ADDR PORT TXT" lines, sorted; empty when none.
browse() {
	avahi-browse -rpt "$TYPE" 2>/dev/null | awk -F';' '$1 == "=" { print $8, $9, $10 }' | sort -u
}
# Wait (up to 10 s) until `browse` lists exactly the ports given, in order.
expect_ports() {
	local want="$*" got=
	for _ in $(seq 40); do
		got=$(browse | awk '{ print $2 }' | sort -n | tr '\n' ' ' | sed 's/ $//')
		[[ $got == "$want" ]] && return 0
		sleep 0.25
	done
	fail "announced ports '$got', expected '$want' ($(browse | tr '\n' '|'))"
	return 1
}

P_DATA=16420 P_DISC=16409 P_LOOP=16421 P_NEW=16422

echo "== the bus and avahi-daemon up, then bloxd: two listeners announced, loopback not"
bus_start
avahi_start
bloxd_start -l $ADDR:$P_DATA -D $ADDR:$P_DISC -l 127.0.0.1:$P_LOOP
if expect_ports $P_DISC $P_DATA; then
	browse | sed 's/^/  resolved: /'
	line=$(browse | awk -v p=$P_DISC '$2 == p')
	[[ $line == "$ADDR $P_DISC "* ]] || fail "discovery service resolved to '$line', not $ADDR"
	[[ $line == *"\"nqn=$DISC_NQN\""* ]] || fail "TXT without nqn=$DISC_NQN: $line"
	[[ $line == *'"p=tcp"'* ]] || fail "TXT without p=tcp: $line"
	# A host uses what it resolved: I/O on the subsystem at that address and port.
	read -r raddr rport _ < <(browse | awk -v p=$P_DATA '$2 == p')
	if ! "$PROBE" "$raddr" "$rport" $SUBNQN >"$WORK/probe.log" 2>&1; then
		fail "ini_probe at the resolved $raddr:$rport: $(tail -3 "$WORK/probe.log")"
	fi
fi
grep -q "mDNS: 2 discovery services announced" "$WORK/bloxd.log" ||
	fail "bloxd did not log the announcement: $(grep mDNS "$WORK/bloxd.log")"
st=$(ctl status --json | tr -d ' \n')
[[ $st == *'"mdns_state":"announced","mdns_services":2'* ]] ||
	fail "bloxctl status does not show 2 services announced: $st"

echo "== bloxctl listener add / remove"
ctl listener add $ADDR:$P_NEW --discovery >/dev/null || fail "listener add"
expect_ports $P_DISC $P_DATA $P_NEW
ctl listener remove $ADDR:$P_DATA >/dev/null || fail "listener remove"
expect_ports $P_DISC $P_NEW

echo "== avahi-daemon restarted: announced again"
avahi_stop
avahi_start
expect_ports $P_DISC $P_NEW

echo "== SIGTERM withdraws everything"
bloxd_stop
expect_ports ""

echo "== bloxd first, avahi-daemon later: announced when it starts"
avahi_stop
bloxd_start -D $ADDR:$P_DISC
grep -q "avahi-daemon not running" "$WORK/bloxd.log" ||
	fail "bloxd did not say it waits for avahi-daemon: $(grep mDNS "$WORK/bloxd.log")"
ctl status | grep -q "^mDNS *waiting for avahi-daemon, 1 services" ||
	fail "bloxctl status does not show the wait: $(ctl status | grep mDNS)"
avahi_start
expect_ports $P_DISC
bloxd_stop

echo "== no system bus at bloxd's start: found once it is there (retried every 5 s)"
avahi_stop
kill "$BUS_PID" && wait "$BUS_PID" 2>/dev/null
BUS_PID=
rm -f "$WORK/bus"
bloxd_start -D $ADDR:$P_DISC
sleep 1
bus_start
avahi_start
expect_ports $P_DISC
bloxd_stop

echo "== --no-mdns: nothing announced"
bloxd_start -D $ADDR:$P_DISC --no-mdns
sleep 2
[[ -z $(browse) ]] || fail "announced with --no-mdns: $(browse)"
! grep -q "mDNS" "$WORK/bloxd.log" || fail "--no-mdns still talks of mDNS: $(grep mDNS "$WORK/bloxd.log")"
ctl status | grep -q "^mDNS *off, 0 services" || fail "bloxctl status with --no-mdns: $(ctl status | grep mDNS)"
bloxd_stop

if [[ $fails -gt 0 ]]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "mdns: all checks passed"
