//! Keeps the manuals readable as plain text and their links whole: every Markdown file of the
//! repository (README, CHANGELOG, `docs/` with its logs, the folders' READMEs) is read as a
//! newcomer reads it, in a terminal or on a forge.
//!
//! - Prose wraps at 96 characters. Fenced code and table rows are exempt: a command or a row
//!   cannot be wrapped without changing it.
//! - Every relative link names a file that exists, and every `#anchor` into a Markdown file
//!   names one of its headings (as a forge makes anchors: lower case, punctuation dropped,
//!   spaces made hyphens).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

const WIDTH: usize = 96;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's Markdown files, build output and version control left out.
fn manuals() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> =
            fs::read_dir(dir).expect("read a folder").map(|entry| entry.expect("a folder entry").path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    walk(&path, found);
                }
            } else if name.ends_with(".md") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&root(), &mut found);
    found
}

/// The lines outside fenced code blocks, with their numbers from 1.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut in_code = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// The line with its inline code spans removed, so that code showing a link is not one.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join("")
}

/// The anchor a forge gives a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    prose(text)
        .into_iter()
        .filter(|(_, line)| line.starts_with('#'))
        .map(|(_, line)| slug(&line.trim_start_matches('#').replace('`', "")))
        .collect()
}

/// The targets of the line's `[text](target)` links.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].trim();
        if !target.is_empty() && !target.contains(' ') {
            targets.push(target.to_string());
        }
        rest = &rest[end..];
    }
    targets
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

#[test]
fn the_manuals_are_found() {
    let names: Vec<String> = manuals().iter().map(|path| relative(path)).collect();
    for expected in ["README.md", "CHANGELOG.md", "docs/README.md", "docs/log/README.md"] {
        assert!(names.iter().any(|name| name == expected), "{expected} not among {names:?}");
    }
}

#[test]
fn prose_wraps_at_96_characters() {
    let mut long = Vec::new();
    for path in manuals() {
        let text = fs::read_to_string(&path).expect("read a manual");
        for (number, line) in prose(&text) {
            let width = line.chars().count();
            if width > WIDTH && !line.trim_start().starts_with('|') {
                long.push(format!("{}:{number}: {width} characters", relative(&path)));
            }
        }
    }
    assert!(long.is_empty(), "lines over {WIDTH} characters:\n{}", long.join("\n"));
}

#[test]
fn relative_links_lead_somewhere() {
    let mut broken = Vec::new();
    // Each linked manual's headings, read once however many links name them.
    let mut headings: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for path in manuals() {
        let text = fs::read_to_string(&path).expect("read a manual");
        let folder = path.parent().expect("a manual's folder");
        for (number, line) in prose(&text) {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let linked = if file.is_empty() { path.clone() } else { folder.join(file) };
                let place = format!("{}:{number}: {target}", relative(&path));
                if !linked.exists() {
                    broken.push(format!("{place} (no such file)"));
                } else if !anchor.is_empty() && linked.extension().is_some_and(|ext| ext == "md") {
                    let known = headings
                        .entry(linked.clone())
                        .or_insert_with(|| anchors(&fs::read_to_string(&linked).expect("read a linked manual")));
                    if !known.iter().any(|heading| heading == anchor) {
                        broken.push(format!("{place} (no such heading)"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_checks_see_what_they_look_for() {
    assert_eq!(anchors("## 2. Train the network: `sentinel train`"), ["2-train-the-network-sentinel-train"]);
    assert_eq!(link_targets("see [a](b.md#c) and `[d](e)`, [f](https://x.y)"), ["b.md#c", "https://x.y"]);
    let text = "a\n```\nin code\n```\nb";
    assert_eq!(prose(text), [(1, "a"), (5, "b")]);
}
