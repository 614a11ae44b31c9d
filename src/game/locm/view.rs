//! What a player may see, as a type apart from the full state: during the
//! draft the triple and its own picks; in battle the board, its own hand,
//! the opponent's hand size and last turn's actions, but neither deck's
//! order nor the opponent's hand. Also the referee's text input for a view
//! (which the conformance test compares with recorded matches) and the
//! human-readable picture of a game.

use std::fmt::Write;

use super::battle::{Battle, Creature, Move, Player};
use super::cards::CardTable;
use super::{LocmGame, MAX_ACTIONS_PER_TURN, PICKS};

/// The kind of a performed action, as the opponent sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum PerformedKind {
    #[default]
    Summon,
    Attack,
    Use,
}

/// One action a player performed, as the referee reports it to the other
/// player: the card's id, then the action with the referee's arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Performed {
    pub(crate) kind: PerformedKind,
    /// The card id of the summoned creature, the attacker or the item.
    pub(crate) card: u8,
    pub(crate) instance: u8,
    /// The lane, or the target's instance id, -1 for the opponent.
    pub(crate) argument: i8,
}

impl Performed {
    /// Describes `action`, about to be played in `battle` (it is legal).
    pub(crate) fn describe(battle: &Battle, action: Move) -> Performed {
        let me = battle.me();
        let hand_card = |instance: u8| me.find_hand(instance).map_or(0, |index| me.hand[index].card);
        let target = |instance: u8| if instance == 0 { -1 } else { instance as i8 };
        match action {
            Move::Summon { instance, lane } => {
                Performed { kind: PerformedKind::Summon, card: hand_card(instance), instance, argument: lane as i8 }
            }
            Move::Attack { attacker, target: to } => Performed {
                kind: PerformedKind::Attack,
                card: me.find_creature(attacker).map_or(0, |index| me.board[index].card),
                instance: attacker,
                argument: target(to),
            },
            Move::Use { item, target: to } => {
                Performed { kind: PerformedKind::Use, card: hand_card(item), instance: item, argument: target(to) }
            }
            Move::EndTurn => Performed::default(),
        }
    }
}

impl std::fmt::Display for Performed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let word = match self.kind {
            PerformedKind::Summon => "SUMMON",
            PerformedKind::Attack => "ATTACK",
            PerformedKind::Use => "USE",
        };
        write!(f, "{} {word} {} {}", self.card, self.instance, self.argument)
    }
}

/// A drafting player's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DraftView {
    pub(crate) player: u8,
    /// 0-based pick number.
    pub(crate) pick: u8,
    /// The three card ids on offer.
    pub(crate) choices: [u8; 3],
    /// This player's picks so far (the first `n_picked`).
    pub(crate) picked: [u8; PICKS],
    pub(crate) n_picked: u8,
    /// How many cards the opponent has picked (the referee shows it).
    pub(crate) opponent_picked: u8,
}

impl DraftView {
    /// The 0-based pick number.
    pub fn pick(&self) -> u8 {
        self.pick
    }

    /// The three card ids on offer.
    pub fn choices(&self) -> [u8; 3] {
        self.choices
    }

    /// This player's picks so far.
    pub(crate) fn picked(&self) -> &[u8] {
        &self.picked[..usize::from(self.n_picked)]
    }
}

/// A battling player's view: the battle with hidden information zeroed
/// (see [`Battle::hidden_from`]) and what the opponent did last turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BattleView {
    pub battle: Battle,
    pub opponent_actions: [Performed; MAX_ACTIONS_PER_TURN],
    pub n_opponent_actions: u8,
}

impl BattleView {
    /// What the opponent did in its last turn.
    pub(crate) fn opponent_actions(&self) -> &[Performed] {
        &self.opponent_actions[..usize::from(self.n_opponent_actions)]
    }
}

/// What the player to move may see.
// Built on the stack once per decision: boxing the battle view would
// allocate per decision for no gain.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Draft(DraftView),
    Battle(BattleView),
}

impl View {
    /// The referee's input for this view, byte for byte as the reference
    /// referee sends it: card lines end with a space (its `getAsInput`
    /// appends one after every field), the other lines do not.
    pub fn referee_input(&self, table: &CardTable) -> String {
        let mut out = String::new();
        match self {
            View::Draft(draft) => {
                let _ = writeln!(out, "30 0 {} 25 0", draft.n_picked);
                let _ = writeln!(out, "30 0 {} 25 0", draft.opponent_picked);
                out.push_str("0 0\n3\n");
                for &card in &draft.choices {
                    let stats = table.stats(card);
                    let _ = writeln!(
                        out,
                        "{card} -1 0 {} {} {} {} {} {} {} {} -1 ",
                        stats.kind_code,
                        stats.cost,
                        stats.attack,
                        stats.defense,
                        stats.keywords,
                        stats.my_health,
                        stats.opponent_health,
                        stats.draw
                    );
                }
            }
            View::Battle(view) => {
                let battle = &view.battle;
                let me = battle.me();
                let opponent = battle.opponent();
                for player in [me, opponent] {
                    let _ = writeln!(
                        out,
                        "{} {} {} {} {}",
                        player.health,
                        player.max_mana,
                        player.deck_size(),
                        player.next_rune(),
                        player.draw_shown
                    );
                }
                let _ = writeln!(out, "{} {}", opponent.hand_len, view.n_opponent_actions);
                for action in view.opponent_actions() {
                    let _ = writeln!(out, "{action}");
                }
                let _ = writeln!(out, "{}", me.hand().len() + me.board().len() + opponent.board().len());
                for card in me.hand() {
                    let stats = table.stats(card.card);
                    let _ = writeln!(
                        out,
                        "{} {} 0 {} {} {} {} {} {} {} {} -1 ",
                        card.card,
                        card.instance,
                        stats.kind_code,
                        stats.cost,
                        stats.attack,
                        stats.defense,
                        stats.keywords,
                        stats.my_health,
                        stats.opponent_health,
                        stats.draw
                    );
                }
                for (player, location) in [(me, 1), (opponent, -1)] {
                    for creature in player.board() {
                        creature_line(&mut out, table, creature, location);
                    }
                }
            }
        }
        out
    }
}

fn creature_line(out: &mut String, table: &CardTable, creature: &Creature, location: i32) {
    let stats = table.stats(creature.card);
    let (my_health, opponent_health, draw) =
        if creature.effects_hidden { (0, 0, 0) } else { (stats.my_health, stats.opponent_health, stats.draw) };
    let _ = writeln!(
        out,
        "{} {} {location} 0 {} {} {} {} {my_health} {opponent_health} {draw} {} ",
        creature.card,
        creature.instance,
        stats.cost,
        creature.attack,
        creature.defense,
        creature.keywords,
        creature.lane
    );
}

/// The picture of a game for `replay show`.
pub(crate) fn render(game: &LocmGame) -> String {
    let table = game.table();
    let mut out = String::new();
    let _ = writeln!(out, "tick {}", game.tick);
    match game.battle() {
        None => {
            let pick = usize::from(game.n_picks / 2);
            let _ = writeln!(out, "draft: pick {} of {PICKS}, player {} to choose", pick + 1, game.n_picks % 2);
            for (index, &card) in game.triples[pick.min(PICKS - 1)].iter().enumerate() {
                let _ = writeln!(out, "  {index}: {}", describe_card(table, card));
            }
            for player in 0..2u8 {
                let names: Vec<String> = game.picks(player).iter().map(|card| card.to_string()).collect();
                let _ = writeln!(out, "player {player} picked: {}", names.join(" "));
            }
        }
        Some(battle) => {
            let state = match battle.winner {
                Some(winner) => format!("player {winner} has won"),
                None => format!("player {} to move", battle.current),
            };
            let _ = writeln!(out, "battle: turn {}, {state}", battle.turn);
            for (index, player) in battle.players.iter().enumerate() {
                render_player(&mut out, table, index, player);
            }
        }
    }
    out
}

fn render_player(out: &mut String, table: &CardTable, index: usize, player: &Player) {
    let _ = writeln!(
        out,
        "player {index}: health {} mana {}/{} deck {} runes {} next draw {}",
        player.health,
        player.mana,
        player.max_mana,
        player.deck_size(),
        player.runes,
        player.next_turn_draw
    );
    let hand: Vec<String> =
        player.hand().iter().map(|card| format!("#{} {}", card.instance, describe_card(table, card.card))).collect();
    let _ = writeln!(out, "  hand: {}", hand.join(", "));
    for lane in 0..2u8 {
        let creatures: Vec<String> = player
            .board()
            .iter()
            .filter(|creature| creature.lane == lane)
            .map(|creature| {
                let ready = if creature.can_attack { "*" } else { "" };
                format!(
                    "#{}{ready} {} {}/{} {}",
                    creature.instance,
                    table.card(creature.card).name,
                    creature.attack,
                    creature.defense,
                    creature.keywords
                )
            })
            .collect();
        let _ = writeln!(out, "  lane {lane}: {}", creatures.join(", "));
    }
}

fn describe_card(table: &CardTable, card: u8) -> String {
    if card == 0 {
        return "?".to_string();
    }
    let card = table.card(card);
    format!("{} ({}, {} mana {}/{} {})", card.name, card.id, card.cost, card.attack, card.defense, card.keywords)
}
