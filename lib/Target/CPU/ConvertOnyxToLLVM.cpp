//===- ConvertOnyxToLLVM.cpp - Host program to the LLVM dialect -----------===//
//
// One full conversion of the host program: upstream patterns for
// func/cf/arith/math/index/memref/ub, plus the onyx runtime ops, which become
// calls into the runtime library that yield memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace onyx {
#define GEN_PASS_DEF_CONVERTONYXTOLLVM
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

/// Declares (once) and calls a runtime function.
Value callRuntime(ConversionPatternRewriter &rewriter, Operation *op,
                  StringRef name, Type resultType, ValueRange args) {
  auto module = op->getParentOfType<ModuleOp>();
  SmallVector<Type> argTypes;
  for (Value a : args)
    argTypes.push_back(a.getType());
  auto fn = LLVM::lookupOrCreateFn(
      rewriter, module, name, argTypes,
      resultType ? resultType : LLVM::LLVMVoidType::get(op->getContext()));
  assert(succeeded(fn) && "runtime function redeclared with another type");
  auto call = LLVM::CallOp::create(rewriter, op->getLoc(), *fn, args);
  return resultType ? call.getResult() : Value();
}

struct GetInputLowering : public ConvertOpToLLVMPattern<GetInputOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(GetInputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value ctx = adaptor.getContext();
    Value index = LLVM::ConstantOp::create(rewriter, loc, i64, op.getIndex());
    Value data =
        callRuntime(rewriter, op, "onyxrt_input_data", ptr, {ctx, index});
    SmallVector<Value> dynSizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value dim = LLVM::ConstantOp::create(rewriter, loc, i64, d);
      dynSizes.push_back(callRuntime(rewriter, op, "onyxrt_input_dim", i64,
                                     {ctx, index, dim}));
    }
    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, dynSizes, rewriter, sizes, strides,
                             bytes);
    auto desc =
        createMemRefDescriptor(loc, type, data, data, sizes, strides, rewriter);
    rewriter.replaceOp(op, {desc});
    return success();
  }
};

/// Shared lowering of the two allocation ops.
template <typename OpTy>
struct AllocLowering : public ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    SmallVector<Value> sizes, strides;
    Value bytes;
    this->getMemRefDescriptorSizes(loc, type, adaptor.getDynamicSizes(),
                                   rewriter, sizes, strides, bytes);
    Value data;
    if constexpr (std::is_same_v<OpTy, AllocOutputOp>) {
      // The runtime takes the shape as an array of i64.
      Value rank = LLVM::ConstantOp::create(rewriter, loc, i64, type.getRank());
      Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
      Value shape = LLVM::AllocaOp::create(
          rewriter, loc, ptr, i64, type.getRank() > 0 ? rank : Value(one));
      for (auto [i, size] : llvm::enumerate(sizes)) {
        Value slot = LLVM::GEPOp::create(rewriter, loc, ptr, i64, shape,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, size, slot);
      }
      Value index = LLVM::ConstantOp::create(rewriter, loc, i64, op.getIndex());
      data = callRuntime(rewriter, op, "onyxrt_alloc_output", ptr,
                         {adaptor.getContext(), index, rank, shape});
    } else {
      data = callRuntime(rewriter, op, "onyxrt_alloc_temp", ptr,
                         {adaptor.getContext(), bytes});
    }
    auto desc = this->createMemRefDescriptor(loc, type, data, data, sizes,
                                             strides, rewriter);
    rewriter.replaceOp(op, {desc});
    return success();
  }
};

struct GetPoolLowering : public ConvertOpToLLVMPattern<GetPoolOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(GetPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value domain =
        LLVM::ConstantOp::create(rewriter, loc, i64, op.getDomainId());
    Value data = callRuntime(rewriter, op, "onyxrt_get_pool", ptr,
                             {adaptor.getContext(), domain, adaptor.getSize()});
    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, {adaptor.getSize()}, rewriter, sizes,
                             strides, bytes);
    rewriter.replaceOp(op, {createMemRefDescriptor(loc, type, data, data, sizes,
                                                   strides, rewriter)});
    return success();
  }
};

struct GetWeightLowering : public ConvertOpToLLVMPattern<GetWeightOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(GetWeightOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value index = LLVM::ConstantOp::create(rewriter, loc, i64, op.getIndex());
    Value data = callRuntime(rewriter, op, "onyxrt_get_weight", ptr,
                             {adaptor.getContext(), index});
    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, {}, rewriter, sizes, strides, bytes);
    rewriter.replaceOp(op, {createMemRefDescriptor(loc, type, data, data, sizes,
                                                   strides, rewriter)});
    return success();
  }
};

struct RecordTempLowering : public ConvertOpToLLVMPattern<RecordTempOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RecordTempOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto c = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, v);
    };
    callRuntime(rewriter, op, "onyxrt_record_temp", Type(),
                {adaptor.getContext(), c(op.getDomainId()), c(op.getStart()),
                 c(op.getEnd()), adaptor.getBytes()});
    rewriter.eraseOp(op);
    return success();
  }
};

/// onyx.place_temps: the sizes go in a stack array, the lifetimes and the
/// compile-time plan in a constant table (start, end, group, static offset
/// per temporary); the runtime writes one offset per temporary and then the
/// pool's size into a second stack array.
struct PlaceTempsLowering : public ConvertOpToLLVMPattern<PlaceTempsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(PlaceTempsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    auto module = op->getParentOfType<ModuleOp>();
    int64_t n = int64_t(adaptor.getBytes().size());
    auto c = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, v);
    };

    SmallVector<int64_t> table;
    for (int64_t i = 0; i < n; ++i)
      table.append({op.getStarts()[i], op.getEnds()[i], op.getGroups()[i],
                    op.getStaticOffsets()[i]});
    std::string name = ("__onyx_place_temps_" + Twine(op.getDomainId())).str();
    for (int suffix = 0; module.lookupSymbol(name); ++suffix)
      name = ("__onyx_place_temps_" + Twine(op.getDomainId()) + "_" +
              Twine(suffix))
                 .str();
    auto arrayType = LLVM::LLVMArrayType::get(i64, 4 * n);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(
          rewriter, loc, arrayType, /*isConstant=*/true,
          LLVM::Linkage::Internal, name,
          DenseElementsAttr::get(RankedTensorType::get({4 * n}, i64),
                                 ArrayRef<int64_t>(table)));
    }
    Value tablePtr = LLVM::AddressOfOp::create(rewriter, loc, ptr, name);
    Value bytes = LLVM::AllocaOp::create(rewriter, loc, ptr, i64, c(n));
    for (auto [i, size] : llvm::enumerate(adaptor.getBytes())) {
      Value slot = LLVM::GEPOp::create(rewriter, loc, ptr, i64, bytes,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(rewriter, loc, size, slot);
    }
    Value offsets = LLVM::AllocaOp::create(rewriter, loc, ptr, i64, c(n + 1));
    Value data =
        callRuntime(rewriter, op, "onyxrt_place_temps", ptr,
                    {adaptor.getContext(), c(op.getDomainId()), c(n), bytes,
                     tablePtr, c(op.getStaticBytes()), offsets});
    SmallVector<Value> loaded;
    for (int64_t i = 0; i <= n; ++i) {
      Value slot = LLVM::GEPOp::create(rewriter, loc, ptr, i64, offsets,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      loaded.push_back(LLVM::LoadOp::create(rewriter, loc, i64, slot));
    }
    auto type = cast<MemRefType>(op.getPool().getType());
    SmallVector<Value> sizes, strides;
    Value poolBytes;
    getMemRefDescriptorSizes(loc, type, {loaded.back()}, rewriter, sizes,
                             strides, poolBytes);
    SmallVector<Value> results = {createMemRefDescriptor(
        loc, type, data, data, sizes, strides, rewriter)};
    results.append(loaded.begin(), loaded.end() - 1);
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ConvertOnyxToLLVMPass
    : public onyx::impl::ConvertOnyxToLLVMBase<ConvertOnyxToLLVMPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ModuleOp module = getOperation();
    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    converter.addConversion(
        [ctx](ContextType) { return LLVM::LLVMPointerType::get(ctx); });

    RewritePatternSet patterns(ctx);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    patterns.add<GetInputLowering, AllocLowering<AllocOutputOp>,
                 AllocLowering<AllocTempOp>, GetPoolLowering, GetWeightLowering,
                 RecordTempLowering, PlaceTempsLowering>(converter);

    LLVMConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
