//! What a LOCM game is built from: the card list and where the draft's and
//! the decks' randomness comes from, unvalidated ([`LocmSetup`], what a
//! replay header stores) and validated ([`Config`]); and the reference
//! referee's seeds ([`JavaSeeds`]).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cards::{BUNDLED_CARDLIST, Card, CardTable};
use super::java_random::JavaRandom;
use crate::map::{Level, MapError};

/// Where the draft's and the decks' randomness comes from.
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeckRandomness {
    /// The game seed's `GameRng` stream: our own games.
    ChaCha,
    /// The reference referee's `java.util.Random` streams, derived from the
    /// game seed as the referee derives them (see [`JavaSeeds`]).
    Java,
}

/// Everything a LOCM game is built from, unvalidated: what the command line
/// or a replay header says. [`Config::try_from`] validates it.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocmSetup {
    /// The card list, ids 1..=n in order.
    pub cards: Vec<Card>,
    pub randomness: DeckRandomness,
}

/// A validated LOCM configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LocmSetup", into = "LocmSetup")]
pub struct Config {
    table: Arc<CardTable>,
    randomness: DeckRandomness,
}

impl TryFrom<LocmSetup> for Config {
    type Error = MapError;

    fn try_from(setup: LocmSetup) -> Result<Config, MapError> {
        Ok(Config { table: Arc::new(CardTable::new(setup.cards)?), randomness: setup.randomness })
    }
}

impl From<Config> for LocmSetup {
    fn from(config: Config) -> LocmSetup {
        LocmSetup { cards: config.table.cards().to_vec(), randomness: config.randomness }
    }
}

impl Config {
    /// A configuration from an already validated card table.
    pub fn new(table: CardTable, randomness: DeckRandomness) -> Config {
        Config { table: Arc::new(table), randomness }
    }

    /// The bundled 160-card list with our own randomness.
    pub fn bundled() -> Config {
        let table = CardTable::parse(BUNDLED_CARDLIST).expect("the bundled card list is valid (tested)");
        Config::new(table, DeckRandomness::ChaCha)
    }

    /// The card table.
    pub fn table(&self) -> &Arc<CardTable> {
        &self.table
    }

    /// Where the draft's and the decks' randomness comes from.
    pub(crate) fn randomness(&self) -> DeckRandomness {
        self.randomness
    }

    /// The same configuration with another seeding mode.
    pub fn with_randomness(mut self, randomness: DeckRandomness) -> Config {
        self.randomness = randomness;
        self
    }
}

/// The reference referee's three seeds (`RefereeParams`): one for the
/// draft's choices and one per player for the deck shuffle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JavaSeeds {
    pub draft: i64,
    pub shuffle: [i64; 2],
}

impl JavaSeeds {
    /// As the referee derives them from its `seed` parameter:
    /// `r = new Random(seed)`, then three `r.nextLong()`.
    pub(crate) fn from_game_seed(seed: u64) -> JavaSeeds {
        let mut random = JavaRandom::new(seed as i64);
        let draft = random.next_long();
        let shuffle0 = random.next_long();
        let shuffle1 = random.next_long();
        JavaSeeds { draft, shuffle: [shuffle0, shuffle1] }
    }
}
