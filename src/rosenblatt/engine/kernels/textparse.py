"""Compiled parsing of data file blocks: decimal numbers, svmlight lines, plain CSV lines.

Everything here works on a block of whole lines as a ``uint8`` array (read-only
is fine) and fills arrays the caller allocated; nothing raises. What the fast
paths cannot settle goes back to the caller, which decides it in Python:

- :func:`number` converts the decimal numbers of the grammar
  ``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`` with at most 19
  significant digits, to exactly the double Python's ``float()`` gives:
  Clinger's fast path (a mantissa below 2**53 and a power of ten up to 10**22 are
  both exact, so one IEEE multiplication or division rounds correctly), and for
  the other mantissas and exponents the Eisel-Lemire algorithm with a 128-bit
  product of the mantissa and a truncated power of five, which never needs a
  fallback for 19 digits (Lemire, "Number parsing at a gigabyte per second",
  2021; Mushtak and Lemire, "Fast number parsing without fallback", 2023). Any
  other token (more digits, ``inf``, ``nan``, underscores, non-ASCII digits, an
  overflow) is *deferred*: the caller runs ``float()`` on it.
- :func:`svmlight_block` reads ``label [qid:n] index:value ...`` lines; it stops
  at a line it cannot read in full (a token that is not ``index:value`` with a
  plain integer index, indices that do not increase, an index beyond int32),
  which the caller reads in Python.
- :func:`csv_block` reads comma-separated lines without quotes; it stops at a
  line with the wrong number of fields, one that only Unicode could call blank,
  or a label that Unicode whitespace might surround.
- :func:`dedupe` gives every distinct byte string (the labels) an id.

The layout of this one file is deliberate: numba caches each function keyed on
its own source file, so the helpers the parsers inline live beside them. The constant
they read (``FULL``) is in ``_core/kernel_constants.py``; both files are sources of the
kernels' library (``engine/kernels/sources.txt``), and importing :mod:`rosenblatt.engine.kernels`
drops this module's numba cache when either changes.
"""

import math

import numpy as np
from numba import njit

from ..._core.kernel_constants import FULL

OK, DEFER = 0, 1

_M32 = np.uint64(0xFFFFFFFF)
_TOP = np.uint64(1) << np.uint64(63)
_TWO53 = np.uint64(1) << np.uint64(53)
_POW10 = np.array([10.0**k for k in range(23)])
_SMALLEST_POWER, _LARGEST_POWER = -342, 308


def _powers_of_five():
    """The 128 most significant bits of 5**q, q in [-342, 308], as (high, low) pairs
    (fast_float's table: truncated for q >= 0, rounded up for q < 0)."""
    table = []
    for q in range(_SMALLEST_POWER, 0):
        power5 = 5**-q
        z = power5.bit_length() - (1 if power5 & (power5 - 1) == 0 else 0)
        if q >= -27:
            c = 2 ** (z + 127) // power5 + 1
        else:
            c = 2 ** (2 * z + 128) // power5 + 1
            while c >= 1 << 128:
                c //= 2
        table.append(c)
    for q in range(0, _LARGEST_POWER + 1):
        power5 = 5**q
        while power5 < 1 << 127:
            power5 *= 2
        while power5 >= 1 << 128:
            power5 //= 2
        table.append(power5)
    return np.array([[c >> 64, c & (2**64 - 1)] for c in table], dtype=np.uint64)


_POW5 = _powers_of_five()


@njit(cache=True, inline="always")
def _mul128(a, b):
    """The 128-bit product of two uint64: (high, low)."""
    a_lo, a_hi = a & _M32, a >> np.uint64(32)
    b_lo, b_hi = b & _M32, b >> np.uint64(32)
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    middle = p1 + (p0 >> np.uint64(32)) + (p2 & _M32)
    high = p3 + (middle >> np.uint64(32)) + (p2 >> np.uint64(32))
    low = (middle << np.uint64(32)) | (p0 & _M32)
    return high, low


@njit(cache=True, inline="always")
def _leading_zeros(w):
    n = 0
    for step in (32, 16, 8, 4, 2, 1):
        if w < (np.uint64(1) << np.uint64(64 - step)):
            w <<= np.uint64(step)
            n += step
    return n


@njit(cache=True)
def _eisel_lemire(w, q):
    """``w * 10**q`` correctly rounded (w: 1 to 19 digits). (status, value)."""
    if q < _SMALLEST_POWER:
        return OK, 0.0
    if q > _LARGEST_POWER:
        return DEFER, 0.0  # an overflow: float() says inf
    lz = _leading_zeros(w)
    w = w << np.uint64(lz)
    index = q - _SMALLEST_POWER
    high, low = _mul128(w, _POW5[index, 0])
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(55)
    if (high & mask) == mask:
        second_high, _ = _mul128(w, _POW5[index, 1])
        low = low + second_high
        if second_high > low:
            high = high + np.uint64(1)
    upperbit = np.int64(high >> np.uint64(63))
    shift = upperbit + 64 - 52 - 3
    mantissa = high >> np.uint64(shift)
    power2 = (((152170 + 65536) * q) >> 16) + 63 + upperbit - lz + 1023
    if power2 <= 0:  # subnormal
        if -power2 + 1 >= 64:
            return OK, 0.0
        mantissa = mantissa >> np.uint64(-power2 + 1)
        mantissa = mantissa + (mantissa & np.uint64(1))
        mantissa = mantissa >> np.uint64(1)
        return OK, math.ldexp(float(mantissa), -1074)
    if (
        low <= np.uint64(1)
        and -4 <= q <= 23
        and (mantissa & np.uint64(3)) == np.uint64(1)
        and (mantissa << np.uint64(shift)) == high
    ):
        mantissa = mantissa & ~np.uint64(1)  # exactly halfway: round to even
    mantissa = mantissa + (mantissa & np.uint64(1))
    mantissa = mantissa >> np.uint64(1)
    if mantissa >= (np.uint64(2) << np.uint64(52)):
        mantissa = np.uint64(1) << np.uint64(52)
        power2 += 1
    if power2 >= 0x7FF:
        return DEFER, 0.0
    # mantissa holds the hidden bit: value = mantissa * 2**(power2 - 1075)
    return OK, math.ldexp(float(mantissa), power2 - 1075)


@njit(cache=True)
def number(buf, i, end):
    """``(status, value)`` of the token ``buf[i:end]``: ``OK`` and the value ``float()``
    gives, or ``DEFER`` when only ``float()`` can tell (see the module)."""
    status, value, stop = _prefix(buf, i, end)
    if stop != end:
        return DEFER, 0.0
    return status, value


@njit(cache=True)
def _prefix(buf, i, end):
    """``(status, value, stop)`` of the number that starts at ``buf[i]`` and ends at
    ``stop`` (at most ``end``): the first byte that cannot continue it."""
    if i >= end:
        return DEFER, 0.0, i
    negative = False
    c = buf[i]
    if c == 45:  # -
        negative = True
        i += 1
    elif c == 43:  # +
        i += 1
    mantissa = np.uint64(0)
    digits = 0
    exponent = 0
    seen = False
    step = 0  # what a digit adds to the exponent: 0 before the point, -1 after it
    while True:
        while i < end:
            c = buf[i]
            if c < 48 or c > 57:
                break
            seen = True
            if digits or c != 48:  # leading zeros are not significant
                if digits == 19:
                    return DEFER, 0.0, i
                mantissa = mantissa * np.uint64(10) + np.uint64(c - 48)
                digits += 1
            exponent += step
            i += 1
        if step == 0 and i < end and buf[i] == 46:  # . : the fraction's digits
            step = -1
            i += 1
        else:
            break
    if not seen:
        return DEFER, 0.0, i
    if i < end and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        minus = False
        if i < end and (buf[i] == 45 or buf[i] == 43):
            minus = buf[i] == 45
            i += 1
        e = 0
        start = i
        while i < end:
            c = buf[i]
            if c < 48 or c > 57:
                break
            if e < 100_000:
                e = e * 10 + (c - 48)
            i += 1
        if i == start:  # no digit after the e
            return DEFER, 0.0, i
        exponent += -e if minus else e
    if mantissa == 0:
        value = 0.0
    elif mantissa < _TWO53 and -22 <= exponent <= 22:
        value = float(mantissa)
        if exponent >= 0:
            value = value * _POW10[exponent]
        else:
            value = value / _POW10[-exponent]
    else:
        status, value = _eisel_lemire(mantissa, exponent)
        if status != OK:
            return status, 0.0, i
    return OK, (-value if negative else value), i


@njit(cache=True, inline="always")
def _blank(c):
    """Whitespace inside a line: space, tab, vertical tab, form feed."""
    return c == 32 or c == 9 or c == 11 or c == 12


@njit(cache=True, inline="always")
def _line_end(buf, i, n):
    """The position after the line break at or after ``i`` (or ``n``)."""
    while i < n:
        c = buf[i]
        if c == 10:
            return i + 1
        if c == 13:
            if i + 1 < n and buf[i + 1] == 10:
                return i + 2
            return i + 1
        i += 1
    return n


@njit(cache=True, inline="always")
def _index(buf, i, n):
    """``(ok, value, stop)`` of the integer ``[+-]?digits`` (at most 18 digits) at ``i``."""
    negative = False
    if i < n and (buf[i] == 45 or buf[i] == 43):
        negative = buf[i] == 45
        i += 1
    start = i
    value = 0
    while i < n and 48 <= buf[i] <= 57:
        if i - start == 18:
            return False, 0, i
        value = value * 10 + (buf[i] - 48)
        i += 1
    if i == start:
        return False, 0, i
    return True, -value if negative else value, i


@njit(cache=True, inline="always")
def _token_end(buf, i, n):
    """The end of the svmlight token at ``i``: a blank, a line break, ``#`` or ``n``."""
    while i < n:
        c = buf[i]
        if _blank(c) or c == 10 or c == 13 or c == 35:
            return i
        i += 1
    return n


_INT32 = 2**31
_NO_FIRST = np.iinfo(np.int64).max
_NO_LAST = np.iinfo(np.int64).min


@njit(cache=True, nogil=True)
def svmlight_block(
    buf,
    labelled,
    indptr,
    indices,
    values,
    row_line,
    row_start,
    label_start,
    label_end,
    row_first,
    row_last,
    deferred,
):
    """Parse a block of whole svmlight lines into CSR arrays (see the module).

    ``indices`` get the indices as written (the index base is applied later);
    ``row_first``/``row_last`` the first and last index of each row; ``deferred``
    rows ``(nonzero position, token start, token end, line)`` of values left to
    ``float()``. Lines are counted from 0. Stops at the first line to read in
    Python, or when an array is full. Returns ``(rows, nonzeros, that line or -1
    or FULL, deferred values)``.
    """
    n = buf.shape[0]
    i = 0
    line = 0
    rows = 0
    nnz = 0
    n_deferred = 0
    indptr[0] = 0
    while i < n:
        start = i
        while i < n and _blank(buf[i]):
            i += 1
        if i >= n or buf[i] == 10 or buf[i] == 13 or buf[i] == 35:
            i = _line_end(buf, i, n)
            line += 1
            continue
        if rows >= row_line.shape[0]:
            return rows, nnz, FULL, n_deferred
        row_line[rows] = line
        row_start[rows] = start
        first = _NO_FIRST
        last = _NO_LAST
        bad = False
        if labelled:
            a = i
            while i < n and not (_blank(buf[i]) or buf[i] == 10 or buf[i] == 13 or buf[i] == 35):
                i += 1
            label_start[rows] = a
            label_end[rows] = i
        maybe_qid = True
        while True:
            while i < n and _blank(buf[i]):
                i += 1
            if i >= n or buf[i] == 10 or buf[i] == 13 or buf[i] == 35:
                break
            if maybe_qid:
                maybe_qid = False
                if (
                    i + 4 <= n
                    and buf[i] == 113
                    and buf[i + 1] == 105
                    and buf[i + 2] == 100
                    and buf[i + 3] == 58
                ):  # qid:
                    i = _token_end(buf, i, n)
                    continue
            ok, index, colon = _index(buf, i, n)
            if not ok or colon >= n or buf[colon] != 58 or not -_INT32 <= index < _INT32:
                bad = True
                i = _token_end(buf, i, n)
                continue
            if first != _NO_FIRST and index <= last:
                bad = True
            if nnz >= indices.shape[0] or n_deferred >= deferred.shape[0]:
                return rows, nnz, FULL, n_deferred
            status, value, i = _prefix(buf, colon + 1, n)
            stop = _token_end(buf, i, n)
            if stop != i or status != OK:  # more than a number after the colon
                deferred[n_deferred, 0] = nnz
                deferred[n_deferred, 1] = colon + 1
                deferred[n_deferred, 2] = stop
                deferred[n_deferred, 3] = line
                n_deferred += 1
                i = stop
            indices[nnz] = index
            values[nnz] = value
            nnz += 1
            if first == _NO_FIRST:
                first = index
            last = index
        if bad:
            return rows, nnz, line, n_deferred
        i = _line_end(buf, i, n)
        row_first[rows] = first
        row_last[rows] = last
        rows += 1
        indptr[rows] = nnz
        line += 1
    return rows, nnz, -1, n_deferred


@njit(cache=True, inline="always")
def _strippable(c):
    """ASCII characters that ``str.strip`` removes (besides line breaks)."""
    return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)


@njit(cache=True, nogil=True)
def csv_block(
    buf,
    width,
    label,
    X,
    label_start,
    label_end,
    row_line,
    row_start,
    deferred,
):
    """Parse a block of whole CSV lines without quotes (see the module).

    ``X`` (rows, features) gets the feature cells, the label column (``label``,
    or -1) left out; ``deferred`` rows ``(row, feature column, start, end, line)``
    of cells left to ``float()``. Lines are counted from 0. Stops at the first line
    to read in Python, or when an array is full. Returns ``(rows, that line or -1 or
    FULL, deferred cells, longest line)``.

    Each cell is read once: a number from its first non-blank byte, then only
    blanks up to the comma (anything else leaves the cell to ``float()``).
    """
    n = buf.shape[0]
    i = 0
    line = 0
    rows = 0
    n_deferred = 0
    longest = 0
    while i < n:
        start = i
        if rows >= X.shape[0] or n_deferred + width > deferred.shape[0]:
            return rows, FULL, n_deferred, longest
        first_deferred = n_deferred
        unicode_edge = False
        j = 0
        column = 0
        a = i
        while True:
            if j >= width:  # more fields than the first record
                return rows, line, n_deferred, longest
            s = a
            while s < n and _blank(buf[s]):
                s += 1
            if j == label:
                b = s
                while b < n and buf[b] != 44 and buf[b] != 10 and buf[b] != 13:
                    b += 1
                t = b
                while s < t and _strippable(buf[s]):
                    s += 1
                while t > s and _strippable(buf[t - 1]):
                    t -= 1
                label_start[rows] = s
                label_end[rows] = t
                unicode_edge = s < t and (buf[s] >= 128 or buf[t - 1] >= 128)
            else:
                status, value, b = _prefix(buf, s, n)
                while b < n:
                    c = buf[b]
                    if c == 44 or c == 10 or c == 13:
                        break
                    if not _blank(c):
                        status = DEFER
                    b += 1
                X[rows, column] = value
                if status != OK:
                    deferred[n_deferred, 0] = rows
                    deferred[n_deferred, 1] = column
                    deferred[n_deferred, 2] = a
                    deferred[n_deferred, 3] = b
                    deferred[n_deferred, 4] = line
                    n_deferred += 1
                column += 1
            j += 1
            if b < n and buf[b] == 44:
                a = b + 1
                continue
            break
        end = b
        longest = max(longest, end - start)
        following = _line_end(buf, end, n)
        if j == 1:  # no comma: a blank line, or one field
            blank = True
            unicode = False
            for k in range(start, end):
                c = buf[k]
                if c >= 128:
                    unicode = True
                elif not _strippable(c):
                    blank = False
            if blank and not unicode:
                n_deferred = first_deferred
                i = following
                line += 1
                continue
            if blank:  # Unicode may call it blank
                return rows, line, first_deferred, longest
        if j != width or (label >= 0 and unicode_edge):
            return rows, line, first_deferred, longest
        row_line[rows] = line
        row_start[rows] = start
        rows += 1
        i = following
        line += 1
    return rows, -1, n_deferred, longest


@njit(cache=True, inline="always")
def _same(buf, a0, a1, b0, b1):
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):
        if buf[a0 + k] != buf[b0 + k]:
            return False
    return True


@njit(cache=True, nogil=True)
def dedupe(buf, starts, ends, ids, firsts):
    """Give each distinct byte string ``buf[starts[r]:ends[r]]`` an id, in order of
    first appearance; ``ids[r]`` gets row ``r``'s and ``firsts[d]`` the first row of
    id ``d`` (room for one per row). Returns the number of ids. The caller allocates
    the outputs, so the call returns a number, as a kernel built ahead of time must."""
    n = starts.shape[0]
    capacity = 64
    table = np.full(capacity, -1, np.int64)
    hashes = np.empty(16, np.uint64)
    count = 0
    previous = -1
    for r in range(n):
        a, b = starts[r], ends[r]
        if previous >= 0:  # runs of one label are common
            p = firsts[previous]
            if _same(buf, starts[p], ends[p], a, b):
                ids[r] = previous
                continue
        h = np.uint64(14695981039346656037)
        for k in range(a, b):
            h = (h ^ np.uint64(buf[k])) * np.uint64(1099511628211)
        slot = np.int64(h & np.uint64(capacity - 1))
        while True:
            d = table[slot]
            if d < 0:
                if count == hashes.shape[0]:
                    more = np.empty(2 * count, np.uint64)
                    more[:count] = hashes
                    hashes = more
                firsts[count] = r
                hashes[count] = h
                table[slot] = count
                d = count
                count += 1
                if 2 * count > capacity:
                    capacity *= 4
                    table = np.full(capacity, -1, np.int64)
                    for e in range(count):
                        s = np.int64(hashes[e] & np.uint64(capacity - 1))
                        while table[s] >= 0:
                            s = (s + 1) & (capacity - 1)
                        table[s] = e
                break
            p = firsts[d]
            if hashes[d] == h and _same(buf, starts[p], ends[p], a, b):
                break
            slot = (slot + 1) & (capacity - 1)
        ids[r] = d
        previous = d
    return count
