// How casebook writes a number for a person and in a case file.
#pragma once

#include <string>

namespace casebook {

// The fewest significant digits that read back as the same double, laid out
// as %g lays them out (`0.1`, `1e+05`, `5e-324`); NaN and the infinities as
// YAML spells them (.nan, .inf, -.inf).
std::string number_text(double value);

// number_text as a float every YAML reader takes: `1.0e+05` rather than
// `1e+05`, which YAML 1.1 readers (PyYAML) take for a string; `-0.0`, not
// `-0`, which YAML reads as the integer 0. For the values of a floating
// tensor that casebook writes into case files: read back, each is the same
// double, bit for bit (the loader refuses what no double holds, 1e400 and
// 1e-400, and what a float16 or bfloat16 cannot hold, at their line).
std::string yaml_number(double value);

// yaml_number that a YAML reader takes for a float, never an integer: `2.0`,
// not `2`. For a floating `args` value, where an integer would change the
// call (a Scalar 2 keeps an integer tensor integer; 2.0 makes it float).
std::string yaml_float(double value);

}  // namespace casebook
