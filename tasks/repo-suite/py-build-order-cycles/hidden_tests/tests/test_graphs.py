import pytest

from buildgraph import CycleError, build_order


def test_diamond_once():
    order = build_order({"app": ["lib", "util"], "lib": ["core"], "util": ["core"], "core": []})
    assert order == ["core", "lib", "util", "app"]


def test_every_target_after_its_dependencies():
    targets = {"t%d" % i: ["t%d" % j for j in range(i) if (i * j) % 3 == 1] for i in range(30)}
    order = build_order(targets)
    assert sorted(order) == sorted(targets)
    for name, deps in targets.items():
        assert all(order.index(d) < order.index(name) for d in deps)


def test_cycle():
    with pytest.raises(CycleError) as e:
        build_order({"a": ["b"], "b": ["c"], "c": ["a"], "d": []})
    assert e.value.cycle == ["a", "b", "c"]


def test_cycle_not_through_smallest():
    with pytest.raises(CycleError) as e:
        build_order({"a": ["x"], "x": ["y"], "y": ["z"], "z": ["x"]})
    assert e.value.cycle == ["x", "y", "z"]


def test_self_dependency():
    with pytest.raises(CycleError) as e:
        build_order({"a": ["a"]})
    assert e.value.cycle == ["a"]
