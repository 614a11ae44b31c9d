//! One session split over many machines: shard `I/N` plays exactly the
//! games whose index in their entry is `I` modulo `N`, with the session's
//! own ids and seeds, so the shards together play every game of the
//! session once. Also which shard this process is, from `--shard`, or from
//! the array-index variables of the batch engines (Kubernetes Indexed
//! Jobs, Slurm job arrays, AWS Batch array jobs), read through a lookup
//! function so that no code here touches the process environment.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Shard `index` of `count`: the games whose index in their entry is
/// `index` modulo `count`. Always `index < count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ShardFields")]
pub struct Shard {
    index: u64,
    count: u64,
}

/// A shard as written in a manifest, checked on the way in.
#[derive(Deserialize)]
struct ShardFields {
    index: u64,
    count: u64,
}

impl TryFrom<ShardFields> for Shard {
    type Error = String;

    fn try_from(fields: ShardFields) -> Result<Shard, String> {
        Shard::new(fields.index, fields.count)
    }
}

impl Shard {
    /// The whole session: one shard of one.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`; refused unless `index < count`.
    pub(crate) fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!("shard {index} of {count}: shards are numbered 0 to {}", count - 1));
        }
        Ok(Shard { index, count })
    }

    pub fn index(&self) -> u64 {
        self.index
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether this shard plays game `index` of an entry.
    pub(crate) fn plays(&self, index: u64) -> bool {
        index % self.count == self.index
    }

    /// How many of an entry's first `games` games this shard plays.
    pub(crate) fn games_of(&self, games: u64) -> u64 {
        if games <= self.index { 0 } else { (games - self.index).div_ceil(self.count) }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `0/3`: shard I (counted from 0) of N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let expected = || format!("expected I/N, shard I (counted from 0) of N, like 0/3; got {text:?}");
        let (index, count) = text.split_once('/').ok_or_else(expected)?;
        let number = |word: &str| word.trim().parse::<u64>().map_err(|_| expected());
        Shard::new(number(index)?, number(count)?)
    }
}

/// Kubernetes Indexed Jobs: the pod's completion index (0 to completions - 1).
pub const KUBERNETES_INDEX: &str = "JOB_COMPLETION_INDEX";
/// Slurm job arrays: the task's array index.
pub const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
/// Slurm job arrays: the lowest index of the array, subtracted from the task's.
pub const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
/// Slurm job arrays: the number of tasks.
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// AWS Batch array jobs: the child job's index (0 to size - 1).
pub(crate) const AWS_BATCH_INDEX: &str = "AWS_BATCH_JOB_ARRAY_INDEX";
/// Our own: the shard count where the engine gives an index but no count
/// (Kubernetes and AWS Batch).
pub const SHARD_COUNT: &str = "TICKBOT_SHARD_COUNT";

/// The variables that give a shard's index, in the order they are reported.
pub const INDEX_VARIABLES: [&str; 3] = [KUBERNETES_INDEX, SLURM_INDEX, AWS_BATCH_INDEX];
/// The variables that give the shard count, after `--shard-count`.
pub const COUNT_VARIABLES: [&str; 2] = [SHARD_COUNT, SLURM_COUNT];

/// A shard and where it came from, for messages ("--shard 1/3",
/// "JOB_COMPLETION_INDEX=1 and TICKBOT_SHARD_COUNT=3").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardChoice {
    pub shard: Shard,
    pub source: String,
}

/// Why the shard could not be chosen. Each names the flag or variable and
/// its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("{variable}={value:?}: expected {expected}")]
    Invalid { variable: String, value: String, expected: String },
    #[error(
        "{first}={first_value} and {second}={second_value} disagree on the {what}; give --shard I/N to choose \
         (it wins over every variable)"
    )]
    Conflict { what: &'static str, first: String, first_value: String, second: String, second_value: String },
    #[error(
        "{variable}={value} gives the shard's index but nothing gives the shard count: give --shard-count N or set \
         {SHARD_COUNT}=N"
    )]
    NoCount { variable: String, value: String },
    #[error(
        "--shard-count {count} needs a shard index: give --shard I/N, or run where one of {} is set",
        INDEX_VARIABLES.join(", ")
    )]
    NoIndex { count: u64 },
    #[error("{index_source} is not below the shard count {count} ({count_source}): shards are numbered 0 to N-1")]
    OutOfRange { index_source: String, count: u64, count_source: String },
}

/// The shard this process plays, if any. Precedence: `--shard I/N` wins
/// over everything (the variables are then not read). Otherwise the index
/// comes from `JOB_COMPLETION_INDEX`, `SLURM_ARRAY_TASK_ID` (less
/// `SLURM_ARRAY_TASK_MIN`) or `AWS_BATCH_JOB_ARRAY_INDEX`, and the count
/// from `--shard-count`, else `TICKBOT_SHARD_COUNT` or
/// `SLURM_ARRAY_TASK_COUNT`. Two index variables (or two count variables)
/// that are both set must agree; a value that is not a number, or an index
/// not below the count, is refused. No index anywhere: `None`, the whole
/// session. `lookup` reads a variable (`std::env::var(name).ok()` in the
/// binary); an empty value counts as unset.
pub fn choose_shard(
    flag: Option<Shard>,
    count_flag: Option<u64>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<ShardChoice>, ShardError> {
    if let Some(shard) = flag {
        return Ok(Some(ShardChoice { shard, source: format!("--shard {shard}") }));
    }
    let read = |name: &str| lookup(name).map(|value| value.trim().to_string()).filter(|value| !value.is_empty());
    let number = |name: &str, value: &str, expected: &str| {
        value.parse::<u64>().map_err(|_| ShardError::Invalid {
            variable: name.into(),
            value: value.into(),
            expected: expected.into(),
        })
    };
    // Every index variable that is set: (its name and text, the index).
    let mut indices: Vec<(String, String, u64)> = Vec::new();
    for name in INDEX_VARIABLES {
        let Some(value) = read(name) else { continue };
        let mut index = number(name, &value, "a whole number, the shard's index counted from 0")?;
        let mut shown = value.clone();
        if name == SLURM_INDEX {
            if let Some(min) = read(SLURM_MIN) {
                let low = number(SLURM_MIN, &min, "a whole number, the array's lowest index")?;
                index = index.checked_sub(low).ok_or_else(|| ShardError::Invalid {
                    variable: name.into(),
                    value: value.clone(),
                    expected: format!("an index at or above {SLURM_MIN}={min}"),
                })?;
                shown = format!("{value} (less {SLURM_MIN}={min})");
            }
        }
        indices.push((name.to_string(), shown, index));
    }
    let Some((index_name, index_text, index)) = indices.first().cloned() else {
        return match count_flag {
            Some(count) => Err(ShardError::NoIndex { count }),
            None => Ok(None),
        };
    };
    if let Some((other, other_text, _)) = indices.iter().find(|(_, _, other)| *other != index) {
        return Err(ShardError::Conflict {
            what: "shard index",
            first: index_name,
            first_value: index_text,
            second: other.clone(),
            second_value: other_text.clone(),
        });
    }
    let (count, count_source) = match count_flag {
        Some(count) => (count, format!("--shard-count {count}")),
        None => {
            let mut counts: Vec<(&str, String, u64)> = Vec::new();
            for name in COUNT_VARIABLES {
                if let Some(value) = read(name) {
                    let count = number(name, &value, "a whole number of shards, at least 1")?;
                    if count == 0 {
                        return Err(ShardError::Invalid {
                            variable: name.into(),
                            value,
                            expected: "a whole number of shards, at least 1".into(),
                        });
                    }
                    counts.push((name, value, count));
                }
            }
            match counts.as_slice() {
                [] => return Err(ShardError::NoCount { variable: index_name, value: index_text }),
                [(first, first_value, count), rest @ ..] => {
                    if let Some((second, second_value, _)) = rest.iter().find(|(_, _, other)| other != count) {
                        return Err(ShardError::Conflict {
                            what: "shard count",
                            first: first.to_string(),
                            first_value: first_value.clone(),
                            second: second.to_string(),
                            second_value: second_value.clone(),
                        });
                    }
                    (*count, format!("{first}={first_value}"))
                }
            }
        }
    };
    let index_source = format!("{index_name}={index_text}");
    let shard = Shard::new(index, count).map_err(|_| ShardError::OutOfRange {
        index_source: index_source.clone(),
        count,
        count_source: count_source.clone(),
    })?;
    Ok(Some(ShardChoice { shard, source: format!("{index_source} and {count_source}") }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `choose_shard` over a made-up environment.
    fn choose(flag: Option<&str>, count: Option<u64>, vars: &[(&str, &str)]) -> Result<Option<Shard>, ShardError> {
        let flag = flag.map(|text| text.parse().unwrap());
        let lookup = |name: &str| vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string());
        choose_shard(flag, count, lookup).map(|choice| choice.map(|choice| choice.shard))
    }

    #[track_caller]
    fn check(flag: Option<&str>, count: Option<u64>, vars: &[(&str, &str)], expected: Option<(u64, u64)>) {
        let expected = expected.map(|(index, count)| Shard::new(index, count).unwrap());
        assert_eq!(choose(flag, count, vars), Ok(expected), "{flag:?} {count:?} {vars:?}");
    }

    #[track_caller]
    fn check_error(flag: Option<&str>, count: Option<u64>, vars: &[(&str, &str)], fragments: &[&str]) {
        let message = choose(flag, count, vars).unwrap_err().to_string();
        for fragment in fragments {
            assert!(message.contains(fragment), "{vars:?}: {message:?} should say {fragment:?}");
        }
    }

    #[test]
    fn each_engine_gives_the_shard_and_the_flag_wins() {
        check(None, None, &[], None);
        check(None, None, &[(SHARD_COUNT, "4")], None);
        // Kubernetes: the index from the pod, the count from our variable or the flag.
        check(None, None, &[(KUBERNETES_INDEX, "2"), (SHARD_COUNT, "3")], Some((2, 3)));
        check(None, Some(5), &[(KUBERNETES_INDEX, "4"), (SHARD_COUNT, "3")], Some((4, 5)));
        // Slurm: index less the array's lowest index, count from Slurm.
        check(None, None, &[(SLURM_INDEX, "1"), (SLURM_COUNT, "3")], Some((1, 3)));
        check(None, None, &[(SLURM_INDEX, "3"), (SLURM_MIN, "1"), (SLURM_COUNT, "3")], Some((2, 3)));
        // AWS Batch: index only.
        check(None, None, &[(AWS_BATCH_INDEX, "0"), (SHARD_COUNT, "2")], Some((0, 2)));
        check(None, Some(2), &[(AWS_BATCH_INDEX, " 1 ")], Some((1, 2)));
        // Agreeing variables are fine; an empty one counts as unset.
        check(None, None, &[(KUBERNETES_INDEX, "1"), (SLURM_INDEX, "1"), (SLURM_COUNT, "2")], Some((1, 2)));
        check(None, None, &[(KUBERNETES_INDEX, ""), (AWS_BATCH_INDEX, "1"), (SHARD_COUNT, "2")], Some((1, 2)));
        // The flag wins over every variable, even broken or conflicting ones.
        let noise = [(KUBERNETES_INDEX, "x"), (SLURM_INDEX, "7"), (SHARD_COUNT, "0")];
        check(Some("1/4"), None, &noise, Some((1, 4)));
    }

    #[test]
    fn bad_or_conflicting_variables_are_refused_naming_them() {
        check_error(None, None, &[(KUBERNETES_INDEX, "two"), (SHARD_COUNT, "3")], &["JOB_COMPLETION_INDEX=\"two\""]);
        check_error(None, None, &[(KUBERNETES_INDEX, "1"), (SHARD_COUNT, "0")], &["TICKBOT_SHARD_COUNT=\"0\""]);
        check_error(None, None, &[(KUBERNETES_INDEX, "1"), (SHARD_COUNT, "-3")], &["TICKBOT_SHARD_COUNT=\"-3\""]);
        check_error(
            None,
            None,
            &[(KUBERNETES_INDEX, "1"), (AWS_BATCH_INDEX, "2"), (SHARD_COUNT, "3")],
            &["JOB_COMPLETION_INDEX=1 and AWS_BATCH_JOB_ARRAY_INDEX=2 disagree on the shard index", "--shard I/N"],
        );
        check_error(
            None,
            None,
            &[(SLURM_INDEX, "1"), (SLURM_COUNT, "3"), (SHARD_COUNT, "4")],
            &["TICKBOT_SHARD_COUNT=4 and SLURM_ARRAY_TASK_COUNT=3 disagree on the shard count"],
        );
        check_error(None, None, &[(AWS_BATCH_INDEX, "1")], &["AWS_BATCH_JOB_ARRAY_INDEX=1", "--shard-count N"]);
        check_error(None, Some(3), &[], &["--shard-count 3 needs a shard index", "JOB_COMPLETION_INDEX"]);
        check_error(
            None,
            None,
            &[(KUBERNETES_INDEX, "3"), (SHARD_COUNT, "3")],
            &["JOB_COMPLETION_INDEX=3 is not below the shard count 3 (TICKBOT_SHARD_COUNT=3)"],
        );
        check_error(
            None,
            None,
            &[(SLURM_INDEX, "0"), (SLURM_MIN, "1"), (SLURM_COUNT, "2")],
            &["SLURM_ARRAY_TASK_MIN=1"],
        );
    }

    #[test]
    fn shards_split_every_entry_and_parse_from_text() {
        assert_eq!("1/3".parse::<Shard>(), Shard::new(1, 3));
        for bad in ["3/3", "1", "a/3", "1/0", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        for games in 0..10 {
            let shards: Vec<Shard> = (0..3).map(|index| Shard::new(index, 3).unwrap()).collect();
            let played: u64 = shards.iter().map(|shard| shard.games_of(games)).sum();
            assert_eq!(played, games);
            for (number, shard) in shards.iter().enumerate() {
                assert_eq!(shard.games_of(games), (0..games).filter(|&index| shard.plays(index)).count() as u64);
                assert_eq!(shard.plays(number as u64 + 3), shard.plays(number as u64));
            }
        }
        let text = serde_json::to_string(&Shard::new(2, 5).unwrap()).unwrap();
        assert_eq!(text, r#"{"index":2,"count":5}"#);
        assert!(serde_json::from_str::<Shard>(r#"{"index":5,"count":5}"#).is_err());
    }
}
