"""Pure text algorithms shared by the code scorers.

Each module computes one thing exactly as the JavaScript library Mastra relies on does, with
Python code points as characters (divergences.md row 2) and JS ``\\s`` as whitespace (row 3).
"""

from scorekit.text.dice import dice_similarity
from scorekit.text.whitespace import collapse_whitespace, remove_whitespace

__all__ = ["collapse_whitespace", "dice_similarity", "remove_whitespace"]
