"""Issue 34, part 3: the Recorder never loses the batch. It checks the
casebook executable and the op when it is made (not at the failure, hours
later); a capture that cannot run at the failure keeps the tensors and
prints the one command that captures them later, which then works.

usage: keep_batch.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import os
import shutil
import subprocess
import sys
import tempfile

import torch

from casebook_capture import Recorder

cases = sys.argv[1]
casebook = os.environ["CASEBOOK"]

# Made with what cannot work: refused at once, by name.
try:
    Recorder("torch.cross_entropy", "x", cases=cases,
             casebook="/nonexistent/casebook")
    raise AssertionError("a missing executable was accepted")
except FileNotFoundError as error:
    assert "/nonexistent/casebook" in str(error), error
try:
    Recorder("torch.cross_entrop", "x", cases=cases)
    raise AssertionError("an unknown op was accepted")
except ValueError as error:
    assert "torch.cross_entrop" in str(error), error
    assert "torch.cross_entropy" in str(error), error  # the nearest
print("PASS: a missing executable and an unknown op refused when made")

# Issue 49: a name is one file in its op's folder; one that would keep the
# batch or the case outside its folder, or forge a line, is refused when made.
for bad in ("../../escaped", "/tmp/escaped", "a/b", ".hidden", "x\nPASS",
            "x\u2028y", ""):
    try:
        Recorder("torch.cross_entropy", bad, cases=cases)
        raise AssertionError(f"the name {bad!r} was accepted")
    except ValueError as error:
        assert "expected a file name" in str(error), error
print("PASS: names that leave their folder refused when made")

# casebook gone by the time of the failure (an upgrade, a cleaned folder):
# the batch is kept and the command printed.
folder = tempfile.mkdtemp()
try:
    vanishing = os.path.join(folder, "casebook")
    shutil.copy(casebook, vanishing)
    recorder = Recorder("torch.cross_entropy", "kept", cases=cases,
                        casebook=vanishing, backends="cpu")
    os.remove(vanishing)
    target = torch.tensor([0, 4, 1])
    try:
        with recorder.step(18231, target=target) as step:
            step.add(input=torch.randn(3, 4))
            raise IndexError("Target 4 is out of bounds.")
    except IndexError:
        pass
finally:
    shutil.rmtree(folder)
assert not recorder.recorded, recorder.case_file
assert recorder.kept_batch is not None
kept = sorted(os.listdir(recorder.kept_batch))
assert kept == ["input.pt", "target.pt"], kept
assert torch.equal(torch.load(os.path.join(recorder.kept_batch, "target.pt")),
                   target)
print("PASS: the batch is kept in", recorder.kept_batch)

# The printed command captures it later, with casebook back.
command = [casebook] + recorder.capture_command[1:]
result = subprocess.run(command, capture_output=True, text=True, check=False)
print(result.stdout + result.stderr)
assert result.returncode == 0, result.returncode
assert os.path.isfile(os.path.join(cases, "cross_entropy", "kept.yaml"))
assert any(line.startswith("the capture reproduces the failure: cpu: FAIL "
                           "index_out_of_range")
           for line in result.stdout.splitlines()), result.stdout
print("PASS: the kept batch captured later reproduces the failure")
