//! `sentinel search <startpos|FEN> [--depth D | --movetime MS | --nodes N]`.

mod common;

use common::run;

#[test]
fn searches_the_start_position_to_a_depth() {
    let (code, stdout, _) = run(&["search", "startpos", "--depth", "2"]);
    assert_eq!(code, Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let (best, infos) = lines.split_last().expect("some output");
    assert!(best.starts_with("bestmove "), "{stdout}");
    assert!(!infos.is_empty() && infos.iter().all(|l| l.starts_with("info depth ")), "{stdout}");
}

#[test]
fn takes_a_fen_as_one_argument_or_as_words() {
    let fen = "6k1/8/8/8/8/8/8/6rK w - - 0 1";
    let (code, quoted, _) = run(&["search", fen, "--nodes", "1000"]);
    assert_eq!(code, Some(0));
    let words: Vec<&str> = fen.split(' ').collect();
    let (code, split, _) = run(&[&["search"], &words[..], &["--movetime", "100"]].concat());
    assert_eq!(code, Some(0));
    for stdout in [quoted, split] {
        let best = stdout.lines().last().unwrap();
        assert!(best == "bestmove h1g1" || best == "bestmove h1h2", "{stdout}");
    }
}

#[test]
fn mated_position_has_no_move() {
    let (code, stdout, _) = run(&["search", "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", "--depth", "3"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.lines().last(), Some("bestmove 0000"));
}

#[test]
fn bad_fen_is_a_usage_error() {
    let (code, stdout, stderr) = run(&["search", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1"]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("invalid FEN") && stderr.contains("en passant"), "{stderr}");
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["search"][..],
        &["search", "startpos", "--depth", "0"],
        &["search", "startpos", "--depth", "x"],
        &["search", "startpos", "--depth", "3", "--movetime", "100"],
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stdout}{stderr}");
        assert!(!stderr.is_empty());
    }
}
