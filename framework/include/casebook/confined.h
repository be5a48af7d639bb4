// The one rule for symbolic links of every file casebook reads beside a case
// (a fixture, a .npy's sidecar): once every link is followed, in its folders
// and in itself, the file lies inside its folder (itself resolved). A link in
// fixtures/ to /etc/passwd, ~/.ssh or /proc/self/environ is never read: a
// merge request must not bring in files from elsewhere.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace casebook {

// nullopt when `file`, resolved, lies strictly inside `folder`, resolved;
// else why not, a phrase to follow the file's name: "cannot be resolved (No
// such file or directory)", or "resolves (through a symbolic link) to
// `/etc/passwd`, outside " followed by `folder_named` (e.g. "the fixtures
// folder `fixtures`"). Only paths are named, never what the files hold.
std::optional<std::string> leaves_folder(const std::filesystem::path& file,
                                         const std::filesystem::path& folder,
                                         const std::string& folder_named);

}  // namespace casebook
