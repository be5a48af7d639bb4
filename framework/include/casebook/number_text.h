// How casebook writes a number for a person and in a case file.
#pragma once

#include <string>

namespace casebook {

// The shortest of %.1g .. %.17g that reads back as the same double; NaN and
// the infinities as YAML spells them (.nan, .inf, -.inf).
std::string number_text(double value);

// number_text as a float every YAML reader takes: `1.0e+05` rather than
// `1e+05`, which YAML 1.1 readers (PyYAML) take for a string. For what
// casebook writes into case files.
std::string yaml_number(double value);

}  // namespace casebook
