# Crucible text checker: scores a text task's checks inside the sandbox. The text is data: it
# is read from the job on stdin and matched with regular expressions, never run. Job (JSON):
# marker, text, checks ([{type: mentions|ends_sentence|min_words|max_words, ...}]). Writes one
# marked line per check: {"i": index, "passed": bool, "detail": "..."}.
import json, re, sys

job = json.loads(sys.stdin.buffer.read())
text = job["text"]
words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
# a name in the possessive ("Lily's") mentions the name
lower = {w.lower() for w in words} | {re.sub(r"'s$", "", w.lower()) for w in words}


def check(c):
    t = c["type"]
    if t == "mentions":
        missing = [w for w in c["words"] if w.lower() not in lower]
        return (not missing, "mentions %s" % ", ".join(c["words"]) if not missing else "does not mention %s" % ", ".join(missing))
    if t == "ends_sentence":
        ok = re.search(r"[.!?][\"')\u201d\u2019]*\s*$", text) is not None
        tail = text.rstrip()[-20:]
        return (ok, "ends a sentence" if ok else "ends mid-sentence: ...%s" % tail)
    if t == "min_words":
        return (len(words) >= c["n"], "%d words (at least %d)" % (len(words), c["n"]))
    if t == "max_words":
        return (len(words) <= c["n"], "%d words (at most %d)" % (len(words), c["n"]))
    return (False, "unknown check %r" % t)


out = []
for i, c in enumerate(job["checks"]):
    passed, detail = check(c)
    out.append(job["marker"] + json.dumps({"i": i, "passed": passed, "detail": detail}) + "\n")
sys.stdout.write("".join(out))
