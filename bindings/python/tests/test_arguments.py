"""Arguments are checked against the C types the library reads (issue 21,
item 13): a value the type cannot hold exactly is refused with TypeError /
ValueError / IndexError naming the argument — never truncated, parsed,
wrapped, or reported with a SWIG wrapper's name."""

import numpy as np
import pytest

import flopspack

TOKENS = flopspack.CostModel.tokens()


def no_swig_names(excinfo):
    text = str(excinfo.value)
    assert "in method" not in text and "flopspack_swig" not in text and "argument" not in text, text


# ---- arrays ----


@pytest.mark.parametrize(
    "lengths, error, message",
    [
        (np.array([5, 2**63], dtype=np.uint64), ValueError, r"lengths\[1\] = 9223372036854775808 does not fit in int64"),
        (np.array([2**64 - 1], dtype=np.uint64), ValueError, r"lengths\[0\] = 18446744073709551615"),
        ([5, 2**63], ValueError, r"lengths\[1\] = 9223372036854775808 does not fit in int64"),
        ([5, 2**70], ValueError, r"lengths\[1\] = 1180591620717411303424 does not fit in int64"),
        ([5, 7.5], TypeError, "must hold integers, got dtype float64"),
        ([5, 7.0], TypeError, "must hold integers, got dtype float64"),
        (["10", "20"], TypeError, "must hold integers"),
        ([5, True], TypeError, r"lengths\[1\] = True is a bool"),
        (np.array([True, False]), TypeError, "must hold integers, got dtype bool"),
        ([1 + 2j], TypeError, "must hold integers, got dtype complex128"),
        ([[1, 2], [3, 4]], ValueError, "must be one-dimensional"),
        ([5, None], TypeError, r"lengths\[1\] = None is a NoneType"),
    ],
)
def test_bad_lengths_are_refused_before_the_library(lengths, error, message):
    with pytest.raises(error, match=message) as info:
        flopspack.pack(lengths, 100)
    no_swig_names(info)


def test_unsigned_lengths_that_fit_pass():
    plan = flopspack.pack(np.array([5, 7], dtype=np.uint64), 12)
    assert plan.metrics.real_tokens == 12
    assert flopspack.pack(np.array([5, 7], dtype=np.uint8), 12).metrics.real_tokens == 12


@pytest.mark.parametrize(
    "costs, error, message",
    [
        (["1.5", "2"], TypeError, "must hold real numbers"),
        ([1.5, "2"], TypeError, "must hold real numbers"),
        ([True, False, True], TypeError, r"costs\[0\] = True is a bool"),
        (np.array([True, False]), TypeError, "got dtype bool"),
        ([1.5, True], TypeError, r"costs\[1\] = True is a bool"),
        ([1 + 0j, 2.0], TypeError, "got dtype complex128"),
        (np.array([1, 2], dtype=np.complex64), TypeError, "got dtype complex64"),
        ([1.0, None], TypeError, "must hold real numbers, got dtype object"),
    ],
)
def test_balance_refuses_strings_bools_and_complex_costs(costs, error, message):
    with pytest.raises(error, match=message) as info:
        flopspack.balance(costs, 2)
    no_swig_names(info)


def test_balance_takes_any_real_dtype():
    for costs in ([3, 1, 2], np.array([3, 1, 2], dtype=np.float32), np.array([3, 1, 2], dtype=np.int8)):
        assert flopspack.balance(costs, 2).metrics.max_group_cost == 3.0


def test_offsets_and_counts_refuse_what_size_t_cannot_hold():
    with pytest.raises(ValueError, match=r"counts\[0\] = -1 must not be negative"):
        flopspack.Stats.from_histogram([5], [-1])
    with pytest.raises(ValueError, match=r"counts\[0\] = 18446744073709551616 does not fit in uint64"):
        flopspack.Stats.from_histogram([5], [2**64])
    with pytest.raises(TypeError, match=r"counts\[0\] = True is a bool"):
        flopspack.Stats.from_histogram([5], [True])
    with pytest.raises(TypeError, match=r"samples\[1\] must hold integers"):
        flopspack.CostModel.fit([[1, 2], [3.5]], [1.0, 2.0])


# ---- scalars ----


@pytest.mark.parametrize(
    "value, error, message",
    [
        (10.9, TypeError, "capacity must be an integer, got float 10.9"),
        (10.0, TypeError, "capacity must be an integer, got float 10.0"),
        ("10", TypeError, "capacity must be an integer, got str '10'"),
        (True, TypeError, "capacity must be an integer, got bool True"),
        (1 + 2j, TypeError, "capacity must be an integer, got complex"),
        (None, TypeError, "capacity must be an integer, got NoneType"),
        (2**63, ValueError, r"capacity = 9223372036854775808 is out of range: it must fit in int64"),
        (-(2**63) - 1, ValueError, "capacity = -9223372036854775809 is out of range"),
    ],
)
def test_capacity_must_be_an_int64(value, error, message):
    with pytest.raises(error, match=message) as info:
        flopspack.pack([5, 7], value)
    no_swig_names(info)
    with pytest.raises(error, match=message):
        flopspack.StreamPacker(value)


def test_integer_like_values_are_accepted():
    assert len(flopspack.pack([5, 7], np.int32(12))) == 1
    assert len(flopspack.pack([5, 7], np.uint64(12))) == 1

    class Index:
        def __index__(self):
            return 12

    assert len(flopspack.pack([5, 7], Index())) == 1
    # the largest value the type holds reaches the library, which judges it
    assert len(flopspack.pack([5, 7], 2**63 - 1)) == 1
    assert flopspack.derive_seed(2**64 - 1, 0) == flopspack.derive_seed(np.uint64(2**64 - 1), 0)


def test_each_options_field_is_checked_by_its_c_type():
    cases = [
        (lambda v: flopspack.pack([5], 10, seed=v), "seed", 2**64, 1.0),
        (lambda v: flopspack.balance([1.0], v), "num_groups", 2**63, 1.5),
        (lambda v: flopspack.balance([1.0], 1, max_tokens_per_group=v), "max_tokens_per_group", 2**63, "1"),
        (lambda v: flopspack.plan_step([5], TOKENS, num_ranks=v, max_tokens_per_microbatch=10),
         "num_ranks", 2**32, 1.0),
        (lambda v: flopspack.plan_step([5], TOKENS, num_ranks=1, max_tokens_per_microbatch=10,
                                       microbatches_per_rank=v), "microbatches_per_rank", -1, 2.5),
        (lambda v: flopspack.StepPlanner(TOKENS, num_ranks=1, max_tokens_per_microbatch=10,
                                         microbatches_per_rank=1, max_defer_steps=v),
         "max_defer_steps", 2**32, "3"),
        (lambda v: flopspack.StreamPacker(10, window=v), "window", -1, 4.0),
        (lambda v: flopspack.simulate([5], TOKENS, num_ranks=v, num_steps=1), "num_ranks", -1, 8.0),
        (lambda v: flopspack.simulate([5], TOKENS, num_steps=v), "num_steps", 2**64, "1"),
        (lambda v: flopspack.BucketSampler([5, 6], max_padded_tokens=v), "max_padded_tokens", 2**63, 8.5),
        (lambda v: flopspack.BucketSampler([5, 6], max_padded_tokens=16, num_buckets=v),
         "num_buckets", 2**32, 2.0),
        (lambda v: flopspack.Stats([5]).expected_max(v), "draws", -1, 2.0),
        (lambda v: flopspack.Stats([5]).tail(v), "threshold", 2**63, 1.5),
        (lambda v: flopspack.CostModel.transformer(
            num_layers=v, hidden_size=64, num_attention_heads=4, num_key_value_heads=4,
            intermediate_size=256), "num_layers", 2**63, 2.0),
        (lambda v: flopspack.derive_seed(v, 0), "seed", -1, 1.0),
    ]
    for call, name, out_of_range, wrong_type in cases:
        with pytest.raises(ValueError, match=f"^{name} = .* is out of range") as info:
            call(out_of_range)
        no_swig_names(info)
        with pytest.raises(TypeError, match=f"^{name} must be an integer") as info:
            call(wrong_type)
        no_swig_names(info)


def test_reals_flags_and_enums():
    with pytest.raises(TypeError, match="quadratic must be a real number, got str"):
        flopspack.CostModel.polynomial(quadratic="1e-4")
    with pytest.raises(TypeError, match="linear must be a real number, got complex"):
        flopspack.CostModel.polynomial(linear=1j)
    with pytest.raises(TypeError, match="per_sequence must be a real number, got bool"):
        flopspack.CostModel.polynomial(per_sequence=True)
    assert flopspack.CostModel.polynomial(linear=np.float32(2.0)).sequence_cost([3]) == 6.0
    with pytest.raises(TypeError, match="q must be a real number"):
        flopspack.Stats([5]).quantile("0.5")
    with pytest.raises(TypeError, match="max_batch_cost must be a real number"):
        flopspack.BucketSampler([5], max_batch_cost="10", model=TOKENS)

    with pytest.raises(TypeError, match="refine must be a bool, got str 'no'"):
        flopspack.balance([1.0, 2.0], 2, refine="no")
    with pytest.raises(ValueError, match="equal_count = 2 must be a bool"):
        flopspack.balance([1.0, 2.0], 2, equal_count=2)
    with pytest.raises(TypeError, match="gated_mlp must be a bool"):
        flopspack.CostModel.transformer(
            num_layers=1, hidden_size=64, num_attention_heads=4, num_key_value_heads=4,
            intermediate_size=256, gated_mlp="yes")
    assert len(flopspack.balance([1.0, 2.0], 2, refine=np.bool_(False))) == 2

    with pytest.raises(ValueError, match="algorithm must be one of PackAlgorithm.BEST_FIT_DECREASING"):
        flopspack.pack([5], 10, algorithm=99)
    with pytest.raises(TypeError, match="overflow must be one of Overflow.ERROR"):
        flopspack.pack([5], 10, overflow="split")
    with pytest.raises(TypeError, match="algorithm must be one of StepAlgorithm"):
        flopspack.plan_step([5], TOKENS, num_ranks=1, max_tokens_per_microbatch=10,
                            algorithm=flopspack.PackAlgorithm.NEXT_FIT)
    with pytest.raises(TypeError, match="weighting must be one of Weighting"):
        flopspack.Stats([5]).cdf(5, weighting=True)
    with pytest.raises(ValueError, match="kind must be one of SimSeries"):
        flopspack.simulate([5], TOKENS, num_steps=1, record_steps=True).series(42)
    # an int equal to a member's value is that member
    assert len(flopspack.pack([5], 10, algorithm=int(flopspack.PackAlgorithm.NEXT_FIT))) == 1


def test_handles_must_be_the_right_objects():
    with pytest.raises(TypeError, match="model must be a flopspack.CostModel, got NoneType") as info:
        flopspack.plan_step([5, 7], None, num_ranks=1, max_tokens_per_microbatch=10)
    no_swig_names(info)
    with pytest.raises(TypeError, match="model must be a flopspack.CostModel, got NoneType"):
        flopspack.simulate([5, 7], None)
    with pytest.raises(TypeError, match="model must be a flopspack.CostModel, got NoneType"):
        flopspack.StepPlanner(None, num_ranks=1, max_tokens_per_microbatch=10)
    with pytest.raises(TypeError, match="model must be a flopspack.CostModel or None, got str"):
        flopspack.pack([5], 10, model="tokens")
    with pytest.raises(TypeError, match="model must be a flopspack.CostModel or None, got function"):
        flopspack.Stats([5], model=lambda l: 1.0)
    with pytest.raises(TypeError, match="other must be a flopspack.Stats, got list"):
        flopspack.Stats([5]).merge([5])
    sampler = flopspack.BucketSampler([5, 6, 7], max_padded_tokens=16)
    with pytest.raises(TypeError, match="plan must be a flopspack.Plan, got NoneType"):
        sampler.step_diversity(None)
    with pytest.raises(TypeError, match="config must be a flopspack.TransformerConfig"):
        flopspack.CostModel.transformer({"num_layers": 2})
    with pytest.raises(TypeError, match="progress must be callable or None, got int"):
        flopspack.simulate([5], TOKENS, num_steps=1, progress=3)


def test_saved_state_must_be_bytes():
    packer = flopspack.StreamPacker(16)
    state = packer.save()
    assert flopspack.StreamPacker.restore(bytearray(state)).totals == packer.totals
    assert flopspack.StreamPacker.restore(memoryview(state)).totals == packer.totals
    # bytes(10) would be ten zero bytes: an int is not a state
    with pytest.raises(TypeError, match="state must be bytes, got int 10"):
        flopspack.StreamPacker.restore(10)
    with pytest.raises(TypeError, match="state must be bytes, got str"):
        flopspack.StepPlanner.restore("state", TOKENS)


# ---- plan indices ----


def test_plan_group_indices_follow_python_conventions():
    plan = flopspack.pack([5, 7, 9], 10)  # three groups
    n = len(plan)
    assert n == 3
    for accessor in (plan.items, plan.tokens, plan.info):
        assert np.array_equal(np.asarray(accessor(-1)), np.asarray(accessor(n - 1)))
        assert np.array_equal(np.asarray(accessor(-n)), np.asarray(accessor(0)))
        for bad in (n, -n - 1, 2**63, 2**64, -(2**70)):
            with pytest.raises(IndexError, match=f"group {bad} is out of range") as info:
                accessor(bad)
            no_swig_names(info)
        with pytest.raises(TypeError, match="group must be an integer, got float"):
            accessor(1.0)
    assert plan[-1].items.tolist() == plan.items(2).tolist()
    with pytest.raises(IndexError):
        plan[3]
    with pytest.raises(flopspack.OutOfRangeError):  # also a flopspack.Error
        plan.items(-4)


def test_failed_validation_leaves_the_inputs_untouched():
    lengths = np.array([5, 7], dtype=np.uint64)
    with pytest.raises(TypeError):
        flopspack.pack(lengths, 10.5)
    assert lengths.tolist() == [5, 7] and lengths.dtype == np.uint64
