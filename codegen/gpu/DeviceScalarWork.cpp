//===- DeviceScalarWork.cpp - scalar work runs on the device too ----------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_DEVICESCALARWORK
#include "codegen/gpu/Passes.h.inc"

namespace {

/// Whether `op`, at the top of a function, is sequential work on buffers:
/// a store, or a loop or branch without results (a full reduction's loop,
/// what a zero-dim op became).
bool isSequentialWork(Operation &op) {
  if (isa<memref::StoreOp>(op))
    return true;
  if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op) || op.getNumResults() != 0)
    return false;
  // Buffers allocated inside stay host work: in a kernel they would be
  // device mallocs.
  return !op.walk([](Operation *inner) {
              return isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(
                         inner)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted();
}

/// Runs `op` in a parallel loop of one iteration: a kernel of one thread.
void wrapInSingleIterationLoop(IRRewriter &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                      ValueRange{one}, ValueRange{one});
  rewriter.moveOpBefore(op, loop.getBody()->getTerminator());
}

/// The buffers `op` may write (underlying buffers), or nullopt when it
/// cannot tell.
std::optional<llvm::SmallDenseSet<Value, 4>> getWrittenBuffers(Operation *op) {
  llvm::SmallDenseSet<Value, 4> written;
  bool known = true;
  op->walk([&](Operation *inner) {
    if (auto store = dyn_cast<memref::StoreOp>(inner)) {
      written.insert(getUnderlyingBuffer(store.getMemRef()));
      return;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(inner)) {
      written.insert(getUnderlyingBuffer(copy.getTarget()));
      return;
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner)) {
      for (Value output : linalgOp.getDpsInits())
        written.insert(getUnderlyingBuffer(output));
      return;
    }
    if (isa<memref::LoadOp, memref::AllocOp, memref::AllocaOp,
            memref::DeallocOp>(inner) ||
        inner->getNumRegions() != 0 || isMemoryEffectFree(inner))
      return;
    known = false;
  });
  if (!known)
    return std::nullopt;
  return written;
}

/// Whether kernels can compute what `op` does: odt's kernels have no f64
/// transcendentals (odt-gpu-lower-kernel-math; the optimizer's bias
/// correction powers its betas in f64, as ORT does, so it stays on the
/// host).
bool isLowerableInKernels(Operation *op) {
  if (op->getDialect()->getNamespace() != "math")
    return true;
  return llvm::none_of(op->getOperandTypes(),
                       [](Type type) { return type.isF64(); });
}

/// Whether `loop` runs one iteration: a kernel of one thread.
bool hasSingleIteration(scf::ParallelOp loop) {
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> first = getConstantIntValue(lower);
    std::optional<int64_t> end = getConstantIntValue(upper);
    std::optional<int64_t> stride = getConstantIntValue(step);
    if (!first || !end || !stride || *stride <= 0 || *end - *first > *stride)
      return false;
  }
  return true;
}

/// Whether the value `load` reads is still there when `loop` runs: its
/// buffer is separate memory that nothing from the load up to `loop`
/// writes, nor `loop` itself unless it is one thread, which reads the
/// copies at the top of its body before its own writes (a single-element
/// gradient accumulated in place: read, add, store).
bool loadStaysValidUntil(memref::LoadOp load, scf::ParallelOp loop) {
  Value buffer = getUnderlyingBuffer(load.getMemRef());
  if (!isSeparateBuffer(buffer) || load->getBlock() != loop->getBlock())
    return false;
  for (Operation *op = load->getNextNode(); op; op = op->getNextNode()) {
    if (op == loop.getOperation() && hasSingleIteration(loop))
      return true;
    std::optional<llvm::SmallDenseSet<Value, 4>> written =
        getWrittenBuffers(op);
    if (!written || written->contains(buffer))
      return false;
    if (op == loop.getOperation())
      return true;
  }
  return false;
}

/// Collects, in `chain` (definitions before uses), the host ops computing
/// `value` from loads of device buffers; false if `value` depends on such
/// a load through an op that cannot move into `loop`.
bool collectDeviceChain(Value value, scf::ParallelOp loop,
                        llvm::SetVector<Operation *> &chain,
                        bool &readsDevice) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != loop->getBlock())
    return true; // a function argument, or defined elsewhere: no load
  if (chain.contains(def)) {
    readsDevice = true; // only ops that read the device join a chain
    return true;
  }
  if (auto load = dyn_cast<memref::LoadOp>(def)) {
    readsDevice = true;
    if (!loadStaysValidUntil(load, loop))
      return false;
    for (Value index : load.getIndices())
      if (!collectDeviceChain(index, loop, chain, readsDevice))
        return false;
    chain.insert(def);
    return true;
  }
  bool operandsReadDevice = false;
  llvm::SetVector<Operation *> operandChain;
  for (Value operand : def->getOperands())
    if (!collectDeviceChain(operand, loop, operandChain, operandsReadDevice))
      return false;
  if (!operandsReadDevice)
    return true; // host arithmetic on sizes and constants: a parameter
  if (def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
      !isLowerableInKernels(def))
    return false;
  readsDevice = true;
  chain.insert(operandChain.begin(), operandChain.end());
  chain.insert(def);
  return true;
}

/// Moves into `loop` (as copies at the top of its body) the host scalar
/// computations it uses that read device buffers.
void sinkDeviceScalars(IRRewriter &rewriter, scf::ParallelOp loop) {
  llvm::SetVector<Value> usedFromAbove;
  getUsedValuesDefinedAbove(loop.getRegion(), usedFromAbove);
  for (Value value : usedFromAbove) {
    llvm::SetVector<Operation *> chain;
    bool readsDevice = false;
    if (!collectDeviceChain(value, loop, chain, readsDevice) || !readsDevice)
      continue;
    // Clone in block order, so that each clone's operands exist.
    SmallVector<Operation *> ordered(chain.begin(), chain.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    rewriter.setInsertionPointToStart(loop.getBody());
    IRMapping mapping;
    for (Operation *op : ordered)
      rewriter.clone(*op, mapping);
    rewriter.replaceUsesWithIf(
        value, mapping.lookup(value),
        [&](OpOperand &use) { return loop->isProperAncestor(use.getOwner()); });
  }
}

struct DeviceScalarWorkPass : impl::DeviceScalarWorkBase<DeviceScalarWorkPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (Block &block : getOperation().getBody()) {
      SmallVector<Operation *> sequential;
      for (Operation &op : block)
        if (isSequentialWork(op))
          sequential.push_back(&op);
      for (Operation *op : sequential)
        wrapInSingleIterationLoop(rewriter, op);
      SmallVector<scf::ParallelOp> loops(block.getOps<scf::ParallelOp>());
      // The host loads whose uses all moved become dead; canonicalization
      // removes them.
      for (scf::ParallelOp loop : loops)
        sinkDeviceScalars(rewriter, loop);
    }
  }
};

} // namespace
} // namespace odt
