#!/usr/bin/env bash
# meson install into a scratch DESTDIR, then an application built from the
# installed header and library with nothing but pkg-config (libcgslot.pc)
# links, runs and opens a manifest; the installed cgslot and man pages
# are there too.  $1 is the build directory, $2 the C compiler.
. "$(dirname "$0")/cli_lib.sh"
builddir=${1:?}
cc=${2:?}
command -v pkg-config >/dev/null || { echo "no pkg-config: skipped"; exit 77; }

dest=$tmp/dest
meson install -C "$builddir" --no-rebuild --destdir "$dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "meson install failed"; exit 1; }
pc=$(find "$dest" -name libcgslot.pc | head -n 1)
[ -n "$pc" ] || { fail "libcgslot.pc is not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
pcflags=(--define-variable=prefix="$dest$prefix")
cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config "${pcflags[@]}" --cflags libcgslot)
libs=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config "${pcflags[@]}" --libs libcgslot)
# A library built with sanitizers needs their runtime first in the
# program, as any application linking it would: build the consumer with
# the same -fsanitize.
san=()
[ "${CGS_SANITIZE:-none}" = none ] || san=("-fsanitize=$CGS_SANITIZE")
# shellcheck disable=SC2086  # the flags are words
"$cc" -std=c11 -Wall -Werror "${san[@]}" $cflags tests/pc_consumer.c -o "$tmp/consumer" $libs \
	2>"$tmp/cc.err" || fail "building against libcgslot.pc failed: $(head -c 600 "$tmp/cc.err")"
libdir=$(dirname "$(find "$dest" -name 'libcgslot.so*' | head -n 1)")
if [ -x "$tmp/consumer" ]; then
	LD_LIBRARY_PATH=$libdir "$tmp/consumer" testdata/manifest/golden/minimal/manifest.cgslot \
		>"$tmp/out" 2>"$tmp/err" || fail "the consumer failed: $(cat "$tmp/err")"
	grep -q '^graphs [1-9][0-9]*, arena bytes [1-9]' "$tmp/out" ||
		fail "the consumer did not open the manifest: $(cat "$tmp/out")"
	# cgs_version() of the installed library is the header's version.
	grep -Eq 'libcgslot [0-9]+\.[0-9]+\.[0-9]+ \(([0-9]+)\), header \1$' "$tmp/out" ||
		fail "the installed library's version is not the header's: $(cat "$tmp/out")"
fi
for f in bin/cgslot include/cgslot/cgslot.h include/cgslot/error.h \
	 share/man/man1/cgslot.1 share/man/man3/libcgslot.3 \
	 share/man/man5/cgslot-manifest.5; do
	[ -e "$dest$prefix/$f" ] || fail "$prefix/$f is not installed"
done

# Every installed path is one we mean to install: the list below, no
# more (nothing of Python: pip owns that), no less.
check_installed_paths() {
	local want=(bin/cgslot include/cgslot/cgslot.h include/cgslot/error.h
		'lib*/libcgslot.so' 'lib*/libcgslot.so.[0-9]*'
		'lib*/pkgconfig/libcgslot.pc'
		share/man/man1/cgslot.1 share/man/man3/libcgslot.3
		share/man/man5/cgslot-manifest.5
		share/cgslot/schemas/schedule.schema.json
		share/cgslot/schemas/manifest-dump.schema.json
		share/bash-completion/completions/cgslot)
	local path pattern hit
	(cd "$dest$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$tmp/installed"
	while read -r path; do
		hit=0
		for pattern in "${want[@]}"; do
			# shellcheck disable=SC2053  # a glob on purpose
			[[ $path == $pattern ]] && hit=1
		done
		[ "$hit" = 1 ] || fail "meson install installs $prefix/$path, which is not in the list"
		case $path in
		*.py | *.pyc | *site-packages* | *dist-packages*)
			fail "meson install installs Python: $prefix/$path" ;;
		esac
	done <"$tmp/installed"
	for pattern in "${want[@]}"; do
		hit=0
		while read -r path; do
			# shellcheck disable=SC2053
			[[ $path == $pattern ]] && hit=1
		done <"$tmp/installed"
		[ "$hit" = 1 ] || fail "$prefix/$pattern is not installed"
	done
}

# The schemas are the tree's, and JSON.
check_installed_schemas() {
	local f
	for f in schedule.schema.json manifest-dump.schema.json; do
		cmp -s "schemas/$f" "$dest$prefix/share/cgslot/schemas/$f" ||
			fail "the installed $f differs from schemas/$f"
		"$python" -m json.tool "$dest$prefix/share/cgslot/schemas/$f" >/dev/null ||
			fail "the installed $f is not JSON"
	done
}

# The installed completion works in a real bash, and bash-completion (where
# installed) loads it on demand from the installed share directory.
check_installed_completion() {
	local script=$dest$prefix/share/bash-completion/completions/cgslot loader
	[ -f "$script" ] || return
	tests/cli_completion.sh "$script" >"$tmp/completion.log" 2>&1 ||
		fail "the installed completion: $(grep FAIL "$tmp/completion.log" | head -n 3)"
	loader=/usr/share/bash-completion/bash_completion
	[ -r "$loader" ] || { echo "no bash-completion: on-demand loading not checked"; return; }
	XDG_DATA_DIRS="$dest$prefix/share:/usr/share" bash --norc --noprofile -c \
		'. "$1" && __load_completion cgslot && complete -p cgslot' bash "$loader" \
		>"$tmp/lazy" 2>&1
	grep -qx "complete -F _cgslot cgslot" "$tmp/lazy" ||
		fail "bash-completion does not load the installed completion: $(head -c 300 "$tmp/lazy")"
}

check_installed_paths
check_installed_schemas
check_installed_completion

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
