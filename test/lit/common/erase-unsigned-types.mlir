// RUN: odt-opt %s --odt-erase-unsigned-types | FileCheck %s

// Unsigned integer types become signless of the same width everywhere:
// arguments, results, constants (bits kept: 200 : ui8 is -56 : i8) and
// linalg bodies; bitcasts that only changed signedness disappear.
// CHECK-LABEL: func.func @max_u8
// CHECK-SAME:    (%[[A:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK-NOT:     ui8
// CHECK-NOT:     tensor.bitcast
// CHECK:         arith.constant dense<-56> : tensor<4xi8>
// CHECK:         linalg.generic
// CHECK:           arith.maxui %{{.*}}, %{{.*}} : i8
func.func @max_u8(%a: tensor<4xui8>) -> tensor<4xui8> {
  %c = arith.constant dense<200> : tensor<4xui8>
  %a_s = tensor.bitcast %a : tensor<4xui8> to tensor<4xi8>
  %c_s = tensor.bitcast %c : tensor<4xui8> to tensor<4xi8>
  %e = tensor.empty() : tensor<4xi8>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a_s, %c_s : tensor<4xi8>, tensor<4xi8>) outs(%e : tensor<4xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    %r = arith.maxui %x, %y : i8
    linalg.yield %r : i8
  } -> tensor<4xi8>
  %r = tensor.bitcast %m : tensor<4xi8> to tensor<4xui8>
  return %r : tensor<4xui8>
}
