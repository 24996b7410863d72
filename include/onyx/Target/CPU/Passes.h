//===- Passes.h - The CPU target's own passes -------------------*- C++ -*-===//
//
// Declarations of the passes in onyx/Target/CPU/Passes.td (create
// functions, registerOnyxCPUPasses).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TARGET_CPU_PASSES_H
#define ONYX_TARGET_CPU_PASSES_H

#include "onyx/Transforms/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace onyx {

#define GEN_PASS_DECL
#include "onyx/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onyx/Target/CPU/Passes.h.inc"

} // namespace onyx

#endif // ONYX_TARGET_CPU_PASSES_H
