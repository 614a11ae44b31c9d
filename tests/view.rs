//! Watching replays: every golden replay renders in every format, the GIF
//! decodes to one frame per tick showing exactly what the raster drew, the
//! HTML page's data rebuilds every tick's actions and tiles, each game's
//! picture agrees with its exported state, and the commands end to end.

use std::ops::ControlFlow;
use std::path::Path;

use serde_json::Value;

use tickbot::game::picture::{Colour, Mark, Picture, Tile};
use tickbot::game::slide::{self, Goal, SlideGame};
use tickbot::game::{Game, IllegalAction, Show, Wire};
use tickbot::plan::{Budget, Decision, PlanError, Planner};
use tickbot::progress::Progress;
use tickbot::replay::{self, Replay};
use tickbot::view::html::{ViewerData, embedded_data, grid_checksum};
use tickbot::view::layout::Layout;
use tickbot::view::raster::Canvas;
use tickbot::view::{self, Format, RenderOptions, TickRange, TickView, ViewError, Want};

use crate::support::{replay_files, repo_path, tickbot};

/// Frames per golden replay in these tests: enough to cover the start, some
/// play and (for short games) the end, while keeping the test fast.
const FRAMES: u32 = 40;

fn read(path: &Path) -> Replay {
    replay::decode_partial(&std::fs::read(path).expect("readable")).expect("a replay")
}

fn golden() -> Vec<(String, Replay)> {
    let files = replay_files(&repo_path("replays"));
    assert!(files.len() >= 5, "the golden set is in replays/");
    files.iter().map(|path| (path.display().to_string(), read(path))).collect()
}

/// The first `FRAMES` ticks, or the whole game if it is shorter.
fn short_range(replay: &Replay) -> TickRange {
    TickRange::of(replay, None, Some((FRAMES - 1).min(replay.frames.len() as u32))).expect("in range")
}

fn render(replay: &Replay, format: Format, range: TickRange) -> Vec<u8> {
    let options = RenderOptions { format, range, fps: 10, title: "test".into() };
    let mut out = Vec::new();
    let frames = view::render(replay, &options, &Budget::unlimited(), &Progress::default(), &mut out)
        .unwrap_or_else(|error| panic!("{format:?}: {error}"));
    assert_eq!(frames, range.len());
    out
}

/// Every tick of `range` with its picture and state.
fn ticks(replay: &Replay, range: TickRange) -> Vec<TickView> {
    let mut views = Vec::new();
    let want = Want { picture: true, state: true };
    view::walk(replay, range, want, &Budget::unlimited(), &Progress::default(), &mut |view| {
        views.push(view);
        ControlFlow::Continue(())
    })
    .expect("golden replays reproduce");
    views
}

#[test]
fn every_golden_replay_renders_in_every_format() {
    let games: std::collections::BTreeSet<&str> = ["snake", "flag", "slide", "pipes", "locm"].into();
    let mut seen = std::collections::BTreeSet::new();
    for (name, replay) in golden() {
        seen.insert(replay.header.game.name());
        let range = short_range(&replay);
        let page = String::from_utf8(render(&replay, Format::Html, range)).expect("UTF-8");
        assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"), "{name}");
        for forbidden in ["http://", "https://", "src=", "@import"] {
            assert!(!page.contains(forbidden), "{name}: the page must load nothing ({forbidden})");
        }
        let data = embedded_data(&page).unwrap_or_else(|| panic!("{name}: no data in the page"));
        assert_eq!(data.change_ends.len() as u32, range.len(), "{name}");
        let svg = String::from_utf8(render(&replay, Format::Svg, range)).expect("UTF-8");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{name}");
        // One group per frame after the base layer (one animated group each
        // when there is more than one frame).
        let animated = svg.matches("<animate ").count() as u32;
        assert_eq!(animated, if range.len() > 1 { range.len() } else { 0 }, "{name}");
        let gif = render(&replay, Format::Gif, range);
        assert_eq!(gif_frames(&gif).len() as u32, range.len(), "{name}: one GIF frame per tick");
    }
    assert_eq!(seen, games, "the golden set holds every game");
}

/// The frames of a GIF as the `gif` crate decodes them, each composited on
/// the ones before (every frame keeps what it does not cover).
fn gif_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(bytes).expect("a GIF");
    let (width, height) = (decoder.width() as usize, decoder.height() as usize);
    let mut screen = vec![0u8; width * height];
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("a whole frame") {
        let (left, top, frame_width) = (frame.left as usize, frame.top as usize, frame.width as usize);
        for (row, line) in frame.buffer.chunks(frame_width).enumerate() {
            let start = (top + row) * width + left;
            screen[start..start + frame_width].copy_from_slice(line);
        }
        frames.push(screen.clone());
    }
    frames
}

#[test]
fn the_gif_shows_exactly_what_the_raster_draws_at_every_tick() {
    #[track_caller]
    fn check(file: &str, to: u32) {
        let replay = read(&repo_path(file));
        let range = TickRange::of(&replay, None, Some(to)).unwrap();
        let frames = gif_frames(&render(&replay, Format::Gif, range));
        let views = ticks(&replay, range);
        assert_eq!(frames.len(), views.len(), "{file}");
        let layout = Layout::new(views[0].picture.as_ref().unwrap());
        for (frame, view) in frames.iter().zip(&views) {
            let canvas = Canvas::for_tick(&layout, view, range.to);
            assert!(frame == &canvas.pixels, "{file}: tick {} differs from the raster", view.tick);
        }
    }
    check("replays/snake-4x4-seed1.tbr", 58);
    check("replays/flag-round05-exact.tbr", 14);
    check("replays/pipes-5x5-flat-astar.tbr", 17);
    check("replays/locm-random-maxattack-seed7.tbr", 70);
}

/// The tile a page's table entry stands for.
fn tile_from(entry: &(u8, u8, u8, u8, u8, u8, String)) -> Tile {
    let (ground, links, link_colour, mark, mark_colour, label_colour, label) = entry;
    let colour = |index: &u8| Colour::ALL[usize::from(*index)];
    Tile {
        ground: colour(ground),
        links: *links,
        link_colour: colour(link_colour),
        mark: Mark::ALL[usize::from(*mark)],
        mark_colour: colour(mark_colour),
        label: label.clone(),
        label_colour: colour(label_colour),
    }
}

/// Frame `frame`'s grid as the page's script rebuilds it: the keyframe
/// before it, then the changes after that keyframe.
fn grid_at(data: &ViewerData, frame: usize) -> Vec<u32> {
    let every = data.keyframe_every as usize;
    let mut grid = data.keyframes[frame / every].clone();
    for later in (frame / every) * every + 1..=frame {
        for pair in data.change_ends[later - 1] as usize..data.change_ends[later] as usize {
            grid[data.changes[2 * pair] as usize] = data.changes[2 * pair + 1];
        }
    }
    grid
}

#[test]
fn the_html_data_rebuilds_every_ticks_action_and_board() {
    #[track_caller]
    fn check(file: &str, from: u32, to: u32) {
        let replay = read(&repo_path(file));
        let range = TickRange::of(&replay, Some(from), Some(to)).unwrap();
        let page = String::from_utf8(render(&replay, Format::Html, range)).unwrap();
        let data = embedded_data(&page).expect("data in the page");
        assert_eq!((data.from, data.to), (from, to));
        let views = ticks(&replay, range);
        for (frame, view) in views.iter().enumerate() {
            let tick = view.tick as usize;
            let action = data.action_of[frame] as usize;
            let code = if tick == 0 { -1 } else { i64::from(replay.frames[tick - 1].action) };
            assert_eq!(data.action_codes[action], code, "{file}: the action code of tick {tick}");
            let text = view.action.as_ref().map_or("start", |action| action.text.as_str());
            assert_eq!(data.actions[action], text, "{file}: the action of tick {tick}");
            let picture = view.picture.as_ref().unwrap();
            let tiles: Vec<Tile> =
                grid_at(&data, frame).iter().map(|&id| tile_from(&data.tiles[id as usize])).collect();
            assert!(tiles == picture.tiles, "{file}: the board of tick {tick} differs");
            assert_eq!(data.captions[data.caption_of[frame] as usize], picture.caption);
            assert_eq!(data.statuses[data.status_of[frame] as usize], view.status_text());
        }
        assert_eq!(data.statuses.last().map(String::as_str), Some(views.last().unwrap().status_text().as_str()));
        // The checksums the page checks itself against are those of the
        // boards the game drew.
        assert!(data.checks.iter().any(|&(frame, _)| frame as usize + 1 == views.len()), "{file}: the last frame");
        for &(frame, checksum) in &data.checks {
            let ids: Vec<u32> = views[frame as usize]
                .picture
                .as_ref()
                .unwrap()
                .tiles
                .iter()
                .map(|tile| data.tiles.iter().position(|entry| &tile_from(entry) == tile).unwrap() as u32)
                .collect();
            assert_eq!(grid_checksum(&ids), checksum, "{file}: frame {frame}");
        }
    }
    check("replays/snake-chuyangliu-seed2.tbr", 0, 727);
    check("replays/snake-two-rooms-seed3.tbr", 1000, 1570);
    check("replays/flag-round12-ga-seed1.tbr", 0, 34);
    check("replays/slide-korf100-1-idastar.tbr", 0, 57);
    check("replays/pipes-40x40-wrap-multi-solve.tbr", 1000, 1149);
    check("replays/locm-chad-coac-java-seed11.tbr", 0, 97);
}

/// Each game's picture agrees with its own exported state, at every tick:
/// two separate views of one state.
#[test]
fn every_picture_agrees_with_the_exported_state() {
    for (name, replay) in golden() {
        let game = replay.header.game.name();
        for view in ticks(&replay, short_range(&replay)) {
            let picture = view.picture.as_ref().unwrap();
            let state = view.state.as_ref().unwrap();
            let at = |cell: &Value| picture.tile(cell[0].as_u64().unwrap() as u16, cell[1].as_u64().unwrap() as u16);
            let context = format!("{name} tick {}", view.tick);
            match game {
                "snake" => {
                    let body = state["body"].as_array().unwrap();
                    assert_eq!(at(&body[0]).mark, Mark::Disc, "{context}: the head");
                    for segment in &body[1..] {
                        assert_eq!(at(segment).mark, Mark::Joint, "{context}: a body segment");
                    }
                    let drawn = picture.tiles.iter().filter(|tile| tile.link_colour == Colour::Green).count();
                    assert_eq!(drawn, body.len(), "{context}: body tiles");
                    if let Some(food) = state["food"].as_array() {
                        assert_eq!(at(&state["food"]).mark_colour, Colour::Red, "{context}: food {food:?}");
                    }
                }
                "flag" => {
                    assert_eq!(at(&state["position"]).mark, Mark::Disc, "{context}: the player");
                    for (row, visits) in state["visits"].as_array().unwrap().iter().enumerate() {
                        for (column, visits) in visits.as_array().unwrap().iter().enumerate() {
                            let tile = picture.tile(column as u16, row as u16);
                            if visits.as_u64() != Some(0) && tile.mark != Mark::Disc {
                                assert_eq!(tile.label, visits.to_string(), "{context}: entries left");
                            }
                        }
                    }
                }
                "slide" => {
                    for (row, tiles) in state["tiles"].as_array().unwrap().iter().enumerate() {
                        for (column, tile) in tiles.as_array().unwrap().iter().enumerate() {
                            let expected = if tile.as_u64() == Some(0) { String::new() } else { tile.to_string() };
                            assert_eq!(picture.tile(column as u16, row as u16).label, expected, "{context}");
                        }
                    }
                }
                "pipes" => {
                    let masks: Vec<u8> = state["tiles"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|row| row.as_array().unwrap().iter().map(|mask| mask.as_u64().unwrap() as u8))
                        .collect();
                    let links: Vec<u8> = picture.tiles.iter().map(|tile| tile.links).collect();
                    assert_eq!(links, masks, "{context}: pipes");
                    let wet = picture.tiles.iter().filter(|tile| tile.links != 0 && tile.link_colour == Colour::Blue);
                    assert_eq!(wet.count() as u64, state["watered"].as_u64().unwrap(), "{context}: water");
                }
                "locm" => match state["phase"].as_str() {
                    Some("battle") => {
                        for (player, row) in [(0, 2), (1, 1)] {
                            let info = &picture.tile(0, row).label;
                            let health = &state["players"][player]["health"];
                            assert!(info.starts_with(&format!("P{player} {health} hp")), "{context}: {info}");
                            let hand = state["players"][player]["hand"].as_array().unwrap().len();
                            let hand_row = if player == 0 { 3 } else { 0 };
                            let drawn =
                                (0..8).filter(|&column| !picture.tile(column, hand_row).label.is_empty()).count();
                            assert_eq!(drawn, hand, "{context}: player {player}'s hand");
                        }
                    }
                    _ => {
                        let choices = state["choices"].as_array().unwrap();
                        for (column, _) in choices.iter().enumerate() {
                            assert!(!picture.tile(column as u16, 0).label.is_empty(), "{context}: a card on offer");
                        }
                    }
                },
                other => panic!("a game without a picture check: {other}"),
            }
        }
    }
}

/// Plays a fixed pseudo-random walk of the blank: a game as long as its cap.
struct Wander;

impl Planner<SlideGame> for Wander {
    fn name(&self) -> &'static str {
        "wander"
    }
    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    fn next_action(&mut self, game: &SlideGame, _: &Budget) -> Result<Decision<slide::Dir>, PlanError> {
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        let pick = (game.tick() as usize).wrapping_mul(2_654_435_761) >> 7;
        Ok(Decision { action: legal[pick % legal.len()], planned: None })
    }
}

/// A 100,000-tick game: the page stays small (a few bytes per tick, not a
/// picture per tick), and any tick is rebuilt from one keyframe interval.
#[test]
fn a_hundred_thousand_tick_game_makes_a_compact_page() -> Result<(), IllegalAction> {
    let mut start: Vec<u8> = (0..16).collect();
    start.swap(0, 1);
    let config = slide::Config::fixed(4, &start, Goal::BlankFirst).unwrap().with_max_ticks(100_000).unwrap();
    let replay = replay::record::<SlideGame>(&config, 0, &mut Wander).expect("legal moves");
    assert_eq!(replay.frames.len(), 100_000);
    let range = TickRange::of(&replay, None, None).unwrap();
    let page = render(&replay, Format::Html, range);
    assert!(page.len() < 60 * 100_000, "{} bytes for 100,000 ticks", page.len());
    let data = embedded_data(std::str::from_utf8(&page).unwrap()).unwrap();
    assert!(data.keyframes.len() <= 100_000 / data.keyframe_every as usize + 1);
    assert!(data.keyframe_every <= 4096);
    let last = grid_at(&data, 100_000);
    let mut game = SlideGame::new(&config, 0);
    for frame in &replay.frames {
        game.step(SlideGame::action_from_code(frame.action).unwrap())?;
    }
    let tiles: Vec<Tile> = last.iter().map(|&id| tile_from(&data.tiles[id as usize])).collect();
    assert!(tiles == game.draw().tiles, "the last tick, rebuilt from its keyframe");
    Ok(())
}

#[test]
fn a_cancelled_walk_stops_with_interrupted() {
    let replay = read(&repo_path("replays/snake-7.tbr"));
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let budget = Budget::new(None, Some(cancel));
    let range = TickRange::of(&replay, None, None).unwrap();
    let result =
        view::walk(&replay, range, Want::default(), &budget, &Progress::default(), &mut |_| ControlFlow::Continue(()));
    assert!(matches!(result, Err(ViewError::Interrupted)), "{result:?}");
}

#[test]
fn a_replay_is_shown_only_as_far_as_it_reproduces() {
    let mut replay = read(&repo_path("replays/slide-writeup-astar.tbr"));
    // Another direction at tick 6: illegal there, or another board.
    replay.frames[5].action = (replay.frames[5].action + 2) % 4;
    let range = TickRange::of(&replay, None, None).unwrap();
    let mut shown = Vec::new();
    let result = view::walk(&replay, range, Want::default(), &Budget::unlimited(), &Progress::default(), &mut |view| {
        shown.push(view.tick);
        ControlFlow::Continue(())
    });
    assert!(matches!(&result, Err(ViewError::Diverged(divergence)) if divergence.tick == 6), "{result:?}");
    assert_eq!(shown, (0..6).collect::<Vec<u32>>());
    // Ticks before the divergence still render.
    let early = TickRange::of(&replay, None, Some(5)).unwrap();
    render(&replay, Format::Gif, early);
}

fn pictures_keep_their_size(pictures: &[&Picture]) -> bool {
    pictures.windows(2).all(|pair| (pair[0].columns, pair[0].rows) == (pair[1].columns, pair[1].rows))
}

#[test]
fn a_games_pictures_keep_one_size() {
    for (name, replay) in golden() {
        let views = ticks(&replay, short_range(&replay));
        let pictures: Vec<&Picture> = views.iter().map(|view| view.picture.as_ref().unwrap()).collect();
        assert!(pictures_keep_their_size(&pictures), "{name}");
        for picture in pictures {
            assert_eq!(picture.tiles.len(), usize::from(picture.columns) * usize::from(picture.rows), "{name}");
        }
    }
}

#[test]
fn export_prints_one_line_per_tick_with_the_replays_actions_and_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo_path("replays/flag-round05-exact.tbr");
    let replay = read(&file);
    let output =
        tickbot(dir.path()).args(["replay", "export"]).arg(&file).args(["--json", "--states"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<Value> =
        String::from_utf8(output.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines.len(), replay.frames.len() + 1);
    assert_eq!(lines[0]["action"], Value::Null);
    assert_eq!(lines[0]["hash"], format!("{:016x}", replay.header.initial_hash));
    for (line, frame) in lines[1..].iter().zip(&replay.frames) {
        assert_eq!(line["code"].as_u64(), Some(u64::from(frame.action)));
        assert!(line["state"]["position"].is_array(), "{line}");
    }
    let footer = replay.footer.as_ref().unwrap();
    let last = lines.last().unwrap();
    assert_eq!(last["hash"], format!("{:016x}", footer.final_hash));
    assert_eq!(last["status"], footer.outcome.kind.to_string());
    // Without --states, no state.
    let plain =
        tickbot(dir.path()).args(["replay", "export"]).arg(&file).args(["--json", "--to", "2"]).output().unwrap();
    let text = String::from_utf8(plain.stdout).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(!text.contains("\"state\""));
}

#[test]
fn render_writes_each_format_and_refuses_bad_requests_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo_path("replays/snake-arena12-cap150.tbr");
    for name in ["game.html", "game.gif", "game.svg"] {
        let output = tickbot(dir.path())
            .args(["replay", "render"])
            .arg(&file)
            .args(["--out", name, "--from", "10", "--to", "30", "--fps", "20"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.contains("21 frames (ticks 10 to 30)"), "{stdout}");
        assert!(dir.path().join(name).metadata().unwrap().len() > 1000);
        assert!(!dir.path().join(format!("{name}.part")).exists());
    }
    // A page or picture is made to be shared: its title names the replay,
    // not the directories it was rendered from.
    let page = std::fs::read_to_string(dir.path().join("game.html")).unwrap();
    let title = embedded_data(&page).expect("the page's data").title;
    assert!(title.starts_with("snake-arena12-cap150.tbr"), "{title}");
    assert!(page.contains(&format!("<title>{title}")), "the page's title is its data's");
    let svg = std::fs::read_to_string(dir.path().join("game.svg")).unwrap();
    assert!(svg.contains("<title>snake-arena12-cap150.tbr (ticks 10 to 30)</title>"), "the picture's title");
    let directory = file.parent().unwrap().display().to_string();
    for (name, text) in [("page", &page), ("picture", &svg)] {
        assert!(!text.contains(&directory), "the {name} names the directory {directory}");
    }
    #[track_caller]
    fn refused(dir: &Path, file: &Path, args: &[&str], message: &str) {
        let output = tickbot(dir).args(["replay", "render"]).arg(file).args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    refused(dir.path(), &file, &["--out", "game.png"], "--out game.png: the file name must end in .html, .gif or .svg");
    refused(
        dir.path(),
        &file,
        &["--out", "game.gif", "--to", "151"],
        "tick 151 is past the end of the replay (150 ticks)",
    );
    refused(dir.path(), &file, &["--out", "game.gif", "--from", "9", "--to", "3"], "--from 9 is after --to 3");
    refused(dir.path(), &file, &["--out", "game.gif", "--fps", "0"], "--fps");
    let missing = dir.path().join("missing.tbr");
    refused(dir.path(), &missing, &["--out", "game.gif"], "cannot read");
}
