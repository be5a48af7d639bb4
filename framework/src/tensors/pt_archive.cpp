#include "tensors/pt_archive.h"

namespace casebook {
namespace {

constexpr const char* kResave =
    "load it with torch.load and save it again with torch.save(obj, path) in "
    "PyTorch 1.6 or later (the zip format, the default)";

// torch.save's formats before the zip one: refused by name, with the way out.
void refuse_legacy(std::string_view bytes) {
  if (bytes.size() >= 262 && bytes.substr(257, 5) == "ustar") {
    throw PtRefusal(
        "a legacy torch.save tar archive (PyTorch 0.3 and before), which "
        "casebook does not read: " +
        std::string(kResave));
  }
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x80 &&
      static_cast<unsigned char>(bytes[1]) <= 5) {
    throw PtRefusal(
        "a legacy torch.save pickle (PyTorch before 1.6, or "
        "_use_new_zipfile_serialization=False), which casebook does not "
        "read: " +
        std::string(kResave));
  }
}

}  // namespace

size_t pt_dtype_size(PtDtype dtype) {
  switch (dtype) {
    case PtDtype::kFloat64:
    case PtDtype::kInt64:
    case PtDtype::kComplex64:
      return 8;
    case PtDtype::kComplex128:
      return 16;
    case PtDtype::kFloat32:
    case PtDtype::kInt32:
      return 4;
    case PtDtype::kFloat16:
    case PtDtype::kBFloat16:
    case PtDtype::kInt16:
      return 2;
    case PtDtype::kInt8:
    case PtDtype::kUInt8:
    case PtDtype::kBool:
      return 1;
  }
  return 1;
}

std::string pt_dtype_name(PtDtype dtype) {
  switch (dtype) {
    case PtDtype::kFloat32:
      return "float32";
    case PtDtype::kFloat64:
      return "float64";
    case PtDtype::kFloat16:
      return "float16";
    case PtDtype::kBFloat16:
      return "bfloat16";
    case PtDtype::kInt64:
      return "int64";
    case PtDtype::kInt32:
      return "int32";
    case PtDtype::kInt16:
      return "int16";
    case PtDtype::kInt8:
      return "int8";
    case PtDtype::kUInt8:
      return "uint8";
    case PtDtype::kBool:
      return "bool";
    case PtDtype::kComplex64:
      return "complex64";
    case PtDtype::kComplex128:
      return "complex128";
  }
  return "unknown";
}

PtContents read_pt_contents(std::string_view bytes) {
  refuse_legacy(bytes);
  const std::vector<ZipRecord> records = read_zip_records(bytes);
  // Every record sits in the folder of the first (torch.save names it after
  // the file, or `archive`).
  const std::string& first = records.front().name;
  const std::string folder = first.substr(0, first.find('/') + 1);
  std::optional<std::string_view> pickle;
  std::map<std::string, std::string_view> storages;
  for (const ZipRecord& record : records) {
    if (folder.empty() || record.name.compare(0, folder.size(), folder) != 0) {
      throw PtRefusal("zip: record `" + record.name +
                      "` is outside the archive's folder `" + folder + "`");
    }
    const std::string name = record.name.substr(folder.size());
    const std::string_view data = bytes.substr(record.data_offset, record.size);
    if (name == "data.pkl") pickle = data;
    if (name.rfind("data/", 0) == 0) storages[name.substr(5)] = data;
    if (name == "byteorder" && data != "little") {
      throw PtRefusal(
          "its tensors are stored " +
          std::string(data == "big" ? "big-endian" : "in an unknown order") +
          " (the byteorder record), which casebook does not read: save them "
          "again on a little-endian machine");
    }
  }
  if (!pickle) throw PtRefusal("zip: no `" + folder + "data.pkl` record");
  if (pickle->size() > PtLimits::kMaxPickleBytes) {
    throw PtRefusal("data.pkl holds " + std::to_string(pickle->size()) +
                    " bytes (the limit is " +
                    std::to_string(PtLimits::kMaxPickleBytes) + ")");
  }
  return unpickle_pt(*pickle, storages);
}

}  // namespace casebook
