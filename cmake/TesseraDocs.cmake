# The API reference: `cmake --build <tree> --target docs` runs Doxygen (Debian's doxygen) over
# include/tessera. Without doxygen the target is absent and configuring says so.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
    message(STATUS "Tessera: doxygen not found: no 'docs' target (apt-get install doxygen)")
    return()
endif()
set(TESSERA_DOCS_OUTPUT "${PROJECT_BINARY_DIR}/docs/api")
configure_file("${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in" "${TESSERA_DOCS_OUTPUT}/Doxyfile" @ONLY)
add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E remove -f "${TESSERA_DOCS_OUTPUT}/warnings.txt"
    COMMAND "${DOXYGEN_EXECUTABLE}" "${TESSERA_DOCS_OUTPUT}/Doxyfile"
    WORKING_DIRECTORY "${TESSERA_DOCS_OUTPUT}"
    COMMENT "API reference: ${TESSERA_DOCS_OUTPUT}/html/index.html"
    VERBATIM)
if(BUILD_TESTING)
    # every public declaration documented: Doxygen's warnings, if any, fail the test
    add_test(NAME docs.api_reference
        COMMAND "${CMAKE_COMMAND}" -DDOXYGEN=${DOXYGEN_EXECUTABLE} -DDOXYFILE=${TESSERA_DOCS_OUTPUT}/Doxyfile
                -DWARNINGS=${TESSERA_DOCS_OUTPUT}/warnings.txt -P "${PROJECT_SOURCE_DIR}/cmake/run_doxygen_check.cmake")
    set_tests_properties(docs.api_reference PROPERTIES LABELS docs)
endif()
