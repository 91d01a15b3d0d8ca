"""Packaging; the metadata lives in setup.cfg.

The service reads data that lives beside the package in the repository: ``seeds/``
(boards, decks, tile manifests, rule texts) and ``migrations/`` (Alembic). A wheel (and
``pip install .``) carries both inside the package, as ``service/_data/seeds`` and
``service/_data/migrations``; :func:`service.data.data_dir` finds them either way."""
from setuptools import find_packages, setup

DATA = {"seeds": ["*.json", "*.yaml", "*.py", "rules/*.yaml"],
        "migrations": ["*.py", "*.mako", "versions/*.py"]}

# the package's own files beside its modules
PACKAGE_DATA = {"service": ["translations/*/LC_MESSAGES/*.po", "translations/*/LC_MESSAGES/*.mo",
                            "translations/*.pot", "gunicorn.conf.py"],
                "service.referee": ["*.html", "*.js", "*.css", "*.json", "*.png", "*.svg",
                                    "js/*.js", "lang/*.json"]}

setup(
    packages=find_packages(include=["service", "service.*"])
    + [f"service._data.{name}" for name in DATA],
    package_dir={f"service._data.{name}": name for name in DATA},
    package_data={**PACKAGE_DATA,
                  **{f"service._data.{name}": patterns for name, patterns in DATA.items()}},
)
