//===- RecurrentGrad.cpp - RNNGrad, GRUGrad, LSTMGrad -> linalg ----------===//
//
// Back-propagation through time for the recurrent ops (Recurrent.cpp has
// the shape of the code they share with the forward lowering): the loop
// runs backwards and keeps each step's gate gradients, so that the weight
// gradients, the bias gradients and dX are single products over all steps
// after the loop.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/RecurrentUtil.h"

namespace odt::codegen::recurrent {
namespace {

/// The gradient ops' extra operands after the forward ones.
struct Saved {
  Value hAll, cAll, gates, gradHAll, gradYH, gradYC;
};

struct GradientResults {
  Value dX, dW, dR, dB, dH0, dC0, dP;
};

/// The state each step started from, in time order: `initial` at the first
/// processed step, else the state the previous processed step produced
/// (`all` shifted by one step against the processing direction).
Value previousStates(Emitter &e, Value all, Value initial, bool reverse) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  OpFoldResult steps = e.size(all, 0), batch = e.size(all, 1),
               width = e.size(all, 2);
  Value stepCount = getValueOrCreateConstantIndexOp(b, loc, steps);
  Value rest = subIndex(b, loc, stepCount, indexConstant(b, loc, 1));
  Value result = e.empty({steps, batch, width});
  // Forward: [initial, all[0 .. S-2]]; reverse: [all[1 .. S-1], initial].
  OpFoldResult initialAt = reverse ? OpFoldResult(rest) : e.idx(0);
  OpFoldResult from = reverse ? e.idx(1) : e.idx(0);
  OpFoldResult to = reverse ? e.idx(0) : e.idx(1);
  Value moved =
      e.extract(all, {from, e.idx(0), e.idx(0)}, {rest, batch, width});
  result =
      e.insert(moved, result, {to, e.idx(0), e.idx(0)}, {rest, batch, width});
  return e.insert(initial, result, {initialAt, e.idx(0), e.idx(0)},
                  {e.idx(1), batch, width});
}

/// What one step back through time reads: the gradient reaching h (and
/// c), the step's saved states and gates, the weights.
struct BackStepInputs {
  Emitter &e;
  const Config &config;
  const DirectionWeights &wt;
  int64_t hidden;
  int64_t d;
  /// The activations f and g of the direction.
  StringRef f, g;
  Value t, dh, dcNext, hPrev, cPrev, hCur, stepGates, cAll;
  bool peep;
  SmallVector<Value> peepAcc;
  SmallVector<OpFoldResult> shape;

  /// Gate block `gIndex` of a [N, G*H] tensor.
  Value block(Value m, int64_t gIndex) const {
    return e.columns(m, gIndex * hidden, hidden);
  }
};

/// One step's gradients: per gate block [N, H], those of the input
/// products (dGx) and of the recurrent ones (dGh); dh_prev's part that
/// does not go through R; the cell state's gradient (LSTM), the
/// peepholes' accumulators (LSTM), and the recurrent input r * h_prev of a
/// GRU without linear_before_reset.
struct BackStepGradients {
  SmallVector<Value> dGx, dGh;
  Value dhDirect, dcPrev, resetInputValue;
  SmallVector<Value> dPeep;
};

/// RNN: dPre = dh * f'(h).
BackStepGradients rnnStepGradients(const BackStepInputs &in) {
  BackStepGradients out;
  Value dPre =
      in.e.elementwise(
              {in.dh, in.hCur}, 1, in.shape,
              [&](OpBuilder &nb, Location nl, ValueRange s) {
                return SmallVector<Value>{arith::MulFOp::create(
                    nb, nl, s[0], activationSlope(nb, nl, s[1], in.f))};
              })
          .front();
  out.dGx = {dPre};
  out.dGh = {dPre};
  return out;
}

/// GRU: dz, dr, dh~ from the saved gates (h~'s product with r recomputed
/// for r's gradient with linear_before_reset).
BackStepGradients gruStepGradients(const BackStepInputs &in) {
  BackStepGradients out;
  Value z = in.block(in.stepGates, 0), r = in.block(in.stepGates, 1),
        candidate = in.block(in.stepGates, 2);
  // dz, dr's factor and d(pre_h), and h_prev's direct part.
  SmallVector<Value> parts = in.e.elementwise(
      {in.dh, z, candidate, in.hPrev}, 3, in.shape,
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        Type type = s[0].getType();
        Value one = constant(nb, nl, type, 1.0);
        Value dz = arith::MulFOp::create(
            nb, nl, s[0], arith::SubFOp::create(nb, nl, s[3], s[2]));
        Value dCandidate = arith::MulFOp::create(
            nb, nl, s[0], arith::SubFOp::create(nb, nl, one, s[1]));
        Value dPreZ = arith::MulFOp::create(
            nb, nl, dz, activationSlope(nb, nl, s[1], in.f));
        Value dPreH = arith::MulFOp::create(
            nb, nl, dCandidate, activationSlope(nb, nl, s[2], in.g));
        Value direct = arith::MulFOp::create(nb, nl, s[0], s[1]);
        return SmallVector<Value>{dPreZ, dPreH, direct};
      });
  Value dPreZ = parts[0], dPreH = parts[1];
  out.dhDirect = parts[2];
  Value dPreR;
  if (in.config.linearBeforeReset) {
    // pre_h = xh + r * (h_prev Rh^T + Rbh).
    Value hhInit =
        in.wt.recurrentBias
            ? in.e.broadcastRows(
                  in.e.slice1D(in.wt.recurrentBias, 2 * in.hidden, in.hidden),
                  in.shape[0])
            : Value();
    Value hh =
        in.e.matmul(in.hPrev, false,
                    in.e.rows(in.wt.r, 2 * in.hidden, in.hidden), true, hhInit);
    SmallVector<Value> rParts = in.e.elementwise(
        {dPreH, hh, r}, 2, in.shape,
        [&](OpBuilder &nb, Location nl, ValueRange s) {
          Value dr = arith::MulFOp::create(nb, nl, s[0], s[1]);
          return SmallVector<Value>{
              arith::MulFOp::create(nb, nl, dr,
                                    activationSlope(nb, nl, s[2], in.f)),
              arith::MulFOp::create(nb, nl, s[0], s[2])};
        });
    dPreR = rParts[0];
    out.dGx = {dPreZ, dPreR, dPreH};
    out.dGh = {dPreZ, dPreR, rParts[1]};
  } else {
    // pre_h = xh + (r * h_prev) Rh^T + Rbh.
    Value dResetInput = in.e.matmul(
        dPreH, false, in.e.rows(in.wt.r, 2 * in.hidden, in.hidden), false);
    SmallVector<Value> rParts = in.e.elementwise(
        {dResetInput, in.hPrev, r, out.dhDirect}, 3, in.shape,
        [&](OpBuilder &nb, Location nl, ValueRange s) {
          Value dr = arith::MulFOp::create(nb, nl, s[0], s[1]);
          Value dPre = arith::MulFOp::create(
              nb, nl, dr, activationSlope(nb, nl, s[2], in.f));
          Value direct = arith::AddFOp::create(
              nb, nl, s[3], arith::MulFOp::create(nb, nl, s[0], s[2]));
          Value input = arith::MulFOp::create(nb, nl, s[2], s[1]);
          return SmallVector<Value>{dPre, direct, input};
        });
    dPreR = rParts[0];
    out.dhDirect = rParts[1];
    out.resetInputValue = rParts[2];
    out.dGx = {dPreZ, dPreR, dPreH};
    out.dGh = {dPreZ, dPreR, dPreH};
  }
  return out;
}

/// LSTM with IOFC = i, o, f, c~ after activation.
BackStepGradients lstmStepGradients(const BackStepInputs &in) {
  BackStepGradients out;
  // LSTM with IOFC = i, o, f, c~ after activation.
  Value gi = in.block(in.stepGates, 0), go = in.block(in.stepGates, 1),
        gf = in.block(in.stepGates, 2), gc = in.block(in.stepGates, 3);
  Value cCur = in.e.plane(in.cAll, in.t);
  StringRef hFn = in.config.activations[in.d][2].name;
  SmallVector<Value> ins = {in.dh, in.dcNext, gi, go, gf, gc, cCur, in.cPrev};
  if (in.peep) {
    ins.push_back(in.e.slice1D(in.wt.peepholes, 0, in.hidden));
    ins.push_back(in.e.slice1D(in.wt.peepholes, in.hidden, in.hidden));
    ins.push_back(in.e.slice1D(in.wt.peepholes, 2 * in.hidden, in.hidden));
  }
  SmallVector<Value> parts = in.e.elementwise(
      ins, 5, in.shape,
      [&](OpBuilder &nb, Location nl, ValueRange s) {
        auto mul = [&](Value x, Value y) {
          return arith::MulFOp::create(nb, nl, x, y).getResult();
        };
        auto add = [&](Value x, Value y) {
          return arith::AddFOp::create(nb, nl, x, y).getResult();
        };
        Value dhv = s[0], dcn = s[1], i = s[2], og = s[3], fg = s[4],
              cand = s[5], c = s[6], cp = s[7];
        Value hc = activate(nb, nl, c, Activation{hFn.str()});
        Value dPreO = mul(mul(dhv, hc), activationSlope(nb, nl, og, in.f));
        Value dc =
            add(dcn, mul(mul(dhv, og), activationSlope(nb, nl, hc, hFn)));
        if (in.peep)
          dc = add(dc, mul(dPreO, s[9]));
        Value dPreI = mul(mul(dc, cand), activationSlope(nb, nl, i, in.f));
        Value dPreF = mul(mul(dc, cp), activationSlope(nb, nl, fg, in.f));
        Value dPreC = mul(mul(dc, i), activationSlope(nb, nl, cand, in.g));
        Value dcp = mul(dc, fg);
        if (in.peep)
          dcp = add(dcp, add(mul(dPreI, s[8]), mul(dPreF, s[10])));
        return SmallVector<Value>{dPreI, dPreO, dPreF, dPreC, dcp};
      },
      {Value(), Value(), Value(), Value(), in.dcNext});
  out.dGx = {parts[0], parts[1], parts[2], parts[3]};
  out.dGh = out.dGx;
  out.dcPrev = parts[4];
  if (in.peep) {
    // dPi += dPreI c_prev, dPo += dPreO c, dPf += dPreF c_prev.
    out.dPeep = in.e.elementwise(
        {in.peepAcc[0], in.peepAcc[1], in.peepAcc[2], parts[0], parts[1],
         parts[2], in.cPrev, cCur},
        3, in.shape,
        [&](OpBuilder &nb, Location nl, ValueRange s) {
          auto fma = [&](Value acc, Value x, Value y) {
            return arith::AddFOp::create(nb, nl, acc,
                                         arith::MulFOp::create(nb, nl, x, y))
                .getResult();
          };
          return SmallVector<Value>{fma(s[0], s[3], s[6]),
                                    fma(s[1], s[4], s[7]),
                                    fma(s[2], s[5], s[6])};
        },
        {in.peepAcc[0], in.peepAcc[1], in.peepAcc[2]});
  }
  return out;
}

/// After the loop back through time, direction `d`'s weight, bias, input
/// and initial-state gradients from the step gradients the loop kept
/// (`out`: its results), as products over all steps at once. `steps`,
/// `batch` and `inputs` are X's sizes.
void addDirectionGradients(Emitter &e, const Config &config,
                           const DirectionWeights &wt, int64_t d,
                           int64_t hidden, OpFoldResult steps,
                           OpFoldResult batch, OpFoldResult inputs, Value flatX,
                           Value hPrevAll, ValueRange out,
                           GradientResults &results) {
  Cell cell = config.cell;
  bool lstm = cell == Cell::LSTM;
  bool resetInput = cell == Cell::GRU && !config.linearBeforeReset;
  bool peep = lstm && static_cast<bool>(wt.peepholes);
  int64_t gateRows = gateCount(cell) * hidden;
  OpFoldResult h = e.idx(hidden);
  unsigned a = 0;
  Value dhFinal = out[a++];
  Value dcFinal = lstm ? out[a++] : Value();
  Value dGxAll = e.flatten(out[a++]), dGhAll = e.flatten(out[a++]);
  Value hPrevFlat = e.flatten(hPrevAll);
  Value resetAll = resetInput ? e.flatten(out[a++]) : Value();
  // After the loop: the products over all steps at once.
  Value dW = e.matmul(dGxAll, true, flatX, false); // [G*H, I]
  Value dR;
  if (resetInput) {
    Value dRzr =
        e.matmul(e.columns(dGhAll, 0, 2 * hidden), true, hPrevFlat, false);
    Value dRh =
        e.matmul(e.columns(dGhAll, 2 * hidden, hidden), true, resetAll, false);
    dR = e.empty({e.idx(gateRows), h});
    dR = e.insert(dRzr, dR, {e.idx(0), e.idx(0)}, {e.idx(2 * hidden), h});
    dR = e.insert(dRh, dR, {e.idx(2 * hidden), e.idx(0)}, {h, h});
  } else {
    dR = e.matmul(dGhAll, true, hPrevFlat, false);
  }
  Value dBias = e.empty({e.idx(2 * gateRows)});
  dBias = e.insert(e.sumRows(dGxAll), dBias, {e.idx(0)}, {e.idx(gateRows)});
  dBias =
      e.insert(e.sumRows(dGhAll), dBias, {e.idx(gateRows)}, {e.idx(gateRows)});
  Value dXd = e.unflatten(e.matmul(dGxAll, false, wt.w, false), steps, batch);
  results.dX = e.elementwise({results.dX, dXd}, 1, {steps, batch, inputs},
                             [&](OpBuilder &nb, Location nl, ValueRange s) {
                               return SmallVector<Value>{
                                   arith::AddFOp::create(nb, nl, s[0], s[1])};
                             })
                   .front();
  auto atDirection = [&](Value part, Value whole) {
    auto type = cast<RankedTensorType>(part.getType());
    SmallVector<OpFoldResult> offsets = {e.idx(d)}, sizes = {e.idx(1)};
    for (int64_t i = 0; i < type.getRank(); ++i) {
      offsets.push_back(e.idx(0));
      sizes.push_back(e.size(part, i));
    }
    return e.insert(part, whole, offsets, sizes);
  };
  results.dW = atDirection(dW, results.dW);
  results.dR = atDirection(dR, results.dR);
  results.dB = atDirection(dBias, results.dB);
  // Copies, as for the forward's final states.
  results.dH0 = atDirection(e.state({batch, h}, dhFinal), results.dH0);
  if (lstm) {
    results.dC0 = atDirection(e.state({batch, h}, dcFinal), results.dC0);
    Value dPd = e.empty({e.idx(3 * hidden)});
    if (peep) {
      for (int i = 0; i < 3; ++i)
        dPd = e.insert(e.sumRows(out[a + i]), dPd, {e.idx(i * hidden)}, {h});
    } else {
      dPd = e.zeros({e.idx(3 * hidden)});
    }
    results.dP = atDirection(dPd, results.dP);
  }
}

GradientResults buildBackward(Emitter &e, const Config &config,
                              const Operands &o, const Saved &saved,
                              int64_t hidden) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Cell cell = config.cell;
  bool lstm = cell == Cell::LSTM, gru = cell == Cell::GRU;
  int64_t gates = gateCount(cell);
  int64_t gateRows = gates * hidden;
  OpFoldResult steps = e.size(o.x, 0), batch = e.size(o.x, 1);
  OpFoldResult h = e.idx(hidden), d0 = e.idx(config.directions);
  OpFoldResult inputs = e.size(o.x, 2);
  Value stepCount = getValueOrCreateConstantIndexOp(b, loc, steps);
  GradientResults results;
  results.dX = e.zeros({steps, batch, inputs});
  results.dW = e.empty({d0, e.idx(gateRows), inputs});
  results.dR = e.empty({d0, e.idx(gateRows), h});
  results.dB = e.empty({d0, e.idx(2 * gateRows)});
  results.dH0 = e.empty({d0, batch, h});
  if (lstm) {
    results.dC0 = e.empty({d0, batch, h});
    results.dP = e.empty({d0, e.idx(3 * hidden)});
  }
  Value flatX = e.flatten(o.x);

  for (int64_t d = 0; d < config.directions; ++d) {
    bool reverse = config.isReverse(d);
    DirectionWeights wt = directionWeights(e, o, d, gateRows);
    StringRef f = config.activations[d][0].name;
    StringRef g =
        cell == Cell::RNN ? f : StringRef(config.activations[d][1].name);
    auto dirSeq = [&](Value all) { // [S, D, N, K] -> [S, N, K] of direction d
      return e.extract(all, {e.idx(0), e.idx(d), e.idx(0), e.idx(0)},
                       {steps, e.idx(1), batch, e.size(all, 3)}, {1});
    };
    Value hAll = dirSeq(saved.hAll);
    Value gatesAll = saved.gates ? dirSeq(saved.gates) : Value();
    Value cAll = lstm ? dirSeq(saved.cAll) : Value();
    Value gradH = saved.gradHAll ? dirSeq(saved.gradHAll) : Value();
    Value h0 = o.initialH ? e.direction(o.initialH, d) : e.zeros({batch, h});
    Value c0 =
        lstm ? (o.initialC ? e.direction(o.initialC, d) : e.zeros({batch, h}))
             : Value();
    Value hPrevAll = previousStates(e, hAll, h0, reverse);
    Value cPrevAll = lstm ? previousStates(e, cAll, c0, reverse) : Value();
    Value dh0 = e.state({batch, h},
                        saved.gradYH ? e.direction(saved.gradYH, d) : Value());
    Value dc0 =
        lstm ? e.state({batch, h},
                       saved.gradYC ? e.direction(saved.gradYC, d) : Value())
             : Value();
    bool peep = lstm && static_cast<bool>(wt.peepholes);

    // Carried: dh, [dc], dGx [S,N,G*H], dGh [S,N,G*H], [the h block's
    // recurrent input r * hPrev of a GRU without linear_before_reset],
    // [dP accumulators Pi, Po, Pf].
    SmallVector<Value> carried = {dh0};
    if (lstm)
      carried.push_back(dc0);
    carried.push_back(e.empty({steps, batch, e.idx(gateRows)}));
    carried.push_back(e.empty({steps, batch, e.idx(gateRows)}));
    bool resetInput = gru && !config.linearBeforeReset;
    if (resetInput)
      carried.push_back(e.empty({steps, batch, h}));
    if (peep)
      for (int i = 0; i < 3; ++i)
        carried.push_back(e.state({batch, h}));

    auto loop = scf::ForOp::create(
        b, loc, indexConstant(b, loc, 0), stepCount, indexConstant(b, loc, 1),
        carried, [&](OpBuilder &lb, Location l, Value kk, ValueRange args) {
          Emitter le{lb, l, e.element};
          // Backwards through the processing order.
          Value last = subIndex(lb, l, stepCount, indexConstant(lb, l, 1));
          Value k = subIndex(lb, l, last, kk);
          Value t = timeIndex(lb, l, k, stepCount, reverse);
          unsigned a = 0;
          Value dhNext = args[a++];
          Value dcNext = lstm ? args[a++] : Value();
          Value dGxAcc = args[a++], dGhAcc = args[a++];
          Value resetAcc = resetInput ? args[a++] : Value();
          SmallVector<Value> peepAcc;
          if (peep)
            peepAcc = {args[a], args[a + 1], args[a + 2]};
          Value hPrev = le.plane(hPrevAll, t);
          Value cPrev = lstm ? le.plane(cPrevAll, t) : Value();
          Value hCur = le.plane(hAll, t);
          Value stepGates = gatesAll ? le.plane(gatesAll, t) : Value();
          SmallVector<OpFoldResult> shape = {le.size(hCur, 0), h};
          // dh = dY[t] + the carried gradient.
          Value dh = dhNext;
          if (gradH)
            dh =
                le.elementwise({dhNext, le.plane(gradH, t)}, 1, shape,
                               [&](OpBuilder &nb, Location nl, ValueRange s) {
                                 return SmallVector<Value>{
                                     arith::AddFOp::create(nb, nl, s[0], s[1])};
                               })
                    .front();
          BackStepInputs in{le,   config,    wt,   hidden, d,       f,
                            g,    t,         dh,   dcNext, hPrev,   cPrev,
                            hCur, stepGates, cAll, peep,   peepAcc, shape};
          BackStepGradients step = cell == Cell::RNN ? rnnStepGradients(in)
                                   : gru             ? gruStepGradients(in)
                                                     : lstmStepGradients(in);
          SmallVector<Value> &dGx = step.dGx, &dGh = step.dGh;
          Value dhDirect = step.dhDirect, dcPrev = step.dcPrev;
          SmallVector<Value> &dPeep = step.dPeep;
          Value resetInputValue = step.resetInputValue;
          // Store the step's gate gradients and recurrent inputs.
          SmallVector<OpFoldResult> one = {le.idx(1), shape[0], h};
          for (int64_t gi = 0; gi < gates; ++gi) {
            SmallVector<OpFoldResult> at = {t, le.idx(0), le.idx(gi * hidden)};
            dGxAcc = le.insert(dGx[gi], dGxAcc, at, one);
            dGhAcc = le.insert(dGh[gi], dGhAcc, at, one);
          }
          SmallVector<OpFoldResult> row = {t, le.idx(0), le.idx(0)};
          if (resetInput)
            resetAcc = le.insert(resetInputValue, resetAcc, row, one);
          // dh_prev = direct part + dGh R (only the blocks that multiply
          // h_prev through R: all of them, but the h block of a GRU
          // without linear_before_reset, whose path went into dhDirect).
          Value dGhStep =
              le.extract(dGhAcc, {t, le.idx(0), le.idx(0)},
                         {le.idx(1), shape[0], le.idx(gateRows)}, {0});
          // The carried gradient's buffer is dead by now (dh was read
          // first): dh_prev is written into it.
          Value throughRInit =
              dhDirect ? Value()
                       : linalg::FillOp::create(
                             lb, l, ValueRange{constant(lb, l, e.element, 0.0)},
                             ValueRange{dhNext})
                             .getResult(0);
          Value throughR;
          if (resetInput)
            throughR = le.matmul(le.columns(dGhStep, 0, 2 * hidden), false,
                                 le.rows(wt.r, 0, 2 * hidden), false);
          else
            throughR = le.matmul(dGhStep, false, wt.r, false, throughRInit);
          Value dhPrev = throughR;
          if (dhDirect)
            dhPrev =
                le.elementwise({throughR, dhDirect}, 1, shape,
                               [&](OpBuilder &nb, Location nl, ValueRange s) {
                                 return SmallVector<Value>{
                                     arith::AddFOp::create(nb, nl, s[0], s[1])};
                               },
                               {dhNext})
                    .front();
          SmallVector<Value> yields = {dhPrev};
          if (lstm)
            yields.push_back(dcPrev);
          yields.append({dGxAcc, dGhAcc});
          if (resetInput)
            yields.push_back(resetAcc);
          if (peep)
            yields.append(dPeep.begin(), dPeep.end());
          scf::YieldOp::create(lb, l, yields);
        });
    addDirectionGradients(e, config, wt, d, hidden, steps, batch, inputs, flatX,
                          hPrevAll, loop.getResults(), results);
  }
  return results;
}

template <typename OpT, Cell cell>
struct LowerRecurrentGrad : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element;
    FailureOr<Config> config = readCellOp(op, cell, rewriter, element);
    if (failed(config))
      return failure();
    if (config->inputForget)
      return op.emitError() << "training an LSTM with input_forget is not "
                               "supported";
    Emitter e{rewriter, op.getLoc(), element};
    ValueRange all = adaptor.getOperands();
    Operands operands = readOperands(all, cell);
    auto optional = [&](unsigned i) {
      return isPresent(all[i]) ? all[i] : Value();
    };
    Saved saved;
    if (cell == Cell::LSTM) {
      saved = {all[8],       all[9],       all[10],
               optional(11), optional(12), optional(13)};
    } else if (cell == Cell::GRU) {
      saved = {all[6], Value(), all[7], optional(8), optional(9), Value()};
    } else {
      saved = {all[6], Value(), Value(), optional(7), optional(8), Value()};
    }
    GradientResults results =
        buildBackward(e, *config, operands, saved, hiddenSizeOf(op));
    SmallVector<Value> replacements = {results.dX, results.dW, results.dR,
                                       results.dB, results.dH0};
    if (cell == Cell::LSTM) {
      replacements.push_back(results.dC0);
      replacements.push_back(results.dP);
    }
    replaceWithResults(rewriter, op, replacements);
    return success();
  }
};

} // namespace

void populateRecurrentGradientPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRecurrentGrad<onnx::RNNGradOp, Cell::RNN>,
               LowerRecurrentGrad<onnx::GRUGradOp, Cell::GRU>,
               LowerRecurrentGrad<onnx::LSTMGradOp, Cell::LSTM>>(
      patterns.getContext());
}

} // namespace odt::codegen::recurrent
