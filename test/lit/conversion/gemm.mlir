// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg | FileCheck %s

// onnx.Gemm: Y = alpha * op(A) * op(B) + beta * C as one linalg.generic over
// (m, n, k); transposes live in the indexing maps, the init is beta * C
// broadcast to [M, N] (or zero), alpha scales each product.

// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_trans_b_bias
// CHECK-SAME:    (%[[A:.*]]: tensor<?x784xf32>, %[[B:.*]]: tensor<500x784xf32>, %[[C:.*]]: tensor<500xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[M:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x784xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[M]]) : tensor<?x500xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[C]] : tensor<500xf32>) outs(%[[EMPTY]] : tensor<?x500xf32>)
// CHECK-NEXT:    ^bb0(%[[CIN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[CIN]] : f32
// CHECK:         %[[RES:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$BT]], #[[$Y]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[A]], %[[B]] : tensor<?x784xf32>, tensor<500x784xf32>) outs(%[[INIT]] : tensor<?x500xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[W:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[RES]] : tensor<?x500xf32>
func.func @gemm_trans_b_bias(%a: tensor<?x784xf32>, %b: tensor<500x784xf32>, %c: tensor<500xf32>) -> tensor<?x500xf32> {
  %0 = onnx.Gemm(%a, %b, %c) {transB = 1 : i64} : (tensor<?x784xf32>, tensor<500x784xf32>, tensor<500xf32>) -> tensor<?x500xf32>
  return %0 : tensor<?x500xf32>
}

// -----

// transA with alpha and no C (ORT's weight gradient dY^T * X): the init is a
// zero fill, and alpha multiplies each product.
// CHECK-DAG:   #[[$AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_trans_a_alpha_no_c
// CHECK-SAME:    (%[[A:.*]]: tensor<?x10xf32>, %[[B:.*]]: tensor<?x500xf32>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<10x500xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<10x500xf32>)
// CHECK:         %[[ALPHA:.*]] = arith.constant 2.500000e-01 : f32
// CHECK:         %[[RES:.*]] = linalg.generic {indexing_maps = [#[[$AT]], #[[$B]], #[[$Y]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[A]], %[[B]] : tensor<?x10xf32>, tensor<?x500xf32>) outs(%[[FILL]] : tensor<10x500xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[W:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT:      %[[PA:.*]] = arith.mulf %[[ALPHA]], %[[P]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[PA]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[RES]]
func.func @gemm_trans_a_alpha_no_c(%a: tensor<?x10xf32>, %b: tensor<?x500xf32>) -> tensor<10x500xf32> {
  %none = onnx.NoValue
  %0 = onnx.Gemm(%a, %b, %none) {transA = 1 : i64, alpha = 0.25 : f32} : (tensor<?x10xf32>, tensor<?x500xf32>, none) -> tensor<10x500xf32>
  return %0 : tensor<10x500xf32>
}

// -----

// Both transposed.
// CHECK-DAG:   #[[$AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_trans_a_trans_b
// CHECK:         linalg.generic {indexing_maps = [#[[$AT]], #[[$BT]], #[[$Y]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<4x3xf32>) outs(%{{.*}} : tensor<2x4xf32>)
func.func @gemm_trans_a_trans_b(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %none = onnx.NoValue
  %0 = onnx.Gemm(%a, %b, %none) {transA = 1 : i64, transB = 1 : i64} : (tensor<3x2xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// beta != 1 scales C; a [M, 1] C collapses its unit dim and broadcasts along
// N.
// CHECK-DAG:   #[[$COL:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_beta_column_c
// CHECK-SAME:    (%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<3x4xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[COLLAPSED:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1]] : tensor<2x1xf32> into tensor<2xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[COLLAPSED]] : tensor<2xf32>) outs(%[[EMPTY]] : tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[CIN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[BETA]], %[[CIN]] : f32
// CHECK-NEXT:      linalg.yield %[[SCALED]] : f32
// CHECK:         linalg.generic {{.*}} outs(%[[INIT]] : tensor<2x4xf32>)
func.func @gemm_beta_column_c(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = onnx.Gemm(%a, %b, %c) {beta = 0.5 : f32} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// beta = 0 ignores C entirely (ORT exports its gradient Gemms this way).
// CHECK-LABEL: func.func @gemm_beta_zero
// CHECK-SAME:    %[[C:[^:]*]]: tensor<2x4xf32>)
// CHECK-NOT:     %[[C]]
// CHECK:         linalg.fill
// CHECK-NOT:     %[[C]]
// CHECK:         return
func.func @gemm_beta_zero(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = onnx.Gemm(%a, %b, %c) {beta = 0.0 : f32} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A result type more static than the operands' dims gets a tensor.cast.
// CHECK-LABEL: func.func @gemm_refined_result
// CHECK:         %[[RES:.*]] = linalg.generic
// CHECK:         } -> tensor<?x4xf32>
// CHECK-NEXT:    %[[CAST:.*]] = tensor.cast %[[RES]] : tensor<?x4xf32> to tensor<8x4xf32>
// CHECK:         return %[[CAST]] : tensor<8x4xf32>
func.func @gemm_refined_result(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>) -> tensor<8x4xf32> {
  %none = onnx.NoValue
  %0 = onnx.Gemm(%a, %b, %none) : (tensor<?x3xf32>, tensor<3x4xf32>, none) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
