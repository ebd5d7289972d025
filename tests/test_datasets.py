"""The bundled SMS Spam Collection and its reader."""

import hashlib
from importlib import resources

import numpy as np
import pytest

from rosenblatt.data.datasets import load_sms_spam, read_labelled_text

SMS_SHA256 = "7d039a24a6083ed9ef0f806ebad56bbb976e3aeb8de05669173bfdc4996c239d"


def test_load_sms_spam_has_the_published_counts():
    sms = load_sms_spam()
    assert len(sms.data) == 5574 and sms.target.shape == (5574,)
    assert int(sms.target.sum()) == 747 and int((sms.target == 0).sum()) == 4827
    assert sms.target_names.tolist() == ["ham", "spam"]
    assert all(isinstance(text, str) and text.strip() for text in sms.data)
    assert sms.data[2].startswith("Free entry in 2 a wkly comp") and sms.target[2] == 1
    assert "CC BY 4.0" in sms.DESCR and "Almeida" in sms.DESCR
    texts, target = load_sms_spam(return_X_y=True)
    assert texts == sms.data and np.array_equal(target, sms.target)


def test_shipped_copy_is_unaltered_and_attributed():
    data = resources.files("rosenblatt.data.datasets") / "data"
    digest = hashlib.sha256((data / "sms_spam_collection.tsv").read_bytes()).hexdigest()
    assert digest == SMS_SHA256
    readme = (data / "README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in readme and "Gómez Hidalgo" in readme and "DOCENG" in readme


def test_reader_keeps_later_tabs_and_accepts_crlf(tmp_path):
    path = tmp_path / "ok.tsv"
    path.write_bytes("spam\tcall\tnow\r\nham\tsee you 😊\n".encode())
    texts, target = read_labelled_text(path)
    assert texts == ["call\tnow", "see you 😊"] and target.tolist() == [1, 0]
    assert read_labelled_text(path, labels=("spam", "ham"))[1].tolist() == [0, 1]


def test_reader_is_the_tsv_reader_blank_lines_cr_and_gzip(tmp_path):
    import gzip

    content = "spam\tcall now\r\n\n  \nham\tsee you\rspam\twin\n"
    path = tmp_path / "ok.tsv.gz"
    path.write_bytes(gzip.compress(content.encode()))
    texts, target = read_labelled_text(path)
    assert texts == ["call now", "see you", "win"] and target.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    "content, line, reason",
    [
        (b"ham\tfine\nham fine\n", 2, "no tab"),
        (b"ham\tfine\nham\tok\neggs\tspam\n", 3, "unknown label 'eggs'"),
        (b"spam\t   \n", 1, "empty text"),
        (b"ham\tfine\n\nham ok\n", 3, "no tab"),  # the blank line is skipped, and counted
        (b"ham\tfine\nspam\t\xff\xfe\n", 2, "not valid utf-8"),
    ],
)
def test_malformed_record_names_file_and_line(tmp_path, content, line, reason):
    path = tmp_path / "broken.tsv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=f"broken.tsv, line {line}: {reason}"):
        read_labelled_text(path)


def test_empty_file_is_refused(tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="no records"):
        read_labelled_text(path)
