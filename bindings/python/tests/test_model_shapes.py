"""CostModel.preset (the CLI's table, one file shared with it) and
CostModel.from_hf_config on published config.json files: each agrees with
the preset of the same model, and GPT-2 with Megatron's closed form."""
import json
import pathlib
import shutil

import pytest

import flopspack
from flopspack import _model_shapes

DATA = pathlib.Path(__file__).with_name("data") / "hf_configs"
SOURCE_TABLE = pathlib.Path(__file__).resolve().parents[3] / "src" / "cli" / "model_presets.def"


def test_the_table_is_the_clis_file():
    installed = pathlib.Path(_model_shapes.__file__).with_name("model_presets.def")
    if SOURCE_TABLE.exists():  # from a source tree (not an installed copy elsewhere)
        assert installed.read_text() == SOURCE_TABLE.read_text()
    names = list(_model_shapes.presets())
    assert len(names) == len(set(names)) >= 12
    assert "llama3-8b" in names and "gpt3-175b" in names


def test_every_preset_makes_a_model():
    for name, preset in _model_shapes.presets().items():
        model = flopspack.CostModel.preset(name)
        assert model.sequence_cost([4096]) > 0, name
        assert preset.config.num_layers > 0 and preset.source


def test_llama3_8b_shape_and_overrides():
    c = _model_shapes.preset_config("llama3-8b")
    assert (c.num_layers, c.hidden_size, c.num_attention_heads, c.num_key_value_heads,
            c.intermediate_size, c.vocab_size, c.gated_mlp) == (32, 4096, 32, 8, 14336, 128256, True)
    full = flopspack.CostModel.preset("llama3-8b", recompute=True)
    plain = flopspack.CostModel.preset("llama3-8b")
    assert full.sequence_cost([1000]) == pytest.approx(plain.sequence_cost([1000]) * 4 / 3)
    with pytest.raises(ValueError, match="unknown preset 'llama9'.*llama3-8b"):
        flopspack.CostModel.preset("llama9")


@pytest.mark.parametrize("config, preset", [
    ("Meta-Llama-3-8B.json", "llama3-8b"),
    ("Mistral-7B-v0.1.json", "mistral-7b"),
    ("Qwen2.5-7B.json", "qwen2.5-7b"),
    ("gemma-7b.json", "gemma-7b"),
])
def test_hf_configs_agree_with_the_presets(config, preset):
    from_file = _model_shapes.hf_config(DATA / config)
    assert from_file == _model_shapes.preset_config(preset)
    a = flopspack.CostModel.from_hf_config(DATA / config)
    b = flopspack.CostModel.preset(preset)
    assert a.sequence_cost([3000, 70]) == b.sequence_cost([3000, 70])


def test_gpt2_matches_megatrons_closed_form():
    # 72 B s L d^2 (1 + s/(6d) + V/(12 L d)) for one sequence of s tokens:
    # f = 4d, multi-head, no gate, no causal saving, no recompute.
    model = flopspack.CostModel.from_hf_config(DATA / "gpt2.json", causal=False)
    s, L, d, V = 2048, 12, 768, 50257
    expected = 72 * s * L * d * d * (1 + s / (6 * d) + V / (12 * L * d))
    assert model.sequence_cost([s]) == pytest.approx(expected, rel=1e-12)


def test_dicts_directories_and_nested_text_configs(tmp_path):
    config = json.loads((DATA / "Mistral-7B-v0.1.json").read_text())
    expected = _model_shapes.preset_config("mistral-7b")
    assert _model_shapes.hf_config(config) == expected
    shutil.copy(DATA / "Mistral-7B-v0.1.json", tmp_path / "config.json")
    assert _model_shapes.hf_config(tmp_path) == expected
    nested = {"model_type": "llava", "text_config": config}
    assert _model_shapes.hf_config(nested) == expected
    no_kv = dict(config, num_key_value_heads=None)
    assert _model_shapes.hf_config(no_kv).num_key_value_heads == 32


def test_bad_configs_are_named():
    config = json.loads((DATA / "Meta-Llama-3-8B.json").read_text())
    with pytest.raises(ValueError, match="model_type = 'mamba'.*gated_mlp"):
        _model_shapes.hf_config(dict(config, model_type="mamba"))
    assert _model_shapes.hf_config(dict(config, model_type="mamba"), gated_mlp=False).gated_mlp is False
    assert not flopspack.CostModel.from_hf_config(dict(config, model_type="x"), gated_mlp=False).closed
    missing = {k: v for k, v in config.items() if k != "intermediate_size"}
    with pytest.raises(ValueError, match="no intermediate_size or n_inner"):
        _model_shapes.hf_config(missing)
    with pytest.raises(ValueError, match="hidden_size = 0"):
        _model_shapes.hf_config(dict(config, hidden_size=0))
    with pytest.raises(ValueError, match="num_hidden_layers = '32'"):
        _model_shapes.hf_config(dict(config, num_hidden_layers="32"))
