//! The card list: its text format (`id ; name ; type ; cost ; attack ;
//! defense ; keywords ; myHealthChange ; opponentHealthChange ; cardDraw ;
//! text`, as the reference referee reads it), the parsed cards, and the
//! compact per-card numbers the battle rules look up.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::map::{Level, MapError};

/// The four kinds of card, in the order of their wire codes (0..=3).
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CardKind {
    Creature,
    GreenItem,
    RedItem,
    BlueItem,
}

impl CardKind {
    /// The number the referee prints for this kind.
    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    fn parse(word: &str) -> Option<CardKind> {
        match word {
            "creature" => Some(CardKind::Creature),
            "itemGreen" => Some(CardKind::GreenItem),
            "itemRed" => Some(CardKind::RedItem),
            "itemBlue" => Some(CardKind::BlueItem),
            _ => None,
        }
    }

    #[cfg(test)]
    fn word(self) -> &'static str {
        match self {
            CardKind::Creature => "creature",
            CardKind::GreenItem => "itemGreen",
            CardKind::RedItem => "itemRed",
            CardKind::BlueItem => "itemBlue",
        }
    }
}

/// A set of the six keywords as bits, in the referee's `BCDGLW` order.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Keywords(pub u8);

impl Keywords {
    /// Excess damage on a kill reaches the opponent.
    pub(crate) const BREAKTHROUGH: u8 = 1;
    /// May attack the turn it is summoned.
    pub(crate) const CHARGE: u8 = 2;
    /// Attacking heals its owner by its attack.
    pub(crate) const DRAIN: u8 = 4;
    /// Enemy attackers in its lane must target it.
    pub(crate) const GUARD: u8 = 8;
    /// Any damage it deals to a creature kills it.
    pub(crate) const LETHAL: u8 = 16;
    /// Absorbs the next damage.
    pub(crate) const WARD: u8 = 32;
    const LETTERS: [u8; 6] = *b"BCDGLW";

    /// Whether `keyword` (one of the bit constants) is set.
    pub(crate) fn has(self, keyword: u8) -> bool {
        self.0 & keyword != 0
    }

    /// Parses the 6-character mask, `-` where a keyword is absent.
    pub(crate) fn parse(text: &str) -> Option<Keywords> {
        let bytes = text.as_bytes();
        if bytes.len() != 6 {
            return None;
        }
        let mut bits = 0;
        for (index, (&byte, &letter)) in bytes.iter().zip(Keywords::LETTERS.iter()).enumerate() {
            if byte == letter {
                bits |= 1 << index;
            } else if byte != b'-' {
                return None;
            }
        }
        Some(Keywords(bits))
    }
}

impl fmt::Display for Keywords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [b'-'; 6];
        for (index, letter) in Keywords::LETTERS.iter().enumerate() {
            if self.0 & (1 << index) != 0 {
                text[index] = *letter;
            }
        }
        f.write_str(std::str::from_utf8(&text).unwrap_or("??????"))
    }
}

/// One card as the list describes it. On red and blue items `attack` and
/// `defense` are modifiers (usually negative); a negative
/// `opponent_health` damages the opponent.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    pub id: u8,
    pub name: String,
    pub kind: CardKind,
    pub cost: i8,
    pub attack: i8,
    pub defense: i8,
    pub keywords: Keywords,
    pub my_health: i8,
    pub opponent_health: i8,
    pub draw: i8,
}

/// The numbers of a card the rules need, small and `Copy` for the hot path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CardStats {
    pub(crate) kind_code: u8,
    pub(crate) cost: i8,
    pub(crate) attack: i8,
    pub(crate) defense: i8,
    pub(crate) keywords: Keywords,
    pub(crate) my_health: i8,
    pub(crate) opponent_health: i8,
    pub(crate) draw: i8,
}

impl CardStats {
    /// Whether the card is a creature (not an item).
    pub(crate) fn is_creature(&self) -> bool {
        self.kind_code == CardKind::Creature as u8
    }
}

/// The most cards a list may hold: ids are one byte and 0 is "no card".
pub(crate) const MAX_CARDS: usize = 250;
/// The fewest: the draft draws a pool of 60 distinct cards.
pub(crate) const MIN_CARDS: usize = 60;

/// A validated card list: ids run 1..=n in order, every number is in the
/// range the rules' integer types can hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardTable {
    cards: Vec<Card>,
    /// Indexed by card id; entry 0 is unused.
    stats: Vec<CardStats>,
}

impl CardTable {
    /// Validates `cards` (as parsed, or as a replay header carries them).
    pub(crate) fn new(cards: Vec<Card>) -> Result<CardTable, MapError> {
        if !(MIN_CARDS..=MAX_CARDS).contains(&cards.len()) {
            return Err(MapError::whole(format!("{} cards; a card list needs {MIN_CARDS}..={MAX_CARDS}", cards.len())));
        }
        let mut stats = vec![CardStats::default(); cards.len() + 1];
        for (index, card) in cards.iter().enumerate() {
            let line = index + 1;
            if usize::from(card.id) != index + 1 {
                return Err(MapError::at(line, 0, format!("card id {} out of order: expected {}", card.id, index + 1)));
            }
            check_card(card).map_err(|message| MapError::at(line, 0, format!("card {}: {message}", card.id)))?;
            stats[index + 1] = CardStats {
                kind_code: card.kind.code(),
                cost: card.cost,
                attack: card.attack,
                defense: card.defense,
                keywords: card.keywords,
                my_health: card.my_health,
                opponent_health: card.opponent_health,
                draw: card.draw,
            };
        }
        Ok(CardTable { cards, stats })
    }

    /// The cards in id order.
    pub(crate) fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// Number of cards.
    pub fn len(&self) -> usize {
        self.cards.len()
    }
    /// Never true for a validated table.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// The card with `id`. Ids come from a validated draft: 1..=len.
    pub(crate) fn card(&self, id: u8) -> &Card {
        &self.cards[usize::from(id) - 1]
    }

    /// The rules' numbers for card `id` (1..=len).
    #[inline]
    pub(crate) fn stats(&self, id: u8) -> &CardStats {
        &self.stats[usize::from(id)]
    }

    /// The list in its text format (what [`Level::parse`] reads back).
    #[cfg(test)]
    pub(crate) fn to_text(&self) -> String {
        let mut out = String::new();
        for card in &self.cards {
            out.push_str(&format!(
                "{} ; {} ; {} ; {} ; {} ; {} ; {} ; {} ; {} ; {} ; \n",
                card.id,
                card.name,
                card.kind.word(),
                card.cost,
                card.attack,
                card.defense,
                card.keywords,
                card.my_health,
                card.opponent_health,
                card.draw
            ));
        }
        out
    }
}

/// The card-list text, a card per line (`//` starts a comment), validated
/// as [`CardTable::new`] validates; errors name the line and column.
impl Level for CardTable {
    fn parse(text: &str) -> Result<CardTable, MapError> {
        let mut cards = Vec::new();
        for (index, raw_line) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw_line.split("//").next().unwrap_or("");
            if line.trim().is_empty() {
                continue;
            }
            cards.push(parse_card_line(line, line_no)?);
        }
        let table = CardTable::new(cards);
        // Re-attach the text's own line numbers to a validation error.
        table.map_err(|error| {
            let line = error.line;
            if line == 0 {
                return error;
            }
            let text_line = text
                .lines()
                .enumerate()
                .filter(|(_, raw)| !raw.split("//").next().unwrap_or("").trim().is_empty())
                .nth(line - 1)
                .map_or(0, |(index, _)| index + 1);
            MapError::at(text_line, 0, error.message)
        })
    }
}

/// The ranges that keep every rule's arithmetic far from overflow.
fn check_card(card: &Card) -> Result<(), String> {
    if !(0..=12).contains(&card.cost) {
        return Err(format!("cost {} is not in 0..=12", card.cost));
    }
    if card.keywords.0 >= 64 {
        return Err("unknown keyword bits".to_string());
    }
    for (name, value) in [
        ("attack", card.attack),
        ("defense", card.defense),
        ("myHealthChange", card.my_health),
        ("opponentHealthChange", card.opponent_health),
    ] {
        if !(-99..=99).contains(&value) {
            return Err(format!("{name} {value} is not in -99..=99"));
        }
    }
    if !(0..=4).contains(&card.draw) {
        return Err(format!("cardDraw {} is not in 0..=4", card.draw));
    }
    if card.kind == CardKind::Creature && (card.attack < 0 || card.defense < 1) {
        return Err(format!("a creature needs attack >= 0 and defense >= 1, not {}/{}", card.attack, card.defense));
    }
    Ok(())
}

fn parse_card_line(line: &str, line_no: usize) -> Result<Card, MapError> {
    let fields: Vec<&str> = line.split(';').map(str::trim).collect();
    if fields.len() < 10 {
        return Err(MapError::at(
            line_no,
            0,
            format!(
                "{} fields; expected id ; name ; type ; cost ; attack ; defense ; keywords ; myHealthChange ; opponentHealthChange ; cardDraw ; text",
                fields.len()
            ),
        ));
    }
    let column_of = |field: usize| -> usize {
        // 1-based column where field number `field` starts.
        let mut column = 1;
        for (index, piece) in line.split(';').enumerate() {
            if index == field {
                return column + (piece.len() - piece.trim_start().len());
            }
            column += piece.len() + 1;
        }
        0
    };
    let number = |field: usize, what: &str| -> Result<i8, MapError> {
        fields[field].parse::<i8>().map_err(|_| {
            MapError::at(
                line_no,
                column_of(field),
                format!("{what}: expected a small integer, got {:?}", fields[field]),
            )
        })
    };
    let id = fields[0].parse::<u8>().ok().filter(|&id| id >= 1 && usize::from(id) <= MAX_CARDS).ok_or_else(|| {
        MapError::at(line_no, column_of(0), format!("id: expected 1..={MAX_CARDS}, got {:?}", fields[0]))
    })?;
    let kind = CardKind::parse(fields[2]).ok_or_else(|| {
        MapError::at(
            line_no,
            column_of(2),
            format!("type: expected creature, itemGreen, itemRed or itemBlue, got {:?}", fields[2]),
        )
    })?;
    let keywords = Keywords::parse(fields[6]).ok_or_else(|| {
        MapError::at(
            line_no,
            column_of(6),
            format!("keywords: expected 6 characters of BCDGLW or '-', got {:?}", fields[6]),
        )
    })?;
    Ok(Card {
        id,
        name: fields[1].to_string(),
        kind,
        cost: number(3, "cost")?,
        attack: number(4, "attack")?,
        defense: number(5, "defense")?,
        keywords,
        my_health: number(7, "myHealthChange")?,
        opponent_health: number(8, "opponentHealthChange")?,
        draw: number(9, "cardDraw")?,
    })
}

/// The bundled LOCM 1.2 card list (`maps/locm/cardlist.txt`).
pub const BUNDLED_CARDLIST: &str = include_str!("../../../maps/locm/cardlist.txt");

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> CardTable {
        CardTable::parse(BUNDLED_CARDLIST).expect("bundled list parses")
    }

    #[test]
    fn bundled_list_has_the_160_cards_of_1_2() {
        let table = bundled();
        assert_eq!(table.len(), 160);
        let count = |kind| table.cards().iter().filter(|card| card.kind == kind).count();
        assert_eq!(
            [
                count(CardKind::Creature),
                count(CardKind::GreenItem),
                count(CardKind::RedItem),
                count(CardKind::BlueItem)
            ],
            [116, 24, 12, 8]
        );
        let scuttler = table.card(2);
        assert_eq!((scuttler.name.as_str(), scuttler.opponent_health), ("Scuttler", -1));
        assert_eq!(table.card(151).defense, -99);
        assert_eq!(table.card(116).keywords.to_string(), "BCDGLW");
        assert_eq!(table.stats(91).opponent_health, 1);
    }

    #[test]
    fn text_round_trips() {
        let table = bundled();
        assert_eq!(CardTable::parse(&table.to_text()).unwrap(), table);
    }

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, needle: &str) {
        let error = CardTable::parse(text).expect_err("should be rejected");
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(needle), "{error}");
    }

    #[test]
    fn errors_name_the_line_column_and_expectation() {
        let mut lines: Vec<String> = BUNDLED_CARDLIST.lines().map(str::to_string).collect();
        lines[2] = "3 ; Beavrat ; monster ; 1 ; 2 ; 2 ; ------ ; 0 ; 0 ; 0 ;".to_string();
        check_error(&lines.join("\n"), 3, 15, "type: expected creature");
        let mut lines: Vec<String> = BUNDLED_CARDLIST.lines().map(str::to_string).collect();
        lines[4] = "5 ; Grime ; creature ; x ; 4 ; 1 ; ------ ; 0 ; 0 ; 0 ;".to_string();
        check_error(&lines.join("\n"), 5, 24, "cost: expected a small integer");
        let mut lines: Vec<String> = BUNDLED_CARDLIST.lines().map(str::to_string).collect();
        lines[6] = "7 ; Odd ; creature ; 1 ; 1 ; 1 ; --X--- ; 0 ; 0 ; 0 ;".to_string();
        check_error(&lines.join("\n"), 7, 34, "keywords");
        let mut lines: Vec<String> = BUNDLED_CARDLIST.lines().map(str::to_string).collect();
        lines[9] = "10 ; Broke ; creature ; 1 ; 1 ; 0 ; ------ ; 0 ; 0 ; 0 ;".to_string();
        check_error(&lines.join("\n"), 10, 0, "defense >= 1");
        let mut lines: Vec<String> = BUNDLED_CARDLIST.lines().map(str::to_string).collect();
        lines[11] = "12 ; Short ; creature ; 1".to_string();
        check_error(&lines.join("\n"), 12, 0, "4 fields");
        check_error("1 ; a ; creature ; 1 ; 1 ; 1 ; ------ ; 0 ; 0 ; 0 ;", 0, 0, "needs 60");
        let mut lines: Vec<String> = BUNDLED_CARDLIST.lines().map(str::to_string).collect();
        lines.swap(20, 21);
        check_error(&lines.join("\n"), 21, 0, "out of order");
    }
}
