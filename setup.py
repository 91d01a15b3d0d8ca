"""Shim so that `pip install -e .` works; all metadata lives in setup.cfg."""
from setuptools import setup

setup()
