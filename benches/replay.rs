//! Criterion benchmarks of the replay encoders and decoders: format version
//! 1 against version 2 on the same frames (the golden Snake game of 4012
//! ticks, every hash in full, as a recording hands them to the writer).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tickbot::replay;

/// A long golden game, read as version 1 so every frame has its full hash.
const GOLDEN: &[u8] = include_bytes!("../replays/snake-7.tbr");

fn encoders(c: &mut Criterion) {
    let recorded = replay::decode(GOLDEN).expect("the golden replay decodes");
    let version_2 = replay::encode_to_vec(&recorded).expect("encodes");
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(recorded.frames.len() as u64));
    group.bench_function("encode v1", |b| b.iter(|| replay::encode_v1_to_vec(black_box(&recorded)).unwrap()));
    group.bench_function("encode v2", |b| b.iter(|| replay::encode_to_vec(black_box(&recorded)).unwrap()));
    group.bench_function("decode v1", |b| b.iter(|| replay::decode(black_box(GOLDEN)).unwrap()));
    group.bench_function("decode v2", |b| b.iter(|| replay::decode(black_box(&version_2)).unwrap()));
    group.finish();
}

criterion_group!(benches, encoders);
criterion_main!(benches);
