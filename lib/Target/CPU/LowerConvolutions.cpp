//===- LowerConvolutions.cpp - Convolutions as runtime calls --------------===//
//
// onyx-cpu-lower-convolutions. The ONNX Conv lowering expresses a
// convolution as one grouped generic over the padded input,
//
//   Y[n, g, m, o...] += X[n, g, c, o * s + t * d] * W[g, m, c, t...]
//
// which convert-linalg-to-loops would make a scalar loop nest of 2r + 4
// loops. On the CPU it becomes one call of the runtime's
// onyxrt_cpu_conv_f32 (runtime/src/cpu/Conv.cpp: im2col + OpenBLAS sgemm,
// depthwise convolutions as direct loops) with the dims in a stack array
// (N, C, M, G, in..., kernel..., out..., pads (0), strides...,
// dilations..., as for onyxrt_cuda_conv). Its epilogues fold into the
// call when nothing else reads the intermediate buffers: the bias
// broadcast that initializes Y (the call then overwrites Y), a Relu after
// it or a Clip (ReLU6), a residual Add (ResNet's block tail
// relu(conv + bias + residual), MobileNetV2's conv + bias + residual); a
// zero fill of Y right before is absorbed. The Conv lowering's zero
// padding of the input (a generic that selects between a load of the
// input and 0) folds into the call too: the call gets the unpadded input
// and the begin pads (onyx_cpu_conv.h), when the padded copy has no other
// reader (the runtime reads a copy of an input that overlaps the output).
//
// Max pooling, the MaxPool lowering's window generic
//
//   Y[n, c, o...] = maximumf(Y[n, c, o...], X[n, c, o * s + t * d])
//
// (with a window operand giving the kernel extents) over the padded input,
// becomes onyxrt_cpu_maxpool_f32 (runtime/src/cpu/Pool.cpp: an output row
// at a time, vectorized over columns), the fill of Y right before it the
// call's initial value; the padding of its input (-inf, ceil_mode's
// overhang) folds into the call as the convolution's does, with its fill
// value.
//
// The matchers of these IR shapes are in ConvMatchers.cpp; the Concat
// slices a call may write in ConcatSlices.cpp.
//
//===----------------------------------------------------------------------===//

#include "ConcatSlices.h"
#include "ConvMatchers.h"

#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CPU/Passes.h"
#include "onyx/onyx_abi.h"
#include "onyx/onyx_cpu_conv.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/bit.h"

namespace onyx {
#define GEN_PASS_DEF_CPULOWERCONVOLUTIONS
#include "onyx/Target/CPU/Passes.h.inc"
} // namespace onyx

using namespace mlir;
using namespace onyx;

namespace {

constexpr StringLiteral kConvFn = ONYXRT_FN_CPU_CONV_F32;
constexpr int32_t kConvAccumulate = ONYXRT_CONV_ACCUMULATE,
                  kConvRelu = ONYXRT_CONV_RELU, kConvClip = ONYXRT_CONV_CLIP;

using namespace onyx::cpu_conv;

struct CPULowerConvolutionsPass
    : public onyx::impl::CPULowerConvolutionsBase<CPULowerConvolutionsPass> {
  /// The pointers of calls that write a channel slice of a Concat's
  /// buffer, with the channels (ConcatSlices.h).
  SliceWrites sliceWrites;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    sliceWrites.clear();
    SmallVector<std::pair<linalg::GenericOp, ConvMatch>> convs;
    module.walk([&](linalg::GenericOp op) {
      if (auto match = matchConv(op))
        convs.push_back({op, *match});
    });
    for (auto &[op, match] : convs)
      lower(module, op, match);
    SmallVector<std::pair<linalg::GenericOp, PoolMatch>> pools;
    module.walk([&](linalg::GenericOp op) {
      if (auto match = matchMaxPool(op))
        pools.push_back({op, *match});
    });
    for (auto &[op, match] : pools)
      lowerMaxPool(module, op, match);
  }

  void lowerMaxPool(ModuleOp module, linalg::GenericOp op,
                    const PoolMatch &match) {
    std::optional<float> init = absorbFill(op, match.y);
    // The padding of the input (-inf, ceil_mode's overhang): the call reads
    // the unpadded source when nothing else reads the padded copy, and
    // combines the fill for taps outside it. Only neutral ops sit in
    // between, so the source still holds its values at the call.
    Value source;
    SmallVector<int64_t> pads;
    std::optional<float> fill;
    if (linalg::GenericOp padding =
            findPadding(op, nullptr, match.x, source, pads, &fill)) {
      if (fill && onlyUsedBy(match.x, {padding, op}))
        padding->erase();
      else
        source = Value();
    } else {
      source = Value();
    }
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 64);
    };
    auto dim = [&](Value buffer, int64_t d) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.isDynamicDim(d))
        return i64(type.getDimSize(d));
      return arith::IndexCastOp::create(
          b, loc, b.getI64Type(), memref::DimOp::create(b, loc, buffer, d));
    };
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto pointer = [&](Value buffer) -> Value {
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
      return LLVM::IntToPtrOp::create(b, loc, ptr, address);
    };
    int64_t r = match.rank;
    SmallVector<Value> dims = {
        arith::MulIOp::create(b, loc, dim(match.y, 0), dim(match.y, 1))};
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(source ? source : match.x, 2 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(match.kernel[i]));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(match.y, 2 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(match.strides[i]));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(match.dilations[i]));
    if (source) {
      for (int64_t i = 0; i < r; ++i)
        dims.push_back(i64(pads[2 + i]));
      dims.push_back(i64(int64_t(llvm::bit_cast<uint32_t>(*fill))));
    }
    Value array = LLVM::AllocaOp::create(b, loc, ptr, b.getI64Type(),
                                         i64(int64_t(dims.size())), 8);
    for (auto [i, value] : llvm::enumerate(dims)) {
      Value address = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), array,
                                          ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, value, address);
    }
    StringRef name = ONYXRT_FN_CPU_MAXPOOL_F32;
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn) {
      OpBuilder top(module.getContext());
      top.setInsertionPointToEnd(module.getBody());
      fn = func::FuncOp::create(
          top, module.getLoc(), name,
          top.getFunctionType({top.getI32Type(), top.getI64Type(), ptr,
                               top.getI64Type(), ptr, ptr},
                              {}));
      fn.setPrivate();
    }
    int64_t initBits =
        init ? int64_t(llvm::bit_cast<uint32_t>(*init)) : int64_t(0);
    Value flags = arith::ConstantIntOp::create(
        b, loc,
        (init ? ONYXRT_POOL_INIT : 0) | (source ? ONYXRT_POOL_PADDED : 0), 32);
    Value rank = i64(r);
    Value initValue = i64(initBits);
    Value x = pointer(source ? source : match.x), y = pointer(match.y);
    func::CallOp::create(b, loc, fn,
                         ValueRange{flags, rank, array, initValue, x, y});
    op->erase();
  }

  func::FuncOp declare(ModuleOp module) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(kConvFn))
      return fn;
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto fn =
        func::FuncOp::create(b, module.getLoc(), kConvFn,
                             b.getFunctionType({b.getI32Type(), b.getI64Type(),
                                                ptr, ptr, ptr, ptr, ptr, ptr},
                                               {}));
    fn.setPrivate();
    return fn;
  }

  void lower(ModuleOp module, linalg::GenericOp op, const ConvMatch &match) {
    Value yRoot = reshapeRoot(match.y);
    Value biasBuffer, residual;
    int32_t flags = 0;
    int64_t r = match.rank;
    // The epilogue op folded into the call and the buffer it wrote (the
    // call's output, see below).
    linalg::GenericOp folded;
    Value foldedTarget;
    SmallVector<Operation *> erase;
    linalg::GenericOp bias = findBiasBroadcast(op, yRoot);
    if (!bias && !absorbZeroFill(op, match.y))
      flags |= kConvAccumulate;
    // The zero padding of the input: the call reads the unpadded source
    // instead. Only neutral ops and the bias broadcast (erased: the call
    // writes Y) sit in between, so the source still holds its values at the
    // call. Y may overlap it (the memory plan may give Y the source's memory
    // when the padding was its last reader): the call then reads a copy of
    // the input (Conv.cpp).
    Value xRoot = reshapeRoot(match.x), xSource;
    SmallVector<int64_t> pads;
    auto xType = cast<MemRefType>(match.x.getType());
    if (linalg::GenericOp padding =
            findPadding(op, bias, xRoot, xSource, pads)) {
      auto rootType = cast<MemRefType>(xRoot.getType());
      bool sameSpatial = rootType.getRank() == r + 2;
      for (int64_t i = 0; sameSpatial && i < r; ++i)
        sameSpatial = rootType.getDimSize(2 + i) == xType.getDimSize(3 + i);
      if (sameSpatial && onlyUsedBy(xRoot, {padding, op}))
        erase.push_back(padding);
      else
        xSource = Value();
    } else {
      xSource = Value();
    }
    float clipLo = 0.0f, clipHi = 0.0f;
    if (bias) {
      linalg::GenericOp relu = findRelu(op, yRoot);
      linalg::GenericOp clip = findClip(op, yRoot, clipLo, clipHi);
      // The folded op right after the convolution may have other readers of
      // Y after it when it writes Y itself (in place).
      auto inPlace = [&](linalg::GenericOp g) {
        return reshapeRoot(g.getDpsInits()[0]) == yRoot;
      };
      if (relu &&
          (inPlace(relu) || onlyUsedFrom(yRoot, bias, {bias, op, relu}))) {
        flags |= kConvRelu;
        folded = relu;
        foldedTarget = relu.getDpsInits()[0];
      } else if (clip && (inPlace(clip) ||
                          onlyUsedFrom(yRoot, bias, {bias, op, clip}))) {
        // MobileNet's ReLU6.
        flags |= kConvClip;
        folded = clip;
        foldedTarget = clip.getDpsInits()[0];
      } else if (auto [add, other] = findResidualAdd(op, yRoot); add) {
        // ResNet's block tail: relu(conv + bias + residual); MobileNetV2's
        // conv + bias + residual.
        Value sum = add.getDpsInits()[0];
        linalg::GenericOp relu2 = findRelu(add, sum);
        // The Add and the Relu both in place over Y (ResNet's downsampling
        // blocks, whose Add overwrites the downsample's output): Y's readers
        // after them want the final value, which the call leaves in Y.
        bool tailInY = relu2 && reshapeRoot(sum) == yRoot &&
                       reshapeRoot(relu2.getDpsInits()[0]) == yRoot;
        if (relu2 &&
            (tailInY ||
             (onlyUsedFrom(yRoot, bias, {bias, op, add}) &&
              (relu2.getDpsInits()[0] == sum ||
               onlyUsedBy(sum, {add.getOperation(), relu2.getOperation()}))))) {
          residual = other;
          flags |= kConvRelu;
          erase.push_back(add);
          folded = relu2;
          foldedTarget = relu2.getDpsInits()[0];
        } else if (reshapeRoot(sum) == yRoot ||
                   onlyUsedFrom(yRoot, bias, {bias, op, add})) {
          residual = other;
          folded = add;
          foldedTarget = sum;
        }
      }
      biasBuffer = bias.getDpsInputs()[0];
      bias->erase();
    }
    // A folded op writing another buffer of Y's type: the call writes
    // there, at the folded op (only neutral ops in between; the target's
    // view may be defined there). X or the residual may overlap it (the
    // memory plan may place the target over an input that dies there): the
    // call then reads a copy of that input.
    Value out = match.y;
    Operation *at = op;
    if (folded && reshapeRoot(foldedTarget) != yRoot &&
        isDenseF32(foldedTarget) && foldedTarget.getType() == yRoot.getType()) {
      out = foldedTarget;
      at = folded;
    }
    // A Concat of this output (ConcatSlices.h): the call writes its slice.
    std::optional<ConcatSlice> slice;
    bool copiesAfter = folded && out == match.y &&
                       reshapeRoot(foldedTarget) != yRoot; // see below
    if (!(flags & kConvAccumulate) && !copiesAfter) {
      SmallVector<Operation *> writers = {op};
      if (folded)
        writers.push_back(folded);
      writers.append(erase.begin(), erase.end());
      slice = findConcatSlice(reshapeRoot(out), at, writers, sliceWrites);
    }
    OpBuilder b(at);
    Location loc = op.getLoc();
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 64);
    };
    auto dim = [&](Value buffer, int64_t d) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.isDynamicDim(d))
        return i64(type.getDimSize(d));
      return arith::IndexCastOp::create(
          b, loc, b.getI64Type(), memref::DimOp::create(b, loc, buffer, d));
    };
    auto mul = [&](Value x, Value y) -> Value {
      return arith::MulIOp::create(b, loc, x, y);
    };
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto pointer = [&](Value buffer) -> Value {
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
      return LLVM::IntToPtrOp::create(b, loc, ptr, address);
    };
    Value g = dim(match.y, 1);
    SmallVector<Value> dims = {dim(match.y, 0), mul(g, dim(match.x, 2)),
                               mul(g, dim(match.y, 2)), g};
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(xSource ? dim(xSource, 2 + i) : dim(match.x, 3 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(match.w, 3 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(dim(match.y, 3 + i));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(xSource ? pads[2 + i] : 0));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(match.strides[i]));
    for (int64_t i = 0; i < r; ++i)
      dims.push_back(i64(match.dilations[i]));
    if (flags & kConvClip) {
      // The bounds' float bits (onyx_cpu_conv.h).
      dims.push_back(i64(int64_t(llvm::bit_cast<uint32_t>(clipLo))));
      dims.push_back(i64(int64_t(llvm::bit_cast<uint32_t>(clipHi))));
    }
    Value spatial; // with a slice: the elements of one channel of B
    if (slice) {
      // B's images are B's channels * out... apart.
      spatial = i64(1);
      for (int64_t i = 0; i < r; ++i)
        spatial = mul(spatial, dim(slice->buffer, 2 + i));
      dims.push_back(mul(dim(slice->buffer, 1), spatial));
      flags |= ONYXRT_CONV_Y_IMAGE_STRIDE;
    }
    // y: the output, or channel c0 of B.
    auto yPointer = [&]() -> Value {
      if (!slice)
        return pointer(out);
      Value base = pointer(slice->buffer);
      // B's use here writes channels [c0, c1): later convolutions may
      // write other slices of B before this call's Concat copy would have
      // run (ConcatSlices.h).
      Operation *extract = base.getDefiningOp<LLVM::IntToPtrOp>()
                               .getArg()
                               .getDefiningOp<arith::IndexCastOp>()
                               .getIn()
                               .getDefiningOp();
      sliceWrites[extract] = {slice->channel, slice->channelEnd};
      return LLVM::GEPOp::create(b, loc, ptr, b.getF32Type(), base,
                                 ValueRange{mul(i64(slice->channel), spatial)});
    };
    Value array = LLVM::AllocaOp::create(b, loc, ptr, b.getI64Type(),
                                         i64(int64_t(dims.size())), 8);
    for (auto [i, value] : llvm::enumerate(dims)) {
      Value address = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), array,
                                          ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, value, address);
    }
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    func::CallOp::create(
        b, loc, declare(module),
        ValueRange{arith::ConstantIntOp::create(b, loc, flags, 32), i64(r),
                   array, pointer(xSource ? xSource : match.x),
                   pointer(match.w), biasBuffer ? pointer(biasBuffer) : null,
                   residual ? pointer(residual) : null, yPointer()});
    if (slice)
      slice->copy->erase();
    for (Operation *e : erase)
      e->erase();
    if (folded) {
      // Only neutral ops sat in between: the copy reads what the folded
      // op read.
      if (out == match.y && reshapeRoot(foldedTarget) != yRoot) {
        OpBuilder after(folded);
        memref::CopyOp::create(after, folded.getLoc(), yRoot, foldedTarget);
      }
      folded->erase();
    }
    op->erase();
  }
};

} // namespace
