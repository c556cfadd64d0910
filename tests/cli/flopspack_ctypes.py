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


class PlanMetrics(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("num_groups", ctypes.c_uint64),
        ("num_items", ctypes.c_uint64),
        ("max_group_cost", ctypes.c_double),
        ("mean_group_cost", ctypes.c_double),
        ("min_group_cost", ctypes.c_double),
        ("total_cost", ctypes.c_double),
        ("balance_efficiency", ctypes.c_double),
        ("lower_bound", ctypes.c_double),
        ("gap_to_lower_bound", ctypes.c_double),
        ("real_tokens", ctypes.c_int64),
        ("computed_tokens", ctypes.c_int64),
        ("capacity", ctypes.c_int64),
        ("fill", ctypes.c_double),
        ("padding_efficiency", ctypes.c_double),
        ("num_ranks", ctypes.c_uint64),
        ("microbatches_per_rank", ctypes.c_uint64),
        ("max_rank_cost", ctypes.c_double),
        ("mean_rank_cost", ctypes.c_double),
        ("rank_balance_efficiency", ctypes.c_double),
        ("rank_lower_bound", ctypes.c_double),
        ("rank_gap_to_lower_bound", ctypes.c_double),
        ("worst_slot_balance", ctypes.c_double),
        ("split_items", ctypes.c_uint64),
        ("truncated_items", ctypes.c_uint64),
        ("deferred_items", ctypes.c_uint64),
        ("dropped_items", ctypes.c_uint64),
        ("truncated_tokens", ctypes.c_int64),
        ("deferred_tokens", ctypes.c_int64),
        ("dropped_tokens", ctypes.c_int64),
        ("num_steps", ctypes.c_uint64),
        ("diversity_distance", ctypes.c_double),
        ("diversity_distance_samples", ctypes.c_double),
        ("planned_by", ctypes.c_int32),
        ("microbatch_sync_efficiency", ctypes.c_double),
        ("mean_slot_balance", ctypes.c_double),
        ("microbatch_sync_cost", ctypes.c_double),
        ("microbatch_sync_lower_bound", ctypes.c_double),
        ("microbatch_sync_gap_to_lower_bound", ctypes.c_double),
        ("pipeline_makespan", ctypes.c_double),
        ("pipeline_efficiency", ctypes.c_double),
        ("pipeline_lower_bound", ctypes.c_double),
        ("pipeline_gap_to_lower_bound", ctypes.c_double),
    ]


class Plan:
    """A flopspack_plan: metrics as a dict, groups as (items, tokens, real, computed, cost)."""

    def __init__(self, library, handle):
        self.library, self.handle = library, handle

    def __del__(self):
        self.library.lib.flopspack_plan_destroy(self.handle)

    def metrics(self):
        m = PlanMetrics()
        m.struct_size = ctypes.sizeof(m)
        self.library.check(self.library.lib.flopspack_plan_metrics(self.handle, ctypes.byref(m)))
        return {name: getattr(m, name) for name, _ in PlanMetrics._fields_ if name != "struct_size"}

    def groups(self):
        lib = self.library.lib
        lib.flopspack_plan_group_count.restype = ctypes.c_size_t
        out = []
        for g in range(lib.flopspack_plan_group_count(self.handle)):
            items = ctypes.POINTER(ctypes.c_int64)()
            tokens = ctypes.POINTER(ctypes.c_int64)()
            n = ctypes.c_size_t()
            self.library.check(lib.flopspack_plan_group(self.handle, ctypes.c_size_t(g),
                                                        ctypes.byref(items), ctypes.byref(tokens),
                                                        ctypes.byref(n)))
            real, computed, cost = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_double()
            self.library.check(lib.flopspack_plan_group_info(
                self.handle, ctypes.c_size_t(g), ctypes.byref(real), ctypes.byref(computed),
                ctypes.byref(cost)))
            out.append(([items[i] for i in range(n.value)], [tokens[i] for i in range(n.value)],
                        real.value, computed.value, cost.value))
        return out


class StreamOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("capacity", ctypes.c_int64),
                ("window", ctypes.c_uint64), ("overflow", ctypes.c_int32),
                ("seed", ctypes.c_uint64)]


def stream_pack(library, lengths, model, capacity, window, overflow, seed):
    """All of lengths through a stream packer, flushed, taken as one plan."""
    lib = library.lib
    options = StreamOptions()
    lib.flopspack_stream_options_init(ctypes.byref(options))
    options.capacity, options.window, options.overflow, options.seed = (capacity, window,
                                                                       overflow, seed)
    packer = ctypes.c_void_p()
    library.check(lib.flopspack_stream_packer_create(ctypes.byref(options), model.handle,
                                                     ctypes.byref(packer)))
    try:
        library.check(lib.flopspack_stream_packer_push(packer, int64_array(lengths),
                                                       ctypes.c_size_t(len(lengths))))
        library.check(lib.flopspack_stream_packer_flush(packer))
        plan = ctypes.c_void_p()
        library.check(lib.flopspack_stream_packer_take(packer, ctypes.byref(plan)))
        return Plan(library, plan)
    finally:
        lib.flopspack_stream_packer_destroy(packer)


class BucketSamplerOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("budget_kind", ctypes.c_int32),
                ("num_buckets", ctypes.c_uint32), ("drop_last", ctypes.c_int32),
                ("upper_bounds", ctypes.POINTER(ctypes.c_int64)),
                ("num_upper_bounds", ctypes.c_uint64), ("max_padded_tokens", ctypes.c_int64),
                ("max_batch_cost", ctypes.c_double), ("num_ranks", ctypes.c_uint64),
                ("accumulation_steps", ctypes.c_uint64), ("seed", ctypes.c_uint64)]


def bucket_epoch(library, lengths, model, num_buckets, max_padded_tokens, num_ranks,
                 accumulation, seed, epoch):
    """The bucket sampler's epoch plan and its upper bounds."""
    lib = library.lib
    options = BucketSamplerOptions()
    lib.flopspack_bucket_sampler_options_init(ctypes.byref(options))
    options.num_buckets, options.max_padded_tokens = num_buckets, max_padded_tokens
    options.num_ranks, options.accumulation_steps, options.seed = num_ranks, accumulation, seed
    sampler = ctypes.c_void_p()
    library.check(lib.flopspack_bucket_sampler_create(
        ctypes.byref(options), model.handle, int64_array(lengths), ctypes.c_size_t(len(lengths)),
        ctypes.byref(sampler)))
    try:
        plan = ctypes.c_void_p()
        library.check(lib.flopspack_bucket_sampler_epoch(sampler, ctypes.c_uint64(epoch),
                                                         ctypes.byref(plan)))
        bounds = ctypes.POINTER(ctypes.c_int64)()
        n = ctypes.c_size_t()
        library.check(lib.flopspack_bucket_sampler_upper_bounds(sampler, ctypes.byref(bounds),
                                                                ctypes.byref(n)))
        return Plan(library, plan), [bounds[i] for i in range(n.value)]
    finally:
        lib.flopspack_bucket_sampler_destroy(sampler)


class StepOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("num_ranks", ctypes.c_uint32),
                ("microbatches_per_rank", ctypes.c_uint32), ("algorithm", ctypes.c_int32),
                ("max_tokens_per_microbatch", ctypes.c_int64), ("seed", ctypes.c_uint64),
                ("ordering", ctypes.c_int32), ("overflow", ctypes.c_int32),
                ("sync", ctypes.c_int32), ("pipeline_stages", ctypes.c_uint32),
                ("pipeline_schedule", ctypes.c_int32)]


STEP_ALGORITHMS = {"documents": 0, "random": 1, "tokens": 2, "sequences": 3}


def plan_step(library, lengths, model, num_ranks, capacity, algorithm="documents",
              microbatches=0, seed=0, ordering=0, overflow=2, sync=0, pipeline_stages=0):
    lib = library.lib
    options = StepOptions()
    lib.flopspack_step_options_init(ctypes.byref(options))
    options.num_ranks, options.microbatches_per_rank = num_ranks, microbatches
    options.algorithm = STEP_ALGORITHMS[algorithm]
    options.max_tokens_per_microbatch, options.seed = capacity, seed
    options.ordering, options.overflow = ordering, overflow
    options.sync, options.pipeline_stages = sync, pipeline_stages
    plan = ctypes.c_void_p()
    library.check(lib.flopspack_plan_step(ctypes.byref(options), model.handle,
                                          int64_array(lengths), ctypes.c_size_t(len(lengths)),
                                          ctypes.byref(plan)))
    return Plan(library, plan)


class PackOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("algorithm", ctypes.c_int32),
                ("capacity", ctypes.c_int64), ("overflow", ctypes.c_int32),
                ("seed", ctypes.c_uint64), ("cost_model", ctypes.c_void_p)]


PACK_ALGORITHMS = {"bfd": 0, "ffd": 1, "next-fit": 2, "shuffled": 3}


def pack(library, lengths, model, capacity, algorithm="bfd", overflow=2, seed=0):
    lib = library.lib
    options = PackOptions()
    lib.flopspack_pack_options_init(ctypes.byref(options))
    options.algorithm, options.capacity = PACK_ALGORITHMS[algorithm], capacity
    options.overflow, options.seed, options.cost_model = overflow, seed, model.handle
    plan = ctypes.c_void_p()
    library.check(lib.flopspack_pack(ctypes.byref(options), int64_array(lengths),
                                     ctypes.c_size_t(len(lengths)), ctypes.byref(plan)))
    return Plan(library, plan)


class BalanceOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("algorithm", ctypes.c_int32),
                ("num_groups", ctypes.c_int64), ("equal_count", ctypes.c_int32),
                ("refine", ctypes.c_int32), ("max_tokens_per_group", ctypes.c_int64),
                ("max_refine_steps", ctypes.c_int64), ("seed", ctypes.c_uint64)]


BALANCE_ALGORITHMS = {"auto": 0, "greedy": 1, "lpt": 2, "kk": 3}


def balance(library, costs, tokens, num_groups, algorithm="auto", equal_count=False, refine=True,
            max_tokens=0, seed=0):
    lib = library.lib
    options = BalanceOptions()
    lib.flopspack_balance_options_init(ctypes.byref(options))
    options.algorithm, options.num_groups = BALANCE_ALGORITHMS[algorithm], num_groups
    options.equal_count, options.refine = int(equal_count), int(refine)
    options.max_tokens_per_group, options.seed = max_tokens, seed
    plan = ctypes.c_void_p()
    library.check(lib.flopspack_balance(
        ctypes.byref(options), (ctypes.c_double * len(costs))(*costs), int64_array(tokens),
        ctypes.c_size_t(len(costs)), ctypes.byref(plan)))
    return Plan(library, plan)


class StatsSummary(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("count", ctypes.c_uint64),
                ("distinct_lengths", ctypes.c_uint64), ("tokens", ctypes.c_int64),
                ("mean", ctypes.c_double), ("stddev", ctypes.c_double),
                ("min", ctypes.c_int64), ("max", ctypes.c_int64), ("p50", ctypes.c_int64),
                ("p90", ctypes.c_int64), ("p99", ctypes.c_int64), ("p999", ctypes.c_int64),
                ("has_cost", ctypes.c_int32), ("total_cost", ctypes.c_double),
                ("mean_cost", ctypes.c_double), ("max_cost", ctypes.c_double)]


class Stats:
    def __init__(self, library, lengths, model=None):
        self.library = library
        self.handle = ctypes.c_void_p()
        library.check(library.lib.flopspack_stats_create(
            int64_array(lengths), ctypes.c_size_t(len(lengths)),
            model.handle if model else None, ctypes.byref(self.handle)))

    def __del__(self):
        self.library.lib.flopspack_stats_destroy(self.handle)

    def summary(self):
        s = StatsSummary()
        s.struct_size = ctypes.sizeof(s)
        self.library.check(self.library.lib.flopspack_stats_summarize(self.handle,
                                                                     ctypes.byref(s)))
        out = {name: getattr(s, name) for name, _ in StatsSummary._fields_
               if name != "struct_size"}
        out["has_cost"] = bool(out["has_cost"])
        return out

    def ks_distance(self, other):
        out = ctypes.c_double()
        self.library.check(self.library.lib.flopspack_stats_ks_distance(
            self.handle, other.handle, ctypes.byref(out)))
        return out.value


class SimulateOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("policy", ctypes.c_int32),
                ("num_ranks", ctypes.c_uint64), ("microbatches_per_rank", ctypes.c_uint64),
                ("tokens_per_microbatch", ctypes.c_int64),
                ("max_tokens_per_microbatch", ctypes.c_int64), ("num_steps", ctypes.c_uint64),
                ("seed", ctypes.c_uint64), ("record_steps", ctypes.c_int32),
                ("progress", ctypes.c_void_p), ("progress_user_data", ctypes.c_void_p),
                ("sync", ctypes.c_int32), ("pipeline_stages", ctypes.c_uint32),
                ("pipeline_schedule", ctypes.c_int32),
                ("context_parallel_size", ctypes.c_uint32),
                ("context_parallel_layout", ctypes.c_int32)]


class SimulateSummary(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("num_steps", ctypes.c_uint64),
                ("num_ranks", ctypes.c_uint64), ("microbatches_per_rank", ctypes.c_uint64),
                ("documents_drawn", ctypes.c_uint64), ("epochs", ctypes.c_uint64),
                ("mean_balance_efficiency", ctypes.c_double),
                ("p5_balance_efficiency", ctypes.c_double),
                ("p50_balance_efficiency", ctypes.c_double),
                ("p95_balance_efficiency", ctypes.c_double), ("mean_fill", ctypes.c_double),
                ("mean_padding_efficiency", ctypes.c_double),
                ("relative_throughput", ctypes.c_double), ("mean_step_time", ctypes.c_double),
                ("predicted_efficiency", ctypes.c_double), ("real_tokens", ctypes.c_int64),
                ("computed_tokens", ctypes.c_int64), ("sync", ctypes.c_int32),
                ("pipeline_stages", ctypes.c_uint32), ("pipeline_schedule", ctypes.c_int32),
                ("mean_sync_efficiency", ctypes.c_double)]


SYNC_NAMES = {0: "step", 1: "microbatch"}
PIPELINE_SCHEDULE_NAMES = {0: "1f1b"}


def simulate_options(library, policy, num_ranks, microbatches, tokens, max_tokens, steps, seed,
                     sync=0, pipeline_stages=0, cp=0, cp_layout=1):
    options = SimulateOptions()
    library.lib.flopspack_simulate_options_init(ctypes.byref(options))
    options.policy, options.num_ranks, options.microbatches_per_rank = policy, num_ranks, \
        microbatches
    options.tokens_per_microbatch, options.max_tokens_per_microbatch = tokens, max_tokens
    options.num_steps, options.seed = steps, seed
    options.sync, options.pipeline_stages = sync, pipeline_stages
    options.context_parallel_size, options.context_parallel_layout = cp, cp_layout
    return options


def simulate(library, lengths, model, extra_costs=None, **kwargs):
    lib = library.lib
    options = simulate_options(library, **kwargs)
    result = ctypes.c_void_p()
    if extra_costs is None:
        library.check(lib.flopspack_simulate(int64_array(lengths), ctypes.c_size_t(len(lengths)),
                                             model.handle, ctypes.byref(options),
                                             ctypes.byref(result)))
    else:
        library.check(lib.flopspack_simulate_with_extra_costs(
            int64_array(lengths), (ctypes.c_double * len(extra_costs))(*extra_costs),
            ctypes.c_size_t(len(lengths)), model.handle, ctypes.byref(options),
            ctypes.byref(result)))
    try:
        s = SimulateSummary()
        s.struct_size = ctypes.sizeof(s)
        library.check(lib.flopspack_simulate_result_summary(result, ctypes.byref(s)))
        out = {name: getattr(s, name) for name, _ in SimulateSummary._fields_
               if name != "struct_size"}
        out["sync"] = SYNC_NAMES[out["sync"]]
        out["pipeline_schedule"] = PIPELINE_SCHEDULE_NAMES[out["pipeline_schedule"]]
        return out
    finally:
        lib.flopspack_simulate_result_destroy(result)


def simulate_sweep(library, lengths, model, ranks, extra_costs=None, **kwargs):
    options = simulate_options(library, num_ranks=1, **kwargs)
    n = len(ranks)
    out = [(ctypes.c_double * n)() for _ in range(3)]
    extra = None if extra_costs is None else (ctypes.c_double * len(extra_costs))(*extra_costs)
    library.check(library.lib.flopspack_simulate_sweep_with_extra_costs(
        int64_array(lengths), extra, ctypes.c_size_t(len(lengths)), model.handle,
        ctypes.byref(options), (ctypes.c_uint64 * n)(*ranks), ctypes.c_size_t(n), *out))
    return [list(a) for a in out]
