"""One tagged word of a text (:class:`Term`), the unit every step of the text core reads.

Its own module so that the tagger, the post-rules, their matcher and search, the verb phrases
and the elements all name the same class: compiled by mypyc (``make core``), its attributes
are then read natively instead of looked up by name.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Term", "gc_paused"]


@dataclass(slots=True)
class Term:
    """One word of the text with its compromise tags.

    Attributes:
        text: the word as written, without surrounding punctuation (``""`` for the implicit
            half of a contraction).
        normal: the lowercase word compromise looks up (the implicit word for a contraction's
            second half: ``"is"`` for ``it's``).
        post: the punctuation after the word.
        sentence_start: whether the word opens a sentence.
        tags: compromise tag names (``Verb``, ``Gerund``, ``Noun``…), parents included.
        switch: the word's ambiguity class (``"Noun|Verb"``) or ``""``.
        implicit: whether the term was not written (second half of a contraction).
        order: the tags in the order compromise's tagger adds them (a tag's parents just
            before it, a tag set again after a conflict removed it at the end), kept by
            steps 2 and 3 only; it may list parents not yet in ``tags``. A tuple, shared by
            the terms of one word and replaced (never changed) when a tag is added.
            compromise keeps a term's tags in a JS ``Set`` (insertion order) and breaks ties
            between equally specific tags in that order (the tagger's ``_by_depth``), so
            Python's hash-seeded ``set`` order must never decide.
    """

    text: str
    normal: str
    post: str = ""
    sentence_start: bool = False
    tags: set[str] = field(default_factory=set)
    switch: str = ""
    implicit: bool = False
    order: tuple[str, ...] = ()

    def has(self, tag: str) -> bool:
        """Whether the term carries ``tag``."""
        return tag in self.tags


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a text's terms are built and tagged.

    Tagging 1 MB creates a few hundred thousand small acyclic objects; with the collector on,
    its repeated passes over them cost more than the tagging. The previous state is restored.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
