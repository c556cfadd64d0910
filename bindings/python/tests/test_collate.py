"""VarlenCollator and PaddedCollator against hand-written references (plain
loops over tokens) on random pieces; PieceDataset slicing."""
import os

import numpy as np
import pytest

if os.environ.get("FLOPSPACK_REQUIRE_TORCH"):
    import torch  # ctest sets FLOPSPACK_REQUIRE_TORCH: a missing torch fails
else:
    torch = pytest.importorskip("torch")

from flopspack.torch import IGNORE_INDEX, PaddedCollator, PieceDataset, VarlenCollator


def reference_varlen(pieces, mask_first=True, ignore=-100):
    """Token by token, the way the format is specified."""
    ids, labels, positions, cu, longest = [], [], [], [0], 0
    for piece in pieces:
        tokens = list(piece["input_ids"]) if isinstance(piece, dict) else list(piece)
        given = list(piece["labels"]) if isinstance(piece, dict) and "labels" in piece else tokens
        for j, (t, y) in enumerate(zip(tokens, given)):
            ids.append(int(t))
            labels.append(ignore if (j == 0 and mask_first) else int(y))
            positions.append(j)
        cu.append(cu[-1] + len(tokens))
        longest = max(longest, len(tokens))
    return ids, labels, positions, cu, longest


def random_pieces(rng, kind):
    pieces = []
    for _ in range(int(rng.integers(0, 8))):
        n = int(rng.integers(1, 40))
        tokens = rng.integers(0, 50000, size=n)
        if kind == "tensor":
            pieces.append(torch.as_tensor(tokens))
        elif kind == "list":
            pieces.append(tokens.tolist())
        elif kind == "numpy32":
            pieces.append(tokens.astype(np.int32))
        else:
            piece = {"input_ids": tokens.tolist(), "weight": rng.random(n)}
            if rng.random() < 0.5:
                piece["labels"] = np.where(rng.random(n) < 0.3, -100, tokens).tolist()
            pieces.append(piece)
    return pieces


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("kind", ["tensor", "list", "numpy32", "dict"])
def test_varlen_matches_the_reference(seed, kind):
    rng = np.random.default_rng(seed)
    pieces = random_pieces(rng, kind)
    mask_first = seed % 3 != 0
    extra = ("weight",) if kind == "dict" else ()
    out = VarlenCollator(mask_first_token=mask_first, extra_keys=extra)(pieces)
    ids, labels, positions, cu, longest = reference_varlen(pieces, mask_first)
    assert out["input_ids"].dtype == torch.int64 and out["input_ids"].shape == (1, len(ids))
    assert out["input_ids"][0].tolist() == ids
    assert out["labels"][0].tolist() == labels
    assert out["position_ids"][0].tolist() == positions
    assert out["cu_seqlens"].dtype == torch.int32 and out["cu_seqlens"].tolist() == cu
    assert out["max_seqlen"] == longest and isinstance(out["max_seqlen"], int)
    if extra:
        weights = [w for p in pieces for w in p["weight"]]
        np.testing.assert_allclose(out["weight"][0].numpy(), weights)


def test_hf_key_names():
    pieces = [torch.tensor([5, 6, 7]), torch.tensor([8, 9])]
    out = VarlenCollator(hf_keys=True)(pieces)
    assert out["cu_seq_lens_q"].tolist() == out["cu_seq_lens_k"].tolist() == [0, 3, 5]
    assert out["cu_seq_lens_q"].dtype == torch.int32
    assert out["max_length_q"] == out["max_length_k"] == 3
    assert "cu_seqlens" not in out and "max_seqlen" not in out
    assert out["labels"][0].tolist() == [IGNORE_INDEX, 6, 7, IGNORE_INDEX, 9]


def test_empty_microbatch():
    out = VarlenCollator()([])
    assert out["input_ids"].shape == out["labels"].shape == out["position_ids"].shape == (1, 0)
    assert out["cu_seqlens"].tolist() == [0] and out["max_seqlen"] == 0
    padded = PaddedCollator(pad_id=0)([])
    assert padded["input_ids"].shape == padded["attention_mask"].shape == (0, 0)


def test_varlen_rejects_bad_pieces():
    with pytest.raises(TypeError, match="integer token ids"):
        VarlenCollator()([torch.tensor([1.5, 2.0])])
    with pytest.raises(ValueError, match="one-dimensional"):
        VarlenCollator()([torch.zeros((2, 2), dtype=torch.int64)])
    with pytest.raises(ValueError, match="labels has 1 tokens"):
        VarlenCollator()([{"input_ids": [1, 2], "labels": [1]}])


def reference_padded(samples, pad, ignore, multiple, side):
    rows = [list(s["input_ids"]) if isinstance(s, dict) else list(s) for s in samples]
    given = [list(s["labels"]) if isinstance(s, dict) and "labels" in s else r
             for s, r in zip(samples, rows)]
    width = max((len(r) for r in rows), default=0)
    if multiple and width % multiple:
        width += multiple - width % multiple
    ids, labels, mask = [], [], []
    for r, y in zip(rows, given):
        fill = width - len(r)
        if side == "right":
            ids.append(r + [pad] * fill)
            labels.append(y + [ignore] * fill)
            mask.append([1] * len(r) + [0] * fill)
        else:
            ids.append([pad] * fill + r)
            labels.append([ignore] * fill + y)
            mask.append([0] * fill + [1] * len(r))
    return ids, labels, mask


@pytest.mark.parametrize("seed", range(30))
def test_padded_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    samples = random_pieces(rng, ["tensor", "list", "dict"][seed % 3])
    multiple = [None, 8][seed % 2]
    side = ["right", "left"][(seed // 2) % 2]
    out = PaddedCollator(pad_id=7, ignore_index=-1, pad_to_multiple_of=multiple,
                         padding_side=side)(samples)
    ids, labels, mask = reference_padded(samples, 7, -1, multiple, side)
    if not samples:
        assert out["input_ids"].shape == (0, 0)
        return
    assert out["input_ids"].tolist() == ids
    assert out["labels"].tolist() == labels
    assert out["attention_mask"].tolist() == mask


def test_piece_dataset_slices_every_kind_of_item():
    items = [
        torch.arange(10),
        list(range(100, 110)),
        np.arange(200, 210),
        {"input_ids": list(range(300, 310)), "labels": list(range(10)), "source": "web"},
    ]
    data = PieceDataset(items)
    assert len(data) == 4
    assert data[(0, 2, 3)].tolist() == [2, 3, 4]
    assert data[(1, 8, 2)] == [108, 109]
    assert data[(2, 0, 1)].tolist() == [200]
    piece = data[(3, 5, 5)]
    assert piece["input_ids"] == list(range(305, 310))
    assert piece["labels"] == [5, 6, 7, 8, 9] and piece["source"] == "web"
    assert data[1] == items[1]  # an int index is the whole item
    with pytest.raises(IndexError, match=r"piece \(0, 8, 3\) is outside item 0"):
        data[(0, 8, 3)]
    with pytest.raises(TypeError, match="index, offset, length"):
        data["x"]
