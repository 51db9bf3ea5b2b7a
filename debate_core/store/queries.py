"""Reading debates back: one debate with its steps, reviews and annotations, the filtered and
searched history, and the figures of the Analytics page, each computed by SQLite so that no page
reads every debate (bench/store_scale.py measures it).
"""

from __future__ import annotations

from typing import Any

from .connection import NotFound, StoreConnection
from .rows import decode_debate, load


def _real_work(include_evaluations: bool, col: str = "") -> str:
    """The condition that leaves out runs made by an evaluation (they are reached from their
    evaluation), or one that keeps every debate."""
    return "1 = 1" if include_evaluations else f"{col}evaluation_id IS NULL"


class QueriesMixin(StoreConnection):
    """Reads only: nothing here takes the write lock."""

    def get_debate(self, debate_id: str, *, with_steps: bool = True) -> dict[str, Any]:
        rows = list(self.sql.query("SELECT * FROM debates WHERE id = ?", [debate_id]))
        if not rows:
            raise NotFound(f"no debate with id {debate_id!r}")
        d = decode_debate(rows[0])
        if with_steps:
            d["steps"] = self.steps(debate_id)
            d["reviews"] = self.reviews(debate_id)
            d["annotations"] = self.annotations(debate_id)
        return d

    def steps(self, debate_id: str) -> list[dict[str, Any]]:
        out = []
        for r in self.sql.query("SELECT * FROM steps WHERE debate_id = ? ORDER BY seq", [debate_id]):
            r["prompt"] = load(r["prompt"], [])
            r["output"] = load(r["output"])
            r["errors"] = load(r["errors"], [])
            out.append(r)
        return out

    def events(self, debate_id: str, after_id: int = 0) -> list[dict[str, Any]]:
        out = []
        for r in self.sql.query(
            "SELECT * FROM events WHERE debate_id = ? AND id > ? ORDER BY id", [debate_id, after_id]
        ):
            r["data"] = load(r["data"], {})
            out.append(r)
        return out

    def reviews(self, debate_id: str) -> list[dict[str, Any]]:
        return list(self.sql.query("SELECT * FROM reviews WHERE debate_id = ? ORDER BY id", [debate_id]))

    def claims(self, debate_id: str) -> list[dict[str, Any]]:
        out = []
        for r in self.sql.query("SELECT * FROM claims WHERE debate_id = ? ORDER BY round, agent, claim_id", [debate_id]):
            r["evidence"] = load(r["evidence"], [])
            r["unverified_evidence"] = load(r["unverified_evidence"], [])
            out.append(r)
        return out

    def critiques(self, debate_id: str) -> list[dict[str, Any]]:
        return list(self.sql.query(
            "SELECT * FROM critiques WHERE debate_id = ? ORDER BY round, critic, target, call, critique_id", [debate_id]
        ))

    def list_debates(
        self,
        *,
        protocol: str | None = None,
        status: str | None = None,
        review_state: str | None = None,
        reviewer: str | None = None,
        needs_review: bool | None = None,
        since: str | None = None,
        until: str | None = None,
        search: str | None = None,
        include_evaluations: bool = False,
        evaluation_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        """Debates, newest first. Runs made by an evaluation are left out unless `include_evaluations`
        (or `evaluation_id`, which lists that evaluation's runs only)."""
        searching = bool(search and search.strip())
        col = self.sql.filter_column(searching)
        where, params = [_real_work(include_evaluations or evaluation_id is not None, col)], []
        if evaluation_id is not None:
            where.append(f"{col}evaluation_id = ?")
            params.append(evaluation_id)
        if protocol:
            where.append(f"{col}protocol = ?")
            params.append(protocol)
        if status:
            where.append(f"{col}status = ?")
            params.append(status)
        if review_state:
            where.append(f"{col}review_state = ?")
            params.append(review_state)
        if reviewer:
            where.append(f"{col}id IN (SELECT r.debate_id FROM reviews r WHERE "
                         f"{self.sql.nocase('r.reviewer')} = {self.sql.nocase('?')})")
            params.append(reviewer)
        if needs_review is not None:
            where.append(f"{col}needs_human_review = ?")
            params.append(int(needs_review))
        if since:
            where.append("d.created_at >= ?")
            params.append(since)
        if until:
            where.append("d.created_at < ?")
            params.append(until)
        if searching:
            match, match_params = self.sql.search_match(search or "")
            where.append(match)
            params.extend(match_params)
        # Two steps: pick the page of rows from the indexes alone, then read only those wide rows.
        key = self.sql.row_key()
        page = (
            f"SELECT d.{key} FROM debates d WHERE {' AND '.join(where)}"
            " ORDER BY d.created_at DESC, d.id DESC LIMIT ? OFFSET ?"
        )
        sql = (
            "SELECT d.id, d.case_id, d.title, d.question, d.protocol, d.provider, d.model, d.status, d.created_at,"
            " d.finished_at, d.rounds, d.converged, d.convergence_reason, d.needs_human_review, d.final_answer,"
            " d.confidence, d.review_state, d.reviewed_by, d.calls, d.input_tokens, d.output_tokens, d.error,"
            " d.parent_id, d.fork_round, d.paused_at, d.paused_round, d.evaluation_id"
            f" FROM debates d WHERE d.{key} IN ({page}) ORDER BY d.created_at DESC, d.id DESC"
        )
        return list(self.sql.query(sql, [*params, int(limit), int(offset)]))

    def count_debates(self, *, include_evaluations: bool = False) -> int:
        """Debates stored; runs made by an evaluation only with `include_evaluations`."""
        return self.sql.execute(f"SELECT COUNT(*) FROM debates WHERE {_real_work(include_evaluations)}").fetchone()[0]

    def escalation_queue(self, *, include_evaluations: bool = False) -> list[dict[str, Any]]:
        return self.list_debates(review_state="escalated", include_evaluations=include_evaluations, limit=500)

    def review_queue_counts(self, *, include_evaluations: bool = False) -> dict[str, int]:
        """How many debates the Escalations page lists, counted in one query: `escalated` (awaiting a
        supervisor) and `flagged` (completed, flagged by the moderator, awaiting a reviewer). The page
        then reads only the rows it shows."""
        f = self.sql.flag
        escalated = "review_state = 'escalated'"
        flagged = "status = 'completed' AND needs_human_review = 1 AND review_state = 'pending'"
        row = next(iter(self.sql.query(
            f"SELECT COALESCE(SUM({f(escalated)}), 0) AS escalated,"
            f" COALESCE(SUM({f(flagged)}), 0) AS flagged FROM debates"
            f" WHERE {_real_work(include_evaluations)} AND ({escalated} OR ({flagged}))")))
        return {"escalated": int(row["escalated"]), "flagged": int(row["flagged"])}

    def reviewers(self) -> list[str]:
        return [r[0] for r in self.sql.execute("SELECT DISTINCT reviewer FROM reviews ORDER BY reviewer").fetchall()]

    def _analytics_sql(self) -> str:
        """The headline measures, defined once for the per-protocol table and the overall figures."""
        f = self.sql.flag
        decided = "d.review_state IN ('accepted', 'overridden', 'escalated', 'approved', 'settled')"
        return f"""
               COUNT(*) AS debates,
               COALESCE(SUM({f("d.status = 'completed'")}), 0) AS completed,
               COALESCE(SUM({f("d.status = 'failed'")}), 0) AS failed,
               COALESCE(SUM({f("d.status = 'running'")}), 0) AS running,
               AVG(CASE WHEN d.status = 'completed' THEN d.needs_human_review END) AS escalation_rate,
               AVG(CASE WHEN d.converged = 1 THEN d.rounds END) AS rounds_to_converge,
               AVG(d.input_tokens + d.output_tokens) AS tokens_per_debate,
               COALESCE(SUM({f("d.review_state != 'pending'")}), 0) AS reviewed,
               AVG(CASE WHEN {decided} THEN {f("d.review_state IN ('overridden', 'settled')")} END) AS override_rate,
               AVG(CASE WHEN {decided} THEN {f("d.review_state IN ('accepted', 'approved')")} END) AS agreement_rate
        """

    # Every figure below that reads debates leaves evaluation runs out unless `include_evaluations`.

    def analytics(self, *, include_evaluations: bool = False) -> list[dict[str, Any]]:
        """Per protocol: escalation and override rates, rounds to converge, tokens, reviewer agreement."""
        return list(self.sql.query(
            f"SELECT d.protocol AS protocol, {self._analytics_sql()} FROM debates d"
            f" WHERE {_real_work(include_evaluations, 'd.')} GROUP BY d.protocol ORDER BY d.protocol"))

    def analytics_overall(self, *, include_evaluations: bool = False) -> dict[str, Any]:
        """The same measures over every debate, aggregated by the database (no debate rows are loaded)."""
        return next(iter(self.sql.query(
            f"SELECT {self._analytics_sql()} FROM debates d WHERE {_real_work(include_evaluations, 'd.')}")))

    def token_quartiles(self, *, include_evaluations: bool = False) -> list[dict[str, Any]]:
        """Per protocol: the least, lower quartile, median, upper quartile and most tokens per debate,
        computed in SQL (for the box plot), so the page never reads every debate."""
        sql = f"""
        WITH t AS (
            SELECT protocol, input_tokens + output_tokens AS tokens,
                   ROW_NUMBER() OVER (PARTITION BY protocol ORDER BY input_tokens + output_tokens) AS rn,
                   COUNT(*) OVER (PARTITION BY protocol) AS n
            FROM debates WHERE {_real_work(include_evaluations)}
        )
        SELECT protocol, MIN(tokens) AS low, MAX(tokens) AS high, MAX(n) AS debates,
               MAX(CASE WHEN rn = (n + 3) / 4 THEN tokens END) AS q1,
               MAX(CASE WHEN rn = (n + 1) / 2 THEN tokens END) AS median,
               MAX(CASE WHEN rn = (3 * n + 3) / 4 THEN tokens END) AS q3
        FROM t GROUP BY protocol ORDER BY protocol
        """
        return list(self.sql.query(sql))

    def annotations(self, debate_id: str) -> list[dict[str, Any]]:
        """Every annotation of a debate, oldest first."""
        if "annotations" not in self.sql.table_names():  # a read-only open of a database not migrated yet
            return []
        return list(self.sql.query("SELECT * FROM annotations WHERE debate_id = ? ORDER BY id", [debate_id]))

    def _current_annotations(self) -> str:
        """The annotations that count in the figures: each reviewer's latest on each item."""
        return f"""
        SELECT a.* FROM annotations a WHERE a.id IN (
            SELECT MAX(id) FROM annotations GROUP BY kind, debate_id, step_id, call, item_id, {self.sql.nocase('reviewer')})
        """

    def severity_confirmation(self) -> list[dict[str, Any]]:
        """Per severity the critic gave: how many critiques reviewers judged, and how many they
        confirmed (marked valid without giving another severity)."""
        if "annotations" not in self.sql.table_names():
            return []
        f = self.sql.flag
        confirmed = f("label = 'valid' AND (severity IS NULL OR severity = item_severity)")
        sql = f"""
        WITH cur AS ({self._current_annotations()})
        SELECT item_severity AS severity, COUNT(*) AS judged,
               SUM({confirmed}) AS confirmed,
               SUM({f("label = 'valid' AND severity IS NOT NULL AND severity != item_severity")}) AS regraded,
               SUM({f("label = 'invalid'")}) AS rejected,
               AVG({confirmed}) AS confirmed_share
        FROM cur WHERE kind = 'critique' AND item_severity IS NOT NULL
        GROUP BY item_severity
        ORDER BY CASE item_severity WHEN 'CRITICAL' THEN 0 WHEN 'MAJOR' THEN 1 WHEN 'MINOR' THEN 2 ELSE 3 END
        """
        return list(self.sql.query(sql))

    def claim_labels_by_protocol(self, *, include_evaluations: bool = False) -> list[dict[str, Any]]:
        """Per protocol: the claims reviewers labelled, and those marked incorrect (by at least one
        reviewer's latest label), unsupported or needing a source."""
        if "annotations" not in self.sql.table_names():
            return []
        f = self.sql.flag
        sql = f"""
        WITH cur AS ({self._current_annotations()}),
        items AS (
            SELECT d.protocol AS protocol, c.debate_id, c.step_id, c.item_id,
                   MAX({f("c.label = 'incorrect'")}) AS incorrect, MAX({f("c.label = 'unsupported'")}) AS unsupported,
                   MAX({f("c.label = 'needs_source'")}) AS needs_source, MAX({f("c.label = 'correct'")}) AS correct
            FROM cur c JOIN debates d ON d.id = c.debate_id
            WHERE c.kind = 'claim' AND {_real_work(include_evaluations, 'd.')}
            GROUP BY d.protocol, c.debate_id, c.step_id, c.item_id
        )
        SELECT protocol, COUNT(*) AS labelled, SUM(incorrect) AS incorrect, SUM(unsupported) AS unsupported,
               SUM(needs_source) AS needs_source, SUM(correct) AS correct, AVG(incorrect) AS incorrect_share
        FROM items GROUP BY protocol ORDER BY protocol
        """
        return list(self.sql.query(sql))

    def trends(self, period: str = "day", *, include_evaluations: bool = False) -> list[dict[str, Any]]:
        """Debates started per day or week (weeks start on Monday), with how many completed and the
        share of completed ones the moderator flagged for a human."""
        if period not in ("day", "week"):
            raise ValueError(f"period must be 'day' or 'week', got {period!r}")
        bucket = ("substr(created_at, 1, 10)" if period == "day"
                  else self.sql.week_of("substr(created_at, 1, 10)"))
        f = self.sql.flag
        sql = f"""
        SELECT {bucket} AS period, COUNT(*) AS debates,
               COALESCE(SUM({f("status = 'completed'")}), 0) AS completed,
               COALESCE(SUM({f("status = 'completed' AND needs_human_review = 1")}), 0) AS escalated,
               AVG(CASE WHEN status = 'completed' THEN needs_human_review END) AS escalation_rate
        FROM debates WHERE created_at IS NOT NULL AND {_real_work(include_evaluations)}
        GROUP BY period ORDER BY period
        """
        return list(self.sql.query(sql))

    def reviewer_activity(self) -> list[dict[str, Any]]:
        """Per reviewer (names matched without regard to case): review actions by kind, overrides,
        annotations, and the time of the latest of them."""
        has_annotations = "annotations" in self.sql.table_names()
        f, nc = self.sql.flag, self.sql.nocase
        claim, critique = f("kind = 'claim'"), f("kind = 'critique'")
        ann = (f"SELECT MIN(reviewer) AS reviewer, COUNT(*) AS annotations, SUM({claim}) AS claim_annotations, "
               f"SUM({critique}) AS critique_annotations, MAX(ts) AS last "
               f"FROM annotations GROUP BY {nc('reviewer')}" if has_annotations
               else "SELECT NULL AS reviewer, 0 AS annotations, 0 AS claim_annotations, "
                    "0 AS critique_annotations, NULL AS last WHERE 1 = 0")
        sql = f"""
        WITH acts AS (
            SELECT MIN(reviewer) AS reviewer, COUNT(*) AS actions, SUM({f("action = 'accept'")}) AS accepts,
                   SUM({f("action = 'override'")}) AS overrides, SUM({f("action = 'escalate'")}) AS escalations,
                   SUM({f("action = 'approve'")}) AS approvals, SUM({f("role = 'supervisor'")}) AS as_supervisor,
                   MAX(ts) AS last
            FROM reviews WHERE action != 'annotate' GROUP BY {nc('reviewer')}
        ),
        ann AS ({ann}),
        names AS (SELECT reviewer FROM acts UNION SELECT reviewer FROM ann)
        SELECT n.reviewer AS reviewer, COALESCE(a.actions, 0) AS actions, COALESCE(a.accepts, 0) AS accepts,
               COALESCE(a.overrides, 0) AS overrides, COALESCE(a.escalations, 0) AS escalations,
               COALESCE(a.approvals, 0) AS approvals, COALESCE(a.as_supervisor, 0) AS as_supervisor,
               COALESCE(x.annotations, 0) AS annotations, COALESCE(x.claim_annotations, 0) AS claim_annotations,
               COALESCE(x.critique_annotations, 0) AS critique_annotations,
               {self.sql.greatest("COALESCE(a.last, '')", "COALESCE(x.last, '')")} AS last
        FROM (SELECT MIN(reviewer) AS reviewer FROM names GROUP BY {nc('reviewer')}) n
        LEFT JOIN acts a ON {nc('a.reviewer')} = {nc('n.reviewer')}
        LEFT JOIN ann x ON {nc('x.reviewer')} = {nc('n.reviewer')}
        ORDER BY COALESCE(a.actions, 0) + COALESCE(x.annotations, 0) DESC, {nc('n.reviewer')}
        """
        return list(self.sql.query(sql))

    def tokens_by_model(self, *, include_evaluations: bool = False) -> list[dict[str, Any]]:
        """Per protocol and model the debates were run with: debates and tokens, for pricing."""
        return list(self.sql.query(
            "SELECT protocol, model, COUNT(*) AS debates, COALESCE(SUM(input_tokens), 0) AS input_tokens,"
            " COALESCE(SUM(output_tokens), 0) AS output_tokens FROM debates"
            f" WHERE {_real_work(include_evaluations)} GROUP BY protocol, model ORDER BY protocol, model"))
