"""A small 4-class training loop whose third batch holds a label of 4: the
casebook_capture Recorder must turn that first failure into a case (a rerun
into a case of its own), with the watched call's `reduction`, not its
`epoch` (no argument of the op).

usage: train_label_4.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import sys

import torch
import torch.nn.functional as F

from casebook_capture import Recorder

cases = sys.argv[1]
torch.manual_seed(0)
model = torch.nn.Linear(8, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(6, 8), torch.tensor([0, 1, 2, 3, 1, 0])),
           (torch.randn(6, 8), torch.tensor([3, 2, 1, 0, 0, 1])),
           (torch.randn(6, 8), torch.tensor([0, 1, 4, 3, 2, 1])),   # 4!
           (torch.randn(6, 8), torch.tensor([0, 1, 2, 3, 2, 1]))]
recorder = Recorder("torch.cross_entropy", "label_4", cases=cases,
                    args={"reduction": "mean"}, backends="cpu",
                    origin={"cause": "a label of 4 in a 4-class problem"})


@recorder.watch
def loss_of(input, target, reduction="mean", epoch=0):
    return F.cross_entropy(input, target, reduction=reduction)


failures = 0
for iteration, (x, y) in enumerate(batches):
    try:
        logits = model(x)
        # Before this iteration's first step: named, or it would be the
        # previous iteration's.
        recorder.completed("forward", iteration=iteration)
        # The decorator's way for the loss, the context manager's around the
        # update: both record into the same recorder.
        loss = loss_of(logits, y, reduction="sum", epoch=1)
        with recorder.step(iteration, input=logits, target=y):
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        recorder.completed("optimizer.step")
    except IndexError:
        failures += 1
    if iteration == 2:
        # A later failure is a consequence, not written.
        try:
            with recorder.step(iteration, input=logits, target=y):
                raise RuntimeError("a later failure")
        except RuntimeError:
            pass

assert failures == 1, failures
assert recorder.recorded, recorder.capture_output
assert recorder.consequences == 1, recorder.consequences
assert "out of bounds" in recorder.first_error, recorder.first_error
print(recorder.case_file)
