"""Passage-level debate, for cases without aspects: the panel weighs passages instead."""

from __future__ import annotations

from typing import Any

from ...text import mentioned_ids, overlap
from .claims import _last_turns
from .phrasing import _capital, display_name, josa
from .reading import _CAVEAT, _SENTENCE_SPLIT, Reading, _short


def _sentences(text: str) -> list[str]:
    return [x.strip() for x in _SENTENCE_SPLIT.split(text or "") if x.strip()]


def _caveats(sentence: str) -> int:
    return len(_CAVEAT.findall(sentence))


def _pick_sentence(text: str, query: str, want_caveat: bool | None) -> str:
    """The passage's sentence closest to the question, preferring (or avoiding) qualifying language."""
    sents = _sentences(text) or [text]
    def key(i_s: tuple[int, str]) -> tuple[float, float]:
        i, sent = i_s
        bonus = 0.0 if want_caveat is None else (1.0 if (_caveats(sent) > 0) == want_caveat else 0.0)
        return (bonus, overlap(query, sent) - 0.001 * i)
    return max(enumerate(sents), key=key)[1]


def _passage_turn(case: Any, r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                  personas: list[dict[str, Any]]) -> dict[str, Any]:
    """Cases without aspects: the panel weighs passages. The critic presses qualifying passages, the
    empath the ones that answer plainly, the analyst the most relevant ones; each avoids repeating itself."""
    lang = r.lang
    me = str(persona["id"])
    stance = str(persona.get("stance", "neutral")).lower()
    by_id = case.evidence_by_id()
    ids = list(by_id)
    pool = (r.ranked or ids)[:6]
    mine = [i for t in history if t.get("speaker") == me for i in mentioned_ids(str(t.get("message")), ids)]
    want = {"con": True, "pro": False}.get(stance)
    if want is None:
        order = pool
    else:
        # Stable sort: among equally qualified passages the more relevant one comes first.
        order = sorted(pool, key=lambda i: -_caveats(by_id[i].text) if want else _caveats(by_id[i].text))
    picks = ([i for i in order if i not in mine] or order)[:2]
    lines, points = [], []
    for ev_id in picks:
        sent = _short(_pick_sentence(by_id[ev_id].text, case.question, want), 140)
        lines.append(f"'{sent}'({ev_id})" if lang == "ko" else f"\"{sent}\" ({ev_id})")
        points.append(f"{ev_id}: {_short(sent, 90)}")
    replies = []
    for turn in _last_turns(history, me) if rnd > 1 else []:
        who = display_name(str(turn.get("speaker")), personas, lang)
        theirs = [i for i in mentioned_ids(str(turn.get("message")), ids) if i not in picks]
        if not theirs:
            continue
        other = theirs[0]
        if stance == "con" and _caveats(by_id[other].text):
            limit = _short(_pick_sentence(by_id[other].text, case.question, True), 110)
            replies.append(f"{josa(who, '이/가')} 인용한 {other}도 스스로 한계를 둡니다: '{limit}'." if lang == "ko"
                           else f"{who} cites {other}, but it qualifies itself: \"{limit}\".")
        elif stance == "pro" and str(turn.get("stance", "")).lower() != "con":
            plain = _short(_pick_sentence(by_id[other].text, case.question, False), 110)
            replies.append(f"{josa(who, '이/가')} 짚은 {other}도 같은 방향입니다: '{plain}'." if lang == "ko" else
                           f"{who} points to {other}, and it points the same way: \"{plain}\".")
        elif stance == "pro":
            plain = _short(_pick_sentence(by_id[other].text, case.question, False), 110)
            replies.append(f"{josa(who, '이/가')} 짚은 {other}의 단서는 인정하지만, 같은 구절의 요지는 이것입니다: '{plain}'."
                           if lang == "ko" else
                           f"I accept the caveat {who} found in {other}, but its main point stands: \"{plain}\".")
        elif stance not in ("con", "pro"):
            replies.append(f"{josa(who, '이/가')} 인용한 {other}는 관련성 순위 {pool.index(other) + 1 if other in pool else '-'}위입니다."
                           if lang == "ko" else
                           f"{who} relies on {other}, which ranks "
                           f"{pool.index(other) + 1 if other in pool else 'outside the top'} for relevance.")
    if lang == "ko":
        lead = {"con": "이 근거들은 질문을 확정하지 못합니다", "pro": "이 근거들은 분명한 답을 받쳐 줍니다"}.get(
            stance, "가장 관련 높은 근거는 이렇습니다")
        planning = f"{rnd}라운드: 질문과 가장 관련 있는 구절을 찾아 입장에 맞게 평가한다."
        reflection = "인용한 구절이 실제로 말하는 것 이상은 주장하지 않는다."
    else:
        lead = {"con": "This evidence does not settle the question", "pro": "This evidence supports a clear answer"}.get(
            stance, "The most relevant passages say")
        planning = f"Round {rnd}: find the passages most relevant to the question and weigh them from my stance."
        reflection = "I claim no more than the cited passages say."
    message = " ".join([f"{lead}: " + "; ".join(lines) + ".", *(replies if lang == "ko" else map(_capital, replies))])
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": planning, "reflection": reflection,
            "message": message, "key_points": points}
