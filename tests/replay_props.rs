//! Record -> verify as properties over many seeds, and the decoder's
//! behaviour on damaged input, for both format versions: a changed action
//! is caught at its tick (version 2: at most a block later), a truncated
//! file reports its last whole tick (version 2: block), no input bytes
//! panic, any damaged byte of a version 2 file is caught, hostile headers
//! of every game are refused or replayed cleanly, and `replay show` reports
//! an unplayable action as `replay verify` does.

use std::ops::ControlFlow;
use std::sync::OnceLock;

use predicates::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tempfile::TempDir;
use tickbot::game::snake::Config;
use tickbot::game::snake::SnakeGame;
use tickbot::game::{Game, GameVisitor, Replayable, Status, Wire as _};
use tickbot::replay::{self, BLOCK_TICKS, FrameHash, RenderError, Replay, ReplayError};

use crate::golden::Wire;
use crate::support::{chuyangliu, open_board, record_snake, replay_files, repo_path, tickbot};

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn recorded_games_verify(seed in any::<u64>(), side in 3u16..9) {
        let config = open_board(side, side);
        let recorded = record_snake(&config, seed);
        let bytes = replay::encode_to_vec(&recorded).unwrap();
        let decoded = replay::decode(&bytes).unwrap();
        prop_assert_eq!(&decoded, &recorded);
        let reproduced = replay::verify(&decoded).unwrap();
        let footer = recorded.footer.as_ref().unwrap();
        prop_assert_eq!(reproduced.ticks, footer.ticks);
        prop_assert_eq!(&reproduced.outcome, &footer.outcome);
        // Same seed, same bytes.
        let again = replay::encode_to_vec(&record_snake(&config, seed)).unwrap();
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn a_changed_action_is_reported_at_its_tick(seed in any::<u64>(), at in any::<prop::sample::Index>(), delta in 1u32..4) {
        // Every hash in full (version 1): the exact tick.
        let mut recorded = record_snake_in_full(&chuyangliu(), seed);
        let index = at.index(recorded.frames.len());
        let frame = &mut recorded.frames[index];
        frame.action = (frame.action + delta) % 4;
        let divergence = replay::verify(&recorded).unwrap_err();
        prop_assert_eq!(divergence.tick, index as u32 + 1);
        // 8-bit hashes between block ends (version 2): that tick, or with
        // probability 1/256 per tick a later one, never past its block.
        let compacted = recorded.compacted();
        let divergence = replay::verify(&compacted).unwrap_err();
        let block_end = (index as u32 / BLOCK_TICKS + 1) * BLOCK_TICKS;
        prop_assert!((index as u32 + 1..=block_end).contains(&divergence.tick), "tick {} for a change at {}", divergence.tick, index + 1);
    }

    #[test]
    fn decoding_random_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = replay::decode(&bytes);
        for version in [b"\x01\x00", b"\x02\x00"] {
            let mut with_magic = b"TICKBOT\x1a".to_vec();
            with_magic.extend_from_slice(version);
            with_magic.extend_from_slice(&bytes);
            if let Ok(replay) = replay::decode_partial(&with_magic) {
                let _ = replay::verify(&replay);
                let _ = replay::render_each(&replay, &mut |_, _| ControlFlow::Continue(()));
            }
        }
    }

    #[test]
    fn a_flipped_byte_after_the_header_never_verifies(seed in 0u64..50, at in any::<prop::sample::Index>(), mask in 1u8..=255) {
        // Version 1: the header has no checksum, the frames are caught by
        // decoding or verification.
        let recorded = record_snake_in_full(&open_board(5, 5), seed);
        let bytes = replay::encode_v1_to_vec(&recorded).unwrap();
        let header_len = replay::encode_v1_to_vec(&Replay { frames: Vec::new(), footer: None, ..recorded.clone() }).unwrap().len();
        let mut damaged = bytes.clone();
        let index = header_len + at.index(damaged.len() - header_len);
        damaged[index] ^= mask;
        if let Ok(decoded) = replay::decode(&damaged) {
            prop_assert!(replay::verify(&decoded).is_err(), "byte {index} ^ {mask:#x} still verifies");
        }
    }

    /// Version 2: any byte at all, the header's included, and decoding
    /// itself refuses the file.
    #[test]
    fn a_flipped_byte_anywhere_in_a_version_2_file_never_decodes(seed in 0u64..50, at in any::<prop::sample::Index>(), mask in 1u8..=255) {
        let bytes = replay::encode_to_vec(&record_snake(&open_board(5, 5), seed)).unwrap();
        let mut damaged = bytes.clone();
        let index = at.index(damaged.len());
        damaged[index] ^= mask;
        prop_assert!(replay::decode(&damaged).is_err(), "byte {index} ^ {mask:#x} still decodes");
    }
}

/// A recorded game with every hash in full, as version 1 stores it.
fn record_snake_in_full(config: &Config, seed: u64) -> Replay {
    let mut recorded = record_snake(config, seed);
    let mut game = SnakeGame::new(config, seed);
    for frame in &mut recorded.frames {
        game.step(SnakeGame::action_from_code(frame.action).unwrap()).unwrap();
        frame.hash = FrameHash::Full(game.state_hash());
    }
    recorded
}

/// Every header byte of a golden replay of each version 2 twin, flipped
/// by every single bit: all are caught by decoding (version 1 headers let
/// some through, which is why version 2 checksums them).
#[test]
fn every_single_bit_flip_of_a_version_2_header_is_caught() {
    for path in replay_files(&repo_path("replays/v2")) {
        let bytes = std::fs::read(&path).unwrap();
        let decoded = replay::decode(&bytes).unwrap();
        let header_len = replay::encode_to_vec(&Replay { frames: Vec::new(), footer: None, ..decoded }).unwrap().len();
        for index in 0..header_len {
            for bit in 0..8 {
                let mut damaged = bytes.clone();
                damaged[index] ^= 1 << bit;
                assert!(replay::decode(&damaged).is_err(), "{}: byte {index} bit {bit}", path.display());
            }
        }
    }
}

#[test]
fn truncation_reports_the_last_whole_tick() {
    let recorded = record_snake_in_full(&chuyangliu(), 11);
    let bytes = replay::encode_v1_to_vec(&recorded).unwrap();
    let header_len = {
        let empty = Replay { frames: Vec::new(), footer: None, ..recorded.clone() };
        replay::encode_v1_to_vec(&empty).unwrap().len()
    };
    let mut previous_ticks = 0;
    for cut in header_len..bytes.len() {
        match replay::decode(&bytes[..cut]) {
            Err(ReplayError::Truncated { ticks }) => {
                let partial = replay::decode_partial(&bytes[..cut]).unwrap();
                assert_eq!(partial.frames.len() as u32, ticks);
                assert_eq!(partial.frames[..], recorded.frames[..ticks as usize]);
                assert!(ticks >= previous_ticks, "cut at {cut}");
                previous_ticks = ticks;
            }
            other => panic!("cut at {cut} of {}: expected Truncated, got {other:?}", bytes.len()),
        }
    }
    assert_eq!(previous_ticks, recorded.frames.len() as u32);
    for cut in 10..header_len {
        assert!(matches!(replay::decode(&bytes[..cut]), Err(ReplayError::TruncatedHeader)), "cut at {cut}");
    }
}

/// Version 2 cut at every byte: inside the header, "truncated in the
/// header"; after it, the frames of every whole block (a multiple of 64
/// ticks), the rest reported as truncated.
#[test]
fn truncation_of_a_version_2_file_keeps_every_whole_block() {
    let recorded = record_snake(&chuyangliu(), 11);
    assert!(recorded.frames.len() > 3 * BLOCK_TICKS as usize, "a game of several blocks");
    let bytes = replay::encode_to_vec(&recorded).unwrap();
    let header_len = {
        let empty = Replay { frames: Vec::new(), footer: None, ..recorded.clone() };
        replay::encode_to_vec(&empty).unwrap().len()
    };
    for cut in 10..header_len {
        assert!(matches!(replay::decode(&bytes[..cut]), Err(ReplayError::TruncatedHeader)), "cut at {cut}");
    }
    let mut previous_ticks = 0;
    for cut in header_len..bytes.len() {
        match replay::decode(&bytes[..cut]) {
            Err(ReplayError::Truncated { ticks }) => {
                let partial = replay::decode_partial(&bytes[..cut]).unwrap();
                assert_eq!(partial.frames.len() as u32, ticks);
                assert_eq!(partial.frames[..], recorded.frames[..ticks as usize]);
                let whole_blocks = ticks % BLOCK_TICKS == 0 || ticks == recorded.frames.len() as u32;
                assert!(whole_blocks, "cut at {cut}: {ticks} ticks is not a whole number of blocks");
                assert!(ticks >= previous_ticks, "cut at {cut}");
                // The partial replay verifies as far as it goes.
                assert_eq!(replay::verify(&partial).map(|reproduced| reproduced.ticks), Ok(ticks), "cut at {cut}");
                previous_ticks = ticks;
            }
            other => panic!("cut at {cut} of {}: expected Truncated, got {other:?}", bytes.len()),
        }
    }
    assert_eq!(previous_ticks, recorded.frames.len() as u32);
}

#[test]
fn wrong_magic_and_future_versions_are_refused() {
    let bytes = replay::encode_to_vec(&record_snake(&open_board(4, 4), 1)).unwrap();
    let mut foreign = bytes.clone();
    foreign[0] = b'X';
    assert!(matches!(replay::decode(&foreign), Err(ReplayError::NotAReplay)));
    let mut future = bytes.clone();
    future[8] = 9;
    assert!(matches!(replay::decode(&future), Err(ReplayError::UnsupportedVersion { found: 9 })));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(matches!(replay::decode(&trailing), Err(ReplayError::Corrupt { .. })));
}

#[test]
fn a_replay_of_another_seed_diverges_at_tick_zero() {
    let config = open_board(6, 6);
    let mut recorded = record_snake(&config, 5);
    recorded.header.seed = 6;
    let divergence = replay::verify(&recorded).unwrap_err();
    // The two seeds could place the first food alike; then the game only
    // diverges at the second food.
    if SnakeGame::new(&config, 5).state_hash() != SnakeGame::new(&config, 6).state_hash() {
        assert_eq!(divergence.tick, 0);
    }
}

/// A golden replay cut to its header and first frames (so a case takes
/// milliseconds), with where its header ends.
struct GoldenHead {
    name: String,
    bytes: Vec<u8>,
    header_len: usize,
    replay: Replay,
}

/// Frames kept after a golden header: enough to play past the start.
const KEPT_FRAMES: usize = 40;

fn golden_heads() -> &'static [GoldenHead] {
    static HEADS: OnceLock<Vec<GoldenHead>> = OnceLock::new();
    HEADS.get_or_init(|| {
        replay_files(&repo_path("replays"))
            .into_iter()
            .map(|path| (std::fs::read(&path).unwrap(), path))
            .filter(|(bytes, _)| replay::format_version(bytes).unwrap() == 1)
            .map(|(bytes, path)| {
                let replay = replay::decode(&bytes).unwrap();
                let header_only = Replay { frames: Vec::new(), footer: None, ..replay.clone() };
                let header_len = replay::encode_v1_to_vec(&header_only).unwrap().len();
                let frames = replay.frames.iter().take(KEPT_FRAMES).copied().collect();
                let replay = Replay { frames, ..header_only };
                let bytes = replay::encode_v1_to_vec(&replay).unwrap();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                GoldenHead { name, bytes, header_len, replay }
            })
            .collect()
    })
}

/// The frame records of the first golden replay of `game`, to follow a
/// hostile header of that game.
fn golden_frames(game: &str) -> &'static [u8] {
    let head = golden_heads().iter().find(|head| head.replay.header.game.name() == game).expect("a golden replay");
    &head.bytes[head.header_len..]
}

/// What must hold for any bytes at all: no panic, no hang (each call is
/// bounded by the validated header and the frames present), and a replay
/// that decodes is handled consistently: it encodes back to itself,
/// verifies the same way twice, and renders wherever it verifies.
fn check_hostile(bytes: &[u8]) -> Result<Option<Result<replay::Reproduced, replay::Divergence>>, TestCaseError> {
    let Ok(decoded) = replay::decode_partial(bytes) else { return Ok(None) };
    // What `replay show` prints about the game, and what a planner would
    // ask of its start, work on any header that decodes.
    decoded.header.game.visit(Inspect);
    let verified = replay::verify(&decoded);
    let again = match replay::format_version(bytes).unwrap() {
        1 => replay::encode_v1_to_vec(&decoded).unwrap(),
        _ => replay::encode_to_vec(&decoded).unwrap(),
    };
    prop_assert_eq!(&replay::decode_partial(&again).unwrap(), &decoded, "re-encoding changed the replay");
    prop_assert_eq!(&replay::verify(&decoded), &verified);
    let ticks = decoded.frames.len() as u32;
    let last = replay::render_at(&decoded, ticks);
    let mut boards = 0;
    let all = replay::render_each(&decoded, &mut |tick, _| {
        assert_eq!(tick, boards, "boards come in tick order");
        boards += 1;
        ControlFlow::Continue(())
    });
    if verified.is_ok() {
        prop_assert!(last.is_ok(), "verifies but does not render: {last:?}");
        prop_assert!(all.is_ok(), "verifies but does not render: {all:?}");
        prop_assert_eq!(boards as usize, decoded.frames.len() + 1);
    }
    Ok(Some(verified))
}

/// Describes a game and asks its start state what `replay show` and a
/// planner would.
struct Inspect;

impl GameVisitor for Inspect {
    type Output = ();
    fn visit<G: Replayable>(self, config: &G::Config) {
        assert!(!G::describe(config).is_empty());
        let game = G::new(config, 1);
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        assert_eq!(actions.is_empty(), game.status() != Status::Running, "legal actions exactly while running");
        assert_eq!(game.tick(), 0);
    }
}

/// One change to a header's bytes.
#[derive(Clone, Debug)]
enum Edit {
    Xor(u8),
    Set(u8),
    /// A variable-length integer's marker: the next 2, 4 or 8 bytes become
    /// part of this integer.
    Marker(u8),
    Insert(u8),
    Delete,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (1u8..=255).prop_map(Edit::Xor),
        any::<u8>().prop_map(Edit::Set),
        (251u8..=253).prop_map(Edit::Marker),
        any::<u8>().prop_map(Edit::Insert),
        Just(Edit::Delete),
    ]
}

/// An unsigned field's value, leaning to the edges a validation must catch.
fn field() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..=4,
        Just(200),
        Just(201),
        Just(500),
        Just(501),
        Just(1024),
        Just(u64::from(u16::MAX)),
        Just(u64::from(u32::MAX)),
        5u64..=70,
        any::<u64>(),
    ]
}

/// A header for `game`'s variant, written by hand so it can say what no
/// `Config` would (see [`Wire`]): each field is a plausible value drawn from
/// `bytes`, or, where `hostile` says so, an edge value from `numbers` (a
/// board side of 65535, a list whose length disagrees with the board, a
/// start off the board, an unknown variant, a card out of range).
fn hostile_game(game: u8, numbers: &[u64], bytes: &[u8], hostile: &[bool]) -> Vec<u8> {
    let byte = |index: usize| bytes[index % bytes.len()];
    let pick = |field: usize, plausible: u64| {
        if hostile[field % hostile.len()] { numbers[field % numbers.len()] } else { plausible }
    };
    let side = |field: usize| pick(field, 1 + u64::from(byte(field) % 9));
    let mut wire = Wire::default();
    wire.uint(u64::from(game));
    match game {
        // Snake: width, height, walls, start, tail rule, stall limit, cap.
        0 => {
            let (width, height) = (side(0), side(1));
            let cells = pick(2, width.saturating_mul(height));
            wire.uint(width).uint(height).uint(cells);
            for index in 0..cells.min(4096) as usize {
                wire.byte(u8::from(byte(index) % 8 == 0));
            }
            match byte(3) % 3 {
                0 => wire.byte(0),
                _ => wire
                    .byte(1)
                    .uint(pick(3, u64::from(byte(4)) % width.max(1)))
                    .uint(pick(4, u64::from(byte(5)) % height.max(1)))
                    .uint(pick(5, u64::from(byte(6) % 4)))
                    .uint(pick(6, u64::from(byte(7) % 4))),
            };
            wire.uint(pick(7, u64::from(byte(8) % 2)));
            wire.option((byte(9) % 2 == 0).then(|| pick(8, u64::from(byte(10)))))
                .option((byte(11) % 2 == 0).then(|| pick(9, u64::from(byte(12)))));
        }
        // Flag: width, height, tiles (one flag), start column and row.
        1 => {
            let (width, height) = (side(0), side(1));
            let cells = pick(2, width.saturating_mul(height));
            wire.uint(width).uint(height).uint(cells);
            let flag = u64::from(byte(3)) % cells.max(1);
            for index in 0..cells.min(4096) {
                let tile = if index == flag { 4 } else { u64::from(byte(index as usize + 4) % 4) };
                wire.uint(pick(3 + index as usize % 2 * 7, tile));
            }
            wire.uint(pick(4, u64::from(byte(5)) % width.max(1))).uint(pick(5, u64::from(byte(6)) % height.max(1)));
        }
        // Slide: side, start (tiles or random), goal, cap.
        2 => {
            let side = pick(0, 3 + u64::from(byte(0) % 3));
            wire.byte(side as u8);
            match pick(1, u64::from(byte(1) % 2)) {
                0 => {
                    let cells = pick(2, side.saturating_mul(side));
                    let mut tiles: Vec<u64> = (0..cells.min(4096)).collect();
                    tiles.sort_by_key(|&tile| byte(tile as usize + 2));
                    wire.uint(0).uint(cells);
                    for (index, tile) in tiles.into_iter().enumerate() {
                        wire.byte(pick(3 + index % 2 * 7, tile) as u8);
                    }
                }
                variant => {
                    wire.uint(variant);
                }
            }
            wire.uint(pick(4, u64::from(byte(3) % 2))).option((byte(4) % 2 == 0).then(|| pick(5, u64::from(byte(5)))));
        }
        // Pipes: width, height, wrap, source column and row, tiles.
        3 => {
            let (width, height) = (side(0), side(1));
            let cells = pick(2, width.saturating_mul(height));
            wire.uint(width).uint(height).byte(pick(3, u64::from(byte(2) % 2)) as u8);
            wire.uint(pick(4, u64::from(byte(3)) % width.max(1))).uint(pick(5, u64::from(byte(4)) % height.max(1)));
            wire.uint(cells);
            for index in 0..cells.min(4096) as usize {
                wire.byte(pick(6 + index % 2 * 4, u64::from(byte(index + 5) % 16)) as u8);
            }
        }
        // LOCM: the card list, the seeding mode.
        _ => {
            let count = pick(0, 60 + u64::from(byte(0)) % 100);
            wire.uint(count);
            for index in 0..count.min(300) as usize {
                let kind = u64::from(byte(index) % 4);
                let number = |offset: usize, low: i64, high: i64| {
                    let plausible = low + i64::from(byte(index + offset)) % (high - low + 1);
                    pick(offset + index % 3, plausible as u64) as u8
                };
                wire.byte(pick(1 + index % 7, index as u64 + 1) as u8)
                    .string(&format!("card {index}"))
                    .uint(pick(2, kind));
                let (attack_low, defense_low) = if kind == 0 { (0, 1) } else { (-5, -5) };
                wire.byte(number(3, 0, 12)).byte(number(4, attack_low, 9)).byte(number(5, defense_low, 9));
                wire.byte(number(6, 0, 63)).byte(number(7, -5, 5)).byte(number(8, -5, 5)).byte(number(9, 0, 4));
            }
            wire.uint(pick(1, u64::from(byte(1) % 2)));
        }
    }
    wire.0
}

const GAMES: [&str; 5] = ["snake", "flag", "slide", "pipes", "locm"];

proptest! {
    // A case takes well under a millisecond: many cases, little test time.
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Golden headers with a few bytes changed, inserted or deleted: decoding
    /// and verification stay clean, and a header that still decodes to the
    /// same game, seed and start verifies as the original did.
    #[test]
    fn mutated_golden_headers_are_refused_or_replayed_cleanly(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), edit()), 1..4),
    ) {
        let head = &golden_heads()[which.index(golden_heads().len())];
        let mut header = head.bytes[..head.header_len].to_vec();
        for (at, edit) in edits {
            // The magic number and version have their own tests.
            let index = 10 + at.index(header.len() - 10);
            match edit {
                Edit::Xor(mask) => header[index] ^= mask,
                Edit::Set(value) | Edit::Marker(value) => header[index] = value,
                Edit::Insert(value) => header.insert(index, value),
                Edit::Delete => {
                    header.remove(index);
                }
            }
        }
        header.extend_from_slice(&head.bytes[head.header_len..]);
        let verified = check_hostile(&header)?;
        if let (Some(verified), Ok(decoded)) = (verified, replay::decode_partial(&header)) {
            let original = &head.replay.header;
            let (same_game, same_start) = (decoded.header.game == original.game, decoded.header.seed == original.seed && decoded.header.initial_hash == original.initial_hash);
            if same_game && same_start && decoded.frames == head.replay.frames {
                prop_assert!(verified.is_ok(), "{}: an unchanged game no longer verifies: {verified:?}", head.name);
            }
        }
    }

    /// Hostile headers that decode field by field: boards of every size up
    /// to the largest the wire can say, lists whose length disagrees with
    /// the board, starts off the board or on a wall, unknown variants,
    /// card lists of any length and content. Each is refused by its game's
    /// validation or replayed cleanly, followed by real frames of its game.
    #[test]
    fn hostile_headers_are_refused_or_replayed_cleanly(
        game in 0u8..5,
        numbers in prop::collection::vec(field(), 10),
        bytes in prop::collection::vec(any::<u8>(), 1..64),
        hostile in prop::collection::vec(prop::bool::weighted(0.1), 10),
    ) {
        let mut bytes = Wire::header(&hostile_game(game, &numbers, &bytes, &hostile));
        // The same header in version 2's framing, with a checksum that
        // matches: the checksum guards against damage, not against a
        // hostile writer, so validation must still refuse what it must.
        check_hostile(&as_version_2(&bytes, numbers[0] as u8 % 33))?;
        bytes.extend_from_slice(golden_frames(GAMES[usize::from(game)]));
        if let Some(Err(divergence)) = check_hostile(&bytes)? {
            // The hand-written header cannot know its game's start hash; with
            // the right one, verification plays the frames.
            if divergence.tick == 0 {
                let mut decoded = replay::decode_partial(&bytes).unwrap();
                decoded.header.initial_hash = divergence.actual;
                check_hostile(&replay::encode_v1_to_vec(&decoded).unwrap())?;
            }
        }
    }
}

/// A version 1 file's first bytes (magic, version, header) framed as
/// version 2: the header's length, `action_bits`, the header, its checksum.
fn as_version_2(version_1: &[u8], action_bits: u8) -> Vec<u8> {
    let header = &version_1[10..];
    let mut bytes = b"TICKBOT\x1a\x02\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.push(action_bits);
    bytes.extend_from_slice(header);
    let checksum = xxhash_rust::xxh3::xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    bytes
}

/// The largest boards the wire can describe, with a few bytes of tiles: each
/// game refuses them by validation, before anything the size of the board
/// is allocated (a 65535×65535 board would take 4 GiB).
#[test]
fn headers_of_huge_boards_are_refused() {
    for game in [0u8, 1, 3] {
        let side = u64::from(u16::MAX);
        for cells in [side * side, 3] {
            let numbers = [side, side, cells];
            let hostile = [true, true, true, false];
            let bytes = Wire::header(&hostile_game(game, &numbers, &[1, 2, 3], &hostile));
            let error = replay::decode_partial(&bytes).expect_err("a 65535×65535 board is refused");
            assert!(
                matches!(error, ReplayError::Corrupt { .. } | ReplayError::TruncatedHeader),
                "{}: {error}",
                GAMES[usize::from(game)]
            );
        }
    }
}

/// `replay show` through the binary on a replay whose action at one tick
/// cannot be played there: an action illegal at that point is a divergence
/// (exit 1), a code that stands for no action is a damaged file (exit 3),
/// for `--tick` at or after it and for `--all` alike, as `replay verify`
/// says; `--all` prints every board up to that tick first.
#[test]
fn show_reports_an_unplayable_action_as_verify_does_whichever_tick_is_asked() {
    let dir = TempDir::new().unwrap();
    let golden = replay::decode(&std::fs::read(repo_path("replays/slide-writeup-astar.tbr")).unwrap()).unwrap();
    // The first tick where some other move of the blank would leave the board.
    let (index, illegal) = (0..golden.frames.len())
        .find_map(|index| {
            (0..4).find_map(|code| {
                let mut damaged = golden.clone();
                damaged.frames[index].action = code;
                matches!(replay::render_at(&damaged, index as u32 + 1), Err(RenderError::Diverged(_)))
                    .then_some((index, code))
            })
        })
        .expect("a corner the blank cannot leave through");
    let tick = index as u32 + 1;
    // Version 1 stores any code; version 2 packs slide's four codes in two
    // bits, so it cannot even write a fifth.
    for (name, code, exit) in [("illegal.tbr", illegal, 1), ("unknown.tbr", 99, 3)] {
        let mut damaged = golden.clone();
        damaged.frames[index].action = code;
        std::fs::write(dir.path().join(name), replay::encode_v1_to_vec(&damaged).unwrap()).unwrap();
        let before = replay::render_at(&damaged, tick - 1).unwrap();
        let why =
            if code == 99 { "action code 99 is not a slide action".to_string() } else { format!("at tick {tick}") };
        for tick in [tick.to_string(), (tick + 1).to_string()] {
            tickbot(dir.path())
                .args(["replay", "show", name, "--tick", &tick])
                .assert()
                .code(exit)
                .stderr(predicate::str::contains(&why));
        }
        tickbot(dir.path())
            .args(["replay", "show", name, "--tick", &(tick - 1).to_string()])
            .assert()
            .success()
            .stdout(predicate::str::ends_with(before.clone()));
        tickbot(dir.path())
            .args(["replay", "show", name, "--all"])
            .assert()
            .code(exit)
            .stdout(predicate::str::ends_with(before))
            .stderr(predicate::str::contains(&why));
        tickbot(dir.path()).args(["replay", "verify", name]).assert().code(exit);
    }
    // Version 2: a 3x3 Pipes board has 27 codes in 5 bits; 31 is none.
    let mut pipes = replay::decode(&std::fs::read(repo_path("replays/v2/pipes-3x3-flat-dfs.tbr")).unwrap()).unwrap();
    pipes.frames[0].action = 31;
    std::fs::write(dir.path().join("pipes.tbr"), replay::encode_to_vec(&pipes).unwrap()).unwrap();
    let actual = format!("{:016x}", pipes.header.initial_hash);
    tickbot(dir.path()).args(["replay", "show", "pipes.tbr", "--tick", "1"]).assert().code(3).stderr(
        predicate::str::contains("action code 31 is not a pipes action").and(predicate::str::contains(&actual)),
    );
    tickbot(dir.path())
        .args(["replay", "verify", "pipes.tbr"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("INVALID"));
    tickbot(dir.path())
        .args(["replay", "show", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("for `--tick` at or after that tick and for `--all`"));
}

/// `replay upgrade` on a directory: a version 1 file becomes its version 2
/// twin (smaller, verifying), a version 2 file and a truncated version 1
/// file are left exactly as they were, each said so, and no `.part` file
/// stays behind. `replay stats` then counts the same ticks in fewer bytes.
#[test]
fn upgrade_rewrites_version_1_files_in_place_and_leaves_the_rest() {
    let dir = TempDir::new().unwrap();
    let old = std::fs::read(repo_path("replays/snake-7.tbr")).unwrap();
    let twin = std::fs::read(repo_path("replays/v2/snake-7.tbr")).unwrap();
    let current = std::fs::read(repo_path("replays/v2/slide-writeup-astar.tbr")).unwrap();
    let cut = &old[..old.len() - 30];
    std::fs::write(dir.path().join("old.tbr"), &old).unwrap();
    std::fs::write(dir.path().join("current.tbr"), &current).unwrap();
    std::fs::write(dir.path().join("cut.tbr"), cut).unwrap();
    tickbot(dir.path())
        .args(["replay", "stats", "old.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("snake  version 1: 1 files, 4012 ticks, {} bytes", old.len())));
    tickbot(dir.path()).args(["replay", "upgrade", "."]).assert().code(3).stdout(
        predicate::str::contains(format!("upgraded  ./old.tbr: {} -> {} bytes", old.len(), twin.len()))
            .and(predicate::str::contains("skipped   ./current.tbr: already format version 2"))
            .and(predicate::str::contains("NOT DONE  ./cut.tbr: truncated")),
    );
    let upgraded = std::fs::read(dir.path().join("old.tbr")).unwrap();
    assert_eq!(upgraded, twin);
    assert!(upgraded.len() < old.len());
    assert_eq!(std::fs::read(dir.path().join("current.tbr")).unwrap(), current);
    assert_eq!(std::fs::read(dir.path().join("cut.tbr")).unwrap(), cut);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    tickbot(dir.path()).args(["replay", "verify", "old.tbr", "current.tbr"]).assert().success();
    tickbot(dir.path())
        .args(["replay", "stats", "old.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("snake  version 2: 1 files, 4012 ticks, {} bytes", twin.len())));
    tickbot(dir.path())
        .args(["replay", "upgrade", "old.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains("skipped   old.tbr: already format version 2"));
}
