//===- ConvMatchers.h - Matchers of onyx-cpu-lower-convolutions -*- C++ -*-===//
//
// The IR shapes onyx-cpu-lower-convolutions (LowerConvolutions.cpp) turns
// into runtime calls, after bufferization: the Conv and MaxPool lowerings'
// generics and the generics around them that fold into the calls (bias
// broadcast, Relu / Clip, residual Add, zero fill, padding). Defined in
// ConvMatchers.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_TARGET_CPU_CONVMATCHERS_H
#define ONYX_LIB_TARGET_CPU_CONVMATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <utility>

namespace onyx::cpu_conv {

using mlir::ArrayRef;
using mlir::Operation;
using mlir::SmallVector;
using mlir::Value;
namespace linalg = mlir::linalg;

/// The Conv lowering's grouped generic (LowerConvolutions.cpp's header):
/// X [N, G, C, in...], W [G, M, C, k...], Y [N, G, M, out...] and the
/// spatial rank, strides and dilations.
struct ConvMatch {
  Value x, w, y;
  int64_t rank = 0;
  SmallVector<int64_t> strides, dilations;
};

/// The MaxPool lowering's window generic: ins(X, window) outs(Y), loops
/// (n, c, out..., taps...), X[n, c, o * s + t * d], window[t...],
/// Y[n, c, o...], `yield maximumf(out, x)`; dense f32 X and Y, a static
/// window of rank 1-3.
struct PoolMatch {
  Value x, y;
  int64_t rank = 0;
  SmallVector<int64_t> kernel, strides, dilations;
};

/// A dense f32 buffer with the identity layout: a plain pointer.
bool isDenseF32(Value buffer);

/// The buffer `buffer` is an expand_shape / collapse_shape view of.
Value reshapeRoot(Value buffer);

/// The convolution generic, or nullopt.
std::optional<ConvMatch> matchConv(linalg::GenericOp op);

/// Whether `buffer` is read only by `allowed` (and dims, and views only
/// they use).
bool onlyUsedBy(Value buffer, ArrayRef<Operation *> allowed);

/// Whether `buffer` is used only by `allowed` (and dims, and views only
/// they use) from `start` on: every other user sits before `start` in its
/// block (e.g. the ops that computed the buffer's previous contents, which
/// `start`, the write of the convolution's result, replaces).
bool onlyUsedFrom(Value buffer, Operation *start,
                  ArrayRef<Operation *> allowed);

/// The Conv lowering's bias broadcast into `out` (`yield %bias[c]`) right
/// before the convolution.
linalg::GenericOp findBiasBroadcast(Operation *conv, Value out);

/// ONNX Relu of `out` right after `after`: a generic `max(in, 0)` from
/// `out` into a buffer of the same type.
linalg::GenericOp findRelu(Operation *after, Value out);

/// ONNX Clip of `out` right after `after` with constant bounds: a generic
/// `minimumf(maximumf(in, lo), hi)` from `out` into a buffer of the same
/// type (the NaN-propagating forms only: the call keeps NaN).
linalg::GenericOp findClip(Operation *after, Value out, float &lo, float &hi);

/// Whether `size` is the extent of dim `d` of `buffer` (a static size, a
/// memref.dim of it, or the size its allocation or view was given).
bool isExtent(Value size, Value buffer, int64_t d);

/// The Conv lowering's zero padding of the convolution's input: the generic
/// right before `conv` (past neutral ops and `bias`) writing all of `padded`
/// (dims [N, C, spatial...]) as
///   select(in bounds, src[n, c, i - p...] (indices clamped), 0)
/// with a dense `src` of the same N and C (a dim without a begin pad reads
/// the clamped `i`). Returns it with `src` and the begin pad of each dim.
/// With `fill`, the padding value may be any f32 constant (the MaxPool
/// lowering's -inf), returned there. Any float element type (src's the
/// same as padded's); with `channelsLast` the dims are [N, spatial..., C]
/// (the CUDA target's NHWC convolutions).
linalg::GenericOp findPadding(Operation *conv, Operation *bias, Value padded,
                              Value &src, SmallVector<int64_t> &pads,
                              std::optional<float> *fill = nullptr,
                              bool channelsLast = false);

/// The residual Add right after the convolution: an elementwise generic
/// writing `out = y + r` (or r + y), `r` a buffer of y's type and dims.
/// The Add lowering reads its operands with run-time broadcast selects,
/// `select(dim == 1, 0, i)`, the identity when the dims are the output's.
std::pair<linalg::GenericOp, Value> findResidualAdd(Operation *conv, Value y);

/// A zero linalg.fill of exactly `out` right before `op` (nothing in
/// between writes tensor data) is erased: the call overwrites.
bool absorbZeroFill(Operation *op, Value out);

std::optional<PoolMatch> matchMaxPool(linalg::GenericOp op);

/// A linalg.fill of exactly `out` with an f32 constant right before `op`
/// (nothing in between writes tensor data): erased, its value returned.
std::optional<float> absorbFill(Operation *op, Value out);

} // namespace onyx::cpu_conv

#endif // ONYX_LIB_TARGET_CPU_CONVMATCHERS_H
