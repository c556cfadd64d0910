"""Datasets and collators for the batches flopspack's samplers yield
(docs/pytorch.md): pieces of documents for packed (varlen) attention, and
whole samples padded to the longest of their batch.

- :class:`PieceDataset` turns a dataset of token sequences into one indexed
  by ``(index, offset, length)`` pieces, the items PlannedBatchSampler
  yields.
- :class:`VarlenCollator` concatenates a microbatch's pieces into one row
  for attention kernels that take cumulative sequence lengths
  (FlashAttention's varlen functions, PyTorch's nested/jagged attention,
  Hugging Face's padding-free path): ``input_ids``/``labels``/
  ``position_ids`` of shape [1, T], ``cu_seqlens`` (int32, pieces + 1) and
  ``max_seqlen``; or the key names of Hugging Face's
  ``DataCollatorWithFlattening(return_flash_attn_kwargs=True)``.
- :class:`PaddedCollator` pads whole samples (BucketSampler batches).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import torch
import torch.utils.data

#: Label that losses ignore (torch.nn.CrossEntropyLoss's default).
IGNORE_INDEX = -100


def _tokens(value: Any, what: str) -> torch.Tensor:
    """A 1-D int64 tensor of token ids from a tensor, array or sequence."""
    t = value if isinstance(value, torch.Tensor) else torch.as_tensor(np.asarray(value))
    if t.dim() != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {tuple(t.shape)}")
    if t.is_floating_point() or t.is_complex():
        raise TypeError(f"{what} must hold integer token ids, got {t.dtype}")
    return t.to(torch.int64)


def _length(item: Any) -> int:
    if isinstance(item, dict):
        return len(item["input_ids"])
    return len(item)


class PieceDataset(torch.utils.data.Dataset):
    """``dataset[(i, offset, length)]`` is tokens ``[offset, offset +
    length)`` of item i of ``dataset``. An item is a 1-D tensor, a numpy
    array or a sequence of token ids (the slice keeps its type), or a dict
    with ``input_ids`` — then every value as long as ``input_ids`` (labels,
    loss weights, ...) is sliced the same way and other values are kept.
    An integer index gives the whole item. The piece must lie inside the
    item (a clear IndexError otherwise: lengths given to the sampler that
    disagree with the data are a bug to surface, not to paper over)."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, piece: Any) -> Any:
        if isinstance(piece, (int, np.integer)):
            return self.dataset[int(piece)]
        try:
            index, offset, length = (int(v) for v in piece)
        except (TypeError, ValueError):
            raise TypeError(
                f"PieceDataset is indexed by (index, offset, length) or an int, got {piece!r}"
            ) from None
        item = self.dataset[index]
        n = _length(item)
        if offset < 0 or length < 0 or offset + length > n:
            raise IndexError(
                f"piece ({index}, {offset}, {length}) is outside item {index}, which has {n} "
                "tokens (do the lengths given to the sampler match the dataset?)"
            )
        if isinstance(item, dict):
            return {
                k: (v[offset : offset + length] if _sliceable(v, n) else v)
                for k, v in item.items()
            }
        return item[offset : offset + length]


def _sliceable(value: Any, n: int) -> bool:
    if isinstance(value, (str, bytes)):
        return False
    try:
        return len(value) == n and (not isinstance(value, torch.Tensor) or value.dim() >= 1)
    except TypeError:
        return False


class VarlenCollator:
    """Collates a microbatch of pieces (from :class:`PieceDataset`) into one
    packed row. Returns a dict:

    - ``input_ids``: int64 [1, T], the pieces concatenated (T = total
      tokens);
    - ``labels``: int64 [1, T], the items' ``labels`` if they have them,
      else a copy of ``input_ids``; the first token of each piece is set to
      ``ignore_index`` (``mask_first_token``), because a model that shifts
      labels inside the row would otherwise train the last token of one
      piece to predict the first of the next;
    - ``position_ids``: int64 [1, T], 0, 1, 2, ... restarting at each piece
      (a piece attends within itself);
    - ``cu_seqlens``: int32 [pieces + 1], 0 then the running token count;
      ``max_seqlen``: int, the longest piece (0 for an empty microbatch);
      with ``hf_keys=True`` these are ``cu_seq_lens_q`` and
      ``cu_seq_lens_k`` (the same tensor) and ``max_length_q`` and
      ``max_length_k``, the names Hugging Face models read;
    - each key of ``extra_keys`` (per-token fields of dict items, e.g. loss
      weights), concatenated to [1, T].

    An empty microbatch (a step plan may leave one empty so every rank runs
    the same number) gives T = 0 tensors and ``cu_seqlens = [0]``.
    """

    def __init__(
        self,
        *,
        ignore_index: int = IGNORE_INDEX,
        mask_first_token: bool = True,
        hf_keys: bool = False,
        extra_keys: Sequence[str] = (),
    ) -> None:
        self.ignore_index = int(ignore_index)
        self.mask_first_token = bool(mask_first_token)
        self.hf_keys = bool(hf_keys)
        self.extra_keys = tuple(extra_keys)

    def __call__(self, pieces: List[Any]) -> Dict[str, Any]:
        ids: List[torch.Tensor] = []
        labels: List[torch.Tensor] = []
        extras: Dict[str, List[torch.Tensor]] = {k: [] for k in self.extra_keys}
        for k, piece in enumerate(pieces):
            if isinstance(piece, dict):
                if "input_ids" not in piece:
                    raise KeyError(f"piece {k} is a dict without input_ids")
                x = _tokens(piece["input_ids"], f"pieces[{k}]['input_ids']")
                y = _tokens(piece["labels"], f"pieces[{k}]['labels']") if "labels" in piece else x
                if y.shape != x.shape:
                    raise ValueError(
                        f"pieces[{k}]: labels has {y.shape[0]} tokens, input_ids {x.shape[0]}"
                    )
                for key in self.extra_keys:
                    v = torch.as_tensor(np.asarray(piece[key]))
                    if v.shape[:1] != x.shape:
                        raise ValueError(f"pieces[{k}][{key!r}] is not one value per token")
                    extras[key].append(v)
            else:
                if self.extra_keys:
                    raise TypeError(f"extra_keys need dict pieces; piece {k} is not a dict")
                x = y = _tokens(piece, f"pieces[{k}]")
            ids.append(x)
            labels.append(y)
        sizes = [t.shape[0] for t in ids]
        lens = torch.tensor(sizes, dtype=torch.int64)
        cu = torch.zeros(len(sizes) + 1, dtype=torch.int32)
        if sizes:
            cu[1:] = torch.cumsum(lens, 0).to(torch.int32)
        total = int(cu[-1])
        input_ids = torch.cat(ids) if ids else torch.zeros(0, dtype=torch.int64)
        label_row = torch.cat(labels).clone() if labels else torch.zeros(0, dtype=torch.int64)
        starts = cu[:-1].to(torch.int64)
        if self.mask_first_token:
            label_row[starts[lens > 0]] = self.ignore_index
        # position = index in the row minus its piece's start.
        position_ids = torch.arange(total, dtype=torch.int64) - torch.repeat_interleave(
            starts, lens
        )
        max_len = int(lens.max()) if sizes else 0
        out: Dict[str, Any] = {
            "input_ids": input_ids.unsqueeze(0),
            "labels": label_row.unsqueeze(0),
            "position_ids": position_ids.unsqueeze(0),
        }
        if self.hf_keys:
            out.update(cu_seq_lens_q=cu, cu_seq_lens_k=cu, max_length_q=max_len, max_length_k=max_len)
        else:
            out.update(cu_seqlens=cu, max_seqlen=max_len)
        for key, parts in extras.items():
            out[key] = (torch.cat(parts) if parts else torch.zeros(0)).unsqueeze(0)
        return out


class PaddedCollator:
    """Collates whole samples (e.g. a BucketSampler batch) into padded
    rows: ``input_ids`` int64 [B, L] (L = the longest sample, rounded up to
    ``pad_to_multiple_of``) padded with ``pad_id``; ``attention_mask``
    int64 [B, L], 1 on real tokens; ``labels`` the samples' own ``labels``
    if they are dicts with them, else a copy of ``input_ids``, with
    ``ignore_index`` on padding. Samples are tensors, arrays, sequences or
    dicts with ``input_ids``. ``padding_side`` is "right" (default) or
    "left". An empty batch gives [0, 0] tensors."""

    def __init__(
        self,
        pad_id: int,
        *,
        ignore_index: int = IGNORE_INDEX,
        pad_to_multiple_of: Optional[int] = None,
        padding_side: str = "right",
    ) -> None:
        if padding_side not in ("right", "left"):
            raise ValueError(f"padding_side = {padding_side!r}: expected 'right' or 'left'")
        if pad_to_multiple_of is not None and pad_to_multiple_of < 1:
            raise ValueError(f"pad_to_multiple_of = {pad_to_multiple_of}: must be >= 1")
        self.pad_id = int(pad_id)
        self.ignore_index = int(ignore_index)
        self.pad_to_multiple_of = pad_to_multiple_of
        self.padding_side = padding_side

    def __call__(self, samples: List[Any]) -> Dict[str, torch.Tensor]:
        ids, labels = [], []
        for k, s in enumerate(samples):
            if isinstance(s, dict):
                x = _tokens(s["input_ids"], f"samples[{k}]['input_ids']")
                y = _tokens(s["labels"], f"samples[{k}]['labels']") if "labels" in s else x
                if y.shape != x.shape:
                    raise ValueError(f"samples[{k}]: labels and input_ids differ in length")
            else:
                x = y = _tokens(s, f"samples[{k}]")
            ids.append(x)
            labels.append(y)
        width = max((t.shape[0] for t in ids), default=0)
        if self.pad_to_multiple_of and width % self.pad_to_multiple_of:
            width += self.pad_to_multiple_of - width % self.pad_to_multiple_of
        b = len(ids)
        input_ids = torch.full((b, width), self.pad_id, dtype=torch.int64)
        label_rows = torch.full((b, width), self.ignore_index, dtype=torch.int64)
        mask = torch.zeros((b, width), dtype=torch.int64)
        for row, (x, y) in enumerate(zip(ids, labels)):
            n = x.shape[0]
            cols = slice(0, n) if self.padding_side == "right" else slice(width - n, width)
            input_ids[row, cols] = x
            label_rows[row, cols] = y
            mask[row, cols] = 1
        return {"input_ids": input_ids, "attention_mask": mask, "labels": label_rows}
