//! plan_step_with_extra_costs and StepPlanner::push_with_extra_costs:
//! documents whose cost is the model's cost of their tokens plus their own
//! extra cost.
use flopspack::{
    multimodal_costs, plan_step, plan_step_with_extra_costs, CostModel, Status, StepOptions,
    StepPlanner, StepPlannerOptions, TransformerConfig,
};

#[test]
fn none_is_plan_step() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let lengths: Vec<i64> = (0..150).map(|i| 1 + (i * 7919) % 1500).collect();
    let options = StepOptions::new(4, 1024);
    let a = plan_step(&lengths, &model, &options).unwrap();
    let b = plan_step_with_extra_costs(&lengths, None, &model, &options).unwrap();
    let ga: Vec<_> = a
        .groups()
        .map(|g| (g.items.to_vec(), g.info.cost.to_bits()))
        .collect();
    let gb: Vec<_> = b
        .groups()
        .map(|g| (g.items.to_vec(), g.info.cost.to_bits()))
        .collect();
    assert_eq!(ga, gb);
}

#[test]
fn a_short_document_with_a_huge_extra_cost_ends_alone() {
    let model = CostModel::tokens().unwrap();
    let options = StepOptions {
        microbatches_per_rank: 1,
        ..StepOptions::new(2, 4096)
    };
    let extra = [0.0, 0.0, 0.0, 0.0, 1e6, 0.0];
    let plan = plan_step_with_extra_costs(
        &[100, 100, 100, 100, 10, 100],
        Some(&extra),
        &model,
        &options,
    )
    .unwrap();
    let alone: Vec<_> = plan.groups().filter(|g| g.items == [4]).collect();
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].info.cost, 10.0 + 1e6);
}

#[test]
fn bad_extra_costs() {
    let model = CostModel::tokens().unwrap();
    let options = StepOptions {
        microbatches_per_rank: 1,
        ..StepOptions::new(2, 64)
    };
    let empty: (&[f64], Status, &str) = (
        &[],
        Status::InvalidArgument,
        "extra_costs has 0 entries for 3 lengths",
    );
    for &(extra, status, fragment) in crate::common::BAD_EXTRA_COSTS.iter().chain([empty].iter()) {
        let err =
            plan_step_with_extra_costs(&[10, 20, 30], Some(extra), &model, &options).unwrap_err();
        assert_eq!(err.status(), status, "{err}");
        assert!(err.message().contains(fragment), "{err}");
    }
}

#[test]
fn multimodal_costs_of_a_vit_l_encoder() {
    let vit = CostModel::transformer(&TransformerConfig {
        num_layers: 24,
        hidden_size: 1024,
        num_attention_heads: 16,
        num_key_value_heads: 16,
        intermediate_size: 4096,
        causal: false,
        ..TransformerConfig::default()
    })
    .unwrap();
    let (tokens, extra) =
        multimodal_costs(&vit, &[1500, 200, 0], &[0, 3, 1], &[0, 576, 256]).unwrap();
    let d = 1024.0f64;
    let image = |p: f64| 3.0 * (24.0 * 24.0 * d * d * p + 24.0 * 4.0 * d * p * p);
    assert_eq!(tokens, vec![1500, 200 + 3 * 576, 256]);
    assert_eq!(extra[0], 0.0);
    assert!((extra[1] - 3.0 * image(576.0)).abs() <= 1e-12 * extra[1]);
    assert!((extra[2] - image(256.0)).abs() <= 1e-12 * extra[2]);
    let err = multimodal_costs(&vit, &[5, 5], &[0, 2], &[0, 0]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(
        err.message().contains("document 1: multimodal document"),
        "{err}"
    );
}

#[test]
fn pack_with_extra_costs_none_and_zeros_are_pack() {
    use flopspack::{pack, pack_with_extra_costs, Overflow, PackOptions};
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let lengths: Vec<i64> = (0..150).map(|i| 1 + (i * 7919) % 1500).collect();
    let zeros = vec![0.0; lengths.len()];
    let options = PackOptions {
        overflow: Overflow::Split,
        ..PackOptions::new(1024)
    };
    let key = |p: &flopspack::Plan| -> Vec<_> {
        p.groups()
            .map(|g| (g.items.to_vec(), g.tokens.to_vec(), g.info.cost.to_bits()))
            .collect()
    };
    let a = pack(&lengths, &options, Some(&model)).unwrap();
    let b = pack_with_extra_costs(&lengths, None, &options, Some(&model)).unwrap();
    let c = pack_with_extra_costs(&lengths, Some(&zeros), &options, Some(&model)).unwrap();
    assert_eq!(key(&a), key(&b));
    assert_eq!(key(&a), key(&c));
}

#[test]
fn pack_with_extra_costs_adds_them_and_rejects_bad_ones() {
    use flopspack::{pack_with_extra_costs, PackAlgorithm, PackOptions};
    let options = PackOptions {
        algorithm: PackAlgorithm::NextFit,
        ..PackOptions::new(100)
    };
    let plan = pack_with_extra_costs(
        &[60, 40, 100, 30],
        Some(&[1.5, 0.0, 1000.0, 0.25]),
        &options,
        None,
    )
    .unwrap();
    let costs: Vec<f64> = plan.groups().map(|g| g.info.cost).collect();
    assert_eq!(costs, vec![101.5, 1100.0, 30.25]);
    for (extra, status, fragment) in [
        (
            vec![0.0, -1.0, 0.0],
            Status::InvalidArgument,
            "extra_costs[1] = -1",
        ),
        (
            vec![0.0, 0.0, f64::NAN],
            Status::InvalidArgument,
            "extra_costs[2] = nan",
        ),
        (vec![1e308, 1e308, 0.0], Status::OutOfRange, "extra_costs"),
        (
            vec![0.0, 0.0],
            Status::InvalidArgument,
            "extra_costs has 2 entries for 3 lengths",
        ),
    ] {
        let err = pack_with_extra_costs(&[10, 20, 30], Some(&extra), &options, None).unwrap_err();
        assert_eq!(err.status(), status, "{:?}", extra);
        assert!(err.message().contains(fragment), "{}", err.message());
    }
}

fn same_plan(a: &flopspack::Plan, b: &flopspack::Plan) {
    assert!(a.groups().eq(b.groups()));
    let bits =
        |p: &flopspack::Plan| -> Vec<u64> { p.groups().map(|g| g.info.cost.to_bits()).collect() };
    assert_eq!(bits(a), bits(b));
    assert_eq!(a.deferred(), b.deferred());
    assert_eq!(format!("{:?}", a.metrics()), format!("{:?}", b.metrics()));
}

fn planner_options() -> StepOptions {
    StepOptions {
        microbatches_per_rank: 4,
        ..StepOptions::new(4, 1024)
    }
}

/// One step of documents pushed with extra costs, without, and with None:
/// plan_step_with_extra_costs's plan with zeros filled in, bit for bit.
#[test]
fn step_planner_push_with_extra_costs_is_plan_step_with_extra_costs() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let options = planner_options();
    for seed in 1..=3u64 {
        let lengths: Vec<i64> = (0..30)
            .map(|i| 1 + ((i + 1) * 7919 * seed as i64) % 500)
            .collect(); // one step
        let extra: Vec<f64> = (0..30)
            .map(|i| {
                if i % 4 == 0 {
                    0.0
                } else {
                    1000.0 + 313.0 * i as f64
                }
            })
            .collect();
        let mut planner =
            StepPlanner::new(&model, &options, &StepPlannerOptions::default()).unwrap();
        assert_eq!(planner.push(&lengths[..10]).unwrap(), 0);
        assert_eq!(
            planner
                .push_with_extra_costs(&lengths[10..20], Some(&extra[10..20]))
                .unwrap(),
            10
        );
        assert_eq!(
            planner.push_with_extra_costs(&lengths[20..], None).unwrap(),
            20
        );
        let mut filled = vec![0.0; 30];
        filled[10..20].copy_from_slice(&extra[10..20]);
        let stepped = planner.next_plan().unwrap();
        let direct = plan_step_with_extra_costs(&lengths, Some(&filled), &model, &options).unwrap();
        same_plan(&stepped, &direct);
        // All with extra costs, one push.
        let mut all = StepPlanner::new(&model, &options, &StepPlannerOptions::default()).unwrap();
        all.push_with_extra_costs(&lengths, Some(&extra)).unwrap();
        let direct = plan_step_with_extra_costs(&lengths, Some(&extra), &model, &options).unwrap();
        same_plan(&all.next_plan().unwrap(), &direct);
    }
}

#[test]
fn step_planner_bad_extra_costs_change_nothing() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let options = planner_options();
    let mut planner = StepPlanner::new(&model, &options, &StepPlannerOptions::default()).unwrap();
    planner
        .push_with_extra_costs(&[40, 50], Some(&[2.5, 0.0]))
        .unwrap();
    let before = planner.save().unwrap();
    let rows: [&[f64]; 6] = [
        &[0.0, -1.0, 0.0],
        &[0.0, 0.0, f64::NAN],
        &[f64::INFINITY, 0.0, 0.0],
        &[1e308, 1e308, 0.0],
        &[0.0, 0.0],
        &[],
    ];
    for extra in rows {
        let want =
            plan_step_with_extra_costs(&[10, 20, 30], Some(extra), &model, &options).unwrap_err();
        let got = planner
            .push_with_extra_costs(&[10, 20, 30], Some(extra))
            .unwrap_err();
        assert_eq!(got.status(), want.status(), "{extra:?}");
        assert_eq!(got.message(), want.message(), "{extra:?}");
        assert_eq!(planner.save().unwrap(), before, "{extra:?}");
    }
}

#[test]
fn step_planner_save_restore_keeps_extra_costs() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let options = StepOptions {
        microbatches_per_rank: 2,
        ..StepOptions::new(4, 1024)
    };
    let queue = StepPlannerOptions {
        tokens_per_step: 7000,
        outlier_min_tokens: 900,
        max_outliers_per_step: 1,
        ..StepPlannerOptions::default()
    };
    let lengths: Vec<i64> = (0..240).map(|i| 1 + (i * 7919) % 1024).collect();
    let extra: Vec<f64> = (0..240)
        .map(|i| {
            if i % 3 == 0 {
                0.0
            } else {
                5000.0 + 37.0 * i as f64
            }
        })
        .collect();
    let mut a = StepPlanner::new(&model, &options, &queue).unwrap();
    a.push_with_extra_costs(&lengths[..120], Some(&extra[..120]))
        .unwrap();
    a.next_plan().unwrap();
    a.next_plan().unwrap();
    let state = a.save().unwrap();
    let mut b = StepPlanner::restore(&state, &model).unwrap();
    assert_eq!(b.save().unwrap(), state);
    for p in [&mut a, &mut b] {
        p.push(&lengths[120..180]).unwrap();
        p.push_with_extra_costs(&lengths[180..], Some(&extra[180..]))
            .unwrap();
    }
    for _ in 0..30 {
        // ~17 steps drain the queue
        same_plan(&a.next_plan().unwrap(), &b.next_plan().unwrap());
    }
    assert_eq!(a.pending().documents, 0);
}
