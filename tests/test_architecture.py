"""The one direction of imports (ARCHITECTURE.md): api -> store -> games -> cards.

Every import of every module is read from its source (function-level ones included),
so an arrow running back up fails here before it becomes a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"

# a layer (a module path prefix) -> the prefixes it may never import
FORBIDDEN = {
    "service/games": (
        "service.api",
        "service.store",
        "service.pictures",
        "service.play",
        "flask",
        "sqlalchemy",
        "werkzeug",
        "marshmallow",
        "flask_smorest",
    ),
    "service/cards.py": ("service.api", "service.store", "service.games", "flask", "sqlalchemy"),
    "service/store": ("service.api", "service.pictures", "flask_smorest", "marshmallow"),
    "service/pictures": ("service.api", "service.store", "sqlalchemy"),
}


def imports(path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute names; relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def _modules(layer: str) -> list[Path]:
    target = ROOT / layer
    return [target] if target.is_file() else sorted(target.rglob("*.py"))


def _breaks(name: str, forbidden: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_imports_run_one_way(layer: str):
    """No module of ``layer`` imports a layer above it (or a framework it must not
    know): engines stay pure functions over JSON, the store knows no HTTP."""
    wrong = {
        str(path.relative_to(ROOT)): sorted(
            n for n in imports(path) if _breaks(n, FORBIDDEN[layer])
        )
        for path in _modules(layer)
    }
    assert {k: v for k, v in wrong.items() if v} == {}


def test_the_import_reader_sees_arrows():
    """The check itself: a function-level and a relative import are both read."""
    source = SERVICE / "games" / "__init__.py"
    assert "importlib" in imports(source)
    assert _breaks("service.store.records", FORBIDDEN["service/games"])
    assert not _breaks("service.storey", ("service.store",))


def test_no_module_of_service_outgrew_one_reader():
    """No module of service/ is over 600 lines: one outgrowing that is split along what
    it does (as service/play/, service/store/records.py and service/api/games.py were)."""
    long = {
        str(path.relative_to(ROOT)): lines
        for path in SERVICE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
