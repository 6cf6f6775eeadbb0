#!/usr/bin/env python3
"""Write the Japanese → English dictionary the relevance judge reads (`ja-en.tsv`).

The judge bridges a request's Japanese words to the English of a project's names. The glossary
in `src/search/glossary.rs` holds the vocabulary every project shares; a domain's own words
(飼い主, 保管庫, 昼寝) come from JMdict, the Electronic Dictionary Research and Development
Group's Japanese-multilingual dictionary (CC BY-SA 4.0), as the registry package
`jamdict-data==1.5` ships it (a SQLite database, xz-compressed, inside the source archive).

Output, next to the model (`--out`, else $CODE_INTEL_MODEL_DIR, else the default model
directory):
  ja-en.tsv          one line per written form: the form, then one tab-separated field per
                     sense, each the sense's English glosses joined by "; ". Kanji forms and
                     katakana forms; a hiragana form only for a word written without kanji.
                     Senses marked archaic, obsolete, obscure, historical, poetic, rare or
                     vulgar, proverbs and four-character idioms are left out; a form's entries
                     are ordered by JMdict's frequency marks, at most three, four senses each.
  ja-en.LICENSE.md   the dictionary's licence statement, as the package ships it.
  ja-en.json         where the file came from and its sha256; a second run that finds the file
                     matching it does nothing.

Only the standard library is needed (sqlite3, lzma, tarfile) besides the helpers it shares with
provision.py next to it; pip fetches the archive.
"""
import argparse
import collections
import json
import lzma
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

# The model's provisioner, next to this file: the same directory, cache and hashing.
from provision import default_cache_dir, default_out_dir, sha256_file

REQUIREMENT = "jamdict-data==1.5"
ARCHIVE = "jamdict_data-1.5.tar.gz"
ARCHIVE_SHA256 = "a4247dd9bb3148ab17c1b32fc56d7a7f1c35293b0d6ff2838c811f896d13f415"
DATABASE_MEMBER = "jamdict_data-1.5/jamdict_data/jamdict.db.xz"
LICENCE_MEMBER = "jamdict_data-1.5/jamdict_data/LICENSE.md"
# Bump when the selection or the format below changes, so that existing files are rewritten.
RECIPE = "code-intel/jmdict-ja-en/1"

TSV = "ja-en.tsv"
LICENCE = "ja-en.LICENSE.md"
STAMP = "ja-en.json"

SKIPPED_SENSES = {
    "archaism", "obscure term", "obsolete term", "historical term", "poetical term", "proverb",
    "yojijukugo", "rare", "dated term", "quotation", "manga slang", "vulgar expression or word",
    "derogatory",
}
FREQUENT = {"ichi1", "news1", "spec1", "gai1"}
ENTRIES_PER_FORM = 3
SENSES_PER_ENTRY = 4
GLOSSES_PER_SENSE = 5
KATAKANA = re.compile(r"[\u30a0-\u30ff]")


class DictionaryError(Exception):
    """A failure with a message meant for the person running the script."""


def log(msg: str) -> None:
    print(f"[dictionary] {msg}", file=sys.stderr, flush=True)


def is_current(out: Path) -> bool:
    try:
        stamp = json.loads((out / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    tsv = out / TSV
    return (stamp.get("recipe") == RECIPE and tsv.is_file() and (out / LICENCE).is_file()
            and sha256_file(tsv) == stamp.get("sha256"))


def obtain_archive(cache: Path) -> Path:
    archives = cache / "archives"
    archives.mkdir(parents=True, exist_ok=True)
    archive = archives / ARCHIVE
    if not (archive.is_file() and sha256_file(archive) == ARCHIVE_SHA256):
        archive.unlink(missing_ok=True)
        log(f"pip download --no-deps {REQUIREMENT}")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", str(archives), REQUIREMENT]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0 or not archive.is_file():
            raise DictionaryError("could not download the dictionary with pip (is the package "
                                  "index reachable?):\n" + proc.stdout.strip())
    digest = sha256_file(archive)
    if digest != ARCHIVE_SHA256:
        raise DictionaryError(f"{archive} has sha256 {digest}, expected {ARCHIVE_SHA256}: "
                              "refusing to read an unexpected artifact")
    return archive


def unpack(archive: Path, workdir: Path) -> tuple[Path, bytes]:
    """The database, decompressed into `workdir`, and the licence text."""
    database = workdir / "jamdict.db"
    with tarfile.open(archive, "r:gz") as tar:
        licence = tar.extractfile(LICENCE_MEMBER).read()
        with tar.extractfile(DATABASE_MEMBER) as packed, lzma.open(packed) as db, \
                open(database, "wb") as f:
            shutil.copyfileobj(db, f, 4 << 20)
    return database, licence


def lines(database: Path):
    """The output lines, sorted by form."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    misc = collections.defaultdict(set)
    for sid, text in db.execute("SELECT sid, text FROM misc"):
        misc[sid].add(text)
    glosses = collections.defaultdict(list)
    for sid, text in db.execute("SELECT sid, text FROM SenseGloss WHERE lang = 'eng' "
                                "ORDER BY rowid"):
        if text:
            glosses[sid].append(text.replace("\t", " ").strip())
    senses = collections.defaultdict(list)
    for sid, idseq in db.execute("SELECT ID, idseq FROM Sense ORDER BY ID"):
        senses[idseq].append(sid)
    marks = collections.defaultdict(set)
    for table in ("KJP", "KNP"):
        for kid, text in db.execute(f"SELECT kid, text FROM {table}"):
            marks[(table, kid)].add(text)

    def rank(table: str, kid: int) -> int:
        m = marks[(table, kid)]
        return 0 if m & FREQUENT else (1 if m else 2)

    forms = collections.defaultdict(set)
    for kid, idseq, text in db.execute("SELECT ID, idseq, text FROM Kanji"):
        forms[text].add((rank("KJP", kid), idseq))
    with_kanji = {row[0] for row in db.execute("SELECT DISTINCT idseq FROM Kanji")}
    for kid, idseq, text in db.execute("SELECT ID, idseq, text FROM Kana"):
        # A kana form of a kanji word is a reading, shared by many words (かみ: paper, god,
        # hair); katakana forms are loanwords and kept.
        if KATAKANA.search(text) or idseq not in with_kanji:
            forms[text].add((rank("KNP", kid), idseq))
    db.close()

    for form in sorted(forms):
        fields = []
        for _, idseq in sorted(forms[form])[:ENTRIES_PER_FORM]:
            for sid in senses[idseq][:SENSES_PER_ENTRY]:
                if misc[sid] & SKIPPED_SENSES or not glosses[sid]:
                    continue
                fields.append("; ".join(glosses[sid][:GLOSSES_PER_SENSE]))
        if fields and "\t" not in form and "\n" not in form:
            yield form + "\t" + "\t".join(fields) + "\n"


def write(out: Path, cache: Path) -> None:
    archive = obtain_archive(cache)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".dictionary-", dir=cache) as work:
        database, licence = unpack(archive, Path(work))
        staged = out / f".{TSV}.{os.getpid()}"
        try:
            count = 0
            with open(staged, "w", encoding="utf-8", newline="\n") as f:
                for line in lines(database):
                    f.write(line)
                    count += 1
            (out / LICENCE).write_bytes(licence)
            os.replace(staged, out / TSV)
        finally:
            staged.unlink(missing_ok=True)
    stamp = {
        "recipe": RECIPE,
        "source": {"requirement": REQUIREMENT, "archive": ARCHIVE, "sha256": ARCHIVE_SHA256,
                   "licence": "JMdict, EDRDG, CC BY-SA 4.0 (see " + LICENCE + ")"},
        "forms": count,
        "bytes": (out / TSV).stat().st_size,
        "sha256": sha256_file(out / TSV),
    }
    (out / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {out / TSV}: {count} forms, {stamp['bytes'] / 1e6:.1f} MB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None, help="the model directory")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="where the downloaded archive is kept")
    ap.add_argument("--force", action="store_true", help="rewrite even if current")
    args = ap.parse_args(argv)
    out = (args.out or default_out_dir()).expanduser().resolve()
    cache = (args.cache_dir or default_cache_dir()).expanduser().resolve()
    if not args.force and is_current(out):
        log(f"already written: {out / TSV}")
        return 0
    if out.is_dir() and not os.access(out, os.W_OK):
        # A read-only model directory (a shared or air-gapped copy) stays as it is; the server
        # runs without the dictionary there.
        log(f"warning: {out} is read-only: no dictionary written (copy one in to use it)")
        return 0
    try:
        write(out, cache)
        return 0
    except (DictionaryError, OSError, sqlite3.Error, tarfile.TarError, lzma.LZMAError) as e:
        # The server runs without the file (the judge then reads the glossary, loanwords and
        # the model's bridge only), but a setup that meant to write it has failed.
        print(f"dictionary: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
