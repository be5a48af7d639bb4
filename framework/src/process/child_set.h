// The runner's children, watched at once: one poll() over their report pipes
// and one descriptor of the caller's (the interrupt pipe), their output cut
// into lines, a deadline each while a run is in flight, and their ends:
// killed with their process group, pipes closed, reaped. What a child is for
// and what its lines mean is its owner's (the scheduler's one-shot children,
// the GPU pool's workers, runner/): each child comes with its handlers.
// Children are forked elsewhere (process/subprocess.h, the fork server) and
// die with the runner however it dies (PR_SET_PDEATHSIG there).
// Single-threaded, as the runner is; a handler may end or release any child,
// its own included.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "process/subprocess.h"

namespace casebook {

class ChildSet {
 public:
  using Clock = std::chrono::steady_clock;
  using Id = unsigned long;  // a child's name in the set, never reused

  struct Handlers {
    // One '\n'-terminated line the child wrote, without the '\n'.
    std::function<void(Id, const std::string& line)> on_line;
    // After the lines of one read: `closed` when the pipe reached its end
    // (the child has ended or is ending); the handler ends or releases the
    // child then, or may do so now.
    std::function<void(Id, bool closed)> on_read;
    // The armed deadline passed, `wall` seconds after the armed start; the
    // handler ends the child (the set only disarms it).
    std::function<void(Id, double wall)> on_deadline;
  };

  ChildSet() = default;
  ~ChildSet();  // end_all()
  ChildSet(const ChildSet&) = delete;
  ChildSet& operator=(const ChildSet&) = delete;

  Id add(ChildProcess process, Handlers handlers);
  bool contains(Id id) const { return children_.count(id) != 0; }
  int to_child(Id id) const;

  // A run in flight: its clock started at `started` (before its fork, where a
  // fork server's child may report before the fork returns), and it must
  // report within `seconds`. disarm: no run in flight, no deadline.
  void arm(Id id, Clock::time_point started, double seconds);
  void disarm(Id id);
  // Seconds since the armed start.
  double wall_seconds(Id id) const;

  // Ends the child now: kills its group when `kill`, closes its pipes, reaps
  // it (waiting) and kills what is left in its group; returns the wait
  // status. The child leaves the set.
  int end(Id id, bool kill);
  // A child whose work is done: its group is killed now, it leaves the set
  // and is reaped later without waiting (a LibTorch process takes about
  // 10 ms to exit on 2 cores; waiting serialised a whole run).
  void release(Id id);

  // Waits until the caller's `extra_fd` (-1: none) or a child's pipe is
  // readable, or the nearest deadline passes, or a second at most (so that
  // the caller's loop looks at its own state that often). Returns true when
  // `extra_fd` is readable; what the children said waits for dispatch().
  bool wait(int extra_fd);
  // Hands what the last wait() saw to the handlers (lines, then the read's
  // end, child by child in the order they were added), then the deadlines
  // passed, and reaps released children that have exited.
  void dispatch();

  // Ends every child (killed) and reaps every released one.
  void end_all();

 private:
  struct Child {
    ChildProcess process;
    Handlers handlers;
    std::string buffer;
    bool armed = false;
    Clock::time_point started;
    Clock::time_point deadline;
    bool readable = false;  // by the last wait()
  };
  int wait_ms() const;
  void read_child(Id id);
  void reap_released(bool block);

  std::map<Id, Child> children_;
  std::vector<pid_t> released_;
  Id next_id_ = 1;
};

}  // namespace casebook
