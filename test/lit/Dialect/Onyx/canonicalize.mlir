// RUN: onyx-opt %s --canonicalize | FileCheck %s
//
// onyx.assert folds away when its condition is a constant true (a check
// the shape library could not prove statically but canonicalization did);
// a false or unknown condition stays.

// CHECK-LABEL: func.func @checks(
// CHECK-SAME:      %[[C:.*]]: i1)
// CHECK-NOT:     always holds
// CHECK:         onyx.assert %[[C]], "depends on data"
// CHECK:         onyx.assert %false, "never holds"
func.func @checks(%c: i1) {
  %true = arith.constant true
  %false = arith.constant false
  %a = arith.constant 64 : index
  %eq = arith.cmpi eq, %a, %a : index
  onyx.assert %true, "always holds"
  onyx.assert %eq, "always holds too"(%a, %a : index, index)
  onyx.assert %c, "depends on data"
  onyx.assert %false, "never holds"
  return
}
