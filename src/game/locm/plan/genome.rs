//! The genome of the genome drafters: a per-card priority vector (the
//! drafter picks the offered card with the highest, see
//! [`super::draft`]). `genome:FILE` reads one (its text format is a
//! [`Level`]); `evolved` is the bundled one, `maps/locm/evolved-draft.txt`,
//! made by `tickbot evolve draft`.

use std::sync::OnceLock;

use crate::map::{Level, MapError};

/// The bundled evolved drafter's genome (its first lines say how it was made).
pub(crate) const BUNDLED_EVOLVED: &str = include_str!("../../../../maps/locm/evolved-draft.txt");

/// Cards the bundled evolved genome has a priority for (the LOCM 1.2 list).
const EVOLVED_CARDS: usize = 160;

/// A per-card priority vector, the genome of an evolved drafter: pick the
/// card of the triple with the highest priority.
#[derive(Clone, Debug, PartialEq)]
pub struct Genome {
    /// Indexed by card id - 1.
    pub(crate) priorities: Vec<f64>,
}

/// Numbers separated by whitespace or commas, one per card in id order;
/// `#` starts a comment. Errors name the line and column. The text does not
/// say which card list it is for: [`Genome::check_cards`] checks that it
/// fits one.
impl Level for Genome {
    fn parse(text: &str) -> Result<Genome, MapError> {
        let mut priorities = Vec::new();
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
        Ok(Genome { priorities })
    }
}

impl Genome {
    /// The bundled evolved genome, parsed once.
    pub(crate) fn bundled_evolved() -> &'static Genome {
        static BUNDLED: OnceLock<Genome> = OnceLock::new();
        BUNDLED.get_or_init(|| {
            let genome = Genome::parse(BUNDLED_EVOLVED).expect("the bundled genome parses (tested)");
            genome.check_cards(EVOLVED_CARDS).expect("the bundled genome has a priority per card (tested)");
            genome
        })
    }

    /// Whether the genome has one priority per card of an `n_cards` list.
    pub fn check_cards(&self, n_cards: usize) -> Result<(), MapError> {
        if self.priorities.len() != n_cards {
            let message = format!("{} priorities; expected one per card, {n_cards}", self.priorities.len());
            return Err(MapError::whole(message));
        }
        Ok(())
    }

    /// Card `card`'s priority; a card the genome does not cover is never
    /// preferred.
    pub(crate) fn priority(&self, card: u8) -> f64 {
        self.priorities.get(usize::from(card) - 1).copied().unwrap_or(f64::NEG_INFINITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genome_errors_name_line_and_column() {
        let error = Genome::parse("1 2\n3 x 5").unwrap_err();
        assert_eq!((error.line, error.column), (2, 3), "{error}");
        let error = Genome::parse("1 2 3").unwrap().check_cards(5).unwrap_err();
        assert!(error.message.contains("expected one per card, 5"), "{error}");
        let genome = Genome::parse("# comment\n1, 2\n3 4 5 # tail").unwrap();
        assert_eq!(genome.check_cards(5), Ok(()));
        assert_eq!(genome.priorities, [1.0, 2.0, 3.0, 4.0, 5.0]);
    }
}
