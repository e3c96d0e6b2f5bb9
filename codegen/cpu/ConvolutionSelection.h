//===- ConvolutionSelection.h - how the CPU computes a convolution -*- C++
//-*-===//
//
// The middle hands the backend convolutions as linalg ops: forward ones as
// linalg.conv_2d_nchw_fchw (and the other named convolutions), filter
// gradients as the generic of MiddleContract.h. The CPU backend computes
// some of them with kernels of its own; which one, and how, is decided here
// and written on the op as a dictionary attribute (kConvolutionConfigAttr)
// by odt-select-convolution-kernels, then carried out by
// odt-lower-convolutions. A config already in the input IR forces one.
//
//   odt.convolution = {kernel = "image_columns", epilogue = "relu"}
//       a forward convolution as one matrix product per image (the
//       filter times the image's columns, im2col), images in parallel; the
//       Relu that is its only reader applied to the product's result
//   odt.convolution = {kernel = "image_columns", panel_columns = 32}
//       the image's columns laid out as [OH*OW / 32, C*KH*KW, 32]: the
//       panels the product's packed kernel reads, so it reads them where
//       they are instead of copying each one (OH*OW a multiple of 32, and
//       OW a multiple of 32 or 32 a multiple of OW, whole rows per panel)
//   odt.convolution = {kernel = "image_columns", image_groups = 4}
//       a filter gradient as a product per image (dY's rows times the
//       image's columns, a row per output position), summed in
//       image_groups groups of images in parallel, then the groups' sums
//       added
//   odt.convolution = {kernel = "image_columns", image_groups = 4,
//                      transposed = true, chunk_rows = 2}
//       the same sums computed transposed, dW^T = the image's columns in
//       the forward's layout (copied as vector rows) times dY^T, and the
//       total transposed back; with chunk_rows, an image's columns and dY^T
//       are built and multiplied that many output rows at a time
//   odt.convolution = {kernel = "image_columns", image_groups = 4,
//                      transposed = true, chunk_images = 4}
//       the transposed sums with that many images' columns side by side
//       in one product ([C*KH*KW, 4*OH*OW] times [4*OH*OW, F]): small
//       images make a product of few terms per accumulator load otherwise
//   odt.convolution = {kernel = "image_partials"}
//       a filter gradient summed over each image's positions (one partial
//       per image and filter element), then over the images
//   odt.convolution = {kernel = "scattered_columns"}
//       a forward convolution of a zero-padded input that every window
//       meets in full (padding KH - 1, KW - 1 on both sides, stride 1: an
//       input gradient, a ConvTranspose) computed from the unpadded input:
//       per image, the filter as [F*KH*KW, C] times the input [C, H*W]
//       gives each input position's contribution to every output it
//       reaches, and the KH*KW slabs [F, H, W] of that are added into the
//       output at their offsets (col2im), instead of multiplying the
//       padding's zeros
//
// Convolutions without a config keep linalg's lowering.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_CONVOLUTIONSELECTION_H
#define ODT_CODEGEN_CPU_CONVOLUTIONSELECTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace odt::cpu {

inline constexpr llvm::StringLiteral kConvolutionConfigAttr = "odt.convolution";

/// A convolution of the middle, as the CPU backend reads it.
struct ConvolutionForm {
  enum class Kind {
    /// linalg.conv_2d_nchw_fchw: output[n, f, o] += input[n, c, window] *
    /// filter[f, c, k].
    Forward,
    /// The filter-gradient generic (MiddleContract.h).
    FilterGradient,
  };
  Kind kind;
  mlir::Operation *op;
  /// Forward: the (padded) input, the filter and the accumulator.
  /// FilterGradient: the padded input, dY, and dW's zero-filled init.
  mlir::Value input, filterOrGradient, init;
  llvm::SmallVector<int64_t, 2> strides, dilations;
  /// FilterGradient: filters and input channels per group.
  int64_t filtersPerGroup = 0, channelsPerGroup = 0;
  /// Forward: the Relu generic that is the result's only reader, if any.
  mlir::linalg::GenericOp relu;
  /// f32 throughout, two spatial dims, one group, a static filter: the
  /// forms the image-columns products compute.
  bool productShaped = false;
  /// Forward: the tensor that a tensor.pad with zeros made `input` from,
  /// and that pad's amounts along the spatial dims (before and after), or
  /// null when the input is not such a pad.
  mlir::Value unpadded;
  llvm::SmallVector<int64_t, 2> padsBefore, padsAfter;
};

/// `op` as a convolution the CPU backend may lower itself, or nothing.
std::optional<ConvolutionForm> matchConvolution(mlir::Operation *op);

enum class ConvolutionKernel { ImageColumns, ImagePartials, ScatteredColumns };

struct ConvolutionConfig {
  ConvolutionKernel kernel;
  /// FilterGradient with ImageColumns: groups of images summed in parallel.
  int64_t imageGroups = 0;
  /// FilterGradient with ImageColumns: computed as dW^T (columns x dY^T).
  bool transposed = false;
  /// Transposed: > 0 builds and multiplies an image's columns this many
  /// output rows at a time (a divisor of the output's rows).
  int64_t chunkRows = 0;
  /// Transposed, without chunkRows: > 1 builds and multiplies this many
  /// images' columns at a time (the images of a group that do not fill a
  /// chunk go one by one).
  int64_t chunkImages = 0;
  /// Forward: the Relu reading the result is applied in the kernel.
  bool reluEpilogue = false;
  /// Forward ImageColumns: > 0 lays the columns out as panels of this
  /// many positions (canLayOutPanels).
  int64_t panelColumns = 0;
};

/// Whether a forward convolution's columns can be laid out as panels of
/// `width` positions: static output positions, more than one panel, each
/// panel whole rows or part of one.
bool canLayOutPanels(const ConvolutionForm &form, int64_t width);

/// Whether scattered_columns can compute `form`: a forward f32 convolution
/// (productShaped) at stride 1 without dilation, of an input zero-padded by
/// KH - 1 and KW - 1 on both sides (each output position reached by every
/// tap of some input position, none cut off), with static spatial sizes.
bool canScatterColumns(const ConvolutionForm &form);

/// The config for `form`, or nothing (linalg's lowering); `why` says why.
/// `force` (a kernel name, or "linalg" for none) replaces the choice where
/// that kernel can compute the convolution. `vectorWidth`: the target's f32
/// lanes.
std::optional<ConvolutionConfig>
selectConvolutionConfig(const ConvolutionForm &form, llvm::StringRef force,
                        int64_t vectorWidth, std::string &why);

/// The kernel named `name` (image_columns, image_partials,
/// scattered_columns), or nothing.
std::optional<ConvolutionKernel>
parseConvolutionKernelName(llvm::StringRef name);
/// Whether `name` is a kernel, or "linalg" (none: linalg's loops).
bool isConvolutionKernelName(llvm::StringRef name);

mlir::DictionaryAttr getConvolutionConfigAttr(mlir::MLIRContext *context,
                                              const ConvolutionConfig &config);

/// The config on `form`'s op, checked against the form (an error at the op
/// and failure when it cannot be carried out), or nothing when it has none.
mlir::FailureOr<std::optional<ConvolutionConfig>>
readConvolutionConfig(const ConvolutionForm &form);

/// The kernels (ConvolutionKernels.cpp). Each returns the value replacing
/// the op's result (or its Relu's).
mlir::Value buildForwardImageColumns(mlir::OpBuilder &b,
                                     const ConvolutionForm &form,
                                     const ConvolutionConfig &config);
mlir::Value buildFilterGradientImageColumns(mlir::OpBuilder &b,
                                            const ConvolutionForm &form,
                                            const ConvolutionConfig &config);
mlir::Value buildFilterGradientImagePartials(mlir::OpBuilder &b,
                                             const ConvolutionForm &form);
mlir::Value buildForwardScatteredColumns(mlir::OpBuilder &b,
                                         const ConvolutionForm &form,
                                         const ConvolutionConfig &config);

} // namespace odt::cpu

#endif // ODT_CODEGEN_CPU_CONVOLUTIONSELECTION_H
