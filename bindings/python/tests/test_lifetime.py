"""Memory safety at the edges of the binding (issue 21): nothing the library
owns is handed out past a call, every object stays alive for the duration
of every call that uses it, and Ctrl-C stops a long call promptly.

Run under AddressSanitizer by the CI's sanitizer stage (the library is
instrumented, python3 preloads libasan): a use-after-free there aborts the
run. The tests also check, without a sanitizer, what a broken binding gets
wrong: a kept callback array holding other data, a C object destroyed (its
proxy disowned) while a call still runs, a late or wrong exception."""

import gc
import signal
import threading
import time
import weakref

import numpy as np
import pytest

import flopspack

L = np.random.default_rng(21).lognormal(7, 1, size=5000).astype(np.int64) + 1
SHORT = np.minimum(L, 4000)  # fits a 4096-token sequence
POLY = (0.0, 0.0, 1.0, 1e-4)


def poly_cost(lengths):
    return float(np.sum(lengths + 1e-4 * lengths.astype(np.float64) ** 2))


# ---- item 2: a custom cost callback's array outlives the call ----


def test_a_kept_callback_array_keeps_its_values_after_the_call():
    kept, snapshots = [], []

    def cost(lengths):
        kept.append(lengths)  # kept past the call, as user code may do
        snapshots.append(lengths.tolist())
        return poly_cost(lengths)

    model = flopspack.CostModel.custom(cost)
    plan = flopspack.pack(SHORT[:400], 4096, model=model)
    assert len(kept) > 100
    plan.close()
    model.close()
    gc.collect()
    # Churn the heap where the library's arrays were.
    churn = [flopspack.pack(SHORT, 8192) for _ in range(5)]
    for k, want in zip(kept, snapshots):
        assert k.flags.owndata and not k.flags.writeable and k.dtype == np.int64
        assert k.tolist() == want
    for p in churn:
        p.close()


def test_callback_arrays_of_successive_calls_are_distinct():
    seen = []
    model = flopspack.CostModel.custom(lambda l: (seen.append(l), float(l.sum()))[1])
    model.sequence_cost([1, 2, 3])
    model.sequence_cost([7])
    assert [s.tolist() for s in seen] == [[1, 2, 3], [7]]
    assert not np.shares_memory(seen[0], seen[1])


# ---- item 3: close() from another thread during a call ----


class CloseDuringCall:
    """Closes `target` from another thread while the calling thread is
    inside a callback of a library call that uses it, and records whether
    the C object was still owned (not destroyed) when the callback went on."""

    def __init__(self, target):
        self.target = target
        self.proxy = weakref.ref(target._h)
        self.fired = False
        self.owned_after_close = None

    def __call__(self):
        """Call from inside the callback; acts once."""
        if self.fired:
            return
        self.fired = True
        closer = threading.Thread(target=self.target.close)
        closer.start()
        closer.join(10)  # the callback holds the GIL only between bytecodes
        assert not closer.is_alive()
        assert self.target.closed
        proxy = self.proxy()
        self.owned_after_close = proxy is not None and bool(proxy.thisown)

    def check_released(self):
        assert self.fired
        assert self.owned_after_close, "the C object was destroyed under a running call"
        gc.collect()
        assert self.proxy() is None, "the C object outlived the call that held it"
        with pytest.raises(flopspack.ClosedError):
            self.target._handle


def test_closing_the_model_during_simulate_waits_for_the_call():
    want = flopspack.simulate(L, flopspack.CostModel.polynomial(*POLY), num_steps=8, seed=5)
    model = flopspack.CostModel.polynomial(*POLY)
    closing = CloseDuringCall(model)

    def progress(done, total):
        if done == 2:
            closing()
        return True

    got = flopspack.simulate(L, model, num_steps=8, seed=5, progress=progress)
    closing.check_released()
    assert got.summary == want.summary  # the run went on with the same model
    with pytest.raises(flopspack.ClosedError, match="CostModel is closed"):
        flopspack.simulate(L, model, num_steps=1)


def test_closing_a_custom_model_inside_its_own_callback():
    model = None
    closing = None

    def cost(lengths):
        closing()
        return poly_cost(lengths)

    model = flopspack.CostModel.custom(cost)
    closing = CloseDuringCall(model)
    plan = flopspack.pack(SHORT[:300], 4096, model=model)
    closing.check_released()
    with flopspack.pack(SHORT[:300], 4096, model=flopspack.CostModel.custom(poly_cost)) as want:
        assert plan.to_csr()[1].tolist() == want.to_csr()[1].tolist()
        assert plan.metrics == want.metrics


def test_closing_a_stream_packer_during_its_take():
    closing = None

    def cost(lengths):
        if closing is not None:
            closing()
        return poly_cost(lengths)

    packer = flopspack.StreamPacker(4096, window=64, model=flopspack.CostModel.custom(cost))
    packer.push(SHORT[:500])
    packer.flush()
    ready = packer.ready
    closing = CloseDuringCall(packer)
    plan = packer.take()  # costs its sequences through the callback, on the live C packer
    closing.check_released()
    assert len(plan) == ready
    assert sorted(plan.to_csr()[1].tolist()) == list(range(500))
    with pytest.raises(flopspack.ClosedError, match="StreamPacker is closed"):
        packer.push([1])


def test_closing_a_step_planner_during_next():
    closing = None

    def cost(lengths):
        if closing is not None:
            closing()
        return poly_cost(lengths)

    planner = flopspack.StepPlanner(
        flopspack.CostModel.custom(cost), num_ranks=4, max_tokens_per_microbatch=8192,
        microbatches_per_rank=2,
    )
    planner.push(SHORT[:64])
    closing = CloseDuringCall(planner)
    plan = planner.next()
    closing.check_released()
    m = plan.metrics
    assert m.num_ranks == 4 and m.real_tokens > 0
    with pytest.raises(flopspack.ClosedError, match="StepPlanner is closed"):
        planner.next()


@pytest.mark.parametrize(
    "make",
    [
        lambda: flopspack.CostModel.tokens(),
        lambda: flopspack.pack([5, 7], 10),
        lambda: flopspack.Stats([1, 2, 3]),
        lambda: flopspack.StreamPacker(16),
        lambda: flopspack.StepPlanner(
            flopspack.CostModel.tokens(), num_ranks=1, max_tokens_per_microbatch=16,
            microbatches_per_rank=1,
        ),
        lambda: flopspack.BucketSampler([1, 2, 3, 4], max_padded_tokens=8),
        lambda: flopspack.simulate([5, 7], flopspack.CostModel.tokens(), num_ranks=2, num_steps=1),
    ],
    ids=["CostModel", "Plan", "Stats", "StreamPacker", "StepPlanner", "BucketSampler", "Simulation"],
)
def test_close_without_a_running_call_releases_at_once(make):
    obj = make()
    proxy = weakref.ref(obj._h)
    obj.close()
    assert proxy() is None  # destroyed inside close(), no garbage collection needed
    assert obj.closed
    obj.close()  # idempotent


def test_threads_sharing_a_model_while_one_closes_it():
    """Every call either answers right or raises ClosedError; none crashes
    (ASan: none reads a freed model)."""
    model = flopspack.CostModel.polynomial(*POLY)
    docs = L[:2000]
    want = model.sequence_cost(docs)
    outcomes = [[] for _ in range(6)]
    start = threading.Barrier(7)

    def work(i):
        start.wait()
        for _ in range(300):
            try:
                outcomes[i].append(model.sequence_cost(docs))
            except flopspack.ClosedError:
                outcomes[i].append("closed")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    start.wait()
    time.sleep(0.002)
    model.close()
    for t in threads:
        t.join()
    for seen in outcomes:
        assert all(v == want or v == "closed" for v in seen)
        # once closed, it stays closed for every thread
        if "closed" in seen:
            assert set(seen[seen.index("closed"):]) == {"closed"}


def test_threads_reading_a_plan_while_one_closes_it():
    plan = flopspack.pack(SHORT, 8192)
    offsets, items, tokens = plan.to_csr()
    errors = []
    start = threading.Barrier(5)

    def read():
        start.wait()
        for g in range(len(offsets) - 1):
            try:
                got = plan.items(g)
            except flopspack.ClosedError:
                return
            if got.tolist() != items[offsets[g] : offsets[g + 1]].tolist():
                errors.append(g)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    start.wait()
    plan.close()
    for t in threads:
        t.join()
    assert errors == []


# ---- item 11: Ctrl-C during simulate ----


def _long_simulation_steps(target_seconds):
    """A step count that takes about target_seconds here (measured)."""
    model = flopspack.CostModel.polynomial(*POLY)
    t = time.perf_counter()
    flopspack.simulate(L, model, num_steps=200)
    per_step = max((time.perf_counter() - t) / 200, 1e-6)
    return int(target_seconds / per_step) + 1, per_step


@pytest.fixture
def default_sigint():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("with_progress", [False, True], ids=["no_progress", "progress"])
def test_ctrl_c_during_simulate_raises_keyboard_interrupt_promptly(default_sigint, with_progress):
    steps, per_step = _long_simulation_steps(30.0)
    seen = []
    progress = (lambda done, total: seen.append(done) or True) if with_progress else None
    main = threading.main_thread().ident
    timer = threading.Timer(0.2, signal.pthread_kill, args=(main, signal.SIGINT))
    model = flopspack.CostModel.polynomial(*POLY)
    t = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            try:
                flopspack.simulate(L, model, num_steps=steps, progress=progress)
            except Exception:  # what a plain `except Exception:` must not catch
                pytest.fail("Ctrl-C surfaced as an Exception")
        elapsed = time.perf_counter() - t
    finally:
        timer.cancel()
    # A run of ~30 s stopped within a few steps of the signal, not at its end.
    assert elapsed < 5.0, f"stopped after {elapsed:.1f} s ({steps} steps of {per_step:.2e} s)"
    assert not isinstance(info.value, flopspack.Error)
    if with_progress:
        assert 0 < len(seen) < steps
    # The binding is left clean: the next call works and raises nothing stale.
    assert flopspack.simulate(L, model, num_steps=2).summary.num_steps == 2


def test_ctrl_c_during_simulate_sweep(default_sigint):
    steps, _ = _long_simulation_steps(30.0)
    main = threading.main_thread().ident
    timer = threading.Timer(0.2, signal.pthread_kill, args=(main, signal.SIGINT))
    t = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            flopspack.simulate_sweep(
                L, flopspack.CostModel.polynomial(*POLY), [1024, 2048], num_steps=steps
            )
        elapsed = time.perf_counter() - t
    finally:
        timer.cancel()
    assert elapsed < 5.0


def test_base_exceptions_from_callbacks_propagate_as_themselves():
    def interrupt(*args):
        raise KeyboardInterrupt

    def leave(*args):
        raise SystemExit(3)

    model = flopspack.CostModel.polynomial(*POLY)
    with pytest.raises(KeyboardInterrupt):
        flopspack.simulate(L, model, num_steps=5, progress=interrupt)
    with pytest.raises(SystemExit):
        flopspack.simulate(L, model, num_steps=5, progress=leave)
    with pytest.raises(KeyboardInterrupt):
        flopspack.pack(SHORT[:50], 4096, model=flopspack.CostModel.custom(interrupt))
    with pytest.raises(KeyboardInterrupt):
        flopspack.CostModel.custom(interrupt).sequence_cost([1, 2])
    # An ordinary exception still becomes the flopspack error, chained.
    with pytest.raises(flopspack.CancelledError) as info:
        flopspack.simulate(L, model, num_steps=5, progress=lambda d, t: 1 / 0)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
