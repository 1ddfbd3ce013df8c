from semverlite import compare, max_version, parse


def test_numeric_parts():
    assert compare("1.2.3", "1.10.0") == -1
    assert compare("2.0.0", "1.99.99") == 1
    assert compare("1.2.3", "1.2.3") == 0


def test_parse():
    v = parse("1.2.3-beta.1+exp.sha")
    assert (v.major, v.minor, v.patch) == (1, 2, 3)
    assert v.prerelease == ("beta", "1")


def test_max_version():
    assert max_version(["0.9.0", "1.1.0", "1.0.5"]) == "1.1.0"
