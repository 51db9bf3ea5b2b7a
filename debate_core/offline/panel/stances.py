"""The three stances: the analyst tallies the evidence, the critic and the empath argue mirror-image cases."""

from __future__ import annotations

from typing import Any

from .claims import _last_turns, _own_quotes, claims_of
from .phrasing import _LABEL_WORD, _capital, _cite, _ids, _join, display_name, josa, particle
from .reading import AspectView, Reading, quote_text


def _tally(view: AspectView, lang: str) -> str:
    pos, neg, neu = view.ids("positive"), view.ids("negative"), view.ids("neutral")
    word = _LABEL_WORD[lang]
    if lang == "ko":
        return (f"{view.aspect}: 긍정 {view.count('positive')}건({_ids(pos)}), 부정 {view.count('negative')}건"
                f"({_ids(neg)}), 유보 {view.count('neutral')}건({_ids(neu)}) → {word[view.label]}")
    return (f"{view.aspect}: {view.count('positive')} positive ({_ids(pos)}), {view.count('negative')} negative "
            f"({_ids(neg)}), {view.count('neutral')} hedged ({_ids(neu)}) -> {view.label}")


def analyst_turn(r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                 personas: list[dict[str, Any]]) -> dict[str, Any]:
    lang, word = r.lang, _LABEL_WORD[r.lang]
    me = str(persona["id"])
    names = ", ".join(a.aspect for a in r.aspects)
    key_points = [_tally(a, lang) for a in r.aspects]
    diffs = [a for a in r.aspects if a.stage1 and a.stage1[0] != a.label]
    overall = r.overall
    if lang == "ko":
        planning = f"{rnd}라운드: 측면({names})별로 증거를 집계하고 Stage1 레이블 및 다른 패널의 주장과 대조한다."
        if r.stage1_ate:
            w1 = word.get(r.stage1_ate[0], r.stage1_ate[0])
            s1 = f"Stage1 ATE는 문장을 {w1}({r.stage1_ate[1]:.2f}){particle(w1, '으로/로')} 봤다"
        else:
            s1 = "Stage1 문장 레이블은 없다"
        issues = f"검증기는 {', '.join(r.issues)}를 지적했다" if r.issues else "검증기 지적은 없다"
        reflection = f"{s1}. {issues}. 어느 쪽에도 기대지 않고 증거 수로만 판단한다."
        if rnd == 1:
            body = ["증거 집계 결과입니다. " + "; ".join(key_points) + "."]
        else:
            body = ["집계는 그대로입니다: " + ", ".join(f"{a.aspect} {word[a.label]}" for a in r.aspects) + "."]
        for a in diffs if rnd == 1 else []:
            w1 = word.get(a.stage1[0], a.stage1[0])
            body.append(f"{josa(a.aspect, '은/는')} Stage1에서 {w1}({a.stage1[1]:.2f}){particle(w1, '이었/였')}지만, "
                        f"리뷰 문장 자체의 표현은 {word[a.label]} 쪽입니다.")
    else:
        planning = (f"Round {rnd}: tally the evidence per aspect ({names}) and check it against the Stage1 "
                    "labels and the other panelists' claims.")
        s1 = f"Stage1 ATE labelled the sentence {r.stage1_ate[0]} ({r.stage1_ate[1]:.2f})" if r.stage1_ate \
            else "There is no Stage1 sentence label"
        issues = f"the validator flags {', '.join(r.issues)}" if r.issues else "the validator flags nothing"
        reflection = f"{s1}; {issues}. I should lean on neither and go by the evidence count."
        if rnd == 1:
            body = ["Evidence tally: " + "; ".join(key_points) + "."]
        else:
            body = ["The tally stands: " + ", ".join(f"{a.aspect} {a.label}" for a in r.aspects) + "."]
        for a in diffs if rnd == 1 else []:
            body.append(f"{a.aspect} was {a.stage1[0]} ({a.stage1[1]:.2f}) in Stage1, but the sentence itself "
                        f"reads {a.label}.")
    if rnd > 1:
        agreed: list[str] = []
        misfits: list[str] = []
        for turn in _last_turns(history, me):
            who = display_name(str(turn.get("speaker")), personas, lang)
            fits = []
            for aspect, claimed in claims_of(turn, r.index).items():
                view = r.by_name(aspect)
                if view is None:
                    continue
                if claimed == view.label:
                    fits.append(aspect)
                    continue
                support = view.ids(claimed)
                body.append(
                    f"{who}의 {aspect} {word[claimed]} 주장은 리뷰 문장과 어긋납니다: 문장은 {word[view.label]}이고 "
                    f"그 주장을 받치는 근거는 {_ids(support)}뿐입니다." if lang == "ko" else
                    f"{who}'s {claimed} claim on {aspect} departs from the sentence, which reads {view.label}; "
                    f"only {_ids(support)} back it.")
                misfits.append(f"{who}/{aspect}")
            if fits:
                agreed.append(f"{who}의 {', '.join(fits)} 판단" if lang == "ko" else f"{who} on {', '.join(fits)}")
        if agreed:
            body.append(f"{', '.join(agreed)}은 증거와 맞습니다." if lang == "ko"
                        else f"The evidence bears out {'; '.join(agreed)}.")
        if misfits:
            reflection += (f" 증거와 맞지 않는 주장: {', '.join(misfits)}." if lang == "ko"
                           else f" Claims that do not fit the evidence: {', '.join(misfits)}.")
    if lang == "ko":
        body.append(f"따라서 문장 전체는 {word[overall]}({overall})으로 읽는 것이 타당합니다.")
        key_points.append(f"문장 전체: {word[overall]}")
    else:
        body.append(f"So the sentence as a whole reads {overall}.")
        key_points.append(f"overall sentence label: {overall}")
    if lang == "en":
        body = [_capital(b) for b in body]
    return {"speaker": me, "stance": persona.get("stance", "neutral"), "planning": planning,
            "reflection": reflection, "message": " ".join(body), "key_points": key_points}


def _side_turn(r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
               personas: list[dict[str, Any]], side: str) -> dict[str, Any]:
    """The critic (side='negative') and the empath (side='positive') argue mirror-image cases."""
    lang, word = r.lang, _LABEL_WORD[r.lang]
    me = str(persona["id"])
    other = "positive" if side == "negative" else "negative"
    skip = _own_quotes(history, me)
    ours = sorted((a for a in r.aspects if a.label == side), key=lambda a: (-a.count(side), a.aspect))
    # Aspects the sentence itself hedges: the critic reads a hedge as withheld praise, the empath as no complaint.
    hedged = [a for a in r.aspects if a.label == "neutral" and a not in ours and a.mentions]
    theirs = [a for a in r.aspects if a.label == other]
    body: list[str] = []
    key_points: list[str] = []
    critic = side == "negative"

    if rnd > 1:
        handled: set[str] = set()
        concede: dict[str, list[AspectView]] = {}
        for turn in _last_turns(history, me):
            who = display_name(str(turn.get("speaker")), personas, lang)
            for aspect, claimed in claims_of(turn, r.index).items():
                view = r.by_name(aspect)
                if view is None or aspect in handled or claimed == side:
                    continue
                label = view.label
                if claimed == label == "neutral":
                    continue
                handled.add(aspect)
                if claimed == label and view.count(claimed) >= 2:
                    # Strong evidence on the other side: conceded below, one sentence per speaker.
                    concede.setdefault(who, []).append(view)
                elif label == side:
                    q = view.quote(side)
                    ref = _cite(q, lang) if q else _ids(view.ids(side))
                    body.append(f"{josa(who, '은/는')} {josa(aspect, '을/를')} {word[claimed]}으로 보지만, 문장은 분명히 "
                                f"{word[side]}입니다: {ref}." if lang == "ko" else
                                f"{who} reads {aspect} as {claimed}, but the sentence is plainly {side}: {ref}.")
                    key_points.append(f"{aspect}: {word[side]} — {who} 반박" if lang == "ko"
                                      else f"{aspect}: {side} — answers {who}")
                else:
                    q = view.quote("neutral") or view.quote(label)
                    ref = _cite(q, lang) if q else _ids(view.ids(label))
                    body.append(f"{josa(who, '은/는')} {josa(aspect, '을/를')} {word[claimed]}으로 보지만, 근거가 약합니다: {ref}."
                                if lang == "ko" else
                                f"{who} reads {aspect} as {claimed}, but the evidence is thin: {ref}.")
                    key_points.append(f"{aspect}: {word['neutral']} — {who}의 {word[claimed]} 판단 반박" if lang == "ko"
                                      else f"{aspect}: neutral — disputes {who}'s {claimed} reading")

        for who, views in concede.items():
            names = _join([v.aspect for v in views], lang)
            ids = _ids(sorted({i for v in views for i in v.ids(v.label)}))
            what = word[views[0].label]
            if lang == "ko":
                body.insert(0, f"{who}의 말대로 {josa(names, '이/가')} {what}이라는 점은 인정합니다({ids}). 하지만 그것이 "
                               "다른 측면의 문제를 지우지는 못합니다." if critic else
                               f"{who}의 지적처럼 {names} 쪽은 아쉬웠던 게 맞아요({ids}). 그 불편함은 충분히 공감해요.")
            else:
                verb = "was" if len(views) == 1 else "were"
                body.insert(0, f"I grant {who} that {names} {verb} {what} ({ids}), but that does not erase the "
                               "problems elsewhere." if critic else
                               f"{who} is right that {names} fell short ({ids}); that frustration is real.")

    for n, view in enumerate(ours[:2]):
        q = view.quote(side, skip)
        extra = [i for i in view.ids(side) if q is None or i != q.evidence_id]
        if q is None:
            continue
        skip.add(quote_text(q.clause))
        if lang == "ko":
            if critic:
                lead = f"{josa(view.aspect, '이/가')} 이 리뷰의 핵심 문제입니다" if n == 0 else \
                    f"{josa(view.aspect, '도')} 다르지 않습니다"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)}도 같은 문제를 확인합니다." if extra else ""))
            else:
                lead = f"{josa(view.aspect, '은/는')} 분명 좋은 기억으로 남았어요" if n == 0 else \
                    f"{josa(view.aspect, '도')} 빛났어요"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)}에서도 같은 마음이 보여요." if extra else ""))
            key_points.append(f"{view.aspect}: {word[side]} — {_ids(view.ids(side))}")
        else:
            if critic:
                lead = f"{view.aspect} is the real problem here" if n == 0 else f"{view.aspect} is no better"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)} confirm it." if extra else ""))
            else:
                lead = f"{view.aspect} clearly left a warm impression" if n == 0 else f"{view.aspect} shines too"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)} say the same." if extra else ""))
            key_points.append(f"{view.aspect}: {side} — {_ids(view.ids(side))}")

    for view in hedged[:1]:
        q = view.quote("neutral")
        if q is None or view.aspect in {k.split(":")[0] for k in key_points}:
            continue
        support = view.ids("positive")
        if quote_text(q.clause) in skip:
            # Already quoted in an earlier round: restate the position briefly instead of quoting again.
            if lang == "ko":
                body.append(f"{josa(view.aspect, '은/는')} 앞서 말한 그대로" + (
                    "입니다: 유보일 뿐 칭찬이 아닙니다." if critic else
                    (f"예요: {_ids(support)}에서도 만족한 목소리가 있어요." if support else "예요: 불만은 없었어요.")))
                key_points.append(f"{view.aspect}: " + ("중립 — 유보적 표현" if critic or not support
                                                        else f"긍정 — {_ids(support)}"))
            else:
                body.append(f"On {view.aspect} I stand by what I said: " + (
                    "hedged, not praise." if critic else
                    (f"{_ids(support)} were satisfied too." if support else "no complaint.")))
                key_points.append(f"{view.aspect}: " + ("neutral — hedged" if critic or not support
                                                        else f"positive — {_ids(support)}"))
            continue
        if lang == "ko":
            if critic:
                body.append(f"{josa(view.aspect, '은/는')} {_cite(q, lang)}라고만 했습니다. 칭찬이 아니라 유보입니다.")
                key_points.append(f"{view.aspect}: 중립 — 칭찬이 아닌 유보적 표현")
            elif support:
                body.append(f"{josa(view.aspect, '은/는')} {_cite(q, lang)}라고 했어요. 불만이 아니라 만족에 가깝고, "
                            f"{_ids(support)}에서도 만족한 목소리가 있어요.")
                key_points.append(f"{view.aspect}: 긍정 — {_ids(support)}")
            else:
                body.append(f"{josa(view.aspect, '은/는')} {_cite(q, lang)}라고 했어요. 적어도 불만은 아니에요.")
                key_points.append(f"{view.aspect}: 중립 — 불만 없음")
        else:
            if critic:
                body.append(f"On {view.aspect} the review only says {_cite(q, lang)}: withheld praise, not praise.")
                key_points.append(f"{view.aspect}: neutral — hedged, not praise")
            elif support:
                body.append(f"On {view.aspect} the review says {_cite(q, lang)}: closer to content than complaint, "
                            f"and {_ids(support)} found it satisfying too.")
                key_points.append(f"{view.aspect}: positive — {_ids(support)}")
            else:
                body.append(f"On {view.aspect} the review says {_cite(q, lang)}: at least no complaint.")
                key_points.append(f"{view.aspect}: neutral — no complaint")

    if critic and rnd == 1 and r.stage1_ate and r.stage1_ate[0] not in ("negative", "mixed") and ours:
        contrast = any(i.lower().startswith(("contrast", "negation", "irony")) for i in r.issues)
        body.append(
            f"Stage1 ATE가 문장을 {word.get(r.stage1_ate[0], r.stage1_ate[0])}({r.stage1_ate[1]:.2f})"
            f"{particle(word.get(r.stage1_ate[0], r.stage1_ate[0]), '으로/로')} 본 것은 "
            + ("대비 구문 뒤의 부정 절을 놓친 과신입니다." if contrast else "부정 근거를 무시한 과신입니다.")
            if lang == "ko" else
            f"Stage1 ATE calling the sentence {r.stage1_ate[0]} ({r.stage1_ate[1]:.2f}) is overconfident: "
            + ("it missed the negative clause after the contrast." if contrast else "it ignores the negative evidence."))
        key_points.append(f"Stage1 ATE {r.stage1_ate[0]}({r.stage1_ate[1]:.2f}) 과신" if lang == "ko"
                          else f"Stage1 ATE {r.stage1_ate[0]} ({r.stage1_ate[1]:.2f}) is overconfident")
    if not ours:
        body.append("이 측면들에서는 제 입장을 받칠 근거가 보이지 않습니다." if lang == "ko"
                    else "I find no evidence on these aspects that supports my side.")
    if not critic and theirs and rnd == 1:
        # Acknowledged without naming the aspect: round 1 is for the empath's own case.
        body.append("불편했던 부분도 있었겠지만, 리뷰를 쓴 분이 좋았던 순간을 분명히 적었다는 점을 함께 봐 주세요."
                    if lang == "ko" else
                    "Something clearly went wrong, but the reviewer still wrote down what they enjoyed.")

    ours_names = ", ".join(a.aspect for a in ours) or "-"
    if lang == "ko":
        planning = (f"{rnd}라운드: {ours_names}의 {word[side]} 근거를 전면에 세우고"
                    + (", 앞선 발언에 답한다." if rnd > 1 else ", 다른 패널의 반론에 대비한다."))
        reflection = ("근거 없는 공격은 하지 않는다: 인용한 구절이 실제로 말하는 것만 주장한다." if critic else
                      "불편했던 경험을 무시하지 않으면서, 리뷰를 쓴 분이 실제로 좋았다고 쓴 부분만 근거로 삼는다.")
    else:
        planning = (f"Round {rnd}: put the {side} evidence on {ours_names} first"
                    + ("; answer the previous speakers." if rnd > 1 else "; anticipate the other panelists."))
        reflection = ("No attack without a quote: I claim only what the cited passages say." if critic else
                      "Without dismissing the friction, I rely only on what the reviewer actually praised.")
    if lang == "en":
        body = [_capital(b) for b in body]
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": planning, "reflection": reflection,
            "message": " ".join(body), "key_points": key_points or [body[0] if body else planning]}
