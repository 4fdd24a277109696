//! OpenBench's contract, as its client drives an engine: UCI commands as command-line
//! arguments (`sentinel "setoption name EvalFile value F" bench`), `genfens` for its opening
//! books, and the `openings` command that makes the same positions for our own scripts.

mod common;

use common::run;
use std::collections::HashSet;

/// The node count of a bench's last line, `<nodes> nodes <nps> nps`.
fn bench_nodes(stdout: &str) -> u64 {
    let last = stdout.lines().last().unwrap_or_default();
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert!(fields.len() == 4 && fields[1] == "nodes", "last line: {last}\n{stdout}");
    fields[0].parse().unwrap()
}

/// The FENs of the `info string genfens <FEN>` lines, checked to be positions.
fn genfens_lines(stdout: &str) -> Vec<String> {
    let fens: Vec<String> =
        stdout.lines().filter_map(|l| l.strip_prefix("info string genfens ")).map(str::to_string).collect();
    for fen in &fens {
        let (code, out, _) = run(&["perft", fen, "1"]);
        assert_eq!(code, Some(0), "{fen} is not a position:\n{out}");
    }
    fens
}

/// The 64 squares of a FEN's placement, a8 first ('.' for an empty one).
fn squares(fen: &str) -> impl Iterator<Item = char> + '_ {
    let placement = fen.split(' ').next().unwrap_or_default();
    placement.chars().filter(|c| *c != '/').flat_map(|c| match c.to_digit(10) {
        Some(n) => vec!['.'; n as usize],
        None => vec![c],
    })
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("sentinel-openbench-{}-{name}", std::process::id()))
}

#[test]
fn arguments_run_as_uci_commands_with_the_engine_s_evaluation() {
    let (code, plain, _) = run(&["bench", "3"]);
    assert_eq!(code, Some(0));
    let reference = bench_nodes(&plain);
    let (code, out, _) = run(&["bench 3", "quit"]);
    assert_eq!((code, bench_nodes(&out)), (Some(0), reference), "{out}");

    // The built-in network named as a file is the same evaluation; the hand-crafted one is not.
    let network = concat!(env!("CARGO_MANIFEST_DIR"), "/src/eval/network.nnue");
    let (code, out, _) = run(&[&format!("setoption name EvalFile value {network}"), "bench 3"]);
    assert_eq!((code, bench_nodes(&out)), (Some(0), reference), "{out}");
    let (code, out, _) = run(&["setoption name Use NNUE value false", "bench 3"]);
    assert_eq!(code, Some(0));
    assert_ne!(bench_nodes(&out), reference, "bench searched with the built-in network:\n{out}");
}

#[test]
fn a_search_given_as_an_argument_finishes_and_an_endless_one_is_stopped() {
    let (code, out, _) = run(&["position startpos moves e2e4", "go depth 6"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.lines().any(|l| l.starts_with("info depth 6 ")), "the search was cut short:\n{out}");
    assert!(out.lines().last().is_some_and(|l| l.starts_with("bestmove ")), "{out}");

    let (code, out, _) = run(&["go infinite"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.lines().last().is_some_and(|l| l.starts_with("bestmove ")), "{out}");
}

/// On the command line as in a session, a network file of a shape the engine does not read is
/// refused with what it is and what the engine reads, and the run fails (exit code 2) after
/// the bench ran with the built-in network.
#[test]
fn a_network_of_another_shape_fails_the_run_with_the_reason() {
    let mut bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/eval/network.nnue")).unwrap();
    bytes[12..16].copy_from_slice(&256u32.to_le_bytes());
    let path = temp_path("narrow.nnue");
    std::fs::write(&path, &bytes).unwrap();
    let (code, reference, _) = run(&["bench", "2"]);
    assert_eq!(code, Some(0));
    let (code, out, err) = run(&[&format!("setoption name EvalFile value {}", path.display()), "bench 2"]);
    assert_eq!(code, Some(2), "{out}");
    let reason = "the network has 256 hidden neurons, SCReLU, 8 output buckets, no king buckets; this engine reads \
                  only 512 hidden neurons, SCReLU, 8 output buckets, no king buckets";
    assert!(out.lines().any(|l| l.starts_with("info string cannot use the network") && l.contains(reason)), "{out}");
    assert!(err.contains("1 of the commands failed"), "{err}");
    assert_eq!(bench_nodes(&out), bench_nodes(&reference), "the bench ran with the built-in network:\n{out}");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_refused_argument_fails_the_run_after_the_others_ran() {
    let (code, out, err) = run(&["nonsense", "bench 2"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("info string unknown command: nonsense"), "{out}");
    assert!(bench_nodes(&out) > 0, "the later command did not run:\n{out}");
    assert!(err.contains("1 of the commands failed"), "{err}");
}

#[test]
fn genfens_from_scratch_is_deterministic_and_new() {
    let command = |seed: u32| format!("genfens 6 seed {seed} book None nodes 3000");
    let (code, out, _) = run(&[&command(3), "quit"]);
    assert_eq!(code, Some(0), "{out}");
    let fens = genfens_lines(&out);
    assert_eq!(fens.len(), 6, "{out}");
    let distinct: HashSet<&str> = fens.iter().map(|f| f.rsplitn(3, ' ').last().unwrap()).collect();
    assert_eq!(distinct.len(), 6, "{out}");
    for fen in &fens {
        // Eight random plies from the start position: White to move at move 5. (The unit tests
        // check the verification search's score, which only its exact limits reproduce.)
        assert!(fen.contains(" w ") && fen.ends_with(" 5"), "{fen}");
    }
    assert_eq!(genfens_lines(&run(&[&command(3), "quit"]).1), fens);
    assert_ne!(genfens_lines(&run(&[&command(4), "quit"]).1), fens);
}

#[test]
fn genfens_from_a_book_starts_from_its_lines() {
    let book = temp_path("book.epd");
    std::fs::write(&book, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - hmvc 2; fmvn 3;\n").unwrap();
    let command = format!("genfens 3 seed 1 book {} nodes 3000", book.display());
    let (code, out, _) = run(&[&command, "quit"]);
    assert_eq!(code, Some(0), "{out}");
    let fens = genfens_lines(&out);
    assert_eq!(fens.len(), 3, "{out}");
    let line = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R";
    for fen in &fens {
        // Two random plies from the book's line (its counters left out, so move 1): White to
        // move at move 2, and no more than the squares of two moves changed.
        assert!(fen.contains(" w ") && fen.ends_with(" 2"), "{fen}");
        let changed = squares(line).zip(squares(fen)).filter(|(a, b)| a != b).count();
        assert!((2..=8).contains(&changed), "{fen}");
    }
    let _ = std::fs::remove_file(&book);

    let (code, out, _) = run(&["genfens 3 seed 1 book /nonexistent/book.epd", "quit"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("info string genfens: cannot read /nonexistent/book.epd"), "{out}");
    let (code, out, _) = run(&["genfens three seed 1 book None", "quit"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("info string genfens: N must be a whole number"), "{out}");
    let (code, out, _) = run(&["genfens 3 seed 1 book None window 50 floor 100", "quit"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("info string genfens: the floor (100 cp) is above the window (50 cp)"), "{out}");
}

#[test]
fn the_openings_command_writes_the_positions_genfens_gives() {
    let (code, genfens, _) = run(&["genfens 4 seed 9 book None nodes 2000", "quit"]);
    assert_eq!(code, Some(0));
    let out = temp_path("openings.epd");
    let args = ["openings", "--count", "4", "--seed", "9", "--nodes", "2000", "--threads", "2", "--out"];
    let (code, _, err) = run(&[&args[..], &[out.to_str().unwrap()]].concat());
    assert_eq!(code, Some(0), "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().map(str::to_string).collect::<Vec<_>>(), genfens_lines(&genfens));
    let _ = std::fs::remove_file(&out);

    let (code, _, err) = run(&["openings", "--book", "/nonexistent/book.epd"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read /nonexistent/book.epd"), "{err}");

    // A band no score fits is refused at once, not after thousands of searches.
    let (code, _, err) = run(&["openings", "--floor", "100", "--window", "50"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("the floor (100 cp) is above the window (50 cp)"), "{err}");
}

#[test]
fn version_names_cargo_s_version() {
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(out.trim(), format!("sentinel {}", env!("SENTINEL_VERSION")));
    assert!(env!("SENTINEL_VERSION").starts_with(env!("CARGO_PKG_VERSION")));
}
