"""Train from data files larger than memory, one chunk of samples at a time.

A *scan* (:func:`index_file`, which is :func:`rosenblatt.data.readers.scan`) reads the
file once and fixes what holds for the whole file -- header, columns, svmlight
index base and width, the label set (for one-pass class discovery) -- and where
every chunk of ``chunk_size`` samples starts (always between records, also when
a quoted CSV field spans lines). To check the file it parses every record, and,
as Vowpal Wabbit does, it writes them to a *binary cache* (flat arrays: CSR
``indptr``/``indices``/``values`` or dense rows, label ids; see
:mod:`rosenblatt.data.readers._cache`), in a temporary folder by default, so the text
is parsed once: every epoch reads the cache, never the text. Each epoch visits
the chunks in a fresh random order, reading each one with plain reads into fresh
arrays (the next one while the current one trains), and hands it to the
estimator (``fit_batches``, the engine's epoch driver), which runs one pass over
the chunk in its own shuffled order (``shuffle=True``: a fresh permutation of the
chunk's rows, drawn from the estimator's ``random_state``). So an epoch presents
every sample once, in a random order that is random at two levels: which chunk
comes next, and which row inside the chunk. Memory holds a parse block or three
chunks, and the weights; the cache takes about 12 bytes per svmlight nonzero
(8 per CSV cell) on disk.

Streamed training runs a few epochs by default (``DEFAULT_STREAM_EPOCHS``, 5),
stopping earlier after an epoch without a mistake: a pass over a file too large
for memory is expensive, and the estimator's ``max_iter`` (meant for data in
memory) is not what bounds it.

Files are read by :mod:`rosenblatt.data.readers`, the reader in-memory reading uses
too, so a file streams exactly as it reads in memory (same ``X``, ``y``, classes,
and the same error for a malformed line). Formats follow the file extension:

- ``.svm``, ``.svmlight``, ``.libsvm``: ``label index:value ...`` per line,
  parsed by a compiled parser (values exactly as ``float()`` reads them).
- ``.csv``: comma-separated numbers, an optional header, the label in the last
  column or in ``label_column``; RFC 4180 quoting.
- ``.tsv``: ``label<TAB>text`` per line. Documents are hashed by a
  :class:`~sklearn.feature_extraction.text.HashingVectorizer`
  (``alternate_sign=False``, l2 norm), which needs no vocabulary pass; the
  fitted result is a pipeline of that vectorizer and the estimator, so it
  predicts on raw text.
- any of them gzipped (``.csv.gz``, ...): the scan decompresses the file once
  (into the cache, or without one into a temporary copy that chunks are read
  from, removed with the index, or at exit).

A malformed line raises :class:`~rosenblatt.exceptions.DataFileError` naming the
file and the 1-based line.

The code lives in private modules beside this one, one job each: the scan, the
progress reports and the chunk orders (``_stream_index``), reading an epoch's
chunks (``_stream_read``), the epochs of a fit and where it stands
(``_stream_epochs``) and scoring (``_stream_score``); this module gathers their
public names. Training on a stream,
:func:`~rosenblatt.training.stream.fit_stream` (which the command line's
``train --stream`` calls), is a training workflow, in the layer above the model files its
checkpoints are (``rosenblatt.training``); ``rosenblatt.streaming`` gives it with the
names here.
"""

from __future__ import annotations

from .._core.config import DEFAULT_STREAM_EPOCHS
from ._stream_epochs import StreamEpochs, hashing_vectorizer
from ._stream_index import StreamProgress, chunk_orders, index_file
from ._stream_score import score_stream
from ._stream_stdin import InputChunks, InputEpochs
from .readers import Schema as ChunkIndex
from .readers import iter_chunks, read_chunk

__all__ = [
    "DEFAULT_STREAM_EPOCHS",
    "ChunkIndex",
    "InputChunks",
    "InputEpochs",
    "StreamEpochs",
    "StreamProgress",
    "chunk_orders",
    "hashing_vectorizer",
    "index_file",
    "iter_chunks",
    "read_chunk",
    "score_stream",
]

# The public home of the names defined beside this module: the reference documents
# them here.
_DEFINED_BESIDE = (
    InputChunks,
    InputEpochs,
    StreamEpochs,
    StreamProgress,
    chunk_orders,
    hashing_vectorizer,
    index_file,
)
for _public in (*_DEFINED_BESIDE, score_stream):
    _public.__module__ = __name__
