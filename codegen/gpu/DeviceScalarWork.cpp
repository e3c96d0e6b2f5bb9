//===- DeviceScalarWork.cpp - scalar work runs on the device too ----------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/BufferIdentity.h"
#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Whether kernels can compute what `op` (and the ops inside it) does:
/// odt's kernels have no f64 transcendentals (odt-gpu-lower-kernel-math).
bool isLowerableInKernels(Operation *op) {
  return !op->walk([](Operation *inner) {
              bool f64Math =
                  inner->getDialect()->getNamespace() == "math" &&
                  llvm::any_of(inner->getOperandTypes(),
                               [](Type type) { return type.isF64(); });
              return f64Math ? WalkResult::interrupt() : WalkResult::advance();
            }).wasInterrupted();
}

/// `x` to the power of the integer `exponent`, by squaring: |exponent|'s
/// bits from the lowest, `x`'s square at each, the product of those whose
/// bit is set; the reciprocal for a negative exponent.
Value buildIntegerPower(OpBuilder &b, Location loc, Value x, Value exponent) {
  Type floatType = x.getType(), intType = exponent.getType();
  auto intConstant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(intType, value));
  };
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, 1.0));
  Value zero = intConstant(0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
  // |exponent| as an unsigned value (the most negative one included).
  Value magnitude = arith::SelectOp::create(
      b, loc, negative, arith::SubIOp::create(b, loc, zero, exponent),
      exponent);
  Type types[] = {floatType, floatType, intType};
  auto loop = scf::WhileOp::create(b, loc, TypeRange(types),
                                   ValueRange{one, x, magnitude});
  {
    Block *before =
        b.createBlock(&loop.getBefore(), {}, types, {loc, loc, loc});
    Value left = before->getArgument(2);
    Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, left,
                                       intConstant(0));
    scf::ConditionOp::create(b, loc, more, before->getArguments());
  }
  {
    Block *after = b.createBlock(&loop.getAfter(), {}, types, {loc, loc, loc});
    Value product = after->getArgument(0), square = after->getArgument(1),
          left = after->getArgument(2);
    Value bit = arith::AndIOp::create(b, loc, left, intConstant(1));
    Value odd =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, zero);
    Value next = arith::SelectOp::create(
        b, loc, odd, arith::MulFOp::create(b, loc, product, square), product);
    scf::YieldOp::create(
        b, loc,
        ValueRange{next, arith::MulFOp::create(b, loc, square, square),
                   arith::ShRUIOp::create(b, loc, left, intConstant(1))});
  }
  b.setInsertionPointAfter(loop);
  Value power = loop.getResult(0);
  return arith::SelectOp::create(
      b, loc, negative, arith::DivFOp::create(b, loc, one, power), power);
}

/// Replaces loads of a constant global at constant indices (the optimizer's
/// "updated" flag) by the value: the host code need not read the global,
/// which lives with the kernels.
void foldConstantGlobalLoads(func::FuncOp function) {
  SmallVector<memref::LoadOp> loads;
  function.walk([&](memref::LoadOp load) { loads.push_back(load); });
  for (memref::LoadOp load : loads) {
    auto getGlobal = load.getMemRef().getDefiningOp<memref::GetGlobalOp>();
    if (!getGlobal)
      continue;
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    auto values =
        global
            ? dyn_cast_or_null<DenseElementsAttr>(global.getConstantInitValue())
            : nullptr;
    if (!values)
      continue;
    SmallVector<uint64_t> index;
    for (Value position : load.getIndices())
      if (std::optional<int64_t> constant = getConstantIntValue(position))
        index.push_back(*constant);
    ElementsAttr elements = values;
    if (index.size() != load.getIndices().size() ||
        !elements.isValidIndex(index))
      continue;
    OpBuilder builder(load);
    Value value = arith::ConstantOp::create(
        builder, load.getLoc(),
        cast<TypedAttr>(
            values.getValues<Attribute>()[elements.getFlattenedIndex(index)]));
    load.replaceAllUsesWith(value);
    load.erase();
  }
}

/// Rewrites f64 powers with an integer exponent (the optimizer's bias
/// correction, 1 - beta^step, powers its betas in f64 as ORT does) as
/// multiplications, which kernels can compute. The result is within a few
/// f64 rounding errors of libm's pow (one per squaring and product), so
/// rounded to f32 it is the same except within ~1e-14 of an f32 rounding
/// boundary.
void rewriteIntegerPowers(func::FuncOp function) {
  SmallVector<math::PowFOp> powers;
  function.walk([&](math::PowFOp power) {
    auto exponent = power.getRhs().getDefiningOp<arith::SIToFPOp>();
    if (power.getType().isF64() && exponent)
      powers.push_back(power);
  });
  for (math::PowFOp power : powers) {
    OpBuilder builder(power);
    Value exponent = power.getRhs().getDefiningOp<arith::SIToFPOp>().getIn();
    power.replaceAllUsesWith(
        buildIntegerPower(builder, power.getLoc(), power.getLhs(), exponent));
    power.erase();
  }
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
  // An op with regions (an integer power's loop) also reads what its
  // regions use from above.
  llvm::SetVector<Value> inputs(def->getOperands().begin(),
                                def->getOperands().end());
  for (Region &region : def->getRegions())
    getUsedValuesDefinedAbove(region, inputs);
  bool operandsReadDevice = false;
  llvm::SetVector<Operation *> operandChain;
  for (Value input : inputs)
    if (!collectDeviceChain(input, loop, operandChain, operandsReadDevice))
      return false;
  if (!operandsReadDevice)
    return true; // host arithmetic on sizes and constants: a parameter
  if (!isMemoryEffectFree(def) || !isLowerableInKernels(def))
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
    rewriteIntegerPowers(getOperation());
    foldConstantGlobalLoads(getOperation());
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
