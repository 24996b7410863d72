//===- LowerContractionsToBLAS.cpp - GEMM-class work through BLAS ---------===//
//
// The conversion expresses MatMul/Gemm as one contraction linalg.generic
// (loops: batch..., m, n, k). On the CPU that work goes to the system BLAS
// (OpenBLAS from Debian), never to a hand-written triple loop: each such
// generic on memrefs becomes one call of the runtime's `onyxrt_cpu_{s,d}gemm`
// (cblas_{s,d}gemm's signature; the runtime splits the product across the
// CPU target's thread pool, each block one single-threaded OpenBLAS call:
// runtime/src/cpu/Gemm.cpp), or with batch dims of
// `onyxrt_cpu_{s,d}gemm_batched` (an array of the batch extents and of each
// operand's strides along them; the runtime spreads whole products over the
// pool), with transposes taken from the indexing maps and the leading
// dimensions from the matrices' strides. Contractions that do not fit
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

  /// onyxrt_cpu_{s,d}gemm, or with `batched` onyxrt_cpu_{s,d}gemm_batched
  /// (two leading arguments: the batch rank and the extents/strides array).
  func::FuncOp declare(ModuleOp module, OpBuilder &b, Type element,
                       bool batched) {
    StringRef name =
        batched ? (element.isF32() ? ONYXRT_FN_CPU_SGEMM_BATCHED
                                   : ONYXRT_FN_CPU_DGEMM_BATCHED)
                : (element.isF32() ? ONYXRT_FN_CPU_SGEMM : ONYXRT_FN_CPU_DGEMM);
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    SmallVector<Type> args;
    if (batched)
      args = {i32, ptr};
    args.append({i32, i32, i32, i32, i32, i32, element, ptr, i32, ptr, i32,
                 element, ptr, i32});
    auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                   b.getFunctionType(args, {}));
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
    bool batched = g.numBatch > 0;
    func::FuncOp fn = declare(module, b, element, batched);
    auto i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());

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

    // The batch dims go to the runtime (onyxrt_cpu_?gemm_batched), which
    // spreads whole products over the thread pool: an array of the batch
    // extents and, per operand, its element stride along each batch loop.
    auto i64 = b.getI64Type();
    Value batchArray;
    auto storeBatch = [&](int64_t slot, Value v) {
      memref::StoreOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, i64, v), batchArray,
          ValueRange{arith::ConstantIndexOp::create(b, loc, slot)});
    };
    if (batched) {
      // At the function's entry: an alloca inside a host loop (a Loop
      // body) would grow the stack every iteration.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&op->getParentOfType<FunctionOpInterface>()
                                      .getFunctionBody()
                                      .front());
      batchArray = memref::AllocaOp::create(
          b, loc, MemRefType::get({4 * int64_t(g.numBatch)}, i64));
    }
    if (batched) {
      for (auto [l, extent] : llvm::enumerate(batchExtents))
        storeBatch(int64_t(l), extent);
    }

    // Pointer to the 2-D matrix at batch index 0 and its leading dimension;
    // its strides along the batch loops go to slots [first, first + batch).
    auto slice = [&](Value matrix, ArrayRef<int64_t> batchLoops,
                     int64_t first) -> std::pair<Value, Value> {
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
      if (batched) {
        SmallVector<Value> loopStrides(g.numBatch, zero);
        for (auto [i, l] : llvm::enumerate(batchLoops))
          if (l >= 0)
            loopStrides[l] =
                arith::AddIOp::create(b, loc, loopStrides[l], strides[i]);
        for (auto [l, v] : llvm::enumerate(loopStrides))
          storeBatch(first + int64_t(l), v);
      }
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, matrix);
      Value address = arith::IndexCastOp::create(b, loc, i64, base);
      Value pointer = LLVM::IntToPtrOp::create(b, loc, ptr, address);
      Value ld = arith::MaxUIOp::create(b, loc, strides[rank - 2], one);
      return {pointer, arith::IndexCastOp::create(b, loc, i32, ld)};
    };
    int64_t nb = g.numBatch;
    auto [aPtr, lda] = slice(a, g.a.batchLoops, nb);
    auto [bPtr, ldb] = slice(bm, g.b.batchLoops, 2 * nb);
    SmallVector<int64_t> cBatch = llvm::to_vector(llvm::seq<int64_t>(0, nb));
    auto [cPtr, ldc] = slice(c, cBatch, 3 * nb);

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
    SmallVector<Value> args;
    if (batched) {
      Value arrayAddress = arith::IndexCastOp::create(
          b, loc, i64,
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, batchArray));
      args = {i32c(int32_t(nb)),
              LLVM::IntToPtrOp::create(b, loc, ptr, arrayAddress)};
    }
    args.append({i32c(kCblasRowMajor),
                 i32c(g.a.transposed ? kCblasTrans : kCblasNoTrans),
                 i32c(g.b.transposed ? kCblasTrans : kCblasNoTrans), toI32(m),
                 toI32(n), toI32(k), alpha, aPtr, lda, bPtr, ldb, beta, cPtr,
                 ldc});
    func::CallOp::create(b, loc, fn, args);
    op.erase();
  }
};

} // namespace
