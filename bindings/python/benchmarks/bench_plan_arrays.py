"""Cost of reading a whole plan into numpy arrays (Plan.arrays(), one C call
plus the piece offsets) against the pack that made the plan, for 10^6
documents; and the old per-group loop for comparison. The target
(docs/pytorch.md): arrays() at most 20% of the pack.
Run: PYTHONPATH=build/dev/bindings/python /usr/bin/python3 bindings/python/benchmarks/bench_plan_arrays.py
"""
import time

import numpy as np

import flopspack

N = 1_000_000
CAP = 16384
rng = np.random.default_rng(0)
# Lognormal lengths (median 1,500) with a Pareto tail past the cap, so some
# documents are split into pieces.
lengths = np.clip(rng.lognormal(np.log(1500), 1.0, N), 1, None).astype(np.int64)
tail = rng.random(N) < 0.002
lengths[tail] = (CAP * (1 + rng.pareto(1.5, tail.sum()))).astype(np.int64)


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def per_group_loop(plan):
    # What Plan.to_csr() did before Plan.arrays(): two C calls per group.
    n = len(plan)
    items = [plan.items(g) for g in range(n)]
    tokens = [plan.tokens(g) for g in range(n)]
    return np.concatenate(items), np.concatenate(tokens)


for name, make in (
    ("pack (best-fit decreasing, split)",
     lambda: flopspack.pack(lengths, capacity=CAP, overflow=flopspack.Overflow.SPLIT)),
    ("plan_step (1024 ranks, split)",
     lambda: flopspack.plan_step(lengths, flopspack.CostModel.tokens(), num_ranks=1024,
                                 max_tokens_per_microbatch=CAP)),
):
    t_plan, plan = best(make)
    t_arrays, a = best(plan.arrays)
    t_loop, _ = best(lambda: per_group_loop(plan), repeat=1)
    print(f"{name}: {len(plan)} groups, {len(a.items)} entries, "
          f"{int((np.bincount(a.items) > 1).sum())} split documents")
    print(f"  plan            {t_plan * 1e3:9.1f} ms")
    print(f"  arrays()        {t_arrays * 1e3:9.1f} ms  ({100 * t_arrays / t_plan:5.1f}% of the plan)")
    print(f"  per-group loop  {t_loop * 1e3:9.1f} ms  ({100 * t_loop / t_plan:5.1f}% of the plan)")
