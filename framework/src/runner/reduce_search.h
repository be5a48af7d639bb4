// The searches `casebook reduce` makes (runner/reduce.h), apart from what a
// candidate is: each asks a predicate, "does this smaller thing still fail
// the same way?", which runs one candidate; the predicate is never asked of
// the whole set, which fails by the caller's contract.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace casebook::reducing {

// Delta debugging (Zeller and Hildebrandt's ddmin) over `items`, in order:
// they are split into n chunks (n = 2 first); a chunk that fails alone is
// kept (n back to 2), else, for n > 2, a complement (the items without one
// chunk) that fails is kept (n one less), else n doubles, up to
// `max_chunks` chunks and the number of items. The smallest set found,
// which fails (the first chunk or complement tried that fails, so the same
// predicate gives the same set). `max_chunks` bounds the runs: a failure
// that needs many items (a length) costs about 3 * max_chunks runs before
// the search gives up and leaves the rest to shortest_failing_prefix.
std::vector<int64_t> delta_debug(
    std::vector<int64_t> items,
    const std::function<bool(const std::vector<int64_t>&)>& fails,
    size_t max_chunks);

// The shortest prefix (a count of items, 1..count) that fails, by
// bisection, `count` itself failing; `fails` is asked of lengths only.
// `longest_passing`: the longest length asked that did not fail, when it is
// the shortest one less (a threshold: "fails at 257, passes at 256"); 0
// otherwise (nothing shorter was asked, or the answer is 1).
struct PrefixSearch {
  int64_t shortest_failing = 0;
  int64_t longest_passing = 0;
};
PrefixSearch shortest_failing_prefix(int64_t count,
                                     const std::function<bool(int64_t)>& fails);

}  // namespace casebook::reducing
