//===- VectorizeContractions.cpp - register-tiled matrix products ---------===//
//
// A matrix product lowered by convert-linalg-to-loops keeps one output
// element in memory per multiply-add. Here the product becomes loops whose
// innermost body keeps a rows x columns tile of the output in vector
// registers across the whole k loop: per k, one vector row of B is loaded,
// and each of the tile's rows adds a broadcast element of A times it. This
// is the shape of a BLAS micro-kernel, written with upstream ops (scf.for
// with iter_args, vector.transfer_read/write, vector.fma) on tensors, so
// bufferization and the vector-to-LLVM lowering do the rest. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_VECTORIZECONTRACTIONS
#include "codegen/Passes.h.inc"

namespace {

/// Whether the body is `out + a * b` (in either operand order).
bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value product = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
  auto multiply = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!multiply)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (multiply.getLhs() == a && multiply.getRhs() == b) ||
         (multiply.getLhs() == b && multiply.getRhs() == a);
}

unsigned resultDim(AffineMap map, unsigned result) {
  return cast<AffineDimExpr>(map.getResult(result)).getPosition();
}

/// How one product is tiled: the loop dims of the generic that play m, n
/// and k, and whether B needs a transposed copy.
struct ContractionPlan {
  unsigned m, n, k;
  bool transposeB;
};

std::optional<ContractionPlan> planContraction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  if (!isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned reductions = llvm::count(iterators, utils::IteratorType::reduction);
  AffineMap mapA = maps[0], mapB = maps[1], mapC = maps[2];
  if (reductions != 1 || mapC.getNumResults() < 2 ||
      mapA.getNumResults() < 2 || mapB.getNumResults() < 2)
    return std::nullopt;
  ContractionPlan plan;
  plan.k = std::distance(iterators.begin(),
                         llvm::find(iterators, utils::IteratorType::reduction));
  plan.m = resultDim(mapC, mapC.getNumResults() - 2);
  plan.n = resultDim(mapC, mapC.getNumResults() - 1);
  // m only in A, n only in B, k in both: a product, not a broadcast.
  auto uses = [](AffineMap map, unsigned dim) {
    return map.isFunctionOfDim(dim);
  };
  if (!uses(mapA, plan.m) || uses(mapB, plan.m) || uses(mapA, plan.n) ||
      !uses(mapB, plan.n) || !uses(mapA, plan.k) || !uses(mapB, plan.k))
    return std::nullopt;
  unsigned lastB = mapB.getNumResults() - 1;
  if (resultDim(mapB, lastB) == plan.n)
    plan.transposeB = false;
  else if (resultDim(mapB, lastB) == plan.k &&
           resultDim(mapB, lastB - 1) == plan.n)
    plan.transposeB = true;
  else
    return std::nullopt;
  return plan;
}

/// Emits the loops for one planned product.
class ContractionEmitter {
public:
  ContractionEmitter(linalg::GenericOp op, const ContractionPlan &plan,
                     unsigned vectorWidth, unsigned rows)
      : op(op), plan(plan), rows(rows), columns(2 * vectorWidth),
        loc(op.getLoc()) {}

  Value emit(RewriterBase &rewriter) {
    OpBuilder &builder = rewriter;
    maps = op.getIndexingMapsArray();
    a = op.getDpsInputs()[0];
    b = op.getDpsInputs()[1];
    if (plan.transposeB)
      b = transposeLastTwo(builder, b);
    Value c = op.getDpsInits()[0];

    SmallVector<Range, 4> ranges =
        cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(builder, loc);
    for (Range &range : ranges)
      sizes.push_back(getValueOrCreateConstantIndexOp(builder, loc, range.size));
    std::optional<int64_t> staticN = getConstantIntValue(ranges[plan.n].size);
    columnsInBounds = staticN && *staticN % columns == 0;

    zero = arith::ConstantIndexOp::create(builder, loc, 0);
    one = arith::ConstantIndexOp::create(builder, loc, 1);
    padding = arith::ConstantFloatOp::create(builder, loc, builder.getF32Type(),
                                             APFloat(0.0f));
    vectorType = VectorType::get({columns}, builder.getF32Type());

    // Loops over every dim that is neither m, n nor k.
    SmallVector<unsigned> outer;
    for (unsigned dim = 0; dim < sizes.size(); ++dim)
      if (dim != plan.m && dim != plan.n && dim != plan.k)
        outer.push_back(dim);
    SmallVector<Value> lbs(outer.size(), zero), steps(outer.size(), one), ubs;
    for (unsigned dim : outer)
      ubs.push_back(sizes[dim]);
    dimValues.assign(sizes.size(), Value());
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lbs, ubs, steps, ValueRange{c},
        [&](OpBuilder &nested, Location, ValueRange ivs, ValueRange args) {
          for (auto [dim, iv] : llvm::zip(outer, ivs))
            dimValues[dim] = iv;
          return scf::ValueVector{emitColumnTiles(nested, args[0])};
        });
    return nest.results.front();
  }

private:
  /// A copy of `value` with its last two dims swapped.
  Value transposeLastTwo(OpBuilder &builder, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq<int64_t>(rank));
    std::swap(permutation[rank - 1], permutation[rank - 2]);
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(builder, loc, value);
    std::swap(sizes[rank - 1], sizes[rank - 2]);
    Value empty =
        tensor::EmptyOp::create(builder, loc, sizes, type.getElementType());
    Value transposed =
        linalg::TransposeOp::create(builder, loc, value, empty, permutation)
            ->getResult(0);
    // The generic's map for B swaps the same two results.
    AffineMap &mapB = maps[1];
    SmallVector<AffineExpr> results(mapB.getResults());
    std::swap(results[rank - 1], results[rank - 2]);
    mapB = AffineMap::get(mapB.getNumDims(), 0, results, builder.getContext());
    return transposed;
  }

  /// The indices into operand `index` with the current loop values.
  SmallVector<Value> indicesOf(unsigned index) {
    SmallVector<Value> indices;
    for (AffineExpr expr : maps[index].getResults())
      indices.push_back(dimValues[cast<AffineDimExpr>(expr).getPosition()]);
    return indices;
  }

  Value emitColumnTiles(OpBuilder &builder, Value c) {
    Value step = arith::ConstantIndexOp::create(builder, loc, columns);
    auto loop = scf::ForOp::create(
        builder, loc, zero, sizes[plan.n], step, ValueRange{c},
        [&](OpBuilder &nested, Location, Value column, ValueRange args) {
          dimValues[plan.n] = column;
          Value result = emitRowTiles(nested, args[0]);
          scf::YieldOp::create(nested, loc, result);
        });
    return loop.getResult(0);
  }

  /// Full tiles of `rows` rows, then the remaining rows one at a time.
  Value emitRowTiles(OpBuilder &builder, Value c) {
    Value m = sizes[plan.m];
    Value tileStep = arith::ConstantIndexOp::create(builder, loc, rows);
    Value remainder = arith::RemUIOp::create(builder, loc, m, tileStep);
    Value fullEnd = arith::SubIOp::create(builder, loc, m, remainder);
    auto tiles = scf::ForOp::create(
        builder, loc, zero, fullEnd, tileStep, ValueRange{c},
        [&](OpBuilder &nested, Location, Value row, ValueRange args) {
          scf::YieldOp::create(nested, loc,
                               emitTile(nested, row, rows, args[0]));
        });
    auto rest = scf::ForOp::create(
        builder, loc, fullEnd, m, one, tiles.getResults(),
        [&](OpBuilder &nested, Location, Value row, ValueRange args) {
          scf::YieldOp::create(nested, loc, emitTile(nested, row, 1, args[0]));
        });
    return rest.getResult(0);
  }

  /// Rows [row, row + count) x columns [column, column + columns) of C.
  Value emitTile(OpBuilder &builder, Value row, unsigned count, Value c) {
    SmallVector<bool> inBounds = {columnsInBounds};
    SmallVector<Value> rowValues;
    for (unsigned r = 0; r < count; ++r)
      rowValues.push_back(
          r == 0 ? row
                 : arith::AddIOp::create(
                       builder, loc, row,
                       arith::ConstantIndexOp::create(builder, loc, r)));
    SmallVector<Value> accumulators;
    for (unsigned r = 0; r < count; ++r) {
      dimValues[plan.m] = rowValues[r];
      accumulators.push_back(vector::TransferReadOp::create(
          builder, loc, vectorType, c, indicesOf(2), padding, inBounds));
    }
    auto kLoop = scf::ForOp::create(
        builder, loc, zero, sizes[plan.k], one, accumulators,
        [&](OpBuilder &nested, Location, Value k, ValueRange sums) {
          dimValues[plan.k] = k;
          Value rowOfB = vector::TransferReadOp::create(
              nested, loc, vectorType, b, indicesOf(1), padding, inBounds);
          SmallVector<Value> next;
          for (unsigned r = 0; r < count; ++r) {
            dimValues[plan.m] = rowValues[r];
            Value element =
                tensor::ExtractOp::create(nested, loc, a, indicesOf(0));
            Value broadcast =
                vector::BroadcastOp::create(nested, loc, vectorType, element);
            next.push_back(vector::FMAOp::create(nested, loc, broadcast,
                                                 rowOfB, sums[r]));
          }
          scf::YieldOp::create(nested, loc, next);
        });
    for (unsigned r = 0; r < count; ++r) {
      dimValues[plan.m] = rowValues[r];
      c = vector::TransferWriteOp::create(builder, loc, kLoop.getResult(r), c,
                                          indicesOf(2), inBounds)
              ->getResult(0);
    }
    return c;
  }

  linalg::GenericOp op;
  ContractionPlan plan;
  unsigned rows, columns;
  Location loc;
  SmallVector<AffineMap> maps;
  Value a, b, zero, one, padding;
  SmallVector<Value> sizes, dimValues;
  VectorType vectorType;
  bool columnsInBounds = false;
};

struct VectorizeContractionsPass
    : impl::VectorizeContractionsBase<VectorizeContractionsPass> {
  using VectorizeContractionsBase::VectorizeContractionsBase;

  void runOnOperation() override {
    if (vectorWidth == 0 || rows == 0) {
      getOperation().emitError(
          "odt-vectorize-contractions: vector-width and rows must be positive");
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, ContractionPlan>> work;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<ContractionPlan> plan = planContraction(op))
        work.push_back({op, *plan});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, plan] : work) {
      rewriter.setInsertionPoint(op);
      ContractionEmitter emitter(op, plan, vectorWidth, rows);
      Value result = emitter.emit(rewriter);
      if (result.getType() != op.getResult(0).getType())
        result = tensor::CastOp::create(rewriter, op.getLoc(),
                                        op.getResult(0).getType(), result);
      rewriter.replaceOp(op, result);
    }
  }
};

} // namespace
} // namespace odt
