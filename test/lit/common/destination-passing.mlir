// RUN: odt-opt %s --split-input-file --odt-destination-passing --verify-diagnostics | FileCheck %s

// odt-destination-passing: entry points (functions whose arguments carry
// odt.role) take memrefs. Each argument is read through
// bufferization.to_tensor restrict (writable when a result is tied to it);
// tied results are materialized into their argument, other results into new
// output arguments appended in result order (with the result's attributes).
// The function returns nothing and gets llvm.emit_c_interface. A result
// built up from tensor.empty is built up in its output instead: the empty
// destination becomes the output's to_tensor (a tied argument's own, read
// by the step too; a new one for an output argument).

// CHECK-LABEL: func.func @train_step
// CHECK-SAME:    (%[[X:[^:]*]]: memref<?x3xf32> {odt.name = "x", odt.role = "user_input"},
// CHECK-SAME:     %[[W:[^:]*]]: memref<4x3xf32> {odt.name = "w", odt.param = 0 : i64, odt.role = "parameter"},
// CHECK-SAME:     %[[G:[^:]*]]: memref<4x3xf32> {odt.name = "w_grad", odt.param = 0 : i64, odt.role = "gradient_buffer"},
// CHECK-SAME:     %[[Y:[^:]*]]: memref<?x4xf32> {odt.name = "y", odt.role = "user_output"},
// CHECK-SAME:     %[[LOSS:[^:]*]]: memref<f32> {odt.name = "loss", odt.role = "user_output"})
// CHECK-SAME:    attributes {llvm.emit_c_interface} {
// CHECK-NEXT:    %[[XT:.*]] = bufferization.to_tensor %[[X]] restrict : memref<?x3xf32> to tensor<?x3xf32>
// CHECK-NEXT:    %[[WT:.*]] = bufferization.to_tensor %[[W]] restrict : memref<4x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    %[[GT:.*]] = bufferization.to_tensor %[[G]] restrict writable : memref<4x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    %[[YO:.*]] = bufferization.to_tensor %[[Y]] restrict writable : memref<?x4xf32> to tensor<?x4xf32>
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         %[[YT:.*]] = linalg.generic {{.*}} ins(%[[XT]], %[[WT]] : {{.*}}) outs(%[[YO]] :
// CHECK:         %[[GW:.*]] = linalg.generic {{.*}} ins(%[[GT]], %{{.*}} : {{.*}}) outs(%[[GT]] :
// CHECK:         bufferization.materialize_in_destination %[[YT]] in restrict writable %[[Y]] : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
// CHECK-NEXT:    bufferization.materialize_in_destination %[[GW]] in restrict writable %[[G]] : (tensor<4x3xf32>, memref<4x3xf32>) -> ()
// CHECK-NEXT:    bufferization.materialize_in_destination %{{.*}} in restrict writable %[[LOSS]] : (tensor<f32>, memref<f32>) -> ()
// CHECK-NEXT:    return{{$}}
#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#y = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @train_step(%x: tensor<?x3xf32> {odt.name = "x", odt.role = "user_input"},
                      %w: tensor<4x3xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                      %g: tensor<4x3xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<?x4xf32> {odt.name = "y", odt.role = "user_output"},
        tensor<4x3xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64, odt.tied = 2 : i64},
        tensor<f32> {odt.name = "loss", odt.role = "user_output"}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {indexing_maps = [#a, #bt, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x3xf32>, tensor<4x3xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x4xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %w : tensor<4x3xf32>, tensor<4x3xf32>) outs(%e2 : tensor<4x3xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  %loss = arith.constant dense<0.0> : tensor<f32>
  return %y, %acc, %loss : tensor<?x4xf32>, tensor<4x3xf32>, tensor<f32>
}

// -----

// Optimizer-style entry point: every result but the flag is tied, so the
// only new argument is the flag's; weights and moments are writable.
// CHECK-LABEL: func.func @optimizer
// CHECK-SAME:    (%[[LR:[^:]*]]: memref<1xf32> {odt.name = "learning_rate", odt.role = "learning_rate"},
// CHECK-SAME:     %[[W:[^:]*]]: memref<4xf32> {{{.*}}odt.role = "parameter"},
// CHECK-SAME:     %[[G:[^:]*]]: memref<4xf32> {{{.*}}odt.role = "gradient_buffer"},
// CHECK-SAME:     %[[FLAG:[^:]*]]: memref<1xi1> {odt.name = "updated_flag", odt.role = "updated_flag"})
// CHECK-NEXT:    bufferization.to_tensor %[[LR]] restrict : memref<1xf32>
// CHECK-NEXT:    bufferization.to_tensor %[[W]] restrict writable : memref<4xf32>
// CHECK-NEXT:    bufferization.to_tensor %[[G]] restrict : memref<4xf32>
// CHECK:         bufferization.materialize_in_destination %{{.*}} in restrict writable %[[FLAG]]
// CHECK-NEXT:    bufferization.materialize_in_destination %{{.*}} in restrict writable %[[W]]
func.func @optimizer(%lr: tensor<1xf32> {odt.name = "learning_rate", odt.role = "learning_rate"},
                     %w: tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                     %g: tensor<4xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64})
    -> (tensor<1xi1> {odt.name = "updated_flag", odt.role = "updated_flag"},
        tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64, odt.tied = 1 : i64}) {
  %flag = arith.constant dense<true> : tensor<1xi1>
  %new = arith.subf %w, %g : tensor<4xf32>
  return %flag, %new : tensor<1xi1>, tensor<4xf32>
}

// -----

// The destinations followed: a loop's initial value, a fill's, both
// branches of an scf.if. A value returned twice is built up in the first
// output only; an empty of another type (a reshape between) stays.
// CHECK-LABEL: func.func @chains
// CHECK-SAME:    %[[OUT0:[^:]*]]: memref<4xf32> {odt.name = "a", odt.role = "user_output"},
// CHECK-SAME:    %[[OUT1:[^:]*]]: memref<4xf32> {odt.name = "b", odt.role = "user_output"},
// CHECK-SAME:    %[[OUT2:[^:]*]]: memref<2x2xf32> {odt.name = "c", odt.role = "user_output"},
// CHECK-SAME:    %[[OUT3:[^:]*]]: memref<4xf32> {odt.name = "d", odt.role = "user_output"})
// CHECK:         %[[A:.*]] = bufferization.to_tensor %[[OUT0]] restrict writable
// CHECK-NEXT:    %[[D:.*]] = bufferization.to_tensor %[[OUT3]] restrict writable
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         scf.if
// CHECK:           linalg.generic {{.*}} outs(%[[A]] :
// CHECK:         } else {
// CHECK:           linalg.fill {{.*}} outs(%[[A]] :
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[E1]] : tensor<4xf32>)
// CHECK:         tensor.expand_shape
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[D]])
#v = affine_map<(d0) -> (d0)>
func.func @chains(%x: tensor<4xf32> {odt.name = "x", odt.role = "user_input"},
                  %f: tensor<i1> {odt.name = "f", odt.role = "user_input"})
    -> (tensor<4xf32> {odt.name = "a", odt.role = "user_output"},
        tensor<4xf32> {odt.name = "b", odt.role = "user_output"},
        tensor<2x2xf32> {odt.name = "c", odt.role = "user_output"},
        tensor<4xf32> {odt.name = "d", odt.role = "user_output"}) {
  %flag = tensor.extract %f[] : tensor<i1>
  %zero = arith.constant 0.0 : f32
  %r = scf.if %flag -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %neg = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.negf %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    scf.yield %neg : tensor<4xf32>
  } else {
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  %e1 = tensor.empty() : tensor<4xf32>
  %sq = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %c = tensor.expand_shape %sq [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e2 = tensor.empty() : tensor<4xf32>
  %d = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %e2) -> tensor<4xf32> {
    %v = tensor.extract %x[%i] : tensor<4xf32>
    %next = tensor.insert %v into %acc[%i] : tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r, %r, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>
}

// -----

// Functions without roles are not entry points and keep tensors; neither do
// declarations change.
// CHECK-LABEL: func.func @helper
// CHECK-SAME:    (%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT:     bufferization
// CHECK:       func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// -----

// expected-error @+1 {{entry-point argument 1 is not a ranked tensor}}
func.func @unranked(%x: tensor<4xf32> {odt.role = "user_input"}, %y: tensor<*xf32> {odt.role = "user_input"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{entry-point result 0 is not a ranked tensor}}
func.func @unranked_result(%x: tensor<4xf32> {odt.role = "user_input"}) -> tensor<*xf32> {
  %0 = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// expected-error @+1 {{entry-point result 0 is tied to argument 7, which is not an argument of type 'tensor<4xf32>'}}
func.func @tied_out_of_range(%x: tensor<4xf32> {odt.role = "user_input"}) -> (tensor<4xf32> {odt.tied = 7 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{entry-point result 0 is tied to argument 0, which is not an argument of type 'tensor<5xf32>'}}
func.func @tied_type_mismatch(%x: tensor<4xf32> {odt.role = "parameter"}) -> (tensor<5xf32> {odt.tied = 0 : i64}) {
  %0 = tensor.empty() : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Arguments codegen added after odt-record-abi (panel caches of
// odt-vectorize-contractions) follow the recorded ones: they join the
// entry's record, after its arguments, before its outputs, as written.
// CHECK-LABEL: module attributes {odt.abi = {entries = {train = {arguments = [
// CHECK-SAME:    {data_type = 1 : i32, dims = [4, 3], name = "w", parameter = 0 : i64, role = "parameter", writes = false},
// CHECK-SAME:    {data_type = 1 : i32, dims = [16], name = "w.panels", parameter = 0 : i64, role = "packed_panels", writes = true},
// CHECK-SAME:    {data_type = 9 : i32, dims = [1], name = "w.panels_stale", role = "panels_stale", writes = true}],
// CHECK-SAME:    outputs = [{data_type = 1 : i32, dims = [4, 3], name = "y", role = "user_output", writes = true}]}}}
module attributes {odt.abi = {entries = {train = {
    arguments = [{data_type = 1 : i32, dims = [4, 3], name = "w", parameter = 0 : i64, role = "parameter", writes = false}],
    outputs = [{data_type = 1 : i32, dims = [4, 3], name = "y", role = "user_output", writes = true}]}}}} {
  func.func @train(%w: tensor<4x3xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                   %panels: tensor<16xf32> {odt.name = "w.panels", odt.role = "packed_panels", odt.param = 0 : i64},
                   %stale: tensor<1xi1> {odt.name = "w.panels_stale", odt.role = "panels_stale"})
      -> (tensor<4x3xf32> {odt.name = "y", odt.role = "user_output"}) {
    return %w : tensor<4x3xf32>
  }
}

// -----

// A pass that dropped a recorded argument would shift every buffer after it.
module attributes {odt.abi = {entries = {train = {
    arguments = [{data_type = 1 : i32, dims = [4, 3], name = "w", role = "user_input", writes = false},
                 {data_type = 1 : i32, dims = [4, 3], name = "v", role = "user_input", writes = false}],
    outputs = []}}}} {
  // expected-error @+1 {{entry point has 1 arguments, fewer than the 2 its ABI record lists: a pass removed some}}
  func.func @train(%w: tensor<4x3xf32> {odt.name = "w", odt.role = "user_input"})
      -> (tensor<4x3xf32> {odt.name = "y", odt.role = "user_output"}) {
    return %w : tensor<4x3xf32>
  }
}
