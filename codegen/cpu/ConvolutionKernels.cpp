//===- ConvolutionKernels.cpp - the CPU's convolution kernels -------------===//
//
// The kernels odt.convolution names (ConvolutionSelection.h), on tensors:
// image columns (im2col) and matrix products that odt-vectorize-contractions
// then turns into its register-tiled kernels, under scf.forall loops that
// odt-outline-parallel-loops hands to the runtime's thread pool.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ConvolutionSelection.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace odt::cpu {
namespace {

Value createZeros(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value zero =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0.0));
  return linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
      .getResult(0);
}

/// `to` with `from`'s elements copied into it: every loop is parallel, and
/// the loops read `from` through `fromMap` and write `to` through `toMap`
/// (the image columns, panels and transposes below are such copies).
Value buildMappedCopy(OpBuilder &b, Location loc, Value from, Value to,
                      AffineMap fromMap, AffineMap toMap) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{to.getType()}, ValueRange{from}, ValueRange{to},
             ArrayRef<AffineMap>{fromMap, toMap},
             SmallVector<utils::IteratorType>(toMap.getNumDims(),
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

/// Images `n` .. `n` + `count` - 1 of an [N, ...] tensor, as [count, ...].
Value sliceImage(OpBuilder &b, Location loc, Value tensor, Value n,
                 int64_t count = 1) {
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[0] = n;
  sizes[0] = b.getIndexAttr(count);
  return tensor::ExtractSliceOp::create(b, loc, tensor, offsets, sizes,
                                        strides);
}

/// The windows of a 2-D `input` [N, C, H, W] (already padded) as the columns
/// of a matrix: the column for output position (oh, ow) holds
/// input[n, c, oh * s + kh * d, ow * s + kw * d] for every (c, kh, kw).
/// ImageMajor gives [N, C*KH*KW, OH*OW] (one matrix per image, for the
/// forward product); PositionMajor gives [N*OH*OW, C*KH*KW] (one row per
/// output position, for the filter gradient: its rows are contiguous along
/// (c, kh, kw)); WindowMajor gives [C*KH*KW, N*OH*OW] (the images' columns
/// side by side: a forward product or a transposed filter gradient over
/// several small images).
/// `destination`, when given, is the uncollapsed tensor the copy writes.
enum class ColumnLayout { ImageMajor, PositionMajor, WindowMajor };
Value buildImageColumns(OpBuilder &b, Location loc, Value input,
                        ArrayRef<int64_t> kernel,
                        ArrayRef<OpFoldResult> outSpatial,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ColumnLayout layout, Value destination = nullptr) {
  MLIRContext *context = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, input);
  // Loop dims in the order of the (uncollapsed) result.
  enum { N, C, KH, KW, OH, OW };
  SmallVector<int> order;
  SmallVector<ReassociationIndices> groups;
  switch (layout) {
  case ColumnLayout::ImageMajor:
    order = {N, C, KH, KW, OH, OW};
    groups = {{0}, {1, 2, 3}, {4, 5}};
    break;
  case ColumnLayout::PositionMajor:
    order = {N, OH, OW, C, KH, KW};
    groups = {{0, 1, 2}, {3, 4, 5}};
    break;
  case ColumnLayout::WindowMajor:
    order = {C, KH, KW, N, OH, OW};
    groups = {{0, 1, 2}, {3, 4, 5}};
    break;
  }
  SmallVector<OpFoldResult> extent = {inSizes[0],
                                      inSizes[1],
                                      b.getIndexAttr(kernel[0]),
                                      b.getIndexAttr(kernel[1]),
                                      outSpatial[0],
                                      outSpatial[1]};
  SmallVector<AffineExpr> dim(6);
  SmallVector<OpFoldResult> sizes;
  for (auto [position, which] : llvm::enumerate(order)) {
    dim[which] = getAffineDimExpr(position, context);
    sizes.push_back(extent[which]);
  }
  AffineMap read = AffineMap::get(
      6, 0,
      {dim[N], dim[C], dim[OH] * strides[0] + dim[KH] * dilations[0],
       dim[OW] * strides[1] + dim[KW] * dilations[1]},
      context);
  Value empty =
      destination
          ? destination
          : tensor::EmptyOp::create(b, loc, sizes, inputType.getElementType());
  Value copied = buildMappedCopy(b, loc, input, empty, read,
                                 AffineMap::getMultiDimIdentityMap(6, context));
  return tensor::CollapseShapeOp::create(b, loc, copied, groups);
}

/// The shape buildImagePanels writes before collapsing it: (n, a, b, c, kh,
/// kw, j) for panels that are parts of an output row (a the row, b the
/// part), (n, a, c, kh, kw, b, j) for panels of whole rows (a the group of
/// rows, b the row in it); j is the position in the panel's row.
SmallVector<int64_t> panelCopyShape(int64_t channels, ArrayRef<int64_t> kernel,
                                    int64_t outRows, int64_t outRow,
                                    int64_t width) {
  if (outRow % width == 0)
    return {1, outRows, outRow / width, channels, kernel[0], kernel[1], width};
  int64_t rowsPerPanel = width / outRow;
  return {1,         outRows / rowsPerPanel, channels, kernel[0],
          kernel[1], rowsPerPanel,           outRow};
}

/// The windows of one padded image `input` [1, C, H, W] as panels of
/// `width` output positions: [1, OH*OW / width, C*KH*KW, width], panel t
/// holding positions t * width .. (t + 1) * width - 1 (in row-major order)
/// as its columns. Each panel is `width / OW` whole output rows
/// (canLayOutPanels: width a multiple of OW) or part of one row (OW a
/// multiple of width); the loop dims then split the positions so that
/// every map stays a sum of dims times constants.
/// `destination`, when given, is the tensor the copy writes, of
/// panelCopyShape; else a new one.
Value buildImagePanels(OpBuilder &b, Location loc, Value input,
                       ArrayRef<int64_t> kernel, int64_t outRows,
                       int64_t outRow, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations, int64_t width,
                       Value destination = nullptr) {
  MLIRContext *context = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t channels = inputType.getDimSize(1);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Dims (n, a, c, kh, kw, b, j): the panel is (a, b), the position in it j.
  bool partsOfRow = outRow % width == 0;
  SmallVector<int64_t> shape;
  AffineExpr oh, ow;
  if (partsOfRow) {
    // a: the output row, b: the part of it, j: the position in the part.
    shape = {1, outRows, channels, kernel[0], kernel[1], outRow / width, width};
    oh = d(1);
    ow = d(5) * width + d(6);
  } else {
    // a: the group of rows, b: the row in it, j: the position in the row.
    int64_t rowsPerPanel = width / outRow;
    shape = {1,         outRows / rowsPerPanel, channels, kernel[0],
             kernel[1], rowsPerPanel,           outRow};
    oh = d(1) * rowsPerPanel + d(5);
    ow = d(6);
  }
  AffineMap read =
      AffineMap::get(7, 0,
                     {d(0), d(2), oh * strides[0] + d(3) * dilations[0],
                      ow * strides[1] + d(4) * dilations[1]},
                     context);
  // The result's dims: (n, a, [b,] c, kh, kw, j) so that a panel's
  // columns are contiguous: for whole rows b belongs to j's group.
  SmallVector<int64_t> resultOrder =
      partsOfRow ? SmallVector<int64_t>{0, 1, 5, 2, 3, 4, 6}
                 : SmallVector<int64_t>{0, 1, 2, 3, 4, 5, 6};
  SmallVector<AffineExpr> write;
  for (int64_t dim : resultOrder)
    write.push_back(d(dim));
  SmallVector<int64_t> resultShape =
      panelCopyShape(channels, kernel, outRows, outRow, width);
  Value empty = destination
                    ? destination
                    : tensor::EmptyOp::create(b, loc, resultShape,
                                              inputType.getElementType());
  assert(cast<RankedTensorType>(empty.getType()).getShape() ==
             ArrayRef<int64_t>(resultShape) &&
         "a destination of panelCopyShape");
  Value copied = buildMappedCopy(b, loc, input, empty, read,
                                 AffineMap::get(7, 0, write, context));
  SmallVector<ReassociationIndices> groups =
      partsOfRow
          ? SmallVector<ReassociationIndices>{{0}, {1, 2}, {3, 4, 5}, {6}}
          : SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}, {5, 6}};
  return tensor::CollapseShapeOp::create(b, loc, copied, groups);
}

/// init += lhs * rhs over `maps` (lhs, rhs, init) and `iterators`.
Value buildMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs, Value rhs,
                              Value init, ArrayRef<AffineMap> maps,
                              ArrayRef<utils::IteratorType> iterators) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init}, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
               linalg::YieldOp::create(
                   nb, l,
                   ValueRange{arith::AddFOp::create(nb, l, args[2], product)});
             })
      .getResult(0);
}

/// max(x, 0) of an f32 tensor, elementwise (as the middle's Relu).
Value applyRelu(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *context = b.getContext();
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, x), type.getElementType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), context);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{x}, ValueRange{empty},
             ArrayRef<AffineMap>{identity, identity},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value zero = arith::ConstantOp::create(
                   nb, l, nb.getFloatAttr(type.getElementType(), 0.0));
               linalg::YieldOp::create(
                   nb, l,
                   ValueRange{arith::MaximumFOp::create(nb, l, args[0], zero)});
             })
      .getResult(0);
}

/// The sum of `partials` along `dim` into a zero-filled tensor of the other
/// dims, which are static (each element out + in, in the order of `dim`).
Value sumAlongDim(OpBuilder &b, Location loc, Value partials, unsigned dim) {
  MLIRContext *context = b.getContext();
  auto type = cast<RankedTensorType>(partials.getType());
  unsigned rank = type.getRank();
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> kept;
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[dim] = utils::IteratorType::reduction;
  for (unsigned i = 0; i < rank; ++i) {
    if (i == dim)
      continue;
    sizes.push_back(b.getIndexAttr(type.getDimSize(i)));
    kept.push_back(getAffineDimExpr(i, context));
  }
  Value init = createZeros(b, loc, sizes, type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{partials},
             ValueRange{init},
             ArrayRef<AffineMap>{
                 AffineMap::getMultiDimIdentityMap(rank, context),
                 AffineMap::get(rank, 0, kept, context)},
             iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l,
                   ValueRange{arith::AddFOp::create(nb, l, args[1], args[0])
                                  .getResult()});
             })
      .getResult(0);
}

/// The input rows each step of a blocked transpose reads: a cache line's
/// worth of f32.
constexpr int64_t kTransposeBlockRows = 16;

/// The transpose of a static matrix [R, C], whole, into `destination`
/// ([C, R]) when given: a block of dW^T (sumAndTransposeInBlocks), or, for
/// the few dW^T whose rows are not a multiple of kTransposeBlockRows, all
/// of it.
Value transposeMatrix(OpBuilder &b, Location loc, Value matrix,
                      Value destination = nullptr) {
  MLIRContext *context = b.getContext();
  auto type = cast<RankedTensorType>(matrix.getType());
  if (!destination)
    destination = tensor::EmptyOp::create(
        b, loc, {type.getDimSize(1), type.getDimSize(0)},
        type.getElementType());
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  return buildMappedCopy(b, loc, matrix, destination,
                         AffineMap::get(2, 0, {d(1), d(0)}, context),
                         AffineMap::getMultiDimIdentityMap(2, context));
}

/// Images `image` [G, F, OH, OW] of an output gradient as the matrix
/// [G*OH*OW, F]: a position's gradients in one row. `destination`, when
/// given, is the [G, OH, OW, F] tensor the transpose writes.
Value transposeImageGradient(OpBuilder &b, Location loc, Value image,
                             Value destination = nullptr) {
  MLIRContext *context = b.getContext();
  auto type = cast<RankedTensorType>(image.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, image);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Loops (n, oh, ow, f).
  Value empty =
      destination
          ? destination
          : tensor::EmptyOp::create(
                b, loc,
                ArrayRef<OpFoldResult>{sizes[0], sizes[2], sizes[3], sizes[1]},
                type.getElementType());
  Value transposed =
      buildMappedCopy(b, loc, image, empty,
                      AffineMap::get(4, 0, {d(0), d(3), d(1), d(2)}, context),
                      AffineMap::getMultiDimIdentityMap(4, context));
  return tensor::CollapseShapeOp::create(
      b, loc, transposed, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
}

/// acc [M, N] += lhs [M, K] times rhs [K, N].
Value buildMatrixProductAccumulate(OpBuilder &b, Location loc, Value lhs,
                                   Value rhs, Value acc) {
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  // Loops (row, column, k).
  return buildMultiplyAccumulate(b, loc, lhs, rhs, acc,
                                 {AffineMap::get(3, 0, {d(0), d(2)}, context),
                                  AffineMap::get(3, 0, {d(2), d(1)}, context),
                                  AffineMap::get(3, 0, {d(0), d(1)}, context)},
                                 {utils::IteratorType::parallel,
                                  utils::IteratorType::parallel,
                                  utils::IteratorType::reduction});
}

/// acc [C*KH*KW, F] += one image's columns [C*KH*KW, OH*OW] (the forward's
/// layout) times its dY^T [OH*OW, F]: at once, or `chunkRows` output rows
/// at a time, each chunk's columns and dY^T built from the input and dY
/// rows it reads into buffers the loop carries (one of each per image).
Value accumulateTransposedFilterGradient(OpBuilder &b, Location loc,
                                         const ConvolutionForm &form,
                                         int64_t chunkRows, Value image,
                                         Value gradientImage, Value acc) {
  auto dwType = cast<RankedTensorType>(form.op->getResult(0).getType());
  ArrayRef<int64_t> kernel = dwType.getShape().drop_front(2);
  SmallVector<ReassociationIndices> matrixGroups = {{0, 1}, {2}};
  if (chunkRows == 0) {
    SmallVector<OpFoldResult> dySizes =
        tensor::getMixedSizes(b, loc, gradientImage);
    Value columns = tensor::CollapseShapeOp::create(
        b, loc,
        buildImageColumns(b, loc, image, kernel, {dySizes[2], dySizes[3]},
                          form.strides, form.dilations,
                          ColumnLayout::ImageMajor),
        matrixGroups);
    return buildMatrixProductAccumulate(
        b, loc, columns, transposeImageGradient(b, loc, gradientImage), acc);
  }
  auto dyType = cast<RankedTensorType>(gradientImage.getType());
  auto imageType = cast<RankedTensorType>(image.getType());
  int64_t filters = dyType.getDimSize(1), outRows = dyType.getDimSize(2),
          outRow = dyType.getDimSize(3);
  int64_t channels = imageType.getDimSize(1);
  int64_t inRows = (chunkRows - 1) * form.strides[0] +
                   (kernel[0] - 1) * form.dilations[0] + 1;
  Type element = dwType.getElementType();
  Value columnsBuffer = tensor::EmptyOp::create(
      b, loc,
      ArrayRef<int64_t>{1, channels, kernel[0], kernel[1], chunkRows, outRow},
      element);
  Value gradientBuffer = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{1, chunkRows, outRow, filters}, element);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value chunks = arith::ConstantIndexOp::create(b, loc, outRows / chunkRows);
  auto loop = scf::ForOp::create(
      b, loc, zero, chunks, one, ValueRange{acc, columnsBuffer, gradientBuffer},
      [&](OpBuilder &nb, Location l, Value chunk, ValueRange args) {
        auto times = [&](int64_t factor) -> Value {
          return arith::MulIOp::create(
              nb, l, chunk, arith::ConstantIndexOp::create(nb, l, factor));
        };
        SmallVector<OpFoldResult> unit(4, nb.getIndexAttr(1));
        SmallVector<OpFoldResult> imageSizes =
            tensor::getMixedSizes(nb, l, image);
        Value inputRows = tensor::ExtractSliceOp::create(
            nb, l, image,
            ArrayRef<OpFoldResult>{nb.getIndexAttr(0), nb.getIndexAttr(0),
                                   times(chunkRows * form.strides[0]),
                                   nb.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{nb.getIndexAttr(1),
                                   nb.getIndexAttr(channels),
                                   nb.getIndexAttr(inRows), imageSizes[3]},
            unit);
        Value gradientRows = tensor::ExtractSliceOp::create(
            nb, l, gradientImage,
            ArrayRef<OpFoldResult>{nb.getIndexAttr(0), nb.getIndexAttr(0),
                                   times(chunkRows), nb.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{nb.getIndexAttr(1), nb.getIndexAttr(filters),
                                   nb.getIndexAttr(chunkRows),
                                   nb.getIndexAttr(outRow)},
            unit);
        Value columns = buildImageColumns(
            nb, l, inputRows, kernel,
            {nb.getIndexAttr(chunkRows), nb.getIndexAttr(outRow)}, form.strides,
            form.dilations, ColumnLayout::ImageMajor, args[1]);
        Value transposed = transposeImageGradient(nb, l, gradientRows, args[2]);
        Value sum = buildMatrixProductAccumulate(
            nb, l,
            tensor::CollapseShapeOp::create(nb, l, columns, matrixGroups),
            transposed, args[0]);
        scf::YieldOp::create(
            nb, l,
            ValueRange{
                sum, columns.getDefiningOp<tensor::CollapseShapeOp>().getSrc(),
                transposed.getDefiningOp<tensor::CollapseShapeOp>().getSrc()});
      });
  return loop.getResult(0);
}

/// acc [C*KH*KW, F] += the columns of images `first` .. `last` - 1 of the
/// padded input times their dY^T, `chunkImages` images per product (their
/// columns side by side, [C*KH*KW, chunkImages*OH*OW], and their dY^T
/// stacked), built into buffers the loop carries; the images left over
/// that do not fill a chunk one at a time.
Value accumulateTransposedFilterGradientByImages(OpBuilder &b, Location loc,
                                                 const ConvolutionForm &form,
                                                 int64_t chunkImages,
                                                 Value first, Value last,
                                                 Value acc) {
  auto dwType = cast<RankedTensorType>(form.op->getResult(0).getType());
  ArrayRef<int64_t> kernel = dwType.getShape().drop_front(2);
  auto dyType = cast<RankedTensorType>(form.filterOrGradient.getType());
  int64_t filters = dyType.getDimSize(1), outRows = dyType.getDimSize(2),
          outRow = dyType.getDimSize(3);
  int64_t channels = cast<RankedTensorType>(form.input.getType()).getDimSize(1);
  Type element = dwType.getElementType();
  Value columnsBuffer =
      tensor::EmptyOp::create(b, loc,
                              ArrayRef<int64_t>{channels, kernel[0], kernel[1],
                                                chunkImages, outRows, outRow},
                              element);
  Value gradientBuffer = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{chunkImages, outRows, outRow, filters},
      element);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value step = arith::ConstantIndexOp::create(b, loc, chunkImages);
  // first + ((last - first) / chunkImages) * chunkImages: where the whole
  // chunks end.
  Value wholeChunksEnd = arith::AddIOp::create(
      b, loc, first,
      arith::MulIOp::create(
          b, loc,
          arith::DivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, last, first), step),
          step));
  auto chunks = scf::ForOp::create(
      b, loc, first, wholeChunksEnd, step,
      ValueRange{acc, columnsBuffer, gradientBuffer},
      [&](OpBuilder &nb, Location l, Value n, ValueRange args) {
        Value images = sliceImage(nb, l, form.input, n, chunkImages);
        Value gradients =
            sliceImage(nb, l, form.filterOrGradient, n, chunkImages);
        Value columns = buildImageColumns(
            nb, l, images, kernel,
            {nb.getIndexAttr(outRows), nb.getIndexAttr(outRow)}, form.strides,
            form.dilations, ColumnLayout::WindowMajor, args[1]);
        Value transposed = transposeImageGradient(nb, l, gradients, args[2]);
        Value sum =
            buildMatrixProductAccumulate(nb, l, columns, transposed, args[0]);
        scf::YieldOp::create(
            nb, l,
            ValueRange{
                sum, columns.getDefiningOp<tensor::CollapseShapeOp>().getSrc(),
                transposed.getDefiningOp<tensor::CollapseShapeOp>().getSrc()});
      });
  auto rest = scf::ForOp::create(
      b, loc, wholeChunksEnd, last, one, ValueRange{chunks.getResult(0)},
      [&](OpBuilder &nb, Location l, Value n, ValueRange args) {
        Value sum = accumulateTransposedFilterGradient(
            nb, l, form, /*chunkRows=*/0, sliceImage(nb, l, form.input, n),
            sliceImage(nb, l, form.filterOrGradient, n), args[0]);
        scf::YieldOp::create(nb, l, sum);
      });
  return rest.getResult(0);
}

} // namespace

/// One image's forward product panel by panel: for each panel of `width`
/// output positions (config.panelColumns: whole output rows, or part of
/// one), its columns [1, 1, C*KH*KW, width] are copied from the rows of
/// `image` it reads, and the filter `matrix` [F, C*KH*KW] times them is
/// added to (or, with `fill`, starts from the fill's value in) its slice of
/// the output, viewed as [1, F, panels, width]. The panel's columns (18 KB
/// for 16 channels of a 3x3 window) are read by the product while they sit
/// in L1; copied for the whole image first (590 KB for 32x32 positions),
/// they went out to L2 and were read back from there, and the copy was a
/// third of the convolution's time. The panel's buffer is a loop-carried
/// value, so one buffer serves every panel. `outMatrix`: the output image
/// as [1, F, OH*OW]; the result has that type.
static Value buildPanelProducts(OpBuilder &b, Location loc,
                                const ConvolutionForm &form,
                                const ConvolutionConfig &config, Value image,
                                Value matrix, Value outMatrix,
                                linalg::FillOp fill) {
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  int64_t width = config.panelColumns;
  auto outType = cast<RankedTensorType>(outMatrix.getType());
  auto filterType = cast<RankedTensorType>(form.filterOrGradient.getType());
  ArrayRef<int64_t> kernel = filterType.getShape().drop_front(2);
  auto resultType = cast<RankedTensorType>(form.init.getType());
  int64_t outRow = resultType.getDimSize(3);
  int64_t filters = outType.getDimSize(1), positions = outType.getDimSize(2);
  int64_t panels = positions / width;
  Type element = outType.getElementType();
  // The output viewed as [1, F, panels, width].
  Value outPanels = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({1, filters, panels, width}, element),
      outMatrix, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  // The rows (and columns) of the image one panel reads: whole rows
  // (width a multiple of OW), or `width` positions of one row.
  bool partOfRow = outRow % width == 0;
  int64_t panelRows = partOfRow ? 1 : width / outRow;
  int64_t panelRow = partOfRow ? width : outRow;
  auto imageType = cast<RankedTensorType>(image.getType());
  int64_t inRows = (panelRows - 1) * form.strides[0] +
                   (kernel[0] - 1) * form.dilations[0] + 1;
  // Whole rows read the image's whole width (static or not).
  OpFoldResult inColumns =
      partOfRow ? b.getIndexAttr((width - 1) * form.strides[1] +
                                 (kernel[1] - 1) * form.dilations[1] + 1)
                : tensor::getMixedSizes(b, loc, image)[3];
  int64_t channels = imageType.getDimSize(1);
  Value panelBuffer = tensor::EmptyOp::create(
      b, loc, panelCopyShape(channels, kernel, panelRows, panelRow, width),
      element);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::ConstantIndexOp::create(b, loc, panels);
  // The body is built after the loop, in its block: composing the affine
  // offsets of the induction variable needs its block in a region.
  auto loop = scf::ForOp::create(b, loc, zero, count, one,
                                 ValueRange{outPanels, panelBuffer});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  ValueRange args = loop.getRegionIterArgs();
  // The first input row and column the panel reads.
  AffineExpr t0 = getAffineSymbolExpr(0, context);
  AffineExpr rowExpr, columnExpr;
  if (partOfRow) {
    int64_t partsPerRow = outRow / width;
    rowExpr = t0.floorDiv(partsPerRow) * form.strides[0];
    columnExpr = (t0 % partsPerRow) * (width * form.strides[1]);
  } else {
    rowExpr = t0 * (panelRows * form.strides[0]);
    columnExpr = getAffineConstantExpr(0, context);
  }
  auto at = [&](AffineExpr e) -> OpFoldResult {
    return affine::makeComposedFoldedAffineApply(b, loc, e, {t});
  };
  SmallVector<OpFoldResult> unit(4, b.getIndexAttr(1));
  Value rows = tensor::ExtractSliceOp::create(
      b, loc, image,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0), at(rowExpr),
                             at(columnExpr)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(channels),
                             b.getIndexAttr(inRows), inColumns},
      unit);
  Value columns =
      buildImagePanels(b, loc, rows, kernel, panelRows, panelRow, form.strides,
                       form.dilations, width, args[1]);
  Value copied = columns.getDefiningOp<tensor::CollapseShapeOp>().getSrc();
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0), t,
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(filters),
                                     b.getIndexAttr(1), b.getIndexAttr(width)};
  Value outPanel =
      tensor::ExtractSliceOp::create(b, loc, args[0], offsets, sizes, unit);
  if (fill)
    outPanel =
        linalg::FillOp::create(b, loc, fill.getInputs(), ValueRange{outPanel})
            .getResult(0);
  // Loops (n, t, f, j, k), n and t of size 1.
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  Value product = buildMultiplyAccumulate(
      b, loc, matrix, columns, outPanel,
      {AffineMap::get(5, 0, {d(2), d(4)}, context),
       AffineMap::get(5, 0, {d(0), d(1), d(4), d(3)}, context),
       AffineMap::get(5, 0, {d(0), d(2), d(1), d(3)}, context)},
      iterators);
  if (config.reluEpilogue)
    product = applyRelu(b, loc, product);
  Value updated = tensor::InsertSliceOp::create(b, loc, product, args[0],
                                                offsets, sizes, unit);
  scf::YieldOp::create(b, loc, ValueRange{updated, copied});
  b.setInsertionPointAfter(loop);
  return tensor::CollapseShapeOp::create(
      b, loc, loop.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// A forall over `count` iterations whose shared output starts as
/// `start`: `body` builds iteration `i`'s part of the output and returns
/// it with the slice of `out` it replaces.
static Value buildOutputForall(
    OpBuilder &b, Location loc, OpFoldResult count, Value start,
    function_ref<std::pair<Value, tensor::ExtractSliceOp>(Value i, Value out)>
        body) {
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      ValueRange{start}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value out = forall.getRegionIterArgs()[0];
  auto [result, slice] = body(forall.getInductionVar(0), out);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, result, out, slice.getMixedOffsets(), slice.getMixedSizes(),
      slice.getMixedStrides());
  return forall.getResult(0);
}

/// dW^T's partial sums `partials` [G, R, F] summed over the groups and
/// transposed into dW [F, R], kTransposeBlockRows rows per parallel
/// iteration: each block's sum ([16, F], in L1) is read down its columns
/// while its lines are there (a line holds the next 15 columns' elements
/// too). Transposed whole, a column's elements were gathered from R lines
/// gone again before the next column read them (the [2304, 256] transpose
/// of a 3x3 256-channel filter gradient was 12% of its training step);
/// summed whole and then transposed in blocks by one thread, the partials
/// went through memory twice while the other threads waited. Returns null
/// when R is not a multiple of the block.
static Value sumAndTransposeInBlocks(OpBuilder &b, Location loc,
                                     Value partials) {
  auto type = cast<RankedTensorType>(partials.getType());
  int64_t groups = type.getDimSize(0), rows = type.getDimSize(1),
          columns = type.getDimSize(2);
  if (rows <= kTransposeBlockRows || rows % kTransposeBlockRows != 0)
    return Value();
  Value empty =
      tensor::EmptyOp::create(b, loc, {columns, rows}, type.getElementType());
  return buildOutputForall(
      b, loc, b.getIndexAttr(rows / kTransposeBlockRows), empty,
      [&](Value block, Value out) {
        Value row = arith::MulIOp::create(
            b, loc, block,
            arith::ConstantIndexOp::create(b, loc, kTransposeBlockRows));
        SmallVector<OpFoldResult> unit(3, b.getIndexAttr(1));
        Value blockPartials = tensor::ExtractSliceOp::create(
            b, loc, partials,
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), row, b.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(groups),
                                   b.getIndexAttr(kTransposeBlockRows),
                                   b.getIndexAttr(columns)},
            unit);
        Value sum = sumAlongDim(b, loc, blockPartials, /*dim=*/0);
        auto outBlock = tensor::ExtractSliceOp::create(
            b, loc, out, ArrayRef<OpFoldResult>{b.getIndexAttr(0), row},
            ArrayRef<OpFoldResult>{b.getIndexAttr(columns),
                                   b.getIndexAttr(kTransposeBlockRows)},
            ArrayRef<OpFoldResult>(unit).drop_front());
        return std::make_pair(transposeMatrix(b, loc, sum, outBlock), outBlock);
      });
}

/// Image `n`'s forward product: its output [1, F, OH, OW] and the slice of
/// `out` it replaces. `matrix`: the filter as [F, C*KH*KW].
static std::pair<Value, tensor::ExtractSliceOp>
buildForwardImage(OpBuilder &b, Location loc, const ConvolutionForm &form,
                  const ConvolutionConfig &config, Value matrix,
                  linalg::FillOp fill, Value n, Value out) {
  MLIRContext *context = b.getContext();
  auto filterType = cast<RankedTensorType>(form.filterOrGradient.getType());
  Value image = sliceImage(b, loc, form.input, n);
  auto outImage =
      sliceImage(b, loc, out, n).getDefiningOp<tensor::ExtractSliceOp>();
  SmallVector<OpFoldResult> outSizes = outImage.getMixedSizes();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<ReassociationIndices> outGroups = {{0}, {1}, {2, 3}};
  Value outMatrix =
      tensor::CollapseShapeOp::create(b, loc, outImage.getResult(), outGroups);
  Value product;
  if (config.panelColumns) {
    product = buildPanelProducts(b, loc, form, config, image, matrix, outMatrix,
                                 fill);
  } else {
    // Loops (n, f, p, k) with n of size 1.
    Value columns =
        buildImageColumns(b, loc, image, filterType.getShape().drop_front(2),
                          {outSizes[2], outSizes[3]}, form.strides,
                          form.dilations, ColumnLayout::ImageMajor);
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    if (fill)
      outMatrix = linalg::FillOp::create(b, loc, fill.getInputs(),
                                         ValueRange{outMatrix})
                      .getResult(0);
    product = buildMultiplyAccumulate(
        b, loc, matrix, columns, outMatrix,
        {AffineMap::get(4, 0, {d(1), d(3)}, context),
         AffineMap::get(4, 0, {d(0), d(3), d(2)}, context),
         AffineMap::get(4, 0, {d(0), d(1), d(2)}, context)},
        iterators);
    if (config.reluEpilogue)
      product = applyRelu(b, loc, product);
  }
  Value result = tensor::ExpandShapeOp::create(b, loc, outImage.getType(),
                                               product, outGroups, outSizes);
  return {result, outImage};
}

/// Images `n` .. `n` + config.chunkImages - 1 as one forward product: the
/// filter [F, C*KH*KW] times their columns side by side [C*KH*KW, G*OH*OW]
/// into a [F, G*OH*OW] buffer (filled, or holding their initial outputs),
/// then copied into their outputs [G, F, OH, OW]. The copy is one element
/// per C*KH*KW multiply-adds.
static std::pair<Value, tensor::ExtractSliceOp>
buildForwardImageChunk(OpBuilder &b, Location loc, const ConvolutionForm &form,
                       const ConvolutionConfig &config, Value matrix,
                       linalg::FillOp fill, Value n, Value out) {
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  int64_t images = config.chunkImages;
  auto filterType = cast<RankedTensorType>(form.filterOrGradient.getType());
  auto outType = cast<RankedTensorType>(form.init.getType());
  int64_t filters = outType.getDimSize(1), outRows = outType.getDimSize(2),
          outRow = outType.getDimSize(3);
  Type element = outType.getElementType();
  auto outChunk = sliceImage(b, loc, out, n, images)
                      .getDefiningOp<tensor::ExtractSliceOp>();
  Value columns = buildImageColumns(
      b, loc, sliceImage(b, loc, form.input, n, images),
      filterType.getShape().drop_front(2),
      {b.getIndexAttr(outRows), b.getIndexAttr(outRow)}, form.strides,
      form.dilations, ColumnLayout::WindowMajor);
  // [G, F, OH, OW] <-> [F, G, OH, OW]: loops (g, f, oh, ow).
  AffineMap swapped = AffineMap::get(4, 0, {d(1), d(0), d(2), d(3)}, context);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, context);
  SmallVector<ReassociationIndices> matrixGroups = {{0}, {1, 2, 3}};
  Value staged = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{filters, images, outRows, outRow}, element);
  Value start;
  if (fill) {
    start = linalg::FillOp::create(b, loc, fill.getInputs(),
                                   ValueRange{tensor::CollapseShapeOp::create(
                                       b, loc, staged, matrixGroups)})
                .getResult(0);
  } else {
    start = tensor::CollapseShapeOp::create(
        b, loc,
        buildMappedCopy(b, loc, outChunk.getResult(), staged, identity,
                        swapped),
        matrixGroups);
  }
  Value product = buildMatrixProductAccumulate(b, loc, matrix, columns, start);
  if (config.reluEpilogue)
    product = applyRelu(b, loc, product);
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, staged.getType(), product, matrixGroups,
      getAsIndexOpFoldResult(
          context, ArrayRef<int64_t>{filters, images, outRows, outRow}));
  return {buildMappedCopy(b, loc, expanded, outChunk.getResult(), swapped,
                          identity),
          outChunk};
}

/// Y[n, f, (oh,ow)] += W[f, (c,kh,kw)] * Col_n[(c,kh,kw), (oh,ow)], one image
/// (or config.chunkImages images) per parallel iteration.
Value buildForwardImageColumns(OpBuilder &b, const ConvolutionForm &form,
                               const ConvolutionConfig &config) {
  Location loc = form.op->getLoc();
  Value init = form.init;
  Value matrix = tensor::CollapseShapeOp::create(
      b, loc, form.filterOrGradient,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  // An output that starts as a constant (the zeros of a convolution
  // without bias) is filled image by image inside the loop, where the
  // product starts its accumulators from the constant: filled outside, the
  // fill (one buffer for every convolution of that shape, after CSE) was
  // copied into each convolution's output and read back.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Value start = fill ? fill.getOutputs()[0] : init;
  OpFoldResult images = tensor::getMixedSizes(b, loc, init)[0];
  if (config.chunkImages <= 1)
    return buildOutputForall(b, loc, images, start, [&](Value n, Value out) {
      return buildForwardImage(b, loc, form, config, matrix, fill, n, out);
    });
  // The whole chunks in parallel, then the images left over. A batch of
  // fewer than two chunks goes image by image: one chunk would leave the
  // other threads idle.
  Value imageCount = getValueOrCreateConstantIndexOp(b, loc, images);
  Value chunkImages =
      arith::ConstantIndexOp::create(b, loc, config.chunkImages);
  Value chunks = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, imageCount,
          arith::ConstantIndexOp::create(b, loc, 2 * config.chunkImages)),
      arith::DivUIOp::create(b, loc, imageCount, chunkImages),
      arith::ConstantIndexOp::create(b, loc, 0));
  Value chunked = arith::MulIOp::create(b, loc, chunks, chunkImages);
  Value byChunks =
      buildOutputForall(b, loc, chunks, start, [&](Value chunk, Value out) {
        return buildForwardImageChunk(
            b, loc, form, config, matrix, fill,
            arith::MulIOp::create(b, loc, chunk, chunkImages), out);
      });
  return buildOutputForall(
      b, loc, Value(arith::SubIOp::create(b, loc, imageCount, chunked)),
      byChunks, [&](Value i, Value out) {
        return buildForwardImage(b, loc, form, config, matrix, fill,
                                 arith::AddIOp::create(b, loc, chunked, i),
                                 out);
      });
}

/// dW[f, (c,kh,kw)] = sum over (n, oh, ow) of dY[n, f, oh, ow] times the
/// columns of the padded input, per group of images in parallel (each
/// image's columns stay in L2), then the groups' partial sums added. Either
/// dW = dY_n times the PositionMajor columns (a row per output position,
/// gathered element by element in runs of KW), or, config.transposed,
/// dW^T = the ImageMajor columns (the forward's layout: a window row is a
/// run of the input row, copied as a vector row) times dY_n^T, and the
/// total transposed at the end.
Value buildFilterGradientImageColumns(OpBuilder &b, const ConvolutionForm &form,
                                      const ConvolutionConfig &config) {
  MLIRContext *context = b.getContext();
  Location loc = form.op->getLoc();
  Value paddedInput = form.input, dY = form.filterOrGradient;
  auto dwType = cast<RankedTensorType>(form.op->getResult(0).getType());
  ArrayRef<int64_t> filterShape = dwType.getShape();
  Type f32 = dwType.getElementType();
  SmallVector<OpFoldResult> dySizes = tensor::getMixedSizes(b, loc, dY);
  int64_t filters = filterShape[0];
  int64_t inner = filterShape[1] * filterShape[2] * filterShape[3];
  int64_t groups = config.imageGroups;
  // The partial sums' rows and columns: dW's, or dW^T's. Each group
  // zeroes its own partial sum inside the loop (zeros made outside are one
  // buffer after CSE, copied into every gradient's partials).
  int64_t rows = config.transposed ? inner : filters;
  int64_t columns = config.transposed ? filters : inner;
  Value partials = tensor::EmptyOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{b.getIndexAttr(groups), b.getIndexAttr(rows),
                             b.getIndexAttr(columns)},
      f32);
  Value images = getValueOrCreateConstantIndexOp(b, loc, dySizes[0]);
  Value groupCount = arith::ConstantIndexOp::create(b, loc, groups);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(groups)},
      ValueRange{partials}, std::nullopt);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forall.getBody());
    Value group = forall.getInductionVar(0);
    Value out = forall.getRegionIterArgs()[0];
    auto boundary = [&](Value g) -> Value {
      return arith::DivUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, images, g), groupCount);
    };
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value first = boundary(group);
    Value last = boundary(arith::AddIOp::create(b, loc, group, one));
    SmallVector<OpFoldResult> offsets = {group, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(rows),
                                       b.getIndexAttr(columns)};
    SmallVector<OpFoldResult> unit(3, b.getIndexAttr(1));
    auto sliceType = RankedTensorType::get({rows, columns}, f32);
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, 0.0));
    Value start = linalg::FillOp::create(
                      b, loc, ValueRange{zero},
                      ValueRange{tensor::ExtractSliceOp::create(
                          b, loc, sliceType, out, offsets, sizes, unit)})
                      .getResult(0);
    Value groupSum;
    if (config.transposed && config.chunkImages > 1) {
      groupSum = accumulateTransposedFilterGradientByImages(
          b, loc, form, config.chunkImages, first, last, start);
    } else {
      auto loop = scf::ForOp::create(
          b, loc, first, last, one, ValueRange{start},
          [&](OpBuilder &nb, Location l, Value n, ValueRange args) {
            Value image = sliceImage(nb, l, paddedInput, n);
            Value gradientImage = sliceImage(nb, l, dY, n);
            Value sum;
            if (config.transposed) {
              sum = accumulateTransposedFilterGradient(
                  nb, l, form, config.chunkRows, image, gradientImage, args[0]);
            } else {
              // [F, OH*OW] times [OH*OW, C*KH*KW].
              Value lhs = tensor::CollapseShapeOp::create(
                  nb, l, gradientImage,
                  ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
              Value rhs = buildImageColumns(
                  nb, l, image, filterShape.drop_front(2),
                  {dySizes[2], dySizes[3]}, form.strides, form.dilations,
                  ColumnLayout::PositionMajor);
              sum = buildMatrixProductAccumulate(nb, l, lhs, rhs, args[0]);
            }
            scf::YieldOp::create(nb, l, sum);
          });
      groupSum = loop.getResult(0);
    }
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, groupSum, out, offsets, sizes,
                                          unit);
  }
  // Summed in the partials' layout (as vector rows), then transposed once:
  // written transposed, the sum of the groups was a strided store per
  // element (3.6% of resnet18_cifar's step for its [4, 1152, 128]
  // partials).
  Value total;
  if (config.transposed)
    total = sumAndTransposeInBlocks(b, loc, forall.getResult(0));
  if (!total) {
    total = sumAlongDim(b, loc, forall.getResult(0), /*dim=*/0);
    if (config.transposed)
      total = transposeMatrix(b, loc, total);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, dwType, total, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}},
      getAsIndexOpFoldResult(context, filterShape));
}

/// The filter gradient's generic with its image loop made parallel (one
/// partial sum per image, [m, c, nb, k...]), then a sum over the images.
/// The image loop goes right after (m, c), before the window's: the taps
/// of one image then follow each other and read the same rows of dY and
/// X from L1. With the image loop after the taps (the middle's order),
/// each tap went through all images' rows of a channel (32 images of a
/// 16x16 depthwise layer: 74 KB, more than L1) and read them from L2
/// again: a depthwise filter gradient at 20 GFLOP/s.
Value buildFilterGradientImagePartials(OpBuilder &b,
                                       const ConvolutionForm &form) {
  MLIRContext *context = b.getContext();
  Location loc = form.op->getLoc();
  auto generic = cast<linalg::GenericOp>(form.op);
  auto dwType = cast<RankedTensorType>(generic->getResult(0).getType());
  int64_t n = dwType.getRank() - 2;
  unsigned rank = 3 + 2 * n, imageDim = 2 + n;
  // The middle's loops (m, c, k..., nb, p...) become (m, c, nb, k..., p...):
  // its dim j is the new loop newPosition[j].
  SmallVector<AffineExpr> newPosition;
  for (unsigned j = 0; j < rank; ++j) {
    unsigned position = j;
    if (j >= 2 && j < imageDim)
      position = j + 1;
    else if (j == imageDim)
      position = 2;
    newPosition.push_back(getAffineDimExpr(position, context));
  }
  SmallVector<AffineMap> maps;
  for (OpOperand *input : generic.getDpsInputOperands())
    maps.push_back(generic.getMatchingIndexingMap(input).replaceDimsAndSymbols(
        newPosition, {}, rank, 0));
  SmallVector<AffineExpr> kept;
  for (unsigned i = 0; i <= imageDim; ++i)
    kept.push_back(getAffineDimExpr(i, context));
  maps.push_back(AffineMap::get(rank, 0, kept, context));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  for (unsigned i = 0; i <= imageDim; ++i)
    iterators[i] = utils::IteratorType::parallel;
  SmallVector<OpFoldResult> partialSizes =
      getAsIndexOpFoldResult(context, dwType.getShape());
  partialSizes.insert(partialSizes.begin() + 2,
                      tensor::getMixedSizes(b, loc, form.filterOrGradient)[0]);
  Value partialInit =
      createZeros(b, loc, partialSizes, dwType.getElementType());
  auto perImage = linalg::GenericOp::create(
      b, loc, TypeRange{partialInit.getType()}, generic.getDpsInputs(),
      ValueRange{partialInit}, maps, iterators);
  IRMapping mapping;
  generic.getRegion().cloneInto(&perImage.getRegion(), mapping);
  return sumAlongDim(b, loc, perImage.getResult(0), /*dim=*/2);
}

/// Y[n, f, o] = init + sum_k X[n, c, o + k - (K - 1)] * W[f, c, k], from
/// the unpadded X: per image, contributions[(f, k), q] = W^T[(f, k), c] *
/// X[c, q] (one matrix product over the input's positions q), then, tap by
/// tap in (kh, kw) order, the slab contributions[(f, k), :] added into the
/// output at offset K - 1 - k (the output position its input position q
/// reaches through that tap). Every slab lies inside the output
/// (canScatterColumns: padding K - 1 on both sides, stride 1), so the adds
/// are whole rows without bounds.
Value buildForwardScatteredColumns(OpBuilder &b, const ConvolutionForm &form,
                                   const ConvolutionConfig &config) {
  MLIRContext *context = b.getContext();
  Location loc = form.op->getLoc();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  auto filterType = cast<RankedTensorType>(form.filterOrGradient.getType());
  auto sourceType = cast<RankedTensorType>(form.unpadded.getType());
  Type f32 = filterType.getElementType();
  int64_t filters = filterType.getDimSize(0),
          channels = filterType.getDimSize(1),
          tapRows = filterType.getDimSize(2),
          tapColumns = filterType.getDimSize(3),
          rows = sourceType.getDimSize(2), columns = sourceType.getDimSize(3);
  // The filter as [F, KH, KW, C] (loops in that order), then [F*KH*KW, C]:
  // a small copy per step, so that the product reads its rows in place.
  Value reordered = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{filters, tapRows, tapColumns, channels}, f32);
  reordered =
      buildMappedCopy(b, loc, form.filterOrGradient, reordered,
                      AffineMap::get(4, 0, {d(0), d(3), d(1), d(2)}, context),
                      AffineMap::getMultiDimIdentityMap(4, context));
  Value matrix = tensor::CollapseShapeOp::create(
      b, loc, reordered, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  auto fill = form.init.getDefiningOp<linalg::FillOp>();
  Value start = fill ? fill.getOutputs()[0] : form.init;
  OpFoldResult images = tensor::getMixedSizes(b, loc, form.init)[0];
  return buildOutputForall(b, loc, images, start, [&](Value n, Value out) {
    Value source = tensor::CollapseShapeOp::create(
        b, loc, sliceImage(b, loc, form.unpadded, n),
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    Value contributions = buildMatrixProductAccumulate(
        b, loc, matrix, source,
        createZeros(
            b, loc,
            getAsIndexOpFoldResult(
                context, ArrayRef<int64_t>{filters * tapRows * tapColumns,
                                           rows * columns}),
            f32));
    Value slabs = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({filters, tapRows, tapColumns, rows, columns},
                              f32),
        contributions, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4}});
    auto outImage =
        sliceImage(b, loc, out, n).getDefiningOp<tensor::ExtractSliceOp>();
    Value image = outImage.getResult();
    if (fill)
      image =
          linalg::FillOp::create(b, loc, fill.getInputs(), ValueRange{image})
              .getResult(0);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto slabType = RankedTensorType::get({filters, rows, columns}, f32);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(3, context);
    auto addSlab = [&](OpBuilder &nb, Location l, Value kh, Value kw,
                       Value target) -> Value {
      auto reach = [&](Value k, int64_t taps) -> OpFoldResult {
        return arith::SubIOp::create(
                   nb, l, arith::ConstantIndexOp::create(nb, l, taps - 1), k)
            .getResult();
      };
      SmallVector<OpFoldResult> slabSizes = {
          nb.getIndexAttr(filters), nb.getIndexAttr(1), nb.getIndexAttr(1),
          nb.getIndexAttr(rows), nb.getIndexAttr(columns)};
      Value slab = tensor::ExtractSliceOp::create(
          nb, l, slabType, slabs,
          ArrayRef<OpFoldResult>{nb.getIndexAttr(0), kh, kw, nb.getIndexAttr(0),
                                 nb.getIndexAttr(0)},
          slabSizes, SmallVector<OpFoldResult>(5, nb.getIndexAttr(1)));
      SmallVector<OpFoldResult> offsets = {
          nb.getIndexAttr(0), nb.getIndexAttr(0), reach(kh, tapRows),
          reach(kw, tapColumns)};
      SmallVector<OpFoldResult> sizes = {
          nb.getIndexAttr(1), nb.getIndexAttr(filters), nb.getIndexAttr(rows),
          nb.getIndexAttr(columns)};
      SmallVector<OpFoldResult> unit(4, nb.getIndexAttr(1));
      Value window = tensor::ExtractSliceOp::create(nb, l, slabType, target,
                                                    offsets, sizes, unit);
      Value added =
          linalg::GenericOp::create(
              nb, l, TypeRange{slabType}, ValueRange{slab}, ValueRange{window},
              ArrayRef<AffineMap>{identity, identity},
              SmallVector<utils::IteratorType>(3,
                                               utils::IteratorType::parallel),
              [](OpBuilder &bb, Location bl, ValueRange args) {
                linalg::YieldOp::create(
                    bb, bl,
                    ValueRange{arith::AddFOp::create(bb, bl, args[1], args[0])
                                   .getResult()});
              })
              .getResult(0);
      return tensor::InsertSliceOp::create(nb, l, added, target, offsets, sizes,
                                           unit);
    };
    auto byRow = scf::ForOp::create(
        b, loc, zero, arith::ConstantIndexOp::create(b, loc, tapRows), one,
        ValueRange{image},
        [&](OpBuilder &rb, Location rl, Value kh, ValueRange rowArgs) {
          auto byColumn = scf::ForOp::create(
              rb, rl, zero, arith::ConstantIndexOp::create(rb, rl, tapColumns),
              one, ValueRange{rowArgs[0]},
              [&](OpBuilder &cb, Location cl, Value kw, ValueRange args) {
                scf::YieldOp::create(cb, cl, addSlab(cb, cl, kh, kw, args[0]));
              });
          scf::YieldOp::create(rb, rl, byColumn.getResult(0));
        });
    Value result = byRow.getResult(0);
    if (config.reluEpilogue)
      result = applyRelu(b, loc, result);
    return std::make_pair(result, outImage);
  });
}

} // namespace odt::cpu
