from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from scorekit.text import dice
from scorekit.text.dice import dice_similarity
from tests.text.kernels import kernel_or_skip


def naive_shared(a: str, b: str) -> int:
    """The reference algorithm of string-similarity 4.0.4, step by step."""
    counts: dict[str, int] = {}
    for i in range(len(a) - 1):
        counts[a[i : i + 2]] = counts.get(a[i : i + 2], 0) + 1
    shared = 0
    for i in range(len(b) - 1):
        bigram = b[i : i + 2]
        if counts.get(bigram, 0) > 0:
            counts[bigram] -= 1
            shared += 1
    return shared


ASCII = "".join(map(chr, range(128)))

ALPHABETS = {
    "small": "ab",
    "english": "abcdefghijklmnopqrstuvwxyz.,'",
    "mixed": "aé漢字😀😃ж\u0645",
}


@pytest.mark.parametrize("alphabet", ALPHABETS.values(), ids=ALPHABETS.keys())
@pytest.mark.parametrize("length", [2, 3, 50, 400, 3000])
def test_both_counts_equal_the_reference(alphabet: str, length: int) -> None:
    rng = random.Random(length * 7 + len(alphabet))
    for _ in range(5):
        a = "".join(rng.choice(alphabet) for _ in range(length))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, length + 2)))
        expected = naive_shared(a, b)
        assert dice._shared_bigrams_dict(a, b) == expected
        assert dice._shared_bigrams_vector(a, b) == expected


def _kernel_or_skip() -> Callable[[str, str], float]:
    return kernel_or_skip(dice._kernel(), "Dice")


def _python_dice(a: str, b: str) -> float:
    """dice_similarity's Python path, whitespace removal and the reference count included."""
    a, b = dice.remove_whitespace(a), dice.remove_whitespace(b)
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    return 2.0 * naive_shared(a, b) / (len(a) + len(b) - 2)


@pytest.mark.parametrize("alphabet", ["ab ", "abcdefghijklmnopqrstuvwxyz.,' \n", ASCII])
@pytest.mark.parametrize("length", [0, 1, 2, 3, 50, 400, 3000, 70_000])
def test_the_c_kernel_equals_the_python_code(alphabet: str, length: int) -> None:
    # issue 35: ASCII texts (every code point 0-127: NUL, DEL, JS whitespace, which goes, and
    # \x1c-\x1f, which stays), any lengths, and texts equal but for their whitespace
    kernel = _kernel_or_skip()
    rng = random.Random(length * 11 + len(alphabet))
    for _ in range(3):
        a = "".join(rng.choice(alphabet) for _ in range(length))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, length + 2)))
        for first, second in ((a, b), (b, a), (a, " \t" + a.replace(" ", "\r\n") + "\f")):
            assert kernel(first, second) == _python_dice(first, second), (first, second)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("night", "nacht", 0.25),  # "ht" shared: 2 * 1 / 8
        ("aaaa", "aa", 0.5),  # a multiset: "aa" once in b, 2 * 1 / 4
        ("a a a a", "aaaa", 1.0),  # equal without whitespace
        ("", " \n\t", 1.0),  # both empty
        ("a", "b", 0.0),
        ("a\x1cb", "ab", 0.0),  # \x1c is no JS whitespace: "a\x1c", "\x1cb" against "ab"
        ("\x7f\x00", "\x7f\x00\x7f", 2 / 3),
    ],
)
def test_the_c_kernel_exact_values(a: str, b: str, expected: float) -> None:
    assert _kernel_or_skip()(a, b) == expected == dice_similarity(a, b)


def test_the_c_kernel_refuses_text_that_is_not_ascii() -> None:
    kernel = _kernel_or_skip()
    with pytest.raises(ValueError, match="ASCII text only"):
        kernel("café", "cafe")
    assert dice_similarity("café", "cafe") == 4 / 6  # the Python path: "ca", "af" shared


def test_large_alphabet_takes_the_sorted_path() -> None:
    # 1,500 distinct characters: 2.25 M bins, above the dense limit
    rng = random.Random(1)
    alphabet = [chr(0x4E00 + i) for i in range(1500)]
    a = "".join(rng.choice(alphabet) for _ in range(5000))
    b = a[:2500] + "".join(rng.choice(alphabet) for _ in range(2500))
    assert len(set(a + b)) ** 2 > dice._MAX_BINS
    assert dice._shared_bigrams_vector(a, b) == naive_shared(a, b)


@pytest.mark.parametrize("alphabet", ALPHABETS.values(), ids=ALPHABETS.keys())
def test_the_dense_count_across_its_slices_equals_the_reference(alphabet: str) -> None:
    # longer than three slices, with an odd end: every bigram at a slice boundary counted once
    rng = random.Random(len(alphabet))
    length = 3 * dice._SLICE + 7
    a = "".join(rng.choice(alphabet) for _ in range(length))
    b = "".join(rng.choice(alphabet) for _ in range(dice._SLICE + 1))
    assert dice._shared_bigrams_vector(a, b) == naive_shared(a, b)
    assert dice._shared_bigrams_vector(b, a) == naive_shared(b, a)


def test_long_texts_use_the_exact_formula() -> None:
    a = "the cat sat on the mat " * 50
    b = "the dog sat on the log " * 50
    ja, jb = a.replace(" ", ""), b.replace(" ", "")
    assert dice_similarity(a, b) == 2 * naive_shared(ja, jb) / (len(ja) + len(jb) - 2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  a \t\n b  ", "a b"),
        ("a\ufeffb", "a b"),  # U+FEFF is JS whitespace
        ("a\x85b \x1f c", "a\x85b \x1f c"),  # U+0085 and U+001F are not
        ("\u3000a\u2003b\u00a0", "a b"),
        ("", ""),
    ],
)
def test_collapse_whitespace_follows_js(text: str, expected: str) -> None:
    from scorekit.text import collapse_whitespace

    assert collapse_whitespace(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  a \t\n b  ", "ab"),
        ("a \x1fb", "a\x1fb"),  # ASCII, with U+001F, which JS does not count as whitespace
        ("zażółć gęślą\u3000jaźń\u2003!", "zażółćgęśląjaźń!"),  # not ASCII: the split path
        ("é\ufeffa\x85b c", "éa\x85bc"),  # U+FEFF goes, U+0085 stays: the translate path
        ("", ""),
    ],
)
def test_remove_whitespace_follows_js(text: str, expected: str) -> None:
    from scorekit.text import remove_whitespace

    assert remove_whitespace(text) == expected


def test_whitespace_of_texts_longer_than_a_slice_is_handled_as_in_one_piece() -> None:
    from scorekit.text import whitespace

    rng = random.Random(5)
    parts = ["word", " ", "  ", "\n\t", "é", "\u3000", "x "]
    body = "".join(rng.choice(parts) for _ in range(3 * whitespace.SLICE // 2))
    # a slice that is only spaces, and a word longer than a slice at the end
    text = body + " " * (whitespace.SLICE + 3) + body + "q" * (whitespace.SLICE * 2)
    assert whitespace.collapse_whitespace(text) == " ".join(text.split())
    assert whitespace.remove_whitespace(text) == "".join(text.split())


def test_lone_surrogates_count_like_any_character() -> None:
    a, b = "ab\ud800" * 100, "ab\ud800c" * 100
    expected = 2 * naive_shared(a, b) / (len(a) + len(b) - 2)
    assert dice_similarity(a, b) == expected
    assert dice_similarity("ab\ud800", "ab\ud800c") == 0.8
