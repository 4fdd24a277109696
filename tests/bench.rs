//! `bench`: a fixed search whose node count is the same on every run.

mod common;

use common::Engine;
use std::process::Command;

/// Runs `sentinel bench <depth>` and returns its output lines.
fn bench(depth: &str) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_sentinel")).args(["bench", depth]).output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap().lines().map(str::to_string).collect()
}

/// The node count from the last line, `<nodes> nodes <nps> nps`.
fn total_nodes(last: &str) -> u64 {
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert!(fields.len() == 4 && fields[1] == "nodes" && fields[3] == "nps", "last line: {last}");
    assert!(fields[2].parse::<u64>().is_ok(), "nps in {last}");
    fields[0].parse().unwrap()
}

#[test]
fn bench_is_deterministic_and_ends_with_the_total() {
    let first = bench("5");
    let second = bench("5");
    assert_eq!(first.len(), 33, "32 positions and the total");
    let nodes = total_nodes(first.last().unwrap());
    assert!(nodes > 1000);
    assert_eq!(nodes, total_nodes(second.last().unwrap()));
    // Each position's line is the same too (the nps in the last line may differ).
    assert_eq!(first[..32], second[..32]);
}

#[test]
fn bench_works_inside_the_protocols() {
    let reference = total_nodes(bench("3").last().unwrap());
    for protocol in ["uci", "xboard"] {
        let mut engine = Engine::start();
        engine.send(protocol);
        engine.send("bench 3");
        let lines = engine.expect("bench total", |l| l.ends_with(" nps") && l.contains(" nodes "));
        engine.check(total_nodes(lines.last().unwrap()) == reference, "same count as the command line");
    }
}

#[test]
fn bad_bench_depth_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_sentinel")).args(["bench", "0"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).to_lowercase().contains("depth"));
}
