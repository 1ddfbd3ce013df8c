import json

import pytest

from appconfig import ConfigError, load


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps({"db": {"host": "db1"}}))
    return p


def test_nested_override(path):
    cfg = load(path, env={"APP__DB__HOST": "db.internal"}, prefix="APP")
    assert cfg["db"]["host"] == "db.internal"


def test_json_values(path):
    cfg = load(path, env={"APP__DB__PORT": "5433", "APP__FEATURES__BETA": "true", "APP__LOG_LEVEL": "debug"}, prefix="APP")
    assert cfg["db"]["port"] == 5433
    assert cfg["features"] == {"beta": True}
    assert cfg["log_level"] == "debug"


def test_other_variables_ignored(path):
    cfg = load(path, env={"HOME": "/root", "APPX__DB__HOST": "nope"}, prefix="APP")
    assert cfg["db"]["host"] == "db1"


def test_cannot_descend_into_value(path):
    with pytest.raises(ConfigError):
        load(path, env={"APP__DB__HOST__X": "1"}, prefix="APP")


def test_no_env_by_default(path):
    assert load(path)["db"]["host"] == "db1"
