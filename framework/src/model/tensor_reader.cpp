// `inputs.<name>`: a tensor's keys, its source (exactly one of values, fill,
// file) and the keys that go with one source only.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/joined.h"
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

// A tensor's map while it is read: where it is and its entries.
struct TensorMap {
  Reader& reader;
  const std::vector<Entry>& entries;
  const std::string& path;
  SourceLocation where;

  const Entry* find(const char* key) const { return find_entry(entries, key); }
  std::string path_of(const char* key) const { return join_path(path, key); }
};

// The keys that give a tensor its values: at most one is given.
struct Sources {
  const Entry* values;
  const Entry* fill;
  const Entry* file;

  explicit Sources(const TensorMap& tensor)
      : values(tensor.find("values")),
        fill(tensor.find("fill")),
        file(tensor.find("file")) {}
  bool any() const {
    return values != nullptr || fill != nullptr || file != nullptr;
  }
};

// The keys given beside `keys.extra`, handed back in file order.
void hand_back_extras(const std::vector<Entry>& map, const TensorKeys& keys,
                      std::vector<Entry>* extras) {
  for (const Entry& item : map) {
    const bool extra = std::find(keys.extra.begin(), keys.extra.end(),
                                 item.key) != keys.extra.end();
    if (extra && extras != nullptr) extras->push_back(item);
  }
}

// An expected output without values: its dtype and shape are properties
// (handed back), the keys of a source are out of place.
void read_sourceless(const TensorMap& tensor, std::vector<Entry>* extras) {
  for (const char* key : {"dtype", "shape"}) {
    const Entry* alone = tensor.find(key);
    if (alone != nullptr && extras != nullptr) extras->push_back(*alone);
  }
  for (const char* key : {"seed", "sha256", "layout", "rounding"}) {
    if (const Entry* alone = tensor.find(key)) {
      tensor.reader.error(alone->key_node, join_path(tensor.path, alone->key),
                          "`" + alone->key +
                              "` goes with expected values (`values`, `fill` "
                              "or `file`) only");
    }
  }
}

// `shape`, where given, into `*shape`. False when the tensor is not worth
// reading further: a shape that is not a list of sizes (the source can't be
// checked without it) or one over the size limit.
bool read_shape(const TensorMap& tensor, const std::optional<DType>& dtype,
                std::optional<std::vector<int64_t>>* shape) {
  const Entry* shape_entry = tensor.find("shape");
  if (shape_entry == nullptr) return true;
  *shape =
      tensor.reader.read_int_list(*shape_entry, tensor.path_of("shape"), 0);
  if (!*shape) return false;
  if (!dtype) return true;
  const size_t before = tensor.reader.error_count();
  check_size(tensor.reader, shape_entry, tensor.where, tensor.path_of("shape"),
             element_count(**shape), *dtype);
  return tensor.reader.error_count() == before;
}

// Reports anything but exactly one source, and a key given without the
// source it goes with. True when there is exactly one source.
bool check_sources(const TensorMap& tensor, const Sources& sources) {
  std::vector<std::string> given;
  for (const Entry* source : {sources.values, sources.fill, sources.file}) {
    if (source != nullptr) given.push_back("`" + source->key + "`");
  }
  if (given.size() != 1) {
    tensor.reader.error(
        tensor.where, tensor.path,
        "expected exactly one of `values`, `fill`, `file`; got " +
            (given.empty() ? std::string("none") : joined(given)));
  }
  check_companion(tensor.reader, tensor.find("seed"), sources.fill != nullptr,
                  tensor.path, "fill");
  check_companion(tensor.reader, tensor.find("sha256"), sources.file != nullptr,
                  tensor.path, "file");
  return given.size() == 1;
}

// `rounding: nearest`, which goes with `values` only.
void read_rounding(const TensorMap& tensor, const Sources& sources,
                   TensorSpec& spec) {
  const Entry* rounding = tensor.find("rounding");
  if (rounding == nullptr) return;
  const Scalar scalar = resolve_scalar(rounding->value);
  if (scalar.kind != Scalar::Kind::kString || scalar.text != "nearest") {
    tensor.reader.error(tensor.reader.where(*rounding),
                        tensor.path_of("rounding"),
                        "expected `nearest`; got " + describe(rounding->value));
    return;
  }
  spec.round_to_nearest = true;
  check_companion(tensor.reader, rounding, sources.values != nullptr,
                  tensor.path, "values");
}

// `seed`: an integer >= 0.
void read_seed(const TensorMap& tensor, const Entry& seed, TensorSpec& spec) {
  const std::string seed_path = tensor.path_of("seed");
  const auto value =
      tensor.reader.read_int(seed.value, tensor.reader.where(seed), seed_path);
  if (value && *value < 0) {
    tensor.reader.error(
        tensor.reader.where(seed), seed_path,
        "expected an integer >= 0; got " + describe(seed.value));
  } else if (value) {
    spec.seed = static_cast<uint64_t>(*value);
  }
}

// `fill` (a generator, with `seed`), which needs `shape`.
void read_fill_source(const TensorMap& tensor, const Entry& fill, DType dtype,
                      bool has_shape, TensorSpec& spec) {
  spec.source = TensorSpec::Source::kFill;
  if (!has_shape) {
    tensor.reader.error(tensor.where, tensor.path_of("shape"),
                        "required key missing: a `fill` needs `shape`");
  }
  if (auto generator =
          read_fill(tensor.reader, fill, tensor.path_of("fill"), dtype)) {
    spec.fill = *generator;
  }
  if (const Entry* seed = tensor.find("seed")) read_seed(tensor, *seed, spec);
}

// The one source's values, fill or file into `spec`.
void read_source(const TensorMap& tensor, const Sources& sources, DType dtype,
                 const std::optional<std::vector<int64_t>>& shape,
                 const std::filesystem::path& case_file, TensorSpec& spec) {
  if (shape) spec.shape = *shape;
  if (sources.values != nullptr) {
    spec.source = TensorSpec::Source::kValues;
    read_values(tensor.reader, *sources.values, tensor.path_of("values"), dtype,
                shape, spec);
  } else if (sources.fill != nullptr) {
    read_fill_source(tensor, *sources.fill, dtype, shape.has_value(), spec);
  } else {
    spec.source = TensorSpec::Source::kFile;
    spec.shape_given = shape.has_value();
    read_fixture(tensor.reader, *sources.file, tensor.find("sha256"),
                 tensor.path_of("file"), case_file, spec);
  }
}

// `layout`, against the tensor's rank (unknown for a file without `shape`)
// and, for a view that reaches past its elements, its storage's size.
void read_tensor_layout(const TensorMap& tensor, const Entry& layout,
                        TensorSpec& spec) {
  std::optional<size_t> rank;
  if (spec.shape_given || spec.source != TensorSpec::Source::kFile) {
    rank = spec.shape.size();
  }
  auto value =
      read_layout(tensor.reader, layout, tensor.path_of("layout"), rank);
  if (!value) return;
  spec.layout = *value;
  if (spec.layout.kind == Layout::Kind::kStrided ||
      spec.layout.kind == Layout::Kind::kNonContiguous) {
    check_size(tensor.reader, &layout, tensor.where, tensor.path_of("layout"),
               storage_elements(spec.shape, spec.layout), spec.dtype);
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
  hand_back_extras(*map, keys, extras);
  const TensorMap tensor{reader, *map, path, tensor_where};
  const Sources sources(tensor);
  if (has_source != nullptr) *has_source = sources.any();
  if (keys.source_optional && !sources.any()) {
    read_sourceless(tensor, extras);
    return std::nullopt;
  }
  TensorSpec spec;
  spec.name = entry.key;
  spec.where = tensor_where;
  spec.round_to_nearest =
      keys.values_round_to_nearest || reader.round_values_to_nearest();
  const std::optional<DType> dtype = read_dtype(
      reader, tensor.find("dtype"), tensor_where, tensor.path_of("dtype"));
  if (dtype) spec.dtype = *dtype;
  std::optional<std::vector<int64_t>> shape;
  if (!read_shape(tensor, dtype, &shape)) return std::nullopt;
  const bool one_source = check_sources(tensor, sources);
  read_rounding(tensor, sources, spec);
  if (!one_source || !dtype) return std::nullopt;
  read_source(tensor, sources, *dtype, shape, case_file, spec);
  const Entry* layout = tensor.find("layout");
  if (layout != nullptr && reader.error_count() == errors_before) {
    read_tensor_layout(tensor, *layout, spec);
  }
  if (reader.error_count() != errors_before) return std::nullopt;
  return spec;
}

}  // namespace casebook::model
