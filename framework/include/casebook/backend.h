// Backends: where one run of a case happens.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace casebook {

enum class Backend { kCpu, kCuda, kHip };

std::string_view backend_name(Backend backend);  // "cpu", "cuda", "hip"
std::optional<Backend> parse_backend(std::string_view name);
const std::vector<Backend>& all_backends();  // cpu, cuda, hip

// GPU backends are the ones whose sticky errors poison a process.
inline bool is_gpu(Backend backend) { return backend != Backend::kCpu; }

}  // namespace casebook
