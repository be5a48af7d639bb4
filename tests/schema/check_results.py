#!/usr/bin/python3
"""schema/results.schema.json against what `casebook run --json` writes.

Run by ctest (schema.results) with Debian's python3-jsonschema: runs the
end-to-end cases (tests/data/e2e: every verdict but NOT RUN and INTERNAL,
absent GPU backends' SKIPs among them), validates the document against the
schema, and checks that its counts are its records' and its exit code the
command's; the schema's verdict and family lists are those `casebook
describe --json` gives. Exit 1 with what disagrees.
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys
import tempfile

import jsonschema


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--casebook", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    schema = json.loads((root / "schema/results.schema.json").read_text())
    with tempfile.TemporaryDirectory() as scratch:
        results = pathlib.Path(scratch) / "results.json"
        run = subprocess.run([args.casebook, "run", "--quiet", "--evidence", "",
                              "--json", str(results),
                              str(root / "tests/data/e2e")],
                             capture_output=True, text=True, check=False)
        if not results.exists():
            print(f"no results written; exit {run.returncode}\n{run.stderr}")
            return 1
        document = json.loads(results.read_text())
    problems = []
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as error:
        problems.append(f"invalid against the schema: {error.message} at "
                        f"{list(error.absolute_path)}")
    counted = collections.Counter(v["verdict"] for v in document["verdicts"])
    if dict(counted) != document["counts"]:
        problems.append(f"counts {document['counts']} but records {counted}")
    if document["exit_code"] != run.returncode:
        problems.append(f"exit_code {document['exit_code']}, the command "
                        f"exited {run.returncode}")
    for verdict in ("PASS", "FAIL", "XFAIL", "XPASS", "SKIP", "ERROR",
                    "TIMEOUT"):
        if verdict not in counted:
            problems.append(f"no {verdict} among the records: the cases no "
                            "longer show every verdict")
    words = json.loads(subprocess.run([args.casebook, "describe", "--json"],
                                      capture_output=True, text=True,
                                      check=True).stdout)
    record = schema["definitions"]["verdict"]["properties"]
    for kind, key in (("verdicts", "verdict"), ("families", "family")):
        described = [word["name"] for word in words[kind]]
        if described != record[key]["enum"]:
            problems.append(f"the schema's {key} list {record[key]['enum']} "
                            f"is not `casebook describe`'s {described}")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"results of {len(document['verdicts'])} runs valid: {counted}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
