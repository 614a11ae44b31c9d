//! [`LocmBots`], the planner of a whole LOCM game: a draft bot and a battle
//! bot per seat, each asked in turn for the decision of the player to move,
//! seeing only that player's [`View`].

use super::BattleBot;
use super::battle::BattleScratch;
use super::draft::DraftBot;
use crate::game::Game;
use crate::game::locm::view::View;
use crate::game::locm::{Action, LocmGame};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};
use crate::rng::{GameRng, derive_seed};

/// The planner for a whole game: a draft bot and a battle bot per seat.
/// Its random stream is derived from the game's seed when a game starts, so
/// a game's actions depend only on the seed and the bots.
#[derive(Clone, Debug)]
pub struct LocmBots {
    pub(crate) draft: [DraftBot; 2],
    pub(crate) battle: [BattleBot; 2],
    rng: GameRng,
    /// Each seat's battle buffers (the search bot keeps its turn's plan there).
    scratch: [BattleScratch; 2],
}

/// The stream label bots use under the game seed.
const BOT_STREAM: u64 = 0x6C6F_636D_626F_7473;

impl LocmBots {
    /// Player 0's and player 1's bots.
    pub fn new(draft: [DraftBot; 2], battle: [BattleBot; 2]) -> LocmBots {
        LocmBots { draft, battle, rng: GameRng::from_seed(0), scratch: Default::default() }
    }

    /// The action the bot of the player to move chooses, with the number of
    /// candidates it weighed.
    pub(crate) fn decide(&mut self, game: &LocmGame) -> (Action, u64) {
        if game.tick() == 0 {
            self.rng = GameRng::from_seed(derive_seed(game.seed(), BOT_STREAM));
            for scratch in &mut self.scratch {
                scratch.search.new_game();
            }
        }
        let table = game.table();
        match game.view() {
            View::Draft(draft) => {
                let bot = &self.draft[usize::from(draft.player)];
                (Action::Pick(bot.choose(&draft, table, &mut self.rng)), 3)
            }
            View::Battle(view) => {
                let seat = usize::from(view.battle.current);
                let scratch = &mut self.scratch[seat];
                let (action, weighed) =
                    self.battle[seat].choose(&view.battle, table, &mut self.rng, scratch, &|| false);
                (Action::Battle(action), weighed)
            }
        }
    }

    /// Seat `seat`'s search counters (zero unless it battles with `search`).
    pub fn search_stats(&self, seat: u8) -> super::search::SearchStats {
        self.scratch[usize::from(seat)].search.stats
    }

    /// Plays `game` to its end and returns the winner (0 or 1): how
    /// `bench`, `match` and the draft evolution play their many games.
    ///
    /// # Panics
    /// If a bot chooses an illegal action: the bots only choose among legal
    /// ones, so that would be a bug.
    pub(crate) fn play_out(&mut self, mut game: LocmGame) -> u8 {
        loop {
            if let Some(winner) = game.winner() {
                return winner;
            }
            let (action, _) = self.decide(&game);
            if let Err(error) = game.step(action) {
                panic!("a bot chose an illegal action: {error}");
            }
        }
    }
}

impl Planner<LocmGame> for LocmBots {
    fn name(&self) -> &'static str {
        "locm-bots"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("draft".to_string(), format!("{},{}", self.draft[0].name(), self.draft[1].name())),
            ("battle".to_string(), format!("{},{}", self.battle[0].name(), self.battle[1].name())),
        ]
    }

    // Inline: a session's loop then takes the bots' answer as it comes,
    // rather than copied through one more return slot every tick.
    #[inline]
    fn next_action(&mut self, game: &LocmGame, _budget: &Budget) -> Result<Decision<Action>, PlanError> {
        let (action, nodes) = self.decide(game);
        let kind = if matches!(action, Action::Pick(_)) { "draft" } else { "battle" };
        Ok(Decision { action, planned: Some(PlanStats { kind, nodes, plan_len: 1, ..PlanStats::default() }) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::locm::Config;
    use crate::game::{OutcomeKind, Status, Wire};
    use crate::plan::play_to_end;

    #[test]
    fn games_with_every_bot_end_and_replay_identically() {
        let config = Config::bundled();
        let drafts = [
            DraftBot::Random,
            DraftBot::MaxAttack,
            DraftBot::ClosetAi,
            DraftBot::Icebox,
            DraftBot::Coac,
            DraftBot::Chad,
        ];
        let battles = [BattleBot::Random, BattleBot::Pass, BattleBot::MaxAttack, BattleBot::Greedy];
        let mut winners = [0; 2];
        for (index, draft) in drafts.iter().enumerate() {
            for (battle_index, &battle) in battles.iter().enumerate() {
                let seed = (index * 10 + battle_index) as u64;
                let other = battles[(battle_index + 1) % battles.len()];
                let mut bots = LocmBots::new([draft.clone(), DraftBot::Random], [battle, other]);
                let mut game = LocmGame::new(&config, seed);
                let mut actions = Vec::new();
                let outcome = play_to_end(&mut game, &mut bots, &Budget::unlimited(), |action, _| actions.push(action))
                    .expect("bots play legal actions");
                winners[usize::from(game.winner().unwrap())] += 1;
                assert_eq!(game.score(), if game.winner() == Some(0) { 1 } else { -1 });
                assert!(matches!(outcome.kind, OutcomeKind::Won | OutcomeKind::Lost));
                // Replaying the recorded actions gives the same state hash.
                let mut again = LocmGame::new(&config, seed);
                for action in &actions {
                    let code = LocmGame::action_code(*action);
                    again.step(LocmGame::action_from_code(code).unwrap()).unwrap();
                }
                assert_eq!(again.state_hash(), game.state_hash());
                assert!(matches!(again.status(), Status::Over(_)));
                // `play_out` plays the same game.
                let mut fresh = LocmBots::new([draft.clone(), DraftBot::Random], [battle, other]);
                assert_eq!(fresh.play_out(LocmGame::new(&config, seed)), game.winner().unwrap());
            }
        }
        assert!(winners[0] > 0 && winners[1] > 0, "{winners:?}");
    }
}
