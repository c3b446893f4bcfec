/* Per-event fields of many parsed JSON objects, read in C: optional (core/jsonx/fields.py's Python loops are
   used when this is not built).

   texts(items, start, stop, key[, inner]) -> list of str
       For each of items[start:stop] (a list): its `key` (with `inner`: that value's `inner`) when the item (and
       the value) is a dict and what is found is a str, else "". (The axis's runtimeStageIds.)
   index_types(items, start, stop, key, by_value) -> None
       For each of items[start:stop] that is a dict whose `key` is a str: its index appended to
       by_value[that str], a list made on the first one. (The typed events of each type.)

   pick(codes, start, stop, first, second) -> list
       For each of codes[start:stop] (a buffer of int64, an array('q')): first[code] when code >= 0, else
       second[-1 - code] (the axis's merge of its DomainEvents' and typed events' values, core/model/axis.py);
       IndexError when a code points past its list.

   share_lists(items, start, stop, key, shared) -> None
       For each of items[start:stop] that is a dict (exactly) whose `key` is a list (exactly): the value replaced
       by shared.setdefault(tuple(value), value), so that equal lists are one list; a list holding something
       unhashable is left as it is. (A Trace's subflowPath lists, core/formats/lazy_trace.py.)

   Why: in Python a pass paid the interpreter's work around its two dict lookups an item; here it is the lookups.
   The caller breathes between pieces (core/breathing.py).

   A lookup can run Python code (a key's __eq__ or __hash__ when a dict holds a key that is not a str), and that
   code can change the list or the dicts: each loop reads a snapshot of items[start:stop] and holds a reference to
   every object it works on, so what it reads is what the list held when called and nothing is read after it is
   freed. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef SOURCE_SHA256 /* the sha256 of this file, given by setup.py: core/compiled.py refuses a module built from
                         another version of its source */
#define SOURCE_SHA256 ""
#endif

static PyObject *empty; /* "" */

/* The value at `key` of `d` if it is a dict (a new reference), NULL if none; 1 in *failed on an error. */
static PyObject *lookup(PyObject *d, PyObject *key, int *failed) {
    if (!PyDict_Check(d)) return NULL;
    PyObject *value = PyDict_GetItemWithError(d, key);
    if (value == NULL && PyErr_Occurred()) *failed = 1;
    Py_XINCREF(value);
    return value;
}

static PyObject *texts(PyObject *self, PyObject *args) {
    PyObject *items, *key, *inner = NULL;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnU|U", &PyList_Type, &items, &start, &stop, &key, &inner)) return NULL;
    PyObject *held = PyList_GetSlice(items, start, stop); /* a snapshot (clamped as a slice is) */
    if (held == NULL) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(held);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(held);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int failed = 0;
        PyObject *value = lookup(PyList_GET_ITEM(held, i), key, &failed);
        if (value != NULL && inner != NULL) {
            PyObject *outer = value;
            value = lookup(outer, inner, &failed);
            Py_DECREF(outer);
        }
        if (failed) {
            Py_XDECREF(value);
            Py_DECREF(out);
            Py_DECREF(held);
            return NULL;
        }
        if (value == NULL || !PyUnicode_Check(value)) {
            Py_XDECREF(value);
            value = empty;
            Py_INCREF(value);
        }
        PyList_SET_ITEM(out, i, value); /* (takes the reference) */
    }
    Py_DECREF(held);
    return out;
}

/* Appends `index` to by_value[value], a list made on the first one; -1 on an error. */
static int append_index(PyObject *by_value, PyObject *value, Py_ssize_t index) {
    PyObject *found = PyDict_GetItemWithError(by_value, value);
    if (found != NULL) {
        Py_INCREF(found);
    } else {
        if (PyErr_Occurred()) return -1;
        found = PyList_New(0);
        if (found == NULL) return -1;
        if (PyDict_SetItem(by_value, value, found) < 0) {
            Py_DECREF(found);
            return -1;
        }
    }
    PyObject *number = PyLong_FromSsize_t(index);
    int appended = number == NULL ? -1 : PyList_Append(found, number);
    Py_XDECREF(number);
    Py_DECREF(found);
    return appended;
}

static PyObject *index_types(PyObject *self, PyObject *args) {
    PyObject *items, *key, *by_value;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnUO!", &PyList_Type, &items, &start, &stop, &key, &PyDict_Type, &by_value))
        return NULL;
    if (start < 0) start = 0;
    PyObject *held = PyList_GetSlice(items, start, stop); /* a snapshot (clamped as a slice is) */
    if (held == NULL) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(held);
    for (Py_ssize_t i = 0; i < n; i++) {
        int failed = 0;
        PyObject *value = lookup(PyList_GET_ITEM(held, i), key, &failed);
        if (failed) {
            Py_DECREF(held);
            return NULL;
        }
        if (value == NULL) continue;
        int appended = PyUnicode_Check(value) ? append_index(by_value, value, start + i) : 0;
        Py_DECREF(value);
        if (appended < 0) {
            Py_DECREF(held);
            return NULL;
        }
    }
    Py_DECREF(held);
    Py_RETURN_NONE;
}

static PyObject *pick(PyObject *self, PyObject *args) {
    Py_buffer codes;
    Py_ssize_t start, stop;
    PyObject *first, *second;
    if (!PyArg_ParseTuple(args, "y*nnO!O!", &codes, &start, &stop, &PyList_Type, &first, &PyList_Type, &second))
        return NULL;
    if (codes.itemsize != 8 || codes.len % 8) {
        PyBuffer_Release(&codes);
        PyErr_SetString(PyExc_TypeError, "pick: codes are 64-bit integers");
        return NULL;
    }
    const long long *code = (const long long *)codes.buf;
    Py_ssize_t n = codes.len / 8;
    if (start < 0) start = 0;
    if (stop > n) stop = n;
    if (stop < start) stop = start;
    PyObject *out = PyList_New(stop - start);
    if (out == NULL) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    for (Py_ssize_t k = start; k < stop; k++) {
        long long c = code[k];
        PyObject *from = c >= 0 ? first : second;
        long long at = c >= 0 ? c : -1 - c;
        if (at >= PyList_GET_SIZE(from)) {
            Py_DECREF(out);
            PyBuffer_Release(&codes);
            PyErr_SetString(PyExc_IndexError, "pick: a code past its list");
            return NULL;
        }
        PyObject *value = PyList_GET_ITEM(from, (Py_ssize_t)at);
        Py_INCREF(value);
        PyList_SET_ITEM(out, k - start, value);
    }
    PyBuffer_Release(&codes);
    return out;
}

/* The dict `item`'s list at `key` replaced by shared.setdefault(tuple(list), list); -1 on an error. */
static int share_one(PyObject *item, PyObject *key, PyObject *shared) {
    int failed = 0;
    PyObject *value = lookup(item, key, &failed);
    if (value == NULL) return failed ? -1 : 0;
    int result = 0;
    if (PyList_CheckExact(value)) {
        PyObject *path = PyList_AsTuple(value);
        PyObject *kept = path == NULL ? NULL : PyDict_SetDefault(shared, path, value); /* borrowed */
        Py_XINCREF(kept);
        Py_XDECREF(path);
        if (kept == NULL) {
            result = -1;
            if (path != NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear(); /* unhashable: left as it is */
                result = 0;
            }
        } else {
            if (kept != value && PyDict_SetItem(item, key, kept) < 0) result = -1;
            Py_DECREF(kept);
        }
    }
    Py_DECREF(value);
    return result;
}

static PyObject *share_lists(PyObject *self, PyObject *args) {
    PyObject *items, *key, *shared;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnUO!", &PyList_Type, &items, &start, &stop, &key, &PyDict_Type, &shared))
        return NULL;
    PyObject *held = PyList_GetSlice(items, start, stop); /* a snapshot (clamped as a slice is) */
    if (held == NULL) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(held);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(held, i);
        if (PyDict_CheckExact(item) && share_one(item, key, shared) < 0) {
            Py_DECREF(held);
            return NULL;
        }
    }
    Py_DECREF(held);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"texts", texts, METH_VARARGS, "Each item's key (and inner key) when a str, else '' (the file's comment)."},
    {"index_types", index_types, METH_VARARGS, "The index of each item, by its key's str (the file's comment)."},
    {"pick", pick, METH_VARARGS, "first[code] or second[-1 - code] for each code (the file's comment)."},
    {"share_lists", share_lists, METH_VARARGS, "Equal lists at key made one list (the file's comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fields_c", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fields_c(void) {
    empty = PyUnicode_FromString("");
    if (empty == NULL) return NULL;
    PyObject *made = PyModule_Create(&module);
    if (made != NULL && PyModule_AddStringConstant(made, "source_sha256", SOURCE_SHA256) < 0) Py_CLEAR(made);
    return made;
}
