"""Phrasing: label and role words, Korean particles, citations and the per-language message table."""

from __future__ import annotations

import string
from typing import Any

from .reading import Mention, quote_text

_LABEL_WORD = {
    "ko": {"positive": "긍정", "negative": "부정", "neutral": "중립", "mixed": "혼합"},
    "en": {"positive": "positive", "negative": "negative", "neutral": "neutral", "mixed": "mixed"},
}
_ROLE_NAME = {
    "ko": {"analyst": "분석가", "critic": "비평가", "empath": "공감가"},
    "en": {"analyst": "the analyst", "critic": "the critic", "empath": "the empath"},
}


def _has_batchim(word: str) -> bool:
    last = word.strip()[-1:] if word.strip() else ""
    return bool(last) and "\uac00" <= last <= "\ud7a3" and (ord(last) - 0xAC00) % 28 != 0


def josa(word: str, pair: str) -> str:
    """Attach the Korean particle that fits the word's last syllable: josa('응대', '은/는') -> '응대는'."""
    if "/" not in pair:
        return word + pair
    with_b, without_b = pair.split("/")
    last = word.strip()[-1:]
    if not last or not ("\uac00" <= last <= "\ud7a3"):
        return f"{word}{with_b}({without_b})"
    return word + (with_b if _has_batchim(word) else without_b)


def particle(word: str, pair: str) -> str:
    """Only the particle, for a word followed by a parenthesis: f"긍정(0.62){particle('긍정', '으로/로')}"."""
    return josa(word, pair)[len(word):]


def _join(items: list[str], lang: str) -> str:
    if len(items) < 2:
        return ", ".join(items)
    return ", ".join(items[:-1]) + say(lang, "and") + items[-1]


def _capital(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


# Languages whose sentences start with a capital letter (Korean has no letter case).
_CAPITALISED = frozenset({"en"})


def sentence_case(lang: str, sentences: list[str]) -> list[str]:
    return [_capital(s) for s in sentences] if lang in _CAPITALISED else list(sentences)


def _ids(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "-"


def _cite(m: Mention, lang: str) -> str:
    return say(lang, "cite", text=quote_text(m.clause), where=m.evidence_id or say(lang, "the_sentence"))


def display_name(persona_id: str, personas: list[dict[str, Any]], lang: str) -> str:
    """The persona's own name from its profile; the default personas by their role word."""
    for p in personas:
        name = str(p.get("name") or "")
        if p.get("id") == persona_id and name and name.lower() != persona_id.lower():
            return name
    return _ROLE_NAME[lang].get(persona_id, persona_id)


class _Phrase(string.Formatter):
    """str.format, plus Korean particles: "{who:이/가}" is josa(who, "이/가"), and a leading "-"
    ("{label:-으로/로}") gives the particle alone, for a word followed by a parenthesis."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec and any("\uac00" <= ch <= "\ud7a3" for ch in format_spec):
            if format_spec.startswith("-"):
                return particle(str(value), format_spec[1:])
            return josa(str(value), format_spec)
        return super().format_field(value, format_spec)


_PHRASE = _Phrase()


def say(lang: str, key: str, **values: Any) -> str:
    """The message `key` in `lang`, with its placeholders filled in."""
    return _PHRASE.format(MESSAGES[lang][key], **values)


# Every sentence the offline panel writes, per language. Placeholders are str.format fields;
# Korean ones may carry a particle as their format spec (see _Phrase). Label placeholders get the
# language's label word (_LABEL_WORD), which in English is the label itself.
MESSAGES: dict[str, dict[str, str]] = {
    "ko": {
        "and": ", ",
        "the_sentence": "리뷰 문장",
        "cite": "'{text}'({where})",
        # The analyst
        "tally_unread": "{aspect}: 감성 단서 없음 → 판단 보류",
        "read_by_signal": " (앞 단계 레이블을 따름)",
        "read_by_contrast": " (대비 구문으로 추론)",
        "read_by_event": " (감성어 없이 고장·실패 서술로 판단)",
        "read_by_coordination": " (병렬 구문으로 추론)",
        "analyst_gaps": "평가하지 못한 것: {gaps}.",
        "nothing_new": "{aspect}에 대해서는 새로 보탤 근거가 없습니다: 이미 인용된 근거({ids})가 {side} 쪽입니다.",
        "nothing_new_point": "{aspect}: {side} — 새 근거 없음",
        "tally": "{aspect}: 긍정 {pos_n}건({pos}), 부정 {neg_n}건({neg}), 유보 {neu_n}건({neu}) → {label}",
        "analyst_planning": "{rnd}라운드: 측면({names})별로 증거를 집계하고 Stage1 레이블 및 다른 패널의 주장과 대조한다.",
        "stage1_label": "Stage1 ATE는 문장을 {label}({conf:.2f}){label:-으로/로} 봤다",
        "stage1_none": "Stage1 문장 레이블은 없다",
        "validator_issues": "검증기는 {issues}를 지적했다",
        "validator_none": "검증기 지적은 없다",
        "analyst_reflection": "{stage1}. {issues}. 어느 쪽에도 기대지 않고 증거 수로만 판단한다.",
        "tally_first": "증거 집계 결과입니다. {tallies}.",
        "tally_stands": "집계는 그대로입니다: {labels}.",
        "stage1_differs": "{aspect:은/는} Stage1에서 {was}({conf:.2f}){was:-이었/였}지만, 리뷰 문장 자체의 표현은 {label} 쪽입니다.",
        "claim_misfit": "{who}의 {aspect} {claimed} 주장은 리뷰 문장과 어긋납니다: 문장은 {label}이고 그 주장을 받치는 근거는 {support}뿐입니다.",
        "claims_fit": "{who}의 {aspects} 판단",
        "agreed_sep": ", ",
        "evidence_agrees": "{agreed}은 증거와 맞습니다.",
        "misfits_note": " 증거와 맞지 않는 주장: {misfits}.",
        "overall_reads": "따라서 문장 전체는 {label}({overall})으로 읽는 것이 타당합니다.",
        "overall_point": "문장 전체: {label}",
        # The critic and the empath
        "rebut_plain": "{who:은/는} {aspect:을/를} {claimed}으로 보지만, 문장은 분명히 {side}입니다: {ref}.",
        "rebut_plain_point": "{aspect}: {side} — {who} 반박",
        "rebut_thin": "{who:은/는} {aspect:을/를} {claimed}으로 보지만, 근거가 약합니다: {ref}.",
        "rebut_thin_point": "{aspect}: 중립 — {who}의 {claimed} 판단 반박",
        "concede_critic": "{who}의 말대로 {names:이/가} {what}이라는 점은 인정합니다({ids}). 하지만 그것이 다른 측면의 문제를 지우지는 못합니다.",
        "concede_empath": "{who}의 지적처럼 {names} 쪽은 아쉬웠던 게 맞아요({ids}). 그 불편함은 충분히 공감해요.",
        "critic_lead_first": "{aspect:이/가} 이 리뷰의 핵심 문제입니다",
        "critic_lead_next": "{aspect:도} 다르지 않습니다",
        "critic_extra": " {ids}도 같은 문제를 확인합니다.",
        "empath_lead_first": "{aspect:은/는} 분명 좋은 기억으로 남았어요",
        "empath_lead_next": "{aspect:도} 빛났어요",
        "empath_extra": " {ids}에서도 같은 마음이 보여요.",
        "restate_critic": "{aspect:은/는} 앞서 말한 그대로입니다: 유보일 뿐 칭찬이 아닙니다.",
        "restate_supported": "{aspect:은/는} 앞서 말한 그대로예요: {support}에서도 만족한 목소리가 있어요.",
        "restate_no_complaint": "{aspect:은/는} 앞서 말한 그대로예요: 불만은 없었어요.",
        "hedged_point": "{aspect}: 중립 — 유보적 표현",
        "supported_point": "{aspect}: 긍정 — {support}",
        "hedge_critic": "{aspect:은/는} {cite}라고만 했습니다. 칭찬이 아니라 유보입니다.",
        "hedge_critic_point": "{aspect}: 중립 — 칭찬이 아닌 유보적 표현",
        "hedge_supported": "{aspect:은/는} {cite}라고 했어요. 불만이 아니라 만족에 가깝고, {support}에서도 만족한 목소리가 있어요.",
        "hedge_no_complaint": "{aspect:은/는} {cite}라고 했어요. 적어도 불만은 아니에요.",
        "hedge_no_complaint_point": "{aspect}: 중립 — 불만 없음",
        "overconfident_contrast": "Stage1 ATE가 문장을 {label}({conf:.2f}){label:-으로/로} 본 것은 대비 구문 뒤의 부정 절을 놓친 과신입니다.",
        "overconfident_plain": "Stage1 ATE가 문장을 {label}({conf:.2f}){label:-으로/로} 본 것은 부정 근거를 무시한 과신입니다.",
        "overconfident_point": "Stage1 ATE {label}({conf:.2f}) 과신",
        "no_support": "이 측면들에서는 제 입장을 받칠 근거가 보이지 않습니다.",
        "empath_acknowledges": "불편했던 부분도 있었겠지만, 리뷰를 쓴 분이 좋았던 순간을 분명히 적었다는 점을 함께 봐 주세요.",
        "side_planning_first": "{rnd}라운드: {names}의 {side} 근거를 전면에 세우고, 다른 패널의 반론에 대비한다.",
        "side_planning_later": "{rnd}라운드: {names}의 {side} 근거를 전면에 세우고, 앞선 발언에 답한다.",
        "critic_reflection": "근거 없는 공격은 하지 않는다: 인용한 구절이 실제로 말하는 것만 주장한다.",
        "empath_reflection": "불편했던 경험을 무시하지 않으면서, 리뷰를 쓴 분이 실제로 좋았다고 쓴 부분만 근거로 삼는다.",
        # Passage-level debate
        "reply_qualifies": "{who:이/가} 인용한 {other}도 스스로 한계를 둡니다: '{quote}'.",
        "reply_same_way": "{who:이/가} 짚은 {other}도 같은 방향입니다: '{quote}'.",
        "reply_caveat_granted": "{who:이/가} 짚은 {other}의 단서는 인정하지만, 같은 구절의 요지는 이것입니다: '{quote}'.",
        "reply_rank": "{who:이/가} 인용한 {other}는 관련성 순위 {rank}위입니다.",
        "rank_outside": "-",
        "passage_lead_con": "이 근거들은 질문을 확정하지 못합니다",
        "passage_lead_pro": "이 근거들은 분명한 답을 받쳐 줍니다",
        "passage_lead_other": "가장 관련 높은 근거는 이렇습니다",
        "passage_planning": "{rnd}라운드: 질문과 가장 관련 있는 구절을 찾아 입장에 맞게 평가한다.",
        "passage_reflection": "인용한 구절이 실제로 말하는 것 이상은 주장하지 않는다.",
        # The judge
        "judge_agreement": "{aspect}: {label} — {who} 동의 ({ids})",
        "judge_disagreement": "{aspect}: {parts}; 리뷰 문장 기준 {label} ({ids})",
        "judge_consensus": "문장 전체 감성은 {label}({overall})입니다: {detail}.",
        "judge_confidence": " 판정 신뢰도 {confidence:.2f} (패널이 인용한 서로 다른 근거 {distinct}건).",
        "judge_rationale": "리뷰 문장이 측면별 레이블을 정하고 다른 근거가 이를 뒷받침하거나 반박한다. 쟁점 {disputed}건, 합의 {agreed}건.",
        "judge_winner": " {winner}의 주장이 증거와 가장 잘 맞았다.",
        "passage_disagreement": "{id}: {who} / {names} 반론",
        "passage_none_shared": "두 명 이상이 인용한 구절이 없다.",
        "passage_consensus": "패널 합의: {answer} ({id})",
        "passage_caveat": "; 남은 단서: {caveat} ({id})",
        "passage_rationale": "두 명 이상이 인용한 구절 {shared}건, 한 명만 인용한 구절 {single}건.",
    },
    "en": {
        "and": " and ",
        "the_sentence": "the sentence",
        "cite": "\"{text}\" ({where})",
        # The analyst
        "tally_unread": "{aspect}: no sentiment word, rating or contrast -> not read",
        "read_by_signal": " (taken from the earlier stage's label)",
        "read_by_contrast": " (inferred from the contrast)",
        "read_by_event": " (read from a reported failure, no sentiment word)",
        "read_by_coordination": " (inferred from the part it is joined to by \"and\")",
        "analyst_gaps": "What I could not assess: {gaps}.",
        "nothing_new": "On {aspect} I have nothing new to add: the evidence already quoted ({ids}) reads {side}.",
        "nothing_new_point": "{aspect}: {side} — nothing new",
        "tally": "{aspect}: {pos_n} positive ({pos}), {neg_n} negative ({neg}), {neu_n} hedged ({neu}) -> {label}",
        "analyst_planning": "Round {rnd}: tally the evidence per aspect ({names}) and check it against the Stage1 "
                            "labels and the other panelists' claims.",
        "stage1_label": "Stage1 ATE labelled the sentence {label} ({conf:.2f})",
        "stage1_none": "There is no Stage1 sentence label",
        "validator_issues": "the validator flags {issues}",
        "validator_none": "the validator flags nothing",
        "analyst_reflection": "{stage1}; {issues}. I should lean on neither and go by the evidence count.",
        "tally_first": "Evidence tally: {tallies}.",
        "tally_stands": "The tally stands: {labels}.",
        "stage1_differs": "{aspect} was {was} ({conf:.2f}) in Stage1, but the sentence itself reads {label}.",
        "claim_misfit": "{who}'s {claimed} claim on {aspect} departs from the sentence, which reads {label}; "
                        "only {support} back it.",
        "claims_fit": "{who} on {aspects}",
        "agreed_sep": "; ",
        "evidence_agrees": "The evidence bears out {agreed}.",
        "misfits_note": " Claims that do not fit the evidence: {misfits}.",
        "overall_reads": "So the sentence as a whole reads {overall}.",
        "overall_point": "overall sentence label: {overall}",
        # The critic and the empath
        "rebut_plain": "{who} reads {aspect} as {claimed}, but the sentence is plainly {side}: {ref}.",
        "rebut_plain_point": "{aspect}: {side} — answers {who}",
        "rebut_thin": "{who} reads {aspect} as {claimed}, but the evidence is thin: {ref}.",
        "rebut_thin_point": "{aspect}: neutral — disputes {who}'s {claimed} reading",
        "concede_critic": "I grant {who} that {names} {verb} {what} ({ids}), but that does not erase the "
                          "problems elsewhere.",
        "concede_empath": "{who} is right that {names} fell short ({ids}); that frustration is real.",
        "critic_lead_first": "{aspect} is the real problem here",
        "critic_lead_next": "{aspect} is no better",
        "critic_extra": " {ids} confirm it.",
        "empath_lead_first": "{aspect} clearly left a warm impression",
        "empath_lead_next": "{aspect} shines too",
        "empath_extra": " {ids} say the same.",
        "restate_critic": "On {aspect} I stand by what I said: hedged, not praise.",
        "restate_supported": "On {aspect} I stand by what I said: {support} were satisfied too.",
        "restate_no_complaint": "On {aspect} I stand by what I said: no complaint.",
        "hedged_point": "{aspect}: neutral — hedged",
        "supported_point": "{aspect}: positive — {support}",
        "hedge_critic": "On {aspect} the review only says {cite}: withheld praise, not praise.",
        "hedge_critic_point": "{aspect}: neutral — hedged, not praise",
        "hedge_supported": "On {aspect} the review says {cite}: closer to content than complaint, "
                           "and {support} found it satisfying too.",
        "hedge_no_complaint": "On {aspect} the review says {cite}: at least no complaint.",
        "hedge_no_complaint_point": "{aspect}: neutral — no complaint",
        "overconfident_contrast": "Stage1 ATE calling the sentence {label} ({conf:.2f}) is overconfident: "
                                  "it missed the negative clause after the contrast.",
        "overconfident_plain": "Stage1 ATE calling the sentence {label} ({conf:.2f}) is overconfident: "
                               "it ignores the negative evidence.",
        "overconfident_point": "Stage1 ATE {label} ({conf:.2f}) is overconfident",
        "no_support": "I find no evidence on these aspects that supports my side.",
        "empath_acknowledges": "Something clearly went wrong, but the reviewer still wrote down what they enjoyed.",
        "side_planning_first": "Round {rnd}: put the {side} evidence on {names} first; anticipate the other panelists.",
        "side_planning_later": "Round {rnd}: put the {side} evidence on {names} first; answer the previous speakers.",
        "critic_reflection": "No attack without a quote: I claim only what the cited passages say.",
        "empath_reflection": "Without dismissing the friction, I rely only on what the reviewer actually praised.",
        # Passage-level debate
        "reply_qualifies": "{who} cites {other}, but it qualifies itself: \"{quote}\".",
        "reply_same_way": "{who} points to {other}, and it points the same way: \"{quote}\".",
        "reply_caveat_granted": "I accept the caveat {who} found in {other}, but its main point stands: \"{quote}\".",
        "reply_rank": "{who} relies on {other}, which ranks {rank} for relevance.",
        "rank_outside": "outside the top",
        "passage_lead_con": "This evidence does not settle the question",
        "passage_lead_pro": "This evidence supports a clear answer",
        "passage_lead_other": "The most relevant passages say",
        "passage_planning": "Round {rnd}: find the passages most relevant to the question and weigh them from my stance.",
        "passage_reflection": "I claim no more than the cited passages say.",
        # The judge
        "judge_agreement": "{aspect}: {label} — agreed by {who} ({ids})",
        "judge_disagreement": "{aspect}: {parts}; by the sentence itself {label} ({ids})",
        "judge_consensus": "The overall sentiment is {overall}: {detail}.",
        "judge_confidence": " Confidence {confidence:.2f} ({distinct} distinct passage(s) quoted by the panel).",
        "judge_rationale": "The sentence under review sets each aspect's label; the other passages corroborate or "
                           "contradict it. {disputed} disputed aspect(s), {agreed} agreed.",
        "judge_winner": " {winner}'s claims fit the evidence best.",
        "passage_disagreement": "{id}: {who} vs {names}",
        "passage_none_shared": "No passage was cited by more than one panelist.",
        "passage_consensus": "The panel agrees: {answer} ({id})",
        "passage_caveat": "; open caveat: {caveat} ({id})",
        "passage_rationale": "{shared} passage(s) cited by two or more panelists, {single} by only one.",
    },
}
