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

.PHONY: install serve test openapi purge
install: $(VENV)/.installed

$(VENV)/.installed: setup.cfg setup.py
	python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

serve: install
	$(BIN)/alembic upgrade head
	mkdir -p $(PROMETHEUS_MULTIPROC_DIR) && rm -f $(PROMETHEUS_MULTIPROC_DIR)/*.db
	PROMETHEUS_MULTIPROC_DIR=$(PROMETHEUS_MULTIPROC_DIR) \
	$(BIN)/gunicorn --config gunicorn.conf.py --workers $(WORKERS) --bind $(HOST):$(PORT) \
	    --no-control-socket 'service:create_app()'

# Delete expired idempotency records and finished/abandoned games past their retention
# (README, "Operating"); PURGE_ARGS="--dry-run" or "--export-dir DIR"...
purge: install
	$(BIN)/flask --app service purge $(PURGE_ARGS)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Regenerate the committed contract after changing an endpoint or schema.
openapi: install
	$(BIN)/flask --app service openapi write --format yaml openapi.yaml
