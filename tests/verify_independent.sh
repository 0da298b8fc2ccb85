#!/usr/bin/env bash
# The verifier must share no planning code with the compiler: the symbols
# its library needs may come from the manifest reader, src/common and the
# schedule loader (for the optional SCHEDULE) only.  $1 is libcgs_verify.a.
set -u
lib=${1:?usage: verify_independent.sh LIBCGS_VERIFY}
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
undefined=$(nm -u "$lib" | awk '$1 == "U" && $2 ~ /^cgs_/ { print $2 }' | sort -u)
[ -n "$undefined" ] || { echo "FAIL: no cgs_ symbols found in $lib"; exit 1; }
bad=$(grep -Ev '^cgs_(error_|manifest_|crc32c|schedule_bytes$|schedule_hash$|verify_)' <<<"$undefined")
if [ -n "$bad" ]; then
	echo "FAIL: the verifier calls code outside the reader, common and loader:"
	echo "$bad"
	exit 1
fi
echo "ok: $(wc -l <<<"$undefined") external cgs_ symbols, all allowed"
