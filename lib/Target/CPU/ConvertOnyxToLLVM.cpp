//===- ConvertOnyxToLLVM.cpp - Host program to the LLVM dialect -----------===//
//
// One full conversion of the host program: upstream patterns for
// func/cf/arith/math/index/memref/ub, plus the onyx runtime ops, which become
// calls into the runtime library that yield memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "onyx/Support/NodeNames.h"
#include "onyx/Transforms/Passes.h"
#include "onyx/onyx_abi.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
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

/// A pointer to a new private constant global `prefixN` (the first N free)
/// holding `bytes` (which carry their own NUL terminators).
Value stringGlobal(ConversionPatternRewriter &rewriter, Operation *op,
                   StringRef prefix, const std::string &bytes) {
  auto module = op->getParentOfType<ModuleOp>();
  std::string global;
  for (int i = 0;; ++i) {
    global = (prefix + Twine(i)).str();
    if (!module.lookupSymbol(global))
      break;
  }
  Location loc = op->getLoc();
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        rewriter, loc,
        LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes.size()),
        /*isConstant=*/true, LLVM::Linkage::Private, global,
        rewriter.getStringAttr(bytes));
  }
  return LLVM::AddressOfOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(op->getContext()), global);
}

/// Before a pool call: hands the runtime the node names of the pool's
/// temporaries (the op's `onyx.temp_names`, from onyx-pool-allocations) as
/// one constant of NUL-terminated names, so that a memory-limit error names
/// the node. Nothing when the op carries no names.
void passTempNames(ConversionPatternRewriter &rewriter, Operation *op,
                   Value context, int64_t domainId) {
  auto names = op->getAttrOfType<ArrayAttr>("onyx.temp_names");
  if (!names || names.empty())
    return;
  std::string text;
  for (Attribute name : names) {
    if (auto str = dyn_cast<StringAttr>(name))
      text += str.getValue().str();
    text.push_back('\0');
  }
  Location loc = op->getLoc();
  auto i64 = rewriter.getI64Type();
  Value namesPtr = stringGlobal(rewriter, op, "__onyx_temp_names_", text);
  callRuntime(
      rewriter, op, ONYXRT_FN_POOL_NAMES, Type(),
      {context, LLVM::ConstantOp::create(rewriter, loc, i64, domainId),
       LLVM::ConstantOp::create(rewriter, loc, i64, int64_t(names.size())),
       namesPtr});
}

/// A pattern whose result is a buffer the runtime handed out: a descriptor
/// of identity-layout `type` over `data`.
template <typename Op>
struct BufferResultPattern : public ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;

protected:
  Value descriptorOver(ConversionPatternRewriter &rewriter, Location loc,
                       MemRefType type, Value data,
                       ValueRange dynamicSizes) const {
    SmallVector<Value> sizes, strides;
    Value bytes;
    this->getMemRefDescriptorSizes(loc, type, dynamicSizes, rewriter, sizes,
                                   strides, bytes);
    return this->createMemRefDescriptor(loc, type, data, data, sizes, strides,
                                        rewriter);
  }
};

struct GetInputLowering : public BufferResultPattern<GetInputOp> {
  using BufferResultPattern::BufferResultPattern;

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
        callRuntime(rewriter, op, ONYXRT_FN_INPUT_DATA, ptr, {ctx, index});
    SmallVector<Value> dynSizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value dim = LLVM::ConstantOp::create(rewriter, loc, i64, d);
      dynSizes.push_back(callRuntime(rewriter, op, ONYXRT_FN_INPUT_DIM, i64,
                                     {ctx, index, dim}));
    }
    rewriter.replaceOp(op,
                       {descriptorOver(rewriter, loc, type, data, dynSizes)});
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
      data = callRuntime(rewriter, op, ONYXRT_FN_ALLOC_OUTPUT, ptr,
                         {adaptor.getContext(), index, rank, shape});
    } else {
      data = callRuntime(rewriter, op, ONYXRT_FN_ALLOC_TEMP, ptr,
                         {adaptor.getContext(), bytes});
    }
    auto desc = this->createMemRefDescriptor(loc, type, data, data, sizes,
                                             strides, rewriter);
    rewriter.replaceOp(op, {desc});
    return success();
  }
};

struct GetPoolLowering : public BufferResultPattern<GetPoolOp> {
  using BufferResultPattern::BufferResultPattern;

  LogicalResult
  matchAndRewrite(GetPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    passTempNames(rewriter, op, adaptor.getContext(), op.getDomainId());
    Value domain =
        LLVM::ConstantOp::create(rewriter, loc, i64, op.getDomainId());
    Value data = callRuntime(rewriter, op, ONYXRT_FN_GET_POOL, ptr,
                             {adaptor.getContext(), domain, adaptor.getSize()});
    rewriter.replaceOp(
        op, {descriptorOver(rewriter, loc, type, data, {adaptor.getSize()})});
    return success();
  }
};

struct GetWeightLowering : public BufferResultPattern<GetWeightOp> {
  using BufferResultPattern::BufferResultPattern;

  LogicalResult
  matchAndRewrite(GetWeightOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value index = LLVM::ConstantOp::create(rewriter, loc, i64, op.getIndex());
    Value data = callRuntime(rewriter, op, ONYXRT_FN_GET_WEIGHT, ptr,
                             {adaptor.getContext(), index});
    rewriter.replaceOp(op, {descriptorOver(rewriter, loc, type, data, {})});
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
    callRuntime(rewriter, op, ONYXRT_FN_RECORD_TEMP, Type(),
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
struct PlaceTempsLowering : public BufferResultPattern<PlaceTempsOp> {
  using BufferResultPattern::BufferResultPattern;

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
    passTempNames(rewriter, op, adaptor.getContext(), op.getDomainId());
    Value data =
        callRuntime(rewriter, op, ONYXRT_FN_PLACE_TEMPS, ptr,
                    {adaptor.getContext(), c(op.getDomainId()), c(n), bytes,
                     tablePtr, c(op.getStaticBytes()), offsets});
    SmallVector<Value> loaded;
    for (int64_t i = 0; i <= n; ++i) {
      Value slot = LLVM::GEPOp::create(rewriter, loc, ptr, i64, offsets,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      loaded.push_back(LLVM::LoadOp::create(rewriter, loc, i64, slot));
    }
    auto type = cast<MemRefType>(op.getPool().getType());
    SmallVector<Value> results = {
        descriptorOver(rewriter, loc, type, data, {loaded.back()})};
    results.append(loaded.begin(), loaded.end() - 1);
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Sequences and optionals (docs/sequences.md): handles are `!llvm.ptr`s to
// the runtime's call-owned objects; each op is one onyxrt_seq_* call. The
// services that can fail (a position out of range, an empty optional, out
// of memory) return NULL after recording a message naming the node; the
// generated code then returns 1 at once (a failure exit, like the checks of
// onyx-lower-runtime-checks), so nothing that depends on the value runs.
//===----------------------------------------------------------------------===//

/// The per-call context: the entry function's first argument.
Value entryContext(Operation *op) {
  if (auto fn = op->getParentOfType<LLVM::LLVMFuncOp>())
    return fn.getBody().front().getArgument(0);
  auto fn = op->getParentOfType<func::FuncOp>();
  return fn.getBody().front().getArgument(0);
}

/// A pointer to a private string global holding the op's node name (the
/// runtime prefixes its messages with "node 'NAME': ").
Value nodeLabel(ConversionPatternRewriter &rewriter, Operation *op) {
  std::string text = nodeNameOf(op->getLoc());
  text.push_back('\0');
  return stringGlobal(rewriter, op, "onyx_seq_label_", text);
}

/// Splits the block at the insertion point: when `ok` is false the entry
/// returns 1 (the runtime has recorded the message). The rewriter is left
/// at the start of the continuation.
void failureExit(ConversionPatternRewriter &rewriter, Location loc, Value ok) {
  Block *current = rewriter.getInsertionBlock();
  Block *continuation =
      rewriter.splitBlock(current, rewriter.getInsertionPoint());
  Block *failBlock = rewriter.createBlock(continuation);
  Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), 1);
  LLVM::ReturnOp::create(rewriter, loc, ValueRange{one});
  rewriter.setInsertionPointToEnd(current);
  LLVM::CondBrOp::create(rewriter, loc, ok, continuation, failBlock);
  rewriter.setInsertionPointToStart(continuation);
}

/// failureExit when `ptr` is NULL.
void failIfNull(ConversionPatternRewriter &rewriter, Location loc, Value ptr) {
  Value null = LLVM::ZeroOp::create(rewriter, loc, ptr.getType());
  Value ok =
      LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, ptr, null);
  failureExit(rewriter, loc, ok);
}

/// An i64 stack array holding `values` (at least one slot).
Value stackArray(ConversionPatternRewriter &rewriter, Location loc,
                 ValueRange values, int64_t count) {
  auto i64 = rewriter.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
  Value n =
      LLVM::ConstantOp::create(rewriter, loc, i64, std::max<int64_t>(count, 1));
  Value array = LLVM::AllocaOp::create(rewriter, loc, ptr, i64, n);
  for (auto [i, v] : llvm::enumerate(values)) {
    Value slot = LLVM::GEPOp::create(rewriter, loc, ptr, i64, array,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(rewriter, loc, v, slot);
  }
  return array;
}

struct SeqEmptyLowering : public ConvertOpToLLVMPattern<SeqEmptyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SeqEmptyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    int32_t code =
        onnxElementCode(cast<SequenceType>(op.getType()).getElementType());
    if (code == 0)
      return op.emitError("unsupported sequence element type");
    Value codeValue =
        LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), code);
    Value seq = callRuntime(rewriter, op, ONYXRT_FN_SEQ_EMPTY, ptr,
                            {entryContext(op), codeValue});
    failIfNull(rewriter, loc, seq);
    rewriter.replaceOp(op, seq);
    return success();
  }
};

struct SeqLengthLowering : public ConvertOpToLLVMPattern<SeqLengthOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SeqLengthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value n =
        callRuntime(rewriter, op, ONYXRT_FN_SEQ_LENGTH, rewriter.getI64Type(),
                    {entryContext(op), adaptor.getSequence()});
    rewriter.replaceOp(op, n);
    return success();
  }
};

struct SeqInsertLowering : public ConvertOpToLLVMPattern<SeqInsertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SeqInsertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(op.getElement().getType());
    if (!type || !type.getLayout().isIdentity())
      return op.emitError("seq_insert needs a dense buffer here");
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    MemRefDescriptor desc(adaptor.getElement());
    Value data = LLVM::GEPOp::create(
        rewriter, loc, ptr,
        getTypeConverter()->convertType(type.getElementType()),
        desc.alignedPtr(rewriter, loc),
        ArrayRef<LLVM::GEPArg>{desc.offset(rewriter, loc)});
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(desc.size(rewriter, loc, d));
    Value shape = stackArray(rewriter, loc, sizes, type.getRank());
    Value position = adaptor.getPosition();
    Value hasPosition = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getI32Type(), position ? 1 : 0);
    if (!position)
      position = LLVM::ConstantOp::create(rewriter, loc, i64, 0);
    Value rank = LLVM::ConstantOp::create(rewriter, loc, i64, type.getRank());
    Value seq =
        callRuntime(rewriter, op, ONYXRT_FN_SEQ_INSERT, ptr,
                    {entryContext(op), adaptor.getSequence(), position,
                     hasPosition, data, rank, shape, nodeLabel(rewriter, op)});
    failIfNull(rewriter, loc, seq);
    rewriter.replaceOp(op, seq);
    return success();
  }
};

struct SeqAtLowering : public BufferResultPattern<SeqAtOp> {
  using BufferResultPattern::BufferResultPattern;
  LogicalResult
  matchAndRewrite(SeqAtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(op.getType());
    if (!type)
      return op.emitError("seq_at must be bufferized here");
    Location loc = op.getLoc();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value shape = stackArray(rewriter, loc, {}, type.getRank());
    Value rank = LLVM::ConstantOp::create(rewriter, loc, i64, type.getRank());
    Value data = callRuntime(rewriter, op, ONYXRT_FN_SEQ_AT, ptr,
                             {entryContext(op), adaptor.getSequence(),
                              adaptor.getPosition(), rank, shape,
                              nodeLabel(rewriter, op)});
    failIfNull(rewriter, loc, data);
    SmallVector<Value> dynSizes;
    SmallVector<Value> checks;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value slot = LLVM::GEPOp::create(rewriter, loc, ptr, i64, shape,
                                       ArrayRef<LLVM::GEPArg>{int32_t(d)});
      Value size = LLVM::LoadOp::create(rewriter, loc, i64, slot);
      if (type.isDynamicDim(d))
        dynSizes.push_back(size);
    }
    rewriter.replaceOp(op,
                       {descriptorOver(rewriter, loc, type, data, dynSizes)});
    return success();
  }
};

struct SeqEraseLowering : public ConvertOpToLLVMPattern<SeqEraseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SeqEraseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value position = adaptor.getPosition();
    Value hasPosition = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getI32Type(), position ? 1 : 0);
    if (!position)
      position =
          LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), 0);
    Value seq = callRuntime(rewriter, op, ONYXRT_FN_SEQ_ERASE, ptr,
                            {entryContext(op), adaptor.getSequence(), position,
                             hasPosition, nodeLabel(rewriter, op)});
    failIfNull(rewriter, loc, seq);
    rewriter.replaceOp(op, seq);
    return success();
  }
};

struct OptionalNoneLowering : public ConvertOpToLLVMPattern<OptionalNoneOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OptionalNoneOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(
        op, LLVM::LLVMPointerType::get(op->getContext()));
    return success();
  }
};

struct OptionalWrapLowering : public ConvertOpToLLVMPattern<OptionalWrapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OptionalWrapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getValue());
    return success();
  }
};

struct OptionalUnwrapLowering
    : public ConvertOpToLLVMPattern<OptionalUnwrapOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OptionalUnwrapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value value = callRuntime(
        rewriter, op, ONYXRT_FN_OPTIONAL_UNWRAP, ptr,
        {entryContext(op), adaptor.getOptional(), nodeLabel(rewriter, op)});
    failIfNull(rewriter, op.getLoc(), value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct OptionalHasLowering : public ConvertOpToLLVMPattern<OptionalHasOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OptionalHasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value null = LLVM::ZeroOp::create(
        rewriter, op.getLoc(), LLVM::LLVMPointerType::get(op->getContext()));
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne,
                                              adaptor.getOptional(), null);
    return success();
  }
};

struct GetInputValueLowering : public ConvertOpToLLVMPattern<GetInputValueOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GetInputValueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(op->getContext());
    Value index = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                           op.getIndex());
    Value value = callRuntime(rewriter, op, ONYXRT_FN_INPUT_VALUE, ptr,
                              {adaptor.getContext(), index});
    // NULL is an empty optional; for a sequence it is a failure.
    if (isa<SequenceType>(op.getType()))
      failIfNull(rewriter, loc, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct SetOutputValueLowering
    : public ConvertOpToLLVMPattern<SetOutputValueOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SetOutputValueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto i32 = rewriter.getI32Type();
    Value index = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                           op.getIndex());
    Value status = callRuntime(rewriter, op, ONYXRT_FN_SET_OUTPUT_VALUE, i32,
                               {adaptor.getContext(), index, adaptor.getValue(),
                                nodeLabel(rewriter, op)});
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
    Value ok = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                    status, zero);
    failureExit(rewriter, loc, ok);
    rewriter.eraseOp(op);
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
    // Sequence/optional handles are runtime object pointers.
    converter.addConversion(
        [ctx](SequenceType) { return LLVM::LLVMPointerType::get(ctx); });
    converter.addConversion(
        [ctx](OptionalType) { return LLVM::LLVMPointerType::get(ctx); });

    // Both targets lower the seq ops to the same onyxrt_seq_* calls: on a
    // device session the runtime keeps the elements in device memory
    // (element data pointers are device buffers, docs/sequences.md).

    RewritePatternSet patterns(ctx);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    // The CPU target's parallel loops (onyx-cpu-parallelize-loops).
    populateOpenMPToLLVMConversionPatterns(converter, patterns);
    patterns.add<GetInputLowering, AllocLowering<AllocOutputOp>,
                 AllocLowering<AllocTempOp>, GetPoolLowering, GetWeightLowering,
                 RecordTempLowering, PlaceTempsLowering>(converter);
    patterns
        .add<SeqEmptyLowering, SeqLengthLowering, SeqInsertLowering,
             SeqAtLowering, SeqEraseLowering, OptionalNoneLowering,
             OptionalWrapLowering, OptionalUnwrapLowering, OptionalHasLowering,
             GetInputValueLowering, SetOutputValueLowering>(converter);

    LLVMConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    target.addLegalOp<omp::TerminatorOp>();
    configureOpenMPToLLVMConversionLegality(target, converter);
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
