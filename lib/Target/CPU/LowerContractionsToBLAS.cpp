//===- LowerContractionsToBLAS.cpp - GEMM-class work through BLAS ---------===//
//
// The conversion expresses MatMul/Gemm as one contraction linalg.generic
// (loops: batch..., m, n, k). On the CPU that work goes to the system BLAS
// (OpenBLAS from Debian), never to a hand-written triple loop: each such
// generic on memrefs becomes, per batch index, one call of the runtime's
// `onyxrt_cpu_{s,d}gemm` (cblas_{s,d}gemm's signature; the runtime splits
// the product across the CPU target's thread pool, each block one
// single-threaded OpenBLAS call: runtime/src/cpu/Gemm.cpp) on the 2-D
// slices, with transposes taken from the indexing maps and the leading
// dimensions from the slices' strides. Contractions that do not fit
// (run-time broadcast reads inside the body, non-unit inner strides,
// integer types, matrix-vector forms) stay loops.
//
//===----------------------------------------------------------------------===//

#include "onyx/Analysis/Contraction.h"
#include "onyx/Transforms/Passes.h"
#include "onyx/onyx_cpu_conv.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace onyx {
#define GEN_PASS_DEF_LOWERCONTRACTIONSTOBLAS
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

constexpr int32_t kCblasRowMajor = 101;
constexpr int32_t kCblasNoTrans = 111;
constexpr int32_t kCblasTrans = 112;

struct Gemm {
  linalg::GenericOp op;
  unsigned numBatch;
  MatrixOperand a, b;
};

std::optional<Gemm> matchGemm(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics())
    return std::nullopt;
  // The contraction recognizer (onyx/Analysis/Contraction.h) gives the
  // row-major form; BLAS also wants identity layouts and one float type.
  std::optional<RowMajorGemm> form = matchRowMajorGemm(op);
  if (!form)
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getLayout().isIdentity())
      return std::nullopt;
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF64())
      return std::nullopt;
  }
  Type element = cast<MemRefType>(op->getOperand(0).getType()).getElementType();
  for (Value v : op->getOperands())
    if (cast<MemRefType>(v.getType()).getElementType() != element)
      return std::nullopt;
  return Gemm{op, form->numBatch, form->a, form->b};
}

struct LowerContractionsToBLASPass
    : public onyx::impl::LowerContractionsToBLASBase<
          LowerContractionsToBLASPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Gemm> gemms;
    module.walk([&](linalg::GenericOp op) {
      if (auto g = matchGemm(op))
        gemms.push_back(*g);
    });
    for (const Gemm &g : gemms)
      lower(module, g);
  }

  func::FuncOp declare(ModuleOp module, OpBuilder &b, Type element) {
    StringRef name =
        element.isF32() ? ONYXRT_FN_CPU_SGEMM : ONYXRT_FN_CPU_DGEMM;
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto fn = func::FuncOp::create(
        b, module.getLoc(), name,
        b.getFunctionType({i32, i32, i32, i32, i32, i32, element, ptr, i32, ptr,
                           i32, element, ptr, i32},
                          {}));
    fn.setPrivate();
    return fn;
  }

  void lower(ModuleOp module, const Gemm &g) {
    linalg::GenericOp op = g.op;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1],
          c = op.getDpsInits()[0];
    auto cType = cast<MemRefType>(c.getType());
    Type element = cType.getElementType();
    func::FuncOp fn = declare(module, b, element);
    auto i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;

    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    // Loop extents: batch and (m, n) from the output, k from A.
    SmallVector<Value> batchExtents;
    for (unsigned i = 0; i < g.numBatch; ++i)
      batchExtents.push_back(memref::DimOp::create(b, loc, c, i));
    Value m = memref::DimOp::create(b, loc, c, g.numBatch);
    Value n = memref::DimOp::create(b, loc, c, g.numBatch + 1);
    auto aType = cast<MemRefType>(a.getType());
    Value k = memref::DimOp::create(
        b, loc, a, g.a.transposed ? aType.getRank() - 2 : aType.getRank() - 1);

    // Nothing to do for empty products; BLAS rejects zero leading dims.
    Value nonEmpty = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, m, zero),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, n, zero)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, k, zero));
    auto ifOp = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());

    // One loop per batch dim.
    SmallVector<Value> ivs;
    for (Value extent : batchExtents) {
      auto forOp = scf::ForOp::create(b, loc, zero, extent, one);
      b.setInsertionPointToStart(forOp.getBody());
      ivs.push_back(forOp.getInductionVar());
    }

    // Pointer to the 2-D slice of `matrix` at the batch indices, and its
    // leading dimension.
    auto slice = [&](Value matrix,
                     ArrayRef<int64_t> batchLoops) -> std::pair<Value, Value> {
      auto type = cast<MemRefType>(matrix.getType());
      int64_t rank = type.getRank();
      // Identity layout: element offset = sum(index_i * stride_i).
      SmallVector<Value> strides(rank);
      Value stride = one;
      for (int64_t i = rank - 1; i >= 0; --i) {
        strides[i] = stride;
        stride = arith::MulIOp::create(
            b, loc, stride, memref::DimOp::create(b, loc, matrix, i));
      }
      Value offset = zero;
      for (auto [i, l] : llvm::enumerate(batchLoops))
        if (l >= 0)
          offset = arith::AddIOp::create(
              b, loc, offset,
              arith::MulIOp::create(b, loc, ivs[l], strides[i]));
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, matrix);
      Value bytes = arith::MulIOp::create(
          b, loc, offset, arith::ConstantIndexOp::create(b, loc, elementBytes));
      Value address = arith::IndexCastOp::create(
          b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, bytes));
      Value pointer = LLVM::IntToPtrOp::create(b, loc, ptr, address);
      Value ld = arith::MaxUIOp::create(b, loc, strides[rank - 2], one);
      return {pointer, arith::IndexCastOp::create(b, loc, i32, ld)};
    };
    auto [aPtr, lda] = slice(a, g.a.batchLoops);
    auto [bPtr, ldb] = slice(bm, g.b.batchLoops);
    SmallVector<int64_t> cBatch =
        llvm::to_vector(llvm::seq<int64_t>(0, int64_t(g.numBatch)));
    auto [cPtr, ldc] = slice(c, cBatch);

    auto i32c = [&](int32_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    auto toI32 = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, loc, i32, v);
    };
    Value alpha =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 1.0));
    // The output already holds its initial value (the fill or bias).
    Value beta = alpha;
    func::CallOp::create(
        b, loc, fn,
        ValueRange{i32c(kCblasRowMajor),
                   i32c(g.a.transposed ? kCblasTrans : kCblasNoTrans),
                   i32c(g.b.transposed ? kCblasTrans : kCblasNoTrans), toI32(m),
                   toI32(n), toI32(k), alpha, aPtr, lda, bPtr, ldb, beta, cPtr,
                   ldc});
    op.erase();
  }
};

} // namespace
