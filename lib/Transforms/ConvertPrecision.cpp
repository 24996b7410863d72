//===- ConvertPrecision.cpp - fp32 models run in half precision -----------===//
//
// `--onnx-convert-precision{type=f16|bf16}` (`onyx-compile
// --precision=fp16|bf16`): an fp32 model is rewritten, on the `onnx`
// dialect before the conversion, so that its compute-heavy and
// precision-insensitive ops run in the half type and its precision-
// sensitive ops stay in f32, with `onnx.Cast`s at the island boundaries.
// This is what users do by hand with ONNX Runtime's float16 converter or
// TensorRT's --fp16. The decision per op comes from one table, kOpClasses
// below (docs/cuda-backend.md, "Precision"):
//
//   * compute ops (MatMul, Gemm, Conv, ConvTranspose, Einsum) run in the
//     half type whenever their float operands are f32: an f32 operand is
//     cast (or, a constant, converted at compile time);
//   * follow ops (elementwise arithmetic and activations, data movement,
//     local pooling) run in the half type when every f32 operand is either
//     a half value (a result of an op already converted) or a constant,
//     and at least one is a half value: they extend a half island but
//     never start one, so values computed in f32 stay f32 until a compute
//     op needs them. One exception starts an island: a Gather from a
//     constant table (an embedding lookup copies rows of a weight, which
//     is converted like any other);
//   * LayerNormalization with f32 statistics (stash_type 1, the default)
//     reads and writes the half type when its input is a half value, its
//     Mean / InvStdDev outputs are unused and an op that may run in half
//     reads its result (the last LayerNorm, read by the graph's output
//     alone, stays f32: no rounding of the output): the mean and variance are
//     still computed in f32 (stash_type), only the input and the
//     normalized output are half. With the embedding rule this keeps a
//     transformer's residual stream in the half type, as in a model
//     exported in half (PyTorch's `.half()`), TensorRT's --fp16 and ONNX
//     Runtime's float16 converter: each LayerNorm then moves half the
//     bytes. `f32-layer-norm` (`onyx-compile --precision-f32-layer-norm`)
//     keeps both f32 instead: the stream stays f32 (more exact, and safe
//     where a model's stream would overflow f16);
//   * every other op stays f32: reductions (ReduceMean/Sum/..., the
//     GlobalAverage/LpPools), Softmax/LogSoftmax, Exp/Log/Pow/Sqrt/
//     Reciprocal, the other normalizations (GroupNorm,
//     BatchNormalization, InstanceNormalization; RMSNormalization is
//     decomposed before this pass and its ReduceMean/Sqrt/Reciprocal stay
//     f32), CumSum, Range, losses, Resize, control flow, anything this
//     table does not name.
//
// Constants (`onnx.Constant` with a dense or dense_resource f32 value)
// feeding a converted op are converted at compile time, rounding to
// nearest even; an `onnx.Identity` of a constant (exporters write one
// where two initializers hold the same values) counts as that constant. A
// constant with a finite value the half type cannot hold (|x| above its
// largest finite value, e.g. f16's 65504 or an f32 `finfo.min` mask value),
// or whose every non-zero value would become zero (an epsilon of 1e-12 in
// f16), keeps its consumer in f32 instead: it never saturates. A weight
// whose tiniest entries flush to zero while the rest stay is converted, as
// PyTorch's `.half()` converts it. External weights
// (`onyx.weight`, `--external-weights`) are not in the IR: a half op reads
// a second `onyx.weight` of the same bytes in the half type, marked
// `onyx.file_element_type = f32`, which the session converts once when it
// loads the file (round to nearest even, as a Cast; |x| > 65504 becomes
// inf in f16, as a run-time Cast would make it), and they count as
// constants for the follow rule. Graph inputs and outputs keep their declared
// types (a converted value that a graph output, or any f32 op, uses is cast
// back). Each value is cast at most once per direction, and Cast pairs
// that cancel (half -> f32 -> half) are removed, model Casts included.
// Only the ops of a function's body are converted; the bodies of If/Loop/
// Scan stay f32 (their uses of converted values are cast back).
//
//===----------------------------------------------------------------------===//

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>

namespace onyx {
#define GEN_PASS_DEF_ONNXCONVERTPRECISION
#include "onyx/Transforms/Passes.h.inc"
} // namespace onyx

using namespace mlir;

namespace onyx {
namespace {

/// The form before weights were converted at load: a Cast of each external
/// weight in every call (kept for comparisons, e.g. memory and time before
/// and after; `onyx-compile --precision-cast-weights-per-call`).
llvm::cl::opt<bool> clCastWeightsPerCall(
    "precision-cast-weights-per-call", llvm::cl::Hidden,
    llvm::cl::desc("--precision=fp16|bf16: cast the external weights in "
                   "every call instead of converting them when the session "
                   "loads them"),
    llvm::cl::init(false));

/// How an op takes part in the conversion (the table below).
enum class OpClass {
  /// Stays in f32 (not in the table).
  Keep,
  /// Runs in the half type whenever its float operands are f32.
  Compute,
  /// Runs in the half type when it extends a half island (see the header).
  Follow,
  /// Reads and writes the half type when its input is a half value, with
  /// f32 statistics (LayerNormalization; see the header).
  Normalize,
};

/// The one table: which ops run in the half type. Everything else stays
/// f32. Every f32 operand of a listed op is a value of the op's type `T`
/// (Clip's min/max, Pad's constant_value, Where's branches): ops with an
/// f32 operand that must stay f32 (Resize's scales, Dropout's ratio) are
/// not listed.
OpClass classify(StringRef name) {
  return llvm::StringSwitch<OpClass>(name)
      // Contractions and convolutions: the work (tensor cores on CUDA,
      // fp32 accumulation in cuBLASLt/cuDNN and in the CPU's widened
      // reductions).
      .Cases({"onnx.MatMul", "onnx.Gemm", "onnx.Conv", "onnx.ConvTranspose",
              "onnx.Einsum"},
             OpClass::Compute)
      // Elementwise arithmetic and bounded or piecewise-linear activations.
      .Cases({"onnx.Add", "onnx.Sub", "onnx.Mul", "onnx.Div", "onnx.Neg",
              "onnx.Abs", "onnx.Max", "onnx.Min", "onnx.Clip", "onnx.Where"},
             OpClass::Follow)
      .Cases({"onnx.Relu", "onnx.LeakyRelu", "onnx.PRelu", "onnx.Gelu",
              "onnx.Sigmoid", "onnx.HardSigmoid", "onnx.HardSwish", "onnx.Tanh",
              "onnx.Erf"},
             OpClass::Follow)
      // Data movement (values are copied, never rounded again).
      .Cases({"onnx.Transpose", "onnx.Reshape", "onnx.Flatten", "onnx.Squeeze",
              "onnx.Unsqueeze", "onnx.Concat", "onnx.Slice", "onnx.Split",
              "onnx.Gather", "onnx.Expand", "onnx.Identity", "onnx.Tile",
              "onnx.Pad", "onnx.DepthToSpace", "onnx.SpaceToDepth"},
             OpClass::Follow)
      // Local pooling (a few elements per window).
      .Cases({"onnx.MaxPool", "onnx.AveragePool"}, OpClass::Follow)
      // f32 statistics, half input and output.
      .Case("onnx.LayerNormalization", OpClass::Normalize)
      .Default(OpClass::Keep);
}

/// On an `onyx.weight` read as another type than the file holds: the
/// file's element type (f32), converted by the session at load
/// (onyx-bind-entry-context writes it into the weight's metadata line).
constexpr llvm::StringLiteral kFileElementType = "onyx.file_element_type";

bool isF32Tensor(Type type) {
  auto t = dyn_cast<TensorType>(type);
  return t && t.getElementType().isF32();
}

/// `v` with the onnx.Identity ops that define it looked through.
Value throughIdentity(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (def->getName().getStringRef() != "onnx.Identity")
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether `v` is (an Identity of) an onnx.Constant or an onyx.weight.
bool isConstantValue(Value v) {
  Operation *def = throughIdentity(v).getDefiningOp();
  return def && (def->getName().getStringRef() == "onnx.Constant" ||
                 def->getName().getStringRef() == "onyx.weight");
}

//===----------------------------------------------------------------------===//
// f32 -> f16 / bf16, round to nearest even
//===----------------------------------------------------------------------===//

/// What rounding a constant's values did: a finite value overflowed to
/// infinity, a non-zero value rounded to zero, a non-zero value stayed
/// non-zero.
struct Loss {
  bool overflow = false;
  bool flushed = false;
  bool kept = false;
  /// The constant cannot be given to a half op: a value overflowed, or every
  /// non-zero value became zero (an epsilon of 1e-12 in f16). A weight
  /// whose tiniest entries flush to zero (as PyTorch's `.half()` flushes
  /// them) but whose other values stay is converted.
  bool lost() const { return overflow || (flushed && !kept); }
};

uint16_t toF16(float f, Loss &loss) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) // inf, NaN (quiet, payload kept where it fits)
    return sign | 0x7c00 |
           (abs > 0x7f800000 ? 0x200 | ((abs >> 13) & 0x3ff) : 0);
  if (abs >= 0x477ff000) { // >= 65520: rounds to infinity
    loss.overflow = true;
    return sign | 0x7c00;
  }
  if (abs < 0x38800000) { // below 2^-14: a subnormal half (or zero)
    float v;
    std::memcpy(&v, &abs, 4);
    // v * 2^24 is exact; nearbyint rounds to nearest even.
    auto m = uint32_t(std::nearbyint(v * 16777216.0f));
    if (m == 0 && abs != 0)
      loss.flushed = true;
    else if (m != 0)
      loss.kept = true;
    return sign | m; // m == 0x400 is the smallest normal: the same bits.
  }
  loss.kept = true;
  uint32_t h = ((((abs >> 23) - 127 + 15) << 10) | ((abs & 0x7fffff) >> 13));
  uint32_t rem = abs & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // a carry into the exponent is the right result
  return sign | h;
}

uint16_t toBF16(float f, Loss &loss) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t abs = x & 0x7fffffff;
  if (abs > 0x7f800000) // NaN: quiet, sign kept
    return uint16_t((x >> 16) | 0x40);
  uint32_t r = (x + 0x7fff + ((x >> 16) & 1)) >> 16;
  if (abs != 0x7f800000 && (r & 0x7f80) == 0x7f80)
    loss.overflow = true; // a finite value rounded to infinity
  if (abs != 0 && (r & 0x7fff) == 0)
    loss.flushed = true; // a tiny subnormal rounded to zero
  else if (abs != 0)
    loss.kept = true;
  return uint16_t(r);
}

/// The f32 values of a constant's attribute, or false when they are not
/// dense f32 data this pass can read.
bool readF32(Attribute attr, SmallVectorImpl<float> &values) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.getElementType().isF32())
      return false;
    values.assign(dense.getValues<float>().begin(),
                  dense.getValues<float>().end());
    return true;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    if (!resource.getElementType().isF32())
      return false;
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return false;
    ArrayRef<char> data = blob->getData();
    int64_t n = resource.getNumElements();
    if (int64_t(data.size()) != n * 4)
      return false;
    values.resize(n);
    std::memcpy(values.data(), data.data(), data.size());
    return true;
  }
  return false;
}

class ConvertPrecisionPass
    : public impl::ONNXConvertPrecisionBase<ConvertPrecisionPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    fits.clear();
    if (type == "f16") {
      half = Float16Type::get(ctx);
      halfCode = 10;
    } else if (type == "bf16") {
      half = BFloat16Type::get(ctx);
      halfCode = 16;
    } else {
      module.emitError() << "onnx-convert-precision: unknown type '" << type
                         << "' (expected f16 or bf16)";
      return signalPassFailure();
    }
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal())
        convert(fn.getBody().front());
    cancelCasts(module);
  }

private:
  Type half;
  int64_t halfCode = 0;
  /// Constant op -> whether its value fits the half type (this run's ops
  /// only: cleared at the start of each run).
  DenseMap<Operation *, bool> fits;

  /// Whether `v` is a constant this pass may give a half op: (an Identity
  /// of) an f32 onnx.Constant whose values fit, or an external weight.
  bool isConstantOperand(Value v) {
    Operation *def = throughIdentity(v).getDefiningOp();
    if (!def)
      return false;
    if (def->getName().getStringRef() == "onyx.weight")
      return true;
    if (def->getName().getStringRef() != "onnx.Constant")
      return false;
    auto it = fits.find(def);
    if (it != fits.end())
      return it->second;
    SmallVector<float> values;
    bool ok = readF32(def->getAttr("value"), values);
    Loss loss;
    for (float f : values) {
      half.isF16() ? toF16(f, loss) : toBF16(f, loss);
      if (loss.overflow)
        break;
    }
    ok = ok && !loss.lost();
    fits[def] = ok;
    return ok;
  }

  /// Whether the op's result `r` becomes the half type when the op runs in
  /// half: every f32 result, except a LayerNormalization's statistics.
  static bool convertsResult(OpResult r) {
    if (!isF32Tensor(r.getType()))
      return false;
    return classify(r.getOwner()->getName().getStringRef()) !=
               OpClass::Normalize ||
           r.getResultNumber() == 0;
  }

  /// A LayerNormalization that may read and write the half type: f32
  /// statistics, no use of its Mean / InvStdDev, its input a half value,
  /// and an op that may run in half among the users of its result. One read
  /// only by f32 ops and the graph's outputs (a transformer's last
  /// LayerNorm) stays f32: its output is not rounded to half, and the
  /// widening Cast of its input is read through by the CUDA kernel.
  bool normalizesInHalf(Operation *op, const DenseSet<Operation *> &halfOps) {
    if (f32LayerNorm)
      return false;
    auto stash = op->getAttrOfType<IntegerAttr>("stash_type");
    if (stash && stash.getInt() != 1)
      return false;
    for (OpResult r : op->getResults().drop_front())
      if (!r.use_empty())
        return false;
    if (llvm::none_of(op->getResult(0).getUsers(), [](Operation *user) {
          return classify(user->getName().getStringRef()) != OpClass::Keep;
        }))
      return false;
    Operation *def = op->getOperand(0).getDefiningOp();
    return def && halfOps.contains(def);
  }

  /// A Gather whose data is a constant the half type holds: an embedding
  /// lookup, which starts a half island (see the header).
  bool isTableLookup(Operation *op) {
    if (f32LayerNorm || op->getName().getStringRef() != "onnx.Gather")
      return false;
    Value data = op->getOperand(0);
    return isF32Tensor(data.getType()) && isConstantOperand(data);
  }

  /// The op's results in the half type decided from its operands.
  bool runsInHalf(Operation *op, const DenseSet<Operation *> &halfOps) {
    OpClass cls = classify(op->getName().getStringRef());
    if (cls == OpClass::Keep)
      return false;
    if (cls == OpClass::Normalize && !normalizesInHalf(op, halfOps))
      return false;
    if (!llvm::any_of(op->getResultTypes(), isF32Tensor))
      return false;
    // Every float operand and result must be f32 (an f64 or mixed op is
    // the model's business), and regions are not converted.
    auto isOtherFloat = [](Type t) {
      auto tt = dyn_cast<TensorType>(t);
      return tt && isa<FloatType>(tt.getElementType()) &&
             !tt.getElementType().isF32();
    };
    if (op->getNumRegions() ||
        llvm::any_of(op->getOperandTypes(), isOtherFloat) ||
        llvm::any_of(op->getResultTypes(), isOtherFloat))
      return false;
    bool anyHalf = false;
    for (Value v : op->getOperands()) {
      if (!isF32Tensor(v.getType()))
        continue;
      Operation *def = v.getDefiningOp();
      if (def && halfOps.contains(def)) {
        anyHalf = true;
        continue;
      }
      bool isConst = isConstantValue(v);
      if (isConst && !isConstantOperand(v))
        return false; // a value the half type cannot hold: stay f32
      if (isConst)
        continue;
      if (cls != OpClass::Compute)
        return false; // an f32 value: only a compute op starts an island
    }
    return cls == OpClass::Compute || anyHalf || isTableLookup(op);
  }

  Value makeCast(OpBuilder &b, Location loc, Value v, Type elem, int64_t code) {
    OperationState state(loc, "onnx.Cast");
    state.addOperands(v);
    state.addTypes(cast<TensorType>(v.getType()).clone(elem));
    state.addAttribute("to", b.getI64IntegerAttr(code));
    return b.create(state)->getResult(0);
  }

  /// A builder right after `v`'s definition (block start for arguments).
  OpBuilder after(Value v) {
    OpBuilder b(v.getContext());
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(v.getParentBlock());
    return b;
  }

  /// `v` (f32) as a half value: a compile-time constant, the source of a
  /// Cast to f32 of a half value, or one Cast per value.
  Value halfOf(Value v, DenseMap<Value, Value> &cache) {
    if (Value c = cache.lookup(v))
      return c;
    Value result;
    Operation *def = v.getDefiningOp();
    if (Value source = throughIdentity(v); source != v && isConstantValue(v)) {
      // An Identity of a constant: that constant's half form.
      result = halfOf(source, cache);
    } else if (def && def->getName().getStringRef() == "onnx.Constant" &&
               fits.lookup(def)) {
      SmallVector<float> values;
      readF32(def->getAttr("value"), values);
      SmallVector<uint16_t> bits(values.size());
      Loss loss;
      for (size_t i = 0; i < values.size(); ++i)
        bits[i] =
            half.isF16() ? toF16(values[i], loss) : toBF16(values[i], loss);
      auto type = cast<ShapedType>(v.getType()).clone(half);
      ElementsAttr value;
      auto bytes = ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                                  bits.size() * 2);
      bool splat = !bits.empty() && llvm::all_equal(bits);
      if (splat || values.size() <= 16) {
        // One element is a splat.
        value = DenseElementsAttr::getFromRawBuffer(
            type, splat ? bytes.take_front(2) : bytes);
      } else {
        auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
            bytes, alignof(uint64_t));
        value = DenseResourceElementsAttr::get(type, "onnx_half_tensor",
                                               std::move(blob));
      }
      OpBuilder b = after(v);
      OperationState state(def->getLoc(), "onnx.Constant");
      state.addAttribute("value", value);
      state.addTypes(type);
      result = b.create(state)->getResult(0);
    } else if (def && def->getName().getStringRef() == "onyx.weight" &&
               !def->hasAttr(kFileElementType) && !clCastWeightsPerCall) {
      // An external weight: the same bytes, read as the half type, which
      // the session converts once when it loads the file (RNE, as a Cast
      // would) instead of a Cast in every call.
      OpBuilder b = after(v);
      OperationState state(def->getLoc(), "onyx.weight");
      state.addAttributes(def->getAttrs());
      state.addAttribute(kFileElementType, TypeAttr::get(b.getF32Type()));
      state.addTypes(cast<ShapedType>(v.getType()).clone(half));
      result = b.create(state)->getResult(0);
    } else if (def && def->getName().getStringRef() == "onnx.Cast" &&
               def->getOperand(0).getType() ==
                   cast<TensorType>(v.getType()).clone(half)) {
      result = def->getOperand(0); // half -> f32 -> half cancels
    } else {
      OpBuilder b = after(v);
      result = makeCast(b, v.getLoc(), v, half, halfCode);
    }
    cache[v] = result;
    return result;
  }

  void convert(Block &body) {
    DenseSet<Operation *> halfOps;
    SmallVector<Operation *> order;
    for (Operation &op : body)
      if (runsInHalf(&op, halfOps)) {
        halfOps.insert(&op);
        order.push_back(&op);
      }
    // Half operands: converted constants, cancelled or new Casts.
    DenseMap<Value, Value> toHalf;
    for (Operation *op : order)
      for (OpOperand &use : op->getOpOperands()) {
        Value v = use.get();
        Operation *def = v.getDefiningOp();
        if (!isF32Tensor(v.getType()) || (def && halfOps.contains(def)))
          continue;
        use.set(halfOf(v, toHalf));
      }
    // Half results; each use outside the island reads one Cast back to f32,
    // except Shape and Size, which read only the dims.
    for (Operation *op : order)
      for (OpResult r : op->getResults()) {
        if (!convertsResult(r))
          continue;
        SmallVector<OpOperand *> outside;
        for (OpOperand &use : r.getUses()) {
          StringRef user = use.getOwner()->getName().getStringRef();
          if (!halfOps.contains(use.getOwner()) && user != "onnx.Shape" &&
              user != "onnx.Size")
            outside.push_back(&use);
        }
        Type f32Type = r.getType();
        r.setType(cast<TensorType>(f32Type).clone(half));
        if (outside.empty())
          continue;
        OpBuilder b = after(r);
        Value back =
            makeCast(b, op->getLoc(), r, Float32Type::get(r.getContext()), 1);
        for (OpOperand *use : outside)
          use->set(back);
      }
  }

  /// Cast(to=half)(Cast(to=f32)(u : half)) is u; unused Casts, Constants
  /// and weights go.
  void cancelCasts(ModuleOp module) {
    SmallVector<Operation *> casts;
    module.walk([&](Operation *op) {
      if (op->getName().getStringRef() == "onnx.Cast")
        casts.push_back(op);
    });
    for (Operation *op : casts) {
      Operation *inner = op->getOperand(0).getDefiningOp();
      if (!inner || inner->getName().getStringRef() != "onnx.Cast")
        continue;
      Value source = inner->getOperand(0);
      if (source.getType() == op->getResult(0).getType() &&
          isF32Tensor(inner->getResult(0).getType()) &&
          cast<TensorType>(source.getType()).getElementType() == half)
        op->getResult(0).replaceAllUsesWith(source);
    }
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<Operation *> dead;
      module.walk([&](Operation *op) {
        StringRef name = op->getName().getStringRef();
        if ((name == "onnx.Cast" || name == "onnx.Constant" ||
             name == "onyx.weight") &&
            op->use_empty())
          dead.push_back(op);
      });
      for (Operation *op : dead)
        op->erase();
      changed = !dead.empty();
    }
  }
};

} // namespace
} // namespace onyx
