"""Path globs matched segment by segment, in polynomial time whatever the pattern.

The semantics (README "Filters"): ``*`` and ``?`` stay inside a folder, ``**`` as a whole
segment crosses folders, ``[abc]``/``[a-z]``/``[!a]`` match one character of a name, a glob
without a slash also matches the basename anywhere (``*.py``) and a folder matches everything
below it (``docs`` or ``docs/``). A translation to ``re`` backtracks exponentially on globs such
as ``"*" * 40 + "Z"``; here a name is matched by splitting its pattern at the stars and finding
each fixed-length piece leftmost, and ``**`` by a memoised walk over the segments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


class GlobError(ValueError):
    """A glob that cannot be parsed (an empty or reversed character class)."""


Piece = tuple[re.Pattern, int]  # a run of one-character atoms and its width


@dataclass(frozen=True)
class _Name:
    """One segment: fixed-width pieces separated by stars."""

    pieces: tuple[Piece, ...]
    lead_star: bool
    trail_star: bool

    def match(self, name: str) -> bool:
        body = list(self.pieces)
        if not body:
            return self.lead_star or name == ""
        pos, end = 0, len(name)
        if not self.lead_star:
            head, width = body.pop(0)
            if head.match(name) is None:
                return False
            pos = width
            if not body and not self.trail_star:
                return pos == end
        if not self.trail_star:
            tail, width = body.pop()
            end -= width
            if end < pos or tail.fullmatch(name, end) is None:
                return False
        for piece, _width in body:  # leftmost-first is exact when only stars separate the pieces
            found = piece.search(name, pos, end)
            if found is None:
                return False
            pos = found.end()
        return True


GLOBSTAR = None  # a whole ``**`` segment


@dataclass(frozen=True)
class Glob:
    segments: tuple[_Name | None, ...]

    def match(self, path: str) -> bool:
        """A set-of-states walk over the path's segments: O(segments x glob segments)."""
        segments, last = self.segments, len(self.segments)
        states = self._close({0})
        for part in path.split("/"):
            if last in states:
                return True  # a folder matches everything below it
            after = set()
            for gi in states:
                segment = segments[gi]
                if segment is GLOBSTAR:
                    after.add(gi)
                    if gi == last - 1:  # a final ** takes at least one segment
                        after.add(last)
                elif segment.match(part):
                    after.add(gi + 1)
            if not after:
                return False
            states = self._close(after)
        return last in states

    def _close(self, states: set[int]) -> set[int]:
        """Add the states reached by letting a ** (other than a final one) take no segment."""
        todo = list(states)
        while todo:
            gi = todo.pop()
            if gi < len(self.segments) - 1 and self.segments[gi] is GLOBSTAR and gi + 1 not in states:
                states.add(gi + 1)
                todo.append(gi + 1)
        return states


def regex_stars(glob: str) -> int:
    """The ``*`` wildcards of a glob that a translation to ``re`` (pathspec's, for include/exclude
    globs and .gitignore patterns) turns into ``[^/]*``: every one but whole ``**`` folders and escaped
    ``\\*``. Matching backtracks polynomially in their number: with 4, a 250-character name takes
    seconds against one pattern, with 9 a 60-character one minutes."""
    return sum(len(re.findall(r"(?<!\\)\*", segment)) for segment in glob.split("/") if segment != "**")


@lru_cache(maxsize=512)
def compile_glob(glob: str) -> Glob:
    """Parse a root-relative glob; raises GlobError for a malformed character class."""
    glob = glob.rstrip("/")
    names = glob.split("/")
    if "/" not in glob:
        names = ["**", *names]  # also the basename anywhere
    segments = tuple(GLOBSTAR if name == "**" else _name(name) for name in names)
    return Glob(segments)


def _name(pattern: str) -> _Name:
    atoms = _atoms(pattern)
    pieces: list[list[str]] = [[]]
    for atom in atoms:
        if atom == "*":
            if pieces[-1]:
                pieces.append([])
        else:
            pieces[-1].append(atom)
    if not pieces[-1]:
        pieces.pop()
    return _Name(
        pieces=tuple((re.compile("".join(piece), re.DOTALL), len(piece)) for piece in pieces),
        lead_star=bool(atoms) and atoms[0] == "*",
        trail_star=bool(atoms) and atoms[-1] == "*",
    )


def _atoms(pattern: str) -> list[str]:
    """Regex atoms of one segment, each matching exactly one character, or "*"."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if not out or out[-1] != "*":
                out.append("*")
            i += 1
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            out.append(_class(pattern[i + 1 : end]))
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return out


def _class(body: str) -> str:
    negate = body.startswith("!")
    body = body[1:] if negate else body
    if not body:
        raise GlobError("empty character class []" if not negate else "empty character class [!]")
    parts = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            low, high = body[i], body[i + 2]
            if low > high:
                raise GlobError(f"reversed range {low}-{high} in [{body}]")
            parts.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
        else:
            parts.append(re.escape(body[i]))
            i += 1
    return "[" + ("^" if negate else "") + "".join(parts) + "]"
