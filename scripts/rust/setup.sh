#!/usr/bin/env bash
# What the Rust SDK's live client (feature aeron: rusteron-client, which builds the Aeron C client from source) needs
# on a machine of this kind, idempotently: clang and libclang (bindgen), libbsd (the link), and cmake 3.30 or later
# (Aeron's CMakeLists; Debian's is 3.25) in a venv cached under ~/.cache/mdfanout/cmake-venv. Prints the directory
# to put first on PATH for the build.
set -euo pipefail

CMAKE_VERSION="4.4.5"
venv="${MDFANOUT_CMAKE_VENV:-${HOME}/.cache/mdfanout/cmake-venv}"
PYTHON="${PYTHON:-python3}"

missing=()
for pkg in clang libclang-dev libbsd-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "rust setup: installing ${missing[*]}" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi
if ! [ -x "${venv}/bin/cmake" ] || ! "${venv}/bin/cmake" --version 2>/dev/null | grep -q "version ${CMAKE_VERSION}$"; then
  echo "rust setup: cmake ${CMAKE_VERSION} into ${venv}" >&2
  mkdir -p "$(dirname "${venv}")"
  "${PYTHON}" -m venv "${venv}" >&2
  "${venv}/bin/python" -m pip install --quiet "cmake==${CMAKE_VERSION}" >&2
fi
echo "${venv}/bin"
