//! LOCM as plain data (`replay export --states`) and as a picture for the
//! viewers: both hands, both players' two lanes, health, mana, deck and
//! runes; in the draft, the three cards on offer and each player's mana
//! curve so far.

use serde::Serialize;

use super::battle::{Creature, Player};
use super::cards::{CardKind, CardTable};
use super::{LocmGame, PICKS};
use crate::game::picture::{Colour, Picture, Tile};

/// What changes during a game of LOCM: the draft, then the battle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "phase", rename_all = "lowercase")]
pub enum LocmSnapshot {
    Draft {
        /// 0-based pick number.
        pick: u8,
        player_to_move: u8,
        /// The card ids on offer.
        choices: [u8; 3],
        /// Each player's picks so far, by card id.
        picks: [Vec<u8>; 2],
    },
    Battle {
        /// The referee's global turn counter (0 is player 0's first turn).
        turn: i16,
        player_to_move: u8,
        winner: Option<u8>,
        players: [PlayerSnapshot; 2],
    },
}

/// One player's side of the battle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerSnapshot {
    pub(crate) health: i16,
    pub(crate) mana: i8,
    pub(crate) max_mana: i8,
    pub(crate) deck: u8,
    pub(crate) runes: u8,
    pub(crate) next_turn_draw: u8,
    /// `[instance, card id]` in the order drawn.
    pub(crate) hand: Vec<[u8; 2]>,
    pub(crate) board: Vec<CreatureSnapshot>,
}

/// A creature on the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct CreatureSnapshot {
    pub(crate) instance: u8,
    pub(crate) card: u8,
    pub(crate) lane: u8,
    pub(crate) attack: i16,
    pub(crate) defense: i16,
    /// The referee's `BCDGLW` mask, `-` where a keyword is absent.
    pub(crate) keywords: String,
    pub(crate) can_attack: bool,
    pub(crate) has_attacked: bool,
}

/// Columns of the picture: a hand of 8; on the board rows, the player's
/// numbers, lane 0's three slots, a divider and lane 1's three slots.
const COLUMNS: u16 = 8;
/// Player 1's hand, player 1's board, player 0's board, player 0's hand.
const ROWS: u16 = 4;

impl LocmGame {
    pub(super) fn snapshot_state(&self) -> LocmSnapshot {
        match &self.battle {
            None => LocmSnapshot::Draft {
                pick: self.n_picks / 2,
                player_to_move: self.player_to_move(),
                choices: self.triples[usize::from(self.n_picks / 2).min(PICKS - 1)],
                picks: [self.picks(0).to_vec(), self.picks(1).to_vec()],
            },
            Some(battle) => LocmSnapshot::Battle {
                turn: battle.turn,
                player_to_move: battle.current,
                winner: battle.winner,
                players: [player_snapshot(&battle.players[0]), player_snapshot(&battle.players[1])],
            },
        }
    }

    pub(super) fn draw_board(&self) -> Picture {
        // Wide enough for NAME_CHARS characters and a gap between two
        // tiles' names; tall enough for a name on two lines and two more.
        let mut picture = Picture::new(COLUMNS, ROWS, 128, 68, Tile::plain(Colour::Paper));
        (picture.label_lines, picture.label_chars) = (4, NAME_CHARS as u8);
        let table = &self.table;
        match &self.battle {
            None => {
                let pick = usize::from(self.n_picks / 2).min(PICKS - 1);
                let player = self.player_to_move();
                for (column, &card) in self.triples[pick].iter().enumerate() {
                    *picture.tile_mut(column as u16, 0) = card_tile(table, card, &format!("pick {column}"));
                }
                let info = format!("P{player} picks\n{} of {PICKS}", pick + 1);
                *picture.tile_mut(4, 0) = Tile::plain(Colour::Yellow).with_label(info, Colour::Ink);
                for player in 0..2u8 {
                    let row = 2 - u16::from(player);
                    let mut curve = [0u32; COLUMNS as usize];
                    for &card in self.picks(player) {
                        let cost = table.card(card).cost.clamp(0, COLUMNS as i8 - 1) as usize;
                        curve[cost] += 1;
                    }
                    for (cost, &count) in curve.iter().enumerate() {
                        let plus = if cost + 1 == COLUMNS as usize { "+" } else { "" };
                        let label = format!("P{player} cost {cost}{plus}\n{count} cards");
                        *picture.tile_mut(cost as u16, row) =
                            Tile::plain(Colour::LightGrey).with_label(label, Colour::Ink);
                    }
                }
                picture.caption = format!("draft: pick {} of {PICKS}, player {player} to choose", pick + 1);
            }
            Some(battle) => {
                for (index, player) in battle.players.iter().enumerate() {
                    let (hand_row, board_row) = if index == 0 { (3, 2) } else { (0, 1) };
                    for (slot, card) in player.hand().iter().enumerate() {
                        *picture.tile_mut(slot as u16, hand_row) =
                            card_tile(table, card.card, &format!("#{}", card.instance));
                    }
                    for column in 1..COLUMNS {
                        *picture.tile_mut(column, board_row) = Tile::plain(Colour::LightGrey);
                    }
                    *picture.tile_mut(4, board_row) = Tile::plain(Colour::Grey);
                    for lane in 0..2u8 {
                        let creatures = player.board().iter().filter(|creature| creature.lane == lane);
                        for (slot, creature) in creatures.enumerate().take(3) {
                            let column = 1 + 4 * u16::from(lane) + slot as u16;
                            *picture.tile_mut(column, board_row) = creature_tile(table, creature);
                        }
                    }
                    let ground = match battle.winner {
                        Some(winner) if usize::from(winner) == index => Colour::LightGreen,
                        Some(_) => Colour::Pink,
                        None if usize::from(battle.current) == index => Colour::Yellow,
                        None => Colour::LightGrey,
                    };
                    let info = format!(
                        "P{index} {} hp\nmana {}/{}\ndeck {} r{}",
                        player.health,
                        player.mana,
                        player.max_mana,
                        player.deck_size(),
                        player.runes
                    );
                    *picture.tile_mut(0, board_row) = Tile::plain(ground).with_label(info, Colour::Ink);
                }
                let [zero, one] = &battle.players;
                let state = match battle.winner {
                    Some(winner) => format!("player {winner} has won"),
                    None => format!("player {} to move", battle.current),
                };
                picture.caption = format!("turn {}, {state}, health {} / {}", battle.turn, zero.health, one.health);
            }
        }
        picture
    }
}

fn player_snapshot(player: &Player) -> PlayerSnapshot {
    PlayerSnapshot {
        health: player.health,
        mana: player.mana,
        max_mana: player.max_mana,
        deck: player.deck_size() as u8,
        runes: player.runes,
        next_turn_draw: player.next_turn_draw,
        hand: player.hand().iter().map(|card| [card.instance, card.card]).collect(),
        board: player
            .board()
            .iter()
            .map(|creature| CreatureSnapshot {
                instance: creature.instance,
                card: creature.card,
                lane: creature.lane,
                attack: creature.attack,
                defense: creature.defense,
                keywords: creature.keywords.to_string(),
                can_attack: creature.can_attack,
                has_attacked: creature.has_attacked,
            })
            .collect(),
    }
}

/// The widest line of a tile's label: every card name of the 1.2 list
/// breaks at its spaces into two lines of at most this many characters.
const NAME_CHARS: usize = 13;

/// A card's name on two lines (the second empty if it fits on one), broken
/// at spaces; a word longer than a line, or a third line, is cut and ends
/// in `.` (no card of the 1.2 list needs that).
fn name_lines(name: &str) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for word in name.split_whitespace() {
        let line = lines.last_mut().expect("one line at least");
        if line.is_empty() {
            line.push_str(word);
        } else if line.chars().count() + 1 + word.chars().count() <= NAME_CHARS {
            line.push(' ');
            line.push_str(word);
        } else {
            lines.push(word.to_string());
        }
    }
    let cut = lines.len() > 2;
    lines.truncate(2);
    lines.resize(2, String::new());
    for (number, line) in lines.iter_mut().enumerate() {
        if line.chars().count() > NAME_CHARS || (cut && number == 1) {
            *line = line.chars().take(NAME_CHARS - 1).collect::<String>() + ".";
        }
    }
    lines.join("\n")
}

/// The keyword letters a card or creature has, without the dashes.
fn keyword_letters(keywords: super::cards::Keywords) -> String {
    keywords.to_string().chars().filter(|&letter| letter != '-').collect()
}

/// A card in hand or on offer: name, cost and stats, keywords and `tag`.
fn card_tile(table: &CardTable, card_id: u8, tag: &str) -> Tile {
    if card_id == 0 {
        return Tile::plain(Colour::Grey).with_label("?", Colour::Ink);
    }
    let card = table.card(card_id);
    let ground = match card.kind {
        CardKind::Creature => Colour::Sand,
        CardKind::GreenItem => Colour::LightGreen,
        CardKind::RedItem => Colour::Pink,
        CardKind::BlueItem => Colour::LightBlue,
    };
    let label = format!(
        "{}\n{}: {}/{}\n{} {tag}",
        name_lines(&card.name),
        card.cost,
        card.attack,
        card.defense,
        keyword_letters(card.keywords)
    );
    Tile::plain(ground).with_label(label.replace("\n ", "\n"), Colour::Ink)
}

/// A creature on the board: name, current attack/defence, keywords, and a
/// star when it may still attack this turn.
fn creature_tile(table: &CardTable, creature: &Creature) -> Tile {
    let ready = if creature.can_attack && !creature.has_attacked { " *" } else { "" };
    let label = format!(
        "{}\n{}/{}\n{} #{}{ready}",
        name_lines(&table.card(creature.card).name),
        creature.attack,
        creature.defense,
        keyword_letters(creature.keywords),
        creature.instance
    );
    Tile::plain(Colour::Sand).with_label(label.replace("\n ", "\n"), Colour::Ink)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_name_shows_whole_within_its_tile() {
        use crate::map::Level;
        let table = CardTable::parse(super::super::cards::BUNDLED_CARDLIST).expect("the bundled list parses");
        for id in 1..=table.len() as u8 {
            let name = &table.card(id).name;
            let tile = card_tile(&table, id, "pick 0");
            let lines: Vec<&str> = tile.label.split('\n').collect();
            assert!(lines.len() <= 4, "{name}: {lines:?}");
            assert!(lines.iter().all(|line| line.chars().count() <= NAME_CHARS), "{name}: {lines:?}");
            assert_eq!(lines[..2].join(" ").trim(), name.as_str(), "the whole name, on two lines");
        }
        assert_eq!(name_lines("Flying Corpse Guzzler"), "Flying Corpse\nGuzzler");
        assert_eq!(name_lines("Scuttler"), "Scuttler\n");
        assert_eq!(name_lines("A Bb Cc Dd Ee Ff Gg Hh Ii Jj"), "A Bb Cc Dd Ee\nFf Gg Hh Ii.");
    }
}
