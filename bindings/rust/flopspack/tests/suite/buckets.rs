use flopspack::{
    bucket_padding, optimize_buckets, BucketBudget, BucketSampler, BucketSamplerOptions, CostModel,
    Overflow, Status, BUCKET_TARGET_BALANCE,
};

use crate::common::lengths;

#[test]
fn optimize_and_padding() {
    let l = [1, 2, 3, 10, 11, 12];
    let bounds = optimize_buckets(&l, 2).unwrap();
    assert_eq!(bounds, vec![3, 12]);
    assert_eq!(bucket_padding(&l, &bounds).unwrap(), 6);
    let e = optimize_buckets(&[4, 0, 5], 2).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("lengths[1] = 0"), "{e}");
}

#[test]
fn sampler_epoch_covers_every_sample_once_within_budget() {
    let l = lengths(3000, 2, 2000);
    let options = BucketSamplerOptions {
        num_buckets: 8,
        num_ranks: 4,
        accumulation_steps: 2,
        seed: 5,
        ..BucketSamplerOptions::new(BucketBudget::PaddedTokens(8000))
    };
    let s = BucketSampler::new(&l, &options, None).unwrap();
    let steps = s.steps_per_epoch() as usize;
    let plan = s.epoch(3).unwrap();
    assert_eq!(plan.len(), steps * 8);
    let mut all = Vec::new();
    for (i, g) in plan.groups().enumerate() {
        let (step, rest) = (i / 8, i % 8);
        assert_eq!(g.slot, Some((rest / 2, step * 2 + rest % 2)));
        let longest = g.items.iter().map(|&i| l[i as usize]).max().unwrap();
        assert!(g.items.len() as i64 * longest <= 8000);
        all.extend_from_slice(g.items);
    }
    all.sort_unstable();
    assert_eq!(all, (0..3000).collect::<Vec<i64>>());
    let (tokens, samples) = s.step_diversity(&plan).unwrap();
    assert_eq!((tokens.len(), samples.len()), (steps, steps));
    let step = s.step(3, 7).unwrap();
    for (a, b) in step.groups().zip(plan.groups().skip(56)) {
        assert_eq!((a.items, a.slot), (b.items, b.slot));
    }
    assert_eq!(s.upper_bounds().len(), 8);
    let e = BucketSampler::new(
        &l,
        &BucketSamplerOptions::new(BucketBudget::PaddedTokens(0)),
        None,
    )
    .err()
    .unwrap();
    assert!(e.message().contains("max_padded_tokens = 0"), "{e}");
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<BucketSampler>();
}

#[test]
fn cost_budget_with_a_custom_model_outliving_its_handle() {
    let l = lengths(800, 3, 1000);
    let model = CostModel::custom(|l| Ok(l.iter().max().map_or(0.0, |&m| (m * m) as f64))).unwrap();
    let options = BucketSamplerOptions {
        num_buckets: 4,
        ..BucketSamplerOptions::new(BucketBudget::Cost(4e6))
    };
    let s = BucketSampler::new(&l, &options, Some(&model)).unwrap();
    drop(model);
    for g in s.epoch(0).unwrap().groups() {
        assert!(g.info.cost <= 4e6);
    }
}

#[test]
fn overflow_policies_and_diagnostics() {
    let l: Vec<i64> = (0..120)
        .map(|i| [100, 5000, 300, 200, 9000, 50][i % 6])
        .collect();
    let mut options = BucketSamplerOptions {
        num_ranks: 2,
        ..BucketSamplerOptions::new(BucketBudget::PaddedTokens(1000))
    };
    let e = BucketSampler::new(&l, &options, None).err().unwrap();
    assert_eq!(e.status(), Status::Infeasible);
    assert!(e.message().contains("lengths[1] = 5000 exceeds"), "{e}");
    options.overflow = Overflow::Defer;
    let s = BucketSampler::new(&l, &options, None).unwrap();
    let plan = s.epoch(0).unwrap();
    assert_eq!(plan.deferred().len(), 40);
    let d = s.diagnose(0, 0.97, 0.95, 0.1).unwrap();
    assert_eq!(d.deferred_items, 40);
    assert_eq!(d.deferred_tokens, 20 * 14000);
    assert_eq!(
        d.unmet & BUCKET_TARGET_BALANCE != 0,
        plan.metrics().balance_efficiency < 0.97
    );
    let e = s.diagnose(0, 1.5, 0.95, 0.1).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("balance target = 1.5"), "{e}");
}
