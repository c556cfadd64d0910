//! 10^6 lengths reach C without a copy: a counting allocator shows the call
//! allocates nothing (a copy of the slice would allocate 8 MB).
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn million_lengths_pass_without_a_copy() {
    let model = flopspack::CostModel::tokens().unwrap();
    let lengths: Vec<i64> = (0..1_000_000).map(|i| i % 4096 + 1).collect();
    let want: f64 = lengths.iter().map(|&l| l as f64).sum();
    let before = ALLOCATED.load(Ordering::SeqCst);
    let cost = model.sequence_cost(&lengths).unwrap();
    let grew = ALLOCATED.load(Ordering::SeqCst) - before;
    assert_eq!(cost, want);
    assert_eq!(grew, 0, "the call allocated {grew} bytes on the Rust side");
}
