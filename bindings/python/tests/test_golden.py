"""The golden vectors (tests/golden/*.json, from the C++ core): the Python
binding must reproduce every cost, assignment and metric to the last bit."""
import dataclasses
import json
import math
import struct

import numpy as np
import pytest

import flopspack


def bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def same(actual, expected, what=""):
    if expected == "nan":  # a figure that does not apply
        assert math.isnan(actual), f"{what}: {actual!r} vs nan"
        return
    assert bits(actual) == bits(expected), f"{what}: {actual!r} vs {expected!r}"


def same_fields(got, want, what):
    """Every field of a golden struct: ints exactly, floats bit for bit."""
    got = dataclasses.asdict(got) if dataclasses.is_dataclass(got) else got
    for name, value in want.items():
        if isinstance(value, int):
            assert got[name] == value, f"{what} {name}"
        else:
            same(got[name], value, f"{what} {name}")


def load(golden_dir, name):
    data = json.loads((golden_dir / name).read_text())
    assert data["format"] == "flopspack-golden-1"
    return data["cases"]


def make_model(spec):
    if spec is None:
        return None
    kind = spec["kind"]
    if kind == "tokens":
        return flopspack.CostModel.tokens()
    if kind == "polynomial":
        return flopspack.CostModel.polynomial(
            spec["per_sequence"], spec["per_document"], spec["linear"], spec["quadratic"])
    if kind == "transformer":
        fields = {f.name for f in dataclasses.fields(flopspack.TransformerConfig)}
        return flopspack.CostModel.transformer(
            flopspack.TransformerConfig(**{k: v for k, v in spec.items() if k in fields}))
    if kind == "fit":
        model, _ = flopspack.CostModel.fit_csr(
            spec["lengths"], spec["offsets"], spec["seconds"], flopspack.FitTerm(spec["terms"]))
        return model
    raise AssertionError(f"unknown model kind {kind}")


def check_plan(plan, want, where):
    assert len(plan) == len(want["groups"]), where
    for g, wg in enumerate(want["groups"]):
        group = plan[g]
        np.testing.assert_array_equal(group.items, wg["items"], err_msg=f"{where} group {g}")
        np.testing.assert_array_equal(group.tokens, wg["tokens"])
        np.testing.assert_array_equal(group.offsets, wg["offsets"], err_msg=f"{where} group {g}")
        assert (group.real_tokens, group.computed_tokens) == (wg["real_tokens"], wg["computed_tokens"])
        same(group.cost, wg["cost"], f"{where} group {g} cost")
        if "slot" in wg:
            assert [group.rank, group.slot] == wg["slot"]
        else:
            assert group.rank is None
    np.testing.assert_array_equal(plan.deferred, want["deferred"])
    np.testing.assert_array_equal(plan.dropped, want["dropped"])
    metrics = dataclasses.asdict(plan.metrics)
    assert set(metrics) == set(want["metrics"]), "metrics fields: file vs binding"
    for name, value in want["metrics"].items():
        if isinstance(value, float):
            same(metrics[name], value, f"{where} {name}")
        else:
            assert metrics[name] == value, f"{where} {name}"


def test_cost_models(golden_dir):
    cases = load(golden_dir, "cost_models.json")
    assert len(cases) >= 8
    for case in cases:
        model = make_model(case["model"])
        same(model.sequence_overhead, case["sequence_overhead"], case["name"])
        assert model.is_additive == bool(case["is_additive"])
        if "fit_report" in case:
            spec = case["model"]
            _, report = flopspack.CostModel.fit_csr(
                spec["lengths"], spec["offsets"], spec["seconds"], flopspack.FitTerm(spec["terms"]))
            for name, value in case["fit_report"].items():
                same(getattr(report, name), value, f"{case['name']} {name}")
        for q in case["queries"]:
            lengths = np.asarray(q["lengths"], dtype=np.int64)
            same(model.sequence_cost(lengths), q["sequence_cost"], case["name"])
            same(model.padded_batch_cost(lengths), q["padded_batch_cost"], case["name"])
            per = model.document_costs(lengths)
            assert [bits(x) for x in per] == [bits(x) for x in q["document_costs"]], case["name"]


def test_stream_packer(golden_dir):
    cases = load(golden_dir, "stream_packer.json")
    assert len(cases) >= 3
    for case in cases:
        o = case["options"]
        packer = flopspack.StreamPacker(
            o["capacity"], window=o["window"], overflow=flopspack.Overflow(o["overflow"]),
            seed=o["seed"], model=make_model(case["model"]))
        for step, op in enumerate(case["script"]):
            where = f"{case['name']} step {step}"
            if op["op"] == "push":
                packer.push(op["lengths"])
            elif op["op"] == "flush":
                packer.flush()
            elif op["op"] == "ready":
                assert packer.ready == op["expect"], where
            elif op["op"] == "take":
                with packer.take() as plan:
                    check_plan(plan, op["plan"], where)
            elif op["op"] == "totals":
                assert dataclasses.asdict(packer.totals) == op["expect"], where
            else:
                pytest.fail(f"unknown op {op['op']}")


def test_buckets(golden_dir):
    cases = load(golden_dir, "buckets.json")
    assert len(cases) >= 6
    for case in cases:
        name = case["name"]
        if case["op"] == "optimize":
            bounds = flopspack.optimize_buckets(case["lengths"], case["num_buckets"])
            assert bounds.tolist() == case["upper_bounds"], name
            assert flopspack.bucket_padding(case["lengths"], bounds) == case["padding"], name
            continue
        o = case["options"]
        kwargs = dict(num_buckets=o["num_buckets"], drop_last=bool(o["drop_last"]),
                      num_ranks=o["num_ranks"], accumulation_steps=o["accumulation_steps"],
                      seed=o["seed"], model=make_model(case["model"]),
                      upper_bounds=o["upper_bounds"] or None)
        if o["budget_kind"] == flopspack.BucketBudget.COST:
            kwargs["max_batch_cost"] = o["max_batch_cost"]
        else:
            kwargs["max_padded_tokens"] = o["max_padded_tokens"]
        sampler = flopspack.BucketSampler(case["lengths"], **kwargs)
        assert sampler.steps_per_epoch == case["steps_per_epoch"], name
        assert sampler.upper_bounds.tolist() == case["upper_bounds"], name
        for e in case["epochs"]:
            with sampler.epoch(e["epoch"]) as plan:
                check_plan(plan, e["plan"], f"{name} epoch {e['epoch']}")
                tokens, samples = sampler.step_diversity(plan)
                assert [bits(x) for x in tokens] == [bits(x) for x in e["token_distances"]]
                assert [bits(x) for x in samples] == [bits(x) for x in e["sample_distances"]]
        for st in case["steps"]:
            with sampler.step(st["epoch"], st["step"]) as plan:
                check_plan(plan, st["plan"], f"{name} step {st['step']}")


def step_kwargs(o):
    return dict(num_ranks=o["num_ranks"], microbatches_per_rank=o["microbatches_per_rank"],
                algorithm=flopspack.StepAlgorithm(o["algorithm"]),
                max_tokens_per_microbatch=o["max_tokens_per_microbatch"], seed=o["seed"],
                ordering=flopspack.SlotOrder(o["ordering"]),
                overflow=flopspack.Overflow(o["overflow"]),
                sync=flopspack.Sync(o["sync"]), pipeline_stages=o["pipeline_stages"],
                pipeline_schedule=flopspack.PipelineSchedule(o["pipeline_schedule"]),
                context_parallel_size=o["context_parallel_size"],
                context_parallel_layout=flopspack.CpLayout(o["context_parallel_layout"]))


def test_step_planner(golden_dir):
    cases = load(golden_dir, "step_planner.json")
    assert len(cases) >= 8
    for case in cases:
        name = case["name"]
        model = make_model(case["model"])
        if case["op"] == "plan_step":
            with flopspack.plan_step(case["lengths"], model, **step_kwargs(case["options"])) as plan:
                check_plan(plan, case["plan"], name)
            continue
        if case["op"] == "plan_step_with_extra_costs":
            with flopspack.plan_step(case["lengths"], model, extra_costs=case["extra_costs"],
                                     **step_kwargs(case["options"])) as plan:
                check_plan(plan, case["plan"], name)
            continue
        p = case["planner_options"]
        planner = flopspack.StepPlanner(model, **step_kwargs(case["options"]), **p)
        for step, op in enumerate(case["script"]):
            where = f"{name} op {step}"
            if op["op"] == "push":
                assert planner.push(op["lengths"]) == op["first_id"], where
            elif op["op"] == "pending":
                assert planner.pending._asdict() == op["expect"], where
            elif op["op"] == "next":
                with planner.next() as plan:
                    check_plan(plan, op["plan"], where)
            else:
                pytest.fail(f"unknown op {op['op']}")


def test_pack_and_balance(golden_dir):
    cases = load(golden_dir, "pack_balance.json")
    assert len(cases) >= 10
    for case in cases:
        o = case["options"]
        if case["op"] == "pack":
            plan = flopspack.pack(case["lengths"], o["capacity"],
                                  algorithm=flopspack.PackAlgorithm(o["algorithm"]),
                                  overflow=flopspack.Overflow(o["overflow"]), seed=o["seed"],
                                  model=make_model(case["model"]))
        else:
            plan = flopspack.balance(case["costs"], o["num_groups"],
                                     tokens=case["tokens"] or None,
                                     algorithm=flopspack.BalanceAlgorithm(o["algorithm"]),
                                     equal_count=bool(o["equal_count"]), refine=bool(o["refine"]),
                                     max_tokens_per_group=o["max_tokens_per_group"],
                                     seed=o["seed"])
        with plan:
            check_plan(plan, case["plan"], case["name"])


def test_stats_and_simulate(golden_dir):
    cases = load(golden_dir, "stats_simulate.json")
    assert len(cases) >= 5
    for case in cases:
        name = case["name"]
        model = make_model(case["model"])
        if case["op"] == "stats":
            s = flopspack.Stats(case["lengths"], model)
            b = flopspack.Stats(case["other"], model)
            same_fields(s.summary, case["summary"], name)
            for level, want in zip(case["levels"], case["quantiles"]):
                for w, value in enumerate(want):
                    same(s.quantile(level, flopspack.Weighting(w)), value, f"{name} q{level}")
            for at, want in zip(case["cdf_at"], case["cdf"]):
                for w, value in enumerate(want):
                    same(s.cdf(at, flopspack.Weighting(w)), value, f"{name} cdf{at}")
            for h in case["histograms"]:
                edges, weights = s.histogram(flopspack.Binning(h["binning"]),
                                             flopspack.Weighting(h["weighting"]),
                                             bool(h["normalized"]))
                assert edges.tolist() == h["upper_edges"]
                assert [bits(x) for x in weights] == [bits(x) for x in h["weights"]]
            for t in case["tails"]:
                want = {k: v for k, v in t.items() if k != "threshold"}
                same_fields(s.tail(t["threshold"]), want, f"{name} tail")
            for draws, value in zip(case["draws"], case["expected_max"]):
                same(s.expected_max(draws), value, f"{name} max{draws}")
            for w, (d, length) in enumerate(case["ks"]):
                got_d, got_length = s.ks_distance_at(b, flopspack.Weighting(w))
                same(got_d, d, f"{name} ks{w}")
                assert got_length == length
            c = dataclasses.asdict(s.compare(b))
            want = case["comparison"]
            for key in ("levels", "quantiles_a", "quantiles_b"):
                assert [bits(x) for x in c.pop(key)] == [bits(x) for x in want[key]], key
            same_fields(c, {k: v for k, v in want.items() if k not in ("levels", "quantiles_a", "quantiles_b")}, name)
            lengths, counts = s.entries()
            assert lengths.tolist() == case["entries"]["lengths"]
            assert counts.tolist() == case["entries"]["counts"]
            continue
        o = case["options"]
        kwargs = dict(policy=flopspack.SimPolicy(o["policy"]),
                      microbatches_per_rank=o["microbatches_per_rank"],
                      tokens_per_microbatch=o["tokens_per_microbatch"],
                      max_tokens_per_microbatch=o["max_tokens_per_microbatch"],
                      num_steps=o["num_steps"], seed=o["seed"])
        sim = flopspack.simulate(case["lengths"], model, num_ranks=o["num_ranks"],
                                 record_steps=True, **kwargs)
        same_fields(sim.summary, case["summary"], name)
        for kind, want in enumerate(case["series"]):
            got = sim.series(flopspack.SimSeries(kind))
            assert [bits(x) for x in got] == [bits(x) for x in want], f"{name} series {kind}"
        same_fields(sim.pieces().summary, case["pieces_summary"], f"{name} pieces")
        sweep = flopspack.simulate_sweep(case["lengths"], model, case["sweep"]["rank_counts"], **kwargs)
        for key in ("sampled_efficiency", "predicted_efficiency", "relative_throughput"):
            for got, want in zip(getattr(sweep, key), case["sweep"][key]):
                same(got, want, f"{name} sweep {key}")


def test_seeds(golden_dir):
    cases = load(golden_dir, "seeds.json")
    assert len(cases) >= 25
    for c in cases:
        assert flopspack.derive_seed(int(c["seed"]), int(c["stream"])) == int(c["derived"])


def test_context_parallel(golden_dir):
    cases = load(golden_dir, "context_parallel.json")
    assert len(cases) >= 4
    for case in cases:
        name = case["name"]
        assert case["op"] == "shard_context_parallel"
        model = make_model(case["model"])
        cp = case["context_parallel_size"]
        with flopspack.plan_step(case["lengths"], model, **step_kwargs(case["options"])) as plan:
            shard = flopspack.shard_context_parallel(plan, model, cp,
                                                     flopspack.CpLayout(case["layout"]))
        assert len(shard) == len(case["groups"]), name
        for g, want in enumerate(case["groups"]):
            layout, balance = shard.layout(g)
            assert layout == want["layout"], (name, g)
            same(balance, want["balance"], f"{name} group {g} balance")
            for r, rank in enumerate(want["ranks"]):
                chunks = shard.chunks(g, r)
                assert chunks.items.tolist() == rank["items"], (name, g, r)
                assert chunks.offsets.tolist() == rank["offsets"], (name, g, r)
                assert chunks.lengths.tolist() == rank["lengths"], (name, g, r)
                cost, kv = shard.rank_cost(g, r)
                same(cost, rank["cost"], f"{name} group {g} rank {r} cost")
                assert kv == rank["kv_tokens"], (name, g, r)
        same_fields(shard.metrics, case["metrics"], name)
        shard.close()
