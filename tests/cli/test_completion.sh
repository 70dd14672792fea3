#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cli/bloxctl.bash in a real bash: source it, set the line and the cursor
# as bash does for a Tab (COMP_LINE, COMP_POINT, COMP_WORDS, COMP_CWORD),
# call the completion function and compare what it offers.
#   test_completion.sh BLOXCTL COMPLETION_SCRIPT
set -u
bloxctl=$1
script=$2
fails=0

# shellcheck source=/dev/null
source "$script" || { echo "FAIL: $script does not source"; exit 1; }
complete -p bloxctl >/dev/null || { echo "FAIL: no completion registered for bloxctl"; exit 1; }
PATH=$(dirname "$bloxctl"):$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# complete LINE: COMPREPLY for the cursor at the end of LINE ("bloxctl ..."), sorted.
complete_line() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	read -r -a COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_bloxctl bloxctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect LINE WANT: exactly these (sorted, space-separated).
expect() {
	local got
	got=$(complete_line "$1")
	if [[ $got == "$2" ]]; then
		echo "ok   '$1' -> $got"
	else
		echo "FAIL '$1': got '$got', want '$2'"
		fails=$((fails + 1))
	fi
}

# has LINE WORD...: each WORD among the answers.
has() {
	local got w line=$1
	shift
	got=" $(complete_line "$line") "
	for w in "$@"; do
		if [[ $got != *" $w "* ]]; then
			echo "FAIL '$line': '$w' not in '$got'"
			fails=$((fails + 1))
			return
		fi
	done
	echo "ok   '$line' has $*"
}

# The commands, each object of --help.
objects=$("$bloxctl" --help | awk '/^SIZE:/ { exit } /^  [a-z]/ { print $1 }' | sort -u |
	tr '\n' ' ' | sed 's/ $//')
expect "bloxctl " "$objects"
expect "bloxctl s" "stats status subsys"
expect "bloxctl n" "ns"
expect "bloxctl ns " "create delete list resv-clear show"
expect "bloxctl --json ns sh" "show"
expect "bloxctl -s /run/x.sock subsys c" "create"
expect "bloxctl ns create nqn.2026-12.io.blox:db --ba" "--backend"
expect "bloxctl ns create nqn.2026-12.io.blox:db --size 1G --backend " "nand nand-timing null ram zns"
expect "bloxctl ns create nqn.2026-12.io.blox:db --backend n" "nand nand-timing null"
expect "bloxctl ns create nqn.2026-12.io.blox:db --isolation " "channel chip software"
expect "bloxctl ns create nqn.2026-12.io.blox:db --gc-policy " "cost-benefit greedy"
expect "bloxctl stats --w" "--watch"
expect "bloxctl stats --interval 100 --c" "--ca --cert --connect --count"
expect "bloxctl listener add 127.0.0.1:4420 --d" "--discovery"
expect "bloxctl host allow-any nqn.2026-12.io.blox:db " "off on"
expect "bloxctl device create d0 --store " "file ram"
expect "bloxctl migrate " "cancel pause resume share start status"
expect "bloxctl qos set nqn.2026-12.io.blox:db 1 --we" "--weight"
expect "bloxctl nosuch " ""
# Options anywhere: the global ones after the command too.
has "bloxctl ns list --" --json --socket --timeout
# A colon in the word: the answers are what follows it, as bash inserts them.
expect "bloxctl ns create nqn.2026-12.io.blox:db --isolation channel:" ""
# File names for -s, --cert.
touch "$tmp/bloxd.sock" "$tmp/me.pem"
expect "bloxctl -s $tmp/blox" "$tmp/bloxd.sock"
expect "bloxctl status --cert $tmp/m" "$tmp/me.pem"
# Every option in the usage of every command in --help (not in the text
# that says what it does: from column 43 of a line blank at 40..42, or a
# line of its own indented that far) is offered after that command.
usage_opts() {
	"$bloxctl" "$@" --help | awk 'NR > 1 && !/^ {42}/ { print (substr($0, 40, 3) == "   " ? substr($0, 1, 42) : $0) }' |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
while read -r obj verb; do
	for o in $(usage_opts "$obj" ${verb:+"$verb"}); do
		line="bloxctl $obj${verb:+ $verb} $o"
		got=" $(complete_line "$line") "
		if [[ $got != *" $o "* ]]; then
			echo "FAIL '$line': not offered"
			fails=$((fails + 1))
		fi
	done
done < <("$bloxctl" --help |
	awk '/^SIZE:/ { exit }
	     /^  [a-z]/ { s = substr($0, 3 + length($1), 2); print $1, (s ~ /^ [a-z]/ ? $2 : "") }' |
	sort -u)

if ((fails)); then
	echo "$fails failure(s)"
	exit 1
fi
echo "all completions as expected"
