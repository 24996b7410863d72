//===- Contraction.h - Recognizing contractions in linalg ops ---*- C++ -*-===//
//
// The one place that says which linalg ops are contractions and how their
// loops map onto a (batched) matrix multiply. FuseElementwise keeps these
// ops' operands plain (isContractionOrConvolution), the CPU BLAS lowering
// calls cblas_?gemm for the row-major form (matchRowMajorGemm), and the
// CUDA cuBLASLt lowering reads the loop groups (matchContractionGroups).
// Pure queries on the IR: nothing here creates or changes ops.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_ANALYSIS_CONTRACTION_H
#define ONYX_ANALYSIS_CONTRACTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace onyx {

/// Whether the body of `op` is `yield out + in0 * in1` (floats, either
/// operand order of the multiply and of the add) over its three block
/// arguments (in0, in1, out), with nothing else in it.
bool isMultiplyAccumulate(mlir::linalg::LinalgOp op);

/// Whether `op` is a contraction or a convolution: a linalg op with
/// reduction loops that is a named op (matmul, batch_matmul, conv_*, ...) or
/// a generic whose body multiplies two different inputs. The targets run
/// these through libraries (BLAS, cuBLASLt, cuDNN), which want plain
/// operands.
bool isContractionOrConvolution(mlir::Operation *op);

/// A contraction's loops grouped as a batched GEMM C[b, M, N] += A * B:
/// batch (read by A, B and C), M (A and C), N (B and C), K (A and B, the
/// reduction loops). Groups may hold several loops: batch, M and N in C's
/// order, K in A's. C is [batch..., M..., N...]; A is [batch..., M..., K...]
/// or, when transA, [batch..., K..., M...]; B is [batch..., K..., N...] or,
/// when transB, [batch..., N..., K...].
struct ContractionGroups {
  llvm::SmallVector<unsigned> batch, m, n, k;
  bool transA = false, transB = false;
};

/// The groups of a multiply-accumulate linalg op with two inputs and one
/// init whose indexing maps are loop permutations/projections of the form
/// above (each loop at most once per operand, no constant or compound
/// results); std::nullopt otherwise. Element types and layouts are the
/// caller's business.
std::optional<ContractionGroups>
matchContractionGroups(mlir::linalg::LinalgOp op);

/// How one operand of a row-major GEMM is read: per leading (batch) dim of
/// the operand, the batch loop it follows or -1 (constant index 0, a
/// broadcast), and whether its trailing two dims are transposed.
struct MatrixOperand {
  llvm::SmallVector<int64_t> batchLoops;
  bool transposed = false;
};

/// A row-major (batched) GEMM in loop order (batch..., m, n, k): one loop
/// each for M, N and K; C indexed by (batch..., m, n); A and B by trailing
/// (m, k) / (k, n), either transposed, after leading batch loops or zeros.
struct RowMajorGemm {
  unsigned numBatch = 0;
  MatrixOperand a, b;
};

/// The row-major form of a multiply-accumulate linalg.generic
/// (what one cblas_?gemm call per batch index computes): loops all parallel
/// but the last, a reduction; std::nullopt otherwise. Element types and
/// layouts are the caller's business.
std::optional<RowMajorGemm> matchRowMajorGemm(mlir::linalg::GenericOp op);

} // namespace onyx

#endif // ONYX_ANALYSIS_CONTRACTION_H
