#!/usr/bin/python3
"""Run an OpInfo corpus with casebook and report per OpInfo entry.

Contract
--------
    run_opinfo_corpus.py CORPUS --casebook PATH [-j 2] [--results FILE]
                         [--no-run] [--report FILE.csv] [--markdown FILE.md]
                         [--expect-all-pass] [--expect-fail ENTRY] [--per-entry]

CORPUS is a folder written by make_opinfo_cases.py (CORPUS/cases/,
CORPUS/manifest.json). Runs `casebook run CORPUS/cases --backend cpu
--jobs J --json FILE --evidence '' --quiet --brief` (FILE defaults to
CORPUS/results.json; --no-run reads an existing one), joins each verdict of
those results (schema/results.schema.json) back to its OpInfo entry through
the manifest, and prints:

  entries, expressible (entries with at least one case), entries with every
  case passing, with some but not all passing, with a passing case (the two
  together), with none passing; cases, PASS, FAIL, ERROR (other verdicts
  as their names); the reasons samples were not expressible, grouped, with
  the samples and entries of each; the entries with no case at all by
  their commonest reason; the commonest FAIL/ERROR patterns (the first
  message with numbers replaced by N), each with an example.

--per-entry prints the same one line per entry. --report writes a CSV, one row per entry: entry, expressible (yes/no),
reason (the commonest reason a sample was not written, if any), cases,
PASS, FAIL, ERROR, not_expressible (samples). --markdown writes the same
as a Markdown table with the counts above it.

Exit status: 0; with --expect-all-pass, 1 unless every case outside the
--expect-fail entries PASSes and every case of those entries FAILs (what
the ctest test asserts); 2 when casebook could not be run or wrote no
results.
"""

import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys


def run_casebook(casebook, cases, jobs, results):
    cmd = [casebook, "run", cases, "--backend", "cpu", "--jobs", str(jobs),
           "--json", results, "--evidence", "", "--quiet", "--brief"]
    print("+ " + " ".join(c if c else "''" for c in cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    print("casebook: exit %d; %s" % (proc.returncode, tail[0] if tail else "(no output)"))
    if proc.returncode == 2 or not os.path.exists(results):
        print(proc.stdout[-4000:])
        sys.exit(2)


def read_results(path):
    """{case id: (verdict, first message)} for the cpu backend, from
    `casebook run --json`'s results."""
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    if document.get("casebook_results") != 1:
        sys.exit("%s: not casebook results of format 1" % path)
    return {v["case"]: (v["verdict"], v.get("message", ""))
            for v in document["verdicts"] if v["backend"] == "cpu"}


def reason_group(reason):
    """A sample's reason without its particulars (the op, the exception)."""
    r = re.sub(r"\(aten::[^)]*\)", "(aten::...)", reason)
    r = re.sub(r"output of aten::\S+:", "an intermediate output:", r)
    r = re.sub(r"input `[^`]*`", "an input", r)
    r = re.sub(r"complex dtype torch\.complex\d+", "complex dtype", r)
    return r


def pattern(message):
    m = re.sub(r"^(FAIL|ERROR) \S+: ", "", message)
    m = re.sub(r"`[^`]*`", "`X`", m)
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", m)[:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--casebook", required=True)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--results")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("--markdown")
    ap.add_argument("--expect-all-pass", action="store_true")
    ap.add_argument("--expect-fail", action="append", default=[])
    ap.add_argument("--per-entry", action="store_true",
                    help="print one line per entry: its cases and verdicts, or why it has none")
    opts = ap.parse_args()

    with open(os.path.join(opts.corpus, "manifest.json")) as f:
        manifest = json.load(f)
    results = opts.results or os.path.join(opts.corpus, "results.json")
    if not opts.no_run:
        run_casebook(opts.casebook, os.path.join(opts.corpus, "cases"), opts.jobs, results)
    verdicts = read_results(results)

    rows = []
    case_counts = collections.Counter()
    reasons = collections.Counter()
    reason_entries = collections.defaultdict(set)
    unexpressed = collections.Counter()
    patterns = collections.Counter()
    pattern_example = {}
    failed_expectation = []
    for e in manifest["entries"]:
        c = collections.Counter()
        for case in e["cases"]:
            verdict, message = verdicts.get(case["id"], ("NOT RUN", "no result"))
            c[verdict] += 1
            case_counts[verdict] += 1
            if verdict != "PASS":
                p = pattern(message)
                patterns[(verdict, p)] += 1
                pattern_example.setdefault((verdict, p), f"{case['id']}: {message}")
            want = "FAIL" if e["entry"] in opts.expect_fail else "PASS"
            if verdict != want:
                failed_expectation.append(f"{case['id']}: {verdict} (expected {want}) {message}")
        for r in e["not_expressible"]:
            g = reason_group(r["reason"])
            reasons[g] += 1
            reason_entries[g].add(e["entry"])
        common = collections.Counter(reason_group(r["reason"]) for r in e["not_expressible"])
        reason = common.most_common(1)[0][0] if common else ""
        if not e["cases"]:
            unexpressed[reason] += 1
        rows.append({"entry": e["entry"], "expressible": "yes" if e["cases"] else "no",
                     "reason": reason, "cases": len(e["cases"]), "PASS": c["PASS"],
                     "FAIL": c["FAIL"], "ERROR": sum(v for k, v in c.items() if k not in ("PASS", "FAIL")),
                     "not_expressible": len(e["not_expressible"])})
        if opts.expect_fail and e["entry"] in opts.expect_fail and not e["cases"]:
            failed_expectation.append(f"{e['entry']}: no case to FAIL")

    n = len(rows)
    expressible = [r for r in rows if r["cases"]]
    every = [r for r in expressible if r["PASS"] == r["cases"]]
    some = [r for r in expressible if 0 < r["PASS"] < r["cases"]]
    none = [r for r in expressible if r["PASS"] == 0]
    lines = [
        f"options: {json.dumps(manifest['options'])}",
        f"entries: {n}",
        f"expressible (at least one case): {len(expressible)}",
        f"entries with every case passing: {len(every)}",
        f"entries with some but not all cases passing: {len(some)}",
        f"entries with a passing case: {len(every) + len(some)}",
        f"expressible entries with no passing case: {len(none)}",
        f"cases: {sum(case_counts.values())}; " + ", ".join(
            f"{k} {v}" for k, v in sorted(case_counts.items(), key=lambda kv: -kv[1])),
        "",
        "samples not expressible, by reason (samples, entries):",
    ]
    for g, v in reasons.most_common():
        ents = sorted(reason_entries[g])
        lines.append(f"  {v:5d} {len(ents):4d}  {g}  [{', '.join(ents[:6])}{', ...' if len(ents) > 6 else ''}]")
    lines.append("")
    lines.append(f"entries with no case ({n - len(expressible)}), by their commonest reason:")
    for g, v in unexpressed.most_common():
        lines.append(f"  {v:4d}  {g}")
    if patterns:
        lines.append("")
        lines.append("FAIL/ERROR patterns (cases):")
        for (verdict, p), v in patterns.most_common(10):
            lines.append(f"  {v:4d}  {verdict} {p}")
            lines.append(f"        e.g. {pattern_example[(verdict, p)][:220]}")
        lines.append("")
        lines.append("entries with a non-PASS case: " + ", ".join(
            r["entry"] for r in expressible if r["PASS"] < r["cases"]))
    if opts.per_entry:
        lines.append("")
        lines.append("per entry (cases: PASS FAIL ERROR; not expressible samples: commonest reason):")
        for r in rows:
            lines.append(f"  {r['entry']}: {r['cases']} cases: {r['PASS']} {r['FAIL']} {r['ERROR']}"
                         + (f"; {r['not_expressible']} not expressible: {r['reason']}"
                            if r["not_expressible"] else ""))
    text = "\n".join(lines)
    print(text)

    if opts.report:
        with open(opts.report, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write("# OpInfo corpus\n\n```\n" + text + "\n```\n\n")
            f.write("| " + " | ".join(rows[0].keys()) + " |\n")
            f.write("|" + "---|" * len(rows[0]) + "\n")
            for r in rows:
                f.write("| " + " | ".join(str(v).replace("|", "\\|") for v in r.values()) + " |\n")
    if opts.expect_all_pass:
        if failed_expectation or not expressible:
            print("\nnot as expected:\n  " + "\n  ".join(failed_expectation or ["no case at all"]))
            return 1
        print("\nas expected: every case PASS" + (
            f", except {', '.join(opts.expect_fail)}: every case FAIL" if opts.expect_fail else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
