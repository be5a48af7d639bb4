// Internal: one pass over a case file's YAML events before any tree is built,
// so that a hostile file costs little: anchors and aliases (which let a small
// file expand into a huge tree: "billion laughs") are refused at their line,
// and the nesting depth and the number of nodes stay within load_limits().
// yaml-cpp's tree builder and its parser recurse once per nesting level; the
// depth budget stops the walk long before its own guard (500 levels, "bad
// file") or the stack.
#pragma once

#include <string>

#include "model/yaml_reader.h"

namespace casebook::model {

// Reports every anchor and alias (at most a few dozen), or the first level
// past the depth budget, or the first node past the node budget. Returns
// false when the text must not be loaded into a tree. YAML that does not
// parse is left to the tree loader to report (returns true).
bool prescan_yaml(const std::string& text, Reader& reader);

}  // namespace casebook::model
