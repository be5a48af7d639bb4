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
// cpu, cuda, hip: what a case without `backends` runs on (a registered
// backend runs the cases that name it).
const std::vector<Backend>& built_in_backends();
// "cpu, cuda, hip" and the registered names: what a load error lists.
std::string backend_names();
// "cpu, cuda or hip" (and the registered names): what a command that runs
// on one backend says it takes.
std::string backend_alternatives();

// A fact a backend's device reports, read by `when` conditions of that
// backend's `expect` entries only, once its probe has answered: cuda's
// `capability`, hip's `gfx`. The device's hooks (device/backend_hooks.h)
// give its value; the case model knows the name from here.
struct DeviceFactName {
  std::string name;  // "capability"
  // Compared as version constraints (">=8.0"), named so in load errors
  // ("compute capability"); empty: compared as a name or a list of names.
  std::string version_of;
};
const std::vector<DeviceFactName>& device_fact_names(Backend backend);
// The backend whose device reports `fact`; nullopt for any other name.
std::optional<Backend> backend_of_device_fact(std::string_view fact);

// A further backend named `name` (lower-case letters, digits and `_`, not
// taken) whose device reports `facts` (names no backend's device reports and
// no host fact is). Throws std::invalid_argument naming the rule broken.
Backend register_backend_name(std::string_view name,
                              std::vector<DeviceFactName> facts = {});
// Forgets a registered backend; built-in ones stay.
void unregister_backend_name(Backend backend);

// GPU backends are the ones whose sticky errors poison a process: every
// backend but cpu.
inline bool is_gpu(Backend backend) { return backend != Backend::kCpu; }

}  // namespace casebook
