"""Fixtures of the judge tests that speak to a server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai_server import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """An OpenAI-compatible server on loopback for the test's length."""
    with FakeOpenAIServer() as running:
        yield running
