"""Writes, with the torch that runs it, the .pt files that
tests/lib/hostile_pt_test.cpp (FilesSavedByTorch113And213Load) expects
casebook's own .pt reader to load, into a folder named after the torch's
major.minor version:

  python3 make_saved_by.py    (Debian's, torch 1.13: writes 1.13/)
  <a torch 2.13 venv>/bin/python make_saved_by.py    (writes 2.13/)
"""
import collections
import os

import torch

folder = ".".join(torch.__version__.split(".")[:2])
os.makedirs(folder, exist_ok=True)


def save(value, name, **options):
    torch.save(value, os.path.join(folder, name), **options)


six = torch.arange(6, dtype=torch.float32).reshape(2, 3)
save(six, "single.pt")
# `v` views column 1 of `w`: the two share one storage.
save({"w": six, "b": torch.tensor([1, 2], dtype=torch.int64), "v": six[:, 1]},
     "dict.pt")
save(collections.OrderedDict(a=six.half(), c=torch.tensor([True, False])),
     "ordered.pt")
save([six, six.t()], "list.pt")
save(torch.nn.Parameter(six), "parameter.pt")
save({"x": torch.tensor([1.5], dtype=torch.bfloat16),
      "z": torch.tensor([1 + 2j], dtype=torch.complex64)}, "misc.pt")
# The format before PyTorch 1.6: refused, by name.
save(six, "legacy.pt", _use_new_zipfile_serialization=False)
