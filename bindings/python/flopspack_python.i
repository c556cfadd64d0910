/* flopspack_python.i — Python typemaps for bindings/swig/flopspack.i.
 *
 * Builds the internal extension module flopspack.capi (named without a
 * leading underscore: a `__name` inside SWIG's proxy classes would be
 * mangled by Python); users import the
 * idiomatic package `flopspack` (bindings/python/flopspack/) instead.
 * Arrays travel through numpy.i: a C-contiguous array of the right dtype is
 * passed to C as a pointer (no copy); anything else is converted once.
 */
%module(package="flopspack",
        moduledoc="Low-level SWIG layer of flopspack (internal); import flopspack instead.") capi

%{
#define SWIG_FILE_WITH_INIT
%}
%include "numpy.i"
%init %{
  import_array();
%}

%include <typemaps.i>

/* ---- Errors: flopspack_status -> the exception class registered for it
 * (flopspack_py_raise, defined below). ---- */

%typemap(out, noblock=1) flopspack_status {
  if ($1 != FLOPSPACK_OK) {
    flopspack_py_raise($1);
    SWIG_fail;
  }
  if (flopspack_py_settle_after_success()) SWIG_fail;
  $result = SWIG_Py_Void();
}


/* ---- Arrays: numpy.i, with size_t sizes. ---- */
%numpy_typemaps(int64_t, NPY_INT64, size_t)
%numpy_typemaps(double, NPY_DOUBLE, size_t)
%numpy_typemaps(size_t, NPY_UINTP, size_t)
%numpy_typemaps(unsigned char, NPY_UBYTE, size_t)
%apply (int64_t* IN_ARRAY1, size_t DIM1) { (const int64_t* LENGTHS, size_t N) };
%apply (double* IN_ARRAY1, size_t DIM1) { (const double* VALUES, size_t N) };
%apply (size_t* IN_ARRAY1, size_t DIM1) { (const size_t* OFFSETS, size_t N) };
%apply (double* INPLACE_ARRAY1, size_t DIM1) { (double* OUT_VALUES, size_t N) };
%apply (unsigned char* IN_ARRAY1, size_t DIM1) { (const unsigned char* BYTES, size_t N) };
%apply (unsigned char* INPLACE_ARRAY1, size_t DIM1) { (unsigned char* OUT_BYTES, size_t N) };
%apply (int64_t* INPLACE_ARRAY1, size_t DIM1) { (int64_t* OUT_INT64S, size_t N) };
%apply (size_t* INPLACE_ARRAY1, size_t DIM1) { (uint64_t* OUT_UINT64S, size_t N) };

/* A borrowed view, copied into a new numpy array (the plan may die first). */
%typemap(in, numinputs=0, noblock=1) (const int64_t** VIEW, size_t* N)
    (const int64_t* view = NULL, size_t count = 0) {
  $1 = ($1_ltype)&view;
  $2 = &count;
}
%typemap(argout, noblock=1) (const int64_t** VIEW, size_t* N) {
  {
    npy_intp dims[1] = {(npy_intp)count$argnum};
    PyObject* array = PyArray_SimpleNew(1, dims, NPY_INT64);
    if (array == NULL) SWIG_fail;
    if (count$argnum > 0) {
      memcpy(PyArray_DATA((PyArrayObject*)array), view$argnum, count$argnum * sizeof(int64_t));
    }
    $result = SWIG_Python_AppendOutput($result, array);
  }
}

/* ---- Scalars out. ---- */
%apply double* OUTPUT { double* OUT_DOUBLE };
%apply int* OUTPUT { int* OUT_INT };
%apply unsigned long* OUTPUT { size_t* OUT_SIZE };
%apply long* OUTPUT { int64_t* OUT_INT64 };
%apply unsigned long* OUTPUT { uint64_t* OUT_UINT64 };

/* ---- Handles out: a new owning proxy (destroyed once, by its destructor). ---- */
%typemap(in, numinputs=0, noblock=1) SWIGTYPE** OUT_HANDLE ($*1_ltype handle = NULL) {
  $1 = &handle;
}
%typemap(argout, noblock=1) SWIGTYPE** OUT_HANDLE {
  $result = SWIG_Python_AppendOutput(
      $result, SWIG_NewPointerObj(SWIG_as_voidptr(handle$argnum), $*1_descriptor, SWIG_POINTER_OWN));
}

/* ---- Output structs: allocated here with struct_size set, returned owned. ---- */
%typemap(in, numinputs=0, noblock=1) SWIGTYPE* OUT_STRUCT {
  $1 = ($1_ltype)calloc(1, sizeof(*$1));
  if ($1 == NULL) SWIG_exception_fail(SWIG_MemoryError, "out of memory");
  $1->struct_size = (uint32_t)sizeof(*$1);
}
%typemap(argout, noblock=1) SWIGTYPE* OUT_STRUCT {
  $result = SWIG_Python_AppendOutput($result,
                                     SWIG_NewPointerObj(SWIG_as_voidptr($1), $1_descriptor, SWIG_POINTER_OWN));
  $1 = NULL; /* owned by the proxy now */
}
%typemap(freearg, noblock=1) SWIGTYPE* OUT_STRUCT { free($1); }

%include "../swig/flopspack.i"

/* ---- Python-only helpers (after the common file: they use its helpers). ---- */
FLOPSPACK_WRAP(flopspack_py_set_error_classes)
FLOPSPACK_WRAP(flopspack_py_cost_model_custom)
FLOPSPACK_WRAP(flopspack_py_simulate)
FLOPSPACK_WRAP(flopspack_py_simulate_sweep)
FLOPSPACK_WRAP(flopspack_py_simulate_with_extra_costs)
FLOPSPACK_WRAP(flopspack_py_simulate_sweep_with_extra_costs)

%{
/* status -> exception class, filled by flopspack/_errors.py at import. */
static PyObject* flopspack_py_error_classes = NULL;
/* A Python exception raised inside a cost callback, chained as __cause__. */
static thread_local PyObject* flopspack_py_callback_error = NULL;

/* After a call that succeeded: drops an exception a callback raised that the
 * call recovered from (so it is never chained to a later, unrelated
 * failure), but raises KeyboardInterrupt, SystemExit and other
 * BaseExceptions all the same. Returns 1 if a Python exception is now set. */
static int flopspack_py_settle_after_success(void) {
  PyObject* pending = flopspack_py_callback_error;
  if (pending == NULL) return 0;
  flopspack_py_callback_error = NULL;
  int raised = 0;
  if (!PyObject_IsInstance(pending, PyExc_Exception)) {
    PyErr_SetObject((PyObject*)Py_TYPE(pending), pending);
    raised = 1;
  }
  Py_DECREF(pending);
  return raised;
}

/* Stores the exception a callback raised (the GIL is held), to be chained to
 * the library's error or re-raised when the C call returns. */
static void flopspack_py_keep_callback_error(void) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (value != NULL && traceback != NULL) PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  Py_XDECREF(flopspack_py_callback_error);
  flopspack_py_callback_error = value;
}

static void flopspack_py_raise(flopspack_status status) {
  PyObject* pending = flopspack_py_callback_error;
  if (pending != NULL && !PyObject_IsInstance(pending, PyExc_Exception)) {
    /* KeyboardInterrupt, SystemExit...: what stopped the callback is what the
     * caller must see, not a flopspack error (an Exception) that a plain
     * `except Exception:` would swallow. */
    flopspack_py_callback_error = NULL;
    PyErr_SetObject((PyObject*)Py_TYPE(pending), pending);
    Py_DECREF(pending);
    return;
  }
  const char* message = flopspack_swig_error_message();
  PyObject* cls = NULL;
  if (flopspack_py_error_classes != NULL) {
    PyObject* key = PyLong_FromLong((long)status);
    cls = key ? PyDict_GetItem(flopspack_py_error_classes, key) : NULL; /* borrowed */
    Py_XDECREF(key);
  }
  if (cls == NULL) cls = PyExc_RuntimeError;
  PyObject* error = PyObject_CallFunction(cls, "si", message, (int)status);
  if (error == NULL) return; /* the constructor's own exception stays set */
  if (flopspack_py_callback_error != NULL) {
    PyException_SetCause(error, flopspack_py_callback_error); /* steals */
    flopspack_py_callback_error = NULL;
  }
  PyErr_SetObject((PyObject*)Py_TYPE(error), error);
  Py_DECREF(error);
}
%}

%inline %{
/* Registers {status: exception class}; called once by flopspack/_errors.py. */
void flopspack_py_set_error_classes(PyObject* classes) {
  Py_XINCREF(classes);
  Py_XDECREF(flopspack_py_error_classes);
  flopspack_py_error_classes = classes;
}
%}

/* ---- Custom cost models: a Python callable behind a C trampoline. ---- */
%{
static int flopspack_py_cost_trampoline(void* user_data, const int64_t* lengths, size_t n,
                                        double* out_cost) {
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc = 1;
  npy_intp dims[1] = {(npy_intp)n};
  /* A copy the callable owns: the library's array is valid during the call
   * only, and a callable may keep what it is given (issue 21). */
  PyObject* lengths_copy = PyArray_SimpleNew(1, dims, NPY_INT64);
  if (lengths_copy != NULL) {
    if (n > 0) {
      memcpy(PyArray_DATA((PyArrayObject*)lengths_copy), lengths, n * sizeof(int64_t));
    }
    /* Read-only all the same: writing to it could not change the library's input. */
    PyArray_CLEARFLAGS((PyArrayObject*)lengths_copy, NPY_ARRAY_WRITEABLE);
    PyObject* result = PyObject_CallFunctionObjArgs((PyObject*)user_data, lengths_copy, NULL);
    if (result != NULL) {
      double cost = PyFloat_AsDouble(result);
      if (!(cost == -1.0 && PyErr_Occurred())) {
        *out_cost = cost;
        rc = 0;
      }
      Py_DECREF(result);
    }
    Py_DECREF(lengths_copy);
  }
  if (rc != 0) flopspack_py_keep_callback_error();
  PyGILState_Release(gil);
  return rc;
}

/* PyCallable_Check under the GIL (SWIG's -threads wrappers release it
 * before calling the helpers below). */
static bool flopspack_py_callable(PyObject* fn) {
  PyGILState_STATE gil = PyGILState_Ensure();
  bool callable = PyCallable_Check(fn) != 0;
  PyGILState_Release(gil);
  return callable;
}
%}

%inline %{
/* flopspack_cost_model_custom with a Python callable(lengths: ndarray) -> float.
 * The caller (flopspack.CostModel) keeps `fn` alive as long as the model. */
flopspack_status flopspack_py_cost_model_custom(PyObject* fn, flopspack_cost_model** out) {
  if (!flopspack_py_callable(fn)) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "fn must be callable");
  }
  return flopspack_cost_model_custom(flopspack_py_cost_trampoline, fn, out);
}
%}


/* ---- Simulation progress. The trampoline is always installed: it checks
 * for pending signals (Ctrl-C) so that a long simulation stops promptly
 * with KeyboardInterrupt, then calls the Python callable(done, total), if
 * any; returning False (or raising) cancels the simulation. Without a
 * callable the GIL is taken at most every FLOPSPACK_PY_SIGNAL_CHECK_MS, so
 * other Python threads keep running at full speed. ---- */
%{
#include <chrono>

#define FLOPSPACK_PY_SIGNAL_CHECK_MS 20

struct flopspack_py_progress_state {
  PyObject* fn; /* NULL: signal checks only */
  std::chrono::steady_clock::time_point next_signal_check;
};

static int flopspack_py_progress_trampoline(void* user_data, uint64_t done, uint64_t total) {
  flopspack_py_progress_state* state = (flopspack_py_progress_state*)user_data;
  if (state->fn == NULL) {
    std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
    if (now < state->next_signal_check) return 0;
    state->next_signal_check = now + std::chrono::milliseconds(FLOPSPACK_PY_SIGNAL_CHECK_MS);
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  int stop = 0;
  /* Runs the signal handlers on the main thread (a no-op elsewhere: there
   * the main thread runs them itself); Ctrl-C raises KeyboardInterrupt. */
  if (PyErr_CheckSignals() != 0) {
    stop = 1;
  } else if (state->fn != NULL) {
    PyObject* result = PyObject_CallFunction(state->fn, "KK", (unsigned long long)done,
                                             (unsigned long long)total);
    if (result != NULL) {
      stop = (result == Py_False) ? 1 : 0;
      Py_DECREF(result);
    } else {
      stop = 1;
    }
  }
  if (stop && PyErr_Occurred()) flopspack_py_keep_callback_error();
  PyGILState_Release(gil);
  return stop;
}

static flopspack_status flopspack_py_progress_options(const flopspack_simulate_options* options,
                                                      PyObject* progress,
                                                      flopspack_py_progress_state* state,
                                                      flopspack_simulate_options* copy) {
  if (options == NULL) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  }
  if (progress != Py_None && !flopspack_py_callable(progress)) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "progress must be callable or None");
  }
  *copy = *options;
  state->fn = progress != Py_None ? progress : NULL;
  state->next_signal_check = std::chrono::steady_clock::now();
  copy->progress = flopspack_py_progress_trampoline;
  copy->progress_user_data = state;
  return FLOPSPACK_OK;
}
%}
%inline %{
/* flopspack_simulate with an optional progress callable (None = none). */
flopspack_status flopspack_py_simulate(const int64_t* lengths, size_t n,
                                       const flopspack_cost_model* model,
                                       const flopspack_simulate_options* options,
                                       PyObject* progress, flopspack_simulate_result** out) {
  flopspack_simulate_options copy;
  flopspack_py_progress_state state;
  if (flopspack_status s = flopspack_py_progress_options(options, progress, &state, &copy)) {
    return s;
  }
  return flopspack_simulate(lengths, n, model, &copy, out);
}

/* flopspack_swig_simulate_sweep with an optional progress callable. */
flopspack_status flopspack_py_simulate_sweep(
    const int64_t* lengths, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, PyObject* progress, const uint64_t* rank_counts,
    size_t num_rank_counts, double* out_sampled, size_t num_out_sampled, double* out_predicted,
    size_t num_out_predicted, double* out_relative, size_t num_out_relative) {
  flopspack_simulate_options copy;
  flopspack_py_progress_state state;
  if (flopspack_status s = flopspack_py_progress_options(options, progress, &state, &copy)) {
    return s;
  }
  return flopspack_swig_simulate_sweep(lengths, n, model, &copy, rank_counts, num_rank_counts,
                                       out_sampled, num_out_sampled, out_predicted,
                                       num_out_predicted, out_relative, num_out_relative);
}

/* flopspack_swig_simulate_with_extra_costs with an optional progress
 * callable (an empty extra_costs array = none). */
flopspack_status flopspack_py_simulate_with_extra_costs(
    const int64_t* lengths, size_t n, const double* extra_costs, size_t num_extra_costs,
    const flopspack_cost_model* model, const flopspack_simulate_options* options,
    PyObject* progress, flopspack_simulate_result** out) {
  flopspack_simulate_options copy;
  flopspack_py_progress_state state;
  if (flopspack_status s = flopspack_py_progress_options(options, progress, &state, &copy)) {
    return s;
  }
  return flopspack_swig_simulate_with_extra_costs(lengths, n, extra_costs, num_extra_costs, model,
                                                  &copy, out);
}

/* flopspack_swig_simulate_sweep_with_extra_costs with an optional progress
 * callable. */
flopspack_status flopspack_py_simulate_sweep_with_extra_costs(
    const int64_t* lengths, size_t n, const double* extra_costs, size_t num_extra_costs,
    const flopspack_cost_model* model, const flopspack_simulate_options* options,
    PyObject* progress, const uint64_t* rank_counts, size_t num_rank_counts, double* out_sampled,
    size_t num_out_sampled, double* out_predicted, size_t num_out_predicted, double* out_relative,
    size_t num_out_relative) {
  flopspack_simulate_options copy;
  flopspack_py_progress_state state;
  if (flopspack_status s = flopspack_py_progress_options(options, progress, &state, &copy)) {
    return s;
  }
  return flopspack_swig_simulate_sweep_with_extra_costs(
      lengths, n, extra_costs, num_extra_costs, model, &copy, rank_counts, num_rank_counts,
      out_sampled, num_out_sampled, out_predicted, num_out_predicted, out_relative,
      num_out_relative);
}
%}
