"""FlopspackBatchSampler driving a real torch DataLoader: every sample once
per epoch across ranks, the source's batches exactly, resumption mid-epoch
to the same batches (with and without worker processes)."""
import os

import numpy as np
import pytest

if os.environ.get("FLOPSPACK_REQUIRE_TORCH"):
    import torch  # ctest sets FLOPSPACK_REQUIRE_TORCH: a missing torch fails
else:
    torch = pytest.importorskip("torch")

import flopspack
from flopspack.torch import FlopspackBatchSampler

# PlannedEpochs is deprecated (flopspack.torch.PlannedBatchSampler replaces
# it) but must keep working for the sources it still accepts.
pytestmark = pytest.mark.filterwarnings("ignore:flopspack.PlannedEpochs is deprecated")

LENGTHS = np.random.default_rng(7).integers(1, 2000, size=1500)


class Lengths(torch.utils.data.Dataset):
    def __len__(self):
        return len(LENGTHS)

    def __getitem__(self, i):
        return torch.tensor([i, LENGTHS[i]])


SOURCE = "buckets"


@pytest.fixture(params=["buckets", "planner"], autouse=True)
def which_source(request):
    global SOURCE
    SOURCE = request.param


def source():
    if SOURCE == "buckets":
        return flopspack.BucketSampler(LENGTHS, max_padded_tokens=6000, num_buckets=8,
                                       num_ranks=2, accumulation_steps=2, seed=3)
    return flopspack.PlannedEpochs(LENGTHS, flopspack.CostModel.polynomial(0, 0, 1, 1e-3),
                                   documents_per_step=40, num_ranks=2,
                                   max_tokens_per_microbatch=24000, microbatches_per_rank=2,
                                   seed=3)


def collate(samples):
    # A step plan may leave a microbatch empty; every rank still gets the
    # same number of microbatches per step (so gradient accumulation and
    # DDP stay in lockstep), and the loop sees an empty batch.
    return torch.stack(samples) if samples else torch.zeros((0, 2), dtype=torch.long)


def loader(sampler, workers=0):
    return torch.utils.data.DataLoader(Lengths(), batch_sampler=sampler, num_workers=workers,
                                       collate_fn=collate)


def indices(batch):
    return batch[:, 0].tolist()


def test_every_sample_once_per_epoch_across_ranks():
    src = source()
    seen = []
    for rank in range(2):
        sampler = FlopspackBatchSampler(src, rank=rank)
        sampler.set_epoch(1)
        batches = [indices(b) for b in loader(sampler)]
        assert len(batches) == len(sampler) == src.steps_per_epoch * 2
        seen += [i for b in batches for i in b]
    assert sorted(seen) == list(range(len(LENGTHS)))


def test_batches_are_the_sources_groups_and_respect_the_budget():
    src = source()
    sampler = FlopspackBatchSampler(src, rank=1)
    sampler.set_epoch(2)
    got = [indices(b) for b in loader(sampler)]
    if SOURCE == "buckets":
        with src.epoch(2) as epoch_plan:  # ordered by step, rank, accumulation index
            want = [g.items.tolist() for g in epoch_plan if g.rank == 1]
        assert got == want
        for batch in got:
            assert len(batch) * max(LENGTHS[batch]) <= 6000
    else:
        want = []
        for step in range(src.steps_per_epoch):
            docs = src.step_documents(2, step)
            with src.step(2, step) as plan:
                want += [docs[g.items].tolist() for g in plan if g.rank == 1]
        assert got == want
        for batch in got:
            assert sum(LENGTHS[batch]) <= 24000


def test_epochs_differ_and_repeat():
    sampler = FlopspackBatchSampler(source(), rank=0)
    sampler.set_epoch(0)
    first = [indices(b) for b in loader(sampler)]
    sampler.set_epoch(1)
    second = [indices(b) for b in loader(sampler)]
    sampler.set_epoch(0)
    again = [indices(b) for b in loader(sampler)]
    assert first == again and first != second


@pytest.mark.parametrize("stop", [0, 1, 5, 17])
def test_resume_mid_epoch_without_workers(stop):
    reference = FlopspackBatchSampler(source(), rank=0)
    reference.set_epoch(4)
    full = [indices(b) for b in loader(reference)]
    sampler = FlopspackBatchSampler(source(), rank=0)
    sampler.set_epoch(4)
    batches = iter(loader(sampler))
    head = [indices(next(batches)) for _ in range(stop)]
    state = sampler.state_dict()
    assert state == {"epoch": 4, "batches": stop}
    resumed = FlopspackBatchSampler(source(), rank=0)  # a fresh process, say
    resumed.load_state_dict(state)
    tail = [indices(b) for b in loader(resumed)]
    assert head + tail == full


def test_resume_mid_epoch_with_worker_processes():
    reference = FlopspackBatchSampler(source(), rank=1)
    reference.set_epoch(6)
    full = [indices(b) for b in loader(reference)]
    sampler = FlopspackBatchSampler(source(), rank=1)
    sampler.set_epoch(6)
    head = []
    for batch in loader(sampler, workers=2):
        head.append(indices(batch))
        if len(head) == 9:
            break
    assert sampler.state_dict()["batches"] >= 9  # workers ran ahead
    resumed = FlopspackBatchSampler(source(), rank=1)
    resumed.load_state_dict(sampler.state_at(len(head)))
    tail = [indices(b) for b in loader(resumed, workers=2)]
    assert head + tail == full


def test_bad_rank_and_state():
    with pytest.raises(ValueError, match="rank = 2 is out of range"):
        FlopspackBatchSampler(source(), rank=2)
    sampler = FlopspackBatchSampler(source(), rank=0)
    with pytest.raises(ValueError, match="out of range"):
        sampler.load_state_dict({"epoch": 0, "batches": len(sampler) + 1})
