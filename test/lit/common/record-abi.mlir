// RUN: odt-opt %s --split-input-file --odt-record-abi --verify-diagnostics | FileCheck %s

// odt-record-abi: the ABI the descriptor is built from, written once at the
// end of the graph stage as the module attribute odt.abi. Per entry point:
// its arguments in order, then its results not tied to an argument (the
// output buffers odt-destination-passing appends), each with name, role,
// ONNX data type (uint8 stays 2: lowering makes it signless later), dims as
// sizes or symbols, the parameter index, and whether the entry writes it.
// An integer input that indexes data gets the values every such use accepts
// (through ops that only move values: a widening Cast), and the op that
// narrows them most. An output whose dims no argument binds needs a shape
// function.

// CHECK-LABEL: module attributes {odt.abi = {entries = {train = {arguments = [
// CHECK-SAME:    {data_type = 6 : i32, dims = ["batch"], name = "ids", role = "user_input", value_range = [-6, 5], value_range_reason = "node 'small_table' (onnx.Gather)", writes = false},
// CHECK-SAME:    {data_type = 1 : i32, dims = [10, 4], name = "table", parameter = 0 : i64, role = "parameter", writes = false},
// CHECK-SAME:    {data_type = 1 : i32, dims = [10, 4], name = "table_grad", parameter = 0 : i64, role = "gradient_buffer", writes = true},
// CHECK-SAME:    {data_type = 2 : i32, dims = [3], name = "bytes", role = "user_input", writes = false}],
// CHECK-SAME:    outputs = [{data_type = 1 : i32, dims = ["batch", 4], name = "rows", role = "user_output", writes = true},
// CHECK-SAME:               {data_type = 1 : i32, dims = ["unbound"], name = "picked", role = "user_output", writes = true}],
// CHECK-SAME:    shape_function}},
// CHECK-SAME:    parameters = [{data_type = 1 : i32, dims = [10, 4], name = "table", trainable = true}]}
module attributes {odt.parameters = [{name = "table", trainable = true, type = tensor<10x4xf32>}]} {
  func.func @train(%ids: tensor<?xi32> {odt.name = "ids", odt.role = "user_input", onnx.dims = ["batch"]},
                   %table: tensor<10x4xf32> {odt.name = "table", odt.role = "parameter", odt.param = 0 : i64},
                   %grad: tensor<10x4xf32> {odt.name = "table_grad", odt.role = "gradient_buffer", odt.param = 0 : i64},
                   %bytes: tensor<3xui8> {odt.name = "bytes", odt.role = "user_input"})
      -> (tensor<?x4xf32> {odt.name = "rows", odt.role = "user_output", onnx.dims = ["batch", 4]},
          tensor<10x4xf32> {odt.name = "table_grad", odt.role = "gradient_buffer", odt.param = 0 : i64, odt.tied = 2 : i64},
          tensor<?xf32> {odt.name = "picked", odt.role = "user_output", onnx.dims = ["unbound"]}) {
    %wide = onnx.Cast(%ids) {to = 7 : i64} : (tensor<?xi32>) -> tensor<?xi64>
    %rows = onnx.Gather(%table, %wide) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
    %small = onnx.Constant {value = dense<1.0> : tensor<6xf32>} : tensor<6xf32>
    %picked = onnx.Gather(%small, %ids) {axis = 0 : i64} : (tensor<6xf32>, tensor<?xi32>) -> tensor<?xf32> loc("small_table")
    return %rows, %grad, %picked : tensor<?x4xf32>, tensor<10x4xf32>, tensor<?xf32>
  }
}

// -----

// The optimizer's kind and hyper-parameters, as the op holds them.
// CHECK-LABEL: module attributes {odt.abi = {entries = {optimizer = {arguments = [
// CHECK-SAME:    {data_type = 1 : i32, dims = [1], name = "lr", role = "learning_rate", writes = false},
// CHECK-SAME:    {data_type = 1 : i32, dims = [4], name = "w", parameter = 0 : i64, role = "parameter", writes = true},
// CHECK-SAME:    outputs = [{data_type = 9 : i32, dims = [1], name = "flag", role = "updated_flag", writes = true}]}},
// CHECK-SAME:    optimizer = {adam_mode = 1 : i64, alpha = 0.899999976 : f32, beta = 9.990000e-01 : f32, correct_bias = true, epsilon = 9.99999997E-7 : f32, kind = "AdamW", weight_decay = 1.000000e-01 : f32}
module attributes {odt.parameters = [{name = "w", trainable = true, type = tensor<4xf32>}]} {
  func.func @optimizer(%lr: tensor<1xf32> {odt.name = "lr", odt.role = "learning_rate"},
                       %step: tensor<1xi64> {odt.name = "step", odt.role = "step"},
                       %w: tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64},
                       %g: tensor<4xf32> {odt.name = "w_grad", odt.role = "gradient_buffer", odt.param = 0 : i64},
                       %m: tensor<4xf32> {odt.name = "w.m", odt.role = "first_moment", odt.param = 0 : i64},
                       %v: tensor<4xf32> {odt.name = "w.v", odt.role = "second_moment", odt.param = 0 : i64})
      -> (tensor<1xi1> {odt.name = "flag", odt.role = "updated_flag"},
          tensor<4xf32> {odt.name = "w", odt.role = "parameter", odt.param = 0 : i64, odt.tied = 2 : i64},
          tensor<4xf32> {odt.name = "w.m", odt.role = "first_moment", odt.param = 0 : i64, odt.tied = 4 : i64},
          tensor<4xf32> {odt.name = "w.v", odt.role = "second_moment", odt.param = 0 : i64, odt.tied = 5 : i64}) {
    %0:4 = onnx.ms.AdamWOptimizer(%lr, %step, %w, %g, %m, %v) {adam_mode = 1 : i64, epsilon = 1.0e-6 : f32, weight_decay = 0.1 : f32}
        : (tensor<1xf32>, tensor<1xi64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> (tensor<1xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<1xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

// -----

module attributes {odt.parameters = []} {
  // expected-error @+1 {{'x' has a dynamic dim 0 without a symbol}}
  func.func @eval(%x: tensor<?x3xf32> {odt.name = "x", odt.role = "user_input"}) -> (tensor<?x3xf32> {odt.name = "y", odt.role = "user_output", onnx.dims = ["n", 3]}) {
    return %x : tensor<?x3xf32>
  }
}

// -----

module attributes {odt.parameters = []} {
  // expected-error @+1 {{entry point 'eval' has a buffer without name, role or ranked tensor type}}
  func.func @eval(%x: tensor<3xf32> {odt.name = "x", odt.role = "user_input"}, %y: tensor<3xf32> {odt.name = "y"}) -> (tensor<3xf32> {odt.name = "z", odt.role = "user_output"}) {
    return %x : tensor<3xf32>
  }
}

// -----

// expected-error @+1 {{module has no odt.parameters}}
module {
  func.func @eval(%x: tensor<3xf32> {odt.name = "x", odt.role = "user_input"}) -> (tensor<3xf32> {odt.name = "z", odt.role = "user_output"}) {
    return %x : tensor<3xf32>
  }
}
