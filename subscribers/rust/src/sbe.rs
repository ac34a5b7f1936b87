//! The wire codecs, generated at build time by sbe-tool's Rust generator from `schemas/.../mdfanout-schema.xml`, the
//! schema the Java SDK's codecs come from (see build.rs).
#![allow(clippy::all)]
#![allow(non_camel_case_types)]
#![allow(ambiguous_glob_reexports)]
#![allow(dead_code)]
#![allow(unused_imports)]
#![allow(unused_mut)]

include!(concat!(env!("OUT_DIR"), "/sbe.rs"));
