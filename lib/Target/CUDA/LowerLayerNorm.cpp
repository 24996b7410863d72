//===- LowerLayerNorm.cpp - onyx.layer_norm as a runtime kernel call ------===//
//
// Runs on buffers with the library calls. Each onyx.layer_norm of a bound
// entry becomes
//
//   %s = func.call @onyxrt_cuda_layer_norm(%ctx, @label, xType,
//            residualType, sumType, outType, out2Type, paramType, rows, n,
//            epsilon, %x, %residual, %scale, %bias, %sum, %out, %out2)
//            {onyx.cuda_status}
//
// (an absent operand: a null pointer and type code 0; the sum's type is
// the input's without a sum buffer, the type the residual Add had)
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
  Value x = op.getInput();
  int64_t rank = cast<MemRefType>(x.getType()).getRank();
  int64_t axis = op.getAxis();
  // Element codes; an absent operand's is 0 (the runtime ignores it).
  auto code = [&](Value v) {
    return calls.i32(b, loc, v ? *libraryElementCode(elementTypeOf(v)) : 0);
  };
  auto pointer = [&](Value v) -> Value {
    if (v)
      return calls.devicePointer(b, loc, context, v);
    return LLVM::ZeroOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()));
  };
  Value residual = op.getResidual(), sum = op.getSum();
  SmallVector<Value> args = {
      context, calls.label(b, loc, calls.labelFor(op, "layer norm")), code(x),
      code(residual),
      // The sum's type: sum's, or the input's (which is the Add's).
      code(sum ? sum : x), code(op.getInit()), code(op.getInit2()),
      code(op.getScale()), extentProduct(calls, b, loc, x, 0, axis),
      extentProduct(calls, b, loc, x, axis, rank),
      arith::ConstantFloatOp::create(
          b, loc, b.getF64Type(), APFloat(op.getEpsilon().convertToDouble())),
      pointer(x), pointer(residual), pointer(op.getScale()),
      pointer(op.getBias()), pointer(sum), pointer(op.getInit()),
      pointer(op.getInit2())};
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
