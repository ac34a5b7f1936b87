# mdfanout: every routine task is a make target. `make demo` and `make test` do their own set-up
# on a fresh machine (JDK 17 and Maven from Debian when missing); Maven caches in ~/.m2.
SHELL := /bin/bash
MVN ?= mvn
MVN_FLAGS ?= -B -ntp
JAR := cli/target/mdfanout.jar
SOURCES := $(shell find pom.xml schemas feed-handler fanout subscribers cli \( -name target -prune \) -o \( -name '*.java' -o -name '*.xml' \) -print 2>/dev/null)

.PHONY: help build test demo fuzz clean toolchain

help:
	@echo "make demo   - build if needed, run simulator -> feed handler -> fanout -> subscriber on loopback multicast"
	@echo "make test   - run every test (unit, integration over real Aeron multicast)"
	@echo "make fuzz   - fuzz the MoldUDP64/ITCH decoders and capture readers for longer (FUZZ_INPUTS, default 50M per property)"
	@echo "make build  - build the distribution (cli/target/mdfanout.jar + cli/target/lib, launcher bin/mdfanout)"
	@echo "make clean  - remove build output"

# Installs what the build needs when it is missing; a no-op on a machine that has it.
toolchain:
	@command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])' || \
	  { echo "installing OpenJDK 17"; apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless; }
	@command -v $(MVN) >/dev/null || { echo "installing Maven"; apt-get update -qq && apt-get install -y -qq maven; }

build: toolchain $(JAR)

$(JAR): $(SOURCES)
	$(MVN) $(MVN_FLAGS) -q install -DskipTests
	@touch $(JAR)

test: toolchain
	$(MVN) $(MVN_FLAGS) install

demo: build
	@scripts/demo.sh

# make test already fuzzes about 1.4M inputs; this is the long run, on demand.
FUZZ_INPUTS ?= 50000000
fuzz: toolchain
	$(MVN) $(MVN_FLAGS) -q install -DskipTests
	$(MVN) $(MVN_FLAGS) -pl feed-handler test -Dtest='*FuzzTest' -Dfuzz.tries=$(FUZZ_INPUTS) -Dsurefire.failIfNoSpecifiedTests=false

clean:
	$(MVN) $(MVN_FLAGS) -q clean
