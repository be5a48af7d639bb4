#!/usr/bin/python3
"""Outputs and gradients of operators as PyTorch computes them on the CPU.

tests/lib/torch_agreement_test.cpp runs the same computations as case files
(inputs drawn with `fill: {torch: ...}`, which equals PyTorch's own draws)
through casebook's dispatcher path and compares every output, named as
casebook names it, with the .npy written here. Run with Debian's
python3-torch (1.13) and python3-numpy; the output is committed:

    /usr/bin/python3 tests/data/torch_agreement/make_fixtures.py

(or any Python 3.11 with PYTHONPATH=/usr/lib/python3/dist-packages, which
imports the same Debian packages).
"""
import os

import numpy
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def randn(seed, *shape, dtype=torch.float32):
    torch.manual_seed(seed)
    return torch.randn(*shape, dtype=dtype)


def save(case, outputs):
    for name, tensor in outputs.items():
        numpy.save(os.path.join(HERE, "%s.%s.npy" % (case, name)),
                   tensor.detach().numpy())


def conv2d():
    x = randn(21, 1, 2, 4, 4).requires_grad_()
    w = randn(22, 2, 2, 3, 3).requires_grad_()
    b = randn(23, 2).requires_grad_()
    out = torch.conv2d(x, w, b, stride=[2, 1], padding=[1, 1])
    out.backward(torch.ones_like(out))
    save("conv2d", {"0": out, "grad.input": x.grad, "grad.weight": w.grad,
                    "grad.bias": b.grad})


def binary_cross_entropy():
    torch.manual_seed(24)
    x = torch.rand(5, dtype=torch.float64).requires_grad_()
    torch.manual_seed(25)
    t = torch.bernoulli(torch.full([5], 0.5, dtype=torch.float64))
    out = torch.nn.functional.binary_cross_entropy(x, t, reduction="mean")
    out.backward()
    save("binary_cross_entropy", {"0": out, "grad.input": x.grad})


def embedding_bag():
    w = randn(26, 6, 3, dtype=torch.float64).requires_grad_()
    indices = torch.tensor([0, 2, 2, 5, 1])
    offsets = torch.tensor([0, 2])
    out = torch.nn.functional.embedding_bag(indices, w, offsets, mode="mean")
    out.backward(torch.ones_like(out))
    save("embedding_bag", {"0": out, "grad.weight": w.grad})


def batch_norm():
    x = randn(27, 4, 2, 3).requires_grad_()
    w = randn(28, 2).requires_grad_()
    b = randn(29, 2).requires_grad_()
    out = torch.batch_norm(x, w, b, torch.zeros(2), torch.ones(2), True, 0.1,
                           1e-5, True)
    out.backward(torch.ones_like(out))
    save("batch_norm", {"0": out, "grad.input": x.grad, "grad.weight": w.grad,
                        "grad.bias": b.grad})


def topk():
    x = randn(30, 3, 5, dtype=torch.float64).requires_grad_()
    values, indices = torch.topk(x, 2, dim=1)
    values.backward(torch.ones_like(values))
    save("topk", {"values": values, "indices": indices, "grad.input": x.grad})


def cumsum():
    x = randn(31, 2, 5).requires_grad_()
    out = torch.cumsum(x, dim=1)
    torch.manual_seed(32)
    feed = torch.randn(2, 5)
    out.backward(feed)
    save("cumsum", {"0": out, "grad.input": x.grad})


def scatter_add():
    src = randn(33, 2, 4).requires_grad_()
    index = torch.tensor([[0, 1, 2, 0], [2, 2, 0, 1]])
    out = torch.scatter_add(torch.zeros(3, 4), 0, index, src)
    out.backward(torch.ones_like(out))
    save("scatter_add", {"0": out, "grad.src": src.grad})


if __name__ == "__main__":
    for make in (conv2d, binary_cross_entropy, embedding_bag, batch_norm, topk,
                 cumsum, scatter_add):
        make()
