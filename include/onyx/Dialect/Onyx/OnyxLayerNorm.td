//===- OnyxLayerNorm.td - The fused layer normalization op -*- tablegen -*-===//
//
// onyx.layer_norm: ONNX LayerNormalization (statistics in f32) as one op,
// formed from the onnx op by onyx-cuda-form-layer-norm and lowered by the
// CUDA target to one runtime kernel (onyx-cuda-lower-layer-norm). Declared
// apart from OnyxOps.td like onyx.attention, so that only its users
// include it (include/onyx/Dialect/Onyx/OnyxLayerNorm.h).
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONYX_ONYXLAYERNORM_TD
#define ONYX_DIALECT_ONYX_ONYXLAYERNORM_TD

include "onyx/Dialect/Onyx/OnyxOps.td"

def Onyx_LayerNormOp : Onyx_Op<"layer_norm", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "bufferizesToElementwiseAccess", "getAliasingValues",
         "bufferize"]>]> {
  let summary = "layer normalization over the trailing dims, f32 statistics";
  let description = [{
    With `input` of rank r viewed as rows x n (n the product of its dims
    from `axis` on, rows the product of the others), for every row:
    `v[j] = input[j]`, or with a `residual` (the input's dims)
    `v[j] = round(input[j] + residual[j])` rounded to the element type of
    `sum` (the input's type without one): the ONNX `Add` before the
    normalization, read in the same kernel;
    `mean = sum_j v[j] / n`, `var = sum_j (v[j] - mean)^2 / n`,
    `init[j] = (v[j] - mean) / sqrt(var + epsilon) * scale[j] + bias[j]`,
    all in f32 and rounded once to init's element type. `init2`
    (optional) receives the same f32 values rounded to its own type (the
    narrowing Cast of an f32 result that has other users too); `sum`
    (optional, only with a residual) receives `v` (the Add's result,
    when the graph uses it beyond the normalization). Every shaped operand
    is f32, f16 or bf16 (scale and bias one type). `scale` and `bias`
    (optional) have exactly the input's dims from `axis` on; the residual,
    `init`, `init2` and `sum` have the input's dims. On tensors the op
    returns the new values of init, init2 and sum, in that order, as many
    as it has destinations; on buffers nothing.
  }];
  let arguments = (ins AnyShaped:$input, Optional<AnyShaped>:$residual,
                   AnyShaped:$scale, Optional<AnyShaped>:$bias,
                   AnyShaped:$init, Optional<AnyShaped>:$init2,
                   Optional<AnyShaped>:$sum, F64Attr:$epsilon,
                   I64Attr:$axis);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `x` `(` $input `:` type($input) `)`
    (`residual` `(` $residual^ `:` type($residual) `)`)?
    `scale` `(` $scale `:` type($scale) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $init `:` type($init) `)`
    (`outs2` `(` $init2^ `:` type($init2) `)`)?
    (`sum` `(` $sum^ `:` type($sum) `)`)?
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    /// The destinations in result order: init, then init2 and sum when
    /// present.
    llvm::SmallVector<mlir::OpOperand *> getDestinations();
  }];
  let hasVerifier = 1;
}

#endif // ONYX_DIALECT_ONYX_ONYXLAYERNORM_TD
