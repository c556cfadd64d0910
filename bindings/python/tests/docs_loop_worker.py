"""Runs the training loop of docs/pytorch.md as written (the first python
block that starts with `import contextlib`), on CPU: one gloo process, a
DDP-wrapped tiny model that takes the Hugging Face flash-attention keys,
small sizes substituted for the page's. Used by test_docs_loop.py.
Usage: docs_loop_worker.py DOCS_PAGE PORT"""
import math
import pathlib
import re
import sys
import types

import torch
import torch.distributed as dist

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from distributed_worker import CAP, TinyLM, corpus  # noqa: E402

page = pathlib.Path(sys.argv[1]).read_text()
code = re.search(r"```python\n(import contextlib.*?)```", page, re.S).group(1)
for old, new in [
    ('dist.init_process_group("nccl")', ""),
    ("dp_group = ...", "dp_group = None"),
    ("lengths = ...", ""),
    ('flopspack.CostModel.from_hf_config("path/to/model")', 'flopspack.CostModel.preset("llama3-8b")'),
    ("tokens_per_step=4_000_000", "tokens_per_step=int(0.9 * 4 * CAP)"),
    ("max_tokens_per_microbatch=16384", "max_tokens_per_microbatch=CAP"),
    ("microbatches_per_rank=32", "microbatches_per_rank=4"),
    ("num_workers=4, pin_memory=True", "num_workers=0"),
]:
    assert old in code, f"the page's loop no longer contains {old!r}"
    code = code.replace(old, new)


class HFLike(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = TinyLM()

    def forward(self, input_ids, position_ids, cu_seq_lens_q, cu_seq_lens_k, max_length_q,
                max_length_k):
        return types.SimpleNamespace(logits=self.m(input_ids, position_ids, cu_seq_lens_q)[None])


torch.set_num_threads(1)
torch.Tensor.cuda = lambda self, non_blocking=False: self  # CPU stands in for the GPU
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{sys.argv[2]}", rank=0, world_size=1)
lengths, docs = corpus()
lengths, docs = lengths[:60], docs[:60]  # the first holds a document 20x the cap
scope = dict(dataset=[d["input_ids"] for d in docs], lengths=lengths, CAP=CAP, epochs=1,
             model=torch.nn.parallel.DistributedDataParallel(HFLike()), want_checkpoint=False)
scope["optimizer"] = torch.optim.SGD(scope["model"].parameters(), lr=0.01)
exec(code, scope)
sampler, k = scope["sampler"], scope["k"]
assert k + 1 == len(sampler), (k, len(sampler))
assert math.isfinite(float(scope["loss_sum"]))
print("docs loop ran", len(sampler), "microbatches")
dist.destroy_process_group()
