from iniparse import loads


def test_inline_semicolon_comment():
    cfg = loads("[server]\nport = 8080 ; default port\n")
    assert cfg.getint("server", "port") == 8080


def test_inline_hash_comment():
    cfg = loads("[server]\nhost = example.org  # production\n")
    assert cfg.get("server", "host") == "example.org"


def test_hash_inside_value_is_kept():
    cfg = loads("[links]\nurl = http://x/#frag\n")
    assert cfg.get("links", "url") == "http://x/#frag"
