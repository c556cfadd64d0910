//! Memory safety at the edges (issue 21): borrowed views cannot outlive
//! their owner (compile_fail doc tests on `Plan`, `CostModel::custom`,
//! `StreamPacker`, `StepPlanner`), shared objects are read from several
//! threads at once, and a custom model's closure stays alive as long as any
//! object that can call it. Run under ASan by the CI's sanitizer stage.

use flopspack::{
    pack, plan_step, CostModel, PackOptions, StepOptions, StepPlanner, StepPlannerOptions,
    StreamOptions, StreamPacker,
};
use std::sync::{Arc, Mutex};

use crate::common::lengths;

fn poly(lengths: &[i64]) -> f64 {
    lengths
        .iter()
        .map(|&l| l as f64 + 1e-4 * (l as f64) * (l as f64))
        .sum()
}

#[test]
fn copies_a_callback_keeps_are_its_own() {
    let kept: Arc<Mutex<Vec<Vec<i64>>>> = Arc::default();
    let sink = Arc::clone(&kept);
    let model = CostModel::custom(move |l: &[i64]| {
        sink.lock().unwrap().push(l.to_vec()); // a copy: the slice is lent for the call
        Ok(poly(l))
    })
    .unwrap();
    let plan = pack(
        &lengths(300, 1, 4000),
        &PackOptions::new(4096),
        Some(&model),
    )
    .unwrap();
    let sequences: Vec<Vec<i64>> = plan.groups().map(|g| g.tokens.to_vec()).collect();
    drop(plan);
    drop(model);
    let kept = kept.lock().unwrap();
    assert!(kept.len() >= sequences.len());
    // Each sequence the plan holds was costed from exactly its tokens.
    for s in &sequences {
        let mut sorted = s.clone();
        sorted.sort_unstable();
        assert!(kept.iter().any(|k| {
            let mut k = k.clone();
            k.sort_unstable();
            k == sorted
        }));
    }
}

#[test]
fn threads_share_a_custom_model_and_a_plan() {
    let model = CostModel::custom(|l: &[i64]| Ok(poly(l))).unwrap();
    let docs = lengths(5000, 2, 4000);
    let plan = pack(&docs, &PackOptions::new(8192), Some(&model)).unwrap();
    let want: Vec<Vec<i64>> = plan.groups().map(|g| g.items.to_vec()).collect();
    let want_cost = model.sequence_cost(&docs[..100]).unwrap();
    std::thread::scope(|s| {
        for t in 0..6 {
            let (model, plan, want, docs) = (&model, &plan, &want, &docs);
            s.spawn(move || {
                for round in 0..50 {
                    assert_eq!(model.sequence_cost(&docs[..100]).unwrap(), want_cost);
                    let g = (t * 50 + round) % want.len();
                    assert_eq!(plan.items(g).unwrap(), &want[g][..]);
                }
            });
        }
    });
}

#[test]
fn objects_keep_the_closure_of_a_dropped_model_alive() {
    let calls = Arc::new(Mutex::new(0usize));
    let counter = Arc::clone(&calls);
    let model = CostModel::custom(move |l: &[i64]| {
        *counter.lock().unwrap() += 1;
        Ok(poly(l))
    })
    .unwrap();
    let mut packer = StreamPacker::new(&StreamOptions::new(4096), Some(&model)).unwrap();
    let mut planner = StepPlanner::new(
        &model,
        &StepOptions {
            microbatches_per_rank: 2,
            ..StepOptions::new(4, 8192)
        },
        &StepPlannerOptions::default(),
    )
    .unwrap();
    drop(model); // the C objects hold the model; the closure must outlive it
    let docs = lengths(200, 3, 4000);
    packer.push(&docs).unwrap();
    packer.flush().unwrap();
    let packed = packer.take().unwrap();
    planner.push(&docs[..64]).unwrap();
    let step = planner.next_plan().unwrap();
    assert!(packed.metrics().total_cost > 0.0 && step.metrics().total_cost > 0.0);
    assert!(*calls.lock().unwrap() > 0);
    // A planner moves to another thread (Send) and goes on there.
    let more = std::thread::spawn(move || {
        planner.push(&[100, 200]).unwrap();
        planner.next_plan().unwrap().metrics().real_tokens
    })
    .join()
    .unwrap();
    assert!(more > 0);
}

#[test]
fn plan_step_borrows_lengths_only_for_the_call() {
    let model = CostModel::tokens().unwrap();
    let plan = {
        let docs = lengths(64, 4, 1000); // dropped before the plan is read
        plan_step(&docs, &model, &StepOptions::new(2, 4096)).unwrap()
    };
    assert_eq!(plan.metrics().num_ranks, 2);
    let items: usize = plan.groups().map(|g| g.items.len()).sum();
    assert_eq!(items, 64);
}
