//===- AccumulateInRegisters.cpp - a GPU thread's sums in registers -------===//
//
// convert-linalg-to-parallel-loops lowers a reduction to a sequential loop
// that loads the output element, adds one term and stores it back at every
// step: on the GPU, two global memory accesses per multiply-add, which the
// backend cannot keep in a register because the kernel's pointers may alias
// as far as it knows. Here, where linalg's semantics still say the output
// is not one of the inputs, a reduction (parallel dims first: odt-gpu-
// parallel-dims-outermost) becomes a parallel loop whose body loads each
// output element once, carries it through the reduction loops as an
// iter_arg and stores it once. The terms are added in the same order, so
// the results are the same to the bit.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"
#include "codegen/gpu/RegisterReductions.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_ACCUMULATEINREGISTERS
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Whether two buffers are certainly distinct: different allocations, or an
/// allocation and an argument, or two arguments of the entry point (each a
/// buffer of its own: the runtime binds one per argument).
bool distinctBuffers(Value a, Value b) {
  Value rootA = getUnderlyingBuffer(a), rootB = getUnderlyingBuffer(b);
  if (rootA == rootB)
    return false;
  auto known = [](Value root) {
    return isa<BlockArgument>(root) ||
           isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
               root.getDefiningOp());
  };
  return known(rootA) && known(rootB);
}

/// Whether `op` is a reduction on buffers whose reduction dims all follow
/// its parallel dims (odt-gpu-parallel-dims-outermost's order).
bool reducesAfterParallelDims(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0)
    return false;
  unsigned parallel = op.getNumParallelLoops();
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if ((dim < parallel) != (iterator == utils::IteratorType::parallel))
      return false;
  return true;
}

/// Whether `op` has a single output element: no parallel dim, or only dims
/// of static size 1.
bool hasSingleOutputElement(linalg::GenericOp op) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  return llvm::all_of(
      ArrayRef<int64_t>(sizes).take_front(op.getNumParallelLoops()),
      [](int64_t size) { return size == 1; });
}

/// Whether every output of `op` is certainly distinct from every input.
bool outputsDistinctFromInputs(linalg::GenericOp op) {
  return llvm::all_of(op.getDpsInits(), [&](Value output) {
    return llvm::all_of(op.getDpsInputs(), [&](Value input) {
      return !isa<MemRefType>(input.getType()) ||
             distinctBuffers(input, output);
    });
  });
}

/// The ops this pass lowers: a generic on buffers with reductions after
/// one or more parallel dims, outputs indexed by the parallel dims alone and
/// distinct from every input.
bool isRegisterReduction(linalg::GenericOp op) {
  // A single output element (no parallel dim, or all of static size 1) is
  // a full reduction: its parallel loop would fold away, leaving host code
  // that odt-gpu-device-scalar-work makes a one-thread kernel.
  if (!reducesAfterParallelDims(op) || hasSingleOutputElement(op))
    return false;
  unsigned parallel = op.getNumParallelLoops();
  for (OpOperand &output : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&output);
    for (unsigned dim = parallel; dim < op.getNumLoops(); ++dim)
      if (map.isFunctionOfDim(dim))
        return false;
  }
  return outputsDistinctFromInputs(op);
}

/// The values of `map`'s results at the leading dims `dims` (an output's
/// map uses the parallel dims only), as index values.
SmallVector<Value> indicesAt(OpBuilder &builder, Location loc, AffineMap map,
                             ValueRange dims) {
  SmallVector<OpFoldResult> operands = llvm::to_vector_of<OpFoldResult>(dims);
  SmallVector<Value> indices;
  for (AffineExpr result : map.getResults())
    indices.push_back(getValueOrCreateConstantIndexOp(
        builder, loc,
        affine::makeComposedFoldedAffineApply(
            builder, loc, AffineMap::get(dims.size(), 0, result), operands)));
  return indices;
}

/// The loop ranges of a generic (offsets 0, strides 1) as index values.
SmallVector<Value> loopSizes(IRRewriter &rewriter, linalg::GenericOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> sizes;
  for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                         .createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  return sizes;
}

/// Clones `body` (a linalg op's) at the rewriter's insertion point, its
/// arguments already in `mapping` and its linalg.index ops at `dims`;
/// returns the values it yields.
SmallVector<Value> cloneBody(IRRewriter &rewriter, Block &body,
                             IRMapping &mapping, ValueRange dims) {
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    rewriter.clone(inner, mapping);
  }
  SmallVector<Value> yielded;
  for (Value value : body.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  return yielded;
}

/// Clones `op`'s body at the rewriter's insertion point for the iteration
/// at `dims` (every loop's index, in the op's order), the outputs' running
/// values being `accumulators`: each input is loaded at its map, and the
/// values the body yields are returned.
SmallVector<Value> emitIteration(IRRewriter &rewriter, linalg::GenericOp op,
                                 ValueRange dims, ValueRange accumulators) {
  Location loc = op.getLoc();
  Block &body = *op.getBlock();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned inputs = op.getNumDpsInputs();
  IRMapping mapping;
  for (auto [index, input] : llvm::enumerate(op.getDpsInputs())) {
    BlockArgument argument = body.getArgument(index);
    if (isa<MemRefType>(input.getType()))
      mapping.map(argument, memref::LoadOp::create(
                                rewriter, loc, input,
                                indicesAt(rewriter, loc, maps[index], dims)));
    else
      mapping.map(argument, input); // a scalar operand
  }
  for (auto [index, acc] : llvm::enumerate(accumulators))
    mapping.map(body.getArgument(inputs + index), acc);
  return cloneBody(rewriter, body, mapping, dims);
}

/// Emits sequential loops over `sizes` (from 0, step 1) carrying `initial`,
/// the innermost running `step` on the loops' indices and the carried
/// values; returns the outermost loop's results (`initial` when `sizes` is
/// empty and `step` ran once inline).
SmallVector<Value> emitCarriedLoops(
    IRRewriter &rewriter, Location loc, ArrayRef<Value> sizes,
    ValueRange initial,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> step) {
  if (sizes.empty())
    return step({}, initial);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> indices;
  ValueRange carried = initial;
  for (Value size : sizes) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, size, one, carried);
    if (!loops.empty())
      scf::YieldOp::create(rewriter, loc, loop.getResults());
    rewriter.setInsertionPointToStart(loop.getBody());
    indices.push_back(loop.getInductionVar());
    carried = loop.getRegionIterArgs();
    loops.push_back(loop);
  }
  scf::YieldOp::create(rewriter, loc, step(indices, carried));
  rewriter.setInsertionPointAfter(loops.front());
  return SmallVector<Value>(loops.front().getResults());
}

//===----------------------------------------------------------------------===//
// Register tiles
//===----------------------------------------------------------------------===//
//
// A thread that computes one output element of a product loads two values
// per multiply-add. A thread that computes a tile of T x
// T outputs along two parallel dims, one that only the first
// input's map uses and one that only the second's does (a product's rows
// and columns, a convolution's filters and output columns), loads
// T values of each per term and reuses each T
// times from registers: a quarter of the loads at a tile of 4 (the pass's
// register-tile option; 1 turns tiling off). Each output still sums its
// own terms in the same order, so the results are the same to the bit.
// chooseRegisterTile is the one place the tile is chosen.

/// The two parallel dims a register tile spans, and its extent along each
/// (1 where a dim is statically shorter than 2).
struct RegisterTile {
  unsigned rowDim = 0, colDim = 0;
  int64_t rows = 1, cols = 1;
};

/// The tile for `op`: the innermost pair of parallel dims (row before
/// column) such that some input's map uses the row dim and not the column
/// dim and another's the column dim and not the row dim; none when no pair
/// has that reuse or both extents would be 1.
std::optional<RegisterTile> chooseRegisterTile(linalg::GenericOp op,
                                               int64_t registerTile) {
  if (registerTile < 2)
    return std::nullopt;
  unsigned parallel = op.getNumParallelLoops();
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  SmallVector<AffineMap> inputMaps;
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      inputMaps.push_back(op.getMatchingIndexingMap(input));
  auto reusedAlong = [&](unsigned used, unsigned unused) {
    return llvm::any_of(inputMaps, [&](AffineMap map) {
      return map.isFunctionOfDim(used) && !map.isFunctionOfDim(unused);
    });
  };
  auto extent = [&](unsigned dim) {
    return ShapedType::isDynamic(sizes[dim])
               ? registerTile
               : std::min<int64_t>(registerTile, sizes[dim]);
  };
  for (int col = parallel - 1; col > 0; --col)
    for (int row = col - 1; row >= 0; --row) {
      if (!reusedAlong(row, col) || !reusedAlong(col, row))
        continue;
      RegisterTile tile{unsigned(row), unsigned(col), extent(row), extent(col)};
      if (tile.rows < 2 && tile.cols < 2)
        return std::nullopt;
      return tile;
    }
  return std::nullopt;
}

} // namespace

/// An elementwise op that can run in the reduction's threads, on each sum
/// as it is stored (an epilogue: a bias, an activation): the next op after
/// `op` (ops free of memory effects and allocations between, which
/// hoistAboveReduction then moves above it: the epilogue's own output is
/// often allocated there), a generic with only parallel
/// dims over the same elements, reading `op`'s single output at the
/// element the reduction wrote it (the same map, a permutation of the
/// dims), whose other inputs
/// are not `op`'s output and whose outputs are distinct from `op`'s inputs
/// (no thread writes what another may still read) and are either `op`'s
/// output at that same element (in place) or buffers of their own. Once
/// the reduction runs over tiles, the loop fusion cannot join such an op
/// with it.
linalg::GenericOp findEpilogue(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return {};
  Operation *next = op->getNextNode();
  while (next && (isMemoryEffectFree(next) || isa<memref::AllocOp>(next)))
    next = next->getNextNode();
  auto epilogue = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!epilogue || !epilogue.hasPureBufferSemantics() ||
      epilogue.getNumReductionLoops() != 0 ||
      epilogue.getNumLoops() != op.getNumParallelLoops())
    return {};
  Value sum = op.getDpsInits().front();
  AffineMap sumMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap written = AffineMap::get(op.getNumParallelLoops(), 0,
                                     sumMap.getResults(), op.getContext());
  if (!written.isPermutation())
    return {};
  bool readsSum = false;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    Value value = operand.get();
    if (!isa<MemRefType>(value.getType()))
      continue;
    bool isSum = value == sum;
    if (isSum && epilogue.getMatchingIndexingMap(&operand) != written)
      return {};
    // Separate memory as the loop fusion sees it (BufferIdentity.h).
    if (!isSum && !isSeparateMemory(value, sum))
      return {};
    bool isInput = epilogue.isDpsInput(&operand);
    readsSum |= isSum && isInput;
    if (!isInput && !isSum)
      for (Value input : op.getDpsInputs())
        if (isa<MemRefType>(input.getType()) && !isSeparateMemory(value, input))
          return {};
  }
  if (!readsSum)
    return {};
  return epilogue;
}

/// Moves the ops between `op` and `epilogue` (free of memory effects, or
/// allocations: findEpilogue's) above `op`, so that the epilogue's operands
/// are defined where the reduction's threads run it.
void hoistAboveReduction(linalg::GenericOp op, linalg::GenericOp epilogue) {
  for (Operation *between = op->getNextNode(); between != epilogue;) {
    Operation *next = between->getNextNode();
    between->moveBefore(op);
    between = next;
  }
}

namespace {

/// The body of `elementwise` (a generic with only parallel dims whose map of
/// `registerBuffer` is the reduction's, so that its dims are the reduction's
/// parallel dims) for the element at `parallelDims`: its inputs loaded,
/// except reads of `registerBuffer`, which are `registerValue`; returns the
/// values it yields.
SmallVector<Value> emitElementwiseAt(IRRewriter &rewriter,
                                     linalg::GenericOp elementwise,
                                     ValueRange parallelDims,
                                     Value registerBuffer,
                                     Value registerValue) {
  Location loc = elementwise.getLoc();
  Block &body = *elementwise.getBlock();
  IRMapping mapping;
  for (OpOperand &operand : elementwise->getOpOperands()) {
    BlockArgument argument = body.getArgument(operand.getOperandNumber());
    Value value = operand.get();
    if (!isa<MemRefType>(value.getType())) {
      mapping.map(argument, value);
      continue;
    }
    if (registerBuffer && value == registerBuffer) {
      mapping.map(argument, registerValue);
      continue;
    }
    if (argument.use_empty())
      continue;
    mapping.map(argument,
                memref::LoadOp::create(
                    rewriter, loc, value,
                    indicesAt(rewriter, loc,
                              elementwise.getMatchingIndexingMap(&operand),
                              parallelDims)));
  }
  return cloneBody(rewriter, body, mapping, parallelDims);
}

} // namespace

/// The epilogue for the element at `parallelDims`, `sum` being the
/// reduction's value there: its results stored.
void emitEpilogue(IRRewriter &rewriter, linalg::GenericOp op,
                  linalg::GenericOp epilogue, ValueRange parallelDims,
                  Value sum) {
  SmallVector<Value> results = emitElementwiseAt(
      rewriter, epilogue, parallelDims, op.getDpsInits().front(), sum);
  for (auto [result, output] :
       llvm::zip(results, epilogue.getDpsInitsMutable()))
    memref::StoreOp::create(rewriter, epilogue.getLoc(), result, output.get(),
                            indicesAt(rewriter, epilogue.getLoc(),
                                      epilogue.getMatchingIndexingMap(&output),
                                      parallelDims));
}

/// The value output `index` of `op` starts at for the element at
/// `parallelDims`: its initializer's (a fill's value, or an elementwise
/// op's result there), else the element loaded.
Value startValue(IRRewriter &rewriter, linalg::GenericOp op, unsigned index,
                 Operation *initializer, ValueRange parallelDims) {
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(initializer))
    return fill.getDpsInputs().front();
  if (auto elementwise = dyn_cast_or_null<linalg::GenericOp>(initializer))
    return emitElementwiseAt(rewriter, elementwise, parallelDims, Value(),
                             Value())
        .front();
  OpOperand *output = op.getDpsInitOperand(index);
  return memref::LoadOp::create(rewriter, op.getLoc(), output->get(),
                                indicesAt(rewriter, op.getLoc(),
                                          op.getMatchingIndexingMap(output),
                                          parallelDims));
}

namespace {

/// `initializers`: for each output, the op that wrote every element just
/// before the reduction and that the reduction replaces (a linalg.fill, or
/// an elementwise generic computed per element: replaceableInitializers),
/// or null to load the element.
/// `epilogue`: an op findEpilogue returned, or null.
void lower(linalg::GenericOp op, int64_t registerTile,
           ArrayRef<Operation *> initializers, linalg::GenericOp epilogue,
           IRRewriter &rewriter) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes = loopSizes(rewriter, op);
  SmallVector<int64_t> staticSizes = op.getStaticLoopRanges();
  unsigned parallel = op.getNumParallelLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned inputs = op.getNumDpsInputs();
  unsigned outputs = op.getNumDpsInits();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);

  // The parallel loop runs over tiles: along the tile's dims, the number
  // of tiles (the last one partial where the size is not a multiple).
  RegisterTile tile =
      chooseRegisterTile(op, registerTile).value_or(RegisterTile());
  SmallVector<int64_t> tileExtent(parallel, 1);
  tileExtent[tile.rowDim] = tile.rows;
  tileExtent[tile.colDim] = tile.cols;
  SmallVector<Value> upper;
  for (unsigned dim = 0; dim < parallel; ++dim)
    upper.push_back(
        tileExtent[dim] == 1
            ? sizes[dim]
            : arith::CeilDivUIOp::create(rewriter, loc, sizes[dim],
                                         arith::ConstantIndexOp::create(
                                             rewriter, loc, tileExtent[dim]))
                  .getResult());
  auto outer =
      scf::ParallelOp::create(rewriter, loc, SmallVector<Value>(parallel, zero),
                              upper, SmallVector<Value>(parallel, one));
  rewriter.setInsertionPointToStart(outer.getBody());

  // Each element of the tile: its parallel dims' indices, clamped to the
  // last element where the tile runs past the end (it computes that
  // element again and does not store it), and whether it is inside.
  struct Element {
    SmallVector<Value> dims;
    Value inside; // null when statically inside
  };
  SmallVector<Element> elements;
  for (int64_t row = 0; row < tile.rows; ++row)
    for (int64_t col = 0; col < tile.cols; ++col) {
      Element element;
      for (unsigned dim = 0; dim < parallel; ++dim) {
        Value index = outer.getInductionVars()[dim];
        int64_t extent = tileExtent[dim];
        if (extent == 1) {
          element.dims.push_back(index);
          continue;
        }
        int64_t offset = dim == tile.rowDim ? row : col;
        Value position = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(
                rewriter, loc, index,
                arith::ConstantIndexOp::create(rewriter, loc, extent)),
            arith::ConstantIndexOp::create(rewriter, loc, offset));
        bool divisible = !ShapedType::isDynamic(staticSizes[dim]) &&
                         staticSizes[dim] % extent == 0;
        if (divisible) {
          element.dims.push_back(position);
          continue;
        }
        Value last = arith::SubIOp::create(rewriter, loc, sizes[dim], one);
        element.dims.push_back(
            arith::MinUIOp::create(rewriter, loc, position, last));
        Value inside = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, position, sizes[dim]);
        element.inside =
            element.inside
                ? arith::AndIOp::create(rewriter, loc, element.inside, inside)
                : inside;
      }
      elements.push_back(std::move(element));
    }

  SmallVector<Value> initial;
  for (const Element &element : elements)
    for (auto [index, output] : llvm::enumerate(op.getDpsInits()))
      initial.push_back(
          startValue(rewriter, op, index, initializers[index], element.dims));
  // The reduction loops, outermost first, each carrying every element's
  // sums; each iteration computes the tile's elements in turn.
  SmallVector<Value> sums = emitCarriedLoops(
      rewriter, loc, ArrayRef<Value>(sizes).drop_front(parallel), initial,
      [&](ValueRange reductionDims, ValueRange carried) {
        SmallVector<Value> yielded;
        for (auto [number, element] : llvm::enumerate(elements)) {
          SmallVector<Value> dims(element.dims);
          llvm::append_range(dims, reductionDims);
          llvm::append_range(
              yielded, emitIteration(rewriter, op, dims,
                                     carried.slice(number * outputs, outputs)));
        }
        return yielded;
      });
  for (auto [number, element] : llvm::enumerate(elements)) {
    OpBuilder::InsertionGuard guard(rewriter);
    if (element.inside) {
      auto inside = scf::IfOp::create(rewriter, loc, element.inside);
      rewriter.setInsertionPointToStart(&inside.getThenRegion().front());
    }
    for (auto [index, output] : llvm::enumerate(op.getDpsInits()))
      memref::StoreOp::create(
          rewriter, loc, sums[number * outputs + index], output,
          indicesAt(rewriter, loc, maps[inputs + index], element.dims));
    if (epilogue)
      emitEpilogue(rewriter, op, epilogue, element.dims, sums[number]);
  }
  rewriter.eraseOp(op);
  if (epilogue)
    rewriter.eraseOp(epilogue);
}

//===----------------------------------------------------------------------===//
// Long sums over few outputs, in slices
//===----------------------------------------------------------------------===//
//
// A thread per output element leaves the GPU nearly idle where there are
// few outputs and many terms: a batch norm's statistics (16 to 256
// channels, each summing batch x rows x columns terms), a filter gradient
// (thousands of weights, each summing over the batch's positions), a loss
// summed to a scalar (one thread for the whole batch). Such a reduction is
// split in two parallel loops: the first sums slices of its terms, each
// (slice, output) pair a thread, into a scratch buffer; the second adds
// each output's slices, in slice order, to the output's value. Every
// choice of the split is made here, at run time from the shapes:
//  - it applies where every parallel dim is static and the outputs number
//    at most kMostOutputsToSplit, and the terms per output are at least
//    kFewestTermsToSplit, a dim of unknown size (the batch's) counted as
//    kAssumedDynamicExtent: a loss or a bias gradient summed over the
//    batch's rows stays one kernel, where a second launch would cost more
//    than it saves, and a batch norm's statistics over 32 x 32 images are
//    split;
//  - slices = min(ceil(kThreadsWanted / outputs), ceil(terms /
//    kTermsPerSlice), kMostSlices, units), at least 1, where the units
//    divided among slices are the iterations of every reduction loop but
//    the innermost (which runs whole in each thread).
// Only sums (and max/min) whose combiner linalg can name are split: the
// first loop starts each slice at the combiner's neutral element.
// The figures are a first choice made without a GPU to measure on: about
// half the threads an H200 keeps resident, and slices short enough that
// the second loop's per-output sum stays cheap.
constexpr int64_t kMostOutputsToSplit = 4096;
constexpr int64_t kFewestTermsToSplit = 4096;
constexpr int64_t kAssumedDynamicExtent = 32;
constexpr int64_t kThreadsWanted = 16384;
constexpr int64_t kTermsPerSlice = 64;
constexpr int64_t kMostSlices = 256;

/// Each output's combiner (the op that adds a term to the running value),
/// or failure when an output is not a sum, max or min of its own.
FailureOr<SmallVector<Operation *>> matchCombiners(linalg::GenericOp op) {
  SmallVector<BlockArgument> outputs(op.getRegionOutputArgs());
  SmallVector<Operation *> combiners;
  for (unsigned position = 0; position < outputs.size(); ++position) {
    SmallVector<Operation *, 4> ops;
    if (!matchReduction(outputs, position, ops) || ops.size() != 1)
      return failure();
    Operation *combiner = ops.front();
    if (!isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(combiner) ||
        !arith::getNeutralElement(combiner))
      return failure();
    combiners.push_back(combiner);
  }
  return combiners;
}

/// A full reduction: no parallel dim, or only dims of static size 1.
bool isFullReduction(linalg::GenericOp op) {
  return reducesAfterParallelDims(op) && hasSingleOutputElement(op);
}

/// Whether `op` (a register reduction or a full reduction) is split, by
/// the rule above; its combiners when it is.
FailureOr<SmallVector<Operation *>> planSplit(linalg::GenericOp op) {
  unsigned parallel = op.getNumParallelLoops();
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  int64_t outputs = 1;
  for (int64_t size : ArrayRef<int64_t>(sizes).take_front(parallel)) {
    if (ShapedType::isDynamic(size))
      return failure();
    outputs *= size;
  }
  if (outputs > kMostOutputsToSplit)
    return failure();
  int64_t terms = 1;
  for (int64_t size : ArrayRef<int64_t>(sizes).drop_front(parallel))
    terms *= ShapedType::isDynamic(size) ? kAssumedDynamicExtent : size;
  if (terms < kFewestTermsToSplit)
    return failure();
  // Each output's element type must be the partial sums' too.
  for (Value output : op.getDpsInits())
    if (!isa<FloatType>(cast<MemRefType>(output.getType()).getElementType()))
      return failure();
  return matchCombiners(op);
}

/// Splits `op` as described above; the second loop is a generic over the
/// partial sums, lowered like any register reduction (or, for a full
/// reduction, left to odt-gpu-device-scalar-work's one-thread kernel).
void lowerSplit(linalg::GenericOp op, ArrayRef<Operation *> combiners,
                int64_t registerTile, ArrayRef<Operation *> initializers,
                linalg::GenericOp epilogue, IRRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes = loopSizes(rewriter, op);
  unsigned parallel = op.getNumParallelLoops();
  SmallVector<int64_t> staticSizes = op.getStaticLoopRanges();
  SmallVector<int64_t> outputShape(staticSizes.begin(),
                                   staticSizes.begin() + parallel);
  int64_t outputs = 1;
  for (int64_t size : outputShape)
    outputs *= size;

  // The units shared out among the slices: the reduction loops but the
  // innermost (a single reduction loop is itself the units).
  ArrayRef<Value> reductionSizes = ArrayRef<Value>(sizes).drop_front(parallel);
  ArrayRef<Value> unitSizes =
      reductionSizes.size() == 1 ? reductionSizes : reductionSizes.drop_back();
  ArrayRef<Value> innerSizes = reductionSizes.drop_front(unitSizes.size());
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value units = constant(1);
  for (Value size : unitSizes)
    units = arith::MulIOp::create(rewriter, loc, units, size);
  Value terms = units;
  for (Value size : innerSizes)
    terms = arith::MulIOp::create(rewriter, loc, terms, size);
  Value slices =
      constant(std::min(kMostSlices, (kThreadsWanted + outputs - 1) / outputs));
  slices = arith::MinUIOp::create(
      rewriter, loc, slices,
      arith::CeilDivUIOp::create(rewriter, loc, terms,
                                 constant(kTermsPerSlice)));
  slices = arith::MinUIOp::create(rewriter, loc, slices, units);
  slices = arith::MaxUIOp::create(rewriter, loc, slices, constant(1));
  Value unitsPerSlice =
      arith::CeilDivUIOp::create(rewriter, loc, units, slices);

  // The partial sums, [slice, parallel dims...] for each output.
  SmallVector<int64_t> partialShape{ShapedType::kDynamic};
  llvm::append_range(partialShape, outputShape);
  SmallVector<Value> partials;
  for (Value output : op.getDpsInits()) {
    Type element = cast<MemRefType>(output.getType()).getElementType();
    partials.push_back(memref::AllocOp::create(
        rewriter, loc, MemRefType::get(partialShape, element),
        ValueRange{slices}));
  }

  // First loop: a thread per slice and output element.
  Value zero = constant(0), one = constant(1);
  SmallVector<Value> lowerBounds(parallel + 1, zero), steps(parallel + 1, one);
  SmallVector<Value> upper{slices};
  llvm::append_range(upper, ArrayRef<Value>(sizes).take_front(parallel));
  auto first =
      scf::ParallelOp::create(rewriter, loc, lowerBounds, upper, steps);
  rewriter.setInsertionPointToStart(first.getBody());
  Value slice = first.getInductionVars().front();
  SmallVector<Value> parallelDims(
      ArrayRef<Value>(first.getInductionVars()).drop_front());
  Value begin = arith::MulIOp::create(rewriter, loc, slice, unitsPerSlice);
  Value end = arith::MinUIOp::create(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, begin, unitsPerSlice),
      units);
  SmallVector<Value> neutral;
  for (Operation *combiner : combiners) {
    Type type = combiner->getResult(0).getType();
    neutral.push_back(arith::ConstantOp::create(
        rewriter, loc, type, *arith::getNeutralElement(combiner)));
  }
  auto unitLoop = scf::ForOp::create(rewriter, loc, begin, end, one, neutral);
  rewriter.setInsertionPointToStart(unitLoop.getBody());
  // The unit's index in each of its loops (the last varies fastest).
  SmallVector<Value> unitDims(unitSizes.size());
  Value rest = unitLoop.getInductionVar();
  for (int dim = unitSizes.size() - 1; dim >= 0; --dim) {
    if (dim == 0) {
      unitDims[dim] = rest;
      break;
    }
    unitDims[dim] = arith::RemUIOp::create(rewriter, loc, rest, unitSizes[dim]);
    rest = arith::DivUIOp::create(rewriter, loc, rest, unitSizes[dim]);
  }
  SmallVector<Value> sums = emitCarriedLoops(
      rewriter, loc, innerSizes, ValueRange(unitLoop.getRegionIterArgs()),
      [&](ValueRange innerDims, ValueRange carried) {
        SmallVector<Value> dims(parallelDims);
        llvm::append_range(dims, unitDims);
        llvm::append_range(dims, innerDims);
        return emitIteration(rewriter, op, dims, carried);
      });
  scf::YieldOp::create(rewriter, loc, sums);
  rewriter.setInsertionPointAfter(unitLoop);
  SmallVector<Value> partialIndices{slice};
  llvm::append_range(partialIndices, parallelDims);
  for (auto [partial, sum] : llvm::zip(partials, unitLoop.getResults()))
    memref::StoreOp::create(rewriter, loc, sum, partial, partialIndices);

  // Second loop: each output's slices added to it in order, as a generic
  // over (parallel dims..., slice).
  rewriter.setInsertionPoint(op);
  unsigned dims = parallel + 1;
  SmallVector<AffineExpr> partialResults{getAffineDimExpr(parallel, context)};
  for (unsigned dim = 0; dim < parallel; ++dim)
    partialResults.push_back(getAffineDimExpr(dim, context));
  AffineMap partialMap = AffineMap::get(dims, 0, partialResults, context);
  SmallVector<AffineMap> maps(partials.size(), partialMap);
  for (OpOperand &output : op.getDpsInitsMutable())
    maps.push_back(AffineMap::get(
        dims, 0, op.getMatchingIndexingMap(&output).getResults(), context));
  SmallVector<utils::IteratorType> iterators(parallel,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto second = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, partials, op.getDpsInits(), maps, iterators,
      [&](OpBuilder &builder, Location bodyLoc, ValueRange arguments) {
        SmallVector<Value> combined;
        for (auto [index, combiner] : llvm::enumerate(combiners)) {
          Value partial = arguments[index];
          Value running = arguments[combiners.size() + index];
          combined.push_back(
              builder
                  .create(bodyLoc, combiner->getName().getIdentifier(),
                          ValueRange{running, partial},
                          combiner->getResultTypes(), combiner->getAttrs())
                  ->getResult(0));
        }
        linalg::YieldOp::create(builder, bodyLoc, combined);
      });
  rewriter.eraseOp(op);
  if (isRegisterReduction(second))
    lower(second, registerTile, initializers, epilogue, rewriter);
}

} // namespace

/// The ops that write every element of `op`'s outputs just before it and
/// that the reduction can replace, one per output or null: before `op`,
/// with only ops free of memory effects and the other outputs'
/// initializers between,
///  - a linalg.fill of exactly the output buffer: each element starts at
///    its value;
///  - an elementwise generic (a product's bias broadcast into its output)
///    writing exactly the output at the element the reduction writes (the
///    same map, a permutation of the dims), not reading it, its inputs
///    separate memory from every output of `op`: each element starts at
///    its result, computed by the reduction's thread.
/// The reduction writes every element of the output (its map uses only
/// parallel dims, each once), so the initializer is not needed; once the
/// reduction runs over tiles, it would be a kernel of its own.
SmallVector<Operation *> replaceableInitializers(linalg::GenericOp op) {
  SmallVector<Operation *> initializers(op.getNumDpsInits());
  unsigned parallel = op.getNumParallelLoops();
  auto writtenMap = [&](unsigned position) {
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(position));
    return AffineMap::get(parallel, 0, map.getResults(), op.getContext());
  };
  for (Operation *before = op->getPrevNode(); before;
       before = before->getPrevNode()) {
    if (isMemoryEffectFree(before))
      continue;
    auto writer = dyn_cast<linalg::LinalgOp>(before);
    if (!writer || !isa<linalg::FillOp, linalg::GenericOp>(before) ||
        !writer.hasPureBufferSemantics() || writer.getNumDpsInits() != 1)
      break;
    OpOperand *target = writer.getDpsInitOperand(0);
    auto position =
        llvm::find(op.getDpsInits(), target->get()) - op.getDpsInits().begin();
    if (position == int64_t(initializers.size()) || initializers[position])
      break;
    AffineMap written = writtenMap(position);
    if (!written.isProjectedPermutation())
      break;
    if (auto elementwise = dyn_cast<linalg::GenericOp>(before)) {
      bool replaceable =
          written.isPermutation() && elementwise.getNumReductionLoops() == 0 &&
          elementwise.getNumLoops() == parallel &&
          elementwise.getMatchingIndexingMap(target) == written &&
          elementwise.getMatchingBlockArgument(target).use_empty() &&
          llvm::all_of(elementwise.getDpsInputs(), [&](Value input) {
            return !isa<MemRefType>(input.getType()) ||
                   llvm::all_of(op.getDpsInits(), [&](Value output) {
                     return isSeparateMemory(input, output);
                   });
          });
      if (!replaceable)
        break;
    }
    initializers[position] = before;
  }
  return initializers;
}

namespace {

struct AccumulateInRegistersPass
    : impl::AccumulateInRegistersBase<AccumulateInRegistersPass> {
  using AccumulateInRegistersBase::AccumulateInRegistersBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isRegisterReduction(op) || isFullReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      FailureOr<SmallVector<Operation *>> combiners = failure();
      if (splitLongSums && outputsDistinctFromInputs(op))
        combiners = planSplit(op);
      bool split = succeeded(combiners);
      if (!split && !isRegisterReduction(op))
        continue;
      // (A full reduction's second loop stays a generic that loads its
      // output: its initializer stays.)
      SmallVector<Operation *> initializers =
          isRegisterReduction(op)
              ? replaceableInitializers(op)
              : SmallVector<Operation *>(op.getNumDpsInits());
      linalg::GenericOp epilogue = fuseEpilogues && isRegisterReduction(op)
                                       ? findEpilogue(op)
                                       : linalg::GenericOp();
      if (epilogue)
        hoistAboveReduction(op, epilogue);
      if (split)
        lowerSplit(op, *combiners, registerTile, initializers, epilogue,
                   rewriter);
      else
        lower(op, registerTile, initializers, epilogue, rewriter);
      for (Operation *initializer : initializers)
        if (initializer)
          rewriter.eraseOp(initializer);
    }
  }
};

} // namespace
} // namespace odt
