import pytest

from jsonptr import PointerError, pointer_for, resolve

DOC = {"paths": {"/users/{id}": {"get": "op"}}, "a~b": 1, "~1": 2, "m~n/o": 3, "a~2b": 4}


def test_slash_escape():
    assert resolve(DOC, "/paths/~1users~1{id}/get") == "op"


def test_tilde_escape():
    assert resolve(DOC, "/a~0b") == 1


def test_order_of_unescaping():
    assert resolve(DOC, "/~01") == 2


def test_invalid_escape():
    with pytest.raises(PointerError):
        resolve(DOC, "/a~2b")


def test_pointer_for_escapes():
    assert pointer_for(["m~n/o"]) == "/m~0n~1o"
    assert resolve(DOC, pointer_for(["m~n/o"])) == 3
