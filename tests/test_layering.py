"""Import layering: what may import what inside debate_core."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "debate_core"


def imported_modules(path: Path) -> set[str]:
    """Absolute names of the debate_core modules a file imports (relative imports resolved), those
    inside functions and under `if TYPE_CHECKING:` included."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = parts[:-1]  # a module's package; for __init__.py the package itself
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return out


PROTOCOLS_DIR = PACKAGE / "protocols"
ROOT = PACKAGE.parent


def protocol_folders() -> list[str]:
    """The protocol folders under debate_core/protocols/ (`common` is the rules they share)."""
    return sorted(p.name for p in PROTOCOLS_DIR.iterdir() if (p / "__init__.py").exists() and p.name != "__pycache__")


def _is_agent(path: Path) -> bool:
    rel = path.relative_to(PROTOCOLS_DIR).parts
    return len(rel) >= 2 and (rel[1] == "agent.py" or rel[1] == "agent")


def test_specs_flows_and_rules_never_import_the_offline_agents():
    # Only a protocol's agent (agent.py or agent/) reaches the offline helpers; its spec, flow and
    # rules never import an agent (the offline provider finds it through `ProtocolSpec.offline_agent`).
    offenders = []
    for path in sorted(PROTOCOLS_DIR.rglob("*.py")):
        if _is_agent(path):
            continue
        bad = sorted(m for m in imported_modules(path) if m.startswith("debate_core.providers.offline")
                     or any(m.startswith(f"debate_core.protocols.{name}.agent") for name in protocol_folders()))
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert offenders == []


def test_the_import_scan_sees_relative_imports():
    # The offline arbiter does import its moderator rules; the scan must resolve that relative import.
    found = imported_modules(PROTOCOLS_DIR / "arbitration" / "agent.py")
    assert "debate_core.protocols.arbitration.rules.authority_order" in found
    assert "debate_core.providers.offline.agents.register" in found


def test_each_protocol_is_one_folder_with_its_spec_rules_agent_and_rows():
    from debate_core.protocols import BASELINES, PROTOCOLS, get_spec

    folders = {get_spec(name).offline_agent.rsplit(".", 2)[1] for name in (*PROTOCOLS, *BASELINES)}
    assert folders == {*PROTOCOLS, "baselines"}
    assert set(protocol_folders()) == folders
    for name in folders:
        for part in ("rules", "agent"):
            assert (PROTOCOLS_DIR / name / f"{part}.py").exists() or (PROTOCOLS_DIR / name / part / "__init__.py").exists()
    # The folders cut by kind of code are gone: the offline package keeps only what agents share.
    assert not (PACKAGE / "moderator").exists()
    assert not (PACKAGE / "offline").exists()
    assert sorted(p.name for p in (PACKAGE / "providers" / "offline").iterdir() if p.suffix == ".py") == [
        "__init__.py", "agents.py", "reading.py"]


def test_nothing_outside_a_protocol_folder_imports_its_rules_or_its_agents():
    # Other code reads a protocol through its spec (stages, reply caps, nouns, offline agent, review
    # threshold, rows) or its public modules (rows.py), never through its moderator rules or its agent.
    files = [*sorted(PACKAGE.rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py")),
             *sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "bench").rglob("*.py")),
             *sorted((ROOT / "scripts").rglob("*.py")), ROOT / "app.py"]
    offenders = []
    for path in files:
        if not path.exists():
            continue
        if path.is_relative_to(PACKAGE):
            scanned = imported_modules(path)
        else:  # outside the package: only absolute imports can reach it
            scanned = {n for n in _absolute_imports(path)}
        for name in protocol_folders():
            if path.is_relative_to(PROTOCOLS_DIR / name):
                continue
            bad = sorted(m for m in scanned for part in ("rules", "agent")
                         if m == f"debate_core.protocols.{name}.{part}"
                         or m.startswith(f"debate_core.protocols.{name}.{part}."))
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {', '.join(bad)}")
    assert offenders == []


def _absolute_imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_store_does_not_load_the_engine():
    code = "import sys, debate_core.store; print('debate_core.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------
# The layer contract: each package imports only from the layers below it
# ---------------------------------------------------------------------------

# Lowest first. A module may import from its own layer and from any layer below it, never above.
# Two packages on one floor stay out of each other's way, except where ALLOWED_ACROSS says so.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core", "client"),          # shared vocabulary; the API's Python client, which imports nothing of ours
    ("providers", "store"),      # who answers a step; where debates are kept
    ("engine",),                 # runs the spec it is given, writes through the event sink
    ("protocols",),              # the registry and one folder per protocol
    ("evaluation", "jobs"),      # labelled runs and scores; debates run, resumed, continued, forked
    ("present",),                # what the pages and the exports show, without Streamlit or SQL
    ("api",),                    # the HTTP API: routes over the store and the worker path
    ("cli",),                    # the command line
)
ALLOWED_ACROSS = {("jobs", "evaluation")}  # the worker runs evaluations in the background
# The engine runs the spec it is given: it never looks a protocol up by name nor keeps anything itself.
FORBIDDEN = {("engine", "protocols"), ("engine", "store")}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "debate_core":
        return ""
    return parts[1] if parts[1] not in ("__main__",) else "cli"


def floor_of(layer: str) -> int:
    for n, floor in enumerate(LAYERS):
        if layer in floor:
            return n
    raise AssertionError(f"debate_core.{layer} is in no layer: add it to LAYERS in tests/test_layering.py")


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for module, targets in sorted(graph.items()):
        here = layer_of(module)
        if not here:
            continue  # the package root
        for target in sorted(targets):
            there = layer_of(target)
            if not there or there == here:
                continue
            upward = floor_of(there) > floor_of(here)
            across = floor_of(there) == floor_of(here) and (here, there) not in ALLOWED_ACROSS
            if upward or across or (here, there) in FORBIDDEN:
                kind = "upward" if upward else "across" if across else "forbidden"
                bad.append(f"{module} imports {target} ({kind}: {here} -> {there})")
    return bad


def test_every_debate_core_package_sits_on_one_floor():
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    for name in packages:
        floor_of(name)
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == [], "every module lives in a layer package"


def test_no_module_imports_upward_or_across_its_floor():
    assert layer_violations(module_graph()) == []


def test_the_layer_check_catches_an_upward_an_across_and_a_forbidden_import():
    graph = {
        "debate_core.core.text": {"debate_core.engine.run"},
        "debate_core.store.rows": {"debate_core.providers.base"},
        "debate_core.engine.run": {"debate_core.protocols", "debate_core.core.text"},
        "debate_core.jobs.worker": {"debate_core.evaluation.harness"},
    }
    assert layer_violations(graph) == [
        "debate_core.core.text imports debate_core.engine.run (upward: core -> engine)",
        "debate_core.engine.run imports debate_core.protocols (upward: engine -> protocols)",
        "debate_core.store.rows imports debate_core.providers.base (across: store -> providers)",
    ]
    # The store is below the engine, but the engine is only handed a sink: it never imports it.
    assert layer_violations({"debate_core.engine.run": {"debate_core.store"}}) == [
        "debate_core.engine.run imports debate_core.store (forbidden: engine -> store)"]


def test_the_app_and_its_pages_import_no_protocol_internals_and_no_sql():
    # ui/, pages/ and app.py sit on top: they may read every layer, but the store's SQL stays in it.
    offenders = []
    for path in [*sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]:
        bad = sorted(m for m in _absolute_imports(path) if m == "sqlite3" or m.startswith("sqlite_utils"))
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {', '.join(bad)}")
    assert offenders == []


# Modules still over the limit, being split; the list only shrinks (a split module must leave it).
KNOWN_LONG: set[str] = set()


def test_no_module_is_over_600_lines():
    long = {str(path.relative_to(ROOT))
            for path in [*PACKAGE.rglob("*.py"), *(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]
            if len(path.read_text(encoding="utf-8").splitlines()) > 600}
    assert long - KNOWN_LONG == set()
    assert KNOWN_LONG - long == set(), "these modules are short now: remove them from KNOWN_LONG"


# ---------------------------------------------------------------------------
# No import circles
# ---------------------------------------------------------------------------

# Circles still known among debate_core modules, each as the set of modules it joins. Empty now;
# a package being split (store/, cli/) that leaves one behind lists it here, with a comment, until
# it is gone, and an entry whose circle is gone must be removed, so the list only ever shrinks.
KNOWN_CIRCLES: list[frozenset[str]] = []


def module_graph() -> dict[str, set[str]]:
    """debate_core module -> the debate_core modules it imports, at the top, inside a function or
    for annotations only (a module that needs another's types belongs above it). Importing `a.b.c` also runs
    the packages `a.b` and `a` first, so those count as imported too, unless the importer is inside
    them (then they are already being imported)."""
    modules: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def module_of(name: str) -> str | None:
        while name and name not in modules:  # `pkg.mod.attr` -> `pkg.mod`
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for imported in imported_modules(path):
            found = module_of(imported)
            while found:  # the module and each package above it
                if not (name + ".").startswith(found + "."):
                    targets.add(found)
                found = module_of(found.rpartition(".")[0])
        graph[name] = targets
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[tuple[frozenset[str], list[str]]]:
    """Each circle (a strongly connected group of two or more modules) with a chain round it,
    `a, b, ..., a`, each importing the next."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [(frozenset(group), _chain(graph, group)) for group in groups]


def _chain(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest way round a circle, from its first module by name back to it."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & group):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    raise AssertionError(f"no way round {sorted(group)}")


def test_the_circle_finder_finds_a_circle_and_names_it_as_a_chain():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert import_circles(graph) == [(frozenset("abc"), ["a", "b", "c", "a"])]


def test_the_graph_sees_imports_inside_functions_and_the_packages_they_run():
    graph = module_graph()
    # The offline provider finds its agents through agents.py; a protocol's folder
    # imports the engine's spec, whose package runs first.
    assert "debate_core.providers.offline.agents" in graph["debate_core.providers.offline"]
    assert "debate_core.core.settings" in graph["debate_core.core.profiles"]
    assert {"debate_core.engine", "debate_core.engine.spec"} <= graph["debate_core.protocols.panel"]
    # The settings checks read a spec through a structural type, so they sit below spec.py.
    assert "debate_core.engine.spec" not in graph["debate_core.engine.validation"]


def test_no_import_circles_among_debate_core_modules():
    circles = import_circles(module_graph())
    unexpected = [f"{' -> '.join(chain)} (the circle joins {', '.join(sorted(group))})"
                  for group, chain in circles if group not in KNOWN_CIRCLES]
    assert unexpected == [], "import circles (each module imports the next):\n" + "\n".join(unexpected)
    gone = [sorted(k) for k in KNOWN_CIRCLES if k not in {group for group, _ in circles}]
    assert gone == [], f"these known circles are gone; remove them from KNOWN_CIRCLES: {gone}"


# ---------------------------------------------------------------------------
# The app draws every stage of every protocol with its own renderer
# ---------------------------------------------------------------------------


def test_every_stage_of_every_protocol_has_a_renderer_in_its_ui_module():
    # Scoped to the real PROTOCOLS and BASELINES (a test may add a protocol without a ui module, which
    # falls back to plain fields). Each protocol's renderers live in ui/protocols/<name>.py.
    from debate_core.protocols import BASELINES, PROTOCOLS, get_spec
    from ui import stages

    missing = [f"{name}.{stage.name}" for name in (*PROTOCOLS, *BASELINES) for stage in get_spec(name).stages
               if stages.renderer_for(name, stage.name) is None]
    assert missing == []
    for name in (*PROTOCOLS, *BASELINES):
        module = stages.ui_module(name)
        assert (ROOT / Path(*module.split("."))).with_suffix(".py").exists(), module
    assert all(stages.view_for(name) is not None for name in PROTOCOLS)
    # The check can fail: a made-up stage, or a protocol without a ui module, has no renderer.
    assert stages.renderer_for("panel", "no_such_stage") is None
    assert stages.renderer_for("no_such_protocol", "answer") is None
    # ui/stages.py keeps the registry and shared helpers only: no protocol draws there.
    assert "protocol_view(\"" not in (ROOT / "ui" / "stages.py").read_text(encoding="utf-8")
