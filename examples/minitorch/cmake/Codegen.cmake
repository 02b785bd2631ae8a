# Operator code generation, after PyTorch's cmake/Codegen.cmake.
#
# CMake must know a custom command's outputs when it configures, but the
# generator decides them (one header pair per op in ops.toml). So:
#   1. configure: run gen_ops.py --dry-run, which writes generated_files.cmake
#      setting mt_generated_* to the files it would write; include() it;
#   2. build: an add_custom_command with exactly those OUTPUTs runs the
#      generator for real. It reruns when ops.toml, a template or the
#      generator changes (the dry run lists those inputs too); files whose content did not change keep their
#      timestamps, so only what depends on a changed op recompiles.
# Editing ops.toml also re-runs configure (CMAKE_CONFIGURE_DEPENDS) so that an
# added or removed op changes the output list.

find_package(Python3 3.11 REQUIRED COMPONENTS Interpreter)  # tomllib

set(MT_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
set(MT_OPS_FILE ${CMAKE_CURRENT_SOURCE_DIR}/ops.toml)
set(MT_GENERATOR ${CMAKE_CURRENT_SOURCE_DIR}/tools/gen_ops.py)

set(MT_GEN_COMMAND
  ${Python3_EXECUTABLE} ${MT_GENERATOR}
  --ops ${MT_OPS_FILE}
  --templates ${CMAKE_CURRENT_SOURCE_DIR}/tools/templates
  --install-dir ${MT_GENERATED_DIR}
  --backends cpu,cuda)

set(MT_GEN_DEPS_FILE ${MT_GENERATED_DIR}/generated_files.cmake)
execute_process(
  COMMAND ${MT_GEN_COMMAND} --dry-run --output-dependencies ${MT_GEN_DEPS_FILE}
  RESULT_VARIABLE mt_gen_result
  ERROR_VARIABLE mt_gen_error)
if(NOT mt_gen_result EQUAL 0)
  message(FATAL_ERROR "gen_ops.py --dry-run failed (${mt_gen_result}): ${mt_gen_error}")
endif()
# Sets mt_generated_{headers,cpu_sources,cuda_sources,outputs} and
# mt_generator_inputs (ops.toml, gen_ops.py and every template it reads: the
# generator says what it depends on, so no list here can fall out of date).
include(${MT_GEN_DEPS_FILE})

set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${MT_OPS_FILE} ${MT_GENERATOR})

add_custom_command(
  OUTPUT ${mt_generated_outputs}
  COMMAND ${MT_GEN_COMMAND}
  DEPENDS ${mt_generator_inputs}
  COMMENT "Generating operator registration from ops.toml"
  VERBATIM)
add_custom_target(mt_codegen DEPENDS ${mt_generated_outputs})

# Consumers of the generated headers link this and depend on mt_codegen.
add_library(mt_ops_headers INTERFACE)
target_include_directories(mt_ops_headers INTERFACE
  $<BUILD_INTERFACE:${MT_GENERATED_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
