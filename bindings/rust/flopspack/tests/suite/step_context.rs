//! StepContext (flopspack_step_context): plan_step with the planner's
//! storage kept between calls; its plans are plan_step's, bit for bit.
use flopspack::{
    plan_step, CostModel, Overflow, Plan, Status, StepAlgorithm, StepContext, StepOptions,
    SyncModel,
};

type Row = (
    Vec<i64>,
    Vec<i64>,
    Vec<i64>,
    u64,
    i64,
    i64,
    Option<(usize, usize)>,
);

fn rows(plan: &Plan) -> Vec<Row> {
    plan.groups()
        .map(|g| {
            (
                g.items.to_vec(),
                g.tokens.to_vec(),
                g.offsets.to_vec(),
                g.info.cost.to_bits(),
                g.info.real_tokens,
                g.info.computed_tokens,
                g.slot,
            )
        })
        .collect()
}

fn assert_same(a: &Plan, b: &Plan) {
    assert_eq!(rows(a), rows(b));
    assert_eq!(a.deferred(), b.deferred());
    assert_eq!(a.metrics(), b.metrics());
}

fn lengths(n: i64, seed: i64, max: i64) -> Vec<i64> {
    (0..n)
        .map(|i| 1 + (i * 7919 + seed * 104729) % max)
        .collect()
}

#[test]
fn plans_equal_plan_step_bit_for_bit() {
    let model = CostModel::polynomial(0.0, 1.0, 1.0, 1.0 / 4096.0).unwrap();
    let mut context = StepContext::new().unwrap();
    let cases = [
        StepOptions {
            microbatches_per_rank: 2,
            ..StepOptions::new(8, 4096)
        },
        StepOptions::new(4, 1024), // M = 0, documents split
        StepOptions {
            microbatches_per_rank: 4,
            overflow: Overflow::Defer,
            ..StepOptions::new(16, 2048)
        },
        StepOptions {
            microbatches_per_rank: 3,
            sync: SyncModel::Microbatch,
            ..StepOptions::new(8, 4096)
        },
        StepOptions {
            algorithm: StepAlgorithm::Sequences,
            ..StepOptions::new(8, 2048)
        },
    ];
    for round in 0..2 {
        for (i, options) in cases.iter().enumerate() {
            let docs = lengths(20 + 15 * i as i64, round * 10 + i as i64, 1000);
            let want = plan_step(&docs, &model, options).unwrap();
            let got = context.plan_step(&docs, &model, options).unwrap();
            assert_same(&want, &got);
        }
    }
    assert!(context.kept_bytes() > 0);
}

#[test]
fn reserve_and_plans_outlive_the_context() {
    let model = CostModel::tokens().unwrap();
    let options = StepOptions {
        microbatches_per_rank: 4,
        ..StepOptions::new(32, 4096)
    };
    let mut context = StepContext::new().unwrap();
    assert_eq!(context.kept_bytes(), 0);
    context.reserve(&model, 5000, &options).unwrap();
    assert!(context.kept_bytes() >= 5000 * 8);
    let docs = lengths(3000, 3, 300);
    let plan = context.plan_step(&docs, &model, &options).unwrap();
    drop(context);
    assert_same(&plan_step(&docs, &model, &options).unwrap(), &plan);
}

#[test]
fn errors_are_plan_steps() {
    let model = CostModel::tokens().unwrap();
    let mut context = StepContext::new().unwrap();
    let bad = StepOptions::new(0, 16);
    let e = context.plan_step(&[5, 7], &model, &bad).err().unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    let e = context.reserve(&model, 10, &bad).err().unwrap();
    assert_eq!(e.status(), Status::InvalidArgument);
    let e = context
        .reserve(&model, 1 << 40, &StepOptions::new(1, 16))
        .err()
        .unwrap();
    assert_eq!(e.status(), Status::OutOfRange);
}
