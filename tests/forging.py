"""Forged model files for the tests: the format's own checksums recomputed after an edit,
so that only the loader's checks of the content stand between the file and the model."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

MiB = 1 << 20


class Zeros:
    """A member of ``size`` zero bytes, written and hashed a piece at a time (a zip bomb
    that the test itself never holds in memory)."""

    def __init__(self, size):
        self.size = size

    def pieces(self):
        left = self.size
        while left:
            n = min(left, MiB)
            yield bytes(n)
            left -= n


def _pieces(data):
    return data.pieces() if isinstance(data, Zeros) else [data]


def forge(path, edit, rehash=True):
    """Rewrite the model file at ``path`` the way ``persistence._archive_bytes`` writes one:
    ``edit(manifest, members)`` changes the decoded manifest and the members (bytes, or
    :class:`Zeros`) in place; then every member's SHA-256 goes into the manifest (unless
    ``rehash=False``) and the SHA-256 of the whole file into the zip comment."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    manifest = json.loads(members.pop("manifest.json"))
    edit(manifest, members)
    if rehash:
        hashes = {}
        for name, data in members.items():
            digest = hashlib.sha256()
            for piece in _pieces(data):
                digest.update(piece)
            hashes[name] = digest.hexdigest()
        manifest["sha256"] = hashes
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        entries = [("manifest.json", json.dumps(manifest, indent=1).encode())]
        for name, data in entries + list(members.items()):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=isinstance(data, Zeros)) as member:
                for piece in _pieces(data):
                    member.write(piece)
        archive.comment = b"0" * 64
    data = buffer.getvalue()[:-64]
    path.write_bytes(data + hashlib.sha256(data).hexdigest().encode())


def edit_tree(change):
    """An edit for :func:`forge` that changes the decoded state tree in place (and keeps
    the manifest's class name that of the tree)."""

    def edit(manifest, members):
        tree = json.loads(members["state.json"])
        change(tree)
        members["state.json"] = json.dumps(tree).encode()
        manifest["class"] = tree["class"]

    return edit
