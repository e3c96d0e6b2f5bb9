// RUN: odt-opt %s --split-input-file --odt-fuse-elementwise | FileCheck %s

#id = affine_map<(m, n) -> (m, n)>

// A ReLU feeding a matrix product stays its own loop: fused, it would be
// recomputed for every output column (the product reads it through
// (m, k), which ignores n).
// CHECK-LABEL: func.func @relu_then_product
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[RELU]],
// CHECK-NOT:       arith.maximumf
func.func @relu_then_product(%x: tensor<8x4xf32>, %w: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%relu, %w : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

#id = affine_map<(m, n) -> (m, n)>

// Into a row reduction that reads each element once (exp then sum), and
// into elementwise consumers, producers still fuse.
// CHECK-LABEL: func.func @exp_then_row_sum
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
func.func @exp_then_row_sum(%x: tensor<8x4xf32>, %s: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(m, n) -> (m)>], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<8x4xf32>) outs(%s : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %acc, %in : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// A producer that reads through a map other than a projected permutation
// (a floordiv: a pooling gradient's window, a strided input gradient's
// phases) stays out of a reduction, which the CPU's row vectorization
// would then leave scalar (the sum reads y too, so that its loops stay
// covered and linalg would fuse); an elementwise consumer still takes it.
// CHECK-LABEL: func.func @spread_then_row_sum
// CHECK:         %[[SPREAD:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[SPREAD]], %arg2
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg2
// CHECK:           arith.mulf
// CHECK:           arith.addf
#id = affine_map<(m, n) -> (m, n)>
func.func @spread_then_row_sum(%half: tensor<8x2xf32>, %s: tensor<8xf32>, %y: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8x4xf32>) {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %spread = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n floordiv 2)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%half : tensor<8x2xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, affine_map<(m, n) -> (m)>], iterator_types = ["parallel", "reduction"]}
      ins(%spread, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%s : tensor<8xf32>) {
  ^bb0(%in: f32, %b: f32, %acc: f32):
    %p = arith.mulf %in, %b : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %twice = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n floordiv 2)>, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%half, %y : tensor<8x2xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %plus = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%twice, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  return %sum, %plus : tensor<8xf32>, tensor<8x4xf32>
}

// -----

// A transpose only moves values: it is fused into the product that reads
// it (the product reads the untransposed tensor through a permuted map).
// CHECK-LABEL: func.func @transpose_then_product
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg1, %arg0 :
// CHECK-NOT:     linalg.generic
func.func @transpose_then_product(%w: tensor<16x4xf32>, %x: tensor<8x16xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %t : tensor<8x16xf32>, tensor<4x16xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}

// -----

#id = affine_map<(n, c) -> (n, c)>
#ch = affine_map<(n, c) -> (c)>

// A cheap producer (a normalization: x * alpha + beta per channel) read by
// two elementwise consumers (ReLU6 in the forward, the gradient's mask in
// the backward) is computed again inside each: its result is never
// written, each consumer reads x, which a later op (BatchNorm's gradient,
// here a sum) reads anyway.
// CHECK-LABEL: func.func @normalize_read_twice
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1, %arg2 :
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1, %arg2, %arg3 :
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:           arith.cmpf
// CHECK:           arith.select
// CHECK:         linalg.generic {{.*}}"reduction"
// CHECK-SAME:      ins(%arg0 :
// CHECK-NOT:     linalg.generic
func.func @normalize_read_twice(%x: tensor<8x4xf32>, %alpha: tensor<4xf32>, %beta: tensor<4xf32>, %dy: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %alpha, %beta : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %a: f32, %b: f32, %out: f32):
    %m = arith.mulf %in, %a : f32
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %lo = arith.maximumf %in, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %dy : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %d: f32, %out: f32):
    %inside = arith.cmpf olt, %in, %six : f32
    %r = arith.select %inside, %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %c = tensor.empty() : tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #ch], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %z, %g, %sum : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(n, c) -> (n, c)>
#ch = affine_map<(n, c) -> (c)>

// The same producer whose input nothing reads after its consumers (a
// product's output, which the bias add would overwrite in place) stays one
// op that both read: computed again in each, it would keep its input alive
// until the last of them in place of its result.
// CHECK-LABEL: func.func @bias_add_read_twice
// CHECK:         %[[Y:.*]] = linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 :
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[Y]] :
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[Y]], %arg2 :
func.func @bias_add_read_twice(%x: tensor<8x4xf32>, %bias: tensor<4xf32>, %dy: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<8x4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %dy : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %d: f32, %out: f32):
    %pos = arith.cmpf ogt, %in, %zero : f32
    %r = arith.select %pos, %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  return %z, %g : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// After fusion: ReLU6's gradient mask applied to dY (two inputs as large
// as its result: x, which BatchNorm's gradient reads anyway, and dY, read
// by nothing else), read by a sum over each row (a reduction whose every
// loop moves it) and by an elementwise op, is computed again in both:
// dY * mask is never written, and dY lives until the second consumer in
// its place.
// CHECK-LABEL: func.func @mask_read_by_sum_and_elementwise
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[DY:.*]]: tensor<4x16xf32>
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         return
#row2 = affine_map<(m, n) -> (m, n)>
#sum2 = affine_map<(m, n) -> (m)>
func.func @mask_read_by_sum_and_elementwise(%x: tensor<4x16xf32>, %dy: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %masked = linalg.generic {indexing_maps = [#row2, #row2, #row2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %g: f32, %out: f32):
    %above = arith.cmpf ogt, %a, %zero : f32
    %below = arith.cmpf olt, %a, %six : f32
    %inside = arith.andi %above, %below : i1
    %r = arith.select %inside, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %s0 = tensor.empty() : tensor<4xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#row2, #row2, #sum2], iterator_types = ["parallel", "reduction"]}
      ins(%masked, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%s1 : tensor<4xf32>) {
  ^bb0(%m: f32, %a: f32, %acc: f32):
    %p = arith.mulf %m, %a : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %dx = linalg.generic {indexing_maps = [#row2, #row2, #row2], iterator_types = ["parallel", "parallel"]}
      ins(%masked, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%m: f32, %a: f32, %out: f32):
    %r = arith.subf %m, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %sum, %dx : tensor<4xf32>, tensor<4x16xf32>
}

// -----

// The same mask read by a 2x2 max pooling over it and x (a window: its
// map is no permutation of the loops) and by an elementwise op stays one
// op, written once.
// CHECK-LABEL: func.func @mask_read_by_window
// CHECK:         %[[MASKED:.*]] = linalg.generic
// CHECK:           arith.select
// CHECK:         linalg.generic {{.*}} ins(%[[MASKED]]
// CHECK:         linalg.generic {{.*}} ins(%[[MASKED]]
#row2 = affine_map<(m, n) -> (m, n)>
#img = affine_map<(i, j, ki, kj) -> (i * 2 + ki, j * 2 + kj)>
#win = affine_map<(i, j, ki, kj) -> (ki, kj)>
#pooled = affine_map<(i, j, ki, kj) -> (i, j)>
func.func @mask_read_by_window(%x: tensor<8x8xf32>, %dy: tensor<8x8xf32>) -> (tensor<4x4xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %masked = linalg.generic {indexing_maps = [#row2, #row2, #row2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %dy : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %g: f32, %out: f32):
    %above = arith.cmpf ogt, %a, %zero : f32
    %below = arith.cmpf olt, %a, %six : f32
    %inside = arith.andi %above, %below : i1
    %r = arith.select %inside, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %p0 = tensor.empty() : tensor<4x4xf32>
  %p1 = linalg.fill ins(%zero : f32) outs(%p0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %pool = linalg.generic {indexing_maps = [#img, #img, #win, #pooled], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%masked, %x, %window : tensor<8x8xf32>, tensor<8x8xf32>, tensor<2x2xf32>) outs(%p1 : tensor<4x4xf32>) {
  ^bb0(%m: f32, %a: f32, %w: f32, %acc: f32):
    %p = arith.mulf %m, %a : f32
    %r = arith.maximumf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %dx = linalg.generic {indexing_maps = [#row2, #row2, #row2], iterator_types = ["parallel", "parallel"]}
      ins(%masked, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %a: f32, %out: f32):
    %r = arith.subf %m, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %pool, %dx : tensor<4x4xf32>, tensor<8x8xf32>
}

// -----

// An elementwise producer of index elements (no bit width) read twice is
// no candidate for either copying rule: it stays, written once.
// CHECK-LABEL: func.func @index_producer_read_twice
// CHECK:         %[[SHIFTED:.*]] = linalg.generic
// CHECK:           arith.addi
// CHECK:         linalg.generic {{.*}} ins(%[[SHIFTED]]
// CHECK:         linalg.generic {{.*}} ins(%[[SHIFTED]]
#line = affine_map<(i) -> (i)>
func.func @index_producer_read_twice(%a: tensor<4xindex>) -> (tensor<4xindex>, tensor<4xindex>) {
  %one = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xindex>
  %shifted = linalg.generic {indexing_maps = [#line, #line], iterator_types = ["parallel"]}
      ins(%a : tensor<4xindex>) outs(%e : tensor<4xindex>) {
  ^bb0(%in: index, %out: index):
    %r = arith.addi %in, %one : index
    linalg.yield %r : index
  } -> tensor<4xindex>
  %doubled = linalg.generic {indexing_maps = [#line, #line, #line], iterator_types = ["parallel"]}
      ins(%shifted, %a : tensor<4xindex>, tensor<4xindex>) outs(%e : tensor<4xindex>) {
  ^bb0(%s: index, %x: index, %out: index):
    %r = arith.addi %s, %x : index
    linalg.yield %r : index
  } -> tensor<4xindex>
  %squared = linalg.generic {indexing_maps = [#line, #line, #line], iterator_types = ["parallel"]}
      ins(%shifted, %a : tensor<4xindex>, tensor<4xindex>) outs(%e : tensor<4xindex>) {
  ^bb0(%s: index, %x: index, %out: index):
    %r = arith.muli %s, %x : index
    linalg.yield %r : index
  } -> tensor<4xindex>
  return %doubled, %squared : tensor<4xindex>, tensor<4xindex>
}
