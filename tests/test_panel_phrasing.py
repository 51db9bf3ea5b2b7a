"""The offline panel's message table: both languages say the same things, Korean particles fit."""

from __future__ import annotations

import string

import pytest

from debate_core.protocols.panel.agent.phrasing import MESSAGES, say


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_exists_in_both_languages_with_the_same_fields():
    assert set(MESSAGES["ko"]) == set(MESSAGES["en"])
    # Where the languages differ, Korean names the label word and English the label (or a verb form).
    differing = {key: (fields(MESSAGES["ko"][key]), fields(MESSAGES["en"][key])) for key in MESSAGES["en"]
                 if fields(MESSAGES["ko"][key]) != fields(MESSAGES["en"][key])}
    assert differing == {
        "overall_reads": ({"label", "overall"}, {"overall"}),
        "overall_point": ({"label"}, {"overall"}),
        "concede_critic": ({"who", "names", "what", "ids"}, {"who", "names", "verb", "what", "ids"}),
        "judge_consensus": ({"label", "overall", "detail"}, {"overall", "detail"}),
    }


@pytest.mark.parametrize(("word", "key", "expected"), [
    ("응대", "critic_lead_first", "응대가 이 리뷰의 핵심 문제입니다"),  # no final consonant: 가
    ("음식", "critic_lead_first", "음식이 이 리뷰의 핵심 문제입니다"),  # final consonant: 이
    ("가격", "empath_lead_next", "가격도 빛났어요"),  # a particle without a pair attaches as is
    ("battery", "critic_lead_first", "battery이(가) 이 리뷰의 핵심 문제입니다"),  # not Hangul: both forms
])
def test_korean_particles_follow_the_word(word, key, expected):
    assert say("ko", key, aspect=word) == expected


def test_a_leading_dash_gives_the_particle_alone_after_a_parenthesis():
    assert say("ko", "stage1_label", label="긍정", conf=0.624) == "Stage1 ATE는 문장을 긍정(0.62)으로 봤다"
    assert say("ko", "stage1_label", label="중립", conf=0.5) == "Stage1 ATE는 문장을 중립(0.50)으로 봤다"
    assert say("ko", "stage1_label", label="부정", conf=0.9) == "Stage1 ATE는 문장을 부정(0.90)으로 봤다"
    assert say("ko", "stage1_label", label="혼합", conf=0.9) == "Stage1 ATE는 문장을 혼합(0.90)으로 봤다"
    assert say("ko", "stage1_differs", aspect="맛", was="부정", conf=0.8, label="긍정") == (
        "맛은 Stage1에서 부정(0.80)이었지만, 리뷰 문장 자체의 표현은 긍정 쪽입니다.")


def test_english_ignores_particles_and_formats_numbers():
    assert say("en", "stage1_label", label="positive", conf=0.624) == "Stage1 ATE labelled the sentence positive (0.62)"
    assert say("en", "concede_critic", who="the analyst", names="screen and battery", verb="were", what="positive",
               ids="E1, E4") == ("I grant the analyst that screen and battery were positive (E1, E4), but that does "
                                 "not erase the problems elsewhere.")
