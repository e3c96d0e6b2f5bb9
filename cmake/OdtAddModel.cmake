# odt_add_model(<target> ARTIFACTS <dir>
#               [TARGET_TRIPLE <triple>] [CPU <name>] [TARGET_FEATURES <+f,-g>]
#               [NAME <symbol prefix>] [OPTIONS <more odt-compile flags>...])
#
# Compiles the ONNX Runtime training artifacts in <dir> (training_model.onnx,
# eval_model.onnx, optimizer_model.onnx, checkpoint) with odt-compile at build
# time and makes <target>: a library that puts the model's code (model.o)
# into the programs linking it, with model.h on their include path. Link it and odt::runtime (or
# odt::odt_static) into an application, then create the session with
# OdtCreateTrainingSessionFromLinkedModel(<NAME>_linked_model(), ...).
#
# NAME defaults to the target's name with every character that cannot appear
# in a C identifier replaced by '_'. TARGET_TRIPLE (e.g. aarch64-linux-gnu)
# cross-compiles; without it the code is for the machine that builds, unless
# the CMake project itself cross-compiles (CMAKE_CROSSCOMPILING with
# CMAKE_CXX_COMPILER_TARGET set), whose target is then used.
#
# The odt-compile that runs is ${ODT_COMPILE} when set, else the target
# odt::odt-compile (the installed package's, or the build tree's).
include_guard(GLOBAL)

function(odt_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "ARTIFACTS;TARGET_TRIPLE;CPU;TARGET_FEATURES;NAME" "OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "odt_add_model(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_ARTIFACTS)
    message(FATAL_ERROR "odt_add_model(${target}): ARTIFACTS <folder> is required")
  endif()
  get_filename_component(artifacts "${ARG_ARTIFACTS}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${artifacts}")
    message(FATAL_ERROR "odt_add_model(${target}): ARTIFACTS folder '${artifacts}' does not exist")
  endif()
  # What odt-compile reads from an artifact folder; the training model is the
  # one it cannot do without.
  set(inputs)
  foreach(file training_model.onnx eval_model.onnx optimizer_model.onnx checkpoint)
    if(EXISTS "${artifacts}/${file}")
      list(APPEND inputs "${artifacts}/${file}")
    endif()
  endforeach()
  if(NOT EXISTS "${artifacts}/training_model.onnx")
    message(FATAL_ERROR "odt_add_model(${target}): '${artifacts}' holds no "
      "training_model.onnx (make the artifacts with `odt-compile generate-artifacts` "
      "or onnxruntime.training.artifacts.generate_artifacts)")
  endif()
  # External data files of the models change the model too.
  file(GLOB data_files "${artifacts}/*.data" "${artifacts}/*.onnx.data")
  list(APPEND inputs ${data_files})

  set(triple "${ARG_TARGET_TRIPLE}")
  if(NOT triple AND CMAKE_CROSSCOMPILING AND CMAKE_CXX_COMPILER_TARGET)
    set(triple "${CMAKE_CXX_COMPILER_TARGET}")
  endif()
  if(triple)
    # odt's runtime and models are 64-bit; odt-compile checks the rest (an
    # unknown architecture, CPU or feature) when it runs.
    if(NOT triple MATCHES "^(x86_64|aarch64|arm64|riscv64)(-[A-Za-z0-9_.]+)+$")
      message(FATAL_ERROR "odt_add_model(${target}): unknown TARGET_TRIPLE '${triple}': "
        "odt compiles for x86_64-*, aarch64-* and riscv64-* triples "
        "(e.g. aarch64-linux-gnu)")
    endif()
  endif()

  set(name "${ARG_NAME}")
  if(NOT name)
    string(MAKE_C_IDENTIFIER "${target}" name)
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "odt_add_model(${target}): NAME '${name}' is not a C identifier")
  endif()

  if(ODT_COMPILE)
    set(compiler "${ODT_COMPILE}")
    set(compiler_dependency "${ODT_COMPILE}")
  elseif(TARGET odt::odt-compile)
    set(compiler "$<TARGET_FILE:odt::odt-compile>")
    set(compiler_dependency odt::odt-compile)
  else()
    message(FATAL_ERROR "odt_add_model(${target}): no odt-compile: set ODT_COMPILE "
      "to its path, or use a package built with the compiler (ODT_BUILD_COMPILER=ON)")
  endif()

  set(flags --quiet "--name=${name}")
  if(triple)
    list(APPEND flags "--target=${triple}")
  endif()
  if(ARG_CPU)
    list(APPEND flags "--cpu=${ARG_CPU}")
  endif()
  if(ARG_TARGET_FEATURES)
    list(APPEND flags "--target-features=${ARG_TARGET_FEATURES}")
  endif()
  list(APPEND flags ${ARG_OPTIONS})

  set(out "${CMAKE_CURRENT_BINARY_DIR}/odt_models/${target}")
  add_custom_command(
    OUTPUT "${out}/model.o" "${out}/model.h"
    COMMAND "${compiler}" "${artifacts}" -o "${out}" ${flags}
    DEPENDS ${inputs} ${compiler_dependency}
    COMMENT "odt-compile ${target}: ${artifacts}"
    VERBATIM)
  add_custom_target(${target}_odt_compile DEPENDS "${out}/model.o" "${out}/model.h")
  # An interface library whose source is model.o: each program that links it
  # links the object itself (an OBJECT library of an external object passes
  # nothing on), and builds after odt-compile has run.
  add_library(${target} INTERFACE)
  target_sources(${target} INTERFACE "${out}/model.o")
  set_source_files_properties("${out}/model.o" PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_dependencies(${target} ${target}_odt_compile)
  target_include_directories(${target} INTERFACE "${out}")
endfunction()
