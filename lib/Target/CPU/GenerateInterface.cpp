//===- GenerateInterface.cpp - The artifact's exported entry points -------===//
//
// Emits, in the LLVM dialect, what the shared library exports:
//
//   OnyxState *onyx_state_create(void);
//   void onyx_state_destroy(OnyxState *);
//   OnyxTensorList *inference_compute(OnyxState *, OnyxTensorList *);
//   const char *onyx_model_metadata(void);
//
// Each is a trampoline into the runtime library with this model's
// descriptor {ONYX_ABI_VERSION, metadata text, &onyx_main}. The layout of the
// descriptor is `OnyxModelDesc` in runtime/include/onyx/onyx_runtime.h; the
// names, exported and called, are those of runtime/include/onyx/onyx_abi.h.
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/Passes.h"
#include "onyx/onyx_abi.h"
#include "onyx/onyx_runtime.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/Builders.h"

namespace onyx {
#define GEN_PASS_DEF_GENERATEINTERFACE
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

constexpr int32_t kAbiVersion = ONYX_ABI_VERSION;

struct GenerateInterfacePass
    : public onyx::impl::GenerateInterfaceBase<GenerateInterfacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto metadata = module->getAttrOfType<StringAttr>(kModelMetadataAttrName);
    auto entry = module.lookupSymbol<LLVM::LLVMFuncOp>(kEntryFuncName);
    if (!metadata || !entry) {
      module.emitError("onyx-generate-interface needs the lowered entry "
                       "function and the model metadata");
      return signalPassFailure();
    }
    // The entry is reached only through the descriptor.
    entry.setLinkage(LLVM::Linkage::Internal);

    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i32 = builder.getI32Type();
    auto voidType = LLVM::LLVMVoidType::get(ctx);

    std::string text = metadata.getValue().str();
    text.push_back('\0');
    auto textType = LLVM::LLVMArrayType::get(builder.getI8Type(), text.size());
    LLVM::GlobalOp::create(builder, loc, textType, /*isConstant=*/true,
                           LLVM::Linkage::Private, "onyx_metadata_text",
                           builder.getStringAttr(text));

    auto descType = LLVM::LLVMStructType::getLiteral(ctx, {i32, ptr, ptr});
    auto desc =
        LLVM::GlobalOp::create(builder, loc, descType,
                               /*isConstant=*/true, LLVM::Linkage::Private,
                               "onyx_model_desc", Attribute());
    {
      OpBuilder::InsertionGuard guard(builder);
      Block *init = builder.createBlock(&desc.getInitializerRegion());
      builder.setInsertionPointToStart(init);
      Value value = LLVM::UndefOp::create(builder, loc, descType);
      Value abi = LLVM::ConstantOp::create(builder, loc, i32, kAbiVersion);
      Value text =
          LLVM::AddressOfOp::create(builder, loc, ptr, "onyx_metadata_text");
      Value fn = LLVM::AddressOfOp::create(builder, loc, ptr, kEntryFuncName);
      value = LLVM::InsertValueOp::create(builder, loc, value, abi,
                                          ArrayRef<int64_t>{0});
      value = LLVM::InsertValueOp::create(builder, loc, value, text,
                                          ArrayRef<int64_t>{1});
      value = LLVM::InsertValueOp::create(builder, loc, value, fn,
                                          ArrayRef<int64_t>{2});
      LLVM::ReturnOp::create(builder, loc, value);
    }

    auto declare = [&](StringRef name, ArrayRef<Type> args, Type result) {
      auto fn = LLVM::lookupOrCreateFn(builder, module, name, args, result);
      return *fn;
    };
    auto stateCreate = declare(ONYXRT_FN_STATE_CREATE, {ptr, ptr}, ptr);
    auto stateCreateWeights =
        declare(ONYXRT_FN_STATE_CREATE_WITH_WEIGHTS, {ptr, ptr, ptr}, ptr);
    auto stateDestroy = declare(ONYXRT_FN_STATE_DESTROY, {ptr}, voidType);
    auto run = declare(ONYXRT_FN_RUN, {ptr, ptr}, ptr);

    auto define = [&](StringRef name, ArrayRef<Type> args, Type result,
                      function_ref<void(Block *)> body) {
      builder.setInsertionPointToEnd(module.getBody());
      auto fnType = LLVM::LLVMFunctionType::get(result, args);
      auto fn = LLVM::LLVMFuncOp::create(builder, loc, name, fnType);
      Block *block = fn.addEntryBlock(builder);
      builder.setInsertionPointToStart(block);
      body(block);
    };

    define(ONYX_ABI_EXPORT_STATE_CREATE, {}, ptr, [&](Block *) {
      Value d = LLVM::AddressOfOp::create(builder, loc, ptr, "onyx_model_desc");
      Value null = LLVM::ZeroOp::create(builder, loc, ptr);
      Value s =
          LLVM::CallOp::create(builder, loc, stateCreate, ValueRange{d, null})
              .getResult();
      LLVM::ReturnOp::create(builder, loc, s);
    });
    define(
        ONYX_ABI_EXPORT_STATE_CREATE_WITH_WEIGHTS, {ptr}, ptr, [&](Block *b) {
          Value d =
              LLVM::AddressOfOp::create(builder, loc, ptr, "onyx_model_desc");
          Value null = LLVM::ZeroOp::create(builder, loc, ptr);
          Value s = LLVM::CallOp::create(builder, loc, stateCreateWeights,
                                         ValueRange{d, b->getArgument(0), null})
                        .getResult();
          LLVM::ReturnOp::create(builder, loc, s);
        });
    define(ONYX_ABI_EXPORT_STATE_DESTROY, {ptr}, voidType, [&](Block *b) {
      LLVM::CallOp::create(builder, loc, stateDestroy,
                           ValueRange{b->getArgument(0)});
      LLVM::ReturnOp::create(builder, loc, ValueRange{});
    });
    define(ONYX_ABI_EXPORT_RUN, {ptr, ptr}, ptr, [&](Block *b) {
      Value r =
          LLVM::CallOp::create(builder, loc, run,
                               ValueRange{b->getArgument(0), b->getArgument(1)})
              .getResult();
      LLVM::ReturnOp::create(builder, loc, r);
    });
    define(ONYX_ABI_EXPORT_METADATA, {}, ptr, [&](Block *) {
      Value t =
          LLVM::AddressOfOp::create(builder, loc, ptr, "onyx_metadata_text");
      LLVM::ReturnOp::create(builder, loc, t);
    });
    module->removeAttr(kModelMetadataAttrName);
  }
};

} // namespace
