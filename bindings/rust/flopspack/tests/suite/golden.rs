//! The golden vectors (tests/golden/*.json, from the C++ core): the Rust
//! binding must reproduce every cost, assignment and metric to the last bit.

use crate::common::json::Json;
use flopspack::{
    balance, bucket_padding, optimize_buckets, pack, plan_step, plan_step_with_extra_costs,
    simulate, simulate_sweep, AttentionSpan, BalanceAlgorithm, BalanceOptions, Binning,
    BucketBudget, BucketSampler, BucketSamplerOptions, CostModel, FitTerms, HistogramOptions,
    Overflow, PackAlgorithm, PackOptions, PipelineSchedule, Plan, SimPolicy, SimSeries,
    SimulateOptions, SlotOrder, Stats, StepAlgorithm, StepOptions, StepPlanner, StepPlannerOptions,
    StreamOptions, StreamPacker, SyncModel, TransformerConfig, Weighting,
};
use std::path::PathBuf;

fn load(name: &str) -> Vec<Json> {
    let dir = std::env::var("FLOPSPACK_GOLDEN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/golden")
        });
    let text = std::fs::read_to_string(dir.join(name)).expect("golden file");
    let file = Json::parse(&text);
    assert_eq!(file.get("format").str(), "flopspack-golden-1");
    file.get("cases").array().to_vec()
}

fn same(what: &str, got: f64, want: f64) {
    if got.is_nan() && want.is_nan() {
        return; // "nan": a figure that does not apply
    }
    assert_eq!(got.to_bits(), want.to_bits(), "{what}: {got:e} vs {want:e}");
}

/// A golden double: a number, or the string "nan".
fn golden_float(v: &Json) -> f64 {
    match v {
        Json::Str(s) if s == "nan" => f64::NAN,
        other => other.float(),
    }
}

/// Compares a struct's fields (as f64: exact for the integers here) with a
/// golden object, field by field, both ways.
fn same_fields(what: &str, got: &[(&str, f64)], want: &Json) {
    assert_eq!(got.len(), want.object().len(), "{what}: field count");
    for (name, value) in got {
        same(
            &format!("{what} {name}"),
            *value,
            golden_float(want.get(name)),
        );
    }
}

fn make_model(spec: &Json) -> Option<CostModel> {
    if *spec == Json::Null {
        return None;
    }
    let f = |k: &str| spec.get(k).float();
    let i = |k: &str| spec.get(k).int();
    Some(
        match spec.get("kind").str() {
            "tokens" => CostModel::tokens(),
            "polynomial" => CostModel::polynomial(
                f("per_sequence"),
                f("per_document"),
                f("linear"),
                f("quadratic"),
            ),
            "transformer" => CostModel::transformer(&TransformerConfig {
                num_layers: i("num_layers"),
                hidden_size: i("hidden_size"),
                num_attention_heads: i("num_attention_heads"),
                num_key_value_heads: i("num_key_value_heads"),
                head_dim: i("head_dim"),
                intermediate_size: i("intermediate_size"),
                vocab_size: i("vocab_size"),
                gated_mlp: i("gated_mlp") == 1,
                causal: i("causal") == 1,
                recompute: i("recompute") == 1,
                attention_span: if i("attention_span") == 1 {
                    AttentionSpan::Sequence
                } else {
                    AttentionSpan::Document
                },
            }),
            "fit" => fit(spec).map(|(m, _)| m),
            other => panic!("unknown model kind {other}"),
        }
        .expect("model"),
    )
}

fn fit(spec: &Json) -> flopspack::Result<(CostModel, flopspack::FitReport)> {
    let offsets: Vec<usize> = spec
        .get("offsets")
        .ints()
        .into_iter()
        .map(|o| o as usize)
        .collect();
    CostModel::fit_csr(
        &spec.get("lengths").ints(),
        &offsets,
        &spec.get("seconds").floats(),
        FitTerms(spec.get("terms").int() as u32),
    )
}

macro_rules! fields_map {
    ($s:expr, $($f:ident),*) => {{
        let s = $s;
        // Integer fields are compared as f64: exact below 2^53, which the
        // golden counts are far from.
        vec![$((stringify!($f), s.$f as f64)),*]
    }};
}

fn check_plan(where_: &str, plan: &Plan, want: &Json) {
    let groups = want.get("groups").array();
    assert_eq!(plan.len(), groups.len(), "{where_}");
    for (g, wg) in groups.iter().enumerate() {
        let got = plan.group(g).unwrap();
        assert_eq!(
            got.items,
            wg.get("items").ints().as_slice(),
            "{where_} group {g}"
        );
        assert_eq!(
            got.tokens,
            wg.get("tokens").ints().as_slice(),
            "{where_} group {g}"
        );
        assert_eq!(
            got.offsets,
            wg.get("offsets").ints().as_slice(),
            "{where_} group {g} offsets"
        );
        assert_eq!(got.info.real_tokens, wg.get("real_tokens").int());
        assert_eq!(got.info.computed_tokens, wg.get("computed_tokens").int());
        same(
            &format!("{where_} group {g} cost"),
            got.info.cost,
            wg.get("cost").float(),
        );
        let slot = wg
            .opt("slot")
            .map(|s| (s.array()[0].int() as usize, s.array()[1].int() as usize));
        assert_eq!(got.slot, slot, "{where_} group {g}");
    }
    assert_eq!(plan.deferred(), want.get("deferred").ints().as_slice());
    assert_eq!(plan.dropped(), want.get("dropped").ints().as_slice());
    let m = plan.metrics();
    let got = fields_map!(
        m,
        num_groups,
        num_items,
        max_group_cost,
        mean_group_cost,
        min_group_cost,
        total_cost,
        balance_efficiency,
        lower_bound,
        gap_to_lower_bound,
        real_tokens,
        computed_tokens,
        capacity,
        fill,
        padding_efficiency,
        num_ranks,
        microbatches_per_rank,
        max_rank_cost,
        mean_rank_cost,
        rank_balance_efficiency,
        rank_lower_bound,
        rank_gap_to_lower_bound,
        worst_slot_balance,
        split_items,
        truncated_items,
        deferred_items,
        dropped_items,
        truncated_tokens,
        deferred_tokens,
        dropped_tokens,
        num_steps,
        diversity_distance,
        diversity_distance_samples,
        planned_by,
        microbatch_sync_efficiency,
        mean_slot_balance,
        microbatch_sync_cost,
        microbatch_sync_lower_bound,
        microbatch_sync_gap_to_lower_bound,
        pipeline_makespan,
        pipeline_efficiency,
        pipeline_lower_bound,
        pipeline_gap_to_lower_bound
    );
    let metrics = want.get("metrics").object();
    assert_eq!(got.len(), metrics.len(), "{where_}: metrics fields");
    for (name, value) in got {
        match metrics
            .get(name)
            .unwrap_or_else(|| panic!("{name} not in the file"))
        {
            Json::Int(i) => assert_eq!(value, *i as f64, "{where_} {name}"),
            other => same(&format!("{where_} {name}"), value, other.float()),
        }
    }
}

#[test]
fn golden_cost_models() {
    let cases = load("cost_models.json");
    assert!(cases.len() >= 8);
    for c in &cases {
        let name = c.get("name").str();
        let model = make_model(c.get("model")).unwrap();
        same(
            name,
            model.sequence_overhead(),
            c.get("sequence_overhead").float(),
        );
        assert_eq!(
            model.is_additive(),
            c.get("is_additive").int() == 1,
            "{name}"
        );
        if let Some(want) = c.opt("fit_report") {
            let (_, r) = fit(c.get("model")).unwrap();
            let got = fields_map!(
                r,
                per_sequence,
                per_document,
                linear,
                quadratic,
                r_squared,
                rms_residual,
                num_samples
            );
            assert_eq!(got.len(), want.object().len());
            for (k, v) in got {
                same(&format!("{name} {k}"), v, want.get(k).float());
            }
        }
        for q in c.get("queries").array() {
            let lengths = q.get("lengths").ints();
            same(
                name,
                model.sequence_cost(&lengths).unwrap(),
                q.get("sequence_cost").float(),
            );
            same(
                name,
                model.padded_batch_cost(&lengths).unwrap(),
                q.get("padded_batch_cost").float(),
            );
            let per = model.document_costs(&lengths).unwrap();
            for (got, want) in per.iter().zip(q.get("document_costs").floats()) {
                same(name, *got, want);
            }
        }
    }
}

#[test]
fn golden_stream_packer() {
    let cases = load("stream_packer.json");
    assert!(cases.len() >= 3);
    for c in &cases {
        let name = c.get("name").str();
        let o = c.get("options");
        let options = StreamOptions {
            capacity: o.get("capacity").int(),
            window: o.get("window").int() as u64,
            overflow: match o.get("overflow").int() {
                0 => Overflow::Error,
                1 => Overflow::Truncate,
                _ => Overflow::Split,
            },
            seed: o.get("seed").int() as u64,
        };
        let model = make_model(c.get("model"));
        let mut packer = StreamPacker::new(&options, model.as_ref()).unwrap();
        drop(model); // the packer keeps what it needs
        for (step, op) in c.get("script").array().iter().enumerate() {
            let where_ = format!("{name} step {step}");
            match op.get("op").str() {
                "push" => packer.push(&op.get("lengths").ints()).unwrap(),
                "flush" => packer.flush().unwrap(),
                "ready" => assert_eq!(packer.ready() as i64, op.get("expect").int(), "{where_}"),
                "take" => check_plan(&where_, &packer.take().unwrap(), op.get("plan")),
                "totals" => {
                    let t = packer.totals();
                    let got = fields_map!(
                        t,
                        documents_pushed,
                        pieces_held,
                        sequences_emitted,
                        tokens_emitted,
                        split_documents,
                        truncated_documents,
                        truncated_tokens
                    );
                    assert_eq!(got.len(), op.get("expect").object().len());
                    for (k, v) in got {
                        assert_eq!(v, op.get("expect").get(k).int() as f64, "{where_} {k}");
                    }
                }
                other => panic!("unknown op {other}"),
            }
        }
    }
}

#[test]
fn golden_buckets() {
    let cases = load("buckets.json");
    assert!(cases.len() >= 6);
    for c in &cases {
        let name = c.get("name").str();
        let lengths = c.get("lengths").ints();
        if c.get("op").str() == "optimize" {
            let bounds = optimize_buckets(&lengths, c.get("num_buckets").int() as usize).unwrap();
            assert_eq!(bounds, c.get("upper_bounds").ints(), "{name}");
            assert_eq!(
                bucket_padding(&lengths, &bounds).unwrap(),
                c.get("padding").int(),
                "{name}"
            );
            continue;
        }
        let o = c.get("options");
        let budget = if o.get("budget_kind").int() == 1 {
            BucketBudget::Cost(o.get("max_batch_cost").float())
        } else {
            BucketBudget::PaddedTokens(o.get("max_padded_tokens").int())
        };
        let explicit = o.get("upper_bounds").ints();
        let options = BucketSamplerOptions {
            num_buckets: o.get("num_buckets").int() as u32,
            upper_bounds: (!explicit.is_empty()).then_some(explicit),
            drop_last: o.get("drop_last").int() == 1,
            num_ranks: o.get("num_ranks").int() as u64,
            accumulation_steps: o.get("accumulation_steps").int() as u64,
            seed: o.get("seed").int() as u64,
            ..BucketSamplerOptions::new(budget)
        };
        let model = make_model(c.get("model"));
        let sampler = BucketSampler::new(&lengths, &options, model.as_ref()).unwrap();
        drop(model);
        assert_eq!(
            sampler.steps_per_epoch() as i64,
            c.get("steps_per_epoch").int(),
            "{name}"
        );
        assert_eq!(
            sampler.upper_bounds(),
            c.get("upper_bounds").ints().as_slice(),
            "{name}"
        );
        for e in c.get("epochs").array() {
            let plan = sampler.epoch(e.get("epoch").int() as u64).unwrap();
            check_plan(&format!("{name} epoch"), &plan, e.get("plan"));
            let (tokens, samples) = sampler.step_diversity(&plan).unwrap();
            let want_t = e.get("token_distances").floats();
            let want_s = e.get("sample_distances").floats();
            assert_eq!(tokens.len(), want_t.len());
            for i in 0..tokens.len() {
                same(name, tokens[i], want_t[i]);
                same(name, samples[i], want_s[i]);
            }
        }
        for st in c.get("steps").array() {
            let plan = sampler
                .step(st.get("epoch").int() as u64, st.get("step").int() as u64)
                .unwrap();
            check_plan(&format!("{name} step"), &plan, st.get("plan"));
        }
    }
}

fn step_options(o: &Json) -> StepOptions {
    StepOptions {
        num_ranks: o.get("num_ranks").int() as u32,
        microbatches_per_rank: o.get("microbatches_per_rank").int() as u32,
        algorithm: match o.get("algorithm").int() {
            0 => StepAlgorithm::Documents,
            1 => StepAlgorithm::Random,
            2 => StepAlgorithm::Tokens,
            _ => StepAlgorithm::Sequences,
        },
        max_tokens_per_microbatch: o.get("max_tokens_per_microbatch").int(),
        seed: o.get("seed").int() as u64,
        ordering: match o.get("ordering").int() {
            0 => SlotOrder::Descending,
            1 => SlotOrder::LightEnds,
            _ => SlotOrder::AsPlanned,
        },
        overflow: match o.get("overflow").int() {
            0 => Overflow::Error,
            1 => Overflow::Truncate,
            2 => Overflow::Split,
            _ => Overflow::Defer,
        },
        sync: match o.get("sync").int() {
            0 => SyncModel::Step,
            _ => SyncModel::Microbatch,
        },
        pipeline_stages: o.get("pipeline_stages").int() as u32,
        pipeline_schedule: PipelineSchedule::OneFOneB,
        context_parallel_size: o.get("context_parallel_size").int() as u32,
        context_parallel_layout: match o.get("context_parallel_layout").int() {
            0 => flopspack::CpLayout::SequenceHeadTail,
            1 => flopspack::CpLayout::DocumentHeadTail,
            _ => flopspack::CpLayout::Adaptive,
        },
    }
}

#[test]
fn golden_step_planner() {
    let cases = load("step_planner.json");
    assert!(cases.len() >= 8);
    for c in &cases {
        let name = c.get("name").str();
        let model = make_model(c.get("model")).unwrap();
        let options = step_options(c.get("options"));
        if c.get("op").str() == "plan_step" {
            let plan = plan_step(&c.get("lengths").ints(), &model, &options).unwrap();
            check_plan(name, &plan, c.get("plan"));
            continue;
        }
        if c.get("op").str() == "plan_step_with_extra_costs" {
            let extra = c.get("extra_costs").floats();
            let plan = plan_step_with_extra_costs(
                &c.get("lengths").ints(),
                Some(&extra),
                &model,
                &options,
            )
            .unwrap();
            check_plan(name, &plan, c.get("plan"));
            continue;
        }
        let p = c.get("planner_options");
        let queue = StepPlannerOptions {
            tokens_per_step: p.get("tokens_per_step").int(),
            max_defer_steps: p.get("max_defer_steps").int() as u32,
            outlier_min_tokens: p.get("outlier_min_tokens").int(),
            max_outliers_per_step: p.get("max_outliers_per_step").int(),
        };
        let mut planner = StepPlanner::new(&model, &options, &queue).unwrap();
        drop(model);
        for (i, op) in c.get("script").array().iter().enumerate() {
            let where_ = format!("{name} op {i}");
            match op.get("op").str() {
                "push" => assert_eq!(
                    planner.push(&op.get("lengths").ints()).unwrap(),
                    op.get("first_id").int(),
                    "{where_}"
                ),
                "pending" => {
                    let p = planner.pending();
                    let e = op.get("expect");
                    assert_eq!(
                        (p.documents as i64, p.tokens, p.steps as i64),
                        (
                            e.get("documents").int(),
                            e.get("tokens").int(),
                            e.get("steps").int()
                        ),
                        "{where_}"
                    );
                }
                "next" => check_plan(&where_, &planner.next_plan().unwrap(), op.get("plan")),
                other => panic!("unknown op {other}"),
            }
        }
    }
}

#[test]
fn golden_pack_and_balance() {
    let cases = load("pack_balance.json");
    assert!(cases.len() >= 10);
    for c in &cases {
        let name = c.get("name").str();
        let o = c.get("options");
        let plan = if c.get("op").str() == "pack" {
            let model = make_model(c.get("model"));
            let options = PackOptions {
                algorithm: match o.get("algorithm").int() {
                    0 => PackAlgorithm::BestFitDecreasing,
                    1 => PackAlgorithm::FirstFitDecreasing,
                    2 => PackAlgorithm::NextFit,
                    _ => PackAlgorithm::ShuffledFirstFit,
                },
                capacity: o.get("capacity").int(),
                overflow: match o.get("overflow").int() {
                    0 => Overflow::Error,
                    1 => Overflow::Truncate,
                    _ => Overflow::Split,
                },
                seed: o.get("seed").int() as u64,
            };
            pack(&c.get("lengths").ints(), &options, model.as_ref()).unwrap()
        } else {
            let options = BalanceOptions {
                algorithm: match o.get("algorithm").int() {
                    0 => BalanceAlgorithm::Auto,
                    1 => BalanceAlgorithm::Greedy,
                    2 => BalanceAlgorithm::Lpt,
                    _ => BalanceAlgorithm::KarmarkarKarp,
                },
                equal_count: o.get("equal_count").int() == 1,
                refine: o.get("refine").int() == 1,
                max_tokens_per_group: o.get("max_tokens_per_group").int(),
                seed: o.get("seed").int() as u64,
                ..BalanceOptions::new(o.get("num_groups").int())
            };
            let tokens = c.get("tokens").ints();
            balance(
                &c.get("costs").floats(),
                (!tokens.is_empty()).then_some(tokens.as_slice()),
                &options,
            )
            .unwrap()
        };
        check_plan(name, &plan, c.get("plan"));
    }
}

fn weighting(w: usize) -> Weighting {
    [Weighting::Count, Weighting::Tokens, Weighting::Cost][w]
}

#[test]
fn golden_stats_and_simulate() {
    let cases = load("stats_simulate.json");
    assert!(cases.len() >= 5);
    for c in &cases {
        let name = c.get("name").str();
        let model = make_model(c.get("model"));
        let lengths = c.get("lengths").ints();
        if c.get("op").str() == "stats" {
            let s = Stats::new(&lengths, model.as_ref()).unwrap();
            let b = Stats::new(&c.get("other").ints(), model.as_ref()).unwrap();
            let summary_fields = |v: flopspack::StatsSummary| {
                fields_map!(
                    v,
                    count,
                    distinct_lengths,
                    tokens,
                    mean,
                    stddev,
                    min,
                    max,
                    p50,
                    p90,
                    p99,
                    p999,
                    has_cost,
                    total_cost,
                    mean_cost,
                    max_cost
                )
            };
            same_fields(name, &summary_fields(s.summary()), c.get("summary"));
            for (level, want) in c
                .get("levels")
                .floats()
                .iter()
                .zip(c.get("quantiles").array())
            {
                for (w, value) in want.floats().iter().enumerate() {
                    same(name, s.quantile(*level, weighting(w)).unwrap(), *value);
                }
            }
            for (at, want) in c.get("cdf_at").ints().iter().zip(c.get("cdf").array()) {
                for (w, value) in want.floats().iter().enumerate() {
                    same(name, s.cdf(*at, weighting(w)).unwrap(), *value);
                }
            }
            for h in c.get("histograms").array() {
                let options = HistogramOptions {
                    binning: if h.get("binning").int() == 0 {
                        Binning::Linear
                    } else {
                        Binning::Log2
                    },
                    weighting: weighting(h.get("weighting").int() as usize),
                    normalized: h.get("normalized").int() == 1,
                    width: 0,
                };
                let (edges, weights) = s.histogram(&options).unwrap();
                assert_eq!(edges, h.get("upper_edges").ints(), "{name}");
                for (got, want) in weights.iter().zip(h.get("weights").floats()) {
                    same(name, *got, want);
                }
            }
            for t in c.get("tails").array() {
                let v = s.tail(t.get("threshold").int());
                let got = fields_map!(
                    v,
                    documents,
                    tokens,
                    cost,
                    document_share,
                    token_share,
                    cost_share
                );
                for (k, value) in got {
                    same(&format!("{name} tail {k}"), value, golden_float(t.get(k)));
                }
            }
            for (draws, want) in c
                .get("draws")
                .ints()
                .iter()
                .zip(c.get("expected_max").floats())
            {
                same(name, s.expected_max(*draws as u64).unwrap(), want);
            }
            for (w, want) in c.get("ks").array().iter().enumerate() {
                let (d, length) = s.ks_distance(&b, weighting(w)).unwrap();
                same(name, d, want.array()[0].float());
                assert_eq!(length, want.array()[1].int());
            }
            let cmp = s.compare(&b).unwrap();
            let want = c.get("comparison");
            let got = fields_map!(
                cmp,
                ks_distance,
                ks_length,
                ks_distance_tokens,
                ks_length_tokens,
                first_divergent_level,
                tail_threshold,
                token_share_above_a,
                token_share_above_b,
                cost_share_above_a,
                cost_share_above_b
            );
            for (k, value) in got {
                same(
                    &format!("{name} comparison {k}"),
                    value,
                    golden_float(want.get(k)),
                );
            }
            assert_eq!(cmp.levels.to_vec(), want.get("levels").floats());
            assert_eq!(cmp.quantiles_a.to_vec(), want.get("quantiles_a").ints());
            assert_eq!(cmp.quantiles_b.to_vec(), want.get("quantiles_b").ints());
            let (l, n) = s.entries();
            assert_eq!(l, c.get("entries").get("lengths").ints());
            assert_eq!(
                n.iter().map(|&x| x as i64).collect::<Vec<_>>(),
                c.get("entries").get("counts").ints()
            );
            continue;
        }
        let o = c.get("options");
        let options = SimulateOptions {
            policy: [
                SimPolicy::Random,
                SimPolicy::TokenBalanced,
                SimPolicy::Buckets,
                SimPolicy::PlannerDocuments,
                SimPolicy::PlannerRandom,
                SimPolicy::PlannerTokens,
                SimPolicy::PlannerSequences,
            ][o.get("policy").int() as usize],
            num_ranks: o.get("num_ranks").int() as u64,
            microbatches_per_rank: o.get("microbatches_per_rank").int() as u64,
            tokens_per_microbatch: o.get("tokens_per_microbatch").int(),
            max_tokens_per_microbatch: o.get("max_tokens_per_microbatch").int(),
            num_steps: o.get("num_steps").int() as u64,
            seed: o.get("seed").int() as u64,
            record_steps: true,
            ..Default::default()
        };
        let model = model.unwrap();
        let run = simulate(&lengths, &model, &options, None).unwrap();
        let v = run.summary();
        let got = fields_map!(
            v,
            num_steps,
            num_ranks,
            microbatches_per_rank,
            documents_drawn,
            epochs,
            mean_balance_efficiency,
            p5_balance_efficiency,
            p50_balance_efficiency,
            p95_balance_efficiency,
            mean_fill,
            mean_padding_efficiency,
            relative_throughput,
            mean_step_time,
            predicted_efficiency,
            real_tokens,
            computed_tokens
        );
        same_fields(name, &got, c.get("summary"));
        let kinds = [
            SimSeries::StepTime,
            SimSeries::MeanRankCost,
            SimSeries::BalanceEfficiency,
            SimSeries::Fill,
            SimSeries::PaddingEfficiency,
            SimSeries::RealTokens,
        ];
        for (kind, want) in kinds.iter().zip(c.get("series").array()) {
            let got = run.series(*kind).unwrap();
            assert_eq!(got.len(), want.array().len());
            for (g, w) in got.iter().zip(want.floats()) {
                same(name, *g, w);
            }
        }
        let p = run.pieces().unwrap().summary();
        let got = fields_map!(
            p,
            count,
            distinct_lengths,
            tokens,
            mean,
            stddev,
            min,
            max,
            p50,
            p90,
            p99,
            p999,
            has_cost,
            total_cost,
            mean_cost,
            max_cost
        );
        same_fields(&format!("{name} pieces"), &got, c.get("pieces_summary"));
        let sw = c.get("sweep");
        let counts: Vec<u64> = sw
            .get("rank_counts")
            .ints()
            .iter()
            .map(|&k| k as u64)
            .collect();
        let sweep = simulate_sweep(&lengths, &model, &options, &counts, None).unwrap();
        for i in 0..counts.len() {
            same(
                name,
                sweep.sampled_efficiency[i],
                golden_float(&sw.get("sampled_efficiency").array()[i]),
            );
            same(
                name,
                sweep.predicted_efficiency[i],
                golden_float(&sw.get("predicted_efficiency").array()[i]),
            );
            same(
                name,
                sweep.relative_throughput[i],
                golden_float(&sw.get("relative_throughput").array()[i]),
            );
        }
    }
}

#[test]
fn golden_seeds() {
    let cases = load("seeds.json");
    assert!(cases.len() >= 25);
    for c in &cases {
        let num = |k: &str| c.get(k).str().parse::<u64>().unwrap();
        assert_eq!(
            flopspack::derive_seed(num("seed"), num("stream")),
            num("derived")
        );
    }
}

#[test]
fn golden_context_parallel() {
    let cases = load("context_parallel.json");
    assert!(cases.len() >= 4);
    for c in &cases {
        let name = c.get("name").str();
        assert_eq!(c.get("op").str(), "shard_context_parallel");
        let model = make_model(c.get("model")).unwrap();
        let plan = plan_step(
            &c.get("lengths").ints(),
            &model,
            &step_options(c.get("options")),
        )
        .unwrap();
        let cp = c.get("context_parallel_size").int() as u64;
        let layout = match c.get("layout").int() {
            0 => flopspack::CpLayout::SequenceHeadTail,
            1 => flopspack::CpLayout::DocumentHeadTail,
            _ => flopspack::CpLayout::Adaptive,
        };
        let shard = flopspack::shard_context_parallel(&plan, &model, cp, layout).unwrap();
        let groups = c.get("groups").array();
        assert_eq!(shard.len(), groups.len(), "{name}");
        for (g, want) in groups.iter().enumerate() {
            let (used, balance) = shard.layout(g).unwrap();
            let used_code = match used {
                flopspack::CpLayout::SequenceHeadTail => 0,
                flopspack::CpLayout::DocumentHeadTail => 1,
                flopspack::CpLayout::Adaptive => 2,
            };
            assert_eq!(used_code, want.get("layout").int(), "{name} group {g}");
            same(name, balance, golden_float(want.get("balance")));
            for (r, rank) in want.get("ranks").array().iter().enumerate() {
                let chunks = shard.chunks(g, r).unwrap();
                assert_eq!(chunks.items, rank.get("items").ints(), "{name} {g} {r}");
                assert_eq!(chunks.offsets, rank.get("offsets").ints(), "{name} {g} {r}");
                assert_eq!(chunks.lengths, rank.get("lengths").ints(), "{name} {g} {r}");
                let (cost, kv) = shard.rank_cost(g, r).unwrap();
                same(name, cost, golden_float(rank.get("cost")));
                assert_eq!(kv, rank.get("kv_tokens").int(), "{name} {g} {r}");
            }
        }
        let m = shard.metrics();
        let got = [
            ("context_parallel_size", m.context_parallel_size as f64),
            ("num_groups", m.num_groups as f64),
            ("num_chunks", m.num_chunks as f64),
            ("balance_efficiency", m.balance_efficiency),
            ("worst_balance", m.worst_balance),
            ("max_cp_rank_cost", m.max_cp_rank_cost),
            ("mean_cp_rank_cost", m.mean_cp_rank_cost),
            ("kv_tokens", m.kv_tokens as f64),
            ("sequence_layout_groups", m.sequence_layout_groups as f64),
            ("document_layout_groups", m.document_layout_groups as f64),
        ];
        same_fields(name, &got, c.get("metrics"));
    }
}
