"""Makes the torch.save inputs of tests/lib/capture_test.cpp (committed).

Run once with Debian's python3-torch: /usr/bin/python3 make_fixtures.py
"""
import torch

torch.manual_seed(14)
logits = torch.randn(3, 4)
labels = torch.tensor([0, 2, 4])
# A dict of tensors, as a training loop saves a batch.
torch.save({"input": logits, "target": labels}, "batch.pt")
# A list of tensors, and a non-contiguous view with a storage offset.
base = torch.arange(40, dtype=torch.float64).reshape(5, 8)
torch.save([logits, base[1:, 2:].t()], "list.pt")
# Bad inputs: a number, and a dict holding a non-tensor.
torch.save(5, "number.pt")
torch.save({"input": logits, "lr": 0.1}, "mixed.pt")
torch.save(torch.zeros(2, dtype=torch.complex64), "complex.pt")
# A dict of one item: pickled with SETITEM, which LibTorch 1.13 lacks.
torch.save({"x": torch.arange(3.0)}, "single.pt")
# Expected values of the views, as PyTorch sees them.
view = base[1:, 2:].t()
with open("list_view.txt", "w") as out:
    out.write(" ".join(str(int(v)) for v in view.contiguous().flatten().tolist()) + "\n")
    out.write(" ".join(str(s) for s in view.stride()) + " " + str(view.storage_offset()) + "\n")
# A nested dict, as a training loop saves its state: `#batch.input` names
# a tensor inside it (the outer dict of two items: SETITEMS, which 1.13 has).
torch.save({"batch": {"input": logits, "target": labels}, "step": torch.tensor(7)},
           "nested.pt")
