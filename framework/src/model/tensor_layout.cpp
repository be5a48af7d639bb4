// `layout`: exactly one way the tensor sits in memory, checked against the
// tensor's rank; negative dims are normalised.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

const std::vector<std::string> kLayoutKeys{"transpose", "permute", "stride",
                                           "storage_offset", "contiguous"};

// Dims in [-rank, rank), normalised to [0, rank); nullopt after an error.
std::optional<std::vector<int64_t>> read_dims(Reader& reader,
                                              const Entry& entry,
                                              const std::string& path,
                                              size_t expected_count,
                                              size_t rank) {
  auto dims =
      reader.read_int_list(entry, path, std::numeric_limits<int64_t>::min());
  if (!dims) return std::nullopt;
  if (dims->size() != expected_count) {
    reader.error(reader.where(entry), path,
                 "expected " + std::to_string(expected_count) +
                     " dims for a tensor of rank " + std::to_string(rank) +
                     "; got " + std::to_string(dims->size()));
    return std::nullopt;
  }
  const auto signed_rank = static_cast<int64_t>(rank);
  for (size_t i = 0; i < dims->size(); ++i) {
    int64_t& dim = (*dims)[i];
    if (dim < -signed_rank || dim >= signed_rank) {
      const YAML::Node item = entry.value[i];
      reader.error(item, path + "[" + std::to_string(i) + "]",
                   "expected a dim in [" + std::to_string(-signed_rank) + ", " +
                       std::to_string(signed_rank - 1) +
                       "] for a tensor of rank " + std::to_string(rank) +
                       "; got " + describe(item));
      return std::nullopt;
    }
    if (dim < 0) dim += signed_rank;
  }
  return dims;
}

// Reports a `storage_offset` without `stride`, and anything but exactly one
// kind of layout (every key but storage_offset is one).
void check_one_kind(Reader& reader, const Entry& entry,
                    const std::vector<Entry>& map, const std::string& path) {
  std::vector<std::string> kinds;
  for (const Entry& item : map) {
    if (item.key != "storage_offset") kinds.push_back("`" + item.key + "`");
  }
  const Entry* offset = find_entry(map, "storage_offset");
  if (offset != nullptr && find_entry(map, "stride") == nullptr) {
    reader.error(offset->key_node, join_path(path, "storage_offset"),
                 "`storage_offset` goes with `stride` only");
  }
  if (kinds.size() != 1) {
    reader.error(reader.where(entry), path,
                 "expected exactly one of `transpose`, `permute`, `stride`, "
                 "`contiguous`; got " +
                     (kinds.empty() ? std::string("none") : joined(kinds)));
  }
}

// `contiguous: false`; `true` is the default, not a layout to write.
std::optional<Layout> read_contiguous(Reader& reader, const Entry& kind,
                                      const std::string& kind_path) {
  const auto contiguous = reader.read_bool(kind, kind_path);
  if (!contiguous) return std::nullopt;
  if (*contiguous) {
    reader.error(reader.where(kind), kind_path,
                 "`contiguous: true` is the default layout: omit `layout`");
    return std::nullopt;
  }
  Layout layout;
  layout.kind = Layout::Kind::kNonContiguous;
  return layout;
}

std::optional<Layout> read_transpose(Reader& reader, const Entry& kind,
                                     const std::string& kind_path,
                                     size_t rank) {
  auto dims = read_dims(reader, kind, kind_path, 2, rank);
  if (!dims) return std::nullopt;
  Layout layout;
  layout.kind = Layout::Kind::kTranspose;
  layout.dims = *dims;
  return layout;
}

// `permute`: every dim once.
std::optional<Layout> read_permute(Reader& reader, const Entry& kind,
                                   const std::string& kind_path, size_t rank) {
  auto dims = read_dims(reader, kind, kind_path, rank, rank);
  if (!dims) return std::nullopt;
  std::vector<int64_t> sorted = *dims;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) {
      reader.error(reader.where(kind), kind_path,
                   "expected a permutation of the dims 0.." +
                       std::to_string(rank - 1) + "; got a repeated dim");
      return std::nullopt;
    }
  }
  Layout layout;
  layout.kind = Layout::Kind::kPermute;
  layout.dims = *dims;
  return layout;
}

// `storage_offset`: an integer >= 0.
std::optional<int64_t> read_storage_offset(Reader& reader, const Entry& offset,
                                           const std::string& path) {
  const std::string offset_path = join_path(path, "storage_offset");
  const auto value =
      reader.read_int(offset.value, reader.where(offset), offset_path);
  if (!value) return std::nullopt;
  if (*value < 0) {
    reader.error(reader.where(offset), offset_path,
                 "expected an integer >= 0; got " + describe(offset.value));
    return std::nullopt;
  }
  return value;
}

// `stride`: one per dim, with `storage_offset` (`offset`, may be null).
std::optional<Layout> read_strided(Reader& reader, const Entry& kind,
                                   const std::string& kind_path,
                                   const Entry* offset, const std::string& path,
                                   size_t rank) {
  auto strides = reader.read_int_list(kind, kind_path, 0);
  if (!strides) return std::nullopt;
  if (strides->size() != rank) {
    reader.error(reader.where(kind), kind_path,
                 "expected " + std::to_string(rank) +
                     " strides, one per dim; got " +
                     std::to_string(strides->size()));
    return std::nullopt;
  }
  Layout layout;
  layout.kind = Layout::Kind::kStrided;
  layout.stride = *strides;
  if (offset != nullptr) {
    const auto value = read_storage_offset(reader, *offset, path);
    if (!value) return std::nullopt;
    layout.storage_offset = *value;
  }
  return layout;
}

}  // namespace

std::optional<Layout> read_layout(Reader& reader, const Entry& entry,
                                  const std::string& path,
                                  std::optional<size_t> rank) {
  const size_t errors_before = reader.error_count();
  const auto map = reader.read_map(
      entry.value, reader.where(entry), path, kLayoutKeys,
      "a layout: {transpose: [a, b]}, {permute: [...]}, {stride: [...]} or "
      "{contiguous: false}");
  if (!map) return std::nullopt;
  check_one_kind(reader, entry, *map, path);
  if (reader.error_count() != errors_before) return std::nullopt;
  const Entry& kind =
      map->front().key == "storage_offset" ? map->back() : map->front();
  const std::string kind_path = join_path(path, kind.key);
  if (kind.key == "contiguous") return read_contiguous(reader, kind, kind_path);
  if (!rank) {
    reader.error(reader.where(entry), path,
                 "a layout needs the tensor's rank: give `shape` with `file`");
    return std::nullopt;
  }
  if (kind.key == "transpose") {
    return read_transpose(reader, kind, kind_path, *rank);
  }
  if (kind.key == "permute")
    return read_permute(reader, kind, kind_path, *rank);
  return read_strided(reader, kind, kind_path,
                      find_entry(*map, "storage_offset"), path, *rank);
}

}  // namespace casebook::model
