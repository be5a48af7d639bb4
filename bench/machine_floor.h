// What this machine charges for the steps every strict run repeats: a page
// fault, and a fork plus exit of a process that has LibTorch loaded. They set
// the floor under strict isolation's per-case cost, and they differ wildly
// between bare metal and virtual machines, so the benchmark prints them next
// to its figures.
#pragma once

namespace casebook::bench {

struct MachineFloor {
  double zero_fill_fault_us = 0.0;      // first write to a fresh anonymous page
  double copy_on_write_fault_us = 0.0;  // a child's first write to a page
  double fork_exit_ms = 0.0;  // fork + _exit + wait of this process, as is
};

// Measures in this process (and in short-lived children of it).
MachineFloor measure_machine_floor();

void print_machine_floor(const MachineFloor& floor);

}  // namespace casebook::bench
