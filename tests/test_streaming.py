"""Streaming training from files: the same model as partial_fit replayed in the same order."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.pipeline import Pipeline

from rosenblatt.apps.cli._train_stream import train_stream
from rosenblatt.data.readers import Stream
from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron
from rosenblatt.exceptions import DataFileError
from rosenblatt.streaming import (
    fit_stream,
    index_file,
    iter_chunks,
    score_stream,
)


def _noisy(n=230, d=6, n_classes=2, noise=0.1, seed=0):
    rng = np.random.RandomState(seed)
    X = np.round(rng.randn(n, d), 3)
    W = rng.randn(n_classes, d)
    y = np.argmax(X @ W.T, axis=1) if n_classes > 2 else (X @ W[0] > 0).astype(int)
    flip = rng.rand(n) < noise
    y[flip] = rng.randint(n_classes, size=flip.sum())
    return X, y


def _replay(estimator, chunks, classes, epochs, seed):
    """What fit_stream must do: a fresh chunk permutation per epoch, partial_fit per chunk."""
    rng = np.random.RandomState(seed)
    history = []
    for _ in range(epochs):
        mistakes = 0
        for c in rng.permutation(len(chunks)):
            X, y = chunks[c]
            estimator.partial_fit(X, y, classes=classes)
            mistakes += estimator.mistakes_per_epoch_[-1]
        history.append(mistakes)
        if mistakes == 0:
            break
    return estimator, history


def _split(X, y, size):
    return [(X[i : i + size], y[i : i + size]) for i in range(0, X.shape[0], size)]


def _assert_same(streamed, expected, history):
    np.testing.assert_array_equal(streamed.coef_, expected.coef_)
    np.testing.assert_array_equal(streamed.intercept_, expected.intercept_)
    assert streamed.mistakes_per_epoch_ == history
    assert streamed.n_iter_ == len(history)
    assert streamed.n_mistakes_ == sum(history)
    assert streamed.converged_ == (history[-1] == 0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Perceptron(random_state=3),
        lambda: AveragedPerceptron(random_state=3),
        lambda: Perceptron(random_state=3, multi_class="multinomial"),
    ],
)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_svmlight_stream_equals_replayed_partial_fit(tmp_path, make, n_classes):
    X, y = _noisy(n_classes=n_classes)
    path = tmp_path / "train.svmlight"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    with pytest.warns(ConvergenceWarning):
        streamed = fit_stream(make(), path, chunk_size=40, epochs=6)
    X_all, y_all = load_svmlight_file(str(path), n_features=X.shape[1], zero_based=False)
    expected, history = _replay(
        make(), _split(X_all.tocsr(), y_all.astype(int), 40), np.unique(y), 6, seed=3
    )
    assert len(history) == 6 and history[-1] > 0  # noisy: every epoch runs
    _assert_same(streamed, expected, history)
    assert np.issubdtype(streamed.classes_.dtype, np.integer)


def test_stream_stops_after_an_epoch_without_mistakes(tmp_path):
    rng = np.random.RandomState(1)
    X = rng.randn(300, 4)
    y = np.where(X @ np.array([1.0, -2.0, 0.5, 1.0]) + 0.3 > 0, 1, -1)
    X[y == 1] += 0.2  # keep a margin
    X[y == -1] -= 0.2
    y = np.where(X @ np.array([1.0, -2.0, 0.5, 1.0]) + 0.3 > 0, 1, -1)
    path = tmp_path / "sep.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    streamed = fit_stream(
        Perceptron(tol=None, random_state=0), path, chunk_size=64, epochs=200, random_state=7
    )
    X_all, y_all = load_svmlight_file(str(path), n_features=4, zero_based=True)
    expected, history = _replay(
        Perceptron(tol=None, random_state=0),
        _split(X_all, y_all.astype(int), 64),
        [-1, 1],
        200,
        seed=7,
    )
    assert streamed.converged_ and history[-1] == 0 and len(history) < 200
    _assert_same(streamed, expected, history)
    assert streamed.score(X, y) == 1.0


def test_csv_stream_with_header_and_named_label(tmp_path):
    X, y = _noisy(n=150, d=3, n_classes=3, seed=2)
    path = tmp_path / "train.csv"
    lines = ["a,label,b,c"] + [f"{r[0]},{t},{r[1]},{r[2]}" for r, t in zip(X, y)]
    lines.insert(40, "")  # blank lines are skipped, not counted
    path.write_text("\r\n".join(lines) + "\r\n")
    with pytest.warns(ConvergenceWarning):
        streamed = fit_stream(
            AveragedPerceptron(random_state=5), path, chunk_size=32, epochs=4, label_column="label"
        )
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    expected, history = _replay(
        AveragedPerceptron(random_state=5),
        _split(table[:, [0, 2, 3]], table[:, 1].astype(int), 32),
        [0, 1, 2],
        4,
        seed=5,
    )
    _assert_same(streamed, expected, history)
    chunks = list(iter_chunks(path, chunk_size=32, label_column="label"))
    assert [len(c[1]) for c in chunks] == [32, 32, 32, 32, 22]
    np.testing.assert_array_equal(np.vstack([c[0] for c in chunks]), table[:, [0, 2, 3]])


_WORDS = (
    "free win prize cash offer now claim urgent lecture notes meeting lunch "
    "tomorrow see you home call later thanks"
).split()


def _documents(n=120, seed=0):
    rng = np.random.RandomState(seed)
    spam_words, ham_words = _WORDS[:8], _WORDS[8:]
    labels = rng.choice(["ham", "spam"], size=n)
    docs = [
        " ".join(rng.choice(spam_words if lab == "spam" else ham_words, size=5))
        + " "
        + rng.choice(_WORDS)
        for lab in labels
    ]
    return docs, labels


def test_tsv_stream_equals_replay_and_predicts_on_text(tmp_path):
    docs, labels = _documents()
    path = tmp_path / "sms.tsv"
    path.write_text("".join(f"{lab}\t{doc}\n" for lab, doc in zip(labels, docs)))
    model = fit_stream(Perceptron(random_state=0), path, chunk_size=25, epochs=50, n_features=2**12)
    assert isinstance(model, Pipeline)
    vectorizer, clf = model.named_steps["vectorizer"], model.named_steps["classifier"]
    assert vectorizer.get_params()["alternate_sign"] is False
    assert vectorizer.get_params()["norm"] == "l2"
    assert vectorizer.n_features == 2**12 and clf.n_features_in_ == 2**12
    hashed = HashingVectorizer(n_features=2**12, alternate_sign=False, norm="l2").transform(docs)
    expected, history = _replay(
        Perceptron(random_state=0), _split(hashed, labels, 25), ["ham", "spam"], 50, seed=0
    )
    _assert_same(clf, expected, history)
    assert clf.converged_
    assert model.predict(
        ["claim your free cash prize now", "see you at lunch tomorrow"]
    ).tolist() == ["spam", "ham"]
    assert score_stream(model, path, chunk_size=50) == 1.0


def test_text_model_saves_and_loads(tmp_path):
    from rosenblatt.persistence import load, save

    docs, labels = _documents(60, seed=1)
    path = tmp_path / "sms.tsv"
    path.write_text("".join(f"{lab}\t{doc}\n" for lab, doc in zip(labels, docs)))
    model = fit_stream(Perceptron(random_state=0), path, chunk_size=16, n_features=2**10)
    save(model, tmp_path / "model.rosenblatt")
    again = load(tmp_path / "model.rosenblatt")
    np.testing.assert_array_equal(again.predict(docs), model.predict(docs))


def test_shuffle_false_reads_chunks_and_rows_in_file_order(tmp_path):
    X, y = _noisy(n=90, seed=4)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path))
    with pytest.warns(ConvergenceWarning):
        streamed = fit_stream(Perceptron(shuffle=False), path, chunk_size=20, epochs=3)
    whole = Perceptron(shuffle=False, max_iter=3)
    with pytest.warns(ConvergenceWarning):
        whole.fit(load_svmlight_file(str(path), n_features=6)[0], y)
    _assert_same(streamed, whole, whole.mistakes_per_epoch_)


def test_refit_starts_from_scratch(tmp_path):
    X, y = _noisy(n=80, seed=6)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path))
    clf = Perceptron(random_state=0)
    with pytest.warns(ConvergenceWarning):
        first = fit_stream(clf, path, chunk_size=30, epochs=3).coef_.copy()
        second = fit_stream(clf, path, chunk_size=30, epochs=3).coef_
    np.testing.assert_array_equal(first, second)


def test_index_records_chunks_and_svmlight_width(tmp_path):
    path = tmp_path / "x.libsvm"
    path.write_text("# comment\n1 qid:1 3:1 7:2\n\n-1 2:1  # trailing\n1 1:1\n-1 5:1\n")
    index = index_file(path, chunk_size=3)
    assert index.n_rows.tolist() == [3, 1]
    assert index.first_lines.tolist() == [2, 6]
    assert index.n_features == 7 and index.zero_based is False
    assert index.classes.tolist() == [-1, 1]
    X, y = next(iter_chunks(path, index=index))
    assert sp.issparse(X) and X.shape == (3, 7) and y.tolist() == [1, -1, 1]
    assert index_file(path, n_features=20).n_features == 20
    with pytest.raises(DataFileError, match="beyond n_features=5"):
        index_file(path, n_features=5)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda path: index_file(path, chunk_size=0),
            "The 'chunk_size' argument of index_file must be an int in the range [1, inf) "
            "(finite); got 0.",
        ),
        (  # an index has chunks: None, a file read whole (scan), is no chunk size here
            lambda path: index_file(path, chunk_size=None),
            "The 'chunk_size' argument of index_file must be an int in the range [1, inf) "
            "(finite); got None.",
        ),
        (
            lambda path: fit_stream(Perceptron(), path, chunk_size=0),
            "The 'chunk_size' argument of index_file must be an int in the range [1, inf) "
            "(finite); got 0.",
        ),
        (
            lambda path: fit_stream(Perceptron(), path, chunk_size=2, epochs=0),
            "The 'epochs' argument of fit_stream must be an int in the range [1, inf) "
            "(finite); got 0.",
        ),
        (
            lambda path: fit_stream(Perceptron(), path, chunk_size=2, epochs=2.0),
            "The 'epochs' argument of fit_stream must be an int in the range [1, inf) "
            "(finite); got 2.0.",
        ),
        (
            lambda path: Stream(path, 0, zero_based=False),
            "The 'chunk_size' argument of Stream must be an int in the range [1, inf) "
            "(finite); got 0.",
        ),
        (
            lambda path: Stream(path, 2, zero_based="no"),
            "The 'zero_based' argument of Stream must be one of True, False, 'auto'; got 'no'.",
        ),
    ],
)
def test_streaming_arguments_are_checked_in_the_estimators_words(tmp_path, call, message):
    """Chunk sizes and epochs go through the constraint check of the estimators'
    parameters (``check_args``, the ``CHUNK_SIZE`` rule): one sentence naming the function
    given the value, the value and what is allowed."""
    path = tmp_path / "or.svm"
    path.write_text("-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n")
    with pytest.raises(ValueError) as caught:
        call(path)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "name, content, line, what",
    [
        ("bad.svm", "1 1:1\n-1 2:1\n1 1:1\n-1 2:x\n1 1:1\n", 4, "'2:x' is not index:value"),
        ("bad.svm", "1 1:1\n-1 2:1\n\n1 3:1 2:1\n", 4, "indices must increase"),
        ("bad.svm", "1 1:1\n-1 2:1\n1 3:nan\n", 3, "missing or infinite"),
        ("bad.svm", "1 1:1\n-1 2:1\nspam 3:1\n", 3, "label 'spam' is not a number"),
        ("bad.csv", "1,2,0\n3,4,1\n5,6,0\n7,oops,1\n", 4, "'oops' is not a number"),
        ("bad.csv", "1,2,0\n3,4,1\n5,6,0\n7,1\n", 4, "2 fields"),
        ("bad.tsv", "ham\thello\nspam\twin\nham no tab here\n", 3, "no tab"),
    ],
)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_malformed_line_names_file_and_line(tmp_path, name, content, line, what):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataFileError) as caught:
        fit_stream(Perceptron(random_state=0), path, chunk_size=2, epochs=2)
    message = str(caught.value)
    assert f"{path}, line {line}" in message
    assert what in message


def test_train_stream_cli_hook(tmp_path):
    X, y = _noisy(n=100, seed=8, noise=0.0)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path))
    seen = []
    model, summary = train_stream(
        path,
        "averaged",
        chunk_size=30,
        epochs=500,
        seed=1,
        on_epoch=lambda r: seen.append((r.epoch, r.mistakes)),
    )
    assert isinstance(model, AveragedPerceptron)
    assert summary["converged"] and summary["train_accuracy"] == 1.0
    assert summary["n_samples"] == 100 and summary["n_chunks"] == 4
    assert summary["n_features"] == 6 and summary["classes"] == [0, 1]
    assert summary["zero_based"] is True and summary["data_format"] == "svmlight"
    assert [m for _, m in seen] == summary["mistakes_per_epoch"]
    assert summary["epochs"] == len(seen)
    with pytest.raises(ValueError, match="--stream trains the online algorithms"):
        train_stream(path, "kernel")


# ---------------------------------------------------------------------- the binary cache
def _count_text_parses(monkeypatch):
    """A list that gets an entry for every block of svmlight text parsed from now on."""
    from rosenblatt.data.readers import _svmlight

    calls, original = [], _svmlight.read_block

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_svmlight, "read_block", counted)
    return calls


def _noisy_file(tmp_path, name="train.svm", seed=0):
    X, y = _noisy(n=230, seed=seed)
    path = tmp_path / name
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_later_epochs_read_the_cache_not_the_text(tmp_path, monkeypatch):
    path, X, y = _noisy_file(tmp_path)
    text = path.read_bytes()
    calls = _count_text_parses(monkeypatch)
    after_scan = []

    def on_epoch(report):
        if not after_scan:  # the first epoch is over: take the text away
            after_scan.append(len(calls))
            path.unlink()

    cached = fit_stream(
        Perceptron(random_state=3), path, chunk_size=40, epochs=4, on_epoch=on_epoch
    )
    assert cached.n_iter_ == 4 and after_scan[0] > 0 and len(calls) == after_scan[0]
    # the same model as parsing the text every epoch
    path.write_bytes(text)
    del calls[:]
    parsed = fit_stream(Perceptron(random_state=3), path, chunk_size=40, epochs=4, cache=False)
    assert len(calls) > 4 * 6  # the scan, then every chunk of every epoch
    _assert_same(cached, parsed, parsed.mistakes_per_epoch_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_temporary_cache_is_removed_after_the_fit(tmp_path, monkeypatch):
    import os

    from rosenblatt.data.readers import _cache

    path, _, _ = _noisy_file(tmp_path)
    folders, original = [], _cache.new_folder
    monkeypatch.setattr(_cache, "new_folder", lambda: folders.append(original()) or folders[-1])
    seen = []
    fit_stream(
        Perceptron(random_state=0),
        path,
        chunk_size=40,
        epochs=2,
        on_epoch=lambda r: seen.append(sorted(os.listdir(folders[0]))),
    )
    assert seen[0] == ["indices", "indptr", "labels", "manifest.json", "values"]
    assert not os.path.exists(folders[0])
    with pytest.raises(DataFileError):  # also after an error
        fit_stream(Perceptron(), tmp_path / "missing.svm")
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n-1 2:x\n")
    with pytest.raises(DataFileError, match="line 2"):
        fit_stream(Perceptron(), bad)
    assert all(not os.path.exists(folder) for folder in folders)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_kept_cache_is_reused_until_the_file_changes(tmp_path, monkeypatch):
    import os

    path, X, y = _noisy_file(tmp_path)
    folder = tmp_path / "cache"
    first = fit_stream(Perceptron(random_state=1), path, chunk_size=40, epochs=3, cache=folder)
    assert (folder / "manifest.json").is_file()
    calls = _count_text_parses(monkeypatch)
    again = fit_stream(Perceptron(random_state=1), path, chunk_size=40, epochs=3, cache=folder)
    assert calls == []  # not a line of text parsed
    _assert_same(again, first, first.mistakes_per_epoch_)
    # other options: parsed again
    fit_stream(Perceptron(random_state=1), path, chunk_size=50, epochs=1, cache=folder)
    assert calls
    # the file changed (new content, new modification time): refused, parsed again
    path2, X2, y2 = _noisy_file(tmp_path, "other.svm", seed=5)
    path.write_bytes(path2.read_bytes())
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    del calls[:]
    changed = fit_stream(Perceptron(random_state=1), path, chunk_size=40, epochs=3, cache=folder)
    assert calls
    expected = fit_stream(Perceptron(random_state=1), path, chunk_size=40, epochs=3, cache=False)
    _assert_same(changed, expected, expected.mistakes_per_epoch_)
    # the same size, but touched: refused too
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2 * 10**9))
    del calls[:]
    fit_stream(Perceptron(random_state=1), path, chunk_size=40, epochs=1, cache=folder)
    assert calls
    assert sorted(os.listdir(folder)) == ["indices", "indptr", "labels", "manifest.json", "values"]


@pytest.mark.parametrize(
    "make", [lambda: Perceptron(random_state=3), lambda: AveragedPerceptron(random_state=3)]
)
def test_epochs_from_a_kept_cache_equal_replayed_partial_fit(tmp_path, make):
    path, X, y = _noisy_file(tmp_path)
    folder = tmp_path / "cache"
    for _ in range(2):  # writes the cache, then reads it without parsing
        with pytest.warns(ConvergenceWarning):
            streamed = fit_stream(make(), path, chunk_size=40, epochs=3, cache=folder)
        X_all, y_all = load_svmlight_file(str(path), n_features=X.shape[1], zero_based=False)
        expected, history = _replay(
            make(), _split(X_all.tocsr(), y_all.astype(int), 40), [0, 1], 3, seed=3
        )
        _assert_same(streamed, expected, history)


def test_csv_and_float32_chunks_from_the_cache(tmp_path):
    import os

    X, y = _noisy(n=150, d=3, n_classes=3, seed=2)
    path = tmp_path / "train.csv"
    lines = ["a,label,b,c"] + [f"{r[0]},{t},{r[1]},{r[2]}" for r, t in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    index = index_file(path, 32, label_column="label")
    assert index.cache is not None
    for dtype in (np.float64, np.float32):
        chunks = list(iter_chunks(path, index=index, dtype=dtype))
        stacked = np.vstack([c[0] for c in chunks])
        assert stacked.dtype == dtype
        np.testing.assert_array_equal(stacked, X.astype(dtype))
        np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), y)
    index.close()
    assert not os.path.exists(index.cache.folder)


def test_streamed_training_defaults_to_a_few_epochs(tmp_path):
    from rosenblatt.streaming import DEFAULT_STREAM_EPOCHS

    path, X, y = _noisy_file(tmp_path)
    with pytest.warns(ConvergenceWarning):
        clf = fit_stream(Perceptron(random_state=0, max_iter=1000), path, chunk_size=40)
    assert clf.n_iter_ == DEFAULT_STREAM_EPOCHS == 5
    model, summary = train_stream(path, chunk_size=40)  # the warning becomes a note
    assert summary["epochs"] == 5 and len(summary["mistakes_per_epoch"]) == 5
    assert "did not converge" in summary["notes"][-1]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_progress_during_the_parse_and_after_every_chunk(tmp_path):
    path, X, y = _noisy_file(tmp_path)
    reports = []
    fit_stream(
        Perceptron(random_state=0), path, chunk_size=40, epochs=2, on_progress=reports.append
    )
    parse = [r for r in reports if r.stage == "parse"]
    train = [r for r in reports if r.stage == "train"]
    assert parse and reports[: len(parse)] == parse  # the parse comes first
    assert parse[-1].bytes_read == parse[-1].total_bytes == path.stat().st_size
    assert parse[-1].rows == 230 and parse[-1].n_samples is None
    for epoch in (1, 2):  # six chunks in a random order: 40 rows each, one of 30
        rows = [r.rows for r in train if r.epoch == epoch]
        assert sorted(np.diff([0] + rows)) == [30, 40, 40, 40, 40, 40]
    assert all(r.n_samples == 230 and r.max_epochs == 2 for r in train)
    assert all(r.rows_per_second > 0 for r in train)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_float32_overflow_in_the_cache_names_its_line(tmp_path):
    path = tmp_path / "big.svm"
    path.write_text("1 1:1\n-1 2:1\n1 1:2\n-1 2:1e39\n1 1:1\n")  # 1e39: a float64, not a float32
    with pytest.raises(DataFileError, match=r"line 4: '2:1e39' holds a missing or infinite"):
        fit_stream(Perceptron(), path, chunk_size=2, dtype=np.float32)
    assert fit_stream(Perceptron(), path, chunk_size=2, epochs=1).n_iter_ == 1


def test_an_error_while_training_stops_the_read_ahead(tmp_path, monkeypatch):
    import os
    import threading

    from rosenblatt.data.readers import _cache

    path, _, _ = _noisy_file(tmp_path)
    folders, original = [], _cache.new_folder
    monkeypatch.setattr(_cache, "new_folder", lambda: folders.append(original()) or folders[-1])

    def on_epoch(report):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        fit_stream(Perceptron(random_state=0), path, chunk_size=20, epochs=3, on_epoch=on_epoch)
    assert not any(t.name == "rosenblatt-read-ahead" for t in threading.enumerate())
    assert not os.path.exists(folders[0])


def test_stream_follows_the_estimators_stop_rule(tmp_path):
    """tol reaches fit_stream through the one driver: noisy data stop once the epochs'
    mistakes stop improving, silently; tol=None runs every epoch asked for, with a warning."""
    path, X, y = _noisy_file(tmp_path)
    stopped = fit_stream(Perceptron(tol=0.5, n_iter_no_change=2), path, epochs=30, random_state=0)
    assert stopped.n_iter_ == 1 + 2 and not stopped.converged_
    with pytest.warns(ConvergenceWarning):
        full = fit_stream(Perceptron(tol=None), path, epochs=30, random_state=0)
    assert full.n_iter_ == 30


def test_stream_stops_on_the_weighted_mistake_fraction(tmp_path):
    """The chunks' counts add up to the epoch's: tol watches the summed class weight of the
    mistakes over that of the rows, as fit does (issue 32)."""
    import reference

    path, X, y = _noisy_file(tmp_path, seed=2)
    class_weight = {0: 4.0, 1: 0.5}  # with these the weighted rule stops later

    def make(**params):
        return Perceptron(random_state=0, class_weight=class_weight, **params)

    reports = []
    with pytest.warns(ConvergenceWarning):
        fit_stream(make(tol=None), path, chunk_size=40, epochs=30, on_epoch=reports.append)
    steps = np.where(y == 1, 0.5, 4.0)
    assert all(r.presented_weight == steps.sum() for r in reports)
    weighted = [r.mistake_weight / r.presented_weight for r in reports]
    epochs = reference.plateau_stop(weighted, 1e-3, 3)
    assert epochs > reference.plateau_stop([r.mistakes / r.presented for r in reports], 1e-3, 3)
    stopped = fit_stream(make(n_iter_no_change=3), path, chunk_size=40, epochs=30)
    assert stopped.n_iter_ == epochs and not stopped.converged_
    with pytest.warns(ConvergenceWarning):
        short = fit_stream(make(tol=None), path, chunk_size=40, epochs=epochs)
    np.testing.assert_array_equal(stopped.coef_, short.coef_)


def _alone_and_at_once(fit, names):
    """``fit(name, on_progress)`` for each name, one after another, then all at once in
    threads, each waiting after its first trained chunk until every other is there (so
    that they overlap): ``(alone, at_once)``, each ``{name: what fit returned}``."""
    import threading

    alone = {name: fit(name, None) for name in names}
    barrier, at_once, waited = threading.Barrier(len(names)), {}, set()

    def run(name):
        def meet(report):
            if report.stage == "train" and name not in waited:
                barrier.wait(timeout=60)
                waited.add(name)

        at_once[name] = fit(name, meet)

    threads = [threading.Thread(target=run, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert waited == set(names)  # every run met the others: they ran at once
    return alone, at_once


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_two_fits_over_one_estimator_in_two_threads_are_their_serial_runs(tmp_path):
    """fit_stream trains a copy: the caller's estimator (its parameters, its on_epoch)
    never changes, so two fits over it at once do not meet (issue 42)."""
    from rosenblatt import save

    X, y = _noisy(n=1200, n_classes=3, seed=5)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    own = []
    estimator = AveragedPerceptron(random_state=0, tol=None, on_epoch=own.append)
    before = estimator.get_params()
    runs = {"a": {"chunk_size": 40, "epochs": 3}, "b": {"chunk_size": 70, "epochs": 4}}

    def fit(name, on_progress):
        seen = []
        model = fit_stream(
            estimator, path, on_epoch=seen.append, on_progress=on_progress, **runs[name]
        )
        save(model, tmp_path / f"{name}.rbm")
        return (tmp_path / f"{name}.rbm").read_bytes(), [r.epoch for r in seen], model

    serial, parallel = _alone_and_at_once(fit, runs)
    assert serial["a"][1] == [1, 2, 3] and serial["b"][1] == [1, 2, 3, 4]
    for name in runs:
        assert parallel[name][:2] == serial[name][:2], name
        assert parallel[name][2] is not estimator
    assert estimator.get_params() == before and not hasattr(estimator, "coef_")
    assert own == []  # each fit's own on_epoch was called, for that fit only


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("online_calibration", [False, True])
def test_two_streams_train_two_clones_at_once_as_each_alone(tmp_path, online_calibration):
    """Issue 43: two clones of one estimator, streamed in two threads at once (each its
    own file and checkpoints), give the model and checkpoint bytes each gives alone."""
    from sklearn.base import clone

    from rosenblatt import calibrated, save

    template = AveragedPerceptron(random_state=0, tol=None)
    if online_calibration:
        template = calibrated(template, method="online")
    paths = {
        name: _noisy_file(tmp_path, f"{name}.svm", seed)[0] for name, seed in [("a", 1), ("b", 2)]
    }
    runs = {"a": {"chunk_size": 40, "epochs": 3}, "b": {"chunk_size": 70, "epochs": 4}}

    def fit(name, on_progress):
        folder = tmp_path / ("alone" if on_progress is None else "at-once")
        folder.mkdir(exist_ok=True)
        checkpoint, saved = folder / f"{name}.ckpt", folder / f"{name}.rbm"
        model = fit_stream(
            clone(template),
            paths[name],
            on_progress=on_progress,
            checkpoint=checkpoint,
            checkpoint_every=40,
            **runs[name],
        )
        save(model, saved)
        return saved.read_bytes(), checkpoint.read_bytes(), model.n_iter_

    alone, at_once = _alone_and_at_once(fit, runs)
    assert alone["a"][2] == 3 and alone["b"][2] == 4
    assert at_once == alone
    assert alone["a"][0] != alone["b"][0]  # two models, not one


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_warm_start_goes_on_from_a_copy_of_the_fitted_estimator(tmp_path):
    path, X, y = _noisy_file(tmp_path)
    fitted = AveragedPerceptron(random_state=0, warm_start=True, max_iter=2).fit(X, y)
    coef = fitted.coef_.copy()
    again = fit_stream(fitted, path, chunk_size=50, epochs=1)
    assert np.array_equal(fitted.coef_, coef) and fitted.n_iter_ == 2
    continued = AveragedPerceptron(random_state=0, warm_start=True, max_iter=2).fit(X, y)
    np.testing.assert_array_equal(
        again.coef_, fit_stream(continued, path, chunk_size=50, epochs=1).coef_
    )
    assert again.n_iter_ == 1 and not np.array_equal(again.coef_, coef)
