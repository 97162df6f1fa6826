# Included by CTest after the discovered tests (tests/CMakeLists.txt): the tests that run
# `vmaverify kernel` share the build's kernel cache and some count what it holds (the pruning of
# failed builds and of built checkers), so under `ctest -j` they take turns; every other test
# runs beside them.
foreach(test IN LISTS vmaverify_tests_TESTS)
  if(test MATCHES "^Kernel")
    set_tests_properties("${test}" PROPERTIES RESOURCE_LOCK kernel_cache)
  endif()
endforeach()
