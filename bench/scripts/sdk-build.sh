# Sourced by bench/scripts/sdk-ab.sh and sdk-latency.sh (not run): the Rust examples and the Python wheel they time,
# built once per run, untimed, optimized. Needs $root (the repository) set by the caller.
#   sdk_build_rust_example NAME [FEATURES]  -> prints the path of the optimized example (cargo --locked --release,
#                                              target dir RUST_TARGET_DIR, default ~/.cache/mdfanout/cargo/target)
#   sdk_build_python OUT_DIR                -> builds the optimized wheel into OUT_DIR/wheel (scripts/python/test.sh
#                                              --wheel-only, its log OUT_DIR/wheel-build.log), installs it into a new
#                                              venv OUT_DIR/venv, prints that venv's python

sdk_build_rust_example() {
  local name="$1" features="${2:-}" bin target
  command -v cargo >/dev/null || { echo "sdk: cargo is required for the Rust and Python SDKs (rustup, or make rust-tools)" >&2; return 2; }
  bin="$("$root/scripts/rust/setup.sh")" || { echo "sdk: scripts/rust/setup.sh failed (cmake, clang, libbsd for the live client)" >&2; return 1; }
  target="${RUST_TARGET_DIR:-$HOME/.cache/mdfanout/cargo/target}"
  (cd "$root/subscribers/rust" && PATH="$bin:$PATH" CARGO_TARGET_DIR="$target" \
    cargo build --quiet --locked --release ${features:+--features "$features"} --example "$name" >&2) ||
    { echo "sdk: the Rust example $name did not build (cargo build --release ${features:+--features $features }--example $name in subscribers/rust)" >&2; return 1; }
  echo "$target/release/examples/$name"
}

sdk_build_python() {
  local out="$1"
  "$root/scripts/python/test.sh" --wheel-only "$out/wheel" >"$out/wheel-build.log" 2>&1 ||
    { tail -20 "$out/wheel-build.log" >&2; echo "sdk: the wheel did not build (see $out/wheel-build.log)" >&2; return 1; }
  rm -rf "$out/venv"
  python3 -m venv "$out/venv" >&2 || { echo "sdk: python3 -m venv failed (python3-venv installed?)" >&2; return 1; }
  "$out/venv/bin/python" -m pip install --quiet --no-index "$out"/wheel/mdfanout-*.whl >&2 ||
    { echo "sdk: the wheel did not install into $out/venv" >&2; return 1; }
  echo "$out/venv/bin/python"
}
