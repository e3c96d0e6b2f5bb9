//===- Roles.cpp - what each entry-point argument is ----------------------===//

#include "compiler/training/Roles.h"

namespace odt {

llvm::StringRef getRoleName(ArgRole role) {
  switch (role) {
#define ODT_ROLE_SPELLING(name, value, spelling, words)                        \
  case ArgRole::name:                                                          \
    return spelling;
    ODT_ARGUMENT_ROLES(ODT_ROLE_SPELLING)
#undef ODT_ROLE_SPELLING
  case ArgRole::GradAccumFlag:
    return "grad_accumulation_flag";
  }
  return "unknown";
}

std::optional<ArgRole> parseRole(llvm::StringRef spelling) {
#define ODT_ROLE_PARSE(name, value, text, words)                               \
  if (spelling == text)                                                        \
    return ArgRole::name;
  ODT_ARGUMENT_ROLES(ODT_ROLE_PARSE)
#undef ODT_ROLE_PARSE
  if (spelling == "grad_accumulation_flag")
    return ArgRole::GradAccumFlag;
  return std::nullopt;
}

mlir::BlockArgument getRandomStateArgument(mlir::func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto role = func.getArgAttrOfType<mlir::StringAttr>(i, kRoleAttr);
        role && role.getValue() == getRoleName(ArgRole::RandomState))
      return func.getArgument(i);
  return nullptr;
}

} // namespace odt
