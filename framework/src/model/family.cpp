#include "casebook/family.h"

#include <array>
#include <utility>

namespace casebook {
namespace {

constexpr std::array<std::pair<Family, std::string_view>, 14> kFamilyNames{{
    {Family::kIndexOutOfRange, "index_out_of_range"},
    {Family::kDeviceAssert, "device_assert"},
    {Family::kIllegalAddress, "illegal_address"},
    {Family::kOutOfMemory, "out_of_memory"},
    {Family::kOpUnavailable, "op_unavailable"},
    {Family::kDeviceMismatch, "device_mismatch"},
    {Family::kContract, "contract"},
    {Family::kLabelMapping, "label_mapping"},
    {Family::kMismatch, "mismatch"},
    {Family::kNanOrInf, "nan_or_inf"},
    {Family::kSkippedEntries, "skipped_entries"},
    {Family::kTimeout, "timeout"},
    {Family::kCrash, "crash"},
    {Family::kInvalidCase, "invalid_case"},
}};

}  // namespace

std::string_view family_name(Family family) {
  for (const auto& [value, name] : kFamilyNames) {
    if (value == family) return name;
  }
  return "none";
}

std::optional<Family> parse_family(std::string_view name) {
  for (const auto& [value, spelling] : kFamilyNames) {
    if (spelling == name) return value;
  }
  return std::nullopt;
}

const std::vector<Family>& all_families() {
  static const std::vector<Family> families = [] {
    std::vector<Family> out;
    out.reserve(kFamilyNames.size());
    for (const auto& entry : kFamilyNames) out.push_back(entry.first);
    return out;
  }();
  return families;
}

}  // namespace casebook
