"""Deterministic clause matcher: one Aho-Corasick pass, then structure and context decide each hit."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from rules.clauses.pack import ClausePack, ClauseRule, StatusCues, load_pack
from rules.clauses.structure import Article, Heading, Structure, blank_run, document_structure, fold

STIPULATED = "stipulated"
NEGATED = "negated"
REFERENCED = "referenced"
STATUSES = (STIPULATED, NEGATED, REFERENCED)

# A referenced clause ("详见保密协议") is evidence the topic exists elsewhere, not that it is agreed here.
_STATUS_FACTOR = {STIPULATED: 1.0, REFERENCED: 0.5, NEGATED: 0.9}
_SLOT_FACTOR = 0.85  # an unfilled template article counts, but less surely than written terms
# A dedicated article is where a reader looks for a clause, so it outranks a passing mention elsewhere.
_ARTICLE_BONUS = 0.1
_SUBARTICLE_BONUS = 0.07  # "1. 验收标准" inside an article ranks below the article "六、验收标准与方式"
_FIELD_BONUS = 0.05  # a form field ("有效期限: 年 月 日") names the clause too, with less structure

# The words that introduce a forum name ("向…法院", "由…仲裁委员会"); 所在地 must not split on its 在.
_FORUM_INTRO = re.compile(
    r"(?:向|由|提交|上交|送交|交由|提请|请求|要求|报请|诉诸|通过|选择|约定|同意|申请|到|(?<!所)在|或者|或|及|[,;。:()])"
)
# Words that do not name a forum on their own: "向人民法院起诉", "向劳动争议仲裁委员会申请仲裁".
_GENERIC_FORUM = re.compile(
    r"人民|有管辖权的?|当地|各级|有关|经济合同|合同|劳动争议|劳动人事争议|劳动|仲裁|管辖|的|一方|任何|直接|可以?|应当?|双方|均"
    r"|工商行政管理局|工商局|行政部门|主管部门|部门|国际|选定|起诉|提起|申请"
)


@dataclass(frozen=True)
class ClauseFinding:
    """One clause signal: label, rule, pack version, span of its paragraph, confidence, evidence, status."""

    label: str
    cuad: str | None
    rule_id: str
    pack_version: str
    start: int
    end: int
    confidence: float
    evidence: str
    status: str
    matched: str
    match_start: int
    match_end: int
    in_heading: bool = False
    slot: bool = False  # an unfilled template article ("违约责任：＿＿＿"): the clause's place, not its terms


def forum_is_named(folded: str, sentence_start: int, hit_start: int) -> bool:
    """True when the words before a court or arbitral body name a real one, not a blank or a generic one."""
    before = folded[sentence_start:hit_start]
    cuts = list(_FORUM_INTRO.finditer(before))
    name = before[cuts[-1].end() :] if cuts else before
    if blank_run(name) or "_" in name or "《" in name:  # a slot, or the title of a cited law (《最高人民法院关于…》)
        return False
    remainder = _GENERIC_FORUM.sub("", "".join(name.split()))  # "人\n民法院": an old template wrapped mid-word
    return len(re.findall(r"[\u4e00-\u9fffA-Za-z]", remainder)) >= 2


def _status(cues: StatusCues, before: str, after: str) -> str:
    """Classify a hit from the words around it in its sentence: negated, referenced or stipulated."""
    if cues.negated_before is not None and cues.negated_before.search(before):
        return NEGATED
    if cues.negated_after is not None and cues.negated_after.search(after):
        return NEGATED
    if cues.referenced_before is not None and cues.referenced_before.search(before):
        return REFERENCED
    if cues.referenced_after is not None and cues.referenced_after.search(after):
        return REFERENCED
    return STIPULATED


class _Scopes:
    """Regex verdicts on sentence and paragraph spans, searched once per (pattern, span) for all hits."""

    def __init__(self, folded: str) -> None:
        self.folded = folded
        self.found: dict[tuple[int, int, int], bool] = {}

    def search(self, pattern: re.Pattern[str], start: int, end: int) -> bool:
        """True when pattern occurs in folded[start:end]."""
        key = (id(pattern), start, end)
        found = self.found.get(key)
        if found is None:
            found = self.found[key] = pattern.search(self.folded[start:end]) is not None
        return found


def _neighbours_allow(rule: ClauseRule, folded: str, start: int, end: int) -> bool:
    """True when the words right before and after a hit are not ones its rule excludes."""
    if any(folded[max(start - len(p), 0) : start] == p for p in rule.not_preceded_by):
        return False
    return not any(folded.startswith(p, end) for p in rule.not_followed_by)


def _scope_holds(
    rule: ClauseRule, structure: Structure, scopes: _Scopes, position: int, sentence: tuple[int, int]
) -> bool:
    """True when the rule's sentence (or paragraph) conditions hold for a hit in this sentence."""
    if rule.forbids is not None and scopes.search(rule.forbids, *sentence):
        return False
    if rule.requires is None:
        return True
    if rule.requires_paragraph:
        return scopes.search(rule.requires, structure.paragraph_starts[position], structure.paragraph_ends[position])
    return scopes.search(rule.requires, *sentence)


class _Hit(NamedTuple):
    """A rule hit that passed its rule's conditions, before headings are settled."""

    rule: ClauseRule
    start: int
    end: int
    sentence: tuple[int, int]
    heading: Heading | None
    status: str


def _raw_hits(pack: ClausePack, structure: Structure) -> list[tuple[int, int, int]]:
    """Search once: (rule index, start, -end) of every hit outside drafting guidance, sorted.

    The end is negated so that a plain sort orders each rule's hits by start, the longest first.
    """
    raw: list[tuple[int, int, int]] = []
    guidance_starts, guidance_ends = structure.guidance_starts, structure.guidance_ends
    rules_of = pack.automaton.values
    for number, start, end in pack.automaton.occurrences(structure.text):
        if guidance_starts:
            index = bisect.bisect_right(guidance_starts, start) - 1
            if index >= 0 and start < guidance_ends[index]:
                continue  # bracketed drafting guidance never stipulates anything
        for rule_index in rules_of[number]:
            raw.append((rule_index, start, -end))
    raw.sort()
    return raw


def _hits(pack: ClausePack, structure: Structure) -> list[_Hit]:
    """Keep the longest hit per rule where patterns overlap, then let structure and context decide each."""
    folded = structure.text
    scopes = _Scopes(folded)
    hits: list[_Hit] = []
    reach: dict[int, int] = {}
    for index, start, negative_end in _raw_hits(pack, structure):
        end = -negative_end
        if end <= reach.get(index, -1):
            continue  # "商业秘密" inside "保守商业秘密" is the same words, judged once
        reach[index] = end
        rule = pack.rules[index]
        # Every check below is a pure filter, so the cheap ones run first.
        if (rule.not_preceded_by or rule.not_followed_by) and not _neighbours_allow(rule, folded, start, end):
            continue
        position = structure.position(start)
        heading = structure.heading_in(position, start, end)
        if rule.kind == "heading" and heading is None:
            continue
        sentence = structure.sentence_in(position, start)
        if not _scope_holds(rule, structure, scopes, position, sentence):
            continue
        if rule.named and not forum_is_named(folded, sentence[0], start):
            continue
        clause_start = max(folded.rfind(",", sentence[0], start) + 1, sentence[0])
        clause_end = folded.find(",", end, sentence[1])
        after = folded[end : sentence[1] if clause_end < 0 else clause_end]
        status = _status(pack.status_cues[rule.label], folded[clause_start:start], after)
        hits.append(_Hit(rule, start, end, sentence, heading, status))
    return hits


def _make(pack: ClausePack, text: str, hit: _Hit, span: tuple[int, int], confidence: float) -> ClauseFinding:
    """Build the public finding for a hit; in_heading marks a numbered article that names the clause."""
    return ClauseFinding(
        label=hit.rule.label,
        cuad=pack.clauses[hit.rule.label].cuad,
        rule_id=hit.rule.rule_id,
        pack_version=pack.version,
        start=span[0],
        end=span[1],
        confidence=confidence,
        evidence=text[hit.sentence[0] : hit.sentence[1]].strip(),
        status=hit.status,
        matched=text[hit.start : hit.end],
        match_start=hit.start,
        match_end=hit.end,
        in_heading=hit.heading is not None and hit.heading.numbered,
        slot=hit.heading is not None and hit.heading.body_blank,
    )


def _evidenced(evidence: re.Pattern[str] | None, structure: Structure, heading: Heading) -> bool:
    """True when a heading's article (title and body) shows its type's own evidence (`ClauseSpec.heading_evidence`).

    The title is searched too: "本合同有效期自" is a title cut at a wide gap, and its 自 opens the stated period."""
    if evidence is None:
        return False
    return evidence.search(structure.text, heading.title_start, heading.article_end) is not None


_Candidate = tuple[_Hit, tuple[int, int], float]  # a hit, the span it would highlight, its rounded confidence


def _candidates(pack: ClausePack, structure: Structure) -> list[_Candidate]:
    """Turn hits into candidates: body hits as they stand, heading hits when their article bears them out."""
    hits = _hits(pack, structure)
    body = [hit for hit in hits if hit.heading is None and hit.rule.kind == "keyword"]
    stipulated_body: dict[str, list[int]] = {}
    candidates: list[_Candidate] = []
    for hit in body:
        confidence = hit.rule.weight * _STATUS_FACTOR[hit.status]
        candidates.append((hit, structure.article_at(hit.start), round(confidence, 3)))
        if hit.status == STIPULATED:
            stipulated_body.setdefault(hit.rule.label, []).append(hit.start)
    for hit in hits:
        heading = hit.heading
        if heading is None:
            continue
        spec = pack.clauses[hit.rule.label]
        if heading.body_blank:
            # An unfilled template article counts for most types, but a bare "违约责任＿＿" stipulates nothing.
            if not spec.heading_counts:
                continue
            confidence = hit.rule.weight * _SLOT_FACTOR
        else:
            # A heading with content stands only when its own article carries a stipulated body hit.
            inside = stipulated_body.get(hit.rule.label, [])
            first = bisect.bisect_left(inside, heading.title_end)
            if (first == len(inside) or inside[first] >= heading.article_end) and not _evidenced(
                spec.heading_evidence, structure, heading
            ):
                continue
            confidence = hit.rule.weight
        bonus = _FIELD_BONUS
        if heading.numbered:
            bonus = _ARTICLE_BONUS if heading.level <= 2 else _SUBARTICLE_BONUS
        confidence = min(confidence * _STATUS_FACTOR[hit.status] + bonus, 1.0)
        candidates.append((hit, (heading.start, heading.article_end), round(confidence, 3)))
    return candidates


class ArticleClassifier(Protocol):
    """What the matcher needs of a learned article model (`rules.clauses.heading_model.ClauseModel`)."""

    labels: tuple[str, ...]

    def probabilities(self, body: str) -> dict[str, float]: ...


# How the heading model's answer combines with the patterns (the documented rule):
# - it is asked only about articles whose heading is missing or names no clause type of the pack (a titled article
#   that names a type is the pack's business, and its title is the better evidence);
# - for such an article, a clause type the rules did not already find stipulated inside it becomes a finding when
#   the model's calibrated probability reaches MODEL_ALONE, or MODEL_WITH_PATTERN when a literal pattern of that
#   type occurs in the article (evidence the rules' context conditions did not accept on their own);
# - the finding's confidence is that probability, scaled by MODEL_FACTOR: a model finding never outranks a rule
#   finding of equal standing; rule findings are never removed or changed by the model.
MODEL_ALONE = 0.85
MODEL_WITH_PATTERN = 0.5
MODEL_FACTOR = 0.9


class ClauseAnalysis(NamedTuple):
    """Every clause finding of a text, and the heading model's best probability per clause type (empty without a
    model; a type the model was never asked about, because every article naming it is titled, has no score)."""

    findings: list[ClauseFinding]
    model_scores: dict[str, float]


def model_findings(
    pack: ClausePack, structure: Structure, text: str, model: ArticleClassifier, found: list[ClauseFinding]
) -> ClauseAnalysis:
    """Findings the heading model adds to the rules' (see the rule above), with its best score per type."""
    patterns: dict[str, set[str]] = {}
    for rule in pack.rules:
        patterns.setdefault(rule.label, set()).update(fold(pattern) for pattern in rule.patterns)
    added = []
    scores: dict[str, float] = {}
    for article in structure.articles():
        if _titled_with_a_type(structure, article, patterns):
            continue
        body = structure.text[article.body_start : article.end]
        if not body.strip():
            continue
        ruled = {f.label for f in found if f.status == STIPULATED and article.start <= f.start < article.end}
        for label, probability in model.probabilities(body).items():
            if label not in pack.clauses:
                continue
            scores[label] = max(scores.get(label, 0.0), round(probability, 4))
            if label in ruled:
                continue
            supported = any(pattern in body for pattern in patterns.get(label, ()))
            if probability >= MODEL_ALONE or (supported and probability >= MODEL_WITH_PATTERN):
                added.append(_model_finding(pack, text, structure, article, label, probability))
    return ClauseAnalysis(added, scores)


def _titled_with_a_type(structure: Structure, article: Article, patterns: dict[str, set[str]]) -> bool:
    if article.title is None:
        return False
    title = structure.text[article.title[0] : article.title[1]]
    return any(pattern in title for found in patterns.values() for pattern in found)


def _model_finding(
    pack: ClausePack, text: str, structure: Structure, article: Article, label: str, probability: float
) -> ClauseFinding:
    sentence = structure.sentence_at(article.body_start)
    return ClauseFinding(
        label=label,
        cuad=pack.clauses[label].cuad,
        rule_id=f"clause.model.{label}",
        pack_version=pack.version,
        start=article.start,
        end=article.end,
        confidence=round(probability * MODEL_FACTOR, 4),
        evidence=text[sentence[0] : sentence[1]].strip(),
        status=STIPULATED,
        matched="",
        match_start=sentence[0],
        match_end=sentence[1],
    )


def clause_analysis(
    text: str, pack: ClausePack | None = None, model: ArticleClassifier | None = None
) -> ClauseAnalysis:
    """Every clause finding in text (offsets into text), the best per rule, span and status; with a heading model,
    also what it adds for articles without an informative heading (`model_findings`) and its scores."""
    pack = pack or load_pack()
    structure = document_structure(fold(text))
    # The best candidate per rule, span and status wins; only the winners become findings.
    best: dict[tuple[str, int, int, str], _Candidate] = {}
    for candidate in _candidates(pack, structure):
        hit, span, confidence = candidate
        key = (hit.rule.rule_id, span[0], span[1], hit.status)
        if key not in best or confidence > best[key][2]:
            best[key] = candidate
    findings = [_make(pack, text, hit, span, confidence) for hit, span, confidence in best.values()]
    scores: dict[str, float] = {}
    if model is not None:
        added, scores = model_findings(pack, structure, text, model, findings)
        findings += added
    return ClauseAnalysis(sorted(findings, key=lambda f: (f.start, f.label, -f.confidence)), scores)


def clause_matches(
    text: str, pack: ClausePack | None = None, model: ArticleClassifier | None = None
) -> list[ClauseFinding]:
    """Every clause finding in text, one per rule, span and status (`clause_analysis` without the scores)."""
    return clause_analysis(text, pack, model).findings
