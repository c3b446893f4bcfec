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

   Why: a pass over a long run's 136,000 typed events in Python took 35-65 ms, most of it the interpreter's own
   work around two dict lookups; here it is the lookups. The caller breathes between pieces (core/breathing.py).
   Keys are exact strs, so no lookup runs Python code (a JSON object's keys are always strs). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *empty; /* "" */

/* items[start:stop] of a list, clamped as a slice is. */
static void clamp(PyObject *items, Py_ssize_t *start, Py_ssize_t *stop) {
    Py_ssize_t n = PyList_GET_SIZE(items);
    if (*start < 0) *start = 0;
    if (*stop > n) *stop = n;
    if (*stop < *start) *stop = *start;
}

/* The value at `key` of `d` if it is a dict (borrowed), NULL if none; -1 in *failed on an error. */
static PyObject *lookup(PyObject *d, PyObject *key, int *failed) {
    if (!PyDict_Check(d)) return NULL;
    PyObject *value = PyDict_GetItemWithError(d, key);
    if (value == NULL && PyErr_Occurred()) *failed = 1;
    return value;
}

static PyObject *texts(PyObject *self, PyObject *args) {
    PyObject *items, *key, *inner = NULL;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnU|U", &PyList_Type, &items, &start, &stop, &key, &inner)) return NULL;
    clamp(items, &start, &stop);
    PyObject *out = PyList_New(stop - start);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = start; i < stop; i++) {
        int failed = 0;
        PyObject *value = lookup(PyList_GET_ITEM(items, i), key, &failed);
        if (value != NULL && inner != NULL) value = lookup(value, inner, &failed);
        if (failed) {
            Py_DECREF(out);
            return NULL;
        }
        if (value == NULL || !PyUnicode_Check(value)) value = empty;
        Py_INCREF(value);
        PyList_SET_ITEM(out, i - start, value);
    }
    return out;
}

static PyObject *index_types(PyObject *self, PyObject *args) {
    PyObject *items, *key, *by_value;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnUO!", &PyList_Type, &items, &start, &stop, &key, &PyDict_Type, &by_value))
        return NULL;
    clamp(items, &start, &stop);
    for (Py_ssize_t i = start; i < stop; i++) {
        int failed = 0;
        PyObject *value = lookup(PyList_GET_ITEM(items, i), key, &failed);
        if (failed) return NULL;
        if (value == NULL || !PyUnicode_Check(value)) continue;
        PyObject *found = PyDict_GetItemWithError(by_value, value); /* borrowed: the dict holds it */
        if (found == NULL) {
            if (PyErr_Occurred()) return NULL;
            found = PyList_New(0);
            if (found == NULL) return NULL;
            int stored = PyDict_SetItem(by_value, value, found);
            Py_DECREF(found);
            if (stored < 0) return NULL;
        }
        PyObject *index = PyLong_FromSsize_t(i);
        if (index == NULL) return NULL;
        int appended = PyList_Append(found, index);
        Py_DECREF(index);
        if (appended < 0) return NULL;
    }
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

static PyObject *share_lists(PyObject *self, PyObject *args) {
    PyObject *items, *key, *shared;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnUO!", &PyList_Type, &items, &start, &stop, &key, &PyDict_Type, &shared))
        return NULL;
    clamp(items, &start, &stop);
    for (Py_ssize_t i = start; i < stop; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyDict_CheckExact(item)) continue;
        PyObject *value = PyDict_GetItemWithError(item, key); /* borrowed */
        if (value == NULL) {
            if (PyErr_Occurred()) return NULL;
            continue;
        }
        if (!PyList_CheckExact(value)) continue;
        Py_INCREF(value); /* (held while the item's own reference may be replaced) */
        PyObject *path = PyList_AsTuple(value);
        if (path == NULL) {
            Py_DECREF(value);
            return NULL;
        }
        PyObject *kept = PyDict_SetDefault(shared, path, value); /* borrowed */
        Py_DECREF(path);
        if (kept == NULL) {
            Py_DECREF(value);
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
            PyErr_Clear(); /* unhashable: left as it is */
            continue;
        }
        if (kept != value && PyDict_SetItem(item, key, kept) < 0) {
            Py_DECREF(value);
            return NULL;
        }
        Py_DECREF(value);
    }
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
    return PyModule_Create(&module);
}
