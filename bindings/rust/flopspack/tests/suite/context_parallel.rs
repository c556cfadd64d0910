//! Context-parallel sharding: chunks tile every group, CP-rank costs add up
//! to the group cost, layouts, metrics, bad input.
use flopspack::{
    plan_step, shard_context_parallel, CostModel, CpLayout, Status, StepOptions, TransformerConfig,
};
use std::collections::HashMap;

fn fixture() -> (CostModel, flopspack::Plan) {
    let config = TransformerConfig {
        num_layers: 4,
        hidden_size: 256,
        num_attention_heads: 8,
        num_key_value_heads: 8,
        intermediate_size: 1024,
        vocab_size: 1000,
        ..TransformerConfig::default()
    };
    let model = CostModel::transformer(&config).unwrap();
    let lengths: Vec<i64> = (0..60).map(|i| 1 + (i * 7919) % 700).collect();
    let mut options = StepOptions::new(4, 4096);
    options.microbatches_per_rank = 2;
    let plan = plan_step(&lengths, &model, &options).unwrap();
    (model, plan)
}

#[test]
fn chunks_tile_and_costs_add_up() {
    let (model, plan) = fixture();
    for layout in [
        CpLayout::SequenceHeadTail,
        CpLayout::DocumentHeadTail,
        CpLayout::Adaptive,
    ] {
        let shard = shard_context_parallel(&plan, &model, 4, layout).unwrap();
        assert_eq!(shard.len(), plan.len());
        assert_eq!(shard.context_parallel_size(), 4);
        for (g, group) in plan.groups().enumerate() {
            let mut want: HashMap<(i64, i64), i32> = HashMap::new();
            for k in 0..group.items.len() {
                for t in 0..group.tokens[k] {
                    *want
                        .entry((group.items[k], group.offsets[k] + t))
                        .or_default() += 1;
                }
            }
            let mut sum = 0.0;
            for r in 0..4 {
                let c = shard.chunks(g, r).unwrap();
                for k in 0..c.items.len() {
                    assert!(c.lengths[k] > 0);
                    for t in 0..c.lengths[k] {
                        *want.entry((c.items[k], c.offsets[k] + t)).or_default() -= 1;
                    }
                }
                let (cost, kv) = shard.rank_cost(g, r).unwrap();
                assert!(kv >= 0);
                sum += cost;
            }
            assert!(
                want.values().all(|&n| n == 0),
                "layout {layout:?} group {g}"
            );
            assert!((sum - group.info.cost).abs() <= 1e-9 * group.info.cost);
            let (used, balance) = shard.layout(g).unwrap();
            assert_ne!(used, CpLayout::Adaptive);
            if layout != CpLayout::Adaptive {
                assert_eq!(used, layout);
            }
            assert!(balance > 0.0 && balance <= 1.0);
        }
        let m = shard.metrics();
        assert_eq!(m.context_parallel_size, 4);
        assert_eq!(m.num_groups, plan.len() as u64);
        assert_eq!(
            m.sequence_layout_groups + m.document_layout_groups,
            m.num_groups
        );
    }
}

#[test]
fn bad_input() {
    let (model, plan) = fixture();
    let e = shard_context_parallel(&plan, &model, 0, CpLayout::Adaptive)
        .err()
        .unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(
        e.message().contains("context_parallel_size = 0"),
        "{}",
        e.message()
    );
    let custom = CostModel::custom(|l: &[i64]| Ok(l.iter().sum::<i64>() as f64)).unwrap();
    let e = shard_context_parallel(&plan, &custom, 2, CpLayout::Adaptive)
        .err()
        .unwrap();
    assert!(e.message().contains("additive"), "{}", e.message());
    let shard = shard_context_parallel(&plan, &model, 2, CpLayout::Adaptive).unwrap();
    assert_eq!(
        shard.chunks(0, 2).err().unwrap().status(),
        Status::OutOfRange
    );
    assert_eq!(
        shard.layout(plan.len()).err().unwrap().status(),
        Status::OutOfRange
    );
}
