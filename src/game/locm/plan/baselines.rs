//! The published draft baselines' per-card numbers: ClosetAI's scores,
//! Icebox's formula, Coac's pick orders and Chad's weights, one line per
//! card in `maps/locm/draft_baselines.csv` (see `maps/locm/SOURCE.md`),
//! parsed as a [`Level`]. How each bot uses them is in [`super::draft`].

use std::sync::OnceLock;

use crate::map::{Level, MapError};

/// The bundled table of baseline scores.
pub(crate) const BUNDLED_BASELINES: &str = include_str!("../../../../maps/locm/draft_baselines.csv");

/// Every baseline's number for one card.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BaselineScores {
    pub(crate) closetai: f64,
    pub(crate) icebox: f64,
    /// Coac's pick-order positions (0 = best): first player, second player,
    /// and the lists used when too few creatures have been drafted.
    pub(crate) coac_rank: [u32; 4],
    /// Chad's weights playing first and second.
    pub(crate) chad_weight: [i32; 2],
}

/// The baseline tables, indexed by card id (entry 0 unused).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Baselines {
    scores: Vec<BaselineScores>,
}

/// `draft_baselines.csv`: a header line, then per card its id (in order)
/// and 17 more comma-separated fields. Errors name the line and column.
impl Level for Baselines {
    fn parse(text: &str) -> Result<Baselines, MapError> {
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
}

impl Baselines {
    /// The bundled tables, parsed once.
    pub(crate) fn bundled() -> &'static Baselines {
        static BUNDLED: OnceLock<Baselines> = OnceLock::new();
        BUNDLED.get_or_init(|| Baselines::parse(BUNDLED_BASELINES).expect("the bundled baselines parse (tested)"))
    }

    /// The scores of card `id`; zeros for a card the table does not cover.
    pub(crate) fn scores(&self, id: u8) -> BaselineScores {
        self.scores.get(usize::from(id)).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_baselines_cover_every_card() {
        let baselines = Baselines::bundled();
        assert_eq!(baselines.scores.len() - 1, 160);
        assert_eq!(baselines.scores(1).closetai, -666.0);
        assert_eq!(baselines.scores(151).closetai, -100.0);
        assert_eq!(baselines.scores(3).chad_weight, [130, -42]);
    }
}
