#include "runner/reduce_search.h"

#include <algorithm>

namespace casebook::reducing {
namespace {

// `items` split into `n` chunks of sizes as equal as can be, larger first.
std::vector<std::vector<int64_t>> chunks_of(const std::vector<int64_t>& items,
                                            size_t n) {
  std::vector<std::vector<int64_t>> chunks;
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t size = items.size() / n + (i < items.size() % n ? 1 : 0);
    chunks.emplace_back(
        items.begin() + static_cast<std::ptrdiff_t>(start),
        items.begin() + static_cast<std::ptrdiff_t>(start + size));
    start += size;
  }
  return chunks;
}

std::vector<int64_t> without(const std::vector<int64_t>& items,
                             const std::vector<int64_t>& chunk) {
  std::vector<int64_t> rest;
  for (int64_t item : items) {
    if (std::find(chunk.begin(), chunk.end(), item) == chunk.end()) {
      rest.push_back(item);
    }
  }
  return rest;
}

}  // namespace

std::vector<int64_t> delta_debug(
    std::vector<int64_t> items,
    const std::function<bool(const std::vector<int64_t>&)>& fails,
    size_t max_chunks) {
  size_t n = 2;
  while (items.size() >= 2) {
    const auto chunks = chunks_of(items, std::min(n, items.size()));
    bool reduced = false;
    for (const auto& chunk : chunks) {
      if (fails(chunk)) {
        items = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    // With two chunks each complement is the other chunk, tried above.
    for (size_t i = 0; !reduced && chunks.size() > 2 && i < chunks.size();
         ++i) {
      std::vector<int64_t> rest = without(items, chunks[i]);
      if (fails(rest)) {
        items = std::move(rest);
        n = std::max<size_t>(chunks.size() - 1, 2);
        reduced = true;
      }
    }
    if (reduced) continue;
    if (chunks.size() >= items.size() || chunks.size() >= max_chunks) break;
    n = std::min(2 * chunks.size(), items.size());
  }
  return items;
}

PrefixSearch shortest_failing_prefix(
    int64_t count, const std::function<bool(int64_t)>& fails) {
  int64_t failing = count;  // known to fail
  int64_t passing = 0;      // known not to fail (0: nothing asked)
  while (failing - passing > 1) {
    const int64_t middle = passing + (failing - passing) / 2;
    if (fails(middle)) {
      failing = middle;
    } else {
      passing = middle;
    }
  }
  PrefixSearch found;
  found.shortest_failing = failing;
  found.longest_passing = passing;
  return found;
}

}  // namespace casebook::reducing
