"""Issue 48, parts 1 to 3: from a capture to a report upstream can run.

1. The reproduction of a capture bound `target` first calls
   torch.nn.functional.cross_entropy and raises the IndexError casebook
   saw; a `finite: true` case whose output has a NaN exits 1.
2. The report sets what was seen (origin) beside what ran here; a case that
   does not reproduce its origin's failure is no request (exit 1, nothing
   written), and capture keeps no such case unless asked.
3. An embedding's "index out of range in self" is not cross_entropy's
   "Target 4 is out of bounds.".

usage: report_journeys.py CASEBOOK SOURCE_DIR [PYTHON]
(PYTHON: one with torch and numpy for the reproductions; without, those
steps are skipped and said.)
"""
import os
import re
import subprocess
import sys
import tempfile

casebook, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
python = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/python3"
batch = os.path.join(source, "tests", "data", "capture", "batch.pt")
failures = []


def run(command, cwd):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


def expect(held, what, *shown):
    if not held:
        failures.append(what + "\n" + "\n".join(shown))


def has_line(text, pattern):
    return re.search(pattern, text, re.M) is not None


def capture(work, name, first_error, *extra):
    return run([casebook, "capture", "--op", "torch.cross_entropy",
                "--tensor", f"target={batch}#target",
                "--tensor", f"input={batch}#input", "--name", name,
                "--backend", "cpu", "--origin", f"first_error={first_error}",
                "--origin", "versions.torch=2.13.0", "--origin",
                "backend=cpu", *extra], work)


def torch_here():
    return run([python, "-c", "import numpy, torch"], "/")[0] == 0


def reproduced_capture(work):
    status, out, err = capture(work, "label_4",
                               "IndexError: Target 4 is out of bounds.")
    expect(status == 0, "the reproduced capture exits 0", out, err)
    case = os.path.join(work, "cases", "cross_entropy", "label_4.yaml")
    bundle = os.path.join(work, "bundle")
    status, out, err = run([casebook, "report", case, "--backend", "cpu",
                            "--bundle", bundle], work)
    expect(status == 0, "its report is written", out, err)
    for line in (r"^## Seen and reproduced$",
                 r"^\| PyTorch \| 2\.13\.0 \| LibTorch [0-9.]+",
                 r"^\| backend \| cpu \| cpu \|$",
                 r"^\| failure \| IndexError: Target 4 is out of bounds\. \| "
                 r"index_out_of_range: Target 4 is out of bounds\. \|$",
                 r"^Reproduced: yes, the same failure$",
                 r"^    return torch\.nn\.functional\.cross_entropy\($"):
        expect(has_line(out, line), f"the report has /{line}/", out)
    if not torch_here():
        print(f"SKIP reproduce.py: {python} lacks torch")
        return
    # casebook's run FAILs with it (the case expects nothing yet): the
    # script raises it.
    status, out, err = run([python, "reproduce.py"], bundle)
    expect(status == 1 and has_line(
        err, r"^IndexError: Target 4 is out of bounds\.$"),
           "reproduce.py raises the IndexError casebook saw", out, err)
    print("\n".join(out.splitlines()[-1:] + err.splitlines()[-1:]))


def unreproduced_capture(work):
    # Part 3: the origin is the embedding's error, the case cross_entropy's.
    status, out, err = capture(work, "embedding_error",
                               "IndexError: index out of range in self")
    case = os.path.join(work, "cases", "cross_entropy", "embedding_error.yaml")
    expect(status == 1, "an unreproduced capture exits 1", out, err)
    expect(has_line(out, r"^the capture fails differently from the failure "
                    r"it was captured for \(both are index_out_of_range, but "
                    r"the origin's is `index out of range in self`, the "
                    r"case's `Target # is out of bounds\.`\):$"),
           "capture says the messages differ", out)
    expect(not os.path.exists(case) and has_line(
        err, r"not kept \(removed .*embedding_error\.yaml; "
        r"--keep-unreproduced keeps it\); the tensors are still in "
        r"\S*batch\.pt$"),
           "capture removes the case and says where the tensors are", err)
    # Kept on request; its report is refused.
    status, out, err = capture(work, "embedding_error",
                               "IndexError: index out of range in self",
                               "--keep-unreproduced")
    expect(os.path.exists(case), "--keep-unreproduced keeps it", out, err)
    status, out, err = run([casebook, "report", case, "--backend", "cpu",
                            "--bundle", os.path.join(work, "refused")], work)
    expect(status == 1 and out == "" and not os.path.exists(
        os.path.join(work, "refused")), "the report is refused", out, err)
    expect(has_line(err, r"does not reproduce the failure its origin "
                    r"records, so it is not written up as a request \(no: "),
           "the report says why", err)
    expect(has_line(err, r"^  PyTorch: seen 2\.13\.0; here LibTorch "),
           "the refusal shows the versions side by side", err)


def finite_case(work):
    # Part 1: a property casebook checks fails in the reproduction too.
    with open(os.path.join(work, "log.yaml"), "w", encoding="utf-8") as file:
        file.write("casebook: 1\nsummary: log of a negative is NaN\n"
                   "op: torch.log\ninputs:\n  input: {dtype: float32, "
                   "values: [0.5, 0.25, -0.1, 0.0]}\n"
                   "outputs: {0: {finite: true}}\n")
    bundle = os.path.join(work, "log_bundle")
    status, out, err = run([casebook, "report", "log.yaml", "--backend",
                            "cpu", "--bundle", bundle], work)
    expect(status == 0 and has_line(out, r"^Verdict: FAIL\."),
           "the finite case's report is a FAIL", out, err)
    if not torch_here():
        return
    status, out, err = run([python, "reproduce.py"], bundle)
    expect(status == 1 and has_line(
        out, r"^  output 0: not finite \(`finite: true`\)$"),
           "its reproduce.py fails the finite check", out, err)
    print(out.splitlines()[-2] if out else err)


def main():
    for journey in (reproduced_capture, unreproduced_capture, finite_case):
        with tempfile.TemporaryDirectory() as work:
            journey(work)
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
