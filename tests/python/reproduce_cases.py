"""Issue 48, part 1: the report's Python reproduction runs, for every shipped
case, under the Python torch that is here, and ends as casebook's run did.

For each case file under SOURCE_DIR/cases: `casebook report FILE --backend
cpu --bundle DIR`, then `PYTHON reproduce.py` in DIR. Its exit status must
be casebook's verdict of the reported run: 0 for a PASS; for a PASS that is
the error its case expects, that error raised (exit 1) after the line that
says it is the expected one; 1 for a FAIL, XFAIL or ERROR. A script that
calls nothing exits 3 (report/python_repro.h): only the cases listed in
NO_PUBLIC_CALL may, and those must. A case that does not run on the CPU
(the report says nothing ran), one whose origin's failure this machine
does not show, and those listed in NO_REPORT are named, not reproduced.

usage: reproduce_cases.py CASEBOOK SOURCE_DIR [PYTHON]
exit: 0 all agree; 1 a disagreement (each printed); 77 PYTHON lacks torch
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import threading

casebook, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
python = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/python3"

# What PyTorch's Python has no call for: casebook's own ops (its kernels and
# its checks of class indices) and cases of several ops (`steps`).
NO_PUBLIC_CALL_OPS = ("kernels.", "validate.")
NO_PUBLIC_CALL_CASES = {
    "cases/steps/log_softmax_nll_loss.yaml",
    "cases/steps/normalize_gradients.yaml",
    "cases/steps/normalize.yaml",
    "cases/steps/index_columns.yaml",
}
EXPECTED_ERROR = "the call raises the error the case expects"
# Whose report casebook does not write, and why (each printed): a report
# this test cannot judge a reproduction by, never skipped unsaid.
NO_REPORT = {
    # The chosen neighbour (label_limits[C]) is carried as a case file that
    # does not load (`expect.cpu` an error with `reference: torch`).
    "cases/kernels/embedding/vs_torch/boundaries.yaml":
        "the bundle's case file does not load",
}
NOT_REPRODUCED = "does not reproduce the failure its origin records"


# A script server per worker thread (script_server.py: torch imported once,
# a fork per script).
servers = threading.local()
all_servers = []


def run_script(bundle):
    """reproduce.py in BUNDLE, as `python reproduce.py` there: (exit, output)."""
    if not hasattr(servers, "process"):
        servers.process = subprocess.Popen(
            [python, os.path.join(os.path.dirname(__file__), "script_server.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        all_servers.append(servers.process)
    servers.process.stdin.write(bundle + "\n")
    servers.process.stdin.flush()
    returncode = int(servers.process.stdout.readline())
    with open(os.path.join(bundle, "output.txt"), encoding="utf-8",
              errors="replace") as output:
        return returncode, output.read()


def no_public_call(relative, text):
    op = re.search(r"^op: *(\S+)", text, re.M)
    return relative in NO_PUBLIC_CALL_CASES or (
        op is not None and op.group(1).startswith(NO_PUBLIC_CALL_OPS))


def check(relative):
    """One case: None where the script agrees, else what differs."""
    with open(os.path.join(source, relative), encoding="utf-8") as file:
        text = file.read()
    with tempfile.TemporaryDirectory() as work:
        bundle = os.path.join(work, "bundle")
        report = subprocess.run(
            [casebook, "report", relative, "--backend", "cpu", "--bundle",
             bundle], cwd=source, capture_output=True, text=True, timeout=300)
        said = re.search(r"^casebook report: \S+ on cpu \((\w+)\)",
                         report.stderr, re.M)
        if report.returncode != 0 or said is None:
            if "nothing ran to report" in report.stderr:
                return None, f"{relative}: no run on the CPU"
            # A failure of its origin that this machine does not show
            # (matmul_bfloat16_ones_1024 passes on an AVX512 CPU): no
            # request, so no reproduction.
            if report.returncode == 1 and NOT_REPRODUCED in report.stderr:
                return None, f"{relative}: {NOT_REPRODUCED} here"
            if NO_REPORT.get(relative, "\0") in report.stderr:
                return None, f"{relative}: {NO_REPORT[relative]} (known)"
            return (f"{relative}: casebook report exited "
                    f"{report.returncode}:\n{report.stderr}"), None
        verdict = said.group(1)
        expected_error = "Verdict: PASS: the run raised the error" in \
            report.stdout
        returncode, output = run_script(bundle)
    listed = no_public_call(relative, text)
    if returncode == 3 or listed:
        if returncode == 3 and listed:
            return None, None
        return (f"{relative}: exit {returncode}, and the case is "
                f"{'' if listed else 'not '}listed as having no public "
                f"PyTorch call:\n{output}"), None
    if verdict == "PASS" and expected_error:
        agrees = returncode == 1 and EXPECTED_ERROR in output
    elif verdict == "PASS":
        agrees = returncode == 0
    else:
        agrees = returncode == 1 and EXPECTED_ERROR not in output
    if agrees:
        return None, None
    return (f"{relative}: casebook says {verdict}"
            f"{' (the expected error)' if expected_error else ''}, "
            f"reproduce.py exits {returncode}:\n{output}"), None


def main():
    probe = subprocess.run([python, "-c", "import numpy, torch"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        print(f"SKIP: {python} lacks torch or numpy")
        return 77
    cases = sorted(
        os.path.relpath(os.path.join(folder, name), source)
        for folder, _, names in os.walk(os.path.join(source, "cases"))
        for name in names if name.endswith(".yaml"))
    workers = int(os.environ.get("CASEBOOK_TEST_JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(check, cases))
    for server in all_servers:
        server.stdin.close()
        server.wait()
    problems = [problem for problem, _ in results if problem]
    notes = [note for _, note in results if note]
    for note in notes:
        print("not reproduced here:", note)
    for problem in problems:
        print("DIFFERS:", problem)
    print(f"{len(cases)} cases, {len(problems)} differ, {len(notes)} not "
          f"reproduced here ({python})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
