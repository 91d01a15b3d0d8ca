# The two commands of the README: `make serve` and `make test`.
# Both create .venv and install the project into it on first use.
VENV    ?= .venv
HOST    ?= 127.0.0.1
PORT    ?= 8000
WORKERS ?= 4
BIN     := $(VENV)/bin
# prometheus-client's multiprocess mode: each worker writes its metrics here and
# /metrics adds them up; emptied of the last run's files at each start
PROMETHEUS_MULTIPROC_DIR ?= $(CURDIR)/var/prometheus

# gettext catalogs (service/i18n.py): the .po files are the source, committed; the
# install compiles each to the .mo the service reads
TRANSLATIONS := service/translations
CATALOGS := $(wildcard $(TRANSLATIONS)/*/LC_MESSAGES/messages.po)

.PHONY: install serve test openapi purge messages docs
install: $(VENV)/.installed $(CATALOGS:.po=.mo)

$(VENV)/.installed: setup.cfg setup.py
	python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

$(TRANSLATIONS)/%/LC_MESSAGES/messages.mo: $(TRANSLATIONS)/%/LC_MESSAGES/messages.po $(VENV)/.installed
	$(BIN)/pybabel -q compile -i $< -o $@ -l $*

# After changing a Message: extract them all again and merge into every catalog (then
# translate the new entries: tests/test_i18n.py fails while one is missing).
messages: $(VENV)/.installed
	$(BIN)/pybabel -q extract -F babel.cfg --no-default-keywords -k Message --no-location \
	    --sort-output --project card-referee -o $(TRANSLATIONS)/messages.pot service
	$(BIN)/pybabel -q update -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS) \
	    --no-fuzzy-matching --ignore-obsolete

serve: install
	$(BIN)/alembic upgrade head
	mkdir -p $(PROMETHEUS_MULTIPROC_DIR) && rm -f $(PROMETHEUS_MULTIPROC_DIR)/*.db
	PROMETHEUS_MULTIPROC_DIR=$(PROMETHEUS_MULTIPROC_DIR) \
	$(BIN)/gunicorn --config gunicorn.conf.py --workers $(WORKERS) --bind $(HOST):$(PORT) \
	    --no-control-socket 'service:create_app()'

# Delete expired idempotency records and finished/abandoned games past their retention
# (docs/operations.md, "Operating"); PURGE_ARGS="--dry-run" or "--export-dir DIR"...
purge: install
	$(BIN)/flask --app service purge $(PURGE_ARGS)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Render the rule book and the problem catalog (seeds/) into docs/RULES.md and docs/PROBLEMS.md.
docs: install
	$(BIN)/python -m service.rulebook

# Regenerate the committed contract after changing an endpoint or schema.
openapi: install
	$(BIN)/flask --app service openapi write --format yaml openapi.yaml
