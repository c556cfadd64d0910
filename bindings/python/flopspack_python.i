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

%{
/* status -> exception class, filled by flopspack/_errors.py at import. */
static PyObject* flopspack_py_error_classes = NULL;
/* A Python exception raised inside a cost callback, chained as __cause__. */
static thread_local PyObject* flopspack_py_callback_error = NULL;

static void flopspack_py_raise(flopspack_status status) {
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
  /* A read-only view of the library's array, valid during the call only. */
  PyObject* view = PyArray_New(&PyArray_Type, 1, dims, NPY_INT64, NULL, (void*)lengths, 0,
                               NPY_ARRAY_C_CONTIGUOUS, NULL);
  if (view != NULL) {
    PyObject* result = PyObject_CallFunctionObjArgs((PyObject*)user_data, view, NULL);
    if (result != NULL) {
      double cost = PyFloat_AsDouble(result);
      if (!(cost == -1.0 && PyErr_Occurred())) {
        *out_cost = cost;
        rc = 0;
      }
      Py_DECREF(result);
    }
    Py_DECREF(view);
  }
  if (rc != 0) {
    /* Keep the Python exception to chain it to the library's error. */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (value != NULL && traceback != NULL) PyException_SetTraceback(value, traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    Py_XDECREF(flopspack_py_callback_error);
    flopspack_py_callback_error = value;
  }
  PyGILState_Release(gil);
  return rc;
}
%}

%inline %{
/* flopspack_cost_model_custom with a Python callable(lengths: ndarray) -> float.
 * The caller (flopspack.CostModel) keeps `fn` alive as long as the model. */
flopspack_status flopspack_py_cost_model_custom(PyObject* fn, flopspack_cost_model** out) {
  if (!PyCallable_Check(fn)) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "fn must be callable");
  }
  return flopspack_cost_model_custom(flopspack_py_cost_trampoline, fn, out);
}
%}


/* ---- Simulation progress: a Python callable(done, total) behind a C
 * trampoline; returning False (or raising) cancels the simulation. ---- */
%{
static int flopspack_py_progress_trampoline(void* user_data, uint64_t done, uint64_t total) {
  PyGILState_STATE gil = PyGILState_Ensure();
  int stop = 1;
  PyObject* result = PyObject_CallFunction((PyObject*)user_data, "KK",
                                           (unsigned long long)done, (unsigned long long)total);
  if (result != NULL) {
    stop = (result == Py_False) ? 1 : 0;
    Py_DECREF(result);
  } else {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (value != NULL && traceback != NULL) PyException_SetTraceback(value, traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    Py_XDECREF(flopspack_py_callback_error);
    flopspack_py_callback_error = value;
  }
  PyGILState_Release(gil);
  return stop;
}

static flopspack_status flopspack_py_progress_options(const flopspack_simulate_options* options,
                                                      PyObject* progress,
                                                      flopspack_simulate_options* copy) {
  if (options == NULL) {
    return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  }
  *copy = *options;
  if (progress != Py_None) {
    if (!PyCallable_Check(progress)) {
      return flopspack_swig_fail(FLOPSPACK_INVALID_ARGUMENT, "progress must be callable or None");
    }
    copy->progress = flopspack_py_progress_trampoline;
    copy->progress_user_data = progress;
  }
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
  if (flopspack_status s = flopspack_py_progress_options(options, progress, &copy)) return s;
  return flopspack_simulate(lengths, n, model, &copy, out);
}

/* flopspack_swig_simulate_sweep with an optional progress callable. */
flopspack_status flopspack_py_simulate_sweep(
    const int64_t* lengths, size_t n, const flopspack_cost_model* model,
    const flopspack_simulate_options* options, PyObject* progress, const uint64_t* rank_counts,
    size_t num_rank_counts, double* out_sampled, size_t num_out_sampled, double* out_predicted,
    size_t num_out_predicted, double* out_relative, size_t num_out_relative) {
  flopspack_simulate_options copy;
  if (flopspack_status s = flopspack_py_progress_options(options, progress, &copy)) return s;
  return flopspack_swig_simulate_sweep(lengths, n, model, &copy, rank_counts, num_rank_counts,
                                       out_sampled, num_out_sampled, out_predicted,
                                       num_out_predicted, out_relative, num_out_relative);
}
%}
