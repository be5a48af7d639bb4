// Internal: one pass over a case file's text and YAML events before any
// tree is built, so that a hostile file costs little and says what it says
// to every YAML reader alike:
// - a byte that is not UTF-8 is refused at its line and column;
// - anchors and aliases (which let a small file expand into a huge tree:
//   "billion laughs") and tags (`!!python/object/new:`: a request to build
//   an object) are refused at their place, in every part of the file
//   (`origin` too);
// - a scalar longer than load_limits().max_scalar_bytes, or holding a
//   control character other than a newline or a tab (an escape sequence, a
//   bell, a carriage return), is refused at its place: nothing after (a
//   suggestion, a regex, a message, a terminal) sees it;
// - a key given twice in any map is an error at its second place;
// - the nesting depth and the number of nodes stay within load_limits().
// yaml-cpp's tree builder and its parser recurse once per nesting level; the
// depth budget stops the walk long before its own guard (500 levels, "bad
// file") or the stack.
#pragma once

#include <string>

#include "model/yaml_reader.h"

namespace casebook::model {

// Reports the first byte that is not UTF-8; or every anchor, alias, tag,
// scalar over the limit or with a control character (at most 20), every
// duplicate key, and the
// first level past the depth budget or node past the node budget. Returns
// false when the text must not be loaded into a tree (anything but a
// duplicate key, which the tree reader skips). YAML that does not parse is
// left to the tree loader to report (returns true).
bool prescan_yaml(const std::string& text, Reader& reader);

}  // namespace casebook::model
