//! Time to hand 10^6 lengths to the library (tokens model: validation plus a
//! sum, so the figure is dominated by the C side, not the binding).
//! cargo run --release --example bench_large
use std::time::Instant;

fn main() {
    let model = flopspack::CostModel::tokens().unwrap();
    let lengths: Vec<i64> = (0..1_000_000).map(|i| i % 4096 + 1).collect();
    let runs = 50;
    let start = Instant::now();
    let mut total = 0.0;
    for _ in 0..runs {
        total += model.sequence_cost(&lengths).unwrap();
    }
    let per_call = start.elapsed() / runs;
    println!(
        "sequence_cost(10^6 lengths): {per_call:?} per call ({:.2} ns/length), checksum {total}",
        per_call.as_nanos() as f64 / 1e6
    );
}
