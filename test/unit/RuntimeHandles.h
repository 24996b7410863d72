//===- RuntimeHandles.h - Owning handles for runtime tests ------*- C++ -*-===//
//
// unique_ptr owners for the runtime's C objects, shared by the runtime
// gtests (sessions, sequences, the fake-device tests).
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_TEST_UNIT_RUNTIMEHANDLES_H
#define ONYX_TEST_UNIT_RUNTIMEHANDLES_H

#include "onyx/onyx_runtime.h"

#include <memory>

namespace onyx::test {

struct StateDeleter {
  void operator()(OnyxState *s) const { onyxrt_state_destroy(s); }
};
struct ListDeleter {
  void operator()(OnyxTensorList *l) const { onyx_tensor_list_destroy(l); }
};
using StatePtr = std::unique_ptr<OnyxState, StateDeleter>;
using ListPtr = std::unique_ptr<OnyxTensorList, ListDeleter>;

} // namespace onyx::test

#endif // ONYX_TEST_UNIT_RUNTIMEHANDLES_H
