//! Every committed replay under `replays/` must verify: the golden set
//! freezes the wire format of both versions, the rules and the random
//! streams. Adding a file to `replays/` adds it to this test. Each format
//! version 1 golden has a version 2 twin in `replays/v2/` (the same game,
//! upgraded). The header of one configuration per game is also frozen
//! against bytes written by hand, field by field.

use tickbot::game::flag::{self, FlagSetup, Tile};
use tickbot::game::locm::cards::{Card, CardKind, Keywords};
use tickbot::game::locm::{self, DeckRandomness, LocmSetup};
use tickbot::game::pipes::{self, PipesSetup};
use tickbot::game::slide::{self, Goal, SlideSetup};
use tickbot::game::snake::{self, SnakeSetup, Start, StartRule, TailRule};
use tickbot::game::{GameSpec, OutcomeKind};
use tickbot::replay::{self, Header, PlannerInfo, Replay};
use xxhash_rust::xxh3::xxh3_64;

use crate::support::{replay_files, repo_path};

#[test]
fn every_golden_replay_verifies() {
    let files = replay_files(&repo_path("replays"));
    assert!(files.len() >= 3, "expected a golden set in replays/, found {files:?}");
    let mut outcomes = Vec::new();
    let mut versions = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("readable replay");
        let decoded = replay::decode(&bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let reproduced = replay::verify(&decoded).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(Some(reproduced.ticks), decoded.footer.as_ref().map(|footer| footer.ticks));
        // Re-encoding must give back the very same bytes: each version has
        // one encoding per replay.
        let version = replay::format_version(&bytes).unwrap();
        let again = match version {
            1 => replay::encode_v1_to_vec(&decoded),
            _ => replay::encode_to_vec(&decoded),
        };
        assert_eq!(again.expect("encodes"), bytes, "{}", path.display());
        versions.push(version);
        outcomes.push((reproduced.outcome.kind, reproduced.ticks));
    }
    assert!(versions.contains(&1) && versions.contains(&replay::FORMAT_VERSION), "both versions: {versions:?}");
    assert!(outcomes.iter().any(|&(kind, _)| kind == OutcomeKind::Lost), "the golden set needs a lost game");
    assert!(outcomes.iter().any(|&(kind, _)| kind == OutcomeKind::Won), "the golden set needs a won game");
    assert!(outcomes.iter().any(|&(_, ticks)| ticks < 200), "the golden set needs a short game");
    assert!(outcomes.iter().any(|&(_, ticks)| ticks > 1000), "the golden set needs a long game");
}

/// Each version 1 golden's twin in `replays/v2/` is the same game: the
/// version 1 replay with its hashes between block ends cut to 8 bits.
#[test]
fn every_version_1_golden_has_a_version_2_twin() {
    for path in replay_files(&repo_path("replays")) {
        let bytes = std::fs::read(&path).unwrap();
        if replay::format_version(&bytes).unwrap() != 1 {
            continue;
        }
        let twin_path = repo_path("replays/v2").join(path.file_name().unwrap());
        let twin = std::fs::read(&twin_path).unwrap_or_else(|error| panic!("{}: {error}", twin_path.display()));
        assert_eq!(replay::format_version(&twin).unwrap(), replay::FORMAT_VERSION, "{}", twin_path.display());
        let decoded = replay::decode(&bytes).unwrap();
        assert_eq!(replay::decode(&twin).unwrap(), decoded.clone().compacted(), "{}", twin_path.display());
        assert_eq!(replay::encode_to_vec(&decoded).unwrap(), twin, "upgrading {} gives its twin", path.display());
    }
}

/// The replay codec's bytes, written by hand: this is the specification the
/// header test checks the codec against, and what the header fuzz test uses
/// to build hostile headers that no `Config` could encode. Unsigned integers
/// wider than a byte are variable-length (below 251: one byte; else a marker
/// 251/252/253 and the value as u16/u32/u64 little-endian), signed ones
/// zigzag-mapped first; `u8`, `i8` and `bool` are one byte; a length
/// (string, list) is such an integer; `Option` is a byte 0/1 then the value;
/// an enum is its variant index, then its fields; a struct is its fields in
/// declaration order, unnamed.
#[derive(Default)]
pub(crate) struct Wire(pub(crate) Vec<u8>);

impl Wire {
    pub(crate) fn uint(&mut self, value: u64) -> &mut Wire {
        match value {
            0..=250 => self.0.push(value as u8),
            251..=0xFFFF => {
                self.0.push(251);
                self.0.extend_from_slice(&(value as u16).to_le_bytes());
            }
            0x1_0000..=0xFFFF_FFFF => {
                self.0.push(252);
                self.0.extend_from_slice(&(value as u32).to_le_bytes());
            }
            _ => {
                self.0.push(253);
                self.0.extend_from_slice(&value.to_le_bytes());
            }
        }
        self
    }

    pub(crate) fn byte(&mut self, value: u8) -> &mut Wire {
        self.0.push(value);
        self
    }

    pub(crate) fn string(&mut self, text: &str) -> &mut Wire {
        self.uint(text.len() as u64);
        self.0.extend_from_slice(text.as_bytes());
        self
    }

    pub(crate) fn option(&mut self, value: Option<u64>) -> &mut Wire {
        match value {
            None => self.byte(0),
            Some(value) => self.byte(1).uint(value),
        }
    }

    /// A replay's first bytes: magic, format version, then a header around
    /// `game` (the `GameSpec` variant index and the game's setup, already
    /// written by the caller into `game`).
    pub(crate) fn header(game: &[u8]) -> Vec<u8> {
        let mut wire = Wire::default();
        wire.0.extend_from_slice(b"TICKBOT\x1a\x01\x00");
        wire.string("0.0.0-frozen");
        wire.0.extend_from_slice(game);
        wire.uint(7); // seed
        wire.string("planner").uint(1).string("key").string("value");
        wire.uint(0xDEAD_BEEF_CAFE); // initial hash
        wire.0
    }
}

/// The header a replay of `game` would have, with the fixed informational
/// fields [`Wire::header`] writes.
fn frozen_header(game: GameSpec) -> Vec<u8> {
    let header = Header {
        tickbot_version: "0.0.0-frozen".into(),
        game,
        seed: 7,
        planner: PlannerInfo { name: "planner".into(), params: vec![("key".into(), "value".into())] },
        initial_hash: 0xDEAD_BEEF_CAFE,
    };
    replay::encode_v1_to_vec(&Replay { header, frames: Vec::new(), footer: None }).expect("encodes")
}

/// Version 2 frames the same header bytes: magic, version 2, the header's
/// length (u32), the bits per action, the header, and the xxh3-64 of all
/// that.
fn frozen_header_v2(game: GameSpec, action_bits: u8) -> Vec<u8> {
    let version_1 = frozen_header(game.clone());
    let header = &version_1[10..];
    let mut expected = b"TICKBOT\x1a\x02\x00".to_vec();
    expected.extend_from_slice(&(header.len() as u32).to_le_bytes());
    expected.push(action_bits);
    expected.extend_from_slice(header);
    let checksum = xxh3_64(&expected);
    expected.extend_from_slice(&checksum.to_le_bytes());
    let header = Header {
        tickbot_version: "0.0.0-frozen".into(),
        game,
        seed: 7,
        planner: PlannerInfo { name: "planner".into(), params: vec![("key".into(), "value".into())] },
        initial_hash: 0xDEAD_BEEF_CAFE,
    };
    let encoded = replay::encode_to_vec(&Replay { header, frames: Vec::new(), footer: None }).expect("encodes");
    assert_eq!(encoded, expected, "the version 2 framing of the header changed");
    encoded
}

/// One small configuration per game, encoded, against its bytes written by
/// hand field by field: renaming, reordering, retyping, adding or removing
/// a field of a header type (each game's `*Setup` and what it holds) fails
/// here, or does not compile, until the format version is bumped and this
/// test is rewritten for the new version.
#[test]
fn replay_header_bytes_are_frozen() {
    #[track_caller]
    fn check(game: GameSpec, expected_game: &Wire) {
        let name = game.name();
        // Bits per action: 2 for four directions, 3 per tile for Pipes'
        // turns (4 tiles: codes below 12, 4 bits), 18 for LOCM's codes.
        let action_bits = match name {
            "pipes" => 4,
            "locm" => 18,
            _ => 2,
        };
        frozen_header_v2(game.clone(), action_bits);
        assert_eq!(frozen_header(game), Wire::header(&expected_game.0), "{name}: the header bytes changed");
    }

    // Snake: 4x3, one wall, start at (3, 1) facing right, length 2.
    let snake = SnakeSetup {
        width: 4,
        height: 3,
        walls: vec![false, false, false, false, true, false, false, false, false, false, false, false],
        start: StartRule::At(Start { col: 3, row: 1, heading: snake::Dir::Right, length: 2 }),
        tail_rule: TailRule::Blocks,
        stall_limit: Some(300),
        max_ticks: Some(100_000),
    };
    let SnakeSetup { width, height, ref walls, start, tail_rule: _, stall_limit, max_ticks } = snake;
    let mut wire = Wire::default();
    wire.uint(0).uint(width.into()).uint(height.into()).uint(walls.len() as u64);
    for &wall in walls {
        wire.byte(wall.into());
    }
    let StartRule::At(Start { col, row, heading: _, length }) = start else { unreachable!() };
    // Start rule 1: at (the byte `Some` wrote when the field was an `Option<Start>`).
    wire.uint(1).uint(col.into()).uint(row.into()).uint(1).uint(length.into()); // heading 1: right
    wire.uint(1).option(stall_limit.map(u64::from)).option(max_ticks.map(u64::from)); // tail rule 1: blocks
    check(GameSpec::Snake(snake::Config::try_from(snake.clone()).unwrap()), &wire);
    let random = SnakeSetup { start: StartRule::Random, ..snake };
    let mut wire = Wire::default();
    wire.uint(0).uint(4).uint(3).uint(12);
    for &wall in &random.walls {
        wire.byte(wall.into());
    }
    wire.uint(2).uint(1).option(Some(300)).option(Some(100_000)); // start rule 2: random
    check(GameSpec::Snake(snake::Config::try_from(random).unwrap()), &wire);

    // Flag: 3x2, start on the stone at (0, 1).
    let flag = FlagSetup {
        width: 3,
        height: 2,
        tiles: vec![Tile::Fragile, Tile::Cracked, Tile::Flag, Tile::Stone, Tile::Hole, Tile::Fragile],
        start_col: 0,
        start_row: 1,
    };
    let FlagSetup { width, height, ref tiles, start_col, start_row } = flag;
    let mut wire = Wire::default();
    wire.uint(1).uint(width.into()).uint(height.into()).uint(tiles.len() as u64);
    for tile in [1, 2, 4, 3, 0, 1] {
        wire.uint(tile); // variant indices: hole 0, fragile 1, cracked 2, stone 3, flag 4
    }
    wire.uint(start_col.into()).uint(start_row.into());
    check(GameSpec::Flag(flag::Config::try_from(flag).unwrap()), &wire);

    // Slide: the 8-puzzle one move from blank-last, with a cap.
    let tiles = vec![1, 2, 3, 4, 5, 6, 7, 0, 8];
    let slide =
        SlideSetup { side: 3, start: slide::Start::Tiles(tiles.clone()), goal: Goal::BlankLast, max_ticks: Some(500) };
    let SlideSetup { side, start: _, goal: _, max_ticks } = slide;
    let mut wire = Wire::default();
    wire.uint(2).byte(side).uint(0).uint(tiles.len() as u64); // start 0: tiles
    for &tile in tiles.iter() {
        wire.byte(tile);
    }
    wire.uint(0).option(max_ticks.map(u64::from)); // goal 0: blank-last
    check(GameSpec::Slide(slide::Config::try_from(slide).unwrap()), &wire);
    let random = SlideSetup { side: 4, start: slide::Start::Random, goal: Goal::BlankFirst, max_ticks: Some(300) };
    let mut wire = Wire::default();
    wire.uint(2).byte(4).uint(1).uint(1).option(Some(300));
    check(GameSpec::Slide(slide::Config::try_from(random).unwrap()), &wire);

    // Pipes: 2x2 with wrap, source at (1, 0).
    let pipes = PipesSetup { width: 2, height: 2, wrap: true, source_col: 1, source_row: 0, tiles: vec![2, 12, 1, 4] };
    let PipesSetup { width, height, wrap, source_col, source_row, ref tiles } = pipes;
    let mut wire = Wire::default();
    wire.uint(3)
        .uint(width.into())
        .uint(height.into())
        .byte(wrap.into())
        .uint(source_col.into())
        .uint(source_row.into());
    wire.uint(tiles.len() as u64);
    for &tile in tiles.iter() {
        wire.byte(tile);
    }
    check(GameSpec::Pipes(pipes::Config::try_from(pipes).unwrap()), &wire);

    // LOCM: the smallest list (60 cards) of made-up cards, Java seeding.
    let cards: Vec<Card> = (1..=60)
        .map(|id| Card {
            id,
            name: format!("Card {id}"),
            kind: if id % 2 == 0 { CardKind::Creature } else { CardKind::RedItem },
            cost: (id % 13) as i8,
            attack: if id % 2 == 0 { 2 } else { -2 },
            defense: if id % 2 == 0 { 3 } else { -1 },
            keywords: Keywords(id % 64),
            my_health: -(id as i8 % 5),
            opponent_health: 0,
            draw: (id % 3) as i8,
        })
        .collect();
    let locm = LocmSetup { cards: cards.clone(), randomness: DeckRandomness::Java };
    let mut wire = Wire::default();
    wire.uint(4).uint(cards.len() as u64);
    for card in &cards {
        let Card { id, name, kind: _, cost, attack, defense, keywords, my_health, opponent_health, draw } = card;
        let kind = if id % 2 == 0 { 0 } else { 2 }; // creature 0, red item 2
        wire.byte(*id).string(name).uint(kind).byte(*cost as u8).byte(*attack as u8).byte(*defense as u8);
        wire.byte(keywords.0).byte(*my_health as u8).byte(*opponent_health as u8).byte(*draw as u8);
    }
    wire.uint(1); // randomness 1: java
    check(GameSpec::Locm(locm::Config::try_from(locm).unwrap()), &wire);
}
