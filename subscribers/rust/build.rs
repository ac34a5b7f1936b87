//! Generates the wire codecs from the project's one schema with sbe-tool's Rust generator, at build time, so the Rust
//! SDK never holds a hand-copied codec that could drift from the Java one.
//!
//! sbe-tool writes a crate of its own (a `lib.rs` declaring one module per file, each using `crate::*`). It is folded
//! here into one file, `$OUT_DIR/sbe.rs`, that `src/sbe.rs` includes as the module `mdfanout::sbe`: each file becomes
//! an inline module and `crate::` becomes `crate::sbe::`.
//!
//! Needs `java` and the sbe-tool and agrona jars: `SBE_TOOL_JAR` and `AGRONA_JAR`, or else the versions of the root
//! pom.xml in `~/.m2` (a `make` of the Java build puts them there).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const SBE_VERSION: &str = "1.38.1";
const AGRONA_VERSION: &str = "2.4.1";

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    // A packaged crate carries the schema (schema/, put there by the release); in the source tree it is the one of
    // the schemas module, where the Java codecs come from.
    let packaged = manifest.join("schema/mdfanout-schema.xml");
    let schema = if packaged.exists() {
        packaged
    } else {
        manifest.join("../../schemas/src/main/resources/mdfanout-schema.xml")
    };
    println!("cargo:rerun-if-changed={}", schema.display());
    println!("cargo:rerun-if-env-changed=SBE_TOOL_JAR");
    println!("cargo:rerun-if-env-changed=AGRONA_JAR");

    let home = env::var("HOME").unwrap_or_else(|_| "/root".into());
    let m2 = Path::new(&home).join(".m2/repository");
    let sbe_jar = env::var("SBE_TOOL_JAR").map(PathBuf::from).unwrap_or_else(|_| {
        m2.join(format!("uk/co/real-logic/sbe-tool/{SBE_VERSION}/sbe-tool-{SBE_VERSION}.jar"))
    });
    let agrona_jar = env::var("AGRONA_JAR").map(PathBuf::from).unwrap_or_else(|_| {
        m2.join(format!("org/agrona/agrona/{AGRONA_VERSION}/agrona-{AGRONA_VERSION}.jar"))
    });
    for jar in [&sbe_jar, &agrona_jar] {
        if !jar.exists() {
            panic!(
                "{} is missing: build the Java modules first (make build), or point SBE_TOOL_JAR and AGRONA_JAR at the jars",
                jar.display()
            );
        }
    }

    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let generated = out.join("sbe-generated");
    let _ = fs::remove_dir_all(&generated);
    let status = Command::new("java")
        .arg("-Dsbe.target.language=Rust")
        .arg("-Dsbe.generate.ir=false")
        .arg(format!("-Dsbe.output.dir={}", generated.display()))
        .arg("-cp")
        .arg(format!("{}:{}", sbe_jar.display(), agrona_jar.display()))
        .arg("uk.co.real_logic.sbe.SbeTool")
        .arg(&schema)
        .status()
        .expect("cannot run java (sbe-tool generates the codecs)");
    assert!(status.success(), "sbe-tool failed on {}", schema.display());

    let src = generated.join("io_mdfanout_sbe/src");
    let lib = fs::read_to_string(src.join("lib.rs")).expect("sbe-tool wrote no lib.rs");
    let mut folded = String::new();
    let mut modules = Vec::new();
    for line in lib.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("#![") {
            continue; // inner attributes: src/sbe.rs puts them on the module
        }
        if let Some(name) = trimmed.strip_prefix("pub mod ").and_then(|rest| rest.strip_suffix(';')) {
            modules.push(name.to_string());
            continue;
        }
        folded.push_str(&line.replace("crate::", "crate::sbe::"));
        folded.push('\n');
    }
    for name in modules {
        let body = fs::read_to_string(src.join(format!("{name}.rs"))).expect("a module sbe-tool declared");
        folded.push_str(&format!("pub mod {name} {{\n"));
        folded.push_str(&body.replace("crate::", "crate::sbe::"));
        folded.push_str("}\n");
    }
    fs::write(out.join("sbe.rs"), folded).unwrap();
}
