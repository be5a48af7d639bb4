#!/usr/bin/python3
"""The peer users would pick: casebook against pytest --forked, one run.

The same N `cpu64` cases (torch.softmax, dim 1, 64x10 float32, seed i; the
op in float32 and in float64, compared) as casebook files and as one
parametrised pytest test under `pytest --forked` (a process per case, as
casebook). Each casebook executable named and pytest are timed in turns
(--turns, median shown), at N and at N/10 cases: the per-case cost at the
margin is (T(N) - T(N/10)) / (N - N/10), start-up excluded.

Usage: peer.py --casebook LABEL=PATH [--casebook LABEL=PATH ...]
               [--cases 200] [--turns 3] [-j JOBS]
Exit status 0 when the last casebook named is at least 3x faster than pytest
at the margin.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TEST_FILE = '''
import pytest
import torch

@pytest.mark.parametrize("seed", range({count}))
def test_softmax_against_float64(seed):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(64, 10, generator=generator)
    got = torch.softmax(x, 1)
    reference = torch.softmax(x.double(), 1)
    torch.testing.assert_close(got, reference.to(got.dtype))
'''


def write_cases(folder, count):
    os.makedirs(folder)
    for i in range(count):
        with open(os.path.join(folder, "softmax_%04d.yaml" % i), "w") as out:
            out.write(
                "casebook: 1\nsummary: peer softmax case %d against float64\n"
                "op: torch.softmax\nargs: {dim: 1}\nbackends: [cpu]\n"
                "reference: cpu64\ninputs:\n"
                "  input: {shape: [64, 10], dtype: float32, fill: "
                "{normal: {mean: 0, std: 1}}, seed: %d}\n" % (i, i))


def write_test(folder, count):
    os.makedirs(folder)
    with open(os.path.join(folder, "test_peer.py"), "w") as out:
        out.write(TEST_FILE.format(count=count))


def timed(command, cwd, expect):
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    text = done.stdout + done.stderr
    if done.returncode != 0 or expect not in text:
        sys.exit("failed (%d): %s\n%s" % (done.returncode, " ".join(command),
                                          text[-3000:]))
    return seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--casebook", action="append", required=True)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    small = max(1, args.cases // 10)
    root = tempfile.mkdtemp(prefix="casebook-peer-")
    try:
        for n in (small, args.cases):
            write_cases(os.path.join(root, "cases%d" % n), n)
            write_test(os.path.join(root, "tests%d" % n), n)
        ways = {}
        for spec in args.casebook:
            label, _, path = spec.partition("=")
            ways["casebook " + label] = lambda n, path=path: timed(
                [path, "run", os.path.join(root, "cases%d" % n), "-b", "cpu",
                 "-q", "-j", str(args.jobs), "--evidence", ""], root,
                "%d PASS" % n)
        # --forked: pytest-forked forks one process per test, as casebook.
        ways["pytest --forked"] = lambda n: timed(
            ["/usr/bin/python3", "-m", "pytest", "--forked", "-q",
             "-p", "no:cacheprovider", os.path.join(root, "tests%d" % n)],
            root, "%d passed" % n)
        times = {(way, n): [] for way in ways for n in (small, args.cases)}
        for turn in range(args.turns):
            for way, run in ways.items():
                for n in (small, args.cases):
                    times[(way, n)].append(run(n))
        print("peer: %d cpu64 cases (softmax 64x10, float32 against float64), "
              "%d turns, median; -j %d; %d cores" %
              (args.cases, args.turns, args.jobs, os.cpu_count()))
        print("%-20s %10s %10s %14s" % ("", "T(%d) s" % args.cases,
                                        "T(%d) s" % small, "ms/case margin"))
        margin = {}
        for way in ways:
            big = statistics.median(times[(way, args.cases)])
            little = statistics.median(times[(way, small)])
            margin[way] = (big - little) / (args.cases - small) * 1e3
            spread = "[%.2f-%.2f]" % (min(times[(way, args.cases)]),
                                      max(times[(way, args.cases)]))
            print("%-20s %10.2f %10.2f %14.2f  %s" %
                  (way, big, little, margin[way], spread))
        pytest_margin = margin["pytest --forked"]
        pytest_total = statistics.median(times[("pytest --forked",
                                                args.cases)])
        ok = True
        for way in ways:
            if way == "pytest --forked":
                continue
            total = statistics.median(times[(way, args.cases)])
            ratio = pytest_margin / margin[way] if margin[way] > 0 else 0
            print("%s: %.2fx faster than pytest at the margin, %.2fx in "
                  "total (target 3x)" % (way, ratio, pytest_total / total))
            ok = ratio >= 3.0
        return 0 if ok else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
