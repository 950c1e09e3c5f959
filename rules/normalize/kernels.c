/* Compiled kernels of the normalizer (rules.normalize._kernels): the same results as the Python reference code
 * they replace, named beside each function; rules.normalize.compiled loads them and checks KERNELS_VERSION.
 *
 * Build: `make kernels` (cc against this Python's headers); without the build the Python code runs alone.
 * Bump KERNELS_VERSION (here and in compiled.py) whenever a function's contract changes, so an old build is
 * refused instead of run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KERNELS_VERSION 2
#ifndef KERNELS_SOURCE_SHA256
#define KERNELS_SOURCE_SHA256 "unknown"
#endif

/* --- text access ---------------------------------------------------------------------------------------- */

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length;
} Text;

static int text_open(PyObject *object, Text *text) {
    if (!PyUnicode_Check(object)) {
        PyErr_SetString(PyExc_TypeError, "a str is required");
        return -1;
    }
    text->kind = PyUnicode_KIND(object);
    text->data = PyUnicode_DATA(object);
    text->length = PyUnicode_GET_LENGTH(object);
    return 0;
}

#define AT(text, index) PyUnicode_READ((text)->kind, (text)->data, (index))
/* The character at `index`, or 0 outside the text (the Python code's "" neighbour: no test below holds for 0). */
#define AT_OR_NONE(text, index) ((index) >= 0 && (index) < (text)->length ? AT(text, index) : 0)

/* rules.normalize.chars.is_cjk */
static inline int is_cjk(Py_UCS4 c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0x20000 && c <= 0x3134F);
}

static inline int is_ascii_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }

static inline int is_ascii_alnum(Py_UCS4 c) {
    return is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* str.isdigit of one character (0, the missing neighbour, is none) */
static inline int is_digit(Py_UCS4 c) { return c != 0 && Py_UNICODE_ISDIGIT(c); }

/* rules.normalize.chars.neighbours: the characters before `start` and after `end`, skipping one space */
static void neighbours(const Text *text, Py_ssize_t start, Py_ssize_t end, Py_UCS4 *before, Py_UCS4 *after) {
    *before = start > 0 ? AT(text, start - 1) : 0;
    if (*before == ' ' && start > 1)
        *before = AT(text, start - 2);
    *after = end < text->length ? AT(text, end) : 0;
    if (*after == ' ' && end + 1 < text->length)
        *after = AT(text, end + 1);
}

/* --- edits and their application (rules.normalize.offsets.apply_edits) ---------------------------------- */

typedef struct {
    Py_ssize_t start, end;
    PyObject *replacement; /* borrowed: a constant or an item of the caller's list */
} Edit;

typedef struct {
    Edit *items;
    Py_ssize_t count, capacity;
} Edits;

/* A growing array (`items`, `count` used of `*capacity`) with room for one more item: the same block while it has
 * room, else one of twice the capacity (`first` items at first); NULL with MemoryError set when it cannot grow. */
static void *room_for_one(void *items, Py_ssize_t *capacity, Py_ssize_t count, size_t item_size, Py_ssize_t first) {
    if (count < *capacity)
        return items;
    Py_ssize_t grown = *capacity ? *capacity * 2 : first;
    void *moved = PyMem_Realloc(items, (size_t)grown * item_size);
    if (moved == NULL)
        return PyErr_NoMemory();
    *capacity = grown;
    return moved;
}

static int edits_add(Edits *edits, Py_ssize_t start, Py_ssize_t end, PyObject *replacement) {
    Edit *items = room_for_one(edits->items, &edits->capacity, edits->count, sizeof(Edit), 16);
    if (items == NULL)
        return -1;
    edits->items = items;
    edits->items[edits->count++] = (Edit){start, end, replacement};
    return 0;
}

static PyObject *array_type; /* array.array */

static PyObject *int64_array(const int64_t *values, Py_ssize_t count) {
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)values, count * (Py_ssize_t)sizeof(int64_t));
    if (bytes == NULL)
        return NULL;
    PyObject *result = PyObject_CallFunction(array_type, "sO", "q", bytes);
    Py_DECREF(bytes);
    return result;
}

/* The new text and (new_starts, new_ends, old_starts, old_ends) as array('q'), or None when nothing moved. */
static PyObject *edits_apply(PyObject *source, const Text *text, const Edit *edits, Py_ssize_t count, int group) {
    if (count == 0)
        return Py_BuildValue("(OO)", source, Py_None);
    Py_ssize_t length = text->length;
    Py_ssize_t previous = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        const Edit *edit = &edits[i];
        if (edit->start < previous || edit->end < edit->start || edit->end > text->length ||
            !PyUnicode_Check(edit->replacement)) {
            PyErr_SetString(PyExc_ValueError, "edits must be sorted, disjoint (start, end, str) inside the text");
            return NULL;
        }
        length += PyUnicode_GET_LENGTH(edit->replacement) - (edit->end - edit->start);
        previous = edit->end;
    }
    /* Written in the widest kind of the text and the replacements (unchanged stretches copied as they are), then
     * made a str by PyUnicode_FromKindAndData, which narrows it when a deletion took its widest characters. */
    int kind = text->kind;
    for (Py_ssize_t i = 0; i < count; i++)
        if (PyUnicode_KIND(edits[i].replacement) > kind)
            kind = PyUnicode_KIND(edits[i].replacement);
    char *out = PyMem_Malloc((size_t)(length ? length : 1) * (size_t)kind);
    int64_t *map = PyMem_Malloc((size_t)count * 4 * sizeof(int64_t));
    if (out == NULL || map == NULL) {
        PyMem_Free(out);
        PyMem_Free(map);
        return PyErr_NoMemory();
    }
    Py_ssize_t written = 0, entries = 0;
    previous = 0;
    for (Py_ssize_t i = 0; i <= count; i++) {
        Py_ssize_t copy_to = i < count ? edits[i].start : text->length;
        if (kind == text->kind) {
            memcpy(out + written * kind, (const char *)text->data + previous * kind, (size_t)(copy_to - previous) * kind);
            written += copy_to - previous;
        } else {
            for (Py_ssize_t at = previous; at < copy_to; at++)
                PyUnicode_WRITE(kind, out, written++, AT(text, at));
        }
        if (i == count)
            break;
        const Edit *edit = &edits[i];
        Py_ssize_t new_start = written;
        PyObject *replacement = edit->replacement;
        int replacement_kind = PyUnicode_KIND(replacement);
        const void *data = PyUnicode_DATA(replacement);
        Py_ssize_t width = PyUnicode_GET_LENGTH(replacement);
        if (replacement_kind == kind) {
            memcpy(out + written * kind, data, (size_t)width * kind);
            written += width;
        } else {
            for (Py_ssize_t at = 0; at < width; at++)
                PyUnicode_WRITE(kind, out, written++, PyUnicode_READ(replacement_kind, data, at));
        }
        if (width != edit->end - edit->start || (group && width > 1)) {
            map[entries] = new_start;
            map[count + entries] = written;
            map[2 * count + entries] = edit->start;
            map[3 * count + entries] = edit->end;
            entries++;
        }
        previous = edit->end;
    }
    PyObject *new_text = PyUnicode_FromKindAndData(kind, out, written);
    PyMem_Free(out);
    if (new_text == NULL) {
        PyMem_Free(map);
        return NULL;
    }
    PyObject *arrays = Py_None;
    Py_INCREF(Py_None);
    if (entries) {
        Py_DECREF(Py_None);
        arrays = PyTuple_New(4);
        for (int column = 0; arrays != NULL && column < 4; column++) {
            PyObject *array = int64_array(map + column * count, entries);
            if (array == NULL)
                Py_CLEAR(arrays);
            else
                PyTuple_SET_ITEM(arrays, column, array);
        }
    }
    PyMem_Free(map);
    if (arrays == NULL) {
        Py_DECREF(new_text);
        return NULL;
    }
    PyObject *result = PyTuple_Pack(2, new_text, arrays);
    Py_DECREF(new_text);
    Py_DECREF(arrays);
    return result;
}

PyDoc_STRVAR(apply_edits_doc, "apply_edits(text, edits, group_multichar) -> (new text, (new_starts, new_ends, "
                              "old_starts, old_ends) or None); see rules.normalize.offsets.apply_edits.");

static PyObject *apply_edits(PyObject *module, PyObject *args) {
    PyObject *source, *sequence;
    int group;
    if (!PyArg_ParseTuple(args, "UOp", &source, &sequence, &group))
        return NULL;
    Text text;
    text_open(source, &text);
    PyObject *fast = PySequence_Fast(sequence, "edits must be a sequence");
    if (fast == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    Edit *edits = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(Edit));
    if (edits == NULL) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
            PyErr_SetString(PyExc_TypeError, "an edit is a (start, end, replacement) tuple");
            goto fail;
        }
        edits[i].start = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
        edits[i].end = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
        edits[i].replacement = PyTuple_GET_ITEM(item, 2);
        if (PyErr_Occurred())
            goto fail;
    }
    PyObject *result = edits_apply(source, &text, edits, count, group);
    PyMem_Free(edits);
    Py_DECREF(fast);
    return result;
fail:
    PyMem_Free(edits);
    Py_DECREF(fast);
    return NULL;
}

/* --- prescan (rules.normalize.pipeline._prescan) -------------------------------------------------------- */

/* Bits of the table rules.normalize.compiled builds from the Python sets, one byte per BMP code point. */
enum {
    IN_CLASS = 1, /* a character of the prescan's class */
    PAIRED = 2,   /* found only when a marker's second character follows (past spaces and line breaks) */
    SECOND = 4,   /* a marker's second character */
    FOLD = 8,
    TRADITIONAL = 16,
    MARKER = 32, /* a one-character marker or a marker's first character */
    MARK = 64,   /* a punctuation mark */
};
enum { FOUND = 1, DIGIT = 128 };

static uint8_t prescan_bits[0x10000];
static int prescan_ready;

PyDoc_STRVAR(prescan_table_doc, "prescan_table(bits) — set the prescan's table (65,536 bytes, one per BMP code point).");

static PyObject *prescan_table(PyObject *module, PyObject *args) {
    Py_buffer buffer;
    if (!PyArg_ParseTuple(args, "y*", &buffer))
        return NULL;
    if (buffer.len != sizeof(prescan_bits)) {
        PyBuffer_Release(&buffer);
        PyErr_SetString(PyExc_ValueError, "the prescan table holds one byte per BMP code point");
        return NULL;
    }
    memcpy(prescan_bits, buffer.buf, sizeof(prescan_bits));
    PyBuffer_Release(&buffer);
    prescan_ready = 1;
    Py_RETURN_NONE;
}

static inline int is_fullwidth_number_mark(Py_UCS4 c) {
    return c == 0xFF0C || c == 0xFF0E || c == 0xFF1A || c == 0xFF1B; /* ，．：； */
}

PyDoc_STRVAR(prescan_doc,
             "prescan(text) -> the bits (FOLD, TRADITIONAL, MARKER, MARK, DIGIT, FOUND) of the characters the "
             "prescan's pattern finds; -1 for a text with a character outside the BMP (the pattern decides).");

static PyObject *prescan(PyObject *module, PyObject *args) {
    PyObject *source;
    if (!PyArg_ParseTuple(args, "U", &source))
        return NULL;
    if (!prescan_ready) {
        PyErr_SetString(PyExc_RuntimeError, "prescan_table was not set");
        return NULL;
    }
    Text text;
    text_open(source, &text);
    if (text.kind == PyUnicode_4BYTE_KIND)
        return PyLong_FromLong(-1);
    long found = 0;
    Py_ssize_t length = text.length;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 c = AT(&text, i);
        uint8_t bits = prescan_bits[c];
        int digit = is_ascii_digit(c);
        if (!(bits & IN_CLASS) && !digit)
            continue;
        int hit = (bits & IN_CLASS) && !(bits & PAIRED) && !digit;
        if (!hit && digit)
            hit = i + 2 < length && is_fullwidth_number_mark(AT(&text, i + 1)) && is_ascii_digit(AT(&text, i + 2));
        if (!hit && (bits & PAIRED)) {
            /* [ \t\n]* then a second character, as the lookahead backtracks: any second character after blanks */
            for (Py_ssize_t next = i + 1; next < length && !hit; next++) {
                Py_UCS4 n = AT(&text, next);
                hit = (prescan_bits[n] & SECOND) != 0;
                if (n != ' ' && n != '\t' && n != '\n')
                    break;
            }
        }
        if (hit)
            found |= FOUND | (bits & (FOLD | TRADITIONAL | MARKER | MARK)) | (digit ? DIGIT : 0);
    }
    return PyLong_FromLong(found);
}

/* --- punctuation (rules.normalize.punctuation.punctuation_edits) ---------------------------------------- */

static PyObject *str_ellipsis;       /* …… */
static PyObject *str_open_paren;     /* （ */
static PyObject *str_close_paren;    /* ） */
static PyObject *str_open_quote;     /* “ */
static PyObject *str_close_quote;    /* ” */
static PyObject *str_chars[0x10000]; /* one-character strings, made on first use (BMP only) */

static PyObject *char_string(Py_UCS4 c) {
    if (c < 0x10000) {
        if (str_chars[c] == NULL)
            str_chars[c] = PyUnicode_FromOrdinal((int)c);
        return str_chars[c];
    }
    return NULL; /* never asked: every replacement below is in the BMP */
}

/* _VARIANTS of punctuation.py: the canonical form of a variant mark, or 0. */
static Py_UCS4 variant_of(Py_UCS4 c) {
    switch (c) {
    case 0xFE50: case 0xFE10: return 0xFF0C;                              /* ﹐ ︐ → ， */
    case 0xFE51: case 0xFF64: case 0xFE11: return 0x3001;                 /* ﹑ ､ ︑ → 、 */
    case 0xFE54: case 0xFE14: return 0xFF1B;                              /* ﹔ ︔ → ； */
    case 0xFE55: case 0xFE13: return 0xFF1A;                              /* ﹕ ︓ → ： */
    case 0xFE56: case 0xFE16: return 0xFF1F;                              /* ﹖ ︖ → ？ */
    case 0xFE57: case 0xFE15: return 0xFF01;                              /* ﹗ ︕ → ！ */
    case 0xFE59: return 0xFF08;                                           /* ﹙ → （ */
    case 0xFE5A: return 0xFF09;                                           /* ﹚ → ） */
    case 0xFF61: case 0xFE12: case 0xFE52: return 0x3002;                 /* ｡ ︒ ﹒ → 。 */
    case 0x300C: case 0xFE41: case 0x301D: case 0x201E: case 0x201F: return 0x201C; /* 「 ﹁ 〝 „ ‟ → “ */
    case 0x300D: case 0xFE42: case 0x301E: case 0x301F: return 0x201D;   /* 」 ﹂ 〞 〟 → ” */
    case 0x300E: case 0xFE43: return 0x2018;                              /* 『 ﹃ → ‘ */
    case 0x300F: case 0xFE44: return 0x2019;                              /* 』 ﹄ → ’ */
    case 0xFF07: return '\'';                                             /* ＇ → ' */
    default: return 0;
    }
}

/* _TO_CHINESE of punctuation.py */
static Py_UCS4 chinese_of(Py_UCS4 c) {
    switch (c) {
    case ',': return 0xFF0C;
    case ';': return 0xFF1B;
    case ':': return 0xFF1A;
    case '?': return 0xFF1F;
    case '!': return 0xFF01;
    case '(': return 0xFF08;
    case ')': return 0xFF09;
    case '.': return 0x3002;
    default: return 0;
    }
}

/* PUNCTUATION_MARKS */
static inline int is_mark(Py_UCS4 c) {
    switch (c) {
    case ',': case ';': case ':': case '?': case '!': case '.': case '(': case ')': case '"':
    case 0xFF02: case 0x2026: case 0x22EF:
        return 1;
    default:
        return variant_of(c) != 0;
    }
}

/* _OPEN_CONTEXT */
static inline int opens_quote(Py_UCS4 c) {
    switch (c) {
    case ' ': case '\n': case 0x201C: case 0x2018: case 0xFF08: case '(': case 0x300A: case 0x3010: case '[':
    case 0xFF1A: case ':': case 0xFF0C: case ',':
        return 1;
    default:
        return 0;
    }
}

/* _fold_mark: the canonical form of the mark `c` at `start` (c itself when it stays) */
static Py_UCS4 fold_mark(const Text *text, Py_ssize_t start, Py_UCS4 c, int *quote_open) {
    Py_UCS4 before, after;
    neighbours(text, start, start + 1, &before, &after);
    Py_UCS4 variant = variant_of(c);
    if (variant)
        return variant;
    if (c == '"' || c == 0xFF02) {
        if (!(is_cjk(before) || is_cjk(after) || c == 0xFF02))
            return c;
        int opening = opens_quote(before) ? 1 : *quote_open;
        *quote_open = !opening;
        return opening ? 0x201C : 0x201D;
    }
    if (c == '.')
        return is_cjk(before) && !is_ascii_alnum(after) ? 0x3002 : c;
    if (c == '(' || c == ')')
        return is_cjk(before) || is_cjk(after) ? chinese_of(c) : c;
    if (is_digit(before) && is_digit(after))
        return c;
    return is_cjk(before) || is_cjk(after) ? chinese_of(c) : c;
}

/* _ascii_pairs + _paren_pair_edits: fixes[i] = 1 (（) or 2 (）) for each parenthesis of a pair to fix */
static void paren_fixes(const Text *text, uint8_t *fixes, int closing_ascii) {
    Py_ssize_t length = text->length;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !closing_ascii)
            break;
        Py_UCS4 opener = pass == 0 ? '(' : 0xFF08;
        for (Py_ssize_t start = 0; start < length; start++) {
            if (AT(text, start) != opener)
                continue;
            Py_ssize_t end = -1;
            for (Py_ssize_t k = 0; k <= 80 && start + 1 + k < length; k++) {
                Py_UCS4 c = AT(text, start + 1 + k);
                if (c == ')' || (pass == 0 && c == 0xFF09)) {
                    end = start + 2 + k;
                    break;
                }
                if (c == '(' || c == 0xFF08 || c == 0xFF09 || c == '\n')
                    break;
            }
            if (end < 0)
                continue;
            int chinese = 0;
            for (Py_ssize_t at = start + 1; at < end - 1 && !chinese; at++)
                chinese = is_cjk(AT(text, at));
            Py_UCS4 before, after;
            neighbours(text, start, end, &before, &after);
            if (chinese || is_cjk(before) || is_cjk(after)) {
                fixes[start] = 1;
                fixes[end - 1] = 2;
            }
            start = end - 1;
        }
    }
}

static int edit_start_order(const void *a, const void *b) {
    Py_ssize_t x = ((const Edit *)a)->start, y = ((const Edit *)b)->start;
    return (x > y) - (x < y);
}

static int is_ellipsis_char(Py_UCS4 c) { return c == 0x2026 || c == 0x22EF; }

/* What the punctuation pass looks at, by BMP code point (set up at import from the functions above). */
enum { P_MARK = 1, P_IDEOGRAPHIC_DOT = 2, P_NUMBER_MARK = 4, P_FULLWIDTH_OPEN = 8 };
static uint8_t punctuation_bits[0x10000];

static void punctuation_bits_init(void) {
    for (Py_UCS4 c = 0; c < 0x10000; c++) {
        uint8_t bits = is_mark(c) ? P_MARK : 0;
        if (c == 0x3002)
            bits |= P_IDEOGRAPHIC_DOT;
        if (is_fullwidth_number_mark(c))
            bits |= P_NUMBER_MARK;
        if (c == 0xFF08)
            bits |= P_FULLWIDTH_OPEN;
        punctuation_bits[c] = bits;
    }
}

typedef struct {
    Py_ssize_t *items;
    Py_ssize_t count, capacity;
} Positions;

static int positions_add(Positions *positions, Py_ssize_t position) {
    Py_ssize_t *items = room_for_one(positions->items, &positions->capacity, positions->count, sizeof(Py_ssize_t), 64);
    if (items == NULL)
        return -1;
    positions->items = items;
    positions->items[positions->count++] = position;
    return 0;
}

/* Every position whose character has punctuation bits, in order: one table look-up per character. */
#define COLLECT(type)                                                                                              \
    do {                                                                                                           \
        const type *units = (const type *)text->data;                                                              \
        for (Py_ssize_t i = 0; i < length; i++) {                                                                  \
            Py_UCS4 c = units[i];                                                                                  \
            if ((sizeof(type) < 4 || c < 0x10000) && punctuation_bits[c] && positions_add(positions, i))           \
                return -1;                                                                                         \
        }                                                                                                          \
    } while (0)

static int punctuation_positions(const Text *text, Positions *positions) {
    Py_ssize_t length = text->length;
    if (text->kind == PyUnicode_1BYTE_KIND)
        COLLECT(Py_UCS1);
    else if (text->kind == PyUnicode_2BYTE_KIND)
        COLLECT(Py_UCS2);
    else
        COLLECT(Py_UCS4);
    return 0;
}

/* punctuation_edits, with _with_unmarked_edits (numbers: always looked for) */
static int punctuation_collect(const Text *text, Edits *edits) {
    Py_ssize_t length = text->length;
    Positions positions = {NULL, 0, 0};
    uint8_t *fixes = NULL;
    if (punctuation_positions(text, &positions))
        goto fail;
    int has_open = 0, has_close = 0;
    for (Py_ssize_t k = 0; k < positions.count; k++) {
        Py_UCS4 c = AT(text, positions.items[k]);
        has_open |= c == '(';
        has_close |= c == ')';
    }
    if (has_open || has_close) {
        fixes = PyMem_Calloc((size_t)length, 1);
        if (fixes == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        paren_fixes(text, fixes, has_close);
    }
    /* The quote state is read at straight quotes only: reset when a line break lies between the last quote that
     * set it and this one (the reference resets it at any mark after a line break: the same at the next quote). */
    int quote_open = 1;
    Py_ssize_t quote_set_at = 0, skip_to = 0;
    for (Py_ssize_t k = 0; k < positions.count; k++) {
        Py_ssize_t start = positions.items[k];
        Py_UCS4 c = AT(text, start);
        if (!(c < 0x10000 && (punctuation_bits[c] & P_MARK)) || start < skip_to)
            continue;
        if (c == '.' || is_ellipsis_char(c)) {
            Py_ssize_t end = start + 1;
            while (end < length && (c == '.' ? AT(text, end) == '.' : is_ellipsis_char(AT(text, end))))
                end++;
            if (c != '.' || end - start >= 3) {
                skip_to = end;
                int already = end - start == 2 && AT(text, start) == 0x2026 && AT(text, start + 1) == 0x2026;
                if (!already) {
                    Py_UCS4 before, after;
                    neighbours(text, start, end, &before, &after);
                    if ((c != '.' || is_cjk(before) || is_cjk(after)) && edits_add(edits, start, end, str_ellipsis))
                        goto fail;
                }
                continue;
            }
            if (end - start > 1) {
                skip_to = end;
                continue;
            }
        }
        Py_UCS4 folded;
        if (fixes != NULL && fixes[start]) {
            folded = fixes[start] == 1 ? 0xFF08 : 0xFF09;
        } else if (c == '"' || c == 0xFF02) {
            for (Py_ssize_t at = quote_set_at; at < start; at++) {
                if (AT(text, at) == '\n') {
                    quote_open = 1;
                    break;
                }
            }
            folded = fold_mark(text, start, c, &quote_open);
            if (folded != c) /* the quote became “ or ”: it set the state */
                quote_set_at = start;
        } else {
            folded = fold_mark(text, start, c, &quote_open);
        }
        if (folded != c) {
            PyObject *replacement = folded == 0x201C   ? str_open_quote
                                    : folded == 0x201D ? str_close_quote
                                    : folded == 0xFF08 ? str_open_paren
                                    : folded == 0xFF09 ? str_close_paren
                                                       : char_string(folded);
            if (replacement == NULL || edits_add(edits, start, start + 1, replacement))
                goto fail;
        }
    }
    PyMem_Free(fixes);
    fixes = NULL;
    /* 。。。 runs, then full-width marks between digits (1，200): no match of these can hide another */
    Py_ssize_t marked = edits->count;
    for (Py_ssize_t k = 0; k < positions.count; k++) {
        Py_ssize_t start = positions.items[k];
        if (AT(text, start) != 0x3002)
            continue;
        Py_ssize_t end = start + 1;
        while (end < length && AT(text, end) == 0x3002)
            end++;
        if (end - start >= 3 && edits_add(edits, start, end, str_ellipsis))
            goto fail;
        while (k + 1 < positions.count && positions.items[k + 1] < end)
            k++;
    }
    for (Py_ssize_t k = 0; k < positions.count; k++) {
        Py_ssize_t at = positions.items[k];
        Py_UCS4 mark = AT(text, at);
        if (is_fullwidth_number_mark(mark) && at > 0 && at + 1 < length && is_ascii_digit(AT(text, at - 1)) &&
            is_ascii_digit(AT(text, at + 1))) {
            Py_UCS4 ascii = mark == 0xFF0C ? ',' : mark == 0xFF0E ? '.' : mark == 0xFF1A ? ':' : ';';
            if (edits_add(edits, at, at + 1, char_string(ascii)))
                goto fail;
        }
    }
    PyMem_Free(positions.items);
    if (edits->count > marked)
        qsort(edits->items, (size_t)edits->count, sizeof(Edit), edit_start_order); /* starts are distinct */
    return 0;
fail:
    PyMem_Free(fixes);
    PyMem_Free(positions.items);
    return -1;
}

PyDoc_STRVAR(punctuate_doc, "punctuate(text) -> (new text, marks changed, map arrays or None): punctuation_edits "
                            "applied (see rules.normalize.punctuation.punctuation_step).");

static PyObject *punctuate(PyObject *module, PyObject *args) {
    PyObject *source;
    if (!PyArg_ParseTuple(args, "U", &source))
        return NULL;
    Text text;
    text_open(source, &text);
    Edits edits = {NULL, 0, 0};
    if (punctuation_collect(&text, &edits)) {
        PyMem_Free(edits.items);
        return NULL;
    }
    PyObject *applied = edits_apply(source, &text, edits.items, edits.count, 0);
    Py_ssize_t count = edits.count;
    PyMem_Free(edits.items);
    if (applied == NULL)
        return NULL;
    PyObject *result = Py_BuildValue("(OnO)", PyTuple_GET_ITEM(applied, 0), count, PyTuple_GET_ITEM(applied, 1));
    Py_DECREF(applied);
    return result;
}

/* --- spaces and line breaks (rules.normalize.canonical.whitespace_edits) -------------------------------- */

static PyObject *str_empty, *str_space, *str_newline, *str_paragraph;

static inline int is_blank(Py_UCS4 c) { return c == ' ' || c == '\t' || c == '\n'; }

/* _CHINESE_PUNCTUATION */
static inline int is_chinese_punctuation(Py_UCS4 c) {
    switch (c) {
    case 0xFF0C: case 0x3002: case 0xFF1B: case 0xFF1A: case 0xFF1F: case 0xFF01: case 0x3001: case 0xFF08:
    case 0xFF09: case 0x201C: case 0x201D: case 0x2018: case 0x2019: case 0x2026: case 0x300A: case 0x300B:
    case 0x3010: case 0x3011:
        return 1;
    default:
        return 0;
    }
}

PyDoc_STRVAR(whitespace_doc,
             "whitespace(text, keeps_break) -> (edits, spaces removed or None, lines joined or None); see "
             "whitespace_edits (None: the count was never touched). keeps_break(text, newline, after) decides a "
             "single line break.");

static PyObject *whitespace(PyObject *module, PyObject *args) {
    PyObject *source, *keeps_break;
    if (!PyArg_ParseTuple(args, "UO", &source, &keeps_break))
        return NULL;
    Text text;
    text_open(source, &text);
    Py_ssize_t length = text.length;
    PyObject *edits = PyList_New(0);
    if (edits == NULL)
        return NULL;
    Py_ssize_t spaces = 0, joined = 0;
    int spaces_touched = 0, joined_touched = 0;
    for (Py_ssize_t start = 0; start < length; start++) {
        if (!is_blank(AT(&text, start)))
            continue;
        Py_ssize_t end = start + 1, newlines = AT(&text, start) == '\n';
        while (end < length && is_blank(AT(&text, end))) {
            newlines += AT(&text, end) == '\n';
            end++;
        }
        Py_ssize_t run = end - start;
        int at_edge = start == 0 || end == length;
        int beside = !at_edge && (is_chinese_punctuation(AT(&text, start - 1)) || is_chinese_punctuation(AT(&text, end)));
        PyObject *replacement = NULL; /* NULL: the run stays */
        if (run == 2 && newlines == 2 && !at_edge) {
            /* a paragraph break stays as it is */
        } else if (run == 1 && AT(&text, start) == ' ' && !at_edge && !beside) {
            /* a single space between words stays */
        } else if (newlines == 0) {
            replacement = at_edge || beside ? str_empty : str_space;
            if (replacement == str_space && run == 1 && AT(&text, start) == ' ')
                replacement = NULL;
        } else if (newlines >= 2) {
            replacement = at_edge ? str_empty : str_paragraph;
            if (!at_edge && run == 2)
                replacement = NULL; /* "\n\n" itself: handled above, kept for clarity */
        } else if (at_edge) {
            replacement = str_empty;
        } else {
            PyObject *kept = PyObject_CallFunction(keeps_break, "Onn", source, start, end);
            if (kept == NULL)
                goto fail;
            int keeps = PyObject_IsTrue(kept);
            Py_DECREF(kept);
            if (keeps < 0)
                goto fail;
            if (keeps) {
                replacement = run == 1 ? NULL : str_newline;
            } else {
                joined++;
                joined_touched = 1;
                Py_UCS4 last = AT(&text, start - 1), next = AT(&text, end);
                int latin = last < 128 && is_ascii_alnum(last) && next < 128;
                replacement = latin && is_ascii_alnum(next) ? str_space : str_empty;
            }
        }
        if (replacement != NULL) {
            spaces += run - PyUnicode_GET_LENGTH(replacement);
            spaces_touched = 1;
            PyObject *edit = Py_BuildValue("(nnO)", start, end, replacement);
            if (edit == NULL || PyList_Append(edits, edit)) {
                Py_XDECREF(edit);
                goto fail;
            }
            Py_DECREF(edit);
        }
        start = end - 1;
    }
    PyObject *spaces_count = spaces_touched ? PyLong_FromSsize_t(spaces) : Py_NewRef(Py_None);
    PyObject *joined_count = joined_touched ? PyLong_FromSsize_t(joined) : Py_NewRef(Py_None);
    PyObject *result = NULL;
    if (spaces_count != NULL && joined_count != NULL)
        result = PyTuple_Pack(3, edits, spaces_count, joined_count);
    Py_XDECREF(spaces_count);
    Py_XDECREF(joined_count);
    Py_DECREF(edits);
    return result;
fail:
    Py_DECREF(edits);
    return NULL;
}

/* --- the Cantonese rewrite's choice of keys (rules.normalize.dialect._segment) -------------------------- */

typedef struct {
    Py_ssize_t start, end, number, order;
} Key;

/* By start, then in the automaton's order (the order _keys_at keeps within one start) */
static int key_order(const void *a, const void *b) {
    const Key *x = a, *y = b;
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->order > y->order) - (x->order < y->order);
}

/* bisect.bisect_left(positions, value, low, high) */
static Py_ssize_t bisect_left(const Py_ssize_t *positions, Py_ssize_t value, Py_ssize_t low, Py_ssize_t high) {
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        if (positions[middle] < value)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* The Mandarin of key `number` at `start` (a borrowed reference), Py_None when its context does not hold, NULL on
 * an error: the unconditional rendering, else the first context that holds (dialect_lexicon.context_check). */
static PyObject *key_mandarin(PyObject *source, Py_ssize_t start, Py_ssize_t number, PyObject *unconditional,
                              PyObject *contexts) {
    PyObject *mandarin = PyTuple_GET_ITEM(unconditional, number);
    if (mandarin != Py_None)
        return mandarin;
    PyObject *entry = PyTuple_GET_ITEM(contexts, number);
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
        PyErr_SetString(PyExc_TypeError, "a key without an unconditional rendering needs (check, mandarins)");
        return NULL;
    }
    PyObject *mandarins = PyTuple_GET_ITEM(entry, 1);
    if (!PyTuple_Check(mandarins)) {
        PyErr_SetString(PyExc_TypeError, "a context's renderings are a tuple");
        return NULL;
    }
    PyObject *fitting = PyObject_CallMethod(PyTuple_GET_ITEM(entry, 0), "match", "On", source, start);
    if (fitting == NULL)
        return NULL;
    if (fitting == Py_None) {
        Py_DECREF(fitting);
        return Py_None;
    }
    PyObject *last = PyObject_GetAttrString(fitting, "lastindex");
    Py_DECREF(fitting);
    if (last == NULL)
        return NULL;
    Py_ssize_t group = PyLong_AsSsize_t(last);
    Py_DECREF(last);
    if (group == -1 && PyErr_Occurred())
        return NULL;
    if (group < 1 || group > PyTuple_GET_SIZE(mandarins)) {
        PyErr_SetString(PyExc_IndexError, "a context's group has no rendering");
        return NULL;
    }
    return PyTuple_GET_ITEM(mandarins, group - 1);
}

PyDoc_STRVAR(segment_doc,
             "segment(text, occurrences, unconditional, contexts) -> [(start, end, mandarin)]: the keys to rewrite "
             "in a text that is one Cantonese region, chosen as rules.normalize.dialect._segment chooses them from "
             "every (number, start, end) the lexicon's automaton found there, in its order.");

static PyObject *segment(PyObject *module, PyObject *args) {
    PyObject *source, *occurrences, *unconditional, *contexts;
    if (!PyArg_ParseTuple(args, "UOO!O!", &source, &occurrences, &PyTuple_Type, &unconditional, &PyTuple_Type,
                          &contexts))
        return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(source), keys_known = PyTuple_GET_SIZE(unconditional);
    if (PyTuple_GET_SIZE(contexts) != keys_known) {
        PyErr_SetString(PyExc_ValueError, "unconditional and contexts differ in length");
        return NULL;
    }
    PyObject *fast = PySequence_Fast(occurrences, "occurrences must be a sequence");
    if (fast == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast), size = count ? count : 1;
    PyObject *result = NULL;
    Key *keys = PyMem_Malloc((size_t)size * sizeof(Key));
    Py_ssize_t *positions = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    Py_ssize_t *first = PyMem_Malloc((size_t)(size + 1) * sizeof(Py_ssize_t));
    int64_t *best = PyMem_Calloc((size_t)(size + 1), sizeof(int64_t));
    Py_ssize_t *chosen_end = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    Py_ssize_t *chosen_next = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    PyObject **chosen = PyMem_Calloc((size_t)size, sizeof(PyObject *)); /* borrowed: held by the lexicon */
    if (!keys || !positions || !first || !best || !chosen_end || !chosen_next || !chosen) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
            PyErr_SetString(PyExc_TypeError, "an occurrence is a (number, start, end) tuple");
            goto done;
        }
        Key *key = &keys[i];
        key->number = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
        key->start = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
        key->end = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 2));
        key->order = i;
        if (PyErr_Occurred())
            goto done;
        if (key->number < 0 || key->number >= keys_known || key->start < 0 || key->end <= key->start ||
            key->end > length) {
            PyErr_SetString(PyExc_ValueError, "an occurrence lies outside the text or the lexicon");
            goto done;
        }
    }
    qsort(keys, (size_t)count, sizeof(Key), key_order);
    Py_ssize_t starts = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (i == 0 || keys[i].start != keys[i - 1].start) {
            positions[starts] = keys[i].start;
            first[starts++] = i;
        }
    }
    first[starts] = count;
    /* Right to left: the most Cantonese characters covered, then the fewest keys; a later key wins a tie. */
    int64_t scale = (int64_t)length + 1;
    for (Py_ssize_t index = starts - 1; index >= 0; index--) {
        Py_ssize_t start = positions[index];
        int64_t best_here = best[index + 1];
        for (Py_ssize_t k = first[index]; k < first[index + 1]; k++) {
            PyObject *mandarin = key_mandarin(source, start, keys[k].number, unconditional, contexts);
            if (mandarin == NULL)
                goto done;
            if (mandarin == Py_None)
                continue;
            Py_ssize_t following = bisect_left(positions, keys[k].end, index + 1, starts);
            int64_t value = best[following] + (int64_t)(keys[k].end - start) * scale - 1;
            if (value > best_here) {
                best_here = value;
                chosen[index] = mandarin;
                chosen_end[index] = keys[k].end;
                chosen_next[index] = following;
            }
        }
        best[index] = best_here;
    }
    result = PyList_New(0);
    for (Py_ssize_t index = 0; result != NULL && index < starts;) {
        if (chosen[index] == NULL) {
            index++;
            continue;
        }
        PyObject *edit = Py_BuildValue("(nnO)", positions[index], chosen_end[index], chosen[index]);
        if (edit == NULL || PyList_Append(result, edit))
            Py_CLEAR(result);
        Py_XDECREF(edit);
        index = chosen_next[index];
    }
done:
    Py_DECREF(fast);
    PyMem_Free(keys);
    PyMem_Free(positions);
    PyMem_Free(first);
    PyMem_Free(best);
    PyMem_Free(chosen_end);
    PyMem_Free(chosen_next);
    PyMem_Free(chosen);
    return result;
}

/* --- module --------------------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"apply_edits", apply_edits, METH_VARARGS, apply_edits_doc},
    {"prescan_table", prescan_table, METH_VARARGS, prescan_table_doc},
    {"prescan", prescan, METH_VARARGS, prescan_doc},
    {"punctuate", punctuate, METH_VARARGS, punctuate_doc},
    {"whitespace", whitespace, METH_VARARGS, whitespace_doc},
    {"segment", segment, METH_VARARGS, segment_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_kernels", "Compiled kernels of rules.normalize (see kernels.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *array_module = PyImport_ImportModule("array");
    if (array_module == NULL)
        return NULL;
    array_type = PyObject_GetAttrString(array_module, "array");
    Py_DECREF(array_module);
    if (array_type == NULL)
        return NULL;
    str_ellipsis = PyUnicode_FromString("\xe2\x80\xa6\xe2\x80\xa6");
    str_open_paren = PyUnicode_FromOrdinal(0xFF08);
    str_close_paren = PyUnicode_FromOrdinal(0xFF09);
    str_open_quote = PyUnicode_FromOrdinal(0x201C);
    str_close_quote = PyUnicode_FromOrdinal(0x201D);
    str_empty = PyUnicode_FromString("");
    str_space = PyUnicode_FromString(" ");
    str_newline = PyUnicode_FromString("\n");
    str_paragraph = PyUnicode_FromString("\n\n");
    if (!str_ellipsis || !str_open_paren || !str_close_paren || !str_open_quote || !str_close_quote || !str_empty ||
        !str_space || !str_newline || !str_paragraph)
        return NULL;
    punctuation_bits_init();
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    if (PyModule_AddIntConstant(module, "KERNELS_VERSION", KERNELS_VERSION) ||
        PyModule_AddStringConstant(module, "SOURCE_SHA256", KERNELS_SOURCE_SHA256) ||
        PyModule_AddIntConstant(module, "IN_CLASS", IN_CLASS) || PyModule_AddIntConstant(module, "PAIRED", PAIRED) ||
        PyModule_AddIntConstant(module, "SECOND", SECOND) || PyModule_AddIntConstant(module, "FOLD", FOLD) ||
        PyModule_AddIntConstant(module, "TRADITIONAL", TRADITIONAL) ||
        PyModule_AddIntConstant(module, "MARKER", MARKER) || PyModule_AddIntConstant(module, "MARK", MARK) ||
        PyModule_AddIntConstant(module, "FOUND", FOUND) || PyModule_AddIntConstant(module, "DIGIT", DIGIT)) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
