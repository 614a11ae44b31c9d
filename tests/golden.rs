//! Every committed replay under `replays/` must verify: the golden set
//! freezes the wire format, the rules and the random streams. Adding a file
//! to `replays/` adds it to this test.

use tickbot::game::OutcomeKind;
use tickbot::replay;

use crate::support::{replay_files, repo_path};

#[test]
fn every_golden_replay_verifies() {
    let files = replay_files(&repo_path("replays"));
    assert!(files.len() >= 3, "expected a golden set in replays/, found {files:?}");
    let mut outcomes = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("readable replay");
        let decoded = replay::decode(&bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let reproduced = replay::verify(&decoded).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(Some(reproduced.ticks), decoded.footer.as_ref().map(|footer| footer.ticks));
        // Re-encoding must give back the very same bytes: the format has one
        // encoding per replay.
        assert_eq!(replay::encode_to_vec(&decoded).expect("encodes"), bytes, "{}", path.display());
        outcomes.push((reproduced.outcome.kind, reproduced.ticks));
    }
    assert!(outcomes.iter().any(|&(kind, _)| kind == OutcomeKind::Lost), "the golden set needs a lost game");
    assert!(outcomes.iter().any(|&(kind, _)| kind == OutcomeKind::Won), "the golden set needs a won game");
    assert!(outcomes.iter().any(|&(_, ticks)| ticks < 200), "the golden set needs a short game");
    assert!(outcomes.iter().any(|&(_, ticks)| ticks > 1000), "the golden set needs a long game");
}
