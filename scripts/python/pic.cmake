# The Aeron C client that rusteron builds goes into the Python extension, a shared library: its static archive must be
# position-independent. rusteron sets CMAKE_C_FLAGS itself (CFLAGS is ignored), so scripts/python/ pass this file as
# CMAKE_TOOLCHAIN_FILE (../shared/notes/rust-python-sdk.md).
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
