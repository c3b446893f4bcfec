/* The bracket scan of core/jsonx/jsonscan.py in C: optional (the numpy scan is used when this is not built).

   scan(data, start, stop, state, positions, opens) -> (count, state)
   Writes the offset of every `{ [ ] }` of data[start:stop] that is outside a string into `positions` (int64)
   and 1 or 0 (opens or closes) into `opens` (uint8); both must hold stop - start items. `state` carries a
   scan across calls: bit 0 inside a string, bit 1 after an odd run of backslashes. The rules are the numpy
   scan's own, to give the same answer on any bytes (valid JSON or not): a quote after an odd run of
   backslashes does not open or close a string, and the brackets between an odd number of such quotes are
   inside one. The loop runs without the GIL: the window's thread runs while a big file is scanned. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static unsigned char plain_in_string[256], plain_outside[256];

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer data, positions, opens;
    Py_ssize_t start, stop;
    int state;
    if (!PyArg_ParseTuple(args, "y*nniw*w*", &data, &start, &stop, &state, &positions, &opens))
        return NULL;
    PyObject *result = NULL;
    if (start < 0 || stop > data.len || start > stop) {
        PyErr_SetString(PyExc_ValueError, "scan: start and stop must lie within the data");
    } else if (positions.len < (Py_ssize_t)((stop - start) * sizeof(int64_t)) || opens.len < stop - start) {
        PyErr_SetString(PyExc_ValueError, "scan: the output buffers are too small");
    } else {
        const unsigned char *bytes = (const unsigned char *)data.buf;
        int64_t *out = (int64_t *)positions.buf;
        unsigned char *open_out = (unsigned char *)opens.buf;
        Py_ssize_t count = 0;
        int in_string = state & 1, escaped = (state >> 1) & 1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = start; i < stop; i++) {
            /* Most bytes are plain: skip them by table (a string's text, a number, a key). */
            const unsigned char *plain = in_string ? plain_in_string : plain_outside;
            if (!escaped)
                while (i < stop && plain[bytes[i]]) i++;
            if (i == stop) break;
            unsigned char c = bytes[i];
            if (c == '\\') {
                escaped = !escaped;
                continue;
            }
            if (c == '"') {
                if (!escaped) in_string = !in_string;
            } else if (!in_string) {
                unsigned char folded = c & 0xDF; /* '{' -> '[', '}' -> ']' */
                if (folded == '[' || folded == ']') {
                    out[count] = i;
                    open_out[count] = folded == '[';
                    count++;
                }
            }
            escaped = 0;
        }
        Py_END_ALLOW_THREADS
        result = Py_BuildValue("ni", count, in_string | (escaped << 1));
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&positions);
    PyBuffer_Release(&opens);
    return result;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "The brackets outside strings of data[start:stop] (see the file's comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "brackets_c", NULL, -1, methods};

PyMODINIT_FUNC PyInit_brackets_c(void) {
    for (int c = 0; c < 256; c++) {
        plain_in_string[c] = c != '"' && c != '\\';
        plain_outside[c] = plain_in_string[c] && (c & 0xDF) != '[' && (c & 0xDF) != ']';
    }
    return PyModule_Create(&module);
}
