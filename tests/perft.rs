//! Drives the built `sentinel` binary: the perft suites, the output format scripts rely on,
//! and the errors for bad arguments.
//!
//! The deep counts (startpos 6, Kiwipete 5, position 3 at depth 7) are `#[ignore]`d: they
//! take seconds in a release build. Run them with
//! `cargo test --release --test perft -- --ignored`.

use std::path::PathBuf;
use std::process::{Command, Output};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";

fn sentinel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sentinel")).args(args).output().expect("run the sentinel binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn suite_path(name: &str) -> String {
    format!("{}/perft/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A file in the temporary directory, named after the test so parallel tests never share one,
/// and removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("sentinel-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("write a temporary file");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("temporary path is UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs a suite and checks that every count it checked passed.
fn assert_suite_passes(name: &str, max_depth: u32) {
    let output = sentinel(&["perft", "--epd", &suite_path(name), "--max-depth", &max_depth.to_string()]);
    let text = stdout(&output);
    assert!(output.status.success(), "{name} failed:\n{text}{}", stderr(&output));
    let summary = text.lines().last().unwrap_or_default();
    let checked: usize = summary.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(checked > 0, "no counts checked: {summary}");
    assert_eq!(summary, format!("{checked} counts checked, {checked} passed, 0 failed"));
}

#[test]
fn standard_suite_passes() {
    assert_suite_passes("standard.epd", 5);
}

#[test]
fn random_suite_passes() {
    assert_suite_passes("random.epd", 5);
}

#[test]
fn edge_case_suite_passes() {
    assert_suite_passes("edge.epd", 6);
}

#[test]
fn chess960_suite_passes() {
    assert_suite_passes("chess960.epd", 5);
}

/// Chess960 castling is written as the king taking its own rook, also when the king does not
/// move (g1) or moves one square; standard chess keeps the king's two-square move.
#[test]
fn castling_is_written_in_the_notation_of_the_variant() {
    let moves = |args: &[&str]| -> Vec<String> {
        let output = sentinel(args);
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output).lines().filter_map(|l| l.split_once(": ").map(|(mv, _)| mv.to_string())).collect()
    };
    let shredder = moves(&["perft", "2k5/8/8/8/8/8/8/1RK3R1 w GB - 0 1", "1"]);
    assert!(shredder.contains(&"c1b1".to_string()) && shredder.contains(&"c1g1".to_string()), "{shredder:?}");
    let x_fen = moves(&["perft", "--960", "4k3/8/8/8/8/8/8/R5KR w KQ - 0 1", "1"]);
    assert!(x_fen.contains(&"g1h1".to_string()) && x_fen.contains(&"g1a1".to_string()), "{x_fen:?}");
    let standard = moves(&["perft", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "1"]);
    assert!(standard.contains(&"e1g1".to_string()) && standard.contains(&"e1c1".to_string()), "{standard:?}");
    assert!(!standard.contains(&"e1h1".to_string()), "{standard:?}");
}

#[test]
fn perft_prints_each_root_move_then_the_total() {
    let output = sentinel(&["perft", "startpos", "3"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 22, "{text}");
    let mut sum = 0;
    for line in &lines[..20] {
        let (mv, count) = line.split_once(": ").unwrap_or_else(|| panic!("'{line}' is not 'move: count'"));
        assert!(mv.len() == 4 && mv.is_ascii(), "'{mv}' is not a move");
        sum += count.parse::<u64>().unwrap_or_else(|_| panic!("'{count}' is not a count"));
    }
    assert_eq!(sum, 8902);
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 8902");
}

#[test]
fn fen_may_be_one_argument_or_several_words() {
    let quoted = sentinel(&["perft", KIWIPETE, "2"]);
    let mut words: Vec<&str> = KIWIPETE.split(' ').collect();
    words.insert(0, "perft");
    words.push("2");
    let split = sentinel(&words);
    for output in [quoted, split] {
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(stdout(&output).ends_with("\nNodes searched: 2039\n"), "{}", stdout(&output));
    }
}

/// Each bad invocation exits with 2 and says what is wrong on stderr, printing no count.
#[test]
fn bad_arguments_exit_with_code_2_and_a_message() {
    let malformed = TempFile::new("malformed.epd", "8/8/8/4k3/8/8/8/4K3 w - - 0 1 ;D1 5\nstartpos ;D1 twenty\n");
    let bad_fen = TempFile::new("bad-fen.epd", "8/8/8/8/8/8/8/8 w - - 0 1 ;D1 0\n");
    let missing = std::env::temp_dir().join("sentinel-no-such-dir/none.epd");
    let cases: [(&[&str], &str); 10] = [
        (&["perft"], "usage: sentinel perft"),
        (&["perft", "startpos"], "usage: sentinel perft"),
        (&["perft", "startpos", "0"], "depth must be a whole number from 1 to 20, got '0'"),
        (&["perft", "startpos", "x"], "depth must be a whole number from 1 to 20, got 'x'"),
        (&["perft", "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1", "3"], "invalid FEN: the piece placement has 4 ranks"),
        (&["perft", "--epd", missing.to_str().unwrap()], "cannot read"),
        (&["perft", "--epd", malformed.path()], ":2: 'D1 twenty' is not of the form 'D<depth> <count>'"),
        (&["perft", "--epd", bad_fen.path()], ":1: invalid FEN: white has no king"),
        (&["perft", "--max-depth", "3"], "--epd"),
        (&["perft", "--epd", "/dev/null"], "no positions to check"),
    ];
    for (args, message) in cases {
        let output = sentinel(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(message), "{args:?}: expected '{message}' in:\n{}", stderr(&output));
        assert!(!stdout(&output).contains("Nodes searched"), "{args:?}");
    }
}

#[test]
fn a_wrong_count_fails_the_suite() {
    let suite = TempFile::new("wrong.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n");
    let output = sentinel(&["perft", "--epd", suite.path()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL  D2 expected 401 got 400"), "{text}");
    assert!(text.ends_with("2 counts checked, 1 passed, 1 failed\n"), "{text}");
}

fn assert_nodes(position: &str, depth: u32, nodes: u64) {
    let output = sentinel(&["perft", position, &depth.to_string()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).ends_with(&format!("\nNodes searched: {nodes}\n")), "{}", stdout(&output));
}

#[test]
#[ignore = "deep: run with --release -- --ignored"]
fn deep_startpos_6() {
    assert_nodes("startpos", 6, 119_060_324);
}

#[test]
#[ignore = "deep: run with --release -- --ignored"]
fn deep_kiwipete_5() {
    assert_nodes(KIWIPETE, 5, 193_690_690);
}

#[test]
#[ignore = "deep: run with --release -- --ignored"]
fn deep_position_3_depth_7() {
    assert_nodes(POSITION_3, 7, 178_633_661);
}
