#!/usr/bin/python3
"""Turn PyTorch's OpInfo sample inputs into casebook case files.

Contract
--------
Run with a Python whose torch matches the LibTorch casebook runs (Debian's
/usr/bin/python3 with python3-torch 1.13.1 for the debian build):

    make_opinfo_cases.py OUT [--no-steps] [--samples N] [--entries NAME ...]
                             [--wrong-expected ENTRY] [--every N [--offset K]]
                             [--casebook PATH]

For every entry of torch.testing._internal.common_methods_invocations.op_db
(or only the --entries named, by OpInfo name with its variant: `softmax`,
`nn.functional.normalize`, `max.reduction_with_dim`), in float32 and then
float64 where the entry supports that dtype on the CPU, the first N (default
4) CPU sample inputs are each run once in PyTorch under a TorchDispatchMode
that records every ATen call (its OpOverload, arguments and outputs). Then:

* one ATen call: a one-op case, `op: aten::<name>[.<overload>]` (no overload
  for `.default`), its tensor arguments as `inputs` named by the schema
  (`self`, `other`, `tensors[0]`...), the others as `args`;
* several calls (after dropping calls the result does not depend on): a
  multi-step case (`steps:`, each step an ATen call whose tensor arguments
  name a case input, an earlier step or `step.K`), unless --no-steps, in
  which case the sample is not expressible ("several ATen calls").

Each case is described in JSON (the keys of a case file) and written as its
case file by casebook itself (`casebook new --from-json`, the executable of
--casebook, else $CASEBOOK, else `casebook` on PATH), so that every case
file has the text casebook's one writer gives it. Every input tensor is
described exactly: `values` (the doubles that hold them, which casebook
writes as their shortest text) up to 1024 elements, else a `.npy` fixture
with its sha256 under OUT/fixtures/opinfo/. A non-contiguous, non-overlapping input
keeps its strides (`layout: {stride}`); an overlapping one (an expanded
view) is written with its values only. The expected `outputs` are the
values PyTorch computed in Python, with the output dtype's default
tolerance (`equal_nan` where the output has a NaN), and `reference: none`:
the expected values are the truth, so every backend, the CPU included, is
judged by them alone, and a GPU is never judged by casebook's own CPU run.

A Python number that PyTorch passes for a Tensor argument (a wrapped
number: `x + 2.5` is `add.Tensor(x, 2.5)`) is written through the sibling
overload that takes a Scalar there (`add.Scalar`).

Dtypes: float32 and float64 where the entry has them on the CPU, else the
first of int64, int32, bool, uint8, int8, int16, complex64, complex128 it
has (complex values as `[re, im]` pairs).

Not expressible (one reason per sample, the first that applies): no dtype
casebook names on the CPU, the sample inputs cannot be made, the sample
raises, a dtype casebook has no name for (or a sparse layout), a
read of a tensor changed in place through another view, no
ATen call, a non-tensor result (a bool, int or float that the last ATen
call returned, `allclose`, `item`, is written as the 0-d tensor casebook
makes of it), a result gathered from several calls with --no-steps (with
steps, a steps case whose outputs are the last call's and earlier steps'
`<step>.<k>`), a result made by `empty*` and filled through views or never written, a random
op (a Generator in its schema, a dropout, or a call that moved the CPU's
default random generator) whose values depend on the draw (a random op whose
result is the same from two other seeds: `p: 0`, eval mode, probabilities 0
or 1, an empty result, is written with its values like any op), a result
that differs beyond the tolerance when run twice, several calls with
--no-steps, a `None` in a `Tensor?[]` list with --no-steps, an argument
type casebook cannot write (Dimname, str[], a complex Scalar, a non-strided
layout...).

--wrong-expected ENTRY perturbs the first floating expected value of each of
that entry's cases (and says so in the summary), so that a test can show a
wrong expectation FAILs.

Writes OUT/cases/<entry>/<dtype>_<k>.yaml (case id `<entry>/<dtype>_<k>`),
OUT/fixtures/, and OUT/manifest.json: for each entry, its cases (id, ATen
ops, steps) and the reason of every sample that was not written, with the
generator's options. Exit status 0 unless OUT cannot be written.
"""

import argparse
import functools
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import types
import unittest
from dataclasses import dataclass, field
from typing import NamedTuple


def import_op_db():
    """op_db, importable without the expecttest package and without letting
    common_utils parse this script's command line."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        stub.ACCEPT = False
        sys.modules["expecttest"] = stub
    argv = sys.argv
    sys.argv = [argv[0]]
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    finally:
        sys.argv = argv
    return op_db


import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

INLINE_LIMIT = 1024

DTYPE_NAMES = {
    torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8",
    torch.int16: "int16", torch.int32: "int32", torch.int64: "int64",
    torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.float32: "float32", torch.float64: "float64",
    torch.complex64: "complex64", torch.complex128: "complex128",
}
# An entry with neither float32 nor float64 on the CPU (the bitwise ops,
# complex-only ones) is run in the first of these it supports.
OTHER_DTYPES = (torch.int64, torch.int32, torch.bool, torch.uint8, torch.int8,
                torch.int16, torch.complex64, torch.complex128)
PART_DTYPE = {torch.complex64: torch.float32, torch.complex128: torch.float64}
MEMORY_FORMATS = {
    torch.contiguous_format: "contiguous_format",
    torch.preserve_format: "preserve_format",
    torch.channels_last: "channels_last",
    torch.channels_last_3d: "channels_last_3d",
}
# Ops that draw random numbers without a Generator in their schema.
RANDOM_WITHOUT_GENERATOR = {"native_dropout", "dropout", "feature_dropout",
                            "alpha_dropout", "feature_alpha_dropout",
                            "rrelu", "rrelu_with_noise", "randn", "rand", "randint",
                            "randperm", "randn_like", "rand_like", "randint_like"}
UNINITIALISED = {"empty", "empty_like", "new_empty", "new_empty_strided",
                 "empty_strided"}


class NotExpressible(Exception):
    """A sample that no case file can express; the message is the reason."""


# ---------------------------------------------------------------- schemas

def split_top(text):
    """Split at commas outside brackets and parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


class Schema:
    """The arguments (name, declared type, kwarg-only, has default) and the
    number of returns of one OpOverload, read from its schema string."""

    def __init__(self, func):
        text = str(func._schema)
        self.text = text
        head, _, rets = text.partition(") -> ")
        args_text = head[head.index("(") + 1:]
        self.args = []
        kwarg_only = False
        for part in split_top(args_text):
            if part == "*":
                kwarg_only = True
                continue
            decl, _, default = part.partition("=")
            typ, name = decl.rsplit(" ", 1)
            typ = re.sub(r"\([^)]*\)", "", typ)  # Tensor(a!) -> Tensor
            self.args.append((name, typ, kwarg_only, bool(default)))
        self.mutable = {name for name, raw in (
            (p.partition("=")[0].rsplit(" ", 1)[1], p.partition("=")[0].rsplit(" ", 1)[0])
            for p in split_top(args_text) if p != "*") if "!" in raw}
        rets = rets.strip()
        if rets.startswith("("):
            self.returns = [r.rsplit(" ", 1)[0] for r in split_top(rets[1:-1])]
        else:
            self.returns = [re.sub(r"\([^)]*\)", "", rets.split(" ")[0])]

    def bind(self, args, kwargs):
        """{argument name: value} for the call's positional and keyword args."""
        bound = {}
        positional = [a for a in self.args if not a[2]]
        if len(args) > len(positional):
            raise NotExpressible("more positional arguments than the schema has")
        for (name, _, _, _), value in zip(positional, args):
            bound[name] = value
        bound.update(kwargs)
        return bound

    def type_of(self, name):
        for n, t, _, _ in self.args:
            if n == name:
                return t
        raise NotExpressible(f"argument `{name}` not in {self.text}")


def op_name(func):
    packet = func.overloadpacket.__name__
    overload = func._overloadname
    return f"aten::{packet}" if overload == "default" else f"aten::{packet}.{overload}"


def scalar_sibling(func, bound):
    """The overload of the same operator that takes, as a Scalar, every
    Tensor argument given a Python number (a wrapped number), else None."""
    schema = Schema(func)
    wrapped = {n for n, v in bound.items()
               if isinstance(v, (int, float, bool)) and
               schema.type_of(n).rstrip("?") == "Tensor"}
    if not wrapped:
        return func
    packet = func.overloadpacket
    for name in packet.overloads():
        if "out" in name:
            continue
        other = getattr(packet, name)
        s = Schema(other)
        names = [a[0] for a in s.args]
        if names != [a[0] for a in schema.args]:
            continue
        if all(s.type_of(n).rstrip("?") == "Scalar" for n in wrapped) and all(
                s.type_of(n) == schema.type_of(n) for n in names if n not in wrapped):
            return other
    raise NotExpressible(
        f"a Python number for Tensor argument(s) {sorted(wrapped)} of "
        f"{op_name(func)} (a wrapped number) and no Scalar overload")


# ---------------------------------------------------------------- values

def fmt_scalar(v):
    """A Python argument value as the description holds it."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise NotExpressible(f"argument value of type {type(v).__name__}")


def tensor_values(t):
    """The tensor's values, row-major, exact: floating ones as the doubles
    that hold them (float16 and bfloat16 too), complex ones as [re, im]."""
    flat = t.detach().contiguous().reshape(-1)
    if t.dtype.is_complex:
        return [[v.real, v.imag] for v in flat.to(torch.complex128).tolist()]
    if t.dtype.is_floating_point:
        return flat.double().tolist()
    return flat.tolist()


def case_json(value):
    """A case description as JSON, which casebook reads as a case file (JSON
    is YAML's flow style): NaN and the infinities as YAML's `.nan`, `.inf`,
    `-.inf`, which JSON has no words for. One top-level key a line."""
    def text(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {text(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(text(x) for x in v) + "]"
        if isinstance(v, float) and not math.isfinite(v):
            return ".nan" if v != v else (".inf" if v > 0 else "-.inf")
        return json.dumps(v)
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {text(v)}" for k, v in value.items()) + "\n}\n"


def check_dtype(t, what):
    if t.layout != torch.strided:
        raise NotExpressible(f"{what}: layout {t.layout}")
    if t.dtype not in DTYPE_NAMES:
        raise NotExpressible(f"{what}: unsupported dtype {t.dtype}")


class Writer:
    """Describes tensors by `values` or `.npy` fixtures under OUT/fixtures."""

    def __init__(self, out):
        self.fixtures = os.path.join(out, "fixtures", "opinfo")

    def tensor(self, t, keep_layout=True, equal_nan=False):
        check_dtype(t, "tensor")
        spec = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape)}
        if t.numel() > INLINE_LIMIT and t.dtype != torch.bfloat16:
            arr = t.detach().contiguous().numpy()
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            data = buf.getvalue()
            sha = hashlib.sha256(data).hexdigest()
            os.makedirs(self.fixtures, exist_ok=True)
            path = os.path.join(self.fixtures, sha + ".npy")
            if not os.path.exists(path):
                with open(path, "wb") as f:
                    f.write(data)
            spec.update({"file": f"opinfo/{sha}.npy", "sha256": sha})
        else:
            spec["values"] = tensor_values(t)
        if keep_layout and t.dim() >= 1 and not t.is_contiguous() and t.numel() > 1:
            if torch._debug_has_internal_overlap(t) == 0:
                spec["layout"] = {"stride": list(t.stride())}
        if equal_nan:
            spec["equal_nan"] = True
        return spec


# ---------------------------------------------------------------- recording

def leaves(obj, path, out):
    """Tensors in a sample's input, args and kwargs, with a name for each."""
    if isinstance(obj, torch.Tensor):
        out.append((path, obj))
    elif isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            leaves(x, f"{path}{i}" if path != "input" else f"input{i}", out)
    elif isinstance(obj, dict):
        for k, x in obj.items():
            leaves(x, k, out)
    return out


def tensors_read(args, kwargs):
    """The tensors among a call's arguments, those of a list or tuple
    argument included."""
    for v in list(args) + list(kwargs.values()):
        for t in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(t, torch.Tensor):
                yield t


class Recorder(TorchDispatchMode):
    """Records every ATen call: (OpOverload, args, kwargs, outputs), with a
    copy of each tensor the call reads that no earlier call produced and
    that is not a sample input (a constant made inside the function)."""

    def __init__(self, known_ids):
        super().__init__()
        self.calls = []
        self.rng_used = []  # per call: did it move the CPU's default generator
        self.known = set(known_ids)
        self.constants = {}  # id -> (clone, tensor kept alive)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        for t in tensors_read(args, kwargs):
            if id(t) not in self.known:
                self.known.add(id(t))
                self.constants[id(t)] = (t.clone(), t)
        state = torch.get_rng_state()
        out = func(*args, **kwargs)
        self.rng_used.append(not torch.equal(state, torch.get_rng_state()))
        for t in flatten_out(out):
            if isinstance(t, torch.Tensor):
                self.known.add(id(t))
        self.calls.append((func, args, kwargs, out))
        return out


def flatten_out(out):
    if isinstance(out, (list, tuple)):
        res = []
        for x in out:
            if isinstance(x, (list, tuple)):
                res.append(("nested", x))
            else:
                res.append(x)
        return res
    return [out]


def result_tensors(res):
    if isinstance(res, torch.Tensor):
        return [res]
    if isinstance(res, (list, tuple)) and res and all(isinstance(t, torch.Tensor) for t in res):
        return list(res)
    if isinstance(res, (list, tuple)) and not res:
        raise NotExpressible("empty result")
    raise NotExpressible(f"non-tensor result ({type(res).__name__})")


def results_again(res):
    """The result tensors of a second run; a bool, int or float as 0-d."""
    if isinstance(res, (bool, int, float)):
        dtype = torch.bool if isinstance(res, bool) else (
            torch.int64 if isinstance(res, int) else torch.float64)
        return [torch.tensor(res, dtype=dtype)]
    return result_tensors(res)


def scalar_of_last_call(res, rec):
    """A bool, int or float result that the last ATen call returned
    (`allclose`, `equal`, `item`), as the 0-d tensor casebook makes of it;
    None for any other result."""
    if isinstance(res, torch.Tensor) or not isinstance(res, (bool, int, float)):
        return None
    out = rec.calls[-1][3]
    if type(out) is not type(res) or out != res and not (
            isinstance(res, float) and math.isnan(res) and math.isnan(out)):
        return None
    return results_again(res)[0]


def same_values(a, b):
    """The same dtype, shape and values, NaN where the other has NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool(torch.equal(a, b))


# The seeds a random call is made again from to judge whether its values
# depend on the draw. Two were too few: a draw with few outcomes (OpInfo's
# multinomial of three weights, three draws) gave [1, 2, 0] from seeds 1 and
# 2 alike, so a sample recorded as [1, 2, 0] was written as a case, which
# FAILed whenever casebook's draw differed (issue 36). With 32 seeds, a draw
# with two equally likely outcomes agrees by chance once in 2^31.
DRAW_SEEDS = range(1, 33)


def calls_same_under_other_seeds(rec, indices):
    """Whether each recorded ATen call of `indices`, made again on copies of
    its arguments from each seed of DRAW_SEEDS of the default generator,
    gives the outputs it gave: its values do not depend on the draw. Call by
    call, not the whole sample: OpInfo's wrappers of random ops seed the
    generator themselves (wrapper_set_seed), which casebook does not."""
    def copy(x):
        if isinstance(x, torch.Tensor):
            return x.clone()
        if isinstance(x, (list, tuple)):
            return type(x)(copy(y) for y in x)
        return x
    state = torch.get_rng_state()
    try:
        for i in indices:
            func, a, kw, out = rec.calls[i]
            if any("!" in str(arg) for arg in func._schema.arguments):
                return False  # an in-place call's input is its output now
            first = [t for t in flatten_out(out) if isinstance(t, torch.Tensor)]
            for seed in DRAW_SEEDS:
                torch.manual_seed(seed)
                again = func(*copy(list(a)), **copy(dict(kw)))
                again = [t for t in flatten_out(again) if isinstance(t, torch.Tensor)]
                if len(again) != len(first) or not all(
                        same_values(x, y) for x, y in zip(first, again)):
                    return False
        return True
    except Exception:
        return False
    finally:
        torch.set_rng_state(state)


def clone_sample(sample):
    def c(x):
        if isinstance(x, torch.Tensor):
            return x.clone()
        if isinstance(x, (list, tuple)):
            return type(x)(c(y) for y in x) if not hasattr(x, "_fields") else x
        if isinstance(x, dict):
            return {k: c(v) for k, v in x.items()}
        return x
    return c(sample.input), c(list(sample.args)), c(dict(sample.kwargs))


def same_storage(u, m):
    try:
        return u.storage().data_ptr() == m.storage().data_ptr() and u.device == m.device
    except Exception:
        return False


def close(a, b):
    """Equal within the default tolerance of docs/case-format.md (NaN = NaN)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    tol = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
           torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7),
           torch.complex64: (1.3e-6, 1e-5), torch.complex128: (1e-7, 1e-7)}
    if a.dtype in tol:
        rtol, atol = tol[a.dtype]
        return bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(torch.equal(a, b))


# ---------------------------------------------------------------- one sample

class RecordedSample(NamedTuple):
    """A sample run once under a Recorder: its input tensors as (name,
    tensor), a copy of each as it was before the run by id ((name, copy)),
    the recorder (its calls and constants) and the result."""
    named: list
    originals: dict
    rec: Recorder
    result: object


def record_sample(op, sample):
    """The sample run once, on copies of its inputs, under a Recorder; or
    NotExpressible (an input casebook cannot write, the sample raises, no
    ATen call)."""
    inp, args, kwargs = clone_sample(sample)
    named = leaves(inp, "input", []) + leaves(args, "arg", []) + leaves(kwargs, "", [])
    for name, t in named:
        check_dtype(t, f"input `{name}`")
    originals = {id(t): (name, t.clone()) for name, t in named}
    rec = Recorder(originals.keys())
    try:
        with rec:
            res = op(inp, *args, **kwargs)
    except NotExpressible:
        raise
    except Exception as e:  # the sample itself fails in PyTorch
        raise NotExpressible(f"the sample raises in PyTorch: {type(e).__name__}")
    if not rec.calls:
        raise NotExpressible("no ATen call (the result is an input or a Python value)")
    return RecordedSample(named, originals, rec, res)


def expected_results(recorded):
    """(the 0-d tensor of a bool, int or float that the last ATen call
    returned, else None; the result tensors), or NotExpressible (a result
    that is not tensors, a dtype or layout casebook cannot write)."""
    scalar_result = scalar_of_last_call(recorded.result, recorded.rec)
    results = [scalar_result] if scalar_result is not None else result_tensors(recorded.result)
    for t in results:
        check_dtype(t, "result")
    return scalar_result, results


@dataclass
class Replay:
    """The recorded calls replayed in order. producer_at: tensor id ->
    (call index, output index) of the call that produced it last;
    producers_as_read[i]: producer_at as call i reads its arguments;
    deps[i]: the calls whose outputs call i reads; stale_read[i]: whether
    call i reads a stale tensor; stale: the ids of the tensors that are
    stale now (changed in place through a view of another geometry)."""
    producer_at: dict = field(default_factory=dict)
    producers_as_read: list = field(default_factory=list)
    deps: list = field(default_factory=list)
    stale_read: list = field(default_factory=list)
    stale: set = field(default_factory=set)


def replay_calls(rec, named):
    """Replay the calls in order: which call produced each tensor as each call
    reads it (an in-place call re-produces its self). A call that writes a
    tensor (`Tensor(a!)`) also re-produces every other tensor of the same
    storage and geometry (F.embedding renormalises `weight.detach()` in
    place, then reads `weight`); one of another geometry over that storage
    is stale: a call that reads it is not expressible."""
    replay = Replay()
    tracked = [t for _, t in named] + [c[1] for c in rec.constants.values()]
    for i, (func, a, kw, out) in enumerate(rec.calls):
        read = list(tensors_read(a, kw))
        replay.deps.append({replay.producer_at[id(t)][0] for t in read
                            if id(t) in replay.producer_at})
        replay.stale_read.append(any(id(t) in replay.stale for t in read))
        replay.producers_as_read.append(dict(replay.producer_at))
        for k, t in enumerate(flatten_out(out)):
            if isinstance(t, torch.Tensor):
                replay.producer_at[id(t)] = (i, k)
                replay.stale.discard(id(t))
                tracked.append(t)
        reproduce_written_views(replay, Schema(func), a, kw, tracked)
    return replay


def reproduce_written_views(replay, schema, args, kwargs, tracked):
    """After a call that writes the tensors of its mutable arguments: each
    tracked tensor over a written one's storage is re-produced by the call
    that produced the written one (the same geometry) or is stale (another
    geometry)."""
    bound = schema.bind(args, kwargs)
    for name in schema.mutable:
        m = bound.get(name)
        if not isinstance(m, torch.Tensor) or id(m) not in replay.producer_at:
            continue
        for u in tracked:
            if u is m or not same_storage(u, m):
                continue
            if (u.shape, u.stride(), u.storage_offset(), u.dtype) == (
                    m.shape, m.stride(), m.storage_offset(), m.dtype):
                replay.producer_at[id(u)] = replay.producer_at[id(m)]
                replay.stale.discard(id(u))
            else:
                replay.stale.add(id(u))


def result_sources(results, scalar_result, replay, n_calls):
    """(call index, output index) of the call that produced each result, or
    NotExpressible (a result changed through another view, or not made by
    an ATen call). A bool, int or float result is the last call's output 0."""
    if scalar_result is not None:
        # casebook returns an ATen call's bool, int or float as a 0-d tensor.
        replay.producer_at[id(scalar_result)] = (n_calls - 1, 0)
    sources = []
    for t in results:
        if id(t) in replay.stale:
            raise NotExpressible("the result was changed through another view (in place)")
        if id(t) not in replay.producer_at:
            raise NotExpressible("the result is a sample input, not an ATen call's output")
        sources.append(replay.producer_at[id(t)])
    return sources


def calls_the_result_needs(sources, deps, steps_on):
    """The indices, in order, of the calls that produced the results and of
    every call they depend on. A result gathered from several calls
    (split-like ops) is a steps case whose outputs are the last call's and,
    by `<step>.<index>`, earlier ones: NotExpressible with steps off."""
    producers = {i for i, _ in sources}
    if len(producers) > 1 and not steps_on:
        raise NotExpressible("the result gathers outputs of several ATen calls (steps off)")
    keep, todo = set(), list(producers)
    while todo:
        i = todo.pop()
        if i not in keep:
            keep.add(i)
            todo.extend(deps[i])
    return sorted(keep)


def check_written_state(rec, order, stale_read, results, last):
    """NotExpressible where a kept call reads a stale tensor, the last
    producing call is an `empty*` (filled through views), or the kept calls
    make a non-empty result by `empty*` and write nothing in place."""
    if any(stale_read[i] for i in order):
        raise NotExpressible("reads a tensor changed in place through another view")
    final_func = rec.calls[last][0]
    if final_func.overloadpacket.__name__ in UNINITIALISED:
        raise NotExpressible("result made by empty* and filled through views")
    kept = [rec.calls[i][0] for i in order]
    if any(f.overloadpacket.__name__ in UNINITIALISED for f in kept) and not any(
            "!" in str(f._schema) for f in kept) and any(t.numel() for t in results):
        raise NotExpressible("uninitialised result (empty*, never written)")


def check_draw_independent(rec, order):
    """NotExpressible where a kept random call (a Generator in its schema, a
    dropout, or one that moved the CPU's default generator) gives other
    values from other seeds."""
    random_ops = [op_name(rec.calls[i][0]) for i in order
                  if "Generator" in str(rec.calls[i][0]._schema) or
                  rec.calls[i][0].overloadpacket.__name__ in RANDOM_WITHOUT_GENERATOR]
    drawn = [op_name(rec.calls[i][0]) for i in order if rec.rng_used[i]]
    random_calls = [i for i in order if rec.rng_used[i] or op_name(rec.calls[i][0]) in random_ops]
    if random_calls and not calls_same_under_other_seeds(rec, random_calls):
        # A random op whose values do not depend on the draw (p = 0, eval
        # mode, probabilities 0 or 1, an empty result) is a case with stated
        # values like any other (issue 36); one whose values do is not.
        raise NotExpressible(
            f"random op whose values depend on the draw ({(random_ops or drawn)[0]})")


def check_repeatable(op, sample, results):
    """Run again on fresh copies: NotExpressible where the second run raises
    or a result differs beyond the dtype's tolerance (it cannot be expected)."""
    inp2, args2, kwargs2 = clone_sample(sample)
    try:
        res2 = results_again(op(inp2, *args2, **kwargs2))
    except Exception:
        raise NotExpressible("the sample raises when run a second time")
    if len(res2) != len(results) or not all(close(a, b) for a, b in zip(results, res2)):
        raise NotExpressible("non-repeatable result (two runs differ beyond the tolerance)")


def check_call_outputs(rec, order):
    """NotExpressible where a kept call returns a nested list, or an output
    of a dtype or layout casebook cannot write."""
    for i in order:
        func, _, _, out = rec.calls[i]
        for t in flatten_out(out):
            if isinstance(t, tuple) and t and t[0] == "nested":
                raise NotExpressible(f"{op_name(func)} returns a nested list")
            if isinstance(t, torch.Tensor):
                check_dtype(t, f"output of {op_name(func)}")


class CaseInputs:
    """The names and initial values of a case's input tensors: the sample's
    leaves (by their names in the sample) and the constants made inside the
    function (`const`), each name given once."""

    def __init__(self, originals, constants):
        self.originals = originals
        self.constants = constants
        self.names = {}
        self.used = set()

    def name(self, t):
        """t's input name: its sample name (`input` for an unnamed one) or
        `const`, made an identifier, `2`, `3`... after a name taken."""
        if id(t) in self.names:
            return self.names[id(t)]
        if id(t) in self.originals:
            base = self.originals[id(t)][0] or "input"
        else:
            base = "const"
        base = re.sub(r"[^A-Za-z0-9_]", "_", base)
        name, n = base, 1
        while name in self.used:
            n += 1
            name = f"{base}{n}"
        self.used.add(name)
        self.names[id(t)] = name
        return name

    def recorded(self, t):
        """Whether t is a sample leaf or a constant (it has an initial value)."""
        return id(t) in self.originals or id(t) in self.constants

    def initial_value(self, t):
        """t as it was before the sample ran."""
        if id(t) in self.originals:
            return self.originals[id(t)][1]
        return self.constants[id(t)][0]


@dataclass
class CaseMaterial:
    """What a sample's case is written from, one-op or steps: the writer of
    its tensors, its inputs, its result tensors with the (call index, output
    index) that produced each, and whether the expected values are made
    wrong on purpose."""
    writer: Writer
    inputs: CaseInputs
    results: list
    sources: list
    wrong: bool


def case_summary(entry, index, dtype, ops, wrong):
    """The case's `summary`: the entry, sample, dtype and its op or steps."""
    text = f"OpInfo {entry}, sample {index}, {DTYPE_NAMES[dtype]}: " + (
        f"{len(ops)} steps ({', '.join(ops)})" if len(ops) > 1 else ops[0])
    if wrong:
        text += " (expected value deliberately wrong)"
    return text


OMITTED = object()  # a non-tensor argument the case leaves out


def generator_arg(v):
    """A Generator: only None (the default generator), left out."""
    if v is not None:
        raise NotExpressible("a Generator argument")
    return OMITTED


def scalar_type_arg(v):
    """A ScalarType by casebook's name for it; None stays None."""
    if v is None:
        return None
    if v not in DTYPE_NAMES:
        raise NotExpressible(f"ScalarType {v}")
    return DTYPE_NAMES[v]


def layout_arg(v):
    """A Layout: only strided; None left out."""
    if v is None:
        return OMITTED
    if v != torch.strided:
        raise NotExpressible(f"layout {v}")
    return "strided"


def memory_format_arg(v):
    """A MemoryFormat by its name; None left out."""
    return OMITTED if v is None else MEMORY_FORMATS[v]


def scalar_arg(v):
    """A Scalar: a bool, int or float (not complex)."""
    if isinstance(v, complex):
        raise NotExpressible("a complex Scalar")
    return fmt_scalar(v)


def plain_arg(v):
    """An int, SymInt, float, bool or str, or a list of them."""
    if isinstance(v, (list, tuple, torch.Size)):
        return [fmt_scalar(x) for x in v]
    return fmt_scalar(v)


# A non-tensor argument's value in a case's `args` (or OMITTED), by its
# declared type without `?`; a type not here (nor a list of int, SymInt,
# float or bool) is one casebook cannot write.
ARG_VALUES = {
    "Generator": generator_arg,
    "Device": lambda v: OMITTED,  # the backend's device
    "ScalarType": scalar_type_arg,
    "Layout": layout_arg,
    "MemoryFormat": memory_format_arg,
    "Scalar": scalar_arg,
    "int": plain_arg, "SymInt": plain_arg, "float": plain_arg, "bool": plain_arg,
    "str": plain_arg,
}


def arg_value_of_type(base):
    """ARG_VALUES' function for a declared type without `?`, else None."""
    if base in ARG_VALUES:
        return ARG_VALUES[base]
    if re.fullmatch(r"(int|SymInt|float|bool)\[\d*\]", base):
        return plain_arg
    return None


class DescribedCall(NamedTuple):
    """A recorded call as a case names it: its OpOverload (the Scalar
    sibling where a Tensor argument is a Python number), its tensor
    arguments [(name, source, or a list of sources)] and its other
    arguments [(name, value)]."""
    func: object
    inputs: list
    args: list


def tensor_list_sources(v, step_source, steps_on):
    """The sources of a Tensor[] or Tensor?[] argument's elements, None for
    a null one (only with steps on)."""
    elems = list(v)
    if any(e is None for e in elems) and not steps_on:
        raise NotExpressible("a None in a Tensor?[] list (steps off)")
    return [None if e is None else step_source(e) for e in elems]


def describe_call(func, a, kw, step_source, steps_on):
    """One call's DescribedCall, each tensor argument's source given by
    step_source(tensor), or NotExpressible (an argument casebook cannot
    write)."""
    func = scalar_sibling(func, Schema(func).bind(a, kw))
    schema = Schema(func)
    bound = schema.bind(a, kw)
    ins, argl = [], []
    for name, typ, _, _ in schema.args:
        if name not in bound:
            continue
        v = bound[name]
        base = typ.rstrip("?")
        if base == "Tensor":
            if v is not None:
                ins.append((name, step_source(v)))
        elif base in ("Tensor[]", "Tensor?[]"):
            if v is not None:
                ins.append((name, tensor_list_sources(v, step_source, steps_on)))
        else:
            value_of = arg_value_of_type(base)
            if value_of is None:
                raise NotExpressible(f"argument type {typ} (`{name}`)")
            value = value_of(v)
            if value is not OMITTED:
                argl.append((name, value))
    return DescribedCall(func, ins, argl)


def the_tensor_itself(t):
    """A one-op case's source of a tensor argument: the tensor."""
    if isinstance(t, torch.Tensor):
        return t
    raise NotExpressible("a non-tensor element in a tensor argument")


def step_or_input(produced, t):
    """A steps case's source of a tensor argument: ("step", call index,
    output index) where produced (tensor id -> those) has it, else
    ("input", t)."""
    if not isinstance(t, torch.Tensor):
        raise NotExpressible("a non-tensor element in a tensor argument")
    if id(t) in produced:
        ci, k = produced[id(t)]
        return ("step", ci, k)
    return ("input", t)


class Step(NamedTuple):
    """One step of a plan: the recorded call's index (the step the outputs
    name, a one-op case's too: it becomes a one-step case when a Tensor?[]
    holds a null), its op name, tensor arguments and other arguments."""
    call: object
    op: str
    inputs: list
    args: list


def steps_plan(rec, order, producers_as_read, steps_on):
    """A Step for each kept call, in order, each tensor argument read from
    an earlier step's output or a case input."""
    plan = []
    for i in order:
        func, a, kw, _ = rec.calls[i]
        call = describe_call(func, a, kw, functools.partial(step_or_input, producers_as_read[i]),
                             steps_on)
        plan.append(Step(i, op_name(call.func), call.inputs, call.args))
    return plan


def build_case(entry, op, sample, dtype, index, writer, steps_on, wrong):
    """One sample's case description (a dict of a case file's keys) and its
    ATen ops, or NotExpressible."""
    recorded = record_sample(op, sample)
    rec = recorded.rec
    scalar_result, results = expected_results(recorded)
    replay = replay_calls(rec, recorded.named)
    sources = result_sources(results, scalar_result, replay, len(rec.calls))
    order = calls_the_result_needs(sources, replay.deps, steps_on)
    check_written_state(rec, order, replay.stale_read, results, max(i for i, _ in sources))
    check_draw_independent(rec, order)
    check_repeatable(op, sample, results)
    check_call_outputs(rec, order)
    if len(order) > 1 and not steps_on:
        raise NotExpressible("several ATen calls (a multi-step case; steps off)")

    if len(order) == 1:
        func, a, kw, _ = rec.calls[order[0]]
        call = describe_call(func, a, kw, the_tensor_itself, steps_on)
        plan = [Step(order[0], op_name(call.func), call.inputs, call.args)]
    else:
        plan = steps_plan(rec, order, replay.producers_as_read, steps_on)
    ops = [step.op for step in plan]
    case = {"casebook": 1, "summary": case_summary(entry, index, dtype, ops, wrong),
            "reference": "none"}
    material = CaseMaterial(writer, CaseInputs(recorded.originals, rec.constants),
                            results, sources, wrong)
    if len(order) == 1:
        build_one_op_case(case, plan[0], material)
    else:
        build_steps_case(case, plan, material)
    return case, ops


def build_one_op_case(case, step, material):
    """`op`, `args`, `inputs` and `outputs` of a one-op case, its inputs
    named by the schema (`tensors[0]`... for a list); a Tensor?[] list
    with null elements makes it a one-step case."""
    if any(isinstance(v, list) and any(e is None for e in v) for _, v in step.inputs):
        build_steps_case(case, [step], material)
        return
    inputs_yaml = []  # (name, tensor)
    for name, v in step.inputs:
        if isinstance(v, list):
            inputs_yaml.extend((f"{name}[{j}]", t) for j, t in enumerate(v))
        else:
            inputs_yaml.append((name, v))
    case["op"] = step.op
    if step.args:
        case["args"] = dict(step.args)
    inputs = material.inputs
    case["inputs"] = {
        name: material.writer.tensor(inputs.initial_value(t) if inputs.recorded(t) else t)
        for name, t in inputs_yaml}
    write_outputs(case, material)


def step_names_of(plan):
    """{call index: step name}: each step named by its operator, `_2`,
    `_3`... after a name taken."""
    step_names = {}
    for step in plan:
        base = re.sub(r"[^A-Za-z0-9_]", "_",
                      step.op.split("::")[1].split(".")[0]).strip("_") or "step"
        name, n = base, 1
        while name in step_names.values():
            n += 1
            name = f"{base}_{n}"
        step_names[step.call] = name
    return step_names


def build_steps_case(case, plan, material):
    """`steps`, `inputs` and `outputs` of a steps case from its plan, or
    NotExpressible (an input named as a step is)."""
    step_names = step_names_of(plan)
    used_inputs = {}

    def src(v):
        """A step input's text: null, `<step>` or `<step>.<k>`, or a case
        input's name (the input kept in used_inputs)."""
        if v is None:
            return None
        if isinstance(v, torch.Tensor):
            v = ("input", v)
        if v[0] == "step":
            _, ci, k = v
            return step_names[ci] if k == 0 else f"{step_names[ci]}.{k}"
        t = v[1]
        name = material.inputs.name(t)
        used_inputs[name] = t
        return name

    steps = []
    for ci, opn, ins, argl in plan:
        step = {"name": step_names[ci], "op": opn,
                "inputs": {name: [src(e) for e in v] if isinstance(v, list) else src(v)
                           for name, v in ins}}
        if argl:
            step["args"] = dict(argl)
        steps.append(step)
    # The input names are not step names.
    for name in used_inputs:
        if name in step_names.values():
            raise NotExpressible(f"input name `{name}` equals a step name")
    case["steps"] = steps
    case["inputs"] = {name: material.writer.tensor(material.inputs.initial_value(t))
                      for name, t in used_inputs.items()}
    write_outputs(case, material, step_names, plan[-1].call)


def write_outputs(case, material, step_names=None, last=None):
    """`outputs`: each result under its key, `k` for the last call's output k,
    `<step>.<k>` for an earlier step's; a result given twice once."""
    outputs = case["outputs"] = {}
    done = False
    keys = set()
    for t, (i, k) in zip(material.results, material.sources):
        key = f"{step_names[i]}.{k}" if step_names and i != last else str(k)
        if key in keys:
            continue
        keys.add(key)
        t = t.detach()
        if material.wrong and not done and t.dtype.is_floating_point and t.numel() > 0:
            t = t.clone()
            flat = t.view(-1) if t.is_contiguous() else t.reshape(-1)
            # At least 1 away from the true value, whatever it is.
            flat[0] = flat[0] + 1 + flat[0].abs() if torch.isfinite(flat[0]) else 1.0
            t = flat.reshape(t.shape)
            done = True
        floating = t.dtype.is_floating_point or t.dtype.is_complex
        outputs[key] = material.writer.tensor(
            t, keep_layout=False, equal_nan=floating and bool(t.isnan().any()))


# ---------------------------------------------------------------- main

def entry_name(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def written_by_casebook(casebook, described, batch=1024):
    """Each description X.json written as the case file X.yaml by casebook's
    one case-text writer (`casebook new --from-json`), then removed. A
    description casebook refuses (the generator's fault) leaves the entry's
    cases and becomes a not-expressible sample with casebook's first
    words about it."""
    for start in range(0, len(described), batch):
        chunk = described[start:start + batch]
        run = subprocess.run([casebook, "new", "--from-json"] + [p for p, *_ in chunk],
                             capture_output=True, text=True)
        if run.returncode not in (0, 1):
            sys.exit(f"casebook new --from-json failed ({run.returncode}): {run.stderr}")
        for path, info, dtype, k in chunk:
            os.remove(path)
            if os.path.exists(path[:-len(".json")] + ".yaml"):
                continue
            said = [line for line in run.stderr.splitlines() if path in line]
            case_id = f"{info['entry']}/{dtype}_{k}"
            info["cases"] = [c for c in info["cases"] if c["id"] != case_id]
            info["not_expressible"].append(
                {"dtype": dtype, "sample": k,
                 "reason": f"casebook refused the description: {said[0] if said else run.stderr}"[:300]})


def parse_options():
    """The command line of the module's contract."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--no-steps", action="store_true",
                        help="a sample of several ATen calls is not expressible")
    parser.add_argument("--samples", type=int, default=4, help="samples per entry and dtype")
    parser.add_argument("--entries", nargs="*", help="only these OpInfo entries")
    parser.add_argument("--wrong-expected", default=None,
                        help="perturb the expected values of this entry's cases")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="only every Nth entry of op_db (a sample spread over it)")
    parser.add_argument("--offset", type=int, default=0, metavar="K",
                        help="with --every: start at entry K (0 <= K < N); the "
                             "N offsets together are every entry")
    parser.add_argument("--casebook", default=os.environ.get("CASEBOOK", "casebook"),
                        help="the casebook that writes the case files (default: "
                             "$CASEBOOK, else casebook on PATH)")
    return parser.parse_args()


def selected_entries(op_db, opts):
    """The op_db entries of --entries (all without it), every --every'th from
    --offset; exits naming an --entries name that op_db does not have."""
    want = set(opts.entries or [])
    entries = [op for op in op_db if not want or entry_name(op) in want]
    entries = entries[opts.offset::max(opts.every, 1)]
    missing = want - {entry_name(op) for op in op_db}
    if missing:
        sys.exit(f"no OpInfo entry named {sorted(missing)}")
    return entries


def entry_dtypes(op):
    """float32 and float64 where the entry has them on the CPU, else the
    first of OTHER_DTYPES it has, else none."""
    supported = op.supported_dtypes("cpu")
    dtypes = [d for d in (torch.float32, torch.float64) if d in supported]
    return dtypes or [d for d in OTHER_DTYPES if d in supported][:1]


def first_samples(op, dtype, n):
    """The entry's first n CPU sample inputs in dtype, made from seed 0."""
    torch.manual_seed(0)
    samples = []
    for s in op.sample_inputs("cpu", dtype, requires_grad=False):
        samples.append(s)
        if len(samples) >= n:
            break
    return samples


@dataclass
class Corpus:
    """What the entries are described into: the options, the tensor writer,
    and the descriptions for casebook to write (description path, entry
    info, dtype name, sample)."""
    opts: argparse.Namespace
    writer: Writer
    described: list = field(default_factory=list)


def describe_entry(corpus, op):
    """The entry's manifest info ({entry, cases, not_expressible}), each
    case it can write described as OUT/cases/<entry>/<dtype>_<k>.json."""
    info = {"entry": entry_name(op), "cases": [], "not_expressible": []}
    dtypes = entry_dtypes(op)
    if not dtypes:
        info["not_expressible"].append(
            {"dtype": None, "sample": None,
             "reason": "no dtype casebook names on the CPU"})
    for dtype in dtypes:
        try:
            samples = first_samples(op, dtype, corpus.opts.samples)
        except Exception as e:
            info["not_expressible"].append(
                {"dtype": DTYPE_NAMES[dtype], "sample": None,
                 "reason": f"sample inputs cannot be made: {type(e).__name__}"})
            continue
        for k, sample in enumerate(samples):
            describe_sample(corpus, op, info, dtype, k, sample)
    return info


def describe_sample(corpus, op, info, dtype, k, sample):
    """Sample k's case described in JSON and recorded in info["cases"], or
    its reason in info["not_expressible"]."""
    name, opts = info["entry"], corpus.opts
    cid = f"{name}/{DTYPE_NAMES[dtype]}_{k}"
    try:
        case, ops = build_case(name, op, sample, dtype, k, corpus.writer,
                               not opts.no_steps, opts.wrong_expected == name)
    except NotExpressible as e:
        info["not_expressible"].append(
            {"dtype": DTYPE_NAMES[dtype], "sample": k, "reason": str(e)})
        return
    except Exception as e:  # a generator limitation, said as such
        info["not_expressible"].append(
            {"dtype": DTYPE_NAMES[dtype], "sample": k,
             "reason": f"generator cannot write it: {type(e).__name__}: {e}"[:200]})
        return
    path = os.path.join(opts.out, "cases", name, f"{DTYPE_NAMES[dtype]}_{k}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(case_json(case))
    corpus.described.append((path, info, DTYPE_NAMES[dtype], k))
    info["cases"].append({"id": cid, "ops": ops, "steps": "steps" in case})


def main():
    opts = parse_options()
    if shutil.which(opts.casebook) is None:
        sys.exit(f"casebook executable `{opts.casebook}` not found: pass --casebook "
                 "or set $CASEBOOK")
    op_db = import_op_db()
    torch.set_num_threads(1)
    entries = selected_entries(op_db, opts)
    corpus = Corpus(opts, Writer(opts.out))
    manifest = {"options": {"steps": not opts.no_steps, "samples": opts.samples,
                            "torch": torch.__version__},
                "entries": [describe_entry(corpus, op) for op in entries]}
    written_by_casebook(opts.casebook, corpus.described)
    # OUT holds the manifest even when no sample could be written.
    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    n_cases = sum(len(e["cases"]) for e in manifest["entries"])
    n_expr = sum(1 for e in manifest["entries"] if e["cases"])
    print(f"{len(entries)} entries, {n_expr} with a case, {n_cases} cases in {opts.out}")


if __name__ == "__main__":
    main()
