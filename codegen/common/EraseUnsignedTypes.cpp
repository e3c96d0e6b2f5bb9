//===- EraseUnsignedTypes.cpp - unsigned integers to signless -------------===//
//
// ONNX's uint8..uint64 tensors reach the linalg stage with their element
// types intact (the lowerings pick unsigned arith ops from them and
// reinterpret them as signless with tensor.bitcast). Neither bufferization
// nor the LLVM lowering accepts unsigned types, so once the ops are chosen
// the types are rewritten to signless everywhere; the bits do not change.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_ERASEUNSIGNEDTYPES
#include "codegen/common/Passes.h.inc"

namespace {

struct EraseUnsignedTypesPass
    : impl::EraseUnsignedTypesBase<EraseUnsignedTypesPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    AttrTypeReplacer replacer;
    replacer.addReplacement([context](IntegerType type) -> std::optional<Type> {
      if (!type.isUnsigned())
        return std::nullopt;
      return IntegerType::get(context, type.getWidth());
    });
    // Dense constants hold their type as a parameter the generic walk does
    // not rewrite; their bits are reinterpreted instead.
    replacer.addReplacement(
        [&](DenseIntElementsAttr attr) -> std::optional<Attribute> {
          auto integer = dyn_cast<IntegerType>(attr.getElementType());
          if (!integer || !integer.isUnsigned())
            return std::nullopt;
          return attr.bitcast(IntegerType::get(context, integer.getWidth()));
        });
    replacer.addReplacement([&](IntegerAttr attr) -> std::optional<Attribute> {
      auto integer = dyn_cast<IntegerType>(attr.getType());
      if (!integer || !integer.isUnsigned())
        return std::nullopt;
      return IntegerAttr::get(IntegerType::get(context, integer.getWidth()),
                              attr.getValue());
    });
    replacer.recursivelyReplaceElementsIn(getOperation(),
                                          /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    // Bitcasts that only changed signedness are now between equal types.
    getOperation()->walk([](tensor::BitcastOp bitcast) {
      if (bitcast.getSource().getType() == bitcast.getType()) {
        bitcast.replaceAllUsesWith(bitcast.getSource());
        bitcast.erase();
      }
    });
  }
};

} // namespace
} // namespace odt
