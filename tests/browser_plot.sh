#!/usr/bin/env bash
# The plot in a real browser: Debian's headless Chromium renders the
# bundled example's picture, takes a screenshot, and tests/plot_pixels.py
# asserts from its pixels that the boxes, colours and legend are there.
# Skipped (77) where no Chromium is installed (tools/setup installs
# chromium-headless-shell).  CGS_SCREENSHOT=FILE keeps the screenshot.
. "$(dirname "$0")/cli_lib.sh"
browser=""
for b in chromium-headless-shell chromium chromium-browser; do
	command -v "$b" >/dev/null && { browser=$(command -v "$b"); break; }
done
[ -n "$browser" ] || { echo "no chromium: skipped"; exit 77; }

run 0 compile -q testdata/examples/qwen-pp4-vpp2-dcp.yaml -o "$tmp/q.cgslot"
for args in "" "--rank 3 --variants cp1,cp8"; do
	# shellcheck disable=SC2086  # the options are words
	run 0 plot -q "$tmp/q.cgslot" -o "$tmp/q.svg" $args
	size=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$tmp/q.svg")
	[ -n "$size" ] || { fail "no width and height in the SVG"; continue; }
	rm -f "$tmp/shot.png"
	# Root (as in CI) needs --no-sandbox; a private profile keeps $HOME clean.
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --user-data-dir="$tmp/profile" \
		--window-size="$size" --screenshot="$tmp/shot.png" \
		"file://$tmp/q.svg" >"$tmp/browser.log" 2>&1
	[ -s "$tmp/shot.png" ] ||
		{ fail "$browser took no screenshot: $(tail -n 3 "$tmp/browser.log")"; continue; }
	[ -n "${CGS_SCREENSHOT:-}" ] && cp "$tmp/shot.png" "$CGS_SCREENSHOT"
	"$python" tests/plot_pixels.py "$tmp/shot.png" "$tmp/q.svg" >"$tmp/pixels" ||
		fail "plot $args in $browser: $(cat "$tmp/pixels")"
	echo "plot $args: $(cat "$tmp/pixels")"
done

echo "$failed failed"
[ "$failed" -eq 0 ]
