/* flopspack.i — the language-neutral SWIG interface of flopspack.
 *
 * Included by one small file per language (bindings/python/flopspack_python.i,
 * bindings/go/internal/capi/capi.swigcxx), which first defines the named
 * typemaps this file applies:
 *
 *   flopspack_status (return)            status -> exception / error; the message
 *                                        is read inside the same C call
 *   (const int64_t* LENGTHS, size_t N)   native int64 array in, no copy
 *   (const double* VALUES, size_t N)     native float64 array in, no copy
 *   (const size_t* OFFSETS, size_t N)    native size_t array in, no copy
 *   (double* OUT_VALUES, size_t N)       caller-allocated float64 array, written in place
 *   SWIGTYPE** OUT_HANDLE                a new owning handle object
 *   double* OUT_DOUBLE, int* OUT_INT,    scalar out-parameters
 *   size_t* OUT_SIZE, int64_t* OUT_INT64
 *   SWIGTYPE* OUT_STRUCT                 an output struct (struct_size preset)
 *   (const int64_t** VIEW, size_t* N)    a borrowed view, copied into a native array
 *   (const unsigned char* BYTES, size_t N)  native bytes in, no copy
 *   (unsigned char* OUT_BYTES, size_t N)    caller-allocated bytes, written in place
 *   (int64_t* OUT_INT64S, size_t N)      caller-allocated int64 array, written in place
 *   (uint64_t* OUT_UINT64S, size_t N)    caller-allocated uint64 array, written in place
 *   uint64_t* OUT_UINT64                 scalar out-parameter
 *
 * What this file holds: the whitelist of wrapped functions (every function is
 * ignored unless listed in the WHITELIST below), the handle types as owning
 * objects whose destructor calls flopspack_<thing>_destroy exactly once, and
 * the flopspack_swig_* helpers for C functions whose array sizes are implied
 * rather than passed (the helper checks them, so no binding can read past a
 * caller's array). Recipe for a new C function: docs/bindings.md.
 */

%{
#include <cstring>
#include <string>

#include "flopspack/flopspack.h"

/* Errors found by the binding itself (a helper's size check) take precedence
 * over the library's message for the current call. */
static thread_local std::string flopspack_swig_error_text;
static thread_local bool flopspack_swig_error_pending = false;

static flopspack_status flopspack_swig_fail(flopspack_status status, std::string message) {
  flopspack_swig_error_text = std::move(message);
  flopspack_swig_error_pending = true;
  return status;
}

/* The message of the call that just failed, on this thread. */
static const char* flopspack_swig_error_message(void) {
  if (flopspack_swig_error_pending) {
    flopspack_swig_error_pending = false;
    return flopspack_swig_error_text.c_str();
  }
  return flopspack_last_error_message();
}
%}

%include <stdint.i>

/* ---- Whitelist: only these functions are wrapped. ---- */
%rename("$ignore", %$isfunction) "";
%define FLOPSPACK_WRAP(name)
%rename("%s") name;
%enddef

/* version, status, errors */
FLOPSPACK_WRAP(flopspack_version_number)
FLOPSPACK_WRAP(flopspack_version_string)
FLOPSPACK_WRAP(flopspack_status_string)
/* seeds */
FLOPSPACK_WRAP(flopspack_derive_seed)
/* cost models */
FLOPSPACK_WRAP(flopspack_cost_model_tokens)
FLOPSPACK_WRAP(flopspack_cost_model_polynomial)
FLOPSPACK_WRAP(flopspack_cost_model_transformer)
FLOPSPACK_WRAP(flopspack_cost_model_sequence_cost)
FLOPSPACK_WRAP(flopspack_cost_model_padded_batch_cost)
FLOPSPACK_WRAP(flopspack_cost_model_sequence_overhead)
FLOPSPACK_WRAP(flopspack_cost_model_is_additive)
FLOPSPACK_WRAP(flopspack_swig_cost_model_fit)
FLOPSPACK_WRAP(flopspack_swig_cost_model_document_costs)
FLOPSPACK_WRAP(flopspack_cost_model_coefficients)
FLOPSPACK_WRAP(flopspack_swig_cost_model_evaluate)
/* plans */
FLOPSPACK_WRAP(flopspack_plan_group_count)
FLOPSPACK_WRAP(flopspack_plan_group_info)
FLOPSPACK_WRAP(flopspack_plan_group_slot)
FLOPSPACK_WRAP(flopspack_swig_plan_metrics)
FLOPSPACK_WRAP(flopspack_swig_plan_group_items)
FLOPSPACK_WRAP(flopspack_swig_plan_group_tokens)
FLOPSPACK_WRAP(flopspack_swig_plan_deferred)
FLOPSPACK_WRAP(flopspack_swig_plan_dropped)
FLOPSPACK_WRAP(flopspack_swig_plan_csr_size)
FLOPSPACK_WRAP(flopspack_swig_plan_csr)
FLOPSPACK_WRAP(flopspack_swig_plan_group_offsets)
FLOPSPACK_WRAP(flopspack_swig_plan_piece_offsets)
/* streaming packer */
FLOPSPACK_WRAP(flopspack_stream_packer_create)
FLOPSPACK_WRAP(flopspack_stream_packer_push)
FLOPSPACK_WRAP(flopspack_stream_packer_flush)
FLOPSPACK_WRAP(flopspack_stream_packer_ready)
FLOPSPACK_WRAP(flopspack_stream_packer_take)
FLOPSPACK_WRAP(flopspack_stream_packer_totals)
FLOPSPACK_WRAP(flopspack_swig_stream_packer_save)
FLOPSPACK_WRAP(flopspack_swig_stream_packer_restore)
/* statistics */
FLOPSPACK_WRAP(flopspack_stats_create)
FLOPSPACK_WRAP(flopspack_swig_stats_create_from_histogram)
FLOPSPACK_WRAP(flopspack_swig_stats_create_with_options)
FLOPSPACK_WRAP(flopspack_stats_merge)
FLOPSPACK_WRAP(flopspack_stats_summarize)
FLOPSPACK_WRAP(flopspack_stats_quantile)
FLOPSPACK_WRAP(flopspack_stats_weighted_quantile)
FLOPSPACK_WRAP(flopspack_stats_cdf)
FLOPSPACK_WRAP(flopspack_swig_stats_histogram_size)
FLOPSPACK_WRAP(flopspack_swig_stats_histogram)
FLOPSPACK_WRAP(flopspack_stats_tail_share)
FLOPSPACK_WRAP(flopspack_stats_expected_max)
FLOPSPACK_WRAP(flopspack_stats_ks_distance)
FLOPSPACK_WRAP(flopspack_stats_ks_distance_weighted)
FLOPSPACK_WRAP(flopspack_stats_compare)
FLOPSPACK_WRAP(flopspack_swig_stats_entries_size)
FLOPSPACK_WRAP(flopspack_swig_stats_entries)
/* the straggler emulator */
FLOPSPACK_WRAP(flopspack_simulate)
FLOPSPACK_WRAP(flopspack_simulate_result_summary)
FLOPSPACK_WRAP(flopspack_swig_simulate_series_size)
FLOPSPACK_WRAP(flopspack_swig_simulate_series)
FLOPSPACK_WRAP(flopspack_simulate_result_pieces)
FLOPSPACK_WRAP(flopspack_swig_simulate_sweep)
FLOPSPACK_WRAP(flopspack_swig_simulate_with_extra_costs)
FLOPSPACK_WRAP(flopspack_swig_simulate_sweep_with_extra_costs)
/* packing and balancing */
FLOPSPACK_WRAP(flopspack_swig_pack)
FLOPSPACK_WRAP(flopspack_swig_pack_with_extra_costs)
FLOPSPACK_WRAP(flopspack_swig_balance)
/* step planning and the stateful step planner */
FLOPSPACK_WRAP(flopspack_plan_step)
FLOPSPACK_WRAP(flopspack_swig_plan_step_with_extra_costs)
FLOPSPACK_WRAP(flopspack_swig_multimodal_costs)
FLOPSPACK_WRAP(flopspack_step_planner_create)
FLOPSPACK_WRAP(flopspack_step_planner_push)
FLOPSPACK_WRAP(flopspack_step_planner_next)
FLOPSPACK_WRAP(flopspack_step_planner_pending)
FLOPSPACK_WRAP(flopspack_step_planner_save_size)
FLOPSPACK_WRAP(flopspack_swig_step_planner_save)
FLOPSPACK_WRAP(flopspack_swig_step_planner_restore)
FLOPSPACK_WRAP(flopspack_swig_step_planner_push_with_extra_costs)
FLOPSPACK_WRAP(flopspack_stream_packer_save_size)
/* step contexts: the step planner with storage kept between calls */
FLOPSPACK_WRAP(flopspack_step_context_create)
FLOPSPACK_WRAP(flopspack_step_context_reserve)
FLOPSPACK_WRAP(flopspack_plan_step_in_context)
FLOPSPACK_WRAP(flopspack_step_context_kept_bytes)
/* length buckets and the bucket sampler */
FLOPSPACK_WRAP(flopspack_swig_buckets_optimize)
FLOPSPACK_WRAP(flopspack_buckets_padding)
FLOPSPACK_WRAP(flopspack_swig_bucket_sampler_create)
FLOPSPACK_WRAP(flopspack_bucket_sampler_epoch)
FLOPSPACK_WRAP(flopspack_bucket_sampler_step)
FLOPSPACK_WRAP(flopspack_bucket_sampler_steps_per_epoch)
FLOPSPACK_WRAP(flopspack_bucket_sampler_upper_bounds)
FLOPSPACK_WRAP(flopspack_swig_bucket_sampler_step_count)
FLOPSPACK_WRAP(flopspack_swig_bucket_sampler_step_diversity)
FLOPSPACK_WRAP(flopspack_bucket_sampler_diagnose)
FLOPSPACK_WRAP(flopspack_bucket_stream_create)
FLOPSPACK_WRAP(flopspack_bucket_stream_push)
FLOPSPACK_WRAP(flopspack_bucket_stream_flush)
FLOPSPACK_WRAP(flopspack_bucket_stream_ready)
FLOPSPACK_WRAP(flopspack_bucket_stream_take)
FLOPSPACK_WRAP(flopspack_bucket_stream_deferred)
FLOPSPACK_WRAP(flopspack_bucket_stream_leftover)
/* context parallelism */
FLOPSPACK_WRAP(flopspack_plan_shard_context_parallel)
FLOPSPACK_WRAP(flopspack_cp_shard_group_count)
FLOPSPACK_WRAP(flopspack_swig_cp_shard_chunk_items)
FLOPSPACK_WRAP(flopspack_swig_cp_shard_chunk_offsets)
FLOPSPACK_WRAP(flopspack_swig_cp_shard_chunk_lengths)
FLOPSPACK_WRAP(flopspack_cp_shard_rank_cost)
FLOPSPACK_WRAP(flopspack_cp_shard_group_layout)
FLOPSPACK_WRAP(flopspack_cp_shard_metrics)
/* Deliberately not wrapped: flopspack_last_error_message (read by the status
 * typemap inside each call), flopspack_*_destroy (called by the handle
 * destructors), flopspack_cost_model_custom (a per-language trampoline),
 * flopspack_cost_model_fit / _evaluate / _document_costs / flopspack_plan_group /
 * _deferred / _dropped / flopspack_plan_metrics (array sizes implied, or the
 * struct/function name clash: see the helpers), flopspack_stream_packer_save /
 * _restore and flopspack_step_planner_save / _restore (void* buffers),
 * flopspack_buckets_optimize (output size implied),
 * flopspack_bucket_sampler_create (the options' upper_bounds pointer is
 * passed as an array instead), _step_diversity (query + fill split),
 * flopspack_pack (the options' cost_model pointer is an argument instead),
 * flopspack_balance (costs and tokens share n; tokens optional),
 * flopspack_stats_create_from_histogram / _histogram / _entries,
 * flopspack_simulate_result_series / flopspack_simulate_sweep (implied
 * sizes or size queries: see the helpers), flopspack_cp_shard_chunks (three
 * views: the flopspack_swig_cp_shard_chunk_* helpers). The simulate options' progress
 * callback is set per language (a Python callable) or left NULL. */

/* ---- Handles: owning objects, destroyed exactly once. ---- */
%define FLOPSPACK_HANDLE(type, destroy)
%nodefaultctor type;
struct type {};
%extend type {
  ~type() { destroy($self); }
}
%apply SWIGTYPE** OUT_HANDLE { type** out };
%enddef

FLOPSPACK_HANDLE(flopspack_cost_model, flopspack_cost_model_destroy)
FLOPSPACK_HANDLE(flopspack_plan, flopspack_plan_destroy)
FLOPSPACK_HANDLE(flopspack_stream_packer, flopspack_stream_packer_destroy)
FLOPSPACK_HANDLE(flopspack_bucket_sampler, flopspack_bucket_sampler_destroy)
FLOPSPACK_HANDLE(flopspack_bucket_stream, flopspack_bucket_stream_destroy)
FLOPSPACK_HANDLE(flopspack_step_planner, flopspack_step_planner_destroy)
FLOPSPACK_HANDLE(flopspack_stats, flopspack_stats_destroy)
FLOPSPACK_HANDLE(flopspack_simulate_result, flopspack_simulate_result_destroy)
FLOPSPACK_HANDLE(flopspack_cp_shard, flopspack_cp_shard_destroy)
FLOPSPACK_HANDLE(flopspack_step_context, flopspack_step_context_destroy)

/* ---- Output structs: constructed with struct_size already set. ---- */
%define FLOPSPACK_OUTPUT_STRUCT(type, ctype)
%extend type {
  type() {
    ctype* s = (ctype*)calloc(1, sizeof(ctype));
    s->struct_size = (uint32_t)sizeof(ctype);
    return s;
  }
  ~type() { free($self); }
}
%enddef

/* struct flopspack_plan_metrics shares its name with the function that
 * fills it (like POSIX stat). Generated C++ spells types without `struct`,
 * where the bare name means the function, so the wrappers see the struct as
 * flopspack_plan_metrics_data (a typedef) and call the function through
 * flopspack_swig_plan_metrics. */
%{
typedef struct flopspack_plan_metrics flopspack_plan_metrics_data;
%}
FLOPSPACK_OUTPUT_STRUCT(flopspack_plan_metrics_data, flopspack_plan_metrics_data)
FLOPSPACK_OUTPUT_STRUCT(flopspack_fit_report, flopspack_fit_report)
FLOPSPACK_OUTPUT_STRUCT(flopspack_polynomial_coefficients, flopspack_polynomial_coefficients)
FLOPSPACK_OUTPUT_STRUCT(flopspack_prediction_quality, flopspack_prediction_quality)
FLOPSPACK_OUTPUT_STRUCT(flopspack_stream_totals, flopspack_stream_totals)
FLOPSPACK_OUTPUT_STRUCT(flopspack_stats_summary, flopspack_stats_summary)
FLOPSPACK_OUTPUT_STRUCT(flopspack_stats_tail, flopspack_stats_tail)
FLOPSPACK_OUTPUT_STRUCT(flopspack_stats_comparison, flopspack_stats_comparison)
FLOPSPACK_OUTPUT_STRUCT(flopspack_simulate_summary, flopspack_simulate_summary)
FLOPSPACK_OUTPUT_STRUCT(flopspack_bucket_sampler_diagnostics, flopspack_bucket_sampler_diagnostics)
FLOPSPACK_OUTPUT_STRUCT(flopspack_cp_metrics, flopspack_cp_metrics)
/* Fixed-size array members are read through index accessors (the same in
 * every language) instead of SWIG's raw array pointers. */
%ignore flopspack_stats_comparison::levels;
%ignore flopspack_stats_comparison::quantiles_a;
%ignore flopspack_stats_comparison::quantiles_b;
FLOPSPACK_WRAP(flopspack_stats_comparison::level_at)
FLOPSPACK_WRAP(flopspack_stats_comparison::quantile_a_at)
FLOPSPACK_WRAP(flopspack_stats_comparison::quantile_b_at)
%extend flopspack_stats_comparison {
  double level_at(size_t i) { return i < FLOPSPACK_STATS_COMPARE_LEVELS ? $self->levels[i] : 0.0; }
  int64_t quantile_a_at(size_t i) {
    return i < FLOPSPACK_STATS_COMPARE_LEVELS ? $self->quantiles_a[i] : 0;
  }
  int64_t quantile_b_at(size_t i) {
    return i < FLOPSPACK_STATS_COMPARE_LEVELS ? $self->quantiles_b[i] : 0;
  }
}

/* ---- Option structs: constructed with the library's defaults. ---- */
%define FLOPSPACK_OPTIONS_STRUCT(type, init)
%extend type {
  type() {
    type* s = (type*)calloc(1, sizeof(type));
    init(s);
    return s;
  }
  ~type() { free($self); }
}
%enddef
FLOPSPACK_OPTIONS_STRUCT(flopspack_transformer_config, flopspack_transformer_config_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_fit_options, flopspack_fit_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_evaluate_options, flopspack_evaluate_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_stream_options, flopspack_stream_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_bucket_sampler_options, flopspack_bucket_sampler_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_pack_options, flopspack_pack_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_balance_options, flopspack_balance_options_init)
%ignore flopspack_pack_options::cost_model;
FLOPSPACK_OPTIONS_STRUCT(flopspack_histogram_options, flopspack_histogram_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_simulate_options, flopspack_simulate_options_init)
%ignore flopspack_simulate_options::progress;
%ignore flopspack_simulate_options::progress_user_data;
FLOPSPACK_OPTIONS_STRUCT(flopspack_step_options, flopspack_step_options_init)
FLOPSPACK_OPTIONS_STRUCT(flopspack_step_planner_options, flopspack_step_planner_options_init)
/* A pointer member cannot safely hold target-language memory: the bounds go
 * to flopspack_swig_bucket_sampler_create as an array instead. */
%ignore flopspack_bucket_sampler_options::upper_bounds;
%ignore flopspack_bucket_sampler_options::num_upper_bounds;

%apply SWIGTYPE* OUT_STRUCT {
  flopspack_plan_metrics_data* out, flopspack_fit_report* report, flopspack_stream_totals* out,
  flopspack_stats_summary* out, flopspack_stats_tail* out, flopspack_stats_comparison* out,
  flopspack_simulate_summary* out, flopspack_polynomial_coefficients* out,
  flopspack_prediction_quality* out
};
%apply SWIGTYPE* OUT_STRUCT { flopspack_bucket_sampler_diagnostics* out };
%apply SWIGTYPE* OUT_STRUCT { flopspack_cp_metrics* out };
%apply size_t* OUT_SIZE { size_t* accepted };

/* ---- Arrays and scalars by argument name (header naming conventions). ---- */
%apply (const int64_t* LENGTHS, size_t N) {
  (const int64_t* document_lengths, size_t n), (const int64_t* lengths, size_t n),
  (const int64_t* document_lengths, size_t num_lengths),
  (const int64_t* upper_bounds, size_t num_buckets),
  (const int64_t* upper_bounds, size_t num_upper_bounds),
  (const int64_t* token_counts, size_t num_token_counts),
  (const int64_t* text_tokens, size_t n), (const int64_t* images, size_t num_images),
  (const int64_t* patches_per_image, size_t num_patches)
};
%apply (int64_t* OUT_INT64S, size_t N) {
  (int64_t* upper_bounds, size_t num_buckets), (int64_t* out_lengths, size_t num_out_lengths),
  (int64_t* out_edges, size_t num_out_edges),
  (int64_t* out_offsets, size_t num_out_offsets), (int64_t* out_items, size_t num_out_items),
  (int64_t* out_tokens, size_t num_out_tokens), (int64_t* out_ranks, size_t num_out_ranks),
  (int64_t* out_slots, size_t num_out_slots), (int64_t* out_real, size_t num_out_real),
  (int64_t* out_computed, size_t num_out_computed), (int64_t* out_pieces, size_t num_out_pieces),
  (int64_t* out_mm_tokens, size_t num_out_mm_tokens)
};
%apply uint64_t* OUT_UINT64 { uint64_t* out, uint64_t* documents, uint64_t* steps };
%apply (const size_t* OFFSETS, size_t N) {
  (const size_t* sample_offsets, size_t num_offsets),
  (const uint64_t* counts, size_t num_counts), (const uint64_t* rank_counts, size_t num_rank_counts)
};
%apply (uint64_t* OUT_UINT64S, size_t N) { (uint64_t* out_counts, size_t num_out_counts) };
%apply (const double* VALUES, size_t N) {
  (const double* seconds, size_t num_samples), (const double* costs, size_t n),
  (const double* extra_costs, size_t num_extra_costs)
};
%apply (double* OUT_VALUES, size_t N) {
  (double* out_costs, size_t num_out_costs),
  (double* token_distances, size_t num_token_distances),
  (double* sample_distances, size_t num_sample_distances),
  (double* out_weights, size_t num_out_weights), (double* out_values, size_t num_out_values),
  (double* out_sampled, size_t num_out_sampled), (double* out_predicted, size_t num_out_predicted),
  (double* out_relative, size_t num_out_relative),
  (double* out_group_costs, size_t num_out_group_costs),
  (double* out_extra_costs, size_t num_out_extra_costs)
};
%apply double* OUT_DOUBLE { double* out_cost, double* out_overhead, double* cost, double* out, double* distance };
%apply double* OUT_DOUBLE { double* balance };
%apply int* OUT_INT { int* out_additive, int* out_has_slots };
%apply int* OUT_INT { int* layout };
%apply size_t* OUT_SIZE {
  size_t* rank, size_t* microbatch, size_t* out_sequences, size_t* size, size_t* written,
  size_t* out_groups, size_t* out_entries
};
%apply (const unsigned char* BYTES, size_t N) { (const unsigned char* bytes, size_t size) };
%apply (unsigned char* OUT_BYTES, size_t N) { (unsigned char* buffer, size_t capacity) };
%apply int64_t* OUT_INT64 {
  /* Careful: SWIG matches these names on const int64_t* too. */
  int64_t* real_tokens, int64_t* computed_tokens, int64_t* out_padding, int64_t* first_id,
  int64_t* tokens, int64_t* length, int64_t* kv_tokens
};
%apply (const int64_t** VIEW, size_t* N) {
  (const int64_t** items, size_t* n), (const int64_t** upper_bounds, size_t* n)
};

#define flopspack_plan_metrics flopspack_plan_metrics_data /* SWIG's view only */
%warnfilter(302) flopspack_plan_metrics_data;
%include "flopspack/flopspack.h"
#undef flopspack_plan_metrics

/* ---- Helpers whose sizes the binding can check. ---- */
%inline %{
/* The sizes of the samples of flopspack_cost_model_fit / _evaluate. */
static flopspack_status flopspack_swig_check_samples(size_t num_lengths,
                                                     const size_t* sample_offsets,
                                                     size_t num_offsets, size_t num_samples) {
  if (num_offsets != num_samples + 1) {
    return flopspack_swig_fail(
        FLOPSPACK_INVALID_ARGUMENT,
        "sample_offsets has " + std::to_string(num_offsets) + " entries but seconds has " +
            std::to_string(num_samples) + ": it needs one more (a start per sample plus the end)");
  }
  if (sample_offsets[num_samples] != num_lengths) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "sample_offsets[" + std::to_string(num_samples) +
                                   "] = " + std::to_string(sample_offsets[num_samples]) +
                                   " must equal the number of document_lengths (" +
                                   std::to_string(num_lengths) + ")");
  }
  return FLOPSPACK_OK;
}

/* flopspack_cost_model_fit with every array's length explicit. */
flopspack_status flopspack_swig_cost_model_fit(const flopspack_fit_options* options,
                                               const int64_t* document_lengths,
                                               size_t num_lengths, const size_t* sample_offsets,
                                               size_t num_offsets, const double* seconds,
                                               size_t num_samples, flopspack_fit_report* report,
                                               flopspack_cost_model** out) {
  flopspack_status s =
      flopspack_swig_check_samples(num_lengths, sample_offsets, num_offsets, num_samples);
  if (s != FLOPSPACK_OK) return s;
  return flopspack_cost_model_fit(options, document_lengths, sample_offsets, seconds,
                                  num_samples, report, out);
}

/* flopspack_cost_model_evaluate with every array's length explicit. */
flopspack_status flopspack_swig_cost_model_evaluate(
    const flopspack_cost_model* model, const flopspack_evaluate_options* options,
    const int64_t* document_lengths, size_t num_lengths, const size_t* sample_offsets,
    size_t num_offsets, const double* seconds, size_t num_samples,
    flopspack_prediction_quality* out) {
  flopspack_status s =
      flopspack_swig_check_samples(num_lengths, sample_offsets, num_offsets, num_samples);
  if (s != FLOPSPACK_OK) return s;
  return flopspack_cost_model_evaluate(model, options, document_lengths, sample_offsets, seconds,
                                       num_samples, out);
}

/* flopspack_cost_model_document_costs into a caller array of checked size. */
flopspack_status flopspack_swig_cost_model_document_costs(const flopspack_cost_model* model,
                                                          const int64_t* document_lengths,
                                                          size_t n, double* out_costs,
                                                          size_t num_out_costs) {
  if (num_out_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "out_costs has " + std::to_string(num_out_costs) +
                                   " entries for " + std::to_string(n) + " document_lengths");
  }
  return flopspack_cost_model_document_costs(model, document_lengths, n, out_costs);
}

/* The borrowed views of flopspack_plan_group / _deferred / _dropped, one array
 * per call, for the VIEW typemap to copy out. */
flopspack_status flopspack_swig_plan_group_items(const flopspack_plan* plan, size_t group,
                                                 const int64_t** items, size_t* n) {
  return flopspack_plan_group(plan, group, items, NULL, n);
}
flopspack_status flopspack_swig_plan_group_tokens(const flopspack_plan* plan, size_t group,
                                                  const int64_t** items, size_t* n) {
  return flopspack_plan_group(plan, group, NULL, items, n);
}
flopspack_status flopspack_swig_plan_group_offsets(const flopspack_plan* plan, size_t group,
                                                   const int64_t** items, size_t* n) {
  return flopspack_plan_group_offsets(plan, group, items, n);
}
flopspack_status flopspack_swig_plan_deferred(const flopspack_plan* plan, const int64_t** items,
                                              size_t* n) {
  return flopspack_plan_deferred(plan, items, n);
}
flopspack_status flopspack_swig_plan_metrics(const flopspack_plan* plan,
                                             flopspack_plan_metrics_data* out) {
  return flopspack_plan_metrics(plan, out);
}
/* The borrowed views of flopspack_cp_shard_chunks, one array per call. */
flopspack_status flopspack_swig_cp_shard_chunk_items(const flopspack_cp_shard* shard, size_t group,
                                                     size_t cp_rank, const int64_t** items,
                                                     size_t* n) {
  return flopspack_cp_shard_chunks(shard, group, cp_rank, items, NULL, NULL, n);
}
flopspack_status flopspack_swig_cp_shard_chunk_offsets(const flopspack_cp_shard* shard,
                                                       size_t group, size_t cp_rank,
                                                       const int64_t** items, size_t* n) {
  return flopspack_cp_shard_chunks(shard, group, cp_rank, NULL, items, NULL, n);
}
flopspack_status flopspack_swig_cp_shard_chunk_lengths(const flopspack_cp_shard* shard,
                                                       size_t group, size_t cp_rank,
                                                       const int64_t** items, size_t* n) {
  return flopspack_cp_shard_chunks(shard, group, cp_rank, NULL, NULL, items, n);
}
/* flopspack_stream_packer_save / _restore with byte arrays: with an empty
 * buffer, save stores the size needed (the C NULL-buffer query). */
flopspack_status flopspack_swig_stream_packer_save(const flopspack_stream_packer* packer,
                                                   unsigned char* buffer, size_t capacity,
                                                   size_t* size) {
  return flopspack_stream_packer_save(packer, capacity == 0 ? NULL : buffer, capacity, size);
}
flopspack_status flopspack_swig_stream_packer_restore(const unsigned char* bytes, size_t size,
                                                      const flopspack_cost_model* model,
                                                      flopspack_stream_packer** out) {
  return flopspack_stream_packer_restore(bytes, size, model, out);
}
/* Statistics helpers: explicit sizes for the histogram input, and size
 * query + fill for the caller-buffer outputs. */
flopspack_status flopspack_swig_stats_create_from_histogram(const int64_t* lengths, size_t n,
                                                            const uint64_t* counts,
                                                            size_t num_counts,
                                                            const flopspack_cost_model* model,
                                                            flopspack_stats** out) {
  if (num_counts != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "counts has " + std::to_string(num_counts) + " entries for " +
                                   std::to_string(n) + " lengths");
  }
  return flopspack_stats_create_from_histogram(lengths, counts, n, model, out);
}
/* flopspack_stats_create_with_options with the options as a scalar: an
 * empty counts array means each length once. */
flopspack_status flopspack_swig_stats_create_with_options(const int64_t* lengths, size_t n,
                                                          const uint64_t* counts,
                                                          size_t num_counts,
                                                          const flopspack_cost_model* model,
                                                          int64_t cost_capacity,
                                                          flopspack_stats** out) {
  if (num_counts != 0 && num_counts != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "counts has " + std::to_string(num_counts) + " entries for " +
                                   std::to_string(n) + " lengths");
  }
  flopspack_stats_options options;
  flopspack_stats_options_init(&options);
  options.cost_capacity = cost_capacity;
  return flopspack_stats_create_with_options(lengths, num_counts == 0 ? NULL : counts, n, model,
                                             &options, out);
}
flopspack_status flopspack_swig_stats_histogram_size(const flopspack_stats* stats,
                                                     const flopspack_histogram_options* options,
                                                     size_t* size) {
  return flopspack_stats_histogram(stats, options, NULL, NULL, 0, size);
}
flopspack_status flopspack_swig_stats_histogram(const flopspack_stats* stats,
                                                const flopspack_histogram_options* options,
                                                int64_t* out_edges, size_t num_out_edges,
                                                double* out_weights, size_t num_out_weights) {
  if (num_out_edges != num_out_weights) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "out_edges has " + std::to_string(num_out_edges) +
                                   " entries but out_weights has " +
                                   std::to_string(num_out_weights));
  }
  size_t bins = 0;
  flopspack_status s = flopspack_stats_histogram(stats, options, out_edges, out_weights,
                                                 num_out_edges, &bins);
  if (s == FLOPSPACK_OK && bins != num_out_edges) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "the histogram has " + std::to_string(bins) + " bins, not " +
                                   std::to_string(num_out_edges));
  }
  return s;
}
flopspack_status flopspack_swig_stats_entries_size(const flopspack_stats* stats, size_t* size) {
  return flopspack_stats_entries(stats, NULL, NULL, 0, size);
}
flopspack_status flopspack_swig_stats_entries(const flopspack_stats* stats, int64_t* out_lengths,
                                              size_t num_out_lengths, uint64_t* out_counts,
                                              size_t num_out_counts) {
  if (num_out_lengths != num_out_counts) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "out_lengths has " + std::to_string(num_out_lengths) +
                                   " entries but out_counts has " +
                                   std::to_string(num_out_counts));
  }
  size_t n = 0;
  flopspack_status s =
      flopspack_stats_entries(stats, out_lengths, out_counts, num_out_lengths, &n);
  if (s == FLOPSPACK_OK && n != num_out_lengths) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "the statistics have " + std::to_string(n) + " entries, not " +
                                   std::to_string(num_out_lengths));
  }
  return s;
}

/* Simulation helpers: series size query + fill, and the sweep with every
 * output array's length explicit (each must equal the number of counts). */
flopspack_status flopspack_swig_simulate_series_size(const flopspack_simulate_result* result,
                                                     int series, size_t* size) {
  return flopspack_simulate_result_series(result, series, NULL, 0, size);
}
flopspack_status flopspack_swig_simulate_series(const flopspack_simulate_result* result,
                                                int series, double* out_values,
                                                size_t num_out_values) {
  size_t n = 0;
  flopspack_status s =
      flopspack_simulate_result_series(result, series, out_values, num_out_values, &n);
  if (s == FLOPSPACK_OK && n != num_out_values) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "the series has " + std::to_string(n) + " values, not " +
                                   std::to_string(num_out_values));
  }
  return s;
}
flopspack_status flopspack_swig_simulate_sweep(
    const int64_t* lengths, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, const uint64_t* rank_counts,
    size_t num_rank_counts, double* out_sampled, size_t num_out_sampled, double* out_predicted,
    size_t num_out_predicted, double* out_relative, size_t num_out_relative) {
  if (num_out_sampled != num_rank_counts || num_out_predicted != num_rank_counts ||
      num_out_relative != num_rank_counts) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "each output array needs " + std::to_string(num_rank_counts) +
                                   " entries, one per rank count");
  }
  return flopspack_simulate_sweep(lengths, n, model, options, rank_counts, num_rank_counts,
                                  out_sampled, out_predicted, out_relative);
}

/* flopspack_simulate_with_extra_costs / _sweep_with_extra_costs with the
 * extra costs' length explicit: 0 = none (NULL), else n. */
flopspack_status flopspack_swig_simulate_with_extra_costs(
    const int64_t* lengths, size_t n, const double* extra_costs, size_t num_extra_costs,
    const flopspack_cost_model* model, const flopspack_simulate_options* options,
    flopspack_simulate_result** out) {
  if (num_extra_costs != 0 && num_extra_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "extra_costs has " + std::to_string(num_extra_costs) +
                                   " entries for " + std::to_string(n) + " lengths");
  }
  return flopspack_simulate_with_extra_costs(
      lengths, num_extra_costs == 0 ? NULL : extra_costs, n, model, options, out);
}
flopspack_status flopspack_swig_simulate_sweep_with_extra_costs(
    const int64_t* lengths, size_t n, const double* extra_costs, size_t num_extra_costs,
    const flopspack_cost_model* model, const flopspack_simulate_options* options,
    const uint64_t* rank_counts, size_t num_rank_counts, double* out_sampled,
    size_t num_out_sampled, double* out_predicted, size_t num_out_predicted, double* out_relative,
    size_t num_out_relative) {
  if (num_extra_costs != 0 && num_extra_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "extra_costs has " + std::to_string(num_extra_costs) +
                                   " entries for " + std::to_string(n) + " lengths");
  }
  if (num_out_sampled != num_rank_counts || num_out_predicted != num_rank_counts ||
      num_out_relative != num_rank_counts) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "each output array needs " + std::to_string(num_rank_counts) +
                                   " entries, one per rank count");
  }
  return flopspack_simulate_sweep_with_extra_costs(
      lengths, num_extra_costs == 0 ? NULL : extra_costs, n, model, options, rank_counts,
      num_rank_counts, out_sampled, out_predicted, out_relative);
}

/* flopspack_pack with the cost model as an argument (NULL = tokens). */
flopspack_status flopspack_swig_pack(const flopspack_pack_options* options,
                                     const flopspack_cost_model* model, const int64_t* lengths,
                                     size_t n, flopspack_plan** out) {
  if (options == NULL) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  }
  flopspack_pack_options o = *options;
  o.cost_model = model;
  return flopspack_pack(&o, lengths, n, out);
}

/* flopspack_pack_with_extra_costs with the cost model as an argument
 * (NULL = tokens) and the extra costs' length explicit: 0 = none (NULL),
 * else n. */
flopspack_status flopspack_swig_pack_with_extra_costs(const flopspack_pack_options* options,
                                                      const flopspack_cost_model* model,
                                                      const int64_t* lengths, size_t n,
                                                      const double* extra_costs,
                                                      size_t num_extra_costs, flopspack_plan** out) {
  if (options == NULL) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  }
  if (num_extra_costs != 0 && num_extra_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "extra_costs has " + std::to_string(num_extra_costs) +
                                   " entries for " + std::to_string(n) + " lengths");
  }
  flopspack_pack_options o = *options;
  o.cost_model = model;
  return flopspack_pack_with_extra_costs(&o, lengths, num_extra_costs == 0 ? NULL : extra_costs, n,
                                         out);
}

/* flopspack_balance with the tokens' length explicit: 0 = no tokens, else n. */
flopspack_status flopspack_swig_balance(const flopspack_balance_options* options,
                                        const double* costs, size_t n, const int64_t* token_counts,
                                        size_t num_token_counts, flopspack_plan** out) {
  if (num_token_counts != 0 && num_token_counts != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "tokens has " + std::to_string(num_token_counts) + " entries for " +
                                   std::to_string(n) + " costs");
  }
  return flopspack_balance(options, costs, num_token_counts == 0 ? NULL : token_counts, n, out);
}

/* flopspack_plan_step_with_extra_costs with the extra costs' length
 * explicit: 0 = none (NULL), else n. */
flopspack_status flopspack_swig_plan_step_with_extra_costs(const flopspack_step_options* options,
                                                           const flopspack_cost_model* model,
                                                           const int64_t* lengths, size_t n,
                                                           const double* extra_costs,
                                                           size_t num_extra_costs,
                                                           flopspack_plan** out) {
  if (num_extra_costs != 0 && num_extra_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "extra_costs has " + std::to_string(num_extra_costs) +
                                   " entries for " + std::to_string(n) + " lengths");
  }
  return flopspack_plan_step_with_extra_costs(
      options, model, lengths, num_extra_costs == 0 ? NULL : extra_costs, n, out);
}

/* flopspack_multimodal_costs with every array's length explicit (all n). */
flopspack_status flopspack_swig_multimodal_costs(const flopspack_cost_model* encoder,
                                                 const int64_t* text_tokens, size_t n,
                                                 const int64_t* images, size_t num_images,
                                                 const int64_t* patches_per_image,
                                                 size_t num_patches, int64_t* out_mm_tokens,
                                                 size_t num_out_mm_tokens, double* out_extra_costs,
                                                 size_t num_out_extra_costs) {
  if (num_images != n || num_patches != n || num_out_mm_tokens != n || num_out_extra_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "images has " + std::to_string(num_images) +
                                   " entries and patches_per_image " +
                                   std::to_string(num_patches) + " for " + std::to_string(n) +
                                   " text_tokens");
  }
  return flopspack_multimodal_costs(encoder, text_tokens, images, patches_per_image, n,
                                    out_mm_tokens, out_extra_costs);
}

/* flopspack_step_planner_push_with_extra_costs with the extra costs'
 * length explicit: 0 = none (NULL), else n. */
flopspack_status flopspack_swig_step_planner_push_with_extra_costs(
    flopspack_step_planner* planner, const int64_t* lengths, size_t n, const double* extra_costs,
    size_t num_extra_costs, int64_t* first_id) {
  if (num_extra_costs != 0 && num_extra_costs != n) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "extra_costs has " + std::to_string(num_extra_costs) +
                                   " entries for " + std::to_string(n) + " lengths");
  }
  return flopspack_step_planner_push_with_extra_costs(
      planner, lengths, num_extra_costs == 0 ? NULL : extra_costs, n, first_id);
}

/* flopspack_step_planner_save / _restore with byte arrays. */
flopspack_status flopspack_swig_step_planner_save(const flopspack_step_planner* planner,
                                                  unsigned char* buffer, size_t capacity,
                                                  size_t* written) {
  return flopspack_step_planner_save(planner, buffer, capacity, written);
}
flopspack_status flopspack_swig_step_planner_restore(const unsigned char* bytes, size_t size,
                                                     const flopspack_cost_model* model,
                                                     flopspack_step_planner** out) {
  return flopspack_step_planner_restore(bytes, size, model, out);
}

/* flopspack_buckets_optimize into a caller array of num_buckets entries. */
flopspack_status flopspack_swig_buckets_optimize(const int64_t* lengths, size_t n,
                                                 int64_t* upper_bounds, size_t num_buckets) {
  return flopspack_buckets_optimize(lengths, n, num_buckets, upper_bounds);
}

/* flopspack_bucket_sampler_create with the explicit bounds as an array
 * (empty = optimal bounds); the options' own pointer fields are ignored. */
flopspack_status flopspack_swig_bucket_sampler_create(
    const flopspack_bucket_sampler_options* options, const flopspack_cost_model* model,
    const int64_t* lengths, size_t n, const int64_t* upper_bounds, size_t num_upper_bounds,
    flopspack_bucket_sampler** out) {
  if (options == NULL) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  }
  flopspack_bucket_sampler_options o = *options;
  o.upper_bounds = num_upper_bounds > 0 ? upper_bounds : NULL;
  o.num_upper_bounds = num_upper_bounds;
  return flopspack_bucket_sampler_create(&o, model, lengths, n, out);
}

/* flopspack_bucket_sampler_step_diversity split in two: the step count of a
 * plan, then both distance arrays, each of exactly that many entries. */
flopspack_status flopspack_swig_bucket_sampler_step_count(const flopspack_bucket_sampler* sampler,
                                                          const flopspack_plan* plan,
                                                          size_t* size) {
  return flopspack_bucket_sampler_step_diversity(sampler, plan, NULL, NULL, 0, size);
}
flopspack_status flopspack_swig_bucket_sampler_step_diversity(
    const flopspack_bucket_sampler* sampler, const flopspack_plan* plan, double* token_distances,
    size_t num_token_distances, double* sample_distances, size_t num_sample_distances) {
  if (num_token_distances != num_sample_distances) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "token_distances has " + std::to_string(num_token_distances) +
                                   " entries but sample_distances has " +
                                   std::to_string(num_sample_distances));
  }
  size_t steps = 0;
  flopspack_status s = flopspack_bucket_sampler_step_diversity(
      sampler, plan, token_distances, sample_distances, num_token_distances, &steps);
  if (s == FLOPSPACK_OK && steps != num_token_distances) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "the plan has " + std::to_string(steps) + " steps, not " +
                                   std::to_string(num_token_distances));
  }
  return s;
}

flopspack_status flopspack_swig_plan_dropped(const flopspack_plan* plan, const int64_t** items,
                                             size_t* n) {
  return flopspack_plan_dropped(plan, items, n);
}

/* A whole plan in one call, for bindings that want flat arrays rather than a
 * call per group (a Python loop over a million groups costs seconds; this
 * costs a copy). First the sizes: groups, entries (item slots over all
 * groups, a split document counting once per piece) and whether the groups
 * carry a rank and slot. */
flopspack_status flopspack_swig_plan_csr_size(const flopspack_plan* plan, size_t* out_groups,
                                              size_t* out_entries, int* out_has_slots) {
  if (plan == NULL) return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "plan must not be NULL");
  const size_t groups = flopspack_plan_group_count(plan);
  size_t entries = 0;
  for (size_t g = 0; g < groups; ++g) {
    size_t n = 0;
    if (flopspack_status s = flopspack_plan_group(plan, g, NULL, NULL, &n)) return s;
    entries += n;
  }
  int has_slots = 0;
  if (groups > 0) {
    size_t rank = 0, slot = 0;
    has_slots = flopspack_plan_group_slot(plan, 0, &rank, &slot) == FLOPSPACK_OK;
  }
  *out_groups = groups;
  *out_entries = entries;
  *out_has_slots = has_slots;
  return FLOPSPACK_OK;
}
/* Then every array, each exactly as long as the sizes say: offsets (groups
 * + 1; group g holds entries offsets[g] .. offsets[g+1]), items and tokens
 * (entries), ranks and slots (groups, or both empty for a plan without
 * ranks), real and computed tokens and cost of each group (groups). */
flopspack_status flopspack_swig_plan_csr(
    const flopspack_plan* plan, int64_t* out_offsets, size_t num_out_offsets, int64_t* out_items,
    size_t num_out_items, int64_t* out_tokens, size_t num_out_tokens, int64_t* out_ranks,
    size_t num_out_ranks, int64_t* out_slots, size_t num_out_slots, int64_t* out_real,
    size_t num_out_real, int64_t* out_computed, size_t num_out_computed, double* out_group_costs,
    size_t num_out_group_costs) {
  size_t groups = 0, entries = 0;
  int has_slots = 0;
  if (flopspack_status s = flopspack_swig_plan_csr_size(plan, &groups, &entries, &has_slots)) {
    return s;
  }
  const size_t slot_len = has_slots ? groups : 0;
  if (num_out_offsets != groups + 1 || num_out_items != entries || num_out_tokens != entries ||
      num_out_ranks != slot_len || num_out_slots != slot_len || num_out_real != groups ||
      num_out_computed != groups || num_out_group_costs != groups) {
    return flopspack_swig_fail(
        FLOPSPACK_INVALID_ARGUMENT,
        "the plan has " + std::to_string(groups) + " groups and " + std::to_string(entries) +
            " entries: offsets needs " + std::to_string(groups + 1) +
            " values, items and tokens " + std::to_string(entries) + ", ranks and slots " +
            std::to_string(slot_len) + ", the per-group arrays " + std::to_string(groups));
  }
  size_t at = 0;
  out_offsets[0] = 0;
  for (size_t g = 0; g < groups; ++g) {
    const int64_t* items = NULL;
    const int64_t* tokens = NULL;
    size_t n = 0;
    if (flopspack_status s = flopspack_plan_group(plan, g, &items, &tokens, &n)) return s;
    if (n > 0) {
      memcpy(out_items + at, items, n * sizeof(int64_t));
      memcpy(out_tokens + at, tokens, n * sizeof(int64_t));
    }
    at += n;
    out_offsets[g + 1] = (int64_t)at;
    if (flopspack_status s = flopspack_plan_group_info(plan, g, &out_real[g], &out_computed[g],
                                                       &out_group_costs[g])) {
      return s;
    }
    if (has_slots) {
      size_t rank = 0, slot = 0;
      if (flopspack_status s = flopspack_plan_group_slot(plan, g, &rank, &slot)) return s;
      out_ranks[g] = (int64_t)rank;
      out_slots[g] = (int64_t)slot;
    }
  }
  return FLOPSPACK_OK;
}
/* The piece offsets of every entry (flopspack_plan_group_offsets), in the
 * entry order of flopspack_swig_plan_csr: exactly `entries` values. */
flopspack_status flopspack_swig_plan_piece_offsets(const flopspack_plan* plan,
                                                   int64_t* out_pieces, size_t num_out_pieces) {
  size_t groups = 0, entries = 0;
  int has_slots = 0;
  if (flopspack_status s = flopspack_swig_plan_csr_size(plan, &groups, &entries, &has_slots)) {
    return s;
  }
  if (num_out_pieces != entries) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT,
                               "the plan has " + std::to_string(entries) +
                                   " entries: the piece offsets need as many values, not " +
                                   std::to_string(num_out_pieces));
  }
  size_t at = 0;
  for (size_t g = 0; g < groups; ++g) {
    const int64_t* offsets = NULL;
    size_t n = 0;
    if (flopspack_status s = flopspack_plan_group_offsets(plan, g, &offsets, &n)) return s;
    if (n > 0) memcpy(out_pieces + at, offsets, n * sizeof(int64_t));
    at += n;
  }
  return FLOPSPACK_OK;
}
%}
