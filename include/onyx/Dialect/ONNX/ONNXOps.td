//===- ONNXOps.td - ONNX operators from the schemas ------*- tablegen -*-===//
//
// GENERATED FILE: do not edit by hand. It is checked in and regenerated
// after changing utils/gen_onnx_ops.py or the schema dump
// utils/onnx_schemas.json:
//
//   python3 utils/gen_onnx_ops.py
//
// Source: onnx 1.23.1 schema dump, domain ai.onnx, newest schema of
// each operator (opset 28), 203 operators. Hand-written parts of
// the dialect (dialect, types, onnx.NoValue/Yield/DimGroup) are in
// ONNXBase.td and ONNXExtraOps.td. Conventions: docs/onnx-dialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONNX_ONNXOPS_TD
#define ONYX_DIALECT_ONNX_ONNXOPS_TD

include "onyx/Dialect/ONNX/ONNXBase.td"
include "onyx/Dialect/ONNX/ONNXExtraOps.td"


//===----------------------------------------------------------------------===//
// Abs
//===----------------------------------------------------------------------===//

def ONNXAbsOp : ONNX_Op<"Abs"> {
  let summary = "ONNX Abs operation";
  let description = [{
    ONNX `Abs`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Acos
//===----------------------------------------------------------------------===//

def ONNXAcosOp : ONNX_Op<"Acos"> {
  let summary = "ONNX Acos operation";
  let description = [{
    ONNX `Acos`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Acosh
//===----------------------------------------------------------------------===//

def ONNXAcoshOp : ONNX_Op<"Acosh"> {
  let summary = "ONNX Acosh operation";
  let description = [{
    ONNX `Acosh`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Add
//===----------------------------------------------------------------------===//

def ONNXAddOp : ONNX_Op<"Add"> {
  let summary = "ONNX Add operation";
  let description = [{
    ONNX `Add`, opset 14 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// AffineGrid
//===----------------------------------------------------------------------===//

def ONNXAffineGridOp : ONNX_Op<"AffineGrid"> {
  let summary = "ONNX AffineGrid operation";
  let description = [{
    ONNX `AffineGrid`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$theta,
    AnyTensor:$size,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$align_corners);
  let results = (outs AnyTensor:$grid);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// And
//===----------------------------------------------------------------------===//

def ONNXAndOp : ONNX_Op<"And"> {
  let summary = "ONNX And operation";
  let description = [{
    ONNX `And`, opset 7 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 7;
  }];
}

//===----------------------------------------------------------------------===//
// ArgMax
//===----------------------------------------------------------------------===//

def ONNXArgMaxOp : ONNX_Op<"ArgMax"> {
  let summary = "ONNX ArgMax operation";
  let description = [{
    ONNX `ArgMax`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$select_last_index);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// ArgMin
//===----------------------------------------------------------------------===//

def ONNXArgMinOp : ONNX_Op<"ArgMin"> {
  let summary = "ONNX ArgMin operation";
  let description = [{
    ONNX `ArgMin`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$select_last_index);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Asin
//===----------------------------------------------------------------------===//

def ONNXAsinOp : ONNX_Op<"Asin"> {
  let summary = "ONNX Asin operation";
  let description = [{
    ONNX `Asin`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Asinh
//===----------------------------------------------------------------------===//

def ONNXAsinhOp : ONNX_Op<"Asinh"> {
  let summary = "ONNX Asinh operation";
  let description = [{
    ONNX `Asinh`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Atan
//===----------------------------------------------------------------------===//

def ONNXAtanOp : ONNX_Op<"Atan"> {
  let summary = "ONNX Atan operation";
  let description = [{
    ONNX `Atan`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Atanh
//===----------------------------------------------------------------------===//

def ONNXAtanhOp : ONNX_Op<"Atanh"> {
  let summary = "ONNX Atanh operation";
  let description = [{
    ONNX `Atanh`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def ONNXAttentionOp : ONNX_Op<"Attention"> {
  let summary = "ONNX Attention operation";
  let description = [{
    ONNX `Attention`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$Q,
    AnyTensor:$K,
    AnyTensor:$V,
    ONNX_TensorOrNone:$attn_mask,
    ONNX_TensorOrNone:$past_key,
    ONNX_TensorOrNone:$past_value,
    ONNX_TensorOrNone:$nonpad_kv_seqlen,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$is_causal,
    OptionalAttr<ONNX_I64Attr>:$kv_num_heads,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$left_window_size,
    OptionalAttr<ONNX_I64Attr>:$q_num_heads,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$qk_matmul_output_mode,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$right_window_size,
    OptionalAttr<F32Attr>:$scale,
    DefaultValuedAttr<F32Attr, "0.0">:$softcap,
    OptionalAttr<ONNX_I64Attr>:$softmax_precision);
  let results = (outs
    AnyTensor:$Y,
    ONNX_TensorOrNone:$present_key,
    ONNX_TensorOrNone:$present_value,
    ONNX_TensorOrNone:$qk_matmul_output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// AveragePool
//===----------------------------------------------------------------------===//

def ONNXAveragePoolOp : ONNX_Op<"AveragePool"> {
  let summary = "ONNX AveragePool operation";
  let description = [{
    ONNX `AveragePool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$count_include_pad,
    OptionalAttr<I64ArrayAttr>:$dilations,
    I64ArrayAttr:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

def ONNXBatchNormalizationOp : ONNX_Op<"BatchNormalization"> {
  let summary = "ONNX BatchNormalization operation";
  let description = [{
    ONNX `BatchNormalization`, opset 15 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$scale,
    AnyTensor:$B,
    AnyTensor:$input_mean,
    AnyTensor:$input_var,
    DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
    DefaultValuedAttr<F32Attr, "0.9">:$momentum,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$training_mode);
  let results = (outs
    AnyTensor:$Y,
    ONNX_TensorOrNone:$running_mean,
    ONNX_TensorOrNone:$running_var);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 15;
  }];
}

//===----------------------------------------------------------------------===//
// Bernoulli
//===----------------------------------------------------------------------===//

def ONNXBernoulliOp : ONNX_Op<"Bernoulli"> {
  let summary = "ONNX Bernoulli operation";
  let description = [{
    ONNX `Bernoulli`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    OptionalAttr<ONNX_I64Attr>:$dtype,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// BitCast
//===----------------------------------------------------------------------===//

def ONNXBitCastOp : ONNX_Op<"BitCast"> {
  let summary = "ONNX BitCast operation";
  let description = [{
    ONNX `BitCast`, opset 26 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_I64Attr:$to);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 26;
  }];
}

//===----------------------------------------------------------------------===//
// BitShift
//===----------------------------------------------------------------------===//

def ONNXBitShiftOp : ONNX_Op<"BitShift"> {
  let summary = "ONNX BitShift operation";
  let description = [{
    ONNX `BitShift`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$Y,
    StrAttr:$direction);
  let results = (outs AnyTensor:$Z);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// BitwiseAnd
//===----------------------------------------------------------------------===//

def ONNXBitwiseAndOp : ONNX_Op<"BitwiseAnd"> {
  let summary = "ONNX BitwiseAnd operation";
  let description = [{
    ONNX `BitwiseAnd`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// BitwiseNot
//===----------------------------------------------------------------------===//

def ONNXBitwiseNotOp : ONNX_Op<"BitwiseNot"> {
  let summary = "ONNX BitwiseNot operation";
  let description = [{
    ONNX `BitwiseNot`, opset 18 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// BitwiseOr
//===----------------------------------------------------------------------===//

def ONNXBitwiseOrOp : ONNX_Op<"BitwiseOr"> {
  let summary = "ONNX BitwiseOr operation";
  let description = [{
    ONNX `BitwiseOr`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// BitwiseXor
//===----------------------------------------------------------------------===//

def ONNXBitwiseXorOp : ONNX_Op<"BitwiseXor"> {
  let summary = "ONNX BitwiseXor operation";
  let description = [{
    ONNX `BitwiseXor`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// BlackmanWindow
//===----------------------------------------------------------------------===//

def ONNXBlackmanWindowOp : ONNX_Op<"BlackmanWindow"> {
  let summary = "ONNX BlackmanWindow operation";
  let description = [{
    ONNX `BlackmanWindow`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$size,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$output_datatype,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$periodic);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

def ONNXCastOp : ONNX_Op<"Cast"> {
  let summary = "ONNX Cast operation";
  let description = [{
    ONNX `Cast`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<StrAttr, "\"up\"">:$round_mode,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$saturate,
    ONNX_I64Attr:$to);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// CastLike
//===----------------------------------------------------------------------===//

def ONNXCastLikeOp : ONNX_Op<"CastLike"> {
  let summary = "ONNX CastLike operation";
  let description = [{
    ONNX `CastLike`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$target_type,
    DefaultValuedAttr<StrAttr, "\"up\"">:$round_mode,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// CausalConvWithState
//===----------------------------------------------------------------------===//

def ONNXCausalConvWithStateOp : ONNX_Op<"CausalConvWithState"> {
  let summary = "ONNX CausalConvWithState operation";
  let description = [{
    ONNX `CausalConvWithState`, opset 27 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$weight,
    ONNX_TensorOrNone:$bias,
    ONNX_TensorOrNone:$past_state,
    DefaultValuedAttr<StrAttr, "\"none\"">:$activation);
  let results = (outs
    AnyTensor:$output,
    AnyTensor:$present_state);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 27;
  }];
}

//===----------------------------------------------------------------------===//
// Ceil
//===----------------------------------------------------------------------===//

def ONNXCeilOp : ONNX_Op<"Ceil"> {
  let summary = "ONNX Ceil operation";
  let description = [{
    ONNX `Ceil`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Celu
//===----------------------------------------------------------------------===//

def ONNXCeluOp : ONNX_Op<"Celu"> {
  let summary = "ONNX Celu operation";
  let description = [{
    ONNX `Celu`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// CenterCropPad
//===----------------------------------------------------------------------===//

def ONNXCenterCropPadOp : ONNX_Op<"CenterCropPad"> {
  let summary = "ONNX CenterCropPad operation";
  let description = [{
    ONNX `CenterCropPad`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input_data,
    AnyTensor:$shape,
    OptionalAttr<I64ArrayAttr>:$axes);
  let results = (outs AnyTensor:$output_data);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// Clip
//===----------------------------------------------------------------------===//

def ONNXClipOp : ONNX_Op<"Clip"> {
  let summary = "ONNX Clip operation";
  let description = [{
    ONNX `Clip`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_TensorOrNone:$min,
    ONNX_TensorOrNone:$max);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Col2Im
//===----------------------------------------------------------------------===//

def ONNXCol2ImOp : ONNX_Op<"Col2Im"> {
  let summary = "ONNX Col2Im operation";
  let description = [{
    ONNX `Col2Im`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$image_shape,
    AnyTensor:$block_shape,
    OptionalAttr<I64ArrayAttr>:$dilations,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// Compress
//===----------------------------------------------------------------------===//

def ONNXCompressOp : ONNX_Op<"Compress"> {
  let summary = "ONNX Compress operation";
  let description = [{
    ONNX `Compress`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$condition,
    OptionalAttr<ONNX_I64Attr>:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

def ONNXConcatOp : ONNX_Op<"Concat"> {
  let summary = "ONNX Concat operation";
  let description = [{
    ONNX `Concat`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    Variadic<AnyTensor>:$inputs,
    ONNX_I64Attr:$axis);
  let results = (outs AnyTensor:$concat_result);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// ConcatFromSequence
//===----------------------------------------------------------------------===//

def ONNXConcatFromSequenceOp : ONNX_Op<"ConcatFromSequence"> {
  let summary = "ONNX ConcatFromSequence operation";
  let description = [{
    ONNX `ConcatFromSequence`, opset 11 (ai.onnx).
  }];
  let arguments = (ins
    ONNX_SeqType:$input_sequence,
    ONNX_I64Attr:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$new_axis);
  let results = (outs AnyTensor:$concat_result);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def ONNXConstantOp : ONNX_Op<"Constant"> {
  let summary = "ONNX Constant operation";
  let description = [{
    ONNX `Constant`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    OptionalAttr<AnyAttr>:$sparse_value,
    OptionalAttr<ElementsAttr>:$value,
    OptionalAttr<F32Attr>:$value_float,
    OptionalAttr<F32ArrayAttr>:$value_floats,
    OptionalAttr<ONNX_I64Attr>:$value_int,
    OptionalAttr<I64ArrayAttr>:$value_ints,
    OptionalAttr<StrAttr>:$value_string,
    OptionalAttr<StrArrayAttr>:$value_strings);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// ConstantOfShape
//===----------------------------------------------------------------------===//

def ONNXConstantOfShapeOp : ONNX_Op<"ConstantOfShape"> {
  let summary = "ONNX ConstantOfShape operation";
  let description = [{
    ONNX `ConstantOfShape`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    OptionalAttr<ElementsAttr>:$value);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

def ONNXConvOp : ONNX_Op<"Conv"> {
  let summary = "ONNX Conv operation";
  let description = [{
    ONNX `Conv`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$W,
    ONNX_TensorOrNone:$B,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// ConvInteger
//===----------------------------------------------------------------------===//

def ONNXConvIntegerOp : ONNX_Op<"ConvInteger"> {
  let summary = "ONNX ConvInteger operation";
  let description = [{
    ONNX `ConvInteger`, opset 10 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$x,
    AnyTensor:$w,
    ONNX_TensorOrNone:$x_zero_point,
    ONNX_TensorOrNone:$w_zero_point,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 10;
  }];
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

def ONNXConvTransposeOp : ONNX_Op<"ConvTranspose"> {
  let summary = "ONNX ConvTranspose operation";
  let description = [{
    ONNX `ConvTranspose`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$W,
    ONNX_TensorOrNone:$B,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$output_padding,
    OptionalAttr<I64ArrayAttr>:$output_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Cos
//===----------------------------------------------------------------------===//

def ONNXCosOp : ONNX_Op<"Cos"> {
  let summary = "ONNX Cos operation";
  let description = [{
    ONNX `Cos`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Cosh
//===----------------------------------------------------------------------===//

def ONNXCoshOp : ONNX_Op<"Cosh"> {
  let summary = "ONNX Cosh operation";
  let description = [{
    ONNX `Cosh`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// CumProd
//===----------------------------------------------------------------------===//

def ONNXCumProdOp : ONNX_Op<"CumProd"> {
  let summary = "ONNX CumProd operation";
  let description = [{
    ONNX `CumProd`, opset 26 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$x,
    AnyTensor:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$exclusive,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$reverse);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 26;
  }];
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

def ONNXCumSumOp : ONNX_Op<"CumSum"> {
  let summary = "ONNX CumSum operation";
  let description = [{
    ONNX `CumSum`, opset 14 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$x,
    AnyTensor:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$exclusive,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$reverse);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

def ONNXDFTOp : ONNX_Op<"DFT"> {
  let summary = "ONNX DFT operation";
  let description = [{
    ONNX `DFT`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_TensorOrNone:$dft_length,
    ONNX_TensorOrNone:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$inverse,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$onesided);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// DeformConv
//===----------------------------------------------------------------------===//

def ONNXDeformConvOp : ONNX_Op<"DeformConv"> {
  let summary = "ONNX DeformConv operation";
  let description = [{
    ONNX `DeformConv`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$W,
    AnyTensor:$offset,
    ONNX_TensorOrNone:$B,
    ONNX_TensorOrNone:$mask,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$offset_group,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// DepthToSpace
//===----------------------------------------------------------------------===//

def ONNXDepthToSpaceOp : ONNX_Op<"DepthToSpace"> {
  let summary = "ONNX DepthToSpace operation";
  let description = [{
    ONNX `DepthToSpace`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_I64Attr:$blocksize,
    DefaultValuedAttr<StrAttr, "\"DCR\"">:$mode);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// DequantizeLinear
//===----------------------------------------------------------------------===//

def ONNXDequantizeLinearOp : ONNX_Op<"DequantizeLinear"> {
  let summary = "ONNX DequantizeLinear operation";
  let description = [{
    ONNX `DequantizeLinear`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$x,
    AnyTensor:$x_scale,
    ONNX_TensorOrNone:$x_zero_point,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$block_size,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$output_dtype);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Det
//===----------------------------------------------------------------------===//

def ONNXDetOp : ONNX_Op<"Det"> {
  let summary = "ONNX Det operation";
  let description = [{
    ONNX `Det`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Div
//===----------------------------------------------------------------------===//

def ONNXDivOp : ONNX_Op<"Div"> {
  let summary = "ONNX Div operation";
  let description = [{
    ONNX `Div`, opset 14 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def ONNXDropoutOp : ONNX_Op<"Dropout"> {
  let summary = "ONNX Dropout operation";
  let description = [{
    ONNX `Dropout`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$ratio,
    ONNX_TensorOrNone:$training_mode,
    OptionalAttr<ONNX_I64Attr>:$seed);
  let results = (outs
    AnyTensor:$output,
    ONNX_TensorOrNone:$mask);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

def ONNXDynamicQuantizeLinearOp : ONNX_Op<"DynamicQuantizeLinear"> {
  let summary = "ONNX DynamicQuantizeLinear operation";
  let description = [{
    ONNX `DynamicQuantizeLinear`, opset 11 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$x);
  let results = (outs
    AnyTensor:$y,
    AnyTensor:$y_scale,
    AnyTensor:$y_zero_point);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

def ONNXEinsumOp : ONNX_Op<"Einsum"> {
  let summary = "ONNX Einsum operation";
  let description = [{
    ONNX `Einsum`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    Variadic<AnyTensor>:$Inputs,
    StrAttr:$equation);
  let results = (outs AnyTensor:$Output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Elu
//===----------------------------------------------------------------------===//

def ONNXEluOp : ONNX_Op<"Elu"> {
  let summary = "ONNX Elu operation";
  let description = [{
    ONNX `Elu`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Equal
//===----------------------------------------------------------------------===//

def ONNXEqualOp : ONNX_Op<"Equal"> {
  let summary = "ONNX Equal operation";
  let description = [{
    ONNX `Equal`, opset 19 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 19;
  }];
}

//===----------------------------------------------------------------------===//
// Erf
//===----------------------------------------------------------------------===//

def ONNXErfOp : ONNX_Op<"Erf"> {
  let summary = "ONNX Erf operation";
  let description = [{
    ONNX `Erf`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Exp
//===----------------------------------------------------------------------===//

def ONNXExpOp : ONNX_Op<"Exp"> {
  let summary = "ONNX Exp operation";
  let description = [{
    ONNX `Exp`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Expand
//===----------------------------------------------------------------------===//

def ONNXExpandOp : ONNX_Op<"Expand"> {
  let summary = "ONNX Expand operation";
  let description = [{
    ONNX `Expand`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$shape);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// EyeLike
//===----------------------------------------------------------------------===//

def ONNXEyeLikeOp : ONNX_Op<"EyeLike"> {
  let summary = "ONNX EyeLike operation";
  let description = [{
    ONNX `EyeLike`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    OptionalAttr<ONNX_I64Attr>:$dtype,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$k);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Flatten
//===----------------------------------------------------------------------===//

def ONNXFlattenOp : ONNX_Op<"Flatten"> {
  let summary = "ONNX Flatten operation";
  let description = [{
    ONNX `Flatten`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Floor
//===----------------------------------------------------------------------===//

def ONNXFloorOp : ONNX_Op<"Floor"> {
  let summary = "ONNX Floor operation";
  let description = [{
    ONNX `Floor`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// GRU
//===----------------------------------------------------------------------===//

def ONNXGRUOp : ONNX_Op<"GRU"> {
  let summary = "ONNX GRU operation";
  let description = [{
    ONNX `GRU`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$W,
    AnyTensor:$R,
    ONNX_TensorOrNone:$B,
    ONNX_TensorOrNone:$sequence_lens,
    ONNX_TensorOrNone:$initial_h,
    OptionalAttr<F32ArrayAttr>:$activation_alpha,
    OptionalAttr<F32ArrayAttr>:$activation_beta,
    OptionalAttr<StrArrayAttr>:$activations,
    OptionalAttr<F32Attr>:$clip,
    DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
    OptionalAttr<ONNX_I64Attr>:$hidden_size,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$layout,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$linear_before_reset);
  let results = (outs
    ONNX_TensorOrNone:$Y,
    ONNX_TensorOrNone:$Y_h);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

def ONNXGatherOp : ONNX_Op<"Gather"> {
  let summary = "ONNX Gather operation";
  let description = [{
    ONNX `Gather`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$indices,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// GatherElements
//===----------------------------------------------------------------------===//

def ONNXGatherElementsOp : ONNX_Op<"GatherElements"> {
  let summary = "ONNX GatherElements operation";
  let description = [{
    ONNX `GatherElements`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$indices,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// GatherND
//===----------------------------------------------------------------------===//

def ONNXGatherNDOp : ONNX_Op<"GatherND"> {
  let summary = "ONNX GatherND operation";
  let description = [{
    ONNX `GatherND`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$indices,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$batch_dims);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Gelu
//===----------------------------------------------------------------------===//

def ONNXGeluOp : ONNX_Op<"Gelu"> {
  let summary = "ONNX Gelu operation";
  let description = [{
    ONNX `Gelu`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// Gemm
//===----------------------------------------------------------------------===//

def ONNXGemmOp : ONNX_Op<"Gemm"> {
  let summary = "ONNX Gemm operation";
  let description = [{
    ONNX `Gemm`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B,
    ONNX_TensorOrNone:$C,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha,
    DefaultValuedAttr<F32Attr, "1.0">:$beta,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$transA,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$transB);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// GlobalAveragePool
//===----------------------------------------------------------------------===//

def ONNXGlobalAveragePoolOp : ONNX_Op<"GlobalAveragePool"> {
  let summary = "ONNX GlobalAveragePool operation";
  let description = [{
    ONNX `GlobalAveragePool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// GlobalLpPool
//===----------------------------------------------------------------------===//

def ONNXGlobalLpPoolOp : ONNX_Op<"GlobalLpPool"> {
  let summary = "ONNX GlobalLpPool operation";
  let description = [{
    ONNX `GlobalLpPool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<ONNX_I64Attr, "2">:$p);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// GlobalMaxPool
//===----------------------------------------------------------------------===//

def ONNXGlobalMaxPoolOp : ONNX_Op<"GlobalMaxPool"> {
  let summary = "ONNX GlobalMaxPool operation";
  let description = [{
    ONNX `GlobalMaxPool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Greater
//===----------------------------------------------------------------------===//

def ONNXGreaterOp : ONNX_Op<"Greater"> {
  let summary = "ONNX Greater operation";
  let description = [{
    ONNX `Greater`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// GreaterOrEqual
//===----------------------------------------------------------------------===//

def ONNXGreaterOrEqualOp : ONNX_Op<"GreaterOrEqual"> {
  let summary = "ONNX GreaterOrEqual operation";
  let description = [{
    ONNX `GreaterOrEqual`, opset 16 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 16;
  }];
}

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

def ONNXGridSampleOp : ONNX_Op<"GridSample"> {
  let summary = "ONNX GridSample operation";
  let description = [{
    ONNX `GridSample`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$grid,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$align_corners,
    DefaultValuedAttr<StrAttr, "\"linear\"">:$mode,
    DefaultValuedAttr<StrAttr, "\"zeros\"">:$padding_mode);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// GroupNormalization
//===----------------------------------------------------------------------===//

def ONNXGroupNormalizationOp : ONNX_Op<"GroupNormalization"> {
  let summary = "ONNX GroupNormalization operation";
  let description = [{
    ONNX `GroupNormalization`, opset 21 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$scale,
    AnyTensor:$bias,
    DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
    ONNX_I64Attr:$num_groups,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 21;
  }];
}

//===----------------------------------------------------------------------===//
// HammingWindow
//===----------------------------------------------------------------------===//

def ONNXHammingWindowOp : ONNX_Op<"HammingWindow"> {
  let summary = "ONNX HammingWindow operation";
  let description = [{
    ONNX `HammingWindow`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$size,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$output_datatype,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$periodic);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// HannWindow
//===----------------------------------------------------------------------===//

def ONNXHannWindowOp : ONNX_Op<"HannWindow"> {
  let summary = "ONNX HannWindow operation";
  let description = [{
    ONNX `HannWindow`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$size,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$output_datatype,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$periodic);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// HardSigmoid
//===----------------------------------------------------------------------===//

def ONNXHardSigmoidOp : ONNX_Op<"HardSigmoid"> {
  let summary = "ONNX HardSigmoid operation";
  let description = [{
    ONNX `HardSigmoid`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "0.2">:$alpha,
    DefaultValuedAttr<F32Attr, "0.5">:$beta);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// HardSwish
//===----------------------------------------------------------------------===//

def ONNXHardSwishOp : ONNX_Op<"HardSwish"> {
  let summary = "ONNX HardSwish operation";
  let description = [{
    ONNX `HardSwish`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Hardmax
//===----------------------------------------------------------------------===//

def ONNXHardmaxOp : ONNX_Op<"Hardmax"> {
  let summary = "ONNX Hardmax operation";
  let description = [{
    ONNX `Hardmax`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Identity
//===----------------------------------------------------------------------===//

def ONNXIdentityOp : ONNX_Op<"Identity"> {
  let summary = "ONNX Identity operation";
  let description = [{
    ONNX `Identity`, opset 25 (ai.onnx).
  }];
  let arguments = (ins AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType]>:$input);
  let results = (outs AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType]>:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

def ONNXIfOp : ONNX_Op<"If"> {
  let summary = "ONNX If operation";
  let description = [{
    ONNX `If`, opset 25 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$cond);
  let results = (outs
    Variadic<AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType]>>:$outputs);
  let regions = (region
    SizedRegion<1>:$then_branch,
    SizedRegion<1>:$else_branch);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// ImageDecoder
//===----------------------------------------------------------------------===//

def ONNXImageDecoderOp : ONNX_Op<"ImageDecoder"> {
  let summary = "ONNX ImageDecoder operation";
  let description = [{
    ONNX `ImageDecoder`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$encoded_stream,
    DefaultValuedAttr<StrAttr, "\"RGB\"">:$pixel_format);
  let results = (outs AnyTensor:$image);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// InstanceNormalization
//===----------------------------------------------------------------------===//

def ONNXInstanceNormalizationOp : ONNX_Op<"InstanceNormalization"> {
  let summary = "ONNX InstanceNormalization operation";
  let description = [{
    ONNX `InstanceNormalization`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$scale,
    AnyTensor:$B,
    DefaultValuedAttr<F32Attr, "1e-05">:$epsilon);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// IsInf
//===----------------------------------------------------------------------===//

def ONNXIsInfOp : ONNX_Op<"IsInf"> {
  let summary = "ONNX IsInf operation";
  let description = [{
    ONNX `IsInf`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$detect_negative,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$detect_positive);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// IsNaN
//===----------------------------------------------------------------------===//

def ONNXIsNaNOp : ONNX_Op<"IsNaN"> {
  let summary = "ONNX IsNaN operation";
  let description = [{
    ONNX `IsNaN`, opset 20 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

def ONNXLRNOp : ONNX_Op<"LRN"> {
  let summary = "ONNX LRN operation";
  let description = [{
    ONNX `LRN`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "0.0001">:$alpha,
    DefaultValuedAttr<F32Attr, "0.75">:$beta,
    DefaultValuedAttr<F32Attr, "1.0">:$bias,
    ONNX_I64Attr:$size);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// LSTM
//===----------------------------------------------------------------------===//

def ONNXLSTMOp : ONNX_Op<"LSTM"> {
  let summary = "ONNX LSTM operation";
  let description = [{
    ONNX `LSTM`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$W,
    AnyTensor:$R,
    ONNX_TensorOrNone:$B,
    ONNX_TensorOrNone:$sequence_lens,
    ONNX_TensorOrNone:$initial_h,
    ONNX_TensorOrNone:$initial_c,
    ONNX_TensorOrNone:$P,
    OptionalAttr<F32ArrayAttr>:$activation_alpha,
    OptionalAttr<F32ArrayAttr>:$activation_beta,
    OptionalAttr<StrArrayAttr>:$activations,
    OptionalAttr<F32Attr>:$clip,
    DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
    OptionalAttr<ONNX_I64Attr>:$hidden_size,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$input_forget,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$layout);
  let results = (outs
    ONNX_TensorOrNone:$Y,
    ONNX_TensorOrNone:$Y_h,
    ONNX_TensorOrNone:$Y_c);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

def ONNXLayerNormalizationOp : ONNX_Op<"LayerNormalization"> {
  let summary = "ONNX LayerNormalization operation";
  let description = [{
    ONNX `LayerNormalization`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$Scale,
    ONNX_TensorOrNone:$B,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
    DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs
    AnyTensor:$Y,
    ONNX_TensorOrNone:$Mean,
    ONNX_TensorOrNone:$InvStdDev);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// LeakyRelu
//===----------------------------------------------------------------------===//

def ONNXLeakyReluOp : ONNX_Op<"LeakyRelu"> {
  let summary = "ONNX LeakyRelu operation";
  let description = [{
    ONNX `LeakyRelu`, opset 16 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "0.01">:$alpha);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 16;
  }];
}

//===----------------------------------------------------------------------===//
// Less
//===----------------------------------------------------------------------===//

def ONNXLessOp : ONNX_Op<"Less"> {
  let summary = "ONNX Less operation";
  let description = [{
    ONNX `Less`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// LessOrEqual
//===----------------------------------------------------------------------===//

def ONNXLessOrEqualOp : ONNX_Op<"LessOrEqual"> {
  let summary = "ONNX LessOrEqual operation";
  let description = [{
    ONNX `LessOrEqual`, opset 16 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 16;
  }];
}

//===----------------------------------------------------------------------===//
// LinearAttention
//===----------------------------------------------------------------------===//

def ONNXLinearAttentionOp : ONNX_Op<"LinearAttention"> {
  let summary = "ONNX LinearAttention operation";
  let description = [{
    ONNX `LinearAttention`, opset 27 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$query,
    AnyTensor:$key,
    AnyTensor:$value,
    ONNX_TensorOrNone:$past_state,
    ONNX_TensorOrNone:$decay,
    ONNX_TensorOrNone:$beta,
    DefaultValuedAttr<ONNX_I64Attr, "64">:$chunk_size,
    ONNX_I64Attr:$kv_num_heads,
    ONNX_I64Attr:$q_num_heads,
    DefaultValuedAttr<F32Attr, "0.0">:$scale,
    DefaultValuedAttr<StrAttr, "\"gated_delta\"">:$update_rule);
  let results = (outs
    AnyTensor:$output,
    AnyTensor:$present_state);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 27;
  }];
}

//===----------------------------------------------------------------------===//
// Log
//===----------------------------------------------------------------------===//

def ONNXLogOp : ONNX_Op<"Log"> {
  let summary = "ONNX Log operation";
  let description = [{
    ONNX `Log`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// LogSoftmax
//===----------------------------------------------------------------------===//

def ONNXLogSoftmaxOp : ONNX_Op<"LogSoftmax"> {
  let summary = "ONNX LogSoftmax operation";
  let description = [{
    ONNX `LogSoftmax`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

def ONNXLoopOp : ONNX_Op<"Loop"> {
  let summary = "ONNX Loop operation";
  let description = [{
    ONNX `Loop`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    ONNX_TensorOrNone:$M,
    ONNX_TensorOrNone:$cond,
    Variadic<AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType]>>:$v_initial);
  let results = (outs
    Variadic<AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType]>>:$v_final_and_scan_outputs);
  let regions = (region SizedRegion<1>:$body);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// LpNormalization
//===----------------------------------------------------------------------===//

def ONNXLpNormalizationOp : ONNX_Op<"LpNormalization"> {
  let summary = "ONNX LpNormalization operation";
  let description = [{
    ONNX `LpNormalization`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "2">:$p);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// LpPool
//===----------------------------------------------------------------------===//

def ONNXLpPoolOp : ONNX_Op<"LpPool"> {
  let summary = "ONNX LpPool operation";
  let description = [{
    ONNX `LpPool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
    OptionalAttr<I64ArrayAttr>:$dilations,
    I64ArrayAttr:$kernel_shape,
    DefaultValuedAttr<ONNX_I64Attr, "2">:$p,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

def ONNXMatMulOp : ONNX_Op<"MatMul"> {
  let summary = "ONNX MatMul operation";
  let description = [{
    ONNX `MatMul`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// MatMulInteger
//===----------------------------------------------------------------------===//

def ONNXMatMulIntegerOp : ONNX_Op<"MatMulInteger"> {
  let summary = "ONNX MatMulInteger operation";
  let description = [{
    ONNX `MatMulInteger`, opset 10 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B,
    ONNX_TensorOrNone:$a_zero_point,
    ONNX_TensorOrNone:$b_zero_point);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 10;
  }];
}

//===----------------------------------------------------------------------===//
// Max
//===----------------------------------------------------------------------===//

def ONNXMaxOp : ONNX_Op<"Max"> {
  let summary = "ONNX Max operation";
  let description = [{
    ONNX `Max`, opset 13 (ai.onnx).
  }];
  let arguments = (ins Variadic<AnyTensor>:$data_0);
  let results = (outs AnyTensor:$max);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// MaxPool
//===----------------------------------------------------------------------===//

def ONNXMaxPoolOp : ONNX_Op<"MaxPool"> {
  let summary = "ONNX MaxPool operation";
  let description = [{
    ONNX `MaxPool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$ceil_mode,
    OptionalAttr<I64ArrayAttr>:$dilations,
    I64ArrayAttr:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$storage_order,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs
    AnyTensor:$Y,
    ONNX_TensorOrNone:$Indices);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// MaxRoiPool
//===----------------------------------------------------------------------===//

def ONNXMaxRoiPoolOp : ONNX_Op<"MaxRoiPool"> {
  let summary = "ONNX MaxRoiPool operation";
  let description = [{
    ONNX `MaxRoiPool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$rois,
    I64ArrayAttr:$pooled_shape,
    DefaultValuedAttr<F32Attr, "1.0">:$spatial_scale);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// MaxUnpool
//===----------------------------------------------------------------------===//

def ONNXMaxUnpoolOp : ONNX_Op<"MaxUnpool"> {
  let summary = "ONNX MaxUnpool operation";
  let description = [{
    ONNX `MaxUnpool`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$I,
    ONNX_TensorOrNone:$output_shape,
    I64ArrayAttr:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Mean
//===----------------------------------------------------------------------===//

def ONNXMeanOp : ONNX_Op<"Mean"> {
  let summary = "ONNX Mean operation";
  let description = [{
    ONNX `Mean`, opset 13 (ai.onnx).
  }];
  let arguments = (ins Variadic<AnyTensor>:$data_0);
  let results = (outs AnyTensor:$mean);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// MeanVarianceNormalization
//===----------------------------------------------------------------------===//

def ONNXMeanVarianceNormalizationOp : ONNX_Op<"MeanVarianceNormalization"> {
  let summary = "ONNX MeanVarianceNormalization operation";
  let description = [{
    ONNX `MeanVarianceNormalization`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<I64ArrayAttr, "{0, 2, 3}">:$axes);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

def ONNXMelWeightMatrixOp : ONNX_Op<"MelWeightMatrix"> {
  let summary = "ONNX MelWeightMatrix operation";
  let description = [{
    ONNX `MelWeightMatrix`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$num_mel_bins,
    AnyTensor:$dft_length,
    AnyTensor:$sample_rate,
    AnyTensor:$lower_edge_hertz,
    AnyTensor:$upper_edge_hertz,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$output_datatype);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// Min
//===----------------------------------------------------------------------===//

def ONNXMinOp : ONNX_Op<"Min"> {
  let summary = "ONNX Min operation";
  let description = [{
    ONNX `Min`, opset 13 (ai.onnx).
  }];
  let arguments = (ins Variadic<AnyTensor>:$data_0);
  let results = (outs AnyTensor:$min);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Mish
//===----------------------------------------------------------------------===//

def ONNXMishOp : ONNX_Op<"Mish"> {
  let summary = "ONNX Mish operation";
  let description = [{
    ONNX `Mish`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Mod
//===----------------------------------------------------------------------===//

def ONNXModOp : ONNX_Op<"Mod"> {
  let summary = "ONNX Mod operation";
  let description = [{
    ONNX `Mod`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$fmod);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Mul
//===----------------------------------------------------------------------===//

def ONNXMulOp : ONNX_Op<"Mul"> {
  let summary = "ONNX Mul operation";
  let description = [{
    ONNX `Mul`, opset 14 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// Multinomial
//===----------------------------------------------------------------------===//

def ONNXMultinomialOp : ONNX_Op<"Multinomial"> {
  let summary = "ONNX Multinomial operation";
  let description = [{
    ONNX `Multinomial`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<ONNX_I64Attr, "6">:$dtype,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$sample_size,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Neg
//===----------------------------------------------------------------------===//

def ONNXNegOp : ONNX_Op<"Neg"> {
  let summary = "ONNX Neg operation";
  let description = [{
    ONNX `Neg`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// NegativeLogLikelihoodLoss
//===----------------------------------------------------------------------===//

def ONNXNegativeLogLikelihoodLossOp : ONNX_Op<"NegativeLogLikelihoodLoss"> {
  let summary = "ONNX NegativeLogLikelihoodLoss operation";
  let description = [{
    ONNX `NegativeLogLikelihoodLoss`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$target,
    ONNX_TensorOrNone:$weight,
    OptionalAttr<ONNX_I64Attr>:$ignore_index,
    DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$loss);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

def ONNXNonMaxSuppressionOp : ONNX_Op<"NonMaxSuppression"> {
  let summary = "ONNX NonMaxSuppression operation";
  let description = [{
    ONNX `NonMaxSuppression`, opset 11 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$boxes,
    AnyTensor:$scores,
    ONNX_TensorOrNone:$max_output_boxes_per_class,
    ONNX_TensorOrNone:$iou_threshold,
    ONNX_TensorOrNone:$score_threshold,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$center_point_box);
  let results = (outs AnyTensor:$selected_indices);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// NonZero
//===----------------------------------------------------------------------===//

def ONNXNonZeroOp : ONNX_Op<"NonZero"> {
  let summary = "ONNX NonZero operation";
  let description = [{
    ONNX `NonZero`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Not
//===----------------------------------------------------------------------===//

def ONNXNotOp : ONNX_Op<"Not"> {
  let summary = "ONNX Not operation";
  let description = [{
    ONNX `Not`, opset 1 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 1;
  }];
}

//===----------------------------------------------------------------------===//
// OneHot
//===----------------------------------------------------------------------===//

def ONNXOneHotOp : ONNX_Op<"OneHot"> {
  let summary = "ONNX OneHot operation";
  let description = [{
    ONNX `OneHot`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$indices,
    AnyTensor:$depth,
    AnyTensor:$values,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Optional
//===----------------------------------------------------------------------===//

def ONNXOptionalOp : ONNX_Op<"Optional"> {
  let summary = "ONNX Optional operation";
  let description = [{
    ONNX `Optional`, opset 28 (ai.onnx).
  }];
  let arguments = (ins AnyTypeOf<[AnyTensor, ONNX_SeqType, NoneType]>:$input);
  let results = (outs ONNX_OptType:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
    // ONNX attribute 'type' is kept out of ODS (its getter would
    // hide getType()); it lives in the discardable attributes under
    // its ONNX name and is checked by verify().
    static ::llvm::StringRef getTypeOnnxAttrName() { return "type"; }
    ::mlir::TypeAttr getTypeOnnxAttr() {
      return (*this)->getAttrOfType<::mlir::TypeAttr>("type");
    }
    void setTypeOnnxAttr(::mlir::TypeAttr value) {
      (*this)->setAttr("type", value);
    }
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      ::mlir::Attribute attr = (*this)->getAttr("type");
      if (attr && !::llvm::isa<::mlir::TypeAttr>(attr))
        return emitOpError("attribute 'type' must be a TypeAttr");
      return ::mlir::success();
    }
  }];
}

//===----------------------------------------------------------------------===//
// OptionalGetElement
//===----------------------------------------------------------------------===//

def ONNXOptionalGetElementOp : ONNX_Op<"OptionalGetElement"> {
  let summary = "ONNX OptionalGetElement operation";
  let description = [{
    ONNX `OptionalGetElement`, opset 28 (ai.onnx).
  }];
  let arguments = (ins AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType]>:$input);
  let results = (outs AnyTypeOf<[AnyTensor, ONNX_SeqType]>:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// OptionalHasElement
//===----------------------------------------------------------------------===//

def ONNXOptionalHasElementOp : ONNX_Op<"OptionalHasElement"> {
  let summary = "ONNX OptionalHasElement operation";
  let description = [{
    ONNX `OptionalHasElement`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType, NoneType]>:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Or
//===----------------------------------------------------------------------===//

def ONNXOrOp : ONNX_Op<"Or"> {
  let summary = "ONNX Or operation";
  let description = [{
    ONNX `Or`, opset 7 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 7;
  }];
}

//===----------------------------------------------------------------------===//
// PRelu
//===----------------------------------------------------------------------===//

def ONNXPReluOp : ONNX_Op<"PRelu"> {
  let summary = "ONNX PRelu operation";
  let description = [{
    ONNX `PRelu`, opset 16 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$slope);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 16;
  }];
}

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

def ONNXPadOp : ONNX_Op<"Pad"> {
  let summary = "ONNX Pad operation";
  let description = [{
    ONNX `Pad`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$pads,
    ONNX_TensorOrNone:$constant_value,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Pow
//===----------------------------------------------------------------------===//

def ONNXPowOp : ONNX_Op<"Pow"> {
  let summary = "ONNX Pow operation";
  let description = [{
    ONNX `Pow`, opset 15 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$Y);
  let results = (outs AnyTensor:$Z);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 15;
  }];
}

//===----------------------------------------------------------------------===//
// QLinearConv
//===----------------------------------------------------------------------===//

def ONNXQLinearConvOp : ONNX_Op<"QLinearConv"> {
  let summary = "ONNX QLinearConv operation";
  let description = [{
    ONNX `QLinearConv`, opset 10 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$x,
    AnyTensor:$x_scale,
    AnyTensor:$x_zero_point,
    AnyTensor:$w,
    AnyTensor:$w_scale,
    AnyTensor:$w_zero_point,
    AnyTensor:$y_scale,
    AnyTensor:$y_zero_point,
    ONNX_TensorOrNone:$B,
    DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
    OptionalAttr<I64ArrayAttr>:$dilations,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$group,
    OptionalAttr<I64ArrayAttr>:$kernel_shape,
    OptionalAttr<I64ArrayAttr>:$pads,
    OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 10;
  }];
}

//===----------------------------------------------------------------------===//
// QLinearMatMul
//===----------------------------------------------------------------------===//

def ONNXQLinearMatMulOp : ONNX_Op<"QLinearMatMul"> {
  let summary = "ONNX QLinearMatMul operation";
  let description = [{
    ONNX `QLinearMatMul`, opset 21 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$a,
    AnyTensor:$a_scale,
    AnyTensor:$a_zero_point,
    AnyTensor:$b,
    AnyTensor:$b_scale,
    AnyTensor:$b_zero_point,
    AnyTensor:$y_scale,
    AnyTensor:$y_zero_point);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 21;
  }];
}

//===----------------------------------------------------------------------===//
// QuantizeLinear
//===----------------------------------------------------------------------===//

def ONNXQuantizeLinearOp : ONNX_Op<"QuantizeLinear"> {
  let summary = "ONNX QuantizeLinear operation";
  let description = [{
    ONNX `QuantizeLinear`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$x,
    AnyTensor:$y_scale,
    ONNX_TensorOrNone:$y_zero_point,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$block_size,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$output_dtype,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$precision,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// RMSNormalization
//===----------------------------------------------------------------------===//

def ONNXRMSNormalizationOp : ONNX_Op<"RMSNormalization"> {
  let summary = "ONNX RMSNormalization operation";
  let description = [{
    ONNX `RMSNormalization`, opset 23 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$scale,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
    DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 23;
  }];
}

//===----------------------------------------------------------------------===//
// RNN
//===----------------------------------------------------------------------===//

def ONNXRNNOp : ONNX_Op<"RNN"> {
  let summary = "ONNX RNN operation";
  let description = [{
    ONNX `RNN`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$W,
    AnyTensor:$R,
    ONNX_TensorOrNone:$B,
    ONNX_TensorOrNone:$sequence_lens,
    ONNX_TensorOrNone:$initial_h,
    OptionalAttr<F32ArrayAttr>:$activation_alpha,
    OptionalAttr<F32ArrayAttr>:$activation_beta,
    DefaultValuedAttr<StrArrayAttr, "{\"Tanh\", \"Tanh\"}">:$activations,
    OptionalAttr<F32Attr>:$clip,
    DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
    OptionalAttr<ONNX_I64Attr>:$hidden_size,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$layout);
  let results = (outs
    ONNX_TensorOrNone:$Y,
    ONNX_TensorOrNone:$Y_h);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// RandomNormal
//===----------------------------------------------------------------------===//

def ONNXRandomNormalOp : ONNX_Op<"RandomNormal"> {
  let summary = "ONNX RandomNormal operation";
  let description = [{
    ONNX `RandomNormal`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    DefaultValuedAttr<ONNX_I64Attr, "1">:$dtype,
    DefaultValuedAttr<F32Attr, "0.0">:$mean,
    DefaultValuedAttr<F32Attr, "1.0">:$scale,
    OptionalAttr<F32Attr>:$seed,
    I64ArrayAttr:$shape);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// RandomNormalLike
//===----------------------------------------------------------------------===//

def ONNXRandomNormalLikeOp : ONNX_Op<"RandomNormalLike"> {
  let summary = "ONNX RandomNormalLike operation";
  let description = [{
    ONNX `RandomNormalLike`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    OptionalAttr<ONNX_I64Attr>:$dtype,
    DefaultValuedAttr<F32Attr, "0.0">:$mean,
    DefaultValuedAttr<F32Attr, "1.0">:$scale,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// RandomUniform
//===----------------------------------------------------------------------===//

def ONNXRandomUniformOp : ONNX_Op<"RandomUniform"> {
  let summary = "ONNX RandomUniform operation";
  let description = [{
    ONNX `RandomUniform`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    DefaultValuedAttr<ONNX_I64Attr, "1">:$dtype,
    DefaultValuedAttr<F32Attr, "1.0">:$high,
    DefaultValuedAttr<F32Attr, "0.0">:$low,
    OptionalAttr<F32Attr>:$seed,
    I64ArrayAttr:$shape);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// RandomUniformLike
//===----------------------------------------------------------------------===//

def ONNXRandomUniformLikeOp : ONNX_Op<"RandomUniformLike"> {
  let summary = "ONNX RandomUniformLike operation";
  let description = [{
    ONNX `RandomUniformLike`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    OptionalAttr<ONNX_I64Attr>:$dtype,
    DefaultValuedAttr<F32Attr, "1.0">:$high,
    DefaultValuedAttr<F32Attr, "0.0">:$low,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Range
//===----------------------------------------------------------------------===//

def ONNXRangeOp : ONNX_Op<"Range"> {
  let summary = "ONNX Range operation";
  let description = [{
    ONNX `Range`, opset 27 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$start,
    AnyTensor:$limit,
    AnyTensor:$delta,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 27;
  }];
}

//===----------------------------------------------------------------------===//
// Reciprocal
//===----------------------------------------------------------------------===//

def ONNXReciprocalOp : ONNX_Op<"Reciprocal"> {
  let summary = "ONNX Reciprocal operation";
  let description = [{
    ONNX `Reciprocal`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceL1
//===----------------------------------------------------------------------===//

def ONNXReduceL1Op : ONNX_Op<"ReduceL1"> {
  let summary = "ONNX ReduceL1 operation";
  let description = [{
    ONNX `ReduceL1`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceL2
//===----------------------------------------------------------------------===//

def ONNXReduceL2Op : ONNX_Op<"ReduceL2"> {
  let summary = "ONNX ReduceL2 operation";
  let description = [{
    ONNX `ReduceL2`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceLogSum
//===----------------------------------------------------------------------===//

def ONNXReduceLogSumOp : ONNX_Op<"ReduceLogSum"> {
  let summary = "ONNX ReduceLogSum operation";
  let description = [{
    ONNX `ReduceLogSum`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceLogSumExp
//===----------------------------------------------------------------------===//

def ONNXReduceLogSumExpOp : ONNX_Op<"ReduceLogSumExp"> {
  let summary = "ONNX ReduceLogSumExp operation";
  let description = [{
    ONNX `ReduceLogSumExp`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceMax
//===----------------------------------------------------------------------===//

def ONNXReduceMaxOp : ONNX_Op<"ReduceMax"> {
  let summary = "ONNX ReduceMax operation";
  let description = [{
    ONNX `ReduceMax`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceMean
//===----------------------------------------------------------------------===//

def ONNXReduceMeanOp : ONNX_Op<"ReduceMean"> {
  let summary = "ONNX ReduceMean operation";
  let description = [{
    ONNX `ReduceMean`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceMin
//===----------------------------------------------------------------------===//

def ONNXReduceMinOp : ONNX_Op<"ReduceMin"> {
  let summary = "ONNX ReduceMin operation";
  let description = [{
    ONNX `ReduceMin`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceProd
//===----------------------------------------------------------------------===//

def ONNXReduceProdOp : ONNX_Op<"ReduceProd"> {
  let summary = "ONNX ReduceProd operation";
  let description = [{
    ONNX `ReduceProd`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceSum
//===----------------------------------------------------------------------===//

def ONNXReduceSumOp : ONNX_Op<"ReduceSum"> {
  let summary = "ONNX ReduceSum operation";
  let description = [{
    ONNX `ReduceSum`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// ReduceSumSquare
//===----------------------------------------------------------------------===//

def ONNXReduceSumSquareOp : ONNX_Op<"ReduceSumSquare"> {
  let summary = "ONNX ReduceSumSquare operation";
  let description = [{
    ONNX `ReduceSumSquare`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// RegexFullMatch
//===----------------------------------------------------------------------===//

def ONNXRegexFullMatchOp : ONNX_Op<"RegexFullMatch"> {
  let summary = "ONNX RegexFullMatch operation";
  let description = [{
    ONNX `RegexFullMatch`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    OptionalAttr<StrAttr>:$pattern);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// Relu
//===----------------------------------------------------------------------===//

def ONNXReluOp : ONNX_Op<"Relu"> {
  let summary = "ONNX Relu operation";
  let description = [{
    ONNX `Relu`, opset 14 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// Reshape
//===----------------------------------------------------------------------===//

def ONNXReshapeOp : ONNX_Op<"Reshape"> {
  let summary = "ONNX Reshape operation";
  let description = [{
    ONNX `Reshape`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$shape,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$allowzero);
  let results = (outs AnyTensor:$reshaped);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

def ONNXResizeOp : ONNX_Op<"Resize"> {
  let summary = "ONNX Resize operation";
  let description = [{
    ONNX `Resize`, opset 19 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    ONNX_TensorOrNone:$roi,
    ONNX_TensorOrNone:$scales,
    ONNX_TensorOrNone:$sizes,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$antialias,
    OptionalAttr<I64ArrayAttr>:$axes,
    DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
    DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$exclude_outside,
    DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value,
    DefaultValuedAttr<StrAttr, "\"stretch\"">:$keep_aspect_ratio_policy,
    DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
    DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 19;
  }];
}

//===----------------------------------------------------------------------===//
// ReverseSequence
//===----------------------------------------------------------------------===//

def ONNXReverseSequenceOp : ONNX_Op<"ReverseSequence"> {
  let summary = "ONNX ReverseSequence operation";
  let description = [{
    ONNX `ReverseSequence`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$sequence_lens,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$batch_axis,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$time_axis);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

def ONNXRoiAlignOp : ONNX_Op<"RoiAlign"> {
  let summary = "ONNX RoiAlign operation";
  let description = [{
    ONNX `RoiAlign`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$rois,
    AnyTensor:$batch_indices,
    DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
    DefaultValuedAttr<StrAttr, "\"avg\"">:$mode,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$output_height,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$output_width,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$sampling_ratio,
    DefaultValuedAttr<F32Attr, "1.0">:$spatial_scale);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

def ONNXRotaryEmbeddingOp : ONNX_Op<"RotaryEmbedding"> {
  let summary = "ONNX RotaryEmbedding operation";
  let description = [{
    ONNX `RotaryEmbedding`, opset 23 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$cos_cache,
    AnyTensor:$sin_cache,
    ONNX_TensorOrNone:$position_ids,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$interleaved,
    OptionalAttr<ONNX_I64Attr>:$num_heads,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$rotary_embedding_dim);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 23;
  }];
}

//===----------------------------------------------------------------------===//
// Round
//===----------------------------------------------------------------------===//

def ONNXRoundOp : ONNX_Op<"Round"> {
  let summary = "ONNX Round operation";
  let description = [{
    ONNX `Round`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

def ONNXSTFTOp : ONNX_Op<"STFT"> {
  let summary = "ONNX STFT operation";
  let description = [{
    ONNX `STFT`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$signal,
    AnyTensor:$frame_step,
    ONNX_TensorOrNone:$window,
    ONNX_TensorOrNone:$frame_length,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$onesided);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

def ONNXScanOp : ONNX_Op<"Scan"> {
  let summary = "ONNX Scan operation";
  let description = [{
    ONNX `Scan`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    Variadic<AnyTensor>:$initial_state_and_scan_inputs,
    ONNX_I64Attr:$num_scan_inputs,
    OptionalAttr<I64ArrayAttr>:$scan_input_axes,
    OptionalAttr<I64ArrayAttr>:$scan_input_directions,
    OptionalAttr<I64ArrayAttr>:$scan_output_axes,
    OptionalAttr<I64ArrayAttr>:$scan_output_directions);
  let results = (outs Variadic<AnyTensor>:$final_state_and_scan_outputs);
  let regions = (region SizedRegion<1>:$body);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

def ONNXScatterOp : ONNX_Op<"Scatter"> {
  let summary = "ONNX Scatter operation";
  let description = [{
    ONNX `Scatter`, opset 11 (ai.onnx), deprecated.
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$indices,
    AnyTensor:$updates,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// ScatterElements
//===----------------------------------------------------------------------===//

def ONNXScatterElementsOp : ONNX_Op<"ScatterElements"> {
  let summary = "ONNX ScatterElements operation";
  let description = [{
    ONNX `ScatterElements`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$indices,
    AnyTensor:$updates,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
    DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// ScatterND
//===----------------------------------------------------------------------===//

def ONNXScatterNDOp : ONNX_Op<"ScatterND"> {
  let summary = "ONNX ScatterND operation";
  let description = [{
    ONNX `ScatterND`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$indices,
    AnyTensor:$updates,
    DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// Selu
//===----------------------------------------------------------------------===//

def ONNXSeluOp : ONNX_Op<"Selu"> {
  let summary = "ONNX Selu operation";
  let description = [{
    ONNX `Selu`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "1.6732632">:$alpha,
    DefaultValuedAttr<F32Attr, "1.050701">:$gamma);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceAt
//===----------------------------------------------------------------------===//

def ONNXSequenceAtOp : ONNX_Op<"SequenceAt"> {
  let summary = "ONNX SequenceAt operation";
  let description = [{
    ONNX `SequenceAt`, opset 11 (ai.onnx).
  }];
  let arguments = (ins
    ONNX_SeqType:$input_sequence,
    AnyTensor:$position);
  let results = (outs AnyTensor:$tensor);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceConstruct
//===----------------------------------------------------------------------===//

def ONNXSequenceConstructOp : ONNX_Op<"SequenceConstruct"> {
  let summary = "ONNX SequenceConstruct operation";
  let description = [{
    ONNX `SequenceConstruct`, opset 11 (ai.onnx).
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs);
  let results = (outs ONNX_SeqType:$output_sequence);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceEmpty
//===----------------------------------------------------------------------===//

def ONNXSequenceEmptyOp : ONNX_Op<"SequenceEmpty"> {
  let summary = "ONNX SequenceEmpty operation";
  let description = [{
    ONNX `SequenceEmpty`, opset 11 (ai.onnx).
  }];
  let arguments = (ins OptionalAttr<ONNX_I64Attr>:$dtype);
  let results = (outs ONNX_SeqType:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceErase
//===----------------------------------------------------------------------===//

def ONNXSequenceEraseOp : ONNX_Op<"SequenceErase"> {
  let summary = "ONNX SequenceErase operation";
  let description = [{
    ONNX `SequenceErase`, opset 11 (ai.onnx).
  }];
  let arguments = (ins
    ONNX_SeqType:$input_sequence,
    ONNX_TensorOrNone:$position);
  let results = (outs ONNX_SeqType:$output_sequence);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceInsert
//===----------------------------------------------------------------------===//

def ONNXSequenceInsertOp : ONNX_Op<"SequenceInsert"> {
  let summary = "ONNX SequenceInsert operation";
  let description = [{
    ONNX `SequenceInsert`, opset 11 (ai.onnx).
  }];
  let arguments = (ins
    ONNX_SeqType:$input_sequence,
    AnyTensor:$tensor,
    ONNX_TensorOrNone:$position);
  let results = (outs ONNX_SeqType:$output_sequence);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceLength
//===----------------------------------------------------------------------===//

def ONNXSequenceLengthOp : ONNX_Op<"SequenceLength"> {
  let summary = "ONNX SequenceLength operation";
  let description = [{
    ONNX `SequenceLength`, opset 11 (ai.onnx).
  }];
  let arguments = (ins ONNX_SeqType:$input_sequence);
  let results = (outs AnyTensor:$length);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 11;
  }];
}

//===----------------------------------------------------------------------===//
// SequenceMap
//===----------------------------------------------------------------------===//

def ONNXSequenceMapOp : ONNX_Op<"SequenceMap"> {
  let summary = "ONNX SequenceMap operation";
  let description = [{
    ONNX `SequenceMap`, opset 17 (ai.onnx).
  }];
  let arguments = (ins
    ONNX_SeqType:$input_sequence,
    Variadic<AnyTypeOf<[AnyTensor, ONNX_SeqType]>>:$additional_inputs);
  let results = (outs Variadic<ONNX_SeqType>:$out_sequence);
  let regions = (region SizedRegion<1>:$body);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 17;
  }];
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def ONNXShapeOp : ONNX_Op<"Shape"> {
  let summary = "ONNX Shape operation";
  let description = [{
    ONNX `Shape`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    OptionalAttr<ONNX_I64Attr>:$end,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$start);
  let results = (outs AnyTensor:$shape);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Shrink
//===----------------------------------------------------------------------===//

def ONNXShrinkOp : ONNX_Op<"Shrink"> {
  let summary = "ONNX Shrink operation";
  let description = [{
    ONNX `Shrink`, opset 9 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<F32Attr, "0.0">:$bias,
    DefaultValuedAttr<F32Attr, "0.5">:$lambd);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 9;
  }];
}

//===----------------------------------------------------------------------===//
// Sigmoid
//===----------------------------------------------------------------------===//

def ONNXSigmoidOp : ONNX_Op<"Sigmoid"> {
  let summary = "ONNX Sigmoid operation";
  let description = [{
    ONNX `Sigmoid`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Sign
//===----------------------------------------------------------------------===//

def ONNXSignOp : ONNX_Op<"Sign"> {
  let summary = "ONNX Sign operation";
  let description = [{
    ONNX `Sign`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Sin
//===----------------------------------------------------------------------===//

def ONNXSinOp : ONNX_Op<"Sin"> {
  let summary = "ONNX Sin operation";
  let description = [{
    ONNX `Sin`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Sinh
//===----------------------------------------------------------------------===//

def ONNXSinhOp : ONNX_Op<"Sinh"> {
  let summary = "ONNX Sinh operation";
  let description = [{
    ONNX `Sinh`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Size
//===----------------------------------------------------------------------===//

def ONNXSizeOp : ONNX_Op<"Size"> {
  let summary = "ONNX Size operation";
  let description = [{
    ONNX `Size`, opset 25 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$data);
  let results = (outs AnyTensor:$size);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

def ONNXSliceOp : ONNX_Op<"Slice"> {
  let summary = "ONNX Slice operation";
  let description = [{
    ONNX `Slice`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$starts,
    AnyTensor:$ends,
    ONNX_TensorOrNone:$axes,
    ONNX_TensorOrNone:$steps);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

def ONNXSoftmaxOp : ONNX_Op<"Softmax"> {
  let summary = "ONNX Softmax operation";
  let description = [{
    ONNX `Softmax`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// SoftmaxCrossEntropyLoss
//===----------------------------------------------------------------------===//

def ONNXSoftmaxCrossEntropyLossOp : ONNX_Op<"SoftmaxCrossEntropyLoss"> {
  let summary = "ONNX SoftmaxCrossEntropyLoss operation";
  let description = [{
    ONNX `SoftmaxCrossEntropyLoss`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$scores,
    AnyTensor:$labels,
    ONNX_TensorOrNone:$weights,
    OptionalAttr<ONNX_I64Attr>:$ignore_index,
    DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs
    AnyTensor:$output,
    ONNX_TensorOrNone:$log_prob);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Softplus
//===----------------------------------------------------------------------===//

def ONNXSoftplusOp : ONNX_Op<"Softplus"> {
  let summary = "ONNX Softplus operation";
  let description = [{
    ONNX `Softplus`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Softsign
//===----------------------------------------------------------------------===//

def ONNXSoftsignOp : ONNX_Op<"Softsign"> {
  let summary = "ONNX Softsign operation";
  let description = [{
    ONNX `Softsign`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// SpaceToDepth
//===----------------------------------------------------------------------===//

def ONNXSpaceToDepthOp : ONNX_Op<"SpaceToDepth"> {
  let summary = "ONNX SpaceToDepth operation";
  let description = [{
    ONNX `SpaceToDepth`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_I64Attr:$blocksize,
    DefaultValuedAttr<StrAttr, "\"DCR\"">:$mode);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Split
//===----------------------------------------------------------------------===//

def ONNXSplitOp : ONNX_Op<"Split"> {
  let summary = "ONNX Split operation";
  let description = [{
    ONNX `Split`, opset 18 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_TensorOrNone:$split,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
    OptionalAttr<ONNX_I64Attr>:$num_outputs);
  let results = (outs Variadic<AnyTensor>:$outputs);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 18;
  }];
}

//===----------------------------------------------------------------------===//
// SplitToSequence
//===----------------------------------------------------------------------===//

def ONNXSplitToSequenceOp : ONNX_Op<"SplitToSequence"> {
  let summary = "ONNX SplitToSequence operation";
  let description = [{
    ONNX `SplitToSequence`, opset 24 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_TensorOrNone:$split,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$keepdims);
  let results = (outs ONNX_SeqType:$output_sequence);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 24;
  }];
}

//===----------------------------------------------------------------------===//
// Sqrt
//===----------------------------------------------------------------------===//

def ONNXSqrtOp : ONNX_Op<"Sqrt"> {
  let summary = "ONNX Sqrt operation";
  let description = [{
    ONNX `Sqrt`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// Squeeze
//===----------------------------------------------------------------------===//

def ONNXSqueezeOp : ONNX_Op<"Squeeze"> {
  let summary = "ONNX Squeeze operation";
  let description = [{
    ONNX `Squeeze`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    ONNX_TensorOrNone:$axes);
  let results = (outs AnyTensor:$squeezed);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// StringConcat
//===----------------------------------------------------------------------===//

def ONNXStringConcatOp : ONNX_Op<"StringConcat"> {
  let summary = "ONNX StringConcat operation";
  let description = [{
    ONNX `StringConcat`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$Y);
  let results = (outs AnyTensor:$Z);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// StringNormalizer
//===----------------------------------------------------------------------===//

def ONNXStringNormalizerOp : ONNX_Op<"StringNormalizer"> {
  let summary = "ONNX StringNormalizer operation";
  let description = [{
    ONNX `StringNormalizer`, opset 10 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<StrAttr, "\"NONE\"">:$case_change_action,
    DefaultValuedAttr<ONNX_I64Attr, "0">:$is_case_sensitive,
    OptionalAttr<StrAttr>:$locale,
    OptionalAttr<StrArrayAttr>:$stopwords);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 10;
  }];
}

//===----------------------------------------------------------------------===//
// StringSplit
//===----------------------------------------------------------------------===//

def ONNXStringSplitOp : ONNX_Op<"StringSplit"> {
  let summary = "ONNX StringSplit operation";
  let description = [{
    ONNX `StringSplit`, opset 20 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    OptionalAttr<StrAttr>:$delimiter,
    OptionalAttr<ONNX_I64Attr>:$maxsplit);
  let results = (outs
    AnyTensor:$Y,
    AnyTensor:$Z);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 20;
  }];
}

//===----------------------------------------------------------------------===//
// Sub
//===----------------------------------------------------------------------===//

def ONNXSubOp : ONNX_Op<"Sub"> {
  let summary = "ONNX Sub operation";
  let description = [{
    ONNX `Sub`, opset 14 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// Sum
//===----------------------------------------------------------------------===//

def ONNXSumOp : ONNX_Op<"Sum"> {
  let summary = "ONNX Sum operation";
  let description = [{
    ONNX `Sum`, opset 13 (ai.onnx).
  }];
  let arguments = (ins Variadic<AnyTensor>:$data_0);
  let results = (outs AnyTensor:$sum);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// SwiGLU
//===----------------------------------------------------------------------===//

def ONNXSwiGLUOp : ONNX_Op<"SwiGLU"> {
  let summary = "ONNX SwiGLU operation";
  let description = [{
    ONNX `SwiGLU`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Swish
//===----------------------------------------------------------------------===//

def ONNXSwishOp : ONNX_Op<"Swish"> {
  let summary = "ONNX Swish operation";
  let description = [{
    ONNX `Swish`, opset 24 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 24;
  }];
}

//===----------------------------------------------------------------------===//
// Tan
//===----------------------------------------------------------------------===//

def ONNXTanOp : ONNX_Op<"Tan"> {
  let summary = "ONNX Tan operation";
  let description = [{
    ONNX `Tan`, opset 22 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Tanh
//===----------------------------------------------------------------------===//

def ONNXTanhOp : ONNX_Op<"Tanh"> {
  let summary = "ONNX Tanh operation";
  let description = [{
    ONNX `Tanh`, opset 13 (ai.onnx).
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// TensorScatter
//===----------------------------------------------------------------------===//

def ONNXTensorScatterOp : ONNX_Op<"TensorScatter"> {
  let summary = "ONNX TensorScatter operation";
  let description = [{
    ONNX `TensorScatter`, opset 24 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$past_cache,
    AnyTensor:$update,
    ONNX_TensorOrNone:$write_indices,
    DefaultValuedAttr<ONNX_I64Attr, "-2">:$axis,
    DefaultValuedAttr<StrAttr, "\"linear\"">:$mode);
  let results = (outs AnyTensor:$present_cache);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 24;
  }];
}

//===----------------------------------------------------------------------===//
// TfIdfVectorizer
//===----------------------------------------------------------------------===//

def ONNXTfIdfVectorizerOp : ONNX_Op<"TfIdfVectorizer"> {
  let summary = "ONNX TfIdfVectorizer operation";
  let description = [{
    ONNX `TfIdfVectorizer`, opset 9 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    ONNX_I64Attr:$max_gram_length,
    ONNX_I64Attr:$max_skip_count,
    ONNX_I64Attr:$min_gram_length,
    StrAttr:$mode,
    I64ArrayAttr:$ngram_counts,
    I64ArrayAttr:$ngram_indexes,
    OptionalAttr<I64ArrayAttr>:$pool_int64s,
    OptionalAttr<StrArrayAttr>:$pool_strings,
    OptionalAttr<F32ArrayAttr>:$weights);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 9;
  }];
}

//===----------------------------------------------------------------------===//
// ThresholdedRelu
//===----------------------------------------------------------------------===//

def ONNXThresholdedReluOp : ONNX_Op<"ThresholdedRelu"> {
  let summary = "ONNX ThresholdedRelu operation";
  let description = [{
    ONNX `ThresholdedRelu`, opset 22 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 22;
  }];
}

//===----------------------------------------------------------------------===//
// Tile
//===----------------------------------------------------------------------===//

def ONNXTileOp : ONNX_Op<"Tile"> {
  let summary = "ONNX Tile operation";
  let description = [{
    ONNX `Tile`, opset 13 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$repeats);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 13;
  }];
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

def ONNXTopKOp : ONNX_Op<"TopK"> {
  let summary = "ONNX TopK operation";
  let description = [{
    ONNX `TopK`, opset 24 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$K,
    DefaultValuedAttr<ONNX_I64Attr, "-1">:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$largest,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$sorted);
  let results = (outs
    AnyTensor:$Values,
    AnyTensor:$Indices);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 24;
  }];
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

def ONNXTransposeOp : ONNX_Op<"Transpose"> {
  let summary = "ONNX Transpose operation";
  let description = [{
    ONNX `Transpose`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    OptionalAttr<I64ArrayAttr>:$perm);
  let results = (outs AnyTensor:$transposed);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Trilu
//===----------------------------------------------------------------------===//

def ONNXTriluOp : ONNX_Op<"Trilu"> {
  let summary = "ONNX Trilu operation";
  let description = [{
    ONNX `Trilu`, opset 14 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$input,
    ONNX_TensorOrNone:$k,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$upper);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 14;
  }];
}

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

def ONNXUniqueOp : ONNX_Op<"Unique"> {
  let summary = "ONNX Unique operation";
  let description = [{
    ONNX `Unique`, opset 28 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$X,
    OptionalAttr<ONNX_I64Attr>:$axis,
    DefaultValuedAttr<ONNX_I64Attr, "1">:$sorted);
  let results = (outs
    AnyTensor:$Y,
    ONNX_TensorOrNone:$indices,
    ONNX_TensorOrNone:$inverse_indices,
    ONNX_TensorOrNone:$counts);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 28;
  }];
}

//===----------------------------------------------------------------------===//
// Unsqueeze
//===----------------------------------------------------------------------===//

def ONNXUnsqueezeOp : ONNX_Op<"Unsqueeze"> {
  let summary = "ONNX Unsqueeze operation";
  let description = [{
    ONNX `Unsqueeze`, opset 25 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$data,
    AnyTensor:$axes);
  let results = (outs AnyTensor:$expanded);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 25;
  }];
}

//===----------------------------------------------------------------------===//
// Upsample
//===----------------------------------------------------------------------===//

def ONNXUpsampleOp : ONNX_Op<"Upsample"> {
  let summary = "ONNX Upsample operation";
  let description = [{
    ONNX `Upsample`, opset 10 (ai.onnx), deprecated.
  }];
  let arguments = (ins
    AnyTensor:$X,
    AnyTensor:$scales,
    DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode);
  let results = (outs AnyTensor:$Y);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 10;
  }];
}

//===----------------------------------------------------------------------===//
// Where
//===----------------------------------------------------------------------===//

def ONNXWhereOp : ONNX_Op<"Where"> {
  let summary = "ONNX Where operation";
  let description = [{
    ONNX `Where`, opset 16 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$condition,
    AnyTensor:$X,
    AnyTensor:$Y);
  let results = (outs AnyTensor:$output);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 16;
  }];
}

//===----------------------------------------------------------------------===//
// Xor
//===----------------------------------------------------------------------===//

def ONNXXorOp : ONNX_Op<"Xor"> {
  let summary = "ONNX Xor operation";
  let description = [{
    ONNX `Xor`, opset 7 (ai.onnx).
  }];
  let arguments = (ins
    AnyTensor:$A,
    AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDeclaration = [{
    static constexpr int onnxSinceVersion = 7;
  }];
}

#endif // ONYX_DIALECT_ONNX_ONNXOPS_TD
