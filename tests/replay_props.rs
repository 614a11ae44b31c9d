//! Record -> verify as properties over many seeds, and the decoder's
//! behaviour on damaged input: a changed action is caught at its tick, a
//! truncated file reports its last whole tick, and no input bytes panic.

use proptest::prelude::*;
use tickbot::game::Game;
use tickbot::game::snake::SnakeGame;
use tickbot::replay::{self, Replay, ReplayError};

use crate::support::{chuyangliu, open_board, record_snake};

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
        let mut recorded = record_snake(&chuyangliu(), seed);
        let index = at.index(recorded.frames.len());
        let frame = &mut recorded.frames[index];
        frame.action = (frame.action + delta) % 4;
        let divergence = replay::verify(&recorded).unwrap_err();
        prop_assert_eq!(divergence.tick, index as u32 + 1);
    }

    #[test]
    fn decoding_random_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = replay::decode(&bytes);
        let mut with_magic = b"TICKBOT\x1a\x01\x00".to_vec();
        with_magic.extend_from_slice(&bytes);
        if let Ok(replay) = replay::decode_partial(&with_magic) {
            let _ = replay::verify(&replay);
            let _ = replay::render_all(&replay);
        }
    }

    #[test]
    fn a_flipped_byte_after_the_header_never_verifies(seed in 0u64..50, at in any::<prop::sample::Index>(), mask in 1u8..=255) {
        let recorded = record_snake(&open_board(5, 5), seed);
        let bytes = replay::encode_to_vec(&recorded).unwrap();
        let header_len = replay::encode_to_vec(&Replay { frames: Vec::new(), footer: None, ..recorded.clone() }).unwrap().len();
        let mut damaged = bytes.clone();
        let index = header_len + at.index(damaged.len() - header_len);
        damaged[index] ^= mask;
        if let Ok(decoded) = replay::decode(&damaged) {
            prop_assert!(replay::verify(&decoded).is_err(), "byte {index} ^ {mask:#x} still verifies");
        }
    }
}

#[test]
fn truncation_reports_the_last_whole_tick() {
    let recorded = record_snake(&chuyangliu(), 11);
    let bytes = replay::encode_to_vec(&recorded).unwrap();
    let header_len = {
        let empty = Replay { frames: Vec::new(), footer: None, ..recorded.clone() };
        replay::encode_to_vec(&empty).unwrap().len()
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
