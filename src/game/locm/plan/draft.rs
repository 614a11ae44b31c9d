//! The draft bots: [`DraftBot`], what each picks from a triple, and the
//! simple ones (`random`, `max-attack`) themselves. The table-driven
//! baselines look their numbers up in [`super::baselines`], the genome
//! drafters their priorities in [`super::genome`]. A draft bot sees only a
//! [`DraftView`].
//! Scores are floats: what a bot picks is recorded as an action, so
//! replays never depend on how it chose.

use std::sync::Arc;

use super::baselines::Baselines;
use super::genome::Genome;
use crate::game::locm::cards::{CardKind, CardTable};
use crate::game::locm::view::DraftView;
use crate::rng::GameRng;

/// A draft strategy. The registry ([`super::DraftName`]) names the
/// built-in ones.
#[derive(Clone, Debug, PartialEq)]
pub enum DraftBot {
    /// Uniform among the three.
    Random,
    /// The creature with the highest attack (the first on ties); the first
    /// card when none is a creature.
    MaxAttack,
    /// ClosetAI's score table (as the research code indexed it).
    ClosetAi,
    /// Icebox's linear formula.
    Icebox,
    /// Coac's pick order, switching to its creature lists while fewer than
    /// 40% of the cards drafted so far are creatures.
    Coac,
    /// Chad's weights for its seat.
    Chad,
    /// A per-card priority vector.
    Genome(Arc<Genome>),
    /// The bundled evolved genome ([`Genome::bundled_evolved`]).
    Evolved,
}

impl DraftBot {
    /// The bot's name on the command line and in replay headers.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            DraftBot::Random => "random",
            DraftBot::MaxAttack => "max-attack",
            DraftBot::ClosetAi => "closetai",
            DraftBot::Icebox => "icebox",
            DraftBot::Coac => "coac",
            DraftBot::Chad => "chad",
            DraftBot::Genome(_) => "genome",
            DraftBot::Evolved => "evolved",
        }
    }

    /// The index (0..=2) of the card to take.
    pub(crate) fn choose(&self, view: &DraftView, table: &CardTable, rng: &mut GameRng) -> u8 {
        let baselines = Baselines::bundled();
        let seat = usize::from(view.player);
        match self {
            DraftBot::Random => rng.below(3) as u8,
            DraftBot::MaxAttack => max_attack(view, table),
            DraftBot::ClosetAi => highest(view, |card| baselines.scores(card).closetai),
            DraftBot::Icebox => highest(view, |card| baselines.scores(card).icebox),
            DraftBot::Coac => {
                let picked = view.picked();
                let creatures = picked.iter().filter(|&&card| table.card(card).kind == CardKind::Creature).count();
                let short_of_creatures = !picked.is_empty() && creatures * 10 < picked.len() * 4;
                let list = seat + if short_of_creatures { 2 } else { 0 };
                highest(view, |card| -f64::from(baselines.scores(card).coac_rank[list]))
            }
            DraftBot::Chad => highest(view, |card| f64::from(baselines.scores(card).chad_weight[seat])),
            DraftBot::Genome(genome) => highest(view, |card| genome.priority(card)),
            DraftBot::Evolved => {
                let genome = Genome::bundled_evolved();
                highest(view, |card| genome.priority(card))
            }
        }
    }
}

/// The creature with the highest attack, the first on ties; the first card
/// when none is a creature.
fn max_attack(view: &DraftView, table: &CardTable) -> u8 {
    let mut best: Option<(u8, i8)> = None;
    for (index, &card) in view.choices.iter().enumerate() {
        let card = table.card(card);
        if card.kind == CardKind::Creature && best.is_none_or(|(_, attack)| card.attack > attack) {
            best = Some((index as u8, card.attack));
        }
    }
    best.map_or(0, |(index, _)| index)
}

/// The index of the choice with the highest score, the first on ties.
fn highest(view: &DraftView, score: impl Fn(u8) -> f64) -> u8 {
    let mut best = 0;
    let mut best_score = score(view.choices[0]);
    for index in 1..3 {
        let value = score(view.choices[index]);
        if value > best_score {
            best = index;
            best_score = value;
        }
    }
    best as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::locm::cards::BUNDLED_CARDLIST;
    use crate::game::locm::plan::DraftName;
    use crate::map::Level;

    /// Player `player`'s view of a triple after `picked`.
    fn view(choices: [u8; 3], player: u8, picked: &[u8]) -> DraftView {
        let mut all = [0; 30];
        all[..picked.len()].copy_from_slice(picked);
        DraftView {
            player,
            pick: picked.len() as u8,
            choices,
            picked: all,
            n_picked: picked.len() as u8,
            opponent_picked: 0,
        }
    }

    #[test]
    fn bots_pick_by_their_tables() {
        let table = CardTable::parse(BUNDLED_CARDLIST).unwrap();
        let mut rng = GameRng::from_seed(1);
        // Card 1 is ClosetAI's -666; 2 scores 65, 3 scores 50.
        assert_eq!(DraftBot::ClosetAi.choose(&view([1, 2, 3], 0, &[]), &table, &mut rng), 1);
        // Max attack: 116 (8 attack) beats 60 (4) and 30 (4); items are skipped.
        assert_eq!(DraftBot::MaxAttack.choose(&view([60, 116, 30], 0, &[]), &table, &mut rng), 1);
        assert_eq!(DraftBot::MaxAttack.choose(&view([141, 153, 5], 0, &[]), &table, &mut rng), 2);
        // Chad's weights differ by seat: card 3 is +130 first, -42 second.
        assert_eq!(DraftBot::Chad.choose(&view([4, 3, 1], 0, &[]), &table, &mut rng), 1);
        assert_eq!(DraftBot::Chad.choose(&view([4, 3, 1], 1, &[]), &table, &mut rng), 2);
        let genome = Genome { priorities: (0..160).map(|index| -f64::from(index)).collect() };
        assert_eq!(DraftBot::Genome(Arc::new(genome)).choose(&view([9, 4, 7], 0, &[]), &table, &mut rng), 1);
    }

    #[test]
    fn coac_follows_its_seats_pick_order() {
        let table = CardTable::parse(BUNDLED_CARDLIST).unwrap();
        let mut rng = GameRng::from_seed(1);
        // Card 15 ranks 61 first and 59 second; card 11 ranks 59 and 60.
        assert_eq!(DraftBot::Coac.choose(&view([15, 11, 1], 0, &[]), &table, &mut rng), 1);
        assert_eq!(DraftBot::Coac.choose(&view([15, 11, 1], 1, &[]), &table, &mut rng), 0);
        // Item-heavy picks switch to the creature lists (identical in the
        // bundled table, so the choice stays).
        assert_eq!(DraftBot::Coac.choose(&view([15, 11, 1], 0, &[141; 5]), &table, &mut rng), 1);
    }

    #[test]
    fn the_evolved_drafter_picks_by_the_bundled_genome() {
        let table = CardTable::parse(BUNDLED_CARDLIST).unwrap();
        let genome = Genome::bundled_evolved();
        assert_eq!(genome.priorities.len(), 160);
        let bot = DraftName::from_name("evolved").unwrap().bot();
        assert_eq!(bot.name(), "evolved");
        let mut rng = GameRng::from_seed(1);
        for choices in [[1, 2, 3], [160, 80, 40], [7, 99, 13]] {
            let best = (0..3).max_by(|&a, &b| {
                let priority = |index: usize| genome.priorities[usize::from(choices[index]) - 1];
                priority(a).total_cmp(&priority(b)).then(b.cmp(&a))
            });
            assert_eq!(Some(usize::from(bot.choose(&view(choices, 0, &[]), &table, &mut rng))), best);
        }
    }
}
