# SPDX-License-Identifier: BSD-3-Clause
# Run by `cmake --install` (install(SCRIPT), systemd/CMakeLists.txt): writes
# bloxd.service with the paths of this install, whose prefix may differ
# from the configured one (--prefix), and installs it. Set before it:
# BLOX_UNIT_IN, BLOX_UNIT_OUT (a file in the build tree), BLOX_BINDIR,
# BLOX_DOCDIR, BLOX_UNITDIR (each relative to the prefix, or absolute).
foreach(v BLOX_BINDIR BLOX_DOCDIR BLOX_UNITDIR)
  if(NOT IS_ABSOLUTE "${${v}}")
    set(${v} "${CMAKE_INSTALL_PREFIX}/${${v}}")
  endif()
endforeach()
configure_file("${BLOX_UNIT_IN}" "${BLOX_UNIT_OUT}" @ONLY)
file(INSTALL DESTINATION "${BLOX_UNITDIR}" TYPE FILE FILES "${BLOX_UNIT_OUT}")
