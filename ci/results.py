#!/usr/bin/env python3
"""What CI scripts ask of a run's results, read from `casebook run --json
FILE` (schema/results.schema.json), never from the table's text.

  results.py FILE ran BACKEND...       how many runs on those backends ran
                                       (every verdict but SKIP and NOT RUN)
  results.py FILE verdict CASE BACKEND the verdict of CASE on BACKEND, with
                                       its family: "FAIL index_out_of_range"
                                       ("" when the case did not run there)
  results.py FILE env KEY              the environment's KEY ("cuda":
                                       "absent: no CUDA device: ..."); ""
                                       when the run did not say it

Exit 2 when FILE is missing, is not results of format 1, or the question is
unknown. Python's standard library only.
"""
import json
import sys

FORMAT = 1


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as file:
            document = json.load(file)
    except (OSError, ValueError) as error:
        print(f"results.py: {argv[1]}: {error}", file=sys.stderr)
        return 2
    if not isinstance(document, dict) or \
            document.get("casebook_results") != FORMAT:
        print(f"results.py: {argv[1]}: not casebook results of format "
              f"{FORMAT}", file=sys.stderr)
        return 2
    verdicts = document.get("verdicts", [])
    question, rest = argv[2], argv[3:]
    if question == "ran" and rest:
        print(sum(1 for v in verdicts if v["backend"] in rest
                  and v["verdict"] not in ("SKIP", "NOT RUN")))
        return 0
    if question == "verdict" and len(rest) == 2:
        for v in verdicts:
            if v["case"] == rest[0] and v["backend"] == rest[1]:
                print(" ".join(filter(None, [v["verdict"], v.get("family")])))
                return 0
        print("")
        return 0
    if question == "env" and len(rest) == 1:
        print(document.get("environment", {}).get(rest[0], ""))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
