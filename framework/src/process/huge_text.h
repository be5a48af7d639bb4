// LibTorch's hot machine code on 2 MB pages, for the fork server.
//
// A child forked from the server must map every page of code it runs again:
// fork() copies no page-table entries of file mappings. For a small CPU case
// that is about 80 faults in libtorch_cpu's 80 MB of code alone, and on a
// virtual machine a fault costs 12-30 us rather than ~1 us. Copying the
// server's hot part of that code onto anonymous huge pages and mapping the
// copy over the original (mremap) lets every child inherit it as a few
// 2 MB entries instead: on the 2-core CI machine, 1,000 small cases took
// 10.5-11.9 s with it and 12.8-13.2 s without (three alternating runs). The
// copy costs 30-250 ms once, so it is done only for runs of 64 CPU cases or
// more.
//
// The bytes are the same, so code running meanwhile, unwinding (which reads
// .eh_frame through the loader's list) and dladdr() are unaffected. Tools that
// name code by /proc/PID/maps (perf) see the moved part as anonymous memory:
// CASEBOOK_HUGE_TEXT=0 turns the move off.
#pragma once

#include <string>

namespace casebook {

struct HugeTextMove {
  int chunks_moved = 0;  // 2 MB chunks now on huge pages
  std::string why_not;   // empty when anything moved
};

// Moves the 2 MB chunks of libtorch_cpu's code in which this process has
// already run something (its present pages, from /proc/self/pagemap): a
// warmed-up server has touched what a small case needs. Call it only from a
// single-threaded process. Never throws; what could not be done is left as
// it was and named in why_not.
HugeTextMove move_hot_torch_code_to_huge_pages();

}  // namespace casebook
