//===- Recurrent.cpp - RNN, GRU, LSTM and their training ops --------------===//
//
// One description of the recurrent ops' operands (RecurrentOperands) serves
// the verifiers and the shape inference of all eight ops; Recurrent.td has
// the shapes.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace odt::onnx {
namespace {

/// What differs between the cells.
struct CellKind {
  StringRef name;
  int64_t gates;
  /// Activation functions per direction and their defaults.
  SmallVector<StringRef, 3> defaultActivations;
};

const CellKind kRNN{"RNN", 1, {"Tanh"}};
const CellKind kGRU{"GRU", 3, {"Sigmoid", "Tanh"}};
const CellKind kLSTM{"LSTM", 4, {"Sigmoid", "Tanh", "Tanh"}};

/// The activation names ONNX defines for recurrent ops.
bool isKnownActivation(StringRef name) {
  return llvm::is_contained(
      ArrayRef<StringRef>{"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu",
                          "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
                          "Softsign", "Softplus"},
      name);
}

/// The operands and attributes every recurrent op has, read generically.
struct RecurrentOperands {
  Operation *op;
  const CellKind &cell;
  Value x, w, r, b, sequenceLens, initialH, initialC, peepholes;

  Attribute attr(StringRef name) const { return op->getAttr(name); }
  StringRef direction() const {
    auto a = dyn_cast_or_null<StringAttr>(attr("direction"));
    return a ? a.getValue() : "forward";
  }
  int64_t layout() const {
    auto a = dyn_cast_or_null<IntegerAttr>(attr("layout"));
    return a ? a.getInt() : 0;
  }
  int64_t directions() const { return direction() == "bidirectional" ? 2 : 1; }
  std::optional<int64_t> hiddenSize() const {
    if (auto a = dyn_cast_or_null<IntegerAttr>(attr("hidden_size")))
      return a.getInt();
    return std::nullopt;
  }

  LogicalResult verify() const {
    StringRef dir = direction();
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
      return emitNodeError(op) << "direction must be forward, reverse or "
                                  "bidirectional, not '"
                               << dir << "'";
    if (layout() != 0 && layout() != 1)
      return emitNodeError(op) << "layout must be 0 or 1, not " << layout();
    if (std::optional<int64_t> h = hiddenSize(); h && *h < 1)
      return emitNodeError(op) << "hidden_size must be positive, not " << *h;
    if (auto activations = dyn_cast_or_null<ArrayAttr>(attr("activations"))) {
      size_t perDirection = cell.defaultActivations.size();
      if (activations.size() != perDirection * directions())
        return emitNodeError(op) << cell.name << " with direction " << dir
                                 << " needs " << perDirection * directions()
                                 << " activations, got " << activations.size();
      for (Attribute a : activations) {
        auto name = dyn_cast<StringAttr>(a);
        if (!name || !isKnownActivation(name.getValue()))
          return emitNodeError(op) << "unknown activation " << a;
      }
    }
    if (auto clip = dyn_cast_or_null<FloatAttr>(attr("clip")))
      if (!(clip.getValueAsDouble() > 0))
        return emitNodeError(op) << "clip must be positive";
    for (auto [value, rank, what] :
         {std::make_tuple(x, 3, "X"), std::make_tuple(w, 3, "W"),
          std::make_tuple(r, 3, "R"), std::make_tuple(b, 2, "B"),
          std::make_tuple(sequenceLens, 1, "sequence_lens"),
          std::make_tuple(initialH, 3, "initial_h"),
          std::make_tuple(initialC, 3, "initial_c"),
          std::make_tuple(peepholes, 2, "P")})
      if (value && failed(verifyRank(op, value, rank, what)))
        return failure();
    return success();
  }

  /// Infers and unifies every operand dim; fills the dims the results use.
  LogicalResult inferDims(ShapeContext &context, Dim &sequence, Dim &batch,
                          Dim &hidden, Dim &numDirections) const {
    Shape xShape = context.getShape(x), wShape = context.getShape(w),
          rShape = context.getShape(r);
    sequence = xShape[layout() == 0 ? 0 : 1];
    batch = xShape[layout() == 0 ? 1 : 0];
    numDirections = Dim::size(directions());
    hidden = rShape[2];
    if (std::optional<int64_t> h = hiddenSize())
      if (failed(context.unify(hidden, Dim::size(*h), op,
                               "R's last dim and hidden_size")))
        return failure();
    hidden = context.resolve(hidden);
    std::optional<Dim> gateRows =
        context.multiply(Dim::size(cell.gates), hidden);
    if (!gateRows)
      return emitNodeError(op) << "hidden_size is too large";
    if (failed(context.unify(wShape[0], numDirections, op,
                             "W's first dim and the directions")) ||
        failed(context.unify(rShape[0], numDirections, op,
                             "R's first dim and the directions")) ||
        failed(context.unify(wShape[1], *gateRows, op,
                             "W's second dim and gates * hidden_size")) ||
        failed(context.unify(rShape[1], *gateRows, op,
                             "R's second dim and gates * hidden_size")) ||
        failed(context.unify(wShape[2], xShape[2], op,
                             "W's last dim and X's input size")))
      return failure();
    if (b) {
      Shape bShape = context.getShape(b);
      std::optional<Dim> twice = context.multiply(Dim::size(2), *gateRows);
      if (failed(context.unify(bShape[0], numDirections, op,
                               "B's first dim and the directions")) ||
          (twice && failed(context.unify(bShape[1], *twice, op,
                                         "B's last dim and 2 * gates * "
                                         "hidden_size"))))
        return failure();
    }
    if (sequenceLens &&
        failed(context.unify(context.getShape(sequenceLens)[0], batch, op,
                             "sequence_lens and the batch")))
      return failure();
    for (auto [state, what] : {std::make_pair(initialH, "initial_h"),
                               std::make_pair(initialC, "initial_c")}) {
      if (!state)
        continue;
      Shape shape = context.getShape(state);
      Shape want = stateShape(numDirections, batch, hidden);
      for (unsigned i = 0; i < 3; ++i)
        if (failed(context.unify(shape[i], want[i], op,
                                 (std::string(what) + " and [directions, "
                                                      "batch, hidden_size]")
                                     .c_str())))
          return failure();
    }
    if (peepholes) {
      Shape shape = context.getShape(peepholes);
      std::optional<Dim> three = context.multiply(Dim::size(3), hidden);
      if (failed(context.unify(shape[0], numDirections, op,
                               "P's first dim and the directions")) ||
          (three && failed(context.unify(shape[1], *three, op,
                                         "P's last dim and 3 * hidden_size"))))
        return failure();
    }
    sequence = context.resolve(sequence);
    batch = context.resolve(batch);
    hidden = context.resolve(hidden);
    return success();
  }

  /// A hidden or cell state's shape in this op's layout.
  Shape stateShape(Dim numDirections, Dim batch, Dim hidden) const {
    if (layout() == 0)
      return {numDirections, batch, hidden};
    return {batch, numDirections, hidden};
  }
};

Value optional(Value value) {
  return value && !isa<NoneType>(value.getType()) ? value : Value();
}

/// The operands of an op whose first six ONNX inputs are X, W, R, B,
/// sequence_lens, initial_h (and, for LSTMs, initial_c and P next).
RecurrentOperands readOperands(Operation *op, const CellKind &cell) {
  RecurrentOperands operands{
      op,      cell,    op->getOperand(0), op->getOperand(1), op->getOperand(2),
      Value(), Value(), Value(),           Value(),           Value()};
  operands.b = optional(op->getOperand(3));
  operands.sequenceLens = optional(op->getOperand(4));
  operands.initialH = optional(op->getOperand(5));
  if (&cell == &kLSTM) {
    operands.initialC = optional(op->getOperand(6));
    operands.peepholes = optional(op->getOperand(7));
  }
  return operands;
}

/// Forward ops: Y, Y_h (and Y_c); training ops: HAll, Y_h, saved values.
LogicalResult inferForward(Operation *op, const CellKind &cell,
                           ShapeContext &context, bool training) {
  RecurrentOperands operands = readOperands(op, cell);
  Dim sequence = Dim::size(0), batch = sequence, hidden = sequence,
      numDirections = sequence;
  if (failed(
          operands.inferDims(context, sequence, batch, hidden, numDirections)))
    return failure();
  Type element = ShapeContext::getElementType(operands.x);
  Shape all = training || operands.layout() == 0
                  ? Shape{sequence, numDirections, batch, hidden}
                  : Shape{batch, sequence, numDirections, hidden};
  context.setShape(op->getResult(0), all, element);
  Shape state = operands.stateShape(numDirections, batch, hidden);
  context.setShape(op->getResult(1), state, element);
  if (&cell == &kLSTM)
    context.setShape(op->getResult(2), state, element);
  if (!training)
    return success();
  std::optional<Dim> gateColumns =
      context.multiply(Dim::size(cell.gates), hidden);
  if (!gateColumns)
    return emitNodeError(op) << "hidden_size is too large";
  Shape gates{sequence, numDirections, batch, *gateColumns};
  if (&cell == &kGRU) {
    context.setShape(op->getResult(2), gates, element);
  } else {
    context.setShape(op->getResult(3), all, element);
    context.setShape(op->getResult(4), gates, element);
  }
  return success();
}

/// Gradient ops: dX, dW, dR, dB, dH0 (and dC0, dP), shaped like the
/// forward operands (dB, dH0, dC0 and dP even when the operand is absent).
LogicalResult inferGradient(Operation *op, const CellKind &cell,
                            ShapeContext &context) {
  RecurrentOperands operands = readOperands(op, cell);
  Dim sequence = Dim::size(0), batch = sequence, hidden = sequence,
      numDirections = sequence;
  if (failed(
          operands.inferDims(context, sequence, batch, hidden, numDirections)))
    return failure();
  Type element = ShapeContext::getElementType(operands.x);
  context.setShape(op->getResult(0), context.getShape(operands.x), element);
  context.setShape(op->getResult(1), context.getShape(operands.w), element);
  context.setShape(op->getResult(2), context.getShape(operands.r), element);
  std::optional<Dim> biases =
      context.multiply(Dim::size(2 * cell.gates), hidden);
  std::optional<Dim> peepholes = context.multiply(Dim::size(3), hidden);
  if (!biases || !peepholes)
    return emitNodeError(op) << "hidden_size is too large";
  context.setShape(op->getResult(3), {numDirections, *biases}, element);
  Shape state = operands.stateShape(numDirections, batch, hidden);
  context.setShape(op->getResult(4), state, element);
  if (&cell == &kLSTM) {
    context.setShape(op->getResult(5), state, element);
    context.setShape(op->getResult(6), {numDirections, *peepholes}, element);
  }
  return success();
}

/// Training and gradient ops run only what odt's backward pass supports:
/// layout 0 (the layout-1 form is rewritten around them), the default
/// activations (RNN: Tanh or Relu), no clip, no sequence_lens.
LogicalResult verifyTrainable(Operation *op, const CellKind &cell) {
  RecurrentOperands operands = readOperands(op, cell);
  if (failed(operands.verify()))
    return failure();
  if (operands.layout() != 0)
    return emitNodeError(op) << "training ops take layout 0";
  if (operands.sequenceLens)
    return emitNodeError(op)
           << "training " << cell.name
           << " with sequence_lens is not supported (every sequence of a "
              "batch must have the full length)";
  if (op->getAttr("clip"))
    return emitNodeError(op)
           << "training " << cell.name << " with clip is not supported";
  if (auto activations =
          dyn_cast_or_null<ArrayAttr>(op->getAttr("activations")))
    for (auto [index, a] : llvm::enumerate(activations)) {
      StringRef name = cast<StringAttr>(a).getValue();
      StringRef want =
          cell.defaultActivations[index % cell.defaultActivations.size()];
      bool relu = &cell == &kRNN && name == "Relu";
      if (name != want && !relu)
        return emitNodeError(op)
               << "training " << cell.name << " with activation " << name
               << " is not supported (" << cell.name << " trains with "
               << (&cell == &kRNN ? "Tanh or Relu" : "its default activations")
               << ")";
    }
  return success();
}

} // namespace

LogicalResult RNNOp::verify() { return readOperands(*this, kRNN).verify(); }
LogicalResult GRUOp::verify() {
  if (getLinearBeforeReset() != 0 && getLinearBeforeReset() != 1)
    return emitNodeError(*this) << "linear_before_reset must be 0 or 1";
  return readOperands(*this, kGRU).verify();
}
LogicalResult LSTMOp::verify() {
  if (getInputForget() != 0 && getInputForget() != 1)
    return emitNodeError(*this) << "input_forget must be 0 or 1";
  return readOperands(*this, kLSTM).verify();
}
LogicalResult GRUTrainingOp::verify() { return verifyTrainable(*this, kGRU); }
LogicalResult LSTMTrainingOp::verify() { return verifyTrainable(*this, kLSTM); }
LogicalResult RNNGradOp::verify() { return verifyTrainable(*this, kRNN); }
LogicalResult GRUGradOp::verify() { return verifyTrainable(*this, kGRU); }
LogicalResult LSTMGradOp::verify() { return verifyTrainable(*this, kLSTM); }

LogicalResult RNNOp::inferShapes(ShapeContext &context) {
  return inferForward(*this, kRNN, context, /*training=*/false);
}
LogicalResult GRUOp::inferShapes(ShapeContext &context) {
  return inferForward(*this, kGRU, context, /*training=*/false);
}
LogicalResult LSTMOp::inferShapes(ShapeContext &context) {
  return inferForward(*this, kLSTM, context, /*training=*/false);
}
LogicalResult GRUTrainingOp::inferShapes(ShapeContext &context) {
  return inferForward(*this, kGRU, context, /*training=*/true);
}
LogicalResult LSTMTrainingOp::inferShapes(ShapeContext &context) {
  return inferForward(*this, kLSTM, context, /*training=*/true);
}
LogicalResult RNNGradOp::inferShapes(ShapeContext &context) {
  return inferGradient(*this, kRNN, context);
}
LogicalResult GRUGradOp::inferShapes(ShapeContext &context) {
  return inferGradient(*this, kGRU, context);
}
LogicalResult LSTMGradOp::inferShapes(ShapeContext &context) {
  return inferGradient(*this, kLSTM, context);
}

} // namespace odt::onnx
