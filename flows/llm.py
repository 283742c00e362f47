"""The LLM path: instructor over any OpenAI-compatible endpoint, prompts read from files.

The HTTP client retries 5xx and timeouts with exponential backoff (``llm_max_retries``);
instructor re-asks when an answer does not validate against the schema. Prompts live in
``flows/prompts/*.md`` so a user can read and change what the model is told.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TypeVar

import instructor
from openai import OpenAI
from pydantic import BaseModel

from memory_repo.settings import Settings

PROMPTS = Path(__file__).parent / "prompts"
M = TypeVar("M", bound=BaseModel)


def enabled(settings: Settings) -> bool:
    """No endpoint configured means the offline rules provider."""
    return bool(settings.llm_base_url)


@cache
def prompt(name: str) -> str:
    return (PROMPTS / f"{name}.md").read_text("utf-8")


def client(settings: Settings) -> instructor.Instructor:
    """The one instructor client for the configured endpoint (the write path's steps and
    the evaluation's LLM judge): its timeout and HTTP retries come from settings."""
    return instructor.from_openai(
        OpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key or "unused",
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
        ),
        mode=instructor.Mode.TOOLS,
    )


def ask(settings: Settings, prompt_name: str, content: str, response_model: type[M]) -> M:
    return client(settings).chat.completions.create(
        model=settings.llm_model,
        response_model=response_model,
        max_retries=settings.llm_max_retries,
        temperature=0,
        messages=[
            {"role": "system", "content": prompt(prompt_name)},
            {"role": "user", "content": content},
        ],
    )
