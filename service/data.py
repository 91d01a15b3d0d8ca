"""Where the data the service loads lives: ``seeds/`` and ``migrations/``.

In a checkout (and an editable install) they are folders beside the package; a wheel
(``pip install .``) carries them inside it as ``service/_data/<name>`` (setup.py)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder ``name`` (``"seeds"`` or ``"migrations"``): inside the installed
    package if it is there, else beside the package (a checkout). Raises
    FileNotFoundError naming both places when neither exists."""
    for candidate in (PACKAGE / "_data" / name, PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"{name}/ is neither in {PACKAGE / '_data'} nor in {PACKAGE.parent}")


def seed_file(name: str) -> Path:
    """A file of ``seeds/`` (``"halves-deck.json"``, ``"rules/two-way.yaml"``)."""
    return data_dir("seeds") / name
