#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set-up for a fresh Debian 12 machine: installs what is missing, builds,
# then runs bloxd or the tests.
#
#   ./setup.sh run [bloxd options]   build (release) and start bloxd in the foreground
#   ./setup.sh test                  build with ASan/UBSan and run every test (ctest),
#                                    then the unit and loopback tests on the optimized build,
#                                    then the reactor tests under ThreadSanitizer,
#                                    then each libFuzzer target for 30 s (clang)
#   ./setup.sh deps | build          only install packages / only build
#   ./setup.sh build-deps            only the packages to build (docker/Dockerfile)
set -euo pipefail

cd "$(dirname "$0")"
top=$(pwd)

BUILD_PKGS=(build-essential cmake pkg-config libevent-dev libssl-dev
	libprotobuf-c-dev protobuf-c-compiler libcmocka-dev libisal-dev
	libnvme-dev libjson-c-dev libavahi-client-dev)
# The interop test's harness installs QEMU and the guest tools itself.
# systemd: systemd-analyze for the unit's test; podman, runc, debootstrap:
# the container image test (tests/container). python3-prometheus-client: the
# OpenMetrics parser integration_metrics_external checks the metrics with
# (promtool, Debian package prometheus, is ~96 MB: not here). dbus,
# avahi-daemon, avahi-utils: integration_mdns runs its own bus and
# avahi-daemon in a network namespace of its own (nothing is announced on
# the machine's network). gawk, udev, xfsprogs: blktests' nvme group in the
# initiator VM (interop_blktests, tests/blktests/run.sh copies them in).
TEST_PKGS=(iproute2 procps openssl systemd podman runc debootstrap python3-prometheus-client btrfs-progs
	dbus avahi-daemon avahi-utils gawk udev xfsprogs)
# The fuzz targets (tests/fuzz): clang with its libFuzzer, ASan and UBSan
# runtimes (libclang-rt-14-dev is only a recommendation of clang-14).
FUZZ_CC=clang-14
TEST_PKGS+=("$FUZZ_CC" libclang-rt-14-dev)

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Another apt (unattended-upgrades, a second set-up) may hold the dpkg or
# apt lists lock: wait up to this long for it rather than fail.
APT_LOCK_WAIT=600

# apt-get, non-interactive, waiting for dpkg's locks (install).
apt_get() {
	as_root env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get \
		-o DPkg::Lock::Timeout="$APT_LOCK_WAIT" "$@"
}

# apt-get update. The option above makes it wait for nothing (it covers
# dpkg's locks, not /var/lib/apt/lists/lock), so while another apt holds
# the lists lock, try again every 5 s, up to APT_LOCK_WAIT seconds.
apt_update() {
	local start=$SECONDS out said=
	while :; do
		if out=$(apt_get update -q 2>&1); then
			printf '%s\n' "$out"
			return 0
		fi
		if ! grep -q "Could not get lock" <<<"$out" ||
			((SECONDS - start >= APT_LOCK_WAIT)); then
			printf '%s\n' "$out" >&2
			return 1
		fi
		[ -n "$said" ] || echo "setup: another apt holds its lock; waiting (up to ${APT_LOCK_WAIT} s)"
		said=1
		sleep 5
	done
}

install_pkgs() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "setup: installing ${missing[*]}"
	apt_update
	apt_get install -y -q --no-install-recommends "${missing[@]}"
}

build() { # build DIR [cmake args...]
	local dir=$1
	shift
	cmake -S "$top" -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j"$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case "$cmd" in
deps)
	install_pkgs "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"
	;;
build-deps)
	install_pkgs "${BUILD_PKGS[@]}"
	;;
build)
	install_pkgs "${BUILD_PKGS[@]}"
	build "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
	;;
run)
	install_pkgs "${BUILD_PKGS[@]}"
	build "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
	# Without root, keep the flash of file-backed namespaces (and the admin
	# socket) in ./data.
	if [ "$(id -u)" -ne 0 ] && ! printf '%s\n' "$@" | grep -q -- '--data-dir'; then
		set -- --data-dir "$top/data" "$@"
	fi
	if [ "$(id -u)" -ne 0 ] && ! printf '%s\n' "$@" | grep -q -- '--admin-socket'; then
		mkdir -p "$top/data"
		set -- --admin-socket "$top/data/bloxd.sock" "$@"
	fi
	exec "$top/build/daemon/bloxd" "$@"
	;;
test)
	install_pkgs "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"
	# Every test under ASan/UBSan; then the unit and loopback tests again on
	# the optimized build that './setup.sh run' starts, so code that only
	# breaks under the optimizer is caught too. The container image test
	# builds its own Release image: once is enough. So are the tests
	# labelled once (layering, the bench scripts' smoke runs): what they
	# check does not depend on the build type.
	build "$top/build-test" -DCMAKE_BUILD_TYPE=Debug -DBLOX_SANITIZE=ON -DBLOX_WERROR=ON
	build "$top/build-rel" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOX_WERROR=ON -DBLOX_INTEROP=OFF \
		-DBLOX_CONTAINER_TEST=OFF
	# The fuzz targets, built by clang with libFuzzer (docs/fuzzing.md):
	# each fuzzes for 30 s (BLOX_FUZZ_SECONDS); a crash's reproducer stays in
	# build-fuzz/fuzz-crashes/.
	CC=$FUZZ_CC BUILD_TARGET=blox_fuzz build "$top/build-fuzz" -DCMAKE_BUILD_TYPE=Debug \
		-DBLOX_FUZZ=ON -DBLOX_WERROR=ON
	# The reactors' threads under ThreadSanitizer: only what the tests
	# labelled reactor need (blox_reactor_tests) is built, only they run,
	# and a race fails them (tests/tsan_env.cmake).
	BUILD_TARGET=blox_reactor_tests build "$top/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBLOX_TSAN=ON -DBLOX_WERROR=ON -DBLOX_INTEROP=OFF -DBLOX_CONTAINER_TEST=OFF
	(cd "$top/build-test" && ctest --output-on-failure --timeout 1800 "$@")
	(cd "$top/build-rel" && ctest --output-on-failure --timeout 1800 -LE once "$@")
	(cd "$top/build-tsan" && ctest --output-on-failure --timeout 1800 -L reactor "$@")
	cd "$top/build-fuzz"
	ctest --output-on-failure --timeout 1800 "$@"
	;;
*)
	echo "usage: $0 run [bloxd options] | test [ctest options] | deps | build-deps | build" >&2
	exit 2
	;;
esac
