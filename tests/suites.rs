//! `sentinel epd` on the well-known test suites in the forms their collections publish them in
//! (tests/data/suites/README.md says which form each fixture copies): every line of each file
//! is read, none is skipped, each position is searched (at depth 1, to keep the test fast), and
//! a few positions of each that the search solves at depth 8 are searched to that depth.

mod common;

use common::run;
use std::path::PathBuf;

fn suite(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "suites", name].iter().collect();
    path.to_str().unwrap().to_string()
}

/// Runs the whole file at depth 1 and checks that every one of its `count` positions ran, in
/// order, under the ids `first` and `last`, with nothing skipped.
fn runs_whole(name: &str, count: usize, first: &str, last: &str) -> Vec<String> {
    let (code, out, err) = run(&["epd", &suite(name), "--depth", "1", "--hash", "1"]);
    assert_eq!(code, Some(0), "{name}: a line was skipped or the run failed:\n{err}\n{out}");
    assert!(err.is_empty(), "{name}: {err}");
    let lines: Vec<String> = out.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), count + 1, "{name}: a line per position and the total:\n{out}");
    assert!(lines[0].starts_with(&format!("{first} ")), "{name}: {}", lines[0]);
    assert!(lines[count - 1].starts_with(&format!("{last} ")), "{name}: {}", lines[count - 1]);
    for line in &lines[..count] {
        assert!(line.contains(" solved ") || line.contains(" failed "), "{name}: {line}");
    }
    assert!(lines[count].starts_with("solved ") && lines[count].contains(&format!("/{count} (")), "{name}: {out}");
    lines
}

/// Searches the given lines of a file (by line number, from 1) to `depth` and checks that
/// each is solved.
fn solves(name: &str, numbers: &[usize], depth: u32) {
    let bytes = std::fs::read(suite(name)).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.split('\n').collect();
    let chosen: String = numbers.iter().map(|&n| format!("{}\n", lines[n - 1])).collect();
    let path = std::env::temp_dir().join(format!("sentinel-{}-few-{name}", std::process::id()));
    std::fs::write(&path, chosen).unwrap();
    let (code, out, err) = run(&["epd", path.to_str().unwrap(), "--depth", &depth.to_string(), "--hash", "4"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{name}: {err}\n{out}");
    let total = format!("solved {0}/{0} ", numbers.len());
    assert!(out.lines().last().is_some_and(|l| l.starts_with(&total)), "{name} lines {numbers:?}:\n{out}");
}

#[test]
fn bratko_kopec_in_chess_epds_form_and_as_this_repository_ships_it() {
    // Chess-EPDs writes `- - ; bm Qd1 + ; id BK.01` and ends each line with a NUL byte; the
    // fixture is this repository's suites/bratko-kopec.epd written that way.
    let lines = runs_whole("chess-epds-form-bratko-kopec.epd", 24, "BK.01", "BK.24");
    assert!(lines[0].contains("bm Qd1+"), "the check mark apart is part of the move: {}", lines[0]);
    assert!(lines[4].contains("bm Nd5 a4"), "both moves of BK.05: {}", lines[4]);
    solves("chess-epds-form-bratko-kopec.epd", &[1, 12, 13], 8);
    let (code, out, err) = run(&["epd", "suites/bratko-kopec.epd", "--depth", "1", "--hash", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.lines().last().unwrap().contains("/24 ("), "{out}");
}

#[test]
fn win_at_chess_in_two_collections_forms() {
    // Quoted ids, several best moves (WAC.031's three).
    let lines = runs_whole("wac.epd", 6, "WAC.001", "WAC.031");
    assert!(lines[5].contains("bm Qxa8 d6 dxe6"), "WAC.031's three moves: {}", lines[5]);
    solves("wac.epd", &[2, 3, 4, 6], 8);
    // CRLF line ends and analysis operations (acd, ce, dm, pv) beside bm and id.
    let lines = runs_whole("analysed-wac.epd", 6, "WAC.001", "WAC.012");
    assert!(lines[0].contains("bm Qg6, dm 2"), "{}", lines[0]);
    solves("analysed-wac.epd", &[3, 4, 6], 8);
}

#[test]
fn lct_ii_in_chess_epds_and_fabchess_forms() {
    // Chess-EPDs: `id LCTII.POS.09 c0 Boissel - Del Gobbo, corr. 1994`, a comment without its
    // own semicolon or quotes; `Qxh7 +`; NUL-ended lines.
    let lines = runs_whole("chess-epds-form-lct2.epd", 4, "LCTII.POS.01", "LCTII.FIN.04");
    assert!(lines[1].starts_with("LCTII.POS.09 "), "{}", lines[1]);
    assert!(lines[2].contains("bm Qxh7+"), "{}", lines[2]);
    assert!(lines[3].contains("bm h3, am h5"), "{}", lines[3]);
    solves("chess-epds-form-lct2.epd", &[1], 8);
    // FabChess: `id "POS-01";c0 "..."`, an operation straight after a semicolon.
    runs_whole("fabchess-form-lct2.epd", 4, "POS-01", "CMB-02");
    solves("fabchess-form-lct2.epd", &[1, 2], 8);
}

#[test]
fn kaufman_in_the_wiki_form_and_chess_epds_ccr_file() {
    let lines = runs_whole("kaufman.epd", 25, "position 01", "position 25");
    assert!(lines[2].contains("am Rd1"), "{}", lines[2]);
    solves("kaufman.epd", &[15, 24], 8);
    // Chess-EPDs' kaufman.epd (the CCR One Hour Test's positions): no ids, six fields (one as
    // `- -1 12`, one with `6;`), `Bcx3 +` for Bxc3+, an ambiguous am, NUL-ended lines. The ids
    // default to the line numbers.
    let lines = runs_whole("chess-epds-form-ccr.epd", 6, "line 1", "line 6");
    assert!(lines[1].contains("am Ncxe5 Ngxe5"), "either knight: {}", lines[1]);
    assert!(lines[2].contains("bm b4"), "{}", lines[2]);
    assert!(lines[3].contains("bm Bxc3+"), "{}", lines[3]);
    assert!(lines[5].contains("am Nxe4"), "`am Ne4` is a capture: {}", lines[5]);
    solves("chess-epds-form-ccr.epd", &[2, 4, 5], 8);
}

#[test]
fn unreadable_lines_are_named_and_the_rest_run() {
    let path = std::env::temp_dir().join(format!("sentinel-{}-mixed.epd", std::process::id()));
    let mut text = b"6k1/5ppp/8/8/8/8/8/R5K1 w - - ; bm Ra8 # ; id one\r\n".to_vec();
    text.extend_from_slice(b"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Qd1; id two\r\n");
    text.extend_from_slice(b"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8; c0 \"M\xfcller\"; id three\n");
    text.extend_from_slice(b"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8; id \"four\n");
    text.extend_from_slice(b"\0\n6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 bm Ra8#; id \"five\"");
    std::fs::write(&path, text).unwrap();
    let (code, out, err) = run(&["epd", path.to_str().unwrap(), "--depth", "2", "--hash", "1"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(1), "a skipped line makes the exit status 1: {out}{err}");
    assert!(err.contains(":2: bm: illegal move 'Qd1'; skipped"), "{err}");
    assert!(err.contains(":4: a quoted operand has no closing quote; skipped"), "{err}");
    assert_eq!(err.lines().count(), 2, "only the two bad lines are named: {err}");
    let ids: Vec<&str> = out.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(ids, ["one", "three", "five", "solved"], "{out}");
    assert!(out.contains("solved 3/3"), "{out}");
}
