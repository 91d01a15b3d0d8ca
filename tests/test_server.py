"""The gunicorn worker's settings (service/server.py ``settle``): every setting a plain
attribute of the worker's copy, read as gunicorn's ``Config`` gives it."""

from __future__ import annotations

from gunicorn.config import Config

from service.server import settle


def test_settled_settings_read_as_gunicorn_gives_them():
    cfg = Config()
    cfg.set("keepalive", 7)
    cfg.set("forwarded_allow_ips", "10.0.0.1")
    before = {name: getattr(cfg, name) for name in cfg.settings}
    settle(cfg)
    assert {name: getattr(cfg, name) for name in cfg.settings} == before
    assert cfg.keepalive == 7 and cfg.forwarded_allow_ips == ["10.0.0.1"]
    # a plain attribute: no __getattr__ after a failed lookup
    assert vars(cfg)["keepalive"] == 7 and "timeout" in vars(cfg)
    # what the Config class computes itself stays its own (properties, methods)
    own = {name for name in cfg.settings if hasattr(Config, name)}
    assert own and not own & set(vars(cfg))
    assert cfg.worker_class is before["worker_class"]
    assert cfg.forwarded_allow_networks() == Config.forwarded_allow_networks(cfg)


def test_the_worker_puts_the_ready_first_wait_in_place_before_loading_the_app(monkeypatch):
    """service/store/waits.py: installed by each worker once gevent has patched it (its
    init_process), before the app is loaded."""
    from gunicorn.workers.ggevent import GeventWorker as GunicornGeventWorker

    from service.server import GeventWorker
    from service.store import waits

    calls: list[str] = []
    monkeypatch.setattr(waits, "install", lambda: calls.append("install") or True)

    def load(worker):
        calls.append("load the app")
        worker.wsgi = lambda environ, start_response: []

    monkeypatch.setattr(GunicornGeventWorker, "load_wsgi", load)
    worker = GeventWorker.__new__(GeventWorker)
    worker.read_deadline = 15.0
    worker.load_wsgi()
    assert calls == ["install", "load the app"]
