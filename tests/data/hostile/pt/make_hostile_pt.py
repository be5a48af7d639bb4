"""Writes the hostile .pt files of this folder (issue 26), each a torch.save
archive as torch.save lays it out (a stored zip: <archive>/data.pkl, the
storages' records <archive>/data/<key>, <archive>/version), with one claim
that does not hold. tests/lib/hostile_pt_test.cpp expects each to be refused
as a FixtureError naming what is wrong.

  python3 make_hostile_pt.py      (any Python with torch; run in this folder)
"""
import collections
import io
import pickle
import struct
import warnings
import zipfile

import torch


class Storage:
    def __init__(self, key, numel):
        self.key, self.numel = key, numel


class Tensor:
    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False,
                     collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return ("storage", torch.FloatStorage, obj.key, "cpu", obj.numel)
        return None


def pickled(value):
    out = io.BytesIO()
    Pickler(out, protocol=2).dump(value)
    return out.getvalue()


def put(zf, name, data):
    # A fixed date: the same bytes on every run (fixtures/ keeps their hash).
    zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def archive(name, pickle_bytes, records):
    with zipfile.ZipFile(name, "w", zipfile.ZIP_STORED) as zf:
        put(zf, "archive/data.pkl", pickle_bytes)
        for key, data in records.items():
            put(zf, f"archive/data/{key}", data)
        put(zf, "archive/version", "3\n")


two_floats = struct.pack("<2f", 1.0, 2.0)

# A sound file, the control: two floats.
archive("sound.pt", pickled(Tensor(Storage("0", 2), 0, (2,), (1,))),
        {"0": two_floats})
# The storage claims 1000 floats; its record holds 2 (LibTorch handed back
# the heap after them).
archive("storage_claims_more.pt",
        pickled(Tensor(Storage("0", 1000), 0, (2,), (1,))), {"0": two_floats})
# A view of 1000 elements over a storage of 2.
archive("view_past_storage.pt",
        pickled(Tensor(Storage("0", 2), 0, (1000,), (1,))), {"0": two_floats})
# An offset past the storage's end.
archive("offset_past_storage.pt",
        pickled(Tensor(Storage("0", 2), 5, (1,), (1,))), {"0": two_floats})
# A negative stride.
archive("negative_stride.pt",
        pickled(Tensor(Storage("0", 2), 1, (2,), (-1,))), {"0": two_floats})
# Stride 0 over 2^31 - 1 elements (8 GiB as float32, one element stored):
# refused before anything is expanded. (Not 2^31: LibTorch 1.13 unpickles no
# integer wider than 4 bytes.)
archive("stride0_huge.pt",
        pickled(Tensor(Storage("0", 2), 0, (2 ** 31 - 1,), (0,))), {"0": two_floats})
# A dict of tensors, for `file: x.pt#name` (also fixtures/pt/dict_of_two.pt).
archive("dict_of_two.pt",
        pickled({"a": Tensor(Storage("0", 2), 0, (2,), (1,)),
                 "b": Tensor(Storage("1", 2), 0, (2,), (1,))}),
        {"0": two_floats, "1": struct.pack("<2f", 3.0, 4.0)})

# Containers nested 300 deep (1 MB of them segfaulted LibTorch).
nested = Tensor(Storage("0", 2), 0, (2,), (1,))
for _ in range(300):
    nested = (nested,)
archive("nested_tuples.pt", pickled(nested), {"0": two_floats})

# A memo index of 0x8c766301 (LibTorch reserved 37.7 GB for it).
sound = pickled(Tensor(Storage("0", 2), 0, (2,), (1,)))
memo = sound.replace(b"q\x00", b"r" + struct.pack("<I", 0x8C766301), 1)
assert memo != sound
archive("memo_index_huge.pt", memo, {"0": two_floats})

# Two records named archive/data.pkl: the check read one, LibTorch the other.
with zipfile.ZipFile("duplicate_records.pt", "w", zipfile.ZIP_STORED) as zf:
    put(zf, "archive/data.pkl", sound)
    put(zf, "archive/data/0", two_floats)
    put(zf, "archive/version", "3\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": the point
        put(zf, "archive/data.pkl",
            pickled(Tensor(Storage("0", 10 ** 9), 0, (2,), (1,))))

# One 256 KiB record referenced by 3,000 tensors (a 1 MiB one took 3 GB when
# each reference read the record again; this one would take 750 MB): one
# storage, read once.
shared = Storage("0", 65536)
archive("storage_referenced_3000_times.pt",
        pickled([Tensor(shared, 0, (65536,), (1,)) for _ in range(3000)]),
        {"0": bytes(1 << 18)})
