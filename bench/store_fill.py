"""Fill a database with many realistic debates through the engine's own store API.

Every sample case is debated once offline by its protocol, and the event stream the engine emits
is captured. Each generated debate then goes through `DebateStore.create_debate` and
`DebateStore.record` exactly as a live debate does, with its own id, a varied question and title,
a creation date spread over the past year, and a fate: most complete, some fail part-way, some
were interrupted (their process died); completed ones are then reviewed through
`DebateStore.review` (accepted, overridden, escalated, some escalations approved by a supervisor).
No debate is left running: the app would mark a stale one interrupted on its first run, changing
the database between measurements. One extra debate, recorded by
the engine itself with three agents, three rounds and ten claims per output, is the large debate
the detail page is timed on.

The same fill works on both backends: `--db` is a SQLite file or a `postgresql://` URL. Batches
of writes share one transaction through the store's own `sql.transaction()` (BEGIN IMMEDIATE on
SQLite, the advisory write lock on PostgreSQL). A filled database is marked as this generator's at
this size: a `<file>-meta.json` next to a SQLite file, a `bench_fill` table inside a PostgreSQL
database (a server has no folder of its own). A PostgreSQL database is only emptied for a fill when
it carries that mark or holds no debates, so a wrong URL cannot wipe real history.

    python bench/store_fill.py --db data/bench_store.db --debates 10000
    python bench/store_fill.py --db postgresql://postgres@127.0.0.1:5432/bench_store --debates 10000
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import benchlib

from debate_core import store as store_module
from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.core.cases import load_case, sample_cases
from debate_core.core.events import Event, MemorySink
from debate_core.core.schemas import Case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.providers import ReplayProvider, make_provider
from debate_core.store import DebateStore, is_postgres_url, redacted

GENERATOR_VERSION = 2
PROTOCOL_BY_PREFIX = {"adat": "cross_critique", "national": "cross_critique", "panel": "panel",
                      "refinement": "refinement", "dialectic": "dialectic", "arbitration": "arbitration"}
# How often each protocol occurs: cross-critique is the workbench's main protocol.
PROTOCOL_WEIGHT = {"cross_critique": 4, "panel": 2, "refinement": 2, "dialectic": 1, "arbitration": 1}
PLACES = ["Padang", "Bukittinggi", "Payakumbuh", "Denpasar", "Gianyar", "Tabanan", "Yogyakarta", "Surakarta",
          "Jakarta", "Bandung", "Medan", "Makassar", "Doha", "Lusail", "Seoul", "Busan"]
ASPECTS = ["the land certificate", "the family agreement", "the notarial deed", "the banjar minutes",
           "the KAN statement", "the survey of the field", "the shop-house", "the rice field",
           "the labour statistics", "the disk volume", "the customer reviews", "the contract terms"]
REVIEWERS = ["ayu", "budi", "citra", "dewi", "eko", "fajar"]
SUPERVISOR = "supervisor.sari"
LARGE_AGENTS = ["nla", "ala", "hakim"]
LARGE_CLAIMS = 10
MARK_TABLE = "bench_fill"  # PostgreSQL only: the mark a SQLite fill keeps in its -meta.json


@dataclass
class Template:
    protocol: str
    case: Case
    provider: dict[str, Any]
    settings: dict[str, Any]
    events: list[Event]


def capture_templates() -> list[Template]:
    """One offline debate per sample case, with the events exactly as the engine emitted them."""
    templates = []
    for path in sample_cases():
        protocol = PROTOCOL_BY_PREFIX.get(path.name.split("_", 1)[0])
        if protocol is None:
            continue
        case = load_case(path)
        provider = make_provider("offline")
        sink = MemorySink()
        result = run_debate(case, protocol, provider=provider, sink=sink)
        if result.status != "completed":
            print(f"  (skipped {path.name}: {result.error})")
            continue
        settings = DebateSettings().as_dict()
        templates.append(Template(protocol, case, provider.public_config(), settings, [e for _, e in sink.events]))
    return templates


class SyntheticClock:
    """Stands in for the store's clock, so stored dates spread over a year instead of one minute."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def stamp(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


def _variant(case: Case, n: int, rng: random.Random) -> Case:
    place, aspect, year = rng.choice(PLACES), rng.choice(ASPECTS), rng.randint(2015, 2025)
    question = f"{case.question} (Matter {n:05d}, {place}, {year}: with particular attention to {aspect}.)"
    return case.model_copy(update={"id": f"{case.id}-{n:05d}", "title": f"{case.title} - matter {n:05d}",
                                   "question": question})


def _fate(rng: random.Random) -> str:
    roll = rng.random()
    return "failed" if roll < 0.06 else "interrupted" if roll < 0.10 else "completed"


def _record(store: DebateStore, debate_id: str, template: Template, fate: str, clock: SyntheticClock,
            rng: random.Random) -> None:
    events = template.events
    if fate != "completed":
        # Stop part-way: at a random call, as a crash or a failed step would.
        starts = [i for i, e in enumerate(events) if e.kind == "turn_started"]
        events = events[: rng.choice(starts) + 1] if starts else events[:1]
    base = clock.now.timestamp()
    first = events[0].ts
    for event in events:
        shifted = Event(event.kind, event.step_id, event.data, ts=base + (event.ts - first))
        store.record(debate_id, shifted)
    if fate == "interrupted":
        # Left running by a process that died; the app marks such debates as it finds them.
        store.mark_interrupted(debate_id, "interrupted: the process that ran it (pid 4242) is no longer running")
    elif fate == "failed":
        last = events[-1]
        error = f"step {last.step_id} failed: no valid output after 3 attempt(s): the reply is not valid JSON"
        store.record(debate_id, Event("turn_failed", last.step_id, {
            "call": last.data.get("call", 1), "error": error, "raw": "I cannot answer in JSON today.",
            "attempts": 3, "errors": [error], "calls": 3, "input_tokens": 9000, "output_tokens": 40}))
        store.record(debate_id, Event("failed", last.step_id, {"error": error}))


def _review(store: DebateStore, debate_id: str, rng: random.Random) -> None:
    roll = rng.random()
    reviewer = rng.choice(REVIEWERS)
    if roll < 0.40:
        return
    if roll < 0.70:
        store.review(debate_id, action="accept", reviewer=reviewer)
    elif roll < 0.80:
        store.review(debate_id, action="override", reviewer=reviewer, reason="the evidence on the area is misread",
                     answer="The field is pusaka tinggi of the kaum; only the shop-house is divided under the KHI.")
    else:
        store.review(debate_id, action="escalate", reviewer=reviewer, reason="conflict of norms needs a supervisor")
        if rng.random() < 0.5:
            store.review(debate_id, action="approve", reviewer=SUPERVISOR, supervisor=True,
                         reason="agreed with the moderator")


def large_debate_cassette(case: Case) -> dict[str, Any]:
    """A three-agent cross-critique debate whose every answer and revision has ten claims.

    The offline agents make fewer, so each output is topped up with further claims built from the
    case's own passages (real evidence ids), as a verbose model would write them."""
    settings = DebateSettings(agents=[{"id": a} for a in LARGE_AGENTS])
    store = DebateStore(memory=True)
    try:
        result = run_debate(case, "cross_critique", provider=make_provider("offline"), settings=settings,
                            store=store)
        calls = [{"step": s["step_id"], "output": s["output"]} for s in store.steps(result.debate_id)
                 if s["status"] == "ok"]
    finally:
        store.close()
    for call in calls:
        claims = call["output"].get("claims")
        if claims is None:
            continue
        known = {c["id"] for c in claims}
        n = 1
        for ev in case.evidence * LARGE_CLAIMS:
            if len(claims) >= LARGE_CLAIMS:
                break
            while f"C{n}" in known:
                n += 1
            sentence = ev.text.split(". ")[0].rstrip(".") + "."
            claims.append({"id": f"C{n}", "statement": sentence, "evidence": [ev.id], "confidence": 0.6,
                           "assumptions": [f"{ev.source} applies to the facts in the question"]})
            known.add(f"C{n}")
    return {"format": "debate-cassette/1", "protocol": "cross_critique", "calls": calls}


def record_large_debate(store: DebateStore) -> str:
    case = benchlib.case_for("cross_critique")
    cassette = large_debate_cassette(case)
    settings = DebateSettings(agents=[{"id": a} for a in LARGE_AGENTS])
    result = run_debate(case.model_copy(update={"id": f"{case.id}-large", "title": f"{case.title} - three agents"}),
                        "cross_critique", provider=ReplayProvider(cassette), settings=settings, store=store)
    if result.status != "completed" or result.rounds != 3:
        raise RuntimeError(f"the large debate did not run three rounds: {result.status} {result.error}")
    return result.debate_id


def _read_mark(store: DebateStore) -> dict[str, Any] | None:
    if MARK_TABLE not in store.sql.table_names():
        return None
    row = store.sql.execute(f"SELECT meta FROM {MARK_TABLE} WHERE name = ?", ["meta"]).fetchone()
    return json.loads(row[0]) if row else None


def _write_mark(store: DebateStore, meta: dict[str, Any]) -> None:
    with store.sql.transaction():
        store.sql.execute(f"CREATE TABLE IF NOT EXISTS {MARK_TABLE} (name text PRIMARY KEY, meta text)")
        store.sql.upsert(MARK_TABLE, [{"name": "meta", "meta": json.dumps(meta)}], ("name",))


def _empty_postgres(url: str) -> None:
    """Drop every table of a PostgreSQL database this generator filled (or one with no debates), so
    the next open migrates it from scratch as a new database."""
    store = DebateStore(url)  # migrates an empty database: its tables exist from here on
    try:
        mark = _read_mark(store)
        debates = store.sql.execute("SELECT COUNT(*) FROM debates").fetchone()[0]
        if mark is None and debates:
            raise SystemExit(f"refusing to fill {redacted(url)}: it holds {debates} debates that store_fill.py "
                             "did not write (give an empty database)")
        tables = store.sql.table_names()
        with store.sql.transaction():
            for table in tables:
                store.sql.execute(f'DROP TABLE IF EXISTS "{table}" CASCADE')
    finally:
        store.close()


def _postgres_bytes(store: DebateStore) -> int:
    return int(store.sql.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def fill(db: str | Path, debates: int, seed: int = 7, progress: bool = True) -> dict[str, Any]:
    """Create `db` (a SQLite file or a PostgreSQL URL) afresh with `debates` generated debates plus
    the large one; returns its metadata."""
    if is_postgres_url(db):
        _empty_postgres(str(db))
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    rng = random.Random(seed)
    # Only a supervisor named in the settings file next to the database may approve an escalation.
    save_settings(AppSettings(supervisors=[SUPERVISOR]), db)
    templates = capture_templates()
    by_protocol: dict[str, list[Template]] = {}
    for t in templates:
        by_protocol.setdefault(t.protocol, []).append(t)
    protocols = [p for p in PROTOCOL_WEIGHT if p in by_protocol]
    weights = [PROTOCOL_WEIGHT[p] for p in protocols]
    clock = SyntheticClock(datetime.now(UTC).replace(tzinfo=None) - timedelta(days=365))
    step = 365 * 24 * 3600 / max(1, debates)
    store = DebateStore(db)
    if is_postgres_url(db):
        # Marked before the first debate: a fill that is cut short still leaves a database this
        # script may empty again (and, with no size in its mark, never reuses).
        _write_mark(store, {"generator": GENERATOR_VERSION, "debates": None, "state": "filling"})
    original_now = store_module._now
    store_module._now = clock.stamp  # the store dates rows by its clock; this one runs over a year
    started = batch_started = time.perf_counter()
    counts: dict[str, int] = {}
    rates: list[float] = []  # debates written per second, batch by batch
    try:
        batch = 200
        for first in range(0, debates, batch):
            to_review = []
            # One transaction per batch (each record() nests as a savepoint): the same writes, fewer
            # commits. Reviews take their own write lock, so they follow the batch.
            with store.sql.transaction():
                for n in range(first, min(debates, first + batch)):
                    template = rng.choice(by_protocol[rng.choices(protocols, weights)[0]])
                    case = _variant(template.case, n, rng)
                    debate_id = clock.now.strftime("%Y%m%d-%H%M%S") + f"-{n:06x}"
                    store.create_debate(case, template.protocol, template.provider, template.settings,
                                        debate_id=debate_id)
                    fate = _fate(rng)
                    _record(store, debate_id, template, fate, clock, rng)
                    if fate == "completed":
                        to_review.append(debate_id)
                    counts[fate] = counts.get(fate, 0) + 1
                    clock.advance(step * rng.uniform(0.5, 1.5))
            for debate_id in to_review:
                _review(store, debate_id, rng)
            done = min(debates, first + batch)
            now = time.perf_counter()
            rates.append(round((done - first) / (now - batch_started), 1))
            batch_started = now
            if progress:
                print(f"\r  {done}/{debates} debates, {rates[-1]:.0f}/s", end="", flush=True)
        large_id = record_large_debate(store)
        if progress:
            print()
        if is_postgres_url(db):
            # What autovacuum does within a minute or so on a live server: the statistics the
            # planner picks plans by, and the visibility map that lets an index answer a query
            # without reading the rows. Done here so the figures do not depend on whether it got
            # there before the first query (outside a transaction: VACUUM cannot run inside one).
            store.sql.execute("VACUUM ANALYZE")
        meta = {"generator": GENERATOR_VERSION, "debates": debates, "large_debate": large_id, "counts": counts,
                "fill_seconds": round(time.perf_counter() - started, 1), "batch": 200, "rates": rates}
        if is_postgres_url(db):
            meta["bytes"] = _postgres_bytes(store)
            _write_mark(store, meta)
    finally:
        store_module._now = original_now
        store.close()
    if not is_postgres_url(db):
        meta["bytes"] = Path(db).stat().st_size  # after close: the WAL is checked into the file by then
        Path(f"{db}-meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def _current(meta: dict[str, Any] | None, debates: int) -> bool:
    return bool(meta) and meta.get("generator") == GENERATOR_VERSION and meta.get("debates") == debates


def ensure(db: str | Path, debates: int, rebuild: bool = False) -> dict[str, Any]:
    """Reuse a database this generator already filled with the same number of debates."""
    if rebuild:
        return fill(db, debates)
    if is_postgres_url(db):
        store = DebateStore(db)  # migrates an empty database, as the app would
        try:
            meta = _read_mark(store)
            if _current(meta, debates):
                assert meta is not None
                meta["bytes"] = _postgres_bytes(store)
                return {**meta, "reused": True}
        finally:
            store.close()
        return fill(db, debates)
    meta_file = Path(f"{db}-meta.json")
    if Path(db).exists() and meta_file.exists():
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        if _current(meta, debates):
            meta["reused"] = True
            return meta
    return fill(db, debates)


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument("--db", default=str(benchlib.ROOT / "data" / "bench_store.db"),
                            help="a SQLite file or a postgresql:// URL (an empty database, or one this script filled)")
        parser.add_argument("--debates", type=int, default=10000)

    args = benchlib.parse_args(__doc__.splitlines()[0], extra)
    meta = fill(args.db if is_postgres_url(args.db) else Path(args.db), 1000 if args.quick else args.debates)
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
