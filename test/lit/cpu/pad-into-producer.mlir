// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-pad-into-producer))" | FileCheck %s
// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-pad-into-producer),one-shot-bufferize{bufferize-function-boundaries},canonicalize,cse,odt-expand-strided-copies)" | FileCheck %s --check-prefix=BUF

// ReLU6's output padded for a 3x3 convolution, and read again by its
// gradient: ReLU6 writes the interior of the zero-filled padded tensor,
// which is inserted back where it was taken; the other use reads the
// activation itself. Bufferized, the activation is a view of the padded
// buffer: no copy, no buffer of its own.
// CHECK-LABEL: func.func @relu6_then_pad
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4x8x8xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK-NOT:     tensor.dim
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x4x10x10xf32>
// CHECK:         %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<?x4x10x10xf32>)
// CHECK:         %[[INTERIOR:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [%[[N]], 4, 8, 8] [1, 1, 1, 1]
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x4x8x8xf32>) outs(%[[INTERIOR]] : tensor<?x4x8x8xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[Y]] into %[[FILLED]][0, 0, 1, 1] [%[[N]], 4, 8, 8] [1, 1, 1, 1]
// CHECK:         return %[[PADDED]], %[[Y]]
// BUF-LABEL: func.func @relu6_then_pad
// BUF-NOT:     memref.alloc
// BUF:         %[[ALLOC:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x4x10x10xf32>
// BUF:         linalg.fill {{.*}} outs(%[[ALLOC]]
// BUF:         %[[VIEW:.*]] = memref.subview %[[ALLOC]][0, 0, 1, 1]
// BUF:         linalg.generic {{.*}} outs(%[[VIEW]]
// BUF-NOT:     memref.copy
// BUF-NOT:     linalg.copy
// BUF-NOT:     memref.alloc
// BUF:         return %[[ALLOC]], %[[VIEW]]
func.func @relu6_then_pad(%x: tensor<?x4x8x8xf32>) -> (tensor<?x4x10x10xf32>, tensor<?x4x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4x8x8xf32>
  %empty = tensor.empty(%n) : tensor<?x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x4x8x8xf32>) outs(%empty : tensor<?x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %zero : f32
    %1 = arith.minimumf %0, %six : f32
    linalg.yield %1 : f32
  } -> tensor<?x4x8x8xf32>
  %padded = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x4x8x8xf32> to tensor<?x4x10x10xf32>
  return %padded, %y : tensor<?x4x10x10xf32>, tensor<?x4x8x8xf32>
}

// -----

// Left as they are: a producer that reads its output (an accumulation
// into a fill), a source that is an argument, and a pad of a value that
// is not a constant.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: tensor.pad
// CHECK-NOT:     tensor.insert_slice
func.func @kept(%x: tensor<4x8xf32>, %v: f32) -> (tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%filled : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %a = tensor.pad %sum low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  %b = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %c = tensor.pad %neg low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  return %a, %b, %c : tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>
}
