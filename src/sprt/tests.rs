//! The sequential tests checked against an independent computation of
//! fishtest's formulas (`tests/data/sprt/`, see its SOURCE.md) and against
//! hand-worked cases; the error rates by simulation are in `simulate.rs`.

use super::*;

const REFERENCE: &str = include_str!("../../tests/data/sprt/llr-reference.tsv");

/// A test holding `counts` directly: three counts are games, five pairs.
fn with_counts(spec: SprtSpec, counts: &[u64]) -> Sprt {
    let mut sprt = Sprt::new(spec, if counts.len() == 5 { Unit::Pairs } else { Unit::Games });
    match counts.len() {
        3 => sprt.games.copy_from_slice(counts),
        5 => sprt.pairs.copy_from_slice(counts),
        other => panic!("{other} counts"),
    }
    sprt
}

#[test]
fn the_gsprt_matches_fishtest_on_every_reference_row() {
    let mut rows = 0;
    for (line_no, line) in REFERENCE.lines().enumerate().filter(|(_, line)| !line.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [model, h0, h1, counts, expected] = fields[..] else { panic!("line {}: {line:?}", line_no + 1) };
        let spec: SprtSpec = match model {
            "logistic" => format!("elo0={h0},elo1={h1}"),
            "normalized" => format!("nelo0={h0},nelo1={h1}"),
            other => panic!("line {}: model {other:?}", line_no + 1),
        }
        .parse()
        .unwrap();
        let counts: Vec<u64> = counts.split(' ').map(|count| count.parse().unwrap()).collect();
        let expected: f64 = expected.parse().unwrap();
        let found = with_counts(spec, &counts).llr();
        assert!((found - expected).abs() < 1e-6, "line {}: {line}: found {found}", line_no + 1);
        rows += 1;
    }
    assert_eq!(rows, 32);
}

#[test]
fn wald_counts_decisive_games_and_decides_at_its_bounds() {
    let spec: SprtSpec = "p0=0.5,p1=0.6,alpha=0.05,beta=0.05".parse().unwrap();
    let mut sprt = Sprt::new(spec, Unit::Games);
    // Each win adds ln 1.2 = 0.1823, each loss ln 0.8 = -0.2231, a draw
    // nothing; the upper bound ln 19 = 2.944 is reached at the 17th straight win.
    sprt.add_game(Points::Draw);
    for wins in 1..=17 {
        sprt.add_game(Points::Win);
        assert_eq!(sprt.verdict(), if wins < 17 { Verdict::Continue } else { Verdict::H1 }, "{wins} wins");
    }
    assert!((sprt.llr() - 17.0 * 1.2f64.ln()).abs() < 1e-12);
    let mut sprt = Sprt::new(spec, Unit::Games);
    (0..13).for_each(|_| sprt.add_game(Points::Loss));
    assert_eq!(sprt.verdict(), Verdict::Continue, "13 ln 0.8 = -2.90 is above -2.944");
    sprt.add_game(Points::Loss);
    assert_eq!(sprt.verdict(), Verdict::H0);
}

#[test]
fn a_pair_counts_its_sum_and_both_games() {
    let spec: SprtSpec = "elo0=0,elo1=35".parse().unwrap();
    let mut sprt = Sprt::new(spec, Unit::Pairs);
    for (first, second) in [(Points::Win, Points::Loss), (Points::Win, Points::Win), (Points::Draw, Points::Win)] {
        sprt.add_pair(first, second);
    }
    assert_eq!(sprt.pairs, [0, 0, 1, 1, 1]);
    assert_eq!(sprt.games, [1, 1, 4]);
    assert_eq!((sprt.games(), sprt.observations()), (6, 3));
    assert_eq!(sprt.llr(), with_counts(spec, &[0, 0, 1, 1, 1]).llr());
    let status = sprt.status();
    assert_eq!(status.pentanomial, Some([0, 0, 1, 1, 1]));
    assert_eq!(status.verdict, Verdict::Continue);
    assert!((status.estimate.unwrap().score - 0.75).abs() < 1e-15);
    assert_eq!(Sprt::new(spec, Unit::Pairs).llr(), 0.0, "no evidence before the first pair");
}

#[test]
fn a_sequential_test_decides_at_the_same_pair_in_any_arrival_order() {
    let spec: SprtSpec = "elo0=0,elo1=60".parse().unwrap();
    // A fixed stream of pairs, mostly won by the first side.
    let pattern = [(Points::Win, Points::Win), (Points::Win, Points::Loss), (Points::Win, Points::Win)];
    let pairs: Vec<Observation> = (0..200).map(|i| pattern[i % 3]).map(|(a, b)| Observation::Pair(a, b)).collect();
    let in_order = {
        let mut test = SequentialTest::new(Sprt::new(spec, Unit::Pairs));
        pairs.iter().enumerate().find_map(|(index, &pair)| test.record(index as u64, pair)).unwrap()
    };
    assert_eq!(in_order.verdict, Verdict::H1);
    assert!(in_order.observations > 3 && in_order.observations < 100, "{in_order:?}");
    // Backwards, in blocks, with repeats: the same decision at the same pair.
    let mut test = SequentialTest::new(Sprt::new(spec, Unit::Pairs));
    for block in (0..200usize).collect::<Vec<_>>().chunks(7).rev() {
        for &index in block.iter().rev() {
            test.record(index as u64, pairs[index]);
            test.record(index as u64, Observation::Pair(Points::Loss, Points::Loss));
        }
    }
    assert_eq!(test.decision(), Some(in_order));
    assert_eq!(test.sprt().observations(), in_order.observations);
    assert_eq!(test.waiting(), 0);
    // Missing the first pair: nothing is counted.
    let mut gap = SequentialTest::new(Sprt::new(spec, Unit::Pairs));
    (1..200).for_each(|index| assert_eq!(gap.record(index, pairs[index as usize]), None));
    assert_eq!((gap.sprt().observations(), gap.waiting()), (0, 199));
}
