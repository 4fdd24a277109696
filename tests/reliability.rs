//! Keeps docs/reliability.md's running count of games and faults honest as rows are added by
//! hand: the totals are the sums of the rows, every cell is a count or `?` (not recorded), and
//! the rows run oldest first. The rows come from `tools/reliability_row.py`, whose own parsing
//! of fastchess's and cutechess-cli's output is checked here too, by its self-test.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A count of the table: `None` for `?`, a number with or without thousands' commas and bold.
fn count(cell: &str) -> Option<u64> {
    let digits = cell.trim_matches('*').replace(',', "");
    if digits == "?" {
        return None;
    }
    Some(digits.parse().unwrap_or_else(|_| panic!("not a count or '?': {cell:?}")))
}

/// (year, month, day) of a row's first day: "27 Nov 2026", "27-28 Nov 2026", "30 Nov - 1 Dec 2026".
fn first_day(cell: &str) -> (u32, u32, u32) {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let words: Vec<&str> = cell.split_whitespace().collect();
    // The first year written is the first day's ("31 Dec 2026 - 1 Jan 2027").
    let year = words.iter().find_map(|w| w.parse::<u32>().ok().filter(|y| *y >= 1000));
    let year = year.unwrap_or_else(|| panic!("no year in {cell:?}"));
    let day: u32 =
        words[0].split('-').next().and_then(|d| d.parse().ok()).unwrap_or_else(|| panic!("no day in {cell:?}"));
    let month =
        words.iter().find_map(|w| MONTHS.iter().position(|m| m == w)).unwrap_or_else(|| panic!("no month in {cell:?}"));
    (year, month as u32 + 1, day)
}

struct Row {
    cells: Vec<String>,
}

fn table() -> (Vec<Row>, Vec<Row>) {
    let page = fs::read_to_string(root().join("docs/reliability.md")).expect("read docs/reliability.md");
    let lines: Vec<&str> = page.lines().collect();
    let header = lines
        .iter()
        .position(|line| line.starts_with("| date | builds |"))
        .expect("docs/reliability.md has the running count's table");
    let (mut rows, mut totals) = (Vec::new(), Vec::new());
    for line in lines[header + 2..].iter().take_while(|line| line.starts_with('|')) {
        let cells: Vec<String> = line.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
        assert_eq!(cells.len(), 9, "nine cells in {line}");
        if cells[0].starts_with("**") { totals.push(Row { cells }) } else { rows.push(Row { cells }) }
    }
    (rows, totals)
}

#[test]
fn the_running_counts_totals_are_the_sums_of_its_rows() {
    let (rows, totals) = table();
    assert!(rows.len() > 40, "the matches since 1.0.0 are in the table: {} rows", rows.len());
    assert_eq!(totals.len(), 2, "a total over every row, and one over the rows with every count");
    let games = |rows: &[&Row]| rows.iter().map(|r| count(&r.cells[3]).expect("every row has its games")).sum::<u64>();
    let faults = |rows: &[&Row], column: usize| rows.iter().filter_map(|r| count(&r.cells[column])).sum::<u64>();
    let all: Vec<&Row> = rows.iter().collect();
    let complete: Vec<&Row> = rows.iter().filter(|r| r.cells[4..8].iter().all(|c| count(c).is_some())).collect();
    for (total, rows) in [(&totals[0], &all), (&totals[1], &complete)] {
        assert_eq!(total.cells[2], format!("{} rows", rows.len()), "{}", total.cells[0]);
        assert_eq!(count(&total.cells[3]), Some(games(rows)), "{}: games", total.cells[0]);
        for column in 4..8 {
            assert_eq!(count(&total.cells[column]), Some(faults(rows, column)), "{}: column {column}", total.cells[0]);
        }
    }
}

#[test]
fn the_running_count_runs_oldest_first() {
    let (rows, _) = table();
    for pair in rows.windows(2) {
        let (a, b) = (first_day(&pair[0].cells[0]), first_day(&pair[1].cells[0]));
        assert!(a <= b, "{} before {}", pair[0].cells[0], pair[1].cells[0]);
    }
}

#[test]
fn the_row_script_reads_fastchess_and_cutechess_output_as_they_write_it() {
    // The script needs only Python's standard library; where there is no Python, say so.
    let output = match Command::new("python3").arg(root().join("tools/reliability_row.py")).arg("--self-test").output()
    {
        Ok(output) => output,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("no python3: tools/reliability_row.py --self-test not run");
            return;
        }
        Err(err) => panic!("run python3: {err}"),
    };
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && text.contains("self-test: passed"),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
