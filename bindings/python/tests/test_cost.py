import math
import threading

import numpy as np
import pytest

import flopspack

LLAMA3_8B = dict(
    num_layers=32, hidden_size=4096, num_attention_heads=32, num_key_value_heads=8,
    intermediate_size=14336, vocab_size=128256, gated_mlp=True,
)


def test_version_matches_header():
    assert flopspack.version() == flopspack.HEADER_VERSION == flopspack.__version__
    assert flopspack.version_number() == 10000 * int(flopspack.version().split(".")[0]) + \
        100 * int(flopspack.version().split(".")[1]) + int(flopspack.version().split(".")[2])


def test_polynomial_closed_forms():
    with flopspack.CostModel.polynomial(7, 1, 2, 0.25) as m:
        docs = [4, 8, 2]
        np.testing.assert_array_equal(m.document_costs(docs), [13.0, 33.0, 6.0])
        assert m.sequence_overhead == 7.0
        assert m.sequence_cost(docs) == 7 + 13 + 33 + 6
        assert m.padded_batch_cost(docs) == 3 * (7 + 1 + 16 + 16)
        assert m.sequence_cost([]) == 0.0
        assert m.is_additive
        assert m.document_costs(np.array([], dtype=np.int64)).shape == (0,)
    assert m.closed


def test_transformer_matches_the_c_test():
    m = flopspack.CostModel.transformer(**LLAMA3_8B)
    assert m.sequence_cost([8192]) == 421651971833856.0
    config = flopspack.TransformerConfig(**LLAMA3_8B)
    assert flopspack.CostModel.transformer(config).sequence_cost([8192]) == 421651971833856.0
    seq = flopspack.CostModel.transformer(config, attention_span=flopspack.AttentionSpan.SEQUENCE)
    assert not seq.is_additive
    assert seq.sequence_cost([4096, 4096]) > m.sequence_cost([4096, 4096])


def test_inputs_of_other_integer_types_and_sequences():
    m = flopspack.CostModel.tokens()
    for lengths in ([1, 2, 3], (1, 2, 3), np.array([1, 2, 3], dtype=np.int32),
                    np.array([1, 2, 3], dtype=np.uint16), np.arange(1, 4)):
        assert m.sequence_cost(lengths) == 6.0
    strided = np.arange(1, 13, dtype=np.int64)[::4]  # 1, 5, 9: not contiguous
    assert m.sequence_cost(strided) == 15.0
    with pytest.raises(TypeError, match="integers"):
        m.sequence_cost([1.5, 2.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        m.sequence_cost([[1, 2], [3, 4]])


def test_bad_arguments_raise_with_the_library_message():
    m = flopspack.CostModel.tokens()
    with pytest.raises(flopspack.InvalidArgumentError) as info:
        m.sequence_cost([4, -5])
    e = info.value
    assert e.message == "document_lengths[1] = -5: every length must be positive"
    assert str(e) == e.message
    assert e.status == 1 and e.status_name == "FLOPSPACK_INVALID_ARGUMENT"
    assert isinstance(e, ValueError) and isinstance(e, flopspack.Error)
    with pytest.raises(flopspack.InvalidArgumentError, match=r"linear = nan"):
        flopspack.CostModel.polynomial(linear=math.nan)
    with pytest.raises(flopspack.InvalidArgumentError, match="hidden_size = 0 must be positive"):
        flopspack.CostModel.transformer(**{**LLAMA3_8B, "hidden_size": 0})
    with pytest.raises(flopspack.InvalidArgumentError, match="sample_offsets has 2 entries"):
        flopspack.CostModel.fit_csr([1, 2], [0, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"sample_offsets\[0\] = -1"):
        flopspack.CostModel.fit_csr([1, 2], [-1, 2], [1.0])
    # Nothing the caller passed is modified on failure.
    lengths = np.array([3, 0, 4], dtype=np.int64)
    with pytest.raises(flopspack.InvalidArgumentError, match=r"document_lengths\[1\] = 0"):
        m.document_costs(lengths)
    np.testing.assert_array_equal(lengths, [3, 0, 4])


def test_use_after_close_raises_not_crashes():
    m = flopspack.CostModel.tokens()
    m.close()
    m.close()  # idempotent
    for call in (lambda: m.sequence_cost([1]), lambda: m.document_costs([1]),
                 lambda: m.padded_batch_cost([1]), lambda: m.is_additive):
        with pytest.raises(flopspack.ClosedError, match="CostModel is closed"):
            call()
    assert repr(m) == "<flopspack.CostModel tokens closed>"
    with pytest.raises(flopspack.ClosedError):
        with m:
            pass


def test_custom_callable_and_its_failures():
    seen = []

    def cost(lengths):
        seen.append(lengths.copy())
        assert lengths.dtype == np.int64 and not lengths.flags.writeable
        return float(lengths.sum()) ** 2

    m = flopspack.CostModel.custom(cost)
    assert m.sequence_cost([3, 4]) == 49.0
    assert not m.is_additive
    np.testing.assert_array_equal(seen[-1], [3, 4])

    def failing(lengths):
        raise KeyError("boom")

    with pytest.raises(flopspack.CallbackError) as info:
        flopspack.CostModel.custom(failing).sequence_cost([1])
    assert isinstance(info.value.__cause__, KeyError)
    assert "custom cost callback returned" in info.value.message

    with pytest.raises(flopspack.CallbackError, match="returned -1"):
        flopspack.CostModel.custom(lambda l: -1.0).sequence_cost([1, 2])
    with pytest.raises(flopspack.CallbackError) as info:
        flopspack.CostModel.custom(lambda l: "x").sequence_cost([1])
    assert isinstance(info.value.__cause__, TypeError)
    with pytest.raises(flopspack.InvalidArgumentError, match="fn must be callable"):
        flopspack.CostModel.custom(42)


def test_custom_callable_from_threads_releases_the_gil():
    m = flopspack.CostModel.custom(lambda l: float(l.sum()))
    results = [None] * 8

    def work(i):
        results[i] = sum(m.sequence_cost([i + 1, j + 1]) for j in range(200))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [sum(i + 1 + j + 1 for j in range(200)) for i in range(8)]


def test_fit_recovers_exact_coefficients():
    samples = [[10 * i] for i in range(1, 6)]
    seconds = [2 + 0.5 * s[0] for s in samples]
    m, report = flopspack.CostModel.fit(
        samples, seconds, terms=flopspack.FitTerm.PER_SEQUENCE | flopspack.FitTerm.LINEAR)
    assert report.per_sequence == pytest.approx(2, abs=1e-9)
    assert report.linear == pytest.approx(0.5, abs=1e-12)
    assert report.quadratic == 0 and report.num_samples == 5 and report.r_squared > 1 - 1e-12
    assert m.sequence_cost([60]) == pytest.approx(32)
    with pytest.raises(flopspack.InvalidArgumentError, match="too few"):
        flopspack.CostModel.fit(samples[:2], seconds[:2])
