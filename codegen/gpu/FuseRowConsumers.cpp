//===- FuseRowConsumers.cpp - a row's elementwise work in its row's kernel ===//
//
// A softmax is a kernel over rows (its maximum and sum of exponentials)
// then a kernel over rows x columns (each element's exponential divided by
// the sum); a LayerNorm, its moments then its normalization. The second
// kernel reads the first's results at its own row only, so each row's
// columns can be done by the thread (or, after odt-gpu-warp-reductions,
// the warp) that made its statistics, right after: one launch instead of
// two, and the row is read again while it is in cache. See Passes.td for
// the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEROWCONSUMERS
#include "codegen/gpu/Passes.h.inc"

namespace {

bool isZero(Value value) { return isConstantIntValue(value, 0); }
bool isOne(Value value) { return isConstantIntValue(value, 1); }

/// Whether `a` and `b` are the same bound: one value, or equal constants.
bool sameBound(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> first = getConstantIntValue(a);
  std::optional<int64_t> second = getConstantIntValue(b);
  return first && second && *first == *second;
}

/// The most iterations of a sequential loop in `body` with static bounds
/// (what one thread of the row kernel already does per row), or 0.
int64_t longestLoop(Block *body) {
  int64_t longest = 0;
  body->walk([&](scf::ForOp loop) {
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      longest = std::max(longest, trips->getSExtValue());
  });
  return longest;
}

struct FuseRowConsumersPass : impl::FuseRowConsumersBase<FuseRowConsumersPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      // The next op is read after the fusion, which moves the ops between
      // the two loops above the first and erases the second.
      for (Operation *op = block->empty() ? nullptr : &block->front(); op;
           op = op->getNextNode()) {
        auto loop = dyn_cast<scf::ParallelOp>(op);
        if (!loop || loop->getParentOfType<scf::ParallelOp>())
          continue;
        // An elementwise loop over rows and columns that a row kernel
        // right after reads row by row (a LayerNorm gradient's dy * gamma
        // before its row sums) goes into it, at its start ...
        scf::ParallelOp next = nextLoop(loop);
        if (next && isRowPair(/*rows=*/next, /*columns=*/loop)) {
          fuse(next, loop, /*atStart=*/true);
          op = next;
          loop = next;
        }
        // ... and a row kernel takes the loops over its rows and columns
        // that read it row by row, in turn (a softmax's division; a
        // LayerNorm's normalized output and a copy of it).
        for (next = nextLoop(loop); next && isRowPair(loop, next);
             next = nextLoop(loop))
          fuse(loop, next, /*atStart=*/false);
      }
    }
  }

  /// The parallel loop after `loop`, with only pure ops and allocations
  /// between them, or null.
  static scf::ParallelOp nextLoop(scf::ParallelOp loop) {
    Operation *next = loop->getNextNode();
    while (next && (isa<memref::AllocOp>(next) ||
                    (isMemoryEffectFree(next) && next->getNumRegions() == 0)))
      next = next->getNextNode();
    return dyn_cast_or_null<scf::ParallelOp>(next);
  }

  /// Whether `columns` (before or after `rows`) is a loop over `rows`' rows
  /// and one more, innermost dim that can run in `rows`' threads: its
  /// columns at most as many as `rows`' longest sequential loop (so a
  /// thread's work per row at most doubles), every memory access of either
  /// loop to a buffer either writes indexed first by the loop's own row (so
  /// rows stay independent, and what one reads of the other's writes is
  /// its own row's, written earlier by the same thread), each such buffer
  /// separate memory accessed through one view.
  static bool isRowPair(scf::ParallelOp rows, scf::ParallelOp columns) {
    unsigned rank = rows.getNumLoops();
    if (!rows.getInitVals().empty() || !allUnitFromZero(rows) ||
        !columns.getInitVals().empty() || columns.getNumLoops() != rank + 1 ||
        !allUnitFromZero(columns))
      return false;
    for (unsigned dim = 0; dim < rank; ++dim)
      if (!sameBound(rows.getUpperBound()[dim], columns.getUpperBound()[dim]))
        return false;
    std::optional<int64_t> count =
        getConstantIntValue(columns.getUpperBound()[rank]);
    return count && *count <= longestLoop(rows.getBody()) &&
           accessesByRow(rows, columns);
  }

  static bool allUnitFromZero(scf::ParallelOp loop) {
    return llvm::all_of(loop.getLowerBound(), isZero) &&
           llvm::all_of(loop.getStep(), isOne);
  }

  /// The access rule of isRowPair.
  static bool accessesByRow(scf::ParallelOp rows, scf::ParallelOp consumer) {
    struct Access {
      Value memref;
      ValueRange indices;
      ValueRange rowIndices; // the loop's induction variables of the rows
      bool write;
    };
    SmallVector<Access> accesses;
    bool unknown = false;
    unsigned rank = rows.getNumLoops();
    auto collect = [&](scf::ParallelOp loop) {
      ValueRange ivs = loop.getBody()->getArguments().take_front(rank);
      loop.getBody()->walk([&](Operation *op) {
        if (auto load = dyn_cast<memref::LoadOp>(op))
          accesses.push_back({load.getMemRef(), load.getIndices(), ivs, false});
        else if (auto store = dyn_cast<memref::StoreOp>(op))
          accesses.push_back(
              {store.getMemRef(), store.getIndices(), ivs, true});
        else if (isa<scf::ParallelOp>(op) ||
                 (op->getNumRegions() == 0 && !isMemoryEffectFree(op) &&
                  !isa<memref::AllocaOp>(op)))
          unknown = true;
      });
    };
    collect(rows);
    collect(consumer);
    if (unknown)
      return false;
    llvm::DenseMap<Value, Value> viewOfWritten;
    for (const Access &access : accesses) {
      if (!access.write)
        continue;
      Value root = getUnderlyingBuffer(access.memref);
      if (!isSeparateBuffer(root))
        return false;
      auto [it, inserted] = viewOfWritten.try_emplace(root, access.memref);
      if (!inserted && it->second != access.memref)
        return false;
    }
    for (const Access &access : accesses) {
      auto it = viewOfWritten.find(getUnderlyingBuffer(access.memref));
      if (it == viewOfWritten.end())
        continue;
      if (it->second != access.memref || access.indices.size() < rank)
        return false;
      for (unsigned dim = 0; dim < rank; ++dim)
        if (access.indices[dim] != access.rowIndices[dim])
          return false;
    }
    return true;
  }

  /// `columns`' body as a sequential loop over its columns at the end of
  /// `rows`' body (or at its start, for a loop that came before `rows`),
  /// its row dims `rows`' own; the ops between the two loops go above the
  /// first of them.
  static void fuse(scf::ParallelOp rows, scf::ParallelOp columns,
                   bool atStart) {
    IRRewriter rewriter(rows.getContext());
    Operation *first = atStart ? columns : rows;
    Operation *second = atStart ? rows : columns;
    for (Operation *op = first->getNextNode(); op != second;) {
      Operation *next = op->getNextNode();
      op->moveBefore(first);
      op = next;
    }
    unsigned rank = rows.getNumLoops();
    Block *rowBody = rows.getBody();
    if (atStart)
      rewriter.setInsertionPointToStart(rowBody);
    else
      rewriter.setInsertionPoint(rowBody->getTerminator());
    auto loop = scf::ForOp::create(
        rewriter, columns.getLoc(), columns.getLowerBound()[rank],
        columns.getUpperBound()[rank], columns.getStep()[rank]);
    Block *body = columns.getBody();
    rewriter.eraseOp(body->getTerminator());
    SmallVector<Value> ivs(rows.getInductionVars());
    ivs.push_back(loop.getInductionVar());
    rewriter.inlineBlockBefore(body, loop.getBody()->getTerminator(), ivs);
    rewriter.eraseOp(columns);
  }
};

} // namespace
} // namespace odt
