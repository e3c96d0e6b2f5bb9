# Makes ModelAbi.h (the argument roles as an X-macro, and the ABI version)
# from model.fbs, so that the compiler, the runtime and flatc's reader all
# take the ABI from one file. Plain CMake, at configure time: no flatc or
# Python is needed, and a cross or Python-module build of the runtime alone
# gets the same header. CompiledModel.cpp static_asserts that every role and
# the version equal flatc's, so this parser and flatc cannot disagree
# silently.
#
#   odt_generate_model_abi(<model.fbs> <output ModelAbi.h>)
function(odt_generate_model_abi schema output)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${schema})
  file(READ ${schema} text)
  # Comments may mention braces or '=': drop them before parsing.
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")

  string(REGEX MATCH "enum ModelAbiVersion *: *int *{ *Current *= *([0-9]+) *}"
         version_declaration "${text}")
  if(NOT version_declaration)
    message(FATAL_ERROR "${schema}: no 'enum ModelAbiVersion : int { Current = N }'")
  endif()
  set(ODT_MODEL_ABI_VERSION ${CMAKE_MATCH_1})

  string(REGEX MATCH "enum ArgumentRole *: *byte *{[^}]*}" roles "${text}")
  if(NOT roles)
    message(FATAL_ERROR "${schema}: no 'enum ArgumentRole : byte { ... }'")
  endif()
  string(REGEX MATCHALL "[A-Za-z][A-Za-z0-9]* *= *[0-9]+" entries "${roles}")
  set(ODT_ARGUMENT_ROLE_ENTRIES "")
  foreach(entry ${entries})
    string(REGEX MATCH "^([A-Za-z0-9]+) *= *([0-9]+)$" _ "${entry}")
    set(name ${CMAKE_MATCH_1})
    set(value ${CMAKE_MATCH_2})
    string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" spelling "${name}")
    string(TOLOWER "${spelling}" spelling)
    string(REPLACE "_" " " words "${spelling}")
    string(APPEND ODT_ARGUMENT_ROLE_ENTRIES
           "  X(${name}, ${value}, \"${spelling}\", \"${words}\") \\\n")
  endforeach()
  # configure_file rewrites the header only when its text changes, so an
  # edit of model.fbs elsewhere does not rebuild everything that includes it.
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ModelAbi.h.in ${output} @ONLY)
endfunction()
