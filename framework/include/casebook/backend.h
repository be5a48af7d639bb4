// Backends: where one run of a case happens.
//
// cpu, cuda and hip are built in. A further backend is registered by name at
// run time (device/backend_hooks.h's BackendRegistration, which adds its
// hooks row too): its value comes after the built-in ones, and every name
// lookup, parse and list below knows it until it is unregistered. Register
// before any run starts (children forked later inherit it); not thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casebook {

enum class Backend : int { kCpu, kCuda, kHip };

std::string_view backend_name(Backend backend);  // "cpu", "cuda", "hip"
std::optional<Backend> parse_backend(std::string_view name);
const std::vector<Backend>& all_backends();  // cpu, cuda, hip, registered
// "cpu, cuda, hip" and the registered names: what a load error lists.
std::string backend_names();

// A further backend named `name` (lower-case letters, digits and `_`, not
// taken). Throws std::invalid_argument naming the rule broken.
Backend register_backend_name(std::string_view name);
// Forgets a registered backend; built-in ones stay.
void unregister_backend_name(Backend backend);

// GPU backends are the ones whose sticky errors poison a process: every
// backend but cpu.
inline bool is_gpu(Backend backend) { return backend != Backend::kCpu; }

}  // namespace casebook
