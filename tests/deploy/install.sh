#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# install.sh BUILD_DIR SRC_DIR - `cmake --install` into a DESTDIR, twice
# (--prefix /usr/local and /usr), and check that every file lands where
# docs/deploy.md says, executable where it must be, that the unit names the
# bloxd of that prefix, and that the install manifest lists them all.
set -uo pipefail

BUILD=${1:?usage: install.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: install.sh BUILD_DIR SRC_DIR}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/blox-deploy-install.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for prefix in /usr/local /usr; do
	dest=$WORK/dest$(tr / _ <<<"$prefix")
	if ! DESTDIR=$dest cmake --install "$BUILD" --prefix "$prefix" >"$WORK/log" 2>&1; then
		cat "$WORK/log"
		fail "cmake --install --prefix $prefix failed"
		continue
	fi
	root=$dest$prefix
	for f in bin/bloxd bin/bloxctl; do
		[[ -f $root/$f && -x $root/$f ]] || fail "$prefix/$f: missing or not executable"
	done
	"$root/bin/bloxd" --version >/dev/null 2>&1 || fail "$prefix/bin/bloxd --version does not run"
	for f in lib/systemd/system/bloxd.service lib/sysusers.d/bloxd.conf \
		share/doc/blox/README.md share/doc/blox/LICENSE share/doc/blox/deploy.md \
		share/doc/blox/examples/bloxd.default; do
		[[ -f $root/$f && -s $root/$f ]] || fail "$prefix/$f: missing or empty"
	done
	[[ ! -e $root/share/doc/blox/results ]] || fail "$prefix/share/doc/blox/results: the bench results are not installed"
	if [[ -f $SRC/cli/bloxctl.bash ]]; then
		cmp -s "$SRC/cli/bloxctl.bash" "$root/share/bash-completion/completions/bloxctl" ||
			fail "$prefix/share/bash-completion/completions/bloxctl: missing or not cli/bloxctl.bash"
	fi
	unit=$root/lib/systemd/system/bloxd.service
	grep -q "^ExecStart=$prefix/bin/bloxd " "$unit" 2>/dev/null ||
		fail "$unit: ExecStart is not $prefix/bin/bloxd: $(grep ExecStart= "$unit")"
	! grep -n '@[A-Z_]*@' "$unit" || fail "$unit: placeholders left unfilled"
	# What `xargs rm < install_manifest.txt` would remove: every file above.
	while read -r f; do
		[[ -e $dest$f ]] || fail "install_manifest.txt lists $f, not installed"
	done <"$BUILD/install_manifest.txt"
	grep -qx "$prefix/lib/systemd/system/bloxd.service" "$BUILD/install_manifest.txt" ||
		fail "install_manifest.txt does not list the unit"
	echo "install --prefix $prefix: $(find "$dest" -type f | wc -l) files"
done
if [[ $fails -gt 0 ]]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "install: all files in place"
