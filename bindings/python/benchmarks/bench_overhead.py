"""Per-call cost of the binding's safety (docs/bindings.md, "Lifetime and
threads"): small calls where argument checks and the handle's lifetime
rule are a visible share, a custom callback (which now gets a copy of the
lengths), and a pack costed through one.
Run: PYTHONPATH=build/bindings/python /usr/bin/python3 bindings/python/benchmarks/bench_overhead.py
"""
import timeit

import numpy as np

import flopspack

tokens = flopspack.CostModel.tokens()
custom = flopspack.CostModel.custom(lambda lengths: float(lengths.sum()))
small = np.array([5, 7], dtype=np.int64)
docs = np.random.default_rng(1).lognormal(7, 1, size=5000).astype(np.int64) % 4000 + 1
plan = flopspack.pack(docs, 8192)


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


rows = [
    ("sequence_cost, 2 documents", best(lambda: tokens.sequence_cost(small), 20000)),
    ("pack, 2 documents (5 checked options)", best(lambda: flopspack.pack(small, 12), 5000)),
    ("plan.items(0)", best(lambda: plan.items(0), 20000)),
    ("plan.items(-1) (checked index)", best(lambda: plan.items(-1), 20000)),
    ("custom model, one callback", best(lambda: custom.sequence_cost(small), 20000)),
]
for name, seconds in rows:
    print(f"{name:40s} {seconds * 1e6:8.2f} us")
seconds = best(lambda: flopspack.pack(docs, 8192, model=custom), 5)
print(f"{'pack 5000 documents, custom model':40s} {seconds * 1e3:8.2f} ms")
