"""One process of test_torch_distributed.py: 4 processes form 2
data-parallel replicas x 2 tensor-parallel peers (global rank g: dp = g // 2,
tp = g % 2) on gloo; a tiny 2-layer transformer with per-document causal
attention (a block-diagonal mask from cu_seqlens) trains a few steps on a
long-tail corpus (documents up to 20x the cap) fed by PlannedBatchSampler.

Usage: distributed_worker.py RANK WORLD_SIZE PORT OUT_DIR
Writes OUT_DIR/rank<g>.json with what the test checks.
"""
import copy
import json
import math
import sys

import numpy as np
import torch
import torch.distributed as dist

import flopspack
from flopspack.torch import (FlopspackBatchSampler, PieceDataset, PlannedBatchSampler,
                             VarlenCollator)

CAP = 128  # tokens per microbatch
M = 2  # microbatches per rank per step
VOCAB = 64
STEPS = 4  # trained steps; the state is saved after SAVE_AT of them
SAVE_AT = 2


def corpus():
    rng = np.random.default_rng(1234)
    lengths = np.clip(rng.lognormal(np.log(40), 1.0, 240), 1, None).astype(np.int64)
    tail = rng.random(240) < 0.05
    lengths[tail] = np.minimum(CAP * (1 + rng.pareto(1.0, tail.sum())), 20 * CAP).astype(np.int64)
    lengths[0] = 20 * CAP  # at least one document 20x the cap
    docs = []
    for i, n in enumerate(lengths):
        docs.append({
            "input_ids": rng.integers(0, VOCAB, size=n),
            "doc": np.full(n, i, dtype=np.int64),  # per-token provenance, sliced with the piece
            "pos": np.arange(n, dtype=np.int64),
        })
    return lengths, docs


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.norm2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                                       torch.nn.Linear(4 * d, d))

    def forward(self, x, mask):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~mask, float("-inf"))
        x = x + self.out(torch.softmax(scores, dim=-1) @ v)
        return x + self.mlp(self.norm2(x))


class TinyLM(torch.nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, d)
        self.pos = torch.nn.Embedding(CAP, d)
        self.blocks = torch.nn.ModuleList([Block(d), Block(d)])
        self.head = torch.nn.Linear(d, VOCAB)

    def forward(self, input_ids, position_ids, cu_seqlens):
        t = input_ids.shape[1]
        # Document (piece) id of every token, from cu_seqlens: attention
        # stays inside a piece and is causal within it.
        seg = torch.searchsorted(cu_seqlens[1:].to(torch.int64), torch.arange(t), right=True)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        mask = (seg[:, None] == seg[None, :]) & causal
        x = self.embed(input_ids[0]) + self.pos(position_ids[0])
        for block in self.blocks:
            x = block(x, mask)
        return self.head(x)


def step_loss(model, batch):
    if batch["input_ids"].shape[1] == 0:
        return None
    logits = model(batch["input_ids"], batch["position_ids"], batch["cu_seqlens"])
    labels = batch["labels"][0]
    # Labels are aligned with input_ids; the model predicts token t+1 at t.
    return torch.nn.functional.cross_entropy(logits[:-1], labels[1:], ignore_index=-100,
                                             reduction="sum")


def train(model, optimizer, batches, dp_group):
    """batches: a list of steps, each M collated microbatches."""
    losses = []
    for step in batches:
        optimizer.zero_grad()
        total = torch.zeros(())
        for mb in step:
            loss = step_loss(model, mb)
            if loss is not None:
                (loss / (M * CAP)).backward()
                total += loss.detach()
        for p in model.parameters():
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            dist.all_reduce(p.grad, group=dp_group)  # DDP's gradient sum over replicas
        optimizer.step()
        losses.append(float(total))
    return losses


def main():
    rank, world, port, out_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    tp_size = 2
    dp_groups = [dist.new_group([t + tp_size * d for d in range(world // tp_size)])
                 for t in range(tp_size)]
    dp_group = dp_groups[rank % tp_size]  # the replicas holding the same TP shard

    lengths, docs = corpus()
    model_cost = flopspack.CostModel.polynomial(0, 0, 1, 1.0 / CAP)

    def make_sampler():
        return PlannedBatchSampler(lengths, model_cost, tokens_per_step=int(0.9 * 2 * M * CAP),
                                   max_tokens_per_microbatch=CAP, microbatches_per_rank=M,
                                   process_group=dp_group, seed=7, outlier_min_tokens=CAP // 2)

    sampler = make_sampler()
    sampler.set_epoch(1)
    collate = VarlenCollator(extra_keys=("doc", "pos"))
    data = PieceDataset(docs)

    def loader(s):
        return torch.utils.data.DataLoader(data, batch_sampler=s, collate_fn=collate)

    # The whole epoch, as the training loop sees it.
    seen, biggest = [], 0
    for mb in loader(sampler):
        biggest = max(biggest, mb["input_ids"].shape[1])
        seen.append([mb["doc"][0].tolist(), mb["pos"][0].tolist(), mb["cu_seqlens"].tolist()])

    # Train STEPS steps uninterrupted, saving the state after SAVE_AT.
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    run = make_sampler()
    run.set_epoch(1)
    it = iter(loader(run))
    steps = [[next(it) for _ in range(M)] for _ in range(STEPS)]
    losses = train(model, optimizer, steps[:SAVE_AT], dp_group)
    saved = (run.state_at(SAVE_AT * M), copy.deepcopy(model.state_dict()),
             copy.deepcopy(optimizer.state_dict()))
    losses += train(model, optimizer, steps[SAVE_AT:], dp_group)

    # Resume from the saved state in fresh objects.
    resumed = make_sampler()
    resumed.load_state_dict(saved[0])
    model2 = TinyLM()
    model2.load_state_dict(saved[1])
    optimizer2 = torch.optim.SGD(model2.parameters(), lr=0.05)
    optimizer2.load_state_dict(saved[2])
    it2 = iter(loader(resumed))
    steps2 = [[next(it2) for _ in range(M)] for _ in range(STEPS - SAVE_AT)]
    same_batches = all(
        torch.equal(a["input_ids"], b["input_ids"]) and torch.equal(a["cu_seqlens"], b["cu_seqlens"])
        for x, y in zip(steps[SAVE_AT:], steps2) for a, b in zip(x, y))
    losses2 = train(model2, optimizer2, steps2, dp_group)
    same_params = all(torch.allclose(p, q, rtol=0, atol=1e-6)
                      for p, q in zip(model.parameters(), model2.parameters()))

    # The old sampler refuses a world that is not the data-parallel group.
    buckets = flopspack.BucketSampler(np.minimum(lengths, CAP), max_padded_tokens=4 * CAP,
                                      num_ranks=2, accumulation_steps=M, seed=1)
    try:
        FlopspackBatchSampler(buckets)
        world_refused = False
    except ValueError:
        world_refused = True
    old_rank = FlopspackBatchSampler(buckets, process_group=dp_group).rank

    report = dict(rank=rank, dp_rank=sampler.dp_rank, dp_size=sampler.dp_size, seen=seen,
                  biggest=biggest, lengths=lengths.tolist(), losses=losses,
                  resumed_losses=losses2, same_batches=same_batches, same_params=same_params,
                  world_refused=world_refused, old_rank=old_rank,
                  microbatches=len(sampler))
    with open(f"{out_dir}/rank{rank}.json", "w") as f:
        json.dump(report, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
