// RUN: onyx-opt %s --convert-onnx-to-tensor --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not=onnx.
//
// String tensors (Strings.cpp, docs/conversion.md "String tensors"):
// !onnx.String elements become index (one `const char *` each) and the
// string operators call the runtime's string services per element.

// Equal and StringConcat broadcast like any elementwise op (run-time check
// and clamped read for the dynamic operand).
// CHECK-DAG:   func.func private @onyxrt_str_equal(index, index) -> i32
// CHECK-DAG:   func.func private @onyxrt_str_concat(index, index) -> index
// CHECK-LABEL: func.func @equal_concat(%{{.*}}: tensor<?xindex>, %{{.*}}: tensor<3xindex>) -> (tensor<3xi1>, tensor<3xindex>)
// CHECK:         onyx.assert
// CHECK:         linalg.generic
// CHECK:           %[[E:.*]] = func.call @onyxrt_str_equal(%{{.*}}, %{{.*}}) : (index, index) -> i32
// CHECK:           arith.cmpi ne, %[[E]]
// CHECK:         linalg.generic
// CHECK:           func.call @onyxrt_str_concat(%{{.*}}, %{{.*}}) : (index, index) -> index
func.func @equal_concat(%a: tensor<?x!onnx.String>, %b: tensor<3x!onnx.String>) -> (tensor<3xi1>, tensor<3x!onnx.String>) {
  %e = "onnx.Equal"(%a, %b) : (tensor<?x!onnx.String>, tensor<3x!onnx.String>) -> tensor<3xi1>
  %c = "onnx.StringConcat"(%a, %b) : (tensor<?x!onnx.String>, tensor<3x!onnx.String>) -> tensor<3x!onnx.String>
  return %e, %c : tensor<3xi1>, tensor<3x!onnx.String>
}

// StringSplit: the counts, their maximum as the last extent, then part k
// of each element; the delimiter is a private global.
// CHECK-DAG:   llvm.mlir.global private constant @[[DOT:__onyx_str_[0-9a-fA-F]+]](".\00")
// CHECK-LABEL: func.func @split(
// CHECK-SAME:    %[[X:.*]]: tensor<2xindex>) -> (tensor<2x?xindex>, tensor<2xi64>)
// CHECK:         %[[MAX1:.*]] = arith.constant 1 : i64
// CHECK:         %[[COUNTS:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2xindex>) outs(%{{.*}} : tensor<2xi64>)
// CHECK:           llvm.mlir.addressof @[[DOT]] : !llvm.ptr
// CHECK:           func.call @onyxrt_str_split_count(%{{.*}}, %{{.*}}, %[[MAX1]])
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[COUNTS]] : tensor<2xi64>) outs(%{{.*}} : tensor<i64>)
// CHECK:           arith.maxsi
// CHECK:         %[[W:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[W]]) : tensor<2x?xindex>
// CHECK:         %[[PARTS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           linalg.index 1
// CHECK:           func.call @onyxrt_str_split_part
// CHECK:         return %[[PARTS]], %[[COUNTS]]
func.func @split(%x: tensor<2x!onnx.String>) -> (tensor<2x?x!onnx.String>, tensor<2xi64>) {
  %y, %z = "onnx.StringSplit"(%x) {delimiter = ".", maxsplit = 1 : i64} : (tensor<2x!onnx.String>) -> (tensor<2x?x!onnx.String>, tensor<2xi64>)
  return %y, %z : tensor<2x?x!onnx.String>, tensor<2xi64>
}

// StringNormalizer with a stop word: count the kept elements, start from
// max(kept, 1) empty strings, insert the kept ones upper-cased in order.
// CHECK-LABEL: func.func @normalize(
// CHECK-SAME:    %{{.*}}: tensor<?xindex>) -> tensor<?xindex>
// CHECK:         %[[KEPT:.*]] = scf.for {{.*}} -> (index)
// CHECK:           func.call @onyxrt_str_is_stopword
// CHECK:         %[[N:.*]] = arith.maxui %[[KEPT]], %{{.*}} : index
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?xindex>
// CHECK:         %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : index) outs(%[[INIT]] : tensor<?xindex>)
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[FILLED]], %{{.*}} = %{{.*}}) -> (tensor<?xindex>, index)
// CHECK:           scf.if
// CHECK:             %[[UP:.*]] = func.call @onyxrt_str_change_case(%{{.*}}, %{{.*}}) : (index, i32) -> index
// CHECK:             tensor.insert %[[UP]]
func.func @normalize(%x: tensor<?x!onnx.String>) -> tensor<?x!onnx.String> {
  %y = "onnx.StringNormalizer"(%x) {case_change_action = "UPPER", stopwords = ["monday"]} : (tensor<?x!onnx.String>) -> tensor<?x!onnx.String>
  return %y : tensor<?x!onnx.String>
}

// RegexFullMatch and Cast both ways.
// CHECK-LABEL: func.func @regex_cast
// CHECK:         func.call @onyxrt_str_regex_full_match
// CHECK:         func.call @onyxrt_str_from_f32(%{{.*}}) : (f32) -> index
// CHECK:         func.call @onyxrt_str_to_f32(%{{.*}}) : (index) -> f32
func.func @regex_cast(%x: tensor<4x!onnx.String>, %f: tensor<4xf32>) -> (tensor<4xi1>, tensor<4x!onnx.String>, tensor<4xf32>) {
  %m = "onnx.RegexFullMatch"(%x) {pattern = "a+b"} : (tensor<4x!onnx.String>) -> tensor<4xi1>
  %s = "onnx.Cast"(%f) {to = 8 : i64} : (tensor<4xf32>) -> tensor<4x!onnx.String>
  %g = "onnx.Cast"(%x) {to = 1 : i64} : (tensor<4x!onnx.String>) -> tensor<4xf32>
  return %m, %s, %g : tensor<4xi1>, tensor<4x!onnx.String>, tensor<4xf32>
}

// Moving strings needs nothing string-specific; Equal of numbers still
// takes the numeric lowering.
// CHECK-LABEL: func.func @moving(%{{.*}}: tensor<2x3xindex>, %{{.*}}: tensor<2xf32>) -> (tensor<3x2xindex>, tensor<2xi1>)
// CHECK:         linalg.transpose
// CHECK:         arith.cmpf oeq
func.func @moving(%x: tensor<2x3x!onnx.String>, %f: tensor<2xf32>) -> (tensor<3x2x!onnx.String>, tensor<2xi1>) {
  %t = "onnx.Transpose"(%x) {perm = [1, 0]} : (tensor<2x3x!onnx.String>) -> tensor<3x2x!onnx.String>
  %e = "onnx.Equal"(%f, %f) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %t, %e : tensor<3x2x!onnx.String>, tensor<2xi1>
}

// A string constant (initializer or Constant): one private global per
// string, the tensor built from their addresses.
// CHECK-DAG:   llvm.mlir.global private constant @[[AB:__onyx_str_[0-9a-fA-F]+]]("ab\00")
// CHECK-LABEL: func.func @constant() -> tensor<2xindex>
// CHECK:         %[[P:.*]] = llvm.mlir.addressof @[[AB]] : !llvm.ptr
// CHECK:         %[[I:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK:         %[[A:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK:         tensor.from_elements %[[A]], %{{.*}} : tensor<2xindex>
func.func @constant() -> tensor<2x!onnx.String> {
  %c = "onnx.Constant"() {value = dense<["ab", "c"]> : tensor<2x!onnx.String>} : () -> tensor<2x!onnx.String>
  return %c : tensor<2x!onnx.String>
}
