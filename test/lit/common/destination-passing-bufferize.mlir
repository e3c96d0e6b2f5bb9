// RUN: odt-opt %s --split-input-file --odt-destination-passing --empty-tensor-to-alloc-tensor --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s

// odt-destination-passing builds a result up in its output's tensor, and
// One-Shot bufferization decides whether that can be in place. An update
// tied to its parameter that nothing reads afterwards is computed in the
// parameter's buffer: no allocation, no copy.
// CHECK-LABEL: func.func @sgd
// CHECK-SAME:    (%[[LR:[^:]*]]: memref<f32> {{.*}}, %[[W:[^:]*]]: memref<4xf32> {{.*}}, %[[G:[^:]*]]: memref<4xf32> {{.*}})
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[W]], %[[G]], %[[LR]] : {{.*}}) outs(%[[W]] : memref<4xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return
#v = affine_map<(d0) -> (d0)>
#s = affine_map<(d0) -> ()>
func.func @sgd(%lr: tensor<f32> {odt.name = "lr", odt.role = "learning_rate"},
               %w: tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
               %g: tensor<4xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64, odt.tied = 1 : i64}) {
  %e = tensor.empty() : tensor<4xf32>
  %new = linalg.generic {indexing_maps = [#v, #v, #s, #v], iterator_types = ["parallel"]}
      ins(%w, %g, %lr : tensor<4xf32>, tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %out: f32):
    %0 = arith.mulf %r, %b : f32
    %1 = arith.subf %a, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %new : tensor<4xf32>
}

// -----

// The step reads the parameter after computing its update (here a second
// output made from the old value): the update is computed aside and copied
// into the parameter at the end, so the read sees the old value. (Upstream's
// empty-tensor elimination, which odt ran before, gave the update a second
// `restrict` to_tensor of the parameter's buffer and wrote it in place,
// before the read: `old` came out as 2 * (w - g).)
// CHECK-LABEL: func.func @read_after_update
// CHECK-SAME:    (%[[W:[^:]*]]: memref<4xf32> {{.*}}, %[[G:[^:]*]]: memref<4xf32> {{.*}}, %[[OLD:[^:]*]]: memref<4xf32> {{.*}})
// CHECK:         %[[NEW:.*]] = memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[W]], %[[G]] : {{.*}}) outs(%[[NEW]] : memref<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[W]] : {{.*}}) outs(%[[OLD]] : memref<4xf32>)
// CHECK:         memref.copy %[[NEW]], %[[W]]
// CHECK:         return
#v = affine_map<(d0) -> (d0)>
func.func @read_after_update(%w: tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                             %g: tensor<4xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64, odt.tied = 0 : i64},
        tensor<4xf32> {odt.name = "old", odt.role = "user_output"}) {
  %e = tensor.empty() : tensor<4xf32>
  %new = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %1 = arith.subf %a, %b : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %twice = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%w : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %1 = arith.addf %a, %a : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %new, %twice : tensor<4xf32>, tensor<4xf32>
}
