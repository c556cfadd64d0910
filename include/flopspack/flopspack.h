/*
 * flopspack — pack variable-length training data and spread it across GPUs
 * so that no GPU waits for another and little compute goes to padding.
 *
 * This is the one public header and the library's stable C ABI (see
 * docs/abi.md). Conventions, in the manner of zstd and libgit2:
 *   - every exported symbol starts with flopspack_, every macro and enum
 *     value with FLOPSPACK_;
 *   - functions return flopspack_status (0 = FLOPSPACK_OK); on failure
 *     out-parameters are left untouched and flopspack_last_error_message()
 *     gives the detail for the calling thread;
 *   - objects are opaque handles made through an out-pointer and released
 *     by flopspack_<thing>_destroy(), which accepts NULL;
 *   - option structs start with uint32_t struct_size and are filled with
 *     defaults by flopspack_<thing>_options_init(); a struct from a newer
 *     caller with a non-zero unknown tail is rejected, one from an older
 *     caller gets defaults for the fields it does not know;
 *   - arrays come in as (const T* data, size_t n); lengths are int64_t,
 *     costs double; n = 0 is allowed wherever an empty input makes sense,
 *     and then data may be NULL.
 * No function keeps a pointer to caller memory past the call, except the
 * user_data of a custom cost model.
 */
#ifndef FLOPSPACK_FLOPSPACK_H_
#define FLOPSPACK_FLOPSPACK_H_

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Version. The single source of the version number: both build systems read
 * these three lines. SONAME major = FLOPSPACK_VERSION_MAJOR = ABI major.
 * ---------------------------------------------------------------------- */
#define FLOPSPACK_VERSION_MAJOR 1
#define FLOPSPACK_VERSION_MINOR 0
#define FLOPSPACK_VERSION_PATCH 0

#define FLOPSPACK_VERSION_NUMBER \
  (FLOPSPACK_VERSION_MAJOR * 10000 + FLOPSPACK_VERSION_MINOR * 100 + FLOPSPACK_VERSION_PATCH)
#define FLOPSPACK_STRINGIFY_INNER_(x) #x
#define FLOPSPACK_STRINGIFY_(x) FLOPSPACK_STRINGIFY_INNER_(x)
#define FLOPSPACK_VERSION_STRING                                              \
  FLOPSPACK_STRINGIFY_(FLOPSPACK_VERSION_MAJOR)                               \
  "." FLOPSPACK_STRINGIFY_(FLOPSPACK_VERSION_MINOR) "." FLOPSPACK_STRINGIFY_( \
      FLOPSPACK_VERSION_PATCH)

/* Export macro. SWIG cannot parse attributes, so its branch comes first. */
#if defined(SWIG)
#define FLOPSPACK_API
#elif defined(_WIN32) && defined(FLOPSPACK_BUILDING_DLL)
#define FLOPSPACK_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define FLOPSPACK_API __attribute__((visibility("default")))
#else
#define FLOPSPACK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Run-time version of the library actually loaded; compare it with
 * FLOPSPACK_VERSION_NUMBER to detect a header/library mismatch. */
FLOPSPACK_API uint32_t flopspack_version_number(void);
FLOPSPACK_API const char* flopspack_version_string(void);

/* ------------------------------------------------------------------------
 * Status and errors
 * ---------------------------------------------------------------------- */

/* Append-only: values never change meaning, new ones go at the end. */
typedef enum flopspack_status {
  FLOPSPACK_OK = 0,
  FLOPSPACK_INVALID_ARGUMENT = 1, /* NULL pointer, bad value, unknown struct tail */
  FLOPSPACK_OUT_OF_RANGE = 2,     /* index or size beyond what exists or fits */
  FLOPSPACK_INFEASIBLE = 3,       /* caps or budgets admit no valid assignment */
  FLOPSPACK_OUT_OF_MEMORY = 4,    /* an allocation failed */
  FLOPSPACK_INTERNAL = 5,         /* a bug in flopspack: please report it */
  FLOPSPACK_CALLBACK_FAILED = 6,  /* a user callback returned non-zero */
  FLOPSPACK_CANCELLED = 7,        /* a progress callback asked to stop */
  FLOPSPACK_BUFFER_TOO_SMALL = 8  /* a caller-owned buffer is too small */
} flopspack_status;

/* A static, human-readable name for a status ("FLOPSPACK_OK", ...). */
FLOPSPACK_API const char* flopspack_status_string(flopspack_status status);

/* Detail of the last failed call on the calling thread, naming the bad
 * argument and its value. Never NULL ("" before any failure). Successful
 * calls do not clear it. Valid until the next failing call on this thread. */
FLOPSPACK_API const char* flopspack_last_error_message(void);

/* ------------------------------------------------------------------------
 * Seeds
 * ---------------------------------------------------------------------- */

/* A seed for stream `stream` (a shard, a step, an epoch...) derived from a
 * parent seed: two SplitMix64 steps (Steele, Lea & Flood 2014) over
 * seed ^ (0xD1B54A32D192ED03 * (stream + 1)). Every language gets the same
 * value, so shards and steps seeded this way agree everywhere without
 * communicating. Never fails. */
FLOPSPACK_API uint64_t flopspack_derive_seed(uint64_t seed, uint64_t stream);

/* ------------------------------------------------------------------------
 * Cost models: what a packed sequence costs.
 *
 * A cost model is immutable after creation and may be shared by any number
 * of threads (a custom model is as thread-safe as its callback).
 *
 * Additive models (tokens, polynomial, fitted, transformer with
 * FLOPSPACK_ATTENTION_DOCUMENT) satisfy
 *   sequence_cost(docs) = sequence_overhead + sum of document_cost(doc),
 * which is what the packers and balancers rely on.
 * ---------------------------------------------------------------------- */
typedef struct flopspack_cost_model flopspack_cost_model;

/* cost = number of tokens. */
FLOPSPACK_API flopspack_status flopspack_cost_model_tokens(flopspack_cost_model** out);

/* Per document of length l: per_document + linear*l + quadratic*l^2, plus
 * per_sequence once for each non-empty sequence. All four must be finite and
 * non-negative. */
FLOPSPACK_API flopspack_status flopspack_cost_model_polynomial(double per_sequence,
                                                               double per_document, double linear,
                                                               double quadratic,
                                                               flopspack_cost_model** out);

/* How far attention reaches inside a packed sequence. */
typedef enum flopspack_attention_span {
  /* Each document attends only within itself (varlen / block-diagonal). */
  FLOPSPACK_ATTENTION_DOCUMENT = 0,
  /* The whole packed sequence attends as one (no document masking). */
  FLOPSPACK_ATTENTION_SEQUENCE = 1
} flopspack_attention_span;

/* A dense decoder-only transformer. Training FLOPs follow docs/cost-models.md:
 * matmul FLOPs, 2 per multiply-add, forward x3 (x4 with recompute). */
typedef struct flopspack_transformer_config {
  uint32_t struct_size; /* sizeof(flopspack_transformer_config) */
  int64_t num_layers, hidden_size, num_attention_heads, num_key_value_heads;
  int64_t head_dim;          /* 0 = hidden_size / num_attention_heads */
  int64_t intermediate_size; /* FFN width */
  int64_t vocab_size;        /* 0 = no LM head term */
  int32_t gated_mlp;         /* 1 = three FFN matrices (SwiGLU-style) */
  int32_t causal;            /* 1 = count only the l(l+1)/2 kept scores */
  int32_t recompute;         /* 1 = full activation recompute: 4x forward */
  int32_t attention_span;    /* FLOPSPACK_ATTENTION_DOCUMENT (default) or _SEQUENCE */
} flopspack_transformer_config;

/* Defaults: struct_size set, every dimension 0 (must be filled in),
 * gated_mlp 0, causal 1, recompute 0, attention_span DOCUMENT. */
FLOPSPACK_API void flopspack_transformer_config_init(flopspack_transformer_config* config);

FLOPSPACK_API flopspack_status flopspack_cost_model_transformer(
    const flopspack_transformer_config* config, flopspack_cost_model** out);

/* Terms of the polynomial form to fit (bit flags). */
#define FLOPSPACK_FIT_PER_SEQUENCE 1u
#define FLOPSPACK_FIT_PER_DOCUMENT 2u
#define FLOPSPACK_FIT_LINEAR 4u
#define FLOPSPACK_FIT_QUADRATIC 8u
#define FLOPSPACK_FIT_ALL 15u

typedef struct flopspack_fit_options {
  uint32_t struct_size;
  uint32_t terms; /* FLOPSPACK_FIT_* flags, default FLOPSPACK_FIT_ALL */
} flopspack_fit_options;

FLOPSPACK_API void flopspack_fit_options_init(flopspack_fit_options* options);

/* What a fit found. Output struct: set struct_size, the library fills as
 * many fields as it and the caller both know. */
typedef struct flopspack_fit_report {
  uint32_t struct_size;
  double per_sequence, per_document, linear, quadratic; /* fitted, all >= 0 */
  double r_squared;    /* 1 - SS_res / SS_tot (1 when SS_tot = 0 and exact) */
  double rms_residual; /* sqrt(SS_res / samples), in the unit of seconds[] */
  uint64_t num_samples;
} flopspack_fit_report;

/* Non-negative least squares of the polynomial form on measured samples.
 * Sample i is the packed sequence whose document lengths are
 * document_lengths[sample_offsets[i] .. sample_offsets[i+1]) and whose
 * measured time is seconds[i]. sample_offsets has num_samples + 1 entries,
 * starts at 0 and never decreases. Needs at least as many samples as fitted
 * terms. options may be NULL (all terms); report may be NULL. */
FLOPSPACK_API flopspack_status flopspack_cost_model_fit(const flopspack_fit_options* options,
                                                        const int64_t* document_lengths,
                                                        const size_t* sample_offsets,
                                                        const double* seconds, size_t num_samples,
                                                        flopspack_fit_report* report,
                                                        flopspack_cost_model** out);

/* A callback computing the cost of one packed sequence. Return 0 and store a
 * finite, non-negative cost in *out_cost; any other return value fails the
 * calling flopspack function with FLOPSPACK_CALLBACK_FAILED. */
typedef int (*flopspack_sequence_cost_fn)(void* user_data, const int64_t* document_lengths,
                                          size_t n, double* out_cost);

/* A model backed by a callback. Not additive: document_cost(l) is the
 * callback on the one-document sequence {l}, sequence_overhead is 0. */
FLOPSPACK_API flopspack_status flopspack_cost_model_custom(flopspack_sequence_cost_fn fn,
                                                           void* user_data,
                                                           flopspack_cost_model** out);

/* Cost of one packed sequence holding these documents (0 when n = 0). */
FLOPSPACK_API flopspack_status flopspack_cost_model_sequence_cost(const flopspack_cost_model* model,
                                                                  const int64_t* document_lengths,
                                                                  size_t n, double* out_cost);

/* Cost of each document alone, without the per-sequence overhead, into
 * out_costs[0..n). */
FLOPSPACK_API flopspack_status
flopspack_cost_model_document_costs(const flopspack_cost_model* model,
                                    const int64_t* document_lengths, size_t n, double* out_costs);

/* Cost of a padded batch: n samples, each padded to the longest of them, each
 * its own sequence, i.e. n * sequence_cost({max length}). */
FLOPSPACK_API flopspack_status flopspack_cost_model_padded_batch_cost(
    const flopspack_cost_model* model, const int64_t* lengths, size_t n, double* out_cost);

/* The constant a non-empty sequence costs on top of its documents. */
FLOPSPACK_API flopspack_status
flopspack_cost_model_sequence_overhead(const flopspack_cost_model* model, double* out_overhead);

/* 1 if sequence_cost is overhead + sum of document costs, else 0. */
FLOPSPACK_API flopspack_status flopspack_cost_model_is_additive(const flopspack_cost_model* model,
                                                                int* out_additive);

FLOPSPACK_API void flopspack_cost_model_destroy(flopspack_cost_model* model);

/* ------------------------------------------------------------------------
 * Plans: the result of packing, balancing, step planning and bucketing.
 *
 * A plan is a list of groups (packed sequences, balanced groups, the
 * microbatches of a step, or padded batches); each group lists the input
 * items it holds and the tokens each contributes to it (a split document
 * appears in several groups with its pieces). Plans are immutable; a plan
 * may be read from several threads at once.
 * ---------------------------------------------------------------------- */
/* What happens to a document longer than a sequence's or microbatch's token
 * capacity (and, for the step planner, to documents that do not fit in the
 * step). One enum for every packer and planner; each says which values it
 * accepts (an unsupported value is FLOPSPACK_INVALID_ARGUMENT). */
typedef enum flopspack_overflow {
  /* Fail: FLOPSPACK_INVALID_ARGUMENT naming the document (the step planner
   * also fails with FLOPSPACK_INFEASIBLE for a batch that does not fit). */
  FLOPSPACK_OVERFLOW_ERROR = 0,
  /* Keep the first `capacity` tokens; the rest is counted as truncated. */
  FLOPSPACK_OVERFLOW_TRUNCATE = 1,
  /* Cut it into pieces of at most `capacity` tokens, each an item of the plan
   * with the document's index (each piece attends within itself). */
  FLOPSPACK_OVERFLOW_SPLIT = 2,
  /* Leave it out of the plan and list it in flopspack_plan_deferred()
   * (step planner only). */
  FLOPSPACK_OVERFLOW_DEFER = 3
} flopspack_overflow;

typedef struct flopspack_plan flopspack_plan;

/* Which algorithm made a step plan (flopspack_plan_metrics.planned_by). The
 * default step algorithm (FLOPSPACK_STEP_DOCUMENTS) makes a document-level
 * plan; where documents had to be cut (overflow SPLIT with a document over
 * the cap or costing more than a rank's share) it also makes the baselines
 * below and keeps whichever has the higher rank balance (under sync
 * MICROBATCH: the higher microbatch-synchronous efficiency, each plan's
 * microbatches banded for the slots; on steps of at most 2^14 microbatches
 * it also weighs the token-balanced plan where no document was cut), so it
 * is never worse than them (docs/planner.md, Fallbacks). */
typedef enum flopspack_planned_by {
  /* Not a step plan, or a step algorithm without fallbacks (random,
   * tokens, sequences). */
  FLOPSPACK_PLANNED_BY_NONE = 0,
  /* The document-level planner's own plan (LPT + refinement). */
  FLOPSPACK_PLANNED_BY_DOCUMENTS = 1,
  /* Fell back to the cut to the share: documents in input order fill the
   * ranks, cut where a rank reaches its cost share (McNaughton's rule). */
  FLOPSPACK_PLANNED_BY_CUT_TO_SHARE = 2,
  /* Fell back to the token-balanced planner on cap-sized pieces. */
  FLOPSPACK_PLANNED_BY_TOKEN_BALANCED = 3
} flopspack_planned_by;

/* Quality figures of a plan. Output struct: set struct_size before the call;
 * the library fills as many fields as it and the caller both know. A field
 * that does not apply to the plan's kind is 0. Like POSIX's struct stat and
 * stat(), the type shares its name with the function that fills it, so it is
 * spelled `struct flopspack_plan_metrics` (no typedef). */
struct flopspack_plan_metrics {
  uint32_t struct_size;
  uint64_t num_groups;
  uint64_t num_items; /* items given as input */
  /* Group costs. balance_efficiency = mean / max (1 = perfectly even). */
  double max_group_cost, mean_group_cost, min_group_cost, total_cost;
  double balance_efficiency;
  /* max(total / groups, largest indivisible item) and max / bound - 1. */
  double lower_bound, gap_to_lower_bound;
  int64_t real_tokens;       /* tokens of items placed in groups */
  int64_t computed_tokens;   /* tokens computed, padding included */
  int64_t capacity;          /* per group token capacity, 0 = none */
  double fill;               /* real_tokens / (groups * capacity) */
  double padding_efficiency; /* real_tokens / computed_tokens */
  /* Step plans (0 otherwise): ranks x microbatches. */
  uint64_t num_ranks, microbatches_per_rank;
  double max_rank_cost, mean_rank_cost, rank_balance_efficiency;
  double rank_lower_bound, rank_gap_to_lower_bound;
  double worst_slot_balance; /* min over slots j of mean / max of slot-j costs */
  /* What did not go into a group as a whole. */
  uint64_t split_items, truncated_items, deferred_items, dropped_items;
  int64_t truncated_tokens, deferred_tokens, dropped_tokens;
  /* Mixing: KS distance of each step's token-weighted (and sample-weighted)
   * length distribution to the whole input's, averaged over steps. */
  uint64_t num_steps;
  double diversity_distance, diversity_distance_samples;
  /* A flopspack_planned_by: which algorithm made a step plan (the default
   * step algorithm and the stateful step planner; NONE for other plans). */
  int32_t planned_by;
  /* Step plans, whatever their flopspack_sync (docs/planner.md,
   * Synchronization). Microbatch-synchronous (FSDP / ZeRO-3) step: sum over
   * slots of each slot's mean rank cost / sum over slots of its max. */
  double microbatch_sync_efficiency;
  double mean_slot_balance;    /* mean over slots j of mean / max of slot-j costs */
  double microbatch_sync_cost; /* sum over slots of the slowest rank's cost */
  /* A lower bound on microbatch_sync_cost for any plan of the same
   * documents, and microbatch_sync_cost / bound - 1. */
  double microbatch_sync_lower_bound, microbatch_sync_gap_to_lower_bound;
  /* With pipeline_stages >= 2 (0 otherwise): each rank is a replica of P
   * stages running its microbatches in slot order under 1F1B, a microbatch
   * of cost c taking c / P per stage (a third forward, two thirds
   * backward). Makespan of the slowest replica; efficiency = mean rank
   * cost / P / makespan (1 - bubbles - stalls); a lower bound on the
   * makespan for any plan of the same documents, and makespan / bound - 1. */
  double pipeline_makespan, pipeline_efficiency;
  double pipeline_lower_bound, pipeline_gap_to_lower_bound;
};

/* Number of groups. 0 for NULL. */
FLOPSPACK_API size_t flopspack_plan_group_count(const flopspack_plan* plan);

/* Borrowed views of one group, valid until the plan is destroyed: the item
 * indices (into the input arrays) and the tokens each contributes. Either
 * of items / tokens may be NULL if not wanted. */
FLOPSPACK_API flopspack_status flopspack_plan_group(const flopspack_plan* plan, size_t group,
                                                    const int64_t** items, const int64_t** tokens,
                                                    size_t* n);

/* Summary of one group: real tokens, tokens computed (padding included) and
 * cost. Any out-pointer may be NULL. */
FLOPSPACK_API flopspack_status flopspack_plan_group_info(const flopspack_plan* plan, size_t group,
                                                         int64_t* real_tokens,
                                                         int64_t* computed_tokens, double* cost);

/* Rank and slot (microbatch index, or batch index within the rank) of a
 * group of a step plan or bucket sampler plan; FLOPSPACK_INVALID_ARGUMENT
 * for plans without ranks. */
FLOPSPACK_API flopspack_status flopspack_plan_group_slot(const flopspack_plan* plan, size_t group,
                                                         size_t* rank, size_t* microbatch);

/* Items not placed as a whole: deferred (kept for a later step) and dropped
 * (drop-last, rejected). Borrowed views, valid until the plan is destroyed. */
FLOPSPACK_API flopspack_status flopspack_plan_deferred(const flopspack_plan* plan,
                                                       const int64_t** items, size_t* n);
FLOPSPACK_API flopspack_status flopspack_plan_dropped(const flopspack_plan* plan,
                                                      const int64_t** items, size_t* n);

FLOPSPACK_API flopspack_status flopspack_plan_metrics(const flopspack_plan* plan,
                                                      struct flopspack_plan_metrics* out);

FLOPSPACK_API void flopspack_plan_destroy(flopspack_plan* plan);

/* Where each entry of a group starts in its item: a borrowed view of n
 * offsets, entry k being the piece of item items[k] (flopspack_plan_group)
 * that starts at token offsets[k] of the item and is tokens[k] long. A whole
 * item, or one truncated to its first tokens, is one piece at offset 0; the
 * pieces of a split item tile [0, its length) exactly, each token in one
 * piece. In every plan but the stream packer's, all pieces of an item are in
 * the plan, numbered in plan order (group 0 first, entry order within a
 * group), each starting where the previous one ended; a stream packer plan
 * may hold only some pieces of a document (the others come in earlier or
 * later plans), each with its offset in the document. offsets may be NULL
 * if not wanted. Valid until the plan is destroyed. */
FLOPSPACK_API flopspack_status flopspack_plan_group_offsets(const flopspack_plan* plan,
                                                            size_t group, const int64_t** offsets,
                                                            size_t* n);

/* ------------------------------------------------------------------------
 * Packing and balancing (docs/algorithms.md).
 *
 * flopspack_pack puts documents into sequences of a fixed token capacity
 * (bin packing); flopspack_balance spreads items with costs (and optionally
 * token counts) over k groups so that the costliest group is as cheap as
 * possible. Both are deterministic: the same input, options and seed give
 * the same plan on every platform. Both return a flopspack_plan read with
 * the accessors above.
 * ---------------------------------------------------------------------- */

/* How flopspack_pack places documents. */
typedef enum flopspack_pack_algorithm {
  /* Longest first, into the fullest sequence with room (default). */
  FLOPSPACK_PACK_BEST_FIT_DECREASING = 0,
  /* Longest first, into the first sequence with room. */
  FLOPSPACK_PACK_FIRST_FIT_DECREASING = 1,
  /* In input order, opening a new sequence when one is full (concatenate). */
  FLOPSPACK_PACK_NEXT_FIT = 2,
  /* First fit in a seeded random order, for mixing lengths in a sequence. */
  FLOPSPACK_PACK_SHUFFLED_FIRST_FIT = 3
} flopspack_pack_algorithm;

typedef struct flopspack_pack_options {
  uint32_t struct_size;
  int32_t algorithm; /* flopspack_pack_algorithm, default BEST_FIT_DECREASING */
  int64_t capacity;  /* tokens per sequence, > 0; no default (0 is rejected) */
  int32_t overflow;  /* flopspack_overflow: ERROR (default), TRUNCATE or SPLIT */
  uint64_t seed;     /* for SHUFFLED_FIRST_FIT, default 0 */
  /* Sequence cost = this model's sequence cost of the documents in it;
   * NULL (default) = tokens. Borrowed for the call only. */
  const flopspack_cost_model* cost_model;
} flopspack_pack_options;

FLOPSPACK_API void flopspack_pack_options_init(flopspack_pack_options* options);

/* Packs n documents of the given lengths (each > 0) into sequences. Group g
 * of the plan is a sequence: its items are document indices in placement
 * order, with the tokens each contributes (a split document appears in
 * several sequences). Metrics: fill, split/truncated items and tokens, and
 * the cost statistics. options must not be NULL (capacity has no default). */
FLOPSPACK_API flopspack_status flopspack_pack(const flopspack_pack_options* options,
                                              const int64_t* lengths, size_t n,
                                              flopspack_plan** out);

/* How flopspack_balance assigns items to groups. */
typedef enum flopspack_balance_algorithm {
  /* By shape (default): Karmarkar-Karp when groups get >= 32 items each
   * (>= 64 with equal counts), else LPT. */
  FLOPSPACK_BALANCE_AUTO = 0,
  /* Each item in input order to the cheapest group (baseline). */
  FLOPSPACK_BALANCE_GREEDY = 1,
  /* Longest processing time first: costliest item to the cheapest group. */
  FLOPSPACK_BALANCE_LPT = 2,
  /* Largest differencing, k-way (balanced variant with equal counts). */
  FLOPSPACK_BALANCE_KARMARKAR_KARP = 3
} flopspack_balance_algorithm;

typedef struct flopspack_balance_options {
  uint32_t struct_size;
  int32_t algorithm;            /* flopspack_balance_algorithm, default AUTO */
  int64_t num_groups;           /* k >= 1; no default (0 is rejected) */
  int32_t equal_count;          /* 1 = group sizes differ by at most one; default 0 */
  int32_t refine;               /* 1 (default) = local search after the algorithm */
  int64_t max_tokens_per_group; /* hard cap, needs tokens; 0 (default) = none */
  int64_t max_refine_steps;     /* 0 (default) = 4 min(n, num_groups) + 64 */
  uint64_t seed;                /* relabels the groups; default 0 */
} flopspack_balance_options;

FLOPSPACK_API void flopspack_balance_options_init(flopspack_balance_options* options);

/* Splits n items with costs (finite, >= 0) and optional token counts
 * (>= 0; tokens may be NULL) into num_groups groups, minimising the
 * costliest. Group g of the plan lists its items by index. With
 * max_tokens_per_group no group exceeds the cap; FLOPSPACK_INFEASIBLE when
 * no assignment within it is found (the message says whether that is
 * proved). options must not be NULL (num_groups has no default). */
FLOPSPACK_API flopspack_status flopspack_balance(const flopspack_balance_options* options,
                                                 const double* costs, const int64_t* tokens,
                                                 size_t n, flopspack_plan** out);

/* ------------------------------------------------------------------------
 * Step planning: the documents of one global batch -> num_ranks ranks x
 * microbatches_per_rank microbatches, each microbatch holding at most
 * max_tokens_per_microbatch tokens (a hard memory limit), balanced so the
 * slowest rank is as fast as possible (see docs/planner.md).
 *
 * The plan has num_ranks x M groups, rank-major: group g is slot g % M of
 * rank g / M (flopspack_plan_group_slot says so too). Its metrics fill the
 * step fields: rank balance efficiency, the rank lower bound and the gap to
 * it, worst per-slot balance, fill, split and deferred documents.
 * ---------------------------------------------------------------------- */

/* How documents are assigned. */
typedef enum flopspack_step_algorithm {
  /* Document-level cost balance under the cap: LPT then moves and swaps of
   * documents between the heaviest and the lightest ranks. The default. */
  FLOPSPACK_STEP_DOCUMENTS = 0,
  /* Concatenate in input order, cut every cap tokens, deal the sequences at
   * random (seeded): what most pipelines do today. */
  FLOPSPACK_STEP_RANDOM = 1,
  /* The document-level planner balancing token counts instead of cost. */
  FLOPSPACK_STEP_TOKENS = 2,
  /* Pre-pack sequences (first-fit decreasing), then LPT of the sequences by
   * cost onto the ranks. */
  FLOPSPACK_STEP_SEQUENCES = 3
} flopspack_step_algorithm;

/* Which microbatch of a rank runs in which slot. */
typedef enum flopspack_slot_order {
  /* Heaviest first: slot j holds every rank's j-th heaviest microbatch, so
   * per-slot cost is even across ranks. The default. */
  FLOPSPACK_SLOT_ORDER_DESCENDING = 0,
  /* verl-style: the lightest microbatches at both ends, heaviest in the
   * middle (short pipeline warm-up and cool-down). */
  FLOPSPACK_SLOT_ORDER_LIGHT_ENDS = 1,
  /* As the algorithm produced them. */
  FLOPSPACK_SLOT_ORDER_AS_PLANNED = 2
} flopspack_slot_order;

/* How the trainer synchronizes, i.e. what the step planner balances
 * (docs/planner.md, Synchronization). */
typedef enum flopspack_sync {
  /* Once per optimizer step (DDP with no_sync during accumulation,
   * ZeRO-1/2): the slowest rank's total counts. The default. */
  FLOPSPACK_SYNC_STEP = 0,
  /* Every microbatch (FSDP / ZeRO-3 gather and reduce every layer of every
   * microbatch): the step lasts the sum over slots of the slowest rank in
   * that slot, so every slot is balanced across ranks. */
  FLOPSPACK_SYNC_MICROBATCH = 1
} flopspack_sync;

/* The schedule of each rank's pipeline replica when pipeline_stages >= 2. */
typedef enum flopspack_pipeline_schedule {
  /* One forward, one backward (PipeDream-Flush, Megatron-LM's default). */
  FLOPSPACK_PIPELINE_1F1B = 0
} flopspack_pipeline_schedule;

typedef struct flopspack_step_options {
  uint32_t struct_size;              /* sizeof(flopspack_step_options) */
  uint32_t num_ranks;                /* data-parallel ranks, 1 .. 2^24 (no default) */
  uint32_t microbatches_per_rank;    /* 0 = the fewest that hold the batch */
  int32_t algorithm;                 /* flopspack_step_algorithm */
  int64_t max_tokens_per_microbatch; /* the cap, >= 1 (no default) */
  uint64_t seed;                     /* for FLOPSPACK_STEP_RANDOM */
  int32_t ordering;                  /* flopspack_slot_order */
  int32_t overflow;                  /* flopspack_overflow: ERROR, SPLIT or DEFER */
  int32_t sync;                      /* flopspack_sync: what the planner balances */
  uint32_t pipeline_stages;          /* per replica, 0 or 1 = none, at most 1024 */
  int32_t pipeline_schedule;         /* flopspack_pipeline_schedule */
  /* Context parallelism (docs/context-parallel.md, "Planning with CP"):
   * every microbatch is shared by a CP group of this many GPUs; 0 or 1 =
   * none, at most 65536. max_tokens_per_microbatch stays the tokens of one
   * GPU: a microbatch holds up to C x that many, a document of up to C x
   * cap tokens stays whole (sharded over the group, keeping full
   * attention), and a microbatch costs its slowest CP rank under
   * context_parallel_layout. Needs an additive cost model. Shard the plan
   * with flopspack_plan_shard_context_parallel (same C and layout) for the
   * chunks and the CP-rank balance. Both fields are read only when
   * struct_size covers context_parallel_layout (context_parallel_size lies
   * in what older versions of this struct left as padding). */
  uint32_t context_parallel_size;
  int32_t context_parallel_layout; /* flopspack_cp_layout; init: DOCUMENT_HEAD_TAIL */
} flopspack_step_options;

/* Defaults: num_ranks 0 and max_tokens_per_microbatch 0 (both must be set),
 * microbatches_per_rank 0, FLOPSPACK_STEP_DOCUMENTS, seed 0,
 * FLOPSPACK_SLOT_ORDER_DESCENDING, FLOPSPACK_OVERFLOW_SPLIT,
 * FLOPSPACK_SYNC_STEP, pipeline_stages 0, FLOPSPACK_PIPELINE_1F1B. */
FLOPSPACK_API void flopspack_step_options_init(flopspack_step_options* options);

/* Plans one step: document i has lengths[i] tokens and is item i of the
 * plan. Same inputs and seed give the same plan, bit for bit, in every
 * process. Errors: FLOPSPACK_INVALID_ARGUMENT (NULL, num_ranks 0, cap <= 0,
 * a length <= 0, a document over the cap under REJECT), FLOPSPACK_INFEASIBLE
 * (the batch does not fit under SPLIT or REJECT), FLOPSPACK_OUT_OF_RANGE
 * (more than 2^24 microbatches, num_ranks x M x cap over int64, costs whose
 * sum overflows a double), FLOPSPACK_CALLBACK_FAILED (a custom cost model
 * failed). Each thread keeps its calls' working storage for its next call
 * (a step context of its own, as flopspack_step_context, freed when the
 * thread exits; plans may still be destroyed on any thread, after it):
 * steps of up to 2^21 documents use it, about 170 bytes per document of the
 * largest step, at most 512 MB per thread (docs/planner.md). */
FLOPSPACK_API flopspack_status flopspack_plan_step(const flopspack_step_options* options,
                                                   const flopspack_cost_model* model,
                                                   const int64_t* lengths, size_t n,
                                                   flopspack_plan** out);

/* A stateful planner for a training loop: push documents as they stream in,
 * take one plan per step; leftovers carry over; documents of at least
 * outlier_min_tokens tokens may wait (at most max_defer_steps steps) so that
 * one step takes at most max_outliers_per_step of them (WLB-LLM's outlier
 * queue). Items of its plans are push ids: the k-th document pushed since
 * creation is item k. Its state saves to bytes and restores exactly. Used
 * by one thread at a time. */
typedef struct flopspack_step_planner flopspack_step_planner;

typedef struct flopspack_step_planner_options {
  uint32_t struct_size;          /* sizeof(flopspack_step_planner_options) */
  uint32_t max_defer_steps;      /* default 2; 0 = outliers never wait */
  int64_t tokens_per_step;       /* tokens one step takes; 0 = num_ranks x M x cap
                                    (needs microbatches_per_rank > 0) */
  int64_t outlier_min_tokens;    /* 0 = no outlier queue (default) */
  int64_t max_outliers_per_step; /* 0 = num_ranks (default) */
} flopspack_step_planner_options;

FLOPSPACK_API void flopspack_step_planner_options_init(flopspack_step_planner_options* options);

/* planner_options may be NULL (defaults). The planner keeps its own
 * reference to the model: the model handle may be destroyed after this. */
FLOPSPACK_API flopspack_status flopspack_step_planner_create(
    const flopspack_step_options* options, const flopspack_step_planner_options* planner_options,
    const flopspack_cost_model* model, flopspack_step_planner** out);

/* Appends n documents (all or none: a length <= 0, or a document over the
 * cap unless the overflow policy is SPLIT, rejects the call). first_id, if
 * not NULL, receives the id of the first one. */
FLOPSPACK_API flopspack_status flopspack_step_planner_push(flopspack_step_planner* planner,
                                                           const int64_t* lengths, size_t n,
                                                           int64_t* first_id);

/* Plans the next step from the queued documents (an empty queue gives a
 * plan of empty microbatches). Its deferred list holds the documents that
 * were due and wait for a later step. */
FLOPSPACK_API flopspack_status flopspack_step_planner_next(flopspack_step_planner* planner,
                                                           flopspack_plan** out);

/* Documents and tokens queued (outliers waiting included), and steps
 * planned so far. Any out-pointer may be NULL. */
FLOPSPACK_API flopspack_status flopspack_step_planner_pending(const flopspack_step_planner* planner,
                                                              uint64_t* documents, int64_t* tokens,
                                                              uint64_t* steps);

/* Bytes flopspack_step_planner_save() needs now. */
FLOPSPACK_API flopspack_status
flopspack_step_planner_save_size(const flopspack_step_planner* planner, size_t* size);

/* Writes the state into buffer[0..capacity) and its size into *written.
 * FLOPSPACK_BUFFER_TOO_SMALL (nothing written, the message gives the size
 * needed) when capacity is below flopspack_step_planner_save_size(). */
FLOPSPACK_API flopspack_status flopspack_step_planner_save(const flopspack_step_planner* planner,
                                                           void* buffer, size_t capacity,
                                                           size_t* written);

/* A planner from saved bytes and the same cost model; it produces exactly
 * the plans the saved one would have. Truncated, corrupted (checksum) or
 * foreign bytes give FLOPSPACK_INVALID_ARGUMENT. */
FLOPSPACK_API flopspack_status flopspack_step_planner_restore(const void* bytes, size_t size,
                                                              const flopspack_cost_model* model,
                                                              flopspack_step_planner** out);

FLOPSPACK_API void flopspack_step_planner_destroy(flopspack_step_planner* planner);

/* ------------------------------------------------------------------------
 * Length buckets and the bucket sampler: padded batches with little padding
 * whose optimizer steps still see the whole length distribution
 * (docs/buckets.md).
 * ---------------------------------------------------------------------- */

/* The num_buckets bucket upper bounds that minimise the total padding when
 * every sample is padded to the upper bound of its bucket (the first bound
 * >= its length); exact (dynamic programming over the distinct lengths).
 * Writes num_buckets non-decreasing bounds into upper_bounds; the last is the
 * longest length. With D >= num_buckets distinct lengths the bounds are
 * strictly increasing; with fewer, each distinct length is its own bucket
 * (zero padding) and the last num_buckets - D bounds repeat the longest
 * length (empty buckets). Needs n >= 1 and num_buckets >= 1. */
FLOPSPACK_API flopspack_status flopspack_buckets_optimize(const int64_t* lengths, size_t n,
                                                          size_t num_buckets,
                                                          int64_t* upper_bounds);

/* Total padding of the samples under the given non-decreasing upper bounds
 * (each sample padded to the first bound >= its length; the last bound must
 * be >= every length). */
FLOPSPACK_API flopspack_status flopspack_buckets_padding(const int64_t* lengths, size_t n,
                                                         const int64_t* upper_bounds,
                                                         size_t num_buckets, int64_t* out_padding);

/* What limits a padded batch. */
typedef enum flopspack_bucket_budget {
  /* batch size x longest sample <= max_padded_tokens */
  FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS = 0,
  /* the cost model's padded-batch cost <= max_batch_cost */
  FLOPSPACK_BUCKET_BUDGET_COST = 1
} flopspack_bucket_budget;

typedef struct flopspack_bucket_sampler_options {
  uint32_t struct_size; /* sizeof(flopspack_bucket_sampler_options) */
  int32_t budget_kind;  /* flopspack_bucket_budget, default PADDED_TOKENS */
  uint32_t num_buckets; /* default 64; ignored when upper_bounds is given */
  int32_t drop_last;    /* 0 = pad last (default), 1 = drop last, see below */
  /* Explicit bucket upper bounds (non-decreasing, the last >= every length),
   * copied at creation. NULL / 0 = optimal bounds for the budget: those that
   * minimise the number of batches, i.e. padding plus the budget each
   * bucket's batches leave unused (docs/buckets.md). */
  const int64_t* upper_bounds;
  uint64_t num_upper_bounds;
  int64_t max_padded_tokens;   /* the budget for PADDED_TOKENS (must be set) */
  double max_batch_cost;       /* the budget for COST (must be set) */
  uint64_t num_ranks;          /* data-parallel ranks, default 1 */
  uint64_t accumulation_steps; /* batches per rank per optimizer step, default 1 */
  uint64_t seed;               /* default 0 */
  /* A sample that alone breaks the budget (a flopspack_overflow value):
   * ERROR (default) fails the create call naming the sample; TRUNCATE keeps
   * its first tokens that fit (truncated_items / truncated_tokens of every
   * epoch plan count them); DEFER drops it: it is left out of every epoch
   * and listed by flopspack_plan_deferred (deferred_items / deferred_tokens).
   * SPLIT is not taken (FLOPSPACK_INVALID_ARGUMENT). */
  int32_t overflow;
} flopspack_bucket_sampler_options;

FLOPSPACK_API void flopspack_bucket_sampler_options_init(flopspack_bucket_sampler_options* options);

/* A sampler of padded batches: samples go to length buckets; each epoch
 * shuffles every bucket (from seed and epoch), cuts it into batches within
 * the budget, and arranges the batches into optimizer steps of num_ranks x
 * accumulation_steps batches so that each step draws from the buckets in
 * proportion to the data and the ranks of a step carry nearly equal cost.
 * Every epoch has the same number of steps. If the batch count is not a
 * multiple of a step: pad last splits batches until it is (every sample is
 * used exactly once per epoch); drop last drops the surplus batches with the
 * fewest tokens (flopspack_plan_dropped lists their samples).
 * model may be NULL unless budget_kind is COST; when given, batch costs
 * (what ranks are balanced on) are its padded-batch costs, else padded
 * tokens. The sampler keeps its own reference to the model: the caller may
 * destroy its handle. Fails with FLOPSPACK_INFEASIBLE when a sample alone
 * breaks the budget or the data cannot fill one step.
 * The sampler is immutable and may be used from several threads. */
typedef struct flopspack_bucket_sampler flopspack_bucket_sampler;

FLOPSPACK_API flopspack_status flopspack_bucket_sampler_create(
    const flopspack_bucket_sampler_options* options, const flopspack_cost_model* model,
    const int64_t* lengths, size_t n, flopspack_bucket_sampler** out);

/* One epoch: a pure function of (seed, epoch), so a run resumed anywhere
 * sees what an uninterrupted run would. One group per batch, ordered by
 * step, rank, accumulation index: group (s * R + r) * A + a has
 * flopspack_plan_group_slot rank r and slot s * A + a, so step s of rank r
 * is its batches s*A .. s*A + A - 1. Metrics: padding_efficiency,
 * balance_efficiency (sum over steps of mean rank cost / sum of max rank
 * cost), diversity_distance(_samples) averaged over steps, num_steps,
 * dropped_items. */
FLOPSPACK_API flopspack_status flopspack_bucket_sampler_epoch(
    const flopspack_bucket_sampler* sampler, uint64_t epoch, flopspack_plan** out);

/* One step of an epoch: its num_ranks x accumulation_steps groups exactly
 * as in the epoch's plan (same slots), metrics for that step alone. The last
 * epoch's layout is cached, so stepping through an epoch costs O(step). */
FLOPSPACK_API flopspack_status flopspack_bucket_sampler_step(
    const flopspack_bucket_sampler* sampler, uint64_t epoch, uint64_t step, flopspack_plan** out);

/* Optimizer steps per epoch (the same for every epoch). */
FLOPSPACK_API flopspack_status
flopspack_bucket_sampler_steps_per_epoch(const flopspack_bucket_sampler* sampler, uint64_t* out);

/* The bucket upper bounds in use (borrowed, valid until destroy). */
FLOPSPACK_API flopspack_status flopspack_bucket_sampler_upper_bounds(
    const flopspack_bucket_sampler* sampler, const int64_t** upper_bounds, size_t* n);

/* Per-step diversity of a plan of this sampler (an epoch or a step plan):
 * the KS distance of each step's token-weighted and sample-weighted length
 * distribution to the whole data's, in step order, into caller buffers of
 * capacity entries; *num_steps receives the number of steps. With both
 * buffers NULL it only sets *num_steps (a size query); otherwise a capacity
 * below the step count fails with FLOPSPACK_BUFFER_TOO_SMALL. One of the
 * buffers may be NULL. */
FLOPSPACK_API flopspack_status flopspack_bucket_sampler_step_diversity(
    const flopspack_bucket_sampler* sampler, const flopspack_plan* plan, double* token_distances,
    double* sample_distances, size_t capacity, size_t* num_steps);

FLOPSPACK_API void flopspack_bucket_sampler_destroy(flopspack_bucket_sampler* sampler);

/* Targets an epoch can miss (bits of flopspack_bucket_sampler_diagnostics.unmet). */
typedef enum flopspack_bucket_target {
  FLOPSPACK_BUCKET_TARGET_BALANCE = 1,  /* step balance below its target */
  FLOPSPACK_BUCKET_TARGET_PADDING = 2,  /* padding efficiency below its target */
  FLOPSPACK_BUCKET_TARGET_DIVERSITY = 4 /* token-weighted step KS above its target */
} flopspack_bucket_target;

/* What an epoch achieves against targets, and what limits it
 * (docs/buckets.md, "Diagnostics"). Output struct: set struct_size. */
typedef struct flopspack_bucket_sampler_diagnostics {
  uint32_t struct_size;
  uint32_t unmet; /* flopspack_bucket_target bits of the targets missed */
  /* Step balance (the epoch plan's balance_efficiency), target - it when
   * missed (else 0), and the balance of the best grouping of this epoch's
   * batches into steps by cost alone (ignoring diversity): a step waits for
   * its costliest batch, so batches of one or two long samples bound it. */
  double balance_efficiency, balance_shortfall, balance_bound;
  /* Padding efficiency, target - it when missed, and the padding efficiency
   * of the buckets themselves (each sample padded to its bucket's bound). */
  double padding_efficiency, padding_shortfall, padding_bound;
  /* Mean token-weighted step KS, it - target when missed, and the floor
   * 1 / (2 G) no step of G length-homogeneous batches can beat. */
  double diversity_distance, diversity_excess, diversity_floor;
  /* The cost cap the batches were cut to (0 = the budget alone), and with a
   * cost model and a token budget, the cost budget the token budget implies. */
  double batch_cost_cap, implied_cost_budget;
  /* Over-budget samples handled by options.overflow. */
  uint64_t truncated_items, deferred_items;
  int64_t truncated_tokens, deferred_tokens;
} flopspack_bucket_sampler_diagnostics;

/* Diagnostics of epoch `epoch` against targets (each in [0, 1], e.g. 0.97,
 * 0.95, 0.1); FLOPSPACK_INVALID_ARGUMENT for a target outside [0, 1]. */
FLOPSPACK_API flopspack_status flopspack_bucket_sampler_diagnose(
    const flopspack_bucket_sampler* sampler, uint64_t epoch, double balance_target,
    double padding_target, double diversity_target, flopspack_bucket_sampler_diagnostics* out);

/* The streaming bucket sampler: padded batches from lengths that arrive as a
 * stream (an iterable dataset), memory bounded by buffer_size. Lengths get
 * global indices in push order; every buffer_size samples form a chunk that
 * the bucket sampler above samples (seeded by seed and the chunk number) and
 * whose steps are handed out in order. Deterministic: the steps are a pure
 * function of the lengths, the options and buffer_size (not of how the
 * pushes are sliced), so a run resumes by pushing the same lengths again and
 * discarding the steps already taken. Within 1 point of padding, 2.5 points
 * of step balance and 0.02 of step KS of the offline sampler at buffer_size
 * 10,000 (docs/buckets.md, "Streaming input"). Not thread-safe. */
typedef struct flopspack_bucket_stream flopspack_bucket_stream;

/* options as for flopspack_bucket_sampler_create (checked here);
 * buffer_size >= 1. */
FLOPSPACK_API flopspack_status flopspack_bucket_stream_create(
    const flopspack_bucket_sampler_options* options, const flopspack_cost_model* model,
    uint64_t buffer_size, flopspack_bucket_stream** out);

/* Appends lengths; *accepted receives how many were taken (fewer than n when
 * the buffer is full while a chunk's steps remain: take steps, push the
 * rest). A chunk's sampling errors (a bad length, an over-budget sample with
 * overflow = ERROR) are returned here, naming the chunk; the stream is then
 * unusable (FLOPSPACK_INFEASIBLE on later calls). Pushing after flush is
 * FLOPSPACK_INFEASIBLE. */
FLOPSPACK_API flopspack_status flopspack_bucket_stream_push(flopspack_bucket_stream* stream,
                                                            const int64_t* lengths, size_t n,
                                                            size_t* accepted);

/* The end of the stream: the last, partial chunk is sampled too. */
FLOPSPACK_API flopspack_status flopspack_bucket_stream_flush(flopspack_bucket_stream* stream);

/* Steps flopspack_bucket_stream_take can return now. */
FLOPSPACK_API flopspack_status flopspack_bucket_stream_ready(flopspack_bucket_stream* stream,
                                                             uint64_t* steps);

/* The next step, laid out as a flopspack_bucket_sampler_step plan (slots
 * count steps from the start of the stream; items are stream indices).
 * FLOPSPACK_OUT_OF_RANGE when no step is ready. */
FLOPSPACK_API flopspack_status flopspack_bucket_stream_take(flopspack_bucket_stream* stream,
                                                            flopspack_plan** out);

/* Borrowed lists (valid until the next call on the stream): samples left
 * out as over-budget with overflow = DEFER, and samples of a final chunk
 * too small to form one step (fewer samples than num_ranks x
 * accumulation_steps batches need). Both ascending. */
FLOPSPACK_API flopspack_status flopspack_bucket_stream_deferred(
    const flopspack_bucket_stream* stream, const int64_t** items, size_t* n);
FLOPSPACK_API flopspack_status flopspack_bucket_stream_leftover(
    const flopspack_bucket_stream* stream, const int64_t** items, size_t* n);

FLOPSPACK_API void flopspack_bucket_stream_destroy(flopspack_bucket_stream* stream);

/* ------------------------------------------------------------------------
 * Statistics of a dataset's document lengths (docs/statistics.md).
 *
 * A flopspack_stats holds the dataset as its exact length histogram (each
 * distinct length and its count) plus, when built with a cost model, the
 * cost of one document of each length (the model's document cost, without
 * the per-sequence overhead). It is immutable and may be read from several
 * threads at once. Statistics of shards merge into exactly the statistics
 * of the whole (flopspack_stats_merge).
 * ---------------------------------------------------------------------- */
typedef struct flopspack_stats flopspack_stats;

/* What each document weighs in a CDF, quantile, histogram or KS distance.
 * Functions take it as int (a C caller may pass any value; unknown ones are
 * rejected with FLOPSPACK_INVALID_ARGUMENT). */
typedef enum flopspack_stats_weighting {
  FLOPSPACK_STATS_WEIGHT_COUNT = 0,  /* every document 1 */
  FLOPSPACK_STATS_WEIGHT_TOKENS = 1, /* its length */
  FLOPSPACK_STATS_WEIGHT_COST = 2    /* its cost (needs a model) */
} flopspack_stats_weighting;

/* Statistics of lengths[0..n). Every length must be positive; n = 0 gives
 * an empty dataset. model may be NULL (no cost figures); it is evaluated
 * once per distinct length and not kept. */
FLOPSPACK_API flopspack_status flopspack_stats_create(const int64_t* lengths, size_t n,
                                                      const flopspack_cost_model* model,
                                                      flopspack_stats** out);

/* The same from a histogram: counts[i] documents of length lengths[i].
 * Lengths need not be sorted or distinct (repeats add up); counts may be 0.
 * With flopspack_stats_entries this ships statistics between processes. */
FLOPSPACK_API flopspack_status
flopspack_stats_create_from_histogram(const int64_t* lengths, const uint64_t* counts, size_t n,
                                      const flopspack_cost_model* model, flopspack_stats** out);

/* Statistics of the union of a's and b's datasets, exactly (bit-identical
 * to building them from the concatenated lengths). Both must be built
 * without a model, or with models that give the same costs (checked on a
 * fixed set of lengths and on every length both hold):
 * FLOPSPACK_INVALID_ARGUMENT otherwise. */
FLOPSPACK_API flopspack_status flopspack_stats_merge(const flopspack_stats* a,
                                                     const flopspack_stats* b,
                                                     flopspack_stats** out);

/* The dataset at a glance. Output struct: set struct_size before the call.
 * Quantiles are lower empirical quantiles of the document count (see
 * flopspack_stats_quantile); for an empty dataset every field is 0. */
typedef struct flopspack_stats_summary {
  uint32_t struct_size;
  uint64_t count; /* documents */
  uint64_t distinct_lengths;
  int64_t tokens;      /* sum of lengths */
  double mean, stddev; /* of the length; stddev divides by count */
  int64_t min, max;
  int64_t p50, p90, p99, p999;
  int32_t has_cost;                       /* 1 if built with a cost model */
  double total_cost, mean_cost, max_cost; /* per-document costs; 0 without a model */
} flopspack_stats_summary;

FLOPSPACK_API flopspack_status flopspack_stats_summarize(const flopspack_stats* stats,
                                                         flopspack_stats_summary* out);

/* Lower empirical quantile of the length: the smallest length whose CDF
 * (share of documents of that length or shorter) is >= q, q in [0, 1];
 * q = 0 gives the minimum. FLOPSPACK_INVALID_ARGUMENT for an empty dataset. */
FLOPSPACK_API flopspack_status flopspack_stats_quantile(const flopspack_stats* stats, double q,
                                                        double* out);

/* The same with documents weighted by tokens or cost: the token-weighted
 * median is the length such that half the tokens are in documents no
 * longer than it. */
FLOPSPACK_API flopspack_status flopspack_stats_weighted_quantile(const flopspack_stats* stats,
                                                                 int weighting, double q,
                                                                 double* out);

/* Share of documents (tokens, cost) in documents of length <= length. */
FLOPSPACK_API flopspack_status flopspack_stats_cdf(const flopspack_stats* stats, int weighting,
                                                   int64_t length, double* out);

/* Histogram bins. LINEAR: bin k holds lengths (k*width, (k+1)*width];
 * LOG2: bin 0 holds {1}, bin k >= 1 holds (2^(k-1), 2^k]. Bins run from the
 * one holding length 1 to the one holding the longest document. */
typedef enum flopspack_stats_binning {
  FLOPSPACK_STATS_BINS_LINEAR = 0,
  FLOPSPACK_STATS_BINS_LOG2 = 1
} flopspack_stats_binning;

typedef struct flopspack_histogram_options {
  uint32_t struct_size;
  int32_t binning;    /* flopspack_stats_binning, default LOG2 */
  int32_t weighting;  /* flopspack_stats_weighting, default COUNT */
  int32_t normalized; /* 1 = shares of the total weight, default 0 = raw sums */
  int64_t width;      /* LINEAR only: tokens per bin; 0 (default) = the smallest
                         power of two giving at most 64 bins */
} flopspack_histogram_options;

FLOPSPACK_API void flopspack_histogram_options_init(flopspack_histogram_options* options);

/* The histogram into caller buffers: upper_edges[k] is the longest length
 * bin k holds, weights[k] its weight. With both buffers NULL, only
 * *num_bins is written (the size query); otherwise capacity must be
 * >= the number of bins (FLOPSPACK_BUFFER_TOO_SMALL, nothing written) and
 * either buffer may be NULL if not wanted. options may be NULL. */
FLOPSPACK_API flopspack_status flopspack_stats_histogram(const flopspack_stats* stats,
                                                         const flopspack_histogram_options* options,
                                                         int64_t* upper_edges, double* weights,
                                                         size_t capacity, size_t* num_bins);

/* Documents strictly longer than a threshold: "1% of the documents carry 9%
 * of the FLOPs". Output struct: set struct_size before the call. */
typedef struct flopspack_stats_tail {
  uint32_t struct_size;
  uint64_t documents;
  int64_t tokens;
  double cost;                                    /* 0 without a model */
  double document_share, token_share, cost_share; /* of the whole; 0 if empty */
} flopspack_stats_tail;

FLOPSPACK_API flopspack_status flopspack_stats_tail_share(const flopspack_stats* stats,
                                                          int64_t threshold,
                                                          flopspack_stats_tail* out);

/* The exact expected maximum of `draws` independent draws of a document's
 * cost (its length, without a model) from the dataset's empirical
 * distribution, by order statistics, not by sampling: exact for any draws
 * >= 1 (10^6 and beyond). FLOPSPACK_INVALID_ARGUMENT for draws = 0 or an
 * empty dataset. */
FLOPSPACK_API flopspack_status flopspack_stats_expected_max(const flopspack_stats* stats,
                                                            uint64_t draws, double* out);

/* Kolmogorov–Smirnov distance between the two datasets' length
 * distributions: the largest gap between their CDFs, over all lengths. */
FLOPSPACK_API flopspack_status flopspack_stats_ks_distance(const flopspack_stats* a,
                                                           const flopspack_stats* b, double* out);

/* The same with documents weighted by count, tokens or cost (both need a
 * model); *length (may be NULL) receives the smallest length where the gap
 * is largest. */
FLOPSPACK_API flopspack_status flopspack_stats_ks_distance_weighted(const flopspack_stats* a,
                                                                    const flopspack_stats* b,
                                                                    int weighting, double* distance,
                                                                    int64_t* length);

#define FLOPSPACK_STATS_COMPARE_LEVELS 6

/* Where two datasets differ. Output struct: set struct_size before the call. */
typedef struct flopspack_stats_comparison {
  uint32_t struct_size;
  double ks_distance;        /* count-weighted */
  int64_t ks_length;         /* where the CDFs differ most */
  double ks_distance_tokens; /* token-weighted */
  int64_t ks_length_tokens;
  /* Lower quantiles of both at levels 0.5, 0.9, 0.95, 0.99, 0.999, 0.9999. */
  double levels[FLOPSPACK_STATS_COMPARE_LEVELS];
  int64_t quantiles_a[FLOPSPACK_STATS_COMPARE_LEVELS];
  int64_t quantiles_b[FLOPSPACK_STATS_COMPARE_LEVELS];
  /* The lowest level whose quantiles differ by more than 5% of a's: where
   * the tails part (0 = nowhere). */
  double first_divergent_level;
  /* a's p99, and the share of each dataset's tokens and cost in documents
   * longer than it (cost shares 0 unless both have a model). */
  int64_t tail_threshold;
  double token_share_above_a, token_share_above_b;
  double cost_share_above_a, cost_share_above_b;
} flopspack_stats_comparison;

/* FLOPSPACK_INVALID_ARGUMENT if either dataset is empty. */
FLOPSPACK_API flopspack_status flopspack_stats_compare(const flopspack_stats* a,
                                                       const flopspack_stats* b,
                                                       flopspack_stats_comparison* out);

/* The exact histogram: distinct lengths ascending and their counts, into
 * caller buffers of `capacity` entries (either may be NULL if not wanted).
 * With both NULL only *n is written (the size query); too small a capacity
 * is FLOPSPACK_BUFFER_TOO_SMALL with nothing written. */
FLOPSPACK_API flopspack_status flopspack_stats_entries(const flopspack_stats* stats,
                                                       int64_t* lengths, uint64_t* counts,
                                                       size_t capacity, size_t* n);

FLOPSPACK_API void flopspack_stats_destroy(flopspack_stats* stats);

/* Statistics costed as training sees the documents. Options struct:
 * flopspack_stats_options_init, then set fields. */
typedef struct flopspack_stats_options {
  uint32_t struct_size;
  /* The training sequence length: a document longer than it is costed as
   * the pieces FLOPSPACK_OVERFLOW_SPLIT cuts it into (floor(length /
   * cost_capacity) pieces of cost_capacity tokens and the remainder, each
   * attending within itself), so every cost figure (summary costs,
   * cost-weighted quantiles, CDFs and histograms, tail cost shares,
   * expected max) is the cost as trained. Default 0: documents costed
   * whole. Lengths and token figures are the same either way; ignored
   * without a model. */
  int64_t cost_capacity;
} flopspack_stats_options;

FLOPSPACK_API void flopspack_stats_options_init(flopspack_stats_options* options);

/* flopspack_stats_create (counts NULL: each length once) or
 * _create_from_histogram (counts[i] documents of length lengths[i]) with
 * options; options may be NULL (the defaults: the same statistics as those
 * calls). Statistics with different cost_capacity do not merge. */
FLOPSPACK_API flopspack_status flopspack_stats_create_with_options(
    const int64_t* lengths, const uint64_t* counts, size_t n, const flopspack_cost_model* model,
    const flopspack_stats_options* options, flopspack_stats** out);

/* ------------------------------------------------------------------------
 * The straggler emulator (docs/straggler-emulator.md): predict the
 * throughput a dataset loses to stragglers and padding at N GPUs, under a
 * packing policy, before spending the GPUs.
 *
 * It samples a training run the way a pipeline does — shuffle the documents
 * every epoch, form each step's global batch, apply the policy — costs every
 * microbatch with the cost model and measures each step: every rank's cost,
 * the step time (the slowest rank), balance efficiency (mean rank cost /
 * step time), fill and padding efficiency. Deterministic for a seed.
 * ---------------------------------------------------------------------- */

/* Append-only. */
typedef enum flopspack_sim_policy {
  /* Concatenate the shuffled documents, cut them into sequences of exactly
   * tokens_per_microbatch tokens, deal the step's sequences to (rank,
   * microbatch) slots at random. Ranks are independent. */
  FLOPSPACK_SIM_RANDOM = 0,
  /* Whole documents (cut only when longer than a microbatch) up to the
   * step's token budget, placed largest first into the microbatch with the
   * fewest tokens: balances tokens, not FLOPs. */
  FLOPSPACK_SIM_TOKEN_BALANCED = 1,
  /* The bucket sampler (flopspack_bucket_sampler, default options): padded
   * batches of at most tokens_per_microbatch padded tokens from optimal
   * length buckets, spread over ranks by LPT on padded-batch cost. Samples
   * longer than a microbatch are truncated to it. */
  FLOPSPACK_SIM_BUCKETS = 2,
  /* The step planner (flopspack_plan_step) on each step's whole documents,
   * up to num_ranks x microbatches_per_rank x tokens_per_microbatch tokens,
   * under a memory cap of max_tokens_per_microbatch per microbatch; documents
   * over the cap are split. One value per planner algorithm: */
  FLOPSPACK_SIM_PLANNER_DOCUMENTS = 3, /* document-level FLOPs balancing */
  FLOPSPACK_SIM_PLANNER_RANDOM = 4,    /* concatenate-and-cut, dealt at random */
  FLOPSPACK_SIM_PLANNER_TOKENS = 5,    /* document-level, balancing tokens */
  FLOPSPACK_SIM_PLANNER_SEQUENCES = 6  /* FFD pre-packed sequences + LPT */
} flopspack_sim_policy;

/* Progress: called after every simulated step with the steps done and the
 * steps in total; return non-zero to stop (the call then fails with
 * FLOPSPACK_CANCELLED). */
typedef int (*flopspack_progress_fn)(void* user_data, uint64_t done, uint64_t total);

typedef struct flopspack_simulate_options {
  uint32_t struct_size;
  int32_t policy;                    /* flopspack_sim_policy, default RANDOM */
  uint64_t num_ranks;                /* data-parallel ranks, default 1024 */
  uint64_t microbatches_per_rank;    /* gradient-accumulation steps, default 1 */
  int64_t tokens_per_microbatch;     /* tokens of one microbatch, default 8192,
                                        at most 2^24 */
  int64_t max_tokens_per_microbatch; /* PLANNER_* policies: the memory cap of a
                                        microbatch, >= tokens_per_microbatch;
                                        default 0 = tokens_per_microbatch
                                        (no slack to balance with) */
  uint64_t num_steps;                /* optimizer steps, default 100 */
  uint64_t seed;                     /* default 0 */
  int32_t record_steps;              /* 1 = keep the per-step series, default 0 */
  flopspack_progress_fn progress;    /* may be NULL */
  void* progress_user_data;
  /* The trainer's topology (docs/straggler-emulator.md, Topology); the
   * PLANNER_* policies plan for it (flopspack_step_options' fields of the
   * same names). The step time of each simulated step is: with
   * pipeline_stages >= 2, the 1F1B makespan of the slowest replica (each
   * rank one replica of pipeline_stages stages running its microbatches in
   * slot order; whatever sync); else under FLOPSPACK_SYNC_STEP the slowest
   * rank's cost, under FLOPSPACK_SYNC_MICROBATCH the sum over slots of the
   * slowest rank's microbatch in that slot. */
  int32_t sync;              /* flopspack_sync, default FLOPSPACK_SYNC_STEP */
  uint32_t pipeline_stages;  /* per replica, 0 or 1 = none (default), at most 1024 */
  int32_t pipeline_schedule; /* flopspack_pipeline_schedule, default 1F1B */
  /* Context parallelism (docs/straggler-emulator.md, Context parallelism):
   * every rank is a data-parallel group of context_parallel_size GPUs
   * (0 or 1 = none, the default; at most 65536) sharing each microbatch,
   * cut with context_parallel_layout (flopspack_cp_layout, default
   * FLOPSPACK_CP_DOCUMENT_HEAD_TAIL). tokens_per_microbatch and
   * max_tokens_per_microbatch stay per GPU, as in flopspack_step_options: a
   * microbatch holds context_parallel_size x tokens_per_microbatch tokens
   * and costs its slowest CP rank. Needs an additive cost model and a
   * policy other than BUCKETS when > 1. context_parallel_size lies in the
   * padding of a struct of the library before it: both fields are read only
   * when struct_size covers context_parallel_layout. */
  uint32_t context_parallel_size;
  int32_t context_parallel_layout;
} flopspack_simulate_options;

FLOPSPACK_API void flopspack_simulate_options_init(flopspack_simulate_options* options);

typedef struct flopspack_simulate_result flopspack_simulate_result;

/* Simulates options->num_steps steps on lengths[0..n) (n >= 1, every length
 * positive) with the cost model (required). options may be NULL. Memory:
 * the lengths plus one step, whatever the number of steps, unless
 * record_steps is set. */
FLOPSPACK_API flopspack_status flopspack_simulate(const int64_t* lengths, size_t n,
                                                  const flopspack_cost_model* model,
                                                  const flopspack_simulate_options* options,
                                                  flopspack_simulate_result** out);

/* The figures of a simulation. Output struct: set struct_size before the
 * call. Percentiles of the balance efficiency are lower quantiles over the
 * steps, resolved to 1/65536. */
typedef struct flopspack_simulate_summary {
  uint32_t struct_size;
  uint64_t num_steps, num_ranks, microbatches_per_rank;
  uint64_t documents_drawn; /* documents the pipeline read */
  uint64_t epochs;          /* epochs started */
  double mean_balance_efficiency;
  double p5_balance_efficiency, p50_balance_efficiency, p95_balance_efficiency;
  double mean_fill;               /* real tokens / (microbatches x tokens_per_microbatch) */
  double mean_padding_efficiency; /* real tokens / computed tokens */
  /* sum over steps of the useful (unpadded) mean rank cost / sum of step
   * times: throughput relative to a perfectly balanced, unpadded run. */
  double relative_throughput;
  double mean_step_time; /* in the cost model's unit */
  /* For policies with independent ranks, the order-statistics prediction
   * of relative_throughput: mean rank cost / E[max of num_ranks rank
   * costs]; NaN for other policies. */
  double predicted_efficiency;
  int64_t real_tokens, computed_tokens;
  /* The topology the step times follow (the options' values), and the mean
   * over steps of the useful work per GPU (the mean rank cost; divided by
   * pipeline_stages with pipelines, as each stage does that share) / the
   * step time: the efficiency under that model. Equals
   * mean_balance_efficiency under FLOPSPACK_SYNC_STEP without pipelines.
   * mean_balance_efficiency and its percentiles stay the rank balance
   * (mean / slowest rank cost) under every model; relative_throughput and
   * mean_step_time use the model's step time, and predicted_efficiency
   * predicts mean_sync_efficiency (from microbatch costs under
   * MICROBATCH; NaN with pipelines). */
  int32_t sync;
  uint32_t pipeline_stages;
  int32_t pipeline_schedule;
  double mean_sync_efficiency;
} flopspack_simulate_summary;

FLOPSPACK_API flopspack_status flopspack_simulate_result_summary(
    const flopspack_simulate_result* result, flopspack_simulate_summary* out);

/* Per-step series (with record_steps = 1), passed as int. */
typedef enum flopspack_sim_series {
  FLOPSPACK_SIM_SERIES_STEP_TIME = 0, /* under the synchronization model */
  FLOPSPACK_SIM_SERIES_MEAN_RANK_COST = 1,
  FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY = 2,
  FLOPSPACK_SIM_SERIES_FILL = 3,
  FLOPSPACK_SIM_SERIES_PADDING_EFFICIENCY = 4,
  FLOPSPACK_SIM_SERIES_REAL_TOKENS = 5
} flopspack_sim_series;

/* One value per step into out[0..capacity). out = NULL queries *n (the
 * number of steps). FLOPSPACK_INVALID_ARGUMENT if the series was not
 * recorded; FLOPSPACK_BUFFER_TOO_SMALL (nothing written) if capacity is too
 * small. */
FLOPSPACK_API flopspack_status flopspack_simulate_result_series(
    const flopspack_simulate_result* result, int series, double* out, size_t capacity, size_t* n);

/* The lengths of the document pieces inside the simulated microbatches,
 * after the policy's cutting and packing, as new statistics (with the
 * simulation's cost model): histogram and quantiles show the tail the ranks
 * actually saw. Destroy with flopspack_stats_destroy. */
FLOPSPACK_API flopspack_status
flopspack_simulate_result_pieces(const flopspack_simulate_result* result, flopspack_stats** out);

FLOPSPACK_API void flopspack_simulate_result_destroy(flopspack_simulate_result* result);

/* Efficiency versus GPUs: simulates at each of rank_counts[0..num_counts)
 * (options->num_ranks is ignored; the progress callback sees the steps of
 * the whole sweep) and writes, per count, the mean efficiency under the
 * options' synchronization model (the summary's mean_sync_efficiency: the
 * mean balance efficiency under FLOPSPACK_SYNC_STEP), the
 * order-statistics prediction of the relative throughput (NaN unless the
 * policy's ranks are independent; made from the rank costs pooled over
 * every count, not fitted to the count it predicts) and the sampled
 * relative throughput. Any output array may be NULL. */
FLOPSPACK_API flopspack_status flopspack_simulate_sweep(
    const int64_t* lengths, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, const uint64_t* rank_counts, size_t num_counts,
    double* sampled_efficiency, double* predicted_efficiency, double* relative_throughput);

/* ------------------------------------------------------------------------
 * Streaming packer: bounded memory, sequences out as soon as they are final.
 *
 * Documents are pushed one by one or in arrays and numbered consecutively
 * from 0 in push order; packed sequences become available as soon as they
 * are final and are taken out as plans (one group per sequence, items =
 * document numbers). At most `window` documents are held at any time, and a
 * document is emitted within `window` pushes of its arrival. Within the
 * window the packer is best-fit decreasing; fill approaches offline BFD as
 * the window grows (docs/streaming.md). Output depends only on the input
 * order, the options and the seed. One thread at a time per packer.
 * ---------------------------------------------------------------------- */
typedef struct flopspack_stream_packer flopspack_stream_packer;

typedef struct flopspack_stream_options {
  uint32_t struct_size;
  int64_t capacity; /* tokens per sequence, 1 .. 2^24; no default (0 is rejected) */
  uint64_t window;  /* documents held at most; default 10000 */
  int32_t overflow; /* documents over the capacity: a flopspack_overflow value;
                       default FLOPSPACK_OVERFLOW_SPLIT */
  uint64_t seed;    /* shuffles the emission order of each batch of final sequences */
} flopspack_stream_options;

FLOPSPACK_API void flopspack_stream_options_init(flopspack_stream_options* options);

/* model may be NULL (cost = tokens); the packer keeps its own reference, so
 * the model handle may be destroyed first. */
FLOPSPACK_API flopspack_status
flopspack_stream_packer_create(const flopspack_stream_options* options,
                               const flopspack_cost_model* model, flopspack_stream_packer** out);

/* Pushes n documents. On failure (a non-positive length, a length over the
 * capacity under FLOPSPACK_OVERFLOW_ERROR) none of the n is pushed. */
FLOPSPACK_API flopspack_status flopspack_stream_packer_push(flopspack_stream_packer* packer,
                                                            const int64_t* lengths, size_t n);

/* Packs everything held and makes every open sequence final. Pushing may
 * continue afterwards. */
FLOPSPACK_API flopspack_status flopspack_stream_packer_flush(flopspack_stream_packer* packer);

/* Number of final sequences waiting to be taken. */
FLOPSPACK_API flopspack_status flopspack_stream_packer_ready(const flopspack_stream_packer* packer,
                                                             size_t* out_sequences);

/* Takes the sequences made final since the last take, as a plan (possibly
 * with no groups). Its metrics cover those sequences. */
FLOPSPACK_API flopspack_status flopspack_stream_packer_take(flopspack_stream_packer* packer,
                                                            flopspack_plan** out);

/* Counters since creation. Output struct: set struct_size first. */
typedef struct flopspack_stream_totals {
  uint32_t struct_size;
  uint64_t documents_pushed;
  uint64_t pieces_held; /* document pieces pending or in open sequences */
  uint64_t sequences_emitted;
  int64_t tokens_emitted;
  uint64_t split_documents, truncated_documents;
  int64_t truncated_tokens;
} flopspack_stream_totals;

FLOPSPACK_API flopspack_status flopspack_stream_packer_totals(const flopspack_stream_packer* packer,
                                                              flopspack_stream_totals* out);

/* Size in bytes of the saved state right now (as flopspack_step_planner_save_size). */
FLOPSPACK_API flopspack_status
flopspack_stream_packer_save_size(const flopspack_stream_packer* packer, size_t* size);

/* Saves the whole state (versioned, checksummed bytes). With buffer NULL,
 * stores the size needed in *size and returns FLOPSPACK_OK; with a buffer of
 * `capacity` bytes that is too small, stores the size needed in *size and
 * returns FLOPSPACK_BUFFER_TOO_SMALL, writing nothing into the buffer. */
FLOPSPACK_API flopspack_status flopspack_stream_packer_save(const flopspack_stream_packer* packer,
                                                            void* buffer, size_t capacity,
                                                            size_t* size);

/* A packer from saved bytes; corrupted, truncated or foreign bytes are
 * rejected with FLOPSPACK_INVALID_ARGUMENT. model may be NULL. */
FLOPSPACK_API flopspack_status flopspack_stream_packer_restore(const void* bytes, size_t size,
                                                               const flopspack_cost_model* model,
                                                               flopspack_stream_packer** out);

FLOPSPACK_API void flopspack_stream_packer_destroy(flopspack_stream_packer* packer);

/* ------------------------------------------------------------------------
 * Cost models, continued: coefficients and prediction quality.
 *
 * A fitted or polynomial model is four numbers; a cost-model file
 * (docs/cost-models.md) stores them, and flopspack_cost_model_polynomial
 * makes the model again from them. flopspack_cost_model_evaluate says how
 * well any model predicts measured times: on the samples it was fitted to,
 * or on held-out ones.
 * ---------------------------------------------------------------------- */

/* The four coefficients of a polynomial-form model. Output struct: set
 * struct_size, the library fills as many fields as it and the caller both
 * know. */
typedef struct flopspack_polynomial_coefficients {
  uint32_t struct_size;
  double per_sequence, per_document, linear, quadratic;
} flopspack_polynomial_coefficients;

/* The coefficients of a model made by flopspack_cost_model_tokens (0, 0, 1,
 * 0), _polynomial or _fit, exactly as they were given or fitted. A
 * transformer or custom model has no such form: FLOPSPACK_INVALID_ARGUMENT. */
FLOPSPACK_API flopspack_status flopspack_cost_model_coefficients(
    const flopspack_cost_model* model, flopspack_polynomial_coefficients* out);

typedef struct flopspack_evaluate_options {
  uint32_t struct_size;
  /* 1 = first fit prediction = scale * cost + offset to these samples by
   * least squares with scale, offset >= 0 (needs 2 samples): how well the
   * model ranks and spaces the samples in whatever unit it counts (FLOPs,
   * tokens). 0 (default) = use scale and offset below. */
  int32_t fit_scale;
  double scale;  /* default 1: the model's unit is seconds (a fitted model) */
  double offset; /* default 0 */
} flopspack_evaluate_options;

FLOPSPACK_API void flopspack_evaluate_options_init(flopspack_evaluate_options* options);

/* How well a model predicted measured times. Output struct: set struct_size
 * first. */
typedef struct flopspack_prediction_quality {
  uint32_t struct_size;
  double scale, offset;         /* prediction = scale * sequence_cost + offset */
  double r_squared;             /* 1 - SS_res / SS_tot on these samples (may be < 0 held out) */
  double rms_residual;          /* sqrt(SS_res / samples), in the unit of seconds[] */
  double mean_relative_error;   /* mean of |prediction - seconds| / seconds */
  double median_relative_error; /* their median (mean of the middle two if even) */
  double max_relative_error;
  uint64_t num_samples;
} flopspack_prediction_quality;

/* Predicts each sample (the layout of flopspack_cost_model_fit) with the
 * model and compares with seconds[], every one finite and > 0. Needs at
 * least one sample (two with fit_scale). options may be NULL (defaults). A
 * custom model whose callback fails fails the call with
 * FLOPSPACK_CALLBACK_FAILED. */
FLOPSPACK_API flopspack_status flopspack_cost_model_evaluate(
    const flopspack_cost_model* model, const flopspack_evaluate_options* options,
    const int64_t* document_lengths, const size_t* sample_offsets, const double* seconds,
    size_t num_samples, flopspack_prediction_quality* out);

/* ------------------------------------------------------------------------
 * Context parallelism (docs/context-parallel.md).
 *
 * A context-parallel (CP) group of C GPUs shares each packed sequence of a
 * plan: flopspack_plan_shard_context_parallel cuts every group of a plan
 * into chunks (item, offset, length) per CP rank and costs each CP rank
 * exactly for causal attention within documents (a chunk's queries attend
 * to its own document's earlier tokens, wherever they sit). Each plan entry
 * is a document or a piece of one; a piece attends within itself, as
 * everywhere in flopspack. A shard is immutable and may be read from
 * several threads at once.
 * ---------------------------------------------------------------------- */

/* How a packed sequence is cut over the CP ranks. Append-only. */
typedef enum flopspack_cp_layout {
  /* The packed sequence is cut into 2C equal chunks (the remainder one
   * token per CP rank) and CP rank i takes chunks i and 2C-1-i: the
   * Megatron-LM / Transformer Engine layout, even for one document filling
   * the sequence, uneven when documents are packed. */
  FLOPSPACK_CP_SEQUENCE_HEAD_TAIL = 0,
  /* Every document is cut into 2C chunks and CP rank i takes its chunks i
   * and 2C-1-i (Transformer Engine's THD layout; WLB-LLM's per-document
   * sharding): even to the remainder tokens, more key/value traffic. */
  FLOPSPACK_CP_DOCUMENT_HEAD_TAIL = 1,
  /* Per sequence, whichever of the two gives the lower maximum CP-rank cost
   * (ties: the per-sequence layout, which moves fewer keys and values). */
  FLOPSPACK_CP_ADAPTIVE = 2
} flopspack_cp_layout;

typedef struct flopspack_cp_shard flopspack_cp_shard;

/* Shards every group of the plan over context_parallel_size CP ranks
 * (1 .. 65536) with the layout (a flopspack_cp_layout), costing chunks with
 * the model: a chunk [a, b) of a document of length l costs what the model
 * says its tokens a .. b-1 cost attending within the document (for the
 * transformer, exact in closed form; for token and polynomial models, the
 * prefix rule cost(b) - cost(a)); every CP rank of a non-empty sequence
 * also pays the model's per-sequence overhead. The model must be additive:
 * a transformer with FLOPSPACK_ATTENTION_SEQUENCE or a custom model is
 * FLOPSPACK_INVALID_ARGUMENT. Documents shorter than 2C tokens simply give
 * some CP ranks no chunk of them. */
FLOPSPACK_API flopspack_status flopspack_plan_shard_context_parallel(
    const flopspack_plan* plan, const flopspack_cost_model* model, uint64_t context_parallel_size,
    int layout, flopspack_cp_shard** out);

/* Number of groups (the plan's). 0 for NULL. */
FLOPSPACK_API size_t flopspack_cp_shard_group_count(const flopspack_cp_shard* shard);

/* Borrowed views of the chunks of CP rank cp_rank in group `group`, in the
 * order that CP rank lays them out: chunk k is tokens [offsets[k],
 * offsets[k] + lengths[k]) of item items[k] (an index into the plan's input,
 * offsets within the item as flopspack_plan_group_offsets counts them). The
 * chunks of all CP ranks of a group tile its entries exactly, no chunk
 * empty. Any of items / offsets / lengths may be NULL if not wanted. Valid
 * until the shard is destroyed. */
FLOPSPACK_API flopspack_status flopspack_cp_shard_chunks(const flopspack_cp_shard* shard,
                                                         size_t group, size_t cp_rank,
                                                         const int64_t** items,
                                                         const int64_t** offsets,
                                                         const int64_t** lengths, size_t* n);

/* What CP rank cp_rank of group `group` costs, and the key/value tokens it
 * receives from the other CP ranks (the tokens of [0, end of its last chunk)
 * of each document it holds a chunk of, minus those it holds). Either
 * out-pointer may be NULL. */
FLOPSPACK_API flopspack_status flopspack_cp_shard_rank_cost(const flopspack_cp_shard* shard,
                                                            size_t group, size_t cp_rank,
                                                            double* cost, int64_t* kv_tokens);

/* The layout group `group` was cut with (never FLOPSPACK_CP_ADAPTIVE) and
 * its CP-rank balance (mean / max CP-rank cost, 1 for an empty group).
 * Either out-pointer may be NULL. */
FLOPSPACK_API flopspack_status flopspack_cp_shard_group_layout(const flopspack_cp_shard* shard,
                                                               size_t group, int* layout,
                                                               double* balance);

/* The figures of a shard. Output struct: set struct_size before the call. */
typedef struct flopspack_cp_metrics {
  uint32_t struct_size;
  uint64_t context_parallel_size;
  uint64_t num_groups;
  uint64_t num_chunks;
  /* Sum over groups of the mean CP-rank cost / sum of the max (every
   * sequence waits for its slowest CP rank); 1 = no CP straggler. */
  double balance_efficiency;
  double worst_balance; /* min over groups of mean / max CP-rank cost */
  double max_cp_rank_cost, mean_cp_rank_cost;
  int64_t kv_tokens; /* key/value tokens received, all groups and CP ranks */
  /* Groups cut per sequence / per document (adaptive chooses per group). */
  uint64_t sequence_layout_groups, document_layout_groups;
} flopspack_cp_metrics;

FLOPSPACK_API flopspack_status flopspack_cp_shard_metrics(const flopspack_cp_shard* shard,
                                                          flopspack_cp_metrics* out);

FLOPSPACK_API void flopspack_cp_shard_destroy(flopspack_cp_shard* shard);

/* ---- Documents with their own extra cost (issue 16) -------------------- */

/* flopspack_plan_step where document i costs the model's cost of its
 * lengths[i] tokens plus extra_costs[i] (a vision encoder's work on its
 * images, say: docs/multimodal.md). extra_costs NULL = none: the same plan
 * as flopspack_plan_step, bit for bit. A split document's pieces share its
 * extra cost in proportion to their tokens; group costs and metrics include
 * it. Errors: those of flopspack_plan_step, plus FLOPSPACK_INVALID_ARGUMENT
 * for a negative, NaN or infinite extra cost (the message names its index)
 * and FLOPSPACK_OUT_OF_RANGE for extra costs whose sum overflows a double. */
FLOPSPACK_API flopspack_status flopspack_plan_step_with_extra_costs(
    const flopspack_step_options* options, const flopspack_cost_model* model,
    const int64_t* lengths, const double* extra_costs, size_t n, flopspack_plan** out);

/* Multimodal documents: document i has text_tokens[i] text tokens and
 * images[i] images of patches_per_image[i] patches each. Writes
 * out_tokens[i] = text + images x patches (the tokens the language model
 * sees: pass them as lengths) and out_extra_costs[i] = images x the
 * encoder's document cost of patches_per_image[i] (pass them as
 * extra_costs). The encoder is any cost model: typically
 * flopspack_cost_model_transformer with causal = 0 and vocab_size = 0
 * (a ViT), or one fitted to measured encoder times. Outputs are written
 * only on success. Errors: FLOPSPACK_INVALID_ARGUMENT (a negative count,
 * images without patches, a document with no tokens at all; the message
 * names the document), FLOPSPACK_OUT_OF_RANGE (tokens over int64, costs
 * over a double), FLOPSPACK_CALLBACK_FAILED (a custom encoder failed). */
FLOPSPACK_API flopspack_status flopspack_multimodal_costs(
    const flopspack_cost_model* encoder, const int64_t* text_tokens, const int64_t* images,
    const int64_t* patches_per_image, size_t n, int64_t* out_tokens, double* out_extra_costs);

/* flopspack_pack where a sequence costs the model's cost of its tokens (or
 * its tokens, without a model) plus the extra costs of the documents in it:
 * a split or truncated document's pieces carry extra_costs[i] in proportion
 * to their tokens. Placement is by tokens (capacity is a token limit), so
 * the extra costs change the sequence costs and cost metrics, never which
 * document goes where. extra_costs NULL = none: the same plan as
 * flopspack_pack, bit for bit. flopspack_balance takes arbitrary costs
 * already: add the extra costs to the costs passed there (docs/multimodal.md).
 * Errors: those of flopspack_pack, plus FLOPSPACK_INVALID_ARGUMENT for a
 * negative, NaN or infinite extra cost (the message names its index) and
 * FLOPSPACK_OUT_OF_RANGE for costs whose sum overflows a double. */
FLOPSPACK_API flopspack_status
flopspack_pack_with_extra_costs(const flopspack_pack_options* options, const int64_t* lengths,
                                const double* extra_costs, size_t n, flopspack_plan** out);

/* flopspack_simulate where document i costs the model's cost of its tokens
 * plus extra_costs[i] (docs/straggler-emulator.md, Extra costs): every
 * piece a policy makes of a document (cut by concatenate-and-cut, at the
 * cap, or truncated by the bucket sampler) carries its extra cost in
 * proportion to its tokens, the PLANNER_* policies plan with
 * flopspack_plan_step_with_extra_costs, and under context parallelism a
 * microbatch's extra cost is shared evenly by its CP ranks. The documents
 * drawn per step are those of flopspack_simulate; extra_costs NULL = none:
 * the same result, bit for bit. Errors: those of flopspack_simulate, plus
 * FLOPSPACK_INVALID_ARGUMENT for a negative, NaN or infinite extra cost
 * (the message names its index) and FLOPSPACK_OUT_OF_RANGE for extra costs
 * whose sum overflows a double. */
FLOPSPACK_API flopspack_status flopspack_simulate_with_extra_costs(
    const int64_t* lengths, const double* extra_costs, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, flopspack_simulate_result** out);

/* flopspack_simulate_sweep with per-document extra costs, as
 * flopspack_simulate_with_extra_costs (NULL = none: bit for bit the plain
 * sweep). */
FLOPSPACK_API flopspack_status flopspack_simulate_sweep_with_extra_costs(
    const int64_t* lengths, const double* extra_costs, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, const uint64_t* rank_counts, size_t num_counts,
    double* sampled_efficiency, double* predicted_efficiency, double* relative_throughput);

/* ---- Planning step after step with kept storage (issue 19) ------------- */

/* A step context keeps the step planner's working storage, and the arrays
 * of the plans it made once they are destroyed, between calls (as zstd's
 * ZSTD_CCtx keeps its workspace): a training loop that plans every step in
 * one context stops asking the allocator for fresh pages, so its calls cost
 * the same from the first to the last. Plans are bit for bit those of
 * flopspack_plan_step. Used by one thread at a time; its plans may be read
 * and destroyed on any thread, before or after the context. */
typedef struct flopspack_step_context flopspack_step_context;

/* An empty context. Errors: FLOPSPACK_INVALID_ARGUMENT (out NULL). */
FLOPSPACK_API flopspack_status flopspack_step_context_create(flopspack_step_context** out);

/* Sizes the context for steps of up to `documents` documents under these
 * options and model, by planning one representative step (assorted lengths
 * up to the cap, filling about 97% of num_ranks x microbatches_per_rank x cap, or
 * a quarter of the cap each when microbatches_per_rank is 0) and keeping
 * its storage: even the first flopspack_plan_step_in_context then finds its
 * memory in place. Errors: those of flopspack_plan_step for these options
 * and model; FLOPSPACK_OUT_OF_RANGE for more than 2^31 - 1 documents. */
FLOPSPACK_API flopspack_status flopspack_step_context_reserve(flopspack_step_context* context,
                                                              const flopspack_step_options* options,
                                                              const flopspack_cost_model* model,
                                                              size_t documents);

/* flopspack_plan_step (same arguments, errors and plan, bit for bit) with
 * its working storage from the context. The plan is an ordinary plan:
 * destroying it (flopspack_plan_destroy) gives its arrays back to the
 * context for the next call, so destroy the previous step's plan before
 * planning the next one to reuse them. */
FLOPSPACK_API flopspack_status flopspack_plan_step_in_context(flopspack_step_context* context,
                                                              const flopspack_step_options* options,
                                                              const flopspack_cost_model* model,
                                                              const int64_t* lengths, size_t n,
                                                              flopspack_plan** out);

/* Bytes of storage the context holds for reuse now (0 for NULL). */
FLOPSPACK_API size_t flopspack_step_context_kept_bytes(const flopspack_step_context* context);

/* Frees the context (NULL is a no-op); plans it made stay valid. */
FLOPSPACK_API void flopspack_step_context_destroy(flopspack_step_context* context);

/* ---- The stateful planner with extra costs (issue 16) ----------------- */

/* flopspack_step_planner_push where document i also carries extra_costs[i],
 * added to the model's cost of its tokens as in
 * flopspack_plan_step_with_extra_costs; a document keeps it while it waits,
 * and through save and restore. extra_costs NULL = none: exactly
 * flopspack_step_planner_push. A step whose documents carry extra costs is
 * planned as flopspack_plan_step_with_extra_costs plans them (documents
 * pushed without count 0; pieces of a split document share its extra cost
 * in proportion to their tokens); steps still take documents by tokens.
 * Errors: those of flopspack_step_planner_push, plus
 * FLOPSPACK_INVALID_ARGUMENT for a negative, NaN or infinite extra cost
 * (the message names its index) and FLOPSPACK_OUT_OF_RANGE for extra costs
 * whose sum overflows a double; on any error nothing is queued. */
FLOPSPACK_API flopspack_status flopspack_step_planner_push_with_extra_costs(
    flopspack_step_planner* planner, const int64_t* lengths, const double* extra_costs, size_t n,
    int64_t* first_id);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FLOPSPACK_FLOPSPACK_H_ */
