//! Helpers shared by the integration tests: the golden-vector JSON reader
//! and the deterministic length generator.
// Each test crate uses only some of these.
#![allow(dead_code)]

pub mod json;

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
