//===- Features.cpp - Refusing artifacts built for a wider CPU ------------===//
//
// onyx-compile --cpu=NAME (default native: the compiling host) builds the
// generated code for one CPU's instruction set. The artifact records the
// instruction-set extensions it was built with, and its session-creation
// entry points (compiled for baseline x86-64 whatever --cpu says) call
// onyxrt_cpu_check_features before anything else runs: on a CPU that lacks
// one of them the session is refused with one message naming them, instead
// of the process dying of SIGILL in the first AVX instruction.
//
// Test hook: $ONYXRT_TEST_CPU_FEATURES, a comma-separated list of the
// extension names below, stands in for the host's (test/e2e/cpu_target.py
// uses it to play an x86-64 without AVX).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "cpu/Blas.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Feature {
  const char *name; // LLVM's name, as the compiler records it
  bool (*present)();
};

// __builtin_cpu_supports takes a literal: one probe per name. It also checks
// that the operating system saves the AVX / AVX-512 registers (XCR0).
#define ONYX_PROBE(llvmName, gccName)                                          \
  {                                                                            \
    llvmName, [] { return __builtin_cpu_supports(gccName) != 0; }              \
  }

const Feature kFeatures[] = {
    ONYX_PROBE("sse3", "sse3"),
    ONYX_PROBE("ssse3", "ssse3"),
    ONYX_PROBE("sse4.1", "sse4.1"),
    ONYX_PROBE("sse4.2", "sse4.2"),
    ONYX_PROBE("crc32", "sse4.2"),
    ONYX_PROBE("popcnt", "popcnt"),
    ONYX_PROBE("cx16", "cmpxchg16b"),
    ONYX_PROBE("sahf", "lahf_lm"),
    ONYX_PROBE("avx", "avx"),
    ONYX_PROBE("avx2", "avx2"),
    ONYX_PROBE("fma", "fma"),
    ONYX_PROBE("f16c", "f16c"),
    ONYX_PROBE("bmi", "bmi"),
    ONYX_PROBE("bmi2", "bmi2"),
    ONYX_PROBE("lzcnt", "lzcnt"),
    ONYX_PROBE("movbe", "movbe"),
    ONYX_PROBE("xsave", "xsave"),
    ONYX_PROBE("aes", "aes"),
    ONYX_PROBE("pclmul", "pclmul"),
    ONYX_PROBE("vaes", "vaes"),
    ONYX_PROBE("vpclmulqdq", "vpclmulqdq"),
    ONYX_PROBE("gfni", "gfni"),
    ONYX_PROBE("adx", "adx"),
    ONYX_PROBE("sha", "sha"),
    ONYX_PROBE("avxvnni", "avxvnni"),
    ONYX_PROBE("avx512f", "avx512f"),
    ONYX_PROBE("avx512cd", "avx512cd"),
    ONYX_PROBE("avx512bw", "avx512bw"),
    ONYX_PROBE("avx512dq", "avx512dq"),
    ONYX_PROBE("avx512vl", "avx512vl"),
    ONYX_PROBE("avx512vnni", "avx512vnni"),
    ONYX_PROBE("avx512bf16", "avx512bf16"),
    ONYX_PROBE("avx512fp16", "avx512fp16"),
    ONYX_PROBE("avx512ifma", "avx512ifma"),
    ONYX_PROBE("avx512vbmi", "avx512vbmi"),
    ONYX_PROBE("avx512vbmi2", "avx512vbmi2"),
    ONYX_PROBE("avx512bitalg", "avx512bitalg"),
    ONYX_PROBE("avx512vpopcntdq", "avx512vpopcntdq"),
};
#undef ONYX_PROBE

/// Whether the host (or the test hook's stand-in) has `name`; false for a
/// name this runtime does not know (refusing is the safe side).
bool hostHas(const std::string &name, const char *stand) {
  if (stand) {
    std::string list = std::string(",") + stand + ",";
    return list.find("," + name + ",") != std::string::npos;
  }
  for (const Feature &feature : kFeatures)
    if (name == feature.name)
      return feature.present();
  return false;
}

} // namespace

/// `target`: what the artifact was built for, for the message ("--cpu=native
/// (znver3)"); `features`: the comma-separated extensions it was built with.
/// Returns 0 when the host has them all; otherwise sets the session-creation
/// error and returns -1.
extern "C" ONYX_API int32_t onyxrt_cpu_check_features(const char *target,
                                                      const char *features) {
  // The CPU kernels' OpenBLAS (Blas.cpp) is a precondition of every CPU
  // artifact: without it, the session is refused here, not killed later.
  if (const char *blasError = onyx::cpu::blasError()) {
    onyx::rt::threadCreateError() = blasError;
    return -1;
  }
  if (!features || !*features)
    return 0;
  __builtin_cpu_init();
  const char *stand = std::getenv("ONYXRT_TEST_CPU_FEATURES");
  std::string missing;
  const char *p = features;
  while (*p) {
    const char *end = std::strchr(p, ',');
    std::string name = end ? std::string(p, end) : std::string(p);
    if (!name.empty() && !hostHas(name, stand))
      missing += (missing.empty() ? "" : ", ") + name;
    p = end ? end + 1 : p + std::strlen(p);
  }
  if (missing.empty())
    return 0;
  onyx::rt::threadCreateError() =
      std::string("this artifact was compiled for ") +
      (target ? target : "another CPU") + " and this CPU lacks " + missing +
      "; recompile it with onyx-compile --cpu=native on this machine (or "
      "--cpu=x86-64-v2 for any x86-64 of the last decade)";
  return -1;
}
