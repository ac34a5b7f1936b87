//! The Rust SDK against the conformance suite: every case in conformance/cases gives exactly
//! conformance/expected/CASE.txt, the Java SDK's output for it.

use std::fs;
use std::path::PathBuf;

fn conformance() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance")
}

#[test]
fn every_case_gives_the_java_sdks_output() {
    let mut cases: Vec<PathBuf> = fs::read_dir(conformance().join("cases"))
        .expect("conformance/cases")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mdfc"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 5, "cases found: {cases:?}");
    let mut failed = Vec::new();
    for case in &cases {
        let name = case.file_stem().unwrap().to_string_lossy().to_string();
        let expected = fs::read_to_string(conformance().join("expected").join(format!("{name}.txt"))).unwrap();
        let output = mdfanout::conformance::run(&fs::read(case).unwrap()).unwrap();
        if output != expected {
            let line = output.lines().zip(expected.lines()).position(|(a, b)| a != b);
            eprintln!("{name}: differs from the Java SDK at line {:?}\n--- rust\n{output}--- java\n{expected}", line);
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "cases that differ: {failed:?}");
}

#[test]
fn a_case_that_is_no_case_is_refused() {
    assert!(mdfanout::conformance::run(b"not a case at all").is_err());
}

#[test]
fn a_misread_field_fails_the_case_that_carries_it() {
    // The suite must catch a decoder that reads one field wrong: every AddOrder's price read one tick off (what a
    // wrong offset does) changes normal-flow's output, and the comparison names that case.
    let file = fs::read(conformance().join("cases/normal-flow.mdfc")).unwrap();
    let expected = fs::read_to_string(conformance().join("expected/normal-flow.txt")).unwrap();
    assert_eq!(2, mdfanout::conformance::read_case(&file).unwrap().partitions);
    assert_ne!(expected, mdfanout::conformance::run(&rewritten(&file, 20, 28)).unwrap());
}

#[test]
fn a_misread_snapshot_field_fails_the_case_that_carries_it() {
    // The same for the recovery path: every SnapshotOrder's price read one tick off changes late-join's output.
    let file = fs::read(conformance().join("cases/late-join.mdfc")).unwrap();
    let expected = fs::read_to_string(conformance().join("expected/late-join.txt")).unwrap();
    assert!(mdfanout::conformance::read_case(&file).unwrap().recovery());
    assert_ne!(expected, mdfanout::conformance::run(&rewritten(&file, 42, 28)).unwrap());
}

/// The case with every message of template `template` in a packet given a price one tick higher (the price at
/// `price_offset` in its block).
fn rewritten(file: &[u8], template: usize, price_offset: usize) -> Vec<u8> {
    let case = mdfanout::conformance::read_case(file).unwrap();
    let header = if case.pair() { 28 } else { 20 };
    let mut misread = Vec::from(&file[..header]);
    for mut record in case.records {
        misread_prices(&mut record.bytes, template, price_offset);
        misread.extend_from_slice(&[record.kind, record.side]);
        misread.extend_from_slice(&record.partition.to_le_bytes());
        misread.extend_from_slice(&record.session_id.to_le_bytes());
        misread.extend_from_slice(&(record.bytes.len() as u32).to_le_bytes());
        misread.extend_from_slice(&record.bytes);
    }
    misread
}

fn misread_prices(bytes: &mut [u8], template_id: usize, price_offset: usize) {
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as usize;
    if bytes.len() < 8 || u16_at(bytes, 2) != 1 {
        return; // not a packet
    }
    let mut position = 8 + u16_at(bytes, 0);
    while position + 8 <= bytes.len() {
        let (block, template) = (u16_at(bytes, position), u16_at(bytes, position + 2));
        if template == template_id {
            let price = position + 8 + price_offset;
            let value = i64::from_le_bytes(bytes[price..price + 8].try_into().unwrap()) + 1;
            bytes[price..price + 8].copy_from_slice(&value.to_le_bytes());
        }
        position += 8 + block;
    }
}
