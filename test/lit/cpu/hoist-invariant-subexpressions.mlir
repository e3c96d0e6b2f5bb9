// RUN: odt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(odt-hoist-invariant-subexpressions))" | FileCheck %s

// BatchNorm's normalization: sqrt(var + eps) reads only the channel's
// variance, so it is computed once per channel, in a generic over c, and
// read by the elementwise op through (n, c, h, w) -> (c). What stays per
// element: the subtraction, the division, the scale and the shift.
// CHECK-LABEL: func.func @batchnorm
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[STD:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%arg2 : tensor<4xf32>) outs(%[[EMPTY]] : tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1, %arg2, %arg3, %arg4, %[[STD]] : {{.*}})
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: f32, %[[G:.*]]: f32, %[[B:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[D]], %[[S]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[Q]], %[[G]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[P]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
func.func @batchnorm(%x: tensor<?x4x2x8xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<?x4x2x8xf32> {
  %eps = arith.constant 1.0e-5 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x2x8xf32>
  %init = tensor.empty(%n) : tensor<?x4x2x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                        affine_map<(n, c, h, w) -> (c)>,
                                        affine_map<(n, c, h, w) -> (c)>,
                                        affine_map<(n, c, h, w) -> (c)>,
                                        affine_map<(n, c, h, w) -> (c)>,
                                        affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %var, %gamma, %beta : tensor<?x4x2x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%init : tensor<?x4x2x8xf32>) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %b: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.addf %v, %eps : f32
    %2 = math.sqrt %1 : f32
    %3 = arith.divf %0, %2 : f32
    %4 = arith.mulf %3, %g : f32
    %5 = arith.addf %4, %b : f32
    linalg.yield %5 : f32
  } -> tensor<?x4x2x8xf32>
  return %y : tensor<?x4x2x8xf32>
}

// -----

// Two roots over different loops: gamma * rstd / count per channel (the
// count a value from outside the body), and a per-(n, c) value; the
// per-channel one is computed once per channel, the other once per row.
// CHECK-LABEL: func.func @two_roots
// CHECK:         %[[PER_C:.*]] = linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.divf %{{.*}}, %arg4
// CHECK:         %[[PER_NC:.*]] = linalg.generic {{.*}} ins(%arg3 : tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}, #[[C:.*]], #[[NC:.*]], #{{.*}}]
// CHECK-SAME:      ins(%arg0, %arg1, %arg2, %arg3, %[[PER_C]], %[[PER_NC]] :
// CHECK-NOT:       math.exp
// CHECK-NOT:       arith.divf
// CHECK:           linalg.yield
func.func @two_roots(%dy: tensor<16x8x32xf32>, %gamma: tensor<8xf32>, %rstd: tensor<8xf32>, %row: tensor<16x8xf32>, %count: f32) -> tensor<16x8x32xf32> {
  %init = tensor.empty() : tensor<16x8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, c, w) -> (n, c, w)>,
                                        affine_map<(n, c, w) -> (c)>,
                                        affine_map<(n, c, w) -> (c)>,
                                        affine_map<(n, c, w) -> (n, c)>,
                                        affine_map<(n, c, w) -> (n, c, w)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%dy, %gamma, %rstd, %row : tensor<16x8x32xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>)
      outs(%init : tensor<16x8x32xf32>) {
  ^bb0(%d: f32, %g: f32, %r: f32, %e: f32, %out: f32):
    %0 = arith.mulf %g, %r : f32
    %1 = arith.divf %0, %count : f32
    %2 = math.exp %e : f32
    %3 = arith.mulf %d, %1 : f32
    %4 = arith.addf %3, %2 : f32
    linalg.yield %4 : f32
  } -> tensor<16x8x32xf32>
  return %y : tensor<16x8x32xf32>
}

// -----

// Nothing to gain: the loops a root leaves out (w, 2 points) are fewer than
// min-saving (4), and an op that varies along every loop stays.
// CHECK-LABEL: func.func @too_little
// CHECK:         linalg.generic
// CHECK:           math.sqrt
// CHECK-NOT:     linalg.generic
func.func @too_little(%x: tensor<8x2xf32>, %v: tensor<8xf32>) -> tensor<8x2xf32> {
  %init = tensor.empty() : tensor<8x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(c, w) -> (c, w)>,
                                        affine_map<(c, w) -> (c)>,
                                        affine_map<(c, w) -> (c, w)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %v : tensor<8x2xf32>, tensor<8xf32>) outs(%init : tensor<8x2xf32>) {
  ^bb0(%in: f32, %var: f32, %out: f32):
    %0 = math.sqrt %var : f32
    %1 = arith.mulf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}
