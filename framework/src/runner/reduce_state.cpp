#include "runner/reduce_state.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "casebook/neighbors.h"
#include "casebook/shape_text.h"
#include "tensors/materialise.h"
#include "tensors/values_text.h"

namespace casebook::reducing {

ReduceState initial_state(const Case& kase) {
  ReduceState state;
  state.kase = kase;
  state.values.resize(kase.inputs.size());
  state.changed.assign(kase.inputs.size(), false);
  return state;
}

const at::Tensor& input_values(ReduceState& state, size_t input) {
  at::Tensor& values = state.values.at(input);
  if (!values.defined()) {
    // A fixture's values are a view of its mapping: a copy of its own.
    values = read_only_values(state.kase.inputs[input])
                 .clone(at::MemoryFormat::Contiguous);
  }
  return values;
}

void set_input_values(ReduceState& state, size_t input, at::Tensor values) {
  TensorSpec& spec = state.kase.inputs.at(input);
  TensorSpec written = values_spec(spec.name, values);
  written.layout = spec.layout;
  written.where = spec.where;
  spec = std::move(written);
  state.values[input] = values.contiguous();
  state.changed[input] = true;
}

void follow_aliases(ReduceState& state) {
  casebook::follow_aliases(state.kase.inputs);
  for (size_t i = 0; i < state.kase.inputs.size(); ++i) {
    if (const auto target = alias_target(state.kase.inputs, i)) {
      state.values[i] = state.values[*target];
      state.changed[i] = state.changed[*target];
    }
  }
}

void keep_inputs(ReduceState& state, const std::vector<bool>& kept) {
  ReduceState out = state;
  out.kase.inputs.clear();
  out.values.clear();
  out.changed.clear();
  for (size_t i = 0; i < kept.size(); ++i) {
    if (!kept[i]) continue;
    out.kase.inputs.push_back(state.kase.inputs[i]);
    out.values.push_back(state.values[i]);
    out.changed.push_back(state.changed[i]);
  }
  state = std::move(out);
}

namespace {

// Union-find over (input, dim), refusing a union that would put two dims of
// one input in one group.
class DimUnion {
 public:
  explicit DimUnion(std::vector<std::vector<int64_t>> shapes)
      : shapes_(std::move(shapes)) {
    for (size_t i = 0; i < shapes_.size(); ++i) {
      for (size_t d = 0; d < shapes_[i].size(); ++d) {
        node_[{i, d}] = parent_.size();
        parent_.push_back(parent_.size());
        inputs_.push_back({i});
      }
    }
  }
  void join(size_t a, size_t a_dim, size_t b, size_t b_dim) {
    const auto first = node_.find({a, a_dim});
    const auto second = node_.find({b, b_dim});
    if (a == b || first == node_.end() || second == node_.end() ||
        shapes_[a][a_dim] != shapes_[b][b_dim]) {
      return;
    }
    const size_t x = root(first->second);
    const size_t y = root(second->second);
    if (x == y) return;
    for (size_t input : inputs_[y]) {
      if (std::count(inputs_[x].begin(), inputs_[x].end(), input)) return;
    }
    parent_[y] = x;
    inputs_[x].insert(inputs_[x].end(), inputs_[y].begin(), inputs_[y].end());
  }
  std::vector<DimGroup> groups() {
    std::map<size_t, DimGroup> by_root;
    for (const auto& [dim, node] : node_) {
      DimGroup& group = by_root[root(node)];
      group.dims.emplace_back(dim.first, static_cast<int64_t>(dim.second));
      group.original_size = shapes_[dim.first][dim.second];
    }
    std::vector<DimGroup> out;
    for (auto& [root_node, group] : by_root) {
      if (group.original_size < 2) continue;
      group.original.resize(static_cast<size_t>(group.original_size));
      std::iota(group.original.begin(), group.original.end(), 0);
      out.push_back(std::move(group));
    }
    // Dims shared by more inputs first (a batch: its rows hold the other
    // labels, which would fail otherwise once the classes shrink), then
    // the larger.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      if (a.dims.size() != b.dims.size()) return a.dims.size() > b.dims.size();
      return a.original_size > b.original_size;
    });
    return out;
  }

 private:
  size_t root(size_t node) {
    while (parent_[node] != node) node = parent_[node];
    return node;
  }
  std::vector<std::vector<int64_t>> shapes_;
  std::map<std::pair<size_t, size_t>, size_t> node_;
  std::vector<size_t> parent_;
  std::vector<std::vector<size_t>> inputs_;
};

// The op's batch dims (its neighbour traits), joined first.
void join_batch_dims(const Case& kase, DimUnion& dims) {
  const NeighborOpTraits* traits =
      kase.steps.empty() ? neighbor_op_traits(kase.op) : nullptr;
  if (traits == nullptr) return;
  std::vector<std::pair<size_t, size_t>> batch;
  for (const auto& [name, dim] : traits->batch) {
    for (size_t i = 0; i < kase.inputs.size(); ++i) {
      if (kase.inputs[i].name == name && dim >= 0) {
        batch.emplace_back(i, static_cast<size_t>(dim));
      }
    }
  }
  for (size_t k = 1; k < batch.size(); ++k) {
    dims.join(batch[0].first, batch[0].second, batch[k].first, batch[k].second);
  }
}

}  // namespace

std::vector<DimGroup> dim_groups(ReduceState& state,
                                 const std::vector<bool>& fixed) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < state.kase.inputs.size(); ++i) {
    const at::Tensor& values = input_values(state, i);
    const bool follows = !state.kase.inputs[i].same_as.empty();
    shapes.push_back(fixed[i] || follows ? std::vector<int64_t>{}
                                         : values.sizes().vec());
  }
  DimUnion dims(shapes);
  join_batch_dims(state.kase, dims);
  for (size_t a = 0; a < shapes.size(); ++a) {
    for (size_t b = a + 1; b < shapes.size(); ++b) {
      const size_t rank = std::min(shapes[a].size(), shapes[b].size());
      for (size_t d = 0; d < rank; ++d) dims.join(a, d, b, d);
      for (size_t k = 1; k <= rank; ++k) {
        dims.join(a, shapes[a].size() - k, b, shapes[b].size() - k);
      }
    }
  }
  return dims.groups();
}

ReduceState with_positions(ReduceState state, size_t group,
                           const std::vector<int64_t>& positions) {
  const at::Tensor index = at::tensor(positions, at::kLong);
  DimGroup& dims = state.groups.at(group);
  for (const auto& [input, dim] : dims.dims) {
    at::Tensor kept = input_values(state, input).index_select(dim, index);
    set_input_values(state, input, std::move(kept));
  }
  std::vector<int64_t> original;
  for (int64_t position : positions) {
    original.push_back(dims.original.at(static_cast<size_t>(position)));
  }
  dims.original = std::move(original);
  return state;
}

std::string sizes_text(ReduceState& state) {
  std::string text;
  for (size_t i = 0; i < state.kase.inputs.size(); ++i) {
    text += (i == 0 ? "" : ", ") + state.kase.inputs[i].name + " " +
            shape_text(input_values(state, i).sizes().vec());
  }
  return text;
}

std::string dims_text(const Case& kase, const DimGroup& group) {
  std::string text;
  for (size_t k = 0; k < group.dims.size(); ++k) {
    text += k == 0 ? "" : k + 1 == group.dims.size() ? " and " : ", ";
    text += "`" + kase.inputs[group.dims[k].first].name + "` dim " +
            std::to_string(group.dims[k].second);
  }
  return text;
}

}  // namespace casebook::reducing
