from booking import merge


def test_touching_intervals_merge():
    assert merge([(1, 3), (3, 5)]) == [(1, 5)]


def test_unsorted_input():
    assert merge([(5, 8), (1, 2), (2, 5)]) == [(1, 8)]


def test_nested():
    assert merge([(1, 10), (2, 3)]) == [(1, 10)]
