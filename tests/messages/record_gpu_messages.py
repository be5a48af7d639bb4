"""Records PyTorch's CUDA error messages for tests/data/messages.

Each call below runs in a Python process of its own (a device-side assert
poisons the process that hit it), with Python's torch on a CUDA device. For
each failing call it prints two entries in the format of
tests/data/messages/*.txt: the exception's str() as a program sees it, and
the process's stderr as a log shows it (the kernel's own assertion lines come
there, before the traceback). The family is what casebook must give both.

  python record_gpu_messages.py > ../data/messages/pytorch-X.Y-cuda-H200.txt

Needs a CUDA device; exits 77 without one.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

import torch

# (name, family, source, code): code runs after `import torch` and
# `import torch.nn.functional as F`, and ends with a synchronize so that an
# asynchronous error is raised inside the call it belongs to.
CALLS = [
    ("cross_entropy_target_4_of_4", "device_assert",
     "F.cross_entropy(randn(3,4), tensor([0,2,4])) on cuda",
     "F.cross_entropy(torch.randn(3, 4, device='cuda'),"
     " torch.tensor([0, 2, 4], device='cuda'))"),
    ("nll_loss_target_4_of_4", "device_assert",
     "F.nll_loss(randn(3,4), tensor([0,2,4])) on cuda",
     "F.nll_loss(torch.randn(3, 4, device='cuda'),"
     " torch.tensor([0, 2, 4], device='cuda'))"),
    ("embedding_out_of_range", "device_assert",
     "F.embedding(tensor([1,10]), randn(10,3)) on cuda",
     "F.embedding(torch.tensor([1, 10], device='cuda'),"
     " torch.randn(10, 3, device='cuda'))"),
    ("index_select_out_of_range", "device_assert",
     "torch.index_select(randn(5,3), 0, tensor([7])) on cuda",
     "torch.index_select(torch.randn(5, 3, device='cuda'), 0,"
     " torch.tensor([7], device='cuda'))"),
    ("advanced_index_out_of_range", "device_assert",
     "randn(5, device=cuda)[tensor([7])]",
     "torch.randn(5, device='cuda')[torch.tensor([7], device='cuda')]"),
    ("empty_huge", "out_of_memory", "torch.empty(1<<40) floats on cuda",
     "torch.empty(1 << 40, device='cuda')"),
    ("mm_int64", "op_unavailable", "torch.mm on int64 cuda tensors",
     "torch.mm(torch.ones(2, 3, dtype=torch.long, device='cuda'),"
     " torch.ones(3, 2, dtype=torch.long, device='cuda'))"),
    ("device_mismatch", "device_mismatch",
     "torch.add(randn(3) on cuda, randn(3) on cpu)",
     "torch.add(torch.randn(3, device='cuda'), torch.randn(3))"),
    ("mm_device_mismatch", "device_mismatch",
     "torch.mm(randn(2,3) on cuda, randn(3,2) on cpu)",
     "torch.mm(torch.randn(2, 3, device='cuda'), torch.randn(3, 2))"),
]

CHILD = """
import json, sys
import torch
import torch.nn.functional as F
try:
    exec(sys.argv[1])
    torch.cuda.synchronize()
except Exception as error:
    sys.stdout.write(json.dumps({"type": type(error).__name__,
                                 "text": str(error)}))
    sys.stderr.write(type(error).__name__ + ": " + str(error) + "\\n")
"""


def run_call(code, blocking):
    env = dict(os.environ, CUDA_LAUNCH_BLOCKING="1") if blocking else None
    child = subprocess.run([sys.executable, "-c", CHILD, code], env=env,
                           capture_output=True, text=True, timeout=120)
    if not child.stdout.strip():
        return None
    return json.loads(child.stdout), child.stderr.rstrip()


def entry(name, family, kind, source, text):
    return f"\n=== {name}\nfamily: {family}\ntype: {kind}\nsource: {source}\n---\n{text}"


def main():
    if not torch.cuda.is_available():
        print("record_gpu_messages: no CUDA device", file=sys.stderr)
        return 77
    version = torch.__version__
    device = torch.cuda.get_device_name(0)
    cuda = torch.version.cuda
    tag = "torch" + "_".join(version.split("+")[0].split(".")[:2]) + "_cuda"
    where = f"PyTorch {version}, CUDA {cuda}, {device}"
    print(f"# Error messages of {where}, recorded on that GPU by\n"
          "# tests/messages/record_gpu_messages.py: each call in a Python process of\n"
          "# its own; for each, the exception's str() and the process's stderr (the\n"
          "# kernel's assertion lines come there). The family is what casebook must\n"
          "# give it. Calls that did not fail are left out (said on stderr).\n"
          "# Format: \"=== name\", then \"family:\", \"type:\", \"source:\" lines, then\n"
          "# \"---\", then the text up to the next \"===\" line.")
    runs = [(name, family, source, code, blocking)
            for name, family, source, code in CALLS
            for blocking in (False, True)
            if not blocking or family == "device_assert"]
    # Side by side: each call is a process of its own, most of its time
    # spent starting torch.
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda run: run_call(run[3], run[4]), runs))
    for (name, family, source, _, blocking), result in zip(runs, results):
        label = f"{name}_{tag}" + ("_launch_blocking" if blocking else "")
        how = f"{where}, {source}" + (", CUDA_LAUNCH_BLOCKING=1" if blocking else "")
        if result is None:
            print(f"{label}: no error", file=sys.stderr)
            continue
        error, log = result
        print(entry(label, family, error["type"], how, error["text"].rstrip()))
        print(entry(label + "_log", family, "", how + " (stderr)", log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
