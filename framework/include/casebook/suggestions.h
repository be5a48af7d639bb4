// "did you mean" for the closed sets of names a case and the command line
// take (dtypes, error families, backends), built on nearest_names()
// (casebook/loader.h), the one rule keys, ops and arguments use. A name as
// Python or another habit spells it is mapped first: `torch.float32` and
// `float` are float32, `torch.long` int64, `device-assert` device_assert.
#pragma once

#include <string>

namespace casebook {

// The dtype name `given` most likely means, or empty when none is close.
std::string suggest_dtype(const std::string& given);
// The error family name, or empty.
std::string suggest_family(const std::string& given);
// The backend name (cpu, cuda, hip), or empty.
std::string suggest_backend(const std::string& given);

// "; did you mean `float32`?", or empty for an empty suggestion.
std::string did_you_mean(const std::string& suggestion);

}  // namespace casebook
