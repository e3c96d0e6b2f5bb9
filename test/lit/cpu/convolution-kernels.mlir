// RUN: odt-opt %s --split-input-file --odt-convert-onnx-to-linalg --canonicalize --odt-select-convolution-kernels --odt-lower-convolutions --canonicalize --cse | FileCheck %s

// What odt-lower-convolutions builds for each odt.convolution kernel
// (codegen/cpu/ConvolutionKernels.cpp), from the middle's convolutions.

// A forward convolution, image_columns: per image, in parallel, the
// filter [F, C*KH*KW] times the image's columns. Its 64 output positions
// make 2 panels of 32 (4 output rows each; no odt.target: AVX-512's two
// vectors of 16), computed one after the other: a panel's columns
// [1, 1, C*KH*KW, 32] (the layout the product's packed kernel reads in
// place) are copied from the 6 input rows its 4 output rows read, into a
// buffer the loop carries from panel to panel, and the filter times them
// is the panel's slice of the output, viewed as [1, F, panels, 32]. The
// output starts at zero: each panel's slice is filled in the loop, where
// the product starts from the constant (not a shared zero buffer copied
// into the output).
// CHECK-DAG:   #[[FIRST_ROW:.*]] = affine_map<()[s0] -> (s0 * 4)>
// CHECK-DAG:   #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d1 * 4 + d5 + d3, d4 + d6)>
// CHECK-DAG:   #[[FILTER_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-DAG:   #[[PANEL_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG:   #[[OUT_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @forward
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<?x4x8x8xf32>
// CHECK:         %[[FILTER:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<4x3x3x3xf32> into tensor<4x27xf32>
// CHECK:         scf.forall (%[[N:.*]]) in (%{{.*}}) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<?x4x8x8xf32>)
// CHECK:           %[[IMAGE:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0] [1, 3, 10, 10]
// CHECK:           %[[VIEW:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [1, 4, 2, 32] : tensor<1x4x64xf32> into tensor<1x4x2x32xf32>
// CHECK:           %[[BUFFER:.*]] = tensor.empty() : tensor<1x1x3x3x3x4x8xf32>
// CHECK:           %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %[[VIEW]], %[[CARRIED:.*]] = %[[BUFFER]])
// CHECK:             %[[ROW:.*]] = affine.apply #[[FIRST_ROW]]()[%[[T]]]
// CHECK:             %[[ROWS:.*]] = tensor.extract_slice %[[IMAGE]][0, 0, %[[ROW]], 0] [1, 3, 6, 10]
// CHECK:             %[[COLS:.*]] = linalg.generic {indexing_maps = [#[[WINDOW]], #{{.*}}]{{.*}} ins(%[[ROWS]] : tensor<1x3x6x10xf32>) outs(%[[CARRIED]] : tensor<1x1x3x3x3x4x8xf32>)
// CHECK:             %[[PANEL:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0], [1], [2, 3, 4], [5, 6]] : tensor<1x1x3x3x3x4x8xf32> into tensor<1x1x27x32xf32>
// CHECK:             %[[SLICE:.*]] = tensor.extract_slice %[[ACC]][0, 0, %[[T]], 0] [1, 4, 1, 32]
// CHECK:             %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<1x4x1x32xf32>)
// CHECK:             %[[PRODUCT:.*]] = linalg.generic {indexing_maps = [#[[FILTER_MAP]], #[[PANEL_MAP]], #[[OUT_MAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[FILTER]], %[[PANEL]] : tensor<4x27xf32>, tensor<1x1x27x32xf32>) outs(%[[ZEROS]] : tensor<1x4x1x32xf32>)
// CHECK:             %[[UPDATED:.*]] = tensor.insert_slice %[[PRODUCT]] into %[[ACC]][0, 0, %[[T]], 0] [1, 4, 1, 32]
// CHECK:             scf.yield %[[UPDATED]], %[[COLS]]
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[N]], 0, 0, 0] [1, 4, 8, 8]
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @forward(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

// 5 x 5 output positions do not split into panels: 2 images' columns side
// by side ([C*KH*KW, 2*OH*OW], chunk_images = 2), the filter [F, C*KH*KW]
// times them into a [F, 2*OH*OW] buffer filled with the output's start
// (zero: filled there, not a shared zero buffer copied into the output),
// then copied into the 2 images' slice of the output: a forall over the
// whole chunks (none for a batch under 4), then one over the images left
// over, each its own product of [1, C*KH*KW, OH*OW] columns.
// CHECK-LABEL: func.func @forward_one_matrix
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<?x4x5x5xf32>
// CHECK:         %[[FILTER:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<4x3x3x3xf32> into tensor<4x27xf32>
// CHECK:         %[[ENOUGH:.*]] = arith.cmpi uge, %[[N:.*]], %c4
// CHECK:         %[[HALF:.*]] = arith.divui %[[N]], %c2
// CHECK:         %[[CHUNKS:.*]] = arith.select %[[ENOUGH]], %[[HALF]], %c0
// CHECK:         %[[CHUNKED:.*]] = arith.muli %[[CHUNKS]], %c2
// CHECK:         %[[BYCHUNKS:.*]] = scf.forall (%[[C:.*]]) in (%[[CHUNKS]]) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<?x4x5x5xf32>)
// CHECK:           %[[FIRST:.*]] = arith.muli %[[C]], %c2
// CHECK:           %[[OUTCHUNK:.*]] = tensor.extract_slice %[[OUT]][%[[FIRST]], 0, 0, 0] [2, 4, 5, 5]
// CHECK:           %[[IMAGES:.*]] = tensor.extract_slice %{{.*}}[%[[FIRST]], 0, 0, 0] [2, 3, 7, 7]
// CHECK:           %[[COLS:.*]] = linalg.generic {{.*}} ins(%[[IMAGES]] : tensor<2x3x7x7xf32>) outs(%{{.*}} : tensor<3x3x3x2x5x5xf32>)
// CHECK:           %[[COLMAT:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<3x3x3x2x5x5xf32> into tensor<27x50xf32>
// CHECK:           %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x50xf32>)
// CHECK:           %[[PRODUCT:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[FILTER]], %[[COLMAT]] : tensor<4x27xf32>, tensor<27x50xf32>) outs(%[[ZEROS]] : tensor<4x50xf32>)
// CHECK:           %[[STAGED:.*]] = tensor.expand_shape %[[PRODUCT]] {{.*}} into tensor<4x2x5x5xf32>
// CHECK:           %[[COPIED:.*]] = linalg.generic {{.*}} ins(%[[STAGED]] : tensor<4x2x5x5xf32>) outs(%[[OUTCHUNK]] : tensor<2x4x5x5xf32>)
// CHECK:           tensor.parallel_insert_slice %[[COPIED]] into %[[OUT]][%[[FIRST]], 0, 0, 0] [2, 4, 5, 5]
// CHECK:         %[[LEFT:.*]] = arith.subi %[[N]], %[[CHUNKED]]
// CHECK:         scf.forall (%[[I:.*]]) in (%[[LEFT]]) shared_outs(%[[OUT2:.*]] = %[[BYCHUNKS]]) -> (tensor<?x4x5x5xf32>)
// CHECK:           %[[IMAGE:.*]] = arith.addi %[[CHUNKED]], %[[I]]
// CHECK:           tensor.extract_slice %{{.*}}[%[[IMAGE]], 0, 0, 0] [1, 3, 7, 7]
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[FILTER]], %{{.*}} : tensor<4x27xf32>, tensor<1x27x25xf32>) outs(%{{.*}} : tensor<1x4x25xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %[[OUT2]][%[[IMAGE]], 0, 0, 0] [1, 4, 5, 5]
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @forward_one_matrix(%x: tensor<?x3x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x5x5xf32> {
  %none = onnx.NoValue
  %0 = onnx.Conv(%x, %w, %none) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x5x5xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x5x5xf32>
  return %0 : tensor<?x4x5x5xf32>
}

// -----

// A filter gradient, image_columns with 4 image groups (a fixed count, so
// the sums' order does not depend on the thread count): each group sums
// its images' products one image at a time into its own partial sum; then
// the partial sums are added.
// CHECK-LABEL: func.func @filter_gradient
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<4x4x27xf32>
// CHECK:         %[[PARTIALS:.*]] = scf.forall (%[[G:.*]]) in (4) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<4x4x27xf32>)
// CHECK:           %[[FIRST:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK:           %[[LAST:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK:           %[[MINE:.*]] = tensor.extract_slice %[[OUT]][%[[G]], 0, 0] [1, 4, 27] [1, 1, 1]
// CHECK:           %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[MINE]] : tensor<4x27xf32>)
// CHECK:           %[[SUM:.*]] = scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %c1 iter_args(%{{.*}} = %[[ZEROS]]) -> (tensor<4x27xf32>)
// CHECK:             tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<1x6x6x3x3x3xf32> into tensor<36x27xf32>
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][%[[G]], 0, 0] [1, 4, 27] [1, 1, 1]
// CHECK:         %[[TOTAL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[PARTIALS]] : tensor<4x4x27xf32>)
// CHECK:         tensor.expand_shape %[[TOTAL]] {{.*}} into tensor<4x3x3x3xf32>
func.func @filter_gradient(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x4x6x6xf32>, tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<?x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return %0#1 : tensor<4x3x3x3xf32>
}

// -----

// The same filter gradient given transposed = true: each group's partial
// sum is dW^T [C*KH*KW, F], the image's columns in the forward's layout
// ([C*KH*KW, OH*OW], rows along the positions) times dY^T [OH*OW, F]; the
// groups' total is transposed once and expanded to dW.
// CHECK-LABEL: func.func @transposed_filter_gradient
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<4x27x4xf32>
// CHECK:         %[[PARTIALS:.*]] = scf.forall (%[[G:.*]]) in (4) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<4x27x4xf32>)
// CHECK:           %[[SUM:.*]] = scf.for {{.*}} -> (tensor<27x4xf32>)
// CHECK:             %[[COLUMNS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3], [4, 5]] : tensor<1x3x3x3x6x6xf32> into tensor<27x36xf32>
// CHECK:             %[[DYT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<1x6x6x4xf32> into tensor<36x4xf32>
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[COLUMNS]], %[[DYT]] : tensor<27x36xf32>, tensor<36x4xf32>)
// CHECK:           tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][%[[G]], 0, 0] [1, 27, 4] [1, 1, 1]
// CHECK:         %[[TOTAL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[PARTIALS]] : tensor<4x27x4xf32>)
// CHECK:         %[[DW:.*]] = linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<27x4xf32>) outs(%{{.*}} : tensor<4x27xf32>)
// CHECK:         tensor.expand_shape %[[DW]] {{.*}} into tensor<4x3x3x3xf32>
func.func @transposed_filter_gradient(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x6x6xf32>, tensor<?x3x8x8xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// The transposed filter gradient with chunk_rows = 2: within each image,
// an scf.for over its 3 chunks of 2 output rows builds the chunk's columns
// ([27, 12]) from the 4 input rows they read and its dY^T ([12, 4]) from
// dY's 2 rows, into buffers the loop carries, and adds their product.
// CHECK-LABEL: func.func @chunked_filter_gradient
// CHECK:           scf.for {{.*}} -> (tensor<27x4xf32>)
// CHECK:             %[[COLBUF:.*]] = tensor.empty() : tensor<1x3x3x3x2x6xf32>
// CHECK:             %[[DYBUF:.*]] = tensor.empty() : tensor<1x2x6x4xf32>
// CHECK:             scf.for %[[C:.*]] = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}, %[[COLS:.*]] = %[[COLBUF]], %[[DYT:.*]] = %[[DYBUF]]) -> (tensor<27x4xf32>, tensor<1x3x3x3x2x6xf32>, tensor<1x2x6x4xf32>)
// CHECK:               %[[ROW:.*]] = arith.muli %[[C]], %c2
// CHECK:               %[[IN:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[ROW]], 0] [1, 3, 4, 8] [1, 1, 1, 1]
// CHECK:               %[[DY:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[ROW]], 0] [1, 4, 2, 6] [1, 1, 1, 1]
// CHECK:               %[[NEWCOLS:.*]] = linalg.generic {{.*}} ins(%[[IN]] : tensor<1x3x4x8xf32>) outs(%[[COLS]] : tensor<1x3x3x3x2x6xf32>)
// CHECK:               %[[NEWDYT:.*]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<1x4x2x6xf32>) outs(%[[DYT]] : tensor<1x2x6x4xf32>)
// CHECK:               %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<27x12xf32>, tensor<12x4xf32>) outs(%[[ACC]] : tensor<27x4xf32>)
// CHECK:               scf.yield %[[SUM]], %[[NEWCOLS]], %[[NEWDYT]]
func.func @chunked_filter_gradient(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x6x6xf32>, tensor<?x3x8x8xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true, chunk_rows = 2 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// The transposed filter gradient with chunk_images = 2: within each group,
// an scf.for over its whole chunks of 2 images builds their columns side
// by side ([27, 2*9]) and their stacked dY^T ([2*9, 4]) into buffers the
// loop carries and adds their product; a second scf.for takes the images
// left over one at a time.
// CHECK-LABEL: func.func @filter_gradient_by_images
// CHECK:         scf.forall
// CHECK:           %[[COLBUF:.*]] = tensor.empty() : tensor<3x3x3x2x3x3xf32>
// CHECK:           %[[DYBUF:.*]] = tensor.empty() : tensor<2x3x3x4xf32>
// CHECK:           %[[CHUNKS:.*]] = arith.divui %{{.*}}, %c2
// CHECK:           %[[WHOLE:.*]] = arith.muli %[[CHUNKS]], %c2
// CHECK:           %[[END:.*]] = arith.addi %[[FIRST:.*]], %[[WHOLE]]
// CHECK:           %[[BYCHUNK:.*]]:3 = scf.for %[[N:.*]] = %[[FIRST]] to %[[END]] step %c2 iter_args(%[[ACC:.*]] = %{{.*}}, %[[COLS:.*]] = %[[COLBUF]], %[[DYT:.*]] = %[[DYBUF]]) -> (tensor<27x4xf32>, tensor<3x3x3x2x3x3xf32>, tensor<2x3x3x4xf32>)
// CHECK:             %[[IN:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0] [2, 3, 5, 5] [1, 1, 1, 1]
// CHECK:             %[[DY:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0] [2, 4, 3, 3] [1, 1, 1, 1]
// CHECK:             %[[NEWCOLS:.*]] = linalg.generic {{.*}} ins(%[[IN]] : tensor<2x3x5x5xf32>) outs(%[[COLS]] : tensor<3x3x3x2x3x3xf32>)
// CHECK:             %[[COLMAT:.*]] = tensor.collapse_shape %[[NEWCOLS]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<3x3x3x2x3x3xf32> into tensor<27x18xf32>
// CHECK:             %[[NEWDYT:.*]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<2x4x3x3xf32>) outs(%[[DYT]] : tensor<2x3x3x4xf32>)
// CHECK:             %[[DYTMAT:.*]] = tensor.collapse_shape %[[NEWDYT]] {{\[}}[0, 1, 2], [3]] : tensor<2x3x3x4xf32> into tensor<18x4xf32>
// CHECK:             %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[COLMAT]], %[[DYTMAT]] : tensor<27x18xf32>, tensor<18x4xf32>) outs(%[[ACC]] : tensor<27x4xf32>)
// CHECK:             scf.yield %[[SUM]], %[[NEWCOLS]], %[[NEWDYT]]
// CHECK:           scf.for %{{.*}} = %[[END]] to %{{.*}} step %c1 iter_args(%{{.*}} = %[[BYCHUNK]]#0) -> (tensor<27x4xf32>)
// CHECK:             tensor.extract_slice %{{.*}} [1, 3, 5, 5] [1, 1, 1, 1]
// CHECK:             linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<27x9xf32>, tensor<9x4xf32>) outs(%{{.*}} : tensor<27x4xf32>)
func.func @filter_gradient_by_images(%dy: tensor<?x4x3x3xf32>, %x: tensor<?x3x5x5xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x3x3xf32>, tensor<?x3x5x5xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true, chunk_images = 2 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// The sum of a transposed filter gradient's partials and the transpose
// that ends it (windows of a multiple of 16 values: 8 channels of 2x2,
// dW^T is [32, 4]) go 16 rows of dW^T per parallel iteration: each block's
// rows summed over the image groups, then transposed into its 16 columns
// of dW.
// CHECK-LABEL: func.func @blocked_transpose
// CHECK:         %[[PARTIALS:.*]] = scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}}) -> (tensor<4x32x4xf32>)
// CHECK:         scf.forall (%[[BLOCK:.*]]) in (2) shared_outs(%[[DW:.*]] = %{{.*}}) -> (tensor<4x32xf32>)
// CHECK:           %[[ROW:.*]] = arith.muli %[[BLOCK]], %c16
// CHECK:           %[[ROWS:.*]] = tensor.extract_slice %[[PARTIALS]][0, %[[ROW]], 0] [4, 16, 4] [1, 1, 1]
// CHECK:           %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<4x16x4xf32>) outs(%{{.*}} : tensor<16x4xf32>)
// CHECK:           %[[OUT:.*]] = tensor.extract_slice %[[DW]][0, %[[ROW]]] [4, 16] [1, 1]
// CHECK:           %[[T:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<16x4xf32>) outs(%[[OUT]] : tensor<4x16xf32>)
// CHECK:           tensor.parallel_insert_slice %[[T]] into %[[DW]][0, %[[ROW]]] [4, 16] [1, 1]
func.func @blocked_transpose(%dy: tensor<?x4x5x5xf32>, %x: tensor<?x8x6x6xf32>) -> tensor<4x8x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8x2x2xf32>) -> tensor<4x8x2x2xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x5x5xf32>, tensor<?x8x6x6xf32>) outs(%init : tensor<4x8x2x2xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8x2x2xf32>
  return %0 : tensor<4x8x2x2xf32>
}

// -----

// A depthwise filter gradient, image_partials: the middle's generic with
// its image loop parallel and moved before the window's, loops (m, c, n,
// kh, kw, oh, ow) ([m, c, n, kh, kw] partials: one running sum per image
// and tap over its positions, an image's taps one after another), then the
// images' sums.
// CHECK-DAG:   #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d0, d5, d6)>
// CHECK-DAG:   #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d0 + d1, d3 + d5, d4 + d6)>
// CHECK-DAG:   #[[PARTIAL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @depthwise_filter_gradient
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<8x1x?x3x3xf32>
// CHECK:         %[[PARTIALS:.*]] = linalg.generic {indexing_maps = [#[[DY]], #[[X]], #[[PARTIAL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} {{.*}} outs(%[[ZEROS]] : tensor<8x1x?x3x3xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%[[PARTIALS]] : tensor<8x1x?x3x3xf32>) outs(%{{.*}} : tensor<8x1x3x3xf32>)
func.func @depthwise_filter_gradient(%x: tensor<?x8x6x6xf32>, %w: tensor<8x1x3x3xf32>, %dy: tensor<?x8x6x6xf32>) -> tensor<8x1x3x3xf32> {
  %0:3 = onnx.ms.ConvGrad(%dy, %x, %w) {auto_pad = "NOTSET", group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<?x8x6x6xf32>, tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>) -> (tensor<?x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>)
  return %0#1 : tensor<8x1x3x3xf32>
}
