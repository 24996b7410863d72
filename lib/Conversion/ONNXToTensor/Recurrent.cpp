//===- Recurrent.cpp - RNN, GRU and LSTM ===//
//
// (in progress)
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace onyx::conversion {

void addRecurrentLowerings(LoweringTable &t) { (void)t; }

} // namespace onyx::conversion
