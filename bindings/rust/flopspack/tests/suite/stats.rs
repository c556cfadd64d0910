use flopspack::{
    simulate, simulate_sweep, CostModel, SimSeries, SimulateOptions, Stats, Status, SyncModel,
    Weighting,
};

use crate::common::lengths;

#[test]
fn stats_against_direct_computation() {
    let docs = lengths(3000, 9, 20000);
    let s = Stats::new(&docs, None).unwrap();
    let m = s.summary();
    let mut sorted = docs.clone();
    sorted.sort_unstable();
    assert_eq!(
        (m.count, m.tokens, m.min, m.max),
        (3000, docs.iter().sum::<i64>(), sorted[0], sorted[2999])
    );
    for q in [0.1, 0.5, 0.9, 0.99] {
        let want = sorted[(q * 3000.0f64).ceil() as usize - 1];
        assert_eq!(s.quantile(q, Weighting::Count).unwrap(), want as f64);
    }
    let (l, c) = s.entries();
    assert_eq!(Stats::from_histogram(&l, &c, None).unwrap().summary(), m);
    let (a, b) = (
        Stats::new(&docs[..1000], None).unwrap(),
        Stats::new(&docs[1000..], None).unwrap(),
    );
    assert_eq!(a.merge(&b).unwrap().summary(), m);
    assert_eq!(a.compare(&b).unwrap().levels[0], 0.5);
    assert_eq!(a.ks_distance(&a, Weighting::Tokens).unwrap().0, 0.0);
    assert_eq!(
        Stats::new(&[5, 0], None).unwrap_err().status(),
        Status::InvalidArgument
    );
    assert!(Stats::from_histogram(&[1, 2], &[5], None)
        .unwrap_err()
        .message()
        .contains("counts has 1 entries"));
}

#[test]
fn simulate_progress_cancel_and_sweep() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    let docs = lengths(2000, 4, 8000);
    let options = SimulateOptions {
        num_ranks: 16,
        num_steps: 8,
        record_steps: true,
        seed: 3,
        ..Default::default()
    };
    let mut seen = Vec::new();
    let mut progress = |done: u64, total: u64| {
        seen.push((done, total));
        true
    };
    let run = simulate(&docs, &model, &options, Some(&mut progress)).unwrap();
    assert_eq!(seen, (1..=8).map(|d| (d, 8)).collect::<Vec<_>>());
    let s = run.summary();
    let series = run.series(SimSeries::BalanceEfficiency).unwrap();
    assert_eq!(series.len(), 8);
    assert!((series.iter().sum::<f64>() / 8.0 - s.mean_balance_efficiency).abs() < 1e-12);
    assert!(run.pieces().unwrap().summary().count > 0);
    let mut stop = |done: u64, _total: u64| done < 3;
    let e = simulate(&docs, &model, &options, Some(&mut stop))
        .err()
        .unwrap();
    assert_eq!(e.status(), Status::Cancelled);
    let mut boom = |_: u64, _: u64| -> bool { panic!("boom") };
    assert_eq!(
        simulate(&docs, &model, &options, Some(&mut boom))
            .err()
            .unwrap()
            .status(),
        Status::Cancelled
    );
    let sweep = simulate_sweep(&docs, &model, &options, &[4, 32], None).unwrap();
    assert_eq!(sweep.sampled_efficiency.len(), 2);
    let bad = SimulateOptions {
        num_ranks: 0,
        ..options
    };
    assert_eq!(
        simulate(&docs, &model, &bad, None).err().unwrap().status(),
        Status::InvalidArgument
    );
}

#[test]
fn simulate_topology() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    let docs = lengths(4000, 4, 3000);
    let base = SimulateOptions {
        num_ranks: 16,
        microbatches_per_rank: 4,
        tokens_per_microbatch: 2048,
        num_steps: 10,
        record_steps: true,
        seed: 5,
        ..Default::default()
    };
    assert_eq!(base.sync, SyncModel::Step);
    let step = simulate(&docs, &model, &base, None).unwrap();
    let micro_options = SimulateOptions {
        sync: SyncModel::Microbatch,
        ..base
    };
    let micro = simulate(&docs, &model, &micro_options, None).unwrap();
    let pipe_options = SimulateOptions {
        pipeline_stages: 4,
        ..base
    };
    let pipe = simulate(&docs, &model, &pipe_options, None).unwrap();
    let (s, m, p) = (step.summary(), micro.summary(), pipe.summary());
    assert_eq!((s.sync, m.sync, p.pipeline_stages), (0, 1, 4));
    assert_eq!(s.mean_sync_efficiency, s.mean_balance_efficiency);
    // Random dealing ignores the model: the same microbatches, and the sum of
    // slot maxima is at least the slowest rank in every step.
    assert_eq!(m.mean_balance_efficiency, s.mean_balance_efficiency);
    let t_step = step.series(SimSeries::StepTime).unwrap();
    let t_micro = micro.series(SimSeries::StepTime).unwrap();
    assert!(t_step.iter().zip(&t_micro).all(|(a, b)| b >= a));
    assert!(m.relative_throughput < s.relative_throughput);
    // Four stages, four microbatches: at most M / (M + P - 1) of the time works.
    assert!(p.mean_sync_efficiency <= 4.0 / 7.0 + 1e-12 && p.predicted_efficiency.is_nan());
    let bad = SimulateOptions {
        pipeline_stages: 1025,
        ..base
    };
    let e = simulate(&docs, &model, &bad, None).err().unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.to_string().contains("pipeline_stages = 1025"), "{e}");
}

/// 2,700,000 = 329 x 8192 + 4832: as trained at 8192 the document costs
/// its 330 pieces (document cost 1 + 2l + 0.01l^2).
#[test]
fn cost_capacity_costs_a_long_document_as_its_pieces() {
    let model = CostModel::polynomial(5.0, 1.0, 2.0, 0.01).unwrap();
    let doc = |n: f64| 1.0 + 2.0 * n + 0.01 * n * n;
    let lengths = [2_700_000i64, 100, 8192];
    let trained = Stats::with_options(&lengths, None, Some(&model), 8192).unwrap();
    let whole = Stats::new(&lengths, Some(&model)).unwrap();
    let pieces = 329.0 * doc(8192.0) + doc(4832.0);
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    let (t, w) = (trained.summary(), whole.summary());
    assert!(near(t.max_cost, pieces), "{t:?}");
    assert!(
        near(t.total_cost, pieces + doc(100.0) + doc(8192.0)),
        "{t:?}"
    );
    assert!(near(w.max_cost, doc(2_700_000.0)), "{w:?}");
    assert_eq!(t.tokens, w.tokens);
    let h = Stats::with_options(&[2_700_000, 100], Some(&[2, 3]), Some(&model), 8192).unwrap();
    assert!(near(
        h.summary().total_cost,
        2.0 * pieces + 3.0 * doc(100.0)
    ));
    assert!(Stats::with_options(&lengths, None, Some(&model), -1).is_err());
    assert!(Stats::with_options(&lengths, Some(&[1]), Some(&model), 8192).is_err());
}

#[test]
fn simulate_context_parallel() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    let docs = lengths(4000, 4, 30000);
    let base = SimulateOptions {
        num_ranks: 16,
        tokens_per_microbatch: 4096,
        num_steps: 10,
        seed: 5,
        policy: flopspack::SimPolicy::PlannerDocuments,
        ..Default::default()
    };
    assert_eq!(base.context_parallel_size, 0);
    assert_eq!(
        base.context_parallel_layout,
        flopspack::CpLayout::DocumentHeadTail
    );
    let none = simulate(&docs, &model, &base, None).unwrap().summary();
    // CP size 1 is no CP, bit for bit.
    let one = SimulateOptions {
        context_parallel_size: 1,
        ..base
    };
    let one = simulate(&docs, &model, &one, None).unwrap().summary();
    assert_eq!(one.relative_throughput, none.relative_throughput);
    assert_eq!(one.mean_step_time, none.mean_step_time);
    // Four GPUs per microbatch: up to 4 x the tokens, per-document sharding
    // at least as good as per-sequence.
    let run = |layout| {
        let o = SimulateOptions {
            context_parallel_size: 4,
            context_parallel_layout: layout,
            ..base
        };
        simulate(&docs, &model, &o, None).unwrap().summary()
    };
    let seq = run(flopspack::CpLayout::SequenceHeadTail);
    let doc = run(flopspack::CpLayout::DocumentHeadTail);
    assert!(doc.real_tokens > none.real_tokens * 3);
    assert!(doc.relative_throughput >= seq.relative_throughput);
    let bad = SimulateOptions {
        context_parallel_size: 65537,
        ..base
    };
    let e = simulate(&docs, &model, &bad, None).err().unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(
        e.to_string().contains("context_parallel_size = 65537"),
        "{e}"
    );
}
