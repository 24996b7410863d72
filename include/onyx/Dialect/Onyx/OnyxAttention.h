//===- OnyxAttention.h - The fused attention op -----------------*- C++ -*-===//
//
// onyx.attention (OnyxAttention.td), registered with the onyx dialect but
// declared apart from OnyxOps.td so that only its users include it.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_DIALECT_ONYX_ONYXATTENTION_H
#define ONYX_DIALECT_ONYX_ONYXATTENTION_H

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxAttention.h.inc"

#endif // ONYX_DIALECT_ONYX_ONYXATTENTION_H
