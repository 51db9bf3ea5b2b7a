"""Import layering: what may import what inside debate_core."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "debate_core"


def imported_modules(path: Path) -> set[str]:
    """Absolute names of the debate_core modules a file imports (relative imports resolved)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = parts[:-1]  # a module's package; for __init__.py the package itself
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return out


def test_protocols_and_moderators_never_import_the_offline_agents():
    offenders = []
    for folder in ("protocols", "moderator"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            bad = sorted(m for m in imported_modules(path) if m.startswith("debate_core.offline"))
            if bad:
                offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert offenders == []


def test_the_import_scan_sees_relative_imports():
    # The offline arbiter does import its moderator; the scan must resolve that relative import.
    found = imported_modules(PACKAGE / "offline" / "arbitration.py")
    assert "debate_core.moderator.arbitration.authority_order" in found
    assert "debate_core.offline.register" in found


def test_the_store_does_not_load_the_engine():
    code = "import sys, debate_core.store; print('debate_core.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == "False"
