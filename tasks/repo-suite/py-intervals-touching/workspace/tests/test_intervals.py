import pytest

from booking import merge, total_length


def test_overlapping():
    assert merge([(1, 4), (2, 6)]) == [(1, 6)]


def test_disjoint():
    assert merge([(1, 2), (5, 6)]) == [(1, 2), (5, 6)]


def test_empty_interval_rejected():
    with pytest.raises(ValueError):
        merge([(3, 3)])


def test_total_length():
    assert total_length([(1, 4), (2, 6), (10, 11)]) == 6
