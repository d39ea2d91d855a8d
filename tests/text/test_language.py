from __future__ import annotations

import pytest

from scorekit.text.language import Detection, detect_language, dominant_script, script_of
from scorekit.text.segment import CHUNK, segmenter_missing, unicode_words, words
from scorekit.text.stopwords import MULTILINGUAL_EXTRA, stopword_lists, stopwords_for

MULTILINGUAL_MISSING = (
    stopword_lists() is None
    or segmenter_missing("ja") is not None
    or segmenter_missing("zh") is not None
)
needs_multilingual = pytest.mark.skipif(
    MULTILINGUAL_MISSING,
    reason=f"needs the optional extra {MULTILINGUAL_EXTRA} (pip install '{MULTILINGUAL_EXTRA}')",
)


@pytest.mark.parametrize(
    ("char", "script"),
    [
        ("a", "Latin"),
        ("ł", "Latin"),
        ("Ａ", "Latin"),
        ("ж", "Cyrillic"),
        ("Σ", "Greek"),
        ("ب", "Arabic"),
        ("東", "Han"),
        ("々", "Han"),
        ("の", "Kana"),
        ("ー", "Kana"),
        ("ｱ", "Kana"),
        ("한", "Hangul"),
        ("ქ", "Georgian"),
        ("1", None),
        ("!", None),
        ("\u0301", None),
        ("ʼ", None),
    ],
)
def test_script_of(char: str, script: str | None) -> None:
    assert script_of(char) == script


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("", None),
        ("123 !?", None),
        ("🎉", None),
        ("hello", "Latin"),
        ("東京は日本の首都", "Kana"),
        ("我喜欢学习", "Han"),
        ("I love 北京", "Latin"),
        ("Привет, world", "Cyrillic"),
        ("ab αβ", "Greek"),  # a tie goes to the name first in alphabetical order
    ],
)
def test_dominant_script(text: str, script: str | None) -> None:
    assert dominant_script(text) == script


@pytest.mark.parametrize(
    ("text", "code", "script"),
    [
        ("The quick brown fox", "en", "Latin"),
        ("To jest okropne", "en", "Latin"),  # no diacritics: English, as Mastra treats it
        ("", None, None),
        ("12345", None, None),
        ("東京は日本の首都です。", "ja", "Kana"),
        ("こんにちは世界", "ja", "Kana"),
    ],
)
def test_detection_without_stop_words(text: str, code: str | None, script: str | None) -> None:
    assert detect_language(text) == Detection(code, script)


@needs_multilingual
@pytest.mark.parametrize(
    ("text", "code", "script"),
    [
        ("café résumé naïve", "en", "Latin"),
        ("ÉCOLE", "en", "Latin"),
        ("İstanbul", "en", "Latin"),
        ("Łukasz loves this product", "en", "Latin"),
        ("To jest okropny produkt, nienawidzę go.", "pl", "Latin"),
        ("Das ist schön und gut", "de", "Latin"),
        ("Él no está aquí", "es", "Latin"),
        ("ΟΔΟΣ ΣΟΦΙΑΣ", "el", "Greek"),
        ("Привет мир", "ru", "Cyrillic"),
        ("Це дуже погано", "uk", "Cyrillic"),
        ("Здравейте", "ru", "Cyrillic"),  # no stop word: the script's usual language
        ("مرحبا بالعالم", "ar", "Arabic"),
        ("我喜欢学习机器学习", "zh", "Han"),
        ("안녕하세요 세계", "ko", "Hangul"),
        ("สวัสดีครับ", "th", "Thai"),
    ],
)
def test_detection(text: str, code: str, script: str) -> None:
    assert detect_language(text) == Detection(code, script)


@needs_multilingual
def test_a_script_without_a_known_language() -> None:
    found = detect_language("ქართული ენა")
    assert found == Detection(
        None, "Georgian", "scorekit knows no language written in Georgian script"
    )
    assert found.name == "text in Georgian script"
    assert not found.english_rules


def test_english_rules() -> None:
    assert detect_language("hello").english_rules
    assert detect_language("123").english_rules  # no letters: Mastra's rules
    assert not detect_language("東京は日本").english_rules
    assert detect_language("東京は日本").name == "Japanese"


def test_without_the_extra_latin_diacritics_are_undetermined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import scorekit.text.language as language

    monkeypatch.setattr(language, "stopword_lists", lambda: None)
    found = language.detect_language("Zażółć gęślą jaźń")
    assert found.code is None
    assert found.script == "Latin"
    assert found.reason == (
        "telling the language of text in Latin script needs stop-word lists: "
        "install the optional extra scorekit[multilingual]"
    )
    assert language.detect_language("我喜欢").code == "zh"
    assert language.detect_language("hello").code == "en"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Zażółć gęślą jaźń!", ["Zażółć", "gęślą", "jaźń"]),
        ("«Привет», мир…", ["Привет", "мир"]),
        ("ΟΔΟΣ; σοφίας·", ["ΟΔΟΣ", "σοφίας"]),
        ("नमस्ते दुनिया।", ["नमस्ते", "दुनिया"]),  # vowel signs are marks: kept inside the word
        ("مرحبا، بالعالم؟", ["مرحبا", "بالعالم"]),
        ("¿Qué tal? l'école — x-y", ["Qué", "tal", "l'école", "x-y"]),
        ("e\u0301te\u0301", ["e\u0301te\u0301"]),
        ("a_b 3.14", ["a", "b", "3", "14"]),
        ("", []),
    ],
)
def test_unicode_words(text: str, expected: list[str]) -> None:
    assert unicode_words(text) == expected


def test_words_normalise() -> None:
    assert words("Ｐｙｔｈｏｎ ÉTÉ e\u0301te\u0301", "fr") == ["python", "été", "été"]


@needs_multilingual
@pytest.mark.parametrize(
    ("text", "code", "expected"),
    [
        ("東京は日本の首都です。", "ja", ["東京", "は", "日本", "の", "首都", "です"]),
        ("私はPythonが好きです", "ja", ["私", "は", "python", "が", "好き", "です"]),
        ("我喜欢学习机器学习", "zh", ["我", "喜欢", "学习", "机器", "学习"]),
        (
            "今天天气很好，我们去公园吧。",
            "zh",
            ["今天天气", "很", "好", "我们", "去", "公园", "吧"],
        ),
    ],
)
def test_segmented_words(text: str, code: str, expected: list[str]) -> None:
    assert words(text, code) == expected


@needs_multilingual
def test_long_japanese_is_cut_into_bounded_chunks() -> None:
    sentence = "東京は日本の首都です。"
    text = sentence * (3 * CHUNK // len(sentence))  # over SudachiPy's byte limit in one piece
    found = words(text, "ja")
    assert found == ["東京", "は", "日本", "の", "首都", "です"] * (3 * CHUNK // len(sentence))
    unbroken = "あ" * (CHUNK + 10)  # no sentence mark: a hard cut
    assert "".join(words(unbroken, "ja")) == unbroken


@needs_multilingual
def test_stop_lists() -> None:
    lists = stopword_lists()
    assert lists is not None
    assert len(lists) == 58
    pl = stopwords_for("pl")
    assert pl is not None
    assert {"jest", "nie", "to"} <= pl
    assert stopwords_for("xx") is None


def test_missing_segmenter_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba now raises ImportError
    assert segmenter_missing("zh") == (
        "splitting Chinese text into words needs jieba: "
        "install the optional extra scorekit[multilingual]"
    )
    assert segmenter_missing("pl") is None
