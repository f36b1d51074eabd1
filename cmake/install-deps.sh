#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs, and only those that are missing.
# Idempotent: a second run installs nothing. Usage: install-deps.sh [core|bench|gui|test|ci|all]...
set -euo pipefail

core=(cmake ninja-build g++ pkg-config ccache
      libboost-context-dev libsqlite3-dev sqlite3
      libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev
      libpfm4-dev
      libdw-dev clang-14 llvm-14-dev
      openmpi-bin libopenmpi-dev  # ncp2 run --machine real (docs/real-machine.md)
      libucx-dev                  # ... its agents' messages (real_machine/transport.cpp)
      python3)  # tests/cli/bad_input_test.py (its sqlite3 module is in the standard library)
bench=(libbenchmark-dev libsimgrid-dev python3 valgrind)
gui=(qt6-base-dev qt6-svg-dev libgl-dev)  # qt6-svg-dev: the GUI's SVG export
# What only the tests need: a one-node Slurm cluster (tests/slurm/one_node_slurm.sh) for `ncp2 sweep
# --slurm` and real runs in an allocation. Not in core: a user's Slurm is the cluster's own, and
# `make demo` has no use for daemons. `make test` installs this group.
test=(slurm-wlm munge)
# What .ci/run's checks need besides the build: formatting, clang-tidy, the structure check;
# clang for the fuzz targets (fuzz/run.sh: libFuzzer ships with Debian's clang).
ci=(clang-format clang-tidy python3 clang)

wanted=()
for group in "${@:-core}"; do
  case "$group" in
    core)  wanted+=("${core[@]}") ;;
    bench) wanted+=("${core[@]}" "${bench[@]}") ;;
    gui)   wanted+=("${core[@]}" "${gui[@]}") ;;
    test)  wanted+=("${core[@]}" "${test[@]}") ;;
    ci)    wanted+=("${core[@]}" "${ci[@]}") ;;
    all)   wanted+=("${core[@]}" "${bench[@]}" "${gui[@]}" "${test[@]}" "${ci[@]}") ;;
    *) echo "install-deps: unknown group '$group' (core|bench|gui|test|ci|all)" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in $(printf '%s\n' "${wanted[@]}" | sort -u); do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: these Debian packages are missing: ${missing[*]}" >&2
  echo "install-deps: run as root:  apt-get update && ${cmd[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh them once if the install cannot find a package.
if ! "${cmd[@]}" >/tmp/ncp2-install-deps.log 2>&1; then
  apt-get update >>/tmp/ncp2-install-deps.log 2>&1
  "${cmd[@]}" >>/tmp/ncp2-install-deps.log 2>&1 || { cat /tmp/ncp2-install-deps.log >&2; exit 1; }
fi
