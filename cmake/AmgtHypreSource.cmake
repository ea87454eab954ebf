# Obtains the hypre 2.32.0 source, verifies it, and applies patches/ in order.
#
# Where the tarball comes from, first match wins:
#   1. AMGT_HYPRE_TARBALL (CMake variable or environment variable): a local file;
#   2. the cache outside the source tree (AMGT_CACHE_DIR, default ~/.cache/amgt);
#   3. Debian's source package, through the machine's configured apt sources
#      (scripts/fetch_hypre.sh: no host name is written anywhere in this repository);
#   4. the upstream GitHub release archive (same bytes as Debian's orig tarball).
# Every candidate must match AMGT_HYPRE_SHA256; a download that does not is discarded.
#
# Result: AMGT_HYPRE_SOURCE_DIR = <build>/_deps/hypre-2.32.0 (patched), re-extracted
# whenever the tarball or any patch changes.

set(AMGT_HYPRE_VERSION "2.32.0")
set(AMGT_HYPRE_SHA256 "2277b6f01de4a7d0b01cfe12615255d9640eaa02268565a7ce1a769beab25fa1")
set(AMGT_HYPRE_TARBALL_NAME "hypre_${AMGT_HYPRE_VERSION}.orig.tar.gz")
set(AMGT_HYPRE_GITHUB_URL
    "https://github.com/hypre-space/hypre/archive/refs/tags/v${AMGT_HYPRE_VERSION}.tar.gz")

if(NOT AMGT_HYPRE_TARBALL AND DEFINED ENV{AMGT_HYPRE_TARBALL})
  set(AMGT_HYPRE_TARBALL "$ENV{AMGT_HYPRE_TARBALL}")
endif()
set(AMGT_HYPRE_TARBALL "${AMGT_HYPRE_TARBALL}" CACHE FILEPATH
    "Local hypre-${AMGT_HYPRE_VERSION} tarball (optional)")

if(DEFINED ENV{AMGT_CACHE_DIR})
  set(_amgt_default_cache "$ENV{AMGT_CACHE_DIR}")
elseif(DEFINED ENV{XDG_CACHE_HOME})
  set(_amgt_default_cache "$ENV{XDG_CACHE_HOME}/amgt")
elseif(DEFINED ENV{HOME})
  set(_amgt_default_cache "$ENV{HOME}/.cache/amgt")
else()
  set(_amgt_default_cache "${CMAKE_BINARY_DIR}/_cache")
endif()
set(AMGT_CACHE_DIR "${_amgt_default_cache}" CACHE PATH
    "Download cache for the hypre tarball (outside the source tree)")

function(_amgt_sha256_ok file out)
  set(${out} FALSE PARENT_SCOPE)
  if(EXISTS "${file}")
    file(SHA256 "${file}" _sum)
    if(_sum STREQUAL AMGT_HYPRE_SHA256)
      set(${out} TRUE PARENT_SCOPE)
    else()
      message(WARNING "AMGT: ${file} has sha256 ${_sum}, expected ${AMGT_HYPRE_SHA256}; ignoring it")
    endif()
  endif()
endfunction()

function(amgt_obtain_hypre_tarball out)
  set(_cached "${AMGT_CACHE_DIR}/${AMGT_HYPRE_TARBALL_NAME}")

  if(AMGT_HYPRE_TARBALL)
    if(NOT EXISTS "${AMGT_HYPRE_TARBALL}")
      message(FATAL_ERROR "AMGT: AMGT_HYPRE_TARBALL=${AMGT_HYPRE_TARBALL} does not exist")
    endif()
    _amgt_sha256_ok("${AMGT_HYPRE_TARBALL}" _ok)
    if(NOT _ok)
      message(FATAL_ERROR "AMGT: AMGT_HYPRE_TARBALL=${AMGT_HYPRE_TARBALL} is not hypre ${AMGT_HYPRE_VERSION} (sha256 mismatch)")
    endif()
    message(STATUS "AMGT: hypre source from local tarball ${AMGT_HYPRE_TARBALL}")
    set(${out} "${AMGT_HYPRE_TARBALL}" PARENT_SCOPE)
    return()
  endif()

  _amgt_sha256_ok("${_cached}" _ok)
  if(_ok)
    message(STATUS "AMGT: hypre source from cache ${_cached}")
    set(${out} "${_cached}" PARENT_SCOPE)
    return()
  endif()

  file(MAKE_DIRECTORY "${AMGT_CACHE_DIR}")
  set(_partial "${_cached}.part")
  file(REMOVE "${_partial}")

  # Debian's source package through the configured apt sources.
  execute_process(
    COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch_hypre.sh" "${_partial}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _log ERROR_VARIABLE _log)
  _amgt_sha256_ok("${_partial}" _ok)
  if(_rc EQUAL 0 AND _ok)
    file(RENAME "${_partial}" "${_cached}")
    message(STATUS "AMGT: hypre source from Debian's source package (apt sources) -> ${_cached}")
    set(${out} "${_cached}" PARENT_SCOPE)
    return()
  endif()
  message(STATUS "AMGT: Debian source package not reachable:\n${_log}")
  file(REMOVE "${_partial}")

  message(STATUS "AMGT: downloading ${AMGT_HYPRE_GITHUB_URL}")
  file(DOWNLOAD "${AMGT_HYPRE_GITHUB_URL}" "${_partial}" STATUS _status TIMEOUT 300
       EXPECTED_HASH SHA256=${AMGT_HYPRE_SHA256})
  list(GET _status 0 _code)
  if(_code EQUAL 0)
    file(RENAME "${_partial}" "${_cached}")
    set(${out} "${_cached}" PARENT_SCOPE)
    return()
  endif()
  file(REMOVE "${_partial}")
  message(FATAL_ERROR
    "AMGT: could not obtain hypre ${AMGT_HYPRE_VERSION} (sha256 ${AMGT_HYPRE_SHA256}).\n"
    "Tried: local tarball (none given), cache ${_cached}, Debian source package, ${AMGT_HYPRE_GITHUB_URL} (${_status}).\n"
    "Put the tarball at ${_cached} or pass -DAMGT_HYPRE_TARBALL=/path/to/${AMGT_HYPRE_TARBALL_NAME}.")
endfunction()

function(amgt_prepare_hypre_source out_dir)
  amgt_obtain_hypre_tarball(_tarball)
  # the verified tarball, for the test of scripts/offline_bundle.sh --check on a complete folder
  set(AMGT_HYPRE_TARBALL_USED "${_tarball}" PARENT_SCOPE)

  # CONFIGURE_DEPENDS: a patch added later also re-runs the configure step (and so the
  # re-extraction), not only an edit of a patch that was there
  file(GLOB _patches CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/patches/*.patch")
  list(SORT _patches)
  set(_stamp_text "${AMGT_HYPRE_SHA256}\n")
  foreach(_p IN LISTS _patches)
    file(SHA256 "${_p}" _ps)
    string(APPEND _stamp_text "${_p} ${_ps}\n")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_patches})

  set(_root "${CMAKE_BINARY_DIR}/_deps")
  set(_src "${_root}/hypre-${AMGT_HYPRE_VERSION}")
  set(_stamp "${_root}/hypre-source.stamp")
  set(_old_stamp "")
  if(EXISTS "${_stamp}")
    file(READ "${_stamp}" _old_stamp)
  endif()

  if(NOT EXISTS "${_src}/src/CMakeLists.txt" OR NOT _old_stamp STREQUAL _stamp_text)
    find_program(AMGT_PATCH_EXECUTABLE patch REQUIRED)
    file(REMOVE_RECURSE "${_src}" "${_stamp}")
    file(MAKE_DIRECTORY "${_root}")
    file(ARCHIVE_EXTRACT INPUT "${_tarball}" DESTINATION "${_root}")
    if(NOT EXISTS "${_src}/src/CMakeLists.txt")
      message(FATAL_ERROR "AMGT: ${_tarball} did not unpack to ${_src}")
    endif()
    foreach(_p IN LISTS _patches)
      execute_process(
        COMMAND "${AMGT_PATCH_EXECUTABLE}" -p1 --forward --batch --no-backup-if-mismatch -i "${_p}"
        WORKING_DIRECTORY "${_src}"
        RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
      if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "AMGT: patch ${_p} does not apply to hypre ${AMGT_HYPRE_VERSION}:\n${_out}")
      endif()
      get_filename_component(_pn "${_p}" NAME)
      message(STATUS "AMGT: applied ${_pn}")
    endforeach()
    file(WRITE "${_stamp}" "${_stamp_text}")
  endif()
  set(${out_dir} "${_src}" PARENT_SCOPE)
endfunction()
