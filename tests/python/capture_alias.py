"""Issue 51: a tensor handed twice (``out=x``) is saved once, its path given
twice, and ``casebook capture`` writes it ``{same_as: NAME}``; a tensor of the
same values is one of its own.

usage: capture_alias.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import os
import subprocess
import sys
import tempfile

import torch

from casebook_capture import _executable, _save_tensors, capture_command

cases = sys.argv[1]
x = torch.arange(6.0)
with tempfile.TemporaryDirectory() as folder:
    saved = _save_tensors({"self": x, "other": x.clone(), "out": x}, folder)
    assert saved["out"] == saved["self"] != saved["other"], saved
    command = capture_command(_executable(None), "aten::add.out", "out_is_self",
                              saved, cases=cases, backends="cpu")
    done = subprocess.run(command + ["--keep-unreproduced"],
                          capture_output=True, text=True, check=False)
text = open(os.path.join(cases, "add.out", "out_is_self.yaml")).read()
assert "\n  out: {same_as: self}\n" in text, done.stdout + done.stderr + text
assert "other: {same_as" not in text, text
print("PASS: a tensor handed twice is captured as `out: {same_as: self}`")
