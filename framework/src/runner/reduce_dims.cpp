// The dims pass of `casebook reduce` (runner/reduce_passes.h).
#include <algorithm>
#include <map>
#include <numeric>

#include "casebook/joined.h"
#include "runner/reduce_passes.h"
#include "runner/reduce_search.h"

namespace casebook::reducing {
namespace {

// Delta debugging stops refining past 4 chunks: beyond, a failure that
// needs many indices (a length) is left to the bisection, which costs
// log2(n) runs where ddmin would cost about n.
constexpr size_t kMaxChunks = 4;
// At most this many kept indices are named one by one.
constexpr size_t kIndicesNamed = 8;

std::vector<int64_t> first(int64_t count) {
  std::vector<int64_t> positions(static_cast<size_t>(count));
  std::iota(positions.begin(), positions.end(), 0);
  return positions;
}

// "index 317", "indices 3, 317", "indices 0..256", "200 indices".
std::string indices_text(const std::vector<int64_t>& original) {
  if (original.size() == 1) return "index " + std::to_string(original[0]);
  if (original.size() <= kIndicesNamed) {
    return "indices " + joined(original, ", ", [](int64_t index) {
             return std::to_string(index);
           });
  }
  if (original.back() - original.front() + 1 ==
      static_cast<int64_t>(original.size())) {
    return "indices " + std::to_string(original.front()) + ".." +
           std::to_string(original.back());
  }
  return std::to_string(original.size()) + " indices";
}

// What the search of one group learnt, said once the rounds are over.
struct GroupNotes {
  std::string threshold;  // "fails at 257, passes at 256 ..."
  std::string whole;      // why nothing could go: the last run's outcome
};

// Bisection of the prefix left: the shortest that fails; a threshold said
// where the length one less was tried.
void bisect(Reduction& r, size_t group, GroupNotes* notes) {
  const ReduceState base = r.best;
  const int64_t count =
      static_cast<int64_t>(base.groups[group].original.size());
  std::map<int64_t, std::string> outcomes;
  const PrefixSearch found =
      shortest_failing_prefix(count, [&](int64_t length) {
        if (r.keep_if_same(with_positions(base, group, first(length)))) {
          return true;
        }
        outcomes[length] = r.last_outcome();
        return false;
      });
  if (found.longest_passing == 0) return;
  notes->threshold = "fails at " + std::to_string(found.shortest_failing) +
                     ", " + outcomes[found.longest_passing] + " at " +
                     std::to_string(found.longest_passing) +
                     " (a threshold, by bisection)";
}

// Delta debugging over the group's indices, then bisection of what is
// left.
void shrink_group(Reduction& r, size_t group, GroupNotes* notes) {
  const ReduceState base = r.best;
  const int64_t size = static_cast<int64_t>(base.groups[group].original.size());
  if (size < 2) return;
  const std::vector<int64_t> kept = delta_debug(
      first(size),
      [&](const std::vector<int64_t>& positions) {
        return r.keep_if_same(with_positions(base, group, positions));
      },
      kMaxChunks);
  if (static_cast<int64_t>(kept.size()) == size) {
    notes->whole = r.last_outcome();
  }
  if (kept.size() > 1) bisect(r, group, notes);
}

void say(Reduction& r, size_t group, const GroupNotes& notes) {
  const DimGroup& dims = r.best.groups[group];
  const std::string named = dims_text(r.best.kase, dims);
  const int64_t size = static_cast<int64_t>(dims.original.size());
  if (size < dims.original_size) {
    r.removed.push_back(named + ": " + std::to_string(dims.original_size) +
                        " -> " + std::to_string(size) + " (kept " +
                        indices_text(dims.original) + " of " +
                        std::to_string(dims.original_size) + ")");
  } else {
    r.kept.push_back(named + ": all " + std::to_string(size) +
                     " (a smaller part " + notes.whole + ")");
  }
  if (!notes.threshold.empty()) {
    r.kept.push_back(named + ": " + notes.threshold);
  }
}

}  // namespace

void reduce_dims(Reduction& r, const std::vector<bool>& fixed) {
  r.best.groups = dim_groups(r.best, fixed);
  const size_t count = r.best.groups.size();
  std::vector<GroupNotes> notes(count);
  std::vector<bool> shrank(count, false);
  auto size_of = [&r](size_t group) {
    return r.best.groups[group].original.size();
  };
  for (size_t group = 0; group < count; ++group) {
    const size_t before = size_of(group);
    shrink_group(r, group, &notes[group]);
    shrank[group] = size_of(group) < before;
  }
  // A group left longer than one may shrink once a later one has (the
  // classes, once the rows holding other labels are gone): once more.
  for (size_t group = 0; group < count; ++group) {
    const bool later =
        std::find(shrank.begin() + static_cast<std::ptrdiff_t>(group + 1),
                  shrank.end(), true) != shrank.end();
    if (size_of(group) > 1 && later) {
      notes[group] = GroupNotes{};
      shrink_group(r, group, &notes[group]);
    }
  }
  for (size_t group = 0; group < count; ++group) say(r, group, notes[group]);
}

}  // namespace casebook::reducing
