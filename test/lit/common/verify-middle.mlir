// RUN: odt-opt %s --split-input-file --verify-diagnostics --odt-verify-middle | FileCheck %s

// What the middle's contract allows (docs/middle-contract.md): linalg,
// tensor, arith and math on tensors and scalars, scf loops, a loop-carried
// state's own buffer.
// CHECK-LABEL: func.func @allowed
func.func @allowed(%x: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %state = bufferization.alloc_tensor(%d) : tensor<?x4xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%state : tensor<?x4xf32>) -> tensor<?x4xf32>
  %loop = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %filled) -> tensor<?x4xf32> {
    %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x4xf32>) outs(%acc : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      %s = arith.addf %e, %out : f32
      linalg.yield %s : f32
    } -> tensor<?x4xf32>
    scf.yield %sum : tensor<?x4xf32>
  }
  return %loop : tensor<?x4xf32>
}

// -----

func.func @onnx_left(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'onnx.Relu' breaks the middle's contract (docs/middle-contract.md): an onnx op that was not lowered}}
  %y = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Parallel loops are the backends' decision (the CPU's image loops are made
// by odt-lower-convolutions, after the middle).
func.func @forall(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'scf.forall' breaks the middle's contract (docs/middle-contract.md): a parallel loop is a backend's decision}}
  %r = scf.forall (%i) in (8) shared_outs(%out = %x) -> tensor<8xf32> {
    %e = tensor.extract_slice %x[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %e into %out[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}

// -----

// Buffers are the backends'.
// expected-error @+1 {{'func.func' breaks the middle's contract (docs/middle-contract.md): a memref or vector block argument}}
func.func @buffers(%x: memref<4xf32>) {
  return
}

// -----

func.func @vectors(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  // expected-error @+1 {{'vector.transfer_read' breaks the middle's contract (docs/middle-contract.md): not an op of the middle}}
  %v = vector.transfer_read %x[%c0], %pad : tensor<8xf32>, vector<8xf32>
  // expected-error @+1 {{'vector.transfer_write' breaks the middle's contract (docs/middle-contract.md): not an op of the middle}}
  %w = vector.transfer_write %v, %x[%c0] : vector<8xf32>, tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

// A vector-typed value from an allowed dialect is refused too.
func.func @vector_value(%x: f32) -> f32 {
  // expected-error @+1 {{'arith.constant' breaks the middle's contract (docs/middle-contract.md): a memref or vector result}}
  %v = arith.constant dense<1.0> : vector<4xf32>
  return %x : f32
}

// -----

func.func @callee() {
  return
}
func.func @caller() {
  // expected-error @+1 {{'func.call' breaks the middle's contract (docs/middle-contract.md): not an op of the middle}}
  func.call @callee() : () -> ()
  return
}
