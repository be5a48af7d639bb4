#!/usr/bin/python3
"""ctest opinfo.draw_independence: make_opinfo_cases.py's judgement of a
random ATen call, on calls recorded here. A call whose values depend on the
draw (OpInfo's multinomial sample, recorded from 64 seeds, [1, 2, 0] among
them, which seeds 1 and 2 also give) is never judged draw-independent, so no
case is written from it; calls whose values cannot depend on the draw
(bernoulli of 0s and 1s, multinomial with one weight, rand_like of an empty
tensor) are, so their cases keep their stated values (issue 36).

    draw_independence_test.py            exit 0, or 1 naming each wrong call
Exit 77 (ctest: skipped) when this Python has no torch."""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIP: no torch in", sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_opinfo_cases as generator  # noqa: E402


def judged_independent(make, seed):
    """Records the ATen calls of make() from `seed` and asks the generator
    whether every random one among them gives its values from any seed."""
    recorder = generator.Recorder(known_ids=[])
    torch.manual_seed(seed)
    with recorder:
        make()
    random_calls = [i for i, moved in enumerate(recorder.rng_used) if moved]
    random_calls = random_calls or list(range(len(recorder.calls)))
    return generator.calls_same_under_other_seeds(recorder, random_calls)


def main():
    weights = torch.tensor([0.2608, 3.6171, 2.3386])
    failures = []
    recorded = set()
    for seed in range(64):
        torch.manual_seed(seed)
        recorded.add(tuple(torch.multinomial(weights, 3).tolist()))
        if judged_independent(lambda: torch.multinomial(weights, 3), seed):
            failures.append(f"multinomial(weights, 3) from seed {seed}: judged "
                            "draw-independent, its values depend on the draw")
    if (1, 2, 0) not in recorded:
        failures.append("no seed recorded [1, 2, 0], the draw seeds 1 and 2 give")
    independent = {
        "bernoulli of 0s and 1s": lambda: torch.bernoulli(torch.tensor([0., 1., 1., 0.])),
        "multinomial with one weight": lambda: torch.multinomial(torch.tensor([0., 2., 0.]), 1),
        "rand_like of an empty tensor": lambda: torch.rand_like(torch.empty(0, 3)),
    }
    for name, make in independent.items():
        if not judged_independent(make, 7):
            failures.append(f"{name}: judged draw-dependent, its values cannot depend on the draw")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{64 + len(independent) - len(failures)} of {64 + len(independent)} calls judged as they are")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
