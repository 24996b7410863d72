//===- Blas.h - OpenBLAS, loaded by the runtime -----------------*- C++ -*-===//
//
// The runtime loads libopenblas.so.0 itself (Blas.cpp: with OpenBLAS's
// AVX-512 kernels where the CPU has them); cblas_sgemm, cblas_dgemm and
// openblas_set_num_threads, as the kernels call them, forward to it.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_BLAS_H
#define ONYX_RUNTIME_CPU_BLAS_H

namespace onyx::cpu {

/// Null when OpenBLAS is loaded; otherwise why it could not be.
const char *blasError();

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_BLAS_H
