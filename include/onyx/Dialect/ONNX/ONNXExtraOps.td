//===- ONNXExtraOps.td - onnx ops beyond the schemas ----*- tablegen -*-===//
//
// Ops of the `onnx` dialect that no ONNX schema defines but the dialect's
// conventions need: the `none` value of an absent optional input/output, the
// terminator of subgraph regions, and the DimAnalysis annotation.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONNX_ONNXEXTRAOPS_TD
#define ONYX_DIALECT_ONNX_ONNXEXTRAOPS_TD

include "onyx/Dialect/ONNX/ONNXBase.td"

def ONNXNoValueOp : ONNX_Op<"NoValue", [ConstantLike, Pure]> {
  let summary = "the absent value of an optional input or output";
  let description = [{
    Produces the `none` value that stands for an optional ONNX input the node
    does not have, e.g. the missing bias `C` of a Gemm:

    ```mlir
    %none = onnx.NoValue
    %y = "onnx.Gemm"(%a, %b, %none) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
    ```

    It is constant-like: it folds to a unit attribute, so canonicalization
    deduplicates and hoists it like any other constant, and the dialect's
    constant materializer recreates it.
  }];
  let arguments = (ins);
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getNoneType()); }]>
  ];
}

def ONNXYieldOp : ONNX_Op<"Yield", [Pure, Terminator,
    ParentOneOf<["ONNXIfOp", "ONNXLoopOp", "ONNXScanOp",
                 "ONNXSequenceMapOp"]>]> {
  let summary = "terminator of a subgraph region";
  let description = [{
    Ends the body of an `onnx.If` branch, `onnx.Loop`, `onnx.Scan` or
    `onnx.SequenceMap`; its operands are the subgraph's outputs in order.
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

def ONNXDimGroupOp : ONNX_Op<"DimGroup"> {
  let summary = "DimAnalysis annotation: this dimension is in that group";
  let description = [{
    Written by `--onnx-dim-analysis`: dimension `axis` (non-negative) of the
    operand belongs to the equality set `group_id`. Two `onnx.DimGroup` ops
    with the same `group_id` mean the analysis proved those dimensions equal
    at run time. Group ids are not stable across runs. It has no results and
    is kept by DCE; it does not change the semantics of the function.

    ```mlir
    "onnx.DimGroup"(%arg0) {axis = 0 : i64, group_id = 1 : i64} : (tensor<?x3xf32>) -> ()
    ```
  }];
  let arguments = (ins AnyTensor:$input, ONNX_I64Attr:$axis,
                       ONNX_I64Attr:$group_id);
  let results = (outs);
  let hasVerifier = 1;
}

#endif // ONYX_DIALECT_ONNX_ONNXEXTRAOPS_TD
