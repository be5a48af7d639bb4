// `inputs.<name>`: a tensor's keys, its source (exactly one of values, fill,
// file) and the keys that go with one source only.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/limits.h"
#include "casebook/suggestions.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

const std::vector<std::string> kTensorKeys{"dtype",  "shape",  "values",
                                           "fill",   "seed",   "file",
                                           "sha256", "layout", "rounding"};

std::optional<DType> read_dtype(Reader& reader, const Entry* entry,
                                const SourceLocation& tensor_where,
                                const std::string& path) {
  if (entry == nullptr) {
    reader.error(tensor_where, path,
                 "required key missing; expected one of " + dtype_names());
    return std::nullopt;
  }
  return reader.read_name(entry->value, reader.where(*entry), path, parse_dtype,
                          dtype_names(), suggest_dtype);
}

// Reports a key that goes with one source only, given without it.
void check_companion(Reader& reader, const Entry* entry, bool allowed,
                     const std::string& path, const std::string& owner) {
  if (entry != nullptr && !allowed) {
    reader.error(entry->key_node, join_path(path, entry->key),
                 "`" + entry->key + "` goes with `" + owner + "` only");
  }
}

// The storage a tensor of `shape` needs with `layout` (a strided view's
// furthest element, a non-contiguous view's skipped elements), saturated.
uint64_t storage_elements(const std::vector<int64_t>& shape,
                          const Layout& layout) {
  const uint64_t numel = element_count(shape);
  uint64_t extent = numel;
  if (layout.kind == Layout::Kind::kNonContiguous) {
    if (__builtin_mul_overflow(numel, uint64_t{2}, &extent)) return UINT64_MAX;
  } else if (layout.kind == Layout::Kind::kStrided) {
    extent = static_cast<uint64_t>(layout.storage_offset);
    if (numel == 0) return extent;
    for (size_t d = 0; d < shape.size() && d < layout.stride.size(); ++d) {
      uint64_t reach = 0;
      if (__builtin_mul_overflow(static_cast<uint64_t>(shape[d] - 1),
                                 static_cast<uint64_t>(layout.stride[d]),
                                 &reach) ||
          __builtin_add_overflow(extent, reach, &extent)) {
        return UINT64_MAX;
      }
    }
    extent = extent == UINT64_MAX ? extent : extent + 1;
  }
  return extent;
}

// A tensor over load_limits() is refused here, before anything is made.
void check_size(Reader& reader, const Entry* at, const SourceLocation& or_at,
                const std::string& path, uint64_t storage, DType dtype) {
  if (auto problem = check_tensor_size(storage, element_size(dtype),
                                       std::string(dtype_name(dtype)))) {
    reader.error(at != nullptr ? reader.where(*at) : or_at, path, *problem);
  }
}

}  // namespace

std::optional<TensorSpec> read_tensor(Reader& reader, const Entry& entry,
                                      const std::string& path,
                                      const std::filesystem::path& case_file) {
  return read_tensor(reader, entry, path, case_file, TensorKeys{}, nullptr,
                     nullptr);
}

std::optional<TensorSpec> read_tensor(Reader& reader, const Entry& entry,
                                      const std::string& path,
                                      const std::filesystem::path& case_file,
                                      const TensorKeys& keys,
                                      std::vector<Entry>* extras,
                                      bool* has_source) {
  const size_t errors_before = reader.error_count();
  const SourceLocation tensor_where = reader.where(entry);
  std::vector<std::string> known = kTensorKeys;
  known.insert(known.end(), keys.extra.begin(), keys.extra.end());
  const auto map = reader.read_map(
      entry.value, tensor_where, path, known,
      keys.source_optional ? "a map of what the output must be"
                           : "a tensor: a map with dtype and one of values, "
                             "fill, file");
  if (!map) return std::nullopt;
  for (const Entry& item : *map) {
    const bool extra = std::find(keys.extra.begin(), keys.extra.end(),
                                 item.key) != keys.extra.end();
    if (extra && extras != nullptr) extras->push_back(item);
  }
  TensorSpec spec;
  spec.name = entry.key;
  spec.where = tensor_where;
  spec.round_to_nearest =
      keys.values_round_to_nearest || reader.round_values_to_nearest();
  const Entry* values = find_entry(*map, "values");
  const Entry* fill = find_entry(*map, "fill");
  const Entry* file = find_entry(*map, "file");
  if (has_source != nullptr) {
    *has_source = values != nullptr || fill != nullptr || file != nullptr;
  }
  if (keys.source_optional && values == nullptr && fill == nullptr &&
      file == nullptr) {
    for (const char* key : {"dtype", "shape"}) {
      if (const Entry* alone = find_entry(*map, key)) {
        if (extras != nullptr) extras->push_back(*alone);
      }
    }
    for (const char* key : {"seed", "sha256", "layout", "rounding"}) {
      if (const Entry* alone = find_entry(*map, key)) {
        reader.error(alone->key_node, join_path(path, alone->key),
                     "`" + alone->key +
                         "` goes with expected values (`values`, `fill` or "
                         "`file`) only");
      }
    }
    return std::nullopt;
  }

  const std::optional<DType> dtype =
      read_dtype(reader, find_entry(*map, "dtype"), tensor_where,
                 join_path(path, "dtype"));
  if (dtype) spec.dtype = *dtype;

  std::optional<std::vector<int64_t>> shape;
  if (const Entry* shape_entry = find_entry(*map, "shape")) {
    shape = reader.read_int_list(*shape_entry, join_path(path, "shape"), 0);
    if (!shape) return std::nullopt;  // the source can't be checked without
    if (dtype) {
      const size_t before = reader.error_count();
      check_size(reader, shape_entry, tensor_where, join_path(path, "shape"),
                 element_count(*shape), *dtype);
      // Values or a fill of that size are not worth reading.
      if (reader.error_count() != before) return std::nullopt;
    }
  }

  std::vector<std::string> sources;
  for (const Entry* source : {values, fill, file}) {
    if (source != nullptr) sources.push_back("`" + source->key + "`");
  }
  if (sources.size() != 1) {
    reader.error(tensor_where, path,
                 "expected exactly one of `values`, `fill`, `file`; got " +
                     (sources.empty() ? std::string("none") : join(sources)));
  }
  check_companion(reader, find_entry(*map, "seed"), fill != nullptr, path,
                  "fill");
  check_companion(reader, find_entry(*map, "sha256"), file != nullptr, path,
                  "file");
  if (const Entry* rounding = find_entry(*map, "rounding")) {
    const std::string rounding_path = join_path(path, "rounding");
    const Scalar scalar = resolve_scalar(rounding->value);
    if (scalar.kind != Scalar::Kind::kString || scalar.text != "nearest") {
      reader.error(reader.where(*rounding), rounding_path,
                   "expected `nearest`; got " + describe(rounding->value));
    } else {
      spec.round_to_nearest = true;
      check_companion(reader, rounding, values != nullptr, path, "values");
    }
  }
  if (sources.size() != 1 || !dtype) return std::nullopt;

  if (shape) spec.shape = *shape;
  if (values != nullptr) {
    spec.source = TensorSpec::Source::kValues;
    read_values(reader, *values, join_path(path, "values"), *dtype, shape,
                spec);
  } else if (fill != nullptr) {
    spec.source = TensorSpec::Source::kFill;
    if (!shape) {
      reader.error(tensor_where, join_path(path, "shape"),
                   "required key missing: a `fill` needs `shape`");
    }
    if (auto generator =
            read_fill(reader, *fill, join_path(path, "fill"), *dtype)) {
      spec.fill = *generator;
    }
    if (const Entry* seed = find_entry(*map, "seed")) {
      const std::string seed_path = join_path(path, "seed");
      const auto value =
          reader.read_int(seed->value, reader.where(*seed), seed_path);
      if (value && *value < 0) {
        reader.error(reader.where(*seed), seed_path,
                     "expected an integer >= 0; got " + describe(seed->value));
      } else if (value) {
        spec.seed = static_cast<uint64_t>(*value);
      }
    }
  } else {
    spec.source = TensorSpec::Source::kFile;
    spec.shape_given = shape.has_value();
    read_fixture(reader, *file, find_entry(*map, "sha256"),
                 join_path(path, "file"), case_file, spec);
  }

  if (const Entry* layout = find_entry(*map, "layout")) {
    std::optional<size_t> rank;
    if (spec.shape_given || spec.source != TensorSpec::Source::kFile) {
      rank = spec.shape.size();
    }
    if (reader.error_count() == errors_before) {
      if (auto value =
              read_layout(reader, *layout, join_path(path, "layout"), rank)) {
        spec.layout = *value;
        if (spec.layout.kind == Layout::Kind::kStrided ||
            spec.layout.kind == Layout::Kind::kNonContiguous) {
          check_size(reader, layout, tensor_where, join_path(path, "layout"),
                     storage_elements(spec.shape, spec.layout), *dtype);
        }
      }
    }
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  return spec;
}

}  // namespace casebook::model
