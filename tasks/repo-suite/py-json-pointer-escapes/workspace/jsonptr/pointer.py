from .errors import PointerError
from .tokens import join_tokens, split_pointer


def resolve(doc, pointer):
    node = doc
    for token in split_pointer(pointer):
        if isinstance(node, list):
            if not token.isdigit() or (token != "0" and token.startswith("0")):
                raise PointerError(f"{token!r} is not an array index")
            index = int(token)
            if index >= len(node):
                raise PointerError(f"index {index} is out of range")
            node = node[index]
        elif isinstance(node, dict):
            if token not in node:
                raise PointerError(f"no key {token!r}")
            node = node[token]
        else:
            raise PointerError(f"cannot descend into {type(node).__name__} with {token!r}")
    return node


def pointer_for(keys):
    return join_tokens(keys)
