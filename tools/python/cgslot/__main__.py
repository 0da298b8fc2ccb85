"""python3 -m cgslot report|dump MANIFEST [--format FORMAT]

Prints what `cgslot report` and `cgslot dump` print, byte for byte, with
the same messages and exit codes (0 ok, 1 invalid manifest, 2 usage, 3 I/O
or system error), where only libcgslot and Python are installed (a GPU
machine with a runtime-only build, for example).
"""

import argparse
import os
import stat
import sys

from . import CgslotError, Runtime, _native
from . import _manifest

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_SYSTEM = 0, 1, 2, 3

FORMATS = {"report": ("text", "json"), "dump": ("text", "json", "te-plan")}


def _exit_code(code):
    if code == 0:
        return EXIT_OK
    if code == _native.CGS_E_ARG:
        return EXIT_USAGE
    if code in (_native.CGS_E_NOMEM, _native.CGS_E_IO, _native.CGS_E_CUDA,
                _native.CGS_E_CUDA_FATAL, _native.CGS_E_NODEVICE):
        return EXIT_SYSTEM
    return EXIT_INVALID


def _where(file, line, column):
    if not file:
        return ""
    if not line:
        return "%s: " % file
    if not column:
        return "%s:%u: " % (file, line)
    return "%s:%u:%u: " % (file, line, column)


def _fail(file, message, code, line=0, column=0):
    sys.stdout.flush()
    sys.stderr.write("cgslot: %serror: %s\n" %
                     (_where(file, line, column), message))
    return _exit_code(code)


def load(path):
    """(Manifest, None) or (None, exit code) after printing the error."""
    try:
        st = os.stat(path)
    except OSError as e:
        return None, _fail(path, "cannot open manifest: %s" % e.strerror,
                           _native.CGS_E_IO)
    if not stat.S_ISREG(st.st_mode):
        return None, _fail(path, "not a regular file; a manifest written by "
                           "'cgslot compile' is expected", _native.CGS_E_IO)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return None, _fail(path, "cannot read manifest: %s" % e.strerror,
                           _native.CGS_E_IO)
    # libcgslot's reader proves the file (the CLI's checks and messages);
    # a valid manifest that does not plan rank 0 answers CGS_E_RANK.
    try:
        Runtime(buffer=data, name=path, rank=0, device=0).close()
    except CgslotError as e:
        if e.code != _native.CGS_E_RANK:
            return None, _fail(e.file, e.message, e.code, e.line, e.column)
    return _manifest.Manifest(data), None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(
        prog="python3 -m cgslot",
        description="Print a cgslot manifest as `cgslot report` or "
                    "`cgslot dump` does.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_ in (("report", "the memory report of a manifest"),
                        ("dump", "every section of a manifest")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("-f", "--format", default="text",
                       choices=FORMATS[name])
        p.add_argument("manifest", metavar="MANIFEST")
    a = ap.parse_args(argv)
    if not a.command:
        ap.print_usage(sys.stderr)
        return EXIT_USAGE
    try:
        m, rc = load(a.manifest)
    except _native.LibraryNotFound as e:
        return _fail("", str(e), _native.CGS_E_IO)
    if m is None:
        return rc
    out = []
    w = out.append
    if a.command == "report":
        (_manifest.report_json if a.format == "json"
         else _manifest.report_text)(m, w)
    else:
        {"text": _manifest.dump_text, "json": _manifest.dump_json,
         "te-plan": _manifest.dump_te_plan}[a.format](m, w)
    try:
        sys.stdout.write("".join(out))
        sys.stdout.flush()
    except OSError as e:
        sys.stderr.write("cgslot: error: cannot write standard output: %s\n"
                         % e.strerror)
        return EXIT_SYSTEM
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
