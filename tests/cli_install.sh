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
# shellcheck disable=SC2086  # the flags are words
"$cc" -std=c11 -Wall -Werror $cflags tests/pc_consumer.c -o "$tmp/consumer" $libs \
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
[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
