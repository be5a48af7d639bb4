#!/usr/bin/python3
"""casebook's vocabulary, as the executable states it (`casebook describe
--json`), against every list that repeats it outside C++: the case format's
schema (backends, families), the results' schema (verdicts, families) and
cmake/CasebookAddCases.cmake (the backends of casebook_add_cases), so that a
backend, family or verdict added to casebook's one table and not there fails
here. Run by ctest (schema.vocabulary); standard library only.

  check_vocabulary.py --casebook CASEBOOK --root REPOSITORY
Exit 1 with every disagreement listed.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys


def schema_lists(root):
    """{what: (where, list)} of every list the schemas and CMake hold."""
    case = json.loads((root / "schema/case.schema.json").read_text())
    results = json.loads((root / "schema/results.schema.json").read_text())
    verdict = results["definitions"]["verdict"]["properties"]
    cmake = (root / "cmake/CasebookAddCases.cmake").read_text()
    built_in = re.search(r"^\s*set\(_built_in_backends ([^)]*)\)", cmake,
                         re.MULTILINE)
    return {
        "backends": [
            ("schema/case.schema.json definitions.backend",
             case["definitions"]["backend"]["enum"]),
            ("cmake/CasebookAddCases.cmake _built_in_backends",
             built_in.group(1).split() if built_in else []),
        ],
        "families": [
            ("schema/case.schema.json definitions.family",
             case["definitions"]["family"]["enum"]),
            ("schema/results.schema.json verdict.family",
             verdict["family"]["enum"]),
        ],
        "verdicts": [
            ("schema/results.schema.json verdict.verdict",
             verdict["verdict"]["enum"]),
            ("schema/results.schema.json counts",
             results["properties"]["counts"]["propertyNames"]["enum"]),
        ],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--casebook", required=True)
    parser.add_argument("--root", required=True, type=pathlib.Path)
    args = parser.parse_args()
    described = json.loads(subprocess.run(
        [args.casebook, "describe", "--json"], check=True,
        capture_output=True, text=True).stdout)
    problems = []
    for what, places in schema_lists(args.root).items():
        names = [entry["name"] for entry in described[what]]
        if what == "backends":  # a program's own backends are its own
            names = [entry["name"] for entry in described[what]
                     if entry["built_in"]]
        for where, listed in places:
            if listed != names:
                problems.append(f"{where}: {listed}, but casebook describe "
                                f"--json lists the {what} {names}")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"backends, families and verdicts agree in "
          f"{sum(len(p) for p in schema_lists(args.root).values())} lists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
