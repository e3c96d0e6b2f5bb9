/*===- ModelAbi.h - the ABI between generated code and the runtime ------===*
 *
 * The one list of entry-point argument roles and the one ABI version, shared
 * by odt-compile (compiler/training/Roles.h: the `odt.role` attributes;
 * codegen/common/Descriptor.cpp: the descriptor it writes) and the runtime
 * (runtime/src/CompiledModel.h: what it reads). model.fbs declares the same
 * roles with the same values for flatc; each side static_asserts that they
 * agree, so a role added here and not there (or the other way) does not
 * build. docs/abi.md describes each role.
 *
 *===--------------------------------------------------------------------===*/

#ifndef ODT_SCHEMA_MODELABI_H
#define ODT_SCHEMA_MODELABI_H

/* Bumped when the generated entry points or the descriptor change meaning;
 * the runtime refuses a model of another version. */
#define ODT_MODEL_ABI_VERSION 1

/* X(Name, value in model.fbs, odt.role attribute spelling, words for
 * messages) */
#define ODT_ARGUMENT_ROLES(X)                                                  \
  X(UserInput, 0, "user_input", "user input")                                 \
  X(UserOutput, 1, "user_output", "user output")                              \
  X(Parameter, 2, "parameter", "parameter")                                   \
  X(GradientBuffer, 3, "gradient_buffer", "gradient buffer")                  \
  X(LazyResetGrad, 4, "lazy_reset_grad", "lazy_reset_grad")                   \
  X(LearningRate, 5, "learning_rate", "learning rate")                        \
  X(Step, 6, "step", "step")                                                  \
  X(FirstMoment, 7, "first_moment", "first moment")                           \
  X(SecondMoment, 8, "second_moment", "second moment")                        \
  X(UpdatedFlag, 9, "updated_flag", "updated flag")                           \
  X(PackedPanels, 10, "packed_panels", "packed panels")                       \
  X(PanelsStale, 11, "panels_stale", "panels stale flag")                     \
  X(RandomState, 12, "random_state", "random state")

#endif /* ODT_SCHEMA_MODELABI_H */
