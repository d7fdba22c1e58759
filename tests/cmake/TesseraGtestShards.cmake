# Run by ctest (a TEST_INCLUDE_FILES script, as gtest_discover_tests's own): adds the shards of
# one GoogleTest executable as ctest tests. A shard is one process running every
# GTEST_TOTAL_SHARDS-th case of the executable (GoogleTest's sharding): one test per case
# started a process per case, whose start (loading the CUDA libraries touches 200 MB) cost more
# than most cases, and ten times more under the sanitizers.
#
#   tessera_add_gtest_shards(<exe path> <test name prefix> <labels> <environment> <cases per shard>)
#
# Tests: "<prefix>.shard<i>of<n>", n = ceil(cases / cases per shard), each with the labels and
# the environment (lists) given. A shard none of whose cases ran (all skipped: no GPU) and none
# failed is reported as skipped (run_gtest_shard.sh exits 77).
set(_tessera_shard_runner "${CMAKE_CURRENT_LIST_DIR}/run_gtest_shard.sh")  # at include time: tests/cmake
function(tessera_add_gtest_shards exe prefix labels environment per_shard)
    # listed with the variant's environment (it may change the cases), set here: ctest's
    # scripts have no CMAKE_COMMAND for `cmake -E env`
    set(restore "")
    foreach(assignment IN LISTS environment)
        string(REGEX MATCH "^([^=]+)=(.*)$" _ "${assignment}")
        set(variable "${CMAKE_MATCH_1}")
        if(DEFINED ENV{${variable}})
            list(APPEND restore "${variable}=$ENV{${variable}}")
        else()
            list(APPEND restore "${variable}")
        endif()
        set(ENV{${variable}} "${CMAKE_MATCH_2}")
    endforeach()
    execute_process(COMMAND "${exe}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 120)
    foreach(old IN LISTS restore)  # ctest's own environment as it was
        if(old MATCHES "^([^=]+)=(.*)$")
            set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
        else()
            unset(ENV{${old}})
        endif()
    endforeach()
    if(NOT status EQUAL 0)  # report the broken executable as a failing test, not silence
        add_test("${prefix}.list" "${exe}" --gtest_list_tests)
        set_tests_properties("${prefix}.list" PROPERTIES LABELS "${labels}" ENVIRONMENT "${environment}")
        return()
    endif()
    string(REGEX MATCHALL "\n  [^\n]+" cases "\n${listing}")
    list(LENGTH cases count)
    if(count EQUAL 0)
        return()
    endif()
    math(EXPR shards "(${count} + ${per_shard} - 1) / ${per_shard}")
    math(EXPR last "${shards} - 1")
    foreach(i RANGE ${last})
        set(name "${prefix}.shard${i}of${shards}")
        add_test("${name}" sh "${_tessera_shard_runner}" "${exe}" --gtest_brief=1)
        set_tests_properties("${name}" PROPERTIES
            LABELS "${labels}"
            ENVIRONMENT "${environment};GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${i}"
            TIMEOUT 1500
            SKIP_RETURN_CODE 77)
    endforeach()
endfunction()
