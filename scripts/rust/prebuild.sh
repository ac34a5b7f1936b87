#!/usr/bin/env bash
# make test starts this beside its Maven phase, at the lowest priority (as the Kubernetes tools): it builds the Rust
# SDK's tests with the live client (the Aeron C client, about 30 s of CPU from nothing) and the Python SDK's extension
# (the same again, position-independent) while the Maven tests leave CPU idle, so that the rust-test and python-test
# phases only run them. The feature archive (which implies aeron) adds the Aeron C archive client, whose C codecs
# scripts/rust/gradlew-sbe generates with the same sbe-tool jar. It waits for the jars its build script (and
# gradlew-sbe) runs sbe-tool from, which the Maven build puts in ~/.m2. Its failure fails nothing: the rust-test phase builds again and reports.
# (scripts/rust/setup.sh, which installs with apt, ran before: nothing here contends for the dpkg lock.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
m2="${HOME}/.m2/repository"
sbe="$m2/uk/co/real-logic/sbe-tool/1.38.1/sbe-tool-1.38.1.jar"
agrona="$m2/org/agrona/agrona/2.4.1/agrona-2.4.1.jar"
deadline=$(( $(date +%s) + 1500 ))
until [ -s "$sbe" ] && [ -s "$agrona" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "rust prebuild: no sbe-tool and agrona jars in ~/.m2 after 25 minutes"; exit 1; }
  sleep 5
done
sleep 5  # a jar just being written by Maven
bin="$("$root/scripts/rust/setup.sh")"
cd "$root/subscribers/rust"
PATH="$bin:$PATH" CARGO_TARGET_DIR="${RUST_TARGET_DIR:-${HOME}/.cache/mdfanout/cargo/target}" \
  cargo build --locked --features archive --tests
echo "rust prebuild: built"
# The Python SDK's extension over the same crate, with its own position-independent Aeron C client: python-test's
# build then only packages the wheel.
WHEEL_PROFILE=dev "$root/scripts/python/test.sh" --wheel-only "$root/subscribers/python/target/prebuilt-wheel"
echo "rust prebuild: the Python extension built"
