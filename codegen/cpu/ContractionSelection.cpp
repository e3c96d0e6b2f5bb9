//===- ContractionSelection.cpp - which kernel computes a product ---------===//
//
// Every threshold of the CPU product kernels, with the measurement behind
// it. See ContractionSelection.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionSelection.h"
#include "codegen/common/ShapeFunctions.h"
#include "codegen/cpu/CPUTarget.h"
#include "compiler/training/Roles.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace mlir;

namespace odt::cpu {
namespace {

/// Below this many row tiles, a product with a transposed B and k
/// innermost in A (a linear layer at batch 1 to 16) is not packed:
/// packing the weight's panels costs more than the product itself.
constexpr int64_t kDotRowLimit = 4;

/// From this fraction of a vector's lanes up to one vector of rows, such a
/// product is computed transposed (the swapped kernel); fewer rows leave
/// too many lanes idle and are dot products along k.
constexpr int64_t kSwappedRowsNumerator = 3;
constexpr int64_t kSwappedRowsDenominator = 4;

/// Below this many row tiles a kept weight (B a parameter, rows along n)
/// is read in place: its panels cost a pass over the weight after every
/// optimizer step, which 2 row tiles do not repay (MLP batch 16, the
/// hidden layer's dX over a 512 x 512 weight: train step 0.72 -> 0.61 ms,
/// 6 alternating pairs). Activations as B (LeNet-5's image columns at 16
/// filters, rows of 6400 values) are still packed from 2 row tiles:
/// reading them in place was slower.
constexpr int64_t kDirectRowTilesForWeights = 3;
constexpr int64_t kDirectRowTiles = 2;

/// A product with at most this many k values (a weight gradient summed
/// over a batch of 16 or 32) and at least kWideRowsMinRows rows spends
/// its time writing C, not multiplying: its parallel iterations are
/// blocks of kWideRowBlock whole rows of C, each written row after row
/// (column tiles outer, row tiles inner, B read in place), instead of
/// 64-column chunks written as narrow strips down 256 rows. MLP batch 16,
/// dW = dY^T X into [512, 784]: a C model of both orders ran 100-117 us
/// against 135-150 for the chunks.
constexpr int64_t kShortReduction = 32;
constexpr int64_t kWideRowsMinRows = 256;
constexpr int64_t kWideRowBlock = 64;

/// Column tiles per unit of parallel work: each chunk of columns is an
/// independent product (its own slice of C and of B, its own panel), as is
/// each entry of the first outer dim when that is what runs in parallel.
constexpr int64_t kTilesPerChunk = 2;
/// Rows of one parallel iteration when the columns are cut in chunks: with
/// a k block of 256, A's block is 256 KB (L2).
constexpr int64_t kRowBlock = 256;

/// Outputs of one row the dots kernel computes together: each has its own
/// accumulator, and they share each vector of A.
constexpr int64_t kDotGroup = 8;

/// k values per block of the direct kernel. Without the blocks each column
/// tile walked down all of B's rows (2 lines in each), a pattern the
/// hardware prefetchers did not follow: dX = dY W at 16 rows over a
/// [512, 512] weight from L3 ran 96-147 us in a C model, 75-85 us in
/// blocks of 32 rows (whose 16 pages the column tiles sweep in ascending
/// order); blocks of 256 did not help.
constexpr int64_t kDirectDepth = 32;

/// A product whose n fits one vector (a convolution's 4x4 output positions
/// per image) gets a tile one vector wide and twice as many rows: with the
/// usual two vectors, half of every FMA's lanes were padding (ResNet-18's
/// last stage, 128 -> 128 filters at 4x4: its product took 12% of the
/// training step). The same 16 accumulators, one B load per k.
constexpr int64_t kNarrowTileRowFactor = 2;
constexpr int64_t kMostTileRows = 16;

std::optional<int64_t> staticLoopSize(linalg::GenericOp op, unsigned dim) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (dim >= ranges.size() || ShapedType::isDynamic(ranges[dim]))
    return std::nullopt;
  return ranges[dim];
}

bool applies(const KernelChoice &choice, int64_t m, std::optional<int64_t> k) {
  return m >= choice.minRows && (choice.maxRows < 0 || m <= choice.maxRows) &&
         (choice.minK == 0 || (k && *k >= choice.minK));
}

/// With a static row count (and k, where an entry depends on it), the one
/// entry that applies.
void resolveStatically(ContractionConfig &config, std::optional<int64_t> m,
                       std::optional<int64_t> k, std::string &why) {
  if (!m)
    return;
  for (const KernelChoice &choice : config.kernels) {
    if (choice.minK > 0 && !k)
      return;
  }
  for (const KernelChoice &choice : config.kernels)
    if (applies(choice, *m, k) || &choice == &config.kernels.back()) {
      KernelChoice chosen{choice.kernel};
      config.kernels = {chosen};
      why += llvm::formatv(" The row count is static ({0}): {1}.", *m,
                           getKernelName(chosen.kernel))
                 .str();
      break;
    }
  if (config.packedMinRows() < 0)
    config.keptPanels = false;
}

bool canCompute(ContractionKernel kernel, bool transposeB, bool kInnermost) {
  switch (kernel) {
  case ContractionKernel::Packed:
    return true;
  case ContractionKernel::Direct:
    return !transposeB;
  case ContractionKernel::Dots:
  case ContractionKernel::Swapped:
    return transposeB && kInnermost;
  }
  return false;
}

/// A packed kernel over an A stored [k, m] reads its row tiles from
/// panels of them (rowPanelsOfA): in place, a tile's values at one k are
/// half a cache line and the next k is a row of A further (2 KB in a
/// weight gradient over 512 features, the same L1 set every few steps), so
/// every read missed L1 (512 x 128 x 1024, 1 thread: 116 GFLOP/s against
/// 177 with A stored [m, k]). Not where n fits one column tile: the kernel
/// then reads A once, and the copy would be a second pass over it (LeNet-5's
/// last weight gradient, 10 columns).
void chooseRowPanelsOfA(ContractionConfig &config, linalg::GenericOp op,
                        const ContractionPlan &plan, std::string &why) {
  std::optional<int64_t> n = staticLoopSize(op, plan.n);
  config.rowPanelsOfA = isMInnermostInA(op, plan) &&
                        config.packedMinRows() >= 0 &&
                        (!n || *n > config.columns);
  if (config.rowPanelsOfA)
    why += " A is stored [k, m]: the packed kernel copies each k block of "
           "it into panels of its row tiles.";
}

} // namespace

StringRef getKernelName(ContractionKernel kernel) {
  switch (kernel) {
  case ContractionKernel::Packed:
    return "packed";
  case ContractionKernel::Direct:
    return "direct";
  case ContractionKernel::Dots:
    return "dots";
  case ContractionKernel::Swapped:
    return "swapped";
  }
  return "?";
}

std::optional<ContractionKernel> parseKernelName(StringRef name) {
  for (ContractionKernel kernel :
       {ContractionKernel::Packed, ContractionKernel::Direct,
        ContractionKernel::Dots, ContractionKernel::Swapped})
    if (name == getKernelName(kernel))
      return kernel;
  return std::nullopt;
}

int64_t ContractionConfig::packedMinRows() const {
  for (const KernelChoice &choice : kernels)
    if (choice.kernel == ContractionKernel::Packed)
      return choice.minRows;
  return -1;
}

ContractionTarget resolveContractionTarget(func::FuncOp func,
                                           unsigned vectorWidth, unsigned rows,
                                           unsigned depth) {
  std::optional<CPUTargetInfo> module = readTargetAttr(func);
  ContractionTarget target;
  target.vectorWidth = vectorWidth ? vectorWidth
                       : module    ? module->vectorWidth
                                   : 16;
  target.rows = rows ? rows : module ? module->tileRows : 8;
  target.depth = depth;
  return target;
}

bool isKInnermostInA(linalg::GenericOp op, const ContractionPlan &plan) {
  AffineMap mapA = op.getIndexingMapsArray()[0];
  return resultDim(mapA, mapA.getNumResults() - 1) == plan.k;
}

bool isMInnermostInA(linalg::GenericOp op, const ContractionPlan &plan) {
  AffineMap mapA = op.getIndexingMapsArray()[0];
  return resultDim(mapA, mapA.getNumResults() - 1) == plan.m;
}

bool canKeepPanels(func::FuncOp func, linalg::GenericOp op) {
  auto weight = dyn_cast<BlockArgument>(op.getDpsInputs()[1]);
  if (!weight || weight.getOwner() != &func.front() ||
      op->getBlock() != &func.front() || op.getNumLoops() != 3 ||
      func.getName().ends_with(kShapeFunctionSuffix))
    return false;
  unsigned index = weight.getArgNumber();
  auto role = func.getArgAttrOfType<StringAttr>(index, kRoleAttr);
  auto type = dyn_cast<RankedTensorType>(weight.getType());
  return role && role.getValue() == getRoleName(ArgRole::Parameter) &&
         func.getArgAttrOfType<StringAttr>(index, kNameAttr) &&
         func.getArgAttrOfType<IntegerAttr>(index, kParamAttr) && type &&
         type.hasStaticShape() && type.getRank() == 2;
}

bool isLaidOutAsPanels(linalg::GenericOp op, const ContractionPlan &plan,
                       int64_t columns) {
  if (plan.transposeB)
    return false;
  AffineMap map = op.getIndexingMapsArray()[1];
  auto type = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  unsigned results = map.getNumResults();
  std::optional<int64_t> n = staticLoopSize(op, plan.n);
  return type && results >= 2 &&
         map.getResult(results - 1) ==
             getAffineDimExpr(plan.n, op.getContext()) &&
         map.getResult(results - 2) ==
             getAffineDimExpr(plan.k, op.getContext()) &&
         n && *n == columns && type.getShape().back() == columns;
}

ContractionConfig selectContractionConfig(linalg::GenericOp op,
                                          const ContractionPlan &plan,
                                          const ContractionTarget &target,
                                          bool keepPanels, std::string &why) {
  ContractionConfig config;
  config.rows = target.rows;
  config.columns = 2 * target.vectorWidth;
  config.depth = target.depth;
  config.keptPanels = keepPanels;
  config.chunkTiles = kTilesPerChunk;
  config.rowBlock = kRowBlock;
  config.dotGroup = kDotGroup;
  config.directDepth = kDirectDepth;
  std::optional<int64_t> m = staticLoopSize(op, plan.m);
  std::optional<int64_t> n = staticLoopSize(op, plan.n);
  std::optional<int64_t> k = staticLoopSize(op, plan.k);
  auto describeNarrowTile = [&]() -> std::string {
    if (config.columns != target.vectorWidth)
      return "";
    return llvm::formatv(" n ({0}) fits one vector: a tile of {1} rows x {2} "
                         "lanes.",
                         *n, config.rows, target.vectorWidth)
        .str();
  };
  if (plan.transposeB && isKInnermostInA(op, plan)) {
    int64_t lanes = target.vectorWidth;
    int64_t fewest = llvm::divideCeil(lanes * kSwappedRowsNumerator,
                                      kSwappedRowsDenominator);
    config.kernels = {{ContractionKernel::Packed, kDotRowLimit * target.rows},
                      {ContractionKernel::Swapped, fewest, lanes},
                      {ContractionKernel::Dots}};
    why = llvm::formatv("B is transposed and k innermost in A: packed from "
                        "{0} rows ({1} row tiles), swapped from {2} to {3} "
                        "rows (3/4 of a vector to one), dot products below.",
                        kDotRowLimit * target.rows, kDotRowLimit, fewest, lanes)
              .str();
  } else if (plan.transposeB) {
    config.kernels = {{ContractionKernel::Packed}};
    why = "B is transposed and A's rows are not contiguous along k: packed.";
  } else {
    if (n && *n <= target.vectorWidth) {
      config.columns = target.vectorWidth;
      config.rows = std::min(kMostTileRows, kNarrowTileRowFactor * target.rows);
    }
    int64_t tiles = keepPanels ? kDirectRowTilesForWeights : kDirectRowTiles;
    if (isLaidOutAsPanels(op, plan, config.columns)) {
      config.kernels = {{ContractionKernel::Packed}};
      config.panelsInPlace = true;
      config.keptPanels = false;
      why = llvm::formatv("B is laid out as panels of {0} columns: packed, "
                          "its panels read where they are.",
                          config.columns)
                .str();
      why += describeNarrowTile();
      resolveStatically(config, m, k, why);
      chooseRowPanelsOfA(config, op, plan, why);
      return config;
    }
    bool wideRows = op.getNumLoops() == 3 && !keepPanels && n && m &&
                    *m >= kWideRowsMinRows && (!k || *k <= kShortReduction);
    if (wideRows) {
      config.wideRowsMaxK = kShortReduction;
      config.wideRowBlock = kWideRowBlock;
    }
    config.kernels = {{ContractionKernel::Packed, tiles * target.rows, -1,
                       wideRows ? kShortReduction + 1 : 0},
                      {ContractionKernel::Direct}};
    why = llvm::formatv("B's rows lie along n: packed from {0} rows ({1} row "
                        "tiles{2}), B read in place below.",
                        tiles * target.rows, tiles,
                        keepPanels ? ", a kept weight" : "")
              .str();
    if (wideRows)
      why += llvm::formatv(" At least {0} rows and k at most {1}: blocks of "
                           "{2} whole rows, B read in place.",
                           kWideRowsMinRows, kShortReduction, kWideRowBlock)
                 .str();
  }
  if (keepPanels)
    why += " B is a parameter: its panels are kept between steps.";
  resolveStatically(config, m, k, why);
  why += describeNarrowTile();
  chooseRowPanelsOfA(config, op, plan, why);
  return config;
}

std::optional<ContractionConfig> forceKernel(const ContractionConfig &config,
                                             ContractionKernel kernel,
                                             linalg::GenericOp op,
                                             const ContractionPlan &plan,
                                             const ContractionTarget &target) {
  if (!canCompute(kernel, plan.transposeB, isKInnermostInA(op, plan)))
    return std::nullopt;
  ContractionConfig forced = config;
  forced.wideRowsMaxK = forced.wideRowBlock = 0;
  if (kernel == ContractionKernel::Swapped)
    forced.kernels = {{kernel, 0, target.vectorWidth},
                      {ContractionKernel::Packed}};
  else
    forced.kernels = {{kernel}};
  if (forced.packedMinRows() < 0)
    forced.keptPanels = forced.rowPanelsOfA = false;
  // B's panels read where they are is the packed kernel's alone: another
  // kernel reads B as it is laid out (the direct kernel reads its rows).
  if (forced.kernels.size() != 1 ||
      forced.kernels.front().kernel != ContractionKernel::Packed)
    forced.panelsInPlace = false;
  return forced;
}

DictionaryAttr buildConfigAttr(MLIRContext *context,
                               const ContractionConfig &config) {
  Builder builder(context);
  SmallVector<Attribute> kernels;
  for (const KernelChoice &choice : config.kernels) {
    NamedAttrList entry;
    entry.set("kernel", builder.getStringAttr(getKernelName(choice.kernel)));
    if (choice.minRows > 0)
      entry.set("min_rows", builder.getI64IntegerAttr(choice.minRows));
    if (choice.maxRows >= 0)
      entry.set("max_rows", builder.getI64IntegerAttr(choice.maxRows));
    if (choice.minK > 0)
      entry.set("min_k", builder.getI64IntegerAttr(choice.minK));
    kernels.push_back(entry.getDictionary(context));
  }
  NamedAttrList attrs;
  attrs.set("kernels", builder.getArrayAttr(kernels));
  attrs.set("tile",
            builder.getDenseI64ArrayAttr({config.rows, config.columns}));
  attrs.set("depth", builder.getI64IntegerAttr(config.depth));
  NamedAttrList distribution;
  distribution.set("chunk_tiles", builder.getI64IntegerAttr(config.chunkTiles));
  distribution.set("row_block", builder.getI64IntegerAttr(config.rowBlock));
  attrs.set("distribution", distribution.getDictionary(context));
  NamedAttrList blocking;
  blocking.set("dot_group", builder.getI64IntegerAttr(config.dotGroup));
  blocking.set("direct_depth", builder.getI64IntegerAttr(config.directDepth));
  attrs.set("blocking", blocking.getDictionary(context));
  if (config.keptPanels)
    attrs.set("kept_panels", builder.getUnitAttr());
  if (config.panelsInPlace)
    attrs.set("panels_in_place", builder.getUnitAttr());
  if (config.rowPanelsOfA)
    attrs.set("row_panels_of_a", builder.getUnitAttr());
  if (config.wideRowsMaxK > 0) {
    NamedAttrList wide;
    wide.set("max_k", builder.getI64IntegerAttr(config.wideRowsMaxK));
    wide.set("row_block", builder.getI64IntegerAttr(config.wideRowBlock));
    attrs.set("wide_rows", wide.getDictionary(context));
  }
  return attrs.getDictionary(context);
}

FailureOr<std::optional<ContractionConfig>>
readConfigAttr(linalg::GenericOp op, const ContractionPlan &plan,
               const ContractionTarget &target) {
  Attribute attr = op->getAttr(kContractionConfigAttr);
  if (!attr)
    return std::optional<ContractionConfig>();
  auto fail = [&](const Twine &why) {
    return op.emitError() << kContractionConfigAttr << ": " << why;
  };
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return fail("must be a dictionary");
  for (NamedAttribute entry : dict)
    if (!llvm::is_contained({"kernels", "tile", "depth", "kept_panels",
                             "panels_in_place", "row_panels_of_a", "wide_rows",
                             "distribution", "blocking"},
                            entry.getName().getValue()))
      return fail("unknown key '" + entry.getName().getValue() + "'");
  auto positive = [](Attribute value) -> std::optional<int64_t> {
    auto integer = dyn_cast_or_null<IntegerAttr>(value);
    if (!integer || integer.getInt() <= 0)
      return std::nullopt;
    return integer.getInt();
  };
  ContractionConfig config;
  auto tile = dyn_cast_or_null<DenseI64ArrayAttr>(dict.get("tile"));
  if (!tile || tile.size() != 2 || tile[0] < 1 || tile[0] > kMostTileRows ||
      (tile[1] != 2 * target.vectorWidth && tile[1] != target.vectorWidth))
    return fail(llvm::formatv("tile must be [rows, columns] with 1 to {0} "
                              "rows and {1} or {2} columns (two vectors of the "
                              "target, or one)",
                              kMostTileRows, 2 * target.vectorWidth,
                              target.vectorWidth)
                    .str());
  config.rows = tile[0];
  config.columns = tile[1];
  std::optional<int64_t> depth = positive(dict.get("depth"));
  if (!depth)
    return fail("depth must be a positive integer");
  config.depth = *depth;
  // distribution and blocking: each field optional (the selection's value
  // when absent), positive when given.
  auto field = [&](StringRef group, StringRef key, int64_t fallback,
                   int64_t &out) -> LogicalResult {
    out = fallback;
    Attribute groupAttr = dict.get(group);
    if (!groupAttr)
      return success();
    auto groupDict = dyn_cast<DictionaryAttr>(groupAttr);
    if (!groupDict)
      return fail(group + " must be a dictionary");
    static const StringRef kDistributionKeys[] = {"chunk_tiles", "row_block"};
    static const StringRef kBlockingKeys[] = {"dot_group", "direct_depth"};
    ArrayRef<StringRef> keys = group == "distribution"
                                   ? ArrayRef<StringRef>(kDistributionKeys)
                                   : ArrayRef<StringRef>(kBlockingKeys);
    for (NamedAttribute entry : groupDict)
      if (!llvm::is_contained(keys, entry.getName().getValue()))
        return fail(group + ": unknown key '" + entry.getName().getValue() +
                    "'");
    if (Attribute value = groupDict.get(key)) {
      std::optional<int64_t> number = positive(value);
      if (!number)
        return fail(group + "." + key + " must be a positive integer");
      out = *number;
    }
    return success();
  };
  if (failed(field("distribution", "chunk_tiles", kTilesPerChunk,
                   config.chunkTiles)) ||
      failed(field("distribution", "row_block", kRowBlock, config.rowBlock)) ||
      failed(field("blocking", "dot_group", kDotGroup, config.dotGroup)) ||
      failed(
          field("blocking", "direct_depth", kDirectDepth, config.directDepth)))
    return failure();
  auto kernels = dyn_cast_or_null<ArrayAttr>(dict.get("kernels"));
  if (!kernels || kernels.empty())
    return fail("kernels must be a non-empty array");
  bool kInnermost = isKInnermostInA(op, plan);
  for (auto [index, value] : llvm::enumerate(kernels)) {
    auto entry = dyn_cast<DictionaryAttr>(value);
    auto name = entry ? entry.getAs<StringAttr>("kernel") : nullptr;
    std::optional<ContractionKernel> kernel =
        name ? parseKernelName(name.getValue()) : std::nullopt;
    if (!kernel)
      return fail("kernels[" + Twine(index) +
                  "] needs kernel = \"packed\", \"direct\", \"dots\" or "
                  "\"swapped\"");
    if (!canCompute(*kernel, plan.transposeB, kInnermost))
      return fail(
          "the " + getKernelName(*kernel) +
          " kernel cannot compute this product (" +
          (plan.transposeB ? "B is transposed" : "B is not transposed") +
          (plan.transposeB && !kInnermost ? ", k is not innermost in A" : "") +
          ")");
    KernelChoice choice{*kernel};
    for (NamedAttribute field : entry) {
      StringRef key = field.getName().getValue();
      if (key == "kernel")
        continue;
      std::optional<int64_t> number = positive(field.getValue());
      if (!number ||
          !llvm::is_contained({"min_rows", "max_rows", "min_k"}, key))
        return fail("kernels[" + Twine(index) + "]: '" + key +
                    "' is not min_rows, max_rows or min_k with a positive "
                    "integer");
      (key == "min_rows"   ? choice.minRows
       : key == "max_rows" ? choice.maxRows
                           : choice.minK) = *number;
    }
    bool last = index + 1 == kernels.size();
    bool conditional =
        choice.minRows > 0 || choice.maxRows >= 0 || choice.minK > 0;
    if (last && conditional)
      return fail("the last of kernels applies to every product: no "
                  "min_rows, max_rows or min_k");
    // (max_rows may be left out when the row count is static and fits.)
    std::optional<int64_t> m = staticLoopSize(op, plan.m);
    int64_t mostRows = choice.maxRows >= 0 ? choice.maxRows : m ? *m : -1;
    if (*kernel == ContractionKernel::Swapped &&
        (mostRows < 0 || mostRows > target.vectorWidth))
      return fail("the swapped kernel takes at most one vector of rows: "
                  "max_rows from 1 to " +
                  Twine(target.vectorWidth));
    config.kernels.push_back(choice);
  }
  if (config.columns == target.vectorWidth)
    for (const KernelChoice &choice : config.kernels)
      if (choice.kernel == ContractionKernel::Swapped ||
          choice.kernel == ContractionKernel::Dots)
        return fail("the " + getKernelName(choice.kernel) +
                    " kernel needs a tile of two vectors");
  config.keptPanels = dict.contains("kept_panels");
  if (config.keptPanels && config.packedMinRows() < 0)
    return fail("kept_panels needs a packed kernel");
  config.panelsInPlace = dict.contains("panels_in_place");
  if (config.panelsInPlace &&
      (config.keptPanels || config.kernels.size() != 1 ||
       config.kernels.front().kernel != ContractionKernel::Packed ||
       !isLaidOutAsPanels(op, plan, config.columns)))
    return fail("panels_in_place needs the packed kernel alone, no kept "
                "panels, and B laid out as [..., k, n] with n static and "
                "equal to the tile's columns");
  config.rowPanelsOfA = dict.contains("row_panels_of_a");
  if (config.rowPanelsOfA &&
      (config.packedMinRows() < 0 || !isMInnermostInA(op, plan)))
    return fail("row_panels_of_a needs a packed kernel and A stored with m "
                "innermost ([k, m])");
  if (Attribute wide = dict.get("wide_rows")) {
    auto wideDict = dyn_cast<DictionaryAttr>(wide);
    std::optional<int64_t> maxK =
        wideDict ? positive(wideDict.get("max_k")) : std::nullopt;
    std::optional<int64_t> block =
        wideDict ? positive(wideDict.get("row_block")) : std::nullopt;
    if (!maxK || !block || wideDict.size() != 2)
      return fail("wide_rows must be {max_k = K, row_block = R}, positive");
    if (plan.transposeB || op.getNumLoops() != 3 || config.keptPanels ||
        !staticLoopSize(op, plan.n))
      return fail("wide_rows needs B not transposed, no loops beyond m, n "
                  "and k, a static n and no kept panels");
    config.wideRowsMaxK = *maxK;
    config.wideRowBlock = *block;
    // Whole rows are written with B read in place when k is short.
    for (const KernelChoice &choice : config.kernels)
      if (choice.kernel == ContractionKernel::Packed &&
          choice.minK != *maxK + 1)
        return fail("with wide_rows, the packed kernel needs min_k = max_k "
                    "+ 1 (short k reads B in place)");
  }
  return std::optional<ContractionConfig>(config);
}

FailureOr<SmallVector<ContractionConfig>> selectContractionConfigs(
    func::FuncOp func,
    ArrayRef<std::pair<linalg::GenericOp, ContractionPlan>> products,
    const SelectionOptions &options) {
  // One product per parameter and layout keeps panels (the runtime holds
  // one buffer per name); a config given in the IR claims its weight first.
  std::set<std::pair<unsigned, bool>> kept;
  auto weightKey = [](linalg::GenericOp op, const ContractionPlan &plan) {
    auto weight = cast<BlockArgument>(op.getDpsInputs()[1]);
    return std::make_pair(weight.getArgNumber(), plan.transposeB);
  };
  // Per product: its given config, or nothing until it is selected below.
  SmallVector<std::optional<ContractionConfig>> configs;
  for (auto [op, plan] : products) {
    FailureOr<std::optional<ContractionConfig>> given =
        readConfigAttr(op, plan, options.target);
    if (failed(given))
      return failure();
    configs.push_back(*given);
    if (*given && (*given)->keptPanels) {
      if (!canKeepPanels(func, op) || !kept.insert(weightKey(op, plan)).second)
        return op.emitError()
               << kContractionConfigAttr
               << ": kept_panels needs B to be a parameter of the entry "
                  "point with a static 2-D shape, kept by no other product";
    }
  }
  for (auto [index, product] : llvm::enumerate(products)) {
    auto [op, plan] = product;
    if (configs[index])
      continue;
    bool keep = options.cachePanels && canKeepPanels(func, op) &&
                !kept.count(weightKey(op, plan));
    std::string why;
    ContractionConfig config =
        selectContractionConfig(op, plan, options.target, keep, why);
    if (options.force) {
      if (std::optional<ContractionConfig> forced =
              forceKernel(config, *options.force, op, plan, options.target)) {
        config = *forced;
        why = ("Forced: " + getKernelName(*options.force) + ".").str();
      } else {
        why += (" The forced " + getKernelName(*options.force) +
                " kernel cannot compute this product.")
                   .str();
      }
    }
    if (config.keptPanels)
      kept.insert(weightKey(op, plan));
    op->setAttr(kContractionConfigAttr,
                buildConfigAttr(op.getContext(), config));
    if (options.remarks)
      op.emitRemark() << why;
    configs[index] = config;
  }
  SmallVector<ContractionConfig> result;
  for (std::optional<ContractionConfig> &config : configs)
    result.push_back(*config);
  return result;
}

} // namespace odt::cpu
