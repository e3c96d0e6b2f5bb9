//===- GatherND.cpp - onnx.GatherND and onnx.ScatterND -> linalg ----------===//
//
// GatherND: one linalg.generic over the output [b..., q..., r...]; each
// element reads its index tuple indices[b..., q..., 0..k-1] (counted from the
// end when negative, clamped into data as every odt gather is) and then
// data[b..., tuple..., r...].
//
// ScatterND: the output starts as data; an scf.for over the index tuples
// (indices flattened to [Q, k], updates to [Q, r...]) inserts, in order, the
// slice updates[i] at its tuple, combined with what is there for reduction
// add, mul, max or min. Walking the tuples in order makes the last update
// win for duplicate tuples without reduction, as ONNX's reference does. A
// tuple outside data writes nothing.
//
//===----------------------------------------------------------------------===//

#include "codegen/conversion/ShapeUtil.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace odt::codegen {
namespace {

struct LowerGatherND : OpConversionPattern<onnx::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t batchDims = op.getBatchDims();
    int64_t k = indicesType.getShape().back();
    if (ShapedType::isDynamic(k))
      return rewriter.notifyMatchFailure(op, "index tuple size not static");
    int64_t rank = type.getRank();
    int64_t lead = indicesType.getRank() - 1; // b... and q... dims
    SmallVector<Value> dataSizes;
    for (int64_t d = 0; d < dataType.getRank(); ++d)
      dataSizes.push_back(dimValue(rewriter, loc, data, d));
    SmallVector<OpFoldResult> sizes = mixedSizes(type, [&](int64_t d) {
      return d < lead
                 ? dimValue(rewriter, loc, indices, d)
                 : dimValue(rewriter, loc, data, batchDims + k + (d - lead));
    });
    Value init = createEmpty(rewriter, loc, sizes, type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{},
        ValueRange{init}, {identityMap(rewriter.getContext(), rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange) {
          Value zero = indexConstant(b, l, 0), one = indexConstant(b, l, 1);
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d)
            position.push_back(linalg::IndexOp::create(b, l, d));
          SmallVector<Value> coordinates(position.begin(),
                                         position.begin() + batchDims);
          SmallVector<Value> at(position.begin(), position.begin() + lead);
          for (int64_t j = 0; j < k; ++j) {
            at.push_back(indexConstant(b, l, j));
            Value index =
                castToIndex(b, l, tensor::ExtractOp::create(b, l, indices, at));
            at.pop_back();
            Value size = dataSizes[batchDims + j];
            index = wrapIndex(b, l, index, size);
            coordinates.push_back(
                clampIndex(b, l, index, zero, subIndex(b, l, size, one)));
          }
          coordinates.append(position.begin() + lead, position.end());
          linalg::YieldOp::create(
              b, l,
              tensor::ExtractOp::create(b, l, data, coordinates).getResult());
        });
    rewriter.replaceOp(op,
                       castTensor(rewriter, loc, generic.getResult(0), type));
    return success();
  }
};

/// `tensor` with a leading dim of size 1 ([k] -> [1, k], a scalar -> [1]).
Value prependUnitDim(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> shape{1};
  shape.append(type.getShape().begin(), type.getShape().end());
  SmallVector<ReassociationIndices> groups;
  if (type.getRank() > 0) {
    groups.push_back({0, 1});
    for (int64_t d = 1; d < type.getRank(); ++d)
      groups.push_back({d + 1});
  }
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(dimValue(b, loc, tensor, d))
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), tensor,
      groups, sizes);
}

/// updates combined with the current values for a ScatterND reduction.
Value combine(OpBuilder &b, Location loc, StringRef reduction, Value current,
              Value update) {
  Type type = update.getType();
  bool isFloat = isa<FloatType>(type);
  if (reduction == "add")
    return isFloat ? Value(arith::AddFOp::create(b, loc, current, update))
                   : Value(arith::AddIOp::create(b, loc, current, update));
  if (reduction == "mul")
    return isFloat ? Value(arith::MulFOp::create(b, loc, current, update))
                   : Value(arith::MulIOp::create(b, loc, current, update));
  if (reduction == "max")
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, current, update))
                   : Value(arith::MaxSIOp::create(b, loc, current, update));
  return isFloat ? Value(arith::MinimumFOp::create(b, loc, current, update))
                 : Value(arith::MinSIOp::create(b, loc, current, update));
}

struct LowerScatterND : OpConversionPattern<onnx::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    Value data = castTensor(rewriter, loc, adaptor.getData(), type);
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t k = indicesType.getShape().back();
    if (ShapedType::isDynamic(k) || type.getElementType().isUnsignedInteger())
      return rewriter.notifyMatchFailure(op, "unsupported ScatterND form");
    int64_t rank = type.getRank(), lead = indicesType.getRank() - 1;
    StringRef reduction = op.getReduction();
    // indices [q..., k] -> [Q, k]; updates [q..., r...] -> [Q, r...].
    auto collapseLead = [&](Value tensor, int64_t tensorRank) -> Value {
      if (lead == 0)
        return prependUnitDim(rewriter, loc, tensor);
      SmallVector<ReassociationIndices> groups(1);
      for (int64_t d = 0; d < lead; ++d)
        groups.front().push_back(d);
      for (int64_t d = lead; d < tensorRank; ++d)
        groups.push_back({d});
      return tensor::CollapseShapeOp::create(rewriter, loc, tensor, groups);
    };
    Value flatIndices = collapseLead(indices, indicesType.getRank());
    Value flatUpdates = collapseLead(
        updates, cast<RankedTensorType>(updates.getType()).getRank());
    Value count = dimValue(rewriter, loc, flatIndices, 0);
    SmallVector<Value> dataSizes;
    for (int64_t d = 0; d < rank; ++d)
      dataSizes.push_back(dimValue(rewriter, loc, data, d));
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConstant(rewriter, loc, 0), count,
        indexConstant(rewriter, loc, 1), ValueRange{data},
        [&](OpBuilder &b, Location l, Value i, ValueRange args) {
          Value zero = indexConstant(b, l, 0), one = indexConstant(b, l, 1);
          // The tuple, and whether it lies inside data.
          SmallVector<OpFoldResult> offsets, sliceSizes;
          Value inside = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          for (int64_t j = 0; j < k; ++j) {
            Value index = castToIndex(
                b, l,
                tensor::ExtractOp::create(
                    b, l, flatIndices, ValueRange{i, indexConstant(b, l, j)}));
            index = wrapIndex(b, l, index, dataSizes[j]);
            Value ok = arith::AndIOp::create(
                b, l, cmpIndex(b, l, arith::CmpIPredicate::sge, index, zero),
                cmpIndex(b, l, arith::CmpIPredicate::slt, index, dataSizes[j]));
            inside = arith::AndIOp::create(b, l, inside, ok);
            offsets.push_back(clampIndex(b, l, index, zero,
                                         subIndex(b, l, dataSizes[j], one)));
            sliceSizes.push_back(b.getIndexAttr(1));
          }
          SmallVector<int64_t> sliceShape;
          // Static sizes stay attributes: the slices' types must agree
          // with the sizes they are built from.
          auto sizeOf = [&](RankedTensorType tensorType, int64_t d,
                            Value size) -> OpFoldResult {
            if (tensorType.isDynamicDim(d))
              return size;
            return b.getIndexAttr(tensorType.getDimSize(d));
          };
          for (int64_t d = k; d < rank; ++d) {
            offsets.push_back(b.getIndexAttr(0));
            sliceSizes.push_back(sizeOf(type, d, dataSizes[d]));
            sliceShape.push_back(type.getDimSize(d));
          }
          SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
          auto sliceType =
              RankedTensorType::get(sliceShape, type.getElementType());
          // updates[i], [r...].
          auto updatesType = cast<RankedTensorType>(flatUpdates.getType());
          SmallVector<OpFoldResult> uOffsets = {i},
                                    uSizes = {b.getIndexAttr(1)};
          SmallVector<int64_t> updateShape;
          for (int64_t d = 1; d < updatesType.getRank(); ++d) {
            uOffsets.push_back(b.getIndexAttr(0));
            uSizes.push_back(
                sizeOf(updatesType, d, dimValue(b, l, flatUpdates, d)));
            updateShape.push_back(updatesType.getDimSize(d));
          }
          SmallVector<OpFoldResult> uStrides(updatesType.getRank(),
                                             b.getIndexAttr(1));
          Value update = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get(updateShape, type.getElementType()),
              flatUpdates, uOffsets, uSizes, uStrides);
          // updates and data may know different dims statically.
          if (update.getType() != sliceType)
            update = tensor::CastOp::create(b, l, sliceType, update);
          // A tuple outside data writes nothing. Inside, the slice is
          // combined where it lies (extract, combine into it, insert back:
          // bufferization keeps all of it in the output, no copy).
          auto write = scf::IfOp::create(
              b, l, inside,
              [&](OpBuilder &tb, Location tl) {
                Value fresh = update;
                if (reduction != "none") {
                  Value current = tensor::ExtractSliceOp::create(
                      tb, tl, sliceType, args[0], offsets, sliceSizes, strides);
                  // The current values come in as the output's own (a
                  // second read of them as an input would make bufferization
                  // copy the slice first).
                  fresh = buildElementwise(
                              tb, tl, {update}, {current},
                              [&](OpBuilder &nb, Location nl, ValueRange s) {
                                return SmallVector<Value>{
                                    combine(nb, nl, reduction, s[1], s[0])};
                              })
                              .front();
                }
                Value next = tensor::InsertSliceOp::create(
                    tb, tl, fresh, args[0], offsets, sliceSizes, strides);
                scf::YieldOp::create(tb, tl, next);
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, args[0]);
              });
          scf::YieldOp::create(b, l, write.getResult(0));
        });
    rewriter.replaceOp(op, castTensor(rewriter, loc, loop.getResult(0), type));
    return success();
  }
};

} // namespace

void populateGatherNDLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGatherND, LowerScatterND>(patterns.getContext());
}

} // namespace odt::codegen
