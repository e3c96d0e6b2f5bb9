//===- DecomposeCompositeOps.cpp - composite ai.onnx ops as simpler ones --===//
//
// ai.onnx ops that are exact compositions of other ai.onnx ops become those
// ops, so they need no lowering or gradient rule of their own (Passes.td
// lists them). The new ops carry the node's location (diagnostics still name
// it) and unranked result types; odt-infer-shapes, which the pipelines run
// right after this pass, types them.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/GraphImporter.h"
#include "compiler/passes/Passes.h"
#include "dialects/onnx/ONNXOps.h"
#include "dialects/onnx/ops/OpHelpers.h"
#include "dialects/onnx/ops/Resize.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <numeric>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_DECOMPOSECOMPOSITEOPS
#include "compiler/passes/Passes.h.inc"

namespace {

/// Builds ai.onnx ops at one node's location with unranked results.
class Composer {
public:
  Composer(Operation *op) : b(op), loc(op->getLoc()) {}

  Type unranked(Type element) { return UnrankedTensorType::get(element); }
  static Type elementOf(Value value) {
    return cast<ShapedType>(value.getType()).getElementType();
  }

  template <typename OpTy>
  Value create(Type element, ValueRange operands,
               ArrayRef<NamedAttribute> attrs = {}) {
    return OpTy::create(b, loc, TypeRange{unranked(element)}, operands, attrs)
        ->getResult(0);
  }
  template <typename OpTy>
  Value same(Value like, ValueRange operands,
             ArrayRef<NamedAttribute> attrs = {}) {
    return create<OpTy>(elementOf(like), operands, attrs);
  }

  Value int64s(ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                      b.getI64Type());
    return onnx::ConstantOp::create(b, loc, type,
                                    DenseElementsAttr::get(type, values));
  }
  Value int64Scalar(int64_t value) {
    auto type = RankedTensorType::get({}, b.getI64Type());
    return onnx::ConstantOp::create(b, loc, type,
                                    DenseElementsAttr::get(type, value));
  }
  /// A constant of `element` type (f16/bf16/f32/f64) with `shape`.
  Value floats(Type element, ArrayRef<int64_t> shape, ArrayRef<double> values) {
    auto type = RankedTensorType::get(shape, element);
    SmallVector<Attribute> attrs;
    for (double v : values)
      attrs.push_back(FloatAttr::get(element, v));
    return onnx::ConstantOp::create(b, loc, type,
                                    DenseElementsAttr::get(type, attrs));
  }
  Value noValue() { return onnx::NoValueOp::create(b, loc, b.getNoneType()); }

  NamedAttribute intAttr(StringRef name, int64_t value) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(value));
  }
  NamedAttribute floatAttr(StringRef name, double value) {
    return b.getNamedAttr(name, b.getF32FloatAttr(value));
  }
  NamedAttribute intsAttr(StringRef name, ArrayRef<int64_t> values) {
    return b.getNamedAttr(name, b.getDenseI64ArrayAttr(values));
  }

  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return same<onnx::ReshapeOp>(x, {x, int64s(shape)});
  }
  Value reshapeTo(Value x, Value shape) {
    return same<onnx::ReshapeOp>(x, {x, shape});
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    return same<onnx::TransposeOp>(x, {x}, {intsAttr("perm", perm)});
  }
  Value shapeOf(Value x) { return create<onnx::ShapeOp>(b.getI64Type(), {x}); }
  /// ones shaped like dims [from, to) of x.
  Value onesLikeDims(Value x, int64_t from, int64_t to) {
    Value dims = create<onnx::SliceOp>(
        b.getI64Type(),
        {shapeOf(x), int64s({from}), int64s({to}), noValue(), noValue()});
    Type element = elementOf(x);
    auto one = RankedTensorType::get({1}, element);
    Attribute value = DenseElementsAttr::get(one, FloatAttr::get(element, 1.0));
    return create<onnx::ConstantOfShapeOp>(element, {dims},
                                           {b.getNamedAttr("value", value)});
  }
  /// LayerNormalization of x from `axis` on, without affine map.
  Value normalize(Value x, int64_t axis, int64_t rank, float epsilon) {
    Value ones = onesLikeDims(x, axis, rank);
    auto norm = onnx::LayerNormalizationOp::create(
        b, loc,
        TypeRange{unranked(elementOf(x)), unranked(b.getF32Type()),
                  unranked(b.getF32Type())},
        ValueRange{x, ones, noValue()},
        {intAttr("axis", axis), floatAttr("epsilon", epsilon),
         intAttr("stash_type", 1)});
    return norm.getY();
  }

  OpBuilder b;
  Location loc;
};

/// Replaces `old` by `replacement`, the last value of a composition, which
/// takes `old`'s type: its users (func.return among them) expect it, and
/// odt-infer-shapes refines it with the rest.
void replaceTyped(Value old, Value replacement) {
  replacement.setType(old.getType());
  old.replaceAllUsesWith(replacement);
}

std::optional<int64_t> staticRank(Value value) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return type.getRank();
  return std::nullopt;
}

/// Dim sizes of a ranked value (-1 where dynamic).
SmallVector<int64_t> sizesOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return SmallVector<int64_t>(type.getShape().begin(), type.getShape().end());
}

/// Per-channel values [C] as [C, 1, ..., 1] for an input of `rank`.
Value perChannel(Composer &c, Value values, int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t i = 1; i < rank - 1; ++i)
    axes.push_back(i);
  if (axes.empty())
    return values;
  return c.same<onnx::UnsqueezeOp>(values, {values, c.int64s(axes)});
}

LogicalResult decomposeInstanceNorm(onnx::InstanceNormalizationOp op) {
  Composer c(op);
  Value x = op.getInput();
  std::optional<int64_t> rank = staticRank(x);
  if (!rank)
    return onnx::emitNodeError(op) << "input needs a known rank";
  Value y = c.normalize(x, 2, *rank, op.getEpsilon().convertToFloat());
  y = c.same<onnx::MulOp>(x, {y, perChannel(c, op.getScale(), *rank)});
  y = c.same<onnx::AddOp>(x, {y, perChannel(c, op.getB(), *rank)});
  replaceTyped(op.getOutput(), y);
  return success();
}

LogicalResult decomposeGroupNorm(onnx::GroupNormalizationOp op) {
  Composer c(op);
  Value x = op.getX();
  std::optional<int64_t> rank = staticRank(x);
  if (!rank)
    return onnx::emitNodeError(op) << "X needs a known rank";
  int64_t groups = op.getNumGroups();
  // [N, C, ...] -> [N, G, C/G * ...], normalized over the last dim.
  Value grouped = c.reshape(x, {0, groups, -1});
  Value y = c.normalize(grouped, 2, 3, op.getEpsilon().convertToFloat());
  y = c.reshapeTo(y, c.shapeOf(x));
  int64_t channels = sizesOf(x)[1];
  auto affine = [&](Value values) -> FailureOr<Value> {
    int64_t size = sizesOf(values)[0];
    if (size != channels) {
      // Opset 18: one value per group, repeated over its channels.
      if (channels < 0 || size != groups)
        return onnx::emitNodeError(op)
               << "per-group scale and bias need a static channel count";
      Value column = c.reshape(values, {groups, 1});
      Value repeated = c.same<onnx::ExpandOp>(
          values, {column, c.int64s({groups, channels / groups})});
      values = c.reshape(repeated, {channels});
    }
    return perChannel(c, values, *rank);
  };
  FailureOr<Value> scale = affine(op.getScale());
  FailureOr<Value> bias = affine(op.getBias());
  if (failed(scale) || failed(bias))
    return failure();
  y = c.same<onnx::MulOp>(x, {y, *scale});
  y = c.same<onnx::AddOp>(x, {y, *bias});
  replaceTyped(op.getY(), y);
  return success();
}

LogicalResult decomposeOneHot(onnx::OneHotOp op) {
  Composer c(op);
  Value indices = op.getIndices();
  std::optional<int64_t> rank = staticRank(indices);
  auto resultType = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (!rank || !resultType)
    return onnx::emitNodeError(op) << "indices need a known rank";
  int64_t axis = op.getAxis() < 0 ? op.getAxis() + *rank + 1 : op.getAxis();
  int64_t depth = resultType.getDimSize(axis);
  // Negative indices count from depth.
  Value index = c.create<onnx::CastOp>(
      c.b.getI64Type(), {indices},
      {c.intAttr("to", getONNXDataType(c.b.getI64Type()))});
  Value negative =
      c.create<onnx::LessOp>(c.b.getI1Type(), {index, c.int64Scalar(0)});
  index = c.create<onnx::WhereOp>(
      c.b.getI64Type(),
      {negative,
       c.create<onnx::AddOp>(c.b.getI64Type(), {index, c.int64Scalar(depth)}),
       index});
  index =
      c.create<onnx::UnsqueezeOp>(c.b.getI64Type(), {index, c.int64s({axis})});
  // 0..depth-1 along `axis`, broadcast over the dims after it.
  SmallVector<int64_t> positions(depth);
  std::iota(positions.begin(), positions.end(), 0);
  SmallVector<int64_t> positionShape{depth};
  positionShape.append(*rank - axis, 1);
  Value range = c.reshape(c.int64s(positions), positionShape);
  Value hot = c.create<onnx::EqualOp>(c.b.getI1Type(), {index, range});
  Value values = op.getValues();
  Value off = c.same<onnx::GatherOp>(values, {values, c.int64Scalar(0)},
                                     {c.intAttr("axis", 0)});
  Value on = c.same<onnx::GatherOp>(values, {values, c.int64Scalar(1)},
                                    {c.intAttr("axis", 0)});
  Value y = c.same<onnx::WhereOp>(values, {hot, on, off});
  replaceTyped(op.getOutput(), y);
  return success();
}

/// DepthToSpace and SpaceToDepth: Reshape, Transpose, Reshape (the batch
/// dim may be symbolic; channels and spatial dims must be static).
LogicalResult decomposeBlocks(Operation *op, Value input, Value output,
                              int64_t block, bool toSpace, bool crd) {
  Composer c(op);
  SmallVector<int64_t> in = sizesOf(input);
  int64_t channels = in[1], height = in[2], width = in[3];
  if (channels < 0 || height < 0 || width < 0)
    return onnx::emitNodeError(op)
           << "needs static channel and spatial dims, got "
           << cast<RankedTensorType>(input.getType());
  Value y;
  if (toSpace) {
    int64_t depth = channels / (block * block);
    if (crd) {
      y = c.reshape(input, {0, depth, block, block, height, width});
      y = c.transpose(y, {0, 1, 4, 2, 5, 3});
    } else {
      y = c.reshape(input, {0, block, block, depth, height, width});
      y = c.transpose(y, {0, 3, 4, 1, 5, 2});
    }
    y = c.reshape(y, {0, depth, height * block, width * block});
  } else {
    y = c.reshape(input,
                  {0, channels, height / block, block, width / block, block});
    y = c.transpose(y, {0, 3, 5, 1, 2, 4});
    y = c.reshape(y,
                  {0, channels * block * block, height / block, width / block});
  }
  replaceTyped(output, y);
  return success();
}

/// Each resized dim is a product with its interpolation matrix
/// [out, in]: the last dim as X A^T, the one before as A X (MatMul
/// broadcasts A over the leading dims), others moved last and back.
LogicalResult decomposeResize(onnx::ResizeOp op) {
  Composer c(op);
  Value x = op.getX();
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type)
    return onnx::emitNodeError(op) << "X needs a known rank";
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return onnx::emitNodeError(op)
           << "Resize of " << element
           << " tensors is not supported (odt resizes float tensors)";
  FailureOr<SmallVector<onnx::ResizeDim>> dims =
      onnx::getResizeDims(op, type.getShape());
  if (failed(dims))
    return failure();
  int64_t rank = type.getRank();
  Value y = x;
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    const onnx::ResizeDim &dim = (*dims)[axis];
    if (!dim.resized)
      continue;
    std::vector<double> matrix = onnx::getResizeMatrix(op, dim);
    int64_t in = dim.inputSize, out = dim.outputSize;
    if (axis == rank - 2 && rank >= 2) {
      y = c.same<onnx::MatMulOp>(x, {c.floats(element, {out, in}, matrix), y});
      continue;
    }
    std::vector<double> transposed(matrix.size());
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i)
        transposed[i * out + o] = matrix[o * in + i];
    Value weights = c.floats(element, {in, out}, transposed);
    if (axis == rank - 1) {
      y = c.same<onnx::MatMulOp>(x, {y, weights});
      continue;
    }
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        perm.push_back(i);
    perm.push_back(axis);
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[perm[i]] = i;
    y = c.transpose(c.same<onnx::MatMulOp>(x, {c.transpose(y, perm), weights}),
                    inverse);
  }
  replaceTyped(op.getY(), y);
  return success();
}

/// Recurrent ops in layout 1 (batch first) become layout-0 ops between
/// transposes, so the lowerings and gradient rules see one layout.
LogicalResult normalizeRecurrentLayout(Operation *op) {
  auto layout = op->getAttrOfType<IntegerAttr>("layout");
  if (!layout || layout.getInt() == 0)
    return success();
  Composer c(op);
  SmallVector<Value> operands(op->getOperands());
  operands[0] = c.transpose(operands[0], {1, 0, 2}); // X [N,S,I] -> [S,N,I]
  // initial_h (operand 5) and, for LSTMs, initial_c (6): [N, D, H] ->
  // [D, N, H].
  unsigned states = isa<onnx::LSTMOp>(op) ? 2 : 1;
  for (unsigned i = 5; i < 5 + states; ++i)
    if (!isa<NoneType>(operands[i].getType()))
      operands[i] = c.transpose(operands[i], {1, 0, 2});
  SmallVector<NamedAttribute> attrs(op->getAttrs());
  for (NamedAttribute &attr : attrs)
    if (attr.getName() == "layout")
      attr = c.intAttr("layout", 0);
  SmallVector<Type> types;
  for (Value result : op->getResults())
    types.push_back(c.unranked(Composer::elementOf(result)));
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(types);
  Operation *normalized = c.b.create(state);
  // Y [S, D, N, H] -> [N, S, D, H]; Y_h, Y_c [D, N, H] -> [N, D, H].
  replaceTyped(op->getResult(0),
               c.transpose(normalized->getResult(0), {2, 0, 1, 3}));
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    replaceTyped(op->getResult(i),
                 c.transpose(normalized->getResult(i), {1, 0, 2}));
  return success();
}

struct DecomposeCompositeOpsPass
    : impl::DecomposeCompositeOpsBase<DecomposeCompositeOpsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    bool failedAny = false;
    for (Operation *op : ops) {
      LogicalResult result = success();
      bool decomposed = true;
      if (auto norm = dyn_cast<onnx::InstanceNormalizationOp>(op))
        result = decomposeInstanceNorm(norm);
      else if (auto norm = dyn_cast<onnx::GroupNormalizationOp>(op))
        result = decomposeGroupNorm(norm);
      else if (auto oneHot = dyn_cast<onnx::OneHotOp>(op))
        result = decomposeOneHot(oneHot);
      else if (auto blocks = dyn_cast<onnx::DepthToSpaceOp>(op))
        result = decomposeBlocks(op, blocks.getInput(), blocks.getOutput(),
                                 blocks.getBlocksize(), /*toSpace=*/true,
                                 blocks.getMode() == "CRD");
      else if (auto blocks = dyn_cast<onnx::SpaceToDepthOp>(op))
        result = decomposeBlocks(op, blocks.getInput(), blocks.getOutput(),
                                 blocks.getBlocksize(), /*toSpace=*/false,
                                 /*crd=*/false);
      else if (auto resize = dyn_cast<onnx::ResizeOp>(op))
        result = decomposeResize(resize);
      else if (isa<onnx::RNNOp, onnx::GRUOp, onnx::LSTMOp>(op))
        result = normalizeRecurrentLayout(op);
      else
        decomposed = false;
      if (failed(result)) {
        failedAny = true;
        continue;
      }
      if (decomposed && op->use_empty())
        op->erase();
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace odt
