#pragma once
// The user, host and home folder the scrubbing tests plant in their texts,
// written once for tests/core.
#include <string>

#include "casebook/diagnosis.h"

namespace casebook {

inline ScrubContext planted_context() {
  ScrubContext ctx;
  ctx.user_name = "alice";
  ctx.host_name = "gpu-node-7.example.org";
  ctx.home_dir = "/srv/users/alice";
  return ctx;
}

// `text` scrubbed with the planted context.
inline std::string scrubbed(const std::string& text) {
  return scrub(text, planted_context());
}

}  // namespace casebook
