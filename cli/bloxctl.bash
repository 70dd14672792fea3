# SPDX-License-Identifier: BSD-3-Clause
# bash completion for bloxctl: commands, verbs, options and the values
# the usage lists (--backend nand|ram|..., on|off). The candidates come
# from bloxctl itself ("bloxctl __complete INDEX WORD..."), out of the
# command tables its --help prints, so they follow the binary they run.
#
# Installed as /usr/share/bash-completion/completions/bloxctl; or, by
# hand: source cli/bloxctl.bash

_bloxctl() {
	local line=${COMP_LINE:0:COMP_POINT} words cur prefix cands
	local IFS=$' \t\n'

	# The words up to the cursor, split at blanks only: NQNs and ADDR:PORT
	# hold colons, which bash's own COMP_WORDS would split at.
	read -r -a words <<<"$line"
	if [[ -z $line || $line == *[[:blank:]] ]]; then
		words+=("")
	fi
	((${#words[@]} >= 2)) || return 0
	cur=${words[${#words[@]} - 1]}
	cands=$("${words[0]}" __complete "$((${#words[@]} - 2))" "${words[@]:1}" 2>/dev/null) ||
		return 0
	if [[ $cands == @files ]]; then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	else
		mapfile -t COMPREPLY < <(IFS=$'\n' compgen -W "$cands" -- "$cur")
	fi
	# bash replaces only what follows the last colon of the word (when ':'
	# is in COMP_WORDBREAKS): drop what comes before it from the answers.
	if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
		prefix=${cur%"${cur##*:}"}
		COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
	fi
	return 0
}

complete -F _bloxctl bloxctl
