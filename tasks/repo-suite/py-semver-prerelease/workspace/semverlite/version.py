import re
from dataclasses import dataclass

_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: tuple = ()
    build: tuple = ()


def parse(text):
    m = _RE.match(text.strip())
    if not m:
        raise ValueError(f"not a semantic version: {text!r}")
    major, minor, patch, pre, build = m.groups()
    return Version(int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else (), tuple(build.split(".")) if build else ())
