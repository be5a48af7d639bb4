#!/usr/bin/python3
"""Writes the reference values of `fill: {torch: ...}` (issue 10, part 4).

Each entry of the manifest is drawn the way a PyTorch user draws it on the
CPU: torch.manual_seed(seed), then the call. casebook must produce the same
numbers from LibTorch's CPU generator (tests/lib/torch_fill_test.cpp reads
manifest.json and the .npy files beside it). Run with Debian's python3-torch
(1.13) and python3-numpy:

    /usr/bin/python3 tests/data/torch_rng/make_fixtures.py

(or any Python 3.11 with PYTHONPATH=/usr/lib/python3/dist-packages, which
imports the same Debian packages).

The output is committed, so CI needs no Python.
"""
import json
import os

import numpy
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {"float32": torch.float32, "float64": torch.float64,
          "int64": torch.int64, "int32": torch.int32, "uint8": torch.uint8}


def draw(call, params, shape, dtype):
    t = DTYPES[dtype]
    if call == "randn":
        return torch.randn(shape, dtype=t)
    if call == "rand":
        return torch.rand(shape, dtype=t)
    if call == "randint":
        return torch.randint(params["low"], params["high"], shape, dtype=t)
    if call == "normal":
        return torch.normal(params["mean"], params["std"], size=shape, dtype=t)
    if call == "uniform":
        return torch.empty(shape, dtype=t).uniform_(params["low"], params["high"])
    if call == "bernoulli":
        return torch.bernoulli(torch.full(shape, params["p"], dtype=t))
    if call == "randperm":
        return torch.randperm(shape[0], dtype=t)
    raise ValueError(call)


ENTRIES = [
    ("randn", {}, [4, 5], "float32", 0),
    ("randn", {}, [3, 7], "float64", 1234),
    ("randn", {}, [17], "float32", 7),  # 16 and more: the vectorised path
    ("rand", {}, [2, 3], "float32", 0),
    ("rand", {}, [5], "float64", 99),
    ("randint", {"low": 0, "high": 10}, [6], "int64", 3),
    ("randint", {"low": -5, "high": 5}, [2, 4], "int32", 11),
    ("randint", {"low": 0, "high": 256}, [8], "uint8", 1),
    ("randint", {"low": 0, "high": 4}, [3, 3], "float32", 2),
    ("normal", {"mean": 2.0, "std": 0.5}, [4, 4], "float32", 5),
    ("normal", {"mean": -1.0, "std": 3.0}, [20], "float64", 6),
    ("uniform", {"low": -2.0, "high": 3.0}, [3, 5], "float32", 8),
    ("bernoulli", {"p": 0.3}, [4, 6], "float32", 9),
    ("bernoulli", {"p": 0.5}, [10], "float64", 10),
    ("randperm", {}, [12], "int64", 4),
]


def main():
    manifest = []
    for call, params, shape, dtype, seed in ENTRIES:
        torch.manual_seed(seed)
        tensor = draw(call, params, shape, dtype)
        name = "%s_%s_seed%d.npy" % (call, dtype, seed)
        numpy.save(os.path.join(HERE, name), tensor.numpy())
        manifest.append({"call": call, "params": params, "shape": shape,
                         "dtype": dtype, "seed": seed, "file": name})
    with open(os.path.join(HERE, "manifest.json"), "w") as out:
        json.dump({"torch": torch.__version__, "entries": manifest}, out,
                  indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
