#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The user docs cannot drift from the binaries: every long option that
# `bloxd --help` and `bloxctl --help` print is in docs/bloxd.md and
# docs/bloxctl.md, and every bloxctl command ("OBJECT VERB") is in
# docs/bloxctl.md.
#   test_docs.sh BLOXD BLOXCTL DOCS_DIR
set -u
bloxd=$1
bloxctl=$2
docs=$3
fails=0

# in_doc FILE WORD: WORD in FILE, not as the start of a longer option.
in_doc() {
	grep -qE -- "$2([^a-z0-9-]|\$)" "$1"
}

opts() {
	"$@" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# check_opts BINARY DOC: every long option of BINARY --help is in DOC.
check_opts() {
	local o n=0
	for o in $(opts "$1"); do
		n=$((n + 1))
		in_doc "$2" "$o" || { echo "FAIL: $(basename "$1") $o not in $2"; fails=$((fails + 1)); }
	done
	echo "$(basename "$1"): $n options checked"
}
check_opts "$bloxd" "$docs/bloxd.md"
check_opts "$bloxctl" "$docs/bloxctl.md"
n=0
while read -r obj verb; do
	n=$((n + 1))
	grep -qF -- "\`$obj${verb:+ $verb}" "$docs/bloxctl.md" ||
		{ echo "FAIL: bloxctl $obj $verb not in docs/bloxctl.md"; fails=$((fails + 1)); }
done < <("$bloxctl" --help |
	awk '/^SIZE:/ { exit }
	     /^  [a-z]/ { s = substr($0, 3 + length($1), 2); print $1, (s ~ /^ [a-z]/ ? $2 : "") }' |
	sort -u)
echo "bloxctl: $n commands checked"
# The flags other parts of bloxd document in --help, by the names the docs use.
for o in --print-config --syslog --shutdown-timeout --metrics; do
	in_doc "$docs/bloxd.md" "$o" || { echo "FAIL: $o not in docs/bloxd.md"; fails=$((fails + 1)); }
done
if ((fails)); then
	echo "$fails failure(s)"
	exit 1
fi
echo "the docs name every option and command"
