//===- OnyxLayerNorm.h - The fused layer normalization op -------*- C++ -*-===//
//
// onyx.layer_norm (OnyxLayerNorm.td), registered with the onyx dialect but
// declared apart from OnyxOps.td so that only its users include it.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_DIALECT_ONYX_ONYXLAYERNORM_H
#define ONYX_DIALECT_ONYX_ONYXLAYERNORM_H

#include "onyx/Dialect/Onyx/OnyxDialect.h"

#define GET_OP_CLASSES
#include "onyx/Dialect/Onyx/OnyxLayerNorm.h.inc"

#endif // ONYX_DIALECT_ONYX_ONYXLAYERNORM_H
