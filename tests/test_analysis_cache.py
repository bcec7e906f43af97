"""The offline provider analyses a chunk once for its three tasks, within a bounded memory."""

from __future__ import annotations

from kg_pipelines.llm.client import LLMRequest
from kg_pipelines.llm.offline_provider import OfflineProvider
from kg_pipelines.offline import entities
from kg_pipelines.offline.analysis_cache import AnalysisCache


def three_passes(cache: AnalysisCache, texts: list[str]) -> None:
    """What a run does: every summary, then every extraction, then every question set."""
    for text in texts:
        cache.retain(text)
    for text in texts:
        cache.get(text)
    for text in texts:
        cache.get(text)
        cache.release(text)


def counting_cache(budget_chars: int) -> tuple[AnalysisCache, list[str]]:
    analysed: list[str] = []
    return AnalysisCache(lambda t: analysed.append(t) or t.upper(), budget_chars), analysed


def test_a_run_within_the_budget_analyses_each_text_once_and_leaves_nothing_behind():
    texts = [f"text {i:03d}" for i in range(50)]  # 8 characters each
    cache, analysed = counting_cache(budget_chars=8 * 50)
    three_passes(cache, texts)
    assert sorted(analysed) == texts
    assert len(cache) == 0 and cache.chars == 0


def test_a_run_over_the_budget_still_shares_what_fits_and_stays_within_it():
    texts = [f"text {i:03d}" for i in range(50)]
    cache, analysed = counting_cache(budget_chars=8 * 20)
    peak = 0
    for text in texts:
        cache.retain(text)
        peak = max(peak, cache.chars)
    for text in texts:
        cache.get(text)
        peak = max(peak, cache.chars)
    for text in texts:
        cache.get(text)
        cache.release(text)
    assert peak <= 8 * 20
    # 20 texts are analysed once and 30 three times: a cache that each pass flushes (plain LRU
    # eviction on every miss) would analyse all 50 three times
    assert len(analysed) == 20 + 3 * 30


def test_a_new_run_displaces_what_an_earlier_one_left():
    cache, analysed = counting_cache(budget_chars=8 * 10)
    for i in range(10):
        cache.get(f"old  {i:03d}")  # read by extraction only: never released
    three_passes(cache, [f"new  {i:03d}" for i in range(10)])
    assert len([t for t in analysed if t.startswith("new")]) == 10


def request(task: str, **inputs) -> LLMRequest:
    return LLMRequest(task, "chunk", "", "", task, {}, inputs)


def test_the_offline_providers_three_tasks_analyse_a_chunk_once(monkeypatch):
    calls: list[str] = []
    real = entities._tokenize  # once per analysis
    monkeypatch.setattr(entities, "_tokenize", lambda text, sentences: calls.append(text) or real(text, sentences))
    entities.ANALYSES.clear()
    provider = OfflineProvider()
    texts = [f"Metformin activates AMPK in liver cells of mouse {i}. Rapamycin inhibits mTORC1." for i in range(80)]
    for text in texts:  # more chunks than the small cache in front of it holds (64)
        provider.generate(request("summarize", text=text, prior_summary=""))
    for text in texts:
        provider.generate(request("extract", text=text, entity_types=["gene", "compound"]))
    for text in texts:
        provider.generate(request("questions", text=text, min=5, max=10))
    assert len(calls) == len(texts)
    assert len(entities.ANALYSES) == 0
