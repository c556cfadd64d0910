"""10^6 lengths pass without a per-element copy: tracemalloc (which sees
numpy's buffers) shows the call allocates nothing close to the 8 MB a copy
would take. The timing benchmark is benchmarks/bench_large.py."""
import tracemalloc

import numpy as np

import flopspack


def test_million_lengths_pass_without_a_copy():
    model = flopspack.CostModel.tokens()
    lengths = (np.arange(1_000_000, dtype=np.int64) % 4096) + 1
    model.sequence_cost(lengths[:10])  # warm caches
    tracemalloc.start()
    try:
        cost = model.sequence_cost(lengths)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert cost == float(lengths.sum())
    assert peak < 64 * 1024, f"the call allocated {peak} bytes: the input was copied"


def test_a_copy_would_be_seen():
    # The check above can fail: an int32 array must be converted, and is.
    model = flopspack.CostModel.tokens()
    lengths = np.ones(1_000_000, dtype=np.int32)
    tracemalloc.start()
    try:
        model.sequence_cost(lengths)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak >= 8_000_000
