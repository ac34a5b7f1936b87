# One image for every mdfanout role: the container's arguments are the role and its options.
#
#   docker build -t mdfanout:dev .                  (or: make image)
#   docker run --rm mdfanout:dev fanout --help
#   docker run --rm --network host --shm-size 512m --read-only mdfanout:dev fanout --channel ...
#
# Targets: "runtime" (the default, last stage) is a Java 17 runtime with the CLI jar and its
# libraries, run as a non-root user, the distribution built by Maven in the "build" stage;
# "prebuilt" is the same image with the distribution built beforehand on the host (`make build`:
# cli/target/mdfanout.jar + cli/target/lib + cli/target/aeron-tools), for machines that cannot pull
# a builder image (`--target prebuilt`; builders skip the Maven stage then).
# Both carry Aeron's inspection tools in /opt/aeron (aeron-all.jar, kept off the roles' class path),
# as the commands aeron-stat, aeron-error-stat, aeron-loss-stat and aeron-backlog-stat on PATH
# (docs/AERON-TOOLS.md), e.g. `kubectl exec POD -c fanout -- aeron-stat AERON_DIR watch=false`.
# Build arguments:
#   BUILDER  the Maven + JDK 17 image of the build stage
#   BASE     the Java 17 runtime image (java on PATH, and at /opt/java/openjdk/bin/java as in the
#            Eclipse Temurin images, for the Aeron tools' commands; a shell is not needed)
#   VERSION, REVISION, CREATED, SOURCE  stamped into the OCI labels
ARG BUILDER=docker.io/library/maven:3.9-eclipse-temurin-17
ARG BASE=docker.io/library/eclipse-temurin:17-jre

# ---- build: the CLI and the modules it needs, tests skipped (they run in CI before an image is built) ----
FROM ${BUILDER} AS build
ARG REVISION=unknown
WORKDIR /src
COPY pom.xml ./
COPY schemas/ schemas/
COPY metrics/ metrics/
COPY affinity/ affinity/
COPY itch/ itch/
COPY simulator/ simulator/
COPY feed-handler/ feed-handler/
COPY fanout/ fanout/
COPY subscribers/ subscribers/
COPY archive/ archive/
COPY cli/ cli/
# The system tests and the benchmarks are not in the image; the reactor only needs their poms to read the module list.
COPY system-tests/pom.xml system-tests/pom.xml
COPY bench/pom.xml bench/pom.xml
# Build output that came with the context (a host build, for the prebuilt target) is dropped first.
RUN rm -rf target */target subscribers/*/target \
 && mvn -B -ntp -q -pl cli -am package -DskipTests -Dmdfanout.revision="${REVISION}" \
 && mkdir -p /dist \
 && cp cli/target/mdfanout.jar /dist/ \
 && cp -r cli/target/lib /dist/lib \
 && cp -r cli/target/aeron-tools /aeron-tools

# ---- base: the runtime image without the distribution ---------------------------------------------
FROM ${BASE} AS base
ARG BASE
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=https://github.com/mdfanout/mdfanout
LABEL org.opencontainers.image.title="mdfanout" \
      org.opencontainers.image.description="NASDAQ ITCH 5.0 feed handler, Aeron multicast fan-out and subscriber tools; the container's arguments are the role (simulator, feed-handler, replay, fanout, tail, book, stats, record) and its options" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.vendor="mdfanout" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.url="${SOURCE}" \
      org.opencontainers.image.documentation="${SOURCE}/blob/main/README.md" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="${BASE}"

# JVM options a deployment may tune (docker run -e JDK_JAVA_OPTIONS=...): the java launcher reads
# this variable itself, so the entry point needs no shell. Fixed, pre-touched heap and a throughput
# collector with short pauses for a small, allocation-free heap; no hsperfdata file (no writes
# to /tmp behind the process's back, and no stalls writing it); exit rather than limp on after
# an out-of-memory error, so the orchestrator restarts the role.
ENV JDK_JAVA_OPTIONS="-Xms256m -Xmx256m -XX:+AlwaysPreTouch -XX:+UseParallelGC -XX:+PerfDisableSharedMem -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp -Djna.tmpdir=/tmp -Daeron.print.configuration=false" \
    HOME=/tmp

# A fixed numeric uid/gid (no passwd entry needed, so any base works, even one without a shell);
# Kubernetes can check runAsNonRoot against it.
USER 10001:10001
WORKDIR /tmp
# Prometheus metrics of the roles (feed handler, fanout, subscriber tools).
EXPOSE 9401 9402 9403
# Aeron's inspection tools (scripts/image/aeron-tools): each command is a file whose first line runs
# /opt/java/openjdk/bin/java with the argument file /opt/aeron/aeron-tools.args (a small heap, the
# class path /opt/aeron/aeron-all.jar + the launcher jar), so they need no shell either; the jars come
# with the distribution below.
COPY scripts/image/aeron-tools/ /opt/aeron/
ENV PATH="/opt/aeron/bin:${PATH}"

# Writable places: /dev/shm (rings, fanout state, Aeron directories; size it with --shm-size or a
# memory-backed emptyDir) and /tmp (the tools' embedded media drivers). The opens are what Aeron
# and Agrona need; they are here rather than in JDK_JAVA_OPTIONS so overriding the tunables cannot
# drop them.
ENTRYPOINT ["java", \
  "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", \
  "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", \
  "--add-opens", "java.base/java.nio=ALL-UNNAMED", \
  "-jar", "/opt/mdfanout/mdfanout.jar"]
CMD ["--help"]

# The distribution goes in last (the layer that changes with every build). It is owned by root and
# not writable by the user the roles run as: the code cannot be changed at run time, and nothing
# below / needs to be written (read-only root filesystem).

# ---- prebuilt: the distribution built on the host (make build) (--target prebuilt) ---------------
FROM base AS prebuilt
COPY cli/target/aeron-tools/ /opt/aeron/
COPY cli/target/mdfanout.jar /opt/mdfanout/mdfanout.jar
COPY cli/target/lib/ /opt/mdfanout/lib/

# ---- runtime (the default target): the distribution the build stage made --------------------------
FROM base AS runtime
COPY --from=build /aeron-tools/ /opt/aeron/
COPY --from=build /dist/ /opt/mdfanout/
