//===- Resize.cpp - Resize and Upsample ===//
//
// (in progress)
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {

void addResizeLowerings(LoweringTable &t) { (void)t; }

} // namespace onyx::conversion
