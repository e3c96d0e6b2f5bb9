// RUN: odt-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(odt-lower-convolutions))'

// A config given in the input is checked against the convolution it is on;
// each mistake is an error at the op.

func.func @partials_forward(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': image_partials computes filter gradients only}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_partials"}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @columns_dynamic_filter(%x: tensor<?x3x10x10xf32>, %w: tensor<?x3x3x3xf32>, %init: tensor<?x?x8x8xf32>) -> tensor<?x?x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': image_columns computes f32 2-D convolutions of one group with a static filter only}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_columns"}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<?x3x3x3xf32>) outs(%init : tensor<?x?x8x8xf32>) -> tensor<?x?x8x8xf32>
  return %0 : tensor<?x?x8x8xf32>
}

// -----

func.func @relu_without_relu(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': epilogue "relu" but the result's only reader is not a Relu}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_columns", epilogue = "relu"}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @unknown_kernel(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': unknown kernel 'winograd' (image_columns, image_partials, scattered_columns)}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "winograd"}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @unknown_field(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': unknown field 'tile'}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_columns", tile = 4}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @groups_on_forward(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': image_groups applies to image_columns filter gradients}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_columns", image_groups = 4}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

#dy = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 + d2, d6 + d3)>
#dw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @no_groups(%dy: tensor<?x4x6x6xf32>, %x: tensor<?x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': an image_columns filter gradient needs image_groups}}
  %dw = linalg.generic {indexing_maps = [#dy, #x, #dw], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x6x6xf32>, tensor<?x3x8x8xf32>) outs(%init : tensor<4x3x3x3xf32>)
      attrs = {odt.convolution = {kernel = "image_columns"}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

func.func @not_a_convolution(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'odt.convolution' on an op that is not a convolution the CPU kernels compute (linalg.conv_2d_nchw_fchw or the middle's filter-gradient generic)}}
  %0 = linalg.matmul {odt.convolution = {kernel = "image_columns"}} ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @panels_that_split_rows(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': panel_columns must be a positive count of output positions that divides them into more than one panel of whole rows or of parts of one row}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_columns", panel_columns = 12 : i64}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @panels_on_a_filter_gradient(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x10x10xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': panel_columns applies to forward image_columns}}
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, panel_columns = 32 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @transposed_forward(%x: tensor<?x3x10x10xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'odt.convolution': transposed applies to image_columns filter gradients}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "image_columns", transposed = true}}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @transposed_not_a_boolean(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x10x10xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': transposed must be a boolean}}
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = 1 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @chunks_not_transposed(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x10x10xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': chunk_rows applies to transposed filter gradients}}
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, chunk_rows = 2 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @chunks_not_dividing(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x10x10xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': chunk_rows must be a positive divisor of the output's rows, with static output rows}}
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true, chunk_rows = 3 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @image_chunks_with_row_chunks(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x10x10xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': chunk_images applies to forward image_columns and to transposed filter gradients without chunk_rows}}
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true, chunk_rows = 2 : i64, chunk_images = 2 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @image_chunks_not_positive(%dy: tensor<?x4x8x8xf32>, %x: tensor<?x3x10x10xf32>) -> tensor<4x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  // expected-error @+1 {{'odt.convolution': chunk_images must be a positive integer, with static output positions}}
  %0 = linalg.generic {indexing_maps = [affine_map<(m, c, kh, kw, n, oh, ow) -> (n, m, oh, ow)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (n, c, oh + kh, ow + kw)>, affine_map<(m, c, kh, kw, n, oh, ow) -> (m, c, kh, kw)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x4x8x8xf32>, tensor<?x3x10x10xf32>) outs(%init : tensor<4x3x3x3xf32>) attrs = {odt.convolution = {kernel = "image_columns", image_groups = 4 : i64, transposed = true, chunk_images = 0 : i64}} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// scattered_columns needs the input to be a zero pad by the window's size
// less one on both sides: here it is padded by 1 around a 3x3 window.
func.func @scattered_half_padded(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
  // expected-error @+1 {{'odt.convolution': scattered_columns computes f32 2-D forward convolutions of one group with a static filter, at stride 1 without dilation, of an input zero-padded by the window's size less one on both sides, with static spatial sizes}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "scattered_columns"}}
      ins(%padded, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @scattered_with_panels(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %init: tensor<?x4x10x10xf32>) -> tensor<?x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<?x3x8x8xf32> to tensor<?x3x12x12xf32>
  // expected-error @+1 {{'odt.convolution': panel_columns applies to forward image_columns}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, odt.convolution = {kernel = "scattered_columns", panel_columns = 32}}
      ins(%padded, %w : tensor<?x3x12x12xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x10x10xf32>) -> tensor<?x4x10x10xf32>
  return %0 : tensor<?x4x10x10xf32>
}
