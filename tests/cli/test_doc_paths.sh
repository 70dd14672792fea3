#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every command in the docs runs from the repository root with relative
# paths: no doc (docs/, its results files, README.md) names the absolute
# path of a checkout, this one's or another machine's.
#   test_doc_paths.sh SOURCE_DIR
# Fails on
# - this checkout's own absolute path, anywhere;
# - paths under /work/, /home/, /root/ or /Users/ (where checkouts live);
# - cmake -S/-B/--build/--test-dir or cd with an absolute path that is not
#   a system directory (/etc, /run, /tmp, /usr, /var, ...).
set -u
src=$(cd "$1" && pwd -P)
cd "$src" || exit 2
fails=0
files=(README.md)
while IFS= read -r -d '' f; do files+=("$f"); done < <(find docs -type f -print0 | sort -z)

report() { # report WHAT: the offending lines on stdin, each counted
	local line
	while IFS= read -r line; do
		echo "FAIL ($1): $line"
		fails=$((fails + 1))
	done
}

report "this checkout's path" < <(grep -nF -- "$src/" "${files[@]}")
report "a home or work directory" < <(grep -nE -- '(^|[^A-Za-z0-9_.~-])/(work|home|root|Users)/' "${files[@]}")
report "a command with an absolute path" < <(
	grep -nE -- '(cmake[^|;&]* (-S|-B|--build|--test-dir) *|(^|[ ;(&`])cd +)/' "${files[@]}" |
		grep -vE -- '(-S|-B|--build|--test-dir|cd) +/(etc|run|tmp|usr|var|opt|srv|sys|proc|dev|mnt|media)(/|[ `]|$)')

echo "${#files[@]} files checked"
if [ "$fails" -ne 0 ]; then
	echo "$fails lines name an absolute path to a checkout: give paths relative to the repository root"
	exit 1
fi
