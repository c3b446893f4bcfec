/* The line loop of core/formats/ndjson.py in C: optional (the Python loop is used when this is not built).

   parse_lines(data, offset, index, stop_index, loads, dumps, types, metas, shared, strings, events)
       -> (offset, index, missing_meta)
   Reads the lines of `data` (bytes) from byte `offset`, whose line number in the file is `index` (0-based), up
   to line `stop_index`: each line, stripped of ASCII white space, is parsed by `loads` (orjson.loads) and,
   when it is an event object with a "type" string, shared and appended to `events` exactly as ndjson.py's
   Python loop does it (the type string, the whole meta by the hash of `dumps(meta)`, its values, the payload's
   short strings). Lines are split on b"\n" alone, as bytes.split does: data ending in "\n" has a last, empty
   line. It returns where it stopped: at `stop_index`, past the data's end (offset > len(data)), or at a line it
   leaves to the Python loop (the returned `index` is that line's, `offset` its start): a line `loads` refuses,
   a value that is not an object, an event with no "type" string. The caller turns those into its messages.
   `missing_meta` counts the events read whose "meta" is not an object. Why: the Python loop's own work around
   orjson (the sharing, a call per line) took as long as orjson's parse; here it is a few dict operations. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef SOURCE_SHA256 /* the sha256 of this file, given by setup.py: core/compiled.py refuses a module built from
                         another version of its source */
#define SOURCE_SHA256 ""
#endif

#include <string.h>

#define SHARED_STRING 512 /* ndjson._SHARED_STRING: longer strings are rarely repeated */

static PyObject *key_type, *key_meta, *key_payload, *key_run_id, *key_stage_id, *key_subflow, *key_composition;

static int is_space(unsigned char c) { /* bytes.strip()'s white space */
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c';
}

/* d[key] = pool.setdefault(value, value) for an exact str `value` of at most `limit` characters (any, if < 0). */
static int share_string(PyObject *d, PyObject *key, PyObject *value, PyObject *pool, Py_ssize_t limit) {
    if (!PyUnicode_CheckExact(value) || (limit >= 0 && PyUnicode_GET_LENGTH(value) > limit))
        return 0;
    PyObject *kept = PyDict_SetDefault(pool, value, value); /* borrowed */
    if (kept == NULL)
        return -1;
    return kept == value ? 0 : PyDict_SetItem(d, key, kept);
}

/* ndjson.share_strings: the short strings directly in the payload, or in an object in it. */
static int share_strings(PyObject *payload, PyObject *strings) {
    Py_ssize_t pos = 0, inner_pos;
    PyObject *key, *value, *inner, *text;
    while (PyDict_Next(payload, &pos, &key, &value)) { /* (changing a value, not the keys, is allowed) */
        if (PyUnicode_CheckExact(value)) {
            if (share_string(payload, key, value, strings, SHARED_STRING) < 0)
                return -1;
        } else if (PyDict_CheckExact(value)) {
            inner_pos = 0;
            while (PyDict_Next(value, &inner_pos, &inner, &text))
                if (share_string(value, inner, text, strings, SHARED_STRING) < 0)
                    return -1;
        }
    }
    return 0;
}

/* ndjson._shared_list: meta[key] = shared.setdefault(tuple(value), value) for a list value of hashable items. */
static int share_list(PyObject *meta, PyObject *key, PyObject *shared) {
    PyObject *value = PyDict_GetItemWithError(meta, key);
    if (value == NULL || !PyList_CheckExact(value))
        return PyErr_Occurred() ? -1 : 0;
    PyObject *as_tuple = PyList_AsTuple(value);
    if (as_tuple == NULL)
        return -1;
    PyObject *kept = PyDict_SetDefault(shared, as_tuple, value);
    Py_DECREF(as_tuple);
    if (kept == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            return -1;
        PyErr_Clear(); /* a path holding objects or lists: left as it is */
        return 0;
    }
    return kept == value ? 0 : PyDict_SetItem(meta, key, kept);
}

/* ndjson.share_meta. */
static int share_meta(PyObject *meta, PyObject *shared) {
    PyObject *keys[2] = {key_run_id, key_stage_id};
    for (int k = 0; k < 2; k++) {
        PyObject *value = PyDict_GetItemWithError(meta, keys[k]);
        if (value == NULL) {
            if (PyErr_Occurred())
                return -1;
        } else if (share_string(meta, keys[k], value, shared, -1) < 0) {
            return -1;
        }
    }
    if (share_list(meta, key_subflow, shared) < 0)
        return -1;
    return share_list(meta, key_composition, shared);
}

/* ndjson.share_whole_meta: the meta object kept for metas of the same JSON text (new reference), or NULL. */
static PyObject *share_whole_meta(PyObject *meta, PyObject *dumps, PyObject *metas, PyObject *shared) {
    PyObject *text = PyObject_CallOneArg(dumps, meta);
    if (text == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            return NULL;
        PyErr_Clear(); /* a value orjson cannot write (nested too deep): its values shared, the meta kept as it is */
        return share_meta(meta, shared) < 0 ? NULL : Py_NewRef(meta);
    }
    Py_hash_t hash = PyObject_Hash(text);
    Py_DECREF(text);
    if (hash == -1)
        return NULL;
    PyObject *key = PyLong_FromSsize_t(hash);
    if (key == NULL)
        return NULL;
    PyObject *kept = PyDict_GetItemWithError(metas, key); /* borrowed */
    if (kept != NULL) {
        int equal = PyObject_RichCompareBool(kept, meta, Py_EQ);
        if (equal != 0) {
            Py_DECREF(key);
            return equal < 0 ? NULL : Py_NewRef(kept);
        }
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return NULL;
    }
    if (share_meta(meta, shared) < 0 || PyDict_SetItem(metas, key, meta) < 0) {
        Py_DECREF(key);
        return NULL;
    }
    Py_DECREF(key);
    return Py_NewRef(meta);
}

/* One stripped line's event, shared and appended: 1 done, 0 left to the Python loop, -1 an error raised. */
static int read_event(const char *text, Py_ssize_t size, PyObject *loads, PyObject *dumps, PyObject *types,
                      PyObject *metas, PyObject *shared, PyObject *strings, PyObject *events,
                      Py_ssize_t *missing_meta) {
    PyObject *line = PyBytes_FromStringAndSize(text, size);
    if (line == NULL)
        return -1;
    PyObject *event = PyObject_CallOneArg(loads, line);
    Py_DECREF(line);
    if (event == NULL) {
        PyErr_Clear(); /* the Python loop parses it again and says what is wrong (or reads it another way) */
        return 0;
    }
    int result = 0;
    PyObject *etype = PyDict_CheckExact(event) ? PyDict_GetItemWithError(event, key_type) : NULL;
    if (etype == NULL || !PyUnicode_CheckExact(etype)) {
        result = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    result = -1;
    if (share_string(event, key_type, etype, types, -1) < 0)
        goto done;
    PyObject *meta = PyDict_GetItemWithError(event, key_meta);
    if (meta != NULL && PyDict_CheckExact(meta)) {
        PyObject *kept = share_whole_meta(meta, dumps, metas, shared);
        if (kept == NULL)
            goto done;
        int set = kept == meta ? 0 : PyDict_SetItem(event, key_meta, kept);
        Py_DECREF(kept);
        if (set < 0)
            goto done;
    } else if (PyErr_Occurred()) {
        goto done;
    } else if (meta == NULL || !PyDict_Check(meta)) {
        (*missing_meta)++;
    }
    PyObject *payload = PyDict_GetItemWithError(event, key_payload);
    if (payload != NULL && PyDict_CheckExact(payload)) {
        if (share_strings(payload, strings) < 0)
            goto done;
    } else if (PyErr_Occurred()) {
        goto done;
    }
    result = PyList_Append(events, event) < 0 ? -1 : 1;
done:
    Py_DECREF(event);
    return result;
}

static PyObject *parse_lines(PyObject *self, PyObject *args) {
    Py_buffer data;
    Py_ssize_t offset, index, stop_index, missing_meta = 0;
    PyObject *loads, *dumps, *types, *metas, *shared, *strings, *events;
    if (!PyArg_ParseTuple(args, "y*nnnOOO!O!O!O!O!", &data, &offset, &index, &stop_index, &loads, &dumps,
                          &PyDict_Type, &types, &PyDict_Type, &metas, &PyDict_Type, &shared, &PyDict_Type,
                          &strings, &PyList_Type, &events))
        return NULL;
    if (offset < 0 || offset > data.len + 1) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "parse_lines: offset must lie within the data");
        return NULL;
    }
    const char *bytes = (const char *)data.buf;
    Py_ssize_t size = data.len;
    int failed = 0;
    while (index < stop_index && offset <= size) {
        const char *newline = memchr(bytes + offset, '\n', (size_t)(size - offset));
        Py_ssize_t end = newline ? newline - bytes : size, first = offset, last = end;
        while (first < last && is_space((unsigned char)bytes[first])) first++;
        while (last > first && is_space((unsigned char)bytes[last - 1])) last--;
        if (first < last) {
            int read = read_event(bytes + first, last - first, loads, dumps, types, metas, shared, strings, events,
                                  &missing_meta);
            if (read < 0) { failed = 1; break; }
            if (read == 0) break; /* this line is the Python loop's */
        }
        index++;
        offset = end + 1;
    }
    PyBuffer_Release(&data);
    if (failed)
        return NULL;
    return Py_BuildValue("nnn", offset, index, missing_meta);
}

static PyMethodDef methods[] = {
    {"parse_lines", parse_lines, METH_VARARGS, "ndjson.py's line loop for lines it can read (the file's comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ndjson_c", NULL, -1, methods};

PyMODINIT_FUNC PyInit_ndjson_c(void) {
    const char *names[] = {"type", "meta", "payload", "runId", "runtimeStageId", "subflowPath", "compositionPath"};
    PyObject **keys[] = {&key_type, &key_meta, &key_payload, &key_run_id, &key_stage_id, &key_subflow,
                         &key_composition};
    for (int k = 0; k < 7; k++)
        if ((*keys[k] = PyUnicode_InternFromString(names[k])) == NULL)
            return NULL;
    PyObject *made = PyModule_Create(&module);
    if (made != NULL && PyModule_AddStringConstant(made, "source_sha256", SOURCE_SHA256) < 0) Py_CLEAR(made);
    return made;
}
