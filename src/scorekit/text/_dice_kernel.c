/*
 * The Dice kernel: npm string-similarity 4.0.4's compareTwoStrings of two ASCII texts, in C
 * (scorekit.text.dice, which keeps the same computation in Python and numpy as the reference
 * and the fallback).
 *
 * dice(a, b): each text without its JS whitespace (in ASCII: \t \n \v \f \r and space; not
 * \x1c-\x1f), then 1.0 for equal texts, 0.0 when either has fewer than two characters, else
 * 2 * shared / (len(a) + len(b) - 2), where shared is the size of the multiset intersection of
 * the two texts' bigrams: each bigram of a is counted in a table of 128 x 128 bins, then each
 * bigram of b takes one from its bin while the bin is not empty. A pass or two over each text,
 * no Python object per character or bigram.
 *
 * Built by tools/build_text_core.py (make core) beside the mypyc modules, and loaded only when
 * current (scorekit.text.compiled).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BINS (128 * 128)

static int is_js_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The text's characters without JS whitespace, into out; returns how many. */
static Py_ssize_t without_space(const unsigned char *text, Py_ssize_t length, unsigned char *out) {
    Py_ssize_t kept = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        out[kept] = text[i];
        kept += !is_js_space(text[i]);
    }
    return kept;
}

static PyObject *dice(PyObject *module, PyObject *args) {
    PyObject *first, *second;
    if (!PyArg_ParseTuple(args, "UU:dice", &first, &second)) {
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(first) || !PyUnicode_IS_ASCII(second)) {
        PyErr_SetString(PyExc_ValueError, "dice reads ASCII text only");
        return NULL;
    }
    Py_ssize_t length_a = PyUnicode_GET_LENGTH(first);
    Py_ssize_t length_b = PyUnicode_GET_LENGTH(second);
    if (length_a > (Py_ssize_t)UINT32_MAX) { /* a bin holds up to length_a - 1 bigrams */
        PyErr_SetString(PyExc_ValueError, "dice reads texts of up to 2**32 characters");
        return NULL;
    }
    unsigned char *a = malloc((size_t)length_a + (size_t)length_b + 2);
    if (a == NULL) {
        return PyErr_NoMemory();
    }
    unsigned char *b = a + length_a + 1;
    length_a = without_space(PyUnicode_1BYTE_DATA(first), length_a, a);
    length_b = without_space(PyUnicode_1BYTE_DATA(second), length_b, b);
    double similarity;
    if (length_a == length_b && memcmp(a, b, (size_t)length_a) == 0) {
        similarity = 1.0;
    } else if (length_a < 2 || length_b < 2) {
        similarity = 0.0;
    } else {
        uint32_t *counts = calloc(BINS, sizeof(uint32_t)); /* only where bigrams are counted */
        if (counts == NULL) {
            free(a);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i + 1 < length_a; i++) {
            counts[(a[i] << 7) | a[i + 1]]++;
        }
        long long shared = 0;
        for (Py_ssize_t i = 0; i + 1 < length_b; i++) {
            uint32_t *bin = &counts[(b[i] << 7) | b[i + 1]];
            if (*bin > 0) {
                (*bin)--;
                shared++;
            }
        }
        free(counts);
        similarity = 2.0 * (double)shared / (double)(length_a + length_b - 2);
    }
    free(a);
    return PyFloat_FromDouble(similarity);
}

static PyMethodDef methods[] = {
    {"dice", dice, METH_VARARGS,
     "dice(a, b) -> the bigram Dice coefficient of two ASCII texts without their whitespace "
     "(npm string-similarity 4.0.4 compareTwoStrings)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_dice_kernel",
    "npm string-similarity's compareTwoStrings of two ASCII texts, in C (scorekit.text.dice).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__dice_kernel(void) { return PyModule_Create(&module_definition); }
