"""New debate: choose or write a case, a protocol and a provider, and start a background run."""

from __future__ import annotations

import json

import streamlit as st

from debate_core.core import inputs, profiles
from debate_core.core.app_settings import AppSettingsError, save_preset
from debate_core.core.cases import (
    TOO_DEEP,
    CaseError,
    case_from_bytes,
    load_case,
    parse_case,
    read_json_text,
    sample_cases,
)
from debate_core.core.credentials import key_plan
from debate_core.core.documents import with_selection
from debate_core.core.files import CASE_BYTES, PASSAGES, FileProblem, size_text
from debate_core.core.identity import PermissionRefused
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import worker
from debate_core.present import export, formatting, protocol_choices
from debate_core.protocols import SettingsError as OptionsError
from debate_core.protocols import get_spec, validate_settings
from debate_core.providers import CassetteError, make_provider
from debate_core.providers.openai_provider import METHODS
from debate_core.store import StoreError
from ui import common, team_builder
from ui import documents as documents_ui
from ui.cost import budget_input
from ui.stages import table_height

common.page_setup()

st.title("New debate", anchor=False)
settings = common.app_settings()
problems: list[str] = []
field_problems: list[str] = []  # problems drawn next to the field they concern, not again below
case = None
# Pasted passages above this size get a warning: every agent reads the whole case in every prompt,
# and 100 KB (some 25,000 tokens) already fills the context of many local models.
PASTE_WARN_BYTES = 100_000

# ---------------------------------------------------------------------------
# The case
# ---------------------------------------------------------------------------
st.subheader("1. Question and evidence", anchor=False)
SOURCES = {"sample": "Sample case", "own": "Write a question", "file": "Upload a case file"}
source = st.radio("Case", list(SOURCES), format_func=SOURCES.get, horizontal=True, key="nd-source",
                  label_visibility="collapsed")
# The bounds every case is held to (cases.parse_case), shown before anything is uploaded or pasted.
try:
    limits = (f"Up to {CASE_BYTES.describe()} and {PASSAGES.value():,} passages per case "
              f"(the server's {CASE_BYTES.env} and {PASSAGES.env} raise them).")
except FileProblem as exc:
    limits = ""
    problems.append(str(exc))

sample_protocol = sample_choice = None  # the chosen sample case, and the protocol it was written for
if source == "sample":
    paths = sample_cases()
    if not paths:
        st.info("No sample cases were found in data/cases/. Write a question instead, or upload a case file.")
    else:
        titles = {}
        for p in paths:
            try:
                titles[str(p)] = load_case(p).title
            except CaseError as exc:
                titles[str(p)] = f"{p.name} (cannot be loaded: {exc})"
        chosen = sample_choice = st.selectbox("Sample case", list(titles), format_func=titles.get, key="nd-sample")
        try:
            case = load_case(chosen)
        except CaseError as exc:
            problems.append(str(exc))
        else:
            # A sample case names the protocol it was written for (its `protocol` field).
            sample_protocol = (case.model_extra or {}).get("protocol")
elif source == "own":
    title = st.text_input("Title (optional)", key="nd-title")
    question = st.text_area("Question", key="nd-question", height=100,
                            placeholder="What should the agents decide?")
    # Each field's own problems are drawn right under it, so the reader sees which field to fix.
    question_slot = st.container()
    domain_hint = st.text_input("Domain hint (optional)", key="nd-domain",
                                help="A few words on the field or the kind of question, e.g. "
                                     "'product reviews' or 'contract law'. The agents read it with the question.")
    st.markdown("**Evidence passages**, each with an id and a source")
    pasted = st.text_area("Paste passages", key="nd-passages", height=140, help=inputs.PASTE_HELP,
                          placeholder="E1 | Annual report 2024, p. 12 | Revenue grew 8% while costs ...\n"
                                      "E2 | Interview with the CFO | The growth came mostly from ...")
    paste_slot = st.container()
    st.caption(inputs.PASTE_HELP)
    uploads = st.file_uploader("…or upload passages (.json list or case, .csv with id,source,text, or .txt)",
                               type=["json", "csv", "txt"], accept_multiple_files=True, key="nd-upload")
    upload_slot = st.container()
    document_uploads = documents_ui.uploader()
    documents_slot = st.container()
    if limits:
        st.caption(limits)
    passages: list[dict] = []

    def field_error(slot, message: str) -> None:
        field_problems.append(message)
        slot.error(formatting.md_escape(message))

    pasted_bytes = len(pasted.encode("utf-8"))
    try:
        passages += inputs.parse_passages(pasted)
    except CaseError as exc:
        message = str(exc)
        if pasted_bytes > CASE_BYTES.value():
            message += ". Nothing was removed from the box: shorten the passages and the debate can start."
        field_error(paste_slot, message)
    else:
        if pasted_bytes > PASTE_WARN_BYTES:
            paste_slot.warning(
                f"The pasted passages are {size_text(pasted_bytes)}: every agent reads all of them in every "
                f"prompt, which is slow and costly with a model and can exceed its context. The limit for a "
                f"case is {CASE_BYTES.describe()}.")
    for up in uploads or []:
        try:
            passages += inputs.passages_from_upload(up.name, up.getvalue())
        except CaseError as exc:
            field_error(upload_slot, str(exc))
    doc_set = None  # the uploaded documents as passages (ui/documents.py)
    if document_uploads:
        try:
            doc_set = documents_ui.read_uploads([(d.name, d.getvalue()) for d in document_uploads], question,
                                                passages)
        except CaseError as exc:
            field_error(documents_slot, str(exc))
        else:
            with documents_slot:
                documents_ui.preview(doc_set)
            passages += doc_set.passages
    if passages and not question.strip():
        field_error(question_slot, "The question is required: write what the agents should decide.")
    elif question.strip() and not passages and not field_problems:
        field_error(paste_slot, "Add at least one evidence passage (id, source and text).")
    if not field_problems and question.strip() and passages:
        try:
            case = inputs.build_case(question, passages, title=title, domain_hint=domain_hint.strip() or None)
            if doc_set is not None:  # the passages left out are recorded with the case
                case = with_selection(case, doc_set.selection)
        except CaseError as exc:
            field_error(documents_slot if document_uploads else upload_slot if uploads else paste_slot, str(exc))
    problems += field_problems
else:
    up = st.file_uploader("Case file (.json)", type=["json"], key="nd-casefile")
    if limits:
        st.caption(limits)
    if up is None:
        st.info("Upload a case file: an object with id, title, question and evidence "
                "(a list of passages with id, source and text).")
    else:
        try:
            case = case_from_bytes(up.getvalue(), up.name)
        except CaseError as exc:
            problems.append(str(exc))

for p in problems:
    if p not in field_problems:  # a field's own problems are drawn under it
        st.error(formatting.md_escape(p))
if case is not None:
    with st.expander(f"Case: {formatting.md_escape(case.title)} · {len(case.evidence)} passage(s)", expanded=source != "sample"):
        st.markdown("**Question**")
        st.text(case.question)
        if case.evidence:
            st.dataframe([{"id": e.id, "source": e.source, "text": e.text} for e in case.evidence],
                         hide_index=True, key="nd-evidence", height=table_height(len(case.evidence)),
                         column_config={"text": st.column_config.TextColumn("text", width="large")})
        if case.reports:
            st.caption(f"{len(case.reports)} agent report(s) for arbitration")



def _save_preset(protocol: str, current: str, team_key: str, base_agents: list[dict], known: list[dict]) -> None:
    """Save the settings on screen as a named preset and select it (a callback, so before the page draws)."""
    state = st.session_state
    name = (state.get(f"nd-preset-name-{protocol}") or "").strip()
    try:
        chosen = team_builder.current_agents(team_key, base_agents, known)
        options = inputs.parse_options(state.get(f"nd-options-{protocol}-{current}") or "")
        preset = {"agents": chosen, "rounds": int(state.get(f"nd-rounds-{protocol}-{current}") or 1), "options": options}
        validate_settings(protocol, DebateSettings(rounds=preset["rounds"], agents=chosen, options=options))
        common.audited("preset", "save_presets", lambda: save_preset(common.db_path(), protocol, name, preset),
                       f"saved the {protocol} preset {name!r}")
    except (CaseError, AppSettingsError, OptionsError, OSError, PermissionRefused) as exc:
        common.flash("preset", "error", f"Preset not saved: {formatting.md_escape(exc)}")
        return
    state[f"nd-preset-{protocol}"] = name
    state[f"nd-preset-name-{protocol}"] = ""
    common.flash("preset", "success", f"Saved preset {formatting.md_escape(name)} for {protocol}; it is selected now.")


# ---------------------------------------------------------------------------
# Protocol, preset, agents, rounds
# ---------------------------------------------------------------------------
st.subheader("2. Protocol", anchor=False)
catalogue = {p["name"]: p for p in protocol_choices.protocol_catalogue()}
available = [name for name, p in catalogue.items() if not p["error"]]
if not available:
    st.error("No protocol could be loaded; see the server log.")
    st.stop()
if sample_protocol in available and st.session_state.get("nd-sample-applied") != sample_choice:
    # A newly chosen sample case brings the protocol it was written for (set before the selectbox
    # is drawn); the reader may pick another afterwards, and the fit check below still speaks.
    st.session_state["nd-sample-applied"] = sample_choice
    st.session_state["nd-protocol"] = sample_protocol
c1, c2 = st.columns(2)
protocol = c1.selectbox("Protocol", available, key="nd-protocol",
                        format_func=lambda n: catalogue[n].get("title") or n.replace("_", " "))
info = catalogue[protocol]
saved_presets = settings.presets.get(protocol, {})
presets = {"default": {}, **info["presets"], **saved_presets}
preset_name = c2.selectbox("Preset", list(presets), key=f"nd-preset-{protocol}",
                           help="'default' is the protocol's own settings; others are presets saved below.")
preset = presets[preset_name]
if info["doc"]:
    st.caption(info["doc"])
if sample_protocol in catalogue and sample_protocol != protocol:
    st.caption(f"This sample case was written for the "
               f"{formatting.md_escape(catalogue[sample_protocol].get('title') or sample_protocol)} protocol.")
if case is not None:
    # Warn before Start: a case without what the protocol needs is refused, as the CLI refuses it.
    unfit, reduced = protocol_choices.case_fit(protocol, case)
    for line in unfit:
        problems.append(line)
        st.error(formatting.md_escape(line))
    for line in reduced:
        st.info(formatting.md_escape(line))
    if unfit:
        fitting = [catalogue[n].get("title") or n for n in protocol_choices.fitting_protocols(case) if n in catalogue]
        if fitting:
            st.caption("This case fits: " + formatting.md_escape(", ".join(fitting)))
# Who speaks: a pick from the gallery (a saved team, a preset's or a file's agents), else the
# preset's agents, else the case's own, else the protocol's defaults; then edited in the table.
st.markdown(f"**Agents** ({formatting.md_escape(info.get('title', protocol))} takes "
            f"{protocol_choices.agent_range(info)})")
c3, c4 = st.columns([3, 1])
with c3:
    pick = team_builder.picker(team_builder.gallery(protocol, info, settings, catalogue), key="nd-team")
agent_case = case
try:
    profiles.case_profiles(case, protocol)
except OptionsError as exc:  # the case's own agents are malformed: say so, and offer the protocol's
    problems.append(str(exc))
    st.error(formatting.md_escape(exc))
    agent_case = None
base_agents = profiles.resolve(pick.agents or preset.get("agents") or None, agent_case, info["agents"], protocol)
known_agents = [*info["agents"], *base_agents]
team_key = f"nd-agents-{protocol}-{preset_name}-{st.session_state.get('nd-team')}-{case.id if case is not None else ''}"
lo, hi = info["min_rounds"], max(info["min_rounds"], info["max_rounds"])
default_rounds = min(hi, max(lo, int(preset.get("rounds") or info["rounds"])))
rounds = c4.number_input("Rounds (at most)", min_value=lo, max_value=hi, value=default_rounds, step=1,
                         key=f"nd-rounds-{protocol}-{preset_name}")
chosen_agents, team_problem = team_builder.editor(team_key, base_agents, known_agents)
if team_problem:
    problems.append(team_problem)
    st.error(formatting.md_escape(team_problem))
if chosen_agents:
    st.markdown("**These agents will speak:** " + "; ".join(
        f"{formatting.md_escape(a.get('name') or a['id'])} ({formatting.md_escape(a['id'])})"
        + (f": {formatting.md_escape(a['role'])}" if a.get("role") else "") for a in chosen_agents))
team_builder.save_controls(team_key, base_agents, known_agents, chosen_agents, name_key="nd-team-name",
                           pick_key="nd-team", flash="team")
with st.expander("Protocol options and presets"):
    options_text = st.text_area(
        "Options, one KEY=VALUE per line (values are JSON, as with the CLI's --option)",
        value=inputs.format_options(preset.get("options")), key=f"nd-options-{protocol}-{preset_name}",
        placeholder="max_claims=8\nconvergence_mode=\"any\"", help=protocol_choices.option_help(info) or None)
    with st.popover("What the options mean"):
        for key, prop in (info.get("options") or {}).items():
            st.markdown(f"**{formatting.md_escape(key)}** (default "
                        f"{formatting.md_escape(json.dumps(prop.get('default'), ensure_ascii=False))}): "
                        f"{formatting.md_escape(prop.get('description', ''))}")
    options: dict = {}
    try:
        options = inputs.parse_options(options_text)
    except CaseError as exc:
        problems.append(str(exc))
        st.error(formatting.md_escape(exc))
    p1, p2 = st.columns([3, 1], vertical_alignment="bottom")
    p1.text_input("Save these agents, rounds and options as a preset", key=f"nd-preset-name-{protocol}",
                  placeholder="preset name")
    p2.button("Save preset", key=f"nd-preset-save-{protocol}", on_click=_save_preset,
              args=(protocol, preset_name, team_key, base_agents, known_agents))
    common.show_flash("preset")
# A pause for review: the debate waits after that round closes, so a reviewer can read it, raise
# critiques or add evidence (where the protocol takes them), then continue, stop or fork it.
s1, s2 = st.columns([3, 1], vertical_alignment="bottom")
pause_review = s1.checkbox(
    "Pause for review after a round", key="nd-pause",
    help="The debate stops once that round closes and waits for you on its page: read the rounds, "
         + ("raise critiques, add evidence, pin or withdraw claims, then continue it (or stop it)."
            if "critique" in get_spec(protocol).interventions else
            "then continue it, stop it, or fork it with other options (this protocol takes no interventions)."))
pause_key = f"nd-pause-round-{protocol}"
if int(st.session_state.get(pause_key) or 1) > int(rounds):  # fewer rounds chosen since: pause after the last
    st.session_state[pause_key] = int(rounds)
pause_round = s2.number_input("Pause after round", min_value=1, max_value=int(rounds), step=1,
                              key=pause_key, disabled=not pause_review)
if pause_review:
    st.caption(f"The debate will pause for review after round {int(pause_round)}.")
run_settings = DebateSettings(
    pause_after_round=int(pause_round) if pause_review else None,
    rounds=int(rounds),
    # The case's own agents (or the protocol's) as they are: stored as chosen only when someone changed them.
    agents=None if team_builder.table_rows(chosen_agents) == team_builder.table_rows(
        profiles.resolve(None, agent_case, info["agents"], protocol)) else chosen_agents,
    options=options,
)
if chosen_agents and not problems:
    # The same check as the CLI and the worker: a bad option or agent id keeps Start disabled.
    try:
        validate_settings(protocol, run_settings)
    except OptionsError as exc:
        problems.append(str(exc))
        st.error(formatting.md_escape(exc))
unavailable = [n for n, p in catalogue.items() if p["error"]]
if unavailable:
    st.caption("Not available in this installation: " + ", ".join(unavailable))

# ---------------------------------------------------------------------------
# Provider
# ---------------------------------------------------------------------------
st.subheader("3. Provider", anchor=False)
PROVIDER_LABELS = {"offline": formatting.OFFLINE_LABEL, "openai": "openai-compatible model",
                   "replay": "replay from a cassette"}
provider_name = st.radio("Provider", list(PROVIDER_LABELS), format_func=PROVIDER_LABELS.get, horizontal=True,
                         index=list(PROVIDER_LABELS).index(settings.default_provider), key="nd-provider",
                         label_visibility="collapsed")
provider_opts: dict = {}
blockers: list[str] = []
if provider_name == "offline":
    st.caption("Deterministic rule-based agents that read the evidence. No model, no network, no key.")
    provider_opts["latency_ms"] = st.number_input(
        "Delay per call (ms)", min_value=0, max_value=10_000, value=int(settings.offline_latency_ms), step=100,
        key="nd-latency", help="Offline agents answer instantly; a delay lets you watch the rounds arrive.")
elif provider_name == "openai":
    creds = common.server_credentials()
    o1, o2 = st.columns(2)
    provider_opts["base_url"] = o1.text_input("Base URL", value=creds.default_base_url, key="nd-base-url",
                                              placeholder="empty for OpenAI, or e.g. http://localhost:8080/v1")
    provider_opts["model"] = o2.text_input("Model", value=settings.openai_model, key="nd-model")
    methods = ["", *METHODS]
    provider_opts["method"] = st.selectbox(
        "Structured output method", methods, index=methods.index(settings.openai_method), key="nd-method",
        format_func=lambda m: m or "automatic (json_schema for OpenAI, function calling otherwise)") or None
    provider_opts["temperature"] = settings.temperature
    provider_opts["api_key"] = common.api_key_input("new") or None
    provider_opts["server_credentials"] = creds
    # The server's key never follows a typed URL: another server needs its own key, or the
    # visitor's word that it needs none.
    no_key = False
    if not provider_opts["api_key"] and creds.api_key and not creds.allows(provider_opts["base_url"]):
        no_key = st.checkbox("This server needs no key", key="nd-no-key",
                             help="For local servers such as llama.cpp, Ollama or vLLM: the debate sends no key.")
    plan = key_plan(creds, provider_opts["base_url"], provider_opts["api_key"], no_key)
    if plan.note:
        st.caption(formatting.md_escape(plan.note))
    if plan.blocker:
        blockers.append(plan.blocker)
    if not provider_opts["model"]:
        blockers.append("Enter the model name for the openai-compatible provider.")
else:
    REPLAY = {"file": "Upload a cassette file", "stored": "Replay a stored debate"}
    replay_from = st.radio("Cassette", list(REPLAY), format_func=REPLAY.get, horizontal=True, key="nd-replay")
    if replay_from == "file":
        up = st.file_uploader("Cassette (.json)", type=["json"], key="nd-cassette")
        if up is None:
            blockers.append("Upload a cassette file to replay.")
        else:
            try:
                provider_opts["cassette"] = read_json_text(up.getvalue())
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                blockers.append(f"{up.name}: not a JSON file ({exc})")
            except RecursionError:
                blockers.append(f"{up.name}: {TOO_DEEP}")
    else:
        store = common.read_store()
        try:
            done = store.list_debates(status="completed", protocol=protocol, limit=200)
            if not done:
                blockers.append(f"No completed {protocol} debate is stored yet to replay.")
            else:
                labels = {d["id"]: f"{d['id']} · {d.get('title') or d.get('question')}" for d in done}
                source_id = st.selectbox("Stored debate", list(labels), format_func=labels.get, key="nd-replay-id")
                provider_opts["cassette"] = export.cassette(store, source_id)
        finally:
            store.close()

recorded_case = (provider_opts.get("cassette") or {}).get("case")
if provider_name == "replay" and isinstance(recorded_case, dict):
    # A cassette answers for the case it was recorded on; replaying it on another case makes no sense.
    try:
        case = parse_case(recorded_case, "the cassette's case")
        st.caption(f"Replays on the cassette's own case: {formatting.md_escape(case.title)}")
    except CaseError as exc:
        blockers.append(str(exc))
budget_input(run_settings, provider_name, provider_opts, settings)  # token budget (openai), with its cost

# ---------------------------------------------------------------------------
# Start
# ---------------------------------------------------------------------------
st.divider()
if case is None and not problems:
    st.info("Choose a sample case, or write a question and add at least one evidence passage.")
if not chosen_agents:
    blockers.append("Choose at least one agent.")
for b in blockers:
    st.warning(formatting.md_escape(b))
if not common.may("start"):
    blockers.append(common.refusal("start"))
    st.info(common.refusal("start"))
ready = case is not None and not problems and not blockers
if st.button("Start debate", type="primary", disabled=not ready, key="nd-start", icon=":material/play_arrow:"):
    try:
        provider = make_provider(provider_name, **provider_opts)
        if provider_name == "replay" and getattr(provider, "protocol", None) not in (None, protocol):
            raise ValueError(f"this cassette was recorded with the {provider.protocol} protocol; "
                             f"choose {provider.protocol} to replay it")
        debate_id = worker.start_debate(case, protocol, provider, run_settings, db_path=common.db_path(),
                                        actor=common.actor())
    except (ValueError, CassetteError, StoreError) as exc:
        st.error(f"The debate could not start: {formatting.md_escape(exc)}")
    else:
        st.session_state["debate_id"] = debate_id
        st.switch_page(common.PAGES["debate"], query_params={"id": debate_id})
