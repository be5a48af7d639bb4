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
from dataclasses import dataclass, field


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


def parse_options():
    """The command line of the module's contract."""
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
    return ap.parse_args()


@dataclass
class Tally:
    """The verdicts joined back to the manifest's entries: a row per entry
    (the columns of --report), the cases by verdict, the grouped reasons of
    samples not expressible (samples, and the entries of each), the entries
    with no case by their commonest reason, the FAIL/ERROR patterns with an
    example of each, and every case or entry not as --expect-fail wants."""
    rows: list = field(default_factory=list)
    case_counts: collections.Counter = field(default_factory=collections.Counter)
    reasons: collections.Counter = field(default_factory=collections.Counter)
    reason_entries: collections.defaultdict = field(
        default_factory=lambda: collections.defaultdict(set))
    unexpressed: collections.Counter = field(default_factory=collections.Counter)
    patterns: collections.Counter = field(default_factory=collections.Counter)
    pattern_example: dict = field(default_factory=dict)
    failed_expectation: list = field(default_factory=list)


def tally_entries(manifest, verdicts, expect_fail):
    """The Tally of every manifest entry, in the manifest's order."""
    tally = Tally()
    for e in manifest["entries"]:
        c = tally_cases(tally, e, verdicts, expect_fail)
        for r in e["not_expressible"]:
            g = reason_group(r["reason"])
            tally.reasons[g] += 1
            tally.reason_entries[g].add(e["entry"])
        common = collections.Counter(reason_group(r["reason"]) for r in e["not_expressible"])
        reason = common.most_common(1)[0][0] if common else ""
        if not e["cases"]:
            tally.unexpressed[reason] += 1
        tally.rows.append({
            "entry": e["entry"], "expressible": "yes" if e["cases"] else "no",
            "reason": reason, "cases": len(e["cases"]), "PASS": c["PASS"],
            "FAIL": c["FAIL"], "ERROR": sum(v for k, v in c.items() if k not in ("PASS", "FAIL")),
            "not_expressible": len(e["not_expressible"])})
        if e["entry"] in expect_fail and not e["cases"]:
            tally.failed_expectation.append(f"{e['entry']}: no case to FAIL")
    return tally


def tally_cases(tally, e, verdicts, expect_fail):
    """The verdicts of entry e's cases counted (returned, and into tally),
    with their patterns and the cases not as --expect-fail wants."""
    c = collections.Counter()
    for case in e["cases"]:
        verdict, message = verdicts.get(case["id"], ("NOT RUN", "no result"))
        c[verdict] += 1
        tally.case_counts[verdict] += 1
        if verdict != "PASS":
            p = pattern(message)
            tally.patterns[(verdict, p)] += 1
            tally.pattern_example.setdefault((verdict, p), f"{case['id']}: {message}")
        want = "FAIL" if e["entry"] in expect_fail else "PASS"
        if verdict != want:
            tally.failed_expectation.append(f"{case['id']}: {verdict} (expected {want}) {message}")
    return c


def count_lines(options, rows, case_counts):
    """The printed counts: entries by how their cases pass, cases by verdict."""
    expressible = [r for r in rows if r["cases"]]
    every = [r for r in expressible if r["PASS"] == r["cases"]]
    some = [r for r in expressible if 0 < r["PASS"] < r["cases"]]
    none = [r for r in expressible if r["PASS"] == 0]
    return [
        f"options: {json.dumps(options)}",
        f"entries: {len(rows)}",
        f"expressible (at least one case): {len(expressible)}",
        f"entries with every case passing: {len(every)}",
        f"entries with some but not all cases passing: {len(some)}",
        f"entries with a passing case: {len(every) + len(some)}",
        f"expressible entries with no passing case: {len(none)}",
        f"cases: {sum(case_counts.values())}; " + ", ".join(
            f"{k} {v}" for k, v in sorted(case_counts.items(), key=lambda kv: -kv[1])),
    ]


def reason_lines(tally, n_unexpressed):
    """The reasons samples were not expressible, grouped, and the entries
    with no case by their commonest reason."""
    lines = ["", "samples not expressible, by reason (samples, entries):"]
    for g, v in tally.reasons.most_common():
        ents = sorted(tally.reason_entries[g])
        lines.append(f"  {v:5d} {len(ents):4d}  {g}  [{', '.join(ents[:6])}{', ...' if len(ents) > 6 else ''}]")
    lines.append("")
    lines.append(f"entries with no case ({n_unexpressed}), by their commonest reason:")
    for g, v in tally.unexpressed.most_common():
        lines.append(f"  {v:4d}  {g}")
    return lines


def pattern_lines(tally):
    """The ten commonest FAIL/ERROR patterns with an example each, and the
    entries with a case not passing; none when every case passed."""
    if not tally.patterns:
        return []
    lines = ["", "FAIL/ERROR patterns (cases):"]
    for (verdict, p), v in tally.patterns.most_common(10):
        lines.append(f"  {v:4d}  {verdict} {p}")
        lines.append(f"        e.g. {tally.pattern_example[(verdict, p)][:220]}")
    lines.append("")
    lines.append("entries with a non-PASS case: " + ", ".join(
        r["entry"] for r in tally.rows if r["cases"] and r["PASS"] < r["cases"]))
    return lines


def per_entry_lines(rows):
    """--per-entry: a line per entry, its cases by verdict and why samples
    were not expressible."""
    lines = ["", "per entry (cases: PASS FAIL ERROR; not expressible samples: commonest reason):"]
    for r in rows:
        lines.append(f"  {r['entry']}: {r['cases']} cases: {r['PASS']} {r['FAIL']} {r['ERROR']}"
                     + (f"; {r['not_expressible']} not expressible: {r['reason']}"
                        if r["not_expressible"] else ""))
    return lines


def write_report(path, rows):
    """--report: the rows as CSV."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def write_markdown(path, text, rows):
    """--markdown: the printed text, then the rows as a table."""
    with open(path, "w") as f:
        f.write("# OpInfo corpus\n\n```\n" + text + "\n```\n\n")
        f.write("| " + " | ".join(rows[0].keys()) + " |\n")
        f.write("|" + "---|" * len(rows[0]) + "\n")
        for r in rows:
            f.write("| " + " | ".join(str(v).replace("|", "\\|") for v in r.values()) + " |\n")


def as_expected(tally, expect_fail):
    """--expect-all-pass: 0, saying so, when every case is as expected and
    there is a case; else 1, with what is not."""
    if tally.failed_expectation or not any(r["cases"] for r in tally.rows):
        print("\nnot as expected:\n  " + "\n  ".join(tally.failed_expectation or ["no case at all"]))
        return 1
    print("\nas expected: every case PASS" + (
        f", except {', '.join(expect_fail)}: every case FAIL" if expect_fail else ""))
    return 0


def main():
    opts = parse_options()
    with open(os.path.join(opts.corpus, "manifest.json")) as f:
        manifest = json.load(f)
    results = opts.results or os.path.join(opts.corpus, "results.json")
    if not opts.no_run:
        run_casebook(opts.casebook, os.path.join(opts.corpus, "cases"), opts.jobs, results)
    tally = tally_entries(manifest, read_results(results), opts.expect_fail)
    rows = tally.rows
    n_unexpressed = sum(1 for r in rows if not r["cases"])
    lines = (count_lines(manifest["options"], rows, tally.case_counts)
             + reason_lines(tally, n_unexpressed) + pattern_lines(tally)
             + (per_entry_lines(rows) if opts.per_entry else []))
    text = "\n".join(lines)
    print(text)
    if opts.report:
        write_report(opts.report, rows)
    if opts.markdown:
        write_markdown(opts.markdown, text, rows)
    return as_expected(tally, opts.expect_fail) if opts.expect_all_pass else 0


if __name__ == "__main__":
    sys.exit(main())
