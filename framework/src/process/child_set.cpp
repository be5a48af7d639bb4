#include "process/child_set.h"

#include <poll.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace casebook {
namespace {

// The longest wait (ChildSet::wait's contract).
constexpr int kLongestWaitMs = 1000;

}  // namespace

ChildSet::~ChildSet() { end_all(); }

ChildSet::Id ChildSet::add(ChildProcess process, Handlers handlers) {
  const Id id = next_id_++;
  Child& child = children_[id];
  child.process = process;
  child.handlers = std::move(handlers);
  return id;
}

int ChildSet::to_child(Id id) const {
  return children_.at(id).process.to_child;
}

void ChildSet::arm(Id id, Clock::time_point started, double seconds) {
  Child& child = children_.at(id);
  child.armed = true;
  child.started = started;
  child.deadline = started + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(seconds));
}

void ChildSet::disarm(Id id) { children_.at(id).armed = false; }

double ChildSet::wall_seconds(Id id) const {
  return std::chrono::duration<double>(Clock::now() - children_.at(id).started)
      .count();
}

int ChildSet::end(Id id, bool kill) {
  Child& child = children_.at(id);
  const pid_t pid = child.process.pid;
  if (kill) kill_process_group(pid);
  close_fd(&child.process.from_child);
  close_fd(&child.process.to_child);
  children_.erase(id);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // A timed-out child's grandchildren die with its group.
  kill_process_group(pid);
  return status;
}

void ChildSet::release(Id id) {
  Child& child = children_.at(id);
  kill_process_group(child.process.pid);
  close_fd(&child.process.from_child);
  close_fd(&child.process.to_child);
  released_.push_back(child.process.pid);
  children_.erase(id);
}

int ChildSet::wait_ms() const {
  auto next = Clock::time_point::max();
  for (const auto& [id, child] : children_) {
    if (child.armed) next = std::min(next, child.deadline);
  }
  if (next == Clock::time_point::max()) return kLongestWaitMs;
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now())
          .count();
  return static_cast<int>(std::clamp<long long>(ms + 1, 0, kLongestWaitMs));
}

bool ChildSet::wait(int extra_fd) {
  std::vector<pollfd> fds;
  fds.reserve(children_.size() + 1);
  fds.push_back({extra_fd, POLLIN, 0});
  for (const auto& [id, child] : children_) {
    fds.push_back({child.process.from_child, POLLIN, 0});
  }
  const int ready = poll(fds.data(), fds.size(), wait_ms());
  if (ready < 0 && errno != EINTR) {
    throw std::system_error(errno, std::generic_category(), "poll");
  }
  size_t index = 1;
  for (auto& [id, child] : children_) {
    child.readable = ready > 0 && fds[index++].revents != 0;
  }
  return ready > 0 && (fds[0].revents & POLLIN) != 0;
}

void ChildSet::read_child(Id id) {
  Child& child = children_.at(id);
  child.readable = false;
  const bool open = read_available(child.process.from_child, &child.buffer);
  const Handlers handlers = child.handlers;  // the child may leave the set
  std::string line;
  while (contains(id) && take_line(&children_.at(id).buffer, &line)) {
    handlers.on_line(id, line);
  }
  if (contains(id)) handlers.on_read(id, !open);
}

void ChildSet::dispatch() {
  // By id, looked up afresh: a handler may end or release any child.
  std::vector<Id> readable;
  for (const auto& [id, child] : children_) {
    if (child.readable) readable.push_back(id);
  }
  for (const Id id : readable) {
    if (contains(id)) read_child(id);
  }
  const auto now = Clock::now();
  std::vector<Id> late;
  for (const auto& [id, child] : children_) {
    if (child.armed && now >= child.deadline) late.push_back(id);
  }
  for (const Id id : late) {
    if (!contains(id)) continue;
    Child& child = children_.at(id);
    child.armed = false;
    const double wall =
        std::chrono::duration<double>(now - child.started).count();
    const Handlers handlers = child.handlers;
    handlers.on_deadline(id, wall);
  }
  reap_released(/*block=*/false);
}

void ChildSet::reap_released(bool block) {
  for (size_t i = 0; i < released_.size();) {
    int status = 0;
    const pid_t done = waitpid(released_[i], &status, block ? 0 : WNOHANG);
    if (done == 0 || (done < 0 && errno == EINTR)) {
      ++i;
      continue;
    }
    released_.erase(released_.begin() + static_cast<long>(i));
  }
}

void ChildSet::end_all() {
  while (!children_.empty()) end(children_.rbegin()->first, /*kill=*/true);
  reap_released(/*block=*/true);
}

}  // namespace casebook
