//! Calibration: raw e5 cosine → relevance score in [0, 1]. (Doc rewritten once fitted.)

use super::{EmbedError, Embedder, Vector, cosine};
use serde::{Deserialize, Serialize};

/// The labelled set, compiled in.
pub const RELEVANCE_SET: &str = include_str!("data/relevance_set.txt");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    Fit,
    Held,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SetQuery {
    pub lang: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SetPassage {
    pub kind: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    pub id: String,
    pub split: Split,
    pub near: Vec<String>,
    pub queries: Vec<SetQuery>,
    pub passages: Vec<SetPassage>,
}

/// The parsed `relevance_set.txt`.
#[derive(Debug, Clone)]
pub struct RelevanceSet {
    pub topics: Vec<Topic>,
}

/// One labelled pair, by index into [`RelevanceSet::queries`] and [`RelevanceSet::passages`]
/// (or a second query for query ↔ query pairs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub a: usize,
    pub b: usize,
    pub related: bool,
    pub split: Split,
}

impl RelevanceSet {
    pub fn builtin() -> RelevanceSet {
        Self::parse(RELEVANCE_SET).expect("the built-in relevance set parses (tested)")
    }

    pub fn parse(text: &str) -> Result<RelevanceSet, String> {
        let mut topics: Vec<Topic> = Vec::new();
        // Whether lines now belong to the last passage's body.
        let mut in_body = false;
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            if let Some(rest) = line.strip_prefix("@@topic ") {
                let mut words = rest.split_whitespace();
                let id = words.next().ok_or(format!("line {n}: topic without id"))?;
                let mut topic = Topic {
                    id: id.to_string(),
                    split: Split::Fit,
                    near: Vec::new(),
                    queries: Vec::new(),
                    passages: Vec::new(),
                };
                for word in words {
                    match word.split_once('=') {
                        Some(("split", "fit")) => topic.split = Split::Fit,
                        Some(("split", "held")) => topic.split = Split::Held,
                        Some(("near", list)) => {
                            topic.near = list
                                .split(',')
                                .filter(|s| !s.is_empty())
                                .map(String::from)
                                .collect()
                        }
                        _ => return Err(format!("line {n}: unknown topic attribute {word:?}")),
                    }
                }
                topics.push(topic);
                in_body = false;
                continue;
            }
            let Some(topic) = topics.last_mut() else {
                if line.starts_with("@@") {
                    return Err(format!("line {n}: {line:?} before the first @@topic"));
                }
                continue;
            };
            if let Some(rest) = line.strip_prefix("@@q ") {
                let (lang, text) = rest
                    .split_once(' ')
                    .ok_or(format!("line {n}: @@q needs LANG TEXT"))?;
                topic.queries.push(SetQuery {
                    lang: lang.to_string(),
                    text: text.trim().to_string(),
                });
                in_body = false;
            } else if let Some(kind) = line.strip_prefix("@@p ") {
                topic.passages.push(SetPassage {
                    kind: kind.trim().to_string(),
                    text: String::new(),
                });
                in_body = true;
            } else if line.starts_with("@@") {
                return Err(format!("line {n}: unknown directive {line:?}"));
            } else if let Some(passage) = topic.passages.last_mut().filter(|_| in_body) {
                let text = &mut passage.text;
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(line);
            }
        }
        for topic in &mut topics {
            for p in &mut topic.passages {
                p.text = p.text.trim_end().to_string();
            }
        }
        let ids: Vec<&str> = topics.iter().map(|t| t.id.as_str()).collect();
        for topic in &topics {
            for near in &topic.near {
                if !ids.contains(&near.as_str()) {
                    return Err(format!("topic {}: near={near} is not a topic", topic.id));
                }
            }
        }
        Ok(RelevanceSet { topics })
    }

    /// Every query, with its topic index.
    pub fn queries(&self) -> Vec<(usize, &SetQuery)> {
        self.topics
            .iter()
            .enumerate()
            .flat_map(|(t, topic)| topic.queries.iter().map(move |q| (t, q)))
            .collect()
    }

    /// Every passage, with its topic index.
    pub fn passages(&self) -> Vec<(usize, &SetPassage)> {
        self.topics
            .iter()
            .enumerate()
            .flat_map(|(t, topic)| topic.passages.iter().map(move |p| (t, p)))
            .collect()
    }

    /// Whether two topics are near (either lists the other).
    fn near(&self, a: usize, b: usize) -> bool {
        let (ta, tb) = (&self.topics[a], &self.topics[b]);
        ta.near.contains(&tb.id) || tb.near.contains(&ta.id)
    }

    /// The label of a topic pair: Some(true) same topic, Some(false) unrelated, None near.
    fn label(&self, a: usize, b: usize) -> Option<bool> {
        if a == b {
            Some(true)
        } else if self.near(a, b) {
            None
        } else {
            Some(false)
        }
    }

    /// The split of a pair: held if either side's topic is held out, so fitted parameters
    /// never saw any text of a held-out pair.
    fn split(&self, a: usize, b: usize) -> Split {
        if self.topics[a].split == Split::Held || self.topics[b].split == Split::Held {
            Split::Held
        } else {
            Split::Fit
        }
    }

    /// Request ↔ indexed text pairs.
    pub fn passage_pairs(&self) -> Vec<Pair> {
        let (queries, passages) = (self.queries(), self.passages());
        let mut out = Vec::new();
        for (qi, (qt, _)) in queries.iter().enumerate() {
            for (pi, (pt, _)) in passages.iter().enumerate() {
                if let Some(related) = self.label(*qt, *pt) {
                    out.push(Pair {
                        a: qi,
                        b: pi,
                        related,
                        split: self.split(*qt, *pt),
                    });
                }
            }
        }
        out
    }

    /// Request ↔ request pairs (a new request against an agreed term), each unordered pair
    /// once.
    pub fn query_pairs(&self) -> Vec<Pair> {
        let queries = self.queries();
        let mut out = Vec::new();
        for (i, (ti, _)) in queries.iter().enumerate() {
            for (j, (tj, _)) in queries.iter().enumerate().skip(i + 1) {
                if let Some(related) = self.label(*ti, *tj) {
                    // Two "no answer" requests share a topic but not a meaning.
                    let related = related && !self.topics[*ti].passages.is_empty();
                    out.push(Pair {
                        a: i,
                        b: j,
                        related,
                        split: self.split(*ti, *tj),
                    });
                }
            }
        }
        out
    }
}

/// Separation of scores between related and unrelated pairs.
#[derive(Debug, Clone, Serialize)]
pub struct Separation {
    pub related: usize,
    pub unrelated: usize,
    /// Probability that a random related pair scores above a random unrelated one.
    pub auc: f64,
    pub mean_related: f64,
    pub mean_unrelated: f64,
    /// Related pairs scored < 0.3 (would be rejected).
    pub related_below_low: f64,
    /// Related pairs scored > 0.6.
    pub related_above_high: f64,
    /// Unrelated pairs scored > 0.6 (would be accepted as fact).
    pub unrelated_above_high: f64,
    /// Unrelated pairs scored < 0.3.
    pub unrelated_below_low: f64,
}

/// Measures how well `scores` separate the labels.
pub fn separation(scored: &[(f64, bool)]) -> Separation {
    let rel: Vec<f64> = scored.iter().filter(|s| s.1).map(|s| s.0).collect();
    let unrel: Vec<f64> = scored.iter().filter(|s| !s.1).map(|s| s.0).collect();
    let frac = |v: &[f64], f: &dyn Fn(f64) -> bool| {
        v.iter().filter(|&&x| f(x)).count() as f64 / v.len().max(1) as f64
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Separation {
        related: rel.len(),
        unrelated: unrel.len(),
        auc: auc(&rel, &unrel),
        mean_related: mean(&rel),
        mean_unrelated: mean(&unrel),
        related_below_low: frac(&rel, &|x| x < 0.3),
        related_above_high: frac(&rel, &|x| x > 0.6),
        unrelated_above_high: frac(&unrel, &|x| x > 0.6),
        unrelated_below_low: frac(&unrel, &|x| x < 0.3),
    }
}

/// Mann-Whitney AUC, ties counted half.
fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    if pos.is_empty() || neg.is_empty() {
        return f64::NAN;
    }
    let mut all: Vec<(f64, bool)> = pos
        .iter()
        .map(|&x| (x, true))
        .chain(neg.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Average ranks over ties.
    let mut rank_sum_pos = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        rank_sum_pos += avg_rank * all[i..=j].iter().filter(|x| x.1).count() as f64;
        i = j + 1;
    }
    let (np, nn) = (pos.len() as f64, neg.len() as f64);
    (rank_sum_pos - np * (np + 1.0) / 2.0) / (np * nn)
}

/// `σ(slope · x + intercept)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    pub slope: f64,
    pub intercept: f64,
}

impl Logistic {
    pub fn apply(&self, x: f64) -> f64 {
        1.0 / (1.0 + (-(self.slope * x + self.intercept)).exp())
    }

    /// Class-balanced logistic regression on one feature (Newton's method), with a small ridge
    /// on the slope so perfectly separated data still gives finite parameters.
    pub fn fit(samples: &[(f64, bool)]) -> Logistic {
        let n_pos = samples.iter().filter(|s| s.1).count().max(1) as f64;
        let n_neg = samples.iter().filter(|s| !s.1).count().max(1) as f64;
        let (w_pos, w_neg) = (0.5 / n_pos, 0.5 / n_neg);
        let ridge = 1e-4;
        let (mut a, mut b) = (0.0f64, 0.0f64);
        for _ in 0..100 {
            let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (ridge * a, 0.0, ridge, 0.0, 1e-12);
            for &(x, y) in samples {
                let w = if y { w_pos } else { w_neg };
                let p = 1.0 / (1.0 + (-(a * x + b)).exp());
                let r = p - if y { 1.0 } else { 0.0 };
                ga += w * r * x;
                gb += w * r;
                let s = w * p * (1.0 - p);
                haa += s * x * x;
                hab += s * x;
                hbb += s;
            }
            let det = haa * hbb - hab * hab;
            if det.abs() < 1e-30 {
                break;
            }
            let da = (hbb * ga - hab * gb) / det;
            let db = (haa * gb - hab * ga) / det;
            a -= da;
            b -= db;
            if da.abs() < 1e-9 && db.abs() < 1e-9 {
                break;
            }
        }
        Logistic {
            slope: a,
            intercept: b,
        }
    }
}

/// Vectors of every query and passage of a set, embedded once.
pub struct EmbeddedSet {
    pub queries: Vec<Vector>,
    pub passages: Vec<Vector>,
}

impl EmbeddedSet {
    pub fn embed(set: &RelevanceSet, embedder: &dyn Embedder) -> Result<EmbeddedSet, EmbedError> {
        let queries: Vec<&str> = set.queries().iter().map(|(_, q)| q.text.as_str()).collect();
        let passages: Vec<&str> = set.passages().iter().map(|(_, p)| p.text.as_str()).collect();
        Ok(EmbeddedSet {
            queries: embedder.embed_queries(&queries)?,
            passages: embedder.embed_passages(&passages)?,
        })
    }

    pub fn passage_cos(&self, pair: &Pair) -> f64 {
        cosine(&self.queries[pair.a], &self.passages[pair.b]) as f64
    }

    pub fn query_cos(&self, pair: &Pair) -> f64 {
        cosine(&self.queries[pair.a], &self.queries[pair.b]) as f64
    }
}

/// Placeholder until fitted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub passage: Logistic,
    pub query: Logistic,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_set_parses() {
        let set = RelevanceSet::builtin();
        assert!(set.topics.len() >= 30);
        let pairs = set.passage_pairs();
        let positives = pairs.iter().filter(|p| p.related).count();
        assert!(positives >= 300, "{positives}");
    }

    fn background() -> (Vec<String>, Vec<String>) {
        let text = include_str!("data/background.txt");
        let (mut ps, mut qs) = (Vec::new(), Vec::new());
        let mut cur: Option<(bool, String)> = None;
        for line in text.lines() {
            if line == "@@p" || line == "@@q" {
                if let Some((q, t)) = cur.take() { if q { qs.push(t.trim().to_string()) } else { ps.push(t.trim().to_string()) } }
                cur = Some((line == "@@q", String::new()));
            } else if let Some((_, t)) = cur.as_mut() { t.push_str(line); t.push('\n'); }
        }
        if let Some((q, t)) = cur.take() { if q { qs.push(t.trim().to_string()) } else { ps.push(t.trim().to_string()) } }
        (ps, qs)
    }

    #[test]
    fn experiment() {
        let model = crate::embed::test_model::real();
        let set = RelevanceSet::builtin();
        let emb = EmbeddedSet::embed(&set, &*model).unwrap();
        let (bp, bq) = background();
        let bpr: Vec<&str> = bp.iter().map(|s| s.as_str()).collect();
        let bqr: Vec<&str> = bq.iter().map(|s| s.as_str()).collect();
        let bpv = model.embed_passages(&bpr).unwrap();
        let bqv = model.embed_queries(&bqr).unwrap();
        let mean_cos = |v: &Vector, others: &[Vector]| others.iter().map(|o| cosine(v, o) as f64).sum::<f64>() / others.len() as f64;
        let sd_cos = |v: &Vector, others: &[Vector]| { let m = mean_cos(v, others); (others.iter().map(|o| (cosine(v, o) as f64 - m).powi(2)).sum::<f64>() / others.len() as f64).sqrt() };
        let qb: Vec<f64> = emb.queries.iter().map(|q| mean_cos(q, &bpv)).collect();
        let qsd: Vec<f64> = emb.queries.iter().map(|q| sd_cos(q, &bpv)).collect();
        let pb: Vec<f64> = emb.passages.iter().map(|p| mean_cos(p, &bqv)).collect();
        let qqb: Vec<f64> = emb.queries.iter().map(|q| mean_cos(q, &bqv)).collect();
        let pairs = set.passage_pairs();
        type F<'a> = Box<dyn Fn(&Pair) -> f64 + 'a>;
        let variants: Vec<(&str, F)> = vec![
            ("raw", Box::new(|p: &Pair| emb.passage_cos(p))),
            ("minus qb", Box::new(|p: &Pair| emb.passage_cos(p) - qb[p.a])),
            ("minus qb pb", Box::new(|p: &Pair| emb.passage_cos(p) - qb[p.a] - pb[p.b])),
            ("minus pb", Box::new(|p: &Pair| emb.passage_cos(p) - pb[p.b])),
            ("z qb", Box::new(|p: &Pair| (emb.passage_cos(p) - qb[p.a]) / qsd[p.a])),
        ];
        for (name, f) in &variants {
            let fit: Vec<(f64, bool)> = pairs.iter().filter(|p| p.split == Split::Fit).map(|p| (f(p), p.related)).collect();
            let l = Logistic::fit(&fit);
            let held: Vec<(f64, bool)> = pairs.iter().filter(|p| p.split == Split::Held).map(|p| (l.apply(f(p)), p.related)).collect();
            let s = separation(&held);
            eprintln!("P {name:12} auc {:.3} rel {:.3} unrel {:.3} rel<.3 {:.3} rel>.6 {:.3} unrel>.6 {:.3} unrel<.3 {:.3}  {l:?}", s.auc, s.mean_related, s.mean_unrelated, s.related_below_low, s.related_above_high, s.unrelated_above_high, s.unrelated_below_low);
        }
        // per-language fits on "minus qb"
        let queries = set.queries();
        let passages = set.passages();
        let f = |p: &Pair| emb.passage_cos(p) - qb[p.a];
        let mut fits = std::collections::HashMap::new();
        for lang in ["ja", "en"] {
            let fit: Vec<(f64, bool)> = pairs.iter().filter(|p| p.split == Split::Fit && queries[p.a].1.lang == lang).map(|p| (f(p), p.related)).collect();
            fits.insert(lang, Logistic::fit(&fit));
        }
        let held: Vec<(f64, bool)> = pairs.iter().filter(|p| p.split == Split::Held).map(|p| (fits[queries[p.a].1.lang.as_str()].apply(f(p)), p.related)).collect();
        let s = separation(&held);
        eprintln!("P per-lang     auc {:.3} rel {:.3} unrel {:.3} rel<.3 {:.3} rel>.6 {:.3} unrel>.6 {:.3} unrel<.3 {:.3}  {fits:?}", s.auc, s.mean_related, s.mean_unrelated, s.related_below_low, s.related_above_high, s.unrelated_above_high, s.unrelated_below_low);
        for split in [Split::Fit, Split::Held] {
        for lang in ["ja", "en"] {
            for kind in ["symbol", "code", "doc"] {
                let l = Logistic { slope: 39.51, intercept: -1.0318 };
                let s: Vec<(f64, bool)> = pairs.iter().filter(|p| p.split == split && queries[p.a].1.lang == lang && passages[p.b].1.kind == kind).map(|p| (l.apply(f(p)), p.related)).collect();
                let s = separation(&s);
                eprintln!("  {split:?} {lang} {kind}: auc {:.3} rel {:.3} unrel {:.3} rel<.3 {:.3} unrel>.6 {:.3}", s.auc, s.mean_related, s.mean_unrelated, s.related_below_low, s.unrelated_above_high);
            }
        }
        }
        // splitting on/off
        let qtexts: Vec<String> = queries.iter().map(|(_, q)| format!("query: {}", q.text)).collect();
        let ptexts: Vec<String> = passages.iter().map(|(_, p)| format!("passage: {}", p.text)).collect();
        let nq = model.embed_verbatim(&qtexts, true).unwrap();
        let np = model.embed_verbatim(&ptexts, false).unwrap();
        let nbp = model.embed_verbatim(&bp.iter().map(|t| format!("passage: {t}")).collect::<Vec<_>>(), false).unwrap();
        let nqb: Vec<f64> = nq.iter().map(|q| mean_cos(q, &nbp)).collect();
        for (name, split_on) in [("nosplit", false), ("split", true)] {
            let g = |p: &Pair| if split_on { emb.passage_cos(p) - qb[p.a] } else { cosine(&nq[p.a], &np[p.b]) as f64 - nqb[p.a] };
            let fit: Vec<(f64, bool)> = pairs.iter().filter(|p| p.split == Split::Fit).map(|p| (g(p), p.related)).collect();
            let l = Logistic::fit(&fit);
            for kind in ["symbol", "code", "doc"] {
                let held: Vec<(f64, bool)> = pairs.iter().filter(|p| passages[p.b].1.kind == kind).map(|p| (l.apply(g(p)), p.related)).collect();
                let s = separation(&held);
                eprintln!("S {name} {kind} all-splits auc {:.3} rel<.3 {:.3} unrel>.6 {:.3}", s.auc, s.related_below_low, s.unrelated_above_high);
            }
        }
        let qpairs = set.query_pairs();
        let qvariants: Vec<(&str, F)> = vec![
            ("raw", Box::new(|p: &Pair| emb.query_cos(p))),
            ("minus both qb", Box::new(|p: &Pair| emb.query_cos(p) - qb[p.a] - qb[p.b])),
            ("minus both qqb", Box::new(|p: &Pair| emb.query_cos(p) - qqb[p.a] - qqb[p.b])),
            ("minus a qb", Box::new(|p: &Pair| emb.query_cos(p) - qb[p.a])),
            ("minus mean qb", Box::new(|p: &Pair| emb.query_cos(p) - (qb[p.a] + qb[p.b]) / 2.0)),
            ("minus max qb", Box::new(|p: &Pair| emb.query_cos(p) - qb[p.a].max(qb[p.b]))),
        ];
        for (name, f) in &qvariants {
            let fit: Vec<(f64, bool)> = qpairs.iter().filter(|p| p.split == Split::Fit).map(|p| (f(p), p.related)).collect();
            let l = Logistic::fit(&fit);
            let held: Vec<(f64, bool)> = qpairs.iter().filter(|p| p.split == Split::Held).map(|p| (l.apply(f(p)), p.related)).collect();
            let s = separation(&held);
            eprintln!("Q {name:12} auc {:.3} rel {:.3} unrel {:.3} rel<.3 {:.3} rel>.6 {:.3} unrel>.6 {:.3} unrel<.3 {:.3}  {l:?}", s.auc, s.mean_related, s.mean_unrelated, s.related_below_low, s.related_above_high, s.unrelated_above_high, s.unrelated_below_low);
        }
    }
}
