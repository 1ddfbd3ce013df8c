import pytest

from iniparse import ParseError, loads

SAMPLE = """
; settings
[server]
host = example.org
port = 8080

# database
[db]
name = app
"""


def test_sections_and_values():
    cfg = loads(SAMPLE)
    assert cfg.get("server", "host") == "example.org"
    assert cfg.getint("server", "port") == 8080
    assert cfg.get("db", "name") == "app"


def test_missing_key_default():
    assert loads(SAMPLE).get("db", "user", "root") == "root"


def test_key_outside_section():
    with pytest.raises(ParseError):
        loads("a = 1")
