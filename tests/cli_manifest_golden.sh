#!/usr/bin/env bash
# Golden manifests pin the format: each schedule under
# testdata/manifest/golden/ must compile to exactly its manifest.cgslot and
# dump to exactly its dump.txt and dump.json (valid against the schema);
# each corrupt manifest under testdata/manifest/corrupt/ must be refused
# with exit 1 and exactly its expected.txt message.  An independent
# CRC-32C and a second reader (tests/manifest_edit.py, written from
# cgslot-manifest(5)) check every golden manifest.
#
# CGS_UPDATE_GOLDEN=1 (or tools/update-golden) rewrites the files instead
# of comparing; review the diff before committing it.
. "$(dirname "$0")/cli_lib.sh"
update=${CGS_UPDATE_GOLDEN:-0}
# The test data does not depend on the release: manifests are compiled
# with a pinned producer string (cgslot(1), ENVIRONMENT), and the corrupt
# cases and fuzz seeds made from them inherit it.
export CGSLOT_PRODUCER=golden
golden=testdata/manifest/golden
corrupt=testdata/manifest/corrupt

# same NEW GOLDEN: compare, or install NEW in update mode.
same() {
	if [ "$update" = 1 ]; then
		cp "$1" "$2"
	elif ! cmp -s "$1" "$2"; then
		fail "$2 differs from what cgslot produces now (tools/update-golden regenerates it if the change is intended)"
		diff <(od -An -tx1 -v "$2" 2>/dev/null || true) <(od -An -tx1 -v "$1") | head -n 8
	fi
}

cases=0
for dir in "$golden"/*/; do
	dir=${dir%/}
	cases=$((cases + 1))
	run 0 compile --quiet "$dir/schedule.yaml" -o "$tmp/m.cgslot"
	[ -s "$tmp/out" ] && fail "compile --quiet printed: $(cat "$tmp/out")"
	same "$tmp/m.cgslot" "$dir/manifest.cgslot"
	run 0 dump "$dir/manifest.cgslot"
	same "$tmp/out" "$dir/dump.txt"
	run 0 dump --format json "$dir/manifest.cgslot"
	same "$tmp/out" "$dir/dump.json"
done
[ "$cases" -ge 4 ] || fail "only $cases golden cases found"

"$python" tests/manifest_edit.py crc "$golden"/*/manifest.cgslot ||
	fail "a golden manifest's CRC-32C disagrees with the independent one"

"$python" - "$golden"/*/dump.json <<'PY' || fail "a dump does not match schemas/manifest-dump.schema.json"
import json, sys
import jsonschema
schema = json.load(open("schemas/manifest-dump.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for p in sys.argv[1:]:
    for e in v.iter_errors(json.load(open(p))):
        print(f"{p}: {'/'.join(map(str, e.path))}: {e.message}")
        bad = 1
# The schema must be able to fail: a dump with a bad role is refused.
d = json.load(open(sys.argv[1]))
d["ranks"][0]["arenas"][0]["role"] = "other"
if v.is_valid(d):
    print("the schema accepts an unknown arena role")
    bad = 1
sys.exit(bad)
PY

if [ "$update" = 1 ]; then
	rm -rf "$corrupt"
	"$python" tests/manifest_edit.py corrupt "$golden/dcp-vpp/manifest.cgslot" "$corrupt" ||
		fail "cannot generate the corrupt cases"
fi
cases=0
for dir in "$corrupt"/*/; do
	dir=${dir%/}
	cases=$((cases + 1))
	timeout 20 "$cgslot" dump "$dir/manifest.cgslot" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "dump of $dir exited $rc, want 1: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "dump of $dir printed on stdout"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "want one error line for $dir: $(cat "$tmp/err")"
	grep -q "^cgslot: $dir/manifest.cgslot: error: " "$tmp/err" ||
		fail "error for $dir does not name the file: $(cat "$tmp/err")"
	same "$tmp/err" "$dir/expected.txt"
done
[ "$cases" -ge 10 ] || fail "only $cases corrupt cases found"

# A newer minor version with an unknown optional section, built by the
# Python writer from the man page alone, loads and dumps like the original.
future=testdata/manifest/compat/minor-optional/manifest.cgslot
if [ "$update" = 1 ]; then
	mkdir -p "$(dirname "$future")"
	"$python" tests/manifest_edit.py future "$golden/dcp-vpp/manifest.cgslot" "$future"
fi
run 0 dump "$future"
grep -q "^manifest    format 2.4, " "$tmp/out" || fail "future minor: $(head -n 1 "$tmp/out")"
grep -q "^  4096  unknown " "$tmp/out" || fail "future minor: the optional section is not listed"
run 0 dump --format json "$future"
sed -n '/"variants": \[/,$p' "$tmp/out" >"$tmp/future.tail"
sed -n '/"variants": \[/,$p' "$golden/dcp-vpp/dump.json" >"$tmp/golden.tail"
cmp -s "$tmp/future.tail" "$tmp/golden.tail" || fail "future minor: contents differ from the original"

# Format 2.0 manifests keep opening: the dcp-vpp schedule's 2.0 manifest
# (compiled before gradient frames nested in the saved arena, which makes
# its golden 2.2) dumps to exactly its dump then and verifies against its
# schedule.
v20=testdata/manifest/compat/v2.0-dcp-vpp
run 0 dump "$v20/manifest.cgslot"
grep -q "^manifest    format 2.0, " "$tmp/out" || fail "2.0 golden: $(head -n 1 "$tmp/out")"
run 0 dump --format json "$v20/manifest.cgslot"
cmp -s "$tmp/out" "$v20/dump.json" || fail "2.0 golden: its dump changed"
run 0 verify "$v20/manifest.cgslot" "$v20/schedule.yaml"
sed -n '/"variants": \[/,$p' "$v20/dump.json" >"$tmp/v20.tail"

# Format 1 manifests keep opening: the 1.0 manifest of the dcp-vpp
# schedule (compiled before format 2) reads to the same contents as its
# format 2.0 manifest, verifies against its schedule, and its 1.1 variant
# with an optional section loads too.
old=testdata/manifest/compat/v1.0-dcp-vpp
run 0 dump "$old/manifest.cgslot"
grep -q "^manifest    format 1.0, " "$tmp/out" || fail "1.0 golden: $(head -n 1 "$tmp/out")"
run 0 dump --format json "$old/manifest.cgslot"
sed -n '/"variants": \[/,$p' "$tmp/out" >"$tmp/old.tail"
cmp -s "$tmp/old.tail" "$tmp/v20.tail" || fail "1.0 golden: contents differ from the 2.0 manifest"
run 0 verify "$old/manifest.cgslot" "$old/schedule.yaml"
run 0 dump testdata/manifest/compat/v1.1-minor-optional/manifest.cgslot
grep -q "^manifest    format 1.1, " "$tmp/out" || fail "1.1: $(head -n 1 "$tmp/out")"

# A second reader, written in Python from the man page alone, decodes
# every golden manifest (and the newer-minor one) to exactly the JSON
# that cgslot dump prints.
for m in "$golden"/*/manifest.cgslot "$future" testdata/manifest/compat/v1*/manifest.cgslot \
	"$v20/manifest.cgslot"; do
	run 0 dump --format json "$m"
	"$python" tests/manifest_edit.py decode "$m" >"$tmp/decoded.json" ||
		{ fail "the second reader cannot decode $m"; continue; }
	"$python" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
		"$tmp/decoded.json" "$tmp/out" ||
		fail "the second reader and cgslot dump disagree on $m"
done

# The fuzz seed corpus starts from the golden and corrupt manifests.
if [ "$update" = 1 ]; then
	rm -f testdata/fuzz/manifest/golden-* testdata/fuzz/manifest/corrupt-*
	mkdir -p testdata/fuzz/manifest
	for dir in "$golden"/*/; do
		cp "$dir/manifest.cgslot" "testdata/fuzz/manifest/golden-$(basename "$dir")"
	done
	for dir in "$corrupt"/*/; do
		cp "$dir/manifest.cgslot" "testdata/fuzz/manifest/corrupt-$(basename "$dir")"
	done
	cp "$future" testdata/fuzz/manifest/compat-minor-optional
fi

[ "$failed" -eq 0 ] || { echo "$failed failure(s)"; exit 1; }
echo "ok"
