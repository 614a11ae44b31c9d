//! The architecture's invariants (ARCHITECTURE.md), checked on the source
//! text so they stay true: who may name the codec, who may do I/O or await,
//! what may never feed a replay, that modules form no import cycle, that
//! every file says what it owns, and that the repository refers to nothing
//! its users do not have.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::repo_root;

struct SourceFile {
    /// Relative to the repository root, with `/` separators.
    path: String,
    text: String,
}

fn rust_files(dir: &str) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut pending = vec![repo_root().join(dir)];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let relative = path.strip_prefix(repo_root()).unwrap();
                files.push(SourceFile { path: slash_path(relative), text });
            }
        }
    }
    assert!(!files.is_empty(), "no Rust files under {dir}");
    files
}

fn slash_path(path: &Path) -> String {
    path.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Lines of shipped code: no comments (prose may name anything) and no
/// item under `#[cfg(test)]` (tests may use floats and the like). The test
/// item is skipped to its closing brace, counting only braces that are code
/// (not in a string, a raw string, a character literal or a comment, on
/// that line or across lines), so code after a test module in the middle of
/// a file is still checked.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut lines = Vec::new();
    let mut skipping = false;
    let mut depth = 0i64;
    let mut seen_brace = false;
    for (index, (line, code)) in text.lines().zip(code_parts(text)).enumerate() {
        let trimmed = code.trim();
        if !skipping && trimmed == "#[cfg(test)]" {
            (skipping, depth, seen_brace) = (true, 0, false);
            continue;
        }
        if skipping {
            for byte in code.bytes() {
                match byte {
                    b'{' => (depth, seen_brace) = (depth + 1, true),
                    b'}' => depth -= 1,
                    _ => {}
                }
            }
            // A braced item ends when its braces balance; `mod tests;` at its semicolon.
            if (seen_brace && depth <= 0) || (!seen_brace && trimmed.ends_with(';')) {
                skipping = false;
            }
            continue;
        }
        if !code.trim().is_empty() {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// Each line of `text` with its comments removed and the contents of its
/// string and character literals replaced by `_` (so a line holding only a
/// string still counts as code, and a brace in a literal is no brace). Block comments, strings
/// and raw strings may span lines.
fn code_parts(text: &str) -> Vec<String> {
    enum State {
        Code,
        /// Inside `/* */`, nested this deep.
        Block(u32),
        Str,
        /// Inside `r#"..."#` with this many `#`.
        Raw(usize),
    }
    let mut parts = Vec::new();
    let mut state = State::Code;
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut out = String::new();
        let mut at = 0;
        while at < chars.len() {
            let (c, next) = (chars[at], chars.get(at + 1).copied());
            match state {
                State::Block(depth) => {
                    if c == '*' && next == Some('/') {
                        state = if depth == 1 { State::Code } else { State::Block(depth - 1) };
                        at += 1;
                    } else if c == '/' && next == Some('*') {
                        state = State::Block(depth + 1);
                        at += 1;
                    }
                }
                State::Str => match c {
                    '\\' => at += 1,
                    '"' => {
                        out.push('"');
                        state = State::Code;
                    }
                    _ => out.push('_'),
                },
                State::Raw(hashes) => {
                    if c == '"' && chars[at + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes {
                        out.push('"');
                        state = State::Code;
                        at += hashes;
                    } else {
                        out.push('_');
                    }
                }
                State::Code => match c {
                    '/' if next == Some('/') => break,
                    '/' if next == Some('*') => {
                        state = State::Block(1);
                        at += 1;
                    }
                    '"' => {
                        out.push('"');
                        state = State::Str;
                    }
                    'r' if (next == Some('"') || next == Some('#'))
                        && !out.ends_with(|p: char| p.is_alphanumeric() || p == '_') =>
                    {
                        let hashes = chars[at + 1..].iter().take_while(|&&h| h == '#').count();
                        if chars.get(at + 1 + hashes) == Some(&'"') {
                            out.push('"');
                            state = State::Raw(hashes);
                            at += hashes + 1;
                        } else {
                            out.push(c);
                        }
                    }
                    // A character literal ('x', '\n', '\u{7b}'), not a lifetime ('a).
                    '\'' => {
                        let end = if next == Some('\\') {
                            chars[at + 2..].iter().position(|&q| q == '\'').map(|offset| at + 2 + offset)
                        } else {
                            (chars.get(at + 2) == Some(&'\'')).then_some(at + 2)
                        };
                        match end {
                            Some(end) => {
                                out.push_str("'_'");
                                at = end;
                            }
                            None => out.push(c),
                        }
                    }
                    _ => out.push(c),
                },
            }
            at += 1;
        }
        parts.push(out);
    }
    parts
}

#[test]
fn code_lines_skip_test_items_and_keep_what_follows() {
    #[track_caller]
    fn check(text: &str, kept: &[&str]) {
        let found: Vec<&str> = code_lines(text).into_iter().map(|(_, line)| line).collect();
        assert_eq!(found, kept, "in:\n{text}");
    }
    check(
        "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() { let s = \"}\"; }\n}\nfn c() {}\n// note\n",
        &["fn a() {}", "fn c() {}"],
    );
    // Braces in character literals, multi-line strings, raw strings and
    // block comments inside the test module do not end it early or late.
    let tricky = "#[cfg(test)]\nmod tests {\n    const OPEN: u8 = b'{';\n    const QUOTE: char = '\"';\n    \
                  fn f<'a>(x: &'a str) {}\n    const S: &str = \"{\n{\";\n    const R: &str = r#\"\"{\"#;\n    \
                  /* } { */\n}\nfn after() -> f64 { 0.5 }\n";
    check(tricky, &["fn after() -> f64 { 0.5 }"]);
    check("#[cfg(test)]\nmod tests;\nuse std::time::Instant;\n", &["use std::time::Instant;"]);
    check(
        "/* a\n   block */\nlet x = 1; /* more */\nconst T: &str = \"\n  text\n\";\n",
        &["let x = 1; /* more */", "const T: &str = \"", "  text", "\";"],
    );
}

#[track_caller]
fn forbid(files: &[SourceFile], allowed: &[&str], needles: &[&str], why: &str) {
    let mut offences = Vec::new();
    for file in files.iter().filter(|file| !allowed.contains(&file.path.as_str())) {
        for (line_no, line) in code_lines(&file.text) {
            for needle in needles {
                if line.contains(needle) {
                    offences.push(format!("{}:{line_no}: {needle}", file.path));
                }
            }
        }
    }
    assert!(offences.is_empty(), "{why}:\n{}", offences.join("\n"));
}

#[test]
fn only_the_codec_module_names_bincode() {
    forbid(&rust_files("src"), &["src/replay/codec.rs"], &["bincode"], "bincode is named outside src/replay/codec.rs");
}

#[test]
fn games_know_nothing_of_io_async_logging_or_clocks() {
    let game_files: Vec<SourceFile> = rust_files("src/game");
    forbid(
        &game_files,
        &[],
        &["tokio", "tracing", "std::fs", "File::", "Instant", "SystemTime", "println!", "replay::"],
        "game/ must stay a pure function of config, seed and actions",
    );
}

#[test]
fn nothing_nondeterministic_can_reach_game_state() {
    let files = rust_files("src");
    forbid(
        &files,
        &[],
        &[
            "thread_rng",
            "StdRng",
            "rand::rng()",
            "gen_range",
            "random_range",
            "SliceRandom",
            "DefaultHasher",
            "from_entropy",
        ],
        "randomness must come from GameRng; hashes from xxh3",
    );
    let game_files = rust_files("src/game");
    // Planners may keep lookup-only hash tables (bfs-tail counts visits per
    // body configuration) and score with floats: what they decide is
    // recorded as actions, so the replay does not depend on how. Each must
    // still be deterministic for a seed, which its own tests check. The
    // rules, which make the state, may use neither.
    let rules: Vec<SourceFile> = game_files.into_iter().filter(|file| !is_planner_file(&file.path)).collect();
    forbid(&rules, &[], &["HashMap", "HashSet"], "game state must not depend on hash-table order");
    forbid(&rules, &[], &["f32", "f64"], "game state must not depend on float arithmetic");
}

/// Whether a file in `src/game/` holds planners, not rules: each game's
/// planners live in its `plan/` folder.
fn is_planner_file(path: &str) -> bool {
    path.starts_with("src/game/") && path.contains("/plan/")
}

/// The binary's files: everything else is the library.
fn is_binary(path: &str) -> bool {
    path == "src/main.rs" || path.starts_with("src/cli/")
}

/// The module path of a source file (`src/game/slide/astar.rs` ->
/// `game::slide::astar`; the crate roots are the empty path).
fn module_of(path: &str) -> String {
    let inner = path.strip_prefix("src/").unwrap().strip_suffix(".rs").unwrap();
    let inner = inner.strip_suffix("/mod").unwrap_or(inner);
    if matches!(inner, "lib" | "main") { String::new() } else { inner.replace('/', "::") }
}

/// The modules a file's code names, resolved the way Rust resolves paths:
/// `crate::`, `super::` and `self::` paths, paths that start with a child
/// module (`flag::FlagArgs` in `cli`) or a top-level module (`cli::snake`
/// after `use crate::cli`), and every branch of a `use` tree, even one
/// spread over several lines. Each resolves to its longest prefix that is a
/// module of the crate.
fn named_modules(code: &str, own: &str, modules: &BTreeSet<String>) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut remaining = code;
    // `use` trees first (they may span lines), then every other path.
    while let Some(start) = find_word(remaining, "use ") {
        rest.push_str(&remaining[..start]);
        let after = &remaining[start + 4..];
        let end = after.find(';').unwrap_or(after.len());
        let tree: String = after[..end].chars().filter(|c| !c.is_whitespace()).collect();
        expand_tree("", &tree, &mut paths);
        remaining = &after[end..];
    }
    rest.push_str(remaining);
    paths.extend(plain_paths(&rest));
    let own_parts: Vec<&str> = own.split("::").filter(|part| !part.is_empty()).collect();
    let child = |name: &str| if own.is_empty() { name.to_string() } else { format!("{own}::{name}") };
    let mut found = Vec::new();
    for path in paths {
        let parts: Vec<&str> = path.split("::").filter(|part| !part.is_empty()).collect();
        let Some(&first) = parts.first() else { continue };
        let (mut base, skip): (Vec<String>, usize) = match first {
            "crate" => (Vec::new(), 1),
            "self" => (own_parts.iter().map(|part| part.to_string()).collect(), 1),
            "super" => {
                let supers = parts.iter().take_while(|&&part| part == "super").count();
                let keep = own_parts.len().saturating_sub(supers);
                (own_parts[..keep].iter().map(|part| part.to_string()).collect(), supers)
            }
            name if modules.contains(&child(name)) => (own_parts.iter().map(|part| part.to_string()).collect(), 0),
            name if modules.contains(name) => (Vec::new(), 0),
            _ => continue,
        };
        for part in &parts[skip..] {
            let mut longer = base.clone();
            longer.push(part.to_string());
            if !modules.contains(&longer.join("::")) {
                break;
            }
            base = longer;
        }
        found.push(base.join("::"));
    }
    found
}

/// `text` with the contents of its string and char literals removed, so
/// that words in messages are not read as code.
fn without_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push_str("\"\"");
                while let Some(inner) = chars.next() {
                    match inner {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' if chars.peek() == Some(&'\\') => {
                // An escaped char literal such as '\n' or '\''.
                chars.next();
                chars.next();
                while chars.next().is_some_and(|inner| inner != '\'') {}
            }
            _ => out.push(c),
        }
    }
    out
}

/// The start of `word` in `text` where it is not the tail of a longer word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(offset) = text[from..].find(word) {
        let at = from + offset;
        let before = text[..at].chars().next_back();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Every path of two or more segments (`a::b::c`) in `text`.
fn plain_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        let starts_word = c.is_alphabetic() || c == '_';
        let after_path = index >= 2 && chars[index - 1] == ':' && chars[index - 2] == ':';
        let after_word = index >= 1 && (chars[index - 1].is_alphanumeric() || chars[index - 1] == '_');
        if !starts_word || after_path || after_word {
            index += 1;
            continue;
        }
        let mut end = index;
        while end < chars.len() && (chars[end].is_alphanumeric() || chars[end] == '_' || chars[end] == ':') {
            end += 1;
        }
        let path: String = chars[index..end].iter().collect();
        if path.contains("::") {
            paths.push(path.trim_end_matches(':').to_string());
        }
        index = end;
    }
    paths
}

fn expand_tree(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    match tree.find('{') {
        None => out.push(format!("{prefix}{tree}")),
        Some(open) => {
            let head = format!("{prefix}{}", &tree[..open]);
            let close = tree.rfind('}').filter(|&close| close > open).unwrap_or(tree.len());
            let inner = &tree[open + 1..close];
            let mut depth = 0;
            let mut part_start = 0;
            for (index, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand_tree(&head, &inner[part_start..index], out);
                        part_start = index + 1;
                    }
                    _ => {}
                }
            }
            expand_tree(&head, &inner[part_start..], out);
        }
    }
}

/// The module graph of one crate: an edge from each module to every other
/// module its code names, except its own ancestors (a submodule using its
/// parent's vocabulary is the ordinary Rust layering, not a cycle).
fn module_graph(files: &[&SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files.iter().map(|file| module_of(&file.path)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let own = module_of(&file.path);
        let edges = graph.entry(own.clone()).or_default();
        let code: Vec<&str> = code_lines(&file.text).into_iter().map(|(_, line)| line).collect();
        for target in named_modules(&without_strings(&code.join("\n")), &own, &modules) {
            let is_ancestor = target.is_empty() || own == target || own.starts_with(&format!("{target}::"));
            if !is_ancestor {
                edges.insert(target);
            }
        }
    }
    graph
}

/// A cycle in `graph`, if there is one, as the list of modules around it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|module| module == next).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(cycle) = visit(next, graph, state, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node.as_str()) {
            if let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn modules_form_no_import_cycle() {
    let files = rust_files("src");
    for (crate_name, in_crate) in [("library", false), ("binary", true)] {
        let crate_files: Vec<&SourceFile> = files.iter().filter(|file| is_binary(&file.path) == in_crate).collect();
        let graph = module_graph(&crate_files);
        assert!(graph.len() > 3, "the {crate_name}'s modules were not found");
        if let Some(cycle) = find_cycle(&graph) {
            panic!("the {crate_name}'s modules import each other in a cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_check_finds_a_cycle_and_resolves_use_trees() {
    let modules: BTreeSet<String> =
        ["game", "game::slide", "game::slide::astar", "plan"].iter().map(|name| name.to_string()).collect();
    let named = named_modules(
        "use crate::game::{Game, slide::{self, astar::AStar}}; super::Board",
        "game::slide::astar",
        &modules,
    );
    assert_eq!(named, ["game", "game::slide", "game::slide::astar", "game::slide"]);
    let file = |path: &str, text: &str| SourceFile { path: path.to_string(), text: text.to_string() };
    let files = [
        file("src/game/mod.rs", "pub enum Spec { Slide(slide::Config) }"),
        file("src/game/slide/mod.rs", "use crate::plan::Plan;\nuse super::Game;"),
        file("src/plan/mod.rs", "use crate::game::Game;"),
    ];
    let graph = module_graph(&files.iter().collect::<Vec<_>>());
    assert_eq!(find_cycle(&graph).unwrap(), ["game", "game::slide", "plan", "game"]);
}

/// The layer of `module` in `layers` (listed top to bottom), with the unit
/// that places it there. An entry of a layer is a module path whose
/// segments may be `*` (any one module) and whose last may be `**` (the
/// module before it and everything under it): `cli::run`,
/// `cli::replay::**`, `game::*::plan::**`. Where several entries match, the
/// one with the most named segments wins. The unit is the module the entry
/// stands for (`game::snake::plan` for `game::*::plan::**`), so that
/// modules under one unit may name each other and other units may not.
fn layer_of(module: &str, layers: &[&[&str]]) -> Option<(usize, String)> {
    let parts: Vec<&str> = module.split("::").filter(|part| !part.is_empty()).collect();
    let mut found: Option<(usize, usize, String)> = None;
    for (index, layer) in layers.iter().enumerate() {
        for entry in *layer {
            let (pattern, subtree) = match entry.strip_suffix("**") {
                Some(base) => (base.trim_end_matches(':'), true),
                None => (*entry, false),
            };
            let pattern: Vec<&str> = pattern.split("::").filter(|part| !part.is_empty()).collect();
            let fits = if subtree { parts.len() >= pattern.len() } else { parts.len() == pattern.len() };
            if !fits || !pattern.iter().zip(&parts).all(|(want, part)| *want == "*" || want == part) {
                continue;
            }
            let named = pattern.iter().filter(|part| **part != "*").count() * 2 + usize::from(!subtree);
            if found.as_ref().is_none_or(|(best, _, _)| named > *best) {
                found = Some((named, index, parts[..pattern.len()].join("::")));
            }
        }
    }
    found.map(|(_, index, unit)| (index, unit))
}

/// The imports in `files` (one crate's) that go against `layers`, listed top
/// to bottom (see [`layer_of`]): a module may name the modules of the
/// layers below its own, and those of its own unit (a folder's files among
/// themselves), but neither a module of a layer above, its parents
/// included, nor another unit of its own layer (siblings stay apart). A
/// module in no layer is an offence too, so that each new file gets a place.
fn layering_offences(files: &[&SourceFile], layers: &[&[&str]]) -> Vec<String> {
    let modules: BTreeSet<String> = files.iter().map(|file| module_of(&file.path)).collect();
    let mut offences = Vec::new();
    for file in files {
        let own = module_of(&file.path);
        let Some((own_layer, own_unit)) = layer_of(&own, layers) else {
            offences.push(format!("{}: `{own}` is in no layer", file.path));
            continue;
        };
        let code: Vec<&str> = code_lines(&file.text).into_iter().map(|(_, line)| line).collect();
        let named: BTreeSet<String> =
            named_modules(&without_strings(&code.join("\n")), &own, &modules).into_iter().collect();
        for target in named.into_iter().filter(|target| *target != own) {
            // A module in no layer is reported at its own file.
            let Some((layer, unit)) = layer_of(&target, layers) else { continue };
            if layer <= own_layer && unit != own_unit {
                offences.push(format!("{}: `{own}` (layer {own_layer}) names `{target}` (layer {layer})", file.path));
            }
        }
    }
    offences
}

/// The binary's layers, top to bottom: each imports only from the layers
/// below it.
const BINARY_LAYERS: &[&[&str]] = &[
    // `main.rs`: parses, hands over, maps the outcome to an exit code.
    &[""],
    // The command tree and the dispatch of each subcommand.
    &["cli"],
    // `run`, which builds its entries with each game's file.
    &["cli::run::**"],
    // One file (or folder) per command family, and one per game.
    &[
        "cli::replay::**",
        "cli::stats",
        "cli::merge",
        "cli::status",
        "cli::evolve",
        "cli::sprt",
        "cli::snake",
        "cli::flag",
        "cli::slide",
        "cli::pipes",
        "cli::locm",
    ],
    // External agents: the launcher, and the `exec:` flags the games share.
    &["cli::agent"],
    // What the commands share, re-exported from the files below.
    &["cli::support"],
    &["cli::support::session"],
    &["cli::support::interrupt", "cli::support::progress", "cli::support::output", "cli::support::sprt"],
    &["cli::support::exit", "cli::common"],
];

#[test]
fn the_binary_imports_only_downwards() {
    let files = rust_files("src");
    let binary: Vec<&SourceFile> = files.iter().filter(|file| is_binary(&file.path)).collect();
    assert!(binary.iter().any(|file| file.path == "src/cli/support/exit.rs"), "the binary's files were not found");
    let offences = layering_offences(&binary, BINARY_LAYERS);
    assert!(offences.is_empty(), "the binary's modules import against its layers:\n{}", offences.join("\n"));
}

/// The library's layers, top to bottom: each imports only from the layers
/// below it (ARCHITECTURE.md, "Imports run one way").
const LIBRARY_LAYERS: &[&[&str]] = &[
    // `lib.rs`: the module list and the re-exports.
    &[""],
    // What reads what sessions wrote, and logging set-up.
    &["analysis::**", "telemetry"],
    // Sessions and the tools that play many games.
    &["session::**", "bench::**", "evolve::**", "view::**"],
    // Replays, fan-out over threads, the pattern databases' disk cache, and
    // the pipe puzzle's generator (it solves what it makes), and external
    // agents (programs that play as planners).
    &["replay::**", "par", "pdb_cache", "game::pipes::generate", "agent::**"],
    // Each game's planners.
    &["game::*::plan::**"],
    // The planner machinery every planner shares.
    &["plan::**"],
    // The rules.
    &["game::**"],
    // The sequential tests (SPRT) that stop a comparison when it is decided.
    &["sprt::**"],
    // Foundations.
    &["map", "rng", "progress", "stats"],
    // Opening input files (maps among them) without waiting on a FIFO.
    &["input"],
];

#[test]
fn the_library_imports_only_downwards() {
    let files = rust_files("src");
    // A `tests.rs` file is a unit-test module: tests may use anything.
    let is_test_module = |path: &str| path.ends_with("/tests.rs");
    let library: Vec<&SourceFile> =
        files.iter().filter(|file| !is_binary(&file.path) && !is_test_module(&file.path)).collect();
    assert!(library.iter().any(|file| file.path == "src/game/dir.rs"), "the library's files were not found");
    let offences = layering_offences(&library, LIBRARY_LAYERS);
    assert!(offences.is_empty(), "the library's modules import against its layers:\n{}", offences.join("\n"));
}

/// The files of the library that may name clap: each game's planner
/// registry, which declares a planner's flags beside it.
fn may_name_clap(path: &str) -> bool {
    is_binary(path) || (path.starts_with("src/game/") && path.ends_with("/plan/mod.rs"))
}

#[test]
fn clap_only_in_the_binary_and_the_planner_registries() {
    let files: Vec<SourceFile> = rust_files("src").into_iter().filter(|file| !may_name_clap(&file.path)).collect();
    assert!(files.iter().any(|file| file.path == "src/session/spec.rs"));
    forbid(&files, &[], &["clap::", "clap;", "#[arg(", "#[command("], "the library knows no command line");
}

#[test]
fn the_layering_check_finds_upward_and_sideways_imports() {
    let layers: &[&[&str]] = &[&[""], &["cli"], &["cli::run"], &["cli::snake", "cli::replay::**"], &["cli::support"]];
    let clean = [
        ("src/main.rs", "mod cli;\nfn main() { cli::execute(); }"),
        ("src/cli/mod.rs", "use run::RunArgs;\nuse support::Exit;\npub fn execute() { snake::play(); }"),
        ("src/cli/run.rs", "use super::snake::SnakeArgs;\nuse super::support::{Exit, Failure};"),
        ("src/cli/snake.rs", "use super::support::{\n    Exit, play_one,\n};"),
        ("src/cli/replay/mod.rs", "mod verify;\nfn display_paths() {}"),
        ("src/cli/replay/verify.rs", "use super::display_paths;\nuse crate::cli::support::Exit;"),
        ("src/cli/support/mod.rs", "pub enum Exit {}"),
    ];
    // The clean files, with `planted` added to the end of one of them or as a file of its own.
    let offences = |planted: Option<(&str, &str)>| {
        let mut files: Vec<SourceFile> =
            clean.iter().map(|&(path, text)| SourceFile { path: path.to_string(), text: text.to_string() }).collect();
        if let Some((into, line)) = planted {
            match files.iter_mut().find(|file| file.path == into) {
                Some(file) => file.text = format!("{}\n{line}", file.text),
                None => files.push(SourceFile { path: into.to_string(), text: line.to_string() }),
            }
        }
        layering_offences(&files.iter().collect::<Vec<_>>(), layers)
    };
    assert_eq!(offences(None), Vec::<String>::new());
    for (into, line, expected) in [
        ("src/cli/run.rs", "use super::RunGame;", "`cli::run` (layer 2) names `cli` (layer 1)"),
        ("src/cli/support/mod.rs", "use crate::cli::run::RunArgs;", "`cli::support` (layer 4) names `cli::run`"),
        ("src/cli/snake.rs", "fn f() { super::replay::execute() }", "`cli::snake` (layer 3) names `cli::replay`"),
        ("src/cli/replay/verify.rs", "use crate::cli::snake::play;", "`cli::replay::verify` (layer 3) names"),
        ("src/cli/support/mod.rs", "fn f() { crate::main() }", "`cli::support` (layer 4) names `` (layer 0)"),
        ("src/cli/extra.rs", "", "`cli::extra` is in no layer"),
    ] {
        let found = offences(Some((into, line)));
        assert!(found.len() == 1 && found[0].contains(expected), "{line:?} in {into}: {found:?}");
    }
    // Wildcards place a library's modules a game at a time.
    let layers: &[&[&str]] = &[&["session::**"], &["game::*::plan::**"], &["game::*::**"], &["game"]];
    let place = |module: &str| layer_of(module, layers);
    assert_eq!(place("session::run"), Some((0, "session".to_string())));
    assert_eq!(place("game::snake::plan::bfs_tail"), Some((1, "game::snake::plan".to_string())));
    assert_eq!(place("game::flag::plan"), Some((1, "game::flag::plan".to_string())));
    assert_eq!(place("game::snake::rules"), Some((2, "game::snake".to_string())));
    assert_eq!(place("game"), Some((3, "game".to_string())));
    assert_eq!(place("telemetry"), None);
}

/// The rules of a game, as opposed to its planners and generators: what
/// makes the state, and so what a replay depends on.
fn is_rules_file(path: &str) -> bool {
    path.starts_with("src/game/")
        && !is_planner_file(path)
        // The pipe puzzle's generator solves what it makes (a layer above
        // the planners, see `LIBRARY_LAYERS`).
        && path != "src/game/pipes/generate.rs"
        && !path.ends_with("/tests.rs")
}

#[test]
fn rules_use_no_planner() {
    let rules: Vec<SourceFile> = rust_files("src/game").into_iter().filter(|file| is_rules_file(&file.path)).collect();
    assert!(rules.iter().any(|file| file.path == "src/game/slide/mod.rs"));
    let planner_modules: Vec<String> = rust_files("src/game")
        .iter()
        .filter(|file| is_planner_file(&file.path))
        .map(|file| format!("{}::", module_of(&file.path)))
        .collect();
    let mut needles: Vec<&str> = planner_modules.iter().map(String::as_str).collect();
    // `plan::` alone catches a game's own `plan` module named from within the game.
    needles.extend(["crate::plan", "plan::"]);
    forbid(&rules, &[], &needles, "a game's rules must not depend on planners");
}

#[test]
fn only_the_session_runner_awaits() {
    let library: Vec<SourceFile> = rust_files("src").into_iter().filter(|file| !is_binary(&file.path)).collect();
    // The run loop, the workers that wake it, one game from start to record,
    // and its ticks; the session's types, totals, files and schedule stay
    // synchronous.
    let runner = ["src/session/run.rs", "src/session/workers.rs", "src/session/game.rs", "src/session/ticks.rs"];
    forbid(&library, &runner, &[".await", "async fn", "tokio::"], "async belongs in the session runner");
}

#[test]
fn only_the_binary_prints() {
    let library: Vec<SourceFile> = rust_files("src").into_iter().filter(|file| !is_binary(&file.path)).collect();
    forbid(
        &library,
        &[],
        &["println!", "print!(", "eprintln!", "eprint!(", "std::io::stdout"],
        "only the binary prints",
    );
    forbid(&library, &[], &["anyhow"], "anyhow is for the binary");
}

#[test]
fn every_file_says_what_it_owns() {
    let mut files = rust_files("src");
    files.extend(rust_files("tests"));
    files.extend(rust_files("benches"));
    let silent: Vec<&str> =
        files.iter().filter(|file| !file.text.starts_with("//!")).map(|file| file.path.as_str()).collect();
    assert!(silent.is_empty(), "files without a leading //! line: {silent:?}");
}

#[test]
fn the_repository_refers_to_nothing_its_users_do_not_have() {
    // Issue trackers, outside folders and machine paths: a user of the
    // repository has none of them. The patterns are split so that this file
    // does not match itself.
    let patterns = [
        ["issue", " #"].concat(),
        ["the ", "issue"].concat(),
        ["../", "shared"].concat(),
        ["shared/", "locm"].concat(),
        ["shared/", "slide"].concat(),
        ["shared/", "seeds"].concat(),
        ["/wo", "rk/"].concat(),
        ["/tm", "p/"].concat(),
    ];
    let mut offences = Vec::new();
    let mut pending = vec![repo_root()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // In a git worktree `.git` is a file naming the main checkout's path.
            if name == ".git" {
                continue;
            }
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | "out" | "logs" | "scratch") {
                    pending.push(path);
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            if name == "Cargo.lock" {
                continue;
            }
            for (line_no, line) in text.lines().enumerate() {
                let lower = line.to_lowercase();
                for pattern in &patterns {
                    if lower.contains(pattern.as_str()) {
                        let relative = slash_path(path.strip_prefix(repo_root()).unwrap());
                        offences.push(format!("{relative}:{}: {pattern:?}", line_no + 1));
                    }
                }
            }
        }
    }
    assert!(offences.is_empty(), "the repository refers to things its users do not have:\n{}", offences.join("\n"));
}

/// The tests ARCHITECTURE.md names as keeping its invariants, as
/// `module::path::test_name` in backquotes inside square brackets.
fn tests_named_in_architecture() -> Vec<String> {
    let text = std::fs::read_to_string(repo_root().join("ARCHITECTURE.md")).unwrap();
    let mut names = Vec::new();
    for bracketed in text.split('[').skip(1).filter_map(|rest| rest.split_once(']').map(|(inside, _)| inside)) {
        for quoted in bracketed.split('`').skip(1).step_by(2) {
            if quoted.contains("::") && !quoted.contains(' ') {
                names.push(quoted.to_string());
            }
        }
    }
    names
}

#[test]
fn every_test_architecture_names_exists() {
    let names = tests_named_in_architecture();
    assert!(names.len() > 10, "ARCHITECTURE.md names its tests in [`module::test`] form: {names:?}");
    let mut missing = Vec::new();
    for name in &names {
        let parts: Vec<&str> = name.split("::").collect();
        let (function, modules) = parts.split_last().unwrap();
        let integration = repo_root().join(format!("tests/{}.rs", modules[0]));
        // A unit test lives in its module's file (`path.rs` or `path/mod.rs`)
        // or in that module's `tests.rs`.
        let module: Vec<&str> = modules.iter().copied().filter(|part| *part != "tests").collect();
        let base = repo_root().join("src").join(module.join("/"));
        let candidates = if integration.exists() {
            vec![integration]
        } else {
            vec![base.with_extension("rs"), base.join("mod.rs"), base.join("tests.rs")]
        };
        let found = candidates
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .any(|text| text.contains(&format!("fn {function}(")));
        if !found {
            missing.push(name.as_str());
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names tests that do not exist: {missing:?}");
}
