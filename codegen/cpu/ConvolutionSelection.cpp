//===- ConvolutionSelection.cpp - how the CPU computes a convolution ------===//
//
// See ConvolutionSelection.h. The constants of the CPU's convolution
// kernels live here, with why they are what they are.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ConvolutionSelection.h"
#include "codegen/common/MiddleContract.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;

namespace odt::cpu {
namespace {

/// Image groups a filter gradient's products are summed in: a fixed count,
/// not the thread count, so the order of the sums (and the result) does
/// not depend on how many threads run them; 4 keeps 2 to 4 threads busy
/// and the partial sums small (4 filter-sized buffers).
constexpr int64_t kFilterGradientImageGroups = 4;

bool isF32(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isF32();
}

/// Whether `generic` is max(x, +0) of its one input, elementwise: the
/// middle's Relu.
bool isRelu(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto maximum = dyn_cast<arith::MaximumFOp>(body.front());
  return maximum && maximum.getLhs() == body.getArgument(0) &&
         matchPattern(maximum.getRhs(), m_PosZeroFloat()) &&
         body.getTerminator()->getOperand(0) == maximum.getResult();
}

std::optional<ConvolutionForm> matchForward(linalg::Conv2DNchwFchwOp conv) {
  ConvolutionForm form;
  form.kind = ConvolutionForm::Kind::Forward;
  form.op = conv;
  form.input = conv.getInputs()[0];
  form.filterOrGradient = conv.getInputs()[1];
  form.init = conv.getOutputs()[0];
  for (int64_t stride : conv.getStrides().getValues<int64_t>())
    form.strides.push_back(stride);
  for (int64_t dilation : conv.getDilations().getValues<int64_t>())
    form.dilations.push_back(dilation);
  auto filterType = cast<RankedTensorType>(form.filterOrGradient.getType());
  form.productShaped = isF32(form.input) && isF32(form.filterOrGradient) &&
                       isF32(form.init) && filterType.hasStaticShape();
  if (auto pad = form.input.getDefiningOp<tensor::PadOp>()) {
    Value padding = pad.getConstantPaddingValue();
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    if (padding && matchPattern(padding, m_AnyZeroFloat()) && low.size() == 4 &&
        low[0] == 0 && low[1] == 0 && high[0] == 0 && high[1] == 0 &&
        llvm::none_of(low, ShapedType::isDynamic) &&
        llvm::none_of(high, ShapedType::isDynamic)) {
      form.unpadded = pad.getSource();
      form.padsBefore = {low[2], low[3]};
      form.padsAfter = {high[2], high[3]};
    }
  }
  Value result = conv->getResult(0);
  if (result.hasOneUse())
    if (auto user = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
        user && isRelu(user) &&
        user->getResult(0).getType() == result.getType())
      form.relu = user;
  return form;
}

/// The value of `map`'s result `index` at the point whose dims are all 0
/// but `dim`, which is `value`.
int64_t evaluateAt(AffineMap map, unsigned index, unsigned dim, int64_t value) {
  SmallVector<int64_t> point(map.getNumDims(), 0);
  point[dim] = value;
  return map.compose(point)[index];
}

std::optional<ConvolutionForm> matchFilterGradient(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
      generic->getNumResults() != 1)
    return std::nullopt;
  auto outputType = dyn_cast<RankedTensorType>(generic->getResult(0).getType());
  if (!outputType || !outputType.hasStaticShape() || outputType.getRank() < 3)
    return std::nullopt;
  int64_t n = outputType.getRank() - 2;
  unsigned rank = 3 + 2 * n;
  if (generic.getNumLoops() != rank)
    return std::nullopt;
  for (auto [index, iterator] :
       llvm::enumerate(generic.getIteratorTypesArray()))
    if ((iterator == utils::IteratorType::parallel) !=
        (static_cast<int64_t>(index) < 2 + n))
      return std::nullopt;
  // The body: acc + a * b.
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto product = dyn_cast<arith::MulFOp>(body.front());
  auto sum = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  if (!product || !sum || product.getLhs() != body.getArgument(0) ||
      product.getRhs() != body.getArgument(1) ||
      sum.getLhs() != body.getArgument(2) ||
      sum.getRhs() != product.getResult() ||
      body.getTerminator()->getOperand(0) != sum.getResult())
    return std::nullopt;
  // dW starts at zero: the kernels compute the sum, not an accumulation.
  Value init = generic.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return std::nullopt;
  // The strides, dilations and groups the maps are built from, read off
  // them, then the maps compared with the contract's.
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineMap xMap = maps[1];
  if (xMap.getNumResults() != 2 + n)
    return std::nullopt;
  ConvolutionForm form;
  form.kind = ConvolutionForm::Kind::FilterGradient;
  form.op = generic;
  form.filterOrGradient = generic.getDpsInputs()[0];
  form.input = generic.getDpsInputs()[1];
  form.init = init;
  for (int64_t i = 0; i < n; ++i) {
    form.strides.push_back(evaluateAt(xMap, 2 + i, 3 + n + i, 1));
    form.dilations.push_back(evaluateAt(xMap, 2 + i, 2 + i, 1));
    if (form.strides.back() < 1 || form.dilations.back() < 1)
      return std::nullopt;
  }
  // One group when the filter does not move the channel, else the first
  // filter of the second group moves it.
  int64_t filters = outputType.getDimSize(0);
  form.channelsPerGroup = outputType.getDimSize(1);
  form.filtersPerGroup = filters;
  for (int64_t m = 1; m < filters; ++m)
    if (evaluateAt(xMap, 1, 0, m) != 0) {
      form.filtersPerGroup = m;
      break;
    }
  if (filters % form.filtersPerGroup != 0)
    return std::nullopt;
  SmallVector<AffineMap, 2> expected =
      getFilterGradientInputMaps(generic.getContext(), form.strides,
                                 form.dilations, filters / form.filtersPerGroup,
                                 form.filtersPerGroup, form.channelsPerGroup);
  SmallVector<AffineExpr> kept;
  for (int64_t i = 0; i < 2 + n; ++i)
    kept.push_back(getAffineDimExpr(i, generic.getContext()));
  if (maps[0] != expected[0] || maps[1] != expected[1] ||
      maps[2] != AffineMap::get(rank, 0, kept, generic.getContext()))
    return std::nullopt;
  form.productShaped = n == 2 && form.filtersPerGroup == filters &&
                       isF32(form.input) && isF32(form.filterOrGradient) &&
                       isF32(init);
  return form;
}

StringRef getKernelName(ConvolutionKernel kernel) {
  switch (kernel) {
  case ConvolutionKernel::ImageColumns:
    return "image_columns";
  case ConvolutionKernel::ImagePartials:
    return "image_partials";
  case ConvolutionKernel::ScatteredColumns:
    return "scattered_columns";
  }
  llvm_unreachable("unknown convolution kernel");
}

} // namespace

std::optional<ConvolutionForm> matchConvolution(Operation *op) {
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
    return matchForward(conv);
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return matchFilterGradient(generic);
  return std::nullopt;
}

std::optional<ConvolutionKernel> parseConvolutionKernelName(StringRef name) {
  for (ConvolutionKernel kernel :
       {ConvolutionKernel::ImageColumns, ConvolutionKernel::ImagePartials,
        ConvolutionKernel::ScatteredColumns})
    if (name == getKernelName(kernel))
      return kernel;
  return std::nullopt;
}

bool isConvolutionKernelName(StringRef name) {
  return name == "linalg" || parseConvolutionKernelName(name).has_value();
}

bool canLayOutPanels(const ConvolutionForm &form, int64_t width) {
  if (form.kind != ConvolutionForm::Kind::Forward || !form.productShaped ||
      width <= 0)
    return false;
  auto outputType = cast<RankedTensorType>(form.init.getType());
  if (outputType.getRank() != 4 || outputType.isDynamicDim(2) ||
      outputType.isDynamicDim(3))
    return false;
  int64_t rows = outputType.getDimSize(2), row = outputType.getDimSize(3);
  if (rows * row <= width)
    return false;
  return row % width == 0 || (width % row == 0 && rows % (width / row) == 0);
}

bool canScatterColumns(const ConvolutionForm &form) {
  if (form.kind != ConvolutionForm::Kind::Forward || !form.productShaped ||
      !form.unpadded)
    return false;
  auto sourceType = cast<RankedTensorType>(form.unpadded.getType());
  auto outputType = cast<RankedTensorType>(form.init.getType());
  auto filterType = cast<RankedTensorType>(form.filterOrGradient.getType());
  if (sourceType.getRank() != 4 || outputType.getRank() != 4)
    return false;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t taps = filterType.getDimSize(2 + i);
    if (form.strides[i] != 1 || form.dilations[i] != 1 ||
        form.padsBefore[i] != taps - 1 || form.padsAfter[i] != taps - 1 ||
        sourceType.isDynamicDim(2 + i) || outputType.isDynamicDim(2 + i))
      return false;
  }
  return true;
}

/// Whether a forward convolution that scattered_columns can compute is
/// better computed so. Its product multiplies the filter by the input's
/// positions, image_columns's by the output's (KH - 1 and KW - 1 more per
/// axis, their windows partly the padding's zeros); its buffer holds the
/// filters' KH*KW rows per input position where image_columns copies the
/// channels' KH*KW per output position. lenet5's second layer's input
/// gradient (16 -> 6 channels, 5x5, 10x10 -> 14x14): 240 K multiply-adds
/// per image instead of 470 K, and a 60 KB buffer instead of 314 KB.
static bool prefersScatteredColumns(const ConvolutionForm &form,
                                    std::string &why) {
  if (!canScatterColumns(form))
    return false;
  auto sourceType = cast<RankedTensorType>(form.unpadded.getType());
  auto outputType = cast<RankedTensorType>(form.init.getType());
  int64_t filters = outputType.getDimSize(1),
          channels = sourceType.getDimSize(1);
  int64_t inputPositions = sourceType.getDimSize(2) * sourceType.getDimSize(3);
  int64_t outputPositions = outputType.getDimSize(2) * outputType.getDimSize(3);
  if (filters * inputPositions > channels * outputPositions)
    return false;
  why = "scattered_columns: a product per image of the filter by the "
        "unpadded input (" +
        std::to_string(inputPositions) + " positions, not the padded " +
        std::to_string(outputPositions) +
        "), its rows added into the output at each tap's offset";
  return true;
}

/// The config the selection makes, without a forced kernel.
static std::optional<ConvolutionConfig>
selectUnforced(const ConvolutionForm &form, int64_t vectorWidth,
               std::string &why);

/// Whether an image_columns filter gradient is better computed transposed.
/// Either form reorders one operand element by element: a row per output
/// position gathers the columns' C*KH*KW values of every position (runs of
/// KW), the transposed form transposes dY's F values instead (its columns
/// are copied as vector rows). The transposed product's vectors run along
/// the filters, so there must be a vector's worth of them. resnet18_cifar
/// (3x3, 16-128 channels): training step -9.5%. Transposing every filter
/// gradient made mobilenetv2 and lenet5 2-3% slower: their expanding 1x1
/// layers (more filters than a window's values) and lenet5's first layer
/// (6 filters) keep the row per position.
static bool prefersTransposedFilterGradient(const ConvolutionForm &form,
                                            int64_t vectorWidth,
                                            std::string &why) {
  auto dwType = cast<RankedTensorType>(form.init.getType());
  int64_t filters = dwType.getDimSize(0);
  int64_t windowValues =
      dwType.getDimSize(1) * dwType.getDimSize(2) * dwType.getDimSize(3);
  if (filters < vectorWidth || filters >= windowValues)
    return false;
  why += " Computed transposed (dW^T = columns x dY^T): its " +
         std::to_string(filters) + " filters fill vectors and are fewer " +
         "than the " + std::to_string(windowValues) + " values of a window.";
  return true;
}

/// Output positions per chunk of a transposed filter gradient: the chunk's
/// columns (C*KH*KW rows of them) are written and then read by the product
/// while they are in L1 or close; an image's whole columns (590 KB for 16
/// channels of 32x32 positions) went out to L2 before the product read
/// them, and their copy was a third of the gradient's time. Fewer positions
/// make the product reload its accumulators more often per FMA.
constexpr int64_t kFilterGradientChunkPositions = 64;

/// What a chunk of a transposed filter gradient keeps in L1 when it can:
/// its columns [C*KH*KW, P], the accumulators dW^T [C*KH*KW, F] and its
/// dY^T [P, F]. The 16->16 32x32 layer's 64-position chunk needs 49 KB
/// of them, a little over a 48 KB L1: 32 positions (29 KB) made its
/// training step 5% faster (1 thread, odt-run bench, 5 alternating
/// rounds). Layers whose accumulators alone fill L1 (32 channels and up)
/// were 1-3% slower with fewer positions: more accumulator reloads and
/// nothing kept.
constexpr int64_t kFilterGradientL1Bytes = 32 * 1024;

/// The output rows per chunk of a transposed filter gradient: the most
/// that divide the output's rows and hold at most
/// kFilterGradientChunkPositions positions (one row at least), fewer when
/// that keeps the chunk's working set within kFilterGradientL1Bytes where
/// the most would not, or 0 (the whole image at once) when that is all of
/// them or the rows are not static.
static int64_t chooseChunkRows(const ConvolutionForm &form, std::string &why) {
  auto dyType = cast<RankedTensorType>(form.filterOrGradient.getType());
  auto dwType = cast<RankedTensorType>(form.op->getResult(0).getType());
  if (dyType.getRank() != 4 || dyType.isDynamicDim(2) || dyType.isDynamicDim(3))
    return 0;
  int64_t rows = dyType.getDimSize(2), row = dyType.getDimSize(3);
  int64_t filters = dyType.getDimSize(1);
  int64_t window = dwType.getNumElements() / filters;
  auto workingSetBytes = [&](int64_t chunkRows) {
    int64_t positions = chunkRows * row;
    return 4 * (window * positions + window * filters + positions * filters);
  };
  int64_t chunk = 1, fitting = 0;
  for (int64_t candidate = 1; candidate <= rows; ++candidate) {
    if (rows % candidate != 0 ||
        candidate * row > kFilterGradientChunkPositions)
      continue;
    chunk = candidate;
    if (workingSetBytes(candidate) <= kFilterGradientL1Bytes)
      fitting = candidate;
  }
  bool keptInL1 =
      fitting > 0 && workingSetBytes(chunk) > kFilterGradientL1Bytes;
  if (keptInL1)
    chunk = fitting;
  if (chunk == rows)
    return 0;
  why += " " + std::to_string(chunk) + " output row" + (chunk == 1 ? "" : "s") +
         " (" + std::to_string(chunk * row) + " positions) at a time" +
         (keptInL1 ? ", its columns, accumulators and dY^T within " +
                         std::to_string(kFilterGradientL1Bytes / 1024) + " KB"
                   : "") +
         ".";
  return chunk;
}

/// The output [N, F, OH, OW] of a forward convolution, or the output's
/// gradient a filter gradient reads.
static RankedTensorType outputOf(const ConvolutionForm &form) {
  return cast<RankedTensorType>(form.kind == ConvolutionForm::Kind::Forward
                                    ? form.init.getType()
                                    : form.filterOrGradient.getType());
}

/// The output positions of one image, if static.
static std::optional<int64_t> imagePositions(const ConvolutionForm &form) {
  RankedTensorType outType = outputOf(form);
  if (outType.getRank() != 4 || outType.isDynamicDim(2) ||
      outType.isDynamicDim(3))
    return std::nullopt;
  return outType.getDimSize(2) * outType.getDimSize(3);
}

/// The images per chunk of a forward product, or of a transposed filter
/// gradient, whose images have at most kFilterGradientChunkPositions output
/// positions each: as many as fill a chunk, or 0 (one at a time) when that
/// is one. One image of 4x4 positions (resnet's last stage) is a product of
/// 16 columns: the forward's filter (2.4 MB for 256 filters of 256
/// channels, more than L2) was read from memory for every image, once per
/// 16 multiply-adds of each element; the filter gradient's sums, as large,
/// went to memory and back for every 16 terms.
static int64_t chooseChunkImages(const ConvolutionForm &form) {
  std::optional<int64_t> positions = imagePositions(form);
  if (!positions)
    return 0;
  int64_t images =
      kFilterGradientChunkPositions / std::max<int64_t>(*positions, 1);
  return images < 2 ? 0 : images;
}

/// "G images (P positions)" of a config with chunkImages.
static std::string describeChunk(const ConvolutionForm &form,
                                 const ConvolutionConfig &config) {
  return std::to_string(config.chunkImages) + " images (" +
         std::to_string(config.chunkImages * imagePositions(form).value_or(0)) +
         " positions)";
}

/// An image_columns filter gradient's layout: transposed or not, and then
/// its chunks.
static void chooseFilterGradientLayout(const ConvolutionForm &form,
                                       int64_t vectorWidth,
                                       ConvolutionConfig &config,
                                       std::string &why) {
  config.transposed = prefersTransposedFilterGradient(form, vectorWidth, why);
  if (config.transposed)
    config.chunkRows = chooseChunkRows(form, why);
  if (config.transposed && config.chunkRows == 0) {
    config.chunkImages = chooseChunkImages(form);
    if (config.chunkImages > 0)
      why += " " + describeChunk(form, config) + " at a time.";
  }
}

/// A forward image_columns config's layout: its columns as panels where
/// the shape allows them, else several small images per product.
static void chooseForwardLayout(const ConvolutionForm &form,
                                int64_t vectorWidth,
                                ConvolutionConfig &config) {
  // The panels the product kernels read: two vectors of the target.
  int64_t panelWidth = 2 * vectorWidth;
  if (canLayOutPanels(form, panelWidth))
    config.panelColumns = panelWidth;
  else
    config.chunkImages = chooseChunkImages(form);
}

/// What a forward image_columns config's remark says of its layout.
static std::string describePanels(const ConvolutionConfig &config) {
  if (config.panelColumns == 0)
    return "";
  return " Its columns are laid out as panels of " +
         std::to_string(config.panelColumns) +
         " positions, read where they are.";
}

std::optional<ConvolutionConfig>
selectConvolutionConfig(const ConvolutionForm &form, StringRef force,
                        int64_t vectorWidth, std::string &why) {
  std::optional<ConvolutionConfig> selected =
      selectUnforced(form, vectorWidth, why);
  if (force.empty())
    return selected;
  bool forward = form.kind == ConvolutionForm::Kind::Forward;
  if (force == "linalg") {
    why = "Forced: linalg.";
    return std::nullopt;
  }
  std::optional<ConvolutionKernel> forced = parseConvolutionKernelName(force);
  ConvolutionConfig config;
  if (forced == ConvolutionKernel::ImageColumns && form.productShaped) {
    config.kernel = ConvolutionKernel::ImageColumns;
    config.imageGroups = forward ? 0 : kFilterGradientImageGroups;
    config.reluEpilogue = forward && form.relu;
  } else if (forced == ConvolutionKernel::ImagePartials && !forward) {
    config.kernel = ConvolutionKernel::ImagePartials;
  } else if (forced == ConvolutionKernel::ScatteredColumns &&
             canScatterColumns(form)) {
    config.kernel = ConvolutionKernel::ScatteredColumns;
    config.reluEpilogue = static_cast<bool>(form.relu);
  } else {
    why += " The forced " + force.str() +
           " kernel cannot compute this convolution.";
    return selected;
  }
  why = "Forced: " + force.str() + ".";
  if (config.kernel == ConvolutionKernel::ImageColumns && forward) {
    chooseForwardLayout(form, vectorWidth, config);
    why += describePanels(config);
    if (config.chunkImages > 0)
      why += " A product per " + describeChunk(form, config) + ".";
  }
  if (config.kernel == ConvolutionKernel::ImageColumns && !forward)
    chooseFilterGradientLayout(form, vectorWidth, config, why);
  return config;
}

static std::optional<ConvolutionConfig>
selectUnforced(const ConvolutionForm &form, int64_t vectorWidth,
               std::string &why) {
  ConvolutionConfig config;
  if (form.kind == ConvolutionForm::Kind::Forward) {
    if (!form.productShaped) {
      why = "Not an f32 convolution with a static filter: linalg's loops.";
      return std::nullopt;
    }
    config.reluEpilogue = static_cast<bool>(form.relu);
    std::string relu =
        config.reluEpilogue ? "; the Relu reading it runs on the result." : ".";
    if (prefersScatteredColumns(form, why)) {
      config.kernel = ConvolutionKernel::ScatteredColumns;
      why += relu;
      return config;
    }
    // One image's columns ([C*KH*KW, OH*OW], a few hundred KB at most) are
    // written and read while they sit in L2, instead of all images' columns
    // going through memory; the product is odt-vectorize-contractions'.
    config.kernel = ConvolutionKernel::ImageColumns;
    chooseForwardLayout(form, vectorWidth, config);
    why = "image_columns: a product per ";
    if (config.chunkImages > 0)
      why += std::to_string(config.chunkImages) + " images (their " +
             std::to_string(config.chunkImages *
                            imagePositions(form).value_or(0)) +
             " positions side by side)";
    else
      why += "image";
    why += config.reluEpilogue
               ? "; the Relu reading it runs on the product's result."
               : ".";
    why += describePanels(config);
    return config;
  }
  if (form.productShaped) {
    config.kernel = ConvolutionKernel::ImageColumns;
    config.imageGroups = kFilterGradientImageGroups;
    why = "image_columns: a product per image, summed in 4 image groups in "
          "parallel.";
    chooseFilterGradientLayout(form, vectorWidth, config, why);
    return config;
  }
  // One running sum per image over its positions (a row of dY against a
  // shifted row of X: vectorized along the row), then the images' sums:
  // only filter-sized partials, where staging the positions' dims too made
  // one per output row.
  config.kernel = ConvolutionKernel::ImagePartials;
  why = "image_partials (grouped, not f32 or not 2-D): a partial sum per "
        "image, then the images'.";
  return config;
}

DictionaryAttr getConvolutionConfigAttr(MLIRContext *context,
                                        const ConvolutionConfig &config) {
  Builder b(context);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kernel", b.getStringAttr(getKernelName(config.kernel)))};
  if (config.imageGroups > 0)
    fields.push_back(b.getNamedAttr("image_groups",
                                    b.getI64IntegerAttr(config.imageGroups)));
  if (config.reluEpilogue)
    fields.push_back(b.getNamedAttr("epilogue", b.getStringAttr("relu")));
  if (config.panelColumns > 0)
    fields.push_back(b.getNamedAttr("panel_columns",
                                    b.getI64IntegerAttr(config.panelColumns)));
  if (config.transposed)
    fields.push_back(b.getNamedAttr("transposed", b.getBoolAttr(true)));
  if (config.chunkRows > 0)
    fields.push_back(
        b.getNamedAttr("chunk_rows", b.getI64IntegerAttr(config.chunkRows)));
  if (config.chunkImages > 0)
    fields.push_back(b.getNamedAttr("chunk_images",
                                    b.getI64IntegerAttr(config.chunkImages)));
  return b.getDictionaryAttr(fields);
}

FailureOr<std::optional<ConvolutionConfig>>
readConvolutionConfig(const ConvolutionForm &form) {
  Operation *op = form.op;
  Attribute attr = op->getAttr(kConvolutionConfigAttr);
  if (!attr)
    return std::optional<ConvolutionConfig>();
  auto fail = [&](const Twine &why) {
    op->emitError() << "'" << kConvolutionConfigAttr << "': " << why;
    return failure();
  };
  auto dictionary = dyn_cast<DictionaryAttr>(attr);
  if (!dictionary)
    return fail("expected a dictionary");
  for (NamedAttribute field : dictionary)
    if (!llvm::is_contained({"kernel", "image_groups", "epilogue",
                             "panel_columns", "transposed", "chunk_rows",
                             "chunk_images"},
                            field.getName().strref()))
      return fail("unknown field '" + field.getName().strref() + "'");
  auto kernel = dictionary.getAs<StringAttr>("kernel");
  if (!kernel)
    return fail("expected a string 'kernel'");
  bool forward = form.kind == ConvolutionForm::Kind::Forward;
  std::optional<ConvolutionKernel> named =
      parseConvolutionKernelName(kernel.getValue());
  if (!named)
    return fail("unknown kernel '" + kernel.getValue() +
                "' (image_columns, image_partials, scattered_columns)");
  ConvolutionConfig config;
  config.kernel = *named;
  if (*named == ConvolutionKernel::ImageColumns && !form.productShaped)
    return fail("image_columns computes f32 2-D convolutions of one group "
                "with a static filter only");
  if (*named == ConvolutionKernel::ImagePartials && forward)
    return fail("image_partials computes filter gradients only");
  if (*named == ConvolutionKernel::ScatteredColumns && !canScatterColumns(form))
    return fail("scattered_columns computes f32 2-D forward convolutions of "
                "one group with a static filter, at stride 1 without "
                "dilation, of an input zero-padded by the window's size "
                "less one on both sides, with static spatial sizes");
  if (Attribute groups = dictionary.get("image_groups")) {
    auto value = dyn_cast<IntegerAttr>(groups);
    if (forward || config.kernel != ConvolutionKernel::ImageColumns)
      return fail("image_groups applies to image_columns filter gradients");
    if (!value || value.getInt() < 1)
      return fail("image_groups must be a positive integer");
    config.imageGroups = value.getInt();
  } else if (!forward && config.kernel == ConvolutionKernel::ImageColumns) {
    return fail("an image_columns filter gradient needs image_groups");
  }
  if (Attribute transposed = dictionary.get("transposed")) {
    auto value = dyn_cast<BoolAttr>(transposed);
    if (forward || config.kernel != ConvolutionKernel::ImageColumns)
      return fail("transposed applies to image_columns filter gradients");
    if (!value)
      return fail("transposed must be a boolean");
    config.transposed = value.getValue();
  }
  if (Attribute chunk = dictionary.get("chunk_rows")) {
    auto value = dyn_cast<IntegerAttr>(chunk);
    if (!config.transposed)
      return fail("chunk_rows applies to transposed filter gradients");
    auto dyType = cast<RankedTensorType>(form.filterOrGradient.getType());
    if (!value || value.getInt() < 1 || dyType.getRank() != 4 ||
        dyType.isDynamicDim(2) || dyType.isDynamicDim(3) ||
        dyType.getDimSize(2) % value.getInt() != 0)
      return fail("chunk_rows must be a positive divisor of the output's "
                  "rows, with static output rows");
    config.chunkRows = value.getInt();
  }
  if (Attribute chunk = dictionary.get("chunk_images")) {
    auto value = dyn_cast<IntegerAttr>(chunk);
    if (config.kernel != ConvolutionKernel::ImageColumns ||
        (!forward && (!config.transposed || config.chunkRows > 0)))
      return fail("chunk_images applies to forward image_columns and to "
                  "transposed filter gradients without chunk_rows");
    if (!value || value.getInt() < 1 || !imagePositions(form))
      return fail("chunk_images must be a positive integer, with static "
                  "output positions");
    config.chunkImages = value.getInt();
  }
  if (Attribute epilogue = dictionary.get("epilogue")) {
    auto name = dyn_cast<StringAttr>(epilogue);
    if (!forward || !name || name.getValue() != "relu")
      return fail("the only epilogue is \"relu\", on a forward convolution");
    if (!form.relu)
      return fail("epilogue \"relu\" but the result's only reader is not a "
                  "Relu");
    config.reluEpilogue = true;
  }
  if (Attribute panels = dictionary.get("panel_columns")) {
    auto value = dyn_cast<IntegerAttr>(panels);
    if (!forward || config.kernel != ConvolutionKernel::ImageColumns)
      return fail("panel_columns applies to forward image_columns");
    if (!value || !canLayOutPanels(form, value.getInt()))
      return fail("panel_columns must be a positive count of output "
                  "positions that divides them into more than one panel of "
                  "whole rows or of parts of one row");
    config.panelColumns = value.getInt();
  }
  if (config.panelColumns > 0 && config.chunkImages > 0)
    return fail("panel_columns and chunk_images exclude each other");
  return std::optional<ConvolutionConfig>(config);
}

} // namespace odt::cpu
