"""Independent answers computed from the project files themselves, so assertions compare the
server against the code on disk instead of against numbers copied from a previous run.

The oracles are deliberately simple (Python regexes, a plain directory walk): they are only used
on fixture projects where that simplicity is known to give the right answer.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# Directories the server skips by default (a subset of config.rs that matters for fixtures).
SKIP_DIRS = {".git", "node_modules", "vendor", ".code-intel", "__pycache__", "dist", "build"}

PY = (".py",)
PHP = (".php",)  # includes .blade.php
TS_JS = (".ts", ".tsx", ".js", ".jsx")


def source_files(root: Path, exts: tuple[str, ...]) -> list[str]:
    """Relative paths (``/``-separated) of files under ``root`` ending in one of ``exts``."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            if name.endswith(exts):
                found.append(Path(dirpath, name).relative_to(root).as_posix())
    return sorted(found)


def file_lines(path: Path) -> list[str]:
    """The file's lines as an editor numbers them (index 0 is line 1)."""
    return path.read_text(encoding="utf-8", errors="replace").split("\n")


def grep(
    root: Path, pattern: str, exts: tuple[str, ...], flags: int = 0, under: str = ""
) -> dict[tuple[str, int], int]:
    """``{(file, line): 1-based column of the first match}`` for a regex, line by line."""
    regex = re.compile(pattern, flags)
    hits = {}
    for rel in source_files(root / under if under else root, exts):
        rel = f"{under}/{rel}" if under else rel
        for number, text in enumerate(file_lines(root / rel), start=1):
            match = regex.search(text)
            if match:
                hits[(rel, number)] = match.start() + 1
    return hits


def word_uses(root: Path, name: str, exts: tuple[str, ...]) -> dict[tuple[str, int], int]:
    """Lines where ``name`` occurs as a whole identifier (not inside a longer name)."""
    return grep(root, r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", exts)


def line_of(path: Path, pattern: str) -> int:
    """1-based number of the first line matching ``pattern`` (fails loudly when none does)."""
    regex = re.compile(pattern)
    for number, text in enumerate(file_lines(path), start=1):
        if regex.search(text):
            return number
    raise AssertionError(f"no line of {path} matches {pattern!r}")


def all_lines_of(path: Path, pattern: str) -> list[tuple[int, re.Match]]:
    regex = re.compile(pattern)
    return [
        (number, m)
        for number, text in enumerate(file_lines(path), start=1)
        if (m := regex.search(text))
    ]


def line_count(path: Path) -> int:
    """Lines as the server counts them: a trailing newline does not start a new line."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
