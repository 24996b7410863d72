//===- Threads.h - The CPU target's thread pool -----------------*- C++ -*-===//
//
// One thread pool for everything the CPU target runs in parallel: LLVM's
// OpenMP runtime (libomp), used by the runtime's kernels (parallelFor) and
// by the generated loops, with one process-wide thread count
// (onyxrt_cpu_set_threads / onyxrt_cpu_get_threads). OpenBLAS is kept at
// one thread: the runtime splits the GEMMs itself (Gemm.cpp), so OpenBLAS's
// own workers never compete with the pool's.
//
// Without OpenMP (a build of these sources without -fopenmp, e.g. the
// ThreadSanitizer tests) parallelFor runs serially.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_THREADS_H
#define ONYX_RUNTIME_CPU_THREADS_H

#include <cstdint>
#include <type_traits>

namespace onyx::cpu {

/// The pool's thread count (onyxrt_cpu_get_threads), at least 1.
int threadCount();

/// Whether the calling thread is inside a parallel region (of the runtime's
/// kernels or of the generated code): parallelFor then runs serially.
bool inParallel();

/// How many pieces parallelFor(n, grain, ...) splits [0, n) into: 1 (serial)
/// when n < 2 * grain, with one thread, or inside a parallel region, else
/// min(threads, n / grain).
int plannedPieces(int64_t n, int64_t grain);

using RangeFn = void (*)(void *context, int64_t begin, int64_t end);
/// Runs fn over [0, n) in `pieces` contiguous ranges, one per thread of an
/// OpenMP team (`parallel num_threads(pieces)`, static ranges). An exception
/// of a piece is rethrown on the calling thread after the team joined.
void runPieces(int64_t n, int pieces, RangeFn fn, void *context);

/// fn(begin, end) over [0, n), split across the pool in static contiguous
/// ranges of at least `grain` items (plannedPieces); serial when the work is
/// small, with one thread, or when already inside a parallel region (never
/// nested).
template <typename F> void parallelFor(int64_t n, int64_t grain, F &&fn) {
  if (n <= 0)
    return;
  int pieces = plannedPieces(n, grain);
  if (pieces <= 1) {
    fn(int64_t(0), n);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  runPieces(
      n, pieces,
      [](void *context, int64_t begin, int64_t end) {
        (*static_cast<Fn *>(context))(begin, end);
      },
      const_cast<void *>(static_cast<const void *>(&fn)));
}

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_THREADS_H
