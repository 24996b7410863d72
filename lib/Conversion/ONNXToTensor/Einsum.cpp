//===- Einsum.cpp - Einsum ===//
//
// (in progress)
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {

void addEinsumLowerings(LoweringTable &t) { (void)t; }

} // namespace onyx::conversion
