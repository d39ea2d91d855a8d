"""Types of the C kernel ``_sentiment_kernel.c`` (built by ``make core``; see that file)."""

from collections.abc import Iterable

from typing_extensions import CapsuleType

def lexicon(labels: dict[str, int], negators: Iterable[str], /) -> CapsuleType: ...
def comparatives(lexicon: CapsuleType, text: str, /) -> list[float]: ...
