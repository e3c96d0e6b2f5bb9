//===- VectorizeRows.cpp - short-row reductions as vector loops -----------===//
//
// A convolution window or pooling (after odt-interchange-reductions: the
// output row innermost, the window loops around it), a depthwise filter
// gradient (a sum over an image's rows) and an elementwise op over short
// rows become loops whose innermost step is one vector op per row: the row
// is a vector value carried through the reduction loops, in registers. Left to
// LLVM these loops stayed scalar (it cannot tell the operands' buffers apart,
// and fully unrolls a 16-trip row before vectorizing) or stored and reloaded
// the output row at every window tap. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/BufferRoots.h"
#include "codegen/cpu/CPUTarget.h"
#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseSet.h"

#include <map>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_VECTORIZEROWS
#include "codegen/cpu/Passes.h.inc"

namespace {

/// The largest value of `expr` over the loops' static ranges with the row
/// loop at 0 (where a row's read starts), if `expr` is a sum of loops with
/// non-negative factors and a constant, over loops of known extent.
std::optional<int64_t> largestStart(AffineExpr expr, unsigned row,
                                    ArrayRef<int64_t> ranges) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    if (dim.getPosition() == row)
      return 0;
    int64_t range = ranges[dim.getPosition()];
    if (ShapedType::isDynamic(range) || range < 1)
      return std::nullopt;
    return range - 1;
  }
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return std::nullopt;
  std::optional<int64_t> lhs = largestStart(binary.getLHS(), row, ranges);
  if (!lhs)
    return std::nullopt;
  if (expr.getKind() == AffineExprKind::Add) {
    std::optional<int64_t> rhs = largestStart(binary.getRHS(), row, ranges);
    return rhs ? std::optional<int64_t>(*lhs + *rhs) : std::nullopt;
  }
  auto factor = dyn_cast<AffineConstantExpr>(binary.getRHS());
  if (expr.getKind() == AffineExprKind::Mul && factor &&
      factor.getValue() >= 0 && *lhs >= 0)
    return *lhs * factor.getValue();
  return std::nullopt;
}

/// c when `expr` is `row <kind> c` for the row loop and a constant c of at
/// least `least`, else nothing.
std::optional<int64_t> rowByConstant(AffineExpr expr, AffineExprKind kind,
                                     unsigned row, int64_t least) {
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary || binary.getKind() != kind)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(binary.getLHS());
  auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS());
  if (!dim || dim.getPosition() != row || !constant ||
      constant.getValue() < least)
    return std::nullopt;
  return constant.getValue();
}

/// The row loop's stride in `expr` (expr = row * stride + rest), if the
/// row loop appears only so; 0 when it does not appear.
std::optional<int64_t> strideOf(AffineExpr expr, unsigned row,
                                unsigned numDims) {
  if (!expr.isFunctionOfDim(row))
    return 0;
  MLIRContext *context = expr.getContext();
  AffineExpr rest = expr.replace(getAffineDimExpr(row, context),
                                 getAffineConstantExpr(0, context));
  AffineExpr moved = simplifyAffineExpr(expr - rest, numDims, 0);
  if (moved == getAffineDimExpr(row, context))
    return 1;
  return rowByConstant(moved, AffineExprKind::Mul, row, /*least=*/1);
}

/// k when `expr` is `row floordiv k` with k > 1 (each element of the
/// input's row repeated k times along the row: a tiled pooling window's
/// gradient reads its window's dY so), else nothing.
std::optional<int64_t> repeatOf(AffineExpr expr, unsigned row) {
  return rowByConstant(expr, AffineExprKind::FloorDiv, row, /*least=*/2);
}

/// Whether `type`'s elements are whole bytes: a row of i1 (a Dropout
/// mask, a byte per element in memory) would be read as packed bits.
bool isWholeBytes(MemRefType type) {
  return type.getElementTypeBitWidth() % 8 == 0;
}

/// Whether `type`'s innermost dim is contiguous (a vector reads it).
bool hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() > 0 &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The op of `op`'s body that combines output `index` with the rest, when
/// the body yields `addf(out, x)` for it (reassociable: the middle or
/// odt-interchange-reductions marked it).
arith::AddFOp rowSumCombiner(linalg::GenericOp op, unsigned index) {
  Block &body = op.getRegion().front();
  auto combiner =
      body.getTerminator()->getOperand(index).getDefiningOp<arith::AddFOp>();
  BlockArgument out = body.getArgument(op.getNumDpsInputs() + index);
  if (!combiner || !out.hasOneUse() ||
      !llvm::is_contained(combiner->getOperands(), Value(out)) ||
      !bitEnumContainsAll(combiner.getFastmath(),
                          arith::FastMathFlags::reassoc))
    return {};
  return combiner;
}

struct VectorizeRowsPass : impl::VectorizeRowsBase<VectorizeRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk(
        [&](linalg::GenericOp op) { candidates.push_back(op); });
    // A copy into or out of a slice (odt-expand-strided-copies made it: the
    // interior of a padded image written into its padded buffer) is an
    // elementwise generic whose body yields its input; loops over it were
    // scalar, one element per iteration.
    SmallVector<linalg::CopyOp> copies;
    getOperation().walk([&](linalg::CopyOp copy) {
      if (copy.hasPureBufferSemantics())
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(
          rewriter, cast<linalg::LinalgOp>(copy.getOperation()));
      if (succeeded(generic))
        candidates.push_back(*generic);
    }
    for (linalg::GenericOp op : candidates)
      vectorize(op);
  }

  /// What vectorize needs of a generic it takes.
  struct RowPlan {
    /// The row's loop (the innermost) and its static length.
    unsigned row = 0;
    int64_t length = 0;
    /// Whether the row is summed (else it is parallel, in the output).
    bool rowSum = false;
    /// Whether every loop is parallel (an elementwise op: no window).
    bool elementwise = false;
    /// Per input: its stride along the row (0: not moved by it).
    SmallVector<int64_t> inputStrides;
    /// Per input: k > 1 when the row reads each of its elements k times
    /// (repeatOf; its stride is then 0), else 1.
    SmallVector<int64_t> inputRepeats;
  };

  void vectorize(linalg::GenericOp op) {
    if (std::optional<RowPlan> plan = matchRow(op))
      emitRowLoops(op, *plan);
  }

  /// Whether `op` is a row the pass carries as a vector (see Passes.td).
  std::optional<RowPlan> matchRow(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() < 1 ||
        op.getNumLoops() < 2)
      return std::nullopt;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned numLoops = iterators.size(), row = numLoops - 1;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t length = ranges[row];
    if (ShapedType::isDynamic(length) || length < minLength ||
        length > maxLength)
      return std::nullopt;
    bool rowSum = iterators[row] == utils::IteratorType::reduction;
    unsigned reductions =
        llvm::count(iterators, utils::IteratorType::reduction);
    // A parallel row is one output, under a window's reductions or none
    // (an elementwise op over short rows: BatchNorm's, ReLU6's on 8x8
    // images, which LLVM left scalar); a summed row may be several
    // (BatchNorm's gradient sums dY and dY * x-hat along each row). Left to
    // LLVM a row sum stayed scalar, reading and writing its sum in memory
    // at every element.
    bool elementwise = reductions == 0;
    // Several outputs of an elementwise op are written side by side (a max
    // pool's values and indices).
    if (!rowSum && !elementwise && op.getNumDpsInits() != 1)
      return std::nullopt;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap outMap = op.getMatchingIndexingMap(&init);
      auto outType = cast<MemRefType>(init.get().getType());
      // A summed row may sum into a scalar (a loss summed over a whole
      // tensor: its sum carried through every loop).
      if (!outType.getElementType().isIntOrFloat() || !isWholeBytes(outType) ||
          (!rowSum && outMap.getNumResults() == 0))
        return std::nullopt;
      if (rowSum &&
          (outMap.isFunctionOfDim(row) ||
           !rowSumCombiner(op, init.getOperandNumber() - op.getNumDpsInputs())))
        return std::nullopt;
    }
    if (!rowSum) {
      AffineMap firstMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
      for (OpOperand &init : op.getDpsInitsMutable()) {
        AffineMap outMap = op.getMatchingIndexingMap(&init);
        if (outMap != firstMap ||
            !hasUnitInnerStride(cast<MemRefType>(init.get().getType())))
          return std::nullopt;
        auto innermost = dyn_cast<AffineDimExpr>(outMap.getResults().back());
        if (!innermost || innermost.getPosition() != row)
          return std::nullopt;
        for (AffineExpr outer : outMap.getResults().drop_back())
          if (outer.isFunctionOfDim(row))
            return std::nullopt;
      }
    }
    // Inputs: read along their innermost dim (the row's stride there), or
    // not moved by the row (stride 0). One that is the output itself would
    // see the row's earlier values, unless the op is elementwise and reads
    // it where it writes it (computed in place).
    SmallVector<int64_t> inputStrides, inputRepeats;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(input->get().getType());
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!type || !type.getElementType().isIntOrFloat())
        return std::nullopt;
      // (An elementwise op's outputs share one map, checked above, and each
      // row's inputs are read before its outputs are written: one of
      // several outputs may be an input read in place, as the fused ReLU
      // gradient of a pooling gradient writes dX over its ReLU's input.)
      if (llvm::is_contained(op.getDpsInits(), input->get()) &&
          !(elementwise &&
            map == op.getMatchingIndexingMap(op.getDpsInitOperand(0))))
        return std::nullopt;
      int64_t inputStride = 0, inputRepeat = 1;
      for (auto [position, expr] : llvm::enumerate(map.getResults())) {
        bool innermost = position + 1 == map.getNumResults();
        if (std::optional<int64_t> repeat = repeatOf(expr, row);
            repeat && innermost) {
          if (!hasUnitInnerStride(type) || !isWholeBytes(type))
            return std::nullopt;
          inputRepeat = *repeat;
          continue;
        }
        std::optional<int64_t> stride = strideOf(expr, row, numLoops);
        if (!stride || (*stride && !innermost))
          return std::nullopt;
        if (*stride) {
          if (!hasUnitInnerStride(type) || !isWholeBytes(type))
            return std::nullopt;
          inputStride = *stride;
        }
      }
      inputStrides.push_back(inputStride);
      inputRepeats.push_back(inputRepeat);
    }
    // The body: elementwise ops only (no memory), and in an elementwise op
    // the loops' positions (linalg.index: a max pool's flat index), which
    // are the row's lanes along the row and the same for the row otherwise.
    for (Operation &inner : op.getRegion().front().without_terminator()) {
      if (elementwise && isa<linalg::IndexOp>(inner))
        continue;
      if (inner.getNumRegions() != 0 ||
          !inner.hasTrait<OpTrait::Elementwise>() ||
          !isMemoryEffectFree(&inner) ||
          !llvm::all_of(inner.getResultTypes(),
                        [](Type t) { return t.isIntOrFloat() || t.isIndex(); }))
        return std::nullopt;
    }
    return RowPlan{row,          length,      rowSum, elementwise && !rowSum,
                   inputStrides, inputRepeats};
  }

  /// Per output of `op`, the fill of it in the run of fills right before
  /// `op` (odt-parallelize-elementwise puts them there, in the same
  /// chunk), if `op` writes every element of that output (its map a
  /// projection of the loops) and reads its buffer through no input: the
  /// fill's value is then only read as the start of the output's sums.
  static SmallVector<linalg::FillOp> fillsOfOutputs(linalg::GenericOp op) {
    SmallVector<linalg::FillOp> fills(op.getNumDpsInits());
    for (Operation *previous = op->getPrevNode(); previous;
         previous = previous->getPrevNode()) {
      auto fill = dyn_cast<linalg::FillOp>(previous);
      if (!fill || !fill.hasPureBufferSemantics())
        break;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        unsigned index = init.getOperandNumber() - op.getNumDpsInputs();
        Value out = init.get();
        if (fill.getOutputs()[0] != out || fills[index] ||
            fill.getInputs()[0].getType() !=
                cast<MemRefType>(out.getType()).getElementType() ||
            !op.getMatchingIndexingMap(&init).isProjectedPermutation() ||
            llvm::any_of(op.getDpsInputs(), [&](Value input) {
              // Among one op's operands a view of the arena is a buffer of
              // its own (BufferRoots.h).
              return rootBuffer(input, /*arenaViews=*/true) ==
                     rootBuffer(out, /*arenaViews=*/true);
            }))
          continue;
        fills[index] = fill;
      }
    }
    return fills;
  }

  /// The loops of a matched row: the parallel dims, the reduced dims
  /// carrying the accumulator, and the body on vectors of the row.
  void emitRowLoops(linalg::GenericOp op, const RowPlan &plan) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned numLoops = iterators.size(), row = plan.row;
    int64_t length = plan.length;
    bool rowSum = plan.rowSum;
    ArrayRef<int64_t> inputStrides = plan.inputStrides;
    ArrayRef<int64_t> inputRepeats = plan.inputRepeats;
    OpOperand *init = op.getDpsInitOperand(0);
    AffineMap outMap = op.getMatchingIndexingMap(init);

    SmallVector<linalg::FillOp> fills = fillsOfOutputs(op);
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto vectorOf = [&](Type scalar) {
      return VectorType::get({length}, scalar);
    };
    // Loop bounds from the operands' sizes.
    SmallVector<OpFoldResult> bounds;
    for (Range range :
         cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
      bounds.push_back(range.size);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);

    // Loops: the parallel ones (the row aside), then the reductions (the
    // row aside), in the op's order. `ivs[d]` is loop d's induction value;
    // the row's is 0 (the vectors start there).
    SmallVector<Value> ivs(numLoops, zero);
    SmallVector<unsigned> outer, reduced;
    for (unsigned d = 0; d < row; ++d)
      (iterators[d] == utils::IteratorType::parallel ? outer : reduced)
          .push_back(d);
    // A parallel row's outer loops follow its output's layout: consecutive
    // rows are consecutive in memory, and an input the innermost loops do
    // not move is read once for all of them (a depthwise filter, indexed by
    // the channel). linalg's depthwise convolution orders its loops
    // (n, oh, ow, c, kh, kw): kept so, each output row was followed by the
    // next channel's and every row reloaded its channel's taps.
    if (!rowSum) {
      SmallVector<int64_t> positionInOutput(numLoops, -1);
      for (auto [position, expr] : llvm::enumerate(outMap.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(expr))
          positionInOutput[dim.getPosition()] = position;
      if (llvm::all_of(outer,
                       [&](unsigned d) { return positionInOutput[d] >= 0; }))
        llvm::sort(outer, [&](unsigned a, unsigned c) {
          return std::make_pair(positionInOutput[a], a) <
                 std::make_pair(positionInOutput[c], c);
        });
    }
    // A window of at most max-unrolled-taps taps is unrolled: a 3x3
    // window's two 3-trip loops cost more in branches and induction
    // updates than the vector FMA of each tap, and LLVM (its unroller off,
    // see optimizeModule) keeps them. The taps are summed in the loops'
    // order, so the result is the same.
    SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
    int64_t taps = 1;
    for (unsigned d : reduced)
      taps = ShapedType::isDynamic(staticRanges[d]) || taps > maxUnrolledTaps
                 ? maxUnrolledTaps + 1
                 : taps * staticRanges[d];
    bool unrolled = !reduced.empty() && taps <= maxUnrolledTaps;
    auto setTap = [&](OpBuilder &nb, int64_t tap) {
      for (unsigned level = reduced.size(); level-- > 0;) {
        int64_t extent = staticRanges[reduced[level]];
        ivs[reduced[level]] =
            arith::ConstantIndexOp::create(nb, loc, tap % extent);
        tap /= extent;
      }
    };
    auto clearTaps = [&]() {
      for (unsigned d : reduced)
        ivs[d] = zero;
    };
    auto indices = [&](OpBuilder &nb, AffineMap map) {
      SmallVector<Value> result;
      SmallVector<OpFoldResult> operands = getAsOpFoldResult(ivs);
      for (AffineExpr expr : map.getResults())
        result.push_back(getValueOrCreateConstantIndexOp(
            nb, loc,
            affine::makeComposedFoldedAffineApply(
                nb, loc, AffineMap::get(numLoops, 0, expr), operands)));
      return result;
    };
    // Lane i of the row reads element i * stride of the read, or, with
    // `repeat` > 1 (stride 0), element i / repeat: the (length - 1) /
    // repeat + 1 elements read as one vector and spread.
    auto readRow = [&](OpBuilder &nb, Value memref, AffineMap map,
                       int64_t stride, int64_t repeat = 1) -> Value {
      SmallVector<Value> at = indices(nb, map);
      auto type = cast<MemRefType>(memref.getType());
      Type scalar = type.getElementType();
      int64_t span =
          repeat > 1 ? (length - 1) / repeat + 1 : (length - 1) * stride + 1;
      // A strided row is read as length * stride elements where the
      // buffer's row has room for them wherever the read starts: a read of
      // (length - 1) * stride + 1 (15 floats for 8 outputs at stride 2)
      // became a scalar load or two per output, since LLVM cannot widen a
      // load past the elements it was asked for; the whole width is one
      // vector load (a stride-2 depthwise convolution's taps).
      if (stride > 1) {
        std::optional<int64_t> start =
            largestStart(map.getResults().back(), row, staticRanges);
        int64_t inner = type.getShape().back();
        if (start && !ShapedType::isDynamic(inner) &&
            *start + length * stride <= inner)
          span = length * stride;
      }
      Value padding =
          arith::ConstantOp::create(nb, loc, nb.getZeroAttr(scalar));
      Value read = vector::TransferReadOp::create(
          nb, loc, VectorType::get({span}, scalar), memref, at, padding,
          ArrayRef<bool>{true});
      if (stride == 1)
        return read;
      SmallVector<int64_t> picks;
      for (int64_t i = 0; i < length; ++i)
        picks.push_back(repeat > 1 ? i / repeat : i * stride);
      return vector::ShuffleOp::create(nb, loc, read, read, picks);
    };

    // With the window unrolled, an input read as a scalar (broadcast over
    // the row) that the innermost outer loop does not move is read before
    // that loop, once per tap, and kept in registers: at most a third of
    // an AVX-512 register file (12 registers of the target's width). LLVM
    // would not hoist these loads itself: it cannot tell the filter's
    // buffer from the output's, which the loop writes.
    SmallVector<int64_t> hoistAt(op.getNumDpsInputs(), -2);
    std::optional<CPUTargetInfo> target = readTargetAttr(op);
    if ((unrolled || reduced.empty()) && !rowSum && target &&
        target->vectorWidth > 0) {
      int64_t budget = 12 * target->vectorWidth, used = 0;
      for (auto [index, input] : llvm::enumerate(op.getDpsInputOperands())) {
        if (inputStrides[index] || inputRepeats[index] > 1)
          continue;
        AffineMap map = op.getMatchingIndexingMap(input);
        int64_t deepest = -1;
        for (auto [level, d] : llvm::enumerate(outer))
          if (llvm::any_of(map.getResults(), [&, d = d](AffineExpr expr) {
                return expr.isFunctionOfDim(d);
              }))
            deepest = level;
        if (deepest + 1 >= static_cast<int64_t>(outer.size()) ||
            used + taps * length > budget)
          continue;
        hoistAt[index] = deepest;
        used += taps * length;
      }
    }
    // hoisted[{input, tap}]: the broadcast value read before the loops.
    std::map<std::pair<unsigned, int64_t>, Value> hoisted;
    int64_t currentTap = 0;
    auto emitHoisted = [&](OpBuilder &nb, int64_t level) {
      for (auto [index, input] : llvm::enumerate(op.getDpsInputOperands())) {
        if (hoistAt[index] != level)
          continue;
        AffineMap map = op.getMatchingIndexingMap(input);
        for (int64_t tap = 0; tap < taps; ++tap) {
          setTap(nb, tap);
          Value scalar =
              memref::LoadOp::create(nb, loc, input->get(), indices(nb, map));
          hoisted[{static_cast<unsigned>(index), tap}] =
              vector::BroadcastOp::create(nb, loc, vectorOf(scalar.getType()),
                                          scalar);
        }
        clearTaps();
      }
    };
    auto bound = [&](OpBuilder &nb, unsigned d) {
      return getValueOrCreateConstantIndexOp(nb, loc, bounds[d]);
    };
    // The body on vectors, with `accs` as the outputs' arguments.
    // A product only added (a tap's weight times its input, added to the
    // sum) is one FMA, rounded once, as the product and convolution kernels
    // compute theirs: LLVM does not contract a separate multiply and add
    // (odt does not allow it to), and the two took twice the issue slots.
    llvm::DenseMap<Operation *, arith::MulFOp> productOfSum;
    llvm::DenseSet<Operation *> fusedProducts;
    for (Operation &inner : op.getRegion().front().without_terminator()) {
      if (plan.elementwise) // its numerics stay those of its scalar loop
        break;
      auto sum = dyn_cast<arith::AddFOp>(inner);
      if (!sum || !sum.getType().isF32())
        continue;
      for (Value operand : sum->getOperands()) {
        auto product = operand.getDefiningOp<arith::MulFOp>();
        if (product && product->getBlock() == sum->getBlock() &&
            product->hasOneUse() && !fusedProducts.contains(product)) {
          productOfSum[sum] = product;
          fusedProducts.insert(product);
          break;
        }
      }
    }
    auto emitBody = [&](OpBuilder &nb, ValueRange accs) -> SmallVector<Value> {
      Block &body = op.getRegion().front();
      IRMapping mapping;
      for (auto [index, input] : llvm::enumerate(op.getDpsInputOperands())) {
        AffineMap map = op.getMatchingIndexingMap(input);
        Value value;
        if (int64_t repeat = inputRepeats[index]; repeat > 1) {
          value = readRow(nb, input->get(), map, /*stride=*/0, repeat);
        } else if (int64_t stride = inputStrides[index]) {
          value = readRow(nb, input->get(), map, stride);
        } else if (hoistAt[index] != -2) {
          value = hoisted.at({static_cast<unsigned>(index), currentTap});
        } else {
          Value scalar =
              memref::LoadOp::create(nb, loc, input->get(), indices(nb, map));
          value = vector::BroadcastOp::create(
              nb, loc, vectorOf(scalar.getType()), scalar);
        }
        mapping.map(body.getArgument(index), value);
      }
      mapping.map(body.getArguments().take_back(accs.size()), accs);
      auto vectorOperand = [&](Value operand) {
        Value mapped = mapping.lookupOrNull(operand);
        if (!mapped) // defined outside the body: the same for the row
          mapped = vector::BroadcastOp::create(
              nb, loc, vectorOf(operand.getType()), operand);
        return mapped;
      };
      for (Operation &inner : body.without_terminator()) {
        if (auto position = dyn_cast<linalg::IndexOp>(inner)) {
          unsigned dim = position.getDim();
          Value lanes;
          if (dim == row) // the row's lanes: 0, 1, ... (its loop is at 0)
            lanes =
                vector::StepOp::create(nb, loc, vectorOf(nb.getIndexType()));
          else
            lanes = vector::BroadcastOp::create(
                nb, loc, vectorOf(nb.getIndexType()), ivs[dim]);
          mapping.map(position.getResult(), lanes);
          continue;
        }
        if (fusedProducts.contains(&inner))
          continue; // computed by the FMA of the addition that reads it
        if (arith::MulFOp product = productOfSum.lookup(&inner)) {
          auto sum = cast<arith::AddFOp>(inner);
          Value addend =
              sum.getLhs() == product.getResult() ? sum.getRhs() : sum.getLhs();
          Value fused = vector::FMAOp::create(
              nb, loc, vectorOperand(product.getLhs()),
              vectorOperand(product.getRhs()), vectorOperand(addend));
          mapping.map(sum.getResult(), fused);
          continue;
        }
        SmallVector<Value> operands;
        for (Value operand : inner.getOperands())
          operands.push_back(vectorOperand(operand));
        SmallVector<Type> types;
        for (Type type : inner.getResultTypes())
          types.push_back(vectorOf(type));
        Operation *vectorOp = nb.create(loc, inner.getName().getIdentifier(),
                                        operands, types, inner.getAttrs());
        mapping.map(inner.getResults(), vectorOp->getResults());
      }
      SmallVector<Value> results;
      // A fill yields a value from outside the body.
      for (Value yielded : body.getTerminator()->getOperands())
        results.push_back(vectorOperand(yielded));
      return results;
    };

    // Nest of scf.for: `levels` in order; the innermost level computes the
    // body. Reduction levels carry the accumulator.
    std::function<SmallVector<Value>(OpBuilder &, unsigned, ValueRange)>
        emitReduced = [&](OpBuilder &nb, unsigned level,
                          ValueRange accs) -> SmallVector<Value> {
      if (level == reduced.size())
        return emitBody(nb, accs);
      if (unrolled) {
        SmallVector<Value> sums(accs);
        for (currentTap = 0; currentTap < taps; ++currentTap) {
          setTap(nb, currentTap);
          sums = emitBody(nb, sums);
        }
        clearTaps();
        return sums;
      }
      unsigned d = reduced[level];
      auto loop = scf::ForOp::create(
          nb, loc, zero, bound(nb, d), one, accs,
          [&](OpBuilder &lb, Location, Value iv, ValueRange args) {
            ivs[d] = iv;
            SmallVector<Value> next = emitReduced(lb, level + 1, args);
            scf::YieldOp::create(lb, loc, next);
          });
      ivs[d] = zero;
      return SmallVector<Value>(loop.getResults());
    };
    auto emitRow = [&](OpBuilder &nb) {
      if (rowSum) {
        // A vector of partial sums per output, reduced once per element.
        SmallVector<Value> starts;
        for (Value out : op.getDpsInits()) {
          Type element = cast<MemRefType>(out.getType()).getElementType();
          starts.push_back(arith::ConstantOp::create(
              nb, loc,
              DenseElementsAttr::get(vectorOf(element),
                                     nb.getZeroAttr(element))));
        }
        SmallVector<Value> sums = emitReduced(nb, 0, starts);
        for (auto [sumsOfRow, out] : llvm::zip(sums, op.getDpsInitsMutable())) {
          Value total = vector::ReductionOp::create(
              nb, loc, vector::CombiningKind::ADD, sumsOfRow, Value(),
              arith::FastMathFlags::reassoc);
          SmallVector<Value> at = indices(nb, op.getMatchingIndexingMap(&out));
          linalg::FillOp fill =
              fills[out.getOperandNumber() - op.getNumDpsInputs()];
          Value old = fill ? fill.getInputs()[0]
                           : memref::LoadOp::create(nb, loc, out.get(), at);
          Value sum = arith::AddFOp::create(nb, loc, old, total,
                                            arith::FastMathFlags::reassoc);
          memref::StoreOp::create(nb, loc, sum, out.get(), at);
        }
        return;
      }
      // An elementwise op that does not read its output does not load it;
      // one whose output a fill wrote just before starts from the fill's
      // value, and the fill goes.
      SmallVector<Value> accs;
      for (OpOperand &out : op.getDpsInitsMutable()) {
        unsigned index = out.getOperandNumber() - op.getNumDpsInputs();
        BlockArgument outArgument =
            op.getRegion().front().getArgument(out.getOperandNumber());
        Type element = cast<MemRefType>(out.get().getType()).getElementType();
        if (linalg::FillOp fill = fills[index]) {
          accs.push_back(vector::BroadcastOp::create(
              nb, loc, vectorOf(fill.getInputs()[0].getType()),
              fill.getInputs()[0]));
        } else if (plan.elementwise && outArgument.use_empty()) {
          accs.push_back(arith::ConstantOp::create(
              nb, loc,
              DenseElementsAttr::get(vectorOf(element),
                                     nb.getZeroAttr(element))));
        } else {
          accs.push_back(readRow(nb, out.get(), outMap, 1));
        }
      }
      SmallVector<Value> results = emitReduced(nb, 0, accs);
      for (auto [result, out] : llvm::zip(results, op.getDpsInits()))
        vector::TransferWriteOp::create(
            nb, loc, result, out, indices(nb, outMap), ArrayRef<bool>{true});
    };
    std::function<void(OpBuilder &, unsigned)> emitOuter = [&](OpBuilder &nb,
                                                               unsigned level) {
      emitHoisted(nb, static_cast<int64_t>(level) - 1);
      if (level == outer.size())
        return emitRow(nb);
      unsigned d = outer[level];
      scf::ForOp::create(nb, loc, zero, bound(nb, d), one, ValueRange{},
                         [&](OpBuilder &lb, Location, Value iv, ValueRange) {
                           ivs[d] = iv;
                           emitOuter(lb, level + 1);
                           scf::YieldOp::create(lb, loc);
                         });
      ivs[d] = zero;
    };
    emitOuter(b, 0);
    op.erase();
    for (linalg::FillOp fill : fills)
      if (fill)
        fill.erase();
  }
};

} // namespace
} // namespace odt
