import pytest

from buildgraph import UnknownTarget, build_order


def test_chain():
    assert build_order({"app": ["lib"], "lib": ["core"], "core": []}) == ["core", "lib", "app"]


def test_independent_sorted():
    assert build_order({"b": [], "a": []}) == ["a", "b"]


def test_unknown():
    with pytest.raises(UnknownTarget):
        build_order({"a": ["zzz"]})
