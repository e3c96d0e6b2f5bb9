//===- OrderConstantGlobals.cpp - globals in a reproducible order ---------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_ORDERCONSTANTGLOBALS
#include "codegen/common/Passes.h.inc"

namespace {

constexpr llvm::StringLiteral kConstantPrefix = "__constant_";

/// `__constant_<shape>` of a name bufferization gave, without the `_N` it
/// adds to repeated names; other names stay as they are.
StringRef baseName(StringRef name) {
  if (!name.starts_with(kConstantPrefix))
    return name;
  auto [base, suffix] = name.rsplit('_');
  bool numbered = !suffix.empty() && llvm::all_of(suffix, llvm::isDigit) &&
                  base.size() > kConstantPrefix.size();
  return numbered ? base : name;
}

struct OrderConstantGlobalsPass
    : impl::OrderConstantGlobalsBase<OrderConstantGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable table(module);
    SmallVector<memref::GlobalOp> ordered;
    llvm::DenseSet<Operation *> seen;
    module.walk([&](memref::GetGlobalOp get) {
      auto global = table.lookup<memref::GlobalOp>(get.getName());
      if (global && seen.insert(global).second)
        ordered.push_back(global);
    });
    SmallVector<memref::GlobalOp> unused;
    for (auto global : module.getOps<memref::GlobalOp>())
      if (!seen.contains(global))
        unused.push_back(global);
    llvm::sort(unused, [](memref::GlobalOp x, memref::GlobalOp y) {
      return x.getSymName() < y.getSymName();
    });
    ordered.append(unused.begin(), unused.end());
    if (ordered.empty())
      return;

    // To the top, in that order.
    Block &body = module.getBodyRegion().front();
    for (memref::GlobalOp global : llvm::reverse(ordered))
      global->moveBefore(&body, body.begin());

    // Renamed by that order, through temporary names first so that no new
    // name meets an old one.
    SymbolTableCollection tables;
    SymbolUserMap userMap(tables, module);
    llvm::DenseMap<Operation *, SmallVector<Operation *>> users;
    for (memref::GlobalOp global : ordered)
      users[global] = llvm::to_vector(userMap.getUsers(global));
    auto rename = [&](memref::GlobalOp global, const std::string &name) {
      StringAttr attr = StringAttr::get(&getContext(), name);
      for (Operation *user : users[global])
        if (failed(SymbolTable::replaceAllSymbolUses(global, attr, user)))
          return signalPassFailure();
      SymbolTable::setSymbolName(global, attr);
    };
    SmallVector<std::pair<memref::GlobalOp, std::string>> renamed;
    for (memref::GlobalOp global : ordered)
      if (global.getSymName().starts_with(kConstantPrefix))
        renamed.emplace_back(global, baseName(global.getSymName()).str());
    for (auto [index, entry] : llvm::enumerate(renamed))
      rename(entry.first,
             "odt.order_constant_globals." + std::to_string(index));
    llvm::StringMap<unsigned> earlier;
    for (auto &[global, base] : renamed) {
      unsigned &count = earlier[base];
      rename(global,
             count == 0 ? base : base + "_" + std::to_string(count - 1));
      ++count;
    }
  }
};

} // namespace
} // namespace odt
