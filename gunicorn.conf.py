"""gunicorn reads this file by itself when started from this directory (``make serve``
passes it too): the settings are ``service/gunicorn.conf.py``, which ships with the
package (``card-referee serve`` uses it from an installed wheel)."""
from pathlib import Path

_SETTINGS = Path(__file__).resolve().parent / "service" / "gunicorn.conf.py"
exec(compile(_SETTINGS.read_text(encoding="utf-8"), str(_SETTINGS), "exec"))  # noqa: S102
