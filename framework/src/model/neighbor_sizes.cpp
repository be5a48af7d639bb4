// The rules that resize a dim: last_batch (the incomplete last batch beside
// a full one), lengths (the shortest valid and a long one) and
// block_boundaries (n-1, n, n+1 around each block size a kernel declares).
// Every input dim named by `along` (else the op's) takes the new size;
// `values` repeat along it, a `fill` draws as many numbers as it needs.
#include <algorithm>
#include <functional>
#include <set>

#include "casebook/joined.h"
#include "casebook/limits.h"
#include "casebook/op_traits.h"
#include "model/neighbor_support.h"
#include "model/yaml_reader.h"

namespace casebook::model {
namespace {

struct Dim {
  std::string input;
  int64_t dim = 0;
};

std::string dim_name(const Dim& dim) {
  return dim.input + "." + std::to_string(dim.dim);
}

// The dims a resizing rule changes, their common size, and how they read
// ("target.0, input.0").
struct ResizedDims {
  std::vector<Dim> dims;
  int64_t size = -1;
  std::string names;
};

using OpDims = std::vector<std::pair<std::string, int64_t>> NeighborOpTraits::*;

// Sets out->size to the size every dim in out->dims shares, and out->names
// to their names; `guessed` (dim 0 of every input) words a disagreement.
// Returns why they differ, or "".
std::string common_size(const Case& base, bool guessed, ResizedDims* out) {
  const std::vector<Dim>& dims = out->dims;
  int64_t& size = out->size;
  std::vector<std::string> names;
  for (const Dim& dim : dims) {
    names.push_back(dim_name(dim));
    const int64_t here = find_input(base, dim.input)->shape[dim.dim];
    if (size >= 0 && here != size) {
      return guessed
                 ? "the inputs differ in size at dim 0 (" +
                       dim_name(dims.front()) + " is " + std::to_string(size) +
                       ", " + dim_name(dim) + " is " + std::to_string(here) +
                       "): name the dims to resize with `along: {input: "
                       "dim, ...}`"
                 : "the dims to resize differ in size: " +
                       dim_name(dims.front()) + " is " + std::to_string(size) +
                       ", " + dim_name(dim) + " is " + std::to_string(here);
    }
    size = here;
  }
  out->names = joined(names);
  return "";
}

// The dims to resize: those written in `along`, else the op's (`op_dims` of
// its traits), else dim 0 of every input when they all agree on its size.
// Returns why there are none, or "".
std::string resolve_dims(const Case& base, const NeighborRule& rule,
                         OpDims op_dims, ResizedDims* out) {
  const NeighborOpTraits* traits = neighbor_op_traits(base.op);
  const bool declared = !rule.along.empty();
  std::vector<std::pair<std::string, int64_t>> wanted =
      declared ? rule.along
               : (traits != nullptr
                      ? traits->*op_dims
                      : std::vector<std::pair<std::string, int64_t>>{});
  const bool guessed = wanted.empty();
  if (guessed) {
    for (const TensorSpec& input : base.inputs)
      wanted.emplace_back(input.name, 0);
  }
  std::vector<Dim>& dims = out->dims;
  for (const auto& [name, dim] : wanted) {
    const TensorSpec* input = find_input(base, name);
    if (input == nullptr) {
      if (!declared) continue;  // the op's list names inputs it may not have
      return "`along` names input `" + name + "`; the case's inputs are " +
             input_names(base);
    }
    if (!input->shape_given) {
      return "input `" + name +
             "` is a file without `shape`: its size is not known here";
    }
    const auto rank = static_cast<int64_t>(input->shape.size());
    if (dim < -rank || dim >= rank) {
      if (!declared && !guessed) continue;
      if (guessed) {
        return "input `" + name +
               "` is 0-dimensional; name the dims to resize with `along: "
               "{input: dim, ...}`";
      }
      return "`along` names dim " + std::to_string(dim) + " of input `" + name +
             "`, which has " + std::to_string(rank) + " dims";
    }
    dims.push_back({name, dim < 0 ? dim + rank : dim});
  }
  if (dims.empty()) {
    return "no input of the case has the dims op `" + base.op +
           "` resizes; name them with `along: {input: dim, ...}`";
  }
  return common_size(base, guessed, out);
}

// Repeats the `values` of `spec` cyclically along `dim` to `size` (from its
// present size there, which is not 0); the shape is left to the caller.
void repeat_values(TensorSpec& spec, int64_t dim, int64_t size) {
  const int64_t old_size = spec.shape[dim];
  int64_t inner = 1;
  int64_t outer = 1;
  for (size_t d = 0; d < spec.shape.size(); ++d) {
    if (static_cast<int64_t>(d) < dim) outer *= spec.shape[d];
    if (static_cast<int64_t>(d) > dim) inner *= spec.shape[d];
  }
  auto repeat = [&](auto& values) {
    std::remove_reference_t<decltype(values)> out;
    out.reserve(static_cast<size_t>(outer * size * inner));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < size; ++i) {
        const int64_t from = (o * old_size + i % old_size) * inner;
        out.insert(out.end(), values.begin() + from,
                   values.begin() + from + inner);
      }
    }
    values = std::move(out);
  };
  if (is_floating(spec.dtype)) {
    repeat(spec.float_values);
  } else {
    repeat(spec.int_values);
  }
}

// Resizes `dim` of `spec`; `values` repeat cyclically along it.
std::string resize(TensorSpec& spec, int64_t dim, int64_t size) {
  if (spec.source == TensorSpec::Source::kFile) {
    return "input `" + spec.name +
           "` is read from a file, whose size cannot change";
  }
  if (spec.layout.kind == Layout::Kind::kStrided) {
    return "input `" + spec.name +
           "` has a `layout.stride` written for its shape";
  }
  const int64_t old_size = spec.shape[dim];
  std::vector<int64_t> shape = spec.shape;
  shape[dim] = size;
  const uint64_t count = casebook::element_count(shape);
  // The view of `contiguous: false` skips every other element.
  const uint64_t storage =
      spec.layout.kind == Layout::Kind::kNonContiguous && count < UINT64_MAX / 2
          ? 2 * count
          : count;
  if (auto problem = check_tensor_size(storage, element_size(spec.dtype),
                                       std::string(dtype_name(spec.dtype)))) {
    return "input `" + spec.name + "` of size " + std::to_string(size) +
           " along dim " + std::to_string(dim) + ": " + *problem;
  }
  // `values` are held, and written by --write, element by element.
  constexpr uint64_t kMostValues = uint64_t{1} << 22;
  if (spec.source == TensorSpec::Source::kValues && count > kMostValues) {
    return "input `" + spec.name + "` is written as `values`; of size " +
           std::to_string(size) + " along dim " + std::to_string(dim) +
           " it would hold " + std::to_string(count) +
           " of them, over 4194304: give it a `fill`";
  }
  if (spec.source == TensorSpec::Source::kValues && size != old_size) {
    if (old_size == 0) {
      return "input `" + spec.name + "` has no values along dim " +
             std::to_string(dim) + " to repeat";
    }
    repeat_values(spec, dim, size);
  }
  spec.shape[dim] = size;
  return "";
}

struct Sized {
  int64_t size;
  std::string change;
};

// The sizes a rule gives, each with its change told along `dims` (the names
// of the dims resized: "target.0, input.0").
using SizesFor = std::function<std::vector<Sized>(const std::string& dims)>;

// Resolves the dims to resize (`op_dims` of the op's traits, unless `along`
// names them), then makes one neighbour per size `sizes_for` gives; sizes
// equal to the base's are the base itself.
RuleResult resized(const Case& base, const NeighborRule& rule,
                   const std::string& rule_name, OpDims op_dims,
                   const SizesFor& sizes_for) {
  ResizedDims target;
  if (std::string why = resolve_dims(base, rule, op_dims, &target);
      !why.empty()) {
    return rule_error(why);
  }
  if (base.grad && !base.grad->grad_outputs.empty()) {
    return rule_error(
        "`grad.grad_outputs` are written for the base case's "
        "shapes");
  }
  RuleResult result;
  std::set<int64_t> done;
  for (const Sized& each : sizes_for(target.names)) {
    if (each.size == target.size || !done.insert(each.size).second) continue;
    Neighbor neighbor =
        start_neighbor(base, rule_name, std::to_string(each.size), each.change);
    for (const Dim& dim : target.dims) {
      const std::string why =
          resize(*find_input(neighbor.value, dim.input), dim.dim, each.size);
      if (!why.empty()) return rule_error(why);
    }
    expect_as_resized(neighbor, base);
    result.made.push_back(std::move(neighbor));
  }
  if (result.made.empty()) {
    return rule_error("every size it gives equals the base case's (" +
                      std::to_string(target.size) + "): nothing to generate");
  }
  return result;
}

}  // namespace

RuleResult last_batch_rule(const Case& base, const NeighborRule& rule) {
  if (!rule.dataset_size || !rule.batch_size) {
    return rule_error(
        "needs `dataset_size` and `batch_size`: the incomplete last batch is "
        "dataset_size mod batch_size rows");
  }
  const int64_t dataset_size = *rule.dataset_size;
  const int64_t batch_size = *rule.batch_size;
  const int64_t rest = dataset_size % batch_size;
  if (batch_size > dataset_size) {
    return rule_error("a batch of " + std::to_string(batch_size) +
                      " is larger than the data set of " +
                      std::to_string(dataset_size) + " samples");
  }
  if (rest == 0) {
    return rule_error(std::to_string(dataset_size) + " samples in batches of " +
                      std::to_string(batch_size) +
                      " leave no incomplete batch");
  }
  return resized(
      base, rule, "last_batch", &NeighborOpTraits::batch,
      [&](const std::string& dims) {
        const std::string along = " (" + dims + ")";
        return std::vector<Sized>{
            {rest, "the last batch of " + std::to_string(dataset_size) +
                       " samples in batches of " + std::to_string(batch_size) +
                       ": " + std::to_string(rest) + " rows" + along},
            {batch_size, "a full batch of " + std::to_string(batch_size) +
                             " rows" + along}};
      });
}

RuleResult lengths_rule(const Case& base, const NeighborRule& rule) {
  const NeighborOpTraits* traits = neighbor_op_traits(base.op);
  const bool empty =
      rule.empty.value_or(traits != nullptr && traits->allows_empty);
  return resized(
      base, rule, "lengths", &NeighborOpTraits::batch,
      [&](const std::string& dims) {
        const std::string along = " (" + dims + ")";
        std::vector<Sized> sizes;
        if (empty) sizes.push_back({0, "an empty dim" + along});
        sizes.push_back({1, "the shortest non-empty length" + along});
        if (rule.long_length) {
          sizes.push_back(
              {*rule.long_length, "the long length the case names" + along});
        }
        return sizes;
      });
}

RuleResult block_boundaries_rule(const Case& base, const NeighborRule& rule) {
  const NeighborOpTraits* traits = neighbor_op_traits(base.op);
  const std::vector<int64_t> blocks =
      !rule.blocks.empty()
          ? rule.blocks
          : (traits != nullptr ? traits->blocks : std::vector<int64_t>{});
  if (blocks.empty()) {
    return rule_error("op `" + base.op + "` declares no block size (" +
                      installed_op_traits().wording.with_blocks +
                      " do): give `blocks: [...]` and `along: {input: dim}`");
  }
  if (rule.along.empty() && (traits == nullptr || traits->block_dims.empty())) {
    return rule_error("op `" + base.op +
                      "` says nothing of the dim its blocks run along: give "
                      "`along: {input: dim}`");
  }
  return resized(
      base, rule, "block_boundaries", &NeighborOpTraits::block_dims,
      [&](const std::string& dims) {
        const std::string along = " along " + dims;
        std::vector<Sized> sizes;
        for (int64_t block : blocks) {
          const std::string of = std::to_string(block) + along;
          if (block - 1 >= 1) {
            sizes.push_back({block - 1, "one short of the block of " + of});
          }
          sizes.push_back({block, "exactly the block of " + of});
          sizes.push_back({block + 1, "one past the block of " + of});
        }
        std::stable_sort(
            sizes.begin(), sizes.end(),
            [](const Sized& a, const Sized& b) { return a.size < b.size; });
        return sizes;
      });
}

}  // namespace casebook::model
