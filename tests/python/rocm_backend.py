"""Issue 48, item 6: on ROCm, PyTorch keeps the ``cuda`` device names for AMD
GPUs; the Recorder reads ``torch.version.hip`` and writes the case's
``origin.backend`` as casebook's ``hip``, not ``cuda``. No ROCm torch runs
here: torch.version.hip is set as a ROCm build sets it, and the failing
step's tensor is one that says it is on PyTorch's ``cuda`` device.

usage: rocm_backend.py CASES_FOLDER  (casebook from $CASEBOOK)
"""
import os
import re
import sys

import torch

import casebook_capture
from casebook_capture import Recorder

cases = sys.argv[1]


class OnRocmGpu:
    """What a tensor on an AMD GPU shows the Recorder under a ROCm torch:
    PyTorch's ``cuda`` device; its bytes come back with .detach().cpu()."""

    def __init__(self, tensor):
        self._tensor = tensor
        self.device = torch.device("cuda")

    def detach(self):
        return self._tensor.detach()


def recorded_backend(name):
    recorder = Recorder("torch.cross_entropy", name, cases=cases,
                        backends="cpu")
    try:
        with recorder.step(3, target=OnRocmGpu(torch.tensor([0, 4, 1]))) as step:
            step.add(input=OnRocmGpu(torch.zeros(3, 4)))
            # What the CPU run of the case raises too: the capture
            # reproduces it there.
            raise IndexError("Target 4 is out of bounds.")
    except IndexError:
        pass
    assert recorder.recorded, recorder.capture_output
    with open(recorder.case_file, encoding="utf-8") as case:
        text = case.read()
    found = re.search(r'^  backend: "?(\w+)"?$', text, re.M)
    assert found, text
    return found.group(1), text


saved = getattr(torch.version, "hip", None)
try:
    torch.version.hip = "6.2.41133-dd7f95766"
    assert casebook_capture._backend(["cuda"]) == "hip"
    assert casebook_capture._backend(["cpu"]) == "cpu"
    backend, text = recorded_backend("on_rocm")
    assert backend == "hip", text
    assert "6.2.41133-dd7f95766" in text, text  # versions.hip
    print("PASS: under a ROCm torch a capture of `cuda` tensors is a hip case")
    torch.version.hip = None
    assert casebook_capture._backend(["cuda", "cpu"]) == "cuda"
    backend, text = recorded_backend("on_nvidia")
    assert backend == "cuda", text
    print("PASS: under a CUDA torch it stays a cuda case")
finally:
    torch.version.hip = saved
