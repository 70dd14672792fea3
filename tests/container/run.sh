#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh SRC_DIR BUILD_DIR INI_PROBE BLOXCTL - the container image
# (docker/Dockerfile) under rootful podman, as a user would run it, and the
# systemd unit (systemd/) running bloxd in a container booted with systemd.
#
#  1. A Debian 12 base image made with debootstrap from the host's apt
#     mirror (no registry is reachable here), kept as a podman image
#     (localhost/blox-test-base:bookworm) and as
#     BUILD_DIR/container/base-bookworm.tar,
#     so that only the first run pays for it.
#  2. podman build --format docker of docker/Dockerfile against it.
#  3. podman run with a fresh named volume on /var/lib/bloxd, a host folder
#     on /run/bloxd, --network host and listeners on free 127.0.0.1 ports
#     (-l/-D after the image name); waits until `podman healthcheck run`
#     (the image's HEALTHCHECK: bloxctl status) passes, and runs the host's
#     bloxctl on the mounted admin socket.
#  4. The project's initiator (ini_probe) on the default subsystem: `check`
#     fails on the fresh volume, `fill` writes and reads back 4 MiB.
#  5. podman stop (SIGTERM, exit code 0 wanted) and podman start with the
#     same command line; healthy again; `check` reads the 4 MiB back.
#  6. The unit as `cmake --install` writes it (BUILD_DIR), with the sysusers
#     file, in an image of the one above plus systemd, booted with systemd
#     (--systemd=always, --network host): `systemctl start bloxd` (Type=notify
#     waits for READY=1; Type=simple in a drop-in while bloxd has no sd_notify
#     support, said in the output), the user from sysusers.d, the socket's
#     group and modes, bloxctl as a member of group bloxd and refused to
#     another user, fill / `systemctl restart` / check through the sandbox,
#     and `systemctl stop` ending with exit status 0.
#  7. Removes the containers, the images and the volume it made (the base
#     image and its tarball stay as the cache).
# Exit 0 pass, 1 fail, 77 (ctest SKIP) when not root or podman cannot run
# containers at all on this machine. Missing packages (podman, runc,
# debootstrap) are installed with apt-get when root.
#
# Environment: BLOX_CONTAINER_KEEP=1 keeps the image, the volume and the
# work folder; BLOX_CONTAINER_MIRROR overrides the Debian mirror.
set -uo pipefail

USAGE="usage: run.sh SRC_DIR BUILD_DIR INI_PROBE BLOXCTL"
SRC=${1:?$USAGE}
BUILD=${2:?$USAGE}
PROBE=${3:?$USAGE}
BLOXCTL=${4:?$USAGE}
CACHE=$BUILD/container
BASE=localhost/blox-test-base:bookworm
TAG=blox-ctest-$$
IMAGE=localhost/$TAG:latest
NAME=$TAG
VOLUME=$TAG-data
SD_IMAGE=localhost/$TAG-systemd:latest
SD_NAME=$TAG-systemd
NQN=nqn.2026-12.io.blox:default # bloxd's default subsystem (no --config)
T0=$SECONDS

say() { printf '[container %3ds] %s\n' $((SECONDS - T0)) "$*"; }
skip() {
	say "SKIP: $*"
	exit 77
}
die() {
	say "FAIL: $*"
	exit 1
}

[[ $EUID -eq 0 ]] || skip "needs root (rootful podman, debootstrap)"
missing=()
for p in podman runc debootstrap; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
	say "installing ${missing[*]}"
	{ DEBIAN_FRONTEND=noninteractive apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}"; } >/dev/null || skip "apt-get install ${missing[*]} failed"
fi
podman info >/dev/null 2>&1 || skip "podman cannot run here: $(podman info 2>&1 | tail -1)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/blox-container.XXXXXX") || die "mktemp failed"
cleanup() {
	if [[ ${BLOX_CONTAINER_KEEP:-0} == 1 ]]; then
		say "kept: container $NAME, image $IMAGE, volume $VOLUME, folder $WORK"
		return
	fi
	podman rm -f -v -t 2 "$SD_NAME" >/dev/null 2>&1
	podman rm -f "$NAME" >/dev/null 2>&1
	podman volume rm -f "$VOLUME" >/dev/null 2>&1
	podman rmi -f "$SD_IMAGE" "$IMAGE" >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. the base image ------------------------------------------------------
# The first URI of each Debian 12 suite in the host's apt sources (one-line
# and deb822 formats), as "URI SUITE" lines.
host_sources() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++;
			if ($2 ~ /^\[/) i++; print $i, $(i + 1) }'
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk 'tolower($1) == "uris:" { u = $2 } tolower($1) == "suites:" {
			for (i = 2; i <= NF; i++) print u, $i } /^$/ { u = "" }'
}
make_base() {
	local tar=$CACHE/base-bookworm.tar mirror root
	if [[ ! -s $tar ]]; then
		mirror=${BLOX_CONTAINER_MIRROR:-$(host_sources | awk '$2 == "bookworm" { print $1; exit }')}
		mirror=${mirror:-http://deb.debian.org/debian}
		root=$WORK/rootfs
		say "debootstrap bookworm from $mirror (once: cached in $tar)"
		debootstrap --variant=minbase bookworm "$root" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
			{ tail -20 "$WORK/debootstrap.log"; die "debootstrap failed"; }
		# The host's Debian suites (updates, security) and apt settings
		# (proxy, a snapshot mirror's Valid-Until), so that apt-get in the
		# Dockerfile reaches what the host reaches.
		host_sources | awk '$2 ~ /^bookworm(-updates|-security)?$/ && !seen[$2]++ {
			print "deb", $1, $2, "main" }' >"$root/etc/apt/sources.list"
		[[ -s $root/etc/apt/sources.list ]] ||
			echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
		cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/" 2>/dev/null
		rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
		if ! { mkdir -p "$CACHE" && tar -C "$root" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"; }; then
			die "cannot write $tar"
		fi
		rm -rf "$root"
	fi
	say "podman import $tar"
	podman import --change 'CMD ["/bin/bash"]' "$tar" "$BASE" >/dev/null ||
		die "podman import failed"
}
if podman image exists "$BASE"; then
	say "base image $BASE (cached)"
else
	make_base
fi

# --- 2. the image -----------------------------------------------------------
say "podman build docker/Dockerfile"
if ! podman build --layers=false --format docker --build-arg BASE="$BASE" -f "$SRC/docker/Dockerfile" \
	-t "$IMAGE" "$SRC" >"$WORK/build.log" 2>&1; then
	tail -40 "$WORK/build.log"
	die "podman build failed (log above)"
fi
say "image $IMAGE: $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

# --- 3. run -------------------------------------------------------------------
port_busy() { [[ -n $(ss -Hltn "sport = :$1" 2>/dev/null) ]]; }
free_port() {
	local p i
	for i in $(seq 200); do
		p=$((20000 + RANDOM % 30000))
		[[ $p != "${1:-}" ]] && ! port_busy "$p" && echo "$p" && return 0
	done
	return 1
}
NVM_PORT=$(free_port) || die "no free TCP port"
DISC_PORT=$(free_port "$NVM_PORT") || die "no free TCP port"
RUN=$WORK/run # the admin socket's folder, mounted on /run/bloxd
install -d -o 4420 -g 4420 -m 0750 "$RUN" || die "mkdir $RUN"
SOCK=$RUN/bloxd.sock
podman volume create "$VOLUME" >/dev/null || die "podman volume create failed"
# podman's default limits (nofile 1048576) may be above what this machine
# lets even root set (a sandbox without CAP_SYS_RESOURCE): ask for what
# bloxd needs, within the test's own hard limit.
NOFILE=$(ulimit -Hn)
[[ $NOFILE == unlimited || $NOFILE -gt 65536 ]] && NOFILE=65536
podman create --name "$NAME" --network host --stop-timeout 40 \
	--ulimit "nofile=$NOFILE:$NOFILE" --ulimit nproc=4096:4096 \
	-v "$VOLUME:/var/lib/bloxd" -v "$RUN:/run/bloxd" "$IMAGE" \
	-l "127.0.0.1:$NVM_PORT" -D "127.0.0.1:$DISC_PORT" >/dev/null || die "podman create failed"

logs() {
	say "---- podman logs $NAME ----"
	podman logs "$NAME" 2>&1 | tail -40
}
# start_healthy: podman start, then the HEALTHCHECK passes within 60 s.
start_healthy() {
	local i t=$SECONDS
	# Without systemd as PID 1 podman cannot arm the HEALTHCHECK's timer and
	# says so: that noise goes to a log, the check is run here instead.
	podman start "$NAME" >/dev/null 2>>"$WORK/podman.log" ||
		{ cat "$WORK/podman.log"; die "podman start failed"; }
	for ((i = 0; i < 120; i++)); do
		if podman healthcheck run "$NAME" >/dev/null 2>&1; then
			say "healthy after $((SECONDS - t)) s"
			return 0
		fi
		[[ $(podman inspect --format '{{.State.Running}}' "$NAME") == true ]] ||
			{ logs; die "bloxd exited: $(podman inspect --format '{{.State.ExitCode}}' "$NAME")"; }
		sleep 0.5
	done
	logs
	die "not healthy within 60 s"
}
probe() {
	"$PROBE" 127.0.0.1 "$NVM_PORT" "$NQN" "$1" >"$WORK/probe-$1.log" 2>&1
}

say "podman run -l 127.0.0.1:$NVM_PORT -D 127.0.0.1:$DISC_PORT"
start_healthy
"$BLOXCTL" -s "$SOCK" status >"$WORK/status" 2>&1 || { cat "$WORK/status"; die "bloxctl on the mounted socket failed"; }
say "host bloxctl -s $SOCK status: ok"
[[ $(stat -c '%u:%g %a' "$SOCK") == "4420:4420 660" ]] ||
	die "admin socket is $(stat -c '%u:%g %a' "$SOCK"), not bloxd's 4420:4420 660"

# --- 4. data in -------------------------------------------------------------
probe check && die "check passed on a fresh volume (the check cannot fail?)"
probe fill || { cat "$WORK/probe-fill.log"; logs; die "ini_probe fill failed"; }
say "ini_probe: $(grep '^fill' "$WORK/probe-fill.log")"

# --- 5. restart, data back ----------------------------------------------------
podman stop "$NAME" >/dev/null 2>>"$WORK/podman.log" ||
	{ cat "$WORK/podman.log"; die "podman stop failed"; }
rc=$(podman inspect --format '{{.State.ExitCode}}' "$NAME")
[[ $rc == 0 ]] || { logs; die "bloxd exited $rc on SIGTERM, not 0"; }
say "stopped, exit code 0; starting again"
start_healthy
probe check || { cat "$WORK/probe-check.log"; logs; die "data not read back after a restart"; }
say "ini_probe: $(grep '^check' "$WORK/probe-check.log") after the restart"
podman stop "$NAME" >/dev/null 2>>"$WORK/podman.log"

# --- 6. the systemd unit ------------------------------------------------------
DEST=$WORK/dest
DESTDIR=$DEST cmake --install "$BUILD" --prefix /usr/local --component systemd \
	>"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; die "cmake --install failed"; }
# What a host that installed blox has: the unit and sysusers file, no bloxd
# user yet (systemd-sysusers makes it at boot), no /run/bloxd. (The image's
# /var/lib/bloxd is a VOLUME: the StateDirectory= set-up gives it to the new
# user.)
cat >"$DEST/Containerfile" <<EOT
FROM $IMAGE
USER root
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \\
      --no-install-recommends systemd >/dev/null && rm -rf /var/lib/apt/lists/* \\
  && userdel bloxd && rm -rf /run/bloxd && useradd -m alice && useradd -m bob
COPY usr/ /usr/
ENTRYPOINT ["/lib/systemd/systemd"]
CMD []
EOT
if grep -qE "NOTIFY_SOCKET|sd_notify" "$SRC"/daemon/*.c "$SRC"/daemon/*/*.c "$SRC"/common/*.c 2>/dev/null; then
	NOTIFY=1
else
	NOTIFY=0
	say "bloxd has no sd_notify support yet: this run uses Type=simple (drop-in)"
	mkdir -p "$DEST/usr/lib/systemd/system/bloxd.service.d"
	printf '[Service]\nType=simple\n' >"$DEST/usr/lib/systemd/system/bloxd.service.d/simple.conf"
fi
say "podman build (image + systemd, the installed unit)"
podman build --layers=false -t "$SD_IMAGE" "$DEST" >"$WORK/build-systemd.log" 2>&1 ||
	{ tail -20 "$WORK/build-systemd.log"; die "podman build of the systemd image failed"; }
podman run -d --name "$SD_NAME" --systemd=always --network host \
	--ulimit "nofile=$NOFILE:$NOFILE" --ulimit nproc=4096:4096 "$SD_IMAGE" \
	>/dev/null 2>>"$WORK/podman.log" || { cat "$WORK/podman.log"; die "podman run (systemd) failed"; }
sdx() { podman exec "$SD_NAME" "$@"; }
journal() {
	say "---- journalctl -u bloxd ----"
	sdx journalctl -u bloxd --no-pager 2>&1 | tail -30
}
# served: the admin API answers. With Type=notify, `systemctl start` returns
# after READY=1, when it must answer at once; with Type=simple, wait.
served() {
	local i n=1
	[[ $NOTIFY == 1 ]] || n=60
	for ((i = 0; i < n; i++)); do
		sdx bloxctl status >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	journal
	die "bloxd's admin API does not answer after systemctl $1"
}
for ((i = 0; i < 60; i++)); do
	st=$(sdx systemctl is-system-running 2>/dev/null)
	[[ $st == running || $st == degraded ]] && break
	sleep 0.5
done
say "systemd in the container: ${st:-not up}"
sdx sh -c "echo 'BLOXD_OPTS=\"-l 127.0.0.1:$NVM_PORT -D 127.0.0.1:$DISC_PORT\"' >/etc/default/bloxd"
sdx systemctl start bloxd || { journal; die "systemctl start bloxd failed"; }
served start
[[ $(sdx systemctl is-active bloxd) == active ]] || { journal; die "bloxd.service not active"; }
say "systemctl start bloxd: active (Type=$(sdx systemctl show -P Type bloxd)) $(
	[[ $NOTIFY == 1 ]] && sdx systemctl show -P StatusText bloxd)"
sdx id bloxd >/dev/null || die "no user bloxd: sysusers.d/bloxd.conf not applied"
want="bloxd:bloxd 660 bloxd:bloxd 750 bloxd:bloxd 700"
got=$(sdx stat -c '%U:%G %a' /run/bloxd/bloxd.sock /run/bloxd /var/lib/bloxd | tr '\n' ' ')
[[ ${got% } == "$want" ]] || die "socket, run and state directories: $got, not $want"
sdx usermod -aG bloxd alice
sdx su alice -s /bin/sh -c 'bloxctl status' >/dev/null || { journal; die "bloxctl as a member of group bloxd failed"; }
sdx su bob -s /bin/sh -c 'bloxctl status' >/dev/null 2>&1 && die "bloxctl as a user outside group bloxd was let in"
say "bloxctl: group bloxd member served, other user refused"
probe check && die "check passed on a fresh state directory"
probe fill || { cat "$WORK/probe-fill.log"; journal; die "ini_probe fill under systemd failed"; }
sdx systemctl restart bloxd || { journal; die "systemctl restart bloxd failed"; }
served restart
probe check || { cat "$WORK/probe-check.log"; journal; die "data not read back after systemctl restart"; }
say "ini_probe under systemd: fill, systemctl restart, check: ok"
sdx systemctl stop bloxd
res=$(sdx systemctl show -P Result bloxd)/$(sdx systemctl show -P ExecMainStatus bloxd)
[[ $res == success/0 ]] || { journal; die "systemctl stop: result/status $res, not success/0"; }
if sdx journalctl -u bloxd --no-pager | grep -E 'not permitted|SIGSYS|Bad system call'; then
	journal
	die "the sandbox refused bloxd something (journal above)"
fi
say "systemctl stop bloxd: exit status 0"
say "PASS in $((SECONDS - T0)) s"
