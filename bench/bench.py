#!/usr/bin/env python3
"""The code-intel performance benchmark: figures and ratios, not pass/fail timings.

Why this exists: the core tools have targets set relative to the tools agents would otherwise use (ripgrep,
universal-ctags) on the same machine and input, so every figure is measured next to its baseline
in the same run. Targets are printed as "ok"/"MISS" marks; nothing here fails a build.

Structure, so later work can add rows without touching the rest:
  * SECTIONS lists the section functions run in order; each one appends rows to a Table and may
    record machine-readable figures in `bench.results`.
  * WARM_CALLS lists the warm tool calls (process start included) timed in the "warm queries"
    section; an entry names the tool, its JSON arguments (with {symbol}/{file}/{line}
    placeholders filled from the chosen probe symbols) and an optional target in milliseconds.

Only the standard library is used. Run it through bench/run.sh, which picks the binary.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
STATE_DIR = ".code-intel"

# Used only when src/config.rs or src/lang/mod.rs cannot be read (the bench copied elsewhere).
FALLBACK_SKIP_DIRS = [
    ".git", "node_modules", "vendor", "target", "dist", "build", "out", ".next", ".nuxt",
    "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache", "coverage", STATE_DIR,
]
FALLBACK_EXTENSIONS = [
    "blade.php", "css", "go", "html", "htm", "java", "js", "mjs", "cjs", "jsx", "php", "phtml",
    "py", "pyi", "pyw", "rs", "scss", "tsx", "ts", "mts", "cts", "vue",
]

# search_text cases: (label, pattern, fixed_strings, case_sensitive). Chosen to hit any codebase:
# a literal the literal-search fast path handles, a regex with classes and alternation, and a
# case-insensitive literal (which defeats the simplest memchr fast paths).
DEFAULT_PATTERNS = [
    ("literal", "return", True, True),
    ("regex", r"(function|def|func|fn)\s+[a-z_]\w*\(", False, True),
    ("case-insensitive", "todo", True, False),
]

# Warm tool calls timed with the index already built. `target_ms` None = figure only.
WARM_CALLS = [
    {"label": "process start (code-intel tools)", "argv": ["tools"], "target_ms": None},
    {"label": "find_definitions {symbol}", "tool": "find_definitions",
     "args": {"symbol": "{symbol}"}, "target_ms": 150},
    {"label": "find_references {symbol}", "tool": "find_references",
     "args": {"symbol": "{symbol}"}, "target_ms": 500},
    {"label": "get_symbols <file of {symbol}>", "tool": "get_symbols",
     "args": {"path": "{file}"}, "target_ms": None},
]

TYPE_KINDS = ["class", "interface", "trait", "enum", "struct", "type"]


# ---------------------------------------------------------------------------------------------
# Measuring

@dataclass
class Timing:
    """Wall-clock figures of repeated runs, and the mean CPU time (user + system), in seconds."""
    median: float
    minimum: float
    maximum: float
    cpu: float
    runs: int
    method: str

    def fmt(self) -> str:
        return fmt_secs(self.median)


@dataclass
class OneRun:
    """A single measured process: wall time, CPU time and peak RSS (from wait4's rusage)."""
    wall: float
    user: float
    system: float
    max_rss_kb: int
    returncode: int
    stdout: bytes


def run_once(argv: list[str], cwd: Path) -> OneRun:
    """Runs a process, capturing stdout, with its own rusage (the same figures `time -v` prints)."""
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return OneRun(wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, proc.returncode,
                      out.read())


def time_repeated(argv: list[str], cwd: Path, runs: int, use_hyperfine: bool) -> Timing:
    """Median wall time of `runs` runs after one warm-up; hyperfine when present."""
    if use_hyperfine:
        with tempfile.NamedTemporaryFile(suffix=".json") as export:
            # -i: rg exits 1 when nothing matches, which is an answer, not a failure.
            cmd = ["hyperfine", "-N", "-i", "--warmup", "1", "--runs", str(runs), "--output=pipe",
                   "--style", "none", "--export-json", export.name, shlex.join(argv)]
            done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
            if done.returncode == 0:
                result = json.loads(Path(export.name).read_text())["results"][0]
                times = result["times"]
                return Timing(statistics.median(times), min(times), max(times),
                              result["user"] + result["system"], len(times), "hyperfine")
            print(f"  (hyperfine failed, timing with a loop: {done.stderr.decode()[-200:]})",
                  file=sys.stderr)
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times, cpu = [], []
    for _ in range(runs):
        with tempfile.TemporaryFile() as out:
            started = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
            _, _, usage = os.wait4(proc.pid, 0)
            times.append(time.perf_counter() - started)
            cpu.append(usage.ru_utime + usage.ru_stime)
    return Timing(statistics.median(times), min(times), max(times), statistics.mean(cpu), runs,
                  "loop")


def fmt_secs(secs: float) -> str:
    if secs >= 10:
        return f"{secs:.1f} s"
    if secs >= 1:
        return f"{secs:.2f} s"
    return f"{secs * 1000:.0f} ms" if secs >= 0.01 else f"{secs * 1000:.1f} ms"


def fmt_ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}x" if theirs > 0 else "-"


def verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "MISS"


# ---------------------------------------------------------------------------------------------
# What "the same input" means: the walk rules of code-intel, applied to rg and ctags

def read_skip_dirs() -> list[str]:
    """The default skip list from src/config.rs, so rg skips what code-intel skips."""
    try:
        text = (REPO / "src" / "config.rs").read_text()
        block = re.search(r"skip_dirs:\s*\[(.*?)\]", text, re.S).group(1)
        dirs = re.findall(r'"([^"]+)"', block)
        if "STATE_DIR" in block:
            dirs.append(STATE_DIR)
        return dirs or FALLBACK_SKIP_DIRS
    except (OSError, AttributeError):
        return FALLBACK_SKIP_DIRS


def read_extensions() -> list[str]:
    """Extensions of the supported languages, from the language registry in src/lang/mod.rs."""
    try:
        text = (REPO / "src" / "lang" / "mod.rs").read_text()
        exts = [e for block in re.findall(r"extensions:\s*&\[(.*?)\]", text, re.S)
                for e in re.findall(r'"([^"]+)"', block)]
        return exts or FALLBACK_EXTENSIONS
    except OSError:
        return FALLBACK_EXTENSIONS


@dataclass
class WalkRules:
    skip_dirs: list[str]
    exclude_patterns: list[str]
    include_hidden: bool
    extensions: list[str]

    @staticmethod
    def for_project(root: Path) -> "WalkRules":
        rules = WalkRules(read_skip_dirs(), [], False, read_extensions())
        config = root / STATE_DIR / "config.json"
        if config.is_file():
            try:
                data = json.loads(config.read_text())
                rules.skip_dirs = data.get("skip_dirs", rules.skip_dirs)
                rules.exclude_patterns = data.get("exclude_patterns", [])
                rules.include_hidden = bool(data.get("include_hidden", False))
            except (OSError, ValueError):
                pass
        return rules

    def rg_flags(self) -> list[str]:
        """ripgrep flags reproducing code-intel's walker (ignore files without a git repo, no
        global gitignore, the skip directories and exclude patterns as override globs)."""
        flags = ["--no-config", "--no-require-git", "--no-ignore-global"]
        if self.include_hidden:
            flags.append("--hidden")
        for d in self.skip_dirs:
            flags += ["-g", f"!**/{d}/"]
        for p in self.exclude_patterns:
            flags += ["-g", "!" + p.removeprefix("!")]
        return flags

    def rg_type_flags(self) -> list[str]:
        globs = ",".join(self.extensions)
        return ["--type-add", f"codeintel:*.{{{globs}}}", "-t", "codeintel"]

    def is_supported(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1].lower()
        return any(name.endswith("." + ext) and len(name) > len(ext) + 1
                   for ext in self.extensions)


# ---------------------------------------------------------------------------------------------
# The benchmark

@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Columns aligned left (text); the others are figures, aligned right.
    left: int = 1

    def print(self) -> None:
        print(f"\n## {self.title}")
        widths = [max(len(str(r[i])) for r in [self.header] + self.rows)
                  for i in range(len(self.header))]
        line = lambda cells: "  ".join(
            str(c).ljust(w) if i < self.left else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        print(line(self.header))
        print("  ".join("-" * w for w in widths))
        for row in self.rows:
            print(line(row))
        for note in self.notes:
            print(f"  * {note}")


class Bench:
    def __init__(self, opts: argparse.Namespace):
        self.opts = opts
        self.root = Path(opts.dir).resolve()
        self.bin = opts.bin
        self.rules = WalkRules.for_project(self.root)
        self.rg = shutil.which("rg")
        self.ctags = ctags_path()
        self.hyperfine = bool(shutil.which("hyperfine")) and not opts.no_hyperfine
        self.results: dict = {"dir": str(self.root), "binary": opts.bin_label}
        self.had_state_dir = (self.root / STATE_DIR).exists()
        self.symbols: list[dict] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="code-intel-bench-"))

    # -- helpers --

    def call(self, tool: str, args: dict) -> list[str]:
        return [self.bin, "call", tool, json.dumps(args, separators=(",", ":")), "--root", "."]

    def call_json(self, tool: str, args: dict) -> dict:
        done = subprocess.run(self.call(tool, args), cwd=self.root, capture_output=True)
        try:
            return json.loads(done.stdout)
        except ValueError:
            raise SystemExit(f"code-intel call {tool} failed: {done.stderr.decode()[-400:]}")

    def rg_argv(self, *extra: str) -> list[str]:
        return [self.rg, *self.rules.rg_flags(), *extra]

    def time(self, argv: list[str]) -> Timing:
        return time_repeated(argv, self.root, self.opts.runs, self.hyperfine)

    def clear_index(self) -> None:
        """Removes everything code-intel stored for the project except its config.json."""
        state = self.root / STATE_DIR
        if not state.exists():
            return
        for child in state.iterdir():
            if child.name == "config.json":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()

    def cleanup(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)
        state = self.root / STATE_DIR
        if not self.had_state_dir and state.exists() and not self.opts.keep_index:
            shutil.rmtree(state, ignore_errors=True)

    def supported_files(self) -> list[str]:
        """Files code-intel would index, listed by rg with the same walk rules."""
        done = subprocess.run(self.rg_argv("--files", "."), cwd=self.root, capture_output=True)
        files = [f.removeprefix("./") for f in done.stdout.decode(errors="replace").splitlines()]
        self.walked_by_rg = len(files)
        return sorted(f for f in files if self.rules.is_supported(f))


def ctags_path() -> str | None:
    """universal-ctags only: Exuberant ctags lacks the parsers and options compared here."""
    for name in ("ctags-universal", "universal-ctags", "ctags"):
        path = shutil.which(name)
        if path:
            out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
            if "Universal Ctags" in out:
                return path
    return None


def tool_version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()
        return out[0].strip() if out else "?"
    except OSError:
        return "absent"


# -- sections ---------------------------------------------------------------------------------

def section_environment(b: Bench) -> Table:
    t = Table("Environment", ["item", "value"], left=2)
    load = os.getloadavg()
    t.rows += [
        ["directory", str(b.root)],
        ["code-intel", b.opts.bin_label],
        ["ripgrep", tool_version([b.rg, "--version"]) if b.rg else "absent (comparison skipped)"],
        ["universal-ctags", tool_version([b.ctags, "--version"]) if b.ctags
         else "absent (comparison skipped)"],
        ["timing", f"median of {b.opts.runs} runs after 1 warm-up, "
                   + ("hyperfine -N" if b.hyperfine else "Python loop")],
        ["cores / load avg (1 min)", f"{os.cpu_count()} / {load[0]:.2f}"],
    ]
    if load[0] > (os.cpu_count() or 1) * 0.5:
        t.notes.append("the machine is busy: figures are noisy, compare ratios from one run only")
    b.results["load_avg_1m"] = load[0]
    return t


def section_search_text(b: Bench) -> Table:
    t = Table("search_text via `code-intel call` vs rg (same pattern, process start included)",
              ["case", "pattern", "matches ci / rg", "code-intel", "rg -n", "rg -c", "ratio -n",
               "ratio -c", "target", "CPU ratio -c"], left=2)
    rows = []
    patterns = b.opts.patterns or DEFAULT_PATTERNS
    for label, pattern, fixed, sensitive in patterns:
        args = {"pattern": pattern, "fixed_strings": fixed, "case_sensitive": sensitive}
        answer = b.call_json("search_text", args)
        ours_count = answer.get("total_matches", "error")
        ours = b.time(b.call("search_text", args))
        row = {"case": label, "pattern": pattern, "code_intel_matches": ours_count,
               "code_intel_s": ours.median, "code_intel_cpu_s": ours.cpu,
               "files_searched": answer.get("files_searched")}
        if not b.rg:
            t.rows.append([label, pattern, f"{ours_count} / -", ours.fmt(), "-", "-", "-", "-",
                           "<=1.5x", "-"])
            rows.append(row)
            continue
        flags = (["-F"] if fixed else []) + (["-s"] if sensitive else ["-i"])
        count_out = subprocess.run(b.rg_argv(*flags, "-c", "-I", "-e", pattern, "."),
                                   cwd=b.root, capture_output=True, text=True).stdout
        rg_count = sum(int(n) for n in count_out.split())
        # Two baselines: rg printing every matching line (its everyday use) and rg only counting
        # them (the least work for the same total); both write into a pipe.
        lines = b.time(b.rg_argv(*flags, "-n", "-e", pattern, "."))
        counts = b.time(b.rg_argv(*flags, "-c", "-e", pattern, "."))
        worst = max(ours.median / lines.median, ours.median / counts.median)
        same = "=" if rg_count == ours_count else "!="
        t.rows.append([label, pattern, f"{ours_count} {same} {rg_count}", ours.fmt(),
                       lines.fmt(), counts.fmt(), fmt_ratio(ours.median, lines.median),
                       fmt_ratio(ours.median, counts.median), f"<=1.5x {verdict(worst, 1.5)}",
                       fmt_ratio(ours.cpu, counts.cpu)])
        row.update(rg_matches=rg_count, rg_lines_s=lines.median, rg_count_s=counts.median,
                   rg_count_cpu_s=counts.cpu, ratio=worst)
        rows.append(row)
    b.results["search_text"] = rows
    if not b.rg:
        t.notes.append("rg not found: install it with bench/setup.sh for the comparison")
    t.notes.append("code-intel answers with the first 100 matches plus the true total; the "
                   "target applies to the larger of the two ratios")
    t.notes.append("CPU ratio: mean user+sys CPU time against rg -c, less sensitive than wall "
                   "time to other load on the machine")
    return t


def section_cold_index(b: Bench) -> Table:
    t = Table("Cold symbol index (no .code-intel/) vs universal-ctags on the same files",
              ["measure", "code-intel", "ctags -L (same files)" if b.rg else "ctags -R",
               "ratio", "target"])
    colds = []
    for _ in range(b.opts.cold_runs):
        b.clear_index()
        colds.append(run_once(b.call("find_definitions", {"symbol": "BenchColdProbe"}), b.root))
    cold = sorted(colds, key=lambda r: r.wall)[len(colds) // 2]
    store = b.root / STATE_DIR / "symbols.bin"
    store_size = store.stat().st_size if store.exists() else 0

    # Counts from the warm index the last cold run left behind.
    every = b.call_json("get_symbols", {"path": ".", "max_results": 1})
    indexed, skipped, total_symbols = every.get("files"), len(every.get("skipped", [])), \
        every.get("total")
    walked = b.call_json("search_text", {"pattern": "BenchNoSuchText", "fixed_strings": True})

    # The baseline: ctags over exactly the files code-intel indexes (listed by rg with the same
    # walk rules); without rg, ctags' own recursive walk with the skip directories excluded.
    ctags, recursive, tag_count, tag_count_r = None, None, None, None
    files = b.supported_files() if b.rg else []
    tags = b.tmp / "tags"
    if b.ctags:
        excludes = [f"--exclude={d}" for d in b.rules.skip_dirs]
        recursive_argv = [b.ctags, "-R", "-f", str(tags), *excludes, "."]
        if files:
            listing = b.tmp / "files.txt"
            listing.write_text("\n".join(files) + "\n")
            baseline_argv = [b.ctags, "-L", str(listing), "-f", str(tags)]
        else:
            baseline_argv = recursive_argv
        runs = [run_once(baseline_argv, b.root) for _ in range(b.opts.cold_runs)]
        ctags = sorted(runs, key=lambda r: r.wall)[len(runs) // 2]
        tag_count = count_tags(tags)
        if files:
            recursive = run_once(recursive_argv, b.root)
            tag_count_r = count_tags(tags)

    def pair(ours, theirs, target=None, fmt=fmt_secs):
        if theirs is None:
            return [fmt(ours), "-", "-", f"<={target}x" if target else ""]
        ratio = ours / theirs if theirs else 0
        mark = f"<={target}x {verdict(ratio, target)}" if target else ""
        return [fmt(ours), fmt(theirs), f"{ratio:.2f}x", mark]

    mb = lambda kb: f"{kb / 1024:.0f} MB"
    t.rows.append([f"wall time (median of {b.opts.cold_runs})",
                   *pair(cold.wall, ctags.wall if ctags else None, 3)])
    t.rows.append(["CPU user+sys", *pair(cold.user + cold.system,
                                          ctags.user + ctags.system if ctags else None)])
    t.rows.append(["peak RSS", *pair(cold.max_rss_kb, ctags.max_rss_kb if ctags else None,
                                     fmt=mb)])
    t.rows.append(["files parsed", f"{indexed} (+{skipped} skipped)",
                   (str(len(files)) if files else "ctags -R") if ctags else "-", "", ""])
    t.rows.append(["symbols / tags", str(total_symbols), str(tag_count) if ctags else "-",
                   "", ""])
    t.rows.append(["index store size", f"{store_size / 1e6:.1f} MB", "-", "", ""])
    t.notes.append(f"files walked: code-intel {walked.get('files_searched')}"
                   + (f", rg --files {b.walked_by_rg} (same exclusions)" if b.rg else ""))
    if recursive:
        t.notes.append(f"ctags -R on the whole tree (its own walk, no .gitignore): "
                       f"{fmt_secs(recursive.wall)}, {tag_count_r} tags, "
                       f"{mb(recursive.max_rss_kb)} peak RSS")
    if ctags and not files:
        t.notes.append("rg not found: ctags walked the tree itself (-R), so inputs may differ")
    if not ctags:
        t.notes.append("no ctags comparison: universal-ctags not found (bench/setup.sh)")
    if ctags:
        t.notes.append("ctags runs with default fields; code-intel also computes end lines, "
                       "scopes, qualified names and signatures, and writes its store")
    if cold.returncode != 0:
        t.notes.append(f"the cold call exited with {cold.returncode}")
    b.results["cold_index"] = {
        "wall_s": cold.wall, "cpu_s": cold.user + cold.system, "max_rss_kb": cold.max_rss_kb,
        "files_indexed": indexed, "files_skipped": skipped, "symbols": total_symbols,
        "files_walked": walked.get("files_searched"), "store_bytes": store_size,
        "ctags_wall_s": ctags.wall if ctags else None,
        "ctags_tags": tag_count, "ctags_files": len(files) if files else None,
        "ratio": cold.wall / ctags.wall if ctags and ctags.wall else None,
    }
    return t


def count_tags(tags: Path) -> int:
    with open(tags, errors="replace") as lines:
        return sum(1 for line in lines if not line.startswith("!_"))


def choose_symbols(b: Bench) -> list[dict]:
    """Probe symbols for the warm queries: the user's, or type names picked from the index (the
    most referenced one, the worst realistic case, and a median one)."""
    if not (b.root / STATE_DIR / "symbols.bin").exists():
        b.call_json("find_definitions", {"symbol": "BenchColdProbe"})
    defs = b.call_json("get_symbols", {"path": ".", "kinds": TYPE_KINDS,
                                       "max_results": 20000}).get("symbols", [])
    first_file = {}
    for d in defs:
        first_file.setdefault(d["name"], d)
    if b.opts.symbol:
        chosen = [(name, None) for name in b.opts.symbol]
    elif not first_file:
        return []
    elif not b.rg:
        name = sorted(first_file)[0]
        chosen = [(name, None)]
    else:
        # Whole-identifier occurrences of every type name, from one rg pass listing identifiers
        # (one pass with thousands of -w literals is far slower).
        names = set(first_file)
        proc = subprocess.Popen(b.rg_argv(*b.rules.rg_type_flags(), "-o", "-s", "-I",
                                          "--no-line-number", "[A-Za-z_][A-Za-z0-9_]*", "."),
                                cwd=b.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, errors="replace")
        counts = Counter(token for line in proc.stdout
                         if (token := line.strip()) in names)
        proc.wait()
        ranked = sorted(names, key=lambda n: (-counts[n], n))
        chosen = [(ranked[0], "most used"), (ranked[len(ranked) // 2], "median")]
    picked = []
    for name, why in chosen:
        d = first_file.get(name)
        picked.append({"symbol": name, "why": why, "file": d["file"] if d else ".",
                       "line": d["line"] if d else 1})
    return picked


def section_warm(b: Bench) -> Table:
    t = Table("Warm queries via `code-intel call` (index built, process start included)",
              ["call", "median", "min", "max", "CPU", "answer", "target"])
    probes = choose_symbols(b)
    rows = []
    for spec in WARM_CALLS:
        uses_probe = "tool" in spec and "{" in json.dumps(spec.get("args", {}))
        for probe in (probes if uses_probe else [None]):
            fill = probe or {}
            label = spec["label"].format(**fill) if probe else spec["label"]
            if probe and probe["why"]:
                label += f" ({probe['why']})"
            if "argv" in spec:
                argv = [b.bin, *spec["argv"]]
                answer = ""
            else:
                args = fill_placeholders(spec["args"], fill)
                argv = b.call(spec["tool"], args)
                answer = describe_answer(b, spec["tool"], args, b.call_json(spec["tool"], args))
            timing = b.time(argv)
            target = spec.get("target_ms")
            mark = (f"<={target} ms {verdict(timing.median * 1000, target)}" if target else "")
            t.rows.append([label, timing.fmt(), fmt_secs(timing.minimum),
                           fmt_secs(timing.maximum), fmt_secs(timing.cpu), answer, mark])
            rows.append({"label": label, "median_s": timing.median, "min_s": timing.minimum,
                         "max_s": timing.maximum, "cpu_s": timing.cpu, "target_ms": target, "answer": answer})
    b.results["warm"] = rows
    if b.rg:
        t.notes.append("find_references answer: uses + definitions left out, against the lines "
                       "`rg -w -F -s` finds in the supported languages' files")
    return t


def fill_placeholders(value, probe: dict):
    """Replaces "{symbol}", "{file}" and "{line}" strings in a WARM_CALLS argument template."""
    if isinstance(value, dict):
        return {k: fill_placeholders(v, probe) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_placeholders(v, probe) for v in value]
    if value == "{line}":
        return probe.get("line", 1)
    if isinstance(value, str):
        return value.replace("{symbol}", probe.get("symbol", "")).replace(
            "{file}", probe.get("file", "."))
    return value


def describe_answer(b: Bench, tool: str, args: dict, answer: dict) -> str:
    if "code" in answer and "message" in answer:
        return f"error {answer['code']}"
    if tool == "find_definitions":
        return f"{answer.get('total')} defs / {answer.get('files_indexed')} files"
    if tool == "find_references":
        ours = answer.get("total", 0) + answer.get("definitions_excluded", 0)
        text = f"{answer.get('total')} refs + {answer.get('definitions_excluded')} defs"
        if b.rg:
            out = subprocess.run(b.rg_argv(*b.rules.rg_type_flags(), "-w", "-F", "-s", "-c",
                                           "-I", "-e", args["symbol"], "."),
                                 cwd=b.root, capture_output=True, text=True).stdout
            rg_lines = sum(int(n) for n in out.split())
            text += f" {'=' if rg_lines == ours else '!='} rg {rg_lines}"
        return text
    if tool == "get_symbols":
        return f"{answer.get('total')} symbols"
    return ""


SECTIONS: list[tuple[str, Callable[[Bench], Table]]] = [
    ("env", section_environment),
    ("search", section_search_text),
    ("cold", section_cold_index),
    ("warm", section_warm),
]


def parse_pattern(spec: str) -> tuple[str, str, bool, bool]:
    """`label:flags:pattern` with flags from F (fixed string) and i (case-insensitive)."""
    parts = spec.split(":", 2)
    if len(parts) != 3:
        raise argparse.ArgumentTypeError("use LABEL:FLAGS:PATTERN, flags from 'F' and 'i'")
    label, flags, pattern = parts
    return label, pattern, "F" in flags, "i" not in flags


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", help="project directory to benchmark")
    parser.add_argument("--bin", required=True, help=argparse.SUPPRESS)
    parser.add_argument("--bin-label", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=10, help="runs per timed command (10)")
    parser.add_argument("--cold-runs", type=int, default=3,
                        help="cold index builds, median taken (3)")
    parser.add_argument("--symbol", action="append",
                        help="probe symbol for the warm queries (repeatable; default: chosen)")
    parser.add_argument("--pattern", dest="patterns", action="append", type=parse_pattern,
                        help="search_text case LABEL:FLAGS:PATTERN (repeatable)")
    parser.add_argument("--only", action="append", choices=[name for name, _ in SECTIONS],
                        help="run only these sections (repeatable)")
    parser.add_argument("--no-hyperfine", action="store_true", help="time with a Python loop")
    parser.add_argument("--keep-index", action="store_true",
                        help="leave .code-intel/ behind even if the bench created it")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    opts = parser.parse_args()
    opts.bin_label = opts.bin_label or opts.bin
    if not Path(opts.dir).is_dir():
        parser.error(f"{opts.dir} is not a directory")

    bench = Bench(opts)
    print(f"# code-intel benchmark: {bench.root}")
    try:
        for name, section in SECTIONS:
            if opts.only and name not in opts.only and name != "env":
                continue
            section(bench).print()
            sys.stdout.flush()
    finally:
        bench.cleanup()
    if opts.json:
        Path(opts.json).write_text(json.dumps(bench.results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
