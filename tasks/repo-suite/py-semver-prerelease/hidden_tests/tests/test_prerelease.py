import pytest

from semverlite import compare, max_version

ORDER = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]


def test_prerelease_before_release():
    assert compare("1.0.0-alpha", "1.0.0") == -1
    assert compare("1.0.0", "1.0.0-rc.1") == 1


@pytest.mark.parametrize("i", range(len(ORDER) - 1))
def test_spec_order(i):
    assert compare(ORDER[i], ORDER[i + 1]) == -1
    assert compare(ORDER[i + 1], ORDER[i]) == 1


def test_build_metadata_ignored():
    assert compare("1.0.0+build.5", "1.0.0+build.7") == 0


def test_max_version_prefers_release():
    assert max_version(["1.0.0-rc.1", "1.0.0", "0.9.0"]) == "1.0.0"
