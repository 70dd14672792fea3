# SPDX-License-Identifier: BSD-3-Clause
# The layering of the source tree, checked on the real compile commands
# (compile_commands.json): a probe that includes a header is compiled with
# the exact flags of a source file of a part. Parts may include their own
# headers and the public headers of the parts below them; including an
# internal header of another part, or a public header of a part above or
# beside, must fail to compile. Also: no '#include "../' anywhere, and no
# file directly in daemon/ but main.c and CMakeLists.txt; every source file
# starts with its SPDX license line.
#
#   cmake -DCOMPDB=<build>/compile_commands.json -DSRC=<source dir>
#         -DWORK=<scratch dir> -P check.cmake
cmake_minimum_required(VERSION 3.19)

file(READ ${COMPDB} db)
string(JSON n LENGTH "${db}")
math(EXPR last "${n} - 1")

set(failures 0)
set(checked 0)

# The compile command of @file (path relative to SRC), as a list.
function(command_of file out_cmd out_dir)
  foreach(i RANGE ${last})
    string(JSON f GET "${db}" ${i} file)
    if(f STREQUAL "${SRC}/${file}")
      string(JSON c GET "${db}" ${i} command)
      string(JSON d GET "${db}" ${i} directory)
      separate_arguments(args UNIX_COMMAND "${c}")
      set(${out_cmd} "${args}" PARENT_SCOPE)
      set(${out_dir} "${d}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no compile command for ${file} in ${COMPDB}")
endfunction()

# expect(<source of the part> <header> OK|FAIL)
function(expect src header want)
  command_of(${src} args dir)
  string(MAKE_C_IDENTIFIER "${src}_${header}" id)
  set(probe ${WORK}/${id}.c)
  file(WRITE ${probe} "#include \"${header}\"\nint layering_probe(void);\nint layering_probe(void) { return 0; }\n")
  set(cmd "")
  set(skip "")
  foreach(a IN LISTS args)
    if(skip STREQUAL "o")
      list(APPEND cmd "${WORK}/${id}.o")
      set(skip "")
    elseif(skip STREQUAL "c")
      list(APPEND cmd "${probe}")
      set(skip "")
    elseif(a STREQUAL "-o")
      list(APPEND cmd "-o")
      set(skip "o")
    elseif(a STREQUAL "-c")
      list(APPEND cmd "-c")
      set(skip "c")
    else()
      list(APPEND cmd "${a}")
    endif()
  endforeach()
  execute_process(COMMAND ${cmd} WORKING_DIRECTORY ${dir}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  math(EXPR c "${checked} + 1")
  set(checked ${c} PARENT_SCOPE)
  if(want STREQUAL "OK" AND NOT rc EQUAL 0)
    message("FAIL ${src}: #include \"${header}\" should build:\n${err}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  elseif(want STREQUAL "FAIL" AND rc EQUAL 0)
    message("FAIL ${src}: #include \"${header}\" builds, but the layering forbids it")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  elseif(want STREQUAL "FAIL" AND NOT err MATCHES "${header}: No such file")
    message("FAIL ${src}: #include \"${header}\" failed for another reason:\n${err}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  else()
    message("ok   ${src}: #include \"${header}\" ${want}")
  endif()
endfunction()

# The NVMe core: backends through bdev.h only; nothing of the FTL, the
# NAND, the transport or management.
expect(daemon/nvmf/core.c nvmf.h OK)
expect(daemon/nvmf/core.c bdev.h OK)
expect(daemon/nvmf/core.c nvme_spec.h OK)
expect(daemon/nvmf/core.c ftl.h FAIL)
expect(daemon/nvmf/core.c ftl_internal.h FAIL)
expect(daemon/nvmf/core.c nand.h FAIL)
expect(daemon/nvmf/core.c mgmt.h FAIL)
expect(daemon/nvmf/core.c adm_internal.h FAIL)
expect(daemon/nvmf/core.c config_internal.h FAIL)
expect(daemon/nvmf/core.c tcp.h FAIL)
expect(daemon/nvmf/core.c tcp_internal.h FAIL)
expect(daemon/nvmf/core.c tcp_pdu.h FAIL)
expect(daemon/nvmf/core.c nand_rt.h FAIL)
# DH-HMAC-CHAP's crypto: pure, below the core (which uses it), knows no part above.
expect(daemon/nvmf/auth.c dhchap.h OK)
expect(daemon/auth/dhchap.c nvme_spec.h OK)
expect(daemon/auth/dhchap.c nvmf.h FAIL)
expect(daemon/auth/dhchap.c tcp_pdu.h FAIL)
expect(daemon/auth/dhchap.c mgmt.h FAIL)
# The transport: the core and the PDU codec.
expect(daemon/tcp/tcp.c tcp_pdu.h OK)
expect(daemon/tcp/tcp.c nvmf.h OK)
expect(daemon/tcp/tcp.c mgmt.h FAIL)
expect(daemon/tcp/tcp.c ftl.h FAIL)
expect(daemon/tcp/tcp.c adm_internal.h FAIL)
# Backends: the FTL and the NAND through their public headers.
expect(daemon/bdev/bdev_ftl.c ftl.h OK)
expect(daemon/bdev/bdev_ftl.c nand.h OK)
expect(daemon/bdev/bdev_ftl.c ftl_internal.h FAIL)
expect(daemon/bdev/bdev_ftl.c engine_internal.h FAIL)
expect(daemon/bdev/bdev_ftl.c nvmf.h FAIL)
expect(daemon/bdev/bdev_ftl.c mgmt.h FAIL)
# Management sits on top: public headers of everything, no internals.
expect(daemon/mgmt/config.c nvmf.h OK)
expect(daemon/mgmt/config.c tcp.h OK)
expect(daemon/mgmt/config.c ftl.h OK)
expect(daemon/mgmt/config.c ftl_internal.h FAIL)
expect(daemon/mgmt/config.c tcp_internal.h FAIL)
expect(daemon/mgmt/config.c nand_rt.h FAIL)
# The FTL and the NAND know nothing above them.
expect(ftl/ftl.c nand.h OK)
expect(ftl/ftl.c engine_internal.h FAIL)
expect(ftl/ftl.c bdev.h FAIL)
expect(ftl/ftl.c nvmf.h FAIL)
expect(nand/engine.c blox_clock.h OK)
expect(nand/engine.c ftl.h FAIL)
expect(nand/engine.c bdev.h FAIL)
expect(nand/engine.c qos.h FAIL)
expect(ftl/ftl.c qos.h FAIL)
# qos/ sits above the NAND (it makes the engine's policies), below the daemon.
expect(qos/limiter.c nand.h OK)
expect(qos/limiter.c ftl_internal.h FAIL)
expect(qos/limiter.c bdev.h FAIL)
expect(qos/limiter.c nvmf.h FAIL)
expect(qos/limiter.c mgmt.h FAIL)

# No include reaches past the build's include folders.
file(GLOB_RECURSE sources ${SRC}/common/* ${SRC}/nand/* ${SRC}/ftl/* ${SRC}/qos/* ${SRC}/daemon/*
     ${SRC}/proto/* ${SRC}/cli/* ${SRC}/tests/*)
foreach(f IN LISTS sources)
  if(f MATCHES "\\.[ch]$")
    file(STRINGS ${f} bad REGEX "^[ \t]*#[ \t]*include[ \t]*\"\\.\\./")
    if(bad)
      message("FAIL ${f}: ${bad}")
      math(EXPR failures "${failures} + 1")
    endif()
  endif()
endforeach()

# Every source file says its license on its first line.
foreach(f IN LISTS sources)
  if(f MATCHES "\\.(c|h|proto)$")
    file(STRINGS ${f} first LIMIT_COUNT 1)
    if(NOT first MATCHES "SPDX-License-Identifier: BSD-3-Clause")
      message("FAIL ${f}: no SPDX-License-Identifier line first")
      math(EXPR failures "${failures} + 1")
    endif()
  endif()
endforeach()

# daemon/ holds main.c and its parts' folders, nothing else.
file(GLOB top LIST_DIRECTORIES false ${SRC}/daemon/*)
foreach(f IN LISTS top)
  get_filename_component(name ${f} NAME)
  if(NOT name MATCHES "^(main\\.c|CMakeLists\\.txt)$")
    message("FAIL daemon/${name}: a file outside the parts' folders")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

message("${checked} include probes, ${failures} failures")
if(failures GREATER 0)
  message(FATAL_ERROR "layering violated")
endif()
