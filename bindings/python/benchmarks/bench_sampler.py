"""Time PlannedBatchSampler takes to plan one epoch (it plans the whole
epoch when first needed), for a corpus shaped like real data.
Run: PYTHONPATH=build/dev/bindings/python /usr/bin/python3 bindings/python/benchmarks/bench_sampler.py
"""
import time

import numpy as np

import flopspack
from flopspack._epoch_plan import EpochPlanOptions, plan_epoch

CAP = 16384
rng = np.random.default_rng(0)
model = flopspack.CostModel.preset("llama3-8b")
for n, ranks, m in ((100_000, 8, 4), (1_000_000, 64, 4)):
    lengths = np.clip(rng.lognormal(np.log(1500), 1.0, n), 1, None).astype(np.int64)
    tail = rng.random(n) < 0.002
    lengths[tail] = np.minimum(CAP * (1 + rng.pareto(1.2, tail.sum())), 20 * CAP).astype(np.int64)
    options = EpochPlanOptions(tokens_per_step=int(0.97 * ranks * m * CAP),
                               max_tokens_per_microbatch=CAP, microbatches_per_rank=m,
                               dp_size=ranks, outlier_min_tokens=CAP // 2)
    t = time.perf_counter()
    plan = plan_epoch(lengths, model, options, epoch=0, dp_rank=0)
    seconds = time.perf_counter() - t
    print(f"{n:>9} documents ({lengths.sum() / 1e9:.2f}B tokens), {ranks} ranks x {m} x {CAP}: "
          f"{plan.steps} steps planned in {seconds:.2f} s "
          f"({1e3 * seconds / plan.steps:.1f} ms/step)")
