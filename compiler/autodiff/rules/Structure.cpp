//===- Structure.cpp - gradient rules of data-movement ops ----------------===//
//
// Ops that only move data move the gradient back: reshapes reshape it to the
// input's shape (read at run time, so symbolic batches work), Transpose
// applies the inverse permutation, Slice and Gather scatter it with ORT's
// SliceGrad and GatherGrad, Concat slices it apart.
//
//===----------------------------------------------------------------------===//

#include "compiler/autodiff/rules/RuleSupport.h"
#include "compiler/training/ExporterTraces.h"

#include <limits>

using namespace mlir;

namespace odt {
namespace {

Value reshapeLike(GradientBuilder &b, Value gradient, Value like) {
  return b.create("onnx.Reshape", {gradient, b.shapeOf(like)});
}

ODT_GRADIENT_RULE(Reshape) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Flatten) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Squeeze) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Unsqueeze) {
  dx[0] = reshapeLike(b, dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Expand) {
  dx[0] = b.sumToShapeOf(dy[0], op->getOperand(0));
  return success();
}

ODT_GRADIENT_RULE(Transpose) {
  int64_t rank = b.rank(op->getOperand(0));
  SmallVector<int64_t> perm;
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("perm"))
    perm.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  dx[0] = b.create("onnx.Transpose", {dy[0]}, {b.intsAttr("perm", inverse)});
  return success();
}

ODT_GRADIENT_RULE(Concat) {
  Value y = op->getResult(0);
  int64_t rank = b.rank(y);
  int64_t axis = intAttrOr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    onnx::Dim size = b.shape(op->getOperand(i))[axis];
    if (!size.isStatic()) {
      b.emitError() << "no gradient rule for Concat along a dim of run-time "
                       "size";
      return failure();
    }
    if (b.needsGradient(i))
      dx[i] = b.create("onnx.Slice",
                       {dy[0], b.int64s({offset}),
                        b.int64s({offset + size.getSize()}), b.int64s({axis})});
    offset += size.getSize();
  }
  return success();
}

ODT_GRADIENT_RULE(Slice) {
  Value x = op->getOperand(0);
  dx[0] = b.create("onnx.ms.SliceGrad",
                   {dy[0], b.shapeOf(x), op->getOperand(1), op->getOperand(2),
                    op->getOperand(3), op->getOperand(4)});
  return success();
}

ODT_GRADIENT_RULE(Gather) {
  Value indices = op->getOperand(1), gradient = dy[0];
  // An embedding lookup with a padding_idx (generate-artifacts' mark, from
  // PyTorch's FX graph): the lookups of that row send it no gradient, as
  // nn.Embedding does, while its other uses (a tied output layer) still do.
  if (auto padding = op->getAttrOfType<IntegerAttr>(kPaddingIndexAttr);
      padding && intAttrOr(op, "axis", 0) == 0) {
    Type indexType = GradientBuilder::elementType(indices);
    Value isPadding = b.create(
        "onnx.Equal", {indices, b.scalar(padding.getInt(), indexType)});
    Value perRow = b.create("onnx.Unsqueeze", {isPadding, b.int64s({-1})});
    gradient =
        b.create("onnx.Where",
                 {perRow, b.scalar(0.0, GradientBuilder::elementType(gradient)),
                  gradient});
  }
  dx[0] = b.create("onnx.ms.GatherGrad",
                   {b.shapeOf(op->getOperand(0)), indices, gradient},
                   {b.intAttr("axis", intAttrOr(op, "axis", 0))});
  return success();
}

ODT_GRADIENT_RULE(Split) {
  // The pieces' gradients side by side again; a piece nothing
  // differentiable used contributes zeros.
  SmallVector<Value> pieces;
  for (auto [result, gradient] : llvm::zip(op->getResults(), dy))
    pieces.push_back(gradient ? gradient : b.fullLike(result, 0.0));
  dx[0] = b.create("onnx.Concat", pieces,
                   {b.intAttr("axis", intAttrOr(op, "axis", 0))});
  return success();
}

/// The gradient of a reflect or edge Pad along one axis: `gradient` has
/// `begin + size + end` entries along `axis`; the result has `size`. The
/// padded entries go back to the entries they copied: reflected ones to
/// x[1..begin] and x[size-1-end..size-2] in reverse order, edge ones all to
/// x[0] and x[size-1].
static Value padBorderGradient(GradientBuilder &b, Value gradient, int64_t axis,
                               int64_t begin, int64_t end, int64_t size,
                               bool reflect) {
  int64_t rank = b.rank(gradient);
  auto slice = [&](int64_t start, int64_t stop, int64_t step) {
    return b.create("onnx.Slice",
                    {gradient, b.int64s({start}), b.int64s({stop}),
                     b.int64s({axis}), b.int64s({step})});
  };
  // `part` (its extent along the axis) placed at `at` in a zero tensor of
  // `size` entries along the axis.
  auto place = [&](Value part, int64_t extent, int64_t at) {
    SmallVector<int64_t> pads(2 * rank, 0);
    pads[axis] = at;
    pads[rank + axis] = size - at - extent;
    return b.create("onnx.Pad", {part, b.int64s(pads)});
  };
  Value result = slice(begin, begin + size, 1);
  if (begin > 0) {
    Value part =
        reflect ? slice(begin - 1, std::numeric_limits<int64_t>::min(), -1)
                : b.reduceSum(slice(0, begin, 1), {axis}, /*keepDims=*/true);
    result =
        b.create("onnx.Add",
                 {result, place(part, reflect ? begin : 1, reflect ? 1 : 0)});
  }
  if (end > 0) {
    int64_t last = begin + size;
    Value part = reflect ? slice(last + end - 1, last - 1, -1)
                         : b.reduceSum(slice(last, last + end, 1), {axis},
                                       /*keepDims=*/true);
    result = b.create("onnx.Add",
                      {result, place(part, reflect ? end : 1,
                                     reflect ? size - 1 - end : size - 1)});
  }
  return result;
}

ODT_GRADIENT_RULE(Pad) {
  auto mode = op->getAttrOfType<StringAttr>("mode");
  bool borders =
      mode && (mode.getValue() == "reflect" || mode.getValue() == "edge");
  if (mode && mode.getValue() != "constant" && !borders) {
    b.emitError() << "no gradient rule for Pad in mode '" << mode.getValue()
                  << "'";
    return failure();
  }
  if (b.needsGradient(2)) {
    b.emitError() << "no gradient rule for Pad's constant_value";
    return failure();
  }
  Value x = op->getOperand(0);
  int64_t rank = b.rank(x);
  std::optional<SmallVector<int64_t>> pads = b.staticValues(op->getOperand(1));
  SmallVector<int64_t> axes;
  if (isa<NoneType>(op->getOperand(3).getType())) {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  } else if (auto given = b.staticValues(op->getOperand(3))) {
    for (int64_t axis : *given)
      axes.push_back(axis < 0 ? axis + rank : axis);
  }
  if (!pads || pads->size() != 2 * axes.size() ||
      llvm::any_of(*pads, [](int64_t p) { return p < 0; })) {
    b.emitError() << "no gradient rule for Pad with run-time or negative pads";
    return failure();
  }
  size_t n = axes.size();
  if (borders) {
    // Reflect and edge padding pad one axis after another (the corners
    // copy copies), so the gradient undoes one axis at a time.
    onnx::Shape dims = b.shape(x);
    Value gradient = dy[0];
    for (size_t i = 0; i < n; ++i) {
      int64_t axis = axes[i], begin = (*pads)[i], end = (*pads)[n + i];
      if (begin == 0 && end == 0)
        continue;
      if (!dims[axis].isStatic()) {
        b.emitError() << "no gradient rule for Pad in mode '" << mode.getValue()
                      << "' along a dim of run-time size";
        return failure();
      }
      int64_t size = dims[axis].getSize();
      bool reflect = mode.getValue() == "reflect";
      if (reflect && (begin >= size || end >= size)) {
        b.emitError() << "reflect pads must be smaller than the padded dim";
        return failure();
      }
      gradient =
          padBorderGradient(b, gradient, axis, begin, end, size, reflect);
    }
    dx[0] = gradient;
    return success();
  }
  // The unpadded window: [begin, -end) along each axis (INT64_MAX for end 0).
  SmallVector<int64_t> starts, ends;
  for (size_t i = 0; i < n; ++i) {
    starts.push_back((*pads)[i]);
    ends.push_back((*pads)[n + i] ? -(*pads)[n + i]
                                  : std::numeric_limits<int64_t>::max());
  }
  dx[0] = b.create("onnx.Slice",
                   {dy[0], b.int64s(starts), b.int64s(ends), b.int64s(axes)});
  return success();
}

ODT_GRADIENT_RULE(Tile) {
  // dY viewed as [r0, d0, r1, d1, ...], summed over the repeats.
  Value x = op->getOperand(0);
  std::optional<SmallVector<int64_t>> repeats =
      b.staticValues(op->getOperand(1));
  onnx::Shape dims = b.shape(x);
  if (!repeats ||
      llvm::any_of(dims, [](const onnx::Dim &d) { return !d.isStatic(); })) {
    b.emitError() << "no gradient rule for Tile with run-time repeats or "
                     "input dims";
    return failure();
  }
  SmallVector<int64_t> split, repeatAxes;
  for (size_t d = 0; d < dims.size(); ++d) {
    repeatAxes.push_back(split.size());
    split.push_back((*repeats)[d]);
    split.push_back(dims[d].getSize());
  }
  Value view = b.create("onnx.Reshape", {dy[0], b.int64s(split)});
  dx[0] = b.reduceSum(view, repeatAxes, /*keepDims=*/false);
  return success();
}

ODT_GRADIENT_RULE(GatherElements) {
  dx[0] = b.create("onnx.ms.GatherElementsGrad",
                   {dy[0], b.shapeOf(op->getOperand(0)), op->getOperand(1)},
                   {b.intAttr("axis", intAttrOr(op, "axis", 0))});
  return success();
}

ODT_GRADIENT_RULE(ScatterElements) {
  auto reduction = op->getAttrOfType<StringAttr>("reduction");
  bool add = reduction && reduction.getValue() == "add";
  if (reduction && !add && reduction.getValue() != "none") {
    b.emitError() << "no gradient rule for ScatterElements with reduction '"
                  << reduction.getValue() << "'";
    return failure();
  }
  Value indices = op->getOperand(1), updates = op->getOperand(2);
  NamedAttribute axis = b.intAttr("axis", intAttrOr(op, "axis", 0));
  // data: where an update overwrote it, its gradient is zero (unless the
  // updates were added to it).
  if (b.needsGradient(0))
    dx[0] = add ? dy[0]
                : b.create("onnx.ScatterElements",
                           {dy[0], indices, b.fullLike(updates, 0.0)}, {axis});
  if (b.needsGradient(2))
    dx[2] = b.create("onnx.GatherElements", {dy[0], indices}, {axis});
  return success();
}

ODT_GRADIENT_RULE(GatherND) {
  // Each gathered slice's gradient is added back at its tuple (tuples may
  // repeat): ScatterND with reduction add into zeros.
  if (intAttrOr(op, "batch_dims", 0) != 0) {
    b.emitError() << "no gradient rule for GatherND with batch_dims > 0";
    return failure();
  }
  Value data = op->getOperand(0);
  dx[0] = b.create("onnx.ScatterND",
                   {b.fullLike(data, 0.0), op->getOperand(1), dy[0]},
                   {b.stringAttr("reduction", "add")});
  return success();
}

ODT_GRADIENT_RULE(ScatterND) {
  auto reduction = op->getAttrOfType<StringAttr>("reduction");
  bool add = reduction && reduction.getValue() == "add";
  if (reduction && !add && reduction.getValue() != "none") {
    b.emitError() << "no gradient rule for ScatterND with reduction '"
                  << reduction.getValue() << "'";
    return failure();
  }
  Value indices = op->getOperand(1), updates = op->getOperand(2);
  // As ScatterElements: overwritten data gets no gradient (unless added).
  if (b.needsGradient(0))
    dx[0] = add ? dy[0]
                : b.create("onnx.ScatterND",
                           {dy[0], indices, b.fullLike(updates, 0.0)});
  if (b.needsGradient(2))
    dx[2] = b.create("onnx.GatherND", {dy[0], indices});
  return success();
}

ODT_GRADIENT_RULE(Trilu) {
  // The kept triangle passes the gradient; the zeroed one does not.
  SmallVector<NamedAttribute> attrs;
  if (Attribute upper = op->getAttr("upper"))
    attrs.push_back(b.getBuilder().getNamedAttr("upper", upper));
  dx[0] = b.create("onnx.Trilu", {dy[0], op->getOperand(1)}, attrs);
  return success();
}

} // namespace

void attachStructureGradients(MLIRContext *context) {
  ODT_ATTACH_RULE(Reshape);
  ODT_ATTACH_RULE(Flatten);
  ODT_ATTACH_RULE(Squeeze);
  ODT_ATTACH_RULE(Unsqueeze);
  ODT_ATTACH_RULE(Expand);
  ODT_ATTACH_RULE(Transpose);
  ODT_ATTACH_RULE(Concat);
  ODT_ATTACH_RULE(Slice);
  ODT_ATTACH_RULE(Gather);
  ODT_ATTACH_RULE(Split);
  ODT_ATTACH_RULE(Pad);
  ODT_ATTACH_RULE(Tile);
  ODT_ATTACH_RULE(GatherElements);
  ODT_ATTACH_RULE(ScatterElements);
  ODT_ATTACH_RULE(GatherND);
  ODT_ATTACH_RULE(ScatterND);
  ODT_ATTACH_RULE(Trilu);
}

} // namespace odt
