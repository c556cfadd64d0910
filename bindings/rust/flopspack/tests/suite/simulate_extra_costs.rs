//! simulate_with_extra_costs / simulate_sweep_with_extra_costs: the
//! straggler emulator with per-document extra costs.
use flopspack::{
    simulate, simulate_sweep_with_extra_costs, simulate_with_extra_costs, CostModel, SimPolicy,
    SimSeries, SimulateOptions,
};

fn lengths() -> Vec<i64> {
    (0..3000).map(|i| 1 + (i * 7919) % 2500).collect()
}

#[test]
fn none_and_zeros_are_simulate_bit_for_bit() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let lengths = lengths();
    let zeros = vec![0.0; lengths.len()];
    for policy in [
        SimPolicy::Random,
        SimPolicy::TokenBalanced,
        SimPolicy::Buckets,
        SimPolicy::PlannerDocuments,
        SimPolicy::PlannerRandom,
        SimPolicy::PlannerTokens,
        SimPolicy::PlannerSequences,
    ] {
        let planner = !matches!(
            policy,
            SimPolicy::Random | SimPolicy::TokenBalanced | SimPolicy::Buckets
        );
        let options = SimulateOptions {
            policy,
            num_ranks: 8,
            num_steps: 5,
            record_steps: true,
            tokens_per_microbatch: 4096,
            max_tokens_per_microbatch: if planner { 5000 } else { 0 },
            ..Default::default()
        };
        let a = simulate(&lengths, &model, &options, None).unwrap();
        let b = simulate_with_extra_costs(&lengths, None, &model, &options, None).unwrap();
        let c = simulate_with_extra_costs(&lengths, Some(&zeros), &model, &options, None).unwrap();
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        for run in [&b, &c] {
            assert_eq!(
                bits(a.series(SimSeries::StepTime).unwrap()),
                bits(run.series(SimSeries::StepTime).unwrap()),
                "{policy:?}"
            );
            assert_eq!(
                a.summary().relative_throughput.to_bits(),
                run.summary().relative_throughput.to_bits()
            );
            assert_eq!(a.summary().documents_drawn, run.summary().documents_drawn);
        }
    }
}

#[test]
fn by_hand_and_in_the_sweep() {
    let model = CostModel::tokens().unwrap();
    for policy in [SimPolicy::Random, SimPolicy::TokenBalanced] {
        let options = SimulateOptions {
            policy,
            num_ranks: 1,
            tokens_per_microbatch: 8,
            num_steps: 3,
            record_steps: true,
            ..Default::default()
        };
        let run = simulate_with_extra_costs(&[3, 5], Some(&[10.0, 100.0]), &model, &options, None)
            .unwrap();
        assert_eq!(run.series(SimSeries::StepTime).unwrap(), vec![118.0; 3]);
    }
    let equal = vec![128i64; 64];
    let mut heavy = vec![0.0; 64];
    heavy[5] = 1e4;
    let options = SimulateOptions {
        policy: SimPolicy::TokenBalanced,
        tokens_per_microbatch: 1024,
        num_steps: 4,
        ..Default::default()
    };
    let plain =
        simulate_sweep_with_extra_costs(&equal, None, &model, &options, &[2, 8], None).unwrap();
    let with =
        simulate_sweep_with_extra_costs(&equal, Some(&heavy), &model, &options, &[2, 8], None)
            .unwrap();
    assert_eq!(plain.sampled_efficiency, vec![1.0, 1.0]);
    assert!(with.sampled_efficiency.iter().all(|&e| e < 0.9));
}

#[test]
fn bad_extra_costs() {
    let model = CostModel::tokens().unwrap();
    let options = SimulateOptions {
        num_ranks: 2,
        num_steps: 1,
        ..Default::default()
    };
    for &(extra, status, fragment) in crate::common::BAD_EXTRA_COSTS.iter() {
        let e = simulate_with_extra_costs(&[10, 20, 30], Some(extra), &model, &options, None)
            .err()
            .unwrap();
        assert_eq!(e.status(), status, "{extra:?}");
        assert!(e.message().contains(fragment), "{}", e.message());
        let e = simulate_sweep_with_extra_costs(
            &[10, 20, 30],
            Some(extra),
            &model,
            &options,
            &[2],
            None,
        )
        .unwrap_err();
        assert_eq!(e.status(), status);
    }
}
