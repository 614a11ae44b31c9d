//! Showing a sequential test: its state as text lines under a report, and
//! its LLR between the bounds on a progress bar.

use tickbot::session::sprt::Pairing;
use tickbot::session::{SessionTest, SessionVerdict};
use tickbot::sprt::{Decision, LlrGauge, SprtStatus, Unit, Verdict};

/// The lines `match locm --sprt` and `stats --sprt` print for a test, from
/// side `a`'s view; `decision` is when the test decided (if it did).
pub(crate) fn print_sprt(status: &SprtStatus, decision: Option<Decision>, a: &str) {
    let over = match status.unit {
        Unit::Games => "games",
        Unit::Pairs => "pairs of games",
    };
    print_sprt_over(status, decision, a, over);
}

/// [`print_sprt`] where an observation is what `over` says (in the plural).
fn print_sprt_over(status: &SprtStatus, decision: Option<Decision>, a: &str, over: &str) {
    println!("sprt        {} over {over}: {}", status.test, status.spec);
    let (h0, h1) = hypotheses(&status.spec);
    let verdict = match (status.verdict, decision) {
        (Verdict::H1, Some(decision)) => {
            format!("H1 accepted ({h1} rather than {h0}) after {} {over}", decision.observations)
        }
        (Verdict::H0, Some(decision)) => {
            format!("H0 accepted ({h0} rather than {h1}) after {} {over}", decision.observations)
        }
        (Verdict::H1, None) => format!("H1 ({h1} rather than {h0}): the LLR is at or above its upper bound"),
        (Verdict::H0, None) => format!("H0 ({h0} rather than {h1}): the LLR is at or below its lower bound"),
        (Verdict::Continue, _) => "undecided: the LLR is between its bounds (more games are needed)".to_string(),
    };
    println!("verdict     {verdict}");
    println!("llr         {:.3} (bounds {:.3} and {:.3})", status.llr + 0.0, status.bounds.lower, status.bounds.upper);
    let [losses, draws, wins] = status.losses_draws_wins;
    // A test over games counts each observation as one game (a paired
    // session's: one pair of games, A's result against B's).
    let counted = if status.unit == Unit::Games { over } else { "games" };
    let mut outcomes = format!("{} {counted}: {a} won {wins}, drew {draws}, lost {losses}", status.games);
    if let Some([ll, ld, even, dw, ww]) = status.pentanomial {
        outcomes += &format!("; pairs by {a}'s points: 0: {ll}, 1/2: {ld}, 1: {even}, 3/2: {dw}, 2: {ww}");
    }
    println!("outcomes    {outcomes}");
    if let Some(estimate) = &status.estimate {
        // Adding 0 turns -0.0 (a score of exactly 1/2) into 0.0.
        let (low, high) = (estimate.elo_interval.0 + 0.0, estimate.elo_interval.1 + 0.0);
        let mut line = format!("{:+.1} Elo for {a} (95% interval {low:+.1} to {high:+.1})", estimate.elo + 0.0);
        if let (Some(nelo), Some((low, high))) = (estimate.nelo, estimate.nelo_interval) {
            line += &format!(", normalized {:+.1} ({:+.1} to {:+.1})", nelo + 0.0, low + 0.0, high + 0.0);
        }
        line += &format!(", LOS {:.1}%", 100.0 * estimate.los);
        println!("elo         {line}");
    }
    if let Some(fixed) = status.fixed_size_games {
        println!("fixed size  a fixed-size test with the same alpha and beta needs about {fixed:.0} games");
    }
}

/// H0's and H1's settings, as `elo0=0` and `elo1=5`, from a canonical spec.
fn hypotheses(spec: &str) -> (&str, &str) {
    let mut parts = spec.split(',');
    (parts.next().unwrap_or(""), parts.next().unwrap_or(""))
}

/// What a progress bar shows of a running test: its LLR between its bounds.
pub(crate) fn llr_status(gauge: &LlrGauge, lower: f64, upper: f64) -> impl Fn() -> String + Send + 'static {
    let gauge = gauge.clone();
    move || {
        let (llr, games) = gauge.get();
        if games == 0 { String::new() } else { format!("LLR {llr:+.2} in [{lower:.2}, {upper:.2}]") }
    }
}

/// The lines `run`, `merge` and `stats` print for a session's test between
/// its entries A and B.
pub(crate) fn print_session_test(verdict: &SessionVerdict, test: &SessionTest) {
    let pairs = match verdict.pairing {
        Pairing::Measure(measure) => {
            format!("{} pairs (one game each on a seed, by {})", verdict.pairs, measure.name())
        }
        Pairing::SeatsSwapped => format!("{} pairs (one draft, seats swapped)", verdict.pairs),
    };
    println!("session     {} against {}: {pairs} recorded", test.a_name, test.b_name);
    match verdict.pairing {
        Pairing::Measure(_) => print_sprt_over(&verdict.status, verdict.decision, &test.view, "pairs"),
        Pairing::SeatsSwapped => print_sprt(&verdict.status, verdict.decision, &test.view),
    }
}
