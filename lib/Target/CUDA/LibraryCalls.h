//===- LibraryCalls.h - GEMMs and convolutions as library calls -*- C++ -*-===//
//
// What onyx-cuda-lower-library-calls' two lowerings share: the matchers of
// dense f32 / f16 / bf16 mul-add ops, the epilogue checks (which buffers
// nothing else reads), and the builder of the runtime calls (labels,
// declarations, device pointers, the status attribute onyx-cuda-lower-launches
// checks).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CUDA_LIBRARYCALLS_H
#define ONYX_LIB_TARGET_CUDA_LIBRARYCALLS_H

#include "CUDAAttributes.h"

#include "onyx/onyx_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace onyx::cuda {

inline constexpr llvm::StringLiteral kGemmFn = ONYXRT_FN_CUDA_GEMM;
inline constexpr llvm::StringLiteral kConvFn = ONYXRT_FN_CUDA_CONV;

// The call flags (onyx_abi.h).
inline constexpr int32_t kGemmTransA = ONYXRT_GEMM_TRANS_A,
                         kGemmTransB = ONYXRT_GEMM_TRANS_B,
                         kGemmAccumulate = ONYXRT_GEMM_ACCUMULATE,
                         kGemmTF32 = ONYXRT_GEMM_TF32,
                         kGemmGeluTanh = ONYXRT_GEMM_GELU_TANH;
inline constexpr int32_t kConvAccumulate = ONYXRT_CONV_ACCUMULATE,
                         kConvTF32 = ONYXRT_CONV_TF32,
                         kConvRelu = ONYXRT_CONV_RELU,
                         kConvNHWC = ONYXRT_CONV_NHWC,
                         kConvConstFilter = ONYXRT_CONV_CONST_FILTER;
/// ONNX element type codes (onyx_runtime.h's OnyxElementType).
inline constexpr int32_t kOnyxF32 = 1, kOnyxF16 = 10, kOnyxBF16 = 16;

/// The element type code of a float type the library calls take (f32, f16,
/// bf16); nullopt for anything else.
std::optional<int32_t> libraryElementCode(mlir::Type type);

/// The buffer `buffer` is a whole reshape of (expand/collapse only: same
/// elements, same order).
mlir::Value reshapeRoot(mlir::Value buffer);

/// Host memory a library call may read: constants and external weights.
bool isHostConstant(mlir::Value buffer);

/// A dense f32, f16 or bf16 buffer with the identity layout (so offset 0 and
/// row-major strides) that a library call can address as a plain pointer.
bool isDenseFloat(mlir::Value buffer);
/// isDenseFloat with the element type `elementType`.
bool isDenseOf(mlir::Value buffer, mlir::Type elementType);

/// The element type of a buffer (a memref).
mlir::Type elementTypeOf(mlir::Value buffer);

/// `v` without an arith.extf (half to f32) in front of it: the half-precision
/// epilogues compute `truncf(f(extf(x)))`, f32 ones `f(x)`.
mlir::Value stripExtF(mlir::Value v);
/// The f32 value a half-precision body yields through an arith.truncf, or
/// `v` itself.
mlir::Value stripTruncF(mlir::Value v);

/// `v` without its extension from f16 / bf16 to f32: an arith.extf, or the
/// ONNX lowering's bit-level bf16 form (bitcast, extui, shli, bitcast); the
/// ops it took are appended to `steps`. `v` itself when it is neither.
mlir::Value stripExtension(mlir::Value v,
                           llvm::SmallVectorImpl<mlir::Operation *> &steps);
/// The f32 value `v` rounds to f16 / bf16: through an arith.truncf or the
/// ONNX lowering's bit-level bf16 rounding to nearest even; the ops it took
/// are appended to `steps`. `v` itself when it is neither.
mlir::Value stripRounding(mlir::Value v,
                          llvm::SmallVectorImpl<mlir::Operation *> &steps);

/// The f32 value `v` is a half-precision rounding of, extended back to f32:
/// extf(truncf(y)), or its bit-level bf16 form (with the bf16 bitcasts
/// folded away, as fusion leaves it); the ops are appended to `steps`. Null
/// when `v` is neither.
mlir::Value
stripExtendedRounding(mlir::Value v,
                      llvm::SmallVectorImpl<mlir::Operation *> &steps);

/// Whether `op` may sit between a library op and the ops folded into it:
/// it writes no tensor data.
bool isNeutral(mlir::Operation *op);

bool isZeroConstant(mlir::Value v);

/// Whether `v` is the result of a linalg.fill of a float zero (+0 or -0):
/// a contraction's or reduction's fresh accumulator.
bool isZeroFill(mlir::Value v);

/// Whether the elementwise body yields `lhs + rhs` of its arguments
/// `lhsArg` and `rhsArg` (either order) and does nothing else: `addf` in
/// f32, `truncf(addf(extf, extf))` in f16 / bf16 (or `addf` on the half
/// type itself).
bool isAddOfArguments(mlir::Block &body, unsigned lhsArg, unsigned rhsArg);

/// Whether `body` computes nothing but `steps` (the ops a matcher took;
/// constants aside), all of them its own.
bool isExactlySteps(mlir::Block &body, llvm::ArrayRef<mlir::Operation *> steps);

/// The loops an indexing map reads, in result order; empty when a result
/// is not a plain loop.
std::optional<llvm::SmallVector<unsigned>> mapDims(mlir::AffineMap map);

/// Operands, maps and body of a 2-input, 1-output mul-add
/// (`out + in0 * in1`) on dense buffers of one element type (f32, f16 or
/// bf16), the output not an input.
bool isMulAddOp(mlir::linalg::LinalgOp op);

/// A linalg.fill of zero that initializes exactly `out` right before `op`
/// (nothing in between writes tensor data) is erased: the call then
/// overwrites instead of accumulating.
bool absorbZeroFill(mlir::Operation *op, mlir::Value out);

/// Whether `buffer` (or an expand_shape view of it) is used by an op
/// strictly between `first` and `last` of one block.
bool usedBetween(mlir::Value buffer, mlir::Operation *first,
                 mlir::Operation *last);

/// Whether `buffer` is read only by `allowed` (and views/dims that only
/// `allowed` use): then what the fused call does not write is never read.
/// With `from` (an op of `allowed` that overwrites all of the buffer), uses
/// before it do not count: they are of an earlier value that bufferization
/// placed in the same buffer. With `until` (an op of `allowed` after which
/// the buffer holds what the fused call leaves in it), uses after it do not
/// count either: they read that final value.
bool onlyUsedBy(mlir::Value buffer, llvm::ArrayRef<mlir::Operation *> allowed,
                mlir::Operation *from = nullptr,
                mlir::Operation *until = nullptr);

/// The sizes a buffer was given (memref.view / alloc ops), to prove two
/// buffers have equal dims.
std::optional<llvm::SmallVector<mlir::Value>> dynamicSizes(mlir::Value buffer);

/// Builds the runtime calls of one pass run.
class LibraryCallBuilder {
public:
  LibraryCallBuilder(mlir::ModuleOp module, bool tf32)
      : tf32(tf32), module(module) {}

  /// A pointer to a NUL-terminated private global holding `text`.
  mlir::Value label(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef text);
  /// `node 'NAME' (library)`, or the op's name without a node.
  std::string labelFor(mlir::Operation *op, llvm::StringRef library);
  /// The device address of `buffer` (dense, identity layout) as a pointer;
  /// a host constant is read through its session copy.
  mlir::Value devicePointer(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value context, mlir::Value buffer);
  mlir::Value i64(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  mlir::Value i32(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  mlir::Value toI64(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::OpFoldResult ofr);
  /// Product of the extents of `loops` (i64).
  mlir::Value product(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> sizes,
                      llvm::ArrayRef<unsigned> loops);
  /// A call of `fnName` (declared on first use) returning an i32 status.
  void emitCall(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef fnName,
                llvm::ArrayRef<mlir::Value> args);
  /// Erases an op a call absorbed after it (an epilogue), so that the pass
  /// does not visit it.
  void eraseLater(mlir::Operation *op) {
    erased.insert(op);
    op->erase();
  }
  bool wasErased(mlir::Operation *op) const { return erased.contains(op); }

  /// TF32 arithmetic allowed for f32 calls (the pass option; f16 and bf16
  /// calls always use tensor cores with f32 accumulation).
  const bool tf32;

private:
  mlir::func::FuncOp declare(llvm::StringRef name,
                             llvm::ArrayRef<mlir::Type> args,
                             mlir::Type result);

  mlir::ModuleOp module;
  llvm::StringMap<std::string> labels;
  unsigned labelCounter = 0;
  llvm::DenseSet<mlir::Operation *> erased;
};

/// Visits the pure-buffer linalg ops of each entry function (one taking
/// the context first) in order, with that context, skipping those a call
/// has absorbed (`calls.wasErased`): the walk of both library-call passes.
void forEachLibraryCandidate(
    mlir::ModuleOp module, const LibraryCallBuilder &calls,
    llvm::function_ref<void(mlir::Value, mlir::linalg::LinalgOp)> visit);

/// Lowers every fused op (`isTarget`) of the module's functions with
/// `lower(context, op)`. An op outside a bound entry, or with an operand
/// that is not a dense row-major buffer, is an error naming it; failure when
/// any op was in error or `lower` returned false. The walk of the fused-op
/// lowerings (attention, LayerNorm).
mlir::LogicalResult
lowerFusedOps(mlir::ModuleOp module,
              llvm::function_ref<bool(mlir::Operation *)> isTarget,
              llvm::function_ref<bool(mlir::Value, mlir::Operation *)> lower);

template <typename OpT>
mlir::LogicalResult
lowerFusedOps(mlir::ModuleOp module,
              llvm::function_ref<bool(mlir::Value, OpT)> lower) {
  return lowerFusedOps(
      module, [](mlir::Operation *op) { return mlir::isa<OpT>(op); },
      [&](mlir::Value context, mlir::Operation *op) {
        return lower(context, mlir::cast<OpT>(op));
      });
}

/// A (batched) row-major GEMM: the loops of each group (batch, M, N, K) and
/// whether A and B are transposed.
struct GemmMatch {
  mlir::Value a, b, c;
  bool transA = false, transB = false;
  llvm::SmallVector<unsigned> batch, m, n, k;
};
std::optional<GemmMatch> matchGemm(mlir::linalg::LinalgOp op);
/// `op` as an onyxrt_cuda_gemm call, with a zero fill before and a bias Add
/// after absorbed.
void lowerGemm(LibraryCallBuilder &calls, mlir::Value context,
               mlir::linalg::LinalgOp op, const GemmMatch &match);

/// The Conv lowering's grouped convolution over the padded input, in its
/// layout (x [N, G, C/G, in...], y [N, G, M/G, out...]) or channels last
/// (onyx-cuda-channels-last: x [N, in..., G, C/G], y [N, out..., G, M/G]);
/// w [G, M/G, C/G, kernel...] either way.
struct ConvMatch {
  mlir::Value x, w, y;
  int64_t rank = 0;
  bool channelsLast = false;
  llvm::SmallVector<int64_t> strides, dilations;
};
std::optional<ConvMatch> matchConv(mlir::linalg::LinalgOp op);
/// `op` as an onyxrt_cuda_conv call, with the bias broadcast before and a
/// Relu, or ResNet's residual Add + Relu, after absorbed; with
/// `foldPadding` (before the pooling only: the call then reads the unpadded
/// input, which must stay live until it), also the symmetric zero padding
/// of the input.
void lowerConv(LibraryCallBuilder &calls, mlir::Value context,
               mlir::linalg::LinalgOp op, const ConvMatch &match,
               bool foldPadding = false);

} // namespace onyx::cuda

#endif // ONYX_LIB_TARGET_CUDA_LIBRARYCALLS_H
