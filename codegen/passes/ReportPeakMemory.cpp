//===- ReportPeakMemory.cpp - peak live intermediate bytes per entry ------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_REPORTPEAKMEMORY
#include "codegen/Passes.h.inc"

namespace {

/// A polynomial with non-negative coefficients over named dims: monomial
/// (sorted dim names, repeated for powers) -> coefficient.
using Monomial = std::vector<std::string>;
using Polynomial = std::map<Monomial, int64_t>;

Polynomial constant(int64_t value) {
  Polynomial p;
  if (value)
    p[{}] = value;
  return p;
}

Polynomial add(const Polynomial &a, const Polynomial &b) {
  Polynomial sum = a;
  for (auto &[monomial, coefficient] : b)
    sum[monomial] += coefficient;
  return sum;
}

Polynomial subtract(const Polynomial &a, const Polynomial &b) {
  Polynomial difference = a;
  for (auto &[monomial, coefficient] : b)
    if ((difference[monomial] -= coefficient) == 0)
      difference.erase(monomial);
  return difference;
}

Polynomial multiply(const Polynomial &a, const Polynomial &b) {
  Polynomial product;
  for (auto &[ma, ca] : a)
    for (auto &[mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      llvm::sort(m);
      product[m] += ca * cb;
    }
  return product;
}

/// Coefficient-wise maximum: at least each of a and b for all dims >= 0.
Polynomial upperBound(const Polynomial &a, const Polynomial &b) {
  Polynomial bound = a;
  for (auto &[monomial, coefficient] : b)
    bound[monomial] = std::max(bound[monomial], coefficient);
  return bound;
}

std::string format(const Polynomial &p) {
  if (p.empty())
    return "0";
  std::string text;
  for (auto it = p.rbegin(); it != p.rend(); ++it) {
    if (!text.empty())
      text += " + ";
    text += std::to_string(it->second);
    for (const std::string &dim : it->first)
      text += "*" + dim;
  }
  return text;
}

class PeakAnalysis {
public:
  explicit PeakAnalysis(func::FuncOp func) : func(func) {}

  /// The peak of `block` (allocations freed in it or still live at its end).
  Polynomial peakOf(Block &block) {
    Polynomial live, peak;
    for (Operation &op : block) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        Polynomial bytes = sizeOf(alloc);
        sizes[alloc.getResult()] = bytes;
        live = add(live, bytes);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        auto it = sizes.find(dealloc.getMemref());
        if (it != sizes.end() && dealloc->getBlock() == &block &&
            it->first.getParentBlock() == &block)
          live = subtract(live, it->second);
      } else {
        // Allocations inside regions (loop bodies) live while the op runs.
        Polynomial inner;
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            inner = upperBound(inner, peakOf(nested));
        peak = upperBound(peak, add(live, inner));
      }
      peak = upperBound(peak, live);
    }
    return peak;
  }

private:
  Polynomial sizeOf(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    Polynomial bytes = constant(elementBytes);
    unsigned dynamic = 0;
    for (int64_t dim : type.getShape()) {
      std::optional<Polynomial> size =
          ShapedType::isDynamic(dim)
              ? indexValue(alloc.getDynamicSizes()[dynamic++])
              : constant(dim);
      if (!size) {
        // A size read from data at run time (a Reshape target computed in
        // the graph): left out of the formula, and counted.
        ++runTimeSized;
        return {};
      }
      bytes = multiply(bytes, *size);
    }
    // Rounded up to the 64-byte alignment, for the constant part.
    if (bytes.count({}))
      bytes[{}] = (bytes[{}] + 63) / 64 * 64;
    return bytes;
  }

  /// An index value as a polynomial of named dims, if it is one.
  std::optional<Polynomial> indexValue(Value value) {
    APInt known;
    if (matchPattern(value, m_ConstantInt(&known)))
      return constant(known.getSExtValue());
    if (auto dim = value.getDefiningOp<memref::DimOp>())
      if (std::optional<int64_t> index = dim.getConstantIndex())
        return dimOf(dim.getSource(), *index);
    if (Operation *op = value.getDefiningOp();
        op && isa<arith::MulIOp, arith::AddIOp>(op)) {
      std::optional<Polynomial> lhs = indexValue(op->getOperand(0));
      std::optional<Polynomial> rhs = indexValue(op->getOperand(1));
      if (!lhs || !rhs)
        return std::nullopt;
      return isa<arith::MulIOp>(op) ? multiply(*lhs, *rhs) : add(*lhs, *rhs);
    }
    return std::nullopt;
  }

  /// Dim `d` of a buffer, through what made it: an argument (its
  /// `onnx.dims` name), an allocation's size operand, a cast, or a reshape
  /// of another buffer.
  std::optional<Polynomial> dimOf(Value buffer, int64_t d) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || d >= type.getRank())
      return std::nullopt;
    if (!type.isDynamicDim(d))
      return constant(type.getDimSize(d));
    if (auto arg = dyn_cast<BlockArgument>(buffer)) {
      if (arg.getOwner()->getParentOp() != func ||
          !arg.getOwner()->isEntryBlock())
        return std::nullopt;
      auto dims =
          func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "onnx.dims");
      if (dims && d < (int64_t)dims.size())
        if (auto name = dyn_cast<StringAttr>(dims[d]))
          return Polynomial{{{name.str()}, 1}};
      return std::nullopt;
    }
    Operation *producer = buffer.getDefiningOp();
    if (auto alloc = dyn_cast_or_null<memref::AllocOp>(producer))
      return indexValue(alloc.getDynamicSizes()[type.getDynamicDimIndex(d)]);
    if (auto cast = dyn_cast_or_null<memref::CastOp>(producer))
      return dimOf(cast.getSource(), d);
    if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(producer)) {
      OpFoldResult size = expand.getMixedOutputShape()[d];
      if (auto value = dyn_cast<Value>(size))
        return indexValue(value);
      return constant(*getConstantIntValue(size));
    }
    if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(producer)) {
      Polynomial product = constant(1);
      for (int64_t source : collapse.getReassociationIndices()[d]) {
        std::optional<Polynomial> size = dimOf(collapse.getSrc(), source);
        if (!size)
          return std::nullopt;
        product = multiply(product, *size);
      }
      return product;
    }
    return std::nullopt;
  }

public:
  /// Allocations whose size the formula leaves out.
  unsigned runTimeSized = 0;

private:
  func::FuncOp func;
  llvm::DenseMap<Value, Polynomial> sizes;
};

struct ReportPeakMemoryPass : impl::ReportPeakMemoryBase<ReportPeakMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    SmallVector<NamedAttribute> entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      PeakAnalysis analysis(func);
      Polynomial peak;
      for (Block &block : func.getBody())
        peak = upperBound(peak, analysis.peakOf(block));
      std::string text = format(peak) + " bytes";
      if (analysis.runTimeSized)
        text += llvm::formatv(" + {0} buffer(s) sized by data at run time",
                              analysis.runTimeSized)
                    .str();
      entries.push_back(
          builder.getNamedAttr(func.getSymName(), builder.getStringAttr(text)));
    }
    module->setAttr("odt.peak_memory", builder.getDictionaryAttr(entries));
  }
};

} // namespace
} // namespace odt
