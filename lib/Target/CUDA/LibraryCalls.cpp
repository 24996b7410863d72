//===- LibraryCalls.cpp - GEMMs and convolutions as library calls --------===//

#include "LibraryCalls.h"

#include "DeviceData.h"

#include "onyx/Analysis/Contraction.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace onyx::cuda {

namespace {

bool isStackBuffer(Value buffer) {
  return isa_and_nonnull<memref::AllocaOp>(rootBuffer(buffer).getDefiningOp());
}

} // namespace

Value reshapeRoot(Value buffer) {
  while (true) {
    if (auto e = buffer.getDefiningOp<memref::ExpandShapeOp>())
      buffer = e.getSrc();
    else if (auto c = buffer.getDefiningOp<memref::CollapseShapeOp>())
      buffer = c.getSrc();
    else
      return buffer;
  }
}

/// Host memory in a CUDA session: constants and external weights
/// (DeviceData's spaceOf says the same); stack buffers are host memory
/// too, but never read by a library call here.
bool isHostConstant(Value buffer) {
  Operation *def = rootBuffer(buffer).getDefiningOp();
  if (!def)
    return false;
  if (isa<memref::GetGlobalOp>(def))
    return true;
  StringRef name = def->getName().getStringRef();
  return name == "onyx.get_weight" || name == "onyx.weight_buffer";
}

std::optional<int32_t> libraryElementCode(Type type) {
  if (type.isF32())
    return kOnyxF32;
  if (type.isF16())
    return kOnyxF16;
  if (type.isBF16())
    return kOnyxBF16;
  return std::nullopt;
}

Type elementTypeOf(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getElementType();
}

Value stripExtF(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    if (ext.getIn().getType().isF16() || ext.getIn().getType().isBF16())
      return ext.getIn();
  return v;
}

Value stripTruncF(Value v) {
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    if (trunc.getIn().getType().isF32())
      return trunc.getIn();
  return v;
}

/// A dense float buffer with the identity layout (so offset 0 and row-major
/// strides) that a library call can address as a plain pointer.
bool isDenseFloat(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !libraryElementCode(type.getElementType()) ||
      !type.getLayout().isIdentity() || isStackBuffer(buffer))
    return false;
  // Host constants get a device copy, which needs a static shape.
  return !isHostConstant(buffer) || type.hasStaticShape();
}

bool isDenseOf(Value buffer, Type elementType) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getElementType() == elementType && isDenseFloat(buffer);
}

/// Whether `op` may sit between a library op and the ops folded into it:
/// it writes no tensor data.
bool isNeutral(Operation *op) {
  return !isa<linalg::LinalgOp, func::CallOp, gpu::MemcpyOp, memref::StoreOp,
              memref::CopyOp>(op) &&
         op->getNumRegions() == 0;
}

bool isZeroConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return value && value.getValue().isZero();
}

bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

namespace {

bool isConstantInt(Value v, int64_t value) {
  APInt bits;
  return matchPattern(v, m_ConstantInt(&bits)) && bits.getSExtValue() == value;
}

/// `v` = bitcast(shli(extui(bits), 16)) : f32 with `bits` an i16: the
/// ops in `steps` and `bits`; NULL otherwise. The head of the bf16 -> f32
/// extension below and of an extended rounding.
Value bf16WidenedBits(Value v, SmallVectorImpl<Operation *> &steps) {
  auto cast = v.getDefiningOp<arith::BitcastOp>();
  if (!cast || !cast.getType().isF32())
    return Value();
  auto shl = cast.getIn().getDefiningOp<arith::ShLIOp>();
  if (!shl || !isConstantInt(shl.getRhs(), 16))
    return Value();
  auto ext = shl.getLhs().getDefiningOp<arith::ExtUIOp>();
  if (!ext || !ext.getType().isInteger(32) ||
      !ext.getIn().getType().isInteger(16))
    return Value();
  steps.append({cast, shl, ext});
  return ext.getIn();
}

/// `v` = bitcast(shli(extui(bitcast x : bf16 to i16), 16)) : f32, the ONNX
/// lowering's exact bf16 -> f32 extension (ONNXToTensor/Elementwise.cpp's
/// bf16ToF32): x, with the ops it took in `steps`; NULL otherwise.
Value bf16Extended(Value v, SmallVectorImpl<Operation *> &steps) {
  SmallVector<Operation *> head;
  Value bits = bf16WidenedBits(v, head);
  auto in = bits ? bits.getDefiningOp<arith::BitcastOp>() : nullptr;
  if (!in || !in.getIn().getType().isBF16())
    return Value();
  steps.append(head.begin(), head.end());
  steps.push_back(in);
  return in.getIn();
}

/// `v` = the ONNX lowering's exact f32 -> bf16 rounding to nearest even
/// (f32ToBF16: bits = bitcast y; upper = bits >> 16; rounded = (bits +
/// (upper & 1) + 0x7fff) >> 16; select(y uno y, upper | 0x40, rounded),
/// truncated to i16 and bitcast to bf16): y, with the ops in `steps`.
Value bf16RoundingBits(Value bits16, SmallVectorImpl<Operation *> &steps);

Value bf16RoundedFrom(Value v, SmallVectorImpl<Operation *> &steps) {
  auto cast = v.getDefiningOp<arith::BitcastOp>();
  if (!cast || !cast.getType().isBF16())
    return Value();
  Value y = bf16RoundingBits(cast.getIn(), steps);
  if (y)
    steps.push_back(cast);
  return y;
}

/// `bits16` = the i16 bits of the rounding above (before its bitcast to
/// bf16): y, with the ops in `steps`.
Value bf16RoundingBits(Value bits16, SmallVectorImpl<Operation *> &steps) {
  auto trunc = bits16.getDefiningOp<arith::TruncIOp>();
  auto sel = trunc ? trunc.getIn().getDefiningOp<arith::SelectOp>() : nullptr;
  auto isNaN =
      sel ? sel.getCondition().getDefiningOp<arith::CmpFOp>() : nullptr;
  if (!isNaN || isNaN.getPredicate() != arith::CmpFPredicate::UNO ||
      isNaN.getLhs() != isNaN.getRhs() || !isNaN.getLhs().getType().isF32())
    return Value();
  Value y = isNaN.getLhs();
  auto quiet = sel.getTrueValue().getDefiningOp<arith::OrIOp>();
  auto rounded = sel.getFalseValue().getDefiningOp<arith::ShRUIOp>();
  if (!quiet || !rounded || !isConstantInt(quiet.getRhs(), 0x40) ||
      !isConstantInt(rounded.getRhs(), 16))
    return Value();
  auto upper = quiet.getLhs().getDefiningOp<arith::ShRUIOp>();
  auto bits =
      upper ? upper.getLhs().getDefiningOp<arith::BitcastOp>() : nullptr;
  if (!bits || bits.getIn() != y || !isConstantInt(upper.getRhs(), 16))
    return Value();
  auto sum = rounded.getLhs().getDefiningOp<arith::AddIOp>();
  if (!sum || sum.getLhs() != bits.getResult())
    return Value();
  auto bias = sum.getRhs().getDefiningOp<arith::AddIOp>();
  auto lsb = bias ? bias.getLhs().getDefiningOp<arith::AndIOp>() : nullptr;
  if (!lsb || lsb.getLhs() != upper.getResult() ||
      !isConstantInt(lsb.getRhs(), 1) || !isConstantInt(bias.getRhs(), 0x7fff))
    return Value();
  steps.append(
      {trunc, sel, isNaN, quiet, rounded, upper, bits, sum, bias, lsb});
  return y;
}

/// `v` = bitcast(shli(extui(rounding bits), 16)) : f32, a bf16 rounding
/// extended again with its bf16 bitcasts folded away (what fusion leaves of
/// a rounding and the extension after it): the rounded f32 value.
Value bf16ExtendedRounding(Value v, SmallVectorImpl<Operation *> &steps) {
  SmallVector<Operation *> head;
  Value bits = bf16WidenedBits(v, head);
  Value y = bits ? bf16RoundingBits(bits, steps) : Value();
  if (y)
    steps.append(head.begin(), head.end());
  return y;
}

} // namespace

Value stripExtension(Value v, SmallVectorImpl<Operation *> &steps) {
  if (Value x = stripExtF(v); x != v) {
    steps.push_back(v.getDefiningOp());
    return x;
  }
  if (Value x = bf16Extended(v, steps))
    return x;
  return v;
}

Value stripExtendedRounding(Value v, SmallVectorImpl<Operation *> &steps) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  auto trunc = ext ? ext.getIn().getDefiningOp<arith::TruncFOp>() : nullptr;
  if (trunc && trunc.getIn().getType().isF32() &&
      (trunc.getType().isF16() || trunc.getType().isBF16())) {
    steps.append({ext, trunc});
    return trunc.getIn();
  }
  return bf16ExtendedRounding(v, steps);
}

Value stripRounding(Value v, SmallVectorImpl<Operation *> &steps) {
  if (Value y = stripTruncF(v); y != v) {
    steps.push_back(v.getDefiningOp());
    return y;
  }
  if (Value y = bf16RoundedFrom(v, steps))
    return y;
  return v;
}

bool isAddOfArguments(Block &body, unsigned lhsArg, unsigned rhsArg) {
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  // The ops the sum and its conversions take; the body must hold nothing
  // else (constants aside).
  SmallVector<Operation *> steps;
  Value sum = stripTruncF(yield.getOperand(0));
  if (sum != yield.getOperand(0))
    steps.push_back(yield.getOperand(0).getDefiningOp());
  else if (Value y = bf16RoundedFrom(sum, steps))
    sum = y;
  auto add = sum.getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return false;
  steps.push_back(add);
  bool bf16 =
      sum != yield.getOperand(0) && yield.getOperand(0).getType().isBF16();
  auto strip = [&](Value v) {
    if (bf16)
      if (Value x = bf16Extended(v, steps))
        return x;
    Value x = stripExtF(v);
    if (x != v)
      steps.push_back(v.getDefiningOp());
    return x;
  };
  Value lhs = strip(add.getLhs()), rhs = strip(add.getRhs());
  Value a = body.getArgument(lhsArg), b = body.getArgument(rhsArg);
  if (!((lhs == a && rhs == b) || (lhs == b && rhs == a)))
    return false;
  // One element type throughout (no f16 operand in a bf16 sum).
  if (a.getType() != b.getType() ||
      a.getType() != yield.getOperand(0).getType())
    return false;
  return isExactlySteps(body, steps);
}

bool isExactlySteps(Block &body, ArrayRef<Operation *> steps) {
  for (Operation &op : body.without_terminator())
    if (!llvm::is_contained(steps, &op) && !isa<arith::ConstantOp>(op))
      return false;
  return llvm::all_of(steps,
                      [&](Operation *op) { return op->getBlock() == &body; });
}

std::optional<SmallVector<unsigned>> mapDims(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

bool isMulAddOp(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || !onyx::isMultiplyAccumulate(op))
    return false;
  // One element type for all three (a mixed-precision contraction stays a
  // kernel).
  Type elementType = elementTypeOf(op.getDpsInits()[0]);
  for (OpOperand &operand : op->getOpOperands())
    if (!isDenseOf(operand.get(), elementType))
      return false;
  // The output must not be an input (C = A * B in place). Distinct views
  // of one session pool are disjoint: the pool planner never overlaps
  // buffers that are live together.
  Value out = reshapeRoot(op.getDpsInits()[0]);
  for (Value in : op.getDpsInputs())
    if (reshapeRoot(in) == out)
      return false;
  return true;
}

bool absorbZeroFill(Operation *op, Value out) {
  Value root = reshapeRoot(out);
  Operation *prev = op->getPrevNode();
  while (prev && isNeutral(prev))
    prev = prev->getPrevNode();
  // ONNX MatMul's accumulator may come as a copy of a zero-filled buffer
  // (fill %t; ... copy %t -> %c, %t shared by several MatMuls): when the
  // fill, before the copy, is the only writer of %t, the copy goes, and
  // the fill with the last copy.
  if (auto copy = dyn_cast_or_null<memref::CopyOp>(prev)) {
    if (copy.getTarget() != root)
      return false;
    Value source = copy.getSource();
    linalg::FillOp fill;
    // Before the copy, %t is written by the fill alone (later users, such
    // as a MatMul accumulating into %t in place, do not matter).
    for (Operation *user : source.getUsers()) {
      if (user == copy.getOperation() || isa<memref::DimOp>(user))
        continue;
      if (user->getBlock() == copy->getBlock() && copy->isBeforeInBlock(user))
        continue;
      auto other = dyn_cast<memref::CopyOp>(user);
      if (other && other.getSource() == source && other.getTarget() != source)
        continue;
      auto f = dyn_cast<linalg::FillOp>(user);
      if (!f || fill)
        return false;
      fill = f;
    }
    if (!fill || !fill.hasPureBufferSemantics() ||
        fill->getBlock() != copy->getBlock() || !fill->isBeforeInBlock(copy) ||
        !isZeroConstant(fill.getInputs()[0]))
      return false;
    copy->erase();
    if (llvm::all_of(source.getUsers(), [&](Operation *user) {
          return user == fill.getOperation() || isa<memref::DimOp>(user);
        }))
      fill->erase();
    return true;
  }
  for (; prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() &&
          reshapeRoot(fill.getDpsInits()[0]) == root) {
        auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
        auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
        if (value && value.getValue().isZero()) {
          fill.erase();
          return true;
        }
      }
      return false;
    }
    if (isa<linalg::LinalgOp, func::CallOp, gpu::MemcpyOp, memref::StoreOp,
            memref::CopyOp>(prev) ||
        prev->getNumRegions() > 0)
      return false;
  }
  return false;
}

bool usedBetween(Value buffer, Operation *first, Operation *last) {
  Block *block = first->getBlock();
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::DimOp>(user))
      continue;
    if (auto view = dyn_cast<memref::ExpandShapeOp>(user))
      if (usedBetween(view.getResult(), first, last))
        return true;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || inBlock == first || inBlock == last)
      continue;
    if (first->isBeforeInBlock(inBlock) && inBlock->isBeforeInBlock(last))
      return true;
  }
  return false;
}

bool onlyUsedBy(Value buffer, ArrayRef<Operation *> allowed, Operation *from,
                Operation *until) {
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::DimOp>(user) || llvm::any_of(allowed, [&](Operation *op) {
          return op == user || op->isProperAncestor(user);
        }))
      continue;
    // A use before `from`, which overwrites the whole buffer, reads or
    // writes an earlier value (bufferization reuses dead buffers).
    if (from) {
      Operation *ancestor = from->getBlock()->findAncestorOpInBlock(*user);
      if (ancestor && ancestor->isBeforeInBlock(from))
        continue;
    }
    // A use after `until` reads the final value.
    if (until) {
      Operation *ancestor = until->getBlock()->findAncestorOpInBlock(*user);
      if (ancestor && until->isBeforeInBlock(ancestor))
        continue;
    }
    if (auto view = dyn_cast<memref::ExpandShapeOp>(user)) {
      if (onlyUsedBy(view.getResult(), allowed, from, until))
        continue;
    }
    return false;
  }
  return true;
}

void forEachLibraryCandidate(
    ModuleOp module, const LibraryCallBuilder &calls,
    function_ref<void(Value, linalg::LinalgOp)> visit) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || func.getNumArguments() == 0 ||
        !isa<ContextType>(func.getArgument(0).getType()))
      continue;
    Value context = func.getArgument(0);
    SmallVector<linalg::LinalgOp> candidates;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
          if (linalgOp.hasPureBufferSemantics())
            candidates.push_back(linalgOp);
    for (linalg::LinalgOp op : candidates)
      // Folded into an earlier call (an epilogue after it).
      if (!calls.wasErased(op.getOperation()))
        visit(context, op);
  }
}

LogicalResult lowerFusedOps(ModuleOp module,
                            function_ref<bool(Operation *)> isTarget,
                            function_ref<bool(Value, Operation *)> lower) {
  bool failedAny = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    bool bound = func.getNumArguments() > 0 &&
                 isa<ContextType>(func.getArgument(0).getType());
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isTarget(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      bool dense = llvm::all_of(op->getOperands(), [](Value v) {
        auto type = dyn_cast<MemRefType>(v.getType());
        return type && type.getLayout().isIdentity();
      });
      if (!bound || !dense) {
        op->emitError() << op->getName()
                        << " must be on dense row-major buffers inside the "
                           "bound entry when the CUDA calls are formed";
        failedAny = true;
        continue;
      }
      if (!lower(func.getArgument(0), op))
        failedAny = true;
    }
  }
  return failure(failedAny);
}

std::optional<SmallVector<Value>> dynamicSizes(Value buffer) {
  if (auto view = buffer.getDefiningOp<memref::ViewOp>())
    return SmallVector<Value>(view.getSizes());
  if (auto alloc = buffer.getDefiningOp<AllocTempOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  if (auto alloc = buffer.getDefiningOp<AllocOutputOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  return std::nullopt;
}

func::FuncOp LibraryCallBuilder::declare(StringRef name, ArrayRef<Type> args,
                                         Type result) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, {result}));
  fn.setPrivate();
  return fn;
}

Value LibraryCallBuilder::label(OpBuilder &b, Location loc, StringRef text) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto found = labels.find(text);
  std::string name;
  if (found != labels.end()) {
    name = found->second;
  } else {
    name = "onyx_library_label";
    while (module.lookupSymbol(name))
      name = "onyx_library_label_" + std::to_string(++labelCounter);
    std::string bytes = text.str();
    bytes.push_back('\0');
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    auto type = LLVM::LLVMArrayType::get(mb.getI8Type(), bytes.size());
    LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Private, name,
                           mb.getStringAttr(bytes), /*alignment=*/1);
    labels[text] = name;
  }
  return LLVM::AddressOfOp::create(b, loc, ptr, name);
}

Value LibraryCallBuilder::devicePointer(OpBuilder &b, Location loc,
                                        Value context, Value buffer) {
  if (isHostConstant(buffer)) {
    auto type = cast<MemRefType>(buffer.getType());
    auto temp = AllocTempOp::create(b, loc, type, context, ValueRange{});
    // The session's copy, not a temporary of the call: never pooled (this
    // runs before onyx-pool-allocations for convolutions).
    temp->setAttr(kSessionConstantAttr, b.getUnitAttr());
    auto copy =
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, temp, buffer);
    copy->setAttr(kSessionConstantAttr, b.getUnitAttr());
    buffer = temp;
  }
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value bits = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), bits);
}

Value LibraryCallBuilder::i64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}
Value LibraryCallBuilder::i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}
Value LibraryCallBuilder::toI64(OpBuilder &b, Location loc, OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return i64(b, loc, cast<IntegerAttr>(attr).getInt());
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(ofr));
}
Value LibraryCallBuilder::product(OpBuilder &b, Location loc,
                                  ArrayRef<Value> sizes,
                                  ArrayRef<unsigned> loops) {
  Value result = i64(b, loc, 1);
  for (unsigned d : loops)
    result = arith::MulIOp::create(b, loc, result, sizes[d]);
  return result;
}

std::string LibraryCallBuilder::labelFor(Operation *op, StringRef library) {
  std::string node = nodeNameOf(op->getLoc());
  if (node.empty())
    return ("'" + op->getName().getStringRef() + "' (" + library + ")").str();
  return ("node '" + node + "' (" + library + ")").str();
}

void LibraryCallBuilder::emitCall(OpBuilder &b, Location loc, StringRef fnName,
                                  ArrayRef<Value> args) {
  SmallVector<Type> types;
  for (Value a : args)
    types.push_back(a.getType());
  func::FuncOp fn = declare(fnName, types, b.getI32Type());
  auto call = func::CallOp::create(b, loc, fn, args);
  call->setAttr(kStatusAttr, b.getUnitAttr());
}

} // namespace onyx::cuda
