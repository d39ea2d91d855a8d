"""Pure text algorithms shared by the code scorers.

Each module computes one thing exactly as the JavaScript library Mastra relies on does, with
Python code points as characters (divergences.md row 2) and JS ``\\s`` as whitespace (row 3). The
completeness modules run compiled when a current build is there (:mod:`scorekit.text.compiled`).
"""

from scorekit.text.compiled import compiled_folder
from scorekit.text.dice import dice_similarity
from scorekit.text.whitespace import collapse_whitespace, remove_whitespace

_core = compiled_folder()
if _core is not None:  # the compiled modules are found before their sources (compiled.py)
    __path__.insert(0, str(_core))

__all__ = ["collapse_whitespace", "dice_similarity", "remove_whitespace"]
