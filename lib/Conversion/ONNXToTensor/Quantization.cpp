//===- Quantization.cpp - QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul; Dropout, the window functions ===//
//
// (in progress)
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {

void addQuantizationLowerings(LoweringTable &t) { (void)t; }

} // namespace onyx::conversion
