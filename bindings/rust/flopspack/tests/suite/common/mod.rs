//! Helpers shared by the integration tests: the golden-vector JSON reader
//! and the deterministic length generator.
// Each test crate uses only some of these.
#![allow(dead_code)]

pub mod json;

use flopspack::Status;

/// Extra costs for three documents that every `*_with_extra_costs` call
/// refuses: (extra costs, status, a fragment of the message).
pub const BAD_EXTRA_COSTS: [(&[f64], Status, &str); 5] = [
    (
        &[0.0, -1.0, 0.0],
        Status::InvalidArgument,
        "extra_costs[1] = -1",
    ),
    (
        &[0.0, 0.0, f64::NAN],
        Status::InvalidArgument,
        "extra_costs[2] = nan",
    ),
    (
        &[f64::INFINITY, 0.0, 0.0],
        Status::InvalidArgument,
        "extra_costs[0] = inf",
    ),
    (&[1e308, 1e308, 0.0], Status::OutOfRange, "extra_costs"),
    (
        &[0.0, 0.0],
        Status::InvalidArgument,
        "extra_costs has 2 entries for 3 lengths",
    ),
];

/// `n` lengths in [1, max] from a xorshift stream: the same in every test
/// and every run.
pub fn lengths(n: usize, seed: u64, max: u64) -> Vec<i64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            1 + (x % max) as i64
        })
        .collect()
}
