# Typed C++ bindings of the Credence contracts, generated at build time from the committed ABI
# snapshots contracts/abi/*.json (refreshed by scripts/export-abis.sh) by tools/gen_bindings.cpp.
# The generated sources live in the build tree only: <build>/generated/credence/chain/bindings/.
# A contract with a creation-bytecode snapshot (contracts/bytecode/<Name>.hex) also gets
# kCreationCodeHex and init_code(...), which `credence devnet` deploys (no forge at build time).
file(GLOB credence_abi_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/contracts/abi/*.json)
list(SORT credence_abi_files)
file(GLOB credence_bytecode_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/contracts/bytecode/*.hex)

# Host tool: links credence_core for keccak and to check every signature with core's parsers.
add_executable(credence_gen_bindings ${PROJECT_SOURCE_DIR}/tools/gen_bindings.cpp)
target_link_libraries(credence_gen_bindings PRIVATE credence::core nlohmann_json::nlohmann_json)
target_compile_options(credence_gen_bindings PRIVATE ${CREDENCE_WARNINGS})

set(credence_bindings_dir ${PROJECT_BINARY_DIR}/generated)
set(credence_bindings_outputs
    ${credence_bindings_dir}/credence/chain/bindings/all.hpp
    ${credence_bindings_dir}/credence/chain/bindings/all.cpp)
set(credence_bindings_sources ${credence_bindings_dir}/credence/chain/bindings/all.cpp)
foreach(abi_file ${credence_abi_files})
    get_filename_component(contract ${abi_file} NAME_WE)
    # Same rule as snake() in the generator: IdentityRegistry -> identity_registry.
    string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" snake "${contract}")
    string(REGEX REPLACE "([A-Z])([A-Z][a-z])" "\\1_\\2" snake "${snake}")
    string(TOLOWER "${snake}" snake)
    list(APPEND credence_bindings_outputs
         ${credence_bindings_dir}/credence/chain/bindings/${snake}.hpp
         ${credence_bindings_dir}/credence/chain/bindings/${snake}.cpp)
    list(APPEND credence_bindings_sources
         ${credence_bindings_dir}/credence/chain/bindings/${snake}.cpp)
endforeach()

add_custom_command(
    OUTPUT ${credence_bindings_outputs}
    COMMAND credence_gen_bindings ${credence_bindings_dir} ${credence_abi_files}
    # The generator rewrites only changed files; touch the rest so the outputs are newer than
    # their inputs and the command does not run on every build.
    COMMAND ${CMAKE_COMMAND} -E touch_nocreate ${credence_bindings_outputs}
    DEPENDS credence_gen_bindings ${credence_abi_files} ${credence_bytecode_files}
    COMMENT "Generating contract bindings from contracts/abi/"
    VERBATIM)

add_library(credence_bindings STATIC ${credence_bindings_sources}
            ${PROJECT_SOURCE_DIR}/src/credence/chain/bindings/support.cpp)
add_library(credence::bindings ALIAS credence_bindings)
target_include_directories(credence_bindings PUBLIC ${credence_bindings_dir}
                           ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(credence_bindings PUBLIC credence::core)
target_compile_options(credence_bindings PRIVATE ${CREDENCE_WARNINGS})
credence_precompile(credence_bindings)

# chain/ code (devnet_deploy) encodes through the bindings; they depend on core only, so no cycle.
if(TARGET credence_chain)
    target_link_libraries(credence_chain PUBLIC credence_bindings)
endif()
if(TARGET credence_chain_test)
    target_link_libraries(credence_chain_test PRIVATE credence_bindings)
endif()
