"""The three stances: the analyst tallies the evidence, the critic and the empath argue mirror-image cases."""

from __future__ import annotations

from typing import Any

from .claims import QuotedSoFar, _last_turns, claims_of
from .phrasing import _LABEL_WORD, _cite, _ids, _join, display_name, say, sentence_case
from .reading import AspectView, Reading, quote_text


def _tally(view: AspectView, lang: str) -> str:
    if not view.determined:
        return say(lang, "tally_unread", aspect=view.aspect)
    pos, neg, neu = view.ids("positive"), view.ids("negative"), view.ids("neutral")
    line = say(lang, "tally", aspect=view.aspect, label=_LABEL_WORD[lang][view.label],
               pos_n=view.count("positive"), pos=_ids(pos), neg_n=view.count("negative"), neg=_ids(neg),
               neu_n=view.count("neutral"), neu=_ids(neu))
    deciding = {m.source for m in view.read_mentions if m.target and m.polarity == view.label}
    if deciding and not deciding & {"lexicon", "rating"}:
        # Say how a label no sentiment word or rating gave was reached.
        how = next((k for k in ("event", "signal", "contrast") if k in deciding), "coordination")
        line += say(lang, "read_by_" + how)
    return line


def uncertainty_points(r: Reading) -> list[str]:
    """What the reading could not assess, as key points a moderator can read ("could not assess: ...")."""
    return r.uncertainties()


def analyst_turn(r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                 personas: list[dict[str, Any]]) -> dict[str, Any]:
    lang, word = r.lang, _LABEL_WORD[r.lang]
    me = str(persona["id"])
    names = ", ".join(a.aspect for a in r.aspects)
    key_points = [_tally(a, lang) for a in r.aspects]
    diffs = [a for a in r.aspects if a.stage1 and a.stage1[0] != a.label]
    overall = r.overall
    planning = say(lang, "analyst_planning", rnd=rnd, names=names)
    if r.stage1_ate:
        s1 = say(lang, "stage1_label", label=word.get(r.stage1_ate[0], r.stage1_ate[0]), conf=r.stage1_ate[1])
    else:
        s1 = say(lang, "stage1_none")
    issues = say(lang, "validator_issues", issues=", ".join(r.issues)) if r.issues else say(lang, "validator_none")
    reflection = say(lang, "analyst_reflection", stage1=s1, issues=issues)
    if rnd == 1:
        body = [say(lang, "tally_first", tallies="; ".join(key_points))]
    else:
        body = [say(lang, "tally_stands", labels=", ".join(f"{a.aspect} {word[a.label]}" for a in r.aspects))]
    for a in diffs if rnd == 1 else []:
        body.append(say(lang, "stage1_differs", aspect=a.aspect, was=word.get(a.stage1[0], a.stage1[0]),
                        conf=a.stage1[1], label=word[a.label]))
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
                body.append(say(lang, "claim_misfit", who=who, aspect=aspect, claimed=word[claimed],
                                label=word[view.label], support=_ids(support)))
                misfits.append(f"{who}/{aspect}")
            if fits:
                agreed.append(say(lang, "claims_fit", who=who, aspects=", ".join(fits)))
        if agreed:
            body.append(say(lang, "evidence_agrees", agreed=say(lang, "agreed_sep").join(agreed)))
        if misfits:
            reflection += say(lang, "misfits_note", misfits=", ".join(misfits))
    body.append(say(lang, "overall_reads", label=word[overall], overall=overall))
    key_points.append(say(lang, "overall_point", label=word[overall], overall=overall))
    gaps = uncertainty_points(r)
    if gaps:
        body.append(say(lang, "analyst_gaps", gaps="; ".join(g.removeprefix("could not assess: ") for g in r.gaps)
                        or "; ".join(gaps)))
        key_points += gaps
    body = sentence_case(lang, body)
    return {"speaker": me, "stance": persona.get("stance", "neutral"), "planning": planning,
            "reflection": reflection, "message": " ".join(body), "key_points": key_points}


def _side_turn(r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
               personas: list[dict[str, Any]], side: str) -> dict[str, Any]:
    """The critic (side='negative') and the empath (side='positive') argue mirror-image cases."""
    lang, word = r.lang, _LABEL_WORD[r.lang]
    me = str(persona["id"])
    other = "positive" if side == "negative" else "negative"
    skip = QuotedSoFar(history)
    mine = QuotedSoFar([t for t in history if t.get("speaker") == me])
    ours = sorted((a for a in r.aspects if a.label == side), key=lambda a: (-a.count(side), a.aspect))
    # Aspects the sentence itself hedges: the critic reads a hedge as withheld praise, the empath as no complaint.
    hedged = [a for a in r.aspects if a.label == "neutral" and a not in ours and a.determined]
    theirs = [a for a in r.aspects if a.label == other]
    body: list[str] = []
    key_points: list[str] = []
    critic = side == "negative"
    role = "critic" if critic else "empath"

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
                if claimed == label:
                    # The reading bears the other speaker out: conceded below, one sentence per speaker.
                    # A stance colours what a speaker stresses, never what it claims against the text.
                    concede.setdefault(who, []).append(view)
                elif label in (side, "positive", "negative"):
                    q = view.fresh_quote(label, skip)
                    ref = _cite(q, lang) if q else _ids(view.ids(label))
                    if q:
                        skip.add(quote_text(q.clause))
                    body.append(say(lang, "rebut_plain", who=who, aspect=aspect, claimed=word[claimed],
                                    side=word[label], ref=ref))
                    key_points.append(say(lang, "rebut_plain_point", aspect=aspect, side=word[label], who=who))
                else:
                    q = view.fresh_quote("neutral", skip) or view.fresh_quote(label, skip)
                    ref = _cite(q, lang) if q else _ids(view.ids(label) or view.ids("neutral"))
                    if q:
                        skip.add(quote_text(q.clause))
                    body.append(say(lang, "rebut_thin", who=who, aspect=aspect, claimed=word[claimed], ref=ref))
                    key_points.append(say(lang, "rebut_thin_point", aspect=aspect, who=who, claimed=word[claimed]))

        for who, views in concede.items():
            body.insert(0, say(lang, f"concede_{role}", who=who, names=_join([v.aspect for v in views], lang),
                               ids=_ids(sorted({i for v in views for i in v.ids(v.label)})),
                               what=word[views[0].label], verb="was" if len(views) == 1 else "were"))

    for n, view in enumerate(ours[:2]):
        q = view.fresh_quote(side, skip)
        if q is None:
            # Everything on this aspect has been quoted already: repeating it would fake agreement.
            body.append(say(lang, "nothing_new", aspect=view.aspect, side=word[side], ids=_ids(view.ids(side))))
            key_points.append(say(lang, "nothing_new_point", aspect=view.aspect, side=word[side]))
            continue
        extra = [i for i in view.ids(side) if i != q.evidence_id]
        skip.add(quote_text(q.clause))
        lead = say(lang, f"{role}_lead_first" if n == 0 else f"{role}_lead_next", aspect=view.aspect)
        body.append(f"{lead}: {_cite(q, lang)}." + (say(lang, f"{role}_extra", ids=_ids(extra)) if extra else ""))
        key_points.append(f"{view.aspect}: {word[side]} — {_ids(view.ids(side))}")

    for view in hedged[:1]:
        q = view.quote("neutral")
        if q is None or view.aspect in {k.split(":")[0] for k in key_points}:
            continue
        support = _ids(view.ids("positive")) if view.ids("positive") else None
        if quote_text(q.clause) in skip and quote_text(q.clause) not in mine:
            # Another speaker quoted it already: say so rather than quote it again.
            body.append(say(lang, "nothing_new", aspect=view.aspect, side=word[view.label], ids=_ids(view.ids("neutral"))))
            key_points.append(say(lang, "nothing_new_point", aspect=view.aspect, side=word[view.label]))
            continue
        if quote_text(q.clause) in skip:
            # Already quoted in an earlier round: restate the position briefly instead of quoting again.
            restate = "restate_critic" if critic else "restate_supported" if support else "restate_no_complaint"
            body.append(say(lang, restate, aspect=view.aspect, support=support))
            point = "hedged_point" if critic or not support else "supported_point"
            key_points.append(say(lang, point, aspect=view.aspect, support=support))
            continue
        reading = "hedge_critic" if critic else "hedge_supported" if support else "hedge_no_complaint"
        body.append(say(lang, reading, aspect=view.aspect, cite=_cite(q, lang), support=support))
        point = "supported_point" if reading == "hedge_supported" else f"{reading}_point"
        key_points.append(say(lang, point, aspect=view.aspect, support=support))

    if critic and rnd == 1 and r.stage1_ate and r.stage1_ate[0] not in ("negative", "mixed") and ours:
        contrast = any(i.lower().startswith(("contrast", "negation", "irony")) for i in r.issues)
        raw, conf = r.stage1_ate
        body.append(say(lang, "overconfident_contrast" if contrast else "overconfident_plain",
                        label=word.get(raw, raw), conf=conf))
        key_points.append(say(lang, "overconfident_point", label=raw, conf=conf))
    if not ours:
        body.append(say(lang, "no_support"))
    if not critic and theirs and rnd == 1:
        # Acknowledged without naming the aspect: round 1 is for the empath's own case.
        body.append(say(lang, "empath_acknowledges"))

    ours_names = ", ".join(a.aspect for a in ours) or "-"
    planning = say(lang, "side_planning_later" if rnd > 1 else "side_planning_first", rnd=rnd, names=ours_names,
                   side=word[side])
    reflection = say(lang, f"{role}_reflection")
    body = sentence_case(lang, body)
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": planning, "reflection": reflection,
            "message": " ".join(body), "key_points": key_points or [body[0] if body else planning]}
