//! plan_step_with_extra_costs: documents whose cost is the model's cost of
//! their tokens plus their own extra cost.
use flopspack::{
    multimodal_costs, plan_step, plan_step_with_extra_costs, CostModel, Status, StepOptions,
    TransformerConfig,
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
    let rows: [(&[f64], Status, &str); 6] = [
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
        (
            &[],
            Status::InvalidArgument,
            "extra_costs has 0 entries for 3 lengths",
        ),
    ];
    for (extra, status, fragment) in rows {
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
