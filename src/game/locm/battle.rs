//! The battle rules of LOCM 1.2 on a fixed-size state: two players, hands of
//! at most 8, two lanes of at most 3 creatures each, runes, mana with the
//! second player's bonus, card draw and deck-out. Follows the reference Java
//! referee, as written out in `docs/locm-rules.md`: where its code and its
//! prose rules differ, the code wins (that document lists each case, and the
//! few places where this engine departs from the referee). No allocation
//! anywhere: the bots copy a [`Battle`] per candidate action, so it is a
//! plain `Copy` value of a few hundred bytes.

use super::cards::{CardStats, CardTable, Keywords};
use crate::game::StateHasher;

/// Cards a hand may hold.
pub(crate) const HAND_LIMIT: usize = 8;
/// Lanes per player.
pub(crate) const LANES: usize = 2;
/// Creatures per lane and player.
pub(crate) const LANE_CAPACITY: usize = 3;
/// Creatures per player over both lanes.
pub(crate) const BOARD_CAPACITY: usize = LANES * LANE_CAPACITY;
/// Cards per deck (the draft's picks).
pub(crate) const DECK_SIZE: usize = 30;
/// Mana grows to this (one more while the second player's bonus lasts).
pub(crate) const MAX_MANA: i8 = 12;
/// From a player's 51st turn on (0-based turn 50) its deck counts as empty.
pub(crate) const PLAYER_TURN_LIMIT: i16 = 50;
/// Starting health.
pub(crate) const INITIAL_HEALTH: i16 = 30;
/// Runes at 5, 10, 15, 20 and 25 health.
pub(crate) const RUNES: u8 = 5;
/// Instance ids run 1..=60: card i of player p's shuffled deck is 2i+p+1.
pub(crate) const MAX_INSTANCE: usize = 2 * DECK_SIZE;

/// Both players' decks: card ids in drawing order (the shuffled picks).
/// Kept outside [`Battle`] so that the copies a bot makes per candidate
/// action stay small; only the start of a turn reads them.
pub(crate) type Decks = [[u8; DECK_SIZE]; 2];

/// Decks of unknown cards, for simulating within a turn (nothing is drawn
/// mid-turn).
#[cfg(test)]
pub(crate) const HIDDEN_DECKS: Decks = [[0; DECK_SIZE]; 2];

/// A creature on the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Creature {
    pub(crate) instance: u8,
    pub(crate) card: u8,
    pub(crate) lane: u8,
    pub(crate) attack: i16,
    pub(crate) defense: i16,
    pub(crate) keywords: Keywords,
    pub(crate) can_attack: bool,
    pub(crate) has_attacked: bool,
    /// The referee's display quirk: once a creature has attacked, been
    /// attacked or been the target of an item, the referee's copy of it no
    /// longer carries the card's health changes and draw, and it shows them
    /// as 0. No effect on play.
    pub effects_hidden: bool,
}

/// A card in hand: its instance id and card id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HandCard {
    pub(crate) instance: u8,
    pub(crate) card: u8,
}

/// One player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Player {
    pub(crate) health: i16,
    pub(crate) max_mana: i8,
    pub(crate) mana: i8,
    pub(crate) bonus_mana_turns: u8,
    pub(crate) next_turn_draw: u8,
    /// The `draw` number the referee shows: for the player to move, what it
    /// was due to draw this turn; for the other, its `next_turn_draw` as its
    /// last turn ended.
    pub(crate) draw_shown: u8,
    /// Runes left; they are always the lowest ones, so the next is 5 × this.
    pub(crate) runes: u8,
    pub(crate) hand: [HandCard; HAND_LIMIT],
    pub(crate) hand_len: u8,
    /// Cards drawn from the deck so far; the deck is `decks[p][deck_drawn..]`
    /// (the decks live outside the battle: see [`Decks`]).
    pub(crate) deck_drawn: u8,
    /// Creatures in the order they were summoned, both lanes together (the
    /// referee's order, which the input it shows follows).
    pub board: [Creature; BOARD_CAPACITY],
    pub board_len: u8,
}

impl Player {
    fn new(second: bool) -> Player {
        Player {
            health: INITIAL_HEALTH,
            max_mana: i8::from(second),
            mana: i8::from(second),
            bonus_mana_turns: u8::from(second),
            next_turn_draw: 1,
            draw_shown: 1,
            runes: RUNES,
            hand: [HandCard::default(); HAND_LIMIT],
            hand_len: 0,
            deck_drawn: 0,
            board: [Creature::default(); BOARD_CAPACITY],
            board_len: 0,
        }
    }

    /// The cards in hand, in the order drawn.
    pub(crate) fn hand(&self) -> &[HandCard] {
        &self.hand[..usize::from(self.hand_len)]
    }

    /// The creatures on the board, in summon order, both lanes.
    pub(crate) fn board(&self) -> &[Creature] {
        &self.board[..usize::from(self.board_len)]
    }

    /// Cards left in the deck.
    pub(crate) fn deck_size(&self) -> usize {
        DECK_SIZE - usize::from(self.deck_drawn)
    }

    /// The highest remaining rune, 0 when none is left.
    pub(crate) fn next_rune(&self) -> i16 {
        5 * i16::from(self.runes)
    }

    /// Creatures in `lane`.
    pub(crate) fn lane_count(&self, lane: u8) -> usize {
        self.board().iter().filter(|creature| creature.lane == lane).count()
    }

    /// `Gamer.ModifyHealth`: losing health past a rune breaks it and adds a draw.
    fn modify_health(&mut self, change: i16) {
        self.health += change;
        if change >= 0 {
            return;
        }
        while self.runes > 0 && self.health <= self.next_rune() {
            self.runes -= 1;
            self.next_turn_draw += 1;
        }
    }

    /// `Gamer.DrawCards(n, playerTurn)`. An empty deck (or a player past its
    /// turn limit) costs the highest rune, or all health, per draw, and that
    /// is checked before the hand limit: a full hand still pays.
    fn draw_cards(&mut self, n: u8, player_turn: i16, owner: u8, deck: &[u8; DECK_SIZE]) {
        for _ in 0..n {
            if usize::from(self.deck_drawn) == DECK_SIZE || player_turn >= PLAYER_TURN_LIMIT {
                if self.runes > 0 {
                    self.health = self.next_rune();
                    self.runes -= 1;
                } else {
                    self.health = 0;
                }
                continue;
            }
            if usize::from(self.hand_len) == HAND_LIMIT {
                break;
            }
            let index = usize::from(self.deck_drawn);
            let instance = (2 * index + usize::from(owner) + 1) as u8;
            self.hand[usize::from(self.hand_len)] = HandCard { instance, card: deck[index] };
            self.hand_len += 1;
            self.deck_drawn += 1;
        }
    }

    // Element-wise shifts: these arrays are tiny, and `copy_within` would
    // call `memmove` on the bots' hottest path.
    fn remove_hand(&mut self, index: usize) {
        let len = usize::from(self.hand_len);
        for slot in index..len - 1 {
            self.hand[slot] = self.hand[slot + 1];
        }
        self.hand_len -= 1;
    }

    fn remove_creature(&mut self, index: usize) {
        let len = usize::from(self.board_len);
        for slot in index..len - 1 {
            self.board[slot] = self.board[slot + 1];
        }
        self.board_len -= 1;
    }

    /// The board index of creature `instance`.
    pub(crate) fn find_creature(&self, instance: u8) -> Option<usize> {
        self.board().iter().position(|creature| creature.instance == instance)
    }

    /// The hand index of card `instance`.
    pub(crate) fn find_hand(&self, instance: u8) -> Option<usize> {
        self.hand().iter().position(|card| card.instance == instance)
    }
}

/// A battle action, by instance ids as the referee names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `SUMMON id lane`.
    Summon { instance: u8, lane: u8 },
    /// `ATTACK id target`; target 0 is the opponent (the referee's -1).
    Attack { attacker: u8, target: u8 },
    /// `USE id target`; target 0 is the opponent (the referee's -1).
    Use { item: u8, target: u8 },
    /// Ends the turn (the end of the referee's action list).
    EndTurn,
}

/// The whole battle state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Battle {
    pub players: [Player; 2],
    /// Whose turn it is: 0 or 1.
    pub current: u8,
    /// The referee's global turn counter: 0 is player 0's first turn.
    pub(crate) turn: i16,
    /// `Some(player)` once the game is decided.
    pub(crate) winner: Option<u8>,
}

impl Battle {
    /// The battle after the draft: decks in drawing order, opening hands of
    /// 4 and 5, then the start of player 0's first turn.
    pub(crate) fn start(decks: &Decks) -> Battle {
        let mut players = [Player::new(false), Player::new(true)];
        for (owner, player) in players.iter_mut().enumerate() {
            player.draw_cards(4 + owner as u8, 0, owner as u8, &decks[owner]);
        }
        let mut battle = Battle { players, current: 1, turn: -1, winner: None };
        battle.advance_turn(decks);
        battle
    }

    /// The player to move.
    pub(crate) fn me(&self) -> &Player {
        &self.players[usize::from(self.current)]
    }

    /// The other player.
    pub(crate) fn opponent(&self) -> &Player {
        &self.players[usize::from(1 - self.current)]
    }

    /// `CheckWinCondition`: the opponent at or below 0 loses first, even if
    /// the player to move is dead too.
    fn check_winner(&mut self) {
        let current = usize::from(self.current);
        if self.players[1 - current].health <= 0 {
            self.winner = Some(self.current);
        } else if self.players[current].health <= 0 {
            self.winner = Some(1 - self.current);
        }
    }

    /// `AdvanceState()`: ends the current turn and starts the other player's.
    pub(crate) fn advance_turn(&mut self, decks: &Decks) {
        self.check_winner();
        if self.winner.is_some() {
            return;
        }
        let ending = usize::from(self.current);
        for creature in self.players[ending].board[..usize::from(self.players[ending].board_len)].iter_mut() {
            creature.can_attack = false;
            creature.has_attacked = false;
        }
        self.players[ending].draw_shown = self.players[ending].next_turn_draw;
        self.current = 1 - self.current;
        self.turn += 1;
        let player_turn = self.turn / 2;
        let player = &mut self.players[usize::from(self.current)];
        let bonus = i8::from(player.bonus_mana_turns > 0);
        if player.max_mana < MAX_MANA + bonus {
            player.max_mana += 1;
        }
        if player.bonus_mana_turns > 0 && player.mana == 0 {
            player.bonus_mana_turns -= 1;
            if player.bonus_mana_turns == 0 {
                player.max_mana -= 1;
            }
        }
        player.mana = player.max_mana;
        for creature in player.board[..usize::from(player.board_len)].iter_mut() {
            creature.can_attack = true;
        }
        player.draw_cards(player.next_turn_draw, player_turn, self.current, &decks[usize::from(self.current)]);
        player.draw_shown = player.next_turn_draw;
        player.next_turn_draw = 1;
        self.check_winner();
    }

    /// Whether `action` is legal now (`GameState.computeLegalActions`).
    pub(crate) fn is_legal(&self, action: Move, table: &CardTable) -> bool {
        if self.winner.is_some() {
            return false;
        }
        let me = self.me();
        let opponent = self.opponent();
        match action {
            Move::EndTurn => true,
            Move::Summon { instance, lane } => {
                let Some(index) = me.find_hand(instance) else { return false };
                let stats = table.stats(me.hand[index].card);
                stats.is_creature()
                    && stats.cost <= me.mana
                    && usize::from(lane) < LANES
                    && me.lane_count(lane) < LANE_CAPACITY
            }
            Move::Attack { attacker, target } => {
                let Some(index) = me.find_creature(attacker) else { return false };
                let attacker = me.board[index];
                if !attacker.can_attack {
                    return false;
                }
                let lane = opponent.board().iter().filter(|creature| creature.lane == attacker.lane);
                let guarded = lane.clone().any(|creature| creature.keywords.has(Keywords::GUARD));
                if target == 0 {
                    return !guarded;
                }
                let mut lane = lane;
                lane.any(|creature| creature.instance == target && (!guarded || creature.keywords.has(Keywords::GUARD)))
            }
            Move::Use { item, target } => {
                let Some(index) = me.find_hand(item) else { return false };
                let stats = table.stats(me.hand[index].card);
                if stats.is_creature() || stats.cost > me.mana {
                    return false;
                }
                match stats.kind_code {
                    1 => target != 0 && me.find_creature(target).is_some(),
                    2 => target != 0 && opponent.find_creature(target).is_some(),
                    _ => target == 0 || opponent.find_creature(target).is_some(),
                }
            }
        }
    }

    /// Appends every legal action to `out`: summons, attacks, uses, then
    /// [`Move::EndTurn`]; nothing once the game is decided.
    pub(crate) fn legal_moves(&self, table: &CardTable, out: &mut Vec<Move>) {
        if self.winner.is_some() {
            return;
        }
        self.legal_moves_without_end(table, out);
        out.push(Move::EndTurn);
    }

    /// [`Battle::legal_moves`] without the end of the turn.
    pub(crate) fn legal_moves_without_end(&self, table: &CardTable, out: &mut Vec<Move>) {
        self.for_each_move(table, |action| out.push(action));
    }

    /// Calls `out` with every legal action but the end of the turn, in the
    /// order of [`Battle::legal_moves`]; no allocation.
    pub(crate) fn for_each_move(&self, table: &CardTable, mut out: impl FnMut(Move)) {
        let me = self.me();
        let opponent = self.opponent();
        let lane_counts = [me.lane_count(0), me.lane_count(1)];
        for card in me.hand() {
            let stats = table.stats(card.card);
            if stats.is_creature() && stats.cost <= me.mana {
                for lane in 0..LANES as u8 {
                    if lane_counts[usize::from(lane)] < LANE_CAPACITY {
                        out(Move::Summon { instance: card.instance, lane });
                    }
                }
            }
        }
        let mut guards = [false; LANES];
        for creature in opponent.board() {
            if creature.keywords.has(Keywords::GUARD) {
                guards[usize::from(creature.lane)] = true;
            }
        }
        for attacker in me.board() {
            if !attacker.can_attack {
                continue;
            }
            let guarded = guards[usize::from(attacker.lane)];
            if !guarded {
                out(Move::Attack { attacker: attacker.instance, target: 0 });
            }
            for defender in opponent.board() {
                if defender.lane == attacker.lane && (!guarded || defender.keywords.has(Keywords::GUARD)) {
                    out(Move::Attack { attacker: attacker.instance, target: defender.instance });
                }
            }
        }
        for card in me.hand() {
            let stats = table.stats(card.card);
            if stats.is_creature() || stats.cost > me.mana {
                continue;
            }
            let targets = if stats.kind_code == 1 { me.board() } else { opponent.board() };
            for target in targets {
                out(Move::Use { item: card.instance, target: target.instance });
            }
            if stats.kind_code == 3 {
                out(Move::Use { item: card.instance, target: 0 });
            }
        }
    }

    /// Plays a legal action (`AdvanceState(action)`, or `AdvanceState()` for
    /// the end of the turn, which draws from `decks`: a bot simulating its
    /// own turn may pass [`HIDDEN_DECKS`]). The caller has checked legality.
    pub(crate) fn apply(&mut self, action: Move, table: &CardTable, decks: &Decks) {
        match action {
            Move::Summon { instance, lane } => self.summon(instance, lane, table),
            Move::Attack { attacker, target } => self.attack(attacker, target),
            Move::Use { item, target } => self.use_item(item, target, table),
            Move::EndTurn => {
                self.advance_turn(decks);
                return;
            }
        }
        self.check_winner();
    }

    fn summon(&mut self, instance: u8, lane: u8, table: &CardTable) {
        let current = usize::from(self.current);
        let me = &mut self.players[current];
        let Some(index) = me.find_hand(instance) else { return };
        let card = me.hand[index].card;
        let stats: &CardStats = table.stats(card);
        me.remove_hand(index);
        me.mana -= stats.cost;
        let charge = stats.keywords.has(Keywords::CHARGE);
        me.board[usize::from(me.board_len)] = Creature {
            instance,
            card,
            lane,
            attack: i16::from(stats.attack),
            defense: i16::from(stats.defense),
            keywords: stats.keywords,
            can_attack: charge,
            has_attacked: false,
            effects_hidden: false,
        };
        me.board_len += 1;
        me.modify_health(i16::from(stats.my_health));
        me.next_turn_draw += stats.draw as u8;
        self.players[1 - current].modify_health(i16::from(stats.opponent_health));
    }

    fn attack(&mut self, attacker_instance: u8, target: u8) {
        let current = usize::from(self.current);
        let Some(attacker_index) = self.players[current].find_creature(attacker_instance) else { return };
        let attacker = self.players[current].board[attacker_index];
        if target == 0 {
            let (attacker_after, drain) = resolve_attack_on_player(&attacker);
            self.players[current].board[attacker_index] = attacker_after;
            self.players[current].modify_health(drain);
            self.players[1 - current].modify_health(-attacker.attack);
            return;
        }
        let Some(defender_index) = self.players[1 - current].find_creature(target) else { return };
        let defender = self.players[1 - current].board[defender_index];
        let combat = resolve_attack(&attacker, &defender);
        if combat.defender_dies {
            self.players[1 - current].remove_creature(defender_index);
        } else {
            self.players[1 - current].board[defender_index] = combat.defender;
        }
        if combat.attacker_dies {
            self.players[current].remove_creature(attacker_index);
        } else {
            self.players[current].board[attacker_index] = combat.attacker;
        }
        self.players[current].modify_health(combat.drain);
        self.players[1 - current].modify_health(combat.breakthrough);
    }

    fn use_item(&mut self, instance: u8, target: u8, table: &CardTable) {
        let current = usize::from(self.current);
        let Some(index) = self.players[current].find_hand(instance) else { return };
        let card = self.players[current].hand[index].card;
        let item = *table.stats(card);
        self.players[current].remove_hand(index);
        self.players[current].mana -= item.cost;
        let mut opponent_change = i16::from(item.opponent_health);
        if target == 0 {
            opponent_change += i16::from(item.defense);
        } else {
            let owner = if item.kind_code == 1 { current } else { 1 - current };
            if let Some(target_index) = self.players[owner].find_creature(target) {
                let (after, dies) = resolve_item(&item, &self.players[owner].board[target_index]);
                if dies {
                    self.players[owner].remove_creature(target_index);
                } else {
                    self.players[owner].board[target_index] = after;
                }
            }
        }
        self.players[current].modify_health(i16::from(item.my_health));
        self.players[1 - current].modify_health(opponent_change);
        self.players[current].next_turn_draw += item.draw as u8;
    }

    /// The same battle as seen by `viewer`: the other player's hand cards are
    /// zeroed (the hand size stays). The decks are not part of a battle.
    pub(crate) fn hidden_from(&self, viewer: u8) -> Battle {
        let mut view = *self;
        for card in view.players[usize::from(1 - viewer)].hand.iter_mut() {
            card.card = 0;
        }
        view
    }

    /// Feeds the canonical encoding of the state to `hasher`.
    pub(crate) fn hash_into(&self, hasher: &mut StateHasher) {
        hasher.u8(self.current);
        hasher.u16(self.turn as u16);
        hasher.u8(self.winner.map_or(2, |winner| winner));
        for player in &self.players {
            hasher.u16(player.health as u16);
            hasher.bytes(&[
                player.max_mana as u8,
                player.mana as u8,
                player.bonus_mana_turns,
                player.next_turn_draw,
                player.draw_shown,
                player.runes,
                player.hand_len,
                player.deck_drawn,
                player.board_len,
            ]);
            for card in player.hand() {
                hasher.bytes(&[card.instance, card.card]);
            }
            for creature in player.board() {
                hasher.bytes(&[creature.instance, creature.card, creature.lane, creature.keywords.0]);
                hasher.u16(creature.attack as u16);
                hasher.u16(creature.defense as u16);
                hasher.bytes(&[
                    u8::from(creature.can_attack),
                    u8::from(creature.has_attacked),
                    u8::from(creature.effects_hidden),
                ]);
            }
        }
    }
}

/// The result of one creature attacking another (`GameState.ResolveAttack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Combat {
    /// The attacker after the fight (meaningless if it dies).
    pub(crate) attacker: Creature,
    pub(crate) attacker_dies: bool,
    pub(crate) defender: Creature,
    pub(crate) defender_dies: bool,
    /// Health the attacker's owner gains (Drain).
    pub(crate) drain: i16,
    /// The defender's owner's health change (Breakthrough), at most 0.
    pub(crate) breakthrough: i16,
}

/// `ResolveAttack(attacker, defender)`: every quantity uses the values from
/// before the fight. Pure, so bots can score an attack without playing it.
pub(crate) fn resolve_attack(attacker: &Creature, defender: &Creature) -> Combat {
    let mut attacker_after = *attacker;
    attacker_after.can_attack = false;
    attacker_after.has_attacked = true;
    attacker_after.effects_hidden = true;
    let mut defender_after = *defender;
    defender_after.effects_hidden = true;
    let defender_warded = defender.keywords.has(Keywords::WARD);
    let attacker_warded = attacker.keywords.has(Keywords::WARD);
    if defender_warded && attacker.attack != 0 {
        defender_after.keywords.0 &= !Keywords::WARD;
    }
    if attacker_warded && defender.attack != 0 {
        attacker_after.keywords.0 &= !Keywords::WARD;
    }
    let damage_given = if defender_warded { 0 } else { attacker.attack };
    let damage_taken = if attacker_warded { 0 } else { defender.attack };
    let mut defender_dies = damage_given >= defender.defense;
    let breakthrough = if attacker.keywords.has(Keywords::BREAKTHROUGH) && defender_dies {
        defender.defense - damage_given
    } else {
        0
    };
    if attacker.keywords.has(Keywords::LETHAL) && damage_given > 0 {
        defender_dies = true;
    }
    let drain = if attacker.keywords.has(Keywords::DRAIN) && damage_given > 0 { attacker.attack } else { 0 };
    defender_after.defense -= damage_given;
    let attacker_dies =
        damage_taken >= attacker.defense || (defender.keywords.has(Keywords::LETHAL) && damage_taken > 0);
    attacker_after.defense -= damage_taken;
    Combat { attacker: attacker_after, attacker_dies, defender: defender_after, defender_dies, drain, breakthrough }
}

/// `ResolveAttack(attacker)` on the opponent: the attacker after it, and
/// what its owner gains (Drain). The opponent loses `attacker.attack`.
pub(crate) fn resolve_attack_on_player(attacker: &Creature) -> (Creature, i16) {
    let mut after = *attacker;
    after.can_attack = false;
    after.has_attacked = true;
    after.effects_hidden = true;
    let drain = if attacker.keywords.has(Keywords::DRAIN) { attacker.attack } else { 0 };
    (after, drain)
}

/// `ResolveUse(item, target)` on a creature: keywords first (green adds,
/// red and blue remove; green Charge lets a creature that has not attacked
/// attack), then attack (never below 0), then defense (a negative change on
/// a creature still warded after the keywords only strips the Ward). Returns
/// the creature after it and whether it dies.
pub(crate) fn resolve_item(item: &CardStats, target: &Creature) -> (Creature, bool) {
    let mut creature = *target;
    creature.effects_hidden = true;
    if item.kind_code == 1 {
        creature.keywords.0 |= item.keywords.0;
        if item.keywords.has(Keywords::CHARGE) {
            creature.can_attack = !creature.has_attacked;
        }
    } else {
        creature.keywords.0 &= !item.keywords.0;
    }
    creature.attack = (creature.attack + i16::from(item.attack)).max(0);
    if creature.keywords.has(Keywords::WARD) && item.defense < 0 {
        creature.keywords.0 &= !Keywords::WARD;
    } else {
        creature.defense += i16::from(item.defense);
    }
    (creature, creature.defense <= 0)
}
