"""The library's own results for the CLI tests: libflopspack.so through ctypes.

Only the C ABI is used (no binding package), so these tests check the CLI
against the library without depending on the Python binding's build.
"""
import ctypes
import os


class TransformerConfig(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("num_layers", ctypes.c_int64),
        ("hidden_size", ctypes.c_int64),
        ("num_attention_heads", ctypes.c_int64),
        ("num_key_value_heads", ctypes.c_int64),
        ("head_dim", ctypes.c_int64),
        ("intermediate_size", ctypes.c_int64),
        ("vocab_size", ctypes.c_int64),
        ("gated_mlp", ctypes.c_int32),
        ("causal", ctypes.c_int32),
        ("recompute", ctypes.c_int32),
        ("attention_span", ctypes.c_int32),
    ]


class Library:
    def __init__(self, path=None):
        self.lib = ctypes.CDLL(path or os.environ["FLOPSPACK_LIBRARY"])
        self.lib.flopspack_version_string.restype = ctypes.c_char_p
        self.lib.flopspack_last_error_message.restype = ctypes.c_char_p

    def check(self, status):
        if status != 0:
            raise RuntimeError(self.lib.flopspack_last_error_message().decode())

    def version(self):
        return self.lib.flopspack_version_string().decode()

    def transformer(self, layers, hidden, heads, kv_heads, ffn, vocab, gated, head_dim=0,
                    causal=True, recompute=False):
        config = TransformerConfig()
        self.lib.flopspack_transformer_config_init(ctypes.byref(config))
        config.num_layers, config.hidden_size = layers, hidden
        config.num_attention_heads, config.num_key_value_heads = heads, kv_heads
        config.head_dim, config.intermediate_size, config.vocab_size = head_dim, ffn, vocab
        config.gated_mlp, config.causal, config.recompute = int(gated), int(causal), int(recompute)
        model = ctypes.c_void_p()
        self.check(self.lib.flopspack_cost_model_transformer(ctypes.byref(config),
                                                             ctypes.byref(model)))
        return CostModel(self, model)

    def tokens(self):
        model = ctypes.c_void_p()
        self.check(self.lib.flopspack_cost_model_tokens(ctypes.byref(model)))
        return CostModel(self, model)


def int64_array(values):
    return (ctypes.c_int64 * len(values))(*values)


class CostModel:
    def __init__(self, library, handle):
        self.library, self.handle = library, handle

    def __del__(self):
        self.library.lib.flopspack_cost_model_destroy(self.handle)

    def sequence_cost(self, lengths):
        out = ctypes.c_double()
        self.library.check(self.library.lib.flopspack_cost_model_sequence_cost(
            self.handle, int64_array(lengths), ctypes.c_size_t(len(lengths)), ctypes.byref(out)))
        return out.value

    def document_costs(self, lengths):
        out = (ctypes.c_double * len(lengths))()
        self.library.check(self.library.lib.flopspack_cost_model_document_costs(
            self.handle, int64_array(lengths), ctypes.c_size_t(len(lengths)), out))
        return list(out)
