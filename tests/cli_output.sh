#!/usr/bin/env bash
# Where compile -o writes: a FIFO, a device or /dev/stdout is written
# through and stays what it was; a symbolic link is followed and its target
# replaced; the schedule itself is refused; a failed stdout leaves the
# earlier manifest untouched.
. "$(dirname "$0")/cli_lib.sh"

sched=testdata/manifest/golden/minimal/schedule.yaml
other=testdata/manifest/golden/dcp-vpp/schedule.yaml
run 0 compile -q "$sched" -o "$tmp/want.cgslot"
run 0 compile -q "$other" -o "$tmp/old.cgslot"

# no_temp DIR: no temporary file of a compile is left in DIR.
no_temp() {
	local left
	left=$(find "$1" -maxdepth 1 -name '.*.cgslot.*' -o -maxdepth 1 -name '.*.yaml.*' | head -n 3)
	[ -z "$left" ] || fail "temporary files left behind: $left"
}

# Devices are tried on nodes made in $tmp where mknod is allowed, so that a
# regression cannot replace the system's /dev/null when the tests run as
# root; elsewhere (not root) on /dev/full and /dev/null themselves.
if mknod -m 666 "$tmp/full" c 1 7 2>/dev/null && mknod -m 666 "$tmp/null" c 1 3; then
	full=$tmp/full null=$tmp/null
elif [ "$(id -u)" -ne 0 ]; then
	full=/dev/full null=/dev/null
else
	full='' null=''
	echo "note: root without mknod; the device cases are not run"
fi
# A full device: the write error is reported, exit 3, the device stays.
if [ -n "$full" ] && [ -w "$full" ]; then
	run 3 compile -q "$sched" -o "$full"
	grep -qi "no space left on device" "$tmp/err" || fail "$full: $(cat "$tmp/err")"
	[ -c "$full" ] || fail "$full is no longer a character device"
fi
# /dev/null takes the bytes and stays a device.
if [ -n "$null" ]; then
	run 0 compile -q "$sched" -o "$null"
	[ -c "$null" ] || fail "$null is no longer a character device"
fi

# A FIFO: the manifest flows through it to the reader.
mkfifo "$tmp/fifo"
timeout 30 cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
run 0 compile -q "$sched" -o "$tmp/fifo"
wait "$reader" || fail "the FIFO's reader failed"
[ -p "$tmp/fifo" ] || fail "the FIFO was replaced by a regular file"
cmp -s "$tmp/from-fifo" "$tmp/want.cgslot" || fail "the FIFO's reader got another manifest"
no_temp "$tmp"

# /dev/stdout on a pipe, through a link of our own to /proc/self/fd/1 as
# /dev/stdout is (a regression then replaces only that link).
ln -s /proc/self/fd/1 "$tmp/stdout"
timeout 30 "$cgslot" compile -q "$sched" -o "$tmp/stdout" 2>"$tmp/err" | cat >"$tmp/from-pipe"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "compile -o /dev/stdout failed: $(cat "$tmp/err")"
cmp -s "$tmp/from-pipe" "$tmp/want.cgslot" || fail "-o /dev/stdout on a pipe wrote another manifest"
[ -L "$tmp/stdout" ] || fail "the link to stdout was replaced"

# Without --quiet the summary goes to stderr, the pipe gets the manifest
# alone.
timeout 30 "$cgslot" compile "$sched" -o "$tmp/stdout" 2>"$tmp/err" | cat >"$tmp/from-pipe"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "compile -o /dev/stdout (summary) failed: $(cat "$tmp/err")"
cmp -s "$tmp/from-pipe" "$tmp/want.cgslot" || fail "the summary went into the manifest on stdout"
grep -q "^compiled " "$tmp/err" || fail "no summary on stderr: $(cat "$tmp/err")"

# Standard output redirected to append to a regular file: the manifest is
# appended through it, the file is neither replaced nor truncated.
printf 'log\n' >"$tmp/log"
ino=$(stat -c %i "$tmp/log")
timeout 30 "$cgslot" compile "$sched" -o "$tmp/stdout" >>"$tmp/log" 2>"$tmp/err" ||
	fail "compile -o /dev/stdout >> log failed: $(cat "$tmp/err")"
[ "$(stat -c %i "$tmp/log")" = "$ino" ] || fail "the log file was replaced"
{ printf 'log\n'; cat "$tmp/want.cgslot"; } | cmp -s - "$tmp/log" ||
	fail "-o /dev/stdout >> log did not append the manifest"
no_temp "$tmp"

# plot likewise: the picture alone on a piped stdout.
"$cgslot" plot "$tmp/want.cgslot" -o "$tmp/stdout" 2>"$tmp/err" | head -c 5 >"$tmp/head"
[ "$(cat "$tmp/head")" = "<?xml" ] || fail "plot -o /dev/stdout: $(cat "$tmp/head") / $(cat "$tmp/err")"
grep -q "^plotted " "$tmp/err" || fail "plot: no summary on stderr: $(cat "$tmp/err")"

# A symbolic link is followed: the file it names is replaced, the link
# stays a link.  Relative links resolve against the link's directory, a
# dangling one names the file to create, a loop is refused.
mkdir -p "$tmp/links/sub"
cp "$tmp/old.cgslot" "$tmp/links/sub/real.cgslot"
ln -s sub/real.cgslot "$tmp/links/rel"
ln -s "$tmp/links/rel" "$tmp/links/abs"
run 0 compile -q "$sched" -o "$tmp/links/abs"
[ -L "$tmp/links/rel" ] && [ -L "$tmp/links/abs" ] || fail "a symbolic link was replaced"
cmp -s "$tmp/links/sub/real.cgslot" "$tmp/want.cgslot" || fail "the link's target was not replaced"
ln -s new.cgslot "$tmp/links/sub/dangling"
run 0 compile -q "$sched" -o "$tmp/links/sub/dangling"
[ -L "$tmp/links/sub/dangling" ] || fail "a dangling link was replaced"
cmp -s "$tmp/links/sub/new.cgslot" "$tmp/want.cgslot" || fail "a dangling link's target was not created"
ln -s loop "$tmp/links/loop"
run 3 compile -q "$sched" -o "$tmp/links/loop"
grep -q "symbolic links" "$tmp/err" || fail "a link loop is not explained: $(cat "$tmp/err")"
[ -L "$tmp/links/loop" ] || fail "a looping link was replaced"
no_temp "$tmp/links"
no_temp "$tmp/links/sub"

# The output is the schedule: refused (2), nothing written, also through
# a symbolic link or a hard link.
cp "$sched" "$tmp/s.yaml"
ln -s s.yaml "$tmp/s-link.yaml"
ln "$tmp/s.yaml" "$tmp/s-hard.yaml"
for o in "$tmp/s.yaml" "$tmp/s-link.yaml" "$tmp/s-hard.yaml"; do
	run 2 compile "$tmp/s.yaml" -o "$o"
	grep -q "is the schedule itself" "$tmp/err" || fail "-o $o: $(cat "$tmp/err")"
	cmp -s "$tmp/s.yaml" "$sched" || fail "-o $o overwrote the schedule"
	[ -s "$tmp/out" ] && fail "-o $o printed a summary"
done
[ -L "$tmp/s-link.yaml" ] || fail "the schedule's link was replaced"
no_temp "$tmp"

# A failed stdout (closed, or full) is found before the manifest is
# installed: exit 3 and the earlier manifest is untouched.
cp "$tmp/old.cgslot" "$tmp/m.cgslot"
timeout 30 "$cgslot" compile "$sched" -o "$tmp/m.cgslot" >&- 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] || fail "compile with stdout closed exited $rc, want 3"
grep -q "cannot write standard output" "$tmp/err" || fail "closed stdout: $(cat "$tmp/err")"
cmp -s "$tmp/m.cgslot" "$tmp/old.cgslot" || fail "a closed stdout still replaced the manifest"
if [ -w /dev/full ]; then
	timeout 30 "$cgslot" compile "$sched" -o "$tmp/m.cgslot" >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 3 ] || fail "compile with stdout full exited $rc, want 3"
	cmp -s "$tmp/m.cgslot" "$tmp/old.cgslot" || fail "a full stdout still replaced the manifest"
fi
no_temp "$tmp"
# With --quiet nothing is printed, so a closed stdout is no failure.
timeout 30 "$cgslot" compile -q "$sched" -o "$tmp/m.cgslot" >&- 2>"$tmp/err" ||
	fail "compile -q with stdout closed failed: $(cat "$tmp/err")"
cmp -s "$tmp/m.cgslot" "$tmp/want.cgslot" || fail "compile -q with stdout closed wrote another manifest"

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
