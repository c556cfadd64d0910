"""flopspack.torch.calibrate: time forward + backward of the user's own
module on packed sequences of varied compositions, fit the cost model to the
measured seconds, and rate the fitted model, the FLOPs formula and tokens
(docs/cost-models.md, "Calibrating on your own model").

The module is called as a packed-attention (varlen) model is in training:
``module(input_ids=[1, T], position_ids=[1, T], cu_seqlens=int32 [docs + 1],
max_seqlen=int)``, or with Hugging Face's flash-attention keyword names
(``cu_seq_lens_q``/``_k``, ``max_length_q``/``_k``) when ``hf_kwargs=True``.
It returns a tensor, or an object (or dict) with ``.loss`` or ``.logits``;
the loss is backpropagated, or else the sum of what came back.
"""

from __future__ import annotations

import datetime
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch

from . import __version__ as _flopspack_version
from ._calibration import (
    CalibrationReport,
    _fail,
    _positive_int,
    _Uniform,
    calibrate_from_samples,
    calibration_compositions,
    held_out_split,
)
from ._cost import CostModel, TransformerConfig

__all__ = ["calibrate", "CalibrationReport"]


def calibrate(
    module: torch.nn.Module,
    *,
    max_tokens: int,
    vocab_size: Optional[int] = None,
    samples: int = 64,
    repeats: int = 3,
    device: Optional[Union[str, torch.device]] = None,
    seed: int = 0,
    progress: Union[bool, Callable[[int, int], Any]] = True,
    hf_kwargs: bool = False,
    flops_model: Optional[Union[CostModel, TransformerConfig]] = None,
    timer: Optional[Callable[[], float]] = None,
) -> Tuple[CostModel, CalibrationReport]:
    """Measures what packed sequences of up to ``max_tokens`` tokens cost on
    this module and device, and fits the cost model to it.

    ``samples`` compositions (calibration_compositions: single documents,
    many short ones, mixes; lengths spread evenly on a log scale) are each
    run forward + backward ``repeats`` times after a warm-up, in a shuffled
    order per repeat, timed with CUDA events on a GPU and a monotonic clock
    otherwise; a sample's time is the median of its repeats. A quarter of
    the samples is held out (held_out_split); the cost model is fitted on
    the rest (CostModel.fit) and the report rates it, the FLOPs formula
    (``flops_model``, a CostModel or TransformerConfig; by default read from
    a Hugging Face ``module.config`` when there is one) and tokens on both
    parts. Token ids are drawn from ``vocab_size`` (default: the config's,
    or the first embedding's size).

    The module's parameters, gradients, mode and the global random state
    are as before when calibrate returns (gradients are restored; the
    module is run in the mode it is in). ``progress``: True prints progress
    to stderr, a callable gets (runs done, runs total), False is silent.
    ``timer`` replaces the CPU clock (time.perf_counter, wall time): e.g.
    time.thread_time measures only this thread's CPU time, which other jobs
    on a shared machine do not disturb (right only when torch runs on one
    thread); ignored on a GPU, where CUDA events time the device.
    Returns the fitted CostModel and the CalibrationReport."""
    max_tokens = _positive_int(max_tokens, "max_tokens")
    samples = _positive_int(samples, "samples", minimum=8)
    repeats = _positive_int(repeats, "repeats")
    seed = _positive_int(seed, "seed", minimum=0)
    if not isinstance(module, torch.nn.Module):
        _fail(f"module must be a torch.nn.Module, got {type(module).__name__}")
    vocab = _vocab_size(module, vocab_size)
    dev = _device(module, device)
    flops, flops_owned = _flops_model(module, flops_model)
    report_progress = _progress(progress)
    if timer is None:
        timer = time.perf_counter
    elif not callable(timer):
        _fail(f"timer must be a callable returning seconds, got {timer!r}")
    compositions = calibration_compositions(max_tokens, samples, seed)

    params = [p for p in module.parameters()]
    saved_grads = [p.grad for p in params]
    runs_total = (len(_warm_up_order(compositions)) + samples * repeats)
    timings: List[List[float]] = [[] for _ in compositions]
    try:
        with torch.random.fork_rng(devices=[dev] if dev.type == "cuda" else []):
            generator = torch.Generator().manual_seed(seed)
            inputs = [_inputs(docs, vocab, dev, generator, hf_kwargs) for docs in compositions]
            done = 0
            for i in _warm_up_order(compositions):
                _run(module, params, inputs[i], compositions[i], i, dev, hf_kwargs, timer)
                done += 1
                report_progress(done, runs_total)
            order_rng = _Uniform(seed ^ 0x5DEECE66D)
            for _ in range(repeats):
                for i in _shuffled(len(compositions), order_rng):
                    timings[i].append(
                        _run(module, params, inputs[i], compositions[i], i, dev, hf_kwargs, timer)
                    )
                    done += 1
                    report_progress(done, runs_total)
        seconds = [statistics.median(t) for t in timings]
        provenance = {
            "source": "flopspack.torch.calibrate",
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "flopspack": _flopspack_version,
            "torch": torch.__version__,
            "device": _device_name(dev),
            "module": type(module).__name__,
            "dtype": str(params[0].dtype).replace("torch.", "") if params else "none",
            "max_tokens": str(max_tokens),
            "samples": str(samples),
            "repeats": str(repeats),
            "seed": str(seed),
            "keywords": "hf" if hf_kwargs else "varlen",
            "timer": "cuda events" if dev.type == "cuda" else _timer_name(timer),
        }
        return calibrate_from_samples(
            compositions,
            seconds,
            held_out=held_out_split(samples),
            flops_model=flops,
            provenance=provenance,
            timings=timings,
        )
    finally:
        for p, g in zip(params, saved_grads):
            p.grad = g
        if flops_owned and flops is not None:
            flops.close()
        if progress is True:
            print(file=sys.stderr)


# ---- the pieces ----


def _vocab_size(module: torch.nn.Module, vocab_size: Optional[int]) -> int:
    if vocab_size is not None:
        return _positive_int(vocab_size, "vocab_size")
    config_vocab = getattr(getattr(module, "config", None), "vocab_size", None)
    if isinstance(config_vocab, int) and config_vocab > 0:
        return config_vocab
    for m in module.modules():
        if isinstance(m, torch.nn.Embedding):
            return int(m.num_embeddings)
    _fail("calibrate: pass vocab_size (the module has no config.vocab_size and no nn.Embedding)")


def _device(module: torch.nn.Module, device: Any) -> torch.device:
    if device is not None:
        return torch.device(device)
    for p in module.parameters():
        return p.device
    return torch.device("cpu")


def _device_name(dev: torch.device) -> str:
    if dev.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(dev)})"
    return f"{dev.type} ({torch.get_num_threads()} threads)"


def _flops_model(module: torch.nn.Module, flops_model: Any) -> Tuple[Optional[CostModel], bool]:
    """The FLOPs formula to rate, and whether calibrate made (and closes) it."""
    if isinstance(flops_model, CostModel):
        return flops_model, False
    if isinstance(flops_model, TransformerConfig):
        return CostModel.transformer(flops_model), True
    if flops_model is not None:
        _fail(f"flops_model must be a CostModel or TransformerConfig, got {type(flops_model).__name__}")
    config = _hf_transformer_config(getattr(module, "config", None))
    return (CostModel.transformer(config), True) if config is not None else (None, False)


# Model families whose MLP is gated (SwiGLU: three FFN matrices).
_GATED_FAMILIES = ("llama", "mistral", "mixtral", "qwen", "gemma", "phi3", "olmo", "deepseek")


def _hf_transformer_config(config: Any) -> Optional[TransformerConfig]:
    """A Hugging Face config's shape (num_hidden_layers, hidden_size, ...)
    as a TransformerConfig, or None when it lacks one."""
    if config is None:
        return None
    get = lambda name, default=None: getattr(config, name, default)  # noqa: E731
    layers, hidden, heads = get("num_hidden_layers"), get("hidden_size"), get("num_attention_heads")
    ffn = get("intermediate_size")
    if not all(isinstance(v, int) and v > 0 for v in (layers, hidden, heads, ffn)):
        return None
    model_type = str(get("model_type", "")).lower()
    return TransformerConfig(
        num_layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_key_value_heads=get("num_key_value_heads") or heads,
        intermediate_size=ffn,
        head_dim=get("head_dim") or 0,
        vocab_size=get("vocab_size") or 0,
        gated_mlp=any(model_type.startswith(f) for f in _GATED_FAMILIES),
        causal=True,
    )


def _timer_name(timer: Callable[[], float]) -> str:
    module = getattr(timer, "__module__", None)
    name = getattr(timer, "__qualname__", None) or repr(timer)
    return f"{module}.{name}" if module else name


def _progress(progress: Any) -> Callable[[int, int], None]:
    if progress is False or progress is None:
        return lambda done, total: None
    if progress is True:

        def show(done: int, total: int) -> None:
            if done == total or done % 8 == 0:
                print(f"\rflopspack calibrate: {done}/{total} runs", end="", file=sys.stderr)

        return show
    if callable(progress):
        return progress
    _fail(f"progress must be True, False or a callable(done, total), got {progress!r}")


def _warm_up_order(compositions: Sequence[Sequence[int]]) -> List[int]:
    """Warm-up runs: the sample with the most tokens, the one with the most
    documents and the longest single document (allocator caches, kernel
    selection and autotuning for the shapes to come)."""
    by_tokens = max(range(len(compositions)), key=lambda i: (sum(compositions[i]), -i))
    by_docs = max(range(len(compositions)), key=lambda i: (len(compositions[i]), -i))
    by_doc = max(range(len(compositions)), key=lambda i: (max(compositions[i]), -i))
    order: List[int] = []
    for i in (by_tokens, by_docs, by_doc):
        if i not in order:
            order.append(i)
    return order


def _shuffled(n: int, u: _Uniform) -> List[int]:
    """A Fisher-Yates shuffle of range(n): each repeat runs the samples in a
    new order, so slow drift (clocks, other jobs) spreads over all samples."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = min(int(u() * (i + 1)), i)
        order[i], order[j] = order[j], order[i]
    return order


def _inputs(
    docs: Sequence[int], vocab: int, dev: torch.device, generator: torch.Generator, hf: bool
) -> Dict[str, Any]:
    total = sum(docs)
    input_ids = torch.randint(0, vocab, (1, total), generator=generator, dtype=torch.long)
    position_ids = torch.cat([torch.arange(l, dtype=torch.long) for l in docs]).unsqueeze(0)
    bounds = [0]
    for l in docs:
        bounds.append(bounds[-1] + l)
    cu = torch.tensor(bounds, dtype=torch.int32)
    longest = max(docs)
    kwargs: Dict[str, Any] = {
        "input_ids": input_ids.to(dev),
        "position_ids": position_ids.to(dev),
    }
    if hf:
        kwargs.update(
            cu_seq_lens_q=cu.to(dev),
            cu_seq_lens_k=cu.to(dev),
            max_length_q=longest,
            max_length_k=longest,
        )
    else:
        kwargs.update(cu_seqlens=cu.to(dev), max_seqlen=longest)
    return kwargs


def _loss(out: Any) -> torch.Tensor:
    """The loss to backpropagate from what the module returned."""
    loss = getattr(out, "loss", None)
    if loss is None and isinstance(out, dict):
        loss = out.get("loss")
    if loss is None:
        logits = getattr(out, "logits", None)
        if logits is None and isinstance(out, dict):
            logits = out.get("logits")
        if logits is not None:
            loss = logits.sum()
        elif isinstance(out, torch.Tensor):
            loss = out if out.dim() == 0 else out.sum()
        elif isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
            loss = out[0] if out[0].dim() == 0 else out[0].sum()
    if not isinstance(loss, torch.Tensor):
        raise TypeError(
            f"the module returned {type(out).__name__}: calibrate needs a tensor, or an "
            "object with .loss or .logits"
        )
    if not loss.requires_grad:
        raise TypeError(
            "what the module returned does not require grad: calibrate times forward + "
            "backward (is the module frozen, or run under torch.no_grad?)"
        )
    return loss


def _run(
    module: torch.nn.Module,
    params: Sequence[torch.nn.Parameter],
    kwargs: Dict[str, Any],
    docs: Sequence[int],
    index: int,
    dev: torch.device,
    hf: bool,
    timer: Callable[[], float],
) -> float:
    """One timed forward + backward; seconds."""
    for p in params:
        p.grad = None  # as after optimizer.zero_grad(set_to_none=True)
    cuda = dev.type == "cuda"
    try:
        if cuda:
            torch.cuda.synchronize(dev)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            _loss(module(**kwargs)).backward()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1000.0
        t0 = timer()
        _loss(module(**kwargs)).backward()
        return timer() - t0
    except Exception as e:
        keywords = "Hugging Face flash-attention" if hf else "varlen"
        raise RuntimeError(
            f"calibrate: the module failed on sample {index} ({len(docs)} documents, "
            f"{sum(docs)} tokens, {keywords} keyword arguments "
            f"{', '.join(kwargs)}): {type(e).__name__}: {e}"
        ) from e
