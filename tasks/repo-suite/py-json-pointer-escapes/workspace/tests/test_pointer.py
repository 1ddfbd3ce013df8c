import pytest

from jsonptr import PointerError, pointer_for, resolve

DOC = {"a": [10, 20, {"b": "c"}], "": 1}


def test_whole_document():
    assert resolve(DOC, "") is DOC


def test_list_and_dict():
    assert resolve(DOC, "/a/1") == 20
    assert resolve(DOC, "/a/2/b") == "c"


def test_empty_key():
    assert resolve(DOC, "/") == 1


def test_errors():
    for bad in ["a", "/a/01", "/a/5", "/nope", "/a/1/x"]:
        with pytest.raises(PointerError):
            resolve(DOC, bad)


def test_pointer_for_plain_keys():
    assert pointer_for(["a", 2, "b"]) == "/a/2/b"
