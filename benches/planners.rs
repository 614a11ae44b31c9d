//! Criterion benchmarks of the planners' cost per move. Each benchmark starts
//! from positions reached by playing seeded games forward, so it measures the
//! planner on the boards it really meets, not on an empty one.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tickbot::game::snake::plan::bfs_tail::BfsTail;
use tickbot::game::snake::plan::cycle::Cycle;
use tickbot::game::snake::{Config, Dir, SnakeGame, SnakeSetup, Start, StartRule};
use tickbot::game::{Game, Status};
use tickbot::plan::{Budget, Planner};
use tickbot::rng::derive_seed;

/// Moves timed in one run: the planner keeps a record of the current meal,
/// so it is timed over consecutive moves of one game, not on a position
/// replayed out of context (which it would take for a new game each time).
const MOVES_PER_BATCH: u64 = 32;

/// The first position of a seeded game on `config` where the snake, played
/// by `planner`, has just grown to `length` cells and has at least
/// [`MOVES_PER_BATCH`] moves still to play.
fn position<P: Planner<SnakeGame>>(config: &Config, length: usize, mut planner: P) -> SnakeGame {
    for index in 0.. {
        let mut game = SnakeGame::new(config, derive_seed(0, index));
        while game.status() == Status::Running && game.len() < length {
            let decision = planner.next_action(&game, &Budget::unlimited()).expect("the planner answers");
            game.step(decision.action).expect("the planner plays legal moves");
        }
        let mut ahead = game.clone();
        for _ in 0..MOVES_PER_BATCH {
            if ahead.status() != Status::Running {
                break;
            }
            let decision = planner.next_action(&ahead, &Budget::unlimited()).expect("the planner answers");
            ahead.step(decision.action).expect("the planner plays legal moves");
        }
        if game.len() == length && ahead.status() == Status::Running {
            return game;
        }
    }
    unreachable!("the seed loop is endless")
}

/// Times `make_planner`'s planner per move from positions of `length` cells
/// (one criterion iteration is one move, so `time` reads as time per move).
fn per_move<P: Planner<SnakeGame>>(
    c: &mut Criterion,
    group_name: &str,
    config: &Config,
    lengths: &[usize],
    make_planner: impl Fn() -> P,
) {
    let mut group = c.benchmark_group(group_name);
    group.throughput(Throughput::Elements(1));
    for &length in lengths {
        let start = position(config, length, make_planner());
        let mut planner = make_planner();
        group.bench_with_input(BenchmarkId::new("length", length), &start, |b, start| {
            b.iter_custom(|n_moves| {
                let mut elapsed = Duration::ZERO;
                let mut left = n_moves;
                while left > 0 {
                    // Each run replays the same stretch of the game from the
                    // start position (a planner meets it as a new game); the
                    // clone is not timed.
                    let run = left.min(MOVES_PER_BATCH);
                    let mut game = start.clone();
                    let started = Instant::now();
                    for _ in 0..run {
                        let decision = planner.next_action(&game, &Budget::unlimited()).expect("the planner answers");
                        game.step(black_box(decision.action)).expect("the planner plays legal moves");
                    }
                    elapsed += started.elapsed();
                    left -= run;
                }
                elapsed
            });
        });
    }
    group.finish();
}

fn bfs_tail_per_move(c: &mut Criterion) {
    let config = Config::try_from(SnakeSetup::chuyangliu()).expect("the preset is valid");
    per_move(c, "bfs-tail/chuyangliu", &config, &[8, 24, 40, 56], || BfsTail::new(&config));
}

/// `cycle` on 30×30 from the centre (AutoSnake3's rules), at a tenth, a
/// third, a half and four fifths of the board: the positions follow a meal,
/// where `cycle` always stands on a block cycle.
fn cycle_per_move(c: &mut Criterion) {
    let start = Start { col: 15, row: 15, heading: Dir::Right, length: 2 };
    let setup = SnakeSetup { start: StartRule::At(start), ..SnakeSetup::open(30, 30) };
    let config = Config::try_from(setup).expect("the board is valid");
    per_move(c, "cycle/30x30", &config, &[90, 300, 450, 720], || Cycle::new(&config));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    targets = bfs_tail_per_move, cycle_per_move
}
criterion_main!(benches);
