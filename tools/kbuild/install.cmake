# Install rules: a relocatable layout under a prefix,
#
#   <prefix>/bin/kbuild
#   <prefix>/share/kbuild/   build.toml.in, templates/, skills/, references/,
#                            tools/kbuild/resources/, tools/harness/ (harness.cmake, include/, src/,
#                            python/: the peer worker `kbuild bench` runs)
#
# kbuild finds share/kbuild relative to its own executable (core/kbuild_home.cpp), so the
# prefix can be moved. The same tree as the source checkout, so KBUILD_HOME means one thing.
# Under scikit-build-core (the pip wheel) bin/ is the wheel's scripts folder and share/ its data
# folder: pip puts them in the environment's bin/ and share/, which keeps the same relation.
if(SKBUILD)
  set(KBUILD_INSTALL_BINDIR "${SKBUILD_SCRIPTS_DIR}")
  set(KBUILD_INSTALL_DATADIR "${SKBUILD_DATA_DIR}/share/kbuild")
else()
  # Literal paths: the run-time lookup is <exe>/../share/kbuild, whatever GNUInstallDirs says.
  set(KBUILD_INSTALL_BINDIR "bin")
  set(KBUILD_INSTALL_DATADIR "share/kbuild")
endif()

install(TARGETS kbuild RUNTIME DESTINATION "${KBUILD_INSTALL_BINDIR}")

set(KBUILD_DATA_EXCLUDES PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES "${PROJECT_SOURCE_DIR}/build.toml.in" DESTINATION "${KBUILD_INSTALL_DATADIR}")
# skills/cuda-kernels/references and /templates are links to the top-level folders (so SKILL.md's
# links resolve in the source tree too); installed, those folders sit beside skills/ already.
foreach(dir templates skills references)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/${dir}" DESTINATION "${KBUILD_INSTALL_DATADIR}"
          ${KBUILD_DATA_EXCLUDES} REGEX "skills/cuda-kernels/(references|templates)$" EXCLUDE)
endforeach()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/tools/kbuild/resources"
        DESTINATION "${KBUILD_INSTALL_DATADIR}/tools/kbuild")
# The harness library kbuild builds once into KBUILD_CACHE_DIR/harness/ for the kernel projects
# (core/harness_library.h), not its own tests.
install(FILES "${PROJECT_SOURCE_DIR}/tools/harness/harness.cmake"
        DESTINATION "${KBUILD_INSTALL_DATADIR}/tools/harness")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/tools/harness/include" "${PROJECT_SOURCE_DIR}/tools/harness/src"
        DESTINATION "${KBUILD_INSTALL_DATADIR}/tools/harness")
# The peer worker `kbuild bench` runs with the project's Python; its tests stay in the source tree.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/tools/harness/python"
        DESTINATION "${KBUILD_INSTALL_DATADIR}/tools/harness"
        ${KBUILD_DATA_EXCLUDES} PATTERN "test_*.py" EXCLUDE)
