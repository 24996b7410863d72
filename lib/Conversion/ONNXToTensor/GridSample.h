//===- GridSample.h - GridSample lowering and the cubic kernel ---*- C++
//-*-===//
//
// GridSample (GridSample.cpp) shares Keys' cubic-convolution weights with
// Resize (Resize.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_CONVERSION_ONNXTOTENSOR_GRIDSAMPLE_H
#define ONYX_LIB_CONVERSION_ONNXTOTENSOR_GRIDSAMPLE_H

#include "Lowering.h"

#include "onyx/Shape/ResizeShapes.h"

namespace onyx::conversion {

/// The weights of the 4 cubic-convolution taps at offsets -1, 0, 1, 2 from
/// the left neighbour, for a fraction `r` past it (Keys' kernel with
/// parameter `a`, as ONNX and PyTorch write it). Defined in Resize.cpp.
llvm::SmallVector<shape::F64> cubicWeights(shape::F64Math &f, shape::F64 r,
                                           double a);

/// Registers onnx.GridSample.
void addGridSampleLowerings(LoweringTable &t);

} // namespace onyx::conversion

#endif // ONYX_LIB_CONVERSION_ONNXTOTENSOR_GRIDSAMPLE_H
