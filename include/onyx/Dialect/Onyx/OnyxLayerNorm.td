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
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let summary = "layer normalization over the trailing dims, f32 statistics";
  let description = [{
    With `input` of rank r viewed as rows x n (n the product of its dims
    from `axis` on, rows the product of the others), for every row:
    `mean = sum_j x[j] / n`, `var = sum_j (x[j] - mean)^2 / n`,
    `init[j] = (x[j] - mean) / sqrt(var + epsilon) * scale[j] + bias[j]`,
    all in f32 and rounded once to init's element type. `input`, `init`,
    `scale` and `bias` are f32, f16 or bf16 each (scale and bias one type):
    the op absorbs the widening Cast before an f32 LayerNormalization and
    the narrowing Cast after it. `scale` and `bias` (optional) have exactly
    the input's dims from `axis` on; `init` has the input's dims. On tensors
    the op returns init's new value.
  }];
  let arguments = (ins AnyShaped:$input, AnyShaped:$scale,
                   Optional<AnyShaped>:$bias, AnyShaped:$init,
                   F64Attr:$epsilon, I64Attr:$axis);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    `x` `(` $input `:` type($input) `)` `scale` `(` $scale `:` type($scale) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];
  let hasVerifier = 1;
}

#endif // ONYX_DIALECT_ONYX_ONYXLAYERNORM_TD
