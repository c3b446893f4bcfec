/* The bracket scan of core/jsonx/jsonscan.py in C: optional (the numpy scan is used when this is not built).

   scan(data, start, stop, state, positions, opens) -> (count, state)
   Writes the offset of every `{ [ ] }` of data[start:stop] that is outside a string into `positions` (int64)
   and 1 or 0 (opens or closes) into `opens` (uint8); both must hold stop - start items. `state` carries a
   scan across calls: bit 0 inside a string, bit 1 after an odd run of backslashes. The rules are the numpy
   scan's own, to give the same answer on any bytes (valid JSON or not): a quote after an odd run of
   backslashes does not open or close a string, and the brackets between an odd number of such quotes are
   inside one. The loop runs without the GIL: the window's thread runs while a big file is scanned.

   scan_back(data, floor, start, stop, state, positions, opens) -> (count, state, low, zero_at)
   The same brackets of data[start:stop] found from its end down (positions written in descending order), for a
   text read backward (core/formats/recording_end.py). `state` is twice the count of brackets still open going
   down (closings minus openings since the scan began), plus 1 inside a string; a scan from a text's end starts
   at 0. The scan stops at the bracket where that count comes back to zero (`zero_at`, else
   -1): the first closing's partner. A quote is looked back from: the run of backslashes before it decides
   whether it counts. data[floor:start] must be read; a run that reaches `floor` (> 0: more bytes lie below,
   not read yet) stops the scan at that quote: data[low:stop] is done, the rest waits for more bytes. Where the
   number of quotes counted between two points is even, both directions put the same brackets outside strings.

   find_last(data, needle, start, stop) -> index or -1: data.rfind(needle, start, stop) without the GIL (an mmap's
   own rfind compares at every byte). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef SOURCE_SHA256 /* the sha256 of this file, given by setup.py: core/compiled.py refuses a module built from
                         another version of its source */
#define SOURCE_SHA256 ""
#endif

#include <stdint.h>
#include <string.h>

static unsigned char plain_in_string[256], plain_outside[256], plain_back[256];

/* The last quote of bytes[start..i], or -1. */
static Py_ssize_t last_quote(const unsigned char *bytes, Py_ssize_t start, Py_ssize_t i) {
#ifdef __GLIBC__
    const unsigned char *found = memrchr(bytes + start, '"', (size_t)(i - start + 1));
    return found ? found - bytes : -1;
#else
    while (i >= start && bytes[i] != '"') i--;
    return i >= start ? i : -1;
#endif
}

/* The output buffers hold `n` brackets; else a ValueError naming the function. */
static int outputs_hold(const Py_buffer *positions, const Py_buffer *opens, Py_ssize_t n, const char *name) {
    if (positions->len >= (Py_ssize_t)(n * sizeof(int64_t)) && opens->len >= n)
        return 1;
    PyErr_Format(PyExc_ValueError, "%s: the output buffers are too small", name);
    return 0;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer data, positions, opens;
    Py_ssize_t start, stop;
    int state;
    if (!PyArg_ParseTuple(args, "y*nniw*w*", &data, &start, &stop, &state, &positions, &opens))
        return NULL;
    PyObject *result = NULL;
    if (start < 0 || stop > data.len || start > stop) {
        PyErr_SetString(PyExc_ValueError, "scan: start and stop must lie within the data");
    } else if (outputs_hold(&positions, &opens, stop - start, "scan")) {
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

static PyObject *scan_back(PyObject *self, PyObject *args) {
    Py_buffer data, positions, opens;
    Py_ssize_t floor, start, stop, open_count;
    int in_string;
    if (!PyArg_ParseTuple(args, "y*nnnnw*w*", &data, &floor, &start, &stop, &open_count, &positions, &opens))
        return NULL;
    PyObject *result = NULL;
    if (floor < 0 || floor > start || start > stop || stop > data.len) {
        PyErr_SetString(PyExc_ValueError, "scan_back: floor, start and stop must lie within the data, in order");
    } else if (outputs_hold(&positions, &opens, stop - start, "scan_back")) {
        const unsigned char *bytes = (const unsigned char *)data.buf;
        int64_t *out = (int64_t *)positions.buf;
        unsigned char *open_out = (unsigned char *)opens.buf;
        Py_ssize_t count = 0, low = start, zero_at = -1;
        in_string = (int)(open_count & 1); /* (the state: twice the count, plus 1 inside a string) */
        open_count = (open_count - in_string) / 2;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = stop - 1; i >= start; i--) {
            /* Skip what cannot change anything: in a string all but a quote, outside one all but a quote or a
               bracket (backslashes count only when a quote is met: looking back from it). */
            if (in_string) {
                Py_ssize_t quote = last_quote(bytes, start, i);
                if (quote < 0) break;
                i = quote;
            } else {
                while (i >= start && plain_back[bytes[i]]) i--;
                if (i < start) break;
            }
            unsigned char c = bytes[i];
            if (c == '"') {
                Py_ssize_t j = i - 1;
                while (j >= floor && bytes[j] == '\\') j--;
                if (j < floor && floor > 0) {
                    low = i + 1; /* the run may go on below `floor` */
                    break;
                }
                if (((i - 1 - j) & 1) == 0) in_string = !in_string;
            } else if (!in_string) {
                int opening = (c & 0xDF) == '[';
                out[count] = i;
                open_out[count] = opening;
                count++;
                open_count += opening ? -1 : 1;
                if (open_count == 0) { /* the first closing's partner: nothing below it matters */
                    zero_at = i;
                    low = i;
                    break;
                }
            }
        }
        Py_END_ALLOW_THREADS
        result = Py_BuildValue("nnnn", count, open_count * 2 + in_string, low, zero_at);
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&positions);
    PyBuffer_Release(&opens);
    return result;
}

static PyObject *find_last(PyObject *self, PyObject *args) {
    Py_buffer data, needle;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "y*y*nn", &data, &needle, &start, &stop))
        return NULL;
    start = start < 0 ? 0 : start;
    stop = stop > data.len ? data.len : stop;
    Py_ssize_t found = -1;
    if (needle.len > 0 && stop - start >= needle.len) {
        const char *bytes = (const char *)data.buf, *sought = (const char *)needle.buf;
        Py_BEGIN_ALLOW_THREADS
#ifdef __GLIBC__
        const char *at = bytes + start, *end = bytes + stop, *hit;
        while ((hit = memmem(at, (size_t)(end - at), sought, (size_t)needle.len)) != NULL) {
            found = hit - bytes;
            at = hit + 1;
        }
#else
        for (Py_ssize_t i = stop - needle.len; i >= start; i--)
            if (memcmp(bytes + i, sought, (size_t)needle.len) == 0) { found = i; break; }
#endif
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&needle);
    return PyLong_FromSsize_t(found);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "The brackets outside strings of data[start:stop] (see the file's comment)."},
    {"scan_back", scan_back, METH_VARARGS, "The same, from the end of data[start:stop] down (the file's comment)."},
    {"find_last", find_last, METH_VARARGS, "data.rfind(needle, start, stop), without the GIL (the file's comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "brackets_c", NULL, -1, methods};

PyMODINIT_FUNC PyInit_brackets_c(void) {
    for (int c = 0; c < 256; c++) {
        plain_in_string[c] = c != '"' && c != '\\';
        plain_outside[c] = plain_in_string[c] && (c & 0xDF) != '[' && (c & 0xDF) != ']';
        plain_back[c] = plain_outside[c] || c == '\\';
    }
    PyObject *made = PyModule_Create(&module);
    if (made != NULL && PyModule_AddStringConstant(made, "source_sha256", SOURCE_SHA256) < 0) Py_CLEAR(made);
    return made;
}
