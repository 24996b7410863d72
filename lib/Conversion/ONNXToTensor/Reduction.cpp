//===- Reduction.cpp - Reduction ops ----------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {

void addReductionLowerings(LoweringTable &t) { (void)t; }

} // namespace onyx::conversion
