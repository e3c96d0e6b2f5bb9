//===- Roles.cpp - what each entry-point argument is ----------------------===//

#include "compiler/training/Roles.h"

#include "llvm/ADT/StringSwitch.h"

namespace odt {

llvm::StringRef getRoleName(ArgRole role) {
  switch (role) {
  case ArgRole::UserInput: return "user_input";
  case ArgRole::UserOutput: return "user_output";
  case ArgRole::Parameter: return "parameter";
  case ArgRole::GradientBuffer: return "gradient_buffer";
  case ArgRole::LazyResetGrad: return "lazy_reset_grad";
  case ArgRole::LearningRate: return "learning_rate";
  case ArgRole::Step: return "step";
  case ArgRole::FirstMoment: return "first_moment";
  case ArgRole::SecondMoment: return "second_moment";
  case ArgRole::UpdatedFlag: return "updated_flag";
  case ArgRole::PackedPanels: return "packed_panels";
  case ArgRole::PanelsStale: return "panels_stale";
  case ArgRole::RandomState: return "random_state";
  case ArgRole::GradAccumFlag: return "grad_accumulation_flag";
  }
  return "unknown";
}

std::optional<ArgRole> parseRole(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ArgRole>>(name)
      .Case("user_input", ArgRole::UserInput)
      .Case("user_output", ArgRole::UserOutput)
      .Case("parameter", ArgRole::Parameter)
      .Case("gradient_buffer", ArgRole::GradientBuffer)
      .Case("lazy_reset_grad", ArgRole::LazyResetGrad)
      .Case("learning_rate", ArgRole::LearningRate)
      .Case("step", ArgRole::Step)
      .Case("first_moment", ArgRole::FirstMoment)
      .Case("second_moment", ArgRole::SecondMoment)
      .Case("updated_flag", ArgRole::UpdatedFlag)
      .Case("packed_panels", ArgRole::PackedPanels)
      .Case("panels_stale", ArgRole::PanelsStale)
      .Case("random_state", ArgRole::RandomState)
      .Case("grad_accumulation_flag", ArgRole::GradAccumFlag)
      .Default(std::nullopt);
}

mlir::BlockArgument getRandomStateArgument(mlir::func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto role = func.getArgAttrOfType<mlir::StringAttr>(i, kRoleAttr);
        role && role.getValue() == getRoleName(ArgRole::RandomState))
      return func.getArgument(i);
  return nullptr;
}

} // namespace odt
