import json

from .errors import ConfigError
from .merge import deep_merge

DEFAULTS = {"db": {"host": "localhost", "port": 5432}, "log_level": "info"}


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"cannot read config {path}: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a JSON object")
    return deep_merge(DEFAULTS, data)
