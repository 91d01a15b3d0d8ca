"""``python -m service.store.schema_check``: exit status 0 when the database named by
``DATABASE_URL`` is at this release's migration; otherwise 1 with one line saying why
(not migrated, behind or ahead, or unreachable).

gunicorn's master runs it as a child process at start (gunicorn.conf.py ``when_ready``):
the master itself must import none of the service's modules, or the gevent workers it
forks would inherit them imported before gevent patched ``threading`` and sockets.
"""

from __future__ import annotations

import sys

from service.config import database_url
from service.store import GameStore, SchemaNotCurrent, check_schema


def main() -> int:
    store = GameStore(database_url())
    try:
        check_schema(store)
    except SchemaNotCurrent as error:
        print(error)
        return 1
    except Exception as error:  # noqa: BLE001 - unreachable database: say so
        print(f"The database cannot be reached: {error}")
        return 1
    finally:
        store.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
