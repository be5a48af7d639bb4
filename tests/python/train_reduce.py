"""Issue 50: a batch of 64 rows of 4-class logits whose labels hold one 4
(row 37), recorded with ``Recorder(..., reduce=True)``: the recorder writes
the captured case (its logits a fixture) and, beside it, the reduced case of
one label, and prints both files.

usage: train_reduce.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import sys

import torch
import torch.nn.functional as F

from casebook_capture import Recorder

cases = sys.argv[1]
torch.manual_seed(0)
labels = torch.arange(64) % 4
labels[37] = 4
recorder = Recorder("torch.cross_entropy", "batch_64", cases=cases,
                    backends="cpu", reduce=True)
try:
    with recorder.step(0, input=torch.randn(64, 4), target=labels) as step:
        F.cross_entropy(step.tensors["input"], labels)
except IndexError:
    pass
assert recorder.recorded, recorder.capture_output
assert recorder.reduced_file, recorder.reduce_output
print(recorder.reduced_file)
