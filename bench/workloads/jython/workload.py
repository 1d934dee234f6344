# duplex workload: Jython 2.7 (its runtime, its parser and the compiler that turns this script
# into JVM classes when it starts) over jQuery's source. Classes with inheritance, generators,
# dict and set comprehensions, sorting with keys, regular expressions (Jython's own engine),
# string formatting and exceptions. Deterministic output on stdout.
#   org.python.util.jython workload.py JQUERY_JS ROUNDS
import re
import sys
from collections import defaultdict

TOKEN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+|[{}()\[\];,.=+\-*/<>!&|?:]")
KEYWORDS = frozenset(["var", "function", "return", "if", "else", "for"])


class Shape(object):
    def label(self):
        return self.__class__.__name__.lower()


class Rect(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return 355 * self.r * self.r // 113


def kind(t):
    if t.isdigit():
        return "number"
    if t in KEYWORDS:
        return "keyword"
    if t[0].isalpha() or t[0] in "_$":
        return "identifier"
    return "punct"


def evaluate(expr, env):
    if isinstance(expr, int):
        return expr
    if isinstance(expr, str):
        return env.get(expr, 0)
    op, args = expr[0], [evaluate(a, env) for a in expr[1:]]
    if op == "+":
        return sum(args)
    if op == "*":
        return reduce(lambda a, b: a * b, args, 1)
    if op == "max":
        return max(args)
    raise ValueError("bad op " + op)


def one_round(text, i):
    toks = TOKEN.findall(text)
    kinds = defaultdict(int)
    for t in toks:
        kinds[kind(t)] += 1
    idents = set(t for t in toks[:2000 + 37 * i] if kind(t) == "identifier")
    counts = {}
    for t in toks[:20000]:
        counts[t] = counts.get(t, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    shapes = [Rect(k, k + 1) if k % 2 == 0 else Circle(k) for k in range(1, 40)]
    areas = {}
    for s in shapes:
        areas[s.label()] = areas.get(s.label(), 0) + s.area()
    try:
        caught = evaluate(["pow", 2], {})
    except ValueError as e:
        caught = "caught %s" % e
    squares = sum(x * x for x in xrange(1000 + i) if x % 3 == 1)
    return "round %d: %d tokens, kinds %s, %d identifiers, top %s, areas %s, %s, expr %d, %d" % (
        i, len(toks), sorted(kinds.items()), len(idents),
        " ".join("%s=%d" % kv for kv in top), sorted(areas.items()), caught,
        evaluate(["+", ["*", "a", "b"], ["max", 3, "c", 7]], {"a": i, "b": 3, "c": 5}), squares)


text = open(sys.argv[1]).read()
for i in range(int(sys.argv[2])):
    print(one_round(text, i))
