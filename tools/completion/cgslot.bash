# bash completion for cgslot(1): subcommands, their options, option values
# and file names (schedules, manifests, pictures).  Self-contained: it
# needs nothing from the bash-completion package, which loads it on
# demand when it is installed in its completions directory.

# _cgslot_files EXT...: directories and files ending in .EXT
_cgslot_files()
{
	local cur=$1 ext IFS=$'\n'
	shift
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -d -- "$cur"))
	if [ $# -eq 0 ]; then
		COMPREPLY+=($(compgen -f -- "$cur"))
		return
	fi
	for ext in "$@"; do
		COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$cur"))
	done
}

_cgslot()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="check orders plan compile report dump verify plot replay pack help"
	local cmd="" opts i

	COMPREPLY=()
	# The command is the first word that is not an option.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version --quiet --verbose" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return 0
	fi
	case $cmd in
	check) opts="--limit --jobs" ;;
	orders) opts="--pp --vpp --group --microbatches --rank --limit" ;;
	plan) opts="--format --limit --max-slots --per-rank-slots --slot-maps --explore-slots --jobs" ;;
	compile) opts="--output --limit --jobs" ;;
	report | dump) opts="--format" ;;
	verify) opts="--limit --jobs" ;;
	plot) opts="--output --rank --microbatches --variants" ;;
	replay) opts="--rank --iterations --seed --device --overlap-test --overrun-test" ;;
	pack) opts="--output --capacity --time-limit" ;;
	help)
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return 0 ;;
	*) return 0 ;;
	esac
	opts="$opts --quiet --verbose --help"
	case $prev in
	--format | -f)
		case $cmd in
		report) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "text json te-plan" -- "$cur")) ;;
		esac
		return 0 ;;
	--limit)
		compopt -o nospace 2>/dev/null
		COMPREPLY=($(compgen -W "file_bytes= depth= nodes= pp= vpp= layers= microbatches= variants= order_entries= frames=" -- "$cur"))
		return 0 ;;
	--output | -o)
		case $cmd in
		plot) _cgslot_files "$cur" svg ;;
		pack) _cgslot_files "$cur" csv ;;
		*) _cgslot_files "$cur" cgslot ;;
		esac
		return 0 ;;
	--pp | --vpp | --group | --microbatches | --rank | --iterations | --seed | \
	--device | --variants | --max-slots | --jobs | -j | --capacity | --time-limit)
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi
	case $cmd in
	check | orders | plan | compile) _cgslot_files "$cur" yaml yml json ;;
	verify)
		# MANIFEST, then the SCHEDULE it came from
		_cgslot_files "$cur" cgslot yaml yml json ;;
	pack) _cgslot_files "$cur" csv ;;
	*) _cgslot_files "$cur" cgslot ;;
	esac
	return 0
}
complete -F _cgslot cgslot
