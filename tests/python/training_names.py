"""Issue 48, item 4: the names a training loop uses. Hugging Face's `labels`
and `logits`, handed in that order, are bound by the table of
docs/case-format.md (`labels` is `target`), so the case reproduces the
label's failure; a name the op does not have and the table does not give it
is refused at the first step that passes, naming it and listing the names
the op takes, before anything is written.

usage: training_names.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import os
import sys

import torch
import torch.nn.functional as F

from casebook_capture import Recorder

cases = sys.argv[1]
recorder = Recorder("torch.cross_entropy", "hf_labels", cases=cases,
                    backends="cpu", batches="hf-batches")
labels = torch.tensor([0, 4, 1])
try:
    with recorder.step(0, labels=labels) as step:
        logits = step.add(logits=torch.randn(3, 4))
        F.cross_entropy(logits, labels)
    raise AssertionError("a label of 4 in 4 classes passed")
except IndexError:
    pass
assert recorder.recorded, recorder.capture_output
text = open(recorder.case_file).read()
assert "labels: {dtype: int64" in text, text
assert recorder.verdict.startswith(
    "the capture reproduces the failure: cpu: FAIL index_out_of_range"), \
    recorder.capture_output
print("PASS: labels and logits bound by the table:", recorder.verdict)

refused = Recorder("torch.cross_entropy", "unknown_names", cases=cases,
                   backends="cpu", batches="unknown-batches")
try:
    with refused.step(0, lbl=torch.tensor([0, 1, 1])) as step:
        step.add(out=torch.randn(3, 4))
    raise AssertionError("the names lbl and out were taken")
except ValueError as error:
    said = str(error)
    print(said)
    assert "`lbl`" in said and "nothing was written" in said, said
    assert "input, target, weight" in said, said
    assert "labels" in said, said  # the table's names for `target`
assert not os.path.exists(os.path.join(cases, "cross_entropy",
                                       "unknown_names.yaml"))
assert not os.path.exists("unknown-batches")
print("PASS: lbl and out refused at the first step, nothing written")
