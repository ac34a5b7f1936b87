# mdfanout: every routine task is a make target. `make demo` and `make test` do their own set-up
# on a fresh machine (JDK 17 and Maven from Debian when missing); Maven caches in ~/.m2.
SHELL := /bin/bash
MVN ?= mvn
# The git revision every role reports (--version, mdfanout_build_info): the short commit, "-dirty" when the tree has
# uncommitted changes, "unknown" outside a git checkout (a source tarball builds as well).
REVISION ?= $(shell git rev-parse --short HEAD 2>/dev/null | sed 's/$$/'"$$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"'/' || echo unknown)
MVN_FLAGS ?= -B -ntp -Dmdfanout.revision=$(or $(REVISION),unknown)
JAR := cli/target/mdfanout.jar
SOURCES := $(shell find pom.xml schemas metrics affinity itch simulator feed-handler fanout subscribers cli \( -name target -prune \) -o \( -name '*.java' -o -name '*.xml' \) -print 2>/dev/null)

.PHONY: help build test demo fuzz clean toolchain image image-test monitoring-tools netns-tools dbn-tools k8s-tools chart-test \
	node-test chaos release release-test rust-tools rust-test python-test duplicates-check module-graph-check bench-itchy bench-nats-setup bench-nats-smoke bench-nats bench-micro bench-sdk bench-derived bench bench-full bench-bundle bench-bundle-test

help:
	@echo "make demo   - build if needed, run simulator -> feed handler -> fanout -> subscriber on loopback multicast"
	@echo "make test   - run every test (unit, integration over real Aeron multicast, container image smoke test)"
	@echo "make fuzz   - fuzz the MoldUDP64/ITCH decoders and capture readers for longer (FUZZ_INPUTS, default 50M per property),"
	@echo "              then each Jazzer target (JAZZER_TARGETS) for FUZZ_SECONDS (default 300); findings land in its corpus"
	@echo "make build  - build the distribution (cli/target/mdfanout.jar + cli/target/lib, launcher bin/mdfanout)"
	@echo "make image  - build the container image IMAGE (default $(IMAGE)) with docker, or podman without a docker daemon;"
	@echo "              LOCAL_BASES=1: no pulls, local base images made from this machine's JDK, Maven and ~/.m2 (podman)"
	@echo "make image-test - build the image on the local bases and smoke-test it in containers (part of make test)"
	@echo "make chart-test - lint, render, schema-check the Helm chart and helm install it on a local control plane (part of make test)"
	@echo "make node-test - the chart on a real kubelet node here (containerd, static CPU manager): pods, pinning, helm test,"
	@echo "              Prometheus, restarts, upgrade, uninstall (part of make test)"
	@echo "make chaos  - issue 37's chaos run: a feed as a pair at 50,000 msg/s for CHAOS_SECONDS (default 300), kill -9 of a"
	@echo "              random role of a random side every few seconds; every message once, never stale (make test: 60 s)"
	@echo "make release - the release in one folder (RELEASE_DIR, default $(RELEASE_DIR)): maven/ (a Maven repository with"
	@echo "              the parent pom, schema and SDK jars with sources and javadoc), the packaged chart, the image archive"
	@echo "              with OCI labels, SHA256SUMS (docs/RELEASING.md; LOCAL_BASES=1: the image on local bases)"
	@echo "make release-test - make release, check the folder, build examples/subscriber against its maven/ alone and run"
	@echo "              it against the chain until it sees live books (part of make test)"
	@echo "make module-graph-check - the module graph in docs/DESIGN.md matches the poms (part of make test)"
	@echo "make duplicates-check - PMD CPD over the tree: fails where an idea issue 28 gave one home is duplicated (part of make test)"
	@echo "make bench-itchy [ITCH_FILE=F] - native decoder peer: the Rust itchy crate decodes F (default: a generated"
	@echo "              5M-message session in ~/.cache/mdfanout/peers) from memory; one machine-readable result line"
	@echo "make bench-nats-setup - build nats-server from the Go module proxy into ~/.cache/mdfanout/peers/bin (cached)"
	@echo "make bench-nats-smoke - NATS peer check: 1M 40-byte messages, one jnats publisher -> one subscriber, msgs/s"
	@echo "make bench-nats [NATS_RESULTS=DIR] - the chain with NATS as the fan-out (bench/e2e/nats.sh, ~3 min): latency at"
	@echo "              RATES, fan-out to NATS_FANOUT_SUBS; into DIR (a make bench results dir: ratios to the chain)"
	@echo "              or a fresh one; prints the report section"
	@echo "make bench-micro - JMH micro-benchmarks of the message path with -prof gc (~7 min); writes docs/bench/micro.md"
	@echo "make bench-sdk   - the Java, Rust and Python SDKs side by side (~6 min): throughput on the same packets, live latency"
	@echo "              on the same chain, as ratios to Java's; docs/bench/sdk-languages.md"
	@echo "make bench-derived - the derived streams' cost and benefit (~6 min): the fanout's ns per message with MBO only,"
	@echo "              with all four derived streams and with each alone; a subscriber's bytes and CPU per session on"
	@echo "              each stream against MBO's; ratios within DERIVED_ROUNDS rounds; docs/bench/derived-streams.md"
	@echo "make bench  - end-to-end benchmarks (~10 min on 2 cores): host jitter first; the chain vs raw Aeron, latency"
	@echo "              at RATES (default \"100000 1000000\"), from outside uncapped; fan-out to 1 and 8 subscribers"
	@echo "              (latency, fanout publish rate, and N on N media drivers); the sender's ceiling, then the highest"
	@echo "              clean rate (each rate passes on 2 clean trials of 3) against raw Aeron both unbatched and"
	@echo "              batched, each process's CPU; the archive (replay rate, latency with and without recording);"
	@echo "              a pair; the NATS peer; the SDKs side by side (make bench-sdk's, ~6 min more); the derived streams'"
	@echo "              cost and benefit (make bench-derived's, DERIVED_ROUNDS=2 there, ~4 min more); writes docs/BENCHMARKS.md"
	@echo "make bench-full - the long runs: make bench with long settings, then the steady-state run (100M+ messages,"
	@echo "              message path on Epsilon GC, bench/e2e/steady.sh); writes docs/BENCHMARKS.md"
	@echo "make bench-bundle - the dedicated-cores benchmark as one folder (BUNDLE_DIR, default $(BUNDLE_DIR), at most"
	@echo "              60 MiB): a jlink'ed runtime, the jars, nats-server, itchy and one script; copy it to a host with 8"
	@echo "              or more CPUs and run ./run OUT_DIR there (docs/BENCHMARKS-PINNED.md)"
	@echo "make bench-bundle-test - the bundle's dry run at tiny sizes with no system Java (part of make test)"
	@echo "make clean  - remove build output"

# The chaos run (system-tests ChaosTest) at the length issue 37 asks; make test runs the same test for 60 s.
# CHAOS_SEED replays a run's faults (the test prints its seed).
CHAOS_SECONDS ?= 300
chaos: build
	$(MVN) $(MVN_FLAGS) -pl system-tests test -Dtest=ChaosTest -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dmdfanout.chaos.seconds=$(CHAOS_SECONDS) $(if $(CHAOS_SEED),-Dmdfanout.chaos.seed=$(CHAOS_SEED))

# Installs what the build needs when it is missing; a no-op on a machine that has it.
toolchain:
	@command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])' || \
	  { echo "installing OpenJDK 17"; apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless; }
	@command -v $(MVN) >/dev/null || { echo "installing Maven"; apt-get update -qq && apt-get install -y -qq maven; }

build: toolchain $(JAR)

$(JAR): $(SOURCES)
	$(MVN) $(MVN_FLAGS) -q install -DskipTests
	@touch $(JAR)

test: toolchain monitoring-tools netns-tools dbn-tools rust-tools
	@rm -f target/test-phases.txt target/node-test.rc target/k8s-tools.rc target/rust-prebuild.rc
	@# The Kubernetes tools (built from source on a fresh machine: about 9 minutes of 2 CPUs) are built beside the
	@# Maven phase at the lowest priority (nice 19): they take what the tests leave idle, and the k8s phases below
	@# wait for them. A warm cache returns at once.
	@mkdir -p target; (nice -n 19 scripts/k8s/install-tools.sh > target/k8s-tools.log 2>&1; \
	    echo $$? > target/k8s-tools.rc) &
	@# So is the Rust SDK's build (scripts/rust/prebuild.sh: the Aeron C client from nothing on a fresh machine).
	@(RUST_TARGET_DIR="$(RUST_TARGET_DIR)" nice -n 19 scripts/rust/prebuild.sh > target/rust-prebuild.log 2>&1; \
	    echo $$? > target/rust-prebuild.rc) &
	@scripts/phase.sh maven $(MVN) $(MVN_FLAGS) install
	@scripts/phase.sh rust-prebuild-wait sh -c 'while [ ! -f target/rust-prebuild.rc ]; do sleep 2; done; \
	    tail -2 target/rust-prebuild.log'
	@scripts/phase.sh rust-test $(MAKE) --no-print-directory rust-test
	@scripts/phase.sh python-test $(MAKE) --no-print-directory python-test
	@scripts/phase.sh duplicates-check $(MAKE) --no-print-directory duplicates-check
	@scripts/phase.sh module-graph-check $(MAKE) --no-print-directory module-graph-check
	@scripts/phase.sh image-test $(MAKE) --no-print-directory image-test
	@scripts/phase.sh k8s-tools-wait sh -c 'while [ ! -f target/k8s-tools.rc ]; do sleep 2; done; \
	    tail -3 target/k8s-tools.log; exit $$(cat target/k8s-tools.rc)'
	@$(MAKE) --no-print-directory build k8s-tools
	@# The real node's test mostly waits (pods on fractions of a CPU, helm test, restarts): it runs beside the
	@# chart test (whose control plane takes other ports), the bundle's dry run and the release test, at a lower
	@# priority (nice 10): it has time to spare, they do not. Its output is printed when it ends; a failure of any
	@# of them fails make test after all have run.
	@rc=0; (nice -n 10 scripts/phase.sh node-test $(MAKE) --no-print-directory node-test > target/node-test.log 2>&1; \
	    echo $$? > target/node-test.rc) & \
	  APISERVER_PORT=16543 ETCD_PORT=12479 scripts/phase.sh chart-test $(MAKE) --no-print-directory chart-test || rc=1; \
	  scripts/phase.sh bench-bundle-test $(MAKE) --no-print-directory bench-bundle-test || rc=1; \
	  scripts/phase.sh release-test $(MAKE) --no-print-directory release-test || rc=1; \
	  wait; cat target/node-test.log; [ "$$(cat target/node-test.rc 2>/dev/null)" = 0 ] || rc=1; \
	  cat target/test-phases.txt; exit $$rc

# The Rust SDK (subscribers/rust): its codecs are generated by sbe-tool from the one schema at build time (the jars
# the Maven build put in ~/.m2), and it runs the conformance suite (conformance/) that the Java SDK's ConformanceTest
# runs in the Maven phase, and its live client (feature aeron: rusteron-client builds the Aeron C client from source,
# what scripts/rust/setup.sh installs) beside the Java one against a running chain (bin/mdfanout), and its replay
# from the archive (feature archive, which implies aeron: rusteron-archive, its C codecs by sbe-tool through
# scripts/rust/gradlew-sbe) beside Java's. The build is cached under ~/.cache/mdfanout/cargo (the Aeron C build:
# about 30 s the first time).
RUST_TARGET_DIR ?= $(HOME)/.cache/mdfanout/cargo/target
rust-tools:
	@scripts/rust/setup.sh >/dev/null

rust-test:
	@command -v cargo >/dev/null || { echo "rust-test: cargo is required (https://rustup.rs)"; exit 1; }
	@bin="$$(scripts/rust/setup.sh)" && cd subscribers/rust && \
	  PATH="$$bin:$$PATH" CARGO_TARGET_DIR="$(RUST_TARGET_DIR)" cargo test --locked --features archive

# The Python SDK (subscribers/python): its wheel built with maturin (pyo3 over the Rust crate and its live client;
# pyo3 from crates.io), installed into a new venv and tested there: the conformance suite, and the live client beside
# Java's recorder on a running chain (bin/mdfanout) (scripts/python/test.sh). The build is cached under
# ~/.cache/mdfanout/cargo/python-target.
python-test:
	@command -v cargo >/dev/null || { echo "python-test: cargo is required (https://rustup.rs)"; exit 1; }
	@scripts/python/test.sh

# Prometheus and promtool (Debian's) for MonitoringTest, which checks the dashboards and rules.
monitoring-tools:
	@command -v prometheus >/dev/null && command -v promtool >/dev/null || \
	  { echo "installing prometheus"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus; }

# iproute2 (ip netns) for TwoHostTest, which runs the fanout and its subscribers in two network namespaces.
netns-tools:
	@command -v ip >/dev/null || \
	  { echo "installing iproute2"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2; }

# databento-dbn 0.72.0 and pandas in a venv under ~/.cache/mdfanout/dbn-venv, for DbnEncoderTest, which has
# Databento's own decoder read back the DBN files the export writes (a no-op when present).
dbn-tools:
	@scripts/dbn/setup-venv.sh

# helm, kwok, etcd and kube-apiserver/controller-manager/scheduler v1.33 built from source, cached
# under ~/.cache/mdfanout/k8s (the first run takes several minutes).
k8s-tools:
	@scripts/k8s/install-tools.sh

chart-test: k8s-tools
	@scripts/k8s/chart-test.sh

# The chart on a real node of this machine: containerd and a kubelet with the static CPU manager beside the
# control plane, the chain installed, pinned, scraped, restarted, upgraded and uninstalled (scripts/k8s/node-test.sh).
node-test: build k8s-tools
	@scripts/k8s/node-test.sh

demo: build
	@scripts/demo.sh

# make test already fuzzes about 1.4M inputs; this is the long run, on demand.
FUZZ_INPUTS ?= 50000000
# The coverage-guided (Jazzer) fuzz tests, module:class, each fuzzed for FUZZ_SECONDS in a JVM of its own (Jazzer fuzzes
# one @FuzzTest per run); in every other test run they replay their committed corpus only (docs/OPERATIONS.md).
FUZZ_SECONDS ?= 300
JAZZER_TARGETS ?= subscribers/sdk:PacketDecodingFuzzTest feed-handler:GlimpseClientFuzzTest archive:SessionCatalogFuzzTest
fuzz: toolchain
	$(MVN) $(MVN_FLAGS) -q install -DskipTests
	$(MVN) $(MVN_FLAGS) -pl feed-handler test -Dtest='*FuzzTest' -Dfuzz.tries=$(FUZZ_INPUTS) -Dsurefire.failIfNoSpecifiedTests=false
	@for target in $(JAZZER_TARGETS); do \
	  echo "fuzz: $$target for $(FUZZ_SECONDS) s (Jazzer)"; \
	  JAZZER_FUZZ=1 $(MVN) $(MVN_FLAGS) -pl $${target%%:*} test-compile surefire:test@jazzer \
	    -Djazzer.targets=$${target##*:} -Djazzer.max_duration=$(FUZZ_SECONDS)s || exit 1; \
	done

# ---- container image (Dockerfile; scripts in scripts/image) --------------------------------------
# Build arguments, empty = the Dockerfile's defaults: IMAGE_BASE (Java 17 runtime image),
# IMAGE_BUILDER (Maven + JDK 17 image); IMAGE_TARGET: runtime (empty: the default, Maven builds in
# the image) or prebuilt (the host's cli/target, from make build); IMAGE_ENGINE: docker or podman
# (empty: docker when its daemon answers, else podman, installed when missing).
IMAGE ?= mdfanout:dev
IMAGE_ENGINE ?=
IMAGE_BASE ?=
IMAGE_BUILDER ?=
IMAGE_TARGET ?=
LOCAL_BASES ?= 0

ifeq ($(LOCAL_BASES),1)
image: build
	@scripts/image/setup-podman.sh
	MDFANOUT_ENGINE=podman TARGET="$(IMAGE_TARGET)" BASE="$$(scripts/image/local-bases.sh jre podman)" \
	  BUILDER="$$(scripts/image/local-bases.sh builder podman)" scripts/image/build.sh $(IMAGE) --network host
else
image:
	MDFANOUT_ENGINE="$(IMAGE_ENGINE)" BASE="$(IMAGE_BASE)" BUILDER="$(IMAGE_BUILDER)" TARGET="$(IMAGE_TARGET)" \
	  scripts/image/build.sh $(IMAGE)
endif

# Builds the image as `make image LOCAL_BASES=1` does (podman, installed when missing; the Maven
# build stage and the runtime stage on local base images) under a temporary tag and smoke-tests
# it: every role's --help, then a real chain with every role in a read-only, non-root container;
# removes what it created, keeps the cached base images.
image-test: build
	scripts/image/smoke-test.sh

# ---- release (scripts/release; docs/RELEASING.md) ----------------------------------------------------
# The image is built from the distribution `make build` made (IMAGE_TARGET=runtime: Maven again in the image),
# on the public bases, or on local ones with LOCAL_BASES=1; helm comes from k8s-tools.
RELEASE_DIR ?= target/release
release: build k8s-tools
	@LOCAL_BASES=$(LOCAL_BASES) IMAGE="$(IMAGE)" IMAGE_ENGINE="$(IMAGE_ENGINE)" IMAGE_BASE="$(IMAGE_BASE)" \
	  IMAGE_BUILDER="$(IMAGE_BUILDER)" IMAGE_TARGET="$(IMAGE_TARGET)" MVN="$(MVN)" MVN_FLAGS="$(MVN_FLAGS)" \
	  WHEEL_PROFILE="$(WHEEL_PROFILE)" scripts/release/release.sh $(RELEASE_DIR)

# A release on the local bases (as image-test builds), then the checks of scripts/release/release-test.sh. Its wheel
# is the unoptimized build (WHEEL_PROFILE=dev) that python-test compiled already: the test checks the packaging, and
# an optimized build costs make test a minute and a half of CPU beside the node test.
WHEEL_PROFILE ?= release
release-test:
	$(MAKE) release LOCAL_BASES=1 WHEEL_PROFILE=dev
	@scripts/release/release-test.sh $(RELEASE_DIR)

# PMD's copy-paste detector over the whole tree (same lines and same shapes, six lines or more): fails where one of
# the ideas issue 28 gave one home (the MoldUDP64 sequencer, the idle-strategy parser, the tools' option preamble, ...)
# is written twice again (scripts/check-duplicates.py; --all lists every other duplication).
duplicates-check:
	@scripts/check-duplicates.py

# The module dependency graph in docs/DESIGN.md against the poms (and a self-test: a wrong graph fails).
module-graph-check:
	@scripts/check-module-graph.py
	@scripts/check-module-graph.py --self-test

# ---- benchmark peers (bench/peers; caches and build output under ~/.cache/mdfanout/peers) ------------
# bench-itchy needs cargo; without ITCH_FILE it generates the session with the simulator (hence build).
ITCH_FILE ?=
ITCHY_PASSES ?= 10
bench-itchy: $(if $(ITCH_FILE),,build)
	@ITCHY_PASSES=$(ITCHY_PASSES) bench/peers/itchy-bench.sh $(ITCH_FILE)

bench-nats-setup:
	@bench/peers/nats-setup.sh

bench-nats-smoke: bench-nats-setup
	@bench/peers/nats-smoke.sh

NATS_STAMP := $(shell date -u +%Y%m%dT%H%M%SZ)
NATS_RESULTS ?= bench/e2e/results/nats-$(NATS_STAMP)
bench-nats: build bench-nats-setup
	@bench/e2e/nats.sh $(NATS_RESULTS)
	@python3 bench/e2e/report_nats.py $(NATS_RESULTS)
# ---- benchmarks (never part of make test) ---------------------------------------------------------
# JMH micro-benchmarks: builds bench/ (and what it depends on), runs every benchmark with the gc
# profiler and regenerates docs/bench/micro.md from the JSON results. JMH_ARGS overrides the settings.
JMH_ARGS ?= -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc
ITCHY_MICRO_PASSES ?= 50
DECODER_ROUNDS ?= 3
BENCH_CP := bench/target/mdfanout-bench.jar:bench/target/lib/*
bench-micro: toolchain
	$(MVN) $(MVN_FLAGS) -q -pl bench -am package -DskipTests
	java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp '$(BENCH_CP)' io.mdfanout.bench.WriteSession bench/target/session.itch
	@# The native decoder peer on the very bytes ItchNormalizeBenchmark normalizes, in the same run.
	ITCHY_PASSES=$(ITCHY_MICRO_PASSES) bench/peers/itchy-bench.sh bench/target/session.itch | tee bench/target/itchy.txt \
	  || echo "itchy: unavailable (see above)" >bench/target/itchy.txt
	java -cp '$(BENCH_CP)' org.openjdk.jmh.Main $(JMH_ARGS) -rf json -rff bench/target/jmh.json
	@# Then the two at the same time, DECODER_ROUNDS rounds, for a ratio that the machine's drift cannot tilt.
	ROUNDS=$(DECODER_ROUNDS) BENCH_CP='$(BENCH_CP)' bench/scripts/decoder-ab.sh bench/target/session.itch bench/target/decoder-ab
	python3 bench/scripts/jmh-table.py bench/target/jmh.json docs/bench/micro.md \
	  "java -cp '$(BENCH_CP)' org.openjdk.jmh.Main $(JMH_ARGS) -rf json -rff bench/target/jmh.json" bench/target/itchy.txt \
	  bench/target/decoder-ab

# The subscriber SDKs (Java, Rust, Python) side by side in one run (bench/scripts/sdk-ab.sh; about 6 minutes): their
# throughput on the same packets, then their live latency on the same chain (bin/mdfanout, hence build); writes both
# tables into docs/bench/sdk-languages.md. make bench runs the same script as its sdk phase.
SDK_ROUNDS ?= 3
bench-sdk: toolchain rust-tools build
	$(MVN) $(MVN_FLAGS) -q -pl bench -am package -DskipTests
	ROUNDS=$(SDK_ROUNDS) BENCH_CP='$(BENCH_CP)' bench/scripts/sdk-ab.sh bench/target/sdk-ab docs/bench/sdk-languages.md

# The derived streams' cost and benefit in one run (bench/scripts/derived-ab.sh, issue 40): the fanout's nanoseconds per
# message publishing MBO only, MBO and all four derived streams, and MBO and each alone (FanoutDerivedBenchmark), and a
# subscriber's bytes (DerivedStreamBytes) and CPU (DerivedSubscriberBenchmark) per session on each stream against a full
# MBO subscriber's, as ratios within each of DERIVED_ROUNDS rounds; writes the tables into docs/bench/derived-streams.md.
# make bench runs the same script as its derived phase, with 2 rounds.
DERIVED_ROUNDS ?= 3
bench-derived: toolchain
	$(MVN) $(MVN_FLAGS) -q -pl bench -am package -DskipTests
	ROUNDS=$(DERIVED_ROUNDS) BENCH_CP='$(BENCH_CP)' bench/scripts/derived-ab.sh bench/target/derived-ab docs/bench/derived-streams.md

# ---- end-to-end benchmarks (bench/e2e; results under bench/e2e/results/<UTC time>, report docs/BENCHMARKS.md) --
bench: build
	@# the SDK phase's Java benchmark (SdkBookBenchmark) and the derived phase's, as make bench-sdk and bench-derived build them
	$(MVN) $(MVN_FLAGS) -q -pl bench -am package -DskipTests
	@SDK_ROUNDS=$(SDK_ROUNDS) DERIVED_ROUNDS=$(if $(filter command line environment,$(origin DERIVED_ROUNDS)),$(DERIVED_ROUNDS),2) \
	  bench/e2e/run.sh

# The long runs: one results directory for both, then one report. BENCH_FULL_ENV overrides the long settings.
BENCH_FULL_ENV ?= RATES="10000 100000 1000000" OUTSIDE_RATES="10000 100000 1000000" OUTSIDE_PAIRS=3 NATS_RATES="10000 100000 1000000" MAX_MESSAGES=0 DURATION_S=120 FANOUT_S=60 PUB_MESSAGES=50000000 STEP_S=10 SEARCH_STEPS=7 NATS_FANOUT_SUBS="1 8" PUB_PAIRS=3 ARCHIVE_S=30
# The dedicated-cores benchmark bundle (bench/bundle): built here, run on a many-core host, reported with
# bench/e2e/report.py --pinned. The dry run runs it here at tiny sizes with this machine's Java hidden.
BUNDLE_DIR ?= bench/target/bench-bundle
bench-bundle: build
	@bench/bundle/build.sh $(BUNDLE_DIR)
bench-bundle-test: bench-bundle
	@bench/bundle/dry-run.sh $(BUNDLE_DIR)

bench-full: build
	@results=bench/e2e/results/$$(date -u +%Y%m%dT%H%M%SZ)-full; \
	  $(BENCH_FULL_ENV) RESULTS_DIR=$$results NO_REPORT=1 bench/e2e/run.sh; \
	  RESULTS_DIR=$$results NO_REPORT=1 bench/e2e/steady.sh; steady=$$?; \
	  python3 bench/e2e/report.py $$results; exit $$steady

clean:
	$(MVN) $(MVN_FLAGS) -q clean
