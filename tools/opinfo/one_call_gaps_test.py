#!/usr/bin/python3
"""ctest opinfo.one_call_gaps: a sample whose result is one ATen call with a
null in a Tensor?[] list (`aten::index.Tensor(x, [None, idx])`, what
`x[:, idx]` records) becomes a one-step case whose output names that step,
not the generator's KeyError.

    one_call_gaps_test.py            exit 0, or 1 saying what is wrong
Exit 77 (ctest: skipped) when this Python has no torch."""
import os
import sys
import tempfile
from types import SimpleNamespace

try:
    import torch
except ImportError:
    print("SKIP: no torch in", sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_opinfo_cases as generator  # noqa: E402


def main():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    sample = SimpleNamespace(input=x, args=(torch.tensor([2, 0]),), kwargs={})

    def op(inp, idx):
        return torch.ops.aten.index.Tensor(inp, [None, idx])

    with tempfile.TemporaryDirectory() as out:
        try:
            case, ops = generator.build_case("index_gap", op, sample, torch.float32, 0,
                                             generator.Writer(out), True, False)
        except Exception as error:  # noqa: BLE001 (the bug was a KeyError)
            print(f"FAIL: build_case raised {type(error).__name__}: {error}")
            return 1
    steps = case.get("steps")
    if not steps or len(steps) != 1 or ops != ["aten::index.Tensor"]:
        print(f"FAIL: expected one step of aten::index.Tensor, got {case}")
        return 1
    print(f"one-step case: {ops[0]}, outputs {sorted(case['outputs'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
