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

#include "codegen/conversion/ShapeUtil.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;

namespace odt::codegen {
namespace {

enum class Cell { RNN, GRU, LSTM };

int64_t gateCount(Cell cell) {
  return cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
}

/// One activation function of the ONNX recurrent ops, with its parameters.
struct Activation {
  std::string name;
  double alpha = 0.0, beta = 0.0;
};

/// The attributes that shape the computation.
struct Config {
  Cell cell = Cell::RNN;
  int64_t directions = 1;
  bool reverseOnly = false;
  /// Per direction: f (RNN), f and g (GRU), f, g and h (LSTM).
  SmallVector<SmallVector<Activation, 3>, 2> activations;
  std::optional<double> clip;
  bool linearBeforeReset = false;
  bool inputForget = false;

  bool isReverse(int64_t direction) const {
    return reverseOnly || direction == 1;
  }
};

FailureOr<Config> readConfig(Operation *op, Cell cell) {
  Config config;
  config.cell = cell;
  StringRef direction = "forward";
  if (auto attr = op->getAttrOfType<StringAttr>("direction"))
    direction = attr.getValue();
  config.directions = direction == "bidirectional" ? 2 : 1;
  config.reverseOnly = direction == "reverse";
  if (auto clip = op->getAttrOfType<FloatAttr>("clip"))
    config.clip = clip.getValueAsDouble();
  if (auto lbr = op->getAttrOfType<IntegerAttr>("linear_before_reset"))
    config.linearBeforeReset = lbr.getInt() != 0;
  if (auto forget = op->getAttrOfType<IntegerAttr>("input_forget"))
    config.inputForget = forget.getInt() != 0;
  SmallVector<StringRef, 3> defaults =
      cell == Cell::RNN ? SmallVector<StringRef, 3>{"Tanh"}
      : cell == Cell::GRU
          ? SmallVector<StringRef, 3>{"Sigmoid", "Tanh"}
          : SmallVector<StringRef, 3>{"Sigmoid", "Tanh", "Tanh"};
  SmallVector<StringRef> names;
  if (auto list = op->getAttrOfType<ArrayAttr>("activations")) {
    for (Attribute a : list)
      names.push_back(cast<StringAttr>(a).getValue());
  } else {
    for (int64_t d = 0; d < config.directions; ++d)
      names.append(defaults.begin(), defaults.end());
  }
  ArrayRef<float> alphas, betas;
  if (auto a = op->getAttrOfType<DenseF32ArrayAttr>("activation_alpha"))
    alphas = a.asArrayRef();
  if (auto a = op->getAttrOfType<DenseF32ArrayAttr>("activation_beta"))
    betas = a.asArrayRef();
  size_t nextAlpha = 0, nextBeta = 0;
  auto take = [](ArrayRef<float> list, size_t &next, double fallback) {
    return next < list.size() ? static_cast<double>(list[next++]) : fallback;
  };
  config.activations.resize(config.directions);
  for (auto [index, name] : llvm::enumerate(names)) {
    Activation activation{name.str()};
    // ONNX's defaults; alpha and beta are consumed in order by the
    // functions that take them.
    if (name == "LeakyRelu")
      activation.alpha = take(alphas, nextAlpha, 0.01);
    else if (name == "ThresholdedRelu" || name == "Elu")
      activation.alpha = take(alphas, nextAlpha, 1.0);
    else if (name == "HardSigmoid") {
      activation.alpha = take(alphas, nextAlpha, 0.2);
      activation.beta = take(betas, nextBeta, 0.5);
    } else if (name == "Affine" || name == "ScaledTanh") {
      activation.alpha = take(alphas, nextAlpha, 1.0);
      activation.beta = take(betas, nextBeta, name == "Affine" ? 0.0 : 1.0);
    }
    config.activations[index / defaults.size()].push_back(activation);
  }
  return config;
}

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return createScalar(b, loc, type, value);
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(
      b, loc, constant(b, loc, t, 1.0),
      arith::AddFOp::create(b, loc, constant(b, loc, t, 1.0), e));
}

Value activate(OpBuilder &b, Location loc, Value x, const Activation &a) {
  Type t = x.getType();
  auto c = [&](double v) { return constant(b, loc, t, v); };
  StringRef name = a.name;
  if (name == "Tanh")
    return math::TanhOp::create(b, loc, x);
  if (name == "Sigmoid")
    return sigmoid(b, loc, x);
  if (name == "Relu")
    return arith::MaximumFOp::create(b, loc, x, c(0.0));
  if (name == "Affine")
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(a.alpha), x), c(a.beta));
  if (name == "LeakyRelu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0)),
        arith::MulFOp::create(b, loc, c(a.alpha), x), x);
  if (name == "ThresholdedRelu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(a.alpha)),
        x, c(0.0));
  if (name == "ScaledTanh")
    return arith::MulFOp::create(
        b, loc, c(a.alpha),
        math::TanhOp::create(b, loc,
                             arith::MulFOp::create(b, loc, c(a.beta), x)));
  if (name == "HardSigmoid") {
    Value linear = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(a.alpha), x), c(a.beta));
    return arith::MaximumFOp::create(
        b, loc, c(0.0), arith::MinimumFOp::create(b, loc, c(1.0), linear));
  }
  if (name == "Elu") {
    Value expm1 =
        arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), c(1.0));
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0)),
        arith::MulFOp::create(b, loc, c(a.alpha), expm1), x);
  }
  if (name == "Softsign")
    return arith::DivFOp::create(
        b, loc, x,
        arith::AddFOp::create(b, loc, c(1.0), math::AbsFOp::create(b, loc, x)));
  // Softplus, stably: max(x, 0) + log1p(exp(-|x|)).
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  return arith::AddFOp::create(b, loc,
                               arith::MaximumFOp::create(b, loc, x, c(0.0)),
                               math::Log1pOp::create(b, loc, e));
}

/// d activation / d input from the activation's output y (the training ops
/// support Sigmoid, Tanh and Relu).
Value activationSlope(OpBuilder &b, Location loc, Value y, StringRef name) {
  Type t = y.getType();
  Value one = constant(b, loc, t, 1.0);
  if (name == "Sigmoid")
    return arith::MulFOp::create(b, loc, y,
                                 arith::SubFOp::create(b, loc, one, y));
  if (name == "Relu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, y,
                              constant(b, loc, t, 0.0)),
        one, constant(b, loc, t, 0.0));
  // Tanh
  return arith::SubFOp::create(b, loc, one,
                               arith::MulFOp::create(b, loc, y, y));
}

/// Tensor building blocks on ranked tensors of one float element type.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Type element;

  OpFoldResult idx(int64_t v) { return b.getIndexAttr(v); }
  OpFoldResult size(Value tensor, int64_t d) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(d))
      return b.getIndexAttr(type.getDimSize(d));
    return dimValue(b, loc, tensor, d);
  }

  /// The slice of `source` at `offsets` with `sizes`, dropping the dims
  /// listed in `dropped` (each of size 1).
  Value extract(Value source, ArrayRef<OpFoldResult> offsets,
                ArrayRef<OpFoldResult> sizes, ArrayRef<int64_t> dropped = {}) {
    auto sourceType = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> shape;
    for (auto [d, s] : llvm::enumerate(sizes)) {
      if (llvm::is_contained(dropped, int64_t(d)))
        continue;
      // Static only where the size is an attribute: tensor.insert_slice
      // infers its slice type the same way.
      shape.push_back(isa<Attribute>(s) ? *getConstantIntValue(s)
                                        : ShapedType::kDynamic);
    }
    auto type = RankedTensorType::get(shape, sourceType.getElementType());
    SmallVector<OpFoldResult> strides(sizes.size(), idx(1));
    return tensor::ExtractSliceOp::create(b, loc, type, source, offsets, sizes,
                                          strides);
  }
  Value insert(Value source, Value dest, ArrayRef<OpFoldResult> offsets,
               ArrayRef<OpFoldResult> sizes) {
    SmallVector<OpFoldResult> strides(sizes.size(), idx(1));
    return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                         strides);
  }
  /// Columns [first, first + count) of a 2-D tensor.
  Value columns(Value matrix, int64_t first, int64_t count) {
    return extract(matrix, {idx(0), idx(first)}, {size(matrix, 0), idx(count)});
  }
  /// Rows [first, first + count) of a 2-D tensor.
  Value rows(Value matrix, int64_t first, int64_t count) {
    return extract(matrix, {idx(first), idx(0)}, {idx(count), size(matrix, 1)});
  }
  /// Row `index` (an index value or constant) of a 3-D tensor as 2-D.
  Value plane(Value tensor, OpFoldResult index) {
    return extract(tensor, {index, idx(0), idx(0)},
                   {idx(1), size(tensor, 1), size(tensor, 2)}, {0});
  }
  /// Direction `d` of a [D, A, B] tensor as [A, B].
  Value direction(Value tensor, int64_t d) { return plane(tensor, idx(d)); }
  /// Direction `d` of a [D, K] tensor as [K].
  Value vectorOf(Value tensor, int64_t d) {
    return extract(tensor, {idx(d), idx(0)}, {idx(1), size(tensor, 1)}, {0});
  }
  Value slice1D(Value vector, int64_t first, int64_t count) {
    return extract(vector, {idx(first)}, {idx(count)});
  }

  Value zeros(ArrayRef<OpFoldResult> sizes) {
    return createFilled(b, loc, sizes, element, 0.0);
  }
  Value empty(ArrayRef<OpFoldResult> sizes) {
    return createEmpty(b, loc, sizes, element);
  }
  /// A buffer of its own for a loop-carried state (its first value, a
  /// copy of `initial` or zeros): bufferization.alloc_tensor, which
  /// eliminate-empty-tensors leaves alone. Seeded from a slice of an
  /// argument or of a result, the carried buffer would get a fully dynamic
  /// layout, which the product kernels cannot read with vector loads.
  Value state(ArrayRef<OpFoldResult> sizes, Value initial = Value()) {
    // alloc_tensor copy(...) is a copy no canonicalization folds away (an
    // identity linalg.generic would be).
    if (initial)
      return bufferization::AllocTensorOp::create(
          b, loc, cast<RankedTensorType>(initial.getType()), ValueRange{},
          initial);
    SmallVector<Value> dynamic;
    SmallVector<int64_t> shape;
    for (OpFoldResult s : sizes) {
      if (isa<Attribute>(s)) {
        shape.push_back(*getConstantIntValue(s));
      } else {
        shape.push_back(ShapedType::kDynamic);
        dynamic.push_back(cast<Value>(s));
      }
    }
    Value buffer = bufferization::AllocTensorOp::create(
        b, loc, RankedTensorType::get(shape, element), dynamic);
    return linalg::FillOp::create(b, loc,
                                  ValueRange{constant(b, loc, element, 0.0)},
                                  ValueRange{buffer})
        .getResult(0);
  }

  /// `vector` [K] broadcast to [M, K].
  Value broadcastRows(Value vector, OpFoldResult rowCount) {
    Value init = empty({rowCount, size(vector, 0)});
    return buildElementwise(b, loc, {vector}, {init},
                            [](OpBuilder &, Location, ValueRange args) {
                              return SmallVector<Value>{args[0]};
                            })
        .front();
  }

  /// C = op(A) op(B) (+ init when given, else 0): a linalg.generic
  /// contraction in Gemm's form, which odt-vectorize-contractions tiles.
  Value matmul(Value a, bool transA, Value bMatrix, bool transB,
               Value init = Value()) {
    MLIRContext *context = b.getContext();
    OpFoldResult m = size(a, transA ? 1 : 0);
    OpFoldResult n = size(bMatrix, transB ? 0 : 1);
    if (!init)
      init = zeros({m, n});
    AffineExpr i = getAffineDimExpr(0, context),
               j = getAffineDimExpr(1, context),
               k = getAffineDimExpr(2, context);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0,
                       transA ? ArrayRef<AffineExpr>{k, i}
                              : ArrayRef<AffineExpr>{i, k},
                       context),
        AffineMap::get(3, 0,
                       transB ? ArrayRef<AffineExpr>{j, k}
                              : ArrayRef<AffineExpr>{k, j},
                       context),
        AffineMap::get(3, 0, {i, j}, context)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{a, bMatrix},
               ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::AddFOp::create(nb, l, args[2], product)));
               })
        .getResult(0);
  }

  /// Sums a 2-D tensor over its rows: [M, K] -> [K].
  Value sumRows(Value matrix) {
    MLIRContext *context = b.getContext();
    Value init = zeros({size(matrix, 1)});
    AffineExpr i = getAffineDimExpr(0, context),
               k = getAffineDimExpr(1, context);
    SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {i, k}, context),
                                   AffineMap::get(2, 0, {k}, context)};
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{matrix},
               ValueRange{init}, maps,
               SmallVector<utils::IteratorType>{utils::IteratorType::reduction,
                                                utils::IteratorType::parallel},
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::AddFOp::create(nb, l, args[1], args[0])));
               })
        .getResult(0);
  }

  /// [S, N, K] <-> [S * N, K].
  Value flatten(Value sequence) {
    return tensor::CollapseShapeOp::create(
        b, loc, sequence, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }
  Value unflatten(Value matrix, OpFoldResult steps, OpFoldResult batch) {
    auto type = cast<RankedTensorType>(matrix.getType());
    SmallVector<int64_t> shape;
    for (OpFoldResult s : {steps, batch})
      shape.push_back(isa<Attribute>(s) ? *getConstantIntValue(s)
                                        : ShapedType::kDynamic);
    shape.push_back(type.getDimSize(1));
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, element), matrix,
        SmallVector<ReassociationIndices>{{0, 1}, {2}},
        SmallVector<OpFoldResult>{steps, batch, size(matrix, 1)});
  }

  /// Elementwise over `shape` ([N, H]): the body gets the inputs' scalars
  /// and yields `outputs` values.
  /// `reuse[i]`, where given, is the buffer output i is written into: a
  /// loop-carried state updated in place (each element is read before it
  /// is written), so the loop yields the buffer it was given.
  SmallVector<Value> elementwise(
      ValueRange inputs, unsigned outputs, ArrayRef<OpFoldResult> shape,
      function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body,
      ArrayRef<Value> reuse = {}) {
    SmallVector<Value> inits;
    for (unsigned i = 0; i < outputs; ++i)
      inits.push_back(i < reuse.size() && reuse[i] ? reuse[i] : empty(shape));
    ValueRange results = buildElementwise(
        b, loc, inputs, inits, [&](OpBuilder &nb, Location l, ValueRange args) {
          return body(nb, l, args.take_front(inputs.size()));
        });
    return SmallVector<Value>(results.begin(), results.end());
  }
};

bool isPresent(Value value) { return value && !isa<NoneType>(value.getType()); }

/// The operands of a recurrent op (after conversion), by ONNX input index.
struct Operands {
  Value x, w, r, b, sequenceLens, initialH, initialC, peepholes;
};

Operands readOperands(ValueRange operands, Cell cell) {
  Operands o{operands[0], operands[1], operands[2], Value(),
             Value(),     Value(),     Value(),     Value()};
  o.b = isPresent(operands[3]) ? operands[3] : Value();
  o.sequenceLens = isPresent(operands[4]) ? operands[4] : Value();
  o.initialH = isPresent(operands[5]) ? operands[5] : Value();
  if (cell == Cell::LSTM) {
    o.initialC = isPresent(operands[6]) ? operands[6] : Value();
    o.peepholes = isPresent(operands[7]) ? operands[7] : Value();
  }
  return o;
}

/// The per-direction weights: W [G*H, I], R [G*H, H], input and recurrent
/// biases [G*H] (null when absent), peepholes [3*H].
struct DirectionWeights {
  Value w, r, inputBias, recurrentBias, peepholes;
};

DirectionWeights directionWeights(Emitter &e, const Operands &o, int64_t d,
                                  int64_t gateRows) {
  DirectionWeights weights;
  weights.w = e.direction(o.w, d);
  weights.r = e.direction(o.r, d);
  if (o.b) {
    Value bias = e.vectorOf(o.b, d);
    weights.inputBias = e.slice1D(bias, 0, gateRows);
    weights.recurrentBias = e.slice1D(bias, gateRows, gateRows);
  }
  if (o.peepholes)
    weights.peepholes = e.vectorOf(o.peepholes, d);
  return weights;
}

/// The processing step `k` as a time index: k, or S - 1 - k backwards.
Value timeIndex(OpBuilder &b, Location loc, Value k, Value steps,
                bool reverse) {
  if (!reverse)
    return k;
  Value last = subIndex(b, loc, steps, indexConstant(b, loc, 1));
  return subIndex(b, loc, last, k);
}

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

struct ForwardResults {
  Value y, yH, yC, gates, cAll;
};

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
          auto block = [&](Value m, int64_t g) {
            return le.columns(m, g * hidden, hidden);
          };
          SmallVector<OpFoldResult> shape = {le.size(hPrev, 0), h};
          auto clipped = [&](OpBuilder &nb, Location nl, Value v) -> Value {
            if (!config.clip)
              return v;
            Type type = v.getType();
            return arith::MaximumFOp::create(
                nb, nl, constant(nb, nl, type, -*config.clip),
                arith::MinimumFOp::create(
                    nb, nl, constant(nb, nl, type, *config.clip), v));
          };
          // The mask of sequence_lens: steps at or past a sequence's length
          // keep its state and output zeros.
          Value tI32 =
              lens ? arith::IndexCastOp::create(lb, l, lb.getI32Type(), t)
                         .getResult()
                   : Value();
          auto masked = [&](OpBuilder &nb, Location nl, Value length,
                            Value fresh, Value kept) -> Value {
            if (!length)
              return fresh;
            Value live = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, tI32, length);
            return arith::SelectOp::create(nb, nl, live, fresh, kept);
          };
          SmallVector<Value> inputs;
          SmallVector<Value> stepOut; // new h, [new c], saved gate blocks
          if (config.cell == Cell::RNN) {
            inputs = {xp, hp, hPrev};
            if (lens)
              inputs.push_back(lens);
            stepOut = le.elementwise(
                inputs, 1, shape,
                [&](OpBuilder &nb, Location nl, ValueRange s) {
                  Value pre = clipped(
                      nb, nl, arith::AddFOp::create(nb, nl, s[0], s[1]));
                  Value hn = activate(nb, nl, pre, fns[0]);
                  return SmallVector<Value>{
                      masked(nb, nl, lens ? s[3] : Value(), hn, s[2])};
                },
                {hPrev});
          } else if (gru) {
            if (config.linearBeforeReset) {
              inputs = {block(xp, 0), block(xp, 1), block(xp, 2), block(hp, 0),
                        block(hp, 1), block(hp, 2), hPrev};
              if (lens)
                inputs.push_back(lens);
              stepOut = le.elementwise(
                  inputs, 4, shape,
                  [&](OpBuilder &nb, Location nl, ValueRange s) {
                    auto add = [&](Value a, Value c) {
                      return clipped(nb, nl,
                                     arith::AddFOp::create(nb, nl, a, c));
                    };
                    Value z = activate(nb, nl, add(s[0], s[3]), fns[0]);
                    Value r = activate(nb, nl, add(s[1], s[4]), fns[0]);
                    Value candidate = activate(
                        nb, nl,
                        clipped(nb, nl,
                                arith::AddFOp::create(
                                    nb, nl, s[2],
                                    arith::MulFOp::create(nb, nl, r, s[5]))),
                        fns[1]);
                    Type type = z.getType();
                    Value keep = arith::MulFOp::create(nb, nl, z, s[6]);
                    Value take = arith::MulFOp::create(
                        nb, nl,
                        arith::SubFOp::create(nb, nl,
                                              constant(nb, nl, type, 1.0), z),
                        candidate);
                    Value hn = arith::AddFOp::create(nb, nl, take, keep);
                    hn = masked(nb, nl, lens ? s[7] : Value(), hn, s[6]);
                    return SmallVector<Value>{hn, z, r, candidate};
                  },
                  {hPrev});
            } else {
              inputs = {block(xp, 0), block(xp, 1), block(hp, 0), block(hp, 1),
                        hPrev};
              SmallVector<Value> gatesZR = le.elementwise(
                  inputs, 3, shape,
                  [&](OpBuilder &nb, Location nl, ValueRange s) {
                    auto add = [&](Value a, Value c) {
                      return clipped(nb, nl,
                                     arith::AddFOp::create(nb, nl, a, c));
                    };
                    Value z = activate(nb, nl, add(s[0], s[2]), fns[0]);
                    Value r = activate(nb, nl, add(s[1], s[3]), fns[0]);
                    return SmallVector<Value>{
                        z, r, arith::MulFOp::create(nb, nl, r, s[4])};
                  });
              Value rhInit =
                  wt.recurrentBias
                      ? le.broadcastRows(
                            le.slice1D(wt.recurrentBias, 2 * hidden, hidden),
                            le.size(hPrev, 0))
                      : Value();
              Value hh =
                  le.matmul(gatesZR[2], false,
                            le.rows(wt.r, 2 * hidden, hidden), true, rhInit);
              inputs = {block(xp, 2), hh, gatesZR[0], hPrev};
              if (lens)
                inputs.push_back(lens);
              SmallVector<Value> out = le.elementwise(
                  inputs, 2, shape,
                  [&](OpBuilder &nb, Location nl, ValueRange s) {
                    Value candidate = activate(
                        nb, nl,
                        clipped(nb, nl,
                                arith::AddFOp::create(nb, nl, s[0], s[1])),
                        fns[1]);
                    Type type = candidate.getType();
                    Value z = s[2];
                    Value keep = arith::MulFOp::create(nb, nl, z, s[3]);
                    Value take = arith::MulFOp::create(
                        nb, nl,
                        arith::SubFOp::create(nb, nl,
                                              constant(nb, nl, type, 1.0), z),
                        candidate);
                    Value hn = arith::AddFOp::create(nb, nl, take, keep);
                    hn = masked(nb, nl, lens ? s[4] : Value(), hn, s[3]);
                    return SmallVector<Value>{hn, candidate};
                  },
                  {hPrev});
              stepOut = {out[0], gatesZR[0], gatesZR[1], out[1]};
            }
          } else {
            // LSTM: i, o, f, c blocks; peepholes P = [Pi, Po, Pf].
            inputs = {block(xp, 0), block(xp, 1), block(xp, 2), block(xp, 3),
                      block(hp, 0), block(hp, 1), block(hp, 2), block(hp, 3),
                      cPrev,        hPrev};
            bool peep = static_cast<bool>(wt.peepholes);
            if (peep) {
              inputs.push_back(le.slice1D(wt.peepholes, 0, hidden));
              inputs.push_back(le.slice1D(wt.peepholes, hidden, hidden));
              inputs.push_back(le.slice1D(wt.peepholes, 2 * hidden, hidden));
            }
            if (lens)
              inputs.push_back(lens);
            stepOut = le.elementwise(
                inputs, 6, shape,
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
                  Value i = activate(nb, nl, clipped(nb, nl, preI), fns[0]);
                  Type type = i.getType();
                  Value f =
                      config.inputForget
                          ? arith::SubFOp::create(
                                nb, nl, constant(nb, nl, type, 1.0), i)
                                .getResult()
                          : activate(nb, nl, clipped(nb, nl, preF), fns[0]);
                  Value candidate =
                      activate(nb, nl, clipped(nb, nl, preC), fns[1]);
                  Value cn = add(mul(f, c), mul(i, candidate));
                  if (peep)
                    preO = add(preO, mul(s[11], cn));
                  Value og = activate(nb, nl, clipped(nb, nl, preO), fns[0]);
                  Value hn = mul(og, activate(nb, nl, cn, fns[2]));
                  Value length = lens ? s[peep ? 13 : 10] : Value();
                  hn = masked(nb, nl, length, hn, hp0);
                  cn = masked(nb, nl, length, cn, c);
                  return SmallVector<Value>{hn, cn, i, og, f, candidate};
                },
                {hPrev, cPrev});
          }
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

int64_t hiddenSizeOf(Operation *op) {
  // R [D, G*H, H]: its last dim (static: the verifier and shape inference
  // tie it to hidden_size).
  return cast<RankedTensorType>(op->getOperand(2).getType()).getDimSize(2);
}

LogicalResult checkTypes(Operation *op, ConversionPatternRewriter &rewriter,
                         Type &element) {
  auto x = cast<RankedTensorType>(op->getOperand(0).getType());
  element = x.getElementType();
  if (!element.isF32() && !element.isF64())
    return rewriter.notifyMatchFailure(op, "recurrent ops compute f32/f64");
  if (ShapedType::isDynamic(hiddenSizeOf(op)))
    return rewriter.notifyMatchFailure(op, "hidden size must be static");
  return success();
}

template <typename OpT, Cell cell, bool training>
struct LowerRecurrent : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element;
    if (failed(checkTypes(op, rewriter, element)))
      return failure();
    FailureOr<Config> config = readConfig(op, cell);
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
    for (auto [value, result] : llvm::zip(replacements, op->getResults()))
      value = castTensor(rewriter, op.getLoc(), value, result.getType());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Backward (back-propagation through time)
//===----------------------------------------------------------------------===//

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
          auto block = [&](Value m, int64_t gIndex) {
            return le.columns(m, gIndex * hidden, hidden);
          };
          SmallVector<Value> dGx, dGh; // per gate block [N, H]
          Value dhDirect;              // dh_prev's part not through R
          Value dcPrev;
          SmallVector<Value> dPeep;
          Value resetInputValue;
          if (cell == Cell::RNN) {
            Value dPre =
                le.elementwise(
                      {dh, hCur}, 1, shape,
                      [&](OpBuilder &nb, Location nl, ValueRange s) {
                        return SmallVector<Value>{arith::MulFOp::create(
                            nb, nl, s[0], activationSlope(nb, nl, s[1], f))};
                      })
                    .front();
            dGx = {dPre};
            dGh = {dPre};
          } else if (gru) {
            Value z = block(stepGates, 0), r = block(stepGates, 1),
                  candidate = block(stepGates, 2);
            // dz, dr's factor and d(pre_h), and h_prev's direct part.
            SmallVector<Value> parts = le.elementwise(
                {dh, z, candidate, hPrev}, 3, shape,
                [&](OpBuilder &nb, Location nl, ValueRange s) {
                  Type type = s[0].getType();
                  Value one = constant(nb, nl, type, 1.0);
                  Value dz = arith::MulFOp::create(
                      nb, nl, s[0], arith::SubFOp::create(nb, nl, s[3], s[2]));
                  Value dCandidate = arith::MulFOp::create(
                      nb, nl, s[0], arith::SubFOp::create(nb, nl, one, s[1]));
                  Value dPreZ = arith::MulFOp::create(
                      nb, nl, dz, activationSlope(nb, nl, s[1], f));
                  Value dPreH = arith::MulFOp::create(
                      nb, nl, dCandidate, activationSlope(nb, nl, s[2], g));
                  Value direct = arith::MulFOp::create(nb, nl, s[0], s[1]);
                  return SmallVector<Value>{dPreZ, dPreH, direct};
                });
            Value dPreZ = parts[0], dPreH = parts[1];
            dhDirect = parts[2];
            Value dPreR;
            if (config.linearBeforeReset) {
              // pre_h = xh + r * (h_prev Rh^T + Rbh).
              Value hhInit =
                  wt.recurrentBias
                      ? le.broadcastRows(
                            le.slice1D(wt.recurrentBias, 2 * hidden, hidden),
                            shape[0])
                      : Value();
              Value hh =
                  le.matmul(hPrev, false, le.rows(wt.r, 2 * hidden, hidden),
                            true, hhInit);
              SmallVector<Value> rParts = le.elementwise(
                  {dPreH, hh, r}, 2, shape,
                  [&](OpBuilder &nb, Location nl, ValueRange s) {
                    Value dr = arith::MulFOp::create(nb, nl, s[0], s[1]);
                    return SmallVector<Value>{
                        arith::MulFOp::create(nb, nl, dr,
                                              activationSlope(nb, nl, s[2], f)),
                        arith::MulFOp::create(nb, nl, s[0], s[2])};
                  });
              dPreR = rParts[0];
              dGx = {dPreZ, dPreR, dPreH};
              dGh = {dPreZ, dPreR, rParts[1]};
            } else {
              // pre_h = xh + (r * h_prev) Rh^T + Rbh.
              Value dResetInput = le.matmul(
                  dPreH, false, le.rows(wt.r, 2 * hidden, hidden), false);
              SmallVector<Value> rParts = le.elementwise(
                  {dResetInput, hPrev, r, dhDirect}, 3, shape,
                  [&](OpBuilder &nb, Location nl, ValueRange s) {
                    Value dr = arith::MulFOp::create(nb, nl, s[0], s[1]);
                    Value dPre = arith::MulFOp::create(
                        nb, nl, dr, activationSlope(nb, nl, s[2], f));
                    Value direct = arith::AddFOp::create(
                        nb, nl, s[3],
                        arith::MulFOp::create(nb, nl, s[0], s[2]));
                    Value input = arith::MulFOp::create(nb, nl, s[2], s[1]);
                    return SmallVector<Value>{dPre, direct, input};
                  });
              dPreR = rParts[0];
              dhDirect = rParts[1];
              resetInputValue = rParts[2];
              dGx = {dPreZ, dPreR, dPreH};
              dGh = {dPreZ, dPreR, dPreH};
            }
          } else {
            // LSTM with IOFC = i, o, f, c~ after activation.
            Value gi = block(stepGates, 0), go = block(stepGates, 1),
                  gf = block(stepGates, 2), gc = block(stepGates, 3);
            Value cCur = le.plane(cAll, t);
            StringRef hFn = config.activations[d][2].name;
            SmallVector<Value> ins = {dh, dcNext, gi, go, gf, gc, cCur, cPrev};
            if (peep) {
              ins.push_back(le.slice1D(wt.peepholes, 0, hidden));
              ins.push_back(le.slice1D(wt.peepholes, hidden, hidden));
              ins.push_back(le.slice1D(wt.peepholes, 2 * hidden, hidden));
            }
            SmallVector<Value> parts = le.elementwise(
                ins, 5, shape,
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
                  Value dPreO =
                      mul(mul(dhv, hc), activationSlope(nb, nl, og, f));
                  Value dc = add(
                      dcn, mul(mul(dhv, og), activationSlope(nb, nl, hc, hFn)));
                  if (peep)
                    dc = add(dc, mul(dPreO, s[9]));
                  Value dPreI =
                      mul(mul(dc, cand), activationSlope(nb, nl, i, f));
                  Value dPreF =
                      mul(mul(dc, cp), activationSlope(nb, nl, fg, f));
                  Value dPreC =
                      mul(mul(dc, i), activationSlope(nb, nl, cand, g));
                  Value dcp = mul(dc, fg);
                  if (peep)
                    dcp = add(dcp, add(mul(dPreI, s[8]), mul(dPreF, s[10])));
                  return SmallVector<Value>{dPreI, dPreO, dPreF, dPreC, dcp};
                },
                {Value(), Value(), Value(), Value(), dcNext});
            dGx = {parts[0], parts[1], parts[2], parts[3]};
            dGh = dGx;
            dcPrev = parts[4];
            if (peep) {
              // dPi += dPreI c_prev, dPo += dPreO c, dPf += dPreF c_prev.
              dPeep = le.elementwise(
                  {peepAcc[0], peepAcc[1], peepAcc[2], parts[0], parts[1],
                   parts[2], cPrev, cCur},
                  3, shape,
                  [&](OpBuilder &nb, Location nl, ValueRange s) {
                    auto fma = [&](Value acc, Value x, Value y) {
                      return arith::AddFOp::create(
                                 nb, nl, acc,
                                 arith::MulFOp::create(nb, nl, x, y))
                          .getResult();
                    };
                    return SmallVector<Value>{fma(s[0], s[3], s[6]),
                                              fma(s[1], s[4], s[7]),
                                              fma(s[2], s[5], s[6])};
                  },
                  {peepAcc[0], peepAcc[1], peepAcc[2]});
            }
          }
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
    ValueRange out = loop.getResults();
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
      Value dRh = e.matmul(e.columns(dGhAll, 2 * hidden, hidden), true,
                           resetAll, false);
      dR = e.empty({e.idx(gateRows), h});
      dR = e.insert(dRzr, dR, {e.idx(0), e.idx(0)}, {e.idx(2 * hidden), h});
      dR = e.insert(dRh, dR, {e.idx(2 * hidden), e.idx(0)}, {h, h});
    } else {
      dR = e.matmul(dGhAll, true, hPrevFlat, false);
    }
    Value dBias = e.empty({e.idx(2 * gateRows)});
    dBias = e.insert(e.sumRows(dGxAll), dBias, {e.idx(0)}, {e.idx(gateRows)});
    dBias = e.insert(e.sumRows(dGhAll), dBias, {e.idx(gateRows)},
                     {e.idx(gateRows)});
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
  return results;
}

template <typename OpT, Cell cell>
struct LowerRecurrentGrad : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element;
    if (failed(checkTypes(op, rewriter, element)))
      return failure();
    FailureOr<Config> config = readConfig(op, cell);
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
    for (auto [value, result] : llvm::zip(replacements, op->getResults()))
      value = castTensor(rewriter, op.getLoc(), value, result.getType());
    rewriter.replaceOp(op, replacements);
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
               LowerRecurrent<onnx::LSTMTrainingOp, Cell::LSTM, true>,
               LowerRecurrentGrad<onnx::RNNGradOp, Cell::RNN>,
               LowerRecurrentGrad<onnx::GRUGradOp, Cell::GRU>,
               LowerRecurrentGrad<onnx::LSTMGradOp, Cell::LSTM>>(context);
}

} // namespace odt::codegen
