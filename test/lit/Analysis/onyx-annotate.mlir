// REQUIRES: onyx-annotate
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/model.mlir
// RUN: onyx-annotate %t/model.mlir | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=DG < %t/model-dg.mlir
// RUN: FileCheck %s --check-prefix=ANN < %t/model-annotated.mlir
// RUN: onyx-opt --onnx-dim-analysis %t/model.mlir | diff - %t/model-dg.mlir
// RUN: onyx-annotate %t/model.mlir --prefix=%t/other > /dev/null
// RUN: diff %t/model-annotated.mlir %t/other-annotated.mlir | FileCheck %s --check-prefix=SAME --allow-empty
// RUN: onyx-annotate --help | FileCheck %s --check-prefix=HELP
//
// onyx-annotate FILE.mlir writes FILE-dg.mlir (exactly the
// --onnx-dim-analysis output) and FILE-annotated.mlir (groups folded into
// the types: dN where group N first appears, uN after).

// WROTE: wrote {{.*}}model-dg.mlir
// WROTE-NEXT: wrote {{.*}}model-annotated.mlir

// DG-LABEL: func.func @sigmoid
// DG-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 0 : i64, group_id = 0 : i64}>
// DG-NEXT:    "onnx.DimGroup"(%arg0) <{axis = 2 : i64, group_id = 1 : i64}>

// ANN:       // 3 groups, 1 offset relations, 0 constant groups
// ANN-NEXT:  //   d2 = d0 + 2
// ANN-LABEL: func.func @sigmoid(%arg0: tensor<d0x3xd1xf32, #onnx.dg<0:0,2:1>>) -> tensor<d2x3xu1xf32, #onnx.dg<0:2,2:1>>
// ANN-NOT:   onnx.DimGroup
// ANN-NEXT:    %0 = "onnx.Sigmoid"(%arg0) : (tensor<u0x3xu1xf32, #onnx.dg<0:0,2:1>>) -> tensor<u0x3xu1xf32, #onnx.dg<0:0,2:1>>
// ANN:         %[[P:.*]] = "onnx.Pad"(%0, %{{.*}}, %{{.*}}, %{{.*}}) {{.*}}: (tensor<u0x3xu1xf32, #onnx.dg<0:0,2:1>>, tensor<6xi64>, none, none) -> tensor<u2x3xu1xf32, #onnx.dg<0:2,2:1>>
// ANN-NEXT:    return %[[P]] : tensor<u2x3xu1xf32, #onnx.dg<0:2,2:1>>

// SAME-NOT: {{.}}

// HELP: FILE-dg.mlir
// HELP: FILE-annotated.mlir
// HELP: --prefix=<PREFIX>
// HELP: --trace

func.func @sigmoid(%arg0: tensor<?x3x?xf32>) -> tensor<?x3x?xf32> {
  %0 = "onnx.Sigmoid"(%arg0) : (tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
  %pads = "onnx.Constant"() {value = dense<[1, 0, 0, 1, 0, 0]> : tensor<6xi64>} : () -> tensor<6xi64>
  %none = onnx.NoValue
  %1 = "onnx.Pad"(%0, %pads, %none, %none) : (tensor<?x3x?xf32>, tensor<6xi64>, none, none) -> tensor<?x3x?xf32>
  return %1 : tensor<?x3x?xf32>
}
