//===- Threads.cpp - The CPU target's thread pool -------------------------===//
//
// The process-wide thread count of the pool (libomp) and parallelFor's
// team. The count starts as OMP_NUM_THREADS (its first number), else
// OPENBLAS_NUM_THREADS, else the CPUs this process may run on
// (sched_getaffinity). OpenBLAS is set to one thread when the library
// loads and stays there: every GEMM of the CPU target is split across the
// pool by the runtime (Gemm.cpp, Conv.cpp), each piece one single-threaded
// OpenBLAS call.
//
//===----------------------------------------------------------------------===//

#include "cpu/Threads.h"

#include "onyx/onyx_runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <sched.h>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

extern "C" void openblas_set_num_threads(int);

namespace onyx::cpu {
namespace {

constexpr int kMaxThreads = 4096;

/// The CPUs this process may run on.
int availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? int(std::min<unsigned>(hw, kMaxThreads)) : 1;
}

/// The first number of an OMP_NUM_THREADS-style value ("4" or "4,2"); 0
/// when unset or not a positive number.
int threadsFromEnv(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return 0;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (end == v || (*end != '\0' && *end != ',') || n <= 0)
    return 0;
  return int(std::min<long>(n, kMaxThreads));
}

int defaultThreads() {
  if (int n = threadsFromEnv("OMP_NUM_THREADS"))
    return n;
  if (int n = threadsFromEnv("OPENBLAS_NUM_THREADS"))
    return n;
  return availableCpus();
}

std::atomic<int> &count() {
  static std::atomic<int> threads{defaultThreads()};
  return threads;
}

/// OpenBLAS at one thread from the start (before any GEMM), and the count
/// read from the environment once.
struct Init {
  Init() {
    openblas_set_num_threads(1);
    (void)count();
  }
} init;

} // namespace

int threadCount() {
  return std::max(1, count().load(std::memory_order_relaxed));
}

bool inParallel() {
#ifdef _OPENMP
  return omp_get_level() > 0;
#else
  return false;
#endif
}

int plannedPieces(int64_t n, int64_t grain) {
  int threads = threadCount();
  grain = std::max<int64_t>(grain, 1);
  if (threads <= 1 || n < 2 * grain || inParallel())
    return 1;
  return int(std::min<int64_t>(threads, n / grain));
}

void runPieces(int64_t n, int pieces, RangeFn fn, void *context) {
#ifdef _OPENMP
  std::exception_ptr error;
  std::mutex errorMutex;
#pragma omp parallel num_threads(pieces)
  {
    int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t begin = n / nt * t + std::min(t, n % nt);
    int64_t end = begin + n / nt + (t < n % nt ? 1 : 0);
    if (begin < end) {
      try {
        fn(context, begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error)
          error = std::current_exception();
      }
    }
  }
  if (error)
    std::rethrow_exception(error);
#else
  (void)pieces;
  fn(context, 0, n);
#endif
}

} // namespace onyx::cpu

extern "C" int32_t onyxrt_cpu_set_threads(int32_t threads) {
  using namespace onyx::cpu;
  int n = threads <= 0 ? availableCpus() : std::min<int>(threads, kMaxThreads);
  count().store(n, std::memory_order_relaxed);
  // Kept at one thread (a caller may have changed it through OpenBLAS's own
  // entry point).
  openblas_set_num_threads(1);
  return threadCount();
}

extern "C" int32_t onyxrt_cpu_get_threads(void) {
  return onyx::cpu::threadCount();
}
