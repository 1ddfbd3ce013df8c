import json

import pytest

from appconfig import ConfigError, load


def write(tmp_path, data):
    p = tmp_path / "config.json"
    p.write_text(json.dumps(data))
    return p


def test_defaults_merged(tmp_path):
    cfg = load(write(tmp_path, {"db": {"host": "db1"}}))
    assert cfg["db"] == {"host": "db1", "port": 5432}
    assert cfg["log_level"] == "info"


def test_bad_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{nope")
    with pytest.raises(ConfigError):
        load(p)


def test_must_be_object(tmp_path):
    with pytest.raises(ConfigError):
        load(write(tmp_path, [1, 2]))
