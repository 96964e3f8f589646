"""The backend a configuration names (local llama.cpp, an OpenAI-compatible server, simulated)."""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.judges.backend import Backend
from studio.judges.simulated import SimulatedBackend
from studio.store import Database
from studio.store import labels as label_store
from studio.store.evaluation import load_labels


def make_backend(db: Database, config: JudgeConfig) -> Backend:
    """The backend `config` names. The local and remote backends are imported here, when chosen:
    their client libraries (package metadata, http, threads) would otherwise load with every
    command and with the studio's start."""
    if config.backend == "llamacpp":
        from studio.judges.llamacpp_backend import LlamaCppBackend

        return LlamaCppBackend(config.model, threads=config.threads, seed=config.seed)
    if config.backend == "simulated":
        ref_id = label_store.label_set_id(db.cursor(), config.ref)
        if ref_id is None:
            raise UsageError(f"the simulated judge copies a label set: no {config.ref!r}")
        return SimulatedBackend(
            config.ref,
            load_labels(db.cursor(), ref_id),
            kappa=config.kappa,
            seed=config.seed,
            relevant=config.ref_relevant,
            position_bias=config.position_bias,
        )
    if config.backend == "openai":
        if not config.model:
            raise UsageError("the openai backend needs --model")
        from studio.judges.openai_backend import OpenAIBackend

        return OpenAIBackend(
            config.model,
            base_url=config.base_url,
            api_key_env=config.api_key_env,
            concurrency=config.concurrency,
            timeout=config.timeout,
            max_retries=config.retries,
            seed=config.seed,
            price_input=config.price_input,
            price_output=config.price_output,
            constrain=config.constrain,
        )
    raise UsageError(f"unknown backend {config.backend!r} (llamacpp, openai, simulated)")
