//! The draft bots: `random`, `max-attack`, the published baselines
//! `closetai`, `icebox`, `coac` and `chad` (their per-card tables are in
//! `maps/locm/draft_baselines.csv`, see `maps/locm/SOURCE.md`), `genome`
//! (a per-card priority vector from a file) and `evolved` (the bundled
//! genome `maps/locm/evolved-draft.txt`, made by `tickbot evolve draft`). A draft bot sees only a
//! [`DraftView`]. Scores are floats: what a bot picks is recorded as an
//! action, so replays never depend on how it chose.

use std::sync::{Arc, OnceLock};

use super::cards::{CardKind, CardTable};
use super::view::DraftView;
use crate::map::MapError;
use crate::rng::GameRng;

/// The bundled table of baseline scores.
pub(crate) const BUNDLED_BASELINES: &str = include_str!("../../../maps/locm/draft_baselines.csv");

/// The bundled evolved drafter's genome (its first lines say how it was made).
pub(crate) const BUNDLED_EVOLVED: &str = include_str!("../../../maps/locm/evolved-draft.txt");

/// Cards the bundled evolved genome has a priority for (the LOCM 1.2 list).
const EVOLVED_CARDS: usize = 160;

/// Every baseline's number for one card.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BaselineScores {
    pub closetai: f64,
    pub icebox: f64,
    /// Coac's pick-order positions (0 = best): first player, second player,
    /// and the lists used when too few creatures have been drafted.
    pub coac_rank: [u32; 4],
    /// Chad's weights playing first and second.
    pub chad_weight: [i32; 2],
}

/// The baseline tables, indexed by card id (entry 0 unused).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Baselines {
    scores: Vec<BaselineScores>,
}

impl Baselines {
    /// Parses `draft_baselines.csv`; errors name the line and column.
    pub fn parse(text: &str) -> Result<Baselines, MapError> {
        let mut scores = vec![BaselineScores::default()];
        for (index, line) in text.lines().enumerate().skip(1) {
            let line_no = index + 1;
            if line.trim().is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != 18 {
                return Err(MapError::at(line_no, 0, format!("{} fields; expected 18 (see the header)", fields.len())));
            }
            let column = |field: usize| fields[..field].iter().map(|f| f.len() + 1).sum::<usize>() + 1;
            let bad = |field: usize, what: &str| {
                MapError::at(line_no, column(field), format!("expected {what}, got {:?}", fields[field]))
            };
            let id: usize = fields[0].parse().map_err(|_| bad(0, "a card id"))?;
            if id != scores.len() {
                return Err(MapError::at(line_no, 1, format!("card id {id} out of order: expected {}", scores.len())));
            }
            let float = |field: usize| fields[field].parse::<f64>().map_err(|_| bad(field, "a number"));
            let rank = |field: usize| fields[field].parse::<u32>().map_err(|_| bad(field, "a rank"));
            let weight = |field: usize| fields[field].parse::<i32>().map_err(|_| bad(field, "an integer"));
            scores.push(BaselineScores {
                closetai: float(10)?,
                icebox: float(11)?,
                coac_rank: [rank(12)?, rank(13)?, rank(14)?, rank(15)?],
                chad_weight: [weight(16)?, weight(17)?],
            });
        }
        Ok(Baselines { scores })
    }

    /// The bundled tables, parsed once.
    pub fn bundled() -> &'static Baselines {
        static BUNDLED: OnceLock<Baselines> = OnceLock::new();
        BUNDLED.get_or_init(|| Baselines::parse(BUNDLED_BASELINES).expect("the bundled baselines parse (tested)"))
    }

    /// The scores of card `id`; zeros for a card the table does not cover.
    pub(crate) fn scores(&self, id: u8) -> BaselineScores {
        self.scores.get(usize::from(id)).copied().unwrap_or_default()
    }
}

/// A per-card priority vector, the genome of an evolved drafter: pick the
/// card of the triple with the highest priority.
#[derive(Clone, Debug, PartialEq)]
pub struct Genome {
    /// Indexed by card id - 1.
    pub priorities: Vec<f64>,
}

impl Genome {
    /// The bundled evolved genome, parsed once.
    pub fn bundled_evolved() -> &'static Genome {
        static BUNDLED: OnceLock<Genome> = OnceLock::new();
        BUNDLED
            .get_or_init(|| Genome::parse(BUNDLED_EVOLVED, EVOLVED_CARDS).expect("the bundled genome parses (tested)"))
    }

    /// Parses numbers separated by whitespace or commas, one per card in id
    /// order; `#` starts a comment. Errors name the line and column.
    pub fn parse(text: &str, n_cards: usize) -> Result<Genome, MapError> {
        let mut priorities = Vec::with_capacity(n_cards);
        for (index, raw_line) in text.lines().enumerate() {
            let line = raw_line.split('#').next().unwrap_or("");
            let mut column = 1;
            for piece in line.split([' ', '\t', ',', '\r']) {
                if !piece.is_empty() {
                    let value: f64 =
                        piece.parse().ok().filter(|value: &f64| value.is_finite()).ok_or_else(|| {
                            MapError::at(index + 1, column, format!("expected a number, got {piece:?}"))
                        })?;
                    priorities.push(value);
                }
                column += piece.len() + 1;
            }
        }
        if priorities.len() != n_cards {
            return Err(MapError::whole(format!("{} priorities; expected one per card, {n_cards}", priorities.len())));
        }
        Ok(Genome { priorities })
    }
}

/// A draft strategy.
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
    /// The bot's name on the command line.
    pub fn name(&self) -> &'static str {
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

    /// The bot of a built-in name (`genome` needs a file: see [`Genome`]).
    pub fn from_name(name: &str) -> Option<DraftBot> {
        Some(match name {
            "random" => DraftBot::Random,
            "max-attack" => DraftBot::MaxAttack,
            "closetai" => DraftBot::ClosetAi,
            "icebox" => DraftBot::Icebox,
            "coac" => DraftBot::Coac,
            "chad" => DraftBot::Chad,
            "evolved" => DraftBot::Evolved,
            _ => return None,
        })
    }

    /// The index (0..=2) of the card to take.
    pub(crate) fn choose(&self, view: &DraftView, table: &CardTable, rng: &mut GameRng) -> u8 {
        let baselines = Baselines::bundled();
        let seat = usize::from(view.player);
        match self {
            DraftBot::Random => rng.below(3) as u8,
            DraftBot::MaxAttack => {
                let mut best: Option<(u8, i8)> = None;
                for (index, &card) in view.choices.iter().enumerate() {
                    let card = table.card(card);
                    if card.kind == CardKind::Creature && best.is_none_or(|(_, attack)| card.attack > attack) {
                        best = Some((index as u8, card.attack));
                    }
                }
                best.map_or(0, |(index, _)| index)
            }
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
            DraftBot::Genome(genome) => genome.choose(view),
            DraftBot::Evolved => Genome::bundled_evolved().choose(view),
        }
    }
}

impl Genome {
    /// The offered card with the highest priority (the first on ties; a
    /// card the genome does not cover is never preferred).
    fn choose(&self, view: &DraftView) -> u8 {
        highest(view, |card| self.priorities.get(usize::from(card) - 1).copied().unwrap_or(f64::NEG_INFINITY))
    }
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
    fn bundled_baselines_cover_every_card() {
        let baselines = Baselines::bundled();
        assert_eq!(baselines.scores.len() - 1, 160);
        assert_eq!(baselines.scores(1).closetai, -666.0);
        assert_eq!(baselines.scores(151).closetai, -100.0);
        assert_eq!(baselines.scores(3).chad_weight, [130, -42]);
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
    fn the_evolved_drafter_picks_by_the_bundled_genome() {
        let table = CardTable::parse(BUNDLED_CARDLIST).unwrap();
        let genome = Genome::bundled_evolved();
        assert_eq!(genome.priorities.len(), 160);
        let bot = DraftBot::from_name("evolved").unwrap();
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
    fn genome_errors_name_line_and_column() {
        let error = Genome::parse("1 2\n3 x 5", 5).unwrap_err();
        assert_eq!((error.line, error.column), (2, 3), "{error}");
        let error = Genome::parse("1 2 3", 5).unwrap_err();
        assert!(error.message.contains("expected one per card, 5"), "{error}");
        assert_eq!(Genome::parse("# comment\n1, 2\n3 4 5 # tail", 5).unwrap().priorities, [1.0, 2.0, 3.0, 4.0, 5.0]);
    }
}
