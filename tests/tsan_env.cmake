# SPDX-License-Identifier: BSD-3-Clause
# Read by ctest in a ThreadSanitizer build (tests/CMakeLists.txt,
# TEST_INCLUDE_FILES) before it runs a test: the tests and the programs
# they start inherit these options. halt_on_error: the first race ends the
# process, exitcode: with 66, so the test fails (TSan's default is to go
# on and exit 66 only at the end).
if(NOT DEFINED ENV{TSAN_OPTIONS})
  set(ENV{TSAN_OPTIONS} "halt_on_error=1 exitcode=66 second_deadlock_stack=1")
endif()
