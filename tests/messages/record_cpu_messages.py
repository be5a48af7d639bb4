"""Records LibTorch's CPU error messages for tests/data/messages.

Makes each call below with Python's torch, prints the exception's type and
message in the format of tests/data/messages/*.txt, with the family casebook
must give it (the same calls as libtorch-1.13-cpu.txt, recorded there from
C++). Python's torch raises LibTorch's C++ messages unchanged; the type is the
Python exception's (IndexError for c10::IndexError, and so on).

  python record_cpu_messages.py > ../data/messages/libtorch-2.13-cpu.txt
"""
import sys

import torch
import torch.nn.functional as F

CALLS = [
    ("cross_entropy_target_4_of_4", "index_out_of_range",
     "F.cross_entropy(randn(3,4), tensor([0,2,4]))",
     lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 2, 4]))),
    ("nll_loss_target_4_of_4", "index_out_of_range",
     "F.nll_loss(randn(3,4), tensor([0,2,4]))",
     lambda: F.nll_loss(torch.randn(3, 4), torch.tensor([0, 2, 4]))),
    ("embedding_out_of_range", "index_out_of_range",
     "F.embedding(tensor([1,10]), randn(10,3))",
     lambda: F.embedding(torch.tensor([1, 10]), torch.randn(10, 3))),
    ("embedding_bag_out_of_range", "index_out_of_range",
     "F.embedding_bag(tensor([1,10]), randn(10,3), tensor([0]))",
     lambda: F.embedding_bag(torch.tensor([1, 10]), torch.randn(10, 3),
                             torch.tensor([0]))),
    ("index_select_out_of_range", "index_out_of_range",
     "torch.index_select(randn(5,3), 0, tensor([7]))",
     lambda: torch.index_select(torch.randn(5, 3), 0, torch.tensor([7]))),
    ("matmul_shape_mismatch", "contract",
     "torch.matmul(randn(2,3), randn(4,5))",
     lambda: torch.matmul(torch.randn(2, 3), torch.randn(4, 5))),
    ("nll_loss_target_int32", "contract",
     "F.nll_loss(randn(3,4), tensor([0,1,2], dtype=int32))",
     lambda: F.nll_loss(torch.randn(3, 4),
                        torch.tensor([0, 1, 2], dtype=torch.int32))),
    ("gather_index_int32", "contract",
     "torch.gather(randn(3,4), 1, zeros(3,1, dtype=int32))",
     lambda: torch.gather(torch.randn(3, 4), 1,
                          torch.zeros(3, 1, dtype=torch.int32))),
    ("gather_index_out_of_range", "index_out_of_range",
     "torch.gather(randn(3,4), 1, full((3,1), 9))",
     lambda: torch.gather(torch.randn(3, 4), 1, torch.full((3, 1), 9))),
    ("cuda_tensor_on_cpu_build", "op_unavailable",
     "torch.ones(2, device='cuda') on a CPU-only build",
     lambda: torch.ones(2, device="cuda")),
    ("add_shape_mismatch", "contract",
     "torch.add(randn(2,3), randn(4,5))",
     lambda: torch.add(torch.randn(2, 3), torch.randn(4, 5))),
    ("view_invalid", "contract", "randn(2,3).view(4)",
     lambda: torch.randn(2, 3).view(4)),
    ("tensor_index_out_of_range", "index_out_of_range", "randn(3)[5]",
     lambda: torch.randn(3)[5]),
    ("dim_out_of_range", "contract", "randn(3,2).sum(5)",
     lambda: torch.randn(3, 2).sum(5)),
    ("cat_mismatch", "contract", "torch.cat([randn(2,3), randn(2,4)], 0)",
     lambda: torch.cat([torch.randn(2, 3), torch.randn(2, 4)], 0)),
    ("conv2d_wrong_channels", "contract",
     "torch.conv2d(randn(1,3,8,8), randn(4,2,3,3))",
     lambda: torch.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 2, 3, 3))),
    ("mm_dtype_mismatch", "contract",
     "torch.mm(randn(2,3), randn(3,4, dtype=float64))",
     lambda: torch.mm(torch.randn(2, 3), torch.randn(3, 4, dtype=torch.float64))),
    ("randn_int", "op_unavailable", "torch.randn(2, dtype=int32)",
     lambda: torch.randn(2, dtype=torch.int32)),
    ("index_put_out_of_range", "index_out_of_range",
     "zeros(3).index_put_((tensor([5]),), ones(1))",
     lambda: torch.zeros(3).index_put_((torch.tensor([5]),), torch.ones(1))),
    ("scatter_index_out_of_range", "index_out_of_range",
     "zeros(3,4).scatter_(1, full((3,1), 9), 1.0)",
     lambda: torch.zeros(3, 4).scatter_(1, torch.full((3, 1), 9), 1.0)),
    ("one_hot_out_of_range", "index_out_of_range",
     "F.one_hot(tensor([0,5]), 4)",
     lambda: F.one_hot(torch.tensor([0, 5]), 4)),
    ("empty_huge", "out_of_memory", "torch.empty(1<<40, 1<<20)",
     lambda: torch.empty(1 << 40, 1 << 20)),
    ("multinomial_negative", "nan_or_inf",
     "torch.multinomial(tensor([-1.0, 2.0]), 1)",
     lambda: torch.multinomial(torch.tensor([-1.0, 2.0]), 1)),
    ("binary_cross_entropy_out_of_range", "contract",
     "F.binary_cross_entropy(tensor([1.5]), tensor([1.0]))",
     lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))),
    ("item_multi", "contract", "randn(3).item()",
     lambda: torch.randn(3).item()),
    ("bool_sub", "contract", "torch.sub on two bool tensors",
     lambda: torch.sub(torch.tensor([True]), torch.tensor([False]))),
    ("sparse_op", "op_unavailable", "eye(3).to_sparse().view(9)",
     lambda: torch.eye(3).to_sparse().view(9)),
]


def main():
    version = torch.__version__
    # Names stay unique across the files: the same call, another version.
    tag = "torch" + "_".join(version.split("+")[0].split(".")[:2])
    print(f"# Error messages of PyTorch {version} (pip wheel, CPU), recorded by\n"
          "# tests/messages/record_cpu_messages.py: each call below made with\n"
          "# Python's torch, the Python exception's type and str(). The family\n"
          "# is what casebook must give it. Calls that no longer fail in this\n"
          "# version are left out (the script says which on stderr).\n"
          "# Format: \"=== name\", then \"family:\", \"type:\", \"source:\" lines, then\n"
          "# \"---\", then the text up to the next \"===\" line.")
    for name, family, source, call in CALLS:
        try:
            call()
        except Exception as error:  # noqa: BLE001 - recording every type
            text = str(error).rstrip()
            print(f"\n=== {name}_{tag}\nfamily: {family}\ntype: {type(error).__name__}\n"
                  f"source: PyTorch {version} CPU, {source}\n---\n{text}")
        else:
            print(f"{name}: no error in {version}", file=sys.stderr)


if __name__ == "__main__":
    main()
