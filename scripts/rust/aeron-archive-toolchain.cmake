# The Rust SDK's feature `archive` (rusteron-archive, the Aeron C archive client built from source by its build
# script) runs Aeron's CMake, whose archive client needs C codecs that Aeron generates with `./gradlew` (it would
# download Gradle: no network in the builds here). Aeron's CMakeLists sets GRADLE_WRAPPER only when it is not
# defined, and cmake-rs passes the CMAKE_TOOLCHAIN_FILE environment variable to CMake: subscribers/rust/.cargo/
# config.toml names this file there, and it points GRADLE_WRAPPER at gradlew-sbe beside it, which generates the
# codecs with the project's own sbe-tool (no Gradle, no network). Harmless for rusteron-client (the feature aeron).
set(GRADLE_WRAPPER "${CMAKE_CURRENT_LIST_DIR}/gradlew-sbe" CACHE INTERNAL "sbe-tool stand-in for Aeron's gradlew")
