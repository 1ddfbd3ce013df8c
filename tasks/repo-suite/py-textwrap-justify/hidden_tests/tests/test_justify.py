import textfmt
from textfmt import wrap


def justify(text, width):
    return textfmt.justify(text, width)


def test_long_word_is_split():
    assert wrap("see https://example.org/very/long ok", 10) == ["see", "https://ex", "ample.org/", "very/long", "ok"]


def test_long_word_chunk_continues_with_words():
    assert wrap("abcdefgh ij", 5) == ["abcde", "fgh", "ij"]
    assert wrap("abcdefg h", 5) == ["abcde", "fg h"]


def test_justify_lines():
    text = "This is an example of text justification."
    assert justify(text, 16) == "This    is    an\nexample  of text\njustification."


def test_extra_spaces_go_left():
    assert justify("aa b c dddd", 8) == "aa  b  c\ndddd"
    assert justify("aaa b c dddd", 9) == "aaa  b  c\ndddd"
    assert justify("aa bb c zzzzzzz", 10) == "aa   bb  c\nzzzzzzz"


def test_single_word_line_not_padded():
    assert justify("abcdefgh ij", 9) == "abcdefgh\nij"


def test_paragraphs_kept_apart():
    assert justify("aa b cc\n\nx y", 6) == "aa   b\ncc\n\nx y"
