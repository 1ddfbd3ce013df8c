from .errors import PointerError


def split_pointer(pointer):
    """The reference tokens of a pointer ("" is the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"a JSON pointer starts with '/': {pointer!r}")
    return pointer[1:].split("/")


def join_tokens(tokens):
    return "".join("/" + str(t) for t in tokens)
