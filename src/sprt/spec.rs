//! A sequential test's settings as people write them
//! (`elo0=0,elo1=5,alpha=0.05,beta=0.05`): which hypotheses, which error
//! rates, and the bounds on the log-likelihood ratio they give.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// The two hypotheses a test chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum Hypotheses {
    /// Wald's SPRT on decisive games: H0 the first side wins a decisive game
    /// with probability `p0`, H1 with `p1` (draws carry no information).
    WinRate { p0: f64, p1: f64 },
    /// The GSPRT on the expected score: H0 the first side is `elo0` logistic
    /// Elo points stronger, H1 `elo1`.
    LogisticElo { elo0: f64, elo1: f64 },
    /// The GSPRT on the t-value: H0 `nelo0` normalized Elo, H1 `nelo1`.
    NormalizedElo { nelo0: f64, nelo1: f64 },
}

impl Hypotheses {
    /// The two hypotheses' values, H0's first.
    pub fn values(self) -> (f64, f64) {
        match self {
            Hypotheses::WinRate { p0, p1 } => (p0, p1),
            Hypotheses::LogisticElo { elo0, elo1 } => (elo0, elo1),
            Hypotheses::NormalizedElo { nelo0, nelo1 } => (nelo0, nelo1),
        }
    }

    /// The key names of H0's and H1's values in a spec.
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Hypotheses::WinRate { .. } => ("p0", "p1"),
            Hypotheses::LogisticElo { .. } => ("elo0", "elo1"),
            Hypotheses::NormalizedElo { .. } => ("nelo0", "nelo1"),
        }
    }

    /// What the test is, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Hypotheses::WinRate { .. } => "Wald's SPRT on decisive games",
            Hypotheses::LogisticElo { .. } => "GSPRT, logistic Elo",
            Hypotheses::NormalizedElo { .. } => "GSPRT, normalized Elo",
        }
    }
}

/// A sequential test's settings: the hypotheses, the largest chance of
/// accepting H1 when H0 holds (`alpha`) and of accepting H0 when H1 holds
/// (`beta`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtSpec {
    pub hypotheses: Hypotheses,
    pub alpha: f64,
    pub beta: f64,
}

/// The LLR's stopping bounds: accept H0 at or below `lower`, H1 at or above
/// `upper` (Wald's approximations ln(beta / (1 - alpha)) and
/// ln((1 - beta) / alpha)).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bounds {
    pub lower: f64,
    pub upper: f64,
}

impl SprtSpec {
    pub fn bounds(&self) -> Bounds {
        Bounds { lower: (self.beta / (1.0 - self.alpha)).ln(), upper: ((1.0 - self.beta) / self.alpha).ln() }
    }
}

/// Why a spec was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message} (expected e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05, nelo0=0,nelo1=5 or p0=0.5,p1=0.55)")]
pub struct SpecError {
    message: String,
}

fn refuse(message: impl Into<String>) -> SpecError {
    SpecError { message: message.into() }
}

/// The largest |Elo| a hypothesis may name: beyond it the expected score
/// is within 0.3% of 0 or 1 and no test of a few games would separate them.
const MAX_ELO: f64 = 1000.0;

/// The largest |normalized Elo|: from about 230 on pairs (340 on games) the
/// t-value fit fishtest uses has no solution on any outcomes.
const MAX_NELO: f64 = 200.0;

impl FromStr for SprtSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<SprtSpec, SpecError> {
        let mut values: Vec<(&str, f64)> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| refuse(format!("{item:?} is not KEY=VALUE")))?;
            let key = key.trim();
            if !["p0", "p1", "elo0", "elo1", "nelo0", "nelo1", "alpha", "beta"].contains(&key) {
                return Err(refuse(format!(
                    "unknown key {key:?}: use p0 and p1, elo0 and elo1, or nelo0 and nelo1, with alpha and beta"
                )));
            }
            let number: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|number: &f64| number.is_finite())
                .ok_or_else(|| refuse(format!("{key}={value}: not a number")))?;
            if values.iter().any(|(seen, _)| *seen == key) {
                return Err(refuse(format!("{key} is given twice")));
            }
            values.push((key, number));
        }
        let get = |key: &str| values.iter().find(|(seen, _)| *seen == key).map(|&(_, value)| value);
        let pairs = [("p0", "p1"), ("elo0", "elo1"), ("nelo0", "nelo1")];
        let named: Vec<&(&str, &str)> =
            pairs.iter().filter(|(h0, h1)| get(h0).is_some() || get(h1).is_some()).collect();
        let &&(key0, key1) = match named.as_slice() {
            [one] => one,
            [] => return Err(refuse("no hypotheses: give p0 and p1, elo0 and elo1, or nelo0 and nelo1")),
            _ => return Err(refuse("give one kind of hypotheses: p0/p1, elo0/elo1 or nelo0/nelo1")),
        };
        let (Some(h0), Some(h1)) = (get(key0), get(key1)) else {
            return Err(refuse(format!("{key0} and {key1} go together: give both")));
        };
        if h0 >= h1 {
            return Err(refuse(format!("{key0} must be below {key1} (H1 is the better hypothesis)")));
        }
        let hypotheses = match key0 {
            "p0" if h0 <= 0.0 || h1 >= 1.0 => {
                return Err(refuse("p0 and p1 are win probabilities: both strictly between 0 and 1"));
            }
            "p0" => Hypotheses::WinRate { p0: h0, p1: h1 },
            "elo0" if h0.abs().max(h1.abs()) > MAX_ELO => {
                return Err(refuse(format!("elo0 and elo1 must lie within ±{MAX_ELO}")));
            }
            "elo0" => Hypotheses::LogisticElo { elo0: h0, elo1: h1 },
            _ if h0.abs().max(h1.abs()) > MAX_NELO => {
                return Err(refuse(format!("nelo0 and nelo1 must lie within ±{MAX_NELO}")));
            }
            _ => Hypotheses::NormalizedElo { nelo0: h0, nelo1: h1 },
        };
        let (alpha, beta) = (get("alpha").unwrap_or(0.05), get("beta").unwrap_or(0.05));
        if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
            return Err(refuse(format!(
                "alpha={alpha}, beta={beta}: each must be above 0 and together below 1 (0.05 is usual)"
            )));
        }
        Ok(SprtSpec { hypotheses, alpha, beta })
    }
}

impl fmt::Display for SprtSpec {
    /// The canonical spec: parses back to the same settings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (key0, key1) = self.hypotheses.keys();
        let (h0, h1) = self.hypotheses.values();
        write!(f, "{key0}={h0},{key1}={h1},alpha={},beta={}", self.alpha, self.beta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_print_back_and_default_to_five_percent_errors() {
        let spec: SprtSpec = "elo0=0, elo1=5".parse().unwrap();
        assert_eq!(
            spec,
            SprtSpec { hypotheses: Hypotheses::LogisticElo { elo0: 0.0, elo1: 5.0 }, alpha: 0.05, beta: 0.05 }
        );
        assert_eq!(spec.to_string(), "elo0=0,elo1=5,alpha=0.05,beta=0.05");
        for text in ["p0=0.5,p1=0.55,alpha=0.01,beta=0.1", "nelo0=-1.5,nelo1=3,alpha=0.05,beta=0.05"] {
            let spec: SprtSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(spec.to_string().parse::<SprtSpec>().unwrap(), spec);
        }
        let bounds = spec.bounds();
        assert!((bounds.lower - (0.05f64 / 0.95).ln()).abs() < 1e-15 && (bounds.upper + bounds.lower).abs() < 1e-15);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let refused = |text: &str, part: &str| {
            let message = text.parse::<SprtSpec>().unwrap_err().to_string();
            assert!(message.contains(part), "{text}: {message}");
            assert!(message.contains("expected e.g."), "{message}");
        };
        refused("", "no hypotheses");
        refused("elo0=0", "go together");
        refused("elo0=5,elo1=0", "must be below");
        refused("elo0=0,elo1=5,p0=0.5,p1=0.6", "one kind");
        refused("p0=0,p1=0.6", "strictly between 0 and 1");
        refused("elo0=0,elo1=5,alpha=0.6,beta=0.5", "together below 1");
        refused("elo0=0,elo1=5,gamma=1", "unknown key \"gamma\"");
        refused("elo0=0,elo1=five", "not a number");
        refused("elo0=0,elo1=nan", "not a number");
        refused("elo0=0,elo0=1,elo1=5", "twice");
        refused("elo0=0,elo1", "not KEY=VALUE");
        refused("nelo0=0,nelo1=500", "within ±200");
    }
}
