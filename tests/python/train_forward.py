"""A training loop whose forward fails, inside the Recorder's step: an
embedding of 10 rows handed a token of 10 in its second batch. The failure
must become a case (the tensors the step holds, its iteration, no step of
an earlier iteration as its last completed one); a forward failing before
the step holds the op's inputs is still the first failure, later ones its
consequences; a name taken behind the recorder's back gets the next one.

usage: train_forward.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import os
import sys

import torch
import torch.nn.functional as F

import casebook_capture
from casebook_capture import Recorder

cases = sys.argv[1]
torch.manual_seed(0)
embedding = torch.nn.Embedding(10, 4)
head = torch.nn.Linear(4, 3)
optimizer = torch.optim.SGD([*embedding.parameters(), *head.parameters()],
                            lr=0.1)
batches = [(torch.tensor([1, 2, 3]), torch.tensor([0, 1, 2])),
           (torch.tensor([4, 10, 5]), torch.tensor([2, 1, 0])),  # 10!
           (torch.tensor([6, 7, 8]), torch.tensor([1, 0, 2]))]

recorder = Recorder("torch.embedding", "token_10", cases=cases,
                    backends="cpu")
failures = 0
for iteration, (tokens, labels) in enumerate(batches):
    try:
        # The forward runs inside the step: its failure is recorded.
        with recorder.step(iteration, weight=embedding.weight,
                           indices=tokens) as step:
            logits = head(embedding(tokens))
            step.completed("forward")
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            step.completed("backward")
        optimizer.step()
        # Outside the block: a note of this iteration, not of the next.
        recorder.completed("optimizer.step")
    except IndexError:
        failures += 1
        assert recorder.last_completed_step is None, \
            recorder.last_completed_step

assert failures == 1, failures
assert recorder.recorded, recorder.capture_output
assert recorder.first_error.startswith("IndexError: index out of range"), \
    recorder.first_error
assert recorder.verdict.startswith(
    "the capture reproduces the failure: cpu: FAIL index_out_of_range"), \
    recorder.verdict
print(recorder.case_file)

# The loss's input comes out of the forward (step.add): a forward failing
# before it (a batch of 5 features for 4) is the first failure all the same
# (casebook cannot make a case of it: the step lacks `input`), and the loss
# failure after it (a watched call inside the block) one consequence.
recorder = Recorder("torch.cross_entropy", "features_5", cases=cases,
                    backends="cpu")
loss_of = recorder.watch(F.cross_entropy)
for iteration, x in enumerate([torch.randn(2, 5), torch.randn(2, 4)]):
    try:
        with recorder.step(iteration, target=torch.tensor([0, 3])) as step:
            logits = step.add(input=head(x))
            loss_of(logits, torch.tensor([0, 3]))
    except (RuntimeError, IndexError):
        pass
assert recorder.first_error.startswith("RuntimeError: mat1 and mat2"), \
    recorder.first_error
assert not recorder.recorded, recorder.case_file
assert recorder.kept_batch is not None  # kept, with the command to run
assert recorder.consequences == 1, recorder.consequences

# A name taken where the recorder did not look (another process, between its
# look and the capture): casebook's refusal moves it to the next name.
casebook_capture._op_folder = lambda op: "elsewhere"
recorder = Recorder("torch.embedding", "token_10", cases=cases,
                    backends="cpu")
try:
    with recorder.step(0, weight=embedding.weight, indices=batches[1][0]):
        embedding(batches[1][0])
except IndexError:
    pass
assert recorder.case_file == f"{cases}/embedding/token_10-2.yaml", \
    recorder.case_file

# Issue 48, part 2: an embedding's failure recorded as a cross_entropy case
# (the loss's inputs, which are fine) does not reproduce: capture removes
# the case, and the recorder keeps the batch and says so.
recorder = Recorder("torch.cross_entropy", "embedding_error", cases=cases,
                    backends="cpu")
try:
    with recorder.step(0, target=torch.tensor([0, 1, 2])) as step:
        step.add(input=torch.randn(3, 3))
        embedding(batches[1][0])
except IndexError:
    pass
assert not recorder.recorded, recorder.case_file
assert recorder.kept_batch is not None, recorder.capture_output
assert "not kept" in recorder.capture_output, recorder.capture_output
assert not os.path.exists(os.path.join(cases, "cross_entropy",
                                       "embedding_error.yaml"))
