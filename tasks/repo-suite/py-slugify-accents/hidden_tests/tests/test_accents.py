from slugs import slugify


def test_french():
    assert slugify("Crème brûlée") == "creme-brulee"


def test_german_sharp_s():
    assert slugify("Über Straße") == "uber-strasse"


def test_non_latin_still_dropped():
    assert slugify("café ☕ 東京") == "cafe"
