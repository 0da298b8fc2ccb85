#!/usr/bin/env bash
# The bash completion in a real bash: `complete -p` names it, and driving
# it as bash does (COMP_WORDS, COMP_CWORD, then COMPREPLY) completes every
# command that `cgslot --help` lists, every option each command's --help
# documents, option values and file names by kind.
# $1: the completion script (default: tools/completion/cgslot.bash of the tree);
# tests/cli_install.sh passes the installed one.
. "$(dirname "$0")/cli_lib.sh"
script=${1:-$PWD/tools/completion/cgslot.bash}
[ -r "$script" ] || { fail "no completion script at $script"; exit 1; }

# complete WORDS...: what the completion offers for the last word (which
# may be empty), one per line, sorted; run in a fresh bash from $tmp/files.
complete_words() {
	(cd "$tmp/files" && bash --norc --noprofile -c '
		. "$1" || exit 3
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_cgslot cgslot "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$script" "$@") | sort
}
mkdir -p "$tmp/files/runs"
touch "$tmp/files/a.yaml" "$tmp/files/b.json" "$tmp/files/c.cgslot" \
	"$tmp/files/d.svg" "$tmp/files/e.txt"

bash --norc --noprofile -c '. "$1" && complete -p cgslot' bash "$script" >"$tmp/spec" 2>&1
grep -qx "complete -F _cgslot cgslot" "$tmp/spec" || fail "complete -p cgslot: $(cat "$tmp/spec")"

# Commands: exactly those of cgslot --help, plus help.
run 0 --help
want=$( (sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' "$tmp/out"; echo help) | sort)
got=$(complete_words cgslot "")
[ "$got" = "$want" ] || fail "commands: completion offers '$(echo $got)', cgslot --help lists '$(echo $want)'"
[ "$(complete_words cgslot pl)" = "$(printf 'plan\nplot')" ] ||
	fail "cgslot pl<TAB>: $(complete_words cgslot pl | tr '\n' ' ')"
[ "$(complete_words cgslot --verbose ver)" = "verify" ] ||
	fail "cgslot --verbose ver<TAB>: $(complete_words cgslot --verbose ver | tr '\n' ' ')"
[ "$(complete_words cgslot help rep)" = "$(printf 'replay\nreport')" ] ||
	fail "cgslot help rep<TAB>: $(complete_words cgslot help rep | tr '\n' ' ')"

# Options: every long option a command's --help documents.
options_seen=0
for c in $(echo "$want" | grep -vx help); do
	run 0 "$c" --help
	offered=$(complete_words cgslot "$c" --)
	# the usage line and the option table (not options of other tools
	# that the prose mentions)
	for o in $( (grep '^usage:' "$tmp/out"
		     sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' "$tmp/out") |
		    grep -o -- '--[a-z][a-z-]*' | sort -u); do
		options_seen=$((options_seen + 1))
		echo "$offered" | grep -qx -- "$o" ||
			fail "cgslot $c --<TAB> does not offer $o"
	done
done

[ "$options_seen" -ge 40 ] || fail "only $options_seen options found in the --help texts"

# Values and files.
[ "$(complete_words cgslot dump --format "")" = "$(printf 'json\nte-plan\ntext')" ] ||
	fail "dump --format: $(complete_words cgslot dump --format "" | tr '\n' ' ')"
[ "$(complete_words cgslot report --format "")" = "$(printf 'json\ntext')" ] ||
	fail "report --format: $(complete_words cgslot report --format "" | tr '\n' ' ')"
complete_words cgslot plan --limit fr | grep -qx "frames=" || fail "--limit fr<TAB>"
[ "$(complete_words cgslot compile "")" = "$(printf 'a.yaml\nb.json\nruns')" ] ||
	fail "compile <TAB>: $(complete_words cgslot compile "" | tr '\n' ' ')"
[ "$(complete_words cgslot dump "")" = "$(printf 'c.cgslot\nruns')" ] ||
	fail "dump <TAB>: $(complete_words cgslot dump "" | tr '\n' ' ')"
[ "$(complete_words cgslot plot c.cgslot -o "")" = "$(printf 'd.svg\nruns')" ] ||
	fail "plot -o <TAB>: $(complete_words cgslot plot c.cgslot -o "" | tr '\n' ' ')"
[ "$(complete_words cgslot compile a.yaml --output c)" = "c.cgslot" ] ||
	fail "compile --output c<TAB>: $(complete_words cgslot compile a.yaml --output c | tr '\n' ' ')"
[ -z "$(complete_words cgslot plot c.cgslot --rank "")" ] ||
	fail "plot --rank <TAB> offers files"

echo "$failed failed"
[ "$failed" -eq 0 ]
