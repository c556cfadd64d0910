use flopspack::{
    plan_step, shard_context_parallel, CostModel, CpLayout, Overflow, PipelineSchedule, Status,
    StepAlgorithm, StepOptions, StepPlanner, StepPlannerOptions, SyncModel,
};

use crate::common::lengths;

#[test]
fn plan_step_places_every_token_once_under_the_cap() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    for seed in 0..10 {
        for algorithm in [
            StepAlgorithm::Documents,
            StepAlgorithm::Random,
            StepAlgorithm::Tokens,
            StepAlgorithm::Sequences,
        ] {
            let docs = lengths(60, seed + 1, 8000);
            let options = StepOptions {
                microbatches_per_rank: 6,
                algorithm,
                seed,
                ..StepOptions::new(4, 16384)
            };
            let plan = plan_step(&docs, &model, &options).unwrap();
            let mut tokens = vec![0i64; docs.len()];
            for (g, group) in plan.groups().enumerate() {
                assert_eq!(group.slot, Some((g / 6, g % 6)));
                assert!(group.info.real_tokens <= 16384);
                for (i, t) in group.items.iter().zip(group.tokens) {
                    tokens[*i as usize] += t;
                }
            }
            assert_eq!(tokens, docs, "seed {seed} {algorithm:?}");
        }
    }
}

#[test]
fn errors_and_exact_resume_of_the_stateful_planner() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    let e = plan_step(&[1, 2], &model, &StepOptions::new(0, 10)).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("num_ranks = 0"), "{e}");
    let tight = StepOptions {
        microbatches_per_rank: 2,
        ..StepOptions::new(1, 1000)
    };
    assert_eq!(
        plan_step(&[900; 5], &model, &tight).unwrap_err().status(),
        Status::Infeasible
    );
    let deferring = StepOptions {
        overflow: Overflow::Defer,
        ..tight
    };
    assert_eq!(
        plan_step(&[900; 5], &model, &deferring)
            .unwrap()
            .deferred()
            .len(),
        3
    );

    let options = StepOptions {
        microbatches_per_rank: 2,
        ..StepOptions::new(2, 8192)
    };
    let queue = StepPlannerOptions {
        outlier_min_tokens: 6000,
        ..StepPlannerOptions::default()
    };
    let mut planner = StepPlanner::new(&model, &options, &queue).unwrap();
    let docs = lengths(200, 3, 8000);
    assert_eq!(planner.push(&docs[..120]).unwrap(), 0);
    assert_eq!(planner.push(&docs[120..]).unwrap(), 120);
    planner.next_plan().unwrap();
    let state = planner.save().unwrap();
    let mut twin = StepPlanner::restore(&state, &model).unwrap();
    for _ in 0..4 {
        let (a, b) = (planner.next_plan().unwrap(), twin.next_plan().unwrap());
        assert!(a.groups().eq(b.groups()));
    }
    assert_eq!(planner.pending(), twin.pending());
    assert_eq!(planner.pending().steps, 5);
    assert!(StepPlanner::restore(&state[..state.len() - 1], &model).is_err());
    assert!(planner
        .push(&[5, -2])
        .unwrap_err()
        .message()
        .contains("lengths[1] = -2"));
    fn assert_send<T: Send>() {}
    assert_send::<StepPlanner>();
}

#[test]
fn metrics_say_which_algorithm_planned() {
    // 8 ranks x 1 microbatch of 8,192 tokens, cap 10,240; the first document
    // costs far more than a rank's share, so the planner falls back.
    let mut docs = vec![12000i64];
    docs.extend(std::iter::repeat(1500).take(35));
    docs.push(8 * 8192 - 12000 - 35 * 1500);
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1.0 / 1024.0).unwrap();
    let mut options = StepOptions::new(8, 10240);
    options.microbatches_per_rank = 1;
    let planned = plan_step(&docs, &model, &options).unwrap().metrics();
    options.algorithm = StepAlgorithm::Tokens;
    let tokens = plan_step(&docs, &model, &options).unwrap().metrics();
    assert_eq!(
        planned.planned_by as u32,
        flopspack::sys::FLOPSPACK_PLANNED_BY_CUT_TO_SHARE
    );
    assert!(planned.rank_balance_efficiency > tokens.rank_balance_efficiency);
    assert_eq!(
        tokens.planned_by as u32,
        flopspack::sys::FLOPSPACK_PLANNED_BY_NONE
    );
    let packed = flopspack::pack(&docs, &flopspack::PackOptions::new(16384), None).unwrap();
    assert_eq!(packed.metrics().planned_by, 0);
}

#[test]
fn sync_model_and_pipeline_metrics() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    let docs = lengths(70, 7, 12000);
    let step_options = StepOptions {
        microbatches_per_rank: 8,
        ..StepOptions::new(4, 16384)
    };
    assert_eq!(step_options.sync, SyncModel::Step);
    assert_eq!(step_options.pipeline_stages, 0);
    assert_eq!(step_options.pipeline_schedule, PipelineSchedule::OneFOneB);
    let s = plan_step(&docs, &model, &step_options).unwrap().metrics();
    let micro_options = StepOptions {
        sync: SyncModel::Microbatch,
        pipeline_stages: 4,
        ..step_options
    };
    let m = plan_step(&docs, &model, &micro_options).unwrap().metrics();
    assert!(s.microbatch_sync_efficiency > 0.0 && s.pipeline_makespan == 0.0);
    assert!(m.microbatch_sync_efficiency >= s.microbatch_sync_efficiency);
    assert!(m.mean_slot_balance >= m.worst_slot_balance);
    assert!(m.microbatch_sync_lower_bound <= m.microbatch_sync_cost);
    assert!(m.pipeline_efficiency > 0.0 && m.pipeline_efficiency < 1.0);
    assert!(m.pipeline_lower_bound <= m.pipeline_makespan);
    let too_many = StepOptions {
        pipeline_stages: 2000,
        ..micro_options
    };
    let err = plan_step(&docs, &model, &too_many).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("pipeline_stages = 2000"));
}

#[test]
fn plan_step_with_context_parallelism() {
    let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4).unwrap();
    let docs = [1500i64, 400, 300, 900, 700, 120];
    let defaults = StepOptions::new(2, 1000);
    assert_eq!(defaults.context_parallel_size, 0);
    assert_eq!(defaults.context_parallel_layout, CpLayout::DocumentHeadTail);
    let options = StepOptions {
        context_parallel_size: 2,
        context_parallel_layout: CpLayout::Adaptive,
        ..defaults
    };
    let plan = plan_step(&docs, &model, &options).unwrap();
    // A 1,500-token document fits a CP group of 2 x 1,000: whole, sharded.
    assert_eq!(plan.metrics().split_items, 0);
    let shard = shard_context_parallel(&plan, &model, 2, CpLayout::Adaptive).unwrap();
    let slowest = shard.metrics().max_cp_rank_cost;
    assert!((plan.metrics().max_group_cost - slowest).abs() <= 1e-12 * slowest);
    let too_big = StepOptions {
        context_parallel_size: 70000,
        ..options
    };
    let err = plan_step(&docs, &model, &too_big).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("context_parallel_size = 70000"));
}
