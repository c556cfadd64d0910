//! The integration tests as one test binary (`cargo test` runs its tests in
//! parallel threads, as it did within each file). One crate per file cost
//! a compile and a link each (the shared helpers compiled into each):
//! rust_test in a fresh build tree (CI's) took 81.6 CPU s, with one 47.1.
//! large_input.rs stays its own binary: its counting global
//! allocator would count every other test's allocations.
mod common;

mod buckets;
mod context_parallel;
mod cost;
mod extra_costs;
mod golden;
mod lifetime;
mod model_file;
mod offsets;
mod pack;
mod planner;
mod simulate_extra_costs;
mod stats;
mod step_context;
mod stream;
