"""Transformer shapes where users have them: the CLI's named presets and
Hugging Face ``config.json`` files (docs/cost-models.md).

The preset table is src/cli/model_presets.def, shared with the CLI's
``--model`` (installed beside this module as model_presets.def): one
``FLOPSPACK_PRESET("name", "source", layers, hidden, heads, kv_heads,
head_dim, ffn, vocab, gated)`` per line.

Hugging Face configs, the rules:
- the shape is ``num_hidden_layers``, ``hidden_size``,
  ``num_attention_heads``, ``num_key_value_heads`` (absent or null = the
  attention heads: multi-head attention), ``intermediate_size``,
  ``vocab_size``, ``head_dim`` (absent or null = hidden / heads); GPT-2's
  names (``n_layer``, ``n_embd``, ``n_head``, ``n_inner``, null = 4 x
  hidden) are read too;
- a config that nests the language model (``text_config``, as
  multimodal models do) is read from there;
- the MLP is gated (three matrices: SwiGLU / GeGLU) for the model types of
  the Llama, Mistral, Qwen, Gemma and Phi-3 families, plain (two) for
  GPT-2 / GPT-NeoX / GPT-J / OPT / Falcon / BLOOM / StarCoder2; any other
  ``model_type`` is an error unless ``gated_mlp`` is passed;
- a missing or non-positive required field is an error naming it.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Union

from ._cost import TransformerConfig

GATED_MODEL_TYPES = frozenset({
    "llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
    "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "olmo", "olmo2", "granite",
})
PLAIN_MODEL_TYPES = frozenset({
    "gpt2", "gpt_neox", "gptj", "opt", "falcon", "bloom", "starcoder2", "gpt_bigcode",
})

_PRESET = re.compile(
    r'^FLOPSPACK_PRESET\("([^"]+)", "([^"]*)", (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), '
    r"(\d+), (true|false)\)$"
)


class Preset(NamedTuple):
    name: str
    source: str
    config: TransformerConfig


def _table_path() -> pathlib.Path:
    return pathlib.Path(__file__).with_name("model_presets.def")


_presets: Optional[Dict[str, Preset]] = None


def presets() -> Dict[str, Preset]:
    """Every preset by name, in the table's order."""
    global _presets
    if _presets is None:
        table: Dict[str, Preset] = {}
        for line in _table_path().read_text().splitlines():
            if not line.startswith("FLOPSPACK_PRESET("):
                continue
            m = _PRESET.match(line.strip())
            if m is None:
                raise RuntimeError(f"flopspack: malformed preset line in {_table_path()}: {line}")
            name, source = m.group(1), m.group(2)
            layers, hidden, heads, kv, head_dim, ffn, vocab = (int(m.group(i)) for i in range(3, 10))
            table[name] = Preset(name, source, TransformerConfig(
                num_layers=layers, hidden_size=hidden, num_attention_heads=heads,
                num_key_value_heads=kv, intermediate_size=ffn, head_dim=head_dim,
                vocab_size=vocab, gated_mlp=m.group(10) == "true"))
        _presets = table
    return _presets


def preset_config(name: str) -> TransformerConfig:
    """The shape of a named preset (the CLI's --model names)."""
    table = presets()
    if name not in table:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(table)}")
    return table[name].config


def _field(config: Mapping[str, Any], names: List[str], what: str, default: Any = None) -> int:
    for n in names:
        if config.get(n) is not None:
            value = config[n]
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{n} = {value!r} in the config: must be a positive integer")
            return value
    if default is not None:
        return default
    raise ValueError(f"the config has no {' or '.join(names)} ({what})")


def hf_config(
    path_or_dict: Union[str, os.PathLike, Mapping[str, Any]],
    *,
    gated_mlp: Optional[bool] = None,
) -> TransformerConfig:
    """A TransformerConfig from a Hugging Face config.json (a path, a
    directory holding config.json, or the parsed dict), by the rules in the
    module note. ``gated_mlp`` overrides the model-type rule."""
    if isinstance(path_or_dict, Mapping):
        config: Mapping[str, Any] = path_or_dict
        where = "the config"
    else:
        path = pathlib.Path(path_or_dict)
        if path.is_dir():
            path = path / "config.json"
        with open(path) as f:
            config = json.load(f)
        where = str(path)
        if not isinstance(config, Mapping):
            raise ValueError(f"{where}: expected a JSON object")
    if isinstance(config.get("text_config"), Mapping):
        outer_type = config.get("model_type")
        config = dict(config["text_config"])
        config.setdefault("model_type", outer_type)
    model_type = config.get("model_type")
    if gated_mlp is None:
        if model_type in GATED_MODEL_TYPES:
            gated_mlp = True
        elif model_type in PLAIN_MODEL_TYPES:
            gated_mlp = False
        else:
            raise ValueError(
                f"{where}: model_type = {model_type!r} is not one flopspack knows whether its MLP "
                "is gated; pass gated_mlp=True (SwiGLU/GeGLU: three matrices) or False"
            )
    layers = _field(config, ["num_hidden_layers", "n_layer"], "layers")
    hidden = _field(config, ["hidden_size", "n_embd"], "hidden size")
    heads = _field(config, ["num_attention_heads", "n_head"], "attention heads")
    kv = _field(config, ["num_key_value_heads"], "key/value heads", default=heads)
    default_ffn = 4 * hidden if model_type in PLAIN_MODEL_TYPES else None
    ffn = _field(config, ["intermediate_size", "n_inner"], "MLP width",
                 default=default_ffn)
    vocab = _field(config, ["vocab_size"], "vocabulary")
    head_dim = _field(config, ["head_dim"], "head size", default=0)
    return TransformerConfig(
        num_layers=layers, hidden_size=hidden, num_attention_heads=heads,
        num_key_value_heads=kv, intermediate_size=ffn, head_dim=head_dim, vocab_size=vocab,
        gated_mlp=bool(gated_mlp),
    )
