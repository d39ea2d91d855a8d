/*
 * The sentiment kernel: npm sentiment's valence sums of many ASCII texts, tokenised and looked
 * up in C (scorekit.text.sentiment, which keeps the same computation in Python as the reference
 * and the fallback).
 *
 * lexicon(labels, negators) builds an open-addressing hash table of the ASCII words of the
 * label map (word -> valence) and of the negators, once. comparatives(lexicon, text) reads a
 * normalised ASCII text as str.split() would (whitespace: space, \t \n \v \f \r and
 * \x1c-\x1f), where a token "\x00" separates one scored text from the next, and returns each
 * text's valence sum over its token count: the valence of a token found in the table, negated
 * when the token before it in the same text is a negator; a text with no token scores 0.0.
 * No Python object is made per token, which is where the Python version spends its time.
 *
 * Built by tools/build_text_core.py (make core) beside the mypyc modules, and loaded only when
 * current (scorekit.text.compiled).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const unsigned char *word; /* NULL: an empty slot */
    Py_ssize_t length;
    long long valence;
    int has_valence;
    int negator;
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;          /* slot count - 1 (a power of two) */
    Py_ssize_t longest;   /* the longest word held: longer tokens are not looked up */
    unsigned char *words; /* every word, one after another */
} Lexicon;

static const char *CAPSULE = "scorekit.text._sentiment_kernel.Lexicon";

/* FNV-1a, 64 bits. */
static uint64_t word_hash(const unsigned char *word, Py_ssize_t length) {
    uint64_t hash = 14695981039346656037ULL;
    for (Py_ssize_t i = 0; i < length; i++) {
        hash ^= word[i];
        hash *= 1099511628211ULL;
    }
    return hash;
}

/* The slot holding word, or the empty slot where it belongs. */
static Slot *find_slot(const Lexicon *lexicon, const unsigned char *word, Py_ssize_t length) {
    size_t at = (size_t)word_hash(word, length) & lexicon->mask;
    for (;;) {
        Slot *slot = &lexicon->slots[at];
        if (slot->word == NULL ||
            (slot->length == length && memcmp(slot->word, word, (size_t)length) == 0)) {
            return slot;
        }
        at = (at + 1) & lexicon->mask;
    }
}

static void free_lexicon(Lexicon *lexicon) {
    if (lexicon != NULL) {
        free(lexicon->slots);
        free(lexicon->words);
        free(lexicon);
    }
}

static void capsule_destructor(PyObject *capsule) {
    free_lexicon((Lexicon *)PyCapsule_GetPointer(capsule, CAPSULE));
}

/* Copy an ASCII word into the lexicon's block and its slot; 0 when not ASCII (skipped). */
static int add_word(Lexicon *lexicon, PyObject *key, size_t *used, Slot **slot_out) {
    *slot_out = NULL;
    if (!PyUnicode_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "lexicon words must be str");
        return -1;
    }
    if (!PyUnicode_IS_ASCII(key)) {
        return 0; /* never a token of an ASCII text */
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(key);
    const unsigned char *word = PyUnicode_1BYTE_DATA(key);
    Slot *slot = find_slot(lexicon, word, length);
    if (slot->word == NULL) {
        unsigned char *copy = lexicon->words + *used;
        memcpy(copy, word, (size_t)length);
        *used += (size_t)length;
        slot->word = copy;
        slot->length = length;
        if (length > lexicon->longest) {
            lexicon->longest = length;
        }
    }
    *slot_out = slot;
    return 0;
}

static Py_ssize_t ascii_bytes(PyObject *words) {
    Py_ssize_t total = 0;
    PyObject *iterator = PyObject_GetIter(words);
    if (iterator == NULL) {
        return -1;
    }
    PyObject *word;
    while ((word = PyIter_Next(iterator)) != NULL) {
        if (PyUnicode_Check(word) && PyUnicode_IS_ASCII(word)) {
            total += PyUnicode_GET_LENGTH(word);
        }
        Py_DECREF(word);
    }
    Py_DECREF(iterator);
    return PyErr_Occurred() ? -1 : total;
}

static PyObject *lexicon(PyObject *module, PyObject *args) {
    PyObject *labels, *negators;
    if (!PyArg_ParseTuple(args, "O!O:lexicon", &PyDict_Type, &labels, &negators)) {
        return NULL;
    }
    Py_ssize_t label_bytes = ascii_bytes(labels);
    Py_ssize_t negator_bytes = label_bytes < 0 ? -1 : ascii_bytes(negators);
    if (negator_bytes < 0) {
        return NULL;
    }
    Py_ssize_t count = PyDict_GET_SIZE(labels) + PyObject_Length(negators);
    if (count < 0) {
        return NULL;
    }
    size_t size = 16;
    while (size < (size_t)count * 2) {
        size <<= 1;
    }
    Lexicon *made = calloc(1, sizeof(Lexicon));
    if (made == NULL) {
        return PyErr_NoMemory();
    }
    made->slots = calloc(size, sizeof(Slot));
    made->words = malloc((size_t)(label_bytes + negator_bytes) + 1);
    made->mask = size - 1;
    if (made->slots == NULL || made->words == NULL) {
        free_lexicon(made);
        return PyErr_NoMemory();
    }
    size_t used = 0;
    Slot *slot;
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(labels, &position, &key, &value)) {
        if (add_word(made, key, &used, &slot) < 0) {
            free_lexicon(made);
            return NULL;
        }
        if (slot != NULL) {
            long long valence = PyLong_AsLongLong(value);
            if (valence == -1 && PyErr_Occurred()) {
                free_lexicon(made);
                return NULL;
            }
            slot->valence = valence;
            slot->has_valence = 1;
        }
    }
    PyObject *iterator = PyObject_GetIter(negators);
    if (iterator == NULL) {
        free_lexicon(made);
        return NULL;
    }
    while ((key = PyIter_Next(iterator)) != NULL) {
        int failed = add_word(made, key, &used, &slot);
        Py_DECREF(key);
        if (failed < 0) {
            Py_DECREF(iterator);
            free_lexicon(made);
            return NULL;
        }
        if (slot != NULL) {
            slot->negator = 1;
        }
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred()) {
        free_lexicon(made);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(made, CAPSULE, capsule_destructor);
    if (capsule == NULL) {
        free_lexicon(made);
    }
    return capsule;
}

static int is_split_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Append score / count (0.0 for no token) to scores; -1 on failure. */
static int append_comparative(PyObject *scores, long long score, Py_ssize_t count) {
    double comparative = count > 0 ? (double)score / (double)count : 0.0;
    PyObject *number = PyFloat_FromDouble(comparative);
    if (number == NULL) {
        return -1;
    }
    int failed = PyList_Append(scores, number);
    Py_DECREF(number);
    return failed;
}

static PyObject *comparatives(PyObject *module, PyObject *args) {
    PyObject *capsule, *text;
    if (!PyArg_ParseTuple(args, "OU:comparatives", &capsule, &text)) {
        return NULL;
    }
    const Lexicon *table = PyCapsule_GetPointer(capsule, CAPSULE);
    if (table == NULL) {
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text)) {
        PyErr_SetString(PyExc_ValueError, "comparatives reads ASCII text only");
        return NULL;
    }
    const unsigned char *data = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    PyObject *scores = PyList_New(0);
    if (scores == NULL) {
        return NULL;
    }
    long long score = 0;
    Py_ssize_t count = 0;   /* tokens of the current text */
    int after_negator = 0;  /* the token before, in the same text, is a negator */
    Py_ssize_t at = 0;
    while (at < length) {
        if (is_split_space(data[at])) {
            at++;
            continue;
        }
        Py_ssize_t start = at;
        while (at < length && !is_split_space(data[at])) {
            at++;
        }
        Py_ssize_t size = at - start;
        if (size == 1 && data[start] == 0) { /* the separator: the next text begins */
            if (append_comparative(scores, score, count) < 0) {
                Py_DECREF(scores);
                return NULL;
            }
            score = 0;
            count = 0;
            after_negator = 0;
            continue;
        }
        count++;
        const Slot *slot = size <= table->longest ? find_slot(table, data + start, size) : NULL;
        if (slot != NULL && slot->word != NULL) {
            if (slot->has_valence) {
                score += after_negator ? -slot->valence : slot->valence;
            }
            after_negator = slot->negator;
        } else {
            after_negator = 0;
        }
    }
    if (append_comparative(scores, score, count) < 0) {
        Py_DECREF(scores);
        return NULL;
    }
    return scores;
}

static PyMethodDef methods[] = {
    {"lexicon", lexicon, METH_VARARGS,
     "lexicon(labels, negators) -> the table comparatives() reads (ASCII words only)."},
    {"comparatives", comparatives, METH_VARARGS,
     "comparatives(lexicon, text) -> each text's valence sum per token; a token \"\\x00\" "
     "separates the texts."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_sentiment_kernel",
    "npm sentiment's valence sums of ASCII texts, in C (scorekit.text.sentiment).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__sentiment_kernel(void) { return PyModule_Create(&module_definition); }
