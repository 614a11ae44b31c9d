//! The other side of the contest protocol: what a player reconstructs from
//! the referee's input ([`Observer`]), so that tickbot's own bots can play
//! for another referee. From one turn's lines and what it remembers of the
//! game so far (its seat, its picks, how many turns it has played) it
//! rebuilds the [`View`] the bots would have been given in process, equal
//! in everything they read: the hands, the boards with every creature's
//! stats, keywords and lane, health, mana, runes and deck sizes.

use super::battle::{BOARD_CAPACITY, Battle, Creature, DECK_SIZE, HAND_LIMIT, HandCard, Player};
use super::cards::{CardTable, Keywords};
use super::protocol::ParseError;
use super::view::{BattleView, DraftView, View};
use super::{MAX_ACTIONS_PER_TURN, PICKS};

/// What a player remembers between turns of one game.
#[derive(Clone, Debug, Default)]
pub struct Observer {
    /// Its seat, known from the draft's first turn.
    seat: u8,
    picked: [u8; PICKS],
    n_picked: u8,
    battle_turns: i16,
}

impl Observer {
    pub fn new() -> Observer {
        Observer::default()
    }

    /// The view one turn's input (its lines, without newlines) describes.
    pub fn observe(&mut self, lines: &[&str], table: &CardTable) -> Result<View, ParseError> {
        let numbers = |line: &str| -> Result<Vec<i32>, ParseError> {
            line.split_whitespace().map(|word| word.parse().map_err(|_| ParseError("a number was expected"))).collect()
        };
        let players = [numbers(lines.first().ok_or(ParseError("no input"))?)?, numbers(lines.get(1).unwrap_or(&""))?];
        if players.iter().any(|fields| fields.len() != 5) {
            return Err(ParseError("a player line has five numbers"));
        }
        let opponent_line = numbers(lines.get(2).unwrap_or(&""))?;
        let [opponent_hand, n_actions] = opponent_line[..] else {
            return Err(ParseError("the opponent line has two numbers"));
        };
        let cards_at = 3 + usize::try_from(n_actions).map_err(|_| ParseError("a negative action count"))?;
        let n_cards = numbers(lines.get(cards_at).unwrap_or(&""))?;
        let [n_cards] = n_cards[..] else { return Err(ParseError("the card count is one number")) };
        let card_lines = lines.get(cards_at + 1..).unwrap_or(&[]);
        if usize::try_from(n_cards).ok() != Some(card_lines.len()) {
            return Err(ParseError("the card count does not match the card lines"));
        }
        let mut cards = Vec::with_capacity(card_lines.len());
        for line in card_lines {
            cards.push(CardLine::parse(line)?);
        }
        // During the draft every card is offered, none dealt yet.
        if cards.len() == 3 && cards.iter().all(|card| card.instance == -1) {
            return self.draft(&players, &cards);
        }
        self.battle(&players, opponent_hand, &cards, table)
    }

    fn draft(&mut self, players: &[Vec<i32>; 2], cards: &[CardLine]) -> Result<View, ParseError> {
        let (mine, theirs) = (players[0][2], players[1][2]);
        if mine != i32::from(self.n_picked) {
            return Err(ParseError("the draft count is not this player's"));
        }
        // The referee asks player 0 first: player 1 sees one more pick.
        self.seat = u8::from(theirs == mine + 1);
        let card = |index: usize| u8::try_from(cards[index].card).map_err(|_| ParseError("a card id out of range"));
        let choices = [card(0)?, card(1)?, card(2)?];
        let view = DraftView {
            player: self.seat,
            pick: self.n_picked,
            choices,
            picked: self.picked,
            n_picked: self.n_picked,
            opponent_picked: theirs as u8,
        };
        Ok(View::Draft(view))
    }

    /// Records the pick this player made (the bot's answer).
    pub fn picked(&mut self, card: u8) {
        if usize::from(self.n_picked) < PICKS {
            self.picked[usize::from(self.n_picked)] = card;
            self.n_picked += 1;
        }
    }

    fn battle(
        &mut self,
        players: &[Vec<i32>; 2],
        opponent_hand: i32,
        cards: &[CardLine],
        table: &CardTable,
    ) -> Result<View, ParseError> {
        let mut sides = [player(&players[0])?, player(&players[1])?];
        sides[1].hand_len = u8::try_from(opponent_hand)
            .ok()
            .filter(|&len| usize::from(len) <= HAND_LIMIT)
            .ok_or(ParseError("the opponent's hand size is out of range"))?;
        for card in cards {
            let id = u8::try_from(card.card).ok().filter(|&id| usize::from(id) <= table.len() && id > 0);
            let id = id.ok_or(ParseError("a card id out of range"))?;
            let instance = u8::try_from(card.instance).map_err(|_| ParseError("an instance id out of range"))?;
            match card.location {
                0 => {
                    let me = &mut sides[0];
                    if usize::from(me.hand_len) == HAND_LIMIT {
                        return Err(ParseError("more cards in hand than a hand holds"));
                    }
                    me.hand[usize::from(me.hand_len)] = HandCard { instance, card: id };
                    me.hand_len += 1;
                }
                1 | -1 => {
                    let side = &mut sides[usize::from(card.location == -1)];
                    if usize::from(side.board_len) == BOARD_CAPACITY {
                        return Err(ParseError("more creatures than a board holds"));
                    }
                    let stats = table.stats(id);
                    let shown = (card.my_health, card.opponent_health, card.draw);
                    let full = (i32::from(stats.my_health), i32::from(stats.opponent_health), i32::from(stats.draw));
                    side.board[usize::from(side.board_len)] = Creature {
                        instance,
                        card: id,
                        lane: u8::try_from(card.lane)
                            .ok()
                            .filter(|&lane| lane < 2)
                            .ok_or(ParseError("a lane is 0 or 1"))?,
                        attack: card.attack,
                        defense: card.defense,
                        keywords: card.keywords,
                        // A turn starts with every creature of the player to
                        // move ready and the other's not.
                        can_attack: card.location == 1,
                        has_attacked: false,
                        effects_hidden: shown != full,
                    };
                    side.board_len += 1;
                }
                _ => return Err(ParseError("a card's location is -1, 0 or 1")),
            }
        }
        let current = self.seat;
        let mut players = [sides[1], sides[1]];
        players[usize::from(current)] = sides[0];
        let battle = Battle { players, current, turn: 2 * self.battle_turns + i16::from(current), winner: None };
        self.battle_turns += 1;
        let view =
            BattleView { battle, opponent_actions: [Default::default(); MAX_ACTIONS_PER_TURN], n_opponent_actions: 0 };
        Ok(View::Battle(view))
    }
}

/// A player line as the battle's [`Player`] at the start of its turn.
fn player(fields: &[i32]) -> Result<Player, ParseError> {
    let [health, max_mana, deck, next_rune, draw] = fields[..] else { unreachable!("checked for five numbers") };
    let out_of_range = ParseError("a player's numbers are out of range");
    let deck = usize::try_from(deck).ok().filter(|&deck| deck <= DECK_SIZE).ok_or(out_of_range.clone())?;
    let max_mana = i8::try_from(max_mana).map_err(|_| out_of_range.clone())?;
    Ok(Player {
        health: i16::try_from(health).map_err(|_| out_of_range.clone())?,
        max_mana,
        mana: max_mana,
        bonus_mana_turns: 0,
        next_turn_draw: 1,
        draw_shown: u8::try_from(draw).map_err(|_| out_of_range.clone())?,
        runes: u8::try_from(next_rune / 5).map_err(|_| out_of_range)?,
        hand: [HandCard::default(); HAND_LIMIT],
        hand_len: 0,
        deck_drawn: (DECK_SIZE - deck) as u8,
        board: [Creature::default(); BOARD_CAPACITY],
        board_len: 0,
    })
}

/// One card line's fields.
struct CardLine {
    card: i32,
    instance: i32,
    location: i32,
    attack: i16,
    defense: i16,
    keywords: Keywords,
    my_health: i32,
    opponent_health: i32,
    draw: i32,
    lane: i32,
}

impl CardLine {
    fn parse(line: &str) -> Result<CardLine, ParseError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() != 12 {
            return Err(ParseError("a card line has twelve fields"));
        }
        let int = |index: usize| words[index].parse::<i32>().map_err(|_| ParseError("a card field is a number"));
        let small = |index: usize| words[index].parse::<i16>().map_err(|_| ParseError("a card field is a number"));
        Ok(CardLine {
            card: int(0)?,
            instance: int(1)?,
            location: int(2)?,
            attack: small(5)?,
            defense: small(6)?,
            keywords: Keywords::parse(words[7]).ok_or(ParseError("keywords are six of BCDGLW or -"))?,
            my_health: int(8)?,
            opponent_health: int(9)?,
            draw: int(10)?,
            lane: int(11)?,
        })
    }
}
