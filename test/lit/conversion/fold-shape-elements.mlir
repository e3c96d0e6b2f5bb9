// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// TorchScript's Expand computes its shape as Where(Equal(s, -1), 1, s) of a
// shape s made from the batch dim: two elementwise generics over a
// tensor.from_elements. An element the conversion's output extracts at a
// constant index is those bodies applied to that element's scalars: host
// arithmetic on the dim, not small loops whose result is read back.
// CHECK-LABEL: func.func @expand_shape
// CHECK-SAME:    (%[[BATCH:.*]]: i64)
// CHECK-NOT:     tensor.extract
// CHECK:         %[[IS_ANY:.*]] = arith.cmpi eq, %[[BATCH]], %{{.*}} : i64
// CHECK:         %[[SIZE:.*]] = arith.select %[[IS_ANY]], %{{.*}}, %[[BATCH]] : i64
// CHECK:         return %[[SIZE]]
#id = affine_map<(d0) -> (d0)>
func.func @expand_shape(%batch: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %minus1 = arith.constant -1 : i64
  %ones = arith.constant dense<1> : tensor<3xi64>
  %minus1s = arith.constant dense<-1> : tensor<3xi64>
  %shape = tensor.from_elements %batch, %minus1, %minus1 : tensor<3xi64>
  %e0 = tensor.empty() : tensor<3xi1>
  %any = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%shape, %minus1s : tensor<3xi64>, tensor<3xi64>) outs(%e0 : tensor<3xi1>) {
  ^bb0(%s: i64, %m: i64, %out: i1):
    %eq = arith.cmpi eq, %s, %m : i64
    linalg.yield %eq : i1
  } -> tensor<3xi1>
  %e1 = tensor.empty() : tensor<3xi64>
  %sizes = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%any, %ones, %shape : tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) outs(%e1 : tensor<3xi64>) {
  ^bb0(%c: i1, %one: i64, %s: i64, %out: i64):
    %r = arith.select %c, %one, %s : i64
    linalg.yield %r : i64
  } -> tensor<3xi64>
  %size = tensor.extract %sizes[%c0] : tensor<3xi64>
  return %size : i64
}

// -----

// An input whose elements are not known (a function argument), an index
// known only at run time, a generic that reads its output: the extract
// stays.
// CHECK-LABEL: func.func @unknown
// CHECK-COUNT-3: tensor.extract
#id = affine_map<(d0) -> (d0)>
func.func @unknown(%t: tensor<3xi64>, %i: index, %b: i64) -> (i64, i64, i64) {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<3xi64>
  %doubled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<3xi64>) outs(%e : tensor<3xi64>) {
  ^bb0(%x: i64, %out: i64):
    %y = arith.addi %x, %x : i64
    linalg.yield %y : i64
  } -> tensor<3xi64>
  %known = tensor.from_elements %b, %b, %b : tensor<3xi64>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%known : tensor<3xi64>) outs(%e : tensor<3xi64>) {
  ^bb0(%x: i64, %out: i64):
    %y = arith.addi %x, %x : i64
    linalg.yield %y : i64
  } -> tensor<3xi64>
  %accumulated = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%known : tensor<3xi64>) outs(%twice : tensor<3xi64>) {
  ^bb0(%x: i64, %out: i64):
    %y = arith.addi %x, %out : i64
    linalg.yield %y : i64
  } -> tensor<3xi64>
  %a = tensor.extract %doubled[%c0] : tensor<3xi64>
  %b2 = tensor.extract %twice[%i] : tensor<3xi64>
  %c = tensor.extract %accumulated[%c0] : tensor<3xi64>
  return %a, %b2, %c : i64, i64, i64
}

// -----

// A constant whose elements are not a dense attribute (a resource blob) is
// not followed: the extract stays.
// CHECK-LABEL: func.func @resource
// CHECK:         tensor.extract
#id = affine_map<(d0) -> (d0)>
func.func @resource() -> i64 {
  %c0 = arith.constant 0 : index
  %blob = arith.constant dense_resource<shape_blob> : tensor<3xi64>
  %e = tensor.empty() : tensor<3xi64>
  %doubled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%blob : tensor<3xi64>) outs(%e : tensor<3xi64>) {
  ^bb0(%x: i64, %out: i64):
    %y = arith.addi %x, %x : i64
    linalg.yield %y : i64
  } -> tensor<3xi64>
  %a = tensor.extract %doubled[%c0] : tensor<3xi64>
  return %a : i64
}

{-#
  dialect_resources: {
    builtin: {
      shape_blob: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
