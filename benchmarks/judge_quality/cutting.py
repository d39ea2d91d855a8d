"""Cut long texts to their first N tokens, the same way for every variant of a run.

With a local judge (``local/...``) the cut uses the judge's own tokenizer: the text is
tokenized by the llama.cpp server the judge runs (``/tokenize``, no special tokens) and, when
longer than ``limit`` tokens, its first ``limit`` tokens are turned back into text
(``/detokenize``). For any other judge, whose tokenizer is not at hand, the documented
approximation is the first ``4 × limit`` characters (about four characters per token in
English prose and code). Either way the cut is computed once per text and reused by every
variant, so the scorer and the baseline see the same words.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["CHARS_PER_TOKEN", "Cutter"]

CHARS_PER_TOKEN = 4
"""The approximation used when the judge's tokenizer is not at hand."""


class _Server(Protocol):
    def post(self, path: str, body: dict[str, Any]) -> Any: ...


class Cutter:
    """Cuts texts to their first ``limit`` tokens, memoised per text.

    Args:
        limit: tokens to keep (``>= 1``).
        server: a llama.cpp server (an object with ``post(path, body) -> reply``) whose
            tokenizer to use, or ``None`` for the character approximation.

    Raises:
        ValueError: ``limit < 1``.
    """

    def __init__(self, limit: int, server: _Server | None = None) -> None:
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        self.limit = limit
        self.server = server
        self.cut_count = 0
        self._memo: dict[str, str] = {}

    @property
    def method(self) -> str:
        """``"judge tokenizer"`` or ``"N characters"``, for the report."""
        if self.server is not None:
            return f"first {self.limit} tokens (judge tokenizer)"
        return f"first {self.limit * CHARS_PER_TOKEN} characters (~{self.limit} tokens)"

    def __call__(self, text: str) -> str:
        """The first ``limit`` tokens of ``text`` (``text`` itself when it is shorter)."""
        done = self._memo.get(text)
        if done is not None:
            return done
        if self.server is None:
            cut = text[: self.limit * CHARS_PER_TOKEN]
        else:
            tokens = self.server.post("/tokenize", {"content": text, "add_special": False})
            ids = tokens["tokens"]
            cut = text
            if len(ids) > self.limit:
                cut = self.server.post("/detokenize", {"tokens": ids[: self.limit]})["content"]
        self.cut_count += cut != text
        self._memo[text] = cut
        return cut


def judge_server(judge: Any) -> _Server | None:
    """The llama.cpp server behind a local judge (started if needed), else ``None``."""
    server = getattr(getattr(judge, "model", None), "server", None)
    if server is None or not callable(getattr(server, "post", None)):
        return None
    return server  # type: ignore[no-any-return]
