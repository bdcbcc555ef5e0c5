# `cmake --install` and the Debian package (`make package`, CPack). The layout is what the
# installed binary looks for relative to itself (src/credence/chain/program_files.hpp):
#   bin/credence
#   libexec/credence/anvil                  the local devnet's anvil (npm @foundry-rs/anvil)
#   share/credence/web/                     the explorer (web/dist, scripts/build-web.sh)
#   share/credence/abi/                     the contracts' ABIs (contracts/abi)
#   share/credence/examples/node.toml       an operator's configuration to start from
#   lib/systemd/system/credence-node.service
#   share/doc/credence/                     operating.md, node.md, api.md, copyright
include(GNUInstallDirs)
# `make package` builds only the binary: installing must not first build every test (the default
# "install depends on all").
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

if(CREDENCE_CLI)
    install(TARGETS credence RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(credence_anvil ${PROJECT_SOURCE_DIR}/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil)
set(credence_web ${PROJECT_SOURCE_DIR}/web/dist)
# Both come from npm and the web build, not from CMake: say what is missing, in one line, before
# anything is copied.
install(CODE "
    if(NOT EXISTS \"${credence_anvil}\")
        message(FATAL_ERROR \"install: ${credence_anvil} is missing; run scripts/setup.sh (npm ci)\")
    endif()
    if(NOT EXISTS \"${credence_web}/index.html\")
        message(FATAL_ERROR \"install: ${credence_web} is missing; run scripts/build-web.sh\")
    endif()")
install(PROGRAMS ${credence_anvil} DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/credence)
install(DIRECTORY ${credence_web}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/credence/web)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/contracts/abi/ DESTINATION ${CMAKE_INSTALL_DATADIR}/credence/abi
        FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/packaging/node.toml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/credence/examples)
configure_file(${PROJECT_SOURCE_DIR}/packaging/credence-node.service.in
               ${PROJECT_BINARY_DIR}/credence-node.service @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/credence-node.service DESTINATION lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/docs/operating.md ${PROJECT_SOURCE_DIR}/docs/node.md
              ${PROJECT_SOURCE_DIR}/docs/api.md ${PROJECT_SOURCE_DIR}/docs/cli.md
              ${PROJECT_SOURCE_DIR}/packaging/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package: runtime libraries found by dpkg-shlibdeps from the binary itself.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME credence)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Credence developers <credence@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "On-chain trust layer for AI agents: ERC-8004, ERC-8257 and ERC-8301 node and CLI")
set(CPACK_PACKAGE_DESCRIPTION
    "credence indexes the ERC-8004 identity, reputation and validation registries, ERC-8257 tool
registries and ERC-8301 workflows of any EVM chain into SQLite or PostgreSQL, verifies what they
point to, scores trust, and serves a REST API, an MCP endpoint and a web explorer. It also signs
and sends every registry action, runs agent workers, and starts a local devnet (anvil).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql")
# gzip: the package is mostly anvil (44 MB), which xz takes a minute to squeeze on 2 cores.
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
include(CPack)
