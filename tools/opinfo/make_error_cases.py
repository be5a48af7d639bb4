#!/usr/bin/python3
"""Turn PyTorch's OpInfo error inputs into casebook cases that expect an error.

Contract
--------
Run with a Python whose torch matches the LibTorch casebook runs (Debian's
/usr/bin/python3 with python3-torch 1.13.1 for the `cpu` build):

    make_error_cases.py OUT [--entries NAME ...] [--casebook PATH] [-j J] [--no-run]

For every entry of op_db with error inputs (`op.error_inputs("cpu")`, each an
ErrorInput(sample_input, error_type, error_regex): what PyTorch's test_errors
asserts the op refuses), or only the --entries named, each error input is
run once in PyTorch (its own tensors, in the dtypes it comes with: an error
may rest on aliasing that copies would lose),
under make_opinfo_cases.Recorder extended to keep the ATen call that raised.
The case is that call: `op: aten::<name>[.<overload>]`, its tensor arguments
as exact `inputs` as they were when it was called, the others as `args`,
`backends: [cpu]` and `expect: {cpu: {error: F, message: M}}`. M is PyTorch's
error_regex where it matches the message PyTorch raised (an RE2-compatible
pattern), else the message's first line, escaped. F is the family casebook's
classifier gives the message: each case is first written with the default
family (`contract`, no message) into OUT/probe/, run, and the family
casebook reports for its error read from the run's JSON; then written with
that family and M into OUT/cases/<entry>/<k>.yaml (k: the error input's
index) and run again (OUT/results.json): every case must PASS.

Not written (one reason per error input, in OUT/manifest.json): no error in
PyTorch, an error raised before any ATen call (in Python code, by the
Python binding's argument parser, or in C++ by a CompositeImplicitAutograd
operator, which the dispatch mode never sees), an error raised in Python after ATen
calls that all returned (a check of their results), an ATen call's error
turned into another by Python, an argument casebook cannot write, casebook's
LibTorch returning outputs for the call (no error), or the probe's other
verdicts (ERROR, INTERNAL) with their first line.

Then prints, and writes as OUT/report.md, the confusion table: rows the
PyTorch error type and the category the message's text gives (index or label
out of range, dimension argument out of range, empty reduction or zero
size, shape mismatch, dtype not supported, device mismatch, non-finite value
present, other), columns the family casebook gave; and per family the
messages whose family looks wrong for the user. --no-run writes the probe
cases only (no family is known without a run) and the manifest.
Exit status 0 unless OUT cannot be written or casebook cannot be run.
"""

import argparse
import collections
import json
import linecache
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_opinfo_cases as opinfo  # noqa: E402

import torch  # noqa: E402

PROBE_FAMILY = "contract"


class ErrorRecorder(opinfo.Recorder):
    """The Recorder, keeping also the ATen call that raised: its OpOverload,
    copies of its arguments as they were when it was called, and the
    exception."""

    def __init__(self, known_ids):
        super().__init__(known_ids)
        self.raised = None  # (func, args, kwargs, exception)
        self.aliased = False  # whether the raising call writes a shared tensor

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        before = (copy_args(args), copy_args(kwargs))
        try:
            return super().__torch_dispatch__(func, types, args, kwargs)
        except Exception as e:
            if self.raised is None:
                self.raised = (func, before[0], before[1], e)
                self.aliased = written_aliased(func, args, kwargs)
            raise


def written_aliased(func, args, kwargs):
    """Whether a tensor the call writes (`Tensor(a!)`: an `out`, an in-place
    self) overlaps itself (an expanded view) or shares memory with another
    argument: what a case's inputs, each its own tensor, cannot state."""
    bound = opinfo.Schema(func).bind(args, kwargs)
    written = [bound[n] for n in opinfo.Schema(func).mutable
               if isinstance(bound.get(n), torch.Tensor)]
    tensors = list(opinfo.tensors_read(args, kwargs))
    for w in written:
        if torch._debug_has_internal_overlap(w) == 1:
            return True
        # w itself is one argument; the same tensor passed again is another.
        if w.numel() and sum(1 for u in tensors if u.numel() and opinfo.same_storage(w, u)) > 1:
            return True
    return False


def copy_args(x):
    """x with every tensor in it cloned (lists, tuples and dicts walked)."""
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, (list, tuple)):
        return type(x)(copy_args(y) for y in x)
    if isinstance(x, dict):
        return {k: copy_args(v) for k, v in x.items()}
    return x


def first_line(text):
    return str(text).strip().splitlines()[0] if str(text).strip() else ""


def raised_in_python_code(exc):
    """Whether the innermost frame of exc's traceback is a `raise` statement
    (Python code raised it), not a call into a binding that raised."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
    where = f"{os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
    python_only = isinstance(exc, (AssertionError, AttributeError, NameError, KeyError))
    return where if python_only or line.startswith(("raise", "assert")) else None


def record_error(op, sample):
    """Run the error input under an ErrorRecorder: (recorder, exception), or
    NotExpressible (no error, or an error no ATen call raised)."""
    # The sample itself, not copies: an error input may rest on aliasing (an
    # `out` that overlaps an input), which copies lose. Each is run once.
    inp, args, kwargs = sample.input, list(sample.args), dict(sample.kwargs)
    named = (opinfo.leaves(inp, "input", []) + opinfo.leaves(args, "arg", []) +
             opinfo.leaves(kwargs, "", []))
    rec = ErrorRecorder(id(t) for _, t in named)
    try:
        with rec:
            op(inp, *args, **kwargs)
    except Exception as e:
        return rec, e
    raise opinfo.NotExpressible("no error in PyTorch (the error input runs)")


def check_raised_by_aten(rec, exc):
    """NotExpressible unless exc is the error of the ATen call that raised."""
    if rec.raised is None:
        where = raised_in_python_code(exc)
        if rec.calls:
            raise opinfo.NotExpressible(
                f"raised in Python after {len(rec.calls)} ATen call(s) that returned"
                + (f" ({where})" if where else ""))
        if where:
            raise opinfo.NotExpressible(f"raised in Python code before any ATen call ({where})")
        if isinstance(exc, TypeError):
            raise opinfo.NotExpressible(
                "the Python binding refused the arguments (TypeError) before any ATen call")
        raise opinfo.NotExpressible(
            f"{type(exc).__name__} raised in C++ before any ATen call reached the Recorder "
            "(a CompositeImplicitAutograd operator's check, which the dispatch mode does "
            "not see, or the binding's)")
    if rec.aliased:
        raise opinfo.NotExpressible(
            "a tensor the call writes shares memory (an `out` overlapping an input, "
            "or itself): which a case's inputs, each its own tensor, cannot state")
    if rec.raised[3] is not exc:
        raise opinfo.NotExpressible(
            f"the ATen call's {type(rec.raised[3]).__name__} turned into "
            f"{type(exc).__name__} by Python")


def message_pattern(error_regex, message):
    """(PyTorch's error_regex where it is not empty and finds the message,
    else the message's first line escaped; whether error_regex was used)."""
    if error_regex:
        try:
            if re.search(error_regex, message):
                return error_regex, True
        except re.error:
            pass
    return re.escape(first_line(message)[:200]), False


def one_op_case(entry, k, func, args, kwargs, writer):
    """The case description (without `expect`) of the raising call, and its
    op name; NotExpressible for an argument casebook cannot write."""
    call = opinfo.describe_call(func, args, kwargs, opinfo.the_tensor_itself, True)
    inputs = {}
    for name, v in call.inputs:
        if isinstance(v, list):
            if not v:
                raise opinfo.NotExpressible(
                    "an empty Tensor[] list (a case names each element as an input)")
            if any(t is None for t in v):
                raise opinfo.NotExpressible("a null in a Tensor?[] list of the raising call")
            inputs.update((f"{name}[{j}]", t) for j, t in enumerate(v))
        else:
            inputs[name] = v
    name = opinfo.op_name(call.func)
    case = {"casebook": 1,
            "summary": f"OpInfo {entry}, error input {k}: {name} refuses it",
            "op": name, "backends": ["cpu"]}
    if call.args:
        case["args"] = dict(call.args)
    case["inputs"] = {n: writer.tensor(t) for n, t in inputs.items()}
    return case, name


# ---------------------------------------------------------------- describing

def describe_error_input(entry, k, op, ei, writer):
    """The record of error input k: its PyTorch error and, where it can be
    written, its case description (`case`, without `expect`), or `reason`."""
    record = {"entry": entry, "index": k, "error_type": ei.error_type.__name__,
              "error_regex": ei.error_regex}
    try:
        rec, exc = record_error(op, ei.sample_input)
        record["raised"] = type(exc).__name__
        record["message"] = first_line(exc)[:500]
        check_raised_by_aten(rec, exc)
        func, args, kwargs, _ = rec.raised
        case, name = one_op_case(entry, k, func, args, kwargs, writer)
    except opinfo.NotExpressible as e:
        record["reason"] = str(e)
        return record
    except Exception as e:  # a generator limitation, said as such
        record["reason"] = f"generator cannot write it: {type(e).__name__}: {e}"[:200]
        return record
    pattern, regex_used = message_pattern(ei.error_regex, str(exc))
    record.update({"op": name, "pattern": pattern, "regex_used": regex_used,
                   "nonfinite_input": any(has_nonfinite(t) for t in tensor_leaves(args, kwargs)),
                   "case": case})
    return record


def has_nonfinite(t):
    """Whether a floating or complex tensor holds a NaN or an infinity (False
    where torch cannot tell: more than 64 dims)."""
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        return False
    try:
        return bool((~torch.isfinite(t)).any())
    except RuntimeError:
        return False


def tensor_leaves(args, kwargs):
    return [t for t in opinfo.tensors_read(args, kwargs)]


def error_inputs_of(op):
    """The entry's CPU error inputs, made from seed 0 (none when it has no
    error_inputs_func); an exception making them is the caller's."""
    if op.error_inputs_func is None:
        return []
    torch.manual_seed(0)
    return list(op.error_inputs("cpu"))


def describe_entries(entries, writer):
    """A record per error input of each entry (an entry whose error inputs
    cannot be made: one record with the reason)."""
    records = []
    for op in entries:
        entry = opinfo.entry_name(op)
        try:
            eis = error_inputs_of(op)
        except Exception as e:
            records.append({"entry": entry, "index": None,
                            "reason": f"error inputs cannot be made: {type(e).__name__}"})
            continue
        for k, ei in enumerate(eis):
            records.append(describe_error_input(entry, k, op, ei, writer))
    return records


# ---------------------------------------------------------------- casebook

def case_path(root, record):
    return os.path.join(root, "cases", record["entry"], f"{record['index']}.json")


def write_cases(casebook, root, records, expect_of):
    """Each record with a case written as root/cases/<entry>/<k>.yaml by
    casebook (`casebook new --from-json`), its `expect` given by
    expect_of(record); a description casebook refuses becomes the record's
    reason."""
    described = []
    for r in records:
        if "case" not in r or "reason" in r:
            continue
        path = case_path(root, r)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(opinfo.case_json(dict(r["case"], expect={"cpu": expect_of(r)})))
        described.append((path, r))
    for start in range(0, len(described), 512):
        new_from_json(casebook, described[start:start + 512])


def new_from_json(casebook, chunk):
    """`casebook new --from-json` on the chunk's descriptions, then each
    removed; a description without its case file gets casebook's words as
    its record's reason. A casebook that aborts (an internal error) is run
    again on each description alone, so that one aborts alone."""
    run = subprocess.run([casebook, "new", "--from-json"] + [p for p, _ in chunk],
                         capture_output=True, text=True)
    if run.returncode not in (0, 1) and len(chunk) > 1:
        for one in chunk:
            new_from_json(casebook, [one])
        return
    for path, r in chunk:
        if os.path.exists(path):
            os.remove(path)
        if not os.path.exists(path[:-len(".json")] + ".yaml"):
            said = [line for line in run.stderr.splitlines() if path in line]
            word = "refused" if run.returncode in (0, 1) else f"aborted ({run.returncode}) on"
            r["reason"] = (f"casebook {word} the description: " +
                           (said[0] if said else run.stderr.strip())).replace(path, "CASE")[:300]


def run_cases(casebook, root, jobs):
    """`casebook run root/cases --backend cpu --json root/results.json`:
    {case id: verdict object}."""
    results = os.path.join(root, "results.json")
    cmd = [casebook, "run", os.path.join(root, "cases"), "--backend", "cpu",
           "--jobs", str(jobs), "--json", results, "--evidence", "", "--quiet", "--brief"]
    print("+ " + " ".join(c if c else "''" for c in cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode == 2 or not os.path.exists(results):
        print(proc.stdout[-4000:])
        sys.exit(f"casebook run failed ({proc.returncode})")
    with open(results, encoding="utf-8") as f:
        document = json.load(f)
    return {v["case"]: v for v in document["verdicts"] if v["backend"] == "cpu"}


def case_id(record):
    return f"{record['entry']}/{record['index']}"


def take_probe_families(records, verdicts):
    """Each probed record's family from its probe verdict: the family of the
    error that came (PASS, or a FAIL naming another family); a run with
    outputs, or any other verdict, becomes the record's reason."""
    for r in records:
        if "case" not in r or "reason" in r:
            continue
        v = verdicts.get(case_id(r))
        if v is None:
            r["reason"] = "the probe case has no verdict"
        elif "got outputs" in v.get("explanation", "") + v.get("message", ""):
            r["reason"] = "casebook's LibTorch returns outputs for the call (no error)"
        elif v["verdict"] in ("PASS", "FAIL") and v.get("family"):
            r["family"] = v["family"]
            r["casebook_message"] = v.get("first_error", "")
        else:
            r["reason"] = f"probe {v['verdict']}: {first_line(v.get('message', ''))}"[:300]


# ---------------------------------------------------------------- the report

# What a message means, by its text (lowered), the first that applies.
CATEGORIES = (
    ("device mismatch", r"same device|device type|on device|devices"),
    ("non-finite value present", r"\bnan\b|\binf\b|non-finite|finite"),
    ("dimension argument out of range", r"dimension out of range|dim(ension)? .*out of range"
     r"|invalid dim|dim .* is out of bounds|dimension specified as"),
    ("empty reduction / zero size", r"non-zero size|zero-size|empty|numel\(\) > 0|0 elements"
     r"|numel\(\) == 0|no elements|at least one|positive length"),
    ("dtype not supported", r"dtype|not implemented for|scalar ?type|integral|floating"
     r"|complex|\bbool|\blong\b|\bfloat\b|double"),
    ("index or label out of range", r"ind(ex|ices)\b.*out of (range|bounds)|out of bounds"
     r"|class values|num_classes|target .*out of"),
    ("argument value out of range", r"out of range|must be (non-?negative|positive|greater"
     r"|>=? ?0)|greater than or equal"),
    ("shape mismatch", r"shape|size|must match|same number|dimension|dimensional|broadcast"
     r"|\bdims?\b|rank|length|-d\b"),
)


# The category each family is right for; a message of another category under
# that family is doubtful for the user (contract: a rejected argument, right
# for any category but an index or label the data holds).
FAMILY_RIGHT_FOR = {
    "index_out_of_range": {"index or label out of range"},
    "device_mismatch": {"device mismatch"},
    "nan_or_inf": {"non-finite value present"},
}


def category(message):
    lower = message.lower()
    for name, pattern in CATEGORIES:
        if re.search(pattern, lower):
            return name
    return "other"


def doubtful(record):
    """Why the family casebook gave looks wrong for the user, or None."""
    family, cat = record["family"], record["category"]
    if family == "nan_or_inf" and not record.get("nonfinite_input"):
        return "no NaN or infinity in the inputs"
    right = FAMILY_RIGHT_FOR.get(family)
    if right is not None and cat not in right:
        return f"the message says {cat}"
    if family == "contract" and cat == "index or label out of range":
        return "the message says an index or label is out of range"
    if family == "contract" and cat == "non-finite value present" and record.get(
            "nonfinite_input"):
        return "a NaN or infinity in the inputs, which the message names"
    return None


def confusion_table(records, row_of):
    """Markdown: a row per row_of(record), a column per family, counts."""
    families = sorted({r["family"] for r in records})
    counts = collections.Counter((row_of(r), r["family"]) for r in records)
    rows = sorted({row_of(r) for r in records})
    lines = ["| | " + " | ".join(families) + " | total |",
             "|---|" + "---|" * (len(families) + 1)]
    for row in rows:
        cells = [str(counts[(row, f)] or "") for f in families]
        lines.append(f"| {row} | " + " | ".join(cells) +
                     f" | {sum(counts[(row, f)] for f in families)} |")
    return "\n".join(lines)


def report(records, verdicts):
    """The Markdown report: counts, verdicts, the two confusion tables and
    the doubtful families."""
    written = [r for r in records if "family" in r and "reason" not in r]
    for r in written:
        r["category"] = category(r.get("message", ""))
        r["doubt"] = doubtful(r)
    reasons = collections.Counter(reason_group(r["reason"]) for r in records if "reason" in r)
    tally = collections.Counter(verdicts[case_id(r)]["verdict"] for r in written
                                if case_id(r) in verdicts)
    probed = sum(1 for r in records if "case" in r and "reason" not in r)
    out = [f"error inputs: {len(records)}; expressible (probe cases written): {probed}; "
           f"cases written: {len(written)}; verdicts: {dict(sorted(tally.items()))}",
           "", "Not written, by reason:", ""]
    out += [f"- {n} {reason}" for reason, n in reasons.most_common()]
    if not written:
        return "\n".join(out + ["", "No case run: no family to tabulate."]) + "\n"
    out += ["", "By PyTorch's error type (rows) and casebook's family (columns):", "",
            confusion_table(written, lambda r: r["raised"]), "",
            "By what the message says (rows) and casebook's family (columns):", "",
            confusion_table(written, lambda r: r["category"]), "",
            "Families that look wrong for the user:", ""]
    return "\n".join(out + doubtful_lines(written)) + "\n"


def doubtful_lines(written):
    """A Markdown item per written case whose family looks wrong, by family."""
    return [f"- {r['family']}: `{case_id(r)}` ({r['op']}, {r['raised']}): {r['doubt']}: "
            f"\"{r['message'][:160]}\""
            for r in sorted((r for r in written if r["doubt"]),
                            key=lambda r: (r["family"], r["entry"], r["index"]))]


def reason_group(reason):
    """A reason without its particulars (file:line, first line of a verdict)."""
    reason = re.sub(r" \([^()]*\.py:\d+\)", "", reason)
    return re.sub(r"^(probe \w+|casebook \w+ the description|casebook aborted \(-?\d+\) on the description):.*", r"\1", reason)


# ---------------------------------------------------------------- main

def parse_options():
    """The command line of the module's contract."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--entries", nargs="*", help="only these OpInfo entries")
    ap.add_argument("--casebook", default=os.environ.get("CASEBOOK", "casebook"),
                    help="the casebook that writes and runs the cases (default: "
                         "$CASEBOOK, else casebook on PATH)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--no-run", action="store_true",
                    help="write the probe cases and the manifest only")
    return ap.parse_args()


def manifest_record(r):
    """A record as the manifest holds it: without its case description."""
    return {k: v for k, v in r.items() if k != "case"}


def main():
    opts = parse_options()
    if shutil.which(opts.casebook) is None:
        sys.exit(f"casebook executable `{opts.casebook}` not found: pass --casebook "
                 "or set $CASEBOOK")
    op_db = opinfo.import_op_db()
    torch.set_num_threads(1)
    opts.every, opts.offset = 1, 0
    entries = opinfo.selected_entries(op_db, opts)
    records = describe_entries(entries, opinfo.Writer(opts.out))
    probe = os.path.join(opts.out, "probe")
    shutil.rmtree(probe, ignore_errors=True)
    write_cases(opts.casebook, probe, records, lambda r: {"error": PROBE_FAMILY})
    verdicts = {}
    if not opts.no_run:
        take_probe_families(records, run_cases(opts.casebook, probe, opts.jobs))
        shutil.rmtree(os.path.join(opts.out, "cases"), ignore_errors=True)
        write_cases(opts.casebook, opts.out, records,
                    lambda r: {"error": r["family"], "message": r["pattern"]})
        verdicts = run_cases(opts.casebook, opts.out, opts.jobs)
        for r in records:
            if case_id(r) in verdicts and "reason" not in r:
                r["verdict"] = verdicts[case_id(r)]["verdict"]
    text = report(records, verdicts)
    with open(os.path.join(opts.out, "report.md"), "w") as f:
        f.write(text)
    with open(os.path.join(opts.out, "manifest.json"), "w") as f:
        json.dump({"options": {"torch": torch.__version__, "run": not opts.no_run},
                   "error_inputs": [manifest_record(r) for r in records]}, f, indent=1)
    print(text)


if __name__ == "__main__":
    main()
