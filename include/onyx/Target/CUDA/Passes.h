//===- Passes.h - The CUDA target's passes ----------------------*- C++ -*-===//
//
// Declarations of the passes in onyx/Target/CUDA/Passes.td (options structs,
// create functions, registerOnyxCUDAPasses).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TARGET_CUDA_PASSES_H
#define ONYX_TARGET_CUDA_PASSES_H

#include "onyx/Transforms/Passes.h"

namespace onyx {

#define GEN_PASS_DECL
#include "onyx/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onyx/Target/CUDA/Passes.h.inc"

} // namespace onyx

#endif // ONYX_TARGET_CUDA_PASSES_H
