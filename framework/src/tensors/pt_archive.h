// A check of a torch.save file's structure before LibTorch reads it.
//
// LibTorch trusts the sizes a .pt claims: its zip reader allocates a record's
// claimed uncompressed size, and its unpickler a string's claimed length,
// before reading them (fuzzing found 2 GB and 4 GB allocations from
// 747-byte files). A fixture arrives in a merge request from anyone, so
// read_pt asks this check first: every claim must fit in the bytes that are
// there. Knows no LibTorch (it reads bytes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace casebook {

// What is wrong with `bytes` as a torch.save archive, or nullopt when it is
// sound: a zip archive (torch.save's format since PyTorch 1.6) whose records
// are stored uncompressed, as torch.save writes them, each within the file,
// with a `<archive>/data.pkl` record that is a pickle whose every
// length-prefixed argument fits in what is left of it and whose opcodes are
// pickle's (protocols 0 to 5).
// `record_sizes`, when given, receives each record's size by its name under
// the archive's folder ("data/0", "data.pkl").
std::optional<std::string> pt_archive_problem(
    std::string_view bytes,
    std::map<std::string, uint64_t>* record_sizes = nullptr);

}  // namespace casebook
