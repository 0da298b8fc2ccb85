#!/usr/bin/env python3
"""Validate the schedule test data against schemas/schedule.schema.json.

Every file under testdata/valid and testdata/examples must pass; every
case under testdata/invalid must fail (a file the Python parsers reject
counts as failing), except the cases listed in tests/schema_exceptions.txt,
which the schema cannot express and must therefore pass.  Exits 77 when
python3-jsonschema or python3-yaml is missing.
"""
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

ROOT = os.environ.get("CGS_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))


def load(path):
    """The document, or raise ValueError when the parsers refuse it."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        if path.endswith(".json"):
            return json.loads(raw.decode("utf-8"))
        return yaml.safe_load(raw)
    except (yaml.YAMLError, UnicodeError, RecursionError, ValueError,
            TypeError) as e:
        raise ValueError(f"{type(e).__name__}: {str(e).splitlines()[0]}")


def exceptions():
    found = {}
    with open(os.path.join(ROOT, "tests", "schema_exceptions.txt"),
              encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, _, why = line.strip().partition(" ")
                found[name] = why.strip()
    return found


def main():
    with open(os.path.join(ROOT, "schemas", "schedule.schema.json"),
              encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    if not schema["$schema"].endswith("2020-12/schema"):
        print("FAIL: the schema must declare JSON Schema 2020-12")
        return 1

    failed = checked = 0
    # the examples' schedules (not their pictures)
    valid = [os.path.join("testdata", "examples", n)
             for n in sorted(os.listdir(os.path.join(ROOT, "testdata",
                                                     "examples")))
             if n.endswith((".yaml", ".yml", ".json"))]
    for case in sorted(os.listdir(os.path.join(ROOT, "testdata", "valid"))):
        d = os.path.join("testdata", "valid", case)
        valid += [os.path.join(d, n)
                  for n in sorted(os.listdir(os.path.join(ROOT, d)))
                  if n.startswith("schedule.")]
    for rel in valid:
        checked += 1
        try:
            errors = list(validator.iter_errors(load(os.path.join(ROOT, rel))))
        except ValueError as e:
            errors = [e]
        if errors:
            failed += 1
            print(f"FAIL {rel}: valid, but the schema rejects it: "
                  f"{getattr(errors[0], 'message', errors[0])}")

    allowed = exceptions()
    cases = sorted(os.listdir(os.path.join(ROOT, "testdata", "invalid")))
    for name in allowed:
        if name not in cases:
            failed += 1
            print(f"FAIL schema_exceptions.txt names no case '{name}'")
    for case in cases:
        d = os.path.join(ROOT, "testdata", "invalid", case)
        files = [n for n in sorted(os.listdir(d)) if n.startswith("schedule.")]
        if not files:
            continue
        checked += 1
        try:
            rejected = not validator.is_valid(load(os.path.join(d, files[0])))
        except ValueError:
            rejected = True
        if case in allowed and rejected:
            failed += 1
            print(f"FAIL {case}: listed as inexpressible, but the schema "
                  f"rejects it; remove it from schema_exceptions.txt")
        elif case not in allowed and not rejected:
            failed += 1
            print(f"FAIL {case}: invalid, but the schema accepts it")
    print(f"{checked} files checked, {len(allowed)} known exceptions, "
          f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
