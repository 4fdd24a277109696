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

/// The network's loops (`SENTINEL_SIMD`) and whether this processor runs them, slowest first.
fn simd_paths() -> [(&'static str, bool); 4] {
    #[cfg(target_arch = "x86_64")]
    let (avx2, avx512) = (
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw"),
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (avx2, avx512) = (false, false);
    [("portable", true), ("neon", cfg!(target_arch = "aarch64")), ("avx2", avx2), ("avx512", avx512)]
}

/// Every path of the network's loops this processor runs, forced with `SENTINEL_SIMD`, gives
/// the same evaluations (`eval` of a few positions) and the same `bench`, line for line; a path
/// it lacks, or a name of none, falls back to the fastest it has with a warning on stderr, and
/// searches the same. The path taken is logged (`RUST_LOG=info`).
#[test]
fn every_simd_path_evaluates_and_benches_alike() {
    let run = |setting: &str| {
        let commands = [
            "position startpos",
            "eval",
            "position fen r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
            "eval",
            "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "eval",
            "bench 6",
        ];
        let output = Command::new(env!("CARGO_BIN_EXE_sentinel"))
            .args(commands)
            .env("SENTINEL_SIMD", setting)
            .env("RUST_LOG", "warn,sentinel::eval::nnue::simd=info")
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(output.status.success(), "{setting}: {stdout}");
        let mut lines: Vec<String> = stdout.lines().map(str::to_string).collect();
        let last = lines.pop().unwrap_or_default();
        lines.push(format!("total {}", total_nodes(&last)));
        (lines, String::from_utf8(output.stderr).unwrap())
    };
    let (reference, _) = run("portable");
    assert_eq!(reference.iter().filter(|l| l.starts_with("Network evaluation ")).count(), 3, "{reference:?}");
    let fastest = simd_paths().iter().rev().find(|(_, here)| *here).map_or("portable", |(name, _)| name);
    for (name, here) in simd_paths() {
        let (lines, stderr) = run(name);
        assert_eq!(lines, reference, "{name}");
        let taken = if here { name } else { fastest };
        assert!(stderr.contains(&format!("network loops: {taken}")), "{name}: {stderr}");
        assert_eq!(stderr.contains(&format!("SENTINEL_SIMD={name}: this processor lacks it")), !here, "{stderr}");
    }
    let (lines, stderr) = run("sse9");
    assert_eq!(lines, reference);
    assert!(
        stderr.contains(&format!(
            "SENTINEL_SIMD=sse9 names no path (auto, portable, neon, avx2, avx512); using {fastest}"
        )),
        "{stderr}"
    );
}
