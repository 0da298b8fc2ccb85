"""Run every example of cgslot(1)'s EXAMPLES section, as jq runs its
manual's examples.

Each `.nf` ... `.fi` block of the section holds commands, lines starting
with "$ " (a trailing backslash continues one onto the next line), each
followed by the output it prints, if any is shown.  Every command runs in
bash, in one scratch directory per run where `testdata` links to the
tree's bundled data and `cgslot` on PATH is the binary under test; it must
exit 0, and when output is shown, stdout must be exactly that, where
"..." in a shown line stands for any text.  Exits 1 naming each failure.
Needs CGS_SOURCE_ROOT and CGSLOT (tests/meson.build sets them).
"""
import os
import re
import subprocess
import sys
import tempfile

ESCAPES = [("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\(em", "--"),
           ("\\e", "\\"), ("\\&", "")]


def unroff(line):
    for a, b in ESCAPES:
        line = line.replace(a, b)
    return line


def examples(page):
    """(command, shown output lines) in the order of the EXAMPLES section."""
    text = open(page, encoding="utf-8").read()
    m = re.search(r"^\.SH EXAMPLES\n(.*?)^\.SH ", text, re.S | re.M)
    if not m:
        raise SystemExit(f"{page}: no EXAMPLES section")
    found = []
    for block in re.findall(r"^\.nf\n(.*?)^\.fi\n", m.group(1), re.S | re.M):
        cmd = None
        for raw in block.splitlines():
            line = unroff(raw)
            if cmd is not None and cmd[0].endswith("\\"):
                cmd[0] = cmd[0][:-1] + " " + line.strip()
            elif line.startswith("$ "):
                cmd = [line[2:], []]
                found.append(cmd)
            elif cmd is not None:
                cmd[1].append(line)
            else:
                raise SystemExit(f"{page}: output before any command: {line!r}")
    return found


def matches(shown, got):
    if len(shown) != len(got):
        return False
    for s, g in zip(shown, got):
        pattern = ".*".join(re.escape(part) for part in s.split("..."))
        if not re.fullmatch(pattern, g):
            return False
    return True


def main():
    root = os.environ["CGS_SOURCE_ROOT"]
    cgslot = os.environ["CGSLOT"]
    page = os.path.join(root, "man", "cgslot.1")
    found = examples(page)
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        bindir = os.path.join(work, ".bin")
        os.mkdir(bindir)
        os.symlink(cgslot, os.path.join(bindir, "cgslot"))
        os.symlink(os.path.join(root, "testdata"),
                   os.path.join(work, "testdata"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
        for cmd, shown in found:
            r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env,
                               capture_output=True, text=True, timeout=300)
            got = r.stdout.splitlines()
            if r.returncode != 0:
                print(f"FAIL: `{cmd}` exited {r.returncode}: "
                      f"{r.stderr.strip()[:400]}")
                failed += 1
            elif shown and not matches(shown, got):
                print(f"FAIL: `{cmd}` printed\n  " + "\n  ".join(got[:10]) +
                      "\nbut the manual shows\n  " + "\n  ".join(shown))
                failed += 1
            else:
                print(f"ok: {cmd}")
    if len(found) < 5:
        print(f"FAIL: only {len(found)} examples found in {page}")
        failed += 1
    print(f"{len(found) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
