//===- LowerLaunches.cpp - Host side of the CUDA target -------------------===//
//
// The host program keeps the CPU target's shape (onyx.get_input,
// onyx.alloc_*, onyx.get_pool lower to the same onyxrt_* services, which a
// CUDA session answers with device memory); what is CUDA-specific becomes
// calls into the runtime here:
//
//   gpu.launch_func @k::@k blocks in (%gx, %c1, %c1) threads in (...)
//       args(%base : memref<f32>, %d0 : i64)
//   ==>
//   %slots = llvm.alloca %n x i64          // one 8-byte slot per argument
//   llvm.store <aligned pointer of %base>, %slots[0]
//   llvm.store %d0, %slots[1]
//   %s = call @onyxrt_cuda_launch(%ctx, @onyx_cuda_kernel_k, @label,
//                                 %gx, 1, 1, 256, 1, 1, %n, %slots)
//   cf.cond_br (%s == 0), ^next, ^fail     // ^fail: return 1
//
// `gpu.memcpy` becomes onyxrt_cuda_upload (constants) or, marked
// `onyx.readback`, onyxrt_cuda_readback (an async copy of device data the
// host needs into pinned staging, RFC Fix 3); the last readback of a run
// at the same point is followed by onyxrt_cuda_readback_wait, the one
// host synchronization of the run; and each
// gpu.binary private globals: the cubin, the PTX and one OnyxCudaKernel
// descriptor {cubin, cubinSize, ptx, name} per launched kernel.
//
// With `profile` (onyx-compile --profile) each launch is preceded by
//   call @onyxrt_cuda_profile_shapes(%ctx, %table)
// %table (one stack array per entry) holding the number of buffers, then
// each one's rank and run-time dims: the shaped buffers whose base pointers
// the kernel takes (memref.extract_strided_metadata's source), so that the
// launch's event in a profiling session's trace carries them.
//
//===----------------------------------------------------------------------===//

#include "CUDAAttributes.h"

#include "onyx/Support/NodeNames.h"
#include "onyx/Target/CUDA/Passes.h"
#include "onyx/onyx_abi.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace onyx {
#define GEN_PASS_DEF_CUDALOWERLAUNCHES
#include "onyx/Target/CUDA/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;
using namespace onyx::cuda;

namespace {

// Runtime services (onyx/onyx_abi.h).
constexpr llvm::StringLiteral kLaunchFn = ONYXRT_FN_CUDA_LAUNCH;
constexpr llvm::StringLiteral kUploadFn = ONYXRT_FN_CUDA_UPLOAD;
constexpr llvm::StringLiteral kReadbackFn = ONYXRT_FN_CUDA_READBACK;
constexpr llvm::StringLiteral kReadbackWaitFn = ONYXRT_FN_CUDA_READBACK_WAIT;
constexpr llvm::StringLiteral kConstantFn = ONYXRT_FN_CUDA_CONSTANT;
constexpr llvm::StringLiteral kProfileShapesFn = ONYXRT_FN_CUDA_PROFILE_SHAPES;
/// Buffers per launch in a profile shapes table at most.
constexpr size_t kMaxProfiledBuffers = 8;

/// Bytes of one element in memory (i1 takes a byte).
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

/// The `!onyx.context` of the entry function enclosing `op`.
FailureOr<Value> contextOf(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func.getNumArguments() == 0 ||
      !isa<ContextType>(func.getArgument(0).getType()))
    return op->emitError("CUDA launches and copies must be in the bound "
                         "entry function (onyx-bind-entry-context)");
  if (op->getParentRegion() != &func.getBody())
    return op->emitError("CUDA launches inside host control flow are not "
                         "supported yet");
  return func.getArgument(0);
}

/// Continues when `ok` holds, else returns 1 from the entry.
void branchUnless(OpBuilder &b, Location loc, Value ok) {
  Operation *okOp = ok.getDefiningOp();
  Block *before = okOp->getBlock();
  Block *after = before->splitBlock(okOp->getNextNode());
  Block *failBlock = new Block();
  before->getParent()->getBlocks().insertAfter(Region::iterator(after),
                                               failBlock);
  b.setInsertionPointToEnd(before);
  cf::CondBranchOp::create(b, loc, ok, after, ValueRange{}, failBlock,
                           ValueRange{});
  b.setInsertionPointToEnd(failBlock);
  Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
  func::ReturnOp::create(b, loc, ValueRange{one});
  b.setInsertionPointToStart(after);
}

/// After `call` (returning i32): a zero status continues, any other returns
/// 1 from the entry (the runtime has recorded the message).
void checkStatus(OpBuilder &b, Location loc, Value status) {
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value ok =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, status, zero);
  branchUnless(b, loc, ok);
}

/// The aligned pointer of a buffer as i64.
Value pointerBits(OpBuilder &b, Location loc, Value buffer) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The private globals and runtime declarations of the host code: byte
/// arrays (cubins, PTX, names, labels) under unique names, labels shared by
/// text, the onyxrt_cuda_* declarations.
class RuntimeGlobals {
public:
  explicit RuntimeGlobals(ModuleOp module) : module(module) {}

  /// A private constant i8 array global holding `bytes`.
  std::string createBytesGlobal(Location loc, StringRef prefix, StringRef bytes,
                                uint64_t alignment) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    std::string name = uniqueName(prefix);
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Private, name, b.getStringAttr(bytes),
                           alignment);
    return name;
  }

  /// `prefix`, or `prefix_N` when that is taken.
  std::string uniqueName(StringRef prefix) {
    std::string name = prefix.str();
    while (module.lookupSymbol(name))
      name = (prefix + "_" + std::to_string(++uniqueCounter)).str();
    return name;
  }

  /// A pointer to a NUL-terminated global holding `label` (one per text).
  Value labelPointer(OpBuilder &b, Location loc, StringRef label) {
    auto found = labels.find(label);
    std::string name;
    if (found != labels.end()) {
      name = found->second;
    } else {
      std::string text = label.str();
      text.push_back('\0');
      name = createBytesGlobal(loc, "onyx_cuda_label", text, 1);
      labels[label] = name;
    }
    return LLVM::AddressOfOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
  }

  /// The runtime function `name`, declared on first use.
  func::FuncOp declare(StringRef name, ArrayRef<Type> args, Type result) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto fn = func::FuncOp::create(
        b, module.getLoc(), name,
        b.getFunctionType(args, result ? TypeRange{result} : TypeRange{}));
    fn.setPrivate();
    return fn;
  }

private:
  ModuleOp module;
  llvm::StringMap<std::string> labels;
  unsigned uniqueCounter = 0;
};

/// The embedded kernel images: per gpu.binary its cubin and PTX globals,
/// per launched kernel one OnyxCudaKernel descriptor {cubin, cubinSize,
/// ptx, name}.
class KernelImages {
public:
  KernelImages(ModuleOp module, RuntimeGlobals &globals)
      : module(module), globals_(globals) {}

  /// Globals for the cubin and the PTX of `binary`.
  LogicalResult addBinary(gpu::BinaryOp binary) {
    BinaryGlobals globals;
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object)
        continue;
      StringRef bytes = object.getObject().getValue();
      if (object.getFormat() == gpu::CompilationTarget::Binary &&
          globals.cubin.empty()) {
        globals.cubin = globals_.createBytesGlobal(
            binary.getLoc(), ("onyx_cuda_cubin_" + binary.getName()).str(),
            bytes, 64);
        globals.cubinSize = bytes.size();
      } else if (object.getFormat() == gpu::CompilationTarget::Assembly &&
                 globals.ptx.empty()) {
        std::string withNul = bytes.str();
        withNul.push_back('\0');
        globals.ptx = globals_.createBytesGlobal(
            binary.getLoc(), ("onyx_cuda_ptx_" + binary.getName()).str(),
            withNul, 1);
      }
    }
    if (globals.cubin.empty() && globals.ptx.empty())
      return binary.emitError("kernel binary '")
             << binary.getName() << "' holds neither a cubin nor PTX";
    binaries[binary.getName()] = globals;
    return success();
  }

  /// The OnyxCudaKernel descriptor of `kernel` in `binaryName`.
  FailureOr<std::string> kernelDescriptor(Location loc, StringRef binaryName,
                                          StringRef kernel) {
    std::string key = (binaryName + "::" + kernel).str();
    auto found = descriptors.find(key);
    if (found != descriptors.end())
      return found->second;
    auto binary = binaries.find(binaryName);
    if (binary == binaries.end())
      return emitError(loc) << "launch of '" << key
                            << "' whose kernels were not compiled "
                               "(onyx-cuda-serialize-kernels)";
    MLIRContext *ctx = module.getContext();
    std::string kernelName = kernel.str();
    kernelName.push_back('\0');
    std::string nameGlobal = globals_.createBytesGlobal(
        loc, ("onyx_cuda_name_" + kernel).str(), kernelName, 1);

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = b.getI64Type();
    auto descType = LLVM::LLVMStructType::getLiteral(ctx, {ptr, i64, ptr, ptr});
    std::string descName =
        globals_.uniqueName(("onyx_cuda_kernel_" + kernel).str());
    auto desc =
        LLVM::GlobalOp::create(b, loc, descType, /*isConstant=*/true,
                               LLVM::Linkage::Private, descName, Attribute());
    Block *init = b.createBlock(&desc.getInitializerRegion());
    b.setInsertionPointToStart(init);
    auto addressOrNull = [&](const std::string &global) -> Value {
      if (global.empty())
        return LLVM::ZeroOp::create(b, loc, ptr);
      return LLVM::AddressOfOp::create(b, loc, ptr, global);
    };
    Value value = LLVM::UndefOp::create(b, loc, descType);
    const BinaryGlobals &g = binary->second;
    Value fields[] = {addressOrNull(g.cubin),
                      LLVM::ConstantOp::create(b, loc, i64, g.cubinSize),
                      addressOrNull(g.ptx), addressOrNull(nameGlobal)};
    for (auto [i, field] : llvm::enumerate(fields))
      value = LLVM::InsertValueOp::create(b, loc, value, field,
                                          ArrayRef<int64_t>{int64_t(i)});
    LLVM::ReturnOp::create(b, loc, value);
    descriptors[key] = descName;
    return descName;
  }

private:
  struct BinaryGlobals {
    std::string cubin; ///< empty when there is no cubin
    int64_t cubinSize = 0;
    std::string ptx;
  };

  ModuleOp module;
  RuntimeGlobals &globals_;
  llvm::StringMap<BinaryGlobals> binaries;
  llvm::StringMap<std::string> descriptors;
};

/// `gpu.launch_func` -> onyxrt_cuda_launch(ctx, kernel, label, grid, block,
/// n, args) with the kernel operands as 8-byte slots; a non-zero status
/// returns 1.
/// The shaped buffers behind a launch's buffer operands (the sources of the
/// memref.extract_strided_metadata that gave their base pointers), at most
/// kMaxProfiledBuffers, each with its sizes.
SmallVector<std::pair<Value, SmallVector<Value>>>
profiledBuffers(gpu::LaunchFuncOp launch) {
  SmallVector<std::pair<Value, SmallVector<Value>>> out;
  llvm::SmallPtrSet<Value, 8> seen;
  for (Value operand : launch.getKernelOperands()) {
    auto metadata = operand.getDefiningOp<memref::ExtractStridedMetadataOp>();
    if (!metadata || metadata.getBaseBuffer() != operand ||
        !seen.insert(metadata.getSource()).second)
      continue;
    if (out.size() == kMaxProfiledBuffers)
      break;
    out.push_back(
        {metadata.getSource(), SmallVector<Value>(metadata.getSizes().begin(),
                                                  metadata.getSizes().end())});
  }
  return out;
}

/// --profile: onyxrt_cuda_profile_shapes(ctx, table) before `launch`, the
/// table {count, rank0, dims0..., rank1, ...} stored into `table`.
void emitProfileShapes(RuntimeGlobals &globals, gpu::LaunchFuncOp launch,
                       Value context, Value table) {
  Location loc = launch.getLoc();
  OpBuilder b(launch);
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(launch.getContext());
  int32_t slot = 0;
  auto store = [&](Value v) {
    Value address = LLVM::GEPOp::create(b, loc, ptr, i64, table,
                                        ArrayRef<LLVM::GEPArg>{slot++});
    LLVM::StoreOp::create(b, loc, v, address);
  };
  auto buffers = profiledBuffers(launch);
  store(arith::ConstantIntOp::create(b, loc, int64_t(buffers.size()), 64));
  for (auto &[buffer, sizes] : buffers) {
    store(arith::ConstantIntOp::create(b, loc, int64_t(sizes.size()), 64));
    for (Value size : sizes)
      store(arith::IndexCastOp::create(b, loc, i64, size));
  }
  func::FuncOp fn =
      globals.declare(kProfileShapesFn, {context.getType(), ptr}, Type());
  func::CallOp::create(b, loc, fn, ValueRange{context, table});
}

LogicalResult lowerLaunch(RuntimeGlobals &globals, KernelImages &images,
                          gpu::LaunchFuncOp launch) {
  Location loc = launch.getLoc();
  FailureOr<Value> context = contextOf(launch);
  if (failed(context))
    return failure();
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.hasClusterSize() || launch.getDynamicSharedMemorySize())
    return launch.emitError("async launches, clusters and dynamic shared "
                            "memory are not supported yet");
  FailureOr<std::string> desc =
      images.kernelDescriptor(loc, launch.getKernelModuleName().getValue(),
                              launch.getKernelName().getValue());
  if (failed(desc))
    return failure();

  MLIRContext *ctx = launch.getContext();
  OpBuilder b(launch);
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Value> slots;
  for (Value operand : launch.getKernelOperands()) {
    if (isa<MemRefType>(operand.getType()))
      slots.push_back(pointerBits(b, loc, operand));
    else if (operand.getType() == i64)
      slots.push_back(operand);
    else
      return launch.emitError("kernel operand of type ")
             << operand.getType() << " (expected a buffer or i64)";
  }
  Value count = LLVM::ConstantOp::create(b, loc, i64, int64_t(slots.size()));
  Value arraySize =
      LLVM::ConstantOp::create(b, loc, i64, std::max<int64_t>(1, slots.size()));
  Value array = LLVM::AllocaOp::create(b, loc, ptr, i64, arraySize, 8);
  for (auto [i, slot] : llvm::enumerate(slots)) {
    Value address = LLVM::GEPOp::create(b, loc, ptr, i64, array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(b, loc, slot, address);
  }
  std::string label;
  if (auto node = launch->getAttrOfType<StringAttr>(kNodeAttr))
    label = ("node '" + node.getValue() + "' (kernel " +
             launch.getKernelName().getValue() + ")")
                .str();
  else
    label = ("kernel " + launch.getKernelName().getValue()).str();
  auto toI64 = [&](Value index) -> Value {
    return arith::IndexCastOp::create(b, loc, i64, index);
  };
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  SmallVector<Value> args = {*context,
                             LLVM::AddressOfOp::create(b, loc, ptr, *desc),
                             globals.labelPointer(b, loc, label),
                             toI64(grid.x),
                             toI64(grid.y),
                             toI64(grid.z),
                             toI64(block.x),
                             toI64(block.y),
                             toI64(block.z),
                             count,
                             array};
  SmallVector<Type> argTypes;
  for (Value a : args)
    argTypes.push_back(a.getType());
  func::FuncOp fn = globals.declare(kLaunchFn, argTypes, b.getI32Type());
  Value status = func::CallOp::create(b, loc, fn, args).getResult(0);
  checkStatus(b, loc, status);
  launch.erase();
  return success();
}

/// `gpu.memcpy {onyx.session_constant} %temp, %host`, %temp an
/// onyx.alloc_temp: %temp becomes a memref over the session's device copy
///   %p = call @onyxrt_cuda_constant(%ctx, %host, bytes, label)
/// (NULL: return 1), rebuilt as a descriptor (static shape, identity
/// layout) that the to-LLVM conversion folds away; the temporary is never
/// allocated.
LogicalResult lowerSessionConstant(RuntimeGlobals &globals, gpu::MemcpyOp copy,
                                   Value context) {
  Location loc = copy.getLoc();
  auto temp = copy.getDst().getDefiningOp<AllocTempOp>();
  auto type = cast<MemRefType>(copy.getDst().getType());
  auto srcType = cast<MemRefType>(copy.getSrc().getType());
  if (!temp || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !srcType.getLayout().isIdentity() || srcType != type)
    return copy.emitError("a session constant must be a static, dense "
                          "host buffer copied into a call temporary");
  // The device copy replaces the temporary where it is allocated (its
  // allocation check, if any, reads it before the copy).
  DominanceInfo dominance(temp->getParentOp());
  if (!dominance.properlyDominates(copy.getSrc(), temp))
    return copy.emitError("a session constant's host buffer must be "
                          "defined before its temporary");
  MLIRContext *ctx = copy.getContext();
  OpBuilder b(temp);
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Value src =
      LLVM::IntToPtrOp::create(b, loc, ptr, pointerBits(b, loc, copy.getSrc()));
  int64_t bytes = type.getNumElements() * elementBytes(type.getElementType());
  std::string label = "constant upload";
  if (std::string name = nodeNameOf(loc); !name.empty())
    label = "constant '" + name + "': upload";
  SmallVector<Value> args = {context, src,
                             LLVM::ConstantOp::create(b, loc, i64, bytes),
                             globals.labelPointer(b, loc, label)};
  SmallVector<Type> argTypes;
  for (Value a : args)
    argTypes.push_back(a.getType());
  func::FuncOp fn = globals.declare(kConstantFn, argTypes, ptr);
  Value device = func::CallOp::create(b, loc, fn, args).getResult(0);
  Value null = LLVM::ZeroOp::create(b, loc, ptr);
  Value ok =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, device, null);
  branchUnless(b, loc, ok);
  // The memref descriptor {allocated, aligned, offset, sizes, strides}.
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value desc = LLVM::UndefOp::create(b, loc, descType);
  desc =
      LLVM::InsertValueOp::create(b, loc, desc, device, ArrayRef<int64_t>{0});
  desc =
      LLVM::InsertValueOp::create(b, loc, desc, device, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc,
                                     LLVM::ConstantOp::create(b, loc, i64, 0),
                                     ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, LLVM::ConstantOp::create(b, loc, i64, type.getDimSize(d)),
        ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, LLVM::ConstantOp::create(b, loc, i64, stride),
        ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  Value memref =
      UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, desc)
          .getResult(0);
  temp.getResult().replaceAllUsesWith(memref);
  copy.erase();
  temp.erase();
  return success();
}

/// A gpu.memcpy: the session copy of a constant, a readback into pinned
/// staging (followed by the wait of its run when `waitAfter`), or an
/// upload; a non-zero status returns 1.
LogicalResult lowerCopy(RuntimeGlobals &globals, gpu::MemcpyOp copy,
                        bool waitAfter) {
  Location loc = copy.getLoc();
  FailureOr<Value> context = contextOf(copy);
  if (failed(context))
    return failure();
  if (copy->hasAttr(kSessionConstantAttr))
    return lowerSessionConstant(globals, copy, *context);
  // A readback (device -> host, synchronized) or a constant upload.
  bool readback = copy->hasAttr(kReadbackAttr);
  auto srcType = cast<MemRefType>(copy.getSrc().getType());
  auto dstType = cast<MemRefType>(copy.getDst().getType());
  bool contiguous = srcType.getLayout().isIdentity() ||
                    (readback && srcType.getNumElements() == 1);
  if (copy.getAsyncToken() || !copy.getAsyncDependencies().empty() ||
      !srcType.hasStaticShape() || !dstType.hasStaticShape() ||
      !dstType.getLayout().isIdentity() || !contiguous ||
      srcType.getElementType() != dstType.getElementType() ||
      srcType.getNumElements() != dstType.getNumElements())
    return copy.emitError("only synchronous copies of static, contiguous "
                          "buffers are supported");
  OpBuilder b(copy);
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(copy.getContext());
  int64_t elementSize = elementBytes(srcType.getElementType());
  auto asPointer = [&](Value buffer) -> Value {
    Value bits = pointerBits(b, loc, buffer);
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.getLayout().isIdentity()) {
      // The element offset of a strided view, in bytes.
      auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
      Value offset =
          arith::IndexCastOp::create(b, loc, i64, metadata.getOffset());
      Value size = arith::ConstantIntOp::create(b, loc, elementSize, 64);
      bits = arith::AddIOp::create(b, loc, bits,
                                   arith::MulIOp::create(b, loc, offset, size));
    }
    return LLVM::IntToPtrOp::create(b, loc, ptr, bits);
  };
  Value bytes = LLVM::ConstantOp::create(
      b, loc, i64, srcType.getNumElements() * elementSize);
  std::string label = "constant upload";
  if (readback) {
    label = "reading a device tensor back to the host";
    if (std::string name = nodeNameOf(loc); !name.empty())
      label = "node '" + name + "': " + label;
  }
  SmallVector<Value> args = {*context, asPointer(copy.getDst()),
                             asPointer(copy.getSrc()), bytes,
                             globals.labelPointer(b, loc, label)};
  SmallVector<Type> argTypes;
  for (Value a : args)
    argTypes.push_back(a.getType());
  func::FuncOp fn = globals.declare(readback ? kReadbackFn : kUploadFn,
                                    argTypes, b.getI32Type());
  Value status = func::CallOp::create(b, loc, fn, args).getResult(0);
  checkStatus(b, loc, status);
  if (waitAfter) {
    // The host synchronization of this run of readbacks.
    SmallVector<Value> waitArgs = {*context, args.back()};
    func::FuncOp wait = globals.declare(
        kReadbackWaitFn, {waitArgs[0].getType(), waitArgs[1].getType()},
        b.getI32Type());
    Value waited = func::CallOp::create(b, loc, wait, waitArgs).getResult(0);
    checkStatus(b, loc, waited);
  }
  copy.erase();
  return success();
}

struct CUDALowerLaunchesPass
    : public onyx::impl::CUDALowerLaunchesBase<CUDALowerLaunchesPass> {
  using CUDALowerLaunchesBase::CUDALowerLaunchesBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    SmallVector<gpu::MemcpyOp> copies;
    SmallVector<func::CallOp> libraryCalls;
    module.walk([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
        launches.push_back(launch);
      else if (auto copy = dyn_cast<gpu::MemcpyOp>(op))
        copies.push_back(copy);
      else if (auto call = dyn_cast<func::CallOp>(op);
               call && call->hasAttr(kStatusAttr))
        libraryCalls.push_back(call);
    });
    // Readbacks at the same point (nothing but address arithmetic and
    // stack buffers between them) share one synchronization: the last of
    // each run waits for all.
    DenseSet<Operation *> waitAfter;
    for (gpu::MemcpyOp copy : copies) {
      if (!copy->hasAttr(kReadbackAttr))
        continue;
      Operation *next = copy->getNextNode();
      while (next && !isa<gpu::MemcpyOp>(next) &&
             (isa<memref::AllocaOp, memref::SubViewOp,
                  memref::ExtractStridedMetadataOp>(next) ||
              (isMemoryEffectFree(next) && next->getNumRegions() == 0 &&
               !next->hasTrait<OpTrait::IsTerminator>())))
        next = next->getNextNode();
      auto nextCopy = dyn_cast_or_null<gpu::MemcpyOp>(next);
      if (!nextCopy || !nextCopy->hasAttr(kReadbackAttr))
        waitAfter.insert(copy);
    }

    // Library calls (onyx-cuda-lower-library-calls): check their status.
    for (func::CallOp call : libraryCalls) {
      if (failed(contextOf(call)))
        return signalPassFailure();
      call->removeAttr(kStatusAttr);
      OpBuilder b(call->getContext());
      b.setInsertionPointAfter(call);
      checkStatus(b, call.getLoc(), call.getResult(0));
    }

    RuntimeGlobals globals(module);
    KernelImages images(module, globals);
    for (auto binary :
         llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
      if (failed(images.addBinary(binary)))
        return signalPassFailure();

    if (profile) {
      // One shapes table per entry, big enough for any of its launches.
      llvm::MapVector<func::FuncOp, int64_t> tableSizes;
      for (gpu::LaunchFuncOp launch : launches) {
        auto func = launch->getParentOfType<func::FuncOp>();
        int64_t size = 1;
        for (auto &entry : profiledBuffers(launch))
          size += 1 + int64_t(entry.second.size());
        int64_t &best = tableSizes[func];
        best = std::max(best, size);
      }
      llvm::DenseMap<func::FuncOp, Value> tables;
      for (auto [func, size] : tableSizes) {
        if (func.getNumArguments() == 0 ||
            !isa<ContextType>(func.getArgument(0).getType()))
          continue;
        OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
        Location loc = func.getLoc();
        tables[func] = LLVM::AllocaOp::create(
            b, loc, LLVM::LLVMPointerType::get(module.getContext()),
            b.getI64Type(), arith::ConstantIntOp::create(b, loc, size, 64), 8);
      }
      for (gpu::LaunchFuncOp launch : launches) {
        auto func = launch->getParentOfType<func::FuncOp>();
        auto table = tables.find(func);
        if (table != tables.end())
          emitProfileShapes(globals, launch, func.getArgument(0),
                            table->second);
      }
    }
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(lowerLaunch(globals, images, launch)))
        return signalPassFailure();
    for (gpu::MemcpyOp copy : copies)
      if (failed(lowerCopy(globals, copy, waitAfter.contains(copy))))
        return signalPassFailure();

    for (auto binary :
         llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
      binary.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
