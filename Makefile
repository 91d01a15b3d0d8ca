# The two commands of the README: `make serve` and `make test`.
# Both create .venv and install the project into it on first use.
VENV    ?= .venv
HOST    ?= 127.0.0.1
PORT    ?= 8000
WORKERS ?= 4
BIN     := $(VENV)/bin

.PHONY: install serve test openapi
install: $(VENV)/.installed

$(VENV)/.installed: setup.cfg setup.py
	python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

serve: install
	$(BIN)/alembic upgrade head
	$(BIN)/gunicorn --config gunicorn.conf.py --workers $(WORKERS) --bind $(HOST):$(PORT) \
	    --no-control-socket 'service:create_app()'

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Regenerate the committed contract after changing an endpoint or schema.
openapi: install
	$(BIN)/flask --app service openapi write --format yaml openapi.yaml
