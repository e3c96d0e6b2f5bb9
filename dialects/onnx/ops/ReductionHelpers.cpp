//===- ReductionHelpers.cpp - shared checks of the Reduction family -------===//

#include "dialects/onnx/ops/ReductionHelpers.h"
#include "dialects/onnx/ops/TrainingOpHelpers.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace odt::onnx::reduction {

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult verifyAxis(Operation *op, Value value, int64_t axis,
                         StringRef what) {
  std::optional<int64_t> rank = getRank(value);
  if (rank && !normalizeAxis(axis, *rank))
    return emitNodeError(op) << "axis " << axis << " is out of range for "
                             << what << " of rank " << *rank;
  return success();
}

LogicalResult verifyFlag(Operation *op, int64_t value, StringRef name) {
  if (value != 0 && value != 1)
    return emitNodeError(op) << name << " must be 0 or 1, got " << value;
  return success();
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
getReduceAxes(Value data, Value axesInput,
              std::optional<ArrayRef<int64_t>> axesAttr,
              bool noopWithEmptyAxes) {
  std::optional<int64_t> rank = getRank(data);
  if (!rank)
    return failure();
  SmallVector<int64_t> given;
  if (axesAttr) {
    given.assign(axesAttr->begin(), axesAttr->end());
  } else if (!isNoValue(axesInput)) {
    // A constant, or axes known at compile time from shapes (the output of
    // a BroadcastGradientArgs in ORT's gradient graphs).
    FailureOr<SmallVector<int64_t>> values = getStaticIntegers(axesInput);
    if (failed(values))
      return failure();
    given = std::move(*values);
  }
  SmallVector<int64_t> axes;
  if (given.empty()) {
    if (!noopWithEmptyAxes)
      for (int64_t i = 0; i < *rank; ++i)
        axes.push_back(i);
    return axes;
  }
  for (int64_t axis : given) {
    std::optional<int64_t> normalized = normalizeAxis(axis, *rank);
    if (!normalized)
      return failure();
    axes.push_back(*normalized);
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return failure();
  return axes;
}

LogicalResult verifyReduce(Operation *op, Value data, Value axesInput,
                           std::optional<ArrayRef<int64_t>> axesAttr,
                           int64_t keepdims, int64_t noopWithEmptyAxes) {
  if (failed(verifyFlag(op, keepdims, "keepdims")) ||
      failed(verifyFlag(op, noopWithEmptyAxes, "noop_with_empty_axes")))
    return failure();
  if (isa<ReduceSumOp>(op) && axesAttr)
    return emitNodeError(op) << "ReduceSum takes its axes as an input (opset "
                                "13 and later), not as an attribute";
  if (axesAttr && !isNoValue(axesInput))
    return emitNodeError(op)
           << "axes are given both as an attribute and as an input";
  if (!isNoValue(axesInput) &&
      failed(verifyRank(op, axesInput, 1, "axes")))
    return failure();
  DenseIntElementsAttr values;
  bool constant = axesAttr || (!isNoValue(axesInput) &&
                               matchPattern(axesInput, m_Constant(&values)));
  if (constant && getRank(data) &&
      failed(getReduceAxes(data, axesInput, axesAttr, noopWithEmptyAxes)))
    return emitNodeError(op)
           << "axes must be unique and within the rank of data ("
           << *getRank(data) << ")";
  return success();
}

Shape reducedShape(ArrayRef<Dim> data, ArrayRef<int64_t> axes, bool keepdims) {
  Shape reduced;
  for (auto [index, dim] : llvm::enumerate(data)) {
    if (!llvm::is_contained(axes, int64_t(index)))
      reduced.push_back(dim);
    else if (keepdims)
      reduced.push_back(Dim::size(1));
  }
  return reduced;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult verifyLossReduction(Operation *op, StringRef reduction) {
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return emitNodeError(op) << "reduction must be 'mean', 'sum' or 'none', "
                                "got '"
                             << reduction << "'";
  return success();
}

LogicalResult verifyLossOperands(Operation *op, Value scores, Value labels,
                                 Value weights, const LossNames &names) {
  std::optional<int64_t> scoresRank = getRank(scores);
  std::optional<int64_t> labelsRank = getRank(labels);
  if (scoresRank && *scoresRank < 2)
    return emitNodeError(op) << names.scores << " must have rank >= 2, got "
                             << *scoresRank;
  if (scoresRank && labelsRank && *labelsRank != *scoresRank - 1)
    return emitNodeError(op) << names.labels << " must have rank "
                             << *scoresRank - 1 << " (one less than "
                             << names.scores << "), got " << *labelsRank;
  if (!isNoValue(weights)) {
    if (failed(verifyRank(op, weights, 1, names.weights)) ||
        failed(verifySameElementType(
            op, scores, weights,
            (Twine(names.scores) + " and " + names.weights).str())))
      return failure();
  }
  return success();
}

LogicalResult unifyLossShapes(ShapeContext &context, Operation *op,
                              Value scores, Value labels, Value weights,
                              const LossNames &names) {
  Shape s = context.getShape(scores), l = context.getShape(labels);
  if (l.size() + 1 != s.size())
    return emitNodeError(op) << names.labels << " must have rank "
                             << s.size() - 1;
  std::string batchMessage = (Twine(names.labels) +
                              " do not match the batch dims of " + names.scores)
                                 .str();
  for (size_t i = 0; i < l.size(); ++i) {
    Dim scoreDim = i == 0 ? s[0] : s[i + 1];
    if (failed(context.unify(l[i], scoreDim, op, batchMessage)))
      return failure();
  }
  if (!isNoValue(weights)) {
    Shape w = context.getShape(weights);
    if (failed(context.unify(
            w[0], s[1], op,
            (Twine(names.weights) + " must have one entry per class").str())))
      return failure();
  }
  return success();
}

Shape lossShape(ShapeContext &context, Value labels, StringRef reduction) {
  if (reduction == "none")
    return context.getShape(labels);
  return {};
}

} // namespace odt::onnx::reduction

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

namespace odt::onnx::reduction {

namespace {
/// One term of an equation: its letters, and where "..." stands among them
/// (-1 if it has none).
struct EinsumTerm {
  std::string letters;
  int ellipsisAt = -1;
};
} // namespace

/// Parses one term ("b...ij"), spaces ignored.
static bool parseEinsumTerm(StringRef text, EinsumTerm &term,
                            std::string &error) {
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == ' ') {
      ++i;
    } else if (c == '.') {
      if (!text.substr(i).starts_with("...")) {
        error = "'.' must be part of '...'";
        return false;
      }
      if (term.ellipsisAt >= 0) {
        error = "a term has more than one '...'";
        return false;
      }
      term.ellipsisAt = term.letters.size();
      i += 3;
    } else if (llvm::isAlpha(c)) {
      term.letters.push_back(c);
      ++i;
    } else {
      error = (Twine("unexpected character '") + Twine(c) + "'").str();
      return false;
    }
  }
  return true;
}

FailureOr<EinsumEquation> parseEinsumEquation(StringRef equation,
                                              ArrayRef<int64_t> inputRanks,
                                              std::string &error) {
  auto fail = [&](const Twine &message) -> FailureOr<EinsumEquation> {
    error = message.str();
    return failure();
  };
  size_t arrow = equation.find("->");
  bool explicitOutput = arrow != StringRef::npos;
  StringRef lhs = equation.substr(0, arrow);
  SmallVector<StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (termTexts.size() != inputRanks.size())
    return fail("the equation has " + Twine(termTexts.size()) +
                " input terms for " + Twine(inputRanks.size()) + " inputs");
  SmallVector<EinsumTerm> terms(termTexts.size());
  for (auto [text, term] : llvm::zip(termTexts, terms))
    if (!parseEinsumTerm(text, term, error))
      return failure();
  EinsumTerm outTerm;
  if (explicitOutput) {
    StringRef rhs = equation.substr(arrow + 2);
    if (rhs.contains("->"))
      return fail("the equation has more than one '->'");
    if (!parseEinsumTerm(rhs, outTerm, error))
      return failure();
  }

  EinsumEquation result;
  // Broadcast dims: as many as the input with the most of them.
  SmallVector<unsigned> ellipsisDims(terms.size(), 0);
  for (auto [index, term] : llvm::enumerate(terms)) {
    int64_t rank = inputRanks[index];
    int64_t letters = term.letters.size();
    if (term.ellipsisAt < 0 ? rank != letters : rank < letters)
      return fail("input " + Twine(index) + " has rank " + Twine(rank) +
                  ", its term '" + termTexts[index].trim() + "' names " +
                  Twine(letters) + " dims");
    ellipsisDims[index] = rank - letters;
    result.numEllipsisDims =
        std::max<unsigned>(result.numEllipsisDims, rank - letters);
  }
  result.loopLabels.assign(result.numEllipsisDims, '.');
  llvm::DenseMap<char, unsigned> loopOf;
  llvm::DenseMap<char, unsigned> uses;
  for (auto [index, term] : llvm::enumerate(terms)) {
    SmallVector<unsigned> dims;
    for (size_t i = 0; i <= term.letters.size(); ++i) {
      if (static_cast<int>(i) == term.ellipsisAt)
        for (unsigned e = 0; e < ellipsisDims[index]; ++e)
          dims.push_back(result.numEllipsisDims - ellipsisDims[index] + e);
      if (i == term.letters.size())
        break;
      char c = term.letters[i];
      auto [it, inserted] = loopOf.try_emplace(c, result.loopLabels.size());
      if (inserted)
        result.loopLabels.push_back(c);
      ++uses[c];
      dims.push_back(it->second);
    }
    result.inputs.push_back(dims);
  }

  if (explicitOutput) {
    for (size_t i = 0; i <= outTerm.letters.size(); ++i) {
      if (static_cast<int>(i) == outTerm.ellipsisAt)
        for (unsigned e = 0; e < result.numEllipsisDims; ++e)
          result.output.push_back(e);
      if (i == outTerm.letters.size())
        break;
      char c = outTerm.letters[i];
      auto it = loopOf.find(c);
      if (it == loopOf.end())
        return fail(Twine("output label '") + Twine(c) +
                    "' is in no input term");
      if (llvm::is_contained(result.output, it->second))
        return fail(Twine("output label '") + Twine(c) + "' is repeated");
      result.output.push_back(it->second);
    }
    if (outTerm.ellipsisAt < 0 && result.numEllipsisDims > 0)
      return fail("the output must contain '...' when inputs have broadcast "
                  "dims");
  } else {
    // Implicit output: the broadcast dims, then the letters used once, in
    // alphabetical (ASCII) order.
    for (unsigned e = 0; e < result.numEllipsisDims; ++e)
      result.output.push_back(e);
    SmallVector<char> once;
    for (auto [c, count] : uses)
      if (count == 1)
        once.push_back(c);
    llvm::sort(once);
    for (char c : once)
      result.output.push_back(loopOf[c]);
  }
  return result;
}

} // namespace odt::onnx::reduction
