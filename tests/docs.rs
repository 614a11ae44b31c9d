//! The documentation's links: every relative link in README.md, ARCHITECTURE.md, docs/ and
//! the folder READMEs points at a file that exists, and every `#anchor` at a
//! heading of its page, so that moving or renaming a page or a heading
//! fails a test instead of a reader's click; and the README stays short.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::repo_root;

/// The Markdown checked: these files, and every `.md` file under these folders.
const CHECKED: [&str; 5] = ["README.md", "ARCHITECTURE.md", "docs", "deploy", "replays"];

fn markdown_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = CHECKED.iter().map(|name| repo_root().join(name)).collect();
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            pending.extend(std::fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
        } else if path.extension().is_some_and(|extension| extension == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The text of a Markdown file outside fenced code blocks and inline code
/// spans, where `[text](target)` is not a link. A code span may continue on
/// the next line but not past a blank one, so spans are found paragraph by
/// paragraph.
fn prose(text: &str) -> String {
    let mut outside_fences = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            outside_fences.push('\n');
        } else if !fenced {
            outside_fences.push_str(line);
            outside_fences.push('\n');
        }
    }
    let mut kept = String::new();
    for paragraph in outside_fences.split("\n\n") {
        // Even pieces are outside code spans, odd ones inside.
        kept.extend(paragraph.split('`').step_by(2));
        kept.push_str("\n\n");
    }
    kept
}

/// The targets of the `[text](target)` and `![alt](target)` links of a file.
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    prose
        .match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &prose[at + 2..];
            rest.find(')').map(|end| rest[..end].trim().to_string())
        })
        .collect()
}

/// The anchor GitHub gives a heading: lower case, spaces as hyphens, and
/// every character but letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a file's headings (a repeated heading gets `-1`, `-2`, ...).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let base = slug(line.trim_start_matches('#').trim());
        let mut anchor = base.clone();
        let mut repeat = 0;
        while !found.insert(anchor.clone()) {
            repeat += 1;
            anchor = format!("{base}-{repeat}");
        }
    }
    found
}

fn is_external(target: &str) -> bool {
    ["http://", "https://", "mailto:"].iter().any(|scheme| target.starts_with(scheme))
}

/// What is wrong with one link of `page`, if anything.
fn broken(page: &Path, target: &str) -> Option<String> {
    let (path, anchor) = target.split_once('#').map_or((target, None), |(path, anchor)| (path, Some(anchor)));
    let file = if path.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(path) };
    if !file.exists() {
        return Some("no such file".to_string());
    }
    let anchor = anchor?;
    if file.is_dir() || file.extension().is_none_or(|extension| extension != "md") {
        return Some("an anchor into a file that is not Markdown".to_string());
    }
    let known = anchors(&std::fs::read_to_string(&file).unwrap());
    (!known.contains(anchor)).then(|| format!("no heading with the anchor #{anchor}"))
}

#[test]
fn headings_get_githubs_anchors() {
    let check = |heading: &str, anchor: &str| assert_eq!(slug(heading), anchor, "{heading}");
    check("Analysing a session: `stats`", "analysing-a-session-stats");
    check("Order, seeds and results", "order-seeds-and-results");
    check("Where the referee's prose and code disagree", "where-the-referees-prose-and-code-disagree");
    check("Snake_case and-hyphens 2", "snake_case-and-hyphens-2");
    assert_eq!(
        anchors("# A\n```sh\n# not a heading\n```\n## A\n### B!\n"),
        ["a", "a-1", "b"].into_iter().map(String::from).collect()
    );
    assert_eq!(link_targets("[a](x.md) `[b](y.md)` ![c](z.svg#top)\n```\n[d](w.md)\n```\n"), ["x.md", "z.svg#top"]);
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 5, "README.md, the guide, the game pages: {files:?}");
    let mut problems = Vec::new();
    for page in &files {
        let text = std::fs::read_to_string(page).unwrap();
        for target in link_targets(&text) {
            if is_external(&target) {
                continue;
            }
            if let Some(problem) = broken(page, &target) {
                let relative = page.strip_prefix(repo_root()).unwrap().display().to_string();
                problems.push(format!("{relative}: ({target}): {problem}"));
            }
        }
    }
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn the_readme_stays_short_enough_to_read_in_five_minutes() {
    // The rest belongs in docs/: the guide, a page per game, the benchmarks.
    let lines = std::fs::read_to_string(repo_root().join("README.md")).unwrap().lines().count();
    assert!(lines <= 300, "README.md has {lines} lines: move the detail into docs/");
}
