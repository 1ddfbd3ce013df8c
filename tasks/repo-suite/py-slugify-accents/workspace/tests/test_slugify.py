from slugs import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_collapses_separators():
    assert slugify("  a -- b__c  ") == "a-b-c"


def test_max_length_does_not_end_with_separator():
    assert slugify("A very long title", max_length=7) == "a-very"


def test_drops_symbols():
    assert slugify("50% off ☃") == "50-off"
