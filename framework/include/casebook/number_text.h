// How casebook writes a number for a person and in a case file.
#pragma once

#include <string>

namespace casebook {

// The shortest of %.1g .. %.17g that reads back as the same double; NaN and
// the infinities as YAML spells them (.nan, .inf, -.inf).
std::string number_text(double value);

}  // namespace casebook
