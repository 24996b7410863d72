//===- Threads.cpp - The CPU kernels' thread count ------------------------===//
//
// OpenBLAS keeps the process's thread count (its default: OPENBLAS_NUM_THREADS,
// else every core); the runtime's OpenMP loops follow it, so that GEMMs and
// the other kernels never use more threads than asked for.
//
//===----------------------------------------------------------------------===//

#include "cpu/Threads.h"

#include "onyx/onyx_runtime.h"

#include <thread>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace onyx::cpu {

int threadCount() {
  int n = openblas_get_num_threads();
  return n > 0 ? n : 1;
}

} // namespace onyx::cpu

extern "C" int32_t onyxrt_cpu_set_threads(int32_t threads) {
  if (threads <= 0) {
    unsigned hw = std::thread::hardware_concurrency();
    threads = hw ? int32_t(hw) : 1;
  }
  openblas_set_num_threads(threads);
  return onyx::cpu::threadCount();
}

extern "C" int32_t onyxrt_cpu_get_threads(void) {
  return onyx::cpu::threadCount();
}
