//===- WarpReductions.cpp - a row's sum over the 32 lanes of a warp -------===//
//
// A kernel whose thread sums one row (a softmax's maximum and sum of
// exponentials, a LayerNorm's mean and variance, a norm) reads the row's
// terms one after another: consecutive threads read addresses a row apart,
// so no load is coalesced, and a row of 256 terms is 256 dependent steps.
// Here a warp sums each row instead: lane l takes terms l, l + 32, ...
// (consecutive lanes, consecutive addresses), and the lanes' partial
// results are combined by a butterfly of shuffles. Every lane ends with the
// same total, bit for bit (each step combines the same two values, in
// either order, with a commutative operation), so the rest of the body runs
// in every lane as it ran in the one thread: its stores write the same
// value to the same address, and a later read of it in the same lane sees
// that lane's own write. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_WARPREDUCTIONS
#include "codegen/gpu/Passes.h.inc"

namespace {

constexpr int64_t kWarpSize = 32;

/// The op that combines iter_arg `index` of `loop` with a term: the value
/// yielded for it is an addition, maximum or minimum of it (its only use)
/// and a term; null otherwise.
Operation *getCombiner(scf::ForOp loop, unsigned index) {
  BlockArgument carried = loop.getRegionIterArg(index);
  if (!carried.getType().isF32() || !carried.hasOneUse())
    return nullptr;
  Operation *combiner = loop.getYieldedValues()[index].getDefiningOp();
  if (!combiner || combiner->getBlock() != loop.getBody() ||
      combiner != *carried.getUsers().begin() ||
      !isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return nullptr;
  return combiner;
}

/// `lhs` and `rhs` combined as `combiner` combines its operands.
Value combine(OpBuilder &builder, Location loc, Operation *combiner, Value lhs,
              Value rhs) {
  OperationState state(loc, combiner->getName(), ValueRange{lhs, rhs},
                       TypeRange{lhs.getType()});
  return builder.create(state)->getResult(0);
}

/// Whether the memory accesses in `loop` that depend on its index read or
/// write that index as the innermost index of a unit-stride dim (so that
/// consecutive lanes touch consecutive addresses, and a lane touches only
/// the elements it owns), no other index computed in the loop (a shifted
/// or strided access), nothing else with side effects, and no loop inside.
/// Stores are allowed where `stores` is.
bool readsAlongItsIndex(scf::ForOp loop, bool stores) {
  Value row = loop.getInductionVar();
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp, scf::ParallelOp>(op) ||
        (isa<memref::StoreOp>(op) && !stores) ||
        (op->getNumRegions() == 0 && !isMemoryEffectFree(op) &&
         !isa<memref::LoadOp, memref::StoreOp>(op)))
      return WalkResult::interrupt();
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
      // A store writes an element of the lane's own.
      if (indices.empty() || indices.back() != row)
        return WalkResult::interrupt();
    } else {
      return WalkResult::advance();
    }
    if (!llvm::is_contained(indices, row))
      return WalkResult::advance();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(cast<MemRefType>(memref.getType())
                   .getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return WalkResult::interrupt();
    for (unsigned position = 0; position < indices.size(); ++position)
      if (indices[position] == row && position + 1 != indices.size())
        return WalkResult::interrupt();
    for (Value index : indices)
      if (index != row && index.getDefiningOp() &&
          loop->isAncestor(index.getDefiningOp()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// The iterations of `loop` when its bounds are static, its start 0 and
/// its step 1 (every loop a warp spreads is, so that iteration k is lane
/// k mod 32's in all of them), else nothing.
std::optional<int64_t> unitTrips(scf::ForOp loop) {
  if (!isConstantIntValue(loop.getLowerBound(), 0) ||
      !isConstantIntValue(loop.getStep(), 1))
    return std::nullopt;
  return getConstantIntValue(loop.getUpperBound());
}

/// Whether `loop` is a row sum a warp takes: at least `minTerms` terms,
/// one or two loop-carried values, each a combination of its terms,
/// nothing written, and its accesses along its index (readsAlongItsIndex:
/// a sum down a column, whose threads' reads are coalesced already, stays
/// as it is).
bool isRowReduction(scf::ForOp loop, int64_t minTerms) {
  std::optional<int64_t> trips = unitTrips(loop);
  if (!trips || *trips < minTerms)
    return false;
  // A sum per lane of one or two values: a register tile's sixteen
  // would cost sixteen butterflies.
  if (loop.getNumRegionIterArgs() == 0 || loop.getNumRegionIterArgs() > 2)
    return false;
  for (unsigned index = 0; index < loop.getNumRegionIterArgs(); ++index)
    if (!getCombiner(loop, index))
      return false;
  return readsAlongItsIndex(loop, /*stores=*/false);
}

/// Whether `loop` is a row's elementwise work a warp can spread (a
/// softmax's division, a LayerNorm's normalization, fused into the row's
/// kernel by odt-gpu-fuse-row-consumers): nothing carried, each element
/// it writes at its index (readsAlongItsIndex).
bool isColumnLoop(scf::ForOp loop) {
  return unitTrips(loop) && loop.getNumRegionIterArgs() == 0 &&
         readsAlongItsIndex(loop, /*stores=*/true);
}

/// Whether the body's memory accesses stay right once the `spread` loops
/// are split over the lanes (each lane then runs only the iterations it
/// owns; the rest of the body runs in every lane): a buffer written in a
/// spread loop is accessed nowhere but in spread loops (where, by
/// readsAlongItsIndex, each lane touches only its own elements), and a
/// buffer the lane-uniform code writes (every lane the same value) is read
/// in spread loops only after that code's last write to it, so each lane
/// reads its own store. Buffers are told apart by their root (views of one
/// buffer are one buffer); a root that may share memory with another
/// makes the body not qualify.
bool lanesStayApart(Block *body, ArrayRef<scf::ForOp> spread) {
  auto inSpread = [&](Operation *op) {
    return llvm::any_of(spread,
                        [&](scf::ForOp loop) { return loop->isAncestor(op); });
  };
  struct Access {
    Operation *op;
    Value root;
    bool write, spread;
  };
  SmallVector<Access> accesses;
  bool unknown = false;
  body->walk([&](Operation *op) {
    Value memref;
    bool write = false;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      write = true;
    } else {
      if (op->getNumRegions() == 0 && !isMemoryEffectFree(op))
        unknown = true;
      return;
    }
    accesses.push_back({op, getUnderlyingBuffer(memref), write, inSpread(op)});
  });
  if (unknown)
    return false;
  for (const Access &access : accesses)
    if (access.write && !isSeparateBuffer(access.root))
      return false;
  for (const Access &written : accesses) {
    if (!written.write)
      continue;
    for (const Access &other : accesses) {
      if (other.root != written.root)
        continue;
      if (written.spread && !other.spread)
        return false;
      // A lane's read in a spread loop before the lane-uniform write (of
      // whatever element) could see another lane's write, or not.
      if (!written.spread && other.spread &&
          body->findAncestorOpInBlock(*other.op)->isBeforeInBlock(
              body->findAncestorOpInBlock(*written.op)))
        return false;
    }
  }
  return true;
}

struct WarpReductionsPass : impl::WarpReductionsBase<WarpReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      rewrite(loop);
  }

  /// Gives `loop` (a kernel to be: its dims the outputs) a lane dim of 32,
  /// innermost, when the sequential loops of its body are all row sums:
  /// odt-gpu-distribute-parallel-loops collapses it last and tiles by a
  /// multiple of 32, so the lanes of one output are one warp.
  void rewrite(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0 || !loop.getInitVals().empty())
      return;
    SmallVector<scf::ForOp> rows;
    bool nested = false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto row = dyn_cast<scf::ForOp>(op)) {
        rows.push_back(row);
        continue;
      }
      op.walk([&](Operation *inner) {
        nested |= isa<scf::ForOp, scf::WhileOp, scf::ParallelOp>(inner);
      });
    }
    if (nested || rows.empty())
      return;
    // Every loop a row sum or a row's elementwise work, one sum at least.
    SmallVector<scf::ForOp> sums;
    for (scf::ForOp row : rows) {
      if (isRowReduction(row, minTerms))
        sums.push_back(row);
      else if (!isColumnLoop(row))
        return;
    }
    if (sums.empty() || !lanesStayApart(loop.getBody(), rows))
      return;

    IRRewriter rewriter(loop.getContext());
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    SmallVector<Value> lower(loop.getLowerBound()), upper(loop.getUpperBound()),
        steps(loop.getStep());
    lower.push_back(index(0));
    upper.push_back(index(kWarpSize));
    steps.push_back(index(1));
    auto warps = scf::ParallelOp::create(rewriter, loc, lower, upper, steps);
    Block *body = warps.getBody();
    rewriter.eraseOp(body->getTerminator());
    SmallVector<Value> outputs(body->getArguments().drop_back());
    Value lane = body->getArguments().back();
    rewriter.inlineBlockBefore(loop.getBody(), body, body->end(), outputs);
    rewriter.eraseOp(loop);

    for (scf::ForOp row : rows) {
      if (llvm::is_contained(sums, row))
        spreadOverLanes(rewriter, row, lane);
      else
        strideOverLanes(rewriter, row, lane);
    }
  }

  /// `row` with lane l taking iterations l, l + 32, ...
  static void strideOverLanes(IRRewriter &rewriter, scf::ForOp row,
                              Value lane) {
    Location loc = row.getLoc();
    rewriter.setInsertionPoint(row);
    Value warp = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
    Value offset = arith::MulIOp::create(rewriter, loc, lane, row.getStep());
    Value start =
        arith::AddIOp::create(rewriter, loc, row.getLowerBound(), offset);
    Value stride = arith::MulIOp::create(rewriter, loc, row.getStep(), warp);
    row.getLowerBoundMutable().set(start);
    row.getStepMutable().set(stride);
  }

  /// `row` with lane l taking terms l, l + 32, ..., each lane from the
  /// combiner's start (a sum from zero, the initial value added once at
  /// the end; a maximum or minimum from the initial value, which taking
  /// again changes nothing), then the lanes' results combined by a
  /// butterfly: after step s each lane holds the combination of the 2^s
  /// lanes that differ from it in the low s bits.
  void spreadOverLanes(IRRewriter &rewriter, scf::ForOp row, Value lane) {
    Location loc = row.getLoc();
    strideOverLanes(rewriter, row, lane);
    SmallVector<Operation *> combiners;
    SmallVector<Value> initial(row.getInitArgs());
    for (unsigned index = 0; index < row.getNumRegionIterArgs(); ++index) {
      combiners.push_back(getCombiner(row, index));
      if (isa<arith::AddFOp>(combiners.back()))
        row.getInitArgsMutable()[index].set(arith::ConstantOp::create(
            rewriter, loc, rewriter.getF32FloatAttr(0.0)));
    }

    rewriter.setInsertionPointAfter(row);
    Value width = arith::ConstantIntOp::create(rewriter, loc, kWarpSize, 32);
    for (unsigned index = 0; index < row.getNumResults(); ++index) {
      Value result = row.getResult(index);
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : result.getUses())
        uses.push_back(&use);
      Value total = result;
      for (int64_t mask = kWarpSize / 2; mask >= 1; mask /= 2) {
        Value distance = arith::ConstantIntOp::create(rewriter, loc, mask, 32);
        auto shuffle = gpu::ShuffleOp::create(rewriter, loc, total, distance,
                                              width, gpu::ShuffleMode::XOR);
        total = combine(rewriter, loc, combiners[index], total,
                        shuffle.getShuffleResult());
      }
      if (isa<arith::AddFOp>(combiners[index]))
        total = combine(rewriter, loc, combiners[index], initial[index], total);
      for (OpOperand *use : uses)
        use->set(total);
    }
  }
};

} // namespace
} // namespace odt
