"""Time to hand 10^6 lengths to the library from Python, against the same
call from a list (which must be converted) and numpy's own sum as a floor.
Run: PYTHONPATH=build/bindings/python /usr/bin/python3 bindings/python/benchmarks/bench_large.py
"""
import timeit

import numpy as np

import flopspack

N = 1_000_000
lengths = (np.arange(N, dtype=np.int64) % 4096) + 1
as_list = lengths.tolist()
as_int32 = lengths.astype(np.int32)
model = flopspack.CostModel.tokens()


def best(fn, number=20):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


rows = [
    ("numpy int64 array (no copy)", best(lambda: model.sequence_cost(lengths))),
    ("numpy int32 array (one conversion)", best(lambda: model.sequence_cost(as_int32))),
    ("Python list (one conversion)", best(lambda: model.sequence_cost(as_list), number=3)),
    ("numpy .sum() alone (floor)", best(lambda: lengths.sum())),
]
for name, seconds in rows:
    print(f"{name:38s} {seconds * 1e3:8.3f} ms  ({seconds * 1e9 / N:6.2f} ns/length)")
