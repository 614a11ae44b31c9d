//! LOCM's bots, and the registry that names them. A game has two seats and
//! each seat two bots: a draft bot for the 30 picks, a battle bot after
//! them; [`seats::LocmBots`], the planner, plays both seats.
//!
//! - Draft bots ([`draft`]): `random` and `max-attack`; the published
//!   baselines `closetai`, `icebox`, `coac` and `chad` ([`baselines`], their
//!   per-card tables); `genome:FILE` and `evolved`, a per-card priority
//!   vector ([`genome`]).
//! - Battle bots ([`battle`]): `random`, `pass`, `max-attack`, `greedy`
//!   ([`greedy`]), and `search` with its fast mode `search:fast` ([`search`]).
//!
//! Every command that names a bot resolves the name here: `play`, `run` and
//! session files through [`PlannerArgs`] (both seats' bots); `match`,
//! `bench`, `evolve` and `eval`, whose flags mean something else (two
//! drafters compared, one drafter measured, one battle bot for a whole
//! evolution), through [`seat_pair`], [`DraftChoice`] and [`BattleBot`].
//! The caller reads a `genome:FILE` (nothing under `game/` reads a file)
//! and hands it to [`DraftChoice::bot`].

pub(crate) mod baselines;
pub(crate) mod battle;
pub mod draft;
pub mod genome;
pub(crate) mod greedy;
pub mod search;
pub mod seats;

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use self::draft::DraftBot;
use self::genome::Genome;
use self::seats::LocmBots;
use crate::plan::ChoiceError;

/// The draft bots of `play`, `run` and session files when none is named.
const DEFAULT_DRAFT: &str = "closetai,icebox";
/// Their battle bots likewise.
const DEFAULT_BATTLE: &str = "greedy,greedy";

/// The bot flags of `play locm`, `run locm` and a session's LOCM entries:
/// both seats' draft and battle bots.
#[derive(Clone, Debug, Args)]
pub struct PlannerArgs {
    /// Player 0's and player 1's draft bots: random, max-attack, closetai, icebox,
    /// coac, chad, evolved (the bundled evolved genome), or genome:FILE (one priority
    /// per card, highest of the three is picked; `tickbot evolve draft` writes them).
    /// In `play locm` and `run locm`, exec:COMMAND: a program that plays that seat's
    /// whole game over the LOCM contest protocol (docs/protocols.md).
    #[arg(long, value_name = "A,B", default_value = DEFAULT_DRAFT)]
    pub(crate) draft: String,
    /// Player 0's and player 1's battle bots: random, pass, max-attack, greedy, search
    /// or search:fast (one name for both seats).
    #[arg(long, value_name = "A,B", default_value = DEFAULT_BATTLE)]
    pub(crate) battle: String,
}

impl Default for PlannerArgs {
    fn default() -> PlannerArgs {
        PlannerArgs { draft: DEFAULT_DRAFT.to_string(), battle: DEFAULT_BATTLE.to_string() }
    }
}

impl PlannerArgs {
    /// The bots these flags name. Each `genome:FILE` is read by
    /// `read_genome`, in seat order; the first mistake, in flag order, is
    /// the error.
    pub fn make<E: From<ChoiceError>>(
        &self,
        mut read_genome: impl FnMut(&Path) -> Result<Genome, E>,
    ) -> Result<LocmBots, E> {
        let [draft0, draft1] = seat_pair(&self.draft, "--draft", true)?;
        let [battle0, battle1] = seat_pair(&self.battle, "--battle", true)?;
        let draft =
            [DraftChoice::parse(draft0)?.bot(&mut read_genome)?, DraftChoice::parse(draft1)?.bot(&mut read_genome)?];
        let battle = [BattleBot::named(battle0)?, BattleBot::named(battle1)?];
        Ok(LocmBots::new(draft, battle))
    }
}

impl PlannerArgs {
    /// Player 0's and player 1's draft and battle names, as given.
    pub fn seat_names(&self) -> Result<([&str; 2], [&str; 2]), ChoiceError> {
        Ok((seat_pair(&self.draft, "--draft", true)?, seat_pair(&self.battle, "--battle", true)?))
    }
}

/// `A,B` as the names of two seats (or sides); with `one_for_both`, a
/// single name stands for both. `flag` names the flag in the error.
pub fn seat_pair<'a>(text: &'a str, flag: &str, one_for_both: bool) -> Result<[&'a str; 2], ChoiceError> {
    let names: Vec<&str> = text.split(',').map(str::trim).collect();
    match names[..] {
        [a, b] => Ok([a, b]),
        [a] if one_for_both => Ok([a, a]),
        _ => Err(ChoiceError::new(format!("{flag}: expected two names separated by a comma, got {text:?}"))),
    }
}

/// The built-in draft bots, by their names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DraftName {
    /// Uniform among the three cards offered.
    Random,
    /// The creature with the highest attack; the first card when none is a creature.
    MaxAttack,
    /// ClosetAI's per-card score table.
    #[value(name = "closetai")]
    ClosetAi,
    /// Icebox's linear formula, as a per-card table.
    Icebox,
    /// Coac's pick order, switching to its creature lists while short of creatures.
    Coac,
    /// Chad's per-card weights for its seat.
    Chad,
    /// The bundled evolved genome (`maps/locm/evolved-draft.txt`).
    Evolved,
}

impl DraftName {
    /// The built-in drafter of `name`.
    pub fn from_name(name: &str) -> Option<DraftName> {
        ValueEnum::from_str(name, false).ok()
    }

    /// The bot it names.
    pub fn bot(self) -> DraftBot {
        match self {
            DraftName::Random => DraftBot::Random,
            DraftName::MaxAttack => DraftBot::MaxAttack,
            DraftName::ClosetAi => DraftBot::ClosetAi,
            DraftName::Icebox => DraftBot::Icebox,
            DraftName::Coac => DraftBot::Coac,
            DraftName::Chad => DraftBot::Chad,
            DraftName::Evolved => DraftBot::Evolved,
        }
    }

    /// Every built-in name, as a sentence: "random, max-attack, ... or evolved".
    pub(crate) fn all() -> String {
        one_of(DraftName::value_variants().iter().map(|name| name.bot().name()))
    }
}

/// A draft bot as a flag names it: a built-in, or `genome:FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DraftChoice {
    Named(DraftName),
    GenomeFile(PathBuf),
}

impl DraftChoice {
    /// The drafter `name` stands for.
    pub fn parse(name: &str) -> Result<DraftChoice, ChoiceError> {
        if let Some(path) = name.strip_prefix("genome:") {
            return Ok(DraftChoice::GenomeFile(PathBuf::from(path)));
        }
        DraftName::from_name(name).map(DraftChoice::Named).ok_or_else(|| {
            let names = one_of(DraftName::value_variants().iter().map(|name| name.bot().name()).chain(["genome:FILE"]));
            ChoiceError::new(format!("unknown draft bot {name:?}: use {names}"))
        })
    }

    /// The bot; a genome file is read by `read_genome`.
    pub fn bot<E>(&self, read_genome: impl FnOnce(&Path) -> Result<Genome, E>) -> Result<DraftBot, E> {
        match self {
            DraftChoice::Named(name) => Ok(name.bot()),
            DraftChoice::GenomeFile(path) => Ok(DraftBot::Genome(std::sync::Arc::new(read_genome(path)?))),
        }
    }
}

/// A battle strategy, by the names `--battle` takes. What each does is in
/// [`battle`] and [`greedy`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BattleBot {
    /// Uniform among the legal actions, ending the turn included.
    Random,
    /// Always ends the turn.
    Pass,
    /// Summons the strongest affordable creature it can, then attacks with its
    /// strongest ready creature (the opponent if allowed, else the first guard), then
    /// ends the turn. Never uses items.
    MaxAttack,
    /// Takes the single action whose result scores best, until ending the turn scores
    /// at least as well.
    Greedy,
    /// Searches the turn's action sequences, scoring each end of turn after the
    /// opponent's likely reply (a budget of 4,000 scored states per turn).
    Search,
    /// `search` with a budget of 500 scored states per turn, for evolution.
    #[value(name = "search:fast")]
    SearchFast,
}

impl BattleBot {
    /// The bot's name on the command line and in replay headers.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BattleBot::Random => "random",
            BattleBot::Pass => "pass",
            BattleBot::MaxAttack => "max-attack",
            BattleBot::Greedy => "greedy",
            BattleBot::Search => "search",
            BattleBot::SearchFast => "search:fast",
        }
    }

    /// The bot of a command-line name.
    pub(crate) fn from_name(name: &str) -> Option<BattleBot> {
        ValueEnum::from_str(name, false).ok()
    }

    /// Every name, as a sentence: "random, pass, max-attack, greedy, search or search:fast".
    pub(crate) fn all() -> String {
        one_of(BattleBot::value_variants().iter().map(|bot| bot.name()))
    }

    /// The bot of `name`, or the error that lists the names.
    pub fn named(name: &str) -> Result<BattleBot, ChoiceError> {
        BattleBot::from_name(name)
            .ok_or_else(|| ChoiceError::new(format!("unknown battle bot {name:?}: use {}", BattleBot::all())))
    }
}

/// `a, b or c`.
fn one_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_the_bot_of_that_name() {
        for &name in DraftName::value_variants() {
            let clap_name = name.to_possible_value().unwrap().get_name().to_string();
            assert_eq!(name.bot().name(), clap_name);
            assert_eq!(DraftChoice::parse(&clap_name), Ok(DraftChoice::Named(name)));
        }
        for &bot in BattleBot::value_variants() {
            assert_eq!(bot.name(), bot.to_possible_value().unwrap().get_name());
            assert_eq!(BattleBot::from_name(bot.name()), Some(bot));
        }
        assert_eq!(DraftName::all(), "random, max-attack, closetai, icebox, coac, chad or evolved");
        assert_eq!(BattleBot::all(), "random, pass, max-attack, greedy, search or search:fast");
    }

    #[test]
    fn mistakes_name_the_flag_or_the_bot_and_list_the_choices() {
        let error = DraftChoice::parse("wizard").unwrap_err().to_string();
        assert_eq!(
            error,
            "unknown draft bot \"wizard\": use random, max-attack, closetai, icebox, coac, chad, evolved or genome:FILE"
        );
        let error = BattleBot::named("smart").unwrap_err().to_string();
        assert_eq!(error, "unknown battle bot \"smart\": use random, pass, max-attack, greedy, search or search:fast");
        assert_eq!(seat_pair("greedy", "--battle", true), Ok(["greedy", "greedy"]));
        assert_eq!(seat_pair(" a , b ", "--draft", false), Ok(["a", "b"]));
        let error = seat_pair("icebox", "--draft", false).unwrap_err().to_string();
        assert_eq!(error, "--draft: expected two names separated by a comma, got \"icebox\"");
        assert!(seat_pair("a,b,c", "--draft", true).is_err());
    }

    #[test]
    fn the_seats_bots_are_made_in_flag_order_and_genome_files_are_read_by_the_caller() {
        let args = PlannerArgs { draft: "genome:a.txt,chad".to_string(), battle: "pass".to_string() };
        let mut read = Vec::new();
        let bots = args
            .make(|path| {
                read.push(path.to_path_buf());
                Ok::<_, ChoiceError>(Genome { priorities: vec![1.0; 160] })
            })
            .unwrap();
        assert_eq!(read, [PathBuf::from("a.txt")]);
        assert_eq!((bots.draft[0].name(), bots.draft[1].name()), ("genome", "chad"));
        assert_eq!(bots.battle, [BattleBot::Pass; 2]);
        let defaults = PlannerArgs::default().make(|_| -> Result<Genome, ChoiceError> { unreachable!() }).unwrap();
        assert_eq!((defaults.draft[0].name(), defaults.draft[1].name()), ("closetai", "icebox"));
        assert_eq!(defaults.battle, [BattleBot::Greedy; 2]);
        let bad = PlannerArgs { draft: "genome:a.txt,wizard".to_string(), battle: "greedy".to_string() };
        let error = bad.make(|_| Ok::<_, ChoiceError>(Genome { priorities: Vec::new() })).unwrap_err();
        assert!(error.to_string().starts_with("unknown draft bot \"wizard\""), "{error}");
    }
}
