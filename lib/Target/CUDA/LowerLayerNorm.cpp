//===- LowerLayerNorm.cpp - onyx.layer_norm as a runtime kernel call ------===//
//
// Runs on buffers with the library calls. Each onyx.layer_norm of a bound
// entry becomes
//
//   %s = func.call @onyxrt_cuda_layer_norm(%ctx, @label, xType, outType,
//            paramType, rows, n, epsilon, %x, %scale, %bias | null, %out)
//            {onyx.cuda_status}
//
// with n the product of the input's dims from the op's axis on and rows
// the product of the others (run-time extents; the buffers are dense
// row-major, which onyx.layer_norm's bufferization guarantees). Types: 1
// f32, 10 f16, 16 bf16. The kernels: runtime/src/cuda/layer_norm.cu.
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Dialect/Onyx/OnyxLayerNorm.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERLAYERNORM
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

constexpr llvm::StringLiteral kLayerNormFn = ONYXRT_FN_CUDA_LAYER_NORM;

/// The product of `buffer`'s extents over dims [from, to), as i64.
Value extentProduct(LibraryCallBuilder &calls, OpBuilder &b, Location loc,
                    Value buffer, int64_t from, int64_t to) {
  Value product = calls.i64(b, loc, 1);
  for (int64_t d = from; d < to; ++d) {
    Value dim = memref::DimOp::create(b, loc, buffer, d);
    product = arith::MulIOp::create(
        b, loc, product,
        arith::IndexCastOp::create(b, loc, b.getI64Type(), dim));
  }
  return product;
}

void lower(LibraryCallBuilder &calls, Value context, LayerNormOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput(), out = op.getInit();
  int64_t rank = cast<MemRefType>(x.getType()).getRank();
  int64_t axis = op.getAxis();
  auto code = [&](Value v) {
    return calls.i32(b, loc, *libraryElementCode(elementTypeOf(v)));
  };
  SmallVector<Value> args = {
      context,
      calls.label(b, loc, calls.labelFor(op, "layer norm")),
      code(x),
      code(out),
      code(op.getScale()),
      extentProduct(calls, b, loc, x, 0, axis),
      extentProduct(calls, b, loc, x, axis, rank),
      arith::ConstantFloatOp::create(
          b, loc, b.getF64Type(), APFloat(op.getEpsilon().convertToDouble())),
      calls.devicePointer(b, loc, context, x),
      calls.devicePointer(b, loc, context, op.getScale())};
  if (Value bias = op.getBias())
    args.push_back(calls.devicePointer(b, loc, context, bias));
  else
    args.push_back(LLVM::ZeroOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext())));
  args.push_back(calls.devicePointer(b, loc, context, out));
  calls.emitCall(b, loc, kLayerNormFn, args);
  op->erase();
}

struct CUDALowerLayerNormPass
    : public onyx::impl::CUDALowerLayerNormBase<CUDALowerLayerNormPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    LibraryCallBuilder calls(module, /*tf32=*/false);
    if (failed(lowerFusedOps<LayerNormOp>(module,
                                          [&](Value context, LayerNormOp op) {
                                            lower(calls, context, op);
                                            return true;
                                          })))
      signalPassFailure();
  }
};

} // namespace
