//===- Blas.cpp - OpenBLAS, loaded with the host's kernels ----------------===//
//
// The CPU kernels' GEMMs are OpenBLAS's (Gemm.cpp, Conv.cpp). OpenBLAS picks
// its kernels once, when the library is loaded, from the CPU's family and
// model number (or $OPENBLAS_CORETYPE); a model it does not know gets its
// generic SSE3 ("Prescott") kernels. Debian 12's OpenBLAS 0.3.21 does not
// know recent Xeons (e.g. family 6 model 207, which has AVX-512): there a
// 512^3 sgemm took 26.7 ms instead of 6.1 ms with the AVX-512 ("SkylakeX")
// kernels, and ResNet-50 ran 3-4x slower than it should.
//
// So the runtime does not link OpenBLAS. It loads libopenblas.so.0 itself
// when it is loaded (a constructor), and when the CPU has AVX-512 (F, CD,
// BW, DQ, VL: what OpenBLAS's SkylakeX kernels use) and $OPENBLAS_CORETYPE
// is not set, it sets OPENBLAS_CORETYPE=SKYLAKEX for that load only (the
// variable is removed again). On other CPUs OpenBLAS chooses as before. A
// process that loaded OpenBLAS before the runtime (the same soname) keeps
// the kernels it chose then.
//
// The three functions the kernels call are defined here and forward to the
// loaded library; the version script (exports.map) keeps them inside the
// runtime, so they never interpose another library's cblas_sgemm. If
// OpenBLAS cannot be loaded, CPU artifacts are refused when their session is
// created (onyxrt_cpu_check_features, Features.cpp) with dlopen's message.
//
//===----------------------------------------------------------------------===//

#include "cpu/Blas.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>

namespace {

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double *,
                         int, const double *, int, double, double *, int);
using SetThreadsFn = void (*)(int);

struct Blas {
  void *handle = nullptr;
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  SetThreadsFn setThreads = nullptr;
  std::string error;
};

bool hasAVX512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

Blas load() {
  Blas blas;
  const char *name = "libopenblas.so.0";
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!handle) {
    bool setCore = !std::getenv("OPENBLAS_CORETYPE") && hasAVX512();
    if (setCore)
      setenv("OPENBLAS_CORETYPE", "SKYLAKEX", /*overwrite=*/0);
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (setCore)
      unsetenv("OPENBLAS_CORETYPE");
  }
  if (!handle) {
    const char *why = dlerror();
    blas.error = std::string("the CPU kernels need OpenBLAS, which could not "
                             "be loaded: ") +
                 (why ? why : name);
    return blas;
  }
  blas.handle = handle;
  blas.sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
  blas.dgemm = reinterpret_cast<DgemmFn>(dlsym(handle, "cblas_dgemm"));
  blas.setThreads =
      reinterpret_cast<SetThreadsFn>(dlsym(handle, "openblas_set_num_threads"));
  if (!blas.sgemm || !blas.dgemm || !blas.setThreads) {
    blas.error = std::string(name) + " lacks cblas_sgemm, cblas_dgemm or "
                                     "openblas_set_num_threads";
    blas.handle = nullptr;
  }
  return blas;
}

const Blas &blas() {
  static const Blas loaded = load();
  return loaded;
}

/// Loads OpenBLAS when the runtime is loaded: before any artifact (which may
/// name libopenblas.so.0 among its own dependencies) can load it with the
/// default kernel choice.
__attribute__((constructor)) void loadAtStart() { (void)blas(); }

} // namespace

namespace onyx::cpu {

const char *blasError() {
  const Blas &b = blas();
  return b.handle ? nullptr : b.error.c_str();
}

} // namespace onyx::cpu

// The forwarders (local to the runtime: exports.map). Threads.cpp calls
// openblas_set_num_threads when the runtime loads; without OpenBLAS it does
// nothing, and the GEMMs are not reached (CPU sessions are refused).
extern "C" void cblas_sgemm(int order, int transA, int transB, int m, int n,
                            int k, float alpha, const float *a, int lda,
                            const float *b, int ldb, float beta, float *c,
                            int ldc) {
  blas().sgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c,
               ldc);
}

extern "C" void cblas_dgemm(int order, int transA, int transB, int m, int n,
                            int k, double alpha, const double *a, int lda,
                            const double *b, int ldb, double beta, double *c,
                            int ldc) {
  blas().dgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c,
               ldc);
}

extern "C" void openblas_set_num_threads(int threads) {
  if (blas().setThreads)
    blas().setThreads(threads);
}
