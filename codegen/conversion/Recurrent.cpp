//===- Recurrent.cpp - RNN, GRU, LSTM and their gradients -> linalg -------===//
//
// Every recurrent op lowers to the same shape of code, per direction:
//  1. the input products of all time steps at once, X [S*N, I] W^T + Wb
//     (one matrix product: the weights are read once per step, not once per
//     time step);
//  2. an scf.for over time carrying the hidden (and cell) state: the
//     recurrent product h R^T + Rb, then the gates as one elementwise
//     linalg.generic over [N, H] (blocks of the products sliced by gate);
//     each step's outputs are inserted into the sequence results.
// The gradients run the loop backwards (back-propagation through time)
// and keep each step's gate gradients, so that the weight gradients, the
// bias gradients and dX are again single products over all steps after the
// loop. Recurrent.td has the shapes; ops arrive in layout 0 (layout 1 is
// rewritten into transposes around them by odt-decompose-composite-ops).
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/RecurrentUtil.h"

namespace odt::codegen {
namespace {

using namespace recurrent;

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

struct ForwardResults {
  Value y, yH, yC, gates, cAll;
};

/// What one time step of a cell reads (buildForward's loop body): the
/// step's input product `xp` and recurrent product `hp`, the previous
/// state, the sequence lengths and the step's time as i32 (when given).
struct StepInputs {
  Emitter &e;
  const Config &config;
  ArrayRef<Activation> fns;
  const DirectionWeights &wt;
  int64_t hidden;
  Value xp, hp, hPrev, cPrev, lens, tI32;
  SmallVector<OpFoldResult> shape;

  /// Gate block `g` of a [N, G*H] product.
  Value block(Value m, int64_t g) const {
    return e.columns(m, g * hidden, hidden);
  }
  /// `v` clipped to [-clip, clip] when the op has a clip.
  Value clipped(OpBuilder &nb, Location nl, Value v) const {
    if (!config.clip)
      return v;
    Type type = v.getType();
    return arith::MaximumFOp::create(
        nb, nl, constant(nb, nl, type, -*config.clip),
        arith::MinimumFOp::create(nb, nl, constant(nb, nl, type, *config.clip),
                                  v));
  }
  /// The mask of sequence_lens: steps at or past a sequence's length keep
  /// its state (`kept`) instead of the `fresh` one.
  Value masked(OpBuilder &nb, Location nl, Value length, Value fresh,
               Value kept) const {
    if (!length)
      return fresh;
    Value live =
        arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, tI32, length);
    return arith::SelectOp::create(nb, nl, live, fresh, kept);
  }
  /// A GRU's new state h = (1 - z) * h~ + z * h_prev, masked by `length`.
  Value gruUpdate(OpBuilder &nb, Location nl, Value z, Value candidate,
                  Value previous, Value length) const {
    Type type = z.getType();
    Value keep = arith::MulFOp::create(nb, nl, z, previous);
    Value take = arith::MulFOp::create(
        nb, nl, arith::SubFOp::create(nb, nl, constant(nb, nl, type, 1.0), z),
        candidate);
    Value hn = arith::AddFOp::create(nb, nl, take, keep);
    return masked(nb, nl, length, hn, previous);
  }
};

/// RNN: h = f(x W^T + h R^T); yields the new h.
SmallVector<Value> rnnStep(const StepInputs &in) {
  SmallVector<Value> inputs = {in.xp, in.hp, in.hPrev};
  if (in.lens)
    inputs.push_back(in.lens);
  return in.e.elementwise(
      inputs, 1, in.shape,
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        Value pre =
            in.clipped(nb, nl, arith::AddFOp::create(nb, nl, s[0], s[1]));
        Value hn = activate(nb, nl, pre, in.fns[0]);
        return SmallVector<Value>{
            in.masked(nb, nl, in.lens ? s[3] : Value(), hn, s[2])};
      },
      {in.hPrev});
}

/// GRU with linear_before_reset: z, r, h~ from one recurrent product;
/// yields the new h and z, r, h~.
SmallVector<Value> gruStepLinearBeforeReset(const StepInputs &in) {
  SmallVector<Value> inputs = {in.block(in.xp, 0),
                               in.block(in.xp, 1),
                               in.block(in.xp, 2),
                               in.block(in.hp, 0),
                               in.block(in.hp, 1),
                               in.block(in.hp, 2),
                               in.hPrev};
  if (in.lens)
    inputs.push_back(in.lens);
  return in.e.elementwise(
      inputs, 4, in.shape,
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        auto add = [&](Value a, Value c) {
          return in.clipped(nb, nl, arith::AddFOp::create(nb, nl, a, c));
        };
        Value z = activate(nb, nl, add(s[0], s[3]), in.fns[0]);
        Value r = activate(nb, nl, add(s[1], s[4]), in.fns[0]);
        Value candidate =
            activate(nb, nl,
                     in.clipped(nb, nl,
                                arith::AddFOp::create(
                                    nb, nl, s[2],
                                    arith::MulFOp::create(nb, nl, r, s[5]))),
                     in.fns[1]);
        Value hn =
            in.gruUpdate(nb, nl, z, candidate, s[6], in.lens ? s[7] : Value());
        return SmallVector<Value>{hn, z, r, candidate};
      },
      {in.hPrev});
}

/// GRU: r multiplies h before the h~ block's own product; yields the new
/// h and z, r, h~.
SmallVector<Value> gruStep(const StepInputs &in) {
  SmallVector<Value> inputs = {in.block(in.xp, 0), in.block(in.xp, 1),
                               in.block(in.hp, 0), in.block(in.hp, 1),
                               in.hPrev};
  SmallVector<Value> gatesZR = in.e.elementwise(
      inputs, 3, in.shape, [&](OpBuilder &nb, Location nl, ValueRange s) {
        auto add = [&](Value a, Value c) {
          return in.clipped(nb, nl, arith::AddFOp::create(nb, nl, a, c));
        };
        Value z = activate(nb, nl, add(s[0], s[2]), in.fns[0]);
        Value r = activate(nb, nl, add(s[1], s[3]), in.fns[0]);
        return SmallVector<Value>{z, r, arith::MulFOp::create(nb, nl, r, s[4])};
      });
  Value rhInit =
      in.wt.recurrentBias
          ? in.e.broadcastRows(
                in.e.slice1D(in.wt.recurrentBias, 2 * in.hidden, in.hidden),
                in.e.size(in.hPrev, 0))
          : Value();
  Value hh =
      in.e.matmul(gatesZR[2], false,
                  in.e.rows(in.wt.r, 2 * in.hidden, in.hidden), true, rhInit);
  inputs = {in.block(in.xp, 2), hh, gatesZR[0], in.hPrev};
  if (in.lens)
    inputs.push_back(in.lens);
  SmallVector<Value> out = in.e.elementwise(
      inputs, 2, in.shape,
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        Value candidate = activate(
            nb, nl,
            in.clipped(nb, nl, arith::AddFOp::create(nb, nl, s[0], s[1])),
            in.fns[1]);
        Value hn = in.gruUpdate(nb, nl, s[2], candidate, s[3],
                                in.lens ? s[4] : Value());
        return SmallVector<Value>{hn, candidate};
      },
      {in.hPrev});
  return {out[0], gatesZR[0], gatesZR[1], out[1]};
}

/// LSTM: i, o, f, c blocks, peepholes P = [Pi, Po, Pf]; yields the new h
/// and c and i, o, f, c~.
SmallVector<Value> lstmStep(const StepInputs &in) {
  SmallVector<Value> inputs = {in.block(in.xp, 0), in.block(in.xp, 1),
                               in.block(in.xp, 2), in.block(in.xp, 3),
                               in.block(in.hp, 0), in.block(in.hp, 1),
                               in.block(in.hp, 2), in.block(in.hp, 3),
                               in.cPrev,           in.hPrev};
  bool peep = static_cast<bool>(in.wt.peepholes);
  if (peep) {
    inputs.push_back(in.e.slice1D(in.wt.peepholes, 0, in.hidden));
    inputs.push_back(in.e.slice1D(in.wt.peepholes, in.hidden, in.hidden));
    inputs.push_back(in.e.slice1D(in.wt.peepholes, 2 * in.hidden, in.hidden));
  }
  if (in.lens)
    inputs.push_back(in.lens);
  return in.e.elementwise(
      inputs, 6, in.shape,
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        auto add = [&](Value a, Value c) {
          return arith::AddFOp::create(nb, nl, a, c).getResult();
        };
        auto mul = [&](Value a, Value c) {
          return arith::MulFOp::create(nb, nl, a, c).getResult();
        };
        Value c = s[8], hp0 = s[9];
        Value preI = add(s[0], s[4]), preO = add(s[1], s[5]),
              preF = add(s[2], s[6]), preC = add(s[3], s[7]);
        if (peep) {
          preI = add(preI, mul(s[10], c));
          preF = add(preF, mul(s[12], c));
        }
        Value i = activate(nb, nl, in.clipped(nb, nl, preI), in.fns[0]);
        Type type = i.getType();
        Value f =
            in.config.inputForget
                ? arith::SubFOp::create(nb, nl, constant(nb, nl, type, 1.0), i)
                      .getResult()
                : activate(nb, nl, in.clipped(nb, nl, preF), in.fns[0]);
        Value candidate = activate(nb, nl, in.clipped(nb, nl, preC), in.fns[1]);
        Value cn = add(mul(f, c), mul(i, candidate));
        if (peep)
          preO = add(preO, mul(s[11], cn));
        Value og = activate(nb, nl, in.clipped(nb, nl, preO), in.fns[0]);
        Value hn = mul(og, activate(nb, nl, cn, in.fns[2]));
        Value length = in.lens ? s[peep ? 13 : 10] : Value();
        hn = in.masked(nb, nl, length, hn, hp0);
        cn = in.masked(nb, nl, length, cn, c);
        return SmallVector<Value>{hn, cn, i, og, f, candidate};
      },
      {in.hPrev, in.cPrev});
}

/// The forward pass of every direction; `training` also fills the gates
/// of every step (and the cell states).
FailureOr<ForwardResults> buildForward(Emitter &e, const Config &config,
                                       const Operands &o, int64_t hidden,
                                       bool training) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t gates = gateCount(config.cell);
  int64_t gateRows = gates * hidden;
  bool lstm = config.cell == Cell::LSTM, gru = config.cell == Cell::GRU;
  OpFoldResult steps = e.size(o.x, 0), batch = e.size(o.x, 1);
  Value stepCount = getValueOrCreateConstantIndexOp(b, loc, steps);
  OpFoldResult h = e.idx(hidden), d0 = e.idx(config.directions);
  ForwardResults results;
  results.y = e.empty({steps, d0, batch, h});
  results.yH = e.empty({d0, batch, h});
  if (lstm)
    results.yC = e.empty({d0, batch, h});
  if (training) {
    results.gates = e.empty({steps, d0, batch, e.idx(gateRows)});
    if (lstm)
      results.cAll = e.empty({steps, d0, batch, h});
  }
  Value lens;
  if (o.sequenceLens)
    lens = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get(
            {cast<RankedTensorType>(o.sequenceLens.getType()).getDimSize(0), 1},
            b.getI32Type()),
        o.sequenceLens, SmallVector<ReassociationIndices>{{0, 1}},
        SmallVector<OpFoldResult>{batch, e.idx(1)});
  Value flatX = e.flatten(o.x);

  for (int64_t d = 0; d < config.directions; ++d) {
    bool reverse = config.isReverse(d);
    DirectionWeights wt = directionWeights(e, o, d, gateRows);
    ArrayRef<Activation> fns = config.activations[d];
    // 1. All input products at once: [S * N, G*H].
    Value init = wt.inputBias ? e.broadcastRows(wt.inputBias, e.size(flatX, 0))
                              : Value();
    Value projected =
        e.unflatten(e.matmul(flatX, false, wt.w, true, init), steps, batch);
    Value h0 =
        e.state({batch, h}, o.initialH ? e.direction(o.initialH, d) : Value());
    Value c0;
    if (lstm)
      c0 = e.state({batch, h},
                   o.initialC ? e.direction(o.initialC, d) : Value());
    // GRU without linear_before_reset multiplies r into h before the h
    // block's product: the step's first product covers z and r only.
    int64_t firstRows =
        gru && !config.linearBeforeReset ? 2 * hidden : gateRows;
    Value recurrentFirst = e.rows(wt.r, 0, firstRows);
    Value recurrentBiasFirst =
        wt.recurrentBias ? e.slice1D(wt.recurrentBias, 0, firstRows) : Value();

    SmallVector<Value> carried = {h0};
    if (lstm)
      carried.push_back(c0);
    Value yDir = e.empty({steps, batch, h});
    carried.push_back(yDir);
    if (training) {
      carried.push_back(e.empty({steps, batch, e.idx(gateRows)}));
      if (lstm)
        carried.push_back(e.empty({steps, batch, h}));
    }
    auto loop = scf::ForOp::create(
        b, loc, indexConstant(b, loc, 0), stepCount, indexConstant(b, loc, 1),
        carried, [&](OpBuilder &lb, Location l, Value k, ValueRange args) {
          Emitter le{lb, l, e.element};
          Value t = timeIndex(lb, l, k, stepCount, reverse);
          Value hPrev = args[0];
          Value cPrev = lstm ? args[1] : Value();
          unsigned next = lstm ? 2 : 1;
          Value yAcc = args[next];
          Value gatesAcc = training ? args[next + 1] : Value();
          Value cAllAcc = training && lstm ? args[next + 2] : Value();
          Value xp = le.plane(projected, t);
          Value hpInit =
              recurrentBiasFirst
                  ? le.broadcastRows(recurrentBiasFirst, le.size(hPrev, 0))
                  : Value();
          Value hp = le.matmul(hPrev, false, recurrentFirst, true, hpInit);
          // The mask of sequence_lens needs the step's time as i32.
          Value tI32 =
              lens ? arith::IndexCastOp::create(lb, l, lb.getI32Type(), t)
                         .getResult()
                   : Value();
          StepInputs step{le,     config, fns,  wt,
                          hidden, xp,     hp,   hPrev,
                          cPrev,  lens,   tI32, {le.size(hPrev, 0), h}};
          SmallVector<OpFoldResult> shape = step.shape;
          SmallVector<Value> stepOut; // new h, [new c], saved gate blocks
          if (config.cell == Cell::RNN)
            stepOut = rnnStep(step);
          else if (gru && config.linearBeforeReset)
            stepOut = gruStepLinearBeforeReset(step);
          else if (gru)
            stepOut = gruStep(step);
          else
            stepOut = lstmStep(step);
          Value hNew = stepOut[0];
          // The output: zeros past a sequence's length.
          Value output = hNew;
          if (lens) {
            output = le.elementwise(
                           {hNew, lens}, 1, shape,
                           [&](OpBuilder &nb, Location nl, ValueRange s) {
                             Value live = arith::CmpIOp::create(
                                 nb, nl, arith::CmpIPredicate::slt, tI32, s[1]);
                             return SmallVector<Value>{arith::SelectOp::create(
                                 nb, nl, live, s[0],
                                 constant(nb, nl, s[0].getType(), 0.0))};
                           })
                         .front();
          }
          SmallVector<OpFoldResult> row = {t, le.idx(0), le.idx(0)};
          SmallVector<OpFoldResult> one = {le.idx(1), shape[0], h};
          SmallVector<Value> yields = {hNew};
          if (lstm)
            yields.push_back(stepOut[1]);
          yields.push_back(le.insert(output, yAcc, row, one));
          if (training) {
            unsigned first = lstm ? 2 : 1;
            for (int64_t g = 0; g < gates; ++g)
              gatesAcc = le.insert(stepOut[first + g], gatesAcc,
                                   {t, le.idx(0), le.idx(g * hidden)}, one);
            yields.push_back(gatesAcc);
            if (lstm)
              yields.push_back(le.insert(stepOut[1], cAllAcc, row, one));
          }
          scf::YieldOp::create(lb, l, yields);
        });
    ValueRange out = loop.getResults();
    SmallVector<OpFoldResult> stateOffsets = {e.idx(d), e.idx(0), e.idx(0)};
    SmallVector<OpFoldResult> stateSizes = {e.idx(1), batch, h};
    // The final states are copied out: inserted as they are, the results'
    // buffers would become the loop's carried buffers (destination
    // passing), with their strided layout.
    results.yH = e.insert(e.state({batch, h}, out[0]), results.yH, stateOffsets,
                          stateSizes);
    unsigned next = 1;
    if (lstm)
      results.yC = e.insert(e.state({batch, h}, out[next++]), results.yC,
                            stateOffsets, stateSizes);
    SmallVector<OpFoldResult> seqOffsets = {e.idx(0), e.idx(d), e.idx(0),
                                            e.idx(0)};
    results.y = e.insert(out[next++], results.y, seqOffsets,
                         {steps, e.idx(1), batch, h});
    if (training) {
      results.gates = e.insert(out[next++], results.gates, seqOffsets,
                               {steps, e.idx(1), batch, e.idx(gateRows)});
      if (lstm)
        results.cAll = e.insert(out[next++], results.cAll, seqOffsets,
                                {steps, e.idx(1), batch, h});
    }
  }
  return results;
}

template <typename OpT, Cell cell, bool training>
struct LowerRecurrent : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element;
    FailureOr<Config> config = readCellOp(op, cell, rewriter, element);
    if (failed(config))
      return failure();
    if (config->reverseOnly || config->directions == 2)
      if (adaptor.getOperands().size() > 4 &&
          isPresent(adaptor.getOperands()[4]))
        return op.emitError()
               << "sequence_lens with direction "
               << (config->reverseOnly ? "reverse" : "bidirectional")
               << " is not supported";
    Emitter e{rewriter, op.getLoc(), element};
    Operands operands = readOperands(adaptor.getOperands(), cell);
    FailureOr<ForwardResults> results =
        buildForward(e, *config, operands, hiddenSizeOf(op), training);
    if (failed(results))
      return failure();
    SmallVector<Value> replacements = {results->y, results->yH};
    if (cell == Cell::LSTM)
      replacements.push_back(results->yC);
    if (training) {
      if (cell == Cell::LSTM)
        replacements.push_back(results->cAll);
      replacements.push_back(results->gates);
    }
    replaceWithResults(rewriter, op, replacements);
    return success();
  }
};

} // namespace

void populateRecurrentLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LowerRecurrent<onnx::RNNOp, Cell::RNN, false>,
               LowerRecurrent<onnx::GRUOp, Cell::GRU, false>,
               LowerRecurrent<onnx::LSTMOp, Cell::LSTM, false>,
               LowerRecurrent<onnx::GRUTrainingOp, Cell::GRU, true>,
               LowerRecurrent<onnx::LSTMTrainingOp, Cell::LSTM, true>>(context);
  recurrent::populateRecurrentGradientPatterns(patterns);
}

} // namespace odt::codegen
