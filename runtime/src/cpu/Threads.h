//===- Threads.h - The CPU kernels' thread count ----------------*- C++ -*-===//
//
// One thread count for everything the CPU target runs in parallel: today
// OpenBLAS's (GEMMs and the convolutions' GEMMs); onyxrt_cpu_set_threads
// sets it.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_THREADS_H
#define ONYX_RUNTIME_CPU_THREADS_H

namespace onyx::cpu {

/// The thread count the CPU kernels use (OpenBLAS's).
int threadCount();

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_THREADS_H
