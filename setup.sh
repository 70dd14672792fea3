#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set-up for a fresh Debian 12 machine: installs what is missing, builds,
# then runs bloxd or the tests.
#
#   ./setup.sh run [bloxd options]   build (release) and start bloxd in the foreground
#   ./setup.sh test                  build with ASan/UBSan and run every test (ctest),
#                                    then the unit and loopback tests on the optimized build
#   ./setup.sh deps | build          only install packages / only build
set -euo pipefail

cd "$(dirname "$0")"
top=$(pwd)

BUILD_PKGS=(build-essential cmake pkg-config libevent-dev libssl-dev
	libprotobuf-c-dev protobuf-c-compiler libcmocka-dev libisal-dev
	libnvme-dev libjson-c-dev)
# The interop test's harness installs QEMU and the guest tools itself.
# python3-prometheus-client: the OpenMetrics parser integration_metrics_external
# checks the metrics with (promtool, Debian package prometheus, is ~96 MB: not here).
TEST_PKGS=(iproute2 procps openssl python3-prometheus-client)

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_pkgs() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "setup: installing ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}"
}

build() { # build DIR [cmake args...]
	local dir=$1
	shift
	cmake -S "$top" -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j"$(nproc)"
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case "$cmd" in
deps)
	install_pkgs "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}"
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
	# breaks under the optimizer is caught too.
	build "$top/build-test" -DCMAKE_BUILD_TYPE=Debug -DBLOX_SANITIZE=ON -DBLOX_WERROR=ON
	build "$top/build-rel" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOX_WERROR=ON -DBLOX_INTEROP=OFF
	(cd "$top/build-test" && ctest --output-on-failure --timeout 1800 "$@")
	cd "$top/build-rel"
	ctest --output-on-failure --timeout 1800 "$@"
	;;
*)
	echo "usage: $0 run [bloxd options] | test [ctest options] | deps | build" >&2
	exit 2
	;;
esac
