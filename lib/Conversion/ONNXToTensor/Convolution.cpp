//===- Convolution.cpp - Convolution ops ----------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {

void addConvolutionLowerings(LoweringTable &t) { (void)t; }

} // namespace onyx::conversion
