//===- OnyxAttention.td - The fused attention op -----------*- tablegen -*-===//
//
// onyx.attention: softmax(scale * Q K^T + mask) V as one op, formed on
// tensors by onyx-fuse-attention and lowered by a backend (the CUDA target:
// onyx-cuda-lower-attention, a flash-attention kernel of the runtime). Kept
// out of OnyxOps.td so that only the files that build or lower it include
// its declaration (include/onyx/Dialect/Onyx/OnyxAttention.h).
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONYX_ONYXATTENTION_TD
#define ONYX_DIALECT_ONYX_ONYXATTENTION_TD

include "onyx/Dialect/Onyx/OnyxOps.td"

def Onyx_AttentionOp : Onyx_Op<"attention", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let summary = "fused scaled dot-product attention with an additive mask";
  let description = [{
    `out[b, h, i, e] = sum_j p[b, h, i, j] * V[b, h / g, j, e]` with
    `p[b, h, i, :] = softmax_j(scale * sum_d Q[b, h, i, d] * K[b, h / g, j, d]
    + mask[b, h, i, j])`, where `g` = `kv_group` (grouped-query attention:
    `g` query heads share one key/value head).

    `query`, `key` and `value` are rank-4 tensors (or buffers) in any dim
    order: `query_dims` names the operand dim that holds the logical batch,
    head, sequence and depth dim (`[0, 1, 2, 3]` for `[B, H, S, D]`,
    `[0, 2, 1, 3]` for `[B, S, H, D]`); so do `key_dims` and `value_dims`.
    `mask` (optional) has rank 1 to 4 and is either additive (f32 or the
    operands' type: `+ mask[b, h, i, j]`) or, with `mask_fill`, an i1 select
    (ONNX Where: the score becomes `mask_fill` where the mask is false, or
    where it is true with `mask_fill_where_true`); `mask_dims`
    names, for logical batch, head, query and key, the mask dim holding it
    or -1 where the mask has none (a mask dim no entry names has the static
    extent 1). A dim of extent 1 broadcasts (the ONNX
    lowering's checks admit only 1 or the full extent). `init` is the
    destination, `[B, H, Sq, Dv]` or, with `out_dims` (the init dim holding
    the logical batch, head, query and depth dim), any order of those:
    `[0, 2, 1, 3]` writes the heads merged, `[B, Sq, H, Dv]`, as the
    exporters' Transpose after attention does; on tensors the op returns
    init's new value.

    `causal_shift` (optional, with an i1 `mask_fill` mask, fill where
    false) records a proven fact about the mask: at its query index `i'`
    and key index `j'` it holds `j' <= i' + causal_shift` (GPT-2's causal
    mask built from `Range`s, onyx-cuda-causal-mask). A backend may compute
    it instead of reading it; where the mask broadcasts (extent 1), `i'` or
    `j'` is 0, so the result is the same either way.

    `head_offsets` (optional: query, key, value) says where each operand's
    heads start in its head dim: logical head `h` of the query is operand
    head `h + head_offsets[0]` (key and value: `h / g + head_offsets[1|2]`),
    so that Q, K and V may be one projection's output read in place
    (onyx-cuda-fold-head-split), the operand's head extent then larger than
    the heads it contributes.
  }];
  let arguments = (ins AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
                   Optional<AnyShaped>:$mask, AnyShaped:$init,
                   F64Attr:$scale, DenseI64ArrayAttr:$query_dims,
                   DenseI64ArrayAttr:$key_dims, DenseI64ArrayAttr:$value_dims,
                   DenseI64ArrayAttr:$mask_dims, I64Attr:$kv_group,
                   OptionalAttr<F64Attr>:$mask_fill,
                   UnitAttr:$mask_fill_where_true,
                   OptionalAttr<DenseI64ArrayAttr>:$out_dims,
                   OptionalAttr<DenseI64ArrayAttr>:$head_offsets,
                   OptionalAttr<I64Attr>:$causal_shift);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    `q` `(` $query `:` type($query) `)` `k` `(` $key `:` type($key) `)`
    `v` `(` $value `:` type($value) `)`
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The init dim of the logical batch, head, query and depth dim
    /// (`out_dims`, [0, 1, 2, 3] when absent).
    llvm::SmallVector<int64_t, 4> getOutDimsOrIdentity() {
      if (auto dims = getOutDims())
        return llvm::SmallVector<int64_t, 4>(dims->begin(), dims->end());
      return {0, 1, 2, 3};
    }
    /// The first head of query, key and value in their head dims
    /// (`head_offsets`, zeros when absent).
    llvm::SmallVector<int64_t, 3> getHeadOffsetsOrZero() {
      if (auto offsets = getHeadOffsets())
        return llvm::SmallVector<int64_t, 3>(offsets->begin(),
                                             offsets->end());
      return {0, 0, 0};
    }
  }];
}

#endif // ONYX_DIALECT_ONYX_ONYXATTENTION_TD
