//===- NodeNames.h - The ONNX node name a location carries ------*- C++ -*-===//
//
// The importer gives every op the location NameLoc(node name); passes fuse,
// inline and rewrite ops, so the name may sit inside a FusedLoc or a
// CallSiteLoc. Error messages and runtime labels ("node 'NAME': ...") take it
// from here.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_SUPPORT_NODENAMES_H
#define ONYX_SUPPORT_NODENAMES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <string>

namespace onyx {

/// The node name carried by `loc`: the NameLoc itself, the first named
/// location of a FusedLoc, or the callee of a CallSiteLoc; "" if none.
inline std::string nodeNameOf(mlir::Location loc) {
  if (auto nameLoc = llvm::dyn_cast<mlir::NameLoc>(loc))
    return nameLoc.getName().str();
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations()) {
      std::string name = nodeNameOf(inner);
      if (!name.empty())
        return name;
    }
  if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return nodeNameOf(callSite.getCallee());
  return "";
}

} // namespace onyx

#endif // ONYX_SUPPORT_NODENAMES_H
