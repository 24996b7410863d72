// RUN: onyx-opt %s --convert-onnx-to-tensor --split-input-file -verify-diagnostics
//
// What the string lowerings reject (Strings.cpp): a clear error on the op.

func.func @locale(%x: tensor<3x!onnx.String>) -> tensor<3x!onnx.String> {
  // expected-error @+1 {{StringNormalizer: locale 'tr_TR' is not supported}}
  %y = "onnx.StringNormalizer"(%x) {case_change_action = "UPPER", locale = "tr_TR"} : (tensor<3x!onnx.String>) -> tensor<3x!onnx.String>
  return %y : tensor<3x!onnx.String>
}

// -----

func.func @re2_flags(%x: tensor<3x!onnx.String>) -> tensor<3xi1> {
  // expected-error @+1 {{RegexFullMatch: pattern '(?i)abc' uses a '(?' group}}
  %y = "onnx.RegexFullMatch"(%x) {pattern = "(?i)abc"} : (tensor<3x!onnx.String>) -> tensor<3xi1>
  return %y : tensor<3xi1>
}

// -----

func.func @backref(%x: tensor<3x!onnx.String>) -> tensor<3xi1> {
  // expected-error @+1 {{uses a back reference}}
  %y = "onnx.RegexFullMatch"(%x) {pattern = "(a)\\1"} : (tensor<3x!onnx.String>) -> tensor<3xi1>
  return %y : tensor<3xi1>
}

// -----

func.func @cast_half(%x: tensor<3xf16>) -> tensor<3x!onnx.String> {
  // expected-error @+1 {{Cast from 'f16' to STRING is not supported}}
  %y = "onnx.Cast"(%x) {to = 8 : i64} : (tensor<3xf16>) -> tensor<3x!onnx.String>
  return %y : tensor<3x!onnx.String>
}

// -----

func.func @cast_bool(%x: tensor<3x!onnx.String>) -> tensor<3xi1> {
  // expected-error @+1 {{Cast from STRING to 'i1' is not supported}}
  %y = "onnx.Cast"(%x) {to = 9 : i64} : (tensor<3x!onnx.String>) -> tensor<3xi1>
  return %y : tensor<3xi1>
}

// -----

func.func @mixed(%x: tensor<3x!onnx.String>, %f: tensor<3xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{Equal compares a string tensor with a non-string tensor}}
  %y = "onnx.Equal"(%x, %f) : (tensor<3x!onnx.String>, tensor<3xf32>) -> tensor<3xi1>
  return %y : tensor<3xi1>
}
