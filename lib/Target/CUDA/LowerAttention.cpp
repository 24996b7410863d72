//===- LowerAttention.cpp - onyx.attention as a runtime kernel call -------===//
//
// Runs on buffers with the library calls. Each onyx.attention of a bound
// entry becomes
//
//   %s = func.call @onyxrt_cuda_attention(%ctx, @label, elemType, B, H, Sq,
//            Sk, D, Dv, kvGroup, scale, %q, qStrides[4], %k, kStrides[4],
//            %v, vStrides[4], %mask, maskStrides[4], maskMode, maskFill,
//            causalShift, %out, outStrides[4]) {onyx.cuda_status}
//
// Strides are in elements, per logical dim (batch, head, sequence, depth;
// the mask's batch, head, query, key), from the operands' run-time extents
// (dense row-major buffers: onyx.attention's bufferization makes strided
// views dense); a dim of extent 1, or one the mask lacks, gets stride 0, so
// the kernel broadcasts as ONNX does. The output's strides follow its
// `out_dims` (the heads-merged [B, Sq, H, Dv] when the op folded the
// Transpose after it). With `head_offsets`, an operand's address is that
// of its first head read (offset x its head stride). The extents are the
// output's (B, H, Sq, Dv), the query's depth (D) and the largest key length
// of key, value and mask (Sk).
// elemType: 1 f32, 10 f16, 16 bf16 (Q, K, V and the output). maskMode: 0 none,
// 1 additive f32, 2 / 3 an i1 Where mask (the score becomes maskFill where the
// mask is false / true), 4 additive in the operands' f16/bf16, 5 the i1 mask
// of `causal_shift` (causalShift): the kernel computes it from the indices
// and the mask's strides (0 where it broadcasts) instead of reading it.
//
//===----------------------------------------------------------------------===//

#include "LibraryCalls.h"

#include "onyx/Dialect/Onyx/OnyxAttention.h"
#include "onyx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERATTENTION
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

/// The runtime's flash-attention entry (runtime/src/cuda/CudaAttention.cpp).
constexpr llvm::StringLiteral kAttentionFn = ONYXRT_FN_CUDA_ATTENTION;

struct Lowering {
  LibraryCallBuilder &calls;
  OpBuilder &b;
  Location loc;

  Value extent(Value buffer, int64_t d) {
    Value dim = memref::DimOp::create(b, loc, buffer, d);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), dim);
  }
  /// Per logical dim the element stride of `buffer` (row-major), 0 for an
  /// extent-1 dim or a dim it lacks (-1 in `dims`).
  SmallVector<Value> strides(Value buffer, ArrayRef<int64_t> dims) {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t rank = type.getRank();
    SmallVector<Value> extents, rowMajor(rank);
    for (int64_t d = 0; d < rank; ++d)
      extents.push_back(extent(buffer, d));
    Value running = calls.i64(b, loc, 1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      rowMajor[d] = running;
      running = arith::MulIOp::create(b, loc, running, extents[d]);
    }
    Value one = calls.i64(b, loc, 1), zero = calls.i64(b, loc, 0);
    SmallVector<Value> result;
    for (int64_t d : dims) {
      if (d < 0) {
        result.push_back(zero);
        continue;
      }
      Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          extents[d], one);
      result.push_back(
          arith::SelectOp::create(b, loc, isOne, zero, rowMajor[d]));
    }
    return result;
  }
  Value maxOf(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
};

bool lower(LibraryCallBuilder &calls, Value context, AttentionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Lowering l{calls, b, loc};
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
        mask = op.getMask(), out = op.getInit();
  ArrayRef<int64_t> qd = op.getQueryDims(), kd = op.getKeyDims(),
                    vd = op.getValueDims(), md = op.getMaskDims();
  SmallVector<int64_t, 4> od = op.getOutDimsOrIdentity();
  Value batch = l.extent(out, od[0]), heads = l.extent(out, od[1]),
        sq = l.extent(out, od[2]), dv = l.extent(out, od[3]);
  Value depth = l.extent(q, qd[3]);
  Value sk = l.maxOf(l.extent(k, kd[2]), l.extent(v, vd[2]));
  if (mask && md[3] >= 0)
    sk = l.maxOf(sk, l.extent(mask, md[3]));
  int32_t elementCode = *libraryElementCode(elementTypeOf(q));
  SmallVector<Value> args = {
      context,
      calls.label(b, loc, calls.labelFor(op, "flash attention")),
      calls.i32(b, loc, elementCode),
      batch,
      heads,
      sq,
      sk,
      depth,
      dv,
      calls.i64(b, loc, op.getKvGroup()),
      arith::ConstantFloatOp::create(b, loc, b.getF64Type(),
                                     APFloat(op.getScale().convertToDouble()))};
  // The address of the first head read (head_offsets) and the strides.
  auto append = [&](Value buffer, ArrayRef<int64_t> dims,
                    int64_t headOffset = 0) {
    Value pointer = calls.devicePointer(b, loc, context, buffer);
    SmallVector<Value> strides = l.strides(buffer, dims);
    if (headOffset != 0) {
      Value elements = arith::MulIOp::create(b, loc, strides[1],
                                             calls.i64(b, loc, headOffset));
      pointer =
          LLVM::GEPOp::create(b, loc, pointer.getType(), elementTypeOf(buffer),
                              pointer, ArrayRef<LLVM::GEPArg>{elements});
    }
    args.push_back(pointer);
    llvm::append_range(args, strides);
  };
  SmallVector<int64_t, 3> offsets = op.getHeadOffsetsOrZero();
  append(q, qd, offsets[0]);
  append(k, kd, offsets[1]);
  append(v, vd, offsets[2]);
  if (mask) {
    append(mask, md);
  } else {
    args.push_back(LLVM::ZeroOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext())));
    for (int i = 0; i < 4; ++i)
      args.push_back(calls.i64(b, loc, 0));
  }
  // 0: no mask, 1: additive f32, 2: i1 select (fill where false), 3: i1
  // select (fill where true), 4: additive in the operands' f16/bf16, 5: the
  // causal select computed.
  int32_t maskMode = !mask                       ? 0
                     : !op.getMaskFill()         ? 1
                     : op.getMaskFillWhereTrue() ? 3
                     : op.getCausalShift()       ? 5
                                                 : 2;
  if (maskMode == 1 && !elementTypeOf(mask).isF32()) {
    if (elementTypeOf(mask) != elementTypeOf(q) || elementTypeOf(q).isF32()) {
      op.emitError("an additive attention mask must be f32 or the operands' "
                   "element type on the CUDA target");
      return false;
    }
    maskMode = 4;
  }
  args.push_back(calls.i32(b, loc, maskMode));
  args.push_back(arith::ConstantFloatOp::create(
      b, loc, b.getF64Type(),
      APFloat(op.getMaskFill() ? op.getMaskFill()->convertToDouble() : 0.0)));
  args.push_back(calls.i64(b, loc, op.getCausalShift().value_or(0)));
  append(out, od);
  calls.emitCall(b, loc, kAttentionFn, args);
  op->erase();
  return true;
}

struct CUDALowerAttentionPass
    : public onyx::impl::CUDALowerAttentionBase<CUDALowerAttentionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    LibraryCallBuilder calls(module, /*tf32=*/false);
    if (failed(lowerFusedOps<AttentionOp>(module,
                                          [&](Value context, AttentionOp op) {
                                            return lower(calls, context, op);
                                          })))
      signalPassFailure();
  }
};

} // namespace
