// LibTorch's hot machine code on 2 MB pages, for the fork server.
//
// A child forked from the server must map every page of code it runs again:
// fork() copies no page-table entries of file mappings. For a small CPU case
// that is about 80 faults in libtorch_cpu's 80 MB of code alone, and on a
// virtual machine a fault costs 12-30 us rather than ~1 us. Copying the
// server's hot part of that code onto anonymous huge pages and mapping the
// copy over the original (mremap) lets every child inherit it as a few
// 2 MB entries instead: on the 2-core CI machine a run of 1,000 small cases
// went from 13.3 to 11.4 ms a case. The copy costs 40-250 ms once, so the
// scheduler asks for it only for runs with many CPU cases.
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
